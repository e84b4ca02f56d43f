// The HGEMM kernel table: names, what each kernel can run, the shape rule that picks a
// production kernel, and the launch switch. Where our kernel beats cuBLAS is the measured
// dispatch table's to say (data/dispatch-sm_XY.csv). Kernels live one per file beside this one.

#include "kernels/hgemm.h"
#include "kernels/kernel_table.h"
#include "kernels/hgemm/common.cuh"
#include "kernels/hgemm/wgmma_splitk_plan.h"  // wsplit::short_mn_major
#include "kernels/cluster.cuh"  // device_sm_count

#include <algorithm>
#include <cstdint>

namespace myblas {

namespace {

constexpr KernelEntry<HgemmKernel> kTable[kHgemmKernelCount] = {
    {HgemmKernel::wmma, "wmma_128x128x32", false},
    {HgemmKernel::mma_sync, "mma_sync_128x256x32_s4", false},
    {HgemmKernel::mma_sync_128x256x64, "mma_sync_128x256x64_s3", true},
    {HgemmKernel::mma_sync_128x128x64, "mma_sync_128x128x64_s3", true},
    {HgemmKernel::wgmma_tma, "wgmma_tma_128x256x64_s4", true},
    {HgemmKernel::splitk_64x128, "splitk_cluster_64x128x64_s3", true},
    {HgemmKernel::splitk_128x64, "splitk_cluster_128x64x64_s3", true},
    {HgemmKernel::skinny_stream, "skinny_stream_64", true},
    {HgemmKernel::wgmma_splitk, "wgmma_splitk_64xN", true},
};

}  // namespace

const char* hgemm_kernel_name(HgemmKernel k) { return kernel_table_name(kTable, k); }

bool hgemm_kernel_from_name(const char* name, HgemmKernel* out) { return kernel_table_from_name(kTable, name, out); }

bool hgemm_kernel_is_production(HgemmKernel k) { return kernel_table_production(kTable, k); }

const char* hgemm_can_implement(HgemmKernel k, const GemmProblem& p) {
  if (p.routine != Routine::hgemm && !p.mixed()) return "not an HGEMM, sbgemm or shgemm problem";
  if (p.m < 1 || p.n < 1 || p.k < 1) return "m, n and k must be >= 1 (empty problems are quick returns)";
  if (p.alpha == 0.f) return "alpha == 0 is a scaling of C, handled by the caller";
  if (p.lda < (p.a_rows() > 1 ? p.a_rows() : 1)) return "lda too small";
  if (p.ldb < (p.b_rows() > 1 ? p.b_rows() : 1)) return "ldb too small";
  if (p.ldc < p.m) return "ldc < m";
  if (!p.a || !p.b || !p.c) return "null operand";
  // binary16 elements must at least be 2-byte aligned (every kernel reads them as halves).
  if ((reinterpret_cast<uintptr_t>(p.a) | reinterpret_cast<uintptr_t>(p.b) | reinterpret_cast<uintptr_t>(p.c)) & 1u)
    return "binary16 operands must be 2-byte aligned";
  switch (k) {
    case HgemmKernel::wmma:
    case HgemmKernel::mma_sync:
    case HgemmKernel::mma_sync_128x256x64:
    case HgemmKernel::mma_sync_128x128x64:
      // every transpose, size, leading dimension and alignment, of binary16 operands
      return p.mixed() ? "binary16 A, B and C only (the wgmma kernel takes 16-bit A and B with an FP32 C)" : nullptr;
    case HgemmKernel::wgmma_tma:
      return hgemm_detail::wgmma_tma_can_implement(p);
    case HgemmKernel::splitk_64x128:
    case HgemmKernel::splitk_128x64:
      return hgemm_detail::splitk_can_implement(p);
    case HgemmKernel::skinny_stream:
      return hgemm_detail::stream_can_implement(p);
    case HgemmKernel::wgmma_splitk:
      return hgemm_detail::wgmma_splitk_can_implement(p);
  }
  return "unknown kernel";
}

// The wgmma kernel where TMA can take the operands (0.91-0.96x cuBLAS at 4096^3/8192^3), else
// the mma.sync rung measured best for the shape (bench/results/h100-hgemm-kernels-2026-11-22.md):
// the 128x256x64 tile for large products (0.56-0.57x cuBLAS at 4096^3/8192^3 NN, the 32-k and
// 128x128 tiles 0.52-0.55x), the 128x128x64 tile when m or n is below 4096 (more blocks for the
// 132 SMs: 16x4096x4096 0.44x vs 0.30x, 127x129x1031 0.32x vs 0.28x; equal at 2048^3). Both
// mma.sync kernels run every problem, so the choice can always run.
// sbgemm and shgemm have the wgmma kernel alone: where it refuses, cuBLAS runs them.
// Products with fewer wgmma tiles than half the SMs and a side of 256 or less (skinny: 16 x 4096 x
// 4096 is 32 tiles) take the split-k cluster kernel, its tile long along the long side: on the
// H200 it ran 16, 64 x 4096 x 4096 and 4096 x 16 x 4096 in 19.8-22.2 us against 43.0-45.0 for the
// wgmma kernel, 256 x 4096 x 4096 in 39.9 against 44.1; at 1024^3 (more tiles) the wgmma kernel is
// as fast (16.2 against 17.8) (bench/results/h200-hgemm-skinny-2026-11-28.md). Both stay slower than
// cuBLAS there (0.70-0.85x), so auto mode keeps cuBLAS on these shapes; this is the kernels
// backend's choice.
// Where TMA can take the operands, the wgmma split-k kernel before the mma.sync one: 1.5-2.0x
// faster on the H200 at 16-256 x 4096 x 4096 (10.4-20.1 us against 19.5-39.4, every role and
// transpose but the straddling copies of docs/performance.md;
// bench/results/h200-hgemm-skinny-2026-11-28.md). At a side of 16 or less the streaming
// kernel where it takes the shape (m <= 16 with B 'N', n <= 16 with A 'T': 11.3-11.6 us at 16 x
// 4096 x 4096 and 4096 x 16 x 4096, against 21.2-22.2 for split-k; at 64 rows 32.0 against 19.8,
// so not there), except where the wgmma split-k kernel's short operand is K-major (A 'T' with m
// small, B 'N' with n small): 10.4 against 11.3 us at 16 x 4096 x 4096 TN and 4096 x 16 x 4096 TN
// (with A 'N' and m small, 14.4 against 11.6: its copies of a 16-row A are mostly past the end);
// below 16 rows or columns neither was measured, and the same order holds.
HgemmKernel hgemm_choose(const GemmProblem& p) {
  const int64_t wgmma_tiles = (int64_t(p.m) + 255) / 256 * ((int64_t(p.n) + 127) / 128);
  const bool skinny = std::min(p.m, p.n) <= 256 && 2 * wgmma_tiles < device_sm_count();
  if (skinny && !wsplit::short_mn_major(p) && !hgemm_can_implement(HgemmKernel::wgmma_splitk, p)) return HgemmKernel::wgmma_splitk;
  if (((p.m <= 16 && p.tb == Op::N) || (p.n <= 16 && p.ta == Op::T)) &&
      !hgemm_can_implement(HgemmKernel::skinny_stream, p))
    return HgemmKernel::skinny_stream;
  if (skinny) {
    if (!hgemm_can_implement(HgemmKernel::wgmma_splitk, p)) return HgemmKernel::wgmma_splitk;
    const HgemmKernel split = p.m <= p.n ? HgemmKernel::splitk_64x128 : HgemmKernel::splitk_128x64;
    if (!hgemm_can_implement(split, p)) return split;
  }
  if (p.mixed() || !hgemm_can_implement(HgemmKernel::wgmma_tma, p)) return HgemmKernel::wgmma_tma;
  return p.m >= 4096 && p.n >= 4096 ? HgemmKernel::mma_sync_128x256x64 : HgemmKernel::mma_sync_128x128x64;
}

cudaError_t hgemm_run(HgemmKernel k, const GemmProblem& p, cudaStream_t s) {
  using namespace hgemm_detail;
  if (hgemm_can_implement(k, p)) return cudaErrorInvalidValue;
  switch (k) {
    case HgemmKernel::wmma: return launch_wmma(p, s);
    case HgemmKernel::mma_sync: return launch_mma_sync(p, 128, 256, 32, s);
    case HgemmKernel::mma_sync_128x256x64: return launch_mma_sync(p, 128, 256, 64, s);
    case HgemmKernel::mma_sync_128x128x64: return launch_mma_sync(p, 128, 128, 64, s);
    case HgemmKernel::wgmma_tma: return launch_wgmma_tma(p, s);
    case HgemmKernel::splitk_64x128: return launch_splitk(p, 64, 128, s);
    case HgemmKernel::splitk_128x64: return launch_splitk(p, 128, 64, s);
    case HgemmKernel::skinny_stream: return launch_stream(p, s);
    case HgemmKernel::wgmma_splitk: return launch_wgmma_splitk(p, s);
  }
  return cudaErrorInvalidValue;
}

}  // namespace myblas
