#include "reliability/random_call.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "myblas.h"

namespace reltest {

namespace {

constexpr double kEps = FLT_EPSILON;
constexpr int kPad = 16;  // guard elements before and after every operand
const char kTrans[] = {'N', 'n', 'T', 't', 'C', 'c'};
const int kIncs[] = {-3, -2, -1, 1, 2, 3};

bool transposed(char t) { return t != 'N' && t != 'n'; }

// The scalars the library computes with: HGEMM's are binary16.
float effective(const Spec& s, float v) {
  return s.routine == Routine::hgemm ? myblas_half_to_float(myblas_float_to_half(v)) : v;
}

// The call as column-major: row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T,
// the same memory with A and B (and m and n) exchanged; row-major SGEMV flips the transpose.
struct View {
  bool row = false;
  int cm = 0, cn = 0, k = 0;
  bool ta = false, tb = false;  // GEMM: op(A), op(B) transposed; GEMV: ta only
  int ar = 0, ac = 0, br = 0, bc = 0;
  int lda = 1, ldb = 1, ldc = 1;  // column-major view's leading dimensions
  int lx = 0, ly = 0;             // GEMV vector lengths
};

View view_of(const Spec& s) {
  View v;
  v.row = s.entry == Entry::cblas_row;
  v.cm = v.row ? s.n : s.m;
  v.cn = v.row ? s.m : s.n;
  if (s.routine == Routine::sgemv) {
    v.ta = v.row ? !transposed(s.ta) : transposed(s.ta);
    v.lda = std::max(1, v.cm) + s.pad_a;
    v.lx = v.ta ? v.cm : v.cn;
    v.ly = v.ta ? v.cn : v.cm;
    return v;
  }
  v.k = s.k;
  v.ta = transposed(v.row ? s.tb : s.ta);
  v.tb = transposed(v.row ? s.ta : s.tb);
  v.ar = v.ta ? v.k : v.cm;
  v.ac = v.ta ? v.cm : v.k;
  v.br = v.tb ? v.cn : v.k;
  v.bc = v.tb ? v.k : v.cn;
  // The user's A is the view's B in row-major; each pad stays with the user's matrix.
  v.lda = std::max(1, v.ar) + (v.row ? s.pad_b : s.pad_a);
  v.ldb = std::max(1, v.br) + (v.row ? s.pad_a : s.pad_b);
  v.ldc = std::max(1, v.cm) + s.pad_c;
  return v;
}

// One operand: clean FP32 values for the reference, and the bytes the library gets (guards
// around and in the padding, the elements as FP32 or binary16). A strided vector is a 1 x len
// matrix whose leading dimension is |inc|.
struct Operand {
  int rows = 0, cols = 0;
  int64_t ld = 1;
  size_t es = 4;
  std::vector<float> val;              // ld * cols storage (at least one element)
  std::vector<unsigned char> image;    // (2 * kPad + ld * cols) elements of es bytes

  Operand(int r, int c, int64_t l, bool half, std::mt19937_64& rng) : rows(r), cols(c), ld(l), es(half ? 2 : 4) {
    val.assign(std::max<size_t>(1, size_t(ld) * size_t(cols)), 0.f);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) {
        const float x = mbtest::uniform(rng);
        val[size_t(i) + size_t(j) * ld] = half ? myblas_half_to_float(myblas_float_to_half(x)) : x;
      }
    image.resize((2 * kPad + size_t(ld) * size_t(cols)) * es);
    for (size_t p = 0; p < image.size() / es; ++p) {
      const int64_t off = int64_t(p) - kPad;
      put(p, element(off) ? val[size_t(off)] : std::numeric_limits<float>::quiet_NaN(), !element(off));
    }
  }
  bool element(int64_t off) const { return off >= 0 && off < ld * cols && off % ld < rows; }
  void put(size_t p, float x, bool guard) {
    if (es == 2) {
      const uint16_t h = guard ? mbtest::kGuardHalf : myblas_float_to_half(x);
      std::memcpy(&image[p * 2], &h, 2);
    } else {
      const float f = guard ? mbtest::kGuard : x;
      std::memcpy(&image[p * 4], &f, 4);
    }
  }
  float get(int64_t off) const {
    const size_t p = size_t(off + kPad);
    if (es == 2) {
      uint16_t h;
      std::memcpy(&h, &image[p * 2], 2);
      return myblas_half_to_float(h);
    }
    float f;
    std::memcpy(&f, &image[p * 4], 4);
    return f;
  }
  void fill_nan() {
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) put(size_t(kPad + i + j * ld), std::numeric_limits<float>::quiet_NaN(), false);
  }
  float at(int i, int j) const { return val[size_t(i) + size_t(j) * ld]; }
};

