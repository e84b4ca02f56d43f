#include "backends/cuda/host_pipeline.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "backends/cuda/cublas_backend.h"
#include "backends/cuda/cuda_runtime.h"
#include "core/buffer_cache.h"
#include "core/config.h"
#include "core/log.h"
#include "core/thread_pool.h"

namespace myblas {

namespace {

// ---- pinned host buffers, cached: cudaHostAlloc costs milliseconds per hundred MB ----
// Cache at most this much between calls: 1/32 of the host's memory, from 1 to 4 GB (a 16384^2
// FP64 Level-3 call keeps about 1.6 GB in its staging buffers; pinned memory is taken from what
// the operating system can page).
size_t pinned_keep() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const size_t phys = pages > 0 && page > 0 ? size_t(pages) * size_t(page) : 0;
  return std::min(size_t(4) << 30, std::max(size_t(1) << 30, phys / 32));
}
std::mutex g_pinned_mutex;
BufferCache g_pinned(pinned_keep(), size_t(64) << 20);
pid_t g_pinned_pid = 0;  // the process whose exit handler frees the cache (0: none registered)

// At exit (or when the library is unloaded: glibc's atexit in a shared object runs there),
// the cached buffers go back with cudaFreeHost. The handler is registered at the first buffer
// cached, after the CUDA runtime registered its own, so it runs while the runtime is still up.
// Not in a fork child (its copy of the map names the parent's pinned memory) and not after
// the context was lost. Buffers held by calls still running are not in the cache.
void free_pinned_cache() {
  std::lock_guard<std::mutex> lock(g_pinned_mutex);
  if (g_pinned_pid != getpid() || gpu_lost()) return;
  for (void* p : g_pinned.drain()) cudaFreeHost(p);
}

}  // namespace

size_t pinned_cache_bytes() { return pinned_keep(); }

cudaError_t Pinned::acquire(size_t bytes) {
  release();
  {
    std::lock_guard<std::mutex> lock(g_pinned_mutex);
    const auto got = g_pinned.take(bytes);
    if (got.first) {
      ptr_ = got.first;
      size_ = got.second;
      return cudaSuccess;
    }
  }
  size_ = (bytes + (size_t(2) << 20) - 1) & ~((size_t(2) << 20) - 1);
  cudaError_t e = cudaHostAlloc(&ptr_, size_, cudaHostAllocPortable);
  if (e != cudaSuccess) ptr_ = nullptr;
  return e;
}

void Pinned::release() {
  if (!ptr_) return;
  std::vector<void*> evicted;
  {
    std::lock_guard<std::mutex> lock(g_pinned_mutex);
    if (g_pinned_pid != getpid()) {
      g_pinned_pid = getpid();
      std::atexit(free_pinned_cache);
    }
    g_pinned.give(ptr_, size_, &evicted);
  }
  for (void* p : evicted) cudaFreeHost(p);  // (outside the lock: cudaFreeHost waits for the device)
  ptr_ = nullptr;
}

