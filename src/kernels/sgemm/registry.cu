// The SGEMM kernel table: names, what each kernel can run, the shape rule that picks a
// production kernel, and the launch switch. Where our kernel beats cuBLAS is the measured
// dispatch table's to say (data/dispatch-sm_XY.csv). Kernels live one per file beside this one.

#include "kernels/sgemm.h"
#include "kernels/kernel_table.h"
#include "kernels/sgemm/common.cuh"
#include "kernels/sgemm/pipelined_regdb.cuh"
#include "kernels/sgemm/smallk.cuh"

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
    {SgemmKernel::pipelined_s4, "pipelined_128x128x16_s4", true},
    {SgemmKernel::skinny_r16, "skinny_r16", true},
    {SgemmKernel::regdb_256x128, "pipelined_regdb_256x128x8_s6", true},
    {SgemmKernel::regdb_128x128, "pipelined_regdb_128x128x8_s6", true},
    {SgemmKernel::smallk, "smallk_128x128x16", true},
    {SgemmKernel::smallk_panel, "smallk_panel_128x128x32", true},
    {SgemmKernel::smallk_panel_pre, "smallk_panel_pre_128x128x32", true},
    {SgemmKernel::smallk_ws, "smallk_ws_128x256x64", true},
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
    case SgemmKernel::pipelined_s4:
    case SgemmKernel::regdb_256x128:
    case SgemmKernel::regdb_128x128:
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
    case SgemmKernel::smallk:
    case SgemmKernel::smallk_panel:
    case SgemmKernel::smallk_panel_pre:
      return sgemm_detail::smallk_tiles(p) < (int64_t(1) << 31) ? nullptr : "more than 2^31 - 1 tiles of 128 x 128";
    case SgemmKernel::smallk_ws:
      return p.k <= 64 ? nullptr : "k <= 64 only (one or two 32-deep stages a tile)";
  }
  return "unknown kernel";
}

