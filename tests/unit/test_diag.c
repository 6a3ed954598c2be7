/* Diagnostics against independent computations: matrices with spectra
   known by construction (Q diag Q^T), naive loops, closed forms, finite
   differences of the model's loss, and sample-size tolerances. */
#include <stdlib.h>

/* ---------------------------------------------------- test operators */

typedef struct {
  int n;
  const double *a; /* row-major, need not be symmetric */
  int calls;
  int poison_at; /* > 0: that call returns a NaN */
  int fail_at;   /* > 0: that call returns LA_EIO */
} dmat_op;

static int dmat_matvec(void *ctx, int n, const la_real *x, la_real *y) {
  dmat_op *op = (dmat_op *)ctx;
  int i, j;
  op->calls++;
  if (op->fail_at && op->calls == op->fail_at) return LA_EIO;
  for (i = 0; i < n; ++i) {
    double s = 0;
    for (j = 0; j < n; ++j) s += op->a[(size_t)i * n + j] * x[j];
    y[i] = (la_real)s;
  }
  if (op->poison_at && op->calls == op->poison_at) y[n / 2] = (la_real)NAN;
  return LA_OK;
}

/* A random orthogonal n x n (rows orthonormal) by Gram-Schmidt, twice. */
static void t_orthogonal(la_t_rng *r, int n, double *q) {
  int i, j, k, pass;
  for (i = 0; i < n * n; ++i) q[i] = la_t_uniform(r);
  for (i = 0; i < n; ++i) {
    double *qi = q + (size_t)i * n, nr = 0;
    for (pass = 0; pass < 2; ++pass)
      for (j = 0; j < i; ++j) {
        double *qj = q + (size_t)j * n, c = 0;
        for (k = 0; k < n; ++k) c += qi[k] * qj[k];
        for (k = 0; k < n; ++k) qi[k] -= c * qj[k];
      }
    for (k = 0; k < n; ++k) nr += qi[k] * qi[k];
    nr = sqrt(nr);
    for (k = 0; k < n; ++k) qi[k] /= nr;
  }
}

/* a = Q^T diag(lam) Q with the rows of Q as eigenvectors. */
static void t_from_spectrum(la_t_rng *r, int n, const double *lam, double *a,
                            double *q) {
  int i, j, k;
  t_orthogonal(r, n, q);
  for (i = 0; i < n; ++i)
    for (j = 0; j <= i; ++j) {
      double s = 0;
      for (k = 0; k < n; ++k) s += q[(size_t)k * n + i] * lam[k] * q[(size_t)k * n + j];
      a[(size_t)i * n + j] = a[(size_t)j * n + i] = s;
    }
}

static int t_cmp_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* The k wanted true eigenvalues, in the order la_lanczos returns them. */
static void t_wanted(int n, const double *lam, int which, int k, double *out) {
  double *s = (double *)malloc(sizeof(double) * n);
  int i, lo = 0, hi = n - 1;
  memcpy(s, lam, sizeof(double) * n);
  qsort(s, n, sizeof(double), t_cmp_desc); /* descending */
  for (i = 0; i < k; ++i) {
    if (which == LA_EIG_LARGEST) out[i] = s[i];
    else if (which == LA_EIG_SMALLEST) out[i] = s[n - 1 - i];
    else out[i] = fabs(s[lo]) >= fabs(s[hi]) ? s[lo++] : s[hi--];
  }
  free(s);
}

static const double t_eps = sizeof(la_real) == 4 ? 1.2e-7 : 2.3e-16;

/* Runs Lanczos on Q^T diag(lam) Q and compares with lam; returns the
   largest error of a value in units of ||A||, checks residuals. */
static double t_lanczos_case(la_t *t, const char *what, int n,
                             const double *lam, int which, int k, double tol,
                             int max_iter, la_eig_out *res_out) {
  la_t_rng r = {1234u + (unsigned)n * 7u + (unsigned)which};
  double *a = (double *)malloc(sizeof(double) * n * n);
  double *q = (double *)malloc(sizeof(double) * n * n);
  double *want = (double *)malloc(sizeof(double) * k);
  double *vals = (double *)malloc(sizeof(double) * k);
  double *res = (double *)malloc(sizeof(double) * k);
  la_real *vec = (la_real *)malloc(sizeof(la_real) * n * k);
  double anorm = 0, worst = 0;
  dmat_op op;
  la_lanczos_config cfg;
  la_eig_out out;
  int i, j, st;
  for (i = 0; i < n; ++i) anorm = fmax(anorm, fabs(lam[i]));
  t_from_spectrum(&r, n, lam, a, q);
  memset(&op, 0, sizeof op); op.n = n; op.a = a;
  memset(&cfg, 0, sizeof cfg); cfg.which = which; cfg.max_iter = max_iter;
  cfg.seed = 99;
  memset(&out, 0, sizeof out);
  out.values = vals; out.residuals = res; out.vectors = vec;
  st = la_lanczos(n, dmat_matvec, &op, k, tol, &cfg, &out, NULL, 0);
  LA_CHECK(t, st == LA_OK, "%s: status %d (%d of %d converged)", what, st,
           out.converged, k);
  LA_CHECK(t, out.matvecs == op.calls, "%s: %d matvecs reported, %d made",
           what, out.matvecs, op.calls);
  t_wanted(n, lam, which, k, want);
  for (i = 0; i < k; ++i) worst = fmax(worst, fabs(vals[i] - want[i]) / anorm);
  /* the true residual of each Ritz pair, against the reported bound plus
     the rounding of one product */
  for (i = 0; i < k; ++i) {
    double rr = 0, nv = 0;
    for (j = 0; j < n; ++j) {
      double s = 0;
      int l;
      for (l = 0; l < n; ++l) s += a[(size_t)j * n + l] * vec[(size_t)i * n + l];
      s -= vals[i] * vec[(size_t)i * n + j];
      rr += s * s;
      nv += (double)vec[(size_t)i * n + j] * vec[(size_t)i * n + j];
    }
    LA_CHECK(t, fabs(nv - 1) < 100 * t_eps * sqrt((double)n),
             "%s: |y_%d| = %g", what, i, sqrt(nv));
    LA_CHECK(t, sqrt(rr) <= res[i] + 30 * t_eps * sqrt((double)n) * anorm,
             "%s: true residual %g > reported %g", what, sqrt(rr), res[i]);
  }
  if (res_out) *res_out = out;
  free(a); free(q); free(want); free(vals); free(res); free(vec);
  return worst;
}

static void diag_dense_tests(la_t *t) {
  LA_TEST(t, "diag/sym_eig against Q diag Q^T") {
    static const int ns[] = {1, 2, 3, 7, 40};
    la_t_rng r = {77};
    int c;
    for (c = 0; c < 5; ++c) {
      int n = ns[c], i, j, k;
      double *lam = (double *)malloc(sizeof(double) * n);
      double *a = (double *)malloc(sizeof(double) * n * n);
      double *a0 = (double *)malloc(sizeof(double) * n * n);
      double *q = (double *)malloc(sizeof(double) * n * n);
      double *w = (double *)malloc(sizeof(double) * n);
      double *v = (double *)malloc(sizeof(double) * n * n);
      double err = 0, orth = 0, res = 0;
      /* indefinite, with a repeated value and a cluster */
      for (i = 0; i < n; ++i) lam[i] = i % 5 == 0 ? 2.0 : 10.0 * la_t_uniform(&r);
      if (n > 3) lam[3] = lam[1] + 1e-9;
      t_from_spectrum(&r, n, lam, a, q);
      memcpy(a0, a, sizeof(double) * n * n);
      LA_CHECK(t, la_sym_eig(n, a, w, v, NULL, 0) == LA_OK, "n %d", n);
      qsort(lam, n, sizeof(double), t_cmp_desc);
      for (i = 0; i < n; ++i) err = fmax(err, fabs(w[i] - lam[n - 1 - i]));
      for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j) {
          double s = 0, rv = 0;
          for (k = 0; k < n; ++k) s += v[i * n + k] * v[j * n + k];
          orth = fmax(orth, fabs(s - (i == j)));
          for (k = 0; k < n; ++k) rv += a0[j * n + k] * v[i * n + k];
          res = fmax(res, fabs(rv - w[i] * v[i * n + j]));
        }
      LA_CHECK(t, err < 1e-12 * 10 * n, "n %d: eigenvalue error %g", n, err);
      LA_CHECK(t, orth < 1e-12 * n, "n %d: orthogonality %g", n, orth);
      LA_CHECK(t, res < 1e-12 * 10 * n, "n %d: residual %g", n, res);
      for (i = 1; i < n; ++i) LA_CHECK(t, w[i - 1] <= w[i], "not ascending");
      free(lam); free(a); free(a0); free(q); free(w); free(v);
    }
  }

  LA_TEST(t, "diag/sym_eig diagonal, zero and bad input") {
    double a[9] = {3, 0, 0, 0, -1, 0, 0, 0, 2}, w[3], z[9] = {0};
    double small[4];
    LA_CHECK(t, la_sym_eig(3, a, w, NULL, NULL, 0) == LA_OK, "diag");
    LA_CHECK(t, w[0] == -1 && w[1] == 2 && w[2] == 3, "%g %g %g", w[0], w[1],
             w[2]);
    LA_CHECK(t, la_sym_eig(3, z, w, NULL, NULL, 0) == LA_OK, "zero");
    LA_CHECK(t, w[0] == 0 && w[2] == 0, "zero matrix");
    LA_CHECK(t, la_sym_eig(0, a, w, NULL, NULL, 0) == LA_EDIM, "n 0");
    LA_CHECK(t, la_sym_eig(3, NULL, w, NULL, NULL, 0) == LA_ENULL, "null a");
    LA_CHECK(t, la_sym_eig(3, a, NULL, NULL, NULL, 0) == LA_ENULL, "null w");
    LA_CHECK(t, la_sym_eig(3, a, w, NULL, small, sizeof small) ==
                    LA_EWORKSPACE, "small workspace");
    LA_CHECK(t, la_sym_eig(3, a, w, NULL, NULL, 5) == LA_ENULL, "null work");
    a[4] = NAN;
    LA_CHECK(t, la_sym_eig(3, a, w, NULL, NULL, 0) == LA_ENONFINITE, "nan");
    LA_CHECK(t, la_sym_eig_work_bytes(-1) == 0, "size of n < 0");
  }

  LA_TEST(t, "diag/dense_from_matvec symmetrizes") {
    int n = 9, i, j;
    double a[81], h[81];
    la_t_rng r = {5};
    dmat_op op;
    void *w = malloc(la_dense_from_matvec_work_bytes(n));
    double err = 0;
    for (i = 0; i < n * n; ++i) a[i] = la_t_uniform(&r);
    memset(&op, 0, sizeof op); op.n = n; op.a = a;
    LA_CHECK(t, la_dense_from_matvec(n, dmat_matvec, &op, h, w,
                                     la_dense_from_matvec_work_bytes(n)) ==
                    LA_OK, "status");
    for (i = 0; i < n; ++i)
      for (j = 0; j < n; ++j)
        err = fmax(err, fabs(h[i * n + j] - 0.5 * (a[i * n + j] + a[j * n + i])));
    LA_CHECK(t, err < 4 * t_eps, "error %g", err);
    LA_CHECK(t, op.calls == n, "%d calls", op.calls);
    op.poison_at = 3; op.calls = 0;
    LA_CHECK(t, la_dense_from_matvec(n, dmat_matvec, &op, h, NULL, 0) ==
                    LA_ENONFINITE, "nan");
    op.poison_at = 0; op.fail_at = 2; op.calls = 0;
    LA_CHECK(t, la_dense_from_matvec(n, dmat_matvec, &op, h, NULL, 0) == LA_EIO,
             "callback status");
    LA_CHECK(t, la_dense_from_matvec(0, dmat_matvec, &op, h, NULL, 0) == LA_EDIM,
             "n 0");
    LA_CHECK(t, la_dense_from_matvec(n, NULL, &op, h, NULL, 0) == LA_ENULL,
             "null f");
    LA_CHECK(t, la_dense_from_matvec(n, dmat_matvec, &op, h, w, 8) ==
                    LA_EWORKSPACE, "small");
    free(w);
  }
}

