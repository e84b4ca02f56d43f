// Driver for compute-sanitizer (tests/reliability/run_compute_sanitizer.sh, docs/reliability.md):
// every GPU kernel of ours (each SgemmKernel and SgemvKernel, ladder rungs included, the scale
// and binary16 conversion kernels) called directly on small shapes at and around its tile
// edges, and the cuBLAS, staged-kernel and host-pipeline paths through the public API. Small
// on purpose: racecheck and initcheck slow kernels down by orders of magnitude.
//
// What each case does, so that the tools have something to find:
//  - every operand is its own cudaMalloc ending exactly at its last element (memcheck sees a
//    read one past it), after 16 bytes of guard elements (plus one element when the case is
//    misaligned, so pointers are 4 bytes off a 16-byte boundary);
//  - only what the kernel may read is initialised: the padding rows of A and B, the gaps of
//    strided x and y, and C/y themselves when beta == 0 are never written, so initcheck
//    reports any read of them; C's and y's padding and gaps hold guard values that must survive;
//  - shapes 1, tile-1, tile, tile+1, odd sizes, more k tiles than pipeline stages, k split over
//    blocks; all transposes; beta 0 and non-zero; aligned leading dimensions (multiples of 4)
//    and odd ones; negative and non-unit increments; alpha == 0 for SGEMV and through the API;
//  - the result is checked against a double-precision loop with the k-scaled bound
//    (k + 2) * 4 * eps * (|alpha| sum |a||b| + |beta c|), plus one binary16 rounding for HGEMM,
//    so the driver fails by itself (exit 1) on a wrong answer, with or without a sanitizer.
//
// Usage: sanitize_kernels [--list | --probe] [FILTER]   FILTER: comma-separated substrings of group
// names (e.g. "sgemm.", "sgemv.t_lanegroup", "scale.,convert.", "api."; default: every group
// but the "probe.*" ones). Each group runs in a child process of its own, which
// compute-sanitizer follows: memcheck ends the CUDA context at a kernel's first error, which
// then ends only that group; the API groups need it anyway (the library reads MYBLAS_BACKEND
// once). MYBLAS_SANITIZE_GROUP_SECONDS=N stops a group from starting new cases after N s (and
// kills it after 2N + 60 s). MYBLAS_TEST_SEED replays the data. Exit status: 0 all passed,
// 1 a case failed, 3 only stopped early. Without a GPU it prints "[  SKIPPED ]" and exits 0.
#include <cuda_runtime_api.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfloat>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "common/data.h"
#include "kernels/scale.h"
#include "kernels/sgemm.h"
// The HGEMM kernels (being added beside this driver): their groups exist once the header does.
#if __has_include("kernels/hgemm.h")
#include "kernels/hgemm.h"
#define SANITIZE_HGEMM_KERNELS 1
#endif
#include "kernels/sgemv.h"
#include "myblas.h"
#include "reliability/sanitizer_probe.h"

extern char** environ;

namespace {

using myblas::GemmProblem;
using myblas::GemvProblem;
using myblas::Mem;
using myblas::Op;
using myblas::SgemmKernel;
using myblas::SgemvKernel;

// ---- element types ------------------------------------------------------------------------------
struct F32 {
  using T = float;
  static constexpr myblas::Routine routine = myblas::Routine::sgemm;
  static T guard() { return mbtest::kGuard; }
  static float to_f(T v) { return v; }
  static T from_f(float v) { return v; }
  static constexpr double rounding = 0;  // relative error of storing the result
};
struct F16 {
  using T = uint16_t;
  static constexpr myblas::Routine routine = myblas::Routine::hgemm;
  static T guard() { return mbtest::kGuardHalf; }
  static float to_f(T v) { return myblas_half_to_float(v); }
  static T from_f(float v) { return myblas_float_to_half(v); }
  static constexpr double rounding = 1.0 / 1024;
};

// ---- results -----------------------------------------------------------------------------------
struct Tally {
  int run = 0, refused = 0, failed = 0;
  bool stop = false;        // no more cases: the context is lost, or the time is up
  std::string why_stopped;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

void fail(Tally* t, const std::string& group, const std::string& what) {
  ++t->failed;
  if (t->failed <= 20) std::printf("FAIL %s: %s\n", group.c_str(), what.c_str());
}

// Checked before each case: a failed synchronisation means the context is gone (memcheck ends a
// kernel at its first error that way), so every later case would only fail again; and the
// group's time limit (MYBLAS_SANITIZE_GROUP_SECONDS).
bool stopped(Tally* t) {
  if (!t->stop && std::chrono::steady_clock::now() > t->deadline) {
    t->stop = true;
    t->why_stopped = "time limit reached";
  }
  return t->stop;
}

void lost_context(Tally* t, const std::string& where) {
  t->stop = true;
  t->why_stopped = "CUDA context lost after " + where;
}

std::string cuda_err(const char* what, cudaError_t e) {
  return std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

// ---- operands ----------------------------------------------------------------------------------
// A rows x cols column-major block with leading dimension ld (a strided vector is 1 x len with
// ld = |inc|): `span` elements from the first to the last, padding = guard, with kGuardBytes of
// guard before and after (the host copy is also what host-pointer API calls are given).
constexpr size_t kGuardBytes = 16;

template <typename E>
struct HostOp {
  using T = typename E::T;
  int rows = 0, cols = 0;
  int64_t ld = 1;
  std::vector<T> store;
  static constexpr size_t front() { return kGuardBytes / sizeof(T); }
  HostOp(int r, int c, int64_t l, std::mt19937_64& rng) : rows(r), cols(c), ld(l) {
    store.assign(2 * front() + span(), E::guard());
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) at(i, j) = E::from_f(mbtest::uniform(rng));
  }
  size_t span() const { return size_t(cols - 1) * size_t(ld) + size_t(rows); }
  T* data() { return store.data() + front(); }
  const T* data() const { return store.data() + front(); }
  T& at(int i, int j) { return data()[i + int64_t(j) * ld]; }
  T at(int i, int j) const { return data()[i + int64_t(j) * ld]; }
  float f(int i, int j) const { return E::to_f(at(i, j)); }
};

// Logical element i of a strided vector held as a 1 x len HostOp (BLAS order: a negative
// increment starts from the highest address).
template <typename E>
float vec_f(const HostOp<E>& v, int i, int inc) {
  return E::to_f(v.at(0, inc > 0 ? i : v.cols - 1 - i));
}
template <typename E>
void vec_set(HostOp<E>* v, int i, int inc, float x) {
  v->at(0, inc > 0 ? i : v->cols - 1 - i) = E::from_f(x);
}

enum class Init {
  logical,  // the elements only: padding and gaps stay uninitialised (A, B, x)
  all,      // elements and guard-filled padding (C, y with beta != 0)
  padding,  // padding only: the elements stay uninitialised (C, y with beta == 0)
};

// An operand on the device, allocated to end exactly at its last element.
template <typename E>
class DevOp {
 public:
  using T = typename E::T;
  DevOp(const HostOp<E>& h, Init init, bool misalign, std::string* err)
      : front_(kGuardBytes / sizeof(T) + (misalign ? 1 : 0)), span_(h.span()) {
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&base_), (front_ + span_) * sizeof(T));
    if (e != cudaSuccess) {
      base_ = nullptr;
      *err = cuda_err("cudaMalloc", e);
      return;
    }
    ptr_ = base_ + front_;
    const std::vector<T> guards(front_, E::guard());
    e = cudaMemcpy(base_, guards.data(), front_ * sizeof(T), cudaMemcpyHostToDevice);
    const size_t pitch = size_t(h.ld) * sizeof(T);
    if (e == cudaSuccess && init == Init::all)
      e = cudaMemcpy(ptr_, h.data(), span_ * sizeof(T), cudaMemcpyHostToDevice);
    if (e == cudaSuccess && init == Init::logical)
      e = cudaMemcpy2D(ptr_, pitch, h.data(), pitch, size_t(h.rows) * sizeof(T), size_t(h.cols),
                       cudaMemcpyHostToDevice);
    if (e == cudaSuccess && init == Init::padding && h.ld > h.rows && h.cols > 1)
      e = cudaMemcpy2D(ptr_ + h.rows, pitch, h.data() + h.rows, pitch, size_t(h.ld - h.rows) * sizeof(T),
                       size_t(h.cols - 1), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) *err = cuda_err("uploading an operand", e);
  }
  DevOp(const DevOp&) = delete;
  DevOp& operator=(const DevOp&) = delete;
  ~DevOp() {
    if (base_) cudaFree(base_);
  }
  T* get() const { return ptr_; }
  // The operand after the call into h (guards and padding included); false if the guard
  // elements before it changed or the copy failed.
  bool download(HostOp<E>* h, std::string* err) const {
    std::vector<T> all(front_ + span_);
    cudaError_t e = cudaMemcpy(all.data(), base_, all.size() * sizeof(T), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
      *err = cuda_err("downloading", e);
      return false;
    }
    std::memcpy(h->data(), all.data() + front_, span_ * sizeof(T));
    for (size_t i = 0; i < front_; ++i)
      if (std::memcmp(&all[i], &guards_value_, sizeof(T))) {
        *err = "a guard element before the operand was written";
        return false;
      }
    return true;
  }

