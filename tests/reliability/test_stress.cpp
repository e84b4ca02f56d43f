// 16 threads x 10,000 calls each (MYBLAS_STRESS_CALLS overrides the count), every entry point
// mixed at random: sgemm_, cblas_sgemm (both layouts), sgemv_, cblas_sgemv (both layouts,
// negative and strided increments), hgemm_, hgemm, cblas_hgemm. Small shapes (1..16), so the
// run is about the library's own per-call machinery under load (one-time initialisation,
// the thread-local last path, the CPU BLAS handle, logging state, GPU handles and scratch),
// not about the BLAS arithmetic. Each call is checked against OpenBLAS with a k-scaled bound,
// with guards around every operand and NaN in C/y when beta == 0.
//
//   Stress.HostOperands          host pointers; the path must be the one MYBLAS_BACKEND forces
//                                ("cpu" in the cpu entry; "cublas"/"kernels" in the gpu one)
//   StressDevice.DeviceOperands  device pointers under MYBLAS_BACKEND=auto: every call on the GPU
//
// Seeds: MYBLAS_TEST_SEED (else the clock) is printed with every failure.
// The same program runs under ThreadSanitizer (tests/reliability/run_tsan.sh) with fewer calls.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
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

constexpr int kThreads = 16;
constexpr int kMaxDim = 16;
constexpr double kEps = std::numeric_limits<float>::epsilon();

int calls_per_thread() {
  const char* s = std::getenv("MYBLAS_STRESS_CALLS");
  return s ? std::max(1, std::atoi(s)) : 10000;
}

std::string backend() {
  const char* b = std::getenv("MYBLAS_BACKEND");
  std::string s = b ? b : "";
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s.empty() ? "auto" : s;
}

// One thread's state. Device mode keeps three device buffers per thread for the whole run,
// so the load is on the library, not on cudaMalloc.
struct Worker {
  int tid = 0;
  uint64_t seed = 0;
  std::mt19937_64 rng;
  bool device = false;
  bool gpu_path = false;  // the path must be a GPU one ("cublas" or "kernels"), else "cpu"
  void* dbuf[3] = {nullptr, nullptr, nullptr};
  size_t dbytes = 0;
  int call = 0, failures = 0;
  std::vector<std::string> messages;

