// The lexical index's notion of a word. Latin text: runs of letters and digits,
// lower-cased with diacritics stripped ("Câmera" and "camera" meet), plurals
// folded to a shared form (FoldPlural: "cameras" meets "camera", "decisões"
// meets "decisão", "neurais" meets "neural"). CJK text
// has no spaces, so Han/Kana runs become overlapping character bigrams (a lone
// character stays a unigram), the usual trick for dictionary-free CJK search.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace vesper {

struct WordSpan {
  std::string term;  // normalised form used as the index key
  size_t begin;      // byte range of the surface form in the input
  size_t end;
};

// The plural folding SplitWords applies to a lower-cased, accent-folded Latin
// word, for word lists that must meet its terms (stopwords). Language-free:
// both sides of every match go through it, so a rule only has to map a
// plural and its singular to one form, in English and Portuguese alike.
void FoldPlural(std::string& word);

// Calls `emit` for each term of `text` (which must be valid UTF-8).
void SplitWords(std::string_view text, const std::function<void(WordSpan&&)>& emit);

std::vector<WordSpan> SplitWords(std::string_view text);

// Function words of en and pt and the CJK bigrams of question words, as
// SplitWords spells them: they say how something is asked, not what about.
const std::unordered_set<std::string>& FunctionWords();

}  // namespace vesper
