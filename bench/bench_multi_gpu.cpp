// Host-array GEMM over one GPU and over several, beside the bound that applies to it
// (bench/run_multi_gpu.sh runs the modes and writes the results):
//   bench_multi_gpu stage <gpus> [GiB per GPU]
//       the staging rate: pageable host memory copied through pinned buffers to the GPU, back,
//       and both at once (two threads up for one down, the proportions of a GEMM with beta 0:
//       A and B up, C down), by min(16, cores/gpus) host threads per GPU, on `gpus` GPUs at
//       once, as the library's pipeline stages operands. Every thread makes its stream, events
//       and pinned buffers before the clock starts. Prints a `stage ...` line.
//   bench_multi_gpu device <gpus> <n> [s|d]
//       cuBLAS SGEMM (DGEMM) n x n/gpus x n on device operands on every GPU at once: the
//       product's own time on its share. Prints `device ...` lines, one per GPU.
//   bench_multi_gpu host <n> [reps] [s|d]
//       sgemm_ (dgemm_) NN n^3 on host arrays through whichever library the dynamic linker
//       gives the program (LD_PRELOAD: libmyblas, with MYBLAS_DEVICES deciding where; or
//       libnvblas), verified on sampled elements first, then timed: wall clock around the whole
//       call (the call is synchronous: staging, products and copies back are all inside it),
//       median of reps after one warm-up. BENCH_BETA sets beta (default 0; else C is staged up too). BENCH_LIB and BENCH_DEVICES (else MYBLAS_DEVICES) label
//       the result line. Operands are n^2 elements each (1 GiB at n = 16384):
//       far beyond any cache, so nothing is rotated.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Fills n elements with values in [-1, 1] from a per-thread generator, on every core.
template <class T>
void fill(T* p, size_t n, uint64_t seed) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      std::mt19937_64 rng(seed * 1000003 + t);
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      const size_t lo = n * t / threads, hi = n * (t + 1) / threads;
      for (size_t i = lo; i < hi; ++i) p[i] = T(u(rng));
    });
  for (auto& th : pool) th.join();
}

// ---- staging ----
// One copy thread's share: `bytes` of pageable memory at `host` to `dev` (upload) or back,
// through two pinned buffers of `piece` bytes on its own stream. Its stream, events and pinned
// buffers are made before the clock starts: the thread counts itself in `ready` and waits for
// `go` (cudaHostAlloc takes the driver's lock; 32 threads making theirs inside the timed
// interval measured the allocations, not the copies).
void stage_lane(bool upload, unsigned char* host, unsigned char* dev, size_t bytes, size_t piece, int gpu,
                std::atomic<int>* ready, const std::atomic<bool>* go, int lanes) {
  CK(cudaSetDevice(gpu));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void* pin[2];
  cudaEvent_t ev[2];
  for (int b = 0; b < 2; ++b) {
    CK(cudaHostAlloc(&pin[b], piece, cudaHostAllocPortable));
    CK(cudaEventCreateWithFlags(&ev[b], cudaEventDisableTiming));
    CK(cudaEventRecord(ev[b], s));
  }
  CK(cudaStreamSynchronize(s));
  ready->fetch_add(1);
  while (!go->load()) std::this_thread::yield();
  int b = 0;
  size_t pending_off[2] = {SIZE_MAX, SIZE_MAX}, pending_len[2] = {0, 0};
  for (size_t off = 0; off < bytes; off += piece, b ^= 1) {
    const size_t len = std::min(piece, bytes - off);
    CK(cudaEventSynchronize(ev[b]));
    if (upload) {
      std::memcpy(pin[b], host + off, len);
      CK(cudaMemcpyAsync(dev + off, pin[b], len, cudaMemcpyHostToDevice, s));
    } else {
      if (pending_off[b] != SIZE_MAX) std::memcpy(host + pending_off[b], pin[b], pending_len[b]);
      CK(cudaMemcpyAsync(pin[b], dev + off, len, cudaMemcpyDeviceToHost, s));
      pending_off[b] = off;
      pending_len[b] = len;
    }
    CK(cudaEventRecord(ev[b], s));
  }
  CK(cudaStreamSynchronize(s));
  for (int k = 0; k < 2; ++k)
    if (!upload && pending_off[k] != SIZE_MAX) std::memcpy(host + pending_off[k], pin[k], pending_len[k]);
  ready->fetch_add(1);  // (counted twice: done)
  // The pinned buffers go only when every lane is done: freeing them can wait for the device,
  // which would hold up the lanes still copying.
  while (ready->load() < 2 * lanes) std::this_thread::yield();
  for (int k = 0; k < 2; ++k) {
    CK(cudaFreeHost(pin[k]));
    CK(cudaEventDestroy(ev[k]));
  }
  CK(cudaStreamDestroy(s));
}

