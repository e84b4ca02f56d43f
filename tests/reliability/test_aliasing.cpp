// Aliased inputs: BLAS allows the read-only operands to overlap (only an output overlapping an
// input is illegal, and that is not tested). A library that stages operands (copies A and B to
// the GPU, packs them, or reorders them) must still read each one as the caller laid it out.
//   - SGEMM/HGEMM with b == a (same pointer and leading dimension): C = A A^T and A^T A, and
//     A A / A^T A^T for square A; Fortran and CBLAS row-major entries; beta 0 (NaN in C) and != 0.
//   - SGEMV with x inside A's memory: a column of A (incx 1), a row of A (incx = lda, and
//     -lda), and with CBLAS row-major a row of the row-major matrix (incx 1).
// Each result is compared with OpenBLAS on the same aliased inputs under the k-scaled bound;
// every byte of A's buffer (guards included) and the guards around C/y must be unchanged.
// Host pointers run on every entry; the *Device cases pass device pointers (gpu entries).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

constexpr double kEps = FLT_EPSILON;

std::string backend() {
  const char* b = std::getenv("MYBLAS_BACKEND");
  std::string s = b && *b ? b : "auto";
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The path this backend setting promises for host or device operands (README "Configuration").
std::string expected_path(bool /*hgemm*/) {
  const std::string b = backend();
  if (b == "cublas") return "cublas";
  if (b == "kernels") return "kernels";  // SGEMM, SGEMV and HGEMM all have kernels of ours
  return "cpu";                                               // the CI entry: MYBLAS_BACKEND=cpu
}

// A buffer handed to the library as it is (host) or as a device copy of all of it, guards
// included; fetch() brings a device copy back for the checks.
template <class T>
class Placed {
 public:
  Placed(std::vector<T>& host, bool device) : host_(host) {
    if (!device) return;
    ok_ = cudaMalloc(&dev_, host.size() * sizeof(T)) == cudaSuccess &&
          cudaMemcpy(dev_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess;
  }
  ~Placed() {
    if (dev_) cudaFree(dev_);
  }
  bool ok() const { return ok_; }
  T* at(size_t offset) { return (dev_ ? static_cast<T*>(dev_) : host_.data()) + offset; }
  bool fetch() {
    return !dev_ || cudaMemcpy(host_.data(), dev_, host_.size() * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess;
  }

 private:
  std::vector<T>& host_;
  void* dev_ = nullptr;
  bool ok_ = true;
};

std::vector<uint16_t> to_half_image(const mbtest::Matrix& m) {
  std::vector<uint16_t> h(m.buf.size(), mbtest::kGuardHalf);
  for (int j = 0; j < m.cols; ++j)
    for (int i = 0; i < m.rows; ++i)
      h[size_t(mbtest::Matrix::kPad) + size_t(i) + size_t(j) * m.ld] = myblas_float_to_half(m.at(i, j));
  return h;
}

// C = alpha op(S) op(S) + beta C with both operands the same storage S.
//   row: cblas_{s,h}gemm(CblasRowMajor, ...), else sgemm_/hgemm_.
void gemm_same_operand(bool half, bool row, char ta, char tb, int m, int k, float beta, bool device, uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Column-major view: row-major C = op(A) op(B) is C^T = op(B)^T op(A)^T.
  const char cta = row ? tb : ta, ctb = row ? ta : tb;
  const int rows = cta == 'N' ? m : k, cols = cta == 'N' ? k : m;
  mbtest::Matrix S(rows, cols, rows + 3, rng), C(m, m, m + 2, rng);
  if (half)  // the values binary16 can hold, so the FP32 reference sees what the library sees
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) S.at(i, j) = myblas_half_to_float(myblas_float_to_half(S.at(i, j)));
  if (half)
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) C.at(i, j) = myblas_half_to_float(myblas_float_to_half(C.at(i, j)));
  const float alpha = 0.75f;
  const mbtest::Matrix C0 = C;
  if (beta == 0.f) C.fill_nan();
  mbtest::Matrix want = C0;
  if (beta == 0.f)
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) want.at(i, j) = 0.f;
  mbtest::ref_sgemm(cta, ctb, m, m, k, alpha, S.data(), S.ld, S.data(), S.ld, beta, want.data(), want.ld);

  char desc[160];
  std::snprintf(desc, sizeof desc, "%s%s('%c','%c') m=n=%d k=%d, b == a, ld=%d, beta=%g, %s pointers, seed %llu",
                half ? "hgemm" : "sgemm", row ? " row-major" : "_", ta, tb, m, k, S.ld, beta, device ? "device" : "host",
                static_cast<unsigned long long>(seed));
  const size_t pad = mbtest::Matrix::kPad;
  std::vector<float> fs = S.buf, fc = C.buf;
  std::vector<uint16_t> hs = to_half_image(S), hc = to_half_image(C);
  const std::vector<float> fs0 = fs;
  const std::vector<uint16_t> hs0 = hs, hc0 = hc;
  Placed<float> ps(fs, device), pc(fc, device);
  Placed<uint16_t> phs(hs, device), phc(hc, device);
  ASSERT_TRUE(ps.ok() && pc.ok() && phs.ok() && phc.ok()) << "cudaMalloc/cudaMemcpy failed";
  const CBLAS_TRANSPOSE cta_e = ta == 'N' ? CblasNoTrans : CblasTrans, ctb_e = tb == 'N' ? CblasNoTrans : CblasTrans;
  if (half) {
    const uint16_t ha = myblas_float_to_half(alpha), hb = myblas_float_to_half(beta);
    if (row)
      cblas_hgemm(CblasRowMajor, cta_e, ctb_e, m, m, k, ha, phs.at(pad), S.ld, phs.at(pad), S.ld, hb, phc.at(pad), C.ld);
    else
      hgemm_(&ta, &tb, &m, &m, &k, &ha, phs.at(pad), &S.ld, phs.at(pad), &S.ld, &hb, phc.at(pad), &C.ld);
  } else {
    if (row)
      cblas_sgemm(CblasRowMajor, cta_e, ctb_e, m, m, k, alpha, ps.at(pad), S.ld, ps.at(pad), S.ld, beta, pc.at(pad), C.ld);
    else
      sgemm_(&ta, &tb, &m, &m, &k, &alpha, ps.at(pad), &S.ld, ps.at(pad), &S.ld, &beta, pc.at(pad), &C.ld);
  }
  EXPECT_EQ(myblas_last_path(), expected_path(half)) << desc;
  ASSERT_TRUE(ps.fetch() && pc.fetch() && phs.fetch() && phc.fetch()) << "cudaMemcpy back failed";
  if (half) {
    EXPECT_TRUE(hs == hs0) << desc << ": A changed";
    for (size_t p = 0; p < hc.size(); ++p) {
      const int64_t off = int64_t(p) - int64_t(pad);
      const bool element = off >= 0 && off < int64_t(C.ld) * m && off % C.ld < m;
      if (!element) {
        ASSERT_EQ(hc[p], hc0[p]) << desc << ": guard of C changed at " << off;
      }
    }
  } else {
    EXPECT_EQ(std::memcmp(fs.data(), fs0.data(), fs.size() * 4), 0) << desc << ": A changed";
    C.buf = fc;
    EXPECT_EQ(C.damaged_guards(), 0) << desc << ": guards of C changed";
  }
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int l = 0; l < k; ++l)
        sum += std::fabs(double(cta == 'N' ? S.at(i, l) : S.at(l, i)) * (ctb == 'N' ? S.at(l, j) : S.at(j, l)));
      const double scale = alpha * sum + (beta == 0.f ? 0.0 : std::fabs(beta * C0.at(i, j)));
      const double ref = want.at(i, j);
      const double got = half ? myblas_half_to_float(hc[pad + size_t(i) + size_t(j) * C.ld]) : fc[pad + size_t(i) + size_t(j) * C.ld];
      double bound = (k + 2) * 4 * kEps * scale + 1e-30;
      if (half) bound += std::ldexp(std::fabs(ref), -10) + std::ldexp(1.0, -24);
      ASSERT_LE(std::fabs(got - ref), bound) << desc << ": C(" << i << "," << j << ") = " << got << ", OpenBLAS " << ref;
    }
}

