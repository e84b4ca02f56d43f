// skinny_r16: the shape-specialised entry for min(m, n) <= 16 (memory-bound products such as
// 16 x 4096 x 4096). It maps the problem onto C' = S * X with at most 16 rows (common.cuh:
// SkinnyArgs), picks the kernel that streams the large operand X along its contiguous side
// (skinny_kcontig.cu or skinny_ncontig.cu; so every transpose is covered) with 16-byte loads when
// X's columns are 16-byte aligned, splits k over blocks only as far as needed to give about four
// blocks per SM, and adds the splits' partial sums in split order in a second kernel.
#include <mutex>

#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {
namespace {

// C'(i, j) = alpha * sum_{s < splits} P(s, i, j) (+ beta C'(i, j)), splits added in order.
__global__ __launch_bounds__(256) void sgemm_skinny_reduce_splits(SkinnyArgs g, int splits) {
  const int64_t total = int64_t(kSkinnyRows) * g.cols;
  const bool rows_fast = g.p_i == 1;  // walk the unit-stride index fastest (C' and P agree)
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int i = rows_fast ? int(e % kSkinnyRows) : int(e / g.cols);
    const int j = rows_fast ? int(e / kSkinnyRows) : int(e % g.cols);
    if (i >= g.rows) continue;
    const float* p = g.part + i * g.p_i + j * g.p_j;
    float v = 0.f;
    for (int s = 0; s < splits; ++s) v += p[int64_t(s) * kSkinnyRows * g.cols];
    store_c(g.c + i * g.c_i + j * g.c_j, v, g.alpha, g.beta);
  }
}

// Scratch for the partial sums: one CUDA memory pool per device, created on first use, keeping
// up to 64 MiB cached, so stream-ordered allocations on the hot path reuse memory instead of
// asking the driver (and concurrent calls on different streams get different memory).
constexpr int kMaxDevices = 64;
std::mutex g_pool_mu;
cudaMemPool_t g_pools[kMaxDevices] = {};

cudaError_t scratch_alloc(float** out, size_t count, cudaStream_t s) {
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  cudaMemPool_t pool;
  {
    std::lock_guard<std::mutex> lock(g_pool_mu);
    if (!g_pools[dev]) {
      cudaMemPoolProps props{};
      props.allocType = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = dev;
      e = cudaMemPoolCreate(&g_pools[dev], &props);
      if (e != cudaSuccess) {
        g_pools[dev] = nullptr;
        return e;
      }
      uint64_t keep = 64ull << 20;
      cudaMemPoolSetAttribute(g_pools[dev], cudaMemPoolAttrReleaseThreshold, &keep);
    }
    pool = g_pools[dev];
  }
  return cudaMallocFromPoolAsync(reinterpret_cast<void**>(out), count * sizeof(float), pool, s);
}

}  // namespace

bool skinny_args(const GemmProblem& p, SkinnyArgs* out, bool* kcontig) {
  SkinnyArgs g{};
  const bool ta = p.ta == Op::T, tb = p.tb == Op::T;
  const float* a = static_cast<const float*>(p.a);
  const float* b = static_cast<const float*>(p.b);
  if (p.m <= kSkinnyRows) {
    g.s = a;  // S = op(A)
    g.s_i = ta ? p.lda : 1;
    g.s_l = ta ? 1 : p.lda;
    g.x = b;  // X = op(B)
    g.x_l = tb ? p.ldb : 1;
    g.x_j = tb ? 1 : p.ldb;
    g.c_i = 1;
    g.c_j = p.ldc;
    g.rows = p.m;
    g.cols = p.n;
    *kcontig = !tb;
  } else if (p.n <= kSkinnyRows) {
    g.s = b;  // S(i, l) = op(B)(l, i)
    g.s_i = tb ? 1 : p.ldb;
    g.s_l = tb ? p.ldb : 1;
    g.x = a;  // X(l, j) = op(A)(j, l)
    g.x_l = ta ? 1 : p.lda;
    g.x_j = ta ? p.lda : 1;
    g.c_i = p.ldc;
    g.c_j = 1;
    g.rows = p.n;
    g.cols = p.m;
    *kcontig = ta;
  } else {
    return false;
  }
  g.c = static_cast<float*>(p.c);
  g.k = p.k;
  g.alpha = p.alpha;
  g.beta = p.beta;
  *out = g;
  return true;
}

cudaError_t launch_skinny_r16(const GemmProblem& p, cudaStream_t s) {
  SkinnyArgs g;
  bool kcontig;
  if (!skinny_args(p, &g, &kcontig)) return cudaErrorInvalidValue;
  int dev = 0, sms = 132;
  if (cudaGetDevice(&dev) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int cols_per_block = kcontig ? kSkinnyKCols : kSkinnyNCols;
  g.chunk = kcontig ? kSkinnyKChunk : kSkinnyNChunk;
  const int col_blocks = (g.cols + cols_per_block - 1) / cols_per_block;
  const int chunks = (g.k + g.chunk - 1) / g.chunk;
  // Split k only until there are about 4 blocks per SM: every split costs a partial write.
  const int want = (4 * sms + col_blocks - 1) / col_blocks;
  int splits = want < chunks ? want : chunks;
  if (splits < 1) splits = 1;
  g.chunks_per_split = (chunks + splits - 1) / splits;
  splits = (chunks + g.chunks_per_split - 1) / g.chunks_per_split;
  // 16-byte loads along X's contiguous side need every line of X to start 16-byte aligned.
  const int64_t line = kcontig ? g.x_j : g.x_l;
  const bool vec = aligned16(g.x) && (line % 4 == 0 || (kcontig ? g.cols == 1 : g.k == 1));
  g.part = nullptr;
  if (splits == 1) {
    g.p_i = g.p_j = 0;
    return kcontig ? launch_skinny_kcontig(g, 1, col_blocks, vec, s)
                   : launch_skinny_ncontig(g, 1, col_blocks, vec, s);
  }
  const bool rows_fast = g.c_i == 1;
  g.p_i = rows_fast ? 1 : g.cols;
  g.p_j = rows_fast ? kSkinnyRows : 1;
  float* part = nullptr;
  cudaError_t e = scratch_alloc(&part, size_t(splits) * kSkinnyRows * size_t(g.cols), s);
  if (e != cudaSuccess) return e;
  g.part = part;
  e = kcontig ? launch_skinny_kcontig(g, splits, col_blocks, vec, s)
              : launch_skinny_ncontig(g, splits, col_blocks, vec, s);
  if (e == cudaSuccess) {
    const int64_t total = int64_t(kSkinnyRows) * g.cols;
    const int64_t want_blocks = (total + 255) / 256;
    const int blocks = int(want_blocks < 8 * sms ? want_blocks : 8 * sms);
    sgemm_skinny_reduce_splits<<<blocks, 256, 0, s>>>(g, splits);
    e = cudaGetLastError();
  }
  cudaFreeAsync(part, s);
  return e;
}

}  // namespace sgemm_detail
}  // namespace myblas
