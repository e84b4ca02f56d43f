// skinny_stream: HGEMM (and sbgemm/shgemm) where one side of C is 64 or less and the large operand
// is stored contiguous along k: the large operand streams from device memory straight into mma.sync
// fragments, never through shared memory, and the main loop has no barrier (only the small operand
// is read from shared memory, copied there once a block).
//
// Why: at 16 x 4096 x 4096 the product is a read of B (32 MB, 6.1 us on the H200) plus little
// arithmetic, yet cuBLAS took 14-18 us and rung 2's split-k block (cp.async stages, ldmatrix, a
// barrier a stage) 20-22 us: with ~128 registers and 72 KiB of stages a thread block, 16 warps an
// SM wait on their stages (bench/results/h200-hgemm-skinny-2026-11-28.md).
//
// The roles: D (R x N, R <= 64) = S (R x K, small) * G (K x N, large, G(l, j) at g[l + j*ldg]).
// C = op(A) op(B) with m <= 64 and B 'N' is S = op(A), G = B, D = C; with n <= 64 and A 'T' it is
// C^T = op(B)^T op(A)^T: S = op(B)^T, G = A (stored k x m), D = C^T.
//
// The k order inside an mma: m16n8k16's fragments give lane (g, t) (g = lane / 4, t = lane % 4) the
// k pairs {2t, 2t+1} and {2t+8, 2t+9} of both operands. The sum does not care which physical k a
// logical k is, as long as both operands agree, so lane t takes physical k 8t .. 8t+7 of each 32 of
// k: {8t, 8t+1}, {8t+2, 8t+3} for the first mma and {8t+4, 8t+5}, {8t+6, 8t+7} for the second. Then
// one 16-byte load of G's column g gives a lane both mmas' G fragments, and one 16-byte shared-memory
// load per row of S both mmas' S fragments.
//
// Grid: blocks of 4 warps, NJ groups of 8 columns of D a warp (each S fragment read from shared
// memory feeds NJ column groups' mmas; with one group, at 64 rows the reads of S outran shared
// memory: 50 us at 64 x 4096 x 4096): NJ = 4 (128 columns a block) above 16 rows, NJ = 2 (64
// columns, twice the blocks) up to 16; all of the block's warps on one slice of k; the slices of a column block are the blocks of a cluster (1, c, 1), their shares
// added in rank order in distributed shared memory (cluster_reduce_ordered) and finished by the
// once-rounded epilogue, as the split-k kernel does. The block first copies its slice of S (zero
// past R and K) into shared memory, rows 32 halves longer than the slice so that a quarter warp's
// 16-byte loads hit distinct banks (the copy itself: 16-byte loads along S's contiguous side,
// several in flight a thread). c is chosen for about four blocks an SM and one wave.
#include <cuda_bf16.h>

#include <type_traits>

#include "kernels/cluster.cuh"
#include "kernels/hgemm/mma_sync.cuh"

