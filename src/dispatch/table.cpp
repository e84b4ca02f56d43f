#include "dispatch/table.h"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>
#include <tuple>

namespace myblas {

namespace {

constexpr size_t kMaxBytes = size_t(1) << 20, kMaxLine = 512, kMaxRows = 10000;
constexpr std::string_view kHeader = "routine,trans,mem,m,n,k,beta,path,kernel,time_us,ratio";
constexpr size_t kFields = 11;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Decimal digits only, within [lo, hi].
bool parse_int(std::string_view s, long long lo, long long hi, int* out) {
  if (s.empty() || s.size() > 10) return false;
  long long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v < lo || v > hi) return false;
  *out = int(v);
  return true;
}

// A finite decimal number within [lo, hi] (lo excluded when lo_open).
bool parse_real(std::string_view s, double lo, bool lo_open, double hi, float* out) {
  if (s.empty() || s.size() > 32) return false;
  char buf[33];
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return false;
    buf[i] = c;
  }
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(buf, &end);
  if (end != buf + s.size() || errno == ERANGE || !std::isfinite(v)) return false;
  if (v < lo || (lo_open && v == lo) || v > hi) return false;
  *out = float(v);
  return true;
}

bool parse_routine(std::string_view s, Routine* r) {
  for (int i = 0; i < kRoutineCount; ++i)
    if (s == routine_name(Routine(i))) {
      *r = Routine(i);
      return true;
    }
  return false;
}

// The routines with their own problem description and kernels (sgemm, sgemv, hgemm); every
// other routine's rows hold one kind of call whatever its options (trans "*").
bool has_kernels(Routine r) { return int(r) < kFirstGenericRoutine; }

bool parse_op(char c, Op* o) {
  if (c == 'N') *o = Op::N;
  else if (c == 'T') *o = Op::T;
  else return false;
  return true;
}

// Index of the transposes in DispatchTable::groups: sgemv N, T = 0, 1; GEMM NN, NT, TN, TT = 0..3.
int trans_index(Routine r, Op ta, Op tb) {
  if (!has_kernels(r)) return 4;
  return r == Routine::sgemv ? int(ta == Op::T) : 2 * int(ta == Op::T) + int(tb == Op::T);
}

double log2_or_zero(int v) { return v > 0 ? std::log2(double(v)) : 0.0; }

// Kernels a table may name: those that run every valid problem and keep no process-wide state,
// i.e. the production kernels and, for SGEMV, the ladder's warp_per_column
// (bench/make_dispatch_table.py's candidates). Whether one can run a given call is still asked
// at dispatch (*_can_implement).
bool table_kernel(SgemvKernel k) { return sgemv_kernel_is_production(k) || k == SgemvKernel::warp_per_column; }

bool parse_kernel(Routine r, const std::string& name, int* out) {
  switch (r) {
    case Routine::sgemv: {
      SgemvKernel k;
      if (!sgemv_kernel_from_name(name.c_str(), &k) || !table_kernel(k)) return false;
      *out = int(k);
      return true;
    }
    case Routine::sgemm: {
      SgemmKernel k;
      if (!sgemm_kernel_from_name(name.c_str(), &k) || !sgemm_kernel_is_production(k)) return false;
      *out = int(k);
      return true;
    }
    case Routine::hgemm: {
      HgemmKernel k;
      if (!hgemm_kernel_from_name(name.c_str(), &k) || !hgemm_kernel_is_production(k)) return false;
      *out = int(k);
      return true;
    }
    case Routine::sbgemm:
    case Routine::shgemm: return false;  // (no rows: parse_routine never yields them)
  }
  return false;
}

bool bad(const char** why, const char* rule) {
  *why = rule;
  return false;
}

