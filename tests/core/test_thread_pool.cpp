// The host copy pool (src/core/thread_pool.cpp): every index runs exactly once, whatever the
// count and however many threads call at once; sleeping workers come back for a later job;
// a fork child gets a working pool of its own. Runs without a GPU (CI), and under
// ThreadSanitizer in tests/reliability/run_tsan.sh.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "core/thread_pool.h"

namespace {

// Runs parallel_for(count) and checks that each index ran once; returns the number of
// distinct threads that ran tasks.
size_t run_and_check(size_t count, unsigned salt) {
  std::vector<std::atomic<int>> hits(count);
  std::vector<std::thread::id> who(count);
  myblas::parallel_for(count, [&](size_t i) {
    hits[i].fetch_add(1, std::memory_order_relaxed);
    who[i] = std::this_thread::get_id();
    // a little uneven work, so that tasks overlap
    volatile unsigned x = salt;
    for (size_t r = 0; r < (i * 2654435761u + salt) % 200; ++r) x = x * 31 + 7;
  });
  for (size_t i = 0; i < count; ++i)
    EXPECT_EQ(hits[i].load(), 1) << "count " << count << ": index " << i << " ran " << hits[i].load() << " times";
  std::vector<std::thread::id> ids(who.begin(), who.end());
  std::sort(ids.begin(), ids.end());
  return size_t(std::unique(ids.begin(), ids.end()) - ids.begin());
}

TEST(ThreadPool, EveryIndexOnce) {
  for (size_t count : {0u, 1u, 2u, 3u, 15u, 16u, 17u, 33u, 1000u, 65537u}) run_and_check(count, unsigned(count));
}

TEST(ThreadPool, ManyJobsInARow) {
  // A pipeline's pattern: short jobs back to back, workers still spinning from the last one.
  for (unsigned j = 0; j < 2000; ++j) run_and_check(1 + j % 40, j);
}

TEST(ThreadPool, WorkersComeBackAfterSleeping) {
  run_and_check(64, 1);
  // Longer than the spin time (MYBLAS_COPY_SPIN_US, default 200 us): the workers are asleep.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  size_t threads = run_and_check(4096, 2);
  if (myblas::pool_threads() > 1 && std::thread::hardware_concurrency() > 1) {
    // Not guaranteed (the caller may finish alone), so only reported.
    if (threads < 2) std::printf("note: one thread ran all 4096 tasks after the pool slept\n");
  }
}

TEST(ThreadPool, HeldAwake) {
  // Jobs while the pool is held awake, with pauses longer than the spin time between them,
  // then after the hold ends (workers go back to sleeping and must still be woken).
  {
    myblas::PoolAwake awake;
    for (unsigned j = 0; j < 20; ++j) {
      run_and_check(1 + j * 13, j);
      if (j % 5 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    myblas::PoolAwake nested;  // holds nest
    run_and_check(300, 99);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  run_and_check(500, 100);
}

TEST(ThreadPool, ConcurrentCallers) {
  std::vector<std::thread> callers;
  std::atomic<int> bad{0};
  for (int t = 0; t < 8; ++t)
    callers.emplace_back([&, t] {
      for (unsigned j = 0; j < 300; ++j) {
        const size_t count = 1 + (j * 7 + unsigned(t)) % 97;
        std::vector<std::atomic<int>> hits(count);
        if (j % 3 == 0) {
          myblas::PoolAwake awake;  // holds from several threads at once
          myblas::parallel_for(count, [&](size_t i) { hits[i].fetch_add(1, std::memory_order_relaxed); });
        } else {
          myblas::parallel_for(count, [&](size_t i) { hits[i].fetch_add(1, std::memory_order_relaxed); });
        }
        for (size_t i = 0; i < count; ++i) bad += hits[i].load() != 1;
      }
    });
  for (auto& c : callers) c.join();
  EXPECT_EQ(bad.load(), 0) << "indices run other than once with 8 threads calling at once";
}

// Copy lanes (one per GPU of a split call): each lane is a pool of its own, sized to its share of
// the cores, that works beside the others; the lane is the calling thread's only while CopyLane lives.
TEST(ThreadPool, CopyLanesWorkSideBySide) {
  const size_t shared = myblas::pool_threads();
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  std::vector<size_t> lane_threads(3, 0), lanes_seen(3, 0), lanes_after(3, 0);
  std::vector<std::thread> callers;
  for (size_t lane = 1; lane <= 2; ++lane)
    callers.emplace_back([&, lane] {
      {
        myblas::CopyLane use(lane, 2);
        lanes_seen[lane] = myblas::copy_lanes();
      }
      lanes_after[lane] = myblas::copy_lanes();
      myblas::CopyLane use(lane, 2);
      lane_threads[lane] = myblas::pool_threads();
      myblas::PoolAwake awake;
      for (unsigned r = 0; r < 50; ++r) run_and_check(1 + (r * 37) % 300, unsigned(lane * 100 + r));
    });
  for (auto& t : callers) t.join();
  for (size_t lane = 1; lane <= 2; ++lane) {
    EXPECT_EQ(lane_threads[lane], std::max<size_t>(1, std::min<size_t>(shared, hw / 2))) << "lane " << lane;
    EXPECT_EQ(lanes_seen[lane], 2u) << "copy_lanes() inside a CopyLane of 2 lanes, lane " << lane;
    EXPECT_EQ(lanes_after[lane], 1u) << "copy_lanes() after the CopyLane went, lane " << lane;
  }
  EXPECT_EQ(myblas::copy_lanes(), 1u);
  EXPECT_EQ(myblas::pool_threads(), shared) << "the lane is the caller's only while CopyLane lives";
  run_and_check(1000, 7);
}

TEST(ThreadPool, ForkChildHasItsOwnPool) {
  run_and_check(256, 3);  // the parent's pool exists
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<std::atomic<int>> hits(512);
    myblas::parallel_for(hits.size(), [&](size_t i) { hits[i].fetch_add(1); });
    for (auto& h : hits)
      if (h.load() != 1) _exit(1);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child did not exit (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's parallel_for missed or repeated an index";
  run_and_check(256, 4);  // and the parent's still works
}

}  // namespace
