#include "dispatch/dispatch.h"
#include "dispatch/batch_rule.h"
#include "dispatch/host_mapping.h"

#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <mutex>
#include <utility>
#include <vector>
#include <string>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cublas_backend.h"
#include "backends/cuda/cuda_runtime.h"
#include "backends/cuda/sgemm_tf32x3.h"
#include "core/config.h"
#include "core/log.h"
#include "core/stage_clock.h"
#include "core/thread_pool.h"
#include "dispatch/call_range.h"
#include "dispatch/device_rule.h"
#include "dispatch/program_break.h"
#include "dispatch/rules.h"
#include "dispatch/table_source.h"
#include "interface/entry.h"
#include "kernels/hgemm.h"
#include "kernels/hgemm/wgmma_splitk_plan.h"  // wsplit::short_mn_major
#include "kernels/sgemm.h"
#include "kernels/sgemv.h"
#include "kernels/batched.h"

namespace myblas {

const char* path_name(Path p) {
  switch (p) {
    case Path::none: return "none";
    case Path::cpu: return "cpu";
    case Path::cublas: return "cublas";
    case Path::kernels: return "kernels";
  }
  return "?";
}

namespace {

// The entry of the measured table (dispatch/table.h) that decided a call, for the verbose log:
// " table=<file>:<line>:<trans>:<mem>:<m>x<n>[x<k>]:<path or kernel>:<ratio>".
std::string table_note(const DispatchTable& t, const TableEntry& e) {
  const std::string trans = int(e.routine) >= kFirstGenericRoutine ? std::string("*")
                            : e.routine == Routine::sgemv ? std::string(1, op_char(e.ta))
                                                          : std::string{op_char(e.ta), op_char(e.tb)};
  const std::string shape = e.k == 0 ? strformat("%dx%d", e.m, e.n)
                                                         : strformat("%dx%dx%d", e.m, e.n, e.k);
  return strformat(" table=%s:%d:%s:%s:%s:%s:%.3f", t.name.c_str(), e.line, trans.c_str(),
                   e.mem == Mem::host ? "host" : "device", shape.c_str(), entry_choice_name(e), e.ratio);
}

// The rows that decided a device call (" table=..." as above, with " bracket-to=<line>" for the
// upper corner of a bracket), or " table=<file>:no-bracketing-rows" where no row brackets its shape.
std::string evidence_note(const DispatchTable& t, const DeviceEvidence& e) {
  if (!e.row) return strformat(" table=%s:no-bracketing-rows", t.name.c_str());
  return table_note(t, *e.row) + (e.hi ? strformat(" bracket-to=%d", e.hi->line) : std::string());
}


// Whether this call goes straight to the CPU BLAS, before its operands are located or the rules
// and the table are asked: a process without a usable GPU (none found, none lost: every operand
// is host memory the CPU can read, and the rules say the CPU, see above), and no verbose log (the
// general path names the rule it took). At 64 x 64 a host SGEMV lasts about 0.2 us on one core,
// and the library's own part of it is tens of nanoseconds, so nothing else is asked first. (An
// unknown MYBLAS_BACKEND still gets its one warning: loading the CPU BLAS asks backend_setting.)
inline bool straight_to_cpu() { return cpu_only_process() && !verbose(); }

// What a host-array call in a process with a usable GPU reads to know, before its operands are
// located, that the rules send it to the CPU: the table's host routes (rules.h), kept apart from
// the table itself. After a small BLAS call has streamed its operands through the caches, every
// distinct line of library state the next call reads is a cache miss (the table's per-routine
// flags sit 10 KB into it: about 100 ns of a 64 x 64 DGEMV on the build VM), so this is two
// adjacent lines, filled once.
struct alignas(128) HostFast {
  std::atomic<int> state{0};  // 0: not filled; 1: usable; 2: not usable (the devices' tables differ, or no break start)
  const DispatchTable* table = nullptr;
  uintptr_t break_start = 0;  // program_break_start(), here to spare its own line
  HostCpuRoutes routes;
};
HostFast g_host_fast;

__attribute__((noinline)) void fill_host_fast() {
  static std::once_flag once;
  std::call_once(once, [] {
    const bool uniform = dispatch_tables_uniform() && program_break_start() != 0;
    if (uniform) {
      g_host_fast.break_start = program_break_start();
      g_host_fast.table = &dispatch_table(-1);
      g_host_fast.routes = host_cpu_routes(g_host_fast.table->host_gpu_rows);
    }
    g_host_fast.state.store(uniform ? 1 : 2, std::memory_order_release);
  });
}

// Whether a host-array call of routine r (< kRoutineCount) in a process with a usable GPU goes to
// the CPU BLAS without the general path: no verbose log, every operand (nullptr: not read) in the
// program-break heap, which is host memory whatever the CUDA state (dispatch/program_break.h), so
// nothing is asked of the driver; and the rules send the routine's host-array calls to the CPU
// whatever their shape, or (auto mode where some host row of the routine names the GPU) unless
// the nearest host row does: row_gpu(table) is asked only then. The same rules with the same
// inputs as the general path: it decides the CPU for exactly these calls too.
template <class RowGpu>
inline bool heap_call_to_cpu(Routine r, std::initializer_list<const void*> operands, RowGpu row_gpu) {
  if (!gpu_available() || verbose()) return false;
  if (g_host_fast.state.load(std::memory_order_acquire) == 0) fill_host_fast();
  if (g_host_fast.state.load(std::memory_order_relaxed) != 1) return false;
  const int b = int(backend_setting());
  const uint64_t bit = uint64_t(1) << int(r);
  const bool always = (g_host_fast.routes.always[b] & bit) != 0;
  if (!always && !(g_host_fast.routes.unless_row[b] & bit)) return false;
  const ProgramBreakArea heap = program_break_area(g_host_fast.break_start);
  for (const void* o : operands)
    if (o && !heap.contains(o)) return false;
  return always || !row_gpu(*g_host_fast.table);
}


void locate(const ProgramBreakArea& heap, const void* p, Mem* mem, int* dev, int* run_dev) {
  *mem = heap.contains(p) ? Mem::host : classify_pointer(p, dev);
  if (*mem != Mem::host && *run_dev < 0) *run_dev = *dev;
}

// One operand of a call for locate_operands: its address (nullptr: not read by this call) and
// where its memory kind and device go.
struct Operand {
  const void* p;
  Mem* mem;
  int* dev;
};

// Locates a call's operands in a process with a usable GPU, in the order given; returns the device
// a GPU path runs on (the first device operand's), -1 when all are host memory. Operands in the
// program-break heap are host memory whatever the CUDA state, so when every operand is there
// nothing is asked of the driver, not even whether a context exists (while a GPU process has
// none, that is one or two driver calls on every call). Otherwise, without a context every operand
// is host memory, and with one each operand outside the heap is classified by the driver.
int locate_operands(std::initializer_list<Operand> operands) {
  const ProgramBreakArea heap = program_break_area();
  bool all_in_heap = true;
  for (const Operand& o : operands) all_in_heap = all_in_heap && (!o.p || heap.contains(o.p));
  int run_dev = -1;
  if (all_in_heap || !device_memory_possible()) return run_dev;
  for (const Operand& o : operands)
    if (o.p) locate(heap, o.p, o.mem, o.dev, &run_dev);
  return run_dev;
}

// Runs the chosen path; a GPU failure is completed on the CPU with one warning per cause.
// Each path tried is an NVTX range inside the call's ("cublas", "kernels:<kernel>", "cpu").
template <typename Problem, typename Gpu>
Path execute_paths(const Rule& rule, const Problem& p, const char* routine, Gpu gpu,
                   bool (*cpu)(const Problem&, std::string*), const char* kernel) {
  std::string why;
  if (rule.path == Path::cublas || rule.path == Path::kernels) {
    const bool named = rule.path == Path::kernels && kernel;
    const CallRange range("%s%s%s", path_name(rule.path), named ? ":" : "", named ? kernel : "");
    if (gpu(rule.path, &why)) return rule.path;
    if (gpu_available())  // (a lost context has said so once already, for good)
      warn_once("fallback:" + why, std::string(routine) + " on the GPU: " + why +
                                       "; completing on the CPU");
  }
  std::string cpu_why;
  const CallRange range("cpu");
  if (cpu(p, &cpu_why)) return Path::cpu;
  // Only device operands that cannot be staged get here (the CUDA context is unusable).
  warn_once("failed:" + cpu_why, std::string("error: ") + routine +
                                     " could not complete: its operands are in device memory and " +
                                     cpu_why);
  return Path::none;
}

// No exception leaves a BLAS entry point (they are C functions): running out of host memory
// for a staging copy is reported like any other failure instead of terminating the program.
// The paths allocate their staging buffers before they write the output.
template <typename Problem, typename Gpu>
Path execute(const Rule& rule, const Problem& p, const char* routine, Gpu gpu,
             bool (*cpu)(const Problem&, std::string*), const char* kernel = nullptr) {
  try {
    return execute_paths(rule, p, routine, gpu, cpu, kernel);
  } catch (const std::exception& e) {
    warn_once(std::string("exception:") + e.what(),
              std::string("error: ") + routine + " could not complete: " + e.what());
  } catch (...) {
    warn_once("exception", std::string("error: ") + routine + " could not complete");
  }
  return Path::none;
}

std::string mems(Mem a, Mem b, Mem c) { return {mem_char(a), mem_char(b), mem_char(c)}; }

// Whether the first and last byte of [p, p+bytes) can be read by this process, asked of the
// kernel (process_vm_readv fails with EFAULT instead of faulting). Device memory of a lost
// CUDA context is address space reserved without access, so this tells it from host memory.
bool host_readable(const void* p, size_t bytes) {
  if (bytes == 0) return true;
  char probe[1];
  for (const char* q : {static_cast<const char*>(p), static_cast<const char*>(p) + bytes - 1}) {
    struct iovec local {probe, 1}, remote{const_cast<char*>(q), 1};
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 1) return errno == ENOSYS || errno == EPERM;
  }
  return true;
}

// With the GPU lost, operands can no longer be located: the CPU path runs only on memory it can
// read, and anything else is reported instead of crashing the program.
bool operands_readable(std::initializer_list<std::pair<const void*, size_t>> spans, const char* routine) {
  for (const auto& s : spans)
    if (!host_readable(s.first, s.second)) {
      warn_once(std::string("unreadable:") + routine,
                std::string("error: ") + routine + " was passed memory the CPU cannot read (device "
                "memory, but CUDA is unusable in this process: a fork child, or the context was "
                "lost); the call did nothing");
      return false;
    }
  return true;
}

// Bytes from the first to the last element of a column-major block / strided vector.
size_t span_bytes(int rows, int cols, int64_t ld, size_t es) {
  return rows > 0 && cols > 0 ? (size_t(cols - 1) * size_t(ld) + size_t(rows)) * es : 0;
}
size_t vec_bytes(int len, int inc) {
  return len > 0 ? (size_t(len - 1) * size_t(inc < 0 ? -int64_t(inc) : inc) + 1) * 4 : 0;
}

}  // namespace

