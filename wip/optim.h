/* linattn.h section: optimizers, gradient clipping, learning-rate schedules.
   Included twice by linattn.h: once with LA__PART_API defined (declarations,
   inside the include guard and extern "C"), once with LA__PART_IMPL. */
#if defined(LA__PART_API)

/* ---------------------------------------------------------- optimizers */
/* An optimizer works on the flat parameter vector theta (n reals). Its state
   is an array of doubles: double so that second-moment sums and momenta do
   not lose the small updates a float would round away, and a plain array so
   that checkpoints can write it in a defined byte order.

   The interface is public: the built-in optimizers are values of this type,
   and a new one is a struct of four functions (see examples/).
     check      LA_OK, or LA_ERANGE for a bad configuration
     state_len  doubles of state for n parameters (0 is fine)
     init       set the state before the first step
     step       write the update u (theta_new = theta + u) for gradient g;
                lr_scale multiplies the configured learning rate (it is
                how the schedules act). Must not modify theta or grad.
   cfg may be NULL: every built-in then uses its all-default configuration,
   as for a zeroed struct. */
typedef struct la_optimizer {
  const char *name; /* written into checkpoints, at most 31 bytes */
  int (*check)(const void *cfg);
  size_t (*state_len)(const void *cfg, int n);
  int (*init)(const void *cfg, int n, double *state);
  int (*step)(const void *cfg, int n, double *state, double lr_scale,
              const la_real *theta, const la_real *grad, la_real *update);
} la_optimizer;

/* Zero fields mean the documented default. Negative or non-finite learning
   rates, betas outside [0, 1), eps < 0 and weight decay < 0 are LA_ERANGE.
   A beta of exactly zero cannot be written (zero is the default); any value
   below 1e-300 acts as zero. */

/* SGD: b = momentum * b + (g + wd theta); u = -lr * b, or with Nesterov
   u = -lr * (g + wd theta + momentum * b). Paper A: momentum 0.9. */
typedef struct la_sgd_config {
  double lr;           /* 0 -> 0.01 */
  double momentum;     /* 0 -> none (plain SGD) */
  int nesterov;        /* nonzero: Nesterov momentum (needs momentum > 0) */
  double weight_decay; /* L2 added to the gradient; 0 -> none */
} la_sgd_config;

/* Adam with bias correction; decoupled != 0 is AdamW (decay applied to
   theta directly, u -= lr * wd * theta, instead of through the gradient).
   Paper A: beta1 = beta2 = 0.9, eps = 1e-8; paper B's code: beta1 = 0.99. */
typedef struct la_adam_config {
  double lr;           /* 0 -> 1e-3 */
  double beta1;        /* 0 -> 0.9 */
  double beta2;        /* 0 -> 0.999 (paper A uses 0.9) */
  double eps;          /* 0 -> 1e-8 */
  double weight_decay; /* 0 -> none */
  int decoupled;       /* nonzero: AdamW */
} la_adam_config;

/* Sign descent: b = momentum * b + g; u = -lr * sign(b).
   Normalized SGD: b = momentum * b + g; u = -lr * b / ||b||_2 (0 if b = 0).
   Both add wd * theta to g first. */
typedef struct la_sign_config {
  double lr;           /* 0 -> 1e-3 */
  double momentum;     /* 0 -> none */
  double weight_decay; /* 0 -> none */
} la_sign_config;
typedef la_sign_config la_nsgd_config; /* lr 0 -> 0.01 */

/* Adagrad: G += g^2; u = -lr g / (sqrt(G) + eps). */
typedef struct la_adagrad_config {
  double lr;           /* 0 -> 0.01 */
  double eps;          /* 0 -> 1e-10 */
  double initial;      /* starting value of G; 0 -> 0 */
  double weight_decay; /* 0 -> none */
} la_adagrad_config;

/* RMSprop: v = alpha v + (1 - alpha) g^2; s = g / (sqrt(v) + eps);
   b = momentum b + s; u = -lr b (u = -lr s without momentum). */
typedef struct la_rmsprop_config {
  double lr;           /* 0 -> 0.01 */
  double alpha;        /* 0 -> 0.99 */
  double eps;          /* 0 -> 1e-8 */
  double momentum;     /* 0 -> none */
  double weight_decay; /* 0 -> none */
} la_rmsprop_config;

