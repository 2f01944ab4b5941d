// The reading side of a split index (core/collection/split.h).
#include <algorithm>
#include <cstring>

#include "core/collection/pack.h"
#include "core/collection/split.h"
#include "core/collection/split_format.h"
#include "core/text/language.h"
#include "core/text/words.h"
#include "core/util/error.h"
#include "core/util/utf8.h"

namespace vesper {
namespace {

using split_format::kCosineScale;
using split_format::kEntryMagic;
using split_format::kMatchMagic;
using split_format::kMaxNeighbors;
using split_format::kTermsMagic;
using split_format::kTranslatedShare;
constexpr size_t kMaxLanguages = 64;

void ReadStrings(ByteReader& r, size_t limit, std::vector<std::string>& out) {
  const uint64_t n = r.count(4);
  if (n > limit) r.fail("too many entries");
  for (uint64_t i = 0; i < n; ++i) {
    std::string s = r.str();
    if (utf8::FindInvalid(s) != std::string::npos) r.fail("text is not valid UTF-8");
    out.push_back(std::move(s));
  }
}

// The known-pieces bits (one per vocabulary id), as a flag per id and a list.
void ReadKnownPieces(ByteReader& r, CorpusView& corpus) {
  const uint32_t vocab = r.u32();
  if ((vocab + 7ull) / 8 > r.remaining()) r.fail("known pieces past the end");
  corpus.known_pieces.assign(vocab, 0);
  for (uint32_t i = 0; i < vocab; i += 8) {
    const uint8_t bits = r.u8();
    for (uint32_t b = 0; b < 8 && i + b < vocab; ++b) {
      if (bits >> b & 1) {
        corpus.known_pieces[i + b] = 1;
        corpus.vocabulary.push_back(static_cast<int32_t>(i + b));
      }
    }
  }
}

}  // namespace

SplitIndex SplitIndex::Load(const uint8_t* data, size_t size) {
  ByteReader r = split_format::Check(data, size, kEntryMagic, "split index entry");
  SplitIndex s;
  const std::string meta = r.str();
  s.meta_.assign(meta.begin(), meta.end());
  s.model_ = s.MakeCollection().model();  // validates the meta section as a pack's
  s.corpus_ = std::make_shared<CorpusView>();
  CorpusView& c = *s.corpus_;
  c.passages.docs = r.u64();
  c.passages.total_len = r.u64();
  c.pages.docs = r.u64();
  c.pages.total_len = c.passages.total_len;
  if (c.passages.docs == 0 || c.pages.docs == 0 || c.pages.docs > c.passages.docs) r.fail("bad passage or page count");
  ReadStrings(r, kMaxLanguages, c.languages);
  const uint64_t dims = r.count(4);
  if (dims != 0 && dims != s.model_.dims) r.fail("mean vector of other dimensions than the model's");
  for (uint64_t d = 0; d < dims; ++d) c.centroid.push_back(r.f32());
  ReadKnownPieces(r, c);
  s.match_pieces_ = r.u32();
  if (s.match_pieces_ != 0) {
    const size_t vocab = c.known_pieces.size();
    if (vocab == 0 || s.match_pieces_ > vocab) r.fail("match fragments without pieces");
    s.neighbors_ = std::make_shared<PieceNeighbors>(c.known_pieces);
    c.neighbors = s.neighbors_;
    s.matches_loaded_.assign((vocab + s.match_pieces_ - 1) / s.match_pieces_, 0);
  }
  ReadStrings(r, SIZE_MAX, s.first_terms_);
  if (s.first_terms_.empty() || !s.first_terms_[0].empty()) r.fail("term fragments must start at the first term");
  for (size_t i = 1; i < s.first_terms_.size(); ++i) {
    if (!(s.first_terms_[i - 1] < s.first_terms_[i])) r.fail("term fragments out of order");
  }
  const uint64_t bounds = r.count(1);
  for (uint64_t i = 0; i < bounds; ++i) {
    const uint32_t p = r.varint();
    if (i == 0 ? p != 0 : p <= s.first_pages_.back()) r.fail("page fragments out of order");
    s.first_pages_.push_back(p);
  }
  if (bounds < 2 || s.first_pages_.back() != c.pages.docs) r.fail("page fragments do not cover the pages");
  if (r.remaining() != 0) r.fail("trailing bytes");
  s.terms_loaded_.assign(s.first_terms_.size(), 0);
  s.pages_loaded_.assign(s.page_fragments(), 0);
  return s;
}

Collection SplitIndex::MakeCollection() const {
  ByteReader r(meta_.data(), meta_.size(), "split index entry's collection");
  Collection c = Collection::LoadMeta(r);
  if (r.remaining() != 0) r.fail("trailing bytes");
  c.FinishLoad();
  if (corpus_) c.SetCorpus(corpus_);
  return c;
}

void SplitIndex::AddTerms(uint32_t fragment, const uint8_t* data, size_t size) {
  const std::string what = "split index term fragment " + std::to_string(fragment);
  if (fragment >= first_terms_.size()) throw Error(ErrorCode::kNotFound, "no term fragment " + std::to_string(fragment));
  ByteReader r = split_format::Check(data, size, kTermsMagic, what);
  if (r.u32() != fragment) r.fail("it is another fragment");
  const uint64_t n = r.count(4);
  const std::string& low = first_terms_[fragment];
  const std::string* high = fragment + 1 < first_terms_.size() ? &first_terms_[fragment + 1] : nullptr;
  std::vector<std::pair<std::string, Term>> read;
  std::vector<std::pair<uint32_t, uint32_t>> counts;  // df, page df
  for (uint64_t i = 0; i < n; ++i) {
    std::string term = r.str();
    if (term.empty() || term < low || (high && !(term < *high)) || (!read.empty() && !(read.back().first < term)) ||
        utf8::FindInvalid(term) != std::string::npos) {
      r.fail("bad or misplaced term");
    }
    const uint32_t df = r.varint(), page_df = r.varint(), listed = r.varint();
    if (df == 0 || df > corpus_->passages.docs || page_df == 0 || page_df > df || page_df > corpus_->pages.docs || listed > page_df) {
      r.fail("bad counts for a term");
    }
    Term t;
    uint64_t next = 0;
    for (uint32_t j = 0; j < listed; ++j) {
      const uint64_t page = next + r.varint();
      if (page >= corpus_->pages.docs) r.fail("a term names a page past the last");
      t.pages.emplace_back(static_cast<uint32_t>(page), r.u8());
      next = page + 1;
    }
    read.emplace_back(std::move(term), std::move(t));
    counts.emplace_back(df, page_df);
  }
  if (r.remaining() != 0) r.fail("trailing bytes");
  for (size_t i = 0; i < read.size(); ++i) {
    corpus_->passages.df[read[i].first] = counts[i].first;
    corpus_->pages.df[read[i].first] = counts[i].second;
    terms_[read[i].first] = std::move(read[i].second);
  }
  terms_loaded_[fragment] = 1;
}

void SplitIndex::AddPages(uint32_t fragment, const uint8_t* data, size_t size, Collection& into) {
  if (fragment >= page_fragments()) throw Error(ErrorCode::kNotFound, "no page fragment " + std::to_string(fragment));
  if (into.corpus() != corpus_.get()) throw Error(ErrorCode::kInvalidArgument, "pages go into a collection this index made");
  std::vector<Collection> packs = LoadPack(data, size, &model_);
  if (packs.size() != 1) throw Error(ErrorCode::kCorruptData, "split index page fragment " + std::to_string(fragment) + " rejected: it holds more than one collection");
  const Collection& part = packs[0];
  std::vector<Chunk> chunks;
  std::vector<float> vectors, vector(model_.dims);
  for (uint32_t label = 0; label < part.slots(); ++label) {
    if (!part.alive(label)) continue;
    chunks.push_back(part.chunk(label));
    if (part.vector(label, vector.data())) vectors.insert(vectors.end(), vector.begin(), vector.end());
  }
  const size_t n = chunks.size();
  into.Add(std::move(chunks), vectors.empty() ? nullptr : vectors.data(), vectors.empty() ? 0 : n);
  pages_loaded_[fragment] = 1;
}

namespace {

PieceNeighborList ReadNeighbors(ByteReader& r, const PieceNeighbors& neighbors) {
  PieceNeighborList list;
  for (float& f : list.floors) f = r.u8() / kCosineScale;
  const uint32_t n = r.varint();
  if (n > kMaxNeighbors || n > r.remaining()) r.fail("too many neighbours");
  uint64_t next = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t id = next + r.varint();
    if (id >= neighbors.vocab() || !neighbors.Known(static_cast<int32_t>(id))) r.fail("a neighbour outside the corpus's pieces");
    list.nearest.push_back({static_cast<int32_t>(id), r.u8() / kCosineScale});
    next = id + 1;
  }
  return list;
}

}  // namespace

