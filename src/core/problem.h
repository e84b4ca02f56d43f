// Plain, validated problem descriptions: what the interface layer hands to dispatch.
// Everything here is column-major; row-major CBLAS calls were already transposed away,
// argument errors and quick returns were already handled.
#pragma once
#include <cstddef>
#include <cstdint>

namespace myblas {

// Element types: FP32, FP64, complex FP32, complex FP64 (interleaved pairs, the layout of C's
// float _Complex and Fortran's COMPLEX), and binary16 storage.
enum class Dtype : uint8_t { s, d, c, z, h };
// Routine families; one of each element type is one routine (dgemm, zherk, ...).
enum class Family : uint8_t { gemm, gemv, symm, hemm, syrk, herk, syr2k, her2k, trmm, trsm };
constexpr int kFamilies = 10;
// The rank-k updates: they write one triangle of a square C.
inline bool rank_update(Family f) {
  return f == Family::syrk || f == Family::herk || f == Family::syr2k || f == Family::her2k;
}
constexpr int kFirstGenericRoutine = 3;
constexpr int kRoutineCount = kFirstGenericRoutine + kFamilies * 4;  // (the dispatch table's routines)
// One routine of one element type: the key of the dispatch table. sgemm, sgemv and hgemm have
// their own problem descriptions (GemmProblem, GemvProblem) and our kernels; every other routine
// of families x {s, d, c, z} is described by a BlasProblem and has the value routine_of gives.
// sbgemm (bfloat16 A and B, FP32 C: OpenBLAS's sbgemm, MKL's gemm_bf16bf16f32) and shgemm
// (binary16 A and B, FP32 C: OpenBLAS's shgemm, MKL's gemm_f16f16f32) are GemmProblems after the
// table's routines: they have no table rows.
enum class Routine : uint8_t { sgemm, sgemv, hgemm, sbgemm = kRoutineCount, shgemm };
inline Routine routine_of(Family f, Dtype t) {
  if (f == Family::gemm && t == Dtype::s) return Routine::sgemm;
  if (f == Family::gemv && t == Dtype::s) return Routine::sgemv;
  if (f == Family::gemm && t == Dtype::h) return Routine::hgemm;
  return Routine(kFirstGenericRoutine + int(f) * 4 + int(t));
}
enum class Op : uint8_t { N, T };  // 'C' is 'T' for real data
// Where one operand lives. Managed memory is readable from both sides.
enum class Mem : uint8_t { host, device, managed };
enum class Path : uint8_t { none, cpu, cublas, kernels };

const char* routine_name(Routine r);  // "dgemm", "zherk", ...; "?" for an unused value
const char* family_name(Family f);    // "gemm", "herk", ...
inline bool is_complex(Dtype t) { return t == Dtype::c || t == Dtype::z; }
inline size_t dtype_size(Dtype t) {
  switch (t) {
    case Dtype::s: return 4;
    case Dtype::d: return 8;
    case Dtype::c: return 8;
    case Dtype::z: return 16;
    case Dtype::h: return 2;
  }
  return 0;
}
const char* path_name(Path p);
inline char op_char(Op o) { return o == Op::N ? 'N' : 'T'; }
inline char mem_char(Mem m) { return m == Mem::host ? 'h' : m == Mem::device ? 'd' : 'm'; }

// C := alpha*op(A)*op(B) + beta*C for sgemm (float), hgemm (binary16 storage), and sbgemm /
// shgemm (16-bit A and B, float C). alpha and beta are held in FP32 (hgemm's binary16 scalars
// widen exactly).
struct GemmProblem {
  Routine routine = Routine::sgemm;
  Op ta = Op::N, tb = Op::N;
  int m = 0, n = 0, k = 0;
  float alpha = 1.f, beta = 0.f;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int lda = 1, ldb = 1, ldc = 1;
  Mem mem_a = Mem::host, mem_b = Mem::host, mem_c = Mem::host;
  int dev_a = -1, dev_b = -1, dev_c = -1;  // owning CUDA device of device/managed operands
  int device = -1;  // where a GPU path runs: C's device, else A's or B's; -1 if all on host

