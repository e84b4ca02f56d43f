// C := beta*C on the device, for the alpha == 0 / k == 0 cases that never read A or B.
// beta == 0 stores zeros without reading C, so NaN or Inf there never propagates.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace myblas {

cudaError_t scale_matrix_f32(float* c, int64_t ldc, int m, int n, float beta, cudaStream_t s);
cudaError_t scale_matrix_f16(uint16_t* c, int64_t ldc, int m, int n, float beta, cudaStream_t s);
// y points at the vector's lowest-addressed element; inc > 0 is its stride.
cudaError_t scale_vector_f32(float* y, int64_t inc, int n, float beta, cudaStream_t s);

}  // namespace myblas