// Logical element i of a vector with increment inc, as an offset into its storage.
int64_t vec_pos(int i, int len, int inc) {
  const int64_t step = inc < 0 ? -int64_t(inc) : inc;
  return inc > 0 ? i * step : int64_t(len - 1 - i) * step;
}

std::string fmt(const char* f, double a, double b, double c) {
  char buf[200];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

}  // namespace

bool Spec::quick_return() const {
  const float a = effective(*this, alpha), b = effective(*this, beta);
  if (routine == Routine::sgemv) return m == 0 || n == 0 || (a == 0.f && b == 1.f);
  return m == 0 || n == 0 || ((a == 0.f || k == 0) && b == 1.f);
}

bool Spec::scale_only() const {
  return effective(*this, alpha) == 0.f || (routine != Routine::sgemv && k == 0);
}

std::string Spec::describe() const {
  const View v = view_of(*this);
  const bool cblas = entry == Entry::cblas_col || entry == Entry::cblas_row;
  const char* layout = entry == Entry::cblas_row ? "CblasRowMajor, " : entry == Entry::cblas_col ? "CblasColMajor, " : "";
  const char* where = "hd";
  char place_text[40];
  std::snprintf(place_text, sizeof place_text, "memory(A,%s,%s)=%c%c%c", routine == Routine::sgemv ? "x" : "B",
                routine == Routine::sgemv ? "y" : "C", where[place & 1], where[(place >> 1) & 1], where[(place >> 2) & 1]);
  char buf[400];
  if (routine == Routine::sgemv) {
    std::snprintf(buf, sizeof buf, "%s(%s'%c', m=%d, n=%d, alpha=%.9g, lda=%d, incx=%d, beta=%.9g, incy=%d) %s",
                  cblas ? "cblas_sgemv" : "sgemv_", layout, ta, m, n, alpha, v.lda, incx, beta, incy, place_text);
  } else {
    const char* name = routine == Routine::sgemm ? (cblas ? "cblas_sgemm" : "sgemm_")
                                                 : (cblas ? "cblas_hgemm" : entry == Entry::plain ? "hgemm" : "hgemm_");
    const int ulda = v.row ? v.ldb : v.lda, uldb = v.row ? v.lda : v.ldb;
    std::snprintf(buf, sizeof buf,
                  "%s(%s'%c', '%c', m=%d, n=%d, k=%d, alpha=%.9g, lda=%d, ldb=%d, beta=%.9g, ldc=%d) %s%s", name,
                  layout, ta, tb, m, n, k, alpha, ulda, uldb, beta, v.ldc, place_text,
                  routine == Routine::hgemm ? " (scalars rounded to binary16)" : "");
  }
  return buf;
}

Spec random_spec(std::mt19937_64& rng, const Limits& lim) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Spec s;
  s.routine = static_cast<Routine>(pick(0, 2));
  const Entry gemm_entries[] = {Entry::fortran, Entry::cblas_col, Entry::cblas_row, Entry::plain};
  s.entry = gemm_entries[pick(0, s.routine == Routine::hgemm ? 3 : 2)];
  s.ta = kTrans[pick(0, 5)];
  s.tb = kTrans[pick(0, 5)];
  const int hi = std::bernoulli_distribution(lim.p_big)(rng) ? lim.big_dim : lim.max_dim;
  s.m = pick(lim.min_dim, hi);
  s.n = pick(lim.min_dim, hi);
  s.k = pick(lim.min_dim, hi);
  s.pad_a = pick(0, 3);
  s.pad_b = pick(0, 3);
  s.pad_c = pick(0, 3);
  s.incx = kIncs[pick(0, 5)];
  s.incy = kIncs[pick(0, 5)];
  auto scalar = [&] {
    const float fixed[] = {0.f, 1.f, -1.f, 0.5f};
    const int i = pick(0, lim.random_scalars ? 4 : 3);
    return i < 4 ? fixed[i] : 2.f * mbtest::uniform(rng);
  };
  s.alpha = scalar();
  s.beta = scalar();
  if (!lim.allow_quick_return && s.quick_return()) s.beta = 0.5f;  // sizes >= 1 are the caller's part
  switch (lim.places) {
    case Limits::Places::host: s.place = kAllHost; break;
    case Limits::Places::device: s.place = kAllDevice; break;
    case Limits::Places::inputs_on_device: s.place = kInputsOnDevice; break;
    case Limits::Places::any: s.place = pick(0, 7); break;
  }
  return s;
}

