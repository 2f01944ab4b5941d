// A static embedding model run by the core itself: a vector per token
// (per-piece weights folded in), summed over the tokens and L2-normalised,
// i.e. a weighted mean up to scale. Needs no ONNX Runtime.
//
// Format (little-endian): "VSTM", u32 version (1), u32 vocab, u32 dims,
// u32 dtype, then vocab rows: dtype 0 stores dims f32 per row, dtype 1 an
// f32 scale followed by dims int8 (value = scale * code).
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace vesper {

class StaticModel {
 public:
  // Throws kCorruptData for a malformed table.
  static std::unique_ptr<StaticModel> FromBytes(std::string_view bytes);

  size_t vocab() const { return vocab_; }
  size_t dims() const { return dims_; }

  // ids of one text (no padding): writes a unit vector of dims() floats.
  // Ids outside the vocabulary are an error; an input that sums to zero
  // (e.g. only special tokens) too.
  void Embed(const int32_t* ids, size_t n, float* out) const;
  // One piece's row (weight folded in) into dims() floats; id < vocab().
  void Row(size_t id, float* out) const;
  // dot(q, row(id)) for a query of dims() floats; id < vocab().
  float RowDot(const float* q, size_t id) const;

 private:
  size_t vocab_ = 0, dims_ = 0;
  // An int8 table stays int8 in memory (a quarter of the floats it
  // decodes to: the default model's 8 MB were 33 MB, and decoding them was a
  // cold page's slowest step after the tokenizer); rows are scored from the
  // codes. A float table is kept as it is.
  std::vector<float> table_;    // dtype 0
  std::vector<int8_t> codes_;   // dtype 1: vocab x dims
  std::vector<float> scales_;   // dtype 1: per row
};

}  // namespace vesper
