#include "backends/cuda/host_split.h"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "backends/cuda/cuda_runtime.h"
#include "core/devices.h"
#include "core/log.h"
#include "core/thread_pool.h"

namespace myblas {

namespace {

// A host thread that runs one GPU's block of split calls. Kept for the process, one per device
// ordinal: the pipeline keeps its streams, and cuBLAS its handle, per thread and device, and a
// thread made per call would create and destroy them every call. Never destroyed (it may be
// waiting while the process exits; its thread-local CUDA objects go with the process).
class Worker {
 public:
  Worker() { std::thread([this] { loop(); }).detach(); }
  std::mutex turn;  // held by the call that uses this worker, from start() to wait()

  void start(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(m_);
    task_ = std::move(task);
    pending_ = true;
    finished_ = false;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return finished_; });
  }

 private:
  void loop() {
    for (;;) {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [this] { return pending_; });
      std::function<void()> task = std::move(task_);
      pending_ = false;
      lock.unlock();
      task();  // (catches its own exceptions)
      lock.lock();
      finished_ = true;
      cv_.notify_all();
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  std::function<void()> task_;
  bool pending_ = false, finished_ = false;
};

std::mutex g_workers_mutex;
std::vector<Worker*>* g_workers = nullptr;  // by device ordinal; never freed (see Worker)
pid_t g_workers_pid = 0;

Worker* worker_for(int device) {
  std::lock_guard<std::mutex> lock(g_workers_mutex);
  if (!g_workers || g_workers_pid != getpid()) {  // a fork child has the pointers, not the threads
    g_workers = new std::vector<Worker*>();
    g_workers_pid = getpid();
  }
  if (size_t(device) >= g_workers->size()) g_workers->resize(size_t(device) + 1, nullptr);
  Worker*& w = (*g_workers)[size_t(device)];
  if (!w) w = new Worker();
  return w;
}

// The problem restricted to tile t of C.
PipelineGemm tile_problem(const PipelineGemm& p, const CTile& t) {
  const size_t es = p.es;
  PipelineGemm q = p;
  q.m = t.rows;
  q.n = t.cols;
  q.a = static_cast<const unsigned char*>(p.a) + (p.ta == Op::N ? size_t(t.i0) : size_t(t.i0) * size_t(p.lda)) * es;
  q.b = static_cast<const unsigned char*>(p.b) + (p.tb == Op::N ? size_t(t.j0) * size_t(p.ldb) : size_t(t.j0)) * es;
  q.c = static_cast<unsigned char*>(p.c) + (size_t(t.j0) * size_t(p.ldc) + size_t(t.i0)) * es;
  return q;
}

// Runs tiles of p on `device` through the pipeline, from the calling thread with copy lane
// `lane` of `lanes`. After the first failure the device is not used again: the tiles not
// finished (that one's, in p's coordinates, and all later ones) go to *left, and *why says why.
bool run_tiles(const PipelineGemm& p, int device, size_t lane, size_t lanes, const std::vector<CTile>& tiles,
               std::vector<CTile>* left, std::string* why) {
  CopyLane copy_lane(lane, lanes);
  int saved = -1;
  if (cudaGetDevice(&saved) != cudaSuccess) saved = -1;
  bool ok = true;
  if (saved != device) {
    const cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) {
      *why = note_cuda_error(e, "cudaSetDevice");
      ok = false;
    }
  }
  for (const CTile& t : tiles) {
    if (!ok) {
      left->push_back(t);
      continue;
    }
    std::vector<CTile> todo;
    if (pipeline_gemm(tile_problem(p, t), &todo, why)) continue;
    ok = false;
    for (const CTile& u : todo) left->push_back({t.i0 + u.i0, u.rows, t.j0 + u.j0, u.cols});
  }
  if (saved >= 0 && saved != device) cudaSetDevice(saved);
  return ok;
}

// Full-height tiles side by side become one tile (one pipeline call uploads A once for them).
std::vector<CTile> merge_columns(std::vector<CTile> tiles, int m) {
  std::sort(tiles.begin(), tiles.end(), [](const CTile& a, const CTile& b) {
    return a.j0 != b.j0 ? a.j0 < b.j0 : a.i0 < b.i0;
  });
  std::vector<CTile> out;
  for (const CTile& t : tiles) {
    if (!out.empty() && t.i0 == 0 && t.rows == m && out.back().i0 == 0 && out.back().rows == m &&
        out.back().j0 + out.back().cols == t.j0)
      out.back().cols += t.cols;
    else
      out.push_back(t);
  }
  return out;
}

