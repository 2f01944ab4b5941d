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

// q against four rows at once: one pass over q feeds four independent load
// streams, so the cache misses of scattered rows (an HNSW neighbour list)
// overlap instead of queueing. WASM has no prefetch; this is its substitute.
inline void DotKernel4(const float* q, const float* const* rows, size_t n, float* out) {
  const float *a = rows[0], *b = rows[1], *c = rows[2], *d = rows[3];
  size_t i = 0;
  float sa = 0.f, sb = 0.f, sc = 0.f, sd = 0.f;
#if defined(__wasm_simd128__)
  v128_t va = wasm_f32x4_splat(0.f), vb = va, vc = va, vd = va;
  for (; i + 4 <= n; i += 4) {
    v128_t x = wasm_v128_load(q + i);
    va = wasm_f32x4_add(va, wasm_f32x4_mul(x, wasm_v128_load(a + i)));
    vb = wasm_f32x4_add(vb, wasm_f32x4_mul(x, wasm_v128_load(b + i)));
    vc = wasm_f32x4_add(vc, wasm_f32x4_mul(x, wasm_v128_load(c + i)));
    vd = wasm_f32x4_add(vd, wasm_f32x4_mul(x, wasm_v128_load(d + i)));
  }
  auto hsum = [](v128_t v) {
    return wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 2) +
           wasm_f32x4_extract_lane(v, 3);
  };
  sa = hsum(va), sb = hsum(vb), sc = hsum(vc), sd = hsum(vd);
#elif defined(VESPER_AVX2)
  __m256 va = _mm256_setzero_ps(), vb = va, vc = va, vd = va;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(q + i);
    va = _mm256_fmadd_ps(x, _mm256_loadu_ps(a + i), va);
    vb = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + i), vb);
    vc = _mm256_fmadd_ps(x, _mm256_loadu_ps(c + i), vc);
    vd = _mm256_fmadd_ps(x, _mm256_loadu_ps(d + i), vd);
  }
  auto hsum = [](__m256 v) {
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
  };
  sa = hsum(va), sb = hsum(vb), sc = hsum(vc), sd = hsum(vd);
#elif defined(VESPER_SSE)
  __m128 va = _mm_setzero_ps(), vb = va, vc = va, vd = va;
  for (; i + 4 <= n; i += 4) {
    __m128 x = _mm_loadu_ps(q + i);
    va = _mm_add_ps(va, _mm_mul_ps(x, _mm_loadu_ps(a + i)));
    vb = _mm_add_ps(vb, _mm_mul_ps(x, _mm_loadu_ps(b + i)));
    vc = _mm_add_ps(vc, _mm_mul_ps(x, _mm_loadu_ps(c + i)));
    vd = _mm_add_ps(vd, _mm_mul_ps(x, _mm_loadu_ps(d + i)));
  }
  auto hsum = [](__m128 h) {
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
  };
  sa = hsum(va), sb = hsum(vb), sc = hsum(vc), sd = hsum(vd);
#endif
  for (; i < n; ++i) {
    sa += q[i] * a[i];
    sb += q[i] * b[i];
    sc += q[i] * c[i];
    sd += q[i] * d[i];
  }
  out[0] = sa, out[1] = sb, out[2] = sc, out[3] = sd;
}

}  // namespace vesper
