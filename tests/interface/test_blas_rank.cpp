// The rank-k and rank-2k updates: SYRK, SYR2K (S, D, C, Z) and HERK, HER2K (C, Z) through every
// entry point against OpenBLAS (blas_check.h says what each case checks; the other triangle of C
// must stay bitwise, HERK/HER2K write a zero imaginary diagonal).
#include "blas_suite.h"

namespace iface {
namespace {

template <class T>
class Rank : public ::testing::Test {};
using AllTypes = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(Rank, AllTypes);
template <class T>
class HermRank : public ::testing::Test {};
using ComplexTypes = ::testing::Types<std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(HermRank, ComplexTypes);

TYPED_TEST(Rank, SyrkEveryOption) { sweep_options<TypeParam>(Fam::syrk, Mem::host); }
TYPED_TEST(Rank, SyrkSpecialScalars) { sweep_specials<TypeParam>(Fam::syrk, Mem::host); }
TYPED_TEST(Rank, Syr2kEveryOption) { sweep_options<TypeParam>(Fam::syr2k, Mem::host); }
TYPED_TEST(Rank, Syr2kSpecialScalars) { sweep_specials<TypeParam>(Fam::syr2k, Mem::host); }
TYPED_TEST(Rank, DeviceEveryOption) {
  IFACE_REQUIRE_GPU();
  for (Fam f : {Fam::syrk, Fam::syr2k}) {
    sweep_options<TypeParam>(f, Mem::device);
    sweep_specials<TypeParam>(f, Mem::device);
  }
}
TYPED_TEST(HermRank, HerkEveryOption) { sweep_options<TypeParam>(Fam::herk, Mem::host); }
TYPED_TEST(HermRank, HerkSpecialScalars) { sweep_specials<TypeParam>(Fam::herk, Mem::host); }
TYPED_TEST(HermRank, Her2kEveryOption) { sweep_options<TypeParam>(Fam::her2k, Mem::host); }
TYPED_TEST(HermRank, Her2kSpecialScalars) { sweep_specials<TypeParam>(Fam::her2k, Mem::host); }
TYPED_TEST(HermRank, DeviceEveryOption) {
  IFACE_REQUIRE_GPU();
  for (Fam f : {Fam::herk, Fam::her2k}) {
    sweep_options<TypeParam>(f, Mem::device);
    sweep_specials<TypeParam>(f, Mem::device);
  }
}

}  // namespace
}  // namespace iface
