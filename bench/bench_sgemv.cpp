// bench_sgemv: every hand-written SGEMV kernel (ladder rungs and production) beside
// cublasSgemv in one process, on device pointers, both transposes.
//
// For each shape: verify each kernel against cublasSgemv first (beta = 0, same inputs), then
// time cuBLAS and each kernel with CUDA events around every single call (the launch is inside
// the measured interval for both), after warm-up, over operand sets rotated through >= 256 MiB
// when one set is smaller (so every call streams from HBM, not from the 50 MB L2), and report
// the median and ratio_vs_cublas = t_cublas / t_kernel (> 1: the kernel is faster).
// A 1x1 launch (one thread) is timed in the same run as the launch floor, and for each shape a
// kernel that only reads A (read_ceiling.cu; rows "sgemv-ceiling", path "read-only:A") as an
// estimate of the fastest an SGEMV of that size can be here. Beside each event
// time, the host's own time inside the call (steady_clock around it, no synchronisation) is
// kept: the part of a small call that is host work before the GPU can start.
// The cluster kernels are also timed with each cluster size forced (rows "sgemv-cluster",
// path "kernel:<name>/c<C>", C = 1 meaning no cluster; "/c<C>r2": n_rowblock_cluster with
// 256-row blocks) on shapes up to 8192^2, and n_lanes with each lane count forced (rows
// "sgemv-lanes", path "kernel:n_lanes/l<L>": L lanes per column, blocks of 4L rows) for trans N.
//
// Output: CSV with columns routine,path,trans,m,n,k,time_us,gflops,gbps,ratio_vs_cublas
// (k = 0 for gemv) preceded by '#' header lines; '#' tables of host time per call and the
// summary follow the CSV.
// Options: --quick (two small shapes), --reps=N (default 30), --shapes=big|small|all,
// --shape=MxN[,MxN...] (only these shapes).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/sgemv.h"

#include "bench_util.h"
#include "read_ceiling.h"

