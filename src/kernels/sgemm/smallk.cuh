// The launchers of the small-k SGEMM kernels (smallk_128x128x16.cu, smallk_panel_128x128x32.cu,
// smallk_ws_128x256x64.cu) and the helpers they share.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.h"

namespace myblas {
namespace sgemm_detail {

// Output tiles of 128 x 128 (the kernel indexes them with int).
int64_t smallk_tiles(const GemmProblem& p);
cudaError_t launch_smallk(const GemmProblem& p, cudaStream_t s);
// smallk_panel_128x128x32.cu (operands 16-byte copies cannot read run launch_smallk); pretranspose:
// k-contiguous operands transposed into scratch first (smallk_panel_pre).
cudaError_t launch_smallk_panel(const GemmProblem& p, bool pretranspose, cudaStream_t s);
// The operands of p contiguous along k (A T, B N) rewritten contiguous along m or n (leading
// dimensions rounded up to multiples of 4) into scratch from the kernels' stream-ordered pool, by
// one transpose launch for both, so that *q is p as NT. True when it took scratch: *err is then
// the transposes' launch error and the caller frees *scratch (sgemv_detail::scratch_free) after
// its own launches. False, with nothing taken, when no operand is k-contiguous, k > 1024, an
// operand would pass 64 MiB, or the allocation fails.
bool pretranspose_to_nt(const GemmProblem& p, GemmProblem* q, float** scratch, cudaError_t* err, cudaStream_t s);
// smallk_ws_128x256x64.cu: k <= 64 on sm_90a (tensor-map copies, warp-specialised); problems
// its kernel cannot take run launch_smallk_panel(p, true, s).
cudaError_t launch_smallk_ws(const GemmProblem& p, cudaStream_t s);
// Why launch_smallk_ws would run smallk_panel_pre for p instead of its own kernel (nullptr: it
// runs its own; the scratch-allocation fallback aside). *sms, if given, receives the SM count.
const char* smallk_ws_fallback(const GemmProblem& p, int* sms);

}  // namespace sgemm_detail
}  // namespace myblas
