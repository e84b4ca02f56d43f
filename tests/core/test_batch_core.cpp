// The batch description's host-side checks (core/batch.h), called directly: pointer arrays that
// step evenly recognised as strided groups (and everything else left listed), and the output
// overlap check in every order of the outputs.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/batch.h"

namespace myblas {
namespace {

// Listed group of `count` square products of size n over the lists given.
BatchGroup listed(std::vector<const void*>& a, std::vector<const void*>& b, std::vector<void*>& c, int64_t n) {
  BatchGroup g;
  g.m = g.n = g.k = n;
  g.lda = g.ldb = g.ldc = n;
  g.alpha.re = 1;
  g.count = int64_t(c.size());
  g.a_list = a.data(), g.b_list = b.data(), g.c_list = c.data();
  return g;
}

// Pointer lists of `count` products (never dereferenced: only the addresses are compared): A's,
// B's and C's pointers sa, sb and sc bytes apart from base.
struct Lists {
  std::vector<const void*> a, b;
  std::vector<void*> c;
  Lists(int64_t count, const char* base, int64_t sa, int64_t sb, int64_t sc)
      : a(static_cast<size_t>(count)), b(static_cast<size_t>(count)), c(static_cast<size_t>(count)) {
    for (int64_t i = 0; i < count; ++i) {
      a[size_t(i)] = base + sa * i;
      b[size_t(i)] = base + sb * i;
      c[size_t(i)] = const_cast<char*>(base) + sc * i;
    }
  }
  // The same lists, but list `which` (0: A, 1: B, 2: C) pointing at `to` at product `at`.
  Lists with(int which, int64_t at, const char* to) const {
    Lists l = *this;
    if (which == 2) l.c[size_t(at)] = const_cast<char*>(to);
    else (which == 0 ? l.a : l.b)[size_t(at)] = to;
    return l;
  }
};
BatchGroup listed(Lists& l, int64_t n) { return listed(l.a, l.b, l.c, n); }

// Long lists (checked in blocks over the copy threads): every pointer counts, the first block's,
// a middle block's and the last one's.
TEST(BatchCore, LongListsAsStrided) {
  const int64_t count = 100003, n = 2;
  std::vector<float> buf(16);
  auto* base = reinterpret_cast<const char*>(buf.data());
  Lists l(count, base, 4 * 4, 0, 4 * 8);
  {
    BatchGroup g = listed(l, n);
    ASSERT_TRUE(listed_as_strided(&g, Family::gemm, sizeof(float)));
    EXPECT_EQ(g.stride_a, 4);
    EXPECT_EQ(g.stride_c, 8);
  }
  for (int64_t at : {int64_t(2), int64_t(3), count / 2, count - 8193, count - 1}) {
    for (int list = 0; list < 3; ++list) {
      Lists off = l.with(list, at, base + 4);
      BatchGroup g = listed(off, n);
      EXPECT_FALSE(listed_as_strided(&g, Family::gemm, sizeof(float))) << "list " << list << " off at " << at;
      EXPECT_TRUE(g.listed());
    }
  }
  // A long group that only scales C: only C's list is looked at (A's and B's: one in the middle off).
  Lists s_lists = l.with(0, count / 2, nullptr);
  BatchGroup s = listed(s_lists.a, s_lists.a, s_lists.c, n);
  s.alpha.re = 0;
  ASSERT_TRUE(listed_as_strided(&s, Family::gemm, sizeof(float)));
  EXPECT_EQ(s.stride_c, 8);
  EXPECT_EQ(s.c_at(count - 1, sizeof(float)), l.c[size_t(count - 1)]);
}

TEST(BatchCore, ListedAsStrided) {
  std::vector<float> buf(4096);
  const int64_t n = 4, count = 5;
  std::vector<const void*> a, b;
  std::vector<void*> c;
  for (int64_t i = 0; i < count; ++i) {
    a.push_back(buf.data() + 7 * i);      // step 7 elements
    b.push_back(buf.data() + 100);        // shared
    c.push_back(buf.data() + 200 + 16 * i);
  }
  BatchGroup g = listed(a, b, c, n);
  ASSERT_TRUE(listed_as_strided(&g, Family::gemm, sizeof(float)));
  EXPECT_FALSE(g.listed());
  EXPECT_EQ(g.stride_a, 7);
  EXPECT_EQ(g.stride_b, 0);
  EXPECT_EQ(g.stride_c, 16);
  for (int64_t i = 0; i < count; ++i) {
    EXPECT_EQ(g.a_at(i, sizeof(float)), a[size_t(i)]);
    EXPECT_EQ(g.b_at(i, sizeof(float)), b[size_t(i)]);
    EXPECT_EQ(g.c_at(i, sizeof(float)), c[size_t(i)]);
  }

  // Not strided: one pointer off the step (first, middle, last), a step that is not whole
  // elements, a step backwards, C shared. The group stays as it was.
  auto refused = [&](std::vector<const void*> aa, std::vector<const void*> bb, std::vector<void*> cc, const char* what) {
    BatchGroup h = listed(aa, bb, cc, n);
    const BatchGroup before = h;
    EXPECT_FALSE(listed_as_strided(&h, Family::gemm, sizeof(float))) << what;
    EXPECT_TRUE(h.listed()) << what;
    EXPECT_EQ(h.a_list, before.a_list) << what;
    EXPECT_EQ(h.c_list, before.c_list) << what;
  };
  {
    auto aa = a;
    aa[2] = buf.data() + 15;
    refused(aa, b, c, "A's middle pointer off the step");
    aa = a;
    aa[4] = buf.data() + 29;
    refused(aa, b, c, "A's last pointer off the step");
    auto cc = c;
    cc[0] = buf.data() + 199;
    refused(a, b, cc, "C's first pointer off the step");
    auto bb = b;
    bb[3] = buf.data() + 101;
    refused(a, bb, c, "B shared but for one");
    cc = c;
    for (size_t i = 0; i < cc.size(); ++i) cc[i] = reinterpret_cast<char*>(buf.data() + 200) + 6 * i;
    refused(a, b, cc, "a step of 6 bytes");
    cc = c;
    for (size_t i = 0; i < cc.size(); ++i) cc[i] = buf.data() + 400 - 16 * int64_t(i);
    refused(a, b, cc, "C backwards");
    for (size_t i = 0; i < cc.size(); ++i) cc[i] = buf.data() + 200;
    refused(a, b, cc, "C shared");
  }

  // A group that only scales C: A and B are never read, so their lists do not matter.
  std::vector<const void*> junk = {nullptr, buf.data() + 3, nullptr, buf.data(), buf.data() + 9};
  BatchGroup s = listed(junk, junk, c, n);
  s.alpha.re = 0;
  ASSERT_TRUE(listed_as_strided(&s, Family::gemm, sizeof(float)));
  EXPECT_EQ(s.stride_c, 16);
  EXPECT_EQ(s.c_at(4, sizeof(float)), c[4]);

  // One product: strided with any step.
  std::vector<const void*> a1 = {a[0]}, b1 = {b[0]};
  std::vector<void*> c1 = {c[0]};
  BatchGroup one = listed(a1, b1, c1, n);
  ASSERT_TRUE(listed_as_strided(&one, Family::gemm, sizeof(float)));
  EXPECT_EQ(one.c_at(0, sizeof(float)), c[0]);
}

TEST(BatchCore, OverlapInEveryOrder) {
  std::vector<float> buf(1024);
  const int64_t n = 4;
  std::vector<const void*> a(3, buf.data()), b(3, buf.data());
  auto check = [&](std::vector<int64_t> at, bool want, const char* what) {
    std::vector<void*> c;
    for (int64_t e : at) c.push_back(buf.data() + e);
    BatchProblem p;
    p.groups = {listed(a, b, c, n)};
    p.groups[0].ldc = 8;  // C: 4 x 4 in columns 8 apart; rows 4..7 of each column unused
    EXPECT_EQ(batch_outputs_overlap(p), want) << what;
  };
  check({0, 32, 64}, false, "in address order, apart");
  check({64, 32, 0}, false, "backwards, apart");
  check({0, 4, 64}, false, "interleaved through the padding, in order");
  check({64, 4, 0}, false, "interleaved through the padding, out of order");
  check({0, 9, 64}, true, "in order, C1 inside C0's column 1");
  check({0, 64, 27}, true, "C2 meets C0's last column, not its neighbour in the list");
  check({27, 64, 0}, true, "C0 meets C2, backwards");
  // Two groups, each in order, the second meeting the first.
  std::vector<void*> c0 = {buf.data(), buf.data() + 32}, c1 = {buf.data() + 40, buf.data() + 24};
  std::vector<const void*> a2(2, buf.data()), b2(2, buf.data());
  BatchProblem p;
  p.groups = {listed(a2, b2, c0, n), listed(a2, b2, c1, n)};
  p.groups[0].ldc = p.groups[1].ldc = 8;
  EXPECT_TRUE(batch_outputs_overlap(p)) << "a later group's output inside an earlier group's";
  c1 = {buf.data() + 96, buf.data() + 128};
  p.groups[1].c_list = c1.data();
  EXPECT_FALSE(batch_outputs_overlap(p)) << "two groups apart";
}


// A strided group of `count` 4 x 4 outputs (ldc 8: rows 4..7 of each column unused) from c, C_i
// `stride` elements apart.
BatchGroup strided_c(void* c, int64_t stride, int64_t count) {
  BatchGroup g;
  g.m = g.n = g.k = 4;
  g.lda = g.ldb = 4, g.ldc = 8;
  g.alpha.re = 1;
  g.count = count;
  g.a = g.b = c;
  g.c = c;
  g.stride_a = g.stride_b = 0, g.stride_c = stride;
  return g;
}

// Groups against each other: apart, in any order of the call; extents that meet with outputs
// interleaved through the padding (apart) or sharing an element; a listed group out of order
// beside groups it does not reach, with and without two of its own outputs meeting.
TEST(BatchCore, OverlapBetweenGroups) {
  std::vector<float> buf(4096);
  float* f = buf.data();
  BatchProblem p;
  p.groups = {strided_c(f + 512, 32, 3), strided_c(f, 32, 3)};
  EXPECT_FALSE(batch_outputs_overlap(p)) << "the second group below the first, apart";
  p.groups[1].c = f + 4;
  p.groups[0].c = f;
  EXPECT_FALSE(batch_outputs_overlap(p)) << "interleaved through the padding";
  p.groups[1].c = f + 33;
  EXPECT_TRUE(batch_outputs_overlap(p)) << "the second group's first output inside the first group's second";
  p.groups[1].c = f + 64 + 27;
  EXPECT_TRUE(batch_outputs_overlap(p)) << "the first group's last output meets the second group's first";
  p.groups[1].c = f + 64 + 28;
  EXPECT_FALSE(batch_outputs_overlap(p)) << "right after the first group's last output";
  // Three groups: the first and third meet; the second lies between them in the call and apart.
  p.groups = {strided_c(f, 32, 2), strided_c(f + 1024, 32, 2), strided_c(f + 32 + 9, 32, 1)};
  EXPECT_TRUE(batch_outputs_overlap(p)) << "first and third group";
  p.groups[2].c = f + 32 + 4;
  EXPECT_FALSE(batch_outputs_overlap(p)) << "first and third group interleaved";
  // A listed group out of address order, its extent apart from the strided groups'.
  std::vector<const void*> a(3, f), b(3, f);
  std::vector<void*> c = {f + 2048 + 64, f + 2048, f + 2048 + 32};
  p.groups = {strided_c(f, 32, 2), listed(a, b, c, 4), strided_c(f + 3072, 32, 2)};
  p.groups[1].ldc = 8;
  EXPECT_FALSE(batch_outputs_overlap(p)) << "listed out of order, apart";
  c[2] = f + 2048 + 9;
  EXPECT_TRUE(batch_outputs_overlap(p)) << "listed out of order, two of its own outputs meet";
  c[2] = f + 3072 + 36;  // between the third group's columns, through the padding
  EXPECT_FALSE(batch_outputs_overlap(p)) << "listed output interleaved with a strided group's";
  c[2] = f + 3072 + 33;
  EXPECT_TRUE(batch_outputs_overlap(p)) << "listed output inside a strided group's";
  // A strided group's C of stride 0 and more than one product writes one block twice.
  p.groups = {strided_c(f + 1024, 0, 2), strided_c(f, 32, 2)};
  EXPECT_TRUE(batch_outputs_overlap(p)) << "stride 0";
}

// Groups of 2^30 strided products each whose extents do not meet are settled by their extents,
// in either order of the call: no pass over their products (which, from the products' outputs
// one by one, would hold 2^31 blocks). The outputs are never dereferenced.
TEST(BatchCore, OverlapOfLargeGroupsByExtent) {
  const int64_t count = int64_t(1) << 30;
  auto* lo = reinterpret_cast<float*>(uintptr_t(1) << 44);
  auto* hi = reinterpret_cast<float*>(uintptr_t(1) << 45);
  BatchProblem p;
  p.groups = {strided_c(hi, 32, count), strided_c(lo, 32, count)};
  EXPECT_FALSE(batch_outputs_overlap(p)) << "second group below the first";
  std::swap(p.groups[0], p.groups[1]);
  EXPECT_FALSE(batch_outputs_overlap(p)) << "in address order";
  p.groups.push_back(strided_c(hi + (uintptr_t(1) << 40), 0, 2));
  EXPECT_TRUE(batch_outputs_overlap(p)) << "a third group writing one output twice (stride 0)";
}


// Random batches of one to four groups (strided or listed, outputs of random shapes, leading
// dimensions and places in one buffer) against every pair of outputs compared with
// blocks_overlap.
TEST(BatchCore, OverlapAgainstEveryPair) {
  std::vector<float> buf(1 << 14);
  std::mt19937 rng(20261128);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int overlapping = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    BatchProblem p;
    std::vector<std::vector<void*>> cs(4);
    std::vector<const void*> ab(8, buf.data());
    const int groups = pick(1, 4);
    for (int gi = 0; gi < groups; ++gi) {
      BatchGroup g;
      g.m = pick(1, 4), g.n = pick(1, 4), g.k = 1;
      g.lda = g.ldb = 4, g.ldc = g.m + pick(0, 3);
      g.alpha.re = 1;
      g.count = pick(1, 6);
      const int64_t span = (g.n - 1) * g.ldc + g.m;
      if (pick(0, 1)) {
        g.c = buf.data() + pick(0, 8000);
        g.stride_c = pick(0, 1) ? span + pick(0, 3) : pick(1, int(span) + 2);  // apart, or maybe interleaved
        g.a = g.b = buf.data();
      } else {
        const int base = pick(0, 8000);
        for (int64_t i = 0; i < g.count; ++i) cs[size_t(gi)].push_back(buf.data() + base + pick(0, 60));
        g.c_list = cs[size_t(gi)].data();
        g.a_list = g.b_list = ab.data();
      }
      p.groups.push_back(g);
    }
    std::vector<std::pair<const BatchGroup*, int64_t>> outs;
    for (const BatchGroup& g : p.groups)
      for (int64_t i = 0; i < g.count; ++i) outs.push_back({&g, i});
    bool want = false;
    for (size_t x = 0; x < outs.size() && !want; ++x)
      for (size_t y = x + 1; y < outs.size() && !want; ++y) {
        const BatchGroup &gx = *outs[x].first, &gy = *outs[y].first;
        want = blocks_overlap(gx.c_at(outs[x].second, 4), gx.m, gx.n, gx.ldc, gy.c_at(outs[y].second, 4), gy.m, gy.n,
                              gy.ldc, 4);
      }
    overlapping += want;
    ASSERT_EQ(batch_outputs_overlap(p), want) << "trial " << trial << " (seed 20261128), " << groups << " groups";
  }
  EXPECT_GT(overlapping, 300) << "too few overlapping batches to test the check";
  EXPECT_LT(overlapping, 2700) << "too few batches apart to test the check";
}

// Speculation (beta == 0): C's list is checked in full, A's and B's are taken as stepping from
// their first two pointers and checked later; a wrong guess goes back to the lists as given.
TEST(BatchCore, SpeculativeLists) {
  const int64_t count = 20000, n = 2;  // (long enough for the pass over the copy threads)
  std::vector<float> buf(16);
  auto* base = reinterpret_cast<const char*>(buf.data());
  Lists l(count, base, 4 * 4, 4 * 6, 4 * 8);
  auto group = [&](Lists& lists, double beta) {
    BatchGroup g = listed(lists, n);
    g.beta.re = beta;
    return g;
  };
  // Lists that step: speculative, the guess holds, settling keeps it strided.
  {
    BatchProblem p;
    p.groups.push_back(group(l, 0));
    ASSERT_TRUE(listed_as_strided(&p.groups[0], Family::gemm, sizeof(float), true));
    ASSERT_TRUE(p.groups[0].speculative());
    EXPECT_EQ(p.groups[0].stride_a, 4);
    EXPECT_EQ(p.groups[0].stride_b, 6);
    EXPECT_EQ(p.groups[0].stride_c, 8);
    EXPECT_TRUE(speculation_holds(p));
    EXPECT_FALSE(settle_speculation(&p));
    EXPECT_FALSE(p.groups[0].speculative());
    EXPECT_FALSE(p.groups[0].listed());
    EXPECT_TRUE(p.groups[0].stepped);
  }
  for (int64_t at : {int64_t(2), count / 2, count - 1}) {
    for (int list = 0; list < 3; ++list) {
      Lists off = l.with(list, at, list == 2 ? base + 4 * 8 * (count + 1) : base + 4);
      // beta != 0: every list checked before anything runs.
      BatchGroup full = group(off, 0.5);
      EXPECT_FALSE(listed_as_strided(&full, Family::gemm, sizeof(float), true)) << list << " " << at;
      EXPECT_TRUE(full.listed());
      BatchProblem p;
      p.groups.push_back(group(off, 0));
      const bool taken = listed_as_strided(&p.groups[0], Family::gemm, sizeof(float), true);
      if (list == 2) {  // C's list is always checked in full
        EXPECT_FALSE(taken) << at;
        EXPECT_TRUE(p.groups[0].listed());
        continue;
      }
      ASSERT_TRUE(taken) << list << " " << at;
      EXPECT_FALSE(speculation_holds(p)) << list << " " << at;
      BatchProblem undone = p;
      undo_speculation(&undone);
      EXPECT_TRUE(settle_speculation(&p));
      for (const BatchProblem* q : {&p, &undone}) {
        const BatchGroup& g = q->groups[0];
        EXPECT_TRUE(g.listed());
        EXPECT_FALSE(g.speculative());
        EXPECT_FALSE(g.stepped);
        EXPECT_EQ(g.a_list, off.a.data());
        EXPECT_EQ(g.b_list, off.b.data());
        EXPECT_EQ(g.c_list, off.c.data());
        EXPECT_EQ(g.a_at(at, sizeof(float)), off.a[size_t(at)]);
      }
    }
  }
  // Only scaling C (alpha == 0): nothing to guess, C checked as before.
  {
    BatchGroup g = group(l, 0);
    g.alpha.re = 0;
    ASSERT_TRUE(listed_as_strided(&g, Family::gemm, sizeof(float), true));
    EXPECT_FALSE(g.speculative());
  }
}

}  // namespace
}  // namespace myblas
