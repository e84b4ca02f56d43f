// SGEMM at FP32 accuracy on the tensor cores: the 3xTF32 split (docs/sgemm-precision.md).
//
// Every FP32 x is written as x = big + small + d, with big = rn_tf32(x), small = rn_tf32(x - big)
// (x - big is exact in FP32) and |d| <= 2^-22 |x|. Then
//   a*b ~= big(a)*big(b) + big(a)*small(b) + small(a)*big(b),
// three products whose operands are exact TF32 values, so the tensor cores multiply them without
// rounding and accumulate in FP32. The split kernel here writes the operands of ONE TF32 product
// of depth 3k, A3 = [big(A) small(A) big(A)] and B3 = [big(B); big(B); small(B)] (concatenated
// along k), so that a single TF32 GEMM computes all three terms with one accumulation and one
// rounding of C. The same pass gathers the magnitude statistics that say whether the split is
// exact enough for this call (tf32x3_refuse); where it is not, the call runs in FP32.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace myblas {

// One operand as stored (column-major, rows x cols, leading dimension ld) and where its three
// parts go. The parts are written k-contiguous ("K-major"), the layout the TF32 tensor-core GEMM
// reads fastest in every transpose: dst is a 3k x mn matrix with leading dimension ldd >= 3k (mn:
// the operand's other extent; tf32x3_ld rounds it for the copy engine), part t in rows
// [t*k, (t+1)*k). k_in_cols: the product's k runs along
// the stored columns (A 'N', B 'T'; the split transposes through shared memory), else along the
// stored rows (A 'T', B 'N'). small_part: the index (0..2) of the part that holds small(x); the
// other two hold big(x).
// part_stride != 0 selects the two-part layout instead (the variant p64_ordered_2part reads it):
// big(x) as a k x mn matrix at dst and small(x) as another at dst + part_stride, both with
// leading dimension ldd >= k; the product reads big(x) twice instead of the split writing it
// twice (small_part is then unused). tf32x3_operand_layout sets ldd and part_stride per variant.
struct Tf32x3Operand {
  const float* src = nullptr;
  int64_t ld = 1;
  int rows = 0, cols = 0;
  bool k_in_cols = true;
  int small_part = 1;
  float* dst = nullptr;
  int64_t ldd = 1;
  int64_t part_stride = 0;
};

// The leading dimension of the split operands for depth k: 3k rounded up to a multiple of 4, so
// that their rows are 16-byte aligned (the tensor memory accelerator's rule).
inline int64_t tf32x3_ld(int k) { return (3 * int64_t(k) + 3) / 4 * 4; }

// Magnitudes seen by the split, [0] for A and [1] for B, as IEEE bit patterns of |x| (ordered
// like the values for non-negative floats): the largest |x| (>= 0x7f800000: an Inf or NaN), and
// the bitwise complement of the smallest nonzero |x| (0: no nonzero value). Zero-initialised
// before the split (cudaMemsetAsync): both are gathered with atomicMax.
struct Tf32x3Stats {
  unsigned max_abs_bits[2];
  unsigned not_min_abs_bits[2];
};

// Splits both operands in one launch and gathers their statistics into *stats (device memory,
// zeroed by the caller on the same stream). A3 = dst of A (3k x m) and B3 = dst of B (3k x n) are
// then the operands of one product C = A3^T B3 ('T', 'N') of depth 3k.
cudaError_t tf32x3_split(const Tf32x3Operand& a, const Tf32x3Operand& b, Tf32x3Stats* stats, cudaStream_t s);

// Why the split of operands with these statistics cannot give FP32's answer for a product of
// depth k (nullptr: it can). Refused: an Inf or NaN (FP32's propagation must be kept exactly);
// a |x| so large that rn_tf32 could round it to Inf, or max|A| max|B| 3k near FP32's overflow
// (where FP32 and the split would overflow differently); a nonzero |x| below 2^-103, or
// min|A| min|B| below 2^-103 (a remainder or a correction product would be subnormal, which the
// split cannot represent exactly).
const char* tf32x3_refuse(const Tf32x3Stats& stats, int k);

// The product of the split operands on our own kernel: C := alpha * A3^T B3 + beta * C, A3 k3 x m
// and B3 k3 x n (k3 = 3k), k-contiguous with leading dimension ld3 (for p64_ordered_2part: a3 and
// b3 in the two-part layout, ld3 = tf32x3_operand_ld), C m x n with ldc; beta == 0
// never reads C. wgmma (sm_90a) fed by the tensor memory accelerator, and, unlike the cuBLAS TF32
// product, its partial sums leave the tensor cores' accumulators every 32 terms for FP32 registers
// (round-to-nearest adds): the tensor cores' own FP32 accumulation over thousands of terms made
// the error grow with k to 20-50x FP32 SGEMM's (docs/sgemm-precision.md).
// tf32x3_wgmma_can_implement: nullptr when it can run the product here, else why not (A3 and B3
// must also be 16-byte aligned, as the split's scratch always is; the product refuses others with
// cudaErrorInvalidValue before launching anything).
const char* tf32x3_wgmma_can_implement(int64_t ld3);

