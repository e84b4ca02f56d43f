// Production SGEMV, op(A) = A^T: lane groups per column with float4 loads (kernels t_lanegroup,
// t_lanegroup_split, t_lanegroup_lastblock and t_lanegroup_cluster).
//
// What changed from rung 4: rung 4 gives a whole warp to each column with 4-byte loads and
// stages x through shared memory with two barriers per tile. Here:
//   - a column's dot product is done by a group of G lanes (G = 4, 8, 16 or 32, picked from m
//     so that each lane reads at least two float4 per column): for small m a warp works on
//     32/G columns at once instead of leaving lanes idle (m = 64: 8 lanes per column);
//   - each group does COLS = 4 columns at a time and unrolls kUnroll = 2 row steps, so a lane
//     has 8 independent 16-byte loads of A in flight, and one float4 of x serves 4 columns
//     (with COLS = 2 the x loads were half the A traffic through L1, and the kernel reached
//     2100-2700 GB/s at 8192^2-16384^2 against 2950 for the N kernel: bench/results);
//   - x is read as float4 through the read-only path (__ldg): all warps of an SM share it in L1,
//     no barriers; with a strided or misaligned x the same loop does 4 scalar loads instead;
//   - partial sums are added by __shfl_xor_sync inside the group (fixed tree: deterministic);
//   - t_lanegroup_split also splits the rows over gridDim.y when there are too few columns to
//     fill the device (tall-skinny shapes): partial dot products go to scratch and a second
//     kernel adds them in split order;
//   - t_lanegroup_lastblock: whole warps, but COLS = 1 column per warp (8 per block instead
//     of 32), as the rung warp_per_column that beat t_lanegroup_split at 4096^2-8192^2 T, with
//     float4 loads and 4 row steps in flight; a 4096^2 matrix then fills the device with its
//     columns alone (512 blocks, one launch, no scratch). With COLS = 2 (run 1 of
//     bench/results/h100-sgemv-2026-11-22-v2.md) that shape needed a 2-way row split and was
//     4% slower than warp_per_column. A row split, when needed, is ONE launch: the last block
//     of each column block to finish (common.cuh arrive_last) adds the partials in split order;
//   - t_lanegroup_cluster: t_lanegroup_lastblock's warps with the row split done by the C =
//     gridDim.y blocks of a thread-block cluster (Hopper, C <= 16): each block keeps its 8
//     columns' sums in shared memory and the cluster adds them in rank order through
//     distributed shared memory (common.cuh cluster_reduce_ordered). One launch, no scratch,
//     no counters, no memset; for mid shapes (1024^2) the row split leaves each lane one or
//     two float4 loads per column, all in flight at once;
//   - t_lanegroup_blocksplit: t_lanegroup_lastblock's warps with the row split done by RS warps
//     of the same block (RS = 2, 4 or 8, at least 512 rows a warp), each lane issuing up to 8
//     float4 loads per row step batch: a 4096-row column is read by 8 warps of 512 rows, so a
//     block reads a whole 16 KB column in one round of loads, much as bench_sgemv's read ceiling
//     reads 32 KB a block at once.
//     The warps' sums are added in shared memory in split order. One launch, no scratch.
// If A is misaligned or lda % 4 != 0, a lane reads single floats r, r+G, ... (still coalesced).
#include <algorithm>

