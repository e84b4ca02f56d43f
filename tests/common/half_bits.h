// Bit-level helpers for the binary16 tests (header only: also used by tests built from sources).
#pragma once
#include <cstdint>
#include <cstring>

namespace mbtest {

inline bool half_is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0; }

inline float from_bits(uint32_t x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

inline uint32_t bits_of(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}

}  // namespace mbtest
