// Production SGEMV for short, wide op(A) = A (kernel n_sweep, m <= 4096 with many columns): the
// grid's blocks take chunks of whole columns round-robin, so together they read one window of A
// that moves through memory, and a second launch adds the blocks' partial y in block order.
//
// What changed from n_rowblock_split / n_rowblock_lastblock, the N kernels at 1000 x 100000 before
// it (128-row blocks, each of the 2-8 column splits a contiguous range of columns): those, and
// cuBLAS, stream that shape at 2.6-2.7 TB/s whatever the split, while a kernel that only reads A
// reaches 3.0 TB/s (h100-targets-2026-11-26.md). A contiguous range per block means the grid
// reads as many distant parts of A at once as it has blocks. n_lanes at 8192^2, whose blocks read
// the same columns at the same time, runs within 1% of the read ceiling, and a stream-K split
// that scattered its warps over the matrix lost 10% (h100-sgemv-2026-11-26-nlanes.md, section 7).
// Here block b of B takes chunks b, b + B, b + 2B, ... of CW whole columns, so the grid reads
// B * CW consecutive columns at a time. The probe (bench/probe_sgemv_sweep.cu,
// h100-sgemv-2026-11-26-sweep.md) ran 1000 x 100000 at 139-140 us against cuBLAS's 150-153 and
// the ceiling's 132, both launches included, and 1024 x 16384 at 1.06-1.13x cuBLAS. This kernel
// ran 1000 x 100000 at 143.5-146.0 us, 1.042-1.062x (four bench_sgemv runs); the rest of the
// probe's lead is this launch path's pool allocation and second launch (3-4 us a call).
//   - a thread owns RQ row quads (rows 4q .. 4q+3, q = thread + 256 j, j < RQ): a float4 of each
//     column, so one load instruction of the block reads 1024 consecutive rows of a column;
//   - two blocks per SM (B = 2 * SMs, at most the number of chunks), CW = 8 / RQ columns a chunk,
//     the next chunk's loads issued before the current chunk's FMAs;
//   - block b writes its partial y to scratch (B x m floats from the stream-ordered pool), and
//     reduce_partials adds the B partials of each row in block order, then applies alpha and
//     beta: deterministic, beta == 0 never reads y.
// Any m <= 4096 (RQ = 1, 2, 4), any n, lda, incx, incy. Rows past m are neither read nor written;
// columns past n in the last chunk are skipped; A misaligned or lda % 4 != 0 takes single-float
// loads (Rows::kScalar).
#include <algorithm>

