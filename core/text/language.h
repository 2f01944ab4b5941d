// Script- and stopword-based language guess for the languages the persona
// knowledge base uses. Cheap enough to run on every chunk and every query.
#pragma once
#include <string>
#include <string_view>

namespace vesper {

// What DetectLanguage says when there is too little text to tell.
inline constexpr const char* kUndeterminedLanguage = "und";

// Returns "zh", "ja", "ko", "pt", "en", or kUndeterminedLanguage when there is too little text.
std::string DetectLanguage(std::string_view text);

// The language of a passage's own prose: what it quotes ("..." and “...”, often
// in another language: an English quote in a Portuguese paragraph) is left out
// when enough remains to tell; otherwise DetectLanguage of the whole.
std::string DetectProseLanguage(std::string_view text);

}  // namespace vesper
