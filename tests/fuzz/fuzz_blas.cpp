// libFuzzer target: decodes bytes into one call of sgemm_, cblas_sgemm, sgemv_, cblas_sgemv,
// hgemm_, hgemm, cblas_hgemm, or the binary16-in, FP32-out GEMMs shgemm_ (OpenBLAS),
// gemm_f16f16f32_ and cblas_gemm_f16f16f32 (MKL), with possibly illegal arguments, runs it on libmyblas's CPU path
// (MYBLAS_BACKEND=cpu) and checks, for every input:
//   - error exits: exactly one report to the right handler (xerbla_ or cblas_xerbla, both
//     overridden below) with the INFO the reference BLAS/CBLAS rules give, computed here from
//     sgemm.f/sgemv.f and cblas_sgemm.c/cblas_sgemv.c, not from OpenBLAS's own xerbla (which
//     accepts lda = 0 when m = 0); nothing written; myblas_last_path() == "none";
//   - results: against OpenBLAS (dlopen'ed privately, its CBLAS entry points for the CBLAS
//     calls so that the row-major handling is checked independently) and against a
//     double-precision loop that applies the BLAS NaN rules (beta == 0 never reads C or y,
//     alpha == 0 never reads A, B or x, and with NaN anywhere else the affected element is NaN);
//   - memory: every operand sits between guard elements, padding rows (ld > rows) and the gaps
//     of strided vectors are guards too; inputs and guards must be bitwise unchanged. Guards are
//     signalling-NaN bit patterns, so a guard that is read as data turns the result into NaN.
//
// Data are multiples of 1/32 in [-4, 4): products and sums of up to 12 terms are exact in
// FP32, so any summation order gives the same bits and the k-scaled bound below is met with
// room to spare; a wrong element is a real error. Inf is never produced (|values| are bounded),
// so NaN positions are determined by the rules alone.
//
// Input bytes (a header byte past the end reads as 0; data bytes past the end come from a
// generator seeded by the input; tests/fuzz/make_corpus.py writes inputs this way):
//   gemm: routine layout trans1 trans2 m n k lda ldb ldc alpha beta nanflags nanA nanB nanC data...
//   gemv: routine layout trans1 trans2 m n lda incx incy alpha beta nanflags nanA nanX nanY data...
// decoded by LLVMFuzzerTestOneInput, pick_* and kScalars below. Build and run:
// tests/fuzz/run_fuzz.sh.
// The same code is linked with replay_main.cpp into a plain gcc program that replays the
// committed corpus (ctest fuzz.corpus), so the corpus is a regression test in every build.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/blas_call.h"
#include "myblas.h"

namespace {

// ---- error reports (the program's own handlers win over libmyblas's) ------------------------

struct Reports {
  int count = 0;
  bool cblas = false;
  int info = 0;
  std::string routine;
};
Reports g_reports;

}  // namespace

extern "C" void xerbla_(const char* srname, const int* info, int len) {
  ++g_reports.count;
  g_reports.cblas = false;
  g_reports.info = *info;
  g_reports.routine.assign(srname, size_t(len));  // (Fortran's hidden CHARACTER length)
}

extern "C" void cblas_xerbla(int info, const char* rout, const char*, ...) {
  ++g_reports.count;
  g_reports.cblas = true;
  g_reports.info = info;
  g_reports.routine = rout;
}

namespace {

[[noreturn]] void fail(const std::string& call, const std::string& what) {
  std::fprintf(stderr, "FUZZ FAILURE: %s: %s\n", call.c_str(), what.c_str());
  std::abort();  // libFuzzer saves the input as crash-<sha1>
}

// ---- OpenBLAS, dlopen'ed so that its sgemm_ etc. never shadow libmyblas's --------------------

using sgemm_t = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                         const float*, const int*, const float*, const int*, const float*, float*,
                         const int*);
using sgemv_t = void (*)(const char*, const int*, const int*, const float*, const float*, const int*,
                         const float*, const int*, const float*, float*, const int*);
using cblas_sgemm_t = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                               int, float, float*, int);
using cblas_sgemv_t = void (*)(int, int, int, int, float, const float*, int, const float*, int,
                               float, float*, int);
struct OpenBlas {
  void* handle;
  sgemm_t sgemm;
  sgemv_t sgemv;
  cblas_sgemm_t cblas_sgemm;
  cblas_sgemv_t cblas_sgemv;
};

const OpenBlas& openblas() {
  static const OpenBlas o = [] {
    void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) fail("setup", std::string("cannot load libopenblas.so.0: ") + dlerror());
    OpenBlas r{h, reinterpret_cast<sgemm_t>(dlsym(h, "sgemm_")), reinterpret_cast<sgemv_t>(dlsym(h, "sgemv_")),
               reinterpret_cast<cblas_sgemm_t>(dlsym(h, "cblas_sgemm")),
               reinterpret_cast<cblas_sgemv_t>(dlsym(h, "cblas_sgemv"))};
    if (!r.sgemm || !r.sgemv || !r.cblas_sgemm || !r.cblas_sgemv) fail("setup", "OpenBLAS lacks a symbol");
    return r;
  }();
  return o;
}

void* openblas_handle() { return openblas().handle; }

// ---- decoding -------------------------------------------------------------------------------

enum class Routine {
  sgemm_, cblas_sgemm, sgemv_, cblas_sgemv, hgemm_, hgemm, cblas_hgemm,
  shgemm_, gemm_f16f16f32_, cblas_gemm_f16f16f32,  // binary16 A and B, FP32 C
  count
};
const char* const kRoutineNames[] = {"sgemm_", "cblas_sgemm", "sgemv_", "cblas_sgemv", "hgemm_", "hgemm",
                                     "cblas_hgemm", "shgemm_", "gemm_f16f16f32_", "cblas_gemm_f16f16f32"};

// Fortran option characters: legal ones in both cases and some that must be rejected.
const char kTransChars[] = {'N', 'n', 'T', 't', 'C', 'c', 'X', 'R', '\0', ' ', 'y', '1'};
const int kCblasTrans[] = {CblasNoTrans, CblasTrans, CblasConjTrans, CblasNoTrans, CblasTrans,
                           CblasConjTrans, 0, 114, 110, 'N'};
const int kLayouts[] = {CblasColMajor, CblasRowMajor, CblasColMajor, CblasRowMajor, 0, 103};
// Scalars, all exact in binary16 too. -0.0 == 0 must count as zero.
const float kScalars[] = {0.f, 1.f, -1.f, 0.5f, 2.f, -0.75f, -0.0f, NAN};

class Decoder {
 public:
  Decoder(const uint8_t* p, size_t n) : p_(p), n_(n) {
    uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the input seeds the data generator
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    state_ = h | 1;
  }
  uint8_t byte() {
    if (pos_ < n_) return p_[pos_++];
    state_ ^= state_ << 13;  // xorshift64
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return uint8_t(state_ >> 32);
  }
  bool exhausted() const { return pos_ >= n_; }
  // A header byte: 0 once the input has ended, so short inputs decode to plain calls.
  uint8_t header() { return pos_ < n_ ? p_[pos_++] : 0; }

 private:
  const uint8_t* p_;
  size_t n_, pos_ = 0;
  uint64_t state_;
};

// Decoded scalars and data value: multiples of 1/32 in [-4, 4).
float data_value(uint8_t b) { return (int(b) - 128) / 32.f; }