#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {
namespace {

constexpr int kThreads = 256;

template <bool VX>
__device__ __forceinline__ float4 load_x4(const Args& g, int r) {
  if (VX) return __ldg(reinterpret_cast<const float4*>(g.x0 + r));
  const float* p = g.x0 + int64_t(r) * g.incx;
  return make_float4(p[0], p[g.incx], p[2 * g.incx], p[3 * g.incx]);
}

// @tparam G    lanes per column (power of two, 4..32)
// @tparam COLS columns per lane group at a time
// @tparam VA   float4 loads of A (A 16-byte aligned, lda % 4 == 0)
// @tparam VX   float4 loads of x (unit stride, 16-byte aligned)
// @tparam CL   launched as clusters of gridDim.y blocks (kernel t_lanegroup_cluster)
// @tparam RS   > 1: RS warps of a block share a column, warp w taking rows [(w % RS) *
//              rows_per_split, +rows_per_split) (kernel t_lanegroup_blocksplit; G = 32, COLS = 1)
// Grid: (ceil(n / (kThreads/G*COLS)), splits). Block (bx, by) computes columns
// [bx*kThreads/G*COLS, ...) over rows [by*rows_per_split, +rows_per_split). CL: the cluster of
// column block bx adds the splits' dot products through distributed shared memory and stores y.
// Else partial == nullptr: store y; else store partial dot products to partial[by*n + col], and
// with counters (kernel t_lanegroup_lastblock) the last block of column block bx adds them up
// and stores y.
template <int G, int COLS, bool VA, bool VX, bool CL, int RS = 1>
__global__ __launch_bounds__(kThreads) void sgemv_t_lanegroup_float4(Args g, int rows_per_split,
                                                                     float* partial, unsigned* counters) {
  static_assert(G >= 4 && G <= kWarp && (G & (G - 1)) == 0, "G: a power of two in 4..32");
  static_assert(!VX || VA, "vector x loads only in the vector-A variant");
  static_assert(RS == 1 || (G == kWarp && COLS == 1 && !CL), "the block's row split: a warp per column");
  constexpr int kGroups = kThreads / G;  // lane groups per block
  // Row steps in flight. The block split's 8: at 4096^2 T, 8 against 4 took 29.1-29.6 us against
  // 30.3-34.4 (bench/results/h100-sgemv-2026-11-26-blocksplit.md); the other kernels keep theirs
  // (8 made 8192^2 1-2% slower there).
  constexpr int kUnroll = RS > 1 ? 8 : COLS >= 4 ? 2 : 4;
  const int lg = threadIdx.x % G;
  const int col0 = RS > 1 ? int(blockIdx.x) * (kGroups / RS) + int(threadIdx.x / G) / RS
                          : (blockIdx.x * kGroups + threadIdx.x / G) * COLS;
  const int split = RS > 1 ? int(threadIdx.x / G) % RS : int(blockIdx.y);
  const int r0 = min(g.m, split * rows_per_split);  // a cluster's last splits may be empty
  const int r1 = min(g.m, r0 + rows_per_split);
  const float* colp[COLS];  // (COLS) columns of this group; past n, re-read column n-1
  float acc[COLS];          // (COLS) partial dot products of this lane
#pragma unroll
  for (int c = 0; c < COLS; ++c) {
    colp[c] = g.a + int64_t(min(col0 + c, g.n - 1)) * g.lda;
    acc[c] = 0.f;
  }

  if (VA) {
    constexpr int kStep = 4 * G;  // rows per group per step
    int r = r0 + 4 * lg;
    for (; r + kStep * (kUnroll - 1) + 3 < r1; r += kStep * kUnroll) {
      float4 xv[kUnroll];        // (kUnroll) steps x 4 rows of x
      float4 av[kUnroll][COLS];  // (kUnroll) steps x (COLS) columns x 4 rows of A
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        xv[u] = load_x4<VX>(g, r + u * kStep);
#pragma unroll
        for (int c = 0; c < COLS; ++c)
          av[u][c] = __ldcs(reinterpret_cast<const float4*>(colp[c] + r + u * kStep));
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
#pragma unroll
        for (int c = 0; c < COLS; ++c) acc[c] = dot4(av[u][c], xv[u], acc[c]);
    }
    for (; r + 3 < r1; r += kStep) {
      const float4 xv = load_x4<VX>(g, r);
#pragma unroll
      for (int c = 0; c < COLS; ++c)
        acc[c] = dot4(__ldcs(reinterpret_cast<const float4*>(colp[c] + r)), xv, acc[c]);
    }
    // Only the block holding row m-1 can have a partial step: rows r..m-1.
    for (int q = 0; q < 3 && r + q < r1; ++q) {
      const float xq = g.x0[int64_t(r + q) * g.incx];
#pragma unroll
      for (int c = 0; c < COLS; ++c) acc[c] = fmaf(colp[c][r + q], xq, acc[c]);
    }
  } else {
    int r = r0 + lg;
    for (; r + G * 3 < r1; r += 4 * G) {
      float xv[4];        // (4) steps of x
      float av[4][COLS];  // (4) steps x (COLS) columns of A
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        xv[u] = g.x0[int64_t(r + u * G) * g.incx];
#pragma unroll
        for (int c = 0; c < COLS; ++c) av[u][c] = __ldcs(colp[c] + r + u * G);
      }
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int c = 0; c < COLS; ++c) acc[c] = fmaf(av[u][c], xv[u], acc[c]);
    }
    for (; r < r1; r += G) {
      const float xq = g.x0[int64_t(r) * g.incx];
#pragma unroll
      for (int c = 0; c < COLS; ++c) acc[c] = fmaf(colp[c][r], xq, acc[c]);
    }
  }

