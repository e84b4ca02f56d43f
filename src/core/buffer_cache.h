// A cache of reusable buffers (pinned host memory in the host-array pipelines, whose allocation
// and release cost milliseconds and synchronise the device), keyed by size and bounded in bytes.
// A request takes the smallest cached buffer that is large enough and not more than twice (plus
// `slack`) the request, so that a small call does not hold a buffer a large one needs. A
// returned buffer is always kept: the least recently returned buffers that no longer fit are
// handed back to the caller to free (outside its lock), so that after a run of large calls the
// cache turns over to the sizes in use now instead of freezing with buffers nobody takes (each
// later call would then allocate and free its own). Not thread-safe: the owner locks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace myblas {

class BufferCache {
 public:
  BufferCache(size_t keep_bytes, size_t slack_bytes) : keep_(keep_bytes), slack_(slack_bytes) {}

  // A cached buffer for `bytes`: {pointer, its size}, or {nullptr, 0}.
  std::pair<void*, size_t> take(size_t bytes) {
    auto it = free_.lower_bound(bytes);
    if (it == free_.end() || it->first > 2 * bytes + slack_) return {nullptr, 0};
    const std::pair<void*, size_t> got{it->second.ptr, it->first};
    cached_ -= it->first;
    free_.erase(it);
    return got;
  }

  // Keeps `p` (of `size` bytes); what must go to make room is appended to `evicted`, oldest
  // returned first; a buffer larger than the whole cache goes there itself.
  void give(void* p, size_t size, std::vector<void*>* evicted) {
    if (size > keep_) {
      evicted->push_back(p);
      return;
    }
    while (cached_ + size > keep_) {
      auto oldest = free_.begin();
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->second.returned < oldest->second.returned) oldest = it;
      evicted->push_back(oldest->second.ptr);
      cached_ -= oldest->first;
      free_.erase(oldest);
    }
    free_.emplace(size, Entry{p, ++clock_});
    cached_ += size;
  }

  // Empties the cache: every buffer, for the caller to free.
  std::vector<void*> drain() {
    std::vector<void*> all;
    for (auto& kv : free_) all.push_back(kv.second.ptr);
    free_.clear();
    cached_ = 0;
    return all;
  }

  size_t cached_bytes() const { return cached_; }
  size_t buffers() const { return free_.size(); }

 private:
  struct Entry {
    void* ptr;
    uint64_t returned;  // order of return: the oldest goes first
  };
  size_t keep_, slack_;
  size_t cached_ = 0;
  uint64_t clock_ = 0;
  std::multimap<size_t, Entry> free_;
};

}  // namespace myblas
