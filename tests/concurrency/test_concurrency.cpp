// Eight threads calling sgemm_, cblas_sgemm (row-major), sgemv_ (strided, negative
// increments) and hgemm_ at the same time, on random shapes, each thread with its own data.
//
// What can go wrong under concurrency and is checked on every call:
//   - results: against OpenBLAS (mbtest::ref_*, thread-safe) with a bound that scales
//     with k, so shared scratch space, a shared CPU BLAS handle or cuBLAS handle/workspace
//     used by two threads at once shows up as a wrong element;
//   - memory: guard values around and between every operand, inputs bitwise unchanged;
//   - myblas_last_path(): per thread, so each thread sees the path of its own last call,
//     and that path is the one MYBLAS_BACKEND forces ("cpu" or "cublas");
//   - Device variant: operands in device memory, half of the threads with their own CUDA
//     stream set by myblas_set_stream. Results are read back on the thread's stream, so a
//     call that ran on some other stream without ordering would be read too early.
//
// Seeds: MYBLAS_TEST_SEED (else the clock) is printed with every failure; thread t uses a
// seed derived from it, so one failing thread replays alone with the same seed.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace {

constexpr int kThreads = 8;
constexpr double kEps = std::numeric_limits<float>::epsilon();

// The path every call must report: MYBLAS_BACKEND=cpu forces "cpu", =cublas forces
// "cublas" (only meaningful with a GPU). Empty: no forcing, any path but "none".
std::string forced_path() {
  const char* b = std::getenv("MYBLAS_BACKEND");
  std::string s = b ? b : "";
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return (s == "cpu" || s == "cublas") ? s : "";
}

// ---- per-thread context ---------------------------------------------------------------------

struct Ctx {
  int tid = 0;
  uint64_t seed = 0;
  std::mt19937_64 rng;
  bool device = false;            // operands in device memory
  cudaStream_t stream = nullptr;  // set with myblas_set_stream; nullptr: none set
  std::string want_path;          // "" = anything but "none"
  int call = 0;
  int failures = 0;
  std::vector<std::string> messages;  // the first few failures, reported by the main thread

  void fail(const std::string& what) {
    ++failures;
    if (messages.size() < 5)
      messages.push_back("thread " + std::to_string(tid) + " call " + std::to_string(call) + ": " + what);
  }
};

int pick(Ctx& c, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(c.rng); }
template <class T, size_t N>
T pick_of(Ctx& c, const T (&v)[N]) { return v[size_t(pick(c, 0, int(N) - 1))]; }

bool transposed(char t) { return t != 'N' && t != 'n'; }

// ---- operands in host or device memory --------------------------------------------------------