// ---- operands with guards -------------------------------------------------------------------

constexpr int kPad = 8;  // guard elements before and after each operand
constexpr uint32_t kGuardF = 0x7FA5A5A5u;  // signalling NaN
constexpr uint16_t kGuardH = 0x7D5Au;      // binary16 signalling NaN
constexpr uint32_t kNanF = 0x7FC00000u;    // the NaN put into data
constexpr uint16_t kNanH = 0x7E00u;

float bits_f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
uint32_t f_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

// rows x cols, column-major with leading dimension ld, inside a buffer with guards. Storage is
// FP32 or binary16 bits; `value(i,j)` is the element widened to FP32 for the references.
struct Operand {
  bool half = false;
  int rows = 0, cols = 0;
  int64_t ld = 1;      // storage leading dimension (>= rows, >= 1)
  int64_t step = 1;    // vectors: distance between elements (1 for matrices)
  bool is_vector = false;
  bool reverse = false;  // vectors with a negative increment: logical element 0 is the last
  size_t elems = 0;    // storage elements between the guards
  std::vector<uint32_t> f;
  std::vector<uint16_t> h;

  static Operand matrix(bool half, int rows, int cols, int ld_given) {
    Operand o;
    o.half = half;
    o.rows = rows < 0 ? 0 : rows;
    o.cols = cols < 0 ? 0 : cols;
    o.ld = std::max<int64_t>({int64_t(ld_given), int64_t(o.rows), 1});
    o.elems = size_t(o.ld) * size_t(o.cols);
    o.alloc();
    return o;
  }
  static Operand vector(int len, int inc) {
    Operand o;
    o.is_vector = true;
    o.rows = len < 0 ? 0 : len;
    o.cols = 1;
    o.step = inc == 0 ? 1 : std::abs(inc);
    o.reverse = inc < 0;
    o.elems = o.rows ? size_t(o.rows - 1) * size_t(o.step) + 1 : 0;
    o.ld = int64_t(o.elems) > 0 ? int64_t(o.elems) : 1;
    o.alloc();
    return o;
  }
  void alloc() {
    if (half) h.assign(elems + 2 * kPad, kGuardH);
    else f.assign(elems + 2 * kPad, kGuardF);
  }
  size_t count() const { return size_t(rows) * size_t(cols); }
  // Storage offset (after the front guard) of element (i, j), or of logical vector element i.
  size_t offset(int i, int j) const {
    if (is_vector) return size_t(int64_t(reverse ? rows - 1 - i : i) * step);
    return size_t(i + int64_t(j) * ld);
  }
  bool is_element(size_t off) const {
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i)
        if (offset(i, j) == off) return true;
    return false;
  }
  void* data() { return half ? static_cast<void*>(h.data() + kPad) : static_cast<void*>(f.data() + kPad); }
  float value(int i, int j) const {
    const size_t o = kPad + offset(i, j);
    return half ? myblas_half_to_float(h[o]) : bits_f(f[o]);
  }
  void set(int i, int j, float v) {
    const size_t o = kPad + offset(i, j);
    if (half) h[o] = std::isnan(v) ? kNanH : myblas_float_to_half(v);
    else f[o] = std::isnan(v) ? kNanF : f_bits(v);
  }
  void fill(Decoder& d) {
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) set(i, j, data_value(d.byte()));
  }
  void fill_nan() {
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) set(i, j, NAN);
  }
  void nan_at(uint8_t pos) {
    if (count()) set(int(pos % rows), int((pos / rows) % cols), NAN);
  }
  // Positions (buffer indices) whose bits differ and that are not elements.
  size_t damaged_guards(const Operand& before) const {
    size_t bad = 0;
    const size_t total = half ? h.size() : f.size();
    for (size_t p = 0; p < total; ++p) {
      const bool same = half ? h[p] == before.h[p] : f[p] == before.f[p];
      if (same) continue;
      const bool inside = p >= size_t(kPad) && p < kPad + elems;
      if (!inside || !is_element(p - kPad)) ++bad;
    }
    return bad;
  }
  bool bitwise_equal(const Operand& o) const { return half ? h == o.h : f == o.f; }
};

// ---- the reference rules --------------------------------------------------------------------

bool lsame(char c, char u) { return c == u || c == u + ('a' - 'A'); }

// sgemm.f / hgemm (MKL follows it): INFO of the first illegal argument, 0 if none.
int fortran_gemm_info(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc) {
  const bool nota = lsame(ta, 'N'), notb = lsame(tb, 'N');
  const int nrowa = nota ? m : k, nrowb = notb ? k : n;
  if (!nota && !lsame(ta, 'C') && !lsame(ta, 'T')) return 1;
  if (!notb && !lsame(tb, 'C') && !lsame(tb, 'T')) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max(1, nrowa)) return 8;
  if (ldb < std::max(1, nrowb)) return 10;
  if (ldc < std::max(1, m)) return 13;
  return 0;
}

int fortran_gemv_info(char t, int m, int n, int lda, int incx, int incy) {
  if (!lsame(t, 'N') && !lsame(t, 'T') && !lsame(t, 'C')) return 1;
  if (m < 0) return 2;
  if (n < 0) return 3;
  if (lda < std::max(1, m)) return 6;
  if (incx == 0) return 8;
  if (incy == 0) return 11;
  return 0;
}

char cblas_char(int t) {
  return t == CblasNoTrans ? 'N' : t == CblasTrans ? 'T' : t == CblasConjTrans ? 'C' : 0;
}

// What reference cblas_sgemm.c passes to cblas_xerbla: layout 1, TransA 2, TransB 3, then the
// Fortran INFO + 1 of the column-major call it makes (row-major: operands and M/N exchanged).
int cblas_gemm_info(int layout, int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc) {
  if (layout != CblasColMajor && layout != CblasRowMajor) return 1;
  const char ca = cblas_char(ta), cb = cblas_char(tb);
  if (!ca) return 2;
  if (!cb) return 3;
  const int info = layout == CblasColMajor ? fortran_gemm_info(ca, cb, m, n, k, lda, ldb, ldc)
                                           : fortran_gemm_info(cb, ca, n, m, k, ldb, lda, ldc);
  return info ? info + 1 : 0;
}

// Reference cblas_sgemv.c: row-major A is the column-major A^T, so M/N exchange and the
// transpose flips (ConjTrans counts as Trans).
int cblas_gemv_info(int layout, int t, int m, int n, int lda, int incx, int incy) {
  if (layout != CblasColMajor && layout != CblasRowMajor) return 1;
  const char c = cblas_char(t);
  if (!c) return 2;
  const int info = layout == CblasColMajor ? fortran_gemv_info(c, m, n, lda, incx, incy)
                                           : fortran_gemv_info(c == 'N' ? 'T' : 'N', n, m, lda, incx, incy);
  return info ? info + 1 : 0;
}

// ---- the check ------------------------------------------------------------------------------

struct Call {
  Routine r;
  bool cblas = false, gemv = false;
  bool half = false;    // A and B in binary16
  bool half_c = false;  // C too (HGEMM); else FP32
  int layout = CblasColMajor;
  char ta = 'N', tb = 'N';  // Fortran characters
  int cta = CblasNoTrans, ctb = CblasNoTrans;
  int m = 0, n = 0, k = 0, lda = 1, ldb = 1, ldc = 1, incx = 1, incy = 1;
  float alpha = 1.f, beta = 0.f;
  std::string text;
};

