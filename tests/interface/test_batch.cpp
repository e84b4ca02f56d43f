// The batched entry points (?gemm_batch, ?gemm_batch_strided, ?gemv_batch, ?gemv_batch_strided in
// Fortran and CBLAS forms, S, D, C, Z and H for GEMM) against a loop of OpenBLAS calls
// (cblas_?gemm / cblas_?gemv of the same layout, on clean copies of the operands), and every
// illegal argument against the positions MKL's argument lists give.
//
// Each case: groups of mixed shapes, transposes and scalars (alpha, beta in {0, 1, -1, 0.5}, complex
// ones with imaginary parts), a zero-size group, leading dimensions and strides larger than needed
// with guard values in the padding that must survive, NaN in C where beta == 0 and NaN in A and B
// (x) where alpha == 0 (never read), stride 0 for A or B, and inputs bitwise unchanged. Cases named
// *Device* put every operand (and the pointer arrays' targets) in device memory and skip without
// a GPU. This executable defines xerbla_ and cblas_xerbla (linked with ENABLE_EXPORTS), so the
// library reports to them.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdarg>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/data.h"
#include "myblas.h"

// ---- the handlers ----
namespace {
struct Report {
  bool cblas = false;
  std::string routine;
  int info = 0;
};
std::mutex g_mutex;
std::vector<Report> g_reports;
std::vector<Report> take_reports() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<Report> r;
  r.swap(g_reports);
  return r;
}
}  // namespace

extern "C" void xerbla_(const char* srname, const int* info, int srname_len) {
  const int len = (srname_len > 0 && srname_len <= 32) ? srname_len : 6;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_reports.push_back({false, std::string(srname, size_t(len)), *info});
}
extern "C" void cblas_xerbla(int info, const char* rout, const char* form, ...) {
  (void)form;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_reports.push_back({true, rout ? rout : "(null)", info});
}

namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;
struct Half {  // binary16 storage
  uint16_t bits;
};

template <class T>
constexpr char letter() {
  if constexpr (std::is_same_v<T, float>) return 's';
  if constexpr (std::is_same_v<T, double>) return 'd';
  if constexpr (std::is_same_v<T, cf>) return 'c';
  if constexpr (std::is_same_v<T, cd>) return 'z';
  return 'h';
}
template <class T>
constexpr bool kComplex = std::is_same_v<T, cf> || std::is_same_v<T, cd>;
template <class T>
double eps() {
  if constexpr (std::is_same_v<T, Half>) return std::ldexp(1.0, -11);
  else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, cf>) return std::ldexp(1.0, -24);
  else return std::ldexp(1.0, -53);
}

// Values as complex<double> for the comparison.
template <class T>
cd val(const T& v) {
  if constexpr (std::is_same_v<T, Half>) return cd(myblas_half_to_float(v.bits), 0);
  else if constexpr (kComplex<T>) return cd(v.real(), v.imag());
  else return cd(double(v), 0);
}
template <class T>
T make(cd v) {
  if constexpr (std::is_same_v<T, Half>) return Half{myblas_float_to_half(float(v.real()))};
  else if constexpr (kComplex<T>) return T(typename T::value_type(v.real()), typename T::value_type(v.imag()));
  else return T(v.real());
}
template <class T>
T guard() { return make<T>(cd(mbtest::kGuard, kComplex<T> ? 3.5 : 0)); }
template <class T>
T nan_value() {
  const double n = std::numeric_limits<double>::quiet_NaN();
  if constexpr (std::is_same_v<T, Half>) return Half{0x7E00};
  else return make<T>(cd(n, kComplex<T> ? n : 0));
}
template <class T>
bool same(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }
template <class T>
T random_value(std::mt19937_64& rng) {
  return make<T>(cd(mbtest::uniform(rng), kComplex<T> ? mbtest::uniform(rng) : 0));
}

// ---- the reference: OpenBLAS's CBLAS, loaded by name ----
void* openblas() {
  static void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  return h;
}
template <class T>
void* ref_symbol(const char* family) {
  const char l = std::is_same_v<T, Half> ? 's' : letter<T>();
  return dlsym(openblas(), (std::string("cblas_") + l + family).c_str());
}

// A matrix or vector operand as the user stores it: `elems` elements (layout and padding
// included), guards everywhere outside the logical elements.
template <class T>
struct Buf {
  static constexpr int kPad = 16;
  std::vector<T> v;
  void* dev = nullptr;
  T* data() { return v.data() + kPad; }
};

enum class Api { fortran, cblas_col, cblas_row };
// listed: pointer arrays, one buffer per product; strided: the strided call; stepped: pointer
// arrays over the strided form's buffers (each operand's pointers a constant step apart, shared
// A or B all equal), which the library takes as the strided group they describe.
enum class Form { listed, strided, stepped };
bool row(Api a) { return a == Api::cblas_row; }
int cblas_t(char c) { return c == 'N' ? CblasNoTrans : c == 'T' ? CblasTrans : CblasConjTrans; }

struct GroupSpec {
  char ta = 'N', tb = 'N';
  int m = 1, n = 1, k = 1;  // gemv: A m x n
  cd alpha{1, 0}, beta{0, 0};
  int count = 1;
  int pad = 2;               // leading dimension to spare
  int incx = 1, incy = 1;    // gemv
  bool share_a = false, share_b = false;  // strided form: stride 0
};

// Element (i, j) of a stored rows x cols matrix: column-major with ld, or row-major.
inline int64_t at(bool row_major, int64_t i, int64_t j, int64_t ld) { return row_major ? i * ld + j : i + j * ld; }
// Vector element i of len with increment inc (from the lowest address).
inline int64_t vat(int64_t i, int64_t len, int inc) { return inc > 0 ? i * inc : (len - 1 - i) * int64_t(-inc); }

template <class T>
struct Runner {
  bool gemv;
  Api api;
  Form form;
  bool device;
  std::vector<GroupSpec> groups;
  std::mt19937_64& rng;

  struct Op {
    bool vec;
    int64_t rows, cols, ld;  // matrix: stored dims in the user's layout (row-major: rows x cols by rows)
    int64_t len;
    int inc;
    int64_t span() const {
      if (vec) return len > 0 ? (len - 1) * std::abs(inc) + 1 : 1;
      return std::max<int64_t>(1, ld * std::max<int64_t>(1, rm ? rows : cols));
    }
    bool rm;
    bool in(int64_t e) const {  // element offset e holds data (not padding)
      if (vec) return len > 0 && e % std::abs(inc) == 0 && e / std::abs(inc) < len;
      const int64_t a = e / ld, b = e % ld;  // a: major index
      return rm ? (a < rows && b < cols) : (a < cols && b < rows);
    }
  };

  // Stored shapes of A, B (x), C (y) of group g.
  Op op_of(const GroupSpec& g, int which) const {
    const bool rm = row(api);
    Op o{};
    o.rm = rm;
    if (gemv) {
      if (which == 0) {
        o.vec = false, o.rows = g.m, o.cols = g.n;
      } else {
        const bool t = g.ta != 'N';
        o.vec = true;
        o.len = which == 1 ? (t ? g.m : g.n) : (t ? g.n : g.m);
        o.inc = which == 1 ? g.incx : g.incy;
        return o;
      }
    } else if (which == 0) {
      o.rows = g.ta == 'N' ? g.m : g.k, o.cols = g.ta == 'N' ? g.k : g.m;
    } else if (which == 1) {
      o.rows = g.tb == 'N' ? g.k : g.n, o.cols = g.tb == 'N' ? g.n : g.k;
    } else {
      o.rows = g.m, o.cols = g.n;
    }
    o.vec = false;
    o.ld = std::max<int64_t>(1, rm ? o.cols : o.rows) + g.pad;
    return o;
  }

