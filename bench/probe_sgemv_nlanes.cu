// Probe (issue 4, N 8192^2 >= 1.05x): can op(A) = A reach the read ceiling with a plain launch,
// each block owning its rows outright (no cluster, no scratch, no second pass)?
// Not a library kernel: float4 loads only (A 16-byte aligned, lda % 4 == 0), unit x, beta = 0.
// Beside cublasSgemv and the read ceiling (bench/read_ceiling.cu), the same timing as bench_sgemv
// (median of event-timed calls after warm-ups, operands rotated over >= 256 MiB).
// Build (not part of the CMake build):
//   nvcc -O3 -std=c++17 -arch=sm_90a -Ibench bench/probe_sgemv_nlanes.cu bench/read_ceiling.cu \
//        -o probe_sgemv_nlanes -lcublas
// Run: probe_sgemv_nlanes [REPS] [sk|tall]   (sk: only v4's stream-K variants beside the base ones;
//      tall: v5's persistent grids)
//
// Why: ncu at 8192^2 (2026-11-26) put n_rowblock_cluster's kernel at 90.2 us against the read
// ceiling's 87.7, and its event time ~1 us further behind (the cluster launch); 64 blocks owning
// 128 rows each (no split) run at 2.66 TB/s on half the SMs. Here a block owns R = 4 * LPC rows:
// LPC lanes read one column's R rows (float4 each), so a warp instruction reads 32 / LPC columns
// of 16 * LPC contiguous bytes. LPC = 16: 64-row blocks, 8192 rows = 128 blocks, one per SM;
// LPC = 8: 32-row blocks, 256 blocks; LPC = 32: the 64 blocks of 128 rows. Each warp streams
// its own contiguous range of columns (multiples of 32), software-pipelined one batch of 8
// loads ahead as n_rowblock_cluster's stream; the column subgroups of a warp are added by
// shuffles and the 8 warps in warp order in shared memory (deterministic).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe_sgemv_harness.h"

