/* linattn.h section under development: diag. Included twice by linattn.h:
   once with LA__PART_API defined (declarations, inside the include guard and
   extern "C"), once with LA__PART_IMPL (implementation).

   Curvature and noise diagnostics. Everything spectral works over a symmetric
   matrix-vector callback (la_matvec_fn), so it serves the model's Hessian
   (through la_hvp_matvec) and any other operator alike. Linear algebra inside
   is in double, whatever la_real is: only the callback sees la_real vectors.

   Workspaces follow the model's convention: every function with
   (void *work, size_t bytes) has a size query beside it, and work == NULL
   with bytes == 0 makes the call allocate (and free) its own. */
#if defined(LA__PART_API)

/* ---------------------------------------------------- operators */
/* y = A x for a symmetric A of order n. A non-zero return is passed on as
   the caller's status. */
typedef int (*la_matvec_fn)(void *ctx, int n, const la_real *x, la_real *y);

/* ------------------------------------------ dense symmetric solver */
/* Eigenvalues of the symmetric n x n row-major matrix a (overwritten) in
   ascending order into w; with vecs non-NULL, the unit eigenvectors as the
   rows of vecs (row i belongs to w[i]). Householder tridiagonalization and
   implicit QL, in double. */
LINATTN_DEF size_t la_sym_eig_work_bytes(int n);
LINATTN_DEF int la_sym_eig(int n, double *a, double *w, double *vecs,
                           void *work, size_t bytes);
/* H = (A + A^T)/2 from n matvecs with the unit vectors (H row-major). */
LINATTN_DEF size_t la_dense_from_matvec_work_bytes(int n);
LINATTN_DEF int la_dense_from_matvec(int n, la_matvec_fn f, void *ctx,
                                     double *h, void *work, size_t bytes);

/* ---------------------------------------------------------- Lanczos */
/* Which end of an indefinite spectrum: distinct orderings on purpose. */
enum {
  LA_EIG_LARGEST = 0,  /* largest algebraic, returned descending */
  LA_EIG_SMALLEST = 1, /* smallest algebraic, returned ascending */
  LA_EIG_MAGNITUDE = 2 /* largest |lambda|, returned by descending |.| */
};
/* Zero means the default. */
typedef struct la_lanczos_config {
  int which;     /* LA_EIG_*; 0 -> largest */
  int max_iter;  /* cap on matvecs = Krylov dimension; 0 -> min(n, 20k+200) */
  uint64_t seed; /* stream of every probe vector (la_rng, stream 0x1a2c) */
} la_lanczos_config;
/* Outputs; the caller provides the arrays it wants. */
typedef struct la_eig_out {
  double *values;    /* k Ritz values, required */
  double *residuals; /* k residual norms |beta_m s_m,i| (NULL: not wanted) */
  la_real *vectors;  /* k x n unit Ritz vectors as rows (NULL: not wanted) */
  int matvecs;       /* matvecs used */
  int converged;     /* how many of the k are within the tolerance */
  int restarts;      /* invariant subspaces met and left with a new vector */
} la_eig_out;
/* k eigenvalues of the symmetric operator by Lanczos with full
   reorthogonalization (two classical Gram-Schmidt passes) in double. A pair
   has converged when its residual norm is at most tol * max|Ritz value|;
   the iteration stops when all k have. A breakdown (an invariant Krylov
   subspace) continues from a fresh seeded vector orthogonal to the basis.
   A single starting vector sees one copy of an exactly repeated eigenvalue
   until its invariant subspace is exhausted: the k values returned are then
   the distinct ones, more copies appear only after a restart (see README).
   LA_ENOCONVERGE: the cap was reached; the best estimates are returned. */
LINATTN_DEF size_t la_lanczos_work_bytes(int n, int k,
                                         const la_lanczos_config *cfg);
LINATTN_DEF int la_lanczos(int n, la_matvec_fn f, void *ctx, int k, double tol,
                           const la_lanczos_config *cfg, la_eig_out *out,
                           void *work, size_t bytes);

/* ------------------------------------------- densities and traces */
typedef struct la_slq_config {
  int probes;    /* Rademacher probes; 0 -> 10 */
  int steps;     /* Lanczos steps per probe; 0 -> min(n, 80) */
  uint64_t seed; /* probe stream */
} la_slq_config;
/* Stochastic Lanczos quadrature: probes*steps nodes and weights (weights
   sum to 1; a probe whose Krylov space closes early pads with zero
   weights). The spectral density is sum_i weights[i] delta(x - nodes[i]). */
LINATTN_DEF size_t la_slq_work_bytes(int n, const la_slq_config *cfg);
LINATTN_DEF int la_slq(int n, la_matvec_fn f, void *ctx,
                       const la_slq_config *cfg, double *nodes,
                       double *weights, void *work, size_t bytes);
/* The density smoothed by a Gaussian of width sigma, on ngrid points. */
LINATTN_DEF int la_density_eval(int count, const double *nodes,
                                const double *weights, double sigma,
                                int ngrid, const double *grid, double *out);
/* Weighted median of values (weights NULL: equal weights); work holds
   2*count doubles (NULL, 0: allocated). */
LINATTN_DEF int la_weighted_median(int count, const double *values,
                                   const double *weights, double *median,
                                   void *work, size_t bytes);

enum { LA_TRACE_HUTCHINSON = 0, LA_TRACE_HUTCHPP = 1 };
typedef struct la_trace_config {
  int matvecs;   /* budget; 0 -> 30 */
  int method;    /* LA_TRACE_*; 0 -> Hutchinson (Rademacher probes) */
  uint64_t seed;
} la_trace_config;
/* tr(A) and the standard error of the estimate (Hutch++: of its stochastic
   part; the sketched part is exact for the sketch drawn). */
LINATTN_DEF size_t la_trace_work_bytes(int n, const la_trace_config *cfg);
LINATTN_DEF int la_trace(int n, la_matvec_fn f, void *ctx,
                         const la_trace_config *cfg, double *trace,
                         double *stderr_, void *work, size_t bytes);

/* ---------------------------------------------- the papers' numbers */
/* max |d_i| / median |d_i| (paper A's code, Jiang et al. 2022). */
LINATTN_DEF int la_rcond_diag(int n, const double *diag, double *r,
                              void *work, size_t bytes);
/* lambda_max / lambda_median (paper A's text) of a spectrum given as
   values with weights (NULL: equal); LA_ERANGE if the median is 0. */
LINATTN_DEF int la_rcond_spectrum(int count, const double *values,
                                  const double *weights, double *r,
                                  void *work, size_t bytes);

/* (L0, L1)-smoothness from a trajectory of (||grad||, smoothness) pairs.
   Least squares: s ~ L0 + L1 g. Envelope: the tightest line above every
   pair, minimizing its mean height L0 + L1 mean(g) with L0, L1 >= 0 (a
   two-variable linear program, solved exactly on the upper hull). */
typedef struct la_lsmooth_fit {
  double corr_log;  /* Pearson correlation of (log g, log s) over s, g > 0 */
  int used;         /* pairs with s > 0 and g > 0 */
  double l0_ls, l1_ls;
  double l0_env, l1_env;
} la_lsmooth_fit;
LINATTN_DEF int la_lsmooth(int count, const double *gnorm,
                           const double *smooth, la_lsmooth_fit *fit,
                           void *work, size_t bytes);

/* ----------------------------------------------- noise statistics */
/* x with Phi(x) = p, 0 < p < 1. */
LINATTN_DEF int la_normal_quantile(double p, double *x);
/* Hill's estimate of the tail index from the k largest of count positive
   samples (work: count doubles, or NULL, 0). */
LINATTN_DEF int la_hill(int count, const double *x, int k, double *alpha,
                        void *work, size_t bytes);
typedef struct la_noise_config {
  int bins;   /* histogram bins over [min, max]; 0 -> 100 */
  int hill_k; /* order statistics used by Hill; 0 -> max(2, count/10) */
} la_noise_config;
typedef struct la_noise_stats {
  double mean, var;   /* var with divisor count - 1 */
  double kurtosis;    /* m4 / m2^2 (3 for a Gaussian) */
  double hill_alpha;  /* tail index; its standard error is alpha/sqrt(k) */
  double hill_stderr;
  double min, max;
} la_noise_stats;
/* Summary of count samples. Optional outputs (NULL: skipped): hist (bins
   densities, integrating to 1), edges (bins+1), sorted (the samples in
   ascending order) and gauss (the quantiles of N(mean, var) at the plotting
   positions (i + 0.5)/count, for a QQ plot against sorted). */
LINATTN_DEF int la_noise_summary(int count, const double *x,
                                 const la_noise_config *cfg,
                                 la_noise_stats *st, double *hist,
                                 double *edges, double *sorted, double *gauss,
                                 void *work, size_t bytes);


/* ------------------------------------------------ the model's Hessian */
/* Until the model section is in, its users here are left out. */
#define LA__DIAG_MODEL_PENDING
#if !defined(LA__SKIP_MODEL) && !defined(LA__DIAG_MODEL_PENDING)
/* The model's Hessian as an operator: ctx of la_hvp_matvec. work may be
   NULL with bytes 0 (each product then allocates its own). */
typedef struct la_hvp_op {
  const la_model *model;
  const la_real *theta;
  const la_batch *batch;
  void *work; /* la_model_work_bytes(model) bytes */
  size_t bytes;
} la_hvp_op;
LINATTN_DEF int la_hvp_matvec(void *op, int n, const la_real *x, la_real *y);

/* The exact Hessian (n HVPs, symmetrized, row-major n x n doubles) and its
   exact diagonal (n HVPs, no n x n storage); n = m->nparams. */
LINATTN_DEF size_t la_hessian_work_bytes(const la_model *m);
LINATTN_DEF int la_hessian_dense(const la_model *m, const la_real *theta,
                                 const la_batch *b, double *h, void *work,
                                 size_t bytes);
