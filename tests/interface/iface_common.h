// Pieces shared by the differential tests of the BLAS/CBLAS entry points: binary16 storage
// with guards, operands stored in either layout but read by logical (i, j), copies of whole
// padded buffers to the GPU, the expected dispatch path, and the failure-message context.
#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/data.h"
#include "myblas.h"

namespace iface {

// Which family of entry points a case goes through.
enum class Api { fortran, fortran_plain, cblas_col, cblas_row };
bool row_major(Api api);
CBLAS_TRANSPOSE cblas_trans(char c);
// 'N'/'n' -> 'N', anything else (T, t, C, c) -> 'T': what a real BLAS means by it.
char normal_trans(char c);
bool is_trans(char c);

// Where an operand lives in a device test.
enum class Mem { host, device };

// binary16 twin of mbtest::Matrix: column-major, ld >= rows, guard-filled padding and
// kPad guard elements on both sides. Data are uniform [-1, 1] values rounded to binary16,
// never zero.
struct HalfMatrix {
  static constexpr int kPad = 16;
  int rows = 0, cols = 0, ld = 1;
  std::vector<uint16_t> buf;
  HalfMatrix() = default;
  HalfMatrix(int rows, int cols, int ld, std::mt19937_64& rng);
  uint16_t* data() { return buf.data() + kPad; }
  const uint16_t* data() const { return buf.data() + kPad; }
  uint16_t& at(int i, int j) { return data()[i + int64_t(j) * ld]; }
  uint16_t at(int i, int j) const { return data()[i + int64_t(j) * ld]; }
  void fill_nan();
  int64_t damaged_guards() const;
};

// bfloat16 twin of HalfMatrix: the same layout and guards, data uniform [-1, 1] values rounded
// to bfloat16 (never zero), NaN 0x7fc0.
struct Bf16Matrix : HalfMatrix {
  Bf16Matrix() = default;
  Bf16Matrix(int rows, int cols, int ld, std::mt19937_64& rng);
  void fill_nan();
};

uint16_t random_half(std::mt19937_64& rng);
// FP32 -> bfloat16, round to nearest even (the data are finite); bfloat16 -> FP32 is exact.
uint16_t float_to_bf16(float f);
float bf16_to_float(uint16_t h);
template <class T>
T value(const mbtest::MatrixOf<T>& s, int i, int j) { return s.at(i, j); }
inline float value(const HalfMatrix& s, int i, int j) { return myblas_half_to_float(s.at(i, j)); }
inline float value(const Bf16Matrix& s, int i, int j) { return bf16_to_float(s.at(i, j)); }

// A logical rows x cols matrix stored column-major, or row-major (then the storage is the
// column-major cols x rows transpose), with `pad` elements of leading dimension to spare.
template <class Store>
struct Operand {
  int rows = 0, cols = 0;
  bool row = false;
  Store s;
  Operand(int r, int c, bool row_major, int pad, std::mt19937_64& rng)
      : rows(r), cols(c), row(row_major),
        s(row ? c : r, row ? r : c, (row ? (c > 1 ? c : 1) : (r > 1 ? r : 1)) + pad, rng) {}
  int ld() const { return s.ld; }
  using Value = decltype(value(std::declval<const Store&>(), 0, 0));  // float for binary16
  Value get(int i, int j) const { return row ? value(s, j, i) : value(s, i, j); }
  // The stored element of logical (i, j).
  auto& at(int i, int j) { return row ? s.at(j, i) : s.at(i, j); }
  // Dense column-major copy (leading dimension max(1, rows)), at least one element.
  std::vector<Value> logical() const {
    std::vector<Value> v(size_t(rows) * size_t(cols) + 1, Value(0));
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) v[size_t(i) + size_t(j) * rows] = get(i, j);
    return v;
  }
};

std::vector<float> abs_of(std::vector<float> v);

// A whole padded host buffer mirrored in device memory (guards included), so that what
// the library does to the padding shows up after the copy back.
class DeviceMirror {
 public:
  DeviceMirror() = default;
  DeviceMirror(const void* host, size_t bytes);
  ~DeviceMirror();
  DeviceMirror(const DeviceMirror&) = delete;
  DeviceMirror& operator=(const DeviceMirror&) = delete;
  bool ok() const { return status_ == cudaSuccess; }
  std::string error() const { return cudaGetErrorString(status_); }
  void* get() { return ptr_; }
  // Copies the device buffer over the host one; false (and error()) on failure.
  bool copy_back(void* host);

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  cudaError_t status_ = cudaSuccess;
};

std::string backend_env();  // MYBLAS_BACKEND, lower case ("" when unset)
// Checks myblas_last_path() against what the dispatch rules promise for this call. `cpu_only`:
// a call only the CPU path runs (row-major CBLAS ConjTrans GEMV of complex data).
::testing::AssertionResult path_ok(bool quick_return, bool device_operands, bool cpu_only = false);

// Context every failure message carries.
std::string run_context();

// True when no CUDA device can be used; `why` then says why (for GTEST_SKIP).
bool no_gpu_reason(std::string* why);

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

std::string fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace iface
