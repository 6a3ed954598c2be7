/* cli/commands/theorem.h - `linattn theorem`: paper B's results measured
   against training. Each check prints what was measured next to what the
   theory says and a verdict; `theorem` exits 1 when one is clearly off.

     Theorem 1    one layer on x ~ N(0, Sigma), Sigma anisotropic, w* ~ N(0, I):
                  A* = -(((n+1)/n) Sigma + (tr Sigma / n) I)^{-1}
     Lemma 1      with B = 0 the forward pass is preconditioned GD:
                  w_{l+1} = w_l + A_l^T grad R(w_l), prediction <x_q, w_L>
     three-layer  w* ~ N(0, Sigma^{-1}): Sigma^{1/2} A_l Sigma^{1/2} -> a_l I
     Theorem 5    one ReLU-attention layer, isotropic data: A a multiple of I

   Paper B's comparative checks (--check depth, context, theorem4, lemma4,
   optimum) are in cli/commands/paperb.h; cmd_theorem, at the end, runs either.
   The small dense algebra of the checks is in cli/common.h. */
#ifndef LINATTN_THEOREM_H
#define LINATTN_THEOREM_H

#include "../io/svg.h"
#include "../common.h"
#include "paperb.h"

/* ------------------------------------------------------------ training */
/* A check's training run: its preset (b-theorem1, b-three-layer,
   b-theorem5: paper B's Adam, betas 0.9 and 0.999, the rate halved over
   the run) with the check's depth, length, halving period and seed. */
typedef struct th_run {
  la_run run;
  int ok;
} th_run;

static void th_run_free(th_run *t) {
  if (t->ok) la_run_destroy(&t->run);
  t->ok = 0;
}

/* The run made (not trained): its data, model and initial theta. */
static int th_make(th_run *t, const char *preset, int layers, long steps,
                   long halve_every, uint64_t seed, la_train_callback cb,
                   void *user) {
  la_run_config rc;
  la_run_env env;
  int st;
  memset(t, 0, sizeof *t);
  if ((st = la_run_preset(&rc, preset, NULL)) != 0) return st;
  (void)la_run_field_set(&rc, la_run_field_find("depth"), layers);
  (void)la_run_field_set(&rc, la_run_field_find("steps"), (double)steps);
  (void)la_run_field_set(&rc, la_run_field_find("period"), (double)halve_every);
  (void)la_run_field_set(&rc, la_run_field_find("seed"), (double)seed);
  memset(&env, 0, sizeof env);
  env.callback = cb;
  env.user = user;
  if ((st = la_run_create(&t->run, &rc, &env)) != 0) return st;
  t->ok = 1;
  return 0;
}

/* Its steps, with progress every 100. */
static int th_train(th_run *t, u_progress *p) {
  long done = 0, steps = t->run.cfg.steps;
  int st;
  while (done < steps) {
    long chunk = steps - done < 100 ? steps - done : 100;
    if ((st = la_trainer_run(&t->run.trainer, chunk)) != 0) return st;
    done += chunk;
    if (p) u_progress_step(p, p->base + done);
  }
  return 0;
}

static int th_loss(const la_model *m, const la_real *theta, const la_batch *b,
                   double *loss) {
  return la_model_loss(m, theta, b, loss, NULL, NULL, 0);
}

static void th_print_pair(int d, const double *a, const double *b,
                          const char *la_, const char *lb) {
  int i, j;
  printf("    %-*s   %s\n", 9 * d, la_, lb);
  for (i = 0; i < d; ++i) {
    printf("    ");
    for (j = 0; j < d; ++j) printf("%8.4f ", a[i * d + j]);
    printf("  ");
    for (j = 0; j < d; ++j) printf("%8.4f ", b[i * d + j]);
    printf("\n");
  }
}

/* ------------------------------------------------------------ the checks */
typedef struct th_ctx {
  const cli_config *c;
  jw w;
  int failed;
  u_progress prog;
  /* the three-layer curves */
  int layers;
  double sig_half[64];
  long nrec;
  double *rec_step, *rec_dist[8], *rec_plain[8];
  const la_model *model;
} th_ctx;

