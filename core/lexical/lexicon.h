// A bilingual lexicon between the languages the default model knows (en, pt,
// zh): what lets BM25 match a question asked in one language against
// passages written in another. Each content word of the query (or a phrase
// of up to a few words; a Chinese word found by longest match, since Chinese
// has no spaces) becomes a group of its translations; function words are
// dropped; words the lexicon does not know (names, numbers, code) stay as
// they are, since those cross languages unchanged.
//
// The table is the model's (tools/models/default/lexicon.py writes it):
//   FROM<TAB>WORD<TAB>TO<TAB>T1|T2|T3   translations of WORD, best first
//   FROM<TAB>WORD<TAB>-                  WORD is a function word of FROM
// Lines starting with '#' are comments.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace vesper {

// One source word's translations, each a phrase (BM25 splits it into terms).
using TermGroup = std::vector<std::string>;

class Lexicon {
 public:
  // Throws kCorruptData naming the line for a malformed table, kInvalidUtf8
  // for bytes that are not UTF-8; limits: kMaxLexiconBytes, kMaxTranslations.
  static std::shared_ptr<const Lexicon> FromTsv(std::string_view bytes);

  // The query (in language `from`) as groups of translations into `to`;
  // empty when nothing translates (then the query says nothing across
  // languages that plain BM25 did not already say).
  std::vector<TermGroup> Translate(std::string_view query, const std::string& from, const std::string& to) const;
  bool Knows(const std::string& language) const { return languages_.count(language) > 0; }
  // Entries the table holds (reads every direction: a diagnostic).
  size_t entries() const;

 private:
  // Loading checks every line's form but keeps a direction's translations
  // as text until a query first needs that direction: a page or a CLI
  // search loads the whole table and asks for two of its six directions, and
  // building every key up front was most of a cold load's lexicon time.
  // Not thread-safe: a query may finish loading a direction.
  void CheckLine(std::string_view line, size_t line_no);
  void LoadDirection(const std::string& direction) const;
  void AddLine(std::string_view line) const;
  const std::vector<std::string>* Find(const std::string& from, const std::string& to, const std::string& key) const;
  bool IsStop(const std::string& from, const std::string& key) const;
  bool Take(const std::string& from, const std::string& to, const std::string& key, std::vector<TermGroup>& out,
            size_t& translated) const;
  void TranslateWords(std::string_view query, const std::string& from, const std::string& to,
                      std::vector<TermGroup>& out, size_t& translated) const;
  void TranslateHan(std::string_view run, const std::string& from, const std::string& to,
                    std::vector<TermGroup>& out, size_t& translated) const;

  std::string table_;  // the TSV, for the directions not loaded yet
  // "from\tto" -> the lines (offset, length in table_) of a direction not loaded yet.
  mutable std::unordered_map<std::string, std::vector<std::pair<size_t, size_t>>> pending_;
  // "from\tto\tkey" -> translations; "from\tkey" for function words.
  mutable std::unordered_map<std::string, std::vector<std::string>> map_;
  mutable std::unordered_set<std::string> stop_;
  std::unordered_set<std::string> languages_;
  size_t max_words_ = 1;  // longest key, in words (en, pt): an upper bound
  size_t max_han_ = 1;    // longest key, in Han characters (zh)
  mutable size_t entries_ = 0;
};

// Largest table accepted (the shipped one is a few MB).
inline constexpr size_t kMaxLexiconBytes = 64u << 20;
inline constexpr size_t kMaxTranslations = 8;
inline constexpr size_t kMaxKeyWords = 4;
inline constexpr size_t kMaxKeyHan = 8;

}  // namespace vesper