// op(A) placed once on every GPU of a split call: each chunk of its k range is copied from the
// caller's memory into a pinned buffer once and sent from there to every GPU. Each block's
// pipeline would otherwise stage all of A itself, and on multi-GPU hosts the host's memory
// bandwidth, not PCIe, bounds these calls: staged once, A costs the host one pass instead of one
// per GPU. The chunks go up while the blocks run: the first block's pipeline stages each chunk
// when it needs it (the producer), the others wait for it, and every pipeline multiplies its
// first panels chunk by chunk as A arrives (AFeed, host_pipeline.h), so that no GPU idles through
// the whole upload. Not used (the blocks stage A themselves) when it does not fit or a step of
// its set-up fails.
class SharedA {
 public:
  SharedA() = default;
  SharedA(const SharedA&) = delete;
  SharedA& operator=(const SharedA&) = delete;
  ~SharedA() { release(); }

  // Allocates A's place on every device (restores the current device). After it, ready() says
  // whether the blocks use it.
  void prepare(const PipelineGemm& p, const std::vector<int>& devices) {
    p_ = p;
    const size_t es = p.es, bytes = size_t(p.a_rows()) * size_t(p.a_cols()) * es;
    int saved = -1;
    if (cudaGetDevice(&saved) != cudaSuccess) return;
    // The pipeline's own chunks, under the calling thread's GPU's budget.
    kc_ = pipeline_a_chunk(p.m, p.k, es, pipeline_memory_budget());
    chunks_ = (p.k + kc_ - 1) / kc_;
    const size_t g_count = devices.size();
    devices_ = devices;
    bufs_.assign(g_count, nullptr);
    streams_.assign(g_count, nullptr);
    events_.assign(g_count * size_t(chunks_), nullptr);
    bool ok = true;
    for (size_t g = 0; ok && g < g_count; ++g) {
      size_t free_b = 0, total = 0;
      ok = cudaSetDevice(devices[g]) == cudaSuccess && cudaMemGetInfo(&free_b, &total) == cudaSuccess &&
           bytes <= free_b / 10 * 4 &&  // as the pipeline keeps A: at most half its 80% budget
           cudaMalloc(&bufs_[g], bytes) == cudaSuccess &&
           cudaStreamCreateWithFlags(&streams_[g], cudaStreamNonBlocking) == cudaSuccess;
      for (int i = 0; ok && i < chunks_; ++i)
        ok = cudaEventCreateWithFlags(&events_[g * size_t(chunks_) + size_t(i)], cudaEventDisableTiming) == cudaSuccess;
    }
    const size_t stage_bytes = size_t(p.m) * size_t(kc_) * es;
    for (int b = 0; ok && b < 2 && b < chunks_; ++b) ok = pinned_[b].acquire(stage_bytes) == cudaSuccess;
    cudaSetDevice(saved);
    if (!ok) {
      cudaGetLastError();  // (the blocks stage A themselves; a sticky error shows again there)
      release();
      return;
    }
    feeds_.resize(g_count);
    for (size_t g = 0; g < g_count; ++g) {
      feeds_[g].kc = kc_;
      feeds_[g].chunk = [this, g](int i) { return g == 0 ? produce(i) : arrived(g, i); };
    }
  }
  bool ready() const { return !bufs_.empty(); }

  // Block i's problem: p with A on devices[i], packed (leading dimension: A's stored rows), fed
  // chunk by chunk.
  PipelineGemm on(const PipelineGemm& p, size_t i) const {
    PipelineGemm q = p;
    q.a = bufs_[i];
    q.lda = p.a_rows();
    q.a_given = true;
    q.a_feed = &feeds_[i];
    return q;
  }

  // After the producer's block: the chunks it did not stage (it failed first) are sent now, so
  // that the other blocks get all of A.
  void produce_rest() {
    for (int i = 0; i < chunks_ && !failed(); ++i)
      if (i >= produced_) produce(i);
  }

  // No more chunks will come: blocks waiting for one fail.
  void abandon() { publish(0, true); }

  // Waits for every upload (nothing may still read the pinned buffers or write A's places), then
  // frees everything.
  void release() {
    int saved = -1;
    cudaGetDevice(&saved);
    const bool lost = gpu_lost();
    for (size_t g = 0; g < devices_.size(); ++g) {
      if (!lost && cudaSetDevice(devices_[g]) == cudaSuccess) {
        if (streams_[g]) cudaStreamSynchronize(streams_[g]);
        for (int i = 0; i < chunks_; ++i)
          if (cudaEvent_t& e = events_[g * size_t(chunks_) + size_t(i)]) cudaEventDestroy(e);
        if (streams_[g]) cudaStreamDestroy(streams_[g]);
        if (bufs_[g]) cudaFree(bufs_[g]);
      }
    }
    if (saved >= 0) cudaSetDevice(saved);
    cudaGetLastError();
    for (Pinned& b : pinned_) b.release();
    devices_.clear();
    bufs_.clear();
    streams_.clear();
    events_.clear();
    feeds_.clear();
  }