static void diag_lanczos_tests(la_t *t) {
  /* |theta - lambda| <= (tol + rounding of the products) ||A|| */
  const double tol = sizeof(la_real) == 4 ? 1e-5 : 1e-10;
  const double slack = 50 * t_eps * 10;

  LA_TEST(t, "diag/lanczos three orderings of an indefinite spectrum") {
    int n = 120, i, w;
    double lam[120], err;
    la_t_rng r = {3};
    for (i = 0; i < n; ++i) lam[i] = 4 * la_t_uniform(&r);
    lam[0] = 9; lam[1] = -10; lam[2] = 8.5; lam[3] = -9.5; lam[4] = 7;
    for (w = 0; w < 3; ++w) {
      err = t_lanczos_case(t, "indefinite", n, lam, w, 4, tol, 0, NULL);
      LA_CHECK(t, err < tol + slack, "which %d: error %g", w, err);
    }
  }

  LA_TEST(t, "diag/lanczos clustered and low rank, no ghost copies") {
    int n = 150, i;
    double lam[150], err;
    la_eig_out o;
    la_t_rng r = {8};
    /* a tight cluster at the top of a wide spectrum */
    for (i = 0; i < n; ++i) lam[i] = la_t_uniform(&r);
    for (i = 0; i < 6; ++i) lam[i] = 5 + 1e-3 * i;
    err = t_lanczos_case(t, "clustered", n, lam, LA_EIG_LARGEST, 6, tol, 0, &o);
    LA_CHECK(t, err < tol * 20 + slack, "clustered: error %g", err);
    /* rank 4: 146 zero eigenvalues, the space closes after 5 steps */
    for (i = 0; i < n; ++i) lam[i] = 0;
    lam[0] = 3; lam[1] = -2; lam[2] = 1; lam[3] = 0.5;
    err = t_lanczos_case(t, "low rank", n, lam, LA_EIG_MAGNITUDE, 6, tol, 0, &o);
    LA_CHECK(t, err < tol + slack, "low rank: error %g", err);
    /* one dominant value and a long run of iterations: without full
       reorthogonalization its ghost copies would fill the top of the list */
    for (i = 0; i < n; ++i) lam[i] = 1 + 0.01 * i;
    lam[0] = 1000;
    err = t_lanczos_case(t, "ghosts", n, lam, LA_EIG_LARGEST, 8,
                         sizeof(la_real) == 4 ? 1e-6 : 1e-13, n, &o);
    LA_CHECK(t, err < tol + slack, "ghosts: error %g", err);
  }

  LA_TEST(t, "diag/lanczos exactly repeated eigenvalues") {
    /* 3 x 7 and 3 x 5: one starting vector sees each value once, so the
       k = 3 largest are the distinct 7, 5, then the next value; copies
       appear only through restarts or rounding, never beyond the true
       multiplicity. */
    int n = 60, i, j;
    double lam[60], vals[3], want[3] = {7, 5, 4};
    la_t_rng r = {11};
    double *a = (double *)malloc(sizeof(double) * n * n);
    double *q = (double *)malloc(sizeof(double) * n * n);
    dmat_op op;
    la_eig_out out;
    int st;
    for (i = 0; i < n; ++i) lam[i] = 3 * la_t_uniform(&r);
    lam[0] = lam[1] = lam[2] = 7;
    lam[3] = lam[4] = lam[5] = 5;
    lam[6] = 4;
    t_from_spectrum(&r, n, lam, a, q);
    memset(&op, 0, sizeof op); op.n = n; op.a = a;
    memset(&out, 0, sizeof out); out.values = vals;
    st = la_lanczos(n, dmat_matvec, &op, 3, tol, NULL, &out, NULL, 0);
    LA_CHECK(t, st == LA_OK, "status %d", st);
    /* every value returned is an eigenvalue, no more copies than it has,
       and the distinct ones come in order from the top */
    {
      int used[7] = {0}, mult[7] = {3, 0, 0, 3, 0, 0, 1}, d = 0;
      for (i = 0; i < 3; ++i) {
        int hit = -1;
        for (j = 0; j < 7; ++j)
          if (hit < 0 && fabs(vals[i] - lam[j]) < 10 * (tol + slack) * 7) hit = j;
        LA_CHECK(t, hit == 0 || hit == 3 || hit == 6, "value %d: %.12g", i,
                 vals[i]);
        if (hit < 0) continue;
        used[hit]++;
        LA_CHECK(t, used[hit] <= mult[hit], "%g returned %d times", lam[hit],
                 used[hit]);
        if (i == 0 || fabs(vals[i] - vals[i - 1]) > 1e-3)
          LA_CHECK(t, fabs(vals[i] - want[d++]) < 1e-3, "distinct %d: %g", d,
                   vals[i]);
      }
    }
    /* the whole spectrum of a small matrix: restarts recover every copy */
    {
      double lam6[6] = {2, 2, 2, 1, 1, 0}, v6[6], a6[36], q6[36];
      la_real vec6[36];
      dmat_op op6;
      la_lanczos_config c6;
      t_from_spectrum(&r, 6, lam6, a6, q6);
      memset(&op6, 0, sizeof op6); op6.n = 6; op6.a = a6;
      memset(&c6, 0, sizeof c6); c6.which = LA_EIG_SMALLEST;
      memset(&out, 0, sizeof out); out.values = v6; out.vectors = vec6;
      st = la_lanczos(6, dmat_matvec, &op6, 6, tol, &c6, &out, NULL, 0);
      LA_CHECK(t, st == LA_OK, "status %d", st);
      LA_CHECK(t, out.restarts >= 1, "%d restarts", out.restarts);
      for (i = 0; i < 6; ++i)
        LA_CHECK(t, fabs(v6[i] - lam6[5 - i]) < 100 * t_eps, "v6[%d] = %g", i,
                 v6[i]);
      /* the three vectors of 2 span its eigenspace: orthonormal */
      for (i = 3; i < 6; ++i)
        for (j = 3; j < 6; ++j) {
          double s = 0;
          int l;
          for (l = 0; l < 6; ++l) s += (double)vec6[i * 6 + l] * vec6[j * 6 + l];
          LA_CHECK(t, fabs(s - (i == j)) < 1000 * t_eps, "<y%d,y%d> = %g", i, j,
                   s);
        }
    }
    free(a); free(q);
  }

  LA_TEST(t, "diag/lanczos seeded, deterministic") {
    int n = 50, i;
    double a[2500], q[2500], lam[50], v1[3], v2[3];
    la_t_rng r = {21};
    dmat_op op;
    la_eig_out o1, o2;
    la_lanczos_config c;
    for (i = 0; i < n; ++i) lam[i] = la_t_uniform(&r);
    t_from_spectrum(&r, n, lam, a, q);
    memset(&op, 0, sizeof op); op.n = n; op.a = a;
    memset(&c, 0, sizeof c); c.seed = 5;
    memset(&o1, 0, sizeof o1); o1.values = v1;
    memset(&o2, 0, sizeof o2); o2.values = v2;
    la_lanczos(n, dmat_matvec, &op, 3, 1e-3, &c, &o1, NULL, 0);
    la_lanczos(n, dmat_matvec, &op, 3, 1e-3, &c, &o2, NULL, 0);
    LA_CHECK(t, memcmp(v1, v2, sizeof v1) == 0 && o1.matvecs == o2.matvecs,
             "same seed, different result");
  }

  LA_TEST(t, "diag/lanczos bad input") {
    int n = 20, i;
    double a[400], q[400], lam[20], v[20];
    la_t_rng r = {4};
    dmat_op op;
    la_eig_out o;
    la_lanczos_config c;
    char small[64];
    for (i = 0; i < n; ++i) lam[i] = 1 + i + 0.1 * la_t_uniform(&r);
    t_from_spectrum(&r, n, lam, a, q);
    memset(&op, 0, sizeof op); op.n = n; op.a = a;
    memset(&o, 0, sizeof o); o.values = v;
    memset(&c, 0, sizeof c);
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 21, 1e-6, NULL, &o, NULL, 0) ==
                    LA_EDIM, "k > n");
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 0, 1e-6, NULL, &o, NULL, 0) ==
                    LA_EDIM, "k = 0");
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 2, 0, NULL, &o, NULL, 0) ==
                    LA_ERANGE, "tol 0");
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 2, -1, NULL, &o, NULL, 0) ==
                    LA_ERANGE, "tol < 0");
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 2, NAN, NULL, &o, NULL, 0) ==
                    LA_ERANGE, "tol nan");
    LA_CHECK(t, la_lanczos(n, NULL, &op, 2, 1e-6, NULL, &o, NULL, 0) ==
                    LA_ENULL, "null f");
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 2, 1e-6, NULL, NULL, NULL, 0) ==
                    LA_ENULL, "null out");
    c.which = 3;
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 2, 1e-6, &c, &o, NULL, 0) ==
                    LA_ERANGE, "which 3");
    c.which = 0;
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 2, 1e-6, NULL, &o, small,
                           sizeof small) == LA_EWORKSPACE, "small workspace");
    op.poison_at = 4;
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 2, 1e-6, NULL, &o, NULL, 0) ==
                    LA_ENONFINITE, "nan product");
    op.poison_at = 0; op.calls = 0; op.fail_at = 2;
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 2, 1e-6, NULL, &o, NULL, 0) ==
                    LA_EIO, "callback status");
    /* a cap of 3 steps cannot resolve 20 close values to 1e-12: the best
       estimates come back with LA_ENOCONVERGE */
    op.fail_at = 0; op.calls = 0; c.max_iter = 3;
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 2, 1e-12, &c, &o, NULL, 0) ==
                    LA_ENOCONVERGE, "cap");
    LA_CHECK(t, o.matvecs == 3 && v[0] > 10 && v[0] <= 20.1 && v[1] < v[0],
             "estimates %g %g after %d", v[0], v[1], o.matvecs);
    LA_CHECK(t, la_lanczos_work_bytes(n, n + 1, NULL) == 0, "size k > n");
  }
}

static void diag_density_tests(la_t *t) {
  LA_TEST(t, "diag/slq density integrates to 1, first moment is the trace") {
    int n = 100, i, p, probes = 40, m = 30, g;
    double lam[100], *a, *q, tr = 0, mean = 0, m2 = 0, se, wsum = 0, integ = 0;
    double nodes[40 * 30], weights[40 * 30], grid[801], dens[801];
    la_t_rng r = {31};
    dmat_op op;
    la_slq_config c;
    a = (double *)malloc(sizeof(double) * n * n);
    q = (double *)malloc(sizeof(double) * n * n);
    for (i = 0; i < n; ++i) { lam[i] = 2 * la_t_uniform(&r) + (i < 10 ? 5 : 0); tr += lam[i]; }
    t_from_spectrum(&r, n, lam, a, q);
    memset(&op, 0, sizeof op); op.n = n; op.a = a;
    memset(&c, 0, sizeof c); c.probes = probes; c.steps = m; c.seed = 3;
    LA_CHECK(t, la_slq(n, dmat_matvec, &op, &c, nodes, weights, NULL, 0) == LA_OK,
             "status");
    LA_CHECK(t, op.calls == probes * m, "%d matvecs", op.calls);
    /* per probe, n * sum(w theta) = z^T A z for its Rademacher z */
    for (p = 0; p < probes; ++p) {
      double s = 0;
      for (i = 0; i < m; ++i) s += weights[p * m + i] * nodes[p * m + i];
      s *= (double)n * probes;
      mean += s; m2 += s * s;
    }
    mean /= probes;
    se = sqrt((m2 / probes - mean * mean) / (probes - 1));
    LA_CHECK(t, fabs(mean - tr) < 4 * se + 1e-9, "trace %g vs %g (se %g)", mean,
             tr, se);
    for (i = 0; i < probes * m; ++i) wsum += weights[i];
    LA_CHECK(t, fabs(wsum - 1) < 1e-10, "weights sum to %.15g", wsum);
    for (g = 0; g <= 800; ++g) grid[g] = -4 + 12.0 * g / 800;
    LA_CHECK(t, la_density_eval(probes * m, nodes, weights, 0.1, 801, grid,
                                dens) == LA_OK, "eval");
    for (g = 0; g < 800; ++g) integ += 0.5 * (dens[g] + dens[g + 1]) * (12.0 / 800);
    LA_CHECK(t, fabs(integ - 1) < 1e-6, "density integrates to %.9g", integ);
    /* second moment: n sum(w theta^2) estimates tr(A^2) = sum lambda^2
       (Gauss quadrature with m nodes is exact to degree 2m - 1) */
    {
      double f2 = 0, e2 = 0, s2 = 0;
      for (i = 0; i < n; ++i) f2 += lam[i] * lam[i];
      for (p = 0; p < probes; ++p) {
        double s = 0;
        for (i = 0; i < m; ++i)
          s += weights[p * m + i] * nodes[p * m + i] * nodes[p * m + i];
        s *= (double)n * probes;
        e2 += s / probes; s2 += s * s / probes;
      }
      se = sqrt((s2 - e2 * e2) / (probes - 1));
      LA_CHECK(t, fabs(e2 - f2) < 4 * se, "tr(A^2) %g vs %g (se %g)", e2, f2, se);
    }
    /* one node: the Gaussian itself */
    {
      double one = 1, zero = 0, at[2] = {0, 2}, out[2];
      la_density_eval(1, &zero, &one, 2.0, 2, at, out);
      LA_CHECK(t, fabs(out[0] - 1 / (2 * sqrt(2 * 3.14159265358979324))) < 1e-15 &&
                      fabs(out[1] - exp(-0.5) / (2 * sqrt(2 * 3.14159265358979324))) < 1e-15,
               "gaussian %g %g", out[0], out[1]);
    }
    LA_CHECK(t, la_density_eval(1, nodes, weights, 0, 1, grid, dens) == LA_ERANGE,
             "sigma 0");
    LA_CHECK(t, la_density_eval(0, nodes, weights, 1, 1, grid, dens) == LA_EDIM,
             "count 0");
    LA_CHECK(t, la_density_eval(1, NULL, weights, 1, 1, grid, dens) == LA_ENULL,
             "null");
    LA_CHECK(t, la_slq(n, NULL, &op, &c, nodes, weights, NULL, 0) == LA_ENULL,
             "null f");
    LA_CHECK(t, la_slq(0, dmat_matvec, &op, &c, nodes, weights, NULL, 0) ==
                    LA_EDIM, "n 0");
    c.probes = -1;
    LA_CHECK(t, la_slq(n, dmat_matvec, &op, &c, nodes, weights, NULL, 0) ==
                    LA_ERANGE, "probes < 0");
    c.probes = 1; op.poison_at = op.calls + 2;
    LA_CHECK(t, la_slq(n, dmat_matvec, &op, &c, nodes, weights, NULL, 0) ==
                    LA_ENONFINITE, "nan");
    free(a); free(q);
  }

  LA_TEST(t, "diag/slq on a small matrix finds its eigenvalues") {
    /* with steps = n every probe's quadrature is exact: its nodes with
       weight are eigenvalues, and the median follows */
    double lam[7] = {-3, -1, 0.5, 2, 2, 4, 9}, a[49], q[49];
    double nodes[4 * 7], weights[4 * 7], med = 0, rc = 0;
    la_t_rng r = {41};
    dmat_op op;
    la_slq_config c;
    int i, j, bad = 0;
    t_from_spectrum(&r, 7, lam, a, q);
    memset(&op, 0, sizeof op); op.n = 7; op.a = a;
    memset(&c, 0, sizeof c); c.probes = 4;
    LA_CHECK(t, la_slq(7, dmat_matvec, &op, &c, nodes, weights, NULL, 0) == LA_OK,
             "status");
    for (i = 0; i < 28; ++i) {
      double best = 1e9;
      if (weights[i] < 1e-6) continue;
      for (j = 0; j < 7; ++j) best = fmin(best, fabs(nodes[i] - lam[j]));
      bad += best > 1e3 * t_eps * 9;
    }
    LA_CHECK(t, bad == 0, "%d nodes are not eigenvalues", bad);
    LA_CHECK(t, la_weighted_median(7, lam, NULL, &med, NULL, 0) == LA_OK &&
                    med == 2, "median %g", med);
    LA_CHECK(t, la_rcond_spectrum(7, lam, NULL, &rc, NULL, 0) == LA_OK &&
                    fabs(rc - 4.5) < 1e-15, "rcond %g", rc);
  }

  LA_TEST(t, "diag/hutchinson and hutch++ within their standard errors") {
    int n = 80, i, rep, out4 = 0;
    double lam[80], *a, *q, tr = 0, est, se;
    la_t_rng r = {51};
    dmat_op op;
    la_trace_config c;
    a = (double *)malloc(sizeof(double) * n * n);
    q = (double *)malloc(sizeof(double) * n * n);
    for (i = 0; i < n; ++i) { lam[i] = la_t_uniform(&r) + (i < 3 ? 20 : 0); tr += lam[i]; }
    t_from_spectrum(&r, n, lam, a, q);
    memset(&op, 0, sizeof op); op.n = n; op.a = a;
    memset(&c, 0, sizeof c);
    /* 20 independent estimates: at 4 sigma, not one should miss */
    for (rep = 0; rep < 20; ++rep) {
      c.seed = (uint64_t)rep; c.matvecs = 60; c.method = LA_TRACE_HUTCHINSON;
      op.calls = 0;
      LA_CHECK(t, la_trace(n, dmat_matvec, &op, &c, &est, &se, NULL, 0) == LA_OK,
               "status");
      LA_CHECK(t, op.calls == 60, "%d matvecs", op.calls);
      out4 += fabs(est - tr) > 4 * se;
      c.method = LA_TRACE_HUTCHPP;
      op.calls = 0;
      LA_CHECK(t, la_trace(n, dmat_matvec, &op, &c, &est, &se, NULL, 0) == LA_OK,
               "status++");
      LA_CHECK(t, op.calls <= 60, "%d matvecs", op.calls);
      out4 += fabs(est - tr) > 4 * se + 1e3 * t_eps * fabs(tr);
    }
    LA_CHECK(t, out4 == 0, "%d of 40 estimates beyond 4 sigma", out4);
    /* rank 3 fits in the sketch: Hutch++ is then exact to rounding */
    for (i = 0; i < n; ++i) lam[i] = i < 3 ? 1 + i : 0;
    t_from_spectrum(&r, n, lam, a, q);
    c.method = LA_TRACE_HUTCHPP; c.matvecs = 30;
    LA_CHECK(t, la_trace(n, dmat_matvec, &op, &c, &est, &se, NULL, 0) == LA_OK,
             "status");
    LA_CHECK(t, fabs(est - 6) < 1e3 * t_eps, "rank 3: %.12g", est);
    c.matvecs = 1; c.method = 0;
    LA_CHECK(t, la_trace(n, dmat_matvec, &op, &c, &est, &se, NULL, 0) ==
                    LA_ERANGE, "one probe");
    c.matvecs = 10; c.method = 7;
    LA_CHECK(t, la_trace(n, dmat_matvec, &op, &c, &est, &se, NULL, 0) ==
                    LA_ERANGE, "method");
    c.method = 0;
    LA_CHECK(t, la_trace(n, dmat_matvec, &op, &c, NULL, &se, NULL, 0) ==
                    LA_ENULL, "null");
    LA_CHECK(t, la_trace(-1, dmat_matvec, &op, &c, &est, &se, NULL, 0) ==
                    LA_EDIM, "n");
    op.poison_at = op.calls + 1;
    LA_CHECK(t, la_trace(n, dmat_matvec, &op, &c, &est, &se, NULL, 0) ==
                    LA_ENONFINITE, "nan");
    free(a); free(q);
  }
}

