// The measured dispatch table as data (src/dispatch/table.h): the committed tables parse and
// the compiled-in one is the committed sm_90 file; random well-formed tables parse to exactly
// what was written; every kind of malformed line makes the whole file invalid, naming the
// line; random corruption never crashes the parser (ASan build too) and never yields an
// invalid entry; the nearest-entry lookup (beta kind included) agrees with a brute-force search
// written here; device SGEMM/HGEMM rows name production kernels of their routine; the
// file search order (MYBLAS_DISPATCH_TABLE, then dispatch-sm_XY.csv per data directory).
// CPU only: no GPU is needed to read a table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "common/data.h"
#include "dispatch/table.h"

namespace {

using myblas::DispatchTable;
using myblas::Mem;
using myblas::Op;
using myblas::Path;
using myblas::Routine;
using myblas::HgemmKernel;
using myblas::SgemmKernel;
using myblas::SgemvKernel;
using myblas::TableEntry;

const char kBuiltin[] =
#include "dispatch/builtin_table.inc"
    ;

const char* kHeader = "routine,trans,mem,m,n,k,beta,path,kernel,time_us,ratio";

std::string seed_note() { return "seed " + std::to_string(mbtest::test_seed()); }

// A row as written to a file, with the values the parser must return.
struct Row {
  Routine routine;
  Op ta, tb;
  Mem mem;
  int m, n, k;
  char beta;   // '0', '1', '*'
  Path path;
  int kernel;  // the routine's kernel enum, with Path::kernels
  double time_us, ratio;
};

const char* routine_text(Routine r) { return r == Routine::sgemm ? "sgemm" : r == Routine::sgemv ? "sgemv" : "hgemm"; }

std::string trans_text(const Row& r) {
  std::string t(1, r.ta == Op::N ? 'N' : 'T');
  if (r.routine != Routine::sgemv) t += r.tb == Op::N ? 'N' : 'T';
  return t;
}

// The kernels a table may name: the production ones of the routine (and SGEMV's warp_per_column).
bool table_kernel(Routine r, int k) {
  switch (r) {
    case Routine::sgemv:
      return myblas::sgemv_kernel_is_production(SgemvKernel(k)) || SgemvKernel(k) == SgemvKernel::warp_per_column;
    case Routine::sgemm: return myblas::sgemm_kernel_is_production(SgemmKernel(k));
    case Routine::hgemm: return myblas::hgemm_kernel_is_production(HgemmKernel(k));
    case Routine::sbgemm:
    case Routine::shgemm: return false;  // (no table rows)
  }
  return false;
}

std::vector<int> table_kernels(Routine r) {
  const int count = r == Routine::sgemv   ? myblas::kSgemvKernelCount
                    : r == Routine::sgemm ? myblas::kSgemmKernelCount
                                          : myblas::kHgemmKernelCount;
  std::vector<int> out;
  for (int i = 0; i < count; ++i)
    if (table_kernel(r, i)) out.push_back(i);
  return out;
}

const char* kernel_text(Routine r, int k) {
  return r == Routine::sgemv   ? myblas::sgemv_kernel_name(SgemvKernel(k))
         : r == Routine::sgemm ? myblas::sgemm_kernel_name(SgemmKernel(k))
                               : myblas::hgemm_kernel_name(HgemmKernel(k));
}

// Random valid rows with distinct keys.
std::vector<Row> random_rows(std::mt19937_64& rng, int count) {
  std::vector<Row> rows;
  std::set<std::tuple<int, int, int, int, int, int, int, char>> keys;
  auto dim = [&rng] { return int(std::exp2(std::uniform_real_distribution<double>(0, 24)(rng))); };
  while (int(rows.size()) < count) {
    Row r{};
    r.routine = Routine(rng() % 3);
    r.ta = Op(rng() % 2);
    r.tb = r.routine == Routine::sgemv ? Op::N : Op(rng() % 2);
    r.mem = rng() % 2 ? Mem::device : Mem::host;
    r.m = std::max(1, dim());
    r.n = std::max(1, dim());
    r.k = r.routine == Routine::sgemv ? 0 : std::max(1, dim());
    r.beta = "01*"[rng() % 3];
    if (r.mem == Mem::host) {
      r.path = rng() % 2 ? Path::cpu : Path::cublas;
    } else {
      r.path = rng() % 2 ? Path::cublas : Path::kernels;
      const std::vector<int> kernels = table_kernels(r.routine);
      r.kernel = kernels[rng() % kernels.size()];
    }
    r.time_us = std::round(std::uniform_real_distribution<double>(0, 1e5)(rng) * 100) / 100;
    r.ratio = std::round(std::uniform_real_distribution<double>(0.01, 500)(rng) * 1000) / 1000;
    if (r.ratio <= 0) r.ratio = 0.5;
    if (keys.emplace(int(r.routine), int(r.ta), int(r.tb), int(r.mem), r.m, r.n, r.k, r.beta).second) rows.push_back(r);
  }
  return rows;
}

std::string row_text(const Row& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s,%s,%s,%d,%d,%d,%c,%s,%s,%.2f,%.3f", routine_text(r.routine),
                trans_text(r).c_str(), r.mem == Mem::host ? "host" : "device", r.m, r.n, r.k, r.beta,
                r.path == Path::cpu ? "cpu" : r.path == Path::cublas ? "cublas" : "kernels",
                r.path == Path::kernels ? kernel_text(r.routine, r.kernel) : "-", r.time_us, r.ratio);
  return buf;
}

