// Error reporting. Both handlers are looked up through the dynamic symbol table at the time
// of the error, so a program (or a test harness such as the netlib testers) that defines its
// own xerbla_/cblas_xerbla receives the report. Our defaults print the reference messages
// and return: a drop-in library must not end the programs it sits under (README: "Errors").
#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "interface/entry.h"

namespace {
thread_local bool t_cblas_row_major = false;

// The reference CBLAS passes the parameter number of the Fortran call it makes, which
// for row-major swaps the roles of M/N (and for GEMM of A/B); its cblas_xerbla swaps them back,
// for the routines whose checks reach those arguments (the rank-k updates have no M).
int user_position(int info, const char* rout) {
  if (std::strstr(rout, "gemm")) {
    switch (info) {
      case 4: return 5;
      case 5: return 4;
      case 9: return 11;
      case 11: return 9;
    }
  } else if (std::strstr(rout, "symm") || std::strstr(rout, "hemm")) {
    if (info == 4) return 5;
    if (info == 5) return 4;
  } else if (std::strstr(rout, "trmm") || std::strstr(rout, "trsm")) {
    if (info == 6) return 7;
    if (info == 7) return 6;
  } else if (std::strstr(rout, "gemv")) {
    if (info == 3) return 4;
    if (info == 4) return 3;
  }
  return info;
}
}  // namespace

MYBLAS_API void xerbla_(const char* srname, const int* info, int srname_len) {
  // Callers that do not pass the hidden length leave garbage there: trust it only if sane.
  int len = (srname_len > 0 && srname_len <= 32) ? srname_len : 6;
  while (len > 0 && (srname[len - 1] == ' ' || srname[len - 1] == '\0')) --len;
  std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", len,
               srname, *info);
}

MYBLAS_API void cblas_xerbla(int info, const char* rout, const char* form, ...) {
  if (t_cblas_row_major) info = user_position(info, rout);
  if (info) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
  va_list ap;
  va_start(ap, form);
  std::vfprintf(stderr, form, ap);
  va_end(ap);
}

namespace myblas {

void report_xerbla(const char* srname, int info) {
  // A Fortran XERBLA takes the hidden CHARACTER length as a size_t after the last argument.
  using fn = void (*)(const char*, const int*, size_t);
  const size_t len = std::strlen(srname);
  if (fn handler = reinterpret_cast<fn>(dlsym(RTLD_DEFAULT, "xerbla_")))
    handler(srname, &info, len);
  else
    xerbla_(srname, &info, int(len));  // loaded RTLD_LOCAL: ours is not in the global scope
}

void report_xerbla_name(const std::string& name, int info) {
  using fn = void (*)(const char*, const int*, size_t);
  if (fn handler = reinterpret_cast<fn>(dlsym(RTLD_DEFAULT, "xerbla_")))
    handler(name.c_str(), &info, name.size());
  else
    xerbla_(name.c_str(), &info, int(name.size()));
}

void report_cblas(int info, const char* rout, bool row_major, const char* form, int value) {
  using fn = void (*)(int, const char*, const char*, ...);
  fn handler = reinterpret_cast<fn>(dlsym(RTLD_DEFAULT, "cblas_xerbla"));
  if (!handler) handler = cblas_xerbla;
  t_cblas_row_major = row_major;
  handler(info, rout, form, value);
  t_cblas_row_major = false;
}

}  // namespace myblas
