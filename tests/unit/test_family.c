/* The model family beyond one linear head: softmax attention, several
   heads, factored keys and queries, in every combination with the three
   parametrizations, the activations and the front layer. Held against a
   naive forward pass written here from the header's formulas and its
   PACKING OF THETA, 4-point differences of that pass and of the library's
   own loss and gradient, closed-form identities (heads add, factors
   multiply), the scalar kernel table, and the diagnostics and the trainer
   run on such models. The exp of the SIMD layer is held against libm.
   Uses the batch helpers of test_model.c (tm_*). */

typedef struct tf_cfg {
  int d, n, L, param, act, H, r, h; /* h: front width */
} tf_cfg;

static const char *tf_aname(int a) {
  return a == LA_ACT_LINEAR ? "linear" : a == LA_ACT_RELU ? "relu" : "softmax";
}

static const char *tf_desc(const tf_cfg *c) {
  static char buf[160];
  (void)snprintf(buf, sizeof buf, "%s %s H=%d r=%d front=%d L=%d d=%d n=%d",
           tm_pname(c->param), tf_aname(c->act), c->H, c->r, c->h, c->L, c->d,
           c->n);
  return buf;
}

/* Q's free block is q x q: all of Q (dense) or A (sparse, pgd). */
static int tf_q(const tf_cfg *c) {
  return c->param == LA_PARAM_DENSE ? c->d + 1 : c->d;
}
static int tf_qmax(int param, int d) { return param == LA_PARAM_DENSE ? d + 1 : d; }

static int tf_head_params(const tf_cfg *c) {
  int d = c->d, D = d + 1, q = tf_q(c);
  int pe = c->param == LA_PARAM_DENSE ? D * D
           : c->param == LA_PARAM_SPARSE ? d * d : 0;
  return pe + (c->r ? 2 * c->r * q : q * q);
}

static int tf_nparams(const tf_cfg *c) {
  return c->L * c->H * tf_head_params(c) +
         (c->h ? 2 * c->h * c->d + c->h + c->d : 0);
}

/* P, Q (D x D) of head hh of layer l, read as THE PACKING OF THETA says. */
static void tf_head(const tf_cfg *c, const double *th, int l, int hh,
                    double *P, double *Q) {
  int d = c->d, D = d + 1, q = tf_q(c), i, j, a;
  const double *t = th + (size_t)(l * c->H + hh) * tf_head_params(c);
  memset(P, 0, sizeof(double) * D * D);
  memset(Q, 0, sizeof(double) * D * D);
  if (c->param == LA_PARAM_DENSE) {
    for (i = 0; i < D * D; ++i) P[i] = t[i];
    t += D * D;
  } else {
    if (c->param == LA_PARAM_SPARSE) {
      for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) P[i * D + j] = t[i * d + j];
      t += d * d;
    }
    P[D * D - 1] = 1;
  }
  for (i = 0; i < q; ++i)
    for (j = 0; j < q; ++j) {
      double s = 0;
      if (!c->r) s = t[i * q + j];
      for (a = 0; a < c->r; ++a) s += t[a * q + i] * t[c->r * q + a * q + j];
      Q[i * D + j] = s;
    }
}

/* The ReLUs' on/off pattern (front layer and attention), recorded at one
   theta and replayed at others: the loss with the pattern frozen is smooth,
   and its Hessian at that theta is the one an exact Hessian-vector product
   of a ReLU model computes, so differences of it converge where a kink
   would spoil differences of the true loss. */
typedef struct tf_mask {
  unsigned char *on;
  size_t at;
  int replay;
} tf_mask;

static int tf_relu_on(tf_mask *mk, double s) {
  int on = s > 0;
  if (mk && mk->replay) on = mk->on[mk->at++];
  else if (mk) mk->on[mk->at++] = (unsigned char)on;
  return on;
}

/* [Z_L]_{d+1,n+1} of one prompt: each layer adds
   (1/n) sum_h P_h Z M act(Z^T Q_h Z), act on the n key rows of the scores,
   softmax over them per column. mk: NULL, or a pattern to record/replay. */
static double tf_naive_prompt(const tf_cfg *c, const double *th,
                              const double *Z0, tf_mask *mk) {
  int d = c->d, n = c->n, D = d + 1, T = n + 1, l, hh, i, j, k;
  double *Z = (double *)malloc(sizeof(double) * D * T);
  double *QZ = (double *)malloc(sizeof(double) * D * T);
  double *PZ = (double *)malloc(sizeof(double) * D * T);
  double *A = (double *)malloc(sizeof(double) * n * T);
  double *U = (double *)malloc(sizeof(double) * D * T);
  double *P = (double *)malloc(sizeof(double) * D * D);
  double *Q = (double *)malloc(sizeof(double) * D * D), out;
  memcpy(Z, Z0, sizeof(double) * D * T);
  if (c->h) {
    int h = c->h;
    const double *W1 = th + tf_nparams(c) - (2 * h * d + h + d);
    const double *b1 = W1 + h * d, *W2 = b1 + h, *b2 = W2 + d * h;
    double x[16], r[16];
    for (j = 0; j < T; ++j) {
      for (i = 0; i < d; ++i) x[i] = Z[i * T + j];
      for (k = 0; k < h; ++k) {
        double s = b1[k];
        for (i = 0; i < d; ++i) s += W1[k * d + i] * x[i];
        r[k] = tf_relu_on(mk, s) ? s : 0;
      }
      for (i = 0; i < d; ++i) {
        double s = b2[i];
        for (k = 0; k < h; ++k) s += W2[i * h + k] * r[k];
        Z[i * T + j] = s;
      }
    }
  }
  for (l = 0; l < c->L; ++l) {
    memset(U, 0, sizeof(double) * D * T);
    for (hh = 0; hh < c->H; ++hh) {
      tf_head(c, th, l, hh, P, Q);
      for (i = 0; i < D; ++i)
        for (j = 0; j < T; ++j) {
          double s = 0, t2 = 0;
          for (k = 0; k < D; ++k) {
            s += Q[i * D + k] * Z[k * T + j];
            t2 += P[i * D + k] * Z[k * T + j];
          }
          QZ[i * T + j] = s;
          PZ[i * T + j] = t2;
        }
      for (i = 0; i < n; ++i) /* the keys' rows of Z^T Q Z */
        for (j = 0; j < T; ++j) {
          double s = 0;
          for (k = 0; k < D; ++k) s += Z[k * T + i] * QZ[k * T + j];
          A[i * T + j] = c->act == LA_ACT_RELU && !tf_relu_on(mk, s) ? 0 : s;
        }
      if (c->act == LA_ACT_SOFTMAX)
        for (j = 0; j < T; ++j) {
          double mx = A[j], sum = 0;
          for (i = 1; i < n; ++i) mx = fmax(mx, A[i * T + j]);
          for (i = 0; i < n; ++i) sum += A[i * T + j] = exp(A[i * T + j] - mx);
          for (i = 0; i < n; ++i) A[i * T + j] /= sum;
        }
      for (i = 0; i < D; ++i)
        for (j = 0; j < T; ++j) {
          double s = 0;
          for (k = 0; k < n; ++k) s += PZ[i * T + k] * A[k * T + j];
          U[i * T + j] += s;
        }
    }
    for (i = 0; i < D * T; ++i) Z[i] += U[i] / n;
  }
  out = Z[d * T + n];
  free(Z); free(QZ); free(PZ); free(A); free(U); free(P); free(Q);
  return out;
}

static double tf_naive_loss_m(const tf_cfg *c, const double *th,
                              const tm_data *td, double *pred, tf_mask *mk) {
  int D = td->d + 1, T = td->n + 1, b;
  double s = 0;
  if (mk) mk->at = 0;
  for (b = 0; b < td->count; ++b) {
    double zl = tf_naive_prompt(c, th, td->z + (size_t)b * D * T, mk);
    double r = zl + td->y[b];
    if (pred) pred[b] = -zl;
    s += r * r;
  }
  return s / td->count;
}
static double tf_naive_loss(const tf_cfg *c, const double *th,
                            const tm_data *td, double *pred) {
  return tf_naive_loss_m(c, th, td, pred, NULL);
}

/* The std of theta's entries: products W_K^T W_Q as large as a merged Q
   of std base, and heads a little smaller, so that no combination's
   output explodes through the layers. */
static double tf_scale(const tf_cfg *c, double base) {
  double s = c->r ? sqrt(base / sqrt((double)c->r)) : base;
  return c->H > 1 ? 0.8 * s : s;
}

