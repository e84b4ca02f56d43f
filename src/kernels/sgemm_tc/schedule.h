// The 3xTF32 product kernel's schedule arithmetic (wgmma_promoted.cu), host and device: which
// ring stages a promotion chunk covers, how many tiles a block of the persistent grid walks, and
// when a consumer warpgroup of the ordered variants waits for and signals the other's turn.
// Kept apart from the kernel so that the tests can run the same rules on the host.
#pragma once

#if defined(__CUDACC__)
#define TF32X3_HD __host__ __device__ __forceinline__
#else
#define TF32X3_HD inline
#endif

namespace myblas {
namespace tf32x3_schedule {

// Chunks of up to `per` ring stages (k-blocks) each in a tile of nk k-blocks.
TF32X3_HD int chunks(int nk, int per) { return (nk + per - 1) / per; }
// The k-blocks of chunk c: `per`, except a shorter last one.
TF32X3_HD int chunk_stages(int nk, int per, int c) { return nk - c * per < per ? nk - c * per : per; }
// Tiles t = block, block + grid, ... below `tiles`.
TF32X3_HD int block_tiles(int tiles, int block, int grid) { return block < tiles ? (tiles - 1 - block) / grid + 1 : 0; }

// The ordered variants' turns: both consumers walk the same chunks, and each waits for its turn
// on its own named barrier before issuing a chunk's wgmmas, then signals the other's barrier.
// Consumer 1 signals once before its first chunk (consumer 0's first turn) and consumer 0 waits
// once after its last (consuming consumer 1's last signal), so that the loop itself waits and
// signals on every chunk without a branch on the warpgroup (a thread-dependent branch around
// the wgmmas makes the compiler serialise them), and every signal meets one wait.
TF32X3_HD int turn_barrier(int consumer) { return consumer == 0 ? 1 : 2; }  // waits here, signals the other's
TF32X3_HD bool signals_before_first(int consumer) { return consumer == 1; }
TF32X3_HD bool waits_after_last(int consumer) { return consumer == 0; }

}  // namespace tf32x3_schedule
}  // namespace myblas
