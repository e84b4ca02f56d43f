#include "backends/cuda/host_pipeline.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "backends/cuda/cublas_backend.h"
#include "backends/cuda/cuda_runtime.h"
#include "core/config.h"
#include "core/log.h"
#include "core/thread_pool.h"

namespace myblas {

namespace {

// ---- pinned host buffers, cached: cudaHostAlloc costs milliseconds per hundred MB ----
constexpr size_t kPinnedKeep = size_t(1) << 30;  // cache at most this much between calls
std::mutex g_pinned_mutex;
std::multimap<size_t, void*> g_pinned_free;
size_t g_pinned_cached = 0;
pid_t g_pinned_pid = 0;  // the process whose exit handler frees the cache (0: none registered)

// At exit (or when the library is unloaded: glibc's atexit in a shared object runs there),
// the cached buffers go back with cudaFreeHost. The handler is registered at the first buffer
// cached, after the CUDA runtime registered its own, so it runs while the runtime is still up.
// Not in a fork child (its copy of the map names the parent's pinned memory) and not after
// the context was lost. Buffers held by calls still running are not in the cache.
void free_pinned_cache() {
  std::lock_guard<std::mutex> lock(g_pinned_mutex);
  if (g_pinned_pid != getpid() || gpu_lost()) return;
  for (auto& kv : g_pinned_free) cudaFreeHost(kv.second);
  g_pinned_free.clear();
  g_pinned_cached = 0;
}

class Pinned {
 public:
  Pinned() = default;
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  ~Pinned() { release(); }
  cudaError_t acquire(size_t bytes) {
    release();
    {
      std::lock_guard<std::mutex> lock(g_pinned_mutex);
      auto it = g_pinned_free.lower_bound(bytes);
      if (it != g_pinned_free.end() && it->first <= 2 * bytes + (size_t(64) << 20)) {
        size_ = it->first;
        ptr_ = it->second;
        g_pinned_cached -= size_;
        g_pinned_free.erase(it);
        return cudaSuccess;
      }
    }
    size_ = (bytes + (size_t(2) << 20) - 1) & ~((size_t(2) << 20) - 1);
    cudaError_t e = cudaHostAlloc(&ptr_, size_, cudaHostAllocPortable);
    if (e != cudaSuccess) ptr_ = nullptr;
    return e;
  }
  void* get() const { return ptr_; }

 private:
  void release() {
    if (!ptr_) return;
    std::lock_guard<std::mutex> lock(g_pinned_mutex);
    if (g_pinned_cached + size_ <= kPinnedKeep) {
      if (g_pinned_pid != getpid()) {
        g_pinned_pid = getpid();
        std::atexit(free_pinned_cache);
      }
      g_pinned_free.emplace(size_, ptr_);
      g_pinned_cached += size_;
    } else {
      cudaFreeHost(ptr_);
    }
    ptr_ = nullptr;
  }
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

// Copies a rows x cols block between host buffers (leading dimensions in elements) with the
// copy threads, in pieces of about a megabyte.
void host_copy(void* dst, int64_t ldd, const void* src, int64_t lds, int rows, int cols, size_t es) {
  if (rows <= 0 || cols <= 0) return;
  const size_t col_bytes = size_t(rows) * es;
  const size_t piece = size_t(1) << 20;
  const size_t per_col = std::max<size_t>(1, (col_bytes + piece - 1) / piece);  // pieces per column
  const size_t cols_per_task = per_col > 1 ? 1 : std::max<size_t>(1, piece / col_bytes);
  const size_t col_tasks = (size_t(cols) + cols_per_task - 1) / cols_per_task;
  auto* d = static_cast<unsigned char*>(dst);
  auto* s = static_cast<const unsigned char*>(src);
  parallel_for(col_tasks * per_col, [&](size_t t) {
    const size_t ct = t / per_col, part = t % per_col;
    const size_t c0 = ct * cols_per_task, c1 = std::min<size_t>(size_t(cols), c0 + cols_per_task);
    const size_t b0 = part * piece, b1 = std::min(col_bytes, b0 + piece);
    for (size_t c = c0; c < c1; ++c)
      std::memcpy(d + c * size_t(ldd) * es + b0, s + c * size_t(lds) * es + b0, b1 - b0);
  });
}

size_t memory_budget() {
  size_t free_b = 0, total = 0;
  if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
    cudaGetLastError();
    free_b = size_t(1) << 30;
  }
  size_t budget = free_b / 10 * 8;
  if (const char* v = std::getenv("MYBLAS_GPU_MEMORY_BUDGET")) {  // bytes; for tests
    const unsigned long long b = std::strtoull(v, nullptr, 0);
    if (b > 0) budget = std::min<size_t>(budget, size_t(b));
  }
  return budget;
}

// ---- streams and events, kept per thread and device between calls ----
// Creating and destroying two streams and four events cost every call time it does not need
// to spend. They are kept for the next call on the same thread and device, and destroyed when
// the thread exits, but only where that is safe: not in a fork child (CUDA does not survive
// fork), not after the context was lost (sticky error), and not if the context they were
// made in is gone (the program's cudaDeviceReset destroyed them with it; cuCtxGetId tells).
// A call that fails destroys them, so the next one starts with fresh ones.
struct PipelineStreams {
  cudaStream_t stream[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};    // a slot's tile is complete
  cudaEvent_t a_free[2] = {nullptr, nullptr};  // the upload from a staging buffer of A is complete
  uint64_t context = 0;                        // id of the context they belong to (0: unknown)