static int tf_model(la_model *m, const tf_cfg *c, const la_kernels *k) {
  la_model_config mc;
  memset(&mc, 0, sizeof mc);
  mc.d = c->d; mc.n = c->n; mc.layers = c->L; mc.param = c->param;
  mc.activation = c->act; mc.heads = c->H; mc.qk_rank = c->r;
  mc.front_hidden = c->h; mc.kernels = k;
  return la_model_init(m, &mc);
}

/* The combinations: index ci runs over param x activation x H x r, and
   picks a shape, a depth, a front layer and a batch count from small
   lists, so that every combination meets odd shapes somewhere. */
#define TF_NCOMB (3 * 3 * 2 * 3)
static tf_cfg tf_comb(int ci, int *count) {
  static const int shapes[][2] = {{3, 5}, {1, 3}, {7, 1}, {1, 61}, {4, 4}};
  static const int counts[] = {5, 1, LA_W + 3, 2, 2 * LA_W + 1};
  tf_cfg c;
  int rs = ci % 3, hs = (ci / 3) % 2, a = (ci / 6) % 3, p = ci / 18, s = ci % 5;
  c.param = p; c.act = a; c.H = hs ? 3 : 1;
  c.d = shapes[s][0]; c.n = shapes[s][1];
  c.r = rs == 0 ? 0 : rs == 1 ? 1 : tf_qmax(p, c.d);
  c.L = 2 + ci % 2;
  c.h = ci % 4 == 3 ? 3 : 0;
  if (c.d == 7 || c.n == 61) c.L = 2; /* keep the differences quick */
  *count = counts[ci % 5];
  return c;
}

/* ---------------------------------------------------------------- exp */

/* Distance of y from the reference in ulps of la_real at the reference. */
static double tf_ulps(double y, double ref) {
  double u;
  int e;
  frexp(ref, &e);
  u = ldexp(1.0, e - (sizeof(la_real) == 4 ? 24 : 53));
  return fabs(y - ref) / u;
}

/* Whether the best kernels' exp fuses its multiply-adds: the scalar one
   by fma, the SIMD ones by their instruction, except ARMv7 NEON before
   VFPv4 and WebAssembly SIMD128, which multiply and add. */
static int tf_exp_fused(void) {
#if (defined(__ARM_NEON) || defined(__ARM_NEON__)) && !defined(__aarch64__) && \
    !defined(__ARM_FEATURE_FMA)
  if (la_backend() == LINATTN_NEON) return 0;
#endif
  return la_backend() != LINATTN_WASM_SIMD128;
}

/* A backend's exp (fb) and its scalar twin (fs) on the n points x against
   libm's: every result in its range class (0 where e^x is below the
   smallest normal, within rounding of it either; +inf past the largest),
   the flushed range reached, within tol ulps elsewhere (one more where
   long double is double: libm's own error; one more for a backend that
   rounds its multiply-adds twice), and the backend equal to its twin
   where it fuses its multiply-adds (the twin's fma always does), within
   2 ulps of it where it does not. */
typedef void (*tf_exp_fn)(int n, const la_real *x, la_real *y);
static void tf_exp_check(la_t *t, const char *what, tf_exp_fn fb, tf_exp_fn fs,
                         int n, const la_real *x, double tol) {
  la_real *yb = (la_real *)malloc(sizeof(la_real) * n);
  la_real *ys = (la_real *)malloc(sizeof(la_real) * n);
  double tiny = sizeof(la_real) == 4 ? FLT_MIN : DBL_MIN;
  double big = sizeof(la_real) == 4 ? FLT_MAX : DBL_MAX, worst = 0, wx = 0;
  double twin = 0; /* largest SIMD-scalar difference, ulps */
  int i, bad = 0, nflush = 0;
  fb(n, x, yb); /* n is odd: the vector loop and its scalar tail */
  fs(n, x, ys);
  for (i = 0; i < n; ++i) {
    long double refl = expl((long double)x[i]);
    double ref = (double)refl, u;
    if (!(ref >= tiny * 1.0000005)) { /* subnormal or below: flushed */
      bad += yb[i] != 0 && !(ref >= tiny * 0.9999995);
      nflush += yb[i] == 0;
      continue;
    }
    if (ref > big) { bad += !(isinf(yb[i]) && yb[i] > 0); continue; }
    u = tf_ulps((double)yb[i], ref);
    if (!(u <= worst)) { worst = u; wx = (double)x[i]; }
    if (yb[i] != ys[i]) twin = fmax(twin, tf_ulps((double)yb[i], (double)ys[i]));
  }
  LA_CHECK(t, bad == 0, "%s: %d results out of their range class", what, bad);
  LA_CHECK(t, nflush > 100, "%s: the flushed range was reached (%d)", what,
           nflush);
  if (!tf_exp_fused()) tol += 1;
  LA_CHECK(t, worst <= (sizeof(long double) > sizeof(double) ? tol : tol + 1),
           "%s: worst %.3f ulps at x = %.9g", what, worst, wx);
  if (tf_exp_fused())
    LA_CHECK(t, twin == 0, "%s: fused backend equals its twin: %.3g ulps",
             what, twin);
  else
    LA_CHECK(t, twin <= 2, "%s: backend within 2 ulps of its twin: %.3g",
             what, twin);
  free(yb); free(ys);
}

static void tf_test_exp(la_t *t) {
  LA_TEST(t, "kernels: exp against libm, its range, and its scalar twin") {
    const la_kernels *kb = la_kernels_best(), *ks = la_kernels_scalar();
    const int N = 200003;
    la_real *x = (la_real *)malloc(sizeof(la_real) * (N + 1));
    double lo = sizeof(la_real) == 4 ? -104 : -746, hi = sizeof(la_real) == 4 ? 90 : 711;
    int i;
    la_t_rng r = {71};
    /* a sweep of the whole range, then random points in [-1, 1] */
    for (i = 0; i < N; ++i)
      x[i] = (la_real)(i < N / 2 ? lo + (hi - lo) * i / (0.5 * N)
                                 : la_t_uniform(&r) * (i % 3 ? 1 : 20));
    /* 1 ulp */
    tf_exp_check(t, "vexp", kb->vexp, ks->vexp, N, x, 1.0);
    /* the range edges, on both tables, at any address and in place */
    {
      static const double xs[] = {0, 1, -1, 1e-30, -1e-30, 1e30, -1e30,
                                  800, -800, 200, -200};
      la_real e[24], o[24];
      int k, ne = (int)(sizeof xs / sizeof xs[0]);
      for (k = 0; k < 2; ++k) {
        const la_kernels *kt = k ? ks : kb;
        for (i = 0; i < ne; ++i) e[i + 1] = (la_real)xs[i];
        e[ne + 1] = (la_real)INFINITY; e[ne + 2] = (la_real)-INFINITY;
        e[ne + 3] = (la_real)NAN;
        kt->vexp(ne + 3, e + 1, o + 1); /* off alignment by one element */
        LA_CHECK(t, o[1] == 1 && fabs(o[2] - 2.718281828459045) <= 2e-7 * 2.72 &&
                        o[4] == 1 && o[5] == 1,
                 "%s: e^0 %g, e^1 %.9g", kt->name, (double)o[1], (double)o[2]);
        LA_CHECK(t, isinf(o[6]) && o[6] > 0 && o[7] == 0 && isinf(o[8]) &&
                        o[9] == 0,
                 "%s: huge arguments", kt->name);
        LA_CHECK(t, (sizeof(la_real) == 8 || (isinf(o[10]) && o[11] == 0)) &&
                        (sizeof(la_real) == 4 || (o[10] > 7e86 && o[11] > 1e-87)),
                 "%s: +-200", kt->name);
        LA_CHECK(t, isinf(o[ne + 1]) && o[ne + 1] > 0 && o[ne + 2] == 0 &&
                        isnan(o[ne + 3]),
                 "%s: inf, -inf, NaN", kt->name);
        kt->vexp(ne + 3, e + 1, e + 1); /* in place, the same lanes */
        LA_CHECK(t, memcmp(e + 1, o + 1, sizeof(la_real) * ne) == 0,
                 "%s: in place", kt->name);
      }
    }
    free(x);
  }
}

/* e^x for x <= 0 (vexpn, the softmax's): 2.2 ulps in float, 0.91 in
   double (the exp section), both tables, its twin, its edges. */
