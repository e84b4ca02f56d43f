// The measured dispatch table: for each routine, transposes, operand memory and benchmarked
// shape, the path that measured fastest on one GPU. It is a data file that libmyblas reads at
// first use (data/dispatch-sm_XY.csv, written by bench/make_dispatch_table.py); a host-array call
// takes the entry of the nearest benchmarked shape, a device-operand call the rows that bracket
// its shape (dispatch/device_rule.h). This part only parses and looks up (no logging, no
// CUDA), so the tests can drive it directly; dispatch/table_source.* picks the file.
//
// Format: text, one row per line; lines starting with '#' and blank lines are ignored; the
// first other line is the header, exactly
//   routine,trans,mem,m,n,k,beta,path,kernel,time_us,ratio
// and each row after it has these eleven fields:
//   routine  sgemm | sgemv | hgemm, or any other routine myblas serves (dgemm, zherk, ctrsm, ...)
//   trans    sgemv: N | T;  sgemm, hgemm: NN | NT | TN | TT (op(A), op(B)); other routines: *
//            (their rows hold every option)
//   mem      host (every operand in host memory) | device (device pointers)
//   m, n, k  the benchmarked shape, decimal; k is 0 for gemv, >= 1 otherwise (the routines
//            without a k repeat m or n there); m, n >= 1
//   beta     the calls the row is for: 0 (beta == 0), 1 (beta != 0) or * (any). A call looks
//            only at the rows of its kind and the * rows (HGEMM's cuBLAS path costs more with
//            beta != 0, when it computes into FP32 scratch to round once)
//   path     host rows: cpu | cublas (the GPU path);  device rows: cublas | kernels (sgemm,
//            sgemv, hgemm only)
//   kernel   with path kernels: sgemv: one of our production SGEMV kernels or warp_per_column;
//            sgemm, hgemm: one of our production SGEMM / HGEMM kernels; else "-"
//   time_us  the chosen path's measured time (>= 0), for the record
//   ratio    the measured margin that decided (> 0), printed by MYBLAS_VERBOSE
// Any line that breaks these rules, a repeated (routine, trans, mem, m, n, k, beta), a file
// without rows, over 1 MiB, with lines over 512 bytes or over 10,000 rows makes the whole file
// invalid.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/problem.h"
#include "kernels/hgemm.h"
#include "kernels/sgemm.h"
#include "kernels/sgemv.h"

namespace myblas {

struct TableEntry {
  Routine routine;
  Op ta, tb;  // sgemv: tb unused (N)
  Mem mem;    // Mem::host or Mem::device
  int m, n, k;
  char beta;           // '0', '1' or '*'
  Path path;           // Path::cpu, Path::cublas or Path::kernels
  int kernel;          // with Path::kernels: a SgemvKernel, SgemmKernel or HgemmKernel (by routine)
  float time_us, ratio;
  int line;            // in the source text, from 1
  double lm, ln, lk;   // log2 of m, n, k (0 for k == 0), computed once
};

struct DispatchTable {
  std::string source;  // where it was read from: a file path, or "built-in sm_90 table"
  std::string name;    // short form for the per-call log: the file's base name, or "built-in-sm_90"
  std::vector<TableEntry> entries;  // in the order of the source
  // Entries per (routine, mem, transposes); index 4 of the last dimension: every transpose.
  std::vector<uint16_t> groups[kRoutineCount][2][5];
  // Per routine: some host row chooses the GPU pipeline (path cublas). Where none does, every
  // host-array call of that routine stays on the CPU whatever its shape, and dispatch need not
  // look the shape up (tens of ns, as much as a small SGEMV's whole dispatch).
  bool host_gpu_rows[kRoutineCount] = {};
};

// Parses `text`; on any malformed line returns false with *error = "line N: why".
bool parse_dispatch_table(const std::string& text, DispatchTable* out, std::string* error);
// Reads and parses a file (false with *error also when it cannot be read).
bool load_dispatch_table(const std::string& path, DispatchTable* out, std::string* error);

// The entry for the benchmarked shape nearest to (m, n, k): smallest squared distance in
// (log2 m, log2 n), plus log2 k where both have k > 0; the first in source order on a tie.
// Only entries of this routine and memory kind, for calls like this one (beta_zero) or any, and
// of these transposes if the table has any for them, else of every transpose. nullptr if the
// table has none for routine, memory and beta.
const TableEntry* nearest_entry(const DispatchTable& t, Routine r, Mem mem, Op ta, Op tb, int m, int n, int k,
                                bool beta_zero);
// The kernel of an entry with Path::kernels, as its routine's enum.
inline SgemvKernel entry_sgemv_kernel(const TableEntry& e) { return static_cast<SgemvKernel>(e.kernel); }
inline SgemmKernel entry_sgemm_kernel(const TableEntry& e) { return static_cast<SgemmKernel>(e.kernel); }
inline HgemmKernel entry_hgemm_kernel(const TableEntry& e) { return static_cast<HgemmKernel>(e.kernel); }
// The name of an entry's kernel, or its path's name ("cpu", "cublas") without one.
const char* entry_choice_name(const TableEntry& e);

// The files to try, in order, for a GPU of compute capability `sm` (e.g. 90):
// `override_path` (MYBLAS_DISPATCH_TABLE) when non-empty, then dispatch-sm_<sm>.csv in each of
// `data_dirs` (duplicates dropped).
std::vector<std::string> table_candidates(const char* override_path, const std::vector<std::string>& data_dirs, int sm);
// Loads the first candidate that parses. A candidate that exists but does not parse, and the
// override (the first candidate when `first_is_override`) if it cannot be read, each add one
// line to *problems. False when none could be used.
bool load_first_table(const std::vector<std::string>& candidates, bool first_is_override, DispatchTable* out,
                      std::vector<std::string>* problems);

}  // namespace myblas
