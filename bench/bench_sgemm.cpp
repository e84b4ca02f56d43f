// bench_sgemm: every hand-written SGEMM kernel (ladder rungs, production, shape-specialised)
// beside cublasSgemm (FP32, default math mode: no TF32) in one process, on device pointers.
//
// For each shape: verify each kernel against cublasSgemm first (beta = 0, same inputs, NaN-filled
// output so every element must be written), then time cuBLAS and each kernel with CUDA events
// around every single call, after warm-up, over operand sets rotated through >= 256 MiB (at least
// two sets), and report the median and ratio_vs_cublas = t_cublas / t_kernel (> 1: faster).
//
// Output: CSV with columns routine,path,trans,m,n,k,time_us,gflops,gbps,ratio_vs_cublas preceded
// by '#' header lines; a '#' summary table follows. gbps counts A, B read once, C written once
// (and read once more when beta != 0). Options: --reps=N (default 20), --quick (skip 8192^3 and
// the transposes), --skinny (only the memory-bound shapes: m or n = 16 in every transpose, k = 64),
// --large (only the production kernels on 4092^3 NN and 4096^3 / 8192^3 in every transpose),
// --mid (only the production kernels on mid-sized and flat NN shapes, where the tile choice matters),
// --smallk (k <= 128 with large m and n: 8192^2 x 64 in every transpose, beta 0.5 and 0, k = 32 and
// 128, 4096^2 x 64 and x 128, 2048^2 x 64, an edge-tile shape; the production kernels),
// --only=NAME[,NAME...] (only these kernels, wherever the shape list would run them).
#include <cublas_v2.h>
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

#include "kernels/sgemm.h"

#include "bench_util.h"

