#include "core/text/words.h"

#include "core/text/lang.h"
#include "core/util/utf8.h"

namespace vesper {
namespace {

// Latin, digits, and the alphabetic scripts between IPA and General
// Punctuation (Greek, Cyrillic, Hebrew, Arabic, Indic...). Punctuation,
// symbols, arrows and emoji separate words.
bool IsWordChar(char32_t cp) {
  return utf8::IsLatinLetter(cp) || utf8::IsDigit(cp) || (cp >= 0x250 && cp < 0x2000 && !utf8::IsSpace(cp));
}

bool EndsWith(const std::string& w, std::string_view end) {
  return w.size() >= end.size() && std::string_view(w).substr(w.size() - end.size()) == end;
}

void ReplaceEnd(std::string& w, size_t drop, std::string_view add) {
  w.resize(w.size() - drop);
  w += add;
}

}  // namespace

// Shorter words are left alone: their plurals are mostly function words
// ("does", "mais", "this") that lists name as they are.
constexpr size_t kMinFoldedLength = 5;

void FoldPlural(std::string& w) {
  if (w.size() < kMinFoldedLength || w.back() != 's') return;
  for (char c : w) {
    if (c >= '0' && c <= '9') return;  // versions, codes: as they are
  }
  if (EndsWith(w, "ies")) return ReplaceEnd(w, 3, "y");   // policies -> policy
  if (EndsWith(w, "oes")) return ReplaceEnd(w, 3, "ao");  // decisões -> decisao (as decisão folds)
  if (EndsWith(w, "ais")) return ReplaceEnd(w, 3, "al");  // neurais -> neural
  if (EndsWith(w, "eis")) return ReplaceEnd(w, 3, "el");  // níveis -> nivel
  for (std::string_view end : {"sses", "xes", "ches", "shes"}) {
    if (EndsWith(w, end)) return ReplaceEnd(w, 2, "");    // classes -> class, batches -> batch
  }
  for (std::string_view end : {"ss", "us", "is"}) {
    if (EndsWith(w, end)) return;                         // class, status, analysis
  }
  ReplaceEnd(w, 1, "");                                   // cameras -> camera, redes -> rede
}

void SplitWords(std::string_view text, const std::function<void(WordSpan&&)>& emit) {
  std::string latin;
  size_t latin_begin = 0, latin_end = 0;
  // The pending CJK run: code points with their byte offsets.
  struct Cjk { char32_t cp; size_t begin, end; };
  std::vector<Cjk> run;

  auto flush_latin = [&] {
    if (latin.empty()) return;
    FoldPlural(latin);
    emit({std::move(latin), latin_begin, latin_end});
    latin.clear();
  };
  auto flush_cjk = [&] {
    if (run.size() == 1) {
      std::string t;
      utf8::Append(t, run[0].cp);
      emit({std::move(t), run[0].begin, run[0].end});
    }
    for (size_t k = 0; k + 1 < run.size(); ++k) {
      std::string t;
      utf8::Append(t, run[k].cp);
      utf8::Append(t, run[k + 1].cp);
      emit({std::move(t), run[k].begin, run[k + 1].end});
    }
    run.clear();
  };

  for (size_t i = 0; i < text.size();) {
    size_t at = i;
    char32_t cp = utf8::Next(text, i);
    if (IsWordChar(cp)) {
      flush_cjk();
      if (latin.empty()) latin_begin = at;
      utf8::Append(latin, utf8::FoldLatin(cp));
      latin_end = i;
    } else if (utf8::IsHan(cp) || utf8::IsKana(cp) || utf8::IsHangul(cp)) {
      flush_latin();
      run.push_back({cp, at, i});
    } else {
      flush_latin();
      flush_cjk();
    }
  }
  flush_latin();
  flush_cjk();
}

const std::unordered_set<std::string>& FunctionWords() {
  // As the word splitter spells them (plurals folded: "whats" -> "what").
  // The language files' function words and the words that frame a question
  // without saying what it is about ("in a nutshell", "explica", "简单来说").
  static const std::unordered_set<std::string> kFolded = [] {
    std::unordered_set<std::string> out;
    for (const char* list : {"function_words", "framing_words"}) {
      for (std::string w : AllLanguageWords(list)) {
        FoldPlural(w);
        out.insert(std::move(w));
      }
    }
    return out;
  }();
  return kFolded;
}

std::vector<WordSpan> SplitWords(std::string_view text) {
  std::vector<WordSpan> out;
  SplitWords(text, [&](WordSpan&& w) { out.push_back(std::move(w)); });
  return out;
}

}  // namespace vesper
