// HGEMM on skinny shapes with wgmma, wgmma_splitk_64xN: the TMA-fed wgmma pipeline of
// wgmma_tma.cu on one output tile of 64 x N (N = 64, 128 or 256, the short side rounded up), with
// k split over the blocks of a thread-block cluster and the shares added in distributed shared
// memory, rounded once.
//
// Why: with one side of 16-256 the product is a stream of the long operand (64 x 4096 x 4096:
// B is 32 MB, about 7 us at the H200's bandwidth; the flops are 3 us of tensor time), and it has
// few output tiles for 132 SMs. The mma.sync split-k kernel (splitk_cluster.cu) holds 16 warps an
// SM with short copy queues and ran 0.70-0.85x cuBLAS at 16-64 rows, 0.47-0.56x at 256; the
// streaming kernel (skinny_stream.cu) lost from 32 rows. Here each SM keeps up to 192 KiB of
// copies in flight through TMA (12 stages of 16 KiB at N = 64, 8 of 24 KiB at 128, 4 of 40 KiB at
// 256) and the tensor cores take 64 x N x 16 a wgmma instruction: 10.4-14.4 us a call at 16-128
// rows or columns of 4096 x 4096 on the H200 (cuBLAS 10.0-16.4, the read floor 10.1),
// 19.4-20.1 at 192-256 (cuBLAS 16.4-21.4) (bench/results/h200-hgemm-skinny-2026-11-28.md).
//
// Tiles. D is a kRows x N tile: its rows (wgmma M) run along the long side, its columns (wgmma
// N) along the short side. kRows = 64 (production): both consumer warpgroups take rows 0..63, on
// alternate k-blocks (two sums an element); 64 tiles x 2 ranks fill 128 SMs at 4096 long in
// clusters of 2. kRows = 128: consumer warpgroup 1 rows 0..63, 2 rows 64..127, over every
// k-block; 32 tiles then needed clusters of 4, of which the H200 holds fewer than 32 at once (a
// cluster lives in one GPC), so the launch fell to 3 ranks on 96 SMs: 12.5-24.8 us where 64 rows
// take 10.6-19.4.
//
// Roles. With m <= n (the m-small role) D = C^T: P = op(B)^T, Q = op(A)^T, as in wgmma_tma.cu.
// With m > n (the n-small role) D = C: P = op(A), Q = op(B). Each operand is K-major or MN-major
// in memory by its transpose, which wgmma reads either way; the tensor maps carry the rest.
//
// Split: the grid is (tiles, c) in clusters of (1, c, 1); rank r sums the k-blocks
// [r * per, (r + 1) * per). After its last k-block each consumer writes its accumulators into
// the (now idle) stage memory, laid out along C's contiguous side (row-major D for D = C^T,
// column-major for D = C, padded against bank conflicts), and the ranks add the shares of each
// element in rank order (bitwise reproducible), 8 elements a thread, rank r finishing 1/c of the
// tile: alpha * sum + beta * C rounded once to binary16 (or stored in FP32 for sbgemm/shgemm);
// beta == 0 never reads C. c is chosen at launch: blocks for every SM in one wave (one block an
// SM), at most 8 (the portable cluster size), at least 4 k-blocks a rank, no more clusters than
// the device holds at once.
//
// Requirements (wgmma_splitk_can_implement): those of TMA (A and B 16-byte aligned, lda and ldb
// multiples of 8) on an sm_90a build and a CC 9.0 device; any m, n, k, ldc and C alignment.
#include <cooperative_groups.h>
#include <cuda.h>  // CUtensorMap and its enums (types only)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/problem.h"
#include "kernels/cluster.cuh"        // launch_clusters, max_active_clusters
#include "kernels/gemm_args.h"        // aligned16, SmemLimitOnce
#include "kernels/hgemm/common.cuh"   // store_c
#include "kernels/hgemm/wgmma.cuh"    // smem_desc, wgmma_*
#include "kernels/hgemm/wgmma_splitk_plan.h"  // wsplit::q_copies, tile_n, short_mn_major
#include "kernels/mbarrier.cuh"       // smem_u32, mbar_*, tma_load_2d
#include "kernels/sm90.cuh"           // sm90a_ready, make_tensor_map_2d

