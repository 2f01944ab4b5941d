#include "core/index/vector_store.h"

#include <cmath>

#include "core/index/dot.h"

namespace vesper {

uint32_t VectorStore::Add(const float* v) {
  if (dims_ == 0) throw Error(ErrorCode::kInvalidArgument, "vector store has no dimensions");
  data_.insert(data_.end(), v, v + dims_);
  alive_.push_back(1);
  ++alive_count_;
  return static_cast<uint32_t>(alive_.size() - 1);
}

void VectorStore::Remove(uint32_t label) {
  if (!alive(label)) throw Error(ErrorCode::kNotFound, "vector " + std::to_string(label) + " is not stored");
  alive_[label] = 0;
  --alive_count_;
}

void VectorStore::Search(const float* query, size_t k, float threshold, std::vector<Hit>& out) const {
  top_.Reset(k);
  constexpr size_t kBlock = 256;
  if (scores_.size() < kBlock) scores_.resize(kBlock);
  const size_t n = alive_.size();
  for (size_t start = 0; start < n; start += kBlock) {
    size_t count = std::min(kBlock, n - start);
    DotRows(query, data_.data() + start * dims_, count, dims_, scores_.data());
    for (size_t i = 0; i < count; ++i) {
      float s = scores_[i];
      if (s >= threshold && alive_[start + i] && s > top_.floor()) top_.Push(static_cast<uint32_t>(start + i), s);
    }
  }
  top_.TakeSorted(out);
}

void VectorStore::Save(ByteWriter& w) const {
  w.u32(static_cast<uint32_t>(dims_));
  w.u64(alive_.size());
  w.raw(alive_.data(), alive_.size());
  w.raw(data_.data(), data_.size() * sizeof(float));
}

VectorStore VectorStore::Load(ByteReader& r) {
  VectorStore s(r.u32());
  if (s.dims_ == 0 || s.dims_ > 65536) r.fail("implausible vector dimensions " + std::to_string(s.dims_));
  uint64_t n = r.count(1 + 4 * s.dims_);
  s.alive_.resize(n);
  r.raw(s.alive_.data(), n);
  s.data_.resize(n * s.dims_);
  r.raw(s.data_.data(), s.data_.size() * sizeof(float));
  for (uint8_t a : s.alive_) {
    if (a > 1) r.fail("bad live flag in vector store");
    s.alive_count_ += a;
  }
  for (float x : s.data_) {
    if (!std::isfinite(x)) r.fail("vector store holds a non-finite value");
  }
  return s;
}

}  // namespace vesper
