// Vectors by dense label (a collection's chunk slot), contiguous for scanning,
// and the exact search over them: ground truth for HNSW and the fastest
// index below a few thousand vectors.
#pragma once
#include <cstdint>
#include <vector>

#include "core/index/top_k.h"
#include "core/util/bytes.h"

namespace vesper {

class VectorStore {
 public:
  explicit VectorStore(size_t dims = 0) : dims_(dims) {}

  size_t dims() const { return dims_; }
  size_t slots() const { return alive_.size(); }  // labels handed out, deleted ones included
  size_t size() const { return alive_count_; }
  bool alive(uint32_t label) const { return label < alive_.size() && alive_[label]; }
  const float* vector(uint32_t label) const { return data_.data() + static_cast<size_t>(label) * dims_; }

  // Stores a copy of `v` under the next label and returns it.
  uint32_t Add(const float* v);
  void Remove(uint32_t label);

  // Top-k by inner product among live vectors scoring >= threshold.
  void Search(const float* query, size_t k, float threshold, std::vector<Hit>& out) const;

  void Save(ByteWriter& w) const;
  static VectorStore Load(ByteReader& r);

 private:
  size_t dims_;
  std::vector<float> data_;
  std::vector<uint8_t> alive_;
  size_t alive_count_ = 0;
  mutable TopK top_;
  mutable std::vector<float> scores_;  // per-block scratch, reused across queries
};

}  // namespace vesper
