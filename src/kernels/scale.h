// Elementwise kernels around the GEMM/GEMV calls:
//  - C := beta*C, for the alpha == 0 / k == 0 cases that never read A or B. beta == 0 stores
//    zeros without reading C, so NaN or Inf there never propagates;
//  - binary16 <-> FP32 copies of a matrix, so HGEMM can accumulate and apply beta in FP32 and
//    round its result to binary16 once.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace myblas {

cudaError_t scale_matrix_f32(float* c, int64_t ldc, int m, int n, float beta, cudaStream_t s);
cudaError_t scale_matrix_f16(uint16_t* c, int64_t ldc, int m, int n, float beta, cudaStream_t s);
// dst (m x n, ldd) := src (m x n, lds) widened / rounded to nearest even.
cudaError_t widen_f16_f32(const uint16_t* src, int64_t lds, float* dst, int64_t ldd, int m, int n,
                          cudaStream_t s);
cudaError_t round_f32_f16(const float* src, int64_t lds, uint16_t* dst, int64_t ldd, int m, int n,
                          cudaStream_t s);
// C := beta*C for FP32/FP64/complex elements (es = 4, 8, 8 or 16 bytes; complex when `complex`),
// over all of C (part 0), its upper (1) or lower (2) triangle; `real_diagonal` keeps only the
// real part of the diagonal (HERK/HER2K); beta == 0 stores zeros unread. beta = (beta_re, beta_im).
cudaError_t scale_matrix_typed(void* c, int64_t ldc, int64_t m, int64_t n, size_t es, bool complex, double beta_re,
                               double beta_im, int part, bool real_diagonal, cudaStream_t s);
// c (m x n, ldc, binary16) := round(src + beta*c): src (m x n, lds) holds alpha*op(A)*op(B) in
// FP32, beta*C is added in FP32 and the sum rounded to nearest even once.
cudaError_t add_scaled_round_f16(const float* src, int64_t lds, float beta, uint16_t* c, int64_t ldc, int m, int n,
                                 cudaStream_t s);
// y points at the vector's lowest-addressed element; inc > 0 is its stride.
cudaError_t scale_vector_f32(float* y, int64_t inc, int n, float beta, cudaStream_t s);

}  // namespace myblas
