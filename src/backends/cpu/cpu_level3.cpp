// The CPU path of every routine described by a BlasProblem (all of Level 3 and GEMV in four
// precisions but SGEMM/SGEMV): the CPU BLAS's own routine where it exports it and the sizes fit
// its 32-bit integers, else the built-in loops. Written once, instantiated per element type.
#include <climits>
#include <cmath>
#include <cstring>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_blas.h"
#include "backends/cpu/reference_blas.h"
#include "backends/cuda/cuda_runtime.h"
#include "core/batch.h"
#include "core/elem.h"
#include "core/log.h"

namespace myblas {

namespace {

// C := beta*C over the part of C the routine writes (its triangle for the rank-k updates, whose
// Hermitian forms take beta as real and keep a real diagonal); beta == 0 stores zeros unread.
// trmm/trsm: B := 0. gemv: y := beta*y.
template <class T>
void scale_output(const BlasProblem& p, T* c, int64_t ldc) {
  if (p.family == Family::gemv) {
    const int64_t len = p.c_rows(), step = ldc < 0 ? -ldc : ldc;
    const T beta = from_scalar<T>(p.beta);
    for (int64_t i = 0; i < len; ++i) c[i * step] = p.beta.zero() ? T(0) : beta * c[i * step];
    return;
  }
  const bool zero = p.beta.zero() || !p.has_beta();
  const bool herm = p.family == Family::herk || p.family == Family::her2k;
  const T beta = herm ? T(real_part(from_scalar<T>(p.beta))) : from_scalar<T>(p.beta);
  const bool tri = rank_update(p.family);
  for (int64_t j = 0; j < p.c_cols(); ++j) {
    const int64_t i0 = tri && p.uplo == 'L' ? j : 0, i1 = tri && p.uplo == 'U' ? j + 1 : p.c_rows();
    T* col = c + j * ldc;
    if (zero) {
      std::memset(static_cast<void*>(col + i0), 0, sizeof(T) * size_t(i1 - i0));
      continue;
    }
    for (int64_t i = i0; i < i1; ++i) col[i] = beta * col[i];
    if (herm) col[j] = T(real_part(col[j]));
  }
}

// The CPU BLAS's Fortran routine on host operands. Scalars go by pointer; the hidden CHARACTER
// lengths follow the last argument (gfortran's convention, size_t). beta has been applied to the
// output already where the caller passes beta = 1.
template <class T>
void call_fortran(void* fn, const BlasProblem& p, const T* a, int lda, const T* b, int ldb, T* c, int ldc,
                  const Scalar& beta_s) {
  using R = typename Elem<T>::Real;
  const int m = int(p.m), n = int(p.n), k = int(p.k);
  const T alpha = from_scalar<T>(p.alpha), beta = from_scalar<T>(beta_s);
  const R ralpha = R(p.alpha.re), rbeta = R(beta_s.re);
  const size_t one = 1;
  switch (p.family) {
    case Family::gemm:
      reinterpret_cast<void (*)(const char*, const char*, const int*, const int*, const int*, const T*, const T*,
                                const int*, const T*, const int*, const T*, T*, const int*, size_t, size_t)>(fn)(
          &p.ta, &p.tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, one, one);
      break;
    case Family::gemv:
      reinterpret_cast<void (*)(const char*, const int*, const int*, const T*, const T*, const int*, const T*,
                                const int*, const T*, T*, const int*, size_t)>(fn)(&p.ta, &m, &n, &alpha, a, &lda, b,
                                                                                   &ldb, &beta, c, &ldc, one);
      break;
    case Family::symm: case Family::hemm:
      reinterpret_cast<void (*)(const char*, const char*, const int*, const int*, const T*, const T*, const int*,
                                const T*, const int*, const T*, T*, const int*, size_t, size_t)>(fn)(
          &p.side, &p.uplo, &m, &n, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, one, one);
      break;
    case Family::syrk:
      reinterpret_cast<void (*)(const char*, const char*, const int*, const int*, const T*, const T*, const int*,
                                const T*, T*, const int*, size_t, size_t)>(fn)(&p.uplo, &p.ta, &n, &k, &alpha, a,
                                                                               &lda, &beta, c, &ldc, one, one);
      break;
    case Family::herk:
      reinterpret_cast<void (*)(const char*, const char*, const int*, const int*, const R*, const T*, const int*,
                                const R*, T*, const int*, size_t, size_t)>(fn)(&p.uplo, &p.ta, &n, &k, &ralpha, a,
                                                                               &lda, &rbeta, c, &ldc, one, one);
      break;
    case Family::syr2k:
      reinterpret_cast<void (*)(const char*, const char*, const int*, const int*, const T*, const T*, const int*,
                                const T*, const int*, const T*, T*, const int*, size_t, size_t)>(fn)(
          &p.uplo, &p.ta, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, one, one);
      break;
    case Family::her2k:
      reinterpret_cast<void (*)(const char*, const char*, const int*, const int*, const T*, const T*, const int*,
                                const T*, const int*, const R*, T*, const int*, size_t, size_t)>(fn)(
          &p.uplo, &p.ta, &n, &k, &alpha, a, &lda, b, &ldb, &rbeta, c, &ldc, one, one);
      break;
    case Family::trmm: case Family::trsm:
      reinterpret_cast<void (*)(const char*, const char*, const char*, const char*, const int*, const int*,
                                const T*, const T*, const int*, T*, const int*, size_t, size_t, size_t, size_t)>(fn)(
          &p.side, &p.uplo, &p.ta, &p.diag, &m, &n, &alpha, a, &lda, c, &ldc, one, one, one, one);
      break;
  }
}

// p on host operands (for gemv: b = x with increment ldb, c = y with increment ldc).
template <class T>
void host_run(const BlasProblem& p, const void* a, int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc);

// gemv with trans 'R' (conj(A), no transpose): conj(y) := conj(alpha) A conj(x) + conj(beta) conj(y).
template <class T>
void conj_gemv(const BlasProblem& p, const void* a, int64_t lda, const void* x, int64_t incx, void* y, int64_t incy) {
  const int64_t lx = p.n, ly = p.m;
  const int64_t sx = incx < 0 ? -incx : incx, sy = incy < 0 ? -incy : incy;
  std::vector<T> xc(static_cast<size_t>(lx));  // conj(x), in address order
  if (!p.scale_only())
    for (int64_t i = 0; i < lx; ++i) xc[size_t(i)] = conj_if(static_cast<const T*>(x)[i * sx]);
  T* yt = static_cast<T*>(y);
  for (int64_t i = 0; i < ly; ++i) yt[i * sy] = conj_if(yt[i * sy]);
  BlasProblem q = p;
  q.ta = 'N';
  q.alpha.im = -p.alpha.im;
  q.beta.im = -p.beta.im;
  host_run<T>(q, a, lda, xc.data(), incx < 0 ? -1 : 1, y, incy);
  for (int64_t i = 0; i < ly; ++i) yt[i * sy] = conj_if(yt[i * sy]);
}

// The CPU BLAS's routine for p (SGEMM and SGEMV, which the batched routines describe this way
// too, have their own pointers); nullptr where it lacks one.
void* cpu_routine(const BlasProblem& p) {
  return p.routine() == Routine::sgemm   ? reinterpret_cast<void*>(cpu_blas().sgemm_ptr)
         : p.routine() == Routine::sgemv ? reinterpret_cast<void*>(cpu_blas().sgemv_ptr)
                                         : cpu_blas().routines[int(p.routine())];
}

// Whether p's sizes, with these leading dimensions (increments for gemv), fit the CPU BLAS's int.
bool fits_cpu_blas(const BlasProblem& p, int64_t lda, int64_t ldb, int64_t ldc) {
  return fits_int32(p.m) && fits_int32(p.n) && fits_int32(p.k) && fits_int32(lda) && fits_int32(ldb) &&
         fits_int32(ldc) && fits_int32(p.a_rows() * (lda < 0 ? -lda : lda)) &&
         (p.family != Family::gemv ||
          (fits_int32(p.b_rows() * (ldb < 0 ? -ldb : ldb)) && fits_int32(p.c_rows() * (ldc < 0 ? -ldc : ldc))));
}

// beta: gemv passes a finite beta other than 0 to the CPU BLAS, and otherwise scales y here and
// passes beta = 1 (beta == 0 must not read y, and OpenBLAS 0.3.21 loses a NaN beta in GEMV);
// scaling y here first was a second pass over y, about 0.1 us of a 0.5 us 64 x 64 DGEMV.
// OpenBLAS's GEMM stores zeros unread for beta == 0 (checked by the NaN-in-C tests); every
// other case with beta == 0 zeroes the output here and passes beta = 1. True where beta goes to
// the CPU BLAS as it is.
bool beta_passes(const BlasProblem& p) {
  if (p.family == Family::gemv)
    return !p.beta.zero() && std::isfinite(p.beta.re) && std::isfinite(p.beta.im);
  return !(p.beta.zero() && p.has_beta() && !(p.family == Family::gemm && cpu_blas().openblas));
}

template <class T>
void host_run(const BlasProblem& p, const void* a, int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc) {
  if (p.family == Family::gemv && p.ta == 'R') return conj_gemv<T>(p, a, lda, b, ldb, c, ldc);
  T* ct = static_cast<T*>(c);
  if (p.scale_only()) {
    scale_output<T>(p, ct, ldc);
    return;
  }
  void* fn = cpu_routine(p);
  if (!fn || !fits_cpu_blas(p, lda, ldb, ldc)) {
    // With no CPU BLAS loaded at all, loading it already warned that the built-in loops run.
    if (!fn && cpu_blas().name != "built-in")
      warn_once(std::string("cpu-lacks:") + routine_name(p.routine()),
                std::string("the CPU BLAS (") + cpu_blas().name + ") lacks " + routine_name(p.routine()) +
                    "; running it with myblas's built-in loops, which are slow");
    reference_blas<T>(p, a, lda, b, ldb, c, ldc);
    return;
  }
  Scalar beta = p.beta;
  if (!beta_passes(p)) {
    scale_output<T>(p, ct, ldc);
    beta = Scalar{1, 0};
  }
  const CpuBlas::Call in_call;
  call_fortran<T>(fn, p, static_cast<const T*>(a), int(lda), static_cast<const T*>(b), int(ldb), ct, int(ldc), beta);
}

template <class T>
bool run_typed(const BlasProblem& p, std::string* why) {
  if (p.family == Family::gemv) {
    // Vectors in device memory come over packed, in address order (increment +-1).
    const bool read_ax = !p.scale_only();
    HostMatrix a;
    const int64_t lx = p.b_rows(), ly = p.c_rows();
    if (!stage_in(p.a, read_ax ? p.mem_a : Mem::host, p.lda, int(p.m), int(p.n), sizeof(T), read_ax, &a, why))
      return false;
    std::vector<T> xs, ys;
    const void* x = p.b;
    void* y = p.c;
    int64_t incx = p.ldb, incy = p.ldc;
    auto fetch = [&](const void* src, int64_t len, int64_t inc, std::vector<T>* buf, bool needed) {
      buf->assign(size_t(len), T(0));
      if (!needed) return true;
      cudaError_t e = copy_vector(buf->data(), 1, src, inc, int(len), sizeof(T), nullptr);
      if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
      if (e != cudaSuccess) *why = note_cuda_error(e, "copying a device vector to the host");
      return e == cudaSuccess;
    };
    if (read_ax && p.mem_b == Mem::device) {
      if (!fetch(p.b, lx, p.ldb, &xs, true)) return false;
      x = xs.data();
      incx = p.ldb > 0 ? 1 : -1;
    }
    if (p.mem_c == Mem::device) {
      if (!fetch(p.c, ly, p.ldc, &ys, !p.beta.zero())) return false;
      y = ys.data();
      incy = p.ldc > 0 ? 1 : -1;
    }
    host_run<T>(p, a.ptr, a.ld, x, incx, y, incy);
    if (p.mem_c == Mem::device) {
      cudaError_t e = copy_vector(p.c, p.ldc, ys.data(), 1, int(ly), sizeof(T), nullptr);
      if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
      if (e != cudaSuccess) {
        *why = note_cuda_error(e, "copying y back to the device");
        return false;
      }
    }
    return true;
  }
  const bool read_ab = !p.scale_only();
  // A device C comes over whole and goes back whole: a rank-k update writes one triangle, so the
  // other must come over too (also with beta == 0), or the copy back would overwrite it.
  const bool read_c = p.family == Family::trmm || p.family == Family::trsm ? read_ab
                                                                          : !p.beta.zero() || rank_update(p.family);
  HostMatrix a, b, c;
  if (!stage_in(p.a, read_ab ? p.mem_a : Mem::host, p.lda, int(p.a_rows()), int(p.a_cols()), sizeof(T), read_ab, &a,
                why) ||
      (p.reads_b() && !stage_in(p.b, read_ab ? p.mem_b : Mem::host, p.ldb, int(p.b_rows()), int(p.b_cols()),
                                sizeof(T), read_ab, &b, why)) ||
      !stage_in(p.c, p.mem_c, p.ldc, int(p.c_rows()), int(p.c_cols()), sizeof(T), read_c, &c, why))
    return false;
  host_run<T>(p, a.ptr, a.ld, b.ptr, b.ld, const_cast<void*>(c.ptr), c.ld);
  return p.mem_c != Mem::device || stage_out(p.c, p.ldc, c, int(p.c_rows()), int(p.c_cols()), sizeof(T), why);
}

}  // namespace

void cpu_host_item(const BlasProblem& p) {
  switch (p.type) {
    case Dtype::s: return host_run<float>(p, p.a, p.lda, p.b, p.ldb, p.c, p.ldc);
    case Dtype::d: return host_run<double>(p, p.a, p.lda, p.b, p.ldb, p.c, p.ldc);
    case Dtype::c: return host_run<std::complex<float>>(p, p.a, p.lda, p.b, p.ldb, p.c, p.ldc);
    case Dtype::z: return host_run<std::complex<double>>(p, p.a, p.lda, p.b, p.ldb, p.c, p.ldc);
    case Dtype::h: break;
  }
}

namespace {

// host_run's checks once for a GEMM group (the group's products share everything but their
// operands), then one CPU BLAS call per product.
template <class T>
bool host_gemm_products(const BatchProblem& p, const BatchGroup& g, int64_t i0, int64_t i1) {
  const BlasProblem first = p.item(g, i0);
  void* fn = cpu_routine(first);
  if (first.scale_only() || !fn || !fits_cpu_blas(first, first.lda, first.ldb, first.ldc) || !beta_passes(first))
    return false;
  const size_t es = sizeof(T);
  const CpuBlas::Call in_call;
  for (int64_t i = i0; i < i1; ++i)
    call_fortran<T>(fn, first, static_cast<const T*>(g.a_at(i, es)), int(first.lda),
                    static_cast<const T*>(g.b_at(i, es)), int(first.ldb), static_cast<T*>(g.c_at(i, es)),
                    int(first.ldc), first.beta);
  return true;
}

}  // namespace

bool cpu_host_gemm_products(const BatchProblem& p, const BatchGroup& g, int64_t i0, int64_t i1) {
  if (p.family != Family::gemm || i1 <= i0) return false;
  switch (p.type) {
    case Dtype::s: return host_gemm_products<float>(p, g, i0, i1);
    case Dtype::d: return host_gemm_products<double>(p, g, i0, i1);
    case Dtype::c: return host_gemm_products<std::complex<float>>(p, g, i0, i1);
    case Dtype::z: return host_gemm_products<std::complex<double>>(p, g, i0, i1);
    case Dtype::h: break;
  }
  return false;
}

bool cpu_blas_has(Routine r) { return cpu_blas().routines[int(r)] != nullptr; }

bool cpu_blas_problem(const BlasProblem& p, std::string* why) {
  switch (p.type) {
    case Dtype::s: return run_typed<float>(p, why);
    case Dtype::d: return run_typed<double>(p, why);
    case Dtype::c: return run_typed<std::complex<float>>(p, why);
    case Dtype::z: return run_typed<std::complex<double>>(p, why);
    case Dtype::h: break;
  }
  *why = "no CPU path for this element type";
  return false;
}

}  // namespace myblas
