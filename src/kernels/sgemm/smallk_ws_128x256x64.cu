// Shape-specialised kernel, smallk_ws_128x256x64: C := alpha*op(A)*op(B) + beta*C for k <= 64
// with large m and n, on sm_90a: persistent, warp-specialised, fed by the tensor memory
// accelerator (TMA). FP32 FFMA only, as every SGEMM kernel here.
//
// What changed from smallk_panel_128x128x32 and why. ncu of smallk_panel at 8192^2 x 64
// (bench/results/h100-sgemm-smallk-v6-2026-11-26.md) put its FMA pipe at 58%: an SM's two 8-warp
// blocks take turns, one copying its panels or waiting on C while the other runs its 8x8-patch
// FMA loop alone at 2 warps a scheduler, which does not fill the pipe; with beta = 0 (no C reads)
// it took as long. Here (probe: bench/probe_smallk_ws.cu; bench/results/h100-sgemm-smallk-v9-2026-11-26.md):
// - One block per SM walks the 128 x 256 tiles (grid = SMs, tile t, t + grid, ...). Warp group 0
//   is the producer: one thread issues every copy; the group gives its registers away
//   (setmaxnreg.dec 40) to the two consumer groups (setmaxnreg.inc 232).
// - Each consumer group computes one 128 x 128 half of the tile with the 8x16 lane patches of
//   pipelined_regdb (128 FFMA per 6 LDS.128, fragments double-buffered): at 2 warps a scheduler
//   this loop fills the pipe where the 8x8 patch does not (ncu, probe, beta 0: FMA pipe 69% of
//   active cycles against smallk_panel's 58%).
// - Operands arrive by tensor-map copies (no copy instruction or address in a consumer), in
//   stages of 32 k (A 32 x 128, B 32 x 256: 48 KB) in a ring of three, with full and empty
//   mbarriers. k <= 64 is two stages a tile (one for k <= 32); what lies past k, m or n is
//   zero-filled.
// - The second group runs half a tile behind the first (a named barrier at the start), so one
//   group's epilogue runs beside the other's FMAs.
// - C comes through shared memory: the 64 KB the three-stage ring leaves (two whole stages would
//   take 192 KB) hold one group's 128 x 128 of C, copied in by the producer before that group's
//   epilogue, which then reads C with LDS instead of waiting on DRAM. The groups take the buffer
//   in turn (tile i group 0, tile i group 1, ...), which keeps them half a tile apart. The
//   producer issues per tile i: stage 2i+2, C(i, group 0), stage 2i+3, C(i, group 1), the order in
//   which their buffers come free. In the probe (NT, 8192^2 x 64, beta 0.5): 223-224 us against
//   230-233 with C read from global memory by the epilogue, and 241-319 with C prefetched into L2
//   instead, which evicted it before use (ncu: 20% more bytes read from DRAM).
// - The results go to global memory by float4 stores; edge tiles test each element.
// - Operands contiguous along k (A 'T', B 'N') are first rewritten into scratch, as
//   smallk_panel_pre does. Reading B 'N' as it is (swizzled k-contiguous stages, LDS.64 fragments)
//   ran NN 7-9 us slower than smallk_panel_pre; the results through the C buffer and a tensor-map
//   store made ptxas spill and ran slower too (v9, sections 6 and 7).
// Measured on the H100 (bench/results/h100-sgemm-smallk-v11-2026-11-27/h100-sgemm-smallk-v11-2026-11-27.md), 8192^2 x 64, beta 0.5:
// NT 209-210 us, NN 215-219, TN 215-216, TT 214-215 (1.47-1.53x cuBLAS, 8-12% faster than
// smallk_panel_pre in the same processes); beta 0 NN 198-199. Reading and writing C alone takes
// 194-197 us on this card. Until v11 the shared-memory base was rounded up through an integer,
// which made every fragment and C read a generic load (no LDS in the SASS): 221-248 us then (v9,
// v10), FMA pipe 61% against 68% now.
//
// k <= 64 (sgemm_can_implement). Requirements (else launch_smallk_ws runs smallk_panel_pre): an
// sm_90a build on a compute capability 9.0 device (sm90a_ready), C 16-byte aligned with ldc a
// multiple of 4, and after pre-transposition A and B 16-byte aligned with lda, ldb multiples of 4
// (TMA's rules). beta == 0 never reads C.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/gemm_args.h"
#include "kernels/mbarrier.cuh"
#include "kernels/sgemm.h"
#include "kernels/sgemm/common.cuh"  // the 8x16 lane patch (load_frag_8x16, outer_8x16)
#include "kernels/sgemm/smallk.cuh"
#include "kernels/sgemv/common.cuh"  // the kernels' stream-ordered scratch pool (scratch_free)
#include "kernels/sm90.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int BM = 128, BN = 256, HK = 32;       // block tile; k per stage
constexpr int kSlots = 3;                        // ring of stages
constexpr int kAF = HK * BM, kBF = HK * BN;      // floats of a stage's A (16 KB) and B (32 KB)
constexpr int kStageF = kAF + kBF;
constexpr int kCF = 128 * 128;                   // one group's C (64 KB)
constexpr int kThreads = 384;                    // producer group + two consumer groups
constexpr int kConsumerWarps = 8;
constexpr int TM = kPatchM, TN = kPatchN;        // lane patch (common.cuh's 8x16)
constexpr size_t kBars = 2 * kSlots + 3;         // full[3], empty[3], cempty, cfull[2]
constexpr size_t kSmemBytes = (size_t(kSlots) * kStageF + kCF) * 4 + kBars * 8 + 1024;  // + alignment
static_assert(BN == 2 * 128 && BM == 128, "two consumer groups, each a 128 x 128 half of the tile");
static_assert(HK % 8 == 0 && 2 * HK == 64, "stages of whole 8-step chunks; k <= 64 in at most two");
static_assert(BM <= 256 && BN <= 256 && HK <= 256, "tensor-map boxes have at most 256 elements a side");
static_assert(kSmemBytes <= 227 * 1024, "one block per SM within the H100's 227 KB of shared memory");

