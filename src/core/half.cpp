#include "core/half.h"

#include <cmath>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "myblas.h"

namespace myblas {

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u)  // Inf, or NaN kept quiet with its top payload bits
    return uint16_t(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u | ((ax >> 13) & 0x3ffu) : 0u));
  if (ax >= 0x477ff000u)  // >= 65520: past the midpoint above 65504, rounds to Inf
    return uint16_t(sign | 0x7c00u);
  if (ax < 0x38800000u) {  // below 2^-14: a binary16 subnormal (or zero)
    if (ax <= 0x33000000u) return uint16_t(sign);  // <= 2^-25 rounds to zero (tie to even)
    const uint32_t e = ax >> 23;
    const uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - e;  // units of 2^-24
    uint32_t q = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) ++q;  // may carry into the smallest normal
    return uint16_t(sign | q);
  }
  uint32_t h = (ax - 0x38000000u) >> 13;  // rebias the exponent from 127 to 15
  const uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carries into the exponent correctly
  return uint16_t(sign | h);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  uint32_t x;
  if (e == 0) {
    float v = std::ldexp(float(m), -24);  // exact
    return sign ? -v : v;
  }
  if (e == 31) x = sign | 0x7f800000u | (m << 13);
  else x = sign | ((e + 112u) << 23) | (m << 13);
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

namespace {

#if defined(__x86_64__)
__attribute__((target("avx,f16c"))) void widen_f16c(const uint16_t* src, float* dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
  for (; i < n; ++i) dst[i] = half_to_float(src[i]);
}

__attribute__((target("avx,f16c"))) void narrow_f16c(const float* src, uint16_t* dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  for (; i < n; ++i) dst[i] = float_to_half(src[i]);
}

bool has_f16c() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  }();
  return yes;
}
#endif

}  // namespace

void halves_to_floats(const uint16_t* src, float* dst, size_t n) {
#if defined(__x86_64__)
  if (has_f16c()) return widen_f16c(src, dst, n);
#endif
  for (size_t i = 0; i < n; ++i) dst[i] = half_to_float(src[i]);
}

void floats_to_halves(const float* src, uint16_t* dst, size_t n) {
#if defined(__x86_64__)
  if (has_f16c()) return narrow_f16c(src, dst, n);
#endif
  for (size_t i = 0; i < n; ++i) dst[i] = float_to_half(src[i]);
}

void bf16s_to_floats(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = bf16_to_float(src[i]);  // (vectorised by the compiler)
}

}  // namespace myblas

extern "C" {
__attribute__((visibility("default"))) uint16_t myblas_float_to_half(float f) {
  return myblas::float_to_half(f);
}
__attribute__((visibility("default"))) float myblas_half_to_float(uint16_t h) {
  return myblas::half_to_float(h);
}
}
