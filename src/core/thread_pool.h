// A small pool of host threads for memory copies (staging user memory through pinned
// buffers needs several threads to reach PCIe speed: one thread copies ~7 GB/s).
#pragma once
#include <cstddef>
#include <functional>

namespace myblas {

// Runs body(i) for i in [0, count) on the pool and the calling thread; returns when all are
// done. Safe to call from several threads at once, and in a fork child (the pool is rebuilt).
void parallel_for(size_t count, const std::function<void(size_t)>& body);
// Number of threads parallel_for uses (MYBLAS_COPY_THREADS, default min(cores, 16)).
size_t pool_threads();

}  // namespace myblas
