// The rule that sends a batch of GEMMs on host arrays to the GPU (src/dispatch/batch_rule.h):
// by arithmetic per byte moved, with a higher break-even for pointer arrays, not those that step
// evenly (those run, and count, as strided groups); a minimum size; never for GEMV. CPU only.
#include <gtest/gtest.h>

#include <vector>

#include "dispatch/batch_rule.h"

namespace {

using myblas::BatchGroup;
using myblas::BatchProblem;

// count square products of n^3, beta 0.5; form: 0 strided, 1 listed, 2 stepped pointer arrays.
BatchProblem batch(myblas::Dtype t, int64_t n, int64_t count, int form, myblas::Family f = myblas::Family::gemm) {
  static std::vector<const void*> lists;  // (non-null lists; the rule reads none of them)
  static std::vector<void*> clist;
  lists.assign(4, nullptr);
  clist.assign(4, nullptr);
  BatchProblem p;
  p.family = f;
  p.type = t;
  BatchGroup g;
  g.m = g.n = g.k = n;
  g.alpha.re = 1;
  g.beta.re = 0.5;
  g.count = count;
  if (form == 1) {
    g.a_list = lists.data();
    g.b_list = lists.data();
    g.c_list = clist.data();
  } else {
    g.stride_a = g.stride_b = g.stride_c = n * n;
    g.stepped = form == 2;
  }
  p.groups.push_back(g);
  return p;
}

TEST(BatchRule, StridedFromOneFlopAByte) {
  using myblas::Dtype;
  // FP32, beta != 0: bytes = 4 * 4 n^2 per product, flops = 2 n^3: n / 8 flops a byte.
  EXPECT_FALSE(myblas::batch_host_gpu_wins(batch(Dtype::s, 6, 100000, 0)));  // 0.75 flops a byte
  EXPECT_TRUE(myblas::batch_host_gpu_wins(batch(Dtype::s, 8, 10000, 0)));    // 1
  EXPECT_TRUE(myblas::batch_host_gpu_wins(batch(Dtype::s, 64, 10000, 0)));
  // FP64 at half the FP32 break-even: 8 bytes an element, n / 16 flops a byte.
  EXPECT_FALSE(myblas::batch_host_gpu_wins(batch(Dtype::d, 6, 100000, 0)));  // 0.375
  EXPECT_TRUE(myblas::batch_host_gpu_wins(batch(Dtype::d, 8, 10000, 0)));    // 0.5
}

TEST(BatchRule, PointerArraysFromEightFlopsAByte) {
  using myblas::Dtype;
  EXPECT_FALSE(myblas::batch_host_gpu_wins(batch(Dtype::s, 24, 10000, 1)));
  EXPECT_FALSE(myblas::batch_host_gpu_wins(batch(Dtype::s, 48, 10000, 1)));
  EXPECT_TRUE(myblas::batch_host_gpu_wins(batch(Dtype::s, 64, 10000, 1)));
  // Pointer arrays stepping evenly run, and count, as a strided group.
  EXPECT_TRUE(myblas::batch_host_gpu_wins(batch(Dtype::s, 24, 10000, 2)));
  EXPECT_TRUE(myblas::batch_host_gpu_wins(batch(Dtype::s, 8, 10000, 2)));
}

TEST(BatchRule, SizeAndFamily) {
  using myblas::Dtype;
  EXPECT_FALSE(myblas::batch_host_gpu_wins(batch(Dtype::s, 64, 10, 0)));  // 0.7 MB: under the minimum
  EXPECT_FALSE(myblas::batch_host_gpu_wins(batch(Dtype::s, 8, 5000, 0)));  // 5.1 MB: under it
  EXPECT_TRUE(myblas::batch_host_gpu_wins(batch(Dtype::s, 8, 6000, 0)));   // 6.1 MB
  EXPECT_FALSE(myblas::batch_host_gpu_wins(batch(Dtype::s, 512, 10000, 0, myblas::Family::gemv)));
  BatchProblem zero_alpha = batch(Dtype::s, 64, 10000, 0);
  zero_alpha.groups[0].alpha.re = 0;  // only scales C: no arithmetic to win with
  EXPECT_FALSE(myblas::batch_host_gpu_wins(zero_alpha));
}

// Device operands: our square kernel where its table entry names a rung, cuBLAS where the entry
// has none (unless our kernels are forced: then the best rung), every entry at a size the kernel
// can run.
TEST(BatchRule, SquareKernelTable) {
  using myblas::Dtype;
  using myblas::SquareKernel;
  for (const myblas::SquareChoice& c : myblas::kSquareChoices) {
    EXPECT_TRUE(c.type == Dtype::s || c.type == Dtype::h);
    EXPECT_TRUE(c.n == 16 || c.n == 32);
    EXPECT_TRUE(!c.ours || c.kernel != SquareKernel::mma || c.type == Dtype::h) << "the tensor-core rung is binary16 only";
    SquareKernel k = SquareKernel::smem;
    EXPECT_EQ(myblas::batch_square_takes(c.type, c.n, false, &k), c.ours) << int(c.type) << " " << c.n;
    if (c.ours) EXPECT_EQ(k, c.kernel);
    EXPECT_TRUE(myblas::batch_square_takes(c.type, c.n, true, &k));
    EXPECT_EQ(k, c.ours ? c.kernel : myblas::kSquareForcedKernel);
  }
  SquareKernel k = SquareKernel::smem;
  EXPECT_EQ(myblas::batch_square_choice(Dtype::d, 16), nullptr);
  EXPECT_FALSE(myblas::batch_square_takes(Dtype::s, 64, false, &k));
  EXPECT_TRUE(myblas::batch_square_takes(Dtype::s, 64, true, &k));
  EXPECT_EQ(k, myblas::kSquareForcedKernel);
}

}  // namespace
