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
// If A is misaligned or lda % 4 != 0 the same kernel runs with scalar loads (a lane owns rows
// lane, lane+32, lane+64, lane+96 of the block), still coalesced.
#include <algorithm>
#include <atomic>

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

__device__ __forceinline__ void axpy4(float4 a, float x, float (&acc)[4]) {
  acc[0] = fmaf(a.x, x, acc[0]);
  acc[1] = fmaf(a.y, x, acc[1]);
  acc[2] = fmaf(a.z, x, acc[2]);
  acc[3] = fmaf(a.w, x, acc[3]);
}

// Columns [wc0, wc0 + 32*chunks) of this lane's 4 rows (all in range, A 16-byte aligned,
// lda % 4 == 0), added to acc in column order (the same order as the generic loop below, so
// the sums are the same bitwise). The columns go in batches of kB = 8 loads, software-pipelined
// one batch ahead: the next batch's loads are issued before the current batch's FMAs (across
// the 32-column chunks of x too), so a warp keeps 8 to 16 loads in flight instead of draining
// to none at the end of every batch. x[c] sits in lane c % 32 and is broadcast by shuffle; the
// next chunk's x is loaded one chunk ahead.
__device__ __forceinline__ void stream_full_rows(const float* ap, int64_t lda, const float* x0,
                                                 int64_t incx, int wc0, int chunks, int lane,
                                                 float (&acc)[4]) {
  constexpr int kB = 8;                  // loads per batch
  constexpr int kPerChunk = kWarp / kB;  // batches per 32-column chunk of x
  const int64_t ld4 = lda / 4;           // float4 per column
  const float4* q = reinterpret_cast<const float4*>(ap + int64_t(wc0) * lda);
  const float* xp = x0 + int64_t(wc0 + lane) * incx;  // x[chunk + lane]
  const int64_t xstep = int64_t(kWarp) * incx;
  float xv = *xp, xn = 0.f;
  float4 cur[kB];  // (kB) columns x 4 rows: the batch being added
#pragma unroll
  for (int u = 0; u < kB; ++u, q += ld4) cur[u] = __ldcs(q);
  const int batches = chunks * kPerChunk;
  for (int j = 0; j < batches; ++j) {
    const int jb = j % kPerChunk;
    if (jb == 0 && j + kPerChunk < batches) xn = xp[xstep];  // next chunk's x
    float4 nxt[kB];  // (kB) columns x 4 rows: the batch in flight
    if (j + 1 < batches) {
#pragma unroll
      for (int u = 0; u < kB; ++u, q += ld4) nxt[u] = __ldcs(q);
    }
#pragma unroll
    for (int u = 0; u < kB; ++u) axpy4(cur[u], __shfl_sync(0xffffffffu, xv, jb * kB + u), acc);
    if (jb == kPerChunk - 1) {
      xv = xn;
      xp += xstep;
    }
#pragma unroll
    for (int u = 0; u < kB; ++u) cur[u] = nxt[u];
  }
}

// @tparam VA float4 loads of A (A 16-byte aligned, lda % 4 == 0)
// @tparam CL launched as clusters of gridDim.y blocks (kernel n_rowblock_cluster)
// Grid: (ceil(m / kRows), splits). Block (bx, by) computes rows [bx*kRows, +kRows) over columns
// [by*cols_per_split, +cols_per_split). CL: the cluster of row block bx adds the splits' sums
// through distributed shared memory and stores y. Else partial == nullptr: store y; else store
// partial sums to partial[by*m + row], and with counters (kernel n_rowblock_lastblock) the last
// block of row block bx adds them up and stores y.
template <bool VA, bool CL, bool PIPE>
__global__ __launch_bounds__(kThreads, PIPE ? 2 : VA ? 4 : 2) void sgemv_n_rowblock_float4(Args g, int cols_per_split,
                                                                    float* partial, unsigned* counters) {
  static_assert(kThreads == 2 * kRows, "the last block adds each row's splits with two threads");
  __shared__ float4 red[kWarps][kRows / 4];  // (8 warps) x (128 rows) partial sums
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int row0 = blockIdx.x * kRows;
  const int r = VA ? row0 + 4 * lane : row0 + lane;  // this lane's first row
  const int c0 = min(g.n, int(blockIdx.y) * cols_per_split);  // a cluster's last splits may be empty
  const int c1 = min(g.n, c0 + cols_per_split);
  const int per = (c1 - c0 + kWarps - 1) / kWarps;
  const int wc0 = min(c1, c0 + warp * per), wc1 = min(c1, wc0 + per);  // this warp's columns
  const float* ap = g.a + (r < g.m ? r : 0);
  float acc[4] = {0.f, 0.f, 0.f, 0.f};  // (4) rows of this lane

  int cstart = wc0;
  if constexpr (VA && PIPE) {
    if (row0 + kRows <= g.m && wc1 - wc0 >= kWarp) {  // every row of the block in range (warp-uniform)
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
    float* rw = reinterpret_cast<float*>(red[warp]);
#pragma unroll
    for (int q = 0; q < 4; ++q) rw[lane + 32 * q] = acc[q];
  }
  __syncthreads();
  if constexpr (CL) {
    __shared__ float split_sums[kRows];  // (kRows) this split's sums, read by the whole cluster
    if (threadIdx.x < kRows) {
      float s = 0.f;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) s += reinterpret_cast<const float*>(red[w])[threadIdx.x];
      split_sums[threadIdx.x] = s;
    }
    cluster_reduce_ordered(split_sums, kRows, [](int q) { return q; }, [&](int t, float s) {
      if (row0 + t < g.m) store_y(g.y0 + int64_t(row0 + t) * g.incy, s, g.alpha, g.beta);
    });
    return;
  }
  if (threadIdx.x < kRows) {
    const int t = threadIdx.x;
    float s = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) s += reinterpret_cast<const float*>(red[w])[t];
    const int row = row0 + t;
    if (row < g.m) {
      if (partial)
        partial[int64_t(blockIdx.y) * g.m + row] = s;
      else
        store_y(g.y0 + int64_t(row) * g.incy, s, g.alpha, g.beta);
    }
  }
  if (!counters || !arrive_last(counters + blockIdx.x)) return;

  // Last block of this row block: thread (h, t) adds splits [h*half, ...) of row row0 + t in
  // order; the two halves are added in order.
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

