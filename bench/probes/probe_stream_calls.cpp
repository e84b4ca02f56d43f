// probe_stream_calls: the library's cost per device-operand call as a program making many small
// calls sees it, beside the raw cuBLAS call in the same process.
//
//   stream   the calls enqueued back to back on a stream of the program's (myblas_set_stream;
//            cuBLAS: cublasSetStream on its own handle), one synchronisation per block of calls:
//            time per call, host and GPU overlapping as they do in such a program;
//   default  every call on the legacy default stream, returning complete (the library
//            synchronises; cuBLAS: the call and a cudaStreamSynchronize(0)).
// Blocks of `calls` calls alternate between the two sides; per side the median block's time per
// call, their ratio (cublas / myblas: >= 0.97 is the target) and the difference (the library's
// own cost per call). Also each side's host time to enqueue one call (stream mode: the host
// part alone, which is what the library adds to).
//
// Output: '#' lines, then CSV mode,routine,trans,m,n,k,beta,cublas_us,myblas_us,ratio,added_us,
// cublas_enqueue_us,myblas_enqueue_us,path
// usage: probe_stream_calls [--blocks B] [--calls C]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_util.h"
#include "myblas.h"

namespace {
using clk = std::chrono::steady_clock;

struct Shape {
  const char* routine;  // "sgemm", "sgemv", "hgemm"
  char ta, tb;
  int m, n, k;
  float beta;
};

double us_since(clk::time_point t0) { return std::chrono::duration<double, std::micro>(clk::now() - t0).count(); }

}  // namespace

