// Specialised kernel for C' (<= 16 rows) = S * X where the large operand X is contiguous along its
// long side (n <= 16 with A not transposed, or m <= 16 with B transposed): a "GEMV with 16
// right-hand sides" bound by reading X once.
//
// Layout: a lane owns 4 adjacent columns of X (one float4 per k, a warp reads 512 contiguous
// bytes), multiplies them by the 16 values of S at that k (four broadcast float4 reads from
// shared memory) and keeps 16 x 4 sums: no reduction across lanes. The 8 warps of a block share
// the same 128 columns and split the block's k chunk 8 ways, which gives enough blocks to fill the
// machine; their sums are added through shared memory in warp order. Blocks covering the same
// columns over different k chunks write partials that the second stage adds in split order
// (skinny_r16.cu): deterministic, no atomics.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int R = kSkinnyRows;
constexpr int kWarps = 8, kThreads = kWarps * 32;
constexpr int kCols = kSkinnyNCols;
// Row stride of S's chunk in shared memory: 16 values per k, padded to 20 so that the loader's
// stores (k fastest when S is contiguous along k) spread over 8 bank groups instead of 2, while
// each row stays 16-byte aligned for the broadcast float4 reads.
constexpr int kSRow = 20;
static_assert(kCols == 32 * 4, "a float4 of columns per lane");

template <bool VEC>
__global__ __launch_bounds__(kThreads, 2) void sgemm_skinny_ncontig_16x128(SkinnyArgs g) {
  extern __shared__ __align__(16) float ss[];  // (chunk) x (20): ss[l*20 + i] = S(i, l0 + l); then
                                               // (2) x (8 warps) x (128) for the reduction
  float* red = ss + g.chunk * kSRow;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int jb = blockIdx.x * kCols;
  const int j = jb + lane * 4;
  const int split = blockIdx.y;
  const int chunks = (g.k + g.chunk - 1) / g.chunk;
  const int c_begin = split * g.chunks_per_split;
  const int c_end = min(chunks, c_begin + g.chunks_per_split);
  const int nvalid = min(4, g.cols - j);  // columns of this lane inside X (<= 0: none)
  const float* xj = g.x + int64_t(nvalid > 0 ? j : 0) * g.x_j;
  const int per_warp = g.chunk / kWarps;
  float acc[R][4] = {};  // (16 rows) x (4 columns)
  for (int ch = c_begin; ch < c_end; ++ch) {
    const int l0 = ch * g.chunk, len = min(g.chunk, g.k - l0);
    __syncthreads();
    load_s_chunk(g, ss, l0, len, g.chunk, kSRow, 1);
    __syncthreads();
    const int lb = warp * per_warp, le = min(len, lb + per_warp);
#pragma unroll 6
    for (int l = lb; l < le; ++l) {
      const float* src = xj + int64_t(l0 + l) * g.x_l;
      float4 xv;
      if (VEC && nvalid == 4) xv = *reinterpret_cast<const float4*>(src);
      else {
        xv.x = nvalid > 0 ? src[0] : 0.f;
        xv.y = nvalid > 1 ? src[1] : 0.f;
        xv.z = nvalid > 2 ? src[2] : 0.f;
        xv.w = nvalid > 3 ? src[3] : 0.f;
      }
      const float4* sp = reinterpret_cast<const float4*>(ss + l * kSRow);
      const float4 s0 = sp[0], s1 = sp[1], s2 = sp[2], s3 = sp[3];
      const float sv[R] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w,
                           s2.x, s2.y, s2.z, s2.w, s3.x, s3.y, s3.z, s3.w};
#pragma unroll
      for (int i = 0; i < R; ++i) {
        acc[i][0] = fmaf(sv[i], xv.x, acc[i][0]);
        acc[i][1] = fmaf(sv[i], xv.y, acc[i][1]);
        acc[i][2] = fmaf(sv[i], xv.z, acc[i][2]);
        acc[i][3] = fmaf(sv[i], xv.w, acc[i][3]);
      }
    }
  }
  // Add the 8 warps' sums, two rows per round, in warp order.
  const int t = threadIdx.x, rsel = t / kCols, col = t % kCols;
#pragma unroll
  for (int i = 0; i < R; i += 2) {
    __syncthreads();
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<float4*>(red + (h * kWarps + warp) * kCols + lane * 4) =
          make_float4(acc[i + h][0], acc[i + h][1], acc[i + h][2], acc[i + h][3]);
    __syncthreads();
    float v = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) v += red[(rsel * kWarps + w) * kCols + col];
    if (i + rsel < g.rows && jb + col < g.cols) skinny_out(g, split, i + rsel, jb + col, v);
  }
}

}  // namespace

cudaError_t launch_skinny_ncontig(const SkinnyArgs& g, int splits, int col_blocks, bool vec, cudaStream_t s) {
  const size_t smem = (size_t(g.chunk) * kSRow + 2 * kWarps * kCols) * sizeof(float);
  auto kernel = vec ? sgemm_skinny_ncontig_16x128<true> : sgemm_skinny_ncontig_16x128<false>;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  if (e != cudaSuccess) return e;
  kernel<<<dim3(col_blocks, splits), kThreads, smem, s>>>(g);
  return cudaGetLastError();
}

}  // namespace sgemm_detail
}  // namespace myblas
