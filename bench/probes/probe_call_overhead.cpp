// probe_call_overhead: the host time libmyblas adds to a device-operand call, beside the same
// work called directly (cuBLAS, or our kernel through myblas_kernels), and what the CUDA and
// cuBLAS calls on the library's path cost on their own. Finds where the small calls of
// `bench_blas --quality` lose their 0.7-4 us (bench/results/h100-dispatch-v5-2026-11-22.md).
//
// Every timed call returns with its result complete (the direct forms synchronise, as the
// library does for the default stream), so the GPU is idle when the next call starts and the
// host time before the launch shows in full. Pairs run in alternating blocks; the table prints
// each side's median block mean.
//   probe_call_overhead            the table (CSV)
//   probe_call_overhead --once     one call of each library form (run with MYBLAS_VERBOSE=1)
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_util.h"
#include "kernels/scale.h"
#include "kernels/sgemv.h"
#include "myblas.h"

namespace {
using clk = std::chrono::steady_clock;

double block_ns(const std::function<void()>& f, int reps) {
  const auto t0 = clk::now();
  for (int i = 0; i < reps; ++i) f();
  return std::chrono::duration<double, std::nano>(clk::now() - t0).count() / reps;
}

using bench::median;

// Direct and library forms of one call, alternated block by block.
void pair(const char* what, const std::function<void()>& direct, const std::function<void()>& mine,
          int reps = 100, int blocks = 15) {
  for (int i = 0; i < 20; ++i) {
    direct();
    mine();
  }
  std::vector<double> d, m;
  for (int b = 0; b < blocks; ++b) {
    d.push_back(block_ns(direct, reps));
    m.push_back(block_ns(mine, reps));
  }
  const double md = median(d), mm = median(m);
  std::printf("pair,\"%s\",%.0f,%.0f,%.0f\n", what, md, mm, mm - md);
  std::fflush(stdout);
}

void single(const char* what, const std::function<void()>& f, int reps = 20000) {
  for (int i = 0; i < 200; ++i) f();
  std::vector<double> v;
  for (int b = 0; b < 9; ++b) v.push_back(block_ns(f, reps / 9 + 1));
  std::printf("single,\"%s\",%.0f,,\n", what, median(v));
  std::fflush(stdout);
}

// Per-call medians with the host caches cold or hot: before each timed call, `flush` (when
// set) writes a buffer larger than the host's last-level cache, as the other paths between two
// library calls of `bench_blas --quality` do; only the call itself is timed.
std::vector<char> g_flush_buf(size_t(64) << 20);
void flush_host_caches() {
  static char v = 0;
  std::memset(g_flush_buf.data(), ++v, g_flush_buf.size());
}
double call_ns(const std::function<void()>& f, bool cold) {
  if (cold) flush_host_caches();
  const auto t0 = clk::now();
  f();
  return std::chrono::duration<double, std::nano>(clk::now() - t0).count();
}
void cold_pair(const char* what, const std::function<void()>& direct, const std::function<void()>& mine,
               bool cold, int calls = 150) {
  for (int i = 0; i < 10; ++i) {
    direct();
    mine();
  }
  std::vector<double> d, m;
  for (int i = 0; i < calls; ++i) {
    d.push_back(call_ns(direct, cold));
    m.push_back(call_ns(mine, cold));
  }
  const double md = median(d), mm = median(m);
  std::printf("%s,\"%s\",%.0f,%.0f,%.0f\n", cold ? "cold" : "hot", what, md, mm, mm - md);
  std::fflush(stdout);
}
void cold_single(const char* what, const std::function<void()>& f, bool cold, int calls = 150) {
  for (int i = 0; i < 10; ++i) f();
  std::vector<double> v;
  for (int i = 0; i < calls; ++i) v.push_back(call_ns(f, cold));
  std::printf("%s-single,\"%s\",%.0f,,\n", cold ? "cold" : "hot", what, median(v));
  std::fflush(stdout);
}

// Device buffers of random values in [-1, 1], never 0 (bench_util.h's sources; `salt` picks
// where in the source a buffer starts).
float* device_floats(size_t n, unsigned salt) {
  static const bench::Source source;
  float* d = nullptr;
  CK(cudaMalloc(&d, n * 4));
  source.fill(d, n, salt);
  return d;
}

uint16_t* device_halves(size_t n, unsigned salt) {
  static const bench::RandomSource<uint16_t> source([](float f) { return myblas_float_to_half(f); },
                                                    [](uint16_t v) { return (v & 0x7fffu) == 0; });
  uint16_t* d = nullptr;
  CK(cudaMalloc(&d, n * 2));
  source.fill(d, n, salt);
  return d;
}

struct Gemm {
  int m, n, k;
  float beta;
};

}  // namespace