namespace myblas {
namespace hgemm_detail {

namespace {

constexpr int kBK = 64;      // k per stage: one 128-byte swizzle row of 16-bit elements
constexpr int kThreads = 384;               // producer + 2 consumer warpgroups
constexpr int kStageBudget = 192 * 1024;    // bytes of stages a block keeps in flight
constexpr int kMaxRanks = 8;                // blocks per cluster: the portable cluster size
constexpr int kMinKBlocksPerRank = 4;

// Sizes of the block for a wgmma N (the short side of the tile) and kRows rows of D a tile:
// 128 (the two consumer warpgroups take rows 0..63 and 64..127 over every k-block of the rank) or
// 64 (both take rows 0..63, on alternate k-blocks: twice the tiles, so clusters of 2 fill the GPU
// where 128-row tiles need clusters of 3-4, which fit fewer to a GPC).
template <int N, int kRows>
struct Tile {
  static_assert(N == 64 || N == 128 || N == 256, "N must be 64, 128 or 256");
  static_assert(kRows == 64 || kRows == 128, "a tile has 64 or 128 rows");
  static constexpr int kBytesP = kRows * kBK * 2;  // 8 or 16 KiB: P tile (wgmma A operand)
  static constexpr int kBytesQ = N * kBK * 2;      // 8, 16, 32 KiB: Q tile (wgmma B operand)
  static constexpr int kStageBytes = kBytesP + kBytesQ;
  static constexpr int kMaxStages = kRows == 64 ? 12 : 8;
  // (even with 64 rows: stage s then always belongs to consumer s % 2)
  static constexpr int kFit = kStageBudget / kStageBytes;
  static constexpr int kStages = (kFit < kMaxStages ? kFit : kMaxStages) / (kRows == 64 ? 2 : 1) * (kRows == 64 ? 2 : 1);
  // The shares: 128 rows either way (with 64-row tiles, rows 64..127 hold consumer 1's sums).
  static constexpr int kLdT = N + 8;  // floats between rows of the shares, D = C^T (row-major D)
  static constexpr int kLdN = 128 + 4;  // floats between columns of the shares, D = C (column-major D)
  static constexpr int kSharesBytes = 4 * (128 * kLdT > N * kLdN ? 128 * kLdT : N * kLdN);
  static constexpr int kSmemBytes = kStages * kStageBytes + 1024 /* alignment */ + 2 * kStages * 8;
  static_assert(kStageBytes % 1024 == 0, "stages must keep the 1024-byte swizzle alignment");
  static_assert(kSharesBytes <= kStages * kStageBytes, "the shares fit in the stages");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory over the per-block limit");
};

struct SplitParams {
  void* c;  // __half* or float*: the kernel's TOut
  int64_t ldc;
  int m, n, k;
  float alpha, beta;
  int tiles_p;      // tiles along D's rows (the long side)
  int kb_per_rank;  // k-blocks each rank of a cluster sums
  int dt;           // 1: D = C^T (m-small role), 0: D = C (n-small role)
  int vec;          // C 16-byte aligned with 16-byte column strides: runs of 8 in 16-byte accesses
  // The Q copies of a stage (wsplit::q_copies): only the short side's columns that exist; the
  // rest of the Q tile keeps stale values, which reach only columns of D that are never stored.
  // Boxes reaching past the tensor's end ran slowly (4096 x 200 x 4096 TN, B 'N': 36 us against
  // 19.5 with the box cut to the columns, 19.8 at 256, on the H200).
  int q_boxes;       // MN-major: 64-wide boxes a stage
  int q_bytes;       // bytes of Q a stage
  int q_shift;       // columns the last box is shifted back by (0: none)
  int q_shift_from;  // the shifted box's first column of D (N: none)
};

// A run of 8 consecutive elements of one column of C, 16-byte aligned: loaded as FP32, stored
// (binary16: rounded once, to nearest even).
template <class TOut>
struct OutRun;
template <>
struct OutRun<__half> {
  static __device__ __forceinline__ void load(const __half* p, float (&v)[8]) {
    const uint4 u = *reinterpret_cast<const uint4*>(p);
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      __half2 h;
      __builtin_memcpy(&h, &w[e], 4);
      const float2 f = __half22float2(h);
      v[2 * e] = f.x;
      v[2 * e + 1] = f.y;
    }
  }
  static __device__ __forceinline__ void store(__half* p, const float (&v)[8]) {
    uint32_t w[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const __half2 h = __floats2half2_rn(v[2 * e], v[2 * e + 1]);
      __builtin_memcpy(&w[e], &h, 4);
    }
    *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
  }
};
template <>
struct OutRun<float> {
  static __device__ __forceinline__ void load(const float* p, float (&v)[8]) {
    const float4 a = reinterpret_cast<const float4*>(p)[0], b = reinterpret_cast<const float4*>(p)[1];
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
  }
  static __device__ __forceinline__ void store(float* p, const float (&v)[8]) {
    reinterpret_cast<float4*>(p)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4*>(p)[1] = make_float4(v[4], v[5], v[6], v[7]);
  }
};

// kPMN / kQMN: the P / Q operand is MN-major in memory. TIn: __half or __nv_bfloat16 (A and B);
// TOut: __half or float (C).
template <int N, int kRows, bool kPMN, bool kQMN, class TIn, class TOut>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_wgmma_splitk_kernel(const __grid_constant__ CUtensorMap tm_p, const __grid_constant__ CUtensorMap tm_q,
                              SplitParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = Tile<N, kRows>;
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;  // swizzled tiles need 1024-byte alignment
  const uint32_t full0 = base + T::kStages * T::kStageBytes;  // full[s]: the stage's bytes have landed
  const uint32_t empty0 = full0 + T::kStages * 8;             // empty[s]: both consumers are done with it
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < T::kStages; ++s) {
      mbar_init(full0 + 8 * s, 1);
      mbar_init(empty0 + 8 * s, kRows == 128 ? 8 : 4);  // lane 0 of each consumer warp that reads it
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const int r0 = int(blockIdx.x % unsigned(p.tiles_p)) * kRows;  // first row of D (long side)
  const int c0 = int(blockIdx.x / unsigned(p.tiles_p)) * N;       // first column of D (short side)
  const int nkb = (p.k + kBK - 1) / kBK;
  const int kb0 = min(nkb, int(blockIdx.y) * p.kb_per_rank), kb1 = min(nkb, kb0 + p.kb_per_rank);
  float* shares = reinterpret_cast<float*>(smem_raw + (base - raw));

  if (wg == 0) {  // producer: one thread issues every copy
    if (threadIdx.x == 0) {
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tm_p)) : "memory");
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tm_q)) : "memory");
      int s = 0;
      unsigned phase = 0;
      for (int kb = kb0; kb < kb1; ++kb) {
        mbar_wait(empty0 + 8 * s, phase ^ 1);
        const uint32_t full = full0 + 8 * s;
        const uint32_t sp = base + s * T::kStageBytes, sq = sp + T::kBytesP;
        const int k0 = kb * kBK;
        mbar_expect_tx(full, T::kBytesP + p.q_bytes);
        if (kPMN) {
#pragma unroll
          for (int h = 0; h < kRows / 64; ++h) tma_load_2d(sp + h * 8192, &tm_p, full, r0 + 64 * h, k0);
        } else {
          tma_load_2d(sp, &tm_p, full, k0, r0);
        }
        if (kQMN) {
#pragma unroll
          for (int q = 0; q < N / 64; ++q)
            if (q < p.q_boxes) tma_load_2d(sq + q * 8192, &tm_q, full, c0 + 64 * q - (q == p.q_boxes - 1 ? p.q_shift : 0), k0);
        } else {
          tma_load_2d(sq, &tm_q, full, k0, c0);
        }
        if (++s == T::kStages) {
          s = 0;
          phase ^= 1;
        }
      }
    }
    __syncwarp();
  } else {  // consumers: 128-row tiles, warpgroup 1 rows 0..63, warpgroup 2 rows 64..127 of every
             // k-block; 64-row tiles, both rows 0..63, warpgroup 1 the even k-blocks, 2 the odd
    const int cw = wg - 1;
    const bool arrive = threadIdx.x % 32 == 0;
    float acc[N / 2];  // (64 x N) / 128 threads: this thread's D fragment
#pragma unroll
    for (int i = 0; i < N / 2; ++i) acc[i] = 0.f;
    constexpr int kStep = kRows == 128 ? 1 : 2;  // k-blocks between this consumer's
    int s = kRows == 128 ? 0 : cw;
    unsigned phase = 0;
    for (int kb = kb0 + (kRows == 128 ? 0 : cw); kb < kb1; kb += kStep) {
      mbar_wait(full0 + 8 * s, phase);
      const uint32_t sp = base + s * T::kStageBytes + (kRows == 128 ? cw * 8192 : 0);
      const uint32_t sq = base + s * T::kStageBytes + T::kBytesP;
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBK / 16; ++kk) {
        const uint64_t da = kPMN ? smem_desc(sp + kk * 2048, 8192, 1024) : smem_desc(sp + kk * 32, 16, 1024);
        const uint64_t db = kQMN ? smem_desc(sq + kk * 2048, 8192, 1024) : smem_desc(sq + kk * 32, 16, 1024);
        wgmma_m64k16<N, TIn, kPMN ? 1 : 0, kQMN ? 1 : 0>(acc, da, db, 1);
      }
      wgmma_commit();
      wgmma_wait<0>();
      if (arrive) mbar_arrive(empty0 + 8 * s);
      s += kStep;
      if (s >= T::kStages) {
        s -= T::kStages;
        phase ^= 1;
      }
    }
    fence_acc(acc);
    // Both consumer warpgroups are done reading the stages (every copy into them was waited on)
    // before either overwrites them with its share.
    asm volatile("bar.sync 1, 256;\n" ::: "memory");
    // Fragment layout of wgmma D (m64nN, f32): warp w of the warpgroup holds rows 16w..16w+15;
    // lane l holds rows l/4 and l/4 + 8, columns 8c + 2(l%4) and +1 in d[4c + {0,1}] and d[4c + {2,3}].
    const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = 64 * cw + 16 * warp + lane / 4 + 8 * h;
