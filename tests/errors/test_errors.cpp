// Illegal arguments of every entry point, against the reference BLAS and CBLAS.
//
// Expected parameter numbers: netlib sgemm.f / sgemv.f (and MKL's hgemm, which reports as
// SGEMM does under the name 'HGEMM '), and for CBLAS what the reference CBLAS passes to
// cblas_xerbla, with the user positions taken from CBLAS/testing/c_s3chke.c and c_s2chke.c.
//
// This executable defines xerbla_ and cblas_xerbla itself. It is linked with
// ENABLE_EXPORTS, so libmyblas, which looks the handlers up through the dynamic symbol
// table, must call these and not its own. Every check asks for exactly one report (the
// right handler, routine name and number), for last_path "none", and for every operand
// buffer (outputs full of guards and NaNs with payloads, inputs full of data) to be
// bitwise what it was: an illegal call must not touch memory.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "common/data.h"
#include "errors_capture.h"
#include "myblas.h"

// ---- the handlers under test's control -------------------------------------------------

namespace errtest {

std::mutex g_mutex;
std::vector<Report> g_reports;

std::vector<Report> take_reports() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<Report> r;
  r.swap(g_reports);
  return r;
}

}  // namespace errtest

using errtest::Report;
using errtest::g_mutex;
using errtest::g_reports;
using errtest::take_reports;

extern "C" void xerbla_(const char* srname, const int* info, int srname_len) {
  Report r;
  // A length outside 1..32 is garbage; keep it visible in the report but read 6 chars.
  const int len = (srname_len > 0 && srname_len <= 32) ? srname_len : 6;
  r.routine.assign(srname, size_t(len));
  r.srname_len = srname_len;
  r.info = *info;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_reports.push_back(r);
}

