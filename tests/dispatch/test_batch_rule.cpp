// The rule that sends a batch of GEMMs on host arrays to the GPU (src/dispatch/batch_rule.h):
// by arithmetic per byte moved, with a higher break-even for pointer arrays, not those that step
// evenly (those run, and count, as strided groups); a minimum size; never for GEMV. CPU only.
#include <gtest/gtest.h>

#include <algorithm>
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

// The measured choice: the rule while nothing is measured, the other path once while one of them
// is (to measure it), then the path whose measured rate predicts the shorter time; never the GPU
// under the minimum size or for GEMV, binary16 always the GPU above it.
TEST(BatchRule, MeasuredRatesChoose) {
  using myblas::Dtype;
  bool explore = true;
  const BatchProblem s64 = batch(Dtype::s, 64, 10000, 0);  // 5.2e9 flops, 6.6e8 bytes (beta != 0)
  const myblas::BatchHostCost c = myblas::batch_host_cost(s64);
  EXPECT_DOUBLE_EQ(c.flops, 10000.0 * 2 * 64 * 64 * 64);
  EXPECT_DOUBLE_EQ(c.bytes, 10000.0 * 4 * 4 * 64 * 64);
  EXPECT_DOUBLE_EQ(c.products, 10000.0);
  EXPECT_FALSE(c.pointer_arrays);
  myblas::BatchHostRates none;
  EXPECT_EQ(myblas::batch_host_gpu_choose(s64, c, none, &explore), myblas::batch_host_gpu_wins(s64));
  EXPECT_FALSE(explore);
  myblas::BatchHostRates gpu_only;
  gpu_only.gpu_s_per_byte = 1 / 50e9;
  EXPECT_FALSE(myblas::batch_host_gpu_choose(s64, c, gpu_only, &explore));  // the CPU, to measure it
  EXPECT_TRUE(explore);
  myblas::BatchHostRates cpu_only;
  cpu_only.cpu_s_per_flop = 1 / 0.8e12;
  EXPECT_TRUE(myblas::batch_host_gpu_choose(s64, c, cpu_only, &explore));
  EXPECT_TRUE(explore);
  // Both measured, an H200 host's rates: CPU 0.83 TFLOP/s, GPU path 51 GB/s. At 64^3 the CPU
  // (5.2e9 / 0.83e12 = 6.3 ms predicted, as measured) beats the GPU (6.6e8 / 51e9 = 12.8 ms); with
  // the H100 host's CPU rate (0.19 TFLOP/s: 27.6 ms) the GPU.
  myblas::BatchHostRates both;
  both.cpu_s_per_flop = 1 / 0.83e12;
  both.gpu_s_per_byte = 1 / 51e9;
  EXPECT_FALSE(myblas::batch_host_gpu_choose(s64, c, both, &explore));
  EXPECT_FALSE(explore);
  both.cpu_s_per_flop = 1 / 0.19e12;
  EXPECT_TRUE(myblas::batch_host_gpu_choose(s64, c, both, &explore));
  // Under the minimum size, or GEMV: the CPU whatever was measured.
  const BatchProblem small = batch(Dtype::s, 8, 5000, 0);
  EXPECT_FALSE(myblas::batch_host_gpu_choose(small, myblas::batch_host_cost(small), cpu_only, &explore));
  EXPECT_FALSE(explore);
  const BatchProblem gemv = batch(Dtype::s, 512, 10000, 0, myblas::Family::gemv);
  EXPECT_FALSE(myblas::batch_host_gpu_choose(gemv, myblas::batch_host_cost(gemv), cpu_only, &explore));
  const BatchProblem h = batch(Dtype::h, 64, 10000, 0);
  EXPECT_TRUE(myblas::batch_host_gpu_choose(h, myblas::batch_host_cost(h), both, &explore));
}

// Classes: by type, pointer arrays or not, and flops a product in powers of two.
TEST(BatchRule, RateClasses) {
  using myblas::Dtype;
  auto cls = [](const BatchProblem& p) { return myblas::batch_host_class(p.type, myblas::batch_host_cost(p)); };
  const int s64 = cls(batch(Dtype::s, 64, 10000, 0));
  EXPECT_EQ(s64, cls(batch(Dtype::s, 64, 20000, 0)));         // the count does not matter
  EXPECT_EQ(s64, cls(batch(Dtype::s, 64, 10000, 2)));         // stepped pointer arrays are strided
  EXPECT_NE(s64, cls(batch(Dtype::s, 64, 10000, 1)));         // listed ones are not
  EXPECT_NE(s64, cls(batch(Dtype::d, 64, 10000, 0)));
  EXPECT_NE(s64, cls(batch(Dtype::s, 32, 10000, 0)));         // 8x fewer flops a product
  EXPECT_NE(cls(batch(Dtype::s, 32, 10000, 0)), cls(batch(Dtype::s, 48, 10000, 0)));
  int most = 0;
  for (Dtype t : {Dtype::s, Dtype::d, Dtype::c, Dtype::z})
    for (int form : {0, 1})
      for (int64_t n : {1, 4, 64, 4096, 1 << 20}) {
        const int k = cls(batch(t, n, 2, form));
        EXPECT_GE(k, 0);
        most = std::max(most, k);
      }
  EXPECT_LT(most, 4 * 2 * myblas::kBatchHostSizeClasses);
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
