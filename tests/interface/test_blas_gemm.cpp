// DGEMM, CGEMM, ZGEMM and DGEMV, CGEMV, ZGEMV through every entry point against OpenBLAS
// (blas_check.h says what each case checks). SGEMM and SGEMV have their own suites.
#include "blas_suite.h"

namespace iface {
namespace {

template <class T>
class Gemm : public ::testing::Test {};
using GemmTypes = ::testing::Types<double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Gemm, GemmTypes);

TYPED_TEST(Gemm, EveryOption) { sweep_options<TypeParam>(Fam::gemm, Mem::host); }
TYPED_TEST(Gemm, SpecialScalars) { sweep_specials<TypeParam>(Fam::gemm, Mem::host); }
TYPED_TEST(Gemm, DeviceEveryOption) {
  IFACE_REQUIRE_GPU();
  sweep_options<TypeParam>(Fam::gemm, Mem::device);
}
TYPED_TEST(Gemm, DeviceSpecialScalars) {
  IFACE_REQUIRE_GPU();
  sweep_specials<TypeParam>(Fam::gemm, Mem::device);
}

TYPED_TEST(Gemm, GemvEveryOption) { sweep_options<TypeParam>(Fam::gemv, Mem::host); }
TYPED_TEST(Gemm, GemvSpecialScalars) { sweep_specials<TypeParam>(Fam::gemv, Mem::host); }
TYPED_TEST(Gemm, DeviceGemvEveryOption) {
  IFACE_REQUIRE_GPU();
  sweep_options<TypeParam>(Fam::gemv, Mem::device);
}
TYPED_TEST(Gemm, DeviceGemvSpecialScalars) {
  IFACE_REQUIRE_GPU();
  sweep_specials<TypeParam>(Fam::gemv, Mem::device);
}

// Negative and non-unit increments on both vectors, every transpose, both layouts.
TYPED_TEST(Gemm, GemvIncrements) {
  std::mt19937_64 rng(mbtest::test_seed() + 2);
  Sweep s;
  for (Entry e : {Entry::f77, Entry::cblas_row, Entry::cblas_col64_})
    for (char t : {'N', 'T', 'C'})
      for (int incx : {1, -1, 2, -3})
        for (int incy : {1, -1, 3, -2}) {
          if (!s.more()) return;
          BlasCase c = make_case(Fam::gemv, e, {'L', 'U', t, 'N', 'N'}, 7, 5, 0);
          c.incx = incx, c.incy = incy;
          c.alpha = legal_scalar<TypeParam>(Fam::gemv, true, {0.5, -1});
          c.beta = legal_scalar<TypeParam>(Fam::gemv, false, {-1, 0.5});
          s.add(check_any<TypeParam>(c, rng));
        }
}

}  // namespace
}  // namespace iface