namespace {

using myblas::SgemvKernel;

using bench::kRotateBytes;
int g_reps = 30;
bool g_failed = false;
using bench::Source;

using bench::Timing;
using bench::time_calls_with_host;  // event and host time of each call

struct HostRow {
  std::string path;
  char t;
  int m, n;
  Timing time;
};
std::vector<HostRow> g_host;

void row(const char* routine, const char* path, char t, int m, int n, Timing tm, double ratio) {
  const int lx = t == 'N' ? n : m, ly = t == 'N' ? m : n;
  const double bytes = 4.0 * (double(m) * n + lx + ly);
  const double us = tm.event_us;
  std::printf("%s,%s,%c,%d,%d,0,%.2f,%.1f,%.1f,%.3f\n", routine, path, t, m, n, us,
              2.0 * m * n / us / 1e3, bytes / us / 1e3, ratio);
  if (int64_t(m) * n <= 4096 * 4096) g_host.push_back({path, t, m, n, tm});
}

struct Summary {
  char t;
  int m, n;
  double cublas_us, best_us, chosen_us;
  std::string best, chosen;
};
std::vector<Summary> g_summary;

void bench_shape(cublasHandle_t h, const Source& src, char t, int m, int n) {
  const int lx = t == 'N' ? n : m, ly = t == 'N' ? m : n;
  const size_t na = size_t(m) * n;
  const size_t per = na + size_t(lx) + size_t(ly);
  const int nsets = int(std::max<size_t>(1, std::min<size_t>(4096, (kRotateBytes / 4 + per - 1) / per)));
  // One allocation; set i = A, x, y at i*per (A first, so every A is 16-byte aligned when
  // per is a multiple of 4; otherwise odd sets exercise the scalar-load variants too).
  const size_t stride = (per + 63) / 64 * 64;
  float* base;
  CK(cudaMalloc(&base, stride * nsets * sizeof(float) + 4096));
  for (int i = 0; i < nsets; ++i) src.fill(base + stride * i, per, size_t(i) + size_t(m) * 3 + n);
  auto A = [&](int i) { return base + stride * i; };
  auto X = [&](int i) { return base + stride * i + na; };
  auto Y = [&](int i) { return base + stride * i + na + lx; };
  float* yref;
  float* ygot;
  CK(cudaMalloc(&yref, size_t(ly) * 4));
  CK(cudaMalloc(&ygot, size_t(ly) * 4));
  const float one = 1.f, zero = 0.f;
  const cublasOperation_t op = t == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  CB(cublasSgemv(h, op, m, n, &one, A(0), m, X(0), 1, &zero, yref, 1));
  CK(cudaDeviceSynchronize());
  std::vector<float> href(static_cast<size_t>(ly)), hgot(static_cast<size_t>(ly));
  CK(cudaMemcpy(href.data(), yref, size_t(ly) * 4, cudaMemcpyDeviceToHost));

  auto cublas_call = [&](int i) { CB(cublasSgemv(h, op, m, n, &one, A(i), m, X(i), 1, &zero, Y(i), 1)); };
  const Timing tc = time_calls_with_host(cublas_call, nsets, g_reps);
  const double t_cublas = tc.event_us;
  row("sgemv", "cublas", t, m, n, tc, 1.0);
  {  // The read ceiling: A read once, nothing else.
    float* sink;
    CK(cudaMalloc(&sink, bench::read_ceiling_blocks(na) * sizeof(float)));
    const Timing tr = time_calls_with_host([&](int i) { CK(bench::read_ceiling(A(i), na, sink, nullptr)); }, nsets,
                                           g_reps);
    row("sgemv-ceiling", "read-only:A", t, m, n, tr, t_cublas / tr.event_us);
    CK(cudaFree(sink));
  }

  auto problem = [&](int i, float* y) {
    myblas::GemvProblem p;
    p.ta = t == 'N' ? myblas::Op::N : myblas::Op::T;
    p.m = m;
    p.n = n;
    p.lda = m;
    p.alpha = 1.f;
    p.beta = 0.f;
    p.a = A(i);
    p.x = X(i);
    p.y = y;
    p.mem_a = p.mem_x = p.mem_y = myblas::Mem::device;
    return p;
  };
  Summary sum{t, m, n, t_cublas, 1e30, 0, "", ""};
  const SgemvKernel chosen = myblas::sgemv_choose(problem(0, ygot));
  sum.chosen = myblas::sgemv_kernel_name(chosen);
  // Verifies y (from one call into ygot) against cuBLAS; false after reporting a failure.
  auto verify = [&](const std::string& path, const std::function<void()>& call, float* first_ms) {
    CK(cudaMemset(ygot, 0xff, size_t(ly) * 4));  // NaN: every element must be written
    *first_ms = bench::time_once_ms(call);
    CK(cudaMemcpy(hgot.data(), ygot, size_t(ly) * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < ly; ++i) {
      const double d = std::fabs(double(hgot[size_t(i)]) - href[size_t(i)]) / (std::fabs(double(href[size_t(i)])) + 1.0);
      if (!(d <= worst)) worst = d;
    }
    if (worst <= 1e-5 * std::sqrt(double(lx))) return true;
    std::fprintf(stderr, "VERIFY FAILED %s %c %dx%d: max rel diff %.3g\n", path.c_str(), t, m, n, worst);
    g_failed = true;
    return false;
  };
  for (int ki = 0; ki < myblas::kSgemvKernelCount; ++ki) {
    const SgemvKernel k = SgemvKernel(ki);
    if (myblas::sgemv_can_implement(k, problem(0, ygot))) continue;
    // Verify, timing this first call to keep slow rungs to a few repetitions.
    const std::string path = std::string("kernel:") + myblas::sgemv_kernel_name(k);
    float first_ms = 0;
    if (!verify(path, [&] { CK(myblas::sgemv_run(k, problem(0, ygot), nullptr)); }, &first_ms)) continue;
    const int reps = first_ms > 20.f ? 3 : first_ms > 2.f ? 10 : g_reps;
    auto call = [&](int i) { CK(myblas::sgemv_run(k, problem(i, Y(i)), nullptr)); };
    const Timing tk = time_calls_with_host(call, nsets, reps);
    const double us = tk.event_us;
    row("sgemv", path.c_str(), t, m, n, tk, t_cublas / us);
    if (myblas::sgemv_kernel_is_production(k) && us < sum.best_us) {
      sum.best_us = us;
      sum.best = myblas::sgemv_kernel_name(k);
    }
    if (k == chosen) sum.chosen_us = us;
  }
  // The cluster kernels with each cluster size forced.
  if (int64_t(m) * n <= int64_t(8192) * 8192)
    for (SgemvKernel k : {SgemvKernel::n_rowblock_cluster, SgemvKernel::t_lanegroup_cluster}) {
      if (myblas::sgemv_can_implement(k, problem(0, ygot))) continue;
      for (int v = 0; v < 10; ++v) {  // row_warps 1 and 2 (N only), each with C = 1, 2, 4, 8, 16
        const int rw = 1 + v / 5, c = 1 << (v % 5);
        if (rw == 2 && k != SgemvKernel::n_rowblock_cluster) continue;
        const std::string path = std::string("kernel:") + myblas::sgemv_kernel_name(k) + "/c" + std::to_string(c) +
                                 (rw == 2 ? "r2" : "");
        float first_ms = 0;
        if (!verify(path, [&] { CK(myblas::sgemv_run_cluster(k, problem(0, ygot), c, nullptr, rw)); }, &first_ms))
          continue;
        auto call = [&](int i) { CK(myblas::sgemv_run_cluster(k, problem(i, Y(i)), c, nullptr, rw)); };
        const Timing tk = time_calls_with_host(call, nsets, g_reps);
        row("sgemv-cluster", path.c_str(), t, m, n, tk, t_cublas / tk.event_us);
      }
    }
  // n_lanes with each lane count forced (32-, 64- and 128-row blocks).
  if (t == 'N')
    for (int lanes : {8, 16, 32}) {
      const std::string path = std::string("kernel:n_lanes/l") + std::to_string(lanes);
      float first_ms = 0;
      if (!verify(path, [&] { CK(myblas::sgemv_run_lanes(problem(0, ygot), lanes, nullptr)); }, &first_ms)) continue;
      const int reps = first_ms > 20.f ? 3 : first_ms > 2.f ? 10 : g_reps;
      auto call = [&](int i) { CK(myblas::sgemv_run_lanes(problem(i, Y(i)), lanes, nullptr)); };
      const Timing tk = time_calls_with_host(call, nsets, reps);
      row("sgemv-lanes", path.c_str(), t, m, n, tk, t_cublas / tk.event_us);
    }
  g_summary.push_back(sum);
  CK(cudaFree(yref));
  CK(cudaFree(ygot));
  CK(cudaFree(base));
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string shapes = "all";
  const char* only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strncmp(argv[i], "--reps=", 7)) g_reps = std::max(3, std::atoi(argv[i] + 7));
    else if (!std::strncmp(argv[i], "--shapes=", 9)) shapes = argv[i] + 9;
    else if (!std::strncmp(argv[i], "--shape=", 8)) only = argv[i] + 8;
    else {
      std::fprintf(stderr, "bench_sgemv: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "bench_sgemv: no usable CUDA device\n");
    return 2;
  }
  std::printf("# bench_sgemv: hand-written SGEMV kernels (rev %s) beside cublasSgemv, device pointers\n",
              MYBLAS_GIT_REV);
  bench::print_device_and_command(argc, argv);
  std::printf("# median of %d event-timed calls (3 for calls > 20 ms, 10 for > 2 ms) after 3 warm-ups;"
              " operand sets rotated over >= 256 MiB; alpha = 1, beta = 0, unit strides, lda = m;"
              " ratio_vs_cublas = t_cublas / t_path; gbps counts A + x + y once\n", g_reps);
  std::printf("routine,path,trans,m,n,k,time_us,gflops,gbps,ratio_vs_cublas\n");
  cublasHandle_t h;
  CB(cublasCreate(&h));
  Source src;

  // Launch floor: one thread, one element (thread_per_row on 1x1).
  {
    float* buf;
    CK(cudaMalloc(&buf, 64));
    CK(cudaMemset(buf, 0, 64));
    myblas::GemvProblem p;
    p.m = p.n = 1;
    p.a = buf;
    p.x = buf + 4;
    p.y = buf + 8;
    const Timing us = time_calls_with_host([&](int) { CK(myblas::sgemv_run(SgemvKernel::thread_per_row, p, nullptr)); }, 1, 50);
    std::printf("launch,empty-1x1-thread_per_row,N,1,1,0,%.2f,0,0,0\n", us.event_us);
    g_host.push_back({"empty-1x1-thread_per_row", 'N', 1, 1, us});
    const float one = 1.f, zero = 0.f;
    const Timing uc = time_calls_with_host([&](int) { CB(cublasSgemv(h, CUBLAS_OP_N, 1, 1, &one, buf, 1, buf + 4, 1, &zero, buf + 8, 1)); }, 1, 50);
    std::printf("launch,cublas-1x1,N,1,1,0,%.2f,0,0,0\n", uc.event_us);
    g_host.push_back({"cublas-1x1", 'N', 1, 1, uc});
    CK(cudaFree(buf));
  }

  struct S { int m, n; };
  std::vector<S> list;
  if (quick) list = {{1024, 1024}, {256, 256}};
  else {
    if (shapes != "small")
      list.insert(list.end(), {{4096, 4096}, {8192, 8192}, {16384, 16384}, {32768, 32768},
                               {1048576, 64}, {64, 1048576}, {100000, 1000}, {1000, 100000}});
    // Wide and tall small shapes beside the squares, so that the table's nearest-shape lookup has
    // measured neighbours for them (a kernel that wins on small squares, n_colsweep, has few row
    // blocks and long column sweeps on wide ones).
    if (shapes != "big")
      list.insert(list.end(), {{2048, 2048}, {1024, 1024}, {512, 512}, {256, 256}, {64, 8192}, {256, 4096},
                               {1024, 16384}, {4096, 256}});
  }
  if (only) {  // --shape=MxN[,MxN...]
    list.clear();
    for (const std::string& item : bench::split_list(only)) {
      S sh{0, 0};
      char rest = 0;
      if (std::sscanf(item.c_str(), "%dx%d%c", &sh.m, &sh.n, &rest) != 2 || sh.m < 1 || sh.n < 1) {
        std::fprintf(stderr, "bench_sgemv: --shape wants MxN[,MxN...]\n");
        return 2;
      }
      list.push_back(sh);
    }
  }
  for (const S& s : list)
    for (char t : {'N', 'T'}) {
      bench_shape(h, src, t, s.m, s.n);
      std::fflush(stdout);
    }
  cublasDestroy(h);

  std::printf("# host time per call (median us inside the call: launch and host work, no wait), beside its event time\n");
  std::printf("# %-36s %-2s %8s %8s | %8s %8s\n", "path", "t", "m", "n", "host_us", "event_us");
  for (const HostRow& r : g_host)
    std::printf("# %-36s %-2c %8d %8d | %8.2f %8.2f\n", r.path.c_str(), r.t, r.m, r.n, r.time.host_us, r.time.event_us);

  std::printf("# summary: best production kernel and sgemv_choose's pick per shape (ratio = t_cublas / t)\n");
  std::printf("# %-2s %8s %8s | %9s %7s | %-18s %9s %6s | %-18s %6s\n", "t", "m", "n", "cublas_us",
              "GB/s", "best", "us", "ratio", "chosen", "ratio");
  for (const Summary& s : g_summary) {
    const double bytes = 4.0 * (double(s.m) * s.n + s.m + s.n);
    std::printf("# %-2c %8d %8d | %9.2f %7.0f | %-18s %9.2f %6.3f | %-18s %6.3f\n", s.t, s.m, s.n,
                s.cublas_us, bytes / s.cublas_us / 1e3, s.best.c_str(), s.best_us,
                s.cublas_us / s.best_us, s.chosen.c_str(), s.chosen_us > 0 ? s.cublas_us / s.chosen_us : 0.0);
  }
  if (g_failed) {
    std::fprintf(stderr, "bench_sgemv: verification failed\n");
    return 1;
  }
  return 0;
}
