// bench_blas: libmyblas beside cuBLAS in one process, on device pointers.
//
// For each shape: verify our result against cuBLAS's first, then time both with CUDA events
// over rotating operand sets larger than L2 (so every call streams from HBM), after warm-up,
// and report medians and the ratio (cuBLAS time / myblas time: > 1 means myblas is faster).
// Both sides synchronise after every call, because a BLAS call through libmyblas returns
// with its result complete; the ratio therefore includes our dispatch overhead.
//
// Output: CSV with columns routine,path,trans,m,n,k,time_us,gflops,gbps,ratio_vs_cublas
// preceded by '#' header lines (date, device, driver, revision, command).
//
// --quality=TABLE: dispatch quality on device pointers. For every device row of the measured
// table TABLE (the library is pointed at the same file through MYBLAS_DISPATCH_TABLE), the
// shape is run through the library in auto mode ("auto:<path>") beside every path auto could
// have taken, called directly in the same process: cuBLAS as the library calls it (same math
// mode; HGEMM with beta != 0 as the library's round-once path: cublasGemmEx writing
// alpha*op(A)*op(B) into FP32 scratch, then beta*C added and the sum rounded once) and each candidate kernel of ours that can run the shape
// (the candidates of bench/make_dispatch_table.py). GEMM rows for any beta ("*") are run with
// beta 0 and 0.5. Every path is verified against cuBLAS first. Operand sets rotate over
// >= 256 MiB (every call on the next set). After >= 20 ms of cuBLAS calls (the GPU's clocks up),
// --rounds rounds (default 3): in each, one event-timed call (synchronised) of every path in turn,
// the order rotated every time, 5-30 times over; a path's time is its median in the round. Rows per round
// (each preceded by "# shape <trans> <m> x <n> x <k> round <r> beta <beta>", the form
// make_dispatch_table.py reads), then one "# quality" line per shape: auto's median over the
// rounds against the fastest path's, and the table's choice (the path auto runs) timed directly.
//
// --offgrid=TABLE [--seeds=1,2] [--count=16] [--only=sgemm,...]: the same measurement on shapes
// off the table's rows: per seed, `count` SGEMM and SGEMV shapes, 2/3 as many HGEMM, 1/3 as many
// DGEMM and ZGEMM (at least 4; the generic path, beside cublasDgemm/cublasZgemm), each dimension
// log-uniform, every transpose, beta 0 and 1 (offgrid_shapes), after the shapes named by
// --extra=routine:trans:m:n:k:beta,...; --budget-s=N starts no shape after N seconds. Each
// shape's "# quality" line follows its rows; the run ends with one "# offgrid summary" line per
// routine (auto within 5% of the fastest path, the lowest cuBLAS/auto ratio).
// bench/offgrid_report.py turns the output into a report; --list prints the shapes and the
// rule's choice without a GPU.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "myblas.h"
#include "dispatch/device_rule.h"
#include "dispatch/table.h"
#include "kernels/hgemm.h"
#include "kernels/scale.h"
#include "kernels/sgemm.h"
#include "kernels/sgemv.h"

#include "bench_util.h"

namespace {

using bench::kRotateBytes;
int g_reps = 20;

// Operand sets filled with random values in [-1, 1] (never zeros) on the device.
struct Sets {
  std::vector<void*> a, b, c;
};

void fill_random(void* dst, size_t count, bool half, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  if (half) {
    std::vector<__half> h(count);
    for (auto& v : h) v = __float2half(d(rng));
    CK(cudaMemcpy(dst, h.data(), count * 2, cudaMemcpyHostToDevice));
  } else {
    std::vector<float> h(count);
    for (auto& v : h) v = d(rng);
    CK(cudaMemcpy(dst, h.data(), count * 4, cudaMemcpyHostToDevice));
  }
}

Sets make_sets(size_t na, size_t nb, size_t nc, size_t es, std::mt19937& rng) {
  const size_t per = (na + nb + nc) * es;
  const int count = int(std::max<size_t>(2, std::min<size_t>(16, kRotateBytes / per + 1)));
  Sets s;
  for (int i = 0; i < count; ++i) {
    void *a, *b, *c;
    CK(cudaMalloc(&a, na * es));
    CK(cudaMalloc(&b, nb * es));
    CK(cudaMalloc(&c, nc * es));
    fill_random(a, na, es == 2, rng);
    fill_random(b, nb, es == 2, rng);
    fill_random(c, nc, es == 2, rng);
    s.a.push_back(a);
    s.b.push_back(b);
    s.c.push_back(c);
  }
  return s;
}

void free_sets(Sets& s) {
  for (auto* v : {&s.a, &s.b, &s.c})
    for (void* p : *v) cudaFree(p);
}

double time_median(const std::function<void(int)>& f, int nsets) {
  return bench::time_calls(f, nsets, g_reps);
}

// Largest |x - y| / (|y| + 1) over n elements of two device arrays.
double max_rel_diff(const void* x, const void* y, size_t n, bool half) {
  std::vector<float> hx(n), hy(n);
  if (half) {
    std::vector<__half> a(n), b(n);
    CK(cudaMemcpy(a.data(), x, n * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), y, n * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
      hx[i] = __half2float(a[i]);
      hy[i] = __half2float(b[i]);
    }
  } else {
    CK(cudaMemcpy(hx.data(), x, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hy.data(), y, n * 4, cudaMemcpyDeviceToHost));
  }
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = std::fabs(double(hx[i]) - hy[i]) / (std::fabs(double(hy[i])) + 1.0);
    if (!(d <= worst)) worst = d;
  }
  return worst;
}

void row(const char* routine, const char* path, const char* trans, int m, int n, int k,
         double us, double flops, double bytes, double ratio) {
  std::printf("%s,%s,%s,%d,%d,%d,%.2f,%.1f,%.1f,%.3f\n", routine, path, trans, m, n, k, us,
              flops / us / 1e3, bytes / us / 1e3, ratio);
}

bool g_failed = false;

