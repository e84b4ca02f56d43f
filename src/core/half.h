// binary16 <-> binary32 conversion on the host (round to nearest, ties to even).
#pragma once
#include <cstddef>
#include <cstdint>

namespace myblas {

uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

// The same over n contiguous elements: with the CPU's F16C instructions where it has them
// (8 at a time; IEEE round to nearest even, so bitwise the scalar results except NaN payloads,
// which stay NaN with their sign), else the scalar functions.
void halves_to_floats(const uint16_t* src, float* dst, size_t n);
void floats_to_halves(const float* src, uint16_t* dst, size_t n);

// bfloat16 is the upper half of a binary32: widening is exact (NaN stays NaN, its payload too).
inline float bf16_to_float(uint16_t h) {
  const uint32_t x = uint32_t(h) << 16;
  float f;
  __builtin_memcpy(&f, &x, sizeof f);
  return f;
}
void bf16s_to_floats(const uint16_t* src, float* dst, size_t n);

}  // namespace myblas
