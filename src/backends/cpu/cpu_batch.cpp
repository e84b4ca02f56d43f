// The CPU path of the batched GEMM and GEMV (core/batch.h).
//  - The CPU BLAS's own cblas_?gemm_batch / cblas_?gemm_batch_strided where it exports them
//    (OpenBLAS 0.3.28 / 0.3.31 on; not Debian 12's 0.3.21), one group at a time.
//  - Else the products of a group spread over the copy threads (core/thread_pool.h), each one a
//    call of the CPU BLAS's single-matrix routine on one thread. OpenBLAS would itself spread a
//    product of 64^3 or more over all its threads, which for a batch of small products costs more
//    than it gains and makes the concurrent calls wait for each other: while our threads run the
//    batch, OpenBLAS is held to one thread (openblas_set_num_threads; its previous count is
//    restored after). One product per thread beats one product over all threads up to large
//    sizes (each thread's product stays in its own caches; no thread waits for the others at the
//    end of each product), so only groups of fewer products than twice the threads, of products of
//    2^30 multiply-adds or more, or of fewer than 2^21 multiply-adds in all, run one product after
//    another (on OpenBLAS's threads).
//  - Groups whose alpha is 0 (or k is 0) only scale C, on the calling threads, never reading A or B.
//  - binary16 products go through the single-matrix HGEMM CPU path; operands in device memory
//    (a GPU path that failed) are staged product by product.
#include <algorithm>
#include <atomic>
#include <complex>
#include <mutex>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_blas.h"
#include "core/elem.h"
#include "core/log.h"
#include "myblas.h"
#include "core/thread_pool.h"

