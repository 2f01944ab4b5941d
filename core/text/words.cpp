#include "core/text/words.h"

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

namespace {

const std::unordered_set<std::string>& RawFunctionWords() {
  static const std::unordered_set<std::string> kWords = {
      "the", "and", "for", "what", "why", "how", "does", "did", "his", "her", "him", "are", "was", "were", "with",
      "that", "this", "from", "about", "which", "who", "when", "where", "you", "your", "can", "should", "would",
      "into", "there", "their", "they", "them", "have", "has", "had", "not", "but", "its", "our", "out", "any",
      "tell", "think", "say", "said", "give", "more", "some", "yourself", "whats", "is", "do", "of", "to", "in",
      "on", "at", "a", "an", "be", "it", "me", "my", "i", "or", "as", "by", "so", "if", "we", "us", "he", "she",
      "que", "por", "para", "com", "uma", "um", "dos", "das", "ele", "ela", "como", "qual", "quais", "sobre",
      "isso", "esse", "essa", "este", "esta", "nao", "mais", "seu", "sua", "pelo", "pela", "nos", "nas", "ser",
      "voce", "voces", "foi", "era", "sao", "tem", "teve", "fez", "faz", "acha", "quando", "onde", "quem", "porque",
      "de", "do", "da", "o", "os", "as", "e", "em", "no", "na", "se", "ao", "te", "lhe", "seus", "suas", "pra",
      "\xE4\xBB\x80\xE4\xB9\x88", "\xE4\xB8\xBA\xE4\xBB\x80", "\xE6\x80\x8E\xE4\xB9\x88", "\xE5\xA6\x82\xE4\xBD\x95",  // 什么 为什 怎么 如何
      "\xE4\xBD\xA0\xE7\x9A\x84", "\xE4\xBD\xA0\xE5\x9C\xA8", "\xE4\xBB\x96\xE7\x9A\x84", "\xE4\xB8\x80\xE4\xB8\xAA",  // 你的 你在 他的 一个
      "\xE5\x93\xAA\xE4\xBA\x9B", "\xE5\x93\xAA\xE4\xB8\xAA", "\xE6\x98\xAF\xE4\xBB\x80", "\xE4\xB9\x88\xE6\x97\xB6",  // 哪些 哪个 是什 么时
      "\xE4\xBD\xA0\xE8\xA7\x89", "\xE8\xA7\x89\xE5\xBE\x97", "\xE4\xBD\xA0\xE6\x98\xAF", "\xE6\x80\x8E\xE6\xA0\xB7",  // 你觉 觉得 你是 怎样
      "\xE5\x93\xAA\xE9\x87\x8C", "\xE5\x93\xAA\xE5\x84\xBF", "\xE5\x9C\xA8\xE5\x93\xAA",  // 哪里 哪儿 在哪 ("where", as "onde")
      "\xE4\xBD\xA0", "\xE6\x88\x91", "\xE4\xBB\x96", "\xE5\x90\x97", "\xE5\x91\xA2", "\xE7\x9A\x84", "\xE6\x98\xAF",  // 你 我 他 吗 呢 的 是
      // How a question is framed, not what it is about ("What is Software 2.0
      // in a nutshell?", "explica basicamente...", "简单来说"): a word no passage
      // holds sank the question's BM25 and with it the answer.
      "nutshell", "briefly", "basically", "actually", "really", "exactly", "simply", "explain", "describe", "please",
      "could", "just", "resumindo", "basicamente", "exatamente", "realmente", "simplesmente", "explica", "explique",
      "explicar", "descreva", "poderia", "favor",
      "\xE8\xA7\xA3\xE9\x87\x8A", "\xE4\xBB\x8B\xE7\xBB\x8D", "\xE8\xAE\xB2\xE8\xAE\xB2", "\xE8\xAF\xB4\xE8\xAF\xB4",  // 解释 介绍 讲讲 说说
      "\xE5\x88\xB0\xE5\xBA\x95", "\xE7\xA9\xB6\xE7\xAB\x9F", "\xE6\x9D\xA5\xE8\xAF\xB4", "\xE8\xAF\xB7\xE9\x97\xAE"};  // 到底 究竟 来说 请问
  return kWords;
}

}  // namespace

const std::unordered_set<std::string>& FunctionWords() {
  // As the word splitter spells them (plurals folded: "whats" -> "what").
  static const std::unordered_set<std::string> kFolded = [] {
    std::unordered_set<std::string> out;
    for (std::string w : RawFunctionWords()) {
      FoldPlural(w);
      out.insert(std::move(w));
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