int main(int argc, char** argv) {
  int blocks = 21, calls = 200;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--blocks") && i + 1 < argc) blocks = std::max(3, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--calls") && i + 1 < argc) calls = std::max(10, std::atoi(argv[++i]));
  }
  if (!myblas_gpu_available()) {
    std::fprintf(stderr, "probe_stream_calls: no usable CUDA device\n");
    return 2;
  }
  std::printf("# probe_stream_calls: libmyblas %s device-operand calls beside raw cuBLAS, one process\n",
              myblas_version());
  bench::print_device_and_command(argc, argv);
  std::printf("# %d alternating blocks of %d calls per side and mode; *_us: median block time per call;"
              " ratio = cublas/myblas; enqueue: host time of one call in stream mode (median)\n", blocks, calls);
  std::printf("mode,routine,trans,m,n,k,beta,cublas_us,myblas_us,ratio,added_us,cublas_enqueue_us,myblas_enqueue_us,path\n");
  const std::vector<Shape> shapes = {{"sgemm", 'N', 'N', 64, 64, 64, 0.f},      {"sgemm", 'N', 'N', 127, 129, 1031, 0.f},
                                     {"sgemm", 'N', 'N', 64, 64, 64, 1.f},      {"sgemm", 'T', 'N', 256, 256, 256, 0.f},
                                     {"sgemv", 'N', 'N', 256, 256, 0, 1.f},     {"sgemv", 'T', 'N', 1024, 1024, 0, 0.f},
                                     {"hgemm", 'N', 'N', 128, 128, 128, 0.f}};
  const bench::Source src;
  cublasHandle_t h;
  CB(cublasCreate(&h));
  CB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
  cublasHandle_t hh;
  CB(cublasCreate(&hh));
  CB(cublasSetMathMode(hh, cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const Shape& s : shapes) {
    const bool gemv = !std::strcmp(s.routine, "sgemv"), half = !std::strcmp(s.routine, "hgemm");
    const int m = s.m, n = s.n, k = s.k;
    const int ar = gemv ? m : (s.ta == 'N' ? m : k), ac = gemv ? n : (s.ta == 'N' ? k : m);
    const int br = s.tb == 'N' ? k : n;
    const size_t na = size_t(ar) * ac, nb = gemv ? size_t(s.ta == 'N' ? n : m) : size_t(k) * n,
                 nc = gemv ? size_t(s.ta == 'N' ? m : n) : size_t(m) * n;
    float *a, *b, *c;  // (binary16 operands use the same buffers: random bits reinterpreted are not used,
                       //  the halves are written below)
    CK(cudaMalloc(&a, na * 4));
    CK(cudaMalloc(&b, nb * 4));
    CK(cudaMalloc(&c, nc * 4));
    src.fill(a, na, 1);
    src.fill(b, nb, 2);
    src.fill(c, nc, 3);
    if (half) {  // binary16 copies of the values
      std::vector<float> hv(std::max(na, std::max(nb, nc)));
      for (auto [p, cnt] : {std::pair<float*, size_t>{a, na}, {b, nb}, {c, nc}}) {
        CK(cudaMemcpy(hv.data(), p, cnt * 4, cudaMemcpyDeviceToHost));
        std::vector<uint16_t> hb(cnt);
        for (size_t i = 0; i < cnt; ++i) hb[i] = myblas_float_to_half(hv[i] != 0.f ? hv[i] : 0.5f);
        CK(cudaMemcpy(p, hb.data(), cnt * 2, cudaMemcpyHostToDevice));
      }
    }
    const float alpha = 1.f, beta = s.beta;
    const uint16_t halpha = myblas_float_to_half(alpha), hbeta = myblas_float_to_half(beta);
    const cublasOperation_t oa = s.ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, ob = s.tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    const int inc = 1;
    auto raw = [&] {
      if (gemv)
        CB(cublasSgemv(h, oa, m, n, &alpha, a, m, b, 1, &beta, c, 1));
      else if (half)
        CB(cublasGemmEx(hh, oa, ob, m, n, k, &alpha, a, CUDA_R_16F, ar, b, CUDA_R_16F, br, &beta, c, CUDA_R_16F, m,
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      else
        CB(cublasSgemm(h, oa, ob, m, n, k, &alpha, a, ar, b, br, &beta, c, m));
    };
    auto mine = [&] {
      if (gemv)
        sgemv_(&s.ta, &m, &n, &alpha, a, &m, b, &inc, &beta, c, &inc);
      else if (half)
        hgemm_(&s.ta, &s.tb, &m, &n, &k, &halpha, reinterpret_cast<const uint16_t*>(a), &ar,
               reinterpret_cast<const uint16_t*>(b), &br, &hbeta, reinterpret_cast<uint16_t*>(c), &m);
      else
        sgemm_(&s.ta, &s.tb, &m, &n, &k, &alpha, a, &ar, b, &br, &beta, c, &m);
    };
    for (const char* mode : {"stream", "default"}) {
      const bool on_stream = !std::strcmp(mode, "stream");
      cudaStream_t st = on_stream ? stream : nullptr;
      CB(cublasSetStream(h, st));
      CB(cublasSetStream(hh, st));
      myblas_set_stream(st);
      auto block = [&](bool lib, std::vector<double>* enqueue) {
        const auto t0 = clk::now();
        for (int i = 0; i < calls; ++i) {
          const auto c0 = clk::now();
          if (lib) mine();
          else raw();
          if (!on_stream && !lib) CK(cudaStreamSynchronize(nullptr));
          if (enqueue) enqueue->push_back(us_since(c0));
        }
        CK(cudaStreamSynchronize(st));
        return us_since(t0) / calls;
      };
      for (int w = 0; w < 3; ++w) {
        block(false, nullptr);
        block(true, nullptr);
      }
      std::vector<double> tr, tm, er, em;
      for (int b2 = 0; b2 < blocks; ++b2) {
        const bool lib_first = b2 % 2;
        if (lib_first) tm.push_back(block(true, on_stream ? &em : nullptr));
        tr.push_back(block(false, on_stream ? &er : nullptr));
        if (!lib_first) tm.push_back(block(true, on_stream ? &em : nullptr));
      }
      const double r = bench::median(tr), l = bench::median(tm);
      std::printf("%s,%s,%c%c,%d,%d,%d,%g,%.2f,%.2f,%.3f,%.2f,%.2f,%.2f,%s\n", mode, s.routine, s.ta, gemv ? ' ' : s.tb,
                  m, n, k, double(beta), r, l, r / l, l - r, on_stream ? bench::median(er) : 0.0,
                  on_stream ? bench::median(em) : 0.0, myblas_last_path());
      std::fflush(stdout);
    }
    myblas_set_stream(nullptr);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
  }
  CK(cudaStreamDestroy(stream));
  cublasDestroy(h);
  cublasDestroy(hh);
  return 0;
}
