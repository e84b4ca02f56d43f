// HGEMM rung 3 (production on Hopper): wgmma fed by the tensor memory accelerator (TMA).
//
// What changed from rung 2 (mma.sync + ldmatrix + cp.async) and why:
// - The tensor cores are driven by warpgroup-wide wgmma.mma_async (sm_90a): one instruction
//   multiplies a 64x16 by a 16x256 tile straight out of shared memory, so no ldmatrix and no
//   register traffic for the operands. In SASS the inner loop is HGMMA.
// - Tiles arrive by TMA (cp.async.bulk.tensor) into 128-byte-swizzled shared memory (the layout
//   wgmma reads without bank conflicts), completing on an mbarrier with a byte count. One thread
//   issues all copies; out-of-range rows and columns of edge tiles are zero-filled by the copy
//   engine, so the main loop has no bounds checks at all.
// - Warp specialisation: warpgroup 0 is the producer (one thread issuing TMA, its registers given
//   away with setmaxnreg.dec), warpgroups 1 and 2 are consumers (setmaxnreg.inc: 128 FP32
//   accumulators each). A 4-stage ring of full/empty mbarriers lets the producer run up to 4
//   k-blocks ahead of the tensor cores, across tile boundaries.
// - Persistent grid: one block per SM walks the tile list in groups of 16 tile rows, so that the
//   ~132 tiles in flight share panels of A and B in the 50 MB L2.
//
// Roles of the operands. We compute D = C^T = op(B)^T * op(A)^T, so that wgmma's M is C's n
// (op(B)^T, 128 rows per block, 64 per consumer) and wgmma's N is C's m (op(A)^T, 256 per block):
// each accumulator pair is then two neighbouring rows of column-major C (one 4-byte store).
// wgmma reads FP16 operands K-major or MN-major (its transpose bits), so all four transposes are
// the same kernel: B = 'N' and A = 'T' are K-major, B = 'T' and A = 'N' are MN-major.
//
// Epilogue: alpha and beta in FP32, one rounding to binary16 (round to nearest even); beta == 0
// never reads C. With beta != 0 the producer also asks the copy engine to prefetch the tile's C
// into L2 (one cp.async.bulk.prefetch.tensor per tile) kPrefetchAhead k-blocks before the tile's
// last, so that the epilogue's reads of C hit L2 instead of waiting on device memory after the
// main loop. A binary16 C with 16-byte aligned columns is read and written 16 bytes per lane
// (store_tile_h8). With both, beta != 0 measured 1.05-1.10x raw cublasGemmEx (same beta) at
// 2048^3-4096^3 and 0.97-1.02x at 6144^3-8192^3 on the H100, where the 4-byte epilogue alone
// had run 0.76-0.92x (bench/results/h100-gemm16-beta-2026-11-28/h100-gemm16-beta-2026-11-28.md).
//
// Types: the same kernel is instantiated for binary16 A and B with binary16 C (HGEMM), and for
// binary16 or bfloat16 A and B with an FP32 C (shgemm/gemm_f16f16f32, sbgemm/gemm_bf16bf16f32),
// whose epilogue stores alpha*acc + beta*C in FP32 without rounding.
//
// Requirements (wgmma_tma_can_implement): an sm_90a build on a CC 9.0 device, A and B 16-byte
// aligned with lda, ldb multiples of 8 (TMA's rules); any m, n, k, ldc and C alignment (the C
// prefetch needs C 16-byte aligned with 16-byte column strides, and is skipped otherwise). Other
// problems go to the cp.async kernel or cuBLAS, chosen in dispatch.
#include <cuda.h>  // CUtensorMap and its enums (types only; the driver is reached via cudart)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/problem.h"
#include "kernels/gemm_args.h"  // aligned16, SmemLimitOnce
#include "kernels/mbarrier.cuh"  // smem_u32, mbar_*, tma_load_2d
#include "kernels/sm90.cuh"      // sm90a_ready, make_tensor_map_2d
#include "kernels/hgemm/wgmma.cuh"  // smem_desc, wgmma_*