struct Params {
  float* c;
  int64_t ldc;
  int m, n, tiles_m, tiles;
  int nh;  // stages per tile: 1 (k <= 32) or 2
  float alpha, beta;
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void named_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// ma: A as m x k, contiguous along m (boxes 128 x 32); mb: B as n x k, contiguous along n (boxes
// 256 x 32); mc: C as m x n (boxes 128 x 128), read only when beta != 0.
__global__ void __launch_bounds__(kThreads, 1)
    sgemm_smallk_ws(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mb,
                    const __grid_constant__ CUtensorMap mc, Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // Rounded up to 1024 bytes by an offset into the shared array itself, so that the compiler
  // still knows every access below is to shared memory. (Rebuilt from an integer, the pointer was
  // generic: every fragment and C read was a generic LD.E instead of LDS; ncu, v11.)
  float* smem = reinterpret_cast<float*>(smem_raw + ((1024u - (smem_u32(smem_raw) & 1023u)) & 1023u));
  float* cbuf = smem + kSlots * kStageF;
  uint64_t* bars = reinterpret_cast<uint64_t*>(cbuf + kCF);
  auto full = [&](int s) { return smem_u32(bars + s); };
  auto empty = [&](int s) { return smem_u32(bars + kSlots + s); };
  const uint32_t cempty = smem_u32(bars + 2 * kSlots);
  // One arrival barrier for C per group: a group may reach its wait before the other group's
  // turn at the buffer has come, and a parity wait on a barrier a phase behind would pass at once.
  auto cfull = [&](int g) { return smem_u32(bars + 2 * kSlots + 1 + g); };
  if (threadIdx.x == 0) {
    for (int s = 0; s < kSlots; ++s) {
      mbar_init(full(s), 1);
      mbar_init(empty(s), kConsumerWarps);
    }
    mbar_init(cempty, 4);
    mbar_init(cfull(0), 1);
    mbar_init(cfull(1), 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const int count = (p.tiles - int(blockIdx.x) + int(gridDim.x) - 1) / int(gridDim.x);  // this block's tiles
  const bool with_c = p.beta != 0.f;
  const int nh = p.nh;
  auto tile_m = [&](int i) { return (int(blockIdx.x) + i * int(gridDim.x)) % p.tiles_m * BM; };
  auto tile_n = [&](int i) { return (int(blockIdx.x) + i * int(gridDim.x)) / p.tiles_m * BN; };

  if (threadIdx.x < 128) {  // producer group: one thread works
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x != 0) return;
    auto stage = [&](int j) {  // stage j: the block's tile j / nh, k from 32 (j % nh)
      if (j >= nh * count) return;
      const int s = j % kSlots;
      if (j >= kSlots) mbar_wait(empty(s), ((j / kSlots) - 1) & 1);
      float* dst = smem + s * kStageF;
      mbar_expect_tx(full(s), kStageF * 4);
      tma_load_2d(smem_u32(dst), &ma, full(s), tile_m(j / nh), (j % nh) * HK);
      tma_load_2d(smem_u32(dst + kAF), &mb, full(s), tile_n(j / nh), (j % nh) * HK);
    };
    auto cload = [&](int u) {  // the buffer's use u: tile u / 2, group u % 2
      if (!with_c || u >= 2 * count) return;
      if (u >= 1) mbar_wait(cempty, (u - 1) & 1);
      mbar_expect_tx(cfull(u % 2), kCF * 4);
      tma_load_2d(smem_u32(cbuf), &mc, cfull(u % 2), tile_m(u / 2), tile_n(u / 2) + (u % 2) * 128);
    };
    for (int h = 0; h < nh; ++h) stage(h);
    for (int i = 0; i < count; ++i) {
      for (int h = 0; h < (nh + 1) / 2; ++h) stage(nh * (i + 1) + h);
      cload(2 * i);
      for (int h = (nh + 1) / 2; h < nh; ++h) stage(nh * (i + 1) + h);
      cload(2 * i + 1);
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int warp = threadIdx.x / 32 - 4;
  const int wg = warp / 4, w = warp % 4;
  const int row0 = (w % 2) * 64 + (lane % 8) * 4;   // rows row0 + {0..3, 32..35} of the tile
  const int lcol0 = (w / 2) * 64 + (lane / 8) * 4;  // the group's columns lcol0 + 16c + {0..3}
  const int col0 = wg * 128 + lcol0;
  if (wg == 1) named_sync(1, 256);  // starts when group 0 is half a tile in
  for (int i = 0; i < count; ++i) {
    float acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
      for (int c = 0; c < TN; ++c) acc[r][c] = 0.f;
    float af[2][TM], bf[2][TN];
    auto stage_a = [&](int j) { return smem + (j % kSlots) * kStageF + row0; };
    auto stage_b = [&](int j) { return smem + (j % kSlots) * kStageF + kAF + col0; };
    const int j0 = nh * i;
    mbar_wait(full(j0 % kSlots), (j0 / kSlots) & 1);
    load_frag_8x16<BM, BN>(stage_a(j0), stage_b(j0), 0, af[0], bf[0]);
#pragma unroll 1
    for (int h = 0; h < nh; ++h) {
      const int j = j0 + h;
      const float* as = stage_a(j);
      const float* bs = stage_b(j);
#pragma unroll 1
      for (int q0 = 0; q0 < HK; q0 += 8) {
        const bool last = q0 == HK - 8, more = h + 1 < nh;
        if (last && more) mbar_wait(full((j + 1) % kSlots), ((j + 1) / kSlots) & 1);
        // The step after this chunk: the next stage's first, or after the tile's last step this
        // stage's first again (loaded, unused).
        const float* an = last ? (more ? stage_a(j + 1) : as) : as + (q0 + 8) * BM;
        const float* bn = last ? (more ? stage_b(j + 1) : bs) : bs + (q0 + 8) * BN;
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          if (e < 7)
            load_frag_8x16<BM, BN>(as + (q0 + e + 1) * BM, bs + (q0 + e + 1) * BN, 0, af[(e + 1) % 2], bf[(e + 1) % 2]);
          else load_frag_8x16<BM, BN>(an, bn, 0, af[0], bf[0]);
          outer_8x16(af[e % 2], bf[e % 2], acc);
        }
        if (wg == 0 && i == 0 && h * HK + q0 == nh * HK / 2) named_arrive(1, 256);
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(empty(j % kSlots));
    }

    // Epilogue: C(i, j) for the lane's rows bm + row0 + {0..3, 32..35} and columns
    // bn + col0 + 16 (cc / 4) + cc % 4, cc < 16.
    const int bm = tile_m(i), bn = tile_n(i);
    float* cl = p.c + (bm + row0) + int64_t(bn + col0) * p.ldc;
    auto col = [](int cc) { return 16 * (cc / 4) + cc % 4; };
    const float* cs = cbuf + lcol0 * 128 + row0;  // the group's C in shared memory, [column][128 rows]
    if (with_c) mbar_wait(cfull(wg), i & 1);
    // Two copies of the epilogue, so that the whole-tile one carries no per-element tests (with
    // the tests in the same code, ptxas spilled 624 bytes).
    auto epilogue = [&](auto whole_tile) {
      constexpr bool kWhole = decltype(whole_tile)::value;
#pragma unroll
      for (int g = 0; g < 4; ++g) {  // columns cc = 4g .. 4g + 3: 8 float4 of C read, then written
        float4 o[4][2];
        if (with_c) {
#pragma unroll
          for (int e = 0; e < 4; ++e)
#pragma unroll
            for (int hh = 0; hh < 2; ++hh)
              o[e][hh] = *reinterpret_cast<const float4*>(cs + col(4 * g + e) * 128 + 32 * hh);
        }
#pragma unroll
        for (int e = 0; e < 4; ++e)
#pragma unroll
          for (int hh = 0; hh < 2; ++hh) {
            const int cc = 4 * g + e;
            float v[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) v[r] = p.alpha * acc[4 * hh + r][cc];
            if (with_c) {
              v[0] = fmaf(p.beta, o[e][hh].x, v[0]);
              v[1] = fmaf(p.beta, o[e][hh].y, v[1]);
              v[2] = fmaf(p.beta, o[e][hh].z, v[2]);
              v[3] = fmaf(p.beta, o[e][hh].w, v[3]);
            }
            float* dst = cl + int64_t(col(cc)) * p.ldc + 32 * hh;
            if (kWhole) {
              *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
            } else if (bn + col0 + col(cc) < p.n) {
              const int i0 = bm + row0 + 32 * hh;
#pragma unroll
              for (int r = 0; r < 4; ++r)
                if (i0 + r < p.m) dst[r] = v[r];
            }
          }
      }
    };
    if (bm + BM <= p.m && bn + BN <= p.n) epilogue(std::true_type());
    else epilogue(std::false_type());
    if (with_c) {
      __syncwarp();
      if (lane == 0) mbar_arrive(cempty);
    }
  }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

// The product of an NT problem (A N, B T) whose operands and C the tensor maps can take.
cudaError_t run_nt(const GemmProblem& q, int sms, cudaStream_t s) {
  CUtensorMap ma, mb, mc;
  const bool ok = make_tensor_map_2d(&ma, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, q.a, q.m, q.k, q.lda, BM, HK,
                                     CU_TENSOR_MAP_SWIZZLE_NONE) &&
                  make_tensor_map_2d(&mb, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, q.b, q.n, q.k, q.ldb, BN, HK,
                                     CU_TENSOR_MAP_SWIZZLE_NONE) &&
                  make_tensor_map_2d(&mc, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, q.c, q.m, q.n, q.ldc, 128, 128,
                                     CU_TENSOR_MAP_SWIZZLE_NONE);
  if (!ok) return cudaErrorInvalidValue;
  Params p;
  p.c = static_cast<float*>(q.c);
  p.ldc = q.ldc;
  p.m = q.m;
  p.n = q.n;
  p.tiles_m = (q.m + BM - 1) / BM;
  const int64_t tiles = int64_t(p.tiles_m) * ((q.n + BN - 1) / BN);
  if (tiles > INT32_MAX / 2) return cudaErrorInvalidValue;
  p.tiles = int(tiles);
  p.alpha = q.alpha;
  p.beta = q.beta;
  p.nh = q.k > HK ? 2 : 1;
  static SmemLimitOnce limit;
  const cudaError_t attr = limit.set(reinterpret_cast<const void*>(sgemm_smallk_ws), kSmemBytes);
  if (attr != cudaSuccess) return attr;
  sgemm_smallk_ws<<<int(tiles < sms ? tiles : sms), kThreads, kSmemBytes, s>>>(ma, mb, mc, p);
  return cudaGetLastError();
}

bool tma_readable(const void* x, int64_t ld) { return aligned16(x) && ld % 4 == 0; }

}  // namespace

const char* smallk_ws_fallback(const GemmProblem& p, int* sms) {
  if (!tma_readable(p.c, p.ldc)) return "C not 16-byte aligned or ldc not a multiple of 4";
  const bool ka = p.ta == Op::T, kb = p.tb == Op::N;  // operands contiguous along k (pre-transposed)
  if ((!ka && !tma_readable(p.a, p.lda)) || (!kb && !tma_readable(p.b, p.ldb)))
    return "A or B not 16-byte aligned or its leading dimension not a multiple of 4";
  if (!sm90a_ready(sms)) return "needs a compute capability 9.0 device and a build with sm_90a code";
  return nullptr;
}

cudaError_t launch_smallk_ws(const GemmProblem& p, cudaStream_t s) {
  int sms = 0;
  if (smallk_ws_fallback(p, &sms)) return launch_smallk_panel(p, true, s);
  if (p.ta == Op::N && p.tb == Op::T) return run_nt(p, sms, s);
  GemmProblem q;
  float* scratch = nullptr;
  cudaError_t e = cudaSuccess;
  if (!pretranspose_to_nt(p, &q, &scratch, &e, s)) return launch_smallk_panel(p, true, s);
  if (e == cudaSuccess) e = run_nt(q, sms, s);
  sgemv_detail::scratch_free(scratch, s);
  return e;
}

}  // namespace sgemm_detail

const char* sgemm_smallk_ws_fallback(const GemmProblem& p) {
  if (const char* why = sgemm_can_implement(SgemmKernel::smallk_ws, p)) return why;
  return sgemm_detail::smallk_ws_fallback(p, nullptr);
}

}  // namespace myblas
