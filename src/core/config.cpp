#include "core/config.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/log.h"

namespace myblas {

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

Config load() {
  Config c;
  std::string b = env("MYBLAS_BACKEND");
  for (char& ch : b) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (b.empty() || b == "auto") c.backend = Backend::auto_;
  else if (b == "cpu") c.backend = Backend::cpu;
  else if (b == "cublas") c.backend = Backend::cublas;
  else if (b == "kernels") c.backend = Backend::kernels;
  else c.backend_error = b;
  c.cpu_blas = env("MYBLAS_CPU_BLAS");
  std::string core = env("MYBLAS_OPENBLAS_CORETYPE");
  for (char& ch : core) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (core == "keep") c.keep_openblas_core = true;
  else if (!core.empty() && core != "auto") c.openblas_core_error = core;
  std::string timeout = env("MYBLAS_OPENBLAS_THREAD_TIMEOUT");
  for (char& ch : timeout) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (timeout == "keep") {
    c.openblas_thread_timeout = -1;
  } else if (!timeout.empty() && timeout != "auto") {
    char* end = nullptr;
    const long t = std::strtol(timeout.c_str(), &end, 10);
    if (end != timeout.c_str() && *end == '\0' && t >= 4 && t <= 30) c.openblas_thread_timeout = int(t);
    else c.openblas_timeout_error = timeout;
  }
  std::string v = env("MYBLAS_VERBOSE");
  c.verbose = v.empty() ? 0 : std::atoi(v.c_str());
  c.log_file = env("MYBLAS_LOG");
  c.test_fault = env("MYBLAS_TEST_FAULT");
  c.sgemv_kernel = env("MYBLAS_SGEMV_KERNEL");
  c.sgemm_kernel = env("MYBLAS_SGEMM_KERNEL");
  c.hgemm_kernel = env("MYBLAS_HGEMM_KERNEL");
  std::string prec = env("MYBLAS_SGEMM_PRECISION");
  for (char& ch : prec) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (prec.empty() || prec == "fp32") c.sgemm_precision = SgemmPrecision::fp32;
  else if (prec == "tf32x3") c.sgemm_precision = SgemmPrecision::tf32x3;
  else if (prec == "tf32x3-all") c.sgemm_precision = SgemmPrecision::tf32x3_all;
  else c.sgemm_precision_error = prec;
  c.cublas_own_workspace = env("MYBLAS_CUBLAS_WORKSPACE") != "pool";
  return c;
}
}  // namespace

std::atomic<const Config*> g_config{nullptr};

const Config& load_config() {
  static const Config c = load();  // thread-safe one-time initialisation
  g_config.store(&c, std::memory_order_release);
  return c;
}

namespace {
std::atomic<int> g_backend_override{-1};  // myblas_set_backend's choice (a Backend), or -1
}

Backend backend_setting() {
  const int o = g_backend_override.load(std::memory_order_relaxed);
  if (o >= 0) return Backend(o);
  const Config& c = config();
  if (!c.backend_error.empty())
    warn_once("backend", "unknown MYBLAS_BACKEND '" + c.backend_error + "'; using auto");
  return c.backend;
}

void set_backend_override(const Backend* b) { g_backend_override.store(b ? int(*b) : -1, std::memory_order_relaxed); }

bool fault_injected(const char* point) {
  const std::string& list = config().test_fault;
  if (list.empty()) return false;
  const std::string p(point);
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    if (list.compare(start, end - start, p) == 0) return true;
    start = end + 1;
  }
  return false;
}

bool fault_injected_on(const char* point, int device) {
  if (config().test_fault.empty()) return false;
  return fault_injected(point) || fault_injected((std::string(point) + "@" + std::to_string(device)).c_str());
}

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::auto_: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cublas: return "cublas";
    case Backend::kernels: return "kernels";
  }
  return "?";
}

}  // namespace myblas