#pragma unroll
      for (int c = 0; c < N / 8; ++c) {
        const int col = 8 * c + 2 * (lane % 4);
        const float v0 = acc[4 * c + 2 * h], v1 = acc[4 * c + 2 * h + 1];
        if (p.dt) {
          *reinterpret_cast<float2*>(shares + r * T::kLdT + col) = make_float2(v0, v1);
        } else {
          shares[col * T::kLdN + r] = v0;
          shares[(col + 1) * T::kLdN + r] = v1;
        }
      }
    }
  }

  // The shares of the cluster added in rank order, 8 consecutive elements of C (one 16-byte run
  // of a binary16 C, two of an FP32 C) a thread: one 16-byte distributed-shared-memory load per
  // rank and four elements, C's old values loaded before the shares so that their latencies
  // overlap. Rank r finishes the r-th 1/c of the tile's runs.
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();  // every rank's shares are written
  const int ranks = int(cluster.num_blocks()), rank = int(cluster.block_rank());
  constexpr int kRuns = kRows * N / 8;
  // With 64-row tiles each element has two sums a rank, consumer 1's 64 rows of the shares on.
  constexpr int kHalf = kRows == 128 ? 0 : 1;
  const int half_off = p.dt ? 64 * T::kLdT : 64;
  const int per = (kRuns + ranks - 1) / ranks;
  const int run_end = min(kRuns, rank * per + per);
  TOut* const c = static_cast<TOut*>(p.c);
  for (int g = rank * per + int(threadIdx.x); g < run_end; g += kThreads) {
    // D(r, x) is C(c0 + x - shift, r0 + r) when D = C^T, C(r0 + r, c0 + x - shift) when D = C,
    // shift nonzero only in the shifted last box of an MN-major Q; its first `dup` columns are
    // the previous box's again and are not stored (with beta != 0 a second store would read C
    // after the first had written it).
    const int q = 8 * g;
    const int o = p.dt ? (q / N) * T::kLdT + q % N : (q / kRows) * T::kLdN + q % kRows;
    const int x = p.dt ? q % N : q / kRows;  // D column of the run's first element
    const int in_box = x - p.q_shift_from;
    const int shift = in_box >= 0 ? p.q_shift : 0, dup = in_box >= 0 ? p.q_shift - in_box : 0;
    const int i = p.dt ? c0 + x - shift : r0 + q % kRows, j = p.dt ? r0 + q / N : c0 + x - shift;
    const int first = p.dt ? max(dup, 0) : (dup > 0 ? 8 : 0);  // the run's first element to store
    const bool col = j < p.n, whole = col && first == 0 && p.vec && (i & 7) == 0 && i + 7 < p.m;
    TOut* const cj = c + int64_t(col ? j : 0) * p.ldc + i;
    float old[8];  // (8) C(i .. i + 7, j) when read as a whole run
    if (whole && p.beta != 0.f) OutRun<TOut>::load(cj, old);
    float v[8];  // (8) the sums of the run: rank 0's share first (its consumer 0's, then 1's), then rank 1's, ...
    {
      const float4* s0 = reinterpret_cast<const float4*>(cluster.map_shared_rank(shares + o, 0u));
      const float4 a = s0[0], b = s0[1];
      v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
    }
    for (int x = 1; x < ranks << kHalf; ++x) {
      const float4* sk = reinterpret_cast<const float4*>(
          cluster.map_shared_rank(shares + o + (x & kHalf) * half_off, unsigned(x >> kHalf)));
      const float4 a = sk[0], b = sk[1];
      v[0] += a.x, v[1] += a.y, v[2] += a.z, v[3] += a.w, v[4] += b.x, v[5] += b.y, v[6] += b.z, v[7] += b.w;
    }
    if (whole) {
#pragma unroll
      for (int e = 0; e < 8; ++e) v[e] = p.beta == 0.f ? p.alpha * v[e] : fmaf(p.alpha, v[e], p.beta * old[e]);
      OutRun<TOut>::store(cj, v);
    } else if (col) {
#pragma unroll
      for (int e = 0; e < 8; ++e)
        if (e >= first && i + e < p.m) store_c(cj + e, v[e], p.alpha, p.beta);
    }
  }
  cluster.sync();  // keeps this block's shares alive until every rank has read them
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

