// The 3xTF32 split (kernels/sgemm_tc.h): one pass over A and B that writes the operands of a
// single TF32 product of depth 3k, k-contiguous, and gathers the magnitudes that decide whether
// the split is exact enough. Memory-bound: each element is read once and written three times
// (twice in the two-part layout, Tf32x3Operand::part_stride).
// Loads run down the stored columns (coalesced). Where k runs along the stored columns, each warp
// transposes its own 32 x 32 tiles through its own shared tile (32 loads in flight a lane, no
// block-wide barrier), so that the stores run along k, coalesced too. Where k runs down the stored
// columns, a block walks 32 x 32 tiles, or, where every run of 4 along the columns is 16-byte
// aligned in the source and in each part, a thread takes 4 values at once (one 16-byte load, a
// 16-byte store per part). The statistics are reduced per block and reach device memory
// with an atomic only when they beat what is already there.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/sgemm_tc.h"
#include "kernels/sgemm_tc/refuse.h"
#include "kernels/sgemm_tc/split_element.cuh"

namespace myblas {

namespace {

constexpr int kTile = 32;       // a tile is kTile x kTile elements of the stored matrix
constexpr int kRowsPerPass = 8;  // block of kTile x kRowsPerPass threads: 4 elements each
constexpr int kWarps = kTile * kRowsPerPass / 32;
static_assert(kTile == 32 && kTile % kRowsPerPass == 0,
              "a tile row is a warp (split_transposed: a warp's 32 x 32 tiles); each thread takes kTile / kRowsPerPass values");
constexpr int kMaxBlocks = 1024;  // per operand; each walks tiles / gridDim.x tiles

// One element's parts (T = float), or four neighbours' along k (T = float4), d pointing at
// the place in the first part: three parts k apart ([big small big] along k, small at
// small_part), or big at d and small part_stride further.
template <class T>
__device__ __forceinline__ void store_parts(const Tf32x3Operand& o, float* d, int k, const T& big, const T& small) {
  if (o.part_stride) {
    *reinterpret_cast<T*>(d) = big;
    *reinterpret_cast<T*>(d + o.part_stride) = small;
    return;
  }
  *reinterpret_cast<T*>(d) = o.small_part == 0 ? small : big;
  *reinterpret_cast<T*>(d + k) = o.small_part == 1 ? small : big;
  *reinterpret_cast<T*>(d + 2 * int64_t(k)) = o.small_part == 2 ? small : big;
}

// The operand's split 4 values a thread (k down the stored columns, 16-byte aligned runs: see
// tf32x3_split): thread t of the grid takes runs t, t + threads, ...
__device__ __forceinline__ void split_runs4(const Tf32x3Operand& o, unsigned* max_bits, unsigned* not_min_bits) {
  const int runs = o.rows / 4;  // per stored column (rows = k)
  const int64_t total = int64_t(runs) * o.cols;
  const int64_t step = int64_t(gridDim.x) * blockDim.x * blockDim.y;
  for (int64_t q = int64_t(blockIdx.x) * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
       q < total; q += step) {
    const int c = int(q / runs), r = int(q % runs) * 4;
    const float4 x = __ldg(reinterpret_cast<const float4*>(o.src + r + int64_t(c) * o.ld));
    float4 big, small;
    split_element(x.x, &big.x, &small.x, max_bits, not_min_bits);
    split_element(x.y, &big.y, &small.y, max_bits, not_min_bits);
    split_element(x.z, &big.z, &small.z, max_bits, not_min_bits);
    split_element(x.w, &big.w, &small.w, max_bits, not_min_bits);
    store_parts(o, o.dst + r + int64_t(c) * o.ldd, o.rows, big, small);
  }
}

// The operand's split where k runs along its stored columns (stored mn x k): warp w of the grid
// takes tiles w, w + warps, ... of 32 x 32; a lane loads its row of the tile (32 loads), the warp
// writes the tile into its shared tile and reads it back transposed, and lane l stores k = c0 + l
// of each of the tile's 32 rows in every part. `tile` is the warp's own 32 x 33 floats.
__device__ __forceinline__ void split_transposed(const Tf32x3Operand& o, float (*tile)[kTile + 1], unsigned* max_bits,
                                                 unsigned* not_min_bits) {
  const int lane = threadIdx.x % 32;
  const int tiles_r = (o.rows + 31) / 32, tiles_c = (o.cols + 31) / 32;
  const int64_t tiles = int64_t(tiles_r) * tiles_c;
  const int warps = int(blockDim.x * blockDim.y / 32);
  const int64_t step = int64_t(gridDim.x) * warps;
  for (int64_t t = int64_t(blockIdx.x) * warps + (threadIdx.y * blockDim.x + threadIdx.x) / 32; t < tiles; t += step) {
    const int r0 = int(t % tiles_r) * 32, c0 = int(t / tiles_r) * 32;
    float x[32];
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const int r = r0 + lane, c = c0 + j;
      x[j] = r < o.rows && c < o.cols ? __ldg(o.src + r + int64_t(c) * o.ld) : 0.f;
    }
    __syncwarp();  // (the previous tile's reads of the shared tile are done)
#pragma unroll
    for (int j = 0; j < 32; ++j) tile[j][lane] = x[j];  // tile[k - c0][mn - r0]
    __syncwarp();
    const int kk = c0 + lane;
#pragma unroll 4
    for (int j = 0; j < 32; ++j) {
      const int mn = r0 + j;
      if (kk >= o.cols || mn >= o.rows) continue;
      float big, small;
      split_element(tile[lane][j], &big, &small, max_bits, not_min_bits);
      store_parts<float>(o, o.dst + kk + int64_t(mn) * o.ldd, o.cols, big, small);
    }
  }
}

// The operand's split where k runs down its stored columns without 16-byte runs: block b of the
// grid takes tiles b, b + blocks, ... of kTile x kTile, each thread kTile / kRowsPerPass values of
// a stored column, the stores running down the column as the loads did.
__device__ __forceinline__ void split_tiles(const Tf32x3Operand& o, unsigned* max_bits, unsigned* not_min_bits) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tiles_r = (o.rows + kTile - 1) / kTile, tiles_c = (o.cols + kTile - 1) / kTile;
  const int64_t tiles = int64_t(tiles_r) * tiles_c;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int r0 = int(t % tiles_r) * kTile, c0 = int(t / tiles_r) * kTile;
    const int r = r0 + tx;
    float big[kTile / kRowsPerPass], small[kTile / kRowsPerPass];
#pragma unroll
    for (int p = 0; p < kTile / kRowsPerPass; ++p) {
      const int c = c0 + ty + kRowsPerPass * p;
      float x = 0.f;
      if (r < o.rows && c < o.cols) x = __ldg(o.src + r + int64_t(c) * o.ld);
      split_element(x, &big[p], &small[p], max_bits, not_min_bits);
    }
#pragma unroll
    for (int p = 0; p < kTile / kRowsPerPass; ++p) {
      const int c = c0 + ty + kRowsPerPass * p;
      if (r >= o.rows || c >= o.cols) continue;
      store_parts<float>(o, o.dst + r + int64_t(c) * o.ldd, o.rows, big[p], small[p]);
    }
  }
}