/* The built-ins; each takes the config named after it (la_sgd_config for
   la_optimizer_sgd, ...; nsgd takes la_nsgd_config = la_sign_config). */
LINATTN_DEF const la_optimizer *la_optimizer_sgd(void);
LINATTN_DEF const la_optimizer *la_optimizer_adam(void);
LINATTN_DEF const la_optimizer *la_optimizer_sign(void);
LINATTN_DEF const la_optimizer *la_optimizer_nsgd(void);
LINATTN_DEF const la_optimizer *la_optimizer_adagrad(void);
LINATTN_DEF const la_optimizer *la_optimizer_rmsprop(void);

/* Checked entry points over any optimizer (built-in or not). */
LINATTN_DEF int la_optim_check(const la_optimizer *o, const void *cfg);
LINATTN_DEF int la_optim_state_len(const la_optimizer *o, const void *cfg,
                                   int n, size_t *len);
LINATTN_DEF int la_optim_init(const la_optimizer *o, const void *cfg, int n,
                              double *state, size_t len);
/* Computes the update into `update` and adds it to theta. A non-finite
   gradient is LA_ENONFINITE and a non-finite update LA_EDIVERGED; theta is
   then unchanged (the state may have advanced: the trainer keeps a copy). */
LINATTN_DEF int la_optim_step(const la_optimizer *o, const void *cfg, int n,
                              double *state, size_t len, double lr_scale,
                              const la_real *grad, la_real *theta,
                              la_real *update);

/* ------------------------------------------------------------ clipping */
/* Scales g so that ||g||_2 <= max_norm, keeping its direction (paper A:
   max_norm = 1). *norm (may be NULL) receives the norm before clipping. */
LINATTN_DEF int la_clip_norm(int n, la_real *g, double max_norm, double *norm);
/* The same for each block (offset, size) of g on its own: paper B clips
   each parameter matrix to 0.01 (blocks from la_model_blocks). */
LINATTN_DEF int la_clip_blocks(int n, la_real *g, int nblocks,
                               const int *offsets, const int *sizes,
                               double max_norm);

/* ----------------------------------------------------------- schedules */
/* The factor multiplying the learning rate at 0-based step t:
     CONSTANT  1
     HALVING   decay^floor(t / period)        (paper B: 0.5 every k steps)
     COSINE    min + (1 - min) (1 + cos(pi p)) / 2, p = (t - warmup) /
               (total - warmup) clamped to [0, 1]
   times the linear warmup (t + 1) / warmup while t < warmup. */
enum { LA_SCHED_CONSTANT = 0, LA_SCHED_HALVING = 1, LA_SCHED_COSINE = 2 };
typedef struct la_schedule {
  int kind;         /* LA_SCHED_*; 0 -> constant */
  long warmup;      /* steps of linear warmup; 0 -> none */
  long period;      /* HALVING: steps between decays (required) */
  double decay;     /* HALVING: factor per period in (0, 1); 0 -> 0.5 */
  long total;       /* COSINE: step where the floor is reached (> warmup) */
  double min_scale; /* COSINE: the floor in [0, 1]; 0 -> 0 */
} la_schedule;
LINATTN_DEF int la_schedule_check(const la_schedule *s);
LINATTN_DEF int la_schedule_scale(const la_schedule *s, long t, double *scale);

#elif defined(LA__PART_IMPL)

/* Finite without isfinite(): inf - inf and NaN - NaN are NaN. */
LA__INLINE int la__op_finite(double x) { return x - x == 0; }

static int la__op_all_finite(int n, const la_real *x) {
  double acc = 0;
  int i;
  /* one sum carries any NaN or Inf; cheaper than a test per entry */
  for (i = 0; i < n; ++i) acc += (double)x[i] * 0.0;
  return acc == 0;
}

static int la__op_bad_lr(double lr) { return !(lr >= 0) || !la__op_finite(lr); }
static int la__op_bad_beta(double b) { return !(b >= 0 && b < 1); }
static int la__op_bad_nonneg(double x) {
  return !(x >= 0) || !la__op_finite(x);
}
static double la__op_or(double x, double dflt) { return x == 0 ? dflt : x; }