bool make_map(CUtensorMap* map, CUtensorMapDataType type, const void* base, int inner, int outer, int64_t ld,
              int box_inner, int box_outer) {
  return make_tensor_map_2d(map, type, 2, base, inner, outer, ld, box_inner, box_outer, CU_TENSOR_MAP_SWIZZLE_128B);
}

template <int N, int kRows, bool kPMN, bool kQMN, class TIn, class TOut>
cudaError_t launch_variant(const CUtensorMap& tp, const CUtensorMap& tq, SplitParams p, int tiles, int nkb, int ranks,
                           cudaStream_t s) {
  constexpr int kSmem = Tile<N, kRows>::kSmemBytes;
  static SmemLimitOnce limit;
  const auto kernel = hgemm_wgmma_splitk_kernel<N, kRows, kPMN, kQMN, TIn, TOut>;
  const void* kp = reinterpret_cast<const void*>(kernel);
  const cudaError_t e = limit.set(kp, kSmem);
  if (e != cudaSuccess) return e;
  // Ranks: every block in one wave (one block an SM), at most kMaxRanks, at least
  // kMinKBlocksPerRank k-blocks each (or as asked, for the probe), and only as many clusters of
  // that size as the device holds at once (a cluster must fit in one GPC).
  int c = ranks;
  if (c <= 0) {
    c = std::max(1, std::min(kMaxRanks, resident_blocks(kp, kThreads, kSmem) / tiles));
    c = std::max(1, std::min(c, nkb / kMinKBlocksPerRank));
    while (c > 1 && tiles > max_active_clusters(kp, kThreads, kSmem, c)) --c;
  }
  c = std::max(1, std::min(std::min(c, kMaxRanks), nkb));
  p.kb_per_rank = (nkb + c - 1) / c;
  c = (nkb + p.kb_per_rank - 1) / p.kb_per_rank;  // (no rank without k-blocks)
  if (c > 1 && max_active_clusters(kp, kThreads, kSmem, c) == 0) {
    c = 1;  // (the device cannot hold such a cluster: one rank)
    p.kb_per_rank = nkb;
  }
  return launch_clusters(kernel, dim3(unsigned(tiles), unsigned(c)), kThreads, kSmem, c, s, tp, tq, p);
}

