// scale_batch: C_i := beta C_i over every product of one group, for the groups whose alpha is 0
// (or k is 0): A and B are never read, and beta == 0 stores zeros without reading C (a NaN there
// does not survive), as the reference GEMM and GEMV do. One grid-stride launch per group.
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/batched.h"

namespace myblas {

namespace {

struct ScaleArgs {
  void* c;
  const void* const* list;  // c pointers (the third third of a device list), or nullptr
  long long stride, count, rows, cols, ld;
  double beta_re, beta_im;
};

template <class T>
__device__ __forceinline__ T scaled(const T& v, double re, double) {
  return T(re * double(v));
}
template <>
__device__ __forceinline__ __half scaled<__half>(const __half& v, double re, double) {
  return __float2half_rn(float(re) * __half2float(v));
}
template <>
__device__ __forceinline__ float2 scaled<float2>(const float2& v, double re, double im) {
  const float r = float(re), i = float(im);
  return make_float2(r * v.x - i * v.y, r * v.y + i * v.x);
}
template <>
__device__ __forceinline__ double2 scaled<double2>(const double2& v, double re, double im) {
  return make_double2(re * v.x - im * v.y, re * v.y + im * v.x);
}

template <class T>
__global__ void scale_batch(const ScaleArgs a) {
  const long long per = a.rows * a.cols, total = per * a.count;
  const bool zero = a.beta_re == 0 && a.beta_im == 0;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long item = e / per, w = e % per, r = w % a.rows, c = w / a.rows;
    T* base = a.list ? static_cast<T*>(const_cast<void*>(a.list[item])) : static_cast<T*>(a.c) + item * a.stride;
    T& x = base[c * a.ld + r];
    x = zero ? T{} : scaled<T>(x, a.beta_re, a.beta_im);
  }
}

template <class T>
cudaError_t launch(const ScaleArgs& a, cudaStream_t s) {
  const long long total = a.rows * a.cols * a.count;
  if (total <= 0) return cudaSuccess;
  long long blocks = (total + 255) / 256;
  if (blocks > 65536) blocks = 65536;
  scale_batch<T><<<unsigned(blocks), 256, 0, s>>>(a);
  return cudaGetLastError();
}

}  // namespace

cudaError_t batched_scale_run(Dtype type, const BatchGroup& g, int64_t rows, int64_t cols, int64_t ld,
                              const void* const* dev_list, cudaStream_t s) {
  ScaleArgs a{};
  a.c = g.c;
  a.list = dev_list ? dev_list + 2 * g.count : nullptr;
  a.stride = g.stride_c, a.count = g.count, a.rows = rows, a.cols = cols, a.ld = ld;
  a.beta_re = g.beta.re, a.beta_im = g.beta.im;
  switch (type) {
    case Dtype::s: return launch<float>(a, s);
    case Dtype::d: return launch<double>(a, s);
    case Dtype::c: return launch<float2>(a, s);
    case Dtype::z: return launch<double2>(a, s);
    case Dtype::h: return launch<__half>(a, s);
  }
  return cudaErrorInvalidValue;
}

}  // namespace myblas
