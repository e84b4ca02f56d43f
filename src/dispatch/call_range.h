// NVTX ranges around every BLAS call, so that a profiler's timeline (Nsight Systems) shows where
// a program's BLAS time goes: one range per call named by routine, options and shape
// ("sgemm NN 64x64x64 beta=0"), and inside it one range per path tried ("cublas",
// "kernels:skinny_r16", "cpu"), in the NVTX domain "myblas".
//
// NVTX v3 is header-only: without a tool attached (NVTX_INJECTION64_PATH unset), creating the
// domain returns null, and then a range is one relaxed load and a branch: no formatting, no call
// into NVTX (bench/probes/probe_call_range: 0.3-2.2 ns for a call's two ranges on the build VM,
// bench/results/vm2cpu-2026-11-28/vm2cpu-call-range-2026-11-28.txt).
// Names are formatted only for an attached tool.
#pragma once
#include <atomic>

namespace myblas {

class CallRange {
 public:
  // Pushes a range named by printf-style `fmt` when a tool is attached. Without one, after the
  // first call, this is one load and a branch (the arguments are not formatted).
  template <class... Args>
  explicit CallRange(const char* fmt, Args... args) {
    if (g_state.load(std::memory_order_relaxed) == kOff) return;
    if constexpr (sizeof...(Args) == 0) pushed_ = push("%s", fmt);  // (a plain name)
    else pushed_ = push(fmt, args...);
  }
  ~CallRange() {
    if (pushed_) pop();
  }
  CallRange(const CallRange&) = delete;
  CallRange& operator=(const CallRange&) = delete;

  enum State : int { kUnknown, kOff, kOn };
  static std::atomic<State> g_state;  // kUnknown until the first range asks NVTX

 private:
  static bool push(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
  static void pop();
  bool pushed_ = false;
};

}  // namespace myblas