 private:
  bool failed() {
    std::lock_guard<std::mutex> lock(m_);
    return failed_;
  }
  void publish(int count, bool failed) {
    std::lock_guard<std::mutex> lock(m_);
    published_ = std::max(published_, count);
    failed_ = failed_ || failed;
    cv_.notify_all();
  }
  cudaEvent_t event(size_t g, int i) const { return events_[g * size_t(chunks_) + size_t(i)]; }

  // Block g (not the producer) waits until chunk i is queued for its device.
  cudaEvent_t arrived(size_t g, int i) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return failed_ || published_ > i; });
    return published_ > i ? event(g, i) : nullptr;
  }

  // The producer (block 0's thread, its copy lane): op(A)'s k range [i kc, (i+1) kc) into a
  // pinned buffer, then up to every device (each on its own stream), in order of i. Returns
  // device 0's event for it (nullptr: failed; the others are told).
  cudaEvent_t produce(int i) {
    if (i != produced_) return nullptr;  // (in order only; a pipeline asks each chunk once)
    const size_t es = p_.es;
    const int k0 = i * kc_, kl = std::min(kc_, p_.k - k0), m = p_.m;
    const int b = i % 2;
    bool ok = !failed();
    // The buffer's previous chunk (i - 2) must have gone up to every device.
    for (size_t g = 0; ok && i >= 2 && g < devices_.size(); ++g) ok = cudaEventSynchronize(event(g, i - 2)) == cudaSuccess;
    const unsigned char* src = static_cast<const unsigned char*>(p_.a);
    if (ok) {
      if (p_.ta == Op::N)
        host_copy(pinned_[b].get(), m, src + size_t(k0) * size_t(p_.lda) * es, p_.lda, m, kl, es);
      else
        host_copy(pinned_[b].get(), kl, src + size_t(k0) * es, p_.lda, kl, m, es);
    }
    int saved = -1;
    cudaGetDevice(&saved);
    for (size_t g = 0; ok && g < devices_.size(); ++g) {
      unsigned char* dst = static_cast<unsigned char*>(bufs_[g]);
      ok = cudaSetDevice(devices_[g]) == cudaSuccess &&
           (p_.ta == Op::N ? copy_matrix(dst + size_t(k0) * size_t(m) * es, m, pinned_[b].get(), m, m, kl, es, streams_[g])
                           : copy_matrix(dst + size_t(k0) * es, p_.k, pinned_[b].get(), kl, kl, m, es, streams_[g])) ==
               cudaSuccess &&
           cudaEventRecord(event(g, i), streams_[g]) == cudaSuccess;
    }
    if (saved >= 0) cudaSetDevice(saved);
    if (!ok) cudaGetLastError();
    produced_ = ok ? i + 1 : produced_;
    publish(produced_, !ok);
    return ok ? event(0, i) : nullptr;
  }

  PipelineGemm p_;
  int kc_ = 1, chunks_ = 0;
  int produced_ = 0;  // chunks sent (the producer's thread only)
  std::vector<int> devices_;
  std::vector<void*> bufs_;  // op(A) as stored, packed, on devices_[g]
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;  // [g * chunks + i]: chunk i is on devices_[g]
  Pinned pinned_[2];
  std::vector<AFeed> feeds_;
  std::mutex m_;
  std::condition_variable cv_;
  int published_ = 0;
  bool failed_ = false;
};

// One GPU's block of a split call.
struct Share {
  int device = 0;
  CTile block{};
  bool ok = false;
  std::string why;
  std::vector<CTile> left;
  std::exception_ptr error;
};

}  // namespace

std::vector<int> split_columns(int n, int gpus) {
  const int g = std::max(1, std::min(gpus, n / 64));
  std::vector<int> first(size_t(g) + 1);
  for (int i = 0; i <= g; ++i) first[size_t(i)] = i == g ? n : int(int64_t(n) * i / g / 64 * 64);
  return first;
}

