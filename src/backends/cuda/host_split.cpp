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

// op(A) placed once on every GPU of a split call: each chunk of its stored columns is copied from
// the caller's memory into a pinned buffer once and sent from there to every GPU. Each block's
// pipeline would otherwise stage all of A itself, and on multi-GPU hosts the host's memory
// bandwidth, not PCIe, bounds these calls: staged once, A costs the host one pass instead of
// one per GPU. Empty (the blocks stage A themselves) when it does not fit or a step fails.
class SharedA {
 public:
  SharedA() = default;
  SharedA(const SharedA&) = delete;
  SharedA& operator=(const SharedA&) = delete;
  ~SharedA() { release(); }

  // From the calling thread (its copy lane copies); restores the current device.
  void upload(const PipelineGemm& p, const std::vector<int>& devices) {
    const size_t es = p.es, rows = size_t(p.a_rows()), cols = size_t(p.a_cols());
    const size_t bytes = rows * cols * es;
    int saved = -1;
    if (cudaGetDevice(&saved) != cudaSuccess) return;
    const size_t chunk_cols = std::max<size_t>(1, (size_t(32) << 20) / (rows * es));
    const size_t chunk_bytes = rows * std::min(chunk_cols, cols) * es;
    std::vector<cudaStream_t> streams(devices.size(), nullptr);
    std::vector<cudaEvent_t> sent[2] = {std::vector<cudaEvent_t>(devices.size(), nullptr),
                                        std::vector<cudaEvent_t>(devices.size(), nullptr)};
    void* pinned[2] = {nullptr, nullptr};
    bool ok = true;
    bufs_.assign(devices.size(), nullptr);
    devices_ = devices;
    for (size_t g = 0; ok && g < devices.size(); ++g) {
      size_t free_b = 0, total = 0;
      ok = cudaSetDevice(devices[g]) == cudaSuccess && cudaMemGetInfo(&free_b, &total) == cudaSuccess &&
           bytes <= free_b / 10 * 4 &&  // as the pipeline keeps A: at most half its 80% budget
           cudaMalloc(&bufs_[g], bytes) == cudaSuccess &&
           cudaStreamCreateWithFlags(&streams[g], cudaStreamNonBlocking) == cudaSuccess &&
           cudaEventCreateWithFlags(&sent[0][g], cudaEventDisableTiming) == cudaSuccess &&
           cudaEventCreateWithFlags(&sent[1][g], cudaEventDisableTiming) == cudaSuccess;
    }
    for (int b = 0; ok && b < 2; ++b) ok = cudaHostAlloc(&pinned[b], chunk_bytes, cudaHostAllocPortable) == cudaSuccess;
    const unsigned char* src = static_cast<const unsigned char*>(p.a);
    for (size_t c0 = 0, i = 0; ok && c0 < cols; c0 += chunk_cols, ++i) {
      const int b = int(i % 2);
      const size_t cc = std::min(chunk_cols, cols - c0);
      for (size_t g = 0; ok && i >= 2 && g < devices.size(); ++g) ok = cudaEventSynchronize(sent[b][g]) == cudaSuccess;
      if (!ok) break;
      host_copy(pinned[b], int64_t(rows), src + c0 * size_t(p.lda) * es, p.lda, int(rows), int(cc), es);
      for (size_t g = 0; ok && g < devices.size(); ++g)
        ok = cudaSetDevice(devices[g]) == cudaSuccess &&
             cudaMemcpyAsync(static_cast<unsigned char*>(bufs_[g]) + c0 * rows * es, pinned[b], rows * cc * es,
                             cudaMemcpyHostToDevice, streams[g]) == cudaSuccess &&
             cudaEventRecord(sent[b][g], streams[g]) == cudaSuccess;
    }
    for (size_t g = 0; g < devices.size(); ++g)  // (also: no copy still reads the pinned buffers)
      if (streams[g] && cudaStreamSynchronize(streams[g]) != cudaSuccess) ok = false;
    for (size_t g = 0; g < devices.size(); ++g) {
      for (int b = 0; b < 2; ++b)
        if (sent[b][g]) cudaEventDestroy(sent[b][g]);
      if (streams[g]) cudaStreamDestroy(streams[g]);
    }
    for (void* h : pinned)
      if (h) cudaFreeHost(h);
    if (!ok) {
      cudaGetLastError();  // (the blocks stage A themselves; a sticky error shows again there)
      release();
    }
    cudaSetDevice(saved);
  }
  bool ready() const { return !bufs_.empty(); }
  // Block i's problem: p with A on devices[i], packed (leading dimension: A's stored rows).
  PipelineGemm on(const PipelineGemm& p, size_t i) const {
    PipelineGemm q = p;
    q.a = bufs_[i];
    q.lda = p.a_rows();
    q.a_given = true;
    return q;
  }
  void release() {
    for (size_t g = 0; g < bufs_.size(); ++g)
      if (bufs_[g] && !gpu_lost()) {
        int saved = -1;
        cudaGetDevice(&saved);
        cudaSetDevice(devices_[g]);
        cudaFree(bufs_[g]);
        cudaSetDevice(saved);
      }
    bufs_.clear();
  }

 private:
  std::vector<int> devices_;
  std::vector<void*> bufs_;  // op(A) as stored, packed, on devices_[g]
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
  {
    CopyLane copy_lane(1, g);
    PoolAwake copy_threads_awake;
    shared_a.upload(p, devices);
  }
  if (verbose()) {
    std::string blocks;
    for (const Share& s : shares)
      blocks += strformat("%s%d:%d-%d", blocks.empty() ? "" : " ", s.device, s.block.j0, s.block.j0 + s.block.cols - 1);
    log_line(strformat("%s m=%d n=%d k=%d split over %zu GPUs (GPU:columns %s; A %s)", p.name, p.m,
                       p.n, p.k, g, blocks.c_str(), shared_a.ready() ? "staged once for all" : "staged by each"));
  }
  auto run_share = [&p, &shared_a, g](Share* s, size_t lane) {
    try {
      const PipelineGemm q = shared_a.ready() ? shared_a.on(p, lane - 1) : p;
      s->ok = run_tiles(q, s->device, lane, g, {s->block}, &s->left, &s->why);
    } catch (...) {
      s->error = std::current_exception();
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