void host_copy(void* dst, int64_t ldd, const void* src, int64_t lds, int rows, int cols, size_t es) {
  if (rows <= 0 || cols <= 0) return;
  const size_t col_bytes = size_t(rows) * es;
  // Pieces of up to a megabyte, smaller for a block of a few MB so that every copy thread gets
  // some (the lead panels' 4 MB row strips took 0.5-0.9 ms in 1 MB pieces: 4 threads of 16
  // busy). A block of 512 KB or less stays on the calling thread (handing its pieces to the
  // pool made host-array HGEMM 256^3 take 0.22-0.33 ms instead of 0.12-0.14).
  const size_t bytes = col_bytes * size_t(cols);
  const size_t spread = bytes / (4 * std::max<size_t>(1, pool_threads()));  // ~4 pieces a thread
  const size_t piece =
      bytes <= (size_t(512) << 10) ? bytes : std::clamp(spread, size_t(64) << 10, size_t(1) << 20);
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

size_t pipeline_memory_budget() {
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

int pipeline_a_chunk(int m, int k, size_t es, size_t budget) {
  const size_t a_bytes = size_t(m) * size_t(k) * es;
  // About 32 MB of op(A) per chunk; less under a small memory budget (the tests' budgets
  // reach several chunks with small matrices).
  size_t chunk_bytes = std::max<size_t>(std::min<size_t>(size_t(32) << 20, budget / 16), 1);
  // From 32 MB of A up, at least four chunks: measured faster for HGEMM 4096^3 (2.55-2.73 ms
  // against 2.74-3.00) and SGEMM 4096^3 (NN 5.16-5.27 against 5.54-5.65), while SGEMM 2048^3
  // (16 MB) measured slower in four chunks, with lead panels or without
  // (bench/results/h100-host-achunks-2026-11-25.md).
  if (a_bytes >= (size_t(32) << 20)) chunk_bytes = std::min(chunk_bytes, std::max(a_bytes / 4, size_t(4) << 20));
  int kc = std::min(k, int(std::max<size_t>(1, chunk_bytes / (size_t(std::max(m, 1)) * es))));
  if (kc >= 128 && kc < k) kc = kc / 64 * 64;
  return std::max(1, kc);
}

namespace {

// ---- streams and events, kept per thread and device between calls (host_pipeline.h) ----
// Kept only where that is safe: not in a fork child (CUDA does not survive fork), not after the
// context was lost (sticky error), and not if the context they were made in is gone (the
// program's cudaDeviceReset destroyed them with it; cuCtxGetId tells). A call that fails destroys
// them, so the next one starts with fresh ones.
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

}  // namespace

void PipelineStreams::destroy() {
  for (int i = 0; i < kStreams; ++i) {
    if (done[i]) cudaEventDestroy(done[i]);
    if (staged[i]) cudaEventDestroy(staged[i]);
    if (stream[i]) cudaStreamDestroy(stream[i]);
  }
  for (cudaEvent_t& r : rows_up)
    if (r) cudaEventDestroy(r);
  *this = PipelineStreams{};
}

cudaError_t PipelineStreams::create() {
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < kStreams && e == cudaSuccess; ++i) {
    e = cudaStreamCreateWithFlags(&stream[i], cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&staged[i], cudaEventDisableTiming);
  }
  for (int i = 0; i < 2 && e == cudaSuccess; ++i) e = cudaEventCreateWithFlags(&rows_up[i], cudaEventDisableTiming);
  if (e != cudaSuccess) destroy();
  return e;
}

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

namespace {

// One of the two pipeline slots: its stream, device buffers and pinned staging.
struct Slot {
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;    // the slot's tile is complete, its C in pc
  cudaEvent_t staged = nullptr;  // the uploads from pa and pb are done: they can be refilled
  DeviceBuffer a, b, c;
  Pinned pa, pb, pc;
  bool busy = false;            // has a tile in flight whose C must be copied out
  bool staged_pending = false;  // `staged` covers uploads from pa/pb (else they were never used)
  int i0 = 0, mb = 0, j = 0;    // its tile: rows [i0, i0 + mb) of C in panel j
};

// Where a pipelined call's host time goes, logged per call with MYBLAS_VERBOSE: taking pinned
// buffers (cudaHostAlloc where the cache has none), host copies into pinned memory (A, B, C in)
// and out of it (C), and waits for the GPU; the rest is queueing work. Reading the clock costs
// tens of nanoseconds a phase; a pipelined call takes a millisecond or more.
struct PhaseClock {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  double pin = 0, in = 0, out = 0, wait = 0, feed = 0;
  template <class F>
  void time(double& acc, F&& f) {
    const Clock::time_point t0 = Clock::now();
    f();
    acc += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
  double total() const { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }
};

}  // namespace

bool pipeline_gemm(const PipelineGemm& p, std::vector<CTile>* unfinished, std::string* why) {
  unfinished->clear();
  const size_t es = p.es;
  const int m = p.m, n = p.n, k = p.k;
  const size_t budget = pipeline_memory_budget();
  // Row blocks: all of op(A) stays on the GPU if it takes at most half the budget.
  const size_t a_bytes = size_t(m) * size_t(k) * es;
  // op(A) already in this device's memory (a caller that shares one upload among GPUs): used in
  // place, never tiled or uploaded.
  const bool a_given = p.a_given;
  int mb = m;
  if (!a_given && a_bytes > budget / 2) mb = int(std::max<size_t>(1, budget / 4 / (size_t(k) * es)));
  mb = std::min(mb, m);
  const int row_blocks = (m + mb - 1) / mb;
  // Column panels: two slots of (B panel + C tile [+ A block]) in what is left; at least
  // about eight panels so that copies and multiplications overlap, multiples of 64 columns.
  const size_t a_resident = row_blocks == 1 && !a_given ? size_t(mb) * k * es : 0;
  const size_t left = budget > a_resident ? budget - a_resident : 0;
  const size_t per_col = (size_t(k) + size_t(mb)) * es;
  const size_t a_block = row_blocks == 1 ? 0 : size_t(mb) * k * es;
  int nb = int(std::min<size_t>(size_t(n), left > 2 * a_block ? (left / 2 - a_block) / per_col : 1));
  nb = std::min(nb, std::max(256, (n + 7) / 8));
  // A slot's pinned buffers (its B panel and C tile) within a quarter of the pinned cache's share
  // of this call (the cache over the GPUs running copy lanes at once): wider, the two slots'
  // buffers no longer stay cached between calls, and each call pins them anew (pinning 2 GB
  // took 0.75-1.1 s on the 2x H200 host, where the copies it serves move 40-60 GB/s).
  const size_t pin_share = pinned_cache_bytes() / 4 / copy_lanes();
  nb = std::min(nb, int(std::max<size_t>(64, pin_share / ((size_t(k) + size_t(mb)) * es))));
  if (nb >= 128) nb = nb / 64 * 64;
  nb = std::max(1, std::min(nb, n));
  const int panels = (n + nb - 1) / nb;

  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    *why = note_cuda_error(cudaGetLastError(), "cudaGetDevice");
    unfinished->push_back({0, m, 0, n});  // nothing was written: all of C is left to the caller
    return false;
  }
  // The copy threads wait for this call's copies spinning, not sleeping: they come every
  // 50-500 us, and waking sleeping threads for each made 2 MB copies take 340 us, not 40.
  PoolAwake copy_threads_awake;
  PhaseClock clock;
  Slot slots[2];
  // Tiles whose result is in the caller's C. With row blocks, a panel's tiles are copied out
  // one by one, so after a failure a panel can be partly final: the caller must redo exactly
  // the tiles not marked here (tests/reliability's leaks.pipeline found the panel-level version).
  std::vector<char> copied_out(size_t(panels) * size_t(row_blocks), 0);
  bool ok = true;
  auto fail = [&](cudaError_t e, const char* what) {
    if (ok) *why = note_cuda_error(e, what);
    ok = false;
  };
  // Every CUDA step is checked. Test-only MYBLAS_TEST_FAULT: the step's point ("alloc",
  // "pin", "copy", "sync") fails it at once; "pipeline" fails a download once three panels
  // have gone through, so that some columns are final when the failure comes.
  auto check = [&](const char* point, cudaError_t e, const char* what) {
    bool injected = fault_injected_on(point, dev);
    if (!injected && fault_injected_on("pipeline", dev) && std::strcmp(what, "download") == 0 &&
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
    bool done = false;
    clock.time(clock.wait, [&] { done = check("sync", cudaEventSynchronize(s.done), "the pipelined GEMM"); });
    if (!done) return;
    clock.time(clock.out, [&] {
      host_copy(static_cast<unsigned char*>(p.c) + (size_t(s.j) * nb * size_t(p.ldc) + size_t(s.i0)) * es, p.ldc,
                s.pc.get(), s.mb, s.mb, std::min(nb, n - s.j * nb), es);
    });
    copied_out[size_t(s.j) * size_t(row_blocks) + size_t(s.i0 / mb)] = 1;
  };

  PipelineStreams* streams = nullptr;
  if (check("alloc", acquire_streams(dev, &streams), "cudaStreamCreate"))
    for (int i = 0; i < 2; ++i) {
      slots[i].stream = streams->stream[i];
      slots[i].done = streams->done[i];
      slots[i].staged = streams->staged[i];
    }
  clock.time(clock.pin, [&] {
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
  });
  // Queues C_tile := alpha*op(A_tile)*op(B_tile) + beta*C_tile on `stream` (cublas_gemm returns
  // without waiting), every operand in device memory, C_tile rows x cols with leading dimension
  // rows. False, with *why, when cuBLAS refused.
  auto multiply = [&](cudaStream_t stream, int rows, int cols, int depth, bool use_beta, const void* a, int lda,
                      const void* b, int ldb, void* c) {
    std::string tile_why;
    const bool tile_ok = p.multiply(stream, dev, rows, cols, depth, use_beta, a, lda, b, ldb, c, &tile_why);
    if (!tile_ok && ok) *why = tile_why;
    if (!tile_ok) ok = false;
    return tile_ok;
  };
  // op(A) rows [i0, i0+rows) as stored: N: a rows x k block; T: a k x rows block.
  auto stage_a = [&](void* pinned, int i0, int rows) {
    if (p.ta == Op::N)
      host_copy(pinned, rows, static_cast<const unsigned char*>(p.a) + size_t(i0) * es, p.lda, rows, k, es);
    else
      host_copy(pinned, k, static_cast<const unsigned char*>(p.a) + size_t(i0) * p.lda * es, p.lda, k, rows, es);
  };
  // All of op(A) goes up once, in chunks of its k range (op(A)'s columns) through two pinned
  // buffers, so that the host copy of one chunk overlaps the upload of the other. SGEMM does
  // not wait for the last chunk to start multiplying: the first panel of each slot (the "lead"
  // panels) is multiplied chunk by chunk as A arrives, C_lead (+)= op(A)[:, kc] * op(B)[kc, lead],
  // on the second stream while the first one uploads the next chunk and its rows of the lead
  // panels' B. Before, the GPU idled through the whole upload of A (256 MB at 8192^2, about
  // 7 ms of a 32 ms call). HGEMM keeps one product per tile: a binary16 C accumulated over k
  // chunks would be rounded once per chunk instead of once.
  DeviceBuffer a_all;
  Pinned a_stage[2];
  int first_tile = 0;  // the main loop's first tile (the lead panels come before it)
  // A split call's shared A (a_feed) arrives the same way, chunk by chunk, staged by the first
  // block's pipeline and waited for by the others.
  const AFeed* feed = a_given ? p.a_feed : nullptr;
  // The region: where the lead panels' product is shorter than A's upload, they cannot keep the
  // GPU busy while A arrives (SGEMM 16384 over two GPUs: 47-65 ms of a block's 142-152 waited for
  // the shared A, the block's product being 82 ms). There the first `region` panels (about half
  // of the columns) are multiplied k-outer instead, C_region (+)= op(A)[:, step] op(B)[step,
  // region] in steps of about 1024 of k (a few chunks of A: shallower steps would read and write
  // C_region more than they multiply), with op(B)'s rows for each step through two rotating
  // buffers (host and device) instead of full-depth panels; C_region stays on the GPU and goes
  // down panel by panel, one beside each later panel's product (its own two pinned buffers and
  // the third stream), once A is complete and the other panels run as before.
  int region = 0;                     // panels
  int region_depth = 0;               // k per step: a multiple of the chunk depth
  cudaEvent_t region_done = nullptr;  // the region's last product
  DeviceBuffer c_region, b_rows[2];
  Pinned b_rows_pin[2];
  Slot region_slots[2];  // the region's downloads: pc, done, busy, j (third stream)
  if (ok && row_blocks == 1 && (!a_given || feed)) {
    const cudaStream_t up = slots[0].stream, mm = slots[1].stream;
    // chunk_up[i % 2]: chunk i's uploads (from a_stage[i % 2], and its B rows) are done. These are
    // the slots' `staged` events, free until the main loop.
    const cudaEvent_t chunk_up[2] = {slots[0].staged, slots[1].staged};
    const int kc = feed ? std::max(1, std::min(feed->kc, k)) : pipeline_a_chunk(m, k, es, budget);
    // A region of half the panels when A comes in several chunks, there are at least four
    // panels, the lead panels' product at 50 TFLOP/s would take less time than A's upload at
    // 40 GB/s (a model of the H100 and H200 hosts measured: 40-60 GB/s of staging, 50-65
    // TFLOP/s of cuBLAS S/DGEMM; SGEMM 16384 on one GPU, whose lead panels cover A, measured
    // 5% slower with a region, DGEMM 16384 10% faster, both split over two GPUs 5-6% faster),
    // in a split call's block or when A takes 512 MB (less under a small budget, so that the
    // tests reach it), and when its buffers fit beside the slots' (else: the lead panels).
    const double lead_flops = 2.0 * (p.complex ? 4 : 1) * m * std::min(n, 2 * nb) * double(k);
    if (p.split_k_lead && kc < k && panels >= 4 && lead_flops / 50e12 < double(a_bytes) / 40e9 &&
        (feed || a_bytes >= std::min(size_t(512) << 20, budget / 8))) {
      region_depth = std::min(k, kc * ((1024 + kc - 1) / kc));
      const size_t kr = size_t(region_depth);
      const size_t used = 2 * (size_t(k) + size_t(m)) * size_t(nb) * es + (feed ? 0 : a_bytes);
      const size_t room = budget > used ? budget - used : 0;
      auto cols_of = [&](int r) { return size_t(std::min(n, r * nb)); };
      region = panels / 2;
      // Pinned: the B rows' two buffers and two C panels, within one and a half times a slot's
      // share (with the slots' two and a split call's A stages, the call's pinned buffers stay
      // within its share of the cache, so that they stay cached between calls).
      while (region >= 2 && ((size_t(m) + 2 * kr) * cols_of(region) * es > room ||
                             (2 * kr * cols_of(region) + 2 * size_t(m) * size_t(nb)) * es > pin_share / 2 * 3))
        --region;
      if (region < 2) region = 0;
      if (region > 0) {
        const size_t nr = cols_of(region);
        // Optional: where a buffer cannot be had, the lead panels run instead (no fault injected).
        bool got = false;
        clock.time(clock.pin, [&] {
          got = c_region.allocate(size_t(m) * nr * es, up) == cudaSuccess;
          for (int b = 0; got && b < 2; ++b)
            got = b_rows[b].allocate(size_t(region_depth) * nr * es, up) == cudaSuccess &&
                  b_rows_pin[b].acquire(size_t(region_depth) * nr * es) == cudaSuccess &&
                  region_slots[b].pc.acquire(size_t(m) * size_t(nb) * es) == cudaSuccess;
        });
        if (!got) {
          cudaGetLastError();
          c_region.release();
          for (int b = 0; b < 2; ++b) {
            b_rows[b].release();
            b_rows_pin[b].release();
            region_slots[b].pc.release();
          }
          region = 0;
        }
      }
    }
    // Lead panels: the first panel of each slot, when A comes in more than one chunk (with one
    // there is nothing to overlap, and the two slots' first products keep their own streams).
    // Twice as wide, lead panels measured at most 1 ms faster at 8192^3, and 2.5x slower at
    // 16384^3, where their larger pinned buffers no longer stayed cached.
    const int lead = region == 0 && p.split_k_lead && kc < k ? std::min(2, panels) : 0;
    const size_t stage_bytes = size_t(m) * size_t(kc) * es;
    const unsigned char* a_src = static_cast<const unsigned char*>(p.a);
    const unsigned char* b_src = static_cast<const unsigned char*>(p.b);
    bool staged_a = feed != nullptr;
    if (!feed)
      clock.time(clock.pin, [&] {
        staged_a = check("alloc", a_all.allocate(a_bytes, up), "device memory for A") &&
                   check("pin", a_stage[0].acquire(stage_bytes), "pinned memory") &&
                   (kc >= k || check("pin", a_stage[1].acquire(stage_bytes), "pinned memory"));  // one chunk: one buffer
      });
    if (staged_a) {
      unsigned char* a_dev = feed ? static_cast<unsigned char*>(const_cast<void*>(p.a))
                                  : static_cast<unsigned char*>(a_all.get());
      const int64_t a_ld_dev = feed ? p.lda : (p.ta == Op::N ? m : k);
      // Chunk i's pinned buffer of A is free again: its upload (chunk i - 2's) is done.
      auto wait_chunk_buffers = [&](int b) {
        bool done = true;
        clock.time(clock.wait, [&] { done = check("sync", cudaEventSynchronize(chunk_up[b]), "uploading A"); });
        return done;
      };
      // Queues op(A)[:, k0:k0+kl] (chunk i) for the device on `up`: staged here, or the shared
      // upload's chunk waited for. N: stored columns k0.., contiguous in A's device copy (m x k);
      // T: stored rows k0.. of the k x m matrix, placed with A's pitch k.
      auto queue_a_chunk = [&](int i, int k0, int kl) {
        const int b = i % 2;
        cudaError_t e;
        if (feed) {
          cudaEvent_t arrived = nullptr;
          clock.time(clock.feed, [&] { arrived = feed->chunk(i); });
          if (!arrived) {
            if (ok) *why = "the shared upload of A to this GPU failed";
            ok = false;
            return false;
          }
          e = cudaStreamWaitEvent(up, arrived, 0);
        } else if (p.ta == Op::N) {
          clock.time(clock.in, [&] { host_copy(a_stage[b].get(), m, a_src + size_t(k0) * p.lda * es, p.lda, m, kl, es); });
          e = copy_matrix(a_dev + size_t(k0) * m * es, m, a_stage[b].get(), m, m, kl, es, up);
        } else {
          clock.time(clock.in, [&] { host_copy(a_stage[b].get(), kl, a_src + size_t(k0) * es, p.lda, kl, m, es); });
          e = copy_matrix(a_dev + size_t(k0) * es, k, a_stage[b].get(), kl, kl, m, es, up);
        }
        return check("copy", e, "uploading A");
      };
      if (region > 0) {
        const int nr = std::min(n, region * nb);
        unsigned char* cr = static_cast<unsigned char*>(c_region.get());
        // While the region runs, the third stream's two events mark each step's product done
        // (its device B rows can be refilled); the region's downloads take them over afterwards.
        const cudaEvent_t product_done[2] = {streams->done[2], streams->staged[2]};
        // beta != 0: the region's C goes up first, panel by panel through the slots' C buffers.
        for (int r = 0; ok && !p.beta_zero && r < region; ++r) {
          Slot& sl = slots[r % 2];
          const int j0 = r * nb, cols = std::min(nb, n - j0);
          bool free_pc = true;
          if (r >= 2) clock.time(clock.wait, [&] { free_pc = check("sync", cudaEventSynchronize(sl.done), "upload"); });
          if (!free_pc) break;
          clock.time(clock.in, [&] {
            host_copy(sl.pc.get(), m, static_cast<const unsigned char*>(p.c) + size_t(j0) * size_t(p.ldc) * es, p.ldc,
                      m, cols, es);
          });
          if (!check("copy", cudaMemcpyAsync(cr + size_t(j0) * m * es, sl.pc.get(), size_t(m) * cols * es,
                                             cudaMemcpyHostToDevice, up),
                     "upload") ||
              !check("sync", cudaEventRecord(sl.done, up), "cudaEventRecord"))
            break;
        }
        // A step's B rows are uploaded (their pinned buffer can be refilled). Events of their own:
        // the slots' `done` keep marking the region's C uploads, which the host waits for below
        // without waiting for the steps.
        const cudaEvent_t rows_up[2] = {streams->rows_up[0], streams->rows_up[1]};
        for (int k0 = 0, i = 0, step = 0; ok && k0 < k; k0 += region_depth, ++step) {
          const int sb = step % 2, kl = std::min(region_depth, k - k0);
          for (int c0 = k0; ok && c0 < k0 + kl; c0 += kc, ++i) {  // the step's chunks of A
            if (i >= 2 && !feed && !wait_chunk_buffers(i % 2)) break;
            if (!queue_a_chunk(i, c0, std::min(kc, k - c0))) break;
            check("sync", cudaEventRecord(chunk_up[i % 2], up), "cudaEventRecord");
          }
          if (!ok) break;
          bool free_rows = true;
          if (step >= 2) clock.time(clock.wait, [&] { free_rows = check("sync", cudaEventSynchronize(rows_up[sb]), "upload"); });
          if (!free_rows) break;
          // op(B)'s rows [k0, k0 + kl) of the region's columns: N: kl x nr, pitch kl; T: nr x kl,
          // pitch nr.
          clock.time(clock.in, [&] {
            if (p.tb == Op::N)
              host_copy(b_rows_pin[sb].get(), kl, b_src + size_t(k0) * es, p.ldb, kl, nr, es);
            else
              host_copy(b_rows_pin[sb].get(), nr, b_src + size_t(k0) * size_t(p.ldb) * es, p.ldb, nr, kl, es);
          });
          if ((step >= 2 && !check("sync", cudaStreamWaitEvent(up, product_done[sb], 0), "cudaStreamWaitEvent")) ||
              !check("copy", cudaMemcpyAsync(b_rows[sb].get(), b_rows_pin[sb].get(), size_t(kl) * nr * es,
                                             cudaMemcpyHostToDevice, up),
                     "upload") ||
              !check("sync", cudaEventRecord(rows_up[sb], up), "cudaEventRecord") ||
              !check("sync", cudaStreamWaitEvent(mm, rows_up[sb], 0), "cudaStreamWaitEvent"))
            break;
          const unsigned char* a_step = a_dev + (p.ta == Op::N ? size_t(k0) * size_t(a_ld_dev) : size_t(k0)) * es;
          if (!multiply(mm, m, nr, kl, k0 == 0, a_step, int(a_ld_dev), b_rows[sb].get(), p.tb == Op::N ? kl : nr, cr) ||
              !check("sync", cudaEventRecord(product_done[sb], mm), "cudaEventRecord"))
            break;
          region_done = product_done[sb];
        }
        // The slots' C buffers were upload sources; the main loop refills them on the host.
        for (Slot& sl : slots)
          if (ok && !p.beta_zero) check("sync", cudaEventSynchronize(sl.done), "upload");
        // The region's downloads: after its last product, on the third stream.
        for (int b = 0; ok && b < 2; ++b) {
          region_slots[b].stream = streams->stream[2];
          region_slots[b].done = product_done[b];
        }
        if (ok) check("sync", cudaStreamWaitEvent(streams->stream[2], region_done, 0), "cudaStreamWaitEvent");
      } else {
        for (int s = 0; ok && s < lead; ++s) {  // the lead panels' C, when beta reads it
          Slot& sl = slots[s];
          sl.j = s;
          sl.i0 = 0;
          sl.mb = m;
          const int cols = std::min(nb, n - s * nb);
          if (p.beta_zero) continue;
          host_copy(sl.pc.get(), m, static_cast<const unsigned char*>(p.c) + size_t(s) * nb * size_t(p.ldc) * es,
                    p.ldc, m, cols, es);
          check("copy", cudaMemcpyAsync(sl.c.get(), sl.pc.get(), size_t(m) * cols * es, cudaMemcpyHostToDevice, up),
                "upload");
        }
        for (int k0 = 0, i = 0; ok && k0 < k; k0 += kc, ++i) {
          const int b = i % 2, kl = std::min(kc, k - k0);
          if (i >= 2 && !feed && !wait_chunk_buffers(b)) break;
          if (!queue_a_chunk(i, k0, kl)) break;
          cudaError_t e;
          // Rows k0.. of op(B) for each lead panel, at their place in the slot's panel layout
          // (N: k x cols, pitch k; T: cols x k, pitch cols; as the main loop stages panels).
          for (int s = 0; ok && s < lead; ++s) {
            Slot& sl = slots[s];
            const int j0 = s * nb, cols = std::min(nb, n - j0);
            unsigned char* pb = static_cast<unsigned char*>(sl.pb.get());
            unsigned char* db = static_cast<unsigned char*>(sl.b.get());
            if (p.tb == Op::N) {
              clock.time(clock.in, [&] {
                host_copy(pb + size_t(k0) * es, k, b_src + (size_t(j0) * p.ldb + size_t(k0)) * es, p.ldb, kl, cols, es);
              });
              e = copy_matrix(db + size_t(k0) * es, k, pb + size_t(k0) * es, k, kl, cols, es, up);
            } else {
              clock.time(clock.in, [&] {
                host_copy(pb + size_t(k0) * cols * es, cols, b_src + (size_t(k0) * p.ldb + size_t(j0)) * es, p.ldb, cols,
                          kl, es);
              });
              e = copy_matrix(db + size_t(k0) * cols * es, cols, pb + size_t(k0) * cols * es, cols, cols, kl, es, up);
            }
            check("copy", e, "upload");
          }
          if (!ok || !check("sync", cudaEventRecord(chunk_up[b], up), "cudaEventRecord") ||
              !check("sync", cudaStreamWaitEvent(mm, chunk_up[b], 0), "cudaStreamWaitEvent"))
            break;
          for (int s = 0; s < lead; ++s) {
            Slot& sl = slots[s];
            const int cols = std::min(nb, n - s * nb);
            // This chunk of the lead panel: beta on the first, then accumulate.
            const unsigned char* a_chunk = a_dev + (p.ta == Op::N ? size_t(k0) * size_t(a_ld_dev) : size_t(k0)) * es;
            const unsigned char* b_chunk =
                static_cast<unsigned char*>(sl.b.get()) + (p.tb == Op::N ? size_t(k0) : size_t(k0) * cols) * es;
            if (!multiply(mm, m, cols, kl, k0 == 0, a_chunk, int(a_ld_dev), b_chunk,
                          p.tb == Op::N ? k : cols, sl.c.get()))
              break;
            if (k0 + kl < k) continue;
            // Its last chunk: the panel goes down now, ahead of the other lead panel's last product.
            if (!check("copy", cudaMemcpyAsync(sl.pc.get(), sl.c.get(), size_t(m) * cols * es, cudaMemcpyDeviceToHost, mm),
                       "download") ||
                !check("sync", cudaEventRecord(sl.done, mm), "cudaEventRecord"))
              break;
            sl.busy = true;
          }
        }
      }
      for (int s = 0; ok && s < lead; ++s) {  // the lead panels' B rows went up from pb
        slots[s].staged_pending = true;
        check("sync", cudaEventRecord(slots[s].staged, up), "cudaEventRecord");
      }
      first_tile = lead;
      // Without lead panels the second stream's first tile waits for all of A.
      if (ok && lead == 0) check("sync", cudaEventRecord(slots[0].done, up), "cudaEventRecord");
      if (ok && lead == 0) check("sync", cudaStreamWaitEvent(mm, slots[0].done, 0), "cudaStreamWaitEvent");
    }
  }
  // The region's next panel goes down through region slot (panel % 2), whose previous panel is
  // copied out first: one beside each later panel's product, the rest after the last.
  int next_region = 0;
  auto region_download = [&] {
    Slot& rs = region_slots[next_region % 2];
    retire(rs);
    if (!ok) return false;
    const int j0 = next_region * nb, cols = std::min(nb, n - j0);
    rs.j = next_region;
    rs.i0 = 0;
    rs.mb = m;
    if (!check("copy", cudaMemcpyAsync(rs.pc.get(), static_cast<unsigned char*>(c_region.get()) + size_t(j0) * m * es,
                                       size_t(m) * cols * es, cudaMemcpyDeviceToHost, rs.stream),
               "download") ||
        !check("sync", cudaEventRecord(rs.done, rs.stream), "cudaEventRecord"))
      return false;
    rs.busy = true;
    ++next_region;
    return true;
  };
  if (!ok || region_done == nullptr) region = 0;  // (a region that did not run has nothing to send)
  for (int t = std::max(first_tile, region); ok && t < panels * row_blocks; ++t) {
    Slot& s = slots[t % 2];
    const int j = t / row_blocks, i0 = (t % row_blocks) * mb, rows = std::min(mb, m - i0);
    const int j0 = j * nb, cols = std::min(nb, n - j0);
    // This tile's B (and A block) are staged as soon as the slot's pinned buffers have gone up,
    // and uploaded behind the slot's previous tile, before the host waits for that tile's C:
    // the GPU then has them while the host copies the previous C out (after the lead panels
    // it would otherwise idle through both host copies).
    bool refill = true;
    if (s.staged_pending)
      clock.time(clock.wait, [&] { refill = check("sync", cudaEventSynchronize(s.staged), "the pipelined GEMM"); });
    if (!refill) break;
    // op(B)'s columns [j0, j0+cols): N: a k x cols block; T: a cols x k block.
    const int b_ld = p.tb == Op::N ? k : cols;
    clock.time(clock.in, [&] {
      if (p.tb == Op::N)
        host_copy(s.pb.get(), k, static_cast<const unsigned char*>(p.b) + size_t(j0) * p.ldb * es, p.ldb, k, cols, es);
      else
        host_copy(s.pb.get(), cols, static_cast<const unsigned char*>(p.b) + size_t(j0) * es, p.ldb, cols, k, es);
      if (row_blocks > 1) stage_a(s.pa.get(), i0, rows);
    });
    // A slot's previous tile runs on its own stream, ahead of these uploads, except a lead panel
    // (second stream): only then does the stream wait for it.
    if (s.busy && t - 2 < first_tile && !check("sync", cudaStreamWaitEvent(s.stream, s.done, 0), "cudaStreamWaitEvent"))
      break;
    const void* a_dev = a_given ? p.a : a_all.get();
    int a_ld = a_given ? p.lda : p.a_rows();
    if (row_blocks > 1) {
      a_ld = p.ta == Op::N ? rows : k;
      if (!check("copy", cudaMemcpyAsync(s.a.get(), s.pa.get(), size_t(rows) * k * es, cudaMemcpyHostToDevice, s.stream), "upload"))
        break;
      a_dev = s.a.get();
    }
    if (!check("copy", cudaMemcpyAsync(s.b.get(), s.pb.get(), size_t(k) * cols * es, cudaMemcpyHostToDevice, s.stream), "upload") ||
        !check("sync", cudaEventRecord(s.staged, s.stream), "cudaEventRecord"))
      break;
    s.staged_pending = true;
    auto multiply_tile = [&] { return multiply(s.stream, rows, cols, k, true, a_dev, a_ld, s.b.get(), b_ld, s.c.get()); };
    // With beta == 0 the product is queued now, before the host copies the slot's previous C
    // out of pc (only this tile's download into pc must wait for that); with beta != 0 it needs
    // this tile's C, which goes up through pc after that copy.
    if (p.beta_zero && !multiply_tile()) break;
    retire(s);
    if (!ok) break;
    s.j = j;
    s.i0 = i0;
    s.mb = rows;
    if (!p.beta_zero) {
      clock.time(clock.in, [&] {
        host_copy(s.pc.get(), rows, static_cast<const unsigned char*>(p.c) + (size_t(j0) * p.ldc + size_t(i0)) * es,
                  p.ldc, rows, cols, es);
      });
      if (!check("copy", cudaMemcpyAsync(s.c.get(), s.pc.get(), size_t(rows) * cols * es, cudaMemcpyHostToDevice, s.stream), "upload") ||
          !multiply_tile())
        break;
    }
    if (!check("copy", cudaMemcpyAsync(s.pc.get(), s.c.get(), size_t(rows) * cols * es, cudaMemcpyDeviceToHost, s.stream), "download") ||
        !check("sync", cudaEventRecord(s.done, s.stream), "cudaEventRecord"))
      break;
    s.busy = true;
    if (next_region < region && !region_download()) break;
  }
  while (ok && next_region < region && region_download()) {
  }
  for (Slot& s : region_slots) {
    if (ok) retire(s);
    if (s.stream) cudaStreamSynchronize(s.stream);  // (before c_region goes, on another stream)
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
  c_region.release();
  for (DeviceBuffer& b : b_rows) b.release();
  for (Slot& s : slots)
    if (s.stream) cudaStreamSynchronize(s.stream);  // (also: no upload still reads a_stage)
  if (verbose())
    log_line(strformat("%s pipeline on GPU %d: m=%d n=%d k=%d in %d panel(s) of %d columns x %d row block(s)%s; "
                       "%.2f ms: pinned buffers %.2f, host copies in %.2f, out %.2f, waiting for the GPU %.2f%s",
                       p.name, dev, m, n, k, panels, nb, row_blocks,
                       region > 0 ? strformat(", the first %d k-outer", region).c_str() : "", clock.total(), clock.pin,
                       clock.in, clock.out,
                       clock.wait,
                       feed ? strformat(", staging or waiting for the shared A %.2f", clock.feed).c_str() : ""));
  if (!ok) discard_streams(dev);  // idle now; a failed call leaves nothing behind for the next
  if (!ok)
    for (int j = 0; j < panels; ++j)
      for (int i = 0; i < row_blocks; ++i)
        if (!copied_out[size_t(j) * size_t(row_blocks) + size_t(i)])
          unfinished->push_back({i * mb, std::min(mb, m - i * mb), j * nb, std::min(nb, n - j * nb)});
  return ok;
}

}  // namespace myblas
