// Which SGEMM shapes the tf32x3 precision mode takes (backends/cuda/sgemm_tf32x3.cpp asks it for
// calls with device operands): a pure function of the shape, so that the CPU tests check it.
#pragma once

#include <algorithm>

namespace myblas {

// Where the mode (the default product kernel, split-K where the tiles leave multiprocessors
// idle) measured faster than cublasSgemm, by at least the 5% the dispatch rules ask of a kernel:
// m, n >= 1024 with k >= 1024 (H200: 1024^3 1.08x with split-K 2, 2048^3 1.48x with split-K 3,
// 4096^3 1.77-1.93x, 8192^3 1.93x; bench/results/h200-sgemm-tf32x3-variants-2026-11-28/), or
// with k >= 256 from 3.2e9 multiply-adds (H100, the first kernel: 4096^2 x 256 1.29x, 1536^3
// 1.34x). Left to FP32: k < 256, skinny m or n (H100: 256 x 4096 x 4096 0.49x, 4096 x 512 x 4096
// 0.98x), and k below 1024 under 3.2e9 (H100, without split-K: 2048^2 x 512 0.91x; not measured
// since).
inline bool tf32x3_shape_gains(int m, int n, int k) {
  if (std::min(m, n) < 1024 || k < 256) return false;
  return k >= 1024 || double(m) * n * k >= 3.2e9;
}

}  // namespace myblas