extern "C" void cblas_xerbla(int info, const char* rout, const char* form, ...) {
  Report r;
  r.cblas = true;
  r.routine = rout ? rout : "(null)";
  r.info = info;
  if (form) {
    char buf[256];
    va_list ap;
    va_start(ap, form);
    std::vsnprintf(buf, sizeof buf, form, ap);
    va_end(ap);
    r.message = buf;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_reports.push_back(r);
}

namespace {

// ---- operand memory -----------------------------------------------------------------------

// Every operand of every call lives in one arena, host or device, holding a fixed pattern:
// A, B, x random data; C, y guards and NaNs with payloads (which any arithmetic or store
// would change). Sized so that no call in this file can reach outside it even if the
// library wrongly accepted it (all shapes <= 8, leading dimensions <= 16).
constexpr size_t kElems = 1024;

class Arena {
 public:
  explicit Arena(bool device) : device_(device) {
    std::mt19937_64 rng(20240611);
    floats_.resize(5 * kElems);
    halves_.resize(3 * kElems);
    for (size_t i = 0; i < kElems; ++i) {
      floats_[0 * kElems + i] = mbtest::uniform(rng);  // A
      floats_[1 * kElems + i] = mbtest::uniform(rng);  // B
      floats_[2 * kElems + i] = (i % 3 == 1) ? nan_with_payload(uint32_t(i)) : mbtest::kGuard;  // C
      floats_[3 * kElems + i] = mbtest::uniform(rng);  // x
      floats_[4 * kElems + i] = (i % 3 == 2) ? nan_with_payload(uint32_t(i)) : mbtest::kGuard;  // y
      halves_[0 * kElems + i] = myblas_float_to_half(mbtest::uniform(rng));  // A
      halves_[1 * kElems + i] = myblas_float_to_half(mbtest::uniform(rng));  // B
      halves_[2 * kElems + i] = (i % 3 == 1) ? uint16_t(0x7E00 | (i & 0x1FF)) : mbtest::kGuardHalf;  // C
    }
    if (device_ && (cudaMalloc(reinterpret_cast<void**>(&dfloats_), bytes_f()) != cudaSuccess ||
                    cudaMalloc(reinterpret_cast<void**>(&dhalves_), bytes_h()) != cudaSuccess))
      ok_ = false;
    reset();
  }

  // Back to the pattern, so that one faulty call does not spoil the verdict on the next.
  void reset() {
    if (!device_) {
      work_f_ = floats_;
      work_h_ = halves_;
    } else if (ok_) {
      ok_ = cudaMemcpy(dfloats_, floats_.data(), bytes_f(), cudaMemcpyHostToDevice) == cudaSuccess &&
            cudaMemcpy(dhalves_, halves_.data(), bytes_h(), cudaMemcpyHostToDevice) == cudaSuccess;
    }
  }
  ~Arena() {
    if (dfloats_) cudaFree(dfloats_);
    if (dhalves_) cudaFree(dhalves_);
  }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  bool ok() const { return ok_; }
  float* a() { return f(0); }
  float* b() { return f(1); }
  float* c() { return f(2); }
  float* x() { return f(3); }
  float* y() { return f(4); }
  uint16_t* ha() { return h(0); }
  uint16_t* hb() { return h(1); }
  uint16_t* hc() { return h(2); }

  // Empty when every byte of every operand is as it was; otherwise names the first change.
  std::string changes() {
    std::vector<float> nf(floats_.size());
    std::vector<uint16_t> nh(halves_.size());
    if (device_) {
      if (cudaMemcpy(nf.data(), dfloats_, bytes_f(), cudaMemcpyDeviceToHost) != cudaSuccess ||
          cudaMemcpy(nh.data(), dhalves_, bytes_h(), cudaMemcpyDeviceToHost) != cudaSuccess)
        return "cannot read the device arena back";
    } else {
      nf = work_f_;
      nh = work_h_;
    }
    static const char* fname[] = {"A", "B", "C", "x", "y"};
    static const char* hname[] = {"A (half)", "B (half)", "C (half)"};
    for (size_t i = 0; i < nf.size(); ++i)
      if (std::memcmp(&nf[i], &floats_[i], sizeof(float)) != 0)
        return std::string(fname[i / kElems]) + "[" + std::to_string(i % kElems) + "] changed";
    for (size_t i = 0; i < nh.size(); ++i)
      if (nh[i] != halves_[i])
        return std::string(hname[i / kElems]) + "[" + std::to_string(i % kElems) + "] changed";
    return "";
  }

 private:
  static float nan_with_payload(uint32_t p) {
    const uint32_t bits = 0x7FC00000u | (0x2A5u + p);
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  size_t bytes_f() const { return floats_.size() * sizeof(float); }
  size_t bytes_h() const { return halves_.size() * sizeof(uint16_t); }
  float* f(int i) { return (device_ ? dfloats_ : work_f_.data()) + size_t(i) * kElems; }
  uint16_t* h(int i) { return (device_ ? dhalves_ : work_h_.data()) + size_t(i) * kElems; }

  bool device_;
  bool ok_ = true;
  std::vector<float> floats_, work_f_;       // pattern, and the host operands
  std::vector<uint16_t> halves_, work_h_;
  float* dfloats_ = nullptr;
  uint16_t* dhalves_ = nullptr;
};

// Nonzero scalars, so that a wrongly accepted call would both read and write.
constexpr float kAlpha = 1.5f, kBeta = 0.5f;

// A successful call first, so that "none" afterwards is the error's doing.
void prime_last_path() {
  std::vector<float> a(4, 0.25f), x(2, 1.f), y(2, 0.f);
  const char t = 'N';
  const int two = 2, one = 1;
  const float alpha = 1.f, beta = 0.f;
  sgemv_(&t, &two, &two, &alpha, a.data(), &two, x.data(), &one, &beta, y.data(), &one);
  ASSERT_STRNE(myblas_last_path(), "none") << "a valid sgemv_ did not run";
  ASSERT_TRUE(take_reports().empty()) << "a valid sgemv_ reported an error";
}

// The common verdict on one illegal call.
void expect_one_report(const std::string& call, bool cblas, const std::string& routine, int info,
                       Arena& arena) {
  const std::vector<Report> reports = take_reports();
  EXPECT_STREQ(myblas_last_path(), "none") << call;
  const std::string changed = arena.changes();
  EXPECT_EQ(changed, "") << call << ": an illegal call modified memory";
  arena.reset();
  ASSERT_EQ(reports.size(), 1u) << call << ": expected exactly one report (" << routine
                                << ", info " << info << ")";
  const Report& r = reports[0];
  EXPECT_EQ(r.cblas, cblas) << call << ": reported to " << (r.cblas ? "cblas_xerbla" : "xerbla_");
  EXPECT_EQ(r.routine, routine) << call;
  EXPECT_EQ(r.info, info) << call << " (routine " << r.routine << ")";
  if (!cblas) EXPECT_EQ(r.srname_len, int(routine.size())) << call << ": hidden length of SRNAME";
}

// ---- Fortran gemm: sgemm_, hgemm_, hgemm ---------------------------------------------------

struct GemmArgs {
  char ta, tb;
  int m, n, k, lda, ldb, ldc;
};
struct FortranGemmCase {
  GemmArgs g;
  int info;  // sgemm.f's INFO
};

std::string describe(const char* entry, const GemmArgs& g) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s('%c','%c', m=%d n=%d k=%d lda=%d ldb=%d ldc=%d)", entry,
                g.ta, g.tb, g.m, g.n, g.k, g.lda, g.ldb, g.ldc);
  return buf;
}

// The 16-bit-input GEMMs with FP32 C (OpenBLAS's sbgemm_/shgemm_, MKL's gemm_bf16bf16f32(_) and
// gemm_f16f16f32(_)) check and number their arguments as sgemm.f does.
enum class FortranGemm { sgemm_, hgemm_, hgemm, sbgemm_, shgemm_, bf16_, bf16, f16_, f16 };
const char* entry_name(FortranGemm e) {
  switch (e) {
    case FortranGemm::sgemm_: return "sgemm_";
    case FortranGemm::hgemm_: return "hgemm_";
    case FortranGemm::hgemm: return "hgemm";
    case FortranGemm::sbgemm_: return "sbgemm_";
    case FortranGemm::shgemm_: return "shgemm_";
    case FortranGemm::bf16_: return "gemm_bf16bf16f32_";
    case FortranGemm::bf16: return "gemm_bf16bf16f32";
    case FortranGemm::f16_: return "gemm_f16f16f32_";
    case FortranGemm::f16: return "gemm_f16f16f32";
  }
  return "?";
}
const char* srname_of(FortranGemm e) {
  switch (e) {
    case FortranGemm::sgemm_: return "SGEMM ";
    case FortranGemm::hgemm_:
    case FortranGemm::hgemm: return "HGEMM ";
    case FortranGemm::sbgemm_: return "SBGEMM ";
    case FortranGemm::shgemm_: return "SHGEMM ";
    case FortranGemm::bf16_:
    case FortranGemm::bf16: return "GEMM_BF16BF16F32";
    case FortranGemm::f16_:
    case FortranGemm::f16: return "GEMM_F16F16F32";
  }
  return "?";
}
constexpr FortranGemm kFortranGemms[] = {FortranGemm::sgemm_,  FortranGemm::hgemm_, FortranGemm::hgemm,
                                         FortranGemm::sbgemm_, FortranGemm::shgemm_, FortranGemm::bf16_,
                                         FortranGemm::bf16,    FortranGemm::f16_,    FortranGemm::f16};

void call_fortran_gemm(FortranGemm e, const GemmArgs& g, Arena& ar) {
  if (e == FortranGemm::sgemm_) {
    sgemm_(&g.ta, &g.tb, &g.m, &g.n, &g.k, &kAlpha, ar.a(), &g.lda, ar.b(), &g.ldb, &kBeta,
           ar.c(), &g.ldc);
    return;
  }
  if (e != FortranGemm::hgemm_ && e != FortranGemm::hgemm) {  // 16-bit A and B, FP32 C
    auto fn = e == FortranGemm::sbgemm_ ? sbgemm_
              : e == FortranGemm::shgemm_ ? shgemm_
              : e == FortranGemm::bf16_   ? gemm_bf16bf16f32_
              : e == FortranGemm::bf16    ? gemm_bf16bf16f32
              : e == FortranGemm::f16_    ? gemm_f16f16f32_
                                          : gemm_f16f16f32;
    fn(&g.ta, &g.tb, &g.m, &g.n, &g.k, &kAlpha, ar.ha(), &g.lda, ar.hb(), &g.ldb, &kBeta, ar.c(), &g.ldc);
    return;
  }
  const uint16_t alpha = myblas_float_to_half(kAlpha), beta = myblas_float_to_half(kBeta);
  auto fn = e == FortranGemm::hgemm_ ? hgemm_ : hgemm;
  fn(&g.ta, &g.tb, &g.m, &g.n, &g.k, &alpha, ar.ha(), &g.lda, ar.hb(), &g.ldb, &beta, ar.hc(),
     &g.ldc);
}

// Every illegal argument of sgemm.f, in each transpose combination. Shapes where the
// faulty argument is the only fault; the "live" ones have nonzero m, n, k, so a call that
// slipped through would compute and be seen writing C.
const std::vector<FortranGemmCase>& fortran_gemm_cases() {
  static const std::vector<FortranGemmCase> cases = {
      // TRANSA (1), TRANSB (2): anything but N, T, C in either case.
      {{'X', 'N', 4, 4, 4, 8, 8, 8}, 1},
      {{'/', 'T', 4, 4, 4, 8, 8, 8}, 1},
      {{' ', 'N', 4, 4, 4, 8, 8, 8}, 1},
      {{'\0', 'N', 4, 4, 4, 8, 8, 8}, 1},
      {{'R', 'N', 4, 4, 4, 8, 8, 8}, 1},
      {{'N', 'X', 4, 4, 4, 8, 8, 8}, 2},
      {{'T', '/', 4, 4, 4, 8, 8, 8}, 2},
      {{'c', 'x', 4, 4, 4, 8, 8, 8}, 2},
      {{'n', 'U', 4, 4, 4, 8, 8, 8}, 2},
      // M (3), N (4), K (5) negative, every transpose combination.
      {{'N', 'N', -1, 0, 0, 1, 1, 1}, 3},
      {{'N', 'T', -1, 0, 0, 1, 1, 1}, 3},
      {{'T', 'N', -1, 0, 0, 1, 1, 1}, 3},
      {{'T', 'T', -1, 0, 0, 1, 1, 1}, 3},
      {{'N', 'N', 0, -1, 0, 1, 1, 1}, 4},
      {{'N', 'T', 0, -1, 0, 1, 1, 1}, 4},
      {{'T', 'N', 0, -1, 0, 1, 1, 1}, 4},
      {{'T', 'T', 0, -1, 0, 1, 1, 1}, 4},
      {{'N', 'N', 0, 0, -1, 1, 1, 1}, 5},
      {{'N', 'T', 0, 0, -1, 1, 1, 1}, 5},
      {{'T', 'N', 0, 0, -1, 1, 1, 1}, 5},
      {{'T', 'T', 0, 0, -1, 1, 1, 1}, 5},
      {{'N', 'N', 4, 4, -5, 8, 8, 8}, 5},
      {{'N', 'N', 4, -7, 4, 8, 8, 8}, 4},
      {{'N', 'N', -3, 4, 4, 8, 8, 8}, 3},
      // LDA < max(1, nrowa) (8): nrowa is M for 'N', K for 'T'.
      {{'N', 'N', 2, 0, 0, 1, 1, 2}, 8},
      {{'N', 'T', 2, 0, 0, 1, 1, 2}, 8},
      {{'T', 'N', 0, 0, 2, 1, 2, 1}, 8},
      {{'T', 'T', 0, 0, 2, 1, 1, 1}, 8},
      {{'N', 'N', 4, 4, 4, 3, 4, 4}, 8},   // live
      {{'t', 'n', 4, 4, 5, 4, 5, 4}, 8},   // live, nrowa = K = 5
      {{'c', 'N', 2, 4, 6, 5, 6, 2}, 8},   // live: 'c' transposes, so nrowa = K = 6 > 5
      // LDB < max(1, nrowb) (10): nrowb is K for 'N', N for 'T'.
      {{'N', 'N', 0, 0, 2, 1, 1, 1}, 10},
      {{'T', 'N', 0, 0, 2, 2, 1, 1}, 10},
      {{'N', 'T', 0, 2, 0, 1, 1, 1}, 10},
      {{'T', 'T', 0, 2, 0, 1, 1, 1}, 10},
      {{'N', 'N', 4, 4, 4, 4, 3, 4}, 10},  // live
      {{'N', 't', 4, 6, 4, 4, 5, 4}, 10},  // live, nrowb = N = 6
      // LDC < max(1, M) (13).
      {{'N', 'N', 2, 0, 0, 2, 1, 1}, 13},
      {{'N', 'T', 2, 0, 0, 2, 1, 1}, 13},
      {{'T', 'N', 2, 0, 0, 1, 1, 1}, 13},
      {{'T', 'T', 2, 0, 0, 1, 1, 1}, 13},
      {{'N', 'N', 4, 4, 4, 4, 4, 3}, 13},  // live
      {{'T', 'T', 5, 3, 2, 2, 3, 4}, 13},  // live
      // LDA = 0 with M = 0 ('N'): the reference rejects it, lda >= max(1, 0) = 1 (INFO 8).
      // OpenBLAS accepts it, so a library that defers its checks to OpenBLAS would stay
      // silent here; we follow the reference. Likewise LDB = 0 with K = 0 and LDC = 0 with M = 0.
      {{'N', 'N', 0, 4, 4, 0, 4, 1}, 8},
      {{'T', 'N', 4, 4, 0, 0, 1, 4}, 8},
      {{'N', 'N', 4, 4, 0, 4, 0, 4}, 10},
      {{'N', 'N', 0, 4, 4, 1, 4, 0}, 13},
  };
  return cases;
}

void run_fortran_gemm_cases(FortranGemm e, const char* srname) {
  Arena arena(false);
  for (const FortranGemmCase& c : fortran_gemm_cases()) {
    const std::string call = describe(entry_name(e), c.g);
    prime_last_path();
    call_fortran_gemm(e, c.g, arena);
    expect_one_report(call, false, srname, c.info, arena);
  }
}

TEST(ErrorsFortran, SgemmEveryIllegalArgument) {
  run_fortran_gemm_cases(FortranGemm::sgemm_, "SGEMM ");
}

TEST(ErrorsFortran, HgemmUnderscoreEveryIllegalArgument) {
  run_fortran_gemm_cases(FortranGemm::hgemm_, "HGEMM ");
}

// MKL exports hgemm without the underscore too; it reports under the same name.
TEST(ErrorsFortran, HgemmNoUnderscoreEveryIllegalArgument) {
  run_fortran_gemm_cases(FortranGemm::hgemm, "HGEMM ");
}

TEST(ErrorsFortran, Gemm16bitInputsEveryIllegalArgument) {
  for (FortranGemm e : kFortranGemms)
    if (e != FortranGemm::sgemm_ && e != FortranGemm::hgemm_ && e != FortranGemm::hgemm)
      run_fortran_gemm_cases(e, srname_of(e));
}

// When several arguments are illegal, the reference reports the first in its check order:
// TRANSA, TRANSB, M, N, K, LDA, LDB, LDC.
TEST(ErrorsFortran, GemmFirstErrorWins) {
  const std::vector<FortranGemmCase> cases = {
      {{'X', 'Y', -1, -1, -1, 0, 0, 0}, 1},
      {{'N', 'Y', -1, -1, -1, 0, 0, 0}, 2},
      {{'N', 'N', -1, -1, -1, 0, 0, 0}, 3},
      {{'T', 'T', 1, -1, -1, 0, 0, 0}, 4},
      {{'N', 'N', 3, 3, -1, 0, 0, 0}, 5},
      {{'N', 'N', 3, 3, 3, 2, 2, 2}, 8},
      {{'T', 'T', 3, 3, 3, 3, 2, 2}, 10},
      {{'N', 'N', 3, 3, 3, 3, 3, 0}, 13},
  };
  Arena arena(false);
  for (FortranGemm e : kFortranGemms) {
    const char* srname = srname_of(e);
    for (const FortranGemmCase& c : cases) {
      const std::string call = describe(entry_name(e), c.g);
      prime_last_path();
      call_fortran_gemm(e, c.g, arena);
      expect_one_report(call, false, srname, c.info, arena);
    }
  }
}

// ---- Fortran gemv: sgemv_ ------------------------------------------------------------------

struct GemvArgs {
  char t;
  int m, n, lda, incx, incy;
};
struct FortranGemvCase {
  GemvArgs g;
  int info;  // sgemv.f's INFO
};

std::string describe(const char* entry, const GemvArgs& g) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s('%c', m=%d n=%d lda=%d incx=%d incy=%d)", entry, g.t, g.m,
                g.n, g.lda, g.incx, g.incy);
  return buf;
}

