// Vectors by dense label (a collection's chunk slot), contiguous for scanning,
// and the exact search over them: ground truth for HNSW and the fastest
// index below a few thousand vectors.
//
// Storage formats (bytes per vector of d dims):
//   float32  4d       exact scores
//   int8     d + 4    one scale per vector; scores within ~1e-2 of exact
//   binary   d/8 + 4d sign bits scanned by Hamming distance, the best
//                     candidates rescored on the full-precision vectors
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/index/top_k.h"
#include "core/util/bytes.h"

namespace vesper {

enum class VectorFormat : uint32_t { kFloat32 = 0, kInt8 = 1, kBinary = 2 };
const char* VectorFormatName(VectorFormat f);
VectorFormat ParseVectorFormat(const std::string& name);  // "float32" | "int8" | "binary"

// A read-only view of a store's rows by label, for an index that keeps no
// copy of the vectors (HnswIndex by reference). Pointers are valid until the
// store next changes: take a fresh view for every call.
struct VectorRows {
  VectorFormat format = VectorFormat::kFloat32;
  size_t dims = 0;
  size_t count = 0;                 // labels with a row, deleted ones included
  const float* floats = nullptr;    // float32 and binary: count x dims
  const int8_t* codes = nullptr;    // int8: count x dims
  const float* scales = nullptr;    // int8: count
};

// Row `label` of `rows` as floats (int8 decoded).
void DecodeRow(const VectorRows& rows, size_t label, float* out);

class VectorStore {
 public:
  explicit VectorStore(size_t dims = 0, VectorFormat format = VectorFormat::kFloat32);

  size_t dims() const { return dims_; }
  VectorFormat format() const { return format_; }
  size_t slots() const { return alive_.size(); }  // labels handed out, deleted ones included
  size_t size() const { return alive_count_; }
  bool alive(uint32_t label) const { return label < alive_.size() && alive_[label]; }
  size_t bytes_per_vector() const;
  VectorRows Rows() const;

  // Stores `v` under the next label and returns it.
  uint32_t Add(const float* v);
  // Float32 vectors become int8, each exactly as if it had been added so (a
  // store that grows past a size turns compact without keeping two copies).
  void ToInt8();
  void Remove(uint32_t label);

  // The stored vector as floats (decoded for int8).
  void Decode(uint32_t label, float* out) const;
  // Similarity of `query` with one stored vector, in the store's precision.
  float Score(const float* query, uint32_t label) const;

  // Top-k by inner product among live vectors scoring >= threshold; with
  // `allowed` (one byte per label), only among those it marks.
  void Search(const float* query, size_t k, float threshold, std::vector<Hit>& out,
              const std::vector<uint8_t>* allowed = nullptr) const;
  // Binary format: max(k x factor, 64, 1% of the store) Hamming candidates
  // are rescored exactly.
  void set_rescore_factor(size_t f) { rescore_factor_ = f; }

  void Save(ByteWriter& w) const;
  // With `owner` (memory that holds the reader's bytes, kept alive by the
  // store), int8 codes are read in place instead of copied: for large
  // stores, loading then touches half the fresh memory. The store copies
  // them out the first time it changes.
  static VectorStore Load(ByteReader& r, std::shared_ptr<const void> owner = nullptr);
  bool reads_in_place() const { return in_place_codes_ != nullptr; }

 private:
  void SearchBinary(const float* query, size_t k, float threshold, std::vector<Hit>& out,
                    const std::vector<uint8_t>* allowed) const;
  const int8_t* codes() const { return in_place_codes_ ? in_place_codes_ : codes_.data(); }
  void OwnCodes();  // copies codes read in place into codes_, before a change

  size_t dims_;
  VectorFormat format_;
  std::vector<float> data_;     // float32 and binary (for rescoring)
  std::vector<int8_t> codes_;   // int8, unless read in place:
  const int8_t* in_place_codes_ = nullptr;  // int8 codes inside owner_'s bytes
  std::shared_ptr<const void> owner_;
  std::vector<float> scales_;   // int8
  std::vector<uint64_t> bits_;  // binary
  std::vector<uint8_t> alive_;
  size_t alive_count_ = 0;
  size_t rescore_factor_ = 10;
  mutable TopK top_;
  mutable std::vector<float> scores_;       // per-block scratch, reused across queries
  mutable std::vector<uint64_t> query_bits_;
  mutable std::vector<int16_t> query_i16_;  // the query for WASM's integer int8 scan
  mutable TopK rescore_;                    // exact scores of the candidates (binary, WASM int8)
};

}  // namespace vesper
