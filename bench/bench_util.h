// Shared pieces of the device benchmarks (bench_blas, bench_sgemm, bench_sgemv, bench_hgemm): error
// checks that stop the run, the run's header lines, the L2-defeating rotation size, and the
// event-timed median.
#pragma once
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <functional>
#include <random>
#include <vector>

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)
#define CB(x)                                                                          \
  do {                                                                                 \
    cublasStatus_t s_ = (x);                                                           \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
      std::fprintf(stderr, "%s:%d %s: status %d\n", __FILE__, __LINE__, #x, int(s_)); \
      std::exit(2);                                                                    \
    }                                                                                  \
  } while (0)

namespace bench {

// The current time as "YYYY-MM-DD HH:MM UTC".
inline std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return date;
}

// "# command: <argv...>" on a line of its own.
inline void print_command(int argc, char** argv) {
  std::printf("# command:");
  for (int i = 0; i < argc; ++i) std::printf(" %s", argv[i]);
  std::printf("\n");
}

// The kernel benchmarks' second and third header lines: date, device 0 (its sm_XY, which
// bench/make_dispatch_table.py reads), driver and runtime; then the command.
inline void print_device_and_command(int argc, char** argv) {
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("# date: %s; device: %s (sm_%d%d, %d SMs, L2 %d MB); driver %d; runtime %d\n", utc_now().c_str(),
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, driver, runtime);
  print_command(argc, argv);
}

// Operand sets are rotated over at least this many bytes: > 5x the H100's 50 MB L2, so every
// timed call streams its operands from device memory.
constexpr size_t kRotateBytes = 256u << 20;

// Milliseconds of one call of f, between two events on the legacy default stream, synchronised
// (the benchmarks time each kernel's verification call to pick how often to repeat it).
inline float time_once_ms(const std::function<void()>& f) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0, nullptr));
  f();
  CK(cudaEventRecord(e1, nullptr));
  CK(cudaDeviceSynchronize());
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return ms;
}

// Median event time of f(set) (microseconds, launch included), and the median host time spent
// inside f itself: `warmups` calls, then `reps` calls, each between two events on the legacy
// default stream; sets rotate so consecutive calls touch different memory.
struct Timing {
  double event_us, host_us;
};
inline Timing time_calls_with_host(const std::function<void(int)>& f, int nsets, int reps, int warmups = 3) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int w = 0; w < warmups; ++w) f(w % nsets);
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  std::vector<double> h;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(e0, nullptr));
    const auto h0 = std::chrono::steady_clock::now();
    f((r + warmups) % nsets);
    const auto h1 = std::chrono::steady_clock::now();
    CK(cudaEventRecord(e1, nullptr));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1000.f);
    h.push_back(std::chrono::duration<double, std::micro>(h1 - h0).count());
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(t.begin(), t.end());
  std::sort(h.begin(), h.end());
  return {t[t.size() / 2], h[h.size() / 2]};
}

// The non-empty items of a comma-separated command-line list ("a,,b" -> {"a", "b"}).
inline std::vector<std::string> split_list(const char* s) {
  std::vector<std::string> out;
  std::string cur;
  for (; *s; ++s) {
    if (*s == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += *s;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The median of v (the mean of the middle two for an even count).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// The median event time alone.
inline double time_calls(const std::function<void(int)>& f, int nsets, int reps, int warmups = 3) {
  return time_calls_with_host(f, nsets, reps, warmups).event_us;
}

// Random values in [-1, 1] (never 0 once converted to T), tiled into device buffers with a
// shifting start. make(f) converts a float to T; is_zero(v) tells a converted zero.
template <class T>
struct RandomSource {
  T* dev = nullptr;
  size_t count = size_t(1) << 24;
  template <class Make, class IsZero>
  RandomSource(Make make, IsZero is_zero) {
    std::mt19937 rng(2026u);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    std::vector<T> h(count);
    for (auto& v : h) {
      do v = make(d(rng));
      while (is_zero(v));
    }
    CK(cudaMalloc(&dev, count * sizeof(T)));
    CK(cudaMemcpy(dev, h.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  }
  void fill(T* dst, size_t n, size_t salt) const {
    size_t done = 0, start = (salt * 7919u) % (count / 2);
    while (done < n) {
      const size_t take = std::min(n - done, count - start);
      CK(cudaMemcpy(dst + done, dev + start, take * sizeof(T), cudaMemcpyDeviceToDevice));
      done += take;
      start = (start + 977) % (count / 2);
    }
  }
};

struct Source : RandomSource<float> {
  Source() : RandomSource<float>([](float f) { return f; }, [](float v) { return v == 0.f; }) {}
};

// The driver query libmyblas classifies a pointer with (cuPointerGetAttributes for memory type,
// managed flag and device ordinal), for the probes that time it; false when libcuda is not
// loaded yet or lacks it.
struct PointerQuery {
  using Fn = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
  Fn fn = nullptr;
  CUpointer_attribute which[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  unsigned type = 0, managed = 0;
  int ordinal = -1;
  void* out[3] = {&type, &managed, &ordinal};
  PointerQuery() {
    if (void* cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) fn = reinterpret_cast<Fn>(dlsym(cu, "cuPointerGetAttributes"));
  }
  PointerQuery(const PointerQuery&) = delete;  // (out points into this object)
  PointerQuery& operator=(const PointerQuery&) = delete;
  explicit operator bool() const { return fn != nullptr; }
  void operator()(const void* p) { fn(3, which, out, CUdeviceptr(p)); }
};

}  // namespace bench
