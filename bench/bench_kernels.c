/* The kernel layer's speed: batched panel products at the shapes the model
   uses and the plain-vector operations, for the compiled SIMD kernel table
   and its scalar twin, against the core's measured FMA peak.

   One row per kernel, backend and shape:
     row OP BACKEND SHAPE BATCH us_per_call GFLOP/s %peak
   ZZt multiplies each Z by its own transpose (one matrix read twice, as in
   Z M Z^T); GYt is the same shape from two different matrices. Useful
   flops only: 2*m*n*k per prompt for a product, 2n for dot, axpy and nrm2,
   n for scale. Each figure is the best of several repetitions, each
   long enough (about 1 ms) to dwarf the clock's resolution.
   `bench_kernels quick` runs shorter repetitions (a smoke test). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, before any header */
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "bench_common.h"

#include <stdlib.h>
#include <string.h>

typedef struct bench_ctx {
  double peak;     /* GFLOP/s */
  double target_s; /* length of one timed repetition */
  int reps;
} bench_ctx;

/* One product case. The shapes are op(A) m x k, op(B) k x n; a shared
   operand is one broadcast panel (stride 0); c_summed reduces the batch
   into one C panel. */
typedef struct bench_gemm {
  const char *name;
  unsigned flags;
  int m, n, k, a_shared, b_shared, c_summed;
  int same;  /* B is A (Z Z^T) */
  int check; /* 1: judged against 60% of peak in float on AVX2 */
} bench_gemm;

static void fill(la_real *x, size_t n, unsigned seed) {
  size_t i;
  for (i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    x[i] = (la_real)((double)(seed >> 9) / 8388608.0 - 1.0);
  }
}

/* Best seconds per call of run(arg) over ctx->reps repetitions. */
static double best_time(const bench_ctx *ctx, void (*run)(void *), void *arg) {
  double best = 1e30, t0, dt;
  long iters = 1, i;
  int r;
  /* calibrate: double the iterations until one repetition lasts target_s */
  for (;;) {
    t0 = bench_now();
    for (i = 0; i < iters; ++i) run(arg);
    dt = bench_now() - t0;
    if (dt >= ctx->target_s || iters > (1L << 30)) break;
    iters *= 2;
  }
  for (r = 0; r < ctx->reps; ++r) {
    t0 = bench_now();
    for (i = 0; i < iters; ++i) run(arg);
    dt = (bench_now() - t0) / (double)iters;
    if (dt < best) best = dt;
  }
  return best;
}

/* Rows are kept until the end: the peak is measured before, among and after
   them (and from short runs) and the highest figure is the reference, so a neighbour that slowed one
   peak measurement does not inflate every share. */
typedef struct bench_row {
  char op[16], backend[16], shape[40];
  int batch;
  double sec, flops;
} bench_row;
#define BENCH_MAX_ROWS 64
static bench_row rows[BENCH_MAX_ROWS];
static int nrows;

static void add_row(const char *op, const char *backend, const char *shape,
                    int batch, double sec, double flops) {
  bench_row *r;
  if (nrows == BENCH_MAX_ROWS) return;
  r = &rows[nrows++];
  sprintf(r->op, "%.15s", op);
  sprintf(r->backend, "%.15s", backend);
  sprintf(r->shape, "%.39s", shape);
  r->batch = batch;
  r->sec = sec;
  r->flops = flops;
}

static void print_rows(double peak) {
  int i;
  for (i = 0; i < nrows; ++i) {
    double gf = rows[i].flops / rows[i].sec / 1e9;
    printf("row %-12s %-6s %-26s %6d %11.3f %8.2f %6.1f%%\n", rows[i].op,
           rows[i].backend, rows[i].shape, rows[i].batch, rows[i].sec * 1e6, gf,
           100.0 * gf / peak);
  }
}

/* The same FMA peak from many short runs (about 2 ms each): on a shared
   machine the longer runs of bench_fma_peak_gflops rarely find the core
   undisturbed, and a low peak would inflate every share. Ten independent
   chains of the kernels' own vector FMA cover latency times ports. */
