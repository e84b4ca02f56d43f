#include "backends/cuda/sgemm_tf32x3.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cuda/cuda_runtime.h"
#include "core/log.h"
#include "dispatch/tf32x3_rule.h"
#include "kernels/sgemm_tc.h"

namespace myblas {

namespace {

std::atomic<int> g_precision{-1};  // -1: not yet read from the environment

// Device scratch for the split operands, kept per thread and device between calls: at 4096^3
// it is 384 MB, which the stream-ordered pool (it keeps 256 MB) would map anew at every call.
// Two buffers, each with an event marking its last use, so that a thread alternating between
// two streams (the host-array pipeline) never makes one stream's split wait for the other's
// product. A buffer is reused without waiting when its last use is complete or was on the
// same stream; otherwise the call's stream waits for it on the device.
constexpr size_t kKeepBytes = size_t(2) << 30;  // larger needs come from the pool per call
constexpr size_t kStatsBytes = 256;             // Tf32x3Stats at the start of the scratch
struct Scratch {
  void* ptr = nullptr;
  size_t bytes = 0;
  cudaEvent_t last_use = nullptr;
  cudaStream_t last_stream = nullptr;
  bool used = false;
};
struct DeviceScratch {
  uint64_t context = 0;  // the context the buffers belong to (a cudaDeviceReset drops them)
  Scratch ring[2];
};
struct ThreadScratch {
  std::vector<DeviceScratch> by_device;
  void* pinned_stats = nullptr;  // host copy of the statistics
  cudaEvent_t stats_landed = nullptr;  // MYBLAS_SGEMM_TF32X3_STATS=overlap: the host copy is complete
  ~ThreadScratch() {  // (errors ignored: the process may be tearing CUDA down)
    if (stats_landed) cudaEventDestroy(stats_landed);
    for (DeviceScratch& d : by_device)
      for (Scratch& s : d.ring) {
        if (s.ptr) cudaFree(s.ptr);
        if (s.last_use) cudaEventDestroy(s.last_use);
      }
    if (pinned_stats) cudaFreeHost(pinned_stats);
  }
};
thread_local ThreadScratch t_scratch;

// A kept buffer of at least `bytes` usable in stream order on s, or nullptr (then *e says why,
// or cudaSuccess when the need is over the kept size).
Scratch* kept_scratch(int device, size_t bytes, cudaStream_t s, cudaError_t* e) {
  *e = cudaSuccess;
  if (bytes > kKeepBytes || device < 0) return nullptr;
  if (size_t(device) >= t_scratch.by_device.size()) t_scratch.by_device.resize(size_t(device) + 1);
  DeviceScratch& d = t_scratch.by_device[size_t(device)];
  const uint64_t ctx = current_context_id();
  if (d.context != ctx) {
    d = DeviceScratch{};  // (the old context's memory went with it)
    d.context = ctx;
  }
  Scratch* pick = nullptr;
  for (Scratch& c : d.ring)
    if (!c.used || c.last_stream == s || cudaEventQuery(c.last_use) == cudaSuccess) {
      pick = &c;
      break;
    }
  cudaGetLastError();  // (a cudaEventQuery of cudaErrorNotReady is no error)
  if (!pick) {
    pick = &d.ring[0];
    if ((*e = cudaStreamWaitEvent(s, pick->last_use, 0)) != cudaSuccess) return nullptr;
  }
  if (!pick->last_use && (*e = cudaEventCreateWithFlags(&pick->last_use, cudaEventDisableTiming)) != cudaSuccess) {
    pick->last_use = nullptr;
    return nullptr;
  }
  if (pick->bytes < bytes) {
    if (pick->ptr) {
      if ((*e = cudaEventSynchronize(pick->last_use)) != cudaSuccess) return nullptr;
      cudaFree(pick->ptr);
    }
    pick->ptr = nullptr;
    pick->bytes = 0;
    if ((*e = cudaMalloc(&pick->ptr, bytes)) != cudaSuccess) {
      pick->ptr = nullptr;
      return nullptr;
    }
    pick->bytes = bytes;
  }
  return pick;
}

bool cuda_step(cudaError_t e, const char* what, std::string* why) {
  if (e == cudaSuccess) return true;
  *why = note_cuda_error(e, what);
  return false;
}

// A switch of two words in the environment: unset, empty or `usual` gives `usual_on`, `other` its
// opposite; anything else warns once (under `tag`) and gives `usual_on`.
bool env_two_words(const char* var, const char* tag, const char* usual, bool usual_on, const char* other) {
  const char* v = std::getenv(var);
  if (!v || !*v || !std::strcmp(v, usual)) return usual_on;
  if (!std::strcmp(v, other)) return !usual_on;
  warn_once(tag, std::string("unknown ") + var + " '" + v + "'; using " + usual);
  return usual_on;
}

// The product kernel's variant (MYBLAS_SGEMM_TF32X3_KERNEL, read once; kernels/sgemm_tc.h).
Tf32x3Kernel product_kernel() {
  static const Tf32x3Kernel kernel = [] {
    std::string unknown;
    const Tf32x3Kernel k = tf32x3_kernel_from_env(&unknown);
    if (!unknown.empty())
      warn_once("sgemm-tf32x3-kernel", "unknown MYBLAS_SGEMM_TF32X3_KERNEL '" + unknown + "'; using " +
                                           tf32x3_kernel_name(k));
    return k;
  }();
  return kernel;
}

// MYBLAS_SGEMM_TF32X3_SPLITK: unset or auto, the product divides tiles into k-slices where whole
// tiles leave multiprocessors idle (tf32x3_splitk_choose: every tile, or only the last partial
// wave's; H200 product at 4096^3 1300-1348 us whole, 1200-1258 us with the last wave in 3 slices,
// 1024^3 58.0 against 48.6 us with every tile in 2); off: never (read once).
bool splitk_auto() {
  static const bool on = env_two_words("MYBLAS_SGEMM_TF32X3_SPLITK", "sgemm-tf32x3-splitk", "auto", true, "off");
  return on;
}

// The plan as the verbose line names it: ", split-K s" (every tile in s k-slices), ", split-K s
// after w whole tiles" (only the last wave's), or nothing.
std::string split_note(const Tf32x3Split& plan) {
  if (plan.splits <= 1) return std::string();
  return ", split-K " + std::to_string(plan.splits) +
         (plan.whole > 0 ? " after " + std::to_string(plan.whole) + " whole tiles" : std::string());
}

// MYBLAS_SGEMM_TF32X3_STATS=overlap: the product is queued right after the split and checks the
// statistics itself (tf32x3_refuse_rule on the device: a refused call writes nothing), while the
// host waits only for their copy, not between the split and the product; unset or wait: the host
// reads them before launching the product (read once). Not the default: on the H200 with the
// default kernel, overlap changed the mode's speed by -1.5% to +2.6% at 4096^3 and 8192^3
// (within the spread of one run) and was 7% slower at 1024^3 with split-K; with wait, C is
// touched only after the host has accepted the statistics.
bool stats_overlap() {
  static const bool on = env_two_words("MYBLAS_SGEMM_TF32X3_STATS", "sgemm-tf32x3-stats", "wait", false, "overlap");
  return on;
}

}  // namespace

SgemmPrecision sgemm_precision() {
  int v = g_precision.load(std::memory_order_relaxed);
  if (v < 0) {
    const Config& c = config();
    if (!c.sgemm_precision_error.empty())
      warn_once("sgemm-precision", "unknown MYBLAS_SGEMM_PRECISION '" + c.sgemm_precision_error + "'; using fp32");
    int expected = -1;
    g_precision.compare_exchange_strong(expected, int(c.sgemm_precision));
    v = g_precision.load(std::memory_order_relaxed);
  }
  return SgemmPrecision(v);
}

void set_sgemm_precision(SgemmPrecision p) { g_precision.store(int(p), std::memory_order_relaxed); }

bool sgemm_tc_applies(const GemmProblem& p) {
  if (p.routine != Routine::sgemm || p.scale_only()) return false;
  const SgemmPrecision mode = sgemm_precision();
  if (mode == SgemmPrecision::fp32) return false;
  if (mode == SgemmPrecision::tf32x3_all) return true;
  // Host arrays stay FP32: through the pipeline each tile would wait on the host for its split's
  // statistics, which took away the overlap of copies and products (8192^3 end to end 34.4 ms
  // against FP32's 27.2 on the H100, measured with the cuBLAS product).
  return p.any_device() && tf32x3_shape_gains(p.m, p.n, p.k);
}

namespace {

// One call's lines in the log (when verbose) and its refusal: refuse sets *why, logs that the call
// takes the FP32 path and why, and returns false.
struct CallLog {
  const GemmProblem& p;
  std::string* why;
  void note(const std::string& what) const {
    if (verbose())
      log_line(strformat("sgemm precision=tf32x3 %c%c m=%d n=%d k=%d: %s", op_char(p.ta), op_char(p.tb), p.m, p.n,
                         p.k, what.c_str()));
  }
  bool refuse(const std::string& reason) const {
    *why = reason;
    note("FP32 path (" + reason + ")");
    return false;
  }
};

// The fused variants (p64-ordered-fused, p64-ordered-fused-ahead): no split pass; the product
// splits the operands as it loads them and gathers the statistics, writes its sums to scratch,
// and its last pass applies alpha and beta unless the statistics refuse the split (then C is
// untouched and the host, reading them, runs the FP32 path). With beta == 0 and no split-K it
// writes C itself: the FP32 path of a refused call does not read C and overwrites all of it.
bool fused_run(const GemmProblem& p, cudaStream_t s, int dev, Tf32x3Kernel kernel, std::string* why) {
  const CallLog call{p, why};
  if (const char* no = tf32x3_wgmma_can_implement(4)) return call.refuse(no);
  int splits = 1;
  const int nkb = (p.k + 31) / 32;
  if (splitk_auto()) {
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess) {
      // (The fused product divides every tile or none: a plan that divides only the last wave's
      // tiles runs it undivided.)
      const Tf32x3Split plan = tf32x3_splitk_choose(p.m, p.n, 3 * p.k, sms, kernel);
      if (plan.whole == 0) splits = std::min(plan.splits, nkb);
    }
  }
  // (beta == 0 without split-K: the product writes C itself and needs no sums in scratch.)
  const bool direct = p.beta == 0.f && splits == 1;
  const size_t bytes = kStatsBytes + (direct ? 0 : tf32x3_fused_work_floats(p.m, p.n, splits) * 4);
  cudaError_t e;
  Scratch* kept = kept_scratch(dev, bytes, s, &e);
  if (!kept && e != cudaSuccess) return call.refuse(note_cuda_error(e, "scratch for the fused product's sums"));
  DeviceBuffer fresh;
  if (!kept && !cuda_step(fresh.allocate(bytes, s), "scratch for the fused product's sums", why))
    return call.refuse(*why);
  unsigned char* base = static_cast<unsigned char*>(kept ? kept->ptr : fresh.get());
  Tf32x3Stats* d_stats = reinterpret_cast<Tf32x3Stats*>(base);
  float* work = reinterpret_cast<float*>(base + kStatsBytes);
  if (!t_scratch.pinned_stats &&
      !cuda_step(cudaHostAlloc(&t_scratch.pinned_stats, sizeof(Tf32x3Stats), cudaHostAllocPortable),
                 "pinned memory for the split statistics", why)) {
    t_scratch.pinned_stats = nullptr;
    if (kept) kept->used = false;
    return call.refuse(*why);
  }
  Tf32x3Stats* h_stats = static_cast<Tf32x3Stats*>(t_scratch.pinned_stats);
  bool queued = cuda_step(cudaMemsetAsync(d_stats, 0, sizeof(Tf32x3Stats), s), "clearing the split statistics", why);
  if (queued) {
    const cudaError_t pe = tf32x3_fused_product(p.m, p.n, p.k, p.alpha, static_cast<const float*>(p.a), p.lda,
                                                p.ta == Op::N, static_cast<const float*>(p.b), p.ldb, p.tb == Op::T,
                                                p.beta, static_cast<float*>(p.c), p.ldc, s, splits, work, d_stats, kernel);
    queued = cuda_step(pe, "the fused 3xTF32 product", why) &&
             cuda_step(cudaMemcpyAsync(h_stats, d_stats, sizeof(Tf32x3Stats), cudaMemcpyDeviceToHost, s),
                       "reading the split statistics", why);
  }
  if (kept) {  // (whatever was queued reads the scratch)
    kept->used = true;
    kept->last_stream = s;
    cudaEventRecord(kept->last_use, s);
  }
  // Where the product could not be queued C is untouched (its last pass alone writes C, and only
  // once the product itself was queued). A failure after that (the copy of the statistics, the
  // wait) is a failure of the device, where C may be partly written, as for the other paths' faults.
  if (!queued) return call.refuse(*why);
  if (!cuda_step(cudaStreamSynchronize(s), "the fused 3xTF32 product", why)) return call.refuse(*why);
  if (const char* no = tf32x3_refuse(*h_stats, p.k)) return call.refuse(no);
  call.note(std::string("3xTF32 (fused product ") + tf32x3_kernel_name(kernel) + ", sums promoted every 64 terms" +
       (splits > 1 ? ", split-K " + std::to_string(splits) : std::string()) + ", statistics checked on the device)");
  return true;
}

}  // namespace

