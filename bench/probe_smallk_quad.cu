// Probe (issue 3, k = 64): do four smaller blocks per SM beat smallk_panel's two?
// bench/results/h100-sgemm-smallk-v6-2026-11-26.md found an SM's two 8-warp blocks mostly taking
// turns: while one copies its panels or waits on its C loads, the other runs the FMA loop alone (2
// warps per scheduler). Here a block is 4 warps on a 64 x 128 tile (the same 8x8 lane patches and
// FMA core, mma_tile_8x8), at most 128 registers, so four blocks share an SM and their phases can
// spread further apart. Not a library kernel: NT only (A m x k, B n x k, both column-major,
// contiguous along m and n), k == 64, m % 64 == 0, n % 128 == 0, 16-byte aligned operands.
// Beside cublasSgemm and the library's smallk_panel_pre (called directly) in one process, timed
// as bench_sgemm times (median of event-timed calls after warm-ups, operands rotated over >= 256
// MiB), every path verified against cuBLAS first.
// Build (not part of the CMake build; needs build-gpu's kernel library):
//   nvcc -O3 -std=c++17 -arch=sm_90a -Isrc -Ibench -Iinclude bench/probe_smallk_quad.cu \
//        build-gpu/src/libmyblas_kernels.a -o probe_smallk_quad -lcublas
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_util.h"
#include "kernels/sgemm/common.cuh"
#include "probe_smallk_harness.h"

namespace {

using myblas::sgemm_detail::LaneTile;
using myblas::sgemm_detail::mma_tile_8x8;

constexpr int kThreads = 128, TM = 64, TN = 128, K = 64, BK = 32;
constexpr int LDA = TM + 4, LDB = TN + 4;                   // shared rows: [l][p]
constexpr int kAFloats = K * LDA, kBFloats = K * LDB;
constexpr int kSmem = (kAFloats + kBFloats) * 4;            // 50 KB a block

__device__ __forceinline__ void cp16(float* dst, const float* src) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_group() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// GM tile rows share a run of consecutive blocks (L2 reuse of B's panel across A's).
template <int MINB>
__global__ __launch_bounds__(kThreads, MINB) void smallk_quad(const float* __restrict__ a, int lda,
                                                              const float* __restrict__ b, int ldb,
                                                              float* __restrict__ c, int ldc, int m, int n,
                                                              float alpha, float beta) {
  extern __shared__ __align__(16) float smem[];
  float* as = smem;
  float* bs = smem + kAFloats;
  const int tiles_m = m / TM;
  const int tm = blockIdx.x % tiles_m, tn = blockIdx.x / tiles_m;
  const int bm = tm * TM, bn = tn * TN;
  const int t = threadIdx.x;
  // Copies of k half h: A 64 x 32 (thread: row 4*(t%16), k t/16 + 8r, r < 4), B 128 x 32
  // (thread: col 4*(t%32), k t/32 + 4r, r < 8).
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    {
      const int p = 4 * (t % 16), l0 = t / 16 + h * BK;
      const float* src = a + bm + p + int64_t(l0) * lda;
#pragma unroll
      for (int r = 0; r < 4; ++r) cp16(as + (l0 + 8 * r) * LDA + p, src + int64_t(8 * r) * lda);
    }
    {
      const int p = 4 * (t % 32), l0 = t / 32 + h * BK;
      const float* src = b + bn + p + int64_t(l0) * ldb;
#pragma unroll
      for (int r = 0; r < 8; ++r) cp16(bs + (l0 + 4 * r) * LDB + p, src + int64_t(4 * r) * ldb);
    }
    commit();
  }
  const int warp = t / 32, lane = t % 32;
  const LaneTile lt{(lane % 8) * 4, warp * 32 + (lane / 8) * 4};
  float acc[8][8] = {};
  wait_group<1>();
  __syncthreads();
  mma_tile_8x8<BK, LDA, LDB>(as, bs, lt, acc);
  wait_group<0>();
  __syncthreads();
  mma_tile_8x8<BK, LDA, LDB>(as + BK * LDA, bs + BK * LDB, lt, acc);

