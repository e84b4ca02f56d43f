// The batched GEMM entry points beside their anchors, in one process (bench/run_batched_gpu.sh runs
// it under each MYBLAS_BACKEND and bench/plot_batched.py draws the CSV).
//
//   --device: square n in --sizes (default 16,32,64,128,256,512), types --types (s,h,d; also c,z); a batch
//     filling --mb MB per operand (default 256: every call streams its operands from device
//     memory, 5x the L2), beta = 0. Per (type, n): the raw cuBLAS strided-batched call
//     (cublasSgemmStridedBatched, cublasDgemmStridedBatched, cublasGemmStridedBatchedEx FP16 in/out
//     with FP32 compute), then cblas_?gemm_batch_strided and cblas_?gemm_batch (pointer arrays) on
//     the same device operands, on the default stream (each call returns complete) and on a stream
//     of the program's (myblas_set_stream; "-stream" rows), beside the raw call and the raw call
//     with a synchronise ("cublas-strided-raw-sync", what a default-stream call compares with), and
//     the raw call on the same stream as the -stream rows ("cublas-strided-raw-stream").
//     Each is verified against the cuBLAS result first (the first and last
//     64 products), then timed: 3 warm-ups, --reps calls between CUDA events, median. Rows: event
//     time, the call's host time, GB/s of the memory floor (A and B read once, C written once),
//     TFLOP/s, and the ratio to cuBLAS.
//   --host: --count products (default 10000) of n^3 for n in --host-sizes (default 64,256), types
//     --types (s, d; without --types, s alone), operands in host memory, beta = 0: a loop of
//     OpenBLAS sgemm_ / dgemm_ calls (OpenBLAS loaded by name, with its own threads:
//     OPENBLAS_NUM_THREADS, default all cores) beside cblas_?gemm_batch_strided and
//     cblas_?gemm_batch through libmyblas (whichever path MYBLAS_BACKEND gives: cpu, cublas for the
//     GPU path, or auto; the path taken in brackets). Verified against the loop (every 97th
//     element of C, which starts as NaN; bound (n + 2) n eps of the type), timed by wall clock:
//     1 warm-up, --host-reps calls, median. Needs no GPU under MYBLAS_BACKEND=cpu.
//   With --device also: the device-to-device copy rate (cudaMemcpy of --mb MB, counted as bytes
//     read plus bytes written: the memory floor the GB/s columns are compared with, "floor" rows);
//     and for S and H at n = 16 and 32 each rung of our batched square kernel called directly
//     (kernels/batched.h, strided, beta = 0; "kernel-<rung>" rows), verified and timed as the
//     library's rows, so that the dispatch table (src/dispatch/batch_rule.h) can name the rung
//     that beats cuBLAS whatever MYBLAS_BACKEND chose for the library's rows.
//   With --device also: two groups of different sizes (n = 16 and 32, FP32) in one cblas_sgemm_batch
//     call, beside two cblas_sgemm_batch_strided calls and two raw cuBLAS calls (kind "group",
//     n printed as 1632).
// Output: a text table on stdout and, with --csv FILE, one CSV row per measurement.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_util.h"
#include "kernels/batched.h"
#include "myblas.h"

#ifndef MYBLAS_GIT_REV
#define MYBLAS_GIT_REV "unknown"
#endif