int main(int argc, char** argv) {
  const bool once = argc > 1 && std::strcmp(argv[1], "--once") == 0;
  CK(cudaFree(nullptr));
  cublasHandle_t hs, hh;
  CB(cublasCreate(&hs));
  CB(cublasCreate(&hh));
  CB(cublasSetMathMode(hs, CUBLAS_PEDANTIC_MATH));
  CB(cublasSetMathMode(hh, cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  const float one = 1.f;
  const int inc = 1;
  const char N = 'N', T = 'T';

  if (argc > 1 && std::strcmp(argv[1], "--cold") == 0) {
    std::printf("# probe_call_overhead --cold: host ns per call, median of 150 single calls, with the host caches"
                " hot or flushed (64 MiB written) before each call; direct forms synchronise with cudaDeviceSynchronize"
                " as bench_blas --quality does\n");
    std::printf("kind,what,direct_ns,myblas_ns,added_ns\n");
    float* p1 = device_floats(4096, 11);
    float* p2 = device_floats(4096, 12);
    float* p3 = device_floats(4096, 13);
    bench::PointerQuery query;
    int dev = 0;
    const int g64 = 64, g127 = 127, g129 = 129, g1031 = 1031, g256 = 256;
    const float zero = 0.f;
    float* a = device_floats(size_t(g127) * g1031, 2);
    float* b = device_floats(size_t(g1031) * g129, 3);
    float* c = device_floats(size_t(g127) * g129, 4);
    myblas::GemvProblem p;
    p.ta = myblas::Op::T;
    p.m = p.n = p.lda = g256;
    p.a = a;
    p.x = b;
    p.y = c;
    p.mem_a = p.mem_x = p.mem_y = myblas::Mem::device;
    p.dev_a = p.dev_x = p.dev_y = p.device = 0;
    for (bool is_cold : {false, true}) {
      if (query)
        cold_single("cuPointerGetAttributes(3 attributes) x3, three device allocations", [&] {
          query(p1);
          query(p2);
          query(p3);
        }, is_cold);
      cold_single("cudaGetDevice x2", [&] { cudaGetDevice(&dev); cudaGetDevice(&dev); }, is_cold);
      cold_single("cudaStreamSynchronize(0), GPU idle", [] { cudaStreamSynchronize(nullptr); }, is_cold);
      cold_single("cudaDeviceSynchronize, GPU idle", [] { cudaDeviceSynchronize(); }, is_cold);
      cold_pair("sgemm NN 64x64x64 beta 0", [&] {
        cublasSgemm(hs, CUBLAS_OP_N, CUBLAS_OP_N, g64, g64, g64, &one, a, g64, b, g64, &zero, c, g64);
        cudaDeviceSynchronize();
      }, [&] { sgemm_(&N, &N, &g64, &g64, &g64, &one, a, &g64, b, &g64, &zero, c, &g64); }, is_cold);
      cold_pair("sgemm NN 127x129x1031 beta 0", [&] {
        cublasSgemm(hs, CUBLAS_OP_N, CUBLAS_OP_N, g127, g129, g1031, &one, a, g127, b, g1031, &zero, c, g127);
        cudaDeviceSynchronize();
      }, [&] { sgemm_(&N, &N, &g127, &g129, &g1031, &one, a, &g127, b, &g1031, &zero, c, &g127); }, is_cold);
      cold_pair("sgemv T 256x256 (direct: warp_per_column)", [&] {
        myblas::sgemv_run(myblas::SgemvKernel::warp_per_column, p, nullptr);
        cudaDeviceSynchronize();
      }, [&] { sgemv_(&T, &g256, &g256, &one, a, &g256, b, &inc, &zero, c, &inc); }, is_cold);
    }
    return 0;
  }
  if (!once) {
    std::printf("# probe_call_overhead: host ns per call (call + its synchronisation), median of 15 block means of 100 calls; pairs alternate block by block\n");
    std::printf("kind,what,direct_ns,myblas_ns,added_ns\n");
    // What the library's path calls, one at a time.
    single("cudaStreamSynchronize(0), GPU idle", [] { cudaStreamSynchronize(nullptr); });
    int dev = 0;
    single("cudaGetDevice", [&] { cudaGetDevice(&dev); });
    float* dp = device_floats(1024, 1);
    bench::PointerQuery query;
    if (query) single("cuPointerGetAttributes(3 attributes), device pointer", [&] { query(dp); });
    single("cublasSetMathMode + cublasSetStream(0)", [&] {
      cublasSetMathMode(hs, CUBLAS_PEDANTIC_MATH);
      cublasSetStream(hs, nullptr);
    });
    single("cublasSetStream(0)", [&] { cublasSetStream(hs, nullptr); });
    single("cudaMallocAsync + cudaFreeAsync 4 MB (default pool, stream 0)", [&] {
      void* p = nullptr;
      cudaMallocAsync(&p, 4 << 20, nullptr);
      cudaFreeAsync(p, nullptr);
    });
    single("empty launch (cublasSscal n=1) + cudaStreamSynchronize(0)", [&] {
      cublasSscal(hs, 1, &one, dp, 1);
      cudaStreamSynchronize(nullptr);
    }, 5000);
  }

  if (!once) {
    // cuBLAS alone: a handle given cublasSetStream(0) once (as the library's is), beside one
    // that never was (cublasSetStream resets the handle's workspace to the default pool).
    cublasHandle_t h2;
    CB(cublasCreate(&h2));
    CB(cublasSetMathMode(h2, CUBLAS_PEDANTIC_MATH));
    CB(cublasSetStream(h2, nullptr));
    for (const Gemm g : {Gemm{64, 64, 64, 0.f}, Gemm{127, 129, 1031, 0.f}, Gemm{128, 4096, 4096, 0.f}}) {
      float* a = device_floats(size_t(g.m) * g.k, 2);
      float* b = device_floats(size_t(g.k) * g.n, 3);
      float* c = device_floats(size_t(g.m) * g.n, 4);
      auto with = [&](cublasHandle_t h) {
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, g.m, g.n, g.k, &one, a, g.m, b, g.k, &g.beta, c, g.m);
        cudaStreamSynchronize(nullptr);
      };
      pair(("cublasSgemm " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) +
            ": handle never given a stream (direct) vs given cublasSetStream(0) (myblas column)").c_str(),
           [&] { with(hs); }, [&] { with(h2); });
      cudaFree(a);
      cudaFree(b);
      cudaFree(c);
    }
    cublasDestroy(h2);
  }

  // SGEMM and HGEMM through cuBLAS (the shapes where auto runs cuBLAS and missed 5%; 1000^3 and
  // 128x4096x4096 lost 8-19 us on one machine in h100-dispatch-v9-2026-11-26.md).
  for (const Gemm g : {Gemm{64, 64, 64, 0.f}, Gemm{64, 64, 64, 0.5f}, Gemm{127, 129, 1031, 0.f},
                       Gemm{1024, 1024, 1024, 0.f}, Gemm{1000, 1000, 1000, 0.f}, Gemm{128, 4096, 4096, 0.f}}) {
    float* a = device_floats(size_t(g.m) * g.k, 2);
    float* b = device_floats(size_t(g.k) * g.n, 3);
    float* c = device_floats(size_t(g.m) * g.n, 4);
    auto direct = [&] {
      cublasSgemm(hs, CUBLAS_OP_N, CUBLAS_OP_N, g.m, g.n, g.k, &one, a, g.m, b, g.k, &g.beta, c, g.m);
      cudaStreamSynchronize(nullptr);
    };
    auto mine = [&] { sgemm_(&N, &N, &g.m, &g.n, &g.k, &one, a, &g.m, b, &g.k, &g.beta, c, &g.m); };
    const std::string what = "sgemm NN " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" +
                             std::to_string(g.k) + " beta " + (g.beta == 0.f ? "0" : "0.5") + " (" +
                             myblas_last_path() + ")";
    if (once) {
      mine();
      std::printf("%s\n", what.c_str());
    } else {
      mine();
      pair(("sgemm NN " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) +
            " beta " + (g.beta == 0.f ? "0" : "0.5") + " path " + myblas_last_path()).c_str(),
           direct, mine);
    }
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  for (const Gemm g : {Gemm{1024, 1024, 1024, 0.f}, Gemm{1024, 1024, 1024, 0.5f}, Gemm{127, 129, 1031, 0.5f}}) {
    uint16_t* a = device_halves(size_t(g.m) * g.k, 5);
    uint16_t* b = device_halves(size_t(g.k) * g.n, 6);
    uint16_t* c = device_halves(size_t(g.m) * g.n, 7);
    float* scratch = nullptr;
    CK(cudaMalloc(&scratch, size_t(g.m) * g.n * 4));
    const uint16_t halpha = myblas_float_to_half(1.f), hbeta = myblas_float_to_half(g.beta);
    auto direct = [&] {
      if (g.beta != 0.f) {  // the library's round-once form, with a scratch kept across calls
        myblas::widen_f16_f32(c, g.m, scratch, g.m, g.m, g.n, nullptr);
        cublasGemmEx(hh, CUBLAS_OP_N, CUBLAS_OP_N, g.m, g.n, g.k, &one, a, CUDA_R_16F, g.m, b, CUDA_R_16F, g.k,
                     &g.beta, scratch, CUDA_R_32F, g.m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        myblas::round_f32_f16(scratch, g.m, c, g.m, g.m, g.n, nullptr);
      } else {
        cublasGemmEx(hh, CUBLAS_OP_N, CUBLAS_OP_N, g.m, g.n, g.k, &one, a, CUDA_R_16F, g.m, b, CUDA_R_16F, g.k,
                     &g.beta, c, CUDA_R_16F, g.m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      }
      cudaStreamSynchronize(nullptr);
    };
    auto mine = [&] { hgemm_(&N, &N, &g.m, &g.n, &g.k, &halpha, a, &g.m, b, &g.k, &hbeta, c, &g.m); };
    mine();
    const std::string what = "hgemm NN " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" +
                             std::to_string(g.k) + " beta " + (g.beta == 0.f ? "0" : "0.5") + " path " +
                             myblas_last_path();
    if (once) std::printf("%s\n", what.c_str());
    else pair(what.c_str(), direct, mine);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(scratch);
  }

  // SGEMV: our kernel called directly (the kernel auto takes) against the library call.
  struct Gemv {
    char t;
    int m, n;
    myblas::SgemvKernel k;
  };
  for (const Gemv g : {Gemv{'T', 256, 256, myblas::SgemvKernel::warp_per_column},
                       Gemv{'N', 1024, 1024, myblas::SgemvKernel::n_rowblock_cluster},
                       Gemv{'N', 64, 1048576, myblas::SgemvKernel::n_rowblock_split}}) {
    float* a = device_floats(size_t(g.m) * g.n, 8);
    const int lx = g.t == 'N' ? g.n : g.m, ly = g.t == 'N' ? g.m : g.n;
    float* x = device_floats(size_t(lx), 9);
    float* y = device_floats(size_t(ly), 10);
    const float zero = 0.f;
    myblas::GemvProblem p;
    p.ta = g.t == 'N' ? myblas::Op::N : myblas::Op::T;
    p.m = g.m;
    p.n = g.n;
    p.alpha = 1.f;
    p.beta = 0.f;
    p.a = a;
    p.x = x;
    p.y = y;
    p.lda = g.m;
    p.mem_a = p.mem_x = p.mem_y = myblas::Mem::device;
    p.dev_a = p.dev_x = p.dev_y = p.device = 0;
    auto direct = [&] {
      myblas::sgemv_run(g.k, p, nullptr);
      cudaStreamSynchronize(nullptr);
    };
    auto mine = [&] { sgemv_(&g.t, &g.m, &g.n, &one, a, &g.m, x, &inc, &zero, y, &inc); };
    mine();
    const std::string what = std::string("sgemv ") + g.t + " " + std::to_string(g.m) + "x" + std::to_string(g.n) +
                             " direct " + myblas::sgemv_kernel_name(g.k) + " path " + myblas_last_path();
    if (once) std::printf("%s\n", what.c_str());
    else pair(what.c_str(), direct, mine, g.m * size_t(g.n) > 10000000 ? 20 : 100);
    cudaFree(a);
    cudaFree(x);
    cudaFree(y);
  }
  cublasDestroy(hs);
  cublasDestroy(hh);
  return 0;
}