 private:
  const T guards_value_ = E::guard();
  size_t front_, span_;
  T* base_ = nullptr;
  T* ptr_ = nullptr;
};

// Guard elements around a host operand and in its padding/gaps unchanged (bitwise).
template <typename E>
int64_t damaged_guards(const HostOp<E>& h) {
  const typename E::T g = E::guard();
  int64_t bad = 0;
  const size_t f = HostOp<E>::front();
  for (size_t i = 0; i < f; ++i) {
    bad += std::memcmp(&h.store[i], &g, sizeof g) != 0;
    bad += std::memcmp(&h.store[h.store.size() - 1 - i], &g, sizeof g) != 0;
  }
  for (int j = 0; j + 1 < h.cols; ++j)
    for (int64_t i = h.rows; i < h.ld; ++i) {
      const typename E::T v = h.data()[i + j * h.ld];
      bad += std::memcmp(&v, &g, sizeof g) != 0;
    }
  return bad;
}

int round_to(int v, int q) { return (v + q - 1) / q * q; }

// ---- GEMM --------------------------------------------------------------------------------------
struct Shape {
  int m, n, k;
};

struct GemmCase {
  char ta = 'N', tb = 'N';
  int m = 1, n = 1, k = 1, lda = 1, ldb = 1, ldc = 1;
  float alpha = 1.f, beta = 0.f;
  bool misalign = false;
  std::string str() const {
    std::ostringstream o;
    o << ta << tb << " m=" << m << " n=" << n << " k=" << k << " lda=" << lda << " ldb=" << ldb
      << " ldc=" << ldc << " alpha=" << alpha << " beta=" << beta << (misalign ? " misaligned" : " aligned");
    return o.str();
  }
};

// The two variants of a shape and transpose pair: v0 16-byte aligned operands, leading
// dimensions multiples of 16 bytes (`vec` elements), beta == 0; v1 operands one element off
// 16 bytes, odd-ish leading dimensions, beta != 0. Scalars are binary16-exact.
GemmCase gemm_variant(Shape s, char ta, char tb, int variant, int index, int vec) {
  GemmCase c;
  c.ta = ta;
  c.tb = tb;
  c.m = s.m;
  c.n = s.n;
  c.k = s.k;
  const int ar = ta == 'N' ? s.m : s.k, br = tb == 'N' ? s.k : s.n;
  if (variant == 0 || variant == 2) {
    const int pad = vec * (index % 2);
    c.lda = round_to(ar, vec) + pad;
    c.ldb = round_to(br, vec) + pad;
    c.ldc = round_to(s.m, vec) + pad;
    c.alpha = index % 2 ? -0.75f : 1.f;
    c.beta = variant == 2 ? 0.5f : 0.f;
  } else {
    const int pad = 1 + index % 3;
    c.lda = ar + pad;
    c.ldb = br + pad;
    c.ldc = s.m + pad;
    c.alpha = 0.5f;
    c.beta = index % 2 ? 1.f : -0.5f;
    c.misalign = true;
  }
  return c;
}

enum class Place { device, host };

template <typename E>
constexpr int kVec = int(16 / sizeof(typename E::T));  // elements per 16 bytes

// What a call did: a refusal (the kernel cannot run the problem; nothing ran), the launch
// error, or a complaint of the caller's (e.g. the wrong path).
struct Outcome {
  const char* refused = nullptr;
  cudaError_t launch = cudaSuccess;
  std::string wrong;
};
using GemmCall = std::function<Outcome(const GemmProblem&)>;

// Tallies one call: a refusal (the first one printed with its reason), or a run whose launch
// and completion are checked. True when the call ran cleanly and its result can be checked.
bool account(const std::string& group, const std::string& where, const Outcome& o, Tally* t) {
  if (o.refused) {
    if (t->refused++ == 0) std::printf("%s: first refusal (%s): %s\n", group.c_str(), where.c_str(), o.refused);
    return false;
  }
  ++t->run;
  const cudaError_t se = cudaDeviceSynchronize();
  if (o.launch != cudaSuccess) fail(t, group, where + ": " + cuda_err("launch", o.launch));
  if (se != cudaSuccess) fail(t, group, where + ": " + cuda_err("cudaDeviceSynchronize", se));
  if (!o.wrong.empty()) fail(t, group, where + ": " + o.wrong);
  if (se != cudaSuccess) lost_context(t, where);
  return o.launch == cudaSuccess && se == cudaSuccess;
}

