/* The model against independent computations: a naive forward pass on plain
   matrices written from the formula, finite differences of the loss and the
   gradient, the scalar kernels, and two closed forms of paper B (Lemma 1:
   one layer of the pgd form is a step of preconditioned GD; Theorem 1: the
   one-layer optimum under Gaussian data). Test data comes from the test's
   own generator, never from the library's. */

#ifdef LINATTN_DOUBLE
#define TM_DBL 1
#else
#define TM_DBL 0
#endif

/* A batch filled by the test: plain copies beside the interleaved one. */
typedef struct tm_data {
  int d, n, count;
  double *z; /* count x (d+1) x (n+1), row-major per prompt */
  double *y; /* count targets */
  la_batch b;
} tm_data;

static double tm_normal(la_t_rng *r) {
  double u = 0.5 * (la_t_uniform(r) + 1.0), v = 0.5 * (la_t_uniform(r) + 1.0);
  if (u < 1e-300) u = 1e-300;
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Interleave the plain data of td into its batch (after edits). */
static void tm_pack(tm_data *td) {
  int D = td->d + 1, T = td->n + 1;
  size_t nz = (size_t)td->count * D * T, e;
  la_real *tmp = (la_real *)malloc(sizeof(la_real) * (nz + td->count));
  for (e = 0; e < nz; ++e) tmp[e] = (la_real)td->z[e];
  for (e = 0; e < (size_t)td->count; ++e) tmp[nz + e] = (la_real)td->y[e];
  la_pack(td->count, D, T, tmp, td->b.z);
  la_pack(td->count, 1, 1, tmp + nz, td->b.y);
  /* round the plain copy to what the library sees */
  for (e = 0; e < nz; ++e) td->z[e] = tmp[e];
  for (e = 0; e < (size_t)td->count; ++e) td->y[e] = tmp[nz + e];
  free(tmp);
}

static void tm_alloc(tm_data *td, int d, int n, int count) {
  int D = d + 1, T = n + 1, np;
  if (count < 1) count = 1;
  np = la_panels(count);
  td->d = d; td->n = n; td->count = count;
  td->z = (double *)calloc((size_t)count * D * T, sizeof(double));
  td->y = (double *)calloc((unsigned)count, sizeof(double));
  td->b.d = d; td->b.n = n; td->b.count = count;
  td->b.z = (la_real *)la_alloc(sizeof(la_real) * (size_t)np * D * T * LA_W);
  td->b.y = (la_real *)la_alloc(sizeof(la_real) * (size_t)np * LA_W);
}

/* Uniform [-1, 1) tokens, query's y zero, targets uniform. */
static void tm_make(tm_data *td, int d, int n, int count, la_t_rng *r) {
  int D = d + 1, T = n + 1, b, i, j;
  tm_alloc(td, d, n, count);
  for (b = 0; b < count; ++b) {
    double *Z = td->z + (size_t)b * D * T;
    for (i = 0; i < D; ++i)
      for (j = 0; j < T; ++j) Z[i * T + j] = la_t_uniform(r);
    Z[d * T + n] = 0;
    td->y[b] = la_t_uniform(r);
  }
  tm_pack(td);
}

static void tm_free(tm_data *td) {
  free(td->z); free(td->y);
  la_free(td->b.z); la_free(td->b.y);
}

/* ------------------------------------------------ the naive model */
/* Straight from the formula, in double, on plain (d+1) x (n+1) matrices:
   its own reading of the documented packing of theta. */

typedef struct tm_cfg {
  int d, n, L, param, act, h;
} tm_cfg;

static int tm_nparams(const tm_cfg *c) {
  int d = c->d, D = d + 1, per;
  per = c->param == LA_PARAM_DENSE ? 2 * D * D
        : c->param == LA_PARAM_SPARSE ? 2 * d * d : d * d;
  return c->L * per + (c->h ? 2 * c->h * d + c->h + d : 0);
}

/* P, Q of layer l (D x D each) from theta. */
static void tm_layer(const tm_cfg *c, const double *th, int l, double *P,
                     double *Q) {
  int d = c->d, D = d + 1, i, j;
  memset(P, 0, sizeof(double) * D * D);
  memset(Q, 0, sizeof(double) * D * D);
  if (c->param == LA_PARAM_DENSE) {
    const double *t = th + (size_t)l * 2 * D * D;
    for (i = 0; i < D * D; ++i) { P[i] = t[i]; Q[i] = t[D * D + i]; }
  } else if (c->param == LA_PARAM_SPARSE) {
    const double *B = th + (size_t)l * 2 * d * d, *A = B + d * d;
    for (i = 0; i < d; ++i)
      for (j = 0; j < d; ++j) { P[i * D + j] = B[i * d + j]; Q[i * D + j] = A[i * d + j]; }
    P[D * D - 1] = 1;
  } else {
    const double *A = th + (size_t)l * d * d;
    for (i = 0; i < d; ++i)
      for (j = 0; j < d; ++j) Q[i * D + j] = A[i * d + j];
    P[D * D - 1] = 1;
  }
}

/* [Z_L]_{d+1,n+1} of one prompt. */
static double tm_naive_prompt(const tm_cfg *c, const double *th,
                              const double *Z0) {
  int d = c->d, n = c->n, D = d + 1, T = n + 1, l, i, j, k, a;
  double *Z = (double *)malloc(sizeof(double) * D * T);
  double *A = (double *)malloc(sizeof(double) * T * T);
  double *PZ = (double *)malloc(sizeof(double) * D * T);
  double *U = (double *)malloc(sizeof(double) * D * T);
  double P[64 * 64], Q[64 * 64], out;
  memcpy(Z, Z0, sizeof(double) * D * T);
  if (c->h) {
    int h = c->h;
    const double *W1 = th + tm_nparams(c) - (2 * h * d + h + d);
    const double *b1 = W1 + h * d, *W2 = b1 + h, *b2 = W2 + d * h;
    double x[64], r[256];
    for (j = 0; j < T; ++j) {
      for (i = 0; i < d; ++i) x[i] = Z[i * T + j];
      for (k = 0; k < h; ++k) {
        double s = b1[k];
        for (i = 0; i < d; ++i) s += W1[k * d + i] * x[i];
        r[k] = s > 0 ? s : 0;
      }
      for (i = 0; i < d; ++i) {
        double s = b2[i];
        for (k = 0; k < h; ++k) s += W2[i * h + k] * r[k];
        Z[i * T + j] = s;
      }
    }
  }
  for (l = 0; l < c->L; ++l) {
    tm_layer(c, th, l, P, Q);
    /* A = Z^T Q Z, then the activation */
    for (i = 0; i < T; ++i)
      for (j = 0; j < T; ++j) {
        double s = 0;
        for (k = 0; k < D; ++k)
          for (a = 0; a < D; ++a) s += Z[k * T + i] * Q[k * D + a] * Z[a * T + j];
        A[i * T + j] = (c->act == LA_ACT_RELU && s < 0) ? 0 : s;
      }
    for (i = 0; i < D; ++i)
      for (j = 0; j < T; ++j) {
        double s = 0;
        for (k = 0; k < D; ++k) s += P[i * D + k] * Z[k * T + j];
        PZ[i * T + j] = s;
      }
    /* P Z M act(A): M drops the query column of P Z */
    for (i = 0; i < D; ++i)
      for (j = 0; j < T; ++j) {
        double s = 0;
        for (k = 0; k < n; ++k) s += PZ[i * T + k] * A[k * T + j];
        U[i * T + j] = s;
      }
    for (i = 0; i < D * T; ++i) Z[i] += U[i] / n;
  }
  out = Z[d * T + n];
  free(Z); free(A); free(PZ); free(U);
  return out;
}

static double tm_naive_loss(const tm_cfg *c, const double *th,
                            const tm_data *td, double *pred) {
  int D = td->d + 1, T = td->n + 1, b;
  double s = 0;
  for (b = 0; b < td->count; ++b) {
    double zl = tm_naive_prompt(c, th, td->z + (size_t)b * D * T);
    double r = zl + td->y[b];
    if (pred) pred[b] = -zl;
    s += r * r;
  }
  return s / td->count;
}

/* ------------------------------------------------------ helpers */

static int tm_model(la_model *m, const tm_cfg *c, const la_kernels *k) {
  la_model_config mc;
  memset(&mc, 0, sizeof mc);
  mc.d = c->d; mc.n = c->n; mc.layers = c->L; mc.param = c->param;
  mc.activation = c->act; mc.front_hidden = c->h; mc.kernels = k;
  return la_model_init(m, &mc);
}

static void tm_theta(la_t_rng *r, int np, double scale, double *thd,
                     la_real *th) {
  int i;
  for (i = 0; i < np; ++i) {
    th[i] = (la_real)(scale * tm_normal(r));
    thd[i] = th[i];
  }
}

/* 4-point central difference of f along direction e at x. */
#define TM_FD4(fp2, fp1, fm1, fm2, h)                                          \
  ((-(fp2) + 8 * (fp1) - 8 * (fm1) + (fm2)) / (12 * (h)))

static const char *tm_pname(int p) {
  return p == LA_PARAM_DENSE ? "dense" : p == LA_PARAM_SPARSE ? "sparse" : "pgd";
}

/* ---------------------------------------------------------- tests */

/* The library's loss and predictions against the naive forward pass. */
static void tm_test_naive(la_t *t) {
  static const tm_cfg cases[] = {
      {5, 20, 3, LA_PARAM_SPARSE, LA_ACT_LINEAR, 0},
      {5, 20, 3, LA_PARAM_DENSE, LA_ACT_LINEAR, 0},
      {3, 7, 2, LA_PARAM_PGD, LA_ACT_LINEAR, 0},
      {4, 9, 3, LA_PARAM_DENSE, LA_ACT_RELU, 0},
      {3, 5, 2, LA_PARAM_SPARSE, LA_ACT_RELU, 5},
      {5, 11, 1, LA_PARAM_DENSE, LA_ACT_LINEAR, 30},
      {1, 1, 4, LA_PARAM_DENSE, LA_ACT_LINEAR, 0},
      {7, 3, 8, LA_PARAM_PGD, LA_ACT_RELU, 2},
  };
  LA_TEST(t, "model: loss and predictions equal a naive forward pass") {
    size_t ci;
    la_t_rng r = {11};
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
      const tm_cfg *c = &cases[ci];
      int counts[2] = {1, 13}, k;
      for (k = 0; k < 2; ++k) {
        la_model m;
        tm_data td;
        int np, st, b;
        double *thd, loss, ref, *pref;
        la_real *th, *pred;
        LA_CHECK(t, tm_model(&m, c, NULL) == LA_OK, "init");
        np = m.nparams;
        LA_CHECK(t, np == tm_nparams(c), "nparams %d vs %d", np, tm_nparams(c));
        tm_make(&td, c->d, c->n, counts[k], &r);
        thd = (double *)malloc(sizeof(double) * np);
        th = (la_real *)malloc(sizeof(la_real) * np);
        pred = (la_real *)malloc(sizeof(la_real) * td.count);
        pref = (double *)malloc(sizeof(double) * td.count);
        tm_theta(&r, np, 0.4, thd, th);
        st = la_model_loss(&m, th, &td.b, &loss, pred, NULL, 0);
        ref = tm_naive_loss(c, thd, &td, pref);
        LA_CHECK(t, st == LA_OK, "status %d", st);
        LA_CHECK(t, fabs(loss - ref) <= (TM_DBL ? 1e-11 : 2e-5) * (ref + 1e-3),
                 "case %d count %d: loss %.10g vs naive %.10g", (int)ci,
                 td.count, loss, ref);
        {
          la_real *pr = (la_real *)malloc(sizeof(la_real) * td.count);
          for (b = 0; b < td.count; ++b) pr[b] = (la_real)pref[b];
          LA_CHECK(t, LA_NSE(td.count, pred, pr) <= (TM_DBL ? 1e-22 : 1e-9),
                   "case %d: predictions nse %g", (int)ci,
                   LA_NSE(td.count, pred, pr));
          free(pr);
        }
        free(thd); free(th); free(pred); free(pref);
        tm_free(&td);
      }
    }
  }
}