namespace {

constexpr int kThreads = 256, kWarps = 8;

__device__ __forceinline__ void axpy4(float4 a, float x, float (&acc)[4]) {
  acc[0] = fmaf(a.x, x, acc[0]);
  acc[1] = fmaf(a.y, x, acc[1]);
  acc[2] = fmaf(a.z, x, acc[2]);
  acc[3] = fmaf(a.w, x, acc[3]);
}

// KB: loads per batch (per lane); IL: the warps of a block take interleaved 32-column chunks
// (warp w: chunks w, w + 8, ...) instead of contiguous ranges, so that a block's 8 warps read
// neighbouring columns at the same time; SP: the grid is spread over every SM (gridDim.x blocks
// of about m / gridDim.x rows, a multiple of 4, at most 4 * LPC; m % 4 == 0), the lanes past a
// block's rows reading its last 4 rows again (the same sectors) and dropping their sums.
// (The body of the kernel below for row block `rb`; red is the block's shared scratch.)
template <int LPC, int KB, bool IL, bool SP>
__device__ __forceinline__ void n_lanes_block(const float* __restrict__ a, int64_t lda, const float* __restrict__ x,
                                              float* __restrict__ y, int m, int n, int rb, float4 (&red)[kWarps][LPC]) {
  constexpr int kCpi = 32 / LPC;    // columns per warp instruction
  constexpr int kRows = 4 * LPC;    // rows per block
  constexpr int kPerChunk = LPC;    // loads per lane per 32 columns
  constexpr int kBatches = kPerChunk / KB;
  static_assert(kBatches >= 1 && kPerChunk % KB == 0, "KB divides LPC");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int sub = lane / LPC, q = lane % LPC;
  int row0, nrows;
  if (SP) {
    const int64_t quads = m / 4;
    const int qb0 = int(int64_t(rb) * quads / gridDim.x), qb1 = int(int64_t(rb + 1) * quads / gridDim.x);
    row0 = 4 * qb0;
    nrows = 4 * (qb1 - qb0);
  } else {
    row0 = rb * kRows;
    nrows = min(kRows, m - row0);
  }
  const int r = row0 + 4 * (SP ? min(q, nrows / 4 - 1) : q);
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  const bool full = SP || row0 + kRows <= m;
  const int nch = n / 32;  // full 32-column chunks of the matrix
  int ch0, chunks, cstep;  // this warp's first chunk, its chunk count, chunk stride
  if (IL) {
    ch0 = warp;
    chunks = nch > warp ? (nch - warp + kWarps - 1) / kWarps : 0;
    cstep = kWarps;
  } else {
    const int per = (nch + kWarps - 1) / kWarps;
    ch0 = min(nch, warp * per);
    chunks = min(nch, ch0 + per) - ch0;
    cstep = 1;
  }
  if (full && chunks > 0) {
    const int64_t ld4 = lda / 4;
    const int64_t step = int64_t(kCpi) * ld4;
    const int64_t jump = (int64_t(cstep - 1) * 32) * ld4;  // from a chunk's end to the warp's next chunk
    const float4* p = reinterpret_cast<const float4*>(a + int64_t(32 * ch0 + sub) * lda + r);
    const float* xp = x + 32 * ch0 + lane;
    float xv = *xp;
    float4 cur[KB];
#pragma unroll
    for (int u = 0; u < KB; ++u, p += step) cur[u] = __ldcs(p);
    for (int ch = 0; ch < chunks; ++ch) {
      const bool more = ch + 1 < chunks;
      const float xn = more ? xp[32 * cstep] : 0.f;
#pragma unroll
      for (int jb = 0; jb < kBatches; ++jb) {
        float4 nxt[KB];
        if (jb + 1 < kBatches || more) {
          if (jb + 1 == kBatches) p += jump;
#pragma unroll
          for (int u = 0; u < KB; ++u, p += step) nxt[u] = __ldcs(p);
        }
#pragma unroll
        for (int u = 0; u < KB; ++u) axpy4(cur[u], __shfl_sync(0xffffffffu, xv, (jb * KB + u) * kCpi + sub), acc);
#pragma unroll
        for (int u = 0; u < KB; ++u) cur[u] = nxt[u];
      }
      xv = xn;
      xp += 32 * cstep;
    }
  }
  // Tail: rows of a partial block (every column) or the columns past the last full chunk.
  for (int c = (full ? nch * 32 : 0) + warp * kCpi + sub; c < n; c += kWarps * kCpi) {
    const float xc = x[c];
    const float* col = a + int64_t(c) * lda;
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (r + i < m) acc[i] = fmaf(__ldcs(col + r + i), xc, acc[i]);
  }
  // Subgroups of the warp (columns sub, sub + kCpi, ...): added by a fixed shuffle tree.
#pragma unroll
  for (int o = LPC; o < 32; o *= 2)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
  if (sub == 0) red[warp][q] = make_float4(acc[0], acc[1], acc[2], acc[3]);
  __syncthreads();
  if (int(threadIdx.x) < nrows) {
    const int t = threadIdx.x;
    float s = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) s += reinterpret_cast<const float*>(red[w])[t];
    if (row0 + t < m) y[row0 + t] = s;
  }
}

template <int LPC, int KB, bool IL, bool SP = false>
__global__ __launch_bounds__(kThreads, LPC == 8 ? 2 : 1) void n_lanes(const float* __restrict__ a, int64_t lda,
                                                                       const float* __restrict__ x,
                                                                       float* __restrict__ y, int m, int n) {
  __shared__ float4 red[kWarps][LPC];
  n_lanes_block<LPC, KB, IL, SP>(a, lda, x, y, m, n, blockIdx.x, red);
}

