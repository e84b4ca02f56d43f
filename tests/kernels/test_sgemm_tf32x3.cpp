// The SGEMM precision mode (3xTF32 on the tensor cores, MYBLAS_SGEMM_PRECISION): the split kernel
// called directly, the refusal rules (no GPU needed), and the mode through cblas_sgemm on device
// pointers and host arrays against OpenBLAS and an FP64 reference.
//
// The bound proved for the scheme (docs/sgemm-precision.md). With u = 2^-24, every FP32 x splits
// as x = big + small + d, big = rn_tf32(x), small = rn_tf32(x - big): |x - big| <= 2^-11 |x| (TF32
// keeps 11 significant bits), x - big is exact in FP32, and |d| <= 2^-11 |x - big| <= 2^-22 |x|.
// The three products omit small(a) small(b) + d_a b + (big(a) + small(a)) d_b, at most
// 3 * 2^-22 (1 + 2^-10) |a||b| = 12.01 u |a||b| per term; the 3k exact TF32 products are summed in
// FP32, 32 at a time by the tensor cores and then by FP32 adds (the promotion); taking every
// addition's error below 2u (the tensor cores may truncate), sum_l error <= (12.01 + 2 * 3k) u
// sum_l |a_il||b_lj|, plus two
// roundings of alpha * sum + beta * c. As a multiple of FLT_EPSILON (2u):
//   |C - C_exact| <= (6.01 + 3k + 2) eps (|alpha| |A||B| + |beta||C0|).
// Against OpenBLAS, whose own error is below (k + 2) eps/2 of the same scale, the tests allow the sum.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/data.h"
#include "common/reference.h"
#include "dispatch/tf32x3_rule.h"
#include "kernels/sgemm_tc.h"
#include "kernels/sgemm_tc/schedule.h"
#include "myblas.h"

#include "kernel_test_util.h"