static long th_steps(const th_ctx *x, long dflt) {
  return cli_given(x->c, "steps") ? x->c->run.steps : dflt;
}
static uint64_t th_seed(const th_ctx *x) {
  return cli_given(x->c, "seed") ? x->c->run.seed : 1;
}

static int th_theorem1(th_ctx *x) {
  th_run t;
  la_batch b;
  la_rng rng;
  double sig[64], m[64], inv[64], a[64], diff[64], tr = 0, ls, lst;
  la_real *th_star;
  long steps = th_steps(x, 6000);
  uint64_t seed = th_seed(x);
  int d, n, i, st, ok;
  /* Sigma's 1/16 direction is slow: Adam at 0.1, halved six times */
  if ((st = th_make(&t, "b-theorem1", 1, steps, steps / 6 > 0 ? steps / 6 : 1, seed,
                    NULL, NULL)) != 0 ||
      (st = th_train(&t, &x->prog)) != 0) {
    th_run_free(&t);
    return u_fail(1, "theorem 1: %s", la_status_str(st));
  }
  x->prog.base += steps;
  d = t.run.data.cfg.d;
  n = t.run.data.cfg.n;
  th_sigma(&t.run.data, d, sig);
  for (i = 0; i < d; ++i) tr += sig[i * d + i];
  for (i = 0; i < d * d; ++i) m[i] = sig[i] * (n + 1.0) / n + (i % (d + 1) == 0 ? tr / n : 0);
  th_inverse(d, m, inv);
  for (i = 0; i < d * d; ++i) inv[i] = -inv[i];
  th_block(&t.run.model, t.run.trainer.theta, 0, a);
  for (i = 0; i < d * d; ++i) diff[i] = a[i] - inv[i];
  /* both losses on one fixed batch of 50,000 prompts */
  th_star = (la_real *)malloc(sizeof(la_real) * (size_t)t.run.model.nparams);
  if (!th_star || la_batch_create(&b, d, n, 50000)) {
    free(th_star);
    th_run_free(&t);
    return u_oom();
  }
  memcpy(th_star, t.run.trainer.theta, sizeof(la_real) * (size_t)t.run.model.nparams);
  for (i = 0; i < d * d; ++i) th_star[d * d + i] = (la_real)inv[i];
  la_rng_seed(&rng, seed, LA_STREAM_EVAL);
  la_data_sample(&t.run.data, &rng, &b);
  th_loss(&t.run.model, t.run.trainer.theta, &b, &ls);
  th_loss(&t.run.model, th_star, &b, &lst);
  {
    double rel = th_frob(d, diff) / th_frob(d, inv), gap = (ls - lst) / lst;
    ok = rel < 0.05 && fabs(gap) < 0.01;
    printf("Theorem 1: one layer, x ~ N(0, Sigma), Sigma = U diag(1,1,1/2,1/4,1)^2 U^T, "
           "w* ~ N(0, I), n = %d, d = %d\n  Adam, %ld steps of %d fresh prompts\n",
           n, d, steps, t.run.cfg.batch);
    th_print_pair(d, a, inv, "learned A",
                  "closed form -(((n+1)/n) Sigma + (tr Sigma / n) I)^-1");
    printf("  ||A - A*||_F / ||A*||_F = %.4f   (theory: 0; agreement within 0.05)\n", rel);
    printf("  loss %.5f learned, %.5f at the closed form (the same 50,000 prompts): "
           "gap %+.2e   (within 1%%)\n", ls, lst, gap);
    printf("  -> %s\n\n", th_verdict(ok));
    jw_num(&x->w, "theorem1_rel_error", rel);
    jw_num(&x->w, "theorem1_loss", ls);
    jw_num(&x->w, "theorem1_loss_closed_form", lst);
    jw_arr(&x->w, "theorem1_A", a, d * d);
    jw_arr(&x->w, "theorem1_A_closed_form", inv, d * d);
  }
  if (!ok) x->failed++;
  free(th_star);
  la_batch_destroy(&b);
  th_run_free(&t);
  return 0;
}