  // Per group and operand: the buffer (listed: one per product; strided: one for the group).
  struct GroupData {
    Op ops[3];
    int64_t stride[3] = {0, 0, 0};
    std::vector<Buf<T>> bufs[3];       // ours (poisoned where never read)
    std::vector<Buf<T>> clean[3];      // the reference's copies
    std::vector<std::vector<T>> before[3];  // ours as passed in
  };
  std::vector<GroupData> data;

  void build() {
    data.resize(groups.size());
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const GroupSpec& g = groups[gi];
      GroupData& d = data[gi];
      for (int w = 0; w < 3; ++w) {
        d.ops[w] = op_of(g, w);
        const int64_t span = d.ops[w].span();
        const bool shared = form != Form::listed && ((w == 0 && g.share_a) || (w == 1 && g.share_b));
        d.stride[w] = shared ? 0 : span + 3;  // 3 guards between products
        const int nbuf = form == Form::listed ? g.count : 1;
        const int64_t elems = form == Form::listed ? span : (g.count > 0 ? (g.count - 1) * d.stride[w] + span : 1);
        for (int b = 0; b < nbuf; ++b) {
          Buf<T> buf;
          buf.v.assign(size_t(elems + 2 * Buf<T>::kPad), guard<T>());
          const int per = form == Form::listed ? 1 : (d.stride[w] ? g.count : 1);
          for (int p = 0; p < per; ++p)
            for (int64_t e = 0; e < span; ++e)
              if (d.ops[w].in(e)) buf.data()[p * d.stride[w] + e] = random_value<T>(rng);
          d.clean[w].push_back(buf);
          // Poison what must not be read: C with beta == 0, A and B (x) with alpha == 0.
          const bool never_read = (w == 2 && g.beta == cd(0, 0)) || (w < 2 && g.alpha == cd(0, 0));
          if (never_read)
            for (int p = 0; p < per; ++p)
              for (int64_t e = 0; e < span; ++e)
                if (d.ops[w].in(e)) buf.data()[p * d.stride[w] + e] = nan_value<T>();
          d.before[w].push_back(buf.v);
          d.bufs[w].push_back(std::move(buf));
        }
      }
    }
  }

  T* ptr(GroupData& d, int w, int p, bool reference) {
    std::vector<Buf<T>>& v = reference ? d.clean[w] : d.bufs[w];
    if (form == Form::listed) return (!reference && device ? static_cast<T*>(v[size_t(p)].dev) + Buf<T>::kPad
                                                            : v[size_t(p)].data());
    T* base = !reference && device ? static_cast<T*>(v[0].dev) + Buf<T>::kPad : v[0].data();
    return base + p * d.stride[w];
  }

  bool to_device(std::string* why) {
    for (GroupData& d : data)
      for (auto& v : d.bufs)
        for (Buf<T>& b : v) {
          cudaError_t e = cudaMalloc(&b.dev, b.v.size() * sizeof(T));
          if (e == cudaSuccess) e = cudaMemcpy(b.dev, b.v.data(), b.v.size() * sizeof(T), cudaMemcpyHostToDevice);
          if (e != cudaSuccess) {
            *why = cudaGetErrorString(e);
            return false;
          }
        }
    return true;
  }
  void from_device() {
    for (GroupData& d : data)
      for (auto& v : d.bufs)
        for (Buf<T>& b : v) {
          EXPECT_EQ(cudaMemcpy(b.v.data(), b.dev, b.v.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
          cudaFree(b.dev);
          b.dev = nullptr;
        }
  }

  // ---- our call ----
  void call_ours() {
    const int layout = row(api) ? CblasRowMajor : CblasColMajor;
    const std::string l(1, letter<T>());
    if (form == Form::strided) {
      const GroupSpec& g = groups[0];
      GroupData& d = data[0];
      const int m = g.m, n = g.n, k = g.k, count = g.count, lda = int(d.ops[0].ld), ldb = int(d.ops[1].ld),
                ldc = int(d.ops[2].ld), sa = int(d.stride[0]), sb = int(d.stride[1]), sc = int(d.stride[2]);
      const T al = make<T>(g.alpha), be = make<T>(g.beta);
      void* a = ptr(d, 0, 0, false);
      void* b = ptr(d, 1, 0, false);
      void* c = ptr(d, 2, 0, false);
      if (!gemv) {
        if (api == Api::fortran) {
          using F = void (*)(const char*, const char*, const int*, const int*, const int*, const void*, const void*,
                             const int*, const int*, const void*, const int*, const int*, const void*, void*,
                             const int*, const int*, const int*);
          reinterpret_cast<F>(dlsym(RTLD_DEFAULT, (l + "gemm_batch_strided_").c_str()))(
              &g.ta, &g.tb, &m, &n, &k, &al, a, &lda, &sa, b, &ldb, &sb, &be, c, &ldc, &sc, &count);
        } else if constexpr (kComplex<T>) {
          using F = void (*)(int, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                             const void*, void*, int, int, int);
          reinterpret_cast<F>(dlsym(RTLD_DEFAULT, ("cblas_" + l + "gemm_batch_strided").c_str()))(
              layout, cblas_t(g.ta), cblas_t(g.tb), m, n, k, &al, a, lda, sa, b, ldb, sb, &be, c, ldc, sc, count);
        } else {
          using F = void (*)(int, int, int, int, int, int, T, const void*, int, int, const void*, int, int, T, void*,
                             int, int, int);
          reinterpret_cast<F>(dlsym(RTLD_DEFAULT, ("cblas_" + l + "gemm_batch_strided").c_str()))(
              layout, cblas_t(g.ta), cblas_t(g.tb), m, n, k, al, a, lda, sa, b, ldb, sb, be, c, ldc, sc, count);
        }
      } else {
        const int incx = g.incx, incy = g.incy;
        if (api == Api::fortran) {
          using F = void (*)(const char*, const int*, const int*, const void*, const void*, const int*, const int*,
                             const void*, const int*, const int*, const void*, void*, const int*, const int*,
                             const int*);
          reinterpret_cast<F>(dlsym(RTLD_DEFAULT, (l + "gemv_batch_strided_").c_str()))(
              &g.ta, &m, &n, &al, a, &lda, &sa, b, &incx, &sb, &be, c, &incy, &sc, &count);
        } else if constexpr (kComplex<T>) {
          using F = void (*)(int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                             const void*, void*, int, int, int);
          reinterpret_cast<F>(dlsym(RTLD_DEFAULT, ("cblas_" + l + "gemv_batch_strided").c_str()))(
              layout, cblas_t(g.ta), m, n, &al, a, lda, sa, b, incx, sb, &be, c, incy, sc, count);
        } else {
          using F = void (*)(int, int, int, int, T, const void*, int, int, const void*, int, int, T, void*, int, int,
                             int);
          reinterpret_cast<F>(dlsym(RTLD_DEFAULT, ("cblas_" + l + "gemv_batch_strided").c_str()))(
              layout, cblas_t(g.ta), m, n, al, a, lda, sa, b, incx, sb, be, c, incy, sc, count);
        }
      }
      return;
    }
    // Pointer arrays.
    std::vector<char> ta, tb;
    std::vector<int> cta, ctb, m, n, k, lda, ldb, ldc, size;
    std::vector<T> alpha, beta;
    std::vector<const void*> a, b;
    std::vector<void*> c;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const GroupSpec& g = groups[gi];
      GroupData& d = data[gi];
      ta.push_back(g.ta), tb.push_back(g.tb), cta.push_back(cblas_t(g.ta)), ctb.push_back(cblas_t(g.tb));
      m.push_back(g.m), n.push_back(g.n), k.push_back(g.k);
      lda.push_back(int(d.ops[0].ld)), ldb.push_back(gemv ? g.incx : int(d.ops[1].ld));
      ldc.push_back(gemv ? g.incy : int(d.ops[2].ld));
      alpha.push_back(make<T>(g.alpha)), beta.push_back(make<T>(g.beta));
      size.push_back(g.count);
      for (int p = 0; p < g.count; ++p) {
        a.push_back(ptr(d, 0, p, false));
        b.push_back(ptr(d, 1, p, false));
        c.push_back(ptr(d, 2, p, false));
      }
    }
    const int gc = int(groups.size());
    if (!gemv) {
      if (api == Api::fortran) {
        using F = void (*)(const char*, const char*, const int*, const int*, const int*, const void*, const void**,
                           const int*, const void**, const int*, const void*, void**, const int*, const int*,
                           const int*);
        reinterpret_cast<F>(dlsym(RTLD_DEFAULT, (l + "gemm_batch_").c_str()))(
            ta.data(), tb.data(), m.data(), n.data(), k.data(), alpha.data(), a.data(), lda.data(), b.data(),
            ldb.data(), beta.data(), c.data(), ldc.data(), &gc, size.data());
      } else {
        using F = void (*)(int, const int*, const int*, const int*, const int*, const int*, const void*, const void**,
                           const int*, const void**, const int*, const void*, void**, const int*, int, const int*);
        reinterpret_cast<F>(dlsym(RTLD_DEFAULT, ("cblas_" + l + "gemm_batch").c_str()))(
            layout, cta.data(), ctb.data(), m.data(), n.data(), k.data(), alpha.data(), a.data(), lda.data(),
            b.data(), ldb.data(), beta.data(), c.data(), ldc.data(), gc, size.data());
      }
    } else {
      if (api == Api::fortran) {
        using F = void (*)(const char*, const int*, const int*, const void*, const void**, const int*, const void**,
                           const int*, const void*, void**, const int*, const int*, const int*);
        reinterpret_cast<F>(dlsym(RTLD_DEFAULT, (l + "gemv_batch_").c_str()))(
            ta.data(), m.data(), n.data(), alpha.data(), a.data(), lda.data(), b.data(), ldb.data(), beta.data(),
            c.data(), ldc.data(), &gc, size.data());
      } else {
        using F = void (*)(int, const int*, const int*, const int*, const void*, const void**, const int*,
                           const void**, const int*, const void*, void**, const int*, int, const int*);
        reinterpret_cast<F>(dlsym(RTLD_DEFAULT, ("cblas_" + l + "gemv_batch").c_str()))(
            layout, cta.data(), m.data(), n.data(), alpha.data(), a.data(), lda.data(), b.data(), ldb.data(),
            beta.data(), c.data(), ldc.data(), gc, size.data());
      }
    }
  }

  // ---- the reference: one OpenBLAS call per product ----
  void call_reference() {
    const int layout = row(api) ? CblasRowMajor : CblasColMajor;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const GroupSpec& g = groups[gi];
      GroupData& d = data[gi];
      if (g.m == 0 || g.n == 0) continue;
      for (int p = 0; p < g.count; ++p) {
        T* a = ptr(d, 0, p, true);
        T* b = ptr(d, 1, p, true);
        T* c = ptr(d, 2, p, true);
        if constexpr (std::is_same_v<T, Half>) {
          // binary16: widened to FP32 (exact), OpenBLAS SGEMM, rounded once.
          auto widen = [](const T* x, int64_t n) {
            std::vector<float> f(size_t(std::max<int64_t>(n, 1)));
            for (int64_t i = 0; i < n; ++i) f[size_t(i)] = myblas_half_to_float(x[i].bits);
            return f;
          };
          std::vector<float> fa = widen(a, d.ops[0].span()), fb = widen(b, d.ops[1].span()),
                             fc = widen(c, d.ops[2].span());
          using F = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                             int);
          reinterpret_cast<F>(ref_symbol<T>("gemm"))(layout, cblas_t(g.ta), cblas_t(g.tb), g.m, g.n, g.k,
                                                     float(g.alpha.real()), fa.data(), int(d.ops[0].ld), fb.data(),
                                                     int(d.ops[1].ld), float(g.beta.real()), fc.data(),
                                                     int(d.ops[2].ld));
          for (int64_t e = 0; e < d.ops[2].span(); ++e)
            if (d.ops[2].in(e)) c[e].bits = myblas_float_to_half(fc[size_t(e)]);
          continue;
        }
        const T al = make<T>(g.alpha), be = make<T>(g.beta);
        if constexpr (kComplex<T>) {
          if (!gemv) {
            using F = void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int,
                               const void*, void*, int);
            reinterpret_cast<F>(ref_symbol<T>("gemm"))(layout, cblas_t(g.ta), cblas_t(g.tb), g.m, g.n, g.k, &al, a,
                                                       int(d.ops[0].ld), b, int(d.ops[1].ld), &be, c, int(d.ops[2].ld));
          } else {
            using F = void (*)(int, int, int, int, const void*, const void*, int, const void*, int, const void*, void*,
                               int);
            reinterpret_cast<F>(ref_symbol<T>("gemv"))(layout, cblas_t(g.ta), g.m, g.n, &al, a, int(d.ops[0].ld), b,
                                                       g.incx, &be, c, g.incy);
          }
        } else {
          if (!gemv) {
            using F = void (*)(int, int, int, int, int, int, T, const T*, int, const T*, int, T, T*, int);
            reinterpret_cast<F>(ref_symbol<T>("gemm"))(layout, cblas_t(g.ta), cblas_t(g.tb), g.m, g.n, g.k, al, a,
                                                       int(d.ops[0].ld), b, int(d.ops[1].ld), be, c, int(d.ops[2].ld));
          } else {
            using F = void (*)(int, int, int, int, T, const T*, int, const T*, int, T, T*, int);
            reinterpret_cast<F>(ref_symbol<T>("gemv"))(layout, cblas_t(g.ta), g.m, g.n, al, a, int(d.ops[0].ld), b,
                                                       g.incx, be, c, g.incy);
          }
        }
      }
    }
  }

  std::string describe(const GroupSpec& g) const {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s %s %cgemm%s ta=%c tb=%c m=%d n=%d k=%d alpha=(%g,%g) beta=(%g,%g) count=%d "
                  "pad=%d incx=%d incy=%d shareA=%d shareB=%d %s seed=%llu",
                  api == Api::fortran ? "fortran" : api == Api::cblas_col ? "cblas-col" : "cblas-row",
                  form == Form::listed ? "batch" : form == Form::stepped ? "batch(stepped)" : "batch_strided", letter<T>(), gemv ? "(gemv)" : "", g.ta, g.tb,
                  g.m, g.n, g.k, g.alpha.real(), g.alpha.imag(), g.beta.real(), g.beta.imag(), g.count, g.pad, g.incx,
                  g.incy, g.share_a, g.share_b, device ? "device" : "host",
                  (unsigned long long)mbtest::test_seed());
    return buf;
  }

  void run() {
    build();
    std::string why;
    if (device && !to_device(&why)) {
      ADD_FAILURE() << "cannot stage operands: " << why;
      return;
    }
    call_ours();
    if (device) from_device();
    call_reference();
    // A, B (x): bitwise unchanged. C (y): padding and guards unchanged, data within the bound.
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const GroupSpec& g = groups[gi];
      GroupData& d = data[gi];
      const std::string what = describe(g);
      for (int w = 0; w < 2; ++w)
        for (size_t b = 0; b < d.bufs[w].size(); ++b)
          ASSERT_TRUE(std::memcmp(d.bufs[w][b].v.data(), d.before[w][b].data(), d.before[w][b].size() * sizeof(T)) == 0)
              << "input " << "AB"[w] << " changed: " << what;
      const bool quick = g.m == 0 || g.n == 0 || ((g.alpha == cd(0, 0) || (!gemv && g.k == 0)) && g.beta == cd(1, 0));
      const int depth = gemv ? (g.ta == 'N' ? g.n : g.m) : g.k;
      const double tol = (depth + 2) * eps<T>() * (std::abs(g.alpha) * depth + std::abs(g.beta) + 1) * 4;
      for (size_t b = 0; b < d.bufs[2].size(); ++b) {
        const std::vector<T>& got = d.bufs[2][b].v;
        const std::vector<T>& want = d.clean[2][b].v;
        const std::vector<T>& before = d.before[2][b];
        for (size_t e = 0; e < got.size(); ++e) {
          const int64_t off = int64_t(e) - Buf<T>::kPad;
          const int64_t span = d.ops[2].span();
          const int64_t stride = form == Form::listed ? span + 1 : d.stride[2];
          const int64_t p = off >= 0 && stride ? off / stride : -1, in_p = off >= 0 && stride ? off % stride : -1;
          const bool data_el = off >= 0 && in_p < span && p < (form == Form::listed ? 1 : g.count) &&
                               d.ops[2].in(in_p);
          if (!data_el || quick) {
            ASSERT_TRUE(same(got[e], before[e])) << "element " << off << " outside the output (or of a quick "
                                                 << "return) changed: " << what;
            continue;
          }
          const cd x = val(got[e]), y = val(want[e]);
          ASSERT_FALSE(std::isnan(x.real()) || std::isnan(x.imag())) << "NaN at " << off << ": " << what;
          ASSERT_LE(std::abs(x - y), tol) << "element " << off << " got (" << x.real() << "," << x.imag()
                                          << ") want (" << y.real() << "," << y.imag() << "): " << what;
        }
      }
    }
    EXPECT_TRUE(take_reports().empty()) << "a legal call reported an error";
  }
};