namespace {

struct Opts {
  bool device = false, host = false;
  std::vector<int> sizes{16, 32, 64, 128, 256, 512};
  std::vector<std::string> types{"s", "h", "d"};
  std::vector<std::string> host_types{"s"};  // (--types sets both; without it the host rows are FP32)
  std::vector<int> host_sizes{64, 256};
  double mb = 256;
  int reps = 10, host_reps = 3;
  long count = 10000;
  std::string csv;
};

FILE* g_csv = nullptr;
std::string g_backend;
double g_floor_gbps = 0;  // the device-to-device copy rate (read + written bytes), once measured

void csv_row(const char* kind, const std::string& type, int n, long count, const char* path, double us,
             double host_us, double gbps, double tflops, double ratio, double err) {
  std::printf("%-6s %-2s n=%4d count=%7ld %-26s %12.1f us  host %9.1f us  %8.1f GB/s  %7.2f TFLOP/s  ratio %.3f  "
              "err %.2e\n",
              kind, type.c_str(), n, count, path, us, host_us, gbps, tflops, ratio, err);
  if (g_floor_gbps > 0 && gbps > 0) std::printf("       %s %s n=%d %s: %.3f of the copy floor\n", kind, type.c_str(), n, path, gbps / g_floor_gbps);
  if (g_csv)
    std::fprintf(g_csv, "%s,%s,%s,%d,%ld,%s,%.3f,%.3f,%.3f,%.4f,%.4f,%.3e\n", kind, g_backend.c_str(), type.c_str(),
                 n, count, path, us, host_us, gbps, tflops, ratio, err);
}

template <class T>
constexpr bool kCx = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;
// Real part type: float for S, H, C; double for D, Z.
template <class T>
constexpr bool kDouble = std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>;

// Fills n elements of device memory with values in [-1, 1] (never 0), from a 4M-value pool.
template <class T>
void fill_device(T* dst, size_t n, unsigned seed) {
  static std::vector<float> pool;
  if (pool.empty()) {
    std::mt19937 rng(2026u);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    pool.resize(size_t(1) << 22);
    for (float& v : pool) do v = d(rng); while (std::fabs(v) < 1e-3f);
  }
  std::vector<T> h(pool.size());
  for (size_t i = 0; i < h.size(); ++i) {
    const float v = pool[(i + seed * 7919u) % pool.size()];
    if constexpr (sizeof(T) == 2) h[i] = __float2half_rn(v);
    else if constexpr (kCx<T>) h[i] = T(v, pool[(i * 3 + seed * 104729u + 1) % pool.size()]);
    else h[i] = T(v);
  }
  for (size_t at = 0; at < n; at += h.size())
    CK(cudaMemcpy(dst + at, h.data(), std::min(h.size(), n - at) * sizeof(T), cudaMemcpyHostToDevice));
}

template <class T>
std::complex<double> to_d(T v) {
  if constexpr (sizeof(T) == 2) return __half2float(v);
  else if constexpr (kCx<T>) return std::complex<double>(v);
  else return double(v);
}

// Largest |got - want| / (tol) over the first and last 64 products (tol scales with n).
template <class T>
double verify(const T* got, const T* want, long count, int n, double eps) {
  const long per = long(n) * n;
  const long pick = std::min<long>(64, count);
  double worst = 0;
  std::vector<T> g(size_t(pick * per)), w(size_t(pick * per));
  for (long first : {0L, count - pick}) {
    CK(cudaMemcpy(g.data(), got + first * per, g.size() * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(w.data(), want + first * per, w.size() * sizeof(T), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < g.size(); ++i) {
      const std::complex<double> a = to_d(g[i]), b = to_d(w[i]);
      const double tol = (n + 2) * eps * n * (kCx<T> ? 2 : 1) +
                         (sizeof(T) == 2 ? std::ldexp(1.0, -10) * std::max(1.0, std::abs(b)) : 0);
      worst = std::max(worst, std::isnan(a.real()) || std::isnan(a.imag()) ? 1e30 : std::abs(a - b) / tol);
    }
  }
  return worst;
}

template <class T>
void device_case(const std::string& type, int n, const Opts& o, cublasHandle_t h) {
  const size_t es = sizeof(T), per = size_t(n) * n;
  const long count = std::max<long>(1, long(o.mb * 1048576.0 / double(per * es)));
  T *a, *b, *c, *cref;
  CK(cudaMalloc(&a, per * count * es));
  CK(cudaMalloc(&b, per * count * es));
  CK(cudaMalloc(&c, per * count * es));
  CK(cudaMalloc(&cref, per * count * es));
  fill_device(a, per * count, 1);
  fill_device(b, per * count, 2);
  const long long s = (long long)per;
  const float one_f = 1.f, zero_f = 0.f;
  const double one_d = 1.0, zero_d = 0.0;
  const T one_t = T(1), zero_t = T(0);  // (the scalars in the data's own type; C, Z)
  auto raw = [&](int) {
    if constexpr (std::is_same_v<T, std::complex<float>>)
      CB(cublasCgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, reinterpret_cast<const cuComplex*>(&one_t),
                                   reinterpret_cast<const cuComplex*>(a), n, s, reinterpret_cast<const cuComplex*>(b),
                                   n, s, reinterpret_cast<const cuComplex*>(&zero_t), reinterpret_cast<cuComplex*>(cref),
                                   n, s, int(count)));
    else if constexpr (std::is_same_v<T, std::complex<double>>)
      CB(cublasZgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                                   reinterpret_cast<const cuDoubleComplex*>(&one_t),
                                   reinterpret_cast<const cuDoubleComplex*>(a), n, s,
                                   reinterpret_cast<const cuDoubleComplex*>(b), n, s,
                                   reinterpret_cast<const cuDoubleComplex*>(&zero_t),
                                   reinterpret_cast<cuDoubleComplex*>(cref), n, s, int(count)));
    else if constexpr (sizeof(T) == 4)
      CB(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one_f, a, n, s, b, n, s, &zero_f, cref, n,
                                   s, int(count)));
    else if constexpr (sizeof(T) == 8)
      CB(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one_d, a, n, s, b, n, s, &zero_d, cref, n,
                                   s, int(count)));
    else
      CB(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one_f, a, CUDA_R_16F, n, s, b, CUDA_R_16F,
                                    n, s, &zero_f, cref, CUDA_R_16F, n, s, int(count), CUBLAS_COMPUTE_32F,
                                    CUBLAS_GEMM_DEFAULT));
  };
  auto strided = [&](int) {
    if constexpr (std::is_same_v<T, std::complex<float>>)
      cblas_cgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one_t, a, n, int(s), b, n,
                                int(s), &zero_t, c, n, int(s), int(count));
    else if constexpr (std::is_same_v<T, std::complex<double>>)
      cblas_zgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one_t, a, n, int(s), b, n,
                                int(s), &zero_t, c, n, int(s), int(count));
    else if constexpr (sizeof(T) == 4)
      cblas_sgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, a, n, int(s), b, n, int(s),
                                0.f, c, n, int(s), int(count));
    else if constexpr (sizeof(T) == 8)
      cblas_dgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, int(s), b, n, int(s),
                                0.0, c, n, int(s), int(count));
    else
      cblas_hgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, myblas_float_to_half(1.f),
                                reinterpret_cast<const uint16_t*>(a), n, int(s), reinterpret_cast<const uint16_t*>(b),
                                n, int(s), 0, reinterpret_cast<uint16_t*>(c), n, int(s), int(count));
  };
  std::vector<const T*> pa(static_cast<size_t>(count)), pb(static_cast<size_t>(count));
  std::vector<T*> pc(static_cast<size_t>(count));
  for (long i = 0; i < count; ++i) pa[size_t(i)] = a + i * per, pb[size_t(i)] = b + i * per, pc[size_t(i)] = c + i * per;
  const CBLAS_TRANSPOSE nt = CblasNoTrans;
  const int ni = n, cnt = int(count);
  auto listed = [&](int) {
    if constexpr (kCx<T>) {
      const void** la = reinterpret_cast<const void**>(pa.data());
      const void** lb = reinterpret_cast<const void**>(pb.data());
      void** lc = reinterpret_cast<void**>(pc.data());
      (std::is_same_v<T, std::complex<float>> ? cblas_cgemm_batch : cblas_zgemm_batch)(
          CblasColMajor, &nt, &nt, &ni, &ni, &ni, &one_t, la, &ni, lb, &ni, &zero_t, lc, &ni, 1, &cnt);
    } else if constexpr (sizeof(T) == 4) {
      const float al = 1.f, be = 0.f;
      cblas_sgemm_batch(CblasColMajor, &nt, &nt, &ni, &ni, &ni, &al, pa.data(), &ni, pb.data(), &ni, &be, pc.data(),
                        &ni, 1, &cnt);
    } else if constexpr (sizeof(T) == 8) {
      const double al = 1.0, be = 0.0;
      cblas_dgemm_batch(CblasColMajor, &nt, &nt, &ni, &ni, &ni, &al, pa.data(), &ni, pb.data(), &ni, &be, pc.data(),
                        &ni, 1, &cnt);
    } else {
      const uint16_t al = myblas_float_to_half(1.f), be = 0;
      cblas_hgemm_batch(CblasColMajor, &nt, &nt, &ni, &ni, &ni, &al, reinterpret_cast<const uint16_t**>(pa.data()),
                        &ni, reinterpret_cast<const uint16_t**>(pb.data()), &ni, &be,
                        reinterpret_cast<uint16_t**>(pc.data()), &ni, 1, &cnt);
    }
  };
  const double eps = kDouble<T> ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  raw(0);
  CK(cudaDeviceSynchronize());
  const double bytes = 3.0 * double(per) * double(count) * double(es);
  const double flops = (kCx<T> ? 8.0 : 2.0) * double(n) * n * n * double(count);
  const bench::Timing tr = bench::time_calls_with_host(raw, 1, o.reps, 3);
  csv_row("device", type, n, count, "cublas-strided-raw", tr.event_us, tr.host_us, bytes / tr.event_us / 1e3,
          flops / tr.event_us / 1e6, 1.0, 0.0);
  // The raw call and a synchronise: what a default-stream libmyblas call, which returns with its
  // result complete, is to be compared with.
  auto raw_sync = [&](int i) {
    raw(i);
    CK(cudaStreamSynchronize(nullptr));
  };
  const bench::Timing trs = bench::time_calls_with_host(raw_sync, 1, o.reps, 3);
  csv_row("device", type, n, count, "cublas-strided-raw-sync", trs.event_us, trs.host_us, bytes / trs.event_us / 1e3,
          flops / trs.event_us / 1e6, tr.event_us / trs.event_us, 0.0);
  struct Form {
    const char* name;
    std::function<void(int)> f;
  };
  // The library's calls on a stream of the program's (myblas_set_stream: device operands, so they
  // return without waiting), as the raw call does; the stream is a blocking one, so the events on
  // the legacy default stream bracket its work.
  cudaStream_t user;
  CK(cudaStreamCreate(&user));
  auto on_stream = [&](const std::function<void(int)>& f) {
    return [&, f](int i) {
      myblas_set_stream(user);
      f(i);
      myblas_set_stream(nullptr);
    };
  };
  // The raw call on that stream too: what the library's -stream rows compare with on equal terms.
  {
    auto raw_stream = [&](int i) {
      CB(cublasSetStream(h, user));
      raw(i);
      CB(cublasSetStream(h, nullptr));
    };
    const bench::Timing t = bench::time_calls_with_host(raw_stream, 1, o.reps, 3);
    csv_row("device", type, n, count, "cublas-strided-raw-stream", t.event_us, t.host_us, bytes / t.event_us / 1e3,
            flops / t.event_us / 1e6, tr.event_us / t.event_us, 0.0);
  }
  for (const Form& form : {Form{"myblas-batch-strided", strided}, Form{"myblas-batch-pointers", listed},
                           Form{"myblas-batch-strided-stream", on_stream(strided)},
                           Form{"myblas-batch-pointers-stream", on_stream(listed)}}) {
    CK(cudaMemset(c, 0xFF, per * count * es));  // NaN: beta = 0 must not read it
    form.f(0);
    CK(cudaDeviceSynchronize());
    const double err = verify(c, cref, count, n, eps);
    if (err > 1.0) std::printf("# VERIFY FAILED: %s %s n=%d worst error %.3g x the bound\n", form.name, type.c_str(), n, err);
    const bench::Timing t = bench::time_calls_with_host(form.f, 1, o.reps, 3);
    csv_row("device", type, n, count, form.name, t.event_us, t.host_us, bytes / t.event_us / 1e3,
            flops / t.event_us / 1e6, tr.event_us / t.event_us, err);
  }
  CK(cudaStreamDestroy(user));
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, __half>) {
    myblas::BatchGroup g;
    g.m = g.n = g.k = n;
    g.alpha = {1, 0}, g.beta = {0, 0};
    g.a = a, g.b = b, g.c = c;
    g.lda = g.ldb = g.ldc = n;
    g.stride_a = g.stride_b = g.stride_c = s;
    g.count = count;
    const myblas::Dtype dt = sizeof(T) == 2 ? myblas::Dtype::h : myblas::Dtype::s;
    if (!myblas::batched_square_can_implement(dt, g))
      for (myblas::SquareKernel k : {myblas::SquareKernel::smem, myblas::SquareKernel::staged,
                                     myblas::SquareKernel::prefetch, myblas::SquareKernel::mma}) {
        if (k == myblas::SquareKernel::mma && dt != myblas::Dtype::h) continue;  // (binary16 only)
        auto direct = [&](int) { CK(myblas::batched_square_run(dt, &g, nullptr, 1, nullptr, k)); };
        CK(cudaMemset(c, 0xFF, per * count * es));
        direct(0);
        CK(cudaDeviceSynchronize());
        const double err = verify(c, cref, count, n, eps);
        const std::string name = std::string("kernel-") + myblas::square_kernel_name(k);
        if (err > 1.0) std::printf("# VERIFY FAILED: %s %s n=%d worst error %.3g x the bound\n", name.c_str(), type.c_str(), n, err);
        const bench::Timing t = bench::time_calls_with_host(direct, 1, o.reps, 3);
        csv_row("device", type, n, count, name.c_str(), t.event_us, t.host_us, bytes / t.event_us / 1e3,
                flops / t.event_us / 1e6, tr.event_us / t.event_us, err);
      }
  }
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(c));
  CK(cudaFree(cref));
}

