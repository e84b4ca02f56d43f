// Production kernel, pipelined_regdb with an 8x16 lane tile: 64x64 warp tiles on 256x128
// or 128x128 block tiles, 8 k per stage in a 6-stage cp.async pipeline, and shared ->
// register fragments double-buffered by hand, for every transpose and alignment.
//
// What changed from pipelined_128x128x16 and why (that kernel measured 0.79x cuBLAS at 4096^3 NN,
// bench/results/h100-sgemm-2026-11-22.md):
// - Each lane owns 8x16 outputs (2x4 pieces of 4x4, 32 rows / 16 columns apart) instead of 8x8:
//   128 FFMA per k step for 6 LDS.128 (2 of A, 4 of B) instead of 64 for 4, so shared-memory
//   instructions and bandwidth per FFMA drop by a quarter. The 128 accumulators need more than
//   128 registers, so the 256-thread tiles run one block per SM under __launch_bounds__(256, 1)
//   (up to 255 registers), 8 warps; the 128x128 tile runs 4 warps a block, two blocks per SM.
//   cuBLAS's own FP32 kernel on this card has the same shape (256x128 block, 4x2 warps, 254
//   registers: bench/results/h100-sgemm-prod-2026-11-22.md).
// - The fragments of k step q+1 are loaded into a second register set while the FFMAs of step q
//   run, and at the end of a stage the first fragments of the next stage are loaded right after
//   its barrier, so a warp never waits on shared-memory latency with only its own work to hide it
//   (2 warps per scheduler here, 4 in the old kernel).
// - All STAGES buffers hold data: stage kt + STAGES is issued into stage kt's buffer right after
//   the barrier that ends stage kt, so STAGES-1 stages are in flight while one is multiplied, with
//   one barrier per BK k steps.
// - 8 k per stage, 6 stages (cuBLAS's kernel also takes 8): the same kernel with 16 k per stage
//   and 4 stages measured 0.83x cuBLAS at 4096^3 NN against 0.90x (256x128 tile, same run). Not
//   proven why; the 16-step unrolled stage is twice the code (about 32 KB of SASS per loop copy)
//   and spilled a few bytes in several layouts.
// - The copies of the main loop have no branches, so the compiler can interleave them with the
//   FFMAs of the last k step of the stage (the first version, with a branch per chunk, ran them
//   alone after each barrier, all warps at once): the partial k tile is loaded FIRST (the
//   residue-first order), so later stages need no k test; blocks wholly inside C take a copy path
//   with no m/n tests either (block-uniform choice); and the last STAGES stages, which issue no
//   copies, run in a second copy of the loop instead of behind an "is there a next stage" branch.
// - The copies of a stage are spread over its k steps (one per step, 6 for NN at 256x128): stage
//   kt refills the buffer that stage kt-1 left, during steps 0 .. BK-2, instead of every warp
//   issuing its whole share right after the barrier. The burst had stalled the warps on the
//   memory-instruction queue and on the copies' address registers: at 4096^3 NN (256x128) ncu saw
//   issue slots busy 77.7% -> 86.1%, stalls per instruction long-scoreboard 0.11 -> 0.01,
//   MIO-throttle 0.07 -> 0.00, short-scoreboard 0.12 -> 0.02, wait 0.08 -> 0.03, barrier 0.11 ->
//   0.05, and the kernel went from 0.90-0.91x to 0.97-0.98x cuBLAS (4096^3 and 8192^3;
//   bench/results/h100-sgemm-prod2-2026-11-22.md). The 128x128 tile keeps the burst for TT, where
//   spreading spilled and measured slower.
// - Loader index work is done once per block: each thread keeps one running pointer per operand
//   and, for edge blocks, the validity of its chunks along m or n.
// Unchanged: shared memory holds as[l][i] = op(A)(i, l) and bs[l][j] = op(B)(l, j), rows padded by
// 4 floats; operands contiguous along m or n are copied 16 bytes at a time when aligned, else 4;
// operands contiguous along k are transposed on the way in by 4-byte copies, 8 lanes along k x 4
// along m or n (32-byte sectors, 32 distinct banks); in edge blocks every copy is 4 bytes wide
// and predicated, so no copy names an address past the operand (compute-sanitizer counts all 16
// bytes of a 16-byte copy whatever its source size); blocks are swizzled in groups of 8 tile rows
// for L2 reuse; beta == 0 never reads C.
#include <type_traits>