void SplitIndex::AddMatches(uint32_t fragment, const uint8_t* data, size_t size) {
  const std::string what = "split index match fragment " + std::to_string(fragment);
  if (fragment >= matches_loaded_.size()) throw Error(ErrorCode::kNotFound, "no match fragment " + std::to_string(fragment));
  ByteReader r = split_format::Check(data, size, kMatchMagic, what);
  if (r.u32() != fragment) r.fail("it is another fragment");
  const size_t first = static_cast<size_t>(fragment) * match_pieces_;
  const size_t end = std::min(neighbors_->vocab(), first + match_pieces_);
  std::vector<PieceNeighborList> lists;
  for (size_t id = first; id < end; ++id) lists.push_back(ReadNeighbors(r, *neighbors_));
  if (r.remaining() != 0) r.fail("trailing bytes");
  for (size_t id = first; id < end; ++id) neighbors_->Set(static_cast<int32_t>(id), std::move(lists[id - first]));
  matches_loaded_[fragment] = 1;
}

size_t SplitIndex::TermFragmentOf(const std::string& term) const {
  return static_cast<size_t>(std::upper_bound(first_terms_.begin(), first_terms_.end(), term) - first_terms_.begin()) - 1;
}

size_t SplitIndex::PageFragmentOf(uint32_t page) const {
  return static_cast<size_t>(std::upper_bound(first_pages_.begin(), first_pages_.end(), page) - first_pages_.begin()) - 1;
}