// A file: comment lines, blank lines, the header, then the rows; *lines gets each row's line.
std::string table_text(const std::vector<Row>& rows, std::mt19937_64& rng, std::vector<int>* lines,
                       bool decorate = true) {
  std::string s = "# generated by test_dispatch_table\n";
  int line = 1;
  if (decorate) s += "\n", ++line;
  s += std::string(kHeader) + "\n", ++line;
  for (const Row& r : rows) {
    if (decorate && rng() % 5 == 0) s += rng() % 2 ? "# a comment\n" : "   \n", ++line;
    std::string t = row_text(r);
    if (decorate && rng() % 4 == 0) {  // spaces around fields and a CR: still the same row
      std::string spaced;
      for (char c : t) spaced += c == ',' ? std::string(" , ") : std::string(1, c);
      t = " " + spaced + " \r";
    }
    s += t + "\n";
    lines->push_back(++line);
  }
  return s;
}

void expect_same(const TableEntry& e, const Row& r, int line, const std::string& where) {
  EXPECT_EQ(e.routine, r.routine) << where;
  EXPECT_EQ(e.ta, r.ta) << where;
  EXPECT_EQ(e.tb, r.tb) << where;
  EXPECT_EQ(e.mem, r.mem) << where;
  EXPECT_EQ(e.m, r.m) << where;
  EXPECT_EQ(e.n, r.n) << where;
  EXPECT_EQ(e.k, r.k) << where;
  EXPECT_EQ(e.beta, r.beta) << where;
  EXPECT_EQ(e.path, r.path) << where;
  if (r.path == Path::kernels) EXPECT_EQ(e.kernel, r.kernel) << where;
  EXPECT_FLOAT_EQ(e.time_us, float(r.time_us)) << where;
  EXPECT_FLOAT_EQ(e.ratio, float(r.ratio)) << where;
  EXPECT_EQ(e.line, line) << where;
}

