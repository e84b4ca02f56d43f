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
GemmProblem tile_problem(const GemmProblem& p, const CTile& t) {
  const size_t es = p.elem_size();
  GemmProblem q = p;
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
bool run_tiles(const GemmProblem& p, int device, size_t lane, size_t lanes, const std::vector<CTile>& tiles,
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

bool host_gemm(const GemmProblem& p, std::vector<CTile>* unfinished, std::string* why) {
  const DeviceChoice& choice = device_choice();
  std::vector<int> devices = choice.devices;
  const uint64_t volume = uint64_t(p.m) * uint64_t(p.n) * uint64_t(p.k);
  if (devices.size() < 2 || volume < choice.split_min) return pipeline_gemm(p, unfinished, why);
  const std::vector<int> first = split_columns(p.n, int(devices.size()));
  const size_t g = first.size() - 1;
  if (g < 2) return pipeline_gemm(p, unfinished, why);
  unfinished->clear();
  // The calling thread takes the block of its current device (the first chosen GPU when
  // MYBLAS_DEVICES or a launcher chose; else the thread's own) when that is one of them.
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess) {
    auto it = std::find(devices.begin(), devices.end(), current);
    if (it != devices.end()) std::rotate(devices.begin(), it, it + 1);
  } else {
    cudaGetLastError();
  }
  std::vector<Share> shares(g);
  for (size_t i = 0; i < g; ++i) {
    shares[i].device = devices[i];
    shares[i].block = {0, p.m, first[i], first[i + 1] - first[i]};
  }
  if (verbose()) {
    std::string blocks;
    for (const Share& s : shares)
      blocks += strformat("%s%d:%d-%d", blocks.empty() ? "" : " ", s.device, s.block.j0, s.block.j0 + s.block.cols - 1);
    log_line(strformat("%s m=%d n=%d k=%d split over %zu GPUs (GPU:columns %s)", routine_name(p.routine), p.m, p.n,
                       p.k, g, blocks.c_str()));
  }
  auto run_share = [&p, g](Share* s, size_t lane) {
    try {
      s->ok = run_tiles(p, s->device, lane, g, {s->block}, &s->left, &s->why);
    } catch (...) {
      s->error = std::current_exception();
    }
  };
  {
    // Workers are taken in device order, so that concurrent split calls cannot wait on each other
    // in a cycle; the calling thread's own block needs none.
    std::vector<size_t> order;
    for (size_t i = 1; i < g; ++i) order.push_back(i);
    std::sort(order.begin(), order.end(), [&shares](size_t a, size_t b) { return shares[a].device < shares[b].device; });
    std::vector<std::unique_lock<std::mutex>> turns;
    std::vector<Worker*> workers(g, nullptr);
    for (size_t i : order) {
      workers[i] = worker_for(shares[i].device);
      turns.emplace_back(workers[i]->turn);
    }
    for (size_t i = 1; i < g; ++i) workers[i]->start([&run_share, &shares, i] { run_share(&shares[i], i + 1); });
    run_share(&shares[0], 1);
    for (size_t i = 1; i < g; ++i) workers[i]->wait();
  }
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
                                              routine_name(p.routine), failed->device, failed->why.c_str(),
                                              healthy->device));
  std::vector<CTile> still;
  if (run_tiles(p, healthy->device, 1, g, merge_columns(left, p.m), &still, why)) return true;
  *unfinished = std::move(still);
  return false;
}

}  // namespace myblas