template <typename E>
void gemm_case(const std::string& group, const GemmCase& c, Place place, const GemmCall& call,
               std::mt19937_64& rng, Tally* t) {
  if (stopped(t)) return;
  const std::string where = c.str() + (place == Place::host ? " host" : " device");
  const int ar = c.ta == 'N' ? c.m : c.k, ac = c.ta == 'N' ? c.k : c.m;
  const int br = c.tb == 'N' ? c.k : c.n, bc = c.tb == 'N' ? c.n : c.k;
  HostOp<E> a(ar, ac, c.lda, rng), b(br, bc, c.ldb, rng), cc(c.m, c.n, c.ldc, rng);
  const HostOp<E> c0 = cc;
  GemmProblem p;
  p.routine = E::routine;
  p.ta = c.ta == 'N' ? Op::N : Op::T;
  p.tb = c.tb == 'N' ? Op::N : Op::T;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.alpha = c.alpha;
  p.beta = c.beta;
  p.lda = c.lda;
  p.ldb = c.ldb;
  p.ldc = c.ldc;
  std::string err;
  std::vector<DevOp<E>*> owned;
  DevOp<E>* dc = nullptr;
  if (place == Place::device) {
    auto* da = new DevOp<E>(a, Init::logical, c.misalign, &err);
    auto* db = new DevOp<E>(b, Init::logical, c.misalign, &err);
    dc = new DevOp<E>(cc, c.beta == 0.f ? Init::padding : Init::all, c.misalign, &err);
    owned = {da, db, dc};
    p.a = da->get();
    p.b = db->get();
    p.c = dc->get();
    p.mem_a = p.mem_b = p.mem_c = Mem::device;
    p.dev_a = p.dev_b = p.dev_c = p.device = 0;
    cudaGetDevice(&p.device);
  } else {
    if (c.beta == 0.f)  // must not be read: NaN would show
      for (int j = 0; j < c.n; ++j)
        for (int i = 0; i < c.m; ++i) cc.at(i, j) = E::from_f(NAN);
    p.a = a.data();
    p.b = b.data();
    p.c = cc.data();
  }
  auto cleanup = [&] {
    for (DevOp<E>* d : owned) delete d;
  };
  if (!err.empty()) {
    fail(t, group, where + ": " + err);
    return cleanup();
  }
  if (!account(group, where, call(p), t)) return cleanup();
  if (dc && !dc->download(&cc, &err)) {
    fail(t, group, where + ": " + err);
    return cleanup();
  }
  cleanup();

  int bad = 0;
  std::string first;
  for (int j = 0; j < c.n; ++j)
    for (int i = 0; i < c.m; ++i) {
      double dot = 0, mag = 0;
      for (int l = 0; l < c.k; ++l) {
        const double x = c.ta == 'N' ? a.f(i, l) : a.f(l, i);
        const double y = c.tb == 'N' ? b.f(l, j) : b.f(j, l);
        dot += x * y;
        mag += std::fabs(x * y);
      }
      const double cz = c.beta == 0.f ? 0.0 : double(c.beta) * c0.f(i, j);
      const double want = double(c.alpha) * dot + cz;
      const double bound = (c.k + 2) * 4.0 * FLT_EPSILON * (std::fabs(c.alpha) * mag + std::fabs(cz)) +
                           E::rounding * std::fabs(want) + 1e-7;
      const double got = cc.f(i, j);
      if (!(std::fabs(got - want) <= bound)) {
        if (!bad) {
          std::ostringstream s;
          s << "C(" << i << "," << j << ") = " << got << ", want " << want << " (bound " << bound << ")";
          first = s.str();
        }
        ++bad;
      }
    }
  if (bad) fail(t, group, where + ": " + std::to_string(bad) + " wrong elements, first " + first);
  const int64_t guards = damaged_guards(cc);
  if (guards) fail(t, group, where + ": " + std::to_string(guards) + " guard/padding elements of C written");
  if (place == Place::host && (damaged_guards(a) || damaged_guards(b)))
    fail(t, group, where + ": guards around A or B written");
}

// Shapes at and around a kernel's tile: BM x BN block of C, BK of k per step.
struct Tile {
  int bm, bn, bk;
};

std::vector<Shape> tile_shapes(Tile t) {
  return {{1, 1, 1},
          {t.bm - 1, t.bn + 1, t.bk - 1},
          {t.bm, t.bn, t.bk},
          {t.bm + 1, t.bn - 1, t.bk + 1},
          {t.bm + 1, t.bn + 1, 2 * t.bk + 1},
          {t.bm / 2 + 1, t.bn / 4 + 1, 6 * t.bk + 4},  // more k steps than pipeline stages
          {37, 19, 53}};
}

// The smallk_panel kernels: their tile shapes and two of several tiles each way, with k in one
// pair of 32-deep stages and in several.
std::vector<Shape> smallk_panel_shapes() {
  std::vector<Shape> v = tile_shapes({128, 128, 32});
  v.push_back({257, 256, 65});
  v.push_back({256, 259, 130});
  return v;
}

// smallk_ws (k <= 64 on its own kernel): its tile shapes, a grid of 9 tiles, and 1030 x 4097 (9 x 17
// = 153 tiles for 132 blocks: some blocks walk two, so the stage ring and the C buffer wrap).
std::vector<Shape> smallk_ws_shapes() {
  std::vector<Shape> v = tile_shapes({128, 256, 32});
  v.push_back({257, 513, 64});
  v.push_back({1030, 4097, 33});
  return v;
}

// min(m, n) <= 16 (skinny_r16's domain): k split over blocks (k > 512), columns past one
// 128-column block, both orientations.
std::vector<Shape> skinny_shapes() {
  return {{1, 1, 1},     {15, 127, 511}, {16, 128, 512}, {16, 129, 1100}, {129, 16, 1100},
          {1, 257, 513}, {3, 5, 7},      {17, 16, 9},    {16, 17, 33}};
}

Tile sgemm_tile(SgemmKernel k) {
  switch (k) {
    case SgemmKernel::naive:
    case SgemmKernel::coalesced:
    case SgemmKernel::smem_tiles: return {32, 32, 32};
    case SgemmKernel::blocktile_1d: return {64, 64, 8};
    case SgemmKernel::blocktile_2d:
    case SgemmKernel::vectorized: return {128, 128, 8};
    case SgemmKernel::warptile:
    case SgemmKernel::pipelined_s4: return {128, 128, 16};
    case SgemmKernel::skinny_r16: return {16, 128, 512};
    case SgemmKernel::regdb_256x128: return {256, 128, 8};
    case SgemmKernel::regdb_128x128: return {128, 128, 8};
    case SgemmKernel::smallk: return {128, 128, 16};
    case SgemmKernel::smallk_panel:
    case SgemmKernel::smallk_panel_pre: return {128, 128, 32};
    case SgemmKernel::smallk_ws: return {128, 256, 32};
  }
  return {128, 128, 16};
}