// nearest_entry for the library's tables (they live as long as the process), remembering the
// calling thread's last lookup: programs repeat shapes, and the lookup (three log2 and a scan of
// the group) is tens of ns, a measurable part of a 3 us host SGEMM at 64^3 on the CPU path.
static const TableEntry* lookup(const DispatchTable& t, Routine r, Mem mem, Op ta, Op tb, int m, int n, int k,
                                bool beta_zero) {
  struct Last {
    const DispatchTable* t = nullptr;
    Routine r;
    Mem mem;
    Op ta, tb;
    int m, n, k;
    bool beta_zero;
    const TableEntry* e;
  };
  static thread_local Last last;
  if (last.t == &t && last.r == r && last.mem == mem && last.ta == ta && last.tb == tb && last.m == m &&
      last.n == n && last.k == k && last.beta_zero == beta_zero)
    return last.e;
  const TableEntry* e = nearest_entry(t, r, mem, ta, tb, m, n, k, beta_zero);
  last = Last{&t, r, mem, ta, tb, m, n, k, beta_zero, e};
  return e;
}

// Whether the nearest host row for a host-array call names the GPU, remembering the calling
// thread's last answer by itself (the answer without the entry: reading the entry is one more
// line of library state on the CPU path).
static bool host_row_gpu(const DispatchTable& t, Routine r, Op ta, Op tb, int m, int n, int k, bool beta_zero) {
  struct Last {
    const DispatchTable* t = nullptr;
    Routine r;
    Op ta, tb;
    bool beta_zero;
    int m, n, k;
    bool gpu;
  };
  static thread_local Last last;
  if (last.t == &t && last.r == r && last.ta == ta && last.tb == tb && last.m == m && last.n == n && last.k == k &&
      last.beta_zero == beta_zero)
    return last.gpu;
  const TableEntry* e = lookup(t, r, Mem::host, ta, tb, m, n, k, beta_zero);
  last = Last{&t, r, ta, tb, beta_zero, m, n, k, e && e->path == Path::cublas};
  return last.gpu;
}

// Whether one of our kernels could take the call: device operands, or MYBLAS_BACKEND=kernels
// (host arrays in auto or cublas mode never run a kernel, so they need no kernel choice).
static bool kernel_possible(bool gpu, Backend backend, bool any_device) {
  return gpu && (any_device || backend == Backend::kernels);
}

// The start of a call, read only when MYBLAS_VERBOSE logs its time (a clock read is tens of
// nanoseconds, as much as a small host SGEMV's whole dispatch).
static std::chrono::steady_clock::time_point call_start() {
  return verbose() ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
}

// Settles the SGEMM or HGEMM kernel picked for a call: whether it can run the call (if not, its
// reason goes to `refused`, and a kernel the table named in auto mode gives way to our own choice
// for the shape) and whether the table's word that it beats cuBLAS stands (*wins). Returns whether
// a kernel can take the call.
template <class K>
static bool settle_kernel(K* kernel, const GemmProblem& p, bool table_kernel, Backend backend, bool* wins,
                          std::string* refused, const char* (*can_implement)(K, const GemmProblem&),
                          K (*choose)(const GemmProblem&), const char* (*name)(K)) {
  const char* no = can_implement(*kernel, p);
  if (!no) {
    *wins = table_kernel;
    return true;
  }
  if (verbose()) *refused += std::string(name(*kernel)) + ": " + no;  // (text only for the log)
  if (table_kernel && backend != Backend::kernels) {  // the measured kernel cannot run it
    *kernel = choose(p);
    no = can_implement(*kernel, p);
  }
  return no == nullptr;
}