/* The analytic gradient against 4-point differences of the naive loss in
   double (independent of the library, so also a check in float), and in the
   double build against differences of la_model_loss itself. */
static void tm_grad_case(la_t *t, const tm_cfg *c, int count, la_t_rng *r) {
  la_model m;
  tm_data td;
  int np, i, st;
  double *thd, *fd, loss, nse;
  double h = c->act == LA_ACT_LINEAR && !c->h ? 1e-5 : 1e-6;
  la_real *th, *g, *fdr;
  tm_model(&m, c, NULL);
  np = m.nparams;
  tm_make(&td, c->d, c->n, count, r);
  thd = (double *)malloc(sizeof(double) * np);
  fd = (double *)malloc(sizeof(double) * np);
  th = (la_real *)malloc(sizeof(la_real) * np);
  g = (la_real *)malloc(sizeof(la_real) * np);
  fdr = (la_real *)malloc(sizeof(la_real) * np);
  tm_theta(r, np, 0.35, thd, th);
  st = la_model_grad(&m, th, &td.b, &loss, g, NULL, 0);
  LA_CHECK(t, st == LA_OK, "status %d", st);
  for (i = 0; i < np; ++i) {
    double x = thd[i], f[4];
    int s;
    for (s = 0; s < 4; ++s) {
      static const double off[4] = {2, 1, -1, -2};
      thd[i] = x + off[s] * h;
      f[s] = tm_naive_loss(c, thd, &td, NULL);
    }
    thd[i] = x;
    fd[i] = TM_FD4(f[0], f[1], f[2], f[3], h);
    fdr[i] = (la_real)fd[i];
  }
  nse = LA_NSE(np, g, fdr);
  LA_CHECK(t, nse <= (TM_DBL ? 1e-14 : 1e-8),
           "%s %s h=%d L=%d d=%d n=%d count=%d: gradient vs differences nse %g",
           tm_pname(c->param), c->act ? "relu" : "linear", c->h, c->L, c->d,
           c->n, count, nse);
#ifdef LINATTN_DOUBLE
  /* differences of the library's own loss */
  for (i = 0; i < np; ++i) {
    la_real x = th[i];
    double f[4];
    int s;
    for (s = 0; s < 4; ++s) {
      static const double off[4] = {2, 1, -1, -2};
      th[i] = x + off[s] * h;
      la_model_loss(&m, th, &td.b, &f[s], NULL, NULL, 0);
    }
    th[i] = x;
    fdr[i] = TM_FD4(f[0], f[1], f[2], f[3], h);
  }
  nse = LA_NSE(np, g, fdr);
  LA_CHECK(t, nse <= 1e-14, "gradient vs differences of la_model_loss: %g",
           nse);
#endif
  free(thd); free(fd); free(th); free(g); free(fdr);
  tm_free(&td);
}

