// Shape-specialised kernel, smallk_panel_128x128x32: C := alpha*op(A)*op(B) + beta*C for small k
// (<= 128) with large m and n, on operands that 16-byte loads can read.
//
// What changed from smallk_128x128x16 and why. Same block tile (128x128, 8 warps of 64x32, 8x8
// lane patches, two blocks per SM), FMA core (mma_tile_8x8) and batched C epilogue; the copy side
// is new. ncu of smallk at 8192^2 x 64 (bench/results/h100-sgemm-smallk-v2-2026-11-22.md) counted
// per warp and tile ~4160 FFMA beside ~1800 other instructions, 900 of them integer: at k = 64
// the FMA loop is short, so the copies' address and predicate arithmetic takes a third of the
// issue slots. smallk copies the operands that are contiguous along k (A T, B N) with 4-byte
// cp.async, transposing on the way (32 copies and their addresses a thread and tile per operand);
// NT, where both operands take 16-byte copies, was its fastest transpose (264 against 281-311 us).
// Here:
// - Operands contiguous along m or n (A N, B T) take 16-byte cp.async as before.
// - Operands contiguous along k are read with 16-byte loads into registers (2 lanes a column, so
//   a warp reads 16 columns x 32 contiguous bytes) and stored transposed, 4 floats a load, into
//   the same [k][p] layout; rows of 132 floats put the 32 stores of a warp (16 columns x 2 rows 4
//   apart) in 32 different banks. 4 loads and 16 stores a thread per 32 k, against 32 copies.
//   (Measured first: keeping them k-contiguous in shared memory ([p][k], XOR-swizzled, a float4
//   giving 4 k of one row) cut the instructions further but ran NN at 268-275 us against NT's
//   235-238 (beta 0.5), ncu showing 2.7x NT's dispatch stalls.)
// - 32 k per stage, two stages: at k = 64 the whole panel is requested at the block's start and
//   the FMAs start when the first half has landed. For k > 64, stage kt + 2 is requested during
//   stage kt's FMAs; there the staged registers made ptxas spill (108-112 bytes for NN and TT),
//   so a single k-contiguous operand (NN, TT) goes by 16-byte cp.async into a staging area in its
//   own layout and is transposed shared-to-shared once landed (8192^2 x 128 NN: 453 us against
//   503 through registers); at k <= 64 that staging's extra barrier and transpose between the
//   copy and the FMAs cost more than they save (NN 279 us against 257-259), so it stays there.
// - Addresses are a base pointer per thread plus constant strides; one block per tile.
// - smallk_panel_pre_128x128x32 (the same kernel) first transposes k-contiguous operands into
//   scratch from the kernels' stream-ordered pool (one small kernel each; they are at most m x k
//   and k x n floats, k <= 1024) and runs the product as NT: 8192^2 x 64 NN 250 us against 268
//   in-kernel, TN 250 against 292; it costs an allocation and a launch (~5 us), so the in-kernel
//   way stays ahead on short calls (2048^2 x 64: 27 against 32-35 us) and at k = 32. Without
//   scratch it takes the in-kernel way.
// - With beta != 0, k <= 64 and a grid of at most 8 tiles per SM, C is prefetched into shared
//   memory by cp.async during the last stage (see prefetch_c_phase): the epilogue then waits on no
//   load of C (2048^2 x 64: 24.5-25.0 us against 26.6-26.7).
// Contiguous operands that 16-byte copies cannot read (a base not 16-byte aligned, or a leading
// dimension not a multiple of 4), and on the in-kernel way any such operand, run
// smallk_128x128x16 instead, which has scalar copy paths.
//
// Measured: bench/results/h100-sgemm-smallk-v3-2026-11-26.md. Two persistent layouts for k <= 64
// (blocks walking runs of tiles with B's panel kept; one block of two warp groups taking turns at
// the FMAs so that one's epilogue overlaps the other's FMAs) ran 12-16% and 33-40% slower at
// 8192^2 x 64: bench/results/h100-sgemm-smallk-v5-2026-11-26.md.
//
// Any k is correct (what lies past k and past m or n is zero-filled and never read); beta == 0
// never reads C; edge tiles and misaligned or padded C take store_tile_8x8.
#include "kernels/sgemm/common.cuh"
#include "kernels/sgemm/smallk.cuh"
#include "kernels/sgemv/common.cuh"  // the kernels' stream-ordered scratch pool