/* g + wd * theta, the coupled weight decay shared by the SGD family */
LA__INLINE double la__op_gwd(const la_real *g, const la_real *th, double wd,
                             int i) {
  return (double)g[i] + wd * (double)th[i];
}

/* ---- SGD */

static const la_sgd_config la__sgd_zero = {0, 0, 0, 0};
static const la_sgd_config *la__sgd_cfg(const void *c) {
  return c ? (const la_sgd_config *)c : &la__sgd_zero;
}
static int la__sgd_check(const void *c_) {
  const la_sgd_config *c = la__sgd_cfg(c_);
  if (la__op_bad_lr(c->lr) || la__op_bad_beta(c->momentum) ||
      la__op_bad_nonneg(c->weight_decay))
    return LA_ERANGE;
  if (c->nesterov && c->momentum == 0) return LA_ERANGE;
  return LA_OK;
}
static size_t la__sgd_len(const void *c, int n) {
  return la__sgd_cfg(c)->momentum > 0 ? (size_t)n : 0;
}
static int la__op_zero_init(const void *c, int n, double *s) {
  (void)c;
  (void)n;
  (void)s;
  return LA_OK; /* the wrapper zeroes the state */
}
static int la__sgd_step(const void *c_, int n, double *b, double scale,
                        const la_real *th, const la_real *g, la_real *u) {
  const la_sgd_config *c = la__sgd_cfg(c_);
  double lr = la__op_or(c->lr, 0.01) * scale, mu = c->momentum;
  int i;
  for (i = 0; i < n; ++i) {
    double gi = la__op_gwd(g, th, c->weight_decay, i), d = gi;
    if (mu > 0) {
      b[i] = mu * b[i] + gi;
      d = c->nesterov ? gi + mu * b[i] : b[i];
    }
    u[i] = (la_real)(-lr * d);
  }
  return LA_OK;
}

/* ---- Adam / AdamW: state = [t, m(n), v(n)] */

static const la_adam_config la__adam_zero = {0, 0, 0, 0, 0, 0};
static const la_adam_config *la__adam_cfg(const void *c) {
  return c ? (const la_adam_config *)c : &la__adam_zero;
}
static int la__adam_check(const void *c_) {
  const la_adam_config *c = la__adam_cfg(c_);
  if (la__op_bad_lr(c->lr) || la__op_bad_beta(c->beta1) ||
      la__op_bad_beta(c->beta2) || la__op_bad_nonneg(c->eps) ||
      la__op_bad_nonneg(c->weight_decay))
    return LA_ERANGE;
  return LA_OK;
}
static size_t la__adam_len(const void *c, int n) {
  (void)c;
  return 1 + 2 * (size_t)n;
}
static int la__adam_step(const void *c_, int n, double *s, double scale,
                         const la_real *th, const la_real *g, la_real *u) {
  const la_adam_config *c = la__adam_cfg(c_);
  double lr = la__op_or(c->lr, 1e-3) * scale, b1 = la__op_or(c->beta1, 0.9);
  double b2 = la__op_or(c->beta2, 0.999), eps = la__op_or(c->eps, 1e-8);
  double wd = c->weight_decay, t = s[0] += 1, *m = s + 1, *v = s + 1 + n;
  double c1 = 1 - pow(b1, t), c2 = 1 - pow(b2, t);
  int i;
  for (i = 0; i < n; ++i) {
    double gi = c->decoupled ? (double)g[i] : la__op_gwd(g, th, wd, i);
    m[i] = b1 * m[i] + (1 - b1) * gi;
    v[i] = b2 * v[i] + (1 - b2) * gi * gi;
    u[i] = (la_real)(-lr * ((m[i] / c1) / (sqrt(v[i] / c2) + eps) +
                            (c->decoupled ? wd * (double)th[i] : 0.0)));
  }
  return LA_OK;
}

/* ---- sign descent and normalized SGD: state = b(n) with momentum */

