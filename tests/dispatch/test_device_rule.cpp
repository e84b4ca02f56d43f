// The device-operand rule (src/dispatch/device_rule.h): a kernel of ours is taken at a row of the
// table, or between rows only where rows of that kernel bracket the shape on every side by the
// margin with nothing else inside the bracket; everything else is cuBLAS. Hand-made tables for
// each case (between rows, beyond the last row, a disagreeing row inside the bracket, a margin
// too thin, corners too far apart, beta kinds, transposes), the committed sm_90 table at its own
// rows and at the shapes where the nearest-row rule lost, and a brute-force check on random
// tables and shapes. CPU only.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <sstream>
#include <string>

#include "common/data.h"
#include "dispatch/device_rule.h"

namespace {

using myblas::DeviceEvidence;
using myblas::DispatchTable;
using myblas::Mem;
using myblas::Op;
using myblas::Path;
using myblas::Routine;
using myblas::TableEntry;

const char kBuiltin[] =
#include "dispatch/builtin_table.inc"
    ;

DispatchTable parse(const std::string& rows) {
  DispatchTable t;
  std::string error;
  const std::string text = "routine,trans,mem,m,n,k,beta,path,kernel,time_us,ratio\n" + rows;
  EXPECT_TRUE(myblas::parse_dispatch_table(text, &t, &error)) << error << "\n" << text;
  return t;
}

// The kernel taken ("cublas" when none), and the line of the deciding row(s) as "lo/hi".
std::string decide(const DispatchTable& t, Routine r, const char* trans, int m, int n, int k, bool beta_zero,
                   std::string* lines = nullptr) {
  const Op ta = trans[0] == 'T' ? Op::T : Op::N;
  const Op tb = r != Routine::sgemv && trans[1] == 'T' ? Op::T : Op::N;
  const DeviceEvidence e = myblas::device_evidence(t, r, ta, tb, m, n, k, beta_zero);
  if (lines)
    *lines = (e.row ? std::to_string(e.row->line) : "-") + "/" + (e.hi ? std::to_string(e.hi->line) : "-");
  return e.kernel ? myblas::entry_choice_name(*e.row) : "cublas";
}

// Lines: the header is line 1, rows from line 2.
const std::string kSgemv =
    "sgemv,N,device,256,256,0,*,kernels,n_colsweep,7,1.6\n"      // 2
    "sgemv,N,device,2048,2048,0,*,kernels,n_colsweep,13,1.3\n"   // 3
    "sgemv,N,device,1024,1024,0,*,kernels,n_colsweep,8,2.4\n"    // 4
    "sgemv,N,device,4096,4096,0,*,kernels,n_lanes,29,1.1\n"      // 5
    "sgemv,N,device,8192,8192,0,*,kernels,n_lanes,93,1.04\n"     // 6 (thin margin)
    "sgemv,N,device,16384,16384,0,*,kernels,n_lanes,350,1.2\n"   // 7
    "sgemv,T,device,512,512,0,*,cublas,-,7,0.9\n"                // 8
    "sgemv,T,device,256,256,0,*,kernels,t_lanegroup_lastblock,7,1.3\n"  // 9
    "sgemv,T,device,2048,2048,0,*,kernels,t_lanegroup_lastblock,7,1.3\n";  // 10

TEST(DeviceRule, RowAtTheShapeDecides) {
  const DispatchTable t = parse(kSgemv);
  std::string lines;
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 4096, 4096, 0, false, &lines), "n_lanes");
  EXPECT_EQ(lines, "5/-");
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 8192, 8192, 0, true), "n_lanes");  // (a row's own margin is the table's)
  EXPECT_EQ(decide(t, Routine::sgemv, "T", 512, 512, 0, false, &lines), "cublas");  // a cuBLAS row inside a bracket
  EXPECT_EQ(lines, "8/-");
}

TEST(DeviceRule, BetweenRowsOfOneKernelTakesIt) {
  const DispatchTable t = parse(kSgemv);
  std::string lines;
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 300, 1500, 0, true, &lines), "n_colsweep");
  EXPECT_EQ(lines, "2/3");  // 256^2 .. 2048^2; 1024^2 inside agrees
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 1500, 1100, 0, false, &lines), "n_colsweep");
  EXPECT_EQ(lines, "2/3");  // the first lo in source order with a good hi
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 2047, 2048, 0, false), "n_colsweep");
}

