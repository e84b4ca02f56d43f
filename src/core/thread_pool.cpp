#include "core/thread_pool.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace myblas {

namespace {

// One parallel_for call: its tasks are claimed by index until none are left.
struct Job {
  const std::function<void(size_t)>* body;
  size_t count;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex m;
  std::condition_variable finished;

  void work() {
    size_t i;
    while ((i = next.fetch_add(1)) < count) {
      (*body)(i);
      if (done.fetch_add(1) + 1 == count) {
        std::lock_guard<std::mutex> lock(m);
        finished.notify_all();
      }
    }
  }
};

class Pool {
 public:
  explicit Pool(size_t n) {
    for (size_t i = 0; i < n; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  void run(const std::shared_ptr<Job>& job) {
    {
      std::lock_guard<std::mutex> lock(m_);
      for (size_t i = 0; i < workers_.size(); ++i) queue_.push_back(job);
    }
    cv_.notify_all();
    job->work();  // the caller helps
    std::unique_lock<std::mutex> lock(job->m);
    job->finished.wait(lock, [&] { return job->done.load() == job->count; });
  }

 private:
  void loop() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        job = queue_.front();
        queue_.pop_front();
      }
      job->work();
    }
  }
  std::vector<std::thread> workers_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
};

size_t configured_threads() {
  if (const char* v = std::getenv("MYBLAS_COPY_THREADS")) {
    const long n = std::atol(v);
    if (n >= 1) return size_t(n);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return std::max<size_t>(1, std::min<size_t>(hw ? hw : 1, 16));
}

std::mutex g_pool_mutex;
Pool* g_pool = nullptr;  // deliberately never destroyed: threads may outlive static destructors
pid_t g_pool_pid = 0;

Pool* pool() {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (!g_pool || g_pool_pid != getpid()) {  // a fork child has the pointer but not the threads
    g_pool = new Pool(configured_threads() - 1);
    g_pool_pid = getpid();
  }
  return g_pool;
}

}  // namespace

size_t pool_threads() { return configured_threads(); }

void parallel_for(size_t count, const std::function<void(size_t)>& body) {
  if (count == 0) return;
  if (count == 1 || configured_threads() == 1) {
    for (size_t i = 0; i < count; ++i) body(i);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->count = count;
  pool()->run(job);
}

}  // namespace myblas