// What a valid entry must satisfy, whatever text it came from.
void expect_valid(const TableEntry& e, const std::string& where) {
  ASSERT_LT(int(e.routine), myblas::kRoutineCount) << where;
  ASSERT_STRNE(routine_name(e.routine), "?") << where;
  const bool generic = int(e.routine) >= myblas::kFirstGenericRoutine;  // no kernels, one row per shape for every option
  const bool gemv = std::string(routine_name(e.routine)).substr(1) == "gemv";
  EXPECT_GE(e.m, 1) << where;
  EXPECT_GE(e.n, 1) << where;
  if (gemv) EXPECT_EQ(e.k, 0) << where;
  else EXPECT_GE(e.k, 1) << where;
  if (generic) {
    EXPECT_NE(e.path, Path::kernels) << where;
    EXPECT_TRUE(e.ta == Op::N && e.tb == Op::N) << where;
  }
  EXPECT_TRUE(e.mem == Mem::host || e.mem == Mem::device) << where;
  EXPECT_TRUE(e.beta == '0' || e.beta == '1' || e.beta == '*') << where;
  if (e.mem == Mem::host) EXPECT_TRUE(e.path == Path::cpu || e.path == Path::cublas) << where;
  else EXPECT_TRUE(e.path == Path::cublas || e.path == Path::kernels) << where;
  if (e.path == Path::kernels) EXPECT_TRUE(table_kernel(e.routine, e.kernel)) << where;
  EXPECT_TRUE(std::isfinite(e.time_us) && e.time_us >= 0) << where;
  EXPECT_TRUE(std::isfinite(e.ratio) && e.ratio > 0) << where;
}

