// The per-shape harness of the SGEMV probes (probe_sgemv_nlanes.cu, probe_sgemv_sweep.cu): y = A x
// for op(A) = A, unit strides, lda = m, alpha 1, beta 0, timed like bench_sgemv (median of
// event-timed calls after warm-ups, operand sets rotated over >= kRotateBytes).
// Not part of the CMake build: the probes are built by hand (see their headers).
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
#include "read_ceiling.h"

namespace bench {

// One shape: A (m x n) in nsets copies, x, one y per set; the constructor prints the cuBLAS and
// read-ceiling rows ("path,m,n,time_us,gbps,ratio_vs_cublas") and keeps cuBLAS's y as the reference.
class SgemvProbeShape {
 public:
  SgemvProbeShape(cublasHandle_t h, int m, int n, int reps)
      : m_(m), n_(n), reps_(reps), elems_(size_t(m) * n),
        nsets_(int(std::max<size_t>(2, (kRotateBytes + elems_ * 4 - 1) / (elems_ * 4)))) {
    CK(cudaMalloc(&a_, elems_ * 4 * nsets_));
    CK(cudaMalloc(&x_, size_t(n) * 4));
    CK(cudaMalloc(&y_, size_t(m) * 4 * nsets_));
    CK(cudaMalloc(&yref_, size_t(m) * 4));
    CK(cudaMalloc(&sink_, 4 * read_ceiling_blocks(elems_)));
    std::vector<float> ha(elems_), hx(n);
    uint32_t s = 12345u + m + n;
    auto rnd = [&] {
      s = s * 1664525u + 1013904223u;
      return float(int(s >> 9) % 2001 - 1000) / 1000.f + 0.0005f;
    };
    for (auto& v : ha) v = rnd();
    for (auto& v : hx) v = rnd();
    for (int k = 0; k < nsets_; ++k) CK(cudaMemcpy(a_ + elems_ * k, ha.data(), elems_ * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(x_, hx.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
    const float one = 1.f, zero = 0.f;
    auto cub = [&](int i) {
      if (cublasSgemv(h, CUBLAS_OP_N, m, n, &one, a(i), m, x_, 1, &zero, y(i), 1) != CUBLAS_STATUS_SUCCESS)
        std::abort();
    };
    cub(0);
    CK(cudaMemcpy(yref_, y_, size_t(m) * 4, cudaMemcpyDeviceToDevice));
    t_cublas_ = time_calls(cub, nsets_, reps_);
    std::printf("cublas,%d,%d,%.2f,%.1f,1.000\n", m, n, t_cublas_, gb() / t_cublas_);
    const double tr = time_calls([&](int i) { CK(read_ceiling(a(i), elems_, sink_, nullptr)); }, nsets_, reps_);
    std::printf("read-ceiling,%d,%d,%.2f,%.1f,%.3f\n", m, n, tr, gb() / tr, t_cublas_ / tr);
  }
  ~SgemvProbeShape() {
    CK(cudaFree(a_));
    CK(cudaFree(x_));
    CK(cudaFree(y_));
    CK(cudaFree(yref_));
    CK(cudaFree(sink_));
  }
  SgemvProbeShape(const SgemvProbeShape&) = delete;
  SgemvProbeShape& operator=(const SgemvProbeShape&) = delete;

  const float* a(int set) const { return a_ + elems_ * set; }
  const float* x() const { return x_; }
  float* y(int set) const { return y_ + size_t(m_) * set; }

  // run(set) computes y(set); checked once against cuBLAS (y poisoned first), then timed and
  // printed as "name,m,n,time_us,gbps,ratio", or "name,m,n,FAILED (...)".
  template <class Run>
  void check(const char* name, Run run) const {
    CK(cudaMemset(y_, 0xff, size_t(m_) * 4));
    run(0);
    CK(cudaDeviceSynchronize());
    std::vector<float> g(m_), r(m_);
    CK(cudaMemcpy(g.data(), y_, size_t(m_) * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(r.data(), yref_, size_t(m_) * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < m_; ++i) worst = std::max(worst, double(std::fabs(g[i] - r[i])) / (1.0 + std::fabs(r[i])));
    if (!(worst < 1e-5 * std::sqrt(double(n_)))) {
      std::printf("%s,%d,%d,FAILED (worst %.3g)\n", name, m_, n_, worst);
      return;
    }
    const double t = time_calls(run, nsets_, reps_);
    std::printf("%s,%d,%d,%.2f,%.1f,%.3f\n", name, m_, n_, t, gb() / t, t_cublas_ / t);
  }

 private:
  double gb() const { return elems_ * 4.0 / 1e3; }  // GB/s from microseconds
  int m_, n_, reps_;
  size_t elems_;
  int nsets_;
  float *a_ = nullptr, *x_ = nullptr, *y_ = nullptr, *yref_ = nullptr, *sink_ = nullptr;
  double t_cublas_ = 0;
};

}  // namespace bench