#ifdef SANITIZE_HGEMM_KERNELS
Tile hgemm_tile(myblas::HgemmKernel k) {
  switch (k) {
    case myblas::HgemmKernel::wmma: return {128, 128, 32};
    case myblas::HgemmKernel::mma_sync: return {128, 256, 32};
    case myblas::HgemmKernel::wgmma_tma: return {128, 256, 64};
    case myblas::HgemmKernel::splitk_64x128: return {64, 128, 64};
    case myblas::HgemmKernel::splitk_128x64: return {128, 64, 64};
    case myblas::HgemmKernel::skinny_stream: return {64, 128, 32};
    case myblas::HgemmKernel::wgmma_splitk: return {128, 64, 64};
    default: break;
  }
  return {128, 256, 64};
}
#endif

constexpr char kTrans[4][2] = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'T', 'T'}};

// Every shape x transpose x variant on the device, through `call`.
template <typename E>
// variants: gemm_variant's 0 and 1, and with 3 also 2 (aligned, beta != 0).
void gemm_sweep(const std::string& group, const std::vector<Shape>& shapes, const GemmCall& call,
                std::mt19937_64& rng, Tally* t, int variants = 2) {
  for (size_t s = 0; s < shapes.size(); ++s)
    for (const auto& tr : kTrans)
      for (int v = 0; v < variants; ++v)
        gemm_case<E>(group, gemm_variant(shapes[s], tr[0], tr[1], v, int(s), kVec<E>), Place::device, call, rng, t);
}

// ---- GEMV --------------------------------------------------------------------------------------
struct GemvCase {
  char t = 'N';
  int m = 1, n = 1, lda = 1, incx = 1, incy = 1;
  float alpha = 1.f, beta = 0.f;
  bool misalign = false;
  std::string str() const {
    std::ostringstream o;
    o << t << " m=" << m << " n=" << n << " lda=" << lda << " incx=" << incx << " incy=" << incy
      << " alpha=" << alpha << " beta=" << beta << (misalign ? " misaligned" : " aligned");
    return o.str();
  }
};

// v0: aligned, unit increments, lda a multiple of 4, beta == 0; v1: 4 bytes off, incx = -2,
// incy = 3, odd lda, beta != 0; v2: alpha == 0 (y := beta*y, A and x never read).
GemvCase gemv_variant(int m, int n, char t, int variant, int index) {
  GemvCase c;
  c.t = t;
  c.m = m;
  c.n = n;
  if (variant == 0) {
    c.lda = round_to(m, 4) + 4 * (index % 2);
    c.alpha = index % 2 ? -0.75f : 1.f;
  } else {
    c.lda = m + 1 + index % 3;
    c.incx = -2;
    c.incy = 3;
    c.alpha = 0.5f;
    c.beta = index % 2 ? 1.f : -0.5f;
    c.misalign = true;
    if (variant == 2) {  // (beta != 1: alpha == 0 with beta == 1 is a quick return)
      c.alpha = 0.f;
      c.beta = -0.5f;
      c.incy = -2;
    }
  }
  return c;
}

using GemvCall = std::function<Outcome(const GemvProblem&)>;

void gemv_case(const std::string& group, const GemvCase& c, Place place, const GemvCall& call,
               std::mt19937_64& rng, Tally* t) {
  if (stopped(t)) return;
  const std::string where = c.str() + (place == Place::host ? " host" : " device");
  const int lx = c.t == 'N' ? c.n : c.m, ly = c.t == 'N' ? c.m : c.n;
  HostOp<F32> a(c.m, c.n, c.lda, rng), x(1, lx, std::abs(c.incx), rng), y(1, ly, std::abs(c.incy), rng);
  const HostOp<F32> y0 = y;
  GemvProblem p;
  p.ta = c.t == 'N' ? Op::N : Op::T;
  p.m = c.m;
  p.n = c.n;
  p.alpha = c.alpha;
  p.beta = c.beta;
  p.lda = c.lda;
  p.incx = c.incx;
  p.incy = c.incy;
  std::string err;
  std::vector<DevOp<F32>*> owned;
  DevOp<F32>* dy = nullptr;
  if (place == Place::device) {
    auto* da = new DevOp<F32>(a, Init::logical, c.misalign, &err);
    auto* dx = new DevOp<F32>(x, Init::logical, c.misalign, &err);
    dy = new DevOp<F32>(y, c.beta == 0.f ? Init::padding : Init::all, c.misalign, &err);
    owned = {da, dx, dy};
    p.a = da->get();
    p.x = dx->get();
    p.y = dy->get();
    p.mem_a = p.mem_x = p.mem_y = Mem::device;
    p.dev_a = p.dev_x = p.dev_y = p.device = 0;
    cudaGetDevice(&p.device);
  } else {
    if (c.beta == 0.f)
      for (int i = 0; i < ly; ++i) vec_set(&y, i, c.incy, NAN);
    p.a = a.data();
    p.x = x.data();
    p.y = y.data();
  }
  auto cleanup = [&] {
    for (DevOp<F32>* d : owned) delete d;
  };
  if (!err.empty()) {
    fail(t, group, where + ": " + err);
    return cleanup();
  }
  if (!account(group, where, call(p), t)) return cleanup();
  if (dy && !dy->download(&y, &err)) {
    fail(t, group, where + ": " + err);
    return cleanup();
  }
  cleanup();

  int bad = 0;
  std::string first;
  const int kk = c.t == 'N' ? c.n : c.m;
  for (int i = 0; i < ly; ++i) {
    double dot = 0, mag = 0;
    if (c.alpha != 0.f)
      for (int l = 0; l < kk; ++l) {
        const double v = double(c.t == 'N' ? a.f(i, l) : a.f(l, i)) * vec_f(x, l, c.incx);
        dot += v;
        mag += std::fabs(v);
      }
    const double yz = c.beta == 0.f ? 0.0 : double(c.beta) * vec_f(y0, i, c.incy);
    const double want = double(c.alpha) * dot + yz;
    const double bound = (kk + 2) * 4.0 * FLT_EPSILON * (std::fabs(c.alpha) * mag + std::fabs(yz)) + 1e-7;
    const double got = vec_f(y, i, c.incy);
    if (!(std::fabs(got - want) <= bound)) {
      if (!bad) {
        std::ostringstream s;
        s << "y(" << i << ") = " << got << ", want " << want << " (bound " << bound << ")";
        first = s.str();
      }
      ++bad;
    }
  }
  if (bad) fail(t, group, where + ": " + std::to_string(bad) + " wrong elements, first " + first);
  if (damaged_guards(y)) fail(t, group, where + ": guards or gaps of y written");
  if (place == Place::host && (damaged_guards(a) || damaged_guards(x)))
    fail(t, group, where + ": guards around A or x written");
}

// SGEMV shapes around the kernels' edges: 128-row blocks (n_rowblock), 256-column x tiles
// (x_shared N) and 2048-row x tiles (x_shared T), column splits (n >= 128) and row splits
// (m >= 2048) of the split kernels, tiny and odd shapes.
// 4097 x 3 and 8200 x 9 (T): tall enough that t_lanegroup_cluster's own choice takes clusters
// of 2 and 4 blocks (at least 2048 rows per split).
std::vector<std::pair<int, int>> gemv_shapes() {
  return {{1, 1},     {37, 19},  {127, 255}, {128, 256},  {129, 257}, {200, 130},
          {129, 700}, {2047, 9}, {2048, 8},  {2049, 7},   {3000, 40}, {4097, 3}, {8200, 9}};
}

