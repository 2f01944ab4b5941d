// What the core knows of each language it reads and answers in, as data: one
// file per language under core/text/lang/ (compiled in, so adding a language
// is adding a file), each a set of named lists: word lists (function words,
// question words, cues, follow-up phrases, the persona's rewrite tables) and
// mappings ("from -> to | to": the language's name, lemma endings,
// first-person verbs). The rules that read them stay in the code that uses
// them; the files say which words each rule knows.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace vesper {

struct WordMapping {
  std::string from;
  std::vector<std::string> to;
};

// The languages the core has a file for, sorted ("en", "pt", "zh").
const std::vector<std::string>& KnownLanguages();

// One language's list, in the file's order; empty when the language or the
// list is unknown.
const std::vector<std::string>& LanguageWords(std::string_view language, std::string_view list);

// Every language's entries of a list, languages in KnownLanguages()'s order.
const std::vector<std::string>& AllLanguageWords(std::string_view list);

// One language's mapping list.
const std::vector<WordMapping>& LanguageMapping(std::string_view language, std::string_view list);

// What is wrong with the compiled-in files (an entry outside a list), one
// line each; empty when they are sound.
const std::vector<std::string>& LanguageFileProblems();

}  // namespace vesper
