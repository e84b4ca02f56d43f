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

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, hgemm_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--hgemm")) hgemm_only = true;
    else if (!std::strncmp(argv[i], "--reps=", 7)) g_reps = std::atoi(argv[i] + 7);
  }
  if (!myblas_gpu_available()) {
    std::fprintf(stderr, "bench_blas: no usable CUDA device\n");
    return 2;
  }
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