// One row; false with *why on the first rule it breaks.
bool parse_row(std::string_view line, TableEntry* e, const char** why) {
  std::string_view f[kFields];
  size_t count = 0;
  while (true) {
    const size_t comma = line.find(',');
    if (count == kFields) return bad(why, "more than 11 fields");
    f[count++] = trim(line.substr(0, comma));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  if (count != kFields) return bad(why, "fewer than 11 fields");
  if (!parse_routine(f[0], &e->routine)) return bad(why, "routine is not a BLAS routine myblas serves");
  const bool gemv = e->routine == Routine::sgemv || e->routine == routine_of(Family::gemv, Dtype::d) ||
                    e->routine == routine_of(Family::gemv, Dtype::c) ||
                    e->routine == routine_of(Family::gemv, Dtype::z);
  e->ta = e->tb = Op::N;
  if (!has_kernels(e->routine)) {
    if (f[1] != "*") return bad(why, "trans must be * for this routine");
  } else if (gemv ? !(f[1].size() == 1 && parse_op(f[1][0], &e->ta))
           : !(f[1].size() == 2 && parse_op(f[1][0], &e->ta) && parse_op(f[1][1], &e->tb)))
    return bad(why, gemv ? "trans is not N or T" : "trans is not NN, NT, TN or TT");
  if (f[2] == "host") e->mem = Mem::host;
  else if (f[2] == "device") e->mem = Mem::device;
  else return bad(why, "mem is not host or device");
  if (!parse_int(f[3], 1, INT_MAX, &e->m) || !parse_int(f[4], 1, INT_MAX, &e->n))
    return bad(why, "m and n must be integers from 1 to 2^31-1");
  if (!parse_int(f[5], gemv ? 0 : 1, gemv ? 0 : INT_MAX, &e->k))
    return bad(why, gemv ? "k must be 0 for gemv" : "k must be an integer from 1 to 2^31-1");
  if (f[6] == "0" || f[6] == "1" || f[6] == "*") e->beta = f[6][0];
  else return bad(why, "beta is not 0, 1 or *");
  if (f[7] == "cpu") e->path = Path::cpu;
  else if (f[7] == "cublas") e->path = Path::cublas;
  else if (f[7] == "kernels") e->path = Path::kernels;
  else return bad(why, "path is not cpu, cublas or kernels");
  if (e->mem == Mem::host && e->path == Path::kernels) return bad(why, "host rows take path cpu or cublas");
  if (e->mem == Mem::device && e->path == Path::cpu) return bad(why, "device rows take path cublas or kernels");
  e->kernel = 0;
  if (e->path == Path::kernels) {
    if (!has_kernels(e->routine)) return bad(why, "this routine has no kernels of ours");
    if (!parse_kernel(e->routine, std::string(f[8]), &e->kernel))
      return bad(why, gemv ? "kernel is not a production SGEMV kernel or warp_per_column"
                           : "kernel is not a production kernel of this routine");
  } else if (f[8] != "-") {
    return bad(why, "kernel must be - unless path is kernels");
  }
  if (!parse_real(f[9], 0.0, false, 1e12, &e->time_us)) return bad(why, "time_us must be a number >= 0");
  if (!parse_real(f[10], 0.0, true, 1e6, &e->ratio)) return bad(why, "ratio must be a number > 0");
  e->lm = log2_or_zero(e->m);
  e->ln = log2_or_zero(e->n);
  e->lk = log2_or_zero(e->k);
  return true;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool parse_dispatch_table(const std::string& text, DispatchTable* out, std::string* error) {
  DispatchTable t;
  t.source = out->source;
  t.name = out->name;
  if (text.size() > kMaxBytes) {
    *error = "larger than 1 MiB";
    return false;
  }
  bool header = false;
  size_t pos = 0;
  for (int line_no = 1; pos < text.size(); ++line_no) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string_view raw(text.data() + pos, eol - pos);
    pos = eol + 1;
    auto fail = [&](const char* why) {
      *error = "line " + std::to_string(line_no) + ": " + why;
      return false;
    };
    if (raw.size() > kMaxLine) return fail("longer than 512 bytes");
    if (raw.find('\0') != std::string_view::npos) return fail("holds a NUL byte");
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (!header) {
      if (line != kHeader) return fail("expected the header routine,trans,mem,m,n,k,beta,path,kernel,time_us,ratio");
      header = true;
      continue;
    }
    if (t.entries.size() == kMaxRows) return fail("more than 10,000 rows");
    TableEntry e{};
    const char* why = "";
    if (!parse_row(line, &e, &why)) return fail(why);
    e.line = line_no;
    t.entries.push_back(e);
  }
  if (!header) {
    *error = "no header line";
    return false;
  }
  if (t.entries.empty()) {
    *error = "no rows";
    return false;
  }
  // A repeated shape would make the choice depend on row order: refuse it.
  std::set<std::tuple<int, int, int, int, int, int, int, char>> seen;
  for (const TableEntry& e : t.entries)
    if (!seen.emplace(int(e.routine), int(e.ta), int(e.tb), int(e.mem), e.m, e.n, e.k, e.beta).second) {
      *error = "line " + std::to_string(e.line) + ": repeats an earlier row's routine, trans, mem, m, n, k, beta";
      return false;
    }
  for (size_t i = 0; i < t.entries.size(); ++i) {
    const TableEntry& e = t.entries[i];
    auto& g = t.groups[int(e.routine)][e.mem == Mem::device];
    const int ti = trans_index(e.routine, e.ta, e.tb);
    g[ti].push_back(uint16_t(i));
    if (ti != 4) g[4].push_back(uint16_t(i));
    if (e.mem == Mem::host && e.path == Path::cublas) t.host_gpu_rows[int(e.routine)] = true;
  }
  *out = std::move(t);
  return true;
}

bool load_dispatch_table(const std::string& path, DispatchTable* out, std::string* error) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *error = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  std::string text;
  char buf[8192];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) {
    text.append(buf, got);
    if (text.size() > kMaxBytes) break;
  }
  const bool read_error = std::ferror(f) != 0;
  std::fclose(f);
  if (read_error) {
    *error = "read error";
    return false;
  }
  out->source = path;
  out->name = base_name(path);
  return parse_dispatch_table(text, out, error);
}