void call_sgemv(const GemvArgs& g, Arena& ar) {
  sgemv_(&g.t, &g.m, &g.n, &kAlpha, ar.a(), &g.lda, ar.x(), &g.incx, &kBeta, ar.y(), &g.incy);
}

TEST(ErrorsFortran, SgemvEveryIllegalArgument) {
  const std::vector<FortranGemvCase> cases = {
      // TRANS (1).
      {{'X', 4, 4, 4, 1, 1}, 1},
      {{'/', 4, 4, 4, 1, 1}, 1},
      {{' ', 4, 4, 4, 1, 1}, 1},
      {{'\0', 4, 4, 4, 1, 1}, 1},
      {{'U', 4, 4, 4, 1, 1}, 1},
      // M (2), N (3).
      {{'N', -1, 0, 1, 1, 1}, 2},
      {{'T', -1, 0, 1, 1, 1}, 2},
      {{'N', 0, -1, 1, 1, 1}, 3},
      {{'t', 0, -1, 1, 1, 1}, 3},
      {{'N', -4, 4, 4, 1, 1}, 2},
      {{'C', 4, -4, 4, 1, 1}, 3},
      // LDA < max(1, M) (6), whatever TRANS is.
      {{'N', 2, 0, 1, 1, 1}, 6},
      {{'T', 2, 0, 1, 1, 1}, 6},
      {{'N', 4, 4, 3, 1, 1}, 6},   // live
      {{'T', 4, 4, 3, 1, 1}, 6},   // live
      // LDA = 0 with M = 0: rejected by the reference (max(1, 0) = 1), accepted by OpenBLAS.
      {{'N', 0, 4, 0, 1, 1}, 6},
      // INCX == 0 (8), INCY == 0 (11).
      {{'N', 0, 0, 1, 0, 1}, 8},
      {{'N', 4, 4, 4, 0, 1}, 8},   // live
      {{'T', 4, 4, 4, 0, -1}, 8},  // live
      {{'N', 0, 0, 1, 1, 0}, 11},
      {{'N', 4, 4, 4, 1, 0}, 11},  // live
      {{'c', 4, 4, 4, -2, 0}, 11}, // live
  };
  Arena arena(false);
  for (const FortranGemvCase& c : cases) {
    const std::string call = describe("sgemv_", c.g);
    prime_last_path();
    call_sgemv(c.g, arena);
    expect_one_report(call, false, "SGEMV ", c.info, arena);
  }
}

