// Device-pointer Level 3 and GEMV in S, D, C, Z through libmyblas beside the raw cuBLAS call it
// makes, in one process: the library's own cost per call. Every routine served through the
// generic path (dgemm ... ztrsm, d/c/zgemv) at order n (default 4096), square operands in device
// memory; median event time of `reps` calls of each side after a warm-up, the sides taking turns
// call by call; the raw side is cuBLAS plus a synchronisation (a libmyblas call on the default
// stream returns complete). Before timing, one call of each side on the same inputs is compared
// (max relative difference).
// Output CSV: routine,n,cublas_us (raw call + synchronise),myblas_us,ratio (= cublas/myblas),max_rel_diff
// usage: bench_level3_device [--n N] [--reps R] [--only dgemm,zherk,...]
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
#include "myblas.h"

namespace {


struct Routine {
  const char* name;
  char type;     // s d c z
  const char* family;
};

const Routine kRoutines[] = {
    {"dgemm", 'd', "gemm"},   {"cgemm", 'c', "gemm"},   {"zgemm", 'z', "gemm"},   {"dgemv", 'd', "gemv"},
    {"cgemv", 'c', "gemv"},   {"zgemv", 'z', "gemv"},   {"ssymm", 's', "symm"},   {"dsymm", 'd', "symm"},
    {"csymm", 'c', "symm"},   {"zsymm", 'z', "symm"},   {"chemm", 'c', "hemm"},   {"zhemm", 'z', "hemm"},
    {"ssyrk", 's', "syrk"},   {"dsyrk", 'd', "syrk"},   {"csyrk", 'c', "syrk"},   {"zsyrk", 'z', "syrk"},
    {"cherk", 'c', "herk"},   {"zherk", 'z', "herk"},   {"ssyr2k", 's', "syr2k"}, {"dsyr2k", 'd', "syr2k"},
    {"csyr2k", 'c', "syr2k"}, {"zsyr2k", 'z', "syr2k"}, {"cher2k", 'c', "her2k"}, {"zher2k", 'z', "her2k"},
    {"strmm", 's', "trmm"},   {"dtrmm", 'd', "trmm"},   {"ctrmm", 'c', "trmm"},   {"ztrmm", 'z', "trmm"},
    {"strsm", 's', "trsm"},   {"dtrsm", 'd', "trsm"},   {"ctrsm", 'c', "trsm"},   {"ztrsm", 'z', "trsm"},
};

size_t elem_size(char t) { return t == 's' ? 4 : t == 'd' || t == 'c' ? 8 : 16; }

// Fills a device array of count elements of type t with values in [-1, 1] (complex: both parts),
// adding `diag` to the diagonal of an n x n matrix (a well-conditioned triangle for trsm).
void fill(void* dev, char t, size_t n, double diag, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const size_t reals = n * n * (t == 'c' || t == 'z' ? 2 : 1);
  std::vector<double> pool(1 << 20);
  for (double& v : pool) v = u(g);
  const bool dbl = t == 'd' || t == 'z';
  std::vector<unsigned char> host(reals * (dbl ? 8 : 4));
  for (size_t i = 0; i < reals; ++i) {
    const double v = pool[(i * 7 + i / pool.size()) % pool.size()];
    if (dbl) std::memcpy(&host[i * 8], &v, 8);
    else {
      const float f = float(v);
      std::memcpy(&host[i * 4], &f, 4);
    }
  }
  const size_t w = (t == 'c' || t == 'z') ? 2 : 1;
  for (size_t i = 0; i < n; ++i) {
    const size_t e = (i + i * n) * w;
    if (dbl) {
      double v;
      std::memcpy(&v, &host[e * 8], 8);
      v += diag;
      std::memcpy(&host[e * 8], &v, 8);
    } else {
      float v;
      std::memcpy(&v, &host[e * 4], 4);
      v += float(diag);
      std::memcpy(&host[e * 4], &v, 4);
    }
  }
  CK(cudaMemcpy(dev, host.data(), host.size(), cudaMemcpyHostToDevice));
}

// Scalars of each type, by pointer (host memory).
// (Aligned as cuComplex / cuDoubleComplex: cuBLAS's ZGEMV faults on a host scalar that is only
// 8-byte aligned.)
struct Scalars {
  alignas(8) float s[2];
  alignas(16) double d[2];
  const void* of(char t) const { return t == 's' || t == 'c' ? static_cast<const void*>(s) : d; }
};

// One call of routine r, on cuBLAS (raw) or through libmyblas's Fortran entry point, with the
// same arguments: side L, uplo L, trans N, non-unit diagonal.
void call(const Routine& r, bool raw, cublasHandle_t h, int n, const Scalars& alpha, const Scalars& beta,
          const Scalars& real_alpha, const Scalars& real_beta, void* a, void* b, void* c) {
  const std::string f = r.family;
  const char N = 'N', L = 'L';
  const int one = 1;
  // The cuBLAS symbol, looked up by name (cublas<T><routine>_v2), as the library does.
  static void* lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
  std::string cu = std::string("cublas") + char(r.type - 'a' + 'A') + (r.name + 1) + "_v2";
  std::string fort = std::string(r.name) + "_";
  void* fn = raw ? dlsym(lib, cu.c_str()) : dlsym(RTLD_DEFAULT, fort.c_str());
  if (!fn) {
    std::fprintf(stderr, "missing %s\n", raw ? cu.c_str() : fort.c_str());
    std::exit(2);
  }
  using V = const void*;
  using H = cublasHandle_t;
  const cublasOperation_t on = CUBLAS_OP_N;
  const cublasFillMode_t lo = CUBLAS_FILL_MODE_LOWER;
  const cublasSideMode_t le = CUBLAS_SIDE_LEFT;
  const cublasDiagType_t nu = CUBLAS_DIAG_NON_UNIT;
  const bool herm = f == "herk";
  V al = herm ? real_alpha.of(r.type) : alpha.of(r.type);
  V be = herm || f == "her2k" ? real_beta.of(r.type) : beta.of(r.type);
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  if (f == "gemm") {
    if (raw) st = reinterpret_cast<cublasStatus_t (*)(H, cublasOperation_t, cublasOperation_t, int, int, int, V, V, int, V, int, V, void*, int)>(fn)(h, on, on, n, n, n, al, a, n, b, n, be, c, n);
    else reinterpret_cast<void (*)(const char*, const char*, const int*, const int*, const int*, V, V, const int*, V, const int*, V, void*, const int*)>(fn)(&N, &N, &n, &n, &n, al, a, &n, b, &n, be, c, &n);
  } else if (f == "gemv") {
    if (raw) st = reinterpret_cast<cublasStatus_t (*)(H, cublasOperation_t, int, int, V, V, int, V, int, V, void*, int)>(fn)(h, on, n, n, al, a, n, b, 1, be, c, 1);
    else reinterpret_cast<void (*)(const char*, const int*, const int*, V, V, const int*, V, const int*, V, void*, const int*)>(fn)(&N, &n, &n, al, a, &n, b, &one, be, c, &one);
  } else if (f == "symm" || f == "hemm") {
    if (raw) st = reinterpret_cast<cublasStatus_t (*)(H, cublasSideMode_t, cublasFillMode_t, int, int, V, V, int, V, int, V, void*, int)>(fn)(h, le, lo, n, n, al, a, n, b, n, be, c, n);
    else reinterpret_cast<void (*)(const char*, const char*, const int*, const int*, V, V, const int*, V, const int*, V, void*, const int*)>(fn)(&L, &L, &n, &n, al, a, &n, b, &n, be, c, &n);
  } else if (f == "syrk" || f == "herk") {
    if (raw) st = reinterpret_cast<cublasStatus_t (*)(H, cublasFillMode_t, cublasOperation_t, int, int, V, V, int, V, void*, int)>(fn)(h, lo, on, n, n, al, a, n, be, c, n);
    else reinterpret_cast<void (*)(const char*, const char*, const int*, const int*, V, V, const int*, V, void*, const int*)>(fn)(&L, &N, &n, &n, al, a, &n, be, c, &n);
  } else if (f == "syr2k" || f == "her2k") {
    if (raw) st = reinterpret_cast<cublasStatus_t (*)(H, cublasFillMode_t, cublasOperation_t, int, int, V, V, int, V, int, V, void*, int)>(fn)(h, lo, on, n, n, al, a, n, b, n, be, c, n);
    else reinterpret_cast<void (*)(const char*, const char*, const int*, const int*, V, V, const int*, V, const int*, V, void*, const int*)>(fn)(&L, &N, &n, &n, al, a, &n, b, &n, be, c, &n);
  } else if (f == "trmm") {
    if (raw) st = reinterpret_cast<cublasStatus_t (*)(H, cublasSideMode_t, cublasFillMode_t, cublasOperation_t, cublasDiagType_t, int, int, V, V, int, V, int, void*, int)>(fn)(h, le, lo, on, nu, n, n, al, a, n, c, n, c, n);
    else reinterpret_cast<void (*)(const char*, const char*, const char*, const char*, const int*, const int*, V, V, const int*, void*, const int*)>(fn)(&L, &L, &N, &N, &n, &n, al, a, &n, c, &n);
  } else if (f == "trsm") {
    if (raw) st = reinterpret_cast<cublasStatus_t (*)(H, cublasSideMode_t, cublasFillMode_t, cublasOperation_t, cublasDiagType_t, int, int, V, V, int, void*, int)>(fn)(h, le, lo, on, nu, n, n, al, a, n, c, n);
    else reinterpret_cast<void (*)(const char*, const char*, const char*, const char*, const int*, const int*, V, V, const int*, void*, const int*)>(fn)(&L, &L, &N, &N, &n, &n, al, a, &n, c, &n);
  }
  if (st != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s failed: %d\n", cu.c_str(), int(st));
    std::exit(2);
  }
}

// Max |x - y| / max |y| over count reals of type t.
double max_rel_diff(const void* x, const void* y, char t, size_t count) {
  const bool dbl = t == 'd' || t == 'z';
  const size_t reals = count * (t == 'c' || t == 'z' ? 2 : 1);
  std::vector<unsigned char> hx(reals * (dbl ? 8 : 4)), hy(hx.size());
  CK(cudaMemcpy(hx.data(), x, hx.size(), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hy.data(), y, hy.size(), cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (size_t i = 0; i < reals; ++i) {
    double a, b;
    if (dbl) {
      std::memcpy(&a, &hx[i * 8], 8);
      std::memcpy(&b, &hy[i * 8], 8);
    } else {
      float fa, fb;
      std::memcpy(&fa, &hx[i * 4], 4);
      std::memcpy(&fb, &hy[i * 4], 4);
      a = fa, b = fb;
    }
    num = std::max(num, std::fabs(a - b));
    den = std::max(den, std::fabs(b));
  }
  return den > 0 ? num / den : num;
}

// A crash prints where it happened (the benchmark runs on a machine without a debugger).
void on_crash(int sig) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  const char msg[] = "bench_level3_device: crashed; backtrace:\n";
  (void)!write(2, msg, sizeof msg - 1);
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGSEGV, on_crash);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int n = 4096, reps = 7;
  bool lib_first = false;  // the library's call before the raw one (both in the check and the turns)
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = bench::split_list(argv[++i]);
    else if (!std::strcmp(argv[i], "--lib-first")) lib_first = true;
  }
  std::printf("# bench_level3_device: device pointers, libmyblas's Fortran entry beside the raw cuBLAS call\n");
  bench::print_device_and_command(argc, argv);
  // (Naming a libmyblas function here also keeps the library among the program's dependencies:
  // its BLAS entry points are looked up by name.)
  std::printf("# revision: %s; libmyblas %s; MYBLAS_BACKEND=%s\n", MYBLAS_GIT_REV, myblas_version(),
              std::getenv("MYBLAS_BACKEND") ? std::getenv("MYBLAS_BACKEND") : "(auto)");
  std::printf("routine,n,cublas_us,myblas_us,ratio,max_rel_diff\n");
  cublasHandle_t h;
  CB(cublasCreate(&h));
  const size_t bytes = size_t(n) * n * 16;
  void *a, *b, *c, *c2, *c0;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMalloc(&c, bytes));
  CK(cudaMalloc(&c2, bytes));
  CK(cudaMalloc(&c0, bytes));
  for (const Routine& r : kRoutines) {
    if (!only.empty() && std::find(only.begin(), only.end(), r.name) == only.end()) continue;
    std::fprintf(stderr, "bench_level3_device: %s\n", r.name);
    const std::string f = r.family;
    const size_t mbytes = size_t(n) * n * elem_size(r.type);
    const bool tri = f == "trmm" || f == "trsm";
    fill(a, r.type, size_t(n), tri ? n : 0.0, 1);
    fill(b, r.type, size_t(n), 0.0, 2);
    fill(c0, r.type, size_t(n), 0.0, 3);
    // alpha keeps repeated in-place trmm/trsm calls at magnitude ~1 (A ~ n I).
    const double al = f == "trmm" ? 1.0 / n : f == "trsm" ? double(n) : 0.5;
    Scalars alpha{{float(al), 0.25f}, {al, 0.25}}, beta{{0.75f, -0.5f}, {0.75, -0.5}};
    Scalars ralpha{{float(al), 0}, {al, 0}}, rbeta{{0.75f, 0}, {0.75, 0}};
    if (tri) alpha = ralpha;
    // Correctness: one call each from the same C.
    CK(cudaMemcpy(c, c0, mbytes, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(c2, c0, mbytes, cudaMemcpyDeviceToDevice));
    for (int side = 0; side < 2; ++side) {
      const bool raw = (side == 0) != lib_first;
      call(r, raw, h, n, alpha, beta, ralpha, rbeta, a, b, raw ? c : c2);
      CK(cudaDeviceSynchronize());
    }
    const double diff = max_rel_diff(c2, c, r.type, f == "gemv" ? size_t(n) : size_t(n) * n);
    // The two sides take turns, call by call, so that clock or temperature drift over the run
    // falls on both alike. The raw call is followed by a synchronisation: a libmyblas call on
    // the default stream returns with its result complete, as cuBLAS's does not.
    std::vector<double> t_raw, t_lib;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 2 + 2 * reps; ++i) {
      const bool raw = (i % 2 == 0) != lib_first;
      CK(cudaEventRecord(e0, nullptr));
      call(r, raw, h, n, alpha, beta, ralpha, rbeta, a, b, raw ? c : c2);
      if (raw) CK(cudaStreamSynchronize(nullptr));
      CK(cudaEventRecord(e1, nullptr));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (i >= 2) (raw ? t_raw : t_lib).push_back(ms * 1000.0);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    const double raw = bench::median(t_raw), lib = bench::median(t_lib);
    std::printf("%s,%d,%.1f,%.1f,%.4f,%.2e\n", r.name, n, raw, lib, raw / lib, diff);
    std::fflush(stdout);
  }
  return 0;
}
