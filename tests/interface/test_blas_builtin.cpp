// MYBLAS_CPU_BLAS naming a library that cannot be loaded: myblas runs every routine with its
// built-in loops (the .builtin ctest entries check their results) and says so once, not once
// per call or per routine.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "blas_check.h"

namespace iface {
namespace {

// A few routines of each type, host operands, through the LP64 Fortran names.
void call_some_routines() {
  std::vector<double> a(64, 0.25), b(64, 0.5), c(64, 1.0);
  std::vector<std::complex<double>> za(64, {0.25, 0.5}), zc(64, {1, 0});
  std::vector<float> sa(64, 0.25f), sb(64, 0.5f);
  const int n = 4;
  const int one = 1;
  const double al = 0.5, be = 0.25;
  const float sal = 0.5f;
  dgemm_("N", "T", &n, &n, &n, &al, a.data(), &n, b.data(), &n, &be, c.data(), &n);
  zherk_("L", "C", &n, &n, &al, za.data(), &n, &be, zc.data(), &n);
  strsm_("R", "U", "T", "N", &n, &n, &sal, sa.data(), &n, sb.data(), &n);
  dgemv_("T", &n, &n, &al, a.data(), &n, b.data(), &one, &be, c.data(), &one);
}

TEST(CpuBlasMissing, OneWarning) {
  const char* lib = std::getenv("MYBLAS_CPU_BLAS");
  if (!lib || access(lib, F_OK) == 0 || backend_env() != "cpu" || std::getenv("MYBLAS_LOG"))
    GTEST_SKIP() << "needs MYBLAS_BACKEND=cpu, MYBLAS_CPU_BLAS naming a missing file and no MYBLAS_LOG "
                    "(ctest entry test_interface_blas.builtin-warning)";
  std::fflush(stderr);
  const int saved = dup(2);
  std::FILE* tmp = std::tmpfile();
  ASSERT_TRUE(saved >= 0 && tmp);
  dup2(fileno(tmp), 2);
  auto captured = [&] {
    std::fflush(stderr);
    std::string s;
    std::rewind(tmp);
    for (int ch; (ch = std::fgetc(tmp)) != EOF;) s += char(ch);
    return s;
  };
  call_some_routines();
  const std::string first = captured();
  for (int i = 0; i < 3; ++i) call_some_routines();
  const std::string all = captured();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::fclose(tmp);
  std::cerr << "--- stderr of the calls ---\n" << all << "---------------------------\n";
  size_t warnings = 0;
  for (size_t p = all.find("warning"); p != std::string::npos; p = all.find("warning", p + 1)) ++warnings;
  EXPECT_EQ(warnings, 1u) << "one warning for a CPU BLAS that cannot be loaded";
  EXPECT_NE(all.find(lib), std::string::npos) << "the warning names the library";
  EXPECT_EQ(first, all) << "repeated calls printed more";
}

}  // namespace
}  // namespace iface
