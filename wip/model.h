/* linattn.h section: the model.
   Included twice by linattn.h: once with LA__PART_API defined (declarations,
   inside the include guard and extern "C"), once with LA__PART_IMPL. */
#if defined(LA__PART_API)

/* ------------------------------------------------------------ the model

   A prompt Z0 is (d+1) x (n+1); with M = diag(1, .., 1, 0) each layer does
       Z_{l+1} = Z_l + (1/n) P_l Z_l M act(Z_l^T Q_l Z_l)
   (act = identity, or ReLU entrywise), the prediction is -[Z_L]_{d+1,n+1}
   and the loss is the mean over the batch of ([Z_L]_{d+1,n+1} + y_q)^2.
   An optional front layer x <- W2 relu(W1 x + b1) + b2 (h hidden units)
   acts on the x-part of every token, query included, before layer 0.

   THE PACKING OF THETA (D = d+1, all matrices row-major), per layer
   l = 0 .. L-1 in order, then the front layer:
     LA_PARAM_DENSE   P_l (D x D), Q_l (D x D)                 2 D^2 per layer
     LA_PARAM_SPARSE  B_l (d x d), A_l (d x d), where
                      P_l = [[B_l, 0], [0, 1]], Q_l = [[A_l, 0], [0, 0]]
                                                               2 d^2 per layer
     LA_PARAM_PGD     A_l (d x d); P_l = [[0, 0], [0, 1]], Q_l as above
                                                                 d^2 per layer
     front (h > 0)    W1 (h x d), b1 (h), W2 (d x h), b2 (d)
   la_model_blocks lists these matrices (offset, size) in the same order.

   BATCHES AND THREADS. Loss, gradient and Hessian-vector product are means
   over the b->count prompts of b. A batch may be split into views of whole
   panels (z and y advanced by whole panels, count reduced), evaluated on
   separate threads with separate workspaces, and combined with weights
   count_i / sum count_i: the result equals the whole batch's up to rounding.

   COST (per prompt, linear attention). The products are associated so that
   n appears once per product: S = Z M Z^T, then P S Q (D x D), then
   (P S Q) Z; the last layer computes only the entry the loss reads. At the
   base setting (L = 3, d = 5, n = 20) a gradient costs about 2-2.5 forward
   passes (la_model_loss), a Hessian-vector product about 5-6: its tangent
   doubles every product of the gradient except where the data enter (layer
   0, without a front layer). ReLU attention cannot be associated this way
   and costs O(D n^2) per layer. The workspace holds every layer's values of
   one panel: about (L+1) (n+1)(d+1) LA_W reals twice, plus small matrices.

   FAILURES. LA_ENULL (null pointer), LA_ESHAPE (batch d or n differ from
   the model's), LA_EDIM (empty batch), LA_EWORKSPACE (work too small),
   LA_ENONFINITE (NaN or Inf in theta, v, or the data of a valid prompt),
   LA_EDIVERGED (finite inputs, but the loss or a result overflowed),
   LA_ENOMEM (the allocating form could not allocate). */

/* CONTRACT (other sections code against these; the model section may add
   fields and functions but keeps these names and meanings). */
enum { LA_PARAM_SPARSE = 0, LA_PARAM_DENSE = 1, LA_PARAM_PGD = 2 };
enum { LA_ACT_LINEAR = 0, LA_ACT_RELU = 1 };

/* Zero means the documented default. */
typedef struct la_model_config {
  int d, n;                  /* covariate dimension, context length (required) */
  int layers;                /* L; 0 -> 3; at most LA_MAX_LAYERS */
  int param;                 /* LA_PARAM_*; 0 -> sparse */
  int activation;            /* LA_ACT_*; 0 -> linear */
  int front_hidden;          /* width h of the front MLP; 0 -> none */
  double init_std;           /* 0 -> 0.05 (front layer included) */
  const la_kernels *kernels; /* NULL -> la_kernels_best() */
} la_model_config;

#define LA_MAX_LAYERS 64
#define LA_MAX_HIDDEN 4096

typedef struct la_model {
  la_model_config cfg; /* defaults filled in */
  int nparams;         /* length of theta */
} la_model;

/* LA_ERANGE for a configuration out of range, LA_EDIM for d or n. */
LINATTN_DEF int la_model_init(la_model *m, const la_model_config *cfg);
/* theta ~ N(0, init_std^2) entrywise from the stream of rng:
   theta[i] = init_std * la_rng_normal(rng), i = 0, 1, .. in order. */
LINATTN_DEF int la_model_init_params(const la_model *m, la_rng *rng,
                                     la_real *theta);
/* The parameter matrices in theta: up to max (offset, size) pairs; returns
   their number (per-matrix clipping uses it), or a negative status. */
LINATTN_DEF int la_model_blocks(const la_model *m, int *offsets, int *sizes,
                                int max);
/* Workspace for one call of loss, grad or hvp; independent of batch size.
   Any byte alignment will do. 0 for an invalid model. */
LINATTN_DEF size_t la_model_work_bytes(const la_model *m);
/* work == NULL with bytes == 0: the call allocates (and frees) its own.
   loss and pred may be NULL; pred (if given) receives b->count plain
   predictions -[Z_L]_{d+1,n+1}, one per prompt in batch order. */
LINATTN_DEF int la_model_loss(const la_model *m, const la_real *theta,
                              const la_batch *b, double *loss, la_real *pred,
                              void *work, size_t bytes);
/* grad (nparams) = d loss / d theta; loss may be NULL. */
LINATTN_DEF int la_model_grad(const la_model *m, const la_real *theta,
                              const la_batch *b, double *loss, la_real *grad,
                              void *work, size_t bytes);
/* hv = H(theta) v, exact (forward-over-reverse); loss and grad may be NULL. */
LINATTN_DEF int la_model_hvp(const la_model *m, const la_real *theta,
                             const la_batch *b, const la_real *v, double *loss,
                             la_real *grad, la_real *hv, void *work,
                             size_t bytes);

#elif defined(LA__PART_IMPL)

/* ------------------------------------------------------------ the model */
/* Every parametrization runs as the dense model: theta is expanded into
   full P_l, Q_l (fixed entries included) and the gradient is contracted
   back to the free entries. A batch is processed one panel at a time
   through all layers, so a panel's activations stay in cache; products are
   the kernel table's panel products on a transposed copy Zt = Z^T (T x D,
   T = n+1), whose first n rows are the keys: every product is then one call
   on contiguous operands. Shared gradients accumulate lane-wise and are
   folded once per call. */

#define LA__LIN(m) ((m)->cfg.activation == LA_ACT_LINEAR)

typedef struct la__mdim {
  int d, n, D, T, L, h, hvp;
  size_t D2, TD;  /* elements of a D x D and a T x D panel */
  size_t nex;     /* expanded parameters */
  size_t lay;     /* elements per layer of stored forward values */
} la__mdim;

/* Offsets (in reals) of the workspace regions; each a multiple of LA_W. */
typedef struct la__mlay {
  size_t ex, exv, g, gv, zt, zdt, st, sdt, gt, tmp, front, y, plain, fold;
  size_t total;
} la__mlay;