namespace {

using kernel_test::DevBuf;
#define REQUIRE_GPU() KERNEL_TEST_REQUIRE_GPU("SGEMM precision-mode tests")

double proven_eps_factor(int k) { return 6.01 + 3.0 * k + 2.0; }

// ---- the refusal rules (host code: runs in CI without a GPU) ----
myblas::Tf32x3Stats stats_of(float max_a, float min_a, float max_b, float min_b) {
  auto bits = [](float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return u & 0x7fffffffu;
  };
  myblas::Tf32x3Stats s;
  s.max_abs_bits[0] = bits(max_a);
  s.max_abs_bits[1] = bits(max_b);
  s.not_min_abs_bits[0] = min_a == 0 ? 0 : ~bits(min_a);
  s.not_min_abs_bits[1] = min_b == 0 ? 0 : ~bits(min_b);
  return s;
}

TEST(Tf32x3Refuse, OrdinaryDataIsTaken) {
  EXPECT_EQ(myblas::tf32x3_refuse(stats_of(1.f, 1e-7f, 1.f, 1e-7f), 16384), nullptr);
  EXPECT_EQ(myblas::tf32x3_refuse(stats_of(1e6f, 1e-13f, 1e6f, 1e-13f), 4096), nullptr);  // 2^-20..2^20 spreads
  EXPECT_EQ(myblas::tf32x3_refuse(stats_of(0.f, 0.f, 1.f, 0.5f), 10), nullptr);           // A all zero
}

TEST(Tf32x3Refuse, SpecialValuesAreRefused) {
  EXPECT_NE(myblas::tf32x3_refuse(stats_of(INFINITY, 1.f, 1.f, 1.f), 8), nullptr);
  EXPECT_NE(myblas::tf32x3_refuse(stats_of(1.f, 1.f, NAN, 1.f), 8), nullptr);
  EXPECT_NE(myblas::tf32x3_refuse(stats_of(3e38f, 1.f, 1e-30f, 1e-30f), 8), nullptr);  // rn_tf32 may overflow
  EXPECT_NE(myblas::tf32x3_refuse(stats_of(1.f, 1e-35f, 1.f, 1.f), 8), nullptr);        // subnormal remainder
  EXPECT_NE(myblas::tf32x3_refuse(stats_of(1.f, 1e-20f, 1.f, 1e-20f), 8), nullptr);     // subnormal correction
  EXPECT_NE(myblas::tf32x3_refuse(stats_of(1e19f, 1.f, 1e19f, 1.f), 8), nullptr);       // 1e38 * 3k: overflow
  EXPECT_EQ(myblas::tf32x3_refuse(stats_of(1e17f, 1.f, 1e17f, 1.f), 8), nullptr);       // 1e34 * 24: fine
}

// ---- the product kernel's variants and their schedule (host code: runs in CI without a GPU) ----
TEST(Tf32x3Schedule, VariantNamesRoundTrip) {
  for (int i = 0; i < myblas::kTf32x3Kernels; ++i) {
    const auto k = myblas::Tf32x3Kernel(i);
    myblas::Tf32x3Kernel back = myblas::Tf32x3Kernel::p64_halves;
    if (k == back) back = myblas::Tf32x3Kernel::p32;
    ASSERT_TRUE(myblas::tf32x3_kernel_parse(myblas::tf32x3_kernel_name(k), &back)) << i;
    EXPECT_EQ(back, k);
    const int terms = myblas::tf32x3_kernel_promote_terms(k);
    EXPECT_EQ(terms, std::string(myblas::tf32x3_kernel_name(k)).substr(0, 3) == "p64" ? 64 : 32) << i;
  }
  myblas::Tf32x3Kernel k = myblas::Tf32x3Kernel::p64;
  EXPECT_FALSE(myblas::tf32x3_kernel_parse("p48", &k));
  EXPECT_FALSE(myblas::tf32x3_kernel_parse("", &k));
  EXPECT_FALSE(myblas::tf32x3_kernel_parse(nullptr, &k));
  EXPECT_EQ(k, myblas::Tf32x3Kernel::p64);  // untouched by failed parses
  EXPECT_STREQ(myblas::tf32x3_kernel_name(myblas::Tf32x3Kernel::p32), "p32");
}

// MYBLAS_SGEMM_TF32X3_KERNEL: unset or empty gives the measured default, p64-ordered; a name
// gives its variant; an unknown name gives the default and is reported back.
TEST(Tf32x3Schedule, KernelFromEnvironmentDefaultsToP64Ordered) {
  const char* saved = std::getenv("MYBLAS_SGEMM_TF32X3_KERNEL");
  const std::string keep = saved ? saved : "";
  std::string unknown;
  unsetenv("MYBLAS_SGEMM_TF32X3_KERNEL");
  EXPECT_EQ(myblas::tf32x3_kernel_from_env(&unknown), myblas::Tf32x3Kernel::p64_ordered);
  EXPECT_EQ(myblas::kTf32x3DefaultKernel, myblas::Tf32x3Kernel::p64_ordered);
  setenv("MYBLAS_SGEMM_TF32X3_KERNEL", "", 1);
  EXPECT_EQ(myblas::tf32x3_kernel_from_env(&unknown), myblas::Tf32x3Kernel::p64_ordered);
  EXPECT_TRUE(unknown.empty());
  setenv("MYBLAS_SGEMM_TF32X3_KERNEL", "p32", 1);
  EXPECT_EQ(myblas::tf32x3_kernel_from_env(&unknown), myblas::Tf32x3Kernel::p32);
  EXPECT_TRUE(unknown.empty());
  setenv("MYBLAS_SGEMM_TF32X3_KERNEL", "p48", 1);
  EXPECT_EQ(myblas::tf32x3_kernel_from_env(&unknown), myblas::Tf32x3Kernel::p64_ordered);
  EXPECT_EQ(unknown, "p48");
  if (saved)
    setenv("MYBLAS_SGEMM_TF32X3_KERNEL", keep.c_str(), 1);
  else
    unsetenv("MYBLAS_SGEMM_TF32X3_KERNEL");
}

// The split operands' layout per variant: three parts along k (ld = 3k rounded to 4) for all but
// p64-ordered-2part, whose two k x mn parts lie one after the other (ld = k rounded to 4).
TEST(Tf32x3Schedule, OperandLayoutPerVariant) {
  using myblas::Tf32x3Kernel;
  for (int i = 0; i < myblas::kTf32x3Kernels; ++i) {
    const auto kv = Tf32x3Kernel(i);
    EXPECT_EQ(myblas::tf32x3_kernel_two_parts(kv), kv == Tf32x3Kernel::p64_ordered_2part) << i;
    for (int k : {1, 43, 64, 1031}) {
      myblas::Tf32x3Operand o;
      myblas::tf32x3_operand_layout(kv, k, 300, &o);
      if (myblas::tf32x3_kernel_two_parts(kv)) {
        EXPECT_EQ(o.ldd, (k + 3) / 4 * 4);
        EXPECT_EQ(o.part_stride, o.ldd * 300);
        EXPECT_EQ(myblas::tf32x3_operand_floats(kv, k, 300), 2 * o.ldd * 300);
      } else {
        EXPECT_EQ(o.ldd, myblas::tf32x3_ld(k));
        EXPECT_EQ(o.part_stride, 0);
        EXPECT_EQ(myblas::tf32x3_operand_floats(kv, k, 300), o.ldd * 300);
      }
      EXPECT_EQ(o.ldd % 4, 0);  // (16-byte rows and parts for the copy engine)
      EXPECT_GE(o.ldd, myblas::tf32x3_kernel_two_parts(kv) ? k : 3 * k);
    }
  }
}

// The two-part producer's k-blocks against the three-part layout's, term by term: each k-block's
// 32 terms as (A's part, B's part, k index), zero padding left out. Every k must give each
// index's three terms (big big, small big, big small) once; where k is a multiple of 32 every
// k-block must hold the same terms in the same order as in the three-part layout (the bitwise
// claim), and otherwise only the padding may differ.
TEST(Tf32x3Schedule, TwoPartBlocksHoldTheThreePartTerms) {
  namespace sc = myblas::tf32x3_schedule;
  struct Term {
    bool a_small, b_small;
    int kk;
    bool operator==(const Term& o) const { return a_small == o.a_small && b_small == o.b_small && kk == o.kk; }
  };
  for (int k = 1; k <= 200; ++k) {
    const int nkp = (k + 31) / 32, nk3 = (3 * k + 31) / 32;
    std::vector<std::vector<Term>> two(3 * nkp), three(nk3);
    for (int kb = 0; kb < 3 * nkp; ++kb) {
      const sc::TwoPartBlock q = sc::two_part_block(kb, nkp);
      ASSERT_GE(q.block, 0);
      ASSERT_LT(q.block, nkp);
      for (int e = 0; e < 32; ++e)
        if (q.block * 32 + e < k) two[kb].push_back({q.a_small, q.b_small, q.block * 32 + e});
    }
    for (int kb = 0; kb < nk3; ++kb)
      for (int e = 0; e < 32; ++e) {
        const int idx = kb * 32 + e, t = idx / k;  // A3 = [big small big], B3 = [big; big; small]
        if (idx < 3 * k) three[kb].push_back({t == 1, t == 2, idx % k});
      }
    std::vector<int> seen(size_t(3) * k, 0);
    for (const auto& blk : two)
      for (const Term& t : blk) ++seen[size_t(t.kk) * 3 + (t.a_small ? 1 : t.b_small ? 2 : 0)];
    for (int i = 0; i < 3 * k; ++i) ASSERT_EQ(seen[size_t(i)], 1) << "k " << k << " term " << i;
    if (k % 32 == 0) {
      ASSERT_EQ(two.size(), three.size()) << k;
      for (size_t kb = 0; kb < two.size(); ++kb) EXPECT_TRUE(two[kb] == three[kb]) << "k " << k << " block " << kb;
    }
  }
}

// The fused variant's product k-blocks: each split block's three terms (big big, small big, big
// small) once and in that order; a block is waited for at its first term and released at its
// last; the chunks of two product k-blocks that p64_ordered's promotion takes span at most two
// split blocks (so that the two-stage ring cannot deadlock: a stage is released while at most the
// next block is held) and the releases come in block order.
TEST(Tf32x3Schedule, FusedBlocksHoldEachBlocksTermsOnceInOrder) {
  namespace sc = myblas::tf32x3_schedule;
  for (int nkb = 1; nkb <= 40; ++nkb) {
    const int ng = 3 * nkb;
    int released = 0, waited = 0;
    for (int c = 0; c < sc::chunks(ng, 2); ++c) {
      const int ns = sc::chunk_stages(ng, 2, c);
      ASSERT_TRUE(ns == 1 || ns == 2);
      int lo = nkb, hi = -1;
      for (int q = 0; q < ns; ++q) {
        const int g = 2 * c + q;
        const sc::FusedBlock f = sc::fused_block(g);
        ASSERT_EQ(f.block, g / 3);
        const int term = f.a_small ? 1 : f.b_small ? 2 : 0;
        ASSERT_FALSE(f.a_small && f.b_small);
        EXPECT_EQ(term, g % 3) << "terms of a block in the order big big, small big, big small";
        EXPECT_EQ(f.first, term == 0);
        EXPECT_EQ(f.last, term == 2);
        if (f.first) EXPECT_EQ(f.block, waited++) << "blocks are waited for in order";
        lo = std::min(lo, f.block);
        hi = std::max(hi, f.block);
      }
      EXPECT_LE(hi - lo, 1) << "a chunk spans at most two split blocks";
      for (int q = 0; q < ns; ++q)
        if (sc::fused_block(2 * c + q).last) EXPECT_EQ(sc::fused_block(2 * c + q).block, released++);
    }
    EXPECT_EQ(waited, nkb);
    EXPECT_EQ(released, nkb) << "every block released once";
  }
}

// The fused variant reads the operands as stored through the copy engine: 16-byte aligned with
// leading dimensions multiples of 4 floats, any transpose; the others keep the split pass.
TEST(Tf32x3Fused, CanImplementNeedsCopyEngineAlignment) {
  EXPECT_EQ(myblas::tf32x3_fused_can_implement(0x1000, 4, 0x2000, 1032), nullptr);
  EXPECT_EQ(myblas::tf32x3_fused_can_implement(0x1010, 128, 0x2040, 8), nullptr);
  EXPECT_NE(myblas::tf32x3_fused_can_implement(0x1004, 128, 0x2000, 128), nullptr);  // A 4-byte aligned
  EXPECT_NE(myblas::tf32x3_fused_can_implement(0x1000, 128, 0x2008, 128), nullptr);  // B 8-byte aligned
  EXPECT_NE(myblas::tf32x3_fused_can_implement(0x1000, 127, 0x2000, 128), nullptr);  // lda odd
  EXPECT_NE(myblas::tf32x3_fused_can_implement(0x1000, 128, 0x2000, 1030), nullptr);  // ldb 2 mod 4
  using myblas::Tf32x3Kernel;
  for (int i = 0; i < myblas::kTf32x3Kernels; ++i)
    EXPECT_EQ(myblas::tf32x3_kernel_fused(Tf32x3Kernel(i)),
              Tf32x3Kernel(i) == Tf32x3Kernel::p64_ordered_fused || Tf32x3Kernel(i) == Tf32x3Kernel::p64_ordered_fused_ahead)
        << i;
}

// The shapes tf32x3 takes (dispatch/tf32x3_rule.h), at and beside each measured boundary.
TEST(Tf32x3Schedule, ShapeRuleTakesTheMeasuredGains) {
  using myblas::tf32x3_shape_gains;
  // Measured faster than cublasSgemm by 5% or more (H200, bench/results/h200-sgemm-tf32x3-plan-*).
  EXPECT_TRUE(tf32x3_shape_gains(2048, 2048, 2048));
  EXPECT_TRUE(tf32x3_shape_gains(4096, 4096, 4096));
  EXPECT_TRUE(tf32x3_shape_gains(8192, 8192, 8192));
  EXPECT_TRUE(tf32x3_shape_gains(1536, 1536, 1536));  // 3.6e9
  EXPECT_TRUE(tf32x3_shape_gains(4096, 4096, 256));
  EXPECT_TRUE(tf32x3_shape_gains(1024, 8192, 1024));
  EXPECT_TRUE(tf32x3_shape_gains(1024, 1024, 16384));
  // Measured slower or within 5%, or beside a boundary.
  EXPECT_FALSE(tf32x3_shape_gains(1024, 1024, 1024));  // 0.93-0.95x
  EXPECT_FALSE(tf32x3_shape_gains(1023, 8192, 8192));
  EXPECT_FALSE(tf32x3_shape_gains(8192, 1023, 8192));
  EXPECT_FALSE(tf32x3_shape_gains(2048, 2048, 512));   // 1.03-1.06x
  EXPECT_FALSE(tf32x3_shape_gains(4096, 512, 4096));
  EXPECT_FALSE(tf32x3_shape_gains(256, 4096, 4096));   // 0.70x
  EXPECT_FALSE(tf32x3_shape_gains(8192, 8192, 255));
  EXPECT_FALSE(tf32x3_shape_gains(8192, 8192, 64));
  EXPECT_TRUE(tf32x3_shape_gains(4096, 3200, 256));    // 3.36e9
  EXPECT_FALSE(tf32x3_shape_gains(4096, 3000, 256));   // 3.15e9
  EXPECT_FALSE(tf32x3_shape_gains(0, 0, 0));
}

TEST(Tf32x3Schedule, ChunksCoverEveryStageOnceAndBlocksEveryTile) {
  namespace sc = myblas::tf32x3_schedule;
  for (int per : {1, 2})
    for (int nk = 1; nk <= 40; ++nk) {
      int covered = 0;
      for (int c = 0; c < sc::chunks(nk, per); ++c) {
        const int ns = sc::chunk_stages(nk, per, c);
        ASSERT_GE(ns, 1) << nk << " " << per << " " << c;
        ASSERT_LE(ns, per);
        covered += ns;
      }
      EXPECT_EQ(covered, nk) << "per " << per;
    }
  for (int tiles : {1, 7, 131, 132, 133, 144, 1000})
    for (int grid : {1, 3, 132}) {
      if (grid > tiles) continue;
      int sum = 0;
      for (int b = 0; b < grid; ++b) {
        int walked = 0;
        for (int t = b; t < tiles; t += grid) ++walked;
        EXPECT_EQ(sc::block_tiles(tiles, b, grid), walked) << tiles << " " << grid << " " << b;
        sum += walked;
      }
      EXPECT_EQ(sum, tiles);
    }
}

TEST(Tf32x3Schedule, SplitKSlicesAndChoice) {
  namespace sc = myblas::tf32x3_schedule;
  for (int nk = 1; nk <= 50; ++nk)
    for (int splits = 1; splits <= std::min(nk, 4); ++splits) {
      EXPECT_EQ(sc::slice_begin(nk, splits, 0), 0);
      EXPECT_EQ(sc::slice_begin(nk, splits, splits), nk);
      for (int q = 0; q < splits; ++q) {
        const int len = sc::slice_begin(nk, splits, q + 1) - sc::slice_begin(nk, splits, q);
        EXPECT_GE(len, nk / splits) << nk << " " << splits << " " << q;
        EXPECT_LE(len, (nk + splits - 1) / splits) << nk << " " << splits << " " << q;
      }
    }
  // On the H100's 132 SMs (tiles of 192 x 128, k-blocks of 32 of the 3k terms):
  auto plan = [](int m, int n, int k) {
    const myblas::Tf32x3Split q = myblas::tf32x3_splitk_choose(m, n, 3 * k, 132, myblas::Tf32x3Kernel::p64_ordered);
    return std::make_pair(q.splits, q.whole);
  };
  EXPECT_EQ(plan(1024, 1024, 1024), std::make_pair(2, 0));  // 48 tiles, all in 2: 96 units
  EXPECT_EQ(plan(2048, 2048, 2048), std::make_pair(3, 132));  // 176 tiles: 1 wave whole, 44 in 3
  EXPECT_EQ(plan(4096, 4096, 4096), std::make_pair(3, 660));  // 704 tiles: 5 waves whole, 44 in 3
  EXPECT_EQ(plan(8192, 8192, 8192).first, 1);  // 2752 tiles: a last wave of 112, none to gain
  EXPECT_EQ(plan(1024, 1024, 256).first, 1);   // 24 k-blocks: none to spare
  EXPECT_EQ(plan(0, 1024, 1024).first, 1);
  const auto p64 = myblas::Tf32x3Kernel::p64_ordered, pair = myblas::Tf32x3Kernel::p64_ordered_pair;
  EXPECT_EQ(myblas::tf32x3_splitk_work_floats(100, 30, 1, p64), 0u);
  EXPECT_EQ(myblas::tf32x3_splitk_work_floats(100, 30, 3, p64), 3u * 192 * 128);  // one tile's slot a slice
  EXPECT_EQ(myblas::tf32x3_splitk_work_floats(4096, 4096, myblas::Tf32x3Split(3, 660), p64), 3u * 44 * 192 * 128);
  // The paired variant: 22 x 16 scheduled pairs of tiles, two slots each.
  EXPECT_EQ(myblas::tf32x3_splitk_work_floats(4096, 4096, myblas::Tf32x3Split(3, 330), pair), 3u * 22 * 2 * 192 * 128);
  EXPECT_EQ(myblas::tf32x3_splitk_work_floats(100, 300, 2, pair), 2u * 2 * 2 * 192 * 128);  // 2 pairs of 2 slots, 2 slices
  EXPECT_EQ(myblas::tf32x3_fused_work_floats(100, 30, 1), 192u * 128);
}

// Every plan's work units cover each tile's k-blocks exactly once, in slices of at least 24
// k-blocks; divided tiles' slots are distinct and within the scratch the plan sizes; a plan with
// whole tiles divides only the last, partial wave, whose units fit one wave.
TEST(Tf32x3Schedule, SplitPlansCoverEveryTileOnce) {
  namespace sc = myblas::tf32x3_schedule;
  for (int sms : {1, 7, 132})
    for (int tiles : {1, 5, 48, 131, 132, 133, 528, 560, 704, 1000, 2752})
      for (int nk : {1, 23, 24, 96, 384}) {
        const sc::SplitPlan q = sc::split_plan(tiles, nk, sms);
        SCOPED_TRACE(std::to_string(sms) + " SMs, " + std::to_string(tiles) + " tiles, " + std::to_string(nk) +
                     " k-blocks: plan " + std::to_string(q.splits) + " after " + std::to_string(q.whole));
        ASSERT_GE(q.splits, 1);
        ASSERT_LE(q.splits, 4);
        ASSERT_GE(q.whole, 0);
        ASSERT_LE(q.whole, tiles);
        if (q.splits == 1) EXPECT_EQ(q.whole, tiles);
        if (q.splits > 1) EXPECT_GE(nk / q.splits, 24);
        if (q.splits > 1 && q.whole > 0) {  // only the last, partial wave divided, in one wave of units
          EXPECT_EQ(q.whole % sms, 0);
          EXPECT_LE((tiles - q.whole) * q.splits, sms);
        }
        if (tiles >= 4 * sms && q.splits > 1) EXPECT_GT(q.whole, 0);  // (every tile divided never wins there)
        const int units = sc::plan_units(tiles, q.whole, q.splits);
        std::vector<int> covered(size_t(tiles) * nk, 0), slot_used((tiles - q.whole) * q.splits, 0);
        for (int u = 0; u < units; ++u) {
          const sc::WorkUnit w = sc::work_unit(u, tiles, q.whole);
          ASSERT_GE(w.tile, 0);
          ASSERT_LT(w.tile, tiles);
          const bool whole = w.slot < 0;
          EXPECT_EQ(whole, w.tile < q.whole);
          const int kb0 = whole ? 0 : sc::slice_begin(nk, q.splits, w.slice);
          const int kb1 = whole ? nk : sc::slice_begin(nk, q.splits, w.slice + 1);
          for (int kb = kb0; kb < kb1; ++kb) ++covered[size_t(w.tile) * nk + kb];
          if (!whole) {
            ASSERT_LT(w.slot, int(slot_used.size()));
            ++slot_used[w.slot];
            EXPECT_EQ(w.slot, w.slice * (tiles - q.whole) + (w.tile - q.whole));  // (the last pass's rule)
          }
        }
        EXPECT_EQ(std::count(covered.begin(), covered.end(), 1), int64_t(covered.size()));
        EXPECT_EQ(std::count(slot_used.begin(), slot_used.end(), 1), int64_t(slot_used.size()));
      }
}

// The ordered variants' turns, run as the two consumers would: a named barrier completes when
// its waiter and the other consumer's signal are both in. The issues must alternate 0, 1, 0, 1,
// no consumer may block for good, and no signal may be left over at exit.
TEST(Tf32x3Schedule, OrderedTurnsAlternateAndBalance) {
  namespace sc = myblas::tf32x3_schedule;
  for (int total : {1, 2, 3, 10, 57}) {
    int pending[3] = {0, 0, 0};  // signals in on barrier 1 and 2 not yet met by a wait
    int next[2] = {0, 0};        // per consumer: the next chunk to issue
    bool started[2] = {false, false}, done[2] = {false, false};
    std::vector<int> order;
    for (int step = 0; step < 100000 && !(done[0] && done[1]); ++step) {
      bool moved = false;
      for (int c = 0; c < 2; ++c) {
        if (done[c]) continue;
        if (!started[c]) {
          if (sc::signals_before_first(c)) ++pending[sc::turn_barrier(1 - c)];
          started[c] = true;
          moved = true;
        } else if (next[c] < total) {
          int& mine = pending[sc::turn_barrier(c)];
          if (mine == 0) continue;  // waiting for its turn
          --mine;
          order.push_back(c);
          ++pending[sc::turn_barrier(1 - c)];
          ++next[c];
          moved = true;
        } else {
          if (sc::waits_after_last(c)) {
            int& mine = pending[sc::turn_barrier(c)];
            if (mine == 0) continue;
            --mine;
          }
          done[c] = true;
          moved = true;
        }
      }
      ASSERT_TRUE(moved) << "both consumers blocked at total " << total;
    }
    ASSERT_TRUE(done[0] && done[1]);
    ASSERT_EQ(int(order.size()), 2 * total);
    for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], int(i % 2)) << "issue " << i << " of " << total;
    EXPECT_EQ(pending[1], 0);
    EXPECT_EQ(pending[2], 0);
  }
}

