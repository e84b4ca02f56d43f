// A minimal NVTX tool for tests: loaded by NVTX through NVTX_INJECTION64_PATH, it takes domain
// creation, domain range push and pop, and records every push's name with its nesting depth.
// The test reads the record through nvtx_recorder_log() (dlopen of the same path).
#include <nvtx3/nvToolsExt.h>

#include <mutex>
#include <string>
#include <vector>

namespace {
std::mutex g_mu;
std::vector<std::string> g_log;  // "<depth> <name>" per push, "pop <depth>" per pop
thread_local int t_depth = 0;
int g_dummy_domain;

nvtxDomainHandle_t domain_create(const char* name) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_log.push_back(std::string("domain ") + name);
  return reinterpret_cast<nvtxDomainHandle_t>(&g_dummy_domain);
}

int range_push(nvtxDomainHandle_t, const nvtxEventAttributes_t* a) {
  const char* name = a && a->messageType == NVTX_MESSAGE_TYPE_ASCII ? a->message.ascii : "?";
  std::lock_guard<std::mutex> lock(g_mu);
  g_log.push_back(std::to_string(t_depth) + " " + name);
  return t_depth++;
}

int range_pop(nvtxDomainHandle_t) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_log.push_back("pop " + std::to_string(--t_depth));
  return t_depth;
}
}  // namespace

extern "C" {

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  auto* cb = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (!cb) return 0;
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) || size <= NVTX_CBID_CORE2_DomainCreateA)
    return 0;
  *table[NVTX_CBID_CORE2_DomainCreateA] = reinterpret_cast<NvtxFunctionPointer>(domain_create);
  *table[NVTX_CBID_CORE2_DomainRangePushEx] = reinterpret_cast<NvtxFunctionPointer>(range_push);
  *table[NVTX_CBID_CORE2_DomainRangePop] = reinterpret_cast<NvtxFunctionPointer>(range_pop);
  return 1;
}

// The record so far, one entry per line.
__attribute__((visibility("default"))) std::string* nvtx_recorder_log() {
  static std::string out;
  std::lock_guard<std::mutex> lock(g_mu);
  out.clear();
  for (const std::string& s : g_log) out += s + "\n";
  return &out;
}

}  // extern "C"