// Hands the library either the test's own padded buffers or device copies of them, and
// brings the device copies back afterwards (guards and padding included), reading on the
// calling thread's stream.
class Staging {
 public:
  explicit Staging(Ctx& c) : c_(c) {}
  ~Staging() {
    for (Item& i : items_) cudaFree(i.dev);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  // Where the library should see element 0 of `buf` (which starts `pad` elements before).
  template <class T>
  T* put(std::vector<T>& buf, size_t pad) {
    if (!c_.device) return buf.data() + pad;
    Item it{buf.data(), nullptr, buf.size() * sizeof(T)};
    // Uploaded on this thread's stream and waited for: a pageable cudaMemcpy may return
    // before its DMA lands, and a non-blocking stream would not wait for it.
    cudaError_t e = cudaMalloc(&it.dev, it.bytes);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(it.dev, it.host, it.bytes, cudaMemcpyHostToDevice, c_.stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(c_.stream);
    if (e != cudaSuccess) {
      ok_ = false;
      c_.fail(std::string("cannot stage an operand on the device: ") + cudaGetErrorString(e));
      if (it.dev) cudaFree(it.dev);
      return buf.data() + pad;  // the call is still made, its result is not judged
    }
    items_.push_back(it);
    return static_cast<T*>(it.dev) + pad;
  }

  // Copies every device operand back over its host buffer. With a stream set the copies go
  // on that stream and are waited for; without one the call has already completed.
  bool get_all() {
    if (!c_.device) return ok_;
    for (Item& it : items_) {
      cudaError_t e = cudaMemcpyAsync(it.host, it.dev, it.bytes, cudaMemcpyDeviceToHost, c_.stream);
      if (e == cudaSuccess) e = cudaStreamSynchronize(c_.stream);
      if (e != cudaSuccess) {
        c_.fail(std::string("cannot read a device operand back: ") + cudaGetErrorString(e));
        return false;
      }
    }
    return ok_;
  }

 private:
  struct Item {
    void* host;
    void* dev;
    size_t bytes;
  };
  Ctx& c_;
  std::vector<Item> items_;
  bool ok_ = true;
};

void check_path(Ctx& c, const std::string& call, const char* path) {
  const bool good = c.want_path.empty() ? std::strcmp(path, "none") != 0 : c.want_path == path;
  if (!good)
    c.fail(call + ": path " + path + ", expected " + (c.want_path.empty() ? "not none" : c.want_path));
}

// ---- error bounds ---------------------------------------------------------------------------

// scale(i,j) = |alpha| (|op(A)| |op(B)|)(i,j) + |beta| |C0(i,j)|, column-major, m x n packed.
// |op(A)||op(B)| comes from OpenBLAS on absolute values (cheap at these sizes); its own
// rounding only perturbs the bound by a relative k*eps.
std::vector<double> gemm_scale(char ta, char tb, int m, int n, int k, float alpha,
                               const float* a, int lda, const float* b, int ldb, float beta,
                               const float* c0, int ldc) {
  const int acols = transposed(ta) ? m : k, bcols = transposed(tb) ? k : n;
  std::vector<float> aa(size_t(lda) * acols), ab(size_t(ldb) * bcols), s(size_t(m) * n);
  for (size_t i = 0; i < aa.size(); ++i) aa[i] = std::fabs(a[i]);
  for (size_t i = 0; i < ab.size(); ++i) ab[i] = std::fabs(b[i]);
  mbtest::ref_sgemm(ta, tb, m, n, k, 1.f, aa.data(), lda, ab.data(), ldb, 0.f, s.data(), m);
  std::vector<double> scale(s.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const double cterm = beta == 0.f ? 0.0 : std::fabs(double(beta) * c0[i + size_t(j) * ldc]);
      scale[i + size_t(j) * m] = std::fabs(double(alpha)) * s[i + size_t(j) * m] + cterm;
    }
  return scale;
}

std::string worst_text(const mbtest::Worst& w) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "worst error %.3g x bound at (%d,%d): got %.9g, want %.9g",
                w.ratio, w.i, w.j, w.got, w.want);
  return buf;
}

const float kAlphas[] = {1.f, -1.f, 0.5f, -0.75f};  // never 0: every call computes
const float kBetas[] = {0.f, 1.f, -1.f, 0.5f};
const char kTrans[] = {'N', 'T', 'n', 't', 'C'};

int padded(Ctx& c, int rows) { return std::max(1, rows) + pick(c, 0, 3); }

// ---- the four kinds of call -----------------------------------------------------------------

