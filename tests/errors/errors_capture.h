// The reports test_errors's own xerbla_ and cblas_xerbla receive (test_errors.cpp defines the
// handlers; every source of the test_errors executable reads them here).
#pragma once
#include <mutex>
#include <string>
#include <vector>

namespace errtest {

struct Report {
  bool cblas = false;    // cblas_xerbla (true) or xerbla_ (false)
  std::string routine;   // srname with its hidden length, or rout
  int srname_len = 0;    // xerbla_ only: the hidden CHARACTER length passed
  int info = 0;
  std::string message;   // cblas_xerbla only: form formatted with its arguments
};

extern std::mutex g_mutex;
extern std::vector<Report> g_reports;
// The reports since the last call, in order.
std::vector<Report> take_reports();

}  // namespace errtest
