// The SGEMM kernel table: names, what each kernel can run, the shape rule that picks a
// production kernel, where it beats cuBLAS, and the launch switch. Kernels live one per file
// beside this one.

#include "kernels/sgemm.h"
#include "kernels/kernel_table.h"
#include "kernels/sgemm/common.cuh"

namespace myblas {

namespace {

constexpr KernelEntry<SgemmKernel> kTable[kSgemmKernelCount] = {
    {SgemmKernel::naive, "naive_32x32", false},
    {SgemmKernel::coalesced, "coalesced_32x32", false},
    {SgemmKernel::smem_tiles, "smem_tiles_32x32x32", false},
    {SgemmKernel::blocktile_1d, "blocktile_1d_64x64x8", false},
    {SgemmKernel::blocktile_2d, "blocktile_2d_128x128x8", false},
    {SgemmKernel::vectorized, "vectorized_128x128x8", false},
    {SgemmKernel::warptile, "warptile_128x128x16", false},
    {SgemmKernel::pipelined_s3, "pipelined_128x128x16_s3", true},
    {SgemmKernel::pipelined_s4, "pipelined_128x128x16_s4", true},
    {SgemmKernel::skinny_r16, "skinny_r16", true},
};

}  // namespace

const char* sgemm_kernel_name(SgemmKernel k) { return kernel_table_name(kTable, k); }

bool sgemm_kernel_from_name(const char* name, SgemmKernel* out) { return kernel_table_from_name(kTable, name, out); }

bool sgemm_kernel_is_production(SgemmKernel k) { return kernel_table_production(kTable, k); }

const char* sgemm_can_implement(SgemmKernel k, const GemmProblem& p) {
  if (p.routine != Routine::sgemm) return "not an SGEMM problem";
  if (p.m < 1 || p.n < 1 || p.k < 1) return "m, n and k must be >= 1 (empty problems are quick returns)";
  if (p.alpha == 0.f) return "alpha == 0 is a scaling of C, handled by the caller";
  if (p.lda < (p.a_rows() > 1 ? p.a_rows() : 1)) return "lda too small";
  if (p.ldb < (p.b_rows() > 1 ? p.b_rows() : 1)) return "ldb too small";
  if (p.ldc < p.m) return "ldc < m";
  if (!p.a || !p.b || !p.c) return "null operand";
  const bool nn = p.ta == Op::N && p.tb == Op::N;
  switch (k) {
    case SgemmKernel::naive:
    case SgemmKernel::pipelined_s3:
    case SgemmKernel::pipelined_s4:
      return nullptr;
    case SgemmKernel::coalesced:
    case SgemmKernel::smem_tiles:
    case SgemmKernel::blocktile_1d:
    case SgemmKernel::blocktile_2d:
      return nn ? nullptr : "a ladder rung for NN only";
    case SgemmKernel::vectorized:
    case SgemmKernel::warptile:
      if (!nn) return "a ladder rung for NN only";
      if (!sgemm_detail::aligned16(p.a) || !sgemm_detail::aligned16(p.b) || p.lda % 4 || p.ldb % 4)
        return "float4 loads need 16-byte aligned A and B and lda, ldb multiples of 4";
      return nullptr;
    case SgemmKernel::skinny_r16:
      return p.m <= 16 || p.n <= 16 ? nullptr : "for min(m, n) <= 16 only";
  }
  return "unknown kernel";
}

// Measured on the H100 (bench/results/h100-sgemm-2026-11-22.md): skinny_r16 is 3-8x faster than
// the tiled kernels whenever m or n is <= 16 (every transpose); otherwise the 4-stage pipelined
// kernel, within noise of 3 stages everywhere (0.80 vs 0.79 of cuBLAS at 4096^3 NN).
SgemmKernel sgemm_choose(const GemmProblem& p) {
  if (p.m <= 16 || p.n <= 16) return SgemmKernel::skinny_r16;
  return SgemmKernel::pipelined_s4;
}

// Only where the committed benchmarks measured the chosen kernel faster than cublasSgemm in every
// run (bench/results/h100-sgemm-2026-11-22.md, h100-sgemm-skinny-v2/v3-2026-11-22.csv and the
// --quick run of the session note): skinny_r16 on NN 4096x16x4096 (1.17-1.31x), NN 16x4096x4096
// (1.02-1.14x since the conflict-free S layout), TN 4096x16x4096 (1.13x, 1.13x) and TT 4096x16x4096
// (1.07x, 1.10x). Everywhere else measured it is slower or mixed (large squares 0.70-0.87x,
// k = 64 0.81-0.86x, NT both and TT m = 16 0.76-0.94x, TN m = 16 0.92x and 1.07x), and unmeasured
// shapes are not claimed.
bool sgemm_kernel_beats_cublas(const GemmProblem& p) {
  if (p.k != 4096) return false;
  const bool nn = p.ta == Op::N && p.tb == Op::N;
  if (p.m == 4096 && p.n == 16) return nn || (p.ta == Op::T && (p.tb == Op::N || p.tb == Op::T));
  if (p.m == 16 && p.n == 4096) return nn;
  return false;
}

cudaError_t sgemm_run(SgemmKernel k, const GemmProblem& p, cudaStream_t s) {
  using namespace sgemm_detail;
  if (sgemm_can_implement(k, p)) return cudaErrorInvalidValue;
  switch (k) {
    case SgemmKernel::naive: return launch_naive(p, s);
    case SgemmKernel::coalesced: return launch_coalesced(p, s);
    case SgemmKernel::smem_tiles: return launch_smem_tiles(p, s);
    case SgemmKernel::blocktile_1d: return launch_blocktile_1d(p, s);
    case SgemmKernel::blocktile_2d: return launch_blocktile_2d(p, s);
    case SgemmKernel::vectorized: return launch_vectorized(p, s);
    case SgemmKernel::warptile: return launch_warptile(p, s);
    case SgemmKernel::pipelined_s3: return launch_pipelined(p, 3, s);
    case SgemmKernel::pipelined_s4: return launch_pipelined(p, 4, s);
    case SgemmKernel::skinny_r16: return launch_skinny_r16(p, s);
  }
  return cudaErrorInvalidValue;
}

}  // namespace myblas
