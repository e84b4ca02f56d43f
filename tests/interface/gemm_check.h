// One GEMM case, run through any entry point (SGEMM or HGEMM, Fortran or CBLAS, host or
// device operands) and checked against OpenBLAS SGEMM on clean copies of the same data.
#pragma once
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/reference.h"
#include "iface_common.h"

namespace iface {

// What the test plants in the operands the call must not look at.
enum class Poison { none, nan_c, nan_ab, nan_both };

struct GemmCase {
  Api api = Api::fortran;
  char ta = 'N', tb = 'N';
  int m = 1, n = 1, k = 1;
  int pad_a = 3, pad_b = 3, pad_c = 3;  // leading dimension beyond the minimum
  float alpha = 1.f, beta = 0.f;        // for HGEMM: values binary16 holds exactly
  Poison poison = Poison::none;
  Mem mem_a = Mem::host, mem_b = Mem::host, mem_c = Mem::host;
  double eps_factor = 2;  // safety factor on the (k + 2) * FLT_EPSILON bound
  const char* name = nullptr;  // the entry point, for messages (else api_name's S/H name)
};

inline const char* api_name(Api api, bool half) {
  switch (api) {
    case Api::fortran: return half ? "hgemm_" : "sgemm_";
    case Api::fortran_plain: return "hgemm";
    case Api::cblas_col: return half ? "cblas_hgemm(ColMajor)" : "cblas_sgemm(ColMajor)";
    case Api::cblas_row: return half ? "cblas_hgemm(RowMajor)" : "cblas_sgemm(RowMajor)";
  }
  return "?";
}

inline const char* poison_name(Poison p) {
  switch (p) {
    case Poison::none: return "";
    case Poison::nan_c: return " NaN-in-C";
    case Poison::nan_ab: return " NaN-in-A-and-B";
    case Poison::nan_both: return " NaN-in-A-B-and-C";
  }
  return "?";
}

inline char mem_char(Mem m) { return m == Mem::host ? 'h' : 'd'; }

// Runs `c` with the library call `call(c, a, lda, b, ldb, cc, ldc)` (element pointers that may
// be device pointers) and reports every way the result can be wrong. Returns false if it
// failed (so that loops can stop after the first few failures). A and B are held in StoreAB,
// C in StoreC (16-bit A and B with an FP32 C for sbgemm and its kin); a binary16 C adds its
// one rounding to the bound.
template <class StoreAB, class StoreC = StoreAB, class Call>
bool check_gemm(const GemmCase& c, std::mt19937_64& rng, Call call) {
  using Elem = typename decltype(StoreAB::buf)::value_type;
  using ElemC = typename decltype(StoreC::buf)::value_type;
  constexpr bool half = sizeof(ElemC) == 2;
  const bool row = row_major(c.api);
  const bool ta = is_trans(c.ta), tb = is_trans(c.tb);
  Operand<StoreAB> A(ta ? c.k : c.m, ta ? c.m : c.k, row, c.pad_a, rng);
  Operand<StoreAB> B(tb ? c.n : c.k, tb ? c.k : c.n, row, c.pad_b, rng);
  Operand<StoreC> C(c.m, c.n, row, c.pad_c, rng);
  const std::string what =
      fmt("%s ta='%c' tb='%c' m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%.9g beta=%.9g%s "
          "mem(a,b,c)=%c%c%c | %s",
          c.name ? c.name : api_name(c.api, half), c.ta, c.tb, c.m, c.n, c.k, A.ld(), B.ld(), C.ld(), c.alpha, c.beta,
          poison_name(c.poison), mem_char(c.mem_a), mem_char(c.mem_b), mem_char(c.mem_c),
          run_context().c_str());

  // The reference always sees the clean data: what it does with NaN is not under test.
  const std::vector<float> a0 = A.logical(), b0 = B.logical(), c0 = C.logical();
  if (c.poison == Poison::nan_c || c.poison == Poison::nan_both) C.s.fill_nan();
  if (c.poison == Poison::nan_ab || c.poison == Poison::nan_both) {
    A.s.fill_nan();
    B.s.fill_nan();
  }
  const std::vector<Elem> a_in = A.s.buf, b_in = B.s.buf;
  const std::vector<ElemC> c_in = C.s.buf;

  std::unique_ptr<DeviceMirror> da, db, dc;
  Elem* pa = A.s.data();
  Elem* pb = B.s.data();
  ElemC* pc = C.s.data();
  auto mirror = [&](Mem where, auto& buf, std::unique_ptr<DeviceMirror>* d, auto** p) {
    using E = typename std::remove_reference_t<decltype(buf)>::value_type;
    if (where == Mem::host) return true;
    d->reset(new DeviceMirror(buf.data(), buf.size() * sizeof(E)));
    if (!(*d)->ok()) {
      ADD_FAILURE() << "cudaMalloc/cudaMemcpy: " << (*d)->error() << " | " << what;
      return false;
    }
    *p = static_cast<E*>((*d)->get()) + StoreAB::kPad;  // (every store pads by the same kPad)
    return true;
  };
  if (!mirror(c.mem_a, A.s.buf, &da, &pa) || !mirror(c.mem_b, B.s.buf, &db, &pb) ||
      !mirror(c.mem_c, C.s.buf, &dc, &pc))
    return false;

  call(c, pa, A.ld(), pb, B.ld(), pc, C.ld());
  const bool quick = c.m == 0 || c.n == 0 || ((c.alpha == 0.f || c.k == 0) && c.beta == 1.f);
  const bool scale_only = c.alpha == 0.f || c.k == 0;
  const bool device = c.mem_c == Mem::device ||
                      (!scale_only && (c.mem_a == Mem::device || c.mem_b == Mem::device));
  const ::testing::AssertionResult path = path_ok(quick, device);

  bool ok = true;
  auto back = [&](std::unique_ptr<DeviceMirror>& d, auto& buf) {
    if (d && !d->copy_back(buf.data())) {
      ADD_FAILURE() << "copying back from the device: " << d->error() << " | " << what;
      ok = false;
    }
  };
  back(da, A.s.buf);
  back(db, B.s.buf);
  back(dc, C.s.buf);
  if (!ok) return false;

  if (!path) {
    ok = false;
    ADD_FAILURE() << path.message() << " | " << what;
  }
  if (!same_bits(A.s.buf, a_in)) {
    ok = false;
    ADD_FAILURE() << "input A (or its padding) was modified | " << what;
  }
  if (!same_bits(B.s.buf, b_in)) {
    ok = false;
    ADD_FAILURE() << "input B (or its padding) was modified | " << what;
  }
  if (const int64_t bad = C.s.damaged_guards()) {
    ok = false;
    ADD_FAILURE() << bad << " guard elements around C or in its padding were overwritten | " << what;
  }
  if (quick) {
    if (!same_bits(C.s.buf, c_in)) {
      ok = false;
      ADD_FAILURE() << "quick return must leave C untouched, but it changed | " << what;
    }
    return ok;
  }

  const int lda0 = std::max(1, A.rows), ldb0 = std::max(1, B.rows), ldc0 = std::max(1, c.m);
  const char nta = normal_trans(c.ta), ntb = normal_trans(c.tb);
  std::vector<float> want = c0;
  mbtest::ref_sgemm(nta, ntb, c.m, c.n, c.k, c.alpha, a0.data(), lda0, b0.data(), ldb0, c.beta,
                    want.data(), ldc0);
  // |alpha| |op(A)| |op(B)| + |beta| |C0|, by the reference too (the sum of k products).
  std::vector<float> mag = abs_of(c0);
  mbtest::ref_sgemm(nta, ntb, c.m, c.n, c.k, std::fabs(c.alpha), abs_of(a0).data(), lda0,
                    abs_of(b0).data(), ldb0, std::fabs(c.beta), mag.data(), ldc0);
  std::vector<double> bound(size_t(c.m) * size_t(c.n));
  for (size_t e = 0; e < bound.size(); ++e) {
    bound[e] = c.eps_factor * FLT_EPSILON * (c.k + 2) * double(mag[e]);
    if (half) bound[e] += std::fabs(double(want[e])) * std::ldexp(1.0, -11) + std::ldexp(1.0, -24);
  }
  const std::vector<float> got = C.logical();
  const mbtest::Worst w = mbtest::compare(got.data(), c.m, want.data(), c.m, bound, c.m, c.n, 1.0);
  if (!(w.ratio <= 1.0)) {
    const size_t e = size_t(w.i) + size_t(w.j) * c.m;
    ok = false;
    ADD_FAILURE() << fmt("result off by %.3g x the bound; worst C(%d,%d): got %.9g, want %.9g "
                         "(bound %.3g)%s | ",
                         w.ratio, w.i, w.j, w.got, w.want, bound[e],
                         std::isnan(w.got) ? " -- NaN in the result" : "")
                  << what;
  }
  return ok;
}

}  // namespace iface