// Multiprocessors of the current device, cached per device.
int sm_count() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cache[kMaxDevices] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) {
    cudaGetLastError();  // not this call's error: the launch that follows reports its own
    return 132;
  }
  int sms = cache[dev].load(std::memory_order_relaxed);
  if (!sms) {
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms < 1) {
      cudaGetLastError();
      sms = 132;
    }
    cache[dev].store(sms, std::memory_order_relaxed);
  }
  return sms;
}

}  // namespace

cudaError_t launch_n_rowblock(const GemvProblem& p, Split split, cudaStream_t s, int cluster) {
  // Clusters need compute capability 9.0; elsewhere the cluster kernel is the last-block split.
  if (split == Split::cluster && !device_has_clusters()) split = Split::lastblock;
  const Args g = make_args(p);
  const bool va = a_vectorizable(p);
  using Kern = void (*)(Args, int, float*, unsigned*);
  const Kern kern = va ? sgemv_n_rowblock_float4<true, false, false> : sgemv_n_rowblock_float4<false, false, false>;
  const int row_blocks = (p.m + kRows - 1) / kRows;
  int splits = 1, cols_per_split = p.n;
  if (split == Split::cluster) {
    // One cluster per row block, C blocks splitting the columns, C a power of two, each split
    // at least kMinClusterCols columns. Two measured configurations
    // (bench/results/h100-sgemv-2026-11-22-v4.md):
    //  - streamed: at most one block per SM, running the software-pipelined loop
    //    (stream_full_rows), when that leaves every warp at least kLongStream columns: 8192^2
    //    takes C = 2 (128 blocks), 16384^2 C = 1 (a plain launch of 128 blocks). With two
    //    pipelined blocks per SM (8192^2, C = 4) the stream was ~10% slower (DRAM at 76% of
    //    peak against 87%).
    //  - otherwise as many blocks of the unpipelined loop as fill the resident slots (4 per
    //    SM), C <= kAutoCluster: C = 8 was the best or within noise of it from 512^2 to 4096^2;
    //    16-block clusters were not faster anywhere. (4096^2 streamed, C = 4, was no faster.)
    // A forced C (benchmark) takes the streamed loop under the same two conditions.
    const Kern ckern = va ? sgemv_n_rowblock_float4<true, true, false> : sgemv_n_rowblock_float4<false, true, false>;
    constexpr int kMinClusterCols = 64;  // 8 per warp: one batch of kUnroll loads
    constexpr int kAutoCluster = 8;
    constexpr int kLongStream = 256;  // columns per warp for the pipelined loop to pay
    const int sms = sm_count();
    auto streamed = [&](int c) { return va && row_blocks * c <= sms && p.n / (c * kWarps) >= kLongStream; };
    int c = cluster;
    if (c <= 0) {
      c = pow2_floor(std::min({kAutoCluster, sms / row_blocks, p.n / kMinClusterCols}));
      if (!streamed(c)) {
        const int slots = device_slots(reinterpret_cast<const void*>(kern), kThreads, 0);
        c = std::min({kAutoCluster, slots / row_blocks, p.n / kMinClusterCols});
      }
    }
    c = pow2_floor(std::min(c, cluster_limit(reinterpret_cast<const void*>(ckern), kThreads)));
    const bool pipe = streamed(c);  // stays true if the pipelined kernel's limit lowers C
    const Kern ck = pipe ? sgemv_n_rowblock_float4<true, true, true> : ckern;
    if (pipe) c = pow2_floor(std::min(c, cluster_limit(reinterpret_cast<const void*>(ck), kThreads)));
    if (c <= 1) {
      const Kern k1 = pipe ? sgemv_n_rowblock_float4<true, false, true> : kern;
      k1<<<dim3(unsigned(row_blocks), 1u), kThreads, 0, s>>>(g, p.n, nullptr, nullptr);
      return cudaGetLastError();
    }
    return launch_clusters(ck, dim3(unsigned(row_blocks), unsigned(c)), kThreads, 0, c, s, g, (p.n + c - 1) / c,
                           static_cast<float*>(nullptr), static_cast<unsigned*>(nullptr));
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
