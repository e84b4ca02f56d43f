// Rung 2 of the SGEMV ladder: coalesced reads of A for both transposes.
//
// What changed from rung 1: for T, a whole warp now computes one element of y. Its 32 lanes
// read 32 consecutive rows of the column (one 128-byte line per load instruction instead of 32
// sectors), each lane keeps a partial sum, and a shuffle tree adds the 32 partials. That is the
// transposed access pattern: the reduction moves from a per-thread loop into the warp.
// For N, column-major storage already made rung 1 coalesced (lanes = consecutive rows of one
// column), so the N kernel here is rung 1's with four independent column streams per thread,
// which keeps more loads in flight; it is kept so that every rung runs both transposes.
#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarp;

__global__ __launch_bounds__(kThreads) void sgemv_n_thread_per_row_4col(Args g) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= g.m) return;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};  // (4) partial sums, columns j mod 4
  const float* row = g.a + i;
  int j = 0;
  for (; j + 3 < g.n; j += 4) {
#pragma unroll
    for (int u = 0; u < 4; ++u)
      acc[u] = fmaf(row[int64_t(j + u) * g.lda], g.x0[int64_t(j + u) * g.incx], acc[u]);
  }
  for (; j < g.n; ++j) acc[0] = fmaf(row[int64_t(j) * g.lda], g.x0[int64_t(j) * g.incx], acc[0]);
  store_y(g.y0 + int64_t(i) * g.incy, (acc[0] + acc[1]) + (acc[2] + acc[3]), g.alpha, g.beta);
}

__global__ __launch_bounds__(kThreads) void sgemv_t_warp_per_column(Args g) {
  const int lane = threadIdx.x % kWarp;
  const int j = blockIdx.x * kWarps + threadIdx.x / kWarp;
  if (j >= g.n) return;  // whole warps leave together
  const float* col = g.a + int64_t(j) * g.lda;
  float acc = 0.f;
  for (int i = lane; i < g.m; i += kWarp) acc = fmaf(col[i], g.x0[int64_t(i) * g.incx], acc);
#pragma unroll
  for (int o = kWarp / 2; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (lane == 0) store_y(g.y0 + int64_t(j) * g.incy, acc, g.alpha, g.beta);
}

}  // namespace

cudaError_t launch_warp_per_column(const GemvProblem& p, cudaStream_t s) {
  const Args g = make_args(p);
  if (p.ta == Op::N)
    sgemv_n_thread_per_row_4col<<<unsigned((p.m + kThreads - 1) / kThreads), kThreads, 0, s>>>(g);
  else
    sgemv_t_warp_per_column<<<unsigned((p.n + kWarps - 1) / kWarps), kThreads, 0, s>>>(g);
  return cudaGetLastError();
}

}  // namespace sgemv_detail
}  // namespace myblas