// Measured on the H100 (bench/results/h100-sgemm-2026-11-22.md, h100-sgemm-prod-2026-11-22.md):
// - skinny_r16 is 3-8x faster than the tiled kernels whenever m or n is <= 16 (every transpose).
// - The register double-buffered kernels (pipelined_regdb_*) beat the 4-stage pipelined kernel on
//   every shape measured whose tile grid has no edge blocks and k >= 128 (4096^3 / 8192^3 in all
//   transposes 0.90-0.96x cuBLAS against 0.74-0.82x; 1024^3, 2048^3, 4096 x 4096 x 128,
//   8192 x 1024 x 8192, 128 x 4096 x 4096, 4096 x 128 x 4096), and with edge blocks at 4092^3, but
//   their edge blocks run slowly enough that 1000^3 and 3000^3 (a partly filled last wave) are
//   faster on pipelined_s4, as is k = 64 (m = n = 8192), where one block per SM cannot hide the
//   short main loop's prologue and epilogue.
// - Among them: 256x128 for NN once it makes about a wave of blocks (2048^3 and up; 4092^3 within
//   noise of 128x256); 128x128 (two blocks per SM) for NN with fewer blocks (1024^3, 128 or 4096
//   columns of 128) and for NT and TT (4096^3 and 8192^3: 0.92-0.96x against 0.87-0.92x for
//   256x128). The transposes were measured at 4096^3 and 8192^3 only.
// - With the copies spread over the k steps (h100-sgemm-prod2-2026-11-22.md) 256x128 also takes
//   TN: 0.957-0.979x against 0.949-0.971x for 128x128 in three runs at 4096^3 and 8192^3.
// - smallk (bench/results/h100-sgemm-smallk-2026-11-22.md) for k <= 128 with beta != 0 and
//   m*n >= 2048^2: its batched C reads make it 1.02-1.37x cuBLAS on every such shape measured
//   (8192^2 x 64 in every transpose, 8192^2 x 32 and x 128, 4096^2 x 64 and x 128, 2048^2 x 64,
//   8000^2 x 64) against 0.79-1.06x for pipelined_s4. With beta == 0 (no C reads) it is no faster
//   than pipelined_s4 at k = 64, and regdb_256x128 stays ahead at k = 128. Smaller m*n: not measured.
// - smallk_panel and smallk_panel_pre (bench/results/h100-sgemm-smallk-v3-2026-11-26.md) for k <= 128
//   with m*n >= 2048^2: smallk_panel_pre (k-contiguous operands transposed into scratch first)
//   where the call is long enough to carry its extra allocation and launch (~5 us): k > 32 and
//   m*n*k >= 2^31 (8192^2 x 64: 1.29-1.37x cuBLAS in NN, TN, TT against 1.12-1.21x in-kernel,
//   NT the same 1.32-1.34x; 8192^2 x 128 1.15x; 8000^2 x 64 1.22x; 4096^2 x 128 1.16x); else
//   smallk_panel (4096^2 x 64 1.34-1.43x and 2048^2 x 64 1.38-1.43x, where the pre-transposing one
//   was even or 5-7 us slower; 8192^2 x 32 within 1% of smallk_128x128x16).
// - smallk_ws (bench/results/h100-sgemm-smallk-v9-2026-11-26.md) in smallk_panel_pre's place for
//   k <= 64, on three machines: 8192^2 x 64 beta 0.5 NN 230-238 us against 240-246, NT 221-230
//   against 234-238, TN 236-248 against 247-253, TT 225-239 against 241-246; beta 0 NN 215-225
//   against 232-238; 8000^2 x 64 227-236 against 243-249. At 4096^2 x 64 it was even with
//   smallk_panel (71-75 us), and at 2048^2 x 64 (64 tiles of 128 x 256 for 132 SMs) 20-40%
//   slower, so the short calls keep smallk_panel. Since v11 (its shared reads made LDS) it runs
//   8192^2 x 64 in 209-221 us, and it takes m*n*k >= 2^30 (4096^2 x 64: 70.0-70.4 us against
//   smallk_panel's 73.0-73.2 in the same processes, 4-5%); 2048^2 x 64 (smallk_panel 25.7-26.6
//   against 32.9-33.8) and k = 32 (8192^2 x 32: smallk_panel 204-206 against 209-210) stay.
SgemmKernel sgemm_choose(const GemmProblem& p) {
  if (p.m <= 16 || p.n <= 16) return SgemmKernel::skinny_r16;
  if (p.k <= 128 && int64_t(p.m) * p.n >= int64_t(2048) * 2048) {
    const int64_t mnk = int64_t(p.m) * p.n * p.k;
    if (p.k > 32 && p.k <= 64 && mnk >= (int64_t(1) << 30)) return SgemmKernel::smallk_ws;
    if (p.k <= 32 || mnk < (int64_t(1) << 31)) return SgemmKernel::smallk_panel;
    return SgemmKernel::smallk_panel_pre;
  }
  const bool edge_blocks = p.m % 128 != 0 || p.n % 128 != 0;
  if (p.k < 128 || (edge_blocks && (p.m < 4000 || p.n < 4000))) return SgemmKernel::pipelined_s4;
  const bool nn_or_tn = p.tb == Op::N;
  const int64_t blocks_256x128 = int64_t((p.m + 255) / 256) * ((p.n + 127) / 128);
  if (nn_or_tn && blocks_256x128 >= 96) return SgemmKernel::regdb_256x128;
  return SgemmKernel::regdb_128x128;
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
    case SgemmKernel::pipelined_s4: return launch_pipelined(p, s);
    case SgemmKernel::skinny_r16: return launch_skinny_r16(p, s);
    case SgemmKernel::regdb_256x128: return launch_pipelined_regdb(p, RegdbTile::t256x128, s);
    case SgemmKernel::regdb_128x128: return launch_pipelined_regdb(p, RegdbTile::t128x128, s);
    case SgemmKernel::smallk: return launch_smallk(p, s);
    case SgemmKernel::smallk_panel: return launch_smallk_panel(p, false, s);
    case SgemmKernel::smallk_panel_pre: return launch_smallk_panel(p, true, s);
    case SgemmKernel::smallk_ws: return launch_smallk_ws(p, s);
  }
  return cudaErrorInvalidValue;
}

}  // namespace myblas