// Check order TRANS, M, N, LDA, INCX, INCY.
TEST(ErrorsFortran, GemvFirstErrorWins) {
  const std::vector<FortranGemvCase> cases = {
      {{'X', -1, -1, 0, 0, 0}, 1},
      {{'N', -1, -1, 0, 0, 0}, 2},
      {{'T', 1, -1, 0, 0, 0}, 3},
      {{'N', 3, 3, 2, 0, 0}, 6},
      {{'N', 3, 3, 3, 0, 0}, 8},
  };
  Arena arena(false);
  for (const FortranGemvCase& c : cases) {
    const std::string call = describe("sgemv_", c.g);
    prime_last_path();
    call_sgemv(c.g, arena);
    expect_one_report(call, false, "SGEMV ", c.info, arena);
  }
}

// ---- accepted characters ---------------------------------------------------------------------

// Lower case and 'C' (conjugate transpose, which is the transpose for real data) are legal.
// Each accepted spelling must run (no report, a path other than "none", C changed) and give
// bitwise the result of the canonical upper-case 'N'/'T' call on the same data.
TEST(ErrorsFortran, LowerCaseAndConjugateTransposeAccepted) {
  const char spellings[] = {'N', 'n', 'T', 't', 'C', 'c'};
  auto canonical = [](char ch) { return (ch == 'N' || ch == 'n') ? 'N' : 'T'; };
  const int m = 5, n = 6, k = 7, ld = 9;
  std::mt19937_64 rng(mbtest::test_seed());
  std::vector<float> a(ld * ld), b(ld * ld), c0(ld * ld), x(ld), y0(ld);
  for (float& v : a) v = mbtest::uniform(rng);
  for (float& v : b) v = mbtest::uniform(rng);
  for (float& v : c0) v = mbtest::uniform(rng);
  for (float& v : x) v = mbtest::uniform(rng);
  for (float& v : y0) v = mbtest::uniform(rng);
  std::vector<uint16_t> ha(a.size()), hb(b.size()), hc0(c0.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ha[i] = myblas_float_to_half(a[i]);
    hb[i] = myblas_float_to_half(b[i]);
    hc0[i] = myblas_float_to_half(c0[i]);
  }
  const uint16_t halpha = myblas_float_to_half(kAlpha), hbeta = myblas_float_to_half(kBeta);

  for (char ta : spellings)
    for (char tb : spellings) {
      const char cta = canonical(ta), ctb = canonical(tb);
      const std::string call = describe("sgemm_", GemmArgs{ta, tb, m, n, k, ld, ld, ld});
      std::vector<float> got = c0, want = c0;
      sgemm_(&ta, &tb, &m, &n, &k, &kAlpha, a.data(), &ld, b.data(), &ld, &kBeta, got.data(), &ld);
      EXPECT_STRNE(myblas_last_path(), "none") << call;
      sgemm_(&cta, &ctb, &m, &n, &k, &kAlpha, a.data(), &ld, b.data(), &ld, &kBeta, want.data(), &ld);
      EXPECT_TRUE(take_reports().empty()) << call << " was rejected";
      EXPECT_NE(std::memcmp(got.data(), c0.data(), got.size() * sizeof(float)), 0) << call << " did nothing";
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
          << call << " differs from the upper-case call";

      for (auto fn : {hgemm_, hgemm}) {
        std::vector<uint16_t> hgot = hc0, hwant = hc0;
        fn(&ta, &tb, &m, &n, &k, &halpha, ha.data(), &ld, hb.data(), &ld, &hbeta, hgot.data(), &ld);
        EXPECT_STRNE(myblas_last_path(), "none") << call << " as hgemm";
        fn(&cta, &ctb, &m, &n, &k, &halpha, ha.data(), &ld, hb.data(), &ld, &hbeta, hwant.data(), &ld);
        EXPECT_TRUE(take_reports().empty()) << call << " as hgemm was rejected";
        EXPECT_NE(hgot, hc0) << call << " as hgemm did nothing";
        EXPECT_EQ(hgot, hwant) << call << " as hgemm differs from the upper-case call";
      }
    }

  for (char t : spellings) {
    const char ct = canonical(t);
    const std::string call = describe("sgemv_", GemvArgs{t, m, n, ld, 1, 1});
    std::vector<float> got = y0, want = y0;
    const int one = 1;
    sgemv_(&t, &m, &n, &kAlpha, a.data(), &ld, x.data(), &one, &kBeta, got.data(), &one);
    EXPECT_STRNE(myblas_last_path(), "none") << call;
    sgemv_(&ct, &m, &n, &kAlpha, a.data(), &ld, x.data(), &one, &kBeta, want.data(), &one);
    EXPECT_TRUE(take_reports().empty()) << call << " was rejected";
    EXPECT_NE(std::memcmp(got.data(), y0.data(), got.size() * sizeof(float)), 0) << call << " did nothing";
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
        << call << " differs from the upper-case call";
  }
}

