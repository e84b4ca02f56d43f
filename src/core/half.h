// binary16 <-> binary32 conversion on the host (round to nearest, ties to even).
#pragma once
#include <cstddef>
#include <cstdint>

namespace myblas {

uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

}  // namespace myblas
