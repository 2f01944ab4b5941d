#include "core/chunker/front_matter.h"

#include <cctype>

namespace vesper::chunking {
namespace {

// Front matter is a few lines of metadata; a "---" line further down is a
// thematic break, not the end of a block that started the document.
constexpr size_t kMaxFrontMatterBytes = 16 * 1024;
// A field value longer than this is not a title or summary (a block scalar,
// an embedded list): ignored.
constexpr size_t kMaxFieldBytes = 1024;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool IsFence(std::string_view line, bool closing) {
  line = Trim(line);
  return line == "---" || (closing && line == "...");
}

// A plain or quoted scalar; YAML's escapes are rare in titles and kept as written.
std::string Scalar(std::string_view v) {
  v = Trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    return std::string(v.substr(1, v.size() - 2));
  }
  if (!v.empty() && (v.front() == '|' || v.front() == '>' || v.front() == '[' || v.front() == '{')) return {};
  size_t comment = v.find(" #");
  return std::string(Trim(v.substr(0, comment)));
}

std::string LanguageCode(std::string value) {
  std::string code;
  for (char c : value) {
    if (c == '-' || c == '_') break;
    if (!std::isalpha(static_cast<unsigned char>(c))) return {};
    code += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return code.size() >= 2 && code.size() <= 3 ? code : std::string();
}

void ReadField(std::string_view line, FrontMatter& fm) {
  if (line.empty() || line.front() == ' ' || line.front() == '\t' || line.front() == '#') return;  // nested or comment
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  std::string key(Trim(line.substr(0, colon)));
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view raw = line.substr(colon + 1);
  if (raw.size() > kMaxFieldBytes) return;
  if (key == "title" && fm.title.empty()) fm.title = Scalar(raw);
  else if ((key == "description" || key == "summary") && fm.description.empty()) fm.description = Scalar(raw);
  else if ((key == "lang" || key == "language") && fm.language.empty()) fm.language = LanguageCode(Scalar(raw));
}

}  // namespace

FrontMatter ReadFrontMatter(std::string_view text) {
  size_t start = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  size_t eol = text.find('\n', start);
  if (eol == std::string_view::npos || !IsFence(text.substr(start, eol - start), false)) return {};
  FrontMatter fm;
  for (size_t at = eol + 1; at < text.size() && at <= kMaxFrontMatterBytes;) {
    size_t next = text.find('\n', at);
    std::string_view line = text.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at);
    if (IsFence(line, true)) {
      fm.end = next == std::string_view::npos ? text.size() : next + 1;
      return fm;
    }
    ReadField(line, fm);
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  return {};  // never closed: not front matter
}

}  // namespace vesper::chunking
