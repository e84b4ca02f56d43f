#include "dispatch/table_source.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/cuda_runtime.h"
#include "core/log.h"

namespace myblas {

namespace {

// data/dispatch-sm_90.csv as a string literal, written by CMake at configure time.
const char kBuiltinTable[] =
#include "dispatch/builtin_table.inc"
    ;

// The directory libmyblas was loaded from ("" if unknown).
std::string library_dir() {
  static const char anchor = 0;
  Dl_info info{};
  if (!dladdr(&anchor, &info) || !info.dli_fname) return "";
  char resolved[PATH_MAX];
  std::string file = realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
  const size_t slash = file.find_last_of('/');
  return slash == std::string::npos ? "." : file.substr(0, slash);
}

std::unique_ptr<DispatchTable> builtin_table() {
  auto t = std::make_unique<DispatchTable>();
  t->source = "the built-in sm_90 table";
  t->name = "built-in-sm_90";
  std::string error;
  if (!parse_dispatch_table(kBuiltinTable, t.get(), &error)) {
    // Cannot happen with a table that passed its test; without one, no entry decides anything.
    warn_once("dispatch-builtin", "the built-in dispatch table does not parse (" + error +
                                      "); device calls go to cuBLAS, host calls to the CPU");
    t->entries.clear();
  }
  return t;
}

std::unique_ptr<DispatchTable> table_for_sm(int sm) {
  const char* override_path = std::getenv("MYBLAS_DISPATCH_TABLE");
  std::vector<std::string> dirs;
  const std::string lib = sm > 0 ? library_dir() : std::string();  // (sm unknown: the override only)
  if (!lib.empty()) {
    dirs.push_back(lib + "/" MYBLAS_LIB_TO_DATADIR);  // installed: <prefix>/lib -> <prefix>/share/myblas
    dirs.push_back(lib + "/../share/myblas");         // build tree: build/src -> build/share/myblas
  }
  const std::vector<std::string> candidates = table_candidates(override_path, dirs, sm);
  auto t = std::make_unique<DispatchTable>();
  std::vector<std::string> problems;
  const bool loaded = load_first_table(candidates, override_path && *override_path, t.get(), &problems);
  for (const std::string& p : problems) warn_once("dispatch-table:" + p, p);
  if (!loaded) {
    t = builtin_table();
    if (verbose()) {
      std::string looked;
      for (const std::string& c : candidates) looked += (looked.empty() ? "" : ", ") + c;
      log_line(strformat("dispatch table for sm_%d: no usable file (looked for %s); using %s", sm,
                         looked.empty() ? "none" : looked.c_str(), t->source.c_str()));
    }
  } else if (verbose()) {
    log_line(strformat("dispatch table for sm_%d: %s (%zu entries)", sm, t->source.c_str(), t->entries.size()));
  }
  return t;
}

struct Tables {
  std::vector<const DispatchTable*> by_device;  // one per device; devices of one model share
  bool uniform = true;                          // every device has the same table
};

const Tables& tables() {
  static const Tables all = [] {
    Tables t;
    static std::map<int, std::unique_ptr<DispatchTable>> by_sm;  // lives as long as the process
    const int count = gpu_device_count();
    for (int d = 0; d < count || d == 0; ++d) {
      const int sm = device_sm(d);
      std::unique_ptr<DispatchTable>& slot = by_sm[sm];
      if (!slot) slot = table_for_sm(sm);
      t.by_device.push_back(slot.get());
      t.uniform = t.uniform && t.by_device.front() == slot.get();
    }
    return t;
  }();
  return all;
}

}  // namespace

bool dispatch_tables_uniform() { return tables().uniform; }

const DispatchTable& dispatch_table(int device) {
  const Tables& t = tables();
  if (t.uniform) return *t.by_device.front();
  if (device < 0) device = host_array_device();
  if (device < 0) device = current_device_no_context();
  return *t.by_device[device >= 0 && size_t(device) < t.by_device.size() ? size_t(device) : 0];
}

}  // namespace myblas
