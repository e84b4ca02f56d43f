// What compute-sanitizer reports for the global-memory accesses our kernels make at the end of an
// operand (sanitize_kernels' "probe.*" groups; docs/reliability.md). One thread reads the last
// float of a 5-float allocation (20 bytes, the last float 16-byte aligned, only it initialised):
// a plain load, cp.async of 4 bytes, and cp.async of 16 bytes with src-size 4 or 0 (PTX: only
// src-size bytes are read, the rest of the 16 zero-filled), which the pipelined SGEMM kernels
// issue at the edges of A and B. Two controls must be reported: a load one float past the end
// (memcheck) and a load of an element never written (initcheck). The store probes ask whether
// initcheck sees a bulk (TMA-style) store as initialising memory, by copying its result back.
#include <cuda_runtime.h>

#include "reliability/sanitizer_probe.h"

namespace {

__device__ __forceinline__ void cp_async(float* dst, const float* src, int cp_bytes, int src_bytes) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if (cp_bytes == 4)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(src_bytes));
  else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(src_bytes));
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
}

__global__ void probe_kernel(const float* x, float* out, int mode) {
  __shared__ __align__(16) float s[4];
  s[0] = s[1] = s[2] = s[3] = -1.f;
  __syncthreads();
  switch (mode) {
    case kProbeLoadLast: out[0] = x[4]; return;
    case kProbeLoadPastEnd: out[0] = x[5]; return;
    case kProbeLoadUninit: out[0] = x[3]; return;
    case kProbeCp4Last: cp_async(s, x + 4, 4, 4); break;
    case kProbeCp16Src4Last: cp_async(s, x + 4, 16, 4); break;
    case kProbeCp16Src0Last: cp_async(s, x + 4, 16, 0); break;
    default: return;
  }
  __syncthreads();
  out[0] = s[0] + s[1] + s[2] + s[3];
}

// Four floats 0.25 to out[0..3]: through shared memory and one bulk copy (sm_90: the kind of
// store TMA epilogues make), or plain stores.
__global__ void store_kernel(float* out, bool bulk) {
  __shared__ __align__(16) float s[4];
  if (!bulk) {
    for (int i = 0; i < 4; ++i) out[i] = 0.25f;
    return;
  }
  for (int i = 0; i < 4; ++i) s[i] = 0.25f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // s visible to the bulk copy
  const unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(s));
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 16;\n" ::"l"(out), "r"(src) : "memory");
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
#else
  for (int i = 0; i < 4; ++i) out[i] = s[i];
#endif
}

cudaError_t store_probe(bool bulk, float* result) {
  float* out = nullptr;
  cudaError_t e = cudaMalloc(&out, 4 * sizeof(float));
  if (e != cudaSuccess) return e;
  store_kernel<<<1, 1>>>(out, bulk);
  e = cudaGetLastError();
  float h[4] = {};
  if (e == cudaSuccess) e = cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  *result = h[0] + h[1] + h[2] + h[3];
  cudaFree(out);
  return e;
}

}  // namespace

cudaError_t sanitizer_probe(int mode, float* result) {
  if (mode == kProbeBulkStore || mode == kProbeBulkStoreControl) return store_probe(mode == kProbeBulkStore, result);
  float *x = nullptr, *out = nullptr;
  cudaError_t e = cudaMalloc(&x, 5 * sizeof(float));
  if (e != cudaSuccess) return e;
  e = cudaMalloc(&out, sizeof(float));
  const float last = 0.25f;
  if (e == cudaSuccess) e = cudaMemcpy(x + 4, &last, sizeof last, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    probe_kernel<<<1, 1>>>(x, out, mode);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(result, out, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(out);
  return e;
}
