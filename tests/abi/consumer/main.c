/* Downstream smoke test: C := A*B for a 2x2 case known by heart, through the CBLAS and
 * Fortran entry points of the found myblas package. */
#include <stdio.h>

#include <myblas.h>

int main(void) {
  const float a[4] = {1, 2, 3, 4}; /* column-major [[1 3] [2 4]] */
  const float b[4] = {5, 6, 7, 8}; /* column-major [[5 7] [6 8]] */
  const float want[4] = {23, 34, 31, 46};
  float c[4] = {-1, -1, -1, -1};
  const int n = 2;
  const float one = 1.0f, zero = 0.0f;
  int i, bad = 0;

  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
  for (i = 0; i < 4; ++i) bad += c[i] != want[i];
  for (i = 0; i < 4; ++i) c[i] = -1;
  sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
  for (i = 0; i < 4; ++i) bad += c[i] != want[i];

  printf("consumer: myblas %s, last path %s, %s\n", myblas_version(), myblas_last_path(),
         bad ? "WRONG RESULTS" : "results correct");
  return bad != 0;
}
