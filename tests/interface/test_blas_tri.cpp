// TRMM and TRSM in S, D, C, Z through every entry point against OpenBLAS (blas_check.h says
// what each case checks; the unit diagonal and the other triangle hold NaN, never read).
#include "blas_suite.h"

namespace iface {
namespace {

template <class T>
class Tri : public ::testing::Test {};
using AllTypes = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Tri, AllTypes);

TYPED_TEST(Tri, TrmmEveryOption) { sweep_options<TypeParam>(Fam::trmm, Mem::host); }
TYPED_TEST(Tri, TrmmSpecialScalars) { sweep_specials<TypeParam>(Fam::trmm, Mem::host); }
TYPED_TEST(Tri, TrsmEveryOption) { sweep_options<TypeParam>(Fam::trsm, Mem::host); }
TYPED_TEST(Tri, TrsmSpecialScalars) { sweep_specials<TypeParam>(Fam::trsm, Mem::host); }
TYPED_TEST(Tri, DeviceEveryOption) {
  IFACE_REQUIRE_GPU();
  for (Fam f : {Fam::trmm, Fam::trsm}) {
    sweep_options<TypeParam>(f, Mem::device);
    sweep_specials<TypeParam>(f, Mem::device);
  }
}

}  // namespace
}  // namespace iface
