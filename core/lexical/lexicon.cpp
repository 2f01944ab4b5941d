#include "core/lexical/lexicon.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "core/text/lang.h"
#include "core/text/words.h"
#include "core/util/error.h"
#include "core/util/utf8.h"

namespace vesper {
namespace {

constexpr size_t kMaxLanguageChars = 8;

std::vector<std::string_view> SplitOn(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool AllHan(std::string_view s, size_t& count) {
  count = 0;
  for (size_t i = 0; i < s.size();) {
    if (!utf8::IsHan(utf8::Next(s, i))) return false;
    ++count;
  }
  return count > 0;
}

// A key as the index spells it: the word splitter's terms, space-joined
// (lower-case, accents folded: "Câmera" and "camera" meet); Chinese as is.
std::string LatinKey(std::string_view s, size_t& words) {
  std::string key;
  words = 0;
  SplitWords(s, [&](WordSpan&& w) {
    if (!key.empty()) key += ' ';
    key += w.term;
    ++words;
  });
  return key;
}

bool ValidLanguage(std::string_view s) {
  if (s.empty() || s.size() > kMaxLanguageChars) return false;
  for (char c : s) {
    if (c < 'a' || c > 'z') return false;
  }
  return true;
}

// Shorter stems are left alone: "cria" is not "criar" plus something.
constexpr size_t kMinLemmaStem = 3;

// Dictionary forms an inflected word may come from, most likely first, for a
// word the table does not know as written (dictionaries list "longo",
// "preferir", "create"; questions say "longas", "prefere", "created"). Only
// candidates: a lookup keeps the first the table knows. The word is already
// lower-case, accent-free and plural-folded (core/text/words). The endings
// are the language file's "lemma_endings" (core/text/lang/), in its order (a
// longer ending before one it ends with): an ending, then the dictionary
// endings that may replace it, "-" for a doubled final consonant undone.
std::vector<std::string> LemmaCandidates(const std::string& word, const std::string& language) {
  std::vector<std::string> out;
  for (const WordMapping& e : LanguageMapping(language, "lemma_endings")) {
    if (word.size() < e.from.size() + kMinLemmaStem || word.compare(word.size() - e.from.size(), e.from.size(), e.from) != 0) continue;
    const std::string stem = word.substr(0, word.size() - e.from.size());
    for (const std::string& base : e.to) {
      if (base == "-") {  // a doubled final consonant undone: running -> run
        if (stem.size() > kMinLemmaStem && stem.back() == stem[stem.size() - 2]) out.push_back(stem.substr(0, stem.size() - 1));
      } else {
        out.push_back(stem + base);
      }
    }
    break;  // the longest ending that matches speaks for the word
  }
  return out;
}

}  // namespace

std::shared_ptr<Lexicon> Lexicon::FromTsv(std::string_view bytes) {
  if (bytes.size() > kMaxLexiconBytes) {
    throw Error(ErrorCode::kCorruptData, "lexicon is " + std::to_string(bytes.size()) + " bytes, more than the " +
                                             std::to_string(kMaxLexiconBytes) + " accepted");
  }
  utf8::Require(bytes, "lexicon");
  auto lexicon = std::make_shared<Lexicon>();
  lexicon->table_ = std::string(bytes);
  ForEachLine(lexicon->table_, [&](std::string_view line, size_t line_no) { lexicon->CheckLine(line, line_no); });
  return lexicon;
}

void Lexicon::ForEachLine(std::string_view table, const std::function<void(std::string_view, size_t)>& f) {
  size_t line_no = 0;
  for (size_t start = 0; start < table.size();) {
    size_t end = table.find('\n', start);
    if (end == std::string_view::npos) end = table.size();
    std::string_view line = table.substr(start, end - start);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && line[0] != '#') f(line, line_no);
    start = end + 1;
  }
}

// A line's fields, once its form is checked.
std::vector<std::string_view> Lexicon::ValidLine(std::string_view line, size_t line_no) {
  auto fail = [&](const std::string& why) {
    throw Error(ErrorCode::kCorruptData, "lexicon line " + std::to_string(line_no) + ": " + why);
  };
  // A control character (a second '\r' of "\r\r\n", a stray NUL) is no
  // word of any language, and a shard written from the line, its one '\r'
  // dropped, would read back as a different translation.
  if (std::any_of(line.begin(), line.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return (u < 0x20 && c != '\t') || u == 0x7f;
      })) {
    fail("a control character (only tabs part the fields)");
  }
  std::vector<std::string_view> f = SplitOn(line, '\t');
  const bool stop = f.size() == 3 && f[2] == "-";
  if (!stop && f.size() != 4) fail("expected FROM, WORD, TO, TRANSLATIONS (or FROM, WORD, -) separated by tabs");
  if (!ValidLanguage(f[0]) || (!stop && !ValidLanguage(f[2]))) fail("a language is a short lower-case code (en, pt, zh)");
  if (f[1].empty()) fail("empty word");
  for (std::string_view t : stop ? std::vector<std::string_view>() : SplitOn(f[3], '|')) {
    if (t.empty()) fail("empty translation");
  }
  return f;
}

