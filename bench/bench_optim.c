/* The cost of the optimizer: one optimizer step plus global-norm clipping,
   as a share of one whole training step at paper A's base setting (sparse
   parametrization, L = 3, d = 5, n = 20, 1000 fresh prompts a step: data,
   forward, backward, clip, update), which should stay at or below 5%; the
   whole driver without model and data (driver_%); and the time of a
   training step with each optimizer, and both over Adam's (opt_x_adam,
   step_x_adam: the target is a training step at most 1.5 times Adam's).
   Sophia's training step counts its estimate of the Hessian's diagonal
   (timed over 10 steps: one estimate in each at k = 10); its optimizer
   alone is the update without the estimate, and it has no driver time
   (its estimate needs the model). Its rows at k = 10 take one estimate
   in ten timed steps, where a busy moment weighs much; so Sophia is also
   timed with an estimate every step (k = 1) and with none (k = 2^20, the
   first step's alone), and the table after the first composes them: the
   step at k, (t_1 + (k - 1) t_none) / k, over Adam's, and the least k
   within 1.5 times Adam's step. Best of several repetitions, all measured
   in the same run. */
#define _POSIX_C_SOURCE 200809L /* before any libc header: clock_gettime */
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "bench_common.h"

#include <stdlib.h>
#include <string.h>

#define ROUNDS 8

typedef struct opt_case {
  const char *name;
  const la_optimizer *opt;
  const void *cfg;
} opt_case;

/* Best time of `reps` runs of `iters` optimizer steps with clipping on a
   vector of n parameters (the training step's own gradient length). */
static double time_opt(const opt_case *c, int n, int iters, int reps) {
  size_t len = 0;
  double *state, best = 1e30;
  la_real *theta, *g, *u;
  int r, i, k;
  la_optim_state_len(c->opt, c->cfg, n, &len);
  state = (double *)malloc(sizeof(double) * (len + 1));
  theta = (la_real *)malloc(sizeof(la_real) * (size_t)n * 3);
  g = theta + n;
  u = g + n;
  for (i = 0; i < n; ++i) theta[i] = (la_real)(0.01 * (i % 7) - 0.03);
  la_optim_init(c->opt, c->cfg, n, state, len);
  for (r = 0; r < reps; ++r) {
    double t0 = bench_now(), dt;
    for (k = 0; k < iters; ++k) {
      /* a fresh gradient each time, as clipping scales it in place */
      for (i = 0; i < n; ++i) g[i] = (la_real)(((i * 7 + k) % 13) - 6);
      la_clip_norm(n, g, 1.0, NULL);
      la_optim_step(c->opt, c->cfg, n, state, len, 1.0, g, theta, u);
    }
    dt = (bench_now() - t0) / iters;
    if (dt < best) best = dt;
  }
  free(state);
  free(theta);
  return best;
}

/* The same loop without the optimizer: the cost of writing the gradient,
   subtracted from time_opt. */
static double time_fill(int n, int iters, int reps) {
  la_real *g = (la_real *)malloc(sizeof(la_real) * (size_t)n);
  double best = 1e30, sink = 0;
  int r, i, k;
  for (r = 0; r < reps; ++r) {
    double t0 = bench_now(), dt;
    for (k = 0; k < iters; ++k) {
      for (i = 0; i < n; ++i) g[i] = (la_real)(((i * 7 + k) % 13) - 6);
      sink += g[k % n];
      __asm__ volatile("" : : "r"(g) : "memory");
    }
    dt = (bench_now() - t0) / iters;
    if (dt < best) best = dt;
  }
  if (sink == 12345.5) printf("%g", sink);
  free(g);
  return best;
}

/* A training step without the model and the data: the gradient of a
   fixed quadratic from the objective hook, so what is timed is the driver
   itself (clipping, the optimizer, state backup, finiteness checks, the
   record); descent on it converges, whatever the optimizer's step size
   (Adafactor's grows with theta). */
static int fixed_grad(void *ctx, const la_real *theta, const la_batch *b,
                      double *loss, la_real *grad) {
  int i, n = *(const int *)ctx;
  (void)b;
  *loss = 1;
  for (i = 0; grad && i < n; ++i) grad[i] = theta[i] - (la_real)(((i * 7) % 13) - 6);
  return LA_OK;
}

