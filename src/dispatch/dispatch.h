// The one dispatch point: every validated call comes here, its operands are located
// (host or device memory), one rule of the table picks the path, and a GPU failure is
// completed on the CPU with one warning.
#pragma once
#include "core/batch.h"
#include "core/problem.h"

namespace myblas {

void run_gemm(GemmProblem& p);
void run_gemv(GemvProblem& p);
void run_blas(BlasProblem& p);
// A batch of GEMMs or GEMVs (core/batch.h).
void run_batch(BatchProblem& p);

}  // namespace myblas
