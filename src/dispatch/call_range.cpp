#include "dispatch/call_range.h"

#include <nvtx3/nvToolsExt.h>

#include <cstdarg>
#include <cstdio>

namespace myblas {

namespace {
// Null unless a tool is attached: NVTX's domain creation is a no-op returning null without one.
nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t d = nvtxDomainCreateA("myblas");
  return d;
}
}  // namespace

std::atomic<CallRange::State> CallRange::g_state{CallRange::kUnknown};

bool CallRange::push(const char* fmt, ...) {
  const nvtxDomainHandle_t d = domain();
  g_state.store(d ? kOn : kOff, std::memory_order_relaxed);  // (every thread stores the same value)
  if (!d) return false;
  char name[160];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  nvtxEventAttributes_t attr{};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = name;
  nvtxDomainRangePushEx(d, &attr);
  return true;
}

void CallRange::pop() { nvtxDomainRangePop(domain()); }

}  // namespace myblas