static int th_lemma1(th_ctx *x) {
  la_data_config dc;
  la_data g;
  la_model_config mc;
  la_model m;
  la_batch b;
  la_rng rng;
  la_real *theta, *pred, *plain;
  int d, n, L = 3, count = 256, i, l, k, st, D, N1, ok;
  double maxerr = 0, maxp = 0, loss, loss2 = 0;
  double tol = sizeof(la_real) == 8 ? 1e-10 : 2e-4;
  la_data_preset(&dc, LA_SETTING_PAPER_B);
  d = dc.d;
  n = dc.n;
  D = d + 1;
  N1 = n + 1;
  memset(&mc, 0, sizeof mc);
  mc.d = d;
  mc.n = n;
  mc.layers = L;
  mc.param = LA_PARAM_PGD;
  mc.init_std = 0.2;
  if ((st = la_data_create(&g, &dc, 7)) != 0 || (st = la_model_init(&m, &mc)) != 0)
    return u_fail(1, "lemma 1: %s", la_status_str(st));
  theta = (la_real *)calloc((size_t)m.nparams, sizeof(la_real)); /* zero if init failed */
  pred = (la_real *)malloc(sizeof(la_real) * (size_t)count);
  plain = (la_real *)malloc(sizeof(la_real) * (size_t)(count * D * N1));
  if (!theta || !pred || !plain || la_batch_create(&b, d, n, count)) {
    free(theta);
    free(pred);
    free(plain);
    la_data_destroy(&g);
    return u_oom();
  }
  la_rng_seed(&rng, 7, 1);
  la_model_init_params(&m, &rng, theta);
  la_rng_seed(&rng, 7, 2);
  la_data_sample(&g, &rng, &b);
  la_model_loss(&m, theta, &b, &loss, pred, NULL, 0);
  la_unpack(count, D, N1, b.z, plain);
  for (k = 0; k < count; ++k) {
    const la_real *z = plain + (size_t)k * D * N1;
    double w[8] = {0}, grad[8], p = 0;
    int j;
    for (l = 0; l < L; ++l) {
      double a[64];
      th_block(&m, theta, l, a);
      for (i = 0; i < d; ++i) grad[i] = 0;
      for (j = 0; j < n; ++j) { /* grad R(w) = (1/n) sum (w.x_j - y_j) x_j */
        double r = -(double)z[d * N1 + j];
        for (i = 0; i < d; ++i) r += w[i] * z[i * N1 + j];
        for (i = 0; i < d; ++i) grad[i] += r * z[i * N1 + j] / n;
      }
      for (i = 0; i < d; ++i) { /* w += A^T grad */
        double s = 0;
        int q;
        for (q = 0; q < d; ++q) s += a[q * d + i] * grad[q];
        w[i] += s;
      }
    }
    for (i = 0; i < d; ++i) p += w[i] * z[i * N1 + n];
    maxerr = fmax(maxerr, fabs(p - (double)pred[k]));
    maxp = fmax(maxp, fabs(p));
  }
  {
    /* the loss from the targets, against the model's own */
    la_real *ys = (la_real *)malloc(sizeof(la_real) * (size_t)count);
    if (ys) {
      la_unpack(count, 1, 1, b.y, ys);
      for (k = 0; k < count; ++k) {
        double e = (double)ys[k] - (double)pred[k];
        loss2 += e * e / count;
      }
      free(ys);
    }
  }
  ok = maxerr <= tol * fmax(1, maxp) && fabs(loss2 - loss) <= 1e-3 * loss;
  printf("Lemma 1: B = 0, L = %d, random A_l, %d prompts (paper B's Sigma)\n"
         "  model's prediction -[Z_L]_{d+1,n+1} against <x_q, w_L> of "
         "w_{l+1} = w_l + A_l^T grad R(w_l), w_0 = 0\n"
         "  largest difference %.3g (largest |prediction| %.3g; allowed %.1g "
         "relative, %s)\n  loss from those predictions %.6g, model's loss %.6g\n"
         "  -> %s\n\n",
         L, count, maxerr, maxp, tol, precision_name, loss2, loss,
         th_verdict(ok));
  jw_num(&x->w, "lemma1_max_diff", maxerr);
  jw_num(&x->w, "lemma1_max_pred", maxp);
  if (!ok) x->failed++;
  free(theta);
  free(pred);
  free(plain);
  la_batch_destroy(&b);
  la_data_destroy(&g);
  return 0;
}