// ---- the split kernel ----
// Both layouts: three parts along k, and two (big, then small) as p64-ordered-2part reads them.
TEST(Tf32x3Split, PartsAreTf32AndSumToTheValue) {
  REQUIRE_GPU();
  const uint64_t seed = mbtest::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // (Each layout twice: with odd sizes, and with rows and ld multiples of 4, where an operand with
  // k down its stored columns is split 4 values a thread.)
  for (int v = 0; v < 8; ++v) {
    const int layout = v % 4;
    const bool k_in_cols = layout % 2 == 0, two_parts = layout >= 2, runs4 = v >= 4;
    SCOPED_TRACE(std::string(two_parts ? "two parts" : "three parts") + (runs4 ? ", 16-byte runs" : ", odd sizes"));
    const int rows = runs4 ? 36 : 37, cols = 45, ld = runs4 ? 40 : 41;
    std::vector<float> src(size_t(ld) * cols, mbtest::kGuard);
    float max_abs = 0, min_abs = INFINITY;
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) {
        const float v = std::ldexp(mbtest::uniform(rng), int(rng() % 61) - 30);
        src[size_t(i) + size_t(j) * ld] = v;
        max_abs = std::max(max_abs, std::fabs(v));
        min_abs = std::min(min_abs, std::fabs(v));
      }
    const int k = k_in_cols ? cols : rows, mn = k_in_cols ? rows : cols;
    const auto kv = two_parts ? myblas::Tf32x3Kernel::p64_ordered_2part : myblas::Tf32x3Kernel::p64_ordered;
    const int64_t ldd = myblas::tf32x3_operand_ld(kv, k);
    const size_t out = size_t(myblas::tf32x3_operand_floats(kv, k, mn));
    std::vector<float> zeros(out + 64, 0.f), got(out + 64);
    DevBuf dsrc(src, 0), ddst(zeros, 0);
    myblas::Tf32x3Operand a;
    a.src = dsrc.ptr;
    a.ld = ld;
    a.rows = rows;
    a.cols = cols;
    a.k_in_cols = k_in_cols;
    a.small_part = k_in_cols ? 1 : 2;
    a.dst = ddst.ptr + 64;
    myblas::tf32x3_operand_layout(kv, k, mn, &a);
    myblas::Tf32x3Operand b = a;  // an empty second operand
    b.rows = 0;
    b.cols = 0;
    myblas::Tf32x3Stats* dstats = reinterpret_cast<myblas::Tf32x3Stats*>(ddst.ptr);
    ASSERT_EQ(cudaMemset(dstats, 0, sizeof *dstats), cudaSuccess);
    ASSERT_EQ(myblas::tf32x3_split(a, b, dstats, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ddst.download(&got);
    myblas::Tf32x3Stats st;
    std::memcpy(&st, got.data(), sizeof st);
    uint32_t want_max, want_min;
    std::memcpy(&want_max, &max_abs, 4);
    std::memcpy(&want_min, &min_abs, 4);
    EXPECT_EQ(st.max_abs_bits[0], want_max);
    EXPECT_EQ(~st.not_min_abs_bits[0], want_min);
    EXPECT_EQ(st.max_abs_bits[1], 0u);
    const float* d = got.data() + 64;
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) {
        const float x = src[size_t(i) + size_t(j) * ld];
        float part[3];
        const int kk = k_in_cols ? j : i, at = k_in_cols ? i : j;
        const size_t here = size_t(kk) + size_t(at) * size_t(ldd);
        float big, small;
        if (two_parts) {
          big = d[here];
          small = d[here + size_t(a.part_stride)];
        } else {
          for (int t = 0; t < 3; ++t) part[t] = d[size_t(t) * k + here];
          big = part[a.small_part == 0 ? 1 : 0];
          small = part[a.small_part];
          for (int t = 0; t < 3; ++t)
            if (t != a.small_part) ASSERT_EQ(part[t], big) << "big parts differ at " << i << "," << j;
        }
        uint32_t ub, us;
        std::memcpy(&ub, &big, 4);
        std::memcpy(&us, &small, 4);
        ASSERT_EQ(ub & 0x1fffu, 0u) << "big part not TF32 at " << i << "," << j;
        ASSERT_EQ(us & 0x1fffu, 0u) << "small part not TF32 at " << i << "," << j;
        ASSERT_LE(std::fabs(double(x) - big), std::ldexp(std::fabs(double(x)), -11)) << "big not nearest";
        ASSERT_LE(std::fabs(double(x) - big - small), std::ldexp(std::fabs(double(x)), -22)) << "x != big + small";
      }
  }
}

