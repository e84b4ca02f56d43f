// The 3xTF32 product on our own kernel: C := alpha * A3^T B3 + beta * C over the split operands
// (kernels/sgemm_tc.h), wgmma fed by the tensor memory accelerator, with promoted accumulation.
//
// Why our own kernel: cuBLAS's TF32 GEMM keeps each partial sum in the tensor cores' FP32
// accumulators over all 3k terms, and those additions lose more than FP32 FMAs do (the error of
// the composed path grew with k, to 20-50x FP32 SGEMM's at k = 4096-16384 on the H100). Here
// each stage's 32 terms are summed by wgmma into a fresh accumulator and then added into a second
// set of FP32 registers with ordinary round-to-nearest adds; measured with the same promotion
// interval emulated through cuBLAS, that kept the error at or below FP32 SGEMM's for k >= 64
// (bench/results/h100-sgemm-tf32x3-*).
//
// Structure, as the HGEMM wgmma kernel (hgemm/wgmma_tma.cu): warpgroup 0 is the producer (one
// thread issuing TMA copies into a 4-stage ring of full/empty mbarriers, its registers given away
// with setmaxnreg), warpgroups 1 and 2 are consumers; a persistent grid walks the tiles in groups
// of tile rows for L2 reuse. We compute D = C^T = B3^T A3, so wgmma's M is C's n (64 rows of B3
// per consumer) and its N is C's m (192 rows of A3): each accumulator pair is two neighbouring rows
// of column-major C (one 8-byte store). TF32 wgmma reads only K-major operands, which is how the
// split writes them, for every transpose of the call.
//
// Variants (Tf32x3Kernel, kernels/sgemm_tc.h): how often the sums are promoted (every 32 or 64
// terms) and what keeps the tensor cores busy during a promotion (nothing, the other consumer's
// wgmmas issued in turn, or the other half of the same consumer's columns). One kernel template,
// instantiated per variant; the schedule arithmetic is in sgemm_tc/schedule.h.
//
// Requirements (tf32x3_wgmma_can_implement): an sm_90a build on a CC 9.0 device, A3 and B3
// 16-byte aligned with ld3 a multiple of 4 (the split's scratch always is: tf32x3_ld). Any m, n, k, ldc and
// C alignment; edge tiles are zero-filled by the copy engine and masked in the epilogue.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "kernels/cluster.cuh"   // launch_clusters, max_active_clusters
#include "kernels/gemm_args.h"   // SmemLimitOnce
#include "kernels/mbarrier.cuh"  // smem_u32, mbar_*, tma_load_2d
#include "kernels/sgemm_tc.h"
#include "kernels/sgemm_tc/refuse.h"
#include "kernels/sgemm_tc/schedule.h"
#include "kernels/sgemm_tc/split_element.cuh"
#include "kernels/sm90.cuh"  // sm90a_ready, make_tensor_map_2d
#include "kernels/wgmma.cuh"  // smem_desc, wgmma_fence/commit/wait, fence_acc

