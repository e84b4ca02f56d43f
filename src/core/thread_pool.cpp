#include "core/thread_pool.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MYBLAS_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define MYBLAS_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define MYBLAS_CPU_RELAX() ((void)0)
#endif

namespace myblas {

namespace {

// The host pipeline calls parallel_for about twice per tile, every 50-500 us, each call a few
// MB of memcpy that 16 threads finish in tens of microseconds. The first pool queued every job
// once per worker, woke all of them with notify_all and made the caller sleep on a condition
// variable until the last task. On the H100 host (a KVM guest) a host-clock trace of 2048^3
// host-array SGEMM showed 2 MB copies taking 340-370 us instead of 40 in streaks: the tasks
// themselves ran 10-20 us, but workers arrived 100+ us late and the caller returned up to 200 us
// after the last task (waking an idle vCPU goes through the hypervisor; a woken thread that
// holds the pool's mutex can be descheduled with it). This pool:
//  - runs one job at a time (callers from several threads take turns: each job already uses
//    every thread, so sharing them would not copy faster);
//  - keeps workers spinning, with no mutex and no system call, while a caller holds the pool
//    awake (PoolAwake: the host pipeline, for the length of its call) and for a short while
//    after each job (MYBLAS_COPY_SPIN_US, default 200); only then do they sleep;
//  - wakes sleeping workers only when there are some (a job finds them by an atomic counter);
//  - lets the caller wait for the last task by spinning (tasks are short pieces of a memcpy),
//    yielding the core after a while; the job lives on the caller's stack and the caller
//    returns only when no worker can still read it.

using Clock = std::chrono::steady_clock;

// One parallel_for call: its tasks are claimed by index until none are left.
struct Job {
  const std::function<void(size_t)>* body = nullptr;
  size_t count = 0;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};