TEST(DeviceRule, RowsOfDifferentKernelsAroundTheShapeGiveCublas) {
  const DispatchTable t = parse(kSgemv);
  // 2048^2 is n_colsweep, 4096^2 n_lanes: neither brackets 3000 x 3000.
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 3000, 3000, 0, false), "cublas");
  // 3000 x 7000: 2048^2 below, 8192^2 above; no pair of one kernel.
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 3000, 7000, 0, false), "cublas");
}

TEST(DeviceRule, ADisagreeingRowInsideTheBracketGivesCublas) {
  const DispatchTable t = parse(kSgemv);
  // T: 256^2 and 2048^2 are t_lanegroup_lastblock but 512^2 inside is cuBLAS.
  EXPECT_EQ(decide(t, Routine::sgemv, "T", 1000, 1000, 0, false), "cublas");
  EXPECT_EQ(decide(t, Routine::sgemv, "T", 300, 300, 0, false), "cublas");
}

TEST(DeviceRule, ThinMarginOrWideSpanGivesCublas) {
  const DispatchTable t = parse(kSgemv);
  // 4096^2 (1.1) and 8192^2 (1.04 < 1.05): no bracket; 4096^2 .. 16384^2 holds 8192^2 (thin).
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 6000, 6000, 0, false), "cublas");
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 10000, 12000, 0, false), "cublas");
  // Corners 16x apart: 256^2 .. 4096^2 is not a bracket even for one kernel.
  const DispatchTable wide = parse(
      "sgemv,N,device,256,256,0,*,kernels,n_lanes,7,1.6\n"
      "sgemv,N,device,4096,4096,0,*,kernels,n_lanes,29,1.6\n"
      "sgemv,N,device,512,512,0,*,kernels,n_lanes,7,1.6\n"
      "sgemv,N,device,2048,4096,0,*,kernels,n_lanes,7,1.6\n");
  EXPECT_EQ(decide(wide, Routine::sgemv, "N", 300, 4000, 0, false), "cublas");  // n: 256..4096 only
  EXPECT_EQ(decide(wide, Routine::sgemv, "N", 1000, 1000, 0, false), "n_lanes");  // 512^2 .. 2048x4096
}

TEST(DeviceRule, BeyondTheLastRowGivesCublas) {
  const DispatchTable t = parse(kSgemv);
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 32768, 32768, 0, false), "cublas");
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 100, 100, 0, false), "cublas");
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 100, 1000, 0, false), "cublas");  // m below every row
}

const std::string kSgemm =
    "sgemm,NN,device,4096,4096,64,0,kernels,smallk_ws_128x256x64,75,1.16\n"          // 2
    "sgemm,NN,device,4096,4096,128,0,kernels,smallk_panel_128x128x32,120,1.10\n"     // 3
    "sgemm,NN,device,8192,8192,64,0,kernels,smallk_ws_128x256x64,224,1.22\n"         // 4
    "sgemm,NN,device,8192,8192,64,1,kernels,smallk_ws_128x256x64,238,1.35\n"         // 5
    "sgemm,NN,device,4096,4096,64,1,kernels,smallk_ws_128x256x64,77,1.36\n"          // 6
    "sgemm,NN,device,4096,4096,4096,0,cublas,-,2686,0.89\n"                          // 7
    "sgemm,NT,device,4096,4096,64,*,kernels,smallk_ws_128x256x64,75,1.2\n"           // 8
    "sgemm,NT,device,8192,8192,64,*,kernels,smallk_ws_128x256x64,75,1.2\n";          // 9