/* Every 50 steps of the three-layer run: Dist of each layer, whitened and
   not. */
static int th_three_cb(void *user, const la_train_record *rec) {
  th_ctx *x = (th_ctx *)user;
  int d = x->model->cfg.d, l;
  if (rec->step % 50 || x->nrec >= 4096) return 0;
  x->rec_step[x->nrec] = (double)rec->step;
  for (l = 0; l < x->layers; ++l) {
    double a[64], t[64], s[64];
    th_block(x->model, rec->theta, l, a);
    th_mul(d, x->sig_half, a, t);
    th_mul(d, t, x->sig_half, s);
    x->rec_dist[l][x->nrec] = th_dist(d, s);
    x->rec_plain[l][x->nrec] = th_dist(d, a);
  }
  x->nrec++;
  return 0;
}

typedef struct th_fig {
  th_ctx *x;
} th_fig;

static void th_draw_three(FILE *f, void *ctx) {
  th_ctx *x = ((th_fig *)ctx)->x;
  svg_axis ax = {0, 1, 0, "iteration"}, ay = {0, 1, 1, "Dist(M, I) = ||M - (tr M/d) I||_F / ||M||_F"};
  svg_plot p;
  double lo = HUGE_VAL, hi = 0, a, b;
  char lab[96];
  int l;
  for (l = 0; l < x->layers; ++l) {
    if (svg_range(x->rec_dist[l], (int)x->nrec, 1, &a, &b)) lo = fmin(lo, a), hi = fmax(hi, b);
    if (svg_range(x->rec_plain[l], (int)x->nrec, 1, &a, &b)) lo = fmin(lo, a), hi = fmax(hi, b);
  }
  if (!(hi > 0)) lo = 0.01, hi = 1;
  ay.lo = lo;
  ay.hi = hi;
  ax.lo = 0;
  ax.hi = x->nrec ? x->rec_step[x->nrec - 1] : 1;
  svg_open(&p, f, 680, 420, "Three layers, B = 0: learned A_l against Sigma^-1", ax, ay);
  svg_axes(&p);
  for (l = 0; l < x->layers; ++l) {
    svg_line(&p, x->rec_step, x->rec_dist[l], (int)x->nrec, svg_palette[l], 2, 0);
    svg_line(&p, x->rec_step, x->rec_plain[l], (int)x->nrec, svg_palette[l], 1.5, 1);
  }
  for (l = 0; l < x->layers; ++l) {
    snprintf(lab, sizeof lab, "layer %d: M = Sigma^1/2 A Sigma^1/2", l + 1);
    svg_legend(&p, lab, svg_palette[l], 0);
  }
  for (l = 0; l < x->layers; ++l) {
    snprintf(lab, sizeof lab, "layer %d: M = A", l + 1);
    svg_legend(&p, lab, svg_palette[l], 1);
  }
  svg_close(&p);
}

/* Per-layer scalars a_l = tr(Sigma^1/2 A_l Sigma^1/2) / d of a trained
   L-layer pgd model. */
static int th_depth_run(th_ctx *x, int L, long steps, double *scal,
                        double *fro, double *dist, double *loss) {
  th_run t;
  la_batch b;
  la_rng rng;
  double sig[64];
  uint64_t seed = th_seed(x);
  int l, st, d;
  /* the callback (the curves of the depth asked for) reads the model and
     Sigma^1/2 through x, for this run only */
  if ((st = th_make(&t, "b-three-layer", L, steps, steps / 10 > 0 ? steps / 10 : 1, seed,
                    L == x->layers ? th_three_cb : NULL, x)) != 0) {
    th_run_free(&t);
    return st;
  }
  d = t.run.data.cfg.d;
  th_sigma(&t.run.data, d, sig);
  th_sqrtm(d, sig, x->sig_half);
  x->model = &t.run.model;
  st = th_train(&t, &x->prog);
  x->model = NULL;
  if (st) {
    th_run_free(&t);
    return st;
  }
  x->prog.base += steps;
  for (l = 0; l < L; ++l) {
    double a[64], u[64], s[64], tr = 0;
    int i;
    th_block(&t.run.model, t.run.trainer.theta, l, a);
    th_mul(d, x->sig_half, a, u);
    th_mul(d, u, x->sig_half, s);
    for (i = 0; i < d; ++i) tr += s[i * d + i];
    scal[l] = tr / d;
    fro[l] = th_frob(d, a);
    dist[l] = th_dist(d, s);
  }
  if (la_batch_create(&b, d, t.run.data.cfg.n, 20000) == 0) {
    la_rng_seed(&rng, seed, LA_STREAM_EVAL);
    la_data_sample(&t.run.data, &rng, &b);
    th_loss(&t.run.model, t.run.trainer.theta, &b, loss);
    la_batch_destroy(&b);
  }
  th_run_free(&t);
  return 0;
}

