// The rules for batches of GEMMs (dispatch.cpp, backends/cuda/cublas_batch.cpp): when host arrays
// go to the GPU, and which device-operand groups our batched square kernel takes. Pure functions
// of the batch's shapes and form, so that the CPU tests check them.
#pragma once
#include "core/batch.h"

namespace myblas {

// Host arrays go to the GPU when the batch is big enough to pay for starting the transfers and
// does enough arithmetic per byte moved that the GPU, running at the speed of the host link,
// finishes before the CPU. Break-even: the CPU's batch rate divided by the GPU path's. Measured on
// the H100's 16-core host (bench_batched --host, 10^4 FP32 products, every size under the CPU and
// the GPU path; bench/results/h100-batched-host-2026-11-28-run2.txt, -run3.txt, -run6.txt): the CPU path
// ran 0.11-0.19 TFLOP/s; the GPU path moved 26 GB/s for strided batches but gathers pointer-array
// batches product by product on the host, 3.4x slower at 16^3. Strided: the GPU was faster from
// 8^3 on (1 flop a byte: 2.5 ms against 4.2 for a loop of OpenBLAS calls), so 1 flop a byte;
// pointer arrays: the CPU was faster at 16^3 to 48^3 and the GPU at 64^3 (1.1-1.2x), so 8 (n / 8
// for square FP32 products with beta != 0). FP64 at half the FP32 values
// (the CPU's FP64 rate taken as half its FP32 rate; not measured). binary16 has no CPU BLAS
// routine (the CPU path widens to FP32 and back), so only the size test applies.
// From 6 MB moved: 10^4 FP32 products of 8^3 with beta 0 (7.7 MB) took 2.2 ms on the GPU path
// against 1.8-4.0 for a loop of OpenBLAS calls and 4.9 for the CPU path
// (bench/results/h100-batched-host-2026-11-28-run6.txt).
constexpr double kBatchHostGpuMinBytes = 6e6;
inline double batch_host_gpu_flops_per_byte(Dtype t, bool pointer_arrays) {
  const double fp32 = pointer_arrays ? 8 : 1;
  switch (t) {
    case Dtype::s: case Dtype::c: return fp32;
    case Dtype::d: case Dtype::z: return fp32 / 2;
    case Dtype::h: return 0;
  }
  return 1e30;
}

// Pointer arrays that step evenly (BatchGroup::stepped) run as a strided group and count as one:
// dispatch locates them with one look at the process's mappings (dispatch/host_mapping.h), and the
// GPU path then ran them as fast as the strided form (3.0-4.2 ms against 11.1-16.1 on the CPU path
// at 16^3-32^3: run 6). Located product by product (a driver query each, about 1 us), they had been
// slower on the GPU than on the CPU at 24^3-48^3 (run 3).
// What a batch of GEMMs on host arrays costs: its arithmetic, the bytes the GPU path moves over
// the host link (A and B once per product, or once for a stride of 0; C down, and up too when beta
// reads it), and whether pointer arrays (not stepping evenly) give its products.
struct BatchHostCost {
  double flops = 0, bytes = 0;
  double products = 0;
  bool pointer_arrays = false;
};
inline BatchHostCost batch_host_cost(const BatchProblem& p) {
  BatchHostCost c;
  const double es = double(p.elem_size());
  const double flop_per_mac = is_complex(p.type) ? 8 : 2;
  for (const BatchGroup& g : p.groups) {
    if (g.scale_only(p.family)) continue;
    c.pointer_arrays = c.pointer_arrays || g.listed();
    const double n = double(g.count);
    c.products += n;
    c.flops += n * flop_per_mac * double(g.m) * double(g.n) * double(g.k);
    const double a = g.listed() || g.stride_a ? n : 1, b = g.listed() || g.stride_b ? n : 1;
    c.bytes += es * (a * double(g.m) * double(g.k) + b * double(g.k) * double(g.n) +
                     n * double(g.m) * double(g.n) * (g.beta.zero() ? 1 : 2));
  }
  return c;
}

inline bool batch_host_gpu_wins(const BatchProblem& p, const BatchHostCost& c) {
  if (p.family != Family::gemm) return false;  // GEMV reads every byte once: the host link never wins
  return c.bytes >= kBatchHostGpuMinBytes &&
         c.flops >= batch_host_gpu_flops_per_byte(p.type, c.pointer_arrays) * c.bytes;
}
inline bool batch_host_gpu_wins(const BatchProblem& p) { return batch_host_gpu_wins(p, batch_host_cost(p)); }

// The break-even above is the H100 host's; another host's CPU can be several times faster or
// slower (an H200 host's CPU path ran 10^4 FP32 products of 64^3 at 0.83 TFLOP/s, the H100 host's
// at 0.11-0.19, so there the CPU won at every n <= 64: bench/results/h200-batched-host-sd-
// 2026-11-28.txt). So in auto mode each process also measures the two paths on its own calls: per
// class of batch (type, pointer arrays or not, and the products' size, flops a product in powers
// of two), the CPU path's best seconds per flop and the GPU path's best seconds per byte. With both
// measured the faster predicted path runs; with one measured, the next call of the class tries the
// other once; with none, the rule above. Batches under the minimum size stay on the CPU unmeasured.
struct BatchHostRates {
  double cpu_s_per_flop = 0;  // 0: not measured yet
  double gpu_s_per_byte = 0;
};
constexpr int kBatchHostSizeClasses = 48;
// The class of a batch: 0 .. 4 * 2 * kBatchHostSizeClasses - 1.
inline int batch_host_class(Dtype t, const BatchHostCost& c) {
  const int type = t == Dtype::s ? 0 : t == Dtype::d ? 1 : t == Dtype::c ? 2 : 3;  // (h shares z's: no CPU rate)
  int size = 0;
  for (double f = c.products > 0 ? c.flops / c.products : 0; f >= 2 && size < kBatchHostSizeClasses - 1; f /= 2) ++size;
  return (type * 2 + (c.pointer_arrays ? 1 : 0)) * kBatchHostSizeClasses + size;
}
// Whether the choice between the paths weighs this batch by measured rates (and its time counts
// as a measurement): GEMM of at least the minimum size with arithmetic, not binary16 (which has no
// CPU BLAS routine: the rule alone, the GPU above the minimum).
inline bool batch_host_weighed(const BatchProblem& p, const BatchHostCost& c) {
  return p.family == Family::gemm && p.type != Dtype::h && c.bytes >= kBatchHostGpuMinBytes && c.flops > 0;
}
// Whether the GPU path takes this batch, from the measured rates of its class where there are
// some (*explore: the path was chosen to measure it, not because it is faster).
inline bool batch_host_gpu_choose(const BatchProblem& p, const BatchHostCost& c, const BatchHostRates& r,
                                  bool* explore) {
  *explore = false;
  if (!batch_host_weighed(p, c)) return batch_host_gpu_wins(p, c);
  const bool cpu_known = r.cpu_s_per_flop > 0, gpu_known = r.gpu_s_per_byte > 0;
  if (cpu_known && gpu_known) return c.bytes * r.gpu_s_per_byte < c.flops * r.cpu_s_per_flop;
  if (cpu_known != gpu_known) {
    *explore = true;
    return cpu_known;  // the one not yet measured
  }
  return batch_host_gpu_wins(p, c);
}

// Device operands: the groups our batched square kernel can run (kernels/batched.h: S and H,
// m = n = k = 16 or 32) go to the rung this table names, where that rung measured faster than
// cuBLAS's strided-batched call in the same process (bench_batched --device: the kernel rows and
// the myblas rows beside the raw cuBLAS call); to cuBLAS where the entry has no rung.
// MYBLAS_BACKEND=kernels takes our kernel at every size it can run: the entry's rung, else the
// best rung (kSquareForcedKernel).
// Measured on the H200 (bench/results/h200-batched-small-2026-11-28.md, every rung called directly
// beside cublas<T>gemmStridedBatched, three processes): S 16: gemm_square_staged 3.07-3.11x cuBLAS
// (gemm_square_prefetch 2.73-2.78x, gemm_square_smem 1.69-1.72x); S 32: staged 1.06-1.08x (prefetch
// 0.95-0.97x, smem 0.48x); H 16: hgemm_square_mma 7.30-7.34x (staged 4.52-4.54x); H 32:
// hgemm_square_mma 1.70-1.72x (staged 1.11x).
struct SquareChoice {
  Dtype type;
  int64_t n;
  bool ours;            // false: cuBLAS
  SquareKernel kernel;  // the rung, where ours
};
inline constexpr SquareChoice kSquareChoices[] = {
    {Dtype::s, 16, true, SquareKernel::staged},
    {Dtype::s, 32, true, SquareKernel::staged},
    {Dtype::h, 16, true, SquareKernel::mma},
    {Dtype::h, 32, true, SquareKernel::mma},
};
inline constexpr SquareKernel kSquareForcedKernel = SquareKernel::staged;

// The entry for (type, n), or nullptr (no entry: cuBLAS).
inline const SquareChoice* batch_square_choice(Dtype t, int64_t n) {
  for (const SquareChoice& c : kSquareChoices)
    if (c.type == t && c.n == n) return &c;
  return nullptr;
}
// Whether our square kernel takes a group of (type, n) that it can run, and with which rung.
inline bool batch_square_takes(Dtype t, int64_t n, bool forced, SquareKernel* kernel) {
  const SquareChoice* c = batch_square_choice(t, n);
  if (c && c->ours) {
    *kernel = c->kernel;
    return true;
  }
  *kernel = kSquareForcedKernel;
  return forced;
}

}  // namespace myblas