// ---- CBLAS ---------------------------------------------------------------------------------

// Illegal enum values, all inside the enums' value range (0..127) so that holding them in
// the enum types is defined behaviour.
const int kBadLayouts[] = {0, 103, 127};
const int kBadTrans[] = {0, 'N', 110, 114};

// cblas_?gemm arguments as the user writes them: positions layout 1, TransA 2, TransB 3,
// M 4, N 5, K 6, alpha 7, A 8, lda 9, B 10, ldb 11, beta 12, C 13, ldc 14.
struct CblasGemmArgs {
  int layout, ta, tb;
  int m, n, k, lda, ldb, ldc;
};
struct CblasGemmCase {
  CblasGemmArgs g;
  int user_info;  // the position c_s3chke.c expects, i.e. after cblas_xerbla's remapping
};

// What the reference CBLAS hands to cblas_xerbla for a fault at user position `user`.
// Row-major calls become a column-major Fortran call with M/N and A/B exchanged, whose
// XERBLA number + 1 is passed on: N arrives as 4 and M as 5, ldb as 9 and lda as 11. The
// reference cblas_xerbla (and the tester's) swap these back before printing or comparing;
// an overriding handler, like ours, sees them as passed.
int gemm_passed_info(bool row_major, int user) {
  if (!row_major) return user;
  switch (user) {
    case 4: return 5;
    case 5: return 4;
    case 9: return 11;
    case 11: return 9;
    default: return user;
  }
}

const char* layout_name(int l) {
  return l == CblasRowMajor ? "Row" : l == CblasColMajor ? "Col" : "BadLayout";
}
std::string trans_name(int t) {
  return t == CblasNoTrans ? "N" : t == CblasTrans ? "T" : t == CblasConjTrans ? "C" : "bad(" + std::to_string(t) + ")";
}

std::string describe(const char* entry, const CblasGemmArgs& g) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s(%s(%d), %s, %s, M=%d N=%d K=%d lda=%d ldb=%d ldc=%d)", entry,
                layout_name(g.layout), g.layout, trans_name(g.ta).c_str(), trans_name(g.tb).c_str(),
                g.m, g.n, g.k, g.lda, g.ldb, g.ldc);
  return buf;
}

// The CBLAS gemms that report through cblas_xerbla with the reference numbering (cblas_sgemm, and
// MKL's cblas_hgemm, cblas_gemm_bf16bf16f32, cblas_gemm_f16f16f32), and OpenBLAS's cblas_sbgemm and
// cblas_shgemm, which report through xerbla_ as OpenBLAS does.
enum class CblasGemm { sgemm, hgemm, bf16, f16, sbgemm, shgemm };
const char* rout_of(CblasGemm e) {
  switch (e) {
    case CblasGemm::sgemm: return "cblas_sgemm";
    case CblasGemm::hgemm: return "cblas_hgemm";
    case CblasGemm::bf16: return "cblas_gemm_bf16bf16f32";
    case CblasGemm::f16: return "cblas_gemm_f16f16f32";
    case CblasGemm::sbgemm: return "cblas_sbgemm";
    case CblasGemm::shgemm: return "cblas_shgemm";
  }
  return "?";
}

void call_cblas_gemm(CblasGemm e, const CblasGemmArgs& g, Arena& ar) {
  const auto layout = static_cast<CBLAS_LAYOUT>(g.layout);
  const auto ta = static_cast<CBLAS_TRANSPOSE>(g.ta), tb = static_cast<CBLAS_TRANSPOSE>(g.tb);
  switch (e) {
    case CblasGemm::hgemm:
      cblas_hgemm(layout, ta, tb, g.m, g.n, g.k, myblas_float_to_half(kAlpha), ar.ha(), g.lda, ar.hb(), g.ldb,
                  myblas_float_to_half(kBeta), ar.hc(), g.ldc);
      return;
    case CblasGemm::sgemm:
      cblas_sgemm(layout, ta, tb, g.m, g.n, g.k, kAlpha, ar.a(), g.lda, ar.b(), g.ldb, kBeta, ar.c(), g.ldc);
      return;
    default: {
      auto fn = e == CblasGemm::bf16     ? cblas_gemm_bf16bf16f32
                : e == CblasGemm::f16    ? cblas_gemm_f16f16f32
                : e == CblasGemm::sbgemm ? cblas_sbgemm
                                         : cblas_shgemm;
      fn(layout, ta, tb, g.m, g.n, g.k, kAlpha, ar.ha(), g.lda, ar.hb(), g.ldb, kBeta, ar.c(), g.ldc);
    }
  }
}

// What OpenBLAS's CBLAS passes to xerbla_ for a single fault at reference user position `user`:
// 0 for the order; else the Fortran position in the column-major call, which for row-major is the
// call on the swapped operands (TransB is 1, N is 3, ldb is 8). -1: OpenBLAS accepts it
// (CblasConjNoTrans, 114, as no transpose).
int openblas_info(const CblasGemmArgs& g, int user) {
  const bool row = g.layout == CblasRowMajor;
  if ((user == 2 && g.ta == 114) || (user == 3 && g.tb == 114)) return -1;
  switch (user) {
    case 1: return 0;
    case 2: return row ? 2 : 1;
    case 3: return row ? 1 : 2;
    case 4: return row ? 4 : 3;
    case 5: return row ? 3 : 4;
    case 6: return 5;
    case 9: return row ? 10 : 8;
    case 11: return row ? 8 : 10;
    case 14: return 13;
  }
  return -2;
}

constexpr int Col = CblasColMajor, Row = CblasRowMajor;
constexpr int N_ = CblasNoTrans, T_ = CblasTrans, C_ = CblasConjTrans;

