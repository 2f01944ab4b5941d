// A static embedding model run by the core itself: a vector per token
// (per-piece weights folded in), summed over the tokens and L2-normalised,
// i.e. a weighted mean up to scale. Needs no ONNX Runtime.
//
// Format (little-endian): "VSTM", u32 version (1), u32 vocab, u32 dims,
// u32 dtype, then vocab rows: dtype 0 stores dims f32 per row, dtype 1 an
// f32 scale followed by dims int8 (value = scale * code).
//
// Rows on demand: a page need not download the whole table. A model may
// start with no rows (Sparse) and receive them as row sets: a pack carries
// the rows its passages use, and a query's other pieces come in blocks of the
// table fetched when it needs them. Row set format (little-endian): "VROW",
// u32 version (1), u32 vocab, u32 dims, u32 dtype, u32 table id, u32 count,
// count u32 ids (strictly increasing), count rows as in the table, u32 crc32
// of everything before it. The table id (crc32 of the whole table file) ties
// every set to one table: rows of another table are refused, never mixed.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "core/util/bytes.h"

namespace vesper {

class StaticModel {
 public:
  // Throws kCorruptData for a malformed table.
  static std::unique_ptr<StaticModel> FromBytes(std::string_view bytes);
  // A model holding none of its rows yet; the first row set added fixes its
  // dtype and table id. Nothing can be embedded until the rows arrive.
  static std::unique_ptr<StaticModel> Sparse(uint32_t vocab, uint32_t dims);

  // Validates a row set completely, then adds the rows this model lacks.
  // kModelMismatch for a set of another table or shape, kCorruptData for a
  // damaged one; a bad set adds nothing.
  void AddRows(std::string_view bytes);
  // The whole table (the model's file) for a model loaded row by row, when
  // most rows are wanted: the same checks as a row set's.
  void AddTable(std::string_view bytes);
  // The row set of `ids` (sorted, distinct, all held), for a pack or a block.
  std::vector<uint8_t> RowSet(const std::vector<int32_t>& ids) const;
  // Checks a row set's framing and checksum (what a pack's loader can check
  // without the model); returns its row count.
  static uint32_t CheckRowSet(std::string_view bytes);

  bool Has(size_t id) const { return id < vocab_ && present_[id]; }
  size_t held() const { return held_; }
  uint32_t table_id() const { return table_id_; }
  // Throws MissingRows naming every id of `ids` (< vocab) not held.
  void Require(const int32_t* ids, size_t n) const;
  // A held row's L2 norm (0 for a row of zeros).
  float Norm(size_t id) const { return norms_[id]; }

  size_t vocab() const { return vocab_; }
  size_t dims() const { return dims_; }

  // ids of one text (no padding): writes a unit vector of dims() floats.
  // Ids outside the vocabulary are an error; an input that sums to zero
  // (e.g. only special tokens) too; rows not held are MissingRows.
  void Embed(const int32_t* ids, size_t n, float* out) const;
  // One piece's row (weight folded in) into dims() floats; a held id.
  void Row(size_t id, float* out) const;
  // dot(q, row(id)) for a query of dims() floats; a held id.
  float RowDot(const float* q, size_t id) const;

 private:
  size_t vocab_ = 0, dims_ = 0;
  uint32_t dtype_ = 0, table_id_ = 0;
  bool dtype_known_ = false;  // a sparse model learns it from its first row set
  size_t held_ = 0;
  std::vector<uint8_t> present_;  // per row
  std::vector<float> norms_;      // per held row
  std::vector<float> scratch_;    // one decoded row (SetNorm)

  void Allocate(uint32_t dtype);
  void ReadRow(ByteReader& r, size_t id);
  void SetNorm(size_t id);
  // An int8 table stays int8 in memory (a quarter of the floats it
  // decodes to: the default model's 8 MB were 33 MB, and decoding them was a
  // cold page's slowest step after the tokenizer); rows are scored from the
  // codes. A float table is kept as it is.
  std::vector<float> table_;    // dtype 0
  std::vector<int8_t> codes_;   // dtype 1: vocab x dims
  std::vector<float> scales_;   // dtype 1: per row
};

}  // namespace vesper
