// probe_host_route: the stages of a host-array call's route in a process with a usable GPU, each
// timed alone on the CPU, warm and cold. Cold: before each step a 96 KB sweep (what a 64 x 64
// DGEMV's operands put through the caches) evicts the library's state from L1 and most of L2, as
// a small BLAS call does between two calls of a program; only the step is timed (TSC, fenced),
// less an empty step timed alike. Stages, as the library runs them (src/dispatch/dispatch.cpp):
//   heap-check     the program-break area and three operands tested against it (program_break.h)
//   table-flag     the measured table's per-routine host flag (DispatchTable::host_gpu_rows, 10 KB
//                  into the table): what the general path reads
//   host-routes    the same verdict from HostCpuRoutes in a line of its own: what the heap route reads
//   rules          choose() on a host-array request (rules.h)
//   nearest-row    nearest_entry for SGEMM 64^3 host (the lookup's uncached cost)
//   cached-row     the per-thread last-lookup memo (a hit)
//   nvtx-ranges    a call's two CallRanges without a tool (call_range.h)
// CPU only (x86-64). Output: '#' lines, then CSV stage,warm_ns,cold_ns.
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dispatch/call_range.h"
#include "dispatch/program_break.h"
#include "dispatch/rules.h"
#include "dispatch/table.h"

namespace {
using clk = std::chrono::steady_clock;
using namespace myblas;

const char kBuiltinTable[] =
#include "dispatch/builtin_table.inc"
    ;

std::vector<double> g_sweep(96 * 1024 / sizeof(double), 1.0);
volatile double g_sweep_sink;

__attribute__((noinline)) void sweep() {
  double s = 0;
  for (size_t i = 0; i < g_sweep.size(); i += 8) s += g_sweep[i] + (g_sweep[i] += 1e-9);
  g_sweep_sink = s;
}

struct alignas(128) Routes {
  HostCpuRoutes r;
};

// One step's time in TSC ticks, fenced on both sides (the sweep before it is not timed).
template <class Step>
uint64_t step_ticks(Step step, int i) {
  _mm_lfence();
  const uint64_t t0 = __rdtsc();
  _mm_lfence();
  step(i);
  _mm_lfence();
  const uint64_t t1 = __rdtsc();
  _mm_lfence();
  return t1 - t0;
}

double g_ns_per_tick = 0;

void calibrate() {
  const auto c0 = clk::now();
  const uint64_t t0 = __rdtsc();
  while (clk::now() - c0 < std::chrono::milliseconds(50)) {
  }
  g_ns_per_tick = std::chrono::duration<double, std::nano>(clk::now() - c0).count() / double(__rdtsc() - t0);
}

// The mean of the fastest 90% (a virtual machine's TSC may tick coarsely: a mean, not a median,
// sees through the ticks; the slowest 10% are interrupts and preemption).
double trimmed_mean(std::vector<uint64_t>* v) {
  std::sort(v->begin(), v->end());
  const size_t n = v->size() * 9 / 10;
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += double((*v)[i]);
  return sum / double(n);
}

// 20001 timed steps, less as many empty ones timed alike.
template <class Step>
double median_ns(Step step, bool cold) {
  constexpr int kSteps = 20001;
  std::vector<uint64_t> with(kSteps), empty(kSteps);
  for (int i = 0; i < kSteps; ++i) {
    if (cold) sweep();
    with[i] = step_ticks(step, i);
    if (cold) sweep();
    empty[i] = step_ticks([](int) {}, i);
  }
  return (trimmed_mean(&with) - trimmed_mean(&empty)) * g_ns_per_tick;
}

volatile int g_sink;
}  // namespace

int main() {
  calibrate();
  DispatchTable table;
  std::string error;
  if (!parse_dispatch_table(kBuiltinTable, &table, &error)) {
    std::fprintf(stderr, "built-in table: %s\n", error.c_str());
    return 1;
  }
  static Routes routes;
  routes.r = host_cpu_routes(table.host_gpu_rows);
  std::vector<float> heap_a(4096), heap_x(64), heap_y(64);
  struct Last {
    int m = -1, n = -1, k = -1;
    const TableEntry* e = nullptr;
  };
  static thread_local Last last;

  struct Stage {
    const char* name;
    void (*step)(int);
  };
  static const DispatchTable* t = &table;
  static const float *a = heap_a.data(), *x = heap_x.data(), *y = heap_y.data();
  const Stage stages[] = {
      {"heap-check",
       [](int) {
         const ProgramBreakArea h = program_break_area();
         g_sink = h.contains(a) + h.contains(x) + h.contains(y);
       }},
      {"table-flag", [](int i) { g_sink = t->host_gpu_rows[i & 1]; }},
      {"host-routes", [](int i) { g_sink = int((routes.r.always[0] >> (i & 1)) & 1); }},
      {"rules",
       [](int i) {
         g_sink = int(choose(Request{Routine(i & 1), Backend::auto_, true, false, false, false, false}).path);
       }},
      {"nearest-row",
       [](int i) {
         g_sink = nearest_entry(*t, Routine::sgemm, Mem::host, Op::N, Op::N, 64 + (i & 1), 64, 64, false)->line;
       }},
      {"cached-row",
       [](int) {
         if (last.m != 64 || last.n != 64 || last.k != 64)
           last = Last{64, 64, 64, nearest_entry(*t, Routine::sgemm, Mem::host, Op::N, Op::N, 64, 64, 64, false)};
         g_sink = last.e->line;
       }},
      {"nvtx-ranges",
       [](int i) {
         const CallRange call("sgemv %c %dx%d beta=%g", 'N', 64 + (i & 1), 64, 0.5);
         const CallRange path("cpu");
         g_sink = i;
       }},
  };
  std::printf("# probe_host_route: stages of a host-array call's route in a GPU process, timed alone\n");
  std::printf("# cold: a 96 KB sweep before each step (subtracted); medians of 31 blocks of 2000 steps\n");
  std::printf("stage,warm_ns,cold_ns\n");
  for (const Stage& s : stages)
    std::printf("%s,%.1f,%.1f\n", s.name, median_ns(s.step, false), median_ns(s.step, true));
  return 0;
}
