// Production SGEMV for small op(A) = A shapes (kernel n_colsweep): blocks of 16 rows, each
// sweeping every column, in one plain launch with no reduction across blocks.
//
// What changed from n_rowblock_cluster, the fastest N kernel at 256^2-2048^2 before it (1024^2:
// 16-block clusters of 128-row blocks, each block a sixteenth of the columns, the splits added
// through distributed shared memory after cluster.sync()): at those sizes the call is a launch
// plus a few microseconds of reading (4 MB at 1024^2), and the cluster launch, its barrier and
// the exchange between blocks cost a good part of what is left (ncu, h100-sgemv-2026-11-22-v5.md:
// 6.5-6.9 us of device time at 1024^2 against 4.6 for a kernel that only reads A). Here:
//   - a block owns kRows = 16 rows, 64 contiguous bytes of each column, and all n columns: m =
//     1024 gives 64 blocks, each the sole owner of its rows, so y is stored straight from the
//     block and nothing crosses blocks;
//   - four lanes share a column, lane l reading rows 4*(l % 4) .. +3 with one 16-byte load, so
//     one warp instruction reads 8 columns x 64 contiguous bytes (8 cache lines). Thread t takes
//     the columns t/4, t/4 + 64, t/4 + 128, ..., kCols = 16 a step: 16 loads (256 bytes) in
//     flight per thread, 64 KB per block, a 1024^2 matrix requested in one round. x[c] is loaded
//     by the four lanes of its column (one broadcast);
//   - each thread's 4 row sums are added over the 8 column groups of its warp by
//     __shfl_xor_sync (offsets 4, 8, 16), then over the 8 warps in warp order through shared
//     memory: a fixed order, deterministic.
//   Measured first (bench/results/h100-sgemv-colsweep-2026-11-26.md), even at 256^2 and 4-14%
//   slower from 512^2 to 4096^2: each thread reading all 16 rows of its own column (a warp
//   instruction: 32 columns x 16 bytes, 32 cache lines), 16 partials per thread added through a
//   [row][group][17] shared array. Blocks of 8 rows (two lanes a column) ran as fast up to 2048^2
//   and 8-10% slower at 4096^2; blocks of 32 rows 0-23% slower.
// Larger shapes take the other N kernels (64 column groups per block sweep n / 64 columns each
// with only m / 16 blocks: 4096^2 is even with n_rowblock_cluster); the measured table decides
// where this one runs. If A is misaligned or lda % 4 != 0, the same kernel reads single floats.
#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {
namespace {

constexpr int kThreads = 256;
constexpr int kRows = 16;                   // rows per block
constexpr int kLanes = kRows / 4;           // lanes per column, 4 rows each
constexpr int kGroups = kThreads / kLanes;  // column groups per block
constexpr int kCols = 16;                   // columns per thread and step
constexpr int kWarps = kThreads / kWarp;

// @tparam VA float4 loads of A (A 16-byte aligned, lda % 4 == 0: every block's rows start
//   16-byte aligned)
// Grid: ceil(m / 16) blocks of 256 threads; block b computes y rows [16b, 16b + 16).
template <bool VA>
__global__ __launch_bounds__(kThreads) void sgemv_n_colsweep(Args g) {
  __shared__ float red[kWarps][kRows];  // (warp) x (row) sums
  const int t = threadIdx.x, lane = t % kWarp, warp = t / kWarp;
  const int q = t % kLanes, cg = t / kLanes;  // row quad, column group
  const int row0 = blockIdx.x * kRows;
  const int rows = min(kRows, g.m - row0);
  const float* ap = g.a + row0 + 4 * q;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};  // rows 4q .. 4q+3 of the block

  // Columns cg, cg + 64, ... in increasing order, kCols at a time. Unsigned: n may be close to
  // 2^31, and a step past it must not wrap (it stays below 2^32).
  for (unsigned c0 = cg; c0 < unsigned(g.n); c0 += kGroups * kCols) {
    float4 a[kCols];
    float xv[kCols];
#pragma unroll
    for (int u = 0; u < kCols; ++u) {
      const unsigned c = c0 + u * kGroups;
      const bool in = c < unsigned(g.n);
      xv[u] = in ? g.x0[int64_t(c) * g.incx] : 0.f;
      a[u] = in ? load_rows4<VA>(ap + int64_t(c) * g.lda, 4 * q, rows) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int u = 0; u < kCols; ++u) axpy4(a[u], xv[u], acc);
  }

  // The 8 column groups of this warp (lanes with the same l % 4), then the 8 warps in order.
#pragma unroll
  for (int o = kLanes; o < kWarp; o *= 2)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
  if (lane < kLanes)
#pragma unroll
    for (int i = 0; i < 4; ++i) red[warp][4 * lane + i] = acc[i];
  __syncthreads();
  if (t < rows) {
    float s = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) s += red[w][t];
    store_y(g.y0 + int64_t(row0 + t) * g.incy, s, g.alpha, g.beta);
  }
}

}  // namespace

cudaError_t launch_n_colsweep(const GemvProblem& p, cudaStream_t s) {
  const Args g = make_args(p);
  const unsigned blocks = unsigned((int64_t(p.m) + kRows - 1) / kRows);
  if (a_vectorizable(p))
    sgemv_n_colsweep<true><<<blocks, kThreads, 0, s>>>(g);
  else
    sgemv_n_colsweep<false><<<blocks, kThreads, 0, s>>>(g);
  return cudaGetLastError();
}

}  // namespace sgemv_detail
}  // namespace myblas
