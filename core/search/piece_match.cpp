#include "core/search/piece_match.h"

#include <algorithm>
#include <cmath>

#include "core/index/dot.h"
#include "core/util/error.h"

namespace vesper {

PieceMatcher::PieceMatcher(std::shared_ptr<const StaticModel> model) : model_(std::move(model)) {
  q_row_.resize(model_->dims());
}

PieceMatcher::PieceMatcher(std::shared_ptr<const StaticModel> model, std::shared_ptr<const PieceNeighbors> neighbors)
    : PieceMatcher(std::move(model)) {
  if (neighbors && neighbors->vocab() != model_->vocab()) {
    throw Error(ErrorCode::kModelMismatch, "piece neighbours of another vocabulary than the model's");
  }
  neighbors_ = std::move(neighbors);
}

const PieceNeighborList& PieceMatcher::ListOf(int32_t q) const {
  if (!neighbors_->Loaded(q)) {
    throw Error(ErrorCode::kInvalidArgument, "piece matching: the neighbours of piece " + std::to_string(q) + " are not loaded");
  }
  return neighbors_->Of(q);
}

std::vector<int32_t> PieceMatcher::PassagePieces(const int32_t* ids, size_t n) const {
  if (!neighbors_) return Distinct(ids, n);
  std::vector<int32_t> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] >= 0 && static_cast<size_t>(ids[i]) < vocab() && neighbors_->Known(ids[i])) out.push_back(ids[i]);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int32_t> PieceMatcher::Distinct(const int32_t* ids, size_t n) const {
  model_->Require(ids, n);  // a row not loaded yet is fetched and the call repeated, never skipped
  std::vector<int32_t> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] >= 0 && static_cast<size_t>(ids[i]) < vocab() && model_->Norm(ids[i]) > 0.f) out.push_back(ids[i]);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

float PieceMatcher::Best(int32_t q, const std::vector<int32_t>& passage) const {
  if (neighbors_) {
    // The best listed neighbour the (sorted) passage holds, else the floor.
    const PieceNeighborList& list = ListOf(q);
    if (passage.empty()) return 0.f;
    float best = list.Floor(passage.size());
    for (const PieceNeighbor& nb : list.nearest) {
      if (std::binary_search(passage.begin(), passage.end(), nb.id)) best = std::max(best, nb.cosine);
    }
    return best;
  }
  model_->Row(q, q_row_.data());
  float best = 0.f;
  for (int32_t p : passage) best = std::max(best, model_->RowDot(q_row_.data(), p) / model_->Norm(p));
  return best / model_->Norm(q);
}

void PieceMatcher::PrepareQuery(const std::vector<int32_t>& query) const {
  if (query == cached_query_ && generation_ != 0) return;
  cached_query_ = query;
  if (neighbors_) {
    PrepareNeighbors(query);
    return;
  }
  const size_t dims = model_->dims();
  query_rows_.resize(query.size() * dims);
  for (size_t i = 0; i < query.size(); ++i) model_->Row(query[i], query_rows_.data() + i * dims);
  if (stamp_.empty()) stamp_.assign(vocab(), 0), slot_.assign(vocab(), 0);
  if (++generation_ == 0) std::fill(stamp_.begin(), stamp_.end(), 0), generation_ = 1;  // wrapped: forget every stamp
  cosines_.clear();
}

// With neighbour lists every cosine is known before the passages are: a run
// of zeros at slot 0 serves every piece no query piece lists (Score starts
// each query piece at its floor for the passage's size), and each listed
// piece gets a run of its own, kept as Score reads the rows' runs: cosine
// times the query piece's norm.
void PieceMatcher::PrepareNeighbors(const std::vector<int32_t>& query) const {
  if (stamp_.empty()) stamp_.assign(vocab(), 0), slot_.assign(vocab(), 0);
  if (++generation_ == 0) std::fill(stamp_.begin(), stamp_.end(), 0), generation_ = 1;
  const size_t n = query.size();
  cosines_.assign(n, 0.f);
  auto set = [&](int32_t piece, size_t i, float cosine) {
    if (stamp_[piece] != generation_) {
      stamp_[piece] = generation_;
      slot_[piece] = static_cast<uint32_t>(cosines_.size());
      cosines_.resize(cosines_.size() + n, 0.f);
    }
    cosines_[slot_[piece] + i] = cosine;
  };
  for (size_t i = 0; i < n; ++i) {
    for (const PieceNeighbor& nb : ListOf(query[i]).nearest) set(nb.id, i, nb.cosine * model_->Norm(query[i]));
  }
  for (size_t i = 0; i < n; ++i) set(query[i], i, model_->Norm(query[i]));  // a piece matches itself fully, listed or not
}

const float* PieceMatcher::CosinesOf(int32_t piece) const {
  const size_t n = cached_query_.size();
  if (neighbors_) return cosines_.data() + (stamp_[piece] == generation_ ? slot_[piece] : 0);
  if (stamp_[piece] != generation_) {
    stamp_[piece] = generation_;
    slot_[piece] = static_cast<uint32_t>(cosines_.size());
    for (size_t i = 0; i < n; ++i) cosines_.push_back(model_->RowDot(query_rows_.data() + i * model_->dims(), piece) / model_->Norm(piece));
  }
  return cosines_.data() + slot_[piece];
}

float PieceMatcher::Score(const std::vector<int32_t>& query, const std::vector<int32_t>& passage) const {
  if (query.empty() || passage.empty()) return 0.f;
  PrepareQuery(query);
  best_.assign(query.size(), 0.f);
  if (neighbors_) {
    for (size_t i = 0; i < query.size(); ++i) best_[i] = ListOf(query[i]).Floor(passage.size()) * model_->Norm(query[i]);
  }
  for (int32_t p : passage) {
    const float* cosines = CosinesOf(p);
    for (size_t i = 0; i < query.size(); ++i) best_[i] = std::max(best_[i], cosines[i]);
  }
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < query.size(); ++i) {
    num += static_cast<double>(best_[i] / model_->Norm(query[i])) * model_->Norm(query[i]);
    den += model_->Norm(query[i]);
  }
  return den > 0.0 ? static_cast<float>(num / den) : 0.f;
}

float PieceMatcher::Coverage(const std::vector<int32_t>& query, const std::vector<int32_t>& passage, float min_cosine) const {
  if (query.empty() || passage.empty()) return 0.f;
  double covered = 0.0, den = 0.0;
  for (int32_t q : query) {
    if (Best(q, passage) >= min_cosine) covered += model_->Norm(q);
    den += model_->Norm(q);
  }
  return den > 0.0 ? static_cast<float>(covered / den) : 0.f;
}

float PieceMatcher::NearestKnown(int32_t q) const {
  float best = 0.f;
  for (const PieceNeighbor& nb : ListOf(q).nearest) best = std::max(best, nb.cosine);
  return best;
}

float PieceMatcher::VocabularyCoverage(const std::vector<int32_t>& query, const std::vector<uint8_t>& known,
                                       const std::vector<int32_t>& pieces) const {
  double num = 0.0, den = 0.0;
  for (int32_t q : query) {
    // A piece the collection holds matches itself; only the others need the
    // scan (with neighbour lists, of known pieces: the nearest is the best).
    float best = static_cast<size_t>(q) < known.size() && known[q] ? 1.f : neighbors_ ? NearestKnown(q) : Best(q, pieces);
    num += static_cast<double>(best) * model_->Norm(q);
    den += model_->Norm(q);
  }
  return den > 0.0 ? static_cast<float>(num / den) : 0.f;
}

}  // namespace vesper
