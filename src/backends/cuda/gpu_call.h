// What every GPU path of a call shares: the device scope, operands in place or staged, and
// the checked CUDA steps that drain the stream and report why before the CPU takes over.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "backends/cuda/cuda_runtime.h"
#include "core/config.h"
#include "core/problem.h"

namespace myblas {

// Makes `device` current for the call and restores the caller's device afterwards. With one
// visible device there is nothing to switch, and its two cudaGetDevice calls are skipped: they
// cost 0.1 us with the host's caches hot and 1.5-2 us with them cold (bench/probes/probe_call_overhead
// --cold, H100), on calls of 10-20 us.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (gpu_device_count() == 1) {
      saved_ = 0;
      return;
    }
    switching_ = true;
    if (cudaGetDevice(&saved_) != cudaSuccess) saved_ = -1;
    if (device >= 0 && device != saved_) status_ = cudaSetDevice(device);
  }
  ~DeviceScope() {
    int now = -1;
    if (switching_ && saved_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != saved_) cudaSetDevice(saved_);
  }
  cudaError_t status() const { return status_; }
  int saved() const { return saved_; }

 private:
  int saved_ = -1;
  bool switching_ = false;  // more than one device
  cudaError_t status_ = cudaSuccess;
};

// An operand as the GPU sees it: in place when it is device/managed memory of the device
// we run on, else a packed device copy.
struct DevOperand {
  const void* ptr = nullptr;
  int64_t ld = 1;
  DeviceBuffer buf;
};

// Every CUDA step is checked. On failure the stream is drained first, so nothing still in
// flight can touch the caller's memory while the CPU redoes the call.
// MYBLAS_TEST_FAULT=<point> makes a step fail as if CUDA had refused it: MYBLAS_CUDA_TRY's step
// does not run (a failed launch, allocation or copy does nothing), so a device C is left as it
// was. MYBLAS_CUDA_SYNC (the final synchronisation, the "sync" point) runs and then reports the
// failure; it is only reached when C was staged, so the caller's C is never written by a failed
// call.
#define MYBLAS_CUDA_STEP_(point, expr, what, run_when_injected)                        \
  do {                                                                                 \
    const bool injected_ = fault_injected(point);                                      \
    const cudaError_t e_ = injected_ && !(run_when_injected) ? cudaSuccess : (expr);   \
    if (e_ != cudaSuccess || injected_) {                                              \
      *why = injected_ ? std::string("injected fault at ") + point + " (" + what + ")" \
                       : note_cuda_error(e_, what);                                    \
      cudaStreamSynchronize(s);                                                        \
      cudaGetLastError();                                                              \
      return false;                                                                    \
    }                                                                                  \
  } while (0)
#define MYBLAS_CUDA_TRY(point, expr, what) MYBLAS_CUDA_STEP_(point, expr, what, false)
#define MYBLAS_CUDA_SYNC(expr, what) MYBLAS_CUDA_STEP_("sync", expr, what, true)

inline bool in_place(Mem mem, int owner, int device) {
  return mem == Mem::managed || (mem == Mem::device && owner == device);
}

inline bool matrix_in(const void* src, Mem mem, int owner, int device, int64_t ld, int rows, int cols,
               size_t es, bool upload, cudaStream_t s, DevOperand* out, std::string* why) {
  if (in_place(mem, owner, device)) {
    out->ptr = src;
    out->ld = ld;
    return true;
  }
  out->ld = rows > 0 ? rows : 1;
  MYBLAS_CUDA_TRY("alloc", out->buf.allocate(size_t(out->ld) * size_t(cols) * es, s), "cudaMallocAsync");
  out->ptr = out->buf.get();
  if (upload)
    MYBLAS_CUDA_TRY("copy", copy_matrix(out->buf.get(), out->ld, src, ld, rows, cols, es, s),
                    "copying an operand to the GPU");
  return true;
}

// Device of the first device-resident operand, else the caller's current device.
inline int run_device(int problem_device, int current) { return problem_device >= 0 ? problem_device : current; }

// Test-only MYBLAS_TEST_FAULT=sticky: the call finds the CUDA context lost, as after an
// illegal address, which must switch the process to the CPU for good with one warning.
inline bool sticky_fault(std::string* why) {
  if (!fault_injected("sticky")) return false;
  *why = note_cuda_error(cudaErrorIllegalAddress, "injected sticky fault");
  return true;
}

// The device a call runs on (-1: the thread's current one): its operands' device; for host
// arrays the process's first chosen GPU (MYBLAS_DEVICES or an MPI launcher), except on a stream
// the program set, which belongs to its current device. A thread that never picked a GPU is first
// given the chosen one (adopt_chosen_device).
inline int call_device(int problem_device, cudaStream_t s) {
  adopt_chosen_device();
  if (problem_device >= 0) return problem_device;
  return s ? -1 : host_array_device();
}

}  // namespace myblas
