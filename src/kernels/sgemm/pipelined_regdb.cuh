// The launcher of pipelined_regdb_8x16.cu (the register double-buffered production SGEMM), kept
// out of common.cuh so that file stays the ladder's.
#pragma once
#include <cuda_runtime.h>

#include "core/problem.h"

namespace myblas {
namespace sgemm_detail {

// Block tiles the file instantiates (rows x columns of C per block; 8 k per stage, 6 stages).
enum class RegdbTile { t256x128, t128x128 };

cudaError_t launch_pipelined_regdb(const GemmProblem& p, RegdbTile tile, cudaStream_t s);

}  // namespace sgemm_detail
}  // namespace myblas