static double short_peak_gflops(void) {
#if LA__SIMD != LINATTN_SCALAR
  double best = 0;
  int rep;
  for (rep = 0; rep < 300; ++rep) {
    la__vec a[10], b = la__vset1((la_real)0.999999), c = la__vset1((la_real)1e-7);
    la_real out[LA_W];
    long i, iters = 60000;
    double t0, dt;
    int j;
    for (j = 0; j < 10; ++j) a[j] = la__vset1(1);
    t0 = bench_now();
    for (i = 0; i < iters; ++i) {
      a[0] = la__vfma(c, a[0], b); a[1] = la__vfma(c, a[1], b);
      a[2] = la__vfma(c, a[2], b); a[3] = la__vfma(c, a[3], b);
      a[4] = la__vfma(c, a[4], b); a[5] = la__vfma(c, a[5], b);
      a[6] = la__vfma(c, a[6], b); a[7] = la__vfma(c, a[7], b);
      a[8] = la__vfma(c, a[8], b); a[9] = la__vfma(c, a[9], b);
    }
    dt = bench_now() - t0;
    for (j = 1; j < 10; ++j) a[0] = la__vfma(a[0], a[j], b);
    la__vstoreu(out, a[0]);
    if (out[0] == (la_real)12345.678) printf("%g", (double)out[0]);
    if (10.0 * iters * LA_W * 2 / dt / 1e9 > best)
      best = 10.0 * iters * LA_W * 2 / dt / 1e9;
  }
  return best;
#else
  return 0;
#endif
}

typedef struct gemm_run {
  const la_kernels *kern;
  const bench_gemm *g;
  la_real *A, *B, *C;
  size_t as, bs, cs;
  int np;
} gemm_run;

static void run_gemm(void *arg) {
  gemm_run *r = (gemm_run *)arg;
  r->kern->bgemm(r->g->flags, r->g->m, r->g->n, r->g->k, (la_real)1, r->A,
                 r->as, r->B, r->bs, r->C, r->cs, r->np);
}

/* Returns the GFLOP/s of the SIMD backend. */
static double bench_one_gemm(const bench_ctx *ctx, const bench_gemm *g,
                             int batch) {
  const la_kernels *kerns[2];
  gemm_run r;
  size_t sa = (size_t)g->m * g->k * LA_W, sb = (size_t)g->k * g->n * LA_W;
  size_t sc = (size_t)g->m * g->n * LA_W;
  int np = la_panels(batch), ki, nk = 0;
  double share = 0;
  char shape[64];
  kerns[nk++] = la_kernels_best();
  if (la_kernels_best() != la_kernels_scalar()) kerns[nk++] = la_kernels_scalar();
  r.g = g;
  r.np = np;
  r.as = g->a_shared ? 0 : sa;
  r.bs = g->b_shared ? 0 : sb;
  r.cs = g->c_summed ? 0 : sc;
  r.A = (la_real *)la_alloc(sizeof(la_real) * (g->a_shared ? sa : sa * np));
  r.B = (la_real *)la_alloc(sizeof(la_real) * (g->b_shared ? sb : sb * np));
  r.C = (la_real *)la_alloc(sizeof(la_real) * (g->c_summed ? sc : sc * np));
  if (!r.A || !r.B || !r.C) {
    printf("# %s: out of memory\n", g->name);
    exit(1);
  }
  fill(r.A, g->a_shared ? sa : sa * np, 1);
  fill(r.B, g->b_shared ? sb : sb * np, 2);
  if (g->same) { /* Z Z^T: one matrix read twice, as the model does */
    la_free(r.B);
    r.B = r.A;
  }
  memset(r.C, 0, sizeof(la_real) * (g->c_summed ? sc : sc * np));
  sprintf(shape, "%dx%d%s*%dx%d%s%s%s", g->m, g->k,
          (g->flags & LA_TRANS_A) ? "T" : "", g->k, g->n,
          (g->flags & LA_TRANS_B) ? "T" : "", g->a_shared ? ",Ashared" : "",
          g->b_shared ? ",Bshared" : (g->c_summed ? ",Csum" : ""));
  for (ki = 0; ki < nk; ++ki) {
    double sec, flops = 2.0 * g->m * g->n * g->k * batch;
    r.kern = kerns[ki];
    sec = best_time(ctx, run_gemm, &r);
    add_row(g->name, kerns[ki]->name, shape, batch, sec, flops);
    if (ki == 0) share = flops / sec / 1e9; /* GFLOP/s until the peak is known */
  }
  la_free(r.A);
  if (!g->same) la_free(r.B);
  la_free(r.C);
  return share;
}

typedef struct vec_run {
  const la_kernels *kern;
  int op, n;
  la_real *x, *y;
  volatile double sink;
} vec_run;

static void run_vec(void *arg) {
  vec_run *r = (vec_run *)arg;
  switch (r->op) {
  case 0: r->sink = r->kern->dot(r->n, r->x, r->y); break;
  case 1: r->kern->axpy(r->n, (la_real)1e-3, r->x, r->y); break;
  case 2: r->sink = r->kern->nrm2(r->n, r->x); break;
  default:
    /* alternate factors so that repeated scaling stays finite */
    r->kern->scale(r->n, (la_real)0.5, r->y);
    r->kern->scale(r->n, (la_real)2, r->y);
    break;
  }
}

