// Which SGEMM shapes the tf32x3 precision mode takes (backends/cuda/sgemm_tf32x3.cpp asks it for
// calls with device operands): a pure function of the shape, so that the CPU tests check it.
#pragma once

#include <algorithm>

namespace myblas {

// Where the mode (the default product kernel and split plan) measured faster than cublasSgemm,
// by at least the 5% the dispatch rules ask of a kernel: m, n >= 1024 and k >= 256 from 3.2e9
// multiply-adds (H200, bench/results/h200-sgemm-tf32x3-plan-2026-11-28/: 1536^3 1.25-1.51x,
// 2048^3 1.50-1.65x, 4096^3 2.03-2.20x, 8192^3 2.07-2.32x, 1024 x 8192 x 1024 1.43-1.44x,
// 4096^2 x 256 1.45-1.49x). Left to FP32: smaller products (1024^3 0.93-0.95x: the split and the statistics'
// round trip outweigh a 70 us product; 2048^2 x 512 1.03-1.06x), k < 256, skinny m or n
// (256 x 4096 x 4096 0.70x, 4096 x 256 x 4096 0.88x).
inline bool tf32x3_shape_gains(int m, int n, int k) {
  if (std::min(m, n) < 1024 || k < 256) return false;
  return double(m) * n * k >= 3.2e9;
}

}  // namespace myblas
