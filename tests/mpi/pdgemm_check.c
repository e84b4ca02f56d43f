/* ScaLAPACK over MPI with myblas as each rank's node-local BLAS (LD_PRELOAD; see run_pdgemm.sh):
 * PDGEMM C = A*B and PDGETRF of a diagonally dominant matrix (built a second time with
 * MYBLAS_SINGLE as psgemm_check: PSGEMM and PSGETRF, whose local products are sgemm_) on a process grid, N x N in NB x NB
 * blocks, each timed (MPI_Wtime around the call, between barriers; the best and the median of
 * `reps` after one warm-up) and checked:
 *   PDGEMM:  128 sampled elements of each rank's C against a double dot product of the generated
 *            A and B: |c_ij - want| <= 4 (N + 2) eps sum_l |a_il b_lj|
 *   PDGETRF: |A z - b|_inf <= 16 N eps |A|_inf |z|_inf                (z from PDGETRS)
 * with eps the precision's. Local updates reach the BLAS as dgemm_ (and dtrsm_, dgemv_, ...): with myblas preloaded, the
 * routines it exports run where its dispatch sends them, the others in the system BLAS.
 * Usage: pdgemm_check [N] [NB] [reps] [gemm|getrf|both]. Exit status 0 when every check passes. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MYBLAS_SINGLE
typedef float real;
#define P(name) ps##name
#define NAME "PS"
#define EPS 5.9604644775390625e-8
#else
typedef double real;
#define P(name) pd##name
#define NAME "PD"
#define EPS 1.1102230246251565e-16
#endif

void Cblacs_pinfo(int* me, int* np);
void Cblacs_get(int ctx, int what, int* val);
void Cblacs_gridinit(int* ctx, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int ctx, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int ctx);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ctx, const int* lld, int* info);
void P(gemm_)(const char* ta, const char* tb, const int* m, const int* n, const int* k, const real* alpha,
              const real* a, const int* ia, const int* ja, const int* desca, const real* b, const int* ib,
              const int* jb, const int* descb, const real* beta, real* c, const int* ic, const int* jc,
              const int* descc);
void P(gemv_)(const char* t, const int* m, const int* n, const real* alpha, const real* a, const int* ia,
              const int* ja, const int* desca, const real* x, const int* ix, const int* jx, const int* descx,
              const int* incx, const real* beta, real* y, const int* iy, const int* jy, const int* descy,
              const int* incy);
real P(lange_)(const char* norm, const int* m, const int* n, const real* a, const int* ia, const int* ja,
               const int* desca, real* work);
void P(getrf_)(const int* m, const int* n, real* a, const int* ia, const int* ja, const int* desca, int* ipiv,
               int* info);
void P(getrs_)(const char* t, const int* n, const int* nrhs, const real* a, const int* ia, const int* ja,
               const int* desca, const int* ipiv, real* b, const int* ib, const int* jb, const int* descb,
               int* info);

static int g_myrow, g_mycol, g_nprow, g_npcol, g_nb;

/* A value in [-1, 1] for global element (i, j) of matrix `which`, the same on every rank. */
static double value(int which, int64_t i, int64_t j) {
  uint64_t h = (uint64_t)which * 0x9E3779B97F4A7C15ull ^ (uint64_t)i * 0xBF58476D1CE4E5B9ull ^
               (uint64_t)j * 0x94D049BB133111EBull;
  h ^= h >> 31;
  h *= 0xD6E8FEB86659FD93ull;
  h ^= h >> 29;
  return ((double)(h >> 11) / 9007199254740992.0) * 2.0 - 1.0 + 1e-3; /* never exactly 0 */
}

/* Global index of local row/column l on grid coordinate p of np (block size nb, source 0). */
static int64_t global_of(int l, int p, int np, int nb) { return ((int64_t)(l / nb) * np + p) * nb + l % nb; }

/* Fills the local part (mloc x nloc, leading dimension lld) of global matrix `which`; `shift` is
 * added to the diagonal. */
