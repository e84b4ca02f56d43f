// The GEMM test bodies, written once for SGEMM and HGEMM. A traits type T supplies:
//   Store                 mbtest::Matrix or HalfMatrix
//   half                  true for HGEMM
//   apis()                the entry points to cover
//   scalar(v)             v as the routine's scalars hold it (binary16-rounded for HGEMM)
//   call(case, a, lda, b, ldb, c, ldc)
//   StoreC                C's store when it differs from A's and B's (optional)
//   name(api)             the entry point's name for messages (optional)
#pragma once
#include <string>
#include <type_traits>
#include <vector>

#include "gemm_check.h"

namespace iface {

#define IFACE_REQUIRE_GPU()                                          \
  do {                                                               \
    std::string why_;                                                \
    if (no_gpu_reason(&why_)) GTEST_SKIP() << "no CUDA device: " << why_; \
  } while (0)

// Stops a sweep after a few failing cases: the first ones say enough, and a broken
// library would otherwise print thousands of lines.
class Sweep {
 public:
  bool more() const { return failures_ < 5; }
  void add(bool ok) { failures_ += ok ? 0 : 1; }

 private:
  int failures_ = 0;
};

inline std::string trans_chars(Api api) { return api == Api::fortran || api == Api::fortran_plain ? "NTCntc" : "NTC"; }

// C's store: T::StoreC where T has one, else T::Store.
template <class T, class = void>
struct StoreCOf {
  using type = typename T::Store;
};
template <class T>
struct StoreCOf<T, std::void_t<typename T::StoreC>> {
  using type = typename T::StoreC;
};

template <class T, class = void>
struct HasName : std::false_type {};
template <class T>
struct HasName<T, std::void_t<decltype(T::name(Api::fortran))>> : std::true_type {};

template <class T>
const char* entry_name(Api api) {
  if constexpr (HasName<T>::value) return T::name(api);
  else return api_name(api, T::half);
}

template <class T>
bool run(GemmCase c, std::mt19937_64& rng) {
  c.name = entry_name<T>(c.api);
  return check_gemm<typename T::Store, typename StoreCOf<T>::type>(c, rng, T::call);
}

template <class T>
std::vector<float> scalars(std::mt19937_64& rng) {
  return {0.f, 1.f, -1.f, 0.5f, T::scalar(mbtest::uniform(rng))};
}

template <class T>
void every_transpose() {
  std::mt19937_64 rng(mbtest::test_seed());
  const int shapes[][3] = {{3, 17, 1}, {17, 3, 127}, {1, 1, 1}, {127, 17, 3}};
  Sweep s;
  for (Api api : T::apis())
    for (char ta : trans_chars(api))
      for (char tb : trans_chars(api))
        for (const auto& sh : shapes) {
          if (!s.more()) return;
          GemmCase c;
          c.api = api;
          c.ta = ta;
          c.tb = tb;
          c.m = sh[0];
          c.n = sh[1];
          c.k = sh[2];
          c.alpha = T::scalar(mbtest::uniform(rng));
          c.beta = T::scalar(mbtest::uniform(rng));
          s.add(run<T>(c, rng));
        }
}

// Every m, n, k in {0, 1, 3, 17, 127}, on every entry point, the transposes taking turns.
template <class T>
void small_sizes() {
  std::mt19937_64 rng(mbtest::test_seed());
  const int sizes[] = {0, 1, 3, 17, 127};
  const char* trans[] = {"NN", "NT", "TN", "TT", "CN", "tc"};
  Sweep s;
  int turn = 0;
  for (Api api : T::apis())
    for (int m : sizes)
      for (int n : sizes)
        for (int k : sizes) {
          if (!s.more()) return;
          GemmCase c;
          c.api = api;
          const char* t = trans[turn++ % 6];
          c.ta = t[0];
          c.tb = t[1];
          c.m = m;
          c.n = n;
          c.k = k;
          c.alpha = T::scalar(mbtest::uniform(rng));
          c.beta = T::scalar(mbtest::uniform(rng));
          s.add(run<T>(c, rng));
        }
}

// 1000 in a few places only: the 2-core CI machine runs every backend entry.
template <class T>
void large_sizes() {
  std::mt19937_64 rng(mbtest::test_seed());
  struct L {
    int m, n, k;
    const char* t;
  };
  const L cases[] = {{1000, 1000, 1000, "NN"}, {1000, 17, 127, "TN"}, {3, 1000, 1000, "NT"},
                     {127, 1000, 3, "TT"},     {1000, 1, 1000, "NC"}, {1, 1000, 17, "cn"}};
  const std::vector<Api> apis = T::apis();
  Sweep s;
  int turn = 0;
  for (const L& l : cases) {
    if (!s.more()) return;
    GemmCase c;
    c.api = apis[turn++ % apis.size()];
    c.ta = l.t[0];
    c.tb = l.t[1];
    c.m = l.m;
    c.n = l.n;
    c.k = l.k;
    c.alpha = T::scalar(mbtest::uniform(rng));
    c.beta = T::scalar(mbtest::uniform(rng));
    s.add(run<T>(c, rng));
  }
  // The square case once more in row-major order: its swap of A and B is the risky part.
  if (!s.more()) return;
  GemmCase c;
  c.api = Api::cblas_row;
  c.ta = 'T';
  c.tb = 'N';
  c.m = 1000;
  c.n = 1000;
  c.k = 1000;
  c.alpha = -1.f;
  c.beta = 0.5f;
  s.add(run<T>(c, rng));
}

template <class T>
void alpha_beta_grid() {
  std::mt19937_64 rng(mbtest::test_seed());
  const int shapes[][3] = {{17, 3, 127}, {3, 17, 1}};
  Sweep s;
  int turn = 0;
  for (Api api : T::apis())
    for (float alpha : scalars<T>(rng))
      for (float beta : scalars<T>(rng))
        for (const auto& sh : shapes) {
          if (!s.more()) return;
          GemmCase c;
          c.api = api;
          c.ta = "NT"[turn % 2];
          c.tb = "TN"[(turn / 2) % 2];
          ++turn;
          c.m = sh[0];
          c.n = sh[1];
          c.k = sh[2];
          c.alpha = alpha;
          c.beta = beta;
          s.add(run<T>(c, rng));
        }
}

// beta == 0 means C is written, never read: NaN there must not come out.
template <class T>
void beta_zero_nan_in_c() {
  std::mt19937_64 rng(mbtest::test_seed());
  const int shapes[][3] = {{17, 3, 127}, {1, 1, 1}, {127, 17, 3}, {3, 17, 0}};
  Sweep s;
  for (Api api : T::apis())
    for (float alpha : scalars<T>(rng))
      for (const auto& sh : shapes) {
        if (!s.more()) return;
        GemmCase c;
        c.api = api;
        c.ta = sh[0] == 1 ? 'T' : 'N';
        c.tb = sh[0] == 127 ? 'T' : 'N';
        c.m = sh[0];
        c.n = sh[1];
        c.k = sh[2];
        c.alpha = alpha;
        c.beta = 0.f;
        c.poison = Poison::nan_c;
        s.add(run<T>(c, rng));
      }
}

// alpha == 0 means A and B are never read: C = beta*C whatever they hold. With beta == 0
// as well, NaN in C must not survive either.
template <class T>
void alpha_zero_nan_in_ab() {
  std::mt19937_64 rng(mbtest::test_seed());
  Sweep s;
  int turn = 0;
  for (Api api : T::apis())
    for (float beta : scalars<T>(rng))
      for (Poison p : {Poison::nan_ab, Poison::nan_both}) {
        if (!s.more()) return;
        if (p == Poison::nan_both && beta != 0.f) continue;
        GemmCase c;
        c.api = api;
        c.ta = "NT"[turn % 2];
        c.tb = "TN"[(turn / 2) % 2];
        ++turn;
        c.m = 17;
        c.n = 3;
        c.k = 127;
        c.alpha = 0.f;
        c.beta = beta;
        c.poison = p;
        s.add(run<T>(c, rng));
      }
}

// k == 0: op(A) op(B) is an empty sum, so C = beta*C (and nothing to read in A or B).
template <class T>
void k_zero() {
  std::mt19937_64 rng(mbtest::test_seed());
  Sweep s;
  int turn = 0;
  for (Api api : T::apis())
    for (float beta : scalars<T>(rng))
      for (const auto& mn : {std::pair<int, int>{17, 3}, {1, 127}}) {
        if (!s.more()) return;
        GemmCase c;
        c.api = api;
        c.ta = "NT"[turn % 2];
        c.tb = "NT"[(turn / 2) % 2];
        ++turn;
        c.m = mn.first;
        c.n = mn.second;
        c.k = 0;
        c.alpha = T::scalar(mbtest::uniform(rng));
        c.beta = beta;
        if (beta == 0.f) c.poison = Poison::nan_c;
        s.add(run<T>(c, rng));
      }
}

// Reference quick returns: m == 0 or n == 0 (C untouched even with beta == 0 and NaN in
// it), and (alpha == 0 or k == 0) with beta == 1. myblas_last_path() must say "none".
template <class T>
void quick_returns() {
  std::mt19937_64 rng(mbtest::test_seed());
  struct Q {
    int m, n, k;
    float alpha, beta;
    Poison p;
  };
  const Q cases[] = {
      {0, 17, 3, 1.f, 0.f, Poison::nan_c},   {17, 0, 3, 1.f, 0.f, Poison::nan_c},
      {0, 0, 3, 1.f, 0.f, Poison::nan_c},    {0, 17, 0, 0.5f, 0.f, Poison::nan_c},
      {0, 17, 3, 0.5f, 0.5f, Poison::nan_c}, {17, 0, 3, 0.5f, -1.f, Poison::nan_both},
      {17, 3, 127, 0.f, 1.f, Poison::nan_both}, {17, 3, 0, 0.5f, 1.f, Poison::nan_c},
      {1, 1, 0, -1.f, 1.f, Poison::nan_c},
  };
  Sweep s;
  int turn = 0;
  for (Api api : T::apis())
    for (const Q& q : cases) {
      if (!s.more()) return;
      GemmCase c;
      c.api = api;
      c.ta = "NT"[turn % 2];
      c.tb = "TN"[(turn / 2) % 2];
      ++turn;
      c.m = q.m;
      c.n = q.n;
      c.k = q.k;
      c.alpha = q.alpha;
      c.beta = q.beta;
      c.poison = q.p;
      s.add(run<T>(c, rng));
    }
}

// Leading dimensions from the minimum to far above it, for each operand on its own.
template <class T>
void leading_dimensions() {
  std::mt19937_64 rng(mbtest::test_seed());
  const int pads[] = {0, 1, 3, 61};
  Sweep s;
  int turn = 0;
  for (Api api : T::apis())
    for (int pa : pads)
      for (int pb : pads)
        for (int pc : pads) {
          if (!s.more()) return;
          GemmCase c;
          c.api = api;
          c.ta = "NTNT"[turn % 4];
          c.tb = "NNTT"[turn % 4];
          ++turn;
          c.m = 17;
          c.n = 3;
          c.k = 5;
          c.pad_a = pa;
          c.pad_b = pb;
          c.pad_c = pc;
          c.alpha = T::scalar(mbtest::uniform(rng));
          c.beta = T::scalar(mbtest::uniform(rng));
          s.add(run<T>(c, rng));
        }
}

// ---- operands in device memory (callers skip without a GPU) -----------------------------

template <class T>
void device_all() {
  std::mt19937_64 rng(mbtest::test_seed());
  const int shapes[][3] = {{17, 3, 127}, {127, 17, 3}, {1, 1, 1}, {1000, 17, 127}, {0, 3, 3}};
  Sweep s;
  int turn = 0;
  for (Api api : T::apis())
    for (const auto& sh : shapes) {
      if (!s.more()) return;
      const std::string tr = trans_chars(api);
      GemmCase c;
      c.api = api;
      c.ta = tr[turn % tr.size()];
      c.tb = tr[(turn + 1) % tr.size()];
      ++turn;
      c.m = sh[0];
      c.n = sh[1];
      c.k = sh[2];
      c.alpha = T::scalar(mbtest::uniform(rng));
      c.beta = T::scalar(mbtest::uniform(rng));
      c.mem_a = c.mem_b = c.mem_c = Mem::device;
      s.add(run<T>(c, rng));
    }
}

// Every mix of host and device operands except all-host.
template <class T>
void device_mixed() {
  std::mt19937_64 rng(mbtest::test_seed());
  Sweep s;
  int turn = 0;
  for (Api api : T::apis())
    for (int mask = 1; mask < 7; ++mask) {
      if (!s.more()) return;
      GemmCase c;
      c.api = api;
      c.ta = "NT"[turn % 2];
      c.tb = "TN"[(turn / 2) % 2];
      ++turn;
      c.m = 127;
      c.n = 17;
      c.k = 33;
      c.alpha = T::scalar(mbtest::uniform(rng));
      c.beta = T::scalar(mbtest::uniform(rng));
      c.mem_a = (mask & 1) ? Mem::device : Mem::host;
      c.mem_b = (mask & 2) ? Mem::device : Mem::host;
      c.mem_c = (mask & 4) ? Mem::device : Mem::host;
      s.add(run<T>(c, rng));
    }
}

// NaN in a device C with beta == 0; NaN in device A and B with alpha == 0, C on either
// side; quick returns with a device C.
template <class T>
void device_special_values() {
  std::mt19937_64 rng(mbtest::test_seed());
  Sweep s;
  for (Api api : T::apis()) {
    for (Mem ab : {Mem::host, Mem::device}) {
      if (!s.more()) return;
      GemmCase c;
      c.api = api;
      c.m = 17;
      c.n = 3;
      c.k = 127;
      c.alpha = T::scalar(mbtest::uniform(rng));
      c.beta = 0.f;
      c.poison = Poison::nan_c;
      c.mem_a = c.mem_b = ab;
      c.mem_c = Mem::device;
      s.add(run<T>(c, rng));
    }
    for (float beta : {0.f, 0.5f, 1.f})
      for (Mem cm : {Mem::host, Mem::device}) {
        if (!s.more()) return;
        GemmCase c;
        c.api = api;
        c.ta = 'T';
        c.m = 17;
        c.n = 3;
        c.k = 127;
        c.alpha = 0.f;
        c.beta = beta;
        c.poison = beta == 0.f ? Poison::nan_both : Poison::nan_ab;
        c.mem_a = c.mem_b = Mem::device;
        c.mem_c = cm;
        s.add(run<T>(c, rng));
      }
    for (const auto& mn : {std::pair<int, int>{0, 17}, {17, 0}}) {
      if (!s.more()) return;
      GemmCase c;
      c.api = api;
      c.m = mn.first;
      c.n = mn.second;
      c.k = 3;
      c.beta = 0.f;
      c.poison = Poison::nan_c;
      c.mem_a = c.mem_b = c.mem_c = Mem::device;
      s.add(run<T>(c, rng));
    }
  }
}

// Unless MYBLAS_BACKEND=cpu forces it, a call whose operands are in device memory must
// run on the GPU, in auto mode as well (the `.auto` ctest entry runs this without a setting).
template <class T>
void device_operands_take_gpu_path() {
  std::mt19937_64 rng(mbtest::test_seed());
  for (Api api : T::apis()) {
    GemmCase c;
    c.api = api;
    c.m = 33;
    c.n = 17;
    c.k = 9;
    c.alpha = T::scalar(mbtest::uniform(rng));
    c.beta = T::scalar(mbtest::uniform(rng));
    c.mem_a = c.mem_b = c.mem_c = Mem::device;
    run<T>(c, rng);
    EXPECT_STRNE(myblas_last_path(), "cpu")
        << entry_name<T>(c.api) << " with device operands | " << run_context();
  }
}

}  // namespace iface