// v5 ("pers"): a grid of 2 (LPC = 8) or 1 blocks per SM, each taking row blocks blockIdx.x,
// + gridDim.x, ... in turn (for tall, narrow shapes: 100000 x 1000 is 3125 row blocks of 32 rows
// that each stream only 1000 columns, 125 a warp).
template <int LPC, int KB>
__global__ __launch_bounds__(kThreads, LPC == 8 ? 2 : 1) void n_lanes_pers(const float* __restrict__ a, int64_t lda,
                                                                            const float* __restrict__ x,
                                                                            float* __restrict__ y, int m, int n) {
  __shared__ float4 red[kWarps][LPC];
  const int nrb = (m + 4 * LPC - 1) / (4 * LPC);
  for (int rb = blockIdx.x; rb < nrb; rb += gridDim.x) {
    n_lanes_block<LPC, KB, false, false>(a, lda, x, y, m, n, rb, red);
    __syncthreads();  // red is reused by the next row block
  }
}

template <int LPC, int KB>
void run_pers(const float* a, int lda, const float* x, float* y, int m, int n, int grid) {
  n_lanes_pers<LPC, KB><<<grid, kThreads>>>(a, lda, x, y, m, n);
  CK(cudaGetLastError());
}

template <int LPC, int KB, bool IL, bool SP = false>
void run_lanes(const float* a, int lda, const float* x, float* y, int m, int n) {
  const int rows = 4 * LPC;
  const int grid = SP ? std::max(132, (m / 4 + LPC - 1) / LPC) : (m + rows - 1) / rows;
  n_lanes<LPC, KB, IL, SP><<<grid, kThreads>>>(a, lda, x, y, m, n);
  CK(cudaGetLastError());
}

// SK (v4, stream-K): does a balanced split of the whole stream over every SM beat blocks that
// own their rows? The work is (m / R) row blocks x (n / 32) chunks of 32 columns, in row-block
// order; the gridDim.x * 8 warps take equal contiguous runs of it (so a warp's run crosses at most
// one row-block boundary when runs are no longer than a row block: the host checks). A warp adds
// its run's columns of a row block (the same pipelined stream as above), writes the R sums to its
// own slot, and counts itself in for the row block; the last of the row block's warps to count in
// adds every slot in warp order (deterministic) and stores y, then zeroes the count for the next
// call. Probe only: m % R == 0, n % 32 == 0, counts zeroed once by the host.
template <int LPC, int KB>
__device__ __forceinline__ void stream_chunks(const float* __restrict__ a, int64_t lda, const float* __restrict__ x,
                                              int r, int sub, int lane, int ch0, int chunks, float (&acc)[4]) {
  constexpr int kCpi = 32 / LPC;
  constexpr int kBatches = LPC / KB;
  const int64_t step = int64_t(kCpi) * (lda / 4);
  const float4* p = reinterpret_cast<const float4*>(a + int64_t(32 * ch0 + sub) * lda + r);
  const float* xp = x + 32 * ch0 + lane;
  float xv = *xp;
  float4 cur[KB];
#pragma unroll
  for (int u = 0; u < KB; ++u, p += step) cur[u] = __ldcs(p);
  for (int ch = 0; ch < chunks; ++ch) {
    const bool more = ch + 1 < chunks;
    const float xn = more ? xp[32] : 0.f;
#pragma unroll
    for (int jb = 0; jb < kBatches; ++jb) {
      float4 nxt[KB];
      if (jb + 1 < kBatches || more) {
#pragma unroll
        for (int u = 0; u < KB; ++u, p += step) nxt[u] = __ldcs(p);
      }
#pragma unroll
      for (int u = 0; u < KB; ++u) axpy4(cur[u], __shfl_sync(0xffffffffu, xv, (jb * KB + u) * kCpi + sub), acc);
#pragma unroll
      for (int u = 0; u < KB; ++u) cur[u] = nxt[u];
    }
    xv = xn;
    xp += 32;
  }
}