static void tf_test_expn(la_t *t) {
  LA_TEST(t, "kernels: exp of x <= 0 against libm, its edges, its twin") {
    const la_kernels *kb = la_kernels_best(), *ks = la_kernels_scalar();
    const int N = 200003;
    la_real *x = (la_real *)malloc(sizeof(la_real) * N);
    double lo = sizeof(la_real) == 4 ? -104 : -746;
    int i;
    la_t_rng r = {73};
    LA_CHECK(t, kb->vexpn && ks->vexpn, "both tables have vexpn");
    for (i = 0; i < N; ++i) /* a sweep of the range, then [-1, 0] and [-20, 0] */
      x[i] = (la_real)(i < N / 2 ? lo * i / (0.5 * N)
                                 : -fabs(la_t_uniform(&r)) * (i % 3 ? 1 : 20));
    tf_exp_check(t, "vexpn", kb->vexpn, ks->vexpn, N, x,
                 sizeof(la_real) == 4 ? 2.2 : 1.0);
    { /* 0 gives 1 exactly (the softmax's largest weight); -inf, -800 and
         the smallest normal's edge 0; NaN stays; any address, in place */
      la_real e[8], o[8];
      int k;
      for (k = 0; k < 2; ++k) {
        const la_kernels *kt = k ? ks : kb;
        e[1] = 0; e[2] = (la_real)-0.0; e[3] = (la_real)-INFINITY;
        e[4] = -800; e[5] = (la_real)NAN; e[6] = (la_real)-1e-30;
        kt->vexpn(6, e + 1, o + 1);
        LA_CHECK(t, o[1] == 1 && o[2] == 1 && o[3] == 0 && o[4] == 0 &&
                        isnan(o[5]) && o[6] == 1,
                 "%s: edges %g %g %g %g %g %g", kt->name, (double)o[1],
                 (double)o[2], (double)o[3], (double)o[4], (double)o[5],
                 (double)o[6]);
        kt->vexpn(6, e + 1, e + 1);
        LA_CHECK(t, memcmp(e + 1, o + 1, sizeof(la_real) * 4) == 0 &&
                        isnan(e[5]) && e[6] == o[6],
                 "%s: in place", kt->name);
      }
    }
    free(x);
  }
}

/* ------------------------------------------------------------ softmax */

static void tf_test_softmax(la_t *t) {
  LA_TEST(t, "family: softmax columns sum to one, ignore a shift, stay finite") {
    enum { N = 13, TT = 4 };
    la_real *R = (la_real *)la_alloc(sizeof(la_real) * N * TT * LA_W);
    la_real *R2 = (la_real *)la_alloc(sizeof(la_real) * N * TT * LA_W);
    la_real cm[TT * LA_W]; /* the softmax's work */
    la_t_rng r = {73};
    int k, i, e, ok, okf;
    double err = 0;
    for (k = 0; k < 2; ++k) {
      const la_kernels *kt = k ? la_kernels_scalar() : la_kernels_best();
      /* scores on a grid of 1/64 in [-8, 8]: a shift of 256 is exact */
      for (e = 0; e < N * TT * LA_W; ++e) {
        R[e] = (la_real)(floor(la_t_uniform(&r) * 512) / 64);
        R2[e] = R[e] + (la_real)((e % (TT * LA_W)) % 3 == 0 ? 256 : -256);
      }
      la__e_softmax(kt, N, TT, R, cm);
      la__e_softmax(kt, N, TT, R2, cm);
      /* R holds the softmax of the unshifted scores now */
      ok = memcmp(R, R2, sizeof(la_real) * N * TT * LA_W) == 0;
      LA_CHECK(t, ok, "%s: a constant added to a column changes nothing",
               kt->name);
      err = 0;
      for (e = 0; e < TT * LA_W; ++e) {
        double s = 0;
        for (i = 0; i < N; ++i) s += R[i * TT * LA_W + e];
        /* not fmax: gcc 12's AArch64 vectorizer fails on that reduction */
        if (fabs(s - 1) > err) err = fabs(s - 1);
      }
      LA_CHECK(t, err <= N * (sizeof(la_real) == 4 ? 2e-7 : 4e-16),
               "%s: columns sum to 1 within %g", kt->name, err);
      /* scores of +-1e4: finite, the largest takes the whole weight; ties
         share it */
      for (e = 0; e < N * TT * LA_W; ++e) {
        int col = e % (TT * LA_W), row = e / (TT * LA_W);
        R[e] = (la_real)(col % 2 ? (row == col % N ? 1e4 : -1e4)
                                 : (row % 2 ? 1e4 : -1e4));
      }
      la__e_softmax(kt, N, TT, R, cm);
      okf = 0; /* entries off */
      for (e = 0; e < N * TT * LA_W; ++e) {
        int col = e % (TT * LA_W), row = e / (TT * LA_W);
        double want = col % 2 ? (row == col % N) : (row % 2 ? 2.0 / (N - 1) : 0);
        okf += !(fabs(R[e] - want) <= 4 * (sizeof(la_real) == 4 ? 1.2e-7 : 2.3e-16));
      }
      LA_CHECK(t, okf == 0, "%s: +-1e4 scores, %d entries off", kt->name, okf);
    }
    /* against the softmax written out in double */
    for (e = 0; e < N * TT * LA_W; ++e) R[e] = (la_real)(6 * la_t_uniform(&r));
    memcpy(R2, R, sizeof(la_real) * N * TT * LA_W);
    la__e_softmax(la_kernels_best(), N, TT, R2, cm);
    err = 0;
    for (e = 0; e < TT * LA_W; ++e) {
      double s = 0;
      for (i = 0; i < N; ++i) s += exp((double)R[i * TT * LA_W + e]);
      for (i = 0; i < N; ++i) {
        double ref = exp((double)R[i * TT * LA_W + e]) / s;
        err = fmax(err, fabs(R2[i * TT * LA_W + e] - ref) / ref);
      }
    }
    LA_CHECK(t, err <= (sizeof(la_real) == 4 ? 1e-6 : 4e-15),
             "relative error %g against the formula", err);
    la_free(R); la_free(R2);
  }
}

/* ------------------------------------------------------ configuration */

