// SSYMM, DSYMM, CSYMM, ZSYMM and CHEMM, ZHEMM through every entry point against OpenBLAS
// (blas_check.h says what each case checks).
#include "blas_suite.h"

namespace iface {
namespace {

template <class T>
class Symm : public ::testing::Test {};
using AllTypes = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Symm, AllTypes);
template <class T>
class Hemm : public ::testing::Test {};
using ComplexTypes = ::testing::Types<std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Hemm, ComplexTypes);

TYPED_TEST(Symm, EveryOption) { sweep_options<TypeParam>(Fam::symm, Mem::host); }
TYPED_TEST(Symm, SpecialScalars) { sweep_specials<TypeParam>(Fam::symm, Mem::host); }
TYPED_TEST(Symm, DeviceEveryOption) {
  IFACE_REQUIRE_GPU();
  sweep_options<TypeParam>(Fam::symm, Mem::device);
  sweep_specials<TypeParam>(Fam::symm, Mem::device);
}
TYPED_TEST(Hemm, EveryOption) { sweep_options<TypeParam>(Fam::hemm, Mem::host); }
TYPED_TEST(Hemm, SpecialScalars) { sweep_specials<TypeParam>(Fam::hemm, Mem::host); }
TYPED_TEST(Hemm, DeviceEveryOption) {
  IFACE_REQUIRE_GPU();
  sweep_options<TypeParam>(Fam::hemm, Mem::device);
  sweep_specials<TypeParam>(Fam::hemm, Mem::device);
}

}  // namespace
}  // namespace iface