namespace myblas {

namespace {

constexpr int kBJ = 128;  // columns of C (rows of D) per block tile: 2 consumer warpgroups x 64
constexpr int kBI = 192;  // rows of C (columns of D) per block tile: the wgmma N
constexpr int kBK = 32;   // k per stage: one 128-byte swizzle row of FP32
constexpr int kThreads = 384;                     // producer + 2 consumer warpgroups
constexpr int kAcc = kBI / 2;                     // accumulators per consumer thread: 64 x kBI / 128
constexpr int kHalf = kAcc / 2;                   // the same for one 64 x (kBI / 2) half
constexpr int kBytesB = kBJ * kBK * 4;            // 16 KiB: B3 tile (wgmma A operand)
constexpr int kBytesA = kBI * kBK * 4;            // 24 KiB: A3 tile (wgmma B operand)
constexpr int kStageBytes = kBytesB + kBytesA;    // 40 KiB per stage
constexpr int kHalfOffset = (kBI / 2) * 128;      // bytes from an A3 tile's first row to its second half's
constexpr int smem_bytes(int stages) { return stages * kStageBytes + 1024 /* 1024-byte alignment */ + 2 * stages * 8; }
constexpr int kGroupRows = 16;  // tile rows per L2 group of the persistent tile order
// The fused variants' shared memory: a ring of kFusedStages split stages (big and small tiles of
// B and A, 80 KiB each), then the raw blocks as loaded (B, then A: one A, or two where the loads
// run a block ahead), then the barriers.
constexpr int kFusedStages = 2;
constexpr int kFusedBigB = 0, kFusedSmallB = kBytesB, kFusedBigA = 2 * kBytesB, kFusedSmallA = 2 * kBytesB + kBytesA;
constexpr int kFusedStageBytes = 2 * (kBytesB + kBytesA);
constexpr int fused_raw_a(bool ahead) { return ahead ? 2 : 1; }
constexpr int fused_smem_bytes(bool ahead) {
  return kFusedStages * kFusedStageBytes + kBytesB + fused_raw_a(ahead) * kBytesA + 1024 + (2 * kFusedStages + 3) * 8;
}
static_assert(kFusedSmallA % 1024 == 0 && kFusedStageBytes % 1024 == 0, "tiles must keep the 1024-byte swizzle alignment");
static_assert(fused_smem_bytes(true) <= 227 * 1024, "the fused variants' shared memory over the per-block limit");
static_assert(kBK * 4 == 128, "a stage's k extent must be one 128-byte swizzle row");
static_assert(kBytesB % 1024 == 0 && kStageBytes % 1024 == 0, "tiles must keep the 1024-byte swizzle alignment");
static_assert(kHalfOffset % 1024 == 0, "a half's rows must start a swizzle pattern");
static_assert(kBI % 16 == 0 && kBI <= 256, "wgmma N (and half of it) must be a multiple of 8, at most 256");
static_assert(smem_bytes(5) <= 227 * 1024, "shared memory over the H100's per-block limit");

// A variant's compile-time shape: ring stages, ring stages per promotion, and the overlap.
template <Tf32x3Kernel K>
struct Variant {
  // p32 keeps the 4-stage ring it was measured with; the others hold up to 2 (p64: a 64-term
  // chunk; halves: a chunk and the previous one's) or 4 (p64-halves) stages at once, and take 5.
  static constexpr int kStages = K == Tf32x3Kernel::p32 ? 4 : 5;
  static constexpr int kPer = (K == Tf32x3Kernel::p64 || K == Tf32x3Kernel::p64_ordered || K == Tf32x3Kernel::p64_halves ||
                               K == Tf32x3Kernel::p64_ordered_2part || K == Tf32x3Kernel::p64_ordered_pair) ? 2 : 1;
  static constexpr bool kOrdered = K == Tf32x3Kernel::p32_ordered || K == Tf32x3Kernel::p64_ordered ||
                                   K == Tf32x3Kernel::p64_ordered_2part || K == Tf32x3Kernel::p64_ordered_pair;
  // Clusters of two blocks on neighbouring tiles, the A3 tile they share multicast in halves.
  static constexpr bool kPair = K == Tf32x3Kernel::p64_ordered_pair;
  // The operands in the two-part layout: the producer maps each k-block of the 3k-deep product
  // to its part (big(A) big(B), small(A) big(B), big(A) small(B)).
  static constexpr bool kTwoParts = K == Tf32x3Kernel::p64_ordered_2part;
  static constexpr bool kHalves = K == Tf32x3Kernel::p32_halves || K == Tf32x3Kernel::p64_halves;
  static_assert(kPer < kStages, "the ring must hold a chunk and the next one's first stage");
  static_assert(!(kOrdered && kHalves), "no variant both takes turns and splits its columns");
};

struct Params {
  float* c;
  int64_t ldc;
  int m, n, k3;
  float alpha, beta;
  int tiles_i, tiles_j;
  int wide;      // blocks per scheduled tile: 1, or 2 (p64_ordered_pair: tile columns 2 t and 2 t + 1)
  int sched_j;   // scheduled tile columns: ceil(tiles_j / wide)
  int vec2;  // C takes 8-byte stores of two neighbouring rows
  int splits;       // k-slices per divided tile (split-K; tf32x3_schedule::work_unit)
  int whole;        // tiles run whole (sums to C) before the divided ones (sums to slots of work)
  float* work;      // the divided units' sums: wide 192 x 128 slots a unit (tf32x3_splitk_work_floats)
  const Tf32x3Stats* stats;  // non-null: refuse (write nothing) where tf32x3_refuse_rule says so
  int nkp;          // the two-part layout: k-blocks per part (the product's are 3 nkp)
  // The fused variant: the statistics it gathers, whether A and B arrive m- or n-contiguous (to be
  // transposed to K-major), and the operands' k-blocks.
  Tf32x3Stats* gather;
  int a_mn_major, b_mn_major;
  int nkb;
};

// The persistent order's tile t (groups of kGroupRows tile columns, walked down each group).
// Scheduled tiles: tj counts scheduled columns (pairs of tile columns where wide == 2).
__device__ __forceinline__ void tile_coords(int t, const Params& p, int* tj, int* ti) {
  const int per_group = kGroupRows * p.tiles_i;
  const int first = (t / per_group) * kGroupRows;
  const int rows = min(p.sched_j - first, kGroupRows);
  const int r = t % per_group;
  *tj = first + r % rows;
  *ti = r / rows;
}

// Work unit u of the plan over `tiles` scheduled tiles (tf32x3_schedule::work_unit), as block
// `rank` of the tile's wide takes it: its tile (tj may lie past the last tile column: a pair's
// second tile off the edge, zero-filled and not stored), its k-blocks [kb0, kb1) of nk, and its
// slot in work, counted in 192 x 128 tiles (-1: a whole tile, stored to C).
struct UnitPlace {
  int tj, ti, kb0, kb1, slot;
};
__device__ __forceinline__ UnitPlace unit_place(int u, const Params& p, int tiles, int nk, int rank) {
  namespace sc = tf32x3_schedule;
  const sc::WorkUnit w = sc::work_unit(u, tiles, p.whole);
  UnitPlace q;
  tile_coords(w.tile, p, &q.tj, &q.ti);
  q.tj = q.tj * p.wide + rank;
  q.slot = w.slot < 0 ? -1 : w.slot * p.wide + rank;
  q.kb0 = w.slot < 0 ? 0 : sc::slice_begin(nk, p.splits, w.slice);
  q.kb1 = w.slot < 0 ? nk : sc::slice_begin(nk, p.splits, w.slice + 1);
  return q;
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Named barriers over both consumer warpgroups (256 threads): the ordered variants' turns.
__device__ __forceinline__ void bar_sync(int id) { asm volatile("bar.sync %0, 256;\n" ::"r"(id) : "memory"); }
__device__ __forceinline__ void bar_arrive(int id) { asm volatile("bar.arrive %0, 256;\n" ::"r"(id) : "memory"); }

#include "kernels/sgemm_tc/wgmma_m64n192k8_tf32.inc"
#include "kernels/sgemm_tc/wgmma_m64n96k8_tf32.inc"

// A consumer's place in the ring of stages.
struct Ring {
  int s = 0;
  unsigned phase = 0;
  template <int kStages>
  __device__ __forceinline__ void next() {
    if (++s == kStages) {
      s = 0;
      phase ^= 1;
    }
  }
};

// One thread's share of a consumer's 64 x kBI result, stored to C(i, j) = D(j, i). Fragment layout
// of wgmma D (m64nN, f32): warp w of the warpgroup holds rows 16w..16w+15; lane l holds rows l/4
// and l/4 + 8, columns 8c + 2(l%4) and +1 in d[4c + {0,1}] and d[4c + {2,3}]. With beta != 0 a
// row's old values are all loaded before the first store (a store to C may alias a later load).
__device__ __forceinline__ void store_tile(const Params& p, const float (&d)[kAcc], int j_base, int i_base) {
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  const bool read_c = p.beta != 0.f;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int j = j_base + 16 * warp + lane / 4 + 8 * h;
    if (j >= p.n) continue;
    float* cj = p.c + int64_t(j) * p.ldc;
    const int i0 = i_base + 2 * (lane % 4);
    float2 old[kBI / 8];  // (kBI / 8) pairs C(i, j), C(i + 1, j) for i = i0 + 8c
    if (read_c) {
#pragma unroll
      for (int c = 0; c < kBI / 8; ++c) {
        const int i = i0 + 8 * c;
        old[c] = make_float2(0.f, 0.f);
        if (p.vec2 && i + 1 < p.m) {
          old[c] = *reinterpret_cast<const float2*>(cj + i);
        } else if (i < p.m) {
          old[c].x = cj[i];
          if (i + 1 < p.m) old[c].y = cj[i + 1];
        }
      }
    }
#pragma unroll
    for (int c = 0; c < kBI / 8; ++c) {
      const int i = i0 + 8 * c;
      if (i >= p.m) continue;
      float v0 = p.alpha * d[4 * c + 2 * h], v1 = p.alpha * d[4 * c + 2 * h + 1];
      if (read_c) {
        v0 = fmaf(p.beta, old[c].x, v0);
        v1 = fmaf(p.beta, old[c].y, v1);
      }
      if (p.vec2 && i + 1 < p.m) {
        *reinterpret_cast<float2*>(cj + i) = make_float2(v0, v1);
      } else {
        cj[i] = v0;
        if (i + 1 < p.m) cj[i + 1] = v1;
      }
    }
  }
}

// A consumer's share (cw) of a work unit's sums: a whole tile's into C (alpha, beta), a divided
// one's raw into its slot of work (the tile's 192 x 128 sums, column-major, edge rows included).
__device__ __forceinline__ void store_unit(const Params& p, const float (&d)[kAcc], const UnitPlace& u, int cw) {
  if (u.slot < 0) {
    store_tile(p, d, u.tj * kBJ + 64 * cw, u.ti * kBI);
    return;
  }
  Params w = p;
  w.c = p.work + int64_t(u.slot) * (kBI * kBJ);
  w.ldc = kBI;
  w.m = kBI;
  w.n = kBJ;
  w.alpha = 1.f;
  w.beta = 0.f;
  w.vec2 = 1;
  store_tile(w, d, 64 * cw, 0);
}

// One tile's main loop of a consumer without halves (p32, p64, the ordered ones): each chunk of
// kPer stages is summed by wgmma into acc, waited for, and added into sum; the ordered variants
// take turns with the other consumer for each chunk's issue (tf32x3_schedule).
template <class V>
__device__ __forceinline__ void tile_whole(float (&sum)[kAcc], float (&acc)[kAcc], Ring& ring, int nk, int cw,
                                           uint32_t base, uint32_t full0, uint32_t empty0) {
  namespace sc = tf32x3_schedule;
  const bool arrive = threadIdx.x % 32 == 0;
  const int nc = sc::chunks(nk, V::kPer);
  for (int c = 0; c < nc; ++c) {
    const int ns = sc::chunk_stages(nk, V::kPer, c);
    if (V::kOrdered) bar_sync(sc::turn_barrier(cw));
    Ring r = ring;
    wgmma_fence();
#pragma unroll
    for (int q = 0; q < V::kPer; ++q) {
      if (q < ns) {
        mbar_wait(full0 + 8 * r.s, r.phase);
        const uint32_t sb = base + r.s * kStageBytes + cw * 8192, sa = base + r.s * kStageBytes + kBytesB;
#pragma unroll
        for (int kk = 0; kk < kBK / 8; ++kk)
          wgmma_m64n192k8_tf32(acc, smem_desc(sb + kk * 32, 16, 1024), smem_desc(sa + kk * 32, 16, 1024),
                               (q | kk) != 0);
        r.next<V::kStages>();
      }
    }
    wgmma_commit();
    if (V::kOrdered) bar_arrive(sc::turn_barrier(1 - cw));
    wgmma_wait<0>();
    fence_acc(acc);
    for (int q = 0; q < ns; ++q) {
      if (arrive) {
        mbar_arrive(empty0 + 8 * ring.s);
        if constexpr (V::kPair) mbar_arrive_cluster(empty0 + 8 * ring.s, blockIdx.y ^ 1u);
      }
      ring.next<V::kStages>();
    }
#pragma unroll
    for (int i = 0; i < kAcc; ++i) sum[i] += acc[i];  // the promotion
  }
}

// Issues one half's wgmmas over the ns stages of a chunk starting at ring place r (its stages
// have landed: the caller waited for them, or the other half's issue did).
template <class V>
__device__ __forceinline__ void issue_half(float (&acc)[kHalf], Ring r, int ns, bool wait_full, int half, int cw,
                                           uint32_t base, uint32_t full0) {
  wgmma_fence();
#pragma unroll
  for (int q = 0; q < V::kPer; ++q) {
    if (q < ns) {
      if (wait_full) mbar_wait(full0 + 8 * r.s, r.phase);
      const uint32_t sb = base + r.s * kStageBytes + cw * 8192,
                     sa = base + r.s * kStageBytes + kBytesB + half * kHalfOffset;
#pragma unroll
      for (int kk = 0; kk < kBK / 8; ++kk)
        wgmma_m64n96k8_tf32(acc, smem_desc(sb + kk * 32, 16, 1024), smem_desc(sa + kk * 32, 16, 1024), (q | kk) != 0);
      r.next<V::kStages>();
    }
  }
  wgmma_commit();
}

// One tile's main loop of a consumer with halves: columns [0, 96) of its sums accumulate in acc0,
// [96, 192) in acc1 (the fragment of an n96 half is the n192 fragment's first or second 48
// registers). Per chunk: issue half 0; wait for the previous chunk's half 1 (one group stays in
// flight), release that chunk's stages, promote it; issue half 1; wait for half 0, promote it.
template <class V>
__device__ __forceinline__ void tile_halves(float (&sum)[kAcc], float (&acc0)[kHalf], float (&acc1)[kHalf],
                                            Ring& ring, int nk, int cw, uint32_t base, uint32_t full0,
                                            uint32_t empty0) {
  namespace sc = tf32x3_schedule;
  const bool arrive = threadIdx.x % 32 == 0;
  const int nc = sc::chunks(nk, V::kPer);
  Ring issue = ring;  // the first stage of the chunk being issued; `ring` trails it: the first unreleased
  for (int c = 0; c < nc; ++c) {
    const int ns = sc::chunk_stages(nk, V::kPer, c);
    issue_half<V>(acc0, issue, ns, true, 0, cw, base, full0);
    if (c > 0) {
      wgmma_wait<1>();  // the previous chunk's half 1 is done: its stages are free, acc1 holds its sums
      fence_acc(acc1);
      const int prev = sc::chunk_stages(nk, V::kPer, c - 1);
      for (int q = 0; q < prev; ++q) {
        if (arrive) mbar_arrive(empty0 + 8 * ring.s);
        ring.next<V::kStages>();
      }
#pragma unroll
      for (int i = 0; i < kHalf; ++i) sum[kHalf + i] += acc1[i];
    }
    issue_half<V>(acc1, issue, ns, false, 1, cw, base, full0);
    for (int q = 0; q < ns; ++q) issue.next<V::kStages>();
    wgmma_wait<1>();  // this chunk's half 0 is done
    fence_acc(acc0);
#pragma unroll
    for (int i = 0; i < kHalf; ++i) sum[i] += acc0[i];
  }
  if (nc == 0) return;
  wgmma_wait<0>();  // the last chunk's half 1
  fence_acc(acc1);
  for (int q = 0; q < sc::chunk_stages(nk, V::kPer, nc - 1); ++q) {
    if (arrive) mbar_arrive(empty0 + 8 * ring.s);
    ring.next<V::kStages>();
  }
#pragma unroll
  for (int i = 0; i < kHalf; ++i) sum[kHalf + i] += acc1[i];
}

// ---- the fused variant: the split in shared memory ----
// A split block's converted tiles in the K-major 128-byte-swizzled layout the descriptors read
// (what the copy engine writes for a 32 x lines box with CU_TENSOR_MAP_SWIZZLE_128B: line l at
// 128 l bytes, its 16-byte chunk c at chunk c ^ (l % 8)).
__device__ __forceinline__ uint32_t swizzled(int line, int chunk) { return line * 128 + ((chunk ^ (line & 7)) << 4); }

// Splits one operand's block of kBK x lines raw FP32 values into big and small tiles: thread t of
// nthreads takes the 4-value chunks t, t + nthreads, ...; chunk q is line q % lines, k 4 (q / lines)
// .. +3, so that a warp's lanes take consecutive lines (conflict-free in both raw layouts). raw:
// K-major (swizzled as the big tile) or, mn_major, [kBK][lines] with the lines contiguous.
template <int kLines>
__device__ __forceinline__ void split_block(const unsigned char* raw, unsigned char* big, unsigned char* small,
                                            bool mn_major, int t, int nthreads, unsigned* max_bits,
                                            unsigned* not_min_bits) {
#pragma unroll 2
  for (int q = t; q < kLines * (kBK / 4); q += nthreads) {
    const int line = q % kLines, chunk = q / kLines;
    const uint32_t off = swizzled(line, chunk);
    float4 x;
    if (mn_major) {
      const float* col = reinterpret_cast<const float*>(raw) + 4 * chunk * kLines + line;
      x = make_float4(col[0], col[kLines], col[2 * kLines], col[3 * kLines]);
    } else {
      x = *reinterpret_cast<const float4*>(raw + off);
    }
    float4 b, s;
    split_element(x.x, &b.x, &s.x, max_bits, not_min_bits);
    split_element(x.y, &b.y, &s.y, max_bits, not_min_bits);
    split_element(x.z, &b.z, &s.z, max_bits, not_min_bits);
    split_element(x.w, &b.w, &s.w, max_bits, not_min_bits);
    *reinterpret_cast<float4*>(big + off) = b;
    *reinterpret_cast<float4*>(small + off) = s;
  }
}

// One tile's main loop of a consumer of the fused variant: p64_ordered's chunks of two product
// k-blocks over the 3 nkb of the tile's split blocks (tf32x3_schedule::fused_block), taking turns
// with the other consumer. A split block's stage is waited for at its first product k-block and
// released once the chunk holding its last one has completed; `ring` is the first unreleased.
template <int kStages>
__device__ __forceinline__ void tile_fused(float (&sum)[kAcc], float (&acc)[kAcc], Ring& ring, int nkb, int cw,
                                           uint32_t base, uint32_t full0, uint32_t empty0) {
  namespace sc = tf32x3_schedule;
  const bool arrive = threadIdx.x % 32 == 0;
  const int ng = 3 * nkb, nc = sc::chunks(ng, 2);
  Ring issue = ring;  // the stage of the product k-block being issued
  for (int c = 0; c < nc; ++c) {
    const int ns = sc::chunk_stages(ng, 2, c);
    bar_sync(sc::turn_barrier(cw));
    wgmma_fence();
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      if (q < ns) {
        const sc::FusedBlock f = sc::fused_block(2 * c + q);
        if (f.first) mbar_wait(full0 + 8 * issue.s, issue.phase);
        const uint32_t st = base + issue.s * kFusedStageBytes;
        const uint32_t sb = st + (f.b_small ? kFusedSmallB : kFusedBigB) + cw * 8192,
                       sa = st + (f.a_small ? kFusedSmallA : kFusedBigA);
#pragma unroll
        for (int kk = 0; kk < kBK / 8; ++kk)
          wgmma_m64n192k8_tf32(acc, smem_desc(sb + kk * 32, 16, 1024), smem_desc(sa + kk * 32, 16, 1024),
                               (q | kk) != 0);
        if (f.last) issue.next<kStages>();
      }
    }
    wgmma_commit();
    bar_arrive(sc::turn_barrier(1 - cw));
    wgmma_wait<0>();
    fence_acc(acc);
    for (int q = 0; q < ns; ++q)
      if (sc::fused_block(2 * c + q).last) {
        if (arrive) mbar_arrive(empty0 + 8 * ring.s);
        ring.next<kStages>();
      }
#pragma unroll
    for (int i = 0; i < kAcc; ++i) sum[i] += acc[i];  // the promotion
  }
}
#endif  // __CUDA_ARCH_FEAT_SM90_ALL

template <Tf32x3Kernel K>
__global__ void __launch_bounds__(kThreads, 1)
    tf32x3_wgmma_kernel(const __grid_constant__ CUtensorMap tm_b, const __grid_constant__ CUtensorMap tm_a, Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using V = Variant<K>;
  constexpr int kStages = V::kStages;
  if (p.stats && tf32x3_refuse_rule(*p.stats, p.k3 / 3)) return;  // (every thread: before any barrier)
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;  // swizzled tiles need 1024-byte alignment
  const uint32_t full0 = base + kStages * kStageBytes;  // full[s]: the stage's bytes have landed
  const uint32_t empty0 = full0 + kStages * 8;          // empty[s]: both consumers are done with it
  const int wg = threadIdx.x / 128;
  // kPair: block rank (blockIdx.y) of a cluster of two; the cluster walks the units as one block
  // would, each block taking tile column 2 t + rank of scheduled column t.
  const int rank = V::kPair ? int(blockIdx.y) : 0;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full0 + 8 * s, 1);
      // lane 0 of each of the 8 consumer warps (kPair: of both blocks, whose stages' A3 halves
      // both blocks' copies write)
      mbar_init(empty0 + 8 * s, V::kPair ? 16 : 8);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  if constexpr (V::kPair)
    cluster_sync_all();  // (the other block's barriers are ready before anything reaches them)
  else
    __syncthreads();
  namespace sc = tf32x3_schedule;
  const int tiles = p.tiles_i * p.sched_j;
  const int units = tf32x3_schedule::plan_units(tiles, p.whole, p.splits);
  const int nk = V::kTwoParts ? 3 * p.nkp : (p.k3 + kBK - 1) / kBK;