// What loading a line could fail on, checked now; a function word is taken
// now, a translation kept for its direction (LoadDirection).
void Lexicon::CheckLine(std::string_view line, size_t line_no) {
  std::vector<std::string_view> f = ValidLine(line, line_no);
  const bool stop = f.size() == 3;
  languages_.insert(std::string(f[0]));
  if (stop) return AddLine(line);
  languages_.insert(std::string(f[2]));
  // Bounds of the phrase lookup, from the word as written (its key, built
  // later, has at most as many words; a longer one is never a key).
  size_t han = 0;
  if (AllHan(f[1], han)) {
    max_han_ = std::max(max_han_, std::min(han, kMaxKeyHan));
  } else {
    // Every byte that is not an ASCII letter or digit may part two words
    // (an upper bound: a dash or an accent counts though it may not part).
    const size_t words = 1 + static_cast<size_t>(std::count_if(f[1].begin(), f[1].end(), [](char c) {
                           return !std::isalnum(static_cast<unsigned char>(c));
                         }));
    max_words_ = std::max(max_words_, std::min(words, kMaxKeyWords));
  }
  const size_t offset = static_cast<size_t>(line.data() - table_.data());
  pending_[std::string(f[0]) + '\t' + std::string(f[2])].emplace_back(offset, line.size());
}

void Lexicon::LoadDirection(const std::string& direction) const {
  auto it = pending_.find(direction);
  if (it == pending_.end()) return;
  const std::vector<std::pair<size_t, size_t>> lines = std::move(it->second);
  pending_.erase(it);
  for (auto [offset, size] : lines) AddLine(std::string_view(table_).substr(offset, size));
  // Every direction in the maps (a build's translation mix asks for all):
  // the text they came from is not read again.
  if (pending_.empty()) std::string().swap(table_);
}

size_t Lexicon::entries() const {
  std::vector<std::string> directions;
  for (const auto& [direction, lines] : pending_) directions.push_back(direction);
  for (const std::string& d : directions) LoadDirection(d);
  return entries_;
}

// Keys the search could never meet (punctuation only, too long) are empty.
std::string Lexicon::KeyOf(std::string_view word) {
  size_t han = 0, words = 0;
  std::string key = AllHan(word, han) ? std::string(word) : LatinKey(word, words);
  return han > kMaxKeyHan || words > kMaxKeyWords ? std::string() : key;
}

// A line CheckLine accepted, into the maps.
void Lexicon::AddLine(std::string_view line) const {
  std::vector<std::string_view> f = SplitOn(line, '\t');
  const bool stop = f.size() == 3;
  std::string from(f[0]);
  const std::string key = KeyOf(f[1]);
  if (key.empty()) return;
  ++entries_;
  if (stop) {
    stop_.insert(from + '\t' + key);
    return;
  }
  std::string& list = map_[from + '\t' + std::string(f[2])][key];
  size_t count = list.empty() ? 0 : 1 + static_cast<size_t>(std::count(list.begin(), list.end(), '|'));
  for (std::string_view t : SplitOn(f[3], '|')) {
    if (count == kMaxTranslations) break;
    if (count++) list += '|';
    list += t;
  }
}

// "from\tkey" in a buffer kept between calls: a translation looks up
// several keys a word, and building each as a new string was most of its
// time (a passage's translation for the translation mix:
// web/engine/translation-mix.mjs). Find's direction_ likewise.
const std::string& Lexicon::StopKey(const std::string& from, const std::string& key) const {
  probe_.assign(from);
  probe_ += '\t';
  probe_ += key;
  return probe_;
}

const std::string* Lexicon::Find(const std::string& from, const std::string& to, const std::string& key) const {
  if (!Loaded(from, key)) return nullptr;
  direction_.assign(from);
  direction_ += '\t';
  direction_ += to;
  if (!pending_.empty()) LoadDirection(direction_);
  auto d = map_.find(direction_);
  if (d == map_.end()) return nullptr;
  auto it = d->second.find(key);
  return it == d->second.end() ? nullptr : &it->second;
}

bool Lexicon::IsStop(const std::string& from, const std::string& key) const {
  return Loaded(from, key) && stop_.count(StopKey(from, key)) > 0;
}