// ---- scale and conversion kernels --------------------------------------------------------------
struct MatShape {
  int m, n, ld;
};
std::vector<MatShape> scale_shapes() { return {{1, 1, 1}, {255, 3, 257}, {256, 2, 256}, {257, 5, 261}, {33, 70, 40}}; }

// C := beta*C on the device; beta == 0 must store zeros without reading C.
template <typename E>
void scale_matrix_group(const std::string& group, std::mt19937_64& rng, Tally* t) {
  int idx = 0;
  for (const MatShape& s : scale_shapes())
    for (float beta : {0.f, 0.5f, -1.f}) {
      if (stopped(t)) return;
      const bool mis = idx++ % 2;
      std::ostringstream w;
      w << "m=" << s.m << " n=" << s.n << " ld=" << s.ld << " beta=" << beta << (mis ? " misaligned" : "");
      HostOp<E> c(s.m, s.n, s.ld, rng);
      const HostOp<E> c0 = c;
      std::string err;
      {
        DevOp<E> dc(c, beta == 0.f ? Init::padding : Init::all, mis, &err);
        if (err.empty()) {
          cudaError_t e;
          if constexpr (std::is_same_v<E, F32>)
            e = myblas::scale_matrix_f32(dc.get(), s.ld, s.m, s.n, beta, nullptr);
          else
            e = myblas::scale_matrix_f16(dc.get(), s.ld, s.m, s.n, beta, nullptr);
          const cudaError_t se = cudaDeviceSynchronize();
          if (e != cudaSuccess || se != cudaSuccess) err = cuda_err("launch", e != cudaSuccess ? e : se);
          else dc.download(&c, &err);
        }
      }
      ++t->run;
      if (!err.empty()) {
        fail(t, group, w.str() + ": " + err);
        lost_context(t, w.str());
        continue;
      }
      int bad = 0;
      for (int j = 0; j < s.n; ++j)
        for (int i = 0; i < s.m; ++i) {
          const typename E::T want = E::from_f(beta == 0.f ? 0.f : beta * E::to_f(c0.at(i, j)));
          bad += std::memcmp(&want, &c.at(i, j), sizeof want) != 0;
        }
      if (bad) fail(t, group, w.str() + ": " + std::to_string(bad) + " wrong elements");
      if (damaged_guards(c)) fail(t, group, w.str() + ": padding written");
    }
}

void scale_vector_group(const std::string& group, std::mt19937_64& rng, Tally* t) {
  int idx = 0;
  for (int n : {1, 255, 256, 257, 1000})
    for (int inc : {1, 3})
      for (float beta : {0.f, -0.5f}) {
        if (stopped(t)) return;
        const bool mis = idx++ % 2;
        std::ostringstream w;
        w << "n=" << n << " inc=" << inc << " beta=" << beta << (mis ? " misaligned" : "");
        HostOp<F32> y(1, n, inc, rng);
        const HostOp<F32> y0 = y;
        std::string err;
        {
          DevOp<F32> dy(y, beta == 0.f ? Init::padding : Init::all, mis, &err);
          if (err.empty()) {
            const cudaError_t e = myblas::scale_vector_f32(dy.get(), inc, n, beta, nullptr);
            const cudaError_t se = cudaDeviceSynchronize();
            if (e != cudaSuccess || se != cudaSuccess) err = cuda_err("launch", e != cudaSuccess ? e : se);
            else dy.download(&y, &err);
          }
        }
        ++t->run;
        if (!err.empty()) {
          fail(t, group, w.str() + ": " + err);
          lost_context(t, w.str());
          continue;
        }
        int bad = 0;
        for (int i = 0; i < n; ++i) bad += y.at(0, i) != (beta == 0.f ? 0.f : beta * y0.at(0, i));
        if (bad) fail(t, group, w.str() + ": " + std::to_string(bad) + " wrong elements");
        if (damaged_guards(y)) fail(t, group, w.str() + ": gaps written");
      }
}

// dst := src converted (binary16 <-> FP32, round to nearest even), different leading dimensions.
template <typename S, typename D>
void convert_group(const std::string& group, std::mt19937_64& rng, Tally* t) {
  int idx = 0;
  for (const MatShape& s : scale_shapes()) {
    if (stopped(t)) return;
    const bool mis = idx++ % 2;
    const int ldd = s.m + 1 + idx % 3;
    std::ostringstream w;
    w << "m=" << s.m << " n=" << s.n << " lds=" << s.ld << " ldd=" << ldd << (mis ? " misaligned" : "");
    HostOp<S> src(s.m, s.n, s.ld, rng);
    HostOp<D> dst(s.m, s.n, ldd, rng);
    std::string err;
    {
      DevOp<S> ds(src, Init::logical, mis, &err);
      DevOp<D> dd(dst, Init::padding, !mis, &err);
      if (err.empty()) {
        cudaError_t e;
        if constexpr (std::is_same_v<S, F16>)
          e = myblas::widen_f16_f32(ds.get(), s.ld, dd.get(), ldd, s.m, s.n, nullptr);
        else
          e = myblas::round_f32_f16(ds.get(), s.ld, dd.get(), ldd, s.m, s.n, nullptr);
        const cudaError_t se = cudaDeviceSynchronize();
        if (e != cudaSuccess || se != cudaSuccess) err = cuda_err("launch", e != cudaSuccess ? e : se);
        else dd.download(&dst, &err);
      }
    }
    ++t->run;
    if (!err.empty()) {
      fail(t, group, w.str() + ": " + err);
      lost_context(t, w.str());
      continue;
    }
    int bad = 0;
    for (int j = 0; j < s.n; ++j)
      for (int i = 0; i < s.m; ++i) {
        const typename D::T want = D::from_f(S::to_f(src.at(i, j)));
        bad += std::memcmp(&want, &dst.at(i, j), sizeof want) != 0;
      }
    if (bad) fail(t, group, w.str() + ": " + std::to_string(bad) + " wrong elements");
    if (damaged_guards(dst)) fail(t, group, w.str() + ": padding of dst written");
  }
}

// ---- the public API ----------------------------------------------------------------------------
// The calls a user makes, on device or host operands, with the path they must take.
bool path_is(const char* want) {
  const std::string got = myblas_last_path();
  std::string w = want;
  size_t start = 0;
  while (start <= w.size()) {  // want: '|'-separated alternatives
    size_t end = w.find('|', start);
    if (end == std::string::npos) end = w.size();
    if (w.compare(start, end - start, got) == 0) return true;
    start = end + 1;
  }
  return false;
}

Outcome api_path(const char* want) {
  Outcome o;
  if (!path_is(want)) o.wrong = std::string("path ") + myblas_last_path() + ", want " + want;
  return o;
}