// run_gemm past straight_to_cpu: locating the operands, the rules, the table and the paths.
__attribute__((noinline)) static void run_gemm_routed(GemmProblem& p) {
  const auto t0 = call_start();
  const CallRange range("%s %c%c %dx%dx%d beta=%g", p.routine == Routine::hgemm ? "hgemm" : "sgemm", op_char(p.ta),
                        op_char(p.tb), p.m, p.n, p.k, double(p.beta));
  MYBLAS_STAGE_BEGIN();
  const bool gpu = gpu_available();
  if (gpu) {
    const bool ab = !p.scale_only();  // alpha == 0 or k == 0: A and B are never touched
    p.device = locate_operands({{p.c, &p.mem_c, &p.dev_c},
                                {ab ? p.a : nullptr, &p.mem_a, &p.dev_a},
                                {ab ? p.b : nullptr, &p.mem_b, &p.dev_b}});
  }
  MYBLAS_STAGE(kStageLocate);
  // Host-array SGEMM that the rules send to the CPU with a GPU present (MYBLAS_BACKEND=cpu; auto
  // where the shape's host row, or every host row, says the CPU; without a GPU run_gemm's
  // straight path took it) goes to the CPU BLAS once its operands are located, as SGEMV's does
  // below: the general path's kernel choice, staging and fallback bookkeeping were as much
  // as the library's whole cost on a 64^3 call. Verbose calls, a lost GPU and alpha == 0 or
  // k == 0 take the general path.
  if (p.routine == Routine::sgemm && !p.any_device() && !p.scale_only() && (gpu || !gpu_lost()) && !verbose()) {
    const Backend backend = backend_setting();
    const DispatchTable* t = gpu && backend == Backend::auto_ ? &dispatch_table(p.device) : nullptr;
    const TableEntry* host = t && t->host_gpu_rows[int(Routine::sgemm)]
                                 ? lookup(*t, Routine::sgemm, Mem::host, p.ta, p.tb, p.m, p.n, p.k, p.beta == 0.f)
                                 : nullptr;
    const Request req{Routine::sgemm, backend, gpu, false, false, false, host && host->path == Path::cublas};
    if (choose(req).path == Path::cpu) {
      const CallRange cpu_range("cpu");
      cpu_sgemm_host(p);
      set_last_path(Path::cpu);
      return;
    }
  }
  if (!gpu && gpu_lost()) {
    const size_t es = p.ab_elem_size();
    const bool ab = !p.scale_only();
    if (!operands_readable({{p.c, span_bytes(p.m, p.n, p.ldc, p.c_elem_size())},
                            {ab ? p.a : nullptr, ab ? span_bytes(p.a_rows(), p.a_cols(), p.lda, es) : 0},
                            {ab ? p.b : nullptr, ab ? span_bytes(p.b_rows(), p.b_cols(), p.ldb, es) : 0}},
                           routine_name(p.routine))) {
      set_last_path(Path::none);
      return;
    }
  }
  const Backend backend = backend_setting();
  // The measured table (only looked up when a GPU can run the call): device operands take our
  // kernel where the device rows bracket the shape, else cuBLAS; host arrays the nearest host
  // shape (the GPU pipeline or the CPU).
  // (The table has rows for SGEMM and HGEMM; sbgemm and shgemm take the rules' defaults.)
  const bool tabled = p.routine == Routine::sgemm || p.routine == Routine::hgemm;
  const DispatchTable* table =
      gpu && tabled && backend == Backend::auto_ && !p.scale_only() ? &dispatch_table(p.device) : nullptr;
  // Device operands: a kernel only where the table's rows bracket the shape (dispatch/device_rule.h).
  const DeviceEvidence evidence = table && p.any_device()
                                      ? device_evidence_cached(*table, p.routine, p.ta, p.tb, p.m, p.n, p.k, p.beta == 0.f)
                                      : DeviceEvidence{};
  const TableEntry* entry = !table            ? nullptr
                            : p.any_device() ? evidence.row
                                             : lookup(*table, p.routine, Mem::host, p.ta, p.tb, p.m, p.n, p.k, p.beta == 0.f);
  // HGEMM with beta != 0 on device operands, measured against raw cublasGemmEx (binary16 C, same
  // beta) on the H100 (bench/results/h100-gemm16-beta-2026-11-28/h100-gemm16-beta-2026-11-28-run2.csv): the once-rounded
  // cuBLAS path pays passes over an FP32 scratch C (0.31-0.86x raw), our wgmma kernel applies beta
  // in its epilogue (0.71-1.13x raw from m, n >= 1024; 0.97-1.10x at 2048^3-8192^3) and beats it
  // on every such shape measured, so it takes them whatever the table's rows (measured before its
  // 16-byte epilogue) say. With m or n <= 256 its few 128 x 256 tiles leave most SMs idle
  // (0.48-0.59x) and cuBLAS's path (0.81-0.94x) keeps them.
  const bool auto_device = backend == Backend::auto_ && p.any_device();
  const bool hgemm_beta = p.routine == Routine::hgemm && p.beta != 0.f && auto_device;
  // One side of 16 or less with the large operand contiguous along k: the streaming kernel, which
  // rounds once in one kernel: on the H200 with the synchronise, beta 0.5 and 1, 16 x 4096 x 4096
  // (B 'N') took 26.0 and 26.2 us and 4096 x 16 x 4096 (A 'T') 26.3 and 26.2, against 29.6-31.7
  // for the once-rounded cuBLAS path and 26.2-27.3 for raw cublasGemmEx (rounding twice) plus a
  // synchronise; at 32 rows or columns it was no faster than the cuBLAS path
  // (bench/results/h200-hgemm-skinny-2026-11-28.md). Taken for the long side and k from 2048 to
  // 8192 around the shapes measured.
  const auto within = [](int x) { return x >= 2048 && x <= 8192; };
  const bool stream_shape = ((p.m <= 16 && p.tb == Op::N && within(p.n)) || (p.n <= 16 && p.ta == Op::T && within(p.m))) &&
                            within(p.k);
  // A side of 16 to 256: the wgmma split-k kernel, which rounds once in one kernel, for the long
  // side and k from 2048 to 8192 around the shapes measured (H200, single calls beside raw
  // cublasGemmEx, bench/results/h200-hgemm-skinny-2026-11-28.md):
  // - beta != 0, against the once-rounded cuBLAS path it replaces: 0.96-1.30x with a side of
  //   16-128 (two runs; below 1.0 only 24 x 4096 x 4096 NN, lda 24), 0.95-1.09x at 129-256 with
  //   the long side 4096 or more (0.91-0.94x at 2048: not there);
  // - beta == 0, against cuBLAS itself: 1.02-1.35x the raw call's time with a side of 16-128
  //   (two runs);
  // - at a side of 16 it is also faster than the streaming kernel where its short operand is
  //   K-major (A 'T' with m small, B 'N' with n small): 4096 x 16 x 4096 TN 18.5-21.7 us against
  //   21.0-22.8 in two runs (10.4 against 11.3 back to back); elsewhere at 16 the streaming
  //   kernel keeps its shapes (16 x 4096 x 4096 NN: 20.9-22.9 against 21.2-23.5).
  // Not where the short operand runs along its short side in memory (A 'N' with m small, B 'T'
  // with n small) with a leading dimension off multiples of 64 elements: its copies straddle
  // cache lines (200 x 4096 x 4096 NN, lda 200: 41-44 us against 28-30 at 256; 24 and 96 rows
  // 0.85-1.14x raw over three runs, no gain to count on), so beta == 0 stays on cuBLAS there,
  // and beta != 0 above 128.
  const int short_side = std::min(p.m, p.n), long_side = std::max(p.m, p.n);
  const bool short_mn = wsplit::short_mn_major(p);
  const int64_t short_ld = p.m <= p.n ? p.lda : p.ldb;
  const bool straddles = short_mn && short_ld % 64 != 0;
  const bool wsplit_shape = p.routine == Routine::hgemm && auto_device && gpu && short_side >= 16 &&
                            short_side <= 256 && within(long_side) && within(p.k) &&
                            hgemm_can_implement(HgemmKernel::wgmma_splitk, p) == nullptr;
  const bool hgemm_beta_stream = hgemm_beta && gpu && stream_shape && !(wsplit_shape && !short_mn) &&
                                 hgemm_can_implement(HgemmKernel::skinny_stream, p) == nullptr;
  const bool hgemm_beta_wsplit = hgemm_beta && !hgemm_beta_stream && wsplit_shape &&
                                 (short_side <= 128 || (long_side >= 4096 && !straddles));
  const bool hgemm_zero_wsplit = p.beta == 0.f && wsplit_shape && short_side <= 128 && !straddles;
  const bool hgemm_beta_cublas = hgemm_beta && !hgemm_beta_stream && !hgemm_beta_wsplit && (p.m <= 256 || p.n <= 256);
  const bool hgemm_beta_kernel = hgemm_beta_stream || hgemm_beta_wsplit ||
                                 (hgemm_beta && p.m >= 1024 && p.n >= 1024 && gpu &&
                                  hgemm_can_implement(HgemmKernel::wgmma_tma, p) == nullptr);
  const bool table_kernel = evidence.kernel && !hgemm_beta_cublas && !hgemm_beta_kernel && !hgemm_zero_wsplit;
  // sbgemm and shgemm have no table rows: in auto mode the wgmma kernel takes the shapes where it
  // measured faster than cublasGemmEx (16-bit in, FP32 out) with beta == 0 on the H100, m, n >=
  // 2048 with m*n <= 4096^2 and k <= 2048: 1.04-1.11x (sbgemm), 1.03-1.9x (shgemm)
  // (bench/results/h100-gemm16-beta-2026-11-28/h100-gemm16-beta-2026-11-28-run1.csv; run2: 1.00-1.19x). Elsewhere, and with
  // beta != 0 (0.75-1.03x), cuBLAS.
  const bool mixed_kernel = p.mixed() && auto_device && p.beta == 0.f && p.m >= 2048 && p.n >= 2048 &&
                            int64_t(p.m) * p.n <= (int64_t(1) << 24) && p.k <= 2048;
  const bool rule_kernel = mixed_kernel || hgemm_beta_kernel || hgemm_zero_wsplit;
  // Our SGEMM/HGEMM kernel for this shape: MYBLAS_SGEMM_KERNEL / MYBLAS_HGEMM_KERNEL when
  // forced (for the calls it can run), else the table's kernel, else our choice; auto mode
  // takes it only where the table's entry says kernels and that kernel can run the call, so
  // other calls skip the choice (cold host caches made it ~1 us of a 20 us call:
  // bench/probes/probe_call_overhead --cold).
  // With the SGEMM precision mode on (MYBLAS_SGEMM_PRECISION), the shapes it takes run on its
  // path (behind the cuBLAS path), not on our FP32 kernels.
  const bool tf32x3 = gpu && sgemm_tc_applies(p);
  const bool can_take =
      kernel_possible(gpu, backend, p.any_device()) && (table_kernel || rule_kernel || backend == Backend::kernels) &&
      !tf32x3;
  bool has_kernel = false, kernel_wins = false;
  SgemmKernel kernel = SgemmKernel::naive;
  HgemmKernel hkernel = HgemmKernel::wmma;
  std::string refused;  // why our kernel cannot run this call (verbose log)
  if (gpu && p.scale_only()) {
    has_kernel = true;  // C := beta*C is our own scaling kernel on either GPU path
  } else if (can_take && p.routine == Routine::sgemm) {
    kernel = table_kernel ? entry_sgemm_kernel(*entry) : sgemm_choose(p);
    if (backend == Backend::kernels && !config().sgemm_kernel.empty()) {
      SgemmKernel named;
      if (!sgemm_kernel_from_name(config().sgemm_kernel.c_str(), &named))
        warn_once("sgemm-kernel", "unknown MYBLAS_SGEMM_KERNEL '" + config().sgemm_kernel + "'");
      else if (sgemm_can_implement(named, p) == nullptr)
        kernel = named;
    }
    has_kernel = settle_kernel(&kernel, p, table_kernel, backend, &kernel_wins, &refused, sgemm_can_implement,
                               sgemm_choose, sgemm_kernel_name);
  } else if (can_take && (p.routine == Routine::hgemm || p.mixed())) {  // (sbgemm, shgemm: the wgmma kernel)
    hkernel = table_kernel ? entry_hgemm_kernel(*entry) : hgemm_choose(p);
    if (backend == Backend::kernels && !config().hgemm_kernel.empty()) {
      HgemmKernel named;
      if (!hgemm_kernel_from_name(config().hgemm_kernel.c_str(), &named))
        warn_once("hgemm-kernel", "unknown MYBLAS_HGEMM_KERNEL '" + config().hgemm_kernel + "'");
      else if (const char* no = hgemm_can_implement(named, p))
        refused = verbose() ? std::string(hgemm_kernel_name(named)) + ": " + no + "; " : std::string();
      else
        hkernel = named;
    }
    has_kernel = settle_kernel(&hkernel, p, table_kernel || rule_kernel, backend, &kernel_wins, &refused, hgemm_can_implement,
                               hgemm_choose, hgemm_kernel_name);
  }
  const TableEntry* host = entry && entry->mem == Mem::host ? entry : nullptr;
  const Request req{p.routine, backend, gpu, p.any_device(), has_kernel, kernel_wins,
                    host && host->path == Path::cublas};
  const Rule& rule = choose(req);
  MYBLAS_STAGE(kStageChoose);
  const Path path = execute(
      rule, p, routine_name(p.routine),
      [&p, kernel, hkernel, tf32x3](Path chosen, std::string* why) {
        if (chosen != Path::kernels) return cublas_gemm(p, why, tf32x3);
        return p.routine == Routine::sgemm ? kernel_gemm(p, kernel, why) : kernel_hgemm(p, hkernel, why);
      },
      cpu_gemm, p.routine == Routine::hgemm ? hgemm_kernel_name(hkernel) : sgemm_kernel_name(kernel));
  set_last_path(path);
  MYBLAS_STAGE_END(strformat("%s %c%c %dx%dx%d beta%s %s", routine_name(p.routine), op_char(p.ta), op_char(p.tb), p.m,
                             p.n, p.k, p.beta == 0.f ? "0" : "!=0", path_name(path)));
  if (verbose()) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const std::string table_used = table && p.any_device() ? evidence_note(*table, evidence)
                                   : entry                 ? table_note(*table, *entry)
                                                           : std::string();
    const char* kname = p.routine == Routine::sgemm ? sgemm_kernel_name(kernel) : hgemm_kernel_name(hkernel);
    const std::string detail = (path == Path::kernels ? std::string(" kernel=") + kname : std::string()) +
                               (refused.empty() ? std::string() : " kernel-refused=(" + refused + ")") + table_used;
    log_line(strformat("%s %c%c m=%d n=%d k=%d mem(a,b,c)=%s path=%s rule=%s%s time=%.3f ms",
                       routine_name(p.routine), op_char(p.ta), op_char(p.tb), p.m, p.n, p.k,
                       mems(p.mem_a, p.mem_b, p.mem_c).c_str(), path_name(path), rule.name,
                       detail.c_str(), ms));
  }
}

