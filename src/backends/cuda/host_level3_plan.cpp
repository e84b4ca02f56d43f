#include "backends/cuda/host_level3_plan.h"

#include <algorithm>
#include <numeric>

namespace myblas {

namespace {

const unsigned char* at(const void* base, int64_t i, int64_t j, int64_t ld, size_t es) {
  return static_cast<const unsigned char*>(base) + (size_t(i) + size_t(j) * size_t(ld)) * es;
}

}  // namespace

// (Narrower panels leave cuBLAS too little to do per call.)
int panel_width(int64_t extent, int min_width, int count) {
  const int64_t parts = std::max(1, count);
  int64_t w = (extent + parts - 1) / parts;
  w = (w + 63) / 64 * 64;
  if (min_width < 64) w = (extent + parts - 1) / parts;  // (narrow test panels: no rounding)
  return int(std::max<int64_t>(std::min<int64_t>(extent, min_width), std::min<int64_t>(w, 4096)));
}

std::vector<Panel> make_panels(const BlasProblem& p, int min_width, int count) {
  const size_t es = p.elem_size();
  std::vector<Panel> panels;
  const bool read_c = !p.beta.zero();
  switch (p.family) {
    case Family::symm: case Family::hemm: case Family::trmm: case Family::trsm: {
      const bool left = p.side == 'L';
      const bool tri = p.family == Family::trmm || p.family == Family::trsm;
      const int64_t extent = left ? p.n : p.m;
      const int w = panel_width(extent, min_width, count);
      for (int64_t s0 = 0; s0 < extent; s0 += w) {
        const int ws = int(std::min<int64_t>(w, extent - s0));
        const int64_t i0 = left ? 0 : s0, j0 = left ? s0 : 0;
        const int rows = left ? int(p.m) : ws, cols = left ? ws : int(p.n);
        Panel pan;
        pan.out = {at(p.c, i0, j0, p.ldc, es), p.ldc, rows, cols};
        if (tri || read_c) pan.in.push_back(pan.out);
        BlasProblem q = p;
        q.m = rows;
        q.n = cols;
        q.c = const_cast<unsigned char*>(at(p.c, i0, j0, p.ldc, es));
        if (!tri) {
          q.b = at(p.b, i0, j0, p.ldb, es);
          pan.in.push_back({q.b, p.ldb, rows, cols});
        }
        pan.calls.push_back(q);
        panels.push_back(std::move(pan));
      }
      break;
    }
    case Family::syrk: case Family::herk: case Family::syr2k: case Family::her2k: {
      const bool lower = p.uplo == 'L', nt = p.ta == 'N';
      const bool two = p.family == Family::syr2k || p.family == Family::her2k;
      const bool herm = p.family == Family::herk || p.family == Family::her2k;
      // Rows r0..r0+len of op(A) (op(B)): rows of A for trans N, columns for T/C.
      auto rows_of = [&](const void* x, int64_t ldx, int64_t r0) { return nt ? at(x, r0, 0, ldx, es) : at(x, 0, r0, ldx, es); };
      const char t_other = nt ? (herm ? 'C' : 'T') : 'N';  // the GEMM's second operand's op
      const char t_first = nt ? 'N' : p.ta;
      const int w = panel_width(p.n, min_width, count);
      for (int64_t c0 = 0; c0 < p.n; c0 += w) {
        const int ws = int(std::min<int64_t>(w, p.n - c0));
        // The rest of the panel: rows c0+ws..n (lower) or 0..c0 (upper).
        const int64_t r0 = lower ? c0 + ws : 0, rest = lower ? p.n - c0 - ws : c0;
        const int64_t top = lower ? c0 : 0;
        const int rows = int(ws + rest);
        Panel pan;
        pan.out = {at(p.c, top, c0, p.ldc, es), p.ldc, rows, ws};
        // With beta == 0 only the diagonal block is read: its other triangle must go back as it was.
        pan.in.push_back(read_c ? pan.out : Rect{at(p.c, c0, c0, p.ldc, es), p.ldc, ws, ws});
        BlasProblem d = p;  // the diagonal block
        d.n = d.m = ws;
        d.a = rows_of(p.a, p.lda, c0);
        if (two) d.b = rows_of(p.b, p.ldb, c0);
        d.c = const_cast<unsigned char*>(at(p.c, c0, c0, p.ldc, es));
        pan.calls.push_back(d);
        if (rest > 0) {
          BlasProblem g = p;  // C_rest := alpha op(A)_rest op(B)_panel^T + beta C_rest
          g.family = Family::gemm;
          g.m = rest;
          g.n = ws;
          g.ta = t_first;
          g.tb = t_other;
          g.lda = p.lda;
          g.ldb = two ? p.ldb : p.lda;
          g.a = rows_of(p.a, p.lda, r0);
          g.b = rows_of(two ? p.b : p.a, two ? p.ldb : p.lda, c0);
          g.c = const_cast<unsigned char*>(at(p.c, r0, c0, p.ldc, es));
          pan.calls.push_back(g);
          if (two) {  // + alpha' op(B)_rest op(A)_panel^T, alpha' = conj(alpha) for her2k
            BlasProblem h = g;
            h.a = rows_of(p.b, p.ldb, r0);
            h.lda = p.ldb;
            h.b = rows_of(p.a, p.lda, c0);
            h.ldb = p.lda;
            if (herm) h.alpha.im = -p.alpha.im;
            h.beta = Scalar{1, 0};
            pan.calls.push_back(h);
          }
        }
        panels.push_back(std::move(pan));
      }
      break;
    }
    default: break;
  }
  return panels;
}

void resident_blocks(const BlasProblem& p, std::vector<Rect>* whole, std::vector<Rect>* chunks) {
  const size_t es = p.elem_size();
  const int arows = int(p.a_rows()), acols = int(p.a_cols());
  whole->push_back({p.a, p.lda, arows, acols});
  const bool triangle = !rank_update(p.family);
  const int chunk = std::max(64, panel_width(acols));
  for (int j0 = 0; j0 < acols; j0 += chunk) {
    const int wc = std::min(chunk, acols - j0);
    int r0 = 0, r1 = arows;
    if (triangle) {
      if (p.uplo == 'U') r1 = j0 + wc;
      else r0 = j0;
    }
    chunks->push_back({at(p.a, r0, j0, p.lda, es), p.lda, r1 - r0, wc});
  }
  if (p.family == Family::syr2k || p.family == Family::her2k) {
    const Rect b{p.b, p.ldb, int(p.b_rows()), int(p.b_cols())};
    whole->push_back(b);
    for (int j0 = 0; j0 < b.cols; j0 += chunk)
      chunks->push_back({at(p.b, 0, j0, p.ldb, es), p.ldb, b.rows, std::min(chunk, b.cols - j0)});
  }
}

double panel_cost(const Panel& pan) {
  double c = 0;
  for (const BlasProblem& q : pan.calls) c += q.macs();
  return c;
}

std::vector<std::vector<size_t>> deal_panels(const std::vector<Panel>& panels, size_t gpus) {
  std::vector<std::vector<size_t>> lists(std::max<size_t>(1, gpus));
  std::vector<size_t> order(panels.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::vector<double> cost(panels.size());
  for (size_t t = 0; t < panels.size(); ++t) cost[t] = panel_cost(panels[t]);
  std::stable_sort(order.begin(), order.end(), [&cost](size_t a, size_t b) { return cost[a] > cost[b]; });
  std::vector<double> load(lists.size(), 0);
  for (size_t t : order) {
    const size_t g = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    lists[g].push_back(t);
    load[g] += cost[t];
  }
  for (auto& l : lists) std::sort(l.begin(), l.end());
  return lists;
}

}  // namespace myblas
