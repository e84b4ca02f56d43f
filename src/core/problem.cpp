#include "core/problem.h"

namespace myblas {

const char* family_name(Family f) {
  static const char* const kNames[kFamilies] = {"gemm", "gemv",  "symm",  "hemm", "syrk",
                                                "herk", "syr2k", "her2k", "trmm", "trsm"};
  return unsigned(f) < unsigned(kFamilies) ? kNames[int(f)] : "?";
}

const char* routine_name(Routine r) {
  // "sgemm", "sgemv", "hgemm", then letter x family for every value routine_of can give.
  static const struct Names {
    char text[kRoutineCount][8] = {};
    Names() {
      const char* fixed[kFirstGenericRoutine] = {"sgemm", "sgemv", "hgemm"};
      for (int i = 0; i < kFirstGenericRoutine; ++i)
        for (int j = 0; fixed[i][j]; ++j) text[i][j] = fixed[i][j];
      for (int f = 0; f < kFamilies; ++f)
        for (int t = 0; t < 4; ++t) {
          char* out = text[kFirstGenericRoutine + f * 4 + t];
          out[0] = "sdcz"[t];
          const char* name = family_name(Family(f));
          for (int j = 0; name[j]; ++j) out[j + 1] = name[j];
        }
    }
  } kNames;
  if (r == Routine::sbgemm) return "sbgemm";
  if (r == Routine::shgemm) return "shgemm";
  const int i = int(r);
  return i < kRoutineCount ? kNames.text[i] : "?";
}

namespace {
// Whether op(X) keeps X as stored.
bool notrans(char t) { return t == 'N' || t == 'R'; }  // R: gemv's conj(A)
}  // namespace

int64_t BlasProblem::c_rows() const {
  switch (family) {
    case Family::gemv: return notrans(ta) ? m : n;
    case Family::syrk: case Family::herk: case Family::syr2k: case Family::her2k: return n;
    default: return m;
  }
}

int64_t BlasProblem::c_cols() const { return family == Family::gemv ? 1 : n; }

int64_t BlasProblem::a_rows() const {
  switch (family) {
    case Family::gemm: return notrans(ta) ? m : k;
    case Family::gemv: return m;
    case Family::symm: case Family::hemm: case Family::trmm: case Family::trsm: return side == 'L' ? m : n;
    default: return notrans(ta) ? n : k;  // the rank-k updates
  }
}

int64_t BlasProblem::a_cols() const {
  switch (family) {
    case Family::gemm: return notrans(ta) ? k : m;
    case Family::gemv: return n;
    case Family::symm: case Family::hemm: case Family::trmm: case Family::trsm: return side == 'L' ? m : n;
    default: return notrans(ta) ? k : n;
  }
}

int64_t BlasProblem::b_rows() const {
  switch (family) {
    case Family::gemm: return notrans(tb) ? k : n;
    case Family::gemv: return notrans(ta) ? n : m;  // x, as a vector of this length
    case Family::symm: case Family::hemm: return m;
    case Family::syr2k: case Family::her2k: return notrans(ta) ? n : k;
    default: return 0;
  }
}

int64_t BlasProblem::b_cols() const {
  switch (family) {
    case Family::gemm: return notrans(tb) ? n : k;
    case Family::gemv: return 1;
    case Family::symm: case Family::hemm: return n;
    case Family::syr2k: case Family::her2k: return notrans(ta) ? k : n;
    default: return 0;
  }
}

bool BlasProblem::scale_only() const {
  switch (family) {
    case Family::gemm: case Family::syrk: case Family::herk: case Family::syr2k: case Family::her2k:
      return alpha.zero() || k == 0;
    default: return alpha.zero();
  }
}

double BlasProblem::macs() const {
  const double dm = double(m), dn = double(n), dk = double(k);
  switch (family) {
    case Family::gemm: return dm * dn * dk;
    case Family::gemv: return dm * dn;
    case Family::symm: case Family::hemm: return (side == 'L' ? dm : dn) * dm * dn;
    case Family::syrk: case Family::herk: return dn * (dn + 1) / 2 * dk;
    case Family::syr2k: case Family::her2k: return dn * (dn + 1) * dk;
    case Family::trmm: case Family::trsm: return (side == 'L' ? dm : dn) * dm * dn / 2;
  }
  return 0;
}

}  // namespace myblas