std::vector<CblasGemmCase> cblas_gemm_cases() {
  std::vector<CblasGemmCase> v;
  // Layout (1), TransA (2), TransB (3), in both layouts, with live shapes.
  for (int bad : kBadLayouts) {
    v.push_back({{bad, N_, N_, 4, 4, 4, 8, 8, 8}, 1});
    v.push_back({{bad, T_, C_, 4, 4, 4, 8, 8, 8}, 1});
  }
  for (int layout : {Col, Row})
    for (int bad : kBadTrans) {
      v.push_back({{layout, bad, N_, 4, 4, 4, 8, 8, 8}, 2});
      v.push_back({{layout, bad, T_, 4, 4, 4, 8, 8, 8}, 2});
      v.push_back({{layout, N_, bad, 4, 4, 4, 8, 8, 8}, 3});
      v.push_back({{layout, C_, bad, 4, 4, 4, 8, 8, 8}, 3});
    }
  // M (4), N (5), K (6) negative, every transpose combination, both layouts.
  for (int layout : {Col, Row})
    for (int ta : {N_, T_})
      for (int tb : {N_, T_}) {
        v.push_back({{layout, ta, tb, -1, 0, 0, 1, 1, 1}, 4});
        v.push_back({{layout, ta, tb, 0, -1, 0, 1, 1, 1}, 5});
        v.push_back({{layout, ta, tb, 0, 0, -1, 1, 1, 1}, 6});
      }
  // Leading dimensions, column-major: A is MxK ('N') or KxM, B is KxN or NxK, C is MxN,
  // each needing ld >= max(1, rows).
  v.insert(v.end(), {
      {{Col, N_, N_, 2, 0, 0, 1, 1, 2}, 9},
      {{Col, N_, T_, 2, 0, 0, 1, 1, 2}, 9},
      {{Col, T_, N_, 0, 0, 2, 1, 2, 1}, 9},
      {{Col, T_, T_, 0, 0, 2, 1, 1, 1}, 9},
      {{Col, N_, N_, 0, 0, 2, 1, 1, 1}, 11},
      {{Col, T_, N_, 0, 0, 2, 2, 1, 1}, 11},
      {{Col, N_, T_, 0, 2, 0, 1, 1, 1}, 11},
      {{Col, T_, T_, 0, 2, 0, 1, 1, 1}, 11},
      {{Col, N_, N_, 2, 0, 0, 2, 1, 1}, 14},
      {{Col, N_, T_, 2, 0, 0, 2, 1, 1}, 14},
      {{Col, T_, N_, 2, 0, 0, 1, 1, 1}, 14},
      {{Col, T_, T_, 2, 0, 0, 1, 1, 1}, 14},
      {{Col, N_, N_, 4, 4, 4, 3, 4, 4}, 9},    // live
      {{Col, N_, N_, 4, 4, 4, 4, 3, 4}, 11},   // live
      {{Col, C_, C_, 4, 4, 4, 4, 4, 3}, 14},   // live
      {{Col, N_, N_, 0, 4, 4, 0, 4, 1}, 9},    // lda = 0 with M = 0 (OpenBLAS would accept)
  });
  // Row-major: A is MxK ('N') or KxM stored by rows, so lda >= K or M; B is KxN or NxK,
  // ldb >= N or K; C is MxN, ldc >= N.
  v.insert(v.end(), {
      {{Row, N_, N_, 0, 0, 2, 1, 1, 2}, 9},
      {{Row, N_, T_, 0, 0, 2, 1, 2, 2}, 9},
      {{Row, T_, N_, 2, 0, 0, 1, 2, 1}, 9},
      {{Row, T_, T_, 2, 0, 0, 1, 1, 1}, 9},
      {{Row, N_, N_, 0, 2, 0, 1, 1, 2}, 11},
      {{Row, T_, N_, 0, 2, 0, 1, 1, 2}, 11},
      {{Row, N_, T_, 0, 0, 2, 2, 1, 1}, 11},
      {{Row, T_, T_, 0, 0, 2, 1, 1, 1}, 11},
      {{Row, N_, N_, 0, 2, 0, 1, 2, 1}, 14},
      {{Row, N_, T_, 0, 2, 0, 1, 1, 1}, 14},
      {{Row, T_, N_, 0, 2, 0, 1, 2, 1}, 14},
      {{Row, T_, T_, 0, 2, 0, 1, 1, 1}, 14},
      {{Row, N_, N_, 4, 4, 5, 4, 4, 4}, 9},    // live: lda < K
      {{Row, T_, N_, 5, 4, 4, 4, 4, 4}, 9},    // live: lda < M
      {{Row, N_, N_, 4, 5, 4, 4, 4, 5}, 11},   // live: ldb < N
      {{Row, N_, C_, 4, 4, 5, 5, 4, 4}, 11},   // live: ldb < K
      {{Row, N_, N_, 4, 5, 4, 4, 5, 4}, 14},   // live: ldc < N
      {{Row, N_, N_, 4, 0, 4, 4, 0, 1}, 11},   // ldb = 0 with N = 0 (OpenBLAS would accept)
  });
  return v;
}

void run_cblas_gemm_cases(CblasGemm e, const std::vector<CblasGemmCase>& cases) {
  const char* rout = rout_of(e);
  Arena arena(false);
  for (const CblasGemmCase& c : cases) {
    const bool row = c.g.layout == CblasRowMajor;
    const std::string call = describe(rout, c.g) + " user position " + std::to_string(c.user_info);
    prime_last_path();
    call_cblas_gemm(e, c.g, arena);
    if (e == CblasGemm::sbgemm || e == CblasGemm::shgemm) {
      const int info = openblas_info(c.g, c.user_info);
      if (info == -1) {  // accepted: it ran
        EXPECT_TRUE(take_reports().empty()) << call << " (OpenBLAS accepts CblasConjNoTrans)";
        arena.reset();
        continue;
      }
      ASSERT_GE(info, 0) << call << ": no OpenBLAS numbering for this position";
      expect_one_report(call, false, e == CblasGemm::sbgemm ? "SBGEMM " : "SHGEMM ", info, arena);
    } else {
      expect_one_report(call, true, rout, gemm_passed_info(row, c.user_info), arena);
    }
  }
}

TEST(ErrorsCblas, SgemmEveryIllegalArgument) { run_cblas_gemm_cases(CblasGemm::sgemm, cblas_gemm_cases()); }

TEST(ErrorsCblas, HgemmEveryIllegalArgument) { run_cblas_gemm_cases(CblasGemm::hgemm, cblas_gemm_cases()); }

TEST(ErrorsCblas, MklGemm16bitInputsEveryIllegalArgument) {
  run_cblas_gemm_cases(CblasGemm::bf16, cblas_gemm_cases());
  run_cblas_gemm_cases(CblasGemm::f16, cblas_gemm_cases());
}

TEST(ErrorsCblas, OpenblasGemm16bitInputsEveryIllegalArgument) {
  run_cblas_gemm_cases(CblasGemm::sbgemm, cblas_gemm_cases());
  run_cblas_gemm_cases(CblasGemm::shgemm, cblas_gemm_cases());
}

// OpenBLAS numbers a row-major call's faults as the swapped column-major call's, and with several
// faults reports the lowest such number: in row-major a bad TransB (1) before a bad TransA (2),
// N (3) before M (4), ldb (8) before lda (10).
TEST(ErrorsCblas, OpenblasGemm16bitInputsFirstErrorWins) {
  struct C {
    CblasGemmArgs g;
    int info;
  };
  const C cases[] = {
      {{0, 0, 0, -1, -1, -1, 0, 0, 0}, 0},
      {{Col, 0, 0, -1, -1, -1, 0, 0, 0}, 1},
      {{Row, 0, 0, -1, -1, -1, 0, 0, 0}, 1},
      {{Row, 0, N_, -1, -1, -1, 0, 0, 0}, 2},
      {{Col, N_, N_, -1, -1, -1, 0, 0, 0}, 3},
      {{Row, N_, N_, -1, -1, -1, 0, 0, 0}, 3},
      {{Row, N_, N_, -1, 3, -1, 0, 0, 0}, 4},
      {{Col, N_, N_, 3, 3, -1, 0, 0, 0}, 5},
      {{Col, N_, N_, 3, 3, 3, 2, 2, 2}, 8},
      {{Row, N_, N_, 3, 3, 3, 2, 2, 2}, 8},
      {{Row, N_, N_, 3, 3, 3, 2, 3, 2}, 10},
      {{Row, N_, N_, 3, 3, 3, 3, 3, 2}, 13},
  };
  Arena arena(false);
  for (CblasGemm e : {CblasGemm::sbgemm, CblasGemm::shgemm})
    for (const C& c : cases) {
      const std::string call = describe(rout_of(e), c.g);
      prime_last_path();
      call_cblas_gemm(e, c.g, arena);
      expect_one_report(call, false, e == CblasGemm::sbgemm ? "SBGEMM " : "SHGEMM ", c.info, arena);
    }
}

