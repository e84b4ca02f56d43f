// Production SGEMV, op(A) = A: row blocks streamed with float4 loads (kernels n_rowblock,
// n_rowblock_split, n_rowblock_lastblock and n_rowblock_cluster).
//
// What changed from rung 4: rung 4 gives each thread one row and walks every column, so a warp
// moves 128 bytes per load instruction and a block of 256 rows is the only unit of parallelism
// (4096 rows = 16 blocks: most of the 132 SMs idle). Here:
//   - each lane owns 4 consecutive rows and reads them with one 16-byte load (a warp reads
//     512 contiguous bytes of a column per instruction); a block owns kRows = 128 rows;
//   - the block's 8 warps split the columns between them (contiguous ranges), and add their
//     128-row partial sums in shared memory at the end, in warp order;
//   - x is read 32 elements at a time, one per lane, and broadcast by __shfl_sync, so the inner
//     loop issues only A loads: 8 independent float4 loads in flight per lane;
//   - A is read with __ldcs (evict-first): it is touched once, x and y should stay in L2;
//   - n_rowblock_split also splits the columns over gridDim.y blocks when there are too few row
//     blocks to fill the device (short-wide and square shapes): each split writes its partial
//     sums to scratch, and a second kernel adds the splits in order (deterministic);
//   - n_rowblock_lastblock splits the same way in ONE launch: the last block to finish of each
//     row block (found with a counter, common.cuh arrive_last) adds its 128 rows' partials in
//     split order. That saves the second launch and its wait for the whole grid (~7% of a
//     4096^2 call, bench/results/h100-sgemv-2026-11-22.md), but pays a memset of the counters,
//     a fence, an atomic and a second read of the partials through L2;
//   - n_rowblock_cluster splits the columns over the C = gridDim.y blocks of a thread-block
//     cluster (Hopper, C <= 16): each block keeps its 128 partial sums in shared memory, and
//     after cluster.sync() the blocks read each other's sums through distributed shared memory
//     and add them in rank order (common.cuh cluster_reduce_ordered). One launch with no
//     scratch, no counters, no memset; for small and mid shapes the column split then puts the
//     whole matrix's loads in flight in one round instead of several rounds per warp;
//   - n_rowblock_cluster on large shapes (8192^2, 16384^2: every warp streams >= 256 columns
//     when there is at most one block per SM) runs a software-pipelined loop (stream_full_rows):
//     the next batch of 8 loads is issued before the current batch's FMAs, so a warp never
//     drains to zero loads in flight between batches. It pays only with one block per SM: at
//     two per SM the extra requests in flight lowered DRAM throughput (ncu, v4 results).
//   - n_rowblock_cluster takes the pipelined kernel whenever there is at most one block per SM
//     (4096^2 and smaller too), and on mid shapes (4096^2) stacks two warps along the rows
//     (template RW = 2: 256-row blocks, the 8 warps in 4 column groups), so that 128 blocks,
//     one per SM, each stream 128 columns per warp (v5 results). Row t of a block adds its
//     column groups in group order, so RW = 1 sums are those of the former kernel bitwise.
// If A is misaligned or lda % 4 != 0 the same kernel runs with scalar loads (a lane owns rows
// lane, lane+32, lane+64, lane+96 of the block), still coalesced.
#include <algorithm>

#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarp;  // warps per block, splitting the columns
constexpr int kRows = 4 * kWarp;           // rows of A per block
constexpr int kUnroll = 8;                 // columns per inner step (float4 loads in flight)
static_assert(kRows == 128, "a lane owns 4 rows of the block");

// One column's 4 rows for this lane. VA: rows r..r+3 (16-byte load when all are in range).
template <bool VA>
__device__ __forceinline__ float4 load_rows(const float* p, int r, int m) {
  if (VA) {
    if (r + 3 < m) return __ldcs(reinterpret_cast<const float4*>(p));
    return make_float4(r < m ? p[0] : 0.f, r + 1 < m ? p[1] : 0.f, r + 2 < m ? p[2] : 0.f, 0.f);
  }
  return make_float4(r < m ? __ldcs(p) : 0.f, r + 32 < m ? __ldcs(p + 32) : 0.f,
                     r + 64 < m ? __ldcs(p + 64) : 0.f, r + 96 < m ? __ldcs(p + 96) : 0.f);
}