GemmCall api_sgemm(const char* want) {
  return [want](const GemmProblem& p) {
    const char ta = p.ta == Op::N ? 'N' : 'T', tb = p.tb == Op::N ? 'N' : 'T';
    sgemm_(&ta, &tb, &p.m, &p.n, &p.k, &p.alpha, static_cast<const float*>(p.a), &p.lda,
           static_cast<const float*>(p.b), &p.ldb, &p.beta, static_cast<float*>(p.c), &p.ldc);
    return api_path(want);
  };
}

GemmCall api_hgemm(const char* want) {
  return [want](const GemmProblem& p) {
    const char ta = p.ta == Op::N ? 'N' : 'T', tb = p.tb == Op::N ? 'N' : 'T';
    const uint16_t alpha = myblas_float_to_half(p.alpha), beta = myblas_float_to_half(p.beta);
    hgemm_(&ta, &tb, &p.m, &p.n, &p.k, &alpha, static_cast<const uint16_t*>(p.a), &p.lda,
           static_cast<const uint16_t*>(p.b), &p.ldb, &beta, static_cast<uint16_t*>(p.c), &p.ldc);
    return api_path(want);
  };
}

GemvCall api_sgemv(const char* want) {
  return [want](const GemvProblem& p) {
    const char t = p.ta == Op::N ? 'N' : 'T';
    sgemv_(&t, &p.m, &p.n, &p.alpha, p.a, &p.lda, p.x, &p.incx, &p.beta, p.y, &p.incy);
    return api_path(want);
  };
}

template <typename E>
void api_gemm(const std::string& group, const std::vector<Shape>& shapes, const std::vector<int>& trans,
              Place place, const GemmCall& call, std::mt19937_64& rng, Tally* t) {
  for (size_t s = 0; s < shapes.size(); ++s)
    for (int tr : trans)
      for (int v = 0; v < 2; ++v)
        gemm_case<E>(group, gemm_variant(shapes[s], kTrans[tr][0], kTrans[tr][1], v, int(s), kVec<E>), place, call,
                     rng, t);
}

void api_gemv(const std::string& group, const std::vector<std::pair<int, int>>& shapes, Place place,
              const GemvCall& call, std::mt19937_64& rng, Tally* t) {
  for (size_t s = 0; s < shapes.size(); ++s)
    for (char tr : {'N', 'T'})
      for (int v = 0; v < 2; ++v)
        gemv_case(group, gemv_variant(shapes[s].first, shapes[s].second, tr, v, int(s)), place, call, rng, t);
}

// alpha == 0: C := beta*C (y := beta*y) by our scaling kernel, on device C / y.
void api_scale_only(const std::string& group, const char* want, std::mt19937_64& rng, Tally* t) {
  for (float beta : {0.f, 0.5f}) {
    GemmCase c = gemm_variant({37, 19, 5}, 'N', 'T', beta == 0.f ? 0 : 1, 1, 8);
    c.alpha = 0.f;
    c.beta = beta;
    gemm_case<F32>(group, c, Place::device, api_sgemm(want), rng, t);
    gemm_case<F16>(group, c, Place::device, api_hgemm(want), rng, t);
  }
  for (char tr : {'N', 'T'}) gemv_case(group, gemv_variant(37, 19, tr, 2, 1), Place::device, api_sgemv(want), rng, t);
}

const std::vector<int> kAllTrans = {0, 1, 2, 3};

// MYBLAS_BACKEND=cublas (MYBLAS_GPU_MEMORY_BUDGET=65536, so that host arrays go through the
// pipeline in several row blocks and column panels).
void api_cublas(const std::string& g, std::mt19937_64& rng, Tally* t) {
  const char* gpu = "cublas";
  api_gemm<F32>(g, {{1, 1, 1}, {33, 17, 9}, {129, 130, 131}}, kAllTrans, Place::device, api_sgemm(gpu), rng, t);
  api_gemm<F32>(g, {{33, 17, 9}, {129, 130, 131}}, {0, 3}, Place::host, api_sgemm(gpu), rng, t);
  api_gemm<F16>(g, {{1, 1, 1}, {33, 17, 9}, {65, 66, 67}}, kAllTrans, Place::device, api_hgemm(gpu), rng, t);
  api_gemm<F16>(g, {{65, 66, 67}}, {0, 2}, Place::host, api_hgemm(gpu), rng, t);
  api_gemv(g, {{1, 1}, {129, 67}, {37, 300}}, Place::device, api_sgemv(gpu), rng, t);
  api_gemv(g, {{129, 67}}, Place::host, api_sgemv(gpu), rng, t);
  api_scale_only(g, "cublas|kernels", rng, t);
}

// MYBLAS_BACKEND=kernels: our kernels through dispatch, in place and on staged (packed) copies.
void api_kernels(const std::string& g, std::mt19937_64& rng, Tally* t) {
  const char* k = "kernels";
  api_gemm<F32>(g, {{33, 17, 9}, {5, 200, 70}, {200, 7, 600}, {129, 130, 17}}, kAllTrans, Place::device,
                api_sgemm(k), rng, t);
  api_gemm<F32>(g, {{33, 17, 9}, {5, 200, 70}}, {0, 2}, Place::host, api_sgemm(k), rng, t);
  // HGEMM: our kernel where the library has one for MYBLAS_BACKEND=kernels, else cuBLAS.
  api_gemm<F16>(g, {{33, 17, 9}, {65, 66, 67}}, kAllTrans, Place::device, api_hgemm("kernels|cublas"), rng, t);
  api_gemv(g, {{1, 1}, {129, 67}, {37, 300}, {2049, 5}}, Place::device, api_sgemv(k), rng, t);
  api_gemv(g, {{129, 67}}, Place::host, api_sgemv(k), rng, t);
  api_scale_only(g, k, rng, t);
}

// MYBLAS_BACKEND=auto (MYBLAS_GPU_MEMORY_BUDGET=262144): host arrays of shapes the measured
// host table sends to the GPU pipeline (SGEMM from about 182^3, HGEMM from about 45^3), cut
// into row blocks and panels by the small budget; device operands go to cuBLAS or our kernel.
void api_auto(const std::string& g, std::mt19937_64& rng, Tally* t) {
  api_gemm<F32>(g, {{200, 200, 200}}, {0}, Place::host, api_sgemm("cublas"), rng, t);
  api_gemm<F32>(g, {{255, 257, 191}}, {1, 2}, Place::host, api_sgemm("cublas"), rng, t);
  api_gemm<F32>(g, {{193, 300, 210}}, {3}, Place::host, api_sgemm("cublas"), rng, t);
  api_gemm<F16>(g, {{64, 64, 64}}, {0}, Place::host, api_hgemm("cublas"), rng, t);
  api_gemm<F16>(g, {{97, 65, 80}}, {3}, Place::host, api_hgemm("cublas"), rng, t);
  api_gemm<F32>(g, {{33, 17, 9}}, {0}, Place::device, api_sgemm("cublas|kernels"), rng, t);
  api_gemv(g, {{129, 67}}, Place::device, api_sgemv("cublas|kernels"), rng, t);
}

