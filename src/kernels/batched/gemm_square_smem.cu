// gemm_square_smem: many small square products (m = n = k = N, N = 16 or 32) in one launch, for
// FP32 and binary16 storage (FP32 accumulation, one rounding of the result).
//
// Why: at N <= 32 a product moves 3 N^2 elements for 2 N^3 flops, so the batch runs at the speed
// of memory. Each block of 256 threads takes P products of one group: their A and B go from
// global memory to shared memory in 16-byte loads (4 floats or 8 halves; element loads where a
// leading dimension, stride or pointer does not allow them), every thread computes a TM x TN
// micro-tile of one product from shared memory (the micro-tile keeps shared-memory traffic within
// a few times the global traffic, so shared memory does not become the limit), then the block
// writes its C tiles back through shared memory with 16-byte stores, reading C only when
// beta != 0. Several groups of the same N share the launch (blocks are numbered group after group).
//
// The first rung: a thread's loop loads one 16-byte chunk and stores it to shared memory before
// it loads the next (a trip count that varies with the group's count, ended by a break), so each
// thread has one load in flight at a time. gemm_square_staged.cu issues all of them first.
#include "kernels/batched/square_common.cuh"

namespace myblas {
namespace square {

namespace {

// P products' stored A (which = 0) or B (1) into S[p][col][row], as stored (not transposed).
template <class T, int N, int P>
__device__ __forceinline__ void load_tiles(const Group& g, int which, long long p0, float (*S)[N][N + 1]) {
  constexpr int kVec = 16 / int(sizeof(T));  // elements per 16-byte load
  constexpr int kChunks = N * N / kVec;     // per matrix (a chunk stays within one column: N % kVec == 0)
  const bool vec = which == 0 ? g.vec_a : g.vec_b;
  const long long ld = which == 0 ? g.lda : g.ldb;
  for (int q = threadIdx.x; q < P * kChunks; q += kThreads) {
    const int p = q / kChunks, w = q % kChunks;
    const long long item = p0 + p;
    if (item >= g.count) break;  // (q grows with p)
    const T* base = operand<T>(g, which, item);
    const int e0 = w * kVec, r0 = e0 % N, c = e0 / N;
    const T* src = base + c * ld + r0;
    if (vec) {
      union {
        uint4 u;
        T t[kVec];
      } v;
      v.u = __ldg(reinterpret_cast<const uint4*>(src));
#pragma unroll
      for (int u = 0; u < kVec; ++u) S[p][c][r0 + u] = to_f(v.t[u]);
    } else {
#pragma unroll
      for (int u = 0; u < kVec; ++u) S[p][c][r0 + u] = to_f(src[u]);
    }
  }
}

// @tparam N  the product's size (m = n = k)
// @tparam TM rows of C per thread, TN columns of C per thread
// @tparam P  products per block: P * (N/TM) * (N/TN) == kThreads
template <class T, int N, int TM, int TN, int P>
__global__ void __launch_bounds__(kThreads) gemm_square_smem(const Args args) {
  static_assert(N % TM == 0 && N % TN == 0, "the micro-tile must divide the product");
  static_assert(P * (N / TM) * (N / TN) == kThreads, "P products must occupy the block's threads exactly");
  static_assert(N % (16 / sizeof(T)) == 0, "a 16-byte chunk must stay within one column");
  __shared__ float As[P][N][N + 1];  // (P) products' A as stored: [col][row], padded against bank conflicts
  __shared__ float Bs[P][N][N + 1];  // (P) products' B as stored

  const Group& g = block_group(args);
  const long long p0 = ((long long)blockIdx.x - g.first_block) * P;

  load_tiles<T, N, P>(g, 0, p0, As);
  load_tiles<T, N, P>(g, 1, p0, Bs);
  __syncthreads();

  constexpr int kPerProduct = (N / TM) * (N / TN);
  const int p = threadIdx.x / kPerProduct, t = threadIdx.x % kPerProduct;
  const int i0 = (t % (N / TM)) * TM, j0 = (t / (N / TM)) * TN;
  float acc[TM][TN] = {};  // (TM x TN) block of this thread's C
  const bool ta = g.ta, tb = g.tb;
#pragma unroll 4
  for (int kk = 0; kk < N; ++kk) {
    float a[TM], b[TN];
#pragma unroll
    for (int q = 0; q < TM; ++q) a[q] = ta ? As[p][i0 + q][kk] : As[p][kk][i0 + q];
#pragma unroll
    for (int r = 0; r < TN; ++r) b[r] = tb ? Bs[p][kk][j0 + r] : Bs[p][j0 + r][kk];
#pragma unroll
    for (int q = 0; q < TM; ++q)
#pragma unroll
      for (int r = 0; r < TN; ++r) acc[q][r] = fmaf(a[q], b[r], acc[q][r]);
  }
  __syncthreads();  // every product's A has been read: As now holds alpha * op(A) op(B), [col][row]
#pragma unroll
  for (int q = 0; q < TM; ++q)
#pragma unroll
    for (int r = 0; r < TN; ++r) As[p][j0 + r][i0 + q] = g.alpha * acc[q][r];
  __syncthreads();

  constexpr int kVec = 16 / int(sizeof(T));
  constexpr int kChunks = N * N / kVec;
  const bool read_c = g.beta != 0.f;
  for (int q = threadIdx.x; q < P * kChunks; q += kThreads) {
    const int pp = q / kChunks, w = q % kChunks;
    const long long item = p0 + pp;
    if (item >= g.count) break;
    const int e0 = w * kVec, r0 = e0 % N, c = e0 / N;
    T* dst = output<T>(g, item) + c * g.ldc + r0;
    union {
      uint4 u;
      T t[kVec];
    } v;
    if (read_c) {
      if (g.vec_c) {
        v.u = *reinterpret_cast<const uint4*>(dst);
      } else {
#pragma unroll
        for (int u = 0; u < kVec; ++u) v.t[u] = dst[u];
      }
#pragma unroll
      for (int u = 0; u < kVec; ++u) v.t[u] = from_f<T>(fmaf(g.beta, to_f(v.t[u]), As[pp][c][r0 + u]));
    } else {
#pragma unroll
      for (int u = 0; u < kVec; ++u) v.t[u] = from_f<T>(As[pp][c][r0 + u]);
    }
    if (g.vec_c) {
      *reinterpret_cast<uint4*>(dst) = v.u;
    } else {
#pragma unroll
      for (int u = 0; u < kVec; ++u) dst[u] = v.t[u];
    }
  }
}

}  // namespace

template <class T, int N>
cudaError_t run_smem(const BatchGroup* groups, const void* const* const* dev_lists, int count, cudaStream_t s) {
  using S = Shape<N>;
  return launch_groups<T, S::P>(gemm_square_smem<T, N, S::TM, S::TN, S::P>, groups, dev_lists, count, s);
}
template cudaError_t run_smem<float, 16>(const BatchGroup*, const void* const* const*, int, cudaStream_t);
template cudaError_t run_smem<float, 32>(const BatchGroup*, const void* const* const*, int, cudaStream_t);
template cudaError_t run_smem<__half, 16>(const BatchGroup*, const void* const* const*, int, cudaStream_t);
template cudaError_t run_smem<__half, 32>(const BatchGroup*, const void* const* const*, int, cudaStream_t);

}  // namespace square

const char* batched_square_can_implement(Dtype type, const BatchGroup& g) {
  if (type != Dtype::s && type != Dtype::h) return "only FP32 and binary16 products";
  if (g.m != g.n || g.n != g.k) return "not square (m, n and k differ)";
  if (g.n != 16 && g.n != 32) return "size other than 16 or 32";
  if ((g.ta != 'N' && g.ta != 'T') || (g.tb != 'N' && g.tb != 'T')) return "conjugate transposes";
  if (g.alpha.zero()) return "alpha == 0 (a scaling of C)";
  return nullptr;
}

cudaError_t batched_square_run(Dtype type, const BatchGroup* groups, const void* const* const* dev_lists,
                               int group_count, cudaStream_t s, SquareKernel kernel) {
  if (group_count <= 0) return cudaSuccess;
  const int64_t n = groups[0].n;
  for (int i = 1; i < group_count; ++i)
    if (groups[i].n != n) return cudaErrorInvalidValue;
  using namespace square;
  if (type == Dtype::h && kernel == SquareKernel::mma)
    return (n == 16 ? run_mma_h<16> : run_mma_h<32>)(groups, dev_lists, group_count, s);
  if (kernel == SquareKernel::prefetch) {
    if (type == Dtype::s) return (n == 16 ? run_prefetch<float, 16> : run_prefetch<float, 32>)(groups, dev_lists, group_count, s);
    return (n == 16 ? run_prefetch<__half, 16> : run_prefetch<__half, 32>)(groups, dev_lists, group_count, s);
  }
  const bool staged = kernel != SquareKernel::smem;
  if (type == Dtype::s) {
    if (n == 16) return (staged ? run_staged<float, 16> : run_smem<float, 16>)(groups, dev_lists, group_count, s);
    return (staged ? run_staged<float, 32> : run_smem<float, 32>)(groups, dev_lists, group_count, s);
  }
  if (n == 16) return (staged ? run_staged<__half, 16> : run_smem<__half, 16>)(groups, dev_lists, group_count, s);
  return (staged ? run_staged<__half, 32> : run_smem<__half, 32>)(groups, dev_lists, group_count, s);
}

}  // namespace myblas