// The reference checks layout, TransA, TransB itself, then lets the column-major routine
// check the rest in ITS order. Row-major therefore reports N before M and ldb before lda.
TEST(ErrorsCblas, GemmFirstErrorWins) {
  const std::vector<CblasGemmCase> cases = {
      {{0, 0, 0, -1, -1, -1, 0, 0, 0}, 1},
      {{Col, 0, 0, -1, -1, -1, 0, 0, 0}, 2},
      {{Row, 0, 0, -1, -1, -1, 0, 0, 0}, 2},
      {{Col, N_, 0, -1, -1, -1, 0, 0, 0}, 3},
      {{Row, T_, 0, -1, -1, -1, 0, 0, 0}, 3},
      {{Col, N_, N_, -1, -1, -1, 0, 0, 0}, 4},
      {{Row, N_, N_, -1, -1, -1, 0, 0, 0}, 5},  // N is the column-major call's M
      {{Row, N_, N_, -1, 3, -1, 0, 0, 0}, 4},
      {{Col, N_, N_, 3, 3, -1, 0, 0, 0}, 6},
      {{Row, N_, N_, 3, 3, -1, 0, 0, 0}, 6},
      {{Col, N_, N_, 3, 3, 3, 2, 2, 2}, 9},
      {{Row, N_, N_, 3, 3, 3, 2, 2, 2}, 11},    // ldb is the column-major call's lda
      {{Row, N_, N_, 3, 3, 3, 2, 3, 2}, 9},
      {{Col, N_, N_, 3, 3, 3, 3, 2, 2}, 11},
      {{Row, N_, N_, 3, 3, 3, 3, 3, 2}, 14},
  };
  for (CblasGemm e : {CblasGemm::sgemm, CblasGemm::hgemm, CblasGemm::bf16, CblasGemm::f16})
    run_cblas_gemm_cases(e, cases);
}

// cblas_sgemv positions: layout 1, TransA 2, M 3, N 4, alpha 5, A 6, lda 7, X 8, incX 9,
// beta 10, Y 11, incY 12.
struct CblasGemvArgs {
  int layout, t;
  int m, n, lda, incx, incy;
};
struct CblasGemvCase {
  CblasGemvArgs g;
  int user_info;  // as c_s2chke.c expects
};

// Row-major gemv is the column-major call on the transpose, with M and N exchanged.
int gemv_passed_info(bool row_major, int user) {
  if (!row_major) return user;
  return user == 3 ? 4 : user == 4 ? 3 : user;
}

std::string describe(const char* entry, const CblasGemvArgs& g) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s(%s(%d), %s, M=%d N=%d lda=%d incx=%d incy=%d)", entry,
                layout_name(g.layout), g.layout, trans_name(g.t).c_str(), g.m, g.n, g.lda, g.incx,
                g.incy);
  return buf;
}

void run_cblas_gemv_cases(const std::vector<CblasGemvCase>& cases) {
  Arena arena(false);
  for (const CblasGemvCase& c : cases) {
    const bool row = c.g.layout == CblasRowMajor;
    const std::string call = describe("cblas_sgemv", c.g) + " user position " + std::to_string(c.user_info);
    prime_last_path();
    cblas_sgemv(static_cast<CBLAS_LAYOUT>(c.g.layout), static_cast<CBLAS_TRANSPOSE>(c.g.t), c.g.m,
                c.g.n, kAlpha, arena.a(), c.g.lda, arena.x(), c.g.incx, kBeta, arena.y(), c.g.incy);
    expect_one_report(call, true, "cblas_sgemv", gemv_passed_info(row, c.user_info), arena);
  }
}

TEST(ErrorsCblas, SgemvEveryIllegalArgument) {
  std::vector<CblasGemvCase> v;
  for (int bad : kBadLayouts) v.push_back({{bad, N_, 4, 4, 4, 1, 1}, 1});
  for (int layout : {Col, Row})
    for (int bad : kBadTrans) v.push_back({{layout, bad, 4, 4, 4, 1, 1}, 2});
  for (int layout : {Col, Row})
    for (int t : {N_, T_, C_}) {
      v.push_back({{layout, t, -1, 0, 1, 1, 1}, 3});
      v.push_back({{layout, t, 0, -1, 1, 1, 1}, 4});
      v.push_back({{layout, t, 0, 0, 1, 0, 1}, 9});
      v.push_back({{layout, t, 0, 0, 1, 1, 0}, 12});
      v.push_back({{layout, t, 4, 4, 4, 0, 1}, 9});    // live
      v.push_back({{layout, t, 4, 4, 4, -1, 0}, 12});  // live
    }
  v.insert(v.end(), {
      // Column-major A is MxN: lda >= max(1, M); row-major: lda >= max(1, N).
      {{Col, N_, 2, 0, 1, 1, 1}, 7},
      {{Col, T_, 2, 0, 1, 1, 1}, 7},
      {{Row, N_, 0, 2, 1, 1, 1}, 7},
      {{Row, T_, 0, 2, 1, 1, 1}, 7},
      {{Col, N_, 4, 3, 3, 1, 1}, 7},   // live
      {{Row, T_, 3, 4, 3, 1, 1}, 7},   // live
      {{Col, N_, 0, 4, 0, 1, 1}, 7},   // lda = 0 with M = 0 (OpenBLAS would accept)
      {{Row, N_, 4, 0, 0, 1, 1}, 7},   // lda = 0 with N = 0
  });
  run_cblas_gemv_cases(v);
}

TEST(ErrorsCblas, GemvFirstErrorWins) {
  run_cblas_gemv_cases({
      {{0, 0, -1, -1, 0, 0, 0}, 1},
      {{Col, 0, -1, -1, 0, 0, 0}, 2},
      {{Row, 0, -1, -1, 0, 0, 0}, 2},
      {{Col, N_, -1, -1, 0, 0, 0}, 3},
      {{Row, N_, -1, -1, 0, 0, 0}, 4},  // N is the column-major call's M
      {{Row, N_, -1, 3, 3, 0, 0}, 3},
      {{Col, T_, 3, 3, 2, 0, 0}, 7},
      {{Row, T_, 3, 3, 2, 0, 0}, 7},
      {{Row, N_, 3, 3, 3, 0, 0}, 9},
  });
}