namespace myblas {
namespace hgemm_detail {

namespace {

constexpr int kBJ = 128;  // rows of D (columns of C) per block tile: 2 consumer warpgroups x 64
constexpr int kBI = 256;  // columns of D (rows of C) per block tile: the wgmma N
constexpr int kBK = 64;   // k per stage: one 128-byte swizzle row of binary16
constexpr int kStages = 4;
constexpr int kThreads = 384;                        // producer + 2 consumer warpgroups
constexpr int kBytesBt = kBJ * kBK * 2;              // 16 KiB: op(B)^T tile (wgmma A operand)
constexpr int kBytesAt = kBI * kBK * 2;              // 32 KiB: op(A)^T tile (wgmma B operand)
constexpr int kStageBytes = kBytesBt + kBytesAt;     // 48 KiB per stage
constexpr int kSmemBytes = kStages * kStageBytes + 1024 /* 1024-byte alignment */ + 2 * kStages * 8;
constexpr int kGroupRows = 16;  // tile rows per L2 group of the persistent tile order
constexpr int kPrefetchAhead = 8;  // k-blocks before a tile's last at which its C is prefetched
static_assert(kBK * 2 == 128, "a stage's k extent must be one 128-byte swizzle row");
static_assert(kStageBytes % 1024 == 0, "stages must keep the 1024-byte swizzle alignment");
static_assert(kSmemBytes <= 227 * 1024, "shared memory over the H100's per-block limit");

struct Params {
  void* c;  // __half* or float*: the kernel's TOut
  int64_t ldc;
  int m, n, k;
  float alpha, beta;
  int tiles_i, tiles_j;
  int vec2;        // C can take paired stores of two neighbouring rows (4 or 8 bytes, aligned)
  int vec8;        // binary16 C with 16-byte aligned columns: 16-byte loads and stores (store_tile_h8)
  int prefetch_c;  // beta != 0 and C has a tensor map: prefetch each tile's C into L2
};

// Loads and stores of C by its element type: pairs of neighbouring rows, or one element.
template <class TOut>
struct OutC;
template <>
struct OutC<__half> {
  static __device__ __forceinline__ float2 load2(const __half* p) {
    return __half22float2(*reinterpret_cast<const __half2*>(p));
  }
  static __device__ __forceinline__ float load1(const __half* p) { return __half2float(*p); }
  static __device__ __forceinline__ void store2(__half* p, float v0, float v1) {
    *reinterpret_cast<__half2*>(p) = __floats2half2_rn(v0, v1);
  }
  static __device__ __forceinline__ void store1(__half* p, float v) { *p = __float2half_rn(v); }
};
template <>
struct OutC<float> {
  static __device__ __forceinline__ float2 load2(const float* p) { return *reinterpret_cast<const float2*>(p); }
  static __device__ __forceinline__ float load1(const float* p) { return *p; }
  static __device__ __forceinline__ void store2(float* p, float v0, float v1) {
    *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
  }
  static __device__ __forceinline__ void store1(float* p, float v) { *p = v; }
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Asks the copy engine to bring the box at (c0, c1) of the map into L2 (no shared memory, no
// completion to wait for; the parts outside the tensor are ignored).
__device__ __forceinline__ void tma_prefetch_2d(const CUtensorMap* map, int c0, int c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(c0), "r"(c1)
               : "memory");
}

// Tile t of the persistent order: groups of kGroupRows tile rows, walked down the rows first.
__device__ __forceinline__ void tile_coords(int t, const Params& p, int* tj, int* ti) {
  const int per_group = kGroupRows * p.tiles_i;
  const int first = (t / per_group) * kGroupRows;
  const int rows = min(p.tiles_j - first, kGroupRows);
  const int r = t % per_group;
  *tj = first + r % rows;
  *ti = r / rows;
}

// One thread's share of a consumer's 64x256 accumulator tile, stored to C(i, j) = D(j, i).
// Fragment layout of wgmma D (m64nN, f32): warp w of the warpgroup holds rows 16w..16w+15; lane l
// holds rows l/4 and l/4 + 8, columns 8c + 2(l%4) and +1 in d[4c + {0,1}] and d[4c + {2,3}].
// With beta != 0 a row's 64 old values are all loaded before the first store: the compiler must
// assume a store to C may alias a later load from C, so interleaving them made every load wait
// for the previous store (2.7x slower at 2048^3 with beta = 0.5 than with beta = 0).
template <class TOut>
__device__ __forceinline__ void store_tile(const Params& p, const float (&d)[128], int j_base, int i_base) {
  using Out = OutC<TOut>;
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  const bool read_c = p.beta != 0.f;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int j = j_base + 16 * warp + lane / 4 + 8 * h;
    if (j >= p.n) continue;
    TOut* cj = static_cast<TOut*>(p.c) + int64_t(j) * p.ldc;
    const int i0 = i_base + 2 * (lane % 4);
    float2 old[32];  // (32) pairs of C(i, j), C(i + 1, j) for i = i0 + 8c
    if (read_c) {
#pragma unroll
      for (int c = 0; c < 32; ++c) {
        const int i = i0 + 8 * c;
        old[c] = make_float2(0.f, 0.f);
        if (p.vec2 && i + 1 < p.m) {
          old[c] = Out::load2(cj + i);
        } else if (i < p.m) {
          old[c].x = Out::load1(cj + i);
          if (i + 1 < p.m) old[c].y = Out::load1(cj + i + 1);
        }
      }
    }
#pragma unroll
    for (int c = 0; c < 32; ++c) {
      const int i = i0 + 8 * c;
      if (i >= p.m) continue;
      float v0 = p.alpha * d[4 * c + 2 * h], v1 = p.alpha * d[4 * c + 2 * h + 1];
      if (read_c) {
        v0 = fmaf(p.beta, old[c].x, v0);
        v1 = fmaf(p.beta, old[c].y, v1);
      }
      if (p.vec2 && i + 1 < p.m) {
        Out::store2(cj + i, v0, v1);
      } else {
        Out::store1(cj + i, v0);
        if (i + 1 < p.m) Out::store1(cj + i + 1, v1);
      }
    }
  }
}

// The pair at slot x of four (x = 0..3, known only at run time: selects, not a local array).
__device__ __forceinline__ float2 pick4(const float2 (&v)[4], int x) {
  float2 r = v[0];
  r = x == 1 ? v[1] : r;
  r = x == 2 ? v[2] : r;
  r = x == 3 ? v[3] : r;
  return r;
}

// store_tile for a binary16 C whose columns are 16-byte aligned (C 16-byte aligned, ldc a
// multiple of 8). In the fragment layout the four lanes of a quad share a column and each holds
// pairs of rows 8c + 2q, +1; they swap pairs (a 4 x 4 transpose of float2 by three xor shuffles)
// so that lane q holds the 8 consecutive rows 8(4g + q) .. +7 of group g: one 16-byte load of C
// and one 16-byte store per 8 elements, and the quad's four stores fill two whole 32-byte sectors.
// The paired 4-byte accesses of store_tile used half of every sector they touched and four
// times the instructions. C's old values are all loaded before the first store (see store_tile).
__device__ __forceinline__ void store_tile_h8(const Params& p, const float (&d)[128], int j_base, int i_base) {
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32, q = lane % 4;
  const bool read_c = p.beta != 0.f;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int j = j_base + 16 * warp + lane / 4 + 8 * h;
    const bool col = j < p.n;  // (every lane shuffles; only lanes of real columns touch C)
    __half* cj = static_cast<__half*>(p.c) + int64_t(col ? j : 0) * p.ldc;
    uint4 old[8];  // (8 groups) 16-byte runs of C: rows i_base + 32g + 8q .. +7
    if (read_c) {
#pragma unroll
      for (int g = 0; g < 8; ++g) {
        const int i = i_base + 32 * g + 8 * q;
        old[g] = make_uint4(0u, 0u, 0u, 0u);
        if (col && i + 7 < p.m) old[g] = *reinterpret_cast<const uint4*>(cj + i);
      }
    }
#pragma unroll
    for (int g = 0; g < 8; ++g) {
      float2 mine[4];  // (4) pairs of rows 8(4g + t) + 2q, +1 for t = 0..3
#pragma unroll
      for (int t = 0; t < 4; ++t) mine[t] = make_float2(d[4 * (4 * g + t) + 2 * h], d[4 * (4 * g + t) + 2 * h + 1]);
      float2 got[4];  // got[r]: the pair of lane q ^ r for slot q
      got[0] = pick4(mine, q);
#pragma unroll
      for (int r = 1; r < 4; ++r) {
        const float2 send = pick4(mine, q ^ r);
        got[r].x = __shfl_xor_sync(0xffffffffu, send.x, r);
        got[r].y = __shfl_xor_sync(0xffffffffu, send.y, r);
      }
      float w[8];  // rows 8(4g + q) + e: lane s's pair at 2s, 2s + 1
#pragma unroll
      for (int sl = 0; sl < 4; ++sl) {
        const float2 x = pick4(got, sl ^ q);
        w[2 * sl] = p.alpha * x.x;
        w[2 * sl + 1] = p.alpha * x.y;
      }
      const int i = i_base + 32 * g + 8 * q;
      if (!col) continue;
      if (i + 7 < p.m) {
        uint4 out;
        uint32_t* o = &out.x;
        const uint32_t* c2 = &old[g].x;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          float v0 = w[2 * e], v1 = w[2 * e + 1];
          if (read_c) {
            __half2 ch;
            __builtin_memcpy(&ch, c2 + e, 4);
            const float2 cf = __half22float2(ch);
            v0 = fmaf(p.beta, cf.x, v0);
            v1 = fmaf(p.beta, cf.y, v1);
          }
          const __half2 r2 = __floats2half2_rn(v0, v1);
          __builtin_memcpy(o + e, &r2, 4);
        }
        *reinterpret_cast<uint4*>(cj + i) = out;
      } else {  // the last rows of C: element by element
#pragma unroll
        for (int e = 0; e < 8; ++e)
          if (i + e < p.m) {
            const float v = read_c ? fmaf(p.beta, __half2float(cj[i + e]), w[e]) : w[e];
            cj[i + e] = __float2half_rn(v);
          }
      }
    }
  }
}
#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// kBtMN: op(B)^T is MN-major in memory (B is 'T'); kAtMN: op(A)^T is MN-major (A is 'N').
// TIn: __half or __nv_bfloat16 (A and B); TOut: __half or float (C).
template <bool kBtMN, bool kAtMN, class TIn, class TOut>
__global__ void __launch_bounds__(kThreads, 1)
    hgemm_wgmma_tma_kernel(const __grid_constant__ CUtensorMap tm_bt, const __grid_constant__ CUtensorMap tm_at,
                           const __grid_constant__ CUtensorMap tm_c, Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;  // swizzled tiles need 1024-byte alignment
  const uint32_t full0 = base + kStages * kStageBytes;  // full[s]: the stage's bytes have landed
  const uint32_t empty0 = full0 + kStages * 8;          // empty[s]: both consumers are done with it
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full0 + 8 * s, 1);
      mbar_init(empty0 + 8 * s, 8);  // lane 0 of each of the 8 consumer warps
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const int tiles = p.tiles_i * p.tiles_j;
  const int nk = (p.k + kBK - 1) / kBK;

