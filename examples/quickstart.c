/* The C API in one page: paper A's Setting 1, the base model trained by
   Adam with global clipping at 1, the eval loss printed as it falls, and at
   the end the top Hessian eigenvalues and both robust condition numbers.

     cc -O2 -mavx2 -mfma -I. examples/quickstart.c -o quickstart -lm

   Exit status 0 when the run trained (the eval loss fell tenfold). */
#include <stdio.h>
#ifndef QUICKSTART_STEPS /* tests/builds/same_output.sh also builds shorter runs */
#define QUICKSTART_STEPS 1000
#endif
#define LINATTN_IMPLEMENTATION
#include "linattn.h"

static int report(void *user, const la_train_record *rec) {
  (void)user;
  if (rec->has_eval && rec->step % 250 == 0)
    printf("step %5ld  train loss %.5f  eval loss %.5f  |g| %.3f\n",
           rec->step, rec->loss, rec->eval_loss, rec->grad_norm);
  return 0; /* nonzero would stop the run */
}

static int fail(const char *what, int st) {
  fprintf(stderr, "quickstart: %s: %s\n", what, la_status_str(st));
  return 1;
}

int main(void) {
  la_data_config dc;
  la_data data;
  la_model model;
  la_trainer tr;
  la_rcond rc;
  double top[3], first;
  la_eig_out eig = {0};
  int st;

  /* the data: Setting 1 (x ~ N(0, I_5), n = 20), fixed parts from seed 1 */
  if ((st = la_data_preset(&dc, LA_SETTING_1)) != LA_OK) return fail("preset", st);
  if ((st = la_data_create(&data, &dc, 1)) != LA_OK) return fail("data", st);

  /* the model: zero fields are defaults, here sparse P, Q (paper B's
     relaxed form) and L = 3: 150 parameters */
  la_model_config mc = {.d = dc.d, .n = dc.n};
  if ((st = la_model_init(&model, &mc)) != LA_OK) return fail("model", st);

  /* the run: Adam with betas 0.9, 0.9 at lr 0.02, clipped at 1, 1000 fresh
     prompts per step (the default), eval every 50 steps on a fixed batch */
  la_optim_config adam = {.lr = 0.02, .beta2 = 0.9};
  la_train_config tc = {.model = &model, .data = &data,
                        .optimizer = la_optimizer_adam(),
                        .optimizer_config = &adam, .clip_norm = 1,
                        .seed = 7, .callback = report};
  if ((st = la_trainer_create(&tr, &tc)) != LA_OK) return fail("trainer", st);
  if ((st = la_trainer_eval(&tr, &first)) != LA_OK) return fail("eval", st);
  printf("%d parameters, backend %s, eval loss at start %.5f\n",
         model.nparams, la_backend_name(), first);
  if ((st = la_trainer_run(&tr, QUICKSTART_STEPS)) != LA_OK) return fail("run", st);

  /* curvature at the end, on the eval batch */
  eig.values = top;
  st = la_hessian_eigs(&model, tr.theta, &tr.eval, 3, 1e-6, NULL, &eig, NULL, 0);
  if (st != LA_OK) return fail("eigenvalues", st);
  st = la_robust_cond(&model, tr.theta, &tr.eval, NULL, &rc, NULL, 0);
  if (st != LA_OK) return fail("robust condition", st);
  printf("top Hessian eigenvalues %.4g %.4g %.4g (%d HVPs)\n", top[0], top[1],
         top[2], eig.matvecs);
  printf("robust condition: max|H_ii|/median|H_ii| %.3g, "
         "lambda_max/lambda_median %.3g\n", rc.by_diag, rc.by_spectrum);

  st = tr.last_eval < first / 10 ? 0 : 1;
  la_trainer_destroy(&tr);
  la_data_destroy(&data);
  return st;
}
