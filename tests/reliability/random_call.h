// One BLAS call through any of libmyblas's entry points, on operands placed in host or device
// memory, checked against OpenBLAS. Shared by the differential test (every call checked in
// full) and the leak test (cheap checks on every call, the full check on some).
//
// A call is described by a Spec, which prints as the call a user would have made, so a
// failure message is enough to write a reproducer.
#pragma once
#include <cstdint>
#include <random>
#include <string>

namespace reltest {

enum class Routine { sgemm, sgemv, hgemm };
// fortran: sgemm_/sgemv_/hgemm_; plain: MKL's hgemm (no underscore); cblas_col/cblas_row: CBLAS.
enum class Entry { fortran, plain, cblas_col, cblas_row };

// Where each operand lives: bit 0 A, bit 1 B (or x), bit 2 C (or y); a set bit is device memory.
constexpr int kAllHost = 0, kAllDevice = 7, kInputsOnDevice = 3;

struct Spec {
  Routine routine = Routine::sgemm;
  Entry entry = Entry::fortran;
  char ta = 'N', tb = 'N';  // as passed (upper or lower case; 'C' means 'T' for real data)
  int m = 1, n = 1, k = 1;  // the user's dimensions (row-major: as the user wrote them)
  int pad_a = 0, pad_b = 0, pad_c = 0;  // leading dimension = smallest legal value + pad
  int incx = 1, incy = 1;
  float alpha = 1.f, beta = 0.f;  // hgemm: rounded to binary16 by the caller of the library
  int place = kAllHost;
  std::string describe() const;
  // Reference BLAS quick return: the output is left exactly as it was.
  bool quick_return() const;
  bool scale_only() const;  // alpha == 0 or k == 0: A and B (x) are not read
};

// What random_spec draws from.
struct Limits {
  int min_dim = 0;         // sizes min_dim..max_dim, and with probability p_big up to big_dim
  int max_dim = 70;
  int big_dim = 300;
  double p_big = 0.02;
  bool random_scalars = true;  // alpha, beta also uniform in [-2, 2] besides {0, 1, -1, 0.5}
  bool allow_quick_return = true;
  // Placements to draw from; kAllDevice etc. need a GPU. "any" draws each operand separately.
  enum class Places { host, device, inputs_on_device, any } places = Places::host;
};
Spec random_spec(std::mt19937_64& rng, const Limits& limits);

// Three device buffers for one thread, reused by every call (nullptr/0 without device use).
struct DeviceArena {
  void* buf[3] = {nullptr, nullptr, nullptr};
  size_t bytes = 0;
  bool allocate(size_t bytes_each);
  void release();
};
// Bytes an arena buffer needs for any call with dimensions up to max_dim.
size_t arena_bytes(int max_dim);

struct Result {
  std::string path;   // myblas_last_path() after the call
  std::string error;  // empty: every check passed
};

// Makes the call on fresh random operands drawn from `rng`. Always checked: inputs bitwise
// unchanged, guards around and inside the output intact, no NaN in the output unless the
// call was a quick return over a NaN-filled output. With full_check also every element
// against OpenBLAS under the k-scaled bound
//   (k + 2) * 4 * eps * (|alpha| sum_l |op(A)(i,l)| |op(B)(l,j)| + |beta| |C0(i,j)|)
// (HGEMM: plus the rounding of the result to binary16). alpha == 0 fills A and B (x) with
// NaN and beta == 0 fills C (y) with NaN: the BLAS rules say they are not read.
Result run_call(const Spec& s, std::mt19937_64& rng, DeviceArena* arena, bool full_check);

}  // namespace reltest
