// The batched GEMM and GEMV entry points as Intel MKL defines them (OpenBLAS follows for
// cblas_?gemm_batch): ?gemm_batch (groups of products, one pointer per operand),
// ?gemm_batch_strided (one group, operands a constant stride apart), ?gemv_batch and
// ?gemv_batch_strided, in Fortran and CBLAS forms, LP64 and ILP64 names; S, D, C, Z, and H for
// GEMM (binary16 storage and scalars, as cblas_hgemm). Written once, instantiated per element type
// and integer width.
//
// Checks: every argument of every group is checked before anything is computed; the first illegal
// one in parameter order is reported (Fortran names through xerbla_ as "SGEMM_BATCH" etc. with its
// Fortran position, CBLAS names through cblas_xerbla with the position in the CBLAS call, the
// layout counting 1). group_count, a group_size or batch_size below zero, and strides of A or B
// below zero, are illegal. Outputs that share an element are illegal (MKL requires distinct
// outputs): reported at the position of c_array / y_array, or stridec / stridey for the strided
// forms. A group whose sizes are zero, or whose alpha is 0 (or k is 0) with beta = 1, is skipped.
#include <cctype>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "core/batch.h"
#include "core/elem.h"
#include "core/half.h"
#include "core/stage_clock.h"
#include "dispatch/dispatch.h"
#include "interface/entry.h"

