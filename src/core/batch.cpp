#include "core/batch.h"

#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace myblas {

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

// An output as a column-major block in bytes: cols columns of rbytes bytes, ldb bytes apart.
struct Block {
  intptr_t start;
  int64_t rbytes, cols, ldbytes;
  intptr_t end() const { return start + intptr_t((cols - 1) * ldbytes + rbytes); }
};

bool overlap(const Block& x, const Block& y) {
  if (x.end() <= y.start || y.end() <= x.start) return false;
  for (int64_t j = 0; j < x.cols; ++j) {  // column j of x against the columns of y it can reach
    const int64_t d = int64_t(x.start - y.start) + j * x.ldbytes;
    const int64_t lo = std::max<int64_t>(0, floor_div(d - y.rbytes, y.ldbytes) + 1);
    const int64_t hi = std::min<int64_t>(y.cols - 1, ceil_div(d + x.rbytes, y.ldbytes) - 1);
    if (lo <= hi) return true;
  }
  return false;
}

// The output of product i of group g: C (m x n, ldc) or y (len elements |incy| apart).
Block output_block(const BatchProblem& p, const BatchGroup& g, int64_t i) {
  const int64_t es = int64_t(p.elem_size());
  if (p.family == Family::gemv) {
    const int64_t len = g.ta == 'N' || g.ta == 'R' ? g.m : g.n;
    const int64_t inc = g.ldc < 0 ? -g.ldc : g.ldc;
    return {reinterpret_cast<intptr_t>(g.c_at(i, size_t(es))), es, len, inc * es};
  }
  return {reinterpret_cast<intptr_t>(g.c_at(i, size_t(es))), g.m * es, g.n, g.ldc * es};
}

bool empty_output(const BatchProblem& p, const BatchGroup& g) {
  if (g.count == 0) return true;
  if (p.family == Family::gemv) return (g.ta == 'N' || g.ta == 'R' ? g.m : g.n) == 0;
  return g.m == 0 || g.n == 0;
}

}  // namespace

namespace {

// Whether list w of `lists` (n of them, `count` pointers each) holds list[w][0] + i * step[w] at
// every i from 2 on (addresses as unsigned: wrapping as the strided form's do). In blocks of all
// the lists together without a branch per pointer; one job over the copy threads when there are
// more than a few blocks (one wake-up of the pool, not one per list). This pass is host time the
// strided form does not have: on the H200, 2^18 products of 16^3 as pointer arrays took 513 us
// against 398 us strided with one job per list and the shorter lists (under 2^15 products) on one
// thread.
bool lists_step(const void* const* const* lists, const intptr_t* step, int n, int64_t count) {
  constexpr int64_t kBlock = 8192;  // pointers a task
  const int64_t rest = count > 2 ? count - 2 : 0;
  const int64_t per_list = (rest + kBlock - 1) / kBlock;
  auto block_steps = [&](int64_t task) {
    const int w = int(task / per_list);
    const int64_t i0 = 2 + (task % per_list) * kBlock, i1 = std::min(count, i0 + kBlock);
    const void* const* l = lists[w];
    const uintptr_t d = uintptr_t(step[w]);
    uintptr_t want = reinterpret_cast<uintptr_t>(l[0]) + uintptr_t(i0) * d, off = 0;
    for (int64_t i = i0; i < i1; ++i, want += d) off |= reinterpret_cast<uintptr_t>(l[i]) ^ want;
    return off == 0;
  };
  const int64_t tasks = per_list * n;
  if (tasks < 3) {
    for (int64_t t = 0; t < tasks; ++t)
      if (!block_steps(t)) return false;
    return true;
  }
  std::atomic<bool> off{false};
  parallel_for(size_t(tasks), [&](size_t t) {
    if (off.load(std::memory_order_relaxed)) return;
    if (!block_steps(int64_t(t))) off.store(true, std::memory_order_relaxed);
  });
  return !off.load();
}

// A speculative group's A and B lists, and the steps it took them for.
bool guess_holds(const BatchGroup& g, size_t es) {
  const void* const* lists[2] = {g.given_a, g.given_b};
  const intptr_t step[2] = {intptr_t(g.stride_a) * intptr_t(es), intptr_t(g.stride_b) * intptr_t(es)};
  return lists_step(lists, step, 2, g.count);
}

void back_to_lists(BatchGroup* g) {
  g->a_list = g->given_a, g->b_list = g->given_b, g->c_list = g->given_c;
  g->given_a = g->given_b = nullptr, g->given_c = nullptr;
  g->stepped = false;
}

}  // namespace

