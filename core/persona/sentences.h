// Passages as sentences an answer can quote: split on sentence ends (Latin
// and CJK punctuation, line breaks), with what cannot be read aloud dropped
// (code, tables, box drawings, stray fragments).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace vesper {

struct Sentence {
  std::string text;  // trimmed, inner white space collapsed
  size_t index;      // position within its passage
};

std::vector<Sentence> SplitSentences(std::string_view passage);

// True for lines that are code, diagrams or tables rather than prose.
bool LooksLikeCode(std::string_view line);

}  // namespace vesper