// Which way a probe's threads copy: all up, all down, or mixed (of every three threads on a GPU,
// two up and one down).
enum class Way { up, down, mixed };

// Aggregate rate (GB/s) of `gpus` GPUs staging `bytes` each at once, `threads` per GPU, timed
// from the moment every thread is ready to the moment the last has finished its copies.
double stage_rate(Way way, int gpus, size_t bytes, unsigned threads, std::vector<unsigned char*>& host,
                  std::vector<unsigned char*>& dev) {
  const size_t piece = size_t(4) << 20;
  std::vector<std::thread> lanes;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  const int n = gpus * int(threads);
  for (int g = 0; g < gpus; ++g)
    for (unsigned t = 0; t < threads; ++t) {
      const size_t lo = bytes * t / threads / piece * piece, hi = t + 1 == threads ? bytes : bytes * (t + 1) / threads / piece * piece;
      const bool upload = way == Way::up || (way == Way::mixed && t % 3 != 2);
      lanes.emplace_back(stage_lane, upload, host[size_t(g)] + lo, dev[size_t(g)] + lo, hi - lo, piece, g, &ready, &go, n);
    }
  while (ready.load() < n) std::this_thread::yield();
  const Clock::time_point t0 = Clock::now();
  go.store(true);
  while (ready.load() < 2 * n) std::this_thread::yield();
  const double s = seconds_since(t0);
  for (auto& l : lanes) l.join();
  return double(bytes) * gpus / s / 1e9;
}

int run_stage(int gpus, double gib) {
  int count = 0;
  CK(cudaGetDeviceCount(&count));
  if (count < gpus) {
    std::printf("# skipped: %d GPUs asked, %d present\n", gpus, count);
    return 77;
  }
  const size_t bytes = size_t(gib * double(size_t(1) << 30));
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned threads = std::max(1u, std::min(16u, hw / unsigned(gpus)));
  std::vector<unsigned char*> host(static_cast<size_t>(gpus)), dev(static_cast<size_t>(gpus));
  for (int g = 0; g < gpus; ++g) {
    host[size_t(g)] = static_cast<unsigned char*>(std::malloc(bytes));
    fill(reinterpret_cast<float*>(host[size_t(g)]), bytes / 4, uint64_t(g) + 1);
    CK(cudaSetDevice(g));
    CK(cudaMalloc(&dev[size_t(g)], bytes));
  }
  stage_rate(Way::up, gpus, bytes / 4, threads, host, dev);  // warm-up: pinned allocation, contexts
  std::vector<double> up, down, mixed;
  for (int r = 0; r < 3; ++r) {
    up.push_back(stage_rate(Way::up, gpus, bytes, threads, host, dev));
    down.push_back(stage_rate(Way::down, gpus, bytes, threads, host, dev));
    mixed.push_back(stage_rate(Way::mixed, gpus, bytes, threads, host, dev));
  }
  std::sort(up.begin(), up.end());
  std::sort(down.begin(), down.end());
  std::sort(mixed.begin(), mixed.end());
  std::printf("stage gpus=%d threads_per_gpu=%u bytes_per_gpu=%zu h2d_GBs=%.2f d2h_GBs=%.2f mixed_GBs=%.2f (medians of 3; "
              "min-max h2d %.2f-%.2f d2h %.2f-%.2f mixed %.2f-%.2f)\n",
              gpus, threads, bytes, up[1], down[1], mixed[1], up[0], up[2], down[0], down[2], mixed[0], mixed[2]);
  for (int g = 0; g < gpus; ++g) {
    std::free(host[size_t(g)]);
    CK(cudaSetDevice(g));
    CK(cudaFree(dev[size_t(g)]));
  }
  return 0;
}

