// bench_hgemm: every hand-written HGEMM kernel (every HgemmKernel value) beside cublasGemmEx
// (CUDA_R_16F A, B and C, CUBLAS_COMPUTE_32F, default math mode) in one process, on device
// pointers.
//
// For each shape: verify each kernel against cublasGemmEx first (beta = 0, same inputs, NaN-filled
// output so every element must be written; scaled difference |got - ref| / (|ref| + sqrt(k)) must
// stay under 2^-9, about twice what two binary16 roundings allow), then time cuBLAS and each kernel
// with CUDA events around every single call, after warm-up, over operand sets rotated through
// >= 256 MiB (at least two sets), and report the median and ratio_vs_cublas = t_cublas / t_kernel
// (> 1: faster). A kernel that fails verification is flagged ('# VERIFY FAILED' line and stderr),
// not timed, and the exit status is 1.
//
// Output: CSV with columns routine,path,trans,m,n,k,time_us,gflops,gbps,ratio_vs_cublas preceded
// by '#' header lines; '#' summary tables follow. gbps counts A, B read once and C written once.
// Options:
//   --reps=N            timed calls per measurement (default 20)
//   --kernels=a,b,...   only these kernels (names as hgemm_kernel_name; default all)
//   --shapes=a,b,...    only these shape groups (default all): nn4096 (4096^3 NN), nn8192,
//                       trans (NT, TN, TT at 4096^3), 2048 (2048^3), m16 (16 x 4096 x 4096),
//                       k128 (4096 x 4096 x 128), odd (127 x 129 x 1031)
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/hgemm.h"

#include "bench_util.h"

