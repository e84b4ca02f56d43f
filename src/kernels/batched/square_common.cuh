// What the batched square kernels (gemm_square_smem.cu, gemm_square_staged.cu, hgemm_square_mma.cu) share: the launch's
// description of its groups, element conversions, where product i's operands are, the packing
// of up to kMaxGroups groups of one size into one launch, and the 16-byte chunks in which the
// staged rungs load their operands (all of a thread's loads issued before any is used).
#pragma once
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/batched.h"

namespace myblas {
namespace square {

// The SIMT rungs' micro-tiles (gemm_square_smem, gemm_square_staged, gemm_square_prefetch):
// N = 16: 4 x 2 of C per thread, 32 threads a product, 8 products a block of 256 threads;
// N = 32: 4 x 4, 64 threads a product, 4 products a block.
template <int N>
struct Shape;
template <>
struct Shape<16> {
  static constexpr int TM = 4, TN = 2, P = 8;
};
template <>
struct Shape<32> {
  static constexpr int TM = 4, TN = 4, P = 4;
};

constexpr int kThreads = 256;
constexpr int kMaxGroups = 8;  // groups of one size per launch (more launch again)

struct Group {
  const void* a;
  const void* b;
  void* c;
  const void* const* list;  // device copy of a[count], b[count], c[count]; nullptr when strided
  long long sa, sb, sc;     // strides in elements
  long long lda, ldb, ldc;
  long long count;
  long long first_block;  // the launch's first block for this group
  float alpha, beta;
  int ta, tb;               // 1: transposed
  int vec_a, vec_b, vec_c;  // 16-byte accesses allowed
};
struct Args {
  Group g[kMaxGroups];
  int groups;
};

template <class T>
__device__ __forceinline__ float to_f(T v) {
  if constexpr (sizeof(T) == 2) return __half2float(v);
  else return v;
}
template <class T>
__device__ __forceinline__ T from_f(float v) {
  if constexpr (sizeof(T) == 2) return __float2half_rn(v);
  else return v;
}

template <class T>
__device__ __forceinline__ const T* operand(const Group& g, int which, long long item) {
  if (g.list) return static_cast<const T*>(g.list[which * g.count + item]);
  const long long stride = which == 0 ? g.sa : g.sb;
  return static_cast<const T*>(which == 0 ? g.a : g.b) + item * stride;
}
template <class T>
__device__ __forceinline__ T* output(const Group& g, long long item) {
  if (g.list) return static_cast<T*>(const_cast<void*>(g.list[2 * g.count + item]));
  return static_cast<T*>(g.c) + item * g.sc;
}

// The block's group: blocks are numbered group after group.
__device__ __forceinline__ const Group& block_group(const Args& args) {
  int gi = 0;
  while (gi + 1 < args.groups && (long long)blockIdx.x >= args.g[gi + 1].first_block) ++gi;
  return args.g[gi];
}

inline bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

// Fills `args` with groups[first, first + args->groups) for blocks of P products; returns the
// number of blocks. 16-byte accesses need every column start 16-byte aligned: ld and strides
// multiples of a vector and every matrix's first element aligned (listed ones checked one by one).
template <class T>
long long pack_groups(const BatchGroup* groups, const void* const* const* dev_lists, int first, int P, Args* args) {
  constexpr long long kVec = 16 / sizeof(T);
  long long blocks = 0;
  for (int i = 0; i < args->groups; ++i) {
    const BatchGroup& bg = groups[first + i];
    Group& g = args->g[i];
    g.list = dev_lists ? dev_lists[first + i] : nullptr;
    g.a = bg.a, g.b = bg.b, g.c = bg.c;
    g.sa = bg.stride_a, g.sb = bg.stride_b, g.sc = bg.stride_c;
    g.lda = bg.lda, g.ldb = bg.ldb, g.ldc = bg.ldc;
    g.count = bg.count;
    g.first_block = blocks;
    g.alpha = float(bg.alpha.re), g.beta = float(bg.beta.re);
    g.ta = bg.ta != 'N', g.tb = bg.tb != 'N';
    auto ok = [&](int which, long long ld, long long stride) {
      if (ld % kVec) return false;
      if (!bg.listed())
        return aligned16(which == 0 ? bg.a : which == 1 ? static_cast<const void*>(bg.b) : bg.c) && stride % kVec == 0;
      for (long long j = 0; j < bg.count; ++j) {
        const void* ptr = which == 0 ? bg.a_list[j] : which == 1 ? bg.b_list[j] : bg.c_list[j];
        if (!aligned16(ptr)) return false;
      }
      return true;
    };
    g.vec_a = ok(0, bg.lda, bg.stride_a), g.vec_b = ok(1, bg.ldb, bg.stride_b), g.vec_c = ok(2, bg.ldc, bg.stride_c);
    blocks += (bg.count + P - 1) / P;
  }
  return blocks;
}

template <class T>
union Chunk {
  uint4 u;
  T t[16 / sizeof(T)];
};

// This thread's chunks of one operand of the block's P products: chunk u is q = threadIdx.x +
// u * kThreads, product q / kChunks, and within it kVec elements down one stored column.
template <class T, int N, int P>
struct Chunks {
  static constexpr int kVec = 16 / int(sizeof(T));           // elements per 16-byte access
  static constexpr int kChunks = N * N / kVec;               // per matrix (one column each: N % kVec == 0)
  static constexpr int kLoads = P * kChunks / kThreads;      // per thread and operand
  static_assert(P * kChunks % kThreads == 0, "the block's chunks must divide among its threads");
  __device__ static int product(int u) { return (int(threadIdx.x) + u * kThreads) / kChunks; }
  __device__ static int row(int u) { return ((int(threadIdx.x) + u * kThreads) % kChunks) * kVec % N; }
  __device__ static int col(int u) { return ((int(threadIdx.x) + u * kThreads) % kChunks) * kVec / N; }
};

// Where chunk u of operand `which` (0: A, 1: B, 2: C) starts; nullptr past the group's count.
template <class T, int N, int P>
__device__ __forceinline__ void chunk_addresses(const Group& g, int which, long long p0,
                                                const T* (&src)[Chunks<T, N, P>::kLoads]) {
  using L = Chunks<T, N, P>;
  const long long ld = which == 0 ? g.lda : which == 1 ? g.ldb : g.ldc;
#pragma unroll
  for (int u = 0; u < L::kLoads; ++u) {
    const long long item = p0 + L::product(u);
    const T* base = nullptr;
    if (item < g.count) base = which == 2 ? output<T>(g, item) : operand<T>(g, which, item);
    src[u] = base ? base + L::col(u) * ld + L::row(u) : nullptr;
  }
}

// Issues every chunk's load before any is used.
template <class T, int K, bool kReadOnly>
__device__ __forceinline__ void load_chunks(const T* const (&src)[K], bool vec, uint4 (&r)[K]) {
  if (vec) {
#pragma unroll
    for (int u = 0; u < K; ++u)
      if (src[u]) r[u] = kReadOnly ? __ldg(reinterpret_cast<const uint4*>(src[u])) : *reinterpret_cast<const uint4*>(src[u]);
  } else {
#pragma unroll
    for (int u = 0; u < K; ++u)
      if (src[u]) {
        Chunk<T> v;
#pragma unroll
        for (int e = 0; e < 16 / int(sizeof(T)); ++e) v.t[e] = src[u][e];
        r[u] = v.u;
      }
  }
}

// Issues the loads of A's and B's chunks of the P products from p0: their addresses into sa and
// sb, the chunks into ra and rb.
template <class T, int N, int P>
__device__ __forceinline__ void load_ab(const Group& g, long long p0, const T* (&sa)[Chunks<T, N, P>::kLoads],
                                        const T* (&sb)[Chunks<T, N, P>::kLoads], uint4 (&ra)[Chunks<T, N, P>::kLoads],
                                        uint4 (&rb)[Chunks<T, N, P>::kLoads]) {
  using L = Chunks<T, N, P>;
  chunk_addresses<T, N, P>(g, 0, p0, sa);
  chunk_addresses<T, N, P>(g, 1, p0, sb);
  load_chunks<T, L::kLoads, true>(sa, g.vec_a, ra);
  load_chunks<T, L::kLoads, true>(sb, g.vec_b, rb);
}

// Launches kernel<<<blocks, kThreads>>>(args) over every kMaxGroups groups.
template <class T, int P, class Kernel>
cudaError_t launch_groups(Kernel kernel, const BatchGroup* groups, const void* const* const* dev_lists, int count,
                          cudaStream_t s) {
  for (int first = 0; first < count; first += kMaxGroups) {
    Args args{};
    args.groups = count - first < kMaxGroups ? count - first : kMaxGroups;
    const long long blocks = pack_groups<T>(groups, dev_lists, first, P, &args);
    if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;
    if (blocks == 0) continue;
    kernel<<<unsigned(blocks), kThreads, 0, s>>>(args);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

// The rungs, for FP32 (float) and binary16 (__half), N = 16 or 32; the tensor-core one binary16 only.
template <class T, int N>
cudaError_t run_smem(const BatchGroup* groups, const void* const* const* dev_lists, int count, cudaStream_t s);
template <class T, int N>
cudaError_t run_staged(const BatchGroup* groups, const void* const* const* dev_lists, int count, cudaStream_t s);
template <class T, int N>
cudaError_t run_prefetch(const BatchGroup* groups, const void* const* const* dev_lists, int count, cudaStream_t s);
template <int N>
cudaError_t run_mma_h(const BatchGroup* groups, const void* const* const* dev_lists, int count, cudaStream_t s);

}  // namespace square
}  // namespace myblas
