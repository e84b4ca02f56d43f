// Which measured dispatch table a call uses. Looked up once per GPU model, at the first call
// that needs it (README, "Dispatch tables"):
//   1. MYBLAS_DISPATCH_TABLE=<file>, if set;
//   2. dispatch-sm_XY.csv for the device's compute capability, installed in share/myblas
//      beside the library's lib directory, or in the build tree's share/myblas;
//   3. the sm_90 table compiled in (data/dispatch-sm_90.csv, embedded at build time).
// A file that exists but does not parse is ignored with one warning; MYBLAS_VERBOSE logs the
// table each device got and where it came from.
#pragma once
#include "dispatch/table.h"

namespace myblas {

// The table for GPU work on `device` (-1: the calling thread's current device). Only called
// once a usable GPU is known to exist.
const DispatchTable& dispatch_table(int device);
// Whether every device has the same table (then dispatch_table's answer does not depend on the
// device or the calling thread).
bool dispatch_tables_uniform();

}  // namespace myblas