/* Pairs on a line s = 2 + 3 g, and the brute-force envelope over every
   line through two pairs (or one pair and the axes). */
static double t_env_brute(int n, const double *g, const double *s,
                          double *l0, double *l1) {
  double best = 1e300, gbar = 0;
  int i, j, c;
  for (i = 0; i < n; ++i) gbar += g[i] / n;
  for (i = 0; i < n; ++i)
    for (j = -2; j < n; ++j) {
      double a1, a0, h;
      if (j == -2) { a1 = 0; a0 = s[i]; }
      else if (j == -1) { if (g[i] <= 0) continue; a1 = s[i] / g[i]; a0 = 0; }
      else { if (g[j] == g[i]) continue; a1 = (s[j] - s[i]) / (g[j] - g[i]); a0 = s[i] - a1 * g[i]; }
      if (a1 < 0 || a0 < 0) continue;
      for (c = 0; c < n; ++c)
        if (a0 + a1 * g[c] < s[c] - 1e-12) break;
      if (c < n) continue;
      h = a0 + a1 * gbar;
      if (h < best) { best = h; *l0 = a0; *l1 = a1; }
    }
  return best;
}

static void diag_stats_tests(la_t *t) {
  LA_TEST(t, "diag/robust condition numbers") {
    double d[5] = {1, -2, 3, 4, -100}, r = 0, v[6] = {-1, 2, 3, 5, 10, 4};
    double w2[3] = {1, 1, 2}, v2[3] = {1, 2, 5};
    LA_CHECK(t, la_rcond_diag(5, d, LA_MEDIAN_MID, &r, NULL, 0) == LA_OK && fabs(r - 100.0 / 3) < 1e-13,
             "diag %g", r);
    /* an even count: torch.median's lower middle value, or the midpoint */
    {
      double e6[6] = {4, -20, 1, 3, 2, 10};
      LA_CHECK(t, la_rcond_diag(6, e6, LA_MEDIAN_LOWER, &r, NULL, 0) == LA_OK &&
                      fabs(r - 20.0 / 3) < 1e-13, "lower median %g", r);
      LA_CHECK(t, la_rcond_diag(6, e6, LA_MEDIAN_MID, &r, NULL, 0) == LA_OK &&
                      fabs(r - 20.0 / 3.5) < 1e-13, "midpoint %g", r);
      LA_CHECK(t, la_rcond_diag(6, e6, 2, &r, NULL, 0) == LA_ERANGE, "unknown median");
      LA_CHECK(t, la_rcond_diag(6, e6, -1, &r, NULL, 0) == LA_ERANGE, "unknown median");
    }
    /* median of an even count: the midpoint of 3 and 4 */
    LA_CHECK(t, la_rcond_spectrum(6, v, NULL, &r, NULL, 0) == LA_OK &&
                    fabs(r - 10 / 3.5) < 1e-13, "spectrum %g", r);
    /* weights 1,1,2 over 1,2,5: half the weight is reached exactly at 2 */
    LA_CHECK(t, la_rcond_spectrum(3, v2, w2, &r, NULL, 0) == LA_OK &&
                    fabs(r - 5 / 3.5) < 1e-13, "weighted %g", r);
    d[1] = d[2] = d[3] = 0;
    LA_CHECK(t, la_rcond_diag(5, d, LA_MEDIAN_MID, &r, NULL, 0) == LA_ERANGE, "median 0");
    d[0] = NAN;
    LA_CHECK(t, la_rcond_diag(5, d, LA_MEDIAN_MID, &r, NULL, 0) == LA_ENONFINITE, "nan");
    LA_CHECK(t, la_rcond_diag(0, d, LA_MEDIAN_MID, &r, NULL, 0) == LA_EDIM, "n 0");
    LA_CHECK(t, la_rcond_diag(5, NULL, LA_MEDIAN_MID, &r, NULL, 0) == LA_ENULL, "null");
    LA_CHECK(t, la_rcond_spectrum(3, v2, NULL, NULL, NULL, 0) == LA_ENULL, "null");
    v[0] = v[1] = v[2] = v[3] = 0;
    LA_CHECK(t, la_rcond_spectrum(6, v, NULL, &r, NULL, 0) == LA_ERANGE, "median 0");
    w2[0] = -1;
    LA_CHECK(t, la_weighted_median(3, v2, w2, &r, NULL, 0) == LA_ERANGE,
             "negative weight");
    w2[0] = w2[1] = w2[2] = 0;
    LA_CHECK(t, la_weighted_median(3, v2, w2, &r, NULL, 0) == LA_ERANGE,
             "no weight");
    LA_CHECK(t, la_weighted_median(3, v2, NULL, &r, v, 8) == LA_EWORKSPACE,
             "small workspace");
  }

  LA_TEST(t, "diag/generalized smoothness fits") {
    double g[40], s[40], b0 = 0, b1 = 0, bb;
    la_lsmooth_fit f;
    la_t_rng r = {61};
    int i, above = 0;
    for (i = 0; i < 40; ++i) { g[i] = 0.1 + i * 0.05; s[i] = 2 + 3 * g[i]; }
    LA_CHECK(t, la_lsmooth(40, g, s, &f, NULL, 0) == LA_OK, "status");
    LA_CHECK(t, fabs(f.l0_ls - 2) < 1e-12 && fabs(f.l1_ls - 3) < 1e-12,
             "ls %g %g", f.l0_ls, f.l1_ls);
    LA_CHECK(t, fabs(f.l0_env - 2) < 1e-12 && fabs(f.l1_env - 3) < 1e-12,
             "env %g %g", f.l0_env, f.l1_env);
    LA_CHECK(t, f.used == 40 && f.corr_log > 0.95 && f.corr_log < 1, "corr %g",
             f.corr_log);
    /* power law s = g^2: perfectly correlated on log scales */
    for (i = 0; i < 40; ++i) s[i] = g[i] * g[i];
    la_lsmooth(40, g, s, &f, NULL, 0);
    LA_CHECK(t, fabs(f.corr_log - 1) < 1e-12, "corr %g", f.corr_log);
    /* scattered pairs: the envelope is above all and as low as the best
       line through two of them */
    for (i = 0; i < 40; ++i) {
      g[i] = 1 + la_t_uniform(&r);
      s[i] = 1 + g[i] + 0.5 * la_t_uniform(&r);
    }
    s[7] = -1; /* negative curvature is kept in the fits, not in the logs */
    LA_CHECK(t, la_lsmooth(40, g, s, &f, NULL, 0) == LA_OK, "status");
    for (i = 0; i < 40; ++i) above += f.l0_env + f.l1_env * g[i] >= s[i] - 1e-12;
    bb = t_env_brute(40, g, s, &b0, &b1);
    LA_CHECK(t, above == 40, "%d of 40 under the envelope", above);
    LA_CHECK(t, fabs(f.l0_env - b0) < 1e-9 && fabs(f.l1_env - b1) < 1e-9,
             "envelope %g %g, brute force %g %g (height %g)", f.l0_env,
             f.l1_env, b0, b1, bb);
    LA_CHECK(t, f.used == 39, "%d used", f.used);
    g[0] = NAN;
    LA_CHECK(t, la_lsmooth(40, g, s, &f, NULL, 0) == LA_ENONFINITE, "nan");
    LA_CHECK(t, la_lsmooth(1, g, s, &f, NULL, 0) == LA_EDIM, "count 1");
    LA_CHECK(t, la_lsmooth(40, g, NULL, &f, NULL, 0) == LA_ENULL, "null");
  }

  LA_TEST(t, "diag/normal quantiles") {
    double x;
    LA_CHECK(t, la_normal_quantile(0.975, &x) == LA_OK &&
                    fabs(x - 1.959963984540054) < 1e-12, "0.975: %.15g", x);
    LA_CHECK(t, la_normal_quantile(0.5, &x) == LA_OK && fabs(x) < 1e-15, "%g", x);
    LA_CHECK(t, la_normal_quantile(1e-10, &x) == LA_OK &&
                    fabs(0.5 * erfc(-x / sqrt(2.0)) - 1e-10) < 1e-20, "tail %g", x);
    LA_CHECK(t, la_normal_quantile(0.15865525393145707, &x) == LA_OK &&
                    fabs(x + 1) < 1e-12, "-1 sigma: %.15g", x);
    LA_CHECK(t, la_normal_quantile(0, &x) == LA_ERANGE, "p 0");
    LA_CHECK(t, la_normal_quantile(1, &x) == LA_ERANGE, "p 1");
    LA_CHECK(t, la_normal_quantile(NAN, &x) == LA_ERANGE, "p nan");
    LA_CHECK(t, la_normal_quantile(0.3, NULL) == LA_ENULL, "null");
  }

  LA_TEST(t, "diag/hill recovers the index of Pareto samples") {
    static const double alphas[3] = {0.8, 1.5, 3.0};
    int n = 20000, k = 2000, i, c;
    double *x = (double *)malloc(sizeof(double) * n), al;
    la_t_rng r = {71};
    for (c = 0; c < 3; ++c) {
      for (i = 0; i < n; ++i)
        x[i] = 2.0 * pow(0.5 * (1 - la_t_uniform(&r)), -1.0 / alphas[c]);
      LA_CHECK(t, la_hill(n, x, k, &al, NULL, 0) == LA_OK, "status");
      /* its standard error is alpha / sqrt(k) */
      LA_CHECK(t, fabs(al - alphas[c]) < 4 * alphas[c] / sqrt((double)k),
               "alpha %g: estimated %g", alphas[c], al);
    }
    LA_CHECK(t, la_hill(n, x, 0, &al, NULL, 0) == LA_ERANGE, "k 0");
    LA_CHECK(t, la_hill(n, x, n, &al, NULL, 0) == LA_ERANGE, "k n");
    LA_CHECK(t, la_hill(1, x, 1, &al, NULL, 0) == LA_EDIM, "count 1");
    LA_CHECK(t, la_hill(n, NULL, 1, &al, NULL, 0) == LA_ENULL, "null");
    x[5] = INFINITY;
    LA_CHECK(t, la_hill(n, x, 10, &al, NULL, 0) == LA_ENONFINITE, "inf");
    for (i = 0; i < n; ++i) x[i] = -1;
    LA_CHECK(t, la_hill(n, x, 10, &al, NULL, 0) == LA_ERANGE, "negative");
    free(x);
  }

  LA_TEST(t, "diag/noise summary against naive loops") {
    int n = 50000, i, bins = 50;
    double *x = (double *)malloc(sizeof(double) * n);
    double *srt = (double *)malloc(sizeof(double) * n);
    double *gq = (double *)malloc(sizeof(double) * n);
    double hist[50], edges[51], m = 0, v = 0, integ = 0, gm = 0;
    la_noise_config c;
    la_noise_stats st;
    la_t_rng r = {81};
    for (i = 0; i < n; ++i) { x[i] = 3 + la_t_uniform(&r); m += x[i]; }
    m /= n;
    for (i = 0; i < n; ++i) v += (x[i] - m) * (x[i] - m);
    v /= n - 1;
    memset(&c, 0, sizeof c); c.bins = bins;
    LA_CHECK(t, la_noise_summary(n, x, &c, &st, hist, edges, srt, gq, NULL, 0) ==
                    LA_OK, "status");
    LA_CHECK(t, fabs(st.mean - m) < 1e-12 && fabs(st.var - v) < 1e-12,
             "mean %g var %g", st.mean, st.var);
    /* uniform: kurtosis 9/5, from n samples within a few of its
       standard errors (about sqrt(0.34/n)... generously 0.05) */
    LA_CHECK(t, fabs(st.kurtosis - 1.8) < 0.05, "kurtosis %g", st.kurtosis);
    for (i = 0; i < bins; ++i) integ += hist[i] * (edges[i + 1] - edges[i]);
    LA_CHECK(t, fabs(integ - 1) < 1e-12, "histogram integrates to %g", integ);
    LA_CHECK(t, edges[0] == st.min && fabs(edges[bins] - st.max) < 1e-12,
             "edges");
    LA_CHECK(t, fabs(hist[bins / 2] - 0.5) < 0.1, "density %g", hist[bins / 2]);
    for (i = 1; i < n; ++i) LA_CHECK(t, srt[i - 1] <= srt[i], "unsorted");
    for (i = 0; i < n; ++i) gm += gq[i] / n;
    LA_CHECK(t, fabs(gm - st.mean) < 1e-9, "gauss quantiles' mean %g", gm);
    LA_CHECK(t, fabs(gq[n / 2] - st.mean) < 1e-3 && gq[0] < gq[n - 1],
             "gauss median %g", gq[n / 2]);
    LA_CHECK(t, la_noise_summary(1, x, &c, &st, NULL, NULL, NULL, NULL, NULL, 0) ==
                    LA_EDIM, "count 1");
    LA_CHECK(t, la_noise_summary(n, NULL, &c, &st, NULL, NULL, NULL, NULL, NULL,
                                 0) == LA_ENULL, "null");
    c.bins = -2;
    LA_CHECK(t, la_noise_summary(n, x, &c, &st, NULL, NULL, NULL, NULL, NULL, 0) ==
                    LA_ERANGE, "bins");
    c.bins = 0; x[3] = NAN;
    LA_CHECK(t, la_noise_summary(n, x, &c, &st, NULL, NULL, NULL, NULL, NULL, 0) ==
                    LA_ENONFINITE, "nan");
    free(x); free(srt); free(gq);
  }
}


