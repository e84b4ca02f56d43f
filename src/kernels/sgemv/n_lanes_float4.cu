// Production SGEMV for large op(A) = A shapes (kernel n_lanes): blocks that own their rows
// outright, LPC lanes per column, streamed one batch of loads ahead, in one plain launch.
//
// What changed from n_rowblock_cluster, the fastest N kernel at 4096^2-16384^2 before it
// (128-row blocks, the columns split over the 2-8 blocks of a cluster and the splits added
// through distributed shared memory): at 8192^2 ncu put its kernel at 90.2 us against 87.7 for
// a kernel that only reads A (bench/probes/read_ceiling.cu), and its event time about 1 us further
// behind (the cluster launch); 64 blocks that own 128 rows each, with no split, ran at 2.66
// TB/s on half the SMs (bench/results/h100-sgemv-2026-11-26-nlanes.md). So here no block
// shares its rows with another:
//   - a block owns R = 4 * LPC rows. LPC lanes read one column's R rows, a float4 each, so a
//     warp instruction reads 32 / LPC columns of 16 * LPC contiguous bytes; the launcher picks
//     LPC = 32, 16 or 8 (128-, 64- or 32-row blocks), by measurement:
//     16384^2 takes LPC = 32 (128 blocks), 8192^2 LPC = 16 (128), 4096^2 LPC = 16 (64 blocks
//     with 16 loads a lane in flight, even with 128 blocks of LPC = 8);
//   - each warp streams its own contiguous range of columns (a multiple of 32), its loads
//     software-pipelined one batch of 8 or 16 ahead (as n_rowblock_cluster's stream_full_rows), x
//     read 32 columns at a time, one per lane, and broadcast by shuffle;
//   - the 32 / LPC column subgroups of a warp are added by a fixed shuffle tree, then the 8
//     warps in warp order through shared memory: deterministic, nothing crosses blocks, y is
//     stored by the block that owns the row.
// Partial row blocks (the last, when R does not divide m), the columns past a warp's last full
// 32, and A misaligned or lda % 4 != 0 (single-float loads) take a plain per-column loop.
#include "kernels/sgemv/common.cuh"

