/* Paper B's comparative side on its own scale: one batch of 20,000 prompts
   of paper B's data (d = 5, n = 20, Sigma non-identity), the in-context
   baselines (k-step GD, preconditioned GD, least squares, ridge), their
   tuners and the Theorem 3 family's optimum, each timed against one
   gradient pass of the model (L = 3, the same prompts) measured in the same
   run. Everything here runs on one thread, so the times are the thread's
   CPU time (a busy machine stretches the wall clock, not these), best of
   several repetitions taken in turn. Usage: bench_baselines [prompts]
   [steps k]. */
#define _POSIX_C_SOURCE 200809L /* before any libc header: clock_gettime */
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "bench_common.h"

#include <stdlib.h>
#include <string.h>

#define REPS 3

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct bl_env {
  la_batch b;
  la_model m, pgd;
  la_real *theta, *grad;
  double sinv[25];
  int k;
} bl_env;

/* What is timed: a task number, run once. */
static int run_task(bl_env *e, int task, double *out) {
  la_gd_spec s;
  double eta[16], loss[16], lam, a[8];
  memset(&s, 0, sizeof s);
  s.steps = e->k;
  s.eta = 0.5;
  switch (task) {
  case 0:
    return la_model_grad(&e->m, e->theta, &e->b, out, e->grad, NULL, 0);
  case 1:
    return la_gd_eval(&e->b, &s, loss, NULL, NULL, 0) || !(*out = loss[0]);
  case 2:
    s.precond = e->sinv;
    return la_gd_eval(&e->b, &s, loss, NULL, NULL, 0) || !(*out = loss[0]);
  case 3:
    return la_ridge_eval(&e->b, 0, out, NULL, NULL, 0);
  case 4:
    return la_ridge_eval(&e->b, 0.1, out, NULL, NULL, 0);
  case 5:
    return la_gd_tune(&e->b, e->k, NULL, NULL, eta, loss, NULL, 0) ||
           !(*out = loss[e->k - 1]);
  case 6:
    return la_gd_tune(&e->b, e->k, e->sinv, NULL, eta, loss, NULL, 0) ||
           !(*out = loss[e->k - 1]);
  case 7:
    return la_ridge_tune(&e->b, NULL, &lam, out, NULL, 0);
  default:
    return la_pgd_optimum(&e->pgd, &e->b, e->sinv, a, out, NULL, 0);
  }
}

int main(int argc, char **argv) {
  static const char *names[] = {
      "model gradient, L = 3 (the unit)", "k-step GD, eta fixed",
      "k-step GD preconditioned by Sigma^-1", "least squares (min-norm)",
      "ridge, lambda fixed", "GD tuner, k = 1..steps",
      "preconditioned GD tuner, k = 1..steps", "ridge tuner",
      "Theorem 3 optimum, L = 3 (Newton)"};
  int count = argc > 1 ? atoi(argv[1]) : 20000, task, r, i;
  bl_env e;
  la_model_config mc;
  la_data_config dc;
  la_data g;
  la_rng rng;
  double peak = bench_fma_peak_gflops(), best[9], val[9];
  memset(&e, 0, sizeof e);
  e.k = argc > 2 ? atoi(argv[2]) : 4;
  if (count <= 0 || e.k < 1 || e.k > 16) {
    fprintf(stderr, "usage: bench_baselines [prompts] [steps 1..16]\n");
    return 2;
  }
  bench_header("in-context baselines (paper B)", peak);
  memset(&mc, 0, sizeof mc);
  mc.d = 5;
  mc.n = 20;
  mc.layers = 3;
  la_data_preset(&dc, LA_SETTING_PAPER_B);
  if (la_model_init(&e.m, &mc) || (mc.param = LA_PARAM_PGD, 0) ||
      la_model_init(&e.pgd, &mc) || la_data_create(&g, &dc, 1) ||
      la_batch_create(&e.b, 5, 20, count) || la_data_sigma_inv(&g, e.sinv)) {
    fprintf(stderr, "setup failed\n");
    return 1;
  }
  la_rng_seed(&rng, 1, 0);
  la_data_sample(&g, &rng, &e.b);
  e.theta = (la_real *)malloc(sizeof(la_real) * (size_t)e.m.nparams * 2);
  e.grad = e.theta + e.m.nparams;
  la_rng_seed(&rng, 1, 1);
  la_model_init_params(&e.m, &rng, e.theta);
  for (i = 0; i < 9; ++i) best[i] = 1e30;
  /* the tasks in turn, REPS rounds: a busy neighbour slows all alike */
  for (r = 0; r < REPS; ++r)
    for (task = 0; task < 9; ++task) {
      double t0 = cpu_now(), dt;
      if (run_task(&e, task, &val[task]) != 0) {
        fprintf(stderr, "%s failed\n", names[task]);
        return 1;
      }
      dt = cpu_now() - t0;
      if (dt < best[task]) best[task] = dt;
    }
  printf("# %d prompts, k = %d steps, best of %d, thread CPU time\n", count, e.k,
         REPS);
  printf("%-42s %10s %10s %12s\n", "task", "ms", "x grad", "loss");
  for (task = 0; task < 9; ++task)
    printf("%-42s %10.2f %10.2f %12.6f\n", names[task], 1e3 * best[task],
           best[task] / best[0], val[task]);
  free(e.theta);
  la_batch_destroy(&e.b);
  la_data_destroy(&g);
  return 0;
}