bool no_gpu(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    *why = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
    return true;
  }
  return false;
}

std::vector<cd> scalars(bool complex) {
  std::vector<cd> s = {{0, 0}, {1, 0}, {-1, 0}, {0.5, 0}};
  if (complex) s.push_back({0.5, -0.75});
  return s;
}

// A mixed set of groups: shapes off any tile grid, every transpose, every scalar pair in turn, a
// zero-size group, an alpha == 0 group and a beta == 0 group.
template <class T>
std::vector<GroupSpec> mixed_groups(bool gemv, std::mt19937_64& rng, int variant) {
  const char* trans = kComplex<T> ? "NTC" : std::is_same_v<T, Half> ? "NT" : "NTC";
  const int sizes[] = {1, 3, 17, 16, 32, 5};
  const std::vector<cd> sc = scalars(kComplex<T>);
  std::vector<GroupSpec> gs;
  for (int i = 0; i < 6; ++i) {
    GroupSpec g;
    g.ta = trans[(i + variant) % std::strlen(trans)];
    g.tb = trans[(i / 2 + variant) % std::strlen(trans)];
    g.m = sizes[(i + variant) % 6];
    g.n = sizes[(i + 2 + variant) % 6];
    g.k = sizes[(i + 4 + variant) % 6];
    if (i == 3) g.m = g.n = g.k = (variant % 2) ? 32 : 16;  // the square kernel's sizes
    g.alpha = sc[size_t(i + variant) % sc.size()];
    g.beta = sc[size_t(i * 3 + variant + 1) % sc.size()];
    g.count = 1 + int(rng() % 4);
    g.pad = int(i % 3);
    if (gemv) {
      g.incx = (i % 3 == 1) ? -2 : 1;
      g.incy = (i % 3 == 2) ? 3 : (i % 4 == 3 ? -1 : 1);
    }
    gs.push_back(g);
  }
  GroupSpec empty;  // zero-size group: nothing read or written
  empty.m = 0, empty.n = 4, empty.k = 3, empty.count = 2;
  gs.insert(gs.begin() + 2, empty);
  return gs;
}