static void tm_test_grad(la_t *t) {
  LA_TEST(t, "model: gradient equals finite differences, every form") {
    la_t_rng r = {23};
    int p, a, f;
    for (p = 0; p < 3; ++p)
      for (a = 0; a < 2; ++a)
        for (f = 0; f < 2; ++f) {
          tm_cfg c;
          c.d = 3; c.n = 5; c.L = 3; c.param = p; c.act = a; c.h = f ? 4 : 0;
          tm_grad_case(t, &c, 11, &r);
        }
  }
  LA_TEST(t, "model: gradient equals finite differences, L = 1..8") {
    la_t_rng r = {29};
    int L;
    for (L = 1; L <= (t->light ? 4 : 8); ++L) {
      tm_cfg c;
      c.d = 1 + 2 * (L % 3); c.n = 2 + L; c.L = L;
      c.param = L % 3; c.act = L % 2 ? LA_ACT_LINEAR : LA_ACT_RELU; c.h = 0;
      tm_grad_case(t, &c, L + 2 * (L % 4), &r);
    }
  }
}

/* Hessian-vector products against mixed second differences of the naive
   double loss along (e_i, v) (independent of the library, both builds), and
   against 4-point differences of the library's gradient along v (double
   build; in float only for smooth models, where a large step is safe), and
   the symmetry u^T H v = v^T H u. ReLU kinks make differences wrong when a
   pre-activation crosses zero inside the stencil, hence the small steps. */
static void tm_hvp_case(la_t *t, const tm_cfg *c, int count, la_t_rng *r) {
  la_model m;
  tm_data td;
  int np, i, s, st, smooth = c->act == LA_ACT_LINEAR && !c->h;
  double *thd, *vd, loss, lh, h, nse, uhv, vhu, sc, hm = 4e-5;
  la_real *th, *v, *u, *hv, *hu, *g, *gh, *fd, *tp;
  tm_model(&m, c, NULL);
  np = m.nparams;
  tm_make(&td, c->d, c->n, count, r);
  thd = (double *)malloc(sizeof(double) * np);
  vd = (double *)malloc(sizeof(double) * np);
  th = (la_real *)malloc(sizeof(la_real) * np);
  tp = (la_real *)malloc(sizeof(la_real) * np);
  v = (la_real *)malloc(sizeof(la_real) * np);
  u = (la_real *)malloc(sizeof(la_real) * np);
  hv = (la_real *)malloc(sizeof(la_real) * np);
  hu = (la_real *)malloc(sizeof(la_real) * np);
  g = (la_real *)malloc(sizeof(la_real) * np);
  gh = (la_real *)malloc(sizeof(la_real) * np);
  fd = (la_real *)calloc(np, sizeof(la_real));
  tm_theta(r, np, 1.0, vd, v);
  tm_theta(r, np, 1.0, thd, u);
  tm_theta(r, np, 0.35, thd, th);
  st = la_model_hvp(&m, th, &td.b, v, &lh, gh, hv, NULL, 0);
  LA_CHECK(t, st == LA_OK, "status %d", st);
  st = la_model_grad(&m, th, &td.b, &loss, g, NULL, 0);
  LA_CHECK(t, loss == lh && LA_NSE(np, gh, g) == 0,
           "hvp's loss and gradient differ from la_model_grad's");
  /* shrink the step until two successive quotients agree: a kink inside
     the stencil shows up as a quotient that has not converged */
  {
    la_real *prev = (la_real *)calloc(np, sizeof(la_real));
    int conv = 0, it;
    for (it = 0; it < 8 && !conv; ++it, hm /= 2) {
      for (i = 0; i < np; ++i) {
        double f[4], x = thd[i];
        static const double si[4] = {1, 1, -1, -1}, sv[4] = {1, -1, 1, -1};
        int k;
        for (s = 0; s < 4; ++s) {
          for (k = 0; k < np; ++k) thd[k] += sv[s] * hm * vd[k];
          thd[i] += si[s] * hm;
          f[s] = tm_naive_loss(c, thd, &td, NULL);
          thd[i] = x;
          for (k = 0; k < np; ++k) thd[k] = th[k];
        }
        fd[i] = (la_real)((f[0] - f[1] - f[2] + f[3]) / (4 * hm * hm));
      }
      conv = it > 0 && LA_NSE(np, prev, fd) <= 3e-7;
      memcpy(prev, fd, sizeof(la_real) * np);
    }
    free(prev);
    nse = LA_NSE(np, hv, fd);
    LA_CHECK(t, conv && nse <= 1e-6,
             "%s %s h=%d L=%d: hvp vs mixed differences of the naive loss nse "
             "%g (converged %d)",
             tm_pname(c->param), c->act ? "relu" : "linear", c->h, c->L, nse,
             conv);
  }
  h = TM_DBL ? (smooth ? 1e-4 : 1e-6) : 3e-2;
  if (TM_DBL || smooth) {
    memset(fd, 0, sizeof(la_real) * np);
    for (s = 0; s < 4; ++s) {
      static const double off[4] = {2, 1, -1, -2}, w[4] = {-1, 8, -8, 1};
      for (i = 0; i < np; ++i) tp[i] = (la_real)(th[i] + off[s] * h * v[i]);
      st |= la_model_grad(&m, tp, &td.b, NULL, g, NULL, 0);
      for (i = 0; i < np; ++i) fd[i] += (la_real)(w[s] * g[i] / (12 * h));
    }
    nse = LA_NSE(np, hv, fd);
    LA_CHECK(t, st == LA_OK && nse <= (TM_DBL ? 1e-14 : 1e-4),
             "%s %s h=%d L=%d: hvp vs differences of the gradient nse %g",
             tm_pname(c->param), c->act ? "relu" : "linear", c->h, c->L, nse);
  }
  st = la_model_hvp(&m, th, &td.b, u, NULL, NULL, hu, NULL, 0);
  uhv = la_dot(np, u, hv);
  vhu = la_dot(np, v, hu);
  sc = la_nrm2(np, u) * la_nrm2(np, hv);
  LA_CHECK(t, st == LA_OK && fabs(uhv - vhu) <= (TM_DBL ? 1e-12 : 1e-5) * sc,
           "u^T H v = %.10g, v^T H u = %.10g", uhv, vhu);
  free(thd); free(vd); free(th); free(tp); free(v); free(u); free(hv);
  free(hu); free(g); free(gh); free(fd);
  tm_free(&td);
}

static void tm_test_hvp(la_t *t) {
  LA_TEST(t, "model: Hessian-vector product equals differences, symmetric") {
    la_t_rng r = {31};
    int p, a, f, L;
    for (p = 0; p < 3; ++p)
      for (a = 0; a < 2; ++a)
        for (f = 0; f < 2; ++f) {
          tm_cfg c;
          c.d = 3; c.n = 6; c.L = 3; c.param = p; c.act = a; c.h = f ? 5 : 0;
          tm_hvp_case(t, &c, t->light ? 2 : 6, &r);
        }
    for (L = 1; L <= (t->light ? 4 : 8); L += 3) {
      tm_cfg c;
      c.d = 2 + L % 2; c.n = 3 + L; c.L = L; c.param = LA_PARAM_DENSE;
      c.act = LA_ACT_LINEAR; c.h = 0;
      tm_hvp_case(t, &c, 7, &r);
    }
  }
}

