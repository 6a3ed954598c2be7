/* Curvature and noise diagnostics at the base setting of paper A (sparse
   parametrization, L = 3, d = 5, N = 20, batch 1000, setting 1, theta at
   initialization): the dense Hessian, the top 10 eigenvalues by Lanczos
   checked against it, and one full gradient-noise measurement.
   Rows: `row <what> key=value ...`. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, before any libc header */
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "bench_common.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Process CPU time: on a shared machine the wall clock also counts the
   neighbours' work, the CPU time of this single-threaded run does not. */
static double bench_cpu(void) { return (double)clock() / CLOCKS_PER_SEC; }

#define TOPK 10

/* Largest relative error of the top k Lanczos values against the dense
   spectrum (ascending). */
static double rel_err(int n, const double *dense, const double *vals, int k) {
  double e = 0;
  int i;
  for (i = 0; i < k; ++i) {
    double want = dense[n - 1 - i], d = fabs(vals[i] - want) / fabs(want);
    if (d > e) e = d;
  }
  return e;
}

static void bench_lanczos(const la_model *m, const la_real *theta,
                          const la_batch *b, const double *ev) {
  static const double tols[] = {1e-2, 1e-3, 1e-4, 1e-6};
  int n = m->nparams, t, rep;
  size_t wb = la_hessian_eigs_work_bytes(m, TOPK, NULL);
  void *work = la_alloc(wb);
  for (t = 0; t < 4; ++t) {
    double vals[TOPK], best = 1e30;
    la_eig_out o;
    int st = 0;
    memset(&o, 0, sizeof o);
    o.values = vals;
    for (rep = 0; rep < 5; ++rep) {
      double t0 = bench_now(), dt;
      st = la_hessian_eigs(m, theta, b, TOPK, tols[t], NULL, &o, work, wb);
      dt = bench_now() - t0;
      if (dt < best) best = dt;
    }
    printf("row lanczos_top%d tol=%g status=%d hvps=%d restarts=%d "
           "time_ms=%.2f max_rel_err=%.2e\n",
           TOPK, tols[t], st, o.matvecs, o.restarts, 1e3 * best,
           rel_err(n, ev, vals, TOPK));
  }
  la_free(work);
}

static void bench_noise(const la_model *m, const la_real *theta,
                        const la_data *g) {
  la_grad_noise_config c;
  la_noise_stats st;
  la_rng rng;
  double *norms = (double *)malloc(sizeof(double) * 10000), tg = 0, t0, dt;
  double c0, cpu;
  size_t wb;
  void *work;
  int s;
  memset(&c, 0, sizeof c); /* the paper's sizes: 100,000 + 10,000 x 1000 */
  wb = la_grad_noise_work_bytes(m, &c);
  work = la_alloc(wb);
  la_rng_seed(&rng, 2024, 9);
  t0 = bench_now();
  c0 = bench_cpu();
  s = la_grad_noise(m, theta, g, &rng, &c, norms, &tg, work, wb);
  cpu = bench_cpu() - c0;
  dt = bench_now() - t0;
  la_noise_summary(10000, norms, NULL, &st, NULL, NULL, NULL, NULL, NULL, 0);
  printf("row grad_noise status=%d true_batch=100000 minibatch=1000 "
         "samples=10000 prompts=%d wall_s=%.2f cpu_s=%.2f us_per_prompt=%.3f\n",
         s, 10100000, dt, cpu, cpu / 10100000 * 1e6);
  printf("row grad_noise_stats true_grad_norm=%.4g mean=%.4g var=%.4g "
         "kurtosis=%.3f hill_alpha=%.2f+-%.2f\n",
         tg, st.mean, st.var, st.kurtosis, st.hill_alpha, st.hill_stderr);
  la_free(work);
  free(norms);
}

int main(int argc, char **argv) {
  la_model_config mc;
  la_model m;
  la_data_config dc;
  la_data g;
  la_batch b;
  la_rng rng;
  la_real *theta;
  double *h, *ev, best_h = 1e30, best_e = 1e30;
  int n, rep, st, quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  bench_header("diag", bench_fma_peak_gflops());
  memset(&mc, 0, sizeof mc);
  mc.d = 5; mc.n = 20; mc.layers = 3; mc.param = LA_PARAM_SPARSE;
  st = la_model_init(&m, &mc);
  if (!st) st = la_data_preset(&dc, LA_SETTING_1);
  if (!st) st = la_data_create(&g, &dc, 1);
  if (!st) st = la_batch_create(&b, 5, 20, 1000);
  if (st) { printf("setup failed: %s\n", la_status_str(st)); return 1; }
  n = m.nparams;
  theta = (la_real *)malloc(sizeof(la_real) * n);
  h = (double *)malloc(sizeof(double) * n * n);
  ev = (double *)malloc(sizeof(double) * n);
  la_rng_seed(&rng, 1, 1);
  la_model_init_params(&m, &rng, theta);
  la_data_sample(&g, &rng, &b);
  for (rep = 0; rep < 5; ++rep) {
    double t0 = bench_now(), t1, t2;
    la_hessian_dense(&m, theta, &b, h, NULL, 0);
    t1 = bench_now();
    la_sym_eig(n, h, ev, NULL, NULL, 0);
    t2 = bench_now();
    if (t1 - t0 < best_h) best_h = t1 - t0;
    if (t2 - t1 < best_e) best_e = t2 - t1;
  }
  printf("row dense_hessian params=%d batch=1000 hvps=%d time_ms=%.2f "
         "ms_per_hvp=%.3f eig_ms=%.2f lambda_max=%.6g lambda_min=%.6g\n",
         n, n, 1e3 * best_h, 1e3 * best_h / n, 1e3 * best_e, ev[n - 1], ev[0]);
  bench_lanczos(&m, theta, &b, ev);
  if (!quick) bench_noise(&m, theta, &g);
  free(theta); free(h); free(ev);
  la_batch_destroy(&b);
  la_data_destroy(&g);
  return 0;
}
