// Keeps the k best (highest score) hits seen so far. Reused across queries:
// Reset() keeps the capacity, so a warmed-up search allocates nothing.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace vesper {

struct Hit {
  uint32_t label;
  float score;
};

class TopK {
 public:
  void Reset(size_t k) {
    k_ = k;
    heap_.clear();
    if (heap_.capacity() < k) heap_.reserve(k);
  }
  // Lowest score kept so far, or -inf while not full.
  float floor() const { return heap_.size() < k_ ? -3.4e38f : heap_.front().score; }
  void Push(uint32_t label, float score) {
    if (k_ == 0) return;
    if (heap_.size() < k_) {
      heap_.push_back({label, score});
      std::push_heap(heap_.begin(), heap_.end(), Worse);
    } else if (score > heap_.front().score) {
      std::pop_heap(heap_.begin(), heap_.end(), Worse);
      heap_.back() = {label, score};
      std::push_heap(heap_.begin(), heap_.end(), Worse);
    }
  }
  // Best first; ties broken by label so results are deterministic.
  void TakeSorted(std::vector<Hit>& out) {
    std::sort(heap_.begin(), heap_.end(), [](const Hit& a, const Hit& b) {
      return a.score != b.score ? a.score > b.score : a.label < b.label;
    });
    out.assign(heap_.begin(), heap_.end());
    heap_.clear();
  }

 private:
  // Min-heap on score: the front is the hit to evict next.
  static bool Worse(const Hit& a, const Hit& b) {
    return a.score != b.score ? a.score > b.score : a.label < b.label;
  }
  size_t k_ = 0;
  std::vector<Hit> heap_;
};

}  // namespace vesper
