// hgemm_, hgemm and cblas_hgemm (both orders) against OpenBLAS SGEMM on the widened
// binary16 inputs: the one rounding of the FP32 result to binary16 is in the bound.
#include <gtest/gtest.h>

#include "gemm_suite.h"

namespace iface {
namespace {

struct Hgemm {
  using Store = HalfMatrix;
  static constexpr bool half = true;
  static std::vector<Api> apis() {
    return {Api::fortran, Api::fortran_plain, Api::cblas_col, Api::cblas_row};
  }
  static float scalar(float v) { return myblas_half_to_float(myblas_float_to_half(v)); }
  static void call(const GemmCase& c, uint16_t* a, int lda, uint16_t* b, int ldb, uint16_t* cc,
                   int ldc) {
    const uint16_t alpha = myblas_float_to_half(c.alpha), beta = myblas_float_to_half(c.beta);
    switch (c.api) {
      case Api::fortran:
        hgemm_(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, a, &lda, b, &ldb, &beta, cc, &ldc);
        return;
      case Api::fortran_plain:
        hgemm(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, a, &lda, b, &ldb, &beta, cc, &ldc);
        return;
      default:
        cblas_hgemm(row_major(c.api) ? CblasRowMajor : CblasColMajor, cblas_trans(c.ta),
                    cblas_trans(c.tb), c.m, c.n, c.k, alpha, a, lda, b, ldb, beta, cc, ldc);
    }
  }
};

TEST(Hgemm, EveryTransposeOnEveryEntryPoint) { every_transpose<Hgemm>(); }
TEST(Hgemm, SmallSizesIncludingZero) { small_sizes<Hgemm>(); }
TEST(Hgemm, Size1000) { large_sizes<Hgemm>(); }
TEST(Hgemm, AlphaBetaGrid) { alpha_beta_grid<Hgemm>(); }
TEST(Hgemm, BetaZeroOverwritesNanInC) { beta_zero_nan_in_c<Hgemm>(); }
TEST(Hgemm, AlphaZeroNeverReadsAOrB) { alpha_zero_nan_in_ab<Hgemm>(); }
TEST(Hgemm, KZeroScalesC) { k_zero<Hgemm>(); }
TEST(Hgemm, QuickReturnsLeaveCUntouched) { quick_returns<Hgemm>(); }
TEST(Hgemm, LeadingDimensionsAboveMinimum) { leading_dimensions<Hgemm>(); }

TEST(HgemmDevice, AllOperandsOnDevice) {
  IFACE_REQUIRE_GPU();
  device_all<Hgemm>();
}
TEST(HgemmDevice, MixedHostAndDeviceOperands) {
  IFACE_REQUIRE_GPU();
  device_mixed<Hgemm>();
}
TEST(HgemmDevice, NanAndQuickReturnsOnDevice) {
  IFACE_REQUIRE_GPU();
  device_special_values<Hgemm>();
}
TEST(HgemmDevice, DeviceOperandsTakeGpuPath) {
  IFACE_REQUIRE_GPU();
  if (backend_env() == "cpu") GTEST_SKIP() << "MYBLAS_BACKEND=cpu sends device operands to the CPU";
  device_operands_take_gpu_path<Hgemm>();
}

}  // namespace
}  // namespace iface
