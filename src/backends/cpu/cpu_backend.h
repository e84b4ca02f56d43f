// The CPU path: the host BLAS computes; operands in device memory (a GPU fallback, or
// MYBLAS_BACKEND=cpu with device pointers) are staged through host memory.
#pragma once
#include <string>

#include "core/problem.h"

namespace myblas {

// false (with *why) only when a device operand could not be staged.
bool cpu_gemm(const GemmProblem& p, std::string* why);
bool cpu_gemv(const GemvProblem& p, std::string* why);

}  // namespace myblas
