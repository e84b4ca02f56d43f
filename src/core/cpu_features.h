// What vector instructions this CPU and its operating system let a program use.
#pragma once

namespace myblas {

enum class CpuSimd {
  none,      // not x86-64, or neither of the below
  avx2_fma,  // AVX2 and FMA3, with the OS saving the ymm state
  avx512,    // also AVX-512 F, CD, BW, DQ and VL, with the OS saving the zmm state
};

CpuSimd cpu_simd();
const char* cpu_simd_name(CpuSimd s);

}  // namespace myblas