namespace myblas {
namespace sgemm_detail {
namespace {

constexpr int BM = kTileM, BN = kTileN, BK = 32;
constexpr int kThreads = kTileThreads;
constexpr int kStages = 2;
constexpr int LDP = 132;                          // shared row of a panel (floats): op(X)(p, l) at [l*LDP + p]
constexpr int kGroupM = 8;                        // tile rows per swizzle group (L2 reuse)
constexpr int kOperandFloats = BK * LDP;          // one operand's panel of a stage
constexpr int kStageFloats = 2 * kOperandFloats;  // A's then B's
static_assert(BM == 128 && BN == 128 && kThreads == 256 && BK == 32,
              "the copy maps below assume 128x128 tiles, 32 k, 256 threads");

// Copies the first v (0..4) floats at src into dst[0..3] and zeroes the rest: one 16-byte copy when
// the chunk is whole or empty (then nothing is read), else 4-byte copies, so that no copy covers
// bytes past the operand's last element (a 16-byte copy with a short source size reads only
// those bytes, but compute-sanitizer counts the whole 16 as read).
__device__ __forceinline__ void copy16(float* dst, const float* src, const float* any, int v) {
  if (v == 4 || v == 0) {
    cp_async16(dst, v ? src : any, v);
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q) cp_async4(dst + q, q < v ? src + q : any, q < v);
  }
}

// op(X)(p0 .. p0+127, k0 .. k0+31) of an operand contiguous along p, x[p + l*ld], into dst[l*LDP +
// p] by 16-byte cp.async (a warp copies one l, 512 contiguous bytes), zero past (extent, k).
// Chunks wholly in range (block-uniform) take plain 16-byte copies with no tests: the checked
// path's source sizes, branches and fallbacks made up most of the prologue's ~560 instructions a
// warp and tile, 11% of the kernel's issue at 8192^2 x 64 (ncu, h100-sgemm-smallk-v6-2026-11-26.md); without them
// 8192^2 x 64 and x 128 ran 3-4% faster in every transpose (h100-sgemm-smallk-v7-2026-11-26.md).
__device__ __forceinline__ void copy_contig(float* dst, const float* x, int64_t ld, int p0, int extent, int k0,
                                            int k) {
  const int t = threadIdx.x;
  const int p = (t % 32) * 4, l = t / 32;  // this thread's first (p, l); l steps by 8
  const float* src = x + (p0 + p) + int64_t(k0 + l) * ld;
  const int64_t step = 8 * ld;
  float* d = dst + l * LDP + p;
  if (p0 + BM <= extent && k0 + BK <= k) {  // the whole 128 x 32 chunk in range (block-uniform)
#pragma unroll
    for (int r = 0; r < BK / 8; ++r, src += step, d += 8 * LDP) cp_async16_full(d, src);
    return;
  }
  const int left_p = extent - (p0 + p);
  const int vp = left_p >= 4 ? 4 : left_p > 0 ? left_p : 0;
#pragma unroll
  for (int r = 0; r < BK / 8; ++r, src += step, d += 8 * LDP) copy16(d, src, x, k0 + l + 8 * r < k ? vp : 0);
}

// An operand contiguous along k, x[l + p*ld]: a thread's 4 float4 of op(X)(p0 .. p0+127, k0 ..
// k0+31). Thread t takes column p = 16 (t / 32) + t % 16 and k 8r + 4 ((t / 16) % 2) .. +3 for r
// = 0..3: two lanes read a column's 32 contiguous bytes of a k step of 8.
struct KRegs {
  float4 v[4];
};
__device__ __forceinline__ void load_kcontig(KRegs& out, const float* x, int64_t ld, int p0, int extent, int k0,
                                             int k) {
  const int t = threadIdx.x;
  const int p = 16 * (t / 32) + t % 16, h = (t / 16) % 2;
  const bool col = p0 + p < extent;
  const float* src = x + (k0 + 4 * h) + int64_t(col ? p0 + p : 0) * ld;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int left = col ? k - (k0 + 8 * r + 4 * h) : 0;
    if (left >= 4) {
      out.v[r] = *reinterpret_cast<const float4*>(src + 8 * r);
    } else {  // past k (or past the operand's columns): zeros, reading only what is there
      out.v[r] = make_float4(left > 0 ? src[8 * r] : 0.f, left > 1 ? src[8 * r + 1] : 0.f,
                             left > 2 ? src[8 * r + 2] : 0.f, 0.f);
    }
  }
}
// ... stored transposed into dst[l*LDP + p]: for each of the 4 floats, the warp's 32 stores go to
// 16 columns of 2 rows 4 apart, 4 * LDP = 528 = 16 (mod 32) banks apart: no conflicts.
__device__ __forceinline__ void store_kcontig(const KRegs& in, float* dst) {
  const int t = threadIdx.x;
  const int p = 16 * (t / 32) + t % 16, h = (t / 16) % 2;
  float* d = dst + (4 * h) * LDP + p;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    d[(8 * r + 0) * LDP] = in.v[r].x;
    d[(8 * r + 1) * LDP] = in.v[r].y;
    d[(8 * r + 2) * LDP] = in.v[r].z;
    d[(8 * r + 3) * LDP] = in.v[r].w;
  }
}