static int th_three(th_ctx *x) {
  long steps = th_steps(x, 4000), half = steps / 2 > 100 ? steps / 2 : steps;
  double scal[4][8], fro[4][8], dist[4][8], loss[4];
  int L, l, st, ok, i;
  x->layers = 3;
  x->nrec = 0;
  x->rec_step = (double *)calloc(4096, sizeof(double));
  for (l = 0; l < 3; ++l) {
    x->rec_dist[l] = (double *)calloc(4096, sizeof(double));
    x->rec_plain[l] = (double *)calloc(4096, sizeof(double));
    if (!x->rec_dist[l] || !x->rec_plain[l]) return u_oom();
  }
  if (!x->rec_step) return u_oom();
  for (L = 1; L <= 4; ++L)
    if ((st = th_depth_run(x, L, L == 3 ? steps : half, scal[L - 1],
                           fro[L - 1], dist[L - 1], &loss[L - 1])))
      return u_fail(1, "three-layer experiment: %s", la_status_str(st));
  printf("Three layers (paper B's experiment): B = 0, x ~ N(0, Sigma), w* ~ N(0, "
         "Sigma^-1), Adam, per-matrix clipping 0.01, %d prompts resampled every "
         "100 steps, %ld steps\n  iteration   Dist(Sigma^1/2 A_l Sigma^1/2, I) "
         "per layer      Dist(A_l, I) per layer\n", 5000, steps);
  for (i = 0; i < (int)x->nrec; i += (int)(x->nrec / 6 > 0 ? x->nrec / 6 : 1)) {
    printf("  %9.0f  ", x->rec_step[i]);
    for (l = 0; l < 3; ++l) printf(" %8.4f", x->rec_dist[l][i]);
    printf("           ");
    for (l = 0; l < 3; ++l) printf(" %8.4f", x->rec_plain[l][i]);
    printf("\n");
  }
  if (x->nrec) {
    i = (int)x->nrec - 1;
    printf("  %9.0f  ", x->rec_step[i]);
    for (l = 0; l < 3; ++l) printf(" %8.4f", x->rec_dist[l][i]);
    printf("           ");
    for (l = 0; l < 3; ++l) printf(" %8.4f", x->rec_plain[l][i]);
    printf("\n");
  }
  ok = x->nrec > 0;
  for (l = 0; l < 3 && ok; ++l) {
    double whit = x->rec_dist[l][x->nrec - 1], plain = x->rec_plain[l][x->nrec - 1];
    if (!(whit < 0.1 && whit < 0.5 * plain)) ok = 0;
  }
  printf("  theory: A_l = a_l Sigma^-1, so the whitened Dist goes to 0 while "
         "Dist(A_l, I) stays away from it (agreement: below 0.1 and below half "
         "the plain one)\n");
  printf("  learned per-layer scalars -a_l (A_l ~ a_l Sigma^-1) and ||A_l||_F, "
         "by depth (%ld steps for L != 3):\n", half);
  for (L = 1; L <= 4; ++L) {
    double sum = 0;
    printf("    L = %d:", L);
    for (l = 0; l < L; ++l) {
      printf("  -a_%d = %.4f (||A||_F %.3f)", l + 1, -scal[L - 1][l], fro[L - 1][l]);
      sum += -scal[L - 1][l];
    }
    printf("   sum %.4f, loss %.4f\n", sum, loss[L - 1]);
  }
  printf("  -> %s\n\n", th_verdict(ok));
  for (l = 0; l < 3; ++l) {
    char key[64];
    snprintf(key, sizeof key, "three_layer_dist_whitened_%d", l + 1);
    jw_num(&x->w, key, x->nrec ? x->rec_dist[l][x->nrec - 1] : NAN);
    snprintf(key, sizeof key, "three_layer_dist_plain_%d", l + 1);
    jw_num(&x->w, key, x->nrec ? x->rec_plain[l][x->nrec - 1] : NAN);
  }
  for (L = 1; L <= 4; ++L) {
    char key[64];
    snprintf(key, sizeof key, "depth%d_scalars", L);
    jw_arr(&x->w, key, scal[L - 1], L);
    snprintf(key, sizeof key, "depth%d_loss", L);
    jw_num(&x->w, key, loss[L - 1]);
  }
  if (!ok) x->failed++;
  if (x->c->svg) {
    th_fig fg;
    fg.x = x;
    if ((st = write_svg(x->c->svg, th_draw_three, &fg))) return st;
  }
  return 0;
}

