// The GPU path of the batched GEMM and GEMV (core/batch.h).
//
// Device operands: the groups our square kernel takes (kernels/batched.h; S and H, n = 16 or 32)
// run in one launch per size; every other group is one cuBLAS call, cublas<T>gemmStridedBatched
// or cublas<T>gemmBatched (binary16: cublasGemm[Strided]BatchedEx, FP32 compute), GEMV likewise;
// groups that only scale C (alpha == 0 or k == 0) run our scaling kernel. Pointer arrays are
// uploaded in one copy.
//
// Host arrays (GEMM only): each group goes through the GPU in chunks of products. A chunk's
// operands are packed (leading dimension = rows) into a pinned buffer by the copy threads
// (core/thread_pool.h), uploaded in one copy, multiplied by one strided-batched call, and its
// results come back in one copy and are unpacked into the caller's C by the copy threads. Two
// chunks are in flight at once on two streams, so the packing of one overlaps the transfers and
// the multiplication of the other. A shared A or B (stride 0) is uploaded once. The caller's C
// is written only by the unpacking of a finished chunk, so when the GPU fails the chunks not yet
// unpacked are computed on the CPU.
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <cstring>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cublas_api.h"
#include "backends/cuda/cublas_backend.h"
#include "backends/cuda/gpu_call.h"
#include "backends/cuda/host_pipeline.h"
#include "core/log.h"
#include "core/stage_clock.h"
#include "core/thread_pool.h"
#include "dispatch/batch_rule.h"
#include "kernels/batched.h"