namespace myblas {

namespace {

struct Half16 {  // binary16 storage: the H precision's element and scalar type
  uint16_t bits;
};

template <class T>
constexpr Dtype dtype_of() {
  if constexpr (std::is_same_v<T, Half16>) return Dtype::h;
  else return Elem<T>::type;
}
template <class T>
constexpr bool kCplx = dtype_of<T>() == Dtype::c || dtype_of<T>() == Dtype::z;

template <class T>
Scalar scalar_at(const void* arr, int64_t i) {
  if constexpr (std::is_same_v<T, Half16>) return Scalar{double(half_to_float(static_cast<const uint16_t*>(arr)[i])), 0};
  else return to_scalar(static_cast<const T*>(arr)[i]);
}

char up(char c) { return char(std::toupper(static_cast<unsigned char>(c))); }
template <class I>
int64_t max1(I v) { return v > 1 ? int64_t(v) : 1; }

// "SGEMM_BATCH_STRIDED", "cblas_sgemm_batch_strided".
template <class T>
std::string fortran_name(Family f, bool strided) {
  std::string s(1, char(std::toupper("sdczh"[int(dtype_of<T>())])));
  s += f == Family::gemm ? "GEMM_BATCH" : "GEMV_BATCH";
  if (strided) s += "_STRIDED";
  return s;
}
template <class T>
std::string cblas_batch_name(Family f, bool strided) {
  std::string s = std::string("cblas_") + "sdczh"[int(dtype_of<T>())] + (f == Family::gemm ? "gemm_batch" : "gemv_batch");
  if (strided) s += "_strided";
  return s;
}

// Parameter positions of one routine's arguments (0: the form has no such argument).
struct GemmPos {
  int ta, tb, m, n, k, lda, ldb, ldc, stride_a, stride_b, stride_c, count, out;
};
struct GemvPos {
  int t, m, n, lda, incx, incy, stride_a, stride_x, stride_y, count, out;
};
// Fortran ?gemm_batch(transa_array, transb_array, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
// group_count, group_size); the CBLAS form has the layout first (+1).
constexpr GemmPos kGemmList{1, 2, 3, 4, 5, 8, 10, 13, 0, 0, 0, 15, 12};
// ?gemm_batch_strided(transa, transb, m, n, k, alpha, a, lda, stridea, b, ldb, strideb, beta, c,
// ldc, stridec, batch_size).
constexpr GemmPos kGemmStrided{1, 2, 3, 4, 5, 8, 11, 15, 9, 12, 16, 17, 16};
// ?gemv_batch(trans, m, n, alpha, a, lda, x, incx, beta, y, incy, group_count, group_size).
constexpr GemvPos kGemvList{1, 2, 3, 6, 8, 11, 0, 0, 0, 13, 10};
// ?gemv_batch_strided(trans, m, n, alpha, a, lda, stridea, x, incx, stridex, beta, y, incy,
// stridey, batch_size).
constexpr GemvPos kGemvStrided{1, 2, 3, 6, 9, 13, 7, 10, 14, 15, 14};

// One group's sizes checked in the user's terms (row-major: A is m x k as the user sees it,
// stored by rows). Returns the position of the first illegal argument, or 0. ta/tb are the
// parsed options ('\0' when illegal).
template <class I>
int gemm_group_check(const GemmPos& pos, int shift, bool row, char ta, char tb, I m, I n, I k, I lda, I ldb, I ldc) {
  const bool na = ta == 'N', nb = tb == 'N';
  if (ta != 'N' && ta != 'T' && ta != 'C') return pos.ta + shift;
  if (tb != 'N' && tb != 'T' && tb != 'C') return pos.tb + shift;
  if (m < 0) return pos.m + shift;
  if (n < 0) return pos.n + shift;
  if (k < 0) return pos.k + shift;
  const int64_t arows = row ? (na ? k : m) : (na ? m : k);
  const int64_t brows = row ? (nb ? n : k) : (nb ? k : n);
  if (lda < max1(arows)) return pos.lda + shift;
  if (ldb < max1(brows)) return pos.ldb + shift;
  if (ldc < max1(row ? n : m)) return pos.ldc + shift;
  return 0;
}
template <class I>
int gemv_group_check(const GemvPos& pos, int shift, bool row, char t, I m, I n, I lda, I incx, I incy) {
  if (t != 'N' && t != 'T' && t != 'C') return pos.t + shift;
  if (m < 0) return pos.m + shift;
  if (n < 0) return pos.n + shift;
  if (lda < max1(row ? n : m)) return pos.lda + shift;
  if (incx == 0) return pos.incx + shift;
  if (incy == 0) return pos.incy + shift;
  return 0;
}

// How a call reports: the Fortran name to xerbla_, or the CBLAS name to cblas_xerbla.
struct Reporter {
  std::string name;
  bool cblas;
  bool fail(int pos) const {
    if (!pos) return false;
    if (cblas) report_cblas(pos, name.c_str(), false, "", 0);
    else report_xerbla_name(name, pos);
    set_last_path(Path::none);
    return true;
  }
};

char cblas_trans(CBLAS_TRANSPOSE t) {
  return t == CblasNoTrans ? 'N' : t == CblasTrans ? 'T' : t == CblasConjTrans ? 'C' : '\0';
}

// A validated gemm group in the user's terms -> the column-major group (row-major: C^T = op(B)^T
// op(A)^T, so the roles of A and B, m and n swap). Real data: 'C' is 'T'.
template <class T>
void gemm_group_to_col(bool row, BatchGroup* g) {
  if (!kCplx<T>) {
    if (g->ta == 'C') g->ta = 'T';
    if (g->tb == 'C') g->tb = 'T';
  }
  if (!row) return;
  std::swap(g->ta, g->tb);
  std::swap(g->m, g->n);
  std::swap(g->lda, g->ldb);
  std::swap(g->a_list, g->b_list);
  std::swap(g->a, g->b);
  std::swap(g->stride_a, g->stride_b);
}
// gemv: row-major A is column-major A^T (n x m); ConjTrans of complex data is conj(A) with no
// transpose ('R').
template <class T>
void gemv_group_to_col(bool row, BatchGroup* g) {
  if (!kCplx<T> && g->ta == 'C') g->ta = 'T';
  if (!row) return;
  g->ta = g->ta == 'N' ? 'T' : g->ta == 'C' ? 'R' : 'N';
  std::swap(g->m, g->n);
}

bool skipped(Family f, const BatchGroup& g) {
  if (g.count == 0 || g.m == 0 || g.n == 0) return true;
  return g.scale_only(f) && g.beta.one();
}

// Validated groups (column-major) -> overlap check -> dispatch.
template <class T>
void submit(Family f, std::vector<BatchGroup>& groups, const Reporter& rep, int out_pos) {
  MYBLAS_STAGE_BEGIN();
  BatchProblem p;
  p.family = f;
  p.type = dtype_of<T>();
  for (BatchGroup& g : groups)
    if (!skipped(f, g)) {
      p.groups.push_back(g);
      listed_as_strided(&p.groups.back(), f, p.elem_size(), true);
    }
  if (p.groups.empty()) {
    set_last_path(Path::none);
    return;
  }
  if (batch_outputs_overlap(p)) {
    rep.fail(out_pos);
    return;
  }
  MYBLAS_STAGE(kStagePrepare);  // (the pointer pass and the overlap check)
  run_batch(p);
}

// ---- ?gemm_batch: groups, pointer arrays ----
// trans(i) gives group i's option character ('\0' when illegal).
template <class T, class I, class TransA, class TransB>
void gemm_batch(const Reporter& rep, int shift, bool row, TransA ta_of, TransB tb_of, const I* m, const I* n, const I* k,
                const void* alpha, const void* const* a, const I* lda, const void* const* b, const I* ldb,
                const void* beta, void* const* c, const I* ldc, I group_count, const I* group_size) {
  if (group_count < 0 && rep.fail(kGemmList.count - 1 + shift)) return;
  std::vector<BatchGroup> groups(static_cast<size_t>(group_count));
  int64_t first = 0;
  for (I i = 0; i < group_count; ++i) {
    if (group_size[i] < 0 && rep.fail(kGemmList.count + shift)) return;
    const char ta = ta_of(i), tb = tb_of(i);
    if (rep.fail(gemm_group_check(kGemmList, shift, row, ta, tb, m[i], n[i], k[i], lda[i], ldb[i], ldc[i]))) return;
    BatchGroup& g = groups[size_t(i)];
    g.ta = ta, g.tb = tb;
    g.m = m[i], g.n = n[i], g.k = k[i];
    g.alpha = scalar_at<T>(alpha, i), g.beta = scalar_at<T>(beta, i);
    g.lda = lda[i], g.ldb = ldb[i], g.ldc = ldc[i];
    g.count = group_size[i];
    g.a_list = a + first, g.b_list = b + first, g.c_list = c + first;
    first += group_size[i];
    gemm_group_to_col<T>(row, &g);
  }
  submit<T>(Family::gemm, groups, rep, kGemmList.out + shift);
}

// ---- ?gemm_batch_strided ----
template <class T, class I>
void gemm_strided(const Reporter& rep, int shift, bool row, char ta, char tb, I m, I n, I k, Scalar alpha,
                  const void* a, I lda, I stridea, const void* b, I ldb, I strideb, Scalar beta, void* c, I ldc,
                  I stridec, I batch_size) {
  int bad = gemm_group_check(kGemmStrided, shift, row, ta, tb, m, n, k, lda, ldb, ldc);
  // (the positions in parameter order: stridea lies between lda and ldb, strideb before ldc)
  auto first = [&](int pos, bool illegal) {
    if (illegal && (!bad || pos < bad)) bad = pos;
  };
  first(kGemmStrided.stride_a + shift, stridea < 0);
  first(kGemmStrided.stride_b + shift, strideb < 0);
  first(kGemmStrided.count + shift, batch_size < 0);
  if (rep.fail(bad)) return;
  std::vector<BatchGroup> groups(static_cast<size_t>(1));
  BatchGroup& g = groups[0];
  g.ta = ta, g.tb = tb;
  g.m = m, g.n = n, g.k = k;
  g.alpha = alpha, g.beta = beta;
  g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  g.count = batch_size;
  g.a = a, g.b = b, g.c = c;
  g.stride_a = stridea, g.stride_b = strideb, g.stride_c = stridec;
  gemm_group_to_col<T>(row, &g);
  submit<T>(Family::gemm, groups, rep, kGemmStrided.stride_c + shift);
}

// ---- ?gemv_batch ----
template <class T, class I, class Trans>
void gemv_batch(const Reporter& rep, int shift, bool row, Trans t_of, const I* m, const I* n, const void* alpha,
                const void* const* a, const I* lda, const void* const* x, const I* incx, const void* beta,
                void* const* y, const I* incy, I group_count, const I* group_size) {
  if (group_count < 0 && rep.fail(kGemvList.count - 1 + shift)) return;
  std::vector<BatchGroup> groups(static_cast<size_t>(group_count));
  int64_t first = 0;
  for (I i = 0; i < group_count; ++i) {
    if (group_size[i] < 0 && rep.fail(kGemvList.count + shift)) return;
    const char t = t_of(i);
    if (rep.fail(gemv_group_check(kGemvList, shift, row, t, m[i], n[i], lda[i], incx[i], incy[i]))) return;
    BatchGroup& g = groups[size_t(i)];
    g.ta = t;
    g.m = m[i], g.n = n[i];
    g.alpha = scalar_at<T>(alpha, i), g.beta = scalar_at<T>(beta, i);
    g.lda = lda[i], g.ldb = incx[i], g.ldc = incy[i];
    g.count = group_size[i];
    g.a_list = a + first, g.b_list = x + first, g.c_list = y + first;
    first += group_size[i];
    gemv_group_to_col<T>(row, &g);
  }
  submit<T>(Family::gemv, groups, rep, kGemvList.out + shift);
}

// ---- ?gemv_batch_strided ----
template <class T, class I>
void gemv_strided(const Reporter& rep, int shift, bool row, char t, I m, I n, Scalar alpha, const void* a, I lda,
                  I stridea, const void* x, I incx, I stridex, Scalar beta, void* y, I incy, I stridey, I batch_size) {
  int bad = gemv_group_check(kGemvStrided, shift, row, t, m, n, lda, incx, incy);
  auto first = [&](int pos, bool illegal) {
    if (illegal && (!bad || pos < bad)) bad = pos;
  };
  first(kGemvStrided.stride_a + shift, stridea < 0);
  first(kGemvStrided.stride_x + shift, stridex < 0);
  first(kGemvStrided.count + shift, batch_size < 0);
  if (rep.fail(bad)) return;
  std::vector<BatchGroup> groups(static_cast<size_t>(1));
  BatchGroup& g = groups[0];
  g.ta = t;
  g.m = m, g.n = n;
  g.alpha = alpha, g.beta = beta;
  g.lda = lda, g.ldb = incx, g.ldc = incy;
  g.count = batch_size;
  g.a = a, g.b = x, g.c = y;
  g.stride_a = stridea, g.stride_b = stridex, g.stride_c = stridey;
  gemv_group_to_col<T>(row, &g);
  submit<T>(Family::gemv, groups, rep, kGemvStrided.stride_y + shift);
}

// ---- the Fortran and CBLAS shells ----
template <class T>
Reporter fortran_rep(Family f, bool strided) { return {fortran_name<T>(f, strided), false}; }
template <class T>
Reporter cblas_rep(Family f, bool strided) { return {cblas_batch_name<T>(f, strided), true}; }

bool bad_layout(CBLAS_LAYOUT layout, const Reporter& rep) {
  if (layout == CblasColMajor || layout == CblasRowMajor) return false;
  report_cblas(1, rep.name.c_str(), false, "Illegal layout setting, %d\n", int(layout));
  set_last_path(Path::none);
  return true;
}

template <class T, class I>
void f_gemm_batch(const char* ta, const char* tb, const I* m, const I* n, const I* k, const void* alpha,
                  const void* const* a, const I* lda, const void* const* b, const I* ldb, const void* beta,
                  void* const* c, const I* ldc, const I* group_count, const I* group_size) {
  gemm_batch<T, I>(fortran_rep<T>(Family::gemm, false), 0, false, [ta](I i) { return up(ta[i]); },
                   [tb](I i) { return up(tb[i]); }, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, *group_count,
                   group_size);
}
template <class T, class I>
void c_gemm_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE* ta, const CBLAS_TRANSPOSE* tb, const I* m, const I* n,
                  const I* k, const void* alpha, const void* const* a, const I* lda, const void* const* b, const I* ldb,
                  const void* beta, void* const* c, const I* ldc, I group_count, const I* group_size) {
  const Reporter rep = cblas_rep<T>(Family::gemm, false);
  if (bad_layout(layout, rep)) return;
  gemm_batch<T, I>(rep, 1, layout == CblasRowMajor, [ta](I i) { return cblas_trans(ta[i]); },
                   [tb](I i) { return cblas_trans(tb[i]); }, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                   group_count, group_size);
}
template <class T, class I>
void f_gemm_strided(const char* ta, const char* tb, const I* m, const I* n, const I* k, const void* alpha,
                    const void* a, const I* lda, const I* stridea, const void* b, const I* ldb, const I* strideb,
                    const void* beta, void* c, const I* ldc, const I* stridec, const I* batch_size) {
  gemm_strided<T, I>(fortran_rep<T>(Family::gemm, true), 0, false, up(*ta), up(*tb), *m, *n, *k,
                     scalar_at<T>(alpha, 0), a, *lda, *stridea, b, *ldb, *strideb, scalar_at<T>(beta, 0), c, *ldc,
                     *stridec, *batch_size);
}
template <class T, class I>
void c_gemm_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, I m, I n, I k, const void* alpha,
                    const void* a, I lda, I stridea, const void* b, I ldb, I strideb, const void* beta, void* c, I ldc,
                    I stridec, I batch_size) {
  const Reporter rep = cblas_rep<T>(Family::gemm, true);
  if (bad_layout(layout, rep)) return;
  gemm_strided<T, I>(rep, 1, layout == CblasRowMajor, cblas_trans(ta), cblas_trans(tb), m, n, k,
                     scalar_at<T>(alpha, 0), a, lda, stridea, b, ldb, strideb, scalar_at<T>(beta, 0), c, ldc, stridec,
                     batch_size);
}
template <class T, class I>
void f_gemv_batch(const char* t, const I* m, const I* n, const void* alpha, const void* const* a, const I* lda,
                  const void* const* x, const I* incx, const void* beta, void* const* y, const I* incy,
                  const I* group_count, const I* group_size) {
  gemv_batch<T, I>(fortran_rep<T>(Family::gemv, false), 0, false, [t](I i) { return up(t[i]); }, m, n, alpha, a, lda,
                   x, incx, beta, y, incy, *group_count, group_size);
}
template <class T, class I>
void c_gemv_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE* t, const I* m, const I* n, const void* alpha,
                  const void* const* a, const I* lda, const void* const* x, const I* incx, const void* beta,
                  void* const* y, const I* incy, I group_count, const I* group_size) {
  const Reporter rep = cblas_rep<T>(Family::gemv, false);
  if (bad_layout(layout, rep)) return;
  gemv_batch<T, I>(rep, 1, layout == CblasRowMajor, [t](I i) { return cblas_trans(t[i]); }, m, n, alpha, a, lda, x,
                   incx, beta, y, incy, group_count, group_size);
}
template <class T, class I>
void f_gemv_strided(const char* t, const I* m, const I* n, const void* alpha, const void* a, const I* lda,
                    const I* stridea, const void* x, const I* incx, const I* stridex, const void* beta, void* y,
                    const I* incy, const I* stridey, const I* batch_size) {
  gemv_strided<T, I>(fortran_rep<T>(Family::gemv, true), 0, false, up(*t), *m, *n, scalar_at<T>(alpha, 0), a, *lda,
                     *stridea, x, *incx, *stridex, scalar_at<T>(beta, 0), y, *incy, *stridey, *batch_size);
}
template <class T, class I>
void c_gemv_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE t, I m, I n, const void* alpha, const void* a, I lda,
                    I stridea, const void* x, I incx, I stridex, const void* beta, void* y, I incy, I stridey,
                    I batch_size) {
  const Reporter rep = cblas_rep<T>(Family::gemv, true);
  if (bad_layout(layout, rep)) return;
  gemv_strided<T, I>(rep, 1, layout == CblasRowMajor, cblas_trans(t), m, n, scalar_at<T>(alpha, 0), a, lda, stridea,
                     x, incx, stridex, scalar_at<T>(beta, 0), y, incy, stridey, batch_size);
}

}  // namespace

}  // namespace myblas

