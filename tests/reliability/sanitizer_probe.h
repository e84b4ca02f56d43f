// Single accesses at the end of a device allocation, to see what compute-sanitizer reports for
// each (sanitizer_probe.cu).
#pragma once
#include <cuda_runtime_api.h>

enum ProbeMode {
  kProbeLoadLast,      // plain 4-byte load of the last float: clean
  kProbeLoadPastEnd,   // 4-byte load one float past the end: memcheck must report it
  kProbeLoadUninit,    // 4-byte load of a float never written: initcheck must report it
  kProbeCp4Last,       // cp.async 4 bytes of the last float
  kProbeCp16Src4Last,  // cp.async 16 bytes with src-size 4 at the last float
  kProbeCp16Src0Last,  // cp.async 16 bytes with src-size 0 at the last float
  kProbeBulkStore,     // cp.async.bulk of 16 bytes shared -> global (as TMA-store epilogues do),
                       // then cudaMemcpy of those bytes to the host: is the store seen as a write?
  kProbeBulkStoreControl,  // the same with plain stores instead (must not be reported)
};

// Runs one probe on a fresh 5-float allocation (only the last float written); *result gets
// what the kernel read (the shared copy's sum for the cp.async modes; for the store modes, the
// sum of the 4 floats copied back to the host, 4 * 0.25 = 1 when the store happened).
cudaError_t sanitizer_probe(int mode, float* result);