// The rule the library uses, written out again: among the entries of the routine and memory
// kind for the call's kind of beta or any (of the call's transposes if there are any such, else
// all), the smallest squared distance in log2 m, log2 n (and log2 k where both k > 0); the
// first such entry in file order.
const TableEntry* brute_nearest(const DispatchTable& t, Routine r, Mem mem, Op ta, Op tb, int m, int n, int k,
                                bool beta_zero) {
  auto same_trans = [&](const TableEntry& e) { return e.ta == ta && (r == Routine::sgemv || e.tb == tb); };
  auto for_call = [&](const TableEntry& e) {
    return e.routine == r && e.mem == mem && (e.beta == '*' || e.beta == (beta_zero ? '0' : '1'));
  };
  bool any_same = false;
  for (const TableEntry& e : t.entries) any_same = any_same || (for_call(e) && same_trans(e));
  const TableEntry* best = nullptr;
  double best_d = 0;
  auto lg = [](int v) { return v > 0 ? std::log2(double(v)) : 0.0; };
  for (const TableEntry& e : t.entries) {
    if (!for_call(e) || (any_same && !same_trans(e))) continue;
    double d = std::pow(lg(m) - lg(e.m), 2) + std::pow(lg(n) - lg(e.n), 2);
    if (k > 0 && e.k > 0) d += std::pow(lg(k) - lg(e.k), 2);
    if (!best || d < best_d) best = &e, best_d = d;
  }
  return best;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A scratch directory, removed at the end.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("myblas-table-" + std::to_string(getpid()) + "-" + std::to_string(mbtest::test_seed() % 100000));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (path / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

TEST(DispatchTable, CommittedTablesParseAndTheBuiltInOneIsSm90) {
  int files = 0;
  for (const auto& f : std::filesystem::directory_iterator(MYBLAS_SOURCE_DIR "/data")) {
    const std::string name = f.path().filename().string();
    if (name.rfind("dispatch-sm_", 0) != 0) continue;
    ++files;
    DispatchTable t;
    std::string error;
    ASSERT_TRUE(myblas::load_dispatch_table(f.path().string(), &t, &error)) << name << ": " << error;
    EXPECT_EQ(t.name, name);
    for (const TableEntry& e : t.entries) expect_valid(e, name + ":" + std::to_string(e.line));
  }
  EXPECT_GE(files, 1);

  DispatchTable file, builtin;
  std::string error;
  ASSERT_TRUE(myblas::load_dispatch_table(MYBLAS_SOURCE_DIR "/data/dispatch-sm_90.csv", &file, &error)) << error;
  ASSERT_TRUE(myblas::parse_dispatch_table(kBuiltin, &builtin, &error)) << error;
  EXPECT_EQ(read_file(MYBLAS_SOURCE_DIR "/data/dispatch-sm_90.csv"), std::string(kBuiltin));
  ASSERT_EQ(builtin.entries.size(), file.entries.size());
  // The sm_90 table decides every routine on device and host arrays, both kinds of beta.
  for (Routine r : {Routine::sgemm, Routine::sgemv, Routine::hgemm})
    for (Mem mem : {Mem::device, Mem::host})
      for (bool beta_zero : {true, false})
        for (Op t : {Op::N, Op::T})
          EXPECT_NE(myblas::nearest_entry(file, r, mem, t, Op::N, 100, 100, r == Routine::sgemv ? 0 : 100, beta_zero),
                    nullptr);
}

TEST(DispatchTable, ParsesExactlyWhatWasWritten) {
  std::mt19937_64 rng(mbtest::test_seed());
  for (int rep = 0; rep < 50; ++rep) {
    const std::vector<Row> rows = random_rows(rng, 1 + int(rng() % 60));
    std::vector<int> lines;
    const std::string text = table_text(rows, rng, &lines);
    DispatchTable t;
    std::string error;
    ASSERT_TRUE(myblas::parse_dispatch_table(text, &t, &error)) << error << "\n" << text << seed_note();
    ASSERT_EQ(t.entries.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i) expect_same(t.entries[i], rows[i], lines[i], text + seed_note());
  }
}

TEST(DispatchTable, AnyMalformedLineInvalidatesTheFileAndIsNamed) {
  std::mt19937_64 rng(mbtest::test_seed());
  // Each replaces one field (index, text) of a row that otherwise stays valid.
  struct Bad {
    int field;
    const char* text;
    bool (*applies)(const Row&);
  };
  auto any = [](const Row&) { return true; };
  auto gemv = [](const Row& r) { return r.routine == Routine::sgemv; };
  auto gemm = [](const Row& r) { return r.routine != Routine::sgemv; };
  auto host = [](const Row& r) { return r.mem == Mem::host; };
  auto not_kernels = [](const Row& r) { return r.path != Path::kernels; };
  auto kernels = [](const Row& r) { return r.path == Path::kernels; };
  const Bad bads[] = {
      {0, "dgemm", any}, {0, "", any}, {0, "SGEMM", any},
      {1, "C", gemv}, {1, "NN", gemv}, {1, "N", gemm}, {1, "NX", gemm},
      {2, "managed", any}, {2, "", any},
      {3, "0", any}, {3, "-5", any}, {3, "12x", any}, {3, "2147483648", any}, {3, "99999999999", any},
      {3, "1e3", any}, {3, " ", any}, {3, "0x10", any},
      {4, "0", any}, {4, "", any},
      {5, "1", gemv}, {5, "0", gemm}, {5, "-1", any},
      {6, "2", any}, {6, "", any}, {6, "0.5", any}, {6, "**", any},
      {7, "gpu", any}, {7, "kernels", host}, {7, "cpu", [](const Row& r) { return r.mem == Mem::device; }},
      {8, "n_rowblock", not_kernels}, {8, "-", kernels}, {8, "no_such_kernel", kernels},
      {8, "x_constant", [](const Row& r) { return r.path == Path::kernels && r.routine == Routine::sgemv; }},
      {8, "x_shared", [](const Row& r) { return r.path == Path::kernels && r.routine == Routine::sgemv; }},
      // A kernel of another routine, and ladder rungs, are not table kernels.
      {8, "n_rowblock", [](const Row& r) { return r.path == Path::kernels && r.routine != Routine::sgemv; }},
      {8, "wgmma_tma_128x256x64_s4", [](const Row& r) { return r.path == Path::kernels && r.routine != Routine::hgemm; }},
      {8, "warptile_128x128x16", [](const Row& r) { return r.path == Path::kernels && r.routine == Routine::sgemm; }},
      {8, "wmma_128x128x32", [](const Row& r) { return r.path == Path::kernels && r.routine == Routine::hgemm; }},
      {9, "nan", any}, {9, "inf", any}, {9, "-1", any}, {9, "1e400", any}, {9, "", any}, {9, "1.2.3", any},
      {10, "0", any}, {10, "-0.5", any}, {10, "nan", any}, {10, "1e9", any}, {10, "x", any},
  };
  for (const Bad& b : bads) {
    for (int tries = 0; tries < 200; ++tries) {
      std::vector<Row> rows = random_rows(rng, 8);
      const size_t victim = rng() % rows.size();
      if (!b.applies(rows[victim])) continue;
      std::vector<int> lines;
      std::string text = table_text(rows, rng, &lines, false);
      std::string row = row_text(rows[victim]);
      std::vector<std::string> fields;
      std::stringstream ss(row);
      for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
      fields[size_t(b.field)] = b.text;
      std::string bad_row;
      for (size_t i = 0; i < fields.size(); ++i) bad_row += (i ? "," : "") + fields[i];
      text.replace(text.find(row), row.size(), bad_row);
      DispatchTable t;
      std::string error;
      EXPECT_FALSE(myblas::parse_dispatch_table(text, &t, &error))
          << "accepted field " << b.field << " = '" << b.text << "'\n" << text << seed_note();
      EXPECT_EQ(error.rfind("line " + std::to_string(lines[victim]) + ":", 0), 0u) << error;
      EXPECT_TRUE(t.entries.empty()) << "a failed parse must leave the table untouched";
      break;
    }
  }

  // Whole-line and whole-file faults.
  const std::vector<Row> rows = random_rows(rng, 6);
  std::vector<int> lines;
  const std::string good = table_text(rows, rng, &lines, false);
  const std::string first = row_text(rows[0]);
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty file"},
      {"# only a comment\n\n", "comments only"},
      {std::string(kHeader) + "\n", "header only"},
      {with(kHeader, "routine,trans,mem,m,n,k,beta,path,kernel,time_us"), "short header"},
      {with(kHeader, "routine,trans,mem,m,n,k,path,kernel,time_us,ratio"), "the header without beta"},
      {with(kHeader + std::string("\n"), ""), "no header"},
      {with(first, first + ",1"), "12 fields"},
      {with(first, first.substr(0, first.rfind(','))), "10 fields"},
      {with(first, first + "\n" + first), "a repeated row"},
      {with(first, first + std::string(600, ' ')), "a line over 512 bytes"},
      {with(first, first.substr(0, 3) + std::string(1, '\0') + first.substr(3)), "a NUL byte"},
      {good + std::string(size_t(1) << 20, '#'), "over 1 MiB"},
  };
  for (const auto& c : cases) {
    DispatchTable t;
    std::string error;
    EXPECT_FALSE(myblas::parse_dispatch_table(c.first, &t, &error)) << c.second;
    EXPECT_FALSE(error.empty()) << c.second;
  }
  DispatchTable t;
  std::string error;
  EXPECT_TRUE(myblas::parse_dispatch_table(good, &t, &error)) << error;  // (the base was valid)
  EXPECT_FALSE(myblas::load_dispatch_table("/nonexistent/dispatch-sm_90.csv", &t, &error));
  EXPECT_FALSE(myblas::load_dispatch_table("/", &t, &error)) << "a directory is not a table";
}

TEST(DispatchTable, CorruptedTextNeverCrashesOrYieldsAnInvalidEntry) {
  std::mt19937_64 rng(mbtest::test_seed());
  const std::string base = read_file(MYBLAS_SOURCE_DIR "/data/dispatch-sm_90.csv");
  ASSERT_FALSE(base.empty());
  const char alphabet[] = {',', '\n', '\r', '#', ' ', '-', '.', 'e', '0', '1', '9', 'N', 'T', '\0', '\xff'};
  int accepted = 0;
  for (int it = 0; it < 20000; ++it) {
    std::string s = base;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      const size_t at = rng() % s.size();
      const char c = rng() % 2 ? alphabet[rng() % sizeof alphabet] : char(rng() % 256);
      switch (rng() % 4) {
        case 0: s[at] = c; break;
        case 1: s.insert(s.begin() + long(at), c); break;
        case 2: s.erase(at, 1 + rng() % 8); break;
        default: s.resize(at); break;
      }
    }
    DispatchTable t;
    std::string error;
    if (!myblas::parse_dispatch_table(s, &t, &error)) {
      EXPECT_FALSE(error.empty());
      continue;
    }
    ++accepted;
    ASSERT_FALSE(t.entries.empty());
    for (const TableEntry& e : t.entries) expect_valid(e, "iteration " + std::to_string(it) + " " + seed_note());
    const TableEntry* e = myblas::nearest_entry(t, Routine::sgemv, Mem::device, Op::T, Op::N, 1000, 3, 0, true);
    if (e) EXPECT_TRUE(e->routine == Routine::sgemv && e->mem == Mem::device);
  }
  EXPECT_GT(accepted, 0) << "no corruption kept the file valid (e.g. in a comment): the check saw nothing";
}