  void work() {
    size_t i;
    while ((i = next.fetch_add(1, std::memory_order_relaxed)) < count) {
      (*body)(i);
      done.fetch_add(1, std::memory_order_release);
    }
  }
};

long spin_microseconds() {
  if (const char* v = std::getenv("MYBLAS_COPY_SPIN_US")) {
    char* end = nullptr;
    const long us = std::strtol(v, &end, 10);
    if (end != v && us >= 0) return std::min(us, 100000L);
  }
  return 200;
}

// Waits until pred() holds: spinning first, then giving the core away between checks.
template <class Pred>
void spin_until(Pred pred) {
  const Clock::time_point start = Clock::now();
  for (unsigned spins = 0; !pred(); ++spins) {
    if (spins < 4096 || Clock::now() - start < std::chrono::microseconds(50))
      MYBLAS_CPU_RELAX();
    else
      sched_yield();  // e.g. a worker was descheduled mid-task: give it the core
  }
}

class Pool {
 public:
  explicit Pool(size_t n) : spin_(std::chrono::microseconds(spin_microseconds())) {
    for (size_t i = 0; i < n; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_.store(true);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  void run(Job* job) {
    std::lock_guard<std::mutex> turn(call_m_);
    job_.store(job, std::memory_order_seq_cst);
    gen_.fetch_add(1, std::memory_order_seq_cst);
    // Spinning workers see gen_ change by themselves; sleeping ones need a wake-up (a worker
    // counts itself in sleepers_ before its last look at gen_, so one of the two sees the other).
    if (sleepers_.load(std::memory_order_seq_cst) > 0) wake(job->count - 1);
    job->work();  // the caller takes its share
    spin_until([&] { return job->done.load(std::memory_order_acquire) == job->count; });
    // A worker counts itself in active_ before it reads job_: once job_ is cleared and active_
    // has drained, none can touch *job again.
    job_.store(nullptr, std::memory_order_seq_cst);
    spin_until([&] { return active_.load(std::memory_order_seq_cst) == 0; });
  }

  void hold() {
    holds_.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) wake(workers_.size());
  }
  void unhold() { holds_.fetch_sub(1, std::memory_order_seq_cst); }

 private:
  void wake(size_t up_to) {
    std::lock_guard<std::mutex> lock(m_);
    if (up_to >= workers_.size())
      cv_.notify_all();
    else
      for (size_t i = 0; i < up_to; ++i) cv_.notify_one();
  }

  void loop() {
    uint64_t seen = 0;
    for (;;) {
      // Spin on the generation while the pool is held awake or for spin_ after the last job,
      // then sleep until a job or stop arrives.
      Clock::time_point start = Clock::now();
      unsigned spins = 0;
      while (gen_.load(std::memory_order_acquire) == seen) {
        MYBLAS_CPU_RELAX();
        if ((++spins & 255) != 0) continue;
        if (stop_.load(std::memory_order_relaxed)) return;
        const Clock::time_point now = Clock::now();
        if (holds_.load(std::memory_order_relaxed) > 0)
          start = now;
        else if (now - start >= spin_)
          break;
      }
      if (gen_.load(std::memory_order_seq_cst) == seen) {
        std::unique_lock<std::mutex> lock(m_);
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        cv_.wait(lock, [&] {
          return stop_.load() || gen_.load(std::memory_order_seq_cst) != seen || holds_.load() > 0;
        });
        sleepers_.fetch_sub(1, std::memory_order_seq_cst);
      }
      if (stop_.load()) return;
      const uint64_t g = gen_.load(std::memory_order_seq_cst);
      if (g == seen) continue;  // woken to spin (a hold), no job yet
      seen = g;
      active_.fetch_add(1, std::memory_order_seq_cst);
      if (Job* job = job_.load(std::memory_order_seq_cst)) job->work();  // null: already finished
      active_.fetch_sub(1, std::memory_order_seq_cst);
    }
  }

  const std::chrono::microseconds spin_;
  std::vector<std::thread> workers_;
  std::mutex call_m_;  // one job at a time
  std::mutex m_;       // for the condition variable only
  std::condition_variable cv_;
  std::atomic<Job*> job_{nullptr};
  std::atomic<uint64_t> gen_{0};
  std::atomic<size_t> active_{0};    // workers that may be reading job_
  std::atomic<size_t> sleepers_{0};  // workers in (or entering) cv_.wait
  std::atomic<int> holds_{0};        // PoolAwake objects alive
  std::atomic<bool> stop_{false};
};

size_t configured_threads() {
  if (const char* v = std::getenv("MYBLAS_COPY_THREADS")) {
    const long n = std::atol(v);
    if (n >= 1) return size_t(n);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return std::max<size_t>(1, std::min<size_t>(hw ? hw : 1, 16));
}

// Lane 0 is the pool every call uses; lanes 1.. are made for calls split across GPUs (CopyLane).
constexpr size_t kMaxLanes = 65;
std::mutex g_pool_mutex;
Pool* g_pools[kMaxLanes] = {};  // deliberately never destroyed: threads may outlive static destructors
size_t g_lane_threads[kMaxLanes] = {};
pid_t g_pool_pid = 0;
std::atomic<size_t> g_threads{0};  // configured_threads(), read once per process
thread_local size_t t_lane = 0;
thread_local size_t t_lane_threads = 0;  // threads of t_lane's pool (0: lane 0's)
thread_local size_t t_lanes = 1;         // the lanes of the CopyLane in force (1: none)

size_t default_threads() {
  size_t n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = configured_threads();
    g_threads.store(n, std::memory_order_relaxed);
  }
  return n;
}

Pool* pool() {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (g_pool_pid != getpid()) {  // a fork child has the pointers but not the threads
    for (size_t i = 0; i < kMaxLanes; ++i) g_pools[i] = nullptr;
    g_pool_pid = getpid();
  }
  Pool*& p = g_pools[t_lane];
  if (!p) {
    const size_t n = t_lane == 0 ? default_threads() : t_lane_threads;
    g_lane_threads[t_lane] = n;
    p = new Pool(n - 1);
  }
  return p;
}

}  // namespace

size_t pool_threads() { return t_lane == 0 ? default_threads() : t_lane_threads; }

size_t copy_lanes() { return t_lanes; }

CopyLane::CopyLane(size_t lane, size_t lanes)
    : saved_lane_(t_lane), saved_threads_(t_lane_threads), saved_lanes_(t_lanes) {
  if (lane == 0 || lane >= kMaxLanes) return;
  t_lanes = std::max<size_t>(1, lanes);
  size_t n = 0;
  {
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    n = g_pool_pid == getpid() && g_pools[lane] ? g_lane_threads[lane] : 0;
  }
  if (n == 0) {  // a lane's pool keeps the size it was made with
    const unsigned hw = std::thread::hardware_concurrency();
    n = std::max<size_t>(1, std::min(default_threads(), size_t(hw ? hw : 1) / std::max<size_t>(1, lanes)));
  }
  t_lane = lane;
  t_lane_threads = n;
}

CopyLane::~CopyLane() {
  t_lane = saved_lane_;
  t_lane_threads = saved_threads_;
  t_lanes = saved_lanes_;
}

void parallel_for(size_t count, const std::function<void(size_t)>& body) {
  if (count == 0) return;
  if (count == 1 || pool_threads() == 1) {
    for (size_t i = 0; i < count; ++i) body(i);
    return;
  }
  Job job;
  job.body = &body;
  job.count = count;
  pool()->run(&job);
}

PoolAwake::PoolAwake() {
  if (pool_threads() > 1) {
    pool_ = pool();
    static_cast<Pool*>(pool_)->hold();
  }
}

PoolAwake::~PoolAwake() {
  if (pool_) static_cast<Pool*>(pool_)->unhold();
}

}  // namespace myblas