using namespace myblas;

namespace {
template <class V>
const void* sp(const V& v) { return &v; }  // a CBLAS scalar passed by value -> its address
inline const void* sp(const void* v) { return v; }
// Pointer arrays arrive as const E** (or E** for C); the templates read them as const void*.
template <class P>
const void* const* pa(P p) { return reinterpret_cast<const void* const*>(p); }
template <class P>
void* const* pc(P p) { return reinterpret_cast<void* const*>(p); }
}  // namespace

// Every name of one routine: NAME_ (LP64), NAME_64_ and NAME_64 (ILP64), cblas_NAME (LP64),
// cblas_NAME_64 and cblas_NAME64_ (ILP64). T: element type; E: the C type of its arrays in the
// header (float, double, uint16_t, or void for complex); S: how CBLAS passes a scalar (by value
// for real types, const void* for complex ones).
#define MB_BATCH_EXPORT(KIND, NAME, T, E, S)              \
  MB_F_##KIND(NAME##_, int, T, E, S)                      \
  MB_F_##KIND(NAME##_64_, i64, T, E, S)                   \
  MB_F_##KIND(NAME##_64, i64, T, E, S)                    \
  MB_C_##KIND(cblas_##NAME, int, T, E, S)                 \
  MB_C_##KIND(cblas_##NAME##_64, i64, T, E, S)            \
  MB_C_##KIND(cblas_##NAME##64_, i64, T, E, S)