// The product kernel's variants. All multiply the same split operands on 128 x 192 tiles of C with
// the same wgmma instructions per 32 terms; they differ in how often the sums are promoted and in
// what keeps the tensor cores busy while a consumer warpgroup promotes:
//   p32          promotes every 32 terms (one 4-stage ring stage) after waiting for its wgmmas;
//   p64          promotes every 64 terms (two stages of a 5-stage ring): half the waits;
//   *_ordered    the two consumer warpgroups issue their wgmmas in turn (named barriers), so that
//                one promotes while the tensor cores run the other's;
//   *_halves     each consumer keeps its 64 x 192 sums as two 64 x 96 halves with their own
//                accumulators: it promotes one half while the other half's wgmmas run
//                (wgmma.wait_group 1), the same register count as one 64 x 192 accumulator.
// p32, p32_ordered and p32_halves do the same arithmetic in the same order (the tensor cores sum
// each 32 terms, FP32 adds the rest); the p64 variants let the tensor cores sum 64 terms, which kept
// FP32-level error when emulated through cuBLAS (composed_chunk64 in bench/results/h100-sgemm-tf32x3-*).
// p64_ordered_2part is p64_ordered on the two-part layout (Tf32x3Operand::part_stride): the split
// writes 2k instead of 3k values per row and column (at 4096^3 268 MB instead of 403), and the
// producer loads big(A) or small(A), big(B) or small(B) per k-block from the parts; each part's
// k-blocks are padded to 32 terms (zeros from the copy engine), so for k a multiple of 32 it
// computes p64_ordered's sums bitwise.
// p64_ordered_fused reads A and B as stored, with no split pass: the copy engine loads 32-deep
// FP32 blocks of both into shared memory, the producer warpgroup splits each element there into
// the big and small TF32 tiles the wgmmas read (transposing the operands that arrive with m or n
// contiguous into the K-major layout TF32 wgmma needs) and gathers the split's statistics, and
// each block feeds three product k-blocks, big(A) big(B), small(A) big(B), big(A) small(B),
// promoted every 64 terms with the consumers taking turns as p64_ordered. It takes the operands,
// not a split (tf32x3_fused_product; tf32x3_wgmma_product refuses it). It loads a block once the
// previous one has been split; p64_ordered_fused_ahead keeps two raw blocks of A and loads the
// next block of A and B while splitting this block's A, so that the loads' latency hides behind
// the split (the same arithmetic: the same bits).
// p64_ordered_pair is p64_ordered run by clusters of two blocks that take neighbouring tiles of
// the same rows of C: each block loads half of the A3 tile the two share and the copy engine
// multicasts it into both, so a block reads 28 KiB a stage from L2 instead of 40. The same
// arithmetic as p64_ordered: its bits, for the same plan of work (tf32x3_splitk_choose plans its
// pairs of tiles as one). Measured 4-5% slower than p64_ordered on the H200 (L2 is not what
// limits the product): kept for measurement, not the default.
enum class Tf32x3Kernel : int { p32, p32_ordered, p32_halves, p64, p64_ordered, p64_halves, p64_ordered_2part,
                                p64_ordered_fused, p64_ordered_fused_ahead, p64_ordered_pair };
constexpr int kTf32x3Kernels = 10;
inline bool tf32x3_kernel_two_parts(Tf32x3Kernel kernel) { return kernel == Tf32x3Kernel::p64_ordered_2part; }
inline bool tf32x3_kernel_fused(Tf32x3Kernel kernel) {
  return kernel == Tf32x3Kernel::p64_ordered_fused || kernel == Tf32x3Kernel::p64_ordered_fused_ahead;
}
// The split operands' leading dimension for a variant and depth k (tf32x3_ld, or k rounded up to
// a multiple of 4 for the two-part layout), the floats one operand of other extent mn takes, and
// the layout fields of an operand (ldd, part_stride; small_part as the three-part layout needs it
// is the caller's: 1 for A, 2 for B).
inline int64_t tf32x3_operand_ld(Tf32x3Kernel kernel, int k) {
  return tf32x3_kernel_two_parts(kernel) ? (int64_t(k) + 3) / 4 * 4 : tf32x3_ld(k);
}
inline int64_t tf32x3_operand_floats(Tf32x3Kernel kernel, int k, int mn) {
  return tf32x3_operand_ld(kernel, k) * int64_t(mn) * (tf32x3_kernel_two_parts(kernel) ? 2 : 1);
}
inline void tf32x3_operand_layout(Tf32x3Kernel kernel, int k, int mn, Tf32x3Operand* o) {
  o->ldd = tf32x3_operand_ld(kernel, k);
  o->part_stride = tf32x3_kernel_two_parts(kernel) ? o->ldd * int64_t(mn) : 0;
}
const char* tf32x3_kernel_name(Tf32x3Kernel kernel);   // "p32", "p32-ordered", ...
bool tf32x3_kernel_parse(const char* name, Tf32x3Kernel* kernel);  // false (kernel untouched): unknown name
int tf32x3_kernel_promote_terms(Tf32x3Kernel kernel);  // 32 or 64
// The variant the mode runs: MYBLAS_SGEMM_TF32X3_KERNEL (a name above, read once), else
// kTf32x3DefaultKernel. *unknown is set to the variable's value when it names no variant (the
// default runs). The default is p64_ordered, the fastest variant measured (H200: its mode 1.77-1.93x
// cublasSgemm at 4096^3 in the four transposes against p32's 1.66-1.80x, 1.93x at 8192^3 as p32;
// bench/results/h200-sgemm-tf32x3-variants-2026-11-28/), with the p64 variants' error (2 of 21
// accuracy cases over twice FP32's against p32's 3).
constexpr Tf32x3Kernel kTf32x3DefaultKernel = Tf32x3Kernel::p64_ordered;
Tf32x3Kernel tf32x3_kernel_from_env(std::string* unknown);

