// A collection cut into parts for a static site that serves it as files: an
// entry, term fragments and page fragments. A page downloads the entry
// (small: the corpus's counts and where each part lies), then per query the
// term fragments of its words and their translations, then the pages those
// words weigh most in. It searches a collection that holds only the pages
// fetched so far but ranks with the whole corpus's statistics (CorpusView),
// so that a passage it holds scores as a search over the whole pack would
// score it; what it can miss is a passage on a page no query word pointed to.
//
//   entry          "VESPERIX" u32 version, u64 bytes; the collection's meta
//                  section; passages, their words, pages; languages; mean
//                  vector; the model pieces some passage holds (bits); the
//                  pieces per match fragment (0: none); the first term of each term fragment; the first page of each
//                  page fragment; u32 crc32 of all before it
//   term fragment  "VESPERTF" u32 version, u32 fragment, u32 terms; per term
//                  its key, passages and pages holding it, and the pages it
//                  weighs most in (page gap, weight as a byte); u32 crc32
//   page fragment  a pack (core/collection/pack.h) of consecutive pages'
//                  passages, int8 vectors, no bm25 section
//   match fragment "VESPERMF" u32 version, u64 bytes, u32 fragment; per
//                  piece of its id range: floors (kFloorSizes bytes), neighbour count,
//                  per neighbour id gap and cosine (byte); u32 crc32. Piece
//                  matching's neighbour lists (core/search/piece_neighbors.h),
//                  so that a page needs the model rows of its queries'
//                  pieces only, not those of every fetched passage's
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/collection/collection.h"
#include "core/util/bytes.h"

namespace vesper {

inline constexpr uint32_t kSplitVersion = 3;

struct SplitOptions {
  // A term fragment is closed past this many bytes: a query reads one per
  // word (and per translation), so small ones keep a query's download small.
  size_t term_fragment_bytes = 1024;
  // Consecutive pages share a fragment until their text passes this: a
  // query wants a page, not its neighbours, so a page of any size is one
  // fragment unless pages are tiny (on the 10,000-page benchmark, fragments
  // of ~1 page fetched 24 pages in the bytes that 12 in fragments of ~2.5
  // took, and agreed more often with the whole pack).
  size_t page_fragment_bytes = 512;
  // Each term lists the pages it weighs most in, at most this many (on the
  // benchmark's 10,000 pages the first result agreed with the whole pack's
  // for 45% of fresh pages at a cap of 128, 58% with full lists; the cap
  // keeps a huge site's commonest words bounded).
  size_t pages_per_term = 4096;
  // Piece matching's neighbour lists: each piece's nearest this many among
  // the corpus's (at most 255); 0 writes none, and a page then needs the
  // model rows of every fetched passage's pieces (on a large site, most of
  // the table). Served by consecutive piece ids, this many per fragment.
  size_t match_neighbors = 16;
  // 8 a fragment: a query's pieces are scattered over the ids, so it reads
  // one fragment per piece either way, and a smaller one is fewer bytes
  // (on the 10,000-page benchmark a query's 90th-percentile download,
  // model parts included, 116 -> 108 kB, the largest 198 -> 166 kB against
  // 32 a fragment; bench/pagefind/SPLIT-TUNING.md).
  size_t match_fragment_pieces = 8;
  // Hears how far the neighbour lists are (the slow step: tens of seconds
  // on a 10,000-page site); optional.
  NeighborProgress on_progress;
};

struct SplitFiles {
  Bytes entry;
  std::vector<Bytes> terms;  // part "t<i>"
  std::vector<Bytes> pages;  // part "p<i>"
  std::vector<Bytes> matches;  // part "m<i>"
};

// Throws kInvalidArgument for a collection without live passages.
SplitFiles SplitCollection(const Collection& collection, const SplitOptions& options = {});

// How many pages a query fetches: those its words (and their translations)
// weigh most in. On the 10,000-page benchmark's development questions, in
// fragments of one page: 24 pages, parts of ~78 kB per query, the whole
// pack's first result for 71%, recall@10 0.63; 32: ~93 kB, 71%, 0.68
// (bench/pagefind/SCALE.md).
inline constexpr size_t kSplitCandidatePages = 24;

class SplitIndex {
 public:
  // The entry, validated as a pack is (kCorruptData, kUnsupported).
  static SplitIndex Load(const uint8_t* data, size_t size);

  // An empty collection as the entry describes it (name, model, options),
  // ranking with the whole corpus's statistics; pages are added to it.
  Collection MakeCollection() const;
  const ModelInfo& model() const { return model_; }
  size_t passages() const { return corpus_->passages.docs; }
  size_t term_fragments() const { return first_terms_.size(); }
  size_t page_fragments() const { return first_pages_.empty() ? 0 : first_pages_.size() - 1; }
  size_t match_fragments() const { return matches_loaded_.size(); }

  // A term fragment's bytes (validated; kCorruptData). Adding one twice is harmless.
  void AddTerms(uint32_t fragment, const uint8_t* data, size_t size);
  // A page fragment's passages, into a collection MakeCollection made
  // (kModelMismatch for another model's pack). Adding one twice is harmless.
  void AddPages(uint32_t fragment, const uint8_t* data, size_t size, Collection& into);
  // A match fragment's neighbour lists (validated; kCorruptData).
  void AddMatches(uint32_t fragment, const uint8_t* data, size_t size);

  // The parts a query still needs before `into` ranks it as the whole pack
  // would: "t<i>" term fragments and "m<i>" match fragments first (the
  // pages come from the terms), then "p<i>" page fragments; empty when none. May throw MissingShards (the
  // lexicon's, for the query's translation).
  std::vector<std::string> Missing(std::string_view query, const Collection& into,
                                   size_t candidate_pages = kSplitCandidatePages) const;

 private:
  struct Term {
    std::vector<std::pair<uint32_t, uint8_t>> pages;  // page, weight
  };
  size_t TermFragmentOf(const std::string& term) const;
  size_t PageFragmentOf(uint32_t page) const;
  // Every BM25 key the query's ranking reads: its words, and per language
  // the words of each translation's alternatives (group -> phrase -> words).
  struct QueryWords {
    std::vector<std::string> own;
    std::vector<std::vector<std::vector<std::string>>> groups;
  };
  QueryWords WordsOf(std::string_view query, const Collection& into) const;
  std::vector<uint32_t> CandidatePages(const QueryWords& words, size_t count) const;

  Bytes meta_;  // the collection's meta section
  ModelInfo model_;
  std::shared_ptr<CorpusView> corpus_;
  std::vector<std::string> first_terms_;  // per term fragment
  std::vector<uint32_t> first_pages_;     // per page fragment, then the page count
  std::unordered_map<std::string, Term> terms_;
  std::vector<uint8_t> terms_loaded_, pages_loaded_, matches_loaded_;
  uint32_t match_pieces_ = 0;  // pieces per match fragment; 0: none
  std::shared_ptr<PieceNeighbors> neighbors_;  // the corpus view's, filled as match fragments arrive
  void MissingMatches(std::string_view query, const Collection& into, std::vector<std::string>& missing) const;
};

}  // namespace vesper
