// probe_batch_pass: the host time of the checks a pointer-array batch call makes before anything
// runs (core/batch.h), called directly, by list length: listed_as_strided (the pass over the
// three pointer lists) and batch_outputs_overlap (the output check, on the strided group it makes).
// Lists built as a program builds them over one allocation per operand (never dereferenced).
// Median of 41 calls after 3 warm-ups; MYBLAS_COPY_THREADS sets the pool's size as in the library.
//   probe_batch_pass [count...]     (default 4096 16384 32768 131072 262144 524288)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/batch.h"

namespace {
using clk = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> counts;
  for (int i = 1; i < argc; ++i) counts.push_back(std::atoll(argv[i]));
  if (counts.empty()) counts = {4096, 16384, 32768, 131072, 262144, 524288};
  const char* threads = std::getenv("MYBLAS_COPY_THREADS");
  std::printf("# probe_batch_pass: MYBLAS_COPY_THREADS=%s; median of 41 calls, ns\n", threads ? threads : "(default)");
  std::printf("count,list_bytes,listed_as_strided_ns,outputs_overlap_ns,pass_gbps\n");
  const int64_t n = 16, per = n * n;
  for (int64_t count : counts) {
    std::vector<const void*> a(static_cast<size_t>(count)), b(static_cast<size_t>(count));
    std::vector<void*> c(static_cast<size_t>(count));
    const uintptr_t base_a = uintptr_t(1) << 40, base_b = uintptr_t(2) << 40, base_c = uintptr_t(3) << 40;
    for (int64_t i = 0; i < count; ++i) {
      a[size_t(i)] = reinterpret_cast<const void*>(base_a + uintptr_t(i * per * 4));
      b[size_t(i)] = reinterpret_cast<const void*>(base_b + uintptr_t(i * per * 4));
      c[size_t(i)] = reinterpret_cast<void*>(base_c + uintptr_t(i * per * 4));
    }
    std::vector<double> pass, check;
    for (int rep = -3; rep < 41; ++rep) {
      myblas::BatchProblem p;
      p.family = myblas::Family::gemm;
      p.type = myblas::Dtype::s;
      myblas::BatchGroup g;
      g.m = g.n = g.k = n;
      g.lda = g.ldb = g.ldc = n;
      g.alpha.re = 1;
      g.count = count;
      g.a_list = a.data(), g.b_list = b.data(), g.c_list = c.data();
      p.groups.push_back(g);
      const auto t0 = clk::now();
      const bool stepped = myblas::listed_as_strided(&p.groups.back(), p.family, 4);
      const auto t1 = clk::now();
      const bool meet = myblas::batch_outputs_overlap(p);
      const auto t2 = clk::now();
      if (!stepped || meet) {
        std::printf("# unexpected: stepped %d overlap %d\n", int(stepped), int(meet));
        return 1;
      }
      if (rep >= 0) {
        pass.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
        check.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count());
      }
    }
    const double ns = median(pass), bytes = 24.0 * double(count);
    std::printf("%lld,%.0f,%.0f,%.0f,%.1f\n", (long long)count, bytes, ns, median(check), bytes / ns);
  }
  return 0;
}