template <class T>
void run_mixed(bool gemv, bool device) {
  std::string why;
  if (device && no_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
  std::mt19937_64 rng(mbtest::test_seed());
  for (Api api : {Api::fortran, Api::cblas_col, Api::cblas_row})
    for (int variant = 0; variant < 3; ++variant) {
      Runner<T> r{gemv, api, Form::listed, device, mixed_groups<T>(gemv, rng, variant), rng, {}};
      r.run();
      if (::testing::Test::HasFatalFailure()) return;
    }
  // Strided and stepped: each group of the mixed set alone, with stride 0 for A, for B, and neither.
  for (Api api : {Api::fortran, Api::cblas_col, Api::cblas_row})
    for (int variant = 0; variant < 2; ++variant)
      for (const GroupSpec& g0 : mixed_groups<T>(gemv, rng, variant))
        for (int share = 0; share < 3; ++share) {
          GroupSpec g = g0;
          g.count += 2;
          g.share_a = share == 1;
          g.share_b = share == 2;
          for (Form form : {Form::strided, Form::stepped}) {
            Runner<T> r{gemv, api, form, device, {g}, rng, {}};
            r.run();
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
}

TEST(BatchGemm, MixedGroupsS) { run_mixed<float>(false, false); }
TEST(BatchGemm, MixedGroupsD) { run_mixed<double>(false, false); }
TEST(BatchGemm, MixedGroupsC) { run_mixed<cf>(false, false); }
TEST(BatchGemm, MixedGroupsZ) { run_mixed<cd>(false, false); }
TEST(BatchGemm, MixedGroupsH) { run_mixed<Half>(false, false); }
TEST(BatchGemv, MixedGroupsS) { run_mixed<float>(true, false); }
TEST(BatchGemv, MixedGroupsD) { run_mixed<double>(true, false); }
TEST(BatchGemv, MixedGroupsC) { run_mixed<cf>(true, false); }
TEST(BatchGemv, MixedGroupsZ) { run_mixed<cd>(true, false); }
TEST(BatchGemm, DeviceMixedGroupsS) { run_mixed<float>(false, true); }
TEST(BatchGemm, DeviceMixedGroupsD) { run_mixed<double>(false, true); }
TEST(BatchGemm, DeviceMixedGroupsC) { run_mixed<cf>(false, true); }
TEST(BatchGemm, DeviceMixedGroupsZ) { run_mixed<cd>(false, true); }
TEST(BatchGemm, DeviceMixedGroupsH) { run_mixed<Half>(false, true); }
TEST(BatchGemv, DeviceMixedGroupsS) { run_mixed<float>(true, true); }
TEST(BatchGemv, DeviceMixedGroupsZ) { run_mixed<cd>(true, true); }

// Many products of the square kernel's sizes (several blocks, a partial last block), both
// transposes, strided and listed, host and device.
template <class T>
void run_square(bool device) {
  std::string why;
  if (device && no_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
  std::mt19937_64 rng(mbtest::test_seed());
  for (int n : {16, 32})
    for (const char* t : {"NN", "TN", "NT", "TT"})
      for (Form form : {Form::strided, Form::listed, Form::stepped}) {
        GroupSpec g;
        g.ta = t[0], g.tb = t[1];
        g.m = g.n = g.k = n;
        g.alpha = {0.5, 0}, g.beta = n == 16 ? cd(-1, 0) : cd(0, 0);
        g.count = 37;
        g.pad = form == Form::listed ? 0 : 4;  // both the 16-byte and the element-load paths
        Runner<T> r{false, Api::fortran, form, device, {g}, rng, {}};
        r.run();
        if (::testing::Test::HasFatalFailure()) return;
      }
}
TEST(BatchGemm, SquareS) { run_square<float>(false); }
TEST(BatchGemm, SquareH) { run_square<Half>(false); }
TEST(BatchGemm, DeviceSquareS) { run_square<float>(true); }
TEST(BatchGemm, DeviceSquareH) { run_square<Half>(true); }

// Larger host batches: the threaded loop (and, in auto mode with a GPU, the chunked GPU path).
TEST(BatchGemm, LargeHostBatchS) {
  std::mt19937_64 rng(mbtest::test_seed());
  for (int n : {64, 100}) {
    GroupSpec g;
    g.m = g.n = g.k = n;
    g.alpha = {1, 0}, g.beta = {0.5, 0};
    g.count = 300;
    g.pad = 1;
    Runner<float> r{false, Api::fortran, Form::strided, false, {g}, rng, {}};
    r.run();
    GroupSpec h = g;
    h.share_b = true;
    h.beta = {0, 0};
    Runner<float> r2{false, Api::cblas_row, Form::strided, false, {h}, rng, {}};
    r2.run();
  }
}

// A long pointer list (located over the copy threads on a GPU machine).
TEST(BatchGemm, LongPointerListS) {
  std::mt19937_64 rng(mbtest::test_seed());
  GroupSpec g;
  g.m = 8, g.n = 5, g.k = 7;
  g.alpha = {-1, 0}, g.beta = {0.5, 0};
  g.count = 1500;
  g.pad = 1;
  Runner<float> r{false, Api::cblas_col, Form::listed, false, {g}, rng, {}};
  r.run();
}

// The ILP64 names compute what the LP64 names do (bitwise), and report with their own numbers.
TEST(BatchGemm, Ilp64NamesMatchLp64) {
  std::mt19937_64 rng(mbtest::test_seed());
  const int n = 7, count = 3, s = n * n;
  std::vector<float> a(size_t(s * count)), b(size_t(s * count)), c(size_t(s * count));
  for (auto* v : {&a, &b, &c})
    for (float& x : *v) x = mbtest::uniform(rng);
  std::vector<float> c1 = c, c2 = c;
  const float al = 0.5f, be = -1.f;
  const char tn = 'N', tt = 'T';
  int ni = n, si = s, ci = count;
  int64_t n8 = n, s8 = s, c8 = count;
  sgemm_batch_strided_(&tn, &tt, &ni, &ni, &ni, &al, a.data(), &ni, &si, b.data(), &ni, &si, &be, c1.data(), &ni, &si,
                       &ci);
  sgemm_batch_strided_64_(&tn, &tt, &n8, &n8, &n8, &al, a.data(), &n8, &s8, b.data(), &n8, &s8, &be, c2.data(), &n8,
                          &s8, &c8);
  EXPECT_EQ(c1, c2);
  c1 = c, c2 = c;
  const float* pa[3] = {&a[0], &a[size_t(s)], &a[size_t(2 * s)]};
  const float* pb[3] = {&b[0], &b[size_t(s)], &b[size_t(2 * s)]};
  float* p1[3] = {&c1[0], &c1[size_t(s)], &c1[size_t(2 * s)]};
  float* p2[3] = {&c2[0], &c2[size_t(s)], &c2[size_t(2 * s)]};
  const CBLAS_TRANSPOSE cn = CblasNoTrans, ct = CblasTrans;
  const int one = 1;
  const int64_t one8 = 1;
  cblas_sgemm_batch(CblasRowMajor, &ct, &cn, &ni, &ni, &ni, &al, pa, &ni, pb, &ni, &be, p1, &ni, one, &ci);
  cblas_sgemm_batch64_(CblasRowMajor, &ct, &cn, &n8, &n8, &n8, &al, pa, &n8, pb, &n8, &be, p2, &n8, one8, &c8);
  EXPECT_EQ(c1, c2);
  c1 = c, c2 = c;
  sgemv_batch_(&tt, &ni, &ni, &al, pa, &ni, pb, &one, &be, p1, &one, &one, &ci);
  sgemv_batch_64(&tt, &n8, &n8, &al, pa, &n8, pb, &one8, &be, p2, &one8, &one8, &c8);
  EXPECT_EQ(c1, c2);
  c1 = c, c2 = c;
  cblas_sgemv_batch_strided(CblasColMajor, CblasNoTrans, n, n, al, a.data(), n, s, b.data(), 1, s, be, c1.data(), 1,
                            s, count);
  cblas_sgemv_batch_strided_64(CblasColMajor, CblasNoTrans, n8, n8, al, a.data(), n8, s8, b.data(), 1, s8, be,
                               c2.data(), 1, s8, c8);
  EXPECT_EQ(c1, c2);
  take_reports();
  const int64_t bad = -1;
  sgemm_batch_strided_64_(&tn, &tt, &n8, &n8, &n8, &al, a.data(), &n8, &s8, b.data(), &n8, &s8, &be, c2.data(), &n8,
                          &s8, &bad);
  std::vector<Report> r = take_reports();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].routine, "SGEMM_BATCH_STRIDED");
  EXPECT_EQ(r[0].info, 17);
  EXPECT_EQ(c1, c2);
}

// Products in host and in device memory in one call: each runs where its operands are.
TEST(BatchGemm, DeviceMixedMemoryS) {
  std::string why;
  if (no_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
  std::mt19937_64 rng(mbtest::test_seed());
  const int n = 9, count = 3;
  std::vector<std::vector<float>> a(count), b(count), c(count), want(count);
  for (int p = 0; p < count; ++p) {
    for (auto* v : {&a[size_t(p)], &b[size_t(p)], &c[size_t(p)]}) {
      v->resize(size_t(n * n));
      for (float& x : *v) x = mbtest::uniform(rng);
    }
    want[size_t(p)] = c[size_t(p)];
  }
  using F = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
  auto ref = reinterpret_cast<F>(ref_symbol<float>("gemm"));
  for (int p = 0; p < count; ++p)
    ref(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 0.5f, a[size_t(p)].data(), n, b[size_t(p)].data(), n, -1.f,
        want[size_t(p)].data(), n);
  // Product 1 lives on the GPU, products 0 and 2 on the host.
  float *da, *db, *dc;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), n * n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), n * n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), n * n * sizeof(float)), cudaSuccess);
  cudaMemcpy(da, a[1].data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b[1].data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c[1].data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  const float* as[3] = {a[0].data(), da, a[2].data()};
  const float* bs[3] = {b[0].data(), db, b[2].data()};
  float* cs[3] = {c[0].data(), dc, c[2].data()};
  const CBLAS_TRANSPOSE tn = CblasNoTrans, tt = CblasTrans;
  const float al = 0.5f, be = -1.f;
  cblas_sgemm_batch(CblasColMajor, &tn, &tt, &n, &n, &n, &al, as, &n, bs, &n, &be, cs, &n, 1, &count);
  cudaMemcpy(c[1].data(), dc, n * n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(da), cudaFree(db), cudaFree(dc);
  for (int p = 0; p < count; ++p)
    for (int i = 0; i < n * n; ++i)
      EXPECT_NEAR(c[size_t(p)][size_t(i)], want[size_t(p)][size_t(i)], 1e-5) << "product " << p << " element " << i;
  EXPECT_TRUE(take_reports().empty());
}

// Pointer arrays whose C list steps but whose A or B list stops stepping (beta == 0, NaN in C):
// the library may run them as the strided group their first two pointers describe while it checks
// the rest, and must then run them again from the lists. On the host, and on the GPU with the
// odd pointer in another allocation, in the same one out of step, and with a guess that would
// run past the first allocation (checked before anything runs).
void run_lists_that_stop_stepping(bool device) {
  std::string why;
  if (device && no_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
  std::mt19937_64 rng(mbtest::test_seed());
  const int n = 8, count = 40, s = n * n;
  const size_t per = size_t(s);
  using F = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
  auto ref = reinterpret_cast<F>(ref_symbol<float>("gemm"));
  enum Odd { other_allocation, out_of_step, past_the_end };
  for (Odd odd : {other_allocation, out_of_step, past_the_end}) {
    if (!device && odd == past_the_end) continue;
    for (int which = 0; which < 2; ++which) {  // the odd pointer in A's list, or B's
      // A and B: count + 2 products each, the extra ones for the odd pointers; "small" holds 2.
      std::vector<float> a(per * (count + 2)), b(per * (count + 2)), small(per * 2), c(per * count), want(per * count);
      for (auto* v : {&a, &b, &small})
        for (float& x : *v) x = mbtest::uniform(rng);
      float *da = nullptr, *db = nullptr, *dc = nullptr, *dsmall = nullptr;
      float *xa = a.data(), *xb = b.data(), *xc = c.data(), *xs = small.data();
      if (device) {
        ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), a.size() * sizeof(float)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), b.size() * sizeof(float)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), c.size() * sizeof(float)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dsmall), small.size() * sizeof(float)), cudaSuccess);
        cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(dsmall, small.data(), small.size() * sizeof(float), cudaMemcpyHostToDevice);
        xa = da, xb = db, xc = dc, xs = dsmall;
      }
      std::vector<const float*> pa(count), pb(count), ha(count), hb(count);  // (h*: the host copies)
      std::vector<float*> pc(count);
      for (int i = 0; i < count; ++i) {
        pa[size_t(i)] = xa + per * size_t(i), ha[size_t(i)] = a.data() + per * size_t(i);
        pb[size_t(i)] = xb + per * size_t(i), hb[size_t(i)] = b.data() + per * size_t(i);
        pc[size_t(i)] = xc + per * size_t(i);
      }
      auto& list = which == 0 ? pa : pb;
      auto& host = which == 0 ? ha : hb;
      float* x = which == 0 ? xa : xb;
      const float* h = which == 0 ? a.data() : b.data();
      if (odd == past_the_end) {  // products 0 and 1 in "small", the rest stepping in the other allocation
        for (int i = 0; i < count; ++i) {
          list[size_t(i)] = i < 2 ? xs + per * size_t(i) : x + per * size_t(i);
          host[size_t(i)] = i < 2 ? small.data() + per * size_t(i) : h + per * size_t(i);
        }
      } else {
        const int at = odd == other_allocation ? 17 : count - 1;
        list[size_t(at)] = odd == other_allocation ? xs + per : x + per * size_t(count + 1);
        host[size_t(at)] = odd == other_allocation ? small.data() + per : h + per * size_t(count + 1);
      }
      for (int i = 0; i < count; ++i)
        ref(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 0.5f, ha[size_t(i)], n, hb[size_t(i)], n, 0.f,
            want.data() + per * size_t(i), n);
      std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN());
      if (device) cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
      const CBLAS_TRANSPOSE tn = CblasNoTrans, tt = CblasTrans;
      const float al = 0.5f, be = 0.f;
      cblas_sgemm_batch(CblasColMajor, &tn, &tt, &n, &n, &n, &al, pa.data(), &n, pb.data(), &n, &be, pc.data(), &n, 1,
                        &count);
      if (device) {
        ASSERT_EQ(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
        cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dsmall);
      }
      int bad = 0;
      for (size_t i = 0; i < c.size() && bad < 5; ++i)
        if (!(std::fabs(c[i] - want[i]) <= 1e-5f * n))
          ADD_FAILURE() << "odd " << odd << (which ? " in B" : " in A") << ": product " << i / per << " element "
                        << i % per << " got " << c[i] << " want " << want[i] << " (" << ++bad << ")";
      EXPECT_TRUE(take_reports().empty());
    }
  }
}
TEST(BatchGemm, ListsThatStopSteppingS) { run_lists_that_stop_stepping(false); }
TEST(BatchGemm, DeviceListsThatStopSteppingS) { run_lists_that_stop_stepping(true); }

