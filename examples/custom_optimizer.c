/* A new optimizer from outside the header: Lion (Chen et al. 2023,
   "Symbolic discovery of optimization algorithms"), written against the
   public la_optimizer interface and trained through the driver on paper A's
   Setting 1 (L = 3, d = 5, n = 20, fresh prompts every step), next to Adam.

       c = beta1 m + (1 - beta1) g
       u = -lr (sign(c) + wd theta)
       m = beta2 m + (1 - beta2) g

   Build: cc -std=c99 -O2 -mavx2 -mfma -I. examples/custom_optimizer.c -lm */
#define LINATTN_IMPLEMENTATION
#include "linattn.h"
#include <stdio.h>

/* Zero fields mean the defaults, like the built-in configs. */
typedef struct lion_config {
  double lr;           /* 0 -> 1e-4 */
  double beta1, beta2; /* 0 -> 0.9, 0.99 */
  double weight_decay; /* 0 -> none */
} lion_config;

static lion_config lion_get(const void *cfg) {
  lion_config c = {0, 0, 0, 0};
  if (cfg) c = *(const lion_config *)cfg;
  if (c.lr == 0) c.lr = 1e-4;
  if (c.beta1 == 0) c.beta1 = 0.9;
  if (c.beta2 == 0) c.beta2 = 0.99;
  return c;
}

static int lion_check(const void *cfg) {
  lion_config c = lion_get(cfg);
  if (!(c.lr > 0) || !(c.beta1 >= 0 && c.beta1 < 1) ||
      !(c.beta2 >= 0 && c.beta2 < 1) || !(c.weight_decay >= 0))
    return LA_ERANGE;
  return LA_OK;
}

/* One momentum buffer, in double like the built-ins' state. */
static size_t lion_state_len(const void *cfg, int n) {
  (void)cfg;
  return (size_t)n;
}

static int lion_init(const void *cfg, int n, double *m) {
  (void)cfg; (void)n; (void)m; /* the state arrives zeroed */
  return LA_OK;
}

static int lion_step(const void *cfg, int n, double *m, double lr_scale,
                     const la_real *theta, const la_real *g, la_real *u) {
  lion_config c = lion_get(cfg);
  double lr = c.lr * lr_scale;
  int i;
  for (i = 0; i < n; ++i) {
    double ci = c.beta1 * m[i] + (1 - c.beta1) * g[i];
    double s = ci > 0 ? 1 : ci < 0 ? -1 : 0;
    u[i] = (la_real)(-lr * (s + c.weight_decay * theta[i]));
    m[i] = c.beta2 * m[i] + (1 - c.beta2) * g[i];
  }
  return LA_OK;
}

static const la_optimizer lion = {"lion", lion_check, lion_state_len,
                                  lion_init, lion_step};

static int print_eval(void *user, const la_train_record *r) {
  if (r->has_eval && r->step % 100 == 0)
    printf("  %-5s step %4ld  train %.4f  eval %.4f  |g| %.3g\n",
           (const char *)user, r->step, r->loss, r->eval_loss, r->grad_norm);
  return 0;
}

/* Trains from the same initial theta and data; returns the final eval
   loss, or a negative number on error. */
static double train(const la_model *m, const la_data *data,
                    const la_optimizer *opt, const void *opt_cfg,
                    const char *name, long steps, double *initial) {
  la_train_config tc = {0};
  la_trainer tr;
  double loss = -1;
  int st;
  tc.model = m;
  tc.data = data;
  tc.optimizer = opt;
  tc.optimizer_config = opt_cfg;
  tc.clip_norm = 1;   /* paper A */
  tc.batch = 1000;    /* fresh prompts every step */
  tc.eval_every = 50; /* on a fixed seeded batch */
  tc.seed = 1;
  tc.callback = print_eval;
  tc.user = (void *)name;
  if ((st = la_trainer_create(&tr, &tc)) != LA_OK) {
    printf("%s: %s\n", name, la_status_str(st));
    return -1;
  }
  la_trainer_eval(&tr, initial);
  st = la_trainer_run(&tr, steps);
  if (st == LA_OK) st = la_trainer_eval(&tr, &loss);
  if (st != LA_OK) {
    printf("%s: %s at step %ld\n", name, la_status_str(st), tr.diverged_step);
    loss = -1;
  }
  la_trainer_destroy(&tr);
  return loss;
}

int main(void) {
  la_model_config mc = {0};
  la_data_config dc;
  la_model m;
  la_data data;
  lion_config lc = {.lr = 0.002};
  la_optim_config ac = {.lr = 0.01, .beta2 = 0.9}; /* paper A's betas */
  double l0 = 0, lion_loss, adam_loss;
  int st;
  mc.d = 5;
  mc.n = 20;
  mc.layers = 3;
  if ((st = la_model_init(&m, &mc)) != LA_OK ||
      (st = la_data_preset(&dc, LA_SETTING_1)) != LA_OK ||
      (st = la_data_create(&data, &dc, 7)) != LA_OK) {
    printf("setup: %s\n", la_status_str(st));
    return 1;
  }
  if ((st = la_optim_check(&lion, &lc)) != LA_OK) {
    printf("lion config: %s\n", la_status_str(st));
    return 1;
  }
  lion_loss = train(&m, &data, &lion, &lc, "lion", 300, &l0);
  adam_loss = train(&m, &data, la_optimizer_adam(), &ac, "adam", 300, &l0);
  la_data_destroy(&data);
  printf("eval loss: initial %.4f, lion %.4f, adam %.4f\n", l0, lion_loss,
         adam_loss);
  /* the example is also a test: Lion must have made progress */
  return lion_loss >= 0 && lion_loss < 0.8 * l0 ? 0 : 1;
}
