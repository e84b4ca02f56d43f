#include "backends/cuda/cuda_runtime.h"

#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/devices.h"
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

// Device memory needs a CUDA context. While the process has none, every pointer is host
// memory and cudaPointerGetAttributes (which would create a context, costing the program
// time and GPU memory it never asked for) is not called. Asked through the driver API, which
// also answers the questions below without creating a context.
struct DriverProbe {
  CUresult (*ctx_get_current)(CUcontext*) = nullptr;
  CUresult (*ctx_get_device)(CUdevice*) = nullptr;
  CUresult (*ctx_get_id)(CUcontext, unsigned long long*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_attribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*primary_state)(CUdevice, unsigned*, int*) = nullptr;
  CUresult (*primary_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*primary_release)(CUdevice) = nullptr;
  CUresult (*pointer_attributes)(unsigned, CUpointer_attribute*, void**, CUdeviceptr) = nullptr;
  bool ok = false;
};

const DriverProbe& driver_probe() {
  static const DriverProbe d = [] {
    DriverProbe p;
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return p;
    auto bind = [h](auto* slot, const char* name) {
      *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(dlsym(h, name));
    };
    bind(&p.ctx_get_current, "cuCtxGetCurrent");
    bind(&p.ctx_get_device, "cuCtxGetDevice");
    bind(&p.ctx_get_id, "cuCtxGetId");
    bind(&p.device_get, "cuDeviceGet");
    bind(&p.device_attribute, "cuDeviceGetAttribute");
    bind(&p.primary_state, "cuDevicePrimaryCtxGetState");
    bind(&p.primary_retain, "cuDevicePrimaryCtxRetain");
    bind(&p.primary_release, "cuDevicePrimaryCtxRelease_v2");
    bind(&p.pointer_attributes, "cuPointerGetAttributes");
    p.ok = p.ctx_get_current && p.device_get && p.primary_state;
    return p;
  }();
  return d;
}

// Taken once, at the probe: the driver's handle and the compute capability of each device.
// Plain arrays: threads that exit while the process is being torn down may still ask.
constexpr int kMaxDevices = 64;
CUdevice g_devices[kMaxDevices];
int g_device_sm[kMaxDevices];
int g_device_total = 0;

std::atomic<bool> g_context_seen{false};

// Decided at the probe; never freed (threads may ask while the process is torn down).
const DeviceChoice* g_choice = nullptr;

bool any_context() {
  if (g_context_seen.load(std::memory_order_relaxed)) return true;
  const DriverProbe& d = driver_probe();
  bool active = !d.ok;  // cannot tell: let the runtime answer
  CUcontext cur = nullptr;
  if (!active && d.ctx_get_current(&cur) == CUDA_SUCCESS && cur) active = true;
  for (int i = 0; !active && i < g_device_total; ++i) {
    unsigned flags = 0;
    int on = 0;
    if (d.primary_state(g_devices[i], &flags, &on) == CUDA_SUCCESS && on) active = true;
  }
  if (active) g_context_seen.store(true);
  return active;
}

bool probe() {
  pthread_atfork(nullptr, nullptr, after_fork_in_child);
  // Test only (MYBLAS_TEST_FAULT=pretend-gpu): one usable GPU whatever the machine has, so that a
  // machine without one runs the host-array route of a GPU process (locating operands, the
  // rules, the host rows of the built-in table) and can time it; any GPU path tried there fails
  // and completes on the CPU with its warning.
  const bool pretend = fault_injected("pretend-gpu");
  int count = pretend ? 1 : 0;
  cudaError_t e = pretend ? cudaSuccess : cudaGetDeviceCount(&count);
  g_cuda_touched.store(true);
  if (e != cudaSuccess || count <= 0) {
    cudaGetLastError();
    if (verbose())
      log_line(strformat("no usable GPU (%s): every call runs on the CPU",
                         e != cudaSuccess ? cudaGetErrorString(e) : "no device"));
    return false;
  }
  const DriverProbe& d = driver_probe();
  g_device_total = count < kMaxDevices ? count : kMaxDevices;
  for (int i = 0; i < g_device_total; ++i) {
    g_devices[i] = CUdevice(i);
    g_device_sm[i] = -1;
    if (!d.ok) continue;
    if (d.device_get(&g_devices[i], i) != CUDA_SUCCESS) g_devices[i] = CUdevice(i);
    int major = 0, minor = 0;
    if (d.device_attribute &&
        d.device_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, g_devices[i]) == CUDA_SUCCESS &&
        d.device_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, g_devices[i]) == CUDA_SUCCESS)
      g_device_sm[i] = major * 10 + minor;
  }
  const DeviceChoice* choice = new DeviceChoice(choose_devices(device_env(), g_device_total));
  if (!choice->warning.empty()) warn_once("devices", choice->warning);
  if (verbose())
    log_line(strformat("devices: GPU%s %s (%s)", choice->devices.size() == 1 ? "" : "s",
                       device_list_text(choice->devices).c_str(), choice->reason.c_str()));
  g_choice = choice;
  return true;
}
}  // namespace

