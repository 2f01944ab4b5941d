// Compressed vector codes: int8 with one scale per vector, and 1-bit sign
// codes compared by Hamming distance. The kernels score an fp32 query
// against codes directly, without decoding rows.
#pragma once
#include <cstddef>
#include <cstdint>

namespace vesper {

// codes[i] = round(v[i] / scale), scale = max|v| / 127. Returns the scale.
float QuantizeInt8(const float* v, size_t n, int8_t* codes);
// scale * dot(q, codes)
float DotInt8(const float* q, const int8_t* codes, size_t n, float scale);
// out += scale * codes (a static model's row added to a text's sum): the same
// floats on every build target.
void AddScaledInt8(float* out, const int8_t* codes, size_t n, float scale);
// The scan's fast path: the query quantised once to int16 (returns its scale,
// value = scale * q16), then integer dot products against int8 codes. Exact
// to about 1e-4 of the float path; callers rescore their final hits with DotInt8.
float QuantizeQueryInt16(const float* q, size_t n, int16_t* q16);
int32_t DotInt8Int16(const int16_t* q16, const int8_t* codes, size_t n);
// Two int8 codes against each other (an HNSW graph built over int8 rows):
// exact integer arithmetic, so every build target agrees to the bit.
int32_t DotInt8Int8(const int8_t* a, const int8_t* b, size_t n);

inline size_t BinaryWords(size_t dims) { return (dims + 63) / 64; }
// Bit i set when v[i] > 0.
void SignBits(const float* v, size_t n, uint64_t* bits);
uint32_t Hamming(const uint64_t* a, const uint64_t* b, size_t words);

}  // namespace vesper