  // Bytes per element of A and B, and of C: they differ for sbgemm and shgemm.
  size_t ab_elem_size() const { return routine == Routine::hgemm || mixed() ? 2 : 4; }
  size_t c_elem_size() const { return routine == Routine::hgemm ? 2 : 4; }
  // A and B are 16-bit with an FP32 C (sbgemm, shgemm).
  bool mixed() const { return routine == Routine::sbgemm || routine == Routine::shgemm; }
  // Rows/cols of A and B as stored.
  int a_rows() const { return ta == Op::N ? m : k; }
  int a_cols() const { return ta == Op::N ? k : m; }
  int b_rows() const { return tb == Op::N ? k : n; }
  int b_cols() const { return tb == Op::N ? n : k; }
  // alpha == 0 or k == 0: C := beta*C, A and B are never read.
  bool scale_only() const { return alpha == 0.f || k == 0; }
  bool any_device() const {
    return mem_c == Mem::device || (!scale_only() && (mem_a == Mem::device || mem_b == Mem::device));
  }
};

// y := alpha*op(A)*x + beta*y.
struct GemvProblem {
  Op ta = Op::N;
  int m = 0, n = 0;
  float alpha = 1.f, beta = 0.f;
  const float* a = nullptr;
  const float* x = nullptr;
  float* y = nullptr;
  int lda = 1, incx = 1, incy = 1;
  Mem mem_a = Mem::host, mem_x = Mem::host, mem_y = Mem::host;
  int dev_a = -1, dev_x = -1, dev_y = -1;
  int device = -1;

  int len_x() const { return ta == Op::N ? n : m; }
  int len_y() const { return ta == Op::N ? m : n; }
  bool scale_only() const { return alpha == 0.f; }
  bool any_device() const {
    return mem_y == Mem::device || (!scale_only() && (mem_a == Mem::device || mem_x == Mem::device));
  }
};

// A scalar of any element type, exactly (FP32 and FP64 values are exact in double).
struct Scalar {
  double re = 0, im = 0;
  bool zero() const { return re == 0 && im == 0; }
  bool one() const { return re == 1 && im == 0; }
};

// Every routine other than SGEMM, SGEMV and HGEMM, of any element type: validated, column-major
// (row-major CBLAS calls were already turned into their column-major equivalent), quick returns
// done. Option characters are the reference's, upper case. The output is c:
//   gemm   C(m x n) := alpha op(A) op(B) + beta C        ta, tb in N, T, C
//   gemv   y := alpha op(A) x + beta y                   A m x n; x = b, incx = ldb; y = c, incy = ldc;
//          ta N, T, C, or R: conj(A) (row-major CBLAS ConjTrans; the CPU path alone runs it)
//   symm   C(m x n) := alpha A B + beta C (side L) or alpha B A + beta C (side R), A symmetric
//   hemm   the same with A Hermitian
//   syrk   C(n x n) := alpha A A^T + beta C (ta N, A n x k) or alpha A^T A + beta C (ta T, A k x n)
//   herk   the same with ^H (ta N or C); alpha, beta real
//   syr2k  C := alpha A B^T + alpha B A^T + beta C (or with ^T first); A, B like A of syrk
//   her2k  C := alpha A B^H + conj(alpha) B A^H + beta C; beta real
//   trmm   B(m x n) := alpha op(A) B or alpha B op(A), A triangular; B is c (read and written)
//   trsm   solves op(A) X = alpha B or X op(A) = alpha B for X, written over B (c)
// The triangle uplo of C (syrk .. her2k) or of A (symm .. trsm) is the one referenced.
struct BlasProblem {
  Family family = Family::gemm;
  Dtype type = Dtype::d;
  char side = 'L', uplo = 'U', ta = 'N', tb = 'N', diag = 'N';
  int64_t m = 0, n = 0, k = 0;
  Scalar alpha, beta;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int64_t lda = 1, ldb = 1, ldc = 1;
  Mem mem_a = Mem::host, mem_b = Mem::host, mem_c = Mem::host;
  int dev_a = -1, dev_b = -1, dev_c = -1;
  int device = -1;

  Routine routine() const { return routine_of(family, type); }
  size_t elem_size() const { return dtype_size(type); }
  bool reads_b() const {
    return family == Family::gemm || family == Family::gemv || family == Family::symm ||
           family == Family::hemm || family == Family::syr2k || family == Family::her2k;
  }
  bool has_beta() const { return family != Family::trmm && family != Family::trsm; }
  // The rows and columns of C (y: len_y x 1) and of A and B as stored.
  int64_t c_rows() const;
  int64_t c_cols() const;
  int64_t a_rows() const;
  int64_t a_cols() const;
  int64_t b_rows() const;
  int64_t b_cols() const;
  // alpha == 0 (or k == 0 where there is a k): the output is only scaled by beta (trmm/trsm:
  // set to zero), A and B are never read.
  bool scale_only() const;
  bool any_device() const {
    return mem_c == Mem::device ||
           (!scale_only() && (mem_a == Mem::device || (reads_b() && mem_b == Mem::device)));
  }
  // Multiply-adds of the product (a complex one counts once), for the size rules.
  double macs() const;
};

// Whether a size, leading dimension or increment fits the 32-bit integers of the CPU BLAS and of
// cuBLAS's v2 interface.
inline bool fits_int32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

// Offset (in elements) of the first logical element of a strided vector, as the
// reference BLAS defines it: a negative increment starts from the end.
inline int64_t vec_start(int len, int inc) { return inc > 0 ? 0 : -int64_t(len - 1) * inc; }

}  // namespace myblas