std::string describe(const Call& c) {
  char buf[320];
  auto fmt_char = [](char ch) { return ch >= 32 && ch < 127 ? std::string(1, ch) : "\\" + std::to_string(int(ch)); };
  if (c.gemv)
    std::snprintf(buf, sizeof buf, "%s(layout=%d trans=%s/%d m=%d n=%d lda=%d incx=%d incy=%d alpha=%g beta=%g)",
                  kRoutineNames[int(c.r)], c.layout, fmt_char(c.ta).c_str(), c.cta, c.m, c.n, c.lda,
                  c.incx, c.incy, c.alpha, c.beta);
  else
    std::snprintf(buf, sizeof buf,
                  "%s(layout=%d ta=%s/%d tb=%s/%d m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g)",
                  kRoutineNames[int(c.r)], c.layout, fmt_char(c.ta).c_str(), c.cta, fmt_char(c.tb).c_str(),
                  c.ctb, c.m, c.n, c.k, c.lda, c.ldb, c.ldc, c.alpha, c.beta);
  return buf;
}

// An ld chosen around the smallest legal value max(1, rows): from 2 below (illegal) to 3 above.
int pick_ld(uint8_t b, int rows) { return std::max(1, rows) + int(b % 6) - 2; }
int pick_dim(uint8_t b) { return int(b % 15) - 2; }      // -2 .. 12
int pick_inc(uint8_t b) { return int(b % 9) - 4; }       // -4 .. 4, 0 is illegal

// Expected result of one element, in double: the BLAS rules applied literally.
// `dot` is sum_l op(A)(i,l) op(B)(l,j) (NaN if any term is NaN), `c0` the old C or y.
double rule_value(const Call& c, bool scale_only, double dot, double c0) {
  const double cterm = c.beta == 0.f ? 0.0 : double(c.beta) * c0;  // beta == 0: C not read
  if (scale_only) return cterm;                                    // alpha == 0 or k == 0
  return double(c.alpha) * dot + cterm;
}

// OpenBLAS is the second opinion. Where the rule says NaN and OpenBLAS does not, OpenBLAS is
// the one that is wrong: 0.3.21's sgemv_/cblas_sgemv treat beta = NaN as 0 (y is not NaN
// afterwards), which the reference BLAS does not; libmyblas scales y itself and is right.
bool references_disagree(double rule, double blas, double bound) {
  if (std::isnan(rule)) return false;
  return std::isnan(blas) || std::fabs(rule - blas) > bound;
}