typedef struct la__mctx {
  const la_kernels *k;
  la__mdim m;
  la_real *ex, *exv, *g, *gv; /* broadcast parameters, lane-wise gradients */
  la_real *zt, *zdt;          /* (L+1) panels Zt_l and their tangents */
  la_real *st, *sdt;          /* per layer stored forward values, tangents */
  la_real *gt;                /* 4 backward panels: G, G', Gdot, Gdot' */
  la_real *tmp;               /* backward temporaries */
  la_real *fr;                /* front layer buffers */
  la_real *y;                 /* targets of the panel */
} la__mctx;

static size_t la__m_front_params(int d, int h) {
  return h > 0 ? (size_t)2 * h * d + h + d : 0;
}

static void la__m_dims(const la_model *m, int hvp, la__mdim *o) {
  const la_model_config *c = &m->cfg;
  o->d = c->d; o->n = c->n; o->D = c->d + 1; o->T = c->n + 1;
  o->L = c->layers; o->h = c->front_hidden; o->hvp = hvp;
  o->D2 = (size_t)o->D * o->D;
  o->TD = (size_t)o->T * o->D;
  o->nex = 2 * o->D2 * o->L + la__m_front_params(o->d, o->h);
  o->lay = LA__LIN(m) ? 3 * o->D2
                      : o->TD + 2 * (size_t)o->n * o->T + (size_t)o->n * o->D;
}

static size_t la__m_take(size_t *at, size_t reals) {
  size_t here = *at;
  *at += (reals + LA_W - 1) / LA_W * LA_W;
  return here;
}

/* Temporaries of one backward layer, in panel elements. */
static size_t la__m_tmp_elems(const la_model *m, const la__mdim *d) {
  if (LA__LIN(m)) return 16 * d->D2 + 4 * (size_t)d->n + 4 * d->D + 2;
  return 6 * ((size_t)d->n * d->T + d->TD + (size_t)d->n * d->D);
}

static size_t la__m_layout(const la_model *m, const la__mdim *d,
                           la__mlay *o) {
  size_t at = 0, W = LA_W, h = (size_t)d->h, fr = 0;
  if (h) fr = 4 * (size_t)d->T * d->d + 6 * (size_t)d->T * h;
  o->ex = la__m_take(&at, d->nex * W);
  o->exv = la__m_take(&at, d->nex * W);
  o->g = la__m_take(&at, d->nex * W);
  o->gv = la__m_take(&at, d->nex * W);
  o->zt = la__m_take(&at, (size_t)(d->L + 1) * d->TD * W);
  o->zdt = la__m_take(&at, (size_t)(d->L + 1) * d->TD * W);
  o->st = la__m_take(&at, (size_t)d->L * d->lay * W);
  o->sdt = la__m_take(&at, (size_t)d->L * d->lay * W);
  o->gt = la__m_take(&at, 4 * d->TD * W);
  o->tmp = la__m_take(&at, la__m_tmp_elems(m, d) * W);
  o->front = la__m_take(&at, fr * W);
  o->y = la__m_take(&at, W);
  o->plain = la__m_take(&at, 2 * d->nex);
  o->fold = la__m_take(&at, 2 * d->nex * (sizeof(double) / sizeof(la_real)));
  o->total = at;
  return at * sizeof(la_real) + LA_ALIGN;
}

/* ----------------------------------------------------------- parameters */

static int la__m_layer_params(const la_model *m) {
  int d = m->cfg.d, D = d + 1;
  switch (m->cfg.param) {
  case LA_PARAM_DENSE: return 2 * D * D;
  case LA_PARAM_SPARSE: return 2 * d * d;
  default: return d * d;
  }
}

/* theta (or a direction, tangent = 1: fixed entries get 0) -> dense. */
static void la__m_expand(const la_model *m, const la_real *t, la_real *ex,
                         int tangent) {
  int d = m->cfg.d, D = d + 1, l, i, j, dd = d * d;
  size_t D2 = (size_t)D * D;
  for (l = 0; l < m->cfg.layers; ++l) {
    la_real *P = ex + 2 * D2 * l, *Q = P + D2;
    if (m->cfg.param == LA_PARAM_DENSE) {
      memcpy(P, t, sizeof(la_real) * 2 * D2);
      t += 2 * D2;
      continue;
    }
    memset(P, 0, sizeof(la_real) * 2 * D2);
    if (m->cfg.param == LA_PARAM_SPARSE) {
      for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) P[i * D + j] = t[i * d + j];
      t += dd;
    }
    if (!tangent) P[D2 - 1] = 1;
    for (i = 0; i < d; ++i)
      for (j = 0; j < d; ++j) Q[i * D + j] = t[i * d + j];
    t += dd;
  }
  memcpy(ex + 2 * D2 * m->cfg.layers, t,
         sizeof(la_real) * la__m_front_params(d, m->cfg.front_hidden));
}

/* Dense gradient (sums) -> gradient of theta, scaled. */
static void la__m_contract(const la_model *m, const double *gex, double scale,
                           la_real *out) {
  int d = m->cfg.d, D = d + 1, l, i, j;
  size_t D2 = (size_t)D * D, e, nf;
  for (l = 0; l < m->cfg.layers; ++l) {
    const double *P = gex + 2 * D2 * l, *Q = P + D2;
    if (m->cfg.param == LA_PARAM_DENSE) {
      for (e = 0; e < 2 * D2; ++e) *out++ = (la_real)(scale * P[e]);
      continue;
    }
    if (m->cfg.param == LA_PARAM_SPARSE)
      for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) *out++ = (la_real)(scale * P[i * D + j]);
    for (i = 0; i < d; ++i)
      for (j = 0; j < d; ++j) *out++ = (la_real)(scale * Q[i * D + j]);
  }
  nf = la__m_front_params(d, m->cfg.front_hidden);
  for (e = 0; e < nf; ++e)
    *out++ = (la_real)(scale * gex[2 * D2 * m->cfg.layers + e]);
}

/* ------------------------------------------------- panel element ops */
/* Plain loops over whole panels (n elements of LA_W reals): compilers turn
   them into vector code, and they are exact, so one version serves every
   backend. */

