// The GPU paths: cuBLAS, or our kernels. Device operands are used in place; host operands are copied in and out
// honouring their leading dimensions or increments; C (or y) is uploaded only when beta != 0.
#pragma once
#include <cublas_v2.h>

#include <cstring>
#include <string>

#include "core/batch.h"
#include "core/problem.h"
#include "kernels/hgemm.h"
#include "kernels/sgemm.h"
#include "kernels/sgemv.h"

namespace myblas {

// false (with *why) when any CUDA or cuBLAS step failed before the result was written:
// the caller then completes the call on the CPU.
// tf32x3: an SGEMM's product runs by the 3xTF32 split on the tensor cores where it can
// (backends/cuda/sgemm_tf32x3.h; dispatch asks for it). Under MYBLAS_SGEMM_PRECISION=tf32x3-all
// every SGEMM product here does, the host-array pipeline's tiles included.
bool cublas_gemm(const GemmProblem& p, std::string* why, bool tf32x3 = false);
// The same staging around one of our SGEMM kernels (src/kernels/sgemm.h) instead of cuBLAS.
bool kernel_gemm(const GemmProblem& p, SgemmKernel k, std::string* why);
// The same staging around one of our HGEMM kernels (src/kernels/hgemm.h) instead of cuBLAS.
bool kernel_hgemm(const GemmProblem& p, HgemmKernel k, std::string* why);
bool cublas_gemv(const GemvProblem& p, std::string* why);
// Every other routine (BlasProblem) on cuBLAS: device operands in place, host operands staged
// (GEMM on host arrays through the pipelined path).
bool cublas_blas_problem(const BlasProblem& p, std::string* why);
// Whether the environment sets NVIDIA_TF32_OVERRIDE to anything but 0 (read once): cuBLAS then
// runs FP32 GEMMs in its default math mode on the TF32 tensor cores (measured on the H100: 20x
// over the FP32 error bound).
bool tf32_override_in_environment();
// The cuBLAS math mode for element type t. The default mode, whose FP32 and FP64 kernels are FP32
// and FP64 arithmetic (FP64 tensor cores included), except for FP32 data (S, C) when the
// environment asks for TF32: then CUBLAS_PEDANTIC_MATH, which that variable cannot change.
// Pedantic mode can cost speed where it is not needed (DGEMM 4096 on the H100: 3048 us against
// 2318 us, bench/results/h100-level3-2026-11-28/h100-level3-2026-11-28.md); for FP32 the two
// modes measured alike on the H100 (within the noise of the off-grid set).
// binary16 (h): the default mode (FP16 tensor cores with FP32 accumulation).
inline cublasMath_t math_mode(Dtype t) {
  return (t == Dtype::s || t == Dtype::c) && tf32_override_in_environment() ? CUBLAS_PEDANTIC_MATH
                                                                             : CUBLAS_DEFAULT_MATH;
}

// A scalar in the element type's own representation, to hand to cuBLAS by host pointer: real
// and imaginary parts as FP32 (S, C, and binary16 data, whose cuBLAS compute type is FP32) or
// FP64 (D, Z); `real_only` drops the imaginary part (HERK's alpha and beta, HER2K's beta).
// Aligned as cuDoubleComplex is (16 bytes): cuBLAS's ZGEMV reads its host scalars with aligned
// loads and faults on an address that is only 8-byte aligned.
struct HostScalar {
  alignas(16) unsigned char bytes[16] = {};
  HostScalar(const Scalar& v, Dtype t, bool real_only = false) {
    const double im = real_only ? 0.0 : v.im;
    if (t == Dtype::d || t == Dtype::z) {
      const double d[2] = {v.re, im};
      std::memcpy(bytes, d, sizeof d);
    } else {
      const float f[2] = {float(v.re), float(im)};
      std::memcpy(bytes, f, sizeof f);
    }
  }
  const void* get() const { return bytes; }
};
// The same on host arrays for every routine but GEMM and GEMV, overlapped (host_level3.cpp).
bool host_level3(const BlasProblem& p, std::string* why);
// One cuBLAS call of routine p's kind on device operands a, b, c (host pointer mode: scalars by
// host pointer), with these sizes and `beta` for p.beta; fn is cublas<T><routine>_v2. trmm
// computes in place (cuBLAS's out-of-place trmm with C = B), trsm overwrites B (c).
cublasStatus_t call_cublas(void* fn, cublasHandle_t h, const BlasProblem& p, int m, int n, int k, const Scalar& beta,
                           const void* a, int lda, const void* b, int ldb, void* c, int ldc);
// The same staging around one of our SGEMV kernels (src/kernels/sgemv.h) instead of cuBLAS.
// A batch (core/batch.h): device operands in place (our square kernel for the groups it takes
// when use_kernels, cuBLAS's batched routines for the rest), host arrays (GEMM) through the GPU
// in overlapped chunks.
bool gpu_batch(const BatchProblem& p, bool use_kernels, std::string* why);
bool kernel_gemv(const GemvProblem& p, SgemvKernel k, std::string* why);

}  // namespace myblas