static void diag_workspace_tests(la_t *t) {
  LA_TEST(t, "diag/caller-owned workspaces, unaligned, and size queries") {
    int n = 30, i;
    double lam[30], a[900], q[900], v1[4], v2[4], nodes[5 * 30], wts[5 * 30];
    double tr1, tr2, se;
    la_t_rng r = {91};
    dmat_op op;
    la_eig_out o;
    la_slq_config sc;
    la_trace_config tc;
    size_t need;
    unsigned char *buf;
    for (i = 0; i < n; ++i) lam[i] = la_t_uniform(&r) * (1 + i);
    t_from_spectrum(&r, n, lam, a, q);
    memset(&op, 0, sizeof op); op.n = n; op.a = a;
    memset(&o, 0, sizeof o); o.values = v1;
    la_lanczos(n, dmat_matvec, &op, 4, 1e-6, NULL, &o, NULL, 0);
    /* the size covers any alignment of the block */
    need = la_lanczos_work_bytes(n, 4, NULL);
    buf = (unsigned char *)malloc(need + 1);
    o.values = v2;
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 4, 1e-6, NULL, &o, buf + 1,
                           need) == LA_OK, "unaligned block");
    LA_CHECK(t, memcmp(v1, v2, sizeof v1) == 0, "result depends on the block");
    LA_CHECK(t, la_lanczos(n, dmat_matvec, &op, 4, 1e-6, NULL, &o, buf + 1,
                           need - 64) == LA_EWORKSPACE, "short block");
    free(buf);
    memset(&sc, 0, sizeof sc); sc.probes = 5;
    need = la_slq_work_bytes(n, &sc);
    buf = (unsigned char *)malloc(need + 3);
    LA_CHECK(t, la_slq(n, dmat_matvec, &op, &sc, nodes, wts, buf + 3, need) ==
                    LA_OK, "slq, unaligned");
    free(buf);
    memset(&tc, 0, sizeof tc); tc.method = LA_TRACE_HUTCHPP; tc.seed = 4;
    need = la_trace_work_bytes(n, &tc);
    buf = (unsigned char *)malloc(need + 5);
    la_trace(n, dmat_matvec, &op, &tc, &tr1, &se, NULL, 0);
    LA_CHECK(t, la_trace(n, dmat_matvec, &op, &tc, &tr2, &se, buf + 5, need) ==
                    LA_OK && tr1 == tr2, "trace, unaligned: %g vs %g", tr1, tr2);
    free(buf);
    LA_CHECK(t, la_lanczos_work_bytes(0, 1, NULL) == 0, "lanczos n 0");
    LA_CHECK(t, la_slq_work_bytes(-3, NULL) == 0, "slq n < 0");
    tc.matvecs = -1;
    LA_CHECK(t, la_trace_work_bytes(n, &tc) == 0, "trace budget < 0");
    LA_CHECK(t, la_dense_from_matvec_work_bytes(0) == 0, "dense n 0");
  }

  /* The medians' blocks are counted in doubles but may start at any byte:
     every offset 0..7 of a block of exactly the promised size gives the
     allocating call's bits (UBSan's alignment check watches the stores). */
  LA_TEST(t, "diag/harden4_17: the medians, Hill, noise and lsmooth, any byte offset") {
    enum { N = 13 };
    double dg[N], vals[N], wts[N], r0, rl0, m0, mu0, r, m;
    unsigned char *buf = (unsigned char *)malloc(sizeof(double) * 3 * N + 8);
    la_t_rng rr = {171};
    int i, off;
    for (i = 0; i < N; ++i) {
      dg[i] = (la_t_uniform(&rr) - 0.3) * (1 + i);
      vals[i] = la_t_uniform(&rr) * 10;
      wts[i] = fabs(la_t_uniform(&rr)) + 0.1;
    }
    LA_CHECK(t, buf != NULL, "malloc");
    LA_CHECK(t, la_rcond_diag(N, dg, LA_MEDIAN_MID, &r0, NULL, 0) == LA_OK &&
                    la_rcond_diag(N, dg, LA_MEDIAN_LOWER, &rl0, NULL, 0) == LA_OK &&
                    la_weighted_median(N, vals, wts, &m0, NULL, 0) == LA_OK &&
                    la_weighted_median(N, vals, NULL, &mu0, NULL, 0) == LA_OK,
             "allocating calls");
    /* the lower median of |dg| (the 7th smallest of 13) and the weighted
       median (where the running weight first passes half), by insertion
       sorts here */
    {
      double a[N], v[N], w[N], mx = 0, tot = 0, run = 0;
      int j;
      for (i = 0; i < N; ++i) {
        a[i] = fabs(dg[i]);
        v[i] = vals[i];
        w[i] = wts[i];
        if (a[i] > mx) mx = a[i];
        tot += w[i];
      }
      for (i = 1; i < N; ++i) {
        double x = a[i], vi = v[i], wi = w[i];
        for (j = i; j > 0 && a[j - 1] > x; --j) a[j] = a[j - 1];
        a[j] = x;
        for (j = i; j > 0 && v[j - 1] > vi; --j) { v[j] = v[j - 1]; w[j] = w[j - 1]; }
        v[j] = vi;
        w[j] = wi;
      }
      LA_CHECK(t, rl0 == mx / a[(N - 1) / 2], "lower median %.17g", rl0);
      LA_CHECK(t, r0 == mx / a[(N - 1) / 2], "mid median of an odd count %.17g", r0);
      for (i = 0; i < N && run + w[i] < 0.5 * tot; ++i) run += w[i];
      LA_CHECK(t, i < N && m0 == v[i], "weighted median %.17g vs %.17g", m0, v[i]);
      LA_CHECK(t, mu0 == v[(N - 1) / 2], "median %.17g", mu0);
    }
    for (off = 0; buf && off < 8; ++off) {
      LA_CHECK(t, la_rcond_diag(N, dg, LA_MEDIAN_MID, &r, buf + off,
                                sizeof(double) * 3 * N) == LA_OK && r == r0,
               "rcond_diag mid at offset %d: %.17g vs %.17g", off, r, r0);
      LA_CHECK(t, la_rcond_diag(N, dg, LA_MEDIAN_LOWER, &r, buf + off,
                                sizeof(double) * 3 * N) == LA_OK && r == rl0,
               "rcond_diag lower at offset %d: %.17g vs %.17g", off, r, rl0);
      LA_CHECK(t, la_weighted_median(N, vals, wts, &m, buf + off,
                                     sizeof(double) * 2 * N) == LA_OK && m == m0,
               "weighted median at offset %d: %.17g vs %.17g", off, m, m0);
      LA_CHECK(t, la_weighted_median(N, vals, NULL, &m, buf + off,
                                     sizeof(double) * 2 * N) == LA_OK && m == mu0,
               "median at offset %d: %.17g vs %.17g", off, m, mu0);
      LA_CHECK(t, la_weighted_median(N, vals, wts, &m, buf + off,
                                     sizeof(double) * 2 * N - 1) == LA_EWORKSPACE,
               "short block at offset %d", off);
    }
    /* Hill's index, the noise summary and both smoothness fits, whose
       blocks are counted in doubles too */
    {
      double a0, a, pos[N];
      la_noise_stats s0, s1;
      la_lsmooth_fit f0, f1;
      for (i = 0; i < N; ++i) pos[i] = 1 + fabs(dg[i]);
      LA_CHECK(t, la_hill(N, pos, 4, &a0, NULL, 0) == LA_OK &&
                      la_noise_summary(N, pos, NULL, &s0, NULL, NULL, NULL, NULL,
                                       NULL, 0) == LA_OK &&
                      la_lsmooth(N, pos, vals, &f0, NULL, 0) == LA_OK,
               "allocating calls");
      for (off = 0; buf && off < 8; ++off) {
        LA_CHECK(t, la_hill(N, pos, 4, &a, buf + off, sizeof(double) * N) == LA_OK &&
                        a == a0, "hill at offset %d: %.17g vs %.17g", off, a, a0);
        LA_CHECK(t, la_noise_summary(N, pos, NULL, &s1, NULL, NULL, NULL, NULL,
                                     buf + off, sizeof(double) * N) == LA_OK &&
                        memcmp(&s0, &s1, sizeof s0) == 0,
                 "noise summary at offset %d", off);
        LA_CHECK(t, la_lsmooth(N, pos, vals, &f1, buf + off, sizeof(double) * 2 * N) ==
                            LA_OK && f1.l0_ls == f0.l0_ls && f1.l1_ls == f0.l1_ls &&
                        f1.l0_env == f0.l0_env && f1.l1_env == f0.l1_env &&
                        f1.corr_log == f0.corr_log && f1.used == f0.used,
                 "lsmooth at offset %d", off);
      }
    }
    free(buf);
  }
}

/* ------------------------------------------------------ model tests */

/* Prompts from the test generator, not the library's: y = w . x with
   the query's label left out of Z0 and given as the target. */
static void t_fill_batch(la_t_rng *r, la_batch *b) {
  int d = b->d, n = b->n, c = b->count, p, i, j;
  size_t zs = (size_t)(d + 1) * (n + 1);
  la_real *z = (la_real *)malloc(sizeof(la_real) * zs * c);
  la_real *y = (la_real *)malloc(sizeof(la_real) * c);
  for (p = 0; p < c; ++p) {
    double w[LA_MAX_D];
    la_real *zp = z + zs * p;
    for (i = 0; i < d; ++i) w[i] = la_t_uniform(r);
    for (j = 0; j <= n; ++j) {
      double lab = 0;
      for (i = 0; i < d; ++i) {
        double x = 1.7 * la_t_uniform(r);
        zp[i * (n + 1) + j] = (la_real)x;
        lab += w[i] * x;
      }
      zp[d * (n + 1) + j] = (la_real)(j < n ? lab : 0);
      if (j == n) y[p] = (la_real)lab;
    }
  }
  la_pack(c, d + 1, n + 1, z, b->z);
  la_pack(c, 1, 1, y, b->y);
  free(z); free(y);
}

typedef struct {
  la_model m;
  la_batch b;
  la_real *theta;
} t_model;

static int t_model_make(t_model *tm, int param, int layers, int d, int n,
                        int count, double init_std, unsigned seed) {
  la_model_config c;
  la_rng rng;
  la_t_rng r;
  int st;
  memset(&c, 0, sizeof c);
  c.d = d; c.n = n; c.layers = layers; c.param = param; c.init_std = init_std;
  st = la_model_init(&tm->m, &c);
  if (st) return st;
  tm->theta = (la_real *)malloc(sizeof(la_real) * tm->m.nparams);
  la_rng_seed(&rng, seed, 1);
  st = la_model_init_params(&tm->m, &rng, tm->theta);
  if (st) return st;
  st = la_batch_create(&tm->b, d, n, count);
  if (st) return st;
  r.s = seed;
  t_fill_batch(&r, &tm->b);
  return LA_OK;
}
static void t_model_free(t_model *tm) {
  free(tm->theta);
  la_batch_destroy(&tm->b);
}

static double t_maxabs(int n, const double *x) {
  double m = 0;
  int i;
  for (i = 0; i < n; ++i) m = fmax(m, fabs(x[i]));
  return m;
}

/* ------------------------------------------- hard spectra for sym_eig */