LINATTN_DEF int la_hessian_diag(const la_model *m, const la_real *theta,
                                const la_batch *b, double *diag, void *work,
                                size_t bytes);
/* la_lanczos over the model's HVP. */
LINATTN_DEF size_t la_hessian_eigs_work_bytes(const la_model *m, int k,
                                              const la_lanczos_config *cfg);
LINATTN_DEF int la_hessian_eigs(const la_model *m, const la_real *theta,
                                const la_batch *b, int k, double tol,
                                const la_lanczos_config *cfg, la_eig_out *out,
                                void *work, size_t bytes);

/* Both robust condition numbers of H(theta) on a batch. Up to dense_max
   parameters the spectrum is exact (dense Hessian); beyond, lambda_max is
   from Lanczos (tolerance 1e-6) and the median from the SLQ density. */
typedef struct la_rcond_config {
  int dense_max;     /* 0 -> 1000 */
  la_slq_config slq; /* the SLQ path; zero -> its defaults */
} la_rcond_config;
typedef struct la_rcond {
  double by_diag;     /* max |H_ii| / median |H_ii| (0 if that median is 0) */
  double by_spectrum; /* lambda_max / lambda_median (0 if that median is 0) */
  double lambda_max, lambda_median;
  int exact;          /* 1: from the dense spectrum */
} la_rcond;
LINATTN_DEF size_t la_rcond_work_bytes(const la_model *m,
                                       const la_rcond_config *cfg);
LINATTN_DEF int la_robust_cond(const la_model *m, const la_real *theta,
                               const la_batch *b, const la_rcond_config *cfg,
                               la_rcond *out, void *work, size_t bytes);

/* Directional smoothness u^T H(theta) u along the step taken,
   u = (theta_next - theta) / ||theta_next - theta||, with ||grad f(theta)||
   from the same pass (the pair la_lsmooth fits). gnorm may be NULL;
   LA_ERANGE if the step is zero. */
LINATTN_DEF size_t la_dir_smoothness_work_bytes(const la_model *m);
LINATTN_DEF int la_dir_smoothness(const la_model *m, const la_real *theta,
                                  const la_real *theta_next, const la_batch *b,
                                  double *smooth, double *gnorm, void *work,
                                  size_t bytes);

/* Gradient noise (paper A): the gradient on true_batch fresh prompts is the
   "true" g (accumulated minibatch by minibatch: the loss is a mean, so the
   chunks' gradients average to it exactly), then `samples` minibatch
   gradients g_B, each on fresh prompts; norms[i] = ||g_B - g||. Summarize
   with la_noise_summary. */
typedef struct la_grad_noise_config {
  int minibatch;  /* 0 -> 1000 */
  int true_batch; /* 0 -> 100 * minibatch */
  int samples;    /* 0 -> 10000 */
} la_grad_noise_config;
LINATTN_DEF size_t la_grad_noise_work_bytes(const la_model *m,
                                            const la_grad_noise_config *cfg);
LINATTN_DEF int la_grad_noise(const la_model *m, const la_real *theta,
                              const la_data *g, la_rng *rng,
                              const la_grad_noise_config *cfg, double *norms,
                              double *true_gnorm, void *work, size_t bytes);
#endif

#elif defined(LA__PART_IMPL)

/* -------------------------------------------------- workspace carving */
/* One walk serves both the size query (base == NULL counts) and the
   carving, so the two can never disagree. */
typedef struct la__arena {
  unsigned char *base;
  size_t used, cap;
} la__arena;

static void *la__take(la__arena *a, size_t bytes) {
  size_t at = (a->used + LA_ALIGN - 1) / LA_ALIGN * LA_ALIGN;
  void *p = a->base ? (void *)(a->base + at) : NULL;
  a->used = at + bytes;
  return p;
}
static la__arena la__arena_count(void) {
  la__arena a;
  a.base = NULL; a.used = 0; a.cap = 0;
  return a;
}
static la__arena la__arena_on(void *work, size_t bytes) {
  la__arena a;
  a.base = (unsigned char *)work; a.used = 0; a.cap = bytes;
  return a;
}
/* The end of a counting walk: its size, padded for the base's alignment. */
static size_t la__arena_size(const la__arena *a) {
  return a->used + LA_ALIGN;
}
/* Aligns the caller's block; false when it is too small. */
static int la__arena_align(la__arena *a) {
  size_t off = (size_t)((uintptr_t)a->base % LA_ALIGN);
  if (off) {
    if (a->cap < LA_ALIGN - off) return 0;
    a->base += LA_ALIGN - off;
    a->cap -= LA_ALIGN - off;
  }
  return 1;
}

/* work == NULL, bytes == 0: allocate `need` (freed by la__work_end). */
static int la__work_begin(size_t need, void **work, size_t *bytes,
                          void **owned) {
  *owned = NULL;
  if (!*work && *bytes == 0) {
#ifndef LINATTN_NO_STDLIB
    *owned = la_alloc(need ? need : 1);
    if (!*owned) return LA_ENOMEM;
    *work = *owned;
    *bytes = need;
    return LA_OK;
#else
    return LA_ENULL;
#endif
  }
  if (!*work) return LA_ENULL;
  if (*bytes < need) return LA_EWORKSPACE;
  return LA_OK;
}
static void la__work_end(void *owned) {
#ifndef LINATTN_NO_STDLIB
  la_free(owned);
#else
  (void)owned;
#endif
}

static int la__finite(double x) { return x - x == 0; }

/* ------------------------------------------------- small dense tools */

