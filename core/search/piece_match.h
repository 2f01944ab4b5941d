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

namespace vesper {

class PieceMatcher {
 public:
  explicit PieceMatcher(std::shared_ptr<const StaticModel> model);

  // The distinct pieces of a tokenised text that carry weight, sorted.
  std::vector<int32_t> Distinct(const int32_t* ids, size_t n) const;
  // Weighted mean over `query` pieces of their best cosine in `passage`; 0
  // for an empty side. Both from Distinct().
  float Score(const std::vector<int32_t>& query, const std::vector<int32_t>& passage) const;

 private:
  std::shared_ptr<const StaticModel> model_;
  std::vector<float> norm_;  // per piece; 0 for rows that are all zeros
};

}  // namespace vesper
