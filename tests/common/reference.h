// The reference the suite compares against: OpenBLAS, loaded with dlopen so that its
// sgemm_/sgemv_ never shadow libmyblas's (both export the same names).
#pragma once
#include <cstdint>

namespace mbtest {

// Column-major reference calls with Fortran semantics (OpenBLAS's own).
void ref_sgemm(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda,
               const float* b, int ldb, float beta, float* c, int ldc);
void ref_sgemv(char t, int m, int n, float alpha, const float* a, int lda, const float* x,
               int incx, float beta, float* y, int incy);
// Any routine of the reference by its symbol name ("zherk_"), for the tests written once per
// element type; aborts when the reference lacks it (OpenBLAS has every Level-3 routine).
void* ref_symbol(const char* name);
// Which library file answered (for failure messages).
const char* ref_name();

}  // namespace mbtest
