// The panel plan of Level 3 on host arrays (src/backends/cuda/host_level3_plan.h), checked on the
// CPU: running every panel's sub-calls with the built-in reference loops must give the whole
// call's result, the panels' outputs must cover exactly the part of the output the routine
// writes (nothing else, nothing twice), every sub-call must write inside its panel's output and
// read only blocks that are resident or staged for its panel. Narrow panels (min width 8) give
// several panels at small sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <random>
#include <vector>

#include "backends/cpu/reference_blas.h"
#include "backends/cuda/host_level3_plan.h"

namespace myblas {
namespace {

template <class T>
T rnd(std::mt19937& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (kComplex<T>) return T(typename Elem<T>::Real(u(g)), typename Elem<T>::Real(u(g)));
  else return T(u(g));
}

// Whether the block of `rows` x `cols` at x (leading dimension ld) lies inside r.
bool inside(const Rect& r, const void* x, int64_t rows, int64_t cols, int64_t ld, size_t es) {
  if (rows == 0 || cols == 0) return true;
  const auto* base = static_cast<const unsigned char*>(r.host);
  const auto* px = static_cast<const unsigned char*>(x);
  if (px < base || ld != r.ld) return false;
  const size_t off = size_t(px - base) / es;
  const int64_t i = int64_t(off % size_t(r.ld)), j = int64_t(off / size_t(r.ld));
  return i + rows <= r.rows && j + cols <= r.cols;
}
bool inside_any(const std::vector<Rect>& rs, const void* x, int64_t rows, int64_t cols, int64_t ld, size_t es) {
  for (const Rect& r : rs)
    if (inside(r, x, rows, cols, ld, es)) return true;
  return false;
}

template <class T>
void check_plan(Family f, char side, char uplo, char ta, char diag, int m, int n, int k, double beta_re, unsigned seed) {
  std::mt19937 g(seed);
  BlasProblem p;
  p.family = f;
  p.type = Elem<T>::type;
  p.side = side, p.uplo = uplo, p.ta = ta, p.diag = diag;
  const bool rank = f == Family::syrk || f == Family::herk || f == Family::syr2k || f == Family::her2k;
  p.m = rank ? n : m;
  p.n = n;
  p.k = rank ? k : 0;
  p.alpha = kComplex<T> && f != Family::herk ? Scalar{0.75, -0.5} : Scalar{0.75, 0};
  p.beta = Scalar{beta_re, 0};
  const int64_t ar = p.a_rows(), ac = p.a_cols(), br = p.b_rows(), bc = p.b_cols();
  p.lda = ar + 3, p.ldb = std::max<int64_t>(br, 1) + 2, p.ldc = p.c_rows() + 5;
  std::vector<T> a(size_t(p.lda * std::max<int64_t>(ac, 1))), b(size_t(p.ldb * std::max<int64_t>(bc, 1))),
      c(size_t(p.ldc * p.n));
  for (T& x : a) x = rnd<T>(g);
  for (T& x : b) x = rnd<T>(g);
  for (T& x : c) x = rnd<T>(g);
  if (f == Family::trsm)  // a well-conditioned triangle
    for (int64_t i = 0; i < ar; ++i) a[size_t(i + i * p.lda)] += T(4);
  p.a = a.data(), p.b = p.reads_b() ? b.data() : nullptr, p.c = c.data();
  std::vector<T> want = c;
  BlasProblem whole = p;
  whole.c = want.data();
  ReferenceBlas<T>(whole, a.data(), p.lda, b.data(), p.ldb, want.data(), p.ldc).run();

  const size_t es = sizeof(T);
  std::vector<Rect> resident, chunks;
  resident_blocks(p, &resident, &chunks);
  for (const Rect& r : chunks) EXPECT_TRUE(inside_any(resident, r.host, r.rows, r.cols, r.ld, es));
  const std::vector<Panel> panels = make_panels(p, 8);
  ASSERT_GT(panels.size(), 1u) << "the test wants several panels";
  std::vector<int> written(size_t(p.ldc * p.n), 0);
  std::vector<T> got = c;
  const auto shift = [&](const void* x) {  // the same address in `got`
    return reinterpret_cast<const unsigned char*>(got.data()) + (static_cast<const unsigned char*>(x) -
                                                                 reinterpret_cast<const unsigned char*>(c.data()));
  };
  for (const Panel& pan : panels) {
    // The panel's output block goes back whole: what the routine does not write in it (the
    // other triangle of a rank-k update's diagonal block) must have been staged in unchanged.
    const auto* o0 = static_cast<const T*>(pan.out.host);
    for (int j = 0; j < pan.out.cols; ++j)
      for (int i = 0; i < pan.out.rows; ++i) {
        const size_t e = size_t((o0 - c.data()) + i + j * p.ldc);
        const int64_t gi = int64_t(e % size_t(p.ldc)), gj = int64_t(e / size_t(p.ldc));
        if (!rank || (uplo == 'U' ? gi <= gj : gi >= gj)) ++written[e];
        else EXPECT_TRUE(inside_any(pan.in, o0 + i + j * p.ldc, 1, 1, p.ldc, es)) << "an unwritten element goes back unstaged";
      }
    for (const BlasProblem& q : pan.calls) {
      EXPECT_TRUE(inside(pan.out, q.c, q.c_rows(), q.c_cols(), q.ldc, es)) << "a sub-call writes outside its panel";
      std::vector<Rect> readable = resident;
      for (const Rect& r : pan.in) readable.push_back(r);
      readable.push_back(pan.out);
      EXPECT_TRUE(inside_any(readable, q.a, q.a_rows(), q.a_cols(), q.lda, es));
      if (q.reads_b()) EXPECT_TRUE(inside_any(readable, q.b, q.b_rows(), q.b_cols(), q.ldb, es));
      // The output blocks a sub-call reads (C with beta != 0, trmm/trsm's B) must have been staged.
      const bool reads_c = q.family == Family::trmm || q.family == Family::trsm || !q.beta.zero();
      if (reads_c && !(q.beta.one() && q.family == Family::gemm))
        EXPECT_TRUE(inside_any(pan.in, q.c, q.c_rows(), q.c_cols(), q.ldc, es)) << "reads an output block not staged";
      BlasProblem r = q;
      r.c = const_cast<unsigned char*>(shift(q.c));
      ReferenceBlas<T>(r, static_cast<const T*>(q.a), q.lda, static_cast<const T*>(q.b), q.ldb,
                       static_cast<T*>(r.c), q.ldc)
          .run();
    }
  }
  const double tol = 64 * std::numeric_limits<typename Elem<T>::Real>::epsilon() * (k + m + n + 8);
  for (int64_t j = 0; j < p.n; ++j)
    for (int64_t i = 0; i < p.ldc; ++i) {
      const size_t e = size_t(i + j * p.ldc);
      const bool in_output = i < p.c_rows() && (!rank || (uplo == 'U' ? i <= j : i >= j));
      EXPECT_EQ(written[e], in_output ? 1 : 0) << "element (" << i << "," << j << ") written " << written[e]
                                               << " times by the panels";
      if (!in_output) {
        EXPECT_EQ(got[e], c[e]) << "element (" << i << "," << j << ") outside the output changed";
        continue;
      }
      EXPECT_LE(std::abs(got[e] - want[e]), tol * (1 + std::abs(want[e])))
          << routine_name(p.routine()) << " side=" << side << " uplo=" << uplo << " trans=" << ta << " diag=" << diag
          << " element (" << i << "," << j << ") seed " << seed;
    }
}

template <class T>
void all_options(unsigned seed) {
  const bool cplx = kComplex<T>;
  for (char side : {'L', 'R'})
    for (char uplo : {'U', 'L'}) {
      for (double beta : {0.0, 0.5}) {
        check_plan<T>(Family::symm, side, uplo, 'N', 'N', 45, 38, 0, beta, seed++);
        if (cplx) check_plan<T>(Family::hemm, side, uplo, 'N', 'N', 41, 50, 0, beta, seed++);
      }
      for (char t : {'N', 'T', 'C'})
        for (char diag : {'N', 'U'})
          for (Family f : {Family::trmm, Family::trsm}) {
            if (t == 'C' && !cplx) continue;
            check_plan<T>(f, side, uplo, t, diag, 37, 44, 0, 0, seed++);
          }
    }
  for (char uplo : {'U', 'L'})
    for (char t : {'N', 'T', 'C'})
      for (double beta : {0.0, 1.5}) {
        if (!(cplx && t == 'C')) {
          check_plan<T>(Family::syrk, 'L', uplo, t == 'C' ? 'T' : t, 'N', 0, 53, 29, beta, seed++);
          check_plan<T>(Family::syr2k, 'L', uplo, t == 'C' ? 'T' : t, 'N', 0, 47, 17, beta, seed++);
        }
        if (cplx && t != 'T') {
          check_plan<T>(Family::herk, 'L', uplo, t, 'N', 0, 51, 23, beta, seed++);
          check_plan<T>(Family::her2k, 'L', uplo, t, 'N', 0, 49, 19, beta, seed++);
        }
      }
}

// ---- the panels of a call split over GPUs (deal_panels) ----

// Every panel dealt exactly once, each GPU's list in panel order, and the GPUs' work within one
// panel's cost of each other.
void check_deal(const std::vector<Panel>& panels, size_t gpus) {
  SCOPED_TRACE(std::to_string(panels.size()) + " panels over " + std::to_string(gpus) + " GPUs");
  const std::vector<std::vector<size_t>> lists = deal_panels(panels, gpus);
  ASSERT_EQ(lists.size(), gpus);
  std::vector<int> seen(panels.size(), 0);
  double most = 0, least = 1e300, biggest = 0;
  for (const auto& l : lists) {
    EXPECT_TRUE(std::is_sorted(l.begin(), l.end()));
    double load = 0;
    for (size_t t : l) {
      ASSERT_LT(t, panels.size());
      ++seen[t];
      load += panel_cost(panels[t]);
    }
    most = std::max(most, load);
    least = std::min(least, load);
  }
  for (const Panel& pan : panels) biggest = std::max(biggest, panel_cost(pan));
  for (size_t t = 0; t < panels.size(); ++t) EXPECT_EQ(seen[t], 1) << "panel " << t;
  EXPECT_LE(most - least, biggest * (1 + 1e-12));
  if (panels.size() >= gpus)
    for (const auto& l : lists) EXPECT_FALSE(l.empty()) << "a GPU without panels although there are enough";
}

TEST(HostLevel3Plan, PanelCount) {
  EXPECT_EQ(panel_width(16384), 2048);
  EXPECT_EQ(panel_width(16384, 256, 16), 1024);  // two GPUs: twice the panels
  EXPECT_EQ(panel_width(16384, 256, 32), 512);
  EXPECT_EQ(panel_width(2001, 256, 16), 256);     // never narrower than min_width
  EXPECT_EQ(panel_width(100, 256, 16), 100);      // all of it
  EXPECT_EQ(panel_width(100000, 256, 8), 4096);   // at most 4096
}

TEST(HostLevel3Plan, DealtToGpus) {
  // A lower rank-k update (panels shrink along the triangle), an upper one, and a right-side
  // TRSM (equal row panels, the last narrower), cut for two and three GPUs.
  const int n = 2001, k = 65, m = 301;
  std::vector<float> a(size_t(n) * (k + 3)), c(size_t(n + 1) * n);
  for (char uplo : {'L', 'U'}) {
    BlasProblem p;
    p.family = Family::syrk;
    p.type = Dtype::s;
    p.uplo = uplo;
    p.n = p.m = n;
    p.k = k;
    p.alpha = Scalar{1, 0};
    p.beta = Scalar{0.5, 0};
    p.a = a.data(), p.lda = n;
    p.c = c.data(), p.ldc = n + 1;
    for (size_t gpus : {size_t(1), size_t(2), size_t(3)}) {
      const std::vector<Panel> panels = make_panels(p, 256, 8 * int(gpus));
      EXPECT_EQ(panels.size(), 8u);  // 256-wide: min_width bounds the count at this size
      check_deal(panels, gpus);
    }
  }
  BlasProblem t;
  t.family = Family::trsm;
  t.type = Dtype::s;
  t.side = 'R', t.uplo = 'U', t.ta = 'N', t.diag = 'N';
  t.m = n, t.n = m;
  t.alpha = Scalar{1, 0};
  std::vector<float> ta(size_t(m) * m), tb(size_t(n) * m);
  t.a = ta.data(), t.lda = m;
  t.c = tb.data(), t.ldc = n;
  const std::vector<Panel> rows = make_panels(t, 256, 16);
  EXPECT_EQ(rows.size(), 8u);
  check_deal(rows, 2);
  check_deal(rows, 3);
  // Fewer panels than GPUs: some GPUs get none, each panel still goes exactly once.
  check_deal(std::vector<Panel>(rows.begin(), rows.begin() + 2), 3);
  // One GPU: every panel, in order.
  const std::vector<std::vector<size_t>> one = deal_panels(rows, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].size(), rows.size());
}

TEST(HostLevel3Plan, Float) { all_options<float>(100); }
TEST(HostLevel3Plan, Double) { all_options<double>(200); }
TEST(HostLevel3Plan, ComplexFloat) { all_options<std::complex<float>>(300); }
TEST(HostLevel3Plan, ComplexDouble) { all_options<std::complex<double>>(400); }

}  // namespace
}  // namespace myblas