static void tf_test_config(la_t *t) {
  LA_TEST(t, "family: configuration ranges, parameter counts and blocks") {
    la_model_config mc;
    la_model m, bad;
    la_kernels noexp = *la_kernels_scalar();
    int off[512], sz[512], nb, i, ci, count;
    memset(&mc, 0, sizeof mc);
    mc.d = 5; mc.n = 20;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_OK && m.cfg.heads == 1 &&
                    m.cfg.qk_rank == 0 && m.nparams == 150,
             "defaults: one head, merged Q, today's 150 parameters");
    /* ranges: heads 1..LA_MAX_HEADS, qk_rank 0..q, activation */
    mc.heads = -1; LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "heads -1");
    mc.heads = LA_MAX_HEADS + 1;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "heads too many");
    mc.heads = LA_MAX_HEADS;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_OK, "heads at the limit");
    mc.heads = 0; mc.qk_rank = -1;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "qk_rank -1");
    mc.qk_rank = 6;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "sparse rank d+1");
    mc.qk_rank = 5;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_OK, "sparse rank d");
    mc.param = LA_PARAM_PGD;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_OK, "pgd rank d");
    mc.param = LA_PARAM_DENSE; mc.qk_rank = 6;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_OK, "dense rank d+1");
    mc.qk_rank = 7;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE, "dense rank d+2");
    mc.qk_rank = 0; mc.activation = LA_ACT_SOFTMAX;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_OK, "softmax");
    noexp.vexp = NULL;
    mc.kernels = &noexp;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_ERANGE,
             "softmax needs the table's exp");
    mc.activation = LA_ACT_RELU;
    LA_CHECK(t, la_model_init(&m, &mc) == LA_OK, "ReLU does not");
    mc.kernels = NULL;
    /* a model changed after la_model_init */
    mc.activation = LA_ACT_SOFTMAX; mc.heads = 2;
    la_model_init(&m, &mc);
    bad = m; bad.cfg.heads = 3;
    LA_CHECK(t, la_model_blocks(&bad, off, sz, 512) == LA_ERANGE &&
                    la_model_work_bytes(&bad) == 0,
             "heads changed after init");
    bad = m; bad.cfg.qk_rank = 2;
    LA_CHECK(t, la_model_blocks(&bad, off, sz, 512) == LA_ERANGE, "rank changed");
    /* counts and blocks of every combination, against the packing */
    for (ci = 0; ci < TF_NCOMB; ++ci) {
      tf_cfg c = tf_comb(ci, &count);
      int hb = (c.param != LA_PARAM_PGD) + (c.r ? 2 : 1);
      int want = c.L * c.H * hb + (c.h ? 4 : 0), at = 0,
          per = tf_head_params(&c), ok = 1;
      LA_CHECK(t, tf_model(&m, &c, NULL) == LA_OK && m.nparams == tf_nparams(&c),
               "%s: nparams %d vs %d", tf_desc(&c), m.nparams, tf_nparams(&c));
      nb = la_model_blocks(&m, off, sz, 512);
      LA_CHECK(t, nb == want, "%s: %d blocks, want %d", tf_desc(&c), nb, want);
      LA_CHECK(t, la_model_blocks(&m, off, sz, want - 1) == LA_ERANGE,
               "max below the count");
      for (i = 0; i < nb; ++i) {
        ok &= off[i] == at;
        at += sz[i];
      }
      /* per head: P's block (not pgd), then Q's or W_K's and W_Q's */
      for (i = 0; i < c.L * c.H * hb; ++i) {
        int k = i % hb, q = tf_q(&c);
        int ps = c.param == LA_PARAM_DENSE ? (c.d + 1) * (c.d + 1) : c.d * c.d;
        ok &= sz[i] == (c.param != LA_PARAM_PGD && k == 0 ? ps
                        : c.r                            ? c.r * q
                                                         : q * q);
      }
      if (c.h)
        ok &= sz[nb - 4] == c.h * c.d && sz[nb - 3] == c.h &&
              sz[nb - 2] == c.d * c.h && sz[nb - 1] == c.d;
      LA_CHECK(t, ok && at == m.nparams && off[hb] == per,
               "%s: blocks contiguous, in the packing's order", tf_desc(&c));
      {
        /* the workspace size is exact for this model */
        size_t wb = la_model_work_bytes(&m);
        tm_data td;
        la_real *th = (la_real *)calloc((size_t)m.nparams * 2, sizeof(la_real));
        char *wk = (char *)malloc(wb);
        la_t_rng r = {79};
        tm_make(&td, c.d, c.n, count, &r);
        LA_CHECK(t, la_model_hvp(&m, th, &td.b, th + m.nparams, NULL, NULL,
                                 th + m.nparams, wk, wb) == LA_OK &&
                        la_model_hvp(&m, th, &td.b, th + m.nparams, NULL, NULL,
                                     th + m.nparams, wk, wb - 1) == LA_EWORKSPACE,
                 "%s: workspace", tf_desc(&c));
        free(th); free(wk);
        tm_free(&td);
      }
    }
  }
}

/* ------------------------------------------------------------ forward */

static void tf_test_naive(la_t *t) {
  LA_TEST(t, "family: loss and predictions equal a naive forward pass") {
    la_t_rng r = {83};
    int ci;
    for (ci = 0; ci < TF_NCOMB; ++ci) {
      int count, np, st, b;
      tf_cfg c = tf_comb(ci, &count);
      la_model m;
      tm_data td;
      double *thd, loss, ref, *pref, e = 0, s = 0;
      la_real *th, *pred;
      LA_CHECK(t, tf_model(&m, &c, NULL) == LA_OK, "init %s", tf_desc(&c));
      np = m.nparams;
      tm_make(&td, c.d, c.n, count + 6, &r);
      thd = (double *)malloc(sizeof(double) * np);
      th = (la_real *)malloc(sizeof(la_real) * np);
      pred = (la_real *)malloc(sizeof(la_real) * td.count);
      pref = (double *)malloc(sizeof(double) * td.count);
      /* factors of 0.8: products of two stay near the merged forms' size */
      tm_theta(&r, np, tf_scale(&c, 0.35), thd, th);
      st = la_model_loss(&m, th, &td.b, &loss, pred, NULL, 0);
      ref = tf_naive_loss(&c, thd, &td, pref);
      for (b = 0; b < td.count; ++b) {
        e += (pred[b] - pref[b]) * (pred[b] - pref[b]);
        s += pref[b] * pref[b];
      }
      LA_CHECK(t, st == LA_OK && fabs(loss - ref) <= (TM_DBL ? 1e-11 : 3e-5) * (ref + 1e-3),
               "%s: status %d loss %.10g vs naive %.10g", tf_desc(&c), st, loss, ref);
      LA_CHECK(t, e <= (TM_DBL ? 1e-22 : 1e-9) * s, "%s: predictions nse %g",
               tf_desc(&c), e / s);
      free(thd); free(th); free(pred); free(pref);
      tm_free(&td);
    }
  }
}

/* ----------------------------------------------------------- gradient */

/* Normalized squared error of a result against differences of f with
   step h, f computed with relative rounding eps, to be held to tolerance
   tol: the differences' own rounding, about 100 eps (|f| + 1) / h an
   entry, is allowed besides, for results that vanish or nearly so (n = 1
   under softmax: every weight is 1 whatever Q is; a front layer whose
   units are all off). */
static double tf_err(int np, const la_real *g, const la_real *fd, double eps,
                     double f, double h, double tol) {
  double e = 0, s = 0, fl = 100 * eps * (fabs(f) + 1) / h / sqrt(tol);
  int i;
  for (i = 0; i < np; ++i) {
    e += ((double)g[i] - fd[i]) * ((double)g[i] - fd[i]);
    s += (double)fd[i] * fd[i];
  }
  return e / (s + np * fl * fl);
}

/* The gradient against 4-point differences of the naive loss in double
   (independent of the library: a check in float too), and in the double
   build against differences of la_model_loss. */
/* Up to per entries of each parameter matrix (its first, its last and the
   rest spread evenly between), into idx (room for per * 64); returns their
   number. */
static int tf_sample_entries(const la_model *m, int np, int per, int *idx) {
  int off[64], sz[64], nb = la_model_blocks(m, off, sz, 64), b, q, ns = 0;
  if (nb <= 0) { /* not expected: the first per * 64 entries */
    for (ns = 0; ns < np && ns < per * 64; ++ns) idx[ns] = ns;
    return ns;
  }
  for (b = 0; b < nb; ++b) {
    int k = sz[b] < per ? sz[b] : per;
    for (q = 0; q < k; ++q)
      idx[ns++] = off[b] + (k == 1 ? 0 : (int)((long)(sz[b] - 1) * q / (k - 1)));
  }
  return ns;
}

static void tf_grad_case(la_t *t, const tf_cfg *c, int count, la_t_rng *r) {
  la_model m;
  tm_data td;
  int np, i, j, ns, s, st, idx[12 * 64];
  double *thd, loss, nse, h = c->act == LA_ACT_RELU || c->h ? 1e-6 : 1e-4;
  la_real *th, *g, *gs, *fdr;
  static const double off[4] = {2, 1, -1, -2};
  tf_model(&m, c, NULL);
  np = m.nparams;
  tm_make(&td, c->d, c->n, count, r);
  thd = (double *)malloc(sizeof(double) * np);
  th = (la_real *)malloc(sizeof(la_real) * np);
  g = (la_real *)malloc(sizeof(la_real) * np);
  gs = (la_real *)calloc(np, sizeof(la_real));
  fdr = (la_real *)calloc(np, sizeof(la_real));
  tm_theta(r, np, tf_scale(c, 0.4), thd, th);
  st = la_model_grad(&m, th, &td.b, &loss, g, NULL, 0);
  LA_CHECK(t, st == LA_OK, "%s: status %d", tf_desc(c), st);
  /* the naive pass is slow: four entries of every matrix (its first, its
     last and two between), so that every matrix is met; the double build
     differences twelve of each of la_model_loss below */
  ns = tf_sample_entries(&m, np, 4, idx);
  for (j = 0; j < ns; ++j) {
    double x, f[4];
    i = idx[j];
    x = thd[i];
    for (s = 0; s < 4; ++s) {
      thd[i] = x + off[s] * h;
      f[s] = tf_naive_loss(c, thd, &td, NULL);
    }
    thd[i] = x;
    fdr[j] = (la_real)TM_FD4(f[0], f[1], f[2], f[3], h);
    gs[j] = g[i];
  }
  nse = tf_err(ns, gs, fdr, 2.2e-16, loss, h, TM_DBL ? 1e-14 : 1e-8);
  LA_CHECK(t, nse <= (TM_DBL ? 1e-14 : 1e-8),
           "%s count=%d: gradient vs differences of the naive loss nse %g",
           tf_desc(c), count, nse);
#ifdef LINATTN_DOUBLE
  ns = tf_sample_entries(&m, np, 12, idx);
  for (j = 0; j < ns; ++j) {
    la_real x;
    double f[4];
    i = idx[j];
    x = th[i];
    for (s = 0; s < 4; ++s) {
      th[i] = x + off[s] * h;
      la_model_loss(&m, th, &td.b, &f[s], NULL, NULL, 0);
    }
    th[i] = x;
    fdr[j] = TM_FD4(f[0], f[1], f[2], f[3], h);
    gs[j] = g[i];
  }
  nse = tf_err(ns, gs, fdr, 2.2e-16, loss, h, 1e-14);
  LA_CHECK(t, nse <= 1e-14, "%s: gradient vs differences of la_model_loss %g",
           tf_desc(c), nse);
#endif
  free(thd); free(th); free(g); free(gs); free(fdr);
  tm_free(&td);
}