#include "kernels/sgemm/common.cuh"
#include "kernels/sgemm/pipelined_regdb.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int kWarpTile = 64;   // warp tile: 64 (m) x 64 (n), lanes 8 (m) x 4 (n)
constexpr int TM = kPatchM, TN = kPatchN;  // lane tile (common.cuh's 8x16 patch)
constexpr int kGroupM = 8;      // tile rows per swizzle group

// Operand layouts: common.cuh Layout.

// cp.async to a shared-memory byte address (converted once per kernel). The predicated forms
// zero-fill what they do not read; with a source size of 0 nothing is read.
__device__ __forceinline__ void cp4(uint32_t dst, const float* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp4_if(uint32_t dst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void cp16(uint32_t dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

// One operand's share of a stage: a BK x W tile of op(X) at (p0 .. p0+W-1, k0 .. k0+BK-1) goes to
// dst[l*(W+4) + p], zero outside (extent, k). Element (p, l) of the operand is x[p + l*ld]
// (contiguous along p: A N with p = m, B T with p = n) or x[l + p*ld] (kKContig: A T, B N).
// @tparam W        tile width along p (BM for A, BN for B)
// @tparam BK       tile depth along k
// @tparam THREADS  threads of the block
template <Layout L, int W, int BK, int THREADS>
struct Loader {
  static constexpr int LD = W + 4;  // padded shared row (floats)
  // Contiguous layouts: a thread's chunks share one p and are LSTEP rows of k apart.
  static constexpr int kVecChunks = BK * W / 4 / THREADS;
  static constexpr int kVecLStep = THREADS / (W / 4);
  static constexpr int kScalarChunks = BK * W / THREADS;
  static constexpr int kScalarLStep = THREADS / W;
  // kKContig: lane (t % 8) along k, t / 8 along p; BK / 8 chunks along k times kPSteps along p.
  static constexpr int kPSteps = W * 8 / THREADS;
  static_assert(BK % 8 == 0, "k-contiguous copies go 8 lanes along k");
  static_assert(L != kContigVec || (THREADS % (W / 4) == 0 && kVecChunks >= 1), "vector loader shape");
  static_assert(L != kContigScalar || (THREADS % W == 0 && kScalarChunks >= 1), "scalar loader shape");
  static_assert(L != kKContig || (kPSteps >= 1 && kPSteps <= 32), "k-contiguous loader shape");

  const float* x;    // operand base: the named source of zero-fill copies (which read nothing)
  const float* cur;  // this thread's first element of the next stage to issue
  int64_t lstride;   // contiguous: elements between a thread's chunks (LSTEP*ld); kKContig: (THREADS/8)*ld
  int64_t kstep;     // elements per step along k (ld or 1)
  uint32_t dst0;     // this thread's first destination in stage 0 (shared bytes)
  int l0;            // this thread's first k row within the stage
  int valid;         // contiguous: floats of the thread's chunks inside the extent (0..4; 0/1 for
                     // scalar); kKContig: bit j set when the thread's j-th p is inside the extent

  __device__ __forceinline__ void init(const float* x_, int64_t ld, int p0, int extent, uint32_t smem_base) {
    const int t = threadIdx.x;
    x = x_;
    if (L == kContigVec) {
      const int p = (t % (W / 4)) * 4;
      l0 = t / (W / 4);
      const int v = extent - (p0 + p);
      valid = v < 0 ? 0 : v > 4 ? 4 : v;
      cur = x + (p0 + p) + int64_t(l0) * ld;
      lstride = kVecLStep * ld;
      kstep = ld;
      dst0 = smem_base + (l0 * LD + p) * 4;
    } else if (L == kContigScalar) {
      const int p = t % W;
      l0 = t / W;
      valid = p0 + p < extent;
      cur = x + (p0 + p) + int64_t(l0) * ld;
      lstride = kScalarLStep * ld;
      kstep = ld;
      dst0 = smem_base + (l0 * LD + p) * 4;
    } else {
      const int p = t / 8;
      l0 = t % 8;
      valid = 0;
#pragma unroll
      for (int j = 0; j < kPSteps; ++j)
        if (p0 + p + j * (THREADS / 8) < extent) valid |= 1 << j;
      cur = x + l0 + int64_t(p0 + p) * ld;
      lstride = (THREADS / 8) * ld;
      kstep = 1;
      dst0 = smem_base + (l0 * LD + p) * 4;
    }
  }

  // Issues this thread's copies of the next stage into the stage at byte offset `stage`, rows
  // l < k_rows (k_rows < BK only for the first, partial stage), then moves on k_rows along k.
  // EDGE: the block passes m or n, so chunks are tested against the extent.
  template <bool EDGE, bool KCHECK>
  __device__ __forceinline__ void issue(uint32_t stage, int k_rows) {
    const uint32_t d0 = dst0 + stage;
    const float* src = cur;
    if (L == kContigVec) {
#pragma unroll
      for (int r = 0; r < kVecChunks; ++r, src += lstride) {
        const uint32_t d = d0 + r * kVecLStep * LD * 4;
        const bool kin = !KCHECK || l0 + r * kVecLStep < k_rows;
        if (!EDGE && !KCHECK) {
          cp16(d, src);
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const bool ok = kin && q < valid;
            cp4_if(d + 4 * q, ok ? src + q : x, ok);
          }
        }
      }
    } else if (L == kContigScalar) {
#pragma unroll
      for (int r = 0; r < kScalarChunks; ++r, src += lstride) {
        const uint32_t d = d0 + r * kScalarLStep * LD * 4;
        if (!EDGE && !KCHECK) {
          cp4(d, src);
        } else {
          const bool ok = valid && (!KCHECK || l0 + r * kScalarLStep < k_rows);
          cp4_if(d, ok ? src : x, ok);
        }
      }
    } else {
#pragma unroll
      for (int j = 0; j < kPSteps; ++j, src += lstride)
#pragma unroll
        for (int i = 0; i < BK / 8; ++i) {
          const uint32_t d = d0 + (8 * i * LD + j * (THREADS / 8)) * 4;
          if (!EDGE && !KCHECK) {
            cp4(d, src + 8 * i);
          } else {
            const bool ok = ((valid >> j) & 1) && (!KCHECK || l0 + 8 * i < k_rows);
            cp4_if(d, ok ? src + 8 * i : x, ok);
          }
        }
    }
    cur += k_rows * kstep;
  }

  // This thread's copies of one full stage, one chunk at a time (`issue` without KCHECK, split):
  // chunk c of kChunks (c a constant once the caller's loop is unrolled), then `advance`.
  static constexpr int kChunks = L == kContigVec ? kVecChunks : L == kContigScalar ? kScalarChunks : kPSteps * (BK / 8);
  template <bool EDGE>
  __device__ __forceinline__ void issue_chunk(uint32_t stage, int c) const {
    const uint32_t d0 = dst0 + stage;
    if (L == kContigVec) {
      const float* src = cur + c * lstride;
      const uint32_t d = d0 + c * kVecLStep * LD * 4;
      if (!EDGE) {
        cp16(d, src);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool ok = q < valid;
          cp4_if(d + 4 * q, ok ? src + q : x, ok);
        }
      }
    } else if (L == kContigScalar) {
      const float* src = cur + c * lstride;
      const uint32_t d = d0 + c * kScalarLStep * LD * 4;
      if (!EDGE) cp4(d, src);
      else cp4_if(d, valid ? src : x, valid);
    } else {
      const int j = c / (BK / 8), i = c % (BK / 8);
      const float* src = cur + j * lstride + 8 * i;
      const uint32_t d = d0 + (8 * i * LD + j * (THREADS / 8)) * 4;
      if (!EDGE) {
        cp4(d, src);
      } else {
        const bool ok = (valid >> j) & 1;
        cp4_if(d, ok ? src : x, ok);
      }
    }
  }
  __device__ __forceinline__ void advance() { cur += BK * kstep; }
};

// @tparam BM, BN  rows / columns of C per block (multiples of the 64x64 warp tile)
// @tparam BK      k per stage
// @tparam STAGES  shared-memory stages
template <int BM, int BN, int BK, int STAGES>
struct Config {
  static constexpr int kWarpsM = BM / kWarpTile, kWarpsN = BN / kWarpTile;
  static constexpr int kThreads = kWarpsM * kWarpsN * 32;
  static constexpr int LDA = BM + 4, LDB = BN + 4;       // padded shared rows (floats)
  static constexpr int kStageFloats = BK * (LDA + LDB);  // as (BK x LDA) then bs (BK x LDB)
  static constexpr int kSmemBytes = STAGES * kStageFloats * 4;
  // 256 threads: one block per SM with up to 255 registers; 128 threads: two.
  static constexpr int kMinBlocks = kThreads >= 256 ? 1 : 2;
  static_assert(BM % kWarpTile == 0 && BN % kWarpTile == 0, "block tile is made of 64x64 warp tiles");
  static_assert(kThreads == 128 || kThreads == 256, "4 or 8 warps per block");
  static_assert(BK % 2 == 0, "fragments alternate between two register sets by k parity");
  static_assert(STAGES >= 2, "at least one stage in flight");
};

// One block's whole product, for a block inside C (EDGE false) or one that passes m or n.
template <class C, Layout LA, Layout LB, bool EDGE>
__device__ __forceinline__ void block_gemm(const Args& g, float* smem, int bm, int bn) {
  constexpr int BM = C::kWarpsM * kWarpTile, BN = C::kWarpsN * kWarpTile;
  constexpr int BK = C::kStageFloats / (C::LDA + C::LDB);
  constexpr int STAGES = C::kSmemBytes / (C::kStageFloats * 4);
  // Copies spread over the k steps (below) everywhere but the 128x128 tile with A k-contiguous
  // and B contiguous along n (TT): there ptxas spilled 8 bytes with them and TT measured 1-2%
  // slower than with the burst after the barrier (bench/results/h100-sgemm-prod2-2026-11-22.md).
  constexpr bool SPREAD = !(BM == 128 && BN == 128 && LA == kKContig && LB != kKContig);
  const uint32_t sbase = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  Loader<LA, BM, BK, C::kThreads> la;
  Loader<LB, BN, BK, C::kThreads> lb;
  la.init(g.a, g.lda, bm, g.m, sbase);
  lb.init(g.b, g.ldb, bn, g.n, sbase + BK * C::LDA * 4);
  const int tiles = (g.k + BK - 1) / BK;
  const int k_first = g.k - (tiles - 1) * BK;  // the partial tile (1 .. BK rows), loaded first

  // Prologue: stages 0 .. STAGES-1 (stage 0 the partial one).
  la.template issue<EDGE, true>(0, k_first);
  lb.template issue<EDGE, true>(0, k_first);
  cp_async_commit();
#pragma unroll
  for (int s = 1; s < STAGES; ++s) {
    if (s < tiles) {
      la.template issue<EDGE, false>(s * C::kStageFloats * 4, BK);
      lb.template issue<EDGE, false>(s * C::kStageFloats * 4, BK);
    }
    cp_async_commit();  // empty groups keep the count uniform
  }

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = (warp % C::kWarpsM) * kWarpTile + (lane % 8) * 4;  // rows row0 + {0..3, 32..35}
  const int col0 = (warp / C::kWarpsM) * kWarpTile + (lane / 8) * 4;  // columns col0 + 16c + {0..3}
  const float* as0 = smem + row0;
  const float* bs0 = smem + BK * C::LDA + col0;

  float acc[TM][TN];  // (TM) x (TN) outputs of this lane
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = 0.f;
  float af[2][TM];  // (TM) rows of A for k steps of even / odd parity
  float bf[2][TN];  // (TN) columns of B, likewise

  cp_async_wait<STAGES - 1>();  // stage 0 has landed (this thread's copies)
  __syncthreads();              // ... everyone's
  load_frag_8x16<C::LDA, C::LDB>(as0, bs0, 0, af[0], bf[0]);

  // Stage kt: BK k steps; at the last one, wait for stage kt+1, load its first fragments and (in
  // the first loop) refill stage kt's buffer with stage kt + STAGES. Every thread has read stage
  // kt by then (its last fragments were loaded at step BK-2, before the barrier).
  //
  // SPREAD: instead, stage kt refills the buffer of stage kt-1 (free since the barrier that ended
  // stage kt-1) with stage kt-1 + STAGES, one copy per k step over steps 0 .. BK-2, and commits
  // at step BK-1, so the copies and their address arithmetic sit between FFMAs instead of all
  // warps issuing them together right after the barrier. Stage kt+1 is still the group
  // STAGES-2 back at the wait (stage s >= STAGES is group s+1; stage 0 commits an empty group).
  constexpr int kChunks = decltype(la)::kChunks + decltype(lb)::kChunks;
  auto stage = [&](int kt, auto issue_next) {
    const int off = (kt % STAGES) * C::kStageFloats;
    const int refill = ((kt + STAGES - 1) % STAGES) * C::kStageFloats * 4;
#pragma unroll
    for (int q = 0; q < BK; ++q) {
      if (q == BK - 1) {
        if (SPREAD) {
          if (decltype(issue_next)::value) la.advance(), lb.advance();
          cp_async_commit();
        }
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        const int next = ((kt + 1) % STAGES) * C::kStageFloats;
        load_frag_8x16<C::LDA, C::LDB>(as0 + next, bs0 + next, 0, af[(q + 1) % 2], bf[(q + 1) % 2]);
        if (!SPREAD) {
          if (decltype(issue_next)::value) {
            la.template issue<EDGE, false>(off * 4, BK);
            lb.template issue<EDGE, false>(off * 4, BK);
          }
          cp_async_commit();
        }
      } else {
        load_frag_8x16<C::LDA, C::LDB>(as0 + off, bs0 + off, q + 1, af[(q + 1) % 2], bf[(q + 1) % 2]);
        if (SPREAD && decltype(issue_next)::value) {
#pragma unroll
          for (int c = 0; c < kChunks; ++c) {
            if (c * (BK - 1) / kChunks != q) continue;
            if (c < decltype(la)::kChunks) la.template issue_chunk<EDGE>(refill, c);
            else lb.template issue_chunk<EDGE>(refill, c - decltype(la)::kChunks);
          }
        }
      }
      outer_8x16(af[q % 2], bf[q % 2], acc);
    }
  };
  int kt = 0;
  if (SPREAD) {
    const int issue_end = tiles - STAGES + 1;  // stages 1 .. issue_end-1 refill
    for (; kt < tiles; ++kt) {
      if (kt > 0 && kt < issue_end) stage(kt, std::true_type());
      else stage(kt, std::false_type());
    }
  } else {
    for (; kt < tiles - STAGES; ++kt) stage(kt, std::true_type());
    for (; kt < tiles; ++kt) stage(kt, std::false_type());
  }
  cp_async_wait<0>();

  // Epilogue: float4 down each column when C's columns are 16-byte aligned and the four rows are
  // inside C, else element by element; beta == 0 never reads C.
  const bool vec = aligned16(g.c) && g.ldc % 4 == 0;
#pragma unroll
  for (int c = 0; c < TN; ++c) {
    const int j = bn + col0 + (c / 4) * 16 + c % 4;
    if (EDGE && j >= g.n) continue;
    float* cj = g.c + int64_t(j) * g.ldc;
#pragma unroll
    for (int h = 0; h < TM / 4; ++h) {
      const int i = bm + row0 + 32 * h;
      store_c4(cj + i, acc[4 * h][c], acc[4 * h + 1][c], acc[4 * h + 2][c], acc[4 * h + 3][c], EDGE ? g.m - i : 4,
               vec, g.alpha, g.beta);
    }
  }
}

template <class C, Layout LA, Layout LB>
__global__ __launch_bounds__(C::kThreads, C::kMinBlocks) void sgemm_pipelined_regdb(Args g) {
  constexpr int BM = C::kWarpsM * kWarpTile, BN = C::kWarpsN * kWarpTile;
  extern __shared__ __align__(16) float smem[];  // STAGES x {as (BK x LDA), bs (BK x LDB)}
  // Swizzled tile coordinates: groups of kGroupM tile rows, numbered down the rows first.
  const TileCoord tc = swizzled_tile(blockIdx.x, (g.m + BM - 1) / BM, (g.n + BN - 1) / BN, kGroupM);
  const int bm = tc.tm * BM, bn = tc.tn * BN;
  if (bm + BM <= g.m && bn + BN <= g.n) block_gemm<C, LA, LB, false>(g, smem, bm, bn);
  else block_gemm<C, LA, LB, true>(g, smem, bm, bn);
}

template <class C>
struct Launch {
  template <Layout LA, Layout LB>
  static cudaError_t launch(const Args& g, cudaStream_t s) {
    constexpr int BM = C::kWarpsM * kWarpTile, BN = C::kWarpsN * kWarpTile;
    auto kernel = sgemm_pipelined_regdb<C, LA, LB>;
    static SmemLimitOnce limit;
    const cudaError_t attr = limit.set(reinterpret_cast<const void*>(kernel), C::kSmemBytes);
    if (attr != cudaSuccess) return attr;
    const int blocks = ((g.m + BM - 1) / BM) * ((g.n + BN - 1) / BN);
    kernel<<<blocks, C::kThreads, C::kSmemBytes, s>>>(g);
    return cudaGetLastError();
  }
};

}  // namespace

cudaError_t launch_pipelined_regdb(const GemmProblem& p, RegdbTile tile, cudaStream_t s) {
  const Args g = make_args(p);
  const Layout la = operand_layout(p.ta == Op::T, p.a, p.lda), lb = operand_layout(p.tb == Op::N, p.b, p.ldb);
  switch (tile) {
    case RegdbTile::t256x128: return launch_with_layouts<Launch<Config<256, 128, 8, 6>>>(la, lb, g, s);
    case RegdbTile::t128x128: return launch_with_layouts<Launch<Config<128, 128, 8, 6>>>(la, lb, g, s);
  }
  return cudaErrorInvalidValue;
}

}  // namespace sgemm_detail
}  // namespace myblas
