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

bool call_ranges_on() { return domain() != nullptr; }

CallRange::CallRange(const char* fmt, ...) {
  const nvtxDomainHandle_t d = domain();
  if (!d) return;
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
  pushed_ = true;
}

CallRange::~CallRange() {
  if (pushed_) nvtxDomainRangePop(domain());
}

}  // namespace myblas