  if (wg == 0) {  // producer
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tm_b)) : "memory");
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tm_a)) : "memory");
      Ring r;
      for (int u = blockIdx.x; u < units; u += gridDim.x) {
        const UnitPlace w = unit_place(u, p, tiles, nk, rank);
        for (int kb = w.kb0; kb < w.kb1; ++kb) {
          mbar_wait(empty0 + 8 * r.s, r.phase ^ 1);
          const uint32_t full = full0 + 8 * r.s;
          const uint32_t sb = base + r.s * kStageBytes, sa = sb + kBytesB;
          int kx = kb * kBK, line_b = w.tj * kBJ, line_a = w.ti * kBI;
          if constexpr (V::kTwoParts) {  // the maps span both parts: lines [0, mn) big, [mn, 2 mn) small
            const sc::TwoPartBlock q = sc::two_part_block(kb, p.nkp);
            kx = q.block * kBK;
            if (q.a_small) line_a += p.m;
            if (q.b_small) line_b += p.n;
          }
          mbar_expect_tx(full, kStageBytes);  // (kPair: B3, this block's A3 half and the other's)
          tma_load_2d(sb, &tm_b, full, kx, line_b);
          if constexpr (V::kPair)
            tma_load_2d_multicast(sa + rank * kHalfOffset, &tm_a, full, kx, line_a + rank * (kBI / 2), 0x3);
          else
            tma_load_2d(sa, &tm_a, full, kx, line_a);
          r.next<kStages>();
        }
      }
    }
  } else {  // consumers: warpgroup 1 takes rows 0..63 of the tile, warpgroup 2 rows 64..127
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int cw = wg - 1;
    float sum[kAcc];  // the tile's sums so far, added in FP32 round-to-nearest
    Ring ring;
    if constexpr (V::kHalves) {
      float acc0[kHalf], acc1[kHalf];  // the two halves' sums of the chunk, in the tensor cores' accumulators
      for (int u = blockIdx.x; u < units; u += gridDim.x) {
        const UnitPlace w = unit_place(u, p, tiles, nk, rank);
#pragma unroll
        for (int i = 0; i < kAcc; ++i) sum[i] = 0.f;
#pragma unroll
        for (int i = 0; i < kHalf; ++i) acc0[i] = acc1[i] = 0.f;  // (their lives end before the epilogue)
        tile_halves<V>(sum, acc0, acc1, ring, w.kb1 - w.kb0, cw, base, full0, empty0);
        store_unit(p, sum, w, cw);
      }
    } else {
      float acc[kAcc];  // a chunk's sums, in the tensor cores' accumulators
      if (V::kOrdered && tf32x3_schedule::signals_before_first(cw)) bar_arrive(tf32x3_schedule::turn_barrier(1 - cw));
      for (int u = blockIdx.x; u < units; u += gridDim.x) {
        const UnitPlace w = unit_place(u, p, tiles, nk, rank);
        // (Zeroing acc too, though each chunk's first wgmma overwrites it, ends its life at the
        // previous tile's last promotion, so the epilogue has its registers.)
#pragma unroll
        for (int i = 0; i < kAcc; ++i) sum[i] = acc[i] = 0.f;
        tile_whole<V>(sum, acc, ring, w.kb1 - w.kb0, cw, base, full0, empty0);
        store_unit(p, sum, w, cw);
      }
      if (V::kOrdered && tf32x3_schedule::waits_after_last(cw)) bar_sync(tf32x3_schedule::turn_barrier(cw));
    }
  }
  // kPair: neither block leaves while the other may still arrive on its barriers.
  if constexpr (V::kPair) cluster_sync_all();
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// A block's split blocks in order: work unit u (tile u % tiles, k-slice u / tiles) for u =
// blockIdx.x, + gridDim.x, ..., k-blocks [kb, kb1) of each (no slice is empty: splits <= nk).
struct FusedWalk {
  int u, kb, kb1;
  __device__ __forceinline__ bool unit(const Params& p, int tiles, int units) {
    if (u >= units) return false;
    const UnitPlace w = unit_place(u, p, tiles, p.nkb, 0);
    kb = w.kb0;
    kb1 = w.kb1;
    return true;
  }
  __device__ __forceinline__ bool next(const Params& p, int tiles, int units) {
    if (++kb < kb1) return true;
    u += gridDim.x;
    return unit(p, tiles, units);
  }
};
// One operand's raw block: kBK x lines at (line, kx), as stored (mn_major: the lines contiguous).
__device__ __forceinline__ void fused_load(const CUtensorMap* map, uint32_t dst, uint32_t bar, bool mn_major, int line,
                                           int kx) {
  if (mn_major)
    tma_load_2d(dst, map, bar, line, kx);
  else
    tma_load_2d(dst, map, bar, kx, line);
}
#endif