  if (wg == 0) {  // producer
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tm_bt)) : "memory");
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tm_at)) : "memory");
      const int prefetch_kb = nk > kPrefetchAhead ? nk - kPrefetchAhead : 0;
      int s = 0;
      unsigned phase = 0;
      for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int tj, ti;
        tile_coords(t, p, &tj, &ti);
        const int j0 = tj * kBJ, i0 = ti * kBI;
        for (int kb = 0; kb < nk; ++kb) {
          mbar_wait(empty0 + 8 * s, phase ^ 1);
          const uint32_t full = full0 + 8 * s;
          const uint32_t sb = base + s * kStageBytes, sa = sb + kBytesBt;
          const int k0 = kb * kBK;
          mbar_expect_tx(full, kStageBytes);
          if (p.prefetch_c && kb == prefetch_kb) tma_prefetch_2d(&tm_c, i0, j0);
          if (kBtMN) {
            tma_load_2d(sb, &tm_bt, full, j0, k0);
            tma_load_2d(sb + 8192, &tm_bt, full, j0 + 64, k0);
          } else {
            tma_load_2d(sb, &tm_bt, full, k0, j0);
          }
          if (kAtMN) {
#pragma unroll
            for (int q = 0; q < 4; ++q) tma_load_2d(sa + q * 8192, &tm_at, full, i0 + 64 * q, k0);
          } else {
            tma_load_2d(sa, &tm_at, full, k0, i0);
          }
          if (++s == kStages) {
            s = 0;
            phase ^= 1;
          }
        }
      }
    }
  } else {  // consumers: warpgroup 1 takes rows 0..63 of the tile, warpgroup 2 rows 64..127
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int cw = wg - 1;
    const bool arrive = threadIdx.x % 32 == 0;
    float acc[128];  // (64 x 256) / 128 threads: this thread's D fragment
#pragma unroll
    for (int i = 0; i < 128; ++i) acc[i] = 0.f;
    int s = 0;
    unsigned phase = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      int tj, ti;
      tile_coords(t, p, &tj, &ti);
      for (int kb = 0; kb < nk; ++kb) {
        mbar_wait(full0 + 8 * s, phase);
        const uint32_t sb = base + s * kStageBytes + cw * 8192, sa = base + s * kStageBytes + kBytesBt;
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBK / 16; ++kk) {
          const uint64_t da = kBtMN ? smem_desc(sb + kk * 2048, 8192, 1024) : smem_desc(sb + kk * 32, 16, 1024);
          const uint64_t db = kAtMN ? smem_desc(sa + kk * 2048, 8192, 1024) : smem_desc(sa + kk * 32, 16, 1024);
          wgmma_m64k16<kBI, TIn, kBtMN ? 1 : 0, kAtMN ? 1 : 0>(acc, da, db, (kb | kk) != 0);
        }
        wgmma_commit();
        // Waiting for this k-block's wgmmas before releasing the stage measured the same as
        // keeping one group in flight (wait_group 1, release the previous stage): 0.92-0.94 vs
        // 0.90-0.94 of cuBLAS at 4096^3, within run-to-run noise; the simpler form stays.
        wgmma_wait<0>();
        if (arrive) mbar_arrive(empty0 + 8 * s);
        if (++s == kStages) {
          s = 0;
          phase ^= 1;
        }
      }
      fence_acc(acc);
      if constexpr (std::is_same<TOut, __half>::value) {
        if (p.vec8) store_tile_h8(p, acc, tj * kBJ + 64 * cw, ti * kBI);
        else store_tile<TOut>(p, acc, tj * kBJ + 64 * cw, ti * kBI);
      } else {
        store_tile<TOut>(p, acc, tj * kBJ + 64 * cw, ti * kBI);
      }
    }
  }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

