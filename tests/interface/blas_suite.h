// The sweeps every routine of blas_check.h goes through, written once per family and element
// type: every option (side, uplo, trans including 'C', diag) on every entry point with odd
// sizes, the special scalars, and the quick returns. `mem` puts every operand in host or device
// memory (the Device tests).
#pragma once
#include <string>
#include <vector>

#include "blas_check.h"
#include "gemm_suite.h"

namespace iface {

// The option characters of one call: side, uplo, ta, tb, diag.
struct Options {
  char side = 'L', uplo = 'U', ta = 'N', tb = 'N', diag = 'N';
};

template <class T>
std::vector<Options> every_option(Fam f) {
  std::vector<Options> v;
  const std::string trans3 = "NTC";
  const std::string rank_trans = hermitian(f) ? "NC" : Ty<T>::cx ? "NT" : "NTC";
  switch (f) {
    case Fam::gemm:
      for (char a : trans3)
        for (char b : trans3) v.push_back({'L', 'U', a, b, 'N'});
      break;
    case Fam::gemv:
      for (char a : trans3) v.push_back({'L', 'U', a, 'N', 'N'});
      break;
    case Fam::symm: case Fam::hemm:
      for (char s : {'L', 'R'})
        for (char u : {'U', 'L'}) v.push_back({s, u, 'N', 'N', 'N'});
      break;
    case Fam::trmm: case Fam::trsm:
      for (char s : {'L', 'R'})
        for (char u : {'U', 'L'})
          for (char t : trans3)
            for (char d : {'N', 'U'}) v.push_back({s, u, t, 'N', d});
      break;
    default:
      for (char u : {'U', 'L'})
        for (char t : rank_trans) v.push_back({'L', u, t, 'N', 'N'});
      break;
  }
  return v;
}

// herk takes real alpha and beta, her2k a real beta; real types have no imaginary parts.
template <class T>
std::complex<double> legal_scalar(Fam f, bool is_alpha, std::complex<double> v) {
  if (!Ty<T>::cx || (f == Fam::herk) || (f == Fam::her2k && !is_alpha)) return {v.real(), 0};
  return v;
}

inline BlasCase make_case(Fam f, Entry e, const Options& o, int m, int n, int k) {
  BlasCase c;
  c.f = f;
  c.api = e;
  c.side = o.side, c.uplo = o.uplo, c.ta = o.ta, c.tb = o.tb, c.diag = o.diag;
  c.m = m, c.n = n, c.k = k;
  return c;
}

// Every option on every entry point; sizes, scalars, increments and lower-case spellings
// (Fortran entries) take turns.
template <class T>
void sweep_options(Fam f, Mem mem) {
  std::mt19937_64 rng(mbtest::test_seed());
  const int shapes[][3] = {{17, 3, 33}, {3, 17, 1}, {33, 65, 17}, {1, 1, 1}, {65, 33, 3}, {3, 1, 65}, {17, 17, 17}};
  const std::complex<double> scalars[] = {{0.5, 0.25}, {-1, 0}, {1, 0}, {0.5, 0}, {-0.75, 1}};
  const int incs[][2] = {{1, 1}, {-1, 2}, {3, -1}, {-2, -3}};
  Sweep s;
  int turn = 0;
  for (const Options& o : every_option<T>(f))
    for (Entry e : all_entries()) {
      if (!s.more()) return;
      const auto& sh = shapes[turn % 7];
      BlasCase c = make_case(f, e, o, sh[0], sh[1], sh[2]);
      if (e == Entry::f77 && turn % 2) {  // the reference accepts lower case
        for (char* ch : {&c.side, &c.uplo, &c.ta, &c.tb, &c.diag}) *ch = char(std::tolower(*ch));
      }
      c.alpha = legal_scalar<T>(f, true, scalars[turn % 5]);
      c.beta = legal_scalar<T>(f, false, scalars[(turn + 2) % 5]);
      c.incx = incs[turn % 4][0], c.incy = incs[turn % 4][1];
      c.pad = 1 + turn % 4;
      c.mem = mem;
      ++turn;
      s.add(check_any<T>(c, rng));
    }
}

// beta == 0 with NaN in C, alpha == 0 with NaN in A and B, k == 0, empty shapes (quick
// returns), on the LP64 Fortran and the row-major CBLAS entry points.
template <class T>
void sweep_specials(Fam f, Mem mem) {
  std::mt19937_64 rng(mbtest::test_seed() + 1);
  const std::vector<Options> opts = every_option<T>(f);
  Sweep s;
  int turn = 0;
  auto run = [&](int m, int n, int k, std::complex<double> alpha, std::complex<double> beta, Poison p) {
    for (Entry e : {Entry::f77, Entry::cblas_row}) {
      if (!s.more()) return;
      BlasCase c = make_case(f, e, opts[size_t(turn) % opts.size()], m, n, k);
      c.alpha = legal_scalar<T>(f, true, alpha);
      c.beta = legal_scalar<T>(f, false, beta);
      c.poison = p;
      c.incx = turn % 2 ? -2 : 1, c.incy = turn % 3 ? 1 : -1;
      c.mem = mem;
      ++turn;
      s.add(check_any<T>(c, rng));
    }
  };
  for (size_t i = 0; i < opts.size(); ++i) {
    if (!triangular(f)) run(17, 33, 5, {0.5, -0.5}, 0, Poison::nan_c);  // beta == 0: C is never read
    run(33, 3, 17, 0, {-1, 0.25}, Poison::nan_ab);        // alpha == 0: A and B are never read
    run(5, 17, 3, 0, 0, Poison::nan_both);                // both: C := 0
  }
  run(3, 17, 5, 0, 1, Poison::nan_ab);   // alpha == 0, beta == 1: a quick return
  run(17, 3, 0, {0.5, 1}, {-0.5, 0}, Poison::none);  // k == 0 (gemm, rank updates): C := beta C
  run(17, 3, 0, 1, 1, Poison::none);
  run(0, 5, 3, 1, 0.5, Poison::none);
  run(5, 0, 3, 1, 0.5, Poison::none);
  run(0, 0, 0, 1, 0.5, Poison::none);
}

}  // namespace iface
