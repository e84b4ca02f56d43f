#include "dispatch/device_rule.h"

namespace myblas {

const BracketRule* bracket_rule(Routine r) {
  for (const BracketRule& rule : kBracketRules)
    if (rule.routine == r) return &rule;
  return nullptr;
}

DeviceEvidence device_evidence(const DispatchTable& t, Routine r, Op ta, Op tb, int m, int n, int k, bool beta_zero) {
  DeviceEvidence out;
  const BracketRule* rule = bracket_rule(r);
  if (!rule) return out;
  const bool gemv = r == Routine::sgemv;
  if (gemv) k = 0;
  const int trans = gemv ? int(ta == Op::T) : 2 * int(ta == Op::T) + int(tb == Op::T);
  const std::vector<uint16_t>& rows = t.groups[int(r)][1][trans];
  const char kind = beta_zero ? '0' : '1';
  auto counts = [&](const TableEntry& e) { return e.beta == '*' || e.beta == kind; };
  auto at_most = [](const TableEntry& a, int m2, int n2, int k2) { return a.m <= m2 && a.n <= n2 && a.k <= k2; };
  auto strong = [&](const TableEntry& e, int kernel) {
    return e.path == Path::kernels && e.kernel == kernel && e.ratio >= rule->margin;
  };

  for (uint16_t i : rows) {  // a row at the shape itself
    const TableEntry& e = t.entries[i];
    if (counts(e) && e.m == m && e.n == n && e.k == k) {
      out.row = &e;
      out.kernel = e.path == Path::kernels;
      return out;
    }
  }
  for (uint16_t i : rows) {  // lo: below the shape in every dimension
    const TableEntry& lo = t.entries[i];
    if (!counts(lo) || !at_most(lo, m, n, k) || !strong(lo, lo.kernel)) continue;
    for (uint16_t j : rows) {  // hi: above it, the same kernel, close enough
      const TableEntry& hi = t.entries[j];
      if (!counts(hi) || !at_most(t.entries[i], hi.m, hi.n, hi.k) || hi.m < m || hi.n < n || hi.k < k ||
          !strong(hi, lo.kernel) || hi.lm - lo.lm > rule->max_span_log2 || hi.ln - lo.ln > rule->max_span_log2 ||
          hi.lk - lo.lk > rule->max_span_log2)
        continue;
      bool agree = true;  // every row inside the box says the same
      for (uint16_t q : rows) {
        const TableEntry& e = t.entries[q];
        if (counts(e) && at_most(lo, e.m, e.n, e.k) && at_most(e, hi.m, hi.n, hi.k) && !strong(e, lo.kernel)) {
          agree = false;
          break;
        }
      }
      if (agree) {
        out.row = &lo;
        out.hi = &hi;
        out.kernel = true;
        return out;
      }
    }
  }
  return out;
}

DeviceEvidence device_evidence_cached(const DispatchTable& t, Routine r, Op ta, Op tb, int m, int n, int k,
                                      bool beta_zero) {
  struct Key {
    const DispatchTable* t;
    Routine r;
    Op ta, tb;
    bool beta_zero;
    int m, n, k;
    bool operator==(const Key& o) const {
      return t == o.t && r == o.r && ta == o.ta && tb == o.tb && beta_zero == o.beta_zero && m == o.m && n == o.n &&
             k == o.k;
    }
  };
  struct Slot {
    Key key{};
    DeviceEvidence value;
  };
  constexpr int kSlots = 4;  // (round robin)
  static thread_local Slot slots[kSlots];
  static thread_local int next = 0;
  const Key key{&t, r, ta, tb, beta_zero, m, n, k};
  for (const Slot& s : slots)
    if (s.key == key) return s.value;
  const DeviceEvidence e = device_evidence(t, r, ta, tb, m, n, k, beta_zero);
  slots[next] = Slot{key, e};
  next = (next + 1) % kSlots;
  return e;
}

}  // namespace myblas
