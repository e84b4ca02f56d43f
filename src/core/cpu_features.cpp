#include "core/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace myblas {

#if defined(__x86_64__) || defined(__i386__)
namespace {
unsigned long long xgetbv0() {
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}
}  // namespace

CpuSimd cpu_simd() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return CpuSimd::none;
  const bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28);
  if (!fma || !osxsave || !avx) return CpuSimd::none;
  const unsigned long long xcr0 = xgetbv0();
  if ((xcr0 & 0x6) != 0x6) return CpuSimd::none;  // xmm and ymm state
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return CpuSimd::none;
  if (!(b & (1u << 5))) return CpuSimd::none;  // AVX2
  const unsigned avx512 = (1u << 16) | (1u << 17) | (1u << 28) | (1u << 30) | (1u << 31);  // F DQ CD BW VL
  if ((b & avx512) == avx512 && (xcr0 & 0xE0) == 0xE0) return CpuSimd::avx512;  // opmask, zmm 0-15, 16-31
  return CpuSimd::avx2_fma;
}
#else
CpuSimd cpu_simd() { return CpuSimd::none; }
#endif

const char* cpu_simd_name(CpuSimd s) {
  switch (s) {
    case CpuSimd::none: return "no AVX2/FMA";
    case CpuSimd::avx2_fma: return "AVX2 and FMA";
    case CpuSimd::avx512: return "AVX-512";
  }
  return "?";
}

}  // namespace myblas