/* The compiled backend against the scalar kernel table. */
static void tm_test_simd(la_t *t) {
  LA_TEST(t, "model: backend kernels agree with the scalar kernels") {
    la_t_rng r = {37};
    int p, a;
    for (p = 0; p < 3; ++p)
      for (a = 0; a < 2; ++a) {
        tm_cfg c;
        la_model ms, mb;
        tm_data td;
        int np;
        double *thd, ls = 0, lb = -1;
        la_real *th, *v, *gs, *gb, *hs, *hb;
        c.d = 5; c.n = 20; c.L = 3; c.param = p; c.act = a; c.h = a ? 6 : 0;
        tm_model(&ms, &c, la_kernels_scalar());
        tm_model(&mb, &c, la_kernels_best());
        np = ms.nparams;
        tm_make(&td, c.d, c.n, 37, &r);
        thd = (double *)malloc(sizeof(double) * np);
        th = (la_real *)malloc(sizeof(la_real) * np);
        v = (la_real *)malloc(sizeof(la_real) * np);
        gs = (la_real *)malloc(sizeof(la_real) * np);
        gb = (la_real *)malloc(sizeof(la_real) * np);
        hs = (la_real *)malloc(sizeof(la_real) * np);
        hb = (la_real *)malloc(sizeof(la_real) * np);
        tm_theta(&r, np, 0.3, thd, th);
        tm_theta(&r, np, 1.0, thd, v);
        LA_CHECK(t, la_model_hvp(&ms, th, &td.b, v, &ls, gs, hs, NULL, 0) == 0 &&
                        la_model_hvp(&mb, th, &td.b, v, &lb, gb, hb, NULL, 0) == 0,
                 "status");
        LA_CHECK(t, fabs(ls - lb) <= 1e3 * (TM_DBL ? 1e-16 : 1e-7) * ls,
                 "loss %.10g vs %.10g", lb, ls);
        LA_CHECK(t, LA_NSE(np, gb, gs) <= 100 * LA_T_NSE_TOL, "%s: grad nse %g",
                 tm_pname(p), LA_NSE(np, gb, gs));
        LA_CHECK(t, LA_NSE(np, hb, hs) <= 100 * LA_T_NSE_TOL, "%s: hvp nse %g",
                 tm_pname(p), LA_NSE(np, hb, hs));
        {
          /* a caller's table is used as given: a copy of the scalar one
             gives the scalar results bit for bit */
          la_kernels mine = *la_kernels_scalar();
          la_model mm;
          tm_model(&mm, &c, &mine);
          LA_CHECK(t, la_model_hvp(&mm, th, &td.b, v, &lb, gb, hb, NULL, 0) == 0 &&
                          lb == ls && LA_NSE(np, gb, gs) == 0 &&
                          LA_NSE(np, hb, hs) == 0,
                   "a copy of the scalar table differs from it");
        }
        free(thd); free(th); free(v); free(gs); free(gb); free(hs); free(hb);
        tm_free(&td);
      }
  }
}

/* Paper B, Lemma 1: under the pgd form the prediction after l layers is
   <x_q, w_l>, w_{l+1} = w_l + A_l^T grad R(w_l), w_0 = 0. */
static void tm_test_lemma1(la_t *t) {
  LA_TEST(t, "model: pgd form is preconditioned gradient descent (Lemma 1)") {
    la_t_rng r = {41};
    tm_cfg c;
    la_model m;
    tm_data td;
    int np, b, l, i, j, k;
    double *thd, maxerr = 0, maxref = 0;
    la_real *th, *pred;
    c.d = 4; c.n = 9; c.L = 4; c.param = LA_PARAM_PGD; c.act = 0; c.h = 0;
    tm_model(&m, &c, NULL);
    np = m.nparams;
    tm_make(&td, c.d, c.n, 21, &r);
    thd = (double *)malloc(sizeof(double) * np);
    th = (la_real *)malloc(sizeof(la_real) * np);
    pred = (la_real *)malloc(sizeof(la_real) * td.count);
    tm_theta(&r, np, 0.5, thd, th);
    LA_CHECK(t, la_model_loss(&m, th, &td.b, NULL, pred, NULL, 0) == LA_OK,
             "status");
    for (b = 0; b < td.count; ++b) {
      const double *Z = td.z + (size_t)b * (c.d + 1) * (c.n + 1);
      int T = c.n + 1;
      double w[8] = {0}, gr[8], p = 0;
      for (l = 0; l < c.L; ++l) {
        const double *A = thd + (size_t)l * c.d * c.d;
        for (k = 0; k < c.d; ++k) gr[k] = 0;
        for (i = 0; i < c.n; ++i) {
          double res = -Z[c.d * T + i];
          for (k = 0; k < c.d; ++k) res += w[k] * Z[k * T + i];
          for (k = 0; k < c.d; ++k) gr[k] += res * Z[k * T + i] / c.n;
        }
        for (j = 0; j < c.d; ++j)
          for (k = 0; k < c.d; ++k) w[j] += A[k * c.d + j] * gr[k];
      }
      for (k = 0; k < c.d; ++k) p += Z[k * T + c.n] * w[k];
      if (fabs(p - pred[b]) > maxerr) maxerr = fabs(p - pred[b]);
      if (fabs(p) > maxref) maxref = fabs(p);
    }
    LA_CHECK(t, maxref > 1e-3 && maxerr <= (TM_DBL ? 1e-12 : 1e-5) * maxref,
             "max error %g of max %g", maxerr, maxref);
    free(thd); free(th); free(pred);
    tm_free(&td);
  }
}

/* Cholesky factor (lower) of an SPD d x d matrix, in place. */
static void tm_chol(int d, double *A) {
  int i, j, k;
  for (j = 0; j < d; ++j) {
    for (k = 0; k < j; ++k) A[j * d + j] -= A[j * d + k] * A[j * d + k];
    A[j * d + j] = sqrt(A[j * d + j]);
    for (i = j + 1; i < d; ++i) {
      for (k = 0; k < j; ++k) A[i * d + j] -= A[i * d + k] * A[j * d + k];
      A[i * d + j] /= A[j * d + j];
    }
    for (i = 0; i < j; ++i) A[i * d + j] = 0;
  }
}

/* Inverse of an SPD matrix by Gauss-Jordan (small d). */
static void tm_inv(int d, const double *A, double *X) {
  double M[16 * 32];
  int i, j, k, w = 2 * d;
  for (i = 0; i < d; ++i)
    for (j = 0; j < w; ++j) M[i * w + j] = j < d ? A[i * d + j] : (j - d == i);
  for (k = 0; k < d; ++k) {
    double p = M[k * w + k];
    for (j = 0; j < w; ++j) M[k * w + j] /= p;
    for (i = 0; i < d; ++i)
      if (i != k) {
        double f = M[i * w + k];
        for (j = 0; j < w; ++j) M[i * w + j] -= f * M[k * w + j];
      }
  }
  for (i = 0; i < d; ++i)
    for (j = 0; j < d; ++j) X[i * d + j] = M[i * w + d + j];
}

