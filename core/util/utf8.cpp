#include "core/util/utf8.h"

#include "core/util/error.h"

namespace vesper::utf8 {

size_t FindInvalid(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) { ++i; continue; }
    size_t len;
    char32_t cp, min;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
    else return i;
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

void Require(std::string_view s, const char* what) {
  size_t bad = FindInvalid(s);
  if (bad != std::string_view::npos) {
    throw Error(ErrorCode::kInvalidUtf8, std::string(what) + " is not valid UTF-8 (bad byte at offset " +
                                             std::to_string(bad) + ")");
  }
}

char32_t Next(std::string_view s, size_t& i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) { ++i; return c; }
  // A stray continuation byte, a bad lead byte, a sequence cut short or a
  // missing continuation: one byte is consumed and U+FFFD returned, so i
  // never passes the end whatever the bytes are.
  const size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (len == 0 || len > s.size() - i) { ++i; return kReplacementChar; }
  char32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) { ++i; return kReplacementChar; }
    cp = (cp << 6) | (cc & 0x3F);
  }
  i += len;
  return cp;
}

void Append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool IsHan(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x2FA1F);
}
bool IsKana(char32_t cp) { return cp >= 0x3040 && cp <= 0x30FF; }
bool IsHangul(char32_t cp) { return cp >= 0xAC00 && cp <= 0xD7AF; }

bool IsLatinLetter(char32_t cp) {
  if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) return true;
  if (cp >= 0xC0 && cp <= 0x24F) return cp != 0xD7 && cp != 0xF7;
  return false;
}

bool IsSpace(char32_t cp) {
  return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == '\v' ||
         cp == 0xA0 || cp == 0x3000 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x1680 || cp == 0x85;
}

char32_t FoldLatin(char32_t cp) {
  if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
  // Latin-1 Supplement letters, indexed from U+00C0, folded to their base letter.
  static const char kLatin1[] =
      "aaaaaaaceeeeiiii"   // C0-CF
      "dnooooo*ouuuuyts"   // D0-DF (D7 is x, DE thorn, DF sharp s)
      "aaaaaaaceeeeiiii"   // E0-EF
      "dnooooo/ouuuuyty";  // F0-FF
  if (cp >= 0xC0 && cp <= 0xFF) {
    char c = kLatin1[cp - 0xC0];
    return (c == '*' || c == '/') ? cp : static_cast<char32_t>(c);
  }
  // Latin Extended-A pairs upper/lower; the base letters follow the block order.
  static const char kExtA[] =
      "aaaaaaccccccccdd"   // 100-10F
      "ddeeeeeeeeeegggg"   // 110-11F
      "gggghhhhiiiiiiii"   // 120-12F
      "iiiijjkkklllllll"   // 130-13F
      "lllnnnnnnnnnoooo"   // 140-14F
      "oooorrrrrrssssss"   // 150-15F
      "ssttttttuuuuuuuu"   // 160-16F
      "uuuuwwyyyzzzzzzs";  // 170-17F
  if (cp >= 0x100 && cp <= 0x17F) return static_cast<char32_t>(kExtA[cp - 0x100]);
  return cp;
}

void AppendJsonEscaped(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
}

}  // namespace vesper::utf8