  bool empty() const { return stream[0] == nullptr; }
  void destroy() {
    for (int i = 0; i < 2; ++i) {
      if (done[i]) cudaEventDestroy(done[i]);
      if (a_free[i]) cudaEventDestroy(a_free[i]);
      if (stream[i]) cudaStreamDestroy(stream[i]);
    }
    *this = PipelineStreams{};
  }
  cudaError_t create() {
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 2 && e == cudaSuccess; ++i) {
      e = cudaStreamCreateWithFlags(&stream[i], cudaStreamNonBlocking);
      if (e == cudaSuccess) e = cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming);
      if (e == cudaSuccess) e = cudaEventCreateWithFlags(&a_free[i], cudaEventDisableTiming);
    }
    if (e != cudaSuccess) destroy();
    return e;
  }
};

struct ThreadStreams {
  std::vector<PipelineStreams> by_device;
  pid_t pid = getpid();
  ~ThreadStreams() {
    if (pid != getpid() || gpu_lost()) return;
    for (size_t d = 0; d < by_device.size(); ++d) {
      PipelineStreams& s = by_device[d];
      if (!s.empty() && s.context != 0 && primary_context_id(int(d)) == s.context) s.destroy();
    }
  }
};
thread_local ThreadStreams t_streams;

// The calling thread's streams for `dev` (the current device), created if it has none yet.
cudaError_t acquire_streams(int dev, PipelineStreams** out) {
  if (t_streams.pid != getpid()) {  // a fork child's copy of its parent's handles: not ours
    t_streams.by_device.clear();
    t_streams.pid = getpid();
  }
  if (size_t(dev) >= t_streams.by_device.size()) t_streams.by_device.resize(size_t(dev) + 1);
  PipelineStreams& s = t_streams.by_device[size_t(dev)];
  const uint64_t context = current_context_id();
  if (!s.empty() && s.context != context) s = PipelineStreams{};  // made in a context that is gone
  if (s.empty()) {
    const cudaError_t e = s.create();
    if (e != cudaSuccess) return e;
    s.context = context;
  }
  *out = &s;
  return cudaSuccess;
}

void discard_streams(int dev) {
  if (size_t(dev) < t_streams.by_device.size()) t_streams.by_device[size_t(dev)].destroy();
}

