// Illegal arguments of every routine served through the generic problem description (GEMM and
// GEMV in D, C, Z; SYMM, HEMM, SYRK, HERK, SYR2K, HER2K, TRMM, TRSM in every type), through
// every name: Fortran NAME_ (LP64), NAME_64_ and NAME_64 (ILP64), CBLAS cblas_NAME (LP64) and
// cblas_NAME_64, cblas_NAME64_ (ILP64), in both layouts.
//
// Expected numbers: the reference routines' INFO (netlib ?gemm.f, ?symm.f, ...) for Fortran; for
// CBLAS what the reference CBLAS hands to cblas_xerbla: the enum's position, or the INFO of the
// column-major Fortran call it makes + 1. Row-major cases are written with the user's position
// (as the reference testers c_?2chke.c / c_?3chke.c expect it); the reference CBLAS passes the
// column-major call's number, with M/N (and for GEMM lda/ldb) exchanged: passed_info() maps
// one to the other, and our default cblas_xerbla maps it back (errors.default_handlers).
// Every check asks for exactly one report (handler, routine name, number), the path "none",
// and every operand bitwise unchanged.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "errors_capture.h"
#include "interface/blas_check.h"

namespace {

using errtest::Report;
using errtest::take_reports;
using iface::Args;
using iface::Fam;
using iface::Ty;

// One illegal call: options, sizes (gemv: ldb = incx, ldc = incy) and the expected number.
struct Bad {
  char side, uplo, ta, tb, diag;
  int m, n, k, lda, ldb, ldc;
  int info;  // Fortran INFO (column-major cases) or the user's CBLAS position (row-major cases)
};

// The transpose a rank update accepts besides 'N' (herk/her2k 'C', complex syrk/syr2k 'T').
template <class T>
char rank_t(Fam f) {
  return iface::hermitian(f) ? 'C' : 'T';
}
// A transpose a rank update rejects ('T' for herk/her2k, 'C' for complex syrk/syr2k).
template <class T>
char rank_bad_t(Fam f) {
  return iface::hermitian(f) ? 'T' : Ty<T>::cx ? 'C' : 'X';
}

// Column-major (Fortran) cases with the reference INFO.
template <class T>
std::vector<Bad> fortran_cases(Fam f) {
  const bool two = f == Fam::syr2k || f == Fam::her2k;
  const char t = rank_t<T>(f);
  switch (f) {
    case Fam::gemm:
      return {{'L', 'U', 'X', 'N', 'N', 4, 4, 4, 8, 8, 8, 1},   {'L', 'U', 'N', '/', 'N', 4, 4, 4, 8, 8, 8, 2},
              {'L', 'U', 'N', 'N', 'N', -1, 0, 0, 1, 1, 1, 3},  {'L', 'U', 'T', 'C', 'N', 0, -1, 0, 1, 1, 1, 4},
              {'L', 'U', 'N', 'N', 'N', 0, 0, -1, 1, 1, 1, 5},  {'L', 'U', 'N', 'N', 'N', 4, 4, 4, 3, 4, 4, 8},
              {'L', 'U', 'C', 'N', 'N', 2, 4, 6, 5, 6, 2, 8},   {'L', 'U', 'N', 'N', 'N', 4, 4, 4, 4, 3, 4, 10},
              {'L', 'U', 'N', 'T', 'N', 4, 6, 4, 4, 5, 4, 10},  {'L', 'U', 'N', 'N', 'N', 4, 4, 4, 4, 4, 3, 13},
              {'L', 'U', 'N', 'N', 'N', 0, 4, 4, 0, 4, 1, 8},   {'L', 'U', 'X', 'Y', 'N', -1, -1, -1, 0, 0, 0, 1},
              {'L', 'U', 'N', 'N', 'N', 3, 3, 3, 2, 2, 2, 8}};
    case Fam::gemv:
      return {{'L', 'U', 'X', 'N', 'N', 4, 4, 0, 4, 1, 1, 1},  {'L', 'U', 'N', 'N', 'N', -1, 0, 0, 1, 1, 1, 2},
              {'L', 'U', 'C', 'N', 'N', 0, -1, 0, 1, 1, 1, 3}, {'L', 'U', 'N', 'N', 'N', 4, 4, 0, 3, 1, 1, 6},
              {'L', 'U', 'T', 'N', 'N', 4, 4, 0, 4, 0, 1, 8},  {'L', 'U', 'N', 'N', 'N', 4, 4, 0, 4, -1, 0, 11},
              {'L', 'U', 'N', 'N', 'N', 0, 4, 0, 0, 1, 1, 6},  {'L', 'U', 'N', 'N', 'N', 3, 3, 0, 3, 0, 0, 8}};
    case Fam::symm: case Fam::hemm:
      return {{'X', 'U', 'N', 'N', 'N', 4, 4, 0, 4, 4, 4, 1},  {'L', 'X', 'N', 'N', 'N', 4, 4, 0, 4, 4, 4, 2},
              {'L', 'U', 'N', 'N', 'N', -1, 0, 0, 1, 1, 1, 3}, {'R', 'L', 'N', 'N', 'N', 0, -1, 0, 1, 1, 1, 4},
              {'L', 'U', 'N', 'N', 'N', 4, 4, 0, 3, 4, 4, 7},  {'R', 'U', 'N', 'N', 'N', 4, 6, 0, 5, 4, 4, 7},
              {'L', 'L', 'N', 'N', 'N', 4, 4, 0, 4, 3, 4, 9},  {'R', 'U', 'N', 'N', 'N', 4, 4, 0, 4, 4, 3, 12},
              {'L', 'U', 'N', 'N', 'N', 0, 4, 0, 0, 1, 1, 7}};
    case Fam::trmm: case Fam::trsm:
      return {{'X', 'U', 'N', 'N', 'N', 4, 4, 0, 4, 4, 0, 1},  {'L', 'X', 'N', 'N', 'N', 4, 4, 0, 4, 4, 0, 2},
              {'L', 'U', 'X', 'N', 'U', 4, 4, 0, 4, 4, 0, 3},  {'L', 'U', 'N', 'N', 'X', 4, 4, 0, 4, 4, 0, 4},
              {'L', 'U', 'C', 'N', 'N', -1, 0, 0, 1, 1, 0, 5}, {'R', 'L', 'T', 'N', 'U', 0, -1, 0, 1, 1, 0, 6},
              {'L', 'U', 'N', 'N', 'N', 4, 6, 0, 3, 4, 0, 9},  {'R', 'U', 'N', 'N', 'N', 4, 6, 0, 5, 4, 0, 9},
              {'L', 'U', 'N', 'N', 'U', 4, 4, 0, 4, 3, 0, 11}, {'L', 'U', 'N', 'N', 'N', 0, 0, 0, 0, 1, 0, 9}};
    default: {
      std::vector<Bad> v = {
          {'L', 'X', 'N', 'N', 'N', 0, 4, 4, 4, 4, 4, 1},    {'L', 'U', 'X', 'N', 'N', 0, 4, 4, 4, 4, 4, 2},
          {'L', 'L', 'N', 'N', 'N', 0, -1, 0, 1, 1, 1, 3},   {'L', 'U', t, 'N', 'N', 0, 0, -1, 1, 1, 1, 4},
          {'L', 'U', 'N', 'N', 'N', 0, 4, 3, 3, 4, 4, 7},    {'L', 'L', t, 'N', 'N', 0, 4, 5, 4, 5, 4, 7},
          {'L', 'U', 'N', 'N', 'N', 0, 4, 3, 4, 4, 3, two ? 12 : 10}, {'L', 'U', 'N', 'N', 'N', 0, 0, 3, 0, 1, 1, 7}};
      if (rank_bad_t<T>(f) != 'X') v.push_back({'L', 'U', rank_bad_t<T>(f), 'N', 'N', 0, 4, 4, 4, 4, 4, 2});
      if (two) {
        v.push_back({'L', 'U', 'N', 'N', 'N', 0, 4, 3, 4, 3, 4, 9});
        v.push_back({'L', 'U', t, 'N', 'N', 0, 4, 5, 5, 4, 4, 9});
      }
      return v;
    }
  }
}

// Row-major CBLAS cases with the user's position (the leading dimensions count the row-major
// rows: lda >= K for GEMM 'N', >= N for GEMV, ldb/ldc >= N, ...).
template <class T>
std::vector<Bad> row_cases(Fam f) {
  const bool two = f == Fam::syr2k || f == Fam::her2k;
  const char t = rank_t<T>(f);
  switch (f) {
    case Fam::gemm:
      return {{'L', 'U', 'X', 'N', 'N', 4, 4, 4, 8, 8, 8, 2},   {'L', 'U', 'N', 'X', 'N', 4, 4, 4, 8, 8, 8, 3},
              {'L', 'U', 'N', 'N', 'N', -1, 3, 3, 3, 3, 3, 4},  {'L', 'U', 'N', 'N', 'N', 3, -1, 3, 3, 3, 3, 5},
              {'L', 'U', 'N', 'N', 'N', 3, 3, -1, 3, 3, 3, 6},  {'L', 'U', 'N', 'N', 'N', 4, 4, 5, 4, 4, 4, 9},
              {'L', 'U', 'T', 'N', 'N', 5, 4, 4, 4, 4, 4, 9},   {'L', 'U', 'N', 'N', 'N', 4, 5, 4, 4, 4, 5, 11},
              {'L', 'U', 'N', 'C', 'N', 4, 4, 5, 5, 4, 4, 11},  {'L', 'U', 'N', 'N', 'N', 4, 5, 4, 4, 5, 4, 14},
              {'L', 'U', 'N', 'N', 'N', -1, -1, -1, 0, 0, 0, 5}, {'L', 'U', 'N', 'N', 'N', 3, 3, 3, 2, 2, 2, 11}};
    case Fam::gemv:
      return {{'L', 'U', 'X', 'N', 'N', 4, 4, 0, 4, 1, 1, 2},  {'L', 'U', 'N', 'N', 'N', -1, 3, 0, 3, 1, 1, 3},
              {'L', 'U', 'T', 'N', 'N', 3, -1, 0, 3, 1, 1, 4}, {'L', 'U', 'N', 'N', 'N', 3, 4, 0, 3, 1, 1, 7},
              {'L', 'U', 'C', 'N', 'N', 4, 4, 0, 4, 0, 1, 9},  {'L', 'U', 'C', 'N', 'N', 4, 4, 0, 4, 1, 0, 12},
              {'L', 'U', 'N', 'N', 'N', -1, -1, 0, 0, 0, 0, 4}};
    case Fam::symm: case Fam::hemm:
      return {{'X', 'U', 'N', 'N', 'N', 4, 4, 0, 4, 4, 4, 2},  {'L', 'X', 'N', 'N', 'N', 4, 4, 0, 4, 4, 4, 3},
              {'L', 'U', 'N', 'N', 'N', -1, 4, 0, 4, 4, 4, 4}, {'L', 'U', 'N', 'N', 'N', 4, -1, 0, 4, 4, 4, 5},
              {'L', 'U', 'N', 'N', 'N', 4, 4, 0, 3, 4, 4, 8},  {'R', 'U', 'N', 'N', 'N', 4, 6, 0, 5, 6, 6, 8},
              {'L', 'L', 'N', 'N', 'N', 4, 6, 0, 4, 5, 6, 10}, {'R', 'U', 'N', 'N', 'N', 4, 6, 0, 6, 6, 5, 13},
              {'L', 'U', 'N', 'N', 'N', -1, -1, 0, 0, 0, 0, 5}};
    case Fam::trmm: case Fam::trsm:
      return {{'X', 'U', 'N', 'N', 'N', 4, 4, 0, 4, 4, 0, 2},  {'L', 'X', 'N', 'N', 'N', 4, 4, 0, 4, 4, 0, 3},
              {'L', 'U', 'X', 'N', 'N', 4, 4, 0, 4, 4, 0, 4},  {'L', 'U', 'N', 'N', 'X', 4, 4, 0, 4, 4, 0, 5},
              {'L', 'U', 'N', 'N', 'N', -1, 4, 0, 4, 4, 0, 6}, {'R', 'L', 'C', 'N', 'U', 4, -1, 0, 4, 4, 0, 7},
              {'L', 'U', 'N', 'N', 'N', 4, 6, 0, 3, 6, 0, 10}, {'R', 'U', 'T', 'N', 'N', 4, 6, 0, 5, 6, 0, 10},
              {'L', 'U', 'N', 'N', 'U', 4, 6, 0, 4, 5, 0, 12}, {'L', 'U', 'N', 'N', 'N', -1, -1, 0, 0, 0, 0, 7}};
    default: {
      std::vector<Bad> v = {
          {'L', 'X', 'N', 'N', 'N', 0, 4, 4, 4, 4, 4, 2},  {'L', 'U', 'X', 'N', 'N', 0, 4, 4, 4, 4, 4, 3},
          {'L', 'L', 'N', 'N', 'N', 0, -1, 0, 1, 1, 1, 4}, {'L', 'U', t, 'N', 'N', 0, 0, -1, 1, 1, 1, 5},
          {'L', 'U', 'N', 'N', 'N', 0, 4, 6, 5, 6, 4, 8},  {'L', 'L', t, 'N', 'N', 0, 6, 4, 5, 6, 6, 8},
          {'L', 'U', 'N', 'N', 'N', 0, 4, 3, 3, 3, 3, two ? 13 : 11}};
      if (rank_bad_t<T>(f) != 'X') v.push_back({'L', 'U', rank_bad_t<T>(f), 'N', 'N', 0, 4, 4, 4, 4, 4, 3});
      if (two) {
        v.push_back({'L', 'U', 'N', 'N', 'N', 0, 4, 6, 6, 5, 4, 10});
        v.push_back({'L', 'U', t, 'N', 'N', 0, 6, 4, 6, 5, 6, 10});
      }
      return v;
    }
  }
}

// What the reference CBLAS passes for a row-major fault at user position `user`: the
// column-major call it makes has M and N (GEMM: also A and B) exchanged.
int passed_info(Fam f, int user) {
  auto swap = [user](int a, int b) { return user == a ? b : user == b ? a : user; };
  switch (f) {
    case Fam::gemm: return user == 9 || user == 11 ? swap(9, 11) : swap(4, 5);
    case Fam::gemv: return swap(3, 4);
    case Fam::symm: case Fam::hemm: return swap(4, 5);
    case Fam::trmm: case Fam::trsm: return swap(6, 7);
    default: return user;
  }
}

// Every operand of every call in one arena of T, on the host or the device: A, B random, C
// guards and NaNs with payloads. All shapes <= 8, leading dimensions <= 16, |inc| <= 2.
template <class T>
class Arena {
 public:
  static constexpr size_t kElems = 512;
  explicit Arena(bool device) : device_(device) {
    std::mt19937_64 rng(20240611);
    pattern_.resize(3 * kElems);
    for (size_t i = 0; i < 2 * kElems; ++i) pattern_[i] = mbtest::random_of<T>(rng);
    for (size_t i = 0; i < kElems; ++i) {
      T& c = pattern_[2 * kElems + i];
      c = mbtest::guard_of<T>();
      if (i % 3 == 1) {
        using R = typename Ty<T>::R;
        R v = std::numeric_limits<R>::quiet_NaN();
        unsigned char* bytes = reinterpret_cast<unsigned char*>(&v);
        bytes[0] = static_cast<unsigned char>(0x2A + i);  // a payload any arithmetic would lose
        std::memcpy(&c, &v, sizeof v);
      }
    }
    if (device_ && cudaMalloc(reinterpret_cast<void**>(&dev_), bytes()) != cudaSuccess) ok_ = false;
    reset();
  }
  ~Arena() {
    if (dev_) cudaFree(dev_);
  }
  void reset() {
    if (!device_) work_ = pattern_;
    else if (ok_) ok_ = cudaMemcpy(dev_, pattern_.data(), bytes(), cudaMemcpyHostToDevice) == cudaSuccess;
  }
  bool ok() const { return ok_; }
  T* part(int i) { return (device_ ? dev_ : work_.data()) + size_t(i) * kElems; }
  std::string changes() {
    std::vector<T> now(pattern_.size());
    if (device_) {
      if (cudaMemcpy(now.data(), dev_, bytes(), cudaMemcpyDeviceToHost) != cudaSuccess) return "cannot read back";
    } else {
      now = work_;
    }
    static const char* names[] = {"A", "B", "C"};
    for (size_t i = 0; i < now.size(); ++i)
      if (std::memcmp(&now[i], &pattern_[i], sizeof(T)) != 0)
        return std::string(names[i / kElems]) + "[" + std::to_string(i % kElems) + "] changed";
    return "";
  }