// The other way for a k-contiguous operand: 16-byte cp.async into a staging area that keeps its
// layout ([p][k]: 128 rows of LDK floats; a quarter warp copies one row's 128 contiguous bytes),
// then, once landed, a shared-to-shared transpose into the [k][p] panel: a thread's 4 float4 are
// load_kcontig's (rows of 36 floats put a quarter warp's 8 float4 in 8 bank groups), stored by
// store_kcontig. No registers are held while the copy is in flight.
constexpr int LDK = 36;
constexpr int kStagingFloats = 128 * LDK;
__device__ __forceinline__ void copy_kstage(float* dst, const float* x, int64_t ld, int p0, int extent, int k0,
                                            int k) {
  const int t = threadIdx.x;
  const int q = t % 8, p = t / 8;  // this thread's 16-byte slot of k and first row; rows step by 32
  const int left_k = k - (k0 + 4 * q);
  const int vk = left_k >= 4 ? 4 : left_k > 0 ? left_k : 0;
  const float* src = x + (k0 + 4 * q) + int64_t(p0 + p) * ld;
  const int64_t step = 32 * ld;
  float* d = dst + p * LDK + 4 * q;
#pragma unroll
  for (int r = 0; r < 4; ++r, src += step, d += 32 * LDK) copy16(d, src, x, p0 + p + 32 * r < extent ? vk : 0);
}
__device__ __forceinline__ void transpose_kstage(const float* staging, float* dst) {
  const int t = threadIdx.x;
  const int p = 16 * (t / 32) + t % 16, h = (t / 16) % 2;
  KRegs v;
#pragma unroll
  for (int r = 0; r < 4; ++r) v.v[r] = *reinterpret_cast<const float4*>(staging + p * LDK + 8 * r + 4 * h);
  store_kcontig(v, dst);
}

// C prefetch (PREC: beta != 0, whole tiles of a 16-byte-aligned C, k <= 64, short grids): a
// thread's C values (the 16 float4 that load_c_batch would read in the epilogue's two phases) are
// requested by 16-byte cp.async into shared memory when the last stage's FMAs start: phase 0 into
// the other stage's panel (free by then), phase 1 into 32 KB of its own (99 KB a block: still two
// per SM). Slot (q, h) of thread t at [((2q + h) * kThreads + t) * 4]: a warp's 32 slots are 512
// contiguous bytes. Each thread reads back only its own slots, after its own cp.async.wait_group.
// Measured (h100-sgemm-smallk-v4-2026-11-26.md, alternating processes, two passes each):
// 2048^2 x 64 beta 0.5 (256 tiles: no other tile's FMAs hide the epilogue) 24.5-25.0 us against
// 26.6-27.4; 4096^2 x 64 within the passes' spread; 8192^2 x 64 1-2% slower (NT 241 against 238),
// so the launch takes it for grids of at most 8 tiles per SM only. Phase 0 alone (phase 1 loaded
// into registers while phase 0 is written, no extra shared memory) ran 8192^2 x 64 NT at 254 us;
// past k = 64 the prefetch made the NT kernel spill.
constexpr int kCSlotsFloats = 8 * kThreads * 4;  // 32 KB: one phase of the tile
static_assert(kCSlotsFloats <= kStageFloats, "a phase of C fits in a stage's panels");
__device__ __forceinline__ float* c_slot(float* slots, int q, int h) {
  return slots + ((2 * q + h) * kThreads + threadIdx.x) * 4;
}
__device__ __forceinline__ void prefetch_c_phase(float* slots, const float* c0, int64_t ldc, int ph) {
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int h = 0; h < 2; ++h) cp_async16(c_slot(slots, q, h), c_batch_ptr(c0, ldc, ph, q, h), 4);
}
// store_c_batch with the old values from this thread's prefetched slots.
__device__ __forceinline__ void store_c_prefetched(float* slots, const float (&acc)[8][8], float* c0, int64_t ldc,
                                                   int ph, float alpha, float beta) {
  store_c_batch_from<false>([&](int q, int h) { return *reinterpret_cast<const float4*>(c_slot(slots, q, h)); }, acc,
                            c0, ldc, ph, alpha, beta);
}

