// Specialised kernel for C' (<= 16 rows) = S * X where the large operand X is contiguous along k
// (m <= 16 with B not transposed, or n <= 16 with A transposed): a "GEMV with 16 right-hand
// sides" that is bound by reading X once.
//
// Why not the tiled kernels: a 128-row tile wastes 7/8 of its FMAs and, worse, gives only
// n/128 blocks; here every byte of X is read exactly once, 16 bytes per lane.
// Layout: a warp owns 4 columns of X; its lanes walk down those columns 4 k at a time (float4,
// a warp reads 512 contiguous bytes per column), multiply by the matching 4 x 16 slice of S from
// shared memory and keep 16 x 4 partial sums. S sits in shared memory row by row (ss[i*LD + l]), so
// that the lanes' float4 reads of S(i, l .. l+3) for their own l are 32 consecutive 16-byte words:
// conflict-free. (The first version stored S k-major, ss[l*16 + i]: lanes 256 bytes apart, an
// 8-way bank conflict on each of the 16 reads per step, which capped it near 1000 GB/s on the H100.)
// The 32 lanes' partial sums are then added by a reduce-scatter over shuffles (5 halving steps,
// 62 shuffles for 64 values, each lane ending with 2 sums), in a fixed order. Blocks cover 32
// columns (4 groups of 32 that reuse the chunk of S in shared memory, so S is read from L2 once
// per 128 columns) and a range of k chunks; when k is split over blocks, partials go to scratch and are
// added in split order by the second stage (skinny_r16.cu): deterministic, no atomics.
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int R = kSkinnyRows;
constexpr int kWarps = 8, kThreads = kWarps * 32;
constexpr int JW = 4;  // columns per warp and group
constexpr int kGroups = kSkinnyKCols / (kWarps * JW);  // column groups per block, sharing S
static_assert(JW == 4 && R * JW == 64, "the reduce-scatter below assumes 64 sums per lane");

template <int O, int HALF>
__device__ __forceinline__ void reduce_scatter_step(float (&acc)[64], int lane) {
  const bool upper = lane & O;
#pragma unroll
  for (int x = 0; x < HALF; ++x) {
    const float keep = upper ? acc[x + HALF] : acc[x];
    const float send = upper ? acc[x] : acc[x + HALF];
    acc[x] = keep + __shfl_xor_sync(0xffffffffu, send, O);
  }
}

template <bool VEC>
__global__ __launch_bounds__(kThreads, 2) void sgemm_skinny_kcontig_16x128(SkinnyArgs g) {
  extern __shared__ __align__(16) float ss[];  // (16) x (chunk + 4): ss[i*(chunk + 4) + l] = S(i, l0 + l)
  const int ld = g.chunk + 4;  // padded: the loader's stores (i fastest) spread over the banks
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int split = blockIdx.y;
  const int chunks = (g.k + g.chunk - 1) / g.chunk;
  const int c_begin = split * g.chunks_per_split;
  const int c_end = min(chunks, c_begin + g.chunks_per_split);
  float acc[R * JW];  // (16 rows) x (4 columns): acc[i*4 + c]
  const bool one_chunk = c_end - c_begin == 1;
  // The block's columns come in kGroups groups of 32 that reuse the same chunk of S.
  for (int cg = 0; cg < kGroups; ++cg) {
    const int j0 = blockIdx.x * kSkinnyKCols + cg * kWarps * JW + warp * JW;
    const float* xc[JW];  // column starts (clamped to a valid column past the edge)
    bool live[JW];
#pragma unroll
    for (int c = 0; c < JW; ++c) {
      live[c] = j0 + c < g.cols;
      xc[c] = g.x + int64_t(live[c] ? j0 + c : 0) * g.x_j;
    }
#pragma unroll
    for (int e = 0; e < R * JW; ++e) acc[e] = 0.f;
    for (int ch = c_begin; ch < c_end; ++ch) {
      const int l0 = ch * g.chunk, len = min(g.chunk, g.k - l0);
      if (!one_chunk || cg == 0) {  // uniform over the block
        __syncthreads();            // the previous chunk is no longer read
        load_s_chunk(g, ss, l0, len, g.chunk, 1, ld);
        __syncthreads();
      }
      // X for this lane's next 4 k is loaded before the FMAs on the current 4 (software
      // pipelining): a warp keeps its loads in flight while it computes.
      float4 xv[JW];  // (4 k) x (4 columns) of X, current step
      auto load_x = [&](float4 (&dst)[JW], int l) {
#pragma unroll
        for (int c = 0; c < JW; ++c) {
          const float* src = xc[c] + (l0 + l);
          if (!live[c] || l >= len) dst[c] = make_float4(0.f, 0.f, 0.f, 0.f);
          else if (VEC && l + 3 < len) dst[c] = *reinterpret_cast<const float4*>(src);
          else {
            dst[c].x = src[0];
            dst[c].y = l + 1 < len ? src[1] : 0.f;
            dst[c].z = l + 2 < len ? src[2] : 0.f;
            dst[c].w = l + 3 < len ? src[3] : 0.f;
          }
        }
      };
      load_x(xv, lane * 4);
#pragma unroll 1
      for (int l = lane * 4; l < len; l += 128) {
        float4 xn[JW];  // the next step's X
        load_x(xn, l + 128);
#pragma unroll
        for (int i = 0; i < R; ++i) {
          const float4 sv = *reinterpret_cast<const float4*>(ss + i * ld + l);  // S(i, l .. l+3)
#pragma unroll
          for (int c = 0; c < JW; ++c) {
            float a = acc[i * JW + c];
            a = fmaf(sv.x, xv[c].x, a);
            a = fmaf(sv.y, xv[c].y, a);
            a = fmaf(sv.z, xv[c].z, a);
            acc[i * JW + c] = fmaf(sv.w, xv[c].w, a);
          }
        }
#pragma unroll
        for (int c = 0; c < JW; ++c) xv[c] = xn[c];
      }
    }
    // Reduce-scatter over the warp: after the step with offset o, a lane keeps the half of its
    // sums selected by bit o of its lane id, added to the partner's copy of the same half.
    reduce_scatter_step<16, 32>(acc, lane);
    reduce_scatter_step<8, 16>(acc, lane);
    reduce_scatter_step<4, 8>(acc, lane);
    reduce_scatter_step<2, 4>(acc, lane);
    reduce_scatter_step<1, 2>(acc, lane);
    // Lane holds sums of indices base + 0 and base + 1, base = 32*b4 + 16*b3 + 8*b2 + 4*b1 + 2*b0.
    const int base = ((lane >> 4) & 1) * 32 + ((lane >> 3) & 1) * 16 + ((lane >> 2) & 1) * 8 +
                     ((lane >> 1) & 1) * 4 + (lane & 1) * 2;
#pragma unroll
    for (int t = 0; t < 2; ++t) {
      const int idx = base + t, i = idx / JW, c = idx % JW;
      if (i < g.rows && j0 + c < g.cols) skinny_out(g, split, i, j0 + c, acc[t]);
    }
  }
}

}  // namespace

cudaError_t launch_skinny_kcontig(const SkinnyArgs& g, int splits, int col_blocks, bool vec, cudaStream_t s) {
  const size_t smem = size_t(g.chunk + 4) * R * sizeof(float);
  auto kernel = vec ? sgemm_skinny_kcontig_16x128<true> : sgemm_skinny_kcontig_16x128<false>;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  if (e != cudaSuccess) return e;
  kernel<<<dim3(col_blocks, splits), kThreads, smem, s>>>(g);
  return cudaGetLastError();
}

}  // namespace sgemm_detail
}  // namespace myblas