namespace myblas {
namespace hgemm_detail {
namespace {

constexpr int kStreamWarps = 4;   // warps a block
constexpr int kStreamUnroll = 4;  // 32-k steps whose loads are in flight at once
constexpr int kStreamMaxRanks = 8;

struct StreamArgs {
  const __half* s;  // S(r, l) = s[r * s_rs + l * s_ks]
  const __half* g;  // G(l, j) = g[l + j * ldg]
  void* d;          // D(r, j) = d[r * d_rs + j * d_cs]
  int64_t s_rs, s_ks, ldg, d_rs, d_cs;
  int rows, cols, k;
  float alpha, beta;
  int slice;  // k per cluster rank, a multiple of 32
};


// Copies S's rows 0 .. MT-1 at k k0 .. k0 + slice - 1 into sh (row r at sh + r * ld_s), zero
// past S's rows and past kl of k.
template <int MT>
__device__ __forceinline__ void stage_s(const StreamArgs& a, int k0, int kl, uint16_t* sh, int ld_s) {
  constexpr int kStage = 4;
  const uint16_t* src = reinterpret_cast<const uint16_t*>(a.s);
  const bool along_k = a.s_ks == 1;  // chunks run along k (rows of S contiguous), else along rows
  const bool vec = aligned16(a.s) && (along_k ? a.s_rs % 8 == 0 : a.s_ks % 8 == 0 && a.s_rs == 1);
  const int per_line = along_k ? a.slice / 8 : MT / 8;  // chunks along the contiguous side
  const int chunks = MT * a.slice / 8;
  for (int c0 = threadIdx.x; c0 < chunks; c0 += kStage * blockDim.x) {
    uint4 v[kStage];
#pragma unroll
    for (int u = 0; u < kStage; ++u) {
      const int ch = c0 + u * int(blockDim.x);
      const int line = ch / per_line, at = (ch % per_line) * 8;  // (row, k) or (k, row) of the chunk's first element
      const int r = along_k ? line : at, l = along_k ? at : line;
      const int64_t off = int64_t(r) * a.s_rs + int64_t(k0 + l) * a.s_ks;
      const bool whole = ch < chunks && (along_k ? r < a.rows && l + 8 <= kl : l < kl && r + 8 <= a.rows);
      if (vec && whole) {
        v[u] = __ldg(reinterpret_cast<const uint4*>(src + off));
      } else {
        uint16_t h[8];
#pragma unroll
        for (int q = 0; q < 8; ++q) {
          const int rq = along_k ? r : r + q, lq = along_k ? l + q : l;
          h[q] = ch < chunks && rq < a.rows && lq < kl ? src[int64_t(rq) * a.s_rs + int64_t(k0 + lq) * a.s_ks] : 0;
        }
        v[u] = make_uint4(h[0] | unsigned(h[1]) << 16, h[2] | unsigned(h[3]) << 16, h[4] | unsigned(h[5]) << 16,
                          h[6] | unsigned(h[7]) << 16);
      }
    }
#pragma unroll
    for (int u = 0; u < kStage; ++u) {
      const int ch = c0 + u * int(blockDim.x);
      if (ch >= chunks) break;
      const int line = ch / per_line, at = (ch % per_line) * 8;
      if (along_k) {
        *reinterpret_cast<uint4*>(sh + line * ld_s + at) = v[u];
      } else {
        const uint16_t* h = reinterpret_cast<const uint16_t*>(&v[u]);
#pragma unroll
        for (int q = 0; q < 8; ++q) sh[(at + q) * ld_s + line] = h[q];
      }
    }
  }
}

// Shared memory a block needs: its slice of S, then (reusing it) its shares of D, column-major
// (MT + 4 floats a column) where D's rows are contiguous, else row-major (cols + 4 floats a row),
// so that the reduction's reads follow the output's contiguous side.
constexpr size_t stream_smem(int mt, int cols, int slice) {
  return std::max(size_t(mt) * size_t(slice + 32) * 2, size_t(std::max(cols * (mt + 4), mt * (cols + 4))) * 4);
}

// MT: rows of S and D padded to 16s (16, 32, 48, 64). NJ: 8-column groups a warp (each S fragment
// read from shared memory feeds NJ mmas; fewer groups mean fewer registers and more blocks).
template <int MT, int NJ, bool BF16, class TOut>
__global__ __launch_bounds__(kStreamWarps * 32) void hgemm_skinny_stream(StreamArgs a) {
  constexpr int MI = MT / 16;
  constexpr int kStreamCols = 8 * NJ * kStreamWarps;  // columns of D a block
  extern __shared__ __align__(16) __half smem[];
  const int ld_s = a.slice + 32;  // halves between rows of the slice of S
  const int rank = int(blockIdx.y);
  const int k0 = rank * a.slice, kl = max(0, min(a.slice, a.k - k0));
  const int col0 = int(blockIdx.x) * kStreamCols;

  // The slice of S: rows 0 .. MT-1, k 0 .. slice-1 (zero outside S), in chunks of 8 elements along
  // S's contiguous side: one 16-byte load each where S allows (its base 16-byte aligned, the
  // other stride a multiple of 8), kStage chunks in flight a thread (one load at a time left the
  // copy latency-bound: 200 us at 64 x 4096 x 4096).
  uint16_t* sh = reinterpret_cast<uint16_t*>(smem);
  stage_s<MT>(a, k0, kl, sh, ld_s);
  __syncthreads();

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, gid = lane >> 2, t4 = lane & 3;
  const uint16_t* gcol[NJ];  // this lane's column of G in each of the warp's groups
  bool col_in[NJ];
#pragma unroll
  for (int j = 0; j < NJ; ++j) {
    const int col = col0 + (warp * NJ + j) * 8 + gid;
    col_in[j] = col < a.cols;
    gcol[j] = reinterpret_cast<const uint16_t*>(a.g) + int64_t(col_in[j] ? col : 0) * a.ldg + k0 + 8 * t4;
  }
  float acc[MI][NJ][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NJ; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;
  const int steps = (kl + 31) / 32;
  const uint16_t* srow = sh + gid * ld_s + 8 * t4;  // row gid of S, this lane's 8 k of a step
  for (int s0 = 0; s0 < steps; s0 += kStreamUnroll) {
    uint4 gv[kStreamUnroll][NJ];
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) {
      const int kk = (s0 + u) * 32 + 8 * t4;  // this lane's first k of the step, in the slice
#pragma unroll
      for (int j = 0; j < NJ; ++j) {
        if (col_in[j] && kk + 8 <= kl) {
          gv[u][j] = __ldg(reinterpret_cast<const uint4*>(gcol[j] + (s0 + u) * 32));
        } else {
          uint16_t h[8];
#pragma unroll
          for (int q = 0; q < 8; ++q) h[q] = col_in[j] && kk + q < kl ? gcol[j][(s0 + u) * 32 + q] : uint16_t(0);
          gv[u][j] = make_uint4(h[0] | unsigned(h[1]) << 16, h[2] | unsigned(h[3]) << 16,
                                h[4] | unsigned(h[5]) << 16, h[6] | unsigned(h[7]) << 16);
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) {
      if (s0 + u >= steps) break;
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        const uint4 lo = *reinterpret_cast<const uint4*>(srow + (16 * i) * ld_s + (s0 + u) * 32);
        const uint4 hi = *reinterpret_cast<const uint4*>(srow + (16 * i + 8) * ld_s + (s0 + u) * 32);
        const unsigned f0[4] = {lo.x, hi.x, lo.y, hi.y};  // rows g, g+8 at k pairs {8t, 8t+1}, {8t+2, 8t+3}
        const unsigned f1[4] = {lo.z, hi.z, lo.w, hi.w};  // ... {8t+4, 8t+5}, {8t+6, 8t+7}
#pragma unroll
        for (int j = 0; j < NJ; ++j) {  // (each S fragment feeds the warp's NJ column groups)
          mma_16816<BF16>(acc[i][j], f0, gv[u][j].x, gv[u][j].y);
          mma_16816<BF16>(acc[i][j], f1, gv[u][j].z, gv[u][j].w);
        }
      }
    }
  }

  // Shares: the D tile (MT x kStreamCols) in shared memory, laid out along D's contiguous side:
  // column-major with MT + 4 floats a column where D's rows are contiguous (C itself), else
  // row-major with kStreamCols + 4 floats a row (C^T), so that the reduction below reads each
  // rank's shares contiguously (read across the rows, its distributed shared memory loads were
  // one transaction a lane and the n-small role ran 1.5-1.8x the m-small one's time).
  // Accumulator (i, j, 2h + e) of lane (gid, t4) is D(16i + 8h + gid, (warp NJ + j) 8 + 2 t4 + e).
  __syncthreads();  // every warp is done reading S
  const bool rows_first = a.d_rs == 1;  // consecutive outputs along D's contiguous side
  const int ld_r = rows_first ? 1 : kStreamCols + 4, ld_c = rows_first ? MT + 4 : 1;
  float* shares = reinterpret_cast<float*>(smem);
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int e = 0; e < 2; ++e)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
          shares[((warp * NJ + j) * 8 + 2 * t4 + e) * ld_c + (16 * i + 8 * h + gid) * ld_r] = acc[i][j][2 * h + e];

  TOut* d = static_cast<TOut*>(a.d);
  const int rows = a.rows, cols = a.cols;
  const int64_t d_rs = a.d_rs, d_cs = a.d_cs;
  const float alpha = a.alpha, beta = a.beta;
  cluster_reduce_ordered(
      shares, MT * kStreamCols,
      [rows_first, ld_r, ld_c](int q) {
        const int r = rows_first ? q % MT : q / kStreamCols, c = rows_first ? q / MT : q % kStreamCols;
        return c * ld_c + r * ld_r;
      },
      [&](int q, float sum) {
        const int r = rows_first ? q % MT : q / kStreamCols, c = col0 + (rows_first ? q / MT : q % kStreamCols);
        if (r < rows && c < cols) store_c(d + int64_t(r) * d_rs + int64_t(c) * d_cs, sum, alpha, beta);
      });
}

template <int MT, int NJ, bool BF16, class TOut>
cudaError_t launch_stream_cfg(StreamArgs a, cudaStream_t st) {
  auto kernel = hgemm_skinny_stream<MT, NJ, BF16, TOut>;
  constexpr int kThreads = kStreamWarps * 32;
  constexpr int kStreamCols = 8 * NJ * kStreamWarps;
  const int64_t blocks_x = (int64_t(a.cols) + kStreamCols - 1) / kStreamCols;
  if (blocks_x > int64_t(1) << 31) return cudaErrorInvalidValue;
  const int sms = device_sm_count();
  // Ranks: about four blocks an SM in all, at most 8, slices of at least 256 k, one wave.
  int c = int(std::min<int64_t>(kStreamMaxRanks, std::max<int64_t>(1, (4 * int64_t(sms) + blocks_x - 1) / blocks_x)));
  c = std::max(1, std::min(c, a.k / 256));
  auto smem_of = [](int slice) { return stream_smem(MT, kStreamCols, slice); };
  static SmemLimitOnce limit;
  constexpr size_t kMaxSmem = 200 * 1024;
  const cudaError_t attr = limit.set(reinterpret_cast<const void*>(kernel), kMaxSmem);
  if (attr != cudaSuccess) return attr;
  auto slice_of = [&](int ranks) { return ((a.k + ranks - 1) / ranks + 31) / 32 * 32; };
  int c_min = 1;  // the fewest ranks whose slice of S fits in shared memory
  while (c_min < kStreamMaxRanks && smem_of(slice_of(c_min)) > kMaxSmem) ++c_min;
  if (smem_of(slice_of(c_min)) > kMaxSmem) return cudaErrorInvalidValue;  // (stream_can_implement bounds k)
  c = std::max(c, c_min);
  // One wave where fewer ranks give one (the first of c, c/2, ... whose clusters the device holds
  // at once), else c as it is: fewer ranks mean longer slices, more shared memory a block and so
  // fewer blocks an SM.
  for (int t = c; t >= 2 && t >= c_min; t /= 2)
    if (blocks_x <= max_active_clusters(reinterpret_cast<const void*>(kernel), kThreads, smem_of(slice_of(t)), t)) {
      c = t;
      break;
    }
  a.slice = slice_of(c);
  return launch_clusters(kernel, dim3(unsigned(blocks_x), unsigned(c)), kThreads, smem_of(a.slice), c, st, a);
}

// (Two column groups only up to 16 rows: above, four.)
template <bool BF16, class TOut>
cudaError_t launch_stream_types(const StreamArgs& a, int groups, cudaStream_t st) {
  if (a.rows <= 16)
    return groups == 2 ? launch_stream_cfg<16, 2, BF16, TOut>(a, st) : launch_stream_cfg<16, 4, BF16, TOut>(a, st);
  if (a.rows <= 32) return launch_stream_cfg<32, 4, BF16, TOut>(a, st);
  if (a.rows <= 48) return launch_stream_cfg<48, 4, BF16, TOut>(a, st);
  return launch_stream_cfg<64, 4, BF16, TOut>(a, st);
}

// Which role assignment runs p, if one does: 1 (m small, B 'N'), 2 (n small, A 'T'), 0 none.
int stream_roles(const GemmProblem& p) {
  if (p.m <= 64 && p.tb == Op::N && vec8_ok(p.b, p.ldb)) return 1;
  if (p.n <= 64 && p.ta == Op::T && vec8_ok(p.a, p.lda)) return 2;
  return 0;
}

}  // namespace

const char* stream_can_implement(const GemmProblem& p) {
  if (!device_has_clusters()) return "thread-block clusters need compute capability 9.0";
  if (!stream_roles(p))
    return "needs m <= 64 with B 'N', or n <= 64 with A 'T', the large operand 16-byte aligned with its leading "
           "dimension a multiple of 8";
  if (p.k > 12288) return "k > 12288 (the slices of the small operand would not fit in shared memory)";
  return nullptr;
}

cudaError_t launch_stream(const GemmProblem& p, cudaStream_t st, int groups) {
  StreamArgs a;
  const int roles = stream_roles(p);
  if (!roles) return cudaErrorInvalidValue;
  a.k = p.k;
  a.alpha = p.alpha;
  a.beta = p.beta;
  a.slice = 0;
  if (roles == 1) {  // D = C, S = op(A), G = B
    a.s = static_cast<const __half*>(p.a);
    a.s_rs = p.ta == Op::N ? 1 : p.lda;
    a.s_ks = p.ta == Op::N ? p.lda : 1;
    a.g = static_cast<const __half*>(p.b);
    a.ldg = p.ldb;
    a.d_rs = 1;
    a.d_cs = p.ldc;
    a.rows = p.m;
    a.cols = p.n;
  } else {  // D = C^T, S = op(B)^T, G = A (k x m)
    a.s = static_cast<const __half*>(p.b);
    a.s_rs = p.tb == Op::N ? p.ldb : 1;
    a.s_ks = p.tb == Op::N ? 1 : p.ldb;
    a.g = static_cast<const __half*>(p.a);
    a.ldg = p.lda;
    a.d_rs = p.ldc;
    a.d_cs = 1;
    a.rows = p.n;
    a.cols = p.m;
  }
  a.d = p.c;
  // Two column groups a warp for up to 16 rows (more, smaller blocks: 11.6 against 13.2 us at
  // 16 x 4096 x 4096 on the H200), four above (at 64 rows two read S from shared memory twice as
  // often: 48 against 32 us) (bench/results/h200-hgemm-skinny-2026-11-28.md).
  if (groups != 2 && groups != 4) groups = a.rows <= 16 ? 2 : 4;
  if (p.routine == Routine::sbgemm) return launch_stream_types<true, float>(a, groups, st);
  if (p.mixed()) return launch_stream_types<false, float>(a, groups, st);
  return launch_stream_types<false, __half>(a, groups, st);
}

}  // namespace hgemm_detail
}  // namespace myblas
