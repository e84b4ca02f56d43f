// gemm_square_staged: many small square products (m = n = k = N, N = 16 or 32) in one launch, for
// FP32 and binary16 storage (FP32 accumulation, one rounding of the result); the rung after
// gemm_square_smem.cu, with the same blocks (256 threads, P products of one group), micro-tiles
// and 16-byte global accesses.
//
// What changed and why: at these sizes the batch runs at the speed of memory only if each SM
// keeps enough bytes in flight to cover the memory latency (Little's law: tens of kilobytes per
// SM). gemm_square_smem's threads load one 16-byte chunk and store it to shared memory before
// loading the next, one load in flight each. Here every thread first computes the addresses of
// all its chunks of A and B (a fixed count, P N^2 / (256 * elements per 16 bytes): 1 to 4 per
// operand, unrolled, predicated on the group's count; the pointer-array loads come first, all of
// them), issues every load into registers, and only then stores them to shared memory: a block
// has all of its P products' A and B in flight at once. With beta != 0 C's loads are issued into
// the same registers right after that store, so they travel while the block multiplies.
//
// The operands go to shared memory laid out for the product's inner loop: A as op(A) by rows of
// k (As[kk][i], rows padded to N + 4 floats so that a thread's TM = 4 values of a are one 16-byte
// read), B as op(B) by columns (Bs[j][kk], padded to N + 1, conflict-free for the TN single reads
// of b): 1 + TN shared-memory reads per k step instead of TM + TN. The transposes are applied by
// the store to shared memory (one store per element), not by the reads (N / TN reads per element).
// C goes back through shared memory as in gemm_square_smem, with 16-byte reads and stores.
#include "kernels/batched/square_common.cuh"