std::vector<TermGroup> Lexicon::Translate(std::string_view query, const std::string& from, const std::string& to) const {
  std::vector<TermGroup> out;
  if (from == to || !Knows(from) || !Knows(to) || utf8::FindInvalid(query) != std::string_view::npos) return out;
  size_t translated = 0;
  wanted_.clear();
  AskForShards(query, from);
  // In a query written in Chinese, a Latin word is a name or a term
  // ("什么是 makemore？"): it crosses as it is, like a capitalised one.
  const bool chinese = utf8::ContainsHan(query);
  // Han runs and the text between them are translated each their own way.
  for (size_t i = 0; i < query.size();) {
    size_t end = i;
    const bool han = utf8::IsHan(utf8::Next(query, end));
    while (end < query.size()) {
      size_t next = end;
      if (utf8::IsHan(utf8::Next(query, next)) != han) break;
      end = next;
    }
    std::string_view part = query.substr(i, end - i);
    if (han) TranslateHan(part, from, to, out, translated);
    else TranslateWords(part, from, to, out, translated, chinese);
    i = end;
  }
  if (!wanted_.empty()) {
    std::vector<std::string> names(wanted_.begin(), wanted_.end());
    std::sort(names.begin(), names.end());
    wanted_.clear();
    throw MissingShards(std::move(names));
  }
  if (!translated) out.clear();
  return out;
}

// Every shard a lookup in this query could touch, asked for before the
// first: a key starts with one of the query's words or one of its
// dictionary forms (a Chinese key with one of its characters), so a page
// fetches them in one round, not one round per phrase the last revealed.
void Lexicon::AskForShards(std::string_view query, const std::string& from) const {
  if (!shard_count_) return;
  for (size_t i = 0; i < query.size();) {
    const size_t at = i;
    if (utf8::IsHan(utf8::Next(query, i))) {
      Loaded(from, std::string(query.substr(at, i - at)));
      continue;
    }
    while (i < query.size()) {
      size_t next = i;
      if (utf8::IsHan(utf8::Next(query, next))) break;
      i = next;
    }
    for (const WordSpan& w : SplitWords(query.substr(at, i - at))) {
      Loaded(from, w.term);
      for (const std::string& lemma : LemmaCandidates(w.term, from)) Loaded(from, lemma);
    }
  }
}

// A key the table knows: a function word (dropped) or a word with
// translations (a group); false when it knows neither.
bool Lexicon::Take(const std::string& from, const std::string& to, const std::string& key, std::vector<TermGroup>& out,
                   size_t& translated) const {
  if (IsStop(from, key)) return true;
  const std::string* t = Find(from, to, key);
  if (!t) return false;
  TermGroup& group = out.emplace_back();
  for (size_t at = 0;;) {
    const size_t bar = t->find('|', at);
    group.emplace_back(*t, at, bar == std::string::npos ? std::string::npos : bar - at);
    if (bar == std::string::npos) break;
    at = bar + 1;
  }
  ++translated;
  return true;
}

// Longest known phrase first; a function word is dropped; a word the table
// does not know is kept when it reads as a name, acronym or number (it
// crosses languages as it is), else dropped (an inflected form, a typo).
void Lexicon::TranslateWords(std::string_view text, const std::string& from, const std::string& to,
                             std::vector<TermGroup>& out, size_t& translated, bool names) const {
  std::vector<WordSpan> words = SplitWords(text);
  for (size_t i = 0; i < words.size();) {
    size_t taken = 0;
    for (size_t len = std::min(max_words_, words.size() - i); len >= 1 && !taken; --len) {
      std::string key = words[i].term;
      for (size_t k = 1; k < len; ++k) key += ' ' + words[i + k].term;
      if (Take(from, to, key, out, translated)) taken = len;
    }
    for (const std::string& lemma : taken ? std::vector<std::string>() : LemmaCandidates(words[i].term, from)) {
      if (Take(from, to, lemma, out, translated)) {
        taken = 1;
        break;
      }
    }
    if (!taken) {
      std::string_view surface = text.substr(words[i].begin, words[i].end - words[i].begin);
      bool name = names;
      for (char c : surface) name = name || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      if (name) out.push_back({words[i].term});
      if (names) ++translated;
      taken = 1;
    }
    i += taken;
  }
}

// Chinese has no spaces: the longest word the table knows at each position.
void Lexicon::TranslateHan(std::string_view run, const std::string& from, const std::string& to,
                           std::vector<TermGroup>& out, size_t& translated) const {
  std::vector<size_t> at;  // byte offset of each character, and the end
  for (size_t i = 0; i < run.size();) {
    at.push_back(i);
    utf8::Next(run, i);
  }
  const size_t n = at.size();
  at.push_back(run.size());
  for (size_t i = 0; i < n;) {
    size_t taken = 0;
    for (size_t len = std::min(max_han_, n - i); len >= 1 && !taken; --len) {
      if (Take(from, to, std::string(run.substr(at[i], at[i + len] - at[i])), out, translated)) taken = len;
    }
    i += taken ? taken : 1;  // an unknown character alone says little: dropped
  }
}

}  // namespace vesper