 private:
  size_t bytes() const { return pattern_.size() * sizeof(T); }
  bool device_;
  bool ok_ = true;
  std::vector<T> pattern_, work_;
  T* dev_ = nullptr;
};

// A successful call first, so that "none" afterwards is the error's doing.
void prime_last_path() {
  std::vector<double> a(4, 0.25), x(2, 1.0), y(2, 0.0);
  const int two = 2, one = 1;
  const double alpha = 1, beta = 0;
  dgemv_("N", &two, &two, &alpha, a.data(), &two, x.data(), &one, &beta, y.data(), &one);
  ASSERT_STRNE(myblas_last_path(), "none");
  ASSERT_TRUE(take_reports().empty());
}

std::string xerbla_name(const std::string& base) {
  std::string s;
  for (char ch : base) s += char(std::toupper(static_cast<unsigned char>(ch)));
  s.resize(6, ' ');
  return s;
}

template <class T>
void expect_one(const std::string& call, bool cblas, const std::string& routine, int info, Arena<T>& arena) {
  const std::vector<Report> reports = take_reports();
  EXPECT_STREQ(myblas_last_path(), "none") << call;
  EXPECT_EQ(arena.changes(), "") << call << ": an illegal call modified memory";
  arena.reset();
  ASSERT_EQ(reports.size(), 1u) << call << ": expected exactly one report (" << routine << ", info " << info << ")";
  EXPECT_EQ(reports[0].cblas, cblas) << call;
  EXPECT_EQ(reports[0].routine, routine) << call;
  EXPECT_EQ(reports[0].info, info) << call;
  if (!cblas) EXPECT_EQ(reports[0].srname_len, 6) << call;
}

template <class T>
Args<T> args_of(const Bad& b, Arena<T>& ar) {
  // Non-zero scalars: a call wrongly accepted would read and write.
  return Args<T>{b.side, b.uplo, b.ta, b.tb, b.diag, b.m, b.n, b.k, iface::scalar_as<T>({1.5, 0.5}),
                 iface::scalar_as<T>({0.5, 0}), ar.part(0), b.lda, ar.part(1), b.ldb, ar.part(2), b.ldc};
}

std::string describe(const std::string& sym, const Bad& b, bool row) {
  return iface::fmt("%s%s(side=%c uplo=%c ta=%c tb=%c diag=%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d)", sym.c_str(),
                    row ? "[RowMajor]" : "", b.side, b.uplo, b.ta, b.tb, b.diag, b.m, b.n, b.k, b.lda, b.ldb,
                    b.ldc);
}

// Every case of family f through every name of the routine of type T.
template <class T>
void every_illegal_argument(Fam f, bool device) {
  Arena<T> arena(device);
  ASSERT_TRUE(arena.ok()) << "cannot set up device operands";
  const std::string base = iface::routine_base<T>(f);
  for (const Bad& b : fortran_cases<T>(f)) {
    const Args<T> g = args_of(b, arena);
    for (iface::Entry e : {iface::Entry::f77, iface::Entry::f77_64_, iface::Entry::f77_64}) {
      const std::string sym = iface::entry_symbol(e, base);
      void* fn = iface::our_symbol(sym);
      ASSERT_TRUE(fn) << sym;
      prime_last_path();
      if (iface::is_ilp64(e)) iface::fortran_call<T, int64_t>(fn, f, g);
      else iface::fortran_call<T, int>(fn, f, g);
      expect_one(describe(sym, b, false), false, xerbla_name(base), b.info, arena);
    }
    // The same call column-major through CBLAS: the position is one more (the layout first).
    for (iface::Entry e : {iface::Entry::cblas_col, iface::Entry::cblas_row_64, iface::Entry::cblas_col64_}) {
      const std::string sym = iface::entry_symbol(e, base);
      prime_last_path();
      if (iface::is_ilp64(e)) iface::cblas_call<T, int64_t>(iface::our_symbol(sym), f, CblasColMajor, g);
      else iface::cblas_call<T, int>(iface::our_symbol(sym), f, CblasColMajor, g);
      expect_one(describe(sym, b, false), true, "cblas_" + base, b.info + 1, arena);
    }
  }
  for (const Bad& b : row_cases<T>(f)) {
    const Args<T> g = args_of(b, arena);
    for (iface::Entry e : {iface::Entry::cblas_row, iface::Entry::cblas_row_64, iface::Entry::cblas_col64_}) {
      const std::string sym = iface::entry_symbol(e, base);
      prime_last_path();
      if (iface::is_ilp64(e)) iface::cblas_call<T, int64_t>(iface::our_symbol(sym), f, CblasRowMajor, g);
      else iface::cblas_call<T, int>(iface::our_symbol(sym), f, CblasRowMajor, g);
      expect_one(describe(sym, b, true) + " user position " + std::to_string(b.info), true, "cblas_" + base,
                 passed_info(f, b.info), arena);
    }
  }
  // An illegal layout, whatever else the call says.
  const Bad any = fortran_cases<T>(f)[0];
  for (int layout : {0, 103, 127}) {
    prime_last_path();
    iface::cblas_call<T, int>(iface::our_symbol("cblas_" + base), f, CBLAS_LAYOUT(layout), args_of(any, arena));
    expect_one("cblas_" + base + " layout " + std::to_string(layout), true, "cblas_" + base, 1, arena);
  }
}

template <class T>
void every_family(bool device) {
  const bool cx = Ty<T>::cx;
  std::vector<Fam> fams = {Fam::symm, Fam::syrk, Fam::syr2k, Fam::trmm, Fam::trsm};
  if (!std::is_same<T, float>::value) fams.insert(fams.end(), {Fam::gemm, Fam::gemv});
  if (cx) fams.insert(fams.end(), {Fam::hemm, Fam::herk, Fam::her2k});
  for (Fam f : fams) {
    SCOPED_TRACE(iface::routine_base<T>(f));
    every_illegal_argument<T>(f, device);
  }
}

TEST(ErrorsBlas, EveryIllegalArgumentS) { every_family<float>(false); }
TEST(ErrorsBlas, EveryIllegalArgumentD) { every_family<double>(false); }
TEST(ErrorsBlas, EveryIllegalArgumentC) { every_family<std::complex<float>>(false); }
TEST(ErrorsBlas, EveryIllegalArgumentZ) { every_family<std::complex<double>>(false); }

// The checks come before any look at where the operands live.
TEST(ErrorsBlasDevice, IllegalCallsLeaveDeviceMemoryUntouched) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no usable CUDA device";
  every_family<double>(true);
  every_family<std::complex<double>>(true);
}

}  // namespace