// The same for GEMV batches: y_i = alpha A_i x_i (beta 0, NaN in y) with x's list out of step at
// one product (and A's at another), on the host and on the GPU.
void run_gemv_lists_that_stop_stepping(bool device) {
  std::string why;
  if (device && no_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
  std::mt19937_64 rng(mbtest::test_seed());
  const int m = 9, n = 7, count = 30, sa = m * n;
  std::vector<float> a(size_t(sa) * (count + 2)), x(size_t(n) * (count + 2)), y(size_t(m) * count), want(y.size());
  for (auto* v : {&a, &x})
    for (float& e : *v) e = mbtest::uniform(rng);
  float *da = nullptr, *dx = nullptr, *dy = nullptr;
  float *xa = a.data(), *xx = x.data(), *xy = y.data();
  if (device) {
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), a.size() * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dx), x.size() * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dy), y.size() * sizeof(float)), cudaSuccess);
    cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice);
    xa = da, xx = dx, xy = dy;
  }
  std::vector<const float*> pa(count), px(count), ha(count), hx(count);
  std::vector<float*> py(count);
  for (int i = 0; i < count; ++i) {
    pa[size_t(i)] = xa + size_t(sa) * size_t(i), ha[size_t(i)] = a.data() + size_t(sa) * size_t(i);
    px[size_t(i)] = xx + size_t(n) * size_t(i), hx[size_t(i)] = x.data() + size_t(n) * size_t(i);
    py[size_t(i)] = xy + size_t(m) * size_t(i);
  }
  px[11] = xx + size_t(n) * (count + 1), hx[11] = x.data() + size_t(n) * (count + 1);
  pa[23] = xa + size_t(sa) * count, ha[23] = a.data() + size_t(sa) * count;
  using F = void (*)(int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
  auto ref = reinterpret_cast<F>(ref_symbol<float>("gemv"));
  for (int i = 0; i < count; ++i)
    ref(CblasColMajor, CblasNoTrans, m, n, -0.5f, ha[size_t(i)], m, hx[size_t(i)], 1, 0.f, want.data() + size_t(m) * i, 1);
  std::fill(y.begin(), y.end(), std::numeric_limits<float>::quiet_NaN());
  if (device) cudaMemcpy(dy, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice);
  const CBLAS_TRANSPOSE tn = CblasNoTrans;
  const float al = -0.5f, be = 0.f;
  const int one = 1;
  cblas_sgemv_batch(CblasColMajor, &tn, &m, &n, &al, pa.data(), &m, px.data(), &one, &be, py.data(), &one, 1, &count);
  if (device) {
    ASSERT_EQ(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(da), cudaFree(dx), cudaFree(dy);
  }
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_TRUE(std::fabs(y[i] - want[i]) <= 1e-5f * n) << "product " << i / m << " element " << i % m << " got "
                                                         << y[i] << " want " << want[i];
  EXPECT_TRUE(take_reports().empty());
}
TEST(BatchGemv, ListsThatStopSteppingS) { run_gemv_lists_that_stop_stepping(false); }
TEST(BatchGemv, DeviceListsThatStopSteppingS) { run_gemv_lists_that_stop_stepping(true); }

// Outputs that share an element are rejected; interleaved ones that do not are computed.
TEST(BatchGemm, OverlappingOutputsRejected) {
  std::vector<float> a(64, 0.5f), b(64, 0.25f), c(256, 1.f);
  const std::vector<float> c0 = c;
  const int m = 4, n = 4, k = 4, lda = 4, ldb = 4, ldc = 8, gc = 1, two = 2;
  const float al = 1, be = 0;
  const char nt = 'N';
  const float* as[2] = {a.data(), a.data()};
  const float* bs[2] = {b.data(), b.data()};
  float* cs[2] = {c.data(), c.data() + 9};  // C1 starts inside C0's column 1
  take_reports();
  sgemm_batch_(&nt, &nt, &m, &n, &k, &al, as, &lda, bs, &ldb, &be, cs, &ldc, &gc, &two);
  std::vector<Report> r = take_reports();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].routine, "SGEMM_BATCH");
  EXPECT_EQ(r[0].info, 12);
  EXPECT_EQ(c, c0);
  const CBLAS_TRANSPOSE tn = CblasNoTrans;
  cblas_sgemm_batch(CblasColMajor, &tn, &tn, &m, &n, &k, &al, as, &lda, bs, &ldb, &be, cs, &ldc, gc, &two);
  r = take_reports();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].cblas);
  EXPECT_EQ(r[0].routine, "cblas_sgemm_batch");
  EXPECT_EQ(r[0].info, 13);
  // Strided: stride 0 for C, and a stride shorter than C's columns.
  for (int sc : {0, 10}) {
    const int sa = 16, sb = 16;
    sgemm_batch_strided_(&nt, &nt, &m, &n, &k, &al, a.data(), &lda, &sa, b.data(), &ldb, &sb, &be, c.data(), &ldc,
                         &sc, &two);
    r = take_reports();
    ASSERT_EQ(r.size(), 1u) << "stridec " << sc;
    EXPECT_EQ(r[0].info, 16);
    cblas_sgemm_batch_strided(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, al, a.data(), lda, sa, b.data(),
                              ldb, sb, be, c.data(), ldc, sc, two);
    r = take_reports();
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].info, 17);
  }
  EXPECT_EQ(c, c0);
  // Interleaved through the padding (C1 in C0's unused rows 4..7): legal, both computed.
  cs[1] = c.data() + 4;
  sgemm_batch_(&nt, &nt, &m, &n, &k, &al, as, &lda, bs, &ldb, &be, cs, &ldc, &gc, &two);
  EXPECT_TRUE(take_reports().empty());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(c[size_t(j * ldc + i)], 0.5f) << i << "," << j;
  // GEMV: two y's sharing an element.
  const int one = 1, len = 4;
  const float* xs[2] = {b.data(), b.data()};
  float* ys[2] = {c.data(), c.data() + 3};
  sgemv_batch_(&nt, &len, &len, &al, as, &lda, xs, &one, &be, ys, &one, &gc, &two);
  r = take_reports();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].routine, "SGEMV_BATCH");
  EXPECT_EQ(r[0].info, 10);
}