// The reference formats the illegal enum value into its message; a handler that prints
// `form` with its arguments must get that value.
TEST(ErrorsCblas, EnumErrorsPassTheIllegalValue) {
  Arena arena(false);
  cblas_sgemm(static_cast<CBLAS_LAYOUT>(103), CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.f, arena.a(), 1,
              arena.b(), 1, 0.f, arena.c(), 1);
  cblas_sgemv(CblasRowMajor, static_cast<CBLAS_TRANSPOSE>(114), 1, 1, 1.f, arena.a(), 1, arena.x(),
              1, 0.f, arena.y(), 1);
  cblas_hgemm(CblasColMajor, CblasTrans, static_cast<CBLAS_TRANSPOSE>(110), 1, 1, 1, 0, arena.ha(),
              1, arena.hb(), 1, 0, arena.hc(), 1);
  const std::vector<Report> r = take_reports();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_NE(r[0].message.find("103"), std::string::npos) << r[0].message;
  EXPECT_NE(r[1].message.find("114"), std::string::npos) << r[1].message;
  EXPECT_NE(r[2].message.find("110"), std::string::npos) << r[2].message;
}

// CblasConjTrans is legal in every position and means the transpose for real data: the
// result must be bitwise that of CblasTrans, in both layouts.
TEST(ErrorsCblas, ConjTransAccepted) {
  const int m = 5, n = 6, k = 7, ld = 9;
  std::mt19937_64 rng(mbtest::test_seed());
  std::vector<float> a(ld * ld), b(ld * ld), c0(ld * ld), x(ld), y0(ld);
  for (float& v : a) v = mbtest::uniform(rng);
  for (float& v : b) v = mbtest::uniform(rng);
  for (float& v : c0) v = mbtest::uniform(rng);
  for (float& v : x) v = mbtest::uniform(rng);
  for (float& v : y0) v = mbtest::uniform(rng);
  std::vector<uint16_t> ha(a.size()), hb(b.size()), hc0(c0.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ha[i] = myblas_float_to_half(a[i]);
    hb[i] = myblas_float_to_half(b[i]);
    hc0[i] = myblas_float_to_half(c0[i]);
  }
  auto as_t = [](CBLAS_TRANSPOSE t) { return t == CblasConjTrans ? CblasTrans : t; };
  for (CBLAS_LAYOUT layout : {CblasColMajor, CblasRowMajor})
    for (CBLAS_TRANSPOSE ta : {CblasNoTrans, CblasConjTrans})
      for (CBLAS_TRANSPOSE tb : {CblasNoTrans, CblasConjTrans}) {
        if (ta == CblasNoTrans && tb == CblasNoTrans) continue;
        const std::string call = describe("cblas_sgemm", CblasGemmArgs{layout, ta, tb, m, n, k, ld, ld, ld});
        std::vector<float> got = c0, want = c0;
        cblas_sgemm(layout, ta, tb, m, n, k, kAlpha, a.data(), ld, b.data(), ld, kBeta, got.data(), ld);
        EXPECT_STRNE(myblas_last_path(), "none") << call;
        cblas_sgemm(layout, as_t(ta), as_t(tb), m, n, k, kAlpha, a.data(), ld, b.data(), ld, kBeta,
                    want.data(), ld);
        EXPECT_TRUE(take_reports().empty()) << call << " was rejected";
        EXPECT_NE(got, c0) << call << " did nothing";
        EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << call;

        std::vector<uint16_t> hgot = hc0, hwant = hc0;
        const uint16_t hal = myblas_float_to_half(kAlpha), hbe = myblas_float_to_half(kBeta);
        cblas_hgemm(layout, ta, tb, m, n, k, hal, ha.data(), ld, hb.data(), ld, hbe, hgot.data(), ld);
        EXPECT_STRNE(myblas_last_path(), "none") << call << " as cblas_hgemm";
        cblas_hgemm(layout, as_t(ta), as_t(tb), m, n, k, hal, ha.data(), ld, hb.data(), ld, hbe,
                    hwant.data(), ld);
        EXPECT_TRUE(take_reports().empty()) << call << " as cblas_hgemm was rejected";
        EXPECT_NE(hgot, hc0) << call << " as cblas_hgemm did nothing";
        EXPECT_EQ(hgot, hwant) << call << " as cblas_hgemm";
      }
  for (CBLAS_LAYOUT layout : {CblasColMajor, CblasRowMajor}) {
    const std::string call = describe("cblas_sgemv", CblasGemvArgs{layout, CblasConjTrans, m, n, ld, 1, 1});
    std::vector<float> got = y0, want = y0;
    cblas_sgemv(layout, CblasConjTrans, m, n, kAlpha, a.data(), ld, x.data(), 1, kBeta, got.data(), 1);
    EXPECT_STRNE(myblas_last_path(), "none") << call;
    cblas_sgemv(layout, CblasTrans, m, n, kAlpha, a.data(), ld, x.data(), 1, kBeta, want.data(), 1);
    EXPECT_TRUE(take_reports().empty()) << call << " was rejected";
    EXPECT_NE(got, y0) << call << " did nothing";
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << call;
  }
}

// ---- device operands -----------------------------------------------------------------------

// The checks come before any look at where the operands live: with every operand in device
// memory, an illegal call must still report once and leave device memory untouched.
TEST(ErrorsDevice, IllegalCallsLeaveDeviceMemoryUntouched) {
  if (!myblas_gpu_available()) GTEST_SKIP() << "no usable CUDA device";
  Arena arena(true);
  ASSERT_TRUE(arena.ok()) << "cannot set up device operands";
  for (FortranGemm e : kFortranGemms)
    for (const FortranGemmCase& c : fortran_gemm_cases()) {
      const std::string call = describe(entry_name(e), c.g) + " on device operands";
      prime_last_path();
      call_fortran_gemm(e, c.g, arena);
      expect_one_report(call, false, srname_of(e), c.info, arena);
    }
  for (CblasGemm e : {CblasGemm::sgemm, CblasGemm::hgemm, CblasGemm::bf16, CblasGemm::f16})
    for (const CblasGemmCase& c : cblas_gemm_cases()) {
      const char* rout = rout_of(e);
      const std::string call = describe(rout, c.g) + " on device operands";
      prime_last_path();
      call_cblas_gemm(e, c.g, arena);
      expect_one_report(call, true, rout, gemm_passed_info(c.g.layout == CblasRowMajor, c.user_info),
                        arena);
    }
  const GemvArgs gemv_live[] = {{'N', 4, 4, 3, 1, 1}, {'T', 4, 4, 4, 0, 1}, {'N', 4, 4, 4, 1, 0}};
  const int gemv_info[] = {6, 8, 11};
  for (int i = 0; i < 3; ++i) {
    const std::string call = describe("sgemv_", gemv_live[i]) + " on device operands";
    prime_last_path();
    call_sgemv(gemv_live[i], arena);
    expect_one_report(call, false, "SGEMV ", gemv_info[i], arena);
  }
}

}  // namespace
