#include "core/stage_clock.h"

#ifdef MYBLAS_STAGE_CLOCK
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <vector>

namespace myblas {
namespace {
using clk = std::chrono::steady_clock;
const char* const kNames[kStageCount] = {"locate", "choose", "prepare", "handle", "launch", "sync"};

struct Current {
  clk::time_point start, last;
  double ns[kStageCount] = {};
};
thread_local Current t_call;

// Per key, every call's stage times (up to kKeep calls): medians, so that a first call's
// module loading or a preempted call does not move the figures.
constexpr size_t kKeep = 1 << 16;
struct Calls {
  std::vector<double> total, ns[kStageCount];
};
double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
struct Report {
  std::mutex mu;
  std::map<std::string, Calls> by_key;
  ~Report() {
    for (const auto& [key, c] : by_key) {
      std::fprintf(stderr, "myblas stage clock: %s calls=%zu median_ns total=%.0f", key.c_str(), c.total.size(),
                   median(c.total));
      for (int i = 0; i < kStageCount; ++i) std::fprintf(stderr, " %s=%.0f", kNames[i], median(c.ns[i]));
      std::fprintf(stderr, "\n");
    }
  }
};
Report g_report;
}  // namespace

void stage_begin() {
  t_call = Current{};
  t_call.start = t_call.last = clk::now();
}

void stage_mark(Stage s) {
  const clk::time_point now = clk::now();
  t_call.ns[s] += std::chrono::duration<double, std::nano>(now - t_call.last).count();
  t_call.last = now;
}

void stage_end(const std::string& key) {
  const double total = std::chrono::duration<double, std::nano>(clk::now() - t_call.start).count();
  std::lock_guard<std::mutex> lock(g_report.mu);
  Calls& c = g_report.by_key[key];
  if (c.total.size() >= kKeep) return;
  c.total.push_back(total);
  for (int i = 0; i < kStageCount; ++i) c.ns[i].push_back(t_call.ns[i]);
}
}  // namespace myblas
#endif
