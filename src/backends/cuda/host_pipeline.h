// GEMM on host arrays through the GPU, pipelined: C is cut into column panels (and, when A
// does not fit the device-memory budget, into row blocks); each tile's operands are copied
// from the caller's pageable memory into pinned buffers by several host threads, uploaded,
// multiplied and downloaded on one of two streams, so the host copies, both copy engines and
// the multiplication of neighbouring tiles overlap. C is uploaded only when beta != 0.
#pragma once
#include <string>

#include "core/problem.h"

namespace myblas {

// Runs p (every operand in host memory, alpha != 0 and k > 0) on the GPU. Returns false when
// it failed; *done_cols is then the number of leading columns of C already final (the rest
// are untouched), so the caller can finish columns [*done_cols, n) elsewhere.
bool pipeline_gemm(const GemmProblem& p, int* done_cols, std::string* why);

}  // namespace myblas