// cuBLAS SGEMM (DGEMM) n x (n/gpus) x n on device operands, every GPU at once: each GPU's median
// time of 3 after a warm-up.
template <class T>
int run_device_gemm(int gpus, int n) {
  int count = 0;
  CK(cudaGetDeviceCount(&count));
  if (count < gpus) {
    std::printf("# skipped: %d GPUs asked, %d present\n", gpus, count);
    return 77;
  }
  const int cols = n / gpus;
  struct Gpu {
    T *a, *b, *c;
    cublasHandle_t h;
    cudaEvent_t e0, e1;
    std::vector<float> ms;
  };
  std::vector<Gpu> g(static_cast<size_t>(gpus));
  for (int d = 0; d < gpus; ++d) {
    Gpu& x = g[size_t(d)];
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&x.a, size_t(n) * n * sizeof(T)));
    CK(cudaMalloc(&x.b, size_t(n) * cols * sizeof(T)));
    CK(cudaMalloc(&x.c, size_t(n) * cols * sizeof(T)));
    CK(cudaMemset(x.a, 0, size_t(n) * n * sizeof(T)));  // (values do not change cuBLAS's time)
    CK(cudaMemset(x.b, 0, size_t(n) * cols * sizeof(T)));
    CB(cublasCreate(&x.h));
    CK(cudaEventCreate(&x.e0));
    CK(cudaEventCreate(&x.e1));
  }
  const T one = 1, zero = 0;
  for (int r = 0; r < 4; ++r) {
    for (int d = 0; d < gpus; ++d) {
      Gpu& x = g[size_t(d)];
      CK(cudaSetDevice(d));
      CK(cudaEventRecord(x.e0));
      if constexpr (sizeof(T) == 4)
        CB(cublasSgemm(x.h, CUBLAS_OP_N, CUBLAS_OP_N, n, cols, n, &one, x.a, n, x.b, n, &zero, x.c, n));
      else
        CB(cublasDgemm(x.h, CUBLAS_OP_N, CUBLAS_OP_N, n, cols, n, &one, x.a, n, x.b, n, &zero, x.c, n));
      CK(cudaEventRecord(x.e1));
    }
    for (int d = 0; d < gpus; ++d) {
      Gpu& x = g[size_t(d)];
      CK(cudaSetDevice(d));
      CK(cudaEventSynchronize(x.e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, x.e0, x.e1));
      if (r > 0) x.ms.push_back(ms);  // the first is a warm-up
    }
  }
  for (int d = 0; d < gpus; ++d) {
    Gpu& x = g[size_t(d)];
    std::sort(x.ms.begin(), x.ms.end());
    std::printf("device %cgemm gpus=%d gpu=%d n=%d shape=%dx%dx%d median_ms=%.2f (cuBLAS, device operands, all GPUs at once; %.1f TFLOP/s)\n",
                sizeof(T) == 4 ? 's' : 'd', gpus, d, n, n, cols, n, x.ms[1],
                2.0 * n * double(cols) * n / (x.ms[1] * 1e-3) / 1e12);
    CK(cudaSetDevice(d));
    cudaFree(x.a);
    cudaFree(x.b);
    cudaFree(x.c);
    cublasDestroy(x.h);
  }
  return 0;
}

// ---- host-array GEMM through the library ----
// The program is not linked with a BLAS: sgemm_ and dgemm_ are the preloaded library's.
using SgemmFn = void (*)(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                         const int*, const float*, const int*, const float*, float*, const int*);
using DgemmFn = void (*)(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                         const int*, const double*, const int*, const double*, double*, const int*);