  void fail(const std::string& what) {
    ++failures;
    if (messages.size() < 5) messages.push_back("call " + std::to_string(call) + ": " + what);
  }
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  // Where the library sees element 0 of host buffer `buf` (slot 0..2). In device mode the
  // whole buffer, guards included, goes to the device and comes back in after().
  template <class T>
  T* put(int slot, std::vector<T>& buf, size_t pad) {
    if (!device) return buf.data() + pad;
    if (cudaMemcpy(dbuf[slot], buf.data(), buf.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
      fail("cudaMemcpy to the device failed");
    return static_cast<T*>(dbuf[slot]) + pad;
  }
  template <class T>
  void after(int slot, std::vector<T>& buf) {
    if (device && cudaMemcpy(buf.data(), dbuf[slot], buf.size() * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess)
      fail("cudaMemcpy from the device failed");
  }
  void check_path(const std::string& desc) {
    const std::string p = myblas_last_path();
    const bool ok = gpu_path ? (p == "cublas" || p == "kernels") : p == "cpu";
    if (!ok) fail(desc + ": path " + p + ", expected " + (gpu_path ? "a GPU path" : "cpu"));
  }
};

const float kAlphas[] = {1.f, -1.f, 0.5f, -0.75f, 2.f};
const float kBetas[] = {0.f, 1.f, -1.f, 0.5f};
const char kTrans[] = {'N', 'T', 'n', 't', 'C', 'c'};
bool transposed(char t) { return t != 'N' && t != 'n'; }

std::string worst_text(const mbtest::Worst& w) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "worst error %.3g x bound at (%d,%d): got %.9g, want %.9g", w.ratio, w.i, w.j,
                w.got, w.want);
  return buf;
}

// sum_l |op(A)(i,l)| |op(B)(l,j)| * |alpha| + |beta C0(i,j)|: the scale of the k-scaled bound.
std::vector<double> gemm_scale(char ta, char tb, int m, int n, int k, float alpha, const std::vector<float>& a,
                               int lda, const std::vector<float>& b, int ldb, float beta,
                               const std::vector<float>& c0, int ldc) {
  std::vector<double> s(size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double acc = 0;
      for (int l = 0; l < k; ++l) {
        const float x = transposed(ta) ? a[l + size_t(i) * lda] : a[i + size_t(l) * lda];
        const float y = transposed(tb) ? b[j + size_t(l) * ldb] : b[l + size_t(j) * ldb];
        acc += std::fabs(double(x) * y);
      }
      s[i + size_t(j) * m] =
          std::fabs(double(alpha)) * acc + (beta == 0.f ? 0.0 : std::fabs(double(beta) * c0[i + size_t(j) * ldc]));
    }
  return s;
}

// binary16 storage with guards, column-major.
struct HalfMatrix {
  static constexpr int kPad = 16;
  int rows, cols, ld;
  std::vector<uint16_t> buf;
  HalfMatrix(int r, int c, int l, std::mt19937_64& rng) : rows(r), cols(c), ld(l) {
    buf.assign(size_t(2 * kPad) + size_t(ld) * cols, mbtest::kGuardHalf);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) at(i, j) = myblas_float_to_half(mbtest::uniform(rng));
  }
  uint16_t& at(int i, int j) { return buf[kPad + i + size_t(j) * ld]; }
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

// ---- SGEMM: sgemm_ or cblas_sgemm, column- or row-major ------------------------------------

void call_sgemm(Worker& w, bool cblas, bool row) {
  const char ta = kTrans[w.pick(0, 5)], tb = kTrans[w.pick(0, 5)];
  const int m = w.pick(1, kMaxDim), n = w.pick(1, kMaxDim), k = w.pick(1, kMaxDim);
  const float alpha = kAlphas[w.pick(0, 4)], beta = kBetas[w.pick(0, 3)];
  // The column-major problem the memory describes: row-major C = op(A) op(B) is stored as
  // column-major C^T = op(B)^T op(A)^T, i.e. the same call with A/B and m/n exchanged.
  const int cm = row ? n : m, cn = row ? m : n;
  const char cta = row ? tb : ta, ctb = row ? ta : tb;
  const int ar = transposed(cta) ? k : cm, ac = transposed(cta) ? cm : k;
  const int br = transposed(ctb) ? cn : k, bc = transposed(ctb) ? k : cn;
  mbtest::Matrix A(ar, ac, ar + w.pick(0, 2), w.rng), B(br, bc, br + w.pick(0, 2), w.rng),
      C(cm, cn, cm + w.pick(0, 2), w.rng);
  if (beta == 0.f) C.fill_nan();
  char desc[200];
  std::snprintf(desc, sizeof desc, "%s(%s'%c','%c') m=%d n=%d k=%d alpha=%g beta=%g", cblas ? "cblas_sgemm" : "sgemm_",
                row ? "Row," : "", ta, tb, m, n, k, alpha, beta);

  const std::vector<double> scale = gemm_scale(cta, ctb, cm, cn, k, alpha, std::vector<float>(A.buf.begin() + 16, A.buf.end()),
                                               A.ld, std::vector<float>(B.buf.begin() + 16, B.buf.end()), B.ld, beta,
                                               std::vector<float>(C.buf.begin() + 16, C.buf.end()), C.ld);
  mbtest::Matrix want = C;
  if (beta == 0.f)
    for (int j = 0; j < cn; ++j)
      for (int i = 0; i < cm; ++i) want.at(i, j) = 0.f;
  mbtest::ref_sgemm(cta, ctb, cm, cn, k, alpha, A.data(), A.ld, B.data(), B.ld, beta, want.data(), want.ld);

  const std::vector<float> a0 = A.buf, b0 = B.buf;
  // Row-major: the user's A is the memory we called B in the column-major view.
  std::vector<float>& ua = row ? B.buf : A.buf;
  std::vector<float>& ub = row ? A.buf : B.buf;
  const int ulda = row ? B.ld : A.ld, uldb = row ? A.ld : B.ld;
  const float* pa = w.put(0, ua, 16);
  const float* pb = w.put(1, ub, 16);
  float* pc = w.put(2, C.buf, 16);
  if (cblas)
    cblas_sgemm(row ? CblasRowMajor : CblasColMajor,
                transposed(ta) ? (ta == 'C' || ta == 'c' ? CblasConjTrans : CblasTrans) : CblasNoTrans,
                transposed(tb) ? CblasTrans : CblasNoTrans, m, n, k, alpha, pa, ulda, pb, uldb, beta, pc, C.ld);
  else
    sgemm_(&ta, &tb, &m, &n, &k, &alpha, pa, &ulda, pb, &uldb, &beta, pc, &C.ld);
  w.check_path(desc);
  w.after(0, ua);
  w.after(1, ub);
  w.after(2, C.buf);
  if (A.buf != a0 || B.buf != b0) w.fail(std::string(desc) + ": an input changed");
  if (const int64_t bad = C.damaged_guards()) w.fail(std::string(desc) + ": " + std::to_string(bad) + " guards of C changed");
  const mbtest::Worst r = mbtest::compare(C.data(), C.ld, want.data(), want.ld, scale, cm, cn, (k + 2) * kEps);
  if (!(r.ratio <= 1.0)) w.fail(std::string(desc) + ": " + worst_text(r));
}

// ---- SGEMV: sgemv_ or cblas_sgemv --------------------------------------------------------------

void call_sgemv(Worker& w, bool cblas, bool row) {
  const char t = kTrans[w.pick(0, 5)];
  const int m = w.pick(1, kMaxDim), n = w.pick(1, kMaxDim);
  const int incs[] = {1, 2, -1, -3};
  const int incx = incs[w.pick(0, 3)], incy = incs[w.pick(0, 3)];
  const float alpha = kAlphas[w.pick(0, 4)], beta = kBetas[w.pick(0, 3)];
  // Row-major A (m x n) is the column-major n x m matrix A^T: flip the transpose.
  const int cm = row ? n : m, cn = row ? m : n;
  const bool ct = row ? !transposed(t) : transposed(t);
  const int lx = ct ? cm : cn, ly = ct ? cn : cm;
  mbtest::Matrix A(cm, cn, cm + w.pick(0, 2), w.rng);
  mbtest::Vector X(lx, incx, w.rng), Y(ly, incy, w.rng);
  if (beta == 0.f) Y.fill_nan();
  char desc[200];
  std::snprintf(desc, sizeof desc, "%s(%s'%c') m=%d n=%d incx=%d incy=%d alpha=%g beta=%g",
                cblas ? "cblas_sgemv" : "sgemv_", row ? "Row," : "", t, m, n, incx, incy, alpha, beta);
  std::vector<double> scale(size_t(ly), 0.0);
  for (int i = 0; i < ly; ++i) {
    double s = 0;
    for (int l = 0; l < lx; ++l) s += std::fabs(double(ct ? A.at(l, i) : A.at(i, l)) * X.at(l));
    scale[size_t(i)] = std::fabs(double(alpha)) * s + (beta == 0.f ? 0.0 : std::fabs(double(beta) * Y.at(i)));
  }
  mbtest::Vector want = Y;
  if (beta == 0.f)
    for (int i = 0; i < ly; ++i) want.at(i) = 0.f;
  mbtest::ref_sgemv(ct ? 'T' : 'N', cm, cn, alpha, A.data(), A.ld, X.data(), incx, beta, want.data(), incy);

  const std::vector<float> a0 = A.buf, x0 = X.buf;
  const float* pa = w.put(0, A.buf, 16);
  const float* px = w.put(1, X.buf, 16);
  float* py = w.put(2, Y.buf, 16);
  if (cblas)
    cblas_sgemv(row ? CblasRowMajor : CblasColMajor, transposed(t) ? CblasTrans : CblasNoTrans, m, n, alpha, pa,
                A.ld, px, incx, beta, py, incy);
  else
    sgemv_(&t, &m, &n, &alpha, pa, &A.ld, px, &incx, &beta, py, &incy);
  w.check_path(desc);
  w.after(0, A.buf);
  w.after(1, X.buf);
  w.after(2, Y.buf);
  if (A.buf != a0 || X.buf != x0) w.fail(std::string(desc) + ": an input changed");
  if (const int64_t bad = Y.damaged_guards()) w.fail(std::string(desc) + ": " + std::to_string(bad) + " guards of y changed");
  for (int i = 0; i < ly; ++i) {
    const double g = Y.at(i), r = want.at(i);
    const double bound = (lx + 2) * kEps * scale[size_t(i)] + 1e-30;
    if (!(std::fabs(g - r) <= bound)) {
      char buf[120];
      std::snprintf(buf, sizeof buf, ": y(%d) = %.9g, want %.9g (bound %.3g)", i, g, r, bound);
      w.fail(desc + std::string(buf));
      return;
    }
  }
}

// ---- HGEMM: hgemm_, hgemm or cblas_hgemm (column-major; cblas also row-major) ----------------

void call_hgemm(Worker& w, int entry, bool row) {
  const char ta = kTrans[w.pick(0, 5)], tb = kTrans[w.pick(0, 5)];
  const int m = w.pick(1, kMaxDim), n = w.pick(1, kMaxDim), k = w.pick(1, kMaxDim);
  const float alpha = kAlphas[w.pick(0, 4)], beta = kBetas[w.pick(0, 3)];
  const int cm = row ? n : m, cn = row ? m : n;
  const char cta = row ? tb : ta, ctb = row ? ta : tb;
  const int ar = transposed(cta) ? k : cm, ac = transposed(cta) ? cm : k;
  const int br = transposed(ctb) ? cn : k, bc = transposed(ctb) ? k : cn;
  HalfMatrix A(ar, ac, ar + w.pick(0, 2), w.rng), B(br, bc, br + w.pick(0, 2), w.rng), C(cm, cn, cm + w.pick(0, 2), w.rng);
  if (beta == 0.f)
    for (int j = 0; j < cn; ++j)
      for (int i = 0; i < cm; ++i) C.at(i, j) = 0x7E00;  // NaN: must not be read
  static const char* const names[] = {"hgemm_", "hgemm", "cblas_hgemm"};
  char desc[200];
  std::snprintf(desc, sizeof desc, "%s(%s'%c','%c') m=%d n=%d k=%d alpha=%g beta=%g", names[entry], row ? "Row," : "",
                ta, tb, m, n, k, alpha, beta);
  const std::vector<float> fa = A.widened(), fb = B.widened();
  std::vector<float> want = C.widened();
  if (beta == 0.f) std::fill(want.begin(), want.end(), 0.f);
  const std::vector<double> scale = gemm_scale(cta, ctb, cm, cn, k, alpha, fa, A.ld, fb, B.ld, beta, want, C.ld);
  mbtest::ref_sgemm(cta, ctb, cm, cn, k, alpha, fa.data(), A.ld, fb.data(), B.ld, beta, want.data(), C.ld);

  const std::vector<uint16_t> a0 = A.buf, b0 = B.buf;
  std::vector<uint16_t>& ua = row ? B.buf : A.buf;
  std::vector<uint16_t>& ub = row ? A.buf : B.buf;
  const int ulda = row ? B.ld : A.ld, uldb = row ? A.ld : B.ld;
  const uint16_t ha = myblas_float_to_half(alpha), hb = myblas_float_to_half(beta);
  const uint16_t* pa = w.put(0, ua, HalfMatrix::kPad);
  const uint16_t* pb = w.put(1, ub, HalfMatrix::kPad);
  uint16_t* pc = w.put(2, C.buf, HalfMatrix::kPad);
  if (entry == 2)
    cblas_hgemm(row ? CblasRowMajor : CblasColMajor, transposed(ta) ? CblasTrans : CblasNoTrans,
                transposed(tb) ? CblasTrans : CblasNoTrans, m, n, k, ha, pa, ulda, pb, uldb, hb, pc, C.ld);
  else
    (entry == 0 ? hgemm_ : hgemm)(&ta, &tb, &m, &n, &k, &ha, pa, &ulda, pb, &uldb, &hb, pc, &C.ld);
  w.check_path(desc);
  w.after(0, ua);
  w.after(1, ub);
  w.after(2, C.buf);
  if (A.buf != a0 || B.buf != b0) w.fail(std::string(desc) + ": an input changed");
  if (const int64_t bad = C.damaged_guards()) w.fail(std::string(desc) + ": " + std::to_string(bad) + " guards of C changed");
  for (int j = 0; j < cn; ++j)
    for (int i = 0; i < cm; ++i) {
      const double g = myblas_half_to_float(C.at(i, j)), r = want[i + size_t(j) * C.ld];
      // FP32 accumulation bound plus one rounding to binary16 (doubled).
      const double bound = (k + 2) * kEps * scale[i + size_t(j) * cm] + std::ldexp(std::fabs(r), -10) + std::ldexp(1.0, -24);
      if (!(std::fabs(g - r) <= bound)) {
        char buf[120];
        std::snprintf(buf, sizeof buf, ": C(%d,%d) = %.9g, want %.9g (bound %.3g)", i, j, g, r, bound);
        w.fail(desc + std::string(buf));
        return;
      }
    }
}

void work(Worker& w, int calls, std::atomic<int>& ready) {
  w.rng.seed(w.seed);
  if (w.device) {
    // Largest operand: (16 + 2) x 16 elements plus 2 x 16 guards, FP32.
    w.dbytes = sizeof(float) * (2 * 16 + (kMaxDim + 2) * kMaxDim + 64);
    for (void*& p : w.dbuf)
      if (cudaMalloc(&p, w.dbytes) != cudaSuccess) {
        w.fail("cudaMalloc failed");
        return;
      }
  }
  ready.fetch_add(1);
  while (ready.load() < kThreads) std::this_thread::yield();  // start together
  for (; w.call < calls; ++w.call) {
    switch (w.pick(0, 9)) {
      case 0: call_sgemm(w, false, false); break;
      case 1: call_sgemm(w, true, false); break;
      case 2: call_sgemm(w, true, true); break;
      case 3: call_sgemv(w, false, false); break;
      case 4: call_sgemv(w, true, false); break;
      case 5: call_sgemv(w, true, true); break;
      case 6: call_hgemm(w, 0, false); break;
      case 7: call_hgemm(w, 1, false); break;
      case 8: call_hgemm(w, 2, false); break;
      default: call_hgemm(w, 2, true); break;
    }
  }
  for (void* p : w.dbuf) cudaFree(p);
}

void run(bool device, bool gpu_path) {
  const uint64_t base = mbtest::test_seed();
  const int calls = calls_per_thread();
  std::vector<Worker> ws(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    ws[t].tid = t;
    ws[t].seed = base + 0x9E3779B97F4A7C15ull * uint64_t(t + 1);
    ws[t].device = device;
    ws[t].gpu_path = gpu_path;
    threads.emplace_back(work, std::ref(ws[t]), calls, std::ref(ready));
  }
  for (std::thread& th : threads) th.join();
  int done = 0;
  for (const Worker& w : ws) {
    done += w.call;
    if (!w.failures) continue;
    std::string all;
    for (const std::string& m : w.messages) all += "\n  " + m;
    ADD_FAILURE() << w.failures << " failed calls in thread " << w.tid << " (MYBLAS_TEST_SEED=" << base
                  << ", thread seed " << w.seed << "):" << all;
  }
  EXPECT_EQ(done, calls * kThreads);  // no thread gave up early
  std::printf("%d threads x %d calls, MYBLAS_BACKEND=%s, %s operands\n", kThreads, calls, backend().c_str(),
              device ? "device" : "host");
}

TEST(Stress, HostOperands) {
  const std::string b = backend();
  if (b == "cublas" || b == "kernels") {
    if (!myblas_gpu_available()) GTEST_SKIP() << "MYBLAS_BACKEND=" << b << " needs a GPU: none usable here";
    run(false, true);
  } else {
    run(false, false);  // cpu, or auto with host operands: the CPU path
  }
}

TEST(StressDevice, DeviceOperands) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no usable CUDA device";
  ASSERT_EQ(backend(), "auto") << "this case is for MYBLAS_BACKEND=auto";
  run(true, true);
}

}  // namespace
