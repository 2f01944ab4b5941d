// Approximate nearest neighbours over unit vectors. hnswlib builds and owns
// the graph; search is our own walk over it (same algorithm, no allocation
// per query, SIMD distances four rows at a time). Distance is 1 - inner
// product, so scores come back as cosine similarities. Under emcc hnswlib
// has no SIMD of its own, so insertion uses our WASM SIMD kernel through
// hnswlib's SpaceInterface; natively hnswlib's SSE/AVX space.
// Search reuses scratch held by the index: one query at a time per index.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/index/top_k.h"
#include "core/util/bytes.h"

namespace vesper {

struct HnswParams {
  uint32_t M = 16;
  // 100 as Qdrant's default (pgvector's is 64): against 200, the graph of
  // the default model's 10,000 vectors builds in 1.0 s rather than 1.7
  // (20,000 x 384 clustered: 1.9 s rather than 4.2) and recall@10 at the
  // ef_search below stays 0.997-0.999 (bench/REPORT.md's vesper_bench
  // hnsw-file, native); building is most of a large knowledge base's time.
  uint32_t ef_construction = 100;
  uint32_t ef_search = 128;
  uint32_t seed = 100;
};

// ef sizes per-query scratch and M each node's link lists: a pack must not
// be able to ask for 2^32 of either.
inline constexpr uint32_t kMaxHnswEf = 1u << 16;
inline constexpr uint32_t kMinHnswM = 2;
inline constexpr uint32_t kMaxHnswM = 256;

// Empty when p is usable, else what is wrong. Checked wherever parameters
// enter: the constructor, a saved graph and a pack's collection options, so
// what loads can always be saved and loaded again.
std::string HnswParamsProblem(const HnswParams& p);

class HnswIndex {
 public:
  HnswIndex(size_t dims, HnswParams params = {}, size_t initial_capacity = 1024);
  ~HnswIndex();
  HnswIndex(HnswIndex&&) noexcept;
  HnswIndex& operator=(HnswIndex&&) noexcept;

  size_t dims() const { return dims_; }
  size_t size() const;  // live (not deleted) entries
  size_t capacity() const;
  const HnswParams& params() const { return params_; }
  // ef in [1, kMaxHnswEf], else invalid_argument.
  void set_ef_search(uint32_t ef);

  // Labels are the caller's; adding past capacity grows the graph.
  void Add(uint32_t label, const float* v);
  // Marks the label deleted: it is never returned again.
  void Remove(uint32_t label);
  bool Contains(uint32_t label) const;
  void Search(const float* query, size_t k, float threshold, std::vector<Hit>& out) const;

  // The graph. With a vector source the live nodes' vectors are left out
  // (the collection's vector store holds them: pack version 4); a node
  // marked deleted keeps its vector inline, as search still walks through it.
  void Save(ByteWriter& w, bool with_vectors) const;
  // Fills `out` (dims floats) with the vector of a live label; false if the
  // label names no live vector.
  using VectorSource = std::function<bool(uint64_t label, float* out)>;
  // label_bytes is 8 in everything Save writes; 4 reads graphs saved by
  // wasm32 builds before pack version 2, which copied size_t labels as is.
  // vectors: where live nodes' vectors come from when Save left them out.
  static HnswIndex Load(ByteReader& r, size_t label_bytes = 8, const VectorSource* vectors = nullptr);

 private:
  struct Impl;
  size_t dims_;
  HnswParams params_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vesper