static void tf_test_grad(la_t *t) {
  LA_TEST(t, "family: gradient equals 4-point differences, every combination") {
    la_t_rng r = {89};
    int ci, count;
    /* light: every seventh (7 is prime to the 2, 3 and 5 the
       combinations cycle through, so each option is still met) */
    for (ci = 0; ci < TF_NCOMB; ci += t->light ? 7 : 1) {
      tf_cfg c = tf_comb(ci, &count);
      tf_grad_case(t, &c, count, &r);
    }
  }
}

/* ----------------------------------------- Hessian-vector products */

/* u^T H v from the naive loss (its ReLU pattern frozen at th): the mixed
   second difference along (u, v), Richardson-extrapolated, the step halved
   until two estimates agree to 1e-7 of scale. *conv says whether they
   did. */
static double tf_uhv_naive(const tf_cfg *c, const double *th, const double *u,
                           const double *v, int np, const tm_data *td,
                           double scale, int *conv) {
  double *tp = (double *)malloc(sizeof(double) * np);
  double h = 2e-2, prev = 0, est = 0;
  int it, s, k, q;
  tf_mask mk;
  size_t nm = (size_t)td->count * (c->L * c->H * c->n * (c->n + 1) +
                                   (c->n + 1) * c->h);
  mk.on = (unsigned char *)malloc(nm + 1);
  mk.replay = 0;
  tf_naive_loss_m(c, th, td, NULL, &mk); /* record the pattern at th */
  mk.replay = 1;
  *conv = 0;
  for (it = 0; it < 8 && !*conv; ++it, h /= 2) {
    double dd[2];
    for (q = 0; q < 2; ++q) {
      double hq = q ? h / 2 : h, f[4];
      static const double su[4] = {1, 1, -1, -1}, sv[4] = {1, -1, 1, -1};
      for (s = 0; s < 4; ++s) {
        for (k = 0; k < np; ++k) tp[k] = th[k] + hq * (su[s] * u[k] + sv[s] * v[k]);
        f[s] = tf_naive_loss_m(c, tp, td, NULL, &mk);
      }
      dd[q] = (f[0] - f[1] - f[2] + f[3]) / (4 * hq * hq);
    }
    est = (4 * dd[1] - dd[0]) / 3;
    *conv = it > 0 && fabs(est - prev) <= 1e-7 * scale;
    prev = est;
  }
  free(tp); free(mk.on);
  return est;
}

/* fd = 4-point differences of the library's gradient along v, step h
   (g, tp: np each of work); the first failing status. */
static int tf_fd_hv(const la_model *m, const la_real *th, const la_real *v,
                    const la_batch *b, double h, la_real *g, la_real *tp,
                    la_real *fd) {
  static const double off[4] = {2, 1, -1, -2}, w[4] = {-1, 8, -8, 1};
  int np = m->nparams, i, s, st = LA_OK;
  memset(fd, 0, sizeof(la_real) * np);
  for (s = 0; s < 4; ++s) {
    for (i = 0; i < np; ++i) tp[i] = (la_real)(th[i] + off[s] * h * v[i]);
    st |= la_model_grad(m, tp, b, NULL, g, NULL, 0);
    for (i = 0; i < np; ++i) fd[i] += (la_real)(w[s] * g[i] / (12 * h));
  }
  return st;
}

static void tf_hvp_case(la_t *t, const tf_cfg *c, int count, la_t_rng *r) {
  la_model m;
  tm_data td;
  int np, st, conv, smooth = c->act != LA_ACT_RELU && !c->h;
  int by_grad = smooth; /* H v against differences of the gradient */
#ifdef LINATTN_DOUBLE
  /* in double also with kinks, when few ReLU pre-activations could cross
     zero within a step of 1e-6 */
  by_grad |= (double)count * ((c->act == LA_ACT_RELU
                                   ? c->L * c->H * c->n * (c->n + 1.0)
                                   : 0) + (c->n + 1.0) * c->h) <= 2000;
#endif
  double *thd, *vd, *ud, lh, loss, nse, uhv, vhu, sc, ref, h;
  la_real *th, *v, *u, *hv, *hu, *g, *gh, *fd, *tp;
  tf_model(&m, c, NULL);
  np = m.nparams;
  tm_make(&td, c->d, c->n, count, r);
  thd = (double *)malloc(sizeof(double) * np);
  vd = (double *)malloc(sizeof(double) * np);
  ud = (double *)malloc(sizeof(double) * np);
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
  tm_theta(r, np, 1.0, ud, u);
  tm_theta(r, np, tf_scale(c, 0.35), thd, th);
  st = la_model_hvp(&m, th, &td.b, v, &lh, gh, hv, NULL, 0);
  LA_CHECK(t, st == LA_OK, "%s: status %d", tf_desc(c), st);
  st = la_model_grad(&m, th, &td.b, &loss, g, NULL, 0);
  LA_CHECK(t, loss == lh && LA_NSE(np, gh, g) == 0,
           "%s: hvp's loss and gradient differ from la_model_grad's", tf_desc(c));
  /* u^T (H v) against the naive loss's mixed differences; the scale has a
     floor for a Hessian that vanishes (rounding then decides all) */
  uhv = la_dot(np, u, hv);
  sc = la_nrm2(np, u) * la_nrm2(np, hv) +
       1e-9 * la_nrm2(np, u) * la_nrm2(np, v) * (fabs(loss) + 1);
  ref = tf_uhv_naive(c, thd, ud, vd, np, &td, sc, &conv);
  LA_CHECK(t, conv && fabs(uhv - ref) <= (TM_DBL ? 1e-7 : 2e-4) * sc,
           "%s: u^T H v = %.10g, naive differences %.10g (of %g, converged %d)",
           tf_desc(c), uhv, ref, sc, conv);
  /* H v against 4-point differences of the library's gradient along v */
  h = TM_DBL ? (smooth ? 1e-4 : 1e-6) : 1e-2;
  if (by_grad) {
    st |= tf_fd_hv(&m, th, v, &td.b, h, g, tp, fd);
    nse = tf_err(np, hv, fd, TM_DBL ? 2.2e-16 : 1.2e-7, loss, h,
                 TM_DBL ? 1e-14 : 1e-4);
    LA_CHECK(t, st == LA_OK && nse <= (TM_DBL ? 1e-14 : 1e-4),
             "%s: hvp vs differences of the gradient nse %g", tf_desc(c), nse);
  }
  /* symmetry */
  st = la_model_hvp(&m, th, &td.b, u, NULL, NULL, hu, NULL, 0);
  vhu = la_dot(np, v, hu);
  LA_CHECK(t, st == LA_OK &&
                  fabs(uhv - vhu) <= (TM_DBL ? 1e-12 : 1e-5) * sc +
                                         1e3 * (TM_DBL ? 2.2e-16 : 1.2e-7) *
                                             la_nrm2(np, u) * la_nrm2(np, v) *
                                             (fabs(loss) + 1),
           "%s: u^T H v = %.10g, v^T H u = %.10g", tf_desc(c), uhv, vhu);
  free(thd); free(vd); free(ud); free(th); free(tp); free(v); free(u);
  free(hv); free(hu); free(g); free(gh); free(fd);
  tm_free(&td);
}

/* A case over every combination (light: every seventh, as in the
   gradient test), from one generator seeded with seed. */