template <int LPC, int KB, int MINB>
__global__ __launch_bounds__(kThreads, MINB) void n_lanes_sk(const float* __restrict__ a, int64_t lda,
                                                             const float* __restrict__ x, float* __restrict__ y,
                                                             int m, int n, float* __restrict__ part,
                                                             unsigned* __restrict__ cnt) {
  constexpr int kRows = 4 * LPC;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int sub = lane / LPC, q = lane % LPC;
  const int64_t W = int64_t(gridDim.x) * kWarps, gw = int64_t(blockIdx.x) * kWarps + warp;
  const int cpr = n / 32;
  const int64_t U = int64_t(m / kRows) * cpr;
  auto start = [&](int64_t w) { return U * w / W; };
  auto owner = [&](int64_t u) { return ((u + 1) * W + U - 1) / U - 1; };  // the warp whose run holds unit u
  const int64_t u1 = start(gw + 1);
  int seg = 0;
  for (int64_t u = start(gw); u < u1; ++seg) {
    const int rb = int(u / cpr), c0 = int(u % cpr);
    const int64_t uend = u1 < int64_t(rb + 1) * cpr ? u1 : int64_t(rb + 1) * cpr;
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    stream_chunks<LPC, KB>(a, lda, x, rb * kRows + 4 * q, sub, lane, c0, int(uend - u), acc);
#pragma unroll
    for (int o = LPC; o < 32; o *= 2)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
    if (sub == 0)
      __stcg(reinterpret_cast<float4*>(part + (gw * 2 + seg) * kRows) + q, make_float4(acc[0], acc[1], acc[2], acc[3]));
    __threadfence();
    __syncwarp();
    const int64_t wf = owner(int64_t(rb) * cpr), wl = owner(int64_t(rb + 1) * cpr - 1);
    unsigned last = 0;
    if (lane == 0) last = atomicAdd(cnt + rb, 1u) == unsigned(wl - wf);
    if (__shfl_sync(0xffffffffu, last, 0)) {
      __threadfence();
      for (int t = lane; t < kRows; t += 32) {
        float s = 0.f;
        for (int64_t w = wf; w <= wl; ++w) s += __ldcg(part + (w * 2 + (start(w) / cpr == rb ? 0 : 1)) * kRows + t);
        y[int64_t(rb) * kRows + t] = s;
      }
      if (lane == 0) cnt[rb] = 0u;
    }
    u = uend;
  }
}