namespace myblas {
namespace sgemv_detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarp;
// Loads per batch and lane: 16 for LPC = 16, a whole 32-column chunk in one batch (in the probe
// 8192^2 about 1% faster than 8, and 4096^2's 64 blocks 10% faster), else 8 (LPC = 32: 16 no
// faster at 16384^2; LPC = 8: a chunk is 8 loads).
template <int LPC>
__host__ __device__ constexpr int batch_loads() { return LPC == 16 ? 16 : 8; }

// @tparam LPC lanes per column (8, 16 or 32): a block owns 4 * LPC rows
// @tparam VA float4 loads of A (A 16-byte aligned, lda % 4 == 0)
// Grid: ceil(m / (4 * LPC)) blocks of 256 threads; block b computes y rows [4*LPC*b, +4*LPC).
template <int LPC, bool VA>
__global__ __launch_bounds__(kThreads, LPC == 8 ? 2 : 1) void sgemv_n_lanes(Args g) {
  constexpr int kCpi = kWarp / LPC;     // columns per warp instruction
  constexpr int kRows = 4 * LPC;        // rows per block
  constexpr int kB = batch_loads<LPC>();
  constexpr int kBatches = LPC / kB;    // batches per 32 columns (a lane loads LPC of them)
  static_assert(LPC == 8 || LPC == 16 || LPC == 32, "8, 16 or 32 lanes per column");
  __shared__ float4 red[kWarps][LPC];  // (warp) x (row quad) sums
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int sub = lane / LPC, q = lane % LPC;  // column subgroup, row quad
  const int row0 = int(blockIdx.x) * kRows;
  const int r = row0 + 4 * q;                  // this lane's first row
  // The warps' column ranges: contiguous, multiples of 32 columns (the last ones may be short
  // or empty).
  const int per = int((int64_t(g.n) + kWarps * kWarp - 1) / (kWarps * kWarp) * kWarp);
  const int wc0 = int(min(int64_t(g.n), int64_t(warp) * per));
  const int wc1 = int(min(int64_t(g.n), int64_t(wc0) + per));
  const float* ap = g.a + (r < g.m ? r : 0);
  float acc[4] = {0.f, 0.f, 0.f, 0.f};  // rows r .. r+3

  int cstart = wc0;
  if (VA && row0 + kRows <= g.m && wc1 - wc0 >= kWarp) {  // block-uniform rows, warp-uniform columns
    // Column wc0 + 32*ch + kCpi*j + sub is this lane's j-th load of chunk ch (j < LPC): the
    // next batch's loads are issued before the current batch's FMAs, across chunks too.
    const int chunks = (wc1 - wc0) / kWarp;
    const int64_t step = int64_t(kCpi) * (g.lda / 4);  // float4 from one load to the next
    const float4* p = reinterpret_cast<const float4*>(ap + int64_t(wc0 + sub) * g.lda);
    const float* xp = g.x0 + int64_t(wc0 + lane) * g.incx;  // x[chunk + lane]
    const int64_t xstep = int64_t(kWarp) * g.incx;
    float xv = *xp;
    float4 cur[kB];
#pragma unroll
    for (int u = 0; u < kB; ++u, p += step) cur[u] = __ldcs(p);
    for (int ch = 0; ch < chunks; ++ch) {
      const bool more = ch + 1 < chunks;         // warp-uniform
      const float xn = more ? xp[xstep] : 0.f;  // the next chunk's x
#pragma unroll
      for (int jb = 0; jb < kBatches; ++jb) {
        float4 nxt[kB];
        if (jb + 1 < kBatches || more) {
#pragma unroll
          for (int u = 0; u < kB; ++u, p += step) nxt[u] = __ldcs(p);
        }
#pragma unroll
        for (int u = 0; u < kB; ++u) axpy4(cur[u], __shfl_sync(0xffffffffu, xv, (jb * kB + u) * kCpi + sub), acc);
#pragma unroll
        for (int u = 0; u < kB; ++u) cur[u] = nxt[u];
      }
      xv = xn;
      xp += xstep;
    }
    cstart = wc0 + chunks * kWarp;
  }
  // The rest of the warp's columns (all of them for partial row blocks or scalar loads).
#pragma unroll 4
  for (int c = cstart + sub; c < wc1; c += kCpi)
    axpy4(load_rows4<VA>(ap + int64_t(c) * g.lda, r, g.m), g.x0[int64_t(c) * g.incx], acc);

  // The warp's column subgroups (lanes with equal q) by a fixed shuffle tree, then the 8 warps
  // in warp order.
#pragma unroll
  for (int o = LPC; o < kWarp; o *= 2)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
  if (sub == 0) red[warp][q] = make_float4(acc[0], acc[1], acc[2], acc[3]);
  __syncthreads();
  const int t = threadIdx.x;
  if (t < kRows && row0 + t < g.m) {
    float s = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) s += reinterpret_cast<const float*>(red[w])[t];
    store_y(g.y0 + int64_t(row0 + t) * g.incy, s, g.alpha, g.beta);
  }
}

template <int LPC>
void launch(const Args& g, bool va, int m, cudaStream_t s) {
  const unsigned blocks = unsigned((int64_t(m) + 4 * LPC - 1) / (4 * LPC));
  if (va)
    sgemv_n_lanes<LPC, true><<<blocks, kThreads, 0, s>>>(g);
  else
    sgemv_n_lanes<LPC, false><<<blocks, kThreads, 0, s>>>(g);
}

}  // namespace

cudaError_t launch_n_lanes(const GemvProblem& p, cudaStream_t s, int lanes) {
  if (lanes != 8 && lanes != 16 && lanes != 32) {
    // Wider blocks where there are rows and columns enough for long column streams; measured
    // (h100-sgemv-2026-11-26-nlanes.md, four runs with each count forced): 16384^2 LPC = 32
    // (128 blocks), 0.5-1% ahead of 16 and 3.5-4% of 8; 32768^2 32 and 16 even; 8192^2 LPC = 16
    // with 16-load batches, 2-3% ahead of 8 and of 32; 4096^2 the same LPC = 16 (64 blocks), even
    // with LPC = 8's 128 blocks (-1.8% .. +0.6%; the probe had it 1.5% ahead), while LPC = 16 with
    // 8-load batches was 10% behind; narrow matrices the narrowest, 100000 x 1000 LPC = 8 (16
    // and 32 took 25% and 32% longer).
    const int64_t sms = device_sm_count();
    lanes = (p.m + 127) / 128 >= sms * 3 / 4 && p.n >= 8192 ? 32 : p.m >= 4096 && p.n >= 4096 ? 16 : 8;
  }
  const Args g = make_args(p);
  const bool va = a_vectorizable(p);
  if (lanes == 32)
    launch<32>(g, va, p.m, s);
  else if (lanes == 16)
    launch<16>(g, va, p.m, s);
  else
    launch<8>(g, va, p.m, s);
  return cudaGetLastError();
}

}  // namespace sgemv_detail
}  // namespace myblas
