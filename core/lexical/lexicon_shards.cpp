// A lexicon cut into shards (Lexicon::Split, Sharded, AddShard): by source
// language and the first word of each key (a Chinese key's first
// character), so every phrase a lookup tries at one position of the query
// ("machine learning model", "machine learning", "machine") is in one shard.
#include <algorithm>

#include "core/lexical/lexicon.h"
#include "core/util/error.h"
#include "core/util/utf8.h"

namespace vesper {
namespace {

[[noreturn]] void Corrupt(const std::string& why) { throw Error(ErrorCode::kCorruptData, "lexicon shard rejected: " + why); }

// The key's first word, or its first character when it is Chinese.
std::string_view FirstUnit(std::string_view key) {
  size_t end = 0;
  if (utf8::IsHan(utf8::Next(key, end))) return key.substr(0, end);
  const size_t space = key.find(' ');
  return space == std::string_view::npos ? key : key.substr(0, space);
}

}  // namespace

size_t Lexicon::ShardOf(std::string_view from, std::string_view key, size_t count) {
  uint32_t h = 2166136261u;  // FNV-1a: stable across builds and platforms, which the shard files rely on
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 16777619u;
  };
  mix(from);
  mix("\t");
  mix(FirstUnit(key));
  return h % count;
}

bool Lexicon::Loaded(const std::string& from, const std::string& key) const {
  if (!shard_count_) return true;
  std::string name = ShardName(from, ShardOf(from, key, shard_count_));
  if (loaded_.count(name)) return true;
  wanted_.insert(std::move(name));
  return false;
}

Lexicon::Shards Lexicon::Split(std::string_view tsv, size_t count) {
  if (count == 0 || count > kMaxLexiconShards) throw Error(ErrorCode::kInvalidArgument, "a lexicon is cut into 1 to " + std::to_string(kMaxLexiconShards) + " shards per language");
  std::shared_ptr<const Lexicon> whole = FromTsv(tsv);  // every line checked
  Shards out;
  out.languages.assign(whole->languages_.begin(), whole->languages_.end());
  std::sort(out.languages.begin(), out.languages.end());
  out.max_words = whole->max_words_;
  out.max_han = whole->max_han_;
  std::vector<std::string> texts(out.languages.size() * count);
  ForEachLine(tsv, [&](std::string_view line, size_t) {
    const std::string_view from = line.substr(0, line.find('\t'));
    const size_t tab = from.size() + 1;
    const std::string key = KeyOf(line.substr(tab, line.find('\t', tab) - tab));
    if (key.empty()) return;  // never looked up
    const size_t language = static_cast<size_t>(std::lower_bound(out.languages.begin(), out.languages.end(), from) - out.languages.begin());
    texts[language * count + ShardOf(from, key, count)].append(line).append("\n");
  });
  for (size_t l = 0; l < out.languages.size(); ++l) {
    for (size_t i = 0; i < count; ++i) out.files.emplace_back(ShardName(out.languages[l], i), std::move(texts[l * count + i]));
  }
  return out;
}

std::shared_ptr<Lexicon> Lexicon::Sharded(size_t count, const std::vector<std::string>& languages, size_t max_words, size_t max_han) {
  if (count == 0 || count > kMaxLexiconShards) throw Error(ErrorCode::kInvalidArgument, "a lexicon is cut into 1 to " + std::to_string(kMaxLexiconShards) + " shards per language");
  if (languages.empty() || max_words == 0 || max_words > kMaxKeyWords || max_han == 0 || max_han > kMaxKeyHan) {
    throw Error(ErrorCode::kInvalidArgument, "a sharded lexicon needs its languages and key bounds (words 1-" + std::to_string(kMaxKeyWords) +
                                                 ", Chinese characters 1-" + std::to_string(kMaxKeyHan) + ")");
  }
  auto lexicon = std::make_shared<Lexicon>();
  lexicon->shard_count_ = count;
  lexicon->languages_.insert(languages.begin(), languages.end());
  lexicon->max_words_ = max_words;
  lexicon->max_han_ = max_han;
  return lexicon;
}

void Lexicon::AddShard(std::string_view name, std::string_view tsv) {
  if (!shard_count_) throw Error(ErrorCode::kInvalidArgument, "this lexicon was loaded whole, not in shards");
  const size_t dash = name.rfind('-');
  const std::string from(name.substr(0, dash == std::string_view::npos ? 0 : dash));
  size_t index = 0;
  const std::string_view digits = dash == std::string_view::npos ? std::string_view() : name.substr(dash + 1);
  if (!Knows(from) || digits.empty() || digits.size() > 4 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    Corrupt("'" + std::string(name) + "' is not a shard of this lexicon");
  }
  for (char c : digits) index = index * 10 + static_cast<size_t>(c - '0');
  if (index >= shard_count_) Corrupt("'" + std::string(name) + "' is not a shard of this lexicon");
  if (loaded_.count(std::string(name))) return;
  utf8::Require(tsv, "lexicon shard");
  // Every line checked before any is kept, so a bad shard adds nothing.
  std::vector<std::string_view> lines;
  ForEachLine(tsv, [&](std::string_view line, size_t line_no) {
    std::vector<std::string_view> f = ValidLine(line, line_no);
    const std::string key = KeyOf(f[1]);
    if (f[0] != from || key.empty() || ShardOf(from, key, shard_count_) != index) {
      Corrupt("line " + std::to_string(line_no) + " of '" + std::string(name) + "' belongs to another shard");
    }
    if (f.size() == 4 && !Knows(std::string(f[2]))) Corrupt("line " + std::to_string(line_no) + " translates into a language the lexicon does not declare");
    lines.push_back(line);
  });
  for (std::string_view line : lines) AddLine(line);
  loaded_.insert(std::string(name));
}

void Lexicon::AddTable(std::string_view tsv) {
  if (!shard_count_) throw Error(ErrorCode::kInvalidArgument, "this lexicon was loaded whole, not in shards");
  Shards shards = Split(tsv, shard_count_);
  if (shards.languages.size() != languages_.size() ||
      !std::all_of(shards.languages.begin(), shards.languages.end(), [this](const std::string& l) { return Knows(l); })) {
    throw Error(ErrorCode::kModelMismatch, "this lexicon is not the one its shards came from: reload the model");
  }
  for (const auto& [name, text] : shards.files) AddShard(name, text);
}

}  // namespace vesper