// The device-to-device copy rate: cudaMemcpy of mb MB, 3 warm-ups, median of reps; bytes read
// plus bytes written per microsecond, the rate a batch that reads A, B and writes C at most reaches.
void copy_floor(const Opts& o) {
  const size_t bytes = size_t(o.mb * 1048576.0);
  void *x, *y;
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&y, bytes));
  CK(cudaMemset(x, 1, bytes));
  auto copy = [&](int) { CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, nullptr)); };
  const bench::Timing t = bench::time_calls_with_host(copy, 1, std::max(o.reps, 20), 3);
  csv_row("floor", "-", 0, 1, "d2d-memcpy", t.event_us, t.host_us, 2.0 * double(bytes) / t.event_us / 1e3, 0, 1.0, 0);
  g_floor_gbps = 2.0 * double(bytes) / t.event_us / 1e3;
  CK(cudaFree(x));
  CK(cudaFree(y));
}

// Groups of different sizes in one call (FP32, n = 16 and 32, 64 MB per operand each) beside the
// same products as two strided calls and as two raw cuBLAS calls.
void grouped_case(const Opts& o, cublasHandle_t h) {
  const int ns[2] = {16, 32};
  long counts[2];
  float *a[2], *b[2], *c[2];
  std::vector<const float*> pa, pb;
  std::vector<float*> pc;
  for (int g = 0; g < 2; ++g) {
    const size_t per = size_t(ns[g]) * ns[g];
    counts[g] = long(64.0 * 1048576.0 / double(per * sizeof(float)));
    CK(cudaMalloc(&a[g], per * counts[g] * sizeof(float)));
    CK(cudaMalloc(&b[g], per * counts[g] * sizeof(float)));
    CK(cudaMalloc(&c[g], per * counts[g] * sizeof(float)));
    fill_device(a[g], per * counts[g], 3 + g);
    fill_device(b[g], per * counts[g], 5 + g);
    for (long i = 0; i < counts[g]; ++i) {
      pa.push_back(a[g] + i * per);
      pb.push_back(b[g] + i * per);
      pc.push_back(c[g] + i * per);
    }
  }
  const CBLAS_TRANSPOSE nt[2] = {CblasNoTrans, CblasNoTrans};
  const int sizes[2] = {ns[0], ns[1]}, gs[2] = {int(counts[0]), int(counts[1])};
  const float al[2] = {1.f, 1.f}, be[2] = {0.f, 0.f};
  auto grouped = [&](int) {
    cblas_sgemm_batch(CblasColMajor, nt, nt, sizes, sizes, sizes, al, pa.data(), sizes, pb.data(), sizes, be, pc.data(),
                      sizes, 2, gs);
  };
  auto two_strided = [&](int) {
    for (int g = 0; g < 2; ++g) {
      const int n = ns[g], s = n * n;
      cblas_sgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, a[g], n, s, b[g], n, s, 0.f,
                                c[g], n, s, int(counts[g]));
    }
  };
  auto two_raw = [&](int) {
    const float one = 1.f, zero = 0.f;
    for (int g = 0; g < 2; ++g) {
      const int n = ns[g];
      const long long s = (long long)n * n;
      CB(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a[g], n, s, b[g], n, s, &zero, c[g], n,
                                   s, int(counts[g])));
    }
  };
  const long total = counts[0] + counts[1];
  const double bytes = 3.0 * 64 * 1048576.0 * 2;
  const bench::Timing tr = bench::time_calls_with_host(two_raw, 1, o.reps, 3);
  csv_row("group", "s", 1632, total, "cublas-two-strided-raw", tr.event_us, tr.host_us, bytes / tr.event_us / 1e3, 0,
          1.0, 0);
  for (auto& [name, f] : std::vector<std::pair<const char*, std::function<void(int)>>>{
           {"myblas-one-grouped-call", grouped}, {"myblas-two-strided-calls", two_strided}}) {
    const bench::Timing t = bench::time_calls_with_host(f, 1, o.reps, 3);
    csv_row("group", "s", 1632, total, name, t.event_us, t.host_us, bytes / t.event_us / 1e3, 0,
            tr.event_us / t.event_us, 0);
  }
  for (int g = 0; g < 2; ++g) {
    CK(cudaFree(a[g]));
    CK(cudaFree(b[g]));
    CK(cudaFree(c[g]));
  }
}

