// The rules that map a call to a path (first match wins), as one table, and what they imply for
// host-array calls before their shape is looked at (HostCpuRoutes): dispatch.cpp asks them on
// every call; the tests and bench/probes/probe_host_route drive them directly.
#pragma once
#include <cstdint>

#include "core/config.h"
#include "core/problem.h"

namespace myblas {

// What the rules look at.
struct Request {
  Routine routine;
  Backend backend;
  bool gpu;          // a usable GPU is present
  bool any_device;   // some operand that will be read or written lives in device memory
  bool has_kernel;   // we have a kernel for this routine that can run this problem
  bool kernel_wins;  // the measured table says our kernel beats cuBLAS for this shape
  bool host_gpu_wins;  // host arrays only: the measured table says the GPU pipeline is faster
};

struct Rule {
  const char* name;  // printed by MYBLAS_VERBOSE: which rule decided the call
  bool (*applies)(const Request&);
  Path path;
};

// First matching rule wins.
constexpr Rule kRules[] = {
    {"forced-cpu", [](const Request& r) { return r.backend == Backend::cpu; }, Path::cpu},
    {"no-gpu", [](const Request& r) { return !r.gpu; }, Path::cpu},
    {"forced-cublas", [](const Request& r) { return r.backend == Backend::cublas; }, Path::cublas},
    {"forced-kernels", [](const Request& r) { return r.backend == Backend::kernels && r.has_kernel; },
     Path::kernels},
    // Problems our kernel refuses (its can_implement gave a reason, logged with MYBLAS_VERBOSE):
    // MYBLAS_BACKEND=kernels runs them on cuBLAS.
    {"forced-kernels-none", [](const Request& r) { return r.backend == Backend::kernels; }, Path::cublas},
    {"auto-measured-kernel", [](const Request& r) { return r.any_device && r.kernel_wins; }, Path::kernels},
    {"auto-device-operands", [](const Request& r) { return r.any_device; }, Path::cublas},
    {"auto-host-measured-gpu", [](const Request& r) { return r.host_gpu_wins; }, Path::cublas},
    {"auto-host-operands", [](const Request&) { return true; }, Path::cpu},
};

constexpr const Rule& choose(const Request& r) {
  for (const Rule& rule : kRules)
    if (rule.applies(r)) return rule;
  return kRules[sizeof kRules / sizeof kRules[0] - 1];
}

// Without a usable GPU the rules send every call to the CPU, whatever the backend setting and
// their other inputs: run_gemm, run_gemv and run_blas rely on it to send host-array calls there
// before looking at anything else (straight_to_cpu).
constexpr bool no_gpu_means_cpu() {
  constexpr Backend kBackends[] = {Backend::auto_, Backend::cpu, Backend::cublas, Backend::kernels};
  for (const Backend b : kBackends)
    for (int bits = 0; bits < 16; ++bits)
      if (choose(Request{Routine::sgemm, b, false, (bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0,
                         (bits & 8) != 0})
              .path != Path::cpu)
        return false;
  return true;
}
static_assert(no_gpu_means_cpu(), "a rule sends a call to the GPU in a process without one");

// Host-array calls in a process with a usable GPU, before their shape is looked at, by backend
// setting (index int(Backend)): bit r of always[b] is set when the rules send every host-array call
// of routine r to the CPU whatever its shape; bit r of unless_row[b] when they send it there unless
// the nearest host row of the measured table names the GPU (auto mode, where some host row of r
// does). Derived from the rules themselves (choose), so the two cannot disagree; covers the
// table's routines (r < kRoutineCount). host_gpu_rows: DispatchTable::host_gpu_rows.
struct HostCpuRoutes {
  uint64_t always[4] = {};
  uint64_t unless_row[4] = {};
};
static_assert(kRoutineCount <= 64, "HostCpuRoutes holds one bit per routine");

constexpr HostCpuRoutes host_cpu_routes(const bool (&host_gpu_rows)[kRoutineCount]) {
  HostCpuRoutes out;
  constexpr Backend kBackends[] = {Backend::auto_, Backend::cpu, Backend::cublas, Backend::kernels};
  for (const Backend b : kBackends)
    for (int r = 0; r < kRoutineCount; ++r) {
      auto cpu = [&](bool row_gpu) {
        return choose(Request{Routine(r), b, true, false, false, false, row_gpu}).path == Path::cpu;
      };
      const uint64_t bit = uint64_t(1) << r;
      if (cpu(false) && (!host_gpu_rows[r] || cpu(true))) out.always[int(b)] |= bit;
      else if (cpu(false)) out.unless_row[int(b)] |= bit;
    }
  return out;
}

}  // namespace myblas