bool gpu_present() {
  static const bool present = probe();
  return present;
}

bool gpu_available() { return gpu_present() && !g_gpu_disabled.load(std::memory_order_relaxed); }

bool cpu_only_process() { return !gpu_present() && !g_gpu_disabled.load(std::memory_order_relaxed); }

bool gpu_lost() {
  // A fork child never probed in its parent's place: it inherits g_cuda_touched/g_gpu_disabled.
  return g_gpu_disabled.load(std::memory_order_relaxed);
}

bool device_memory_possible() { return gpu_available() && any_context(); }

int gpu_device_count() { return gpu_present() ? g_device_total : 0; }

int device_sm(int device) {
  return gpu_present() && device >= 0 && device < g_device_total ? g_device_sm[device] : -1;
}

const DeviceChoice& device_choice() {
  static const DeviceChoice none;
  return gpu_present() && g_choice ? *g_choice : none;
}

int host_array_device() {
  const DeviceChoice& c = device_choice();
  return c.chosen && !c.devices.empty() ? c.devices.front() : -1;
}

void adopt_chosen_device() {
  static thread_local bool asked = false;
  if (asked) return;
  asked = true;
  const int dev = host_array_device();
  if (dev < 0 || gpu_device_count() <= 1) return;  // nothing chosen, or nothing to choose from
  const DriverProbe& d = driver_probe();
  CUcontext cur = nullptr;
  if (!d.ok || d.ctx_get_current(&cur) != CUDA_SUCCESS || cur) return;  // the thread has a GPU of its own
  if (cudaSetDevice(dev) != cudaSuccess) cudaGetLastError();  // (the call itself will report a failure)
}

int current_device_no_context() {
  const DriverProbe& d = driver_probe();
  CUcontext cur = nullptr;
  CUdevice dev;
  if (!d.ok || !d.ctx_get_device || d.ctx_get_current(&cur) != CUDA_SUCCESS || !cur ||
      d.ctx_get_device(&dev) != CUDA_SUCCESS)
    return 0;
  for (int i = 0; i < g_device_total; ++i)
    if (g_devices[i] == dev) return i;
  return 0;
}

uint64_t current_context_id() {
  const DriverProbe& d = driver_probe();
  CUcontext cur = nullptr;
  unsigned long long id = 0;
  if (!d.ok || !d.ctx_get_id || d.ctx_get_current(&cur) != CUDA_SUCCESS || !cur ||
      d.ctx_get_id(cur, &id) != CUDA_SUCCESS)
    return 0;
  return id;
}

uint64_t primary_context_id(int device) {
  const DriverProbe& d = driver_probe();
  if (!d.ok || !d.ctx_get_id || !d.primary_retain || !d.primary_release || device < 0 ||
      device >= g_device_total)
    return 0;
  const CUdevice dev = g_devices[device];
  unsigned flags = 0;
  int on = 0;
  // Retaining an inactive primary context would create it: only an active one is asked.
  if (d.primary_state(dev, &flags, &on) != CUDA_SUCCESS || !on) return 0;
  CUcontext ctx = nullptr;
  unsigned long long id = 0;
  if (d.primary_retain(&ctx, dev) != CUDA_SUCCESS) return 0;
  if (d.ctx_get_id(ctx, &id) != CUDA_SUCCESS) id = 0;
  d.primary_release(dev);
  return id;
}

