// A batch of GEMMs or GEMVs as the interface hands it to dispatch: a list of groups, each a set of
// products that share options, sizes, scalars and leading dimensions, with their operands either
// listed one pointer per product (cblas_?gemm_batch) or placed at a constant stride from a base
// (cblas_?gemm_batch_strided). Column-major, validated (no two outputs share an element), quick
// returns of whole groups already taken.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/problem.h"

namespace myblas {

// The rungs of our batched square GEMM kernel (kernels/batched.h), as the dispatch table names them
// (mma: binary16 only).
enum class SquareKernel { smem, staged, prefetch, mma };

// One group. gemm: C_i(m x n) := alpha op(A_i) op(B_i) + beta C_i. gemv: y_i := alpha op(A_i) x_i +
// beta y_i with A_i m x n, x = b (increment ldb), y = c (increment ldc); ta 'R' is conj(A) without a
// transpose (row-major CBLAS ConjTrans), which only the CPU path runs.
struct BatchGroup {
  char ta = 'N', tb = 'N';  // N, T, C (complex), R (gemv only)
  int64_t m = 0, n = 0, k = 0;
  Scalar alpha, beta;
  int64_t lda = 1, ldb = 1, ldc = 1;
  int64_t count = 0;
  // Listed operands (entry first .. first + count - 1 of the call's arrays), else strided ones.
  const void* const* a_list = nullptr;
  const void* const* b_list = nullptr;
  void* const* c_list = nullptr;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // in elements; 0 for A or B: one shared operand
  // Strided, but given as pointer arrays that step evenly (listed_as_strided): unlike a strided
  // call's operands, its products' operands need not lie in one allocation each.
  bool stepped = false;
  // Speculative (listed_as_strided with speculate): C's list was checked, A's and B's are taken
  // as stepping from their first two pointers without a pass over them; the lists as given are
  // kept here, to confirm the guess while the GPU runs (speculation_holds) or to go back to them
  // (settle_speculation, undo_speculation). Only products with beta == 0 are run this way: a
  // wrong guess is undone by running the products again from the lists, overwriting C.
  const void* const* given_a = nullptr;
  const void* const* given_b = nullptr;
  void* const* given_c = nullptr;

  bool listed() const { return c_list != nullptr; }
  bool speculative() const { return given_c != nullptr; }
  const void* a_at(int64_t i, size_t es) const {
    return listed() ? a_list[i] : static_cast<const char*>(a) + size_t(i) * size_t(stride_a) * es;
  }
  const void* b_at(int64_t i, size_t es) const {
    return listed() ? b_list[i] : static_cast<const char*>(b) + size_t(i) * size_t(stride_b) * es;
  }
  void* c_at(int64_t i, size_t es) const {
    return listed() ? c_list[i] : static_cast<char*>(c) + size_t(i) * size_t(stride_c) * es;
  }
  // alpha == 0 (or k == 0 for gemm): each output is only scaled by beta, A and B are never read.
  bool scale_only(Family f) const { return alpha.zero() || (f == Family::gemm && k == 0); }
};

struct BatchProblem {
  Family family = Family::gemm;  // gemm or gemv
  Dtype type = Dtype::s;
  std::vector<BatchGroup> groups;
  // Where the operands live, as dispatch found them: all in one kind of memory (and for device
  // memory on one device), or mixed (each product then runs as a call of its own).
  Mem mem = Mem::host;
  bool mixed = false;
  int device = -1;

  // Set by the device path when a speculative group's lists turned out not to step (after the
  // products it ran have completed): the caller undoes the speculation and runs the call again.
  mutable bool mispredicted = false;

  size_t elem_size() const { return dtype_size(type); }
  bool speculative() const {
    for (const BatchGroup& g : groups)
      if (g.speculative()) return true;
    return false;
  }
  int64_t total() const {
    int64_t t = 0;
    for (const BatchGroup& g : groups) t += g.count;
    return t;
  }
  // Product i of group g as a single call's problem description.
  BlasProblem item(const BatchGroup& g, int64_t i) const {
    BlasProblem p;
    p.family = family;
    p.type = type;
    p.ta = g.ta;
    p.tb = g.tb;
    p.m = g.m, p.n = g.n, p.k = family == Family::gemm ? g.k : 0;
    p.alpha = g.alpha, p.beta = g.beta;
    p.a = g.a_at(i, elem_size());
    p.b = g.b_at(i, elem_size());
    p.c = g.c_at(i, elem_size());
    p.lda = g.lda, p.ldb = g.ldb, p.ldc = g.ldc;
    return p;
  }
};

// A listed group whose pointers step through its lists by a constant number of whole elements
// (C by a positive one; A and B by any one from 0 up, and not looked at when the group only
// scales C) becomes the strided group of the same products: true, g rewritten. Else false, g
// unchanged. Pointer arrays built over one allocation per operand come this way; as a strided
// group they are checked for overlap without a pass over the products and need no pointer array
// on the GPU.
// With speculate (a group with beta == 0 that reads A and B), only C's list is checked in full
// (the outputs must be known to step before anything is written): A's and B's steps come from
// their first two pointers and the group is left speculative (BatchGroup::given_a).
bool listed_as_strided(BatchGroup* g, Family f, size_t es, bool speculate = false);
// Whether every speculative group's A and B lists step as guessed (the pass the speculation put
// off, over the copy threads for long lists).
bool speculation_holds(const BatchProblem& p);
// A speculative group made final: strided when its lists step as guessed, else listed again as
// given. Returns whether it went back to its lists. The second form: every group of p, whether
// any went back.
bool settle_speculation(BatchGroup* g, size_t es);
bool settle_speculation(BatchProblem* p);
// Each speculative group listed again as given (after a wrong guess).
void undo_speculation(BatchProblem* p);

// Whether two column-major blocks (rows x cols at p with leading dimension ld, in elements of
// `es` bytes) share an element. Exact: blocks interleaved through their padding do not.
bool blocks_overlap(const void* p1, int64_t rows1, int64_t cols1, int64_t ld1, const void* p2, int64_t rows2,
                    int64_t cols2, int64_t ld2, size_t es);
// Whether any two outputs of the batch share an element (every group's C, or y for gemv).
bool batch_outputs_overlap(const BatchProblem& p);

}  // namespace myblas