static int make_trainer(la_trainer *tr, const la_model *m, const la_data *data,
                        const opt_case *c, int *n_driver) {
  la_train_config tc;
  memset(&tc, 0, sizeof tc);
  tc.model = m;
  tc.data = data;
  tc.optimizer = c->opt;
  tc.optimizer_config = c->cfg;
  tc.clip_norm = 1;
  tc.batch = 1000;
  tc.eval_every = -1; /* the paper evaluates every 50 steps: not timed here */
  tc.seed = 3;
  if (n_driver) {
    tc.model = NULL;
    tc.data = NULL;
    tc.objective = fixed_grad;
    tc.objective_ctx = n_driver;
    tc.nparams = *n_driver;
  }
  return la_trainer_create(tr, &tc);
}

/* Per-step time of `steps` steps, kept if better than *best. */
static int time_steps(la_trainer *tr, long steps, double *best) {
  double t0 = bench_now(), dt;
  int st = la_trainer_run(tr, steps);
  dt = (bench_now() - t0) / (double)steps;
  if (dt < *best) *best = dt;
  return st;
}

int main(void) {
  la_model_config mc;
  la_data_config dc;
  la_model m;
  la_data data;
  /* designated: la_optim_config is one struct for every optimizer */
  la_optim_config sgd = {.lr = 0}, hb = {.momentum = 0.9},
                  nag = {.momentum = 0.9, .nesterov = 1};
  la_optim_config adam = {.lr = 0.02, .beta1 = 0.9, .beta2 = 0.9, .eps = 1e-8};
  la_optim_config adamw = {.lr = 0.02, .beta1 = 0.9, .beta2 = 0.9, .eps = 1e-8,
                           .weight_decay = 0.01, .decoupled = 1};
  la_optim_config sign = {.lr = 0.001, .momentum = 0.9};
  la_optim_config nsgd = {.lr = 0.01, .momentum = 0.9};
  la_optim_config ada = {.lr = 0.01};
  la_optim_config rms = {.lr = 0.001};
  /* the matrix optimizers see the model's blocks (the trainer binds its
     model itself; the optimizer timed alone needs it here) */
  la_optim_config lion = {.lr = 1e-4}, sfadamw = {.lr = 0.0025},
                  muon = {.model = &m}, adafactor = {.model = &m},
                  /* their preconditioners every 10 steps, the reference
                     period, counted in every timed step */
                  shampoo = {.model = &m, .precond_every = 10},
                  soap = {.model = &m, .precond_every = 10};
  /* sophia: each estimator every 10 steps (the paper's k) and every
     step, and no estimate after the first */
  la_optim_config so_h = {.precond_every = 10, .hessian = LA_HESS_HUTCHINSON},
                  so_g = {.precond_every = 10, .hessian = LA_HESS_GNB},
                  so_e = {.precond_every = 10, .hessian = LA_HESS_EXACT},
                  so_h1 = {.precond_every = 1, .hessian = LA_HESS_HUTCHINSON},
                  so_g1 = {.precond_every = 1, .hessian = LA_HESS_GNB},
                  so_e1 = {.precond_every = 1, .hessian = LA_HESS_EXACT},
                  so_none = {.precond_every = 1 << 20};
  opt_case cases[] = {
      {"sgd", NULL, &sgd},         {"sgd-momentum", NULL, &hb},
      {"sgd-nesterov", NULL, &nag}, {"adam", NULL, &adam},
      {"adamw", NULL, &adamw},     {"sign-momentum", NULL, &sign},
      {"nsgd-momentum", NULL, &nsgd}, {"adagrad", NULL, &ada},
      {"rmsprop", NULL, &rms},     {"lion", NULL, &lion},
      {"sfadamw", NULL, &sfadamw}, {"muon", NULL, &muon},
      {"adafactor", NULL, &adafactor}, {"shampoo", NULL, &shampoo},
      {"soap", NULL, &soap},       {"sophia-hutch", NULL, &so_h},
      {"sophia-gnb", NULL, &so_g}, {"sophia-exact", NULL, &so_e},
      {"sophia-hutch1", NULL, &so_h1}, {"sophia-gnb1", NULL, &so_g1},
      {"sophia-exact1", NULL, &so_e1}, {"sophia-none", NULL, &so_none}};
  static const char *const est_names[3] = {"hutchinson", "exact", "gnb"};
  int ncase = (int)(sizeof cases / sizeof cases[0]), i, r, st;
  double peak = bench_fma_peak_gflops(), fill;
  double t_opt[24], t_step[24], t_drv[24];
  la_trainer tr[24], drv[24];
  int has_drv[24];
  cases[0].opt = cases[1].opt = cases[2].opt = la_optimizer_sgd();
  cases[3].opt = cases[4].opt = la_optimizer_adam();
  cases[5].opt = la_optimizer_sign();
  cases[6].opt = la_optimizer_nsgd();
  cases[7].opt = la_optimizer_adagrad();
  cases[8].opt = la_optimizer_rmsprop();
  cases[9].opt = la_optimizer_lion();
  cases[10].opt = la_optimizer_sfadamw();
  cases[11].opt = la_optimizer_muon();
  cases[12].opt = la_optimizer_adafactor();
  cases[13].opt = la_optimizer_shampoo();
  cases[14].opt = la_optimizer_soap();
  for (i = 15; i < ncase; ++i) cases[i].opt = la_optimizer_sophia();
  bench_header("optimizer step + clipping vs training step", peak);
  memset(&mc, 0, sizeof mc);
  mc.d = 5;
  mc.n = 20;
  mc.layers = 3;
  if ((st = la_model_init(&m, &mc)) != LA_OK ||
      (st = la_data_preset(&dc, LA_SETTING_1)) != LA_OK ||
      (st = la_data_create(&data, &dc, 11)) != LA_OK) {
    printf("setup failed: %s\n", la_status_str(st));
    return 1;
  }
  fill = time_fill(m.nparams, 20000, 7);
  printf("# sparse L=3 d=5 n=20 batch=1000 fresh data, %d parameters, clip_norm=1;"
         " best of %d rounds, optimizers interleaved\n", m.nparams, ROUNDS);
  printf("%-14s %8s %12s %14s %14s %10s %10s %10s %11s\n", "optimizer",
         "nparams", "opt+clip_us", "driver_us", "train_step_us", "share_%",
         "driver_%", "opt_x_adam", "step_x_adam");
  for (i = 0; i < ncase && i < 24; ++i) {
    t_opt[i] = time_opt(&cases[i], m.nparams, 20000, 7) - fill;
    t_step[i] = t_drv[i] = 1e30;
    has_drv[i] = la_optim_entry_of(cases[i].opt)->curvature == NULL;
    st = make_trainer(&tr[i], &m, &data, &cases[i], NULL);
    if (!st && has_drv[i])
      st = make_trainer(&drv[i], &m, &data, &cases[i], &m.nparams);
    if (st) {
      printf("%-14s error %s\n", cases[i].name, la_status_str(st));
      return 1;
    }
  }
  /* rounds over all optimizers, so a busy moment hurts them alike */
  for (r = 0; r < ROUNDS; ++r)
    for (i = 0; i < ncase; ++i) {
      if ((st = time_steps(&tr[i], 10, &t_step[i])) != LA_OK ||
          (has_drv[i] &&
           (st = time_steps(&drv[i], 2000, &t_drv[i])) != LA_OK)) {
        printf("%-14s error %s\n", cases[i].name, la_status_str(st));
        return 1;
      }
    }
  for (i = 0; i < ncase; ++i) {
    if (t_opt[i] < 0) t_opt[i] = 0;
    if (!has_drv[i]) t_drv[i] = NAN; /* printed as nan: none */
    printf("%-14s %8d %12.3f %14.3f %14.1f %10.3f %10.3f %10.2f %11.3f\n",
           cases[i].name, m.nparams, 1e6 * t_opt[i], 1e6 * t_drv[i],
           1e6 * t_step[i], 100 * t_opt[i] / t_step[i],
           100 * t_drv[i] / t_step[i], t_opt[i] / t_opt[3],
           t_step[i] / t_step[3]);
    la_trainer_destroy(&tr[i]);
    if (has_drv[i]) la_trainer_destroy(&drv[i]);
  }
  /* sophia composed: rows 18, 19, 20 every step (hutchinson, gnb, exact),
     21 none */
  printf("# sophia: the training step with an estimate every step (t_1) and "
         "with none (t_none), the step at k = 10 composed from them over "
         "Adam's, the least k within 1.5 x Adam's\n");
  printf("%-11s %10s %10s %10s %10s %8s\n", "estimator", "t_1_us", "t_none_us",
         "est_x_step", "k10_x_adam", "k_1.5x");
  for (i = 0; i < 3; ++i) {
    const la_optim_config *oc = (const la_optim_config *)cases[18 + i].cfg;
    double t1 = t_step[18 + i], t0 = t_step[21], k10, kfit;
    k10 = (t1 + 9 * t0) / 10 / t_step[3];
    kfit = 1.5 * t_step[3] > t0 ? (t1 - t0) / (1.5 * t_step[3] - t0) : INFINITY;
    printf("%-11s %10.1f %10.1f %10.2f %10.3f %8.0f\n", est_names[oc->hessian],
           1e6 * t1, 1e6 * t0, (t1 - t0) / t0, k10, ceil(kfit < 1 ? 1 : kfit));
  }
  la_data_destroy(&data);
  return 0;
}