static void la__e_copy(size_t n, const la_real *LA__RESTRICT a,
                       la_real *LA__RESTRICT c) {
  memcpy(c, a, sizeof(la_real) * n * LA_W);
}
static void la__e_zero(size_t n, la_real *c) {
  memset(c, 0, sizeof(la_real) * n * LA_W);
}
/* E = X + X^T of a D x D panel. */
static void la__e_sym(int D, const la_real *LA__RESTRICT X,
                      la_real *LA__RESTRICT E) {
  int i, j, w;
  for (i = 0; i < D; ++i)
    for (j = 0; j < D; ++j) {
      const la_real *a = X + (size_t)(i * D + j) * LA_W;
      const la_real *b = X + (size_t)(j * D + i) * LA_W;
      la_real *e = E + (size_t)(i * D + j) * LA_W;
      for (w = 0; w < LA_W; ++w) e[w] = a[w] + b[w];
    }
}
static void la__e_relu(size_t n, la_real *x) {
  size_t i;
  for (i = 0; i < n * LA_W; ++i) x[i] = x[i] > 0 ? x[i] : 0;
}
/* x <- x where the activation r is positive, else 0 (ReLU's derivative). */
static void la__e_mask(size_t n, const la_real *LA__RESTRICT r,
                       la_real *LA__RESTRICT x) {
  size_t i;
  for (i = 0; i < n * LA_W; ++i) x[i] = r[i] > 0 ? x[i] : 0;
}
/* Rows of an r x c panel += the bias vector panel b (c elements). */
static void la__e_addrow(int r, int c, const la_real *LA__RESTRICT b,
                         la_real *LA__RESTRICT x) {
  int i;
  size_t e;
  for (i = 0; i < r; ++i)
    for (e = 0; e < (size_t)c * LA_W; ++e) x[(size_t)i * c * LA_W + e] += b[e];
}
/* acc (c elements) += column sums of an r x c panel. */
static void la__e_colsum(int r, int c, const la_real *LA__RESTRICT x,
                         la_real *LA__RESTRICT acc) {
  int i;
  size_t e;
  for (i = 0; i < r; ++i)
    for (e = 0; e < (size_t)c * LA_W; ++e) acc[e] += x[(size_t)i * c * LA_W + e];
}
/* Columns [0, c) of an r x ldc panel <-> a contiguous r x c panel. */
static void la__e_getcols(int r, int c, int ldc, const la_real *LA__RESTRICT s,
                          la_real *LA__RESTRICT t) {
  int i;
  for (i = 0; i < r; ++i)
    memcpy(t + (size_t)i * c * LA_W, s + (size_t)i * ldc * LA_W,
           sizeof(la_real) * c * LA_W);
}
static void la__e_setcols(int r, int c, int ldc, const la_real *LA__RESTRICT s,
                          la_real *LA__RESTRICT t) {
  int i;
  for (i = 0; i < r; ++i)
    memcpy(t + (size_t)i * ldc * LA_W, s + (size_t)i * c * LA_W,
           sizeof(la_real) * c * LA_W);
}


/* The product the model calls: the kernel table's panel product,
   C = alpha op(A) op(B) (+ C, or + Y when Y is not null). */
static void la__mm(const la__mctx *c, unsigned f, int m, int n, int k,
                   double alpha, const la_real *A, const la_real *B,
                   const la_real *Y, la_real *C) {
  if (Y) {
    memcpy(C, Y, sizeof(la_real) * (size_t)m * n * LA_W);
    f |= LA_ACCUMULATE;
  }
  c->k->pgemm(f, m, n, k, (la_real)alpha, A, B, C);
}
#define LA__MM(c, f, M, N, K, al, A, B, C)                                    \
  la__mm((c), (f), (M), (N), (K), (al), (A), (B), NULL, (C))
#define LA__MMY(c, f, M, N, K, al, A, B, Y, C)                                \
  la__mm((c), (f), (M), (N), (K), (al), (A), (B), (Y), (C))
#define LA__TA LA_TRANS_A
#define LA__TB LA_TRANS_B
#define LA__AC LA_ACCUMULATE

/* ------------------------------------------------------ linear layer */
/* Stored per layer: S = K K^T, C' = I + P S Q / n, PS = P S (and tangents:
   Sdot, Cdot / n, (P S)dot). The identity folded into C' makes the residual
   update one product, Zt_{l+1} = Zt C'^T, and likewise dZt = G C'. */

static void la__e_adddiag(int D, la_real *X) {
  int i, w;
  for (i = 0; i < D; ++i)
    for (w = 0; w < LA_W; ++w) X[(size_t)(i * D + i) * LA_W + w] += 1;
}

static void la__lin_fwd(const la__mctx *c, int l, int zd0) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * LA_W, TD = m->TD * LA_W;
  int D = m->D, n = m->n, T = m->T;
  const la_real *P = c->ex + 2 * D2 * l, *Q = P + D2;
  la_real *Z = c->zt + TD * l, *Zn = Z + TD;
  la_real *S = c->st + m->lay * LA_W * l, *C = S + D2, *PS = C + D2;
  double in = 1.0 / n;
  LA__MM(c, LA__TA, D, D, n, 1, Z, Z, S);
  LA__MM(c, 0, D, D, D, 1, P, S, PS);
  LA__MM(c, 0, D, D, D, in, PS, Q, C);
  la__e_adddiag(D, C);
  LA__MM(c, LA__TB, T, D, D, 1, Z, C, Zn);
  if (m->hvp) {
    const la_real *Pd = c->exv + 2 * D2 * l, *Qd = Pd + D2;
    la_real *Zd = c->zdt + TD * l, *Zdn = Zd + TD;
    la_real *Sd = c->sdt + m->lay * LA_W * l, *Cd = Sd + D2, *PSd = Cd + D2;
    la_real *E1 = c->tmp;
    if (zd0) {
      la__e_zero(m->D2, Sd);
      LA__MM(c, 0, D, D, D, 1, Pd, S, PSd);
    } else {
      LA__MM(c, LA__TA, D, D, n, 1, Zd, Z, E1);
      la__e_sym(D, E1, Sd);
      LA__MM(c, 0, D, D, D, 1, Pd, S, PSd);
      LA__MM(c, LA__AC, D, D, D, 1, P, Sd, PSd);
    }
    LA__MM(c, 0, D, D, D, in, PSd, Q, Cd);
    LA__MM(c, LA__AC, D, D, D, in, PS, Qd, Cd);
    if (zd0) {
      LA__MM(c, LA__TB, T, D, D, 1, Z, Cd, Zdn);
    } else {
      LA__MM(c, LA__TB, T, D, D, 1, Zd, C, Zdn);
      LA__MM(c, LA__TB | LA__AC, T, D, D, 1, Z, Cd, Zdn);
    }
  }
}

/* G = dloss/dZt_{l+1} -> G2 = dloss/dZt_l (if dz), gradients of P_l, Q_l
   accumulated; with hvp, the same for the tangents Gd -> Gd2. */