TEST(DeviceRule, GemmBracketsInThreeDimensions) {
  const DispatchTable t = parse(kSgemm);
  std::string lines;
  EXPECT_EQ(decide(t, Routine::sgemm, "NN", 6000, 5000, 64, false, &lines), "smallk_ws_128x256x64");
  EXPECT_EQ(lines, "6/5");
  EXPECT_EQ(decide(t, Routine::sgemm, "NN", 6000, 5000, 64, true, &lines), "smallk_ws_128x256x64");
  EXPECT_EQ(lines, "2/4");
  // k between rows of one shape but with nothing above in m, n: cuBLAS.
  EXPECT_EQ(decide(t, Routine::sgemm, "NN", 4096, 4096, 100, true), "cublas");  // ws at 64, panel at 128
  EXPECT_EQ(decide(t, Routine::sgemm, "NN", 4096, 4096, 256, true), "cublas");  // panel at 128, cuBLAS at 4096
  EXPECT_EQ(decide(t, Routine::sgemm, "NN", 6000, 5000, 65, true), "cublas");   // no row at k >= 65 of ws
}

TEST(DeviceRule, BetaKindAndTransposesSelectTheEvidence) {
  const DispatchTable t = parse(kSgemm);
  // Beta rows of the other kind are no evidence; "*" rows count for both.
  const DispatchTable beta1 = parse(
      "sgemm,NN,device,1024,1024,64,1,kernels,smallk_ws_128x256x64,1,1.3\n"
      "sgemm,NN,device,2048,2048,64,1,kernels,smallk_ws_128x256x64,1,1.3\n");
  EXPECT_EQ(decide(beta1, Routine::sgemm, "NN", 1500, 1500, 64, false), "smallk_ws_128x256x64");
  EXPECT_EQ(decide(beta1, Routine::sgemm, "NN", 1500, 1500, 64, true), "cublas");
  EXPECT_EQ(decide(t, Routine::sgemm, "NT", 6000, 5000, 64, true), "smallk_ws_128x256x64");
  EXPECT_EQ(decide(t, Routine::sgemm, "NT", 6000, 5000, 64, false), "smallk_ws_128x256x64");
  // TN has no rows: cuBLAS, whatever NN and NT say.
  EXPECT_EQ(decide(t, Routine::sgemm, "TN", 6000, 5000, 64, true), "cublas");
  EXPECT_EQ(decide(t, Routine::sgemm, "TN", 4096, 4096, 64, true), "cublas");
  // Host rows are no evidence for device calls.
  const DispatchTable host = parse(
      "sgemm,NN,host,1024,1024,64,*,cublas,-,1,1.3\n"
      "sgemm,NN,device,1024,1024,64,*,kernels,smallk_ws_128x256x64,1,1.3\n");
  EXPECT_EQ(decide(host, Routine::sgemm, "NN", 1024, 1024, 64, true), "smallk_ws_128x256x64");
  // Routines without kernels of ours: no rule, no evidence.
  EXPECT_EQ(myblas::bracket_rule(myblas::routine_of(myblas::Family::gemm, myblas::Dtype::d)), nullptr);
}

DispatchTable builtin() {
  DispatchTable t;
  std::string error;
  EXPECT_TRUE(myblas::parse_dispatch_table(kBuiltin, &t, &error)) << error;
  return t;
}

TEST(DeviceRule, CommittedTableKeepsItsRowsAndDropsTheMeasuredLosses) {
  const DispatchTable t = builtin();
  int rows = 0;
  for (const TableEntry& e : t.entries) {
    if (e.mem != Mem::device) continue;
    ++rows;
    for (bool bz : {false, true}) {
      if (e.beta != '*' && (e.beta == '0') != bz) continue;
      const DeviceEvidence d = myblas::device_evidence(t, e.routine, e.ta, e.tb, e.m, e.n, e.k, bz);
      ASSERT_EQ(d.row, &e) << "line " << e.line;
      EXPECT_EQ(d.kernel, e.path == Path::kernels) << "line " << e.line;
    }
  }
  EXPECT_GT(rows, 50);
  // The shapes between rows where the nearest row's kernel lost to cuBLAS on the H100.
  EXPECT_EQ(decide(t, Routine::sgemv, "N", 3000, 7000, 0, false), "cublas");  // n_lanes: 0.27x
  EXPECT_EQ(decide(t, Routine::sgemm, "NN", 4096, 4096, 256, true), "cublas");  // smallk_panel: 0.944x
}

