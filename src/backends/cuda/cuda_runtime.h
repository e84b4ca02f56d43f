// CUDA state shared by the GPU paths: is a GPU usable, where does a pointer live,
// which stream does this thread use, and device scratch memory.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/problem.h"

namespace myblas {

struct DeviceChoice;

// True when a CUDA device can be used by this process: a driver and a device exist,
// the process is not a fork child of a CUDA parent, and no sticky error was seen.
bool gpu_available();
// True when a GPU was found but can no longer be used (fork child of a CUDA process, or a
// sticky error): device pointers may still be passed to us but cannot be classified or read.
bool gpu_lost();
// True when no GPU was found and none was lost (a fork child of a process that probed CUDA is
// not one): every pointer is host memory the CPU can read. One call, two loads.
bool cpu_only_process();
// Classifies p with the driver's cuPointerGetAttributes (the runtime's cudaPointerGetAttributes
// where the driver cannot answer); sets *device for device/managed memory.
// Without a usable GPU every pointer is host memory.
Mem classify_pointer(const void* p, int* device);
// The same, and for device or managed memory the allocation that holds p: [*lo, *hi) (both 0 when
// the driver does not say, and for host memory), so that a caller locating many pointers into one
// allocation (a batch's pointer arrays) asks the driver once.
Mem classify_pointer_range(const void* p, int* device, uintptr_t* lo, uintptr_t* hi);
// False while the process has no CUDA context (or no usable GPU): then no operand can be
// device memory, and a call need not classify its pointers. Asks the driver, never creates a
// context; once a context has been seen it is a load of a flag.
bool device_memory_possible();

// Devices and their compute capability (major * 10 + minor, e.g. 90; -1 if unknown), taken
// once at the probe. No context is created.
int gpu_device_count();
int device_sm(int device);
// The device that the calling thread's GPU work goes to when no operand names one: the device
// of its current CUDA context, else 0. Creates no context.
int current_device_no_context();
// The GPUs this process's host-array calls use (core/devices.h: MYBLAS_DEVICES, else an MPI
// launcher's local rank, else all), decided at the probe, which also logs it (MYBLAS_VERBOSE) and
// warns once about a bad value. Without a usable GPU: no devices.
const DeviceChoice& device_choice();
// Where a host-array call that is not split runs: the first chosen GPU when MYBLAS_DEVICES or a
// launcher chose; else -1, the calling thread's current device.
int host_array_device();
// When MYBLAS_DEVICES or a launcher chose, a thread that comes to a GPU path with no CUDA context
// of its own (it never picked a device) is made to use the first chosen GPU, once per thread, and
// left there: its own later CUDA work, and the context CUDA creates for it, land on the process's
// GPU instead of GPU 0 (under mpirun, every rank's context would otherwise also go to GPU 0).
// A thread that already has a context is left as it is.
void adopt_chosen_device();
// Unique id (cuCtxGetId) of the calling thread's current context, and of a device's primary
// context while it exists; 0 when there is none or it cannot be asked. No context is created.
// Lets a cache of streams tell that the context they were made in is still the one in use
// (a program's cudaDeviceReset destroys them with it).
uint64_t current_context_id();
uint64_t primary_context_id(int device);
// Records a failed CUDA/cuBLAS step. Sticky errors (the context is lost) switch the
// process to the CPU path for good. Returns a printable description.
std::string note_cuda_error(cudaError_t e, const char* what);

// The stream set by myblas_set_stream for the calling thread (nullptr: legacy default).
cudaStream_t thread_stream();
void set_thread_stream(cudaStream_t s);

// Device memory for the duration of one call, stream-ordered (cudaMallocAsync).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  cudaError_t allocate(size_t bytes, cudaStream_t stream);
  void release();  // frees now (stream-ordered), before the stream it was allocated on goes
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace myblas

namespace myblas {

// Copies a rows x cols column-major block between any two memories (cudaMemcpyDefault),
// honouring both leading dimensions (in elements); stream-ordered.
cudaError_t copy_matrix(void* dst, int64_t ldd, const void* src, int64_t lds, int rows, int cols,
                        size_t elem, cudaStream_t s);
// Copies len elements spaced |inc_src| apart (src is the lowest-addressed one) to elements
// spaced |inc_dst| apart. Address order is kept, so a packed copy of a vector with a
// negative increment is used with increment -1.
cudaError_t copy_vector(void* dst, int64_t inc_dst, const void* src, int64_t inc_src, int len,
                        size_t elem, cudaStream_t s);

}  // namespace myblas
