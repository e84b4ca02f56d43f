// Element offsets beyond 2^31 (an int) on the path MYBLAS_BACKEND selects.
//
// Sparse cases (always run): the dimensions stay tiny, but a huge leading dimension or
// increment puts operands more than 2^31 elements apart. The operand lives in an 8-12 GiB
// mapping made with MAP_NORESERVE: only the pages of the few elements used become memory
// (kilobytes), so this runs in CI. An offset computed in 32 bits wraps and hits an untouched
// page (zeros, so a wrong result) or a guard; the count of resident pages must not grow
// either, which catches a stray read or write anywhere in the mapping. Where the kernel
// refuses the mapping (vm.overcommit_memory=2), the cases skip and say so.
//
// Dense cases (MYBLAS_TEST_BIG=1, else skipped visibly): real operands of more than 2^31
// elements (8 GiB and more of host memory): SGEMV and SGEMM whose A has m*lda > 2^31.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/reference.h"
#include "myblas.h"

namespace {

constexpr int64_t kHuge = (int64_t(1) << 30) + 1;  // ld or increment: 2 steps pass 2^31
constexpr float kGuard = -7777.25f;
constexpr double kEps = std::numeric_limits<float>::epsilon();

std::string want_path() {
  const char* b = std::getenv("MYBLAS_BACKEND");
  return b && std::string(b) == "cpu" ? "cpu" : "";
}

// A sparse mapping of `elems` elements of T. Elements are set through put(), which also
// writes guards on both sides; check() verifies the guards and the resident page count.
template <class T>
class Sparse {
 public:
  explicit Sparse(int64_t elems) : bytes_(size_t(elems + 64) * sizeof(T)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<T*>(p) + 32;
  }
  ~Sparse() {
    if (base_) munmap(base_ - 32, bytes_);
  }
  Sparse(const Sparse&) = delete;
  Sparse& operator=(const Sparse&) = delete;
  bool ok() const { return base_ != nullptr; }
  T* data() { return base_; }
  void put(int64_t off, T v, T guard) {
    for (int d = -2; d <= 2; ++d) {
      if (d == 0) continue;
      bool is_element = false;
      for (int64_t e : elems_) is_element |= e == off + d;
      if (!is_element) {
        base_[off + d] = guard;
        guards_.push_back(off + d);
      }
    }
    base_[off] = v;
    elems_.push_back(off);
    guards_.erase(std::remove(guards_.begin(), guards_.end(), off), guards_.end());
  }
  T at(int64_t off) const { return base_[off]; }
  // Guards changed; resident pages are counted by resident().
  int damaged(T guard) const {
    int bad = 0;
    for (int64_t g : guards_) bad += std::memcmp(&base_[g], &guard, sizeof(T)) != 0;
    return bad;
  }
  size_t resident() const {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> v((bytes_ + page - 1) / page);
    if (mincore(base_ - 32, bytes_, v.data()) != 0) return 0;
    size_t n = 0;
    for (unsigned char c : v) n += c & 1;
    return n;
  }

 private:
  size_t bytes_;
  T* base_ = nullptr;
  std::vector<int64_t> elems_, guards_;
};

// MYBLAS_BACKEND=cublas means something only with a GPU (else every call runs on the CPU,
// which the cpu entry already covers).
#define REQUIRE_BACKEND()                                                                    \
  if (std::getenv("MYBLAS_BACKEND") && std::string(std::getenv("MYBLAS_BACKEND")) == "cublas" && \
      !myblas_gpu_available())                                                               \
  GTEST_SKIP() << "MYBLAS_BACKEND=cublas needs a GPU: none usable here"

#define REQUIRE_MAPPING(s)                                                                  \
  if (!(s).ok())                                                                            \
  GTEST_SKIP() << "the kernel refused a " << (kHuge >> 27) << "+ GiB MAP_NORESERVE mapping " \
                  "(vm.overcommit_memory=2?): cannot place operands 2^31 elements apart"

// sgemv_ with A (m = 2, n = 3) whose columns are lda = 2^30 + 1 apart: A(1, 2) sits at
// element 2^31 + 3. x and y are ordinary arrays.
void sgemv_huge_lda(char trans) {
  REQUIRE_BACKEND();
  const int m = 2, n = 3, lda = int(kHuge), one = 1;
  Sparse<float> A(int64_t(n) * kHuge);
  REQUIRE_MAPPING(A);
  float a[m][n] = {{0.5f, -1.25f, 2.f}, {0.75f, 1.5f, -0.25f}};
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) A.put(i + j * kHuge, a[i][j], kGuard);
  const bool t = trans != 'N';
  const int lx = t ? m : n, ly = t ? n : m;
  std::vector<float> x = {1.f, -2.f, 0.5f}, y(size_t(ly), 99.f);  // beta = 0: the 99s are not read
  x.resize(size_t(lx));
  const float alpha = 1.f, beta = 0.f;
  const size_t pages = A.resident();
  sgemv_(&trans, &m, &n, &alpha, A.data(), &lda, x.data(), &one, &beta, y.data(), &one);
  if (!want_path().empty()) EXPECT_STREQ(myblas_last_path(), want_path().c_str());
  for (int i = 0; i < ly; ++i) {
    double r = 0;
    for (int l = 0; l < lx; ++l) r += double(t ? a[l][i] : a[i][l]) * x[size_t(l)];
    EXPECT_NEAR(y[size_t(i)], r, 8 * kEps * 8) << "y(" << i << ") with lda = 2^30 + 1, trans " << trans;
  }
  EXPECT_EQ(A.damaged(kGuard), 0) << "A is input only";
  EXPECT_EQ(A.resident(), pages) << "pages of A touched that hold no element of A";
}

