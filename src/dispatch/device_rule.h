// Which path a device-operand SGEMV, SGEMM or HGEMM call takes: one of our kernels, or cuBLAS.
//
// The measured table (dispatch/table.h) holds a few benchmarked shapes per routine and
// transposes. A kernel's speed relative to cuBLAS changes between those shapes (tile
// quantisation, the number of waves, split choices), so a kernel is taken for a shape off the
// table's rows only where the evidence brackets the shape:
//   - a row at the shape itself decides (its path, its kernel);
//   - else two rows of the same kernel, `lo` and `hi`, with lo <= shape <= hi in every dimension
//     (m, n, and k for GEMM), at most `max_span_log2` apart in each, both faster than cuBLAS by at
//     least `margin`, and every other row inside the box [lo, hi] the same kernel by the same
//     margin, take that kernel;
//   - everything else runs on cuBLAS.
// Only rows of the call's own transposes and beta kind (beta == 0, or not; rows for any beta
// count for both) are evidence. Whether the kernel can run the call (its can_implement) is still
// asked by dispatch, and has the last word.
#pragma once
#include "dispatch/table.h"

namespace myblas {

// The rule's parameters per routine: one row each for the routines with kernels of ours.
struct BracketRule {
  Routine routine;
  float margin;         // a bracketing row's ratio t_cublas / t_kernel is at least this
  float max_span_log2;  // lo and hi at most 2^this apart in each dimension
};

// The rows: a kernel must measure 5% faster than cuBLAS on both sides (the quality target is
// "within 5% of the fastest path", so a smaller measured gain is not worth the risk between
// rows), and the two rows may be at most 8x apart in any dimension.
inline constexpr BracketRule kBracketRules[] = {
    {Routine::sgemv, 1.05f, 3.f},
    {Routine::sgemm, 1.05f, 3.f},
    {Routine::hgemm, 1.05f, 3.f},
};

// The evidence for one call. `row`: the table row that decided, or nullptr where no row of the
// call's transposes and beta kind is at or around the shape (then cuBLAS). `hi`: the upper
// corner of the bracket (nullptr for a row at the shape itself). `kernel` says whether a kernel
// of ours is taken: then it is row->kernel.
struct DeviceEvidence {
  const TableEntry* row = nullptr;
  const TableEntry* hi = nullptr;
  bool kernel = false;
};

// The rule for a device-operand call of `r` (sgemv: k = 0, tb ignored). Pure: reads only the table.
DeviceEvidence device_evidence(const DispatchTable& t, Routine r, Op ta, Op tb, int m, int n, int k, bool beta_zero);

// device_evidence for the library's tables (they live as long as the process), remembering the
// calling thread's last few shapes: programs repeat shapes, and the rule scans the group's rows.
DeviceEvidence device_evidence_cached(const DispatchTable& t, Routine r, Op ta, Op tb, int m, int n, int k,
                                      bool beta_zero);

// The rule's row for routine r (nullptr for a routine without kernels).
const BracketRule* bracket_rule(Routine r);

}  // namespace myblas