static void la__lin_bwd(const la__mctx *c, int l, int zd0, int dz,
                        const la_real *G, la_real *G2, const la_real *Gd,
                        la_real *Gd2) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * LA_W, TD = m->TD * LA_W;
  int D = m->D, n = m->n, T = m->T;
  const la_real *P = c->ex + 2 * D2 * l, *Q = P + D2;
  la_real *gP = c->g + 2 * D2 * l, *gQ = gP + D2;
  const la_real *Z = c->zt + TD * l;
  const la_real *S = c->st + m->lay * LA_W * l, *C = S + D2;
  la_real *dC = c->tmp, *T1 = dC + D2, *T2 = T1 + D2, *dS = T2 + D2,
          *E = dS + D2;
  double in = 1.0 / n;
  LA__MM(c, LA__TA, D, D, T, in, G, Z, dC);
  LA__MM(c, LA__TB, D, D, D, 1, dC, Q, T1);
  LA__MM(c, LA__AC, D, D, D, 1, T1, S, gP);
  LA__MM(c, LA__TB, D, D, D, 1, S, P, T2);
  LA__MM(c, LA__AC, D, D, D, 1, T2, dC, gQ);
  if (dz) {
    LA__MM(c, LA__TA, D, D, D, 1, P, T1, dS);
    la__e_sym(D, dS, E);
    LA__MM(c, 0, T, D, D, 1, G, C, G2);
    LA__MM(c, LA__AC, n, D, D, 1, Z, E, G2);
  }
  if (m->hvp) {
    const la_real *Pd = c->exv + 2 * D2 * l, *Qd = Pd + D2;
    la_real *gvP = c->gv + 2 * D2 * l, *gvQ = gvP + D2;
    const la_real *Zd = c->zdt + TD * l;
    const la_real *Sd = c->sdt + m->lay * LA_W * l, *Cd = Sd + D2;
    la_real *dCd = E + D2, *T1d = dCd + D2, *T2d = T1d + D2, *dSd = T2d + D2,
            *Ed = dSd + D2;
    LA__MM(c, LA__TA, D, D, T, in, Gd, Z, dCd);
    if (!zd0) LA__MM(c, LA__TA | LA__AC, D, D, T, in, G, Zd, dCd);
    LA__MM(c, LA__TB, D, D, D, 1, dCd, Q, T1d);
    LA__MM(c, LA__TB | LA__AC, D, D, D, 1, dC, Qd, T1d);
    LA__MM(c, LA__AC, D, D, D, 1, T1d, S, gvP);
    if (!zd0) LA__MM(c, LA__AC, D, D, D, 1, T1, Sd, gvP);
    LA__MM(c, LA__TB, D, D, D, 1, S, Pd, T2d);
    if (!zd0) LA__MM(c, LA__TB | LA__AC, D, D, D, 1, Sd, P, T2d);
    LA__MM(c, LA__AC, D, D, D, 1, T2d, dC, gvQ);
    LA__MM(c, LA__AC, D, D, D, 1, T2, dCd, gvQ);
    if (dz) {
      LA__MM(c, LA__TA, D, D, D, 1, Pd, T1, dSd);
      LA__MM(c, LA__TA | LA__AC, D, D, D, 1, P, T1d, dSd);
      la__e_sym(D, dSd, Ed);
      LA__MM(c, 0, T, D, D, 1, Gd, C, Gd2);
      LA__MM(c, LA__AC, T, D, D, 1, G, Cd, Gd2);
      LA__MM(c, LA__AC, n, D, D, 1, Z, Ed, Gd2);
      if (!zd0) LA__MM(c, LA__AC, n, D, D, 1, Zd, E, Gd2);
    }
  }
}

/* ------------------------------------------------ last linear layer */
/* Only [Z_L]_{d+1,n+1} is needed: with p = row d+1 of P, q the query
   column, r1 = p^T S and c = r1 Q (the last row of C = P S Q),
       z = q_{d+1} + (1/n) c q.
   Its gradient has rank-one and rank-two structure (u = Q q, gs = g/n):
       dP_{d+1,:} += gs (S u)^T,  dQ += gs r1^T q^T,
       dq = g e_{d+1} + gs c^T,   dK^T[j,:] = gs ((K^T p)_j u + (K^T u)_j p)^T
   which costs O(D n) per prompt instead of O(D^2 n). Stored: S, r1, c. */

/* y (n elements) += g x, g one panel element (lane-wise scalars). */
static void la__e_gaxpy(size_t n, const la_real *LA__RESTRICT g,
                        const la_real *LA__RESTRICT x, la_real *LA__RESTRICT y) {
  size_t e;
  int w;
  for (e = 0; e < n; ++e)
    for (w = 0; w < LA_W; ++w) y[e * LA_W + w] += g[w] * x[e * LA_W + w];
}
/* C (m x n) += g a b^T. */
static void la__e_gouter(int m, int n, const la_real *LA__RESTRICT g,
                         const la_real *LA__RESTRICT a,
                         const la_real *LA__RESTRICT b, la_real *LA__RESTRICT C) {
  int i, j, w;
  for (i = 0; i < m; ++i)
    for (j = 0; j < n; ++j)
      for (w = 0; w < LA_W; ++w)
        C[((size_t)i * n + j) * LA_W + w] +=
            g[w] * a[i * LA_W + w] * b[j * LA_W + w];
}
/* C (m x n) = g (a u^T + b p^T), or += with acc. */
static void la__e_grank2(int m, int n, const la_real *LA__RESTRICT g,
                         const la_real *a, const la_real *u, const la_real *b,
                         const la_real *p, la_real *LA__RESTRICT C, int acc) {
  int i, j, w;
  for (i = 0; i < m; ++i)
    for (j = 0; j < n; ++j) {
      la_real *o = C + ((size_t)i * n + j) * LA_W;
      for (w = 0; w < LA_W; ++w)
        o[w] = (acc ? o[w] : 0) + g[w] * (a[i * LA_W + w] * u[j * LA_W + w] +
                                          b[i * LA_W + w] * p[j * LA_W + w]);
    }
}

static void la__last_fwd(const la__mctx *c, int l, int zd0) {
  const la__mdim *m = &c->m;
  size_t W = LA_W, D2 = m->D2 * W, TD = m->TD * W;
  int D = m->D, n = m->n;
  size_t at = ((size_t)n * D + D - 1) * W, DW = (size_t)D * W;
  const la_real *P = c->ex + 2 * D2 * l, *Q = P + D2, *p = P + (D - 1) * DW;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  la_real *S = c->st + m->lay * W * l, *r1 = S + D2, *cr = r1 + DW;
  la_real *out = c->zt + TD * (l + 1) + at;
  double in = 1.0 / n;
  LA__MM(c, LA__TA, D, D, n, 1, Z, Z, S);
  LA__MM(c, 0, 1, D, D, 1, p, S, r1);
  LA__MM(c, 0, 1, D, D, 1, r1, Q, cr);
  la__e_copy(1, q + (D - 1) * W, out);
  LA__MM(c, LA__TB | LA__AC, 1, 1, D, in, cr, q, out);
  if (m->hvp) {
    const la_real *Pd = c->exv + 2 * D2 * l, *Qd = Pd + D2,
                  *pd = Pd + (D - 1) * DW;
    const la_real *Zd = c->zdt + TD * l, *qd = Zd + (size_t)n * DW;
    la_real *Sd = c->sdt + m->lay * W * l, *r1d = Sd + D2, *cd = r1d + DW;
    la_real *outd = c->zdt + TD * (l + 1) + at;
    if (zd0) {
      la__e_zero(m->D2, Sd);
      LA__MM(c, 0, 1, D, D, 1, pd, S, r1d);
      la__e_zero(1, outd);
    } else {
      LA__MM(c, LA__TA, D, D, n, 1, Zd, Z, c->tmp);
      la__e_sym(D, c->tmp, Sd);
      LA__MM(c, 0, 1, D, D, 1, pd, S, r1d);
      LA__MM(c, LA__AC, 1, D, D, 1, p, Sd, r1d);
      la__e_copy(1, qd + (D - 1) * W, outd);
      LA__MM(c, LA__TB | LA__AC, 1, 1, D, in, cr, qd, outd);
    }
    LA__MM(c, 0, 1, D, D, 1, r1d, Q, cd);
    LA__MM(c, LA__AC, 1, D, D, 1, r1, Qd, cd);
    LA__MM(c, LA__TB | LA__AC, 1, 1, D, in, cd, q, outd);
  }
}

