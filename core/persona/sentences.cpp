#include "core/persona/sentences.h"

#include "core/util/utf8.h"

namespace vesper {

namespace {

bool IsSentenceEnd(char32_t cp) { return cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B; }

std::string Collapse(std::string_view s) {
  std::string out;
  bool space = false;
  for (size_t i = 0; i < s.size();) {
    size_t start = i;
    char32_t cp = utf8::Next(s, i);
    if (utf8::IsSpace(cp)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out.append(s, start, i - start);
  }
  return out;
}

}  // namespace

bool LooksLikeCode(std::string_view line) {
  size_t letters = 0, symbols = 0, total = 0;
  for (size_t i = 0; i < line.size();) {
    char32_t cp = utf8::Next(line, i);
    if (utf8::IsSpace(cp)) continue;
    ++total;
    if (cp >= 0x2500 && cp <= 0x259F) return true;  // box drawing: diagrams
    if (utf8::IsLatinLetter(cp) || utf8::IsCjk(cp)) ++letters;
    else if (std::string_view("{}[]()=<>_#|`*/\\;$@~^").find(static_cast<char>(cp < 0x80 ? cp : 0)) != std::string_view::npos &&
             cp < 0x80)
      ++symbols;
  }
  if (total == 0) return true;
  if (line.find("```") != std::string_view::npos || line.find("def ") == 0 || line.find("class ") == 0 ||
      line.find("import ") == 0 || line.find("self.") != std::string_view::npos || line.find("|---") != std::string_view::npos)
    return true;
  return letters * 10 < total * 6 || symbols * 10 > total;
}

namespace {

bool StartsListItem(std::string_view line) {
  size_t k = 0;
  while (k < line.size() && line[k] >= '0' && line[k] <= '9') ++k;
  if (k > 0 && k < line.size() && (line[k] == '.' || line[k] == ')')) return true;
  return line.rfind("- ", 0) == 0 || line.rfind("* ", 0) == 0 || line.rfind("\xE2\x86\x92", 0) == 0 ||
         line.rfind("\xE2\x80\xA2", 0) == 0;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Hard-wrapped prose joins back into one line; list items, headings
// (short lines) and blank lines keep their own.
std::vector<std::string> Segments(std::string_view passage) {
  std::vector<std::string> segs;
  std::string cur;
  std::string_view prev;
  size_t pos = 0;
  while (pos <= passage.size()) {
    size_t nl = passage.find('\n', pos);
    if (nl == std::string_view::npos) nl = passage.size();
    std::string_view line = Trim(passage.substr(pos, nl - pos));
    pos = nl + 1;
    bool breaks = line.empty() || StartsListItem(line) || prev.size() < 50 || prev.back() == ':';
    if (breaks && !cur.empty()) {
      segs.push_back(std::move(cur));
      cur.clear();
    }
    if (!line.empty()) {
      if (!cur.empty()) cur += ' ';
      cur.append(line);
    }
    prev = line.empty() ? std::string_view() : line;
  }
  if (!cur.empty()) segs.push_back(std::move(cur));
  return segs;
}

}  // namespace

std::vector<Sentence> SplitSentences(std::string_view passage) {
  std::vector<Sentence> out;
  if (utf8::FindInvalid(passage) != std::string_view::npos) return out;
  auto emit = [&](std::string_view piece) {
    std::string raw(piece);
    // Markdown emphasis and code marks are layout.
    for (const char* mark : {"**", "`"}) {
      for (size_t at = raw.find(mark); at != std::string::npos; at = raw.find(mark, at)) raw.erase(at, std::string_view(mark).size());
    }
    std::string s = Collapse(raw);
    // A one-word label before a colon ("Definition:", "一句话：", "证据：- ") introduces; it does not say.
    for (std::string_view colon : {std::string_view(":"), std::string_view("\xEF\xBC\x9A")}) {
      size_t at = s.find(colon);
      if (at != std::string::npos && at > 0 && at <= 24 && s.size() > at + colon.size() + 20 &&
          s.substr(0, at).find(' ') == std::string::npos) {
        s = s.substr(at + colon.size());
        while (!s.empty() && (s[0] == ' ' || s[0] == '-')) s.erase(0, 1);
        break;
      }
    }
    // Leading list markers ("1.", "-") are layout, not content.
    size_t k = 0;
    while (k < s.size() && (s[k] == '-' || s[k] == '*' || s[k] == ' ' || (s[k] >= '0' && s[k] <= '9') || s[k] == '.' || s[k] == ')'))
      ++k;
    if (k > 0 && k < s.size() && k <= 4) s = s.substr(k);
    if (s.size() < 24 || LooksLikeCode(s)) return;
    // A passage that starts mid-sentence (chunk overlap) starts lower-case: not quotable.
    if (s[0] >= 'a' && s[0] <= 'z' && out.empty()) return;
    // Very long runs (flattened lists without punctuation) are cut at a clause boundary.
    if (s.size() > 320) {
      size_t cut = std::string::npos;
      for (std::string_view mark : {std::string_view("\xEF\xBC\x8C"), std::string_view("\xEF\xBC\x9B"), std::string_view(", "), std::string_view("; ")}) {
        size_t at = s.rfind(mark, 300);
        if (at != std::string::npos && at > 80 && (cut == std::string::npos || at > cut)) cut = at;
      }
      if (cut == std::string::npos) return;
      s = s.substr(0, cut) + "\xE2\x80\xA6";  // …
    }
    out.push_back({std::move(s), out.size()});
  };
  std::vector<std::string> pieces;
  for (const std::string& seg : Segments(passage)) {
    // Markdown lists flattened onto one line ("擅长： - a - b") are items, not one sentence.
    size_t from = 0;
    for (size_t at = seg.find(" - "); at != std::string::npos; at = seg.find(" - ", at + 3)) {
      pieces.push_back(seg.substr(from, at - from));
      from = at + 3;
    }
    pieces.push_back(seg.substr(from));
  }
  for (const std::string& seg : pieces) {
    std::string_view text = seg;
    size_t begin = 0;
    for (size_t i = 0; i < text.size();) {
      size_t at = i;
      char32_t cp = utf8::Next(text, i);
      bool end = IsSentenceEnd(cp);
      if ((cp == '.' || cp == '!' || cp == '?') && (i >= text.size() || text[i] == ' ')) {
        // "e.g. " and "vs. " are not sentence ends.
        size_t w = at;
        while (w > begin && text[w - 1] != ' ') --w;
        std::string_view word = text.substr(w, at - w);
        end = !(word == "e.g" || word == "i.e" || word == "vs" || word == "etc" || word == "ex" || word == "p.ex" ||
                word.size() <= 1);
      }
      if (end) {
        emit(text.substr(begin, i - begin));
        begin = i;
      }
    }
    if (begin < text.size()) emit(text.substr(begin));
  }
  return out;
}

}  // namespace vesper
