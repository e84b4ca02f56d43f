// A small pool of host threads for memory copies (staging user memory through pinned
// buffers needs several threads to reach PCIe speed: one thread copies ~7 GB/s).
#pragma once
#include <cstddef>
#include <functional>

namespace myblas {

// Runs body(i) for i in [0, count) on the pool and the calling thread; returns when all are
// done. Safe to call from several threads at once (their jobs take turns), and in a fork child
// (the pool is rebuilt). Not from inside a body.
void parallel_for(size_t count, const std::function<void(size_t)>& body);

// While one of these lives, the pool's threads wait for the next job by spinning instead of
// sleeping, so that a series of parallel_for calls (the host pipeline's copies, tens of
// microseconds each) does not pay a wake-up per call. Costs the pool's cores for that time.
class PoolAwake {
 public:
  PoolAwake();
  ~PoolAwake();
  PoolAwake(const PoolAwake&) = delete;
  PoolAwake& operator=(const PoolAwake&) = delete;

 private:
  void* pool_ = nullptr;
};
// Number of threads parallel_for uses on the calling thread (lane 0: MYBLAS_COPY_THREADS,
// default min(cores, 16); another lane: see CopyLane).
size_t pool_threads();

// While one of these lives, the calling thread's parallel_for calls (and PoolAwake) use copy
// lane `lane` of `lanes` instead of the shared pool: a pool of its own, of min(MYBLAS_COPY_THREADS,
// cores / lanes) threads, made at its first use and kept. The host pipelines of one call split
// across GPUs run on lanes 1..G, so that their copies proceed side by side instead of taking
// turns in one pool. Lane 0 is the shared pool.
// The `lanes` of the calling thread's CopyLane (1 outside one): how many GPUs' host pipelines
// share the host's cores and pinned-buffer cache now.
size_t copy_lanes();

class CopyLane {
 public:
  CopyLane(size_t lane, size_t lanes);
  ~CopyLane();
  CopyLane(const CopyLane&) = delete;
  CopyLane& operator=(const CopyLane&) = delete;

 private:
  size_t saved_lane_, saved_threads_, saved_lanes_;
};

}  // namespace myblas