static void la__last_bwd(const la__mctx *c, int l, int zd0, int dz,
                         const la_real *G, la_real *G2, const la_real *Gd,
                         la_real *Gd2) {
  const la__mdim *m = &c->m;
  size_t W = LA_W, D2 = m->D2 * W, TD = m->TD * W;
  int D = m->D, n = m->n, w;
  size_t at = ((size_t)n * D + D - 1) * W, DW = (size_t)D * W, nW = n * W;
  const la_real *P = c->ex + 2 * D2 * l, *Q = P + D2, *p = P + (D - 1) * DW;
  la_real *gP = c->g + 2 * D2 * l, *gQ = gP + D2;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  const la_real *S = c->st + m->lay * W * l, *r1 = S + D2, *cr = r1 + DW;
  la_real *gs = c->tmp, *gds = gs + W, *u = gds + W, *su = u + DW,
          *ud = su + DW, *sud = ud + DW, *a = sud + DW, *b = a + nW,
          *ad = b + nW, *bd = ad + nW;
  const la_real *g = G + at, *gd = Gd + at;
  for (w = 0; w < LA_W; ++w) gs[w] = g[w] / (la_real)n;
  LA__MM(c, 0, D, 1, D, 1, Q, q, u);
  LA__MM(c, 0, D, 1, D, 1, S, u, su);
  la__e_gaxpy(D, gs, su, gP + (D - 1) * DW);
  la__e_gouter(D, D, gs, r1, q, gQ);
  if (dz) {
    la__e_zero(D, G2 + (size_t)n * DW);
    la__e_gaxpy(D, gs, cr, G2 + (size_t)n * DW);
    for (w = 0; w < LA_W; ++w) G2[at + w] += g[w];
    LA__MM(c, 0, n, 1, D, 1, Z, p, a);
    LA__MM(c, 0, n, 1, D, 1, Z, u, b);
    la__e_grank2(n, D, gs, a, u, b, p, G2, 0);
  }
  if (m->hvp) {
    const la_real *Pd = c->exv + 2 * D2 * l, *Qd = Pd + D2,
                  *pd = Pd + (D - 1) * DW;
    la_real *gvP = c->gv + 2 * D2 * l, *gvQ = gvP + D2;
    const la_real *Zd = c->zdt + TD * l, *qd = Zd + (size_t)n * DW;
    const la_real *Sd = c->sdt + m->lay * W * l, *r1d = Sd + D2, *cd = r1d + DW;
    for (w = 0; w < LA_W; ++w) gds[w] = gd[w] / (la_real)n;
    LA__MM(c, 0, D, 1, D, 1, Qd, q, ud);
    if (!zd0) LA__MM(c, LA__AC, D, 1, D, 1, Q, qd, ud);
    LA__MM(c, 0, D, 1, D, 1, S, ud, sud);
    if (!zd0) LA__MM(c, LA__AC, D, 1, D, 1, Sd, u, sud);
    la__e_gaxpy(D, gds, su, gvP + (D - 1) * DW);
    la__e_gaxpy(D, gs, sud, gvP + (D - 1) * DW);
    la__e_gouter(D, D, gds, r1, q, gvQ);
    la__e_gouter(D, D, gs, r1d, q, gvQ);
    if (!zd0) la__e_gouter(D, D, gs, r1, qd, gvQ);
    if (dz) {
      la__e_zero(D, Gd2 + (size_t)n * DW);
      la__e_gaxpy(D, gds, cr, Gd2 + (size_t)n * DW);
      la__e_gaxpy(D, gs, cd, Gd2 + (size_t)n * DW);
      for (w = 0; w < LA_W; ++w) Gd2[at + w] += gd[w];
      LA__MM(c, 0, n, 1, D, 1, Z, pd, ad);
      if (!zd0) LA__MM(c, LA__AC, n, 1, D, 1, Zd, p, ad);
      LA__MM(c, 0, n, 1, D, 1, Z, ud, bd);
      if (!zd0) LA__MM(c, LA__AC, n, 1, D, 1, Zd, u, bd);
      la__e_grank2(n, D, gds, a, u, b, p, Gd2, 0);
      la__e_grank2(n, D, gs, ad, u, bd, p, Gd2, 1);
      la__e_grank2(n, D, gs, a, ud, b, pd, Gd2, 1);
    }
  }
}

/* -------------------------------------------------------- ReLU layer */
/* Z_{l+1} = Z + (1/n) U relu(K^T V), U = P K, V = Q Z. Stored per layer:
   Vt = Zt Q^T (T x D), R = relu(Kt Vt^T) (n x T), Ut = Kt P^T (n x D);
   the tangent store holds Vdt, Rd (masked), Udt in the same places. */

static void la__relu_fwd(const la__mctx *c, int l, int zd0) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * LA_W, TD = m->TD * LA_W, nT = (size_t)m->n * m->T;
  int D = m->D, n = m->n, T = m->T;
  const la_real *P = c->ex + 2 * D2 * l, *Q = P + D2;
  la_real *Z = c->zt + TD * l, *Zn = Z + TD;
  la_real *Vt = c->st + m->lay * LA_W * l, *R = Vt + TD, *Ut = R + nT * LA_W;
  double in = 1.0 / n;
  LA__MM(c, LA__TB, T, D, D, 1, Z, Q, Vt);
  LA__MM(c, LA__TB, n, T, D, 1, Z, Vt, R);
  la__e_relu(nT, R);
  LA__MM(c, LA__TB, n, D, D, 1, Z, P, Ut);
  LA__MMY(c, LA__TA, T, D, n, in, R, Ut, Z, Zn);
  if (m->hvp) {
    const la_real *Pd = c->exv + 2 * D2 * l, *Qd = Pd + D2;
    la_real *Zd = c->zdt + TD * l, *Zdn = Zd + TD;
    la_real *Vdt = c->sdt + m->lay * LA_W * l, *Rd = Vdt + TD,
            *Udt = Rd + nT * LA_W;
    LA__MM(c, LA__TB, T, D, D, 1, Z, Qd, Vdt);
    if (!zd0) LA__MM(c, LA__TB | LA__AC, T, D, D, 1, Zd, Q, Vdt);
    LA__MM(c, LA__TB, n, T, D, 1, Z, Vdt, Rd);
    if (!zd0) LA__MM(c, LA__TB | LA__AC, n, T, D, 1, Zd, Vt, Rd);
    la__e_mask(nT, R, Rd);
    LA__MM(c, LA__TB, n, D, D, 1, Z, Pd, Udt);
    if (!zd0) LA__MM(c, LA__TB | LA__AC, n, D, D, 1, Zd, P, Udt);
    LA__MMY(c, LA__TA, T, D, n, in, Rd, Ut, zd0 ? NULL : Zd, Zdn);
    LA__MM(c, LA__TA | LA__AC, T, D, n, in, R, Udt, Zdn);
  }
}