// The size the measured table and the verbose log know a BlasProblem by: (m, n, k) with k = 0 for
// gemv and, for the routines without a k (symm, hemm, trmm, trsm), the order of A.
static void table_shape(const BlasProblem& p, int* m, int* n, int* k) {
  auto clamp = [](int64_t v) { return int(v > INT32_MAX ? INT32_MAX : v); };
  *m = clamp(rank_update(p.family) ? p.n : p.m);
  *n = clamp(p.n);
  switch (p.family) {
    case Family::gemv: *k = 0; break;
    case Family::symm: case Family::hemm: case Family::trmm: case Family::trsm: *k = clamp(p.a_rows()); break;
    default: *k = clamp(p.k); break;
  }
}

__attribute__((noinline)) static void run_blas_routed(BlasProblem& p) {
  const auto t0 = call_start();
  MYBLAS_STAGE_BEGIN();
  const Routine r = p.routine();
  // (options in the order side, uplo, op(A), op(B), diag; the sizes m, n, k as the problem holds them)
  const CallRange range("%s %c%c%c%c%c %lldx%lldx%lld", routine_name(r), p.side, p.uplo, p.ta, p.tb, p.diag,
                        (long long)p.m, (long long)p.n, (long long)p.k);
  const bool gpu = gpu_available();
  if (gpu) {
    const bool ab = !p.scale_only();
    p.device = locate_operands({{p.c, &p.mem_c, &p.dev_c},
                                {ab ? p.a : nullptr, &p.mem_a, &p.dev_a},
                                {ab && p.reads_b() ? p.b : nullptr, &p.mem_b, &p.dev_b}});
  }
  MYBLAS_STAGE(kStageLocate);
  // Host-array GEMM and GEMV (D, C, Z) that the rules send to the CPU with a GPU present (without
  // one run_blas's straight path took them) go to the CPU BLAS once their operands are located
  // (cpu_host_item: no staging, no path bookkeeping), as SGEMM's and SGEMV's do: the general
  // path's was about 0.2 us on a 0.5 us 64 x 64 DGEMV. The same rules decide, with the same
  // inputs. Verbose calls, a lost GPU (operands to check), alpha == 0, conj(A) GEMV (its copy
  // of x may throw) and routines the CPU BLAS lacks take the general path.
  if ((p.family == Family::gemm || p.family == Family::gemv) && p.type != Dtype::h && p.ta != 'R' &&
      !p.any_device() &&
      !p.scale_only() && (gpu || !gpu_lost()) && !verbose() && cpu_blas_has(r)) {
    const Backend backend = backend_setting();
    const DispatchTable* t = gpu && backend == Backend::auto_ ? &dispatch_table(p.device) : nullptr;
    bool host_gpu = false;
    if (t && t->host_gpu_rows[int(r)]) {
      int tm, tn, tk;
      table_shape(p, &tm, &tn, &tk);
      const TableEntry* host = lookup(*t, r, Mem::host, Op::N, Op::N, tm, tn, tk, p.beta.zero());
      host_gpu = host && host->path == Path::cublas;
    }
    const Request req{r, backend, gpu, false, false, false, host_gpu};
    if (choose(req).path == Path::cpu) {
      const CallRange cpu_range("cpu");
      cpu_host_item(p);
      set_last_path(Path::cpu);
      return;
    }
  }
  if (!gpu && gpu_lost()) {
    const size_t es = p.elem_size();
    const bool ab = !p.scale_only();
    const bool gemv = p.family == Family::gemv;
    auto vec = [es](int64_t len, int64_t inc) {
      return len > 0 ? (size_t(len - 1) * size_t(inc < 0 ? -inc : inc) + 1) * es : 0;
    };
    auto mat = [es](int64_t rows, int64_t cols, int64_t ld) {
      return rows > 0 && cols > 0 ? (size_t(cols - 1) * size_t(ld) + size_t(rows)) * es : 0;
    };
    if (!operands_readable({{p.c, gemv ? vec(p.c_rows(), p.ldc) : mat(p.c_rows(), p.c_cols(), p.ldc)},
                            {ab ? p.a : nullptr, ab ? mat(p.a_rows(), p.a_cols(), p.lda) : 0},
                            {ab && p.reads_b() ? p.b : nullptr,
                             ab && p.reads_b() ? (gemv ? vec(p.b_rows(), p.ldb) : mat(p.b_rows(), p.b_cols(), p.ldb))
                                               : 0}},
                           routine_name(r))) {
      set_last_path(Path::none);
      return;
    }
  }
  // GEMV of conj(A) without a transpose (row-major CBLAS ConjTrans) has no cuBLAS form.
  const Backend backend = p.family == Family::gemv && p.ta == 'R' ? Backend::cpu : backend_setting();
  int tm, tn, tk;
  table_shape(p, &tm, &tn, &tk);
  // Host arrays: the measured host rows of this routine decide between the CPU BLAS and the GPU;
  // a routine the CPU BLAS lacks goes to the GPU when there is one (its built-in loops are slow).
  const DispatchTable* table =
      gpu && backend == Backend::auto_ && !p.scale_only() && !p.any_device() ? &dispatch_table(p.device) : nullptr;
  const TableEntry* host = table && (table->host_gpu_rows[int(r)] || verbose())
                               ? lookup(*table, r, Mem::host, Op::N, Op::N, tm, tn, tk, p.beta.zero())
                               : nullptr;
  const bool cpu_lacks = !cpu_blas_has(r);
  const Request req{r, backend, gpu, p.any_device(), false, false,
                    (host && host->path == Path::cublas) || (gpu && cpu_lacks && !p.scale_only())};
  const Rule& rule = choose(req);
  MYBLAS_STAGE(kStageChoose);
  const Path path = execute(
      rule, p, routine_name(r), [&p](Path, std::string* why) { return cublas_blas_problem(p, why); },
      cpu_blas_problem);
  set_last_path(path);
  MYBLAS_STAGE_END(strformat("%s %c%c%c%c%c %lldx%lldx%lld mem=%c %s", routine_name(r), p.side, p.uplo, p.ta, p.tb,
                             p.diag, (long long)p.m, (long long)p.n, (long long)p.k, p.any_device() ? 'd' : 'h',
                             path_name(path)));
  if (verbose()) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const std::string opts = p.family == Family::gemm ? strformat("%c%c", p.ta, p.tb)
                             : p.family == Family::gemv ? strformat("%c", p.ta)
                             : strformat("side=%c uplo=%c trans=%c diag=%c", p.side, p.uplo, p.ta, p.diag);
    log_line(strformat("%s %s m=%lld n=%lld k=%lld mem(a,b,c)=%s path=%s rule=%s%s%s time=%.3f ms", routine_name(r),
                       opts.c_str(), (long long)p.m, (long long)p.n, (long long)p.k,
                       mems(p.mem_a, p.mem_b, p.mem_c).c_str(), path_name(path), rule.name,
                       cpu_lacks ? " cpu-blas-lacks-it" : "", host ? table_note(*table, *host).c_str() : "", ms));
  }
}

