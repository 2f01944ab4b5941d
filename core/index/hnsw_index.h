// Approximate nearest neighbours over unit vectors. hnswlib builds and owns
// the graph; search is our own walk over it (same algorithm, no allocation
// per query, SIMD distances four rows at a time). Distance is 1 - inner
// product, so scores come back as cosine similarities. Under emcc hnswlib
// has no SIMD of its own, so insertion uses our WASM SIMD kernel through
// hnswlib's SpaceInterface; natively hnswlib's SSE/AVX space.
// Search reuses scratch held by the index: one query at a time per index.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/index/top_k.h"
#include "core/index/vector_store.h"
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
  // A graph holding its own float copy of every vector (standalone use).
  HnswIndex(size_t dims, HnswParams params = {}, size_t initial_capacity = 1024);
  // A graph holding no vectors: node `label`'s vector is row `label` of the
  // VectorRows passed to every call that needs vectors (a collection's
  // store, which already holds them: no second copy). Float32 and binary
  // rows are read as floats; int8 rows as codes, the query in int16.
  static HnswIndex ByReference(size_t dims, HnswParams params = {}, size_t initial_capacity = 1024);
  ~HnswIndex();
  HnswIndex(HnswIndex&&) noexcept;
  HnswIndex& operator=(HnswIndex&&) noexcept;

  size_t dims() const { return dims_; }
  bool by_reference() const;
  size_t size() const;  // live (not deleted) entries
  size_t capacity() const;
  const HnswParams& params() const { return params_; }
  // ef in [1, kMaxHnswEf], else invalid_argument.
  void set_ef_search(uint32_t ef);

  // Labels are the caller's; adding past capacity grows the graph. The
  // first form for a graph with its own vectors, the second by reference
  // (rows must hold row `label`).
  void Add(uint32_t label, const float* v);
  void Add(uint32_t label, const VectorRows& rows);
  // Marks the label deleted: it is never returned again.
  void Remove(uint32_t label);
  bool Contains(uint32_t label) const;
  // Scores are cosine similarities; over int8 rows, each result is scored
  // again with the float query (as the int8 exact scan scores it).
  void Search(const float* query, size_t k, float threshold, std::vector<Hit>& out) const;
  void Search(const float* query, const VectorRows& rows, size_t k, float threshold, std::vector<Hit>& out) const;

  // The graph: per node its level-0 links, its vector as floats (all nodes'
  // with_vectors, else only a deleted node's: search still walks through it
  // and the caller's store may not keep it) and its label, then the upper
  // levels. One layout for both kinds of graph: a graph by reference takes
  // the vectors it writes from `rows`. compact_links: each level-0 list is
  // its count word and that many links, not all 2M slots (pack version 6:
  // lists are ~40% full, so the graph's bytes shrink by half).
  void Save(ByteWriter& w, bool with_vectors, const VectorRows* rows = nullptr, bool compact_links = false) const;
  // label_bytes is 8 in everything Save writes; 4 reads graphs saved by
  // wasm32 builds before pack version 2, which copied size_t labels as is.
  // A graph with its own vectors needs them inline for every node.
  static HnswIndex Load(ByteReader& r, size_t label_bytes = 8, bool compact_links = false);
  // A graph by reference over rows: inline vectors (every node's when
  // vectors_inline, else deleted nodes') are read past; every label must
  // name a row.
  static HnswIndex LoadByReference(ByteReader& r, const VectorRows& rows, size_t label_bytes = 8,
                                   bool vectors_inline = false, bool compact_links = false);

 private:
  struct Impl;
  HnswIndex(size_t dims, HnswParams params, size_t initial_capacity, bool by_reference);
  static HnswIndex LoadGraph(ByteReader& r, size_t label_bytes, const VectorRows* rows, bool vectors_inline,
                             bool compact_links);
  void Walk(const float* query, size_t k, float threshold, std::vector<Hit>& out) const;
  size_t dims_;
  HnswParams params_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vesper