TEST(DispatchTable, NearestEntryIsTheBruteForceNearest) {
  std::mt19937_64 rng(mbtest::test_seed());
  DispatchTable committed;
  std::string error;
  ASSERT_TRUE(myblas::load_dispatch_table(MYBLAS_SOURCE_DIR "/data/dispatch-sm_90.csv", &committed, &error));
  std::vector<DispatchTable> tables{committed};
  for (int i = 0; i < 20; ++i) {
    std::vector<int> lines;
    DispatchTable t;
    ASSERT_TRUE(myblas::parse_dispatch_table(table_text(random_rows(rng, 1 + int(rng() % 40)), rng, &lines), &t, &error));
    tables.push_back(std::move(t));
  }
  auto dim = [&rng] { return int(std::exp2(std::uniform_real_distribution<double>(0, 22)(rng))); };
  for (const DispatchTable& t : tables)
    for (int q = 0; q < 2000; ++q) {
      const Routine r = Routine(rng() % 3);
      const Mem mem = rng() % 2 ? Mem::device : Mem::host;
      const Op ta = Op(rng() % 2), tb = r == Routine::sgemv ? Op::N : Op(rng() % 2);
      const int m = dim(), n = dim(), k = r == Routine::sgemv ? 0 : dim();
      const bool beta_zero = rng() % 2;
      const TableEntry* got = myblas::nearest_entry(t, r, mem, ta, tb, m, n, k, beta_zero);
      const TableEntry* want = brute_nearest(t, r, mem, ta, tb, m, n, k, beta_zero);
      ASSERT_EQ(got, want) << "query " << int(r) << " " << int(mem) << " " << int(ta) << int(tb) << " " << m
                           << "x" << n << "x" << k << " got line " << (got ? got->line : -1) << ", want line "
                           << (want ? want->line : -1) << " " << seed_note();
    }
}