/* Symmetric eigenvalues by Jacobi rotations. */
static void tm_eig(int d, const double *A, double *ev) {
  double M[16 * 16];
  int i, j, k, sweep;
  memcpy(M, A, sizeof(double) * d * d);
  for (sweep = 0; sweep < 60; ++sweep)
    for (i = 0; i < d; ++i)
      for (j = i + 1; j < d; ++j) {
        double th, cs, sn, a;
        if (fabs(M[i * d + j]) < 1e-300) continue;
        th = 0.5 * atan2(2 * M[i * d + j], M[j * d + j] - M[i * d + i]);
        cs = cos(th); sn = sin(th);
        for (k = 0; k < d; ++k) { /* columns */
          a = M[k * d + i];
          M[k * d + i] = cs * a - sn * M[k * d + j];
          M[k * d + j] = sn * a + cs * M[k * d + j];
        }
        for (k = 0; k < d; ++k) { /* rows */
          a = M[i * d + k];
          M[i * d + k] = cs * a - sn * M[j * d + k];
          M[j * d + k] = sn * a + cs * M[j * d + k];
        }
      }
  for (i = 0; i < d; ++i) ev[i] = M[i * d + i];
}

/* Paper B, Theorem 1: one layer, x ~ N(0, Sigma), w* ~ N(0, I). At
   A = -(((n+1)/n) Sigma + (tr Sigma / n) I)^{-1} (pgd form) the gradient is
   zero and the loss is E (x_q^T (I - Gamma S) w*)^2 minimized over the
   preconditioner Gamma, which works out (Wishart moments) to
       tr Sigma - tr(Sigma^2 Omega^{-1}),   Omega = ((n+1)/n) Sigma + (tr Sigma/n) I.
   Checked on sub-batches combined by count, with tolerances from the
   spread between sub-batches. */
static void tm_gauss_batch(tm_data *td, const double *Lc, la_t_rng *r) {
  int d = td->d, n = td->n, T = n + 1, b, i, j, k;
  for (b = 0; b < td->count; ++b) {
    double *Z = td->z + (size_t)b * (d + 1) * T, w[16], g[16];
    for (k = 0; k < d; ++k) w[k] = tm_normal(r);
    for (j = 0; j < T; ++j) {
      double y = 0;
      for (k = 0; k < d; ++k) g[k] = tm_normal(r);
      for (i = 0; i < d; ++i) {
        double x = 0;
        for (k = 0; k <= i; ++k) x += Lc[i * d + k] * g[k];
        Z[i * T + j] = x;
        y += w[i] * x;
      }
      if (j < n) Z[d * T + j] = y;
      else { Z[d * T + j] = 0; td->y[b] = y; }
    }
  }
  tm_pack(td);
}

static void tm_test_theorem1(la_t *t) {
  LA_TEST(t, "model: one-layer optimum under Gaussian data (Theorem 1)") {
    enum { D = 4, N = 12, CNT = 2000 };
    const int SUB = t->light ? 12 : 40; /* batches; the tolerances follow */
    la_t_rng r = {43};
    double Sig[D * D], Lc[D * D], Om[D * D], Oi[D * D], ev[D], M0[D * D];
    double tr = 0, fstar = 0, lsum = 0, lsq = 0, gsum[D * D], gsq[D * D];
    double gnorm2 = 0, gvar = 0, pert2 = 0, lmean, lsd;
    la_real th[D * D], th2[D * D], g[D * D];
    tm_cfg c;
    la_model m;
    tm_data td;
    int i, j, k, s;
    /* an anisotropic Sigma = M0 M0^T / D + 0.1 I */
    for (i = 0; i < D * D; ++i) M0[i] = la_t_uniform(&r);
    for (i = 0; i < D; ++i)
      for (j = 0; j < D; ++j) {
        double a = 0;
        for (k = 0; k < D; ++k) a += M0[i * D + k] * M0[j * D + k];
        Sig[i * D + j] = a / D + (i == j ? 0.1 : 0);
      }
    for (i = 0; i < D; ++i) tr += Sig[i * D + i];
    for (i = 0; i < D * D; ++i) {
      Lc[i] = Sig[i];
      Om[i] = (double)(N + 1) / N * Sig[i] + (i % (D + 1) == 0 ? tr / N : 0);
    }
    tm_chol(D, Lc);
    tm_inv(D, Om, Oi);
    tm_eig(D, Sig, ev);
    for (i = 0; i < D; ++i)
      fstar += ev[i] - ev[i] * ev[i] / ((double)(N + 1) / N * ev[i] + tr / N);
    for (i = 0; i < D * D; ++i) {
      th[i] = (la_real)-Oi[i];
      th2[i] = (la_real)(-1.3 * Oi[i]);
      gsum[i] = gsq[i] = 0;
    }
    c.d = D; c.n = N; c.L = 1; c.param = LA_PARAM_PGD; c.act = 0; c.h = 0;
    tm_model(&m, &c, NULL);
    tm_alloc(&td, D, N, CNT);
    for (s = 0; s < SUB; ++s) {
      double l;
      tm_gauss_batch(&td, Lc, &r);
      LA_CHECK(t, la_model_grad(&m, th, &td.b, &l, g, NULL, 0) == LA_OK, "st");
      lsum += l; lsq += l * l;
      for (i = 0; i < D * D; ++i) { gsum[i] += g[i]; gsq[i] += (double)g[i] * g[i]; }
      la_model_grad(&m, th2, &td.b, NULL, g, NULL, 0);
      for (i = 0; i < D * D; ++i) pert2 += (double)g[i] * g[i] / SUB;
    }
    lmean = lsum / SUB;
    lsd = sqrt((lsq / SUB - lmean * lmean) / (SUB - 1)); /* of the mean */
    for (i = 0; i < D * D; ++i) {
      double mu = gsum[i] / SUB;
      gnorm2 += mu * mu;
      gvar += (gsq[i] / SUB - mu * mu) / (SUB - 1);
    }
    /* |mean gradient|^2 is about gvar (a chi-square of D^2 terms) */
    LA_CHECK(t, gnorm2 <= 3 * gvar, "|grad|^2 %g vs its noise level %g",
             gnorm2, gvar);
    LA_CHECK(t, pert2 >= 30 * gvar,
             "a perturbed A must show a clear gradient: %g vs %g", pert2, gvar);
    LA_CHECK(t, fabs(lmean - fstar) <= 4 * lsd + 1e-4 * fstar,
             "loss %g vs closed form %g (sd %g)", lmean, fstar, lsd);
    tm_free(&td);
  }
  LA_TEST(t, "model: isotropic one-layer optimum is -(n/(n+d+1)) I") {
    /* the closed form's special case, as a check of the derivation above */
    enum { D = 3, N = 7 };
    double Om[D * D], Oi[D * D], ev[D], Sig[D * D], f = 0;
    int i;
    for (i = 0; i < D * D; ++i) {
      Sig[i] = i % (D + 1) == 0;
      Om[i] = (double)(N + 1) / N * Sig[i] + Sig[i] * D / N;
    }
    tm_inv(D, Om, Oi);
    tm_eig(D, Sig, ev);
    for (i = 0; i < D; ++i) f += ev[i] - ev[i] * ev[i] / ((N + 1.0) / N + (double)D / N);
    for (i = 0; i < D * D; ++i)
      LA_CHECK(t, fabs(-Oi[i] + Sig[i] * N / (N + D + 1.0)) < 1e-14, "entry %d", i);
    LA_CHECK(t, fabs(f - D * (D + 1.0) / (N + D + 1.0)) < 1e-12, "f* %g", f);
  }
}

