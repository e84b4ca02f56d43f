// GEMM on host arrays through the GPU, pipelined: C is cut into column panels (and, when A
// does not fit the device-memory budget, into row blocks); each tile's operands are copied
// from the caller's pageable memory into pinned buffers by several host threads, uploaded,
// multiplied and downloaded on one of two streams, so the host copies, both copy engines and
// the multiplication of neighbouring tiles overlap. C is uploaded only when beta != 0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/problem.h"

namespace myblas {

// A block of C: rows [i0, i0 + rows), columns [j0, j0 + cols).
struct CTile {
  int i0, rows, j0, cols;
};

// Runs p (B and C in host memory, alpha != 0 and k > 0) on the current GPU. A is in host memory
// too, or already in the current device's memory (mem_a == Mem::device), as a caller that
// uploads it once for several GPUs leaves it. Returns false when
// it failed; *unfinished then lists the tiles of C it has not written (every other tile holds
// its final result), so the caller can compute exactly those elsewhere.
bool pipeline_gemm(const GemmProblem& p, std::vector<CTile>* unfinished, std::string* why);

// Copies a rows x cols block between host buffers (leading dimensions in elements) with the
// calling thread's copy threads (core/thread_pool.h), in pieces of about a megabyte.
void host_copy(void* dst, int64_t ldd, const void* src, int64_t lds, int rows, int cols, size_t es);

}  // namespace myblas
