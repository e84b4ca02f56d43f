// Every HGEMM kernel (every HgemmKernel value, so kernels added later are covered) called
// directly on device pointers and compared with OpenBLAS SGEMM on the same binary16 inputs
// widened to float: sizes around the 64, 128 and 256 tile edges (tile-1, tile, tile+1) and the
// 32-wide k tiles, odd sizes (1, 3, 17), a long k (1000), all four transposes, padded leading
// dimensions with guards that must survive, operands misaligned by one and by two halves with odd
// or non-multiple-of-8 leading dimensions, NaN in C with beta == 0, alpha/beta in {1, -1, 0.5} x
// {0, 1, -1, 0.5}, and two runs that must agree bit for bit. Error bound per element:
//   |ref| * 2^-11 + 2^-25                      (one rounding of the result to binary16)
//   + (k + 2) * 2 * eps_fp32 * (|alpha| sum_l |op(A)(i,l)| |op(B)(l,j)| + |beta| |C0(i,j)|)
// (FP32 accumulation on the tensor cores, which may truncate, and in the reference).
// A kernel may refuse a case only when an operand is not 16-byte aligned or its leading
// dimension is not a multiple of 8 (TMA-fed kernels need that); aligned cases must run.
// MYBLAS_HGEMM_TEST_SHORT=1 keeps four small shapes, for compute-sanitizer runs.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <myblas.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "kernels/hgemm.h"
#include "kernels/hgemm/wgmma_splitk_plan.h"

#include "kernel_test_util.h"

namespace {

using myblas::HgemmKernel;

#define REQUIRE_GPU() KERNEL_TEST_REQUIRE_GPU("HGEMM kernels")

constexpr uint16_t kNanHalf = 0x7E00;

// A column-major binary16 matrix in a buffer with leading dimension ld and kPad guard halves
// before and after; data are random binary16 values in [-1, 1], never zero; padding = guard.
struct HalfMat {
  static constexpr int kPad = 16;
  int rows = 0, cols = 0, ld = 1;
  std::vector<uint16_t> buf;
  HalfMat(int r, int c, int l, std::mt19937_64& rng) : rows(r), cols(c), ld(l) {
    buf.assign(size_t(kPad) * 2 + size_t(ld) * size_t(cols), mbtest::kGuardHalf);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) {
        uint16_t h;
        do h = myblas_float_to_half(mbtest::uniform(rng));
        while ((h & 0x7fff) == 0);
        at(i, j) = h;
      }
  }
  uint16_t* data() { return buf.data() + kPad; }
  uint16_t& at(int i, int j) { return data()[i + int64_t(j) * ld]; }
  uint16_t at(int i, int j) const { return buf[kPad + i + size_t(j) * ld]; }
  float value(int i, int j) const { return myblas_half_to_float(at(i, j)); }
  // The same matrix widened to float (same leading dimension), for the reference.
  std::vector<float> widened() const {
    std::vector<float> v(size_t(ld) * cols, 0.f);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) v[i + size_t(j) * ld] = value(i, j);
    return v;
  }
  void fill_nan() {
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) at(i, j) = kNanHalf;
  }
  int64_t damaged_guards() const {
    int64_t bad = 0;
    for (int i = 0; i < kPad; ++i) {
      bad += buf[size_t(i)] != mbtest::kGuardHalf;
      bad += buf[buf.size() - 1 - size_t(i)] != mbtest::kGuardHalf;
    }
    for (int j = 0; j < cols; ++j)
      for (int i = rows; i < ld; ++i) bad += at(i, j) != mbtest::kGuardHalf;
    return bad;
  }
};