#pragma unroll
  for (int c = 0; c < COLS; ++c)
#pragma unroll
    for (int o = G / 2; o > 0; o /= 2) acc[c] += __shfl_xor_sync(0xffffffffu, acc[c], o);
  if constexpr (RS > 1) {  // the RS warps of each column add their sums in split order
    __shared__ float warp_sums[kGroups];
    if (lg == 0) warp_sums[threadIdx.x / G] = acc[0];
    __syncthreads();
    constexpr int kBlockCols = kGroups / RS;
    if (int(threadIdx.x) < kBlockCols) {
      const int col = int(blockIdx.x) * kBlockCols + int(threadIdx.x);
      if (col < g.n) {
        float sum = 0.f;
#pragma unroll
        for (int q = 0; q < RS; ++q) sum += warp_sums[threadIdx.x * RS + q];
        store_y(g.y0 + int64_t(col) * g.incy, sum, g.alpha, g.beta);
      }
    }
    return;
  }
  constexpr int kCols = kGroups * COLS;  // columns per block
  if constexpr (CL) {
    __shared__ float split_sums[kCols];  // (kCols) this split's dot products, read by the cluster
    if (lg == 0) {
#pragma unroll
      for (int c = 0; c < COLS; ++c) split_sums[threadIdx.x / G * COLS + c] = acc[c];
    }
    cluster_reduce_ordered(split_sums, kCols, [](int q) { return q; }, [&](int q, float sum) {
      const int col = blockIdx.x * kCols + q;
      if (col < g.n) store_y(g.y0 + int64_t(col) * g.incy, sum, g.alpha, g.beta);
    });
    return;
  }
  if (lg == 0) {
#pragma unroll
    for (int c = 0; c < COLS; ++c) {
      const int col = col0 + c;
      if (col >= g.n) break;
      if (partial)
        partial[int64_t(blockIdx.y) * g.n + col] = acc[c];
      else
        store_y(g.y0 + int64_t(col) * g.incy, acc[c], g.alpha, g.beta);
    }
  }
  if (!counters || !arrive_last(counters + blockIdx.x)) return;

  // Last block of this column block: thread (q, c) adds splits q, q + kParts, ... of column
  // c in order; part 0 adds the kParts sums in order.
  constexpr int kParts = kThreads / kCols;  // threads per column
  static_assert(kThreads % kCols == 0, "whole parts per column");
  __shared__ float sums[kParts][kCols];  // (kParts) x (kCols) part sums
  const int c = threadIdx.x % kCols, q = threadIdx.x / kCols;
  const int col = blockIdx.x * kCols + c;
  float sum = 0.f;
  if (col < g.n) {
    float* pp = partial + col;
#pragma unroll 4
    for (int k = q; k < int(gridDim.y); k += kParts) sum += __ldcg(pp + int64_t(k) * g.n);
  }
  sums[q][c] = sum;
  __syncthreads();
  if (q == 0 && col < g.n) {
    float t = 0.f;
#pragma unroll
    for (int k = 0; k < kParts; ++k) t += sums[k][c];
    store_y(g.y0 + int64_t(col) * g.incy, t, g.alpha, g.beta);
  }
}

using Kern = void (*)(Args, int, float*, unsigned*);

