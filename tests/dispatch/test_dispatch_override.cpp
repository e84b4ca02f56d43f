// MYBLAS_DISPATCH_TABLE through the library, on a GPU (label gpu): a table that says the
// opposite of the committed sm_90 one for some shapes changes the path those calls take, the
// verbose log names the file and line of the entry that decided, and a malformed table is
// ignored with one warning (the device's installed table then decides). Each ctest entry is
// its own process, because the table is read once, at the first call that needs it.
//   MYBLAS_TEST_TABLE=good|malformed  which table this process writes to MYBLAS_DISPATCH_TABLE
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string base_name(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Host-array SGEMM, checked against OpenBLAS with the k-scaled bound; returns the path taken.
std::string host_sgemm(int m, int n, int k, std::mt19937_64& rng) {
  mbtest::Matrix a(m, k, m + 3, rng), b(k, n, k + 1, rng), c(m, n, m + 2, rng);
  const float alpha = 0.75f, beta = -0.5f;
  mbtest::Matrix want = c;
  mbtest::ref_sgemm('N', 'N', m, n, k, alpha, a.data(), a.ld, b.data(), b.ld, beta, want.data(), want.ld);
  sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &a.ld, b.data(), &b.ld, &beta, c.data(), &c.ld);
  const std::string path = myblas_last_path();
  EXPECT_EQ(c.damaged_guards(), 0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      EXPECT_NEAR(c.at(i, j), want.at(i, j), (k + 2) * 4 * FLT_EPSILON * (0.75 * k + 1))
          << m << "x" << n << "x" << k << " path " << path << " seed " << mbtest::test_seed();
  return path;
}

// Device-pointer SGEMV, checked the same way; returns the path taken.
std::string device_sgemv(char t, int m, int n, std::mt19937_64& rng) {
  const int lx = t == 'N' ? n : m, ly = t == 'N' ? m : n;
  mbtest::Matrix a(m, n, m + 1, rng);
  mbtest::Vector x(lx, 1, rng), y(ly, 1, rng);
  const float alpha = 1.25f, beta = 0.5f;
  mbtest::Vector want = y;
  const int one = 1;
  mbtest::ref_sgemv(t, m, n, alpha, a.data(), a.ld, x.data(), 1, beta, want.data(), 1);
  float *da, *dx, *dy;
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), a.buf.size() * 4), cudaSuccess);
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&dx), x.buf.size() * 4), cudaSuccess);
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&dy), y.buf.size() * 4), cudaSuccess);
  cudaMemcpy(da, a.buf.data(), a.buf.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x.buf.data(), x.buf.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.buf.data(), y.buf.size() * 4, cudaMemcpyHostToDevice);
  const char trans[2] = {t, 0};
  sgemv_(trans, &m, &n, &alpha, da + mbtest::Matrix::kPad, &a.ld, dx + mbtest::Vector::kPad, &one, &beta,
         dy + mbtest::Vector::kPad, &one);
  const std::string path = myblas_last_path();
  cudaMemcpy(y.buf.data(), dy, y.buf.size() * 4, cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(dx);
  cudaFree(dy);
  EXPECT_EQ(y.damaged_guards(), 0);
  for (int i = 0; i < ly; ++i)
    EXPECT_NEAR(y.at(i), want.at(i), (lx + 2) * 4 * FLT_EPSILON * (1.25 * lx + 1))
        << t << " " << m << "x" << n << " path " << path << " seed " << mbtest::test_seed();
  return path;
}

TEST(DispatchTableDevice, OverrideDecidesAndIsNamedInTheLog) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no CUDA device: the table is only read for GPU decisions";
  const std::string table = env("MYBLAS_DISPATCH_TABLE"), log = env("MYBLAS_LOG"), mode = env("MYBLAS_TEST_TABLE");
  ASSERT_FALSE(table.empty() || log.empty() || mode.empty()) << "run through ctest";
  std::ofstream(log, std::ios::trunc).close();
  std::mt19937_64 rng(mbtest::test_seed());
  if (mode == "good") {
    // Against the committed table: small host SGEMM to the GPU pipeline; device SGEMV N at the
    // cuBLAS row 256 x 256 and beside it (no rows bracket 250 x 270: cuBLAS); T at 3000 x 5000,
    // bracketed by two warp_per_column rows, to that kernel (dispatch/device_rule.h).
    std::ofstream(table) << "# test table\n"
                            "routine,trans,mem,m,n,k,beta,path,kernel,time_us,ratio\n"
                            "sgemm,NN,host,64,64,64,*,cublas,-,1,2\n"            // line 3
                            "sgemm,NN,host,4096,4096,4096,*,cpu,-,1,0.5\n"       // line 4
                            "sgemv,N,device,256,256,0,*,cublas,-,1,0.9\n"        // line 5
                            "sgemv,T,device,2048,4096,0,*,kernels,warp_per_column,1,1.5\n"  // line 6
                            "sgemv,T,device,4096,8192,0,*,kernels,warp_per_column,1,1.4\n";  // line 7
    EXPECT_EQ(host_sgemm(70, 61, 59, rng), "cublas");
    EXPECT_EQ(device_sgemv('N', 256, 256, rng), "cublas");
    EXPECT_EQ(device_sgemv('N', 250, 270, rng), "cublas");
    EXPECT_EQ(device_sgemv('T', 3000, 5000, rng), "kernels");
    const std::string text = read_file(log);
    const std::string name = base_name(table);
    EXPECT_EQ(count(text, "dispatch table for sm_"), 1) << text;
    EXPECT_NE(text.find("dispatch table for sm_"), std::string::npos);
    EXPECT_NE(text.find(": " + table + " (5 entries)"), std::string::npos) << text;
    EXPECT_NE(text.find("rule=auto-host-measured-gpu table=" + name + ":3:NN:host:64x64x64:cublas:2.000"),
              std::string::npos) << text;
    EXPECT_NE(text.find("rule=auto-device-operands table=" + name + ":5:N:device:256x256:cublas:0.900"),
              std::string::npos) << text;
    EXPECT_NE(text.find("rule=auto-device-operands table=" + name + ":no-bracketing-rows"), std::string::npos)
        << text;
    EXPECT_NE(text.find("kernel=warp_per_column table=" + name +
                        ":6:T:device:2048x4096:warp_per_column:1.500 bracket-to=7"),
              std::string::npos) << text;
    EXPECT_EQ(count(text, "warning"), 0) << text;
  } else {
    // A malformed table: one warning, then the installed sm_90 table (built tree) decides as
    // the committed measurements say: small host SGEMM on the CPU.
    std::ofstream(table) << "routine,trans,mem,m,n,k,beta,path,kernel,time_us,ratio\n"
                            "sgemm,NN,host,64,64,64,*,cublas,-,1,2\n"
                            "sgemm,NN,host,128,128,128,*,gpu,-,1,2\n";
    EXPECT_EQ(host_sgemm(70, 61, 59, rng), "cpu");
    EXPECT_EQ(host_sgemm(65, 66, 67, rng), "cpu");
    const std::string text = read_file(log);
    EXPECT_EQ(count(text, "warning"), 1) << text;
    EXPECT_NE(text.find("MYBLAS_DISPATCH_TABLE=" + table + ": line 3: path is not cpu, cublas or kernels"),
              std::string::npos) << text;
    // The build tree's share/myblas has the committed tables; other GPUs get the built-in one.
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    const bool sm90 = prop.major == 9 && prop.minor == 0;
    EXPECT_NE(text.find(sm90 ? "table=dispatch-sm_90.csv:" : "table=built-in-sm_90:"), std::string::npos) << text;
  }
}

}  // namespace
