// Shared by the small-k SGEMM probes (probe_smallk_quad.cu, probe_smallk_ws.cu): one NT problem's
// operand sets rotated over >= 256 MiB, cublasSgemm and the library's smallk_panel_pre on a set,
// and the check against cuBLAS. NT: A m x k (lda = m), B n x k (ldb = n), C m x n (ldc = m).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_util.h"
#include "core/problem.h"
#include "kernels/sgemm.h"

namespace probe_smallk {

struct Sets {
  int m, n, k, count;
  size_t ea, eb, ec;  // floats of one set's A, B and C
  float *a = nullptr, *b = nullptr, *c = nullptr;
  // Values in [-1, 1] (never 0) from a fixed seed; C starts at c_offset into the same stream.
  Sets(int m_, int n_, int k_, size_t c_offset) : m(m_), n(n_), k(k_) {
    ea = size_t(m) * k, eb = size_t(n) * k, ec = size_t(m) * n;
    const size_t set_bytes = (ea + eb + ec) * 4;
    count = int(std::max<size_t>(2, (bench::kRotateBytes + set_bytes - 1) / set_bytes));
    CK(cudaMalloc(&a, ea * 4 * count));
    CK(cudaMalloc(&b, eb * 4 * count));
    CK(cudaMalloc(&c, ec * 4 * count));
    std::vector<float> hv(std::max(ea, ec) + 8);
    uint32_t s = 777u + m;
    for (auto& v : hv) {
      s = s * 1664525u + 1013904223u;
      v = float(int(s >> 9) % 2001 - 1000) / 1000.f + 0.0005f;
    }
    for (int i = 0; i < count; ++i) {
      CK(cudaMemcpy(a + ea * i, hv.data(), ea * 4, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(b + eb * i, hv.data() + 7, eb * 4, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(c + ec * i, hv.data() + c_offset, ec * 4, cudaMemcpyHostToDevice));
    }
  }
  ~Sets() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  float* A(int i) const { return a + ea * i; }
  float* B(int i) const { return b + eb * i; }
  float* C(int i) const { return c + ec * i; }
};

inline void cublas_nt(cublasHandle_t h, const Sets& d, int i, float alpha, float beta) {
  if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, d.m, d.n, d.k, &alpha, d.A(i), d.m, d.B(i), d.n, &beta, d.C(i), d.m) !=
      CUBLAS_STATUS_SUCCESS)
    std::abort();
}

inline void smallk_panel_pre_nt(const Sets& d, int i, float alpha, float beta) {
  myblas::GemmProblem p;
  p.ta = myblas::Op::N;
  p.tb = myblas::Op::T;
  p.m = d.m;
  p.n = d.n;
  p.k = d.k;
  p.alpha = alpha;
  p.beta = beta;
  p.a = d.A(i);
  p.b = d.B(i);
  p.c = d.C(i);
  p.lda = d.m;
  p.ldb = d.n;
  p.ldc = d.m;
  p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
  CK(myblas::sgemm_run(myblas::SgemmKernel::smallk_panel_pre, p, nullptr));
}

// Runs `run` on set 0 (C first restored from c0, or set to NaN when nan_c) and compares with want:
// worst |got - want| / (1 + |want|) must be < 1e-4 (NaN counts as a failure). C is restored after.
template <class Run>
bool check(const char* name, const Sets& d, float beta, bool nan_c, const std::vector<float>& c0,
           const std::vector<float>& want, Run run) {
  if (nan_c) CK(cudaMemset(d.c, 0xff, d.ec * 4));
  else CK(cudaMemcpy(d.c, c0.data(), d.ec * 4, cudaMemcpyHostToDevice));
  run(0);
  CK(cudaDeviceSynchronize());
  std::vector<float> got(d.ec);
  CK(cudaMemcpy(got.data(), d.c, d.ec * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (size_t i = 0; i < d.ec; ++i) {
    const double e = std::fabs(double(got[i]) - want[i]) / (1.0 + std::fabs(want[i]));
    if (!(e <= worst)) worst = std::isnan(e) ? INFINITY : e;
  }
  CK(cudaMemcpy(d.c, c0.data(), d.ec * 4, cudaMemcpyHostToDevice));
  if (!(worst < 1e-4)) {
    std::printf("%s,%d,%d,%d,%.1f,FAILED (worst %.3g)\n", name, d.m, d.n, d.k, beta, worst);
    return false;
  }
  return true;
}

}  // namespace probe_smallk
