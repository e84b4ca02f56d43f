// Probe (issue 4, N short-wide: 1000 x 100000 >= 1.00x, 1024 x 16384): does an N SGEMV whose blocks
// read neighbouring parts of A at the same time stream at the read ceiling?
// Not a library kernel: float4 loads only (A 16-byte aligned, lda % 4 == 0, m % 4 == 0), n a
// multiple of the chunk width, unit x, alpha 1, beta 0.
// Build (not part of the CMake build):
//   nvcc -O3 -std=c++17 -arch=sm_90a -Ibench bench/probe_sgemv_sweep.cu bench/read_ceiling.cu \
//        -o probe_sgemv_sweep -lcublas
// Run: probe_sgemv_sweep [REPS]
//
// Why: at N 1000 x 100000 every kernel of ours and cuBLAS stream A at 2.6-2.7 TB/s, whatever the
// column split (h100-targets-2026-11-26.md, commands 10 and 11), while a kernel that only reads A
// reaches 3.0 TB/s. Those kernels give each block one contiguous range of columns, so at any
// moment the grid reads as many distant parts of A as it has blocks. n_lanes at 8192^2, whose
// blocks read the same columns at the same time, runs within 1% of the ceiling, and a split that
// scattered its warps over the matrix lost 10% (h100-sgemv-2026-11-26-nlanes.md, section 7).
// Here ("sweep") the grid's B blocks take chunks of CW whole columns round-robin (block b: chunks
// b, b + B, ...), so together they read B * CW consecutive columns, one window of A moving
// through memory. A thread owns RQ row quads (a float4 of each column) and keeps a partial y of
// its rows; the B partial vectors are added by a second launch in block order (deterministic).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_sgemv_harness.h"

