#include "core/search/piece_match.h"

#include <algorithm>
#include <cmath>

#include "core/index/dot.h"

namespace vesper {

PieceMatcher::PieceMatcher(std::shared_ptr<const StaticModel> model) : model_(std::move(model)) {
  norm_.resize(model_->vocab());
  q_row_.resize(model_->dims());
  for (size_t v = 0; v < norm_.size(); ++v) {
    model_->Row(v, q_row_.data());
    norm_[v] = std::sqrt(Dot(q_row_.data(), q_row_.data(), model_->dims()));
  }
}

std::vector<int32_t> PieceMatcher::Distinct(const int32_t* ids, size_t n) const {
  std::vector<int32_t> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] >= 0 && static_cast<size_t>(ids[i]) < norm_.size() && norm_[ids[i]] > 0.f) out.push_back(ids[i]);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

float PieceMatcher::Best(int32_t q, const std::vector<int32_t>& passage) const {
  model_->Row(q, q_row_.data());
  float best = 0.f;
  for (int32_t p : passage) best = std::max(best, model_->RowDot(q_row_.data(), p) / norm_[p]);
  return best / norm_[q];
}

float PieceMatcher::Score(const std::vector<int32_t>& query, const std::vector<int32_t>& passage) const {
  if (query.empty() || passage.empty()) return 0.f;
  double num = 0.0, den = 0.0;
  for (int32_t q : query) {
    num += static_cast<double>(Best(q, passage)) * norm_[q];
    den += norm_[q];
  }
  return den > 0.0 ? static_cast<float>(num / den) : 0.f;
}

float PieceMatcher::Coverage(const std::vector<int32_t>& query, const std::vector<int32_t>& passage, float min_cosine) const {
  if (query.empty() || passage.empty()) return 0.f;
  double covered = 0.0, den = 0.0;
  for (int32_t q : query) {
    if (Best(q, passage) >= min_cosine) covered += norm_[q];
    den += norm_[q];
  }
  return den > 0.0 ? static_cast<float>(covered / den) : 0.f;
}

float PieceMatcher::VocabularyCoverage(const std::vector<int32_t>& query, const std::vector<uint8_t>& known,
                                       const std::vector<int32_t>& pieces) const {
  double num = 0.0, den = 0.0;
  for (int32_t q : query) {
    // A piece the collection holds matches itself; only the others need the scan.
    float best = static_cast<size_t>(q) < known.size() && known[q] ? 1.f : Best(q, pieces);
    num += static_cast<double>(best) * norm_[q];
    den += norm_[q];
  }
  return den > 0.0 ? static_cast<float>(num / den) : 0.f;
}

}  // namespace vesper