static void tf_each(la_t *t, unsigned seed,
                    void (*one)(la_t *, const tf_cfg *, int, la_t_rng *)) {
  la_t_rng r;
  int ci, count;
  r.s = seed;
  for (ci = 0; ci < TF_NCOMB; ci += t->light ? 7 : 1) {
    tf_cfg c = tf_comb(ci, &count);
    one(t, &c, count, &r);
  }
}

static void tf_test_hvp(la_t *t) {
  LA_TEST(t, "family: Hessian-vector product equals differences, symmetric") {
    tf_each(t, 97, tf_hvp_case);
  }
}

/* ---------------------------------------------- several directions */

/* The stage of theta's entry i (its layer; -1 for the front layer's,
   which come last in theta and first in the forward pass). */
static int tf_stage(const tf_cfg *c, int i) {
  int lp = c->H * tf_head_params(c);
  return i < c->L * lp ? i / lp : -1;
}

static void tf_hmp_case(la_t *t, const tf_cfg *c, int count, la_t_rng *r) {
  enum { K = 4 };
  la_model m, ms;
  tm_data td;
  int np, k, st, same = 1, smooth = c->act != LA_ACT_RELU && !c->h;
  double *thd, loss = -1, l1 = -2, nse, worst = 0;
  la_real *th, *V, *HV, *HS, *g, *g1, *hv, *fd, *tp;
  size_t wb;
  void *w;
  tf_model(&m, c, NULL);
  tf_model(&ms, c, la_kernels_scalar());
  np = m.nparams;
  tm_make(&td, c->d, c->n, count, r);
  thd = (double *)malloc(sizeof(double) * np);
  th = (la_real *)malloc(sizeof(la_real) * np * (3 * K + 6));
  V = th + np; HV = V + K * np; HS = HV + K * np; g = HS + K * np;
  g1 = g + np; hv = g1 + np; fd = hv + np; tp = fd + np;
  tm_theta(r, np, tf_scale(c, 0.35), thd, th);
  for (k = 0; k < K - 1; ++k) tm_theta(r, np, 1.0, thd, V + k * np);
  memset(V + (K - 1) * np, 0, sizeof(la_real) * np); /* a unit direction */
  V[(K - 1) * np + (count * 7) % np] = 1;
  /* its own workspace size, exactly: one byte less is refused */
  wb = la_model_hmp_work_bytes(&m, K);
  w = malloc(wb);
  LA_CHECK(t, wb >= la_model_work_bytes(&m) &&
                  la_model_hmp_work_bytes(&m, 1) == la_model_work_bytes(&m),
           "%s: workspace %zu", tf_desc(c), wb);
  LA_CHECK(t, la_model_hmp(&m, th, &td.b, K, V, NULL, NULL, HV, w, wb - 1) ==
                  LA_EWORKSPACE,
           "%s: a short workspace", tf_desc(c));
  st = la_model_hmp(&m, th, &td.b, K, V, &loss, g, HV, w, wb);
  LA_CHECK(t, st == LA_OK, "%s: status %d", tf_desc(c), st);
  /* each row is la_model_hvp's of its direction, bit for bit */
  for (k = 0; k < K; ++k) {
    st |= la_model_hvp(&m, th, &td.b, V + k * np, &l1, g1, hv, NULL, 0);
    same &= !memcmp(hv, HV + k * np, sizeof(la_real) * np) && l1 == loss &&
            !memcmp(g, g1, sizeof(la_real) * np);
  }
  LA_CHECK(t, st == LA_OK && same, "%s: a row differs from la_model_hvp's",
           tf_desc(c));
  /* the scalar kernels' product, to rounding */
  st = la_model_hmp(&ms, th, &td.b, K, V, NULL, NULL, HS, NULL, 0);
  for (k = 0; k < K; ++k)
    worst = fmax(worst, LA_NSE(np, HV + k * np, HS + k * np));
  LA_CHECK(t, st == LA_OK && worst <= 100 * LA_T_NSE_TOL,
           "%s: against the scalar kernels nse %g", tf_desc(c), worst);
  /* each row against 4-point differences of the gradient along its
     direction (where the model is smooth) */
  for (k = 0; smooth && k < K; ++k) {
    double h = TM_DBL ? 1e-4 : 1e-2;
    st |= tf_fd_hv(&m, th, V + k * np, &td.b, h, g1, tp, fd);
    nse = tf_err(np, HV + k * np, fd, TM_DBL ? 2.2e-16 : 1.2e-7, loss, h,
                 TM_DBL ? 1e-14 : 1e-4);
    LA_CHECK(t, st == LA_OK && nse <= (TM_DBL ? 1e-14 : 1e-4),
             "%s: row %d vs differences of the gradient nse %g", tf_desc(c),
             k, nse);
  }
  free(w); free(thd); free(th);
  tm_free(&td);
}

static void tf_test_hmp(la_t *t) {
  LA_TEST(t, "family: Hessian-matrix product: la_model_hvp's rows, bit for bit") {
    tf_each(t, 109, tf_hmp_case);
  }
}

/* The dense Hessian is the Hessian's columns with each pair across layers
   formed once (in the column of the earlier layer) and each pair within
   a layer averaged; its diagonal by forward tangents (linear attention)
   is the columns' to rounding, else their own entries. */
static void tf_test_hess_cols(la_t *t) {
  LA_TEST(t, "family: dense Hessian and its diagonal from the columns") {
    la_t_rng r = {113};
    int ci, count;
    for (ci = 0; ci < TF_NCOMB; ci += t->light ? 7 : 1) {
      tf_cfg c = tf_comb(ci, &count);
      la_model m;
      tm_data td;
      int np, i, j, exact = 1;
      double *thd, *h, *ref, *dg, derr = 0, dmax = 0;
      la_real *th, *I, *HI;
      if (c.d == 7 || c.n == 61) continue; /* keep the n x n products quick */
      tf_model(&m, &c, NULL);
      np = m.nparams;
      tm_make(&td, c.d, c.n, count, &r);
      thd = (double *)malloc(sizeof(double) * np);
      th = (la_real *)malloc(sizeof(la_real) * np);
      I = (la_real *)calloc((size_t)np * np, sizeof(la_real));
      HI = (la_real *)malloc(sizeof(la_real) * np * np);
      h = (double *)malloc(sizeof(double) * np * np);
      ref = (double *)malloc(sizeof(double) * np * np);
      dg = (double *)malloc(sizeof(double) * np);
      tm_theta(&r, np, tf_scale(&c, 0.35), thd, th);
      for (i = 0; i < np; ++i) I[i * np + i] = 1;
      LA_CHECK(t, la_model_hmp(&m, th, &td.b, np, I, NULL, NULL, HI, NULL, 0) ==
                          LA_OK &&
                      la_hessian_dense(&m, th, &td.b, h, NULL, 0) == LA_OK &&
                      la_hessian_diag(&m, th, &td.b, dg, NULL, 0) == LA_OK,
               "%s: status", tf_desc(&c));
      /* row j of HI is column j of H */
      for (i = 0; i < np; ++i)
        for (j = 0; j < np; ++j) {
          int si = tf_stage(&c, i), sj = tf_stage(&c, j);
          double a = HI[j * np + i], b = HI[i * np + j]; /* H_ij, H_ji */
          ref[i * np + j] = si == sj ? 0.5 * (a + b)
                            : sj < 0 || (si >= 0 && si > sj) ? a : b;
        }
      for (i = 0; i < np * np; ++i) exact &= h[i] == ref[i];
      LA_CHECK(t, exact, "%s: dense differs from the columns", tf_desc(&c));
      for (i = 0; i < np; ++i) {
        dmax = fmax(dmax, fabs(ref[i * np + i]));
        derr = fmax(derr, fabs(dg[i] - ref[i * np + i]));
      }
      if (c.act == LA_ACT_LINEAR)
        LA_CHECK(t, derr <= 32 * (TM_DBL ? 2.2e-16 : 1.2e-7) * dmax,
                 "%s: diagonal off by %g of %g", tf_desc(&c), derr, dmax);
      else
        LA_CHECK(t, derr == 0, "%s: diagonal off by %g", tf_desc(&c), derr);
      free(thd); free(th); free(I); free(HI); free(h); free(ref); free(dg);
      tm_free(&td);
    }
  }
}

/* ------------------------------------------------------------ backends */