namespace {

constexpr int kThreads = 256;

// Block b adds columns of chunks b, b + gridDim.x, ... into part[b*m + row], rows 4q .. 4q+3 for
// the thread's quads q = threadIdx.x + 256*j (j < RQ), loads one chunk ahead.
template <int RQ, int CW, int MINB>
__global__ __launch_bounds__(kThreads, MINB) void sweep(const float* __restrict__ a, int64_t lda,
                                                        const float* __restrict__ x, float* __restrict__ part,
                                                        int m, int n) {
  const int nch = n / CW;
  float acc[RQ][4] = {};
  bool live[RQ];
#pragma unroll
  for (int j = 0; j < RQ; ++j) live[j] = 4 * (int(threadIdx.x) + kThreads * j) < m;
  auto load = [&](int c, float4 (&v)[RQ][CW], float (&xv)[CW]) {
#pragma unroll
    for (int k = 0; k < CW; ++k) {
      const int64_t col = int64_t(c) * CW + k;
      xv[k] = __ldg(x + col);
#pragma unroll
      for (int j = 0; j < RQ; ++j)
        v[j][k] = live[j] ? __ldcs(reinterpret_cast<const float4*>(a + col * lda) + threadIdx.x + kThreads * j)
                          : make_float4(0.f, 0.f, 0.f, 0.f);
    }
  };
  int c = blockIdx.x;
  if (c < nch) {
    float4 cur[RQ][CW];
    float xc[CW];
    load(c, cur, xc);
    for (; c < nch; c += gridDim.x) {
      const int cn = c + gridDim.x;
      float4 nxt[RQ][CW];
      float xn[CW];
      if (cn < nch) load(cn, nxt, xn);
#pragma unroll
      for (int k = 0; k < CW; ++k)
#pragma unroll
        for (int j = 0; j < RQ; ++j) {
          acc[j][0] = fmaf(cur[j][k].x, xc[k], acc[j][0]);
          acc[j][1] = fmaf(cur[j][k].y, xc[k], acc[j][1]);
          acc[j][2] = fmaf(cur[j][k].z, xc[k], acc[j][2]);
          acc[j][3] = fmaf(cur[j][k].w, xc[k], acc[j][3]);
        }
#pragma unroll
      for (int k = 0; k < CW; ++k) {
        xc[k] = xn[k];
#pragma unroll
        for (int j = 0; j < RQ; ++j) cur[j][k] = nxt[j][k];
      }
    }
  }
#pragma unroll
  for (int j = 0; j < RQ; ++j)
    if (live[j])
      reinterpret_cast<float4*>(part + int64_t(blockIdx.x) * m)[threadIdx.x + kThreads * j] =
          make_float4(acc[j][0], acc[j][1], acc[j][2], acc[j][3]);
}

// y[i] = sum over b < B of part[b*m + i], in b order: a block of 32 x 32 threads takes 32 rows;
// thread (g, r) adds b = g, g + 32, ... in order, then thread (0, r) adds the 32 groups in order.
__global__ __launch_bounds__(1024) void add_parts(const float* __restrict__ part, int B, int m,
                                                  float* __restrict__ y) {
  __shared__ float s[32][33];
  const int r = threadIdx.x % 32, g = threadIdx.x / 32;
  const int i = blockIdx.x * 32 + r;
  float v = 0.f;
  if (i < m)
    for (int b = g; b < B; b += 32) v += part[int64_t(b) * m + i];
  s[g][r] = v;
  __syncthreads();
  if (g == 0 && i < m) {
    float t = 0.f;
    for (int q = 0; q < 32; ++q) t += s[q][r];
    y[i] = t;
  }
}

// v2: the library kernel's loads (n_sweep_float4.cu as first written): x by a plain load with a
// column test, A through a load_rows4-like helper (float4 when the 4 rows are in range, else
// single floats), to tell its code from its launch (scratch from a pool per call).
__device__ __forceinline__ float4 rows4(const float* p, int r, int rows) {
  if (r + 3 < rows) return __ldcs(reinterpret_cast<const float4*>(p));
  return make_float4(r < rows ? __ldcs(p) : 0.f, r + 1 < rows ? __ldcs(p + 1) : 0.f, r + 2 < rows ? __ldcs(p + 2) : 0.f,
                     r + 3 < rows ? __ldcs(p + 3) : 0.f);
}
template <int CW>
__global__ __launch_bounds__(kThreads, 2) void sweep_libcode(const float* __restrict__ a, int64_t lda,
                                                             const float* x, float* __restrict__ part, int m, int n) {
  const int nch = (n + CW - 1) / CW;
  const int r = 4 * int(threadIdx.x);
  float acc[4] = {};
  auto load = [&](int c, float4 (&v)[CW], float (&xv)[CW]) {
    const int c0 = c * CW;
#pragma unroll
    for (int k = 0; k < CW; ++k) {
      const int col = c0 + k;
      const bool in = col < n;
      const float* ap = a + int64_t(in ? col : 0) * lda;
      xv[k] = in ? x[col] : 0.f;
      v[k] = in ? rows4(ap + r, r, m) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
  };
  int c = blockIdx.x;
  if (c < nch) {
    float4 cur[CW];
    float xc[CW];
    load(c, cur, xc);
    for (; c < nch; c += gridDim.x) {
      const int cn = c + gridDim.x;
      float4 nxt[CW];
      float xn[CW];
      if (cn < nch) load(cn, nxt, xn);
#pragma unroll
      for (int k = 0; k < CW; ++k) {
        acc[0] = fmaf(cur[k].x, xc[k], acc[0]);
        acc[1] = fmaf(cur[k].y, xc[k], acc[1]);
        acc[2] = fmaf(cur[k].z, xc[k], acc[2]);
        acc[3] = fmaf(cur[k].w, xc[k], acc[3]);
      }
#pragma unroll
      for (int k = 0; k < CW; ++k) {
        xc[k] = xn[k];
        cur[k] = nxt[k];
      }
    }
  }
  float* out = part + int64_t(blockIdx.x) * m;
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (r + i < m) out[r + i] = acc[i];
}

void run_libcode(const float* a, int lda, const float* x, float* y, int m, int n, int blocks, float* part) {
  sweep_libcode<8><<<blocks, kThreads>>>(a, lda, x, part, m, n);
  CK(cudaGetLastError());
  add_parts<<<(m + 31) / 32, 1024>>>(part, blocks, m, y);
  CK(cudaGetLastError());
}

// The probe kernel with its partial sums in memory taken from the default pool per call.
void run_sweep_alloc(const float* a, int lda, const float* x, float* y, int m, int n, int blocks, float*) {
  float* part = nullptr;
  CK(cudaMallocAsync(&part, size_t(blocks) * m * 4, nullptr));
  sweep<1, 8, 2><<<blocks, kThreads>>>(a, lda, x, part, m, n);
  CK(cudaGetLastError());
  add_parts<<<(m + 31) / 32, 1024>>>(part, blocks, m, y);
  CK(cudaGetLastError());
  CK(cudaFreeAsync(part, nullptr));
}

template <int RQ, int CW, int MINB>
void run_sweep(const float* a, int lda, const float* x, float* y, int m, int n, int blocks, float* part) {
  sweep<RQ, CW, MINB><<<blocks, kThreads>>>(a, lda, x, part, m, n);
  CK(cudaGetLastError());
  add_parts<<<(m + 31) / 32, 1024>>>(part, blocks, m, y);
  CK(cudaGetLastError());
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::pair<int, int>> shapes = {{1000, 100000}, {1024, 16384}, {2048, 2048}, {4096, 4096},
                                                   {1000, 100000}};
  int reps = 50;
  if (argc > 1) reps = std::atoi(argv[1]);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 2;
  std::printf("# probe_sgemv_sweep: N, unit strides, lda = m, alpha 1, beta 0; median of %d event-timed calls\n",
              reps);
  bench::print_device_and_command(argc, argv);
  std::printf("path,m,n,time_us,gbps,ratio_vs_cublas\n");
  for (const auto& sh : shapes) {
    const int m = sh.first, n = sh.second;
    const bench::SgemvProbeShape shape(h, m, n, reps);
    const float* x = shape.x();
    float* part;
    CK(cudaMalloc(&part, size_t(8) * sms * m * 4));
    // (name, row quads a thread, chunk width, blocks per SM)
    auto variant = [&](const char* name, int rq, int cw, int per_sm, auto kernel) {
      if (m % 4 != 0 || n % cw != 0 || m > 4 * kThreads * rq || m <= 4 * kThreads * (rq / 2)) return;
      const int blocks = std::min(per_sm * sms, n / cw);
      shape.check(name, [&](int i) { kernel(shape.a(i), m, x, shape.y(i), m, n, blocks, part); });
    };
    variant("sweep-rq1-cw8-x2-libcode", 1, 8, 2, run_libcode);
    variant("sweep-rq1-cw8-x2-alloc", 1, 8, 2, run_sweep_alloc);
    variant("sweep-rq1-cw8-x1", 1, 8, 1, run_sweep<1, 8, 1>);
    variant("sweep-rq1-cw8-x2", 1, 8, 2, run_sweep<1, 8, 2>);
    variant("sweep-rq1-cw8-x4", 1, 8, 4, run_sweep<1, 8, 2>);
    variant("sweep-rq1-cw16-x1", 1, 16, 1, run_sweep<1, 16, 1>);
    variant("sweep-rq1-cw16-x2", 1, 16, 2, run_sweep<1, 16, 1>);
    variant("sweep-rq1-cw4-x4", 1, 4, 4, run_sweep<1, 4, 4>);
    variant("sweep-rq1-cw4-x8", 1, 4, 8, run_sweep<1, 4, 4>);
    variant("sweep-rq2-cw8-x1", 2, 8, 1, run_sweep<2, 8, 1>);
    variant("sweep-rq2-cw4-x2", 2, 4, 2, run_sweep<2, 4, 2>);
    variant("sweep-rq4-cw4-x1", 4, 4, 1, run_sweep<4, 4, 1>);
    variant("sweep-rq4-cw2-x2", 4, 2, 2, run_sweep<4, 2, 2>);
    std::fflush(stdout);
    CK(cudaFree(part));
  }
  cublasDestroy(h);
  return 0;
}