void run_gemm(Call& c, Decoder& d) {
  const bool row = c.cblas && c.layout == CblasRowMajor;
  // Storage shapes, column-major view: row-major X (r x s) is stored like X^T.
  const bool at = c.cblas ? (c.cta == CblasTrans || c.cta == CblasConjTrans) : !lsame(c.ta, 'N');
  const bool bt = c.cblas ? (c.ctb == CblasTrans || c.ctb == CblasConjTrans) : !lsame(c.tb, 'N');
  int ar = at ? c.k : c.m, ac = at ? c.m : c.k, br = bt ? c.n : c.k, bc = bt ? c.k : c.n;
  int cr = c.m, cc = c.n;
  if (row) {
    std::swap(ar, ac);
    std::swap(br, bc);
    std::swap(cr, cc);
  }
  c.lda = pick_ld(d.header(), ar);
  c.ldb = pick_ld(d.header(), br);
  c.ldc = pick_ld(d.header(), cr);
  c.alpha = kScalars[d.header() % 8];
  c.beta = kScalars[d.header() % 8];
  const uint8_t nan_flags = d.header(), nan_a = d.header(), nan_b = d.header(), nan_c = d.header();
  c.text = describe(c);

  const int want_info =
      c.cblas ? cblas_gemm_info(c.layout, c.cta, c.ctb, c.m, c.n, c.k, c.lda, c.ldb, c.ldc)
              : fortran_gemm_info(c.ta, c.tb, c.m, c.n, c.k, c.lda, c.ldb, c.ldc);

  Operand A = Operand::matrix(c.half, ar, ac, c.lda), B = Operand::matrix(c.half, br, bc, c.ldb),
          C = Operand::matrix(c.half_c, cr, cc, c.ldc);
  A.fill(d);
  B.fill(d);
  C.fill(d);
  const bool scale_only = c.alpha == 0.f || c.k == 0;
  if (c.alpha == 0.f) {  // never read: NaN everywhere shows any read
    A.fill_nan();
    B.fill_nan();
  }
  if (nan_flags & 1) A.nan_at(nan_a);
  if (nan_flags & 2) B.nan_at(nan_b);
  if (nan_flags & 4) C.nan_at(nan_c);
  if (c.beta == 0.f && (nan_flags & 8)) C.fill_nan();  // never read either
  const Operand A0 = A, B0 = B, C0 = C;

  g_reports = Reports();
  const uint16_t ha = myblas_float_to_half(c.alpha), hb = myblas_float_to_half(c.beta);
  const auto lay = static_cast<CBLAS_LAYOUT>(c.layout);
  const auto ta = static_cast<CBLAS_TRANSPOSE>(c.cta), tb = static_cast<CBLAS_TRANSPOSE>(c.ctb);
  switch (c.r) {
    case Routine::sgemm_:
      sgemm_(&c.ta, &c.tb, &c.m, &c.n, &c.k, &c.alpha, static_cast<float*>(A.data()), &c.lda,
             static_cast<float*>(B.data()), &c.ldb, &c.beta, static_cast<float*>(C.data()), &c.ldc);
      break;
    case Routine::cblas_sgemm:
      cblas_sgemm(lay, ta, tb, c.m, c.n, c.k, c.alpha, static_cast<float*>(A.data()), c.lda,
                  static_cast<float*>(B.data()), c.ldb, c.beta, static_cast<float*>(C.data()), c.ldc);
      break;
    case Routine::hgemm_:
    case Routine::hgemm:
      (c.r == Routine::hgemm ? hgemm : hgemm_)(&c.ta, &c.tb, &c.m, &c.n, &c.k, &ha,
             static_cast<uint16_t*>(A.data()), &c.lda, static_cast<uint16_t*>(B.data()), &c.ldb, &hb,
             static_cast<uint16_t*>(C.data()), &c.ldc);
      break;
    case Routine::cblas_hgemm:
      cblas_hgemm(lay, ta, tb, c.m, c.n, c.k, ha, static_cast<uint16_t*>(A.data()), c.lda,
                  static_cast<uint16_t*>(B.data()), c.ldb, hb, static_cast<uint16_t*>(C.data()), c.ldc);
      break;
    case Routine::shgemm_:
    case Routine::gemm_f16f16f32_:
      (c.r == Routine::shgemm_ ? shgemm_ : gemm_f16f16f32_)(
          &c.ta, &c.tb, &c.m, &c.n, &c.k, &c.alpha, static_cast<uint16_t*>(A.data()), &c.lda,
          static_cast<uint16_t*>(B.data()), &c.ldb, &c.beta, static_cast<float*>(C.data()), &c.ldc);
      break;
    case Routine::cblas_gemm_f16f16f32:
      cblas_gemm_f16f16f32(lay, ta, tb, c.m, c.n, c.k, c.alpha, static_cast<uint16_t*>(A.data()), c.lda,
                           static_cast<uint16_t*>(B.data()), c.ldb, c.beta, static_cast<float*>(C.data()), c.ldc);
      break;
    default:
      break;
  }
  const std::string path = myblas_last_path();

  if (!A.bitwise_equal(A0)) fail(c.text, "A was modified");
  if (!B.bitwise_equal(B0)) fail(c.text, "B was modified");
  if (want_info) {
    if (g_reports.count != 1 || g_reports.cblas != c.cblas || g_reports.info != want_info)
      fail(c.text, "expected one " + std::string(c.cblas ? "cblas_xerbla" : "xerbla_") + " report with INFO " +
                       std::to_string(want_info) + ", got " + std::to_string(g_reports.count) +
                       " reports, last INFO " + std::to_string(g_reports.info) + " to " +
                       (g_reports.cblas ? "cblas_xerbla" : "xerbla_"));
    const std::string want_rout = c.cblas                              ? kRoutineNames[int(c.r)]
                                  : c.r == Routine::shgemm_            ? "SHGEMM "
                                  : c.r == Routine::gemm_f16f16f32_    ? "GEMM_F16F16F32"
                                  : c.half                             ? "HGEMM "
                                                                       : "SGEMM ";
    if (g_reports.routine != want_rout) fail(c.text, "reported as routine '" + g_reports.routine + "'");
    if (!C.bitwise_equal(C0)) fail(c.text, "C was written by a call with an illegal argument");
    if (path != "none") fail(c.text, "path " + path + " after an argument error");
    return;
  }
  if (g_reports.count) fail(c.text, "legal call reported INFO " + std::to_string(g_reports.info));
  if (path != "cpu" && path != "none") fail(c.text, "path " + path + " with MYBLAS_BACKEND=cpu");
  if (const size_t bad = C.damaged_guards(C0)) fail(c.text, std::to_string(bad) + " guards of C changed");

  // Column-major view of the product: C(i,j) for i < m', j < n' with op(A), op(B) as stored.
  // Row-major C^T = op(B)^T op(A)^T: the view swaps the roles of A and B.
  const int vm = row ? c.n : c.m, vn = row ? c.m : c.n;
  const Operand& VA = row ? B0 : A0;
  const Operand& VB = row ? A0 : B0;
  const bool vat = row ? bt : at, vbt = row ? at : bt;
  auto opa = [&](int i, int l) { return double(vat ? VA.value(l, i) : VA.value(i, l)); };
  auto opb = [&](int l, int j) { return double(vbt ? VB.value(j, l) : VB.value(l, j)); };

  // OpenBLAS on FP32 copies (binary16 widened exactly); C zeroed first when beta == 0, since
  // the rule is that C is not read then; scale-only calls are left to the rule reference.
  std::vector<float> fa(A0.elems ? A0.elems : 1), fb(B0.elems ? B0.elems : 1), fc(C0.elems ? C0.elems : 1);
  auto widen = [](const Operand& o, std::vector<float>& v) {
    for (int j = 0; j < o.cols; ++j)
      for (int i = 0; i < o.rows; ++i) v[o.offset(i, j)] = o.value(i, j);
  };
  widen(A0, fa);
  widen(B0, fb);
  widen(C0, fc);
  if (c.beta == 0.f) std::fill(fc.begin(), fc.end(), 0.f);
  if (!scale_only) {
    const char ca = at ? 'T' : 'N', cb = bt ? 'T' : 'N';
    if (c.cblas)
      openblas().cblas_sgemm(c.layout, at ? CblasTrans : CblasNoTrans, bt ? CblasTrans : CblasNoTrans, c.m, c.n,
                             c.k, c.alpha, fa.data(), c.lda, fb.data(), c.ldb, c.beta, fc.data(), c.ldc);
    else
      openblas().sgemm(&ca, &cb, &c.m, &c.n, &c.k, &c.alpha, fa.data(), &c.lda, fb.data(), &c.ldb, &c.beta,
                       fc.data(), &c.ldc);
  }
  for (int j = 0; j < vn; ++j)
    for (int i = 0; i < vm; ++i) {
      double dot = 0, mag = 0;
      for (int l = 0; l < c.k && !scale_only; ++l) {
        dot += opa(i, l) * opb(l, j);
        mag += std::fabs(opa(i, l) * opb(l, j));
      }
      const double rule = rule_value(c, scale_only, dot, C0.value(i, j));
      double blas = scale_only ? rule : double(fc[C0.offset(i, j)]);
      if (c.half_c && !scale_only) blas = myblas_half_to_float(myblas_float_to_half(float(blas)));
      const double got = C.value(i, j);
      // k-scaled bound (FP32 accumulation), plus one binary16 rounding for hgemm.
      const double cmag = c.beta == 0.f ? 0.0 : std::fabs(double(c.beta) * C0.value(i, j));
      double bound = (c.k + 2) * 1.2e-7 * (std::fabs(double(c.alpha)) * mag + cmag);
      if (c.half_c) bound += std::ldexp(std::fabs(rule), -10) + std::ldexp(1.0, -24);
      char where[160];
      std::snprintf(where, sizeof where, "C(%d,%d) (column-major view): got %.9g, rule %.9g, OpenBLAS %.9g", i, j,
                    got, rule, blas);
      if (references_disagree(rule, blas, bound))
        fail(c.text, std::string("the references disagree (OpenBLAS or this harness is wrong): ") + where);
      if (std::isnan(got) != std::isnan(rule) || std::fabs(got - rule) > bound) fail(c.text, where);
    }
  if (path == "none") {  // a quick return is only right when nothing changes
    if (!(c.beta == 1.f && (scale_only || c.m == 0 || c.n == 0)) && vm > 0 && vn > 0)
      fail(c.text, "path none (quick return) for a call that changes C");
  }
}

