// The GPU path of every routine described by a BlasProblem (all of Level 3 and GEMV in four
// precisions but SGEMM/SGEMV): cuBLAS on device operands in place, host operands staged. GEMM on
// host arrays goes through the pipelined path (host_pipeline.h), every element type alike.
#include <climits>
#include <cstring>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cublas_api.h"
#include "backends/cuda/cublas_backend.h"
#include "backends/cuda/gpu_call.h"
#include "backends/cuda/host_pipeline.h"
#include "backends/cuda/host_split.h"
#include "core/log.h"
#include "kernels/scale.h"

namespace myblas {

namespace {

cublasOperation_t op_of(char t) { return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }
cublasFillMode_t fill_of(char u) { return u == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }
cublasSideMode_t side_of(char s) { return s == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
cublasDiagType_t diag_of(char d) { return d == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT; }


}  // namespace

cublasStatus_t call_cublas(void* fn, cublasHandle_t h, const BlasProblem& p, int m, int n, int k, const Scalar& beta,
                           const void* a, int lda, const void* b, int ldb, void* c, int ldc) {
  using H = cublasHandle_t;
  using Op = cublasOperation_t;
  using V = const void*;
  const bool herm_scalars = p.family == Family::herk;
  const HostScalar al(p.alpha, p.type, herm_scalars);
  const HostScalar be(beta, p.type, p.family == Family::herk || p.family == Family::her2k);
  switch (p.family) {
    case Family::gemm:
      return reinterpret_cast<cublasStatus_t (*)(H, Op, Op, int, int, int, V, V, int, V, int, V, void*, int)>(fn)(
          h, op_of(p.ta), op_of(p.tb), m, n, k, al.get(), a, lda, b, ldb, be.get(), c, ldc);
    case Family::gemv:
      return reinterpret_cast<cublasStatus_t (*)(H, Op, int, int, V, V, int, V, int, V, void*, int)>(fn)(
          h, op_of(p.ta), m, n, al.get(), a, lda, b, ldb, be.get(), c, ldc);
    case Family::symm: case Family::hemm:
      return reinterpret_cast<cublasStatus_t (*)(H, cublasSideMode_t, cublasFillMode_t, int, int, V, V, int, V, int, V,
                                                 void*, int)>(fn)(h, side_of(p.side), fill_of(p.uplo), m, n, al.get(),
                                                                  a, lda, b, ldb, be.get(), c, ldc);
    case Family::syrk: case Family::herk:
      return reinterpret_cast<cublasStatus_t (*)(H, cublasFillMode_t, Op, int, int, V, V, int, V, void*, int)>(fn)(
          h, fill_of(p.uplo), op_of(p.ta), n, k, al.get(), a, lda, be.get(), c, ldc);
    case Family::syr2k: case Family::her2k:
      return reinterpret_cast<cublasStatus_t (*)(H, cublasFillMode_t, Op, int, int, V, V, int, V, int, V, void*,
                                                 int)>(fn)(h, fill_of(p.uplo), op_of(p.ta), n, k, al.get(), a, lda, b,
                                                           ldb, be.get(), c, ldc);
    case Family::trmm:
      return reinterpret_cast<cublasStatus_t (*)(H, cublasSideMode_t, cublasFillMode_t, Op, cublasDiagType_t, int, int,
                                                 V, V, int, V, int, void*, int)>(fn)(
          h, side_of(p.side), fill_of(p.uplo), op_of(p.ta), diag_of(p.diag), m, n, al.get(), a, lda, c, ldc, c, ldc);
    case Family::trsm:
      return reinterpret_cast<cublasStatus_t (*)(H, cublasSideMode_t, cublasFillMode_t, Op, cublasDiagType_t, int, int,
                                                 V, V, int, void*, int)>(fn)(
          h, side_of(p.side), fill_of(p.uplo), op_of(p.ta), diag_of(p.diag), m, n, al.get(), a, lda, c, ldc);
  }
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

namespace {

// GEMM on host arrays through the pipeline; tiles it could not finish are computed on the CPU.
bool pipelined(const BlasProblem& p, void* fn, std::string* why) {
  PipelineGemm pg;
  pg.name = routine_name(p.routine());
  pg.es = p.elem_size();
  pg.ta = p.ta == 'N' ? Op::N : Op::T;
  pg.tb = p.tb == 'N' ? Op::N : Op::T;
  pg.m = int(p.m);
  pg.n = int(p.n);
  pg.k = int(p.k);
  pg.a = p.a;
  pg.b = p.b;
  pg.c = p.c;
  pg.lda = p.lda;
  pg.ldb = p.ldb;
  pg.ldc = p.ldc;
  pg.beta_zero = p.beta.zero();
  pg.split_k_lead = true;  // the first panels' products start while A is still arriving
  pg.complex = is_complex(p.type);
  pg.multiply = [&p, fn](cudaStream_t stream, int device, int rows, int cols, int depth, bool use_beta, const void* a,
                         int lda, const void* b, int ldb, void* c, std::string* tile_why) {
    cublasHandle_t h = cublas_handle(device, stream, math_mode(p.type), tile_why);
    if (!h) return false;
    if (fault_injected("cublas")) {
      *tile_why = "injected fault at cublas";
      return false;
    }
    const cublasStatus_t st =
        call_cublas(fn, h, p, rows, cols, depth, use_beta ? p.beta : Scalar{1, 0}, a, lda, b, ldb, c, rows);
    if (st != CUBLAS_STATUS_SUCCESS) {
      std::string ignored;
      *tile_why = std::string("cuBLAS ") + routine_name(p.routine()) + " failed: " +
                  cublas_api(&ignored)->status_string(st);
      return false;
    }
    return true;
  };
  std::vector<CTile> todo;
  if (host_gemm(pg, &todo, why)) return true;
  int64_t left = 0;  // the unfinished tiles cover all of C only if nothing was written
  for (const CTile& t : todo) left += int64_t(t.rows) * t.cols;
  if (left == p.m * p.n) return false;  // the caller redoes the whole call
  warn_once("pipeline:" + *why, std::string(routine_name(p.routine())) + " on the GPU: " + *why +
                                    "; completing the unfinished tiles on the CPU");
  const size_t es = p.elem_size();
  for (const CTile& t : todo) {
    BlasProblem sub = p;
    sub.m = t.rows;
    sub.n = t.cols;
    sub.a = static_cast<const unsigned char*>(p.a) + (p.ta == 'N' ? size_t(t.i0) : size_t(t.i0) * size_t(p.lda)) * es;
    sub.b = static_cast<const unsigned char*>(p.b) + (p.tb == 'N' ? size_t(t.j0) * size_t(p.ldb) : size_t(t.j0)) * es;
    sub.c = static_cast<unsigned char*>(p.c) + (size_t(t.j0) * size_t(p.ldc) + size_t(t.i0)) * es;
    std::string ignored;  // all host memory: the CPU path cannot fail
    cpu_blas_problem(sub, &ignored);
  }
  return true;
}

}  // namespace

bool cublas_blas_problem(const BlasProblem& p, std::string* why) {
  if (sticky_fault(why)) return false;
  cudaStream_t s = thread_stream();
  const int target = call_device(p.device, s);
  DeviceScope scope(target);
  MYBLAS_CUDA_TRY("device", scope.status(), "cudaSetDevice");
  const CublasApi* api = cublas_api(why);
  if (!api) return false;
  void* fn = api->routines[int(p.routine())];
  if (!fn && !p.scale_only()) {
    *why = std::string("cuBLAS lacks ") + routine_name(p.routine());
    return false;
  }
  if (!fits_int32(p.m) || !fits_int32(p.n) || !fits_int32(p.k) || !fits_int32(p.lda) || !fits_int32(p.ldb) || !fits_int32(p.ldc)) {
    *why = "sizes beyond cuBLAS's 32-bit interface";
    return false;
  }
  const int dev = run_device(target, scope.saved() >= 0 ? scope.saved() : 0);
  const size_t es = p.elem_size();
  const bool all_host = p.mem_c == Mem::host && (p.scale_only() || (p.mem_a == Mem::host && (!p.reads_b() || p.mem_b == Mem::host)));
  if (p.family == Family::gemm && all_host && !p.scale_only()) return pipelined(p, fn, why);
  if (p.family != Family::gemv && all_host && !p.scale_only()) return host_level3(p, why);

  const bool gemv = p.family == Family::gemv;
  const bool tri_out = p.family == Family::trmm || p.family == Family::trsm;
  const int m = int(p.m), n = int(p.n), k = int(p.k);
  const int crows = int(p.c_rows()), ccols = int(p.c_cols());
  // The output on this GPU: in place, or a device copy holding what the routine reads of it. A
  // rank-k update writes one triangle only, so its staged copy carries the other one too (C goes
  // back whole).
  const bool c_here = in_place(p.mem_c, p.dev_c, dev);
  const bool read_c = tri_out ? !p.scale_only() : (!p.beta.zero() || rank_update(p.family));
  DevOperand c;
  int64_t incy = p.ldc;
  if (gemv) {
    if (c_here) {
      c.ptr = p.c;
    } else {
      MYBLAS_CUDA_TRY("alloc", c.buf.allocate(size_t(crows) * es, s), "cudaMallocAsync");
      c.ptr = c.buf.get();
      incy = p.ldc > 0 ? 1 : -1;
      if (!p.beta.zero())
        MYBLAS_CUDA_TRY("copy", copy_vector(c.buf.get(), 1, p.c, p.ldc, crows, es, s), "copying y to the GPU");
    }
  } else if (!matrix_in(p.c, p.mem_c, p.dev_c, dev, p.ldc, crows, ccols, es, read_c, s, &c, why)) {
    return false;
  }
  void* cptr = const_cast<void*>(c.ptr);
  if (p.scale_only()) {
    const int part = rank_update(p.family) ? (p.uplo == 'U' ? 1 : 2) : 0;
    const bool herm = p.family == Family::herk || p.family == Family::her2k;
    const Scalar beta = tri_out ? Scalar{} : p.beta;
    const int64_t step = gemv ? (incy < 0 ? -incy : incy) : c.ld;
    // (a vector is a 1 x len matrix whose "columns" are its elements)
    MYBLAS_CUDA_TRY("launch",
                    gemv ? scale_matrix_typed(cptr, step, 1, crows, es, is_complex(p.type), beta.re, beta.im, 0, false, s)
                         : scale_matrix_typed(cptr, c.ld, crows, ccols, es, is_complex(p.type), beta.re,
                                              herm ? 0.0 : beta.im, part, herm, s),
                    "the beta-scaling kernel");
  } else {
    DevOperand a, b;
    int64_t incx = p.ldb;
    if (!matrix_in(p.a, p.mem_a, p.dev_a, dev, p.lda, int(p.a_rows()), int(p.a_cols()), es, true, s, &a, why))
      return false;
    if (gemv) {
      if (in_place(p.mem_b, p.dev_b, dev)) {
        b.ptr = p.b;
      } else {
        MYBLAS_CUDA_TRY("alloc", b.buf.allocate(size_t(p.b_rows()) * es, s), "cudaMallocAsync");
        MYBLAS_CUDA_TRY("copy", copy_vector(b.buf.get(), 1, p.b, p.ldb, int(p.b_rows()), es, s),
                        "copying x to the GPU");
        b.ptr = b.buf.get();
        incx = p.ldb > 0 ? 1 : -1;
      }
    } else if (p.reads_b() &&
               !matrix_in(p.b, p.mem_b, p.dev_b, dev, p.ldb, int(p.b_rows()), int(p.b_cols()), es, true, s, &b, why)) {
      return false;
    }
    cublasHandle_t h = cublas_handle(dev, s, math_mode(p.type), why);
    if (!h) return false;
    const cublasStatus_t st =
        fault_injected("cublas")  // before the call: a device C must stay untouched
            ? CUBLAS_STATUS_EXECUTION_FAILED
            : call_cublas(fn, h, p, m, n, k, p.beta, a.ptr, int(a.ld), b.ptr, int(gemv ? incx : b.ld), cptr,
                          int(gemv ? incy : c.ld));
    if (st != CUBLAS_STATUS_SUCCESS) {
      *why = std::string("cuBLAS ") + routine_name(p.routine()) + " failed: " + api->status_string(st);
      cudaStreamSynchronize(s);
      return false;
    }
  }
  if (!c_here) {
    // As for SGEMM: the caller's output changes only once the whole result is here.
    std::vector<unsigned char> result(size_t(crows) * size_t(ccols) * es);
    if (gemv)
      MYBLAS_CUDA_TRY("copy", copy_vector(result.data(), 1, c.ptr, 1, crows, es, s), "copying y back");
    else
      MYBLAS_CUDA_TRY("copy", copy_matrix(result.data(), crows, c.ptr, c.ld, crows, ccols, es, s), "copying C back");
    MYBLAS_CUDA_SYNC(cudaStreamSynchronize(s), "the call on the GPU");
    if (gemv) {
      const int64_t step = p.ldc < 0 ? -p.ldc : p.ldc;
      for (int i = 0; i < crows; ++i)
        std::memcpy(static_cast<unsigned char*>(p.c) + size_t(i) * size_t(step) * es, result.data() + size_t(i) * es, es);
    } else {
      for (int j = 0; j < ccols; ++j)
        std::memcpy(static_cast<unsigned char*>(p.c) + size_t(j) * size_t(p.ldc) * es,
                    result.data() + size_t(j) * size_t(crows) * es, size_t(crows) * es);
    }
    return true;
  }
  const bool all_device = p.scale_only() || (in_place(p.mem_a, p.dev_a, dev) &&
                                             (!p.reads_b() || in_place(p.mem_b, p.dev_b, dev)));
  if (s == nullptr || !all_device) {  // C was updated in place
    const cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
      *why = note_cuda_error(e, "the call on the GPU");
      return false;
    }
  }
  return true;
}

}  // namespace myblas
