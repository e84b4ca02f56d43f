// The CPU path: the host BLAS computes; operands in device memory (a GPU fallback, or
// MYBLAS_BACKEND=cpu with device pointers) are staged through host memory.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/batch.h"
#include "core/problem.h"

namespace myblas {

// false (with *why) only when a device operand could not be staged.
bool cpu_gemm(const GemmProblem& p, std::string* why);
bool cpu_gemv(const GemvProblem& p, std::string* why);
// cpu_gemv for a call whose operands are all host memory, without the staging machinery (the
// short SGEMVs where the library's own cost shows); false, having done nothing, for the rare
// calls it leaves to cpu_gemv (vectors so long that a 32-bit BLAS misplaces them).
bool cpu_gemv_host(const GemvProblem& p);
// SGEMM on host arrays, straight to the CPU BLAS (no staging, no allocation): dispatch's fast
// path for host-array SGEMM calls that the rules send to the CPU.
void cpu_sgemm_host(const GemmProblem& p);

// Every other routine (BlasProblem), with the same staging of device operands.
bool cpu_blas_problem(const BlasProblem& p, std::string* why);
// One GEMM or GEMV (S, D, C, Z) on host operands, on the calling thread, without staging.
void cpu_host_item(const BlasProblem& p);
// Products [i0, i1) of GEMM group g of a host-operand batch (S, D, C, Z), one after another on
// the calling thread: cpu_host_item's checks once for the group (10^4 products of 8^3 took
// 1.3-2.0x a loop of OpenBLAS calls through cpu_host_item, 1.0-1.4x with the checks hoisted:
// bench/results/vm2cpu-2026-11-28/vm2cpu-batch-serial-2026-11-28.txt), then one CPU BLAS call each. False, with nothing
// run, where the group needs cpu_host_item's other cases (no CPU BLAS routine, sizes beyond int,
// alpha == 0, beta == 0 on a CPU BLAS other than OpenBLAS).
bool cpu_host_gemm_products(const BatchProblem& p, const BatchGroup& g, int64_t i0, int64_t i1);
// A batch (core/batch.h) on the CPU: the CPU BLAS's own batch routine where it exports one, else
// the products spread over the copy threads (core/thread_pool.h); operands in device memory (a
// GPU fallback) are staged product by product. false (with *why) only when a device operand
// could not be staged.
bool cpu_batch(const BatchProblem& p, std::string* why);
// Whether the CPU BLAS exports the routine (else the built-in loops run it on the CPU).
bool cpu_blas_has(Routine r);

// Host view of one matrix operand: the user's memory when the CPU can read it, or a packed host
// copy (ld = rows) of a device-resident one, filled when `needed`.
struct HostMatrix {
  const void* ptr = nullptr;
  int64_t ld = 1;
  std::vector<unsigned char> copy;
};
bool stage_in(const void* src, Mem mem, int64_t ld, int rows, int cols, size_t elem, bool needed, HostMatrix* out,
              std::string* why);
// Copies the host result h back over a device-resident output.
bool stage_out(void* dst, int64_t ld, const HostMatrix& h, int rows, int cols, size_t elem, std::string* why);

}  // namespace myblas