#define MB_F_GEMM_BATCH(SYM, I, T, E, S)                                                                          \
  MYBLAS_API void SYM(const char* ta, const char* tb, const I* m, const I* n, const I* k, const E* alpha,        \
                      const E** a, const I* lda, const E** b, const I* ldb, const E* beta, E** c, const I* ldc, \
                      const I* group_count, const I* group_size) {                                               \
    f_gemm_batch<T, I>(ta, tb, m, n, k, alpha, pa(a), lda, pa(b), ldb, beta, pc(c), ldc, group_count, group_size); \
  }
#define MB_C_GEMM_BATCH(SYM, I, T, E, S)                                                                          \
  MYBLAS_API void SYM(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE* ta, const CBLAS_TRANSPOSE* tb, const I* m,     \
                      const I* n, const I* k, const E* alpha, const E** a, const I* lda, const E** b,            \
                      const I* ldb, const E* beta, E** c, const I* ldc, I group_count, const I* group_size) {    \
    c_gemm_batch<T, I>(layout, ta, tb, m, n, k, alpha, pa(a), lda, pa(b), ldb, beta, pc(c), ldc, group_count,    \
                       group_size);                                                                               \
  }
#define MB_F_GEMM_STRIDED(SYM, I, T, E, S)                                                                        \
  MYBLAS_API void SYM(const char* ta, const char* tb, const I* m, const I* n, const I* k, const E* alpha,        \
                      const E* a, const I* lda, const I* stridea, const E* b, const I* ldb, const I* strideb,    \
                      const E* beta, E* c, const I* ldc, const I* stridec, const I* batch_size) {                \
    f_gemm_strided<T, I>(ta, tb, m, n, k, alpha, a, lda, stridea, b, ldb, strideb, beta, c, ldc, stridec,        \
                         batch_size);                                                                             \
  }