// Column-major sgemm_.
void call_sgemm(Ctx& c, int lo, int hi) {
  const char ta = pick_of(c, kTrans), tb = pick_of(c, kTrans);
  const int m = pick(c, lo, hi), n = pick(c, lo, hi), k = pick(c, lo, hi);
  const float alpha = pick_of(c, kAlphas), beta = pick_of(c, kBetas);
  const int ar = transposed(ta) ? k : m, ac = transposed(ta) ? m : k;
  const int br = transposed(tb) ? n : k, bc = transposed(tb) ? k : n;
  mbtest::Matrix A(ar, ac, padded(c, ar), c.rng), B(br, bc, padded(c, br), c.rng),
      C(m, n, padded(c, m), c.rng);
  if (beta == 0.f) C.fill_nan();  // beta == 0 must not read C
  char desc[160];
  std::snprintf(desc, sizeof desc, "sgemm_('%c','%c') m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g",
                ta, tb, m, n, k, A.ld, B.ld, C.ld, alpha, beta);

  const std::vector<double> scale =
      gemm_scale(ta, tb, m, n, k, alpha, A.data(), A.ld, B.data(), B.ld, beta, C.data(), C.ld);
  mbtest::Matrix want = C;
  if (beta == 0.f)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) want.at(i, j) = 0.f;
  mbtest::ref_sgemm(ta, tb, m, n, k, alpha, A.data(), A.ld, B.data(), B.ld, beta, want.data(), want.ld);

  const std::vector<float> a0 = A.buf, b0 = B.buf;
  Staging st(c);
  const float* pa = st.put(A.buf, mbtest::Matrix::kPad);
  const float* pb = st.put(B.buf, mbtest::Matrix::kPad);
  float* pc = st.put(C.buf, mbtest::Matrix::kPad);
  sgemm_(&ta, &tb, &m, &n, &k, &alpha, pa, &A.ld, pb, &B.ld, &beta, pc, &C.ld);
  const char* path = myblas_last_path();
  if (!st.get_all()) return;

  check_path(c, desc, path);
  if (A.buf != a0 || B.buf != b0) c.fail(std::string(desc) + ": an input was modified");
  if (const int64_t bad = C.damaged_guards()) c.fail(std::string(desc) + ": " + std::to_string(bad) + " guards of C damaged");
  const mbtest::Worst w = mbtest::compare(C.data(), C.ld, want.data(), want.ld, scale, m, n, (k + 2) * kEps);
  if (!(w.ratio <= 1.0)) c.fail(std::string(desc) + " path " + path + ": " + worst_text(w));
}

// cblas_sgemm, row-major. A row-major R x S matrix with leading dimension ld is, in
// memory, the column-major S x R matrix (its transpose) with the same ld, so the
// reference is the column-major C^T = op(B)^T op(A)^T computed by OpenBLAS.
void call_cblas_sgemm_row(Ctx& c, int lo, int hi) {
  const CBLAS_TRANSPOSE tas[] = {CblasNoTrans, CblasTrans, CblasConjTrans};
  const CBLAS_TRANSPOSE ta = pick_of(c, tas), tb = pick_of(c, tas);
  const bool at = ta != CblasNoTrans, bt = tb != CblasNoTrans;
  const int M = pick(c, lo, hi), N = pick(c, lo, hi), K = pick(c, lo, hi);
  const float alpha = pick_of(c, kAlphas), beta = pick_of(c, kBetas);
  // Row-major op(A) is M x K: A is stored M x K (or K x M) by rows.
  const int a_rowlen = at ? M : K, a_nrows = at ? K : M;
  const int b_rowlen = bt ? K : N, b_nrows = bt ? N : K;
  mbtest::Matrix A(a_rowlen, a_nrows, padded(c, a_rowlen), c.rng),
      B(b_rowlen, b_nrows, padded(c, b_rowlen), c.rng), C(N, M, padded(c, N), c.rng);
  if (beta == 0.f) C.fill_nan();
  char desc[200];
  std::snprintf(desc, sizeof desc,
                "cblas_sgemm(RowMajor, %c, %c) M=%d N=%d K=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g",
                at ? 'T' : 'N', bt ? 'T' : 'N', M, N, K, A.ld, B.ld, C.ld, alpha, beta);

  // Column-major views: A's memory is op_a^T, B's is op_b^T, C's is C^T (N x M).
  const char cta = at ? 'T' : 'N', ctb = bt ? 'T' : 'N';
  const std::vector<double> scale =
      gemm_scale(ctb, cta, N, M, K, alpha, B.data(), B.ld, A.data(), A.ld, beta, C.data(), C.ld);
  mbtest::Matrix want = C;
  if (beta == 0.f)
    for (int j = 0; j < M; ++j)
      for (int i = 0; i < N; ++i) want.at(i, j) = 0.f;
  mbtest::ref_sgemm(ctb, cta, N, M, K, alpha, B.data(), B.ld, A.data(), A.ld, beta, want.data(), want.ld);

  const std::vector<float> a0 = A.buf, b0 = B.buf;
  Staging st(c);
  const float* pa = st.put(A.buf, mbtest::Matrix::kPad);
  const float* pb = st.put(B.buf, mbtest::Matrix::kPad);
  float* pc = st.put(C.buf, mbtest::Matrix::kPad);
  cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, alpha, pa, A.ld, pb, B.ld, beta, pc, C.ld);
  const char* path = myblas_last_path();
  if (!st.get_all()) return;

  check_path(c, desc, path);
  if (A.buf != a0 || B.buf != b0) c.fail(std::string(desc) + ": an input was modified");
  if (const int64_t bad = C.damaged_guards()) c.fail(std::string(desc) + ": " + std::to_string(bad) + " guards of C damaged");
  const mbtest::Worst w = mbtest::compare(C.data(), C.ld, want.data(), want.ld, scale, N, M, (K + 2) * kEps);
  if (!(w.ratio <= 1.0))
    c.fail(std::string(desc) + " path " + path + ": " + worst_text(w) + " (indices of C^T)");
}

