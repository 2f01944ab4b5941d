#include "core/search/query.h"

#include <algorithm>

namespace vesper {

size_t QueryResponse::shown_count() const { return static_cast<size_t>(std::count(shown.begin(), shown.end(), true)); }

QueryResponse Query(const Collection& collection, std::string_view text, const float* query_vector,
                    size_t query_dims, const QueryOptions& opt) {
  const bool vectors = collection.has_vectors() && query_vector && opt.mode != SearchMode::kLexical;
  SearchOptions so = opt.ranking;
  // Rank deeper than k, so that a bar on the similarity still finds k passages
  // when the ranking (piece matching, BM25) puts low-cosine passages first.
  constexpr size_t kMinRanked = 20;
  so.k = std::max(opt.k, kMinRanked);
  so.mode = vectors ? opt.mode : SearchMode::kLexical;
  so.exact = opt.exact;
  // Rank everything: the decision below, not a per-result bar, says what is shown.
  so.threshold = vectors ? -1.f : 0.f;
  QueryResponse r;
  r.results = collection.Search(text, vectors ? query_vector : nullptr, vectors ? query_dims : 0, so, &r.evidence);
  if (vectors && opt.mode == SearchMode::kVector) {
    // The calibration weighs lexical and piece-matching evidence too: gather
    // it as hybrid search would, whatever ranking the user asked for.
    SearchOptions evidence_only = so;
    evidence_only.mode = SearchMode::kHybrid;
    collection.Search(text, query_vector, query_dims, evidence_only, &r.evidence);
  }
  const Answerability& a = collection.answerability();
  // Without a calibration the user's bar is the whole decision, as before calibrations existed.
  r.decision = !a.calibrated && opt.min_score >= 0.f ? Decide(Answerability::Uncalibrated(opt.min_score), r.evidence)
                                                     : Decide(a, r.evidence);
  // The calibration's floor is on the hybrid ranking score (what hybrid
  // results print); a vector-only ranking prints the cosine, where it does not apply.
  r.min_score = opt.min_score >= 0.f ? opt.min_score : (vectors && opt.mode == SearchMode::kHybrid ? a.floor : 0.f);
  r.shown.reserve(r.results.size());
  size_t shown = 0;
  for (const SearchResult& s : r.results) {
    // The bar applies to the ranking score (what a reader sees beside the
    // result): results are shown down the ranked list until one is below it.
    bool show = shown < opt.k && r.decision.answerable && s.fused >= r.min_score && (vectors || s.lexical_score > 0.f) &&
                !(opt.exclude_meta && collection.chunk(s.label).meta);
    shown += show;
    r.shown.push_back(show);
  }
  return r;
}

}  // namespace vesper