// ---- the product kernel's variants called directly on split operands ----
// C from a direct product (ldc = m + 3) against an FP64 reference within the proven bound, and
// its padding intact; `what` names the run in failure messages.
void expect_product(const std::string& what, int m, int n, int k, float alpha, float beta, const std::vector<float>& a,
                    const std::vector<float>& b, const std::vector<float>& c0, const std::vector<float>& got) {
  const int ldc = m + 3;
  double worst = 0;
  int wi = -1, wj = -1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double r = 0, sc = 0;
      for (int l = 0; l < k; ++l) {
        const double t = double(a[i + size_t(l) * m]) * b[l + size_t(j) * k];
        r += t;
        sc += std::fabs(t);
      }
      const double cold = beta == 0.f ? 0.0 : double(c0[i + size_t(j) * ldc]);
      const double want = alpha * r + beta * cold;
      const double bound = (proven_eps_factor(k) * FLT_EPSILON) * (std::fabs(alpha) * sc + std::fabs(beta * cold)) +
                           1e-30;
      const double e = std::fabs(double(got[i + size_t(j) * ldc]) - want) / bound;
      if (!(e <= worst)) {  // (NaN counts as the worst)
        worst = std::isnan(e) ? INFINITY : e;
        wi = i;
        wj = j;
      }
    }
  EXPECT_LE(worst, 1.0) << what << " " << m << "x" << n << "x" << k << " alpha "
                        << alpha << " beta " << beta << ": worst C(" << wi << "," << wj << ") error/bound " << worst;
  int damaged = 0;
  for (int j = 0; j < n; ++j)
    for (int i = m; i < ldc; ++i) damaged += got[i + size_t(j) * ldc] != c0[i + size_t(j) * ldc];
  EXPECT_EQ(damaged, 0) << what << ": C's padding was written";
}

// C := alpha op(A) op(B) + beta C through the split and tf32x3_wgmma_product with the given
// variant, against an FP64 reference within the proven bound; C's padding keeps its guards and
// beta == 0 ignores NaN in C. Returns C (without padding checks) for bitwise comparisons.
std::vector<float> product_case(myblas::Tf32x3Kernel kernel, int m, int n, int k, float alpha, float beta,
                                const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c0,
                                myblas::Tf32x3Split plan = {}) {
  const int ldc = m + 3;
  const int64_t fa = myblas::tf32x3_operand_floats(kernel, k, m), fb = myblas::tf32x3_operand_floats(kernel, k, n);
  std::vector<float> scratch(size_t(fa + fb) + 64, 0.f);
  DevBuf da(a, 0), db(b, 0), ds(scratch, 0);
  std::vector<float> cin = c0;
  if (beta == 0.f)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) cin[i + size_t(j) * ldc] = NAN;
  DevBuf dc(cin, 0);
  myblas::Tf32x3Operand oa, ob;
  oa.src = da.ptr; oa.ld = m; oa.rows = m; oa.cols = k; oa.k_in_cols = true; oa.small_part = 1;
  oa.dst = ds.ptr + 64;
  ob.src = db.ptr; ob.ld = k; ob.rows = k; ob.cols = n; ob.k_in_cols = false; ob.small_part = 2;
  ob.dst = ds.ptr + 64 + fa;
  myblas::tf32x3_operand_layout(kernel, k, m, &oa);
  myblas::tf32x3_operand_layout(kernel, k, n, &ob);
  auto* st = reinterpret_cast<myblas::Tf32x3Stats*>(ds.ptr);
  EXPECT_EQ(cudaMemset(st, 0, sizeof *st), cudaSuccess);
  EXPECT_EQ(myblas::tf32x3_split(oa, ob, st, nullptr), cudaSuccess);
  const size_t work = myblas::tf32x3_splitk_work_floats(m, n, plan, kernel);
  std::vector<float> work_init(work + 4, NAN);  // (fully overwritten)
  DevBuf dw(work_init, 0);
  EXPECT_EQ(myblas::tf32x3_wgmma_product(m, n, 3 * k, alpha, oa.dst, ob.dst, oa.ldd, beta, dc.ptr, ldc, nullptr, kernel,
                                         plan, work ? dw.ptr : nullptr),
            cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> got(cin.size());
  dc.download(&got);
  expect_product(std::string(myblas::tf32x3_kernel_name(kernel)) + " split-K " + std::to_string(plan.splits) +
                     " after " + std::to_string(plan.whole) + " whole tiles",
                 m, n, k, alpha, beta, a, b, c0, got);
  return got;
}