// sgemv_ with strided and negative increments.
void call_sgemv(Ctx& c, int lo, int hi) {
  const char t = pick_of(c, kTrans);
  const int m = pick(c, lo, hi), n = pick(c, lo, hi);
  const int incs_x[] = {1, 2, -1, -3}, incs_y[] = {1, 3, -1, -2};
  const int incx = pick_of(c, incs_x), incy = pick_of(c, incs_y);
  const float alpha = pick_of(c, kAlphas), beta = pick_of(c, kBetas);
  const int lx = transposed(t) ? m : n, ly = transposed(t) ? n : m;
  mbtest::Matrix A(m, n, padded(c, m), c.rng);
  mbtest::Vector X(lx, incx, c.rng), Y(ly, incy, c.rng);
  if (beta == 0.f) Y.fill_nan();
  char desc[160];
  std::snprintf(desc, sizeof desc, "sgemv_('%c') m=%d n=%d lda=%d incx=%d incy=%d alpha=%g beta=%g",
                t, m, n, A.ld, incx, incy, alpha, beta);

  std::vector<double> scale(static_cast<size_t>(ly));
  for (int i = 0; i < ly; ++i) {
    double s = 0;
    for (int l = 0; l < lx; ++l)
      s += std::fabs(double(transposed(t) ? A.at(l, i) : A.at(i, l))) * std::fabs(double(X.at(l)));
    scale[size_t(i)] = std::fabs(double(alpha)) * s + (beta == 0.f ? 0.0 : std::fabs(double(beta) * Y.at(i)));
  }
  mbtest::Vector want = Y;
  if (beta == 0.f)
    for (int i = 0; i < ly; ++i) want.at(i) = 0.f;
  mbtest::ref_sgemv(t, m, n, alpha, A.data(), A.ld, X.data(), incx, beta, want.data(), incy);

  const std::vector<float> a0 = A.buf, x0 = X.buf;
  Staging st(c);
  const float* pa = st.put(A.buf, mbtest::Matrix::kPad);
  const float* px = st.put(X.buf, mbtest::Vector::kPad);
  float* py = st.put(Y.buf, mbtest::Vector::kPad);
  sgemv_(&t, &m, &n, &alpha, pa, &A.ld, px, &incx, &beta, py, &incy);
  const char* path = myblas_last_path();
  if (!st.get_all()) return;

  check_path(c, desc, path);
  if (A.buf != a0 || X.buf != x0) c.fail(std::string(desc) + ": an input was modified");
  if (const int64_t bad = Y.damaged_guards()) c.fail(std::string(desc) + ": " + std::to_string(bad) + " guards of y damaged");
  mbtest::Worst w;
  for (int i = 0; i < ly; ++i) {
    const double g = Y.at(i), r = want.at(i);
    const double ratio = std::fabs(g - r) / ((lx + 2) * kEps * scale[size_t(i)] + 1e-30);
    if (!(ratio <= w.ratio)) w = mbtest::Worst{std::isnan(ratio) ? INFINITY : ratio, i, 0, g, r};
  }
  if (!(w.ratio <= 1.0)) c.fail(std::string(desc) + " path " + path + ": " + worst_text(w));
}

