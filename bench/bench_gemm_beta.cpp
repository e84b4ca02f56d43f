// bench_gemm_beta: tensor-core GEMMs with 16-bit inputs beside raw cublasGemmEx with the same
// beta, in one process, on device pointers.
//
// HGEMM (binary16 A, B and C, FP32 accumulation), for beta 0, 0.5 and 1:
//   cublas-raw   cublasGemmEx, CUDA_R_16F in and out, CUBLAS_COMPUTE_32F, default math: the anchor
//                (it rounds alpha*op(A)*op(B) to binary16 before adding beta*C: not once-rounded)
//   cublas-raw-sync  the same call and a cudaStreamSynchronize, as a default-stream libmyblas
//                call returns: auto's fair anchor (t(cublas-raw-sync) / t(auto) is the library's
//                own cost; ratio_vs_raw of cublas-raw-sync is what the synchronise costs)
//   cublas-once  the library's cuBLAS path for beta != 0 (cublasGemmEx writing FP32 scratch with
//                beta = 0, then one kernel adding beta*C and rounding once); beta = 0 is cublas-raw
//   kernel       our wgmma kernel called directly (myblas_kernels), once-rounded
//   splitk       our split-k cluster kernel called directly (shapes with m or n <= 1024), once-rounded
//   wsplit       our wgmma split-k kernel called directly (shapes with m or n <= 256), once-rounded
//   stream       our streaming kernel called directly (m <= 64 with B 'N', n <= 64 with A 'T'), once-rounded
//   auto         hgemm_ through libmyblas (whatever dispatch picks; the path is printed)
//   cublas-once-sync, kernel-sync, ...  those paths and a cudaStreamSynchronize: auto's anchors on
//                equal terms when it takes them (t(X-sync) / t(auto:X) is the library's own cost)
// sbgemm / shgemm (bfloat16 / binary16 A and B, FP32 C), for beta 0 and 1:
//   cublas-raw   cublasGemmEx, CUDA_R_16BF / CUDA_R_16F in, CUDA_R_32F out, CUBLAS_COMPUTE_32F
//   kernel       our wgmma kernel called directly
//   splitk       our split-k cluster kernel called directly (m or n <= 1024)
//   kernel-sync  the kernel and a cudaStreamSynchronize (auto's anchor when it takes the kernel)
//   auto         sbgemm_ / gemm_f16f16f32_ through libmyblas
// Every path is verified first against cublas-raw on the same inputs (set 0, beta 0.5 for HGEMM,
// 1 for the others; the -sync variants run their base's call and share its verdict): scaled difference |got - ref| / (|ref| + sqrt(k)) below 2^-9 (HGEMM: two
// binary16 roundings apart at most) or 2^-16 (FP32 C). Then the paths are timed taking turns: 2
// warm-up rounds, then --reps rounds (default 15) of one call of each path, in an order rotated
// every round, each call between two CUDA events, operand sets rotated over >= 256 MiB; the
// median per path, and ratio = t(cublas-raw) / t(path) (> 1: faster than raw cuBLAS).
// Output: CSV rows routine,path,trans,m,n,k,beta,time_us,tflops,ratio_vs_raw (auto's row names
// the path it took as auto:<path>), '#' header lines first.
// --shapes=a,b: square (1024..8192^3), smallk (m = n = 4096, 8192; k = 64..512), skinny (m or n
// = 16..256 at 4096 x 4096, NT, TN, TT at 64, TN with n = 16, 32), skinny2 (shapes between and
// around skinny's rows: a side of 24, 48, 96, 200 at 4096 x 4096, and 64 or 256 with the long side
// or k 2048 or 8192), trans (NT, TN, TT at 4096^3); default all.
// --routines=a,b: hgemm, sbgemm, shgemm; default all.
// --max-dim=N: only shapes whose m, n and k are all <= N.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "myblas.h"
#include "kernels/hgemm.h"
#include "kernels/scale.h"

#include "bench_util.h"