bool listed_as_strided(BatchGroup* g, Family f, size_t es, bool speculate) {
  if (!g->listed() || g->count < 1) return false;
  const bool ab = !g->scale_only(f);
  const bool guess = speculate && ab && g->beta.zero() && g->count > 2;
  const int lists = ab ? 3 : 1;
  const void* const* list[3] = {reinterpret_cast<const void* const*>(g->c_list), g->a_list, g->b_list};
  // Each list's step in bytes from its first two pointers (C's forward, A's and B's from 0 up).
  intptr_t step[3] = {intptr_t(es), 0, 0};
  if (g->count > 1) {
    for (int w = 0; w < lists; ++w) {
      step[w] = intptr_t(reinterpret_cast<uintptr_t>(list[w][1]) - reinterpret_cast<uintptr_t>(list[w][0]));
      if (step[w] < 0 || (w == 0 && step[w] == 0) || step[w] % intptr_t(es) != 0) return false;
    }
  }
  // Every pointer from the third on (C's alone when guessing A's and B's).
  if (!lists_step(list, step, guess ? 1 : lists, g->count)) return false;
  const int64_t ies = int64_t(es);
  if (guess) g->given_a = g->a_list, g->given_b = g->b_list, g->given_c = g->c_list;
  g->a = g->a_list[0], g->b = g->b_list[0], g->c = g->c_list[0];
  g->stride_a = ab ? step[1] / ies : 0, g->stride_b = ab ? step[2] / ies : 0, g->stride_c = step[0] / ies;
  g->a_list = nullptr, g->b_list = nullptr, g->c_list = nullptr;
  g->stepped = true;
  return true;
}

bool speculation_holds(const BatchProblem& p) {
  for (const BatchGroup& g : p.groups)
    if (g.speculative() && !guess_holds(g, p.elem_size())) return false;
  return true;
}

bool settle_speculation(BatchGroup* g, size_t es) {
  if (!g->speculative()) return false;
  if (guess_holds(*g, es)) {
    g->given_a = g->given_b = nullptr, g->given_c = nullptr;
    return false;
  }
  back_to_lists(g);
  return true;
}

bool settle_speculation(BatchProblem* p) {
  bool listed = false;
  for (BatchGroup& g : p->groups) listed = settle_speculation(&g, p->elem_size()) || listed;
  return listed;
}

void undo_speculation(BatchProblem* p) {
  for (BatchGroup& g : p->groups)
    if (g.speculative()) back_to_lists(&g);
}

bool blocks_overlap(const void* p1, int64_t rows1, int64_t cols1, int64_t ld1, const void* p2, int64_t rows2,
                    int64_t cols2, int64_t ld2, size_t es) {
  if (rows1 <= 0 || cols1 <= 0 || rows2 <= 0 || cols2 <= 0) return false;
  const int64_t e = int64_t(es);
  return overlap({reinterpret_cast<intptr_t>(p1), rows1 * e, cols1, ld1 * e},
                 {reinterpret_cast<intptr_t>(p2), rows2 * e, cols2, ld2 * e});
}

namespace {

// Whether the outputs of the groups `which` (indices into p.groups), taken in call order, each
// start at or after the end of all before them: then no two of them meet. This is how pointer
// arrays into one allocation usually come, and it costs one pass over the pointers without
// allocating or sorting (the sort below took milliseconds of host time for 2^18 products); any
// other order falls back to the sort.
bool outputs_in_address_order(const BatchProblem& p, const size_t* which, size_t groups) {
  intptr_t end = 0;
  bool first = true;
  for (size_t w = 0; w < groups; ++w) {
    const BatchGroup& g = p.groups[which[w]];
    for (int64_t i = 0; i < g.count; ++i) {
      const Block b = output_block(p, g, i);
      if (!first && b.start < end) return false;
      first = false;
      end = b.end();
    }
  }
  return true;
}

// The bytes a group's outputs can touch, from its lowest output's start to its highest one's end.
struct Extent {
  intptr_t lo, hi;
  size_t group;
};

}  // namespace