__attribute__((noinline)) static void run_gemv_routed(GemvProblem& p) {
  const auto t0 = call_start();
  const CallRange range("sgemv %c %dx%d beta=%g", op_char(p.ta), p.m, p.n, double(p.beta));
  MYBLAS_STAGE_BEGIN();
  const bool gpu = gpu_available();
  if (gpu) {
    const bool ax = !p.scale_only();
    p.device = locate_operands({{p.y, &p.mem_y, &p.dev_y},
                                {ax ? p.a : nullptr, &p.mem_a, &p.dev_a},
                                {ax ? p.x : nullptr, &p.mem_x, &p.dev_x}});
  }
  MYBLAS_STAGE(kStageLocate);
  // Host arrays that the rules send to the CPU whatever the shape with a GPU present
  // (MYBLAS_BACKEND=cpu; auto with host rows that never name the GPU, as on the H100; without a
  // GPU run_gemv's straight path took them) skip the kernel choice, the
  // table lookup and the staging code below: at 64^2 a whole call lasts about 1 us, and the
  // library's own part showed as 7% of it. The rules decide with no kernel and, where some
  // host row names the GPU, as if it won (then the general path looks the shape up). Verbose
  // calls, a lost GPU (operands to check) and alpha == 0 take the general path.
  if (!p.any_device() && !p.scale_only() && (gpu || !gpu_lost()) && !verbose()) {
    const Request req{Routine::sgemv, backend_setting(), gpu, false, false, false,
                      gpu && dispatch_table(p.device).host_gpu_rows[int(Routine::sgemv)]};
    const CallRange cpu_range("cpu");
    if (choose(req).path == Path::cpu && cpu_gemv_host(p)) {
      set_last_path(Path::cpu);
      return;
    }
  }
  if (!gpu && gpu_lost()) {
    const bool ax = !p.scale_only();
    if (!operands_readable({{p.y, vec_bytes(p.len_y(), p.incy)},
                            {ax ? p.a : nullptr, ax ? span_bytes(p.m, p.n, p.lda, 4) : 0},
                            {ax ? p.x : nullptr, ax ? vec_bytes(p.len_x(), p.incx) : 0}},
                           "sgemv")) {
      set_last_path(Path::none);
      return;
    }
  }
  const Backend backend = backend_setting();
  // Which kernel: MYBLAS_SGEMV_KERNEL when forced, else the measured table's, else our choice.
  // Looked up only for calls a kernel could take (a GPU, and device operands or
  // MYBLAS_BACKEND=kernels; never with MYBLAS_BACKEND=cublas), and auto mode chooses only where
  // its table entry names a kernel. Host arrays in auto mode need only the host rows.
  const DispatchTable* table = gpu ? &dispatch_table(p.device) : nullptr;
  const bool kernel_mode = kernel_possible(gpu, backend, p.any_device()) && backend != Backend::cublas;
  // Auto mode: a kernel only where the table's rows bracket the shape (dispatch/device_rule.h);
  // MYBLAS_BACKEND=kernels: the nearest row's kernel as the first to try.
  const bool auto_mode = backend == Backend::auto_;
  const DeviceEvidence evidence = table && kernel_mode && auto_mode
                                      ? device_evidence_cached(*table, Routine::sgemv, p.ta, Op::N, p.m, p.n, 0, p.beta == 0.f)
                                      : DeviceEvidence{};
  const TableEntry* entry =
      auto_mode ? evidence.row
      : table && kernel_mode
          ? lookup(*table, Routine::sgemv, Mem::device, p.ta, Op::N, p.m, p.n, 0, p.beta == 0.f)
          : nullptr;
  const bool table_kernel = auto_mode ? evidence.kernel : entry && entry->path == Path::kernels;
  const bool can_take = kernel_mode && (table_kernel || backend == Backend::kernels);
  SgemvKernel kernel = table_kernel ? entry_sgemv_kernel(*entry)
                       : can_take   ? sgemv_choose(p)
                                    : SgemvKernel::thread_per_row;
  if (backend == Backend::kernels && !config().sgemv_kernel.empty()) {
    // The named kernel takes the calls it can run (an N-only kernel leaves T calls to the
    // measured choice).
    SgemvKernel named;
    if (!sgemv_kernel_from_name(config().sgemv_kernel.c_str(), &named))
      warn_once("sgemv-kernel", "unknown MYBLAS_SGEMV_KERNEL '" + config().sgemv_kernel + "'");
    else if (gpu && sgemv_can_implement(named, p) == nullptr)
      kernel = named;
  }
  const bool can = can_take && sgemv_can_implement(kernel, p) == nullptr;
  // (Host rows that all say cpu decide nothing: then the lookup is only for the verbose log.)
  const bool host_lookup = table && backend == Backend::auto_ && !p.any_device() && !p.scale_only() &&
                           (table->host_gpu_rows[int(Routine::sgemv)] || verbose());
  const TableEntry* host = host_lookup
                               ? lookup(*table, Routine::sgemv, Mem::host, p.ta, Op::N, p.m, p.n, 0, p.beta == 0.f)
                               : nullptr;
  const Request req{Routine::sgemv, backend, gpu, p.any_device(), can, can && table_kernel,
                    host && host->path == Path::cublas};
  const Rule& rule = choose(req);
  MYBLAS_STAGE(kStageChoose);
  const Path path = execute(
      rule, p, "sgemv",
      [&p, kernel](Path chosen, std::string* why) {
        return chosen == Path::kernels ? kernel_gemv(p, kernel, why) : cublas_gemv(p, why);
      },
      cpu_gemv, sgemv_kernel_name(kernel));
  set_last_path(path);
  MYBLAS_STAGE_END(strformat("sgemv %c %dx%d beta%s %s", op_char(p.ta), p.m, p.n, p.beta == 0.f ? "0" : "!=0",
                             path_name(path)));
  if (verbose()) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::string detail;
    if (path == Path::kernels || rule.path == Path::kernels) detail = std::string(" kernel=") + sgemv_kernel_name(kernel);
    if (p.any_device() && table && auto_mode) detail += evidence_note(*table, evidence);
    else if (host && auto_mode) detail += table_note(*table, *host);
    log_line(strformat("sgemv %c m=%d n=%d incx=%d incy=%d mem(a,x,y)=%s path=%s rule=%s%s time=%.3f ms",
                       op_char(p.ta), p.m, p.n, p.incx, p.incy,
                       mems(p.mem_a, p.mem_x, p.mem_y).c_str(), path_name(path), rule.name,
                       detail.c_str(), ms));
  }
}