// binary16 matrix with guards, column-major like mbtest::Matrix.
struct HalfMatrix {
  static constexpr int kPad = 16;
  int rows, cols, ld;
  std::vector<uint16_t> buf;
  HalfMatrix(int r, int c, int l, std::mt19937_64& rng) : rows(r), cols(c), ld(l) {
    buf.assign(size_t(kPad) * 2 + size_t(ld) * cols, mbtest::kGuardHalf);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) at(i, j) = myblas_float_to_half(mbtest::uniform(rng));
  }
  uint16_t& at(int i, int j) { return buf[kPad + i + size_t(j) * ld]; }
  // The same layout widened to FP32 (exact); padding left 0.
  std::vector<float> widened() {
    std::vector<float> f(size_t(ld) * cols, 0.f);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) f[i + size_t(j) * ld] = myblas_half_to_float(at(i, j));
    return f;
  }
  int64_t damaged_guards() const {
    int64_t bad = 0;
    for (size_t p = 0; p < buf.size(); ++p) {
      const int64_t off = int64_t(p) - kPad;
      const bool element = off >= 0 && off < int64_t(ld) * cols && off % ld < rows;
      if (!element) bad += buf[p] != mbtest::kGuardHalf;
    }
    return bad;
  }
};

// hgemm_: FP32 accumulation and one rounding to binary16, so the bound is the FP32 one plus
// half an ulp of binary16 (2^-11 relative, 2^-25 absolute among subnormals; doubled).
void call_hgemm(Ctx& c, int lo, int hi) {
  const char ta = pick_of(c, kTrans), tb = pick_of(c, kTrans);
  const int m = pick(c, lo, hi), n = pick(c, lo, hi), k = pick(c, lo, hi);
  const float alpha = pick_of(c, kAlphas), beta = pick_of(c, kBetas);
  const int ar = transposed(ta) ? k : m, ac = transposed(ta) ? m : k;
  const int br = transposed(tb) ? n : k, bc = transposed(tb) ? k : n;
  HalfMatrix A(ar, ac, padded(c, ar), c.rng), B(br, bc, padded(c, br), c.rng),
      C(m, n, padded(c, m), c.rng);
  if (beta == 0.f)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) C.at(i, j) = 0x7E00;  // NaN: beta == 0 must not read C
  char desc[160];
  std::snprintf(desc, sizeof desc, "hgemm_('%c','%c') m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g",
                ta, tb, m, n, k, A.ld, B.ld, C.ld, alpha, beta);

  const std::vector<float> fa = A.widened(), fb = B.widened();
  std::vector<float> want = C.widened();
  if (beta == 0.f) std::fill(want.begin(), want.end(), 0.f);
  const std::vector<double> scale =
      gemm_scale(ta, tb, m, n, k, alpha, fa.data(), A.ld, fb.data(), B.ld, beta, want.data(), C.ld);
  mbtest::ref_sgemm(ta, tb, m, n, k, alpha, fa.data(), A.ld, fb.data(), B.ld, beta, want.data(), C.ld);

  const std::vector<uint16_t> a0 = A.buf, b0 = B.buf;
  const uint16_t halpha = myblas_float_to_half(alpha), hbeta = myblas_float_to_half(beta);
  Staging st(c);
  const uint16_t* pa = st.put(A.buf, HalfMatrix::kPad);
  const uint16_t* pb = st.put(B.buf, HalfMatrix::kPad);
  uint16_t* pc = st.put(C.buf, HalfMatrix::kPad);
  hgemm_(&ta, &tb, &m, &n, &k, &halpha, pa, &A.ld, pb, &B.ld, &hbeta, pc, &C.ld);
  const char* path = myblas_last_path();
  if (!st.get_all()) return;

  check_path(c, desc, path);
  if (A.buf != a0 || B.buf != b0) c.fail(std::string(desc) + ": an input was modified");
  if (const int64_t bad = C.damaged_guards()) c.fail(std::string(desc) + ": " + std::to_string(bad) + " guards of C damaged");
  mbtest::Worst w;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const double g = myblas_half_to_float(C.at(i, j)), r = want[i + size_t(j) * C.ld];
      const double bound = (k + 2) * kEps * scale[i + size_t(j) * m] + std::ldexp(std::fabs(r), -10) +
                           std::ldexp(1.0, -24);
      const double ratio = std::fabs(g - r) / bound;
      if (!(ratio <= w.ratio)) w = mbtest::Worst{std::isnan(ratio) ? INFINITY : ratio, i, j, g, r};
    }
  if (!(w.ratio <= 1.0)) c.fail(std::string(desc) + " path " + path + ": " + worst_text(w));
}

// ---- the threads ----------------------------------------------------------------------------

