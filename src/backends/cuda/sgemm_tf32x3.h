// The SGEMM precision mode: FP32 SGEMM computed on the tensor cores by the 3xTF32 split
// (kernels/sgemm_tc.h; what it promises and costs: docs/sgemm-precision.md). Opt-in through
// MYBLAS_SGEMM_PRECISION or myblas_set_sgemm_precision; with it off, nothing here runs.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "core/config.h"
#include "core/problem.h"

namespace myblas {

// The process-wide setting: MYBLAS_SGEMM_PRECISION until myblas_set_sgemm_precision changes it.
SgemmPrecision sgemm_precision();
void set_sgemm_precision(SgemmPrecision p);

// Whether the mode takes this SGEMM call (dispatch asks, and then skips our FP32 kernels): the
// setting, and for tf32x3 a call with device operands and a shape where the split measured
// faster (elsewhere the FP32 path runs as without the mode). No CUDA call; cheap.
bool sgemm_tc_applies(const GemmProblem& p);

// C := alpha*op(A)*op(B) + beta*C by 3xTF32, every operand in memory of the current device,
// enqueued on s (it waits on s once, for the split's statistics). false, with *why, when it did
// not run: values the split cannot represent (tf32x3_refuse), scratch memory or a cuBLAS refusal.
// C is then untouched and the caller runs the FP32 path, whose answer the call gets bitwise.
bool sgemm_tc_run(const GemmProblem& p, cudaStream_t s, std::string* why);

}  // namespace myblas
