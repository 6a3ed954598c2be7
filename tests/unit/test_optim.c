/* Optimizers against update values worked out by hand (closed forms of the
   recurrences for a few steps, not the code's own loop), clipping
   invariants, schedules, and every bad configuration. */

/* Relative tolerance of one update: it is computed in double and rounded
   once to la_real. */
#define OPT_TOL (sizeof(la_real) == 8 ? 1e-12 : 3e-7)

static int opt_close(double got, double want) {
  return fabs(got - want) <= OPT_TOL * (fabs(want) + 1e-300) + 1e-300;
}

/* Runs `steps` steps of o on a 3-vector from theta0 with gradients
   grads[step][i]; the updates land in upd[step][i]. Returns the status of
   the first failing call. */
static int opt_run(const la_optimizer *o, const void *cfg, int steps,
                   const double *grads, const double *theta0,
                   double upd[][3]) {
  double state[16];
  la_real th[3], g[3], u[3];
  size_t len;
  int s, i, st = la_optim_state_len(o, cfg, 3, &len);
  if (st) return st;
  if (len > 16) return LA_EWORKSPACE;
  if ((st = la_optim_init(o, cfg, 3, state, 16)) != 0) return st;
  for (i = 0; i < 3; ++i) th[i] = (la_real)theta0[i];
  for (s = 0; s < steps; ++s) {
    for (i = 0; i < 3; ++i) g[i] = (la_real)grads[s * 3 + i];
    st = la_optim_step(o, cfg, 3, state, len, 1.0, g, th, u);
    if (st) return st;
    for (i = 0; i < 3; ++i) upd[s][i] = u[i];
  }
  return LA_OK;
}

static const double opt_g[3][3] = {{1, -2, 0.5}, {-2, 0.25, 1}, {0.5, 1, -4}};
static const double opt_th0[3] = {0.5, -1, 2};