/* A batch split into views of whole panels, combined by count. */
static void tm_test_views(la_t *t) {
  LA_TEST(t, "model: sub-batch views combine by count to the whole batch") {
    la_t_rng r = {47};
    tm_cfg c;
    la_model m;
    tm_data td;
    la_batch v1, v2;
    int np, i, cut;
    double *thd, lw, l1, l2, tol = TM_DBL ? 1e-12 : 1e-5;
    la_real *th, *v, *gw, *g1, *g2, *hw, *h1, *h2, *gc, *hc;
    void *work;
    size_t bytes;
    c.d = 3; c.n = 6; c.L = 2; c.param = LA_PARAM_DENSE; c.act = 1; c.h = 3;
    tm_model(&m, &c, NULL);
    np = m.nparams;
    tm_make(&td, c.d, c.n, 3 * LA_W + 5, &r);
    thd = (double *)malloc(sizeof(double) * np);
    th = (la_real *)malloc(sizeof(la_real) * np * 10);
    v = th + np; gw = v + np; g1 = gw + np; g2 = g1 + np;
    hw = g2 + np; h1 = hw + np; h2 = h1 + np; gc = h2 + np; hc = gc + np;
    tm_theta(&r, np, 0.3, thd, th);
    tm_theta(&r, np, 1.0, thd, v);
    bytes = la_model_work_bytes(&m);
    work = malloc(bytes + 8);
    cut = 2 * LA_W;
    v1 = td.b; v1.count = cut;
    v2 = td.b; v2.count = td.count - cut;
    v2.z += (size_t)2 * (c.d + 1) * (c.n + 1) * LA_W;
    v2.y += 2 * LA_W;
    /* an unaligned caller workspace must do */
    LA_CHECK(t, la_model_hvp(&m, th, &td.b, v, &lw, gw, hw, (char *)work + 8,
                             bytes) == LA_OK, "whole");
    LA_CHECK(t, la_model_hvp(&m, th, &v1, v, &l1, g1, h1, work, bytes) == LA_OK,
             "view 1");
    LA_CHECK(t, la_model_hvp(&m, th, &v2, v, &l2, g2, h2, work, bytes) == LA_OK,
             "view 2");
    for (i = 0; i < np; ++i) {
      gc[i] = (la_real)((v1.count * (double)g1[i] + v2.count * (double)g2[i]) / td.count);
      hc[i] = (la_real)((v1.count * (double)h1[i] + v2.count * (double)h2[i]) / td.count);
    }
    LA_CHECK(t, fabs((v1.count * l1 + v2.count * l2) / td.count - lw) <= tol * lw,
             "loss");
    LA_CHECK(t, LA_NSE(np, gc, gw) <= tol * tol, "grad nse %g", LA_NSE(np, gc, gw));
    LA_CHECK(t, LA_NSE(np, hc, hw) <= tol * tol, "hvp nse %g", LA_NSE(np, hc, hw));
    /* garbage in a view's padding lanes is ignored */
    v1.count = cut - 3;
    td.b.z[(size_t)LA_W * (c.d + 1) * (c.n + 1) + LA_W - 1] = (la_real)NAN;
    LA_CHECK(t, la_model_grad(&m, th, &v1, &l1, g1, NULL, 0) == LA_OK,
             "NaN in a padding lane must be ignored");
    free(work); free(thd); free(th);
    tm_free(&td);
  }
}

static void tm_test_params(la_t *t) {
  LA_TEST(t, "model: init, blocks and parameter initialization") {
    la_model_config mc;
    la_model m;
    la_rng rng, rng2;
    int off[64], sz[64], nb, i, tot = 0;
    la_real *th;
    double s2 = 0, mean = 0;
    memset(&mc, 0, sizeof mc);
    mc.d = 5; mc.n = 20;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_OK, "defaults");
    LA_CHECK(t, m.cfg.layers == 3 && m.cfg.param == LA_PARAM_SPARSE &&
                    m.cfg.init_std == 0.05 && m.cfg.kernels == la_kernels_best(),
             "defaults filled in");
    LA_CHECK(t, m.nparams == 150, "sparse d=5 L=3 has 150 parameters: %d",
             m.nparams);
    nb = la_model_blocks(&m, off, sz, 64);
    LA_CHECK(t, nb == 6, "blocks %d", nb);
    for (i = 0; i < nb; ++i) {
      LA_CHECK(t, off[i] == tot && sz[i] == 25, "block %d", i);
      tot += sz[i];
    }
    LA_CHECK(t, la_model_blocks(&m, off, sz, 5) == LA_ERANGE, "max too small");
    mc.param = LA_PARAM_DENSE; mc.front_hidden = 30; mc.layers = 2;
    la_model_init(&m, &mc);
    nb = la_model_blocks(&m, off, sz, 64);
    tot = 0;
    for (i = 0; i < nb; ++i) { LA_CHECK(t, off[i] == tot, "contiguous"); tot += sz[i]; }
    LA_CHECK(t, nb == 8 && tot == m.nparams && m.nparams == 4 * 36 + 2 * 150 + 35,
             "dense+front blocks %d total %d", nb, tot);
    th = (la_real *)malloc(sizeof(la_real) * m.nparams);
    la_rng_seed(&rng, 5, 1);
    rng2 = rng;
    /* the front MLP as nn.Linear: W1, b1 within 1/sqrt(5), W2, b2 within
       1/sqrt(30), each (2u - 1) / sqrt(fan_in) after the attention's
       normals */
    LA_CHECK(t, la_model_init_params(&m, &rng, th) == LA_OK, "init params");
    {
      int front = 4 * 36, ok = 1;
      for (i = 0; i < front; ++i) la_rng_normal(&rng2);
      for (i = front; i < m.nparams; ++i) {
        double fan = i < front + 150 + 30 ? 5 : 30;
        double e = (2 * la_rng_uniform(&rng2) - 1) / sqrt(fan);
        ok &= fabs(th[i] - e) <= 1e-6 * fabs(e) + 1e-12 && fabs(th[i]) <= 1 / sqrt(fan);
      }
      LA_CHECK(t, ok, "the front layer as nn.Linear's default");
    }
    mc.front_init = LA_FRONT_NORMAL; /* every entry a normal */
    la_model_init(&m, &mc);
    la_rng_seed(&rng, 5, 1);
    rng2 = rng;
    LA_CHECK(t, la_model_init_params(&m, &rng, th) == LA_OK, "init params");
    for (i = 0; i < m.nparams; ++i) {
      double e = 0.05 * la_rng_normal(&rng2);
      LA_CHECK(t, fabs(th[i] - e) <= 1e-6 * fabs(e) + 1e-12, "entry %d", i);
      mean += th[i]; s2 += (double)th[i] * th[i];
    }
    mc.front_init = 2;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "front_init 2");
    mc.front_init = LA_FRONT_NORMAL;
    la_model_init(&m, &mc);
    mean /= m.nparams;
    s2 = sqrt(s2 / m.nparams);
    LA_CHECK(t, fabs(mean) < 4 * 0.05 / sqrt((double)m.nparams), "mean %g", mean);
    /* sample std within 4 standard errors of 0.05 */
    LA_CHECK(t, fabs(s2 - 0.05) < 4 * 0.05 / sqrt(2.0 * m.nparams), "std %g", s2);
    LA_CHECK(t, la_model_init_params(NULL, &rng, th) == LA_ENULL &&
                    la_model_init_params(&m, NULL, th) == LA_ENULL &&
                    la_model_init_params(&m, &rng, NULL) == LA_ENULL,
             "null");
    free(th);
    /* bad configurations */
    mc.d = 0; LA_CHECK(t, la_model_init(&m, &mc) == LA_EDIM, "d = 0");
    mc.d = 5; mc.n = LA_MAX_N + 1;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_EDIM, "n too large");
    mc.n = 20; mc.param = 3;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "param");
    mc.param = 0; mc.activation = LA_ACT_SOFTMAX + 1;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "activation");
    mc.activation = 0; mc.layers = -1;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "layers");
    mc.layers = 0; mc.init_std = -1;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "init_std");
    /* found by tests/fuzz: a float theta drawn with std 1e300 was Inf */
    mc.init_std = sizeof(la_real) == 4 ? 1e38 : 1e308;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "init_std overflows");
    mc.init_std = sizeof(la_real) == 4 ? 1e37 : 1e306;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_OK, "init_std / 8 below the max");
    mc.init_std = 0; mc.front_hidden = -2;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "front_hidden");
    LA_CHECK(t, la_model_init(NULL, &mc) == LA_ENULL &&
                    la_model_init(&m, NULL) == LA_ENULL, "null");
    LA_CHECK(t, la_model_blocks(NULL, off, sz, 9) == LA_ENULL, "blocks null");
    LA_CHECK(t, la_model_work_bytes(NULL) == 0, "work bytes of null");
  }
}