static const la_sign_config la__sign_zero = {0, 0, 0};
static const la_sign_config *la__sign_cfg(const void *c) {
  return c ? (const la_sign_config *)c : &la__sign_zero;
}
static int la__sign_check(const void *c_) {
  const la_sign_config *c = la__sign_cfg(c_);
  if (la__op_bad_lr(c->lr) || la__op_bad_beta(c->momentum) ||
      la__op_bad_nonneg(c->weight_decay))
    return LA_ERANGE;
  return LA_OK;
}
static size_t la__sign_len(const void *c, int n) {
  return la__sign_cfg(c)->momentum > 0 ? (size_t)n : 0;
}
/* The direction before normalization, into u (momentum folded in). */
static void la__sign_dir(const la_sign_config *c, int n, double *b,
                         const la_real *th, const la_real *g, la_real *u) {
  int i;
  for (i = 0; i < n; ++i) {
    double gi = la__op_gwd(g, th, c->weight_decay, i);
    if (c->momentum > 0) gi = b[i] = c->momentum * b[i] + gi;
    u[i] = (la_real)gi;
  }
}
static int la__sign_step(const void *c_, int n, double *b, double scale,
                         const la_real *th, const la_real *g, la_real *u) {
  const la_sign_config *c = la__sign_cfg(c_);
  double lr = la__op_or(c->lr, 1e-3) * scale;
  int i;
  la__sign_dir(c, n, b, th, g, u);
  for (i = 0; i < n; ++i)
    u[i] = (la_real)(u[i] > 0 ? -lr : u[i] < 0 ? lr : 0.0);
  return LA_OK;
}
static int la__nsgd_step(const void *c_, int n, double *b, double scale,
                         const la_real *th, const la_real *g, la_real *u) {
  const la_sign_config *c = la__sign_cfg(c_);
  double lr = la__op_or(c->lr, 0.01) * scale, nrm = 0;
  int i;
  la__sign_dir(c, n, b, th, g, u);
  /* the norm of the double direction, not of its rounded copy in u */
  for (i = 0; i < n; ++i) {
    double di = c->momentum > 0 ? b[i] : (double)u[i];
    nrm += di * di;
  }
  nrm = sqrt(nrm);
  for (i = 0; i < n; ++i) {
    double di = c->momentum > 0 ? b[i] : (double)u[i];
    u[i] = (la_real)(nrm > 0 ? -lr * di / nrm : 0.0);
  }
  return LA_OK;
}

/* ---- Adagrad: state = G(n) */

static const la_adagrad_config la__adagrad_zero = {0, 0, 0, 0};
static const la_adagrad_config *la__adagrad_cfg(const void *c) {
  return c ? (const la_adagrad_config *)c : &la__adagrad_zero;
}
static int la__adagrad_check(const void *c_) {
  const la_adagrad_config *c = la__adagrad_cfg(c_);
  if (la__op_bad_lr(c->lr) || la__op_bad_nonneg(c->eps) ||
      la__op_bad_nonneg(c->initial) || la__op_bad_nonneg(c->weight_decay))
    return LA_ERANGE;
  return LA_OK;
}
static size_t la__adagrad_len(const void *c, int n) {
  (void)c;
  return (size_t)n;
}
static int la__adagrad_init(const void *c, int n, double *s) {
  int i;
  for (i = 0; i < n; ++i) s[i] = la__adagrad_cfg(c)->initial;
  return LA_OK;
}
static int la__adagrad_step(const void *c_, int n, double *G, double scale,
                            const la_real *th, const la_real *g, la_real *u) {
  const la_adagrad_config *c = la__adagrad_cfg(c_);
  double lr = la__op_or(c->lr, 0.01) * scale, eps = la__op_or(c->eps, 1e-10);
  int i;
  for (i = 0; i < n; ++i) {
    double gi = la__op_gwd(g, th, c->weight_decay, i);
    G[i] += gi * gi;
    u[i] = (la_real)(-lr * gi / (sqrt(G[i]) + eps));
  }
  return LA_OK;
}

/* ---- RMSprop: state = v(n), then b(n) with momentum */