namespace myblas {
namespace square {

namespace {

// Blocks an SM holds at once, by the registers allowed a thread (65536 per SM): FP32 at N = 16
// fits 40 registers (6 blocks; 32 spills), binary16 32 (8 blocks); at N = 32 64 (4 blocks; the
// unbounded allocation, 74 registers for FP32, fits 3).
template <class T, int N>
constexpr int kMinBlocks = N == 16 ? (sizeof(T) == 2 ? 8 : 6) : 4;

// The block's shared memory.
// @tparam N  the product's size (m = n = k)
// @tparam P  products per block
template <int N, int P>
struct Tiles {
  float As[P][N][N + 4];  // (P) products' op(A) by rows of k: As[kk][i]; then alpha op(A) op(B) as [j][i]
  float Bs[P][N][N + 1];  // (P) products' op(B) by columns: Bs[j][kk]
};

// The chunks in ra (A) and rb (B) to shared memory, each operand transposed as op() asks.
template <class T, int N, int P, int K>
__device__ __forceinline__ void stage(Tiles<N, P>& sm, const T* const (&sa)[K], const T* const (&sb)[K],
                                      const uint4 (&ra)[K], const uint4 (&rb)[K], bool ta, bool tb) {
  using L = Chunks<T, N, P>;
#pragma unroll
  for (int u = 0; u < K; ++u) {
    if (!sa[u]) continue;
    const int p = L::product(u), r0 = L::row(u), c = L::col(u);
    Chunk<T> v;
    v.u = ra[u];
    if (!ta) {  // op(A)(r0 + e, c): along a row of As
#pragma unroll
      for (int e = 0; e < L::kVec; e += 4)
        *reinterpret_cast<float4*>(&sm.As[p][c][r0 + e]) =
            make_float4(to_f(v.t[e]), to_f(v.t[e + 1]), to_f(v.t[e + 2]), to_f(v.t[e + 3]));
    } else {  // op(A)(c, r0 + e)
#pragma unroll
      for (int e = 0; e < L::kVec; ++e) sm.As[p][r0 + e][c] = to_f(v.t[e]);
    }
  }
#pragma unroll
  for (int u = 0; u < K; ++u) {
    if (!sb[u]) continue;
    const int p = L::product(u), r0 = L::row(u), c = L::col(u);
    Chunk<T> v;
    v.u = rb[u];
#pragma unroll
    for (int e = 0; e < L::kVec; ++e) {
      if (!tb) sm.Bs[p][c][r0 + e] = to_f(v.t[e]);  // op(B)(r0 + e, c)
      else sm.Bs[p][r0 + e][c] = to_f(v.t[e]);      // op(B)(c, r0 + e)
    }
  }
}

// This thread's TM x TN block of alpha op(A) op(B) from the staged operands, written over As as
// [j][i] (the caller synchronises before and after).
template <int N, int TM, int TN, int P>
__device__ __forceinline__ void multiply(Tiles<N, P>& sm, float alpha) {
  constexpr int kPerProduct = (N / TM) * (N / TN);
  const int p = threadIdx.x / kPerProduct, t = threadIdx.x % kPerProduct;
  const int i0 = (t % (N / TM)) * TM, j0 = (t / (N / TM)) * TN;
  float acc[TM][TN] = {};  // (TM x TN) block of this thread's C
#pragma unroll 8
  for (int kk = 0; kk < N; ++kk) {
    const float4 a4 = *reinterpret_cast<const float4*>(&sm.As[p][kk][i0]);
    const float a[TM] = {a4.x, a4.y, a4.z, a4.w};  // (TM) rows i0.. of op(A)'s column kk
    float b[TN];                                   // (TN) columns j0.. of op(B)'s row kk
#pragma unroll
    for (int r = 0; r < TN; ++r) b[r] = sm.Bs[p][j0 + r][kk];
#pragma unroll
    for (int q = 0; q < TM; ++q)
#pragma unroll
      for (int r = 0; r < TN; ++r) acc[q][r] = fmaf(a[q], b[r], acc[q][r]);
  }
  __syncthreads();  // every product's A has been read
#pragma unroll
  for (int r = 0; r < TN; ++r)
    *reinterpret_cast<float4*>(&sm.As[p][j0 + r][i0]) =
        make_float4(alpha * acc[0][r], alpha * acc[1][r], alpha * acc[2][r], alpha * acc[3][r]);
}

// C := (the result in As) + beta C over this thread's chunks of C; rc holds C's chunks when
// read_c, loaded earlier.
template <class T, int N, int P, int K>
__device__ __forceinline__ void write_c(const Tiles<N, P>& sm, const Group& g, const T* const (&sc)[K],
                                        const uint4 (&rc)[K], bool read_c) {
  using L = Chunks<T, N, P>;
#pragma unroll
  for (int u = 0; u < K; ++u) {
    if (!sc[u]) continue;
    const int pp = L::product(u), r0 = L::row(u), c = L::col(u);
    float v[L::kVec];  // (kVec) rows r0.. of column c of alpha op(A) op(B)
#pragma unroll
    for (int e = 0; e < L::kVec; e += 4) {
      const float4 x = *reinterpret_cast<const float4*>(&sm.As[pp][c][r0 + e]);
      v[e] = x.x, v[e + 1] = x.y, v[e + 2] = x.z, v[e + 3] = x.w;
    }
    Chunk<T> out;
    if (read_c) {
      Chunk<T> old;
      old.u = rc[u];
#pragma unroll
      for (int e = 0; e < L::kVec; ++e) out.t[e] = from_f<T>(fmaf(g.beta, to_f(old.t[e]), v[e]));
    } else {
#pragma unroll
      for (int e = 0; e < L::kVec; ++e) out.t[e] = from_f<T>(v[e]);
    }
    T* dst = const_cast<T*>(sc[u]);
    if (g.vec_c) {
      *reinterpret_cast<uint4*>(dst) = out.u;
    } else {
#pragma unroll
      for (int e = 0; e < L::kVec; ++e) dst[e] = out.t[e];
    }
  }
}

// @tparam N  the product's size (m = n = k)
// @tparam TM rows of C per thread (4: one 16-byte shared-memory read of a), TN columns of C per thread
// @tparam P  products per block: P * (N/TM) * (N/TN) == kThreads
template <class T, int N, int TM, int TN, int P>
__global__ void __launch_bounds__(kThreads, kMinBlocks<T, N>) gemm_square_staged(const Args args) {
  using L = Chunks<T, N, P>;
  static_assert(TM == 4, "a thread's rows of A are one 16-byte shared-memory read");
  static_assert(N % TM == 0 && N % TN == 0, "the micro-tile must divide the product");
  static_assert(P * (N / TM) * (N / TN) == kThreads, "P products must occupy the block's threads exactly");
  static_assert(N % L::kVec == 0, "a 16-byte chunk must stay within one column");
  __shared__ __align__(16) Tiles<N, P> sm;

  const Group& g = block_group(args);
  const long long p0 = ((long long)blockIdx.x - g.first_block) * P;

  // Every load of A and B in flight before the first store to shared memory.
  const T* sa[L::kLoads];
  const T* sb[L::kLoads];
  uint4 ra[L::kLoads], rb[L::kLoads];  // (kLoads) 16-byte chunks of A, of B
  load_ab<T, N, P>(g, p0, sa, sb, ra, rb);
  stage<T, N, P>(sm, sa, sb, ra, rb, g.ta, g.tb);
  // C's loads (beta != 0) travel while the block multiplies; ra is free again.
  const T* sc[L::kLoads];
  chunk_addresses<T, N, P>(g, 2, p0, sc);
  const bool read_c = g.beta != 0.f;
  if (read_c) load_chunks<T, L::kLoads, false>(sc, g.vec_c, ra);
  __syncthreads();
  multiply<N, TM, TN, P>(sm, g.alpha);
  __syncthreads();
  write_c<T, N, P>(sm, g, sc, ra, read_c);
}

// The launch's block b (of any group): its group's index.
__device__ __forceinline__ int group_of(const Args& args, long long b) {
  int gi = 0;
  while (gi + 1 < args.groups && b >= args.g[gi + 1].first_block) ++gi;
  return gi;
}

// gemm_square_prefetch: as gemm_square_staged, but a grid of as many blocks as the device holds
// at once, each looping over the sets of P products (set b, b + gridDim.x, ...): the loads of its
// next set are issued before it multiplies the current one, so every block keeps one set of A
// and B in flight while it computes (the staged rung's blocks have nothing in flight between
// their loads' arrival and their end). C (beta != 0) is loaded when it is written.
// The next set's chunks and addresses stay in registers through the product: 64 registers at
// N = 16 (4 blocks an SM), 128 at N = 32 (2 blocks; FP32 spills a few bytes at both bounds).
// `sets`: the launch's sets of products (the blocks of gemm_square_staged).
template <class T, int N, int TM, int TN, int P>
__global__ void __launch_bounds__(kThreads, N == 16 ? 4 : 2) gemm_square_prefetch(const Args args, long long sets) {
  using L = Chunks<T, N, P>;
  static_assert(TM == 4, "a thread's rows of A are one 16-byte shared-memory read");
  static_assert(N % TM == 0 && N % TN == 0, "the micro-tile must divide the product");
  static_assert(P * (N / TM) * (N / TN) == kThreads, "P products must occupy the block's threads exactly");
  static_assert(N % L::kVec == 0, "a 16-byte chunk must stay within one column");
  __shared__ __align__(16) Tiles<N, P> sm;

  long long b = blockIdx.x;
  const T* sa[L::kLoads];
  const T* sb[L::kLoads];
  uint4 ra[L::kLoads], rb[L::kLoads];  // (kLoads) 16-byte chunks of A, of B: the next set's
  int gi = 0;
  if (b < sets) {
    gi = group_of(args, b);
    const Group& g = args.g[gi];
    const long long p0 = (b - g.first_block) * P;
    load_ab<T, N, P>(g, p0, sa, sb, ra, rb);
  }
  while (b < sets) {
    const Group& g = args.g[gi];
    const long long p0 = (b - g.first_block) * P;
    stage<T, N, P>(sm, sa, sb, ra, rb, g.ta, g.tb);
    // The next set's loads, in flight while this one is multiplied and written.
    const long long next = b + gridDim.x;
    int next_gi = gi;
    if (next < sets) {
      next_gi = group_of(args, next);
      const Group& h = args.g[next_gi];
      const long long q0 = (next - h.first_block) * P;
      load_ab<T, N, P>(h, q0, sa, sb, ra, rb);
    }
    __syncthreads();
    multiply<N, TM, TN, P>(sm, g.alpha);
    __syncthreads();
    const T* sc[L::kLoads];
    chunk_addresses<T, N, P>(g, 2, p0, sc);
    const bool read_c = g.beta != 0.f;
    uint4 rc[L::kLoads];  // (kLoads) 16-byte chunks of C (beta != 0)
    if (read_c) load_chunks<T, L::kLoads, false>(sc, g.vec_c, rc);
    write_c<T, N, P>(sm, g, sc, rc, read_c);
    __syncthreads();  // the results have been read: the next set may be staged
    b = next;
    gi = next_gi;
  }
}

}  // namespace

template <class T, int N>
cudaError_t run_staged(const BatchGroup* groups, const void* const* const* dev_lists, int count, cudaStream_t s) {
  using S = Shape<N>;
  return launch_groups<T, S::P>(gemm_square_staged<T, N, S::TM, S::TN, S::P>, groups, dev_lists, count, s);
}
template cudaError_t run_staged<float, 16>(const BatchGroup*, const void* const* const*, int, cudaStream_t);
template cudaError_t run_staged<float, 32>(const BatchGroup*, const void* const* const*, int, cudaStream_t);
template cudaError_t run_staged<__half, 16>(const BatchGroup*, const void* const* const*, int, cudaStream_t);
template cudaError_t run_staged<__half, 32>(const BatchGroup*, const void* const* const*, int, cudaStream_t);

template <class T, int N>
cudaError_t run_prefetch(const BatchGroup* groups, const void* const* const* dev_lists, int count, cudaStream_t s) {
  using S = Shape<N>;
  const auto kernel = gemm_square_prefetch<T, N, S::TM, S::TN, S::P>;
  // As many blocks as the device holds at once (cached per device).
  static int resident[64] = {};
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  if (dev < 0 || dev >= 64) return cudaErrorInvalidDevice;
  if (!resident[dev]) {
    int sms = 0, per_sm = 0;
    if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return e;
    if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0)) != cudaSuccess) return e;
    resident[dev] = sms * (per_sm > 0 ? per_sm : 1);
  }
  for (int first = 0; first < count; first += kMaxGroups) {
    Args args{};
    args.groups = count - first < kMaxGroups ? count - first : kMaxGroups;
    const long long sets = pack_groups<T>(groups, dev_lists, first, S::P, &args);
    if (sets == 0) continue;
    const long long blocks = sets < resident[dev] ? sets : resident[dev];
    kernel<<<unsigned(blocks), kThreads, 0, s>>>(args, sets);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  return cudaSuccess;
}
template cudaError_t run_prefetch<float, 16>(const BatchGroup*, const void* const* const*, int, cudaStream_t);
template cudaError_t run_prefetch<float, 32>(const BatchGroup*, const void* const* const*, int, cudaStream_t);
template cudaError_t run_prefetch<__half, 16>(const BatchGroup*, const void* const* const*, int, cudaStream_t);
template cudaError_t run_prefetch<__half, 32>(const BatchGroup*, const void* const* const*, int, cudaStream_t);

}  // namespace square
}  // namespace myblas