// The overlap check in any order of the outputs: disjoint outputs listed backwards are legal and
// computed; an output that meets an earlier, not adjacent one in the list is rejected, whichever
// order the list takes.
TEST(BatchGemm, OverlapCheckAnyOrder) {
  std::vector<float> a(16, 0.5f), b(16, 0.25f), c(64, 1.f);
  const int m = 4, n = 4, k = 4, ld = 4, gc = 1, three = 3;
  const float al = 1, be = 0;
  const char nt = 'N';
  const float* as[3] = {a.data(), a.data(), a.data()};
  const float* bs[3] = {b.data(), b.data(), b.data()};
  take_reports();
  float* backwards[3] = {c.data() + 32, c.data() + 16, c.data()};
  sgemm_batch_(&nt, &nt, &m, &n, &k, &al, as, &ld, bs, &ld, &be, backwards, &ld, &gc, &three);
  EXPECT_TRUE(take_reports().empty());
  for (size_t i = 0; i < 48; ++i) EXPECT_FLOAT_EQ(c[i], 0.5f) << i;
  for (size_t i = 48; i < 64; ++i) EXPECT_FLOAT_EQ(c[i], 1.f) << i;
  const std::vector<float> c0 = c;
  float* forward_then_back[3] = {c.data(), c.data() + 32, c.data() + 15};  // C2 meets C0's last element
  float* back_then_forward[3] = {c.data() + 15, c.data() + 40, c.data()};
  for (float** cs : {forward_then_back, back_then_forward}) {
    sgemm_batch_(&nt, &nt, &m, &n, &k, &al, as, &ld, bs, &ld, &be, cs, &ld, &gc, &three);
    const std::vector<Report> r = take_reports();
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].info, 12);
    EXPECT_EQ(c, c0);
  }
}