// A 2-D tensor map of 16-bit elements (binary16 or bfloat16): `inner` contiguous elements per
// line, `outer` lines `ld` elements apart, boxes of box_inner x box_outer with the 128-byte
// swizzle; reads outside are zero-filled.
bool make_map(CUtensorMap* map, CUtensorMapDataType type, const void* base, int inner, int outer, int64_t ld,
              int box_inner, int box_outer) {
  return make_tensor_map_2d(map, type, 2, base, inner, outer, ld, box_inner, box_outer, CU_TENSOR_MAP_SWIZZLE_128B);
}

template <bool kBtMN, bool kAtMN, class TIn, class TOut>
cudaError_t launch_variant(const CUtensorMap& bt, const CUtensorMap& at, const CUtensorMap& c, const Params& p,
                           int grid, cudaStream_t s) {
  static SmemLimitOnce limit;
  const auto kernel = hgemm_wgmma_tma_kernel<kBtMN, kAtMN, TIn, TOut>;
  const cudaError_t e = limit.set(reinterpret_cast<const void*>(kernel), kSmemBytes);
  if (e != cudaSuccess) return e;
  kernel<<<grid, kThreads, kSmemBytes, s>>>(bt, at, c, p);
  return cudaGetLastError();
}

template <class TIn, class TOut>
cudaError_t launch_types(bool bt_mn, bool at_mn, const CUtensorMap& bt, const CUtensorMap& at, const CUtensorMap& c,
                         const Params& p, int grid, cudaStream_t s) {
  if (bt_mn && at_mn) return launch_variant<true, true, TIn, TOut>(bt, at, c, p, grid, s);
  if (bt_mn) return launch_variant<true, false, TIn, TOut>(bt, at, c, p, grid, s);
  if (at_mn) return launch_variant<false, true, TIn, TOut>(bt, at, c, p, grid, s);
  return launch_variant<false, false, TIn, TOut>(bt, at, c, p, grid, s);
}

}  // namespace