// The fused variants (tf32x3_fused_product). Warpgroup 0 splits: thread 0 loads split block kb of
// A and B as stored into the raw area, then all 128 threads split it into the next free stage of
// a kFusedStages ring (big and small tiles of B and A) and gather the statistics; the consumers
// run p64_ordered's schedule on the ring (tile_fused). kAhead == false (p64_ordered_fused): one
// raw block, whose loads are issued once the previous block's split has read all of it. kAhead
// (p64_ordered_fused_ahead): two raw A blocks; B is split first, then B's next block and A's next
// block are loaded while this block's A is split, so that the loads' latency hides behind the
// split. Every unit's sums go to work; the last pass (splitk_reduce_kernel) applies the refusal
// rule to the gathered statistics.
template <bool kAhead>
__global__ void __launch_bounds__(kThreads, 1)
    tf32x3_fused_kernel(const __grid_constant__ CUtensorMap tm_b, const __grid_constant__ CUtensorMap tm_a, Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int kStages = kFusedStages;
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw_u32 = smem_u32(smem_raw);
  const uint32_t base = (raw_u32 + 1023u) & ~1023u;
  unsigned char* const gbase = smem_raw + (base - raw_u32);  // (the same place, generic address)
  const uint32_t rawb = base + kStages * kFusedStageBytes, rawa = rawb + kBytesB;
  const uint32_t full0 = rawa + (kAhead ? 2 : 1) * kBytesA;  // full[s]: stage s is split (128 arrivals)
  const uint32_t empty0 = full0 + kStages * 8;  // empty[s]: both consumers are done with stage s
  const uint32_t landed = empty0 + kStages * 8;  // the raw block's bytes have landed (kAhead: B's)
  const uint32_t landed_a0 = landed + 8;         // kAhead: raw A block s's bytes have landed (s = 0, 1)
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full0 + 8 * s, 128);
      mbar_init(empty0 + 8 * s, 8);
    }
    mbar_init(landed, 1);
    mbar_init(landed_a0, 1);
    mbar_init(landed_a0 + 8, 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  namespace sc = tf32x3_schedule;
  const int tiles = p.tiles_i * p.sched_j;
  const int units = sc::plan_units(tiles, p.whole, p.splits);
  const int nk = p.nkb;

  if (wg == 0) {  // the split
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    const int t = threadIdx.x;
    if (t == 0) {
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tm_b)) : "memory");
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tm_a)) : "memory");
    }
    unsigned max_a = 0, not_min_a = 0, max_b = 0, not_min_b = 0;
    Ring r;
    unsigned raw_phase = 0;
    if constexpr (kAhead) {
      const unsigned char* const raw_b = gbase + (rawb - base);
      FusedWalk cur{int(blockIdx.x), 0, 0};
      bool have = cur.unit(p, tiles, units);
      auto load = [&](const FusedWalk& w, bool b, int slot) {  // (thread 0)
        const UnitPlace q = unit_place(w.u, p, tiles, nk, 0);
        const int tj = q.tj, ti = q.ti;
        if (b) {
          mbar_expect_tx(landed, kBytesB);
          fused_load(&tm_b, rawb, landed, p.b_mn_major, tj * kBJ, w.kb * kBK);
        } else {
          mbar_expect_tx(landed_a0 + 8 * slot, kBytesA);
          fused_load(&tm_a, rawa + slot * kBytesA, landed_a0 + 8 * slot, p.a_mn_major, ti * kBI, w.kb * kBK);
        }
      };
      if (t == 0 && have) {
        load(cur, true, 0);
        load(cur, false, 0);
      }
      for (unsigned j = 0; have; ++j) {
        FusedWalk nxt = cur;
        const bool more = nxt.next(p, tiles, units);
        mbar_wait(empty0 + 8 * r.s, r.phase ^ 1);
        unsigned char* const st = gbase + r.s * kFusedStageBytes;
        mbar_wait(landed, j & 1);
        split_block<kBJ>(raw_b, st + kFusedBigB, st + kFusedSmallB, p.b_mn_major, t, 128, &max_b, &not_min_b);
        // Raw B has been read by all, and so has the raw A block split in the previous round.
        asm volatile("bar.sync 3, 128;\n" ::: "memory");
        if (t == 0 && more) {
          load(nxt, true, 0);
          load(nxt, false, int((j + 1) & 1));
        }
        mbar_wait(landed_a0 + 8 * (j & 1), (j >> 1) & 1);
        split_block<kBI>(gbase + (rawa - base) + (j & 1) * kBytesA, st + kFusedBigA, st + kFusedSmallA, p.a_mn_major, t,
                         128, &max_a, &not_min_a);
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // (as below)
        mbar_arrive(full0 + 8 * r.s);
        r.next<kStages>();
        cur = nxt;
        have = more;
      }
    }
    for (int u = blockIdx.x; !kAhead && u < units; u += gridDim.x) {
      const UnitPlace w = unit_place(u, p, tiles, nk, 0);
      for (int kb = w.kb0; kb < w.kb1; ++kb) {
        if (t == 0) {  // (the raw area is free: every thread passed the barrier after the last split)
          const int kx = kb * kBK, line_b = w.tj * kBJ, line_a = w.ti * kBI;
          mbar_expect_tx(landed, kBytesB + kBytesA);
          if (p.b_mn_major) tma_load_2d(rawb, &tm_b, landed, line_b, kx);
          else tma_load_2d(rawb, &tm_b, landed, kx, line_b);
          if (p.a_mn_major) tma_load_2d(rawa, &tm_a, landed, line_a, kx);
          else tma_load_2d(rawa, &tm_a, landed, kx, line_a);
        }
        mbar_wait(empty0 + 8 * r.s, r.phase ^ 1);
        mbar_wait(landed, raw_phase);
        raw_phase ^= 1;
        unsigned char* const st = gbase + r.s * kFusedStageBytes;
        split_block<kBJ>(gbase + (rawb - base), st + kFusedBigB, st + kFusedSmallB, p.b_mn_major, t, 128, &max_b,
                         &not_min_b);
        split_block<kBI>(gbase + (rawa - base), st + kFusedBigA, st + kFusedSmallA, p.a_mn_major, t, 128, &max_a,
                         &not_min_a);
        // The tiles were written through the generic proxy and are read by wgmma through the async
        // one; every writer fences before its arrival.
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        mbar_arrive(full0 + 8 * r.s);
        asm volatile("bar.sync 3, 128;\n" ::: "memory");  // the raw area has been read by all
        r.next<kStages>();
      }
    }
    max_a = __reduce_max_sync(0xffffffffu, max_a);
    not_min_a = __reduce_max_sync(0xffffffffu, not_min_a);
    max_b = __reduce_max_sync(0xffffffffu, max_b);
    not_min_b = __reduce_max_sync(0xffffffffu, not_min_b);
    if (t % 32 == 0) {
      const unsigned v[4] = {max_a, max_b, not_min_a, not_min_b};
      unsigned* slot[4] = {&p.gather->max_abs_bits[0], &p.gather->max_abs_bits[1], &p.gather->not_min_abs_bits[0],
                           &p.gather->not_min_abs_bits[1]};
      for (int w = 0; w < 4; ++w)
        if (v[w] > *reinterpret_cast<volatile unsigned*>(slot[w])) atomicMax(slot[w], v[w]);
    }
  } else {  // consumers
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int cw = wg - 1;
    float sum[kAcc], acc[kAcc];
    Ring ring;
    if (sc::signals_before_first(cw)) bar_arrive(sc::turn_barrier(1 - cw));
    for (int u = blockIdx.x; u < units; u += gridDim.x) {
      const UnitPlace w = unit_place(u, p, tiles, nk, 0);
#pragma unroll
      for (int i = 0; i < kAcc; ++i) sum[i] = acc[i] = 0.f;
      tile_fused<kStages>(sum, acc, ring, w.kb1 - w.kb0, cw, base, full0, empty0);
      store_unit(p, sum, w, cw);
    }
    if (sc::waits_after_last(cw)) bar_sync(sc::turn_barrier(cw));
  }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

