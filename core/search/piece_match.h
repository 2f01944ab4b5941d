// Token-level matching for static models, the second stage of hybrid search:
// each query piece finds its most similar piece in a passage (cosine of the
// model's rows), and the passage scores the mean of those maxima weighted by
// the query pieces' own weights (their row norms, the SIF weights folded into
// the table). A summed passage vector dilutes a long passage's one relevant
// sentence; the maxima do not, and through the model's aligned rows a query
// piece still finds its translation ("câmera" -> "camera").
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/embed/static_model.h"
#include "core/search/piece_neighbors.h"

namespace vesper {

class PieceMatcher {
 public:
  explicit PieceMatcher(std::shared_ptr<const StaticModel> model);
  // Matching through a split index's neighbour lists (piece_neighbors.h):
  // passages need no rows, only the query's pieces do (their weights), and
  // each query piece's list must be loaded (a kInvalidArgument error names
  // one that is not: the caller fetched too little).
  PieceMatcher(std::shared_ptr<const StaticModel> model, std::shared_ptr<const PieceNeighbors> neighbors);

  // The distinct pieces of a tokenised text that carry weight, sorted.
  std::vector<int32_t> Distinct(const int32_t* ids, size_t n) const;
  // The same for a passage's text; with neighbour lists, the pieces the
  // corpus holds (those are the ones of weight), without their rows.
  std::vector<int32_t> PassagePieces(const int32_t* ids, size_t n) const;
  // Weighted mean over `query` pieces of their best cosine in `passage`; 0
  // for an empty side. Both from Distinct().
  float Score(const std::vector<int32_t>& query, const std::vector<int32_t>& passage) const;
  // The share of the query's weight whose pieces find a match of at least
  // `min_cosine` in the passage: how much of the question the passage covers.
  float Coverage(const std::vector<int32_t>& query, const std::vector<int32_t>& passage, float min_cosine) const;
  // How well the collection's vocabulary knows the query: the weighted mean
  // over query pieces of their best cosine among all the collection's
  // pieces (`known`: a flag per vocabulary id; `pieces`: the same as a list).
  // A question about something the knowledge base never mentions
  // ("feijoada", "sourdough") has pieces nothing in it resembles.
  float VocabularyCoverage(const std::vector<int32_t>& query, const std::vector<uint8_t>& known,
                           const std::vector<int32_t>& pieces) const;
  size_t vocab() const { return model_->vocab(); }
  const StaticModel& model() const { return *model_; }
  const std::shared_ptr<const StaticModel>& shared_model() const { return model_; }
  bool uses_neighbors() const { return neighbors_ != nullptr; }

 private:
  std::shared_ptr<const StaticModel> model_;
  std::shared_ptr<const PieceNeighbors> neighbors_;  // null: cosines from the rows
  // A query piece's neighbour list, checked loaded.
  const PieceNeighborList& ListOf(int32_t q) const;
  // The best cosine of query piece q among the passage's pieces.
  float Best(int32_t q, const std::vector<int32_t>& passage) const;

  // One query is scored against every passage of a rerank pool, and the
  // passages share most of their pieces: each (query piece, passage piece)
  // cosine is computed once per query and kept here (Score only; the same
  // arithmetic as Best, so scores are identical to the bit).
  void PrepareQuery(const std::vector<int32_t>& query) const;
  void PrepareNeighbors(const std::vector<int32_t>& query) const;
  float NearestKnown(int32_t q) const;  // with neighbour lists: q's best cosine among the corpus's pieces
  const float* CosinesOf(int32_t piece) const;

  mutable std::vector<float> q_row_;  // the query piece's row, decoded once per Best (scratch)
  mutable std::vector<int32_t> cached_query_;   // the query the memo below holds
  mutable std::vector<float> query_rows_;       // its pieces' rows, decoded
  mutable std::vector<uint32_t> stamp_, slot_;  // per vocabulary piece: the query generation it was computed in, where
  mutable std::vector<float> cosines_;          // query-size runs of cosines, one per passage piece seen
  mutable uint32_t generation_ = 0;
  mutable std::vector<float> best_;             // per query piece: its best cosine in the passage scored (scratch)
};

}  // namespace vesper
