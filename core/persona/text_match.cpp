#include "core/persona/text_match.h"

#include "core/util/utf8.h"

namespace vesper {

namespace {

bool IsWordChar(char32_t cp) { return utf8::IsLatinLetter(cp) || utf8::IsDigit(cp); }

// The code point that ends at byte `end` (exclusive) of valid UTF-8 `s`.
char32_t Before(std::string_view s, size_t end) {
  size_t i = end;
  while (i > 0 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80) --i;
  if (i == 0) return 0;
  --i;
  size_t j = i;
  return utf8::Next(s, j);
}

}  // namespace

std::string FoldText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  if (utf8::FindInvalid(text) != std::string_view::npos) {
    for (char c : text) out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    return out;
  }
  for (size_t i = 0; i < text.size();) utf8::Append(out, utf8::FoldLatin(utf8::Next(text, i)));
  return out;
}

bool ContainsWord(std::string_view hay, std::string_view needle) { return FindWord(hay, needle) != std::string_view::npos; }

size_t FindWord(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return std::string_view::npos;
  for (size_t at = hay.find(needle); at != std::string_view::npos; at = hay.find(needle, at + 1)) {
    size_t end = at + needle.size();
    size_t j = 0;
    char32_t first = utf8::Next(needle, j);
    char32_t last = Before(needle, needle.size());
    bool left_ok = !IsWordChar(first) || at == 0 || !IsWordChar(Before(hay, at));
    size_t k = end;
    bool right_ok = !IsWordChar(last) || end >= hay.size() || !IsWordChar(utf8::Next(hay, k));
    if (left_ok && right_ok) return at;
  }
  return std::string_view::npos;
}

std::string CommandKey(std::string_view text) {
  std::string folded = FoldText(text);
  std::string out;
  for (size_t i = 0; i < folded.size();) {
    size_t start = i;
    char32_t cp = utf8::Next(folded, i);
    bool keep = IsWordChar(cp) || utf8::IsCjk(cp) || (cp >= 0x80 && !utf8::IsSpace(cp) && cp < 0x2000);
    if (keep) out.append(folded, start, i - start);
  }
  return out;
}

}  // namespace vesper