static int t_cmp_asc2(const void *a, const void *b) { /* (value, tol) pairs */
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* 2^-e for the exponent e of the largest |a_ij|: multiplying by it is exact
   and brings the matrix's largest entry into [0.5, 1). */
static double t_pow2_down(size_t n, const double *a) {
  double mx = t_maxabs((int)n, a);
  int ex;
  if (mx == 0) return 1;
  frexp(mx, &ex);
  return ldexp(1.0, -ex);
}

/* la_sym_eig on a (n x n, not modified) whose eigenvalues are lam[i] to
   within tol[i]: the values, the residuals ||A v - w v|| and orthonormality
   of the vectors (within c n eps ||A||, computed on A scaled by a power of
   two so that entries near the largest double do not overflow), and the
   extreme values against la_lanczos on the same operator (in a float build
   the operator is A times that power of two, which float can hold). */
static void t_hard_spectrum(la_t *t, const char *what, int n, const double *a,
                            const double *lam, const double *tol) {
  double *a1 = (double *)malloc(sizeof(double) * n * n);
  double *w = (double *)malloc(sizeof(double) * n);
  double *v = (double *)malloc(sizeof(double) * n * n);
  double *pairs = (double *)malloc(sizeof(double) * 2 * n);
  double s = t_pow2_down((size_t)n * n, a), anorm = 0, worst = 0;
  double res = 0, orth = 0, eps = 2.220446049250313e-16;
  int i, j, k, st, bad = 0;
  memcpy(a1, a, sizeof(double) * n * n);
  st = la_sym_eig(n, a1, w, v, NULL, 0);
  LA_CHECK(t, st == LA_OK, "%s: status %s", what, la_status_str(st));
  if (st) { free(a1); free(w); free(v); free(pairs); return; }
  for (i = 0; i < n; ++i) {
    pairs[2 * i] = lam[i];
    pairs[2 * i + 1] = tol[i];
    anorm = fmax(anorm, fabs(lam[i]) * s);
  }
  qsort(pairs, n, 2 * sizeof(double), t_cmp_asc2);
  for (i = 0; i < n; ++i) {
    double e = fabs(w[i] - pairs[2 * i]);
    if (!(e <= pairs[2 * i + 1])) ++bad;
    if (pairs[2 * i + 1] > 0) worst = fmax(worst, e / pairs[2 * i + 1]);
  }
  LA_CHECK(t, bad == 0, "%s: %d eigenvalues off (worst %.3g of its tolerance)",
           what, bad, worst);
  for (i = 0; i < n; ++i) {
    double r2 = 0;
    for (j = 0; j < n; ++j) {
      double rv = 0, dot = 0;
      for (k = 0; k < n; ++k) rv += a[(size_t)j * n + k] * s * v[(size_t)i * n + k];
      rv -= w[i] * s * v[(size_t)i * n + j];
      r2 += rv * rv;
      for (k = 0; k < n; ++k) dot += v[(size_t)i * n + k] * v[(size_t)j * n + k];
      orth = fmax(orth, fabs(dot - (i == j)));
    }
    res = fmax(res, sqrt(r2));
  }
  LA_CHECK(t, res <= 8 * n * eps * anorm, "%s: residual %g of ||A|| %g", what,
           res, anorm);
  LA_CHECK(t, orth <= 8 * n * eps, "%s: orthogonality %g", what, orth);
  { /* Lanczos's extreme values on the operator */
    double f = sizeof(la_real) == 4 ? s : 1, tolz = sizeof(la_real) == 4 ? 1e-5 : 1e-10;
    double *af = (double *)malloc(sizeof(double) * n * n), vals[1];
    dmat_op op;
    la_lanczos_config c;
    la_eig_out out;
    for (i = 0; i < n * n; ++i) af[i] = a[i] * f;
    for (k = 0; k < 2; ++k) {
      double want = (k ? w[0] : w[n - 1]) * f;
      memset(&op, 0, sizeof op); op.n = n; op.a = af;
      memset(&c, 0, sizeof c); c.which = k ? LA_EIG_SMALLEST : LA_EIG_LARGEST;
      c.seed = 5;
      memset(&out, 0, sizeof out); out.values = vals;
      st = la_lanczos(n, dmat_matvec, &op, 1, tolz, &c, &out, NULL, 0);
      LA_CHECK(t, st == LA_OK, "%s: lanczos %d: %s", what, k, la_status_str(st));
      /* the operator's rounding in la_real (its products and the
         conversion of its entries) on top of the tolerance */
      LA_CHECK(t, fabs(vals[0] - want) <= (tolz + 100 * t_eps) * anorm / s * f,
               "%s: lanczos %s %.17g, sym_eig %.17g", what,
               k ? "smallest" : "largest", vals[0], want);
    }
    free(af);
  }
  free(a1); free(w); free(v); free(pairs);
}

/* A (n x n) = the m x m matrix Q^T diag(lam) Q placed on the rows and
   columns idx[0..m-1]; every other row and column exactly zero. */
static void t_embed(la_t_rng *r, int n, int m, const int *idx,
                    const double *lam, double *a) {
  double *b = (double *)malloc(sizeof(double) * m * m);
  double *q = (double *)malloc(sizeof(double) * m * m);
  int i, j;
  t_from_spectrum(r, m, lam, b, q);
  for (i = 0; i < n * n; ++i) a[i] = 0;
  for (i = 0; i < m; ++i)
    for (j = 0; j < m; ++j) a[(size_t)idx[i] * n + idx[j]] = b[i * m + j];
  free(b); free(q);
}

static void diag_hard_spectra_tests(la_t *t) {
  const double eps = 2.220446049250313e-16;

  LA_TEST(t, "diag/sym_eig zero rows and columns embedded") {
    /* 50 zero rows at random places around a dense 150 x 150 block of which
       a third of the eigenvalues are zero: the shape of a Hessian with dead
       units, whose tridiagonal form ends in a block at rounding level that
       a deflation test relative to neighbouring diagonals never splits */
    enum { N = 200, M = 150 };
    static double a[N * N];
    double lam[N], tol[N], sub[M];
    int idx[N], i, j, k, c;
    for (c = 0; c < (t->light ? 1 : 3); ++c) { /* light: one draw */
      la_t_rng r = {501u + (unsigned)c};
      for (i = 0; i < M; ++i) sub[i] = i % 3 ? 5 * la_t_uniform(&r) : 0;
      for (i = 0; i < N; ++i) idx[i] = i;
      for (i = N - 1; i > 0; --i) { /* shuffled: idx[0..M) are kept */
        j = (int)((la_t_uniform(&r) + 1) / 2 * (i + 1));
        if (j > i) j = i;
        k = idx[i]; idx[i] = idx[j]; idx[j] = k;
      }
      t_embed(&r, N, M, idx, sub, a);
      for (i = 0; i < N; ++i) {
        lam[i] = i < M ? sub[i] : 0;
        tol[i] = 8 * N * eps * 5;
      }
      t_hard_spectrum(t, "zero rows", N, a, lam, tol);
    }
  }

  LA_TEST(t, "diag/sym_eig exactly repeated eigenvalues, zero among them") {
    enum { N = 64 };
    double a[N * N], q[N * N], lam[N], tol[N];
    static const double vals[4] = {3, -2, 0, 1e-9};
    int i;
    la_t_rng r = {502};
    for (i = 0; i < N; ++i) {
      lam[i] = vals[i % 4];
      tol[i] = 8 * N * eps * 3;
    }
    t_from_spectrum(&r, N, lam, a, q);
    t_hard_spectrum(t, "repeated", N, a, lam, tol);
  }

  LA_TEST(t, "diag/sym_eig block diagonal, each block to its own scale") {
    /* blocks 1, 2, 7, 12, 18 and 20 wide at scales 1 .. 1e-150, one of
       them zero: each block's eigenvalues to rounding of that block */
    enum { N = 60 };
    static const int size[6] = {1, 2, 7, 12, 18, 20};
    static const double scale[6] = {1, 1e-3, 1e3, 0, 1e-150, 1e150};
    double a[N * N], lam[N], tol[N];
    int b, i, j, at = 0;
    la_t_rng r = {503};
    for (i = 0; i < N * N; ++i) a[i] = 0;
    for (b = 0; b < 6; ++b) {
      int m = size[b];
      double bl[20], bq[400], ba[400];
      for (i = 0; i < m; ++i) bl[i] = scale[b] * (1 + 2 * la_t_uniform(&r));
      t_from_spectrum(&r, m, bl, ba, bq);
      for (i = 0; i < m; ++i) {
        for (j = 0; j < m; ++j) a[(size_t)(at + i) * N + at + j] = ba[i * m + j];
        lam[at + i] = bl[i];
        tol[at + i] = 8 * m * eps * 3 * scale[b];
      }
      at += m;
    }
    t_hard_spectrum(t, "block diagonal", N, a, lam, tol);
  }

  LA_TEST(t, "diag/sym_eig spectra over 300 decades") {
    enum { N = 52 };
    double a[N * N], q[N * N], lam[N], tol[N];
    int b, i, j;
    la_t_rng r = {504};
    /* 13 blocks of 4 at 1e-150, 1e-125, .. 1e150: relative accuracy in
       each, as a graded matrix allows */
    for (i = 0; i < N * N; ++i) a[i] = 0;
    for (b = 0; b < 13; ++b) {
      double s = pow(10.0, -150 + 25 * b), bl[4], bq[16], ba[16];
      for (i = 0; i < 4; ++i) bl[i] = s * (i - 1.5 + 0.3 * la_t_uniform(&r));
      t_from_spectrum(&r, 4, bl, ba, bq);
      for (i = 0; i < 4; ++i) {
        for (j = 0; j < 4; ++j) a[(size_t)(4 * b + i) * N + 4 * b + j] = ba[i * 4 + j];
        lam[4 * b + i] = bl[i];
        tol[4 * b + i] = 64 * eps * 2 * s;
      }
    }
    t_hard_spectrum(t, "graded blocks", N, a, lam, tol);
    /* one dense rotation of the same decades: the small ones are then
       rounding of the large, so every value is held to eps ||A|| */
    for (i = 0; i < N; ++i) {
      lam[i] = (i % 2 ? -1 : 1) * pow(10.0, -150 + 300.0 * i / (N - 1));
      tol[i] = 8 * N * eps * 1e150;
    }
    t_from_spectrum(&r, N, lam, a, q);
    t_hard_spectrum(t, "dense decades", N, a, lam, tol);
  }

  LA_TEST(t, "diag/sym_eig entries near the largest double") {
    enum { N = 40 };
    double a[N * N], q[N * N], lam[N], tol[N], w[2];
    double big[4] = {1e308, 1e308, 1e308, 1e308};
    int i;
    la_t_rng r = {505};
    for (i = 0; i < N; ++i) {
      lam[i] = 1.5e308 * la_t_uniform(&r);
      tol[i] = 8 * N * eps * 1.5e308;
    }
    lam[0] = 1.5e308; lam[1] = -1.5e308;
    t_from_spectrum(&r, N, lam, a, q);
    LA_CHECK(t, t_maxabs(N * N, a) > 1e307, "entries %g", t_maxabs(N * N, a));
    t_hard_spectrum(t, "near overflow", N, a, lam, tol);
    /* eigenvalues 0 and 2e308: the larger is no double */
    LA_CHECK(t, la_sym_eig(2, big, w, NULL, NULL, 0) == LA_ERANGE,
             "an eigenvalue beyond the largest double");
  }

  LA_TEST(t, "diag/sym_eig on a trained nonlinear model's Hessian") {
    /* Adam on the nonlinear setting with the front MLP (10 ReLU units, 4
       when light): after 300 steps (60) several units are dead on the whole
       batch, and their parameters' rows and columns of H are exactly zero */
    la_data_config dc;
    la_data data;
    la_model_config mc;
    la_model m;
    la_optim_config ac;
    la_train_config tc;
    la_trainer tr;
    la_batch b;
    la_rng rng;
    int st, n = 0, i, j, k, zero = 0;
    double *h = NULL, *h0 = NULL, *w = NULL, *v = NULL, hn, res = 0, orth = 0;
    la_data_preset(&dc, LA_SETTING_NONLINEAR);
    memset(&mc, 0, sizeof mc);
    mc.d = 5; mc.n = 20; mc.layers = 3; mc.param = LA_PARAM_DENSE;
    mc.front_hidden = t->light ? 4 : 10; mc.init_std = 0.1;
    memset(&ac, 0, sizeof ac);
    ac.lr = 0.01; ac.beta1 = 0.9; ac.beta2 = 0.9; ac.eps = 1e-8;
    memset(&tc, 0, sizeof tc);
    tc.model = &m; tc.data = &data; tc.optimizer = la_optimizer_adam();
    tc.optimizer_config = &ac; tc.clip_norm = 1; tc.batch = 50;
    tc.eval_every = -1; tc.seed = 2;
    st = la_data_create(&data, &dc, 2);
    if (st == LA_OK) st = la_model_init(&m, &mc);
    if (st == LA_OK) st = la_trainer_create(&tr, &tc);
    if (st == LA_OK) st = la_trainer_run(&tr, t->light ? 60 : 300);
    if (st == LA_OK) st = la_batch_create(&b, 5, 20, t->light ? 16 : 40);
    LA_CHECK(t, st == LA_OK, "training: %s", la_status_str(st));
    if (st == LA_OK) {
      n = m.nparams;
      h = (double *)malloc(sizeof(double) * n * n);
      h0 = (double *)malloc(sizeof(double) * n * n);
      w = (double *)malloc(sizeof(double) * n);
      v = (double *)malloc(sizeof(double) * n * n);
      la_rng_seed(&rng, 2, LA_STREAM_EVAL - 2);
      st = la_data_sample(&data, &rng, &b);
      if (st == LA_OK) st = la_hessian_dense(&m, tr.theta, &b, h0, NULL, 0);
      LA_CHECK(t, st == LA_OK && n == (t->light ? 265 : 331), "Hessian: %s, n %d",
               la_status_str(st), n);
    }
    if (st == LA_OK) {
      for (i = 0; i < n; ++i) {
        for (j = 0; j < n && h0[(size_t)i * n + j] == 0; ++j) {}
        zero += j == n;
      }
      LA_CHECK(t, zero >= 11, "%d zero rows: no dead unit to test with", zero);
      memcpy(h, h0, sizeof(double) * n * n);
      /* light: the eigenvalues alone (the vectors' accumulation is most of
         the work; "zero rows and columns embedded" checks them), held to
         the trace below and to Lanczos at both ends */
      st = la_sym_eig(n, h, w, t->light ? NULL : v, NULL, 0);
      LA_CHECK(t, st == LA_OK, "sym_eig: %s", la_status_str(st));
    }
    if (st == LA_OK) {
      double trace = 0, sw = 0, sa = 0;
      hn = fmax(fabs(w[0]), fabs(w[n - 1]));
      for (i = 0; i < n; ++i) {
        trace += h0[(size_t)i * n + i];
        sw += w[i];
        sa += fabs(w[i]);
      }
      LA_CHECK(t, fabs(sw - trace) <= 8 * n * 2.2e-16 * sa, "sum %g, trace %g", sw,
               trace);
      for (i = 0; i < n && !t->light; ++i) {
        double r2 = 0;
        for (j = 0; j < n; ++j) {
          double hv = 0, dot = 0;
          for (k = 0; k < n; ++k) hv += h0[(size_t)j * n + k] * v[(size_t)i * n + k];
          hv -= w[i] * v[(size_t)i * n + j];
          r2 += hv * hv;
          for (k = 0; k < n; ++k) dot += v[(size_t)i * n + k] * v[(size_t)j * n + k];
          orth = fmax(orth, fabs(dot - (i == j)));
        }
        res = fmax(res, sqrt(r2));
      }
      if (!t->light) {
        LA_CHECK(t, res <= 8 * n * 2.2e-16 * hn, "||H v - w v|| = %g of %g", res, hn);
        LA_CHECK(t, orth <= 8 * n * 2.2e-16, "orthogonality %g", orth);
      }
      for (k = 0; k < 2; ++k) { /* Lanczos on the HVP at both ends */
        double vals[3], want[3], tol = sizeof(la_real) == 4 ? 1e-5 : 1e-10, err = 0;
        la_lanczos_config c;
        la_eig_out o;
        memset(&c, 0, sizeof c);
        c.which = k ? LA_EIG_SMALLEST : LA_EIG_LARGEST;
        memset(&o, 0, sizeof o);
        o.values = vals;
        st = la_hessian_eigs(&m, tr.theta, &b, 3, tol, &c, &o, NULL, 0);
        LA_CHECK(t, st == LA_OK, "lanczos %d: %s", k, la_status_str(st));
        t_wanted(n, w, c.which, 3, want);
        for (i = 0; i < 3; ++i) err = fmax(err, fabs(vals[i] - want[i]));
        /* both from the same products in la_real */
        LA_CHECK(t, err <= (tol + 100 * t_eps) * hn, "%s: error %g of %g",
                 k ? "smallest" : "largest", err, hn);
      }
    }
    if (n) {
      la_batch_destroy(&b);
      la_trainer_destroy(&tr);
      la_data_destroy(&data);
    }
    free(h); free(h0); free(w); free(v);
  }
}

/* ------------------------------------- results beyond the double range */

static void diag_range_tests(la_t *t) {
  LA_TEST(t, "diag/finite: lsmooth near 1e200 is the fit scaled") {
    double g[30], s[30], gb[30], sb[30];
    la_lsmooth_fit f, fb, keep;
    la_t_rng r = {91};
    int i, st;
    for (i = 0; i < 30; ++i) {
      g[i] = 1 + la_t_uniform(&r);
      s[i] = 2 + 3 * g[i] + 0.3 * la_t_uniform(&r);
      gb[i] = g[i] * 1e200;
      sb[i] = s[i] * 1e200;
    }
    la_lsmooth(30, g, s, &f, NULL, 0);
    st = la_lsmooth(30, gb, sb, &fb, NULL, 0);
    LA_CHECK(t, st == LA_OK, "status %s", la_status_str(st));
    LA_CHECK(t, fabs(fb.l1_ls - f.l1_ls) <= 1e-12 * fabs(f.l1_ls) &&
                    fabs(fb.l1_env - f.l1_env) <= 1e-12 * fabs(f.l1_env),
             "slopes %g %g, unscaled %g %g", fb.l1_ls, fb.l1_env, f.l1_ls,
             f.l1_env);
    LA_CHECK(t, fabs(fb.l0_ls - 1e200 * f.l0_ls) <= 1e-12 * 1e200 * fabs(f.l0_ls) &&
                    fabs(fb.l0_env - 1e200 * f.l0_env) <= 1e-12 * 1e200 * fabs(f.l0_env),
             "intercepts %g %g", fb.l0_ls, fb.l0_env);
    LA_CHECK(t, fabs(fb.corr_log - f.corr_log) < 1e-9 && fb.used == 30,
             "corr %g vs %g", fb.corr_log, f.corr_log);
    /* a slope of 1e600 is no double */
    for (i = 0; i < 30; ++i) { gb[i] = g[i] * 1e-300; sb[i] = s[i] * 1e300; }
    memset(&keep, 0x5a, sizeof keep);
    fb = keep;
    LA_CHECK(t, la_lsmooth(30, gb, sb, &fb, NULL, 0) == LA_ERANGE,
             "slope beyond double");
    LA_CHECK(t, memcmp(&fb, &keep, sizeof fb) == 0, "fit written on LA_ERANGE");
  }

  LA_TEST(t, "diag/finite: noise summary of equal or 1e300-wide samples") {
    double x[40], y[40], hist[10], edges[11], srt[40], gq[40];
    double hist2[10], edges2[11];
    la_noise_config c;
    la_noise_stats st, sb, keep;
    int i, k, st1;
    memset(&c, 0, sizeof c);
    c.bins = 10;
    memset(&keep, 0x5a, sizeof keep);
    /* all equal: an infinite Hill index; nothing written */
    for (i = 0; i < 40; ++i) x[i] = 5;
    st = keep;
    for (i = 0; i < 10; ++i) hist[i] = -7;
    LA_CHECK(t, la_noise_summary(40, x, &c, &st, hist, edges, srt, gq, NULL,
                                 0) == LA_ERANGE, "equal samples");
    LA_CHECK(t, memcmp(&st, &keep, sizeof st) == 0 && hist[3] == -7,
             "written on LA_ERANGE");
    /* +-1e300: the variance is 1e600 */
    for (i = 0; i < 40; ++i) x[i] = (i % 2 ? -1e300 : 1e300) * (1 + i / 40.0);
    LA_CHECK(t, la_noise_summary(40, x, &c, &st, hist, edges, srt, gq, NULL,
                                 0) == LA_ERANGE, "variance beyond double");
    LA_CHECK(t, memcmp(&st, &keep, sizeof st) == 0 && hist[3] == -7,
             "written on LA_ERANGE");
    /* near 1e150 the variance (1e300) is a double, the fourth powers are
       not: every statistic is the unscaled one's, scaled */
    for (i = 0; i < 40; ++i) {
      y[i] = 1 + 0.5 * (i % 7) + 0.01 * i * i;
      x[i] = ldexp(y[i], 500);
    }
    st1 = la_noise_summary(40, y, &c, &sb, hist2, edges2, NULL, NULL, NULL, 0);
    LA_CHECK(t, st1 == LA_OK &&
                    la_noise_summary(40, x, &c, &st, hist, edges, srt, gq,
                                     NULL, 0) == LA_OK,
             "near 1e150");
    LA_CHECK(t, st.mean == ldexp(sb.mean, 500) && st.var == ldexp(sb.var, 1000) &&
                    st.kurtosis == sb.kurtosis && st.min == ldexp(sb.min, 500) &&
                    st.max == ldexp(sb.max, 500) &&
                    fabs(st.hill_alpha - sb.hill_alpha) <= 1e-12 * sb.hill_alpha,
             "mean %g var %g kurtosis %g (unscaled %g) hill %g (%g)", st.mean,
             st.var, st.kurtosis, sb.kurtosis, st.hill_alpha, sb.hill_alpha);
    for (k = 0; k < 10; ++k)
      LA_CHECK(t, hist[k] == ldexp(hist2[k], -500) &&
                      edges[k] == ldexp(edges2[k], 500),
               "bin %d: %g %g", k, hist[k], edges[k]);
    LA_CHECK(t, la__finite(st.kurtosis) && st.kurtosis > 1, "kurtosis %g",
             st.kurtosis);
  }

  LA_TEST(t, "diag/finite: hill writes alpha only on success") {
    double x[6] = {1, 2, 3, 3, 3, 3}, a = 42;
    LA_CHECK(t, la_hill(6, x, 2, &a, NULL, 0) == LA_ERANGE && a == 42,
             "3 largest equal: alpha %g", a);
    x[5] = 4;
    LA_CHECK(t, la_hill(6, x, 2, &a, NULL, 0) == LA_OK && la__finite(a) && a > 0,
             "alpha %g", a);
    x[5] = 1e300; x[4] = 1e-300; x[0] = x[1] = x[2] = x[3] = 1e-300;
    LA_CHECK(t, la_hill(6, x, 1, &a, NULL, 0) == LA_OK &&
                    fabs(a - 1 / (log(1e300) - log(1e-300))) < 1e-12 * a,
             "ratio 1e600: alpha %g", a);
  }

  LA_TEST(t, "diag/finite: condition ratios and medians beyond double") {
    double d[5] = {1e300, 1e-10, -1e-10, 2e-10, 5}, r = 42, m;
    double v[3] = {1, 2, 3}, w[3] = {1e308, 1e308, 1e308};
    double big[2] = {1e308, 1.5e308};
    LA_CHECK(t, la_rcond_diag(5, d, LA_MEDIAN_MID, &r, NULL, 0) == LA_ERANGE && r == 42,
             "diag ratio 5e309: %g", r);
    LA_CHECK(t, la_rcond_spectrum(5, d, NULL, &r, NULL, 0) == LA_ERANGE && r == 42,
             "spectrum ratio: %g", r);
    LA_CHECK(t, la_weighted_median(3, v, w, &m, NULL, 0) == LA_OK && m == 2,
             "weights summing past double: median %g", m);
    LA_CHECK(t, la_weighted_median(2, big, NULL, &m, NULL, 0) == LA_OK &&
                    m == 1.25e308, "midpoint of 1e308 and 1.5e308: %g", m);
  }

  LA_TEST(t, "diag/finite: density with a subnormal sigma") {
    double nodes[2] = {0, 1}, wts[2] = {0.5, 0.5}, grid[2] = {0.5, 2};
    double out[2] = {-1, -1}, on[1] = {0};
    LA_CHECK(t, la_density_eval(2, nodes, wts, 5e-324, 2, grid, out) == LA_OK &&
                    out[0] == 0 && out[1] == 0,
             "off the nodes: %g %g", out[0], out[1]);
    out[0] = -1;
    LA_CHECK(t, la_density_eval(2, nodes, wts, 5e-324, 1, on, out) == LA_ERANGE &&
                    out[0] == -1,
             "on a node: density 1e323");
    LA_CHECK(t, la_density_eval(2, nodes, wts, 1e-300, 1, on, out) == LA_OK &&
                    fabs(out[0] - 0.5 / (1e-300 * sqrt(2 * 3.141592653589793))) <
                        1e-12 * out[0],
             "sigma 1e-300: %g", out[0]);
  }

  LA_TEST(t, "diag/finite: trace and dense matrix of an operator near 1e300") {
    /* la_real must hold the operator's values: a double build */
    if (sizeof(la_real) == 8) {
      double tr = 0, se = -1, tr1 = 0, se1 = -1, h[16], a[16], a1[16];
      la_trace_config tc;
      dmat_op op;
      int i, st;
      for (i = 0; i < 16; ++i) { /* symmetric, not diagonal: z^T A z varies */
        int rc = i / 4 + i % 4; /* row plus column */
        a1[i] = i % 5 == 0 ? 2 : 0.3 + 0.1 * rc;
        a[i] = a1[i] * 1e300;
      }
      memset(&tc, 0, sizeof tc);
      tc.matvecs = 8;
      memset(&op, 0, sizeof op); op.n = 4; op.a = a1;
      la_trace(4, dmat_matvec, &op, &tc, &tr1, &se1, NULL, 0);
      op.a = a;
      st = la_trace(4, dmat_matvec, &op, &tc, &tr, &se, NULL, 0);
      /* the same probes: both results scale with the operator */
      LA_CHECK(t, st == LA_OK && fabs(tr - 1e300 * tr1) <= 1e-14 * fabs(tr) &&
                      se1 > 0 && fabs(se - 1e300 * se1) <= 1e-10 * se,
               "trace %g (%g), error %g (%g): %s", tr, tr1, se, se1,
               la_status_str(st));
      for (i = 0; i < 16; ++i) a[i] = i % 5 == 0 ? 1.5e308 : 1.2e308;
      LA_CHECK(t, la_dense_from_matvec(4, dmat_matvec, &op, h, NULL, 0) == LA_OK,
               "dense");
      for (i = 0; i < 16; ++i)
        LA_CHECK(t, h[i] == a[i], "entry %d: %g, not %g", i, h[i], a[i]);
    }
  }
}

static void diag_model_tests(la_t *t) {
  LA_TEST(t, "diag/model hessian: dense against differences of gradients") {
    static const int params[2] = {LA_PARAM_SPARSE, LA_PARAM_DENSE};
    int pc;
    for (pc = 0; pc < 2; ++pc) {
      t_model tm;
      int n, i, j, st = t_model_make(&tm, params[pc], 2, 3, 6, 37, 0.3, 11u + pc);
      double *h, *hfd, *dg, err = 0, derr = 0, hmax;
      la_real *tp, *gp, *gm;
      double step = sizeof(la_real) == 4 ? 1e-2 : 1e-5;
      double loss;
      LA_CHECK(t, st == LA_OK, "setup %d", st);
      if (st) continue;
      n = tm.m.nparams;
      h = (double *)malloc(sizeof(double) * n * n);
      hfd = (double *)malloc(sizeof(double) * n * n);
      dg = (double *)malloc(sizeof(double) * n);
      tp = (la_real *)malloc(sizeof(la_real) * n);
      gp = (la_real *)malloc(sizeof(la_real) * n);
      gm = (la_real *)malloc(sizeof(la_real) * n);
      LA_CHECK(t, la_hessian_dense(&tm.m, tm.theta, &tm.b, h, NULL, 0) == LA_OK,
               "dense");
      LA_CHECK(t, la_hessian_diag(&tm.m, tm.theta, &tm.b, dg, NULL, 0) == LA_OK,
               "diag");
      for (j = 0; j < n; ++j) {
        memcpy(tp, tm.theta, sizeof(la_real) * n);
        tp[j] = (la_real)(tm.theta[j] + step);
        la_model_grad(&tm.m, tp, &tm.b, &loss, gp, NULL, 0);
        tp[j] = (la_real)(tm.theta[j] - step);
        la_model_grad(&tm.m, tp, &tm.b, &loss, gm, NULL, 0);
        for (i = 0; i < n; ++i)
          hfd[i * n + j] = ((double)gp[i] - gm[i]) /
                           ((double)(la_real)(tm.theta[j] + step) -
                            (double)(la_real)(tm.theta[j] - step));
      }
      hmax = t_maxabs(n * n, h);
      for (i = 0; i < n * n; ++i) err = fmax(err, fabs(h[i] - hfd[i]));
      for (i = 0; i < n; ++i) derr = fmax(derr, fabs(dg[i] - h[i * n + i]));
      /* central differences: O(step^2) truncation, eps/step rounding */
      LA_CHECK(t, hmax > 0 && err <= (sizeof(la_real) == 4 ? 2e-2 : 1e-6) * hmax,
               "param %d: |H - H_fd| = %g of %g", params[pc], err, hmax);
      LA_CHECK(t, derr <= 8 * t_eps * hmax, "diagonal off by %g", derr);
      for (i = 0; i < n; ++i)
        for (j = 0; j < i; ++j)
          LA_CHECK(t, h[i * n + j] == h[j * n + i], "not symmetric");
      free(h); free(hfd); free(dg); free(tp); free(gp); free(gm);
      t_model_free(&tm);
    }
  }

  LA_TEST(t, "diag/model hessian eigenvalues: lanczos against the dense solver") {
    t_model tm;
    int st = t_model_make(&tm, LA_PARAM_DENSE, 2, 3, 6, 64, 0.3, 21u), n, w, i;
    double tol = sizeof(la_real) == 4 ? 1e-5 : 1e-10;
    double *h, *ev, vals[5], res[5], want[5], hn;
    LA_CHECK(t, st == LA_OK, "setup %d", st);
    if (st == LA_OK) {
      n = tm.m.nparams;
      h = (double *)malloc(sizeof(double) * n * n);
      ev = (double *)malloc(sizeof(double) * n);
      la_hessian_dense(&tm.m, tm.theta, &tm.b, h, NULL, 0);
      LA_CHECK(t, la_sym_eig(n, h, ev, NULL, NULL, 0) == LA_OK, "dense eig");
      hn = fmax(fabs(ev[0]), fabs(ev[n - 1]));
      LA_CHECK(t, ev[0] < 0 && ev[n - 1] > 0, "expected indefinite: %g .. %g",
               ev[0], ev[n - 1]);
      for (w = 0; w < 3; ++w) {
        la_lanczos_config c;
        la_eig_out o;
        double err = 0;
        size_t wb = la_hessian_eigs_work_bytes(&tm.m, 5, NULL);
        void *wk = malloc(wb + 64);
        memset(&c, 0, sizeof c); c.which = w;
        memset(&o, 0, sizeof o); o.values = vals; o.residuals = res;
        st = la_hessian_eigs(&tm.m, tm.theta, &tm.b, 5, tol, &c, &o, wk, wb);
        LA_CHECK(t, st == LA_OK, "which %d: status %d", w, st);
        t_wanted(n, ev, w, 5, want);
        for (i = 0; i < 5; ++i) err = fmax(err, fabs(vals[i] - want[i]));
        /* the HVP itself is only accurate to rounding of la_real */
        LA_CHECK(t, err <= (tol + 100 * t_eps) * hn,
                 "which %d: error %g (norm %g), %d HVPs", w, err, hn, o.matvecs);
        free(wk);
      }
      {
        la_eig_out o;
        memset(&o, 0, sizeof o); o.values = vals;
        LA_CHECK(t, la_hessian_eigs(&tm.m, tm.theta, &tm.b, n + 1, tol, NULL, &o,
                                    NULL, 0) == LA_EDIM, "k > n");
        LA_CHECK(t, la_hessian_eigs(&tm.m, tm.theta, &tm.b, 2, 0, NULL, &o,
                                    NULL, 0) == LA_ERANGE, "tol 0");
      }
      free(h); free(ev);
      t_model_free(&tm);
    }
  }

  LA_TEST(t, "diag/directional smoothness against a second difference") {
    t_model tm;
    int st = t_model_make(&tm, LA_PARAM_SPARSE, 3, 3, 6, 50, 0.4, 31u), n, i;
    la_real *nx, *tp, *tm_, *g;
    double s = 0, gn = 0, fp, f0, fm, nr = 0, fd, hstep, loss, *u;
    la_t_rng r = {9};
    LA_CHECK(t, st == LA_OK, "setup %d", st);
    if (st == LA_OK) {
      n = tm.m.nparams;
      nx = (la_real *)malloc(sizeof(la_real) * n);
      tp = (la_real *)malloc(sizeof(la_real) * n);
      tm_ = (la_real *)malloc(sizeof(la_real) * n);
      g = (la_real *)malloc(sizeof(la_real) * n);
      u = (double *)malloc(sizeof(double) * n);
      for (i = 0; i < n; ++i)
        nx[i] = (la_real)(tm.theta[i] + 0.05 * la_t_uniform(&r));
      st = la_dir_smoothness(&tm.m, tm.theta, nx, &tm.b, &s, &gn, NULL, 0);
      LA_CHECK(t, st == LA_OK, "status %d", st);
      for (i = 0; i < n; ++i) { u[i] = (double)nx[i] - tm.theta[i]; nr += u[i] * u[i]; }
      nr = sqrt(nr);
      hstep = sizeof(la_real) == 4 ? 3e-2 : 1e-4;
      for (i = 0; i < n; ++i) {
        tp[i] = (la_real)(tm.theta[i] + hstep * u[i] / nr);
        tm_[i] = (la_real)(tm.theta[i] - hstep * u[i] / nr);
      }
      la_model_loss(&tm.m, tp, &tm.b, &fp, NULL, NULL, 0);
      la_model_loss(&tm.m, tm.theta, &tm.b, &f0, NULL, NULL, 0);
      la_model_loss(&tm.m, tm_, &tm.b, &fm, NULL, NULL, 0);
      fd = (fp - 2 * f0 + fm) / (hstep * hstep);
      LA_CHECK(t, fabs(s - fd) <= (sizeof(la_real) == 4 ? 3e-2 : 1e-5) *
                                       (fabs(fd) + f0),
               "u^T H u = %.10g, second difference %.10g", s, fd);
      la_model_grad(&tm.m, tm.theta, &tm.b, &loss, g, NULL, 0);
      LA_CHECK(t, fabs(gn - la_nrm2(n, g)) <= 16 * t_eps * gn, "|grad| %g vs %g",
               gn, la_nrm2(n, g));
      LA_CHECK(t, la_dir_smoothness(&tm.m, tm.theta, tm.theta, &tm.b, &s, NULL,
                                    NULL, 0) == LA_ERANGE, "zero step");
      LA_CHECK(t, la_dir_smoothness(&tm.m, tm.theta, NULL, &tm.b, &s, NULL,
                                    NULL, 0) == LA_ENULL, "null");
      LA_CHECK(t, la_dir_smoothness(&tm.m, tm.theta, nx, &tm.b, &s, NULL, u,
                                    8) == LA_EWORKSPACE, "small workspace");
      nx[1] = (la_real)INFINITY;
      LA_CHECK(t, la_dir_smoothness(&tm.m, tm.theta, nx, &tm.b, &s, NULL, NULL,
                                    0) == LA_ENONFINITE, "inf");
      tm.b.d = 2;
      LA_CHECK(t, la_dir_smoothness(&tm.m, tm.theta, tm.theta, &tm.b, &s, NULL,
                                    NULL, 0) == LA_ESHAPE, "shape");
      tm.b.d = 3;
      free(nx); free(tp); free(tm_); free(g); free(u);
      t_model_free(&tm);
    }
  }

  LA_TEST(t, "diag/model robust condition numbers, exact and iterative") {
    /* the dense 2-layer model's Hessian is singular, its median eigenvalue
       rounding (lambda_max / it was reported as 5e17): not resolved; the
       PGD model's median is well clear of 0 */
    static const int params[2] = {LA_PARAM_DENSE, LA_PARAM_PGD};
    int pc;
    for (pc = 0; pc < 2; ++pc) {
      t_model tm;
      int st = t_model_make(&tm, params[pc], 2, 3, 6, 64, 0.3, 41u), n, i, j;
      la_rcond ex, it;
      la_rcond_config c;
      la_hvp_op op;
      double *h, *ev, *ad, mx = 0, lo, hi, asym = 0, res, big, hd[64];
      la_real *x, *y;
      LA_CHECK(t, st == LA_OK, "setup %d", st);
      if (st) continue;
      n = tm.m.nparams;
      h = (double *)malloc(sizeof(double) * n * n);
      ev = (double *)malloc(sizeof(double) * n);
      ad = (double *)malloc(sizeof(double) * n);
      x = (la_real *)calloc((size_t)n, sizeof(la_real));
      y = (la_real *)malloc(sizeof(la_real) * n);
      /* the Hessian column by column; a pair within a layer (stage)
         averaged, its asymmetry summed; a pair across layers taken from
         the column of the earlier layer (the dense Hessian forms only
         those, la__hcols); the asymmetry scaled from the pairs within
         layers to all pairs */
      memset(&op, 0, sizeof op);
      op.model = &tm.m; op.theta = tm.theta; op.batch = &tm.b;
      for (j = 0; j < n; ++j) {
        x[j] = 1;
        la_hvp_matvec(&op, n, x, y);
        for (i = 0; i < n; ++i) h[i * n + j] = y[i];
        x[j] = 0;
      }
      {
        int lp = n / 2; /* two layers, no front layer */
        double within = 0;
        for (i = 0; i < n; ++i)
          for (j = 0; j < i; ++j) {
            if (i / lp == j / lp) {
              double d = h[i * n + j] - h[j * n + i];
              asym += 2 * d * d;
              within += 1;
              h[i * n + j] = h[j * n + i] = 0.5 * (h[i * n + j] + h[j * n + i]);
            } else { /* j's layer is the earlier: its column, row i */
              h[j * n + i] = h[i * n + j];
            }
          }
        asym = sqrt(asym) * sqrt(0.5 * n * (n - 1) / within);
      }
      for (i = 0; i < n; ++i) { ad[i] = fabs(h[i * n + i]); mx = fmax(mx, ad[i]); }
      for (i = 0; i < n; ++i) hd[i] = h[i * n + i];
      qsort(ad, n, sizeof(double), t_cmp_desc);
      la_sym_eig(n, h, ev, NULL, NULL, 0);
      big = fmax(fabs(ev[0]), fabs(ev[n - 1]));
      res = fmax(asym, n * 2.220446049250313e-16 * big);
      LA_CHECK(t, la_robust_cond(&tm.m, tm.theta, &tm.b, NULL, &ex, NULL, 0) ==
                      LA_OK, "exact");
      /* naive: descending sort, median of an even or odd count */
      {
        /* by_diag: torch.median's lower middle value by default, the
           midpoint when asked */
        double md = ad[n / 2];
        double mdm = n % 2 ? ad[n / 2] : 0.5 * (ad[n / 2 - 1] + ad[n / 2]);
        double ml = n % 2 ? ev[n / 2] : 0.5 * (ev[n / 2 - 1] + ev[n / 2]);
        la_rcond mid;
        la_rcond_config cm;
        memset(&cm, 0, sizeof cm);
        cm.median = LA_MEDIAN_MID;
        LA_CHECK(t, ex.exact == 1, "path");
        LA_CHECK(t, fabs(ex.by_diag - mx / md) <= 1e-12 * mx / md, "by diag %g vs %g",
                 ex.by_diag, mx / md);
        LA_CHECK(t, la_robust_cond(&tm.m, tm.theta, &tm.b, &cm, &mid, NULL, 0) ==
                            LA_OK &&
                        fabs(mid.by_diag - mx / mdm) <= 1e-12 * mx / mdm,
                 "by diag, midpoint %g vs %g", mid.by_diag, mx / mdm);
        cm.median = 2;
        LA_CHECK(t, la_robust_cond(&tm.m, tm.theta, &tm.b, &cm, &mid, NULL, 0) ==
                        LA_ERANGE, "an unknown median");
        LA_CHECK(t, fabs(ex.lambda_median - ml) <= 1e-12 * big,
                 "median %g vs %g", ex.lambda_median, ml);
        LA_CHECK(t, fabs(ex.resolution - res) <= 1e-6 * res,
                 "resolution %g vs %g", ex.resolution, res);
        LA_CHECK(t, ex.resolved == (pc == 1) && ex.resolved == (fabs(ml) > res),
                 "param %d: median %g, resolution %g: resolved %d", params[pc],
                 ml, res, ex.resolved);
        if (ex.resolved)
          LA_CHECK(t, fabs(ex.by_spectrum - ev[n - 1] / ml) <=
                          1e-9 * fabs(ev[n - 1] / ml),
                   "by spectrum %g vs %g", ex.by_spectrum, ev[n - 1] / ml);
        else
          LA_CHECK(t, ex.by_spectrum == 0 && fabs(ml) < 1e-10 * big,
                   "unresolved: by spectrum %g, median %g", ex.by_spectrum, ml);
      }
      memset(&c, 0, sizeof c); c.dense_max = 1; c.slq.seed = 3;
      c.slq.probes = t->light ? 8 : 20;
      LA_CHECK(t, la_robust_cond(&tm.m, tm.theta, &tm.b, &c, &it, NULL, 0) ==
                      LA_OK, "iterative");
      /* the iterative path's diagonal is la_hessian_diag's (forward
         tangents with linear attention: another computation than the
         dense Hessian's columns, the same numbers to rounding) */
      {
        double dg2[64], rr = 0, derr = 0;
        LA_CHECK(t, la_hessian_diag(&tm.m, tm.theta, &tm.b, dg2, NULL, 0) ==
                            LA_OK &&
                        la_rcond_diag(n, dg2, LA_MEDIAN_LOWER, &rr, NULL, 0) == LA_OK,
                 "diag");
        LA_CHECK(t, it.exact == 0 && fabs(it.by_diag - rr) <= 1e-12 * rr,
                 "diag path %g vs %g", it.by_diag, rr);
        for (i = 0; i < n; ++i) derr = fmax(derr, fabs(dg2[i] - hd[i]));
        LA_CHECK(t, derr <= 8 * t_eps * mx, "diagonal off by %g of %g", derr,
                 mx);
      }
      LA_CHECK(t, fabs(it.lambda_max - ev[n - 1]) <= 1e-4 * fabs(ev[n - 1]),
               "lambda max %g vs %g", it.lambda_max, ev[n - 1]);
      /* the SLQ median: inside the middle half of the exact spectrum; its
         resolution the nodes' spacing over 80 steps, at least 1e-6 lambda */
      lo = ev[n / 4]; hi = ev[(3 * n) / 4];
      LA_CHECK(t, it.lambda_median >= lo && it.lambda_median <= hi,
               "median %g outside [%g, %g]", it.lambda_median, lo, hi);
      LA_CHECK(t, it.resolution >= 1e-6 * it.lambda_max &&
                      it.resolution <= (ev[n - 1] - ev[0]) / fmin(80, n) * 1.001 +
                                           1e-6 * it.lambda_max &&
                      it.resolved == (fabs(it.lambda_median) > it.resolution) &&
                      (it.resolved || it.by_spectrum == 0),
               "iterative resolution %g, median %g, resolved %d", it.resolution,
               it.lambda_median, it.resolved);
      c.dense_max = -1;
      LA_CHECK(t, la_robust_cond(&tm.m, tm.theta, &tm.b, &c, &it, NULL, 0) ==
                      LA_ERANGE, "dense_max < 0");
      LA_CHECK(t, la_robust_cond(&tm.m, NULL, &tm.b, NULL, &it, NULL, 0) ==
                      LA_ENULL, "null theta");
      free(h); free(ev); free(ad); free(x); free(y);
      t_model_free(&tm);
    }
  }

  LA_TEST(t, "diag/gradient noise bookkeeping") {
    /* the same prompts drawn again from a copy of the stream, batch after
       batch: the true batch of 20 prompts, then 30 minibatches of 7 */
    la_data_config dc;
    la_data g;
    t_model tm;
    la_grad_noise_config c;
    la_rng r1, r2;
    double norms[30], tg = 0, *gt, loss, worst = 0;
    int st, i, s, n;
    la_real *gb;
    la_batch b20, b7;
    st = la_data_preset(&dc, LA_SETTING_1);
    if (st == LA_OK) st = la_data_create(&g, &dc, 5);
    LA_CHECK(t, st == LA_OK, "data %d", st);
    if (st == LA_OK) st = t_model_make(&tm, LA_PARAM_SPARSE, 1, 5, 20, 8, 0.2, 51u);
    LA_CHECK(t, st == LA_OK, "setup %d", st);
    if (st == LA_OK) {
      n = tm.m.nparams;
      gb = (la_real *)malloc(sizeof(la_real) * n);
      gt = (double *)malloc(sizeof(double) * n);
      memset(&c, 0, sizeof c); c.minibatch = 7; c.true_batch = 20; c.samples = 30;
      la_rng_seed(&r1, 7, 3);
      r2 = r1;
      st = la_grad_noise(&tm.m, tm.theta, &g, &r1, &c, norms, &tg, NULL, 0);
      LA_CHECK(t, st == LA_OK, "status %d", st);
      la_batch_create(&b20, 5, 20, 20);
      la_batch_create(&b7, 5, 20, 7);
      la_data_sample(&g, &r2, &b20);
      la_model_grad(&tm.m, tm.theta, &b20, &loss, gb, NULL, 0);
      for (i = 0; i < n; ++i) gt[i] = gb[i];
      LA_CHECK(t, fabs(tg - sqrt(la__ddot(n, gt, gt))) <= 16 * t_eps * tg,
               "true gradient norm %g", tg);
      for (s = 0; s < 30; ++s) {
        double acc = 0;
        la_data_sample(&g, &r2, &b7);
        la_model_grad(&tm.m, tm.theta, &b7, &loss, gb, NULL, 0);
        for (i = 0; i < n; ++i) acc += (gb[i] - gt[i]) * (gb[i] - gt[i]);
        worst = fmax(worst, fabs(sqrt(acc) - norms[s]) / sqrt(acc));
      }
      LA_CHECK(t, worst <= 64 * t_eps, "norms differ by %g", worst);
      LA_CHECK(t, r1.counter == r2.counter, "streams end apart");
      c.samples = -1;
      LA_CHECK(t, la_grad_noise(&tm.m, tm.theta, &g, &r1, &c, norms, &tg, NULL,
                                0) == LA_ERANGE, "samples < 0");
      LA_CHECK(t, la_grad_noise(&tm.m, tm.theta, NULL, &r1, NULL, norms, &tg,
                                NULL, 0) == LA_ENULL, "null data");
      la_batch_destroy(&b20); la_batch_destroy(&b7);
      free(gb); free(gt);
      t_model_free(&tm);
      la_data_destroy(&g);
    }
  }
}

/* The block operator of dmat_op: its rows one product each (and counted
   as one call per block in blocks). */
typedef struct {
  dmat_op *op;
  int blocks;
} dblock_op;
static int dmat_matmat(void *ctx, int n, int k, const la_real *x, la_real *y) {
  dblock_op *b = (dblock_op *)ctx;
  int i, st = LA_OK;
  b->blocks++;
  for (i = 0; i < k && st == LA_OK; ++i)
    st = dmat_matvec(b->op, n, x + (size_t)i * n, y + (size_t)i * n);
  return st;
}

static void diag_block_tests(la_t *t) {
  LA_TEST(t, "diag/block operators: SLQ and traces equal the one-vector forms") {
    int n = 60, i, m, st;
    double lam[60], *a, *q, n1[8 * 20], w1[8 * 20], n2[8 * 20], w2[8 * 20];
    double t1, s1, t2, s2;
    la_t_rng r = {57};
    dmat_op op;
    dblock_op bo;
    la_slq_config c;
    la_trace_config tc;
    a = (double *)malloc(sizeof(double) * n * n);
    q = (double *)malloc(sizeof(double) * n * n);
    for (i = 0; i < n; ++i) lam[i] = la_t_uniform(&r) + (i < 4 ? 9 : 0);
    t_from_spectrum(&r, n, lam, a, q);
    memset(&op, 0, sizeof op); op.n = n; op.a = a;
    bo.op = &op; bo.blocks = 0;
    memset(&c, 0, sizeof c); c.probes = 8; c.steps = 20; c.seed = 5;
    st = la_slq(n, dmat_matvec, &op, &c, n1, w1, NULL, 0);
    m = op.calls;
    op.calls = 0;
    st |= la_slq_block(n, dmat_matmat, &bo, &c, n2, w2, NULL, 0);
    LA_CHECK(t, st == LA_OK && !memcmp(n1, n2, sizeof n1) &&
                    !memcmp(w1, w2, sizeof w1),
             "slq_block differs from slq (status %d)", st);
    /* the probes in lockstep: 20 blocks for 8 x 20 products */
    LA_CHECK(t, op.calls == m && m == 160 && bo.blocks == 20,
             "%d products (slq: %d) in %d blocks", op.calls, m, bo.blocks);
    for (i = 0; i < 2; ++i) {
      memset(&tc, 0, sizeof tc);
      tc.matvecs = 31; tc.method = i ? LA_TRACE_HUTCHPP : LA_TRACE_HUTCHINSON;
      tc.seed = 9;
      bo.blocks = 0;
      st = la_trace(n, dmat_matvec, &op, &tc, &t1, &s1, NULL, 0);
      st |= la_trace_block(n, dmat_matmat, &bo, &tc, &t2, &s2, NULL, 0);
      LA_CHECK(t, st == LA_OK && t1 == t2 && s1 == s2,
               "method %d: %.17g +- %g against %.17g +- %g", i, t2, s2, t1, s1);
      /* Hutchinson: one block; Hutch++: sketch, basis, probes */
      LA_CHECK(t, bo.blocks == (i ? 3 : 1), "method %d: %d blocks", i,
               bo.blocks);
    }
    /* a failing product in a block is the call's status */
    op.calls = 0; op.fail_at = 5;
    LA_CHECK(t, la_slq_block(n, dmat_matmat, &bo, &c, n2, w2, NULL, 0) ==
                    LA_EIO, "failing product");
    op.fail_at = 0; op.calls = 0; op.poison_at = 3;
    LA_CHECK(t, la_trace_block(n, dmat_matmat, &bo, &tc, &t2, &s2, NULL, 0) ==
                    LA_ENONFINITE, "NaN product");
    op.poison_at = 0;
    /* statuses and sizes */
    LA_CHECK(t, la_slq_block(n, NULL, &bo, &c, n2, w2, NULL, 0) == LA_ENULL &&
                    la_slq_block(n, dmat_matmat, &bo, &c, NULL, w2, NULL, 0) ==
                        LA_ENULL &&
                    la_trace_block(n, NULL, &bo, &tc, &t2, &s2, NULL, 0) ==
                        LA_ENULL &&
                    la_trace_block(n, dmat_matmat, &bo, &tc, NULL, &s2, NULL,
                                   0) == LA_ENULL,
             "nulls");
    LA_CHECK(t, la_slq_block(0, dmat_matmat, &bo, &c, n2, w2, NULL, 0) ==
                        LA_EDIM &&
                    la_slq_block_work_bytes(0, &c) == 0 &&
                    la_trace_block_work_bytes(0, &tc) == 0,
             "n = 0");
    LA_CHECK(t, la_slq_block_work_bytes(n, &c) > la_slq_work_bytes(n, &c) &&
                    la_trace_block_work_bytes(n, &tc) >
                        la_trace_work_bytes(n, &tc),
             "block workspaces hold the blocks");
    {
      size_t need = la_slq_block_work_bytes(n, &c);
      void *w = malloc(need);
      LA_CHECK(t, la_slq_block(n, dmat_matmat, &bo, &c, n2, w2, w, need) ==
                          LA_OK &&
                      la_slq_block(n, dmat_matmat, &bo, &c, n2, w2, w,
                                   need - 1) == LA_EWORKSPACE,
               "caller's workspace");
      free(w);
    }
    free(a); free(q);
  }

  LA_TEST(t, "diag/block operators: the model's Hessian, la_hmp_matmat") {
    t_model tm;
    int st = t_model_make(&tm, LA_PARAM_SPARSE, 2, 3, 6, 29, 0.3, 61u), n;
    double n1[6 * 12], w1[6 * 12], n2[6 * 12], w2[6 * 12], t1, s1, t2, s2;
    la_hvp_op op, opk;
    la_slq_config c;
    la_trace_config tc;
    la_real x[2 * 64], y[2 * 64];
    LA_CHECK(t, st == LA_OK, "setup %d", st);
    if (st == LA_OK) {
      n = tm.m.nparams;
      memset(&op, 0, sizeof op);
      op.model = &tm.m; op.theta = tm.theta; op.batch = &tm.b;
      opk = op;
      memset(&c, 0, sizeof c); c.probes = 6; c.steps = 12; c.seed = 2;
      st = la_slq(n, la_hvp_matvec, &op, &c, n1, w1, NULL, 0);
      st |= la_slq_block(n, la_hmp_matmat, &opk, &c, n2, w2, NULL, 0);
      LA_CHECK(t, st == LA_OK && !memcmp(n1, n2, sizeof n1) &&
                      !memcmp(w1, w2, sizeof w1),
               "slq of the Hessian: block differs (status %d)", st);
      memset(&tc, 0, sizeof tc); tc.matvecs = 9; tc.method = LA_TRACE_HUTCHPP;
      st = la_trace(n, la_hvp_matvec, &op, &tc, &t1, &s1, NULL, 0);
      st |= la_trace_block(n, la_hmp_matmat, &opk, &tc, &t2, &s2, NULL, 0);
      LA_CHECK(t, st == LA_OK && t1 == t2 && s1 == s2,
               "trace of the Hessian: %.17g vs %.17g", t2, t1);
      /* its own statuses: a workspace for fewer directions, n */
      memset(x, 0, sizeof x);
      opk.bytes = la_model_hmp_work_bytes(&tm.m, 1);
      opk.work = malloc(opk.bytes);
      LA_CHECK(t, la_hmp_matmat(&opk, n, 1, x, y) == LA_OK &&
                      la_hmp_matmat(&opk, n, 2, x, y) == LA_EWORKSPACE &&
                      la_hmp_matmat(&opk, n + 1, 1, x, y) == LA_EDIM &&
                      la_hmp_matmat(NULL, n, 1, x, y) == LA_ENULL &&
                      la_hmp_matmat(&opk, n, 1, NULL, y) == LA_ENULL,
               "la_hmp_matmat statuses");
      free(opk.work);
      t_model_free(&tm);
    }
  }
}


static void diag_hblock_tests(la_t *t) {
  LA_TEST(t, "diag/model hessian blocks: the dense Hessian's blocks' spectra") {
    static const int params[2] = {LA_PARAM_SPARSE, LA_PARAM_DENSE};
    int pc;
    for (pc = 0; pc < 2; ++pc) {
      t_model tm;
      int n, i, j, p, nb, off[16], sz[16], st = t_model_make(&tm, params[pc], 2, 3, 6, 37, 0.3, 5u + pc);
      double *h, *eig, *blk, *w, *ew;
      LA_CHECK(t, st == LA_OK, "setup %d", st);
      if (st) continue;
      n = tm.m.nparams;
      h = (double *)malloc(sizeof(double) * n * n);
      eig = (double *)malloc(sizeof(double) * n);
      blk = (double *)malloc(sizeof(double) * n * n);
      w = (double *)malloc(sizeof(double) * n);
      ew = (double *)malloc(la_sym_eig_work_bytes(n));
      LA_CHECK(t, la_hessian_dense(&tm.m, tm.theta, &tm.b, h, NULL, 0) == LA_OK, "dense");
      LA_CHECK(t, la_hessian_blocks(&tm.m, tm.theta, &tm.b, eig, NULL, 0) == LA_OK, "blocks");
      nb = la_model_blocks(&tm.m, off, sz, 16);
      LA_CHECK(t, nb == 4, "%d blocks", nb);
      for (p = 0; p < nb; ++p) {
        for (i = 0; i < sz[p]; ++i)
          for (j = 0; j < sz[p]; ++j)
            blk[i * sz[p] + j] = h[(size_t)(off[p] + i) * n + off[p] + j];
        LA_CHECK(t, la_sym_eig(sz[p], blk, w, NULL, ew, la_sym_eig_work_bytes(n)) == 0, "eig");
        /* the same entries, bit for bit, so the same eigenvalues */
        LA_CHECK(t, memcmp(w, eig + off[p], sizeof(double) * sz[p]) == 0,
                 "param %d block %d", pc, p);
        for (i = 1; i < sz[p]; ++i) LA_CHECK(t, eig[off[p] + i - 1] <= eig[off[p] + i], "ascending");
      }
      /* with a caller's workspace, the same */
      {
        size_t wb = la_hessian_blocks_work_bytes(&tm.m);
        void *wk = malloc(wb);
        double *e2 = (double *)malloc(sizeof(double) * n);
        LA_CHECK(t, wb > 0 && la_hessian_blocks(&tm.m, tm.theta, &tm.b, e2, wk, wb) == 0 &&
                        memcmp(e2, eig, sizeof(double) * n) == 0, "workspace");
        LA_CHECK(t, la_hessian_blocks(&tm.m, tm.theta, &tm.b, e2, wk, wb - 1) == LA_EWORKSPACE,
                 "short");
        LA_CHECK(t, la_hessian_blocks(&tm.m, tm.theta, &tm.b, NULL, wk, wb) == LA_ENULL, "null");
        free(wk);
        free(e2);
      }
      free(h); free(eig); free(blk); free(w); free(ew);
      t_model_free(&tm);
    }
  }

  LA_TEST(t, "diag: Jensen-Shannon distance between block spectra") {
    int sizes[3] = {1, 1, 2};
    double e[4] = {0, 1, 0, 1}, d[9], mean, work[64], p[2], q[2], m[2], js;
    int i;
    /* by hand, two bins at 0 and 1, width 1/2: p ~ (1, e^-2), q reversed */
    p[0] = q[1] = 1 / (1 + exp(-2.0));
    p[1] = q[0] = exp(-2.0) / (1 + exp(-2.0));
    for (i = 0; i < 2; ++i) m[i] = (p[i] + q[i]) / 2;
    js = 0;
    for (i = 0; i < 2; ++i)
      js += 0.5 * p[i] * log(p[i] / m[i]) / log(2.0) + 0.5 * q[i] * log(q[i] / m[i]) / log(2.0);
    LA_CHECK(t, la_spectra_js(3, sizes, e, 2, d, &mean, work) == 0, "call");
    LA_CHECK(t, fabs(d[1] - sqrt(js)) < 1e-12 && d[1] == d[3], "pair 0 1: %g %g", d[1], sqrt(js));
    /* block 2 holds both: its density the mixture's */
    LA_CHECK(t, d[0] == 0 && d[4] == 0 && d[8] == 0 && d[2] == d[5] && d[2] > 0 &&
                    d[2] < d[1], "diagonal, symmetry");
    LA_CHECK(t, fabs(mean - (d[1] + d[2] + d[5]) / 3) < 1e-15, "mean");
    /* equal spectra: 0; spectra far apart: 1 */
    e[0] = e[1] = 0.25;
    LA_CHECK(t, la_spectra_js(2, sizes, e, 8, d, &mean, work) == 0 && mean == 0, "equal");
    e[1] = 1e6;
    LA_CHECK(t, la_spectra_js(2, sizes, e, 8, NULL, &mean, work) == 0 && mean > 0.9999 && mean <= 1,
             "disjoint %g", mean);
    LA_CHECK(t, la_spectra_js(1, sizes, e, 8, NULL, &mean, work) == LA_EDIM, "one block");
    LA_CHECK(t, la_spectra_js(2, sizes, e, 1, NULL, &mean, work) == LA_EDIM, "one bin");
    e[0] = NAN;
    LA_CHECK(t, la_spectra_js(2, sizes, e, 8, NULL, &mean, work) == LA_ENONFINITE, "nan");
  }
}

/* The optimizers' estimates of the Hessian's diagonal: the exact one
   against the dense Hessian's diagonal; Hutchinson's against u * (H u) with
   H the dense Hessian and u drawn here by the rule stated; Gauss-Newton-
   Bartlett's against B g~^2 with g~ = (sqrt 2 / B) sum_b xi_b J_b formed
   here from each prompt's own gradient (a batch of one whose label puts
   the residual at 1/2, so that its gradient is the prediction's). */
static void diag_hdiag_tests(la_t *t) {
  LA_TEST(t, "diag/hdiag: exact, Hutchinson, Gauss-Newton-Bartlett against the dense Hessian") {
    t_model tm;
    int st = t_model_make(&tm, LA_PARAM_DENSE, 2, 3, 6, 37, 0.3, 31u), n, i, j, b;
    int T = (6 + 1) * (3 + 1);
    double *h, *est, *ref, *acc, *tok, *yv, *pred, scale, worst;
    double tol = sizeof(la_real) == 8 ? 1e-9 : 1e-3;
    la_real *J, *pr;
    la_rng r, r2;
    la_batch b1;
    size_t wb;
    void *w;
    LA_CHECK(t, st == LA_OK, "setup %d", st);
    if (st) return;
    n = tm.m.nparams;
    h = (double *)malloc(sizeof(double) * n * n);
    est = (double *)malloc(sizeof(double) * n);
    ref = (double *)malloc(sizeof(double) * n);
    acc = (double *)malloc(sizeof(double) * n);
    tok = (double *)malloc(sizeof(double) * tm.b.count * T);
    yv = (double *)malloc(sizeof(double) * tm.b.count);
    pred = (double *)malloc(sizeof(double) * tm.b.count);
    pr = (la_real *)malloc(sizeof(la_real) * tm.b.count);
    J = (la_real *)malloc(sizeof(la_real) * n);
    LA_CHECK(t, la_hessian_dense(&tm.m, tm.theta, &tm.b, h, NULL, 0) == LA_OK, "dense");
    /* exact: the diagonal */
    LA_CHECK(t, la_hdiag_estimate(&tm.m, LA_HESS_EXACT, tm.theta, &tm.b, NULL, est, NULL, 0) ==
                    LA_OK, "exact");
    for (i = 0; i < n; ++i) ref[i] = h[(size_t)i * n + i];
    scale = t_maxabs(n, ref);
    for (worst = 0, i = 0; i < n; ++i) worst = fmax(worst, fabs(est[i] - ref[i]) / scale);
    LA_CHECK(t, worst < tol, "exact: %g", worst);
    /* Hutchinson: u_i = +1 when uniform < 1/2, -1 otherwise */
    la_rng_seed(&r, 5, 77);
    r2 = r;
    LA_CHECK(t, la_hdiag_estimate(&tm.m, LA_HESS_HUTCHINSON, tm.theta, &tm.b, &r, est, NULL,
                                  0) == LA_OK, "hutchinson");
    for (i = 0; i < n; ++i) acc[i] = la_rng_uniform(&r2) < 0.5 ? 1 : -1;
    for (i = 0; i < n; ++i) {
      double hu = 0;
      for (j = 0; j < n; ++j) hu += h[(size_t)i * n + j] * acc[j];
      ref[i] = acc[i] * hu;
    }
    scale = t_maxabs(n, ref);
    for (worst = 0, i = 0; i < n; ++i) worst = fmax(worst, fabs(est[i] - ref[i]) / scale);
    LA_CHECK(t, worst < tol && r.counter == r2.counter, "hutchinson: %g", worst);
    /* the same through the caller's workspace; one byte short refused */
    wb = la_hdiag_work_bytes(&tm.m, LA_HESS_HUTCHINSON, tm.b.count);
    w = malloc(wb);
    la_rng_seed(&r, 5, 77);
    LA_CHECK(t, w && la_hdiag_estimate(&tm.m, LA_HESS_HUTCHINSON, tm.theta, &tm.b, &r, acc,
                                       w, wb) == LA_OK &&
                    memcmp(acc, est, sizeof(double) * n) == 0,
             "hutchinson in a given workspace");
    LA_CHECK(t, la_hdiag_estimate(&tm.m, LA_HESS_HUTCHINSON, tm.theta, &tm.b, &r, acc, w,
                                  wb - 1) == LA_EWORKSPACE, "short workspace");
    free(w);
    /* Gauss-Newton-Bartlett: y~_b = f_b + xi_b / sqrt 2 */
    la_rng_seed(&r, 5, 78);
    r2 = r;
    LA_CHECK(t, la_hdiag_estimate(&tm.m, LA_HESS_GNB, tm.theta, &tm.b, &r, est, NULL, 0) ==
                    LA_OK, "gnb");
    LA_CHECK(t, la_model_loss(&tm.m, tm.theta, &tm.b, NULL, pr, NULL, 0) == LA_OK &&
                    la_batch_get_tokens(&tm.b, tok, yv) == LA_OK &&
                    la_batch_create(&b1, 3, 6, 1) == LA_OK,
             "predictions and prompts");
    for (i = 0; i < n; ++i) acc[i] = 0;
    for (b = 0; b < tm.b.count; ++b) {
      double xi = la_rng_normal(&r2), yl;
      pred[b] = (double)pr[b];
      yl = pred[b] + 0.5;
      LA_CHECK(t, la_batch_put_tokens(&b1, tok + (size_t)b * T, &yl) == LA_OK &&
                      la_model_grad(&tm.m, tm.theta, &b1, NULL, J, NULL, 0) == LA_OK,
               "prompt %d", b);
      for (i = 0; i < n; ++i) acc[i] += xi * (double)J[i];
    }
    for (i = 0; i < n; ++i) ref[i] = 2.0 / tm.b.count * acc[i] * acc[i];
    scale = t_maxabs(n, ref);
    for (worst = 0, i = 0; i < n; ++i) worst = fmax(worst, fabs(est[i] - ref[i]) / scale);
    LA_CHECK(t, worst < tol && r.counter == r2.counter, "gnb: %g", worst);
    /* refusals */
    LA_CHECK(t, la_hdiag_estimate(&tm.m, 3, tm.theta, &tm.b, &r, est, NULL, 0) == LA_ERANGE &&
                    la_hdiag_estimate(&tm.m, LA_HESS_GNB, tm.theta, &tm.b, NULL, est, NULL,
                                      0) == LA_ENULL &&
                    la_hdiag_work_bytes(&tm.m, -1, 8) == 0 &&
                    la_hdiag_work_bytes(&tm.m, LA_HESS_GNB, 0) == 0,
             "refusals");
    la_batch_destroy(&b1);
    free(h); free(est); free(ref); free(acc); free(tok); free(yv); free(pred); free(pr);
    free(J);
    t_model_free(&tm);
  }
}

static void suite_diag(la_t *t) {
  diag_dense_tests(t);
  diag_lanczos_tests(t);
  diag_density_tests(t);
  diag_block_tests(t);
  diag_stats_tests(t);
  diag_workspace_tests(t);
  diag_hard_spectra_tests(t);
  diag_range_tests(t);
  diag_model_tests(t);
  diag_hblock_tests(t);
  diag_hdiag_tests(t);
}