static void tf_test_simd(la_t *t) {
  LA_TEST(t, "family: backend kernels agree with the scalar kernels") {
    la_t_rng r = {101};
    int ci, count;
    /* light: every seventh combination, each option still met (as in the
       gradient test) */
    for (ci = 0; ci < TF_NCOMB; ci += t->light ? 7 : 1) {
      tf_cfg c = tf_comb(ci, &count);
      la_model ms, mb;
      tm_data td;
      int np;
      double *thd, ls = 0, lb = -1;
      la_real *th, *v, *gs, *gb, *hs, *hb;
      c.d = 5; c.n = 20; c.L = 3;
      c.r = c.r ? (c.r == 1 ? 1 : tf_qmax(c.param, c.d)) : 0;
      tf_model(&ms, &c, la_kernels_scalar());
      tf_model(&mb, &c, la_kernels_best());
      np = ms.nparams;
      tm_make(&td, c.d, c.n, 2 * LA_W + 3, &r);
      thd = (double *)malloc(sizeof(double) * np);
      th = (la_real *)malloc(sizeof(la_real) * np * 6);
      v = th + np; gs = v + np; gb = gs + np; hs = gb + np; hb = hs + np;
      tm_theta(&r, np, tf_scale(&c, 0.3), thd, th);
      tm_theta(&r, np, 1.0, thd, v);
      LA_CHECK(t, la_model_hvp(&ms, th, &td.b, v, &ls, gs, hs, NULL, 0) == 0 &&
                      la_model_hvp(&mb, th, &td.b, v, &lb, gb, hb, NULL, 0) == 0,
               "%s: status", tf_desc(&c));
      LA_CHECK(t, fabs(ls - lb) <= 1e3 * (TM_DBL ? 1e-16 : 1e-7) * ls,
               "%s: loss %.10g vs %.10g", tf_desc(&c), lb, ls);
      LA_CHECK(t, LA_NSE(np, gb, gs) <= 100 * LA_T_NSE_TOL, "%s: grad nse %g",
               tf_desc(&c), LA_NSE(np, gb, gs));
      LA_CHECK(t, LA_NSE(np, hb, hs) <= 100 * LA_T_NSE_TOL, "%s: hvp nse %g",
               tf_desc(&c), LA_NSE(np, hb, hs));
      free(thd); free(th);
      tm_free(&td);
    }
  }
}

/* ---------------------------------------------------------- identities */

/* Two equal heads are one head with P doubled; a factored model is the
   merged model at Q = W_K^T W_Q, and its gradient is the merged one
   carried through the product (dW_K = W_Q dQ^T, dW_Q = W_K dQ). */
static void tf_test_identities(la_t *t) {
  LA_TEST(t, "family: equal heads add, factors multiply (closed forms)") {
    la_t_rng r = {103};
    int a, p, i, j, k;
    for (a = 0; a < 3; ++a) {
      tf_cfg c1 = {3, 7, 2, LA_PARAM_DENSE, 0, 1, 0, 0}, c2;
      la_model m1, m2;
      tm_data td;
      int n1, per;
      double *thd;
      la_real *t1, *t2, *p1, *p2;
      c1.act = a;
      c2 = c1; c2.H = 2;
      tf_model(&m1, &c1, NULL);
      tf_model(&m2, &c2, NULL);
      n1 = m1.nparams;
      per = n1 / c1.L;
      tm_make(&td, c1.d, c1.n, 11, &r);
      thd = (double *)malloc(sizeof(double) * n1);
      t1 = (la_real *)malloc(sizeof(la_real) * n1);
      t2 = (la_real *)malloc(sizeof(la_real) * 2 * n1);
      p1 = (la_real *)malloc(sizeof(la_real) * td.count);
      p2 = (la_real *)malloc(sizeof(la_real) * td.count);
      tm_theta(&r, n1, 0.4, thd, t1);
      for (i = 0; i < c1.L; ++i) { /* [P, Q, P, Q] per layer */
        memcpy(t2 + 2 * i * per, t1 + i * per, sizeof(la_real) * per);
        memcpy(t2 + (2 * i + 1) * per, t1 + i * per, sizeof(la_real) * per);
      }
      for (i = 0; i < c1.L; ++i)
        for (j = 0; j < (c1.d + 1) * (c1.d + 1); ++j) t1[i * per + j] *= 2;
      LA_CHECK(t, la_model_loss(&m1, t1, &td.b, NULL, p1, NULL, 0) == 0 &&
                      la_model_loss(&m2, t2, &td.b, NULL, p2, NULL, 0) == 0 &&
                      LA_NSE(td.count, p2, p1) <= 100 * LA_T_NSE_TOL,
               "%s: two equal heads vs P doubled, nse %g", tf_aname(a),
               LA_NSE(td.count, p2, p1));
      free(thd); free(t1); free(t2); free(p1); free(p2);
      tm_free(&td);
    }
    for (p = 0; p < 3; ++p)
      for (a = 0; a < 3; ++a) {
        tf_cfg cm = {3, 6, 2, 0, 0, 2, 0, 0}, cf;
        la_model mm, mf;
        tm_data td;
        int nm, nf, pm, pf, q, rk = 2, l, pe;
        double *thd, e = 0, s = 0;
        la_real *tf, *tmr, *pfr, *pmr, *gf, *gm, *gw;
        cm.param = p; cm.act = a;
        cf = cm; cf.r = rk;
        q = tf_q(&cm);
        tf_model(&mm, &cm, NULL);
        tf_model(&mf, &cf, NULL);
        nm = mm.nparams; nf = mf.nparams;
        pm = tf_head_params(&cm); pf = tf_head_params(&cf);
        pe = pm - q * q;
        tm_make(&td, cm.d, cm.n, 9, &r);
        thd = (double *)malloc(sizeof(double) * nf);
        tf = (la_real *)malloc(sizeof(la_real) * nf);
        gf = (la_real *)malloc(sizeof(la_real) * nf);
        gw = (la_real *)malloc(sizeof(la_real) * nf);
        tmr = (la_real *)malloc(sizeof(la_real) * nm);
        gm = (la_real *)malloc(sizeof(la_real) * nm);
        pfr = (la_real *)malloc(sizeof(la_real) * td.count);
        pmr = (la_real *)malloc(sizeof(la_real) * td.count);
        tm_theta(&r, nf, 0.6, thd, tf);
        for (l = 0; l < cm.L * cm.H; ++l) { /* the merged form's theta */
          const la_real *WK = tf + l * pf + pe, *WQ = WK + rk * q;
          memcpy(tmr + l * pm, tf + l * pf, sizeof(la_real) * pe);
          for (i = 0; i < q; ++i)
            for (j = 0; j < q; ++j) {
              double acc = 0;
              for (k = 0; k < rk; ++k) acc += (double)WK[k * q + i] * WQ[k * q + j];
              tmr[l * pm + pe + i * q + j] = (la_real)acc;
            }
        }
        LA_CHECK(t, la_model_grad(&mf, tf, &td.b, NULL, gf, NULL, 0) == 0 &&
                        la_model_grad(&mm, tmr, &td.b, NULL, gm, NULL, 0) == 0 &&
                        la_model_loss(&mf, tf, &td.b, NULL, pfr, NULL, 0) == 0 &&
                        la_model_loss(&mm, tmr, &td.b, NULL, pmr, NULL, 0) == 0,
                 "status");
        LA_CHECK(t, LA_NSE(td.count, pfr, pmr) <= 100 * LA_T_NSE_TOL,
                 "%s %s: factored vs merged predictions nse %g", tm_pname(p),
                 tf_aname(a), LA_NSE(td.count, pfr, pmr));
        for (l = 0; l < cm.L * cm.H; ++l) { /* the chain rule, by hand */
          const la_real *WK = tf + l * pf + pe, *WQ = WK + rk * q;
          const la_real *gQ = gm + l * pm + pe;
          memcpy(gw + l * pf, gm + l * pm, sizeof(la_real) * pe);
          for (k = 0; k < rk; ++k)
            for (i = 0; i < q; ++i) {
              double sk = 0, sq = 0;
              for (j = 0; j < q; ++j) {
                sk += (double)WQ[k * q + j] * gQ[i * q + j];
                sq += (double)WK[k * q + j] * gQ[j * q + i];
              }
              gw[l * pf + pe + k * q + i] = (la_real)sk;
              gw[l * pf + pe + rk * q + k * q + i] = (la_real)sq;
            }
        }
        for (i = 0; i < nf; ++i) {
          e += ((double)gf[i] - gw[i]) * ((double)gf[i] - gw[i]);
          s += (double)gw[i] * gw[i];
        }
        LA_CHECK(t, s > 0 && e <= 1e3 * LA_T_NSE_TOL * s,
                 "%s %s: factored gradient vs the chain rule nse %g",
                 tm_pname(p), tf_aname(a), e / s);
        free(thd); free(tf); free(gf); free(gw); free(tmr); free(gm);
        free(pfr); free(pmr);
        tm_free(&td);
      }
  }
}