namespace myblas {

namespace {

constexpr size_t kChunkBytes = size_t(32) << 20;  // operand bytes per host-array chunk
constexpr int64_t kMaxCall = int64_t(1) << 30;    // products per cuBLAS call (its count is an int)

cublasOperation_t op_of(char t) { return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }
// alpha and beta as cuBLAS wants them for the type (FP32 for binary16's FP32 compute).
struct Scalars {
  HostScalar a, b;
  Scalars(Dtype t, const Scalar& alpha, const Scalar& beta) : a(alpha, t), b(beta, t) {}
  const void* al() const { return a.get(); }
  const void* be() const { return b.get(); }
};

using H = cublasHandle_t;
using O = cublasOperation_t;
using V = const void*;

// One strided-batched GEMM of `count` products on device operands.
cublasStatus_t gemm_strided(const CublasApi* api, H h, Dtype t, const BatchGroup& g, const void* a, int64_t lda,
                            int64_t sa, const void* b, int64_t ldb, int64_t sb, void* c, int64_t ldc, int64_t sc,
                            int64_t count) {
  const Scalars s(t, g.alpha, g.beta);
  if (t == Dtype::h) {
    if (!api->gemm_strided_batched_ex) return CUBLAS_STATUS_NOT_SUPPORTED;
    return api->gemm_strided_batched_ex(h, op_of(g.ta), op_of(g.tb), int(g.m), int(g.n), int(g.k), s.al(), a,
                                        CUDA_R_16F, int(lda), sa, b, CUDA_R_16F, int(ldb), sb, s.be(), c, CUDA_R_16F,
                                        int(ldc), sc, int(count), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  void* fn = api->gemm_strided_batched[int(t)];
  if (!fn) return CUBLAS_STATUS_NOT_SUPPORTED;
  return reinterpret_cast<cublasStatus_t (*)(H, O, O, int, int, int, V, V, int, long long, V, int, long long, V,
                                             void*, int, long long, int)>(fn)(
      h, op_of(g.ta), op_of(g.tb), int(g.m), int(g.n), int(g.k), s.al(), a, int(lda), sa, b, int(ldb), sb, s.be(), c,
      int(ldc), sc, int(count));
}

cublasStatus_t gemm_listed(const CublasApi* api, H h, Dtype t, const BatchGroup& g, const void* const* da,
                           const void* const* db, void* const* dc, int64_t count) {
  const Scalars s(t, g.alpha, g.beta);
  if (t == Dtype::h) {
    if (!api->gemm_batched_ex) return CUBLAS_STATUS_NOT_SUPPORTED;
    return api->gemm_batched_ex(h, op_of(g.ta), op_of(g.tb), int(g.m), int(g.n), int(g.k), s.al(), da, CUDA_R_16F,
                                int(g.lda), db, CUDA_R_16F, int(g.ldb), s.be(), dc, CUDA_R_16F, int(g.ldc), int(count),
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  void* fn = api->gemm_batched[int(t)];
  if (!fn) return CUBLAS_STATUS_NOT_SUPPORTED;
  return reinterpret_cast<cublasStatus_t (*)(H, O, O, int, int, int, V, const void* const*, int, const void* const*,
                                             int, V, void* const*, int, int)>(fn)(
      h, op_of(g.ta), op_of(g.tb), int(g.m), int(g.n), int(g.k), s.al(), da, int(g.lda), db, int(g.ldb), s.be(), dc,
      int(g.ldc), int(count));
}

cublasStatus_t gemv_strided(const CublasApi* api, H h, Dtype t, const BatchGroup& g, int64_t first, int64_t count) {
  void* fn = api->gemv_strided_batched[int(t)];
  if (!fn) return CUBLAS_STATUS_NOT_SUPPORTED;
  const Scalars s(t, g.alpha, g.beta);
  const size_t es = dtype_size(t);
  return reinterpret_cast<cublasStatus_t (*)(H, O, int, int, V, V, int, long long, V, int, long long, V, void*, int,
                                             long long, int)>(fn)(
      h, op_of(g.ta), int(g.m), int(g.n), s.al(), g.a_at(first, es), int(g.lda), g.stride_a, g.b_at(first, es),
      int(g.ldb), g.stride_b, s.be(), g.c_at(first, es), int(g.ldc), g.stride_c, int(count));
}

cublasStatus_t gemv_listed(const CublasApi* api, H h, Dtype t, const BatchGroup& g, const void* const* da,
                           const void* const* dx, void* const* dy, int64_t count) {
  void* fn = api->gemv_batched[int(t)];
  if (!fn) return CUBLAS_STATUS_NOT_SUPPORTED;
  const Scalars s(t, g.alpha, g.beta);
  return reinterpret_cast<cublasStatus_t (*)(H, O, int, int, V, const void* const*, int, const void* const*, int, V,
                                             void* const*, int, int)>(fn)(
      h, op_of(g.ta), int(g.m), int(g.n), s.al(), da, int(g.lda), dx, int(g.ldb), s.be(), dy, int(g.ldc), int(count));
}

bool sizes_fit(const BatchGroup& g) {
  return fits_int32(g.m) && fits_int32(g.n) && fits_int32(g.k) && fits_int32(g.lda) && fits_int32(g.ldb) && fits_int32(g.ldc);
}

// ---- device operands ----
bool device_batch(const BatchProblem& p, bool use_kernels, std::string* why) {
  cudaStream_t s = thread_stream();
  const int target = call_device(p.device, s);
  DeviceScope scope(target);
  MYBLAS_CUDA_TRY("device", scope.status(), "cudaSetDevice");
  const CublasApi* api = cublas_api(why);
  if (!api) return false;
  const int dev = run_device(target, scope.saved() >= 0 ? scope.saved() : 0);
  const Dtype t = p.type;
  const size_t es = p.elem_size();
  const bool gemv = p.family == Family::gemv;
  for (const BatchGroup& g : p.groups) {
    if (!sizes_fit(g)) {
      *why = "sizes beyond cuBLAS's 32-bit interface";
      return false;
    }
    if (gemv && g.ta == 'R') {
      *why = "GEMV of conj(A) without a transpose has no cuBLAS form";
      return false;
    }
  }
  // Every listed group's pointers in one device buffer (a..., b..., c... per group), gathered by
  // the copy threads into a pinned buffer and uploaded in one copy: 24 bytes a product, which at
  // n = 16 is as much time on the host link as the product's 3 KB take in device memory.
  size_t total = 0;
  std::vector<size_t> list_at(p.groups.size(), SIZE_MAX);
  for (size_t gi = 0; gi < p.groups.size(); ++gi)
    if (p.groups[gi].listed()) {
      list_at[gi] = total;
      total += 3 * size_t(p.groups[gi].count);
    }
  Pinned pinned_lists;
  DeviceBuffer lists;
  if (total) {
    MYBLAS_CUDA_TRY("pin", pinned_lists.acquire(total * sizeof(void*)), "cudaHostAlloc");
    auto* to = static_cast<const void**>(pinned_lists.get());
    struct Piece {
      const void* const* from;
      size_t at, n;
    };
    constexpr size_t kPiece = size_t(1) << 16;  // pointers a task
    std::vector<Piece> pieces;
    for (size_t gi = 0; gi < p.groups.size(); ++gi) {
      const BatchGroup& g = p.groups[gi];
      if (!g.listed()) continue;
      const void* const* from[3] = {g.a_list, g.b_list, const_cast<const void* const*>(
                                                            reinterpret_cast<const void* const*>(g.c_list))};
      for (size_t w = 0; w < 3; ++w)
        for (size_t off = 0; off < size_t(g.count); off += kPiece)
          pieces.push_back({from[w] + off, list_at[gi] + w * size_t(g.count) + off,
                            std::min(kPiece, size_t(g.count) - off)});
    }
    parallel_for(pieces.size(), [&](size_t i) {
      std::memcpy(to + pieces[i].at, pieces[i].from, pieces[i].n * sizeof(void*));
    });
    MYBLAS_CUDA_TRY("alloc", lists.allocate(total * sizeof(void*), s), "cudaMallocAsync");
    MYBLAS_CUDA_TRY("copy", cudaMemcpyAsync(lists.get(), to, total * sizeof(void*), cudaMemcpyHostToDevice, s),
                    "copying the pointer arrays to the GPU");
  }
  auto dev_list = [&](size_t gi) -> const void* const* {
    return list_at[gi] == SIZE_MAX ? nullptr : static_cast<const void* const*>(lists.get()) + list_at[gi];
  };
  // Groups run one step after another (our kernel's groups first, one launch per size). A step
  // that fails before anything was launched sends the whole call back to the caller (the CPU
  // redoes it); a later one leaves the groups already launched to finish on the GPU and computes
  // the others on the CPU, so that no product is applied twice.
  std::vector<bool> done(p.groups.size(), false);
  bool launched = false;
  auto rest_on_cpu = [&](const std::string& step_why) -> bool {
    *why = step_why;
    const cudaError_t e = cudaStreamSynchronize(s);
    cudaGetLastError();
    if (!launched) return false;
    if (e != cudaSuccess) {
      *why = note_cuda_error(e, "the batched call on the GPU");
      return false;
    }
    BatchProblem rest = p;
    rest.groups.clear();
    for (size_t gi = 0; gi < p.groups.size(); ++gi)
      if (!done[gi]) rest.groups.push_back(p.groups[gi]);
    warn_once("batch:" + step_why, std::string(routine_name(routine_of(p.family, p.type))) + "_batch on the GPU: " +
                                       step_why + "; completing the remaining groups on the CPU");
    return cpu_batch(rest, why);
  };
  // A launch step: the injected fault skips the launch, as MYBLAS_CUDA_TRY does.
  auto launch = [&](const char* what, const std::function<cudaError_t()>& f, std::string* msg) {
    if (fault_injected("launch")) {
      *msg = std::string("injected fault at launch (") + what + ")";
      return false;
    }
    const cudaError_t e = f();
    if (e != cudaSuccess) *msg = note_cuda_error(e, what);
    return e == cudaSuccess;
  };
  if (use_kernels && !gemv) {
    // Each size where the table (dispatch/batch_rule.h) takes our kernel, with the rung it names.
    for (int64_t size : {16, 32}) {
      SquareKernel rung;
      if (!batch_square_takes(t, size, backend_setting() == Backend::kernels, &rung)) continue;
      std::vector<BatchGroup> mine;
      std::vector<const void* const*> mine_lists;
      std::vector<size_t> index;
      for (size_t gi = 0; gi < p.groups.size(); ++gi) {
        const BatchGroup& g = p.groups[gi];
        if (done[gi] || g.n != size || batched_square_can_implement(t, g)) continue;
        mine.push_back(g);
        mine_lists.push_back(dev_list(gi));
        index.push_back(gi);
      }
      if (mine.empty()) continue;
      std::string msg;
      if (!launch("the batched square GEMM kernel",
                  [&] { return batched_square_run(t, mine.data(), mine_lists.data(), int(mine.size()), s, rung); }, &msg))
        return rest_on_cpu(msg);
      for (size_t gi : index) done[gi] = true;
      launched = true;
    }
  }
  cublasHandle_t h = nullptr;
  for (size_t gi = 0; gi < p.groups.size(); ++gi) {
    if (done[gi]) continue;
    const BatchGroup& g = p.groups[gi];
    if (g.scale_only(p.family)) {
      const int64_t len = g.ta == 'N' ? g.m : g.n;
      std::string msg;
      if (!launch("the batched scaling kernel",
                  [&] {
                    return gemv ? batched_scale_run(t, g, 1, len, g.ldc < 0 ? -g.ldc : g.ldc, dev_list(gi), s)
                                : batched_scale_run(t, g, g.m, g.n, g.ldc, dev_list(gi), s);
                  },
                  &msg))
        return rest_on_cpu(msg);
      done[gi] = launched = true;
      continue;
    }
    if (!h) {
      std::string msg;
      h = cublas_handle(dev, s, math_mode(t), &msg);
      if (!h) return rest_on_cpu(msg);
    }
    for (int64_t first = 0; first < g.count; first += kMaxCall) {
      const int64_t count = std::min(kMaxCall, g.count - first);
      cublasStatus_t st;
      if (fault_injected("cublas")) {
        st = CUBLAS_STATUS_EXECUTION_FAILED;
      } else if (g.listed()) {
        const void* const* l = dev_list(gi);
        const void* const* da = l + first;
        const void* const* db = l + g.count + first;
        void* const* dc = const_cast<void* const*>(l + 2 * g.count + first);
        st = gemv ? gemv_listed(api, h, t, g, da, db, dc, count) : gemm_listed(api, h, t, g, da, db, dc, count);
      } else {
        st = gemv ? gemv_strided(api, h, t, g, first, count)
                  : gemm_strided(api, h, t, g, g.a_at(first, es), g.lda, g.stride_a, g.b_at(first, es), g.ldb,
                                 g.stride_b, g.c_at(first, es), g.ldc, g.stride_c, count);
      }
      if (st != CUBLAS_STATUS_SUCCESS) {
        const std::string msg =
            std::string("cuBLAS batched ") + family_name(p.family) + " failed: " + api->status_string(st);
        if (first > 0) {  // part of this group was written: only the caller can start over
          *why = msg;
          cudaStreamSynchronize(s);
          return false;
        }
        return rest_on_cpu(msg);
      }
    }
    done[gi] = launched = true;
  }
  MYBLAS_STAGE(kStageLaunch);
  // Pointer arrays taken as strided before their A and B lists were checked (core/batch.h): the
  // check runs now, while the GPU runs the products. A wrong guess waits for those products and
  // has the caller run the call again from the lists (beta == 0: C is written afresh).
  if (p.speculative() && !speculation_holds(p)) {
    const cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
      *why = note_cuda_error(e, "the batched call on the GPU");
      return false;
    }
    p.mispredicted = true;
    return true;
  }
  if (s == nullptr || total) {  // the pointer arrays (pinned and device) go when the call ends
    const cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
      *why = note_cuda_error(e, "the batched call on the GPU");
      return false;
    }
    MYBLAS_STAGE(kStageSync);
  }
  return true;
}

// ---- host arrays: GEMM groups in chunks ----
struct Slot {
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  Pinned in, out;
  DeviceBuffer din, dout;
  int64_t first = 0, count = 0;  // the chunk in flight (count 0: none)
};

struct HostGroup {
  const BatchProblem& p;
  const BatchGroup& g;
  size_t es;
  int64_t ar, ac, br, bc;  // A and B as stored
  bool share_a, share_b, read_c;
  size_t a_elems() const { return size_t(ar) * size_t(ac); }
  size_t b_elems() const { return size_t(br) * size_t(bc); }
  size_t c_elems() const { return size_t(g.m) * size_t(g.n); }
  // Bytes a chunk of `count` products uploads: the operands not shared, and C when beta != 0.
  size_t in_bytes(int64_t count) const {
    return size_t(count) * es * ((share_a ? 0 : a_elems()) + (share_b ? 0 : b_elems()) + (read_c ? c_elems() : 0));
  }
};

// The products [first, first + count) of hg packed into dst: A's, B's, C's.
void pack(const HostGroup& hg, int64_t first, int64_t count, unsigned char* dst) {
  const BatchGroup& g = hg.g;
  const size_t es = hg.es;
  unsigned char* pa = dst;
  unsigned char* pb = pa + (hg.share_a ? 0 : size_t(count) * hg.a_elems() * es);
  unsigned char* pc = pb + (hg.share_b ? 0 : size_t(count) * hg.b_elems() * es);
  parallel_for(size_t(count), [&](size_t j) {
    const int64_t i = first + int64_t(j);
    auto put = [es](unsigned char* to, const void* from, int64_t rows, int64_t cols, int64_t ld) {
      for (int64_t c = 0; c < cols; ++c)
        std::memcpy(to + size_t(c) * size_t(rows) * es, static_cast<const unsigned char*>(from) + size_t(c * ld) * es,
                    size_t(rows) * es);
    };
    if (!hg.share_a) put(pa + j * hg.a_elems() * es, g.a_at(i, es), hg.ar, hg.ac, g.lda);
    if (!hg.share_b) put(pb + j * hg.b_elems() * es, g.b_at(i, es), hg.br, hg.bc, g.ldb);
    if (hg.read_c) put(pc + j * hg.c_elems() * es, g.c_at(i, es), g.m, g.n, g.ldc);
  });
}

void unpack(const HostGroup& hg, int64_t first, int64_t count, const unsigned char* src) {
  const BatchGroup& g = hg.g;
  const size_t es = hg.es;
  parallel_for(size_t(count), [&](size_t j) {
    unsigned char* c = static_cast<unsigned char*>(g.c_at(first + int64_t(j), es));
    const unsigned char* from = src + j * hg.c_elems() * es;
    for (int64_t col = 0; col < g.n; ++col)
      std::memcpy(c + size_t(col * g.ldc) * es, from + size_t(col) * size_t(g.m) * es, size_t(g.m) * es);
  });
}

// Runs group g on the GPU chunk by chunk; *finished is the number of leading products whose C
// holds its result (all of them when it returns true).
bool host_group(const BatchProblem& p, const BatchGroup& g, const CublasApi* api, int dev, int64_t* finished,
                std::string* why) {
  cudaStream_t s = nullptr;  // (for MYBLAS_CUDA_TRY's drain: the slots' streams are drained below)
  const size_t es = p.elem_size();
  HostGroup hg{p, g, es, g.ta == 'N' ? g.m : g.k, g.ta == 'N' ? g.k : g.m, g.tb == 'N' ? g.k : g.n,
               g.tb == 'N' ? g.n : g.k, !g.listed() && g.stride_a == 0, !g.listed() && g.stride_b == 0,
               !g.beta.zero()};
  const size_t per = std::max<size_t>(1, hg.in_bytes(1) + hg.c_elems() * es);
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(g.count, int64_t(kChunkBytes / per)));
  Slot slots[2];
  struct Drain {
    Slot* s;
    ~Drain() {
      for (int i = 0; i < 2; ++i) {
        if (s[i].stream) cudaStreamSynchronize(s[i].stream);
        if (s[i].done) cudaEventDestroy(s[i].done);
        s[i].din.release();
        s[i].dout.release();
        if (s[i].stream) cudaStreamDestroy(s[i].stream);
      }
    }
  } drain{slots};
  DeviceBuffer shared_a, shared_b;  // shared operands, uploaded once (freed before the streams go)
  for (Slot& sl : slots) {
    MYBLAS_CUDA_TRY("stream", cudaStreamCreateWithFlags(&sl.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    MYBLAS_CUDA_TRY("stream", cudaEventCreateWithFlags(&sl.done, cudaEventDisableTiming), "cudaEventCreate");
    MYBLAS_CUDA_TRY("pinned", sl.in.acquire(std::max<size_t>(1, hg.in_bytes(chunk))), "cudaHostAlloc");
    MYBLAS_CUDA_TRY("pinned", sl.out.acquire(size_t(chunk) * hg.c_elems() * es), "cudaHostAlloc");
    MYBLAS_CUDA_TRY("alloc", sl.din.allocate(std::max<size_t>(1, hg.in_bytes(chunk)), sl.stream), "cudaMallocAsync");
    MYBLAS_CUDA_TRY("alloc", sl.dout.allocate(size_t(chunk) * hg.c_elems() * es, sl.stream), "cudaMallocAsync");
  }
  s = slots[0].stream;
  if (hg.share_a) {
    MYBLAS_CUDA_TRY("alloc", shared_a.allocate(hg.a_elems() * es, s), "cudaMallocAsync");
    MYBLAS_CUDA_TRY("copy", copy_matrix(shared_a.get(), hg.ar, g.a, g.lda, int(hg.ar), int(hg.ac), es, s),
                    "copying the shared A to the GPU");
  }
  if (hg.share_b) {
    MYBLAS_CUDA_TRY("alloc", shared_b.allocate(hg.b_elems() * es, s), "cudaMallocAsync");
    MYBLAS_CUDA_TRY("copy", copy_matrix(shared_b.get(), hg.br, g.b, g.ldb, int(hg.br), int(hg.bc), es, s),
                    "copying the shared B to the GPU");
  }
  if (hg.share_a || hg.share_b) MYBLAS_CUDA_TRY("sync", cudaStreamSynchronize(s), "uploading the shared operands");
  *finished = 0;
  // Waits for slot sl's chunk and unpacks it: the only place the caller's C is written.
  auto retire = [&](Slot& sl) -> bool {
    if (sl.count == 0) return true;
    const cudaError_t e = cudaEventSynchronize(sl.done);
    if (e != cudaSuccess || fault_injected("sync")) {
      *why = e != cudaSuccess ? note_cuda_error(e, "a chunk of the batch on the GPU") : "injected fault at sync";
      return false;
    }
    unpack(hg, sl.first, sl.count, static_cast<const unsigned char*>(sl.out.get()));
    *finished = sl.first + sl.count;
    sl.count = 0;
    return true;
  };
  int64_t next = 0;
  for (int turn = 0; next < g.count; ++turn) {
    Slot& sl = slots[turn & 1];
    if (!retire(sl)) return false;
    const int64_t first = next, count = std::min(chunk, g.count - next);
    next += count;
    pack(hg, first, count, static_cast<unsigned char*>(sl.in.get()));
    s = sl.stream;
    const size_t in_bytes = hg.in_bytes(count);
    if (in_bytes)
      MYBLAS_CUDA_TRY("copy", cudaMemcpyAsync(sl.din.get(), sl.in.get(), in_bytes, cudaMemcpyHostToDevice, s),
                      "uploading a chunk of the batch");
    unsigned char* d = static_cast<unsigned char*>(sl.din.get());
    const void* da = hg.share_a ? shared_a.get() : d;
    if (!hg.share_a) d += size_t(count) * hg.a_elems() * es;
    const void* db = hg.share_b ? shared_b.get() : d;
    if (!hg.share_b) d += size_t(count) * hg.b_elems() * es;
    void* dc = sl.dout.get();
    if (hg.read_c)
      MYBLAS_CUDA_TRY("copy", cudaMemcpyAsync(dc, d, size_t(count) * hg.c_elems() * es, cudaMemcpyDeviceToDevice, s),
                      "placing C");
    // (this thread's handle, bound to the slot's stream)
    cublasHandle_t h = cublas_handle(dev, s, math_mode(p.type), why);
    if (!h) return false;
    const cublasStatus_t st =
        fault_injected("cublas")
            ? CUBLAS_STATUS_EXECUTION_FAILED
            : gemm_strided(api, h, p.type, g, da, hg.ar, hg.share_a ? 0 : int64_t(hg.a_elems()), db, hg.br,
                           hg.share_b ? 0 : int64_t(hg.b_elems()), dc, g.m, int64_t(hg.c_elems()), count);
    if (st != CUBLAS_STATUS_SUCCESS) {
      *why = std::string("cuBLAS batched gemm failed: ") + api->status_string(st);
      return false;
    }
    MYBLAS_CUDA_TRY("copy",
                    cudaMemcpyAsync(sl.out.get(), dc, size_t(count) * hg.c_elems() * es, cudaMemcpyDeviceToHost, s),
                    "downloading a chunk of the batch");
    MYBLAS_CUDA_TRY("copy", cudaEventRecord(sl.done, s), "cudaEventRecord");
    sl.first = first, sl.count = count;
  }
  // The two chunks still in flight, oldest first.
  Slot* order[2] = {&slots[0], &slots[1]};
  if (slots[1].count && slots[0].count && slots[1].first < slots[0].first) std::swap(order[0], order[1]);
  for (Slot* sl : order)
    if (!retire(*sl)) return false;
  return true;
}

bool host_batch(const BatchProblem& p, std::string* why) {
  const int target = call_device(-1, thread_stream());
  DeviceScope scope(target);
  cudaStream_t s = nullptr;
  MYBLAS_CUDA_TRY("device", scope.status(), "cudaSetDevice");
  const CublasApi* api = cublas_api(why);
  if (!api) return false;
  const int dev = run_device(target, scope.saved() >= 0 ? scope.saved() : 0);
  for (const BatchGroup& g : p.groups)
    if (p.family != Family::gemm || !sizes_fit(g)) {
      *why = p.family != Family::gemm ? "host-array GEMV runs on the CPU" : "sizes beyond cuBLAS's 32-bit interface";
      return false;
    }
  bool wrote = false;
  for (size_t gi = 0; gi < p.groups.size(); ++gi) {
    const BatchGroup& g = p.groups[gi];
    int64_t finished = 0;
    std::string group_why;
    bool ok;
    if (g.scale_only(p.family)) {
      BatchProblem one = p;  // C := beta C reads nothing else: the CPU does it where C lives
      one.groups = {g};
      ok = cpu_batch(one, &group_why);
      finished = ok ? g.count : 0;
    } else {
      ok = host_group(p, g, api, dev, &finished, &group_why);
    }
    if (ok) {
      wrote = true;
      continue;
    }
    if (!wrote && finished == 0) {  // nothing written yet: the caller redoes the whole call
      *why = group_why;
      return false;
    }
    warn_once("batch:" + group_why, std::string(routine_name(routine_of(p.family, p.type))) +
                                        "_batch on the GPU: " + group_why + "; completing it on the CPU");
    BatchProblem rest = p;
    rest.groups.assign(p.groups.begin() + long(gi), p.groups.end());
    BatchGroup& first = rest.groups[0];
    const size_t es = p.elem_size();
    if (first.listed()) {
      first.a_list += finished, first.b_list += finished, first.c_list += finished;
    } else {
      first.a = first.a_at(finished, es), first.b = first.b_at(finished, es), first.c = first.c_at(finished, es);
    }
    first.count -= finished;
    std::string ignored;  // host operands: the CPU path cannot fail
    cpu_batch(rest, &ignored);
    return true;
  }
  return true;
}

}  // namespace

bool gpu_batch(const BatchProblem& p, bool use_kernels, std::string* why) {
  if (sticky_fault(why)) return false;
  if (p.mem == Mem::host) return host_batch(p, why);
  return device_batch(p, use_kernels, why);
}

}  // namespace myblas
