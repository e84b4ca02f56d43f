// The GPU paths: cuBLAS, or our kernels. Device operands are used in place; host operands are copied in and out
// honouring their leading dimensions or increments; C (or y) is uploaded only when beta != 0.
#pragma once
#include <string>

#include "core/problem.h"
#include "kernels/hgemm.h"
#include "kernels/sgemm.h"
#include "kernels/sgemv.h"

namespace myblas {

// false (with *why) when any CUDA or cuBLAS step failed before the result was written:
// the caller then completes the call on the CPU.
bool cublas_gemm(const GemmProblem& p, std::string* why);
// The same staging around one of our SGEMM kernels (src/kernels/sgemm.h) instead of cuBLAS.
bool kernel_gemm(const GemmProblem& p, SgemmKernel k, std::string* why);
// The same staging around one of our HGEMM kernels (src/kernels/hgemm.h) instead of cuBLAS.
bool kernel_hgemm(const GemmProblem& p, HgemmKernel k, std::string* why);
bool cublas_gemv(const GemvProblem& p, std::string* why);
// Every other routine (BlasProblem) on cuBLAS: device operands in place, host operands staged
// (GEMM on host arrays through the pipelined path).
bool cublas_blas_problem(const BlasProblem& p, std::string* why);
// The same staging around one of our SGEMV kernels (src/kernels/sgemv.h) instead of cuBLAS.
bool kernel_gemv(const GemvProblem& p, SgemvKernel k, std::string* why);

}  // namespace myblas