static void fill(real* a, int mloc, int nloc, int lld, int which, double shift) {
  for (int jl = 0; jl < nloc; ++jl) {
    const int64_t j = global_of(jl, g_mycol, g_npcol, g_nb);
    for (int il = 0; il < mloc; ++il) {
      const int64_t i = global_of(il, g_myrow, g_nprow, g_nb);
      a[(size_t)jl * lld + il] = (real)(value(which, i, j) + (i == j ? shift : 0.0));
    }
  }
}

static int cmp_double(const void* x, const void* y) {
  const double a = *(const double*)x, b = *(const double*)y;
  return a < b ? -1 : a > b;
}

/* Max over ranks of |v|, for vector pieces held by some ranks. */
static double max_abs(const real* v, int len) {
  double m = 0;
  for (int i = 0; i < len; ++i) m = fmax(m, fabs(v[i]));
  double all = 0;
  MPI_Allreduce(&m, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 4096, nb = argc > 2 ? atoi(argv[2]) : 256, reps = argc > 3 ? atoi(argv[3]) : 3;
  const char* what = argc > 4 ? argv[4] : "both";
  if (n < 1 || nb < 1 || reps < 1) {
    fprintf(stderr, "usage: %s [N] [NB] [reps] [gemm|getrf|both]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int me = 0, np = 1;
  Cblacs_pinfo(&me, &np);
  int nprow = 1;
  for (int r = 1; r * r <= np; ++r)
    if (np % r == 0) nprow = r;
  const int npcol = np / nprow;
  int ctx = 0;
  Cblacs_get(-1, 0, &ctx);
  Cblacs_gridinit(&ctx, "Row", nprow, npcol);
  Cblacs_gridinfo(ctx, &g_nprow, &g_npcol, &g_myrow, &g_mycol);
  g_nb = nb;
  const int zero = 0, one = 1;
  const int mloc = numroc_(&n, &nb, &g_myrow, &zero, &g_nprow), nloc = numroc_(&n, &nb, &g_mycol, &zero, &g_npcol);
  const int lld = mloc > 1 ? mloc : 1;
  int desc[9], descv[9], info = 0;
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctx, &lld, &info);
  descinit_(descv, &n, &one, &nb, &one, &zero, &zero, &ctx, &lld, &info);
  const size_t elems = (size_t)lld * (size_t)(nloc > 0 ? nloc : 1);
  real* a = malloc(elems * sizeof(real));
  real* b = malloc(elems * sizeof(real));
  real* c = malloc(elems * sizeof(real));
  real* x = calloc((size_t)lld, sizeof(real));
  real* y = calloc((size_t)lld, sizeof(real));
  real* t = calloc((size_t)lld, sizeof(real));
  real* work = malloc((size_t)(mloc + nloc + 64) * sizeof(real));
  int* ipiv = malloc((size_t)(mloc + nb) * sizeof(int));
  double* times = malloc((size_t)reps * sizeof(double));
  if (!a || !b || !c || !x || !y || !t || !work || !ipiv || !times) {
    fprintf(stderr, "rank %d: out of memory\n", me);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const double eps = EPS;
  const real d1 = 1, d0 = 0, dm1 = -1;
  int failed = 0;
  if (me == 0)
    printf("grid %d x %d, N=%d NB=%d, local %d x %d on rank 0, reps=%d\n", g_nprow, g_npcol, n, nb, mloc, nloc, reps);

  if (!strcmp(what, "gemm") || !strcmp(what, "both")) {
    fill(a, mloc, nloc, lld, 1, 0.0);
    fill(b, mloc, nloc, lld, 2, 0.0);
    for (int r = -1; r < reps; ++r) { /* r = -1: warm-up */
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      P(gemm_)("N", "N", &n, &n, &n, &d1, a, &one, &one, desc, b, &one, &one, desc, &d0, c, &one, &one, desc);
      MPI_Barrier(MPI_COMM_WORLD);
      if (r >= 0) times[r] = MPI_Wtime() - t0;
    }
    qsort(times, (size_t)reps, sizeof(double), cmp_double);
    /* Sampled elements of each rank's C against a double dot product of the generated A and B
     * (any rank can form any element), bound 4 (n + 2) eps sum_l |a_il b_lj|. */
    double worst = 0;
    int bad = 0;
    uint64_t pick = 12345u + (uint64_t)me;
    for (int s = 0; s < 128 && mloc > 0 && nloc > 0; ++s) {
      pick = pick * 6364136223846793005ull + 1442695040888963407ull;
      const int il = (int)((pick >> 33) % (uint64_t)mloc), jl = (int)((pick >> 13) % (uint64_t)nloc);
      const int64_t i = global_of(il, g_myrow, g_nprow, nb), j = global_of(jl, g_mycol, g_npcol, nb);
      double want = 0, mag = 0;
      for (int64_t l = 0; l < n; ++l) {
        const double ail = (real)value(1, i, l), blj = (real)value(2, l, j);
        want += ail * blj;
        mag += fabs(ail * blj);
      }
      const double r = fabs((double)c[(size_t)jl * lld + il] - want) / (4.0 * (n + 2) * eps * mag);
      worst = fmax(worst, r);
      bad += !(r <= 1.0);
    }
    int bad_all = 0;
    double ratio = 0;
    MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&worst, &ratio, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const int ok = bad_all == 0;
    failed |= !ok;
    if (me == 0)
      printf(NAME "GEMM N=%d NB=%d: best %.1f ms, median %.1f ms, %.1f GFLOP/s (best); %d sampled elements per rank, "
             "worst error/bound %.3g: %s\n", n, nb, times[0] * 1e3, times[reps / 2] * 1e3,
             2.0 * n * (double)n * n / times[0] / 1e9, 128, ratio, ok ? "PASS" : "FAIL");
  }

  if (!strcmp(what, "getrf") || !strcmp(what, "both")) {
    for (int r = -1; r < reps; ++r) {
      fill(a, mloc, nloc, lld, 4, (double)n); /* diagonally dominant: no growth, any pivots */
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      P(getrf_)(&n, &n, a, &one, &one, desc, ipiv, &info);
      MPI_Barrier(MPI_COMM_WORLD);
      if (r >= 0) times[r] = MPI_Wtime() - t0;
      if (info != 0) break;
    }
    qsort(times, (size_t)reps, sizeof(double), cmp_double);
    /* b = A x with x in [-1, 1]; solve A z = b; |A z - b| against |A| |z| */
    fill(c, mloc, nloc, lld, 4, (double)n); /* A again, unfactored */
    if (g_mycol == 0)
      for (int il = 0; il < mloc; ++il) x[il] = (real)value(5, global_of(il, g_myrow, g_nprow, nb), 0);
    P(gemv_)("N", &n, &n, &d1, c, &one, &one, desc, x, &one, &one, descv, &one, &d0, y, &one, &one, descv, &one);
    memcpy(t, y, (size_t)lld * sizeof(real)); /* t := b, then z */
    int info2 = 0;
    if (info == 0) P(getrs_)("N", &n, &one, a, &one, &one, desc, ipiv, t, &one, &one, descv, &info2);
    P(gemv_)("N", &n, &n, &d1, c, &one, &one, desc, t, &one, &one, descv, &one, &dm1, y, &one, &one, descv, &one);
    const double norm_a = P(lange_)("I", &n, &n, c, &one, &one, desc, work);
    const double resid = max_abs(y, g_mycol == 0 ? mloc : 0), zn = max_abs(t, g_mycol == 0 ? mloc : 0);
    const double ratio = resid / (16.0 * n * eps * norm_a * zn);
    const int ok = info == 0 && info2 == 0 && ratio <= 1.0;
    failed |= !ok;
    if (me == 0)
      printf(NAME "GETRF N=%d NB=%d: best %.1f ms, median %.1f ms, %.1f GFLOP/s (best); info %d/%d, residual/bound %.3g: %s\n",
             n, nb, times[0] * 1e3, times[reps / 2] * 1e3, 2.0 / 3.0 * n * (double)n * n / times[0] / 1e9, info, info2,
             ratio, ok ? "PASS" : "FAIL");
  }
  fflush(stdout);
  free(a), free(b), free(c), free(x), free(y), free(t), free(work), free(ipiv), free(times);
  Cblacs_gridexit(ctx);
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any ? 1 : 0;
}
