// The bulk binary16 conversions (core/half.cpp: F16C where the CPU has it) give what the scalar
// ones give (exhaustively tested in tests/interface/test_half.cpp): every binary16 value widened,
// random and special floats narrowed, at every length 0-40 and start offset 0-7 (the vector body
// and the scalar tail), NaN as NaN with its sign.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "common/half_bits.h"
#include "core/half.h"

namespace {

using mbtest::from_bits;
using mbtest::half_is_nan;
uint32_t bits(float f) { return mbtest::bits_of(f); }

TEST(HalfBulk, WideningMatchesScalarForEveryHalf) {
  std::vector<uint16_t> h(65536 + 7);
  for (uint32_t i = 0; i < 65536; ++i) h[i + 3] = uint16_t(i);
  std::vector<float> f(h.size(), -1.f);
  myblas::halves_to_floats(h.data() + 3, f.data() + 3, 65536);  // (unaligned on purpose)
  for (uint32_t i = 0; i < 65536; ++i) {
    const float want = myblas::half_to_float(uint16_t(i)), got = f[i + 3];
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << "half 0x" << i;
      ASSERT_EQ(std::signbit(got), std::signbit(want)) << std::hex << "half 0x" << i;
    } else {
      ASSERT_EQ(bits(got), bits(want)) << std::hex << "half 0x" << i;
    }
  }
  EXPECT_EQ(f[2], -1.f);
  EXPECT_EQ(f[65536 + 3], -1.f);
}

TEST(HalfBulk, NarrowingMatchesScalar) {
  std::mt19937_64 rng(20261126);
  std::vector<float> src;
  const float specials[] = {0.f, -0.f, 65504.f, 65519.99f, 65520.f, -65520.f, 1e30f, -1e-30f,
                            std::ldexp(1.f, -24), std::ldexp(1.f, -25), std::ldexp(1.5f, -25), std::ldexp(1.f, -14),
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), from_bits(0x7f800001u), from_bits(0xffc00000u),
                            std::numeric_limits<float>::denorm_min(), 1.f + std::ldexp(1.f, -11), 2049.f};
  src.assign(std::begin(specials), std::end(specials));
  for (int i = 0; i < 2000000; ++i) {
    const int kind = i % 3;
    if (kind == 0) src.push_back(from_bits(uint32_t(rng())));
    else if (kind == 1) src.push_back(std::ldexp(float(int64_t(rng() % 2000001) - 1000000) / 1e6f, -int(rng() % 30)));
    else src.push_back(float(int64_t(rng() % 140001) - 70000) + float(rng() % 1024) / 1024.f);
  }
  std::vector<uint16_t> got(src.size());
  myblas::floats_to_halves(src.data(), got.data(), src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    const uint16_t want = myblas::float_to_half(src[i]);
    if (std::isnan(src[i])) {
      ASSERT_TRUE(half_is_nan(got[i])) << std::hex << "float bits 0x" << bits(src[i]);
      ASSERT_EQ(got[i] & 0x8000u, want & 0x8000u);
    } else {
      ASSERT_EQ(got[i], want) << std::hexfloat << src[i] << std::hex << " bits 0x" << bits(src[i]);
    }
  }
}

TEST(HalfBulk, EveryLengthAndOffsetWritesExactlyItsElements) {
  std::mt19937_64 rng(7);
  for (size_t off = 0; off < 8; ++off)
    for (size_t n = 0; n <= 40; ++n) {
      std::vector<float> f(off + n + 8), fw(off + n + 8, 123.f);
      std::vector<uint16_t> h(off + n + 8, 0xABCDu), hw(off + n + 8, 0x1234u);
      for (size_t i = 0; i < n; ++i) {
        f[off + i] = float(int(rng() % 2001) - 1000) / 64.f;
        h[off + i] = uint16_t(rng() & 0x7bffu);  // finite
      }
      myblas::floats_to_halves(f.data() + off, hw.data() + off, n);
      myblas::halves_to_floats(h.data() + off, fw.data() + off, n);
      for (size_t i = 0; i < hw.size(); ++i) {
        const bool in = i >= off && i < off + n;
        ASSERT_EQ(hw[i], in ? myblas::float_to_half(f[i]) : uint16_t(0x1234u)) << "off " << off << " n " << n << " i " << i;
        ASSERT_EQ(bits(fw[i]), bits(in ? myblas::half_to_float(h[i]) : 123.f)) << "off " << off << " n " << n;
      }
    }
}

}  // namespace