// Split-K: the product's tiles (192 rows by 128 columns of C) run as work units of a persistent
// grid; a plan divides some of them into k-slices, each its own unit, where whole tiles alone
// would leave multiprocessors idle: every tile (48 tiles at 1024^2 on 132 SMs), or, from one wave
// of tiles up, only the last, partial wave's (704 at 4096^2: 660 whole, 44 in 3 slices),
// whichever fills the waves better (tf32x3_schedule::split_plan). The
// first `whole` tiles of the persistent order run whole and write C; each of the others is
// divided into `splits` slices whose FP32 sums go to their own 192 x 128 slot of `work`, and one
// last pass adds a tile's slices in order and applies alpha and beta (deterministic).
// splits == 1 divides nothing (whole is then ignored); an int s converts to {s, 0}: every tile
// divided in s. tf32x3_splitk_choose: the plan for this shape and variant on `sms` multiprocessors;
// tf32x3_splitk_work_floats: the floats `work` needs (16-byte aligned).
struct Tf32x3Split {
  int splits = 1;  // k-slices of each divided tile
  int whole = 0;   // tiles run whole before the divided ones
  Tf32x3Split(int s = 1, int w = 0) : splits(s), whole(w) {}  // NOLINT: an int is "every tile in s"
};
// For p64_ordered_pair a plan's tiles are pairs of tiles (192 x 256 of C), and the plan is made
// for the clusters the device holds at once instead of `sms`.
Tf32x3Split tf32x3_splitk_choose(int m, int n, int k3, int sms, Tf32x3Kernel kernel);
size_t tf32x3_splitk_work_floats(int m, int n, Tf32x3Split plan, Tf32x3Kernel kernel);
// The fused variants' scratch for splits slices of every tile (their sums wait for the verdict).
size_t tf32x3_fused_work_floats(int m, int n, int splits);

// device_stats (optional): the split's statistics in device memory, checked by the product itself
// with tf32x3_refuse's rule before it touches C (a refused call writes nothing), so that the
// product can be queued before the host has read them (k3 must then be 3k).
// A fused variant (p64_ordered_fused, p64_ordered_fused_ahead) on the operands as stored: C := alpha op(A) op(B) + beta C,
// op(A) m x k, op(B) k x n, A and B column-major with lda and ldb; a_k_in_cols: k runs along A's
// stored columns (A 'N'), b_k_in_cols: along B's (B 'T'). It gathers the statistics of the split
// into *stats (device memory, zeroed by the caller on the same stream, as for tf32x3_split), which
// are complete only at its end: every unit of work writes its sums to `work`
// (tf32x3_fused_work_floats; splits >= 1) and a last pass adds the slices and applies alpha and
// beta unless tf32x3_refuse's rule refuses those statistics, in which case C is left untouched
// (the caller reads *stats and runs the FP32 path). Except with beta == 0 and splits == 1, where
// C's old values are no input: the product writes C directly (work may be null), and where the
// statistics refuse, C holds no result and the caller's FP32 path overwrites all of it. tf32x3_fused_can_implement: nullptr when the operands can be read so
// (the copy engine needs A and B 16-byte aligned with lda and ldb multiples of 4), else why
// not; those calls keep the split pass (tf32x3_split and tf32x3_wgmma_product).
const char* tf32x3_fused_can_implement(uintptr_t a, int64_t lda, uintptr_t b, int64_t ldb);
cudaError_t tf32x3_fused_product(int m, int n, int k, float alpha, const float* a, int64_t lda, bool a_k_in_cols,
                                 const float* b, int64_t ldb, bool b_k_in_cols, float beta, float* c, int64_t ldc,
                                 cudaStream_t s, int splits, float* work, Tf32x3Stats* stats,
                                 Tf32x3Kernel kernel = Tf32x3Kernel::p64_ordered_fused);
cudaError_t tf32x3_wgmma_product(int m, int n, int k3, float alpha, const float* a3, const float* b3, int64_t ld3,
                                 float beta, float* c, int64_t ldc, cudaStream_t s,
                                 Tf32x3Kernel kernel = kTf32x3DefaultKernel, Tf32x3Split plan = {}, float* work = nullptr,
                                 const Tf32x3Stats* device_stats = nullptr);

}  // namespace myblas
