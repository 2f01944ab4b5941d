// Okapi BM25 over the words of SplitWords(): the lexical half of hybrid
// search, and the whole search when a collection has no embedding model.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/index/top_k.h"
#include "core/util/bytes.h"

namespace vesper {

class Bm25Index {
 public:
  explicit Bm25Index(float k1 = 1.2f, float b = 0.75f) : k1_(k1), b_(b) {}

  void Add(uint32_t label, std::string_view text);  // labels are dense and never reused
  void Remove(uint32_t label);
  size_t size() const { return live_docs_; }

  // Scores are normalised to [0, 1]: BM25 divided by the most the query
  // could score, each term saturated and weighted by its idf, where unseen
  // terms weigh the most any term can and common ones at least half that.
  // One threshold then works across queries: a query made of common words,
  // or mostly of words the index never saw, cannot score high.
  void Search(std::string_view query, size_t k, std::vector<Hit>& out) const;
  // A query given as groups of alternatives (a translated query: each group
  // is one source word, each alternative one of its translations, a phrase):
  // a document scores, per group, its best alternative (the mean of that
  // phrase's term scores), normalised as Search() normalises, so that three
  // translations of one word count as one word.
  void SearchAlternatives(const std::vector<std::vector<std::string>>& groups, size_t k, std::vector<Hit>& out) const;
  // BM25 of whole pages made of labels (a page and its passages): per group,
  // term frequencies and lengths are summed and idf counts groups, so words
  // spread over a page's sections meet. out: one score per group, normalised
  // as Search() normalises (over the groups' idf); 0 where nothing matched.
  // group_of: the group of each label (labels past its end are in none).
  void ScoreGroups(std::string_view query, const std::vector<uint32_t>& group_of, size_t groups,
                   std::vector<float>& out) const;
  // The normalised score of one document, for explaining a hybrid result.
  float Score(std::string_view query, uint32_t label) const;
  // The index as bytes (a pack's bm25 section), and back without
  // re-reading any text: Load checks every posting against the documents
  // (`alive`: one flag per label, as the collection's chunks say) and every
  // document's length against its postings, so a crafted section can point
  // nowhere and skew no score beyond what its own numbers say.
  void Save(ByteWriter& w) const;
  static Bm25Index Load(ByteReader& r, const std::vector<uint8_t>& alive);
  // How rare a term (a SplitWords() key) is in the index, in [0, 1]: its idf
  // over the most any term can have. A word no document holds is 1; one that
  // every document holds is near 0. What sharing the word says about a match.
  float Rarity(const std::string& term) const;

 private:
  struct Posting {
    uint32_t label;
    uint32_t tf;
  };
  struct QueryTerm {
    int32_t term;  // -1: not in the index
    float idf;
  };
  void PrepareQuery(std::string_view query, std::vector<QueryTerm>& terms, float& max_score) const;
  float Idf(size_t df) const;

  float k1_, b_;
  std::unordered_map<std::string, uint32_t> term_ids_;
  std::vector<std::vector<Posting>> postings_;
  std::vector<uint32_t> df_;  // live documents per term
  std::vector<uint32_t> doc_len_;
  std::vector<std::vector<uint32_t>> doc_terms_;  // unique terms per document, to undo df on removal
  std::vector<uint8_t> alive_;
  size_t live_docs_ = 0;
  uint64_t live_len_ = 0;
  float TermWeight(int32_t id, float idf) const;
  float ScorePhrase(std::string_view phrase, float avg_len, bool& known) const;

  mutable std::vector<float> acc_;       // per-label accumulator, reused across queries
  mutable std::vector<float> group_acc_, alt_acc_;  // SearchAlternatives' per-label scratch
  mutable std::vector<uint32_t> group_touched_, alt_touched_;
  mutable std::vector<uint32_t> touched_;
  // ScoreGroups: the groups' lengths, kept while the index (version_) and
  // the grouping stay as they were; group_tf_ is per-query scratch.
  struct GroupLengths {
    uint64_t version = UINT64_MAX;
    size_t groups = 0, labels = 0;
    uint64_t total = 0;
    size_t live = 0;
  };
  uint64_t version_ = 0;  // counts Add and Remove
  void CountGroupLengths(const std::vector<uint32_t>& group_of, size_t groups) const;
  mutable GroupLengths group_lengths_;
  mutable std::vector<uint64_t> group_len_;
  mutable std::vector<float> group_tf_;
  mutable std::vector<QueryTerm> query_terms_;
  mutable std::unordered_set<std::string> seen_terms_;  // per query, buckets kept
  mutable TopK top_;
};

}  // namespace vesper