template <int LPC, int KB, int MINB>
void run_sk(const float* a, int lda, const float* x, float* y, int m, int n, int grid, float* part, unsigned* cnt) {
  n_lanes_sk<LPC, KB, MINB><<<grid, kThreads>>>(a, lda, x, y, m, n, part, cnt);
  CK(cudaGetLastError());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::pair<int, int>> shapes = {{8192, 8192}, {4096, 4096}, {16384, 16384},
                                             {8192, 8192}, {1000, 999},   {332, 4133}};
  int reps = 50;
  if (argc > 1) reps = std::atoi(argv[1]);
  const bool sk_only = argc > 2 && std::string(argv[2]) == "sk";  // v4: the stream-K variants beside the base
  const bool tall = argc > 2 && std::string(argv[2]) == "tall";   // v5: persistent grids on tall shapes
  if (sk_only) shapes = {{8192, 8192}, {4096, 4096}, {16384, 16384}, {8192, 8192}};
  if (tall) shapes = {{100000, 1000}, {1048576, 64}, {8192, 8192}, {100000, 1000}};
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 2;
  std::printf("# probe_sgemv_nlanes: N, unit strides, lda = m, alpha 1, beta 0; median of %d event-timed calls\n",
              reps);
  bench::print_device_and_command(argc, argv);
  std::printf("path,m,n,time_us,gbps,ratio_vs_cublas\n");
  for (const auto& sh : shapes) {
    const int m = sh.first, n = sh.second;
    const bench::SgemvProbeShape shape(h, m, n, reps);
    const float* x = shape.x();
    auto check = [&](const char* name, auto run) { shape.check(name, run); };
    if (tall) {
      check("lanes8", [&](int i) { run_lanes<8, 8, false>(shape.a(i), m, x, shape.y(i), m, n); });
      check("lanes16-kb16", [&](int i) { run_lanes<16, 16, false>(shape.a(i), m, x, shape.y(i), m, n); });
      for (int per_sm : {1, 2, 4}) {
        const std::string name = "pers8-x" + std::to_string(per_sm);
        check(name.c_str(), [&](int i) { run_pers<8, 8>(shape.a(i), m, x, shape.y(i), m, n, per_sm * sms); });
      }
      check("pers16-kb16-x1", [&](int i) { run_pers<16, 16>(shape.a(i), m, x, shape.y(i), m, n, sms); });
      std::fflush(stdout);
      continue;
    }
    if (sk_only) {
      check("lanes16-kb16", [&](int i) { run_lanes<16, 16, false>(shape.a(i), m, x, shape.y(i), m, n); });
      check("lanes32", [&](int i) { run_lanes<32, 8, false>(shape.a(i), m, x, shape.y(i), m, n); });
      float* part;
      unsigned* cnt;
      CK(cudaMalloc(&part, size_t(2) * sms * 2 * kWarps * 128 * 4));
      CK(cudaMalloc(&cnt, size_t(m / 32) * 4));
      CK(cudaMemset(cnt, 0, size_t(m / 32) * 4));
      auto sk = [&](const char* name, int lpc, int grid, auto kernel) {
        const int64_t units = int64_t(m / (4 * lpc)) * (n / 32), warps = int64_t(grid) * kWarps;
        if (m % (4 * lpc) == 0 && n % 32 == 0 && (units + warps - 1) / warps <= n / 32)
          check(name, [&](int i) { kernel(shape.a(i), m, x, shape.y(i), m, n, grid, part, cnt); });
      };
      sk("sk16-kb16", 16, sms, run_sk<16, 16, 1>);
      sk("sk16-kb8", 16, sms, run_sk<16, 8, 1>);
      sk("sk16-kb8-x2", 16, 2 * sms, run_sk<16, 8, 2>);
      sk("sk32-kb8", 32, sms, run_sk<32, 8, 1>);
      sk("sk8-kb8-x2", 8, 2 * sms, run_sk<8, 8, 2>);
      CK(cudaFree(part));
      CK(cudaFree(cnt));
    }
    if (!sk_only) {
      check("lanes8", [&](int i) { run_lanes<8, 8, false>(shape.a(i), m, x, shape.y(i), m, n); });
      check("lanes16", [&](int i) { run_lanes<16, 8, false>(shape.a(i), m, x, shape.y(i), m, n); });
      check("lanes32", [&](int i) { run_lanes<32, 8, false>(shape.a(i), m, x, shape.y(i), m, n); });
      check("lanes16-kb4", [&](int i) { run_lanes<16, 4, false>(shape.a(i), m, x, shape.y(i), m, n); });
      check("lanes16-kb16", [&](int i) { run_lanes<16, 16, false>(shape.a(i), m, x, shape.y(i), m, n); });
      check("lanes32-kb16", [&](int i) { run_lanes<32, 16, false>(shape.a(i), m, x, shape.y(i), m, n); });
      if (m >= 4096 && m % 4 == 0) {
        check("lanes8-sp", [&](int i) { run_lanes<8, 8, false, true>(shape.a(i), m, x, shape.y(i), m, n); });
        check("lanes16-kb16-sp",
              [&](int i) { run_lanes<16, 16, false, true>(shape.a(i), m, x, shape.y(i), m, n); });
        check("lanes32-sp",
              [&](int i) { run_lanes<32, 8, false, true>(shape.a(i), m, x, shape.y(i), m, n); });
    }
    check("lanes8-il", [&](int i) { run_lanes<8, 8, true>(shape.a(i), m, x, shape.y(i), m, n); });
    check("lanes16-il", [&](int i) { run_lanes<16, 8, true>(shape.a(i), m, x, shape.y(i), m, n); });
    check("lanes32-il", [&](int i) { run_lanes<32, 8, true>(shape.a(i), m, x, shape.y(i), m, n); });
    }
    std::fflush(stdout);
  }
  cublasDestroy(h);
  return 0;
}