// KA / KB: A / B contiguous along k (A T, B N), staged through registers; else cp.async.
// SHORT: k <= 2 * BK, both stages filled by the prologue (no loads in flight across the FMAs:
// the general loop's staged registers made ptxas spill 108-112 bytes for NN and TT).
// VIA_SMEM (exactly one of KA, KB): that operand goes through the staging area instead.
template <bool KA, bool KB, bool SHORT, bool VIA_SMEM, bool PREC>
__global__ __launch_bounds__(kThreads, 2) void sgemm_smallk_panel(Args g) {
  extern __shared__ __align__(16) float smem[];  // kStages x {A panel, B panel}[, kStages x staging][, C slots]
  const TileCoord tc = swizzled_tile(blockIdx.x, (g.m + BM - 1) / BM, (g.n + BN - 1) / BN, kGroupM);
  const int bm = tc.tm * BM, bn = tc.tn * BN;
  const int ktiles = (g.k + BK - 1) / BK;
  auto panel = [&](int kt) { return smem + (kt % kStages) * kStageFloats; };
  const LaneTile lt = lane_tile();
  float acc[8][8] = {};
  static_assert(!PREC || (SHORT && !VIA_SMEM), "the C prefetch is for k <= 64");
  // PREC: at the top of the last stage, once everyone is past the barrier, the other stage's panel
  // is free (never filled when ktiles == 1; else its FMAs are done and it is not refilled).
  float* const c_extra = smem + kStages * kStageFloats;  // phase 1's slots
  auto prefetch_c = [&](int kt) {
    if constexpr (PREC) {
      if (kt == ktiles - 1 && g.beta != 0.f && aligned16(g.c) && g.ldc % 4 == 0 && bm + BM <= g.m &&
          bn + BN <= g.n) {
        const float* c0 = g.c + (bm + lt.row0) + int64_t(bn + lt.col0) * g.ldc;
        prefetch_c_phase(panel(kt + 1), c0, g.ldc, 0);
        prefetch_c_phase(c_extra, c0, g.ldc, 1);
        cp_async_commit();
      }
    }
  };
  if constexpr (VIA_SMEM) {
    static_assert(KA != KB, "one k-contiguous operand");
    auto staging = [&](int kt) { return smem + kStages * kStageFloats + (kt % kStages) * kStagingFloats; };
    auto issue = [&](int kt) {  // the stage's copies, one group
      float* st = panel(kt);
      if (KA) copy_kstage(staging(kt), g.a, g.lda, bm, g.m, kt * BK, g.k);
      else copy_contig(st, g.a, g.lda, bm, g.m, kt * BK, g.k);
      if (KB) copy_kstage(staging(kt), g.b, g.ldb, bn, g.n, kt * BK, g.k);
      else copy_contig(st + kOperandFloats, g.b, g.ldb, bn, g.n, kt * BK, g.k);
      cp_async_commit();
    };
    issue(0);
    if (ktiles > 1) issue(1);
    else cp_async_commit();  // (empty: the wait below counts groups)
#pragma unroll 1
    for (int kt = 0; kt < ktiles; ++kt) {
      cp_async_wait<1>();  // stage kt's copies have landed (this thread's) ...
      __syncthreads();     // ... and everyone's
      float* st = panel(kt);
      transpose_kstage(staging(kt), st + (KA ? 0 : kOperandFloats));
      __syncthreads();
      prefetch_c(kt);
      mma_tile_8x8<BK, LDP, LDP>(st, st + kOperandFloats, lt, acc);
      if (kt + kStages < ktiles) {
        __syncthreads();  // every warp is done with this stage before it is refilled
        issue(kt + kStages);
      } else {
        cp_async_commit();
      }
    }
  } else {
    KRegs ra, rb;  // k-contiguous operands of a stage in flight
    auto fetch = [&](int kt, KRegs& a, KRegs& b) {
      if (KA) load_kcontig(a, g.a, g.lda, bm, g.m, kt * BK, g.k);
      if (KB) load_kcontig(b, g.b, g.ldb, bn, g.n, kt * BK, g.k);
    };
    auto put = [&](int kt, const KRegs& a, const KRegs& b) {  // the stage's stores and copies, one group
      float* st = panel(kt);
      if (KA) store_kcontig(a, st);
      else copy_contig(st, g.a, g.lda, bm, g.m, kt * BK, g.k);
      if (KB) store_kcontig(b, st + kOperandFloats);
      else copy_contig(st + kOperandFloats, g.b, g.ldb, bn, g.n, kt * BK, g.k);
      cp_async_commit();
    };
    // Prologue: both stages' loads before either's stores. (Issuing both stages' cp.async copies
    // before the loads instead measured 4-5% slower for NN and TT: the loads, whose stores wait
    // for them, have the longest way to go.)
    {
      KRegs ra1, rb1;
      fetch(0, ra, rb);
      if (ktiles > 1) fetch(1, ra1, rb1);
      put(0, ra, rb);
      if (ktiles > 1) put(1, ra1, rb1);
      else cp_async_commit();  // (empty: the wait below counts groups)
    }

#pragma unroll 1
    for (int kt = 0; kt < ktiles; ++kt) {
      cp_async_wait<1>();  // stage kt's copies have landed (this thread's) ...
      __syncthreads();     // ... and everyone's copies and stores
      const bool more = !SHORT && kt + kStages < ktiles;
      if (more) fetch(kt + kStages, ra, rb);  // in flight during the FMAs
      prefetch_c(kt);
      const float* st = panel(kt);
      mma_tile_8x8<BK, LDP, LDP>(st, st + kOperandFloats, lt, acc);
      if (more) {
        __syncthreads();  // every warp is done with this stage before it is refilled
        put(kt + kStages, ra, rb);
      } else {
        cp_async_commit();
      }
    }
  }

  const bool vec = aligned16(g.c) && g.ldc % 4 == 0;
  if (vec && bm + BM <= g.m && bn + BN <= g.n) {
    float* c0 = g.c + (bm + lt.row0) + int64_t(bn + lt.col0) * g.ldc;
    if (PREC && g.beta != 0.f && ktiles > 0) {  // the same tiles as prefetch_c's
      cp_async_wait<0>();
      store_c_prefetched(panel(ktiles), acc, c0, g.ldc, 0, g.alpha, g.beta);
      store_c_prefetched(c_extra, acc, c0, g.ldc, 1, g.alpha, g.beta);
    } else if (g.beta != 0.f) {
#pragma unroll
      for (int ph = 0; ph < 2; ++ph) {
        CBatch old;
        load_c_batch<false>(old, c0, g.ldc, ph);
        store_c_batch<false>(old, acc, c0, g.ldc, ph, g.alpha, g.beta);
      }
    } else {
#pragma unroll
      for (int c = 0; c < 8; ++c)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          *reinterpret_cast<float4*>(c0 + int64_t((c / 4) * 16 + c % 4) * g.ldc + 32 * h) =
              make_float4(g.alpha * acc[4 * h][c], g.alpha * acc[4 * h + 1][c], g.alpha * acc[4 * h + 2][c],
                          g.alpha * acc[4 * h + 3][c]);
    }
  } else {
    store_tile_8x8(g, acc, bm, bn, lt, vec);
  }
}