bool batch_outputs_overlap(const BatchProblem& p) {
  const int64_t es = int64_t(p.elem_size());
  // Each group alone, and its extent. A strided group: C_i = C_0 + i*stride, so only the shifts
  // j*stride that land inside C_0's extent can make two of them meet, and its extent is its first
  // and last outputs'. A listed group: its outputs apart when they come in address order (one
  // pass, which also gives the extent); else unknown here and left to the sweep.
  std::vector<Extent> extents;
  std::vector<char> apart(p.groups.size(), 0);
  for (size_t gi = 0; gi < p.groups.size(); ++gi) {
    const BatchGroup& g = p.groups[gi];
    if (empty_output(p, g)) continue;
    if (!g.listed()) {
      const Block b0 = output_block(p, g, 0);
      const int64_t span = int64_t(b0.end() - b0.start), step = (g.stride_c < 0 ? -g.stride_c : g.stride_c) * es;
      if (g.count > 1 && step == 0) return true;
      for (int64_t j = 1; j < g.count && j * step < span; ++j) {
        Block bj = b0;
        bj.start += intptr_t(j * step);
        if (overlap(b0, bj)) return true;
      }
      const Block bl = output_block(p, g, g.count - 1);
      extents.push_back({std::min(b0.start, bl.start), std::max(b0.end(), bl.end()), gi});
      apart[gi] = 1;
      continue;
    }
    apart[gi] = outputs_in_address_order(p, &gi, 1);
    intptr_t lo = output_block(p, g, 0).start, hi = output_block(p, g, 0).end();
    if (apart[gi]) {
      hi = output_block(p, g, g.count - 1).end();
    } else {
      for (int64_t i = 1; i < g.count; ++i) {
        const Block b = output_block(p, g, i);
        lo = std::min(lo, b.start), hi = std::max(hi, b.end());
      }
    }
    extents.push_back({lo, hi, gi});
  }
  // Groups whose extent meets no other group's extent and whose own outputs are apart are
  // settled: none of their outputs can meet another. Extents that meet form runs in order of
  // their starts; only the groups of runs of two or more, and the listed groups not known apart,
  // need their outputs compared one by one (a few groups' extents: no pass over the products of
  // groups of different allocations, where a grouped call's outputs usually are).
  std::sort(extents.begin(), extents.end(), [](const Extent& x, const Extent& y) { return x.lo < y.lo; });
  std::vector<char> involved(p.groups.size(), 0);
  for (size_t r = 0; r < extents.size();) {
    size_t e = r + 1;
    intptr_t hi = extents[r].hi;
    while (e < extents.size() && extents[e].lo < hi) hi = std::max(hi, extents[e++].hi);
    for (size_t i = r; i < e; ++i)
      if (e - r > 1 || !apart[extents[i].group]) involved[extents[i].group] = 1;
    r = e;
  }
  std::vector<size_t> which;
  for (size_t gi = 0; gi < p.groups.size(); ++gi)
    if (involved[gi]) which.push_back(gi);
  if (which.empty()) return false;
  // Outputs that already come in address order, one after another: no two meet. (One group
  // left is a listed group known not to.)
  if (which.size() > 1 && outputs_in_address_order(p, which.data(), which.size())) return false;
  std::vector<Block> blocks;
  for (size_t gi : which) {
    const BatchGroup& g = p.groups[gi];
    for (int64_t i = 0; i < g.count; ++i) blocks.push_back(output_block(p, g, i));
  }
  // Sweep in address order; only blocks whose extents meet are compared element-exactly.
  std::sort(blocks.begin(), blocks.end(), [](const Block& x, const Block& y) { return x.start < y.start; });
  std::vector<const Block*> active;
  for (const Block& b : blocks) {
    active.erase(std::remove_if(active.begin(), active.end(), [&](const Block* a) { return a->end() <= b.start; }),
                 active.end());
    for (const Block* a : active)
      if (overlap(*a, b)) return true;
    active.push_back(&b);
  }
  return false;
}

}  // namespace myblas
