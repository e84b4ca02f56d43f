#include "core/cpu_features.h"

namespace myblas {

// The compiler's CPU model (libgcc / compiler-rt) reports AVX, AVX2, FMA and AVX-512 features only
// when the OS also saves their registers (XCR0), which is what "usable" needs here.
CpuSimd cpu_simd() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return CpuSimd::none;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return CpuSimd::avx512;
  return CpuSimd::avx2_fma;
#else
  return CpuSimd::none;
#endif
}

const char* cpu_simd_name(CpuSimd s) {
  switch (s) {
    case CpuSimd::none: return "no AVX2/FMA";
    case CpuSimd::avx2_fma: return "AVX2 and FMA";
    case CpuSimd::avx512: return "AVX-512";
  }
  return "?";
}

}  // namespace myblas