static void la__relu_bwd(const la__mctx *c, int l, int zd0, int dz,
                         const la_real *G, la_real *G2, const la_real *Gd,
                         la_real *Gd2) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * LA_W, TD = m->TD * LA_W, nT = (size_t)m->n * m->T,
         nD = (size_t)m->n * m->D;
  int D = m->D, n = m->n, T = m->T;
  const la_real *P = c->ex + 2 * D2 * l, *Q = P + D2;
  la_real *gP = c->g + 2 * D2 * l, *gQ = gP + D2;
  const la_real *Z = c->zt + TD * l;
  const la_real *Vt = c->st + m->lay * LA_W * l, *R = Vt + TD,
                *Ut = R + nT * LA_W;
  la_real *dUt = c->tmp, *dA = dUt + nD * LA_W, *dVt = dA + nT * LA_W;
  double in = 1.0 / n;
  LA__MM(c, 0, n, D, T, in, R, G, dUt);
  LA__MM(c, LA__TB, n, T, D, in, Ut, G, dA);
  la__e_mask(nT, R, dA);
  LA__MM(c, LA__TA | LA__AC, D, D, n, 1, dUt, Z, gP);
  LA__MM(c, LA__TA, T, D, n, 1, dA, Z, dVt);
  LA__MM(c, LA__TA | LA__AC, D, D, T, 1, dVt, Z, gQ);
  if (dz) {
    la__e_copy(m->TD, G, G2);
    LA__MM(c, LA__AC, n, D, D, 1, dUt, P, G2);
    LA__MM(c, LA__AC, n, D, T, 1, dA, Vt, G2);
    LA__MM(c, LA__AC, T, D, D, 1, dVt, Q, G2);
  }
  if (m->hvp) {
    const la_real *Pd = c->exv + 2 * D2 * l, *Qd = Pd + D2;
    la_real *gvP = c->gv + 2 * D2 * l, *gvQ = gvP + D2;
    const la_real *Zd = c->zdt + TD * l;
    const la_real *Vdt = c->sdt + m->lay * LA_W * l, *Rd = Vdt + TD,
                  *Udt = Rd + nT * LA_W;
    la_real *dUdt = dVt + TD, *dAd = dUdt + nD * LA_W, *dVdt = dAd + nT * LA_W;
    LA__MM(c, 0, n, D, T, in, Rd, G, dUdt);
    LA__MM(c, LA__AC, n, D, T, in, R, Gd, dUdt);
    LA__MM(c, LA__TB, n, T, D, in, Udt, G, dAd);
    LA__MM(c, LA__TB | LA__AC, n, T, D, in, Ut, Gd, dAd);
    la__e_mask(nT, R, dAd);
    LA__MM(c, LA__TA | LA__AC, D, D, n, 1, dUdt, Z, gvP);
    if (!zd0) LA__MM(c, LA__TA | LA__AC, D, D, n, 1, dUt, Zd, gvP);
    LA__MM(c, LA__TA, T, D, n, 1, dAd, Z, dVdt);
    if (!zd0) LA__MM(c, LA__TA | LA__AC, T, D, n, 1, dA, Zd, dVdt);
    LA__MM(c, LA__TA | LA__AC, D, D, T, 1, dVdt, Z, gvQ);
    if (!zd0) LA__MM(c, LA__TA | LA__AC, D, D, T, 1, dVt, Zd, gvQ);
    if (dz) {
      la__e_copy(m->TD, Gd, Gd2);
      LA__MM(c, LA__AC, n, D, D, 1, dUdt, P, Gd2);
      LA__MM(c, LA__AC, n, D, D, 1, dUt, Pd, Gd2);
      LA__MM(c, LA__AC, n, D, T, 1, dAd, Vt, Gd2);
      LA__MM(c, LA__AC, n, D, T, 1, dA, Vdt, Gd2);
      LA__MM(c, LA__AC, T, D, D, 1, dVdt, Q, Gd2);
      LA__MM(c, LA__AC, T, D, D, 1, dVt, Qd, Gd2);
    }
  }
}

/* ------------------------------------------------------- front layer */
/* On the x-part Xt (T x d) of the transposed prompt:
   A1 = Xt W1^T + b1, R1 = relu(A1), Xt <- R1 W2^T + b2. */

typedef struct la__fbuf {
  la_real *x, *r, *rd, *xo, *dx, *dxd, *da, *dad;
  const la_real *W1, *b1, *W2, *b2, *W1d, *b1d, *W2d, *b2d;
  la_real *gW1, *gb1, *gW2, *gb2, *vW1, *vb1, *vW2, *vb2;
} la__fbuf;

static la__fbuf la__front_bufs(const la__mctx *c) {
  const la__mdim *m = &c->m;
  size_t Td = (size_t)m->T * m->d * LA_W, Th = (size_t)m->T * m->h * LA_W;
  size_t off = 2 * m->D2 * m->L * LA_W, hd = (size_t)m->h * m->d * LA_W;
  size_t o1 = off + hd, o2 = o1 + (size_t)m->h * LA_W, o3 = o2 + hd;
  la__fbuf f;
  f.x = c->fr; f.xo = f.x + Td; f.dx = f.xo + Td; f.dxd = f.dx + Td;
  f.r = f.dxd + Td; f.rd = f.r + Th; f.da = f.rd + Th; f.dad = f.da + Th;
  f.W1 = c->ex + off; f.b1 = c->ex + o1; f.W2 = c->ex + o2; f.b2 = c->ex + o3;
  f.W1d = c->exv + off; f.b1d = c->exv + o1; f.W2d = c->exv + o2;
  f.b2d = c->exv + o3;
  f.gW1 = c->g + off; f.gb1 = c->g + o1; f.gW2 = c->g + o2; f.gb2 = c->g + o3;
  f.vW1 = c->gv + off; f.vb1 = c->gv + o1; f.vW2 = c->gv + o2;
  f.vb2 = c->gv + o3;
  return f;
}

static void la__front_fwd(const la__mctx *c) {
  const la__mdim *m = &c->m;
  la__fbuf f = la__front_bufs(c);
  int T = m->T, d = m->d, h = m->h, D = m->D;
  size_t Th = (size_t)T * h;
  la__e_getcols(T, d, D, c->zt, f.x);
  LA__MM(c, LA__TB, T, h, d, 1, f.x, f.W1, f.r);
  la__e_addrow(T, h, f.b1, f.r);
  la__e_relu(Th, f.r);
  LA__MM(c, LA__TB, T, d, h, 1, f.r, f.W2, f.xo);
  la__e_addrow(T, d, f.b2, f.xo);
  la__e_setcols(T, d, D, f.xo, c->zt);
  if (m->hvp) {
    LA__MM(c, LA__TB, T, h, d, 1, f.x, f.W1d, f.rd);
    la__e_addrow(T, h, f.b1d, f.rd);
    la__e_mask(Th, f.r, f.rd);
    LA__MM(c, LA__TB, T, d, h, 1, f.rd, f.W2, f.xo);
    LA__MM(c, LA__TB | LA__AC, T, d, h, 1, f.r, f.W2d, f.xo);
    la__e_addrow(T, d, f.b2d, f.xo);
    la__e_zero(m->TD, c->zdt);
    la__e_setcols(T, d, D, f.xo, c->zdt);
  }
}

static void la__front_bwd(const la__mctx *c, const la_real *G,
                          const la_real *Gd) {
  const la__mdim *m = &c->m;
  la__fbuf f = la__front_bufs(c);
  int T = m->T, d = m->d, h = m->h, D = m->D;
  size_t Th = (size_t)T * h;
  la__e_getcols(T, d, D, G, f.dx);
  la__e_colsum(T, d, f.dx, f.gb2);
  LA__MM(c, LA__TA | LA__AC, d, h, T, 1, f.dx, f.r, f.gW2);
  LA__MM(c, 0, T, h, d, 1, f.dx, f.W2, f.da);
  la__e_mask(Th, f.r, f.da);
  la__e_colsum(T, h, f.da, f.gb1);
  LA__MM(c, LA__TA | LA__AC, h, d, T, 1, f.da, f.x, f.gW1);
  if (m->hvp) {
    la__e_getcols(T, d, D, Gd, f.dxd);
    la__e_colsum(T, d, f.dxd, f.vb2);
    LA__MM(c, LA__TA | LA__AC, d, h, T, 1, f.dxd, f.r, f.vW2);
    LA__MM(c, LA__TA | LA__AC, d, h, T, 1, f.dx, f.rd, f.vW2);
    LA__MM(c, 0, T, h, d, 1, f.dxd, f.W2, f.dad);
    LA__MM(c, LA__AC, T, h, d, 1, f.dx, f.W2d, f.dad);
    la__e_mask(Th, f.r, f.dad);
    la__e_colsum(T, h, f.dad, f.vb1);
    LA__MM(c, LA__TA | LA__AC, h, d, T, 1, f.dad, f.x, f.vW1);
  }
}