// An independent statement of the rule: some pair (lo, hi) of rows of one kernel brackets the
// shape, both and every row in the box by the margin, corners <= 8x apart.
bool brute_force_kernel(const DispatchTable& t, Routine r, Op ta, Op tb, int m, int n, int k, bool bz) {
  std::vector<const TableEntry*> rows;
  for (const TableEntry& e : t.entries)
    if (e.routine == r && e.mem == Mem::device && e.ta == ta && (r == Routine::sgemv || e.tb == tb) &&
        (e.beta == '*' || e.beta == (bz ? '0' : '1')))
      rows.push_back(&e);
  for (const TableEntry* e : rows)
    if (e->m == m && e->n == n && e->k == k) return e->path == Path::kernels;
  auto good = [](const TableEntry* e, int kernel) {
    return e->path == Path::kernels && e->kernel == kernel && e->ratio >= 1.05f;
  };
  auto inside = [](const TableEntry* e, double lo_m, double lo_n, double lo_k, double hi_m, double hi_n,
                   double hi_k) {
    return e->m >= lo_m && e->n >= lo_n && e->k >= lo_k && e->m <= hi_m && e->n <= hi_n && e->k <= hi_k;
  };
  for (const TableEntry* lo : rows)
    for (const TableEntry* hi : rows) {
      if (!good(lo, lo->kernel) || !good(hi, lo->kernel)) continue;
      if (!inside(lo, 0, 0, 0, m, n, k) || !inside(hi, m, n, k, 1e18, 1e18, 1e18)) continue;
      if (double(hi->m) > 8.0 * lo->m || double(hi->n) > 8.0 * lo->n || (lo->k > 0 && double(hi->k) > 8.0 * lo->k))
        continue;
      bool agree = true;
      for (const TableEntry* e : rows)
        if (inside(e, lo->m, lo->n, lo->k, hi->m, hi->n, hi->k) && !good(e, lo->kernel)) agree = false;
      if (agree) return true;
    }
  return false;
}

TEST(DeviceRule, AgreesWithABruteForceStatementOnRandomTables) {
  std::mt19937_64 rng(mbtest::test_seed());
  const char* kernels[] = {"n_lanes", "n_colsweep"};
  const int sizes[] = {64, 128, 256, 512, 1024, 2048, 4096};
  int taken = 0, refused = 0;  // both outcomes must occur, many times
  for (int round = 0; round < 200; ++round) {
    std::ostringstream rows;
    std::set<std::pair<int, int>> used;
    const int count = 10 + int(rng() % 25);
    for (int i = 0; i < count; ++i) {
      const int m = sizes[rng() % 7], n = sizes[rng() % 7];
      if (!used.emplace(m, n).second) continue;
      const int pick = int(rng() % 6);  // mostly one kernel, so that brackets form
      const double ratio = 0.95 + 0.05 * double(rng() % 8);
      if (pick == 5) rows << "sgemv,N,device," << m << "," << n << ",0,*,cublas,-,1," << ratio << "\n";
      else rows << "sgemv,N,device," << m << "," << n << ",0,*,kernels," << kernels[pick < 4 ? 0 : 1] << ",1," << ratio << "\n";
    }
    const DispatchTable t = parse(rows.str());
    for (int q = 0; q < 40; ++q) {
      const int m = 40 + int(rng() % 5000), n = 40 + int(rng() % 5000);
      const DeviceEvidence e = myblas::device_evidence(t, Routine::sgemv, Op::N, Op::N, m, n, 0, false);
      ASSERT_EQ(e.kernel, brute_force_kernel(t, Routine::sgemv, Op::N, Op::N, m, n, 0, false))
          << m << "x" << n << " seed " << mbtest::test_seed() << "\n" << rows.str();
      (e.kernel ? taken : refused) += 1;
      if (e.kernel && e.hi) {  // the returned corners are a bracket
        EXPECT_TRUE(e.row->m <= m && e.row->n <= n && e.hi->m >= m && e.hi->n >= n);
        EXPECT_EQ(e.row->kernel, e.hi->kernel);
      }
      const DeviceEvidence c = myblas::device_evidence_cached(t, Routine::sgemv, Op::N, Op::N, m, n, 0, false);
      EXPECT_EQ(c.row, e.row);
      EXPECT_EQ(c.kernel, e.kernel);
    }
  }
  EXPECT_GT(taken, 200);
  EXPECT_GT(refused, 500);
}

}  // namespace