struct Shape {
  int m, k;
};
const Shape kShapes[] = {{1, 1}, {7, 3}, {33, 64}, {64, 17}, {130, 129}, {257, 40}};

void all_gemm(bool half, bool device) {
  uint64_t seed = mbtest::test_seed();
  for (const Shape& s : kShapes)
    for (bool row : {false, true})
      for (float beta : {0.f, -0.5f}) {
        gemm_same_operand(half, row, 'N', 'T', s.m, s.k, beta, device, ++seed);  // A A^T
        gemm_same_operand(half, row, 'T', 'N', s.m, s.k, beta, device, ++seed);  // A^T A
        gemm_same_operand(half, row, 'N', 'N', s.m, s.m, beta, device, ++seed);  // A A, square
        gemm_same_operand(half, row, 'T', 'T', s.m, s.m, beta, device, ++seed);
        if (::testing::Test::HasFatalFailure()) return;
      }
}

// y = alpha op(A) x + beta y with x = &A[x_offset] (an element of A's storage), stride incx.
void gemv_x_in_a(bool row, char t, int m, int n, int64_t x_offset, int incx, float beta, bool device, uint64_t seed,
                 const char* what) {
  std::mt19937_64 rng(seed);
  // Column-major view of A: row-major m x n is column-major n x m with the transpose flipped.
  const int cm = row ? n : m, cn = row ? m : n;
  const bool ct = row ? t == 'N' : t == 'T';
  mbtest::Matrix A(cm, cn, cm + 2, rng);
  const int lx = ct ? cm : cn, ly = ct ? cn : cm, incy = (seed & 1) ? 1 : -2;
  mbtest::Vector Y(ly, incy, rng);
  mbtest::Vector Y0 = Y;  // (at() is not const)
  if (beta == 0.f) Y.fill_nan();
  mbtest::Vector want = Y0;
  if (beta == 0.f)
    for (int i = 0; i < ly; ++i) want.at(i) = 0.f;
  const float alpha = -1.25f;
  const float* x = A.data() + x_offset;  // the lowest-addressed element, as BLAS wants it
  mbtest::ref_sgemv(ct ? 'T' : 'N', cm, cn, alpha, A.data(), A.ld, x, incx, beta, want.data(), incy);

  char desc[200];
  std::snprintf(desc, sizeof desc, "sgemv%s('%c') m=%d n=%d lda=%d, x = %s (offset %lld, incx %d), beta=%g, %s pointers, seed %llu",
                row ? " row-major" : "_", t, m, n, A.ld, what, static_cast<long long>(x_offset), incx, beta,
                device ? "device" : "host", static_cast<unsigned long long>(seed));
  const std::vector<float> a0 = A.buf;
  const size_t pad = mbtest::Matrix::kPad;
  Placed<float> pa(A.buf, device), py(Y.buf, device);
  ASSERT_TRUE(pa.ok() && py.ok()) << "cudaMalloc/cudaMemcpy failed";
  const float* lx_ptr = pa.at(pad + size_t(x_offset));
  if (row)
    cblas_sgemv(CblasRowMajor, t == 'N' ? CblasNoTrans : CblasTrans, m, n, alpha, pa.at(pad), A.ld, lx_ptr, incx, beta,
                py.at(pad), incy);
  else
    sgemv_(&t, &m, &n, &alpha, pa.at(pad), &A.ld, lx_ptr, &incx, &beta, py.at(pad), &incy);
  EXPECT_EQ(myblas_last_path(), expected_path(false)) << desc;
  ASSERT_TRUE(pa.fetch() && py.fetch()) << "cudaMemcpy back failed";
  EXPECT_EQ(std::memcmp(A.buf.data(), a0.data(), a0.size() * 4), 0) << desc << ": A changed";
  EXPECT_EQ(Y.damaged_guards(), 0) << desc << ": guards of y changed";
  const int64_t step = incx < 0 ? -int64_t(incx) : incx;
  for (int i = 0; i < ly; ++i) {
    double sum = 0;
    for (int l = 0; l < lx; ++l) {
      const float xl = x[incx > 0 ? l * step : (lx - 1 - l) * step];
      sum += std::fabs(double(ct ? A.at(l, i) : A.at(i, l)) * xl);
    }
    const double scale = std::fabs(alpha) * sum + (beta == 0.f ? 0.0 : std::fabs(double(beta) * Y0.at(i)));
    const double bound = (lx + 2) * 4 * kEps * scale + 1e-30;
    ASSERT_LE(std::fabs(double(Y.at(i)) - want.at(i)), bound) << desc << ": y(" << i << ") = " << Y.at(i) << ", OpenBLAS " << want.at(i);
  }
}

