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

// Split-K: work unit u of tiles * splits covers tile u % tiles and k-slice u / tiles (the units
// running at once share their k-range, so that their operand panels are shared in L2); slice s
// covers k-blocks [slice_begin(s), slice_begin(s + 1)), within one of each other in length.
TF32X3_HD int slice_begin(int nk, int splits, int s) { return int((long long)nk * s / splits); }

// The split plan (tf32x3_splitk_choose): the product's work units are first `whole` tiles run
// whole (their sums go to C), then the other tiles - whole tiles, each divided into `splits`
// k-slices (units whose FP32 sums go to their own slot of the scratch, added by a last pass).
// whole == 0 divides every tile (split-K); whole == tiles (or splits == 1 with whole == tiles)
// divides none. A divided unit's slot is (slice x divided tiles + its index among them), so that
// the units running at once share their k-range.
struct WorkUnit {
  int tile, slice;  // the tile in the persistent order, and its k-slice (0 for a whole tile)
  int slot;         // -1: a whole tile; else its place in the scratch
};
TF32X3_HD int plan_units(int tiles, int whole, int splits) { return whole + (tiles - whole) * splits; }
TF32X3_HD WorkUnit work_unit(int u, int tiles, int whole) {
  if (u < whole) return WorkUnit{u, 0, -1};
  const int v = u - whole, divided = tiles - whole;
  return WorkUnit{whole + v % divided, v / divided, v};
}

// The two-part layout (p64_ordered_2part): k-block kb of the 3k-deep product, nkp k-blocks per
// part, is k-block `block` of the parts named by a_small and b_small (false: big(x), true:
// small(x)): the first nkp blocks multiply big(A) big(B), the next small(A) big(B), the last
// big(A) small(B), the order of the three-part layout's [big small big] x [big; big; small].
struct TwoPartBlock {
  int block;
  bool a_small, b_small;
};
TF32X3_HD TwoPartBlock two_part_block(int kb, int nkp) {
  const int term = kb / nkp;
  return TwoPartBlock{kb - term * nkp, term == 1, term == 2};
}

// The fused variant (p64_ordered_fused): k-block kb of the operands as stored, split in shared
// memory, feeds the product's k-blocks 3 kb, 3 kb + 1 and 3 kb + 2, which multiply big(A) big(B),
// small(A) big(B) and big(A) small(B); `first` and `last` mark the product k-blocks that wait
// for the split block and release it. Chunks of two product k-blocks (chunks(3 nkb, 2)) may span
// two split blocks.
struct FusedBlock {
  int block;
  bool a_small, b_small;
  bool first, last;
};
TF32X3_HD FusedBlock fused_block(int g) {
  const int t = g % 3;
  return FusedBlock{g / 3, t == 1, t == 2, t == 0, t == 2};
}

// The ordered variants' turns: both consumers walk the same chunks, and each waits for its turn
// on its own named barrier before issuing a chunk's wgmmas, then signals the other's barrier.
// Consumer 1 signals once before its first chunk (consumer 0's first turn) and consumer 0 waits
// once after its last (consuming consumer 1's last signal), so that the loop itself waits and
// signals on every chunk without a branch on the warpgroup (a thread-dependent branch around
// the wgmmas makes the compiler serialise them), and every signal meets one wait.
TF32X3_HD int turn_barrier(int consumer) { return consumer == 0 ? 1 : 2; }  // waits here, signals the other's
TF32X3_HD bool signals_before_first(int consumer) { return consumer == 1; }
TF32X3_HD bool waits_after_last(int consumer) { return consumer == 0; }

// The split plan for `tiles` tiles of nk k-blocks on `sms` multiprocessors, the better scored of
// two families, each with s in 1..4 slices of at least 24 k-blocks:
// - every tile divided in s (s = 1: none; whole = 0, or tiles): waves of tiles x s units of 1/s
//   of a tile's time;
// - from one wave of tiles up, the whole waves whole and the last, partial wave's tiles divided
//   in s where their units fit one wave: whole waves plus 1/s of a tile's time (4096^3 on 132 SMs:
//   704 tiles, 5 waves whole and 44 tiles in 3 slices, 5.33 tile times instead of 6).
// Score: the tiles' time at full occupancy over the plan's, less 4% for each split beyond the
// first in the share of tiles divided (their FP32 sums go through device memory once more); ties
// to the earlier candidate (fewer slices, every tile divided before the last wave's). So 2048^3
// (176 tiles) takes 132 whole and 44 in 3 (1.33 tile times, as every tile in 3, with a quarter
// of the sums through memory).
struct SplitPlan {
  int splits, whole;
};
inline SplitPlan split_plan(int tiles, int nk, int sms) {
  if (tiles <= 0 || sms <= 0) return SplitPlan{1, tiles > 0 ? tiles : 0};
  const double ideal = double(tiles) / sms;
  const int waves_whole = tiles / sms, rem = tiles % sms;
  SplitPlan best{1, tiles};
  double best_score = -1;
  for (int s = 1; s <= 4; ++s) {
    if (s > 1 && nk / s < 24) break;
    const long long waves = ((long long)tiles * s + sms - 1) / sms;
    const double all = ideal / (double(waves) / s) - 0.04 * (s - 1);
    if (all > best_score + 1e-9) {
      best_score = all;
      best = SplitPlan{s, s > 1 ? 0 : tiles};
    }
    if (s > 1 && waves_whole > 0 && rem > 0 && rem * s <= sms) {
      const double last = ideal / (waves_whole + 1.0 / s) - 0.04 * (s - 1) * double(rem) / tiles;
      if (last > best_score + 1e-9) {
        best_score = last;
        best = SplitPlan{s, tiles - rem};
      }
    }
  }
  return best;
}

}  // namespace tf32x3_schedule
}  // namespace myblas
