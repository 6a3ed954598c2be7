/* Model benchmark: time of loss+gradient and of one Hessian-vector product
   on a batch, the useful flops they perform, and their share of the
   measured FMA peak of one core.

   USEFUL FLOPS (linear attention, per prompt; D = d+1, T = n+1, one FMA = 2
   flops), the products of the associated algorithm S = K K^T (K = the n key
   columns), C = P S Q, Z += C Z / n, without the zeros of the parametrization:
     forward, hidden layer    D^2 n + 2 D^3 + D^2 T
     forward, last layer      D^2 n + 2 D^2 + D      (one entry of Z_L needed)
     gradient, hidden layer   D^2 T + 4 D^3            (dC, dP, dQ)
                              + D^3 + D^2 T + D^2 n    (dZ, not for layer 0)
     gradient, last layer     4 D^2 + D^2 n
   loss+gradient = forward + gradient. A Hessian-vector product is counted as
   twice loss+gradient (every product of forward and backward has a tangent
   twin, except where the input does not depend on theta: layer 0 has
   no tangent of Z). These are lower bounds on the work the code does (the
   sparse forms are counted as dense: their zeros are not skipped).

   Rows: one per case, `key=value` fields, so they can be grepped. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, before any header */
#include <stdlib.h>
#include <string.h>
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "bench_common.h"

static double fwd_flops(int L, int d, int n) {
  double D = d + 1, T = n + 1;
  return 2 * ((L - 1) * (D * D * n + 2 * D * D * D + D * D * T) +
              (D * D * n + 2 * D * D + D));
}
static double grad_flops(int L, int d, int n) {
  double D = d + 1, T = n + 1, s = 4 * D * D + D * D * n;
  int l;
  for (l = 0; l < L - 1; ++l) {
    s += D * D * T + 4 * D * D * D;
    if (l > 0) s += D * D * D + D * D * T + D * D * n;
  }
  return fwd_flops(L, d, n) + 2 * s;
}
static double hvp_flops(int L, int d, int n) {
  double D = d + 1, T = n + 1;
  /* layer 0: Z has no tangent, so its tangent products are not doubled */
  return 2 * grad_flops(L, d, n) -
         2 * (D * D * n + D * D * T + D * D * n + D * D * T);
}

/* Best time per call over several groups of calls. */
typedef int (*bench_fn)(void *ctx);
static double best_time(bench_fn f, void *ctx) {
  double best = 1e30, t0, dt;
  int g, k, reps = 1;
  /* calibrate: a group lasts at least 4 ms; the best of 40 groups, so a
     busy neighbour on a shared core does not set the figure */
  for (;;) {
    t0 = bench_now();
    for (k = 0; k < reps; ++k) f(ctx);
    dt = bench_now() - t0;
    if (dt > 0.004) break;
    reps *= 2;
  }
  for (g = 0; g < 40; ++g) {
    t0 = bench_now();
    for (k = 0; k < reps; ++k) f(ctx);
    dt = (bench_now() - t0) / reps;
    if (dt < best) best = dt;
  }
  return best;
}

typedef struct bctx {
  la_model m;
  la_batch b;
  la_real *th, *v, *g, *hv;
  void *work;
  size_t bytes;
} bctx;

static int run_grad(void *p) {
  bctx *c = (bctx *)p;
  double loss;
  return la_model_grad(&c->m, c->th, &c->b, &loss, c->g, c->work, c->bytes);
}
static int run_hvp(void *p) {
  bctx *c = (bctx *)p;
  return la_model_hvp(&c->m, c->th, &c->b, c->v, NULL, NULL, c->hv, c->work,
                      c->bytes);
}

