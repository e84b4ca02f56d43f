// BufferCache (core/buffer_cache.h): requests take the smallest fitting buffer within twice the
// request plus slack; returned buffers are always kept, the oldest returned making room; the
// cache never holds more than its bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "core/buffer_cache.h"

namespace myblas {
namespace {

void* tag(uintptr_t i) { return reinterpret_cast<void*>(i * 4096); }

TEST(BufferCache, TakesTheSmallestFittingBufferWithinTwiceThePlusSlack) {
  BufferCache c(1000, 10);
  std::vector<void*> ev;
  c.give(tag(1), 100, &ev);
  c.give(tag(2), 300, &ev);
  c.give(tag(3), 50, &ev);
  EXPECT_TRUE(ev.empty());
  EXPECT_EQ(c.take(60), (std::pair<void*, size_t>{tag(1), 100}));  // 50 too small, 100 <= 130
  EXPECT_EQ(c.take(100), (std::pair<void*, size_t>{nullptr, 0}));  // 300 > 2 * 100 + 10
  EXPECT_EQ(c.take(145), (std::pair<void*, size_t>{tag(2), 300}));  // 300 <= 300
  EXPECT_EQ(c.take(10), (std::pair<void*, size_t>{nullptr, 0}));   // 50 > 30
  EXPECT_EQ(c.take(50), (std::pair<void*, size_t>{tag(3), 50}));
  EXPECT_EQ(c.cached_bytes(), 0u);
}

TEST(BufferCache, ReturnedBuffersStayAndTheOldestMakeRoom) {
  BufferCache c(1000, 0);
  std::vector<void*> ev;
  c.give(tag(1), 450, &ev);
  c.give(tag(2), 450, &ev);
  EXPECT_TRUE(ev.empty());
  // A run of large calls filled the cache; a smaller size in use now must still be kept.
  c.give(tag(3), 200, &ev);
  EXPECT_EQ(ev, std::vector<void*>{tag(1)});
  EXPECT_EQ(c.cached_bytes(), 650u);
  ev.clear();
  c.give(tag(4), 600, &ev);  // the oldest (tag 2) makes room, not the newer tag 3
  EXPECT_EQ(ev, std::vector<void*>{tag(2)});
  EXPECT_EQ(c.take(200).first, tag(3));
  ev.clear();
  c.give(tag(5), 2000, &ev);  // larger than the whole cache: not kept
  EXPECT_EQ(ev, std::vector<void*>{tag(5)});
  EXPECT_EQ(c.cached_bytes(), 600u);
}

TEST(BufferCache, RandomUseKeepsTheBoundAndLosesNothing) {
  BufferCache c(1 << 20, 1 << 16);
  std::mt19937 rng(7);
  std::set<void*> held, freed, cached;
  uintptr_t next = 1;
  for (int step = 0; step < 20000; ++step) {
    const size_t bytes = size_t(1) << std::uniform_int_distribution<int>(8, 21)(rng);
    if (!held.empty() && rng() % 2) {  // give back a held buffer (its size is coded in the map below)
      void* p = *held.begin();
      held.erase(p);
      std::vector<void*> ev;
      c.give(p, bytes, &ev);  // (a buffer's size may differ from its first request's: allowed)
      cached.insert(p);
      for (void* e : ev) {
        ASSERT_TRUE(cached.count(e)) << "evicted a buffer that was not cached";
        cached.erase(e);
        freed.insert(e);
      }
    } else {
      auto got = c.take(bytes);
      if (got.first) {
        ASSERT_TRUE(cached.count(got.first));
        ASSERT_GE(got.second, bytes);
        ASSERT_LE(got.second, 2 * bytes + (size_t(1) << 16));
        cached.erase(got.first);
        held.insert(got.first);
      } else {
        held.insert(tag(next++));
      }
    }
    ASSERT_LE(c.cached_bytes(), size_t(1) << 20);
    ASSERT_EQ(c.buffers(), cached.size());
  }
  const std::vector<void*> rest = c.drain();
  EXPECT_EQ(std::set<void*>(rest.begin(), rest.end()), cached);
  EXPECT_EQ(c.cached_bytes(), 0u);
}

}  // namespace
}  // namespace myblas