/* ------------------------------------------- diagnostics and training */

typedef struct tf_clip {
  int nb, off[64], sz[64], bad;
  double limit;
} tf_clip;

static int tf_clip_cb(void *user, const la_train_record *rec) {
  tf_clip *c = (tf_clip *)user;
  int i;
  for (i = 0; i < c->nb; ++i)
    c->bad += la_nrm2(c->sz[i], rec->grad + c->off[i]) > c->limit * (1 + 1e-5);
  return 0;
}

static void tf_test_tools(la_t *t) {
  LA_TEST(t, "family: Hessian, Lanczos, smoothness, noise and the trainer") {
    tf_cfg c = {3, 6, 2, LA_PARAM_SPARSE, LA_ACT_SOFTMAX, 2, 2, 0};
    la_model m;
    la_data_config dc;
    la_data g;
    la_batch b;
    la_rng rng;
    la_t_rng r = {107};
    int n, i, j, st;
    double *h, *ev, *hv_d, vals[2], sm, gn, tol = TM_DBL ? 1e-10 : 1e-5, hn;
    double *noise, tg;
    la_real *th, *v, *hv, *nx;
    tf_model(&m, &c, NULL);
    n = m.nparams;
    memset(&dc, 0, sizeof dc);
    dc.d = c.d; dc.n = c.n;
    LA_CHECK(t, la_data_create(&g, &dc, 5) == 0 &&
                    la_batch_create(&b, c.d, c.n, 40) == 0,
             "data");
    la_rng_seed(&rng, 5, 1);
    la_data_sample(&g, &rng, &b);
    h = (double *)malloc(sizeof(double) * n * n);
    ev = (double *)malloc(sizeof(double) * n);
    hv_d = (double *)malloc(sizeof(double) * n);
    th = (la_real *)malloc(sizeof(la_real) * n * 4);
    v = th + n; hv = v + n; nx = hv + n;
    for (i = 0; i < n; ++i) {
      th[i] = (la_real)(0.5 * la_t_uniform(&r));
      v[i] = (la_real)la_t_uniform(&r);
    }
    /* the dense Hessian times v is the HVP; its diagonal la_hessian_diag */
    st = la_hessian_dense(&m, th, &b, h, NULL, 0);
    LA_CHECK(t, st == LA_OK, "dense %d", st);
    la_model_hvp(&m, th, &b, v, NULL, NULL, hv, NULL, 0);
    {
      double e = 0, s = 0;
      for (i = 0; i < n; ++i) {
        hv_d[i] = 0;
        for (j = 0; j < n; ++j) hv_d[i] += h[i * n + j] * v[j];
        e += (hv_d[i] - hv[i]) * (hv_d[i] - hv[i]);
        s += (double)hv[i] * hv[i];
      }
      LA_CHECK(t, s > 0 && e <= 1e4 * LA_T_NSE_TOL * s, "H v vs dense nse %g",
               e / s);
    }
    la_hessian_diag(&m, th, &b, ev, NULL, 0);
    {
      double e = 0;
      for (i = 0; i < n; ++i) e = fmax(e, fabs(ev[i] - h[i * n + i]));
      LA_CHECK(t, e == 0, "diagonal off by %g", e);
    }
    /* Lanczos against the dense spectrum */
    LA_CHECK(t, la_sym_eig(n, h, ev, NULL, NULL, 0) == LA_OK, "eig");
    hn = fmax(fabs(ev[0]), fabs(ev[n - 1]));
    {
      la_eig_out o;
      memset(&o, 0, sizeof o);
      o.values = vals;
      st = la_hessian_eigs(&m, th, &b, 2, tol, NULL, &o, NULL, 0);
      LA_CHECK(t, st == LA_OK && fabs(vals[0] - ev[n - 1]) <= (tol + 1e3 * (TM_DBL ? 2.2e-16 : 1.2e-7)) * hn &&
                      fabs(vals[1] - ev[n - 2]) <= (tol + 1e3 * (TM_DBL ? 2.2e-16 : 1.2e-7)) * hn,
               "top eigenvalues %g %g vs %g %g (status %d)", vals[0], vals[1],
               ev[n - 1], ev[n - 2], st);
    }
    {
      la_rcond rc;
      LA_CHECK(t, la_robust_cond(&m, th, &b, NULL, &rc, NULL, 0) == LA_OK &&
                      rc.exact && rc.lambda_max == ev[n - 1],
               "robust condition, exact path");
    }
    /* smoothness along a step: u^T H u from the HVP */
    {
      double nu = 0, uhu = 0;
      for (i = 0; i < n; ++i) {
        nx[i] = (la_real)(th[i] + 0.01 * v[i]);
        nu += ((double)nx[i] - th[i]) * ((double)nx[i] - th[i]);
      }
      nu = sqrt(nu);
      for (i = 0; i < n; ++i) hv_d[i] = ((double)nx[i] - th[i]) / nu;
      for (i = 0; i < n; ++i) v[i] = (la_real)hv_d[i];
      la_model_hvp(&m, th, &b, v, NULL, NULL, hv, NULL, 0);
      for (i = 0; i < n; ++i) uhu += (double)v[i] * hv[i];
      st = la_dir_smoothness(&m, th, nx, &b, &sm, &gn, NULL, 0);
      LA_CHECK(t, st == LA_OK && fabs(sm - uhu) <= 1e-4 * hn && gn > 0,
               "smoothness %g vs %g", sm, uhu);
    }
    /* gradient noise on fresh prompts */
    {
      la_grad_noise_config nc;
      memset(&nc, 0, sizeof nc);
      nc.minibatch = 16; nc.true_batch = 64; nc.samples = 5;
      noise = (double *)malloc(sizeof(double) * 5);
      st = la_grad_noise(&m, th, &g, &rng, &nc, noise, &tg, NULL, 0);
      LA_CHECK(t, st == LA_OK && tg > 0 && noise[0] > 0 && noise[4] > 0 &&
                      la__finite(noise[2]),
               "noise: status %d", st);
      free(noise);
    }
    /* the trainer: per-matrix clipping sees every factor as its block */
    {
      la_train_config tc;
      la_optim_config ac;
      la_trainer tr;
      tf_clip cl;
      double e0 = 0, e1 = 0;
      memset(&tc, 0, sizeof tc);
      memset(&ac, 0, sizeof ac);
      memset(&cl, 0, sizeof cl);
      ac.lr = 0.02;
      tc.model = &m; tc.data = &g; tc.optimizer_config = &ac;
      tc.clip_block = cl.limit = 0.05;
      tc.batch = 64; tc.eval_every = -1; tc.seed = 3;
      tc.callback = tf_clip_cb; tc.user = &cl;
      cl.nb = la_model_blocks(&m, cl.off, cl.sz, 64);
      st = la_trainer_create(&tr, &tc);
      LA_CHECK(t, st == LA_OK && tr.nblocks == cl.nb && cl.nb == 12,
               "trainer: status %d, %d blocks", st, tr.nblocks);
      if (st == LA_OK) {
        la_trainer_eval(&tr, &e0);
        st = la_trainer_run(&tr, 60);
        la_trainer_eval(&tr, &e1);
        LA_CHECK(t, st == LA_OK && cl.bad == 0 && e1 < 0.9 * e0,
                 "trained: status %d, %d blocks over the clip, eval %g -> %g",
                 st, cl.bad, e0, e1);
        la_trainer_destroy(&tr);
      }
    }
    free(h); free(ev); free(hv_d); free(th);
    la_batch_destroy(&b);
    la_data_destroy(&g);
  }
}

static void suite_family(la_t *t) {
  tf_test_exp(t);
  tf_test_expn(t);
  tf_test_softmax(t);
  tf_test_config(t);
  tf_test_naive(t);
  tf_test_grad(t);
  tf_test_hvp(t);
  tf_test_hmp(t);
  tf_test_hess_cols(t);
  tf_test_simd(t);
  tf_test_identities(t);
  tf_test_tools(t);
}