static int th_theorem5(th_ctx *x) {
  th_run t;
  double a[64], a0[64], dist, dist0;
  long steps = th_steps(x, 3000);
  int st, ok, d, i;
  if ((st = th_make(&t, "b-theorem5", 1, steps, steps / 6 > 0 ? steps / 6 : 1,
                    th_seed(x), NULL, NULL)) == 0) {
    th_block(&t.run.model, t.run.trainer.theta, 0, a0); /* the initial A */
    st = th_train(&t, &x->prog);
  }
  if (st) {
    th_run_free(&t);
    return u_fail(1, "theorem 5: %s", la_status_str(st));
  }
  x->prog.base += steps;
  d = t.run.data.cfg.d;
  th_block(&t.run.model, t.run.trainer.theta, 0, a);
  dist = th_dist(d, a);
  dist0 = th_dist(d, a0);
  ok = dist < 0.1 && dist < 0.5 * dist0;
  printf("Theorem 5: one ReLU-attention layer P Z M relu(Z^T Q Z), x ~ N(0, I), "
         "w* ~ N(0, I), n = %d, d = %d (sparse form: P's last row is e_{d+1})\n"
         "  learned A:\n", t.run.data.cfg.n, d);
  for (i = 0; i < d; ++i) {
    int j;
    printf("    ");
    for (j = 0; j < d; ++j) printf("%8.4f ", a[i * d + j]);
    printf("\n");
  }
  {
    /* paper B's closed form for the multiple, beside the learned one */
    double tr = 0, cf = -2.0 * t.run.data.cfg.n / (t.run.data.cfg.n - 1 + 2.0 * (d + 2));
    for (i = 0; i < d; ++i) tr += a[i * (d + 1)];
    printf("  Dist(A, I) = %.4f (at initialization %.4f); theory: A = c I, Dist 0 "
           "(agreement: below 0.1); learned c = tr(A)/d = %.4f, closed form "
           "-2n/(n - 1 + 2(d + 2)) = %.4f (%+.1f%%)\n  -> %s\n\n",
           dist, dist0, tr / d, cf, 100 * (tr / d / cf - 1), th_verdict(ok));
    jw_num(&x->w, "theorem5_c", tr / d);
    jw_num(&x->w, "theorem5_closed_form", cf);
  }
  jw_num(&x->w, "theorem5_dist", dist);
  jw_num(&x->w, "theorem5_dist_init", dist0);
  if (!ok) x->failed++;
  th_run_free(&t);
  return 0;
}

/* The checks of paper B's results: all, theorem1, lemma1, three-layer,
   theorem5. */
