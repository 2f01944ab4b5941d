#include "core/index/quantize.h"

#include <algorithm>
#include <cmath>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace vesper {

#if defined(__wasm_simd128__)
namespace {
int32_t HorizontalSum(v128_t v) {
  return wasm_i32x4_extract_lane(v, 0) + wasm_i32x4_extract_lane(v, 1) + wasm_i32x4_extract_lane(v, 2) +
         wasm_i32x4_extract_lane(v, 3);
}
}  // namespace
#elif defined(__AVX2__) && defined(__FMA__)
namespace {
int32_t HorizontalSum(__m256i v) {
  __m128i h = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4E));
  h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xB1));
  return _mm_cvtsi128_si32(h);
}
}  // namespace
#endif

float QuantizeInt8(const float* v, size_t n, int8_t* codes) {
  float max_abs = 0.f;
  for (size_t i = 0; i < n; ++i) max_abs = std::max(max_abs, std::fabs(v[i]));
  float scale = max_abs > 0.f ? max_abs / 127.f : 1.f;
  float inv = 1.f / scale;
  for (size_t i = 0; i < n; ++i) codes[i] = static_cast<int8_t>(std::lrintf(v[i] * inv));
  return scale;
}

float DotInt8(const float* q, const int8_t* codes, size_t n, float scale) {
  size_t i = 0;
  float sum = 0.f;
#if defined(__wasm_simd128__)
  v128_t acc0 = wasm_f32x4_splat(0.f), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  for (; i + 16 <= n; i += 16) {
    v128_t c = wasm_v128_load(codes + i);
    v128_t lo = wasm_i16x8_extend_low_i8x16(c), hi = wasm_i16x8_extend_high_i8x16(c);
    acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(wasm_v128_load(q + i), wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(lo))));
    acc1 = wasm_f32x4_add(acc1, wasm_f32x4_mul(wasm_v128_load(q + i + 4), wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(lo))));
    acc2 = wasm_f32x4_add(acc2, wasm_f32x4_mul(wasm_v128_load(q + i + 8), wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(hi))));
    acc3 = wasm_f32x4_add(acc3, wasm_f32x4_mul(wasm_v128_load(q + i + 12), wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(hi))));
  }
  v128_t s = wasm_f32x4_add(wasm_f32x4_add(acc0, acc1), wasm_f32x4_add(acc2, acc3));
  sum = wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) + wasm_f32x4_extract_lane(s, 2) +
        wasm_f32x4_extract_lane(s, 3);
#elif defined(__AVX2__) && defined(__FMA__)
  __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0;
  for (; i + 16 <= n; i += 16) {
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + i));
    __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(c));
    __m256 hi = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(c, 8)));
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), lo, acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 8), hi, acc1);
  }
  __m256 s = _mm256_add_ps(acc0, acc1);
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
  sum = _mm_cvtss_f32(h);
#endif
  for (; i < n; ++i) sum += q[i] * codes[i];
  return sum * scale;
}

void AddScaledInt8(float* __restrict out, const int8_t* __restrict codes, size_t n, float scale) {
  size_t i = 0;
#if defined(__wasm_simd128__)
  // The WASM build's compiler converts the codes lane by lane: by hand, 16 at
  // a time, the same products and sums in the same order as the loop below.
  const v128_t s = wasm_f32x4_splat(scale);
  const auto add = [&](size_t at, v128_t quarter) {
    wasm_v128_store(out + at, wasm_f32x4_add(wasm_v128_load(out + at), wasm_f32x4_mul(s, wasm_f32x4_convert_i32x4(quarter))));
  };
  for (; i + 16 <= n; i += 16) {
    const v128_t c = wasm_v128_load(codes + i);
    const v128_t lo = wasm_i16x8_extend_low_i8x16(c), hi = wasm_i16x8_extend_high_i8x16(c);
    add(i, wasm_i32x4_extend_low_i16x8(lo));
    add(i + 4, wasm_i32x4_extend_high_i16x8(lo));
    add(i + 8, wasm_i32x4_extend_low_i16x8(hi));
    add(i + 12, wasm_i32x4_extend_high_i16x8(hi));
  }
#endif
  for (; i < n; ++i) out[i] += scale * codes[i];
}

float QuantizeQueryInt16(const float* q, size_t n, int16_t* q16) {
  float max = 0.f;
  for (size_t i = 0; i < n; ++i) max = std::max(max, std::fabs(q[i]));
  if (max == 0.f) {
    for (size_t i = 0; i < n; ++i) q16[i] = 0;
    return 0.f;
  }
  // 2^14 - 1 keeps 127 * q16 * 2 per lane, summed over 4096 dims, inside int32.
  const float inv = 16383.f / max;
  for (size_t i = 0; i < n; ++i) q16[i] = static_cast<int16_t>(std::lrintf(q[i] * inv));
  return max / 16383.f;
}

int32_t DotInt8Int16(const int16_t* q16, const int8_t* codes, size_t n) {
  size_t i = 0;
  int32_t sum = 0;
#if defined(__wasm_simd128__)
  v128_t acc0 = wasm_i32x4_splat(0), acc1 = acc0;
  for (; i + 16 <= n; i += 16) {
    v128_t c = wasm_v128_load(codes + i);
    acc0 = wasm_i32x4_add(acc0, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(c), wasm_v128_load(q16 + i)));
    acc1 = wasm_i32x4_add(acc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(c), wasm_v128_load(q16 + i + 8)));
  }
  sum = HorizontalSum(wasm_i32x4_add(acc0, acc1));
#elif defined(__AVX2__) && defined(__FMA__)
  __m256i acc = _mm256_setzero_si256();
  for (; i + 16 <= n; i += 16) {
    __m256i c = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + i)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(c, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q16 + i))));
  }
  sum = HorizontalSum(acc);
#endif
  for (; i < n; ++i) sum += static_cast<int32_t>(q16[i]) * codes[i];
  return sum;
}

int32_t DotInt8Int8(const int8_t* a, const int8_t* b, size_t n) {
  size_t i = 0;
  int32_t sum = 0;
#if defined(__wasm_simd128__)
  v128_t acc0 = wasm_i32x4_splat(0), acc1 = acc0;
  for (; i + 16 <= n; i += 16) {
    v128_t x = wasm_v128_load(a + i), y = wasm_v128_load(b + i);
    acc0 = wasm_i32x4_add(acc0, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(x), wasm_i16x8_extend_low_i8x16(y)));
    acc1 = wasm_i32x4_add(acc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(x), wasm_i16x8_extend_high_i8x16(y)));
  }
  sum = HorizontalSum(wasm_i32x4_add(acc0, acc1));
#elif defined(__AVX2__) && defined(__FMA__)
  __m256i acc = _mm256_setzero_si256();
  for (; i + 16 <= n; i += 16) {
    __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    __m256i y = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, y));
  }
  sum = HorizontalSum(acc);
#endif
  for (; i < n; ++i) sum += static_cast<int32_t>(a[i]) * b[i];
  return sum;
}

void SignBits(const float* v, size_t n, uint64_t* bits) {
  for (size_t w = 0; w < BinaryWords(n); ++w) bits[w] = 0;
  for (size_t i = 0; i < n; ++i) {
    if (v[i] > 0.f) bits[i / 64] |= uint64_t{1} << (i % 64);
  }
}

uint32_t Hamming(const uint64_t* a, const uint64_t* b, size_t words) {
  uint32_t d = 0;
  for (size_t w = 0; w < words; ++w) d += static_cast<uint32_t>(__builtin_popcountll(a[w] ^ b[w]));
  return d;
}

}  // namespace vesper
