#include "backends/cuda/cuda_runtime.h"

#include <pthread.h>

#include <atomic>
#include <mutex>

#include "core/log.h"

namespace myblas {

namespace {
std::atomic<bool> g_cuda_touched{false};  // this process initialised CUDA
std::atomic<bool> g_gpu_disabled{false};  // fork child or sticky error
thread_local cudaStream_t t_stream = nullptr;

void after_fork_in_child() {
  // CUDA does not survive fork: a child of a parent that used CUDA stays on the CPU.
  if (g_cuda_touched.load()) g_gpu_disabled.store(true);
}

bool probe() {
  pthread_atfork(nullptr, nullptr, after_fork_in_child);
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  g_cuda_touched.store(true);
  if (e != cudaSuccess || count <= 0) {
    cudaGetLastError();
    if (verbose())
      log_line(strformat("no usable GPU (%s): every call runs on the CPU",
                         e != cudaSuccess ? cudaGetErrorString(e) : "no device"));
    return false;
  }
  return true;
}
}  // namespace

bool gpu_available() {
  static const bool present = probe();
  return present && !g_gpu_disabled.load(std::memory_order_relaxed);
}

Mem classify_pointer(const void* p, int* device) {
  if (p == nullptr || !gpu_available()) return Mem::host;
  cudaPointerAttributes attr{};
  cudaError_t e = cudaPointerGetAttributes(&attr, p);
  if (e != cudaSuccess) {
    cudaGetLastError();  // not a pointer CUDA knows: plain host memory
    return Mem::host;
  }
  switch (attr.type) {
    case cudaMemoryTypeDevice:
      *device = attr.device;
      return Mem::device;
    case cudaMemoryTypeManaged:
      *device = attr.device;
      return Mem::managed;
    default:  // unregistered or page-locked host memory
      return Mem::host;
  }
}

std::string note_cuda_error(cudaError_t e, const char* what) {
  std::string msg = strformat("%s failed: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
  // Errors that leave the context unusable: nothing on the GPU can be trusted after them.
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
      if (!g_gpu_disabled.exchange(true))
        warn_once("sticky", "the CUDA context is unusable after: " + msg +
                                "; every later call runs on the CPU");
      break;
    default:
      cudaGetLastError();  // clear a non-sticky error so later calls start clean
      break;
  }
  return msg;
}

cudaStream_t thread_stream() { return t_stream; }
void set_thread_stream(cudaStream_t s) { t_stream = s; }

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFreeAsync(ptr_, stream_);
}

cudaError_t DeviceBuffer::allocate(size_t bytes, cudaStream_t stream) {
  stream_ = stream;
  if (bytes == 0) bytes = 4;
  return cudaMallocAsync(&ptr_, bytes, stream);
}

}  // namespace myblas

namespace myblas {

cudaError_t copy_matrix(void* dst, int64_t ldd, const void* src, int64_t lds, int rows, int cols,
                        size_t elem, cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  return cudaMemcpy2DAsync(dst, size_t(ldd) * elem, src, size_t(lds) * elem, size_t(rows) * elem,
                           size_t(cols), cudaMemcpyDefault, s);
}

cudaError_t copy_vector(void* dst, int64_t inc_dst, const void* src, int64_t inc_src, int len,
                        size_t elem, cudaStream_t s) {
  if (len <= 0) return cudaSuccess;
  const int64_t sd = inc_dst < 0 ? -inc_dst : inc_dst, ss = inc_src < 0 ? -inc_src : inc_src;
  return cudaMemcpy2DAsync(dst, size_t(sd) * elem, src, size_t(ss) * elem, elem, size_t(len),
                           cudaMemcpyDefault, s);
}

}  // namespace myblas