size_t arena_bytes(int max_dim) {
  // Largest image: a (max_dim + 3) x max_dim FP32 matrix, or a vector of max_dim elements 3 apart.
  const size_t mat = size_t(max_dim + 3) * size_t(max_dim), vec = size_t(max_dim) * 3;
  return (std::max(mat, vec) + 2 * kPad) * 4;
}

bool DeviceArena::allocate(size_t bytes_each) {
  bytes = bytes_each;
  for (void*& p : buf)
    if (cudaMalloc(&p, bytes) != cudaSuccess) return false;
  return true;
}

void DeviceArena::release() {
  for (void*& p : buf) {
    if (p) cudaFree(p);
    p = nullptr;
  }
}

Result run_call(const Spec& s, std::mt19937_64& rng, DeviceArena* arena, bool full_check) {
  Result res;
  const View v = view_of(s);
  const bool half = s.routine == Routine::hgemm, gemv = s.routine == Routine::sgemv;
  const float alpha = effective(s, s.alpha), beta = effective(s, s.beta);
  // Operands in the column-major view: A, then B or x, then C or y.
  Operand A = gemv ? Operand(v.cm, v.cn, v.lda, false, rng) : Operand(v.ar, v.ac, v.lda, half, rng);
  Operand B = gemv ? Operand(1, v.lx, std::abs(s.incx), false, rng) : Operand(v.br, v.bc, v.ldb, half, rng);
  Operand C = gemv ? Operand(1, v.ly, std::abs(s.incy), false, rng) : Operand(v.cm, v.cn, v.ldc, half, rng);
  if (alpha == 0.f) {
    A.fill_nan();
    B.fill_nan();
  }
  if (beta == 0.f) C.fill_nan();
  const std::vector<unsigned char> a0 = A.image, b0 = B.image, c0 = C.image;

  // The user's operands, in slots 0..2 of the device arena: row-major GEMM exchanges A and B.
  Operand* user[3] = {&A, &B, &C};
  if (v.row && !gemv) std::swap(user[0], user[1]);
  void* ptr[3];
  for (int i = 0; i < 3; ++i) {
    Operand& o = *user[i];
    if (s.place & (1 << i)) {
      if (!arena || o.image.size() > arena->bytes) {
        res.error = s.describe() + ": operand larger than the device arena (test bug)";
        return res;
      }
      if (cudaMemcpy(arena->buf[i], o.image.data(), o.image.size(), cudaMemcpyHostToDevice) != cudaSuccess) {
        res.error = s.describe() + ": cudaMemcpy to the device failed";
        return res;
      }
      ptr[i] = static_cast<unsigned char*>(arena->buf[i]) + kPad * o.es;
    } else {
      ptr[i] = o.image.data() + kPad * o.es;
    }
  }

  const int ulda = int(v.row && !gemv ? v.ldb : v.lda), uldb = int(v.row ? v.lda : v.ldb), ldc = v.ldc;
  const bool cblas = s.entry == Entry::cblas_col || s.entry == Entry::cblas_row;
  const CBLAS_LAYOUT layout = v.row ? CblasRowMajor : CblasColMajor;
  auto ctrans = [](char t) {
    return !transposed(t) ? CblasNoTrans : (t == 'C' || t == 'c') ? CblasConjTrans : CblasTrans;
  };
  switch (s.routine) {
    case Routine::sgemm: {
      const float* pa = static_cast<const float*>(ptr[0]);
      const float* pb = static_cast<const float*>(ptr[1]);
      float* pc = static_cast<float*>(ptr[2]);
      if (cblas)
        cblas_sgemm(layout, ctrans(s.ta), ctrans(s.tb), s.m, s.n, s.k, s.alpha, pa, ulda, pb, uldb, s.beta, pc, ldc);
      else
        sgemm_(&s.ta, &s.tb, &s.m, &s.n, &s.k, &s.alpha, pa, &ulda, pb, &uldb, &s.beta, pc, &ldc);
      break;
    }
    case Routine::hgemm: {
      const uint16_t* pa = static_cast<const uint16_t*>(ptr[0]);
      const uint16_t* pb = static_cast<const uint16_t*>(ptr[1]);
      uint16_t* pc = static_cast<uint16_t*>(ptr[2]);
      const uint16_t ha = myblas_float_to_half(s.alpha), hb = myblas_float_to_half(s.beta);
      if (cblas)
        cblas_hgemm(layout, ctrans(s.ta), ctrans(s.tb), s.m, s.n, s.k, ha, pa, ulda, pb, uldb, hb, pc, ldc);
      else
        (s.entry == Entry::plain ? hgemm : hgemm_)(&s.ta, &s.tb, &s.m, &s.n, &s.k, &ha, pa, &ulda, pb, &uldb, &hb, pc,
                                                   &ldc);
      break;
    }
    case Routine::sgemv: {
      const float* pa = static_cast<const float*>(ptr[0]);
      const float* px = static_cast<const float*>(ptr[1]);
      float* py = static_cast<float*>(ptr[2]);
      if (cblas)
        cblas_sgemv(layout, ctrans(s.ta), s.m, s.n, s.alpha, pa, v.lda, px, s.incx, s.beta, py, s.incy);
      else
        sgemv_(&s.ta, &s.m, &s.n, &s.alpha, pa, &v.lda, px, &s.incx, &s.beta, py, &s.incy);
      break;
    }
  }
  res.path = myblas_last_path();
  for (int i = 0; i < 3; ++i)
    if ((s.place & (1 << i)) &&
        cudaMemcpy(user[i]->image.data(), arena->buf[i], user[i]->image.size(), cudaMemcpyDeviceToHost) != cudaSuccess) {
      res.error = s.describe() + ": cudaMemcpy from the device failed (a fault left by the call?)";
      return res;
    }

  const std::string what = s.describe() + " path=" + res.path;
  if (A.image != a0 || B.image != b0) {
    res.error = what + ": an input operand changed";
    return res;
  }
  // Guards: every byte of C's image outside its elements is as before the call.
  for (size_t p = 0; p < C.image.size() / C.es; ++p)
    if (!C.element(int64_t(p) - kPad) && std::memcmp(&C.image[p * C.es], &c0[p * C.es], C.es) != 0) {
      res.error = what + fmt(": guard %.0f elements from the start of the output's storage changed", double(p) - kPad, 0, 0);
      return res;
    }
  if (s.quick_return()) {
    if (C.image != c0) res.error = what + ": a quick return (reference BLAS) changed the output";
    return res;
  }
  for (int j = 0; j < C.cols; ++j)
    for (int i = 0; i < C.rows; ++i)
      if (std::isnan(C.get(i + j * C.ld))) {
        res.error = what + fmt(": NaN in the output at storage offset %.0f (beta == 0 must not read C/y)", double(i + j * C.ld), 0, 0);
        return res;
      }
  if (!full_check) return res;

  // The reference on the clean values (A and B intact even where the library got NaN).
  std::vector<float> want = C.val;
  if (beta == 0.f) std::fill(want.begin(), want.end(), 0.f);
  if (gemv)
    mbtest::ref_sgemv(v.ta ? 'T' : 'N', v.cm, v.cn, alpha, A.val.data(), v.lda, B.val.data(), s.incx, beta, want.data(),
                      s.incy);
  else
    mbtest::ref_sgemm(v.ta ? 'T' : 'N', v.tb ? 'T' : 'N', v.cm, v.cn, v.k, alpha, A.val.data(), v.lda, B.val.data(),
                      v.ldb, beta, want.data(), v.ldc);
  const int kk = gemv ? v.lx : v.k;
  for (int j = 0; j < (gemv ? 1 : v.cn); ++j)
    for (int i = 0; i < (gemv ? v.ly : v.cm); ++i) {
      double sum = 0, c_old;
      int64_t off;
      if (gemv) {
        for (int l = 0; l < v.lx; ++l)
          sum += std::fabs(double(v.ta ? A.at(l, i) : A.at(i, l)) * B.val[size_t(vec_pos(l, v.lx, s.incx))]);
        off = vec_pos(i, v.ly, s.incy);
      } else {
        for (int l = 0; l < v.k; ++l)
          sum += std::fabs(double(v.ta ? A.at(l, i) : A.at(i, l)) * (v.tb ? B.at(j, l) : B.at(l, j)));
        off = i + int64_t(j) * v.ldc;
      }
      c_old = C.val[size_t(off)];
      const double scale = std::fabs(double(alpha)) * sum + (beta == 0.f ? 0.0 : std::fabs(double(beta) * c_old));
      const double got = C.get(off), ref = want[size_t(off)];
      double bound = (kk + 2) * 4 * kEps * scale + 1e-30;
      if (half) bound += std::ldexp(std::fabs(ref), -10) + std::ldexp(1.0, -24);
      if (!(std::fabs(got - ref) <= bound)) {
        res.error = what + (gemv ? fmt(": y element %.0f: got %.9g, OpenBLAS %.9g", i, got, ref)
                                 : fmt(": C(%.0f,%.0f) (column-major view): got %.9g", i, j, got) +
                                       fmt(", OpenBLAS %.9g", ref, 0, 0)) +
                    fmt(", bound %.3g", bound, 0, 0);
        return res;
      }
    }
  return res;
}

}  // namespace reltest
