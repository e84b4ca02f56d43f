// hgemm_square_mma: many small square binary16 products (m = n = k = N, N = 16 or 32) in one
// launch on the tensor cores (mma.sync m16n8k16, FP16 inputs, FP32 accumulation, one rounding of
// the result); the binary16 rung after gemm_square_staged.cu, with its staging of the operands.
//
// What changed and why: at N = 32 a binary16 product moves half the bytes of an FP32 one for the
// same 2 N^3 flops, so the FP32 multiply-adds from shared memory of gemm_square_staged (about 20
// instructions a k step and warp) cap it near the memory rate. Here a warp takes one product:
// its operands are stored to shared memory as they are stored in global memory (16-byte stores
// of 8 halves, no conversion), ldmatrix (with .trans where the stored layout is the transpose of
// the fragment's) reads the fragments, and (N/16) (N/8) (N/16) mma.sync instructions, 2 (N = 16)
// or 16 (N = 32), do the product. The result goes back through shared memory in FP32
// (alpha applied there, beta C added once, then one rounding) with 16-byte stores, as in the
// other rungs; C's loads (beta != 0) are issued before the product.
#include "kernels/batched/square_common.cuh"
#include "kernels/hgemm/mma_sync.cuh"  // ldsm_x4, mma_16816

namespace myblas {
namespace square {

namespace {

constexpr int kProducts = kThreads / 32;  // one warp a product

// The 16-byte global chunks of one operand of the block's products (square_common.cuh).
template <int N>
using HChunks = Chunks<__half, N, kProducts>;

// @tparam N the product's size (m = n = k); a block of 256 threads takes 8 products, a warp one.
// Registers: 30 at N = 16 (8 blocks an SM); 80 at N = 32, unbounded (0: 3 blocks, 24 products in
// flight an SM; held to 64 for 4 blocks, 128 bytes spill).
template <int N>
__global__ void __launch_bounds__(kThreads, N == 16 ? 8 : 0) hgemm_square_mma(const Args args) {
  using L = HChunks<N>;
  static_assert(N % 16 == 0, "whole m16n8k16 tiles");
  constexpr int kLdh = N + 8;  // halves per shared row: 16-byte aligned rows, conflict-free ldmatrix
  constexpr int kLdf = N + 4;  // floats per row of the result
  constexpr int kOperandBytes = 2 * kProducts * N * kLdh * 2;
  constexpr int kResultBytes = kProducts * N * kLdf * 4;
  __shared__ __align__(16) unsigned char smem[kOperandBytes > kResultBytes ? kOperandBytes : kResultBytes];
  auto As = reinterpret_cast<__half(*)[N][kLdh]>(smem);  // (P) products' A as stored: [col][row]
  auto Bs = reinterpret_cast<__half(*)[N][kLdh]>(smem + kOperandBytes / 2);  // (P) products' B as stored
  auto Cs = reinterpret_cast<float(*)[N][kLdf]>(smem);  // afterwards: alpha op(A) op(B), [col][row]

  const Group& g = block_group(args);
  const long long p0 = ((long long)blockIdx.x - g.first_block) * kProducts;

  const __half* sa[L::kLoads];
  const __half* sb[L::kLoads];
  uint4 ra[L::kLoads], rb[L::kLoads];  // (kLoads) 16-byte chunks of A, of B
  load_ab<__half, N, kProducts>(g, p0, sa, sb, ra, rb);
#pragma unroll
  for (int u = 0; u < L::kLoads; ++u) {
    if (sa[u]) *reinterpret_cast<uint4*>(&As[L::product(u)][L::col(u)][L::row(u)]) = ra[u];
    if (sb[u]) *reinterpret_cast<uint4*>(&Bs[L::product(u)][L::col(u)][L::row(u)]) = rb[u];
  }
  const __half* sc[L::kLoads];
  chunk_addresses<__half, N, kProducts>(g, 2, p0, sc);
  const bool read_c = g.beta != 0.f;
  if (read_c) load_chunks<__half, L::kLoads, false>(sc, g.vec_c, ra);
  __syncthreads();

  // Warp p: C (N x N) of product p as (N/16) x (N/8) tiles of m16n8.
  constexpr int MI = N / 16, NJ = N / 8;
  const int p = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int mat = lane / 8, rr = lane % 8;  // the 8x8 matrix and row this lane addresses for ldmatrix
  const bool ta = g.ta, tb = g.tb;
  float acc[MI][NJ][4] = {};  // (MI x NJ) m16n8 accumulator tiles
#pragma unroll
  for (int k0 = 0; k0 < N; k0 += 16) {
    uint32_t a[MI][4];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      const int i = mi * 16 + (mat & 1) * 8, k = k0 + (mat >> 1) * 8;
      // op(A)(i, k): A(i, k) stored at As[k][i] (read transposed), or A(k, i) at As[i][k].
      hgemm_detail::ldsm_x4(smem_u32(ta ? &As[p][i + rr][k] : &As[p][k + rr][i]), a[mi], !ta);
    }
    uint32_t b[NJ][2];
#pragma unroll
    for (int nj = 0; nj < NJ; nj += 2) {
      const int j = (nj + (mat >> 1)) * 8, k = k0 + (mat & 1) * 8;
      // op(B)(k, j): B(k, j) stored at Bs[j][k], or B(j, k) at Bs[k][j] (read transposed).
      uint32_t r[4];
      hgemm_detail::ldsm_x4(smem_u32(tb ? &Bs[p][k + rr][j] : &Bs[p][j + rr][k]), r, tb);
      b[nj][0] = r[0], b[nj][1] = r[1], b[nj + 1][0] = r[2], b[nj + 1][1] = r[3];
    }
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int nj = 0; nj < NJ; ++nj) hgemm_detail::mma_16816<false>(acc[mi][nj], a[mi], b[nj][0], b[nj][1]);
  }
  __syncthreads();  // every operand has been read: the same shared memory takes the results
  const int gi = lane / 4, ti = lane % 4;  // accumulator rows gi, gi + 8; columns 2 ti, 2 ti + 1
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int nj = 0; nj < NJ; ++nj) {
      const int i = mi * 16 + gi, j = nj * 8 + 2 * ti;
      Cs[p][j][i] = g.alpha * acc[mi][nj][0];
      Cs[p][j + 1][i] = g.alpha * acc[mi][nj][1];
      Cs[p][j][i + 8] = g.alpha * acc[mi][nj][2];
      Cs[p][j + 1][i + 8] = g.alpha * acc[mi][nj][3];
    }
  __syncthreads();

#pragma unroll
  for (int u = 0; u < L::kLoads; ++u) {
    if (!sc[u]) continue;
    const int pp = L::product(u), r0 = L::row(u), c = L::col(u);
    const float4 x0 = *reinterpret_cast<const float4*>(&Cs[pp][c][r0]);
    const float4 x1 = *reinterpret_cast<const float4*>(&Cs[pp][c][r0 + 4]);
    const float v[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};  // rows r0.. of column c
    union {
      uint4 u4;
      __half t[8];
    } out, old;
    old.u4 = ra[u];
#pragma unroll
    for (int e = 0; e < 8; ++e) out.t[e] = __float2half_rn(read_c ? fmaf(g.beta, __half2float(old.t[e]), v[e]) : v[e]);
    __half* dst = const_cast<__half*>(sc[u]);
    if (g.vec_c) {
      *reinterpret_cast<uint4*>(dst) = out.u4;
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) dst[e] = out.t[e];
    }
  }
}

}  // namespace

template <int N>
cudaError_t run_mma_h(const BatchGroup* groups, const void* const* const* dev_lists, int count, cudaStream_t s) {
  return launch_groups<__half, kProducts>(hgemm_square_mma<N>, groups, dev_lists, count, s);
}
template cudaError_t run_mma_h<16>(const BatchGroup*, const void* const* const*, int, cudaStream_t);
template cudaError_t run_mma_h<32>(const BatchGroup*, const void* const* const*, int, cudaStream_t);

}  // namespace square
}  // namespace myblas
