// Probe (issue 3, k = 64): a persistent, warp-specialised small-k kernel with 8x16 lane patches.
// The v6 profile (bench/results/h100-sgemm-smallk-v6-2026-11-26.md) found smallk_panel's FMA pipe
// at 58%: an SM's two 8-warp blocks take turns (one copies its panels or waits on C while the
// other runs its 8x8-patch FMA loop alone), and an 8x8-patch loop at 2 warps per scheduler does not
// fill the pipe. The large-k kernel's 8x16 patch (128 FFMA per 6 LDS.128, fragments double-
// buffered) does fill it at 2 warps per scheduler, but needs one block per SM. Here:
// - one block per SM (grid = SMs), persistent over 128 x 256 tiles;
// - one producer warp (of a warp group that gives its registers away: setmaxnreg) loads each tile's whole k = 64 panels (A 64 x 128, B 64 x 256; 96 KB) with
//   two tensor-map copies into a two-stage ring (full / empty mbarriers), so no consumer ever
//   issues a copy; with PF it also asks L2 for the tile's C (cp.async.bulk.prefetch.L2, one per
//   column) a tile ahead, so the epilogue's C reads hit L2;
// - two consumer warp groups, each 128 x 128 of the tile (4 warps of 64 x 64, 8x16 lane patches,
//   the pipelined_regdb_8x16 layout); with LAG the second group starts half a tile later, so one
//   group's epilogue runs beside the other's FMAs.
// Not a library kernel: NT only (A m x k, B n x k, column-major, contiguous along m and n), k <= 64,
// m % 128 == 0, n % 256 == 0, 16-byte aligned operands, ld % 4 == 0. Beside cublasSgemm and the
// library's smallk_panel_pre (called directly) in one process, timed as bench_sgemm times (median of
// event-timed calls after warm-ups, operands rotated over >= 256 MiB), every path verified against
// cuBLAS first.
// Build (not part of the CMake build; needs build-gpu's kernel library):
//   nvcc -O3 -std=c++17 -arch=sm_90a -Isrc -Ibench -Iinclude bench/probe_smallk_ws.cu \
//        build-gpu/src/libmyblas_kernels.a -o probe_smallk_ws -lcublas
#include <cublas_v2.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_util.h"
#include "kernels/mbarrier.cuh"
#include "probe_smallk_harness.h"

namespace {

using namespace myblas;

constexpr int K = 64, BM = 128, BN = 256, STAGES = 2;
constexpr int kConsumerWarps = 8, kThreads = 384;  // warp group 0 produces, 1 and 2 consume
constexpr int kAFloats = K * BM, kBFloats = K * BN, kStageFloats = kAFloats + kBFloats;  // dense boxes
constexpr int kSmem = STAGES * kStageFloats * 4 + 2 * STAGES * 8 + 1024;                 // + barriers, alignment
constexpr int TM = 8, TN = 16;

__device__ __forceinline__ void prefetch_l2(const void* p, unsigned bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(p), "r"(bytes) : "memory");
}
// The box of a tensor map at (c0, c1) into L2.
__device__ __forceinline__ void prefetch_tile_l2(const CUtensorMap* map, int c0, int c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];\n" ::"l"(reinterpret_cast<uint64_t>(map)),
               "r"(c0), "r"(c1)
               : "memory");
}
template <bool LAST = false>
__device__ __forceinline__ void prefetch_line_l2(const void* p) {
  if (LAST) asm volatile("prefetch.global.L2::evict_last [%0];\n" ::"l"(p) : "memory");
  else asm volatile("prefetch.global.L2 [%0];\n" ::"l"(p) : "memory");
}
__device__ __forceinline__ void st_cs(float* p, const float4& v) {
  asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// Fragments of k step q: 2 float4 of A (rows +0, +32), 4 of B (columns +16c).
__device__ __forceinline__ void load_frag(const float* as, const float* bs, int q, float (&a)[TM], float (&b)[TN]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float4 v = *reinterpret_cast<const float4*>(as + q * BM + 32 * h);
    a[4 * h] = v.x, a[4 * h + 1] = v.y, a[4 * h + 2] = v.z, a[4 * h + 3] = v.w;
  }
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const float4 v = *reinterpret_cast<const float4*>(bs + q * BN + 16 * c);
    b[4 * c] = v.x, b[4 * c + 1] = v.y, b[4 * c + 2] = v.z, b[4 * c + 3] = v.w;
  }
}
// load_frag at pointers already moved to the k step's row (q = 0).
__device__ __forceinline__ void load_frag2(const float* as, const float* bs, int q, float (&a)[TM], float (&b)[TN]) {
  load_frag(as, bs, q, a, b);
}
__device__ __forceinline__ void outer(const float (&a)[TM], const float (&b)[TN], float (&acc)[TM][TN]) {
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
}