// Split-K's last pass over the divided scheduled tiles (whole .. tiles - 1 of the persistent
// order, wide 192 x 128 tiles each), a thread an element of a tile's slot: C := alpha * (slot_0 +
// ... + slot_{splits-1}) + beta * C for the elements inside C, the slices added in order;
// beta == 0 never reads C. Writes nothing where `stats` refuse.
__global__ void splitk_reduce_kernel(Params p, const Tf32x3Stats* stats, int k) {
  if (stats && tf32x3_refuse_rule(*stats, k)) return;
  constexpr int kT = kBI * kBJ;
  const int divided = p.tiles_i * p.sched_j - p.whole;
  const int64_t total = int64_t(divided) * p.wide * kT, step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t x = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; x < total; x += step) {
    const int dr = int(x / kT), e = int(x % kT);  // (slot dr of slice 0, element e of its tile)
    const int d = dr / p.wide, r = dr % p.wide;
    int tj, ti;
    tile_coords(p.whole + d, p, &tj, &ti);
    tj = tj * p.wide + r;
    const int i = ti * kBI + e % kBI, j = tj * kBJ + e / kBI;
    if (i >= p.m || j >= p.n) continue;  // (edge rows and columns, and a pair's tile off the edge)
    const float* w = p.work + x;
    float s = w[0];
    for (int q = 1; q < p.splits; ++q) s += w[int64_t(q) * divided * p.wide * kT];
    float* cij = p.c + i + int64_t(j) * p.ldc;
    *cij = p.beta == 0.f ? p.alpha * s : fmaf(p.beta, *cij, p.alpha * s);
  }
}

