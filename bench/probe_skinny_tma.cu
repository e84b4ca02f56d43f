// Probe (issue 3, m = 16): does a bulk-copy (TMA) fed stream with a producer warp move
// C(16 x n) = A(16 x k) * B(k x n), NN, lda = 16, ldb = k, toward reading B alone?
// Not a library kernel: one shape family (n % 128 == 0, k % (64 * splits) == 0, aligned), partial
// sums of the k splits in scratch and added by a second kernel. Beside cublasSgemm, the same
// timing as bench_sgemm (median of event-timed calls after warm-ups, B rotated over >= 256 MiB).
// Build (not part of the CMake build: sm_90a only):
//   nvcc -O3 -std=c++17 -arch=sm_90a -Isrc bench/probe_skinny_tma.cu -o probe_skinny_tma -lcublas
// Results: bench/results/h100-sgemm-skinny-tma-probe-2026-11-26.md.
//
// Layout: a block owns 128 columns and k / splits of k. Stage = 64 k: B's 128 column pieces of
// 256 contiguous bytes (one cp.async.bulk each, issued by the producer warp's lanes) into rows of
// 68 floats (a warp's 32 float4 reads of 32 columns fall in distinct bank groups), and A's 64 x 16
// slice (4 KB, contiguous when lda = 16: one bulk copy). Consumer warps split the stage's k; a
// lane keeps 4 columns x 16 rows of sums; a float4 of A (4 rows at one k) is read by the whole
// warp at one address (broadcast). Full/empty mbarriers per stage; at the end the warps' sums are
// added in shared memory in warp order (deterministic).
#include <cublas_v2.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_util.h"           // CK
#include "kernels/mbarrier.cuh"  // smem_u32, mbar_*, tma_load_2d

namespace {

using namespace myblas;

constexpr int NB = 128;

__device__ __forceinline__ void bulk_g2s(uint32_t dst, const void* src, unsigned bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

// The ring's barriers, bars[0, STAGES): full (one arrival: the producer's expect_tx), bars[STAGES,
// 2 STAGES): empty (one arrival per consumer warp). Every thread of the block calls it.
template <int STAGES, int CW>
__device__ __forceinline__ void init_ring(uint64_t* bars) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(smem_u32(bars + s), 1);
      mbar_init(smem_u32(bars + STAGES + s), CW);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
}

// acc[c][r] += S(r, kk + e) * X(kk + e, column c) for e = 0..3: S's 4 x 16 slice as warp-wide
// broadcast float4 reads, the lane's 4 columns' 4 k in xv.
__device__ __forceinline__ void fma_4x16(const float4 (&xv)[4], const float* S, int kk, float (&acc)[4][16]) {
#pragma unroll
  for (int e = 0; e < 4; ++e)
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const float4 sv = *reinterpret_cast<const float4*>(S + (kk + e) * 16 + 4 * q);
#pragma unroll
          for (int c = 0; c < 4; ++c) {
            const float x = e == 0 ? xv[c].x : e == 1 ? xv[c].y : e == 2 ? xv[c].z : xv[c].w;
            acc[c][4 * q + 0] = fmaf(sv.x, x, acc[c][4 * q + 0]);
            acc[c][4 * q + 1] = fmaf(sv.y, x, acc[c][4 * q + 1]);
            acc[c][4 * q + 2] = fmaf(sv.z, x, acc[c][4 * q + 2]);
            acc[c][4 * q + 3] = fmaf(sv.w, x, acc[c][4 * q + 3]);
          }
        }
}

// The consumer warps' sums added in warp order through shared memory (every stage was waited
// on, so no copy is in flight) and stored to this split's partial sums.
template <int CW>
__device__ __forceinline__ void add_warp_sums(float* red, const float (&acc)[4][16], int warp, int lane, float* part,
                                              int n, int j0) {
  asm volatile("bar.sync 1, %0;\n" ::"r"(CW * 32) : "memory");
#pragma unroll
  for (int c = 0; c < 4; ++c)
#pragma unroll
    for (int r = 0; r < 16; ++r) red[(warp * 16 + r) * NB + lane + 32 * c] = acc[c][r];
  asm volatile("bar.sync 1, %0;\n" ::"r"(CW * 32) : "memory");
  for (int o = threadIdx.x; o < 16 * NB; o += CW * 32) {
    float v = red[o];
#pragma unroll
    for (int w = 1; w < CW; ++w) v += red[w * 16 * NB + o];
    part[(int64_t(blockIdx.y) * 16 + o / NB) * n + j0 + o % NB] = v;
  }
}