// runs4_a, runs4_b: the operand is split 4 values a thread (split_runs4).
__global__ void __launch_bounds__(kTile * kRowsPerPass) tf32x3_split_kernel(Tf32x3Operand a, Tf32x3Operand b,
                                                                            Tf32x3Stats* stats, int runs4_a,
                                                                            int runs4_b) {
  __shared__ float tiles_t[kWarps][kTile][kTile + 1];  // each warp's tile to transpose through
  __shared__ unsigned red[2][kWarps];
  const int which = blockIdx.z;
  const Tf32x3Operand o = which == 0 ? a : b;
  const int tx = threadIdx.x, ty = threadIdx.y;
  unsigned max_bits = 0, not_min_bits = 0;
  if (which == 0 ? runs4_a : runs4_b)
    split_runs4(o, &max_bits, &not_min_bits);
  else if (o.k_in_cols)
    split_transposed(o, tiles_t[(ty * kTile + tx) / 32], &max_bits, &not_min_bits);
  else
    split_tiles(o, &max_bits, &not_min_bits);
  max_bits = __reduce_max_sync(0xffffffffu, max_bits);
  not_min_bits = __reduce_max_sync(0xffffffffu, not_min_bits);
  const int lin = ty * kTile + tx;
  if (lin % 32 == 0) {
    red[0][lin / 32] = max_bits;
    red[1][lin / 32] = not_min_bits;
  }
  __syncthreads();
  if (ty == 0 && tx < 2) {
    unsigned v = 0;
    for (int w = 0; w < kWarps; ++w) v = max(v, red[tx][w]);
    unsigned* slot = tx == 0 ? &stats->max_abs_bits[which] : &stats->not_min_abs_bits[which];
    if (v > *reinterpret_cast<volatile unsigned*>(slot)) atomicMax(slot, v);
  }
}

}  // namespace

cudaError_t tf32x3_split(const Tf32x3Operand& a, const Tf32x3Operand& b, Tf32x3Stats* stats, cudaStream_t s) {
  auto tiles = [](const Tf32x3Operand& o) {
    return (int64_t(o.rows) + kTile - 1) / kTile * ((int64_t(o.cols) + kTile - 1) / kTile);
  };
  int64_t most = tiles(a) > tiles(b) ? tiles(a) : tiles(b);
  if (most <= 0) return cudaSuccess;
  // 4 values a thread where k runs down the stored columns in 16-byte aligned runs of 4: k, ld,
  // ldd and part_stride multiples of 4, src and dst 16-byte aligned.
  auto runs4 = [](const Tf32x3Operand& o) {
    return !o.k_in_cols && o.rows % 4 == 0 && o.ld % 4 == 0 && o.ldd % 4 == 0 && o.part_stride % 4 == 0 &&
           reinterpret_cast<uintptr_t>(o.src) % 16 == 0 && reinterpret_cast<uintptr_t>(o.dst) % 16 == 0;
  };
  const dim3 grid(unsigned(most < kMaxBlocks ? most : kMaxBlocks), 1, 2);
  tf32x3_split_kernel<<<grid, dim3(kTile, kRowsPerPass), 0, s>>>(a, b, stats, runs4(a), runs4(b));
  return cudaGetLastError();
}

const char* tf32x3_refuse(const Tf32x3Stats& st, int k) { return tf32x3_refuse_rule(st, k); }

}  // namespace myblas