#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {
namespace {

constexpr int kThreads = 256;
static_assert(kSweepMaxRows == 4 * kThreads * 4, "at most 4 row quads a thread");

template <int RQ>
__host__ __device__ constexpr int chunk_cols() { return 8 / RQ; }

// How a thread reads its row quad of a column: kVec, 16-byte loads and m % 4 == 0 (every quad
// whole or wholly past m: no single-float path at all); kVecRagged, 16-byte loads with one quad
// cut by m, and kScalar, single floats (A misaligned or lda % 4 != 0), both through load_rows4. The probe's kernel, which had only
// the first, ran 1000 x 100000 2.5% faster than the same kernel with the single-float fallback in
// its loop (h100-sgemv-2026-11-26-sweep.md, probe v2).
enum class Rows { kVec, kVecRagged, kScalar };

// @tparam RQ row quads a thread (1: m <= 1024, 2: <= 2048, 4: <= 4096)
// part[b * m + i]: block b's sum over its chunks' columns for row i.
template <int RQ, Rows MODE>
__global__ __launch_bounds__(kThreads, 2) void sgemv_n_sweep(Args g, int m, int n, float* __restrict__ part) {
  constexpr int CW = chunk_cols<RQ>();
  const int nch = (n + CW - 1) / CW;
  int r[RQ];
  bool whole[RQ];
#pragma unroll
  for (int j = 0; j < RQ; ++j) {
    r[j] = 4 * (int(threadIdx.x) + kThreads * j);
    whole[j] = r[j] + 3 < m;
  }
  // Rows r .. r+3 of the column at ap (zeros past m, which are not read).
  auto quad = [&](const float* ap, int j) {
    if (MODE != Rows::kVec) return load_rows4<MODE == Rows::kVecRagged>(ap + r[j], r[j], m);
    return whole[j] ? __ldcs(reinterpret_cast<const float4*>(ap + r[j])) : make_float4(0.f, 0.f, 0.f, 0.f);
  };
  float acc[RQ][4] = {};
  // Chunk c's columns into v and their x into xv (zeros for columns past n, which are not read).
  auto load = [&](int c, float4 (&v)[RQ][CW], float (&xv)[CW]) {
    const int c0 = c * CW;
    const bool whole_chunk = c0 + CW <= n;  // block-uniform
#pragma unroll
    for (int k = 0; k < CW; ++k) {
      const int col = c0 + k;
      if (whole_chunk || col < n) {
        const float* ap = g.a + int64_t(col) * g.lda;
        xv[k] = __ldg(g.x0 + int64_t(col) * g.incx);
#pragma unroll
        for (int j = 0; j < RQ; ++j) v[j][k] = quad(ap, j);
      } else {
        xv[k] = 0.f;
#pragma unroll
        for (int j = 0; j < RQ; ++j) v[j][k] = make_float4(0.f, 0.f, 0.f, 0.f);
      }
    }
  };
  int c = blockIdx.x;
  if (c < nch) {
    float4 cur[RQ][CW];
    float xc[CW];
    load(c, cur, xc);
    for (; c < nch; c += gridDim.x) {
      const int cn = c + gridDim.x;
      float4 nxt[RQ][CW];
      float xn[CW];
      if (cn < nch) load(cn, nxt, xn);  // block-uniform
#pragma unroll
      for (int k = 0; k < CW; ++k)
#pragma unroll
        for (int j = 0; j < RQ; ++j) axpy4(cur[j][k], xc[k], acc[j]);
#pragma unroll
      for (int k = 0; k < CW; ++k) {
        xc[k] = xn[k];
#pragma unroll
        for (int j = 0; j < RQ; ++j) cur[j][k] = nxt[j][k];
      }
    }
  }
  float* out = part + int64_t(blockIdx.x) * m;
#pragma unroll
  for (int j = 0; j < RQ; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (r[j] + i < m) out[r[j] + i] = acc[j][i];
}

// Grid, scratch, the kernel for A's load mode, then the ordered second stage.
template <int RQ>
cudaError_t run(const GemvProblem& p, cudaStream_t s) {
  constexpr int CW = chunk_cols<RQ>();
  const int64_t chunks = (int64_t(p.n) + CW - 1) / CW;
  const unsigned blocks = unsigned(std::min<int64_t>(2 * int64_t(device_sm_count()), chunks));
  float* part = nullptr;
  cudaError_t e = scratch_alloc(&part, size_t(blocks) * size_t(p.m), s);
  if (e != cudaSuccess) return e;
  const Args g = make_args(p);
  if (!a_vectorizable(p))
    sgemv_n_sweep<RQ, Rows::kScalar><<<blocks, kThreads, 0, s>>>(g, p.m, p.n, part);
  else if (p.m % 4)
    sgemv_n_sweep<RQ, Rows::kVecRagged><<<blocks, kThreads, 0, s>>>(g, p.m, p.n, part);
  else
    sgemv_n_sweep<RQ, Rows::kVec><<<blocks, kThreads, 0, s>>>(g, p.m, p.n, part);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = reduce_partials(part, int(blocks), p.m, p.alpha, p.beta, g.y0, g.incy, s);
  scratch_free(part, s);
  return e;
}

}  // namespace

cudaError_t launch_n_sweep(const GemvProblem& p, cudaStream_t s) {
  if (p.m <= 4 * kThreads) return run<1>(p, s);
  if (p.m <= 8 * kThreads) return run<2>(p, s);
  if (p.m <= kSweepMaxRows) return run<4>(p, s);
  return cudaErrorInvalidValue;
}

}  // namespace sgemv_detail
}  // namespace myblas