// The consumer warps: for each stage, wait for it to land, add its products (the lane's 4
// columns, this warp's KC / CW k; x_at(X, col, kk) is column col's float4 at k offset kk of
// stage X), release it; then the warps' sums.
template <int STAGES, int CW, int KC, bool FMA, class XAt>
__device__ __forceinline__ void consume(const float* xs, int x_stage, const float* ss, int s_stage, uint64_t* bars,
                                        int steps, XAt x_at, float* red, float* part, int n, int j0) {
  constexpr int KW = KC / CW;  // k of a stage per consumer warp
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float acc[4][16];
#pragma unroll
  for (int c = 0; c < 4; ++c)
#pragma unroll
    for (int r = 0; r < 16; ++r) acc[c][r] = 0.f;
  for (int t = 0; t < steps; ++t) {
    const int s = t % STAGES;
    mbar_wait(smem_u32(bars + s), (t / STAGES) & 1);
    const float* X = xs + s * x_stage;
    const float* S = ss + s * s_stage;
#pragma unroll
    for (int h = 0; h < (FMA ? KW / 4 : 0); ++h) {
      const int kk = warp * KW + 4 * h;
      float4 xv[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) xv[c] = *reinterpret_cast<const float4*>(x_at(X, lane + 32 * c, kk));
      fma_4x16(xv, S, kk, acc);
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(smem_u32(bars + STAGES + s));
  }
  add_warp_sums<CW>(red, acc, warp, lane, part, n, j0);
}

template <int STAGES, int CW, int KC, bool FMA>
__global__ __launch_bounds__((CW + 1) * 32, 1) void skinny_tma(const float* __restrict__ a, const float* __restrict__ b,
                                                              int ldb, int klen, int n, float* __restrict__ part) {
  constexpr int LDX = KC + 4, kXStage = NB * LDX, kSStage = KC * 16;
  extern __shared__ __align__(1024) float sm[];
  float* xs = sm;
  float* ss = xs + STAGES * kXStage;
  uint64_t* bars = reinterpret_cast<uint64_t*>(ss + STAGES * kSStage);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int j0 = blockIdx.x * NB, kbeg = blockIdx.y * klen, steps = klen / KC;
  auto full = [&](int s) { return smem_u32(bars + s); };  // the stage's data has landed
  auto empty = [&](int s) { return smem_u32(bars + STAGES + s); };  // every consumer warp is done with it
  init_ring<STAGES, CW>(bars);
  if (warp == CW) {  // producer
    for (int t = 0; t < steps; ++t) {
      const int s = t % STAGES;
      if (t >= STAGES) mbar_wait(empty(s), ((t / STAGES) - 1) & 1);
      if (lane == 0) mbar_expect_tx(full(s), NB * KC * 4 + kSStage * 4);
      __syncwarp();
      const int k0 = kbeg + t * KC;
#pragma unroll
      for (int c = 0; c < NB / 32; ++c) {
        const int col = lane + 32 * c;
        bulk_g2s(smem_u32(xs + s * kXStage + col * LDX), b + int64_t(j0 + col) * ldb + k0, KC * 4, full(s));
      }
      if (lane == 0) bulk_g2s(smem_u32(ss + s * kSStage), a + int64_t(k0) * 16, kSStage * 4, full(s));
    }
    return;
  }
  // Column col's float4 at k offset kk of the stage: rows of LDX floats.
  consume<STAGES, CW, KC, FMA>(xs, kXStage, ss, kSStage, bars, steps,
                               [](const float* X, int col, int kk) { return X + col * LDX + kk; }, sm, part, n, j0);
}

// Variant TM: B's stage by a 2-D tensor map, boxes of 32 k x 128 columns (16 KB, one TMA op
// each), 128-byte swizzle: column j's 16-byte chunk c (k 4c .. 4c+3 of the box) lands at chunk
// c ^ (j % 8) of its 128-byte row, so a warp's 32 float4 reads (32 columns) take 4 wavefronts.
template <int STAGES, int CW, int KC, bool FMA>
__global__ __launch_bounds__((CW + 1) * 32, 1) void skinny_tm(const __grid_constant__ CUtensorMap tb, const float* __restrict__ a,
                                                             int klen, int n, float* __restrict__ part) {
  constexpr int kBoxes = KC / 32, kXStage = NB * KC, kSStage = KC * 16;
  extern __shared__ __align__(1024) float sm[];
  // STAGES x kBoxes x [128 columns][32 k], swizzled: the boxes 1024-byte aligned
  float* xs = sm + ((1024 - (smem_u32(sm) & 1023)) & 1023) / 4;
  float* ss = xs + STAGES * kXStage;
  uint64_t* bars = reinterpret_cast<uint64_t*>(ss + STAGES * kSStage);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int j0 = blockIdx.x * NB, kbeg = blockIdx.y * klen, steps = klen / KC;
  auto full = [&](int s) { return smem_u32(bars + s); };  // the stage's data has landed
  auto empty = [&](int s) { return smem_u32(bars + STAGES + s); };  // every consumer warp is done with it
  init_ring<STAGES, CW>(bars);
  if (warp == CW) {
    if (lane == 0) {
      for (int t = 0; t < steps; ++t) {
        const int s = t % STAGES;
        if (t >= STAGES) mbar_wait(empty(s), ((t / STAGES) - 1) & 1);
        mbar_expect_tx(full(s), kXStage * 4 + kSStage * 4);
        const int k0 = kbeg + t * KC;
        for (int bx = 0; bx < kBoxes; ++bx)
          tma_load_2d(smem_u32(xs + s * kXStage + bx * NB * 32), &tb, full(s), k0 + 32 * bx, j0);
        bulk_g2s(smem_u32(ss + s * kSStage), a + int64_t(k0) * 16, kSStage * 4, full(s));
      }
    }
    return;
  }
  // Column col's float4 at k offset kk: box kk / 32, chunk (kk % 32) / 4 swizzled by col % 8.
  consume<STAGES, CW, KC, FMA>(xs, kXStage, ss, kSStage, bars, steps,
                               [](const float* X, int col, int kk) {
                                 return X + (kk / 32) * NB * 32 + col * 32 + ((((kk % 32) / 4) ^ (col % 8)) * 4);
                               },
                               sm, part, n, j0);
}

__global__ void add_splits(const float* __restrict__ part, int splits, int n, float alpha, float beta, float* c) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;  // o = r + 16 j (C's order)
  if (o >= 16 * n) return;
  const int r = o % 16, j = o / 16;
  float v = 0.f;
  for (int s = 0; s < splits; ++s) v += part[(int64_t(s) * 16 + r) * n + j];
  c[o] = beta == 0.f ? alpha * v : fmaf(alpha, v, beta * c[o]);
}

