// skinny_r16: the shape-specialised entry for min(m, n) <= 16 (memory-bound products such as
// 16 x 4096 x 4096). It maps the problem onto C' = S * X with at most 16 rows (common.cuh:
// SkinnyArgs), picks the kernel that streams the large operand X along its contiguous side
// (skinny_kcontig.cu or skinny_ncontig.cu; so every transpose is covered) with 16-byte loads when
// X's lines are 16-byte aligned, and splits k over the blocks of a thread-block cluster as far as
// the device holds the whole grid in one wave (skinny_splits; the clusters add their splits in
// rank order: one launch, no scratch). Without clusters (before compute capability 9.0) k is not
// split.
#include "kernels/cluster.cuh"
#include "kernels/sgemm/common.cuh"

namespace myblas {
namespace sgemm_detail {

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

namespace {

// Splits k for a grid of col_blocks column blocks of cluster_kernel: sets g->k_per_split and
// returns the number of splits (gridDim.y): as many as fill the resident slots without a second
// wave, at most 8 (the portable cluster size), checked against the clusters the device can hold
// at once.
int skinny_splits(SkinnyArgs* g, int col_blocks, const void* cluster_kernel, int threads, size_t smem) {
  const int units = (g->k + 63) / 64;  // k in steps of 64
  int splits = 1;
  if (device_has_clusters()) {
    splits = resident_blocks(cluster_kernel, threads, smem) / col_blocks;
    if (splits > 8) splits = 8;
    if (splits > units) splits = units;
    for (; splits > 1; --splits)
      if (col_blocks * splits <= max_active_clusters(cluster_kernel, threads, smem, splits) * splits) break;
    if (splits < 1) splits = 1;
  }
  g->k_per_split = (units + splits - 1) / splits * 64;
  return (g->k + g->k_per_split - 1) / g->k_per_split;
}

cudaError_t launch_skinny(SkinnyKernel& sk, SkinnyArgs g, bool vec, cudaStream_t s) {
  const int col_blocks = (g.cols + sk.cols - 1) / sk.cols;
  // The occupancy questions need the cluster kernel's shared memory limit raised first.
  cudaError_t e = sk.limit[vec][1].set(reinterpret_cast<const void*>(sk.kernel[vec][1]), sk.smem);
  if (e != cudaSuccess) return e;
  const int splits = skinny_splits(&g, col_blocks, reinterpret_cast<const void*>(sk.kernel[vec][1]), sk.threads,
                                   sk.smem);
  const bool cluster = splits > 1;
  auto kernel = sk.kernel[vec][cluster];
  const dim3 grid(static_cast<unsigned>(col_blocks), static_cast<unsigned>(splits));
  if (cluster) return launch_clusters(kernel, grid, sk.threads, sk.smem, splits, s, g);
  e = sk.limit[vec][0].set(reinterpret_cast<const void*>(kernel), sk.smem);
  if (e != cudaSuccess) return e;
  kernel<<<grid, sk.threads, sk.smem, s>>>(g);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_skinny_r16(const GemmProblem& p, cudaStream_t s) {
  SkinnyArgs g;
  bool kcontig;
  if (!skinny_args(p, &g, &kcontig)) return cudaErrorInvalidValue;
  // 16-byte loads along X's contiguous side need every line of X to start 16-byte aligned.
  const int64_t line = kcontig ? g.x_j : g.x_l;
  const bool vec = aligned16(g.x) && (line % 4 == 0 || (kcontig ? g.cols == 1 : g.k == 1));
  return launch_skinny(kcontig ? skinny_kcontig_kernel() : skinny_ncontig_kernel(), g, vec, s);
}

}  // namespace sgemm_detail
}  // namespace myblas
