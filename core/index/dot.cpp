#include "core/index/dot.h"

#include <cmath>

#include "core/index/dot_kernel.h"

namespace vesper {

float Dot(const float* a, const float* b, size_t n) { return DotKernel(a, b, n); }

void DotRows(const float* q, const float* rows, size_t count, size_t n, float* out) {
  for (size_t r = 0; r < count; ++r) out[r] = DotKernel(q, rows + r * n, n);
}

float Normalize(float* v, size_t n) {
  float norm = std::sqrt(Dot(v, v, n));
  if (norm > 0.f) {
    float inv = 1.f / norm;
    for (size_t i = 0; i < n; ++i) v[i] *= inv;
  }
  return norm;
}

const char* DotKernelName() {
#if defined(__wasm_simd128__)
  return "wasm-simd128";
#elif defined(VESPER_AVX2)
  return "avx2-fma";
#elif defined(VESPER_SSE)
  return "sse";
#else
  return "scalar";
#endif
}

}  // namespace vesper
