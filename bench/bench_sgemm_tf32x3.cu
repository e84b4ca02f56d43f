// bench_sgemm_tf32x3: the SGEMM precision mode (MYBLAS_SGEMM_PRECISION=tf32x3, 3xTF32 on the
// tensor cores) through the public cblas_sgemm on device pointers, beside cublasSgemm (FP32,
// pedantic math: what the library's FP32 path calls) in one process.
//
// 1. Special values: a call with an Inf, with a tiny value and with huge values in A must give
//    the FP32 path's result bitwise (the mode falls back).
// 2. Accuracy: three kinds of data (uniform [-1, 1]; exponents spread over 2^-20..2^20 by row and
//    column scale factors; sums with heavy cancellation), m = n = 1024 with k from 16 to 16384,
//    and 4096^3, against an FP64 reference (cublasDgemm on the same FP32 inputs). Per element
//    e = |C - R| / (|A||B|)(i, j) (the scale every GEMM error bound is stated in), max and median,
//    and the normwise max |C - R| / max |R|; for cuBLAS FP32, the mode, and one TF32 product.
// 3. Speed: each shape verified first (NaN-filled C, against cuBLAS FP32), then event-timed
//    medians over operand sets rotated through >= 256 MiB: cublasSgemm FP32, the library with
//    the mode off and on (split + our wgmma product with promoted sums), the cuBLAS-composed
//    variant (the same split, then one cuBLAS TF32 product of depth 3k: the baseline), one
//    cublasGemmEx TF32 product (the tensor cores' ceiling) and the split kernel alone.
//    The accuracy table has the composed variant beside the mode; --chunked adds the composed
//    variant with its sums taken out of cuBLAS every 64 terms (separate products added through
//    cuBLAS's FP32 epilogue): the experiment behind the mode's promoted accumulation.
// 4. Host arrays end to end (4096^3, 8192^3 NN): the mode off and on through the GPU pipeline.
// 5. --variants: the product kernel's variants (Tf32x3Kernel, kernels/sgemm_tc.h) side by side
//    instead of sections 3 and 4: in the accuracy table, the split + each variant's product; then
//    speed at 1024^3, 2048^3, 4096^3, 8192^3 NN and 4096^3 TN, NT, TT: cublasSgemm FP32, one cuBLAS
//    TF32 product of depth 3k on the split operands (the ceiling for our product), the library's
//    mode as configured (MYBLAS_SGEMM_TF32X3_KERNEL), the split alone, and per variant its product
//    alone and the whole mode (split, statistics read back, product: the library's steps), each
//    variant's result first checked against cuBLAS FP32; where tf32x3_splitk_choose splits k
//    (1024^3, 2048^3), each variant with split-K too; each also with the statistics checked by
//    the product on the device (MYBLAS_SGEMM_TF32X3_STATS=overlap). --kernels=a,b: only these.
// Output: CSVs (accuracy.csv, speed.csv, special.csv, host.csv; --variants: variants.csv instead
// of speed.csv and host.csv) in the directory given by --out=DIR (default .), a summary on stdout.
// --quick: fewer shapes.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
#include "dispatch/tf32x3_rule.h"
#include "kernels/sgemm_tc.h"
#include "myblas.h"