// One of the two pipeline slots: its stream, device buffers and pinned staging.
struct Slot {
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  DeviceBuffer a, b, c;
  Pinned pa, pb, pc;
  bool busy = false;  // has a tile in flight whose C must be copied out
  int i0 = 0, mb = 0, j = 0;
};

}  // namespace

bool pipeline_gemm(const GemmProblem& p, std::vector<CTile>* unfinished, std::string* why) {
  unfinished->clear();
  const size_t es = p.elem_size();
  const int m = p.m, n = p.n, k = p.k;
  const size_t budget = memory_budget();
  // Row blocks: all of op(A) stays on the GPU if it takes at most half the budget.
  const size_t a_bytes = size_t(m) * size_t(k) * es;
  int mb = m;
  if (a_bytes > budget / 2) mb = int(std::max<size_t>(1, budget / 4 / (size_t(k) * es)));
  mb = std::min(mb, m);
  const int row_blocks = (m + mb - 1) / mb;
  // Column panels: two slots of (B panel + C tile [+ A block]) in what is left; at least
  // about eight panels so that copies and multiplications overlap, multiples of 64 columns.
  const size_t a_resident = row_blocks == 1 ? size_t(mb) * k * es : 0;
  const size_t left = budget > a_resident ? budget - a_resident : 0;
  const size_t per_col = (size_t(k) + size_t(mb)) * es;
  const size_t a_block = row_blocks == 1 ? 0 : size_t(mb) * k * es;
  int nb = int(std::min<size_t>(size_t(n), left > 2 * a_block ? (left / 2 - a_block) / per_col : 1));
  nb = std::min(nb, std::max(256, (n + 7) / 8));
  if (nb >= 128) nb = nb / 64 * 64;
  nb = std::max(1, std::min(nb, n));
  const int panels = (n + nb - 1) / nb;

  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    *why = note_cuda_error(cudaGetLastError(), "cudaGetDevice");
    return false;
  }
  Slot slots[2];
  // Tiles whose result is in the caller's C. With row blocks, a panel's tiles are copied out
  // one by one, so after a failure a panel can be partly final: the caller must redo exactly
  // the tiles not marked here (tests/reliability's leaks.pipeline found the panel-level version).
  std::vector<char> copied_out(size_t(panels) * size_t(row_blocks), 0);
  cudaStream_t saved_stream = thread_stream();
  bool ok = true;
  auto fail = [&](cudaError_t e, const char* what) {
    if (ok) *why = note_cuda_error(e, what);
    ok = false;
  };
  // Every CUDA step is checked. Test-only MYBLAS_TEST_FAULT: the step's point ("alloc",
  // "pin", "copy", "sync") fails it at once; "pipeline" fails a download once three panels
  // have gone through, so that some columns are final when the failure comes.
  auto check = [&](const char* point, cudaError_t e, const char* what) {
    bool injected = fault_injected(point);
    if (!injected && fault_injected("pipeline") && std::strcmp(what, "download") == 0 &&
        std::max(slots[0].j, slots[1].j) >= 3)
      injected = true;
    if (injected && e == cudaSuccess) {
      if (ok) *why = std::string("injected fault at ") + point + " (" + what + ")";
      ok = false;
      return false;
    }
    if (e != cudaSuccess) fail(e, what);
    return e == cudaSuccess;
  };
  // Copies a finished tile out to the caller's C and marks it final.
  auto retire = [&](Slot& s) {
    if (!s.busy) return;
    s.busy = false;
    if (!check("sync", cudaEventSynchronize(s.done), "the pipelined GEMM")) return;
    host_copy(static_cast<unsigned char*>(p.c) + (size_t(s.j) * nb * size_t(p.ldc) + size_t(s.i0)) * es,
              p.ldc, s.pc.get(), s.mb, s.mb, std::min(nb, n - s.j * nb), es);
    copied_out[size_t(s.j) * size_t(row_blocks) + size_t(s.i0 / mb)] = 1;
  };

  PipelineStreams* streams = nullptr;
  if (check("alloc", acquire_streams(dev, &streams), "cudaStreamCreate"))
    for (int i = 0; i < 2; ++i) {
      slots[i].stream = streams->stream[i];
      slots[i].done = streams->done[i];
    }
  for (Slot& s : slots) {
    if (!ok) break;
    if (!(check("alloc", s.b.allocate(size_t(k) * nb * es, s.stream), "device memory for B") &&
          check("alloc", s.c.allocate(size_t(mb) * nb * es, s.stream), "device memory for C") &&
          check("pin", s.pb.acquire(size_t(k) * nb * es), "pinned memory") &&
          check("pin", s.pc.acquire(size_t(mb) * nb * es), "pinned memory")))
      break;
    if (row_blocks > 1 &&
        !(check("alloc", s.a.allocate(size_t(mb) * k * es, s.stream), "device memory for A") &&
          check("pin", s.pa.acquire(size_t(mb) * k * es), "pinned memory")))
      break;
  }
  // op(A) rows [i0, i0+rows) as stored: N: a rows x k block; T: a k x rows block.
  auto stage_a = [&](void* pinned, int i0, int rows) {
    if (p.ta == Op::N)
      host_copy(pinned, rows, static_cast<const unsigned char*>(p.a) + size_t(i0) * es, p.lda, rows, k, es);
    else
      host_copy(pinned, k, static_cast<const unsigned char*>(p.a) + size_t(i0) * p.lda * es, p.lda, k, rows, es);
  };
  DeviceBuffer a_all;
  // All of op(A), uploaded once in 32 MB chunks through two pinned buffers, so that the host
  // copy of one chunk overlaps the upload of the other. Nothing waits for the last chunk here:
  // slot 0's stream has the upload queued ahead of its first tile, slot 1 waits for an event,
  // and the host goes on to stage the first B panels meanwhile.
  Pinned a_stage[2];
  cudaEvent_t a_free[2] = {nullptr, nullptr};  // the upload from a_stage[i] has completed
  if (ok && row_blocks == 1) {
    a_free[0] = streams->a_free[0];
    a_free[1] = streams->a_free[1];
    const int chunk = std::max(1, int((size_t(32) << 20) / (size_t(p.a_rows()) * es)));
    const size_t chunk_bytes = size_t(p.a_rows()) * std::min(chunk, p.a_cols()) * es;
    if (check("alloc", a_all.allocate(a_bytes, slots[0].stream), "device memory for A") &&
        check("pin", a_stage[0].acquire(chunk_bytes), "pinned memory") &&
        check("pin", a_stage[1].acquire(chunk_bytes), "pinned memory")) {
      for (int c0 = 0, i = 0; ok && c0 < p.a_cols(); c0 += chunk, ++i) {
        const int b = i % 2, cols = std::min(chunk, p.a_cols() - c0);
        if (i >= 2 && !check("sync", cudaEventSynchronize(a_free[b]), "uploading A")) break;
        host_copy(a_stage[b].get(), p.a_rows(), static_cast<const unsigned char*>(p.a) + size_t(c0) * p.lda * es,
                  p.lda, p.a_rows(), cols, es);
        if (!check("copy", cudaMemcpyAsync(static_cast<unsigned char*>(a_all.get()) + size_t(c0) * p.a_rows() * es,
                                           a_stage[b].get(), size_t(p.a_rows()) * cols * es,
                                           cudaMemcpyHostToDevice, slots[0].stream), "uploading A") ||
            !check("sync", cudaEventRecord(a_free[b], slots[0].stream), "cudaEventRecord"))
          break;
      }
      if (ok) check("sync", cudaEventRecord(slots[0].done, slots[0].stream), "cudaEventRecord");
      if (ok) check("sync", cudaStreamWaitEvent(slots[1].stream, slots[0].done, 0), "cudaStreamWaitEvent");
    }
  }

  for (int t = 0; ok && t < panels * row_blocks; ++t) {
    Slot& s = slots[t % 2];
    retire(s);
    if (!ok) break;
    s.j = t / row_blocks;
    s.i0 = (t % row_blocks) * mb;
    s.mb = std::min(mb, m - s.i0);
    const int j0 = s.j * nb, cols = std::min(nb, n - j0);
    // Stage op(B)'s columns [j0, j0+cols): N: a k x cols block; T: a cols x k block.
    const int b_ld = p.tb == Op::N ? k : cols;
    if (p.tb == Op::N)
      host_copy(s.pb.get(), k, static_cast<const unsigned char*>(p.b) + size_t(j0) * p.ldb * es, p.ldb, k, cols, es);
    else
      host_copy(s.pb.get(), cols, static_cast<const unsigned char*>(p.b) + size_t(j0) * es, p.ldb, cols, k, es);
    const unsigned char* c_src = static_cast<const unsigned char*>(p.c) + (size_t(j0) * p.ldc + size_t(s.i0)) * es;
    if (p.beta != 0.f) host_copy(s.pc.get(), s.mb, c_src, p.ldc, s.mb, cols, es);
    const void* a_dev = a_all.get();
    int a_ld = p.a_rows();
    if (row_blocks > 1) {
      stage_a(s.pa.get(), s.i0, s.mb);
      a_ld = p.ta == Op::N ? s.mb : k;
      if (!check("copy", cudaMemcpyAsync(s.a.get(), s.pa.get(), size_t(s.mb) * k * es, cudaMemcpyHostToDevice, s.stream), "upload"))
        break;
      a_dev = s.a.get();
    }
    if (!check("copy", cudaMemcpyAsync(s.b.get(), s.pb.get(), size_t(k) * cols * es, cudaMemcpyHostToDevice, s.stream), "upload"))
      break;
    if (p.beta != 0.f &&
        !check("copy", cudaMemcpyAsync(s.c.get(), s.pc.get(), size_t(s.mb) * cols * es, cudaMemcpyHostToDevice, s.stream), "upload"))
      break;
    GemmProblem q = p;  // this tile, all operands on the device
    q.m = s.mb;
    q.n = cols;
    q.a = a_dev;
    q.lda = a_ld;
    q.b = s.b.get();
    q.ldb = b_ld;
    q.c = s.c.get();
    q.ldc = s.mb;
    q.mem_a = q.mem_b = q.mem_c = Mem::device;
    q.dev_a = q.dev_b = q.dev_c = q.device = dev;
    set_thread_stream(s.stream);  // cublas_gemm enqueues on it and returns without waiting
    std::string tile_why;
    const bool tile_ok = cublas_gemm(q, &tile_why);
    set_thread_stream(saved_stream);
    if (!tile_ok) {
      if (ok) *why = tile_why;
      ok = false;
      break;
    }
    if (!check("copy", cudaMemcpyAsync(s.pc.get(), s.c.get(), size_t(s.mb) * cols * es, cudaMemcpyDeviceToHost, s.stream), "download") ||
        !check("sync", cudaEventRecord(s.done, s.stream), "cudaEventRecord"))
      break;
    s.busy = true;
  }
  for (Slot& s : slots) {
    if (ok) retire(s);
    if (s.stream) cudaStreamSynchronize(s.stream);  // nothing may still write pinned memory
  }
  if (!ok) cudaGetLastError();
  // Free the device buffers on their streams before the streams go.
  for (Slot& s : slots) {
    s.a.release();
    s.b.release();
    s.c.release();
  }
  a_all.release();
  for (Slot& s : slots)
    if (s.stream) cudaStreamSynchronize(s.stream);  // (also: no upload still reads a_stage)
  if (!ok) discard_streams(dev);  // idle now; a failed call leaves nothing behind for the next
  if (!ok)
    for (int j = 0; j < panels; ++j)
      for (int i = 0; i < row_blocks; ++i)
        if (!copied_out[size_t(j) * size_t(row_blocks) + size_t(i)])
          unfinished->push_back({i * mb, std::min(mb, m - i * mb), j * nb, std::min(nb, n - j * nb)});
  return ok;
}

}  // namespace myblas