// Columns [wc0, wc0 + 32*chunks) of this lane's 4 rows (all in range, A 16-byte aligned,
// lda % 4 == 0), added to acc in column order (the same order as the generic loop below, so
// the sums are the same bitwise). The columns go in batches of kB = 8 loads, software-pipelined
// one batch ahead: the next batch's loads are issued before the current batch's FMAs (across
// the 32-column chunks of x too), so a warp keeps 8 to 16 loads in flight instead of draining
// to none at the end of every batch. x[c] sits in lane c % 32 and is broadcast by shuffle; the
// next chunk's x is loaded one chunk ahead. The 4 batches of a chunk are unrolled, so only the
// last batch of the last chunk is without a next batch: the loads of every other batch are
// unconditional. (v5: 1.5-2.5% faster at 8192^2 and 16384^2 than the former loop of one batch
// per iteration, whose loads sat behind a branch.)
__device__ __forceinline__ void stream_full_rows(const float* ap, int64_t lda, const float* x0,
                                                 int64_t incx, int wc0, int chunks, int lane,
                                                 float (&acc)[4]) {
  constexpr int kB = 8;                  // loads per batch
  constexpr int kPerChunk = kWarp / kB;  // batches per 32-column chunk of x
  const int64_t ld4 = lda / 4;           // float4 per column
  const float4* q = reinterpret_cast<const float4*>(ap + int64_t(wc0) * lda);
  const float* xp = x0 + int64_t(wc0 + lane) * incx;  // x[chunk + lane]
  const int64_t xstep = int64_t(kWarp) * incx;
  float xv = *xp;
  float4 cur[kB];  // (kB) columns x 4 rows: the batch being added
#pragma unroll
  for (int u = 0; u < kB; ++u, q += ld4) cur[u] = __ldcs(q);
  for (int ch = 0; ch < chunks; ++ch) {
    const bool more = ch + 1 < chunks;  // warp-uniform
    const float xn = more ? xp[xstep] : 0.f;  // next chunk's x
#pragma unroll
    for (int jb = 0; jb < kPerChunk; ++jb) {
      float4 nxt[kB];  // (kB) columns x 4 rows: the batch in flight
      if (jb + 1 < kPerChunk || more) {
#pragma unroll
        for (int u = 0; u < kB; ++u, q += ld4) nxt[u] = __ldcs(q);
      }
#pragma unroll
      for (int u = 0; u < kB; ++u) axpy4(cur[u], __shfl_sync(0xffffffffu, xv, jb * kB + u), acc);
#pragma unroll
      for (int u = 0; u < kB; ++u) cur[u] = nxt[u];
    }
    xv = xn;
    xp += xstep;
  }
}

