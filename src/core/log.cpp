#include "core/log.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <set>

#include "core/config.h"

namespace myblas {

namespace {
std::mutex g_log_mutex;

FILE* sink() {
  static FILE* f = [] {
    const std::string& path = config().log_file;
    if (path.empty()) return stderr;
    FILE* file = std::fopen(path.c_str(), "a");
    return file ? file : stderr;
  }();
  return f;
}
}  // namespace


std::string strformat(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return std::string();
  if (size_t(n) < sizeof buf) return std::string(buf, size_t(n));
  std::string big(size_t(n) + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(&big[0], big.size(), fmt, ap);
  va_end(ap);
  big.resize(size_t(n));
  return big;
}

void log_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  FILE* f = sink();
  std::fprintf(f, "myblas: %s\n", line.c_str());
  std::fflush(f);
}

void warn_once(const std::string& key, const std::string& message) {
  static std::mutex m;
  static std::set<std::string> seen;
  {
    std::lock_guard<std::mutex> lock(m);
    if (!seen.insert(key).second) return;
  }
  log_line("warning: " + message);
}

}  // namespace myblas