// The last pass over the divided tiles of p's plan, where there are any.
cudaError_t reduce_divided(const Params& p, const Tf32x3Stats* stats, int k, int sms, cudaStream_t s) {
  const int64_t divided = int64_t(p.tiles_i) * p.sched_j - p.whole;
  if (divided <= 0) return cudaSuccess;
  const int64_t total = divided * p.wide * (kBI * kBJ);
  const int blocks = int(std::min<int64_t>((total + 255) / 256, int64_t(sms) * 16));
  splitk_reduce_kernel<<<blocks, 256, 0, s>>>(p, stats, k);
  return cudaGetLastError();
}

// A 2-D FP32 tensor map over a k-contiguous operand: k3 elements per line, `lines` lines ld3
// apart, boxes of 32 x box_lines with the 128-byte swizzle; reads outside are zero-filled.
bool make_map(CUtensorMap* map, const float* base, int k3, int lines, int64_t ld3, int box_lines) {
  return make_tensor_map_2d(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, base, k3, lines, ld3, kBK, box_lines,
                            CU_TENSOR_MAP_SWIZZLE_128B);
}

}  // namespace

const char* tf32x3_wgmma_can_implement(int64_t ld3) {
  if (ld3 % 4) return "TMA needs the split operands' leading dimension to be a multiple of 4";
  if (!sm90a_ready()) return "needs a compute capability 9.0 device and a build with sm_90a code (wgmma, TMA)";
  return nullptr;
}