template <bool KA, bool KB, bool SHORT, bool PREC>
cudaError_t launch_panel_as(const Args& g, int tiles, cudaStream_t s) {
  // One k-contiguous operand and k > 64: through the staging area (8192^2 x 128 NN 453 us against
  // 503-504 with the registers); k <= 64 keeps the registers (NN 257-259 against 279, the
  // staging's extra barrier and transpose sitting between the copy and the FMAs of each stage).
  constexpr bool via = KA != KB && !SHORT;
  constexpr size_t smem =
      (size_t(kStages) * (kStageFloats + (via ? kStagingFloats : 0)) + (PREC ? kCSlotsFloats : 0)) * sizeof(float);
  static SmemLimitOnce limit;
  auto kernel = sgemm_smallk_panel<KA, KB, SHORT, via, PREC>;
  const cudaError_t e = limit.set(reinterpret_cast<const void*>(kernel), smem);
  if (e != cudaSuccess) return e;
  kernel<<<tiles, kThreads, smem, s>>>(g);
  return cudaGetLastError();
}

template <bool KA, bool KB, bool SHORT>
cudaError_t launch_panel(const Args& g, cudaStream_t s) {
  const int tiles = ((g.m + BM - 1) / BM) * ((g.n + BN - 1) / BN);
  if (SHORT && g.beta != 0.f && tiles <= 8 * device_sm_count())  // the C prefetch: see prefetch_c_phase
    return launch_panel_as<KA, KB, SHORT, SHORT>(g, tiles, s);
  return launch_panel_as<KA, KB, SHORT, false>(g, tiles, s);
}