// PF: how C reaches L2 before the epilogue. 0: it does not (the epilogue reads DRAM); 1: one
// cp.async.bulk.prefetch.L2 of 512 bytes per column, issued with the tile's panels; 2: one
// tensor-map prefetch of the whole 128 x 256 tile, issued with the tile's panels; 3: the same,
// issued with the next tile's panels (a tile later); 4: each consumer lane at a row's 128-byte line
// start asks L2 for its lines of this tile's C (prefetch.global.L2) before the k loop; 5: the same
// for the block's next tile; 6: as 4 with the evict_last priority. CB: columns of a lane's patch whose C is read in one batch (4: four
// batches of 8 float4; 8: two of 16); 0: batches of 4 columns with the next batch's loads issued
// before the current one is written (two batches in flight). EQ (with CB 0): the k step at whose
// 8-step chunk the first batch's loads are issued, inside the k loop (K: after it). ST: C is
// written with st.global.cs (evict first).
template <int PF, bool LAG, int CB, bool FMA = true, int EQ = K, bool ST = false>
__global__ __launch_bounds__(kThreads, 1) void smallk_ws(const __grid_constant__ CUtensorMap ma,
                                                         const __grid_constant__ CUtensorMap mb,
                                                         const __grid_constant__ CUtensorMap mc, float* __restrict__ c,
                                                         int ldc, int m, int n, float alpha, float beta) {
  extern __shared__ unsigned char raw[];
  // (Kept as measured in v9. Rebuilt from an integer this pointer is generic, so its shared reads
  // are generic loads; the library kernel rounds by an offset into the array instead, v11.)
  float* smem = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + STAGES * kStageFloats);  // full[s], then empty[s]
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(smem_u32(bars + s), 1);
      mbar_init(smem_u32(bars + STAGES + s), kConsumerWarps);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const int tiles_m = m / BM, tiles = tiles_m * (n / BN);
  const int lane = threadIdx.x % 32;

  if (threadIdx.x < 128) {  // producer warp group: warp 0 works, its registers go to the consumers
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x >= 32) return;
    int i = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x, ++i) {
      const int s = i % STAGES;
      const int bm = (t % tiles_m) * BM, bn = (t / tiles_m) * BN;
      if (i >= STAGES) mbar_wait(smem_u32(bars + STAGES + s), ((i / STAGES) - 1) & 1);
      if (lane == 0) {
        const uint32_t full = smem_u32(bars + s);
        mbar_expect_tx(full, kStageFloats * 4);
        tma_load_2d(smem_u32(smem + s * kStageFloats), &ma, full, bm, 0);
        tma_load_2d(smem_u32(smem + s * kStageFloats + kAFloats), &mb, full, bn, 0);
      }
      if (PF == 1 && beta != 0.f)
        for (int j = lane; j < BN; j += 32) prefetch_l2(c + bm + int64_t(bn + j) * ldc, BM * 4);
      if (PF == 2 && beta != 0.f && lane == 0) prefetch_tile_l2(&mc, bm, bn);
      if (PF == 3 && beta != 0.f && lane == 0 && i > 0) {
        const int tp = t - gridDim.x;
        prefetch_tile_l2(&mc, (tp % tiles_m) * BM, (tp / tiles_m) * BN);
      }
    }
    if (PF == 3 && beta != 0.f && lane == 0 && i > 0) {
      const int tp = blockIdx.x + (i - 1) * gridDim.x;
      prefetch_tile_l2(&mc, (tp % tiles_m) * BM, (tp / tiles_m) * BN);
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int warp = threadIdx.x / 32 - 4;
  const int wg = warp / 4, w = warp % 4;
  const int row0 = (w % 2) * 64 + (lane % 8) * 4;               // rows row0 + {0..3, 32..35}
  const int col0 = wg * 128 + (w / 2) * 64 + (lane / 8) * 4;    // columns col0 + 16c + {0..3}
  if (LAG && wg == 1) named_sync(1, 256);
  int i = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x, ++i) {
    const int s = i % STAGES;
    const int bm = (t % tiles_m) * BM, bn = (t / tiles_m) * BN;
    {
      auto pf_lines = [&](int tt) {
        const float* cp = c + ((tt % tiles_m) * BM + row0) + int64_t((tt / tiles_m) * BN + col0) * ldc;
#pragma unroll
        for (int cc = 0; cc < 16; ++cc)
#pragma unroll
          for (int h = 0; h < 2; ++h) prefetch_line_l2<PF == 6>(cp + int64_t(16 * (cc / 4) + cc % 4) * ldc + 32 * h);
      };
      if ((PF == 4 || PF == 6) && beta != 0.f && lane % 8 == 0) pf_lines(t);
      if (PF == 5 && beta != 0.f && lane % 8 == 0 && t + int(gridDim.x) < tiles) pf_lines(t + gridDim.x);
    }
    mbar_wait(smem_u32(bars + s), (i / STAGES) & 1);
    const float* as = smem + s * kStageFloats + row0;
    const float* bs = smem + s * kStageFloats + kAFloats + col0;
    float acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
      for (int cc = 0; cc < TN; ++cc) acc[r][cc] = 0.f;
    float af[2][TM], bf[2][TN];
    float* cl = c + (bm + row0) + int64_t(bn + col0) * ldc;
    auto col = [&](int cc) { return int64_t(16 * (cc / 4) + cc % 4) * ldc; };  // lane column cc of 16
    float4 o[2][4][2];  // CB 0: two batches of 4 columns of C in flight
    auto load = [&](int g, float4(&dst)[4][2]) {
#pragma unroll
      for (int e = 0; e < 4; ++e)
#pragma unroll
        for (int h = 0; h < 2; ++h) dst[e][h] = *reinterpret_cast<const float4*>(cl + col(4 * g + e) + 32 * h);
    };
    load_frag(as, bs, 0, af[0], bf[0]);
#pragma unroll 1
    for (int q0 = 0; q0 < (FMA ? K : 0); q0 += 8) {
      if (CB == 0 && EQ < K && q0 == EQ && beta != 0.f) load(0, o[0]);
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const int q = q0 + e;
        load_frag(as, bs, (q + 1) % K, af[(e + 1) % 2], bf[(e + 1) % 2]);  // step 64 reloads step 0: unused
        outer(af[e % 2], bf[e % 2], acc);
      }
      if (LAG && wg == 0 && i == 0 && q0 == K / 2) named_arrive(1, 256);
    }
    if (!FMA && LAG && wg == 0 && i == 0) named_arrive(1, 256);
    if (!FMA) {  // the memory traffic alone: a value from the panels, so the loads are not dropped
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int cc = 0; cc < TN; ++cc) acc[r][cc] = af[0][r] * bf[0][cc];
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(smem_u32(bars + STAGES + s));

    auto put = [&](int cc, int h, const float4& o) {
      float4 v = make_float4(alpha * acc[4 * h][cc], alpha * acc[4 * h + 1][cc], alpha * acc[4 * h + 2][cc],
                             alpha * acc[4 * h + 3][cc]);
      if (beta != 0.f) {
        v.x = fmaf(beta, o.x, v.x);
        v.y = fmaf(beta, o.y, v.y);
        v.z = fmaf(beta, o.z, v.z);
        v.w = fmaf(beta, o.w, v.w);
      }
      if (ST) st_cs(cl + col(cc) + 32 * h, v);
      else *reinterpret_cast<float4*>(cl + col(cc) + 32 * h) = v;
    };
    if (CB == 0 && beta != 0.f) {
      if (EQ >= K || !FMA) load(0, o[0]);
      load(1, o[1]);
#pragma unroll
      for (int g = 0; g < 4; ++g) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
#pragma unroll
          for (int h = 0; h < 2; ++h) put(4 * g + e, h, o[g % 2][e][h]);
        if (g + 2 < 4) load(g + 2, o[g % 2]);
      }
    } else {
      constexpr int B = CB == 0 ? 4 : CB;
#pragma unroll
      for (int g = 0; g < 16 / B; ++g) {
        float4 old[B][2];
        if (beta != 0.f) {
#pragma unroll
          for (int e = 0; e < B; ++e)
#pragma unroll
            for (int h = 0; h < 2; ++h) old[e][h] = *reinterpret_cast<const float4*>(cl + col(g * B + e) + 32 * h);
        }
#pragma unroll
        for (int e = 0; e < B; ++e)
#pragma unroll
          for (int h = 0; h < 2; ++h) put(g * B + e, h, old[e][h]);
      }
    }
  }
}

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;
// A 2-D map of a column-major matrix (extent p x k, leading dimension ld), boxes of box_p x box_k.
CUtensorMap make_map(const float* x, int p, int k, int ld, int box_p, int box_k = K) {
  static void* f = nullptr;
  if (!f) {
    cudaDriverEntryPointQueryResult q{};
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q));
  }
  CUtensorMap mp;
  const cuuint64_t dims[2] = {cuuint64_t(p), cuuint64_t(k)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * 4};
  const cuuint32_t box[2] = {cuuint32_t(box_p), cuuint32_t(box_k)}, estr[2] = {1, 1};
  const CUresult r = reinterpret_cast<EncodeTiled>(f)(&mp, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(x), dims,
                                                       strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                                       CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "tensor map encode failed %d\n", int(r));
    std::exit(2);
  }
  return mp;
}