static void test_sgd(la_t *t) {
  double u[3][3];
  int s, i;
  LA_TEST(t, "optim: sgd plain, heavy ball, Nesterov, weight decay") {
    la_optim_config c;
    memset(&c, 0, sizeof c);
    c.lr = 0.1;
    LA_CHECK(t, opt_run(la_optimizer_sgd(), &c, 3, opt_g[0], opt_th0, u) == 0, "run");
    for (s = 0; s < 3; ++s)
      for (i = 0; i < 3; ++i)
        LA_CHECK(t, opt_close(u[s][i], -0.1 * opt_g[s][i]), "plain %d %d", s, i);
    /* heavy ball: b_3 = g3 + 0.9 g2 + 0.81 g1 */
    c.momentum = 0.9;
    LA_CHECK(t, opt_run(la_optimizer_sgd(), &c, 3, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i) {
      double b2 = opt_g[1][i] + 0.9 * opt_g[0][i];
      double b3 = opt_g[2][i] + 0.9 * opt_g[1][i] + 0.81 * opt_g[0][i];
      LA_CHECK(t, opt_close(u[0][i], -0.1 * opt_g[0][i]), "hb1 %d", i);
      LA_CHECK(t, opt_close(u[1][i], -0.1 * b2), "hb2 %d", i);
      LA_CHECK(t, opt_close(u[2][i], -0.1 * b3), "hb3 %d", i);
    }
    /* Nesterov: u_t = -lr (g_t + mu b_t) */
    c.nesterov = 1;
    LA_CHECK(t, opt_run(la_optimizer_sgd(), &c, 2, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i) {
      double b2 = opt_g[1][i] + 0.9 * opt_g[0][i];
      LA_CHECK(t, opt_close(u[0][i], -0.1 * 1.9 * opt_g[0][i]), "nag1 %d", i);
      LA_CHECK(t, opt_close(u[1][i], -0.1 * (opt_g[1][i] + 0.9 * b2)),
               "nag2 %d", i);
    }
    /* coupled decay: the first step sees g + wd theta0 */
    memset(&c, 0, sizeof c);
    c.lr = 0.1;
    c.weight_decay = 0.5;
    LA_CHECK(t, opt_run(la_optimizer_sgd(), &c, 1, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i)
      LA_CHECK(t, opt_close(u[0][i], -0.1 * (opt_g[0][i] + 0.5 * opt_th0[i])),
               "wd %d", i);
    /* the default learning rate is 0.01 */
    LA_CHECK(t, opt_run(la_optimizer_sgd(), NULL, 1, opt_g[0], opt_th0, u) == 0, "run");
    LA_CHECK(t, opt_close(u[0][1], 0.02), "default lr %g", u[0][1]);
  }
}

static void test_adam(la_t *t) {
  double u[3][3];
  int s, i;
  LA_TEST(t, "optim: adam bias correction, two steps by hand, adamw") {
    la_optim_config c;
    double cg[3][3];
    memset(&c, 0, sizeof c);
    c.lr = 0.01;
    /* A constant gradient: bias-corrected moments are exactly g and g^2,
       so every update is -lr g / (|g| + eps). Without the correction the
       first update would be sqrt(1000) times too large ... */
    for (s = 0; s < 3; ++s)
      for (i = 0; i < 3; ++i) cg[s][i] = opt_g[0][i];
    LA_CHECK(t, opt_run(la_optimizer_adam(), &c, 3, cg[0], opt_th0, u) == 0, "run");
    for (s = 0; s < 3; ++s)
      for (i = 0; i < 3; ++i)
        LA_CHECK(t,
                 fabs(u[s][i] + 0.01 * cg[s][i] / (fabs(cg[s][i]) + 1e-8)) <=
                     1e-9 + OPT_TOL * 0.01,
                 "const %d %d: %g", s, i, u[s][i]);
    /* ... and the second step from the closed forms
       m2 = (1-b1)(b1 g1 + g2), v2 = (1-b2)(b2 g1^2 + g2^2). */
    c.beta1 = 0.8;
    c.beta2 = 0.9; /* paper A's value */
    c.eps = 1e-3;
    LA_CHECK(t, opt_run(la_optimizer_adam(), &c, 2, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i) {
      double g1 = opt_g[0][i], g2 = opt_g[1][i];
      double m2 = 0.2 * (0.8 * g1 + g2), v2 = 0.1 * (0.9 * g1 * g1 + g2 * g2);
      double want = -0.01 * (m2 / 0.36) / (sqrt(v2 / 0.19) + 1e-3);
      LA_CHECK(t, opt_close(u[1][i], want), "step2 %d: %g vs %g", i, u[1][i], want);
      LA_CHECK(t, opt_close(u[0][i], -0.01 * g1 / (fabs(g1) + 1e-3)), "step1 %d", i);
    }
    /* Decoupled decay on a zero gradient moves theta by -lr wd theta
       alone; coupled decay turns wd theta into an Adam-normalized step. */
    memset(cg, 0, sizeof cg);
    memset(&c, 0, sizeof c);
    c.lr = 0.01;
    c.weight_decay = 0.1;
    c.decoupled = 1;
    LA_CHECK(t, opt_run(la_optimizer_adam(), &c, 1, cg[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i)
      LA_CHECK(t, opt_close(u[0][i], -0.001 * opt_th0[i]), "adamw %d", i);
    c.decoupled = 0;
    LA_CHECK(t, opt_run(la_optimizer_adam(), &c, 1, cg[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i) {
      double gw = 0.1 * opt_th0[i];
      LA_CHECK(t, opt_close(u[0][i], -0.01 * gw / (fabs(gw) + 1e-8)),
               "coupled %d", i);
    }
  }
}

static void test_sign_nsgd(la_t *t) {
  double u[3][3];
  int i;
  LA_TEST(t, "optim: sign descent and normalized sgd, with momentum") {
    la_optim_config c;
    double n1 = 0, n2 = 0, b2[3];
    memset(&c, 0, sizeof c);
    c.lr = 0.1;
    LA_CHECK(t, opt_run(la_optimizer_sign(), &c, 2, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i)
      LA_CHECK(t, u[1][i] == (la_real)(opt_g[1][i] > 0 ? -0.1 : 0.1), "sign %d", i);
    /* with momentum 0.5: b2 = g2 + 0.5 g1 = {-1.5, -0.75, 1.25} */
    c.momentum = 0.5;
    LA_CHECK(t, opt_run(la_optimizer_sign(), &c, 2, opt_g[0], opt_th0, u) == 0, "run");
    LA_CHECK(t, u[1][0] == (la_real)0.1 && u[1][1] == (la_real)0.1 &&
                    u[1][2] == (la_real)-0.1, "sign momentum %g %g %g",
             u[1][0], u[1][1], u[1][2]);
    c.momentum = 0;
    LA_CHECK(t, opt_run(la_optimizer_nsgd(), &c, 2, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i) n1 += opt_g[1][i] * opt_g[1][i];
    for (i = 0; i < 3; ++i)
      LA_CHECK(t, opt_close(u[1][i], -0.1 * opt_g[1][i] / sqrt(n1)), "nsgd %d", i);
    c.momentum = 0.5;
    LA_CHECK(t, opt_run(la_optimizer_nsgd(), &c, 2, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i) b2[i] = opt_g[1][i] + 0.5 * opt_g[0][i];
    for (i = 0; i < 3; ++i) n2 += b2[i] * b2[i];
    for (i = 0; i < 3; ++i)
      LA_CHECK(t, opt_close(u[1][i], -0.1 * b2[i] / sqrt(n2)), "nsgd mom %d", i);
    {
      /* a zero gradient is no step, not a division by zero */
      double z[1][3] = {{0, 0, 0}};
      LA_CHECK(t, opt_run(la_optimizer_nsgd(), &c, 1, z[0], opt_th0, u) == 0, "run");
      LA_CHECK(t, u[0][0] == 0 && u[0][1] == 0 && u[0][2] == 0, "zero");
    }
  }
}

static void test_adagrad_rmsprop(la_t *t) {
  double u[3][3];
  int i;
  LA_TEST(t, "optim: adagrad and rmsprop by hand") {
    la_optim_config a;
    la_optim_config r;
    memset(&a, 0, sizeof a);
    a.lr = 0.1;
    a.eps = 1e-3;
    LA_CHECK(t, opt_run(la_optimizer_adagrad(), &a, 2, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i) {
      double g1 = opt_g[0][i], g2 = opt_g[1][i];
      LA_CHECK(t, opt_close(u[0][i], -0.1 * g1 / (fabs(g1) + 1e-3)), "ada1 %d", i);
      LA_CHECK(t, opt_close(u[1][i], -0.1 * g2 / (sqrt(g1 * g1 + g2 * g2) + 1e-3)),
               "ada2 %d", i);
    }
    a.initial = 4;
    LA_CHECK(t, opt_run(la_optimizer_adagrad(), &a, 1, opt_g[0], opt_th0, u) == 0, "run");
    LA_CHECK(t, opt_close(u[0][1], 0.2 / (sqrt(8.0) + 1e-3)), "initial");
    memset(&r, 0, sizeof r);
    r.lr = 0.1;
    r.alpha = 0.9;
    r.eps = 1e-3;
    LA_CHECK(t, opt_run(la_optimizer_rmsprop(), &r, 2, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i) {
      double g1 = opt_g[0][i], g2 = opt_g[1][i];
      double v2 = 0.09 * g1 * g1 + 0.1 * g2 * g2;
      LA_CHECK(t, opt_close(u[0][i], -0.1 * g1 / (sqrt(0.1) * fabs(g1) + 1e-3)),
               "rms1 %d", i);
      LA_CHECK(t, opt_close(u[1][i], -0.1 * g2 / (sqrt(v2) + 1e-3)), "rms2 %d", i);
    }
    r.momentum = 0.5;
    LA_CHECK(t, opt_run(la_optimizer_rmsprop(), &r, 2, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i) {
      double g1 = opt_g[0][i], g2 = opt_g[1][i];
      double s1 = g1 / (sqrt(0.1) * fabs(g1) + 1e-3);
      double s2 = g2 / (sqrt(0.09 * g1 * g1 + 0.1 * g2 * g2) + 1e-3);
      LA_CHECK(t, opt_close(u[1][i], -0.1 * (s2 + 0.5 * s1)), "rms mom %d", i);
    }
  }
}

static void test_optim_bad(la_t *t) {
  LA_TEST(t, "optim: bad configurations are LA_ERANGE, bad calls their status") {
    la_optim_config s;
    la_optim_config a;
    la_optim_config g;
    la_optim_config d;
    la_optim_config r;
    double bad_lr[3] = {-0.1, NAN, INFINITY}, bad_beta[4] = {1, -0.1, 1.5, NAN};
    double state[8];
    la_real th[2] = {1, 2}, gr[2] = {1, 1}, up[2];
    size_t len = 0;
    int i;
    for (i = 0; i < 3; ++i) {
      memset(&s, 0, sizeof s); s.lr = bad_lr[i];
      memset(&a, 0, sizeof a); a.lr = bad_lr[i];
      memset(&g, 0, sizeof g); g.lr = bad_lr[i];
      memset(&d, 0, sizeof d); d.lr = bad_lr[i];
      memset(&r, 0, sizeof r); r.lr = bad_lr[i];
      LA_CHECK(t, la_optim_check(la_optimizer_sgd(), &s) == LA_ERANGE, "sgd lr");
      LA_CHECK(t, la_optim_check(la_optimizer_adam(), &a) == LA_ERANGE, "adam lr");
      LA_CHECK(t, la_optim_check(la_optimizer_sign(), &g) == LA_ERANGE, "sign lr");
      LA_CHECK(t, la_optim_check(la_optimizer_nsgd(), &g) == LA_ERANGE, "nsgd lr");
      LA_CHECK(t, la_optim_check(la_optimizer_adagrad(), &d) == LA_ERANGE, "ada lr");
      LA_CHECK(t, la_optim_check(la_optimizer_rmsprop(), &r) == LA_ERANGE, "rms lr");
    }
    for (i = 0; i < 4; ++i) {
      memset(&a, 0, sizeof a); a.beta1 = bad_beta[i];
      LA_CHECK(t, la_optim_check(la_optimizer_adam(), &a) == LA_ERANGE, "beta1 %d", i);
      memset(&a, 0, sizeof a); a.beta2 = bad_beta[i];
      LA_CHECK(t, la_optim_check(la_optimizer_adam(), &a) == LA_ERANGE, "beta2 %d", i);
      memset(&s, 0, sizeof s); s.momentum = bad_beta[i];
      LA_CHECK(t, la_optim_check(la_optimizer_sgd(), &s) == LA_ERANGE, "mom %d", i);
      memset(&g, 0, sizeof g); g.momentum = bad_beta[i];
      LA_CHECK(t, la_optim_check(la_optimizer_sign(), &g) == LA_ERANGE, "smom %d", i);
      memset(&r, 0, sizeof r); r.alpha = bad_beta[i];
      LA_CHECK(t, la_optim_check(la_optimizer_rmsprop(), &r) == LA_ERANGE, "alpha %d", i);
      memset(&r, 0, sizeof r); r.momentum = bad_beta[i];
      LA_CHECK(t, la_optim_check(la_optimizer_rmsprop(), &r) == LA_ERANGE, "rmom %d", i);
    }
    memset(&a, 0, sizeof a); a.eps = -1e-8;
    LA_CHECK(t, la_optim_check(la_optimizer_adam(), &a) == LA_ERANGE, "adam eps");
    memset(&d, 0, sizeof d); d.eps = -1;
    LA_CHECK(t, la_optim_check(la_optimizer_adagrad(), &d) == LA_ERANGE, "ada eps");
    memset(&d, 0, sizeof d); d.initial = -1;
    LA_CHECK(t, la_optim_check(la_optimizer_adagrad(), &d) == LA_ERANGE, "ada init");
    memset(&r, 0, sizeof r); r.eps = -1;
    LA_CHECK(t, la_optim_check(la_optimizer_rmsprop(), &r) == LA_ERANGE, "rms eps");
    memset(&a, 0, sizeof a); a.weight_decay = -1;
    LA_CHECK(t, la_optim_check(la_optimizer_adam(), &a) == LA_ERANGE, "wd");
    memset(&s, 0, sizeof s); s.nesterov = 1;
    LA_CHECK(t, la_optim_check(la_optimizer_sgd(), &s) == LA_ERANGE, "nesterov");
    /* a bad config is refused by every entry point */
    memset(&a, 0, sizeof a); a.lr = -1;
    LA_CHECK(t, la_optim_state_len(la_optimizer_adam(), &a, 2, &len) == LA_ERANGE, "len");
    LA_CHECK(t, la_optim_init(la_optimizer_adam(), &a, 2, state, 8) == LA_ERANGE, "init");
    LA_CHECK(t, la_optim_step(la_optimizer_adam(), &a, 2, state, 8, 1, gr, th, up) ==
                    LA_ERANGE, "step");
    /* the calls themselves */
    LA_CHECK(t, la_optim_check(NULL, NULL) == LA_ENULL, "null opt");
    LA_CHECK(t, la_optim_state_len(la_optimizer_adam(), NULL, 2, NULL) == LA_ENULL, "null len");
    LA_CHECK(t, la_optim_state_len(la_optimizer_adam(), NULL, 0, &len) == LA_EDIM, "n 0");
    LA_CHECK(t, la_optim_state_len(la_optimizer_adam(), NULL, 2, &len) == 0 && len == 5,
             "adam len %d", (int)len);
    LA_CHECK(t, la_optim_init(la_optimizer_adam(), NULL, 2, state, 4) == LA_EWORKSPACE, "ws");
    LA_CHECK(t, la_optim_init(la_optimizer_adam(), NULL, 2, NULL, 8) == LA_ENULL, "null st");
    LA_CHECK(t, la_optim_init(la_optimizer_adam(), NULL, 2, state, 8) == 0, "init ok");
    LA_CHECK(t, la_optim_step(la_optimizer_adam(), NULL, 2, state, 8, 1, NULL, th, up) ==
                    LA_ENULL, "null g");
    LA_CHECK(t, la_optim_step(la_optimizer_adam(), NULL, 2, state, 4, 1, gr, th, up) ==
                    LA_EWORKSPACE, "step ws");
    LA_CHECK(t, la_optim_step(la_optimizer_adam(), NULL, 2, state, 8, -1, gr, th, up) ==
                    LA_ERANGE, "scale");
    gr[1] = (la_real)NAN;
    LA_CHECK(t, la_optim_step(la_optimizer_adam(), NULL, 2, state, 8, 1, gr, th, up) ==
                    LA_ENONFINITE, "nan grad");
    LA_CHECK(t, th[0] == 1 && th[1] == 2, "theta kept");
    /* an update that overflows is LA_EDIVERGED and theta stays */
    memset(&s, 0, sizeof s);
    s.lr = 1e300;
    gr[1] = 1;
    LA_CHECK(t, la_optim_step(la_optimizer_sgd(), &s, 2, NULL, 0, 1e300, gr, th, up) ==
                    LA_EDIVERGED, "overflow");
    LA_CHECK(t, th[0] == 1 && th[1] == 2, "theta kept after overflow");
  }
}

static void test_clip(la_t *t) {
  LA_TEST(t, "optim: clipping keeps the direction and caps the norm") {
    la_t_rng rng = {7};
    la_real g[40], g0[40];
    int off[3] = {0, 10, 25}, size[3] = {10, 15, 15}, i, b;
    double nrm = 0, dot = 0, n0 = 0, n1 = 0;
    double tol = sizeof(la_real) == 8 ? 1e-14 : 1e-6;
    la_t_fill(&rng, 40, g0);
    memcpy(g, g0, sizeof g);
    LA_CHECK(t, la_clip_norm(40, g, 0.5, &nrm) == 0, "status");
    for (i = 0; i < 40; ++i) {
      dot += (double)g[i] * g0[i];
      n0 += (double)g0[i] * g0[i];
      n1 += (double)g[i] * g[i];
    }
    LA_CHECK(t, fabs(nrm - sqrt(n0)) <= tol * sqrt(n0), "norm before");
    LA_CHECK(t, fabs(sqrt(n1) - 0.5) <= tol, "capped %g", sqrt(n1));
    LA_CHECK(t, dot / sqrt(n0 * n1) >= 1 - tol, "direction");
    /* below the threshold nothing changes, bit for bit */
    memcpy(g, g0, sizeof g);
    LA_CHECK(t, la_clip_norm(40, g, 100, NULL) == 0, "status");
    LA_CHECK(t, memcmp(g, g0, sizeof g) == 0, "untouched");
    /* per block: each capped on its own, the small one untouched */
    memcpy(g, g0, sizeof g);
    for (i = 10; i < 25; ++i) g[i] = g0[i] = (la_real)(g0[i] * 1e-3);
    LA_CHECK(t, la_clip_blocks(40, g, 3, off, size, 0.1) == 0, "blocks");
    for (b = 0; b < 3; ++b) {
      double nb = 0, nb0 = 0, db = 0;
      for (i = off[b]; i < off[b] + size[b]; ++i) {
        nb += (double)g[i] * g[i];
        nb0 += (double)g0[i] * g0[i];
        db += (double)g[i] * g0[i];
      }
      if (sqrt(nb0) <= 0.1)
        LA_CHECK(t, memcmp(g + off[b], g0 + off[b], sizeof(la_real) * size[b]) == 0,
                 "small block %d", b);
      else
        LA_CHECK(t, fabs(sqrt(nb) - 0.1) <= tol, "block %d: %g", b, sqrt(nb));
      LA_CHECK(t, db / sqrt(nb * nb0) >= 1 - tol, "block direction %d", b);
    }
    if (sizeof(la_real) == 8) {
      /* entries whose squares overflow a double still have a finite norm */
      la_real h[3];
      h[0] = (la_real)3e200; h[1] = (la_real)-4e200; h[2] = 0;
      LA_CHECK(t, la_clip_norm(3, h, 1, &nrm) == 0, "huge status");
      LA_CHECK(t, fabs(nrm / 5e200 - 1) <= 1e-15, "huge norm %g", nrm);
      LA_CHECK(t, fabs(h[0] - 0.6) <= 1e-15 && fabs(h[1] + 0.8) <= 1e-15,
               "huge clipped %g %g", (double)h[0], (double)h[1]);
      h[2] = (la_real)(h[0] / 0.0); /* an infinite entry stays an error */
      LA_CHECK(t, la_clip_norm(3, h, 1, &nrm) == LA_ENONFINITE, "inf entry");
    }
    LA_CHECK(t, la_clip_norm(40, NULL, 1, NULL) == LA_ENULL, "null");
    LA_CHECK(t, la_clip_norm(0, g, 1, NULL) == LA_EDIM, "n");
    LA_CHECK(t, la_clip_norm(40, g, 0, NULL) == LA_ERANGE, "zero");
    LA_CHECK(t, la_clip_norm(40, g, -1, NULL) == LA_ERANGE, "negative");
    LA_CHECK(t, la_clip_blocks(40, g, 3, off, size, 0) == LA_ERANGE, "blk zero");
    LA_CHECK(t, la_clip_blocks(40, g, 3, NULL, size, 1) == LA_ENULL, "blk null");
    LA_CHECK(t, la_clip_blocks(40, g, 0, off, size, 1) == LA_EDIM, "blk count");
    size[2] = 16;
    LA_CHECK(t, la_clip_blocks(40, g, 3, off, size, 1) == LA_EDIM, "blk past end");
    g[3] = (la_real)INFINITY;
    LA_CHECK(t, la_clip_norm(40, g, 1, NULL) == LA_ENONFINITE, "inf");
  }
}

static void test_schedule(la_t *t) {
  LA_TEST(t, "optim: schedules constant, halving, cosine, warmup") {
    la_schedule s;
    double f;
    const double pi = 3.14159265358979323846;
    memset(&s, 0, sizeof s);
    LA_CHECK(t, la_schedule_scale(&s, 0, &f) == 0 && f == 1, "constant 0");
    LA_CHECK(t, la_schedule_scale(&s, 123456, &f) == 0 && f == 1, "constant");
    s.kind = LA_SCHED_HALVING;
    s.period = 100;
    LA_CHECK(t, la_schedule_scale(&s, 99, &f) == 0 && f == 1, "halving 99");
    LA_CHECK(t, la_schedule_scale(&s, 100, &f) == 0 && f == 0.5, "halving 100");
    LA_CHECK(t, la_schedule_scale(&s, 350, &f) == 0 && f == 0.125, "halving 350");
    s.decay = 0.1;
    LA_CHECK(t, la_schedule_scale(&s, 250, &f) == 0 && fabs(f - 0.01) < 1e-15, "decay");
    memset(&s, 0, sizeof s);
    s.kind = LA_SCHED_COSINE;
    s.total = 1000;
    s.min_scale = 0.2;
    LA_CHECK(t, la_schedule_scale(&s, 0, &f) == 0 && f == 1, "cos 0");
    LA_CHECK(t, la_schedule_scale(&s, 500, &f) == 0 && fabs(f - 0.6) < 1e-15, "cos mid");
    LA_CHECK(t, la_schedule_scale(&s, 250, &f) == 0 &&
                    fabs(f - (0.2 + 0.8 * 0.5 * (1 + cos(pi / 4)))) < 1e-15, "cos q");
    LA_CHECK(t, la_schedule_scale(&s, 5000, &f) == 0 && fabs(f - 0.2) < 1e-15, "cos end");
    s.warmup = 10; /* (t + 1) / 10 while t < 10, the cosine starts at 10 */
    LA_CHECK(t, la_schedule_scale(&s, 0, &f) == 0 && fabs(f - 0.1) < 1e-15, "warm 0");
    LA_CHECK(t, la_schedule_scale(&s, 4, &f) == 0 && fabs(f - 0.5) < 1e-15, "warm 4");
    LA_CHECK(t, la_schedule_scale(&s, 10, &f) == 0 && f == 1, "warm done");
    LA_CHECK(t, la_schedule_scale(&s, 505, &f) == 0 && fabs(f - 0.6) < 1e-15,
             "warm cos mid %g", f);
    /* bad ones */
    LA_CHECK(t, la_schedule_scale(&s, -1, &f) == LA_ERANGE, "t < 0");
    LA_CHECK(t, la_schedule_scale(&s, 0, NULL) == LA_ENULL, "null out");
    LA_CHECK(t, la_schedule_check(NULL) == LA_ENULL, "null");
    s.total = 10;
    LA_CHECK(t, la_schedule_check(&s) == LA_ERANGE, "total <= warmup");
    s.total = 100;
    s.min_scale = 1.5;
    LA_CHECK(t, la_schedule_check(&s) == LA_ERANGE, "min");
    memset(&s, 0, sizeof s);
    s.kind = LA_SCHED_HALVING;
    s.period = -1;
    LA_CHECK(t, la_schedule_check(&s) == LA_ERANGE, "period");
    {
      /* zero is the default period and decay, as in a run */
      la_schedule z = s, dflt = s;
      double a, b;
      z.period = 0;
      dflt.period = LA_SCHED_PERIOD;
      dflt.decay = LA_SCHED_DECAY;
      LA_CHECK(t, la_schedule_scale(&z, 2500, &a) == 0 &&
                      la_schedule_scale(&dflt, 2500, &b) == 0 && a == b &&
                      a == 0.25,
               "period 0 is %d: %g %g", LA_SCHED_PERIOD, a, b);
    }
    s.period = 5;
    s.decay = 1;
    LA_CHECK(t, la_schedule_check(&s) == LA_ERANGE, "decay");
    s.decay = 0;
    s.warmup = -1;
    LA_CHECK(t, la_schedule_check(&s) == LA_ERANGE, "warmup");
    s.warmup = 0;
    s.kind = 9;
    LA_CHECK(t, la_schedule_check(&s) == LA_ERANGE, "kind");
  }
}


/* ------------------------------------------- the optimizers of today */

/* One step of o at lr_scale 1 on theta of model m (NULL: a vector of n). */
static int opt_step1(const la_optimizer *o, la_optim_config *c, int n,
                     double *state, size_t cap, const la_real *g,
                     la_real *th, la_real *u) {
  size_t len;
  int st = la_optim_state_len(o, c, n, &len);
  if (st) return st;
  if (len > cap) return LA_EWORKSPACE;
  return la_optim_step(o, c, n, state, len, 1.0, g, th, u);
}

static void test_lion(la_t *t) {
  double u[3][3];
  int s, i;
  LA_TEST(t, "optim: lion's update is lr times a sign, its momentum by hand") {
    la_optim_config c;
    memset(&c, 0, sizeof c);
    c.lr = 0.1;
    LA_CHECK(t, opt_run(la_optimizer_lion(), &c, 3, opt_g[0], opt_th0, u) == 0, "run");
    for (s = 0; s < 3; ++s)
      for (i = 0; i < 3; ++i) {
        /* c_t = 0.9 m_{t-1} + 0.1 g_t, m_t = sum 0.99^(t-1-j) 0.01 g_j */
        double m = 0, ct;
        int j;
        for (j = 0; j < s; ++j) m = 0.99 * m + 0.01 * opt_g[j][i];
        ct = 0.9 * m + 0.1 * opt_g[s][i];
        LA_CHECK(t, u[s][i] == (ct > 0 ? -(la_real)0.1 : (la_real)0.1),
                 "sign %d %d", s, i);
      }
    c.weight_decay = 0.5;
    LA_CHECK(t, opt_run(la_optimizer_lion(), &c, 1, opt_g[0], opt_th0, u) == 0, "run");
    for (i = 0; i < 3; ++i)
      LA_CHECK(t, opt_close(u[0][i], -0.1 * ((opt_g[0][i] > 0 ? 1 : -1) +
                                             0.5 * (double)(la_real)opt_th0[i])),
               "decay %d", i);
  }
}

/* |got - want| within rounding of the values a difference of two thetas
   is made of. */
static int opt_close_at(double got, double want, double scale) {
  return fabs(got - want) <=
         (sizeof(la_real) == 8 ? 1e-12 : 3e-7) * (fabs(scale) + fabs(want));
}

static void test_sfadamw(la_t *t) {
  LA_TEST(t, "optim: schedule-free adamw, x y z of the paper's box by hand") {
    la_optim_config c;
    double st[16] = {0}, x[3], y[3], z[3], v[3], wsum = 0, lrmax = 0;
    double b1 = 0.9, b2 = 0.999, lr = 0.1, wd = 0.25;
    la_real th[3], g[3], u[3];
    int s, i, ok = 1;
    memset(&c, 0, sizeof c);
    c.lr = lr;
    c.weight_decay = wd;
    for (i = 0; i < 3; ++i) {
      th[i] = (la_real)opt_th0[i];
      x[i] = y[i] = z[i] = (double)th[i];
      v[i] = 0;
    }
    for (s = 0; s < 3; ++s) {
      double lrt = lr * sqrt(1 - pow(b2, s + 1)), ck;
      for (i = 0; i < 3; ++i) g[i] = (la_real)opt_g[s][i];
      LA_CHECK(t, opt_step1(la_optimizer_sfadamw(), &c, 3, st, 16, g, th, u) == 0,
               "step %d", s);
      lrmax = lrt > lrmax ? lrt : lrmax;
      wsum += lrmax * lrmax;
      ck = lrmax * lrmax / wsum;
      for (i = 0; i < 3; ++i) {
        double gi = opt_g[s][i], yo = y[i];
        v[i] = b2 * v[i] + (1 - b2) * gi * gi;
        z[i] -= lrt * (gi / (sqrt(v[i]) + 1e-8) + wd * yo);
        x[i] = (1 - ck) * x[i] + ck * z[i];
        y[i] = (1 - b1) * z[i] + b1 * x[i];
        ok &= opt_close_at(u[i], y[i] - yo, yo);
        y[i] = (double)th[i]; /* the rounded theta the next gradient is at */
      }
      LA_CHECK(t, ok, "step %d", s);
    }
  }
}

/* The model the matrix optimizers' tests see: d = 3, one layer, a front
   MLP of width 2 (blocks B, A 3 x 3, W1 2 x 3, b1, W2 3 x 2, b2). */
static int opt_model(la_model *m) {
  la_model_config mc;
  memset(&mc, 0, sizeof mc);
  mc.d = 3;
  mc.n = 4;
  mc.layers = 1;
  mc.front_hidden = 2;
  return la_model_init(m, &mc);
}

static void test_muon(la_t *t) {
  LA_TEST(t, "optim: muon orthogonalizes each matrix, Adam on the vectors") {
    la_model m;
    la_optim_config c;
    la_rng r;
    double st[512], *w = NULL, *q = NULL;
    la_real th[64], g[64], u[64];
    int nb, i, b, k, boff[16], bsz[16];
    LA_CHECK(t, opt_model(&m) == 0 && m.nparams <= 64, "model");
    memset(&c, 0, sizeof c);
    c.lr = 1;
    c.model = &m;
    la_rng_seed(&r, 5, 0);
    for (i = 0; i < m.nparams; ++i) {
      th[i] = (la_real)la_rng_normal(&r);
      g[i] = (la_real)la_rng_normal(&r);
    }
    memset(st, 0, sizeof st);
    LA_CHECK(t, opt_step1(la_optimizer_muon(), &c, m.nparams, st, 512, g, th, u) == 0,
             "step");
    nb = la_model_blocks(&m, boff, bsz, 16);
    LA_CHECK(t, nb == 6, "%d blocks", nb);
    w = (double *)malloc(sizeof(double) * 64);
    q = (double *)malloc(la_sym_eig_work_bytes(3) + 64);
    for (b = 0; w && q && b < nb; ++b) {
      int rows, cols, off = la_model_block_info(&m, b, NULL, NULL, NULL, &rows, &cols);
      if (rows > 1 && cols > 1) {
        /* O = -u / sqrt(max(1, rows / cols)): O O^T's eigenvalues near 1
           (the quintic's band), O G^T symmetric positive definite (O has
           G's singular vectors) */
        int a = rows < cols ? rows : cols, tr = rows > cols;
        double f = sqrt(rows > cols ? (double)rows / cols : 1.0), oo[9], og[9];
        for (i = 0; i < a; ++i)
          for (k = 0; k < a; ++k) {
            double s1 = 0, s2 = 0;
            int l, L = tr ? rows : cols;
            for (l = 0; l < L; ++l) {
              int pi = tr ? off + l * cols + i : off + i * cols + l;
              int pk = tr ? off + l * cols + k : off + k * cols + l;
              s1 += (double)u[pi] * (double)u[pk] / (f * f);
              s2 += -(double)u[pi] / f * (double)g[pk];
            }
            oo[i * a + k] = s1;
            og[i * a + k] = s2;
          }
        for (i = 0; i < a; ++i)
          for (k = 0; k < i; ++k)
            LA_CHECK(t, fabs(og[i * a + k] - og[k * a + i]) <=
                            1e-5 * (fabs(og[i * a + k]) + 1),
                     "O G^T symmetric, block %d", b);
        LA_CHECK(t, la_sym_eig(a, oo, w, NULL, q, la_sym_eig_work_bytes(3) + 64) == 0,
                 "eig");
        for (i = 0; i < a; ++i)
          LA_CHECK(t, w[i] > 0.3 && w[i] < 1.3, "block %d: %g", b, w[i]);
        LA_CHECK(t, la_sym_eig(a, og, w, NULL, q, la_sym_eig_work_bytes(3) + 64) == 0,
                 "eig");
        for (i = 0; i < a; ++i) LA_CHECK(t, w[i] > 0, "O G^T block %d: %g", b, w[i]);
      } else {
        /* Adam's first step: lr_aux g / (|g| + eps) */
        for (i = off; i < off + rows * cols; ++i)
          LA_CHECK(t, opt_close(u[i], -3e-4 * (double)g[i] / (fabs((double)g[i]) + 1e-10)),
                   "adam %d", i);
      }
    }
    free(w);
    free(q);
    /* a model that is not theta's */
    LA_CHECK(t, opt_step1(la_optimizer_muon(), &c, m.nparams - 1, st, 512, g, th, u) ==
                    LA_ESHAPE, "shape");
  }
}

static void test_adafactor(la_t *t) {
  LA_TEST(t, "optim: adafactor's factored moments are exact for a rank-one g^2") {
    la_model m;
    la_optim_config c;
    la_rng r;
    double st[512], rms[8];
    la_real th[64], th0[64] = {0}, g[64], u[64];
    int nb, i, b, pass, boff[16], bsz[16];
    LA_CHECK(t, opt_model(&m) == 0 && m.nparams <= 64, "model");
    nb = la_model_blocks(&m, boff, bsz, 16);
    la_rng_seed(&r, 9, 0);
    for (i = 0; i < m.nparams; ++i) th0[i] = (la_real)la_rng_normal(&r);
    /* each block's g the outer product of two vectors: g^2 is rank one */
    for (b = 0; b < nb; ++b) {
      int rows, cols, off = la_model_block_info(&m, b, NULL, NULL, NULL, &rows, &cols);
      int k;
      double s = 0;
      for (i = 0; i < rows; ++i)
        for (k = 0; k < cols; ++k)
          g[off + i * cols + k] = (la_real)((i + 1.5) * (k % 2 ? -1 : 1) * (0.5 + k));
      for (i = off; i < off + rows * cols; ++i) s += (double)th0[i] * th0[i];
      rms[b] = sqrt(s / (rows * cols));
    }
    for (pass = 0; pass < 2; ++pass) {
      memset(&c, 0, sizeof c);
      c.model = &m;
      c.beta1 = pass ? 0.5 : 0;
      memcpy(th, th0, sizeof th);
      memset(st, 0, sizeof st);
      LA_CHECK(t, opt_step1(la_optimizer_adafactor(), &c, m.nparams, st, 512, g, th, u) == 0,
               "step");
      /* beta2_1 = 0: V = g^2, U = sign(g), RMS(U) = 1; alpha = RMS(theta)
         min(1e-2, 1) */
      for (b = 0; b < nb; ++b) {
        int rows, cols, off = la_model_block_info(&m, b, NULL, NULL, NULL, &rows, &cols);
        double a = 1e-2 * rms[b] * (pass ? 0.5 : 1);
        for (i = off; i < off + rows * cols; ++i)
          LA_CHECK(t, fabs((double)u[i] + a * (g[i] > 0 ? 1 : -1)) <= 1e-6 * a,
                   "pass %d block %d entry %d: %g", pass, b, i, (double)u[i]);
      }
    }
    /* a vector: V = g^2 + eps exactly */
    {
      double s[16] = {0}, x = 0;
      la_real v[3];
      memset(&c, 0, sizeof c);
      for (i = 0; i < 3; ++i) {
        v[i] = (la_real)opt_th0[i];
        x += opt_th0[i] * opt_th0[i];
      }
      x = sqrt(x / 3);
      for (i = 0; i < 3; ++i) g[i] = (la_real)opt_g[0][i];
      LA_CHECK(t, opt_step1(la_optimizer_adafactor(), &c, 3, s, 16, g, v, u) == 0, "vector");
      for (i = 0; i < 3; ++i)
        LA_CHECK(t, opt_close(u[i], -1e-2 * x * (opt_g[0][i] > 0 ? 1 : -1)), "vector %d", i);
    }
  }
}

static void test_shampoo_soap(la_t *t) {
  LA_TEST(t, "optim: shampoo's first step orthogonalizes G; soap is Adam before its basis") {
    la_model m;
    la_optim_config c, ca;
    la_rng r;
    double st[1024], sa[512], w[4], q[512];
    la_real th[64], g[64], u[64], ta[64], ua[64];
    int nb, i, b, k, s, boff[16], bsz[16], differ = 0;
    LA_CHECK(t, opt_model(&m) == 0 && m.nparams <= 64, "model");
    nb = la_model_blocks(&m, boff, bsz, 16);
    memset(&c, 0, sizeof c);
    c.lr = 1;
    c.eps = 1e-12;
    c.model = &m;
    la_rng_seed(&r, 6, 0);
    for (i = 0; i < m.nparams; ++i) {
      th[i] = (la_real)la_rng_normal(&r);
      g[i] = (la_real)la_rng_normal(&r);
    }
    memset(st, 0, sizeof st);
    LA_CHECK(t, la_optim_init(la_optimizer_shampoo(), &c, m.nparams, st, 1024) == 0 &&
                    opt_step1(la_optimizer_shampoo(), &c, m.nparams, st, 1024, g, th, u) == 0,
             "shampoo step");
    /* L^-1/4 G R^-1/4 = U S (S^2 + eps)^-1/2 V^T: U V^T, O O^T = I */
    for (b = 0; b < nb; ++b) {
      int rows, cols, off = la_model_block_info(&m, b, NULL, NULL, NULL, &rows, &cols);
      int a = rows < cols ? rows : cols, tr = rows > cols, L = tr ? rows : cols, l;
      double oo[9];
      if (rows < 2 || cols < 2) continue;
      for (i = 0; i < a; ++i)
        for (k = 0; k < a; ++k) {
          double s1 = 0;
          for (l = 0; l < L; ++l)
            s1 += (double)u[tr ? off + l * cols + i : off + i * cols + l] *
                  (double)u[tr ? off + l * cols + k : off + k * cols + l];
          oo[i * a + k] = s1;
        }
      LA_CHECK(t, la_sym_eig(a, oo, w, NULL, q, sizeof q) == 0, "eig");
      for (i = 0; i < a; ++i)
        LA_CHECK(t, fabs(w[i] - 1) < 1e-4, "block %d: %g", b, w[i]);
    }
    /* soap: the identity basis for the first precond_every steps is Adam,
       bit for bit; then its own */
    memset(&c, 0, sizeof c);
    memset(&ca, 0, sizeof ca);
    c.model = &m;
    c.precond_every = 3;
    ca.lr = c.lr = 0.01;
    ca.beta1 = ca.beta2 = 0.95;
    memcpy(ta, th, sizeof ta);
    LA_CHECK(t, la_optim_init(la_optimizer_soap(), &c, m.nparams, st, 1024) == 0 &&
                    la_optim_init(la_optimizer_adam(), &ca, m.nparams, sa, 512) == 0,
             "init");
    for (s = 0; s < 5; ++s) {
      for (i = 0; i < m.nparams; ++i) g[i] = (la_real)la_rng_normal(&r);
      LA_CHECK(t, opt_step1(la_optimizer_soap(), &c, m.nparams, st, 1024, g, th, u) == 0 &&
                      opt_step1(la_optimizer_adam(), &ca, m.nparams, sa, 512, g, ta, ua) == 0,
               "step %d", s);
      if (s < 3)
        LA_CHECK(t, memcmp(u, ua, sizeof(la_real) * (size_t)m.nparams) == 0, "adam %d", s);
      else
        differ += memcmp(u, ua, sizeof(la_real) * (size_t)m.nparams) != 0;
    }
    LA_CHECK(t, differ == 2, "its own basis after step 3");
  }
}

/* Sophia: the request for an estimate at steps 1, 1 + k, ..; the update
   against Algorithm 3 written here (m, h, the clipped ratio, decoupled
   decay) on given gradients and estimates; and the trainer's own run held
   bit for bit to a loop of the public calls (its batches, its estimates
   from the run's seed's stream LA_STREAM_HESS at the position the state
   holds), for each estimator. */
static int sophia_objective(void *ctx, const la_real *th, const la_batch *b,
                            double *loss, la_real *g) {
  int i;
  (void)ctx;
  (void)b;
  *loss = 0;
  for (i = 0; i < 3; ++i) {
    *loss += (double)th[i] * th[i];
    if (g) g[i] = 2 * th[i];
  }
  return LA_OK;
}
static void test_sophia(la_t *t) {
  LA_TEST(t, "optim: sophia asks every k steps, its update by Algorithm 3, the trainer's loop") {
    enum { N = 5, K = 3, STEPS = 8 };
    la_optim_config c;
    la_curvature q;
    double st[64], m[N], h[N];
    la_real th[N], g[N], u[N];
    size_t len;
    int s, i, est;
    la_rng r;
    int clipped = 0;
    memset(&c, 0, sizeof c);
    c.lr = 0.1;
    c.beta1 = 0.9;
    c.beta2 = 0.8;
    c.eps = 1e-3;
    c.gamma = 0.5;
    c.weight_decay = 0.2;
    c.precond_every = K;
    LA_CHECK(t, la_optim_state_len(la_optimizer_sophia(), &c, N, &len) == 0 &&
                    len == 2 + 3 * N && la_optim_init(la_optimizer_sophia(), &c, N, st, 64) == 0,
             "state");
    la_rng_seed(&r, 9, 0);
    for (i = 0; i < N; ++i) {
      th[i] = (la_real)la_rng_normal(&r);
      m[i] = h[i] = 0;
    }
    for (s = 0; s < STEPS; ++s) {
      double hh[N], t0[N];
      int renew = s % K == 0;
      LA_CHECK(t, la_optim_curvature(la_optimizer_sophia(), &c, N, st, len, &q) == 0 &&
                      (q.want != NULL) == renew && q.estimator == LA_HESS_HUTCHINSON &&
                      q.position == st + 1,
               "step %d: asked %d", s + 1, q.want != NULL);
      for (i = 0; i < N; ++i) {
        g[i] = (la_real)la_rng_normal(&r);
        /* some entries negative: max(gamma h, eps) then eps */
        hh[i] = i == 0 ? -1 : 0.05 + 2 * la_rng_uniform(&r);
        if (renew) q.want[i] = hh[i];
        t0[i] = (double)th[i];
      }
      LA_CHECK(t, la_optim_step(la_optimizer_sophia(), &c, N, st, len, 1.0, g, th, u) == 0,
               "step %d", s + 1);
      for (i = 0; i < N; ++i) {
        double rt, den;
        m[i] = 0.9 * m[i] + 0.1 * (double)g[i];
        if (renew) h[i] = 0.8 * h[i] + 0.2 * hh[i];
        den = fmax(0.5 * h[i], 1e-3);
        rt = fmin(1, fmax(-1, m[i] / den));
        clipped += fabs(m[i] / den) > 1;
        LA_CHECK(t, opt_close(u[i], -0.1 * (0.2 * t0[i] + rt)),
                 "step %d entry %d: %g", s + 1, i, (double)u[i]);
      }
      for (i = 0; i < N; ++i) LA_CHECK(t, st[2 + 2 * N + i] == 0, "h_hat cleared");
    }
    LA_CHECK(t, st[0] == STEPS && clipped > 0 && clipped < N * STEPS, "step count; %d clipped",
             clipped);
    /* an optimizer without a curvature function asks for nothing */
    memset(&q, 1, sizeof q);
    LA_CHECK(t, la_optim_curvature(la_optimizer_adam(), NULL, N, st, 64, &q) == 0 && !q.want,
             "adam");
    LA_CHECK(t, la_optim_curvature(la_optimizer_sophia(), &c, N, st, len, NULL) == LA_ENULL &&
                    la_optim_curvature(la_optimizer_sophia(), &c, N, st, len - 1, &q) ==
                        LA_EWORKSPACE,
             "refusals");
    c.eps = LA_ZERO;
    LA_CHECK(t, la_optim_check(la_optimizer_sophia(), &c) == LA_ERANGE, "eps 0");
    c.eps = 1e-3;
    c.hessian = 3;
    LA_CHECK(t, la_optim_check(la_optimizer_sophia(), &c) == LA_ERANGE, "hessian 3");
    /* the trainer against the public calls, each estimator */
    for (est = LA_HESS_HUTCHINSON; est <= LA_HESS_GNB; ++est) {
      la_data dg;
      la_model md;
      la_train_config tc;
      la_trainer tr;
      la_batch b;
      la_real tm[64], gm[64], um[64];
      double sm[256];
      int n;
      memset(&c, 0, sizeof c);
      c.precond_every = 2;
      c.hessian = est;
      c.lr = 0.01;
      memset(&tc, 0, sizeof tc);
      tc.model = &md;
      tc.data = &dg;
      tc.batch = 16;
      tc.eval_every = -1;
      tc.seed = 21;
      tc.clip_norm = 1;
      tc.optimizer = la_optimizer_sophia();
      tc.optimizer_config = &c;
      LA_CHECK(t, la_t_small(&dg, &md, 4) == 0 && la_trainer_create(&tr, &tc) == 0 &&
                      la_batch_create(&b, 2, 3, 16) == 0,
               "%d: trainer", est);
      n = tr.n;
      memcpy(tm, tr.theta, sizeof(la_real) * (size_t)n);
      LA_CHECK(t, la_optim_state_len(la_optimizer_sophia(), &c, n, &len) == 0 && len <= 256 &&
                      la_optim_init(la_optimizer_sophia(), &c, n, sm, len) == 0,
               "%d: state", est);
      LA_CHECK(t, la_trainer_run(&tr, 5) == 0, "%d: run", est);
      for (s = 0; s < 5; ++s) {
        la_rng dr, hr;
        la_rng_seed(&dr, 21, (uint64_t)s);
        LA_CHECK(t, la_data_sample(&dg, &dr, &b) == 0 &&
                        la_model_grad(&md, tm, &b, NULL, gm, NULL, 0) == 0 &&
                        la_clip_norm(n, gm, 1, NULL) == 0 &&
                        la_optim_curvature(la_optimizer_sophia(), &c, n, sm, len, &q) == 0,
                 "%d: step %d", est, s);
        if (q.want) {
          la_rng_seed(&hr, 21, LA_STREAM_HESS);
          hr.counter = (uint64_t)*q.position;
          LA_CHECK(t, la_hdiag_estimate(&md, est, tm, &b, &hr, q.want, NULL, 0) == 0,
                   "%d: estimate", est);
          *q.position = (double)hr.counter;
        }
        LA_CHECK(t, la_optim_step(la_optimizer_sophia(), &c, n, sm, len, 1.0, gm, tm, um) == 0,
                 "%d: step", est);
      }
      LA_CHECK(t, memcmp(tm, tr.theta, sizeof(la_real) * (size_t)n) == 0 &&
                      memcmp(sm, tr.state, sizeof(double) * len) == 0 &&
                      (est == LA_HESS_EXACT) == (sm[1] == 0),
               "%d: the trainer's theta and state, bit for bit", est);
      la_batch_destroy(&b);
      la_trainer_destroy(&tr);
      la_data_destroy(&dg);
    }
    {
      /* an objective in the model's place: no Hessian to estimate */
      la_train_config tc;
      size_t bytes;
      memset(&tc, 0, sizeof tc);
      tc.nparams = 3;
      tc.objective = sophia_objective;
      tc.optimizer = la_optimizer_sophia();
      LA_CHECK(t, la_trainer_bytes(&tc, &bytes) == LA_EUNSUPPORTED, "an objective");
      tc.optimizer = la_optimizer_adam();
      LA_CHECK(t, la_trainer_bytes(&tc, &bytes) == LA_OK, "adam with it");
    }
  }
}

/* Each of them resumed from a checkpoint: the same theta and state, bit
   for bit, as the run that went on. */
static void test_new_resume(la_t *t) {
  static const char *const names[] = {"lion",   "sfadamw", "muon",
                                      "adafactor", "shampoo", "soap",
                                      "sophia", "sophia",  "sophia"};
  int k;
  LA_TEST(t, "optim: lion, sfadamw, muon, adafactor, shampoo, soap, sophia (each estimator) resume bit for bit") {
    for (k = 0; k < 9; ++k) {
      la_run_config c, fc;
      la_run a, b, r;
      size_t cap = 0, len = 0;
      unsigned char *buf;
      la_run_preset(&c, "1", names[k]);
      c.data.d = 3;
      c.data.n = 4;
      c.model.layers = 2;
      c.model.front_hidden = 2;
      c.batch = 16;
      c.eval_batch = 16;
      c.eval_every = 5;
      c.steps = 8;
      c.seed = 11;
      c.opt.precond_every = k >= 4 ? 2 : 0; /* a basis before and after */
      if (k >= 6) c.opt.hessian = k - 6;    /* sophia: each estimator */
      LA_CHECK(t, la_run_create(&a, &c, NULL) == 0 && la_trainer_run(&a.trainer, 8) == 0,
               "%s unbroken", names[k]);
      LA_CHECK(t, la_run_create(&b, &c, NULL) == 0 && la_trainer_run(&b.trainer, 3) == 0,
               "%s first part", names[k]);
      LA_CHECK(t, la_checkpoint_bytes(&b.trainer, &cap) == 0, "bytes");
      buf = (unsigned char *)malloc(cap);
      LA_CHECK(t, buf && la_checkpoint_save_mem(&b.trainer, buf, cap, &len) == 0, "save");
      LA_CHECK(t, la_checkpoint_run(buf, len, &fc, NULL) == 0 &&
                      la_run_create(&r, &fc, NULL) == 0 &&
                      la_run_resume_mem(&r, buf, len, NULL) == 0 &&
                      la_trainer_run(&r.trainer, 5) == 0,
               "%s resumed", names[k]);
      LA_CHECK(t, r.trainer.n == a.trainer.n && a.trainer.diverged_step == 0 &&
                      memcmp(r.trainer.theta, a.trainer.theta,
                             sizeof(la_real) * (size_t)a.trainer.n) == 0 &&
                      r.trainer.state_len == a.trainer.state_len &&
                      memcmp(r.trainer.state, a.trainer.state,
                             sizeof(double) * a.trainer.state_len) == 0,
               "%s bit for bit", names[k]);
      /* the step moved theta */
      LA_CHECK(t, memcmp(b.trainer.theta, a.trainer.theta,
                         sizeof(la_real) * (size_t)a.trainer.n) != 0, "%s moved", names[k]);
      free(buf);
      la_run_destroy(&r);
      la_run_destroy(&a);
      la_run_destroy(&b);
    }
  }
}

static void suite_optim(la_t *t) {
  test_sgd(t);
  test_adam(t);
  test_sign_nsgd(t);
  test_adagrad_rmsprop(t);
  test_optim_bad(t);
  test_clip(t);
  test_schedule(t);
  test_lion(t);
  test_sfadamw(t);
  test_muon(t);
  test_adafactor(t);
  test_shampoo_soap(t);
  test_sophia(t);
  test_new_resume(t);
}
