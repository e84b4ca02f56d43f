/* Compiled with -std=c89 -pedantic -Werror: the public header must stay valid C89
 * (no // comments, no declarations after statements, no C99-only constructs). */
#include "myblas.h"

int main(void) {
  CBLAS_LAYOUT layout = CblasColMajor;
  CBLAS_TRANSPOSE trans = CblasNoTrans;
  const char *(*version)(void) = myblas_version;
  (void)layout;
  (void)trans;
  return version == 0;
}