// Each entry first tries straight_to_cpu; the general path is a separate function, so that this
// one stays small (no large stack frame to set up on the CPU path). The CPU BLAS is not handed
// alpha == 0 or k == 0 (the CPU backends scale C themselves), HGEMM (widened to FP32 first), nor
// conj(A) GEMV and routines it lacks: those take the general path.
void run_gemm(GemmProblem& p) {
  if (p.routine == Routine::sgemm && !p.scale_only() &&
      (straight_to_cpu() || heap_call_to_cpu(Routine::sgemm, {p.a, p.b, p.c}, [&p](const DispatchTable& t) {
         return host_row_gpu(t, Routine::sgemm, p.ta, p.tb, p.m, p.n, p.k, p.beta == 0.f);
       }))) {
    const CallRange range("sgemm %c%c %dx%dx%d beta=%g", op_char(p.ta), op_char(p.tb), p.m, p.n, p.k,
                          double(p.beta));
    const CallRange cpu_range("cpu");
    cpu_sgemm_host(p);
    set_last_path(Path::cpu);
    return;
  }
  run_gemm_routed(p);
}

void run_gemv(GemvProblem& p) {
  if (!p.scale_only() &&
      (straight_to_cpu() || heap_call_to_cpu(Routine::sgemv, {p.a, p.x, p.y}, [&p](const DispatchTable& t) {
         return host_row_gpu(t, Routine::sgemv, p.ta, Op::N, p.m, p.n, 0, p.beta == 0.f);
       }))) {
    const CallRange range("sgemv %c %dx%d beta=%g", op_char(p.ta), p.m, p.n, double(p.beta));
    const CallRange cpu_range("cpu");
    if (cpu_gemv_host(p)) {  // (false for vectors a 32-bit BLAS cannot index: the general path packs them)
      set_last_path(Path::cpu);
      return;
    }
  }
  run_gemv_routed(p);
}

void run_blas(BlasProblem& p) {
  if ((p.family == Family::gemm || p.family == Family::gemv) && p.type != Dtype::h && p.ta != 'R' &&
      !p.scale_only() && cpu_blas_has(p.routine()) &&
      (straight_to_cpu() ||
       heap_call_to_cpu(p.routine(), {p.a, p.reads_b() ? p.b : nullptr, p.c}, [&p](const DispatchTable& t) {
         int tm, tn, tk;
         table_shape(p, &tm, &tn, &tk);
         return host_row_gpu(t, p.routine(), Op::N, Op::N, tm, tn, tk, p.beta.zero());
       }))) {
    const CallRange range("%s %c%c%c%c%c %lldx%lldx%lld", routine_name(p.routine()), p.side, p.uplo, p.ta, p.tb,
                          p.diag, (long long)p.m, (long long)p.n, (long long)p.k);
    const CallRange cpu_range("cpu");
    cpu_host_item(p);
    set_last_path(Path::cpu);
    return;
  }
  run_blas_routed(p);
}

}  // namespace myblas

