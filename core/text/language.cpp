#include "core/text/language.h"

#include "core/text/lang.h"
#include "core/util/utf8.h"

namespace vesper {
namespace {

// Frequent function words (each language file's "detect" list); a word
// list beats n-gram models at passage and query length, and the English and
// Portuguese ones barely overlap. Short questions carry few of them: the
// article "o", question words and possessives ("mudar o idioma do sistema",
// "qual pacote contém este arquivo") were read as English when "do" tied.
bool Contains(const std::vector<std::string>& words, std::string_view w) {
  for (const std::string& x : words) if (x == w) return true;
  return false;
}

}  // namespace

std::string DetectLanguage(std::string_view text) {
  if (utf8::FindInvalid(text) != std::string_view::npos) return kUndeterminedLanguage;
  size_t han = 0, kana = 0, hangul = 0, latin_words = 0, accents = 0;
  static const std::vector<std::string>& kPortuguese = LanguageWords("pt", "detect");
  static const std::vector<std::string>& kEnglish = LanguageWords("en", "detect");
  int pt = 0, en = 0;
  std::string word;
  auto end_word = [&] {
    if (word.empty()) return;
    ++latin_words;
    if (Contains(kPortuguese, word)) ++pt;
    if (Contains(kEnglish, word)) ++en;
    word.clear();
  };
  for (size_t i = 0; i < text.size();) {
    char32_t cp = utf8::Next(text, i);
    if (utf8::IsLatinLetter(cp)) {
      // Keep accents in the word (stopwords list both spellings) but count the
      // Portuguese-typical ones as evidence on their own.
      if (cp == 0xE3 || cp == 0xF5 || cp == 0xE7 || cp == 0xC3 || cp == 0xD5 || cp == 0xC7) ++accents;
      utf8::Append(word, (cp < 0x80 && cp >= 'A' && cp <= 'Z') ? cp + 32 : (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) ? cp + 32 : cp);
      continue;
    }
    end_word();
    if (utf8::IsHan(cp)) ++han;
    else if (utf8::IsKana(cp)) ++kana;
    else if (utf8::IsHangul(cp)) ++hangul;
  }
  end_word();
  // A Han character carries about as much as a short Latin word; English terms
  // inside Chinese prose (common in the seeds) must not flip the verdict.
  size_t cjk = han + kana + hangul;
  if (cjk > 0 && cjk * 2 >= latin_words) {
    if (kana * 5 >= cjk) return "ja";
    if (hangul * 2 >= cjk) return "ko";
    return "zh";
  }
  if (latin_words < 1) return kUndeterminedLanguage;
  int pt_score = 2 * pt + static_cast<int>(accents);
  int en_score = 2 * en;
  if (pt_score == 0 && en_score == 0) return latin_words >= 3 ? "en" : kUndeterminedLanguage;
  return pt_score > en_score ? "pt" : "en";
}

std::string DetectProseLanguage(std::string_view text) {
  if (utf8::FindInvalid(text) != std::string_view::npos) return kUndeterminedLanguage;
  constexpr std::string_view kOpen = "\xE2\x80\x9C", kClose = "\xE2\x80\x9D";  // “ ”
  std::string prose;
  prose.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const bool ascii = text[i] == '"';
    const bool curly = text.compare(i, kOpen.size(), kOpen) == 0;
    if (ascii || curly) {
      const size_t end = ascii ? text.find('"', i + 1) : text.find(kClose, i + kOpen.size());
      if (end != std::string_view::npos) {  // a closed quote: skipped whole
        prose += ' ';
        i = end + (ascii ? 1 : kClose.size());
        continue;
      }
    }
    prose += text[i++];
  }
  const std::string own = DetectLanguage(prose);
  return own == kUndeterminedLanguage ? DetectLanguage(text) : own;
}

}  // namespace vesper
