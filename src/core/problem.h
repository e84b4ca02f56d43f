// Plain, validated problem descriptions: what the interface layer hands to dispatch.
// Everything here is column-major; row-major CBLAS calls were already transposed away,
// argument errors and quick returns were already handled.
#pragma once
#include <cstddef>
#include <cstdint>

namespace myblas {

enum class Routine : uint8_t { sgemm, sgemv, hgemm };
enum class Op : uint8_t { N, T };  // 'C' is 'T' for real data
// Where one operand lives. Managed memory is readable from both sides.
enum class Mem : uint8_t { host, device, managed };
enum class Path : uint8_t { none, cpu, cublas, kernels };

const char* routine_name(Routine r);
const char* path_name(Path p);
inline char op_char(Op o) { return o == Op::N ? 'N' : 'T'; }
inline char mem_char(Mem m) { return m == Mem::host ? 'h' : m == Mem::device ? 'd' : 'm'; }

// C := alpha*op(A)*op(B) + beta*C for sgemm (float) and hgemm (binary16 storage).
// alpha and beta are held in FP32 (hgemm's binary16 scalars widen exactly).
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

  size_t elem_size() const { return routine == Routine::hgemm ? 2 : 4; }
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

// Offset (in elements) of the first logical element of a strided vector, as the
// reference BLAS defines it: a negative increment starts from the end.
inline int64_t vec_start(int len, int inc) { return inc > 0 ? 0 : -int64_t(len - 1) * inc; }

}  // namespace myblas
