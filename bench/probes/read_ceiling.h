// bench_sgemv's read ceiling (read_ceiling.cu): one launch that reads n floats at a 16-byte
// aligned a and writes one float per block to out (read_ceiling_blocks(n) floats).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace bench {
size_t read_ceiling_blocks(size_t n);
cudaError_t read_ceiling(const float* a, size_t n, float* out, cudaStream_t s);
}  // namespace bench