template <int G, int COLS, bool CL = false, int RS = 1>
Kern pick_variant(bool va, bool vx) {
  if (va && vx) return sgemv_t_lanegroup_float4<G, COLS, true, true, CL, RS>;
  if (va) return sgemv_t_lanegroup_float4<G, COLS, true, false, CL, RS>;
  return sgemv_t_lanegroup_float4<G, COLS, false, false, CL, RS>;
}

}  // namespace

cudaError_t launch_t_lanegroup(const GemvProblem& p, Split split, cudaStream_t s, int cluster) {
  // Clusters need compute capability 9.0; elsewhere the cluster kernel is the last-block split.
  if (split == Split::cluster && !device_has_clusters()) split = Split::lastblock;
  const Args g = make_args(p);
  const bool va = a_vectorizable(p), vx = va && x_vectorizable(p);
  constexpr int kAlignRows = 4 * kWarp;  // row splits start 16-byte aligned
  if (split == Split::block) {
    // RS warps per column, each at least kMinWarpRows rows, RS <= 8 (the block's warps); rows per
    // split a multiple of 128 (float4 alignment). 512 against 1024 and 256, alternating processes
    // (bench/results/h100-sgemv-2026-11-26-blocksplit.md): T 1024^2 7.8-8.1 us against 8.4-9.5
    // (1024) and 8.1 (256), 4096^2 27.6-28.0 against 28.6-29.2 (1024); 256 lost at 1000 x 100000
    // (153-155 us against 143: two warps of 500 rows).
    constexpr int kMinWarpRows = 512;
    int rs = 1;
    while (rs < 8 && p.m / (2 * rs) >= kMinWarpRows) rs *= 2;
    const int64_t rows64 = ((int64_t(p.m) + rs - 1) / rs + kAlignRows - 1) / kAlignRows * kAlignRows;
    if (rows64 * rs > INT32_MAX) rs = 1;  // (m near 2^31: the splits' row bounds must stay in int)
    const Kern kern = rs == 8   ? pick_variant<32, 1, false, 8>(va, vx)
                      : rs == 4 ? pick_variant<32, 1, false, 4>(va, vx)
                      : rs == 2 ? pick_variant<32, 1, false, 2>(va, vx)
                                : pick_variant<32, 1>(va, vx);
    const int rows_per_split = rs > 1 ? int(rows64) : p.m;
    const int cols_per_block = kThreads / kWarp / rs;
    kern<<<unsigned((int64_t(p.n) + cols_per_block - 1) / cols_per_block), kThreads, 0, s>>>(g, rows_per_split, nullptr,
                                                                                            nullptr);
    return cudaGetLastError();
  }
  if (split == Split::cluster) {
    // A warp per column, 8 columns per block (as t_lanegroup_lastblock); one cluster per column
    // block, C blocks splitting the rows: as many as fill the resident slots, each split at
    // least kMinClusterRows rows, C a power of two (the benchmark may force C up to the
    // device's limit). Measured on the H100 (bench/results/h100-sgemv-2026-11-22-v3.md, sweep
    // rows): from 256^2 to 8192^2 no cluster (C = 1: one plain launch, each warp walking its
    // whole column) was the fastest or within noise, and every extra split cost more than it
    // saved below 2048 rows per split. Rows per split are a multiple of 128 so that every split
    // starts 16-byte aligned.
    // Few column blocks (narrow tall shapes: 4096 x 128 has 16) leave most SMs idle with that
    // rule, so C is also allowed up to one block per SM with at least kMinNarrowRows rows per
    // split, whichever C is larger (bench/results/h100-sgemv-2026-11-26-tnarrow-run*.csv, forced
    // C on eight narrow shapes: 2048 x 256 9.1-9.3 us at C = 4 against 10.2-11.4 at C = 1,
    // 4096 x 128 9.0-10.2 at C = 8 against 12.5-13.0 at C = 2, 8192 x 128 10.1 at C = 8 against
    // 11.9-13.0 at C = 4). Shapes whose column blocks fill the SMs (512^2 .. 4096^2) keep C = 1:
    // at 512^2 and 1024^2 a split of their short columns measured slower.
    constexpr int kMinClusterRows = 2048;
    constexpr int kMinNarrowRows = 512;
    constexpr int kCols = kThreads / kWarp;  // columns per block
    const Kern kern = pick_variant<32, 1>(va, vx);
    const Kern ckern = pick_variant<32, 1, true>(va, vx);
    const int col_blocks = (p.n + kCols - 1) / kCols;
    int c = cluster;
    if (c <= 0) {
      const int slots = device_slots(reinterpret_cast<const void*>(kern), kThreads, 0);
      c = std::max(std::min(slots / col_blocks, p.m / kMinClusterRows),
                   std::min(device_sm_count() / col_blocks, p.m / kMinNarrowRows));
    }
    c = pow2_floor(std::min(c, cluster_limit(reinterpret_cast<const void*>(ckern), kThreads)));
    if (c <= 1) {
      kern<<<dim3(unsigned(col_blocks), 1u), kThreads, 0, s>>>(g, p.m, nullptr, nullptr);
      return cudaGetLastError();
    }
    const int rows_per_split = ((p.m + c - 1) / c + kAlignRows - 1) / kAlignRows * kAlignRows;
    return launch_clusters(ckern, dim3(unsigned(col_blocks), unsigned(c)), kThreads, 0, c, s, g, rows_per_split,
                           static_cast<float*>(nullptr), static_cast<unsigned*>(nullptr));
  }
  // Lanes per column: each lane should read >= 2 float4 of a column; small m gets small groups.
  // A split kernel's rows per split are large, so it always uses whole warps.
  const int quads = (p.m + 3) / 4;
  int G = 32;
  if (split == Split::none) {
    G = 4;
    while (G < 32 && 2 * G * 2 <= quads) G *= 2;
  }
  Kern kern;
  int cols_per_group = 4;
  switch (G) {
    case 4: kern = pick_variant<4, 4>(va, vx); break;
    case 8: kern = pick_variant<8, 4>(va, vx); break;
    case 16: kern = pick_variant<16, 4>(va, vx); break;
    default:
      if (split == Split::lastblock) {
        kern = pick_variant<32, 1>(va, vx);
        cols_per_group = 1;
      } else {
        kern = pick_variant<32, 4>(va, vx);
      }
      break;
  }
  const int cols_per_block = kThreads / G * cols_per_group;
  const int col_blocks = (p.n + cols_per_block - 1) / cols_per_block;
  int splits = 1, rows_per_split = p.m;
  if (split != Split::none) {
    // Fill one wave of resident blocks; each split a multiple of the unrolled row step (512
    // rows, keeping float4 alignment) and at least 1024 rows. With enough columns for a wave
    // this is one launch, the same as t_lanegroup with G = 32.
    const int slots = device_slots(reinterpret_cast<const void*>(kern), kThreads, 0);
    splits = std::max(1, std::min(slots / col_blocks, p.m / 1024));
    if (splits > 65535) splits = 65535;
    rows_per_split = (p.m + splits - 1) / splits;
    rows_per_split = (rows_per_split + 511) / 512 * 512;
    splits = (p.m + rows_per_split - 1) / rows_per_split;
  }
  if (splits == 1) {
    kern<<<dim3(unsigned(col_blocks), 1u), kThreads, 0, s>>>(g, p.m, nullptr, nullptr);
    return cudaGetLastError();
  }
  const size_t count = size_t(splits) * size_t(p.n);
  float* part = nullptr;
  cudaError_t e;
  if (split == Split::lastblock) {
    unsigned* counters = nullptr;
    e = lastblock_scratch_alloc(&counters, col_blocks, &part, count, s);
    if (e != cudaSuccess) return e;
    kern<<<dim3(unsigned(col_blocks), unsigned(splits)), kThreads, 0, s>>>(g, rows_per_split, part, counters);
    e = cudaGetLastError();
    lastblock_scratch_free(counters, s);
    return e;
  }
  e = scratch_alloc(&part, count, s);
  if (e != cudaSuccess) return e;
  kern<<<dim3(unsigned(col_blocks), unsigned(splits)), kThreads, 0, s>>>(g, rows_per_split, part, nullptr);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = reduce_partials(part, splits, p.n, p.alpha, p.beta, g.y0, g.incy, s);
  scratch_free(part, s);
  return e;
}

}  // namespace sgemv_detail
}  // namespace myblas