double wall_median(const std::function<void()>& f, int reps) {
  f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  return bench::median(t);
}

// The host-array calls of one type (T = float or double), each a thin forward to the library's
// S or D entry point, and the OpenBLAS single-matrix routine the loop anchor calls.
template <class T>
struct HostGemm {
  static constexpr bool kD = std::is_same_v<T, double>;
  static constexpr const char* kOpenblas = kD ? "dgemm_" : "sgemm_";
  using gemm_t = void (*)(const char*, const char*, const int*, const int*, const int*, const T*, const T*,
                          const int*, const T*, const int*, const T*, T*, const int*);
  static void strided(int n, const T* a, const T* b, T* c, int s, int cnt) {
    if constexpr (kD)
      cblas_dgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, s, b, n, s, 0.0, c, n,
                                s, cnt);
    else
      cblas_sgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, a, n, s, b, n, s, 0.f, c, n,
                                s, cnt);
  }
  static void listed(const int* n, const T* one, const T** a, const T** b, const T* zero, T** c, const int* cnt) {
    const CBLAS_TRANSPOSE nt = CblasNoTrans;
    if constexpr (kD) cblas_dgemm_batch(CblasColMajor, &nt, &nt, n, n, n, one, a, n, b, n, zero, c, n, 1, cnt);
    else cblas_sgemm_batch(CblasColMajor, &nt, &nt, n, n, n, one, a, n, b, n, zero, c, n, 1, cnt);
  }
};