TEST(Offsets64, SgemvHugeLdaN) { sgemv_huge_lda('N'); }
TEST(Offsets64, SgemvHugeLdaT) { sgemv_huge_lda('T'); }

// sgemv_ with x or y strided by +-(2^30 + 1): three elements span 2^31 + 3.
void sgemv_huge_inc(int incx, int incy, char trans) {
  REQUIRE_BACKEND();
  const int m = 3, n = 3, lda = 3;
  const std::vector<float> a = {0.5f, -1.f, 2.f, 0.25f, 1.5f, -0.75f, -2.f, 1.f, 0.125f};
  const float xv[3] = {1.f, -0.5f, 2.f}, y0[3] = {0.5f, 4.f, -1.f};
  const int64_t sx = std::abs(int64_t(incx)), sy = std::abs(int64_t(incy));
  Sparse<float> X(2 * sx + 1), Y(2 * sy + 1);
  REQUIRE_MAPPING(X);
  REQUIRE_MAPPING(Y);
  // Logical element i of a vector with a negative increment is stored at (len - 1 - i) * |inc|.
  for (int i = 0; i < 3; ++i) {
    X.put((incx > 0 ? i : 2 - i) * sx, xv[i], kGuard);
    Y.put((incy > 0 ? i : 2 - i) * sy, y0[i], kGuard);
  }
  const float alpha = 0.5f, beta = -1.f;
  const size_t px = X.resident(), py = Y.resident();
  sgemv_(&trans, &m, &n, &alpha, a.data(), &lda, X.data(), &incx, &beta, Y.data(), &incy);
  if (!want_path().empty()) EXPECT_STREQ(myblas_last_path(), want_path().c_str());
  for (int i = 0; i < 3; ++i) {
    double r = 0;
    for (int l = 0; l < 3; ++l) r += double(trans == 'N' ? a[size_t(i + 3 * l)] : a[size_t(l + 3 * i)]) * xv[l];
    r = alpha * r + beta * y0[i];
    EXPECT_NEAR(Y.at((incy > 0 ? i : 2 - i) * sy), r, 64 * kEps)
        << "y(" << i << ") with incx " << incx << ", incy " << incy << ", trans " << trans;
  }
  EXPECT_EQ(X.damaged(kGuard), 0);
  EXPECT_EQ(Y.damaged(kGuard), 0);
  EXPECT_EQ(X.resident(), px) << "pages of x touched that hold no element of x";
  EXPECT_EQ(Y.resident(), py) << "pages of y touched that hold no element of y";
}

TEST(Offsets64, SgemvHugeIncx) { sgemv_huge_inc(int(kHuge), 1, 'N'); }
TEST(Offsets64, SgemvHugeIncy) { sgemv_huge_inc(1, int(kHuge), 'T'); }

// A negative increment with (len - 1) * |inc| >= 2^31: OpenBLAS 0.3.21 (and the netlib
// reference) compute the start of the vector, x - (len - 1) * incx, in 32-bit int, which
// overflows; libmyblas packs such vectors before calling the CPU BLAS (this test found it).
TEST(Offsets64, SgemvHugeNegativeIncx) { sgemv_huge_inc(-int(kHuge), 1, 'N'); }
TEST(Offsets64, SgemvHugeNegativeIncy) { sgemv_huge_inc(-1, -int(kHuge), 'T'); }