const TableEntry* nearest_entry(const DispatchTable& t, Routine r, Mem mem, Op ta, Op tb, int m, int n, int k,
                                bool beta_zero) {
  const auto& g = t.groups[int(r)][mem == Mem::device];
  const char kind = beta_zero ? '0' : '1';
  auto fits = [&](const std::vector<uint16_t>& rows) {
    for (uint16_t i : rows)
      if (t.entries[i].beta == '*' || t.entries[i].beta == kind) return true;
    return false;
  };
  const std::vector<uint16_t>* rows = &g[trans_index(r, ta, tb)];
  if (!fits(*rows)) rows = &g[4];
  const double lm = log2_or_zero(m), ln = log2_or_zero(n), lk = log2_or_zero(k);
  const TableEntry* best = nullptr;
  double best_d = 0;
  for (uint16_t i : *rows) {
    const TableEntry& e = t.entries[i];
    if (e.beta != '*' && e.beta != kind) continue;
    double d = (lm - e.lm) * (lm - e.lm) + (ln - e.ln) * (ln - e.ln);
    if (k > 0 && e.k > 0) d += (lk - e.lk) * (lk - e.lk);
    if (!best || d < best_d) {
      best = &e;
      best_d = d;
    }
  }
  return best;
}

const char* entry_choice_name(const TableEntry& e) {
  if (e.path != Path::kernels) return e.path == Path::cpu ? "cpu" : "cublas";
  switch (e.routine) {
    case Routine::sgemv: return sgemv_kernel_name(entry_sgemv_kernel(e));
    case Routine::sgemm: return sgemm_kernel_name(entry_sgemm_kernel(e));
    case Routine::hgemm: return hgemm_kernel_name(entry_hgemm_kernel(e));
    default: return "?";
  }
}

std::vector<std::string> table_candidates(const char* override_path, const std::vector<std::string>& data_dirs, int sm) {
  std::vector<std::string> out;
  if (override_path && *override_path) out.push_back(override_path);
  const std::string file = "dispatch-sm_" + std::to_string(sm) + ".csv";
  for (const std::string& dir : data_dirs) {
    if (dir.empty()) continue;
    const std::string path = dir + (dir.back() == '/' ? "" : "/") + file;
    bool dup = false;
    for (const std::string& p : out) dup = dup || p == path;
    if (!dup) out.push_back(path);
  }
  return out;
}

bool load_first_table(const std::vector<std::string>& candidates, bool first_is_override, DispatchTable* out,
                      std::vector<std::string>* problems) {
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string& path = candidates[i];
    const bool named = first_is_override && i == 0;
    struct stat st;
    if (!named && ::stat(path.c_str(), &st) != 0) continue;  // no table for this GPU there: normal
    std::string error;
    DispatchTable t;
    if (load_dispatch_table(path, &t, &error)) {
      *out = std::move(t);
      return true;
    }
    problems->push_back((named ? "MYBLAS_DISPATCH_TABLE=" : "dispatch table ") + path + ": " + error +
                        "; ignoring this file");
  }
  return false;
}

}  // namespace myblas