template <int STAGES, int CW, int KC>
size_t smem_bytes() {
  const size_t ring = size_t(STAGES) * (NB * (KC + 4) + KC * 16) * 4 + 2 * STAGES * 8;
  const size_t red = size_t(CW) * 16 * NB * 4;
  return ring > red ? ring : red;
}

template <int STAGES, int CW, int KC, bool FMA = true>
void launch(const float* a, const float* b, int k, int n, int splits, float* part, float* c, float beta, cudaStream_t st,
            bool second = true) {
  const size_t sm = smem_bytes<STAGES, CW, KC>();
  static bool set = false;
  if (!set) {
    CK(cudaFuncSetAttribute(skinny_tma<STAGES, CW, KC, FMA>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm)));
    set = true;
  }
  skinny_tma<STAGES, CW, KC, FMA><<<dim3(n / NB, splits), (CW + 1) * 32, sm, st>>>(a, b, k, k / splits, n, part);
  if (second) add_splits<<<(16 * n + 255) / 256, 256, 0, st>>>(part, splits, n, 1.f, beta, c);
}

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;
CUtensorMap make_map(const float* b, int k, int n, int ldb) {
  void* f = nullptr;
  cudaDriverEntryPointQueryResult q{};
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q));
  CUtensorMap m;
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(n)};
  const cuuint64_t strides[1] = {cuuint64_t(ldb) * 4};
  const cuuint32_t box[2] = {32, NB}, estr[2] = {1, 1};
  const CUresult r = reinterpret_cast<EncodeTiled>(f)(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(b), dims, strides,
                                                      box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "encode failed %d\n", int(r));
    std::exit(1);
  }
  return m;
}
template <int STAGES, int CW, int KC, bool FMA = true>
void launch_tm(const CUtensorMap& m, const float* a, int k, int n, int splits, float* part, float* c, float beta,
               cudaStream_t st, bool second = true) {
  const size_t ring = size_t(STAGES) * (NB * KC + KC * 16) * 4 + 2 * STAGES * 8 + 1024;
  const size_t red = size_t(CW) * 16 * NB * 4;
  const size_t sm = ring > red ? ring : red;
  static bool set = false;
  if (!set) {
    CK(cudaFuncSetAttribute(skinny_tm<STAGES, CW, KC, FMA>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm)));
    set = true;
  }
  skinny_tm<STAGES, CW, KC, FMA><<<dim3(n / NB, splits), (CW + 1) * 32, sm, st>>>(m, a, k / splits, n, part);
  if (second) add_splits<<<(16 * n + 255) / 256, 256, 0, st>>>(part, splits, n, 1.f, beta, c);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = 4096, k = 4096, reps = 20;
  const int sets = 5;  // B: 64 MB each, >= 256 MiB rotated
  std::vector<float> ha(size_t(16) * k), hb(size_t(k) * n);
  srand(7);
  for (auto& v : ha) v = float(rand()) / RAND_MAX - 0.5f;
  for (auto& v : hb) v = float(rand()) / RAND_MAX - 0.5f;
  float *a, *b, *c, *cref, *part;
  CK(cudaMalloc(&a, ha.size() * 4));
  CK(cudaMalloc(&b, hb.size() * 4 * sets));
  CK(cudaMalloc(&c, size_t(16) * n * 4));
  CK(cudaMalloc(&cref, size_t(16) * n * 4));
  CK(cudaMalloc(&part, size_t(16) * n * 4 * 16));
  CK(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
  for (int s = 0; s < sets; ++s) CK(cudaMemcpy(b + s * hb.size(), hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1.f, zero = 0.f;
  auto B = [&](int i) { return b + (i % sets) * hb.size(); };
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, n, k, &one, a, 16, B(0), k, &zero, cref, 16);
  std::vector<float> want(size_t(16) * n), got(size_t(16) * n);
  CK(cudaMemcpy(want.data(), cref, want.size() * 4, cudaMemcpyDeviceToHost));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto time = [&](auto&& call) {
    for (int i = 0; i < 3; ++i) call(i);
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
      cudaEventRecord(e0);
      call(i + 3);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      t.push_back(ms * 1000.f);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  auto check = [&](const char* name) {
    CK(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, double(std::fabs(got[i] - want[i])));
    return worst;
  };
  const float tc = time([&](int i) { cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, n, k, &one, a, 16, B(i), k, &zero, c, 16); });
  std::printf("variant,splits,us_total,us_main_only,ratio_vs_cublas,max_abs_err_vs_cublas\n");
  std::printf("cublas,-,%.2f,,1.000,0\n", tc);
  auto run = [&](const char* name, auto launcher, int splits) {
    CK(cudaMemset(c, 0xff, size_t(16) * n * 4));
    launcher(B(0), splits, true);
    CK(cudaDeviceSynchronize());
    const double err = check(name);
    const float t = time([&](int i) { launcher(B(i), splits, true); });
    const float tm = time([&](int i) { launcher(B(i), splits, false); });
    CK(cudaGetLastError());
    std::printf("%s,%d,%.2f,%.2f,%.3f,%.3g\n", name, splits, t, tm, tc / t, err);
  };
  for (int splits : {4}) {
    run("s3_cw8_kc128", [&](const float* bb, int sp, bool two) { launch<3, 8, 128>(a, bb, k, n, sp, part, c, 0.f, 0, two); }, splits);
  }
  std::vector<CUtensorMap> maps;
  for (int s = 0; s < sets; ++s) maps.push_back(make_map(b + s * hb.size(), k, n, k));
  auto M = [&](const float* bb) -> const CUtensorMap& { return maps[(bb - b) / hb.size()]; };
  for (int splits : {4}) {
    run("tm_s5_cw8_kc64", [&](const float* bb, int sp, bool two) { launch_tm<5, 8, 64>(M(bb), a, k, n, sp, part, c, 0.f, 0, two); }, splits);
    run("tm_s6_cw8_kc32", [&](const float* bb, int sp, bool two) { launch_tm<6, 8, 32>(M(bb), a, k, n, sp, part, c, 0.f, 0, two); }, splits);
    run("tm_s5_cw16_kc64", [&](const float* bb, int sp, bool two) { launch_tm<5, 16, 64>(M(bb), a, k, n, sp, part, c, 0.f, 0, two); }, splits);
    run("tm_s5_cw8_kc64_nofma", [&](const float* bb, int sp, bool two) { launch_tm<5, 8, 64, false>(M(bb), a, k, n, sp, part, c, 0.f, 0, two); }, splits);
  }
  // Reading B alone at the same grid: the consumers do no FMAs (a bound for this copy scheme).
  return 0;
}