static void bench_vec(const bench_ctx *ctx, int n) {
  static const char *names[] = {"dot", "axpy", "nrm2", "scale"};
  const la_kernels *kerns[2];
  vec_run r;
  int op, ki, nk = 0;
  char shape[32];
  kerns[nk++] = la_kernels_best();
  if (la_kernels_best() != la_kernels_scalar()) kerns[nk++] = la_kernels_scalar();
  /* odd offsets: plain vectors need not be aligned */
  r.x = (la_real *)malloc(sizeof(la_real) * ((size_t)n + 3));
  r.y = (la_real *)malloc(sizeof(la_real) * ((size_t)n + 3));
  if (!r.x || !r.y) exit(1);
  fill(r.x, (size_t)n + 3, 3);
  fill(r.y, (size_t)n + 3, 4);
  r.x += 1;
  r.y += 3;
  r.n = n;
  sprintf(shape, "n=%d", n);
  for (op = 0; op < 4; ++op)
    for (ki = 0; ki < nk; ++ki) {
      double sec, flops = op == 3 ? n : 2.0 * n;
      r.kern = kerns[ki];
      r.op = op;
      sec = best_time(ctx, run_vec, &r);
      if (op == 3) sec /= 2; /* two scalings per run */
      add_row(names[op], kerns[ki]->name, shape, 1, sec, flops);
    }
  free(r.x - 1);
  free(r.y - 3);
}

int main(int argc, char **argv) {
  /* d+1 = 6, N+1 = 21 (paper A's base setting), then d = 20, N = 60 */
  static const bench_gemm gemms[] = {
      {"PZ", 0, 6, 21, 6, 1, 0, 0, 0, 1},
      {"ZZt", LA_TRANS_B, 6, 6, 21, 0, 0, 0, 1, 0},
      {"ZZt-sum", LA_TRANS_B, 6, 6, 21, 0, 0, 1, 1, 1},
      {"GYt-sum", LA_TRANS_B, 6, 6, 21, 0, 0, 1, 0, 0},
      {"AtB", LA_TRANS_A, 6, 21, 6, 0, 0, 0, 0, 0},
      {"AtB-sum", LA_TRANS_A, 6, 6, 21, 0, 0, 1, 0, 0},
      {"PZ", 0, 21, 61, 21, 1, 0, 0, 0, 0},
      {"ZZt", LA_TRANS_B, 21, 21, 61, 0, 0, 0, 1, 0},
      {"ZZt-sum", LA_TRANS_B, 21, 21, 61, 0, 0, 1, 1, 0},
      {"GYt-sum", LA_TRANS_B, 21, 21, 61, 0, 0, 1, 0, 0},
      {"AtB", LA_TRANS_A, 21, 61, 21, 0, 0, 0, 0, 0},
  };
  bench_ctx ctx;
  int i, quick = argc > 1 && strcmp(argv[1], "quick") == 0;
  int judged = sizeof(la_real) == 4 && la_backend() == LINATTN_AVX2;
  double shares[sizeof gemms / sizeof gemms[0]];
  double peak0, peak1, peak2, peak3;
  /* many short repetitions: on a shared machine the best of them is the
     one that ran undisturbed */
  ctx.target_s = quick ? 0.0005 : 0.001;
  ctx.reps = quick ? 2 : 101;
  peak0 = bench_fma_peak_gflops();
  for (i = 0; i < (int)(sizeof gemms / sizeof gemms[0]); ++i)
    shares[i] = bench_one_gemm(&ctx, &gemms[i], 1000);
  peak1 = bench_fma_peak_gflops();
  bench_vec(&ctx, 150);
  bench_vec(&ctx, 100000);
  peak2 = bench_fma_peak_gflops();
  peak3 = short_peak_gflops();
  ctx.peak = peak0 > peak1 ? peak0 : peak1;
  ctx.peak = ctx.peak > peak2 ? ctx.peak : peak2;
  ctx.peak = ctx.peak > peak3 ? ctx.peak : peak3;
  bench_header("kernels", ctx.peak);
  printf("# peak measured before, among and after the rows: %.1f, %.1f, %.1f "
         "GFLOP/s; from short runs %.1f; the highest is the reference\n",
         peak0, peak1, peak2, peak3);
  printf("# columns: row op backend shape batch us_per_call GFLOP/s "
         "%%peak\n");
  print_rows(ctx.peak);
  for (i = 0; i < (int)(sizeof gemms / sizeof gemms[0]); ++i)
    if (gemms[i].check) {
      double share = shares[i] / ctx.peak;
      printf("# target %s %dx%dx%d: %.1f%% of peak, %s\n", gemms[i].name,
             gemms[i].m, gemms[i].n, gemms[i].k, 100 * share,
             !judged ? "not judged (float on AVX2 only)"
                     : share >= 0.6 ? "PASS (>= 60%)" : "FAIL (< 60%)");
    }
  return 0;
}