namespace {
// The variant's kernel with its shared memory allowed (once).
template <Tf32x3Kernel K>
cudaError_t allow_smem() {
  static SmemLimitOnce limit;
  return limit.set(reinterpret_cast<const void*>(tf32x3_wgmma_kernel<K>), smem_bytes(Variant<K>::kStages));
}
// `grid` blocks, or clusters of two blocks for the paired variant.
template <Tf32x3Kernel K>
cudaError_t launch(const CUtensorMap& tb, const CUtensorMap& ta, const Params& p, int grid, cudaStream_t s) {
  constexpr int bytes = smem_bytes(Variant<K>::kStages);
  const cudaError_t e = allow_smem<K>();
  if (e != cudaSuccess) return e;
  if constexpr (Variant<K>::kPair)
    return launch_clusters(tf32x3_wgmma_kernel<K>, dim3(unsigned(grid), 2), kThreads, bytes, 2, s, tb, ta, p);
  tf32x3_wgmma_kernel<K><<<grid, kThreads, bytes, s>>>(tb, ta, p);
  return cudaGetLastError();
}

// How many clusters of the paired variant the current device holds at once (0: none, or its
// shared memory cannot be allowed).
int pair_clusters() {
  constexpr Tf32x3Kernel K = Tf32x3Kernel::p64_ordered_pair;
  if (allow_smem<K>() != cudaSuccess) return 0;
  return max_active_clusters(reinterpret_cast<const void*>(tf32x3_wgmma_kernel<K>), kThreads,
                             smem_bytes(Variant<K>::kStages), 2);
}

constexpr const char* kNames[kTf32x3Kernels] = {"p32", "p32-ordered", "p32-halves", "p64", "p64-ordered", "p64-halves",
                                                 "p64-ordered-2part", "p64-ordered-fused", "p64-ordered-fused-ahead",
                                                 "p64-ordered-pair"};
}  // namespace

const char* tf32x3_kernel_name(Tf32x3Kernel kernel) {
  const int i = int(kernel);
  return i >= 0 && i < kTf32x3Kernels ? kNames[i] : "unknown";
}

bool tf32x3_kernel_parse(const char* name, Tf32x3Kernel* kernel) {
  if (!name) return false;
  for (int i = 0; i < kTf32x3Kernels; ++i)
    if (!std::strcmp(name, kNames[i])) {
      *kernel = Tf32x3Kernel(i);
      return true;
    }
  return false;
}

int tf32x3_kernel_promote_terms(Tf32x3Kernel kernel) {
  switch (kernel) {
    case Tf32x3Kernel::p64:
    case Tf32x3Kernel::p64_ordered:
    case Tf32x3Kernel::p64_halves:
    case Tf32x3Kernel::p64_ordered_2part:
    case Tf32x3Kernel::p64_ordered_fused:
    case Tf32x3Kernel::p64_ordered_fused_ahead:
    case Tf32x3Kernel::p64_ordered_pair:
      return 64;
    default:
      return 32;
  }
}

Tf32x3Kernel tf32x3_kernel_from_env(std::string* unknown) {
  Tf32x3Kernel k = kTf32x3DefaultKernel;
  const char* v = std::getenv("MYBLAS_SGEMM_TF32X3_KERNEL");
  if (v && *v && !tf32x3_kernel_parse(v, &k) && unknown) *unknown = v;
  return k;
}

namespace {
// Blocks per scheduled tile, and the scheduled tiles of an m x n C.
int tile_wide(Tf32x3Kernel kernel) { return kernel == Tf32x3Kernel::p64_ordered_pair ? 2 : 1; }
int64_t tile_count(int m, int n, int wide = 1) {
  const int64_t tiles_j = (n + kBJ - 1) / kBJ;
  return int64_t((m + kBI - 1) / kBI) * ((tiles_j + wide - 1) / wide);
}
}  // namespace

Tf32x3Split tf32x3_splitk_choose(int m, int n, int k3, int sms, Tf32x3Kernel kernel) {
  if (m <= 0 || n <= 0 || k3 <= 0) return Tf32x3Split(1);
  const int wide = tile_wide(kernel);
  const int64_t tiles = tile_count(m, n, wide);
  if (tiles > INT32_MAX) return Tf32x3Split(1);
  int workers = sms;
  if (wide > 1) {
    const int c = pair_clusters();
    workers = c > 0 ? c : sms / wide;
  }
  const tf32x3_schedule::SplitPlan q = tf32x3_schedule::split_plan(int(tiles), (k3 + kBK - 1) / kBK, workers);
  return Tf32x3Split(q.splits, q.whole);
}

size_t tf32x3_splitk_work_floats(int m, int n, Tf32x3Split plan, Tf32x3Kernel kernel) {
  if (plan.splits <= 1 || m <= 0 || n <= 0) return 0;
  const int wide = tile_wide(kernel);
  const int64_t divided = tile_count(m, n, wide) - std::max(plan.whole, 0);
  return divided > 0 ? size_t(plan.splits) * size_t(divided) * size_t(wide) * (kBI * kBJ) : 0;
}

size_t tf32x3_fused_work_floats(int m, int n, int splits) {
  return m > 0 && n > 0 && splits > 0 ? size_t(splits) * size_t(tile_count(m, n)) * (kBI * kBJ) : 0;
}

cudaError_t tf32x3_wgmma_product(int m, int n, int k3, float alpha, const float* a3, const float* b3, int64_t ld3,
                                 float beta, float* c, int64_t ldc, cudaStream_t s, Tf32x3Kernel kernel,
                                 Tf32x3Split plan, float* work, const Tf32x3Stats* device_stats) {
  int sms = 0;
  if (!sm90a_ready(&sms)) return cudaErrorInvalidDeviceFunction;
  const bool two_parts = tf32x3_kernel_two_parts(kernel);
  const int nk = two_parts ? 3 * ((k3 / 3 + kBK - 1) / kBK) : (k3 + kBK - 1) / kBK;
  const int wide = tile_wide(kernel);
  const int64_t tiles = tile_count(m, n, wide);
  if (tiles > INT32_MAX) return cudaErrorInvalidValue;
  const int splits = plan.splits;
  const int whole = splits == 1 ? int(tiles) : plan.whole;
  if (splits < 1 || splits > nk || whole < 0 || whole > tiles) return cudaErrorInvalidValue;
  if (splits > 1 && whole < tiles && !work) return cudaErrorInvalidValue;
  if (reinterpret_cast<uintptr_t>(work) % 16) return cudaErrorInvalidValue;
  if (tf32x3_kernel_fused(kernel)) return cudaErrorInvalidValue;  // (it takes the operands: tf32x3_fused_product)
  if (device_stats && k3 % 3) return cudaErrorInvalidValue;
  if (reinterpret_cast<uintptr_t>(a3) % 16 || reinterpret_cast<uintptr_t>(b3) % 16 || ld3 % 4)
    return cudaErrorInvalidValue;  // (TMA's alignment rules)
  CUtensorMap tb, ta;
  if (two_parts) {  // (each part k deep: the copy engine zero-fills a part's last k-block past k)
    if (k3 % 3 || int64_t(n) * 2 > INT32_MAX || int64_t(m) * 2 > INT32_MAX) return cudaErrorInvalidValue;
    if (!make_map(&tb, b3, k3 / 3, 2 * n, ld3, kBJ) || !make_map(&ta, a3, k3 / 3, 2 * m, ld3, kBI))
      return cudaErrorInvalidValue;
  } else if (!make_map(&tb, b3, k3, n, ld3, kBJ) || !make_map(&ta, a3, k3, m, ld3, kBI / wide)) {
    return cudaErrorInvalidValue;  // (the paired variant loads the A3 tile in halves)
  }
  Params p;
  p.c = c;
  p.ldc = ldc;
  p.m = m;
  p.n = n;
  p.k3 = k3;
  p.alpha = alpha;
  p.beta = beta;
  p.tiles_i = (m + kBI - 1) / kBI;
  p.tiles_j = (n + kBJ - 1) / kBJ;
  p.wide = wide;
  p.sched_j = (p.tiles_j + wide - 1) / wide;
  p.vec2 = reinterpret_cast<uintptr_t>(c) % 8 == 0 && ldc % 2 == 0;
  p.splits = splits;
  p.whole = whole;
  p.work = work;
  p.stats = device_stats;
  p.nkp = two_parts ? (k3 / 3 + kBK - 1) / kBK : 0;
  p.gather = nullptr;
  p.a_mn_major = p.b_mn_major = 0;
  p.nkb = 0;
  const int64_t units = whole + (tiles - whole) * int64_t(splits);
  if (units > INT32_MAX) return cudaErrorInvalidValue;
  int workers = sms;  // (blocks, or clusters of the paired variant)
  if (wide > 1 && (workers = pair_clusters()) <= 0) return cudaErrorInvalidConfiguration;
  const int grid = int(units < workers ? units : workers);
  cudaError_t e = cudaErrorInvalidValue;  // (not a variant)
  switch (kernel) {
    case Tf32x3Kernel::p32: e = launch<Tf32x3Kernel::p32>(tb, ta, p, grid, s); break;
    case Tf32x3Kernel::p32_ordered: e = launch<Tf32x3Kernel::p32_ordered>(tb, ta, p, grid, s); break;
    case Tf32x3Kernel::p32_halves: e = launch<Tf32x3Kernel::p32_halves>(tb, ta, p, grid, s); break;
    case Tf32x3Kernel::p64: e = launch<Tf32x3Kernel::p64>(tb, ta, p, grid, s); break;
    case Tf32x3Kernel::p64_ordered: e = launch<Tf32x3Kernel::p64_ordered>(tb, ta, p, grid, s); break;
    case Tf32x3Kernel::p64_halves: e = launch<Tf32x3Kernel::p64_halves>(tb, ta, p, grid, s); break;
    case Tf32x3Kernel::p64_ordered_2part: e = launch<Tf32x3Kernel::p64_ordered_2part>(tb, ta, p, grid, s); break;
    case Tf32x3Kernel::p64_ordered_pair: e = launch<Tf32x3Kernel::p64_ordered_pair>(tb, ta, p, grid, s); break;
    case Tf32x3Kernel::p64_ordered_fused:
    case Tf32x3Kernel::p64_ordered_fused_ahead: break;  // (refused above)
  }
  if (e != cudaSuccess) return e;
  return reduce_divided(p, device_stats, k3 / 3, sms, s);
}

