// The plan behind Level 3 on host arrays on the GPU (host_level3.cpp), apart from CUDA so that
// it is tested on the CPU: the operand blocks made resident on the GPU, and the output's panels,
// each a list of sub-calls in the caller's host coordinates with the blocks it reads and writes.
#pragma once
#include <cstdint>
#include <vector>

#include "core/problem.h"

namespace myblas {

// A block of a host matrix: rows x cols at `host` with leading dimension ld (elements).
struct Rect {
  const void* host = nullptr;
  int64_t ld = 1;
  int rows = 0, cols = 0;
};

struct Panel {
  std::vector<Rect> in;  // staged to the GPU before the sub-calls (B panels, C when read)
  Rect out;              // the part of the output the sub-calls write, staged back after
  std::vector<BlasProblem> calls;
};

// The panels of p (symm, hemm, trmm, trsm or a rank-k update; every operand in host memory,
// alpha != 0, k > 0 where there is a k): for side L column panels, for side R row panels, for the
// rank-k updates column panels of C's triangle (the diagonal block's update plus one GEMM, two for
// syr2k/her2k, for the rest of the panel). About `count` of them (panel_width). Empty for the
// other families.
std::vector<Panel> make_panels(const BlasProblem& p, int min_width = 256, int count = 8);

// The operands the panels share, made resident once: whole blocks (A; B too for syr2k/her2k) and
// the chunks of them that are staged (for symm/hemm/trmm/trsm only A's referenced triangle).
void resident_blocks(const BlasProblem& p, std::vector<Rect>* whole, std::vector<Rect>* chunks);

// Panel width for an extent: about `count` panels, whole multiples of 64, at least min_width (or
// all of it; the tests ask for narrow panels).
int panel_width(int64_t extent, int min_width = 256, int count = 8);

// A panel's work: the multiply-adds of its sub-calls.
double panel_cost(const Panel& pan);

// The panels of a call split over `gpus` GPUs: for each GPU the panels it runs, in panel order.
// The costliest panel goes first to the GPU with the least work so far (the lower GPU on a tie),
// so that the GPUs' shares differ by at most one panel's cost although a rank-k update's panels
// shrink along the triangle. A GPU's list is empty when there are fewer panels than GPUs.
std::vector<std::vector<size_t>> deal_panels(const std::vector<Panel>& panels, size_t gpus);

}  // namespace myblas
