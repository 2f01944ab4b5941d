// Dot products, the inner loop of every vector search in vesper. One scalar
// definition plus a SIMD body per target: WASM SIMD128 under emcc, AVX2+FMA
// or SSE natively. Everything else calls these.
#pragma once
#include <cstddef>
#include <cstdint>

namespace vesper {

float Dot(const float* a, const float* b, size_t n);

// out[i] = dot(q, rows + i * n) for `count` consecutive rows.
void DotRows(const float* q, const float* rows, size_t count, size_t n, float* out);

// Scales v to unit length in place; returns the original norm (0 leaves v as is).
float Normalize(float* v, size_t n);

// Name of the kernel compiled in, for reports ("wasm-simd128", "avx2-fma", ...).
const char* DotKernelName();

}  // namespace vesper
