// Our batched kernels for device operands:
//  - gemm_square: C_i := alpha op(A_i) op(B_i) + beta C_i for many small square products
//    (m = n = k = 16 or 32) in S and H, one launch for every group of one size. At these sizes a
//    product is a few kilobytes read and written with 2n^3 flops, so the batch is bound by memory
//    traffic (cuBLAS's strided-batched SGEMM reaches under 40% of the read limit at n = 16): each
//    block stages several products' A and B in shared memory with 16-byte loads, computes them
//    from there, and writes C once. Rungs: gemm_square_smem (a load, then its shared-memory
//    store, one after the other), gemm_square_staged (every load of a block issued before the
//    first store, C's loads behind the product, operands laid out for vector shared-memory reads),
//    gemm_square_prefetch (the same with as many blocks as the device holds, each looping over
//    sets of products and loading the next set while it multiplies the current one) and, binary16 only, hgemm_square_mma (the staged loads, the product on the tensor cores:
//    mma.sync, FP32 accumulation; FP32 products asked of it run gemm_square_staged, since TF32
//    would not give FP32 SGEMM's results).
//  - scale_batch: C_i := beta C_i for the groups with alpha == 0 or k == 0 (A and B never read;
//    beta == 0 stores zeros unread), one launch per group.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/batch.h"

namespace myblas {

// nullptr if gemm_square_smem can run group g of a batch of `type`, else why not.
const char* batched_square_can_implement(Dtype type, const BatchGroup& g);

inline const char* square_kernel_name(SquareKernel k) {
  switch (k) {
    case SquareKernel::smem: return "gemm_square_smem";
    case SquareKernel::staged: return "gemm_square_staged";
    case SquareKernel::prefetch: return "gemm_square_prefetch";
    case SquareKernel::mma: return "hgemm_square_mma";
  }
  return "?";
}

// Runs the groups (each one batched_square_can_implement accepted, all of the same size n) in
// one launch of `kernel`. Pointer arrays of listed groups must be device-readable: `dev_lists[i]`
// holds group i's a, b and c pointers (3 * count entries: a..., b..., c...), nullptr for a
// strided group.
cudaError_t batched_square_run(Dtype type, const BatchGroup* groups, const void* const* const* dev_lists,
                               int group_count, cudaStream_t s, SquareKernel kernel);

// C_i := beta C_i over every product of group g (m x n outputs, ldc; gemv: y of length len with
// increment |ldc|, as a 1 x len block). `dev_list`: as above, or nullptr when strided.
cudaError_t batched_scale_run(Dtype type, const BatchGroup& g, int64_t rows, int64_t cols, int64_t ld,
                              const void* const* dev_list, cudaStream_t s);

}  // namespace myblas