// A host buffer of halves mirrored on the device, `offset` halves past a 256-byte aligned address.
struct DevHalf {
  uint16_t* base = nullptr;
  uint16_t* ptr = nullptr;
  size_t count = 0;
  DevHalf(const std::vector<uint16_t>& host, int offset) : count(host.size()) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&base), (count + 8) * sizeof(uint16_t)), cudaSuccess);
    ptr = base + offset;
    upload(host);
  }
  ~DevHalf() { cudaFree(base); }
  void upload(const std::vector<uint16_t>& host) {
    EXPECT_EQ(cudaMemcpy(ptr, host.data(), count * 2, cudaMemcpyHostToDevice), cudaSuccess);
  }
  void download(std::vector<uint16_t>* host) const {
    EXPECT_EQ(cudaMemcpy(host->data(), ptr, count * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  }
};

struct Case {
  char ta, tb;
  int m, n, k;
  int lda, ldb, ldc;
  float alpha, beta;
  int offset;  // halves added to the A, B and C addresses (1, 2: not 16-byte aligned)
  std::string str() const {
    std::ostringstream o;
    o << ta << tb << " m=" << m << " n=" << n << " k=" << k << " lda=" << lda << " ldb=" << ldb
      << " ldc=" << ldc << " alpha=" << alpha << " beta=" << beta << " offset=" << offset;
    return o.str();
  }
  bool aligned() const { return offset == 0 && lda % 8 == 0 && ldb % 8 == 0; }
};

// Whether kernel k must run case c when its operands are aligned: every kernel takes every shape
// and transpose but the streaming kernel, whose domain is m <= 64 with B 'N' or n <= 64 with A 'T'.
bool in_domain(HgemmKernel k, const Case& c) {
  if (k != HgemmKernel::skinny_stream) return true;
  return (c.m <= 64 && c.tb == 'N') || (c.n <= 64 && c.ta == 'T');
}

void run_case(HgemmKernel k, const Case& c, int* ran) {
  SCOPED_TRACE(std::string(myblas::hgemm_kernel_name(k)) + " " + c.str() + " seed " +
               std::to_string(mbtest::test_seed()));
  std::mt19937_64 rng(mbtest::test_seed() ^ (uint64_t(c.m) * 7919u + uint64_t(c.n) * 104729u +
                                             uint64_t(c.k) * 31u + uint64_t(c.ta) * 3u + c.tb));
  const int ar = c.ta == 'N' ? c.m : c.k, ac = c.ta == 'N' ? c.k : c.m;
  const int br = c.tb == 'N' ? c.k : c.n, bc = c.tb == 'N' ? c.n : c.k;
  HalfMat a(ar, ac, c.lda, rng), b(br, bc, c.ldb, rng), cm(c.m, c.n, c.ldc, rng);
  const HalfMat c0 = cm;
  if (c.beta == 0.f) cm.fill_nan();

  myblas::GemmProblem p;
  p.routine = myblas::Routine::hgemm;
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

  DevHalf da(a.buf, c.offset), db(b.buf, c.offset), dc(cm.buf, c.offset);
  p.a = da.ptr + HalfMat::kPad;
  p.b = db.ptr + HalfMat::kPad;
  p.c = dc.ptr + HalfMat::kPad;

  const char* reason = myblas::hgemm_can_implement(k, p);
  if (reason && (!c.aligned() || !in_domain(k, c))) return;  // allowed: alignment, or outside the kernel's shapes
  ASSERT_EQ(reason, nullptr) << "refused an aligned problem: " << reason;

  // Reference: OpenBLAS SGEMM on the widened inputs (FP32 result, not yet rounded).
  const std::vector<float> fa = a.widened(), fb = b.widened(), fc0 = c0.widened();
  std::vector<float> want = fc0;
  mbtest::ref_sgemm(c.ta, c.tb, c.m, c.n, c.k, c.alpha, fa.data(), c.lda, fb.data(), c.ldb, c.beta,
                    want.data(), c.ldc);

  ASSERT_EQ(myblas::hgemm_run(k, p, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  HalfMat got = cm;
  dc.download(&got.buf);
  dc.upload(cm.buf);
  ASSERT_EQ(myblas::hgemm_run(k, p, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  HalfMat again = cm;
  dc.download(&again.buf);
  EXPECT_EQ(std::memcmp(got.buf.data(), again.buf.data(), got.buf.size() * 2), 0) << "two runs differ";

  auto opa = [&](int i, int l) { return c.ta == 'N' ? fa[i + size_t(l) * c.lda] : fa[l + size_t(i) * c.lda]; };
  auto opb = [&](int l, int j) { return c.tb == 'N' ? fb[l + size_t(j) * c.ldb] : fb[j + size_t(l) * c.ldb]; };
  std::vector<double> absa(size_t(c.k));
  double worst = 0;
  int wi = -1, wj = -1;
  for (int i = 0; i < c.m; ++i) {
    for (int l = 0; l < c.k; ++l) absa[size_t(l)] = std::fabs(opa(i, l));
    for (int j = 0; j < c.n; ++j) {
      double s = 0;
      for (int l = 0; l < c.k; ++l) s += absa[size_t(l)] * std::fabs(opb(l, j));
      const double scale = std::fabs(c.alpha) * s + (c.beta == 0.f ? 0.0 : std::fabs(c.beta * c0.value(i, j)));
      const double ref = want[i + size_t(j) * c.ldc];
      const double bound = std::fabs(ref) * std::ldexp(1.0, -11) + std::ldexp(1.0, -25) +
                           (c.k + 2) * 2.0 * FLT_EPSILON * scale;
      const double g = got.value(i, j);
      const double r = std::isnan(g) ? INFINITY : std::fabs(g - ref) / bound;
      if (!(r <= worst)) {
        worst = r;
        wi = i;
        wj = j;
      }
    }
  }
  EXPECT_LE(worst, 1.0) << "worst C(" << wi << "," << wj << ") got "
                        << (wi >= 0 ? got.value(wi, wj) : 0.f) << " want "
                        << (wi >= 0 ? want[wi + size_t(wj) * c.ldc] : 0.f) << " (error/bound " << worst
                        << ", reference " << mbtest::ref_name() << ")";
  EXPECT_EQ(got.damaged_guards(), 0) << "C's guards or padding were written";
  ++*ran;
}

int short_run() {
  const char* s = std::getenv("MYBLAS_HGEMM_TEST_SHORT");
  return s && *s ? std::atoi(s) : 0;
}

std::vector<Case> cases() {
  struct Shape { int m, n, k; };
  const std::vector<Shape> all = {
      {1, 1, 1},       {3, 5, 7},       {17, 17, 17},    {63, 65, 64},    {64, 64, 64},
      {65, 63, 33},    {127, 129, 128}, {128, 128, 32},  {129, 127, 31},  {255, 257, 256},
      {256, 256, 64},  {257, 255, 65},  {129, 257, 1000}, {16, 300, 520}, {300, 9, 130}, {40, 200, 3000}, {70, 33, 2049}};
  const std::vector<Shape> few = {{17, 17, 17}, {65, 63, 33}, {129, 127, 31}, {16, 300, 72}};
  // (alpha, beta): beta == 0 cases get NaN in C.
  const float ab[][2] = {{1.f, 0.f}, {-1.f, 1.f}, {0.5f, -1.f}, {1.f, 0.5f}, {-1.f, 0.f}, {0.5f, 1.f}, {1.f, -1.f}};
  std::vector<Case> out;
  int rot = 0;
  for (const Shape& s : short_run() ? few : all)
    for (char ta : {'N', 'T'})
      for (char tb : {'N', 'T'}) {
        const int ar = ta == 'N' ? s.m : s.k, br = tb == 'N' ? s.k : s.n;
        auto up8 = [](int x) { return (x + 7) / 8 * 8; };
        auto even = [](int x) { return x % 2 ? x + 1 : x + 2; };
        // Exact leading dimensions; padded multiples of 8 (16-byte paths, guards in the padding);
        // odd padding with every pointer one half off; even, not multiple-of-8 padding with every
        // pointer two halves (4 bytes) off 16-byte alignment.
        struct V { int lda, ldb, ldc, offset; };
        const V vs[4] = {{ar, br, s.m, 0},
                         {up8(ar) + 8, up8(br) + 8, up8(s.m) + 8, 0},
                         {ar + 3, br + 1, s.m + 5, 1},
                         {even(ar) % 8 ? even(ar) : even(ar) + 2, even(br) % 8 ? even(br) : even(br) + 2,
                          even(s.m), 2}};
        for (const V& v : vs) {
          const float* x = ab[rot++ % 7];
          out.push_back({ta, tb, s.m, s.n, s.k, v.lda, v.ldb, v.ldc, x[0], x[1], v.offset});
        }
      }
  return out;
}

class HgemmKernelTest : public ::testing::TestWithParam<HgemmKernel> {};

TEST_P(HgemmKernelTest, MatchesOpenBlasOnWidenedInputs) {
  REQUIRE_GPU();
  const HgemmKernel k = GetParam();
  int ran = 0, aligned = 0;
  for (const Case& c : cases()) {
    aligned += c.aligned() && in_domain(k, c);
    run_case(k, c, &ran);
    if (HasFatalFailure()) return;
  }
  EXPECT_GE(ran, aligned) << "too few cases ran";
}

std::vector<HgemmKernel> all_kernels() {
  std::vector<HgemmKernel> v;
  for (int i = 0; i < myblas::kHgemmKernelCount; ++i) v.push_back(HgemmKernel(i));
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, HgemmKernelTest, ::testing::ValuesIn(all_kernels()),
                         [](const ::testing::TestParamInfo<HgemmKernel>& i) {
                           return std::string(myblas::hgemm_kernel_name(i.param));
                         });

// The wgmma kernel on sbgemm and shgemm problems: bfloat16 or binary16 A and B, FP32 C (no
// rounding of the result, so the bound is the FP32 accumulation term alone). Tile edges, the four
// transposes, padded leading dimensions with guards, C misaligned by one float with an odd ldc
// (A and B stay TMA-aligned), NaN in C with beta == 0, and two runs that must agree bit for bit;
// the same for the split-k cluster kernels. The other rungs must refuse these problems.
uint16_t to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
float from_bf16(uint16_t h) {
  const uint32_t x = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

void run_mixed_case(myblas::Routine r, const Case& c, int c_offset) {
  const bool bf16 = r == myblas::Routine::sbgemm;
  SCOPED_TRACE(std::string(bf16 ? "sbgemm " : "shgemm ") + c.str() + " c_offset=" + std::to_string(c_offset) +
               " seed " + std::to_string(mbtest::test_seed()));
  std::mt19937_64 rng(mbtest::test_seed() ^ (uint64_t(c.m) * 7919u + uint64_t(c.n) * 104729u + uint64_t(c.k) * 31u +
                                             uint64_t(c.ta) * 3u + c.tb + (bf16 ? 17u : 0u)));
  const int ar = c.ta == 'N' ? c.m : c.k, ac = c.ta == 'N' ? c.k : c.m;
  const int br = c.tb == 'N' ? c.k : c.n, bc = c.tb == 'N' ? c.n : c.k;
  auto make16 = [&](int rows, int cols, int ld, std::vector<float>* wide) {
    std::vector<uint16_t> h(size_t(HalfMat::kPad) * 2 + size_t(ld) * cols, mbtest::kGuardHalf);
    wide->assign(size_t(ld) * cols, 0.f);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) {
        const float v = mbtest::uniform(rng);
        const uint16_t x = bf16 ? to_bf16(v) : myblas_float_to_half(v);
        h[HalfMat::kPad + i + size_t(j) * ld] = x;
        (*wide)[i + size_t(j) * ld] = bf16 ? from_bf16(x) : myblas_half_to_float(x);
      }
    return h;
  };
  std::vector<float> fa, fb;
  const std::vector<uint16_t> ha = make16(ar, ac, c.lda, &fa), hb = make16(br, bc, c.ldb, &fb);
  constexpr int kPad = 16;
  std::vector<float> hc(size_t(kPad) * 2 + size_t(c.ldc) * c.n, mbtest::kGuard), c0(size_t(c.ldc) * c.n, 0.f);
  for (int j = 0; j < c.n; ++j)
    for (int i = 0; i < c.m; ++i) {
      c0[i + size_t(j) * c.ldc] = mbtest::uniform(rng);
      hc[kPad + i + size_t(j) * c.ldc] = c.beta == 0.f ? std::nanf("") : c0[i + size_t(j) * c.ldc];
    }
  DevHalf da(ha, 0), db(hb, 0);
  kernel_test::DevBuf dc(hc, c_offset);
  myblas::GemmProblem p;
  p.routine = r;
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
  p.a = da.ptr + HalfMat::kPad;
  p.b = db.ptr + HalfMat::kPad;
  p.c = dc.ptr + kPad;
  p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
  const HgemmKernel takers[] = {HgemmKernel::wgmma_tma, HgemmKernel::splitk_64x128, HgemmKernel::splitk_128x64,
                                HgemmKernel::skinny_stream, HgemmKernel::wgmma_splitk};
  for (int i = 0; i < myblas::kHgemmKernelCount; ++i)
    if (std::find(std::begin(takers), std::end(takers), HgemmKernel(i)) == std::end(takers))
      EXPECT_NE(myblas::hgemm_can_implement(HgemmKernel(i), p), nullptr) << myblas::hgemm_kernel_name(HgemmKernel(i));

  std::vector<float> want = c0;
  mbtest::ref_sgemm(c.ta, c.tb, c.m, c.n, c.k, c.alpha, fa.data(), c.lda, fb.data(), c.ldb, c.beta, want.data(),
                    c.ldc);
  for (HgemmKernel kern : takers) {
    SCOPED_TRACE(myblas::hgemm_kernel_name(kern));
    const char* reason = myblas::hgemm_can_implement(kern, p);
    if (reason && !in_domain(kern, c)) continue;
    ASSERT_EQ(reason, nullptr) << "refused an aligned problem: " << reason;
    std::vector<float> got(hc.size()), again(hc.size());
    dc.upload(hc);
    ASSERT_EQ(myblas::hgemm_run(kern, p, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    dc.download(&got);
    dc.upload(hc);
    ASSERT_EQ(myblas::hgemm_run(kern, p, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    dc.download(&again);
    EXPECT_EQ(std::memcmp(got.data(), again.data(), got.size() * 4), 0) << "two runs differ";

    auto opa = [&](int i, int l) { return c.ta == 'N' ? fa[i + size_t(l) * c.lda] : fa[l + size_t(i) * c.lda]; };
    auto opb = [&](int l, int j) { return c.tb == 'N' ? fb[l + size_t(j) * c.ldb] : fb[j + size_t(l) * c.ldb]; };
    double worst = 0;
    int wi = -1, wj = -1;
    for (int j = 0; j < c.n; ++j)
      for (int i = 0; i < c.m; ++i) {
        double sum = 0;
        for (int l = 0; l < c.k; ++l) sum += std::fabs(double(opa(i, l)) * opb(l, j));
        const double scale =
            std::fabs(c.alpha) * sum + (c.beta == 0.f ? 0.0 : std::fabs(c.beta * c0[i + size_t(j) * c.ldc]));
        const double bound = (c.k + 2) * 2.0 * FLT_EPSILON * scale + 1e-30;
        const double g = got[kPad + i + size_t(j) * c.ldc];
        const double r = std::isnan(g) ? INFINITY : std::fabs(g - want[i + size_t(j) * c.ldc]) / bound;
        if (!(r <= worst)) {
          worst = r;
          wi = i;
          wj = j;
        }
      }
    EXPECT_LE(worst, 1.0) << "worst C(" << wi << "," << wj << ") got "
                          << (wi >= 0 ? got[kPad + wi + size_t(wj) * c.ldc] : 0.f) << " want "
                          << (wi >= 0 ? want[wi + size_t(wj) * c.ldc] : 0.f) << " (error/bound " << worst << ")";
    int64_t damaged = 0;
    for (size_t e = 0; e < got.size(); ++e) {
      const bool inside = e >= size_t(kPad) && e < size_t(kPad) + size_t(c.ldc) * c.n &&
                          int((e - kPad) % size_t(c.ldc)) < c.m;
      if (!inside) damaged += got[e] != mbtest::kGuard;
    }
    EXPECT_EQ(damaged, 0) << "C's guards or padding were written";
  }
}

TEST(HgemmKernelMixedTypes, WgmmaRunsSbgemmAndShgemm) {
  REQUIRE_GPU();
  struct Shape { int m, n, k; };
  const Shape shapes[] = {{1, 1, 1},       {17, 3, 33},     {255, 257, 256}, {256, 128, 64},
                          {257, 129, 1000}, {16, 300, 520}, {300, 9, 130}, {40, 200, 3000}, {70, 33, 2049}};
  const float ab[][2] = {{1.f, 0.f}, {-1.f, 1.f}, {0.5f, -1.f}, {1.f, 0.5f}, {-1.f, 0.f}};
  auto up8 = [](int x) { return (x + 7) / 8 * 8; };
  int rot = 0;
  for (myblas::Routine r : {myblas::Routine::sbgemm, myblas::Routine::shgemm})
    for (const Shape& s : shapes)
      for (char ta : {'N', 'T'})
        for (char tb : {'N', 'T'}) {
          const int ar = ta == 'N' ? s.m : s.k, br = tb == 'N' ? s.k : s.n;
          const float* x = ab[rot++ % 5];
          // Padded multiples of 8 with an aligned C; then an odd ldc with C one float off.
          run_mixed_case(r, {ta, tb, s.m, s.n, s.k, up8(ar) + 8, up8(br), s.m + 8, x[0], x[1], 0}, 0);
          run_mixed_case(r, {ta, tb, s.m, s.n, s.k, up8(ar), up8(br) + 8, s.m + 3, x[1] == 0.f ? 0.5f : x[0], x[1], 0},
                         1);
          if (HasFatalFailure()) return;
        }
}

// The wgmma split-k kernel's copies of its short operand (no GPU; the CPU entry runs in CI): for
// every short side, K-major and MN-major, each column is copied exactly once by a box position the
// kernel stores from (the kernel skips the shifted box's first `shift` columns, as below), every
// MN-major box starts 16-byte aligned (8 columns) inside the tensor and, past 64 columns, ends at
// most 7 columns beyond the last one, and a stage expects the bytes its boxes bring.
TEST(WgmmaSplitkPlan, ShortOperandCopiesCoverEveryColumnOnce) {
  namespace ws = myblas::wsplit;
  for (int s = 1; s <= 320; ++s)
    for (bool mn : {false, true}) {
      SCOPED_TRACE("short side " + std::to_string(s) + (mn ? " MN-major" : " K-major"));
      const int n = ws::tile_n(s);
      const ws::QCopies q = ws::q_copies(s, n, mn);
      const int tiles = (s + n - 1) / n;
      EXPECT_EQ(q.rows % 8, 0);
      EXPECT_LE(q.rows, n);
      EXPECT_LE(q.boxes * ws::kBoxCols, n);
      EXPECT_EQ(q.bytes, mn ? q.boxes * 64 * 64 * 2 : q.rows * 64 * 2);
      std::vector<int> seen(size_t(s), 0);
      for (int t = 0; t < tiles; ++t) {
        const int c0 = t * n;
        if (!mn) {  // one box of q.rows rows from c0
          for (int x = 0; x < q.rows; ++x)
            if (c0 + x < s) ++seen[size_t(c0 + x)];
          continue;
        }
        for (int b = 0; b < q.boxes; ++b) {
          const int start = ws::box_start(q, c0, b);
          EXPECT_EQ(start % 8, 0) << "box " << b;
          EXPECT_GE(start, 0) << "box " << b;
          if (s > ws::kBoxCols && b == q.boxes - 1 && tiles == 1) EXPECT_LE(start + ws::kBoxCols, s + 7);
          for (int e = 0; e < ws::kBoxCols; ++e) {
            const int x = ws::kBoxCols * b + e;  // the tile's column the kernel computes it in
            const bool stored = !(x >= q.shift_from && x - q.shift_from < q.shift);
            if (stored && start + e < s && start + e >= c0 && start + e < c0 + n) ++seen[size_t(start + e)];
          }
        }
      }
      int wrong = 0, first = -1;
      for (int c = 0; c < s; ++c)
        if (seen[size_t(c)] != 1 && wrong++ == 0) first = c;
      EXPECT_EQ(wrong, 0) << "columns not copied exactly once, first " << first << " (copied "
                          << (first >= 0 ? seen[size_t(first)] : 0) << " times)";
    }
}

TEST(HgemmKernelTable, NamesRoundTrip) {
  for (HgemmKernel k : all_kernels()) {
    HgemmKernel back;
    ASSERT_TRUE(myblas::hgemm_kernel_from_name(myblas::hgemm_kernel_name(k), &back));
    EXPECT_EQ(back, k);
  }
  HgemmKernel dummy;
  EXPECT_FALSE(myblas::hgemm_kernel_from_name("hgemm_fast", &dummy));
  EXPECT_FALSE(myblas::hgemm_kernel_from_name(nullptr, &dummy));
}

// hgemm_choose returns a production kernel that can run the problem, aligned or not.
TEST(HgemmKernelTable, ChooseReturnsAProductionKernelThatCanRun) {
  alignas(16) uint16_t dummy[16];
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'})
      for (int m : {1, 16, 17, 4096})
        for (int n : {1, 16, 17, 4096})
          for (int k : {1, 64, 4096})
            for (int off : {0, 1}) {
              myblas::GemmProblem p;
              p.routine = myblas::Routine::hgemm;
              p.ta = ta == 'N' ? myblas::Op::N : myblas::Op::T;
              p.tb = tb == 'N' ? myblas::Op::N : myblas::Op::T;
              p.m = m;
              p.n = n;
              p.k = k;
              p.lda = p.a_rows() + off;
              p.ldb = p.b_rows() + off;
              p.ldc = m;
              p.a = dummy + off;
              p.b = dummy + off;
              p.c = dummy;
              const HgemmKernel kk = myblas::hgemm_choose(p);
              const std::string what = std::string(1, ta) + tb + " " + std::to_string(m) + "x" +
                                       std::to_string(n) + "x" + std::to_string(k) + " off " + std::to_string(off);
              EXPECT_TRUE(myblas::hgemm_kernel_is_production(kk)) << what;
              EXPECT_EQ(myblas::hgemm_can_implement(kk, p), nullptr) << what;
            }
}

// The caller's cases (documented in hgemm.h) are refused with a reason, never run.
TEST(HgemmKernelTable, RefusesWhatTheCallerHandles) {
  alignas(16) uint16_t dummy[16];
  myblas::GemmProblem p;
  p.routine = myblas::Routine::hgemm;
  p.m = p.n = p.k = 4;
  p.lda = p.ldb = p.ldc = 4;
  p.a = p.b = dummy;
  p.c = dummy;
  for (HgemmKernel k : all_kernels()) {
    myblas::GemmProblem q = p;
    q.alpha = 0.f;
    EXPECT_NE(myblas::hgemm_can_implement(k, q), nullptr) << "alpha == 0";
    q = p;
    q.k = 0;
    EXPECT_NE(myblas::hgemm_can_implement(k, q), nullptr) << "k == 0";
    q = p;
    q.lda = 3;
    EXPECT_NE(myblas::hgemm_can_implement(k, q), nullptr) << "lda < m";
    q = p;
    q.routine = myblas::Routine::sgemm;
    EXPECT_NE(myblas::hgemm_can_implement(k, q), nullptr) << "an SGEMM problem";
    EXPECT_EQ(myblas::hgemm_run(k, q, nullptr), cudaErrorInvalidValue);
  }
}

}  // namespace
