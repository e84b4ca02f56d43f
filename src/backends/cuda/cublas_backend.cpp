#include "backends/cuda/cublas_backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cublas_api.h"
#include "backends/cuda/host_pipeline.h"
#include "backends/cuda/host_split.h"
#include "backends/cuda/cuda_runtime.h"
#include "backends/cuda/gpu_call.h"
#include "backends/cuda/sgemm_tf32x3.h"
#include "core/config.h"
#include "core/log.h"
#include "core/stage_clock.h"
#include "kernels/scale.h"

namespace myblas {

namespace {

// HGEMM's FP32 result, kept per thread and device for calls on the default stream: those end
// synchronised, so it is idle between them. Allocating it anew from the pool for each call
// added 3.3-5.5 us to a 25-40 us call (bench/probes/probe_call_overhead.cpp, H100, 2026-11-22). Calls
// on a stream the program chose take stream-ordered scratch from the pool per call.
constexpr size_t kKeptScratchBytes = size_t(64) << 20;
struct ThreadScratch {
  std::vector<std::pair<void*, size_t>> by_device;  // (pointer, bytes)
  ~ThreadScratch() {
    for (const auto& d : by_device)
      if (d.first) cudaFree(d.first);  // (errors ignored: the process may be tearing CUDA down)
  }
};
thread_local ThreadScratch t_scratch;

// Scratch of `bytes` on the current device `device` for stream s: the thread's kept buffer, or
// `fresh` from the pool.
cudaError_t hgemm_scratch(int device, size_t bytes, cudaStream_t s, DeviceBuffer* fresh, float** out) {
  if (fault_injected("alloc")) return cudaErrorMemoryAllocation;
  if (s != nullptr || bytes > kKeptScratchBytes || device < 0) {
    const cudaError_t e = fresh->allocate(bytes, s);
    *out = static_cast<float*>(fresh->get());
    return e;
  }
  if (size_t(device) >= t_scratch.by_device.size()) t_scratch.by_device.resize(size_t(device) + 1);
  auto& kept = t_scratch.by_device[size_t(device)];
  if (kept.second < bytes) {
    if (kept.first) cudaFree(kept.first);  // (the default stream: the last call has finished)
    kept = {nullptr, 0};
    const size_t grown = std::max(bytes, std::min(kKeptScratchBytes, 2 * bytes));
    const cudaError_t e = cudaMalloc(&kept.first, grown);
    if (e != cudaSuccess) {
      kept.first = nullptr;
      return e;
    }
    kept.second = grown;
  }
  *out = static_cast<float*>(kept.first);
  return cudaSuccess;
}

// HGEMM with one rounding when beta != 0. cublasGemmEx writing binary16 C rounds
// alpha*op(A)*op(B) to binary16 before it adds beta*C; with cancellation that is many binary16
// ulps off the once-rounded result (66x the bound at 16^3, bench/results/h100-hgemm-rounding-*).
// So cuBLAS writes alpha*op(A)*op(B) in FP32 into scratch (beta = 0: the scratch is not read),
// and one kernel adds beta*C in FP32 and rounds the sum into C. (Widening C into the scratch
// first and handing cuBLAS beta cost two more passes over C.)
// With beta == 0 there is nothing to add: binary16 output measured bitwise equal to this path on
// every shape tried, split-K-prone ones included (h100-hgemm-rounding-beta0-*), and the handle
// also forbids reduced-precision reductions, so beta == 0 calls cuBLAS directly at full speed.
cublasStatus_t hgemm_round_once(const CublasApi* api, cublasHandle_t h, cublasOperation_t ta,
                                cublasOperation_t tb, const GemmProblem& p, int device, const DevOperand& a,
                                const DevOperand& b, uint16_t* c, int64_t ldc, cudaStream_t s,
                                std::string* why) {
  DeviceBuffer scratch;
  float* c32 = nullptr;
  cudaError_t e = hgemm_scratch(device, size_t(p.m) * size_t(p.n) * 4, s, &scratch, &c32);
  if (e != cudaSuccess) {
    *why = note_cuda_error(e, "preparing the FP32 result of HGEMM");
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  const float zero = 0.f;
  cublasStatus_t st = api->gemm_ex(h, ta, tb, p.m, p.n, p.k, &p.alpha, a.ptr, CUDA_R_16F, int(a.ld),
                                   b.ptr, CUDA_R_16F, int(b.ld), &zero, c32, CUDA_R_32F, p.m,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS) return st;
  e = add_scaled_round_f16(c32, p.m, p.beta, c, ldc, p.m, p.n, s);
  if (e != cudaSuccess) {
    *why = note_cuda_error(e, "rounding the HGEMM result");
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  return CUBLAS_STATUS_SUCCESS;
}




}  // namespace

namespace {
// kernel / hkernel: run our SGEMM / HGEMM kernel instead of cuBLAS (at most one is set).
// tf32x3: run SGEMM's product by the 3xTF32 split (backends/cuda/sgemm_tf32x3.h) where it can.
bool gpu_gemm(const GemmProblem& p, const SgemmKernel* kernel, const HgemmKernel* hkernel, bool tf32x3,
              std::string* why) {
  if (sticky_fault(why)) return false;
  cudaStream_t s = thread_stream();
  const int target = call_device(p.device, s);
  DeviceScope scope(target);
  MYBLAS_CUDA_TRY("device", scope.status(), "cudaSetDevice");
  // (sbgemm and shgemm, whose C is wider than A and B, stage whole operands instead.)
  if (!kernel && !hkernel && !p.mixed() && !p.scale_only() && p.mem_a == Mem::host && p.mem_b == Mem::host &&
      p.mem_c == Mem::host) {
    // Host arrays: the pipelined path, split across the chosen GPUs when big enough. If it
    // fails part-way, the tiles it finished are final and the others untouched, so only those
    // others are computed on the CPU.
    std::vector<CTile> todo;
    PipelineGemm pg;
    pg.name = routine_name(p.routine);
    pg.es = p.c_elem_size();  // (sgemm and hgemm only: A, B and C share it)
    pg.ta = p.ta;
    pg.tb = p.tb;
    pg.m = p.m;
    pg.n = p.n;
    pg.k = p.k;
    pg.a = p.a;
    pg.b = p.b;
    pg.c = p.c;
    pg.lda = p.lda;
    pg.ldb = p.ldb;
    pg.ldc = p.ldc;
    pg.beta_zero = p.beta == 0.f;
    pg.split_k_lead = p.routine == Routine::sgemm;
    pg.multiply = [&p](cudaStream_t stream, int device, int rows, int cols, int depth, bool use_beta, const void* a,
                       int lda, const void* b, int ldb, void* c, std::string* tile_why) {
      GemmProblem q = p;
      q.m = rows;
      q.n = cols;
      q.k = depth;
      q.beta = use_beta ? p.beta : 1.f;
      q.a = a;
      q.lda = lda;
      q.b = b;
      q.ldb = ldb;
      q.c = c;
      q.ldc = rows;
      q.mem_a = q.mem_b = q.mem_c = Mem::device;
      q.dev_a = q.dev_b = q.dev_c = q.device = device;
      const cudaStream_t saved = thread_stream();
      set_thread_stream(stream);
      const bool tile_ok = cublas_gemm(q, tile_why);
      set_thread_stream(saved);
      return tile_ok;
    };
    if (host_gemm(pg, &todo, why)) return true;
    int64_t left = 0;  // the unfinished tiles cover all of C only if nothing was written
    for (const CTile& t : todo) left += int64_t(t.rows) * t.cols;
    if (left == int64_t(p.m) * p.n) return false;  // the caller redoes the whole call
    warn_once("pipeline:" + *why, std::string(routine_name(p.routine)) + " on the GPU: " + *why +
                                      "; completing the unfinished tiles on the CPU");
    const size_t es = p.c_elem_size();  // (sgemm and hgemm: A, B and C share it)
    for (const CTile& t : todo) {
      GemmProblem sub = p;
      sub.m = t.rows;
      sub.n = t.cols;
      sub.a = static_cast<const unsigned char*>(p.a) +
              (p.ta == Op::N ? size_t(t.i0) : size_t(t.i0) * size_t(p.lda)) * es;
      sub.b = static_cast<const unsigned char*>(p.b) +
              (p.tb == Op::N ? size_t(t.j0) * size_t(p.ldb) : size_t(t.j0)) * es;
      sub.c = static_cast<unsigned char*>(p.c) + (size_t(t.j0) * size_t(p.ldc) + size_t(t.i0)) * es;
      std::string ignored;  // all host memory: the CPU path cannot fail
      cpu_gemm(sub, &ignored);
    }
    return true;
  }
  int dev = run_device(target, scope.saved() >= 0 ? scope.saved() : 0);
  const size_t es = p.ab_elem_size(), es_c = p.c_elem_size();
  // Operands on another device than the one we run on are staged like host memory
  // (cudaMemcpyDefault copies peer to peer).
  const int owner_a = p.dev_a, owner_b = p.dev_b, owner_c = p.dev_c;

  DevOperand c;
  if (!matrix_in(p.c, p.mem_c, owner_c, dev, p.ldc, p.m, p.n, es_c, p.beta != 0.f, s, &c, why))
    return false;
  void* cptr = const_cast<void*>(c.ptr);
  if (p.scale_only()) {
    // The launch inside the step: an injected launch failure must run nothing (a device C
    // scaled here and again by the CPU redo had beta applied twice).
    MYBLAS_CUDA_TRY("launch",
                    p.routine == Routine::hgemm
                        ? scale_matrix_f16(static_cast<uint16_t*>(cptr), c.ld, p.m, p.n, p.beta, s)
                        : scale_matrix_f32(static_cast<float*>(cptr), c.ld, p.m, p.n, p.beta, s),
                    "the beta-scaling kernel");
  } else {
    DevOperand a, b;
    if (!matrix_in(p.a, p.mem_a, owner_a, dev, p.lda, p.a_rows(), p.a_cols(), es, true, s, &a, why) ||
        !matrix_in(p.b, p.mem_b, owner_b, dev, p.ldb, p.b_rows(), p.b_cols(), es, true, s, &b, why))
      return false;
    MYBLAS_STAGE(kStagePrepare);
    GemmProblem q = p;  // the same problem on the device copies
    q.a = a.ptr;
    q.lda = int(a.ld);
    q.b = b.ptr;
    q.ldb = int(b.ld);
    q.c = cptr;
    q.ldc = int(c.ld);
    q.mem_a = q.mem_b = q.mem_c = Mem::device;
    // Staged copies are packed (ld = rows): a kernel that needs aligned leading dimensions
    // may refuse them, and then our choice for the shape runs instead; sbgemm and shgemm, whose
    // only kernel is the TMA-fed one, run on cuBLAS then.
    if (hkernel && p.mixed() && hgemm_can_implement(*hkernel, q)) hkernel = nullptr;
    if (kernel || hkernel) {
      if (kernel) {
        const SgemmKernel k = sgemm_can_implement(*kernel, q) ? sgemm_choose(q) : *kernel;
        MYBLAS_CUDA_TRY("launch", sgemm_run(k, q, s), sgemm_kernel_name(k));
      } else {
        const HgemmKernel k = hgemm_can_implement(*hkernel, q) ? hgemm_choose(q) : *hkernel;
        MYBLAS_CUDA_TRY("launch", hgemm_run(k, q, s), hgemm_kernel_name(k));
      }
      MYBLAS_STAGE(kStageLaunch);
    } else {
      cublasHandle_t h = cublas_handle(
          dev, s,
          p.routine != Routine::sgemm
              ? cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)
              : math_mode(Dtype::s),
          why);
      if (!h) return false;
      MYBLAS_STAGE(kStageHandle);
      const CublasApi* api = cublas_api(why);
      const cublasOperation_t ta = p.ta == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
      const cublasOperation_t tb = p.tb == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
      cublasStatus_t st;
      std::string tc_why;  // why the 3xTF32 mode did not take the call (it logs that itself)
      const auto split_product = [&] { return sgemm_tc_run(q, s, &tc_why); };  // (q: on the device copies)
      if (fault_injected("cublas"))  // before the call: a device C must stay untouched
        st = CUBLAS_STATUS_EXECUTION_FAILED;
      else if (p.routine == Routine::sgemm && (tf32x3 || sgemm_precision() == SgemmPrecision::tf32x3_all) &&
               split_product())
        st = CUBLAS_STATUS_SUCCESS;
      else if (p.routine == Routine::hgemm && p.beta != 0.f)
        st = hgemm_round_once(api, h, ta, tb, p, dev, a, b, static_cast<uint16_t*>(cptr), c.ld, s, why);
      else if (p.routine == Routine::hgemm)  // beta == 0: binary16 C is rounded once (see above)
        st = api->gemm_ex(h, ta, tb, p.m, p.n, p.k, &p.alpha, a.ptr, CUDA_R_16F, int(a.ld), b.ptr,
                          CUDA_R_16F, int(b.ld), &p.beta, cptr, CUDA_R_16F, int(c.ld),
                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      else if (p.mixed()) {  // 16-bit A and B, FP32 C: cuBLAS forms alpha*AB + beta*C in FP32
        const cudaDataType in = p.routine == Routine::sbgemm ? CUDA_R_16BF : CUDA_R_16F;
        st = api->gemm_ex(h, ta, tb, p.m, p.n, p.k, &p.alpha, a.ptr, in, int(a.ld), b.ptr, in, int(b.ld),
                          &p.beta, cptr, CUDA_R_32F, int(c.ld), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      }
      else
        st = api->sgemm(h, ta, tb, p.m, p.n, p.k, &p.alpha, static_cast<const float*>(a.ptr),
                        int(a.ld), static_cast<const float*>(b.ptr), int(b.ld), &p.beta,
                        static_cast<float*>(cptr), int(c.ld));
      if (st != CUBLAS_STATUS_SUCCESS) {
        if (why->empty())
          *why = std::string(p.routine == Routine::sgemm ? "cublasSgemm" : "cublasGemmEx") +
                 " failed: " + api->status_string(st);
        return false;
      }
      MYBLAS_STAGE(kStageLaunch);
    }
  }
  if (!in_place(p.mem_c, owner_c, dev)) {
    // C runs on its own device when it has one, so a staged C is host memory. It lands in a
    // scratch buffer first: the caller's C changes only once the whole result is here, so a
    // failure part-way through still leaves the CPU fallback the original C.
    std::vector<unsigned char> result(size_t(p.m) * size_t(p.n) * es_c);
    MYBLAS_CUDA_TRY("copy", copy_matrix(result.data(), p.m, c.ptr, c.ld, p.m, p.n, es_c, s),
                    "copying C back");
    MYBLAS_CUDA_SYNC(cudaStreamSynchronize(s), "the GEMM on the GPU");
    for (int j = 0; j < p.n; ++j)
      std::memcpy(static_cast<unsigned char*>(p.c) + size_t(j) * size_t(p.ldc) * es_c,
                  result.data() + size_t(j) * size_t(p.m) * es_c, size_t(p.m) * es_c);
    return true;
  }
  // Calls return complete unless the caller chose a stream and everything is on the GPU.
  const bool all_device = in_place(p.mem_c, owner_c, dev) &&
                          (p.scale_only() || (in_place(p.mem_a, owner_a, dev) &&
                                              in_place(p.mem_b, owner_b, dev)));
  if (s == nullptr || !all_device) {
    // No injection point here: C was updated in place, and only a sticky error (the context
    // is lost, so the CPU cannot even read C back) makes this fail.
    cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
      *why = note_cuda_error(e, "the GEMM on the GPU");
      return false;
    }
    MYBLAS_STAGE(kStageSync);
  }
  return true;
}

}  // namespace

bool tf32_override_in_environment() {
  static const bool set = [] {
    const char* v = std::getenv("NVIDIA_TF32_OVERRIDE");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return set;
}

bool cublas_gemm(const GemmProblem& p, std::string* why, bool tf32x3) {
  return gpu_gemm(p, nullptr, nullptr, tf32x3, why);
}

bool kernel_gemm(const GemmProblem& p, SgemmKernel k, std::string* why) { return gpu_gemm(p, &k, nullptr, false, why); }

bool kernel_hgemm(const GemmProblem& p, HgemmKernel k, std::string* why) { return gpu_gemm(p, nullptr, &k, false, why); }

namespace {
bool gpu_gemv(const GemvProblem& p, const SgemvKernel* kernel, std::string* why) {
  if (sticky_fault(why)) return false;
  cudaStream_t s = thread_stream();
  const int target = call_device(p.device, s);
  DeviceScope scope(target);
  MYBLAS_CUDA_TRY("device", scope.status(), "cudaSetDevice");
  int dev = run_device(target, scope.saved() >= 0 ? scope.saved() : 0);
  const int owner_a = p.dev_a, owner_x = p.dev_x, owner_y = p.dev_y;
  const int lx = p.len_x(), ly = p.len_y();

  // Vectors not on this GPU travel packed, in address order (increment +-1).
  const bool y_here = in_place(p.mem_y, owner_y, dev);
  DeviceBuffer ybuf;
  float* y = p.y;
  int incy = p.incy;
  if (!y_here) {
    MYBLAS_CUDA_TRY("alloc", ybuf.allocate(size_t(ly) * 4, s), "cudaMallocAsync");
    y = static_cast<float*>(ybuf.get());
    incy = p.incy > 0 ? 1 : -1;
    if (p.beta != 0.f)
      MYBLAS_CUDA_TRY("copy", copy_vector(y, 1, p.y, p.incy, ly, 4, s), "copying y to the GPU");
  }
  if (p.scale_only()) {
    MYBLAS_CUDA_TRY("launch", scale_vector_f32(y, incy < 0 ? -int64_t(incy) : incy, ly, p.beta, s),
                    "the beta-scaling kernel");
  } else {
    DevOperand a;
    if (!matrix_in(p.a, p.mem_a, owner_a, dev, p.lda, p.m, p.n, 4, true, s, &a, why)) return false;
    DeviceBuffer xbuf;
    const float* x = p.x;
    int incx = p.incx;
    if (!in_place(p.mem_x, owner_x, dev)) {
      MYBLAS_CUDA_TRY("alloc", xbuf.allocate(size_t(lx) * 4, s), "cudaMallocAsync");
      MYBLAS_CUDA_TRY("copy", copy_vector(xbuf.get(), 1, p.x, p.incx, lx, 4, s), "copying x to the GPU");
      x = static_cast<const float*>(xbuf.get());
      incx = p.incx > 0 ? 1 : -1;
    }
    MYBLAS_STAGE(kStagePrepare);
    if (kernel) {
      GemvProblem q = p;  // the same problem on the device copies
      q.a = static_cast<const float*>(a.ptr);
      q.lda = int(a.ld);
      q.x = x;
      q.incx = incx;
      q.y = y;
      q.incy = incy;
      MYBLAS_CUDA_TRY("launch", sgemv_run(*kernel, q, s), sgemv_kernel_name(*kernel));
      MYBLAS_STAGE(kStageLaunch);
    } else {
      cublasHandle_t h = cublas_handle(dev, s, math_mode(Dtype::s), why);
      if (!h) return false;
      MYBLAS_STAGE(kStageHandle);
      const CublasApi* api = cublas_api(why);
      cublasStatus_t st = fault_injected("cublas")
                              ? CUBLAS_STATUS_EXECUTION_FAILED
                              : api->sgemv(h, p.ta == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T, p.m, p.n,
                                           &p.alpha, static_cast<const float*>(a.ptr), int(a.ld),
                                           x, incx, &p.beta, y, incy);
      if (st != CUBLAS_STATUS_SUCCESS) {
        *why = std::string("cublasSgemv failed: ") + api->status_string(st);
        return false;
      }
      MYBLAS_STAGE(kStageLaunch);
    }
  }
  if (!y_here) {  // as for C: the caller's y changes only once the whole result is back
    std::vector<float> result(static_cast<size_t>(ly));
    MYBLAS_CUDA_TRY("copy", copy_vector(result.data(), 1, y, 1, ly, 4, s), "copying y back");
    MYBLAS_CUDA_SYNC(cudaStreamSynchronize(s), "the GEMV on the GPU");
    const int64_t step = p.incy < 0 ? -int64_t(p.incy) : p.incy;
    for (int i = 0; i < ly; ++i) p.y[i * step] = result[size_t(i)];
    return true;
  }
  const bool all_device = y_here && (p.scale_only() || (in_place(p.mem_a, owner_a, dev) &&
                                                        in_place(p.mem_x, owner_x, dev)));
  if (s == nullptr || !all_device) {  // as for GEMM: y was updated in place
    cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
      *why = note_cuda_error(e, "the GEMV on the GPU");
      return false;
    }
    MYBLAS_STAGE(kStageSync);
  }
  return true;
}

}  // namespace

bool cublas_gemv(const GemvProblem& p, std::string* why) { return gpu_gemv(p, nullptr, why); }

bool kernel_gemv(const GemvProblem& p, SgemvKernel k, std::string* why) { return gpu_gemv(p, &k, why); }

}  // namespace myblas
