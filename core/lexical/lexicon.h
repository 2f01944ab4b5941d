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
#include <functional>
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
  static std::shared_ptr<Lexicon> FromTsv(std::string_view bytes);

  // Shards (lexicon_shards.cpp): the table cut by source language and the
  // first word of each key (a Chinese key's first character), so a page
  // fetches the few shards a query's words fall in, not the whole table.
  struct Shards {
    std::vector<std::string> languages;
    size_t max_words = 1, max_han = 1;
    std::vector<std::pair<std::string, std::string>> files;  // name ("en-17"), its TSV lines
  };
  static Shards Split(std::string_view tsv, size_t count);
  // A lexicon that holds nothing until its shards are added. A translation
  // that looks a word up in a shard not loaded finishes, then throws
  // MissingShards naming every shard it needed: the caller fetches them and
  // repeats the call.
  static std::shared_ptr<Lexicon> Sharded(size_t count, const std::vector<std::string>& languages, size_t max_words,
                                          size_t max_han);
  // Checks every line (its form, and that it belongs to the shard) before
  // keeping any; kCorruptData otherwise.
  void AddShard(std::string_view name, std::string_view tsv);
  // The whole table into a sharded lexicon (where most shards are wanted,
  // or one could not be fetched).
  void AddTable(std::string_view tsv);
  static std::string ShardName(std::string_view from, size_t index) { return std::string(from) + "-" + std::to_string(index); }

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
  // Each line that is not a comment or blank, with its number, '\r' dropped.
  static void ForEachLine(std::string_view table, const std::function<void(std::string_view, size_t)>& f);
  static std::vector<std::string_view> ValidLine(std::string_view line, size_t line_no);
  // The key a table word is looked up by; empty when no query could meet it.
  static std::string KeyOf(std::string_view word);
  static size_t ShardOf(std::string_view from, std::string_view key, size_t count);
  bool Loaded(const std::string& from, const std::string& key) const;
  void AskForShards(std::string_view query, const std::string& from) const;
  void LoadDirection(const std::string& direction) const;
  void AddLine(std::string_view line) const;
  // A key's translations, joined by '|' as the table writes them (none is
  // empty); null when the direction does not know the key.
  const std::string* Find(const std::string& from, const std::string& to, const std::string& key) const;
  bool IsStop(const std::string& from, const std::string& key) const;
  bool Take(const std::string& from, const std::string& to, const std::string& key, std::vector<TermGroup>& out,
            size_t& translated) const;
  // names: every unknown word is a name that crosses as it is, and counts as
  // translated (a Latin word in a Chinese query).
  void TranslateWords(std::string_view query, const std::string& from, const std::string& to,
                      std::vector<TermGroup>& out, size_t& translated, bool names = false) const;
  void TranslateHan(std::string_view run, const std::string& from, const std::string& to,
                    std::vector<TermGroup>& out, size_t& translated) const;

  mutable std::string table_;  // the TSV, for the directions not loaded yet (let go once none is left)
  // "from\tto" -> the lines (offset, length in table_) of a direction not loaded yet.
  mutable std::unordered_map<std::string, std::vector<std::pair<size_t, size_t>>> pending_;
  // "from\tto" -> key -> its translations joined by '|' (at most
  // kMaxTranslations). Keyed per direction and joined, an entry is one node
  // whose strings mostly fit in place: the six directions of the default
  // model's lexicon hold ~8 MB rather than 14 with a "from\tto\tkey" string
  // and a vector of strings each (bench/limits: a build loads all six).
  // "from\tkey" in stop_ for function words.
  mutable std::unordered_map<std::string, std::unordered_map<std::string, std::string>> map_;
  mutable std::unordered_set<std::string> stop_;
  mutable std::string probe_;      // StopKey()'s buffer
  mutable std::string direction_;  // Find()'s "from\tto"
  const std::string& StopKey(const std::string& from, const std::string& key) const;
  std::unordered_set<std::string> languages_;
  size_t max_words_ = 1;  // longest key, in words (en, pt): an upper bound
  size_t max_han_ = 1;    // longest key, in Han characters (zh)
  mutable size_t entries_ = 0;
  size_t shard_count_ = 0;                      // 0: the whole table was loaded
  std::unordered_set<std::string> loaded_;      // shards held
  mutable std::unordered_set<std::string> wanted_;  // shards a translation looked in, not held
};

// Most shards a lexicon may be cut into per language.
inline constexpr size_t kMaxLexiconShards = 4096;

// Largest table accepted (the shipped one is a few MB).
inline constexpr size_t kMaxLexiconBytes = 64u << 20;
inline constexpr size_t kMaxTranslations = 8;
inline constexpr size_t kMaxKeyWords = 4;
inline constexpr size_t kMaxKeyHan = 8;

}  // namespace vesper