static void tm_test_bad(la_t *t) {
  LA_TEST(t, "model: bad input returns a status, never a NaN loss") {
    la_t_rng r = {53};
    tm_cfg c;
    la_model m;
    tm_data td, other;
    la_batch bb;
    int np;
    double *thd, loss = 0;
    la_real *th, *g, *hv, *v, keep;
    size_t bytes;
    void *work;
    c.d = 3; c.n = 4; c.L = 2; c.param = 0; c.act = 0; c.h = 0;
    tm_model(&m, &c, NULL);
    np = m.nparams;
    tm_make(&td, 3, 4, 10, &r);
    tm_make(&other, 2, 4, 10, &r);
    thd = (double *)malloc(sizeof(double) * np);
    th = (la_real *)malloc(sizeof(la_real) * np);
    g = (la_real *)malloc(sizeof(la_real) * np);
    hv = (la_real *)malloc(sizeof(la_real) * np);
    v = (la_real *)malloc(sizeof(la_real) * np);
    tm_theta(&r, np, 0.3, thd, th);
    tm_theta(&r, np, 0.3, thd, v);
    bytes = la_model_work_bytes(&m);
    work = malloc(bytes);
    LA_CHECK(t, bytes > 0, "work bytes");
    LA_CHECK(t, la_model_loss(&m, th, &td.b, &loss, NULL, work, bytes) == LA_OK,
             "ok");
    LA_CHECK(t, la_model_loss(&m, th, &td.b, &loss, NULL, work, bytes - 1) ==
                    LA_EWORKSPACE, "small workspace");
    bb = td.b; /* a hand-made view one real off its alignment */
    bb.z += 1;
    LA_CHECK(t, la_model_loss(&m, th, &bb, &loss, NULL, work, bytes) ==
                    LA_ERANGE, "unaligned prompts");
    bb = td.b;
    bb.y += 1;
    LA_CHECK(t, la_model_grad(&m, th, &bb, &loss, g, work, bytes) == LA_ERANGE,
             "unaligned targets");
    LA_CHECK(t, la_model_grad(&m, th, &td.b, &loss, g, work, bytes / 2) ==
                    LA_EWORKSPACE, "small workspace, grad");
    LA_CHECK(t, la_model_loss(&m, th, &td.b, &loss, NULL, NULL, bytes) ==
                    LA_ENULL, "null work with bytes");
    LA_CHECK(t, la_model_loss(NULL, th, &td.b, &loss, NULL, NULL, 0) == LA_ENULL &&
                    la_model_loss(&m, NULL, &td.b, &loss, NULL, NULL, 0) == LA_ENULL &&
                    la_model_loss(&m, th, NULL, &loss, NULL, NULL, 0) == LA_ENULL,
             "loss nulls");
    LA_CHECK(t, la_model_grad(&m, th, &td.b, &loss, NULL, NULL, 0) == LA_ENULL,
             "grad null");
    LA_CHECK(t, la_model_hvp(&m, th, &td.b, NULL, NULL, NULL, hv, NULL, 0) ==
                        LA_ENULL &&
                    la_model_hvp(&m, th, &td.b, v, NULL, NULL, NULL, NULL, 0) ==
                        LA_ENULL,
             "hvp nulls");
    LA_CHECK(t, la_model_loss(&m, th, &other.b, &loss, NULL, NULL, 0) == LA_ESHAPE,
             "d mismatch");
    bb = td.b; bb.n = 5;
    LA_CHECK(t, la_model_grad(&m, th, &bb, &loss, g, NULL, 0) == LA_ESHAPE,
             "n mismatch");
    bb = td.b; bb.count = 0;
    LA_CHECK(t, la_model_loss(&m, th, &bb, &loss, NULL, NULL, 0) == LA_EDIM,
             "empty batch");
    bb = td.b; bb.z = NULL;
    LA_CHECK(t, la_model_loss(&m, th, &bb, &loss, NULL, NULL, 0) == LA_ENULL,
             "null data");
    keep = th[3];
    th[3] = (la_real)NAN;
    LA_CHECK(t, la_model_loss(&m, th, &td.b, &loss, NULL, NULL, 0) == LA_ENONFINITE,
             "NaN theta");
    th[3] = (la_real)INFINITY;
    LA_CHECK(t, la_model_grad(&m, th, &td.b, &loss, g, NULL, 0) == LA_ENONFINITE,
             "Inf theta");
    th[3] = keep;
    v[0] = (la_real)NAN;
    LA_CHECK(t, la_model_hvp(&m, th, &td.b, v, NULL, NULL, hv, NULL, 0) ==
                    LA_ENONFINITE, "NaN direction");
    v[0] = 0;
    { /* the Hessian times k directions: the same statuses, and k */
      la_real *V = (la_real *)calloc((size_t)np * 3, sizeof(la_real));
      la_real *HV = (la_real *)malloc(sizeof(la_real) * (size_t)np * 3);
      size_t b3 = la_model_hmp_work_bytes(&m, 3);
      void *w3 = malloc(b3);
      LA_CHECK(t, b3 > la_model_work_bytes(&m) &&
                      la_model_hmp_work_bytes(&m, 0) == 0 &&
                      la_model_hmp_work_bytes(NULL, 3) == 0,
               "hmp work bytes");
      LA_CHECK(t, la_model_hmp(&m, th, &td.b, 3, V, &loss, g, HV, w3, b3) ==
                      LA_OK, "hmp ok");
      LA_CHECK(t, la_model_hmp(&m, th, &td.b, 3, V, NULL, NULL, HV, w3,
                               b3 - 1) == LA_EWORKSPACE &&
                      la_model_hmp(&m, th, &td.b, 3, V, NULL, NULL, HV, w3,
                                   la_model_work_bytes(&m)) == LA_EWORKSPACE,
               "hmp small workspace");
      LA_CHECK(t, la_model_hmp(&m, th, &td.b, 0, V, NULL, NULL, HV, NULL, 0) ==
                          LA_EDIM &&
                      la_model_hmp(&m, th, &td.b, -1, V, NULL, NULL, HV, NULL,
                                   0) == LA_EDIM,
               "hmp k < 1");
      LA_CHECK(t, la_model_hmp(&m, th, &td.b, 3, NULL, NULL, NULL, HV, NULL,
                               0) == LA_ENULL &&
                      la_model_hmp(&m, th, &td.b, 3, V, NULL, NULL, NULL, NULL,
                                   0) == LA_ENULL &&
                      la_model_hmp(NULL, th, &td.b, 3, V, NULL, NULL, HV, NULL,
                                   0) == LA_ENULL &&
                      la_model_hmp(&m, NULL, &td.b, 3, V, NULL, NULL, HV, NULL,
                                   0) == LA_ENULL,
               "hmp nulls");
      V[2 * np + np - 1] = (la_real)INFINITY; /* the last row's last entry */
      LA_CHECK(t, la_model_hmp(&m, th, &td.b, 3, V, NULL, NULL, HV, NULL, 0) ==
                      LA_ENONFINITE, "Inf in a direction");
      LA_CHECK(t, la_model_hmp(&m, th, &other.b, 3, V, NULL, NULL, HV, NULL,
                               0) == LA_ESHAPE,
               "hmp shape");
      free(V); free(HV); free(w3);
    }
    keep = td.b.z[LA_W * 7 + 1];
    td.b.z[LA_W * 7 + 1] = (la_real)INFINITY;
    LA_CHECK(t, la_model_loss(&m, th, &td.b, &loss, NULL, NULL, 0) == LA_ENONFINITE,
             "Inf in the data");
    td.b.z[LA_W * 7 + 1] = keep;
    td.b.y[LA_W + 1] = (la_real)NAN;
    LA_CHECK(t, la_model_loss(&m, th, &td.b, &loss, NULL, NULL, 0) == LA_ENONFINITE,
             "NaN target");
    tm_pack(&td);
    {
      /* finite inputs that overflow: a status, not a silent Inf */
      int i, st;
      for (i = 0; i < np; ++i) th[i] = (la_real)(TM_DBL ? 1e100 : 1e15);
      st = la_model_loss(&m, th, &td.b, &loss, NULL, NULL, 0);
      LA_CHECK(t, st == LA_EDIVERGED, "overflow: status %d", st);
    }
    free(work); free(thd); free(th); free(g); free(hv); free(v);
    tm_free(&td); tm_free(&other);
  }
}