namespace {

using myblas::SgemmKernel;

using bench::kRotateBytes;
int g_reps = 20;
bool g_failed = false;
using bench::Source;

using bench::time_calls;

struct Shape {
  char ta, tb;
  int m, n, k;
  float beta;
  bool all_kernels;  // every rung (else production/specialised plus the named few)
};

double bytes_of(const Shape& s) {
  return 4.0 * (double(s.m) * s.k + double(s.k) * s.n + double(s.m) * s.n * (s.beta != 0.f ? 2 : 1));
}

void row(const char* path, const Shape& s, double us, double ratio) {
  std::printf("sgemm,%s,%c%c,%d,%d,%d,%.2f,%.1f,%.1f,%.3f\n", path, s.ta, s.tb, s.m, s.n, s.k, us,
              2.0 * s.m * s.n * double(s.k) / us / 1e3, bytes_of(s) / us / 1e3, ratio);
}

struct Summary {
  Shape s;
  double cublas_us, best_us, chosen_us;
  std::string best, chosen;
};
std::vector<Summary> g_summary;

void bench_shape(cublasHandle_t h, const Source& src, const Shape& s, const std::vector<SgemmKernel>& ks) {
  const int ar = s.ta == 'N' ? s.m : s.k, br = s.tb == 'N' ? s.k : s.n;
  const size_t na = size_t(s.m) * s.k, nb = size_t(s.k) * s.n, nc = size_t(s.m) * s.n;
  auto up = [](size_t x) { return (x + 63) / 64 * 64; };
  const size_t per = up(na) + up(nb) + up(nc);
  const int nsets = int(std::max<size_t>(2, std::min<size_t>(64, (kRotateBytes / 4 + per - 1) / per)));
  float* base;
  CK(cudaMalloc(&base, per * nsets * sizeof(float)));
  for (int i = 0; i < nsets; ++i) src.fill(base + per * i, per, size_t(i) + size_t(s.m) * 3 + s.n + s.k);
  auto A = [&](int i) { return base + per * i; };
  auto B = [&](int i) { return base + per * i + up(na); };
  auto C = [&](int i) { return base + per * i + up(na) + up(nb); };
  float *cref, *cgot;
  CK(cudaMalloc(&cref, nc * 4));
  CK(cudaMalloc(&cgot, nc * 4));
  const float one = 1.f, zero = 0.f, beta = s.beta;
  const cublasOperation_t oa = s.ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t ob = s.tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  CB(cublasSgemm(h, oa, ob, s.m, s.n, s.k, &one, A(0), ar, B(0), br, &zero, cref, s.m));
  CK(cudaDeviceSynchronize());
  std::vector<float> href(nc), hgot(nc);
  CK(cudaMemcpy(href.data(), cref, nc * 4, cudaMemcpyDeviceToHost));

  auto cublas_call = [&](int i) {
    CB(cublasSgemm(h, oa, ob, s.m, s.n, s.k, &one, A(i), ar, B(i), br, &beta, C(i), s.m));
  };
  std::printf("# shape %c%c %d x %d x %d beta %g\n", s.ta, s.tb, s.m, s.n, s.k, double(s.beta));  // rows carry no beta
  const double t_cublas = time_calls(cublas_call, nsets, g_reps, 2);
  row("cublas", s, t_cublas, 1.0);

  auto problem = [&](int i, float* c, float b) {
    myblas::GemmProblem p;
    p.ta = s.ta == 'N' ? myblas::Op::N : myblas::Op::T;
    p.tb = s.tb == 'N' ? myblas::Op::N : myblas::Op::T;
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    p.lda = ar;
    p.ldb = br;
    p.ldc = s.m;
    p.alpha = 1.f;
    p.beta = b;
    p.a = A(i);
    p.b = B(i);
    p.c = c;
    p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
    return p;
  };
  Summary sum{s, t_cublas, 1e30, 0, "", ""};
  const SgemmKernel chosen = myblas::sgemm_choose(problem(0, cgot, beta));
  sum.chosen = myblas::sgemm_kernel_name(chosen);
  for (SgemmKernel k : ks) {
    if (myblas::sgemm_can_implement(k, problem(0, cgot, 0.f))) continue;
    CK(cudaMemset(cgot, 0xff, nc * 4));  // NaN: beta = 0 must not read it, and every element is written
    const float first_ms = bench::time_once_ms([&] { CK(myblas::sgemm_run(k, problem(0, cgot, 0.f), nullptr)); });
    CK(cudaMemcpy(hgot.data(), cgot, nc * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    const double norm = std::sqrt(double(s.k));
    for (size_t i = 0; i < nc; ++i) {
      const double d = std::fabs(double(hgot[i]) - href[i]) / (std::fabs(double(href[i])) + norm);
      if (!(d <= worst)) worst = d;
    }
    const std::string path = std::string("kernel:") + myblas::sgemm_kernel_name(k);
    if (!(worst <= 1e-5)) {
      std::fprintf(stderr, "VERIFY FAILED %s %c%c %dx%dx%d: max scaled diff %.3g\n", path.c_str(), s.ta,
                   s.tb, s.m, s.n, s.k, worst);
      g_failed = true;
      continue;
    }
    const int reps = first_ms > 100.f ? 3 : first_ms > 20.f ? 5 : g_reps;
    auto call = [&](int i) { CK(myblas::sgemm_run(k, problem(i, C(i), beta), nullptr)); };
    const double us = time_calls(call, nsets, reps, 2);
    row(path.c_str(), s, us, t_cublas / us);
    if (myblas::sgemm_kernel_is_production(k) && us < sum.best_us) {
      sum.best_us = us;
      sum.best = myblas::sgemm_kernel_name(k);
    }
    if (k == chosen) sum.chosen_us = us;
  }
  g_summary.push_back(sum);
  CK(cudaFree(cref));
  CK(cudaFree(cgot));
  CK(cudaFree(base));
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, skinny = false, large = false, mid = false, smallk = false;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--skinny")) skinny = true;
    else if (!std::strcmp(argv[i], "--large")) large = true;
    else if (!std::strcmp(argv[i], "--mid")) mid = true;
    else if (!std::strcmp(argv[i], "--smallk")) smallk = true;
    else if (!std::strncmp(argv[i], "--only=", 7)) only = bench::split_list(argv[i] + 7);
    else if (!std::strncmp(argv[i], "--reps=", 7)) g_reps = std::max(3, std::atoi(argv[i] + 7));
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "bench_sgemm: no usable CUDA device\n");
    return 2;
  }
  std::printf("# bench_sgemm: hand-written SGEMM kernels (rev %s) beside cublasSgemm (FP32, default math), device pointers\n",
              MYBLAS_GIT_REV);
  bench::print_device_and_command(argc, argv);
  std::printf("# median of %d event-timed calls (3 for calls > 100 ms, 5 for > 20 ms) after 2 warm-ups;"
              " operand sets rotated over >= 256 MiB (>= 2 sets); alpha = 1; lda, ldb, ldc minimal;"
              " ratio_vs_cublas = t_cublas / t_path\n", g_reps);
  std::printf("routine,path,trans,m,n,k,time_us,gflops,gbps,ratio_vs_cublas\n");
  cublasHandle_t h;
  CB(cublasCreate(&h));
  Source src;

  std::vector<SgemmKernel> all, prod;
  for (int i = 0; i < myblas::kSgemmKernelCount; ++i) {
    all.push_back(SgemmKernel(i));
    if (myblas::sgemm_kernel_is_production(SgemmKernel(i))) prod.push_back(SgemmKernel(i));
  }
  std::vector<SgemmKernel> best_few = prod;
  best_few.insert(best_few.begin(), SgemmKernel::warptile);

  std::vector<std::pair<Shape, std::vector<SgemmKernel>>> list = {
      {{'N', 'N', 4092, 4092, 4092, 0.f, true}, all},
      {{'N', 'N', 4096, 4096, 4096, 0.f, true}, all},
      {{'N', 'N', 16, 4096, 4096, 0.f, false}, prod},
      {{'N', 'N', 4096, 16, 4096, 0.f, false}, prod},
      {{'N', 'N', 8192, 8192, 64, 0.5f, false}, prod},
  };
  if (smallk) {
    const std::vector<SgemmKernel>& ks = prod;
    list.clear();
    for (const char* t : {"NN", "NT", "TN", "TT"}) list.push_back({{t[0], t[1], 8192, 8192, 64, 0.5f, false}, ks});
    const Shape more[] = {{'N', 'N', 8192, 8192, 64, 0.f, false},  {'N', 'N', 8192, 8192, 32, 0.5f, false},
                          {'N', 'N', 8192, 8192, 128, 0.5f, false}, {'N', 'N', 8192, 8192, 128, 0.f, false},
                          {'N', 'N', 4096, 4096, 64, 0.5f, false},  {'N', 'N', 4096, 4096, 128, 0.5f, false},
                          {'N', 'N', 2048, 2048, 64, 0.5f, false},  {'N', 'N', 8000, 8000, 64, 0.5f, false}};
    for (const Shape& s : more) list.push_back({s, ks});
  } else if (mid) {
    list.clear();
    const int shapes[][3] = {{127, 129, 1031}, {1000, 1000, 1000}, {1024, 1024, 1024}, {2048, 2048, 2048},
                             {3000, 3000, 3000}, {4096, 4096, 128}, {128, 4096, 4096}, {4096, 128, 4096},
                             {8192, 1024, 8192}};
    for (const auto& d : shapes) list.push_back({{'N', 'N', d[0], d[1], d[2], 0.f, false}, prod});
  } else if (large) {
    list = {{{'N', 'N', 4092, 4092, 4092, 0.f, false}, prod}};
    for (int size : {4096, 8192})
      for (const char* t : {"NN", "NT", "TN", "TT"}) list.push_back({{t[0], t[1], size, size, size, 0.f, false}, prod});
  } else if (skinny) {
    list.erase(list.begin(), list.begin() + 2);
    for (const char* t : {"NT", "TN", "TT"}) {
      list.push_back({{t[0], t[1], 16, 4096, 4096, 0.f, false}, prod});
      list.push_back({{t[0], t[1], 4096, 16, 4096, 0.f, false}, prod});
    }
  } else if (!quick) {
    list.push_back({{'N', 'N', 8192, 8192, 8192, 0.f, false}, best_few});
    for (const char* t : {"NT", "TN", "TT"}) list.push_back({{t[0], t[1], 4096, 4096, 4096, 0.f, false}, prod});
    for (const char* t : {"NT", "TN", "TT"}) {
      list.push_back({{t[0], t[1], 16, 4096, 4096, 0.f, false}, prod});
      list.push_back({{t[0], t[1], 4096, 16, 4096, 0.f, false}, prod});
    }
  }
  for (auto& e : list) {
    if (!only.empty()) {
      std::vector<SgemmKernel> keep;
      for (SgemmKernel k : e.second)
        if (std::find(only.begin(), only.end(), myblas::sgemm_kernel_name(k)) != only.end()) keep.push_back(k);
      e.second = keep;
    }
    bench_shape(h, src, e.first, e.second);
    std::fflush(stdout);
  }
  cublasDestroy(h);

  std::printf("# summary: best production/specialised kernel and sgemm_choose's pick per shape (ratio = t_cublas / t)\n");
  std::printf("# %-2s %5s %5s %5s %4s | %9s %8s %6s | %-24s %9s %8s %6s | %-24s %6s\n", "op", "m", "n", "k",
              "beta", "cublas_us", "GFLOP/s", "GB/s", "best", "us", "GFLOP/s", "ratio", "chosen", "ratio");
  for (const Summary& x : g_summary) {
    const double fl = 2.0 * x.s.m * x.s.n * double(x.s.k);
    std::printf("# %c%c %5d %5d %5d %4.1f | %9.1f %8.0f %6.0f | %-24s %9.1f %8.0f %6.3f | %-24s %6.3f\n",
                x.s.ta, x.s.tb, x.s.m, x.s.n, x.s.k, x.s.beta, x.cublas_us, fl / x.cublas_us / 1e3,
                bytes_of(x.s) / x.cublas_us / 1e3, x.best.c_str(), x.best_us, fl / x.best_us / 1e3,
                x.cublas_us / x.best_us, x.chosen.c_str(), x.chosen_us > 0 ? x.cublas_us / x.chosen_us : 0.0);
  }
  if (g_failed) {
    std::fprintf(stderr, "bench_sgemm: verification failed\n");
    return 1;
  }
  return 0;
}