namespace {

using myblas::Routine;
int g_reps = 15;
int g_max_dim = 1 << 30;
bool g_failed = false;

struct Shape {
  char ta, tb;
  int m, n, k;
};

const char* rname(Routine r) { return r == Routine::hgemm ? "hgemm" : r == Routine::sbgemm ? "sbgemm" : "shgemm"; }

void bench_shape(cublasHandle_t h, Routine r, const Shape& s, const std::vector<float>& betas,
                 const bench::RandomSource<__half>& src16, const bench::RandomSource<__nv_bfloat16>& srcbf,
                 const bench::RandomSource<float>& src32) {
  const bool c32 = r != Routine::hgemm;
  const size_t es_c = c32 ? 4 : 2;
  const int ar = s.ta == 'N' ? s.m : s.k, br = s.tb == 'N' ? s.k : s.n;
  const size_t na = size_t(s.m) * s.k, nb = size_t(s.k) * s.n, nc = size_t(s.m) * s.n;
  auto up = [](size_t bytes) { return (bytes + 255) / 256 * 256; };
  const size_t per = up(na * 2) + up(nb * 2) + up(nc * es_c);
  const int nsets = int(std::max<size_t>(2, std::min<size_t>(64, (bench::kRotateBytes + per - 1) / per)));
  char* base;
  CK(cudaMalloc(&base, per * nsets));
  auto A = [&](int i) { return base + per * i; };
  auto B = [&](int i) { return base + per * i + up(na * 2); };
  auto C = [&](int i) { return base + per * i + up(na * 2) + up(nb * 2); };
  for (int i = 0; i < nsets; ++i) {
    const size_t salt = size_t(i) * 131 + size_t(s.m) * 3 + s.n + s.k;
    if (r == Routine::sbgemm) {
      srcbf.fill(reinterpret_cast<__nv_bfloat16*>(A(i)), na, salt);
      srcbf.fill(reinterpret_cast<__nv_bfloat16*>(B(i)), nb, salt + 1);
    } else {
      src16.fill(reinterpret_cast<__half*>(A(i)), na, salt);
      src16.fill(reinterpret_cast<__half*>(B(i)), nb, salt + 1);
    }
    if (c32) src32.fill(reinterpret_cast<float*>(C(i)), nc, salt + 2);
    else src16.fill(reinterpret_cast<__half*>(C(i)), nc, salt + 2);
  }
  float* scratch = nullptr;  // cublas-once's FP32 result
  if (!c32) CK(cudaMalloc(&scratch, nc * 4));
  char *c0, *cref, *cgot;  // set 0's C kept, the reference result, a path's result
  CK(cudaMalloc(&c0, nc * es_c));
  CK(cudaMalloc(&cref, nc * es_c));
  CK(cudaMalloc(&cgot, nc * es_c));
  CK(cudaMemcpy(c0, C(0), nc * es_c, cudaMemcpyDeviceToDevice));
  const cublasOperation_t oa = s.ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t ob = s.tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cudaDataType tin = r == Routine::sbgemm ? CUDA_R_16BF : CUDA_R_16F;
  const cudaDataType tout = c32 ? CUDA_R_32F : CUDA_R_16F;
  const float alpha = 1.f;

  struct Path {
    std::string name;
    std::function<void(const void*, const void*, void*, float)> run;
  };
  std::vector<Path> paths;
  paths.push_back({"cublas-raw", [&](const void* a, const void* b, void* c, float beta) {
                     CB(cublasGemmEx(h, oa, ob, s.m, s.n, s.k, &alpha, a, tin, ar, b, tin, br, &beta, c, tout, s.m,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
                   }});
  // The raw call followed by a synchronise, as a default-stream libmyblas call returns (its
  // result complete): auto's anchor for the library's own cost; its interval also holds the
  // host's wake-up after the kernel.
  paths.push_back({"cublas-raw-sync", [&](const void* a, const void* b, void* c, float beta) {
                     CB(cublasGemmEx(h, oa, ob, s.m, s.n, s.k, &alpha, a, tin, ar, b, tin, br, &beta, c, tout, s.m,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
                     CK(cudaStreamSynchronize(nullptr));
                   }});
  if (!c32)
    paths.push_back({"cublas-once", [&](const void* a, const void* b, void* c, float beta) {
                       const float zero = 0.f;
                       if (beta == 0.f) {  // (binary16 output is rounded once already)
                         CB(cublasGemmEx(h, oa, ob, s.m, s.n, s.k, &alpha, a, tin, ar, b, tin, br, &zero, c, tout,
                                         s.m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
                         return;
                       }
                       CB(cublasGemmEx(h, oa, ob, s.m, s.n, s.k, &alpha, a, tin, ar, b, tin, br, &zero, scratch,
                                       CUDA_R_32F, s.m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
                       CK(myblas::add_scaled_round_f16(scratch, s.m, beta, static_cast<uint16_t*>(c), s.m, s.m, s.n,
                                                       nullptr));
                     }});
  auto problem = [&](const void* a, const void* b, void* c, float beta) {
    myblas::GemmProblem p;
    p.routine = r;
    p.ta = s.ta == 'N' ? myblas::Op::N : myblas::Op::T;
    p.tb = s.tb == 'N' ? myblas::Op::N : myblas::Op::T;
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    p.lda = ar;
    p.ldb = br;
    p.ldc = s.m;
    p.alpha = alpha;
    p.beta = beta;
    p.a = a;
    p.b = b;
    p.c = c;
    p.mem_a = p.mem_b = p.mem_c = myblas::Mem::device;
    return p;
  };
  const myblas::HgemmKernel wg = myblas::HgemmKernel::wgmma_tma;
  if (const char* why = myblas::hgemm_can_implement(wg, problem(A(0), B(0), C(0), 1.f)))
    std::printf("# kernel refuses %s %c%c %dx%dx%d: %s\n", rname(r), s.ta, s.tb, s.m, s.n, s.k, why);
  else
    paths.push_back({"kernel", [&](const void* a, const void* b, void* c, float beta) {
                       CK(myblas::hgemm_run(wg, problem(a, b, c, beta), nullptr));
                     }});
  // The split-k cluster kernel called directly, its tile as hgemm_choose takes it (long along the
  // long side), on shapes with a side of 1024 or less.
  const myblas::HgemmKernel sk = s.m <= s.n ? myblas::HgemmKernel::splitk_64x128 : myblas::HgemmKernel::splitk_128x64;
  if (std::min(s.m, s.n) <= 1024) {
    if (const char* why = myblas::hgemm_can_implement(sk, problem(A(0), B(0), C(0), 1.f)))
      std::printf("# splitk refuses %s %c%c %dx%dx%d: %s\n", rname(r), s.ta, s.tb, s.m, s.n, s.k, why);
    else
      paths.push_back({"splitk", [&](const void* a, const void* b, void* c, float beta) {
                         CK(myblas::hgemm_run(sk, problem(a, b, c, beta), nullptr));
                       }});
  }
  // The wgmma split-k kernel called directly, on shapes with a side of 256 or less.
  if (std::min(s.m, s.n) <= 256) {
    if (const char* why = myblas::hgemm_can_implement(myblas::HgemmKernel::wgmma_splitk, problem(A(0), B(0), C(0), 1.f)))
      std::printf("# wsplit refuses %s %c%c %dx%dx%d: %s\n", rname(r), s.ta, s.tb, s.m, s.n, s.k, why);
    else
      paths.push_back({"wsplit", [&](const void* a, const void* b, void* c, float beta) {
                         CK(myblas::hgemm_run(myblas::HgemmKernel::wgmma_splitk, problem(a, b, c, beta), nullptr));
                       }});
  }
  // The streaming kernel called directly, where it takes the shape (m or n <= 64, the large
  // operand contiguous along k).
  if (!myblas::hgemm_can_implement(myblas::HgemmKernel::skinny_stream, problem(A(0), B(0), C(0), 1.f)))
    paths.push_back({"stream", [&](const void* a, const void* b, void* c, float beta) {
                       CK(myblas::hgemm_run(myblas::HgemmKernel::skinny_stream, problem(a, b, c, beta), nullptr));
                     }});
  // Each path auto may take, followed by a synchronise as a default-stream libmyblas call returns
  // (cublas-raw-sync above is the one for the cuBLAS call itself).
  for (const char* base : {"cublas-once", "kernel", "splitk", "wsplit", "stream"})
    for (size_t q = 0; q < paths.size(); ++q)
      if (paths[q].name == base) {
        auto run = paths[q].run;
        paths.push_back({std::string(base) + "-sync", [run](const void* a, const void* b, void* c, float beta) {
                           run(a, b, c, beta);
                           CK(cudaStreamSynchronize(nullptr));
                         }});
        break;
      }
  paths.push_back({"auto", [&](const void* a, const void* b, void* c, float beta) {
                     const char ta = s.ta, tb = s.tb;
                     if (r == Routine::hgemm) {
                       const uint16_t ha = myblas_float_to_half(alpha), hb = myblas_float_to_half(beta);
                       hgemm_(&ta, &tb, &s.m, &s.n, &s.k, &ha, static_cast<const uint16_t*>(a), &ar,
                              static_cast<const uint16_t*>(b), &br, &hb, static_cast<uint16_t*>(c), &s.m);
                     } else {
                       (r == Routine::sbgemm ? sbgemm_ : gemm_f16f16f32_)(
                           &ta, &tb, &s.m, &s.n, &s.k, &alpha, static_cast<const uint16_t*>(a), &ar,
                           static_cast<const uint16_t*>(b), &br, &beta, static_cast<float*>(c), &s.m);
                     }
                   }});

  // Verification on set 0's operands, every path from the same C.
  const float vbeta = c32 ? 1.f : 0.5f;
  std::vector<float> ref(nc), got(nc);
  auto fetch = [&](const char* d, std::vector<float>* out) {
    if (c32) {
      CK(cudaMemcpy(out->data(), d, nc * 4, cudaMemcpyDeviceToHost));
    } else {
      std::vector<__half> t(nc);
      CK(cudaMemcpy(t.data(), d, nc * 2, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < nc; ++i) (*out)[i] = __half2float(t[i]);
    }
  };
  CK(cudaMemcpy(cref, c0, nc * es_c, cudaMemcpyDeviceToDevice));
  paths[0].run(A(0), B(0), cref, vbeta);
  CK(cudaDeviceSynchronize());
  fetch(cref, &ref);
  std::vector<bool> ok(paths.size(), true);
  const double tol = std::ldexp(1.0, c32 ? -16 : -9), norm = std::sqrt(double(s.k));
  auto synced = [](const std::string& name) {  // "X-sync": X and a synchronise, verified as X
    return name.size() > 5 && name.compare(name.size() - 5, 5, "-sync") == 0;
  };
  for (size_t p = 1; p < paths.size(); ++p) {
    if (synced(paths[p].name)) continue;
    CK(cudaMemcpy(cgot, c0, nc * es_c, cudaMemcpyDeviceToDevice));
    paths[p].run(A(0), B(0), cgot, vbeta);
    CK(cudaDeviceSynchronize());
    fetch(cgot, &got);
    double worst = 0;
    size_t wi = 0;
    for (size_t i = 0; i < nc; ++i) {
      const double d = std::fabs(double(got[i]) - ref[i]) / (std::fabs(double(ref[i])) + norm);
      if (!(d <= worst)) {
        worst = d;
        wi = i;
      }
    }
    if (!(worst <= tol)) {
      ok[p] = false;
      g_failed = true;
      std::printf("# VERIFY FAILED %s %s %c%c %dx%dx%d beta %g: scaled difference %.3g at %zu (got %g, raw %g)\n",
                  rname(r), paths[p].name.c_str(), s.ta, s.tb, s.m, s.n, s.k, double(vbeta), worst, wi,
                  double(got[wi]), double(ref[wi]));
    }
  }

  for (size_t p = 0; p < paths.size(); ++p)
    if (synced(paths[p].name))
      for (size_t q = 0; q < paths.size(); ++q)
        if (paths[q].name + "-sync" == paths[p].name) ok[p] = ok[q];

  // Timing: the paths take turns call by call, the order rotated every round, so that a drift of
  // the GPU's clocks (8192^3 runs at the power limit) falls on every path alike.
  const double flops = 2.0 * s.m * s.n * double(s.k);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const size_t np = paths.size();
  for (float beta : betas) {
    std::vector<std::vector<double>> t(np);
    std::vector<std::string> took(np);
    int set = 0;
    for (int round = -2; round < g_reps; ++round)  // (two warm-up rounds)
      for (size_t o = 0; o < np; ++o) {
        const size_t p = (o + size_t(round + 2)) % np;
        if (!ok[p]) continue;
        const int i = set++ % nsets;
        CK(cudaEventRecord(e0, nullptr));
        paths[p].run(A(i), B(i), C(i), beta);
        CK(cudaEventRecord(e1, nullptr));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (round >= 0) t[p].push_back(ms * 1000.0);
        if (paths[p].name == "auto") took[p] = myblas_last_path();
      }
    const double t_raw = bench::median(t[0]);
    for (size_t p = 0; p < np; ++p) {
      if (!ok[p]) continue;
      const double us = bench::median(t[p]);
      const std::string name = paths[p].name + (took[p].empty() ? "" : ":" + took[p]);
      std::printf("%s,%s,%c%c,%d,%d,%d,%g,%.2f,%.1f,%.3f\n", rname(r), name.c_str(), s.ta, s.tb, s.m, s.n, s.k,
                  double(beta), us, flops / us / 1e6, t_raw / us);
    }
    std::fflush(stdout);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  if (scratch) CK(cudaFree(scratch));
  CK(cudaFree(c0));
  CK(cudaFree(cref));
  CK(cudaFree(cgot));
  CK(cudaFree(base));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> want_shapes, want_routines;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--reps=", 7)) g_reps = std::max(3, std::atoi(argv[i] + 7));
    else if (!std::strncmp(argv[i], "--shapes=", 9)) want_shapes = bench::split_list(argv[i] + 9);
    else if (!std::strncmp(argv[i], "--routines=", 11)) want_routines = bench::split_list(argv[i] + 11);
    else if (!std::strncmp(argv[i], "--max-dim=", 10)) g_max_dim = std::max(1, std::atoi(argv[i] + 10));
    else {
      std::fprintf(stderr, "usage: bench_gemm_beta [--reps=N] [--shapes=square,smallk,skinny,trans] "
                           "[--routines=hgemm,sbgemm,shgemm] [--max-dim=N]\n");
      return 2;
    }
  }
  auto on = [](const std::vector<std::string>& v, const char* x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "bench_gemm_beta: no usable CUDA device\n");
    return 2;
  }
  std::printf("# bench_gemm_beta (rev %s): 16-bit-input GEMMs beside raw cublasGemmEx with the same beta, "
              "device pointers\n", MYBLAS_GIT_REV);
  bench::print_device_and_command(argc, argv);
  std::printf("# median of %d event-timed calls per path, the paths taking turns in rotated order after 2 warm-up "
              "rounds; operand sets rotated over >= 256 MiB; alpha = 1; minimal leading dimensions; "
              "ratio_vs_raw = t(cublas-raw) / t(path)\n", g_reps);
  std::printf("routine,path,trans,m,n,k,beta,time_us,tflops,ratio_vs_raw\n");
  std::vector<Shape> shapes;
  if (on(want_shapes, "square"))
    for (int n : {1024, 2048, 4096, 6144, 8192}) shapes.push_back({'N', 'N', n, n, n});
  if (on(want_shapes, "smallk"))
    for (int mn : {4096, 8192})
      for (int k : {64, 128, 256, 512}) shapes.push_back({'N', 'N', mn, mn, k});
  if (on(want_shapes, "skinny"))
    for (int x : {16, 32, 64, 128, 256}) {
      shapes.push_back({'N', 'N', x, 4096, 4096});
      shapes.push_back({'N', 'N', 4096, x, 4096});
      if (x == 64)
        for (const char* t : {"NT", "TN", "TT"}) {
          shapes.push_back({t[0], t[1], x, 4096, 4096});
          shapes.push_back({t[0], t[1], 4096, x, 4096});
        }
      else if (x <= 32)  // (the streaming kernel's n-small role: A 'T')
        shapes.push_back({'T', 'N', 4096, x, 4096});
    }
  if (on(want_shapes, "skinny2")) {
    for (int x : {24, 48, 96, 200}) {
      shapes.push_back({'N', 'N', x, 4096, 4096});
      shapes.push_back({'T', 'N', 4096, x, 4096});
    }
    for (int x : {64, 256})
      for (int big : {2048, 8192}) {
        shapes.push_back({'N', 'N', x, big, 4096});
        shapes.push_back({'N', 'N', 4096, x, big});
      }
  }
  if (on(want_shapes, "trans"))
    for (const char* t : {"NT", "TN", "TT"}) shapes.push_back({t[0], t[1], 4096, 4096, 4096});
  cublasHandle_t h;
  CB(cublasCreate(&h));
  CB(cublasSetMathMode(h, cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  const bench::RandomSource<__half> src16([](float f) { return __float2half_rn(f); },
                                          [](__half v) { return __half2float(v) == 0.f; });
  const bench::RandomSource<__nv_bfloat16> srcbf([](float f) { return __float2bfloat16_rn(f); },
                                                 [](__nv_bfloat16 v) { return __bfloat162float(v) == 0.f; });
  const bench::Source src32;
  for (Routine r : {Routine::hgemm, Routine::sbgemm, Routine::shgemm}) {
    if (!on(want_routines, rname(r))) continue;
    for (const Shape& s : shapes) {
      if (r != Routine::hgemm && s.ta != 'N') continue;  // (transposes: HGEMM only)
      if (std::max(s.m, std::max(s.n, s.k)) > g_max_dim) continue;
      bench_shape(h, r, s, r == Routine::hgemm ? std::vector<float>{0.f, 0.5f, 1.f} : std::vector<float>{0.f, 1.f},
                  src16, srcbf, src32);
    }
  }
  cublasDestroy(h);
  if (g_failed) {
    std::fprintf(stderr, "bench_gemm_beta: verification failed\n");
    return 1;
  }
  return 0;
}
