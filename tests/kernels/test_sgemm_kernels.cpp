// Every SGEMM kernel (ladder rungs, production, shape-specialised) called directly on device
// pointers and compared with OpenBLAS: sizes around every tile edge (tile-1, tile, tile+1 for the
// 32, 64 and 128 tiles and the 16-wide k tiles; 256 x 256 x 256 and 513 x 383 x 37, where the
// 256-wide tiles have whole blocks inside C beside edge blocks and k is not a multiple of 8),
// odd sizes (1, 3, 17, 127), skinny shapes that
// split k (16 x 300 x 1100, 1000 x 7 x 2100), all four transposes (a rung that takes fewer must
// refuse the others), padded leading dimensions with guards that must survive, operands
// misaligned by one float with odd leading dimensions, NaN in C with beta == 0, two runs that
// must agree bit for bit, and 64-bit offsets (ldc * n past 2^31). Small k (1, 63, 64, 65, 128,
// 129) for smallk and the smallk_panel kernels (smallk_panel_pre: k-contiguous operands
// transposed into scratch first, at every size), and for smallk's persistent variant a shape
// with about two tiles per block; for smallk_ws (which runs smallk_panel_pre where it cannot take
// a problem) shapes of several tiles per block that its own kernel must run. Error
// bound per element: (k + 2) * 4 * eps * (|alpha| sum_l |op(A)(i,l)| |op(B)(l,j)| + |beta| |C0(i,j)|).
// MYBLAS_SGEMM_TEST_SHORT=1 (2) keeps five (three small) shapes, for compute-sanitizer runs.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "kernels/sgemm.h"

#include "kernel_test_util.h"