// ---- every illegal argument ----
struct ErrCase {
  const char* what;
  int info;
};

// A legal baseline of every form; each case breaks one argument and expects exactly one report
// at its position, and no output touched.
struct Args {
  char ta = 'N', tb = 'N';
  int m = 2, n = 3, k = 4, lda = 2, ldb = 4, ldc = 2, gc = 1, gs = 2, sa = 8, sb = 12, sc = 6, bs = 2;
  int incx = 1, incy = 1, sx = 3, sy = 2, lda_v = 2;
  CBLAS_LAYOUT layout = CblasColMajor;
  CBLAS_TRANSPOSE cta = CblasNoTrans, ctb = CblasNoTrans;
};

void expect_one(const std::string& routine, bool cblas, int info, const std::vector<float>& c,
                const std::vector<float>& c0, const char* what) {
  std::vector<Report> r = take_reports();
  ASSERT_EQ(r.size(), 1u) << what;
  EXPECT_EQ(r[0].routine, routine) << what;
  EXPECT_EQ(r[0].cblas, cblas) << what;
  EXPECT_EQ(r[0].info, info) << what;
  EXPECT_EQ(std::memcmp(c.data(), c0.data(), c.size() * sizeof(float)), 0) << what << ": output touched";
}

TEST(BatchErrors, GemmBatchEveryArgument) {
  std::vector<float> a(64, 1.f), b(64, 1.f), c(64, std::numeric_limits<float>::quiet_NaN());
  const std::vector<float> c0 = c;
  const float al = 1, be = 0;
  const float* as[2] = {a.data(), a.data() + 8};
  const float* bs[2] = {b.data(), b.data() + 12};
  float* cs[2] = {c.data(), c.data() + 6};
  take_reports();
  struct Mut {
    const char* what;
    void (*set)(Args&);
    int f_info, c_info;  // Fortran position, CBLAS position
  };
  const Mut muts[] = {
      {"transa", [](Args& x) { x.ta = 'X', x.cta = CBLAS_TRANSPOSE(99); }, 1, 2},
      {"transb", [](Args& x) { x.tb = 'X', x.ctb = CBLAS_TRANSPOSE(99); }, 2, 3},
      {"m < 0", [](Args& x) { x.m = -1; }, 3, 4},
      {"n < 0", [](Args& x) { x.n = -1; }, 4, 5},
      {"k < 0", [](Args& x) { x.k = -1; }, 5, 6},
      {"lda", [](Args& x) { x.lda = 1; }, 8, 9},
      {"ldb", [](Args& x) { x.ldb = 3; }, 10, 11},
      {"ldc", [](Args& x) { x.ldc = 1; }, 13, 14},
      {"group_count < 0", [](Args& x) { x.gc = -1; }, 14, 15},
      {"group_size < 0", [](Args& x) { x.gs = -1; }, 15, 16},
  };
  for (const Mut& mu : muts) {
    Args x;
    mu.set(x);
    sgemm_batch_(&x.ta, &x.tb, &x.m, &x.n, &x.k, &al, as, &x.lda, bs, &x.ldb, &be, cs, &x.ldc, &x.gc, &x.gs);
    expect_one("SGEMM_BATCH", false, mu.f_info, c, c0, mu.what);
    cblas_sgemm_batch(x.layout, &x.cta, &x.ctb, &x.m, &x.n, &x.k, &al, as, &x.lda, bs, &x.ldb, &be, cs, &x.ldc, x.gc,
                      &x.gs);
    expect_one("cblas_sgemm_batch", true, mu.c_info, c, c0, mu.what);
  }
  // Row-major: lda is checked against k (A is m x k by rows), ldb against n, ldc against n.
  {
    Args x;
    x.layout = CblasRowMajor;
    x.lda = 3;  // < k = 4
    x.ldb = 3, x.ldc = 3;
    cblas_sgemm_batch(x.layout, &x.cta, &x.ctb, &x.m, &x.n, &x.k, &al, as, &x.lda, bs, &x.ldb, &be, cs, &x.ldc, x.gc,
                      &x.gs);
    expect_one("cblas_sgemm_batch", true, 9, c, c0, "row-major lda");
  }
  // Layout.
  {
    Args x;
    cblas_sgemm_batch(CBLAS_LAYOUT(7), &x.cta, &x.ctb, &x.m, &x.n, &x.k, &al, as, &x.lda, bs, &x.ldb, &be, cs,
                      &x.ldc, x.gc, &x.gs);
    expect_one("cblas_sgemm_batch", true, 1, c, c0, "layout");
  }
  // An error in the second group: nothing of the first group is computed either.
  {
    const char ta[2] = {'N', 'N'};
    const int m[2] = {2, 2}, n[2] = {3, 3}, k[2] = {4, -4}, lda[2] = {2, 2}, ldb[2] = {4, 4}, ldc[2] = {2, 2},
              gs[2] = {1, 1}, gc = 2;
    const float al2[2] = {1, 1}, be2[2] = {0, 0};
    sgemm_batch_(ta, ta, m, n, k, al2, as, lda, bs, ldb, be2, cs, ldc, &gc, gs);
    expect_one("SGEMM_BATCH", false, 5, c, c0, "second group's k");
  }
}

