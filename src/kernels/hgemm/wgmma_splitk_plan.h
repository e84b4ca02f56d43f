// The wgmma split-k kernel's copies of its short operand (wgmma_splitk.cu), host arithmetic kept
// apart from the launcher so that the tests can check it without a GPU: the tile's N, and which
// columns of the short side each stage copies.
//
// With one tile along the short side only its columns that exist are copied: K-major, one box of
// `rows` rows (the short side rounded up to 8); MN-major, the 64-wide boxes that reach them, the
// last shifted back by `shift` columns (a multiple of 8: a box must start 16-byte aligned) so that
// it ends at most 7 columns past the last one instead of up to 63. The shifted box's first
// `shift` columns repeat the previous box's last ones; the kernel does not store them.
#pragma once
#include "core/problem.h"

namespace myblas {
namespace wsplit {

constexpr int kBoxCols = 64;        // columns of an MN-major copy box (one 128-byte swizzle row)
constexpr int kBoxBytes = 64 * 64 * 2;  // bytes of an MN-major box: 64 columns x 64 k
constexpr int kRowBytes = 64 * 2;       // bytes of a K-major box row: 64 k

// The wgmma N of the tile for a short side: 64, 128 or 256.
inline int tile_n(int short_side) { return short_side <= 64 ? 64 : short_side <= 128 ? 128 : 256; }

// Whether the short operand (A when m <= n, else B) runs along the short side in memory, i.e.
// is MN-major for the kernel: A 'N' with m small, B 'T' with n small (else K-major).
inline bool short_mn_major(const GemmProblem& g) { return g.m <= g.n ? g.ta == Op::N : g.tb == Op::T; }

struct QCopies {
  int rows = 0;        // K-major: rows of the box
  int boxes = 0;       // MN-major: 64-wide boxes
  int shift = 0;       // MN-major: columns the last box is shifted back by (0: none)
  int shift_from = 0;  // the shifted box's first column of the tile (the tile's N when none)
  int bytes = 0;       // bytes a stage copies
};

// The copies of a short side of `short_side` columns in tiles of n_tile, K-major or MN-major.
inline QCopies q_copies(int short_side, int n_tile, bool mn_major) {
  QCopies q;
  const bool one_tile = short_side <= n_tile;
  q.rows = one_tile ? (short_side + 7) / 8 * 8 : n_tile;
  q.boxes = one_tile ? (short_side + kBoxCols - 1) / kBoxCols : n_tile / kBoxCols;
  const bool shift = mn_major && one_tile && short_side > kBoxCols && short_side % kBoxCols != 0;
  q.shift = shift ? kBoxCols * (q.boxes - 1) - (short_side - kBoxCols + 7) / 8 * 8 : 0;
  q.shift_from = shift ? kBoxCols * (q.boxes - 1) : n_tile;
  q.bytes = mn_major ? q.boxes * kBoxBytes : q.rows * kRowBytes;
  return q;
}

// MN-major: the first column of the short side that box b copies, in the tile starting at c0.
inline int box_start(const QCopies& q, int c0, int b) { return c0 + kBoxCols * b - (b == q.boxes - 1 ? q.shift : 0); }

}  // namespace wsplit
}  // namespace myblas
