// probe_cublas_math: does the math mode the library sets on its cuBLAS handle for FP32 routines
// (CUBLAS_PEDANTIC_MATH, so that NVIDIA_TF32_OVERRIDE=1 cannot turn SGEMM into TF32) cost time
// against CUBLAS_DEFAULT_MATH (with and without CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)?
// Earlier runs compared them only at 4096^3 and 8192^3 (h100-dispatch-2026-11-22.md: no cost).
//
// For each shape: the three handles run the same calls on the same operands (sets rotated over
// >= 256 MiB, random data), event-timed one call at a time; the modes alternate in blocks of
// `reps` calls, 5 blocks each, and each mode's figure is the median of its block medians. The
// outputs of one call per mode (beta = 0, NaN in C first) are compared bitwise: equal outputs
// mean the same algorithm ran.
//   probe_cublas_math [--reps=N]    CSV on stdout
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"

namespace {

struct Shape {
  const char* routine;  // "sgemm" or "sgemv"
  char ta, tb;
  int m, n, k;
  float beta;
};

const cublasMath_t kModes[3] = {CUBLAS_PEDANTIC_MATH,
                                cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION),
                                CUBLAS_DEFAULT_MATH};

using bench::median;

void run_shape(cublasHandle_t (&h)[3], const bench::Source& src, const Shape& s, int reps) {
  const bool gemv = s.routine[4] == 'v';
  const cublasOperation_t ta = s.ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t tb = s.tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  // Operand sizes (column-major, lda = rows as stored).
  const int ar = gemv ? s.m : (s.ta == 'N' ? s.m : s.k), ac = gemv ? s.n : (s.ta == 'N' ? s.k : s.m);
  const int br = s.tb == 'N' ? s.k : s.n, bc = s.tb == 'N' ? s.n : s.k;
  const int lx = s.ta == 'N' ? s.n : s.m, ly = s.ta == 'N' ? s.m : s.n;
  const size_t na = size_t(ar) * ac, nb = gemv ? size_t(lx) : size_t(br) * bc, nc = gemv ? size_t(ly) : size_t(s.m) * s.n;
  const size_t per = (na + nb + nc + 63) / 64 * 64;
  const int nsets = int(std::max<size_t>(2, std::min<size_t>(1024, (bench::kRotateBytes / 4 + per - 1) / per)));
  float* base;
  CK(cudaMalloc(&base, per * nsets * sizeof(float)));
  for (int i = 0; i < nsets; ++i) src.fill(base + per * i, per, size_t(i) * 131 + size_t(s.m) + size_t(s.k));
  auto A = [&](int i) { return base + per * i; };
  auto B = [&](int i) { return base + per * i + na; };
  auto C = [&](int i) { return base + per * i + na + nb; };
  const float alpha = 1.f;
  auto call = [&](int mode, int i, float beta, float* c) {
    if (gemv)
      CB(cublasSgemv(h[mode], ta, s.m, s.n, &alpha, A(i), ar, B(i), 1, &beta, c, 1));
    else
      CB(cublasSgemm(h[mode], ta, tb, s.m, s.n, s.k, &alpha, A(i), ar, B(i), br, &beta, c, s.m));
  };
  // Bitwise comparison of one beta = 0 call per mode.
  std::vector<std::vector<float>> out(3, std::vector<float>(nc));
  float* cout;
  CK(cudaMalloc(&cout, nc * sizeof(float)));
  for (int mode = 0; mode < 3; ++mode) {
    CK(cudaMemset(cout, 0xff, nc * sizeof(float)));
    call(mode, 0, 0.f, cout);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out[size_t(mode)].data(), cout, nc * sizeof(float), cudaMemcpyDeviceToHost));
  }
  CK(cudaFree(cout));
  const bool same1 = std::memcmp(out[0].data(), out[1].data(), nc * sizeof(float)) == 0;
  const bool same2 = std::memcmp(out[0].data(), out[2].data(), nc * sizeof(float)) == 0;
  // Timing, modes alternating in blocks.
  std::vector<double> blocks[3];
  for (int round = 0; round < 5; ++round)
    for (int mode = 0; mode < 3; ++mode)
      blocks[mode].push_back(bench::time_calls([&](int i) { call(mode, i, s.beta, C(i)); }, nsets, reps));
  const double t0 = median(blocks[0]), t1 = median(blocks[1]), t2 = median(blocks[2]);
  std::printf("%s,%c%c,%d,%d,%d,%g,%.2f,%.2f,%.2f,%.3f,%.3f,%s,%s\n", s.routine, s.ta, gemv ? '-' : s.tb, s.m, s.n,
              gemv ? 0 : s.k, s.beta, t0, t1, t2, t0 / t1, t0 / t2, same1 ? "yes" : "no", same2 ? "yes" : "no");
  std::fflush(stdout);
  CK(cudaFree(base));
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--reps=", 7)) reps = std::max(3, std::atoi(argv[i] + 7));
    else {
      std::fprintf(stderr, "probe_cublas_math: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "probe_cublas_math: no usable CUDA device\n");
    return 2;
  }
  std::printf("# probe_cublas_math: cuBLAS FP32 time under the three math modes, device pointers\n");
  bench::print_device_and_command(argc, argv);
  std::printf("# median of 5 block medians of %d event-timed calls per mode, modes alternating block by block;"
              " operand sets rotated over >= 256 MiB; alpha = 1; equal_*: one beta = 0 call's C bitwise equal to"
              " pedantic's\n", reps);
  std::printf("routine,trans,m,n,k,beta,pedantic_us,default_noreduced_us,default_us,ratio_noreduced,ratio_default,"
              "equal_noreduced,equal_default\n");
  cublasHandle_t h[3];
  for (int i = 0; i < 3; ++i) {
    CB(cublasCreate(&h[i]));
    CB(cublasSetMathMode(h[i], kModes[i]));
  }
  bench::Source src;
  const Shape shapes[] = {
      {"sgemm", 'N', 'N', 64, 64, 64, 0.f},          {"sgemm", 'N', 'N', 127, 129, 1031, 0.f},
      {"sgemm", 'N', 'N', 256, 256, 256, 0.f},       {"sgemm", 'N', 'N', 512, 512, 512, 0.f},
      {"sgemm", 'N', 'N', 1000, 1000, 1000, 0.f},    {"sgemm", 'N', 'N', 1000, 1000, 1000, 0.5f},
      {"sgemm", 'T', 'N', 1000, 1000, 1000, 0.f},    {"sgemm", 'N', 'T', 1000, 1000, 1000, 0.f},
      {"sgemm", 'N', 'N', 1024, 1024, 1024, 0.f},    {"sgemm", 'N', 'N', 2048, 2048, 2048, 0.f},
      {"sgemm", 'N', 'N', 4096, 4096, 4096, 0.f},    {"sgemm", 'T', 'T', 4096, 4096, 4096, 0.f},
      {"sgemm", 'N', 'N', 16, 4096, 4096, 0.f},      {"sgemm", 'N', 'N', 4096, 16, 4096, 0.f},
      {"sgemm", 'N', 'N', 128, 4096, 4096, 0.f},     {"sgemm", 'N', 'N', 4096, 4096, 128, 0.f},
      {"sgemm", 'N', 'N', 8192, 8192, 64, 0.5f},     {"sgemm", 'N', 'N', 300, 5000, 700, 0.f},
      {"sgemv", 'N', '-', 1024, 1024, 0, 0.f},       {"sgemv", 'T', '-', 1024, 1024, 0, 0.f},
      {"sgemv", 'N', '-', 4096, 4096, 0, 0.f},       {"sgemv", 'T', '-', 4096, 4096, 0, 0.f},
      {"sgemv", 'N', '-', 1000, 100000, 0, 0.f},     {"sgemv", 'T', '-', 64, 1048576, 0, 0.f},
  };
  for (const Shape& s : shapes) run_shape(h, src, s, reps);
  for (auto& x : h) cublasDestroy(x);
  return 0;
}
