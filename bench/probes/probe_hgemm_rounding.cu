// probe_hgemm_rounding: which cuBLAS configuration gives HGEMM with FP32 accumulation and ONE
// rounding to binary16, and at what speed. Decides the cuBLAS HGEMM path of libmyblas.
//
// Data: A, B random binary16 in [-1, 1]; C0 = -(A*B rounded to binary16), beta = 1, so the
// result is a small residual and any intermediate rounding of alpha*A*B to binary16 shows as
// many ulps of it. Error is reported in units of the bound
//   half a binary16 ulp of the exact result + (k+2) * 2 eps32 * sum|a||b|
// (<= 1: rounded once). Modes:
//   f16-default   GemmEx, C binary16, CUBLAS_DEFAULT_MATH
//   f16-nored     GemmEx, C binary16, DEFAULT | DISALLOW_REDUCED_PRECISION_REDUCTION
//   f32-scratch   GemmEx into an FP32 copy of C, then one rounding kernel (what myblas does)
// Timing: median of 20 event-timed calls with beta = 0.5 on random data, buffers reused.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { std::printf("cuBLAS %s: %d\n", #x, int(s_)); return 1; } } while (0)

__global__ void widen(const __half* s, float* d, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) d[i] = __half2float(s[i]);
}
__global__ void narrow(const float* s, __half* d, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) d[i] = __float2half_rn(s[i]);
}

enum Mode { kDefault, kNoRed, kScratch };
const char* kNames[] = {"f16-default", "f16-nored", "f32-scratch"};

int call(cublasHandle_t h, Mode mode, int m, int n, int k, float alpha, const __half* a, const __half* b,
         float beta, __half* c, float* c32) {
  CB(cublasSetMathMode(h, mode == kNoRed ? cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)
                                         : CUBLAS_DEFAULT_MATH));
  if (mode == kScratch) {
    const size_t cn = size_t(m) * n;
    if (beta != 0.f) widen<<<1024, 256>>>(c, c32, cn);
    CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, CUDA_R_16F, m, b, CUDA_R_16F, k, &beta,
                    c32, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    narrow<<<1024, 256>>>(c32, c, cn);
  } else {
    CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, CUDA_R_16F, m, b, CUDA_R_16F, k, &beta,
                    c, CUDA_R_16F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  return 0;
}