// cblas_sgemv row-major: rows of A are lda = 2^30 + 1 apart.
TEST(Offsets64, CblasSgemvRowMajorHugeLda) {
  REQUIRE_BACKEND();
  const int m = 3, n = 2, lda = int(kHuge);
  Sparse<float> A(int64_t(m) * kHuge);
  REQUIRE_MAPPING(A);
  const float a[3][2] = {{1.f, 2.f}, {-0.5f, 0.25f}, {3.f, -1.f}};
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) A.put(i * kHuge + j, a[i][j], kGuard);
  const float x[2] = {0.5f, -2.f};
  float y[3] = {7.f, 7.f, 7.f};
  const size_t pages = A.resident();
  cblas_sgemv(CblasRowMajor, CblasNoTrans, m, n, 1.f, A.data(), lda, x, 1, 0.f, y, 1);
  for (int i = 0; i < m; ++i) EXPECT_NEAR(y[i], a[i][0] * x[0] + a[i][1] * x[1], 16 * kEps) << "y(" << i << ")";
  EXPECT_EQ(A.damaged(kGuard), 0);
  EXPECT_EQ(A.resident(), pages);
}

// sgemm_ whose C (m = 2, n = 3) has ldc = 2^30 + 1, and whose A (transposed, k x m) has
// lda = 2^30 + 1: both reach past element 2^31.
TEST(Offsets64, SgemmHugeLdaLdc) {
  REQUIRE_BACKEND();
  const int m = 2, n = 3, k = 2, big = int(kHuge), ldb = 2;
  Sparse<float> A(int64_t(m) * kHuge), C(int64_t(n) * kHuge);
  REQUIRE_MAPPING(A);
  REQUIRE_MAPPING(C);
  const float at[2][2] = {{1.f, -0.5f}, {2.f, 0.25f}};  // at[l][i] = A^T(l, i) = op(A)(i, l)
  const float b[6] = {0.5f, 1.f, -1.f, 2.f, 0.75f, -0.25f};
  const float c0[2][3] = {{1.f, 2.f, 3.f}, {-1.f, -2.f, -3.f}};
  for (int i = 0; i < m; ++i)
    for (int l = 0; l < k; ++l) A.put(l + i * kHuge, at[l][i], kGuard);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) C.put(i + j * kHuge, c0[i][j], kGuard);
  const float alpha = 2.f, beta = 0.5f;
  const size_t pa = A.resident(), pc = C.resident();
  sgemm_("T", "N", &m, &n, &k, &alpha, A.data(), &big, b, &ldb, &beta, C.data(), &big);
  if (!want_path().empty()) EXPECT_STREQ(myblas_last_path(), want_path().c_str());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double r = 0;
      for (int l = 0; l < k; ++l) r += double(at[l][i]) * b[l + 2 * j];
      r = alpha * r + beta * c0[i][j];
      EXPECT_NEAR(C.at(i + j * kHuge), r, 64 * kEps) << "C(" << i << "," << j << ")";
    }
  EXPECT_EQ(A.damaged(kGuard), 0);
  EXPECT_EQ(C.damaged(kGuard), 0);
  EXPECT_EQ(A.resident(), pa);
  EXPECT_EQ(C.resident(), pc);
}

// hgemm_ and cblas_hgemm (row-major) with C strided by 2^30 + 1 binary16 elements.
void hgemm_huge_ldc(bool cblas_row) {
  REQUIRE_BACKEND();
  const int m = 2, n = 3, k = 1, big = int(kHuge);
  // Column-major: C(i, j) at i + j*ldc. Row-major C (m x n) at i*ldc + j; use n rows of C^T.
  const int rows = cblas_row ? n : m, cols = cblas_row ? m : n;  // C as stored: cols are ldc apart
  Sparse<uint16_t> C(int64_t(cols) * kHuge);
  REQUIRE_MAPPING(C);
  const uint16_t hguard = 0xEDEB;
  const float a[2] = {1.5f, -2.f}, b[3] = {0.5f, 4.f, -0.25f};
  uint16_t ha[2], hb[3];
  for (int i = 0; i < 2; ++i) ha[i] = myblas_float_to_half(a[i]);
  for (int j = 0; j < 3; ++j) hb[j] = myblas_float_to_half(b[j]);
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) C.put(r + c * kHuge, myblas_float_to_half(100.f), hguard);
  const uint16_t one = myblas_float_to_half(1.f), zero = myblas_float_to_half(0.f);
  const size_t pages = C.resident();
  const int lda = cblas_row ? 1 : 2, ldb = cblas_row ? 3 : 1;
  if (cblas_row)  // row-major A (2 x 1, lda 1), B (1 x 3, ldb 3)
    cblas_hgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, one, ha, lda, hb, ldb, zero, C.data(), big);
  else
    hgemm_("N", "N", &m, &n, &k, &one, ha, &lda, hb, &ldb, &zero, C.data(), &big);
  if (!want_path().empty()) EXPECT_STREQ(myblas_last_path(), want_path().c_str());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const int64_t off = cblas_row ? j + i * kHuge : i + j * kHuge;
      EXPECT_EQ(myblas_half_to_float(C.at(off)), a[i] * b[j]) << "C(" << i << "," << j << ") (exact in binary16)";
    }
  EXPECT_EQ(C.damaged(hguard), 0);
  EXPECT_EQ(C.resident(), pages);
}