TEST(DispatchTable, TiesGoToTheFirstRowAndMissingTransposesUseTheOthers) {
  // 128 x 128 is as far from 64 x 256 as from 256 x 64 (one octave each way).
  const std::string a = "sgemv,N,device,64,256,0,*,cublas,-,1,1\n", b = "sgemv,N,device,256,64,0,*,kernels,n_rowblock,1,1\n";
  for (bool swap : {false, true}) {
    DispatchTable t;
    std::string error;
    ASSERT_TRUE(myblas::parse_dispatch_table(std::string(kHeader) + "\n" + (swap ? b + a : a + b), &t, &error)) << error;
    const TableEntry* e = myblas::nearest_entry(t, Routine::sgemv, Mem::device, Op::N, Op::N, 128, 128, 0, true);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->line, 2);
    // No T rows: a T call takes the nearest of every transpose.
    e = myblas::nearest_entry(t, Routine::sgemv, Mem::device, Op::T, Op::N, 250, 70, 0, false);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->m, 256);
    // Nothing for host memory or for SGEMM in this table.
    EXPECT_EQ(myblas::nearest_entry(t, Routine::sgemv, Mem::host, Op::N, Op::N, 128, 128, 0, true), nullptr);
    EXPECT_EQ(myblas::nearest_entry(t, Routine::sgemm, Mem::device, Op::N, Op::N, 128, 128, 128, true), nullptr);
  }
}