struct Phase {
  int calls, lo, hi;  // this many calls with every dimension in [lo, hi]
};

struct Plan {
  std::vector<Phase> phases;
  bool device = false;
  bool streams = false;  // odd-numbered threads set their own CUDA stream
};

void worker(Ctx& c, const Plan& plan, std::atomic<int>& ready) {
  c.rng.seed(c.seed);
  if (plan.streams && c.tid % 2 == 1) {
    cudaError_t e = cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
      c.fail(std::string("cudaStreamCreate: ") + cudaGetErrorString(e));
      c.stream = nullptr;
    } else if (myblas_set_stream(c.stream) != 0 || myblas_get_stream() != c.stream) {
      c.fail("myblas_set_stream did not take this thread's stream");
    }
  }
  // Start together, so that the calls really overlap.
  ready.fetch_add(1);
  while (ready.load() < kThreads) std::this_thread::yield();

  for (const Phase& ph : plan.phases)
    for (int i = 0; i < ph.calls; ++i, ++c.call) {
      switch (pick(c, 0, 3)) {
        case 0: call_sgemm(c, ph.lo, ph.hi); break;
        case 1: call_cblas_sgemm_row(c, ph.lo, ph.hi); break;
        case 2: call_sgemv(c, ph.lo, ph.hi); break;
        default: call_hgemm(c, ph.lo, ph.hi); break;
      }
    }

  if (c.stream) {
    // Another thread's setting must not have leaked into this one, nor this one's away.
    if (myblas_get_stream() != c.stream) c.fail("this thread's stream changed under it");
    myblas_set_stream(nullptr);
    cudaStreamDestroy(c.stream);
  } else if (myblas_get_stream() != nullptr) {
    c.fail("a stream appeared on a thread that never set one");
  }
}

void run_threads(const Plan& plan) {
  const uint64_t base = mbtest::test_seed();
  std::vector<Ctx> ctx(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    ctx[t].tid = t;
    ctx[t].seed = base + 0x9E3779B97F4A7C15ull * uint64_t(t + 1);
    ctx[t].device = plan.device;
    ctx[t].want_path = forced_path();
    threads.emplace_back(worker, std::ref(ctx[t]), std::cref(plan), std::ref(ready));
  }
  for (std::thread& th : threads) th.join();
  int calls = 0;
  for (const Ctx& c : ctx) {
    calls += c.call;
    if (!c.failures) continue;
    std::string all;
    for (const std::string& m : c.messages) all += "\n  " + m;
    ADD_FAILURE() << c.failures << " failed calls in thread " << c.tid << " (MYBLAS_TEST_SEED=" << base
                  << ", thread seed " << c.seed << ", reference " << mbtest::ref_name() << "):" << all;
  }
  int planned = 0;
  for (const Phase& ph : plan.phases) planned += ph.calls;
  EXPECT_EQ(calls, planned * kThreads);
}

// A GPU is needed for MYBLAS_BACKEND=cublas to mean anything: without one every call runs
// on the CPU and the forced path cannot be checked.
bool cublas_without_gpu() { return forced_path() == "cublas" && !myblas_gpu_available(); }

TEST(Concurrency, MixedCallsHostOperands) {
  if (cublas_without_gpu()) GTEST_SKIP() << "MYBLAS_BACKEND=cublas needs a GPU";
  Plan plan;
  plan.phases = {{200, 1, 200}};
  // With a GPU path in play, odd threads also set a stream: calls on host memory must
  // still be complete when they return, since these results are read without a sync.
  plan.streams = forced_path() != "cpu" && myblas_gpu_available();
  run_threads(plan);
}

TEST(Concurrency, LargeShapesHostOperands) {
  if (cublas_without_gpu()) GTEST_SKIP() << "MYBLAS_BACKEND=cublas needs a GPU";
  Plan plan;
  plan.phases = {{4, 300, 600}};
  run_threads(plan);
}

TEST(ConcurrencyDevice, MixedCallsDeviceOperandsAndStreams) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no usable CUDA device";
  Plan plan;
  plan.phases = {{120, 1, 200}, {2, 500, 900}};
  plan.device = true;
  plan.streams = true;
  run_threads(plan);
}

}  // namespace