namespace {

// A text's BM25 keys as a query's are read: function words left out, each
// once (a set: a long query of distinct words stays linear, as in BM25).
std::vector<std::string> KeysOf(std::string_view text) {
  std::vector<std::string> keys;
  std::unordered_set<std::string> seen;
  SplitWords(text, [&](WordSpan&& w) {
    if (!FunctionWords().count(w.term) && seen.insert(w.term).second) keys.push_back(std::move(w.term));
  });
  return keys;
}

}  // namespace

// The match fragments of the query's pieces and of its translation's (what
// piece matching and the vocabulary coverage read), not loaded yet.
void SplitIndex::MissingMatches(std::string_view query, const Collection& into, std::vector<std::string>& missing) const {
  const Tokenizer* tokenizer = into.piece_tokenizer();
  if (!neighbors_ || !tokenizer) return;
  std::vector<int32_t> ids, more;
  tokenizer->EncodeIds(query, ids);
  tokenizer->EncodeIds(Collection::TranslationText(into.QueryTranslations(query, DetectLanguage(query))), more);
  ids.insert(ids.end(), more.begin(), more.end());
  std::vector<size_t> fragments;
  for (int32_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= neighbors_->vocab()) continue;
    const size_t f = static_cast<size_t>(id) / match_pieces_;
    if (!matches_loaded_[f]) fragments.push_back(f);
  }
  std::sort(fragments.begin(), fragments.end());
  fragments.erase(std::unique(fragments.begin(), fragments.end()), fragments.end());
  for (size_t f : fragments) missing.push_back("m" + std::to_string(f));
}

SplitIndex::QueryWords SplitIndex::WordsOf(std::string_view query, const Collection& into) const {
  QueryWords words;
  words.own = KeysOf(query);
  for (const auto& [language, groups] : into.QueryTranslations(query, DetectLanguage(query))) {
    for (const TermGroup& g : groups) {
      std::vector<std::vector<std::string>> alternatives;
      for (const std::string& phrase : g) alternatives.push_back(KeysOf(phrase));
      words.groups.push_back(std::move(alternatives));
    }
  }
  return words;
}

// The pages the query's words weigh most in: its own words' weights summed,
// each translated word's best alternative (a phrase: its words' mean) at
// kTranslatedShare, as hybrid ranking adds the two.
std::vector<uint32_t> SplitIndex::CandidatePages(const QueryWords& words, size_t count) const {
  std::unordered_map<uint32_t, float> score, best, phrase;
  auto weights = [&](const std::string& key) -> const std::vector<std::pair<uint32_t, uint8_t>>* {
    auto it = terms_.find(key);
    return it == terms_.end() ? nullptr : &it->second.pages;
  };
  for (const std::string& key : words.own) {
    if (const auto* pages = weights(key)) {
      for (const auto& [page, w] : *pages) score[page] += w;
    }
  }
  for (const auto& group : words.groups) {
    best.clear();
    for (const auto& alternative : group) {
      phrase.clear();
      for (const std::string& key : alternative) {
        if (const auto* pages = weights(key)) {
          for (const auto& [page, w] : *pages) phrase[page] += static_cast<float>(w) / static_cast<float>(alternative.size());
        }
      }
      for (const auto& [page, w] : phrase) best[page] = std::max(best[page], w);
    }
    for (const auto& [page, w] : best) score[page] += kTranslatedShare * w;
  }
  std::vector<std::pair<uint32_t, float>> ranked(score.begin(), score.end());
  const size_t keep = std::min(count, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + keep, ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::vector<uint32_t> pages;
  for (size_t i = 0; i < keep; ++i) pages.push_back(ranked[i].first);
  return pages;
}

std::vector<std::string> SplitIndex::Missing(std::string_view query, const Collection& into, size_t candidate_pages) const {
  utf8::Require(query, "query");
  const QueryWords words = WordsOf(query, into);
  std::vector<size_t> terms;
  auto need = [&](const std::string& key) {
    const size_t f = TermFragmentOf(key);
    if (!terms_loaded_[f]) terms.push_back(f);
  };
  for (const std::string& key : words.own) need(key);
  for (const auto& group : words.groups) {
    for (const auto& alternative : group) {
      for (const std::string& key : alternative) need(key);
    }
  }
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  std::vector<std::string> missing;
  for (size_t f : terms) missing.push_back("t" + std::to_string(f));
  MissingMatches(query, into, missing);
  if (!missing.empty()) return missing;
  std::vector<size_t> pages;
  for (uint32_t page : CandidatePages(words, candidate_pages)) {
    const size_t f = PageFragmentOf(page);
    if (!pages_loaded_[f]) pages.push_back(f);
  }
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  for (size_t f : pages) missing.push_back("p" + std::to_string(f));
  return missing;
}

}  // namespace vesper
