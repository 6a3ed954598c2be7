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

static void suite_optim(la_t *t) {
  test_sgd(t);
  test_adam(t);
  test_sign_nsgd(t);
  test_adagrad_rmsprop(t);
  test_optim_bad(t);
  test_clip(t);
  test_schedule(t);
}
