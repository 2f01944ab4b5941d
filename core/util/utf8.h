// UTF-8 decoding and the handful of Unicode facts the core needs
// (script of a code point, Latin case and accent folding).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vesper::utf8 {

// Offset of the first byte that is not part of a well-formed UTF-8 sequence
// (overlongs, surrogates and > U+10FFFF included), or npos when valid.
size_t FindInvalid(std::string_view s);

// Throws kInvalidUtf8 naming the byte offset when `s` is not valid UTF-8.
void Require(std::string_view s, const char* what);

inline constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes the code point at s[i] (i < s.size()) and advances i. Invalid
// bytes decode one at a time as kReplacementChar: i stays within s.
char32_t Next(std::string_view s, size_t& i);

void Append(std::string& out, char32_t cp);

// The longest prefix of `s` of at most `max_bytes` that does not end inside
// a multi-byte character: a byte cap that never splits a character.
inline std::string_view Prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // s[n] continues a character
  return s.substr(0, n);
}

bool IsHan(char32_t cp);        // CJK ideographs (incl. extension A and compat)
bool IsKana(char32_t cp);       // Hiragana and Katakana
bool IsHangul(char32_t cp);
inline bool IsCjk(char32_t cp) { return IsHan(cp) || IsKana(cp) || IsHangul(cp); }
// Any Han character in valid UTF-8 text (a Chinese query or passage, or one mixing scripts).
inline bool ContainsHan(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (IsHan(Next(s, i))) return true;
  }
  return false;
}
bool IsLatinLetter(char32_t cp);  // ASCII letters and Latin-1/Extended-A letters
inline bool IsDigit(char32_t cp) { return cp >= '0' && cp <= '9'; }
bool IsSpace(char32_t cp);       // ASCII and Unicode white space, incl. U+3000
// Lower-cases a Latin letter and strips its diacritic: 'Ç' -> 'c', 'ã' -> 'a'.
// Letters it does not know are returned lower-cased when ASCII, else unchanged.
char32_t FoldLatin(char32_t cp);

// JSON string body escaping (quotes, backslash, control characters).
void AppendJsonEscaped(std::string& out, std::string_view s);

}  // namespace vesper::utf8