static double la__ddot(int n, const double *x, const double *y) {
  double s = 0;
  int i;
  for (i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

/* Heapsort, ascending, of x with an optional companion array carried
   along (libc's qsort would do, but bare-metal builds lack it). */
static void la__sift(double *x, double *c, int root, int end) {
  while (2 * root + 1 < end) {
    int child = 2 * root + 1;
    if (child + 1 < end && x[child + 1] > x[child]) child++;
    if (x[root] >= x[child]) return;
    { double t = x[root]; x[root] = x[child]; x[child] = t; }
    if (c) { double t = c[root]; c[root] = c[child]; c[child] = t; }
    root = child;
  }
}
static void la__sort(int n, double *x, double *c) {
  int i;
  for (i = n / 2 - 1; i >= 0; --i) la__sift(x, c, i, n);
  for (i = n - 1; i > 0; --i) {
    { double t = x[0]; x[0] = x[i]; x[i] = t; }
    if (c) { double t = c[0]; c[0] = c[i]; c[i] = t; }
    la__sift(x, c, 0, i);
  }
}

/* ------------------------------------------- tridiagonal QL (tql2) */
/* Eigen-decomposition of the symmetric tridiagonal matrix with diagonal
   d[0..n-1] and off-diagonal e[0..n-2] (e[n-1] is scratch) by implicit QL
   with Wilkinson-like shifts. d receives the eigenvalues (unsorted). When zt
   is non-NULL its rows are vectors that the plane rotations are applied to:
   start from the identity to get the eigenvectors of T as rows, from Q^T
   to get those of Q T Q^T. */
static int la__tql(int n, double *d, double *e, double *zt) {
  int l, m, i, k, iter;
  if (n <= 0) return LA_OK;
  e[n - 1] = 0;
  for (l = 0; l < n; ++l) {
    iter = 0;
    for (;;) {
      double g, r, s, c, p, f, b;
      for (m = l; m < n - 1; ++m) {
        double dd = fabs(d[m]) + fabs(d[m + 1]);
        if (fabs(e[m]) <= 1.1102230246251565e-16 * dd) break;
      }
      if (m == l) break;
      if (++iter > 60) return LA_ENOCONVERGE;
      g = (d[l + 1] - d[l]) / (2.0 * e[l]);
      r = hypot(g, 1.0);
      g = d[m] - d[l] + e[l] / (g + (g >= 0 ? r : -r));
      s = c = 1.0;
      p = 0.0;
      for (i = m - 1; i >= l; --i) {
        f = s * e[i];
        b = c * e[i];
        r = hypot(f, g);
        e[i + 1] = r;
        if (r == 0.0) { /* deflation in the middle of the sweep */
          d[i + 1] -= p;
          e[m] = 0.0;
          break;
        }
        s = f / r;
        c = g / r;
        g = d[i + 1] - p;
        r = (d[i] - g) * s + 2.0 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        if (zt) {
          double *zi = zt + (size_t)i * n, *zj = zi + n;
          for (k = 0; k < n; ++k) {
            f = zj[k];
            zj[k] = s * zi[k] + c * f;
            zi[k] = c * zi[k] - s * f;
          }
        }
      }
      if (r == 0.0 && i >= l) continue;
      d[l] -= p;
      e[l] = g;
      e[m] = 0.0;
    }
  }
  return LA_OK;
}

/* Sorts eigenvalues ascending, moving the rows of zt (order n x len). */
static void la__sort_pairs(int n, int len, double *w, double *zt) {
  int i, j, k;
  for (i = 0; i < n - 1; ++i) {
    int mi = i;
    for (j = i + 1; j < n; ++j)
      if (w[j] < w[mi]) mi = j;
    if (mi == i) continue;
    { double t = w[i]; w[i] = w[mi]; w[mi] = t; }
    if (zt)
      for (k = 0; k < len; ++k) {
        double t = zt[(size_t)i * len + k];
        zt[(size_t)i * len + k] = zt[(size_t)mi * len + k];
        zt[(size_t)mi * len + k] = t;
      }
  }
}

/* ------------------------------------- Householder tridiagonalization */
/* a = Q T Q^T: on return d, e hold T and qt (if non-NULL) holds Q^T.
   Step k reflects rows/columns k+1.. so that column k below the
   subdiagonal vanishes; v is the reflector, p = beta a v. */
static void la__tridiag(int n, double *a, double *d, double *e, double *qt,
                        double *v, double *p) {
  int i, j, k;
  if (qt)
    for (i = 0; i < n; ++i)
      for (j = 0; j < n; ++j) qt[(size_t)i * n + j] = i == j;
  for (k = 0; k + 2 < n; ++k) {
    int len = n - k - 1;
    double xn = 0, tail = 0, alpha, beta, kk;
    const double *col = a + (size_t)(k + 1) * n + k; /* stride n */
    for (i = 0; i < len; ++i) v[i] = col[(size_t)i * n];
    for (i = 1; i < len; ++i) tail += v[i] * v[i];
    if (tail == 0) continue; /* already tridiagonal here */
    xn = sqrt(tail + v[0] * v[0]);
    alpha = v[0] > 0 ? -xn : xn;
    v[0] -= alpha;
    beta = 2.0 / (tail + v[0] * v[0]);
    for (i = 0; i < len; ++i) {
      const double *row = a + (size_t)(k + 1 + i) * n + k + 1;
      p[i] = beta * la__ddot(len, row, v);
    }
    kk = 0.5 * beta * la__ddot(len, p, v);
    for (i = 0; i < len; ++i) p[i] -= kk * v[i]; /* p is now w */
    for (i = 0; i < len; ++i) {
      double *row = a + (size_t)(k + 1 + i) * n + k + 1;
      for (j = 0; j < len; ++j) row[j] -= v[i] * p[j] + p[i] * v[j];
    }
    for (i = 0; i < len; ++i)
      a[(size_t)(k + 1 + i) * n + k] = a[(size_t)k * n + k + 1 + i] = 0;
    a[(size_t)(k + 1) * n + k] = a[(size_t)k * n + k + 1] = alpha;
    if (qt) { /* Q^T <- H Q^T on rows k+1.. */
      for (j = 0; j < n; ++j) {
        double s = 0;
        for (i = 0; i < len; ++i) s += v[i] * qt[(size_t)(k + 1 + i) * n + j];
        s *= beta;
        for (i = 0; i < len; ++i) qt[(size_t)(k + 1 + i) * n + j] -= s * v[i];
      }
    }
  }
  for (i = 0; i < n; ++i) d[i] = a[(size_t)i * n + i];
  for (i = 0; i + 1 < n; ++i) e[i] = a[(size_t)(i + 1) * n + i];
  if (n > 0) e[n - 1] = 0;
}

static size_t la__sym_eig_walk(la__arena *a, int n, double **e, double **v,
                               double **p, double **qt) {
  *e = (double *)la__take(a, sizeof(double) * (size_t)n);
  *v = (double *)la__take(a, sizeof(double) * (size_t)n);
  *p = (double *)la__take(a, sizeof(double) * (size_t)n);
  *qt = (double *)la__take(a, sizeof(double) * (size_t)n * n);
  return la__arena_size(a);
}

LINATTN_DEF size_t la_sym_eig_work_bytes(int n) {
  la__arena a = la__arena_count();
  double *e, *v, *p, *qt;
  if (n <= 0 || n > 46340) return 0;
  return la__sym_eig_walk(&a, n, &e, &v, &p, &qt);
}

LINATTN_DEF int la_sym_eig(int n, double *a, double *w, double *vecs,
                           void *work, size_t bytes) {
  size_t need = la_sym_eig_work_bytes(n), i;
  void *owned;
  la__arena ar;
  double *e, *v, *p, *qt;
  int st;
  if (!need) return LA_EDIM;
  if (!a || !w) return LA_ENULL;
  for (i = 0; i < (size_t)n * n; ++i)
    if (!la__finite(a[i])) return LA_ENONFINITE;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  la__sym_eig_walk(&ar, n, &e, &v, &p, &qt);
  la__tridiag(n, a, w, e, vecs ? qt : NULL, v, p);
  st = la__tql(n, w, e, vecs ? qt : NULL);
  if (st == LA_OK) {
    la__sort_pairs(n, n, w, vecs ? qt : NULL);
    if (vecs) memcpy(vecs, qt, sizeof(double) * (size_t)n * n);
  }
  la__work_end(owned);
  return st;
}

/* ---------------------------------------------- dense from matvecs */

static int la__check_vec(int n, const la_real *y) {
  int i;
  for (i = 0; i < n; ++i)
    if (!la__finite((double)y[i])) return LA_ENONFINITE;
  return LA_OK;
}

LINATTN_DEF size_t la_dense_from_matvec_work_bytes(int n) {
  la__arena a = la__arena_count();
  if (n <= 0 || n > 46340) return 0;
  la__take(&a, sizeof(la_real) * (size_t)n);
  la__take(&a, sizeof(la_real) * (size_t)n);
  return la__arena_size(&a);
}

LINATTN_DEF int la_dense_from_matvec(int n, la_matvec_fn f, void *ctx,
                                     double *h, void *work, size_t bytes) {
  size_t need = la_dense_from_matvec_work_bytes(n);
  void *owned;
  la__arena ar;
  la_real *x, *y;
  int i, j, st;
  if (!need) return LA_EDIM;
  if (!f || !h) return LA_ENULL;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  x = (la_real *)la__take(&ar, sizeof(la_real) * (size_t)n);
  y = (la_real *)la__take(&ar, sizeof(la_real) * (size_t)n);
  for (i = 0; i < n; ++i) x[i] = 0;
  for (j = 0; j < n && st == LA_OK; ++j) {
    x[j] = 1;
    st = f(ctx, n, x, y);
    if (st == LA_OK) st = la__check_vec(n, y);
    for (i = 0; i < n && st == LA_OK; ++i) h[(size_t)i * n + j] = y[i];
    x[j] = 0;
  }
  /* the product is symmetric only up to rounding: average the halves */
  for (i = 0; i < n && st == LA_OK; ++i)
    for (j = i + 1; j < n; ++j) {
      double s = 0.5 * (h[(size_t)i * n + j] + h[(size_t)j * n + i]);
      h[(size_t)i * n + j] = h[(size_t)j * n + i] = s;
    }
  la__work_end(owned);
  return st;
}

/* ---------------------------------------------------- Lanczos core */
/* The basis V (rows q_0..q_m), alpha, beta and the conversion buffers all
   live in one workspace. The recurrence is in double; only the operator
   sees la_real. */
typedef struct la__lz {
  int n, m;
  la_matvec_fn f;
  void *ctx;
  double *V;           /* (m+1) x n */
  double *alpha, *beta; /* m each */
  double *h;           /* m+1: Gram-Schmidt coefficients */
  la_real *x, *y;      /* n each */
  int j;               /* steps done: T is j x j */
  int matvecs, restarts;
  double anorm;        /* running estimate of ||A|| */
  la_rng rng;
} la__lz;

static void la__lz_walk(la__arena *a, la__lz *s, int n, int m) {
  s->n = n; s->m = m;
  s->V = (double *)la__take(a, sizeof(double) * (size_t)(m + 1) * n);
  s->alpha = (double *)la__take(a, sizeof(double) * (size_t)m);
  s->beta = (double *)la__take(a, sizeof(double) * (size_t)m);
  s->h = (double *)la__take(a, sizeof(double) * (size_t)(m + 1));
  s->x = (la_real *)la__take(a, sizeof(la_real) * (size_t)n);
  s->y = (la_real *)la__take(a, sizeof(la_real) * (size_t)n);
}

/* w -= V[0..rows) (V[0..rows) . w), twice: one pass of classical
   Gram-Schmidt loses orthogonality in proportion to the condition of the
   basis, the second restores it to rounding ("twice is enough"). */
static void la__orth2(la__lz *s, int rows, double *w) {
  int pass, i, k, n = s->n;
  for (pass = 0; pass < 2; ++pass) {
    for (i = 0; i < rows; ++i) s->h[i] = la__ddot(n, s->V + (size_t)i * n, w);
    for (i = 0; i < rows; ++i) {
      const double *q = s->V + (size_t)i * n;
      double c = s->h[i];
      for (k = 0; k < n; ++k) w[k] -= c * q[k];
    }
  }
}

static double la__normalize(int n, double *w) {
  double nr = sqrt(la__ddot(n, w, w));
  int k;
  if (nr > 0)
    for (k = 0; k < n; ++k) w[k] /= nr;
  return nr;
}

/* A fresh unit vector orthogonal to rows 0..rows-1 of V, into row `rows`
   (Gaussian from the seeded stream). False when none is left (rows == n or
   the draws keep falling into the span). */
static int la__lz_fresh(la__lz *s, int rows) {
  double *w = s->V + (size_t)rows * s->n;
  int tries, k;
  if (rows >= s->n) return 0;
  for (tries = 0; tries < 3; ++tries) {
    for (k = 0; k < s->n; ++k) w[k] = la_rng_normal(&s->rng);
    la__normalize(s->n, w);
    la__orth2(s, rows, w);
    if (la__normalize(s->n, w) > 1e-8) return 1;
  }
  return 0;
}

static int la__lz_apply(la__lz *s, const double *q, double *out) {
  int k, st;
  for (k = 0; k < s->n; ++k) s->x[k] = (la_real)q[k];
  st = s->f(s->ctx, s->n, s->x, s->y);
  s->matvecs++;
  if (st) return st;
  if (la__check_vec(s->n, s->y)) return LA_ENONFINITE;
  for (k = 0; k < s->n; ++k) out[k] = s->y[k];
  return LA_OK;
}

/* One step: from q_j (row j of V) to alpha_j, beta_j and q_{j+1}. With
   `restart`, a breakdown continues from a fresh orthogonal vector and
   beta_j = 0 cuts T into blocks; without, *closed says the space is
   invariant (the quadrature is then exact). */
static int la__lz_step(la__lz *s, int restart, int *closed) {
  int n = s->n, j = s->j, k, st;
  double *q = s->V + (size_t)j * n, *w = q + n, a, b;
  /* below this, beta is the operator's own rounding, not a direction */
  double tiny = (sizeof(la_real) == 4 ? 1.2e-7 : 2.3e-16) * 16.0;
  *closed = 0;
  st = la__lz_apply(s, q, w);
  if (st) return st;
  a = la__ddot(n, q, w);
  for (k = 0; k < n; ++k) w[k] -= a * q[k];
  if (j > 0) {
    double bp = s->beta[j - 1];
    const double *qp = q - n;
    for (k = 0; k < n; ++k) w[k] -= bp * qp[k];
  }
  la__orth2(s, j + 1, w);
  b = sqrt(la__ddot(n, w, w));
  s->alpha[j] = a;
  if (fabs(a) > s->anorm) s->anorm = fabs(a);
  if (b > s->anorm) s->anorm = b;
  s->j = j + 1;
  if (b > tiny * s->anorm && j + 1 < n) {
    for (k = 0; k < n; ++k) w[k] /= b;
    s->beta[j] = b;
    return LA_OK;
  }
  s->beta[j] = 0;
  *closed = 2; /* 2: nothing left to continue with */
  if (restart && s->j < s->m && la__lz_fresh(s, s->j)) {
    s->restarts++;
    *closed = 1;
  }
  return LA_OK;
}

static int la__lz_start(la__lz *s, const double *q0) {
  int k;
  s->j = 0;
  s->matvecs = s->restarts = 0;
  s->anorm = 0;
  if (q0) {
    for (k = 0; k < s->n; ++k) s->V[k] = q0[k];
    return la__normalize(s->n, s->V) > 0;
  }
  return la__lz_fresh(s, 0);
}

/* Ritz pairs of T_j: theta in d (ascending), eigenvectors of T as rows of
   zt (j x j), e scratch. */
static int la__lz_ritz(const la__lz *s, double *d, double *e, double *zt) {
  int i, j = s->j, st;
  for (i = 0; i < j; ++i) d[i] = s->alpha[i];
  for (i = 0; i + 1 < j; ++i) e[i] = s->beta[i];
  for (i = 0; i < j * j; ++i) zt[i] = 0;
  for (i = 0; i < j; ++i) zt[(size_t)i * j + i] = 1;
  st = la__tql(j, d, e, zt);
  if (st == LA_OK) la__sort_pairs(j, j, d, zt);
  return st;
}

/* Indices (into the ascending Ritz values) of the k wanted ones, in the
   order they are returned. */
static void la__pick(int which, int j, const double *d, int k, int *idx) {
  int i, lo = 0, hi = j - 1;
  if (which == LA_EIG_SMALLEST) {
    for (i = 0; i < k; ++i) idx[i] = i;
  } else if (which == LA_EIG_LARGEST) {
    for (i = 0; i < k; ++i) idx[i] = j - 1 - i;
  } else { /* merge from both ends of the sorted list */
    for (i = 0; i < k; ++i)
      idx[i] = fabs(d[hi]) >= fabs(d[lo]) ? hi-- : lo++;
  }
}

/* ---------------------------------------------------------- Lanczos */

static int la__lz_cap(int n, int k, const la_lanczos_config *cfg) {
  int m = cfg && cfg->max_iter > 0 ? cfg->max_iter : 20 * k + 200;
  return m < n ? m : n;
}

static size_t la__lanczos_walk(la__arena *a, int n, int m, int k, la__lz *s,
                               double **d, double **e, double **zt,
                               int **idx) {
  la__lz_walk(a, s, n, m);
  *d = (double *)la__take(a, sizeof(double) * (size_t)m);
  *e = (double *)la__take(a, sizeof(double) * (size_t)m);
  *zt = (double *)la__take(a, sizeof(double) * (size_t)m * m);
  *idx = (int *)la__take(a, sizeof(int) * (size_t)k);
  return la__arena_size(a);
}

LINATTN_DEF size_t la_lanczos_work_bytes(int n, int k,
                                         const la_lanczos_config *cfg) {
  la__arena a = la__arena_count();
  la__lz s;
  double *d, *e, *zt;
  int *idx, m;
  if (n <= 0 || k <= 0 || k > n || (cfg && cfg->max_iter < 0)) return 0;
  m = la__lz_cap(n, k, cfg);
  if ((double)(m + 1) * n > 1e12 / sizeof(double)) return 0;
  return la__lanczos_walk(&a, n, m, k, &s, &d, &e, &zt, &idx);
}

/* Ritz values, residual bounds and (optionally) vectors of the picked
   pairs; returns how many are within tolerance. */
static int la__lz_report(const la__lz *s, const double *d, const double *zt,
                         const int *idx, int k, double tol, la_eig_out *out) {
  int i, c, l, ok = 0, j = s->j, n = s->n;
  double scale = 0, blast = s->beta[j - 1];
  for (i = 0; i < j; ++i)
    if (fabs(d[i]) > scale) scale = fabs(d[i]);
  for (i = 0; i < k; ++i) {
    double r = fabs(blast * zt[(size_t)idx[i] * j + j - 1]);
    out->values[i] = d[idx[i]];
    if (out->residuals) out->residuals[i] = r;
    ok += r <= tol * scale;
  }
  if (out->vectors)
    for (i = 0; i < k; ++i) {
      la_real *y = out->vectors + (size_t)i * n;
      for (l = 0; l < n; ++l) {
        double acc = 0;
        for (c = 0; c < j; ++c)
          acc += zt[(size_t)idx[i] * j + c] * s->V[(size_t)c * n + l];
        y[l] = (la_real)acc;
      }
    }
  return ok;
}

/* T's eigen-decomposition costs O(j^3): every step while small, then
   every ~j/8 steps so that it stays a minor share of the work. */
static int la__lz_check_now(int j, int k, int m) {
  if (j < k) return 0;
  if (j >= m || j <= 64) return 1;
  return j % (j / 8) == 0;
}

static int la__lanczos_run(la__lz *s, int k, double tol, int which,
                           double *d, double *e, double *zt, int *idx,
                           la_eig_out *out) {
  int st, closed, done, ok = -1;
  if (!la__lz_start(s, NULL)) return LA_EDIM;
  do {
    st = la__lz_step(s, 1, &closed);
    if (st) return st;
    done = s->j >= s->m || closed == 2;
    if (s->j >= k && (done || la__lz_check_now(s->j, k, s->m))) {
      st = la__lz_ritz(s, d, e, zt);
      if (st) return st;
      la__pick(which, s->j, d, k, idx);
      ok = la__lz_report(s, d, zt, idx, k, tol, out);
      if (ok == k) done = 1;
    }
  } while (!done);
  out->matvecs = s->matvecs;
  out->restarts = s->restarts;
  out->converged = ok < 0 ? 0 : ok;
  return ok == k ? LA_OK : LA_ENOCONVERGE;
}

LINATTN_DEF int la_lanczos(int n, la_matvec_fn f, void *ctx, int k, double tol,
                           const la_lanczos_config *cfg, la_eig_out *out,
                           void *work, size_t bytes) {
  size_t need;
  void *owned;
  la__arena ar;
  la__lz s;
  double *d, *e, *zt;
  int *idx, which = cfg ? cfg->which : 0, st, i;
  if (!f || !out || !out->values) return LA_ENULL;
  if (n <= 0 || k <= 0 || k > n) return LA_EDIM;
  if (!(tol > 0) || !la__finite(tol)) return LA_ERANGE;
  if (which < 0 || which > 2 || (cfg && cfg->max_iter < 0)) return LA_ERANGE;
  need = la_lanczos_work_bytes(n, k, cfg);
  if (!need) return LA_EOVERFLOW;
  out->matvecs = out->converged = out->restarts = 0;
  for (i = 0; i < k; ++i) out->values[i] = 0;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  la__lanczos_walk(&ar, n, la__lz_cap(n, k, cfg), k, &s, &d, &e, &zt, &idx);
  s.f = f; s.ctx = ctx;
  la_rng_seed(&s.rng, cfg ? cfg->seed : 0, 0x1a2c);
  st = la__lanczos_run(&s, k, tol, which, d, e, zt, idx, out);
  la__work_end(owned);
  return st;
}

/* --------------------------------------------------------------- SLQ */

static void la__slq_defaults(int n, const la_slq_config *cfg, int *probes,
                             int *steps) {
  *probes = cfg && cfg->probes > 0 ? cfg->probes : 10;
  *steps = cfg && cfg->steps > 0 ? cfg->steps : 80;
  if (*steps > n) *steps = n;
}

static size_t la__slq_walk(la__arena *a, int n, int m, la__lz *s, double **d,
                           double **e, double **zt, double **q0) {
  la__lz_walk(a, s, n, m);
  *d = (double *)la__take(a, sizeof(double) * (size_t)m);
  *e = (double *)la__take(a, sizeof(double) * (size_t)m);
  *zt = (double *)la__take(a, sizeof(double) * (size_t)m * m);
  *q0 = (double *)la__take(a, sizeof(double) * (size_t)n);
  return la__arena_size(a);
}

LINATTN_DEF size_t la_slq_work_bytes(int n, const la_slq_config *cfg) {
  la__arena a = la__arena_count();
  la__lz s;
  double *d, *e, *zt, *q0;
  int probes, m;
  if (n <= 0 || (cfg && (cfg->probes < 0 || cfg->steps < 0))) return 0;
  la__slq_defaults(n, cfg, &probes, &m);
  if ((double)(m + 1) * n > 1e12 / sizeof(double)) return 0;
  return la__slq_walk(&a, n, m, &s, &d, &e, &zt, &q0);
}

static void la__rademacher(la_rng *r, int n, double *v) {
  int i = 0;
  while (i < n) {
    uint64_t bits = la_rng_u64(r);
    int b;
    for (b = 0; b < 64 && i < n; ++b, ++i) v[i] = (bits >> b) & 1 ? 1.0 : -1.0;
  }
}

/* One probe: nodes are the Ritz values of T, weights the squared first
   components of its eigenvectors (Gauss quadrature for v^T g(A) v). */
static int la__slq_probe(la__lz *s, const double *q0, double *d, double *e,
                         double *zt, double *nodes, double *weights,
                         double scale) {
  int i, st, closed = 0;
  if (!la__lz_start(s, q0)) return LA_EDIM;
  while (s->j < s->m && !closed) {
    st = la__lz_step(s, 0, &closed);
    if (st) return st;
  }
  st = la__lz_ritz(s, d, e, zt);
  if (st) return st;
  for (i = 0; i < s->m; ++i) {
    nodes[i] = i < s->j ? d[i] : 0;
    weights[i] = i < s->j ? scale * zt[(size_t)i * s->j] * zt[(size_t)i * s->j]
                          : 0;
  }
  return LA_OK;
}

LINATTN_DEF int la_slq(int n, la_matvec_fn f, void *ctx,
                       const la_slq_config *cfg, double *nodes,
                       double *weights, void *work, size_t bytes) {
  size_t need = la_slq_work_bytes(n, cfg);
  void *owned;
  la__arena ar;
  la__lz s;
  la_rng rng;
  double *d, *e, *zt, *q0;
  int probes, m, p, st = LA_OK;
  if (!f || !nodes || !weights) return LA_ENULL;
  if (n <= 0) return LA_EDIM;
  if (!need) return LA_ERANGE;
  la__slq_defaults(n, cfg, &probes, &m);
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  la__slq_walk(&ar, n, m, &s, &d, &e, &zt, &q0);
  s.f = f; s.ctx = ctx;
  la_rng_seed(&rng, cfg ? cfg->seed : 0, 0x51c0);
  for (p = 0; p < probes && st == LA_OK; ++p) {
    la__rademacher(&rng, n, q0);
    st = la__slq_probe(&s, q0, d, e, zt, nodes + (size_t)p * m,
                       weights + (size_t)p * m, 1.0 / probes);
  }
  la__work_end(owned);
  return st;
}

LINATTN_DEF int la_density_eval(int count, const double *nodes,
                                const double *weights, double sigma,
                                int ngrid, const double *grid, double *out) {
  int g, i;
  double c;
  if (!nodes || !weights || !grid || !out) return LA_ENULL;
  if (count <= 0 || ngrid <= 0) return LA_EDIM;
  if (!(sigma > 0) || !la__finite(sigma)) return LA_ERANGE;
  c = 1.0 / (sigma * 2.5066282746310002);
  for (g = 0; g < ngrid; ++g) {
    double acc = 0;
    for (i = 0; i < count; ++i) {
      double z = (grid[g] - nodes[i]) / sigma;
      if (weights[i] != 0) acc += weights[i] * exp(-0.5 * z * z);
    }
    out[g] = c * acc;
  }
  return LA_OK;
}

/* Sorted copy of values with its weights; the median is where the running
   weight first reaches half the total. */
LINATTN_DEF int la_weighted_median(int count, const double *values,
                                   const double *weights, double *median,
                                   void *work, size_t bytes) {
  size_t need = sizeof(double) * 2 * (size_t)(count > 0 ? count : 1);
  void *owned;
  double *v, *w, total = 0, run = 0;
  int i, st;
  if (!values || !median) return LA_ENULL;
  if (count <= 0) return LA_EDIM;
  for (i = 0; i < count; ++i)
    if (!la__finite(values[i]) || (weights && (!la__finite(weights[i]) ||
                                               weights[i] < 0)))
      return LA_ENONFINITE;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  v = (double *)work;
  w = v + count;
  for (i = 0; i < count; ++i) {
    v[i] = values[i];
    w[i] = weights ? weights[i] : 1.0;
    total += w[i];
  }
  if (!(total > 0)) { la__work_end(owned); return LA_ERANGE; }
  la__sort(count, v, w);
  *median = v[count - 1];
  for (i = 0; i < count; ++i) {
    run += w[i];
    if (run >= 0.5 * total) {
      /* exactly half: the midpoint, as for an even count of equal weights */
      *median = v[i];
      if (fabs(run - 0.5 * total) <= 1e-12 * total) {
        int nx = i + 1;
        while (nx < count && w[nx] == 0) ++nx;
        if (nx < count) *median = 0.5 * (v[i] + v[nx]);
      }
      break;
    }
  }
  la__work_end(owned);
  return LA_OK;
}

/* ------------------------------------------------------------ traces */

static void la__trace_defaults(const la_trace_config *cfg, int *mv,
                               int *method) {
  *mv = cfg && cfg->matvecs > 0 ? cfg->matvecs : 30;
  *method = cfg ? cfg->method : LA_TRACE_HUTCHINSON;
}

/* Hutch++ splits the budget in thirds: a sketch, its products, probes. */
static int la__hpp_rank(int n, int mv) {
  int s = mv / 3;
  return s < n ? s : n;
}

static size_t la__trace_walk(la__arena *a, int n, int mv, int method,
                             la__lz *s, double **g, double **ag) {
  int rank = method == LA_TRACE_HUTCHPP ? la__hpp_rank(n, mv) : 0;
  /* V holds the orthonormal sketch basis Q (rank rows) */
  la__lz_walk(a, s, n, rank);
  *g = (double *)la__take(a, sizeof(double) * (size_t)n);
  *ag = (double *)la__take(a, sizeof(double) * (size_t)n);
  return la__arena_size(a);
}

LINATTN_DEF size_t la_trace_work_bytes(int n, const la_trace_config *cfg) {
  la__arena a = la__arena_count();
  la__lz s;
  double *g, *ag;
  int mv, method;
  if (n <= 0) return 0;
  la__trace_defaults(cfg, &mv, &method);
  if (method < 0 || method > 1 || (cfg && cfg->matvecs < 0)) return 0;
  if (method == LA_TRACE_HUTCHPP && mv < 3) return 0;
  if (mv < 2) return 0; /* no standard error from one probe */
  return la__trace_walk(&a, n, mv, method, &s, &g, &ag);
}

/* Mean and standard error of z^T B z over `probes` Rademacher z, where B
   is A deflated by the rows of V (none when rank == 0):
   B = (I - Q Q^T) A (I - Q Q^T). */
static int la__hutch(la__lz *s, int rank, int probes, la_rng *rng, double *g,
                     double *ag, double *mean, double *se) {
  double sum = 0, sum2 = 0;
  int p, st, k;
  for (p = 0; p < probes; ++p) {
    double t;
    la__rademacher(rng, s->n, g);
    if (rank) la__orth2(s, rank, g);
    st = la__lz_apply(s, g, ag);
    if (st) return st;
    if (rank) la__orth2(s, rank, ag);
    t = la__ddot(s->n, g, ag);
    sum += t;
    sum2 += t * t;
  }
  *mean = sum / probes;
  k = probes;
  *se = k > 1 ? sqrt(fmax(0.0, (sum2 - sum * sum / k) / (k - 1)) / k) : 0;
  return LA_OK;
}

/* tr(Q^T A Q) + Hutchinson on the deflated remainder (Meyer, Musco, Musco,
   Woodruff 2021). Q spans A S for a Rademacher sketch S. */
static int la__hutchpp(la__lz *s, int rank, int probes, la_rng *rng,
                       double *g, double *ag, double *tr, double *se) {
  int i, st, kept = 0;
  double exact = 0, rest;
  for (i = 0; i < rank; ++i) {
    double *row = s->V + (size_t)kept * s->n;
    la__rademacher(rng, s->n, g);
    st = la__lz_apply(s, g, row);
    if (st) return st;
    la__normalize(s->n, row);
    la__orth2(s, kept, row);
    if (la__normalize(s->n, row) > 1e-8) kept++;
  }
  for (i = 0; i < kept; ++i) {
    const double *q = s->V + (size_t)i * s->n;
    st = la__lz_apply(s, q, ag);
    if (st) return st;
    exact += la__ddot(s->n, q, ag);
  }
  st = la__hutch(s, kept, probes, rng, g, ag, &rest, se);
  *tr = exact + rest;
  return st;
}

LINATTN_DEF int la_trace(int n, la_matvec_fn f, void *ctx,
                         const la_trace_config *cfg, double *trace,
                         double *stderr_, void *work, size_t bytes) {
  size_t need;
  void *owned;
  la__arena ar;
  la__lz s;
  la_rng rng;
  double *g, *ag, se = 0;
  int mv, method, st;
  if (!f || !trace) return LA_ENULL;
  if (n <= 0) return LA_EDIM;
  need = la_trace_work_bytes(n, cfg);
  if (!need) return LA_ERANGE;
  la__trace_defaults(cfg, &mv, &method);
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  la__trace_walk(&ar, n, mv, method, &s, &g, &ag);
  s.f = f; s.ctx = ctx; s.matvecs = 0;
  la_rng_seed(&rng, cfg ? cfg->seed : 0, 0x7ace);
  if (method == LA_TRACE_HUTCHPP) {
    int rank = la__hpp_rank(n, mv);
    st = la__hutchpp(&s, rank, mv - 2 * rank, &rng, g, ag, trace, &se);
  } else {
    st = la__hutch(&s, 0, mv, &rng, g, ag, trace, &se);
  }
  if (stderr_) *stderr_ = se;
  la__work_end(owned);
  return st;
}

/* ------------------------------------------- robust condition numbers */

LINATTN_DEF int la_rcond_diag(int n, const double *diag, double *r,
                              void *work, size_t bytes) {
  size_t need = sizeof(double) * 3 * (size_t)(n > 0 ? n : 1);
  void *owned;
  double *a, mx = 0, med;
  int i, st;
  if (!diag || !r) return LA_ENULL;
  if (n <= 0) return LA_EDIM;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  a = (double *)work;
  for (i = 0; i < n; ++i) {
    a[i] = fabs(diag[i]);
    if (!la__finite(a[i])) { la__work_end(owned); return LA_ENONFINITE; }
    if (a[i] > mx) mx = a[i];
  }
  st = la_weighted_median(n, a, NULL, &med, a + n, sizeof(double) * 2 * n);
  la__work_end(owned);
  if (st) return st;
  if (!(med > 0)) return LA_ERANGE;
  *r = mx / med;
  return LA_OK;
}

LINATTN_DEF int la_rcond_spectrum(int count, const double *values,
                                  const double *weights, double *r,
                                  void *work, size_t bytes) {
  double mx, med;
  int i, st;
  if (!values || !r) return LA_ENULL;
  if (count <= 0) return LA_EDIM;
  st = la_weighted_median(count, values, weights, &med, work, bytes);
  if (st) return st;
  mx = -HUGE_VAL;
  for (i = 0; i < count; ++i)
    if ((!weights || weights[i] > 0) && values[i] > mx) mx = values[i];
  if (med == 0) return LA_ERANGE;
  *r = mx / med;
  return LA_OK;
}

/* ------------------------------------------- generalized smoothness */

/* Height above g = gbar of the lowest line over every pair with slope l1
   and nonnegative intercept: phi(l1) = max(0, max_i s_i - l1 g_i) + l1 gbar,
   convex and piecewise linear in l1. */
static double la__env_cost(int count, const double *g, const double *s,
                           double l1, double gbar, double *l0) {
  double h = 0;
  int i;
  for (i = 0; i < count; ++i)
    if (s[i] - l1 * g[i] > h) h = s[i] - l1 * g[i];
  *l0 = h;
  return h + l1 * gbar;
}

/* phi turns only where the binding pair changes, at the slopes of the
   upper convex hull of the pairs, or where the intercept reaches 0
   (l1 = max s_i/g_i): its minimum over l1 >= 0 is at one of those or at 0.
   gs, ss: the pairs sorted by g, overwritten by the hull. */
static void la__envelope(int count, const double *g, const double *s,
                         double *gs, double *ss, double *l0, double *l1) {
  double gbar = 0, best, c, t0, cand, through0 = 0;
  int i, h = 0;
  for (i = 0; i < count; ++i) {
    gbar += g[i];
    gs[i] = g[i]; ss[i] = s[i];
    if (g[i] > 0 && s[i] / g[i] > through0) through0 = s[i] / g[i];
  }
  gbar /= count;
  la__sort(count, gs, ss);
  for (i = 0; i < count; ++i) { /* monotone chain, kept in place */
    while (h >= 2 && (gs[h - 1] - gs[h - 2]) * (ss[i] - ss[h - 2]) -
                             (ss[h - 1] - ss[h - 2]) * (gs[i] - gs[h - 2]) >=
                         0)
      --h;
    gs[h] = gs[i]; ss[h] = ss[i]; ++h;
  }
  *l1 = 0;
  best = la__env_cost(count, g, s, 0, gbar, l0);
  for (i = 0; i <= h; ++i) {
    if (i < h - 1) {
      if (!(gs[i + 1] > gs[i])) continue;
      cand = (ss[i + 1] - ss[i]) / (gs[i + 1] - gs[i]);
    } else if (i == h - 1) {
      continue;
    } else {
      cand = through0;
    }
    if (!(cand > 0)) continue;
    c = la__env_cost(count, g, s, cand, gbar, &t0);
    if (c < best) { best = c; *l1 = cand; *l0 = t0; }
  }
}

LINATTN_DEF int la_lsmooth(int count, const double *gnorm,
                           const double *smooth, la_lsmooth_fit *fit,
                           void *work, size_t bytes) {
  double mg = 0, ms = 0, sgg = 0, sgs = 0, lx = 0, ly = 0, sxx = 0, syy = 0,
         sxy = 0;
  int i, used = 0, st;
  void *owned;
  if (!gnorm || !smooth || !fit) return LA_ENULL;
  if (count < 2) return LA_EDIM;
  for (i = 0; i < count; ++i)
    if (!la__finite(gnorm[i]) || !la__finite(smooth[i]) || gnorm[i] < 0)
      return LA_ENONFINITE;
  for (i = 0; i < count; ++i) { mg += gnorm[i]; ms += smooth[i]; }
  mg /= count; ms /= count;
  for (i = 0; i < count; ++i) {
    sgg += (gnorm[i] - mg) * (gnorm[i] - mg);
    sgs += (gnorm[i] - mg) * (smooth[i] - ms);
  }
  fit->l1_ls = sgg > 0 ? sgs / sgg : 0;
  fit->l0_ls = ms - fit->l1_ls * mg;
  for (i = 0; i < count; ++i)
    if (gnorm[i] > 0 && smooth[i] > 0) {
      lx += log(gnorm[i]); ly += log(smooth[i]); used++;
    }
  fit->used = used;
  fit->corr_log = 0;
  if (used >= 2) {
    lx /= used; ly /= used;
    for (i = 0; i < count; ++i)
      if (gnorm[i] > 0 && smooth[i] > 0) {
        double a = log(gnorm[i]) - lx, b = log(smooth[i]) - ly;
        sxx += a * a; syy += b * b; sxy += a * b;
      }
    if (sxx > 0 && syy > 0) fit->corr_log = sxy / sqrt(sxx * syy);
  }
  st = la__work_begin(sizeof(double) * 2 * (size_t)count, &work, &bytes,
                      &owned);
  if (st) return st;
  la__envelope(count, gnorm, smooth, (double *)work, (double *)work + count,
               &fit->l0_env, &fit->l1_env);
  la__work_end(owned);
  return LA_OK;
}

/* ------------------------------------------------ noise statistics */

LINATTN_DEF int la_normal_quantile(double p, double *x) {
  double lo = -40, hi = 40, z = 0;
  int it;
  if (!x) return LA_ENULL;
  if (!(p > 0 && p < 1)) return LA_ERANGE;
  /* Newton on Phi(z) = p, kept inside a shrinking bracket */
  for (it = 0; it < 200; ++it) {
    double cdf = 0.5 * erfc(-z * 0.70710678118654752), pdf, step, nz;
    if (cdf < p) lo = z; else hi = z;
    pdf = 0.39894228040143268 * exp(-0.5 * z * z);
    step = pdf > 0 ? (cdf - p) / pdf : 0;
    nz = z - step;
    if (!(nz > lo && nz < hi)) nz = 0.5 * (lo + hi);
    if (fabs(nz - z) <= 1e-15 * (1 + fabs(z))) { z = nz; break; }
    z = nz;
  }
  *x = z;
  return LA_OK;
}

/* x sorted descending in its first k+1 entries is enough: a full sort. */
static double la__hill_sorted(int count, const double *asc, int k) {
  double s = 0, ref = asc[count - 1 - k];
  int i;
  for (i = 0; i < k; ++i) s += log(asc[count - 1 - i] / ref);
  return s > 0 ? k / s : HUGE_VAL;
}

LINATTN_DEF int la_hill(int count, const double *x, int k, double *alpha,
                        void *work, size_t bytes) {
  size_t need = sizeof(double) * (size_t)(count > 0 ? count : 1);
  void *owned;
  double *v;
  int i, st;
  if (!x || !alpha) return LA_ENULL;
  if (count < 2) return LA_EDIM;
  if (k < 1 || k >= count) return LA_ERANGE;
  for (i = 0; i < count; ++i)
    if (!la__finite(x[i])) return LA_ENONFINITE;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  v = (double *)work;
  memcpy(v, x, need);
  la__sort(count, v, NULL);
  if (!(v[count - 1 - k] > 0)) st = LA_ERANGE;
  else *alpha = la__hill_sorted(count, v, k);
  if (st == LA_OK && !la__finite(*alpha)) st = LA_ERANGE;
  la__work_end(owned);
  return st;
}

static void la__moments(int count, const double *x, la_noise_stats *st) {
  double m = 0, m2 = 0, m4 = 0;
  int i;
  st->min = st->max = x[0];
  for (i = 0; i < count; ++i) {
    m += x[i];
    if (x[i] < st->min) st->min = x[i];
    if (x[i] > st->max) st->max = x[i];
  }
  m /= count;
  for (i = 0; i < count; ++i) {
    double c = (x[i] - m) * (x[i] - m);
    m2 += c; m4 += c * c;
  }
  st->mean = m;
  st->var = count > 1 ? m2 / (count - 1) : 0;
  m2 /= count; m4 /= count;
  st->kurtosis = m2 > 0 ? m4 / (m2 * m2) : 0;
}

static void la__histogram(int count, const double *x, int bins, double lo,
                          double hi, double *hist, double *edges) {
  double width = (hi - lo) / bins;
  int i;
  if (!(width > 0)) width = 1; /* all samples equal: one unit-wide bin row */
  if (edges)
    for (i = 0; i <= bins; ++i) edges[i] = lo + i * width;
  if (!hist) return;
  for (i = 0; i < bins; ++i) hist[i] = 0;
  for (i = 0; i < count; ++i) {
    int b = (int)((x[i] - lo) / width);
    if (b >= bins) b = bins - 1;
    if (b < 0) b = 0;
    hist[b] += 1.0;
  }
  for (i = 0; i < bins; ++i) hist[i] /= count * width;
}

LINATTN_DEF int la_noise_summary(int count, const double *x,
                                 const la_noise_config *cfg,
                                 la_noise_stats *st, double *hist,
                                 double *edges, double *sorted, double *gauss,
                                 void *work, size_t bytes) {
  int bins = cfg && cfg->bins > 0 ? cfg->bins : 100, k, i, s;
  void *owned = NULL;
  double *v;
  if (!x || !st) return LA_ENULL;
  if (count < 2) return LA_EDIM;
  if (cfg && (cfg->bins < 0 || cfg->hill_k < 0 || cfg->hill_k >= count))
    return LA_ERANGE;
  k = cfg && cfg->hill_k > 0 ? cfg->hill_k : count / 10;
  if (k < 2) k = count > 2 ? 2 : 1;
  for (i = 0; i < count; ++i)
    if (!la__finite(x[i])) return LA_ENONFINITE;
  if (sorted) {
    v = sorted;
  } else {
    s = la__work_begin(sizeof(double) * (size_t)count, &work, &bytes, &owned);
    if (s) return s;
    v = (double *)work;
  }
  memcpy(v, x, sizeof(double) * (size_t)count);
  la__sort(count, v, NULL);
  la__moments(count, v, st);
  la__histogram(count, x, bins, st->min, st->max, hist, edges);
  st->hill_alpha = v[count - 1 - k] > 0 ? la__hill_sorted(count, v, k) : 0;
  st->hill_stderr = st->hill_alpha / sqrt((double)k);
  if (gauss)
    for (i = 0; i < count; ++i) {
      double z;
      la_normal_quantile((i + 0.5) / count, &z);
      gauss[i] = st->mean + sqrt(st->var) * z;
    }
  la__work_end(owned);
  return LA_OK;
}


/* ------------------------------------------------ the model's Hessian */
#if !defined(LA__SKIP_MODEL) && !defined(LA__DIAG_MODEL_PENDING)

LINATTN_DEF int la_hvp_matvec(void *op_, int n, const la_real *x, la_real *y) {
  la_hvp_op *op = (la_hvp_op *)op_;
  if (!op || !op->model || !x || !y) return LA_ENULL;
  if (n != op->model->nparams) return LA_EDIM;
  return la_model_hvp(op->model, op->theta, op->batch, x, NULL, NULL, y,
                      op->work, op->bytes);
}

/* The model's workspace first, then what the caller of the walk adds. */
static void *la__model_take(la__arena *a, const la_model *m, size_t *mb) {
  *mb = la_model_work_bytes(m);
  return la__take(a, *mb);
}

static int la__check_model(const la_model *m, const la_real *theta,
                           const la_batch *b) {
  if (!m || !theta || !b) return LA_ENULL;
  if (m->nparams <= 0) return LA_EDIM;
  if (b->d != m->cfg.d || b->n != m->cfg.n) return LA_ESHAPE;
  return LA_OK;
}

LINATTN_DEF size_t la_hessian_work_bytes(const la_model *m) {
  la__arena a = la__arena_count();
  size_t mb;
  if (!m || m->nparams <= 0) return 0;
  la__model_take(&a, m, &mb);
  la__take(&a, la_dense_from_matvec_work_bytes(m->nparams));
  return la__arena_size(&a);
}

/* Sets up op on the caller's (or an owned) block: the model workspace and
   `extra`, the rest for the operation. */
static int la__hess_begin(const la_model *m, const la_real *theta,
                          const la_batch *b, size_t need, void **work,
                          size_t *bytes, void **owned, la__arena *ar,
                          la_hvp_op *op) {
  int st = la__check_model(m, theta, b);
  if (st) return st;
  if (!need) return LA_EDIM;
  st = la__work_begin(need, work, bytes, owned);
  if (st) return st;
  *ar = la__arena_on(*work, *bytes);
  if (!la__arena_align(ar)) { la__work_end(*owned); return LA_EWORKSPACE; }
  op->model = m; op->theta = theta; op->batch = b;
  op->work = la__model_take(ar, m, &op->bytes);
  return LA_OK;
}

LINATTN_DEF int la_hessian_dense(const la_model *m, const la_real *theta,
                                 const la_batch *b, double *h, void *work,
                                 size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  size_t need = la_hessian_work_bytes(m), rest;
  int st;
  if (!h) return LA_ENULL;
  st = la__hess_begin(m, theta, b, need, &work, &bytes, &owned, &ar, &op);
  if (st) return st;
  rest = la_dense_from_matvec_work_bytes(m->nparams);
  st = la_dense_from_matvec(m->nparams, la_hvp_matvec, &op, h,
                            la__take(&ar, rest), rest);
  la__work_end(owned);
  return st;
}

LINATTN_DEF int la_hessian_diag(const la_model *m, const la_real *theta,
                                const la_batch *b, double *diag, void *work,
                                size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  la_real *x, *y;
  int i, n, st;
  if (!diag) return LA_ENULL;
  st = la__hess_begin(m, theta, b, la_hessian_work_bytes(m), &work, &bytes,
                      &owned, &ar, &op);
  if (st) return st;
  n = m->nparams;
  x = (la_real *)la__take(&ar, sizeof(la_real) * (size_t)n);
  y = (la_real *)la__take(&ar, sizeof(la_real) * (size_t)n);
  for (i = 0; i < n; ++i) x[i] = 0;
  for (i = 0; i < n && st == LA_OK; ++i) {
    x[i] = 1;
    st = la_hvp_matvec(&op, n, x, y);
    if (st == LA_OK && !la__finite((double)y[i])) st = LA_ENONFINITE;
    diag[i] = y[i];
    x[i] = 0;
  }
  la__work_end(owned);
  return st;
}

LINATTN_DEF size_t la_hessian_eigs_work_bytes(const la_model *m, int k,
                                              const la_lanczos_config *cfg) {
  la__arena a = la__arena_count();
  size_t mb, lz;
  if (!m || m->nparams <= 0) return 0;
  lz = la_lanczos_work_bytes(m->nparams, k, cfg);
  if (!lz) return 0;
  la__model_take(&a, m, &mb);
  la__take(&a, lz);
  return la__arena_size(&a);
}

LINATTN_DEF int la_hessian_eigs(const la_model *m, const la_real *theta,
                                const la_batch *b, int k, double tol,
                                const la_lanczos_config *cfg, la_eig_out *out,
                                void *work, size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  size_t lz;
  int st;
  if (!out) return LA_ENULL;
  if (m && (k <= 0 || k > m->nparams)) return LA_EDIM;
  if (!(tol > 0) || !la__finite(tol)) return LA_ERANGE;
  st = la__hess_begin(m, theta, b, la_hessian_eigs_work_bytes(m, k, cfg),
                      &work, &bytes, &owned, &ar, &op);
  if (st) return st;
  lz = la_lanczos_work_bytes(m->nparams, k, cfg);
  st = la_lanczos(m->nparams, la_hvp_matvec, &op, k, tol, cfg, out,
                  la__take(&ar, lz), lz);
  la__work_end(owned);
  return st;
}

/* ------------------------------------------ robust condition (model) */

static int la__rcond_dense(const la_rcond_config *cfg, int n) {
  int mx = cfg && cfg->dense_max > 0 ? cfg->dense_max : 1000;
  return n <= mx;
}

/* Layout after the model's workspace: diag (n), then either the dense path
   (H, spectrum, room for the eigensolver or the dense_from_matvec buffers)
   or the iterative one (SLQ nodes and weights, room for the largest of the
   SLQ, Lanczos and median workspaces). */
static void la__rcond_walk(la__arena *a, int n, const la_rcond_config *cfg,
                           double **diag, double **h, double **w,
                           double **nodes, double **weights, void **sub,
                           size_t *subb) {
  *diag = (double *)la__take(a, sizeof(double) * (size_t)n);
  *h = *w = *nodes = *weights = NULL;
  if (la__rcond_dense(cfg, n)) {
    size_t e1 = la_sym_eig_work_bytes(n), e2 = la_dense_from_matvec_work_bytes(n);
    *h = (double *)la__take(a, sizeof(double) * (size_t)n * n);
    *w = (double *)la__take(a, sizeof(double) * (size_t)n);
    *subb = e1 > e2 ? e1 : e2;
  } else {
    int probes, steps;
    size_t e1, e2;
    la__slq_defaults(n, cfg ? &cfg->slq : NULL, &probes, &steps);
    *nodes = (double *)la__take(a, sizeof(double) * (size_t)probes * steps);
    *weights = (double *)la__take(a, sizeof(double) * (size_t)probes * steps);
    e1 = la_slq_work_bytes(n, cfg ? &cfg->slq : NULL);
    e2 = la_lanczos_work_bytes(n, 1, NULL);
    *subb = e1 > e2 ? e1 : e2;
    e1 = sizeof(double) * 2 * (size_t)(probes * steps > n ? probes * steps : n);
    if (e1 > *subb) *subb = e1;
  }
  if (sizeof(double) * 3 * (size_t)n > *subb) *subb = sizeof(double) * 3 * (size_t)n;
  *sub = la__take(a, *subb);
}

LINATTN_DEF size_t la_rcond_work_bytes(const la_model *m,
                                       const la_rcond_config *cfg) {
  la__arena a = la__arena_count();
  double *d, *h, *w, *nd, *wt;
  void *sub;
  size_t subb, mb;
  if (!m || m->nparams <= 0) return 0;
  if (cfg && (cfg->dense_max < 0 || cfg->slq.probes < 0 || cfg->slq.steps < 0))
    return 0;
  la__model_take(&a, m, &mb);
  la__rcond_walk(&a, m->nparams, cfg, &d, &h, &w, &nd, &wt, &sub, &subb);
  return la__arena_size(&a);
}

/* The exact diagonal by unit-vector products; x, y in sub. */
static int la__hvp_diag(la_hvp_op *op, int n, double *diag, void *sub) {
  la_real *x = (la_real *)sub, *y = x + n;
  int i, st = LA_OK;
  for (i = 0; i < n; ++i) x[i] = 0;
  for (i = 0; i < n && st == LA_OK; ++i) {
    x[i] = 1;
    st = la_hvp_matvec(op, n, x, y);
    if (st == LA_OK && !la__finite((double)y[i])) st = LA_ENONFINITE;
    diag[i] = y[i];
    x[i] = 0;
  }
  return st;
}

/* lambda_max by Lanczos, the median from the SLQ density. */
static int la__rcond_iterative(la_hvp_op *op, int n,
                               const la_rcond_config *cfg, double *nodes,
                               double *weights, void *sub, size_t subb,
                               la_rcond *out) {
  int probes, steps, st;
  double lmax = 0;
  la_eig_out eo;
  memset(&eo, 0, sizeof eo);
  eo.values = &lmax;
  st = la_lanczos(n, la_hvp_matvec, op, 1, 1e-6, NULL, &eo, sub, subb);
  if (st && st != LA_ENOCONVERGE) return st;
  out->lambda_max = lmax;
  st = la_slq(n, la_hvp_matvec, op, cfg ? &cfg->slq : NULL, nodes, weights,
              sub, subb);
  if (st) return st;
  la__slq_defaults(n, cfg ? &cfg->slq : NULL, &probes, &steps);
  return la_weighted_median(probes * steps, nodes, weights,
                            &out->lambda_median, sub, subb);
}

static int la__rcond_exact(la_hvp_op *op, int n, double *h, double *w,
                           double *diag, void *sub, size_t subb,
                           la_rcond *out) {
  int i, st = la_dense_from_matvec(n, la_hvp_matvec, op, h, sub, subb);
  for (i = 0; i < n && st == LA_OK; ++i) diag[i] = h[(size_t)i * n + i];
  if (st == LA_OK) st = la_sym_eig(n, h, w, NULL, sub, subb);
  if (st) return st;
  out->lambda_max = w[n - 1];
  return la_weighted_median(n, w, NULL, &out->lambda_median, sub, subb);
}

LINATTN_DEF int la_robust_cond(const la_model *m, const la_real *theta,
                               const la_batch *b, const la_rcond_config *cfg,
                               la_rcond *out, void *work, size_t bytes) {
  void *owned, *sub;
  la__arena ar;
  la_hvp_op op;
  double *diag, *h, *w, *nodes, *weights, r;
  size_t subb;
  int n, st;
  if (!out) return LA_ENULL;
  if (cfg && (cfg->dense_max < 0 || cfg->slq.probes < 0 || cfg->slq.steps < 0))
    return LA_ERANGE;
  st = la__hess_begin(m, theta, b, la_rcond_work_bytes(m, cfg), &work, &bytes,
                      &owned, &ar, &op);
  if (st) return st;
  n = m->nparams;
  la__rcond_walk(&ar, n, cfg, &diag, &h, &w, &nodes, &weights, &sub, &subb);
  memset(out, 0, sizeof *out);
  out->exact = h != NULL;
  if (h) {
    st = la__rcond_exact(&op, n, h, w, diag, sub, subb, out);
  } else {
    st = la__hvp_diag(&op, n, diag, sub);
    if (st == LA_OK)
      st = la__rcond_iterative(&op, n, cfg, nodes, weights, sub, subb, out);
  }
  if (st == LA_OK && out->lambda_median != 0)
    out->by_spectrum = out->lambda_max / out->lambda_median;
  if (st == LA_OK && la_rcond_diag(n, diag, &r, sub, subb) == LA_OK)
    out->by_diag = r;
  la__work_end(owned);
  return st;
}

/* ------------------------------------------- directional smoothness */

LINATTN_DEF size_t la_dir_smoothness_work_bytes(const la_model *m) {
  la__arena a = la__arena_count();
  size_t mb;
  if (!m || m->nparams <= 0) return 0;
  la__model_take(&a, m, &mb);
  la__take(&a, sizeof(la_real) * 3 * (size_t)m->nparams);
  return la__arena_size(&a);
}

LINATTN_DEF int la_dir_smoothness(const la_model *m, const la_real *theta,
                                  const la_real *theta_next, const la_batch *b,
                                  double *smooth, double *gnorm, void *work,
                                  size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  la_real *u, *hu, *g;
  double nr = 0;
  int i, n, st;
  if (!theta_next || !smooth) return LA_ENULL;
  st = la__hess_begin(m, theta, b, la_dir_smoothness_work_bytes(m), &work,
                      &bytes, &owned, &ar, &op);
  if (st) return st;
  n = m->nparams;
  u = (la_real *)la__take(&ar, sizeof(la_real) * 3 * (size_t)n);
  hu = u + n;
  g = hu + n;
  /* the difference in double: consecutive iterates agree in most digits */
  for (i = 0; i < n; ++i) {
    double dlt = (double)theta_next[i] - (double)theta[i];
    nr += dlt * dlt;
  }
  nr = sqrt(nr);
  if (!(nr > 0) || !la__finite(nr)) {
    la__work_end(owned);
    return la__finite(nr) ? LA_ERANGE : LA_ENONFINITE;
  }
  for (i = 0; i < n; ++i)
    u[i] = (la_real)(((double)theta_next[i] - (double)theta[i]) / nr);
  st = la_model_hvp(m, theta, b, u, NULL, g, hu, op.work, op.bytes);
  if (st == LA_OK && (la__check_vec(n, hu) || la__check_vec(n, g)))
    st = LA_ENONFINITE;
  if (st == LA_OK) {
    *smooth = la_dot(n, u, hu) / la_dot(n, u, u);
    if (gnorm) *gnorm = la_nrm2(n, g);
  }
  la__work_end(owned);
  return st;
}

/* ---------------------------------------------------- gradient noise */

static void la__gnoise_defaults(const la_grad_noise_config *cfg, int *mb,
                                int *tb, int *samples) {
  *mb = cfg && cfg->minibatch > 0 ? cfg->minibatch : 1000;
  *tb = cfg && cfg->true_batch > 0 ? cfg->true_batch : 100 * *mb;
  *samples = cfg && cfg->samples > 0 ? cfg->samples : 10000;
}

static void la__gnoise_walk(la__arena *a, const la_model *m, int mbsz,
                            void **bmem, size_t *bbytes, double **gtrue,
                            la_real **gb) {
  int n = m->nparams;
  *bbytes = la_batch_bytes(m->cfg.d, m->cfg.n, mbsz);
  *bmem = la__take(a, *bbytes);
  *gtrue = (double *)la__take(a, sizeof(double) * (size_t)n);
  *gb = (la_real *)la__take(a, sizeof(la_real) * (size_t)n);
}

LINATTN_DEF size_t la_grad_noise_work_bytes(const la_model *m,
                                            const la_grad_noise_config *cfg) {
  la__arena a = la__arena_count();
  size_t mb, bb;
  void *bm;
  double *gt;
  la_real *gb;
  int mbsz, tb, samples;
  if (!m || m->nparams <= 0) return 0;
  if (cfg && (cfg->minibatch < 0 || cfg->true_batch < 0 || cfg->samples < 0))
    return 0;
  la__gnoise_defaults(cfg, &mbsz, &tb, &samples);
  if (!la_batch_bytes(m->cfg.d, m->cfg.n, mbsz)) return 0;
  la__model_take(&a, m, &mb);
  la__gnoise_walk(&a, m, mbsz, &bm, &bb, &gt, &gb);
  return la__arena_size(&a);
}

/* The gradient on `count` fresh prompts into gb (la_real). */
static int la__fresh_grad(const la_model *m, const la_real *theta,
                          const la_data *g, la_rng *rng, int count,
                          void *bmem, size_t bbytes, la_real *gb,
                          la_hvp_op *op) {
  la_batch b;
  double loss;
  int st = la_batch_init(&b, m->cfg.d, m->cfg.n, count, bmem, bbytes);
  if (st == LA_OK) st = la_data_sample(g, rng, &b);
  if (st == LA_OK)
    st = la_model_grad(m, theta, &b, &loss, gb, op->work, op->bytes);
  if (st == LA_OK && la__check_vec(m->nparams, gb)) st = LA_ENONFINITE;
  return st;
}

LINATTN_DEF int la_grad_noise(const la_model *m, const la_real *theta,
                              const la_data *g, la_rng *rng,
                              const la_grad_noise_config *cfg, double *norms,
                              double *true_gnorm, void *work, size_t bytes) {
  void *owned, *bmem;
  la__arena ar;
  la_hvp_op op;
  size_t bb, need;
  double *gt;
  la_real *gb;
  int mbsz, tb, samples, n, i, s, done, st;
  if (!m || !theta || !g || !rng || !norms) return LA_ENULL;
  if (cfg && (cfg->minibatch < 0 || cfg->true_batch < 0 || cfg->samples < 0))
    return LA_ERANGE;
  need = la_grad_noise_work_bytes(m, cfg);
  if (!need) return LA_EDIM;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  la__gnoise_defaults(cfg, &mbsz, &tb, &samples);
  n = m->nparams;
  op.work = la__model_take(&ar, m, &op.bytes);
  la__gnoise_walk(&ar, m, mbsz, &bmem, &bb, &gt, &gb);
  for (i = 0; i < n; ++i) gt[i] = 0;
  /* the true gradient, chunk by chunk, weighted by each chunk's share */
  for (done = 0; done < tb && st == LA_OK; done += mbsz) {
    int c = tb - done < mbsz ? tb - done : mbsz;
    st = la__fresh_grad(m, theta, g, rng, c, bmem, bb, gb, &op);
    for (i = 0; i < n && st == LA_OK; ++i) gt[i] += (double)c / tb * gb[i];
  }
  for (s = 0; s < samples && st == LA_OK; ++s) {
    double acc = 0;
    st = la__fresh_grad(m, theta, g, rng, mbsz, bmem, bb, gb, &op);
    for (i = 0; i < n; ++i) acc += (gb[i] - gt[i]) * (gb[i] - gt[i]);
    norms[s] = sqrt(acc);
  }
  if (st == LA_OK && true_gnorm) *true_gnorm = sqrt(la__ddot(n, gt, gt));
  la__work_end(owned);
  return st;
}

#endif /* LA__SKIP_MODEL */

#endif
