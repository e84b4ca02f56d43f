// The header from C++: declarations must be extern "C" (this links against the C symbols
// and runs), and must not clash with a C++ translation unit's own names.
#include <cstdio>
#include <cstring>

#include "myblas.h"

int main() {
  const int n = 2;
  const float one = 1.0f, zero = 0.0f;
  const float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1};
  float c[4] = {0, 0, 0, 0};
  sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
  std::printf("C++: myblas %s, sgemm path %s\n", myblas_version(), myblas_last_path());
  return std::memcmp(a, c, sizeof c) == 0 ? 0 : 1;
}