namespace {

using bench::kRotateBytes;
using bench::time_calls;
using myblas::HgemmKernel;

int g_reps = 20;
bool g_failed = false;

struct Shape {
  char ta, tb;
  int m, n, k;
};

double bytes_of(const Shape& s) {
  return 2.0 * (double(s.m) * s.k + double(s.k) * s.n + double(s.m) * s.n);
}

void row(const char* path, const Shape& s, double us, double ratio) {
  std::printf("hgemm,%s,%c%c,%d,%d,%d,%.2f,%.1f,%.1f,%.3f\n", path, s.ta, s.tb, s.m, s.n, s.k, us,
              2.0 * s.m * s.n * double(s.k) / us / 1e3, bytes_of(s) / us / 1e3, ratio);
}

// Random binary16 values in [-1, 1] (never 0) for the device buffers (bench_util.h).
struct HalfSource : bench::RandomSource<__half> {
  HalfSource()
      : RandomSource<__half>([](float f) { return __float2half_rn(f); },
                             [](__half v) { return __half2float(v) == 0.f; }) {}
};

struct Summary {
  Shape s;
  double cublas_us, best_us, chosen_us;
  std::string best, chosen;
};
std::vector<Summary> g_summary;

void bench_shape(cublasHandle_t h, const HalfSource& src, const Shape& s, const std::vector<HgemmKernel>& ks) {
  const int ar = s.ta == 'N' ? s.m : s.k, br = s.tb == 'N' ? s.k : s.n;
  const size_t na = size_t(s.m) * s.k, nb = size_t(s.k) * s.n, nc = size_t(s.m) * s.n;
  auto up = [](size_t x) { return (x + 127) / 128 * 128; };  // 256-byte aligned operands
  const size_t per = up(na) + up(nb) + up(nc);
  const int nsets = int(std::max<size_t>(2, std::min<size_t>(64, (kRotateBytes / 2 + per - 1) / per)));
  __half* base;
  CK(cudaMalloc(&base, per * nsets * sizeof(__half)));
  for (int i = 0; i < nsets; ++i) src.fill(base + per * i, per, size_t(i) + size_t(s.m) * 3 + s.n + s.k);
  auto A = [&](int i) { return base + per * i; };
  auto B = [&](int i) { return base + per * i + up(na); };
  auto C = [&](int i) { return base + per * i + up(na) + up(nb); };
  __half *cref, *cgot;
  CK(cudaMalloc(&cref, nc * 2));
  CK(cudaMalloc(&cgot, nc * 2));
  const float one = 1.f, zero = 0.f;
  const cublasOperation_t oa = s.ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t ob = s.tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  auto gemm_ex = [&](int i, __half* c) {
    CB(cublasGemmEx(h, oa, ob, s.m, s.n, s.k, &one, A(i), CUDA_R_16F, ar, B(i), CUDA_R_16F, br, &zero, c,
                    CUDA_R_16F, s.m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  gemm_ex(0, cref);
  CK(cudaDeviceSynchronize());
  std::vector<__half> href(nc), hgot(nc);
  CK(cudaMemcpy(href.data(), cref, nc * 2, cudaMemcpyDeviceToHost));

  const double t_cublas = time_calls([&](int i) { gemm_ex(i, C(i)); }, nsets, g_reps, 2);
  row("cublas", s, t_cublas, 1.0);

  auto problem = [&](int i, __half* c) {
    myblas::GemmProblem p;
    p.routine = myblas::Routine::hgemm;
    p.ta = s.ta == 'N' ? myblas::Op::N : myblas::Op::T;
    p.tb = s.tb == 'N' ? myblas::Op::N : myblas::Op::T;
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    p.lda = ar;
    p.ldb = br;
    p.ldc = s.m;
    p.alpha = 1.f;
    p.beta = 0.f;
    p.a = A(i);
    p.b = B(i);
    p.c = c;
    p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
    return p;
  };
  Summary sum{s, t_cublas, 1e30, 0, "", ""};
  const HgemmKernel chosen = myblas::hgemm_choose(problem(0, cgot));
  sum.chosen = myblas::hgemm_kernel_name(chosen);
  for (HgemmKernel k : ks) {
    const std::string path = std::string("kernel:") + myblas::hgemm_kernel_name(k);
    if (const char* why = myblas::hgemm_can_implement(k, problem(0, cgot))) {
      std::printf("# %s refuses %c%c %dx%dx%d: %s\n", path.c_str(), s.ta, s.tb, s.m, s.n, s.k, why);
      continue;
    }
    CK(cudaMemset(cgot, 0xff, nc * 2));  // NaN: beta = 0 must not read it, and every element is written
    const float first_ms = bench::time_once_ms([&] { CK(myblas::hgemm_run(k, problem(0, cgot), nullptr)); });
    CK(cudaMemcpy(hgot.data(), cgot, nc * 2, cudaMemcpyDeviceToHost));
    double worst = 0;
    size_t wi = 0;
    const double norm = std::sqrt(double(s.k));
    for (size_t i = 0; i < nc; ++i) {
      const double r = __half2float(href[i]), g = __half2float(hgot[i]);
      const double d = std::fabs(g - r) / (std::fabs(r) + norm);
      if (!(d <= worst)) {
        worst = d;
        wi = i;
      }
    }
    if (!(worst <= std::ldexp(1.0, -9))) {
      std::printf("# VERIFY FAILED %s %c%c %dx%dx%d: scaled difference %.3g at C(%zu,%zu) (got %g, cuBLAS %g)\n",
                  path.c_str(), s.ta, s.tb, s.m, s.n, s.k, worst, wi % size_t(s.m), wi / size_t(s.m),
                  double(__half2float(hgot[wi])), double(__half2float(href[wi])));
      std::fprintf(stderr, "VERIFY FAILED %s %c%c %dx%dx%d: scaled difference %.3g\n", path.c_str(), s.ta,
                   s.tb, s.m, s.n, s.k, worst);
      g_failed = true;
      continue;
    }
    const int reps = first_ms > 100.f ? 3 : first_ms > 20.f ? 5 : g_reps;
    auto call = [&](int i) { CK(myblas::hgemm_run(k, problem(i, C(i)), nullptr)); };
    const double us = time_calls(call, nsets, reps, 2);
    row(path.c_str(), s, us, t_cublas / us);
    if (myblas::hgemm_kernel_is_production(k) && us < sum.best_us) {
      sum.best_us = us;
      sum.best = myblas::hgemm_kernel_name(k);
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
  std::vector<std::string> want_kernels, want_shapes;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--reps=", 7)) g_reps = std::max(3, std::atoi(argv[i] + 7));
    else if (!std::strncmp(argv[i], "--kernels=", 10)) want_kernels = bench::split_list(argv[i] + 10);
    else if (!std::strncmp(argv[i], "--shapes=", 9)) want_shapes = bench::split_list(argv[i] + 9);
    else {
      std::fprintf(stderr, "usage: bench_hgemm [--reps=N] [--kernels=a,b] [--shapes=nn4096,nn8192,trans,2048,m16,k128,odd]\n");
      return 2;
    }
  }
  std::vector<HgemmKernel> ks;
  for (int i = 0; i < myblas::kHgemmKernelCount; ++i) {
    const HgemmKernel k = HgemmKernel(i);
    if (want_kernels.empty() ||
        std::find(want_kernels.begin(), want_kernels.end(), myblas::hgemm_kernel_name(k)) != want_kernels.end())
      ks.push_back(k);
  }
  for (const std::string& n : want_kernels) {
    HgemmKernel k;
    if (!myblas::hgemm_kernel_from_name(n.c_str(), &k)) {
      std::fprintf(stderr, "bench_hgemm: unknown kernel '%s'\n", n.c_str());
      return 2;
    }
  }
  auto shape_on = [&](const char* g) {
    return want_shapes.empty() || std::find(want_shapes.begin(), want_shapes.end(), g) != want_shapes.end();
  };

  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "bench_hgemm: no usable CUDA device\n");
    return 2;
  }
  std::printf("# bench_hgemm: hand-written HGEMM kernels (rev %s) beside cublasGemmEx (FP16 in/out, "
              "CUBLAS_COMPUTE_32F, default math), device pointers\n", MYBLAS_GIT_REV);
  bench::print_device_and_command(argc, argv);
  std::printf("# median of %d event-timed calls (3 for calls > 100 ms, 5 for > 20 ms) after 2 warm-ups;"
              " operand sets rotated over >= 256 MiB (>= 2 sets); alpha = 1, beta = 0; lda, ldb, ldc minimal;"
              " ratio_vs_cublas = t_cublas / t_path\n", g_reps);
  std::printf("routine,path,trans,m,n,k,time_us,gflops,gbps,ratio_vs_cublas\n");
  cublasHandle_t h;
  CB(cublasCreate(&h));
  HalfSource src;

  std::vector<Shape> list;
  if (shape_on("nn4096")) list.push_back({'N', 'N', 4096, 4096, 4096});
  if (shape_on("nn8192")) list.push_back({'N', 'N', 8192, 8192, 8192});
  if (shape_on("trans"))
    for (const char* t : {"NT", "TN", "TT"}) list.push_back({t[0], t[1], 4096, 4096, 4096});
  if (shape_on("2048")) list.push_back({'N', 'N', 2048, 2048, 2048});
  if (shape_on("m16")) list.push_back({'N', 'N', 16, 4096, 4096});
  if (shape_on("k128")) list.push_back({'N', 'N', 4096, 4096, 128});
  if (shape_on("odd")) list.push_back({'N', 'N', 127, 129, 1031});
  for (const Shape& s : list) {
    bench_shape(h, src, s, ks);
    std::fflush(stdout);
  }
  cublasDestroy(h);

  std::printf("# summary: best production kernel and hgemm_choose's pick per shape (ratio = t_cublas / t)\n");
  std::printf("# %-2s %5s %5s %5s | %9s %8s | %-24s %9s %8s %6s | %-24s %6s\n", "op", "m", "n", "k",
              "cublas_us", "TFLOP/s", "best", "us", "TFLOP/s", "ratio", "chosen", "ratio");
  for (const Summary& x : g_summary) {
    const double fl = 2.0 * x.s.m * x.s.n * double(x.s.k);
    std::printf("# %c%c %5d %5d %5d | %9.1f %8.1f | %-24s %9.1f %8.1f %6.3f | %-24s %6.3f\n", x.s.ta, x.s.tb,
                x.s.m, x.s.n, x.s.k, x.cublas_us, fl / x.cublas_us / 1e6, x.best.c_str(), x.best_us,
                fl / x.best_us / 1e6, x.cublas_us / x.best_us, x.chosen.c_str(),
                x.chosen_us > 0 ? x.cublas_us / x.chosen_us : 0.0);
  }
  if (g_failed) {
    std::fprintf(stderr, "bench_hgemm: verification failed\n");
    return 1;
  }
  return 0;
}