template <class T>
int run_host(int n, int reps, SgemmFn sgemm, DgemmFn dgemm) {
  const size_t elems = size_t(n) * size_t(n);
  std::vector<T*> m(3);
  for (int i = 0; i < 3; ++i) {
    m[size_t(i)] = static_cast<T*>(std::malloc(elems * sizeof(T)));
    if (!m[size_t(i)]) {
      std::printf("# skipped: no host memory for n=%d\n", n);
      return 77;
    }
    fill(m[size_t(i)], elems, uint64_t(i) + 11);
  }
  T *a = m[0], *b = m[1], *c = m[2];
  // BENCH_BETA (default 0): beta != 0 also stages C up (C := AB + beta C).
  const char* beta_env = std::getenv("BENCH_BETA");
  const T alpha = T(1), beta = T(beta_env ? std::atof(beta_env) : 0.0);
  // The sampled elements and C's values there before the first call.
  std::mt19937_64 rng(5);
  std::vector<std::pair<int, int>> at(256);
  std::vector<double> c0(256);
  for (size_t s = 0; s < at.size(); ++s) {
    at[s] = {int(rng() % uint64_t(n)), int(rng() % uint64_t(n))};
    c0[s] = double(c[size_t(at[s].second) * n + at[s].first]);
  }
  auto call = [&] {
    if constexpr (sizeof(T) == 4)
      sgemm("N", "N", &n, &n, &n, &alpha, a, &n, b, &n, &beta, c, &n);
    else
      dgemm("N", "N", &n, &n, &n, &alpha, a, &n, b, &n, &beta, c, &n);
  };
  const Clock::time_point w0 = Clock::now();
  call();
  const double warm = seconds_since(w0);
  // Verify sampled elements against a double dot product, bound k * eps * sum |a||b|.
  int bad = 0;
  double worst = 0;
  const double eps = sizeof(T) == 4 ? 5.96e-8 : 1.11e-16;
  for (size_t s = 0; s < at.size(); ++s) {
    const int i = at[s].first, j = at[s].second;
    double want = double(beta) * c0[s], mag = std::fabs(want);
    for (int l = 0; l < n; ++l) {
      want += double(a[size_t(l) * n + i]) * double(b[size_t(j) * n + l]);
      mag += std::fabs(double(a[size_t(l) * n + i]) * double(b[size_t(j) * n + l]));
    }
    const double err = std::fabs(double(c[size_t(j) * n + i]) - want), bound = 4.0 * (n + 2) * eps * mag;
    worst = std::max(worst, err / bound);
    bad += !(err <= bound);
  }
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const Clock::time_point t0 = Clock::now();
    call();
    ms.push_back(seconds_since(t0) * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  // (labels for the run script's table: which library answered, on which GPUs)
  const char* lib = std::getenv("BENCH_LIB");
  const char* devices = std::getenv("BENCH_DEVICES");
  if (!devices) devices = std::getenv("MYBLAS_DEVICES");
  std::printf("host %cgemm NN n=%d lib=%s devices=%s verified=%s (256 samples, worst err/bound %.3g) warmup_ms=%.1f median_ms=%.1f min_ms=%.1f max_ms=%.1f reps=%d %.1f TFLOP/s beta=%g\n",
              sizeof(T) == 4 ? 's' : 'd', n, lib ? lib : "preloaded", devices ? devices : "(unset)", bad ? "NO" : "yes", worst, warm * 1e3,
              ms[ms.size() / 2], ms.front(), ms.back(), reps, 2.0 * double(n) * n * n / (ms[ms.size() / 2] * 1e-3) / 1e12,
              double(beta));
  for (T* p : m) std::free(p);
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s stage <gpus> [GiB] | device <gpus> <n> [s|d] | host <n> [reps] [s|d]\n", argv[0]);
    return 2;
  }
  std::printf("# %s, git %s\n", bench::utc_now().c_str(), MYBLAS_GIT_REV);
  bench::print_command(argc, argv);
  const std::string mode = argv[1];
  const bool dbl = argc > 4 && argv[4][0] == 'd';
  if (mode == "stage") return run_stage(std::atoi(argv[2]), argc > 3 ? std::atof(argv[3]) : 2.0);
  if (mode == "device" && argc > 3) {
    const int gpus = std::atoi(argv[2]), n = std::atoi(argv[3]);
    return dbl ? run_device_gemm<double>(gpus, n) : run_device_gemm<float>(gpus, n);
  }
  if (mode == "host") {
    const int n = std::atoi(argv[2]), reps = argc > 3 ? std::atoi(argv[3]) : 3;
    const char* name = dbl ? "dgemm_" : "sgemm_";
    void* fn = dlsym(RTLD_DEFAULT, name);
    if (!fn) {
      std::printf("# skipped: no %s in the program (preload a BLAS: LD_PRELOAD=libmyblas.so.0 or libnvblas.so)\n", name);
      return 77;
    }
    return dbl ? run_host<double>(n, reps, nullptr, reinterpret_cast<DgemmFn>(fn))
               : run_host<float>(n, reps, reinterpret_cast<SgemmFn>(fn), nullptr);
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