void bench_gemm(cublasHandle_t h, bool half, char ta, char tb, int m, int n, int k, float beta) {
  std::mt19937 rng(12345u + unsigned(m * 7 + n * 13 + k));
  const size_t es = half ? 2 : 4;
  const int ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m;
  const int br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
  Sets s = make_sets(size_t(ar) * ac, size_t(br) * bc, size_t(m) * n, es, rng);
  const int nsets = int(s.a.size());
  const float alpha = 1.f;
  const cublasOperation_t oa = ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t ob = tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const uint16_t halpha = myblas_float_to_half(alpha), hbeta = myblas_float_to_half(beta);
  auto cublas_call = [&](int i) {
    if (half)
      CB(cublasGemmEx(h, oa, ob, m, n, k, &alpha, s.a[i], CUDA_R_16F, ar, s.b[i], CUDA_R_16F, br,
                      &beta, s.c[i], CUDA_R_16F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    else
      CB(cublasSgemm(h, oa, ob, m, n, k, &alpha, static_cast<float*>(s.a[i]), ar,
                     static_cast<float*>(s.b[i]), br, &beta, static_cast<float*>(s.c[i]), m));
    CK(cudaDeviceSynchronize());
  };
  auto myblas_call = [&](int i) {
    if (half)
      hgemm_(&ta, &tb, &m, &n, &k, &halpha, static_cast<uint16_t*>(s.a[i]), &ar,
             static_cast<uint16_t*>(s.b[i]), &br, &hbeta, static_cast<uint16_t*>(s.c[i]), &m);
    else
      sgemm_(&ta, &tb, &m, &n, &k, &alpha, static_cast<float*>(s.a[i]), &ar,
             static_cast<float*>(s.b[i]), &br, &beta, static_cast<float*>(s.c[i]), &m);
  };
  // Verify: same inputs through both, with beta = 0 so C's history does not matter.
  void* cref;
  CK(cudaMalloc(&cref, size_t(m) * n * es));
  {
    const float zero = 0.f;
    const uint16_t hzero = 0;
    if (half) {
      CB(cublasGemmEx(h, oa, ob, m, n, k, &alpha, s.a[0], CUDA_R_16F, ar, s.b[0], CUDA_R_16F, br,
                      &zero, cref, CUDA_R_16F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      hgemm_(&ta, &tb, &m, &n, &k, &halpha, static_cast<uint16_t*>(s.a[0]), &ar,
             static_cast<uint16_t*>(s.b[0]), &br, &hzero, static_cast<uint16_t*>(s.c[0]), &m);
    } else {
      CB(cublasSgemm(h, oa, ob, m, n, k, &alpha, static_cast<float*>(s.a[0]), ar,
                     static_cast<float*>(s.b[0]), br, &zero, static_cast<float*>(cref), m));
      sgemm_(&ta, &tb, &m, &n, &k, &alpha, static_cast<float*>(s.a[0]), &ar,
             static_cast<float*>(s.b[0]), &br, &zero, static_cast<float*>(s.c[0]), &m);
    }
    CK(cudaDeviceSynchronize());
  }
  const double diff = max_rel_diff(s.c[0], cref, size_t(m) * n, half);
  const double tol = half ? 2e-3 : 1e-5 * std::sqrt(double(k));
  if (!(diff <= tol)) {
    std::fprintf(stderr, "VERIFY FAILED %s %c%c %dx%dx%d: max rel diff %.3g > %.3g\n",
                 half ? "hgemm" : "sgemm", ta, tb, m, n, k, diff, tol);
    g_failed = true;
  }
  CK(cudaFree(cref));
  const double t_cublas = time_median(cublas_call, nsets);
  const double t_ours = time_median(myblas_call, nsets);
  // The path of the timed calls (the verification above ran with beta == 0, which may go elsewhere).
  const std::string timed_path = std::string("myblas-") + myblas_last_path();
  const double flops = 2.0 * m * n * k;
  const double bytes = double(es) * (double(ar) * ac + double(br) * bc + double(m) * n * (beta != 0.f ? 2 : 1));
  const char tr[3] = {ta, tb, 0};
  const char* routine = half ? "hgemm" : "sgemm";
  // beta != 0 is named in the path column (the CSV's columns are fixed): "cublas-b0.5".
  char bsuf[24] = "";
  if (beta != 0.f) std::snprintf(bsuf, sizeof bsuf, "-b%g", beta);
  row(routine, (std::string("cublas") + bsuf).c_str(), tr, m, n, k, t_cublas, flops, bytes, 1.0);
  row(routine, (timed_path + bsuf).c_str(), tr, m, n, k, t_ours, flops, bytes, t_cublas / t_ours);
  free_sets(s);
}

void bench_gemv(cublasHandle_t h, char t, int m, int n) {
  std::mt19937 rng(777u + unsigned(m + n));
  const int lx = t == 'N' ? n : m, ly = t == 'N' ? m : n;
  Sets s = make_sets(size_t(m) * n, size_t(lx), size_t(ly), 4, rng);
  const int nsets = int(s.a.size());
  const float alpha = 1.f, beta = 0.f;
  const int inc = 1;
  const cublasOperation_t op = t == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  auto cublas_call = [&](int i) {
    CB(cublasSgemv(h, op, m, n, &alpha, static_cast<float*>(s.a[i]), m,
                   static_cast<float*>(s.b[i]), 1, &beta, static_cast<float*>(s.c[i]), 1));
    CK(cudaDeviceSynchronize());
  };
  auto myblas_call = [&](int i) {
    sgemv_(&t, &m, &n, &alpha, static_cast<float*>(s.a[i]), &m, static_cast<float*>(s.b[i]),
           &inc, &beta, static_cast<float*>(s.c[i]), &inc);
  };
  void* yref;
  CK(cudaMalloc(&yref, size_t(ly) * 4));
  CB(cublasSgemv(h, op, m, n, &alpha, static_cast<float*>(s.a[0]), m,
                 static_cast<float*>(s.b[0]), 1, &beta, static_cast<float*>(yref), 1));
  myblas_call(0);
  CK(cudaDeviceSynchronize());
  const double diff = max_rel_diff(s.c[0], yref, size_t(ly), false);
  const std::string path = std::string("myblas-") + myblas_last_path();
  if (!(diff <= 1e-5 * std::sqrt(double(lx)))) {
    std::fprintf(stderr, "VERIFY FAILED sgemv %c %dx%d: %.3g\n", t, m, n, diff);
    g_failed = true;
  }
  CK(cudaFree(yref));
  const double t_cublas = time_median(cublas_call, nsets);
  const double t_ours = time_median(myblas_call, nsets);
  const double bytes = 4.0 * (double(m) * n + lx + ly);
  const char tr[2] = {t, 0};
  row("sgemv", "cublas", tr, m, n, 0, t_cublas, 2.0 * m * n, bytes, 1.0);
  row("sgemv", path.c_str(), tr, m, n, 0, t_ours, 2.0 * m * n, bytes, t_cublas / t_ours);
  free_sets(s);
}


// ---- --quality ----

// The kernels auto mode may take (bench/make_dispatch_table.py's candidate sets).
const char* const kSgemvCandidates[] = {"n_rowblock", "n_rowblock_split", "n_rowblock_lastblock",
                                        "n_rowblock_cluster", "n_colsweep", "n_lanes", "n_sweep",
                                        "t_lanegroup", "t_lanegroup_split", "t_lanegroup_lastblock",
                                        "t_lanegroup_cluster", "t_lanegroup_blocksplit", "warp_per_column"};
const char* const kSgemmCandidates[] = {"pipelined_128x128x16_s4", "skinny_r16", "pipelined_regdb_256x128x8_s6",
                                        "pipelined_regdb_128x128x8_s6", "smallk_128x128x16",
                                        "smallk_panel_128x128x32", "smallk_panel_pre_128x128x32",
                                        "smallk_ws_128x256x64"};
const char* const kHgemmCandidates[] = {"mma_sync_128x256x64_s3",      "mma_sync_128x128x64_s3",
                                        "wgmma_tma_128x256x64_s4",     "splitk_cluster_64x128x64_s3",
                                        "splitk_cluster_128x64x64_s3", "skinny_stream_64"};

int g_rounds = 3;

const char* qname(myblas::Routine r) { return myblas::routine_name(r); }

const myblas::Routine kDgemm = myblas::routine_of(myblas::Family::gemm, myblas::Dtype::d);
const myblas::Routine kZgemm = myblas::routine_of(myblas::Family::gemm, myblas::Dtype::z);

struct DoubleSource : bench::RandomSource<double> {
  DoubleSource() : RandomSource<double>([](float f) { return double(f); }, [](double v) { return v == 0.0; }) {}
};

struct HalfSource : bench::RandomSource<__half> {
  HalfSource()
      : RandomSource<__half>([](float f) { return __float2half_rn(f); },
                             [](__half v) { return __half2float(v) == 0.f; }) {}
};

struct QShape {
  myblas::Routine routine;
  char ta, tb;
  int m, n, k;  // k = 0: sgemv
  float beta;
  double hint_us;  // the table's time, to choose the repetitions
};

// Operand sets in one allocation, each operand 256-byte aligned (as cudaMalloc's), rotated over
// >= kRotateBytes (at most 4096 sets, at least 2).
struct QSets {
  char* base = nullptr;
  size_t per = 0, off_b = 0, off_c = 0;
  int count = 0;
  void* a(int i) const { return base + size_t(i) * per; }
  void* b(int i) const { return base + size_t(i) * per + off_b; }
  void* c(int i) const { return base + size_t(i) * per + off_c; }
};

size_t round256(size_t v) { return (v + 255) / 256 * 256; }

const DoubleSource* g_dsrc = nullptr;  // for DGEMM and ZGEMM operands (made on first use)

QSets make_qsets(size_t bytes_a, size_t bytes_b, size_t bytes_c, bool half, const bench::Source& fs,
                 const HalfSource& hs, bool dbl = false) {
  QSets s;
  s.off_b = round256(bytes_a);
  s.off_c = s.off_b + round256(bytes_b);
  s.per = s.off_c + round256(bytes_c);
  s.count = int(std::max<size_t>(2, std::min<size_t>(4096, (kRotateBytes + s.per - 1) / s.per)));
  CK(cudaMalloc(&s.base, s.per * size_t(s.count)));
  const size_t total = s.per * size_t(s.count);  // (the padding gets random values too)
  if (dbl) {
    if (!g_dsrc) g_dsrc = new DoubleSource;
    g_dsrc->fill(reinterpret_cast<double*>(s.base), total / 8, bytes_a + bytes_b);
  } else if (half) {
    hs.fill(reinterpret_cast<__half*>(s.base), total / 2, bytes_a + bytes_b);
  } else {
    fs.fill(reinterpret_cast<float*>(s.base), total / 4, bytes_a + bytes_b);
  }
  return s;
}

struct QPath {
  std::string name;  // "auto", "cublas", "kernel:<name>"
  std::function<void(const void* a, const void* b, void* c)> run;  // one call, synchronised
};

struct QResult {
  std::vector<double> us;  // per round
  double median() const {
    std::vector<double> v = us;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  }
};

struct QSummary {
  QShape s;
  std::string auto_path, table_choice, best;
  double auto_us, best_us, choice_us;
  double round_min, round_max;  // best/auto per round
  bool path_agrees;             // auto ran the path the table names
  double cublas_us = 0;         // cuBLAS called directly (median over the rounds)
  double cublas_round_min = 0;  // the lowest cublas/auto of any round
  std::string nearest;          // the nearest-row rule's path, and its median time
  double nearest_us = 0;
};
std::vector<QSummary> g_quality;
std::vector<unsigned> g_seeds;  // --offgrid's seeds (empty: the --quality run of the table's rows)
void print_quality(const QSummary& s);

// max |got - ref| / (max |ref| + scale) over count elements of two device arrays, on the GPU
// (the C of the large shapes is too big to compare on the host for every path).
double scaled_diff(cublasHandle_t h, const void* got, const void* ref, size_t count, bool half, double scale) {
  float *g, *r;
  CK(cudaMalloc(&g, count * 4));
  CK(cudaMalloc(&r, count * 4));
  if (half) {
    CK(myblas::widen_f16_f32(static_cast<const uint16_t*>(got), int64_t(count), g, int64_t(count), int(count), 1, nullptr));
    CK(myblas::widen_f16_f32(static_cast<const uint16_t*>(ref), int64_t(count), r, int64_t(count), int(count), 1, nullptr));
  } else {
    CK(cudaMemcpy(g, got, count * 4, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(r, ref, count * 4, cudaMemcpyDeviceToDevice));
  }
  const float minus = -1.f;
  CB(cublasSaxpy(h, int(count), &minus, r, 1, g, 1));
  int ig = 0, ir = 0;
  CB(cublasIsamax(h, int(count), g, 1, &ig));
  CB(cublasIsamax(h, int(count), r, 1, &ir));
  float dg = 0, dr = 0;
  CK(cudaMemcpy(&dg, g + (ig - 1), 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&dr, r + (ir - 1), 4, cudaMemcpyDeviceToHost));
  CK(cudaFree(g));
  CK(cudaFree(r));
  const double d = std::fabs(double(dg)) / (std::fabs(double(dr)) + scale);
  return std::isnan(dg) ? INFINITY : d;
}

// The same for double data (DGEMM; ZGEMM as 2 * count doubles).
double scaled_diff_f64(cublasHandle_t h, const void* got, const void* ref, size_t count, double scale) {
  double *g, *r;
  CK(cudaMalloc(&g, count * 8));
  CK(cudaMalloc(&r, count * 8));
  CK(cudaMemcpy(g, got, count * 8, cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(r, ref, count * 8, cudaMemcpyDeviceToDevice));
  const double minus = -1.0;
  CB(cublasDaxpy(h, int(count), &minus, r, 1, g, 1));
  int ig = 0, ir = 0;
  CB(cublasIdamax(h, int(count), g, 1, &ig));
  CB(cublasIdamax(h, int(count), r, 1, &ir));
  double dg = 0, dr = 0;
  CK(cudaMemcpy(&dg, g + (ig - 1), 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&dr, r + (ir - 1), 8, cudaMemcpyDeviceToHost));
  CK(cudaFree(g));
  CK(cudaFree(r));
  return std::isnan(dg) ? INFINITY : std::fabs(dg) / (std::fabs(dr) + scale);
}

void bench_quality_shape(cublasHandle_t hs, cublasHandle_t hh, const myblas::DispatchTable& table,
                         const QShape& q, const bench::Source& fsrc, const HalfSource& hsrc) {
  using myblas::Routine;
  const bool gemv = q.routine == Routine::sgemv, half = q.routine == Routine::hgemm;
  const bool dgemm = q.routine == kDgemm, zgemm = q.routine == kZgemm, dbl = dgemm || zgemm;
  const size_t es = half ? 2 : zgemm ? 16 : dgemm ? 8 : 4;
  const char ta = q.ta, tb = q.tb;
  const int m = q.m, n = q.n, k = q.k;
  const myblas::Op oa = ta == 'N' ? myblas::Op::N : myblas::Op::T, ob = tb == 'N' ? myblas::Op::N : myblas::Op::T;
  // Stored shapes: GEMM A ar x ac, B br x bc, C m x n; GEMV A m x n, x lx, y ly.
  const int ar = gemv ? m : (ta == 'N' ? m : k), ac = gemv ? n : (ta == 'N' ? k : m);
  const int br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
  const int lx = ta == 'N' ? n : m, ly = ta == 'N' ? m : n;
  const size_t na = size_t(ar) * ac, nb = gemv ? size_t(lx) : size_t(br) * bc, nc = gemv ? size_t(ly) : size_t(m) * n;
  QSets sets = make_qsets(na * es, nb * es, nc * es, half, fsrc, hsrc, dbl);
  const float alpha = 1.f, beta = q.beta;
  const double dalpha[2] = {1.0, 0.0}, dbeta[2] = {double(q.beta), 0.0};  // (ZGEMM: real parts)
  const uint16_t halpha = myblas_float_to_half(alpha), hbeta = myblas_float_to_half(beta);
  const cublasOperation_t ca = ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, cb = tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  float* scratch = nullptr;  // HGEMM's round-once FP32 C
  if (half && beta != 0.f) CK(cudaMalloc(&scratch, nc * 4));

  std::vector<QPath> paths;
  // auto: the library as an unmodified program calls it.
  paths.push_back({"auto", [&](const void* a, const void* b, void* c) {
                     const int inc = 1;
                     if (dgemm)
                       dgemm_(&ta, &tb, &m, &n, &k, dalpha, static_cast<const double*>(a), &ar,
                              static_cast<const double*>(b), &br, dbeta, static_cast<double*>(c), &m);
                     else if (zgemm)
                       zgemm_(&ta, &tb, &m, &n, &k, dalpha, a, &ar, b, &br, dbeta, c, &m);
                     else if (gemv)
                       sgemv_(&ta, &m, &n, &alpha, static_cast<const float*>(a), &m, static_cast<const float*>(b), &inc,
                              &beta, static_cast<float*>(c), &inc);
                     else if (half)
                       hgemm_(&ta, &tb, &m, &n, &k, &halpha, static_cast<const uint16_t*>(a), &ar,
                              static_cast<const uint16_t*>(b), &br, &hbeta, static_cast<uint16_t*>(c), &m);
                     else
                       sgemm_(&ta, &tb, &m, &n, &k, &alpha, static_cast<const float*>(a), &ar,
                              static_cast<const float*>(b), &br, &beta, static_cast<float*>(c), &m);
                   }});
  // cuBLAS as the library calls it.
  paths.push_back({"cublas", [&](const void* a, const void* b, void* c) {
                     if (dgemm) {
                       CB(cublasDgemm(hs, ca, cb, m, n, k, dalpha, static_cast<const double*>(a), ar,
                                      static_cast<const double*>(b), br, dbeta, static_cast<double*>(c), m));
                     } else if (zgemm) {
                       CB(cublasZgemm(hs, ca, cb, m, n, k, reinterpret_cast<const cuDoubleComplex*>(dalpha),
                                      static_cast<const cuDoubleComplex*>(a), ar, static_cast<const cuDoubleComplex*>(b),
                                      br, reinterpret_cast<const cuDoubleComplex*>(dbeta),
                                      static_cast<cuDoubleComplex*>(c), m));
                     } else if (gemv) {
                       CB(cublasSgemv(hs, ca, m, n, &alpha, static_cast<const float*>(a), m,
                                      static_cast<const float*>(b), 1, &beta, static_cast<float*>(c), 1));
                     } else if (half && beta != 0.f) {
                       const float zero = 0.f;
                       CB(cublasGemmEx(hh, ca, cb, m, n, k, &alpha, a, CUDA_R_16F, ar, b, CUDA_R_16F, br, &zero,
                                       scratch, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
                       CK(myblas::add_scaled_round_f16(scratch, m, beta, static_cast<uint16_t*>(c), m, m, n, nullptr));
                     } else if (half) {
                       CB(cublasGemmEx(hh, ca, cb, m, n, k, &alpha, a, CUDA_R_16F, ar, b, CUDA_R_16F, br, &beta, c,
                                       CUDA_R_16F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
                     } else {
                       CB(cublasSgemm(hs, ca, cb, m, n, k, &alpha, static_cast<const float*>(a), ar,
                                      static_cast<const float*>(b), br, &beta, static_cast<float*>(c), m));
                     }
                     CK(cudaDeviceSynchronize());
                   }});
  // Our kernels, called directly.
  auto gemm_problem = [&](const void* a, const void* b, void* c) {
    myblas::GemmProblem p;
    p.routine = half ? Routine::hgemm : Routine::sgemm;
    p.ta = oa;
    p.tb = ob;
    p.m = m;
    p.n = n;
    p.k = k;
    p.alpha = alpha;
    p.beta = beta;
    p.a = a;
    p.b = b;
    p.c = c;
    p.lda = ar;
    p.ldb = br;
    p.ldc = m;
    p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
    p.dev_a = p.dev_b = p.dev_c = p.device = 0;
    return p;
  };
  auto gemv_problem = [&](const void* a, const void* b, void* c) {
    myblas::GemvProblem p;
    p.ta = oa;
    p.m = m;
    p.n = n;
    p.alpha = alpha;
    p.beta = beta;
    p.a = static_cast<const float*>(a);
    p.x = static_cast<const float*>(b);
    p.y = static_cast<float*>(c);
    p.lda = m;
    p.mem_a = p.mem_x = p.mem_y = myblas::Mem::device;
    p.dev_a = p.dev_x = p.dev_y = p.device = 0;
    return p;
  };
  // Each candidate kernel of the routine that can run the shape (K: its kernel enum).
  auto add_kernels = [&](auto k_tag, const auto& names, auto from_name, auto can_implement, auto run, auto problem) {
    for (const char* name : names) {
      decltype(k_tag) kk;
      if (!from_name(name, &kk)) continue;
      if (can_implement(kk, problem(sets.a(0), sets.b(0), sets.c(0)))) continue;
      paths.push_back({std::string("kernel:") + name, [kk, run, problem](const void* a, const void* b, void* c) {
                         CK(run(kk, problem(a, b, c), nullptr));
                         CK(cudaDeviceSynchronize());
                       }});
    }
  };
  if (dbl) {
    // (the generic path: auto's candidates are cuBLAS and the CPU, and device operands take cuBLAS)
  } else if (gemv)
    add_kernels(myblas::SgemvKernel{}, kSgemvCandidates, myblas::sgemv_kernel_from_name, myblas::sgemv_can_implement,
                myblas::sgemv_run, gemv_problem);
  else if (half)
    add_kernels(myblas::HgemmKernel{}, kHgemmCandidates, myblas::hgemm_kernel_from_name, myblas::hgemm_can_implement,
                myblas::hgemm_run, gemm_problem);
  else
    add_kernels(myblas::SgemmKernel{}, kSgemmCandidates, myblas::sgemm_kernel_from_name, myblas::sgemm_can_implement,
                myblas::sgemm_run, gemm_problem);

  // The entry auto should follow, and the path it names.
  const myblas::DeviceEvidence e = myblas::device_evidence(table, q.routine, oa, ob, m, n, k, beta == 0.f);
  const std::string choice = e.kernel ? std::string("kernel:") + myblas::entry_choice_name(*e.row) : std::string("cublas");
  // What the nearest-row rule (before the bracketing rule) would have run, for comparison.
  const myblas::TableEntry* near =
      myblas::bracket_rule(q.routine) ? myblas::nearest_entry(table, q.routine, myblas::Mem::device, oa, ob, m, n, k, beta == 0.f)
                                      : nullptr;
  const std::string nearest = near && near->path == myblas::Path::kernels
                                  ? std::string("kernel:") + myblas::entry_choice_name(*near)
                                  : std::string("cublas");

  // Verify every path against cuBLAS from the same C (set 0's): beta != 0 reads it.
  void *cref, *cgot;
  CK(cudaMalloc(&cref, nc * es));
  CK(cudaMalloc(&cgot, nc * es));
  CK(cudaMemcpy(cref, sets.c(0), nc * es, cudaMemcpyDeviceToDevice));
  paths[1].run(sets.a(0), sets.b(0), cref);
  std::string auto_path = "?";
  const double scale = gemv ? std::sqrt(double(lx)) : half ? 1.0 : std::sqrt(double(k));
  const double tol = half ? 2e-3 : dbl ? 1e-13 : 1e-5;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i == 1) continue;
    CK(cudaMemcpy(cgot, sets.c(0), nc * es, cudaMemcpyDeviceToDevice));
    paths[i].run(sets.a(0), sets.b(0), cgot);
    CK(cudaDeviceSynchronize());
    if (i == 0) auto_path = myblas_last_path();
    const double d = dbl ? scaled_diff_f64(hs, cgot, cref, nc * (zgemm ? 2 : 1), scale)
                         : scaled_diff(hs, cgot, cref, nc, half, scale);
    if (!(d <= tol)) {
      std::fprintf(stderr, "VERIFY FAILED %s %s %c%c %dx%dx%d beta %g: scaled diff %.3g\n", qname(q.routine),
                   paths[i].name.c_str(), ta, gemv ? ' ' : tb, m, n, k, double(beta), d);
      g_failed = true;
    }
  }
  CK(cudaFree(cref));
  CK(cudaFree(cgot));
  paths[0].name = "auto:" + auto_path;
  const bool agrees = (auto_path == "kernels") == (choice != "cublas") && auto_path != "cpu" && auto_path != "none";

  // Timing. The GPU's clocks follow its load, and every call here is synchronised, so a path
  // timed in one block can meet other clocks than the next: first keep the GPU busy for >= 20 ms,
  // then per round take one event-timed call of every path in turn (order rotated every call),
  // `reps` times over, and each path's median of the round.
  const int reps = int(std::max(5.0, std::min(30.0, 30000.0 / std::max(1.0, q.hint_us))));
  std::vector<QResult> res(paths.size());
  const char trs[3] = {ta, gemv ? '\0' : tb, '\0'};
  const double flops = gemv ? 2.0 * m * n : (zgemm ? 8.0 : 2.0) * m * n * double(k);
  const double bytes = double(es) * (double(na) + double(nb) + double(nc) * (beta != 0.f ? 2 : 1));
  int next = 0;
  {
    const auto w0 = std::chrono::steady_clock::now();
    for (int w = 0; w < 3 || std::chrono::steady_clock::now() - w0 < std::chrono::milliseconds(20); ++w, ++next)
      paths[1].run(sets.a(next % sets.count), sets.b(next % sets.count), sets.c(next % sets.count));
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int r = 0; r < g_rounds; ++r) {
    std::vector<std::vector<double>> calls(paths.size());
    for (int w = 0; w < 2; ++w)
      for (const QPath& p : paths) {
        p.run(sets.a(next % sets.count), sets.b(next % sets.count), sets.c(next % sets.count));
        ++next;
      }
    for (int i = 0; i < reps; ++i)
      for (size_t jj = 0; jj < paths.size(); ++jj) {
        const size_t j = (jj + size_t(i + r)) % paths.size();
        const int set = next++ % sets.count;
        CK(cudaEventRecord(e0, nullptr));
        paths[j].run(sets.a(set), sets.b(set), sets.c(set));
        CK(cudaEventRecord(e1, nullptr));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        calls[j].push_back(ms * 1000.0);
      }
    std::vector<double> t(paths.size());
    for (size_t i = 0; i < paths.size(); ++i) {
      t[i] = QResult{calls[i]}.median();
      res[i].us.push_back(t[i]);
    }
    std::printf("# shape %s %d x %d x %d round %d beta %g\n", trs, m, n, k, r + 1, double(beta));
    for (size_t i = 0; i < paths.size(); ++i)  // (the beta is in the "# shape" line)
      row(qname(q.routine), paths[i].name.c_str(), trs, m, n, k, t[i], flops, bytes, t[1] / t[i]);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  QSummary sum{q, paths[0].name, choice, "", res[0].median(), 1e300, 0, 1e300, 0, agrees};
  for (size_t i = 1; i < paths.size(); ++i) {
    const double med = res[i].median();
    if (med < sum.best_us) {
      sum.best_us = med;
      sum.best = paths[i].name;
    }
    if (paths[i].name == choice) sum.choice_us = med;
  }
  sum.cublas_us = res[1].median();
  sum.nearest = nearest;
  for (size_t i = 1; i < paths.size(); ++i)
    if (paths[i].name == nearest) sum.nearest_us = res[i].median();
  sum.cublas_round_min = 1e300;
  for (int r = 0; r < g_rounds; ++r) {
    double best = 1e300;
    for (size_t i = 1; i < paths.size(); ++i) best = std::min(best, res[i].us[size_t(r)]);
    sum.round_min = std::min(sum.round_min, best / res[0].us[size_t(r)]);
    sum.round_max = std::max(sum.round_max, best / res[0].us[size_t(r)]);
    sum.cublas_round_min = std::min(sum.cublas_round_min, res[1].us[size_t(r)] / res[0].us[size_t(r)]);
  }
  g_quality.push_back(sum);
  if (!g_seeds.empty()) print_quality(sum);
  std::fflush(stdout);
  if (scratch) CK(cudaFree(scratch));
  CK(cudaFree(sets.base));
}

// One shape's "# quality" line (the columns of the "# quality:" header line).
void print_quality(const QSummary& s) {
  const double ratio = s.best_us / s.auto_us, cratio = s.choice_us > 0 ? s.best_us / s.choice_us : 0;
  std::printf("# quality,%s,%c%c,%d,%d,%d,%g,%s,%s,%s,%.2f,%s,%.2f,%.3f,%.3f,%.3f,%s,%.2f,%.3f,%s,%.2f,%.3f,%.3f,%s,%.2f,%.3f\n",
              qname(s.s.routine), s.s.ta, s.s.routine == myblas::Routine::sgemv ? ' ' : s.s.tb, s.s.m, s.s.n,
              s.s.k, double(s.s.beta), s.auto_path.c_str(), s.table_choice.c_str(), s.path_agrees ? "yes" : "NO",
              s.auto_us, s.best.c_str(), s.best_us, ratio, s.round_min, s.round_max, ratio >= 0.95 ? "yes" : "no",
              s.choice_us, cratio, cratio >= 0.95 ? "yes" : "no", s.cublas_us, s.cublas_us / s.auto_us,
              s.cublas_round_min, s.nearest.c_str(), s.nearest_us, s.nearest_us > 0 ? s.cublas_us / s.nearest_us : 0.0);
  std::fflush(stdout);
}

const char kQualityHeader[] =
    "# quality: routine,trans,m,n,k,beta,auto_path,table_choice,agrees,auto_us,best_path,best_us,"
    "best_over_auto,round_min,round_max,within5,choice_us,best_over_choice,choice_within5,cublas_us,"
    "cublas_over_auto,cublas_over_auto_round_min,nearest_row_choice,nearest_us,cublas_over_nearest\n";

// The device shapes of the table: GEMM rows for any beta are run with beta 0 and 0.5.
std::vector<QShape> quality_shapes(const myblas::DispatchTable& t, const std::string& only) {
  std::vector<QShape> out;
  for (const myblas::TableEntry& e : t.entries) {
    if (e.mem != myblas::Mem::device) continue;
    if (!only.empty() && only.find(qname(e.routine)) == std::string::npos) continue;
    const bool gemv = e.routine == myblas::Routine::sgemv;
    std::vector<float> betas;
    if (gemv || e.beta == '0') betas = {0.f};
    else if (e.beta == '1') betas = {0.5f};
    else betas = {0.f, 0.5f};
    for (float b : betas)
      out.push_back({e.routine, myblas::op_char(e.ta), gemv ? 'N' : myblas::op_char(e.tb), e.m, e.n, e.k, b,
                     double(e.time_us)});
  }
  return out;
}

// ---- --offgrid ----

// Off-grid shapes: each dimension drawn log-uniform (16 .. 8192; SGEMV 16 .. 65536), shapes
// over a work bound dropped (so one run stays within minutes), and none at a device row of the
// table (any transposes). The transposes cycle through every combination and beta through 0
// and 1 (GEMM: NN NT TN TT with beta 0, then with beta 1, ...), so a count that is a multiple of
// 8 (SGEMV: 4) covers each equally. Fixed seeds: the same shapes in every run.
int g_offgrid_count = 16;
std::vector<std::string> g_extra;  // --extra: routine:trans:m:n:k:beta shapes, run before the drawn ones
int g_budget_s = 0;                // --budget-s: no new shape after this many seconds (0: no limit)

// One --extra shape ("sgemv:N:3000:7000:0:1", "sgemm:NN:4096:4096:256:0"); false if malformed.
bool parse_extra(const std::string& text, QShape* q) {
  char routine[16] = "", trans[4] = "";
  int m = 0, n = 0, k = 0;
  float beta = 0;
  if (std::sscanf(text.c_str(), "%15[a-z]:%3[NT]:%d:%d:%d:%f", routine, trans, &m, &n, &k, &beta) != 6 || m < 1 ||
      n < 1 || k < 0)
    return false;
  for (myblas::Routine r : {myblas::Routine::sgemm, myblas::Routine::sgemv, myblas::Routine::hgemm, kDgemm, kZgemm})
    if (std::string(routine) == qname(r)) {
      const bool gemv = r == myblas::Routine::sgemv;
      if (gemv != (k == 0) || std::strlen(trans) != (gemv ? 1u : 2u)) return false;
      *q = {r, trans[0], gemv ? 'N' : trans[1], m, n, k, beta, 100.0};
      return true;
    }
  return false;
}

std::vector<QShape> offgrid_shapes(const myblas::DispatchTable& t, myblas::Routine r, unsigned seed, int count) {
  using myblas::Routine;
  std::mt19937_64 rng(uint64_t(seed) * 1000003u + uint64_t(r) * 7919u);
  const bool gemv = r == Routine::sgemv;
  const double lo = std::log(16.0), hi = std::log(gemv ? 65536.0 : 8192.0);
  // Work bounds: elements of A for SGEMV, m*n*k otherwise.
  const double max_work = gemv ? 0x1p26 : r == Routine::hgemm ? 0x1p35 : r == Routine::sgemm ? 0x1p33
                                        : r == kDgemm         ? 0x1p32 : 0x1p30;
  // The time a call may take, to choose repetitions: rough H100 rates (flop or byte per us).
  const double rate = gemv ? 2.5e6 : r == Routine::hgemm ? 4e8 : r == kZgemm ? 1.2e8 : 4e7;
  std::uniform_real_distribution<double> d(lo, hi);
  auto draw = [&] { return int(std::lround(std::exp(d(rng)))); };
  std::vector<QShape> out;
  for (int idx = 0; int(out.size()) < count;) {
    const int m = draw(), n = draw(), k = gemv ? 0 : draw();
    const double work = gemv ? double(m) * n : double(m) * n * k;
    if (work > max_work) continue;
    bool on_row = false;
    for (const myblas::TableEntry& e : t.entries)
      on_row = on_row || (e.routine == r && e.mem == myblas::Mem::device && e.m == m && e.n == n && e.k == k);
    if (on_row) continue;
    const int combos = gemv ? 2 : 4;
    const int trans = idx % combos;
    const float beta = (idx / combos) % 2 ? 1.f : 0.f;
    const char ta = (gemv ? trans : trans / 2) ? 'T' : 'N', tb = gemv ? 'N' : (trans % 2 ? 'T' : 'N');
    const double bytes = 4.0 * (double(m) * n + m + n);
    const double hint = gemv ? bytes / rate : (r == kZgemm ? 8.0 : 2.0) * m * n * double(k) / rate;
    out.push_back({r, ta, tb, m, n, k, beta, std::max(5.0, hint)});
    ++idx;
  }
  return out;
}

// Per routine: how many shapes, auto within 5% of the fastest path, and auto against cuBLAS
// (the lowest per-round ratio of any shape: the target is >= 0.95 in every run).
void offgrid_summary() {
  std::printf("# offgrid summary: routine,shapes,auto_within5_of_fastest,share,min_cublas_over_auto(median),"
              "min_cublas_over_auto(any round),worst_shape\n");
  for (const char* name : {"sgemm", "sgemv", "hgemm", "dgemm", "zgemm"}) {
    int count = 0, within = 0;
    double worst_med = 1e300, worst_round = 1e300;
    std::string worst;
    for (const QSummary& q : g_quality) {
      if (std::string(qname(q.s.routine)) != name) continue;
      ++count;
      within += q.best_us / q.auto_us >= 0.95;
      const double med = q.cublas_us / q.auto_us;
      if (med < worst_med) {
        worst_med = med;
        char buf[96];
        std::snprintf(buf, sizeof buf, "%c%c %dx%dx%d beta %g", q.s.ta, q.s.routine == myblas::Routine::sgemv ? ' ' : q.s.tb,
                      q.s.m, q.s.n, q.s.k, double(q.s.beta));
        worst = buf;
      }
      worst_round = std::min(worst_round, q.cublas_round_min);
    }
    if (count)
      std::printf("# offgrid summary,%s,%d,%d,%.3f,%.3f,%.3f,%s\n", name, count, within, double(within) / count,
                  worst_med, worst_round, worst.c_str());
  }
}

int run_quality(const char* table_path, const std::string& only, int argc, char** argv) {
  myblas::DispatchTable table;
  std::string error;
  if (!myblas::load_dispatch_table(table_path, &table, &error)) {
    std::fprintf(stderr, "bench_blas: cannot use table %s: %s\n", table_path, error.c_str());
    return 2;
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::printf("# bench_blas --quality: libmyblas %s (rev %s) auto mode beside cuBLAS and every candidate kernel,"
              " device pointers\n", myblas_version(), MYBLAS_GIT_REV);
  std::printf("# date: %s; device: %s (sm_%d%d, %d SMs); driver %d; table %s (MYBLAS_DISPATCH_TABLE=%s)\n",
              bench::utc_now().c_str(), prop.name, prop.major, prop.minor, prop.multiProcessorCount, driver,
              table_path, std::getenv("MYBLAS_DISPATCH_TABLE") ? std::getenv("MYBLAS_DISPATCH_TABLE") : "");
  bench::print_command(argc, argv);
  std::printf("# per round and path: median of 5-30 event-timed calls (each synchronised), the paths' calls"
              " interleaved in rotating order, after 2 warm-ups each (and >= 20 ms of cuBLAS calls before the first"
              " round); operand sets rotated over >= 256 MiB; %d rounds; ratio_vs_cublas = t_cublas / t_path"
              " (cublas: the library's cuBLAS path without the library)\n", g_rounds);
  std::printf("routine,path,trans,m,n,k,time_us,gflops,gbps,ratio_vs_cublas\n");
  cublasHandle_t hs, hh;
  CB(cublasCreate(&hs));
  CB(cublasCreate(&hh));
  CB(cublasSetMathMode(hs, CUBLAS_PEDANTIC_MATH));
  CB(cublasSetMathMode(hh, cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  const bench::Source fsrc;
  const HalfSource hsrc;
  std::vector<QShape> shapes;
  if (g_seeds.empty()) {
    shapes = quality_shapes(table, only);
  } else {
    std::printf("# offgrid: seeds");
    for (unsigned seed : g_seeds) std::printf(" %u", seed);
    std::printf("; %d shapes per seed for SGEMM and SGEMV, 2/3 of that for HGEMM, 1/3 for DGEMM and ZGEMM\n",
                g_offgrid_count);
    for (unsigned seed : g_seeds)
      for (myblas::Routine r : {myblas::Routine::sgemm, myblas::Routine::sgemv, myblas::Routine::hgemm, kDgemm, kZgemm}) {
        if (!only.empty() && only.find(qname(r)) == std::string::npos) continue;
        const int count = r == myblas::Routine::hgemm ? g_offgrid_count * 2 / 3
                          : r == kDgemm || r == kZgemm  ? std::max(4, g_offgrid_count / 3)
                                                        : g_offgrid_count;
        for (const QShape& q : offgrid_shapes(table, r, seed, count)) shapes.push_back(q);
      }
    std::vector<QShape> named;  // (first: a run cut short by --budget-s still has them)
    for (const std::string& e : g_extra) {
      QShape q;
      if (!parse_extra(e, &q)) {
        std::fprintf(stderr, "bench_blas: --extra shape '%s' is not routine:trans:m:n:k:beta\n", e.c_str());
        return 2;
      }
      named.push_back(q);
    }
    shapes.insert(shapes.begin(), named.begin(), named.end());
  }
  // Off-grid runs print each shape's quality line as soon as it is measured and stop starting
  // shapes after --budget-s seconds, so that a run cut short still says what it measured.
  if (!g_seeds.empty()) std::printf("%s", kQualityHeader);
  const auto started = std::chrono::steady_clock::now();
  size_t done = 0;
  for (const QShape& q : shapes) {
    if (g_budget_s > 0 && std::chrono::steady_clock::now() - started > std::chrono::seconds(g_budget_s)) {
      std::printf("# budget of %d s reached: %zu of %zu shapes measured\n", g_budget_s, done, shapes.size());
      break;
    }
    bench_quality_shape(hs, hh, table, q, fsrc, hsrc);
    ++done;
  }
  if (g_seeds.empty()) std::printf("%s", kQualityHeader);
  int within = 0, choice_within = 0;
  for (const QSummary& s : g_quality) {
    const double ratio = s.best_us / s.auto_us, cratio = s.choice_us > 0 ? s.best_us / s.choice_us : 0;
    within += ratio >= 0.95;
    choice_within += cratio >= 0.95;
    if (g_seeds.empty()) print_quality(s);
  }
  std::printf("# quality summary: auto within 5%% of the fastest path on %d of %zu shapes; the table's choice"
              " (timed directly) within 5%% on %d of %zu\n", within, g_quality.size(), choice_within, g_quality.size());
  if (!g_seeds.empty()) offgrid_summary();
  cublasDestroy(hs);
  cublasDestroy(hh);
  return g_failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, hgemm_only = false, list = false;
  const char* quality = nullptr;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strncmp(argv[i], "--quality=", 10)) quality = argv[i] + 10;
    else if (!std::strncmp(argv[i], "--only=", 7)) only = argv[i] + 7;
    else if (!std::strncmp(argv[i], "--rounds=", 9)) g_rounds = std::max(1, std::atoi(argv[i] + 9));
    else if (!std::strcmp(argv[i], "--hgemm")) hgemm_only = true;
    else if (!std::strcmp(argv[i], "--list")) list = true;
    else if (!std::strncmp(argv[i], "--reps=", 7)) g_reps = std::atoi(argv[i] + 7);
    else if (!std::strncmp(argv[i], "--offgrid=", 10)) {
      quality = argv[i] + 10;
      if (g_seeds.empty()) g_seeds = {1, 2};
    } else if (!std::strncmp(argv[i], "--seeds=", 8)) {
      g_seeds.clear();
      for (const std::string& v : bench::split_list(argv[i] + 8)) g_seeds.push_back(unsigned(std::stoul(v)));
    } else if (!std::strncmp(argv[i], "--count=", 8)) {
      g_offgrid_count = std::max(1, std::atoi(argv[i] + 8));
    } else if (!std::strncmp(argv[i], "--budget-s=", 11)) {
      g_budget_s = std::max(0, std::atoi(argv[i] + 11));
    } else if (!std::strncmp(argv[i], "--extra=", 8)) {
      g_extra = bench::split_list(argv[i] + 8);
    }
  }
  if (list && quality && !g_seeds.empty()) {  // --list: the off-grid shapes and the rule's choice, no GPU needed
    myblas::DispatchTable table;
    std::string error;
    if (!myblas::load_dispatch_table(quality, &table, &error)) {
      std::fprintf(stderr, "bench_blas: cannot use table %s: %s\n", quality, error.c_str());
      return 2;
    }
    std::printf("routine,trans,m,n,k,beta,rule_choice,nearest_row_choice,seed\n");
    for (unsigned seed : g_seeds)
      for (myblas::Routine r : {myblas::Routine::sgemm, myblas::Routine::sgemv, myblas::Routine::hgemm, kDgemm, kZgemm}) {
        const int count = r == myblas::Routine::hgemm ? g_offgrid_count * 2 / 3
                          : r == kDgemm || r == kZgemm  ? std::max(4, g_offgrid_count / 3)
                                                        : g_offgrid_count;
        for (const QShape& q : offgrid_shapes(table, r, seed, count)) {
          const myblas::Op oa = q.ta == 'N' ? myblas::Op::N : myblas::Op::T, ob = q.tb == 'N' ? myblas::Op::N : myblas::Op::T;
          const myblas::DeviceEvidence e = myblas::device_evidence(table, r, oa, ob, q.m, q.n, q.k, q.beta == 0.f);
          const myblas::TableEntry* near = myblas::bracket_rule(r) ? myblas::nearest_entry(
                                                                         table, r, myblas::Mem::device, oa, ob, q.m, q.n,
                                                                         q.k, q.beta == 0.f)
                                                                   : nullptr;
          std::printf("%s,%c%c,%d,%d,%d,%g,%s,%s,%u\n", qname(r), q.ta, r == myblas::Routine::sgemv ? ' ' : q.tb, q.m,
                      q.n, q.k, double(q.beta), e.kernel ? myblas::entry_choice_name(*e.row) : "cublas",
                      near ? myblas::entry_choice_name(*near) : "cublas", seed);
        }
      }
    return 0;
  }
  // The library reads the table at its first device call: point it at the one measured here.
  if (quality) setenv("MYBLAS_DISPATCH_TABLE", quality, 1);
  if (!myblas_gpu_available()) {
    std::fprintf(stderr, "bench_blas: no usable CUDA device\n");
    return 2;
  }
  if (quality) return run_quality(quality, only, argc, argv);
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::printf("# bench_blas: libmyblas %s (rev %s) beside cuBLAS, device pointers\n",
              myblas_version(), MYBLAS_GIT_REV);
  std::printf("# date: %s; device: %s (%d SMs); driver %d; MYBLAS_BACKEND=%s\n", bench::utc_now().c_str(),
              prop.name, prop.multiProcessorCount, driver,
              std::getenv("MYBLAS_BACKEND") ? std::getenv("MYBLAS_BACKEND") : "(unset: auto)");
  bench::print_command(argc, argv);
  std::printf("# median of %d event-timed calls after 3 warm-ups, operand sets rotated over >= 256 MiB,"
              " synchronised after every call; ratio_vs_cublas = t_cublas / t_path\n", g_reps);
  std::printf("routine,path,trans,m,n,k,time_us,gflops,gbps,ratio_vs_cublas\n");
  cublasHandle_t h;
  CB(cublasCreate(&h));
  struct G { char ta, tb; int m, n, k; float beta; };
  std::vector<G> gemms = {{'N', 'N', 64, 64, 64, 0.f},       {'N', 'N', 127, 129, 1031, 0.f},
                          {'N', 'N', 1000, 1000, 1000, 0.f}, {'N', 'N', 1024, 1024, 1024, 0.f},
                          {'N', 'N', 4096, 4096, 4096, 0.f}, {'N', 'T', 4096, 4096, 4096, 0.f},
                          {'T', 'N', 4096, 4096, 4096, 0.f}, {'T', 'T', 4096, 4096, 4096, 0.f},
                          {'N', 'N', 16, 4096, 4096, 0.f},   {'N', 'N', 4096, 16, 4096, 0.f},
                          {'N', 'N', 8192, 8192, 64, 0.5f},  {'N', 'N', 8192, 8192, 8192, 0.f}};
  if (hgemm_only) {
    // HGEMM through the library (run once per MYBLAS_BACKEND to compare its paths), beta 0 and
    // 0.5: the evidence for the measured table's HGEMM device rows (make_dispatch_table.py --blas).
    std::vector<G> hg;
    for (float beta : {0.f, 0.5f}) {
      for (int s : {1024, 2048, 4096, 8192}) hg.push_back({'N', 'N', s, s, s, beta});
      for (const char* t : {"NT", "TN", "TT"}) hg.push_back({t[0], t[1], 4096, 4096, 4096, beta});
      hg.push_back({'N', 'N', 16, 4096, 4096, beta});
      hg.push_back({'N', 'N', 4096, 16, 4096, beta});
      hg.push_back({'N', 'N', 4096, 4096, 128, beta});
      hg.push_back({'N', 'N', 127, 129, 1031, beta});
      hg.push_back({'N', 'N', 1000, 1000, 1000, beta});
    }
    for (const G& g : hg) bench_gemm(h, true, g.ta, g.tb, g.m, g.n, g.k, g.beta);
    cublasDestroy(h);
    return g_failed ? 1 : 0;
  }
  if (quick) gemms.resize(4);
  for (const G& g : gemms) bench_gemm(h, false, g.ta, g.tb, g.m, g.n, g.k, g.beta);
  for (int s : quick ? std::vector<int>{1024} : std::vector<int>{1024, 4096, 8192})
    bench_gemm(h, true, 'N', 'N', s, s, s, 0.f);
  for (char t : {'N', 'T'})
    for (int s : quick ? std::vector<int>{1024} : std::vector<int>{256, 1024, 4096, 8192, 16384})
      bench_gemv(h, t, s, s);
  cublasDestroy(h);
  if (g_failed) {
    std::fprintf(stderr, "bench_blas: verification failed\n");
    return 1;
  }
  return 0;
}
