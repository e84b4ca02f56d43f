// The launcher of smallk_128x128x16.cu and the knobs its registry variants set (measured side by
// side in bench/results/h100-sgemm-smallk-2026-11-22.md).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.h"

namespace myblas {
namespace sgemm_detail {

struct SmallkPlan {
  bool persistent;  // two blocks per SM walking the tiles; else one block per tile
  bool prefetch;    // C's tile prefetched into L2 at the start of the tile (beta != 0 only)
  bool batched;     // whole tiles read C in two batches of 8 float4 a thread, else one at a time
  bool stream;      // the batched epilogue reads and writes C with evict-first hints
};

// Output tiles of 128 x 128 (the kernel indexes them with int).
int64_t smallk_tiles(const GemmProblem& p);
cudaError_t launch_smallk(const GemmProblem& p, const SmallkPlan& plan, cudaStream_t s);
// smallk_panel_128x128x32.cu (operands 16-byte copies cannot read run launch_smallk); pretranspose:
// k-contiguous operands transposed into scratch first (smallk_panel_pre).
cudaError_t launch_smallk_panel(const GemmProblem& p, bool pretranspose, cudaStream_t s);

}  // namespace sgemm_detail
}  // namespace myblas