namespace {

using myblas::SgemmKernel;

using kernel_test::DevBuf;
#define REQUIRE_GPU() KERNEL_TEST_REQUIRE_GPU("SGEMM kernels")

struct Case {
  char ta, tb;
  int m, n, k;
  int lda, ldb, ldc;
  float alpha, beta;
  int offset;  // floats added to the A, B and C addresses (1: misaligned)
  std::string str() const {
    std::ostringstream o;
    o << ta << tb << " m=" << m << " n=" << n << " k=" << k << " lda=" << lda << " ldb=" << ldb
      << " ldc=" << ldc << " alpha=" << alpha << " beta=" << beta << " offset=" << offset;
    return o.str();
  }
};

// Whether kernel k must refuse the case (the ladder's documented limits).
bool must_refuse(SgemmKernel k, const Case& c) {
  const bool nn = c.ta == 'N' && c.tb == 'N';
  switch (k) {
    case SgemmKernel::naive:
    case SgemmKernel::pipelined_s4:
    case SgemmKernel::regdb_256x128:
    case SgemmKernel::regdb_128x128:
    case SgemmKernel::smallk:
    case SgemmKernel::smallk_panel:
    case SgemmKernel::smallk_panel_pre:
      return false;
    case SgemmKernel::smallk_ws:
      return c.k > 64;
    case SgemmKernel::vectorized:
    case SgemmKernel::warptile:
      return !nn || c.offset != 0 || c.lda % 4 != 0 || c.ldb % 4 != 0;
    case SgemmKernel::skinny_r16:
      return c.m > 16 && c.n > 16;
    default:
      return !nn;
  }
}

// The case as a device-pointer problem, without its operands (the caller sets a, b and c).
myblas::GemmProblem problem_of(const Case& c) {
  myblas::GemmProblem p;
  p.ta = c.ta == 'N' ? myblas::Op::N : myblas::Op::T;
  p.tb = c.tb == 'N' ? myblas::Op::N : myblas::Op::T;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.alpha = c.alpha;
  p.beta = c.beta;
  p.lda = c.lda;
  p.ldb = c.ldb;
  p.ldc = c.ldc;
  p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
  return p;
}

void run_case(SgemmKernel k, const Case& c, int* ran) {
  SCOPED_TRACE(std::string(myblas::sgemm_kernel_name(k)) + " " + c.str() + " seed " +
               std::to_string(mbtest::test_seed()));
  std::mt19937_64 rng(mbtest::test_seed() ^ (uint64_t(c.m) * 7919u + uint64_t(c.n) * 104729u +
                                             uint64_t(c.k) * 31u + uint64_t(c.ta) * 3u + c.tb));
  const int ar = c.ta == 'N' ? c.m : c.k, ac = c.ta == 'N' ? c.k : c.m;
  const int br = c.tb == 'N' ? c.k : c.n, bc = c.tb == 'N' ? c.n : c.k;
  mbtest::Matrix a(ar, ac, c.lda, rng), b(br, bc, c.ldb, rng), cm(c.m, c.n, c.ldc, rng);
  const mbtest::Matrix c0 = cm;
  if (c.beta == 0.f) cm.fill_nan();

  myblas::GemmProblem p = problem_of(c);
  DevBuf da(a.buf, c.offset), db(b.buf, c.offset), dc(cm.buf, c.offset);
  p.a = da.ptr + mbtest::Matrix::kPad;
  p.b = db.ptr + mbtest::Matrix::kPad;
  p.c = dc.ptr + mbtest::Matrix::kPad;

  const char* reason = myblas::sgemm_can_implement(k, p);
  if (must_refuse(k, c)) {
    EXPECT_NE(reason, nullptr) << "must refuse this problem";
    return;
  }
  ASSERT_EQ(reason, nullptr) << "refused: " << reason;

  mbtest::Matrix want = c0;
  mbtest::ref_sgemm(c.ta, c.tb, c.m, c.n, c.k, c.alpha, a.data(), c.lda, b.data(), c.ldb, c.beta,
                    want.data(), c.ldc);

  ASSERT_EQ(myblas::sgemm_run(k, p, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  mbtest::Matrix got = cm;
  dc.download(&got.buf);
  dc.upload(cm.buf);
  ASSERT_EQ(myblas::sgemm_run(k, p, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  mbtest::Matrix again = cm;
  dc.download(&again.buf);
  EXPECT_EQ(std::memcmp(got.buf.data(), again.buf.data(), got.buf.size() * sizeof(float)), 0)
      << "two runs differ";

  auto opa = [&](int i, int l) { return c.ta == 'N' ? a.at(i, l) : a.at(l, i); };
  auto opb = [&](int l, int j) { return c.tb == 'N' ? b.at(l, j) : b.at(j, l); };
  std::vector<double> scale(size_t(c.m) * c.n);
  std::vector<double> absa(size_t(c.k));
  for (int i = 0; i < c.m; ++i) {
    for (int l = 0; l < c.k; ++l) absa[size_t(l)] = std::fabs(opa(i, l));
    for (int j = 0; j < c.n; ++j) {
      double s = 0;
      for (int l = 0; l < c.k; ++l) s += absa[size_t(l)] * std::fabs(opb(l, j));
      scale[size_t(i) + size_t(j) * c.m] =
          std::fabs(c.alpha) * s + (c.beta == 0.f ? 0.0 : std::fabs(c.beta * c0.at(i, j)));
    }
  }
  const mbtest::Worst w = mbtest::compare(got.data(), c.ldc, want.data(), c.ldc, scale, c.m, c.n,
                                          (c.k + 2) * 4.0 * FLT_EPSILON);
  EXPECT_LE(w.ratio, 1.0) << "worst C(" << w.i << "," << w.j << ") got " << w.got << " want "
                          << w.want << " (error/bound " << w.ratio << ")";
  EXPECT_EQ(got.damaged_guards(), 0) << "C's guards or padding were written";
  ++*ran;
}

// 0: every shape; 1: five shapes (memcheck); 2: three small shapes (racecheck).
int short_run() {
  const char* s = std::getenv("MYBLAS_SGEMM_TEST_SHORT");
  return s && *s ? std::atoi(s) : 0;
}

std::vector<Case> cases() {
  struct Shape { int m, n, k; };
  const std::vector<Shape> all = {
      {1, 1, 1},      {3, 3, 3},       {17, 17, 17},   {31, 33, 32},    {32, 32, 33},
      {63, 65, 64},   {127, 129, 128}, {128, 128, 16}, {129, 127, 15},  {1, 127, 300},
      {257, 3, 129},  {16, 300, 1100}, {300, 16, 1100}, {17, 17, 1300}, {5, 1000, 2100},
      {1000, 7, 2100}, {256, 256, 256}, {513, 383, 37},
      // Small k around the 16-deep k tiles (smallk's domain), two or more tiles each way.
      {130, 129, 1},  {257, 131, 63}, {129, 257, 64}, {131, 130, 65}, {255, 129, 128}, {129, 131, 129},
      // Several whole and edge tiles each way with k in one 32-deep stage pair (smallk_panel's
      // k <= 64 instantiation) and in several (its staging path).
      {259, 257, 64}, {260, 300, 129}};
  const std::vector<Shape> few = {{17, 17, 17}, {129, 127, 15}, {16, 300, 1100}, {300, 16, 1100}, {513, 383, 37}};
  const std::vector<Shape> tiny = {{33, 31, 17}, {16, 40, 600}, {40, 5, 600}};
  const float ab[][2] = {{1.f, 0.f}, {-1.f, 1.f}, {0.5f, -0.5f}, {2.f, 0.f}, {-0.75f, 0.25f}};
  std::vector<Case> out;
  int rot = 0;
  for (const Shape& s : short_run() == 0 ? all : short_run() == 1 ? few : tiny)
    for (char ta : {'N', 'T'})
      for (char tb : {'N', 'T'}) {
        const int ar = ta == 'N' ? s.m : s.k, br = tb == 'N' ? s.k : s.n;
        auto up4 = [](int x) { return (x + 3) / 4 * 4; };
        // Exact leading dimensions; padded multiples of 4 (float4 paths with guards in the
        // padding); odd padding with every pointer one float off 16-byte alignment.
        const int lds[3][3] = {{ar, br, s.m}, {up4(ar) + 4, up4(br) + 4, up4(s.m) + 4},
                               {ar + 3, br + 1, s.m + 5}};
        for (int v = 0; v < 3; ++v) {
          const float* x = ab[rot++ % 5];
          out.push_back({ta, tb, s.m, s.n, s.k, lds[v][0], lds[v][1], lds[v][2], x[0], x[1], v == 2 ? 1 : 0});
        }
      }
  return out;
}

class SgemmKernelTest : public ::testing::TestWithParam<SgemmKernel> {};

TEST_P(SgemmKernelTest, MatchesOpenBlas) {
  REQUIRE_GPU();
  const SgemmKernel k = GetParam();
  int ran = 0;
  for (const Case& c : cases()) {
    run_case(k, c, &ran);
    if (HasFatalFailure()) return;
  }
  // The NN-only aligned rungs take 20 of the full list's cases, the others more.
  EXPECT_GE(ran, short_run() ? 1 : 20) << "too few cases ran";
}

// smallk_panel (and _pre) prefetch C into shared memory for beta != 0 only on grids of at most
// 8 tiles per SM (1056 on a 132-SM H100); the common list's shapes are all below that. 4200^2
// (1089 tiles; ldc 4200 or 4204, so whole tiles take the 16-byte epilogue) runs without the
// prefetch; k = 64 and 40 (two 32-deep stages, the second partial at 40), every transpose,
// beta != 0 and once beta = 0 over NaN, every other case with leading dimensions padded by 4
// (guards in the padding).
TEST(SgemmSmallkTest, PanelLargeGrid) {
  REQUIRE_GPU();
  if (short_run()) GTEST_SKIP() << "long shapes; MYBLAS_SGEMM_TEST_SHORT is set";
  int ran = 0, v = 0;
  for (SgemmKernel kern : {SgemmKernel::smallk_panel, SgemmKernel::smallk_panel_pre})
    for (char ta : {'N', 'T'})
      for (char tb : {'N', 'T'}) {
        const int m = 4200, n = 4200, kk = v % 2 ? 40 : 64;
        const float beta = v == 0 ? 0.f : v % 3 ? 0.5f : -1.f;
        const int pad = v % 2 ? 4 : 0;  // padded leading dimensions (guards), still 16-byte columns
        ++v;
        run_case(kern,
                 {ta, tb, m, n, kk, (ta == 'N' ? m : kk) + pad, (tb == 'N' ? kk : n) + pad, m + pad, -1.f, beta, 0},
                 &ran);
        if (HasFatalFailure()) return;
      }
  EXPECT_EQ(ran, 8);
}

// smallk_ws, the persistent warp-specialised kernel (one block per SM, 128 x 256 tiles, stages of
// 32 k, C through shared memory): 4200 x 2052 is 33 x 9 tiles (edge tiles both ways) for 132
// blocks, so blocks walk 2 or 3 tiles and the ring and the C buffer wrap; k = 64 (two whole
// stages), 40 (the second partial), 33 and 17 (the second empty); every transpose (k-contiguous
// operands pre-transposed); beta = 0 over NaN and beta != 0; exact leading dimensions where they
// are multiples of 4, else padded by 4 (guards in the padding). On a compute capability 9.0
// device each case must run the kernel itself, not its smallk_panel_pre fallback.
TEST(SgemmSmallkTest, WarpSpecialised) {
  REQUIRE_GPU();
  if (short_run()) GTEST_SKIP() << "long shapes; MYBLAS_SGEMM_TEST_SHORT is set";
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int ran = 0, v = 0;
  for (int kk : {64, 40, 33, 17})
    for (char ta : {'N', 'T'})
      for (char tb : {'N', 'T'}) {
        const int m = 4200, n = 2052;
        const float beta = v % 2 ? 0.f : v % 3 ? 0.5f : -1.f;
        auto ld = [&](int rows) { return rows % 4 ? rows + 4 - rows % 4 + 4 : rows + 4 * (v % 3 == 2); };
        ++v;
        const Case c{ta, tb, m, n, kk, ld(ta == 'N' ? m : kk), ld(tb == 'N' ? kk : n), ld(m), -1.f, beta, 0};
        myblas::GemmProblem p = problem_of(c);  // with 16-byte aligned stand-ins for the operands
        alignas(16) float dummy[4];
        p.a = p.b = dummy;
        p.c = dummy;
        if (prop.major == 9) {
          const char* why = myblas::sgemm_smallk_ws_fallback(p);
          EXPECT_EQ(why, nullptr) << c.str() << ": runs smallk_panel_pre (" << why << ")";
        }
        run_case(SgemmKernel::smallk_ws, c, &ran);
        if (HasFatalFailure()) return;
      }
  EXPECT_EQ(ran, 16);
  if (prop.major != 9) std::printf("note: not a compute capability 9.0 device; smallk_ws ran its fallback\n");
}

// The cases smallk_ws hands to smallk_panel_pre, and that it says so.
TEST(SgemmSmallkTest, WarpSpecialisedFallbacks) {
  REQUIRE_GPU();
  alignas(16) float dummy[8];
  myblas::GemmProblem p;
  p.ta = myblas::Op::N, p.tb = myblas::Op::T;
  p.m = 300, p.n = 300, p.k = 64, p.lda = 300, p.ldb = 300, p.ldc = 300, p.alpha = 1.f, p.beta = 0.f;
  p.a = p.b = dummy;
  p.c = dummy;
  myblas::GemmProblem q = p;
  q.k = 65;
  EXPECT_NE(myblas::sgemm_can_implement(SgemmKernel::smallk_ws, q), nullptr) << "k > 64 refused";
  q = p;
  q.ldc = 301;
  EXPECT_NE(myblas::sgemm_smallk_ws_fallback(q), nullptr) << "ldc not a multiple of 4";
  q = p;
  q.c = dummy + 1;
  EXPECT_NE(myblas::sgemm_smallk_ws_fallback(q), nullptr) << "C misaligned";
  q = p;
  q.a = dummy + 1;
  EXPECT_NE(myblas::sgemm_smallk_ws_fallback(q), nullptr) << "A (not pre-transposed) misaligned";
  q = p;
  q.ta = myblas::Op::T, q.lda = 65, q.a = dummy + 1;  // pre-transposed: its alignment does not matter
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  if (prop.major == 9) {
    EXPECT_EQ(myblas::sgemm_smallk_ws_fallback(p), nullptr);
    EXPECT_EQ(myblas::sgemm_smallk_ws_fallback(q), nullptr);
  } else {
    EXPECT_NE(myblas::sgemm_smallk_ws_fallback(p), nullptr) << "not compute capability 9.0";
  }
  // The fallbacks compute the right thing too (as do the misaligned and odd-ld cases of the common
  // list): here ldc = 301 with both operands pre-transposed.
  int ran = 0;
  run_case(SgemmKernel::smallk_ws, {'T', 'N', 300, 301, 63, 63, 63, 301, 0.5f, -1.f, 0}, &ran);
  EXPECT_EQ(ran, 1);
}

std::vector<SgemmKernel> all_kernels() {
  std::vector<SgemmKernel> v;
  for (int i = 0; i < myblas::kSgemmKernelCount; ++i) v.push_back(SgemmKernel(i));
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, SgemmKernelTest, ::testing::ValuesIn(all_kernels()),
                         [](const ::testing::TestParamInfo<SgemmKernel>& i) {
                           return std::string(myblas::sgemm_kernel_name(i.param));
                         });

// skinny_r16's launch shapes that the common list does not reach on the H100: several chunks of
// S per block (the double-buffered chunk loop, a short last chunk) with and without a cluster,
// and so many column blocks that k is not split. 2 x 8448 x 2100: k-contiguous kernel (B not
// transposed) 264 column blocks of 32, no split, 17 steps of 128 k (its ring of 2 wraps 8 times,
// a short last step; with 2 < 16 rows every step takes the checked copies); n-contiguous (B transposed) 66 column
// blocks of 128, 4 splits of 576 = 512 + 64. 16896 x 2 x 1100: n-contiguous (A not transposed) 132
// column blocks, 2 splits of 576; k-contiguous (A transposed) 528 column blocks, no split, 9
// steps. 16 x 2100 x 2100 and 2100 x 16 x 2100: 16 rows of S, so whole steps take the copies
// without predicates; the k-contiguous kernel (NN, TN; TN, TT) gets 66 column blocks, 4 splits of
// 576 = 4.5 steps (the ring wraps, a short last step, a cluster). Each with beta = 0 over NaN and
// with beta != 0 and padded leading dimensions.
TEST(SgemmKernelSkinny, ChunkLoopAndUnsplitLaunches) {
  REQUIRE_GPU();
  int ran = 0;
  struct Shape { int m, n, k; };
  for (const Shape& s : {Shape{2, 8448, 2100}, Shape{16896, 2, 1100}, Shape{16, 2100, 2100}, Shape{2100, 16, 2100}})
    for (char ta : {'N', 'T'})
      for (char tb : {'N', 'T'})
        for (int v = 0; v < 2; ++v) {
          const int ar = ta == 'N' ? s.m : s.k, br = tb == 'N' ? s.k : s.n;
          const Case c{ta, tb, s.m, s.n, s.k, ar + 4 * v, br + 4 * v, s.m + v, 0.5f, v ? -0.5f : 0.f, 0};
          run_case(SgemmKernel::skinny_r16, c, &ran);
          if (HasFatalFailure()) return;
        }
  EXPECT_EQ(ran, 32);
}

TEST(SgemmKernelTable, NamesRoundTrip) {
  for (SgemmKernel k : all_kernels()) {
    SgemmKernel back;
    ASSERT_TRUE(myblas::sgemm_kernel_from_name(myblas::sgemm_kernel_name(k), &back));
    EXPECT_EQ(back, k);
  }
  SgemmKernel dummy;
  EXPECT_FALSE(myblas::sgemm_kernel_from_name("sgemm_fast", &dummy));
  EXPECT_FALSE(myblas::sgemm_kernel_from_name(nullptr, &dummy));
}

TEST(SgemmKernelTable, ChooseReturnsAProductionKernelThatCanRun) {
  float dummy[4];
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'})
      for (int m : {1, 16, 17, 4096, 100000})
        for (int n : {1, 16, 17, 4096, 100000})
          for (int k : {1, 64, 4096}) {
            myblas::GemmProblem p;
            p.ta = ta == 'N' ? myblas::Op::N : myblas::Op::T;
            p.tb = tb == 'N' ? myblas::Op::N : myblas::Op::T;
            p.m = m;
            p.n = n;
            p.k = k;
            p.lda = p.a_rows();
            p.ldb = p.b_rows();
            p.ldc = m;
            p.a = p.b = dummy;
            p.c = dummy;
            const SgemmKernel kk = myblas::sgemm_choose(p);
            EXPECT_TRUE(myblas::sgemm_kernel_is_production(kk)) << ta << tb << " " << m << "x" << n << "x" << k;
            EXPECT_EQ(myblas::sgemm_can_implement(kk, p), nullptr) << ta << tb << " " << m << "x" << n << "x" << k;
          }
}

// Leading dimensions whose offsets pass 2^31 elements (lda * (k-1), ldb * (n-1), ldc * (n-1)):
// 64-bit address arithmetic in every production kernel. Needs about 27 GB; skipped if absent.
TEST(SgemmKernelTest64, DeviceLargeOffsets) {
  REQUIRE_GPU();
  const int m = 64, n = 3, k = 3;
  const int64_t ld = 1100000004;  // (n - 1) * ld = 2.2e9 elements; a multiple of 4
  const size_t count = size_t(ld) * (k - 1) + m;
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  if (free_b < 3 * count * sizeof(float) + (1u << 30)) GTEST_SKIP() << "not enough device memory";
  float *a, *b, *c;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&a), count * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&b), count * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&c), count * sizeof(float)), cudaSuccess);
  std::mt19937_64 rng(mbtest::test_seed());
  // Dense host copies: A is m x k, B is k x n (only its first k rows of each column are used,
  // ld rows apart), C is m x n.
  std::vector<float> ha(size_t(m) * k), hb(size_t(k) * n), hc(size_t(m) * n);
  for (auto& v : ha) v = mbtest::uniform(rng);
  for (auto& v : hb) v = mbtest::uniform(rng);
  for (auto& v : hc) v = mbtest::uniform(rng);
  for (int l = 0; l < k; ++l)
    ASSERT_EQ(cudaMemcpy(a + size_t(ld) * l, ha.data() + size_t(m) * l, m * 4, cudaMemcpyHostToDevice), cudaSuccess);
  for (int j = 0; j < n; ++j)
    ASSERT_EQ(cudaMemcpy(b + size_t(ld) * j, hb.data() + size_t(k) * j, k * 4, cudaMemcpyHostToDevice), cudaSuccess);
  const float alpha = 0.5f, beta = -1.f;
  std::vector<float> want(hc);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int l = 0; l < k; ++l) s += double(ha[i + size_t(m) * l]) * hb[l + size_t(k) * j];
      want[i + size_t(m) * j] = float(alpha * s + beta * double(hc[i + size_t(m) * j]));
    }
  for (SgemmKernel kk : {SgemmKernel::pipelined_s4, SgemmKernel::skinny_r16, SgemmKernel::regdb_256x128,
                         SgemmKernel::regdb_128x128}) {
    SCOPED_TRACE(myblas::sgemm_kernel_name(kk));
    for (int j = 0; j < n; ++j)
      ASSERT_EQ(cudaMemcpy(c + size_t(ld) * j, hc.data() + size_t(m) * j, m * 4, cudaMemcpyHostToDevice), cudaSuccess);
    myblas::GemmProblem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.lda = p.ldb = p.ldc = int(ld);
    p.alpha = alpha;
    p.beta = beta;
    p.a = a;
    p.b = b;
    p.c = c;
    p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
    ASSERT_EQ(myblas::sgemm_can_implement(kk, p), nullptr);
    ASSERT_EQ(myblas::sgemm_run(kk, p, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (int j = 0; j < n; ++j) {
      std::vector<float> got(static_cast<size_t>(m));
      ASSERT_EQ(cudaMemcpy(got.data(), c + size_t(ld) * j, m * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      for (int i = 0; i < m; ++i)
        EXPECT_NEAR(got[size_t(i)], want[i + size_t(m) * j], 1e-5) << "C(" << i << "," << j << ")";
    }
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

}  // namespace