int g_sms = 0;
// C = beta C + 1 over m x n (ldc = m), float4 grid-stride: the C traffic alone.
__global__ void scale_c(float4* c, size_t n4, float beta) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) {
    float4 v = c[i];
    v.x = fmaf(beta, v.x, 1.f), v.y = fmaf(beta, v.y, 1.f), v.z = fmaf(beta, v.z, 1.f), v.w = fmaf(beta, v.w, 1.f);
    c[i] = v;
  }
}

template <int PF, bool LAG, int CB, bool FMA = true, int EQ = K, bool ST = false>
void run_ws(const CUtensorMap& ma, const CUtensorMap& mb, const CUtensorMap& mc, float* c, int m, int n, float alpha,
            float beta) {
  static bool set = false;
  if (!set) {
    CK(cudaFuncSetAttribute(smallk_ws<PF, LAG, CB, FMA, EQ, ST>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    set = true;
  }
  const int tiles = (m / BM) * (n / BN);
  smallk_ws<PF, LAG, CB, FMA, EQ, ST><<<std::min(tiles, g_sms), kThreads, kSmem>>>(ma, mb, mc, c, m, m, n, alpha, beta);
  CK(cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------
// smallk_ws2: C through shared memory. The same consumers and 8x16 patches, but:
// - the k = 64 panels come in half-stages of 32 k (A 32 x 128 and B 32 x 256: 48 KB) in a ring of
//   three, so a group that lags the other by half a tile holds one half-stage while the other
//   holds the next and the producer fills the third (144 KB instead of two whole stages' 192);
// - the 64 KB this frees holds one group's 128 x 128 of C, loaded by the producer with one
//   tensor-map copy before that group's epilogue, which then reads C from shared memory. The two
//   groups take the buffer in turn (tile i group 0, tile i group 1, tile i+1 group 0, ...), which
//   also keeps them half a tile apart.
// The producer issues, per tile i: half-stage 2i+2, C(i, group 0), half-stage 2i+3, C(i, group 1)
// (the order in which their buffers come free).
constexpr int kCFloats = 128 * 128;  // one group's C (64 KB)
// HK: k per stage (32: a ring of 3 half-stages; 16: of 6 quarter-stages; 144 KB either way).
template <int HK>
struct Ring {
  static constexpr int kNH = K / HK;                        // stages per tile
  static constexpr int kA = HK * BM, kB = HK * BN, kStage = kA + kB;
  static constexpr int kSlots = 3 * kNH / 2;
  static constexpr int kSmem = (kSlots * kStage + kCFloats) * 4 + (2 * kSlots + 3) * 8 + 1024;
};

// MODE (timing only, wrong results): 1 skips the C loads (the epilogue reads whatever the buffer
// holds), 2 skips the C stores (a store is kept only for an impossible value).
template <bool LAG, int MODE = 0, int HK = 32>
__global__ __launch_bounds__(kThreads, 1) void smallk_ws2(const __grid_constant__ CUtensorMap ma,
                                                          const __grid_constant__ CUtensorMap mb,
                                                          const __grid_constant__ CUtensorMap mc, float* __restrict__ c,
                                                          int ldc, int m, int n, float alpha, float beta) {
  using R = Ring<HK>;
  constexpr int kRing = R::kSlots, kHalfFloats = R::kStage, kHAFloats = R::kA, NH = R::kNH;
  extern __shared__ unsigned char raw[];
  // (Kept as measured in v9. Rebuilt from an integer this pointer is generic, so its shared reads
  // are generic loads; the library kernel rounds by an offset into the array instead, v11.)
  float* smem = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  float* cbuf = smem + kRing * kHalfFloats;
  // full[3], empty[3], cempty, cfull[2]: a barrier of C's arrival per group, since a group may
  // reach its wait before the other group's turn at the buffer has come (a parity wait on a barrier
  // one phase behind would pass at once)
  uint64_t* bars = reinterpret_cast<uint64_t*>(cbuf + kCFloats);
  const uint32_t cempty = smem_u32(bars + 2 * kRing);
  auto cfull = [&](int g) { return smem_u32(bars + 2 * kRing + 1 + g); };
  if (threadIdx.x == 0) {
    for (int s = 0; s < kRing; ++s) {
      mbar_init(smem_u32(bars + s), 1);
      mbar_init(smem_u32(bars + kRing + s), kConsumerWarps);
    }
    mbar_init(cfull(0), 1);
    mbar_init(cfull(1), 1);
    mbar_init(cempty, 4);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const int tiles_m = m / BM, tiles = tiles_m * (n / BN);
  const int lane = threadIdx.x % 32;
  const int count = (tiles - int(blockIdx.x) + int(gridDim.x) - 1) / int(gridDim.x);  // this block's tiles
  const bool with_c = beta != 0.f;

  if (threadIdx.x < 128) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x != 0) return;
    auto half = [&](int j) {  // stage j: tile j / NH, k HK (j % NH) ..
      if (j >= NH * count) return;
      const int s = j % kRing;
      if (j >= kRing) mbar_wait(smem_u32(bars + kRing + s), ((j / kRing) - 1) & 1);
      const int t = blockIdx.x + (j / NH) * gridDim.x;
      const uint32_t full = smem_u32(bars + s);
      mbar_expect_tx(full, kHalfFloats * 4);
      tma_load_2d(smem_u32(smem + s * kHalfFloats), &ma, full, (t % tiles_m) * BM, (j % NH) * HK);
      tma_load_2d(smem_u32(smem + s * kHalfFloats + kHAFloats), &mb, full, (t / tiles_m) * BN, (j % NH) * HK);
    };
    auto cload = [&](int u) {  // use u: tile u / 2, group u % 2
      if (!with_c || u >= 2 * count) return;
      if (u >= 1) mbar_wait(cempty, (u - 1) & 1);
      const int t = blockIdx.x + (u / 2) * gridDim.x;
      if (MODE == 1) {
        mbar_arrive(cfull(u % 2));
        return;
      }
      mbar_expect_tx(cfull(u % 2), kCFloats * 4);
      tma_load_2d(smem_u32(cbuf), &mc, cfull(u % 2), (t % tiles_m) * BM, (t / tiles_m) * BN + (u % 2) * 128);
    };
    for (int h = 0; h < NH; ++h) half(h);
    for (int i = 0; i < count; ++i) {
      for (int h = 0; h < NH / 2; ++h) half(NH * (i + 1) + h);
      cload(2 * i);
      for (int h = NH / 2; h < NH; ++h) half(NH * (i + 1) + h);
      cload(2 * i + 1);
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int warp = threadIdx.x / 32 - 4;
  const int wg = warp / 4, w = warp % 4;
  const int row0 = (w % 2) * 64 + (lane % 8) * 4;              // rows row0 + {0..3, 32..35}
  const int lcol0 = (w / 2) * 64 + (lane / 8) * 4;             // group-local columns lcol0 + 16c + {0..3}
  const int col0 = wg * 128 + lcol0;
  if (LAG && wg == 1) named_sync(1, 256);
  for (int i = 0; i < count; ++i) {
    const int t = blockIdx.x + i * gridDim.x;
    const int bm = (t % tiles_m) * BM, bn = (t / tiles_m) * BN;
    float acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
      for (int cc = 0; cc < TN; ++cc) acc[r][cc] = 0.f;
    float af[2][TM], bf[2][TN];
    auto stage_a = [&](int j) { return smem + (j % kRing) * kHalfFloats + row0; };
    auto stage_b = [&](int j) { return smem + (j % kRing) * kHalfFloats + kHAFloats + col0; };
    const int j0 = NH * i;
    mbar_wait(smem_u32(bars + j0 % kRing), (j0 / kRing) & 1);
    load_frag2(stage_a(j0), stage_b(j0), 0, af[0], bf[0]);
#pragma unroll 1
    for (int h = 0; h < NH; ++h) {
      const int j = j0 + h;
      const float* as = stage_a(j);
      const float* bs = stage_b(j);
#pragma unroll 1
      for (int q0 = 0; q0 < HK; q0 += 8) {
        const bool last = q0 == HK - 8, more = h + 1 < NH;
        if (last && more) mbar_wait(smem_u32(bars + (j + 1) % kRing), ((j + 1) / kRing) & 1);
        // the step after this chunk: the next stage's first (its row 0), or in the last chunk of
        // the tile row 0 again (loaded, unused)
        const float* an = last ? (more ? stage_a(j + 1) : as) : as + (q0 + 8) * BM;
        const float* bn_ = last ? (more ? stage_b(j + 1) : bs) : bs + (q0 + 8) * BN;
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          if (e < 7) load_frag2(as + (q0 + e + 1) * BM, bs + (q0 + e + 1) * BN, 0, af[(e + 1) % 2], bf[(e + 1) % 2]);
          else load_frag2(an, bn_, 0, af[0], bf[0]);
          outer(af[e % 2], bf[e % 2], acc);
        }
        if (LAG && wg == 0 && i == 0 && h == NH / 2 && q0 == 0) named_arrive(1, 256);
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(smem_u32(bars + kRing + j % kRing));
    }

    float* cl = c + (bm + row0) + int64_t(bn + col0) * ldc;
    auto col = [&](int cc) { return 16 * (cc / 4) + cc % 4; };  // lane column cc of 16 (offset)
    if (with_c) {
      mbar_wait(cfull(wg), i & 1);
      const float* cs = cbuf + lcol0 * 128 + row0;
#pragma unroll
      for (int g = 0; g < 4; ++g) {
        float4 o[4][2];
#pragma unroll
        for (int e = 0; e < 4; ++e)
#pragma unroll
          for (int hh = 0; hh < 2; ++hh) o[e][hh] = *reinterpret_cast<const float4*>(cs + col(4 * g + e) * 128 + 32 * hh);
#pragma unroll
        for (int e = 0; e < 4; ++e)
#pragma unroll
          for (int hh = 0; hh < 2; ++hh) {
            const int cc = 4 * g + e;
            float4 v;
            v.x = fmaf(beta, o[e][hh].x, alpha * acc[4 * hh][cc]);
            v.y = fmaf(beta, o[e][hh].y, alpha * acc[4 * hh + 1][cc]);
            v.z = fmaf(beta, o[e][hh].z, alpha * acc[4 * hh + 2][cc]);
            v.w = fmaf(beta, o[e][hh].w, alpha * acc[4 * hh + 3][cc]);
            if (MODE != 2 || v.x == 1234.5f) *reinterpret_cast<float4*>(cl + int64_t(col(cc)) * ldc + 32 * hh) = v;
          }
      }
      __syncwarp();
      if (lane == 0) mbar_arrive(cempty);
    } else {
#pragma unroll
      for (int cc = 0; cc < 16; ++cc)
#pragma unroll
        for (int hh = 0; hh < 2; ++hh)
          *reinterpret_cast<float4*>(cl + int64_t(col(cc)) * ldc + 32 * hh) =
              make_float4(alpha * acc[4 * hh][cc], alpha * acc[4 * hh + 1][cc], alpha * acc[4 * hh + 2][cc],
                          alpha * acc[4 * hh + 3][cc]);
    }
  }
}

template <bool LAG, int MODE = 0, int HK = 32>
void run_ws2(const CUtensorMap& ma, const CUtensorMap& mb, const CUtensorMap& mc, float* c, int m, int n, float alpha,
             float beta) {
  static bool set = false;
  if (!set) {
    CK(cudaFuncSetAttribute(smallk_ws2<LAG, MODE, HK>, cudaFuncAttributeMaxDynamicSharedMemorySize, Ring<HK>::kSmem));
    set = true;
  }
  const int tiles = (m / BM) * (n / BN);
  smallk_ws2<LAG, MODE, HK><<<std::min(tiles, g_sms), kThreads, Ring<HK>::kSmem>>>(ma, mb, mc, c, m, m, n, alpha, beta);
  CK(cudaGetLastError());
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 2;
  std::printf("# probe_smallk_ws: NT, k = 64, lda = m, ldb = n, ldc = m; median of %d event-timed calls\n", reps);
  bench::print_device_and_command(argc, argv);
  std::printf("path,m,n,k,beta,time_us,ratio_vs_cublas\n");
  for (int m : {8192, 4096})
    for (float beta : {0.5f, 0.f}) {
      const int n = m;
      const probe_smallk::Sets d(m, n, K, 3);
      const int nsets = d.count;
      const size_t ec = d.ec;
      float* c = d.c;
      std::vector<CUtensorMap> mas, mbs, mcs, mas2, mbs2, mcs2, mas4, mbs4;
      for (int i = 0; i < nsets; ++i) {
        mas.push_back(make_map(d.A(i), m, K, m, BM));
        mbs.push_back(make_map(d.B(i), n, K, n, BN));
        mcs.push_back(make_map(d.C(i), m, n, m, BM, BN));
        mas2.push_back(make_map(d.A(i), m, K, m, BM, 32));
        mbs2.push_back(make_map(d.B(i), n, K, n, BN, 32));
        mas4.push_back(make_map(d.A(i), m, K, m, BM, 16));
        mbs4.push_back(make_map(d.B(i), n, K, n, BN, 16));
        mcs2.push_back(make_map(d.C(i), m, n, m, 128, 128));
      }
      const float alpha = 1.f;
      auto cub = [&](int i) { probe_smallk::cublas_nt(h, d, i, alpha, beta); };
      auto lib = [&](int i) { probe_smallk::smallk_panel_pre_nt(d, i, alpha, beta); };
      // Reference: cuBLAS on set 0 (C restored before each check). beta 0 checks start from NaN C.
      std::vector<float> c0(ec), want(ec);
      CK(cudaMemcpy(c0.data(), c, ec * 4, cudaMemcpyDeviceToHost));
      cub(0);
      CK(cudaMemcpy(want.data(), c, ec * 4, cudaMemcpyDeviceToHost));
      auto check = [&](const char* name, auto run) {
        return probe_smallk::check(name, d, beta, beta == 0.f, c0, want, run);
      };
      const double tc = bench::time_calls(cub, nsets, reps, 2);
      std::printf("cublas,%d,%d,%d,%.1f,%.2f,1.000\n", m, n, K, beta, tc);
      auto report = [&](const char* name, auto run) {
        if (!check(name, run)) return;
        const double t = bench::time_calls(run, nsets, reps, 2);
        std::printf("%s,%d,%d,%d,%.1f,%.2f,%.3f\n", name, m, n, K, beta, t, tc / t);
        std::fflush(stdout);
      };
      report("smallk_panel_pre", lib);
#define WS(name, PF, LAG, CB, ...) \
  report(name, [&](int i) { run_ws<PF, LAG, CB, ##__VA_ARGS__>(mas[i], mbs[i], mcs[i], c + ec * i, m, n, alpha, beta); })
      WS("ws_lag_b2", 0, true, 8);
      WS("ws_lag_pipe", 0, true, 0);
      report("ws2_lag", [&](int i) { run_ws2<true>(mas2[i], mbs2[i], mcs2[i], c + ec * i, m, n, alpha, beta); });
      report("ws2", [&](int i) { run_ws2<false>(mas2[i], mbs2[i], mcs2[i], c + ec * i, m, n, alpha, beta); });
      report("ws4_lag", [&](int i) { run_ws2<true, 0, 16>(mas4[i], mbs4[i], mcs2[i], c + ec * i, m, n, alpha, beta); });
      report("ws4", [&](int i) { run_ws2<false, 0, 16>(mas4[i], mbs4[i], mcs2[i], c + ec * i, m, n, alpha, beta); });
      if (beta != 0.f) {
        std::printf("# timing only: ws2_lag without its C loads (mode 1), without its C stores (mode 2)\n");
        for (int mode : {1, 2}) {
          auto f = [&](int i) {
            if (mode == 1) run_ws2<true, 1>(mas2[i], mbs2[i], mcs2[i], c + ec * i, m, n, alpha, beta);
            else run_ws2<true, 2>(mas2[i], mbs2[i], mcs2[i], c + ec * i, m, n, alpha, beta);
          };
          const double t = bench::time_calls(f, nsets, reps, 2);
          std::printf("ws2_lag_mode%d,%d,%d,%d,%.1f,%.2f,%.3f\n", mode, m, n, K, beta, t, tc / t);
        }
      }
      if (beta != 0.f) {
        std::printf("# memory only (not GEMMs; no check): the kernels without FMAs, and C = beta C + 1\n");
        auto nofma = [&](int i) { run_ws<0, true, 0, false>(mas[i], mbs[i], mcs[i], c + ec * i, m, n, alpha, beta); };
        double t = bench::time_calls(nofma, nsets, reps, 2);
        std::printf("ws_lag_pipe_nofma,%d,%d,%d,%.1f,%.2f,%.3f\n", m, n, K, beta, t, tc / t);
        auto sc = [&](int i) { scale_c<<<4 * g_sms, 512>>>(reinterpret_cast<float4*>(c + ec * i), ec / 4, beta); };
        t = bench::time_calls(sc, nsets, reps, 2);
        std::printf("scale_c,%d,%d,%d,%.1f,%.2f,%.3f\n", m, n, K, beta, t, tc / t);
        auto sc2 = [&](int i) { scale_c<<<8 * g_sms, 256>>>(reinterpret_cast<float4*>(c + ec * i), ec / 4, beta); };
        t = bench::time_calls(sc2, nsets, reps, 2);
        std::printf("scale_c_8x256,%d,%d,%d,%.1f,%.2f,%.3f\n", m, n, K, beta, t, tc / t);
      }
#undef WS
      report("smallk_panel_pre", lib);
    }
  cublasDestroy(h);
  return 0;
}