static const la_rmsprop_config la__rmsprop_zero = {0, 0, 0, 0, 0};
static const la_rmsprop_config *la__rmsprop_cfg(const void *c) {
  return c ? (const la_rmsprop_config *)c : &la__rmsprop_zero;
}
static int la__rmsprop_check(const void *c_) {
  const la_rmsprop_config *c = la__rmsprop_cfg(c_);
  if (la__op_bad_lr(c->lr) || la__op_bad_beta(c->alpha) ||
      la__op_bad_nonneg(c->eps) || la__op_bad_beta(c->momentum) ||
      la__op_bad_nonneg(c->weight_decay))
    return LA_ERANGE;
  return LA_OK;
}
static size_t la__rmsprop_len(const void *c, int n) {
  return (size_t)n * (la__rmsprop_cfg(c)->momentum > 0 ? 2 : 1);
}
static int la__rmsprop_step(const void *c_, int n, double *v, double scale,
                            const la_real *th, const la_real *g, la_real *u) {
  const la_rmsprop_config *c = la__rmsprop_cfg(c_);
  double lr = la__op_or(c->lr, 0.01) * scale, a = la__op_or(c->alpha, 0.99);
  double eps = la__op_or(c->eps, 1e-8), mu = c->momentum, *b = v + n;
  int i;
  for (i = 0; i < n; ++i) {
    double gi = la__op_gwd(g, th, c->weight_decay, i), si;
    v[i] = a * v[i] + (1 - a) * gi * gi;
    si = gi / (sqrt(v[i]) + eps);
    if (mu > 0) si = b[i] = mu * b[i] + si;
    u[i] = (la_real)(-lr * si);
  }
  return LA_OK;
}

static const la_optimizer la__opt_sgd = {"sgd", la__sgd_check, la__sgd_len,
                                         la__op_zero_init, la__sgd_step};
static const la_optimizer la__opt_adam = {"adam", la__adam_check, la__adam_len,
                                          la__op_zero_init, la__adam_step};
static const la_optimizer la__opt_sign = {"sign", la__sign_check, la__sign_len,
                                          la__op_zero_init, la__sign_step};
static const la_optimizer la__opt_nsgd = {"nsgd", la__sign_check, la__sign_len,
                                          la__op_zero_init, la__nsgd_step};
static const la_optimizer la__opt_adagrad = {"adagrad", la__adagrad_check,
                                             la__adagrad_len, la__adagrad_init,
                                             la__adagrad_step};
static const la_optimizer la__opt_rmsprop = {"rmsprop", la__rmsprop_check,
                                             la__rmsprop_len, la__op_zero_init,
                                             la__rmsprop_step};

LINATTN_DEF const la_optimizer *la_optimizer_sgd(void) { return &la__opt_sgd; }
LINATTN_DEF const la_optimizer *la_optimizer_adam(void) {
  return &la__opt_adam;
}
LINATTN_DEF const la_optimizer *la_optimizer_sign(void) {
  return &la__opt_sign;
}
LINATTN_DEF const la_optimizer *la_optimizer_nsgd(void) {
  return &la__opt_nsgd;
}
LINATTN_DEF const la_optimizer *la_optimizer_adagrad(void) {
  return &la__opt_adagrad;
}
LINATTN_DEF const la_optimizer *la_optimizer_rmsprop(void) {
  return &la__opt_rmsprop;
}

/* ---- the checked entry points */

LINATTN_DEF int la_optim_check(const la_optimizer *o, const void *cfg) {
  if (!o || !o->check || !o->state_len || !o->init || !o->step || !o->name)
    return LA_ENULL;
  return o->check(cfg);
}

LINATTN_DEF int la_optim_state_len(const la_optimizer *o, const void *cfg,
                                   int n, size_t *len) {
  int st = la_optim_check(o, cfg);
  if (st) return st;
  if (!len) return LA_ENULL;
  if (n <= 0) return LA_EDIM;
  *len = o->state_len(cfg, n);
  return LA_OK;
}

LINATTN_DEF int la_optim_init(const la_optimizer *o, const void *cfg, int n,
                              double *state, size_t len) {
  size_t need, i;
  int st = la_optim_state_len(o, cfg, n, &need);
  if (st) return st;
  if (len < need) return LA_EWORKSPACE;
  if (need && !state) return LA_ENULL;
  for (i = 0; i < need; ++i) state[i] = 0;
  return o->init(cfg, n, state);
}

