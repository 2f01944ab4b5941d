// A user's search: rank, decide once whether the collection can answer, and
// say which results to show. The page, the CLI, the <vesper-search> element
// and the persona all search through this, so they agree on what is shown.
#pragma once
#include <string_view>
#include <vector>

#include "core/collection/collection.h"
#include "core/search/answerability.h"

namespace vesper {

struct QueryOptions {
  size_t k = 10;
  SearchMode mode = SearchMode::kHybrid;
  // The slider: results under an answerable query are shown when their
  // ranking score (SearchResult::fused: in hybrid search the semantic score
  // plus a share of BM25; the cosine in vector search; normalised BM25
  // without vectors; meta passages less a penalty) reaches it. The same score
  // is the one clients print, so it falls down the list. Negative: the
  // calibration's floor.
  float min_score = -1.f;
  bool exact = false;
  // Meta passages are neither shown nor counted against k (the persona).
  bool exclude_meta = false;
  // The ranking's weights (translated_weight, page_weight, ...); its k,
  // mode, exact and threshold are set by Query from the fields above.
  SearchOptions ranking;
};

struct QueryResponse {
  std::vector<SearchResult> results;  // the ranking (at least 20 deep), best first, shown or not
                                      // (at most k shown)
  std::vector<bool> shown;            // per result
  QueryEvidence evidence;
  AnswerDecision decision;
  float min_score = 0.f;              // the bar that was applied
  size_t shown_count() const;
};

QueryResponse Query(const Collection& collection, std::string_view text, const float* query_vector,
                    size_t query_dims, const QueryOptions& options = {});

}  // namespace vesper
