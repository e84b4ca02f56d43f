// Test data that cannot pass by accident: random values in [-1, 1] (never zeros) from a
// printed seed, padded storage with guard values that must survive, k-scaled bounds.
#pragma once
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace mbtest {

// Guard value written in padding and around every operand; any change is a bug.
constexpr float kGuard = -7777.25f;
constexpr uint16_t kGuardHalf = 0xEDEB;  // an ordinary binary16 value that data never takes

// Seed for this test run: MYBLAS_TEST_SEED if set, else from the clock. Printed on failure.
uint64_t test_seed();

float uniform(std::mt19937_64& rng);  // in [-1, 1], never exactly 0

// Element types the helpers below take: float, double, std::complex<float>, std::complex<double>.
template <class T>
struct IsComplex : std::false_type {};
template <class R>
struct IsComplex<std::complex<R>> : std::true_type {};
// kGuard in every part of the element.
template <class T>
T guard_of() {
  if constexpr (IsComplex<T>::value) return T(kGuard, kGuard);
  else return T(kGuard);
}
// A random element: every part uniform in [-1, 1], never exactly 0.
template <class T>
T random_of(std::mt19937_64& rng) {
  if constexpr (IsComplex<T>::value) {
    const auto re = uniform(rng);
    return T(typename T::value_type(re), typename T::value_type(uniform(rng)));
  } else {
    return T(uniform(rng));
  }
}
template <class T>
T nan_of() {
  if constexpr (IsComplex<T>::value) {
    const auto q = std::numeric_limits<typename T::value_type>::quiet_NaN();
    return T(q, q);
  } else {
    return std::numeric_limits<T>::quiet_NaN();
  }
}
template <class T>
bool same_bits(const T& x, const T& y) { return std::memcmp(&x, &y, sizeof(T)) == 0; }

// A column-major matrix of rows x cols in a buffer with leading dimension ld >= rows,
// with `kPad` guard elements before and after; data random (random_of), padding = guard.
template <class T>
struct MatrixOf {
  static constexpr int kPad = 16;
  int rows = 0, cols = 0, ld = 1;
  std::vector<T> buf;
  MatrixOf() = default;
  MatrixOf(int r, int c, int l, std::mt19937_64& rng) : rows(r), cols(c), ld(l) {
    buf.assign(size_t(kPad) * 2 + size_t(ld) * size_t(cols), guard_of<T>());
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) at(i, j) = random_of<T>(rng);
  }
  T* data() { return buf.data() + kPad; }
  const T* data() const { return buf.data() + kPad; }
  T& at(int i, int j) { return data()[i + int64_t(j) * ld]; }
  T at(int i, int j) const { return data()[i + int64_t(j) * ld]; }
  void fill_nan() {  // every in-bounds element NaN (for beta == 0)
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) at(i, j) = nan_of<T>();
  }
  // Count of guard elements (padding, before/after) that were changed.
  int64_t damaged_guards() const {
    const T g = guard_of<T>();
    int64_t bad = 0;
    for (int i = 0; i < kPad; ++i) {
      bad += !same_bits(buf[size_t(i)], g);
      bad += !same_bits(buf[buf.size() - 1 - size_t(i)], g);
    }
    for (int j = 0; j < cols; ++j)
      for (int i = rows; i < ld; ++i) bad += !same_bits(at(i, j), g);
    return bad;
  }
};
using Matrix = MatrixOf<float>;

// A strided vector: len elements |inc| apart, guards between and around them.
template <class T>
struct VectorOf {
  static constexpr int kPad = 16;
  int len = 0, inc = 1;
  std::vector<T> buf;
  VectorOf() = default;
  VectorOf(int n, int increment, std::mt19937_64& rng) : len(n), inc(increment) {
    const size_t span = len > 0 ? size_t(int64_t(len - 1) * step() + 1) : 0;
    buf.assign(size_t(kPad) * 2 + span, guard_of<T>());
    for (int i = 0; i < len; ++i) at(i) = random_of<T>(rng);
  }
  int64_t step() const { return inc < 0 ? -int64_t(inc) : inc; }
  T* data() { return buf.data() + kPad; }  // the lowest address, as BLAS wants it
  // Logical element i (BLAS order: a negative increment starts from the end).
  T& at(int i) { return data()[inc > 0 ? int64_t(i) * step() : int64_t(len - 1 - i) * step()]; }
  void fill_nan() {
    for (int i = 0; i < len; ++i) at(i) = nan_of<T>();
  }
  int64_t damaged_guards() const {
    const T g = guard_of<T>();
    int64_t bad = 0;
    for (size_t p = 0; p < buf.size(); ++p) {
      const int64_t off = int64_t(p) - kPad;
      const bool element = off >= 0 && off < int64_t(len) * step() && off % step() == 0;
      if (!element) bad += !same_bits(buf[p], g);
    }
    return bad;
  }
};
using Vector = VectorOf<float>;


// Largest |got - want| / bound over an m x n block, with
// bound(i,j) = (k + 2) * eps * (|alpha| * sum_l |op(A)(i,l)| |op(B)(l,j)| + |beta| |C0(i,j)|) + tiny
// computed by the caller into `scale`. Returns the worst ratio (<= 1 passes) and its place.
struct Worst {
  double ratio = 0;
  int i = -1, j = -1;
  double got = 0, want = 0;
};
Worst compare(const float* got, int64_t ldg, const float* want, int64_t ldw,
              const std::vector<double>& scale, int m, int n, double eps_factor);

// The `scale` for compare: |alpha| sum_l |op(A)(i,l)| |op(B)(l,j)| + |beta| |C0(i,j)| (the beta
// term only for beta != 0), m x n packed, accumulated in double. ta, tb: 'N' or 'T'.
std::vector<double> gemm_scale(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda,
                               const float* b, int ldb, float beta, const float* c0, int ldc);

}  // namespace mbtest