TEST(BatchErrors, GemmStridedEveryArgument) {
  std::vector<float> a(64, 1.f), b(64, 1.f), c(64, std::numeric_limits<float>::quiet_NaN());
  const std::vector<float> c0 = c;
  const float al = 1, be = 0;
  take_reports();
  struct Mut {
    const char* what;
    void (*set)(Args&);
    int f_info, c_info;
  };
  const Mut muts[] = {
      {"transa", [](Args& x) { x.ta = 'X', x.cta = CBLAS_TRANSPOSE(99); }, 1, 2},
      {"transb", [](Args& x) { x.tb = 'X', x.ctb = CBLAS_TRANSPOSE(99); }, 2, 3},
      {"m < 0", [](Args& x) { x.m = -1; }, 3, 4},
      {"n < 0", [](Args& x) { x.n = -1; }, 4, 5},
      {"k < 0", [](Args& x) { x.k = -1; }, 5, 6},
      {"lda", [](Args& x) { x.lda = 1; }, 8, 9},
      {"stridea < 0", [](Args& x) { x.sa = -1; }, 9, 10},
      {"ldb", [](Args& x) { x.ldb = 3; }, 11, 12},
      {"strideb < 0", [](Args& x) { x.sb = -1; }, 12, 13},
      {"ldc", [](Args& x) { x.ldc = 1; }, 15, 16},
      {"stridec overlaps", [](Args& x) { x.sc = 3; }, 16, 17},
      {"batch_size < 0", [](Args& x) { x.bs = -1; }, 17, 18},
  };
  for (const Mut& mu : muts) {
    Args x;
    mu.set(x);
    sgemm_batch_strided_(&x.ta, &x.tb, &x.m, &x.n, &x.k, &al, a.data(), &x.lda, &x.sa, b.data(), &x.ldb, &x.sb, &be,
                         c.data(), &x.ldc, &x.sc, &x.bs);
    expect_one("SGEMM_BATCH_STRIDED", false, mu.f_info, c, c0, mu.what);
    cblas_sgemm_batch_strided(x.layout, x.cta, x.ctb, x.m, x.n, x.k, al, a.data(), x.lda, x.sa, b.data(), x.ldb, x.sb,
                              be, c.data(), x.ldc, x.sc, x.bs);
    expect_one("cblas_sgemm_batch_strided", true, mu.c_info, c, c0, mu.what);
  }
  // The other precisions name themselves.
  Args x;
  x.m = -1;
  const double ad[4] = {}, bd[4] = {};
  double cd_[4] = {};
  const double ald = 1, bed = 0;
  dgemm_batch_strided_(&x.ta, &x.tb, &x.m, &x.n, &x.k, &ald, ad, &x.lda, &x.sa, bd, &x.ldb, &x.sb, &bed, cd_, &x.ldc,
                       &x.sc, &x.bs);
  expect_one("DGEMM_BATCH_STRIDED", false, 3, c, c0, "d");
  const float zc[2] = {1, 0};
  cgemm_batch_strided_(&x.ta, &x.tb, &x.m, &x.n, &x.k, zc, a.data(), &x.lda, &x.sa, b.data(), &x.ldb, &x.sb, zc,
                       c.data(), &x.ldc, &x.sc, &x.bs);
  expect_one("CGEMM_BATCH_STRIDED", false, 3, c, c0, "c");
  const uint16_t h1 = 0x3C00;
  cblas_hgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, -1, 1, 1, h1, nullptr, 1, 0, nullptr, 1, 0, h1,
                            nullptr, 1, 1, 1);
  expect_one("cblas_hgemm_batch_strided", true, 4, c, c0, "h");
}

TEST(BatchErrors, GemvEveryArgument) {
  std::vector<float> a(64, 1.f), x(64, 1.f), y(64, std::numeric_limits<float>::quiet_NaN());
  const std::vector<float> y0 = y;
  const float al = 1, be = 0;
  const float* as[2] = {a.data(), a.data() + 8};
  const float* xs[2] = {x.data(), x.data() + 3};
  float* ys[2] = {y.data(), y.data() + 2};
  take_reports();
  struct Mut {
    const char* what;
    void (*set)(Args&);
    int f_list, f_strided;  // Fortran positions (CBLAS: + 1)
  };
  const Mut muts[] = {
      {"trans", [](Args& v) { v.ta = 'X', v.cta = CBLAS_TRANSPOSE(99); }, 1, 1},
      {"m < 0", [](Args& v) { v.m = -1; }, 2, 2},
      {"n < 0", [](Args& v) { v.n = -1; }, 3, 3},
      {"lda", [](Args& v) { v.lda_v = 1; }, 6, 6},
      {"incx == 0", [](Args& v) { v.incx = 0; }, 8, 9},
      {"incy == 0", [](Args& v) { v.incy = 0; }, 11, 13},
      {"group_count / batch_size < 0", [](Args& v) { v.gc = -1, v.bs = -1; }, 12, 15},
  };
  for (const Mut& mu : muts) {
    Args v;
    v.n = 3;
    mu.set(v);
    sgemv_batch_(&v.ta, &v.m, &v.n, &al, as, &v.lda_v, xs, &v.incx, &be, ys, &v.incy, &v.gc, &v.gs);
    expect_one("SGEMV_BATCH", false, mu.f_list, y, y0, mu.what);
    cblas_sgemv_batch(v.layout, &v.cta, &v.m, &v.n, &al, as, &v.lda_v, xs, &v.incx, &be, ys, &v.incy, v.gc, &v.gs);
    expect_one("cblas_sgemv_batch", true, mu.f_list + 1, y, y0, mu.what);
    sgemv_batch_strided_(&v.ta, &v.m, &v.n, &al, a.data(), &v.lda_v, &v.sa, x.data(), &v.incx, &v.sx, &be, y.data(),
                         &v.incy, &v.sy, &v.bs);
    expect_one("SGEMV_BATCH_STRIDED", false, mu.f_strided, y, y0, mu.what);
    cblas_sgemv_batch_strided(v.layout, v.cta, v.m, v.n, al, a.data(), v.lda_v, v.sa, x.data(), v.incx, v.sx, be,
                              y.data(), v.incy, v.sy, v.bs);
    expect_one("cblas_sgemv_batch_strided", true, mu.f_strided + 1, y, y0, mu.what);
  }
  Args v;
  const int neg = -1;
  sgemv_batch_(&v.ta, &v.m, &v.n, &al, as, &v.lda_v, xs, &v.incx, &be, ys, &v.incy, &v.gc, &neg);
  expect_one("SGEMV_BATCH", false, 13, y, y0, "group_size < 0");
  sgemv_batch_strided_(&v.ta, &v.m, &v.n, &al, a.data(), &v.lda_v, &neg, x.data(), &v.incx, &v.sx, &be, y.data(),
                       &v.incy, &v.sy, &v.bs);
  expect_one("SGEMV_BATCH_STRIDED", false, 7, y, y0, "stridea < 0");
  sgemv_batch_strided_(&v.ta, &v.m, &v.n, &al, a.data(), &v.lda_v, &v.sa, x.data(), &v.incx, &neg, &be, y.data(),
                       &v.incy, &v.sy, &v.bs);
  expect_one("SGEMV_BATCH_STRIDED", false, 10, y, y0, "stridex < 0");
  const int s0 = 1;  // y's of 2 elements 1 apart share one
  sgemv_batch_strided_(&v.ta, &v.m, &v.n, &al, a.data(), &v.lda_v, &v.sa, x.data(), &v.incx, &v.sx, &be, y.data(),
                       &v.incy, &s0, &v.bs);
  expect_one("SGEMV_BATCH_STRIDED", false, 14, y, y0, "stridey overlaps");
}

}  // namespace