namespace {

bool g_quick = false;
bool g_chunked = false;  // --chunked: the promotion experiment in the accuracy table
bool g_variants = false;  // --variants: the product kernel's variants (section 5)
int g_var_cases[myblas::kTf32x3Kernels] = {}, g_var_missed[myblas::kTf32x3Kernels] = {};
std::vector<myblas::Tf32x3Kernel> g_kernels;  // --kernels=a,b: the variants measured (default all)
std::string g_out = ".";
bool g_failed = false;
int g_cases = 0, g_missed = 0;  // accuracy cases, and those over twice FP32's error
cublasHandle_t g_fp32, g_tf32;  // pedantic math (FP32 path); default math (TF32 GemmEx)

enum class Kind { uniform, spread, cancel };
const char* kind_name(Kind k) { return k == Kind::uniform ? "uniform" : k == Kind::spread ? "spread" : "cancel"; }

__device__ __forceinline__ uint32_t hash3(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ (c + 0x165667B1u) * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  return h;
}
__device__ __forceinline__ float unif(uint32_t a, uint32_t b, uint32_t c) {  // in [-1, 1], never 0
  const uint32_t h = hash3(a, b, c);
  return (float(h >> 8) + 0.5f) * (2.f / 16777216.f) - 1.f;
}

// The operands of op(A) * op(B) with op = N, stored m x k (A, which = 0) or k x n (B, which = 1);
// `kdim` is the index along k. spread: factors 2^r(row) 2^c(col), r, c in [-10, 10]. cancel: the
// second half of k repeats the first, A's times (1 + 2^-10 u), B's negated times (1 + 2^-10 u').
__global__ void gen(float* x, int rows, int cols, int ld, int which, int kind, int k, uint32_t seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  for (int j = blockIdx.y; j < cols; j += gridDim.y) {
    const int kk = which == 0 ? j : i;  // index along k
    float v;
    if (kind == 2 && kk >= k / 2 && kk - k / 2 < k / 2) {
      const int src = kk - k / 2;
      const float base = which == 0 ? unif(seed, i, src) : unif(seed + 1, src, j);
      const float pert = 1.f + ldexpf(unif(seed + 7, i, j), -10);
      v = which == 0 ? base * pert : -base * pert;
    } else {
      v = which == 0 ? unif(seed, i, j) : unif(seed + 1, i, j);
    }
    if (kind == 1) {
      const int r = int(hash3(seed + 3, which, i) % 21u) - 10, c = int(hash3(seed + 5, which, j + 1000000) % 21u) - 10;
      v = ldexpf(v, r + c);
    }
    x[i + size_t(j) * ld] = v;
  }
}
__global__ void widen(const float* x, double* y, size_t n, int absval) {
  for (size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x; t < n; t += size_t(gridDim.x) * blockDim.x)
    y[t] = absval ? fabs(double(x[t])) : double(x[t]);
}
__global__ void errors(const float* c, const double* r, const double* s, double* e, double* d, size_t n) {
  for (size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x; t < n; t += size_t(gridDim.x) * blockDim.x) {
    const double diff = fabs(double(c[t]) - r[t]);
    d[t] = diff != diff ? INFINITY : diff;
    e[t] = s[t] > 0 ? d[t] / s[t] : (diff == 0 ? 0 : INFINITY);
  }
}
__global__ void fill_value(float* x, size_t n, float v) {
  for (size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x; t < n; t += size_t(gridDim.x) * blockDim.x) x[t] = v;
}

void generate(float* x, int rows, int cols, int which, Kind kind, int k, uint32_t seed) {
  gen<<<dim3((rows + 255) / 256, std::min(cols, 1024)), 256>>>(x, rows, cols, rows, which, int(kind), k, seed);
  CK(cudaGetLastError());
}

template <class T>
T* dalloc(size_t n) {
  T* p = nullptr;
  CK(cudaMalloc(&p, n * sizeof(T)));
  return p;
}

// The library's SGEMM on device pointers (column-major).
void lib_sgemm(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
               float beta, float* c, int ldc) {
  cblas_sgemm(CblasColMajor, ta == 'N' ? CblasNoTrans : CblasTrans, tb == 'N' ? CblasNoTrans : CblasTrans, m, n, k,
              alpha, a, lda, b, ldb, beta, c, ldc);
}
void cublas_fp32(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
                 float beta, float* c, int ldc) {
  CB(cublasSgemm(g_fp32, ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, m, n, k, &alpha,
                 a, lda, b, ldb, &beta, c, ldc));
}
void cublas_tf32(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
                 float beta, float* c, int ldc) {
  CB(cublasGemmEx(g_tf32, ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, m, n, k,
                  &alpha, a, CUDA_R_32F, lda, b, CUDA_R_32F, ldb, &beta, c, CUDA_R_32F, ldc,
                  CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

// The split of the library, then the three products as separate TF32 GEMMs over chunks of kc
// along k, each adding into C through cuBLAS's FP32 epilogue (beta = 1): the partial sums leave
// the tensor cores' accumulators every kc terms of each product. An experiment for the fused
// kernel: how often must a kernel move its sums out of the tensor cores to reach FP32 accuracy?
void tf32x3_chunked(int m, int n, int k, const float* a, const float* b, float* c, int kc) {
  const int64_t ld3 = myblas::tf32x3_ld(k);
  float* a3 = dalloc<float>(size_t(ld3) * (m + n) + 64);
  float* b3 = a3 + 64 + ld3 * m;
  myblas::Tf32x3Stats* st = reinterpret_cast<myblas::Tf32x3Stats*>(a3);
  myblas::Tf32x3Operand oa, ob;
  oa.src = a; oa.ld = m; oa.rows = m; oa.cols = k; oa.k_in_cols = true; oa.small_part = 1; oa.dst = a3 + 64;
  oa.ldd = ld3;
  ob.src = b; ob.ld = k; ob.rows = k; ob.cols = n; ob.k_in_cols = false; ob.small_part = 2; ob.dst = b3;
  ob.ldd = ld3;
  CK(cudaMemset(st, 0, sizeof *st));
  CK(myblas::tf32x3_split(oa, ob, st, nullptr));
  const float one = 1.f;
  for (int k0 = 0; k0 < k; k0 += kc)
    for (int t = 0; t < 3; ++t) {
      const float beta = k0 == 0 && t == 0 ? 0.f : 1.f;
      CB(cublasGemmEx(g_tf32, CUBLAS_OP_T, CUBLAS_OP_N, m, n, std::min(kc, k - k0), &one,
                      oa.dst + size_t(t) * k + k0, CUDA_R_32F, int(ld3), b3 + size_t(t) * k + k0, CUDA_R_32F, int(ld3),
                      &beta, c, CUDA_R_32F, m, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    }
  CK(cudaDeviceSynchronize());
  cudaFree(a3);
}

// The cuBLAS-composed variant, as the library runs it without sm_90a code: the library's split,
// then one cuBLAS TF32 product C = A3^T B3 of depth 3k. `scratch` holds tf32x3_ld(k) * (m + n)
// floats plus 64.
void composed(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
              float beta, float* c, int ldc, float* scratch) {
  const int64_t ld3 = myblas::tf32x3_ld(k);
  myblas::Tf32x3Operand oa, ob;
  oa.src = a; oa.ld = lda; oa.rows = ta == 'N' ? m : k; oa.cols = ta == 'N' ? k : m; oa.k_in_cols = ta == 'N';
  oa.small_part = 1; oa.dst = scratch + 64; oa.ldd = ld3;
  ob.src = b; ob.ld = ldb; ob.rows = tb == 'N' ? k : n; ob.cols = tb == 'N' ? n : k; ob.k_in_cols = tb == 'T';
  ob.small_part = 2; ob.dst = scratch + 64 + ld3 * m; ob.ldd = ld3;
  myblas::Tf32x3Stats* st = reinterpret_cast<myblas::Tf32x3Stats*>(scratch);
  CK(cudaMemsetAsync(st, 0, sizeof *st, nullptr));
  CK(myblas::tf32x3_split(oa, ob, st, nullptr));
  CB(cublasGemmEx(g_tf32, CUBLAS_OP_T, CUBLAS_OP_N, m, n, 3 * k, &alpha, oa.dst, CUDA_R_32F, int(ld3), ob.dst,
                  CUDA_R_32F, int(ld3), &beta, c, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

// The mode's steps with a chosen product variant, as the library runs them (backends/cuda/
// sgemm_tf32x3.cpp): clear the statistics, split, read the statistics back and wait for them,
// check them, then our product. `scratch` as for composed(); `stats` pinned host memory.
// Returns false (nothing written to C) where the statistics refuse the split.
// splits > 1: split-K, its slices in scratch after the split operands (splitk_offset floats in).
// (The split operands take at most the larger of the two layouts: the three parts along k, or two.)
int64_t split_floats(int m, int n, int k) {
  const auto two = myblas::Tf32x3Kernel::p64_ordered_2part, three = myblas::Tf32x3Kernel::p64_ordered;
  return std::max(myblas::tf32x3_operand_floats(two, k, m) + myblas::tf32x3_operand_floats(two, k, n),
                  myblas::tf32x3_operand_floats(three, k, m) + myblas::tf32x3_operand_floats(three, k, n));
}
int64_t splitk_offset(int m, int n, int k) { return (64 + split_floats(m, n, k) + 63) / 64 * 64; }
// The split operands of a variant's layout in `scratch` (after the 64 floats of statistics).
void variant_operands(myblas::Tf32x3Kernel kernel, char ta, char tb, int m, int n, int k, const float* a, int lda,
                      const float* b, int ldb, float* scratch, myblas::Tf32x3Operand* oa, myblas::Tf32x3Operand* ob) {
  oa->src = a; oa->ld = lda; oa->rows = ta == 'N' ? m : k; oa->cols = ta == 'N' ? k : m; oa->k_in_cols = ta == 'N';
  oa->small_part = 1; oa->dst = scratch + 64;
  ob->src = b; ob->ld = ldb; ob->rows = tb == 'N' ? k : n; ob->cols = tb == 'N' ? n : k; ob->k_in_cols = tb == 'T';
  ob->small_part = 2; ob->dst = scratch + 64 + myblas::tf32x3_operand_floats(kernel, k, m);
  myblas::tf32x3_operand_layout(kernel, k, m, oa);
  myblas::tf32x3_operand_layout(kernel, k, n, ob);
}
// The fused variant's sums (tf32x3_fused_work_floats), grown on demand outside the timed loops (the
// verification runs every shape's calls first).
float* fused_work(size_t floats) {
  static float* w = nullptr;
  static size_t have = 0;
  if (floats > have) {
    if (w) CK(cudaFree(w));
    CK(cudaMalloc(&w, floats * 4));
    have = floats;
  }
  return w;
}
// A fused variant (p64-ordered-fused*) on the operands as stored: no split; its statistics
// gathered into the scratch's first floats and checked by its last pass and then by the host, as
// the mode does. False: refused (C untouched), or the operands cannot be read as stored.
bool fused_call(myblas::Tf32x3Kernel kernel, char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
                float beta, float* c, int ldc, float* scratch, myblas::Tf32x3Stats* stats, int splits, bool sync) {
  if (myblas::tf32x3_fused_can_implement(reinterpret_cast<uintptr_t>(a), lda, reinterpret_cast<uintptr_t>(b), ldb))
    return false;
  splits = std::min(splits, (k + 31) / 32);
  myblas::Tf32x3Stats* st = reinterpret_cast<myblas::Tf32x3Stats*>(scratch);
  CK(cudaMemsetAsync(st, 0, sizeof *st, nullptr));
  CK(myblas::tf32x3_fused_product(m, n, k, alpha, a, lda, ta == 'N', b, ldb, tb == 'T', beta, c, ldc, nullptr, splits,
                                  fused_work(myblas::tf32x3_fused_work_floats(m, n, splits)), st, kernel));
  if (!sync) return true;
  CK(cudaMemcpyAsync(stats, st, sizeof *st, cudaMemcpyDeviceToHost, nullptr));
  CK(cudaStreamSynchronize(nullptr));
  return !myblas::tf32x3_refuse(*stats, k);
}
// overlap: as MYBLAS_SGEMM_TF32X3_STATS=overlap, the product queued before the statistics are read
// (it checks them itself), the host waiting for their copy only. (The fused variant always checks
// them so: overlap is ignored.)
bool mode_variant(myblas::Tf32x3Kernel kernel, char ta, char tb, int m, int n, int k, float alpha, const float* a,
                  int lda, const float* b, int ldb, float beta, float* c, int ldc, float* scratch,
                  myblas::Tf32x3Stats* stats, myblas::Tf32x3Split plan = {}, bool overlap = false) {
  if (myblas::tf32x3_kernel_fused(kernel))  // (it divides every tile or none)
    return fused_call(kernel, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, scratch, stats,
                      plan.whole == 0 ? plan.splits : 1, true);
  myblas::Tf32x3Operand oa, ob;
  variant_operands(kernel, ta, tb, m, n, k, a, lda, b, ldb, scratch, &oa, &ob);
  const int64_t ld3 = oa.ldd;
  myblas::Tf32x3Stats* st = reinterpret_cast<myblas::Tf32x3Stats*>(scratch);
  CK(cudaMemsetAsync(st, 0, sizeof *st, nullptr));
  CK(myblas::tf32x3_split(oa, ob, st, nullptr));
  CK(cudaMemcpyAsync(stats, st, sizeof *st, cudaMemcpyDeviceToHost, nullptr));
  if (overlap) {
    static cudaEvent_t landed = [] {
      cudaEvent_t e;
      CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      return e;
    }();
    CK(cudaEventRecord(landed, nullptr));
    CK(myblas::tf32x3_wgmma_product(m, n, 3 * k, alpha, oa.dst, ob.dst, ld3, beta, c, ldc, nullptr, kernel, plan,
                                    scratch + splitk_offset(m, n, k), st));
    CK(cudaEventSynchronize(landed));
    return !myblas::tf32x3_refuse(*stats, k);
  }
  CK(cudaStreamSynchronize(nullptr));
  if (myblas::tf32x3_refuse(*stats, k)) return false;
  CK(myblas::tf32x3_wgmma_product(m, n, 3 * k, alpha, oa.dst, ob.dst, ld3, beta, c, ldc, nullptr, kernel, plan,
                                  scratch + splitk_offset(m, n, k)));
  return true;
}

struct Err {
  double max_e, med_e, normwise;
};
Err measure(const float* c, const double* ref, const double* scale, size_t n, double* e, double* d) {
  errors<<<1024, 256>>>(c, ref, scale, e, d, n);
  CK(cudaGetLastError());
  std::vector<double> he(n), hd(n), hr(n);
  CK(cudaMemcpy(he.data(), e, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hd.data(), d, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hr.data(), ref, n * 8, cudaMemcpyDeviceToHost));
  double maxd = 0, maxr = 0;
  for (size_t t = 0; t < n; ++t) {
    maxd = std::max(maxd, hd[t]);
    maxr = std::max(maxr, std::fabs(hr[t]));
  }
  Err r;
  r.max_e = *std::max_element(he.begin(), he.end());
  std::nth_element(he.begin(), he.begin() + n / 2, he.end());
  r.med_e = he[n / 2];
  r.normwise = maxr > 0 ? maxd / maxr : maxd;
  return r;
}

// ---- 2. accuracy ----
void accuracy(FILE* csv) {
  std::fprintf(csv, "kind,m,n,k,path,max_err,median_err,normwise_err,max_ratio_to_fp32,median_ratio_to_fp32\n");
  std::printf("\n# accuracy: e = |C - C_fp64| / (|A||B|), NN, alpha 1, beta 0\n");
  std::printf("%-8s %5s %5s %6s | %-10s %-10s | %-10s %-10s | %-10s %-10s | ratio max/med to fp32\n", "kind", "m", "n", "k",
              "fp32 max", "fp32 med", "tf32x3 max", "tf32x3 med", "tf32 max", "tf32 med");
  struct Case {
    int m, n, k;
  };
  std::vector<Case> cases;
  for (int k : {16, 64, 256, 1024, 4096, 16384}) cases.push_back({1024, 1024, k});
  if (!g_quick) cases.push_back({4096, 4096, 4096});
  size_t max_ak = 0, max_mn = 0;
  for (const Case& c : cases) {
    max_ak = std::max(max_ak, size_t(c.m) * c.k + size_t(c.k) * c.n);
    max_mn = std::max(max_mn, size_t(c.m) * c.n);
  }
  float* a = dalloc<float>(max_ak);
  float* c = dalloc<float>(max_mn);
  double* a64 = dalloc<double>(max_ak);
  double* ref = dalloc<double>(max_mn);
  double* scale = dalloc<double>(max_mn);
  double* e = dalloc<double>(max_mn);
  double* d = dalloc<double>(max_mn);
  size_t max_scratch = 0;
  for (const Case& c : cases) max_scratch = std::max(max_scratch, size_t(split_floats(c.m, c.n, c.k)) + 64);
  float* scratch = dalloc<float>(max_scratch);
  myblas::Tf32x3Stats* hstats = nullptr;
  CK(cudaMallocHost(&hstats, sizeof *hstats));
  cublasHandle_t h64;
  CB(cublasCreate(&h64));
  for (Kind kind : {Kind::uniform, Kind::spread, Kind::cancel})
    for (const Case& cs : cases) {
      const int m = cs.m, n = cs.n, k = cs.k;
      float* b = a + size_t(m) * k;
      generate(a, m, k, 0, kind, k, 1234u + k);
      generate(b, k, n, 1, kind, k, 1234u + k);
      const size_t nab = size_t(m) * k + size_t(k) * n;
      double one = 1, zero = 0;
      widen<<<1024, 256>>>(a, a64, nab, 0);
      CB(cublasDgemm(h64, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a64, m, a64 + size_t(m) * k, k, &zero, ref, m));
      widen<<<1024, 256>>>(a, a64, nab, 1);
      CB(cublasDgemm(h64, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a64, m, a64 + size_t(m) * k, k, &zero, scale, m));
      CK(cudaDeviceSynchronize());
      Err r[5];
      for (int path = 0; path < (g_chunked ? 5 : 4); ++path) {
        fill_value<<<1024, 256>>>(c, size_t(m) * n, NAN);
        if (path == 0) cublas_fp32('N', 'N', m, n, k, 1.f, a, m, b, k, 0.f, c, m);
        if (path == 1) {
          myblas_set_sgemm_precision(MYBLAS_SGEMM_TF32X3_ALL);
          lib_sgemm('N', 'N', m, n, k, 1.f, a, m, b, k, 0.f, c, m);
          myblas_set_sgemm_precision(MYBLAS_SGEMM_FP32);
        }
        if (path == 2) cublas_tf32('N', 'N', m, n, k, 1.f, a, m, b, k, 0.f, c, m);
        if (path == 3) composed('N', 'N', m, n, k, 1.f, a, m, b, k, 0.f, c, m, scratch);
        if (path == 4) tf32x3_chunked(m, n, k, a, b, c, 64);
        CK(cudaDeviceSynchronize());
        r[path] = measure(c, ref, scale, size_t(m) * n, e, d);
        static const char* names[5] = {"cublas_fp32", "myblas_tf32x3", "cublas_tf32", "composed_cublas_tf32x3",
                                       "composed_chunk64"};
        std::fprintf(csv, "%s,%d,%d,%d,%s,%.3e,%.3e,%.3e,%.3f,%.3f\n", kind_name(kind), m, n, k, names[path], r[path].max_e,
                     r[path].med_e, r[path].normwise, r[path].max_e / r[0].max_e, r[path].med_e / r[0].med_e);
      }
      const double rmax = r[1].max_e / r[0].max_e, rmed = r[1].med_e / r[0].med_e;
      const bool ok = rmax <= 2.0 && rmed <= 2.0;
      ++g_cases;
      if (!ok) ++g_missed;
      std::printf("%-8s %5d %5d %6d | %.3e  %.3e  | %.3e  %.3e  | %.3e  %.3e  | %.2f / %.2f %s| composed %.2f / %.2f\n",
                  kind_name(kind), m, n, k, r[0].max_e, r[0].med_e, r[1].max_e, r[1].med_e, r[2].max_e, r[2].med_e, rmax,
                  rmed, ok ? "" : " OVER 2x FP32 ", r[3].max_e / r[0].max_e, r[3].med_e / r[0].med_e);
      if (g_variants) {
        std::printf("%27s variants, max / median ratio to fp32:", "");
        for (const auto kv : g_kernels) {
          const int v = int(kv);
          fill_value<<<1024, 256>>>(c, size_t(m) * n, NAN);
          if (!mode_variant(kv, 'N', 'N', m, n, k, 1.f, a, m, b, k, 0.f, c, m, scratch, hstats)) {
            std::printf(" %s refused", myblas::tf32x3_kernel_name(kv));
            continue;
          }
          CK(cudaDeviceSynchronize());
          const Err rv = measure(c, ref, scale, size_t(m) * n, e, d);
          const double vmax = rv.max_e / r[0].max_e, vmed = rv.med_e / r[0].med_e;
          ++g_var_cases[v];
          if (!(vmax <= 2.0 && vmed <= 2.0)) ++g_var_missed[v];
          std::fprintf(csv, "%s,%d,%d,%d,variant_%s,%.3e,%.3e,%.3e,%.3f,%.3f\n", kind_name(kind), m, n, k,
                       myblas::tf32x3_kernel_name(kv), rv.max_e, rv.med_e, rv.normwise, vmax, vmed);
          std::printf(" %s %.2f/%.2f%s", myblas::tf32x3_kernel_name(kv), vmax, vmed,
                      vmax <= 2.0 && vmed <= 2.0 ? "" : "(OVER)");
        }
        std::printf("\n");
      }
    }
  CB(cublasDestroy(h64));
  cudaFreeHost(hstats);
  for (void* p : {(void*)a, (void*)c, (void*)a64, (void*)ref, (void*)scale, (void*)e, (void*)d, (void*)scratch}) cudaFree(p);
}

// ---- 1. special values: the mode must give the FP32 path's answer bitwise ----
void special(FILE* csv) {
  std::fprintf(csv, "case,m,n,k,bitwise_equal_fp32\n");
  const int m = 1024, n = 1024, k = 1024;
  float* a = dalloc<float>(size_t(m) * k);
  float* b = dalloc<float>(size_t(k) * n);
  float* c0 = dalloc<float>(size_t(m) * n);
  float* c1 = dalloc<float>(size_t(m) * n);
  struct Case {
    const char* name;
    float va, vb;  // set at A(5, 7) and B(7, 9) (0: untouched)
  } cases[] = {{"inf_in_A", INFINITY, 0}, {"nan_in_B", 0, NAN}, {"tiny_1e-35_in_A", 1e-35f, 0},
               {"huge_1e36_in_A_and_B", 1e36f, 1e36f}, {"ordinary_data_(must_differ)", 0, 0}};
  std::printf("\n# special values: the mode against cuBLAS FP32 (bitwise), 1024^3 NN, beta 0.5\n");
  for (const Case& cs : cases) {
    generate(a, m, k, 0, Kind::uniform, k, 99u);
    generate(b, k, n, 1, Kind::uniform, k, 99u);
    if (cs.va != 0) CK(cudaMemcpy(a + 5 + size_t(7) * m, &cs.va, 4, cudaMemcpyHostToDevice));
    if (cs.vb != 0) CK(cudaMemcpy(b + 7 + size_t(9) * k, &cs.vb, 4, cudaMemcpyHostToDevice));
    generate(c0, m, n, 0, Kind::uniform, n, 7u);
    CK(cudaMemcpy(c1, c0, size_t(m) * n * 4, cudaMemcpyDeviceToDevice));
    cublas_fp32('N', 'N', m, n, k, 1.f, a, m, b, k, 0.5f, c0, m);
    myblas_set_sgemm_precision(MYBLAS_SGEMM_TF32X3_ALL);  // (1024^3 is below the tf32x3 rule's shapes)
    lib_sgemm('N', 'N', m, n, k, 1.f, a, m, b, k, 0.5f, c1, m);
    myblas_set_sgemm_precision(MYBLAS_SGEMM_FP32);
    CK(cudaDeviceSynchronize());
    std::vector<float> h0(size_t(m) * n), h1(size_t(m) * n);
    CK(cudaMemcpy(h0.data(), c0, h0.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h1.data(), c1, h1.size() * 4, cudaMemcpyDeviceToHost));
    const bool same = std::memcmp(h0.data(), h1.data(), h0.size() * 4) == 0;
    const bool want_same = cs.va != 0 || cs.vb != 0;
    if (same != want_same) g_failed = true;
    std::fprintf(csv, "%s,%d,%d,%d,%d\n", cs.name, m, n, k, same ? 1 : 0);
    std::printf("%-30s bitwise equal to FP32: %s%s\n", cs.name, same ? "yes" : "no",
                same == want_same ? "" : "  UNEXPECTED");
  }
  for (void* p : {(void*)a, (void*)b, (void*)c0, (void*)c1}) cudaFree(p);
}

// ---- 3. speed ----
struct Shape {
  char ta, tb;
  int m, n, k;
};
// The largest |got - want| and the largest |want|; the scan stops at the first NaN in got or
// infinite difference (*maxd then Inf, *maxc the largest |want| up to there).
void max_diff(const std::vector<float>& want, const std::vector<float>& got, double* maxd, double* maxc) {
  *maxd = 0;
  *maxc = 0;
  for (size_t t = 0; t < want.size(); ++t) {
    const double dd = std::fabs(double(got[t]) - want[t]);
    *maxd = std::isnan(got[t]) ? INFINITY : std::max(*maxd, dd);
    *maxc = std::max(*maxc, std::fabs(double(want[t])));
    if (std::isinf(*maxd)) break;
  }
}

// A shape's operands, uniform in [-1, 1] and column-major as its transposes store them (A ar x ac,
// B br x bc, C m x n), in nsets sets over >= kRotateBytes that the timed calls rotate through;
// freed with the object.
struct ShapeOperands {
  explicit ShapeOperands(const Shape& s)
      : ar(s.ta == 'N' ? s.m : s.k), ac(s.ta == 'N' ? s.k : s.m), br(s.tb == 'N' ? s.k : s.n),
        bc(s.tb == 'N' ? s.n : s.k), per(size_t(ar) * ac + size_t(br) * bc + size_t(s.m) * s.n),
        nsets(int(std::max<size_t>(2, (bench::kRotateBytes + per * 4 - 1) / (per * 4)))),
        buf(dalloc<float>(per * nsets)) {
    for (int t = 0; t < nsets; ++t) {
      generate(A(t), ar, ac, 0, Kind::uniform, s.k, 11u + t);
      generate(B(t), br, bc, 1, Kind::uniform, s.k, 11u + t);
    }
  }
  ~ShapeOperands() { cudaFree(buf); }
  ShapeOperands(const ShapeOperands&) = delete;
  ShapeOperands& operator=(const ShapeOperands&) = delete;
  float* A(int t) const { return buf + per * t; }
  float* B(int t) const { return buf + per * t + size_t(ar) * ac; }
  float* C(int t) const { return buf + per * t + size_t(ar) * ac + size_t(br) * bc; }
  const int ar, ac, br, bc;
  const size_t per;
  const int nsets;
  float* const buf;
};

void speed(FILE* csv) {
  std::fprintf(csv, "trans,m,n,k,path,time_us,tflops,ratio_vs_cublas_fp32\n");
  std::vector<Shape> shapes;
  for (int s : {4096, 8192})
    for (const char* t : {"NN", "NT", "TN", "TT"}) shapes.push_back({t[0], t[1], s, s, s});
  for (int s : {512, 768, 1024, 1536, 2048}) shapes.push_back({'N', 'N', s, s, s});
  for (int k : {256, 512, 1024}) shapes.push_back({'N', 'N', 4096, 4096, k});
  shapes.push_back({'N', 'N', 256, 4096, 4096});
  shapes.push_back({'N', 'N', 4096, 256, 4096});
  shapes.push_back({'N', 'N', 1024, 8192, 1024});
  shapes.push_back({'N', 'N', 4096, 512, 4096});   // the host pipeline's tiles at 4096^3
  shapes.push_back({'N', 'N', 8192, 1024, 8192});  // and at 8192^3
  shapes.push_back({'N', 'N', 2048, 2048, 512});
  if (g_quick) shapes = {{'N', 'N', 4096, 4096, 4096}, {'N', 'N', 1024, 1024, 1024}, {'N', 'N', 2048, 2048, 2048}};
  std::printf("\n# speed: median us (TFLOP/s), ratio = t(cublasSgemm FP32) / t(path), one process\n");
  std::printf("%-2s %5s %5s %5s | %-16s | %-16s %-6s | %-16s %-6s | %-15s | %-16s %-6s | split us\n", "op", "m", "n", "k",
              "cublas fp32", "myblas fp32", "ratio", "myblas tf32x3", "ratio", "composed cublas", "cublas tf32 (1x)",
              "ratio");
  for (const Shape& s : shapes) {
    const ShapeOperands ops(s);
    const int ar = ops.ar, ac = ops.ac, br = ops.br, bc = ops.bc, nsets = ops.nsets;
    auto A = [&](int t) { return ops.A(t); };
    auto B = [&](int t) { return ops.B(t); };
    auto C = [&](int t) { return ops.C(t); };
    const bool mode_on_shape = myblas::tf32x3_shape_gains(s.m, s.n, s.k);
    // Verify first: NaN-filled C, beta 0, the mode against cuBLAS FP32.
    std::vector<float> h0(size_t(s.m) * s.n), h1(h0.size());
    cublas_fp32(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(0), ar, B(0), br, 0.f, C(0), s.m);
    CK(cudaMemcpy(h0.data(), C(0), h0.size() * 4, cudaMemcpyDeviceToHost));
    fill_value<<<1024, 256>>>(C(0), h0.size(), NAN);
    myblas_set_sgemm_precision(MYBLAS_SGEMM_TF32X3_ALL);
    lib_sgemm(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(0), ar, B(0), br, 0.f, C(0), s.m);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h1.data(), C(0), h1.size() * 4, cudaMemcpyDeviceToHost));
    double maxd, maxc;
    max_diff(h0, h1, &maxd, &maxc);
    const bool verified = maxd <= 1e-3 * maxc;  // catches wrong indexing; precision is section 2's
    if (!verified) {
      g_failed = true;
      std::printf("VERIFY FAILED %c%c %dx%dx%d: max |tf32x3 - fp32| = %.3e, max |C| = %.3e\n", s.ta, s.tb, s.m, s.n,
                  s.k, maxd, maxc);
    }
    const int reps = s.m >= 8192 ? 7 : 15;
    double t[6];
    t[0] = bench::time_calls([&](int i) { cublas_fp32(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m); },
                             nsets, reps);
    myblas_set_sgemm_precision(MYBLAS_SGEMM_FP32);
    t[1] = bench::time_calls([&](int i) { lib_sgemm(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m); },
                             nsets, reps);
    myblas_set_sgemm_precision(MYBLAS_SGEMM_TF32X3_ALL);
    t[2] = bench::time_calls([&](int i) { lib_sgemm(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m); },
                             nsets, reps);
    myblas_set_sgemm_precision(MYBLAS_SGEMM_FP32);
    t[3] = bench::time_calls([&](int i) { cublas_tf32(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m); },
                             nsets, reps);
    const int64_t ld3 = myblas::tf32x3_ld(s.k);
    float* scratch = dalloc<float>(size_t(ld3) * (s.m + s.n) + 64);
    t[5] = bench::time_calls(
        [&](int i) { composed(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m, scratch); }, nsets,
        reps);
    // The split alone.
    {
      myblas::Tf32x3Stats* st = reinterpret_cast<myblas::Tf32x3Stats*>(scratch);
      t[4] = bench::time_calls(
          [&](int i) {
            myblas::Tf32x3Operand oa, ob;
            oa.src = A(i); oa.ld = ar; oa.rows = ar; oa.cols = ac; oa.k_in_cols = s.ta == 'N'; oa.small_part = 1;
            oa.dst = scratch + 64; oa.ldd = ld3;
            ob.src = B(i); ob.ld = br; ob.rows = br; ob.cols = bc; ob.k_in_cols = s.tb == 'T'; ob.small_part = 2;
            ob.dst = scratch + 64 + ld3 * s.m; ob.ldd = ld3;  // (both k-contiguous, as the library writes them)
            CK(cudaMemsetAsync(st, 0, sizeof *st, nullptr));
            CK(myblas::tf32x3_split(oa, ob, st, nullptr));
          },
          nsets, reps);
    }
    cudaFree(scratch);
    const double fl = 2.0 * s.m * s.n * double(s.k);
    static const char* names[6] = {"cublas_fp32", "myblas_fp32", "myblas_tf32x3", "cublas_tf32_1x", "split_only",
                                   "composed_cublas_tf32x3"};
    for (int p = 0; p < 6; ++p)
      std::fprintf(csv, "%c%c,%d,%d,%d,%s,%.2f,%.2f,%.3f\n", s.ta, s.tb, s.m, s.n, s.k, names[p], t[p],
                   p == 4 ? 0.0 : fl / t[p] / 1e6, t[0] / t[p]);
    std::printf("%c%c %5d %5d %5d | %8.1f (%5.1f) | %8.1f (%5.1f) %5.2fx | %8.1f (%5.1f) %5.2fx%s | %8.1f %5.2fx | %8.1f (%5.1f) %5.2fx | %.1f\n",
                s.ta, s.tb, s.m, s.n, s.k, t[0], fl / t[0] / 1e6, t[1], fl / t[1] / 1e6, t[0] / t[1], t[2],
                fl / t[2] / 1e6, t[0] / t[2], mode_on_shape ? "*" : " ", t[5], t[0] / t[5], t[3], fl / t[3] / 1e6,
                t[0] / t[3], t[4]);
    std::fflush(stdout);
  }
  std::printf("(* the shape is one the tf32x3 mode takes; elsewhere it runs FP32. The tf32x3 column forces the split.)\n");
}

// ---- 5. the product kernel's variants side by side ----
void speed_variants(FILE* csv) {
  constexpr int kV = myblas::kTf32x3Kernels;
  std::fprintf(csv, "trans,m,n,k,path,time_us,tflops,ratio_vs_cublas_fp32,ratio_vs_cublas_tf32_3k\n");
  std::vector<Shape> shapes;
  for (int sz : {1024, 2048, 4096, 8192}) shapes.push_back({'N', 'N', sz, sz, sz});
  for (const char* t : {"TN", "NT", "TT"}) shapes.push_back({t[0], t[1], 4096, 4096, 4096});
  if (g_quick) shapes = {{'N', 'N', 1024, 1024, 1024}, {'N', 'N', 4096, 4096, 4096}};
  myblas::Tf32x3Stats* hstats = nullptr;
  CK(cudaMallocHost(&hstats, sizeof *hstats));
  std::printf("\n# variants: median us; ratio = t(cublasSgemm FP32) / t(path); product-only TFLOP/s of the 3k-deep\n"
              "# product and its ratio to cuBLAS TF32 on the same split operands (tf32 3k)\n");
  for (const Shape& s : shapes) {
    const ShapeOperands ops(s);
    const int ar = ops.ar, ac = ops.ac, br = ops.br, bc = ops.bc, nsets = ops.nsets;
    auto A = [&](int t) { return ops.A(t); };
    auto B = [&](int t) { return ops.B(t); };
    auto C = [&](int t) { return ops.C(t); };
    // Split operands: sets of them over >= kRotateBytes too (one set at 4096^3 and above).
    const int64_t ld3 = myblas::tf32x3_ld(s.k);
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    // A variant's plan of work (splits 1: no split-K rows; the paired variant plans pairs of tiles).
    auto plan_of = [&](myblas::Tf32x3Kernel kv) { return myblas::tf32x3_splitk_choose(s.m, s.n, 3 * s.k, sms, kv); };
    size_t work_most = 0;
    for (const auto kv : g_kernels) {
      const myblas::Tf32x3Split q = plan_of(kv);
      work_most = std::max({work_most, myblas::tf32x3_splitk_work_floats(s.m, s.n, q, kv),
                            myblas::tf32x3_fused_work_floats(s.m, s.n, q.splits)});
    }
    const size_t sper = size_t(splitk_offset(s.m, s.n, s.k)) + work_most;
    const int ssets = int(std::max<size_t>(1, (bench::kRotateBytes + sper * 4 - 1) / (sper * 4)));
    float* sbuf = dalloc<float>(sper * ssets);
    auto S = [&](int t) { return sbuf + sper * (t % ssets); };
    auto A3 = [&](int t) { return S(t) + 64; };
    auto B3 = [&](int t) { return S(t) + 64 + ld3 * s.m; };
    // Verify every variant (and the library's mode) against cuBLAS FP32: NaN-filled C, beta 0.
    std::vector<float> h0(size_t(s.m) * s.n), h1(h0.size());
    cublas_fp32(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(0), ar, B(0), br, 0.f, C(0), s.m);
    CK(cudaMemcpy(h0.data(), C(0), h0.size() * 4, cudaMemcpyDeviceToHost));
    auto check = [&](const char* what) {
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h1.data(), C(0), h1.size() * 4, cudaMemcpyDeviceToHost));
      double maxd, maxc;
      max_diff(h0, h1, &maxd, &maxc);
      if (!(maxd <= 1e-4 * maxc)) {  // (catches wrong indexing; 3xTF32 and FP32 differ by ~1e-6 of max |C| here)
        g_failed = true;
        std::printf("VERIFY FAILED %s %c%c %dx%dx%d: max |C - C_fp32| = %.3e, max |C| = %.3e\n", what, s.ta, s.tb, s.m,
                    s.n, s.k, maxd, maxc);
      }
    };
    for (const auto kv : g_kernels) {
      const int v = int(kv);
      const myblas::Tf32x3Split plan = plan_of(kv);
      const int splits = plan.splits;
      fill_value<<<1024, 256>>>(C(0), h0.size(), NAN);
      mode_variant(myblas::Tf32x3Kernel(v), s.ta, s.tb, s.m, s.n, s.k, 1.f, A(0), ar, B(0), br, 0.f, C(0), s.m, S(0),
                   hstats);
      check(myblas::tf32x3_kernel_name(myblas::Tf32x3Kernel(v)));
      if (splits > 1) {
        fill_value<<<1024, 256>>>(C(0), h0.size(), NAN);
        mode_variant(kv, s.ta, s.tb, s.m, s.n, s.k, 1.f, A(0), ar, B(0), br, 0.f, C(0), s.m, S(0), hstats, plan);
        check((std::string(myblas::tf32x3_kernel_name(kv)) + " split-K").c_str());
        fill_value<<<1024, 256>>>(C(0), h0.size(), NAN);
        mode_variant(kv, s.ta, s.tb, s.m, s.n, s.k, 1.f, A(0), ar, B(0), br, 0.f, C(0), s.m, S(0), hstats, plan, true);
        check((std::string(myblas::tf32x3_kernel_name(kv)) + " split-K, statistics overlapped").c_str());
      }
      fill_value<<<1024, 256>>>(C(0), h0.size(), NAN);
      mode_variant(kv, s.ta, s.tb, s.m, s.n, s.k, 1.f, A(0), ar, B(0), br, 0.f, C(0), s.m, S(0), hstats, 1, true);
      check((std::string(myblas::tf32x3_kernel_name(kv)) + ", statistics overlapped").c_str());
    }
    fill_value<<<1024, 256>>>(C(0), h0.size(), NAN);
    myblas_set_sgemm_precision(MYBLAS_SGEMM_TF32X3_ALL);
    lib_sgemm(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(0), ar, B(0), br, 0.f, C(0), s.m);
    myblas_set_sgemm_precision(MYBLAS_SGEMM_FP32);
    check("library mode");
    for (int t = 0; t < ssets; ++t) {  // (split every set once, three parts: the products below read them)
      if (!mode_variant(myblas::Tf32x3Kernel::p32, s.ta, s.tb, s.m, s.n, s.k, 1.f, A(t % nsets), ar, B(t % nsets), br,
                        0.f, C(t % nsets), s.m, S(t), hstats)) {
        std::printf("the split refused uniform data: %s\n", myblas::tf32x3_refuse(*hstats, s.k));
        g_failed = true;
      }
    }

    const int reps = s.m >= 8192 ? 7 : 15;
    const double fl = 2.0 * s.m * s.n * double(s.k), fl3 = 3 * fl;
    const double t_fp32 = bench::time_calls(
        [&](int i) { cublas_fp32(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m); }, nsets, reps);
    const float one = 1.f, zero = 0.f;
    const double t_tf32_3k = bench::time_calls(
        [&](int i) {
          CB(cublasGemmEx(g_tf32, CUBLAS_OP_T, CUBLAS_OP_N, s.m, s.n, 3 * s.k, &one, A3(i), CUDA_R_32F, int(ld3), B3(i),
                          CUDA_R_32F, int(ld3), &zero, C(i % nsets), CUDA_R_32F, s.m, CUBLAS_COMPUTE_32F_FAST_TF32,
                          CUBLAS_GEMM_DEFAULT));
        },
        ssets, reps);
    myblas_set_sgemm_precision(MYBLAS_SGEMM_TF32X3_ALL);
    const double t_lib = bench::time_calls(
        [&](int i) { lib_sgemm(s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m); }, nsets, reps);
    myblas_set_sgemm_precision(MYBLAS_SGEMM_FP32);
    const double t_split = bench::time_calls(
        [&](int i) {
          myblas::Tf32x3Operand oa, ob;
          oa.src = A(i); oa.ld = ar; oa.rows = ar; oa.cols = ac; oa.k_in_cols = s.ta == 'N'; oa.small_part = 1;
          oa.dst = A3(i); oa.ldd = ld3;
          ob.src = B(i); ob.ld = br; ob.rows = br; ob.cols = bc; ob.k_in_cols = s.tb == 'T'; ob.small_part = 2;
          ob.dst = B3(i); ob.ldd = ld3;
          auto* st = reinterpret_cast<myblas::Tf32x3Stats*>(S(i));
          CK(cudaMemsetAsync(st, 0, sizeof *st, nullptr));
          CK(myblas::tf32x3_split(oa, ob, st, nullptr));
        },
        nsets, reps);
    double t_prod[kV], t_mode[kV], t_prod_sk[kV] = {}, t_mode_sk[kV] = {}, t_mode_ov[kV], t_mode_sk_ov[kV] = {};
    // The split alone in the two-part layout (p64-ordered-2part's), where that variant is measured.
    auto split_sets = [&](myblas::Tf32x3Kernel kv, int i) {
      myblas::Tf32x3Operand oa, ob;
      variant_operands(kv, s.ta, s.tb, s.m, s.n, s.k, A(i % nsets), ar, B(i % nsets), br, S(i), &oa, &ob);
      auto* st = reinterpret_cast<myblas::Tf32x3Stats*>(S(i));
      CK(cudaMemsetAsync(st, 0, sizeof *st, nullptr));
      CK(myblas::tf32x3_split(oa, ob, st, nullptr));
    };
    double t_split2 = 0;
    for (const auto kv : g_kernels)
      if (myblas::tf32x3_kernel_two_parts(kv) && t_split2 == 0)
        t_split2 = bench::time_calls([&](int i) { split_sets(kv, i); }, nsets, reps);
    bool sets_two_parts = false;  // the layout the split sets S(t) hold (the product rows read them)
    for (const auto kv : g_kernels) {
      const int v = int(kv);
      const myblas::Tf32x3Split plan = plan_of(kv);
      const int splits = plan.splits;
      if (myblas::tf32x3_kernel_two_parts(kv) != sets_two_parts) {
        for (int t = 0; t < ssets; ++t) split_sets(kv, t);
        CK(cudaDeviceSynchronize());
        sets_two_parts = !sets_two_parts;
      }
      const int64_t pld = myblas::tf32x3_operand_ld(kv, s.k);
      auto PA = [&](int t) { return S(t) + 64; };
      auto PB = [&](int t) { return S(t) + 64 + myblas::tf32x3_operand_floats(kv, s.k, s.m); };
      // (The fused variant's product row: the fused product alone on the operands as stored, its
      // statistics gathered and checked by its last pass but not read by the host.)
      const bool fused = myblas::tf32x3_kernel_fused(kv);
      t_prod[v] = fused ? bench::time_calls(
                              [&](int i) {
                                fused_call(kv, s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m,
                                           S(i), hstats, 1, false);
                              },
                              nsets, reps)
                        : bench::time_calls(
          [&](int i) {
            CK(myblas::tf32x3_wgmma_product(s.m, s.n, 3 * s.k, 1.f, PA(i), PB(i), pld, 0.f, C(i % nsets), s.m, nullptr,
                                            kv));
          },
          ssets, reps);
      t_mode[v] = bench::time_calls(
          [&](int i) {
            mode_variant(kv, s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m, S(i), hstats);
          },
          nsets, reps);
      t_mode_ov[v] = bench::time_calls(
          [&](int i) {
            mode_variant(kv, s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m, S(i), hstats, 1, true);
          },
          nsets, reps);
      if (splits > 1) {
        t_mode_sk_ov[v] = bench::time_calls(
            [&](int i) {
              mode_variant(kv, s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m, S(i), hstats,
                           plan, true);
            },
            nsets, reps);
        t_prod_sk[v] = fused ? bench::time_calls(
                                   [&](int i) {
                                     fused_call(kv, s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i),
                                                s.m, S(i), hstats, plan.whole == 0 ? splits : 1, false);
                                   },
                                   nsets, reps)
                             : bench::time_calls(
            [&](int i) {
              CK(myblas::tf32x3_wgmma_product(s.m, s.n, 3 * s.k, 1.f, PA(i), PB(i), pld, 0.f, C(i % nsets), s.m,
                                              nullptr, kv, plan, S(i) + splitk_offset(s.m, s.n, s.k)));
            },
            ssets, reps);
        t_mode_sk[v] = bench::time_calls(
            [&](int i) {
              mode_variant(kv, s.ta, s.tb, s.m, s.n, s.k, 1.f, A(i), ar, B(i), br, 0.f, C(i), s.m, S(i), hstats,
                           plan);
            },
            nsets, reps);
      }
    }
    auto row = [&](const std::string& path, double t, double flops) {
      std::fprintf(csv, "%c%c,%d,%d,%d,%s,%.2f,%.2f,%.3f,%.3f\n", s.ta, s.tb, s.m, s.n, s.k, path.c_str(), t,
                   flops > 0 ? flops / t / 1e6 : 0.0, t_fp32 / t, t_tf32_3k / t);
    };
    row("cublas_fp32", t_fp32, fl);
    row("cublas_tf32_3k_product", t_tf32_3k, fl3);
    row("myblas_tf32x3_library", t_lib, fl);
    row("split_only", t_split, 0);
    if (t_split2 > 0) row("split_only_2part", t_split2, 0);
    std::printf("%c%c %5d^3 | cublas fp32 %8.1f us | cuBLAS TF32 3k product %8.1f us (%5.1f TF/s) | library mode %8.1f us %5.2fx | split %.1f us",
                s.ta, s.tb, s.m, t_fp32, t_tf32_3k, fl3 / t_tf32_3k / 1e6, t_lib, t_fp32 / t_lib, t_split);
    if (t_split2 > 0) std::printf(" (two parts %.1f us)", t_split2);
    std::printf("\n");
    for (const auto kv : g_kernels) {
      const int v = int(kv);
      const myblas::Tf32x3Split plan = plan_of(kv);
      const int splits = plan.splits;
      const std::string name = myblas::tf32x3_kernel_name(kv);
      row("product_" + name, t_prod[v], fl3);
      row("mode_" + name, t_mode[v], fl);
      row("mode_" + name + "_overlap", t_mode_ov[v], fl);
      std::printf("   %-12s product %8.1f us (%5.1f TF/s, %.2f of cuBLAS TF32) | mode %8.1f us %5.2fx | stats overlapped %8.1f us %5.2fx cublasSgemm\n",
                  name.c_str(), t_prod[v], fl3 / t_prod[v] / 1e6, t_tf32_3k / t_prod[v], t_mode[v], t_fp32 / t_mode[v],
                  t_mode_ov[v], t_fp32 / t_mode_ov[v]);
      if (splits > 1) {
        const std::string sk = name + "_splitk" + std::to_string(splits) +
                               (plan.whole > 0 ? "_after" + std::to_string(plan.whole) : std::string());
        row("product_" + sk, t_prod_sk[v], fl3);
        row("mode_" + sk, t_mode_sk[v], fl);
        row("mode_" + sk + "_overlap", t_mode_sk_ov[v], fl);
        std::printf("   %-12s product %8.1f us (%5.1f TF/s, %.2f of cuBLAS TF32) | mode %8.1f us %5.2fx | stats overlapped %8.1f us %5.2fx cublasSgemm  (split-K %d after %d whole tiles)\n",
                    "", t_prod_sk[v], fl3 / t_prod_sk[v] / 1e6, t_tf32_3k / t_prod_sk[v], t_mode_sk[v],
                    t_fp32 / t_mode_sk[v], t_mode_sk_ov[v], t_fp32 / t_mode_sk_ov[v], splits, plan.whole);
      }
    }
    std::fflush(stdout);
    std::fflush(csv);
    cudaFree(sbuf);
  }
  cudaFreeHost(hstats);
}

// ---- 4. host arrays, end to end: the library's GPU pipeline with the mode off and on ----
void host_arrays(FILE* csv) {
  std::fprintf(csv, "trans,m,n,k,mode,time_ms,tflops,ratio_vs_fp32_mode\n");
  std::printf("\n# host arrays (pageable, as a program passes them), NN, beta 0: median of 3 wall times\n");
  for (int s : g_quick ? std::vector<int>{4096} : std::vector<int>{4096, 8192}) {
    const size_t n2 = size_t(s) * s;
    std::vector<float> a(n2), b(n2), c(n2);
    uint32_t x = 12345u;
    for (size_t t = 0; t < n2; ++t) {
      x = x * 1664525u + 1013904223u;
      a[t] = float(int(x >> 9) - (1 << 22)) * (1.f / (1 << 22));
      x = x * 1664525u + 1013904223u;
      b[t] = float(int(x >> 9) - (1 << 22)) * (1.f / (1 << 22));
    }
    double ms[2];
    for (int mode : {MYBLAS_SGEMM_FP32, MYBLAS_SGEMM_TF32X3}) {
      myblas_set_sgemm_precision(mode);
      std::vector<double> t;
      for (int r = 0; r < 4; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        lib_sgemm('N', 'N', s, s, s, 1.f, a.data(), s, b.data(), s, 0.f, c.data(), s);
        const auto t1 = std::chrono::steady_clock::now();
        if (r > 0) t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());  // (r = 0: warm-up)
      }
      ms[mode == MYBLAS_SGEMM_FP32 ? 0 : 1] = bench::median(t);
    }
    myblas_set_sgemm_precision(MYBLAS_SGEMM_FP32);
    const double fl = 2.0 * double(s) * s * s;
    // Transfer bound: A and B in, C out (3 s^2 floats) over PCIe at the pinned rate of this host.
    std::printf("%5d^3: fp32 %.1f ms (%.1f TFLOP/s), tf32x3 %.1f ms (%.1f TFLOP/s), %.2fx; path %s; A, B in and C out = %.0f MB\n",
                s, ms[0], fl / ms[0] / 1e9, ms[1], fl / ms[1] / 1e9, ms[0] / ms[1], myblas_last_path(),
                3.0 * n2 * 4 / 1e6);
    for (int i = 0; i < 2; ++i)
      std::fprintf(csv, "NN,%d,%d,%d,%s,%.2f,%.2f,%.3f\n", s, s, s, i ? "tf32x3" : "fp32", ms[i], fl / ms[i] / 1e9,
                   ms[0] / ms[i]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) g_quick = true;
    else if (!std::strcmp(argv[i], "--chunked")) g_chunked = true;
    else if (!std::strcmp(argv[i], "--variants")) g_variants = true;
    else if (!std::strncmp(argv[i], "--kernels=", 10)) {
      for (const std::string& name : bench::split_list(argv[i] + 10)) {
        myblas::Tf32x3Kernel k;
        if (!myblas::tf32x3_kernel_parse(name.c_str(), &k)) {
          std::fprintf(stderr, "unknown kernel variant '%s'\n", name.c_str());
          return 2;
        }
        g_kernels.push_back(k);
      }
    }
    else if (!std::strncmp(argv[i], "--out=", 6)) g_out = argv[i] + 6;
  }
  if (g_kernels.empty())
    for (int v = 0; v < myblas::kTf32x3Kernels; ++v) g_kernels.push_back(myblas::Tf32x3Kernel(v));
  std::printf("# bench_sgemm_tf32x3, revision %s\n", MYBLAS_GIT_REV);
  bench::print_device_and_command(argc, argv);
  if (!myblas_gpu_available()) {
    std::printf("no usable GPU\n");
    return 77;
  }
  CB(cublasCreate(&g_fp32));
  CB(cublasSetMathMode(g_fp32, CUBLAS_PEDANTIC_MATH));
  CB(cublasCreate(&g_tf32));
  auto open = [](const char* name) {
    FILE* f = std::fopen((g_out + "/" + name).c_str(), "w");
    if (!f) {
      std::perror(name);
      std::exit(2);
    }
    return f;
  };
  FILE* f = open("special.csv");
  special(f);
  std::fclose(f);
  f = open("accuracy.csv");
  accuracy(f);
  std::fclose(f);
  if (g_variants) {
    f = open("variants.csv");
    speed_variants(f);
    std::fclose(f);
  } else {
    f = open("speed.csv");
    speed(f);
    std::fclose(f);
    f = open("host.csv");
    host_arrays(f);
    std::fclose(f);
  }
  std::printf("\naccuracy contract (max and median error <= 2x cuBLAS FP32's): missed on %d of %d cases\n", g_missed, g_cases);
  for (int v = 0; g_variants && v < myblas::kTf32x3Kernels; ++v)
    if (g_var_cases[v]) std::printf("  variant %-12s missed on %d of %d cases\n", myblas::tf32x3_kernel_name(myblas::Tf32x3Kernel(v)),
                g_var_missed[v], g_var_cases[v]);
  std::printf("%s\n", g_failed ? "RESULT: FAILED (see above)" : "RESULT: special values and verification passed");
  return g_failed ? 1 : 0;
}
