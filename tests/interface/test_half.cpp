// myblas_float_to_half / myblas_half_to_float: exact widening, round-to-nearest-even
// narrowing, and the special values, checked exhaustively over binary16 and against the
// compiler's own _Float16 conversion on random floats.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/half_bits.h"
#include "iface_common.h"

namespace iface {
namespace {

using mbtest::from_bits;
using mbtest::half_is_nan;

// The value of a binary16 pattern from its definition, independent of the library's decoding.
double half_value(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double s = (h & 0x8000u) ? -1.0 : 1.0;
  if (e == 0x1f) return m ? std::numeric_limits<double>::quiet_NaN() : s * INFINITY;
  if (e == 0) return s * std::ldexp(double(m), -24);
  return s * std::ldexp(1024.0 + m, e - 25);
}

TEST(HalfConversion, WideningIsExact) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const float f = myblas_half_to_float(uint16_t(h));
    const double want = half_value(uint16_t(h));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << "half 0x" << h;
      continue;
    }
    ASSERT_EQ(double(f), want) << std::hex << "half 0x" << h;
    ASSERT_EQ(std::signbit(f), bool(h & 0x8000u)) << std::hex << "sign of half 0x" << h;
  }
}

TEST(HalfConversion, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const uint16_t back = myblas_float_to_half(myblas_half_to_float(uint16_t(h)));
    if (half_is_nan(uint16_t(h))) {
      ASSERT_TRUE(half_is_nan(back)) << std::hex << "NaN half 0x" << h << " came back as 0x" << back;
      ASSERT_EQ(back & 0x8000u, h & 0x8000u) << std::hex << "sign of NaN half 0x" << h;
    } else {
      ASSERT_EQ(back, h) << std::hex << "half 0x" << h;
    }
  }
}

// Between each pair of neighbouring binary16 values (65504 and the overflow threshold
// 65536 included), the midpoint goes to the even one and anything off it goes to the
// nearer: this covers subnormals, the subnormal/normal seam and the overflow to Inf.
TEST(HalfConversion, RoundsToNearestEvenAtEveryMidpoint) {
  for (uint32_t h = 0; h < 0x7c00u; ++h) {
    for (uint32_t sign : {0u, 0x8000u}) {
      const double lo = half_value(uint16_t(h));
      const double hi = h == 0x7bffu ? 65536.0 : half_value(uint16_t(h + 1));
      const float mid = float((lo + hi) / 2);  // 12 significant bits: exact in FP32
      ASSERT_EQ(double(mid), (lo + hi) / 2);
      const float s = sign ? -1.f : 1.f;
      const uint16_t down = uint16_t(sign | h), up = uint16_t(sign | (h + 1));
      const uint16_t even = (h & 1u) ? up : down;
      ASSERT_EQ(myblas_float_to_half(s * float(lo)), down) << std::hex << "exact half 0x" << down;
      ASSERT_EQ(myblas_float_to_half(s * mid), even) << "midpoint " << s * mid;
      ASSERT_EQ(myblas_float_to_half(s * std::nextafter(mid, 0.f)), down)
          << "just below the midpoint " << s * mid;
      ASSERT_EQ(myblas_float_to_half(s * std::nextafter(mid, INFINITY)), up)
          << "just above the midpoint " << s * mid;
    }
  }
}

TEST(HalfConversion, SpecialValues) {
  EXPECT_EQ(myblas_float_to_half(INFINITY), 0x7c00);
  EXPECT_EQ(myblas_float_to_half(-INFINITY), 0xfc00);
  EXPECT_EQ(myblas_float_to_half(FLT_MAX), 0x7c00);
  EXPECT_EQ(myblas_float_to_half(-1e10f), 0xfc00);
  EXPECT_EQ(myblas_float_to_half(65504.f), 0x7bff);
  EXPECT_EQ(myblas_float_to_half(0.f), 0x0000);
  EXPECT_EQ(myblas_float_to_half(-0.f), 0x8000);
  EXPECT_EQ(myblas_float_to_half(FLT_TRUE_MIN), 0x0000);
  EXPECT_EQ(myblas_float_to_half(-1e-10f), 0x8000);
  EXPECT_EQ(myblas_float_to_half(1.f), 0x3c00);
  EXPECT_EQ(myblas_float_to_half(-2.f), 0xc000);
  EXPECT_TRUE(half_is_nan(myblas_float_to_half(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload sits only in the low bits must not turn into Inf.
  EXPECT_TRUE(half_is_nan(myblas_float_to_half(from_bits(0x7f800001u))));
  EXPECT_TRUE(half_is_nan(myblas_float_to_half(from_bits(0xffc00000u))));
  EXPECT_TRUE(std::isnan(myblas_half_to_float(0x7e00)));
  EXPECT_TRUE(std::isnan(myblas_half_to_float(0x7c01)));
  EXPECT_EQ(myblas_half_to_float(0x0001), std::ldexp(1.f, -24));
  EXPECT_EQ(myblas_half_to_float(0x0400), std::ldexp(1.f, -14));
}

#ifdef __FLT16_MAX__
// GCC/Clang's float -> _Float16 conversion rounds to nearest even as IEEE 754 says; compare
// on random bit patterns (every exponent) and on the ranges HGEMM data live in.
TEST(HalfConversion, MatchesCompilerFloat16) {
  const uint64_t seed = mbtest::test_seed();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> wide(-70000.f, 70000.f);
  for (int i = 0; i < 3000000; ++i) {
    float f;
    if (i % 3 == 0) f = from_bits(uint32_t(rng()));
    else if (i % 3 == 1) f = mbtest::uniform(rng) * std::ldexp(1.f, -int(rng() % 30));
    else f = wide(rng);
    const _Float16 c = static_cast<_Float16>(f);
    uint16_t want;
    std::memcpy(&want, &c, sizeof want);
    const uint16_t got = myblas_float_to_half(f);
    if (std::isnan(f)) {
      ASSERT_TRUE(half_is_nan(got)) << "float bits " << std::hex << *reinterpret_cast<uint32_t*>(&f);
      continue;
    }
    ASSERT_EQ(got, want) << std::hexfloat << "float " << f << " | " << run_context();
  }
}
#endif

}  // namespace
}  // namespace iface