void run_gemv(Call& c, Decoder& d) {
  const bool row = c.cblas && c.layout == CblasRowMajor;
  const bool t = c.cblas ? (c.cta == CblasTrans || c.cta == CblasConjTrans) : !lsame(c.ta, 'N');
  const int lx = t ? c.m : c.n, ly = t ? c.n : c.m;
  const int ar = row ? c.n : c.m, ac = row ? c.m : c.n;
  c.lda = pick_ld(d.header(), ar);
  c.incx = pick_inc(d.header());
  c.incy = pick_inc(d.header());
  c.alpha = kScalars[d.header() % 8];
  c.beta = kScalars[d.header() % 8];
  const uint8_t nan_flags = d.header(), nan_a = d.header(), nan_x = d.header(), nan_y = d.header();
  c.text = describe(c);

  const int want_info = c.cblas ? cblas_gemv_info(c.layout, c.cta, c.m, c.n, c.lda, c.incx, c.incy)
                                : fortran_gemv_info(c.ta, c.m, c.n, c.lda, c.incx, c.incy);
  Operand A = Operand::matrix(false, ar, ac, c.lda), X = Operand::vector(lx, c.incx),
          Y = Operand::vector(ly, c.incy);
  A.fill(d);
  X.fill(d);
  Y.fill(d);
  const bool scale_only = c.alpha == 0.f;
  if (scale_only) {
    A.fill_nan();
    X.fill_nan();
  }
  if (nan_flags & 1) A.nan_at(nan_a);
  if (nan_flags & 2) X.nan_at(nan_x);
  if (nan_flags & 4) Y.nan_at(nan_y);
  if (c.beta == 0.f && (nan_flags & 8)) Y.fill_nan();
  const Operand A0 = A, X0 = X, Y0 = Y;

  g_reports = Reports();
  const float* pa = static_cast<float*>(A.data());
  const float* px = static_cast<float*>(X.data());
  float* py = static_cast<float*>(Y.data());
  if (c.cblas)
    cblas_sgemv(static_cast<CBLAS_LAYOUT>(c.layout), static_cast<CBLAS_TRANSPOSE>(c.cta), c.m, c.n, c.alpha, pa,
                c.lda, px, c.incx, c.beta, py, c.incy);
  else
    sgemv_(&c.ta, &c.m, &c.n, &c.alpha, pa, &c.lda, px, &c.incx, &c.beta, py, &c.incy);
  const std::string path = myblas_last_path();

  if (!A.bitwise_equal(A0)) fail(c.text, "A was modified");
  if (!X.bitwise_equal(X0)) fail(c.text, "x was modified");
  if (want_info) {
    if (g_reports.count != 1 || g_reports.cblas != c.cblas || g_reports.info != want_info)
      fail(c.text, "expected one report with INFO " + std::to_string(want_info) + ", got " +
                       std::to_string(g_reports.count) + " reports, last INFO " + std::to_string(g_reports.info));
    const std::string want_rout = c.cblas ? "cblas_sgemv" : "SGEMV ";
    if (g_reports.routine != want_rout) fail(c.text, "reported as routine '" + g_reports.routine + "'");
    if (!Y.bitwise_equal(Y0)) fail(c.text, "y was written by a call with an illegal argument");
    if (path != "none") fail(c.text, "path " + path + " after an argument error");
    return;
  }
  if (g_reports.count) fail(c.text, "legal call reported INFO " + std::to_string(g_reports.info));
  if (path != "cpu" && path != "none") fail(c.text, "path " + path + " with MYBLAS_BACKEND=cpu");
  if (const size_t bad = Y.damaged_guards(Y0)) fail(c.text, std::to_string(bad) + " guards of y changed");

  // OpenBLAS on copies, y zeroed first when beta == 0; scale-only calls by the rule alone.
  std::vector<float> ya(Y0.elems ? Y0.elems : 1, 0.f);
  for (int i = 0; i < ly; ++i) ya[Y0.offset(i, 0)] = c.beta == 0.f ? 0.f : Y0.value(i, 0);
  std::vector<float> fa(A0.elems ? A0.elems : 1), fx(X0.elems ? X0.elems : 1);
  for (int j = 0; j < A0.cols; ++j)
    for (int i = 0; i < A0.rows; ++i) fa[A0.offset(i, j)] = A0.value(i, j);
  for (int i = 0; i < lx; ++i) fx[X0.offset(i, 0)] = X0.value(i, 0);
  if (!scale_only && ly > 0 && lx > 0) {
    if (c.cblas)
      openblas().cblas_sgemv(c.layout, t ? CblasTrans : CblasNoTrans, c.m, c.n, c.alpha, fa.data(), c.lda,
                             fx.data(), c.incx, c.beta, ya.data(), c.incy);
    else {
      const char ch = t ? 'T' : 'N';
      openblas().sgemv(&ch, &c.m, &c.n, &c.alpha, fa.data(), &c.lda, fx.data(), &c.incx, &c.beta, ya.data(),
                       &c.incy);
    }
  }
  // User-view A(i,j): column-major storage, or row-major (stored transposed).
  auto a_user = [&](int i, int j) { return double(row ? A0.value(j, i) : A0.value(i, j)); };
  for (int i = 0; i < ly; ++i) {
    double dot = 0, mag = 0;
    for (int l = 0; l < lx && !scale_only; ++l) {
      const double p = (t ? a_user(l, i) : a_user(i, l)) * double(X0.value(l, 0));
      dot += p;
      mag += std::fabs(p);
    }
    // lx == 0 (m or n zero) is a quick return: y is untouched whatever beta is.
    const double rule = lx == 0 ? double(Y0.value(i, 0)) : rule_value(c, scale_only, dot, Y0.value(i, 0));
    const double blas = (scale_only || lx == 0) ? rule : double(ya[Y0.offset(i, 0)]);
    const double got = Y.value(i, 0);
    const double cmag = c.beta == 0.f ? 0.0 : std::fabs(double(c.beta) * Y0.value(i, 0));
    const double bound = (lx + 2) * 1.2e-7 * (std::fabs(double(c.alpha)) * mag + cmag);
    char where[160];
    std::snprintf(where, sizeof where, "y(%d): got %.9g, rule %.9g, OpenBLAS %.9g", i, got, rule, blas);
    if (references_disagree(rule, blas, bound))
      fail(c.text, std::string("the references disagree (OpenBLAS or this harness is wrong): ") + where);
    if (std::isnan(got) != std::isnan(rule) || std::fabs(got - rule) > bound) fail(c.text, where);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The CPU path is what is checked here; the setting is read once, at the first call.
  setenv("MYBLAS_BACKEND", "cpu", 1);
  return 0;
}


namespace {

// ---- the routines of the generic problem (Level 3 and GEMV in D and Z) ----------------------
//   routine layout side uplo trans diag m n k lda ldb ldc alpha_re alpha_im beta_re beta_im data...
// The call goes to libmyblas's routine of that name and, when the reference rules make it legal,
// to OpenBLAS's routine of the same name (its CBLAS for the CBLAS names) on a copy of the same
// buffers without the NaN that the call must not read. Data are multiples of 1/32 in [-4, 4): every
// sum of products is exact in FP64, so every element but TRSM's must be equal; TRSM's A is made
// diagonally dominant and compared normwise. Outside what the routine writes (padding, guards,
// the other triangle of the rank-k updates' C) and in the inputs, every byte must stay.

struct GenericRoutine {
  const char* name;
  iface::Fam f;
  bool z, cblas;
};
const GenericRoutine kGeneric[] = {
    {"dgemm_", iface::Fam::gemm, false, false},   {"zgemm_", iface::Fam::gemm, true, false},
    {"cblas_zgemm", iface::Fam::gemm, true, true}, {"zgemv_", iface::Fam::gemv, true, false},
    {"cblas_zgemv", iface::Fam::gemv, true, true}, {"cblas_dgemv", iface::Fam::gemv, false, true},
    {"dsymm_", iface::Fam::symm, false, false},   {"cblas_zhemm", iface::Fam::hemm, true, true},
    {"dsyrk_", iface::Fam::syrk, false, false},   {"cblas_zherk", iface::Fam::herk, true, true},
    {"zher2k_", iface::Fam::her2k, true, false},  {"cblas_dsyr2k", iface::Fam::syr2k, false, true},
    {"cblas_zsyrk", iface::Fam::syrk, true, true}, {"dtrmm_", iface::Fam::trmm, false, false},
    {"cblas_ztrmm", iface::Fam::trmm, true, true}, {"dtrsm_", iface::Fam::trsm, false, false},
    {"cblas_ztrsm", iface::Fam::trsm, true, true}, {"ztrsm_", iface::Fam::trsm, true, false},
};
constexpr int kGenericCount = int(sizeof kGeneric / sizeof kGeneric[0]);

// Option bytes: Fortran characters (either case, or illegal) and the CBLAS value at the same index.
const char kSideChars[] = {'L', 'l', 'R', 'r', 'X'};
const int kSideEnums[] = {CblasLeft, CblasLeft, CblasRight, CblasRight, 0};
const char kUploChars[] = {'U', 'u', 'L', 'l', 'X'};
const int kUploEnums[] = {CblasUpper, CblasUpper, CblasLower, CblasLower, 0};
const char kGTransChars[] = {'N', 'n', 'T', 't', 'C', 'c', 'X'};
const int kGTransEnums[] = {CblasNoTrans, CblasNoTrans, CblasTrans, CblasTrans, CblasConjTrans, CblasConjTrans, 0};
const char kDiagChars[] = {'N', 'n', 'U', 'u', 'X'};
const int kDiagEnums[] = {CblasNonUnit, CblasNonUnit, CblasUnit, CblasUnit, 0};
const double kGScalars[] = {0, 1, -1, 0.5, 2, -0.75, -0.0};

struct GCall {
  GenericRoutine r;
  int layout = CblasColMajor;
  char side = 'L', uplo = 'U', trans = 'N', diag = 'N';  // upper-case meaning ('X': illegal)
  char fside, fuplo, ftrans, fdiag;                       // what a Fortran call passes
  int m = 0, n = 0, k = 0, lda = 1, ldb = 1, ldc = 1;     // gemv: ldb = incx, ldc = incy
  std::complex<double> alpha, beta;
  std::string text;
};

int max1(int v) { return v > 1 ? v : 1; }

// The reference INFO of the column-major call (Fortran rules), 0 when legal. TRMM/TRSM's B is
// the output and is passed as C (ldc), as in iface::Args.
int generic_fortran_info(iface::Fam f, bool z, char side, char uplo, char t, char diag, int m, int n, int k, int lda,
                         int ldb, int ldc) {
  using iface::Fam;
  const bool legal_t = t == 'N' || t == 'T' || t == 'C';
  switch (f) {
    case Fam::gemm:  // trans in `t`, transb in `diag` (gemm has no diag)
      if (!legal_t) return 1;
      if (diag != 'N' && diag != 'T' && diag != 'C') return 2;
      if (m < 0) return 3;
      if (n < 0) return 4;
      if (k < 0) return 5;
      if (lda < max1(t == 'N' ? m : k)) return 8;
      if (ldb < max1(diag == 'N' ? k : n)) return 10;
      return ldc < max1(m) ? 13 : 0;
    case Fam::gemv:
      if (!legal_t) return 1;
      if (m < 0) return 2;
      if (n < 0) return 3;
      if (lda < max1(m)) return 6;
      if (ldb == 0) return 8;
      return ldc == 0 ? 11 : 0;
    case Fam::symm: case Fam::hemm:
      if (side != 'L' && side != 'R') return 1;
      if (uplo != 'U' && uplo != 'L') return 2;
      if (m < 0) return 3;
      if (n < 0) return 4;
      if (lda < max1(side == 'L' ? m : n)) return 7;
      if (ldb < max1(m)) return 9;
      return ldc < max1(m) ? 12 : 0;
    case Fam::trmm: case Fam::trsm:
      if (side != 'L' && side != 'R') return 1;
      if (uplo != 'U' && uplo != 'L') return 2;
      if (!legal_t) return 3;
      if (diag != 'U' && diag != 'N') return 4;
      if (m < 0) return 5;
      if (n < 0) return 6;
      if (lda < max1(side == 'L' ? m : n)) return 9;
      return ldc < max1(m) ? 11 : 0;  // B, the output, travels as C
    default: {
      const bool herm = iface::hermitian(f), two = f == Fam::syr2k || f == Fam::her2k;
      const bool ok_t = t == 'N' || (t == 'T' && !herm) || (t == 'C' && (herm || !z));
      if (uplo != 'U' && uplo != 'L') return 1;
      if (!ok_t) return 2;
      if (n < 0) return 3;
      if (k < 0) return 4;
      if (lda < max1(t == 'N' ? n : k)) return 7;
      if (two && ldb < max1(t == 'N' ? n : k)) return 9;
      return ldc < max1(n) ? (two ? 12 : 10) : 0;
    }
  }
}

// What the call must report: {cblas?, info}; info 0 when legal.
int generic_expected_info(const GCall& c) {
  using iface::Fam;
  const iface::Fam f = c.r.f;
  if (!c.r.cblas)
    return generic_fortran_info(f, c.r.z, c.side, c.uplo, c.trans, f == Fam::gemm ? c.diag : c.diag, c.m, c.n, c.k,
                                c.lda, c.ldb, c.ldc);
  if (c.layout != CblasColMajor && c.layout != CblasRowMajor) return 1;
  const bool row = c.layout == CblasRowMajor;
  char side = c.side, uplo = c.uplo, t = c.trans, tb = c.diag;
  int m = c.m, n = c.n, lda = c.lda, ldb = c.ldb;
  const auto swap_side = [](char s) { return s == 'L' ? 'R' : 'L'; };
  const auto swap_uplo = [](char u) { return u == 'U' ? 'L' : 'U'; };
  switch (f) {
    case Fam::gemm:
      if (t == 'X') return 2;
      if (tb == 'X') return 3;
      if (row) std::swap(t, tb), std::swap(m, n), std::swap(lda, ldb);
      break;
    case Fam::gemv:
      if (t == 'X') return 2;
      if (row) t = t == 'N' ? 'T' : 'N', std::swap(m, n);
      break;
    case Fam::symm: case Fam::hemm:
      if (side == 'X') return 2;
      if (uplo == 'X') return 3;
      if (row) side = swap_side(side), uplo = swap_uplo(uplo), std::swap(m, n);
      break;
    case Fam::trmm: case Fam::trsm:
      if (side == 'X') return 2;
      if (uplo == 'X') return 3;
      if (t == 'X') return 4;
      if (c.diag == 'X') return 5;
      if (row) side = swap_side(side), uplo = swap_uplo(uplo), std::swap(m, n);
      break;
    default: {
      if (uplo == 'X') return 2;
      const bool herm = iface::hermitian(f);
      if (row) {
        uplo = swap_uplo(uplo);
        if (herm) t = t == 'C' ? 'N' : t == 'N' ? 'C' : 'X';
        else if (c.r.z) t = t == 'T' ? 'N' : t == 'N' ? 'T' : 'X';
        else t = t == 'N' ? 'T' : t == 'X' ? 'X' : 'N';
      } else if (herm ? t == 'T' : (c.r.z && t == 'C')) {
        t = 'X';
      }
      if (t == 'X') return 3;
      break;
    }
  }
  const int info = generic_fortran_info(f, c.r.z, side, uplo, t, f == Fam::gemm ? tb : c.diag, m, n, c.k, lda, ldb,
                                        c.ldc);
  return info ? info + 1 : 0;
}

// One operand in storage terms: `rows` x `cols` column-major with leading dimension `ld`, or a
// vector (cols = 1, ld = |inc|), between kPad guards.
template <class T>
struct GOperand {
  int rows = 0, cols = 0, ld = 1;
  bool vector = false;
  std::vector<T> buf;
  void make(int r, int cl, int l, bool vec) {
    rows = std::max(r, 0), cols = std::max(cl, 0), ld = std::max(l, 1), vector = vec;
    const size_t span = vector ? (rows ? size_t(rows - 1) * ld + 1 : 0) : size_t(ld) * cols;
    buf.assign(span + 2 * kPad + 1, guard());
  }
  static T guard() {
    T g;
    uint64_t bits = 0x7FF4A5A5A5A5A5A5ull;  // signalling NaN in every part
    for (size_t o = 0; o < sizeof(T); o += 8) std::memcpy(reinterpret_cast<char*>(&g) + o, &bits, 8);
    return g;
  }
  size_t pos(int i, int j) const { return kPad + (vector ? size_t(i) * ld : size_t(i) + size_t(j) * ld); }
  T* data() { return buf.data() + kPad; }
};

template <class T>
T gvalue(Decoder& d) {
  if constexpr (iface::Ty<T>::cx) {
    const double re = data_value(d.byte());
    return T(re, data_value(d.byte()));
  } else {
    return T(data_value(d.byte()));
  }
}
template <class T>
T gnan() {
  if constexpr (iface::Ty<T>::cx) return T(NAN, NAN);
  else return T(NAN);
}

template <class T>
void run_generic_typed(GCall& c, Decoder& d) {
  using iface::Fam;
  const Fam f = c.r.f;
  const bool row = c.r.cblas && c.layout == CblasRowMajor;
  const int want_info = generic_expected_info(c);
  // Logical shapes (legal calls only), then storage (row-major: the transpose).
  const char t = c.trans, tb = c.diag;
  const bool tn = t == 'N';
  const int dim = c.side == 'L' ? c.m : c.n;
  int ar = 0, ac = 0, br = 0, bc = 0, cr = c.m, cc = c.n;
  bool vec = false;
  switch (f) {
    case Fam::gemm: ar = tn ? c.m : c.k, ac = tn ? c.k : c.m, br = tb == 'N' ? c.k : c.n, bc = tb == 'N' ? c.n : c.k; break;
    case Fam::gemv: ar = c.m, ac = c.n, br = tn ? c.n : c.m, cr = tn ? c.m : c.n, bc = cc = 1, vec = true; break;
    case Fam::symm: case Fam::hemm: ar = ac = dim, br = c.m, bc = c.n; break;
    case Fam::trmm: case Fam::trsm: ar = ac = dim; break;
    default: ar = br = tn ? c.n : c.k, ac = bc = tn ? c.k : c.n, cr = cc = c.n; break;
  }
  if (want_info) ar = ac = br = bc = cr = cc = 12;  // nothing may be touched: fill generously
  GOperand<T> A, B, C;
  auto make = [&](GOperand<T>& o, int r, int cl, int ld) {
    if (row) o.make(cl, r, want_info ? 16 : ld, false);
    else o.make(r, cl, want_info ? 16 : ld, false);
  };
  make(A, ar, ac, c.lda);
  if (vec) {
    B.make(br, 1, std::abs(c.ldb), true);
    C.make(cr, 1, std::abs(c.ldc), true);
  } else {
    make(B, br, bc, c.ldb);
    make(C, cr, cc, c.ldc);
  }
  if (!iface::has_b(f) && f != Fam::gemv) B.make(0, 0, 1, false);
  for (GOperand<T>* o : {&A, &B, &C})
    for (int j = 0; j < (o->vector ? 1 : o->cols); ++j)
      for (int i = 0; i < o->rows; ++i) o->buf[o->pos(i, j)] = gvalue<T>(d);
  // The stored element of logical (i, j) of a matrix operand.
  auto at = [row](GOperand<T>& o, int i, int j) -> T& { return o.buf[row ? o.pos(j, i) : o.pos(i, j)]; };
  if (!want_info && f == Fam::trsm)
    for (int j = 0; j < dim; ++j)
      for (int i = 0; i < dim; ++i) at(A, i, j) = i == j ? at(A, i, j) * 0.0 + T(8 + data_value(d.byte())) : at(A, i, j) / 8.0;
  if (!want_info && (f == Fam::herk || f == Fam::her2k))
    for (int j = 0; j < c.n; ++j) at(C, j, j) = T(std::real(at(C, j, j)));
  const std::vector<T> a_clean = A.buf, b_clean = B.buf, c_clean = C.buf;
  if (!want_info && c.alpha == 0.0) {
    for (GOperand<T>* o : {&A, &B})
      for (int j = 0; j < (o->vector ? 1 : o->cols); ++j)
        for (int i = 0; i < o->rows; ++i) o->buf[o->pos(i, j)] = gnan<T>();
    if (iface::triangular(f))
      for (int j = 0; j < C.cols; ++j)
        for (int i = 0; i < C.rows; ++i) C.buf[C.pos(i, j)] = gnan<T>();
  }
  if (!want_info && c.beta == 0.0 && !iface::triangular(f))
    for (int j = 0; j < (C.vector ? 1 : C.cols); ++j)
      for (int i = 0; i < C.rows; ++i) C.buf[C.pos(i, j)] = gnan<T>();
  const std::vector<T> a_in = A.buf, b_in = B.buf, c_in = C.buf;

  const iface::Args<T> g{c.fside, c.fuplo, c.ftrans, f == Fam::gemm ? c.fdiag : c.ftrans, c.fdiag,
                         c.m, c.n, c.k, iface::scalar_as<T>(c.alpha), iface::scalar_as<T>(c.beta),
                         A.data(), c.lda, B.data(), c.ldb, C.data(), c.ldc};
  iface::Args<T> gc = g;  // CBLAS: the enums travel as their option characters
  gc.side = c.side, gc.uplo = c.uplo, gc.ta = c.trans, gc.tb = c.diag, gc.diag = c.diag;
  auto call = [&](void* fn, const iface::Args<T>& args) {
    if (c.r.cblas) iface::cblas_call<T, int>(fn, f, CBLAS_LAYOUT(c.layout), args);
    else iface::fortran_call<T, int>(fn, f, args);
  };
  g_reports = Reports{};
  call(iface::our_symbol(c.r.name), c.r.cblas ? gc : g);
  const std::string path = myblas_last_path();
  if (std::memcmp(A.buf.data(), a_in.data(), a_in.size() * sizeof(T))) fail(c.text, "A changed");
  if (std::memcmp(B.buf.data(), b_in.data(), b_in.size() * sizeof(T))) fail(c.text, "B (x) changed");
  if (want_info) {
    if (g_reports.count != 1 || g_reports.cblas != c.r.cblas || g_reports.info != want_info)
      fail(c.text, "expected one " + std::string(c.r.cblas ? "cblas_xerbla" : "xerbla_") + " report of " +
                       std::to_string(want_info) + ", got " + std::to_string(g_reports.count) + " (last: " +
                       std::to_string(g_reports.info) + ")");
    if (path != "none") fail(c.text, "path " + path + " after an illegal call");
    if (std::memcmp(C.buf.data(), c_in.data(), c_in.size() * sizeof(T))) fail(c.text, "C changed by an illegal call");
    return;
  }
  if (g_reports.count) fail(c.text, "a legal call reported an error " + std::to_string(g_reports.info));
  // Empty output: a quick return leaves it as it was, NaN put there included.
  if (iface::rank_update(f) ? c.n == 0 : c.m == 0 || c.n == 0) {
    if (std::memcmp(C.buf.data(), c_in.data(), c_in.size() * sizeof(T))) fail(c.text, "an empty call changed C");
    return;
  }
  // The reference on the clean buffers.
  std::vector<T> ra = a_clean, rb = b_clean, rc = c_clean;
  iface::Args<T> r = c.r.cblas ? gc : g;
  r.a = ra.data() + kPad, r.b = rb.data() + kPad, r.c = rc.data() + kPad;
  void* ref = dlsym(openblas_handle(), c.r.name);
  if (!ref) fail(c.text, "OpenBLAS lacks the routine");
  call(ref, r);
  // Compare: written elements by value, everything else bitwise.
  const bool rank = iface::rank_update(f);
  double worst = 0, scale = 0;
  for (size_t p = 0; p < C.buf.size(); ++p) {
    const int64_t off = int64_t(p) - kPad;
    bool written = false;
    if (off >= 0) {
      int si = 0, sj = 0;
      if (C.vector) {
        written = off % C.ld == 0 && off / C.ld < C.rows;
      } else {
        si = int(off % C.ld), sj = int(off / C.ld);
        written = si < C.rows && sj < C.cols;
        const int li = row ? sj : si, lj = row ? si : sj;
        if (written && rank) written = c.uplo == 'U' ? li <= lj : li >= lj;
      }
    }
    if (!written) {
      if (std::memcmp(&C.buf[p], &c_in[p], sizeof(T))) fail(c.text, "C changed outside what the routine writes, at " + std::to_string(off));
      continue;
    }
    const T got = C.buf[p], want = rc[p];
    if (std::isnan(std::abs(got))) fail(c.text, "NaN in the result at " + std::to_string(off));
    if (f == Fam::trsm) {
      worst = std::max(worst, std::abs(got - want));
      scale = std::max(scale, std::abs(want));
    } else if (!(got == want)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "element %lld: got (%.17g,%.17g), OpenBLAS (%.17g,%.17g)", (long long)off,
                    std::real(got), std::imag(got), std::real(want), std::imag(want));
      fail(c.text + " path " + path, buf);
    }
  }
  if (f == Fam::trsm && !(worst <= 1e-9 * (1 + scale))) fail(c.text + " path " + path, "TRSM result differs from OpenBLAS by " + std::to_string(worst));
}

void run_generic(int index, Decoder& d) {
  GCall c;
  c.r = kGeneric[index];
  const uint8_t layout = d.header();
  c.layout = c.r.cblas ? kLayouts[layout % 6] : CblasColMajor;
  const uint8_t bs = d.header(), bu = d.header(), bt = d.header(), bd = d.header();
  c.fside = kSideChars[bs % 5], c.fuplo = kUploChars[bu % 5], c.ftrans = kGTransChars[bt % 7], c.fdiag = kDiagChars[bd % 5];
  c.side = kSideEnums[bs % 5] ? char(std::toupper(c.fside)) : 'X';
  c.uplo = kUploEnums[bu % 5] ? char(std::toupper(c.fuplo)) : 'X';
  c.trans = kGTransEnums[bt % 7] ? char(std::toupper(c.ftrans)) : 'X';
  // GEMM's second transpose shares the diag byte: its characters are read from the trans table.
  if (c.r.f == iface::Fam::gemm) c.fdiag = kGTransChars[bd % 7], c.diag = kGTransEnums[bd % 7] ? char(std::toupper(c.fdiag)) : 'X';
  else c.diag = kDiagEnums[bd % 5] ? char(std::toupper(c.fdiag)) : 'X';
  c.m = pick_dim(d.header()), c.n = pick_dim(d.header()), c.k = pick_dim(d.header());
  const uint8_t la = d.header(), lb = d.header(), lc = d.header();
  const bool row = c.r.cblas && c.layout == CblasRowMajor;
  const bool tn = c.trans == 'N';
  // Leading dimensions near the smallest legal value of the call as written.
  int need_a = 1, need_b = 1, need_c = 1;
  switch (c.r.f) {
    case iface::Fam::gemm:
      need_a = row ? (tn ? c.k : c.m) : (tn ? c.m : c.k), need_b = row ? (c.diag == 'N' ? c.n : c.k) : (c.diag == 'N' ? c.k : c.n);
      need_c = row ? c.n : c.m;
      break;
    case iface::Fam::gemv: need_a = row ? c.n : c.m; break;
    case iface::Fam::symm: case iface::Fam::hemm: case iface::Fam::trmm: case iface::Fam::trsm:
      need_a = c.side == 'L' ? c.m : c.n, need_b = need_c = row ? c.n : c.m;
      break;
    default: need_a = need_b = row == tn ? c.k : c.n, need_c = c.n; break;
  }
  c.lda = pick_ld(la, need_a);
  if (c.r.f == iface::Fam::gemv) c.ldb = pick_inc(lb), c.ldc = pick_inc(lc);
  else c.ldb = pick_ld(lb, need_b), c.ldc = pick_ld(lc, need_c);
  const double are = kGScalars[d.header() % 7], aim = kGScalars[d.header() % 7];
  const double bre = kGScalars[d.header() % 7], bim = kGScalars[d.header() % 7];
  const bool herk = c.r.f == iface::Fam::herk, her2k = c.r.f == iface::Fam::her2k;
  c.alpha = {are, c.r.z && !herk ? aim : 0.0};
  c.beta = {bre, c.r.z && !herk && !her2k ? bim : 0.0};
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%s(layout=%d side=%c uplo=%c trans=%c diag/transb=%c m=%d n=%d k=%d lda=%d ldb/incx=%d ldc/incy=%d "
                "alpha=(%g,%g) beta=(%g,%g))",
                c.r.name, c.layout, c.fside, c.fuplo, c.ftrans, c.fdiag, c.m, c.n, c.k, c.lda, c.ldb, c.ldc,
                c.alpha.real(), c.alpha.imag(), c.beta.real(), c.beta.imag());
  c.text = buf;
  if (c.r.z) run_generic_typed<std::complex<double>>(c, d);
  else run_generic_typed<double>(c, d);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Decoder d(data, size);
  Call c;
  const int r = d.header() % (int(Routine::count) + kGenericCount);
  if (r >= int(Routine::count)) {
    run_generic(r - int(Routine::count), d);
    return 0;
  }
  c.r = static_cast<Routine>(r);
  c.cblas = c.r == Routine::cblas_sgemm || c.r == Routine::cblas_sgemv || c.r == Routine::cblas_hgemm ||
            c.r == Routine::cblas_gemm_f16f16f32;
  c.half_c = c.r == Routine::hgemm_ || c.r == Routine::hgemm || c.r == Routine::cblas_hgemm;
  c.half = c.half_c || c.r == Routine::shgemm_ || c.r == Routine::gemm_f16f16f32_ ||
           c.r == Routine::cblas_gemm_f16f16f32;
  c.gemv = c.r == Routine::sgemv_ || c.r == Routine::cblas_sgemv;
  const uint8_t layout = d.header();  // read for every routine, so the byte positions agree
  c.layout = c.cblas ? kLayouts[layout % 6] : CblasColMajor;
  const uint8_t t1 = d.header(), t2 = d.header();
  c.ta = kTransChars[t1 % sizeof kTransChars];
  c.tb = kTransChars[t2 % sizeof kTransChars];
  c.cta = kCblasTrans[t1 % 10];
  c.ctb = kCblasTrans[t2 % 10];
  c.m = pick_dim(d.header());
  c.n = pick_dim(d.header());
  if (c.gemv) {
    run_gemv(c, d);
  } else {
    c.k = pick_dim(d.header());
    run_gemm(c, d);
  }
  return 0;
}
