// The dot-product kernel itself, inline so that hot callers (the HNSW
// distance function, the row scan) get it without a call per vector.
#pragma once
#include <cstddef>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define VESPER_AVX2 1
#elif defined(__SSE__)
#include <xmmintrin.h>
#define VESPER_SSE 1
#endif

namespace vesper {

inline float DotKernel(const float* a, const float* b, size_t n) {
  size_t i = 0;
  float sum = 0.f;
#if defined(__wasm_simd128__)
  // Four independent accumulators hide the add latency.
  v128_t s0 = wasm_f32x4_splat(0.f), s1 = s0, s2 = s0, s3 = s0;
  for (; i + 16 <= n; i += 16) {
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
    s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(wasm_v128_load(a + i + 4), wasm_v128_load(b + i + 4)));
    s2 = wasm_f32x4_add(s2, wasm_f32x4_mul(wasm_v128_load(a + i + 8), wasm_v128_load(b + i + 8)));
    s3 = wasm_f32x4_add(s3, wasm_f32x4_mul(wasm_v128_load(a + i + 12), wasm_v128_load(b + i + 12)));
  }
  for (; i + 4 <= n; i += 4) s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
  v128_t s = wasm_f32x4_add(wasm_f32x4_add(s0, s1), wasm_f32x4_add(s2, s3));
  sum = wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) + wasm_f32x4_extract_lane(s, 2) +
        wasm_f32x4_extract_lane(s, 3);
#elif defined(VESPER_AVX2)
  __m256 s0 = _mm256_setzero_ps(), s1 = s0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
  }
  for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  __m256 s = _mm256_add_ps(s0, s1);
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
  sum = _mm_cvtss_f32(h);
#elif defined(VESPER_SSE)
  __m128 s0 = _mm_setzero_ps(), s1 = s0;
  for (; i + 8 <= n; i += 8) {
    s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
    s1 = _mm_add_ps(s1, _mm_mul_ps(_mm_loadu_ps(a + i + 4), _mm_loadu_ps(b + i + 4)));
  }
  __m128 h = _mm_add_ps(s0, s1);
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
  sum = _mm_cvtss_f32(h);
#endif
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace vesper
