// The 3xTF32 split (kernels/sgemm_tc.h): one pass over A and B that writes the operands of a
// single TF32 product of depth 3k, k-contiguous, and gathers the magnitudes that decide whether
// the split is exact enough. Memory-bound: each element is read once and written three times
// (twice in the two-part layout, Tf32x3Operand::part_stride).
// A block walks 32 x 32 tiles of the stored matrix: loads run down the stored columns (coalesced);
// where k runs along the stored columns the tile is transposed through shared memory so that the
// stores run along k, coalesced too. The statistics are reduced per block and reach device memory
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
constexpr int kMaxBlocks = 1024;  // per operand; each walks tiles / gridDim.x tiles

// One element's parts, d pointing at its place in the first part: three parts k apart
// ([big small big] along k, small at small_part), or big at d and small part_stride further.
__device__ __forceinline__ void store_parts(const Tf32x3Operand& o, float* d, int k, float big, float small) {
  if (o.part_stride) {
    d[0] = big;
    d[o.part_stride] = small;
    return;
  }
  d[0] = o.small_part == 0 ? small : big;
  d[k] = o.small_part == 1 ? small : big;
  d[2 * int64_t(k)] = o.small_part == 2 ? small : big;
}

__global__ void __launch_bounds__(kTile * kRowsPerPass) tf32x3_split_kernel(Tf32x3Operand a, Tf32x3Operand b,
                                                                            Tf32x3Stats* stats) {
  __shared__ float big_t[kTile][kTile + 1], small_t[kTile][kTile + 1];  // (kTile x kTile) transposed tile
  __shared__ unsigned red[2][kRowsPerPass];
  const int which = blockIdx.z;
  const Tf32x3Operand o = which == 0 ? a : b;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tiles_r = (o.rows + kTile - 1) / kTile, tiles_c = (o.cols + kTile - 1) / kTile;
  const int64_t tiles = int64_t(tiles_r) * tiles_c;
  const int k = o.k_in_cols ? o.cols : o.rows;
  const int64_t ldd = o.ldd;  // dst: 3k x mn
  unsigned max_bits = 0, not_min_bits = 0;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int r0 = int(t % tiles_r) * kTile, c0 = int(t / tiles_r) * kTile;
    const int r = r0 + tx;
    float big[kTile / kRowsPerPass], small[kTile / kRowsPerPass];
#pragma unroll
    for (int p = 0; p < kTile / kRowsPerPass; ++p) {
      const int c = c0 + ty + kRowsPerPass * p;
      float x = 0.f;
      if (r < o.rows && c < o.cols) x = __ldg(o.src + r + int64_t(c) * o.ld);
      split_element(x, &big[p], &small[p], &max_bits, &not_min_bits);
    }
    if (!o.k_in_cols) {  // stored k x mn: the stores run down the stored column as the loads did
#pragma unroll
      for (int p = 0; p < kTile / kRowsPerPass; ++p) {
        const int c = c0 + ty + kRowsPerPass * p;
        if (r >= o.rows || c >= o.cols) continue;
        store_parts(o, o.dst + r + int64_t(c) * ldd, k, big[p], small[p]);
      }
    } else {  // stored mn x k: transpose, so that lanes store consecutive k
      __syncthreads();  // (the previous tile's reads of the shared tiles are done)
#pragma unroll
      for (int p = 0; p < kTile / kRowsPerPass; ++p) {
        big_t[ty + kRowsPerPass * p][tx] = big[p];
        small_t[ty + kRowsPerPass * p][tx] = small[p];
      }
      __syncthreads();
      const int kk = c0 + tx;  // this lane's k
#pragma unroll
      for (int p = 0; p < kTile / kRowsPerPass; ++p) {
        const int mn = r0 + ty + kRowsPerPass * p;
        if (kk >= o.cols || mn >= o.rows) continue;
        const float bg = big_t[tx][ty + kRowsPerPass * p], sm = small_t[tx][ty + kRowsPerPass * p];
        store_parts(o, o.dst + kk + int64_t(mn) * ldd, k, bg, sm);
      }
    }
  }
  max_bits = __reduce_max_sync(0xffffffffu, max_bits);
  not_min_bits = __reduce_max_sync(0xffffffffu, not_min_bits);
  if (tx == 0) {
    red[0][ty] = max_bits;
    red[1][ty] = not_min_bits;
  }
  __syncthreads();
  if (ty == 0 && tx < 2) {
    unsigned v = 0;
    for (int w = 0; w < kRowsPerPass; ++w) v = max(v, red[tx][w]);
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
  const dim3 grid(unsigned(most < kMaxBlocks ? most : kMaxBlocks), 1, 2);
  tf32x3_split_kernel<<<grid, dim3(kTile, kRowsPerPass), 0, s>>>(a, b, stats);
  return cudaGetLastError();
}

const char* tf32x3_refuse(const Tf32x3Stats& st, int k) { return tf32x3_refuse_rule(st, k); }

}  // namespace myblas