template <int N, int kRows, class TIn, class TOut>
cudaError_t launch_n(bool p_mn, bool q_mn, const CUtensorMap& tp, const CUtensorMap& tq, const SplitParams& p,
                     int tiles, int nkb, int ranks, cudaStream_t s) {
  if (p_mn && q_mn) return launch_variant<N, kRows, true, true, TIn, TOut>(tp, tq, p, tiles, nkb, ranks, s);
  if (p_mn) return launch_variant<N, kRows, true, false, TIn, TOut>(tp, tq, p, tiles, nkb, ranks, s);
  if (q_mn) return launch_variant<N, kRows, false, true, TIn, TOut>(tp, tq, p, tiles, nkb, ranks, s);
  return launch_variant<N, kRows, false, false, TIn, TOut>(tp, tq, p, tiles, nkb, ranks, s);
}

template <class TIn, class TOut>
cudaError_t launch_types(int n_tile, int rows, bool p_mn, bool q_mn, const CUtensorMap& tp, const CUtensorMap& tq,
                         const SplitParams& p, int tiles, int nkb, int ranks, cudaStream_t s) {
  if (rows == 64) {
    if (n_tile == 64) return launch_n<64, 64, TIn, TOut>(p_mn, q_mn, tp, tq, p, tiles, nkb, ranks, s);
    if (n_tile == 128) return launch_n<128, 64, TIn, TOut>(p_mn, q_mn, tp, tq, p, tiles, nkb, ranks, s);
    return launch_n<256, 64, TIn, TOut>(p_mn, q_mn, tp, tq, p, tiles, nkb, ranks, s);
  }
  if (n_tile == 64) return launch_n<64, 128, TIn, TOut>(p_mn, q_mn, tp, tq, p, tiles, nkb, ranks, s);
  if (n_tile == 128) return launch_n<128, 128, TIn, TOut>(p_mn, q_mn, tp, tq, p, tiles, nkb, ranks, s);
  return launch_n<256, 128, TIn, TOut>(p_mn, q_mn, tp, tq, p, tiles, nkb, ranks, s);
}

}  // namespace