static int th_checks(const cli_config *c) {
  th_ctx x;
  u_out out;
  int which = c->opts.theorem.check > 0 ? (int)c->opts.theorem.check : CLI_ALL, st = 0, l;
  long s = cli_given(c, "steps") ? c->run.steps : 3000, total = 0;
  memset(&x, 0, sizeof x);
  x.c = c;
  if (s < 1)
    return u_fail(EXIT_BAD_INPUT, "--steps 0: the checks train; give at least 1");
  if (c->seeds > 0)
    return u_fail(EXIT_BAD_INPUT, "--seeds: only paper B's depth and context "
                                  "checks average seeds");
  if (c->svg && which != CLI_ALL && which != CLI_THREE)
    return u_fail(EXIT_BAD_INPUT, "--svg: of these checks only the three-layer "
                                  "one draws a figure (--check three-layer, or "
                                  "all of them)");
  if (which == CLI_ALL || which == CLI_THM1) total += cli_given(c, "steps") ? s : 6000;
  if (which == CLI_ALL || which == CLI_THREE) total += cli_given(c, "steps") ? 5 * s / 2 : 10000;
  if (which == CLI_ALL || which == CLI_THM5) total += s;
  u_progress_init(&x.prog, "theorem", total > 0 ? total : 1);
  if ((st = u_open(&out, c->out ? c->out : NULL)) != 0) return st;
  if (!c->out) { /* the JSON goes to a file only: stdout is for people */
    out.f = NULL;
  }
  {
    FILE *sink = out.f ? out.f : fopen("/dev/null", "w");
    if (!sink) return u_fail(1, "cannot open /dev/null");
    jw_begin(&x.w, sink);
    jw_str(&x.w, "type", "theorem");
    if (which == CLI_ALL || which == CLI_THM1) st = st ? st : th_theorem1(&x);
    if (which == CLI_ALL || which == CLI_LEMMA1) st = st ? st : th_lemma1(&x);
    if (which == CLI_ALL || which == CLI_THREE) st = st ? st : th_three(&x);
    if (which == CLI_ALL || which == CLI_THM5) st = st ? st : th_theorem5(&x);
    jw_int(&x.w, "failed", x.failed);
    jw_end(&x.w);
    if (!out.f) (void)fclose(sink); /* /dev/null */
  }
  u_progress_end(&x.prog);
  free(x.rec_step);
  for (l = 0; l < 8; ++l) {
    free(x.rec_dist[l]);
    free(x.rec_plain[l]);
  }
  if (out.f) {
    if (st) u_abort(&out);
    else if ((st = u_commit(&out)) != 0) return st;
  }
  if (st) return st;
  printf("%s\n", x.failed ? "some checks are OFF" : "every check agrees with the theory");
  return x.failed ? 1 : 0;
}

static const char theorem_help[] =
    "usage: linattn theorem [FLAGS]\n\n"
    "Paper B's results against training: Theorem 1 (one layer, anisotropic\n"
    "Sigma, the closed-form minimizer), Lemma 1 (the forward pass is\n"
    "preconditioned gradient descent), the three-layer experiment\n"
    "(Dist(Sigma^1/2 A_l Sigma^1/2, I) during training, the learned scalars,\n"
    "their growth with depth) and Theorem 5 (ReLU attention). Exits 1 if a\n"
    "check is clearly off.\n\n"
    "Paper B's comparative checks, each by --check NAME (quick forms; --full\n"
    "for paper B's lengths): depth and context (the trained model beside\n"
    "tuned GD, preconditioned GD, least squares and ridge on the same test\n"
    "prompts), theorem4 (B_l free), lemma4 (exchanging layers' a_l), optimum\n"
    "(the Theorem 3 family's best a_l beside a trained model's). All five\n"
    "into one report: linattn reproduce --paper b --out-dir DIR.\n\n"
    "Depth and context train one model a depth (or context length) and a\n"
    "seed: --plan DIR writes each as a command line (--unit P --seed S,\n"
    "its numbers into a file of DIR) to run anywhere; --from DIR then\n"
    "prints and writes what the check run here does, byte for byte.\n";

/* `linattn theorem`: its outputs checked, then paper B's closed forms or
   (--check depth, ...) its comparative checks. */
static int cmd_theorem(const cli_config *c) {
  u_path outs[3] = {{"--out", NULL}, {"--svg", NULL}, {NULL, NULL}};
  u_path in = {NULL, NULL}; /* theorem reads no file */
  int st;
  outs[0].path = c->out;
  outs[1].path = c->svg;
  if ((st = check_outputs(outs, 0, &in, 0)) != 0) return st;
  /* a plan, its merge and its units are paper B's depth and context */
  if (c->opts.theorem.check >= CLI_DEPTH || c->plan || c->from || c->slurm ||
      c->opts.theorem.unit > 0)
    return pb_theorem(c);
  return th_checks(c);
}

#endif /* LINATTN_THEOREM_H */