int main() {
  cublasHandle_t h;
  CB(cublasCreate(&h));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::printf("# accuracy: worst |err| / bound over C (<= 1 means rounded once), cancellation data, beta = 1\n");
  std::printf("m,n,k,mode,worst_ratio,elements_over_bound\n");
  struct S { int m, n, k; };
  for (S s : {S{16, 16, 16}, S{138, 8, 144}, S{64, 64, 256}, S{16, 4096, 4096}, S{512, 512, 4096}, S{1024, 1024, 1024}}) {
    const int m = s.m, n = s.n, k = s.k;
    std::vector<__half> ha(size_t(m) * k), hb(size_t(k) * n), hc(size_t(m) * n);
    for (auto& v : ha) v = __float2half(u(rng));
    for (auto& v : hb) v = __float2half(u(rng));
    std::vector<double> exact(size_t(m) * n), mag(size_t(m) * n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double acc = 0, t = 0;
        for (int l = 0; l < k; ++l) {
          const double p = double(__half2float(ha[i + size_t(l) * m])) * __half2float(hb[l + size_t(j) * k]);
          acc += p;
          t += std::fabs(p);
        }
        const __half c0 = __float2half(float(-acc));
        hc[i + size_t(j) * m] = c0;
        exact[i + size_t(j) * m] = acc + double(__half2float(c0));
        mag[i + size_t(j) * m] = t;
      }
    __half *a, *b, *c;
    float* c32;
    CK(cudaMalloc(&a, ha.size() * 2));
    CK(cudaMalloc(&b, hb.size() * 2));
    CK(cudaMalloc(&c, hc.size() * 2));
    CK(cudaMalloc(&c32, hc.size() * 4));
    CK(cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
    for (Mode mode : {kDefault, kNoRed, kScratch}) {
      CK(cudaMemcpy(c, hc.data(), hc.size() * 2, cudaMemcpyHostToDevice));
      if (call(h, mode, m, n, k, 1.f, a, b, 1.f, c, c32)) return 1;
      std::vector<__half> out(hc.size());
      CK(cudaMemcpy(out.data(), c, out.size() * 2, cudaMemcpyDeviceToHost));
      double worst = 0;
      long over = 0;
      for (size_t e = 0; e < out.size(); ++e) {
        const double bound = std::fabs(exact[e]) * std::ldexp(1.0, -11) + std::ldexp(1.0, -25) + (k + 2) * 2.0 * 1.1920929e-7 * mag[e];
        const double r = std::fabs(double(__half2float(out[e])) - exact[e]) / bound;
        worst = std::max(worst, r);
        over += r > 1.0;
      }
      std::printf("%d,%d,%d,%s,%.2f,%ld\n", m, n, k, kNames[mode], worst, over);
    }
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(c32);
  }
  // beta = 0: D = alpha*A*B rounded once, unless partial sums are rounded to binary16 on the
  // way (split-K). Random data; shapes with a long k invite split-K. Bound as above without C.
  std::printf("# beta = 0, random data: binary16 ulps from the once-rounded FP32-scratch result\n");
  std::printf("m,n,k,mode,worst_ulps,elements_more_than_1_ulp_off\n");
  for (S s : {S{16, 16, 16}, S{16, 16, 65536}, S{64, 64, 16384}, S{128, 8, 32768}, S{1000, 1000, 1000},
              S{4096, 64, 8192}, S{127, 129, 1031}}) {
    const int m = s.m, n = s.n, k = s.k;
    std::vector<__half> ha(size_t(m) * k), hb(size_t(k) * n);
    for (auto& v : ha) v = __float2half(u(rng));
    for (auto& v : hb) v = __float2half(u(rng));
    __half *a, *b, *c;
    float* c32;
    CK(cudaMalloc(&a, ha.size() * 2));
    CK(cudaMalloc(&b, hb.size() * 2));
    CK(cudaMalloc(&c, size_t(m) * n * 2));
    CK(cudaMalloc(&c32, size_t(m) * n * 4));
    CK(cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
    // The FP32-scratch result (one rounding of an FP32 sum) is the yardstick: an FP16-output
    // mode that rounds once differs from it by at most 1 ulp (a different summation order);
    // more means a binary16 rounding on the way.
    std::vector<__half> ref(size_t(m) * n);
    if (call(h, kScratch, m, n, k, 1.f, a, b, 0.f, c, c32)) return 1;
    CK(cudaMemcpy(ref.data(), c, ref.size() * 2, cudaMemcpyDeviceToHost));
    for (Mode mode : {kDefault, kNoRed}) {
      CK(cudaMemset(c, 0xff, size_t(m) * n * 2));
      if (call(h, mode, m, n, k, 1.f, a, b, 0.f, c, c32)) return 1;
      std::vector<__half> out(size_t(m) * n);
      CK(cudaMemcpy(out.data(), c, out.size() * 2, cudaMemcpyDeviceToHost));
      long worst_ulps = 0, over1 = 0;
      for (size_t e = 0; e < out.size(); ++e) {
        uint16_t x, y;
        std::memcpy(&x, &out[e], 2);
        std::memcpy(&y, &ref[e], 2);
        // ulp distance of two binary16 values on a monotone integer scale
        const long ix = (x & 0x8000) ? -long(x & 0x7fff) : long(x), iy = (y & 0x8000) ? -long(y & 0x7fff) : long(y);
        const long d = ix > iy ? ix - iy : iy - ix;
        worst_ulps = std::max(worst_ulps, d);
        over1 += d > 1;
      }
      std::printf("%d,%d,%d,%s,%ld,%ld\n", m, n, k, kNames[mode], worst_ulps, over1);
    }
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(c32);
  }
  std::printf("# speed: median us of 20 calls, random data, beta = 0.5 (f32-scratch includes widen + round kernels)\n");
  std::printf("m,n,k,mode,time_us,tflops\n");
  for (int sz : {1024, 4096, 8192}) {
    const size_t nn = size_t(sz) * sz;
    __half *a, *b, *c;
    float* c32;
    CK(cudaMalloc(&a, nn * 2)); CK(cudaMalloc(&b, nn * 2)); CK(cudaMalloc(&c, nn * 2)); CK(cudaMalloc(&c32, nn * 4));
    std::vector<__half> hv(nn);
    for (auto& v : hv) v = __float2half(u(rng));
    CK(cudaMemcpy(a, hv.data(), nn * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hv.data(), nn * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c, hv.data(), nn * 2, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (Mode mode : {kDefault, kNoRed, kScratch}) {
      for (int w = 0; w < 3; ++w) call(h, mode, sz, sz, sz, 1.f, a, b, 0.5f, c, c32);
      std::vector<float> t;
      for (int r = 0; r < 20; ++r) {
        cudaEventRecord(e0);
        call(h, mode, sz, sz, sz, 1.f, a, b, 0.5f, c, c32);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 1000);
      }
      std::sort(t.begin(), t.end());
      std::printf("%d,%d,%d,%s,%.1f,%.1f\n", sz, sz, sz, kNames[mode], t[10], 2.0 * sz * sz * double(sz) / t[10] / 1e6);
    }
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(c32);
  }
  // Beta = 0 on the shapes where the library's cuBLAS HGEMM (f16-nored) trailed raw cuBLAS
  // (f16-default) by about 6 us in bench_gemm_beta: small k and skinny. The two modes alternate
  // call by call (21 each, after 3 warm-ups each); operands of the largest shape, reused.
  std::printf("# speed, beta = 0, alternating: median us of 21 calls per mode\n");
  std::printf("m,n,k,mode,time_us,tflops\n");
  {
    const size_t elems = size_t(8192) * 8192;
    __half *a, *b, *c;
    CK(cudaMalloc(&a, elems * 2)); CK(cudaMalloc(&b, elems * 2)); CK(cudaMalloc(&c, elems * 2));
    std::vector<__half> hv(elems);
    for (auto& v : hv) v = __float2half(u(rng));
    CK(cudaMemcpy(a, hv.data(), elems * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hv.data(), elems * 2, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (S s : {S{4096, 4096, 64}, S{4096, 4096, 128}, S{4096, 4096, 256}, S{4096, 4096, 512}, S{8192, 8192, 64},
                S{8192, 8192, 256}, S{16, 4096, 4096}, S{64, 4096, 4096}, S{256, 4096, 4096}, S{4096, 16, 4096}}) {
      std::vector<float> t[2];
      for (int r = 0; r < 24; ++r)
        for (Mode mode : {kDefault, kNoRed}) {
          cudaEventRecord(e0);
          if (call(h, mode, s.m, s.n, s.k, 1.f, a, b, 0.f, c, nullptr)) return 1;
          cudaEventRecord(e1);
          cudaEventSynchronize(e1);
          float ms; cudaEventElapsedTime(&ms, e0, e1);
          if (r >= 3) t[mode].push_back(ms * 1000);
        }
      for (Mode mode : {kDefault, kNoRed}) {
        std::sort(t[mode].begin(), t[mode].end());
        const double us = t[mode][t[mode].size() / 2];
        std::printf("%d,%d,%d,%s,%.1f,%.1f\n", s.m, s.n, s.k, kNames[mode], us, 2.0 * s.m * s.n * double(s.k) / us / 1e6);
      }
    }
    cudaFree(a); cudaFree(b); cudaFree(c);
  }
  cublasDestroy(h);
  return 0;
}