  // Epilogue: the lane's 8 columns x (4 + 4 rows), two phases of 4 columns (8 float4 of C each).
  float* c0 = c + (bm + lt.row0) + int64_t(bn + lt.col0) * ldc;
#pragma unroll
  for (int ph = 0; ph < 2; ++ph) {
    float4 old[4][2];
    if (beta != 0.f) {
#pragma unroll
      for (int q = 0; q < 4; ++q)
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          const int cc = ph * 4 + q;  // lane column index 0..7: (cc / 4) * 16 + cc % 4
          old[q][hh] = *reinterpret_cast<const float4*>(c0 + int64_t((cc / 4) * 16 + cc % 4) * ldc + 32 * hh);
        }
    }
#pragma unroll
    for (int q = 0; q < 4; ++q)
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int cc = ph * 4 + q;
        float4 v = make_float4(alpha * acc[4 * hh][cc], alpha * acc[4 * hh + 1][cc], alpha * acc[4 * hh + 2][cc],
                               alpha * acc[4 * hh + 3][cc]);
        if (beta != 0.f) {
          v.x = fmaf(beta, old[q][hh].x, v.x);
          v.y = fmaf(beta, old[q][hh].y, v.y);
          v.z = fmaf(beta, old[q][hh].z, v.z);
          v.w = fmaf(beta, old[q][hh].w, v.w);
        }
        *reinterpret_cast<float4*>(c0 + int64_t((cc / 4) * 16 + cc % 4) * ldc + 32 * hh) = v;
      }
  }
}

template <int MINB>
void run_quad(const float* a, const float* b, float* c, int m, int n, float alpha, float beta) {
  static bool set = false;
  if (!set) {
    CK(cudaFuncSetAttribute(smallk_quad<MINB>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    set = true;
  }
  smallk_quad<MINB><<<(m / TM) * (n / TN), kThreads, kSmem>>>(a, m, b, n, c, m, m, n, alpha, beta);
  CK(cudaGetLastError());
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 2;
  std::printf("# probe_smallk_quad: NT, k = 64, lda = m, ldb = n, ldc = m; median of %d event-timed calls\n", reps);
  bench::print_device_and_command(argc, argv);
  std::printf("path,m,n,k,beta,time_us,ratio_vs_cublas\n");
  for (int m : {8192, 4096})
    for (float beta : {0.5f, 0.f}) {
      const int n = m;
      const probe_smallk::Sets d(m, n, K, 0);
      const int nsets = d.count;
      const size_t ea = d.ea, eb = d.eb, ec = d.ec;
      float *a = d.a, *b = d.b, *c = d.c;
      const float alpha = 1.f;
      auto cub = [&](int i) { probe_smallk::cublas_nt(h, d, i, alpha, beta); };
      auto lib = [&](int i) { probe_smallk::smallk_panel_pre_nt(d, i, alpha, beta); };
      // Reference: cuBLAS from set 0's C (restored before each check).
      std::vector<float> c0(ec), want(ec);
      CK(cudaMemcpy(c0.data(), c, ec * 4, cudaMemcpyDeviceToHost));
      cub(0);
      CK(cudaMemcpy(want.data(), c, ec * 4, cudaMemcpyDeviceToHost));
      auto check = [&](const char* name, auto run) { return probe_smallk::check(name, d, beta, false, c0, want, run); };
      const double tc = bench::time_calls(cub, nsets, reps, 2);
      std::printf("cublas,%d,%d,%d,%.1f,%.2f,1.000\n", m, n, K, beta, tc);
      if (check("smallk_panel_pre", lib)) {
        const double t = bench::time_calls(lib, nsets, reps, 2);
        std::printf("smallk_panel_pre,%d,%d,%d,%.1f,%.2f,%.3f\n", m, n, K, beta, t, tc / t);
      }
      auto q4 = [&](int i) { run_quad<4>(a + ea * i, b + eb * i, c + ec * i, m, n, alpha, beta); };
      if (check("quad4", q4)) {
        const double t = bench::time_calls(q4, nsets, reps, 2);
        std::printf("quad4,%d,%d,%d,%.1f,%.2f,%.3f\n", m, n, K, beta, t, tc / t);
      }
      auto q3 = [&](int i) { run_quad<3>(a + ea * i, b + eb * i, c + ec * i, m, n, alpha, beta); };
      if (check("quad3", q3)) {
        const double t = bench::time_calls(q3, nsets, reps, 2);
        std::printf("quad3,%d,%d,%d,%.1f,%.2f,%.3f\n", m, n, K, beta, t, tc / t);
      }
      std::fflush(stdout);
    }
  cublasDestroy(h);
  return 0;
}