// @tparam VA float4 loads of A (A 16-byte aligned, lda % 4 == 0)
// @tparam CL launched as clusters of gridDim.y blocks (kernel n_rowblock_cluster)
// @tparam PIPE the software-pipelined stream for warps whose 128 rows are all in range
// @tparam RW warps stacked along the rows (1 or 2; 2 only for n_rowblock_cluster): a block
//   owns RW*kRows rows, and its kWarps/RW column groups split the block's columns
// Grid: (ceil(m / (RW*kRows)), splits). Block (bx, by) computes rows [bx*RW*kRows, +RW*kRows)
// over columns [by*cols_per_split, +cols_per_split). CL: the cluster of row block bx adds the
// splits' sums through distributed shared memory and stores y. Else partial == nullptr: store
// y; else store partial sums to partial[by*m + row], and with counters (kernel
// n_rowblock_lastblock, RW = 1) the last block of row block bx adds them up and stores y.
template <bool VA, bool CL, bool PIPE, int RW>
__global__ __launch_bounds__(kThreads, PIPE ? 2 : VA ? 4 : 2) void sgemv_n_rowblock_float4(Args g, int cols_per_split,
                                                                    float* partial, unsigned* counters) {
  static_assert(kThreads == 2 * kRows, "the last block adds each row's splits with two threads");
  static_assert(RW == 1 || RW == 2, "one or two warps stacked along the rows");
  static_assert(!PIPE || VA, "the pipelined stream uses float4 loads");
  constexpr int kBlockRows = RW * kRows;  // rows of A per block
  constexpr int kGroups = kWarps / RW;    // column groups per block
  __shared__ float4 red[kWarps][kRows / 4];  // (8 warps) x (128 rows) partial sums
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int rw = warp % RW, cw = warp / RW;  // this warp's 128 rows and column group
  const int row0 = blockIdx.x * kBlockRows;
  const int wrow0 = row0 + rw * kRows;                // this warp's first row
  const int r = VA ? wrow0 + 4 * lane : wrow0 + lane;  // this lane's first row
  const int c0 = min(g.n, int(blockIdx.y) * cols_per_split);  // a cluster's last splits may be empty
  const int c1 = min(g.n, c0 + cols_per_split);
  const int per = (c1 - c0 + kGroups - 1) / kGroups;
  const int wc0 = min(c1, c0 + cw * per), wc1 = min(c1, wc0 + per);  // this warp's columns
  const float* ap = g.a + (r < g.m ? r : 0);
  float acc[4] = {0.f, 0.f, 0.f, 0.f};  // (4) rows of this lane

  int cstart = wc0;
  if constexpr (PIPE) {
    if (wrow0 + kRows <= g.m && wc1 - wc0 >= kWarp) {  // every row of the warp in range (warp-uniform)
      const int chunks = (wc1 - wc0) / kWarp;
      stream_full_rows(ap, g.lda, g.x0, g.incx, wc0, chunks, lane, acc);
      cstart = wc0 + chunks * kWarp;
    }
  }
  for (int cb = cstart; cb < wc1; cb += kWarp) {
    const int cnt = min(kWarp, wc1 - cb);
    const float xv = lane < cnt ? g.x0[int64_t(cb + lane) * g.incx] : 0.f;  // x[cb + lane]
    const float* acol = ap + int64_t(cb) * g.lda;
    int c = 0;
    for (; c + kUnroll <= cnt; c += kUnroll) {
      float4 a[kUnroll];  // (kUnroll) columns x 4 rows
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) a[u] = load_rows<VA>(acol + int64_t(c + u) * g.lda, r, g.m);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) axpy4(a[u], __shfl_sync(0xffffffffu, xv, c + u), acc);
    }
    for (; c < cnt; ++c)
      axpy4(load_rows<VA>(acol + int64_t(c) * g.lda, r, g.m), __shfl_sync(0xffffffffu, xv, c), acc);
  }

  // Rows as stored in red: VA lane owns rows 4*lane..+3; scalar lane owns lane+32q.
  if (VA) {
    red[warp][lane] = make_float4(acc[0], acc[1], acc[2], acc[3]);
  } else {
    float* rw_sums = reinterpret_cast<float*>(red[warp]);
#pragma unroll
    for (int q = 0; q < 4; ++q) rw_sums[lane + 32 * q] = acc[q];
  }
  __syncthreads();
  // Block row t's sum over the column groups, in group order: warp w = group*RW + t / kRows.
  auto block_sum = [&](int t) {
    float s = 0.f;
#pragma unroll
    for (int q = 0; q < kGroups; ++q) s += reinterpret_cast<const float*>(red[q * RW + t / kRows])[t % kRows];
    return s;
  };
  if constexpr (CL) {
    __shared__ float split_sums[kBlockRows];  // (RW*kRows) this split's sums, read by the whole cluster
    for (int t = threadIdx.x; t < kBlockRows; t += kThreads) split_sums[t] = block_sum(t);
    cluster_reduce_ordered(split_sums, kBlockRows, [](int q) { return q; }, [&](int t, float s) {
      if (row0 + t < g.m) store_y(g.y0 + int64_t(row0 + t) * g.incy, s, g.alpha, g.beta);
    });
  } else {
    for (int t = threadIdx.x; t < kBlockRows; t += kThreads) {
      const float s = block_sum(t);
      const int row = row0 + t;
      if (row < g.m) {
        if (partial)
          partial[int64_t(blockIdx.y) * g.m + row] = s;
        else
          store_y(g.y0 + int64_t(row) * g.incy, s, g.alpha, g.beta);
      }
    }
    if constexpr (RW == 1) {
      if (!counters || !arrive_last(counters + blockIdx.x)) return;

      // Last block of this row block: thread (h, t) adds splits [h*half, ...) of row row0 + t
      // in order; the two halves are added in order.
      const int t = threadIdx.x % kRows, h = threadIdx.x / kRows;
      const int row = row0 + t;
      const int half = (gridDim.y + 1) / 2;
      const int k0 = h * half, k1 = h == 0 ? half : gridDim.y;
      float sum = 0.f;
      if (row < g.m) {
        float* pp = partial + row;
#pragma unroll 8
        for (int k = k0; k < k1; ++k) sum += __ldcg(pp + int64_t(k) * g.m);
      }
      float* upper = reinterpret_cast<float*>(red);  // (kRows) second-half sums; red is free again
      if (h == 1) upper[t] = sum;
      __syncthreads();
      if (h == 0 && row < g.m) store_y(g.y0 + int64_t(row) * g.incy, sum + upper[t], g.alpha, g.beta);
    }
  }
}