bool sgemm_tc_run(const GemmProblem& p, cudaStream_t s, std::string* why) {
  const CallLog call{p, why};
  if (!std::isfinite(p.alpha) || !std::isfinite(p.beta)) return call.refuse("alpha or beta is Inf or NaN");
  if (tf32x3_ld(p.k) > INT_MAX) return call.refuse("3k exceeds the int range of the product's depth");
  int dev = 0;
  if (!cuda_step(cudaGetDevice(&dev), "cudaGetDevice", why)) return call.refuse(*why);

  // The split operands: A3 = [big small big] and B3 = [big; big; small] along k (kernels/sgemm_tc.h).
  Tf32x3Operand a, b;
  a.src = static_cast<const float*>(p.a);
  a.ld = p.lda;
  a.rows = p.a_rows();
  a.cols = p.a_cols();
  a.k_in_cols = p.ta == Op::N;
  a.small_part = 1;
  b.src = static_cast<const float*>(p.b);
  b.ld = p.ldb;
  b.rows = p.b_rows();
  b.cols = p.b_cols();
  b.k_in_cols = p.tb == Op::T;
  b.small_part = 2;
  Tf32x3Kernel kernel = product_kernel();
  if (tf32x3_kernel_fused(kernel)) {
    const char* no = tf32x3_fused_can_implement(reinterpret_cast<uintptr_t>(p.a), p.lda,
                                                reinterpret_cast<uintptr_t>(p.b), p.ldb);
    if (!no) return fused_run(p, s, dev, kernel, why);
    call.note(std::string("the split pass with p64-ordered (") + tf32x3_kernel_name(kernel) + ": " + no + ")");
    kernel = Tf32x3Kernel::p64_ordered;
  }
  tf32x3_operand_layout(kernel, p.k, p.m, &a);  // (three parts along k, or two: the variant's)
  tf32x3_operand_layout(kernel, p.k, p.n, &b);
  const int64_t ld3 = a.ldd;
  // Where our product cannot run, the FP32 path keeps the mode's promise. (cuBLAS's TF32 GEMM
  // could take the split operands, but its error grows with k to 20-50x FP32 SGEMM's.)
  if (const char* no = tf32x3_wgmma_can_implement(ld3)) return call.refuse(no);
  const size_t a3 = size_t(tf32x3_operand_floats(kernel, p.k, p.m)), b3 = size_t(tf32x3_operand_floats(kernel, p.k, p.n));
  const size_t a3_bytes = (a3 * 4 + 255) / 256 * 256;
  const size_t b3_bytes = (b3 * 4 + 255) / 256 * 256;
  // Split-K's slices (MYBLAS_SGEMM_TF32X3_SPLITK=auto; kernels/sgemm_tc.h) after B3.
  Tf32x3Split plan;
  if (splitk_auto()) {
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess)
      plan = tf32x3_splitk_choose(p.m, p.n, 3 * p.k, sms, kernel);
  }
  const size_t bytes = kStatsBytes + a3_bytes + b3_bytes + tf32x3_splitk_work_floats(p.m, p.n, plan, kernel) * 4;

  cudaError_t e;
  Scratch* kept = kept_scratch(dev, bytes, s, &e);
  if (!kept && e != cudaSuccess) return call.refuse(note_cuda_error(e, "scratch for the split operands"));
  DeviceBuffer fresh;
  if (!kept && !cuda_step(fresh.allocate(bytes, s), "scratch for the split operands", why)) return call.refuse(*why);
  unsigned char* base = static_cast<unsigned char*>(kept ? kept->ptr : fresh.get());
  Tf32x3Stats* d_stats = reinterpret_cast<Tf32x3Stats*>(base);
  a.dst = reinterpret_cast<float*>(base + kStatsBytes);
  b.dst = reinterpret_cast<float*>(base + kStatsBytes + a3_bytes);
  if (!t_scratch.pinned_stats &&
      !cuda_step(cudaHostAlloc(&t_scratch.pinned_stats, sizeof(Tf32x3Stats), cudaHostAllocPortable),
                 "pinned memory for the split statistics", why)) {
    t_scratch.pinned_stats = nullptr;
    return call.refuse(*why);
  }
  Tf32x3Stats* h_stats = static_cast<Tf32x3Stats*>(t_scratch.pinned_stats);
  const int k3 = 3 * p.k;
  float* work = reinterpret_cast<float*>(base + kStatsBytes + a3_bytes + b3_bytes);
  if (stats_overlap()) {
    // The product follows the split at once and checks the statistics on the device; the host
    // waits for their copy only, and a refused call has left C untouched for the FP32 path.
    if (!t_scratch.stats_landed &&
        !cuda_step(cudaEventCreateWithFlags(&t_scratch.stats_landed, cudaEventDisableTiming),
                   "an event for the split statistics", why)) {
      t_scratch.stats_landed = nullptr;
      if (kept) kept->used = false;
      return call.refuse(*why);
    }
    bool queued = cuda_step(cudaMemsetAsync(d_stats, 0, sizeof(Tf32x3Stats), s), "clearing the split statistics", why) &&
                  cuda_step(tf32x3_split(a, b, d_stats, s), "the 3xTF32 split kernel", why) &&
                  cuda_step(cudaMemcpyAsync(h_stats, d_stats, sizeof(Tf32x3Stats), cudaMemcpyDeviceToHost, s),
                            "reading the split statistics", why) &&
                  cuda_step(cudaEventRecord(t_scratch.stats_landed, s), "marking the split statistics", why);
    const cudaError_t pe = queued ? tf32x3_wgmma_product(p.m, p.n, k3, p.alpha, a.dst, b.dst, ld3, p.beta,
                                                         static_cast<float*>(p.c), p.ldc, s, kernel, plan,
                                                         work, d_stats)
                                  : cudaSuccess;
    if (kept) {  // (whatever was queued reads the scratch)
      kept->used = true;
      kept->last_stream = s;
      cudaEventRecord(kept->last_use, s);
    }
    if (!queued) return call.refuse(*why);
    if (pe != cudaSuccess) return call.refuse(note_cuda_error(pe, "the 3xTF32 wgmma product"));
    if (!cuda_step(cudaEventSynchronize(t_scratch.stats_landed), "the 3xTF32 split", why)) return call.refuse(*why);
    if (const char* no = tf32x3_refuse(*h_stats, p.k)) return call.refuse(no);
    call.note(std::string("3xTF32 (split + wgmma product ") + tf32x3_kernel_name(kernel) +
         ", sums promoted every " + std::to_string(tf32x3_kernel_promote_terms(kernel)) + " terms" +
         split_note(plan) + ", statistics checked on the device)");
    return true;
  }
  // The one wait of the call: the statistics decide between this path and FP32 before C is touched.
  if (!cuda_step(cudaMemsetAsync(d_stats, 0, sizeof(Tf32x3Stats), s), "clearing the split statistics", why) ||
      !cuda_step(tf32x3_split(a, b, d_stats, s), "the 3xTF32 split kernel", why) ||
      !cuda_step(cudaMemcpyAsync(h_stats, d_stats, sizeof(Tf32x3Stats), cudaMemcpyDeviceToHost, s),
                 "reading the split statistics", why) ||
      !cuda_step(cudaStreamSynchronize(s), "the 3xTF32 split", why)) {
    if (kept) kept->used = false;  // (nothing of ours is in flight after the failed step's sync)
    return call.refuse(*why);
  }
  if (const char* no = tf32x3_refuse(*h_stats, p.k)) {
    if (kept) kept->used = false;
    return call.refuse(no);
  }

  const cudaError_t pe = tf32x3_wgmma_product(p.m, p.n, k3, p.alpha, a.dst, b.dst, ld3, p.beta,
                                             static_cast<float*>(p.c), p.ldc, s, kernel, plan, work);
  if (kept) {
    kept->used = true;
    kept->last_stream = s;
    cudaEventRecord(kept->last_use, s);  // (a failure here surfaces at the stream's next step)
  }
  // A failed launch ran nothing: C is untouched and the FP32 path can still run.
  if (pe != cudaSuccess) return call.refuse(note_cuda_error(pe, "the 3xTF32 wgmma product"));
  call.note(std::string("3xTF32 (split + wgmma product ") + tf32x3_kernel_name(kernel) + ", sums promoted every " +
       std::to_string(tf32x3_kernel_promote_terms(kernel)) + " terms" +
       split_note(plan) + ")");
  return true;
}

}  // namespace myblas
