// GEMM on host arrays through the GPU, pipelined: C is cut into column panels (and, when A
// does not fit the device-memory budget, into row blocks); each tile's operands are copied
// from the caller's pageable memory into pinned buffers by several host threads, uploaded,
// multiplied and downloaded on one of two streams, so the host copies, both copy engines and
// the multiplication of neighbouring tiles overlap. C is uploaded only when beta != 0.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/problem.h"

namespace myblas {

// A block of C: rows [i0, i0 + rows), columns [j0, j0 + cols).
struct CTile {
  int i0, rows, j0, cols;
};

// op(A) arriving in the current device's memory chunk by chunk while the pipeline runs (a split
// call's shared upload: host_split.cpp): chunk i holds op(A)'s k range [i kc, (i + 1) kc).
// chunk(i), asked once per chunk in order, returns once chunk i is queued for this device: the
// event (of this device) that completes with its upload, or nullptr when it will not come. (The
// first block's chunk(i) stages the chunk itself; the others wait for it.)
struct AFeed {
  int kc = 1;
  std::function<cudaEvent_t(int i)> chunk;
};

// One GEMM on host arrays as the pipeline sees it, for any element type: the shapes, the
// operands, and the product of one tile it queues with every operand in device memory.
struct PipelineGemm {
  const char* name = "gemm";  // the routine, for messages
  size_t es = 4;              // bytes per element
  Op ta = Op::N, tb = Op::N;  // as stored (a conjugate transpose is stored like a transpose)
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int64_t lda = 1, ldb = 1, ldc = 1;
  bool a_given = false;       // op(A) is already in the current device's memory (a caller that
                              // uploads it once for several GPUs): used in place, lda its ld
  const AFeed* a_feed = nullptr;  // with a_given: A still arriving, chunk by chunk (else all there)
  bool beta_zero = false;     // C is written unread
  bool split_k_lead = false;  // the first panels may be split along k (measured for SGEMM only)
  bool complex = false;       // complex elements (four real multiply-adds per element product)
  // Queues C_tile := alpha op(A_tile) op(B_tile) + beta' C_tile on `stream` of `device`, with
  // beta' = beta when use_beta, else 1 (the later k-chunks of a split panel); C_tile is
  // rows x cols with leading dimension rows. False, with *why, when the GPU refused.
  std::function<bool(cudaStream_t stream, int device, int rows, int cols, int depth, bool use_beta, const void* a,
                     int lda, const void* b, int ldb, void* c, std::string* why)>
      multiply;
  int a_rows() const { return ta == Op::N ? m : k; }
  int a_cols() const { return ta == Op::N ? k : m; }
};

// The device-memory budget of a pipelined call on the current GPU: 80% of its free memory, or
// less under MYBLAS_GPU_MEMORY_BUDGET (bytes; tests use it to reach row blocks, several chunks
// of A and panels with small matrices).
size_t pipeline_memory_budget();

// How deep (in k) a chunk of op(A) (m x k, es bytes an element) is when it goes up in pieces:
// about 32 MB, less under a small budget, at least four chunks from 32 MB of A on; k when it
// goes in one piece. The pipeline and a split call's shared upload use the same chunks.
int pipeline_a_chunk(int m, int k, size_t es, size_t budget);

// Runs p (B and C in host memory, A too unless a_given; alpha != 0 and k > 0) on the current
// GPU. Returns false when it failed; *unfinished then lists the tiles of C it has not written
// (every other tile holds its final result), so the caller can compute exactly those elsewhere.
bool pipeline_gemm(const PipelineGemm& p, std::vector<CTile>* unfinished, std::string* why);

// Streams and events kept per thread and device between the host-array calls that thread makes
// (the GEMM pipeline uses the first two slots, host Level 3 all three): creating and destroying
// them per call costs every call time it does not need to spend, and a stream that lives on lets
// the stream-ordered pool and cuBLAS reuse what they set up for it. Destroyed when the thread
// exits.
struct PipelineStreams {
  static constexpr int kStreams = 3;
  cudaStream_t stream[kStreams] = {};
  cudaEvent_t done[kStreams] = {};    // a slot's work is complete
  cudaEvent_t staged[kStreams] = {};  // uploads from a slot's pinned staging buffers are done
  cudaEvent_t rows_up[2] = {};        // the GEMM pipeline's region: a step's B rows are uploaded
  uint64_t context = 0;               // id of the context they belong to (0: unknown)

  bool empty() const { return stream[0] == nullptr; }
  void destroy();
  cudaError_t create();
};
// The calling thread's set for `dev` (the current device), created if it has none yet.
cudaError_t acquire_streams(int dev, PipelineStreams** out);
// Destroys the calling thread's set for `dev` (after a failed call: the next starts afresh).
void discard_streams(int dev);

// The most pinned memory the cache keeps between calls (1/32 of the host's memory, 1 to 4 GB).
size_t pinned_cache_bytes();

// A pinned host buffer from a process-wide cache (cudaHostAlloc costs milliseconds per hundred
// MB); released into the cache (1/32 of the host's memory, 1 to 4 GB) when it goes.
class Pinned {
 public:
  Pinned() = default;
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  ~Pinned() { release(); }
  cudaError_t acquire(size_t bytes);
  void* get() const { return ptr_; }
  // Back to the cache now (no copy may still read or write it).
  void release();

 private:
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

// Copies a rows x cols block between host buffers (leading dimensions in elements) with the
// calling thread's copy threads (core/thread_pool.h), in pieces of about a megabyte.
void host_copy(void* dst, int64_t ldd, const void* src, int64_t lds, int rows, int cols, size_t es);

}  // namespace myblas
