// Matching phrases in text the way people write them: case- and
// accent-insensitive for Latin scripts ("Mágica" finds "magica"), whole words
// for Latin, plain substrings for Han (which has no word boundaries).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace vesper {

// Lower-cases and strips Latin diacritics; other scripts pass through.
std::string FoldText(std::string_view text);
// `needle` (already folded) occurs in `folded_haystack` with no Latin letter
// or digit touching either end.
bool ContainsWord(std::string_view folded_haystack, std::string_view needle);
// Where ContainsWord finds `needle` first; npos if nowhere.
size_t FindWord(std::string_view folded_haystack, std::string_view needle);
// The text with punctuation and white space removed, folded: what a short
// command ("退出。", "Exit!") is compared by.
std::string CommandKey(std::string_view text);

}  // namespace vesper
