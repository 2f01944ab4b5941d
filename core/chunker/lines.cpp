#include "core/chunker/lines.h"

#include <cctype>
#include <string>

namespace vesper::chunking {
namespace {

bool IsSpaceByte(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

void Trim(std::string_view text, size_t& b, size_t& e) {
  while (b < e && IsSpaceByte(text[b])) ++b;
  // U+3000 ideographic space is common around flattened CJK headings.
  while (e > b && (IsSpaceByte(text[e - 1]) || (e - b >= 3 && text.substr(e - 3, 3) == "\xE3\x80\x80"))) {
    e -= IsSpaceByte(text[e - 1]) ? 1 : 3;
  }
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool HasAsciiLetter(std::string_view s) {
  for (char c : s) if (std::isalpha(static_cast<unsigned char>(c))) return true;
  return false;
}

// CJK scripts start at U+2E80, whose UTF-8 lead byte is 0xE2; the ideographs
// (U+3400 up) all have lead bytes 0xE3-0xE9.
bool HasCjk(std::string_view s) {
  for (char c : s) {
    auto b = static_cast<unsigned char>(c);
    if (b >= 0xE3 && b <= 0xE9) return true;
  }
  return false;
}

// Number of '#' at s[p] when it opens an ATX heading ("## "), else 0.
int HeadingMarkerAt(std::string_view s, size_t p) {
  size_t q = p;
  while (q < s.size() && s[q] == '#') ++q;
  int n = static_cast<int>(q - p);
  if (n < 1 || n > 6 || q >= s.size() || s[q] != ' ') return 0;
  return n;
}

// Where an inline heading's title ends in flattened text: the heading had a
// line of its own, so its end must be guessed from what follows it.
size_t InlineHeadingEnd(std::string_view s, size_t title_begin) {
  size_t words = 1;
  for (size_t p = title_begin; p < s.size(); ++p) {
    if (s[p] != ' ') continue;
    std::string_view so_far = s.substr(title_begin, p - title_begin);
    std::string_view next = s.substr(p + 1);
    // What opens the body: emphasis, a list, a table, a quote, code, another heading.
    if (next.empty() || StartsWith(next, "**") || StartsWith(next, "- ") || StartsWith(next, "* ") ||
        StartsWith(next, "|") || StartsWith(next, "> ") || StartsWith(next, "`") || StartsWith(next, "#") ||
        StartsWith(next, "\xE2\x80\xA2") || (std::isdigit(static_cast<unsigned char>(next[0])) &&
                                              next.find(". ") < 4)) {
      return p;
    }
    // A title written only in CJK ends at its first space (the body follows),
    // unless it is a labelled one ("模型2: 从零构建...", "模型4: ...重于 demo"),
    // which runs on to what opens the body.
    bool colon = so_far.find(':') != std::string_view::npos || so_far.find("\xEF\xBC\x9A") != std::string_view::npos;
    // CJK followed by more CJK after a space: the body has begun ("表达DNA 角色扮演时...").
    bool cjk_body = HasCjk(so_far) && static_cast<unsigned char>(next[0]) >= 0xE3;
    bool label_open = (!so_far.empty() && so_far.back() == ':') ||
                      (so_far.size() >= 3 && so_far.substr(so_far.size() - 3) == "\xEF\xBC\x9A");
    if (!label_open && (cjk_body || (!colon && !HasAsciiLetter(so_far)))) return p;
    if (++words > 12 || so_far.size() > 90) return p;
  }
  return s.size();
}

// Offsets where a flattened line must be cut back into lines.
std::vector<size_t> UnfoldCuts(std::string_view s) {
  std::vector<size_t> cuts;
  size_t table_pipes = 0, pipes_seen = 0;  // inside a flattened table
  for (size_t p = 1; p < s.size(); ++p) {
    char c = s[p];
    if (table_pipes) {
      if (c != '|') continue;
      if (++pipes_seen % table_pipes == 0) {
        // Row ends here; the table goes on only if another row opens right after.
        size_t q = p + 1;
        while (q < s.size() && s[q] == ' ') ++q;
        if (q < s.size() && s[q] == '|') cuts.push_back(q), p = q - 1;
        else table_pipes = 0;
      }
      continue;
    }
    if (s[p - 1] != ' ') continue;
    // A single "# " inside a line is a code comment ("dn_dw = x # coeficiente
    // de w"): a flattened document's title starts its line.
    if (int n = HeadingMarkerAt(s, p); n >= 2) {
      cuts.push_back(p);
      size_t end = InlineHeadingEnd(s, p + n + 1);
      if (end < s.size()) cuts.push_back(end);
      p = end;
      continue;
    }
    std::string_view rest = s.substr(p);
    if ((c == '-' || c == '*') && rest.size() > 1 && rest[1] == ' ') { cuts.push_back(p); continue; }
    if (StartsWith(rest, "\xE2\x80\xA2 ") || StartsWith(rest, "> ")) { cuts.push_back(p); continue; }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t q = p;
      while (q < s.size() && std::isdigit(static_cast<unsigned char>(s[q]))) ++q;
      if (q - p <= 2 && q + 1 < s.size() && s[q] == '.' && s[q + 1] == ' ') cuts.push_back(p);
      continue;
    }
    if (c == '|') {
      // A table: count the header row's pipes up to the "|---" separator row.
      size_t sep = s.find("|-", p + 1);
      size_t sep2 = s.find("|:-", p + 1);
      if (sep2 < sep) sep = sep2;
      if (sep == std::string_view::npos || sep - p > 2000) continue;
      size_t pipes = 0;
      for (size_t q = p; q < sep; ++q) pipes += s[q] == '|';
      if (pipes < 2) continue;
      cuts.push_back(p);
      table_pipes = pipes;
      pipes_seen = 1;
    }
  }
  return cuts;
}

bool IsFlattened(std::string_view s) {
  int headings = 0;
  for (size_t p = 1; p < s.size(); ++p)
    if (s[p - 1] == ' ' && HeadingMarkerAt(s, p) && ++headings >= 2) return true;
  return false;
}

Line Classify(std::string_view text, size_t b, size_t e) {
  Line line;
  line.begin = b;
  line.end = e;
  std::string_view s = text.substr(b, e - b);
  if (s.empty()) return line;
  if (StartsWith(s, "```") || StartsWith(s, "~~~")) { line.kind = LineKind::kFence; return line; }
  if (int n = HeadingMarkerAt(s, 0)) {
    size_t tb = b + n + 1, te = e;
    while (te > tb && (text[te - 1] == '#' || IsSpaceByte(text[te - 1]))) --te;
    Trim(text, tb, te);
    if (te > tb) {
      line.kind = LineKind::kHeading;
      line.level = n;
      line.title_begin = tb;
      line.title_end = te;
      return line;
    }
  }
  if (s[0] == '|') { line.kind = LineKind::kTableRow; return line; }
  if (s[0] == '>') { line.kind = LineKind::kQuote; return line; }
  bool bullet = ((s[0] == '-' || s[0] == '*' || s[0] == '+') && s.size() > 1 && s[1] == ' ') ||
                StartsWith(s, "\xE2\x80\xA2") || StartsWith(s, "\xE2\x86\x92");  // • →
  if (!bullet && std::isdigit(static_cast<unsigned char>(s[0]))) {
    size_t q = 0;
    while (q < s.size() && std::isdigit(static_cast<unsigned char>(s[q]))) ++q;
    bullet = q <= 3 && q + 1 < s.size() && (s[q] == '.' || s[q] == ')') && s[q + 1] == ' ';
  }
  line.kind = bullet ? LineKind::kListItem : LineKind::kText;
  return line;
}

std::string_view StripClosers(std::string_view s) {
  while (!s.empty()) {
    char c = s.back();
    if (c == '*' || c == '_' || c == '"' || c == '\'' || c == ')' || c == ']' || c == ' ' || c == '`') {
      s.remove_suffix(1);
    } else if (s.size() >= 3 && (s.substr(s.size() - 3) == "\xE2\x80\x9D" || s.substr(s.size() - 3) == "\xE3\x80\x8D" ||
                                 s.substr(s.size() - 3) == "\xEF\xBC\x89")) {  // ” 」 ）
      s.remove_suffix(3);
    } else {
      break;
    }
  }
  return s;
}

}  // namespace

bool EndsSentence(std::string_view s) {
  s = StripClosers(s);
  if (s.empty()) return false;
  char c = s.back();
  if (c == '.' || c == '!' || c == '?') return true;
  if (s.size() < 3) return false;
  std::string_view tail = s.substr(s.size() - 3);
  return tail == "\xE3\x80\x82" || tail == "\xEF\xBC\x81" || tail == "\xEF\xBC\x9F";  // 。！？
}

bool EndsWithColon(std::string_view s) {
  s = StripClosers(s);
  if (s.empty()) return false;
  return s.back() == ':' || (s.size() >= 3 && s.substr(s.size() - 3) == "\xEF\xBC\x9A");
}

std::vector<Line> ScanLines(std::string_view text) {
  std::vector<Line> lines;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    size_t b = pos, e = nl;
    Trim(text, b, e);
    std::string_view s = text.substr(b, e - b);
    if (IsFlattened(s)) {
      std::vector<size_t> cuts = UnfoldCuts(s);
      size_t from = 0;
      cuts.push_back(s.size());
      for (size_t cut : cuts) {
        size_t lb = b + from, le = b + cut;
        Trim(text, lb, le);
        if (le > lb) lines.push_back(Classify(text, lb, le));
        from = cut;
      }
    } else {
      lines.push_back(Classify(text, b, e));
    }
    if (nl == text.size()) break;
    pos = nl + 1;
  }
  return lines;
}

}  // namespace vesper::chunking
