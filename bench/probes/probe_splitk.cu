// probe_splitk: where the split-k cluster HGEMM kernel's time goes on skinny shapes. For each
// shape (binary16, NN, beta 0, device pointers), the device time per call of
//   cublas      cublasGemmEx (FP16 in and out, FP32 compute)
//   splitk-rC   the split-k kernel with C blocks per cluster (C = 1, 2, 4, 8; 0 = its own choice)
//   wgmma       the wgmma kernel
//   stream      the streaming kernel (skinny_stream.cu), where it takes the shape
//   read        a read of B alone (bench/probes/read_ceiling.cu): the memory floor of the product
// timed two ways: "loop" = 50 calls back to back between two CUDA events (per call: the GPU's
// throughput, launch gaps hidden), "one" = one call between two events after a synchronise
// (median of 30), which adds the host's launch path. Shapes: m x 4096 x 4096 for m = 16, 64, 256
// and 4096 x 16 x 4096, 1024^3.
//   probe_splitk --stream    the streaming kernel's two roles beside cuBLAS: m x 4096 x 4096 NN and
//                            4096 x m x 4096 TN for m = 16, 32, 64, with 4 column groups a warp
//                            and (16 rows) 2 (streamG-NN, streamG-TN; for ncu: -k regex:skinny_stream)
//   probe_splitk --stream --once   each kernel run once, untimed
//   probe_splitk --wgmma     the wgmma split-k kernel (wgmma_splitk.cu) beside cuBLAS and the other
//                            skinny kernels: m x 4096 x 4096 and 4096 x m x 4096 for m = 16..256 (96, 192,
//                            200: beta 0 only),
//                            A 'N' and 'T' (B 'N'), beta 0 and 0.5, its own choice (wsplit) and its
//                            64- and 128-row tiles (wsplit64, wsplit128), and at m = 64 its ranks
//                            forced to 2, 3, 4 (wsplitR-rC); [--once] as above
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_util.h"  // CK, CB, the run's header lines
#include "kernels/hgemm.h"
#include "kernels/hgemm/common.cuh"
#include "probes/read_ceiling.h"


namespace {

__global__ void fill(__half* x, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    x[i] = __float2half(float(int(h % 2001u) - 1000) / 1000.f);
  }
}

bool g_once = false;  // --once: each kernel run once, untimed (for a profiler)