// One k-contiguous operand's transpose: out[p + l*ldo] = x[l + p*ld] for p < P, l < K.
struct TransposeJob {
  const float* x;
  int64_t ld;
  int P;
  float* out;
  int64_t ldo;
};

// The k-contiguous operands of one product rewritten contiguous along p, both in one launch
// (blocks [0, blocks0) take j0, the rest j1; blockIdx.y walks k). Tiles of 64 p x 64 k through
// shared memory: each thread's four 16-byte reads along k are in flight at once (VEC: x 16-byte
// aligned and ld a multiple of 4, else 4-byte reads), and a warp's writes are 32 consecutive p of
// one k. One launch for both operands instead of a 32 x 32 scalar kernel each: TN 8192^2 x 64
// smallk_ws 231-237 us against 238-245 (bench/results/h100-sgemm-smallk-v10-2026-11-27.md).
template <bool VEC>
__global__ __launch_bounds__(256) void transpose_pair(TransposeJob j0, TransposeJob j1, int blocks0, int K) {
  __shared__ float tile[64][65];  // [k][p], a column of padding: conflict-free both ways
  const bool first = int(blockIdx.x) < blocks0;
  // Field by field (a reference to either parameter would copy both to the stack).
  const float* x = first ? j0.x : j1.x;
  float* out = first ? j0.out : j1.out;
  const int64_t ld = first ? j0.ld : j1.ld, ldo = first ? j0.ldo : j1.ldo;
  const int P = first ? j0.P : j1.P;
  const int p0 = (first ? int(blockIdx.x) : int(blockIdx.x) - blocks0) * 64, l0 = blockIdx.y * 64;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // Reads: a warp takes 4 rows p x 32 k (8 lanes a row, 128 contiguous bytes each).
  const int q = lane % 8 + 8 * (warp % 2), pr = lane / 8 + 4 * (warp / 2);
  float4 v[4];
#pragma unroll
  for (int it = 0; it < 4; ++it) {
    const int p = p0 + pr + 16 * it, l = l0 + 4 * q;
    const float* src = x + l + int64_t(p) * ld;
    if (VEC && p < P && l + 3 < K) {
      v[it] = *reinterpret_cast<const float4*>(src);
    } else {
      const bool row = p < P;
      v[it].x = row && l < K ? src[0] : 0.f;
      v[it].y = row && l + 1 < K ? src[1] : 0.f;
      v[it].z = row && l + 2 < K ? src[2] : 0.f;
      v[it].w = row && l + 3 < K ? src[3] : 0.f;
    }
  }
#pragma unroll
  for (int it = 0; it < 4; ++it) {
    const int pp = pr + 16 * it;
    tile[4 * q][pp] = v[it].x;
    tile[4 * q + 1][pp] = v[it].y;
    tile[4 * q + 2][pp] = v[it].z;
    tile[4 * q + 3][pp] = v[it].w;
  }
  __syncthreads();
  // Writes: a warp stores 32 consecutive p of one k (128 contiguous bytes).
  const int pp = lane + 32 * (warp % 2);
#pragma unroll
  for (int it = 0; it < 16; ++it) {
    const int kk = warp / 2 + 4 * it, p = p0 + pp, l = l0 + kk;
    if (p < P && l < K) out[p + int64_t(l) * ldo] = tile[kk][pp];
  }
}