#define MB_C_GEMM_STRIDED(SYM, I, T, E, S)                                                                        \
  MYBLAS_API void SYM(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, I m, I n, I k, S alpha,       \
                      const E* a, I lda, I stridea, const E* b, I ldb, I strideb, S beta, E* c, I ldc,           \
                      I stridec, I batch_size) {                                                                  \
    c_gemm_strided<T, I>(layout, ta, tb, m, n, k, sp(alpha), a, lda, stridea, b, ldb, strideb, sp(beta), c, ldc, \
                         stridec, batch_size);                                                                    \
  }
#define MB_F_GEMV_BATCH(SYM, I, T, E, S)                                                                          \
  MYBLAS_API void SYM(const char* t, const I* m, const I* n, const E* alpha, const E** a, const I* lda,          \
                      const E** x, const I* incx, const E* beta, E** y, const I* incy, const I* group_count,     \
                      const I* group_size) {                                                                      \
    f_gemv_batch<T, I>(t, m, n, alpha, pa(a), lda, pa(x), incx, beta, pc(y), incy, group_count, group_size);     \
  }
#define MB_C_GEMV_BATCH(SYM, I, T, E, S)                                                                          \
  MYBLAS_API void SYM(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE* t, const I* m, const I* n, const E* alpha,     \
                      const E** a, const I* lda, const E** x, const I* incx, const E* beta, E** y,               \
                      const I* incy, I group_count, const I* group_size) {                                       \
    c_gemv_batch<T, I>(layout, t, m, n, alpha, pa(a), lda, pa(x), incx, beta, pc(y), incy, group_count,          \
                       group_size);                                                                               \
  }