static void one_case(int param, int L, int d, int n, int count, int scalar,
                     double peak) {
  bctx c;
  la_model_config mc;
  la_rng rng;
  int D = d + 1, T = n + 1, np = la_panels(count), i, st;
  size_t nz = (size_t)count * D * T;
  la_real *plain = (la_real *)malloc(sizeof(la_real) * (nz + count));
  double tg, th, fg = grad_flops(L, d, n) * count,
               fh = hvp_flops(L, d, n) * count;
  memset(&mc, 0, sizeof mc);
  mc.d = d; mc.n = n; mc.layers = L; mc.param = param;
  mc.kernels = scalar ? la_kernels_scalar() : NULL;
  if (la_model_init(&c.m, &mc)) { printf("init failed\n"); exit(1); }
  la_rng_seed(&rng, 1, 0);
  for (i = 0; i < (int)nz + count; ++i) plain[i] = (la_real)la_rng_normal(&rng);
  for (i = 0; i < count; ++i) plain[(size_t)i * D * T + D * T - 1] = 0;
  c.b.d = d; c.b.n = n; c.b.count = count;
  c.b.z = (la_real *)la_alloc(sizeof(la_real) * (size_t)np * D * T * LA_W);
  c.b.y = (la_real *)la_alloc(sizeof(la_real) * (size_t)np * LA_W);
  la_pack(count, D, T, plain, c.b.z);
  la_pack(count, 1, 1, plain + nz, c.b.y);
  c.th = (la_real *)malloc(sizeof(la_real) * c.m.nparams * 4);
  c.v = c.th + c.m.nparams; c.g = c.v + c.m.nparams; c.hv = c.g + c.m.nparams;
  la_model_init_params(&c.m, &rng, c.th);
  for (i = 0; i < c.m.nparams; ++i) {
    c.th[i] *= 4; /* away from the tiny initialization: a typical point */
    c.v[i] = (la_real)la_rng_normal(&rng);
  }
  c.bytes = la_model_work_bytes(&c.m);
  c.work = malloc(c.bytes);
  st = run_grad(&c) | run_hvp(&c);
  if (st) { printf("status %d\n", st); exit(1); }
  tg = best_time(run_grad, &c);
  th = best_time(run_hvp, &c);
  printf("param=%s L=%d d=%d n=%d batch=%d kernels=%s "
         "grad_ms=%.3f grad_gflops=%.1f grad_peak=%.0f%% "
         "hvp_ms=%.3f hvp_gflops=%.1f hvp_peak=%.0f%% hvp/grad=%.2f\n",
         param == LA_PARAM_DENSE ? "dense" : param == LA_PARAM_SPARSE ? "sparse" : "pgd",
         L, d, n, count, scalar ? "scalar" : la_backend_name(), tg * 1e3,
         fg / tg * 1e-9, 100 * fg / tg * 1e-9 / peak, th * 1e3,
         fh / th * 1e-9, 100 * fh / th * 1e-9 / peak, th / tg);
  fflush(stdout);
  free(c.work); free(c.th); free(plain);
  la_free(c.b.z); la_free(c.b.y);
}

int main(int argc, char **argv) {
  double peak = bench_fma_peak_gflops();
  int quick = argc > 1 && !strcmp(argv[1], "quick"), L;
  bench_header("model: loss+gradient and Hessian-vector product, one thread",
               peak);
  one_case(LA_PARAM_SPARSE, 3, 5, 20, 1000, 0, peak);
  one_case(LA_PARAM_DENSE, 3, 5, 20, 1000, 0, peak);
  one_case(LA_PARAM_SPARSE, 3, 5, 20, 1000, 1, peak);
  if (quick) return 0;
  for (L = 1; L <= 8; L *= 2)
    if (L != 3) one_case(LA_PARAM_DENSE, L, 5, 20, 1000, 0, peak);
  one_case(LA_PARAM_DENSE, 3, 20, 60, 1000, 0, peak);
  one_case(LA_PARAM_DENSE, 8, 20, 60, 1000, 0, peak);
  one_case(LA_PARAM_DENSE, 3, 20, 60, 1000, 1, peak);
  return 0;
}