const char* wgmma_tma_can_implement(const GemmProblem& p) {
  if (!aligned16(p.a) || !aligned16(p.b)) return "TMA needs 16-byte aligned A and B";
  if (p.lda % 8 || p.ldb % 8) return "TMA needs lda and ldb to be multiples of 8 (16-byte strides)";
  if (!sm90a_ready()) return "needs a compute capability 9.0 device and a build with sm_90a code (wgmma, TMA)";
  return nullptr;
}

cudaError_t launch_wgmma_tma(const GemmProblem& g, cudaStream_t s) {
  int sms = 0;
  if (!sm90a_ready(&sms)) return cudaErrorInvalidDeviceFunction;
  const bool bt_mn = g.tb == Op::T, at_mn = g.ta == Op::N;
  const CUtensorMapDataType in =
      g.routine == Routine::sbgemm ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const bool c32 = g.routine != Routine::hgemm;  // an FP32 C (sbgemm, shgemm)
  CUtensorMap bt, at, cm;
  // op(B)^T, rows j of D: B 'N' is k x n (k contiguous), B 'T' is n x k (n contiguous).
  const bool ok_b = bt_mn ? make_map(&bt, in, g.b, g.n, g.k, g.ldb, 64, 64) : make_map(&bt, in, g.b, g.k, g.n, g.ldb, 64, kBJ);
  // op(A)^T, columns i of D: A 'T' is k x m (k contiguous), A 'N' is m x k (m contiguous).
  const bool ok_a = at_mn ? make_map(&at, in, g.a, g.m, g.k, g.lda, 64, 64) : make_map(&at, in, g.a, g.k, g.m, g.lda, 64, kBI);
  if (!ok_a || !ok_b) return cudaErrorInvalidValue;
  // C's tiles (kBI rows x kBJ columns) for the L2 prefetch only: never read into shared memory.
  const bool ok_c = g.beta != 0.f &&
                    make_tensor_map_2d(&cm, c32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                       c32 ? 4 : 2, g.c, g.m, g.n, g.ldc, kBI, kBJ, CU_TENSOR_MAP_SWIZZLE_NONE);
  if (!ok_c) cm = at;  // (unused)
  Params p;
  p.c = g.c;
  p.prefetch_c = ok_c;
  p.ldc = g.ldc;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  p.alpha = g.alpha;
  p.beta = g.beta;
  p.tiles_i = (g.m + kBI - 1) / kBI;
  p.tiles_j = (g.n + kBJ - 1) / kBJ;
  p.vec2 = (reinterpret_cast<uintptr_t>(g.c) % (c32 ? 8 : 4) == 0) && g.ldc % 2 == 0;
  p.vec8 = !c32 && reinterpret_cast<uintptr_t>(g.c) % 16 == 0 && g.ldc % 8 == 0;
  const int64_t tiles = int64_t(p.tiles_i) * p.tiles_j;
  if (tiles > INT32_MAX) return cudaErrorInvalidValue;
  const int grid = int(tiles < sms ? tiles : sms);
  switch (g.routine) {
    case Routine::sbgemm: return launch_types<__nv_bfloat16, float>(bt_mn, at_mn, bt, at, cm, p, grid, s);
    case Routine::shgemm: return launch_types<__half, float>(bt_mn, at_mn, bt, at, cm, p, grid, s);
    default: return launch_types<__half, __half>(bt_mn, at_mn, bt, at, cm, p, grid, s);
  }
}

}  // namespace hgemm_detail
}  // namespace myblas
