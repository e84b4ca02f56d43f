// Rung 4 of the SGEMV ladder: x staged through shared-memory tiles.
//
// What changed from rung 3: instead of one process-wide __constant__ copy (size-limited, unsafe
// across streams, serialised for T), each block loads the part of x it needs, one tile at a
// time, into shared memory, with all its threads cooperating (a strided or backwards x is
// gathered here, once per block, instead of once per thread). Shared memory serves 32 different
// addresses per cycle, so both access patterns are fast: N reads one word for the whole warp
// (broadcast), T reads 32 consecutive words (no bank conflicts).
//   N: a block owns 256 rows (a thread per row); tiles of kTileN columns of x.
//   T: a block owns 8 columns (a warp per column); tiles of kTileT rows of x, shared by the
//      block's 8 warps, so x is fetched from L2 once per 8 columns instead of once per column.
// Any length of x works (no 16384 limit).
#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarp;
constexpr int kTileN = 256;   // columns of A (elements of x) per shared tile, N
constexpr int kTileT = 2048;  // rows of A (elements of x) per shared tile, T

__global__ __launch_bounds__(kThreads) void sgemv_n_thread_per_row_xshared(Args g) {
  __shared__ float xs[kTileN];  // (kTileN) elements of x for this tile of columns
  const int i = blockIdx.x * kThreads + threadIdx.x;
  const bool row_ok = i < g.m;
  const float* row = g.a + (row_ok ? i : 0);
  float acc[4] = {0.f, 0.f, 0.f, 0.f};  // (4) partial sums, columns j mod 4
  for (int j0 = 0; j0 < g.n; j0 += kTileN) {
    const int cols = min(kTileN, g.n - j0);
    for (int t = threadIdx.x; t < cols; t += kThreads) xs[t] = g.x0[int64_t(j0 + t) * g.incx];
    __syncthreads();
    if (row_ok) {
      const float* a = row + int64_t(j0) * g.lda;
      int c = 0;
      for (; c + 3 < cols; c += 4) {
#pragma unroll
        for (int u = 0; u < 4; ++u) acc[u] = fmaf(a[int64_t(c + u) * g.lda], xs[c + u], acc[u]);
      }
      for (; c < cols; ++c) acc[0] = fmaf(a[int64_t(c) * g.lda], xs[c], acc[0]);
    }
    __syncthreads();
  }
  if (row_ok) store_y(g.y0 + int64_t(i) * g.incy, (acc[0] + acc[1]) + (acc[2] + acc[3]), g.alpha, g.beta);
}

__global__ __launch_bounds__(kThreads) void sgemv_t_warp_per_column_xshared(Args g) {
  __shared__ float xs[kTileT];  // (kTileT) elements of x for this tile of rows
  const int lane = threadIdx.x % kWarp;
  const int j = blockIdx.x * kWarps + threadIdx.x / kWarp;
  const bool col_ok = j < g.n;
  const float* col = g.a + int64_t(col_ok ? j : 0) * g.lda;
  float acc = 0.f;
  for (int i0 = 0; i0 < g.m; i0 += kTileT) {
    const int rows = min(kTileT, g.m - i0);
    for (int t = threadIdx.x; t < rows; t += kThreads) xs[t] = g.x0[int64_t(i0 + t) * g.incx];
    __syncthreads();
    if (col_ok)
      for (int r = lane; r < rows; r += kWarp) acc = fmaf(col[i0 + r], xs[r], acc);
    __syncthreads();
  }
#pragma unroll
  for (int o = kWarp / 2; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (col_ok && lane == 0) store_y(g.y0 + int64_t(j) * g.incy, acc, g.alpha, g.beta);
}

}  // namespace

cudaError_t launch_x_shared(const GemvProblem& p, cudaStream_t s) {
  const Args g = make_args(p);
  if (p.ta == Op::N)
    sgemv_n_thread_per_row_xshared<<<unsigned((p.m + kThreads - 1) / kThreads), kThreads, 0, s>>>(g);
  else
    sgemv_t_warp_per_column_xshared<<<unsigned((p.n + kWarps - 1) / kWarps), kThreads, 0, s>>>(g);
  return cudaGetLastError();
}

}  // namespace sgemv_detail
}  // namespace myblas