#define MB_F_GEMV_STRIDED(SYM, I, T, E, S)                                                                        \
  MYBLAS_API void SYM(const char* t, const I* m, const I* n, const E* alpha, const E* a, const I* lda,           \
                      const I* stridea, const E* x, const I* incx, const I* stridex, const E* beta, E* y,        \
                      const I* incy, const I* stridey, const I* batch_size) {                                    \
    f_gemv_strided<T, I>(t, m, n, alpha, a, lda, stridea, x, incx, stridex, beta, y, incy, stridey, batch_size); \
  }
#define MB_C_GEMV_STRIDED(SYM, I, T, E, S)                                                                        \
  MYBLAS_API void SYM(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE t, I m, I n, S alpha, const E* a, I lda, I stridea,   \
                      const E* x, I incx, I stridex, S beta, E* y, I incy, I stridey, I batch_size) {            \
    c_gemv_strided<T, I>(layout, t, m, n, sp(alpha), a, lda, stridea, x, incx, stridex, sp(beta), y, incy,       \
                         stridey, batch_size);                                                                    \
  }

using i64 = int64_t;
using cpx = const void*;
using cf = std::complex<float>;
using cd = std::complex<double>;

MB_BATCH_EXPORT(GEMM_BATCH, sgemm_batch, float, float, float)
MB_BATCH_EXPORT(GEMM_BATCH, dgemm_batch, double, double, double)
MB_BATCH_EXPORT(GEMM_BATCH, cgemm_batch, cf, void, cpx)
MB_BATCH_EXPORT(GEMM_BATCH, zgemm_batch, cd, void, cpx)
MB_BATCH_EXPORT(GEMM_BATCH, hgemm_batch, Half16, uint16_t, uint16_t)
MB_BATCH_EXPORT(GEMM_STRIDED, sgemm_batch_strided, float, float, float)
MB_BATCH_EXPORT(GEMM_STRIDED, dgemm_batch_strided, double, double, double)
MB_BATCH_EXPORT(GEMM_STRIDED, cgemm_batch_strided, cf, void, cpx)
MB_BATCH_EXPORT(GEMM_STRIDED, zgemm_batch_strided, cd, void, cpx)
MB_BATCH_EXPORT(GEMM_STRIDED, hgemm_batch_strided, Half16, uint16_t, uint16_t)
MB_BATCH_EXPORT(GEMV_BATCH, sgemv_batch, float, float, float)
MB_BATCH_EXPORT(GEMV_BATCH, dgemv_batch, double, double, double)
MB_BATCH_EXPORT(GEMV_BATCH, cgemv_batch, cf, void, cpx)
MB_BATCH_EXPORT(GEMV_BATCH, zgemv_batch, cd, void, cpx)
MB_BATCH_EXPORT(GEMV_STRIDED, sgemv_batch_strided, float, float, float)
MB_BATCH_EXPORT(GEMV_STRIDED, dgemv_batch_strided, double, double, double)
MB_BATCH_EXPORT(GEMV_STRIDED, cgemv_batch_strided, cf, void, cpx)
MB_BATCH_EXPORT(GEMV_STRIDED, zgemv_batch_strided, cd, void, cpx)
