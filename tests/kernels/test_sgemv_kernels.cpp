// Every SGEMV kernel (ladder rungs and production) called directly on device pointers and
// compared with OpenBLAS: sizes off every tile (1, 3, 31, 33, 1000, 4097, 100000 x 3, ...),
// both transposes, increments in {-3, -1, 1, 2}, padded lda with guards that must survive,
// NaN in y with beta == 0, operands misaligned by one float, alpha == 0, and two runs that must
// agree bit for bit; the single-pass split kernels also on two streams at once, and the cluster
// kernels with every cluster size. Error bound per element: (len(x) + 2) * 4 * eps * (|alpha| sum |a||x| + |beta y|).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "kernels/sgemv.h"

#include "kernel_test_util.h"

namespace {

using myblas::SgemvKernel;

using kernel_test::DevBuf;
#define REQUIRE_GPU() KERNEL_TEST_REQUIRE_GPU("SGEMV kernels")

struct Case {
  char t;
  int m, n, lda, incx, incy;
  float alpha, beta;
  int offset;  // floats added to the A, x and y addresses (1: misaligned)
  std::string str() const {
    std::ostringstream o;
    o << t << " m=" << m << " n=" << n << " lda=" << lda << " incx=" << incx << " incy=" << incy
      << " alpha=" << alpha << " beta=" << beta << " offset=" << offset;
    return o.str();
  }
};

bool is_n_kernel(SgemvKernel k) {
  return k == SgemvKernel::n_rowblock || k == SgemvKernel::n_rowblock_split ||
         k == SgemvKernel::n_rowblock_lastblock || k == SgemvKernel::n_rowblock_cluster ||
         k == SgemvKernel::n_colsweep || k == SgemvKernel::n_lanes || k == SgemvKernel::n_sweep;
}
bool is_t_kernel(SgemvKernel k) {
  return k == SgemvKernel::t_lanegroup || k == SgemvKernel::t_lanegroup_split ||
         k == SgemvKernel::t_lanegroup_lastblock || k == SgemvKernel::t_lanegroup_cluster ||
         k == SgemvKernel::t_lanegroup_blocksplit;
}

// Runs one case; returns false (with a failure already reported) on any mismatch.
// lanes > 0: n_lanes with that many lanes per column (sgemv_run_lanes) instead of sgemv_run(k).
void run_case(SgemvKernel k, const Case& c, int* ran, int lanes = 0) {
  SCOPED_TRACE(std::string(myblas::sgemv_kernel_name(k)) + " " + c.str() + " seed " +
               std::to_string(mbtest::test_seed()));
  std::mt19937_64 rng(mbtest::test_seed() ^ (uint64_t(c.m) * 7919u + uint64_t(c.n) * 104729u +
                                             uint64_t(c.incx + 8) * 31u + uint64_t(c.incy + 8)));
  const int lx = c.t == 'N' ? c.n : c.m, ly = c.t == 'N' ? c.m : c.n;
  mbtest::Matrix a(c.m, c.n, c.lda, rng);
  mbtest::Vector x(lx, c.incx, rng), y(ly, c.incy, rng);
  mbtest::Vector y0 = y;  // clean initial y for the reference
  if (c.beta == 0.f) y.fill_nan();

  myblas::GemvProblem p;
  p.ta = c.t == 'N' ? myblas::Op::N : myblas::Op::T;
  p.m = c.m;
  p.n = c.n;
  p.alpha = c.alpha;
  p.beta = c.beta;
  p.lda = c.lda;
  p.incx = c.incx;
  p.incy = c.incy;
  p.mem_a = p.mem_x = p.mem_y = myblas::Mem::device;

  DevBuf da(a.buf, c.offset), dx(x.buf, c.offset), dy(y.buf, c.offset);
  p.a = da.ptr + mbtest::Matrix::kPad;
  p.x = dx.ptr + mbtest::Vector::kPad;
  p.y = dy.ptr + mbtest::Vector::kPad;

  const char* reason = myblas::sgemv_can_implement(k, p);
  const bool other_trans = is_n_kernel(k) ? c.t != 'N' : is_t_kernel(k) ? c.t == 'N' : false;
  const bool too_long_x = k == SgemvKernel::x_constant && lx > 16384;
  const bool too_tall = k == SgemvKernel::n_sweep && c.m > 4096;
  if (other_trans || too_long_x || too_tall) {
    EXPECT_NE(reason, nullptr) << "must refuse this problem";
    return;
  }
  ASSERT_EQ(reason, nullptr) << "refused: " << reason;

  // Reference (OpenBLAS) on the clean y: with beta == 0 the result must not depend on y.
  mbtest::Vector want = y0;
  mbtest::ref_sgemv(c.t, c.m, c.n, c.alpha, a.data(), c.lda, x.data(), c.incx, c.beta, want.data(),
                    c.incy);

  ASSERT_EQ(lanes > 0 ? myblas::sgemv_run_lanes(p, lanes, nullptr) : myblas::sgemv_run(k, p, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  mbtest::Vector got = y;
  dy.download(&got.buf);
  // Second run from the same y: bitwise the same result.
  dy.upload(y.buf);
  ASSERT_EQ(lanes > 0 ? myblas::sgemv_run_lanes(p, lanes, nullptr) : myblas::sgemv_run(k, p, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  mbtest::Vector again = y;
  dy.download(&again.buf);
  EXPECT_EQ(std::memcmp(got.buf.data(), again.buf.data(), got.buf.size() * sizeof(float)), 0)
      << "two runs differ";

  std::vector<float> g(ly), w(ly);
  std::vector<double> scale(ly);
  for (int i = 0; i < ly; ++i) {
    g[size_t(i)] = got.at(i);
    w[size_t(i)] = want.at(i);
    double s = 0;
    for (int l = 0; l < lx; ++l)
      s += std::fabs(c.t == 'N' ? a.at(i, l) : a.at(l, i)) * std::fabs(x.at(l));
    scale[size_t(i)] = std::fabs(c.alpha) * s + (c.beta == 0.f ? 0.0 : std::fabs(c.beta * y0.at(i)));
  }
  const mbtest::Worst wr =
      mbtest::compare(g.data(), ly, w.data(), ly, scale, ly, 1, (lx + 2) * 4.0 * FLT_EPSILON);
  EXPECT_LE(wr.ratio, 1.0) << "worst y[" << wr.i << "] got " << wr.got << " want " << wr.want
                           << " (error/bound " << wr.ratio << ")";
  EXPECT_EQ(got.damaged_guards(), 0) << "y's guards or gaps were written";
  ++*ran;
}

std::vector<Case> cases() {
  struct Shape { int m, n; };
  const Shape shapes[] = {{1, 1},     {3, 3},      {31, 33},  {33, 31},     {64, 1000},
                          {1000, 64}, {1000, 1000}, {4097, 33}, {33, 4097}, {100000, 3},
                          {3, 100000}, {3000, 700}};
  const int incs[] = {-3, -1, 1, 2};
  const float ab[][2] = {{1.f, 0.f}, {-1.f, 1.f}, {0.5f, -0.5f}, {2.f, 0.f}, {-0.75f, 0.25f}};
  std::vector<Case> out;
  int rot = 0;
  for (const Shape& s : shapes)
    for (char t : {'N', 'T'}) {
      const bool small = int64_t(s.m) * s.n <= 33 * 33;
      // Leading dimensions: exact (often not a multiple of 4), rounded up to 4 (float4 path with
      // ragged rows), and padded by 3.
      const int ldas[] = {s.m, (s.m + 3) / 4 * 4, s.m + 3};
      for (int li = 0; li < 3; ++li) {
        for (int ix = 0; ix < 4; ++ix)
          for (int iy = 0; iy < 4; ++iy) {
            // Small shapes: every increment pair; larger ones: a rotating few.
            if (!small && (ix + iy + li) % 5 != 0) continue;
            const float* v = ab[rot++ % 5];
            out.push_back({t, s.m, s.n, ldas[li], incs[ix], incs[iy], v[0], v[1], 0});
          }
      }
      // Misaligned A, x and y (unit strides, so only the pointers are off).
      out.push_back({t, s.m, s.n, (s.m + 3) / 4 * 4, 1, 1, 1.f, 0.f, 1});
      out.push_back({t, s.m, s.n, (s.m + 3) / 4 * 4, -1, 2, 0.5f, 1.f, 1});
    }
  // alpha == 0: y := beta*y without reading A or x; beta == 0 with NaN in y gives zeros.
  out.push_back({'N', 33, 31, 33, 2, -1, 0.f, 0.5f, 0});
  out.push_back({'T', 31, 33, 31, 1, -3, 0.f, 0.f, 0});
  return out;
}

class SgemvKernelTest : public ::testing::TestWithParam<SgemvKernel> {};

TEST_P(SgemvKernelTest, MatchesOpenBlas) {
  REQUIRE_GPU();
  const SgemvKernel k = GetParam();
  int ran = 0;
  for (const Case& c : cases()) {
    run_case(k, c, &ran);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(ran, 100) << "too few cases ran";
}

std::vector<SgemvKernel> all_kernels() {
  std::vector<SgemvKernel> v;
  for (int i = 0; i < myblas::kSgemvKernelCount; ++i) v.push_back(SgemvKernel(i));
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, SgemvKernelTest, ::testing::ValuesIn(all_kernels()),
                         [](const ::testing::TestParamInfo<SgemvKernel>& i) {
                           return std::string(myblas::sgemv_kernel_name(i.param));
                         });

TEST(SgemvKernelTable, NamesRoundTrip) {
  for (SgemvKernel k : all_kernels()) {
    SgemvKernel back;
    ASSERT_TRUE(myblas::sgemv_kernel_from_name(myblas::sgemv_kernel_name(k), &back));
    EXPECT_EQ(back, k);
  }
  SgemvKernel dummy;
  EXPECT_FALSE(myblas::sgemv_kernel_from_name("sgemv_fast", &dummy));
  EXPECT_FALSE(myblas::sgemv_kernel_from_name(nullptr, &dummy));
}

TEST(SgemvKernelTable, ChooseReturnsAProductionKernelThatCanRun) {
  float dummy[4];
  for (char t : {'N', 'T'})
    for (int m : {1, 64, 256, 1000, 4096, 100000, 1048576})
      for (int n : {1, 64, 256, 1000, 4096, 100000, 1048576}) {
        myblas::GemvProblem p;
        p.ta = t == 'N' ? myblas::Op::N : myblas::Op::T;
        p.m = m;
        p.n = n;
        p.lda = m;
        p.a = p.x = dummy;
        p.y = dummy;
        const SgemvKernel k = myblas::sgemv_choose(p);
        EXPECT_TRUE(myblas::sgemv_kernel_is_production(k)) << t << " " << m << "x" << n;
        EXPECT_EQ(myblas::sgemv_can_implement(k, p), nullptr) << t << " " << m << "x" << n;
      }
}

// t_lanegroup_blocksplit splits each column's rows over RS = 1, 2, 4 or 8 warps of a block (at
// least 512 rows a warp; rows per split a multiple of 128): m = 700 (RS 1), 1024 (2 even
// splits), 1537 (2, the second 641 rows), 2049 (4 splits of 640, the last 129 rows) and 4100 (8
// splits of 640: the seventh 260 rows, the eighth empty), odd numbers of columns (the last
// block's columns past n), every lda kind, negative and non-unit increments,
// misaligned pointers, NaN y with beta = 0; run_case also checks the guards and that a second
// run is bitwise equal.
TEST(SgemvKernelBlocksplit, EverySplitCount) {
  REQUIRE_GPU();
  int ran = 0, v = 0;
  for (int m : {700, 1024, 1537, 2049, 4100})
    for (int n : {1, 7, 301}) {
      const int ldas[] = {m, (m + 3) / 4 * 4, m + 3};
      const int incs[][2] = {{1, 1}, {-3, 2}, {2, -1}};
      const int k = v++ % 3;
      run_case(SgemvKernel::t_lanegroup_blocksplit,
               {'T', m, n, ldas[k], incs[k][0], incs[k][1], k == 1 ? -0.5f : 1.f, k == 2 ? 0.75f : 0.f, k == 2 ? 1 : 0},
               &ran);
      if (HasFatalFailure()) return;
    }
  EXPECT_EQ(ran, 15);
}

// n_lanes with each lane count forced: blocks of R = 32, 64 and 128 rows, m one short of a
// block, three blocks and three blocks plus 5 rows (a partial last block), n around the 32-column
// chunks of the pipelined stream (33: one chunk and a 1-column tail; 300: a warp range of 64
// columns, the last warp short; 1031), every lda kind, negative and non-unit increments,
// misaligned pointers (the scalar loads), NaN y with beta = 0, alpha and beta values; run_case
// also checks the guards and that a second run is bitwise equal.
TEST(SgemvKernelLanes, EveryLaneCount) {
  REQUIRE_GPU();
  int ran = 0, v = 0;
  for (int lanes : {8, 16, 32})
    for (int m : {4 * lanes - 1, 12 * lanes, 12 * lanes + 5})
      for (int n : {33, 300, 1031}) {
        const int ldas[] = {m, (m + 3) / 4 * 4, m + 3, (m + 3) / 4 * 4 + 8};
        const int incs[][2] = {{1, 1}, {-3, 2}, {2, -1}, {1, -1}};
        const int k = v++ % 4;
        const Case c{'N', m, n, ldas[k], incs[k][0], incs[k][1], k == 1 ? -0.5f : 1.f,
                     k == 2 ? 0.75f : 0.f, k == 3 ? 1 : 0};
        run_case(SgemvKernel::n_lanes, c, &ran, lanes);
        if (HasFatalFailure()) return;
      }
  EXPECT_EQ(ran, 27);
}

// n_sweep at each row-quad count (a thread's 1, 2 or 4 float4 of a column: m up to 1024, 2048,
// 4096) and around its edges: m of 1 and 3 rows, one short of and at each limit, one past the
// first two; n of fewer chunks than blocks (5, 17), and several round-robin passes with a
// partial last chunk (8003, 4099); every lda kind, negative and non-unit increments, misaligned
// pointers (the scalar loads), NaN y with beta = 0, alpha and beta values. run_case checks the
// guards and that a second run is bitwise equal. m = 4097 is refused (the common list).
TEST(SgemvKernelSweep, RowQuadsAndChunks) {
  REQUIRE_GPU();
  int ran = 0, v = 0;
  for (int m : {1, 3, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096})
    for (int n : {5, 17, 4099, 8003}) {
      const int ldas[] = {m, (m + 3) / 4 * 4, m + 3, (m + 3) / 4 * 4 + 8};
      const int incs[][2] = {{1, 1}, {-3, 2}, {2, -1}, {1, -1}};
      const int k = v++ % 4;
      const Case c{'N', m, n, ldas[k], incs[k][0], incs[k][1], k == 1 ? -0.5f : 1.f, k == 2 ? 0.75f : 0.f,
                   k == 3 ? 1 : 0};
      run_case(SgemvKernel::n_sweep, c, &ran);
      if (HasFatalFailure()) return;
    }
  EXPECT_EQ(ran, 40);
}

// The single-pass split kernels elect the last block of each group with a counter in their
// scratch: calls in flight at the same time on two streams must not share counters or partial
// sums (the cluster kernels have no scratch: they are here as the same check). Each
// stream runs 12 calls with its own x into its own NaN-poisoned y; every result must equal,
// bit for bit, the same call run alone (itself checked against a float64 host sum).
TEST(SgemvKernelConcurrency, LastblockOnTwoStreams) {
  REQUIRE_GPU();
  constexpr int kIters = 12;
  struct Shape { SgemvKernel k; char t; int m, n; };
  // Shapes that split: N with 8 row blocks (dozens of column splits), T with 63 column blocks.
  const Shape shapes[] = {{SgemvKernel::n_rowblock_lastblock, 'N', 1000, 20000},
                          {SgemvKernel::t_lanegroup_lastblock, 'T', 20000, 1000},
                          {SgemvKernel::n_rowblock_cluster, 'N', 1000, 20000},
                          {SgemvKernel::t_lanegroup_cluster, 'T', 20000, 1000},
                          {SgemvKernel::n_sweep, 'N', 1000, 20000}};
  for (const Shape& sh : shapes) {
    SCOPED_TRACE(std::string(myblas::sgemv_kernel_name(sh.k)) + " " + sh.t + " " + std::to_string(sh.m) +
                 "x" + std::to_string(sh.n) + " seed " + std::to_string(mbtest::test_seed()));
    const int lx = sh.t == 'N' ? sh.n : sh.m, ly = sh.t == 'N' ? sh.m : sh.n;
    std::mt19937 rng(uint32_t(mbtest::test_seed()) ^ 0x5a5au);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    std::vector<float> ha(size_t(sh.m) * sh.n), hx[2] = {std::vector<float>(size_t(lx)), std::vector<float>(size_t(lx))};
    for (auto& v : ha) v = d(rng);
    for (auto& xv : hx)
      for (auto& v : xv) v = d(rng);
    DevBuf da(ha, 0), dx0(hx[0], 0), dx1(hx[1], 0);
    const DevBuf* dxs[2] = {&dx0, &dx1};
    std::vector<float> nan_y(size_t(ly) * (kIters + 1), std::nanf(""));
    DevBuf dy0(nan_y, 0), dy1(nan_y, 0);  // slot 0: the call alone; 1..kIters: concurrent calls
    DevBuf* dys[2] = {&dy0, &dy1};
    auto problem = [&](int s, int slot) {
      myblas::GemvProblem p;
      p.ta = sh.t == 'N' ? myblas::Op::N : myblas::Op::T;
      p.m = sh.m;
      p.n = sh.n;
      p.lda = sh.m;
      p.alpha = 1.f;
      p.beta = 0.f;
      p.a = da.ptr;
      p.x = dxs[s]->ptr;
      p.y = dys[s]->ptr + size_t(slot) * ly;
      p.mem_a = p.mem_x = p.mem_y = myblas::Mem::device;
      return p;
    };
    ASSERT_EQ(myblas::sgemv_run(sh.k, problem(0, 0), nullptr), cudaSuccess);
    ASSERT_EQ(myblas::sgemv_run(sh.k, problem(1, 0), nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaStream_t st[2];
    ASSERT_EQ(cudaStreamCreateWithFlags(&st[0], cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&st[1], cudaStreamNonBlocking), cudaSuccess);
    for (int it = 1; it <= kIters; ++it)
      for (int s = 0; s < 2; ++s) ASSERT_EQ(myblas::sgemv_run(sh.k, problem(s, it), st[s]), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaStreamDestroy(st[0]);
    cudaStreamDestroy(st[1]);
    for (int s = 0; s < 2; ++s) {
      std::vector<float> got(nan_y.size());
      dys[s]->download(&got);
      // The call alone against float64.
      double worst = 0;
      for (int i = 0; i < ly; ++i) {
        double want = 0, scale = 0;
        for (int l = 0; l < lx; ++l) {
          const double a = sh.t == 'N' ? ha[size_t(l) * sh.m + i] : ha[size_t(i) * sh.m + l];
          want += a * hx[s][size_t(l)];
          scale += std::fabs(a * hx[s][size_t(l)]);
        }
        const double r = std::fabs(got[size_t(i)] - want) / ((lx + 2) * 4.0 * FLT_EPSILON * scale);
        if (!(r <= worst)) worst = r;
      }
      EXPECT_LE(worst, 1.0) << "stream " << s << ": the call alone is wrong (error/bound)";
      for (int it = 1; it <= kIters; ++it)
        EXPECT_EQ(std::memcmp(got.data(), got.data() + size_t(it) * ly, size_t(ly) * sizeof(float)), 0)
            << "stream " << s << " call " << it << " differs from the call alone";
    }
  }
}

// The cluster kernels with each cluster size the benchmark sweeps (1 = no cluster), and for N
// both block heights (128 and 256 rows), on shapes whose splits are ragged or empty (4097 rows
// in 16 splits of 384; 33 columns in 16 splits), misaligned A and strided, negative
// increments: each result against a float64 host sum, and two runs of the same size bitwise
// equal.
TEST(SgemvKernelCluster, EveryClusterSize) {
  REQUIRE_GPU();
  struct Shape { SgemvKernel k; char t; int m, n, lda, incx, incy, offset; };
  const Shape shapes[] = {{SgemvKernel::n_rowblock_cluster, 'N', 1000, 1000, 1000, 1, 1, 0},
                          {SgemvKernel::n_rowblock_cluster, 'N', 33, 4097, 36, -3, 2, 0},
                          {SgemvKernel::n_rowblock_cluster, 'N', 257, 33, 257, 1, -1, 1},
                          // Aligned, >= 256 columns per warp at C = 1 and 2 with at most one
                          // block per SM: the software-pipelined stream (stream_full_rows), its
                          // column tail, and (m = 300) a last row block that takes the plain loop.
                          {SgemvKernel::n_rowblock_cluster, 'N', 256, 4100, 260, 1, 1, 0},
                          {SgemvKernel::n_rowblock_cluster, 'N', 300, 4099, 300, -3, 2, 0},
                          // 256-row blocks (row_warps 2): a last block with one row (513) and
                          // one whose second warp has no rows (300, above), ragged splits.
                          {SgemvKernel::n_rowblock_cluster, 'N', 513, 2049, 516, -1, -3, 0},
                          {SgemvKernel::t_lanegroup_cluster, 'T', 1000, 1000, 1000, 1, 1, 0},
                          {SgemvKernel::t_lanegroup_cluster, 'T', 4097, 33, 4100, 2, -3, 0},
                          {SgemvKernel::t_lanegroup_cluster, 'T', 2000, 9, 2001, 1, 1, 1}};
  for (const Shape& sh : shapes) {
    const int lx = sh.t == 'N' ? sh.n : sh.m, ly = sh.t == 'N' ? sh.m : sh.n;
    std::mt19937_64 rng(mbtest::test_seed() ^ uint64_t(sh.m * 31 + sh.n));
    mbtest::Matrix a(sh.m, sh.n, sh.lda, rng);
    mbtest::Vector x(lx, sh.incx, rng), y(ly, sh.incy, rng);
    y.fill_nan();  // beta == 0: y is never read
    DevBuf da(a.buf, sh.offset), dx(x.buf, sh.offset), dy(y.buf, sh.offset);
    myblas::GemvProblem p;
    p.ta = sh.t == 'N' ? myblas::Op::N : myblas::Op::T;
    p.m = sh.m;
    p.n = sh.n;
    p.lda = sh.lda;
    p.incx = sh.incx;
    p.incy = sh.incy;
    p.alpha = -0.5f;
    p.beta = 0.f;
    p.a = da.ptr + mbtest::Matrix::kPad;
    p.x = dx.ptr + mbtest::Vector::kPad;
    p.y = dy.ptr + mbtest::Vector::kPad;
    p.mem_a = p.mem_x = p.mem_y = myblas::Mem::device;
    for (int v = 0; v < 10; ++v) {  // row_warps 1 and 2, each with cluster sizes 1, 2, 4, 8, 16
      const int rw = 1 + v / 5, c = 1 << (v % 5);
      if (rw == 2 && sh.k != SgemvKernel::n_rowblock_cluster) continue;
      SCOPED_TRACE(std::string(myblas::sgemv_kernel_name(sh.k)) + " " + sh.t + " " + std::to_string(sh.m) + "x" +
                   std::to_string(sh.n) + " cluster " + std::to_string(c) + " row_warps " + std::to_string(rw) +
                   " seed " + std::to_string(mbtest::test_seed()));
      mbtest::Vector got = y, again = y;
      dy.upload(y.buf);
      ASSERT_EQ(myblas::sgemv_run_cluster(sh.k, p, c, nullptr, rw), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      dy.download(&got.buf);
      dy.upload(y.buf);
      ASSERT_EQ(myblas::sgemv_run_cluster(sh.k, p, c, nullptr, rw), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      dy.download(&again.buf);
      EXPECT_EQ(std::memcmp(got.buf.data(), again.buf.data(), got.buf.size() * sizeof(float)), 0) << "two runs differ";
      EXPECT_EQ(got.damaged_guards(), 0) << "y's guards or gaps were written";
      double worst = 0;
      int worst_i = 0;
      for (int i = 0; i < ly; ++i) {
        double want = 0, scale = 0;
        for (int l = 0; l < lx; ++l) {
          const double v = double(sh.t == 'N' ? a.at(i, l) : a.at(l, i)) * x.at(l);
          want += v;
          scale += std::fabs(v);
        }
        want *= p.alpha;
        const double r = std::fabs(got.at(i) - want) / ((lx + 2) * 4.0 * FLT_EPSILON * 0.5 * scale);
        if (!(r <= worst)) {
          worst = r;
          worst_i = i;
        }
      }
      EXPECT_LE(worst, 1.0) << "worst y[" << worst_i << "] got " << got.at(worst_i) << " (error/bound)";
    }
  }
}

// n_rowblock_cluster's automatic configurations (launch_n_rowblock: 1 streamed 128-row blocks,
// 2 streamed 256-row blocks, 3 one block per SM with up to 16-block clusters, 4 more row blocks
// than SMs), each on shapes at and around its edges (on a 132-SM H100: 300 x 16400 takes 1 with
// C = 8 and a ragged last row block; 513 x 4100 and 300 x 4099 take 2 with C = 8, a last block
// of 1 row / a second warp with no rows; 4096^2 takes 2 (16 x 8 blocks); 1024 x 1024 takes 3
// with C = 16, 1000 x 1000 with C = 8; 20000 x 300 takes 4 with C = 2), with padded lda and
// guards, increments in {-3, -1, 1, 2}, NaN in y with beta == 0, misaligned operands (which
// fall back to scalar loads and 128-row blocks), against OpenBLAS, two runs bitwise equal.
TEST(SgemvKernelCluster, AutomaticConfigurations) {
  REQUIRE_GPU();
  struct Shape { int m, n; };
  const Shape shapes[] = {{300, 16400}, {513, 4100}, {300, 4099}, {4096, 4096}, {1024, 1024}, {1000, 1000}, {20000, 300}};
  int ran = 0;
  for (const Shape& sh : shapes) {
    const int lda4 = (sh.m + 3) / 4 * 4;
    const Case cs[] = {{'N', sh.m, sh.n, lda4, 1, 1, 1.f, 0.f, 0},
                       {'N', sh.m, sh.n, lda4 + 4, -3, 2, 0.5f, -0.5f, 0},
                       {'N', sh.m, sh.n, lda4 + 8, -1, -1, -1.f, 1.f, 0},
                       {'N', sh.m, sh.n, lda4, 2, -3, 2.f, 0.f, 0},
                       {'N', sh.m, sh.n, sh.m + 3, 1, 1, 1.f, 0.f, 0},
                       {'N', sh.m, sh.n, lda4, 1, -1, -0.75f, 0.25f, 1}};
    for (const Case& c : cs) {
      run_case(SgemvKernel::n_rowblock_cluster, c, &ran);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(ran, 6 * 7);
}

// Rows and columns past 2^31 elements of A: 64-bit offsets (needs 8.6 GB; skipped if absent).
TEST(SgemvKernelTest64, DeviceLargeOffsets) {
  REQUIRE_GPU();
  const int m = 3, n = 1 << 20, lda = 2100;  // last column starts at 2.2e9 elements
  const size_t count = size_t(lda) * (n - 1) + m;
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  if (free_b < count * sizeof(float) + (1u << 30)) GTEST_SKIP() << "not enough device memory";
  float *a, *x, *y;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&a), count * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&x), n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&y), n * sizeof(float)), cudaSuccess);
  // A = 0 except the last column (rows 0..2) = 1, 2, 3; x = 1 everywhere.
  ASSERT_EQ(cudaMemset(a, 0, count * sizeof(float)), cudaSuccess);
  const float last[3] = {1.f, 2.f, 3.f};
  ASSERT_EQ(cudaMemcpy(a + size_t(lda) * (n - 1), last, sizeof last, cudaMemcpyHostToDevice), cudaSuccess);
  std::vector<float> ones(size_t(n), 1.f);
  ASSERT_EQ(cudaMemcpy(x, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  for (SgemvKernel k : all_kernels()) {
    for (char t : {'N', 'T'}) {
      myblas::GemvProblem p;
      p.ta = t == 'N' ? myblas::Op::N : myblas::Op::T;
      p.m = m;
      p.n = n;
      p.lda = lda;
      p.a = a;
      p.x = x;
      p.y = y;
      if (myblas::sgemv_can_implement(k, p)) continue;
      if (k == SgemvKernel::thread_per_row || k == SgemvKernel::warp_per_column ||
          k == SgemvKernel::x_shared)
        if (t == 'N') continue;  // 3 threads walking 2^20 columns: correct but slow
      ASSERT_EQ(myblas::sgemv_run(k, p, nullptr), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      if (t == 'N') {
        float got[3];
        ASSERT_EQ(cudaMemcpy(got, y, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(got[0], 1.f) << myblas::sgemv_kernel_name(k);
        EXPECT_EQ(got[2], 3.f) << myblas::sgemv_kernel_name(k);
      } else {
        float got[2];
        ASSERT_EQ(cudaMemcpy(got, y + n - 2, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(got[0], 0.f) << myblas::sgemv_kernel_name(k);
        EXPECT_EQ(got[1], 6.f) << myblas::sgemv_kernel_name(k);
      }
    }
  }
  cudaFree(a);
  cudaFree(x);
  cudaFree(y);
}

}  // namespace