template <class T>
void host_case(const std::string& type, int n, const Opts& o) {
  using H = HostGemm<T>;
  void* ob = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!ob) {
    std::printf("# no OpenBLAS: %s\n", dlerror());
    return;
  }
  auto gemm = reinterpret_cast<typename H::gemm_t>(dlsym(ob, H::kOpenblas));
  if (!gemm) {
    std::printf("# OpenBLAS has no %s: %s\n", H::kOpenblas, dlerror());
    return;
  }
  auto threads = reinterpret_cast<int (*)()>(dlsym(ob, "openblas_get_num_threads"));
  const size_t per = size_t(n) * n;
  const long count = o.count;
  std::vector<T> a(per * count), b(per * count), c(per * count), cref(per * count);
  {
    std::mt19937 rng(7u);
    std::uniform_real_distribution<T> d(-1, 1);
    std::vector<T> pool(size_t(1) << 22);
    for (T& v : pool) do v = d(rng); while (std::fabs(v) < 1e-3);
    // Blocks of the pool at shifting starts (fast for gigabytes; never zero).
    const size_t chunk = pool.size() - 8;
    for (size_t i = 0, j = 0; i < a.size(); i += chunk, ++j) {
      const size_t len = std::min(chunk, a.size() - i);
      std::memcpy(&a[i], pool.data() + j % 7, len * sizeof(T));
      std::memcpy(&b[i], pool.data() + (j + 3) % 7 + 1, len * sizeof(T));
    }
  }
  const T one = 1, zero = 0;
  auto loop = [&] {
    for (long i = 0; i < count; ++i)
      gemm("N", "N", &n, &n, &n, &one, &a[i * per], &n, &b[i * per], &n, &zero, &cref[i * per], &n);
  };
  const double flops = 2.0 * double(n) * n * n * double(count);
  const double t_loop = wall_median(loop, o.host_reps);
  char label[64];
  std::snprintf(label, sizeof label, "openblas-%cgemm-loop-%dthr", H::kOpenblas[0], threads ? threads() : -1);
  csv_row("host", type, n, count, label, t_loop, t_loop, 0, flops / t_loop / 1e6, 1.0, 0.0);
  const int s = int(per), cnt = int(count);
  auto strided = [&] { H::strided(n, a.data(), b.data(), c.data(), s, cnt); };
  std::vector<const T*> pa(static_cast<size_t>(count)), pb(static_cast<size_t>(count));
  std::vector<T*> pc(static_cast<size_t>(count));
  for (long i = 0; i < count; ++i) pa[size_t(i)] = &a[i * per], pb[size_t(i)] = &b[i * per], pc[size_t(i)] = &c[i * per];
  auto listed = [&] { H::listed(&n, &one, pa.data(), pb.data(), &zero, pc.data(), &cnt); };
  const double bound = (n + 2) * n * (H::kD ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24));
  for (auto& [name, f] : std::vector<std::pair<const char*, std::function<void()>>>{
           {"myblas-batch-strided", strided}, {"myblas-batch-pointers", listed}}) {
    std::fill(c.begin(), c.end(), std::numeric_limits<T>::quiet_NaN());  // beta = 0 must not read it
    f();
    double worst = 0;
    for (size_t i = 0; i < c.size(); i += 97)
      worst = std::max(worst, std::isnan(c[i]) ? 1e30 : std::fabs(double(c[i]) - double(cref[i])) / bound);
    if (worst > 1.0)
      std::printf("# VERIFY FAILED: host %s %s n=%d worst %.3g x the bound\n", name, type.c_str(), n, worst);
    const double t = wall_median(f, o.host_reps);
    csv_row("host", type, n, count, (std::string(name) + "[" + myblas_last_path() + "]").c_str(), t, t, 0,
            flops / t / 1e6, t_loop / t, worst);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Opts o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    auto ints = [](const char* s) {
      std::vector<int> v;
      for (const std::string& x : bench::split_list(s)) v.push_back(std::atoi(x.c_str()));
      return v;
    };
    if (a == "--device") o.device = true;
    else if (a == "--host") o.host = true;
    else if (a == "--sizes") o.sizes = ints(next());
    else if (a == "--types") o.types = o.host_types = bench::split_list(next());
    else if (a == "--host-sizes") o.host_sizes = ints(next());
    else if (a == "--mb") o.mb = std::atof(next());
    else if (a == "--reps") o.reps = std::atoi(next());
    else if (a == "--host-reps") o.host_reps = std::atoi(next());
    else if (a == "--count") o.count = std::atol(next());
    else if (a == "--csv") o.csv = next();
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (!o.device && !o.host) o.device = o.host = true;
  const char* be = std::getenv("MYBLAS_BACKEND");
  g_backend = be && *be ? be : "auto";
  std::printf("# bench_batched, git %s, MYBLAS_BACKEND=%s\n", MYBLAS_GIT_REV, g_backend.c_str());
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    bench::print_device_and_command(argc, argv);
  } else {
    std::printf("# date: %s; device: none\n", bench::utc_now().c_str());
    bench::print_command(argc, argv);
    o.device = false;  // (host rows only)
  }
  if (!o.csv.empty()) {
    g_csv = std::fopen(o.csv.c_str(), "w");
    if (g_csv)
      std::fprintf(g_csv, "kind,backend,type,n,count,path,us,host_us,gbps,tflops,ratio_vs_anchor,verify_err\n");
  }
  if (o.device) {
    cublasHandle_t h;
    CB(cublasCreate(&h));
    copy_floor(o);
    for (const std::string& t : o.types)
      for (int n : o.sizes) {
        if (t == "s") device_case<float>(t, n, o, h);
        else if (t == "d") device_case<double>(t, n, o, h);
        else if (t == "h") device_case<__half>(t, n, o, h);
        else if (t == "c") device_case<std::complex<float>>(t, n, o, h);
        else if (t == "z") device_case<std::complex<double>>(t, n, o, h);
      }
    grouped_case(o, h);
    CB(cublasDestroy(h));
  }
  if (o.host)
    for (const std::string& t : o.host_types)
      for (int n : o.host_sizes) {
        if (t == "s") host_case<float>(t, n, o);
        else if (t == "d") host_case<double>(t, n, o);
        else std::printf("# --host: type %s not measured (host arrays: s, d)\n", t.c_str());
      }
  if (g_csv) std::fclose(g_csv);
  return 0;
}