TEST(DispatchTable, EachKindOfBetaSeesItsRowsAndTheAnyRows) {
  // HGEMM 4096^3 on device: cuBLAS for beta == 0, our kernel for beta != 0; a beta-any SGEMM row.
  const std::string text = std::string(kHeader) + "\n" +
                           "hgemm,NN,device,4096,4096,4096,0,cublas,-,230,0.97\n"                      // line 2
                           "hgemm,NN,device,4096,4096,4096,1,kernels,wgmma_tma_128x256x64_s4,259,1.3\n"  // line 3
                           "hgemm,NN,device,64,64,64,*,cublas,-,20,1\n"                                // line 4
                           "sgemm,TN,device,4096,16,4096,*,kernels,skinny_r16,57,1.1\n";              // line 5
  DispatchTable t;
  std::string error;
  ASSERT_TRUE(myblas::parse_dispatch_table(text, &t, &error)) << error;
  const TableEntry* e = myblas::nearest_entry(t, Routine::hgemm, Mem::device, Op::N, Op::N, 3000, 5000, 4000, true);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->line, 2);
  e = myblas::nearest_entry(t, Routine::hgemm, Mem::device, Op::N, Op::N, 3000, 5000, 4000, false);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->line, 3);
  EXPECT_EQ(myblas::entry_hgemm_kernel(*e), HgemmKernel::wgmma_tma);
  EXPECT_STREQ(myblas::entry_choice_name(*e), "wgmma_tma_128x256x64_s4");
  // The beta-any row serves both kinds where it is nearest.
  for (bool beta_zero : {true, false}) {
    e = myblas::nearest_entry(t, Routine::hgemm, Mem::device, Op::N, Op::N, 70, 60, 64, beta_zero);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->line, 4);
    e = myblas::nearest_entry(t, Routine::sgemm, Mem::device, Op::T, Op::N, 4000, 16, 4096, beta_zero);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(myblas::entry_sgemm_kernel(*e), SgemmKernel::skinny_r16);
  }
  // Rows for one kind only: the other kind finds nothing.
  ASSERT_TRUE(myblas::parse_dispatch_table(std::string(kHeader) + "\nhgemm,NN,device,8,8,8,1,cublas,-,1,1\n", &t, &error));
  EXPECT_EQ(myblas::nearest_entry(t, Routine::hgemm, Mem::device, Op::N, Op::N, 8, 8, 8, true), nullptr);
  EXPECT_NE(myblas::nearest_entry(t, Routine::hgemm, Mem::device, Op::N, Op::N, 8, 8, 8, false), nullptr);
}

// host_gpu_rows (dispatch skips the host lookup of a routine without one): set by a host row
// that says cublas, by nothing else; and where it is unset, every host shape's entry says cpu.
TEST(DispatchTable, HostGpuRowsMarkExactlyTheRoutinesWithAHostGpuRow) {
  const std::string cpu_only = std::string(kHeader) + "\n" +
                               "sgemv,N,host,64,64,0,*,cpu,-,2,0.5\n"
                               "sgemv,T,host,4096,4096,0,*,cpu,-,700,0.9\n"
                               "sgemv,N,device,64,64,0,*,cublas,-,5,1\n"
                               "sgemm,NN,host,4096,4096,4096,*,cublas,-,10000,3\n";
  DispatchTable t;
  std::string error;
  ASSERT_TRUE(myblas::parse_dispatch_table(cpu_only, &t, &error)) << error;
  EXPECT_FALSE(t.host_gpu_rows[int(Routine::sgemv)]) << "a device cublas row is not a host row";
  EXPECT_TRUE(t.host_gpu_rows[int(Routine::sgemm)]);
  EXPECT_FALSE(t.host_gpu_rows[int(Routine::hgemm)]);
  ASSERT_TRUE(myblas::parse_dispatch_table(cpu_only + "sgemv,T,host,8192,8192,0,0,cublas,-,3000,1.1\n", &t, &error))
      << error;
  EXPECT_TRUE(t.host_gpu_rows[int(Routine::sgemv)]);

  ASSERT_TRUE(myblas::parse_dispatch_table(kBuiltin, &t, &error)) << error;
  for (Routine r : {Routine::sgemm, Routine::sgemv, Routine::hgemm}) {
    if (t.host_gpu_rows[int(r)]) continue;
    for (int m : {1, 17, 64, 100, 1000, 5000, 20000})
      for (int n : {1, 33, 256, 3000, 16384})
        for (bool beta_zero : {true, false})
          for (Op op : {Op::N, Op::T}) {
            const TableEntry* e =
                myblas::nearest_entry(t, r, Mem::host, op, Op::N, m, n, r == Routine::sgemv ? 0 : 64, beta_zero);
            ASSERT_NE(e, nullptr);
            EXPECT_EQ(e->path, Path::cpu) << "line " << e->line << " says the GPU, host_gpu_rows says none do";
          }
  }
}