const char* tf32x3_fused_can_implement(uintptr_t a, int64_t lda, uintptr_t b, int64_t ldb) {
  if (a % 16 || b % 16) return "the copy engine reads A and B as stored only from 16-byte aligned addresses";
  if (lda % 4 || ldb % 4) return "the copy engine reads A and B as stored only with lda and ldb multiples of 4";
  return nullptr;
}

namespace {
template <bool kAhead>
cudaError_t fused_launch(const CUtensorMap& tb, const CUtensorMap& ta, const Params& p, int grid, cudaStream_t s) {
  constexpr int bytes = fused_smem_bytes(kAhead);
  static SmemLimitOnce limit;
  const cudaError_t e = limit.set(reinterpret_cast<const void*>(tf32x3_fused_kernel<kAhead>), bytes);
  if (e != cudaSuccess) return e;
  tf32x3_fused_kernel<kAhead><<<grid, kThreads, bytes, s>>>(tb, ta, p);
  return cudaGetLastError();
}
}  // namespace

cudaError_t tf32x3_fused_product(int m, int n, int k, float alpha, const float* a, int64_t lda, bool a_k_in_cols,
                                 const float* b, int64_t ldb, bool b_k_in_cols, float beta, float* c, int64_t ldc,
                                 cudaStream_t s, int splits, float* work, Tf32x3Stats* stats, Tf32x3Kernel kernel) {
  int sms = 0;
  if (!sm90a_ready(&sms)) return cudaErrorInvalidDeviceFunction;
  if (!tf32x3_kernel_fused(kernel)) return cudaErrorInvalidValue;
  // beta == 0 without split-K: C's old values are no input, so the product writes C itself (a
  // refused call's FP32 path overwrites all of it); otherwise its sums wait in work for the verdict.
  const bool direct = beta == 0.f && splits == 1;
  if (m <= 0 || n <= 0 || k <= 0 || !stats || (!direct && !work)) return cudaErrorInvalidValue;
  if (tf32x3_fused_can_implement(reinterpret_cast<uintptr_t>(a), lda, reinterpret_cast<uintptr_t>(b), ldb))
    return cudaErrorInvalidValue;
  const int nkb = (k + kBK - 1) / kBK;
  if (splits < 1 || splits > nkb || int64_t(k) * 3 > INT32_MAX) return cudaErrorInvalidValue;
  // A: m-contiguous (A 'N': m x k stored) boxes of kBI lines x kBK, or K-major (k x m stored) boxes
  // of kBK x kBI swizzled as the tiles; B likewise with n and kBJ.
  CUtensorMap tb, ta;
  const bool ok_a = a_k_in_cols ? make_tensor_map_2d(&ta, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, a, m, k, lda, kBI, kBK,
                                                     CU_TENSOR_MAP_SWIZZLE_NONE)
                                : make_map(&ta, a, k, m, lda, kBI);
  const bool ok_b = b_k_in_cols ? make_tensor_map_2d(&tb, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, b, n, k, ldb, kBJ, kBK,
                                                     CU_TENSOR_MAP_SWIZZLE_NONE)
                                : make_map(&tb, b, k, n, ldb, kBJ);
  if (!ok_a || !ok_b) return cudaErrorInvalidValue;
  Params p;
  p.c = c;
  p.ldc = ldc;
  p.m = m;
  p.n = n;
  p.k3 = 3 * k;
  p.alpha = alpha;
  p.beta = beta;
  p.tiles_i = (m + kBI - 1) / kBI;
  p.tiles_j = (n + kBJ - 1) / kBJ;
  p.wide = 1;
  p.sched_j = p.tiles_j;
  p.vec2 = reinterpret_cast<uintptr_t>(c) % 8 == 0 && ldc % 2 == 0;
  p.splits = splits;
  p.whole = direct ? p.tiles_i * p.tiles_j : 0;  // (else every unit's sums wait in work for the verdict)
  p.work = work;
  p.stats = nullptr;
  p.nkp = 0;
  p.gather = stats;
  p.a_mn_major = a_k_in_cols;
  p.b_mn_major = b_k_in_cols;
  p.nkb = nkb;
  const int64_t units = tile_count(m, n) * splits;
  if (units > INT32_MAX) return cudaErrorInvalidValue;
  if (reinterpret_cast<uintptr_t>(work) % 16) return cudaErrorInvalidValue;
  const int grid = int(units < sms ? units : sms);
  cudaError_t e = kernel == Tf32x3Kernel::p64_ordered_fused_ahead ? fused_launch<true>(tb, ta, p, grid, s)
                                                                   : fused_launch<false>(tb, ta, p, grid, s);
  if (e != cudaSuccess) return e;
  return reduce_divided(p, stats, k, sms, s);
}

}  // namespace myblas