// HGEMM 64^3, beta == 0, on device operands whose C was never written (cudaMalloc only), then
// C copied back with cudaMemcpy: what initcheck reports for it under MYBLAS_BACKEND=cublas
// (cuBLAS's kernel writes C) and =kernels (our wgmma kernel does). The host-array pipeline's
// C tiles are such fresh buffers; the driver's other cases fill C first (guards, NaN).
void probe_hgemm_fresh_c(const std::string& g, std::mt19937_64& rng, Tally* t) {
  const int n = 64;
  std::vector<uint16_t> ha(size_t(n) * n), hb(size_t(n) * n), hc(size_t(n) * n, 0);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& x : ha) x = myblas_float_to_half(u(rng));
  for (auto& x : hb) x = myblas_float_to_half(u(rng));
  uint16_t *a = nullptr, *b = nullptr, *c = nullptr;
  const size_t bytes = ha.size() * sizeof(uint16_t);
  cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&a), bytes);
  if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void**>(&b), bytes);
  if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void**>(&c), bytes);
  if (e == cudaSuccess) e = cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    const uint16_t one = myblas_float_to_half(1.f), zero = myblas_float_to_half(0.f);
    hgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
    e = cudaDeviceSynchronize();
  }
  if (e == cudaSuccess) e = cudaMemcpy(hc.data(), c, bytes, cudaMemcpyDeviceToHost);
  double want = 0.0;  // C(0,0)
  for (int l = 0; l < n; ++l)
    want += double(myblas_half_to_float(ha[size_t(l) * n])) * myblas_half_to_float(hb[size_t(l)]);
  ++t->run;
  std::printf("%s: path %s, %s, C(0,0) %g (want %g)\n", g.c_str(), myblas_last_path(), cudaGetErrorName(e),
              double(myblas_half_to_float(hc[0])), want);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

// ---- groups ------------------------------------------------------------------------------------
struct Group {
  std::string name;
  std::function<void(const std::string&, std::mt19937_64&, Tally*)> run;
  const char* backend = nullptr;  // API groups: MYBLAS_BACKEND for their child process
  const char* budget = nullptr;   // and MYBLAS_GPU_MEMORY_BUDGET
};

// One access at the end of an allocation (sanitizer_probe.cu): what the tools report for it.
// Not checks: only run when the filter names them ("probe.").
std::function<void(const std::string&, std::mt19937_64&, Tally*)> probe(int mode) {
  return [mode](const std::string& g, std::mt19937_64&, Tally* t) {
    float got = 0.f;
    const cudaError_t e = sanitizer_probe(mode, &got);
    ++t->run;
    std::printf("%s: %s, read %g\n", g.c_str(), cudaGetErrorName(e), got);
  };
}

std::vector<Group> make_groups() {
  std::vector<Group> groups;
  for (int i = 0; i < myblas::kSgemmKernelCount; ++i) {
    const auto k = static_cast<SgemmKernel>(i);
    const GemmCall call = [k](const GemmProblem& p) {
      Outcome o;
      o.refused = myblas::sgemm_can_implement(k, p);
      if (!o.refused) o.launch = myblas::sgemm_run(k, p, nullptr);
      return o;
    };
    const std::vector<Shape> shapes = k == SgemmKernel::skinny_r16     ? skinny_shapes()
                                      : k == SgemmKernel::smallk_panel || k == SgemmKernel::smallk_panel_pre
                                          ? smallk_panel_shapes()
                                      : k == SgemmKernel::smallk_ws ? smallk_ws_shapes()
                                                                       : tile_shapes(sgemm_tile(k));
    // smallk_ws reads C only on its own path (aligned operands) with beta != 0: a third variant.
    const int variants = k == SgemmKernel::smallk_ws ? 3 : 2;
    groups.push_back({std::string("sgemm.") + myblas::sgemm_kernel_name(k),
                      [call, shapes, variants](const std::string& g, std::mt19937_64& rng, Tally* t) {
                        gemm_sweep<F32>(g, shapes, call, rng, t, variants);
                      }});
  }
#ifdef SANITIZE_HGEMM_KERNELS
  for (int i = 0; i < myblas::kHgemmKernelCount; ++i) {
    const auto k = static_cast<myblas::HgemmKernel>(i);
    const GemmCall call = [k](const GemmProblem& p) {
      Outcome o;
      o.refused = myblas::hgemm_can_implement(k, p);
      if (!o.refused) o.launch = myblas::hgemm_run(k, p, nullptr);
      return o;
    };
    const std::vector<Shape> shapes = tile_shapes(hgemm_tile(k));
    groups.push_back({std::string("hgemm.") + myblas::hgemm_kernel_name(k),
                      [call, shapes](const std::string& g, std::mt19937_64& rng, Tally* t) {
                        gemm_sweep<F16>(g, shapes, call, rng, t);
                      }});
  }
#endif
  for (int i = 0; i < myblas::kSgemvKernelCount; ++i) {
    const auto k = static_cast<SgemvKernel>(i);
    const GemvCall call = [k](const GemvProblem& p) {
      Outcome o;
      if (p.alpha != 0.f) o.refused = myblas::sgemv_can_implement(k, p);
      if (!o.refused) o.launch = myblas::sgemv_run(k, p, nullptr);
      return o;
    };
    groups.push_back({std::string("sgemv.") + myblas::sgemv_kernel_name(k),
                      [call](const std::string& g, std::mt19937_64& rng, Tally* t) {
                        const auto shapes = gemv_shapes();
                        for (size_t s = 0; s < shapes.size(); ++s)
                          for (char tr : {'N', 'T'})
                            for (int v = 0; v < 2; ++v)
                              gemv_case(g, gemv_variant(shapes[s].first, shapes[s].second, tr, v, int(s)),
                                        Place::device, call, rng, t);
                        for (char tr : {'N', 'T'})
                          gemv_case(g, gemv_variant(129, 67, tr, 2, 0), Place::device, call, rng, t);
                      }});
  }
  groups.push_back({"scale.matrix_f32", scale_matrix_group<F32>});
  groups.push_back({"scale.matrix_f16", scale_matrix_group<F16>});
  groups.push_back({"scale.vector_f32", scale_vector_group});
  groups.push_back({"convert.widen_f16_f32", convert_group<F16, F32>});
  groups.push_back({"convert.round_f32_f16", convert_group<F32, F16>});
  groups.push_back({"api.cublas", api_cublas, "cublas", "65536"});
  groups.push_back({"api.kernels", api_kernels, "kernels", nullptr});
  groups.push_back({"api.auto", api_auto, "auto", "262144"});
  groups.push_back({"probe.load_last", probe(kProbeLoadLast)});
  groups.push_back({"probe.load_past_end", probe(kProbeLoadPastEnd)});
  groups.push_back({"probe.load_uninit", probe(kProbeLoadUninit)});
  groups.push_back({"probe.cp_async4_last", probe(kProbeCp4Last)});
  groups.push_back({"probe.cp_async16_src4_last", probe(kProbeCp16Src4Last)});
  groups.push_back({"probe.cp_async16_src0_last", probe(kProbeCp16Src0Last)});
  groups.push_back({"probe.hgemm64_fresh_c_cublas", probe_hgemm_fresh_c, "cublas", nullptr});
  groups.push_back({"probe.hgemm64_fresh_c_kernels", probe_hgemm_fresh_c, "kernels", nullptr});
  groups.push_back({"probe.bulk_store_copy", probe(kProbeBulkStore)});
  groups.push_back({"probe.plain_store_copy", probe(kProbeBulkStoreControl)});
  return groups;
}