/* ------------------------------------------------------- one panel */

static int la__isfinite(double x) { return x - x == 0; }

/* Zt_0 <- transposed panel p of b, lanes >= valid zeroed (a view's padding
   may hold anything). Non-finite values are found by x - x, which is 0 for
   every finite x and NaN otherwise, summed lane-wise in four independent
   chains over the contiguous source: no branches, no long dependency. */
static int la__m_load(const la__mctx *c, const la_batch *b, int p,
                      int valid) {
  const la__mdim *m = &c->m;
  size_t ne = m->TD, e;
  const la_real *z = b->z + (size_t)p * ne * LA_W;
  const la_real *y = b->y + (size_t)p * LA_W;
  la_real k0[LA_W], k1[LA_W], k2[LA_W], k3[LA_W];
  int i, j, w, ok = 1;
  if (valid < LA_W) { /* the last panel of a batch: lane by lane */
    for (i = 0; i < m->D; ++i)
      for (j = 0; j < m->T; ++j) {
        const la_real *s = z + (size_t)(i * m->T + j) * LA_W;
        la_real *t = c->zt + (size_t)(j * m->D + i) * LA_W;
        for (w = 0; w < LA_W; ++w) {
          t[w] = w < valid ? s[w] : 0;
          ok &= t[w] - t[w] == 0;
        }
      }
    for (w = 0; w < LA_W; ++w) {
      c->y[w] = w < valid ? y[w] : 0;
      ok &= c->y[w] - c->y[w] == 0;
    }
    return ok ? LA_OK : LA_ENONFINITE;
  }
  for (w = 0; w < LA_W; ++w) k0[w] = k1[w] = k2[w] = k3[w] = 0;
  for (e = 0; e + 4 <= ne; e += 4) {
    const la_real *s = z + e * LA_W;
    for (w = 0; w < LA_W; ++w) {
      k0[w] += s[w] - s[w];
      k1[w] += s[LA_W + w] - s[LA_W + w];
      k2[w] += s[2 * LA_W + w] - s[2 * LA_W + w];
      k3[w] += s[3 * LA_W + w] - s[3 * LA_W + w];
    }
  }
  for (; e < ne; ++e)
    for (w = 0; w < LA_W; ++w) k0[w] += z[e * LA_W + w] - z[e * LA_W + w];
  for (w = 0; w < LA_W; ++w) {
    c->y[w] = y[w];
    k0[w] += (y[w] - y[w]) + k1[w] + k2[w] + k3[w];
  }
  for (w = 0; w < LA_W; ++w) ok &= k0[w] == 0;
  if (!ok) return LA_ENONFINITE;
  for (i = 0; i < m->D; ++i)
    for (j = 0; j < m->T; ++j) {
      const la_real *s = z + (size_t)(i * m->T + j) * LA_W;
      la_real *t = c->zt + (size_t)(j * m->D + i) * LA_W;
      memcpy(t, s, sizeof(la_real) * LA_W); /* one vector move */
    }
  return LA_OK;
}

/* mode 0: loss, 1: gradient, 2: and Hessian-vector product. */
static int la__m_panel(const la__mctx *c, const la_model *mod,
                       const la_batch *b, int p, int mode, double *lsum,
                       la_real *pred) {
  const la__mdim *m = &c->m;
  size_t TD = m->TD * LA_W, at = ((size_t)m->n * m->D + m->D - 1) * LA_W;
  int valid = b->count - p * LA_W, l, w, st, lin = LA__LIN(mod);
  int front = m->h > 0;
  la_real *G = c->gt, *G2 = G + TD, *Gd = G2 + TD, *Gd2 = Gd + TD;
  const la_real *zL = c->zt + TD * m->L + at, *zdL = c->zdt + TD * m->L + at;
  if (valid > LA_W) valid = LA_W;
  st = la__m_load(c, b, p, valid);
  if (st) return st;
  if (front) la__front_fwd(c);
  for (l = 0; l < m->L; ++l) {
    int zd0 = l == 0 && !front;
    if (lin && l == m->L - 1) la__last_fwd(c, l, zd0);
    else if (lin) la__lin_fwd(c, l, zd0);
    else la__relu_fwd(c, l, zd0);
  }
  /* the last linear layer reads only entry `at` of its incoming gradient */
  if (!lin) la__e_zero(m->TD, G);
  if (!lin && m->hvp) la__e_zero(m->TD, Gd);
  for (w = 0; w < LA_W; ++w) {
    double r = (double)zL[w] + c->y[w];
    G[at + w] = Gd[at + w] = 0;
    if (w >= valid) continue;
    *lsum += r * r;
    if (pred) pred[(size_t)p * LA_W + w] = -zL[w];
    G[at + w] = (la_real)(2 * r);
    if (m->hvp) Gd[at + w] = (la_real)(2 * zdL[w]);
  }
  if (mode == 0) return LA_OK;
  for (l = m->L - 1; l >= 0; --l) {
    int zd0 = l == 0 && !front, dz = l > 0 || front;
    la_real *t;
    if (lin && l == m->L - 1) la__last_bwd(c, l, zd0, dz, G, G2, Gd, Gd2);
    else if (lin) la__lin_bwd(c, l, zd0, dz, G, G2, Gd, Gd2);
    else la__relu_bwd(c, l, zd0, dz, G, G2, Gd, Gd2);
    t = G; G = G2; G2 = t;
    t = Gd; Gd = Gd2; Gd2 = t;
  }
  if (front) la__front_bwd(c, G, Gd);
  return LA_OK;
}

/* ------------------------------------------------------ entry points */

LINATTN_DEF int la_model_init(la_model *m, const la_model_config *cfg) {
  la_model_config c;
  double np;
  if (!m || !cfg) return LA_ENULL;
  c = *cfg;
  if (c.d <= 0 || c.n <= 0 || c.d > LA_MAX_D || c.n > LA_MAX_N) return LA_EDIM;
  if (c.layers == 0) c.layers = 3;
  if (c.init_std == 0) c.init_std = 0.05;
  if (!c.kernels) c.kernels = la_kernels_best();
  if (c.layers < 0 || c.layers > LA_MAX_LAYERS) return LA_ERANGE;
  if (c.param < 0 || c.param > LA_PARAM_PGD) return LA_ERANGE;
  if (c.activation < 0 || c.activation > LA_ACT_RELU) return LA_ERANGE;
  if (c.front_hidden < 0 || c.front_hidden > LA_MAX_HIDDEN) return LA_ERANGE;
  if (!(c.init_std > 0) || !la__isfinite(c.init_std)) return LA_ERANGE;
  if (!c.kernels->pgemm) return LA_ERANGE;
  m->cfg = c;
  np = (double)c.layers * la__m_layer_params(m) +
       (double)la__m_front_params(c.d, c.front_hidden);
  if (np > 2147483647.0) return LA_EOVERFLOW;
  m->nparams = (int)np;
  return LA_OK;
}