TEST(DispatchTableSource, OverrideThenOneFilePerComputeCapability) {
  const std::vector<std::string> dirs = {"/opt/x/share/myblas", "/b/share/myblas/", "/opt/x/share/myblas"};
  std::vector<std::string> c = myblas::table_candidates("/tmp/mine.csv", dirs, 86);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], "/tmp/mine.csv");
  EXPECT_EQ(c[1], "/opt/x/share/myblas/dispatch-sm_86.csv");
  EXPECT_EQ(c[2], "/b/share/myblas/dispatch-sm_86.csv");
  c = myblas::table_candidates("", dirs, 90);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0], "/opt/x/share/myblas/dispatch-sm_90.csv");
  EXPECT_EQ(myblas::table_candidates(nullptr, {}, 90).size(), 0u);
}

TEST(DispatchTableSource, TheFirstTableThatParsesIsUsedAndEveryBadOneIsReported) {
  std::mt19937_64 rng(mbtest::test_seed());
  TempDir dir;
  std::vector<int> lines;
  const std::vector<Row> mine = random_rows(rng, 5), theirs = random_rows(rng, 7);
  const std::string override_file = dir.write("mine.csv", table_text(mine, rng, &lines));
  const std::string bad_file = dir.write("bad.csv", std::string(kHeader) + "\nsgemv,N,device,1,1,0,gpu,-,1,1\n");
  std::filesystem::create_directories(dir.path / "share");
  const std::string sm_file = dir.write("share/dispatch-sm_90.csv", table_text(theirs, rng, &lines));
  const std::vector<std::string> dirs = {(dir.path / "nothing-here").string(), (dir.path / "share").string()};

  // A good override wins.
  DispatchTable t;
  std::vector<std::string> problems;
  ASSERT_TRUE(myblas::load_first_table(myblas::table_candidates(override_file.c_str(), dirs, 90), true, &t, &problems));
  EXPECT_EQ(t.source, override_file);
  EXPECT_EQ(t.entries.size(), mine.size());
  EXPECT_TRUE(problems.empty());

  // A malformed override: one problem naming the variable, the file and the line; then the
  // device's own file.
  problems.clear();
  ASSERT_TRUE(myblas::load_first_table(myblas::table_candidates(bad_file.c_str(), dirs, 90), true, &t, &problems));
  EXPECT_EQ(t.source, sm_file);
  EXPECT_EQ(t.entries.size(), theirs.size());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("MYBLAS_DISPATCH_TABLE=" + bad_file + ": line 2:"), std::string::npos) << problems[0];

  // An override that does not exist is reported too.
  problems.clear();
  const std::string missing = (dir.path / "missing.csv").string();
  ASSERT_TRUE(myblas::load_first_table(myblas::table_candidates(missing.c_str(), dirs, 90), true, &t, &problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find(missing), std::string::npos);

  // No file for this compute capability: nothing loaded, nothing to report (the caller then
  // uses the built-in table).
  problems.clear();
  EXPECT_FALSE(myblas::load_first_table(myblas::table_candidates(nullptr, dirs, 80), false, &t, &problems));
  EXPECT_TRUE(problems.empty());

  // A malformed installed file is reported and skipped.
  dir.write("share/dispatch-sm_80.csv", "routine,trans\n");
  EXPECT_FALSE(myblas::load_first_table(myblas::table_candidates(nullptr, dirs, 80), false, &t, &problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("dispatch-sm_80.csv: line 1:"), std::string::npos) << problems[0];
}

}  // namespace