void all_gemv(bool device) {
  uint64_t seed = mbtest::test_seed() + 7777;
  const Shape shapes[] = {{1, 1}, {9, 5}, {64, 33}, {130, 127}, {300, 41}};  // here (m, n) with m >= n
  for (const Shape& s : shapes)
    for (float beta : {0.f, 0.5f}) {
      const int m = s.m, n = s.k, lda = m + 2;
      // Column-major A (m x n, lda): x a column (n <= m elements of it for 'N'), a row.
      gemv_x_in_a(false, 'N', m, n, int64_t(n / 2) * lda, 1, beta, device, ++seed, "column n/2 of A");
      gemv_x_in_a(false, 'T', m, n, int64_t(n - 1) * lda, 1, beta, device, ++seed, "the last column of A");
      gemv_x_in_a(false, 'N', m, n, m / 3, lda, beta, device, ++seed, "row m/3 of A");
      gemv_x_in_a(false, 'N', m, n, m - 1, -lda, beta, device, ++seed, "the last row of A, backwards");
      gemv_x_in_a(false, 'T', n, m, n / 2, n + 2, beta, device, ++seed, "row n/2 of the n x m A");
      // Row-major A (lda = columns + 2): x a row of it (contiguous), or a column (stride lda).
      gemv_x_in_a(true, 'N', n, m, int64_t(n / 3) * (m + 2), 1, beta, device, ++seed, "row n/3 of the row-major A");
      gemv_x_in_a(true, 'T', m, n, n - 1, -(n + 2), beta, device, ++seed,
                  "the last column of the row-major A, backwards");
      if (::testing::Test::HasFatalFailure()) return;
    }
}

