// The batched square kernel's rungs (src/kernels/batched/gemm_square_smem.cu, gemm_square_staged.cu
// with gemm_square_prefetch, hgemm_square_mma.cu for H) called directly: their refusals (on the
// CPU, in CI), and on a GPU, each rung against a loop of products in double: nine groups of one
// size (two launches: eight groups a launch), strided and listed groups together, counts that
// leave the last block partly empty (off multiples of the products per block; one large enough
// that persistent blocks loop over several sets), leading dimensions and strides that rule out
// 16-byte accesses, a misaligned base, both transposes, beta 0 (NaN in C) and not, S and H; and
// the scaling kernel of the alpha == 0 groups.
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "common/data.h"
#include "kernel_test_util.h"
#include "kernels/batched.h"

namespace {

using myblas::BatchGroup;
using myblas::Dtype;

BatchGroup square(int n) {
  BatchGroup g;
  g.m = g.n = g.k = n;
  g.alpha = {1, 0};
  g.lda = g.ldb = g.ldc = n;
  g.count = 1;
  return g;
}

TEST(BatchedSquare, CanImplementSaysWhy) {
  EXPECT_EQ(myblas::batched_square_can_implement(Dtype::s, square(16)), nullptr);
  EXPECT_EQ(myblas::batched_square_can_implement(Dtype::h, square(32)), nullptr);
  EXPECT_STREQ(myblas::batched_square_can_implement(Dtype::d, square(16)), "only FP32 and binary16 products");
  EXPECT_STREQ(myblas::batched_square_can_implement(Dtype::s, square(64)), "size other than 16 or 32");
  BatchGroup g = square(16);
  g.k = 8;
  EXPECT_STREQ(myblas::batched_square_can_implement(Dtype::s, g), "not square (m, n and k differ)");
  g = square(16);
  g.ta = 'C';
  EXPECT_STREQ(myblas::batched_square_can_implement(Dtype::s, g), "conjugate transposes");
  g = square(16);
  g.alpha = {0, 0};
  EXPECT_STREQ(myblas::batched_square_can_implement(Dtype::s, g), "alpha == 0 (a scaling of C)");
}

template <class T>
float to_f(T v) {
  if constexpr (sizeof(T) == 2) return __half2float(v);
  else return v;
}
template <class T>
T from_f(float v) {
  if constexpr (sizeof(T) == 2) return __float2half_rn(v);
  else return v;
}

// One group's data on the host and the device.
template <class T>
struct GroupData {
  BatchGroup g;
  int shift = 0;                 // elements past an aligned address
  std::vector<T> a, b, c, c0;    // strided layout: product i at i * stride
  T *da = nullptr, *db = nullptr, *dc = nullptr;
  std::vector<const void*> list;  // a..., b..., c... (listed groups)
  void* dlist = nullptr;
};

template <class T>
void run_case(int n, myblas::SquareKernel kernel, std::mt19937_64& rng) {
  SCOPED_TRACE(myblas::square_kernel_name(kernel));
  // Products per group: off every multiple of the products per block (8 at n = 16, 4 at n = 32);
  // 6001 so that gemm_square_prefetch's blocks (as many as the device holds: 4 an SM at n = 16,
  // 2 at n = 32) loop over several sets, crossing from one group to the next.
  const int64_t counts[9] = {1, 3, 5, 7, 9, 13, 6001, 2 + int64_t(rng() % 23), 37};
  std::vector<GroupData<T>> gd(9);
  for (size_t i = 0; i < gd.size(); ++i) {
    GroupData<T>& d = gd[i];
    BatchGroup& g = d.g;
    g = square(n);
    g.ta = i % 2 ? 'T' : 'N';
    g.tb = i % 3 ? 'N' : 'T';
    g.alpha = {i % 4 == 1 ? -0.5 : 1.0, 0};
    g.beta = {i % 3 == 0 ? 0.0 : 0.5, 0};
    g.count = counts[i];
    const int pad = i % 4 == 2 ? 3 : 0;  // ld % vector != 0: element accesses
    g.lda = n + pad, g.ldb = n + (i == 5 ? 1 : 0), g.ldc = n + pad;
    d.shift = i == 7 ? 1 : 0;  // misaligned base
    // Strides that allow 16-byte accesses (multiples of 8 elements) and ones that do not.
    const int64_t sa = g.lda * n + (i % 3 == 1 ? 5 : 8), sb = g.ldb * n + (i % 3 == 2 ? 3 : 8),
                  sc = g.ldc * n + (i % 2 ? 4 : 16);
    g.stride_a = sa, g.stride_b = sb, g.stride_c = sc;
    auto fill = [&](std::vector<T>& v, int64_t stride) {
      v.resize(size_t(stride * g.count + d.shift + 8));
      for (T& x : v) x = from_f<T>(mbtest::uniform(rng));
    };
    fill(d.a, sa), fill(d.b, sb), fill(d.c, sc);
    if (g.beta.zero())
      for (T& x : d.c) x = from_f<T>(std::nanf(""));
    d.c0 = d.c;
    for (auto [host, dev] : {std::pair{&d.a, &d.da}, std::pair{&d.b, &d.db}, std::pair{&d.c, &d.dc}}) {
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(dev), host->size() * sizeof(T)), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(*dev, host->data(), host->size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    }
    g.a = d.da + d.shift, g.b = d.db + d.shift, g.c = d.dc + d.shift;
    if (i % 3 == 2) {  // listed
      for (int w = 0; w < 3; ++w)
        for (int64_t p = 0; p < g.count; ++p)
          d.list.push_back((w == 0 ? d.da : w == 1 ? d.db : d.dc) + d.shift +
                           p * (w == 0 ? sa : w == 1 ? sb : sc));
      ASSERT_EQ(cudaMalloc(&d.dlist, d.list.size() * sizeof(void*)), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(d.dlist, d.list.data(), d.list.size() * sizeof(void*), cudaMemcpyHostToDevice), cudaSuccess);
      g.a_list = d.list.data();
      g.b_list = d.list.data() + g.count;
      g.c_list = const_cast<void* const*>(reinterpret_cast<const void* const*>(d.list.data() + 2 * g.count));
    }
  }
  std::vector<BatchGroup> groups;
  std::vector<const void* const*> lists;
  for (auto& d : gd) {
    groups.push_back(d.g);
    lists.push_back(static_cast<const void* const*>(d.dlist));
  }
  const Dtype t = sizeof(T) == 2 ? Dtype::h : Dtype::s;
  ASSERT_EQ(myblas::batched_square_run(t, groups.data(), lists.data(), int(groups.size()), nullptr, kernel),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double unit = sizeof(T) == 2 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24);
  for (size_t i = 0; i < gd.size(); ++i) {
    GroupData<T>& d = gd[i];
    const BatchGroup& g = d.g;
    std::vector<T> got(d.c.size());
    ASSERT_EQ(cudaMemcpy(got.data(), d.dc, got.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    std::vector<bool> inside(got.size(), false);
    for (int64_t p = 0; p < g.count; ++p)
      for (int j = 0; j < n; ++j)
        for (int r = 0; r < n; ++r) {
          const size_t at = size_t(d.shift + p * g.stride_c + j * g.ldc + r);
          inside[at] = true;
          double s = 0, mag = 0;
          for (int l = 0; l < n; ++l) {
            const double x = to_f(d.a[size_t(d.shift + p * g.stride_a + (g.ta == 'N' ? l * g.lda + r : r * g.lda + l))]);
            const double y = to_f(d.b[size_t(d.shift + p * g.stride_b + (g.tb == 'N' ? j * g.ldb + l : l * g.ldb + j))]);
            s += x * y;
            mag += std::fabs(x * y);
          }
          const double want = g.alpha.re * s + (g.beta.zero() ? 0.0 : g.beta.re * to_f(d.c0[at]));
          const double bound = (n + 2) * unit * (std::fabs(g.alpha.re) * mag + std::fabs(g.beta.re)) + 2 * unit;
          ASSERT_LE(std::fabs(to_f(got[at]) - want), bound)
              << "group " << i << " product " << p << " (" << r << "," << j << ") n=" << n << " ta=" << g.ta
              << " tb=" << g.tb << " ld=" << g.lda << "/" << g.ldb << "/" << g.ldc << " shift=" << d.shift
              << " listed=" << g.listed() << " seed=" << mbtest::test_seed();
        }
    for (size_t e = 0; e < got.size(); ++e)
      if (!inside[e]) ASSERT_EQ(std::memcmp(&got[e], &d.c0[e], sizeof(T)), 0) << "group " << i << " wrote " << e;
    cudaFree(d.da), cudaFree(d.db), cudaFree(d.dc), cudaFree(d.dlist);
  }
}

TEST(BatchedSquare, DeviceFp32) {
  std::string why;
  if (!kernel_test::have_gpu(&why)) GTEST_SKIP() << why;
  std::mt19937_64 rng(mbtest::test_seed());
  for (myblas::SquareKernel k :
       {myblas::SquareKernel::smem, myblas::SquareKernel::staged, myblas::SquareKernel::prefetch}) {
    run_case<float>(16, k, rng);
    run_case<float>(32, k, rng);
  }
}

TEST(BatchedSquare, DeviceFp16) {
  std::string why;
  if (!kernel_test::have_gpu(&why)) GTEST_SKIP() << why;
  std::mt19937_64 rng(mbtest::test_seed());
  for (myblas::SquareKernel k : {myblas::SquareKernel::smem, myblas::SquareKernel::staged,
                                 myblas::SquareKernel::prefetch, myblas::SquareKernel::mma}) {
    run_case<__half>(16, k, rng);
    run_case<__half>(32, k, rng);
  }
}

// C := beta C of an alpha == 0 group: beta 0 stores zeros over NaN, padding untouched.
TEST(BatchedScale, DeviceZeroAndHalf) {
  std::string why;
  if (!kernel_test::have_gpu(&why)) GTEST_SKIP() << why;
  for (double beta : {0.0, -0.5}) {
    BatchGroup g = square(5);
    g.m = 5, g.n = 3, g.ldc = 7, g.count = 4, g.stride_c = 7 * 3 + 2, g.alpha = {0, 0}, g.beta = {beta, 0};
    std::vector<float> c(size_t(g.stride_c * g.count), 2.f);
    for (int64_t p = 0; p < g.count; ++p)
      for (int j = 0; j < 3; ++j)
        for (int r = 0; r < 5; ++r) c[size_t(p * g.stride_c + j * 7 + r)] = beta == 0 ? std::nanf("") : 1.5f;
    float* dc;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), c.size() * sizeof(float)), cudaSuccess);
    cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
    g.c = dc;
    ASSERT_EQ(myblas::batched_scale_run(Dtype::s, g, 5, 3, 7, nullptr, nullptr), cudaSuccess);
    std::vector<float> got(c.size());
    cudaMemcpy(got.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dc);
    for (int64_t p = 0; p < g.count; ++p)
      for (int64_t e = 0; e < g.stride_c; ++e) {
        const int64_t j = e / 7, r = e % 7;
        const bool in = j < 3 && r < 5;
        EXPECT_EQ(got[size_t(p * g.stride_c + e)], in ? float(beta * 1.5) : 2.f) << p << " " << e;
      }
  }
}

}  // namespace