namespace myblas {

namespace {

constexpr double kSerialMacs = double(1 << 30);  // a product this large runs alone on every core
// A group this small in all (multiply-adds over its products) runs on the calling thread: waking
// the copy threads and holding OpenBLAS to one thread would cost more than they save.
constexpr double kParallelGroupMacs = double(1 << 21);
// Products this small run one after another on the calling thread whatever their number: 10^4
// FP32 products of 8^3 and of 16^3 took 13.8 and 15.5 ms spread over 16 threads and 4.2 and 7.8 ms
// as a loop of OpenBLAS calls (its single-thread calls from many threads at once contend inside
// it); from 24^3 on the threads won (16.5 against 23.8 ms) (bench/results/h100-batched-host-2026-11-28-run3.txt).
constexpr double kParallelProductMacs = 8192;

// Holds OpenBLAS to one thread while a batch's products run on our threads.
class OneThreadEach {
 public:
  OneThreadEach() {
    const CpuBlas& cb = cpu_blas();
    if (!cb.set_threads || !cb.get_threads) return;
    std::lock_guard<std::mutex> lock(mutex());
    if (depth()++ == 0) {
      saved() = cb.get_threads();
      cb.set_threads(1);
    }
    active_ = true;
  }
  ~OneThreadEach() {
    if (!active_) return;
    std::lock_guard<std::mutex> lock(mutex());
    if (--depth() == 0) cpu_blas().set_threads(saved());
  }
  OneThreadEach(const OneThreadEach&) = delete;
  OneThreadEach& operator=(const OneThreadEach&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static int& depth() {
    static int d = 0;
    return d;
  }
  static int& saved() {
    static int s = 1;
    return s;
  }
  bool active_ = false;
};

GemmProblem half_item(const BlasProblem& q) {
  GemmProblem g;
  g.routine = Routine::hgemm;
  g.ta = q.ta == 'N' ? Op::N : Op::T;
  g.tb = q.tb == 'N' ? Op::N : Op::T;
  g.m = int(q.m), g.n = int(q.n), g.k = int(q.k);
  g.alpha = float(q.alpha.re), g.beta = float(q.beta.re);
  g.a = q.a, g.b = q.b, g.c = q.c;
  g.lda = int(q.lda), g.ldb = int(q.ldb), g.ldc = int(q.ldc);
  g.mem_a = q.mem_a, g.mem_b = q.mem_b, g.mem_c = q.mem_c;
  g.dev_a = q.dev_a, g.dev_b = q.dev_b, g.dev_c = q.dev_c;
  g.device = q.device;
  return g;
}

// One product wherever its operands live; false only when a device operand could not be staged.
bool run_item(const BatchProblem& p, const BatchGroup& g, int64_t i, std::string* why) {
  BlasProblem q = p.item(g, i);
  if (p.mem != Mem::host) {
    q.mem_a = q.mem_b = q.mem_c = p.mem;
    q.dev_a = q.dev_b = q.dev_c = q.device = p.device;
  }
  if (p.type == Dtype::h) return cpu_gemm(half_item(q), why);
  if (p.mem != Mem::host) return cpu_blas_problem(q, why);
  cpu_host_item(q);
  return true;
}

// The CPU BLAS's cblas_?gemm_batch_strided / cblas_?gemm_batch for one gemm group of host
// operands (column-major, one group); false when it has none or the sizes exceed its int.
template <class T>
bool library_batch(const BatchProblem& p, const BatchGroup& g) {
  const int t = int(p.type);
  const CpuBlas& cb = cpu_blas();
  auto fits = [](int64_t v) { return v >= 0 && v <= 0x7fffffff; };
  if (!fits(g.m) || !fits(g.n) || !fits(g.k) || !fits(g.lda) || !fits(g.ldb) || !fits(g.ldc) || !fits(g.count))
    return false;
  const int m = int(g.m), n = int(g.n), k = int(g.k), lda = int(g.lda), ldb = int(g.ldb), ldc = int(g.ldc);
  const int count = int(g.count);
  const T alpha = from_scalar<T>(g.alpha), beta = from_scalar<T>(g.beta);
  auto tr = [](char c) { return c == 'N' ? CblasNoTrans : c == 'T' ? CblasTrans : CblasConjTrans; };
  const CBLAS_TRANSPOSE ta = tr(g.ta), tb = tr(g.tb);
  if (!g.listed() && cb.gemm_batch_strided[t] && fits(g.stride_a) && fits(g.stride_b) && fits(g.stride_c)) {
    const CpuBlas::Call in_call;
    if constexpr (kComplex<T>) {
      reinterpret_cast<void (*)(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, const void*,
                                const void*, int, int, const void*, int, int, const void*, void*, int, int, int)>(
          cb.gemm_batch_strided[t])(CblasColMajor, ta, tb, m, n, k, &alpha, g.a, lda, int(g.stride_a), g.b, ldb,
                                    int(g.stride_b), &beta, g.c, ldc, int(g.stride_c), count);
    } else {
      reinterpret_cast<void (*)(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, T, const T*, int, int,
                                const T*, int, int, T, T*, int, int, int)>(cb.gemm_batch_strided[t])(
          CblasColMajor, ta, tb, m, n, k, alpha, static_cast<const T*>(g.a), lda, int(g.stride_a),
          static_cast<const T*>(g.b), ldb, int(g.stride_b), beta, static_cast<T*>(g.c), ldc, int(g.stride_c), count);
    }
    return true;
  }
  if (!cb.gemm_batch[t]) return false;
  std::vector<const void*> as(size_t(g.count)), bs(size_t(g.count));
  std::vector<void*> cs(size_t(g.count));
  for (int64_t i = 0; i < g.count; ++i) {
    as[size_t(i)] = g.a_at(i, sizeof(T));
    bs[size_t(i)] = g.b_at(i, sizeof(T));
    cs[size_t(i)] = g.c_at(i, sizeof(T));
  }
  const CpuBlas::Call in_call;
  reinterpret_cast<void (*)(CBLAS_LAYOUT, const CBLAS_TRANSPOSE*, const CBLAS_TRANSPOSE*, const int*, const int*,
                            const int*, const void*, const void**, const int*, const void**, const int*, const void*,
                            void**, const int*, int, const int*)>(cb.gemm_batch[t])(
      CblasColMajor, &ta, &tb, &m, &n, &k, &alpha, as.data(), &lda, bs.data(), &ldb, &beta, cs.data(), &ldc, 1, &count);
  return true;
}

bool library_batch(const BatchProblem& p, const BatchGroup& g) {
  if (p.family != Family::gemm || p.mem != Mem::host || g.scale_only(p.family)) return false;
  switch (p.type) {
    case Dtype::s: return library_batch<float>(p, g);
    case Dtype::d: return library_batch<double>(p, g);
    case Dtype::c: return library_batch<std::complex<float>>(p, g);
    case Dtype::z: return library_batch<std::complex<double>>(p, g);
    case Dtype::h: break;
  }
  return false;
}

}  // namespace

bool cpu_batch(const BatchProblem& p, std::string* why) {
  if (p.speculative()) {  // (groups taken as strided before their lists were checked: made final first)
    BatchProblem settled = p;
    settle_speculation(&settled);
    return cpu_batch(settled, why);
  }
  for (const BatchGroup& g : p.groups) {
    if (library_batch(p, g)) continue;
    const double macs = double(g.m) * double(g.n) * double(p.family == Family::gemm ? g.k : 1);
    const size_t threads = std::max<size_t>(1, pool_threads());
    if (p.mem != Mem::host || g.count < int64_t(2 * threads) || macs >= kSerialMacs || macs < kParallelProductMacs ||
        macs * double(g.count) < kParallelGroupMacs) {
      if (p.mem == Mem::host && cpu_host_gemm_products(p, g, 0, g.count)) continue;
      for (int64_t i = 0; i < g.count; ++i)
        if (!run_item(p, g, i, why)) return false;
      continue;
    }
    // Host operands: chunks of products over the copy threads, a few chunks per thread.
    const int64_t chunk = std::max<int64_t>(1, g.count / int64_t(4 * threads));
    const size_t chunks = size_t((g.count + chunk - 1) / chunk);
    OneThreadEach one_thread;
    parallel_for(chunks, [&](size_t c) {
      const int64_t i0 = int64_t(c) * chunk, i1 = std::min(g.count, i0 + chunk);
      if (cpu_host_gemm_products(p, g, i0, i1)) return;
      std::string ignored;  // host operands: a product cannot fail
      for (int64_t i = i0; i < i1; ++i) run_item(p, g, i, &ignored);
    });
  }
  return true;
}

}  // namespace myblas
