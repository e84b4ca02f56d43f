// The CPU path: the host BLAS computes; operands in device memory (a GPU fallback, or
// MYBLAS_BACKEND=cpu with device pointers) are staged through host memory.
#pragma once
#include <string>

#include "core/problem.h"

namespace myblas {

// false (with *why) only when a device operand could not be staged.
bool cpu_gemm(const GemmProblem& p, std::string* why);
bool cpu_gemv(const GemvProblem& p, std::string* why);
// cpu_gemv for a call whose operands are all host memory, without the staging machinery (the
// short SGEMVs where the library's own cost shows); false, having done nothing, for the rare
// calls it leaves to cpu_gemv (vectors so long that a 32-bit BLAS misplaces them).
bool cpu_gemv_host(const GemvProblem& p);

}  // namespace myblas