static int la__m_valid(const la_model *m) {
  return m && m->cfg.d > 0 && m->cfg.n > 0 && m->cfg.layers > 0 &&
         m->cfg.kernels && m->nparams > 0;
}

LINATTN_DEF int la_model_init_params(const la_model *m, la_rng *rng,
                                     la_real *theta) {
  int i;
  if (!m || !rng || !theta) return LA_ENULL;
  if (!la__m_valid(m)) return LA_ERANGE;
  for (i = 0; i < m->nparams; ++i)
    theta[i] = (la_real)(m->cfg.init_std * la_rng_normal(rng));
  return LA_OK;
}

LINATTN_DEF int la_model_blocks(const la_model *m, int *offsets, int *sizes,
                                int max) {
  int l, k = 0, at = 0, per, i, nb, d, h, sz[4];
  if (!m || !offsets || !sizes) return LA_ENULL;
  if (!la__m_valid(m)) return LA_ERANGE;
  d = m->cfg.d; h = m->cfg.front_hidden;
  per = m->cfg.param == LA_PARAM_PGD ? 1 : 2;
  nb = m->cfg.layers * per + (h > 0 ? 4 : 0);
  if (max < nb) return LA_ERANGE;
  for (l = 0; l < m->cfg.layers * per; ++l) {
    offsets[k] = at;
    sizes[k] = la__m_layer_params(m) / per;
    at += sizes[k++];
  }
  sz[0] = h * d; sz[1] = h; sz[2] = d * h; sz[3] = d;
  for (i = 0; h > 0 && i < 4; ++i) {
    offsets[k] = at; sizes[k] = sz[i]; at += sz[i]; ++k;
  }
  return k;
}

LINATTN_DEF size_t la_model_work_bytes(const la_model *m) {
  la__mdim d;
  la__mlay o;
  if (!la__m_valid(m)) return 0;
  la__m_dims(m, 1, &d);
  return la__m_layout(m, &d, &o);
}

static int la__all_finite(int n, const la_real *x) {
  int i, ok = 1;
  for (i = 0; i < n; ++i) ok &= la__isfinite(x[i]);
  return ok;
}

/* The common path of loss, grad and hvp. */
static int la__m_run(const la_model *mod, const la_real *theta,
                     const la_batch *b, const la_real *v, int mode,
                     double *loss, la_real *pred, la_real *grad, la_real *hv,
                     void *work, size_t bytes) {
  la__mctx c;
  la__mlay o;
  size_t need, e, nex;
  la_real *base, *ex, *exv;
  double *fold, lsum = 0;
  int p, np, st = LA_OK;
  void *own = NULL;
  if (!mod || !theta || !b || !b->z || !b->y) return LA_ENULL;
  if (!la__m_valid(mod)) return LA_ERANGE;
  if (b->d != mod->cfg.d || b->n != mod->cfg.n) return LA_ESHAPE;
  if (b->count <= 0) return LA_EDIM;
  if (!la__all_finite(mod->nparams, theta)) return LA_ENONFINITE;
  if (v && !la__all_finite(mod->nparams, v)) return LA_ENONFINITE;
  la__m_dims(mod, mode == 2, &c.m);
  need = la__m_layout(mod, &c.m, &o);
  if (!work) {
    if (bytes) return LA_ENULL;
#ifndef LINATTN_NO_STDLIB
    own = work = la_alloc(need);
    bytes = need;
    if (!own) return LA_ENOMEM;
#else
    return LA_ENULL;
#endif
  }
  if (bytes < need) return LA_EWORKSPACE;
  base = (la_real *)((char *)work +
                     (LA_ALIGN - (size_t)((uintptr_t)work % LA_ALIGN)) %
                         LA_ALIGN);
  c.k = mod->cfg.kernels;
  c.ex = base + o.ex; c.exv = base + o.exv; c.g = base + o.g;
  c.gv = base + o.gv; c.zt = base + o.zt; c.zdt = base + o.zdt;
  c.st = base + o.st; c.sdt = base + o.sdt; c.gt = base + o.gt;
  c.tmp = base + o.tmp; c.fr = base + o.front; c.y = base + o.y;
  ex = base + o.plain; exv = ex + c.m.nex;
  fold = (double *)(void *)(base + o.fold);
  nex = c.m.nex;
  la__m_expand(mod, theta, ex, 0);
  la_broadcast(1, (int)nex, ex, c.ex);
  if (mode == 2) {
    la__m_expand(mod, v, exv, 1);
    la_broadcast(1, (int)nex, exv, c.exv);
    la__e_zero(nex, c.gv);
  }
  if (mode >= 1) la__e_zero(nex, c.g);
  np = la_panels(b->count);
  for (p = 0; p < np && !st; ++p)
    st = la__m_panel(&c, mod, b, p, mode, &lsum, pred);
  if (!st) {
    double sc = 1.0 / b->count;
    if (loss) *loss = lsum * sc;
    if (!la__isfinite(lsum)) st = LA_EDIVERGED;
    if (mode >= 1 && grad) {
      for (e = 0; e < nex; ++e) {
        double s = 0;
        int w;
        for (w = 0; w < LA_W; ++w) s += c.g[e * LA_W + w];
        fold[e] = s;
      }
      la__m_contract(mod, fold, sc, grad);
      if (!la__all_finite(mod->nparams, grad)) st = LA_EDIVERGED;
    }
    if (mode == 2) {
      for (e = 0; e < nex; ++e) {
        double s = 0;
        int w;
        for (w = 0; w < LA_W; ++w) s += c.gv[e * LA_W + w];
        fold[e] = s;
      }
      la__m_contract(mod, fold, sc, hv);
      if (!la__all_finite(mod->nparams, hv)) st = LA_EDIVERGED;
    }
  }
#ifndef LINATTN_NO_STDLIB
  if (own) la_free(own);
#else
  (void)own;
#endif
  return st;
}

LINATTN_DEF int la_model_loss(const la_model *m, const la_real *theta,
                              const la_batch *b, double *loss, la_real *pred,
                              void *work, size_t bytes) {
  return la__m_run(m, theta, b, NULL, 0, loss, pred, NULL, NULL, work, bytes);
}

LINATTN_DEF int la_model_grad(const la_model *m, const la_real *theta,
                              const la_batch *b, double *loss, la_real *grad,
                              void *work, size_t bytes) {
  if (!grad) return LA_ENULL;
  return la__m_run(m, theta, b, NULL, 1, loss, NULL, grad, NULL, work, bytes);
}

LINATTN_DEF int la_model_hvp(const la_model *m, const la_real *theta,
                             const la_batch *b, const la_real *v, double *loss,
                             la_real *grad, la_real *hv, void *work,
                             size_t bytes) {
  if (!v || !hv) return LA_ENULL;
  return la__m_run(m, theta, b, v, 2, loss, NULL, grad, hv, work, bytes);
}

#undef LA__MM
#undef LA__MMY
#undef LA__TA
#undef LA__TB
#undef LA__AC
#undef LA__LIN

#endif