LINATTN_DEF int la_optim_step(const la_optimizer *o, const void *cfg, int n,
                              double *state, size_t len, double lr_scale,
                              const la_real *grad, la_real *theta,
                              la_real *update) {
  size_t need;
  int i, st = la_optim_state_len(o, cfg, n, &need);
  if (st) return st;
  if (!grad || !theta || !update || (need && !state)) return LA_ENULL;
  if (len < need) return LA_EWORKSPACE;
  if (!(lr_scale >= 0) || !la__op_finite(lr_scale)) return LA_ERANGE;
  if (!la__op_all_finite(n, grad)) return LA_ENONFINITE;
  st = o->step(cfg, n, state, lr_scale, theta, grad, update);
  if (st) return st;
  if (!la__op_all_finite(n, update)) return LA_EDIVERGED;
  for (i = 0; i < n; ++i) theta[i] += update[i];
  return LA_OK;
}

/* ------------------------------------------------------------ clipping */

static double la__op_norm_d(int n, const la_real *x) {
  double s = 0;
  int i;
  for (i = 0; i < n; ++i) s += (double)x[i] * x[i];
  return sqrt(s);
}

static void la__op_clip(int n, la_real *g, double max_norm, double nrm) {
  int i;
  if (nrm > max_norm) {
    double f = max_norm / nrm;
    for (i = 0; i < n; ++i) g[i] = (la_real)(g[i] * f);
  }
}

LINATTN_DEF int la_clip_norm(int n, la_real *g, double max_norm, double *norm) {
  double nrm;
  if (!g) return LA_ENULL;
  if (n <= 0) return LA_EDIM;
  if (!(max_norm > 0) || !la__op_finite(max_norm)) return LA_ERANGE;
  nrm = la__op_norm_d(n, g);
  if (!la__op_finite(nrm)) return LA_ENONFINITE;
  la__op_clip(n, g, max_norm, nrm);
  if (norm) *norm = nrm;
  return LA_OK;
}

LINATTN_DEF int la_clip_blocks(int n, la_real *g, int nblocks,
                               const int *offsets, const int *sizes,
                               double max_norm) {
  int b;
  if (!g || !offsets || !sizes) return LA_ENULL;
  if (n <= 0 || nblocks <= 0) return LA_EDIM;
  if (!(max_norm > 0) || !la__op_finite(max_norm)) return LA_ERANGE;
  for (b = 0; b < nblocks; ++b)
    if (offsets[b] < 0 || sizes[b] <= 0 || sizes[b] > n - offsets[b])
      return LA_EDIM;
  if (!la__op_all_finite(n, g)) return LA_ENONFINITE;
  for (b = 0; b < nblocks; ++b)
    la__op_clip(sizes[b], g + offsets[b], max_norm,
                la__op_norm_d(sizes[b], g + offsets[b]));
  return LA_OK;
}

/* ----------------------------------------------------------- schedules */

LINATTN_DEF int la_schedule_check(const la_schedule *s) {
  if (!s) return LA_ENULL;
  if (s->warmup < 0) return LA_ERANGE;
  switch (s->kind) {
  case LA_SCHED_CONSTANT: return LA_OK;
  case LA_SCHED_HALVING:
    if (s->period <= 0) return LA_ERANGE;
    if (s->decay != 0 && !(s->decay > 0 && s->decay < 1)) return LA_ERANGE;
    return LA_OK;
  case LA_SCHED_COSINE:
    if (s->total <= s->warmup) return LA_ERANGE;
    if (!(s->min_scale >= 0 && s->min_scale <= 1)) return LA_ERANGE;
    return LA_OK;
  default: return LA_ERANGE;
  }
}

LINATTN_DEF int la_schedule_scale(const la_schedule *s, long t, double *scale) {
  double f = 1;
  int st = la_schedule_check(s);
  if (st) return st;
  if (!scale) return LA_ENULL;
  if (t < 0) return LA_ERANGE;
  if (s->kind == LA_SCHED_HALVING) {
    f = pow(la__op_or(s->decay, 0.5), (double)(t / s->period));
  } else if (s->kind == LA_SCHED_COSINE) {
    double p = (double)(t - s->warmup) / (double)(s->total - s->warmup);
    p = p < 0 ? 0 : p > 1 ? 1 : p;
    f = s->min_scale +
        (1 - s->min_scale) * 0.5 * (1 + cos(3.14159265358979323846 * p));
  }
  if (t < s->warmup) f *= (double)(t + 1) / (double)s->warmup;
  *scale = f;
  return LA_OK;
}

#endif