template <class F>
void time_it(const char* name, int m, int n, int k, F run) {
  if (g_once) {
    run();
    CK(cudaDeviceSynchronize());
    std::printf("%-12s %5d x %5d x %5d  ran once\n", name, m, n, k);
    return;
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int w = 0; w < 5; ++w) run();
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(e0));
  for (int i = 0; i < 50; ++i) run();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  const double loop = ms * 1000.0 / 50;
  std::vector<double> one;
  for (int i = 0; i < 30; ++i) {
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    run();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    one.push_back(ms * 1000.0);
  }
  std::sort(one.begin(), one.end());
  std::printf("%-12s %5d x %5d x %5d  loop %8.2f us  one %8.2f us  %7.1f TFLOP/s(loop)\n", name, m, n, k, loop,
              one[one.size() / 2], 2.0 * m * n * double(k) / loop / 1e6);
  CK(cudaGetLastError());
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("# probe_splitk (rev %s): HGEMM kernels on skinny shapes beside cuBLAS, per call\n", MYBLAS_GIT_REV);
  bench::print_device_and_command(argc, argv);
  cublasHandle_t h;
  CB(cublasCreate(&h));
  struct S { int m, n, k; };
  const S shapes[] = {{16, 4096, 4096}, {64, 4096, 4096}, {256, 4096, 4096}, {4096, 16, 4096}, {1024, 1024, 1024}};
  const size_t most = size_t(4096) * 4096;
  __half *a, *b, *c;
  CK(cudaMalloc(&a, most * 2));
  CK(cudaMalloc(&b, most * 2));
  CK(cudaMalloc(&c, most * 2));
  float* sink;
  CK(cudaMalloc(&sink, bench::read_ceiling_blocks(most / 2) * 4));
  fill<<<1024, 256>>>(a, most, 1u);
  fill<<<1024, 256>>>(b, most, 2u);
  CK(cudaDeviceSynchronize());
  g_once = argc > 2 && std::string(argv[2]) == "--once";
  if (argc > 1 && std::string(argv[1]) == "--wgmma") {
    for (int role = 1; role <= 2; ++role)
      for (char ta : {'N', 'T'})
        for (int r : {16, 32, 64, 96, 128, 192, 200, 256})
          for (float beta : {0.f, 0.5f}) {
            if (beta != 0.f && (r == 96 || r == 192 || r == 200)) continue;
            myblas::GemmProblem p;
            p.routine = myblas::Routine::hgemm;
            p.ta = ta == 'N' ? myblas::Op::N : myblas::Op::T;
            p.tb = myblas::Op::N;
            p.m = role == 1 ? r : 4096, p.n = role == 1 ? 4096 : r, p.k = 4096;
            p.lda = ta == 'N' ? p.m : p.k, p.ldb = p.k, p.ldc = p.m;
            p.alpha = 1.f, p.beta = beta;
            p.a = a, p.b = b, p.c = c;
            p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
            const float one = 1.f;
            char tag[16];
            std::snprintf(tag, sizeof tag, "%cN-b%g", ta, double(beta));
            std::string name = std::string("cublas-") + tag;
            time_it(name.c_str(), p.m, p.n, p.k, [&] {
              CB(cublasGemmEx(h, ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, p.m, p.n, p.k, &one, a, CUDA_R_16F,
                              p.lda, b, CUDA_R_16F, p.ldb, &p.beta, c, CUDA_R_16F, p.ldc, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
            });
            name = std::string("wsplit-") + tag;
            time_it(name.c_str(), p.m, p.n, p.k, [&] { CK(myblas::hgemm_detail::launch_wgmma_splitk(p, nullptr)); });
            for (int rows : {64, 128}) {
              if (r != 64 && r != 256) continue;
              name = std::string("wsplit") + std::to_string(rows) + "-" + tag;
              time_it(name.c_str(), p.m, p.n, p.k, [&] { CK(myblas::hgemm_detail::launch_wgmma_splitk(p, nullptr, 0, rows)); });
            }
            if (beta != 0.f) continue;
            if (r > 64) continue;
            const int tm = role == 1 ? 64 : 128, tn = role == 1 ? 128 : 64;
            name = std::string("splitk-") + tag;
            time_it(name.c_str(), p.m, p.n, p.k, [&] { CK(myblas::hgemm_detail::launch_splitk(p, tm, tn, nullptr)); });
            if (!myblas::hgemm_can_implement(myblas::HgemmKernel::skinny_stream, p)) {
              name = std::string("stream-") + tag;
              time_it(name.c_str(), p.m, p.n, p.k, [&] { CK(myblas::hgemm_run(myblas::HgemmKernel::skinny_stream, p, nullptr)); });
            }
            if (r == 64 && ta == 'N')
              for (int rows : {64, 128})
                for (int ranks : {2, 3, 4}) {
                  char rn[32];
                  std::snprintf(rn, sizeof rn, "wsplit%d-r%d", rows, ranks);
                  time_it(rn, p.m, p.n, p.k, [&] { CK(myblas::hgemm_detail::launch_wgmma_splitk(p, nullptr, ranks, rows)); });
                }
          }
    const size_t big = size_t(4096) * 4096;
    time_it("read-big", 64, 4096, 4096, [&] { CK(bench::read_ceiling(reinterpret_cast<const float*>(b), big / 2, sink, nullptr)); });
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--stream") {
    for (int role = 1; role <= 2; ++role)
      for (int r : {16, 32, 64}) {
        myblas::GemmProblem p;
        p.routine = myblas::Routine::hgemm;
        p.ta = role == 1 ? myblas::Op::N : myblas::Op::T;
        p.tb = myblas::Op::N;
        p.m = role == 1 ? r : 4096, p.n = role == 1 ? 4096 : r, p.k = 4096;
        p.lda = role == 1 ? p.m : p.k, p.ldb = p.k, p.ldc = p.m;
        p.alpha = 1.f, p.beta = 0.f;
        p.a = a, p.b = b, p.c = c;
        p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
        const float one = 1.f, zero = 0.f;
        const cublasOperation_t ta = role == 1 ? CUBLAS_OP_N : CUBLAS_OP_T;
        time_it(role == 1 ? "cublas-NN" : "cublas-TN", p.m, p.n, p.k, [&] {
          CB(cublasGemmEx(h, ta, CUBLAS_OP_N, p.m, p.n, p.k, &one, a, CUDA_R_16F, p.lda, b, CUDA_R_16F, p.ldb, &zero,
                          c, CUDA_R_16F, p.ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        });
        if (const char* no = myblas::hgemm_can_implement(myblas::HgemmKernel::skinny_stream, p))
          std::printf("# stream refuses %d x %d x %d: %s\n", p.m, p.n, p.k, no);
        else
          for (int groups : {4, 2}) {
            if (groups == 2 && r > 16) continue;  // (two groups only up to 16 rows)
            char name[32];
            std::snprintf(name, sizeof name, "stream%d-%s", groups, role == 1 ? "NN" : "TN");
            time_it(name, p.m, p.n, p.k, [&] { CK(myblas::hgemm_detail::launch_stream(p, nullptr, groups)); });
          }
      }
    return 0;
  }
  for (const S& s : shapes) {
    myblas::GemmProblem p;
    p.routine = myblas::Routine::hgemm;
    p.ta = p.tb = myblas::Op::N;
    p.m = s.m, p.n = s.n, p.k = s.k;
    p.lda = s.m, p.ldb = s.k, p.ldc = s.m;
    p.alpha = 1.f, p.beta = 0.f;
    p.a = a, p.b = b, p.c = c;
    p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
    const float one = 1.f, zero = 0.f;
    time_it("cublas", s.m, s.n, s.k, [&] {
      CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &one, a, CUDA_R_16F, s.m, b, CUDA_R_16F, s.k, &zero,
                      c, CUDA_R_16F, s.m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    });
    const int tm = s.m <= s.n ? 64 : 128, tn = s.m <= s.n ? 128 : 64;
    for (int r : {0, 1, 2, 4, 8}) {
      char name[32];
      std::snprintf(name, sizeof name, "splitk-r%d", r);
      time_it(name, s.m, s.n, s.k, [&] { CK(myblas::hgemm_detail::launch_splitk(p, tm, tn, nullptr, r)); });
    }
    time_it("wgmma", s.m, s.n, s.k, [&] { CK(myblas::hgemm_run(myblas::HgemmKernel::wgmma_tma, p, nullptr)); });
    if (!myblas::hgemm_can_implement(myblas::HgemmKernel::skinny_stream, p))
      time_it("stream", s.m, s.n, s.k, [&] { CK(myblas::hgemm_run(myblas::HgemmKernel::skinny_stream, p, nullptr)); });
    const size_t big = size_t(s.m <= s.n ? s.k : s.m) * (s.m <= s.n ? s.n : s.k);  // the large operand, halves
    time_it("read-big", s.m, s.n, s.k, [&] { CK(bench::read_ceiling(reinterpret_cast<const float*>(b), big / 2, sink, nullptr)); });
  }
  return 0;
}
