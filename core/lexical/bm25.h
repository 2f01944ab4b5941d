// Okapi BM25 over the words of SplitWords(): the lexical half of hybrid
// search, and the whole search when a collection has no embedding model.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/index/top_k.h"
#include "core/util/bytes.h"

namespace vesper {

// What a part of a corpus must know of the whole to score as the whole
// would (a split index's pages: core/collection/split.h): how many
// documents, their total length, and each term's document frequency. A
// term it does not list is in no document.
struct CorpusStats {
  uint64_t docs = 0, total_len = 0;
  std::unordered_map<std::string, uint32_t> df;
  uint32_t Df(const std::string& term) const {
    auto it = df.find(term);
    return it == df.end() ? 0 : it->second;
  }
};

class Bm25Index {
 public:
  explicit Bm25Index(float k1 = 1.2f, float b = 0.75f) : k1_(k1), b_(b) {}

  void Add(uint32_t label, std::string_view text);  // labels are dense and never reused
  // `text`: what was added under the label (its words are what it held:
  // the index keeps no list of each document's words).
  void Remove(uint32_t label, std::string_view text);
  size_t size() const { return live_docs_; }
  uint64_t total_length() const { return live_len_; }  // words in the live documents

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
  // How much of the query the index knows at all: the share of its words
  // (function words aside) that some document holds, each weighted by its
  // Rarity, so that a word no document holds weighs the most there is (1)
  // and a common one little. "renew my passport" over git's manual is 0
  // however close its pieces come to "password"; what sets a question the
  // documents answer apart from an unrelated one that happens to sound like
  // them. 0 for a query with no such word.
  float Coverage(std::string_view query) const;
  // The same over a translated query (groups as SearchAlternatives takes
  // them): a group is held when one of its alternatives has every word held,
  // and weighs as that alternative's rarest word (the most common such
  // alternative); a group with none held weighs 1.
  float CoverageOfAlternatives(const std::vector<std::vector<std::string>>& groups) const;

  // Scores as the corpus these documents are part of would (its counts,
  // lengths and frequencies), over passages (`docs`) and, in ScoreGroups,
  // pages (`groups`); null: this index's own. The stats outlive the index's
  // use of them (the caller owns them).
  void SetCorpus(const CorpusStats* docs, const CorpusStats* groups) {
    corpus_ = docs;
    group_corpus_ = groups;
  }
  // Each term some live document holds, with its document frequency and,
  // per group holding it (documents grouped as ScoreGroups groups them), the
  // weight ScoreGroups adds for it to that group: what a split index stores
  // to choose the pages a query fetches.
  struct TermWeights {
    const std::string* term;
    uint32_t df;
    std::vector<std::pair<uint32_t, float>> groups;  // group, weight
  };
  void ForEachTerm(const std::vector<uint32_t>& group_of, size_t groups, const std::function<void(const TermWeights&)>& fn) const;

 private:
  struct Posting {
    uint32_t label;
    uint32_t tf;
  };
  // A term's postings in label order, as LEB128 label gaps and counts (two
  // or three bytes a posting rather than eight: the index of a large
  // knowledge base is most of its memory), read in order.
  class PostingList {
   public:
    void push_back(Posting p);
    class iterator {
     public:
      iterator(const uint8_t* at, const uint8_t* end) : at_(at), end_(end) { Decode(); }
      Posting operator*() const { return cur_; }
      iterator& operator++() {
        at_ = next_;
        Decode();
        return *this;
      }
      bool operator!=(const iterator& o) const { return at_ != o.at_; }

     private:
      void Decode();
      const uint8_t* at_;
      const uint8_t* end_;
      const uint8_t* next_ = nullptr;
      Posting cur_{0, 0};
    };
    iterator begin() const { return iterator(bytes_.data(), bytes_.data() + bytes_.size()); }
    iterator end() const { return iterator(bytes_.data() + bytes_.size(), bytes_.data() + bytes_.size()); }

   private:
    void Put(uint32_t v);
    std::vector<uint8_t> bytes_;
    uint32_t last_ = 0;  // the last label added
  };
  struct QueryTerm {
    int32_t term;  // -1: no posting here
    float idf;
    bool known;         // some document of the corpus holds it
    uint32_t group_df;  // pages of the corpus holding it (with a group corpus)
  };
  void PrepareQuery(std::string_view query, std::vector<QueryTerm>& terms, float& max_score) const;
  static float CoverageWeight(const QueryTerm& qt, float most);
  float Idf(size_t df) const;
  // Idf among n documents (or groups) of which df hold the term.
  static float IdfOver(double n, double df);
  // What a term adds to a document's (or a group's) score: its idf times
  // its count saturated by the document's length against the average.
  float TermScore(float idf, float tf, float len, float avg_len) const {
    const float norm = k1_ * (1.f - b_ + b_ * len / avg_len);
    return idf * tf * (k1_ + 1.f) / (tf + norm);
  }

  float k1_, b_;
  std::unordered_map<std::string, uint32_t> term_ids_;
  std::vector<PostingList> postings_;
  std::vector<uint32_t> df_;  // live documents per term
  std::vector<uint32_t> doc_len_;
  std::vector<uint8_t> alive_;
  size_t live_docs_ = 0;
  uint64_t live_len_ = 0;
  float TermWeight(bool known, float idf) const;
  double Docs() const { return corpus_ ? static_cast<double>(corpus_->docs) : static_cast<double>(live_docs_); }
  float AvgLen() const;
  const CorpusStats* corpus_ = nullptr;
  const CorpusStats* group_corpus_ = nullptr;
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