// The operands of a direct product (A m x k and B k x n, column-major) stored as a call with
// transposes ta and tb passes them, leading dimension the stored rows rounded up to a multiple of
// 4, plus 4; NaN in the padding (read by mistake it would reach C or the statistics).
std::vector<float> stored_as(char t, int rows, int cols, const std::vector<float>& x, int* ld) {
  const int sr = t == 'N' ? rows : cols, sc = t == 'N' ? cols : rows;
  *ld = (sr + 3) / 4 * 4 + 4;
  std::vector<float> out(size_t(*ld) * sc, NAN);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) {
      const float v = x[i + size_t(j) * rows];
      if (t == 'N')
        out[i + size_t(j) * *ld] = v;
      else
        out[j + size_t(i) * *ld] = v;
    }
  return out;
}

// A fused variant on the operands as stored (ta, tb), as product_case; its statistics must accept
// the data.
std::vector<float> fused_case(myblas::Tf32x3Kernel kernel, char ta, char tb, int m, int n, int k, float alpha, float beta,
                              const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c0,
                              int splits) {
  const int ldc = m + 3;
  int lda = 0, ldb = 0;
  const std::vector<float> sa = stored_as(ta, m, k, a, &lda), sb = stored_as(tb == 'N' ? 'N' : 'T', k, n, b, &ldb);
  DevBuf da(sa, 0), db(sb, 0), ds(std::vector<float>(64, 0.f), 0);
  std::vector<float> cin = c0;
  if (beta == 0.f)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) cin[i + size_t(j) * ldc] = NAN;
  DevBuf dc(cin, 0), dw(std::vector<float>(myblas::tf32x3_fused_work_floats(m, n, splits), NAN), 0);  // (overwritten)
  auto* st = reinterpret_cast<myblas::Tf32x3Stats*>(ds.ptr);
  EXPECT_EQ(myblas::tf32x3_fused_product(m, n, k, alpha, da.ptr, lda, ta == 'N', db.ptr, ldb, tb == 'T', beta, dc.ptr,
                                         ldc, nullptr, splits, dw.ptr, st, kernel),
            cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> got(cin.size()), stats(64);
  dc.download(&got);
  ds.download(&stats);
  myblas::Tf32x3Stats hs;
  std::memcpy(&hs, stats.data(), sizeof hs);
  const std::string what = std::string(myblas::tf32x3_kernel_name(kernel)) + " " + ta + tb + " split-K " +
                           std::to_string(splits);
  const char* no = myblas::tf32x3_refuse(hs, k);
  EXPECT_EQ(no, nullptr) << what << ": the gathered statistics refuse uniform data (" << (no ? no : "") << ")";
  expect_product(what, m, n, k, alpha, beta, a, b, c0, got);
  return got;
}

// Operands of the direct product tests: A m x k, B k x n, C m x n in a column stride of m + 3
// (guards in the padding).
struct ProductData {
  int m, n, k;
  float alpha, beta;
  std::vector<float> a, b, c0;
};
std::vector<ProductData> product_data() {
  const uint64_t seed = mbtest::test_seed();
  std::mt19937_64 rng(seed);
  // (1 x 1 x 1: one k-block; 300 x 257 x 70: edge tiles and 7 k-blocks, an odd count that leaves
  // the 64-term variants a short last chunk; 1500 x 2200 x 43: 144 tiles, so blocks of the
  // persistent grid walk two tiles and the ordered turns run across tiles.)
  const int shapes[][3] = {{1, 1, 1}, {300, 257, 70}, {1500, 2200, 43}, {129, 200, 1031}};
  const float ab[][2] = {{1.f, 0.f}, {-1.f, 0.5f}, {0.5f, 1.f}, {1.f, -1.f}};
  std::vector<ProductData> out;
  int which = 0;
  for (const auto& sh : shapes) {
    ProductData d{sh[0], sh[1], sh[2], ab[which % 4][0], ab[which % 4][1], {}, {}, {}};
    ++which;
    const int ldc = d.m + 3;
    d.a.resize(size_t(d.m) * d.k);
    d.b.resize(size_t(d.k) * d.n);
    d.c0.assign(size_t(ldc) * d.n, mbtest::kGuard);
    for (float& v : d.a) v = mbtest::uniform(rng);
    for (float& v : d.b) v = mbtest::uniform(rng);
    for (int j = 0; j < d.n; ++j)
      for (int i = 0; i < d.m; ++i) d.c0[i + size_t(j) * ldc] = mbtest::uniform(rng);
    out.push_back(std::move(d));
  }
  return out;
}

// The product tests' start: a GPU, one the wgmma product runs on (else a visible skip that says why not).
#define REQUIRE_PRODUCT()                                                            \
  do {                                                                               \
    REQUIRE_GPU();                                                                   \
    if (const char* no_ = myblas::tf32x3_wgmma_can_implement(4)) GTEST_SKIP() << no_; \
  } while (0)

// One variant per test (the GPU script runs each alone, under a time limit, before measuring it).
class Tf32x3ProductVariant : public ::testing::TestWithParam<int> {};