std::vector<int> split_devices(double macs) {
  const DeviceChoice& choice = device_choice();
  if (choice.devices.size() < 2 || macs < double(choice.split_min)) return {};
  std::vector<int> devices = choice.devices;
  // The calling thread takes the share of its current device (the first chosen GPU when
  // MYBLAS_DEVICES or a launcher chose; else the thread's own) when that is one of them.
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess) {
    auto it = std::find(devices.begin(), devices.end(), current);
    if (it != devices.end()) std::rotate(devices.begin(), it, it + 1);
  } else {
    cudaGetLastError();
  }
  return devices;
}

void run_on_devices(const std::vector<int>& devices, const std::function<void(size_t)>& task) {
  const size_t g = devices.size();
  // Workers are taken in device order, so that concurrent split calls cannot wait on each other
  // in a cycle; the calling thread's own share needs none.
  std::vector<size_t> order;
  for (size_t i = 1; i < g; ++i) order.push_back(i);
  std::sort(order.begin(), order.end(), [&devices](size_t a, size_t b) { return devices[a] < devices[b]; });
  std::vector<std::unique_lock<std::mutex>> turns;
  std::vector<Worker*> workers(g, nullptr);
  for (size_t i : order) {
    workers[i] = worker_for(devices[i]);
    turns.emplace_back(workers[i]->turn);
  }
  for (size_t i = 1; i < g; ++i) workers[i]->start([&task, i] { task(i); });
  if (g > 0) task(0);
  for (size_t i = 1; i < g; ++i) workers[i]->wait();
}

bool host_gemm(const PipelineGemm& p, std::vector<CTile>* unfinished, std::string* why) {
  std::vector<int> devices = split_devices(double(p.m) * double(p.n) * double(p.k));
  if (devices.size() < 2) return pipeline_gemm(p, unfinished, why);
  const std::vector<int> first = split_columns(p.n, int(devices.size()));
  const size_t g = first.size() - 1;
  if (g < 2) return pipeline_gemm(p, unfinished, why);
  unfinished->clear();
  devices.resize(g);
  std::vector<Share> shares(g);
  for (size_t i = 0; i < g; ++i) {
    shares[i].device = devices[i];
    shares[i].block = {0, p.m, first[i], first[i + 1] - first[i]};
  }
  SharedA shared_a;
  shared_a.prepare(p, devices);
  if (verbose()) {
    std::string blocks;
    for (const Share& s : shares)
      blocks += strformat("%s%d:%d-%d", blocks.empty() ? "" : " ", s.device, s.block.j0, s.block.j0 + s.block.cols - 1);
    log_line(strformat("%s m=%d n=%d k=%d split over %zu GPUs (GPU:columns %s; A %s)", p.name, p.m,
                       p.n, p.k, g, blocks.c_str(), shared_a.ready() ? "staged once for all, as it is used" : "staged by each"));
  }
  auto run_share = [&p, &shared_a, g](Share* s, size_t lane) {
    try {
      const PipelineGemm q = shared_a.ready() ? shared_a.on(p, lane - 1) : p;
      s->ok = run_tiles(q, s->device, lane, g, {s->block}, &s->left, &s->why);
    } catch (...) {
      s->error = std::current_exception();
    }
    if (shared_a.ready() && lane == 1) {  // the producer: A reaches the other blocks also if its own failed
      try {
        CopyLane copy_lane(lane, g);
        shared_a.produce_rest();
      } catch (...) {
        shared_a.abandon();  // (the other blocks stop waiting, fail, and their columns go elsewhere)
      }
    }
  };
  run_on_devices(devices, [&run_share, &shares](size_t i) { run_share(&shares[i], i + 1); });
  shared_a.release();
  for (const Share& s : shares)
    if (s.error) std::rethrow_exception(s.error);

  // A failed GPU's unfinished tiles go to the first GPU that did not fail, else to the caller.
  std::vector<CTile> left;
  const Share* failed = nullptr;
  const Share* healthy = nullptr;
  for (const Share& s : shares) {
    if (s.ok && !healthy) healthy = &s;
    if (!s.ok && !failed) failed = &s;
    left.insert(left.end(), s.left.begin(), s.left.end());
  }
  if (!failed) return true;
  *why = failed->why;
  if (!healthy) {
    *unfinished = std::move(left);
    return false;
  }
  warn_once("split:" + failed->why, strformat("%s on GPU %d: %s; its unfinished part runs on GPU %d",
                                              p.name, failed->device, failed->why.c_str(),
                                              healthy->device));
  std::vector<CTile> still;
  if (run_tiles(p, healthy->device, 1, g, merge_columns(left, p.m), &still, why)) return true;
  *unfinished = std::move(still);
  return false;
}

}  // namespace myblas
