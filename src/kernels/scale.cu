// Elementwise kernels: beta-scaling of a column-major matrix or a strided vector, and
// binary16 <-> FP32 matrix copies. The grid strides over rows and columns, so any m, n and
// leading dimension fit one launch.
#include <cuda_fp16.h>

#include "kernels/scale.h"

namespace myblas {

namespace {

template <typename T>
__device__ __forceinline__ float load_f32(const T* p);
template <>
__device__ __forceinline__ float load_f32<float>(const float* p) { return *p; }
template <>
__device__ __forceinline__ float load_f32<__half>(const __half* p) { return __half2float(*p); }

template <typename T>
__device__ __forceinline__ void store_f32(T* p, float v);
template <>
__device__ __forceinline__ void store_f32<float>(float* p, float v) { *p = v; }
template <>
__device__ __forceinline__ void store_f32<__half>(__half* p, float v) { *p = __float2half_rn(v); }

template <typename T>
__global__ void scale_matrix_kernel(T* c, int64_t ldc, int m, int n, float beta) {
  for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    T* col = c + j * ldc;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
         i += int64_t(gridDim.x) * blockDim.x) {
      store_f32(col + i, beta == 0.f ? 0.f : beta * load_f32(col + i));
    }
  }
}

template <typename S, typename D>
__global__ void convert_kernel(const S* src, int64_t lds, D* dst, int64_t ldd, int m, int n) {
  for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
         i += int64_t(gridDim.x) * blockDim.x)
      store_f32(dst + i + j * ldd, load_f32(src + i + j * lds));
}

// c := round(src + beta*c) to binary16: FP32 alpha*op(A)*op(B) in src, beta*C added in FP32.
__global__ void add_scaled_round_kernel(const float* src, int64_t lds, float beta, __half* c, int64_t ldc, int m,
                                        int n) {
  for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += int64_t(gridDim.x) * blockDim.x) {
      __half* p = c + i + j * ldc;
      *p = __float2half_rn(fmaf(beta, __half2float(*p), src[i + j * lds]));
    }
}

__global__ void scale_vector_kernel(float* y, int64_t inc, int n, float beta) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    float* p = y + i * inc;
    *p = beta == 0.f ? 0.f : beta * *p;
  }
}

template <typename R, bool kComplex>
__global__ void scale_typed_kernel(R* c, int64_t ldc, int64_t m, int64_t n, R bre, R bim, int part, bool real_diag) {
  constexpr int kW = kComplex ? 2 : 1;  // reals per element
  const bool zero = bre == R(0) && bim == R(0);
  for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    const int64_t i0 = part == 2 ? j : 0, i1 = part == 1 ? (j + 1 < m ? j + 1 : m) : m;
    R* col = c + j * ldc * kW;
    for (int64_t i = i0 + int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < i1;
         i += int64_t(gridDim.x) * blockDim.x) {
      R* e = col + i * kW;
      if (zero) {
        e[0] = R(0);
        if (kComplex) e[kW - 1] = R(0);
        continue;
      }
      if (kComplex) {
        const R re = e[0], im = e[kW - 1];
        e[0] = bre * re - bim * im;
        e[kW - 1] = (real_diag && i == j) ? R(0) : bre * im + bim * re;
      } else {
        e[0] = bre * e[0];
      }
    }
  }
}

dim3 matrix_grid(int m, int n, int threads) {
  unsigned gx = unsigned((int64_t(m) + threads - 1) / threads);
  if (gx > 1024u) gx = 1024u;
  unsigned gy = unsigned(n < 65535 ? n : 65535);
  return dim3(gx ? gx : 1u, gy ? gy : 1u);
}

}  // namespace

cudaError_t scale_matrix_typed(void* c, int64_t ldc, int64_t m, int64_t n, size_t es, bool complex, double beta_re,
                               double beta_im, int part, bool real_diagonal, cudaStream_t s) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  const dim3 grid = matrix_grid(int(m < INT32_MAX ? m : INT32_MAX), int(n < INT32_MAX ? n : INT32_MAX), 256);
  const bool dbl = es == (complex ? 16u : 8u);
  if (complex && dbl)
    scale_typed_kernel<double, true><<<grid, 256, 0, s>>>(static_cast<double*>(c), ldc, m, n, beta_re, beta_im, part,
                                                          real_diagonal);
  else if (complex)
    scale_typed_kernel<float, true><<<grid, 256, 0, s>>>(static_cast<float*>(c), ldc, m, n, float(beta_re),
                                                         float(beta_im), part, real_diagonal);
  else if (dbl)
    scale_typed_kernel<double, false><<<grid, 256, 0, s>>>(static_cast<double*>(c), ldc, m, n, beta_re, 0.0, part,
                                                           false);
  else
    scale_typed_kernel<float, false><<<grid, 256, 0, s>>>(static_cast<float*>(c), ldc, m, n, float(beta_re), 0.f,
                                                          part, false);
  return cudaGetLastError();
}

cudaError_t scale_matrix_f32(float* c, int64_t ldc, int m, int n, float beta, cudaStream_t s) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  scale_matrix_kernel<float><<<matrix_grid(m, n, 256), 256, 0, s>>>(c, ldc, m, n, beta);
  return cudaGetLastError();
}

cudaError_t scale_matrix_f16(uint16_t* c, int64_t ldc, int m, int n, float beta, cudaStream_t s) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  scale_matrix_kernel<__half><<<matrix_grid(m, n, 256), 256, 0, s>>>(
      reinterpret_cast<__half*>(c), ldc, m, n, beta);
  return cudaGetLastError();
}

cudaError_t widen_f16_f32(const uint16_t* src, int64_t lds, float* dst, int64_t ldd, int m, int n,
                          cudaStream_t s) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  convert_kernel<__half, float><<<matrix_grid(m, n, 256), 256, 0, s>>>(
      reinterpret_cast<const __half*>(src), lds, dst, ldd, m, n);
  return cudaGetLastError();
}

cudaError_t round_f32_f16(const float* src, int64_t lds, uint16_t* dst, int64_t ldd, int m, int n,
                          cudaStream_t s) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  convert_kernel<float, __half><<<matrix_grid(m, n, 256), 256, 0, s>>>(
      src, lds, reinterpret_cast<__half*>(dst), ldd, m, n);
  return cudaGetLastError();
}

cudaError_t add_scaled_round_f16(const float* src, int64_t lds, float beta, uint16_t* c, int64_t ldc, int m, int n,
                                 cudaStream_t s) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  const int threads = m >= 256 ? 256 : (m + 31) / 32 * 32;  // (skinny C: no idle warps)
  add_scaled_round_kernel<<<matrix_grid(m, n, threads), threads, 0, s>>>(src, lds, beta, reinterpret_cast<__half*>(c),
                                                                          ldc, m, n);
  return cudaGetLastError();
}

cudaError_t scale_vector_f32(float* y, int64_t inc, int n, float beta, cudaStream_t s) {
  if (n <= 0) return cudaSuccess;
  int blocks = (n + 255) / 256;
  if (blocks > 4096) blocks = 4096;
  scale_vector_kernel<<<blocks, 256, 0, s>>>(y, inc, n, beta);
  return cudaGetLastError();
}

}  // namespace myblas