using Kern = void (*)(Args, int, float*, unsigned*);

// The instance for float4 loads or not (va), a cluster launch or not (cl), the pipelined stream
// or not (pipe, float4 only) and RW warps along the rows (2: float4 only).
Kern n_kernel(bool va, bool cl, bool pipe, int rw) {
  if (!va) return cl ? sgemv_n_rowblock_float4<false, true, false, 1> : sgemv_n_rowblock_float4<false, false, false, 1>;
  if (rw == 2)
    return cl ? (pipe ? sgemv_n_rowblock_float4<true, true, true, 2> : sgemv_n_rowblock_float4<true, true, false, 2>)
              : (pipe ? sgemv_n_rowblock_float4<true, false, true, 2> : sgemv_n_rowblock_float4<true, false, false, 2>);
  return cl ? (pipe ? sgemv_n_rowblock_float4<true, true, true, 1> : sgemv_n_rowblock_float4<true, true, false, 1>)
            : (pipe ? sgemv_n_rowblock_float4<true, false, true, 1> : sgemv_n_rowblock_float4<true, false, false, 1>);
}

}  // namespace

cudaError_t launch_n_rowblock(const GemvProblem& p, Split split, cudaStream_t s, int cluster, int row_warps) {
  // Clusters need compute capability 9.0; elsewhere the cluster kernel is the last-block split.
  if (split == Split::cluster && !device_has_clusters()) split = Split::lastblock;
  const Args g = make_args(p);
  const bool va = a_vectorizable(p);
  const Kern kern = n_kernel(va, false, false, 1);
  const int row_blocks = (p.m + kRows - 1) / kRows;
  int splits = 1, cols_per_split = p.n;
  if (split == Split::cluster) {
    // One cluster per row block, C blocks splitting the columns, C a power of two, each split
    // at least kMinClusterCols columns. Measured configurations (H100,
    // bench/results/h100-sgemv-2026-11-22-v4.md and -v5.md), tried in this order:
    //  1. streamed, 128-row blocks: at most one block per SM, C <= 8, every warp streaming at
    //     least kLongStream columns with the software-pipelined loop (stream_full_rows):
    //     8192^2 takes C = 2 (128 blocks), 16384^2 C = 1 (a plain launch of 128 blocks). Two
    //     pipelined blocks per SM (8192^2, C = 4) were ~10% slower (DRAM 76% busy against 87%);
    //     256-row blocks with C = 4 were 0.7-1.4% slower.
    //  2. streamed, 256-row blocks (RW = 2: two warps along the rows, four column groups): at
    //     most one block per SM, C <= 8, every warp at least kMidStream columns: 4096^2 takes
    //     16 row blocks x C = 8 (128 blocks), 3-6% faster than 128-row blocks (C = 4, 128
    //     blocks) or the former 256 unpipelined blocks (C = 8) with the v5 stream loop.
    //  3. at most as many row blocks as SMs: 128-row blocks, C <= 16 as far as one block per
    //     SM allows, the pipelined kernel (its stream takes warps of >= 32 columns): 2048^2 C =
    //     8, 1024^2 C = 16, 512^2 C = 8, 256^2 C = 4.
    //  4. more row blocks than SMs: as many blocks of the unpipelined loop as fill the
    //     resident slots (4 per SM), C <= 8 (32768^2: C = 2).
    // A forced C (benchmark, tests) takes row_warps rows of warps (2 only with float4 loads)
    // and the pipelined kernel whenever that leaves at most one block per SM.
    constexpr int kMinClusterCols = 64;  // 8 per warp: one batch of kUnroll loads
    constexpr int kAutoCluster = 8;
    constexpr int kSmallCluster = 16;
    constexpr int kLongStream = 256;  // columns per warp, configuration 1
    constexpr int kMidStream = 128;   // columns per warp, configuration 2
    const int sms = device_sm_count();
    const int row_blocks2 = (p.m + 2 * kRows - 1) / (2 * kRows);
    int c = cluster, rw = va && row_warps == 2 ? 2 : 1;
    if (c <= 0) {
      rw = 1;
      c = pow2_floor(std::min({kAutoCluster, sms / row_blocks, p.n / kMinClusterCols}));
      const int c2 = pow2_floor(std::min({kAutoCluster, sms / row_blocks2, p.n / kMinClusterCols}));
      if (va && row_blocks <= sms && p.n / (c * kWarps) >= kLongStream) {
        // 1
      } else if (va && row_blocks2 <= sms && p.n / (c2 * (kWarps / 2)) >= kMidStream) {
        rw = 2;  // 2
        c = c2;
      } else if (row_blocks <= sms) {
        c = pow2_floor(std::min({kSmallCluster, sms / row_blocks, p.n / kMinClusterCols}));  // 3
      } else {
        const int slots = device_slots(reinterpret_cast<const void*>(kern), kThreads, 0);
        c = std::max(1, std::min({kAutoCluster, slots / row_blocks, p.n / kMinClusterCols}));  // 4
      }
    }
    const int blocks_per_split = rw == 2 ? row_blocks2 : row_blocks;
    const bool pipe = va && int64_t(blocks_per_split) * c <= sms;  // stays true if the limit lowers C
    c = pow2_floor(std::min(c, cluster_limit(reinterpret_cast<const void*>(n_kernel(va, true, pipe, rw)), kThreads)));
    if (c <= 1) {
      n_kernel(va, false, pipe, rw)<<<dim3(unsigned(blocks_per_split), 1u), kThreads, 0, s>>>(g, p.n, nullptr, nullptr);
      return cudaGetLastError();
    }
    return launch_clusters(n_kernel(va, true, pipe, rw), dim3(unsigned(blocks_per_split), unsigned(c)), kThreads, 0, c,
                           s, g, (p.n + c - 1) / c, static_cast<float*>(nullptr), static_cast<unsigned*>(nullptr));
  }
  if (split != Split::none) {
    // One wave of resident blocks: as many column splits as fill the free slots, each split
    // at least 64 columns (8 per warp) so the partial sums stay a small fraction of A.
    const int slots = device_slots(reinterpret_cast<const void*>(kern), kThreads, 0);
    splits = std::max(1, std::min(slots / row_blocks, p.n / 64));
    if (splits > 65535) splits = 65535;
    cols_per_split = (p.n + splits - 1) / splits;
    cols_per_split = (cols_per_split + 7) / 8 * 8;
    splits = (p.n + cols_per_split - 1) / cols_per_split;
  }
  if (splits == 1) {
    kern<<<dim3(unsigned(row_blocks), 1u), kThreads, 0, s>>>(g, p.n, nullptr, nullptr);
    return cudaGetLastError();
  }
  const size_t count = size_t(splits) * size_t(p.m);
  float* part = nullptr;
  cudaError_t e;
  if (split == Split::lastblock) {
    unsigned* counters = nullptr;
    e = lastblock_scratch_alloc(&counters, row_blocks, &part, count, s);
    if (e != cudaSuccess) return e;
    kern<<<dim3(unsigned(row_blocks), unsigned(splits)), kThreads, 0, s>>>(g, cols_per_split, part, counters);
    e = cudaGetLastError();
    lastblock_scratch_free(counters, s);
    return e;
  }
  e = scratch_alloc(&part, count, s);
  if (e != cudaSuccess) return e;
  kern<<<dim3(unsigned(row_blocks), unsigned(splits)), kThreads, 0, s>>>(g, cols_per_split, part, nullptr);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = reduce_partials(part, splits, p.m, p.alpha, p.beta, g.y0, g.incy, s);
  scratch_free(part, s);
  return e;
}

}  // namespace sgemv_detail
}  // namespace myblas