// A filter part that is a whole group name selects that group only (sgemv.n_rowblock is also
// the start of sgemv.n_rowblock_split); any other part selects the groups whose names hold it.
bool selected(const std::string& name, const std::string& filter, const std::vector<Group>& groups) {
  if (filter.empty()) return name.compare(0, 6, "probe.") != 0;
  size_t start = 0;
  while (start <= filter.size()) {
    size_t end = filter.find(',', start);
    if (end == std::string::npos) end = filter.size();
    const std::string part = filter.substr(start, end - start);
    bool whole_name = false;
    for (const Group& g : groups) whole_name = whole_name || g.name == part;
    if (!part.empty() && (whole_name ? name == part : name.find(part) != std::string::npos)) return true;
    start = end + 1;
  }
  return false;
}

// Runs one group in a child process of this program (a CUDA error that ends the context, as
// memcheck's do, then ends only that group), API groups with their backend setting and no
// other MYBLAS_* variable but the seed. A child still running `hard_limit` seconds after its
// start is killed. Returns the child's exit status (124 when killed for time).
int spawn_group(const Group& g, uint64_t seed, int hard_limit) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "MYBLAS_", 7) != 0) env.push_back(*e);
  if (const char* v = std::getenv("MYBLAS_SANITIZE_GROUP_SECONDS"))
    env.push_back(std::string("MYBLAS_SANITIZE_GROUP_SECONDS=") + v);
  if (g.backend) env.push_back(std::string("MYBLAS_BACKEND=") + g.backend);
  if (g.budget) env.push_back(std::string("MYBLAS_GPU_MEMORY_BUDGET=") + g.budget);
  env.push_back("MYBLAS_TEST_SEED=" + std::to_string(seed));
  env.push_back("MYBLAS_SANITIZE_CHILD=" + g.name);
  std::vector<char*> envp;
  for (std::string& s : env) envp.push_back(&s[0]);
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe", arg0 = "sanitize_kernels", arg1 = g.name;
  char* argv[] = {&arg0[0], &arg1[0], nullptr};
  std::fflush(stdout);
  pid_t pid;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) {
    std::perror("posix_spawn");
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, hard_limit > 0 ? WNOHANG : 0);
    if (r == pid) break;
    if (r < 0) return 1;
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(hard_limit)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      std::printf("group %s: killed after %d s\n", g.name.c_str(), hard_limit);
      return 124;
    }
    usleep(100 * 1000);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

uint64_t group_seed(uint64_t seed, const std::string& name) {
  uint64_t h = seed;
  for (char c : name) h = h * 1099511628211ull ^ uint64_t(static_cast<unsigned char>(c));
  return h;
}

// In the child: the group's cases, one line of results. Exit status 0 all passed, 1 a case
// failed, 3 the group stopped early (time limit or lost context) with no failure.
int run_group(const Group& g, uint64_t seed) {
  std::printf("begin group %s\n", g.name.c_str());
  std::fflush(stdout);
  std::mt19937_64 rng(group_seed(seed, g.name));
  Tally t;
  if (const char* v = std::getenv("MYBLAS_SANITIZE_GROUP_SECONDS"))
    if (std::atoi(v) > 0) t.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(std::atoi(v));
  g.run(g.name, rng, &t);
  std::printf("group %-32s %4d cases run, %3d refused, %d failed%s%s\n", g.name.c_str(), t.run, t.refused,
              t.failed, t.stop ? "; STOPPED: " : "", t.why_stopped.c_str());
  std::fflush(stdout);
  // Destroys the context so that memcheck --leak-check full reports device memory the kernel
  // calls left allocated. (API groups keep the library's caches and cuBLAS handles for the life
  // of the process, by design; their leak reports are those caches.)
  if (!g.backend) cudaDeviceReset();
  return t.failed ? 1 : t.stop ? 3 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string filter;
  bool list = false, probe_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--list")) list = true;
    else if (!std::strcmp(argv[i], "--probe")) probe_only = true;
    else filter = argv[i];
  }
  const std::vector<Group> groups = make_groups();
  if (list) {  // the groups the filter selects (all, probes included, without one)
    for (const Group& g : groups)
      if (filter.empty() || selected(g.name, filter, groups)) std::printf("%s\n", g.name.c_str());
    return 0;
  }
  int devices = 0;
  const cudaError_t de = cudaGetDeviceCount(&devices);
  if (de != cudaSuccess || devices == 0) {
    std::printf("[  SKIPPED ] sanitize_kernels needs a CUDA device: %s\n",
                de != cudaSuccess ? cudaGetErrorString(de) : "none found");
    return 0;
  }
  if (probe_only) {  // for the script: is there a device to run on
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) std::printf("device 0: %s\n", prop.name);
    return 0;
  }
  const uint64_t seed = mbtest::test_seed();
  if (const char* child = std::getenv("MYBLAS_SANITIZE_CHILD")) {  // one group, in this process
    for (const Group& g : groups)
      if (g.name == child) {
        if (g.backend && !myblas_gpu_available()) {
          std::printf("FAIL %s: libmyblas found no usable GPU\n", child);
          return 1;
        }
        return run_group(g, seed);
      }
    std::printf("unknown group %s\n", child);
    return 2;
  }
  // The parent runs no kernel itself: every group in a child process.
  std::printf("sanitize_kernels: seed %" PRIu64 " (MYBLAS_TEST_SEED replays), filter '%s'\n", seed, filter.c_str());
  int soft = 0;
  if (const char* v = std::getenv("MYBLAS_SANITIZE_GROUP_SECONDS")) soft = std::atoi(v);
  const int hard = soft > 0 ? 2 * soft + 60 : 0;
  int ran = 0, failed = 0, incomplete = 0;
  for (const Group& g : groups) {
    if (!selected(g.name, filter, groups)) continue;
    ++ran;
    const int rc = spawn_group(g, seed, hard);
    if (rc == 3 || rc == 124) {
      ++incomplete;
    } else if (rc) {
      std::printf("group %s: exit status %d\n", g.name.c_str(), rc);
      ++failed;
    }
  }
  std::printf("sanitize_kernels: %d groups, %d failed groups, %d incomplete groups\n", ran, failed, incomplete);
  if (ran == 0) {
    std::printf("no group matches '%s' (see --list)\n", filter.c_str());
    return 2;
  }
  return failed ? 1 : incomplete ? 3 : 0;
}