TEST(Offsets64, HgemmHugeLdc) { hgemm_huge_ldc(false); }
TEST(Offsets64, CblasHgemmRowMajorHugeLdc) { hgemm_huge_ldc(true); }

// ---- dense, MYBLAS_TEST_BIG=1 ------------------------------------------------------------------

bool big_enabled() {
  const char* v = std::getenv("MYBLAS_TEST_BIG");
  return v && std::string(v) == "1";
}

// A(i, j) as a cheap deterministic function, exact in FP32, with no structure a wrong index
// could reproduce (a row or column shifted by 2^32 elements gives other values).
float a_value(int64_t i, int64_t j) { return float(int((i * 7 + j * 13) % 17) - 8) / 8.f; }

TEST(Big64, DenseSgemvOver2G) {
  if (!big_enabled()) GTEST_SKIP() << "set MYBLAS_TEST_BIG=1 to run (needs ~8.1 GiB of host memory)";
  REQUIRE_BACKEND();
  const int m = 46341, n = 46341;  // m * n = 2,147,488,281 > 2^31
  std::vector<float> a(size_t(m) * n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) a[size_t(i + j * m)] = a_value(i, j);
  std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(m));
  for (int j = 0; j < n; ++j) x[size_t(j)] = float((j % 5) - 2) / 4.f;
  const float alpha = 1.f, beta = 0.f;
  const int one = 1;
  for (char t : {'N', 'T'}) {
    sgemv_(&t, &m, &n, &alpha, a.data(), &m, x.data(), &one, &beta, y.data(), &one);
    std::printf("sgemv_ '%c' %d x %d: path %s\n", t, m, n, myblas_last_path());
    // Rows (columns for 'T') at the start, in the middle and at the very end of A.
    for (int i : {0, 1, m / 2, m - 2, m - 1}) {
      double r = 0, mag = 0;
      for (int64_t l = 0; l < n; ++l) {
        const double p = double(t == 'N' ? a_value(i, l) : a_value(l, i)) * x[size_t(l)];
        r += p;
        mag += std::fabs(p);
      }
      EXPECT_NEAR(y[size_t(i)], r, (n + 2) * kEps * mag + 1e-6) << "trans " << t << ", element " << i;
    }
  }
}

TEST(Big64, DenseSgemmOver2G) {
  if (!big_enabled()) GTEST_SKIP() << "set MYBLAS_TEST_BIG=1 to run (needs ~8.1 GiB of host memory)";
  REQUIRE_BACKEND();
  const int m = 65536, k = 32769, n = 4;  // A is m x k = 2^31 + 2^16 elements
  std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n, 0.f);
  for (int64_t l = 0; l < k; ++l)
    for (int64_t i = 0; i < m; ++i) a[size_t(i + l * m)] = a_value(i, l);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t l = 0; l < k; ++l) b[size_t(l + j * k)] = float(((l + j) % 5) - 2) / 4.f;
  const float alpha = 1.f, beta = 0.f;
  sgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, c.data(), &m);
  std::printf("sgemm_ %d x %d x %d: path %s\n", m, n, k, myblas_last_path());
  for (int i : {0, 1, m / 2, m - 1})
    for (int j = 0; j < n; ++j) {
      double r = 0, mag = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double p = double(a_value(i, l)) * b[size_t(l + j * k)];
        r += p;
        mag += std::fabs(p);
      }
      EXPECT_NEAR(c[size_t(i + int64_t(j) * m)], r, (k + 2) * kEps * mag + 1e-6) << "C(" << i << "," << j << ")";
    }
}

}  // namespace
