// Test data that cannot pass by accident: random values in [-1, 1] (never zeros) from a
// printed seed, padded storage with guard values that must survive, k-scaled bounds.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace mbtest {

// Guard value written in padding and around every operand; any change is a bug.
constexpr float kGuard = -7777.25f;
constexpr uint16_t kGuardHalf = 0xEDEB;  // an ordinary binary16 value that data never takes

// Seed for this test run: MYBLAS_TEST_SEED if set, else from the clock. Printed on failure.
uint64_t test_seed();

// A column-major matrix of rows x cols in a buffer with leading dimension ld >= rows,
// with `kPad` guard elements before and after; data in [-1, 1], padding = guard.
struct Matrix {
  static constexpr int kPad = 16;
  int rows = 0, cols = 0, ld = 1;
  std::vector<float> buf;
  Matrix() = default;
  Matrix(int rows, int cols, int ld, std::mt19937_64& rng);
  float* data() { return buf.data() + kPad; }
  const float* data() const { return buf.data() + kPad; }
  float& at(int i, int j) { return data()[i + int64_t(j) * ld]; }
  float at(int i, int j) const { return data()[i + int64_t(j) * ld]; }
  void fill_nan();  // every in-bounds element NaN (for beta == 0)
  // Count of guard elements (padding, before/after) that were changed.
  int64_t damaged_guards() const;
};

// A strided vector: len elements |inc| apart, guards between and around them.
struct Vector {
  static constexpr int kPad = 16;
  int len = 0, inc = 1;
  std::vector<float> buf;
  Vector() = default;
  Vector(int len, int inc, std::mt19937_64& rng);
  float* data() { return buf.data() + kPad; }  // the lowest address, as BLAS wants it
  // Logical element i (BLAS order: a negative increment starts from the end).
  float& at(int i);
  void fill_nan();
  int64_t damaged_guards() const;
};

float uniform(std::mt19937_64& rng);  // in [-1, 1], never exactly 0

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