/* la_model_block_info: every block of every packing by the name, layer,
   head and shape THE PACKING OF THETA gives it, at la_model_blocks'
   offset and size. */
static void tm_block_case(la_t *t, int param, int heads, int rank,
                          const char *const *names, int hb) {
  la_model_config mc;
  la_model m;
  int off[64], sz[64], nb, i, r, c, l, h;
  const char *nm;
  memset(&mc, 0, sizeof mc);
  mc.d = 3; mc.n = 4; mc.layers = 2; mc.param = param; mc.heads = heads;
  mc.qk_rank = rank;
  LA_CHECK(t, la_model_init(&m, &mc) == LA_OK, "init %s", names[0]);
  nb = la_model_blocks(&m, off, sz, 64);
  LA_CHECK(t, nb == 2 * heads * hb, "%s: %d blocks", names[0], nb);
  for (i = 0; i < nb; ++i) {
    int at = la_model_block_info(&m, i, &nm, &l, &h, &r, &c);
    LA_CHECK(t, at == off[i] && r * c == sz[i] && !strcmp(nm, names[i % hb]) &&
                    l == i / hb / heads && h == i / hb % heads,
             "block %d: %s at %d (%d x %d) of layer %d head %d, want %s at %d (%d)",
             i, nm, at, r, c, l, h, names[i % hb], off[i], sz[i]);
  }
  LA_CHECK(t, la_model_block_info(&m, nb, &nm, NULL, NULL, NULL, NULL) == LA_ERANGE &&
                  la_model_block_info(&m, -1, NULL, NULL, NULL, NULL, NULL) == LA_ERANGE &&
                  la_model_block_info(NULL, 0, NULL, NULL, NULL, NULL, NULL) == LA_ENULL,
           "%s: out of range, null", names[0]);
}

static void tm_test_block_names(la_t *t) {
  LA_TEST(t, "model: la_model_block_info names and shapes every block") {
    la_model_config mc;
    la_model m;
    const char *nm;
    int r, c, l, h;
    static const char *const ba[] = {"B", "A"}, *const pq[] = {"P", "Q"},
                             *const a[] = {"A"}, *const pkq[] = {"P", "W_K", "W_Q"},
                             *const bkq[] = {"B", "W_K", "W_Q"}, *const kq[] = {"W_K", "W_Q"};
    tm_block_case(t, LA_PARAM_SPARSE, 1, 0, ba, 2);
    tm_block_case(t, LA_PARAM_DENSE, 1, 0, pq, 2);
    tm_block_case(t, LA_PARAM_PGD, 1, 0, a, 1);
    tm_block_case(t, LA_PARAM_DENSE, 2, 2, pkq, 3);
    tm_block_case(t, LA_PARAM_SPARSE, 3, 1, bkq, 3);
    tm_block_case(t, LA_PARAM_PGD, 1, 2, kq, 2);
    /* the front layer's four after the layers' */
    memset(&mc, 0, sizeof mc);
    mc.d = 3; mc.n = 4; mc.layers = 2; mc.heads = 2; mc.param = LA_PARAM_DENSE;
    mc.qk_rank = 2; mc.front_hidden = 7;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_OK, "init");
    LA_CHECK(t, la_model_block_info(&m, 4 * 3 - 1, &nm, &l, &h, &r, &c) == 4 * 32 - 8 &&
                    !strcmp(nm, "W_Q") && l == 1 && h == 1 && r == 2 && c == 4,
             "the last head's W_Q: %s l %d h %d %d x %d", nm, l, h, r, c);
    LA_CHECK(t, la_model_block_info(&m, 12, &nm, &l, &h, &r, &c) == 128 &&
                    !strcmp(nm, "W1") && l == -1 && h == -1 && r == 7 && c == 3,
             "W1: %s %d x %d", nm, r, c);
    LA_CHECK(t, la_model_block_info(&m, 13, &nm, NULL, NULL, &r, &c) == 128 + 21 &&
                    !strcmp(nm, "b1") && r == 7 && c == 1, "b1");
    LA_CHECK(t, la_model_block_info(&m, 14, &nm, NULL, NULL, &r, &c) == 128 + 28 &&
                    !strcmp(nm, "W2") && r == 3 && c == 7, "W2");
    LA_CHECK(t, la_model_block_info(&m, 15, &nm, NULL, NULL, &r, &c) == 128 + 49 &&
                    !strcmp(nm, "b2") && r == 3 && c == 1 && 128 + 52 == m.nparams,
             "b2, and theta ends there");
  }
}

static void suite_model(la_t *t) {
  tm_test_block_names(t);
  tm_test_params(t);
  tm_test_naive(t);
  tm_test_grad(t);
  tm_test_hvp(t);
  tm_test_simd(t);
  tm_test_lemma1(t);
  tm_test_theorem1(t);
  tm_test_views(t);
  tm_test_bad(t);
}
