// cuBLAS, loaded with dlopen on first GPU use, and one handle per thread and device.
#pragma once
#include <cublas_v2.h>

#include <string>

#include "core/problem.h"

namespace myblas {

struct CublasApi {
  cublasStatus_t (*create)(cublasHandle_t*);
  cublasStatus_t (*destroy)(cublasHandle_t);
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
  cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t);
  cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                          const float*, const float*, int, const float*, int, const float*,
                          float*, int);
  cublasStatus_t (*sgemv)(cublasHandle_t, cublasOperation_t, int, int, const float*,
                          const float*, int, const float*, int, const float*, float*, int);
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void*, const void*, cudaDataType, int, const void*,
                            cudaDataType, int, const void*, void*, cudaDataType, int,
                            cublasComputeType_t, cublasGemmAlgo_t);
  const char* (*status_string)(cublasStatus_t);
  cublasStatus_t (*set_workspace)(cublasHandle_t, void*, size_t);  // nullptr where this cuBLAS lacks it
  // cublas<T><routine>_v2 of every routine but hgemm, by Routine value (cublasSgemm_v2,
  // cublasZherk_v2, ...), for the paths of BlasProblem; nullptr where this cuBLAS lacks one.
  void* routines[kRoutineCount];
  // Batched GEMM and GEMV by element type (Dtype s, d, c, z): cublas<T>gemmStridedBatched,
  // cublas<T>gemmBatched, cublas<T>gemvStridedBatched, cublas<T>gemvBatched; nullptr where
  // this cuBLAS lacks one. binary16 GEMM goes through the Ex forms (FP32 compute).
  void* gemm_strided_batched[4];
  void* gemm_batched[4];
  void* gemv_strided_batched[4];
  void* gemv_batched[4];
  cublasStatus_t (*gemm_strided_batched_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                            const void*, const void*, cudaDataType, int, long long, const void*,
                                            cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                            long long, int, cublasComputeType_t, cublasGemmAlgo_t);
  cublasStatus_t (*gemm_batched_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                    const void*, const void* const[], cudaDataType, int, const void* const[],
                                    cudaDataType, int, const void*, void* const[], cudaDataType, int, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
};

// nullptr when cuBLAS cannot be loaded (*why says why).
const CublasApi* cublas_api(std::string* why);
// This thread's handle for `device`, bound to `stream` and set to `math`; nullptr on failure.
// Callers pass math_mode(type) (cublas_backend.h: the default mode, pedantic for FP32 data when the
// environment asks cuBLAS for TF32); HGEMM CUBLAS_DEFAULT_MATH (FP16 tensor cores, FP32
// accumulation) without reduced-precision reductions.
// On the default stream the handle works in a workspace of the library's own
// (backends/cuda/handle_plan.h says why).
cublasHandle_t cublas_handle(int device, cudaStream_t stream, cublasMath_t math, std::string* why);
// How many cublasSetMathMode/SetStream/SetWorkspace calls this thread's handles have made: a
// repeated call with the same stream and math mode makes none (tests, probes).
long cublas_handle_setter_calls();

}  // namespace myblas
