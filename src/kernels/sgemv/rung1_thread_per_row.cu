// Rung 1 of the SGEMV ladder: one thread per element of y, scalar loads, no reuse.
//
// What it does: thread i walks the whole i-th row of op(A) and x. For N that row is row i
// of column-major A, so the 32 threads of a warp read 32 consecutive floats of one column:
// coalesced by accident of the layout. For T it is column i of A: the threads of a warp read
// addresses lda floats apart, one 32-byte sector per float, so the T kernel moves about 8x the
// bytes it needs. This is the baseline the other rungs are measured against.
#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {
namespace {

constexpr int kThreads = 256;

__global__ __launch_bounds__(kThreads) void sgemv_n_thread_per_row(Args g) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= g.m) return;
  float acc = 0.f;
  const float* row = g.a + i;
  for (int j = 0; j < g.n; ++j) acc = fmaf(row[int64_t(j) * g.lda], g.x0[int64_t(j) * g.incx], acc);
  store_y(g.y0 + int64_t(i) * g.incy, acc, g.alpha, g.beta);
}

__global__ __launch_bounds__(kThreads) void sgemv_t_thread_per_column(Args g) {
  const int j = blockIdx.x * kThreads + threadIdx.x;
  if (j >= g.n) return;
  float acc = 0.f;
  const float* col = g.a + int64_t(j) * g.lda;
  for (int i = 0; i < g.m; ++i) acc = fmaf(col[i], g.x0[int64_t(i) * g.incx], acc);
  store_y(g.y0 + int64_t(j) * g.incy, acc, g.alpha, g.beta);
}

}  // namespace

cudaError_t launch_thread_per_row(const GemvProblem& p, cudaStream_t s) {
  const Args g = make_args(p);
  const int len = p.len_y();
  const unsigned blocks = unsigned((len + kThreads - 1) / kThreads);
  if (p.ta == Op::N)
    sgemv_n_thread_per_row<<<blocks, kThreads, 0, s>>>(g);
  else
    sgemv_t_thread_per_column<<<blocks, kThreads, 0, s>>>(g);
  return cudaGetLastError();
}

}  // namespace sgemv_detail
}  // namespace myblas