namespace {
// The driver's answer for one pointer, asked for only what classification needs: about half
// the time of cudaPointerGetAttributes (H100, bench/results/h100-host-2026-11-22.md), which
// asks the same driver for more. False when the driver cannot answer or answers with a memory
// type not listed here: then the runtime decides, as it always did.
bool classify_with_driver(const void* p, Mem* mem, int* device) {
  const DriverProbe& d = driver_probe();
  if (!d.pointer_attributes) return false;
  CUpointer_attribute which[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  unsigned type = 0, managed = 0;
  int ordinal = -1;
  void* out[3] = {&type, &managed, &ordinal};
  if (d.pointer_attributes(3, which, out, CUdeviceptr(p)) != CUDA_SUCCESS) return false;
  if (managed) {
    *mem = Mem::managed;
    *device = ordinal;
    return true;
  }
  switch (type) {
    case CU_MEMORYTYPE_DEVICE:
      *mem = Mem::device;
      *device = ordinal;
      return true;
    case 0:                    // no CUDA allocation or registration contains p: plain host memory
    case CU_MEMORYTYPE_HOST:   // page-locked or registered host memory
      *mem = Mem::host;
      return true;
    default:
      return false;
  }
}
}  // namespace

Mem classify_pointer(const void* p, int* device) {
  if (p == nullptr || !gpu_available() || !any_context()) return Mem::host;
  Mem mem;
  if (classify_with_driver(p, &mem, device)) return mem;
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

Mem classify_pointer_range(const void* p, int* device, uintptr_t* lo, uintptr_t* hi) {
  *lo = *hi = 0;
  if (p == nullptr || !gpu_available() || !any_context()) return Mem::host;
  const DriverProbe& d = driver_probe();
  if (d.pointer_attributes) {
    CUpointer_attribute which[5] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                    CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    unsigned type = 0, managed = 0;
    int ordinal = -1;
    CUdeviceptr start = 0;
    size_t size = 0;
    void* out[5] = {&type, &managed, &ordinal, &start, &size};
    // (a pointer CUDA does not know gets default values and CUDA_SUCCESS: plain host memory)
    if (d.pointer_attributes(5, which, out, CUdeviceptr(p)) == CUDA_SUCCESS) {
      const bool dev_mem = managed || type == CU_MEMORYTYPE_DEVICE;
      if (dev_mem || type == 0 || type == CU_MEMORYTYPE_HOST) {
        if (!dev_mem) return Mem::host;
        *device = ordinal;
        if (size > 0 && start <= CUdeviceptr(p) && CUdeviceptr(p) - start < size) {
          *lo = uintptr_t(start);
          *hi = uintptr_t(start) + size;
        }
        return managed ? Mem::managed : Mem::device;
      }
    }
  }
  return classify_pointer(p, device);
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

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  if (ptr_) cudaFreeAsync(ptr_, stream_);
  ptr_ = nullptr;
}

namespace {
// myblas's own stream-ordered pool per device. The default pool gives memory back to the
// driver at every synchronisation, so each call would map its scratch anew (tens of us for
// tens of MB); ours keeps up to kPoolKeep cached, and leaves the program's default pool as it was.
constexpr uint64_t kPoolKeep = 256ull << 20;
std::mutex g_pool_mutex;
std::vector<cudaMemPool_t> g_pools;

cudaMemPool_t pool_for_current_device() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return nullptr;
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (size_t(dev) >= g_pools.size()) g_pools.resize(size_t(dev) + 1, nullptr);
  cudaMemPool_t& pool = g_pools[size_t(dev)];
  if (!pool) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
      cudaGetLastError();
      pool = nullptr;
      return nullptr;
    }
    uint64_t keep = kPoolKeep;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  }
  return pool;
}
}  // namespace

cudaError_t DeviceBuffer::allocate(size_t bytes, cudaStream_t stream) {
  stream_ = stream;
  if (bytes == 0) bytes = 4;
  if (cudaMemPool_t pool = pool_for_current_device())
    return cudaMallocFromPoolAsync(&ptr_, bytes, pool, stream);
  return cudaMallocAsync(&ptr_, bytes, stream);
}

}  // namespace myblas

namespace myblas {

cudaError_t copy_matrix(void* dst, int64_t ldd, const void* src, int64_t lds, int rows, int cols,
                        size_t elem, cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  if (ldd == rows && lds == rows)  // one contiguous block: a plain copy, not cols rows of a 2D one
    return cudaMemcpyAsync(dst, src, size_t(rows) * size_t(cols) * elem, cudaMemcpyDefault, s);
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
