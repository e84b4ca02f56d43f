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
// Number of threads parallel_for uses (MYBLAS_COPY_THREADS, default min(cores, 16)).
size_t pool_threads();

}  // namespace myblas