TEST_P(Tf32x3ProductVariant, WithinTheProvenBound) {
  REQUIRE_PRODUCT();
  SCOPED_TRACE("seed " + std::to_string(mbtest::test_seed()));
  if (myblas::tf32x3_kernel_fused(myblas::Tf32x3Kernel(GetParam()))) {
    // Every transpose, each with and without split-K (3 slices, or as many as there are k-blocks),
    // with the shape's beta and with beta == 0 (where, without split-K, the product writes C
    // itself); the variant that loads ahead does p64-ordered-fused's arithmetic: its bits.
    const auto kv = myblas::Tf32x3Kernel(GetParam());
    for (const ProductData& d : product_data())
      for (const char* t : {"NN", "TN", "NT", "TT"})
        for (int splits : {1, std::min(3, (d.k + 31) / 32)})
          for (float beta : {d.beta, 0.f}) {
            const std::vector<float> got = fused_case(kv, t[0], t[1], d.m, d.n, d.k, d.alpha, beta, d.a, d.b, d.c0, splits);
            if (kv != myblas::Tf32x3Kernel::p64_ordered_fused)
              EXPECT_EQ(got, fused_case(myblas::Tf32x3Kernel::p64_ordered_fused, t[0], t[1], d.m, d.n, d.k, d.alpha,
                                        beta, d.a, d.b, d.c0, splits))
                  << t << " " << d.m << "x" << d.n << "x" << d.k << " split-K " << splits << " beta " << beta
                  << ": not p64-ordered-fused's bits";
          }
    return;
  }
  for (const ProductData& d : product_data()) {
    product_case(myblas::Tf32x3Kernel(GetParam()), d.m, d.n, d.k, d.alpha, d.beta, d.a, d.b, d.c0);
    // Split-K: 3 slices (as many as there are k-blocks where fewer), unequal ones at 43 and 70;
    // every tile divided, and only the tiles after the first 2 (on 1500 x 2200: the last 142 of
    // 144, in the persistent order's groups; the others: all but the first 2 or none).
    const int nk = (3 * d.k + 31) / 32;
    const int wide = myblas::Tf32x3Kernel(GetParam()) == myblas::Tf32x3Kernel::p64_ordered_pair ? 2 : 1;
    const int tiles = ((d.m + 191) / 192) * (((d.n + 127) / 128 + wide - 1) / wide);  // (scheduled: pairs)
    if (nk > 1) {
      product_case(myblas::Tf32x3Kernel(GetParam()), d.m, d.n, d.k, d.alpha, d.beta, d.a, d.b, d.c0, std::min(3, nk));
      product_case(myblas::Tf32x3Kernel(GetParam()), d.m, d.n, d.k, d.alpha, d.beta, d.a, d.b, d.c0,
                   myblas::Tf32x3Split(std::min(3, nk), std::min(2, tiles)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, Tf32x3ProductVariant, ::testing::Range(0, myblas::kTf32x3Kernels),
                         [](const ::testing::TestParamInfo<int>& info) {
                           std::string name = myblas::tf32x3_kernel_name(myblas::Tf32x3Kernel(info.param));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The ordered p32 issues the same wgmmas and adds as p32: the same bits. The halves split each
// n192 wgmma into two n96 ones, the same arithmetic per element: reported, not required.
TEST(Tf32x3Product, OrderedP32GivesP32Bitwise) {
  REQUIRE_PRODUCT();
  SCOPED_TRACE("seed " + std::to_string(mbtest::test_seed()));
  using myblas::Tf32x3Kernel;
  for (const ProductData& d : product_data()) {
    auto run = [&](Tf32x3Kernel v) { return product_case(v, d.m, d.n, d.k, d.alpha, d.beta, d.a, d.b, d.c0); };
    const std::vector<float> p32 = run(Tf32x3Kernel::p32), p64 = run(Tf32x3Kernel::p64);
    EXPECT_EQ(run(Tf32x3Kernel::p32_ordered), p32) << d.m << "x" << d.n << "x" << d.k;
    const bool h32 = run(Tf32x3Kernel::p32_halves) == p32, o64 = run(Tf32x3Kernel::p64_ordered) == p64,
               h64 = run(Tf32x3Kernel::p64_halves) == p64;
    std::printf("  %dx%dx%d bitwise: p32-halves %s p32, p64-ordered %s p64, p64-halves %s p64\n", d.m, d.n, d.k,
                h32 ? "==" : "!=", o64 ? "==" : "!=", h64 ? "==" : "!=");
  }
}

// The paired variant computes each tile as p64-ordered does (the same loads, multicast or not,
// the same wgmmas and promotions): its bits, without split-K and with every tile in 3 slices.
TEST(Tf32x3Product, PairGivesP64OrderedBitwise) {
  REQUIRE_PRODUCT();
  SCOPED_TRACE("seed " + std::to_string(mbtest::test_seed()));
  using myblas::Tf32x3Kernel;
  for (const ProductData& d : product_data())
    for (int splits : {1, std::min(3, (3 * d.k + 31) / 32)})
      EXPECT_EQ(product_case(Tf32x3Kernel::p64_ordered_pair, d.m, d.n, d.k, d.alpha, d.beta, d.a, d.b, d.c0, splits),
                product_case(Tf32x3Kernel::p64_ordered, d.m, d.n, d.k, d.alpha, d.beta, d.a, d.b, d.c0, splits))
          << d.m << "x" << d.n << "x" << d.k << " split-K " << splits;
}

// The two-part layout holds the same values at the same k-blocks as the three-part one where k is
// a multiple of 32 (no part's last k-block is padded): p64-ordered-2part then gives p64-ordered's
// bits, with split-K too. Elsewhere its padded k-blocks change where chunks end: the proven bound
// only (the variant's own test).
TEST(Tf32x3Product, TwoPartsGiveP64OrderedBitwiseWhereKIsWhole) {
  REQUIRE_PRODUCT();
  const uint64_t seed = mbtest::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  using myblas::Tf32x3Kernel;
  // (96: 9 k-blocks, a short last chunk and parts that end mid-chunk; 1500 x 700: blocks walk two
  // tiles; 1024: 96 k-blocks.)
  const int shapes[][3] = {{300, 257, 96}, {1500, 700, 64}, {129, 200, 1024}};
  for (const auto& sh : shapes) {
    const int m = sh[0], n = sh[1], k = sh[2], ldc = m + 3;
    std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c0(size_t(ldc) * n, mbtest::kGuard);
    for (float& v : a) v = mbtest::uniform(rng);
    for (float& v : b) v = mbtest::uniform(rng);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) c0[i + size_t(j) * ldc] = mbtest::uniform(rng);
    for (int splits : {1, 3}) {
      const std::vector<float> want = product_case(Tf32x3Kernel::p64_ordered, m, n, k, 0.5f, -1.f, a, b, c0, splits);
      EXPECT_EQ(product_case(Tf32x3Kernel::p64_ordered_2part, m, n, k, 0.5f, -1.f, a, b, c0, splits), want)
          << m << "x" << n << "x" << k << " split-K " << splits;
    }
  }
}

// With the statistics passed to the product (queued before the host has read them), a refused
// call writes nothing, split-K's last pass included; an accepted one computes as without them.
TEST(Tf32x3Product, DeviceStatisticsRefusalLeavesCUntouched) {
  REQUIRE_PRODUCT();
  const uint64_t seed = mbtest::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int m = 200, n = 150, k = 300, ldc = m;
  const int64_t ld3 = myblas::tf32x3_ld(k);
  std::vector<float> a3(size_t(ld3) * m), b3(size_t(ld3) * n), c0(size_t(ldc) * n);
  for (float& v : a3) v = mbtest::uniform(rng);
  for (float& v : b3) v = mbtest::uniform(rng);
  for (float& v : c0) v = mbtest::uniform(rng);
  DevBuf da(a3, 0), db(b3, 0), dw(std::vector<float>(myblas::tf32x3_splitk_work_floats(m, n, 4, myblas::Tf32x3Kernel::p32), 0.f), 0);
  const myblas::Tf32x3Stats refused = stats_of(INFINITY, 1.f, 1.f, 1.f), taken = stats_of(1.f, 1e-7f, 1.f, 1e-7f);
  ASSERT_NE(myblas::tf32x3_refuse(refused, k), nullptr);
  ASSERT_EQ(myblas::tf32x3_refuse(taken, k), nullptr);
  std::vector<float> stats_host(64, 0.f);
  std::memcpy(stats_host.data(), &refused, sizeof refused);
  std::memcpy(stats_host.data() + 16, &taken, sizeof taken);
  DevBuf ds(stats_host, 0);
  const auto* d_refused = reinterpret_cast<const myblas::Tf32x3Stats*>(ds.ptr);
  const auto* d_taken = reinterpret_cast<const myblas::Tf32x3Stats*>(ds.ptr + 16);
  // (Without split-K, every tile in 3 slices, and the first of the 4 tiles whole, the rest in 3.)
  for (const myblas::Tf32x3Split plan : {myblas::Tf32x3Split(1), myblas::Tf32x3Split(3), myblas::Tf32x3Split(3, 1)}) {
    SCOPED_TRACE("split-K " + std::to_string(plan.splits) + " after " + std::to_string(plan.whole));
    std::vector<float> want(c0.size()), got(c0.size());
    // The product on a fresh copy of c0 with `stats` (nullptr: none); C as it comes back in *out.
    auto run = [&](const myblas::Tf32x3Stats* stats, std::vector<float>* out) {
      DevBuf dc(c0, 0);
      cudaError_t e = myblas::tf32x3_wgmma_product(m, n, 3 * k, 0.5f, da.ptr, db.ptr, ld3, -1.f, dc.ptr, ldc, nullptr,
                                                   myblas::Tf32x3Kernel::p32, plan, dw.ptr, stats);
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      if (e == cudaSuccess) dc.download(out);
      return e;
    };
    ASSERT_EQ(run(nullptr, &want), cudaSuccess) << "without statistics: the reference result";
    ASSERT_EQ(run(d_refused, &got), cudaSuccess);
    EXPECT_EQ(std::memcmp(got.data(), c0.data(), c0.size() * 4), 0) << "a refused product wrote C";
    ASSERT_EQ(run(d_taken, &got), cudaSuccess);
    EXPECT_EQ(got, want) << "an accepted product differs from one without statistics";
  }
}

// The fused variant's statistics are the split pass's (every element seen once or more, none
// outside the operands: NaN lies in their padding), and values the split cannot represent make
// its last pass leave C untouched, split-K or not.
class Tf32x3FusedVariant : public ::testing::TestWithParam<myblas::Tf32x3Kernel> {};

TEST_P(Tf32x3FusedVariant, StatisticsAsTheSplitsAndRefusalLeavesCUntouched) {
  REQUIRE_PRODUCT();
  const uint64_t seed = mbtest::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int m = 300, n = 257, k = 70, ldc = m + 3;
  struct Special {
    const char* name;
    float va, vb;  // placed at A(m - 1, k - 1) and B(k - 2, n - 1) where nonzero
    bool refused;
  } specials[] = {{"ordinary", 0, 0, false},         {"Inf in A", INFINITY, 0, true},
                  {"NaN in B", 0, NAN, true},         {"1e-35 in A", 1e-35f, 0, true},
                  {"1e30 in A and B", 1e30f, 1e30f, true}, {"3e-9 and 7e5", 3e-9f, 7e5f, false}};
  for (const char* t : {"NN", "TT"})
    for (const Special& sp : specials) {
      SCOPED_TRACE(std::string(t) + " " + sp.name);
      std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c0(size_t(ldc) * n, mbtest::kGuard);
      for (float& v : a) v = mbtest::uniform(rng);
      for (float& v : b) v = mbtest::uniform(rng);
      for (float& v : c0) v = mbtest::uniform(rng);
      // (in the last, partial tiles and k-block, where the copy engine's edges are)
      if (sp.va != 0) a[(m - 1) + size_t(k - 1) * m] = sp.va;
      if (sp.vb != 0) b[(k - 2) + size_t(n - 1) * k] = sp.vb;
      int lda = 0, ldb = 0;
      const std::vector<float> sa = stored_as(t[0], m, k, a, &lda), sb = stored_as(t[1], k, n, b, &ldb);
      // The split pass's statistics of the same operands.
      std::vector<float> scratch(size_t(myblas::tf32x3_ld(k)) * (m + n) + 64, 0.f);
      DevBuf da(sa, 0), db(sb, 0), ds(scratch, 0);
      myblas::Tf32x3Operand oa, ob;
      oa.src = da.ptr; oa.ld = lda; oa.rows = t[0] == 'N' ? m : k; oa.cols = t[0] == 'N' ? k : m;
      oa.k_in_cols = t[0] == 'N'; oa.small_part = 1; oa.dst = ds.ptr + 64;
      ob.src = db.ptr; ob.ld = ldb; ob.rows = t[1] == 'N' ? k : n; ob.cols = t[1] == 'N' ? n : k;
      ob.k_in_cols = t[1] == 'T'; ob.small_part = 2; ob.dst = ds.ptr + 64 + myblas::tf32x3_ld(k) * m;
      myblas::tf32x3_operand_layout(myblas::Tf32x3Kernel::p64_ordered, k, m, &oa);
      myblas::tf32x3_operand_layout(myblas::Tf32x3Kernel::p64_ordered, k, n, &ob);
      auto* split_st = reinterpret_cast<myblas::Tf32x3Stats*>(ds.ptr);
      auto* fused_st = reinterpret_cast<myblas::Tf32x3Stats*>(ds.ptr + 16);
      ASSERT_EQ(myblas::tf32x3_split(oa, ob, split_st, nullptr), cudaSuccess);
      for (int splits : {1, 3}) {
        DevBuf dc(c0, 0), dw(std::vector<float>(myblas::tf32x3_fused_work_floats(m, n, splits), NAN), 0);
        ASSERT_EQ(cudaMemset(fused_st, 0, sizeof *fused_st), cudaSuccess);
        ASSERT_EQ(myblas::tf32x3_fused_product(m, n, k, 0.5f, da.ptr, lda, t[0] == 'N', db.ptr, ldb, t[1] == 'T', -1.f,
                                               dc.ptr, ldc, nullptr, splits, dw.ptr, fused_st, GetParam()),
                  cudaSuccess);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        std::vector<float> got(c0.size()), st(64);
        dc.download(&got);
        ds.download(&st);
        myblas::Tf32x3Stats s_split, s_fused;
        std::memcpy(&s_split, st.data(), sizeof s_split);
        std::memcpy(&s_fused, st.data() + 16, sizeof s_fused);
        for (int w = 0; w < 2; ++w) {
          EXPECT_EQ(s_fused.max_abs_bits[w], s_split.max_abs_bits[w]) << "largest |x| of " << "AB"[w];
          EXPECT_EQ(s_fused.not_min_abs_bits[w], s_split.not_min_abs_bits[w]) << "smallest |x| of " << "AB"[w];
        }
        const bool refused = myblas::tf32x3_refuse(s_fused, k) != nullptr;
        EXPECT_EQ(refused, sp.refused);
        if (refused)
          EXPECT_EQ(std::memcmp(got.data(), c0.data(), c0.size() * 4), 0) << "a refused product wrote C";
        else
          expect_product(std::string(myblas::tf32x3_kernel_name(GetParam())) + " " + t + " split-K " +
                             std::to_string(splits),
                         m, n, k, 0.5f, -1.f, a, b, c0, got);
      }
    }
}

INSTANTIATE_TEST_SUITE_P(FusedVariants, Tf32x3FusedVariant,
                         ::testing::Values(myblas::Tf32x3Kernel::p64_ordered_fused,
                                           myblas::Tf32x3Kernel::p64_ordered_fused_ahead),
                         [](const ::testing::TestParamInfo<myblas::Tf32x3Kernel>& info) {
                           std::string name = myblas::tf32x3_kernel_name(info.param);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// ---- the mode through cblas_sgemm ----
struct ModeScope {  // sets the precision mode for one test, restores fp32 after
  explicit ModeScope(int mode) { EXPECT_EQ(myblas_set_sgemm_precision(mode), 0); }
  ~ModeScope() { myblas_set_sgemm_precision(MYBLAS_SGEMM_FP32); }
};

void call(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float beta, float* c, int ldc) {
  cblas_sgemm(CblasColMajor, ta == 'N' ? CblasNoTrans : CblasTrans, tb == 'N' ? CblasNoTrans : CblasTrans, m, n, k,
              alpha, a, lda, b, ldb, beta, c, ldc);
}

struct Case {
  char ta, tb;
  int m, n, k, pad;
  float alpha, beta;
  bool ld4 = false;  // lda and ldb rounded up to multiples of 4 (the operands p64-ordered-fused reads as stored)
};

// One case on device pointers (host arrays when `host`): the mode forced on every shape against
// OpenBLAS within the proven bound plus OpenBLAS's own; guards intact; the FP32 path (mode off)
// differs somewhere for k >= 64 (the mode ran).
void run_mode_case(const Case& c, bool host) {
  const uint64_t seed = mbtest::test_seed();
  std::string what = std::string(1, c.ta) + c.tb + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
                     std::to_string(c.k) + " pad " + std::to_string(c.pad) + " alpha " + std::to_string(c.alpha) +
                     " beta " + std::to_string(c.beta) + (c.ld4 ? " lda, ldb multiples of 4" : "") +
                     (host ? " host" : " device") + " seed " +
                     std::to_string(seed);
  SCOPED_TRACE(what);
  std::mt19937_64 rng(seed ^ (uint64_t(c.m) * 7919u + uint64_t(c.n) * 31u + uint64_t(c.k) * 3u + c.ta + 5u * c.tb));
  const int ar = c.ta == 'N' ? c.m : c.k, ac = c.ta == 'N' ? c.k : c.m;
  const int br = c.tb == 'N' ? c.k : c.n, bc = c.tb == 'N' ? c.n : c.k;
  const int round = c.ld4 ? 4 : 1;
  const int lda = (ar + c.pad + round - 1) / round * round, ldb = (br + c.pad + round - 1) / round * round,
            ldc = c.m + c.pad;
  mbtest::Matrix a(ar, ac, lda, rng), b(br, bc, ldb, rng), cm(c.m, c.n, ldc, rng);
  const mbtest::Matrix c0 = cm;
  if (c.beta == 0.f) cm.fill_nan();
  mbtest::Matrix want = c0;
  mbtest::ref_sgemm(c.ta, c.tb, c.m, c.n, c.k, c.alpha, a.data(), lda, b.data(), ldb, c.beta, want.data(), ldc);

  auto run = [&](int mode) {
    ModeScope scope(mode);
    mbtest::Matrix got = cm;
    if (host) {
      call(c.ta, c.tb, c.m, c.n, c.k, c.alpha, a.data(), lda, b.data(), ldb, c.beta, got.data(), ldc);
    } else {
      DevBuf da(a.buf, 0), db(b.buf, 0), dc(cm.buf, 0);
      call(c.ta, c.tb, c.m, c.n, c.k, c.alpha, da.ptr + mbtest::Matrix::kPad, lda, db.ptr + mbtest::Matrix::kPad, ldb,
           c.beta, dc.ptr + mbtest::Matrix::kPad, ldc);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      dc.download(&got.buf);
    }
    if (mode != MYBLAS_SGEMM_FP32) EXPECT_STREQ(myblas_last_path(), "cublas");  // (the mode's path)
    return got;
  };
  const mbtest::Matrix got = run(MYBLAS_SGEMM_TF32X3_ALL);
  const std::vector<double> scale = mbtest::gemm_scale(c.ta, c.tb, c.m, c.n, c.k, c.alpha, a.data(), lda, b.data(),
                                                       ldb, c.beta, c0.data(), ldc);
  const double factor = (proven_eps_factor(c.k) + (c.k + 2) * 0.5) * FLT_EPSILON;
  const mbtest::Worst w = mbtest::compare(got.data(), ldc, want.data(), ldc, scale, c.m, c.n, factor);
  EXPECT_LE(w.ratio, 1.0) << "worst C(" << w.i << "," << w.j << ") got " << w.got << " want " << w.want
                          << " (error/bound " << w.ratio << ")";
  EXPECT_EQ(got.damaged_guards(), 0) << "C's guards or padding were written";
  if (c.k >= 64 && c.alpha != 0.f) {
    const mbtest::Matrix fp32 = run(MYBLAS_SGEMM_FP32);
    EXPECT_NE(std::memcmp(got.buf.data(), fp32.buf.data(), got.buf.size() * 4), 0)
        << "the mode gave the FP32 path's result bitwise: did it run?";
  }
}

TEST(SgemmTf32x3Mode, DevicePointersEveryTransposeAndOddSize) {
  REQUIRE_GPU();
  if (!myblas_gpu_available()) GTEST_SKIP() << "libmyblas finds no usable GPU";
  // (300 x 257: edge tiles of the 192 x 128 wgmma tiles on both sides; 1500 x 2200: 144 tiles, more
  // than the 132 blocks of the H100's persistent grid, so blocks walk several tiles.)
  const int sizes[][3] = {{1, 1, 1}, {3, 17, 5}, {17, 3, 127}, {127, 129, 65}, {300, 257, 1031}, {1500, 2200, 70}};
  const float ab[][2] = {{1.f, 0.f}, {-1.f, 1.f}, {0.5f, -1.f}, {1.f, 0.5f}};
  int i = 0;
  for (bool ld4 : {false, true})  // (ld4: the operands as p64-ordered-fused reads them, when it is the variant)
    for (const char* t : {"NN", "NT", "TN", "TT"})
      for (const auto& s : sizes) {
        const auto& sc = ab[i++ % 4];
        run_mode_case({t[0], t[1], s[0], s[1], s[2], (i % 3) * 5, sc[0], sc[1], ld4}, false);
      }
}

// Host arrays go through the pipeline only when the backend sends them to the GPU: this test
// runs under MYBLAS_BACKEND=cublas (its own ctest entry) and skips otherwise.
TEST(SgemmTf32x3Mode, HostArraysThroughThePipeline) {
  REQUIRE_GPU();
  const char* be = std::getenv("MYBLAS_BACKEND");
  if (!be || std::string(be) != "cublas") GTEST_SKIP() << "needs MYBLAS_BACKEND=cublas (host arrays to the GPU)";
  if (!myblas_gpu_available()) GTEST_SKIP() << "libmyblas finds no usable GPU";
  run_mode_case({'N', 'N', 129, 300, 257, 3, 1.f, 0.f}, true);
  run_mode_case({'T', 'N', 250, 77, 1030, 0, -1.f, 0.5f}, true);
  run_mode_case({'N', 'T', 64, 513, 96, 5, 0.5f, 1.f}, true);
  run_mode_case({'T', 'T', 1100, 1030, 1200, 1, 1.f, -1.f}, true);
}

// Values the split cannot represent exactly: the call must give the FP32 path's result bitwise.
TEST(SgemmTf32x3Mode, SpecialValuesGiveTheFp32ResultBitwise) {
  REQUIRE_GPU();
  if (!myblas_gpu_available()) GTEST_SKIP() << "libmyblas finds no usable GPU";
  const uint64_t seed = mbtest::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // A shape whose FP32 path in auto mode is cuBLAS (an exact row of the measured table), as the
  // mode's fallback is.
  const int m = 127, n = 129, k = 1031;
  struct Special {
    const char* name;
    float va, vb;
  } specials[] = {{"Inf in A", INFINITY, 0}, {"-Inf in B", 0, -INFINITY}, {"NaN in A", NAN, 0},
                  {"1e-35 in A", 1e-35f, 0}, {"1e-21 in A and B", 1e-21f, 1e-21f}, {"1e30 in A and B", 1e30f, 1e30f},
                  {"3.4e38 in B", 0, 3.4e38f}};
  // (lda 128 and ldb 1032: operands the fused variants read as stored, when one is the variant;
  // with beta == 0 a fused product writes C before the statistics are known, and a refused call's
  // FP32 path must overwrite all of it.)
  const int lds[][2] = {{m, k}, {128, 1032}};
  for (const auto& ld : lds)
    for (const Special& sp : specials)
      for (float beta : {0.5f, 0.f}) {
        SCOPED_TRACE(std::string(sp.name) + " lda " + std::to_string(ld[0]) + " beta " + std::to_string(beta));
        mbtest::Matrix a(m, k, ld[0], rng), b(k, n, ld[1], rng), c(m, n, m, rng);
        if (sp.va != 0) a.at(3, 11) = sp.va;
        if (sp.vb != 0) b.at(11, 5) = sp.vb;
        DevBuf da(a.buf, 0), db(b.buf, 0);
        std::vector<float> out[2];
        for (int mode : {MYBLAS_SGEMM_FP32, MYBLAS_SGEMM_TF32X3_ALL}) {
          ModeScope scope(mode);
          DevBuf dc(c.buf, 0);
          call('N', 'N', m, n, k, 1.f, da.ptr + mbtest::Matrix::kPad, ld[0], db.ptr + mbtest::Matrix::kPad, ld[1],
               beta, dc.ptr + mbtest::Matrix::kPad, m);
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          out[mode == MYBLAS_SGEMM_FP32 ? 0 : 1].resize(c.buf.size());
          dc.download(&out[mode == MYBLAS_SGEMM_FP32 ? 0 : 1]);
        }
        EXPECT_EQ(std::memcmp(out[0].data(), out[1].data(), out[0].size() * 4), 0) << "differs from the FP32 path";
      }
}

// The accuracy contract, against an FP64 reference on three kinds of data, per element
// e = |C - C_fp64| / (|A||B|): the median at most twice the FP32 path's on the same data, and the
// largest within the proven bound. The largest error is also held to kMaxFactor times the FP32
// path's: on a sample this small (30k elements) the largest error of either moves by a factor of
// 2-3 between seeds and with the FP32 path's own algorithm (cuBLAS picks split-K for some shapes),
// so the contract's 2x on the largest error is measured by bench_sgemm_tf32x3 over 10^6-10^7
// elements instead (bench/results/h100-sgemm-tf32x3-*).
constexpr double kMaxFactor = 6.0;

TEST(SgemmTf32x3Mode, AccuracyMedianWithinTwiceFp32AndTheProvenBound) {
  REQUIRE_GPU();
  if (!myblas_gpu_available()) GTEST_SKIP() << "libmyblas finds no usable GPU";
  const uint64_t seed = mbtest::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int m = 192, n = 160, k = 2048;
  for (int kind = 0; kind < 3; ++kind) {
    SCOPED_TRACE(kind == 0 ? "uniform [-1, 1]" : kind == 1 ? "exponents spread 2^-20..2^20" : "heavy cancellation");
    std::vector<float> a(size_t(m) * k), b(size_t(k) * n);
    std::vector<int> ra(m), ca(k), rb(k), cb(n);
    for (auto* v : {&ra, &ca, &rb, &cb})
      for (int& e : *v) e = kind == 1 ? int(rng() % 21) - 10 : 0;
    for (int l = 0; l < k; ++l) {
      const bool second = kind == 2 && l >= k / 2;
      for (int i = 0; i < m; ++i)
        a[i + size_t(l) * m] = second ? a[i + size_t(l - k / 2) * m] * (1.f + std::ldexp(mbtest::uniform(rng), -10))
                                      : std::ldexp(mbtest::uniform(rng), ra[i] + ca[l]);
      for (int j = 0; j < n; ++j)
        b[l + size_t(j) * k] = second ? -b[l - k / 2 + size_t(j) * k] * (1.f + std::ldexp(mbtest::uniform(rng), -10))
                                      : std::ldexp(mbtest::uniform(rng), rb[l] + cb[j]);
    }
    std::vector<double> ref(size_t(m) * n, 0), scale(size_t(m) * n, 0);
    for (int j = 0; j < n; ++j)
      for (int l = 0; l < k; ++l) {
        const double blj = b[l + size_t(j) * k];
        for (int i = 0; i < m; ++i) {
          ref[i + size_t(j) * m] += double(a[i + size_t(l) * m]) * blj;
          scale[i + size_t(j) * m] += std::fabs(double(a[i + size_t(l) * m]) * blj);
        }
      }
    std::vector<float> cnan(size_t(m) * n, NAN);
    DevBuf da(a, 0), db(b, 0);
    double max_e[2], med_e[2];
    for (int mode : {MYBLAS_SGEMM_FP32, MYBLAS_SGEMM_TF32X3_ALL}) {
      ModeScope scope(mode);
      DevBuf dc(cnan, 0);
      call('N', 'N', m, n, k, 1.f, da.ptr, m, db.ptr, k, 0.f, dc.ptr, m);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<float> got(cnan.size());
      dc.download(&got);
      std::vector<double> e(got.size());
      for (size_t t = 0; t < got.size(); ++t) e[t] = std::fabs(double(got[t]) - ref[t]) / scale[t];
      const int w = mode == MYBLAS_SGEMM_FP32 ? 0 : 1;
      max_e[w] = *std::max_element(e.begin(), e.end());  // (NaN compares false: checked below)
      for (double v : e) ASSERT_FALSE(std::isnan(v)) << "NaN in the result";
      std::nth_element(e.begin(), e.begin() + e.size() / 2, e.end());
      med_e[w] = e[e.size() / 2];
    }
    std::printf("  %-28s max %.3e (FP32 %.3e, %.2fx), median %.3e (FP32 %.3e, %.2fx)\n",
                kind == 0 ? "uniform" : kind == 1 ? "spread" : "cancel", max_e[1], max_e[0], max_e[1] / max_e[0],
                med_e[1], med_e[0], med_e[1] / med_e[0]);
    EXPECT_LE(med_e[1], 2 * med_e[0]) << "median error " << med_e[1] << " against FP32's " << med_e[0];
    EXPECT_LE(max_e[1], kMaxFactor * max_e[0]) << "largest error " << max_e[1] << " against FP32's " << max_e[0];
    EXPECT_LE(max_e[1], proven_eps_factor(k) * FLT_EPSILON) << "over the proven bound";
  }
}

}  // namespace