void need_gpu() {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no usable CUDA device for device pointers";
}
// Host pointers under a GPU backend setting: without a GPU they would run on the CPU, which
// is not what the gpu entry is there to test.
void need_gpu_for_backend() {
  const std::string b = backend();
  if ((b == "cublas" || b == "kernels") && !myblas_gpu_available())
    GTEST_SKIP() << "MYBLAS_BACKEND=" << b << " needs a usable CUDA device";
}

TEST(Aliasing, SgemmSameOperand) {
  need_gpu_for_backend();
  if (!IsSkipped()) all_gemm(false, false);
}
TEST(Aliasing, HgemmSameOperand) {
  need_gpu_for_backend();
  if (!IsSkipped()) all_gemm(true, false);
}
TEST(Aliasing, SgemvXInsideA) {
  need_gpu_for_backend();
  if (!IsSkipped()) all_gemv(false);
}
TEST(AliasingDevice, SgemmSameOperand) {
  need_gpu();
  if (!IsSkipped()) all_gemm(false, true);
}
TEST(AliasingDevice, HgemmSameOperand) {
  need_gpu();
  if (!IsSkipped()) all_gemm(true, true);
}
TEST(AliasingDevice, SgemvXInsideA) {
  need_gpu();
  if (!IsSkipped()) all_gemv(true);
}

}  // namespace
