#include "backends/cpu/cpu_backend.h"

#include <cstdint>
#include <cmath>
#include <cstring>
#include <vector>

#include "backends/cpu/cpu_blas.h"
#include "backends/cuda/cuda_runtime.h"
#include "core/half.h"

namespace myblas {

bool stage_in(const void* src, Mem mem, int64_t ld, int rows, int cols, size_t elem,
              bool needed, HostMatrix* out, std::string* why) {
  if (mem != Mem::device) {
    out->ptr = src;
    out->ld = ld;
    return true;
  }
  out->ld = rows > 0 ? rows : 1;
  out->copy.assign(size_t(out->ld) * size_t(cols > 0 ? cols : 0) * elem + elem, 0);
  out->ptr = out->copy.data();
  if (!needed) return true;
  cudaError_t e = copy_matrix(out->copy.data(), out->ld, src, ld, rows, cols, elem, nullptr);
  if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
  if (e != cudaSuccess) {
    *why = note_cuda_error(e, "copying a device operand to the host");
    return false;
  }
  return true;
}

bool stage_out(void* dst, int64_t ld, const HostMatrix& h, int rows, int cols, size_t elem,
               std::string* why) {
  cudaError_t e = copy_matrix(dst, ld, h.ptr, h.ld, rows, cols, elem, nullptr);
  if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
  if (e != cudaSuccess) {
    *why = note_cuda_error(e, "copying the result back to the device");
    return false;
  }
  return true;
}

namespace {

// C := beta*C over m x n with leading dimension ldc; beta == 0 stores zeros unread (one memset
// when the columns are contiguous: 64 column memsets of 256 bytes were a visible part of a 3 us
// 64^3 SGEMM).
void scale_f32(float* c, int64_t ldc, int m, int n, float beta) {
  if (beta == 0.f && ldc == m) {
    std::memset(c, 0, sizeof(float) * size_t(m) * size_t(n > 0 ? n : 0));
    return;
  }
  for (int j = 0; j < n; ++j) {
    float* col = c + j * ldc;
    if (beta == 0.f) std::memset(col, 0, sizeof(float) * size_t(m));
    else if (beta != 1.f)
      for (int i = 0; i < m; ++i) col[i] *= beta;
  }
}

// y := beta*y over the len elements of a strided vector (y points at the lowest-addressed one),
// the elements between them untouched; beta == 0 stores zeros without reading y. beta is a
// value and a contiguous y a plain loop, so the compiler vectorises it (the loop this replaced
// reloaded beta through the problem for every element: at n = 64 it was 40 of the 70 ns that
// dispatch added to OpenBLAS's call on the build machine, and it grew with n).
void scale_vector(float* y, int len, int inc, float beta) {
  if (beta == 1.f) return;
  const int64_t step = inc < 0 ? -int64_t(inc) : inc;
  if (beta == 0.f && step == 1) {
    std::memset(y, 0, sizeof(float) * size_t(len));
  } else if (beta == 0.f) {
    for (int i = 0; i < len; ++i) y[i * step] = 0.f;
  } else if (step == 1) {
    for (int i = 0; i < len; ++i) y[i] *= beta;
  } else {
    for (int i = 0; i < len; ++i) y[i * step] *= beta;
  }
}

// A rows x cols binary16 block (leading dimension lds) widened into a packed FP32 copy.
void widen(const uint16_t* src, int64_t lds, int rows, int cols, std::vector<float>* dst) {
  dst->resize(size_t(rows) * size_t(cols));
  for (int j = 0; j < cols; ++j) halves_to_floats(src + j * lds, dst->data() + size_t(j) * size_t(rows), size_t(rows));
}

void gemm_f32(const GemmProblem& p, const float* a, int64_t lda, const float* b, int64_t ldb,
              float* c, int64_t ldc) {
  if (p.scale_only()) {  // alpha == 0 or k == 0: A and B are never read
    scale_f32(c, ldc, p.m, p.n, p.beta);
    return;
  }
  // beta == 0: C is written without being read. OpenBLAS's beta = 0 kernels store zeros without
  // reading C, so it is handed beta = 0 (the NaN-in-C tests check this on every kernel set they
  // run on: tests/backends/test_cpu_core.cpp loads Prescott, Haswell/SkylakeX and OpenBLAS's own
  // choice). Zeroing C here first and handing it beta = 1 instead measured 0.88-0.92x OpenBLAS
  // alone at 96^3 and 256^3-384^3 (SkylakeX kernels, H100 host; faster, 1.06-1.17x, only at
  // 128^3-160^3), handing beta = 0 0.96-1.02x at every size from 64^3 to 384^3
  // (bench/results/h100-host-paired-small-2026-11-26.txt): OpenBLAS's own behaviour. Another
  // CPU BLAS (MYBLAS_CPU_BLAS) is not trusted with it: C is zeroed first and it gets beta = 1.
  const bool blas_zeroes = p.beta == 0.f && cpu_blas().openblas;
  if (p.beta == 0.f && !blas_zeroes) scale_f32(c, ldc, p.m, p.n, 0.f);
  const float beta = p.beta == 0.f && !blas_zeroes ? 1.f : p.beta;
  const char ta = op_char(p.ta), tb = op_char(p.tb);
  const int ilda = int(lda), ildb = int(ldb), ildc = int(ldc);
  cpu_blas().sgemm(&ta, &tb, &p.m, &p.n, &p.k, &p.alpha, a, &ilda, b, &ildb, &beta, c, &ildc);
}

// hgemm on the CPU: widen to FP32, sgemm, round back once.
void gemm_f16(const GemmProblem& p, const uint16_t* a, int64_t lda, const uint16_t* b,
              int64_t ldb, uint16_t* c, int64_t ldc) {
  // (Conversions go 8 at a time with F16C where the CPU has it: one element at a time they made
  // this path 3-8x slower than SGEMM of the same size on the build machine.)
  std::vector<float> fa, fb, fc;
  if (p.beta != 0.f) widen(c, ldc, p.m, p.n, &fc);
  else fc.assign(size_t(p.m) * size_t(p.n), 0.f);
  if (!p.scale_only()) {
    widen(a, lda, p.a_rows(), p.a_cols(), &fa);
    widen(b, ldb, p.b_rows(), p.b_cols(), &fb);
  }
  GemmProblem q = p;
  q.routine = Routine::sgemm;
  const int64_t ar = p.a_rows() > 0 ? p.a_rows() : 1, br = p.b_rows() > 0 ? p.b_rows() : 1;
  gemm_f32(q, fa.data(), ar, fb.data(), br, fc.data(), p.m);
  for (int j = 0; j < p.n; ++j) floats_to_halves(fc.data() + size_t(j) * size_t(p.m), c + j * ldc, size_t(p.m));
}

// sbgemm / shgemm on the CPU: the CPU BLAS's own routine where it exports one, else A and B
// widened (exactly) to FP32 and the CPU SGEMM on the caller's C: the same FP32 operation.
void gemm_mixed(const GemmProblem& p, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float* c,
                int64_t ldc) {
  if (p.scale_only()) {  // alpha == 0 or k == 0: A and B are never read
    scale_f32(c, ldc, p.m, p.n, p.beta);
    return;
  }
  const bool bf16 = p.routine == Routine::sbgemm;
  if (gemm16_fn own = bf16 ? cpu_blas().sbgemm_ptr : cpu_blas().shgemm_ptr) {
    // Not trusted to leave a NaN in C alone with beta == 0: C is zeroed here, beta = 1 there.
    if (p.beta == 0.f) scale_f32(c, ldc, p.m, p.n, 0.f);
    const float beta = p.beta == 0.f ? 1.f : p.beta;
    const char ta = op_char(p.ta), tb = op_char(p.tb);
    const int ilda = int(lda), ildb = int(ldb), ildc = int(ldc);
    cpu_blas().gemm16(own, &ta, &tb, &p.m, &p.n, &p.k, &p.alpha, a, &ilda, b, &ildb, &beta, c, &ildc);
    return;
  }
  auto widen16 = [bf16](const uint16_t* src, int64_t lds, int rows, int cols, std::vector<float>* dst) {
    dst->resize(size_t(rows) * size_t(cols));
    for (int j = 0; j < cols; ++j) {
      float* col = dst->data() + size_t(j) * size_t(rows);
      if (bf16) bf16s_to_floats(src + j * lds, col, size_t(rows));
      else halves_to_floats(src + j * lds, col, size_t(rows));
    }
  };
  std::vector<float> fa, fb;
  widen16(a, lda, p.a_rows(), p.a_cols(), &fa);
  widen16(b, ldb, p.b_rows(), p.b_cols(), &fb);
  gemm_f32(p, fa.data(), p.a_rows(), fb.data(), p.b_rows(), c, ldc);
}

}  // namespace

bool cpu_gemm(const GemmProblem& p, std::string* why) {
  const size_t es = p.ab_elem_size(), es_c = p.c_elem_size();
  const bool read_ab = !p.scale_only();
  HostMatrix a, b, c;
  if (!stage_in(p.a, read_ab ? p.mem_a : Mem::host, p.lda, p.a_rows(), p.a_cols(), es, read_ab, &a, why) ||
      !stage_in(p.b, read_ab ? p.mem_b : Mem::host, p.ldb, p.b_rows(), p.b_cols(), es, read_ab, &b, why) ||
      !stage_in(p.c, p.mem_c, p.ldc, p.m, p.n, es_c, p.beta != 0.f, &c, why))
    return false;
  void* cw = const_cast<void*>(c.ptr);
  if (p.routine == Routine::hgemm)
    gemm_f16(p, static_cast<const uint16_t*>(a.ptr), a.ld, static_cast<const uint16_t*>(b.ptr),
             b.ld, static_cast<uint16_t*>(cw), c.ld);
  else if (p.mixed())
    gemm_mixed(p, static_cast<const uint16_t*>(a.ptr), a.ld, static_cast<const uint16_t*>(b.ptr), b.ld,
               static_cast<float*>(cw), c.ld);
  else
    gemm_f32(p, static_cast<const float*>(a.ptr), a.ld, static_cast<const float*>(b.ptr), b.ld,
             static_cast<float*>(cw), c.ld);
  return p.mem_c != Mem::device || stage_out(p.c, p.ldc, c, p.m, p.n, es_c, why);
}

void cpu_sgemm_host(const GemmProblem& p) {
  gemm_f32(p, static_cast<const float*>(p.a), p.lda, static_cast<const float*>(p.b), p.ldb, static_cast<float*>(p.c),
           p.ldc);
}

namespace {
// Whether a 32-bit BLAS computes the start of this vector, (len-1)*|inc|, past INT32_MAX.
bool huge_vector(int len, int inc) {
  return int64_t(len - 1) * (inc < 0 ? -int64_t(inc) : int64_t(inc)) >= int64_t(INT32_MAX);
}


// y := beta*y here, then y += alpha*op(A)*x by the CPU BLAS with beta = 1, all in host memory.
// The CPU BLAS is not handed beta == 0 (y must not be read: a CPU BLAS may compute 0*NaN) nor a
// NaN or infinite beta (OpenBLAS 0.3.21 loses a NaN beta: fuzz corpus sgemv_beta_nan).
// A finite beta other than 0 is the CPU BLAS's to apply: scaling y here first was a second pass
// over y, a tenth of a 64 x 64 call's time.
inline __attribute__((always_inline)) void host_gemv(const GemvProblem& p, const float* a, int lda, const float* x, int incx,
                                                 float* y, int incy) {
  const bool pass_beta = !p.scale_only() && p.beta != 0.f && std::isfinite(p.beta);
  if (!pass_beta) scale_vector(y, p.len_y(), incy, p.beta);
  if (p.scale_only()) return;
  const char t = op_char(p.ta);
  const float one = 1.f;
  cpu_blas().sgemv(&t, &p.m, &p.n, &p.alpha, a, &lda, x, &incx, pass_beta ? &p.beta : &one, y, &incy);
}
}  // namespace

bool cpu_gemv_host(const GemvProblem& p) {
  if (huge_vector(p.len_x(), p.incx) || huge_vector(p.len_y(), p.incy)) return false;
  host_gemv(p, p.a, p.lda, p.x, p.incx, p.y, p.incy);
  return true;
}

bool cpu_gemv(const GemvProblem& p, std::string* why) {
  const int lx = p.len_x(), ly = p.len_y();
  const bool read_ax = !p.scale_only();
  HostMatrix a;
  if (!stage_in(p.a, read_ax ? p.mem_a : Mem::host, p.lda, p.m, p.n, 4, read_ax, &a, why))
    return false;
  // Vectors in device memory come over packed, in address order (increment +-1).
  std::vector<float> xs, ys;
  const float* x = p.x;
  float* y = p.y;
  int incx = p.incx, incy = p.incy;
  auto fetch = [&](const float* src, int len, int inc, std::vector<float>* buf, bool needed) {
    buf->assign(size_t(len), 0.f);
    if (!needed) return true;
    cudaError_t e = copy_vector(buf->data(), 1, src, inc, len, 4, nullptr);
    if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
    if (e != cudaSuccess) *why = note_cuda_error(e, "copying a device vector to the host");
    return e == cudaSuccess;
  };
  if (read_ax && p.mem_x == Mem::device) {
    if (!fetch(p.x, lx, p.incx, &xs, true)) return false;
    x = xs.data();
    incx = p.incx > 0 ? 1 : -1;
  }
  if (p.mem_y == Mem::device) {
    if (!fetch(p.y, ly, p.incy, &ys, p.beta != 0.f)) return false;
    y = ys.data();
    incy = p.incy > 0 ? 1 : -1;
  }
  // 32-bit BLASes (OpenBLAS 0.3.21, the reference) compute a negative increment's starting
  // offset, (len-1)*inc, in int: past 2^31 elements it overflows and they read far outside the
  // vector (tests/reliability found it). Host vectors that long go over packed as well.
  bool y_packed_here = false;
  if (read_ax && x == p.x && huge_vector(lx, p.incx)) {
    const int64_t step = p.incx < 0 ? -int64_t(p.incx) : p.incx;
    xs.resize(size_t(lx));
    for (int i = 0; i < lx; ++i) xs[size_t(i)] = p.x[i * step];
    x = xs.data();
    incx = p.incx > 0 ? 1 : -1;
  }
  if (y == p.y && huge_vector(ly, p.incy)) {
    const int64_t step = p.incy < 0 ? -int64_t(p.incy) : p.incy;
    ys.assign(size_t(ly), 0.f);
    if (p.beta != 0.f)
      for (int i = 0; i < ly; ++i) ys[size_t(i)] = p.y[i * step];
    y = ys.data();
    incy = p.incy > 0 ? 1 : -1;
    y_packed_here = true;
  }
  host_gemv(p, static_cast<const float*>(a.ptr), int(a.ld), x, incx, y, incy);
  if (y_packed_here) {
    const int64_t step = p.incy < 0 ? -int64_t(p.incy) : p.incy;
    for (int i = 0; i < ly; ++i) p.y[i * step] = ys[size_t(i)];
  }
  if (p.mem_y == Mem::device) {
    cudaError_t e = copy_vector(p.y, p.incy, ys.data(), 1, ly, 4, nullptr);
    if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
    if (e != cudaSuccess) {
      *why = note_cuda_error(e, "copying y back to the device");
      return false;
    }
  }
  return true;
}

}  // namespace myblas