const char* wgmma_splitk_can_implement(const GemmProblem& p) {
  if (!aligned16(p.a) || !aligned16(p.b)) return "TMA needs 16-byte aligned A and B";
  if (p.lda % 8 || p.ldb % 8) return "TMA needs lda and ldb to be multiples of 8 (16-byte strides)";
  if (!sm90a_ready()) return "needs a compute capability 9.0 device and a build with sm_90a code (wgmma, TMA, clusters)";
  return nullptr;
}

cudaError_t launch_wgmma_splitk(const GemmProblem& g, cudaStream_t s, int ranks, int rows) {
  if (!sm90a_ready()) return cudaErrorInvalidDeviceFunction;
  const CUtensorMapDataType in =
      g.routine == Routine::sbgemm ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const bool dt = g.m <= g.n;  // the m-small role: D = C^T
  const int n_tile = wsplit::tile_n(g.m <= g.n ? g.m : g.n);
  const int tile_rows = rows == 64 || rows == 128 ? rows : 64;
  const int short_side = dt ? g.m : g.n;
  const bool q_mn = wsplit::short_mn_major(g);  // Q, the short operand
  const wsplit::QCopies qc = wsplit::q_copies(short_side, n_tile, q_mn);
  CUtensorMap tp, tq;
  bool p_mn, ok_p, ok_q;
  if (dt) {
    // P = op(B)^T, rows j: B 'N' is k x n (k contiguous), B 'T' is n x k (n contiguous).
    p_mn = g.tb == Op::T;
    ok_p = p_mn ? make_map(&tp, in, g.b, g.n, g.k, g.ldb, 64, 64) : make_map(&tp, in, g.b, g.k, g.n, g.ldb, 64, tile_rows);
    // Q = op(A)^T, columns i: A 'T' is k x m (k contiguous), A 'N' is m x k (m contiguous).
    ok_q = q_mn ? make_map(&tq, in, g.a, g.m, g.k, g.lda, 64, 64) : make_map(&tq, in, g.a, g.k, g.m, g.lda, 64, qc.rows);
  } else {
    // P = op(A), rows i: A 'N' is m x k (m contiguous), A 'T' is k x m (k contiguous).
    p_mn = g.ta == Op::N;
    ok_p = p_mn ? make_map(&tp, in, g.a, g.m, g.k, g.lda, 64, 64) : make_map(&tp, in, g.a, g.k, g.m, g.lda, 64, tile_rows);
    // Q = op(B), columns j: B 'N' is k x n (k contiguous), B 'T' is n x k (n contiguous).
    ok_q = q_mn ? make_map(&tq, in, g.b, g.n, g.k, g.ldb, 64, 64) : make_map(&tq, in, g.b, g.k, g.n, g.ldb, 64, qc.rows);
  }
  if (!ok_p || !ok_q) return cudaErrorInvalidValue;
  SplitParams p;
  p.c = g.c;
  p.ldc = g.ldc;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  p.alpha = g.alpha;
  p.beta = g.beta;
  p.dt = dt ? 1 : 0;
  p.q_boxes = qc.boxes;
  p.q_bytes = qc.bytes;
  p.q_shift = qc.shift;
  p.q_shift_from = qc.shift_from;
  const bool c32 = g.routine != Routine::hgemm;  // an FP32 C (sbgemm, shgemm)
  p.vec = aligned16(g.c) && g.ldc % (c32 ? 4 : 8) == 0;
  const int long_side = dt ? g.n : g.m, cols = dt ? g.m : g.n;
  p.tiles_p = (long_side + tile_rows - 1) / tile_rows;
  p.kb_per_rank = 0;
  const int64_t tiles = int64_t(p.tiles_p) * ((cols + n_tile - 1) / n_tile);
  if (tiles > INT32_MAX) return cudaErrorInvalidValue;
  const int nkb = (g.k + kBK - 1) / kBK;
  switch (g.routine) {
    case Routine::sbgemm:
      return launch_types<__nv_bfloat16, float>(n_tile, tile_rows, p_mn, q_mn, tp, tq, p, int(tiles), nkb, ranks, s);
    case Routine::shgemm:
      return launch_types<__half, float>(n_tile, tile_rows, p_mn, q_mn, tp, tq, p, int(tiles), nkb, ranks, s);
    default:
      return launch_types<__half, __half>(n_tile, tile_rows, p_mn, q_mn, tp, tq, p, int(tiles), nkb, ranks, s);
  }
}

}  // namespace hgemm_detail
}  // namespace myblas
