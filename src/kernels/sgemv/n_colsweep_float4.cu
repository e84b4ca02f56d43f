// Production SGEMV for small op(A) = A shapes (kernel n_colsweep): blocks of 16 rows, each
// sweeping every column, in one plain launch with no reduction across blocks.
//
// What changed from n_rowblock_cluster, the fastest N kernel at 256^2-1024^2 before it (1024^2:
// 16-block clusters of 128-row blocks, each block a sixteenth of the columns, the splits added
// through distributed shared memory after cluster.sync()): at those sizes the call is a launch
// plus a few microseconds of reading (4 MB at 1024^2), and the cluster launch, its barrier and
// the exchange between blocks cost a good part of what is left (ncu, h100-sgemv-2026-11-22-v5.md:
// 6.5-6.9 us of device time at 1024^2 against 4.6 for a kernel that only reads A). Here:
//   - a block owns kRows = 16 rows, 64 contiguous bytes of each column (two 32-byte sectors), and
//     all n columns: m = 1024 gives 64 blocks, each the sole owner of its rows, so y is stored
//     straight from the block and nothing crosses blocks;
//   - thread t takes columns t, t + 256, t + 512, ... and reads each column's 16 rows with four
//     16-byte loads; kCols = 4 columns per step, so a thread has 16 loads (256 bytes) in flight
//     and a block 64 KB: a 1024^2 matrix is requested in one round. Each thread loads its own
//     x[c] (a warp's 32 consecutive columns: one coalesced load);
//   - the 256 threads' 16 partial sums per row are added through shared memory: thread (r, g)
//     adds the 16 partials of group g (threads 16g .. 16g+15) for row r in order, and the 16
//     groups are added by __shfl_xor_sync within the half-warp (a fixed tree: deterministic).
//     The [row][group][17] layout makes both the stores and the loads free of bank conflicts.
// Larger shapes take the other N kernels (every block sweeping all columns would make n / 256
// steps per thread with only m / 16 blocks); the measured table decides where this one runs.
// If A is misaligned or lda % 4 != 0, the same kernel reads single floats (still 64 contiguous
// bytes per column and block).
#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {
namespace {

constexpr int kThreads = 256;
constexpr int kRows = 16;                // rows per block
constexpr int kGroups = kThreads / 16;   // groups of 16 threads, one partial per row each
constexpr int kCols = 4;                 // columns per thread and step
static_assert(kRows == 16 && kGroups == 16, "the reduction maps one thread to (row, group)");

// Rows r .. r+3 (of the block's `rows`) of the column at p; VA: one 16-byte load when all four
// are in range.
template <bool VA>
__device__ __forceinline__ float4 load_rows4(const float* p, int r, int rows) {
  if (VA && r + 3 < rows) return __ldcs(reinterpret_cast<const float4*>(p));
  return make_float4(r < rows ? __ldcs(p) : 0.f, r + 1 < rows ? __ldcs(p + 1) : 0.f,
                     r + 2 < rows ? __ldcs(p + 2) : 0.f, r + 3 < rows ? __ldcs(p + 3) : 0.f);
}

// @tparam VA float4 loads of A (A 16-byte aligned, lda % 4 == 0: every block's rows start
//   16-byte aligned)
// Grid: ceil(m / 16) blocks of 256 threads; block b computes y rows [16b, 16b + 16).
template <bool VA>
__global__ __launch_bounds__(kThreads) void sgemv_n_colsweep(Args g) {
  __shared__ float red[kRows][kGroups][17];  // (row) x (thread group) x (thread in group), padded
  const int t = threadIdx.x;
  const int row0 = blockIdx.x * kRows;
  const int rows = min(kRows, g.m - row0);
  const float* ablk = g.a + row0;
  float acc[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) acc[r] = 0.f;

  // Columns t, t + 256, ... in increasing order, kCols at a time.
  for (int c0 = t; c0 < g.n; c0 += kThreads * kCols) {
    float4 a[kCols][kRows / 4];
    float xv[kCols];
#pragma unroll
    for (int u = 0; u < kCols; ++u) {
      const int c = c0 + u * kThreads;
      const bool in = c < g.n;
      xv[u] = in ? g.x0[int64_t(c) * g.incx] : 0.f;
      const float* col = ablk + int64_t(in ? c : c0) * g.lda;
#pragma unroll
      for (int q = 0; q < kRows / 4; ++q)
        a[u][q] = in ? load_rows4<VA>(col + 4 * q, 4 * q, rows) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int u = 0; u < kCols; ++u)
#pragma unroll
      for (int q = 0; q < kRows / 4; ++q) {
        acc[4 * q + 0] = fmaf(a[u][q].x, xv[u], acc[4 * q + 0]);
        acc[4 * q + 1] = fmaf(a[u][q].y, xv[u], acc[4 * q + 1]);
        acc[4 * q + 2] = fmaf(a[u][q].z, xv[u], acc[4 * q + 2]);
        acc[4 * q + 3] = fmaf(a[u][q].w, xv[u], acc[4 * q + 3]);
      }
  }

#pragma unroll
  for (int r = 0; r < kRows; ++r) red[r][t / 16][t % 16] = acc[r];
  __syncthreads();
  const int r = t / 16, grp = t % 16;  // this thread adds group grp's partials of row r
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 16; ++i) s += red[r][grp][i];
#pragma unroll
  for (int o = 8; o >= 1; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);  // the 16 groups
  if (grp == 0 && r < rows) store_y(g.y0 + int64_t(row0 + r) * g.incy, s, g.alpha, g.beta);
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