// ---- batches (core/batch.h) ----
namespace myblas {

namespace {

// Where the operands live: one kind of memory on one device, or mixed. A strided group's operands
// are each one allocation, located by their first product's; a group given as pointer arrays
// that step evenly (BatchGroup::stepped) too, when its last product's start in the same
// allocation as its first one's. Every other listed pointer is located: in
// the program-break heap without asking the driver, inside a device allocation already located
// without asking again, else by a driver query; long lists are split over the copy threads.
struct Where {
  bool any = false, mixed = false;
  Mem mem = Mem::host;
  int device = -1;
  void see(Mem m, int d) {
    if (!any) {
      any = true, mem = m, device = m == Mem::host ? -1 : d;
    } else if (m != mem || (m != Mem::host && d != device)) {
      mixed = true;
    }
  }
  void merge(const Where& o) {
    if (o.mixed) mixed = true;
    if (o.any) see(o.mem, o.device);
  }
};

// Per operand (A, B, C), the device allocation of the last device pointer located: the pointers
// of a batch in device memory mostly fall into a few allocations, located once each.
struct KnownRanges {
  uintptr_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  Mem mem[3] = {Mem::host, Mem::host, Mem::host};
  int dev[3] = {-1, -1, -1};
};

void locate_batch(BatchProblem& p) {
  const ProgramBreakArea heap = program_break_area();
  const size_t es = p.elem_size();
  auto locate_range = [&](const BatchGroup& g, int64_t i0, int64_t i1, KnownRanges* known, Where* w) {
    const bool ab = !g.scale_only(p.family);
    auto one = [&](int which, const void* ptr) {
      const uintptr_t at = reinterpret_cast<uintptr_t>(ptr);
      if (at >= known->lo[which] && at < known->hi[which]) {
        w->see(known->mem[which], known->dev[which]);
        return;
      }
      if (heap.contains(ptr)) {
        w->see(Mem::host, -1);
        return;
      }
      int d = -1;
      uintptr_t l = 0, h = 0;
      const Mem m = classify_pointer_range(ptr, &d, &l, &h);
      if (h > l) known->lo[which] = l, known->hi[which] = h, known->mem[which] = m, known->dev[which] = d;
      w->see(m, d);
    };
    for (int64_t i = i0; i < i1 && !w->mixed; ++i) {
      one(2, g.c_at(i, es));
      if (ab) {
        one(0, g.a_at(i, es));
        one(1, g.b_at(i, es));
      }
    }
  };
  // The end of operand w (0: A, 1: B) of a strided group's last product, as an address.
  auto last_end = [&](const BatchGroup& g, int w) {
    const BlasProblem q = p.item(g, g.count - 1);
    const int64_t inc_x = g.ldb < 0 ? -g.ldb : g.ldb;
    const int64_t span = w == 0                         ? (q.a_cols() - 1) * q.lda + q.a_rows()
                         : p.family == Family::gemv ? (q.b_rows() - 1) * inc_x + 1
                                                    : (q.b_cols() - 1) * q.ldb + q.b_rows();
    return reinterpret_cast<uintptr_t>(w == 0 ? q.a : q.b) + uintptr_t(span) * es;
  };
  Where all;
  for (BatchGroup& g : p.groups) {
    int64_t n = g.listed() ? g.count : 1;
    constexpr int64_t kPerTask = 512;
    KnownRanges known;
    if (g.stepped && g.count > 1) {
      // Pointer arrays that step evenly: when each operand's last product starts inside the
      // allocation its first one does, every product's does (the addresses only grow); else
      // every product is located.
      locate_range(g, 0, 1, &known, &all);
      // A group taken as strided before its A and B lists were checked (core/batch.h) stays so
      // only where the guess lies, to its last product's end, inside the device allocations its
      // first product's A and B start in (so that a wrong guess reads nothing outside them); else
      // its lists are checked now, before anything runs.
      const bool relisted = g.speculative() &&
                            !(last_end(g, 0) <= known.hi[0] && last_end(g, 1) <= known.hi[1]) &&
                            settle_speculation(&g, es);  // (back to its lists: every product located below)
      const bool ab = !g.scale_only(p.family);
      // Operand w (0: A, 1: B, 2: C) of product i, as an address.
      auto at = [&](int w, int64_t i) {
        return reinterpret_cast<uintptr_t>(w == 0 ? g.a_at(i, es) : w == 1 ? g.b_at(i, es) : g.c_at(i, es));
      };
      bool one_each = !relisted;
      for (int w = ab ? 0 : 2; w < 3 && one_each; ++w) {
        const uintptr_t last = at(w, g.count - 1);
        one_each = last >= known.lo[w] && last < known.hi[w];
      }
      // Pageable host memory has no range from the driver: one look at the process's mappings
      // instead of a query per product (dispatch/host_mapping.h).
      if (!relisted && !one_each && !all.mixed && all.mem == Mem::host && g.count > kPerTask) {
        one_each = true;
        for (int w = ab ? 0 : 2; w < 3 && one_each; ++w) {
          const uintptr_t first = at(w, 0), last = at(w, g.count - 1);
          one_each = heap.contains(reinterpret_cast<const void*>(first))
                         ? heap.contains(reinterpret_cast<const void*>(last))
                         : in_one_mapping(first, last);
        }
      }
      if (one_each || all.mixed) {
        if (all.mixed) break;
        continue;
      }
      n = g.count;
    }
    if (n <= 2 * kPerTask) {
      locate_range(g, 0, n, &known, &all);
    } else {
      // The first product here, so that every task starts knowing its operands' allocations
      // (else each task asked the driver again for the same ones).
      locate_range(g, 0, 1, &known, &all);
      const size_t tasks = size_t((n - 1 + kPerTask - 1) / kPerTask);
      std::vector<Where> part(tasks);
      parallel_for(tasks, [&](size_t t) {
        KnownRanges mine = known;
        locate_range(g, 1 + int64_t(t) * kPerTask, std::min(n, 1 + int64_t(t + 1) * kPerTask), &mine, &part[t]);
      });
      for (const Where& w : part) all.merge(w);
    }
    if (all.mixed) break;
  }
  p.mem = all.mem;
  p.device = all.device;
  p.mixed = all.mixed;
}

// One product of a mixed batch as a call of its own (each locates its operands again).
void run_alone(const BatchProblem& p, const BatchGroup& g, int64_t i) {
  BlasProblem q = p.item(g, i);
  if (p.type == Dtype::h || (p.type == Dtype::s && p.family == Family::gemm)) {
    GemmProblem s;
    s.routine = p.type == Dtype::h ? Routine::hgemm : Routine::sgemm;
    s.ta = q.ta == 'N' ? Op::N : Op::T;
    s.tb = q.tb == 'N' ? Op::N : Op::T;
    s.m = int(q.m), s.n = int(q.n), s.k = int(q.k);
    s.alpha = float(q.alpha.re), s.beta = float(q.beta.re);
    s.a = q.a, s.b = q.b, s.c = q.c;
    s.lda = int(q.lda), s.ldb = int(q.ldb), s.ldc = int(q.ldc);
    run_gemm(s);
    return;
  }
  if (p.type == Dtype::s && q.ta != 'R') {
    GemvProblem v;
    v.ta = q.ta == 'N' ? Op::N : Op::T;
    v.m = int(q.m), v.n = int(q.n);
    v.alpha = float(q.alpha.re), v.beta = float(q.beta.re);
    v.a = static_cast<const float*>(q.a);
    v.x = static_cast<const float*>(q.b);
    v.y = static_cast<float*>(q.c);
    v.lda = int(q.lda), v.incx = int(q.ldb), v.incy = int(q.ldc);
    run_gemv(v);
    return;
  }
  run_blas(q);
}

// The host-array batch paths' rates measured in this process, per class of batch
// (dispatch/batch_rule.h: batch_host_gpu_choose). A path's first call in the process is not
// counted (it starts the copy threads, the GPU's streams and pinned buffers, or the CPU BLAS's
// threads), then each class keeps the best rate seen.
struct HostBatchRates {
  static constexpr int kClasses = 4 * 2 * kBatchHostSizeClasses;
  std::atomic<double> cpu[kClasses], gpu[kClasses];  // (static storage: zero, not measured)
  std::atomic<bool> cpu_warm{false}, gpu_warm{false};
};
HostBatchRates g_host_batch_rates;

void keep_best(std::atomic<double>& slot, double v) {
  double cur = slot.load(std::memory_order_relaxed);
  while ((cur == 0 || v < cur) && !slot.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

}  // namespace

void run_batch(BatchProblem& p) {
  const auto t0 = call_start();
  const Routine r = routine_of(p.family, p.type);
  const bool gpu = gpu_available();
#ifdef MYBLAS_STAGE_CLOCK
  bool given_as_lists = false;  // (the stage clock's key: pointer arrays apart from strided calls)
  for (const BatchGroup& g : p.groups) given_as_lists = given_as_lists || g.listed() || g.stepped;
#endif
  if (gpu && device_memory_possible()) locate_batch(p);
  // Groups taken as strided before their A and B lists were checked (core/batch.h) run so only
  // on one device's memory (locate_batch kept them only where the guess stays inside the first
  // product's allocations); the others are settled now, before anything runs, and located again
  // if one went back to its lists.
  if (p.speculative() && !(gpu && !p.mixed && p.mem == Mem::device) && settle_speculation(&p) && gpu &&
      device_memory_possible())
    locate_batch(p);
  MYBLAS_STAGE(kStageLocate);
  if (p.mixed) {  // (rare) each product where its operands are
    for (const BatchGroup& g : p.groups)
      for (int64_t i = 0; i < g.count; ++i) run_alone(p, g, i);
    if (verbose()) log_line(strformat("%s_batch groups=%zu mixed memory: one call per product", routine_name(r),
                                      p.groups.size()));
    return;
  }
  if (!gpu && gpu_lost()) {  // the CPU runs only on memory it can read
    const size_t es = p.elem_size();
    for (const BatchGroup& g : p.groups)
      for (int64_t i = 0; i < g.count; ++i) {
        const BlasProblem q = p.item(g, i);
        auto mat = [es](int64_t rows, int64_t cols, int64_t ld) {
          return rows > 0 && cols > 0 ? (size_t(cols - 1) * size_t(ld < 0 ? -ld : ld) + size_t(rows)) * es : 0;
        };
        const bool gv = p.family == Family::gemv, ab = !g.scale_only(p.family);
        if (!operands_readable({{q.c, gv ? mat(1, q.c_rows(), q.ldc) : mat(q.m, q.n, q.ldc)},
                                {ab ? q.a : nullptr, ab ? mat(q.a_rows(), q.a_cols(), q.lda) : 0},
                                {ab ? q.b : nullptr, ab ? (gv ? mat(1, q.b_rows(), q.ldb)
                                                              : mat(q.b_rows(), q.b_cols(), q.ldb))
                                                        : 0}},
                               routine_name(r))) {
          set_last_path(Path::none);
          return;
        }
      }
  }
  const bool any_device = p.mem != Mem::host;
  const Backend backend = backend_setting();
  bool conj_gemv = false, kernel_takes = false;
  for (const BatchGroup& g : p.groups) {
    conj_gemv = conj_gemv || (p.family == Family::gemv && g.ta == 'R');
    SquareKernel rung;
    kernel_takes = kernel_takes || (p.family == Family::gemm && !batched_square_can_implement(p.type, g) &&
                                    batch_square_takes(p.type, g.n, backend == Backend::kernels, &rung));
  }
  // Our square kernel where it can run a group and the table (dispatch/batch_rule.h) says it
  // measured faster than cuBLAS's strided-batched call: the products are bound by memory traffic,
  // which it keeps to one read of A and B and one write of C in 16-byte accesses.
  // GEMV batches on host arrays stay on the CPU whatever the setting: each byte of A is used
  // once, so the host link never beats the CPU's memory (and the GPU path has no staging for them).
  const bool cpu_only = conj_gemv || (p.family == Family::gemv && !any_device);
  // Host arrays in auto mode: the CPU or the GPU path by the rates this process measured for
  // batches of this class, else by the rule (dispatch/batch_rule.h).
  const bool host_auto = gpu && backend == Backend::auto_ && !any_device && !cpu_only;
  BatchHostCost cost;
  int cls = 0;
  bool host_gpu = false, explore = false;
  if (host_auto) {
    cost = batch_host_cost(p);
    cls = batch_host_class(p.type, cost);
    const BatchHostRates rates{g_host_batch_rates.cpu[cls].load(std::memory_order_relaxed),
                               g_host_batch_rates.gpu[cls].load(std::memory_order_relaxed)};
    host_gpu = batch_host_gpu_choose(p, cost, rates, &explore);
  }
  const Request req{r, cpu_only ? Backend::cpu : backend, gpu, any_device, kernel_takes, kernel_takes, host_gpu};
  const Rule& rule = choose(req);
  MYBLAS_STAGE(kStageChoose);
  const auto t_run = std::chrono::steady_clock::now();
  const Path path = execute(
      rule, p, routine_name(r),
      [&p](Path chosen, std::string* why) { return gpu_batch(p, chosen == Path::kernels, why); }, cpu_batch);
  if (p.mispredicted) {  // a speculative group's lists did not step: its products ran, and now again
    if (verbose())
      log_line(strformat("%s_batch: pointer arrays taken as strided do not step; running them as listed",
                         routine_name(r)));
    p.mispredicted = false;
    undo_speculation(&p);
    run_batch(p);
    return;
  }
  set_last_path(path);
  MYBLAS_STAGE_END(strformat("%s_batch groups=%zu products=%lld mem=%c %s%s", routine_name(r), p.groups.size(),
                             (long long)p.total(), mem_char(p.mem), path_name(path),
                             given_as_lists ? " lists" : ""));
  // The call's rate, where the path chosen ran it (not after a fault) and the size is one the
  // choice weighs.
  if (host_auto && path == rule.path && batch_host_weighed(p, cost)) {
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_run).count();
    const bool on_cpu = path == Path::cpu;
    if ((on_cpu ? g_host_batch_rates.cpu_warm : g_host_batch_rates.gpu_warm).exchange(true))
      keep_best(on_cpu ? g_host_batch_rates.cpu[cls] : g_host_batch_rates.gpu[cls],
                on_cpu ? sec / cost.flops : sec / cost.bytes);
  }
  if (verbose()) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    log_line(strformat("%s_batch groups=%zu products=%lld mem=%c path=%s rule=%s%s time=%.3f ms", routine_name(r),
                       p.groups.size(), (long long)p.total(), mem_char(p.mem), path_name(path), rule.name,
                       explore ? " (measuring it)" : "", ms));
  }
}

}  // namespace myblas
