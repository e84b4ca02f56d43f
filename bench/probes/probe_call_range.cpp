// probe_call_range: what an NVTX call range (src/dispatch/call_range.h) costs a BLAS call.
// Times, per range, the library's two ranges of a call (the call's, named by routine and shape,
// and the path's inside it) against the same loop without them, in one process, alternating
// blocks; the median over blocks. Without a tool attached (NVTX_INJECTION64_PATH unset) the
// ranges must be free: nothing is formatted and NVTX is not called. With a tool (e.g. the test
// recorder, tests/dispatch/nvtx_recorder.cpp) the same loop shows what a traced call pays.
// CPU only. Output: '#' lines, then CSV what,ns_per_call
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "dispatch/call_range.h"

namespace {
using clk = std::chrono::steady_clock;

// Stands for the call's own work: kept out of line so the loop is a loop of calls.
__attribute__((noinline)) void work(int* sink, int m, int n, int k) { *sink += m ^ n ^ k; }

double block_ns(bool ranges, int reps) {
  int sink = 0;
  const auto t0 = clk::now();
  for (int i = 0; i < reps; ++i) {
    const int m = 64 + (i & 7), n = 64, k = 64;
    if (ranges) {
      const myblas::CallRange call("%s %c%c %dx%dx%d beta=%g", "sgemm", 'N', 'N', m, n, k, 0.5);
      const myblas::CallRange path("%s%s%s", "kernels", ":", "skinny_r16");
      work(&sink, m, n, k);
    } else {
      work(&sink, m, n, k);
    }
  }
  const double ns = std::chrono::duration<double, std::nano>(clk::now() - t0).count() / reps;
  return sink == 42 ? ns + 1e-9 : ns;  // (keeps sink alive)
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main() {
  const bool tool = std::getenv("NVTX_INJECTION64_PATH") != nullptr;
  const int reps = tool ? 20000 : 2000000, blocks = 31;
  block_ns(true, 1000);  // the first range asks NVTX whether a tool is attached
  std::vector<double> with, without;
  for (int b = 0; b < blocks; ++b) {
    if (b % 2) without.push_back(block_ns(false, reps));
    with.push_back(block_ns(true, reps));
    if (!(b % 2)) without.push_back(block_ns(false, reps));
  }
  const double w = median(with), wo = median(without);
  std::printf("# probe_call_range: the NVTX ranges of one BLAS call (the call's and its path's), %s;"
              " median of %d alternating blocks of %d calls\n",
              tool ? "with a tool attached (NVTX_INJECTION64_PATH)" : "no tool attached", blocks, reps);
  std::printf("what,ns_per_call\n");
  std::printf("without ranges,%.2f\nwith ranges,%.2f\nranges cost,%.2f\n", wo, w, w - wo);
  return 0;
}