// Pre-transposed operands: the largest k and scratch (floats, each operand) taken on.
constexpr int kPretransposeMaxK = 1024;
constexpr int64_t kPretransposeMaxFloats = int64_t(16) << 20;  // 64 MiB

template <bool KA, bool KB>
cudaError_t launch_panel_k(const Args& g, cudaStream_t s) {
  return g.k <= kStages * BK ? launch_panel<KA, KB, true>(g, s) : launch_panel<KA, KB, false>(g, s);
}

}  // namespace

bool pretranspose_to_nt(const GemmProblem& p, GemmProblem* q, float** scratch, cudaError_t* err, cudaStream_t s) {
  const bool ka = p.ta == Op::T, kb = p.tb == Op::N;  // which operands are contiguous along k
  const int64_t ldo_a = (int64_t(p.m) + 3) / 4 * 4, ldo_b = (int64_t(p.n) + 3) / 4 * 4;
  if (!(ka || kb) || p.k > kPretransposeMaxK || (ka && ldo_a * p.k > kPretransposeMaxFloats) ||
      (kb && ldo_b * p.k > kPretransposeMaxFloats))
    return false;
  const int64_t fa = ka ? ldo_a * p.k : 0, fb = kb ? ldo_b * p.k : 0;
  if (sgemv_detail::scratch_alloc(scratch, size_t(fa + fb), s) != cudaSuccess) {
    cudaGetLastError();  // an allocation failure is not sticky; the caller takes another way
    return false;
  }
  *q = p;
  const TransposeJob ja{static_cast<const float*>(p.a), p.lda, p.m, *scratch, ldo_a};
  const TransposeJob jb{static_cast<const float*>(p.b), p.ldb, p.n, *scratch + fa, ldo_b};
  const int ba = ka ? (p.m + 63) / 64 : 0, bb = kb ? (p.n + 63) / 64 : 0;
  const bool vec = (!ka || (aligned16(p.a) && p.lda % 4 == 0)) && (!kb || (aligned16(p.b) && p.ldb % 4 == 0));
  const dim3 grid(ba + bb, (p.k + 63) / 64);
  const TransposeJob& j0 = ka ? ja : jb;
  if (vec) transpose_pair<true><<<grid, 256, 0, s>>>(j0, jb, ka ? ba : bb, p.k);
  else transpose_pair<false><<<grid, 256, 0, s>>>(j0, jb, ka ? ba : bb, p.k);
  *err = cudaGetLastError();
  if (ka) q->ta = Op::N, q->a = *scratch, q->lda = ldo_a;
  if (kb) q->tb = Op::T, q->b = *scratch + fa, q->ldb = ldo_b;
  return true;
}

cudaError_t launch_smallk_panel(const GemmProblem& p, bool pretranspose, cudaStream_t s) {
  const bool ka = p.ta == Op::T, kb = p.tb == Op::N;  // which operands are contiguous along k
  const bool a_vec = aligned16(p.a) && p.lda % 4 == 0, b_vec = aligned16(p.b) && p.ldb % 4 == 0;
  // Pre-transposed: the k-contiguous operands are copied contiguous along m or n into scratch and
  // the kernel runs as NT (any alignment of those operands is fine then); without scratch, the
  // in-kernel way below.
  GemmProblem q;
  float* scratch = nullptr;
  cudaError_t e = cudaSuccess;
  if (pretranspose && (ka || a_vec) && (kb || b_vec) && pretranspose_to_nt(p, &q, &scratch, &e, s)) {
    if (e == cudaSuccess) e = launch_panel_k<false, false>(make_args(q), s);
    sgemv_detail::scratch_free(scratch, s);
    return e;
  }
  if (!a_vec || !b_vec) return launch_smallk(p, s);  // smallk's scalar copies
  const Args g = make_args(p);
  if (ka) return kb ? launch_panel_k<true, true>(g, s) : launch_panel_k<true, false>(g, s);
  return kb ? launch_panel_k<false, true>(g, s) : launch_panel_k<false, false>(g, s);
}

}  // namespace sgemm_detail
}  // namespace myblas
