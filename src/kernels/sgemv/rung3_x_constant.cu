// Rung 3 of the SGEMV ladder: x in __constant__ memory.
//
// What changed from rung 2: x is first copied (stream-ordered, one cudaMemcpy2DAsync that also
// packs a strided x) into a 64 KiB __constant__ array, and the kernels read it through the
// constant cache instead of global memory. Why: every element of x is read once per row (N) or
// once per column (T); the constant cache serves a warp-uniform address to all 32 lanes in one
// transaction. That fits N exactly (all lanes use x[j] at the same time). For T the lanes of a
// warp read 32 different x[i], which the constant cache serialises into 32 transactions: the
// benchmark shows that cost, which is why the next rung uses shared memory instead.
// Limits: len(x) <= 16384 floats (sgemv_can_implement says no otherwise). The array is one per
// process and device, so two calls on different streams at the same time would overwrite each
// other's x: this rung is for the benchmark ladder only and never for dispatch.
#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {

constexpr int kConstantX = 16384;  // floats: the whole 64 KiB constant bank

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarp;

__constant__ float c_x[kConstantX];  // x in address order (lowest address first)

// Logical element i of x in address order: a negative increment runs backwards.
__device__ __forceinline__ float cx(int i, int len, bool backwards) { return c_x[backwards ? len - 1 - i : i]; }

__global__ __launch_bounds__(kThreads) void sgemv_n_thread_per_row_xconst(Args g, bool backwards) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= g.m) return;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};  // (4) partial sums, columns j mod 4
  const float* row = g.a + i;
  int j = 0;
  for (; j + 3 < g.n; j += 4) {
#pragma unroll
    for (int u = 0; u < 4; ++u) acc[u] = fmaf(row[int64_t(j + u) * g.lda], cx(j + u, g.n, backwards), acc[u]);
  }
  for (; j < g.n; ++j) acc[0] = fmaf(row[int64_t(j) * g.lda], cx(j, g.n, backwards), acc[0]);
  store_y(g.y0 + int64_t(i) * g.incy, (acc[0] + acc[1]) + (acc[2] + acc[3]), g.alpha, g.beta);
}

__global__ __launch_bounds__(kThreads) void sgemv_t_warp_per_column_xconst(Args g, bool backwards) {
  const int lane = threadIdx.x % kWarp;
  const int j = blockIdx.x * kWarps + threadIdx.x / kWarp;
  if (j >= g.n) return;
  const float* col = g.a + int64_t(j) * g.lda;
  float acc = 0.f;
  for (int i = lane; i < g.m; i += kWarp) acc = fmaf(col[i], cx(i, g.m, backwards), acc);
#pragma unroll
  for (int o = kWarp / 2; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (lane == 0) store_y(g.y0 + int64_t(j) * g.incy, acc, g.alpha, g.beta);
}

}  // namespace

cudaError_t launch_x_constant(const GemvProblem& p, cudaStream_t s) {
  const int len = p.len_x();
  if (len > kConstantX) return cudaErrorInvalidValue;
  void* dst = nullptr;
  cudaError_t e = cudaGetSymbolAddress(&dst, c_x);
  if (e != cudaSuccess) return e;
  const size_t pitch = size_t(p.incx < 0 ? -int64_t(p.incx) : int64_t(p.incx)) * sizeof(float);
  e = cudaMemcpy2DAsync(dst, sizeof(float), p.x, pitch, sizeof(float), size_t(len),
                        cudaMemcpyDeviceToDevice, s);
  if (e != cudaSuccess) return e;
  const Args g = make_args(p);
  const bool backwards = p.incx < 0;
  if (p.ta == Op::N)
    sgemv_n_thread_per_row_xconst<<<unsigned((p.m + kThreads - 1) / kThreads), kThreads, 0, s>>>(g, backwards);
  else
    sgemv_t_warp_per_column_xconst<<<unsigned((p.n + kWarps - 1) / kWarps), kThreads, 0, s>>>(g, backwards);
  return cudaGetLastError();
}

}  // namespace sgemv_detail
}  // namespace myblas
