/* The default error handlers, seen from a plain C program that has none of its own.
 *
 * The reference XERBLA and cblas_xerbla print a message and STOP the program; libmyblas's
 * print the same message and return, because a drop-in library must not end the programs
 * it sits under (README: "Errors"). check_default_handlers.cmake reads what this prints:
 * the two reference messages on stderr, then "still running" on stdout, and exit code 0. */
#include <stdio.h>

#include "myblas.h"

int main(void) {
  /* Large enough for any in-bounds access a wrongly accepted call could make. */
  float a[16] = {0}, b[16] = {0}, c[16] = {0};
  const char n = 'N';
  const int m_bad = -1, two = 2, one = 1;
  const float alpha = 1.f, beta = 0.f;

  /* M < 0 is SGEMM's parameter 3. */
  sgemm_(&n, &n, &m_bad, &two, &two, &alpha, a, &two, b, &two, &beta, c, &one);

  /* Row-major M < 0: the reference CBLAS passes 5 (its column-major call has M and N
   * swapped) and its cblas_xerbla maps it back to the user's position, 4. */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, -1, 2, 2, 1.f, a, 2, b, 2, 0.f, c, 2);

  /* The same remapping for SYMM/HEMM (M 4 <-> N 5) and TRMM/TRSM (M 6 <-> N 7): row-major N < 0
   * arrives as 4 and 6 and is printed as the user's 5 and 7. */
  {
    double da[16] = {0}, db[16] = {0}, dc[16] = {0};
    cblas_dsymm(CblasRowMajor, CblasLeft, CblasUpper, 2, -1, 1.0, da, 2, db, 2, 0.0, dc, 2);
    cblas_ztrsm(CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 2, -1, da, da, 2, db, 2);
  }

  printf("still running\n");
  return 0;
}
