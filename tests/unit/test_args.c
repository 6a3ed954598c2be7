/* The argument checks of every public function, one block per row of the
   "Argument checks" table of docs/library.md, in its order: each bad call must return
   its documented status and write nothing (outputs are pre-filled with a
   sentinel byte and must keep it; objects are compared with a copy). The
   allocation side of the size checks (nothing allocated before an
   overflow is found) is tests/unit/args_alloc.c, built with a counting
   LINATTN_MALLOC. */
#include <stdlib.h>

/* ------------------------------------------------------------ helpers */

#define TA_BYTE 0xA5

static void ta_fill(void *p, size_t n) { memset(p, TA_BYTE, n); }
static int ta_clean(const void *p, size_t n) {
  const unsigned char *c = (const unsigned char *)p;
  size_t i;
  for (i = 0; i < n; ++i)
    if (c[i] != TA_BYTE) return 0;
  return 1;
}

/* `call` returns exactly `want`. */
#define TA(call, want)                                                        \
  do {                                                                        \
    int ta_st_ = (call), ta_want_ = (want);                                   \
    if (ta_st_ != ta_want_) {                                                 \
      t->checks_failed++;                                                     \
      printf("  %s:%d: %s: %s gave %d (%s), want %s\n", __FILE__, __LINE__,   \
             t->test, #call, ta_st_, la_status_str(ta_st_),                   \
             la_status_str(ta_want_));                                        \
    }                                                                         \
  } while (0)
/* the sentinel is still there */
#define TA_CLEAN(p, n) LA_CHECK(t, ta_clean((p), (n)), "%s written", #p)
/* an object is as it was */
#define TA_SAME(a, b) LA_CHECK(t, memcmp(&(a), &(b), sizeof(a)) == 0, "%s changed", #a)

#include "args_util.h"

static int ta_quad(void *ctx, const la_real *th, const la_batch *b,
                   double *loss, la_real *grad) {
  (void)ctx; (void)b;
  *loss = 0.5 * (double)th[0] * th[0];
  if (grad) grad[0] = th[0];
  return LA_OK;
}

/* The fixture: a one-layer sparse model (d 2, n 3, 8 parameters), its
   generator and a batch of 3 prompts drawn from it. */
#define TA_NP 8
typedef struct ta_fix {
  la_model m;
  la_data_config dc;
  la_data g;
  la_batch b;
  la_real theta[TA_NP], v[TA_NP];
  la_rng rng;
  int ok;
} ta_fix;

static void ta_fix_make(ta_fix *f) {
  la_model_config mc;
  int i;
  memset(f, 0, sizeof *f);
  memset(&mc, 0, sizeof mc);
  mc.d = 2; mc.n = 3; mc.layers = 1;
  memset(&f->dc, 0, sizeof f->dc);
  f->dc.d = 2; f->dc.n = 3;
  for (i = 0; i < TA_NP; ++i) {
    f->theta[i] = (la_real)(0.1 * (i + 1));
    f->v[i] = (la_real)(i % 3 - 1);
  }
  la_rng_seed(&f->rng, 7, 3);
  f->ok = la_model_init(&f->m, &mc) == LA_OK && f->m.nparams == TA_NP &&
          la_data_create(&f->g, &f->dc, 11) == LA_OK &&
          la_batch_create(&f->b, 2, 3, 3) == LA_OK &&
          la_data_sample(&f->g, &f->rng, &f->b) == LA_OK;
}
static void ta_fix_free(ta_fix *f) {
  la_batch_destroy(&f->b);
  la_data_destroy(&f->g);
}

/* ------------------------------------------------------ 1. kernels */

static void ta_kernels(la_t *t) {
  LA_TEST(t, "args/kernels: layout, products, vectors, allocation") {
    la_real *buf = (la_real *)la_alloc(sizeof(la_real) * 64 * LA_W);
    la_real *C = buf + 32 * LA_W, x[4] = {1, 2, 3, 4}, y[4];
    size_t cb = sizeof(la_real) * 32 * LA_W;
    memset(buf, 0, sizeof(la_real) * 32 * LA_W);
    /* la_pack, la_unpack: count, rows or cols <= 0 */
    ta_fill(C, cb);
    TA(la_pack(0, 2, 2, buf, C), LA_EDIM);
    TA(la_pack(1, -1, 2, buf, C), LA_EDIM);
    TA(la_unpack(1, 2, 0, buf, C), LA_EDIM);
    TA(la_unpack(-3, 2, 2, buf, C), LA_EDIM);
    /* la_broadcast, la_lane_sum: rows or cols <= 0 */
    TA(la_broadcast(0, 1, buf, C), LA_EDIM);
    TA(la_lane_sum(1, -2, buf, C), LA_EDIM);
    /* a null matrix */
    TA(la_pack(1, 2, 2, NULL, C), LA_ENULL);
    TA(la_unpack(1, 2, 2, buf, NULL), LA_ENULL);
    TA(la_broadcast(2, 2, NULL, C), LA_ENULL);
    TA(la_lane_sum(2, 2, buf, NULL), LA_ENULL);
    /* panels * rows * cols * LA_W past INT_MAX */
    TA(la_pack(2000000000, 2000, 2000, buf, C), LA_EOVERFLOW);
    TA(la_unpack(9, 60000, 60000, buf, C), LA_EOVERFLOW);
    TA(la_broadcast(100000, 100000, buf, C), LA_EOVERFLOW);
    TA(la_lane_sum(50000, 50000, buf, C), LA_EOVERFLOW);
    TA_CLEAN(C, cb);
    /* la_bgemm */
    TA(la_bgemm(0, 1, 1, 1, 1, NULL, 0, buf, 0, C, 0, 1), LA_ENULL);
    TA(la_bgemm(0, 1, 1, 1, 1, buf, 0, NULL, 0, C, 0, 1), LA_ENULL);
    TA(la_bgemm(0, 1, 1, 1, 1, buf, 0, buf, 0, NULL, 0, 1), LA_ENULL);
    TA(la_bgemm(0, 0, 1, 1, 1, buf, 0, buf, 0, C, 0, 1), LA_EDIM);
    TA(la_bgemm(0, 1, -1, 1, 1, buf, 0, buf, 0, C, 0, 1), LA_EDIM);
    TA(la_bgemm(0, 1, 1, 0, 1, buf, 0, buf, 0, C, 0, 1), LA_EDIM);
    TA(la_bgemm(0, 1, 1, 1, 1, buf, 0, buf, 0, C, 0, 0), LA_EDIM);
    TA(la_bgemm(8u, 1, 1, 1, 1, buf, 0, buf, 0, C, 0, 1), LA_ERANGE);
    TA(la_bgemm(0, 1, 1, 1, (la_real)NAN, buf, 0, buf, 0, C, 0, 1), LA_ENONFINITE);
    TA(la_bgemm(0, 1, 1, 1, (la_real)-INFINITY, buf, 0, buf, 0, C, 0, 1),
       LA_ENONFINITE);
    TA(la_bgemm(0, 100000, 100000, 1, 1, buf, 0, buf, 0, C, 0, 1), LA_EOVERFLOW);
    TA(la_bgemm(0, 1, 1, 600000000, 1, buf, 0, buf, 0, C, 0, 1), LA_EOVERFLOW);
    /* a stride shorter than its operand's panel: panels would overlap */
    TA(la_bgemm(0, 2, 2, 2, 1, buf, LA_W, buf, 0, C, 0, 2), LA_EDIM);
    TA(la_bgemm(0, 2, 2, 2, 1, buf, 0, buf, 3 * LA_W, C, 0, 2), LA_EDIM);
    TA(la_bgemm(0, 2, 2, 2, 1, buf, 0, buf, 0, C, 2 * LA_W, 2), LA_EDIM);
    /* unaligned panels, or strides that are no whole number of elements */
    TA(la_bgemm(0, 1, 1, 1, 1, buf + 1, 0, buf, 0, C, 0, 1), LA_ERANGE);
    TA(la_bgemm(0, 1, 1, 1, 1, buf, 0, buf + 1, 0, C, 0, 1), LA_ERANGE);
    TA(la_bgemm(0, 1, 1, 1, 1, buf, 0, buf, 0, C + 1, 0, 1), LA_ERANGE);
    TA(la_bgemm(0, 1, 1, 1, 1, buf, LA_W + 1, buf, 0, C, 0, 2), LA_ERANGE);
    TA_CLEAN(C, cb);
    /* the same call with aligned panels and whole strides is accepted */
    TA(la_bgemm(0, 1, 1, 1, 1, buf, LA_W, buf, 0, C, LA_W, 2), LA_OK);
    /* la_dot, la_nrm2, la_axpy, la_scale: n <= 0 or a null vector is empty */
    LA_CHECK(t, la_dot(0, x, x) == 0 && la_dot(4, NULL, x) == 0 &&
                    la_dot(-1, x, x) == 0, "dot of an empty vector");
    LA_CHECK(t, la_nrm2(0, x) == 0 && la_nrm2(4, NULL) == 0, "nrm2 of an empty vector");
    ta_fill(y, sizeof y);
    la_axpy(0, 2, x, y);
    la_axpy(4, 2, NULL, y);
    la_scale(-4, 2, y);
    la_scale(4, 2, NULL);
    TA_CLEAN(y, sizeof y);
    /* la_alloc: a size that cannot be padded; la_free(NULL) */
    LA_CHECK(t, la_alloc((size_t)-1) == NULL, "la_alloc(SIZE_MAX)");
    LA_CHECK(t, la_alloc((size_t)-1 - LA_ALIGN) == NULL, "la_alloc(SIZE_MAX - 32)");
    la_free(NULL);
    /* la_status_str: an unknown status */
    LA_CHECK(t, strcmp(la_status_str(-999), "unknown status") == 0 &&
                    strcmp(la_status_str(1), "unknown status") == 0, "unknown");
    la_free(buf);
  }
}

/* ------------------------------------------------ 2. RNG and prompts */

static void ta_prompts(la_t *t, ta_fix *f) {
  LA_TEST(t, "args/prompts: generator, batches, data settings") {
    la_rng r, r0;
    la_real x[8];
    double q[16], gv = 0;
    la_batch b, b0;
    la_data g, g0;
    la_data_config c, z;
    static unsigned char mem[4096];
    double sig_nan[4] = {1, 0, 0, 1}, asym[4] = {1, 0.5, 0, 1};
    la_rng_seed(&r, 1, 2);
    memcpy(&r0, &r, sizeof r0);
    /* la_rng_seed, _u64, _uniform, _normal: a null generator */
    la_rng_seed(NULL, 1, 1);
    LA_CHECK(t, la_rng_u64(NULL) == 0 && la_rng_uniform(NULL) == 0 &&
                    la_rng_normal(NULL) == 0, "null generator draws 0");
    /* la_rng_normals, _sphere, _orthogonal, _gamma: null pointers */
    ta_fill(x, sizeof x);
    ta_fill(q, sizeof q);
    TA(la_rng_normals(NULL, 4, x), LA_ENULL);
    TA(la_rng_normals(&r, 4, NULL), LA_ENULL);
    TA(la_rng_sphere(NULL, 4, x), LA_ENULL);
    TA(la_rng_sphere(&r, 4, NULL), LA_ENULL);
    TA(la_rng_orthogonal(NULL, 4, q), LA_ENULL);
    TA(la_rng_orthogonal(&r, 4, NULL), LA_ENULL);
    TA(la_rng_gamma(NULL, 1, 1, q), LA_ENULL);
    TA(la_rng_gamma(&r, 1, 1, NULL), LA_ENULL);
    /* la_rng_normals, _sphere: n or d <= 0 */
    TA(la_rng_normals(&r, 0, x), LA_EDIM);
    TA(la_rng_sphere(&r, -1, x), LA_EDIM);
    /* la_rng_orthogonal: d <= 0 or > LA_MAX_D */
    TA(la_rng_orthogonal(&r, 0, q), LA_EDIM);
    TA(la_rng_orthogonal(&r, LA_MAX_D + 1, q), LA_EDIM);
    /* la_rng_gamma: NaN or infinite k, theta */
    TA(la_rng_gamma(&r, NAN, 1, q), LA_ENONFINITE);
    TA(la_rng_gamma(&r, 1, INFINITY, q), LA_ENONFINITE);
    /* la_rng_gamma: k <= 0 or theta <= 0 */
    TA(la_rng_gamma(&r, 0, 1, q), LA_ERANGE);
    TA(la_rng_gamma(&r, 1, -2, q), LA_ERANGE);
    /* la_rng_gamma: a variate beyond double (the generator is restored) */
    TA(la_rng_gamma(&r, 50, 1e307, q), LA_ERANGE);
    TA_CLEAN(x, sizeof x);
    TA_CLEAN(q, sizeof q);
    TA_SAME(r, r0);
    LA_CHECK(t, la_rng_gamma(&r, 50, 1, &gv) == LA_OK && gv > 0, "a valid Gamma");

    /* la_batch_bytes: an invalid shape is 0 */
    LA_CHECK(t, la_batch_bytes(0, 3, 1) == 0 && la_batch_bytes(2, 0, 1) == 0 &&
                    la_batch_bytes(2, 3, -1) == 0 &&
                    la_batch_bytes(LA_MAX_D + 1, 3, 1) == 0 &&
                    la_batch_bytes(2, LA_MAX_N + 1, 1) == 0, "batch bytes 0");
    ta_fill(&b, sizeof b);
    memcpy(&b0, &b, sizeof b0);
    /* la_batch_init, la_batch_create: null pointers */
    TA(la_batch_init(NULL, 2, 3, 1, mem, sizeof mem), LA_ENULL);
    TA(la_batch_init(&b, 2, 3, 1, NULL, sizeof mem), LA_ENULL);
    TA(la_batch_create(NULL, 2, 3, 1), LA_ENULL);
    /* d, n or count <= 0, d > LA_MAX_D, n > LA_MAX_N */
    TA(la_batch_init(&b, 0, 3, 1, mem, sizeof mem), LA_EDIM);
    TA(la_batch_init(&b, 2, -3, 1, mem, sizeof mem), LA_EDIM);
    TA(la_batch_init(&b, 2, 3, 0, mem, sizeof mem), LA_EDIM);
    TA(la_batch_init(&b, LA_MAX_D + 1, 3, 1, mem, sizeof mem), LA_EDIM);
    TA(la_batch_create(&b, 2, LA_MAX_N + 1, 1), LA_EDIM);
    /* the size past size_t (a 32-bit host; a 64-bit one counts it whole) */
    if (sizeof(size_t) < 8) {
      TA(la_batch_init(&b, LA_MAX_D, LA_MAX_N, 2147483647, mem, sizeof mem),
         LA_EOVERFLOW);
      TA(la_batch_create(&b, LA_MAX_D, LA_MAX_N, 2147483647), LA_EOVERFLOW);
    } else {
      double want = (double)la_panels(2147483647) * LA_W *
                    ((LA_MAX_D + 1.0) * (LA_MAX_N + 1.0) + 1.0) * sizeof(la_real);
      LA_CHECK(t, (double)la_batch_bytes(LA_MAX_D, LA_MAX_N, 2147483647) == want,
               "the largest batch counted whole");
    }
    /* bytes below la_batch_bytes */
    TA(la_batch_init(&b, 2, 3, 9, mem, la_batch_bytes(2, 3, 9) - 1), LA_EWORKSPACE);
    TA_SAME(b, b0);

    /* la_data_preset: null, a setting outside 1..6 */
    ta_fill(&c, sizeof c);
    TA(la_data_preset(NULL, 1), LA_ENULL);
    TA(la_data_preset(&c, 0), LA_ERANGE);
    TA(la_data_preset(&c, LA_SETTING_PAPER_B + 1), LA_ERANGE);
    TA_CLEAN(&c, sizeof c);
    /* la_data_init, _create, _bytes: each bad description */
    memset(&z, 0, sizeof z);
    ta_fill(&g, sizeof g);
    memcpy(&g0, &g, sizeof g0);
#define TA_DATA(stmt, want)                                                   \
  do {                                                                        \
    c = z;                                                                    \
    stmt;                                                                     \
    TA(la_data_init(&g, &c, 1, mem, sizeof mem), want);                       \
    TA(la_data_create(&g, &c, 1), want);                                      \
    if ((want) != LA_ENOTSPD && (want) != LA_ENONFINITE)                      \
      LA_CHECK(t, la_data_bytes(&c) == 0, "bytes of: %s", #stmt);             \
  } while (0)
    /* d, n outside [0, max] (0 is the default), net_hidden < 0 or > LA_MAX_D */
    TA_DATA(c.d = -1, LA_EDIM);
    TA_DATA(c.d = LA_MAX_D + 1, LA_EDIM);
    TA_DATA(c.n = -5, LA_EDIM);
    TA_DATA(c.n = LA_MAX_N + 1, LA_EDIM);
    TA_DATA(c.net_hidden = -1, LA_EDIM);
    TA_DATA((c.target = LA_TARGET_RELU_NET, c.net_hidden = LA_MAX_D + 1), LA_EDIM);
    /* an unknown covariates, sigma, wstar or target kind */
    TA_DATA(c.covariates = LA_X_SPHERE + 1, LA_ERANGE);
    TA_DATA(c.sigma = -1, LA_ERANGE);
    TA_DATA(c.wstar = 2, LA_ERANGE);
    TA_DATA(c.target = 2, LA_ERANGE);
    /* a negative Gamma shape or scale */
    TA_DATA((c.covariates = LA_X_GAMMA_SPHERE, c.gamma_shape = -0.1), LA_ERANGE);
    TA_DATA((c.covariates = LA_X_GAMMA_SPHERE, c.gamma_scale = -1), LA_ERANGE);
    /* NaN or Inf in the Gamma parameters or noise_std */
    TA_DATA((c.covariates = LA_X_GAMMA_SPHERE, c.gamma_shape = NAN), LA_ENONFINITE);
    TA_DATA((c.covariates = LA_X_GAMMA_SPHERE, c.gamma_scale = INFINITY),
            LA_ENONFINITE);
    TA_DATA(c.noise_std = NAN, LA_ENONFINITE);
    /* noise_std < 0 or beyond la_real */
    TA_DATA(c.noise_std = -0.5, LA_ERANGE);
    TA_DATA(c.noise_std = sizeof(la_real) == 4 ? 1e39 : 1.5e308, LA_ERANGE);
    /* LA_SIGMA_GIVEN without a matrix */
    TA_DATA(c.sigma = LA_SIGMA_GIVEN, LA_ENULL);
    /* a NaN in sigma_matrix */
    sig_nan[1] = sig_nan[2] = NAN;
    TA_DATA((c.d = 2, c.sigma = LA_SIGMA_GIVEN, c.sigma_matrix = sig_nan),
            LA_ENONFINITE);
    /* an asymmetric or indefinite sigma_matrix */
    TA_DATA((c.d = 2, c.sigma = LA_SIGMA_GIVEN, c.sigma_matrix = asym), LA_ENOTSPD);
    asym[1] = 0; asym[3] = -1;
    TA_DATA((c.d = 2, c.sigma = LA_SIGMA_GIVEN, c.sigma_matrix = asym), LA_ENOTSPD);
#undef TA_DATA
    /* null pointers; bytes below la_data_bytes */
    c = z;
    c.sigma = LA_SIGMA_PAPER_B;
    TA(la_data_init(NULL, &c, 1, mem, sizeof mem), LA_ENULL);
    TA(la_data_init(&g, NULL, 1, mem, sizeof mem), LA_ENULL);
    TA(la_data_init(&g, &c, 1, NULL, sizeof mem), LA_ENULL);
    TA(la_data_create(&g, NULL, 1), LA_ENULL);
    TA(la_data_create(NULL, &c, 1), LA_ENULL);
    LA_CHECK(t, la_data_bytes(NULL) == 0, "bytes of NULL");
    TA(la_data_init(&g, &c, 1, mem, la_data_bytes(&c) - 1), LA_EWORKSPACE);
    TA_SAME(g, g0);

    /* la_data_sample */
    if (f->ok) {
      la_batch bb = f->b;
      la_data gg = f->g;
      size_t zb = la_batch_bytes(2, 3, 3);
      unsigned char *zs = (unsigned char *)malloc(zb);
      memcpy(zs, f->b.z, zb);
      memcpy(&r0, &r, sizeof r0);
      TA(la_data_sample(NULL, &r, &f->b), LA_ENULL);
      TA(la_data_sample(&f->g, NULL, &f->b), LA_ENULL);
      TA(la_data_sample(&f->g, &r, NULL), LA_ENULL);
      bb.z = NULL;
      TA(la_data_sample(&f->g, &r, &bb), LA_ENULL);
      /* a generator la_data_init did not fill */
      gg.cfg.sigma = LA_SIGMA_PAPER_B;
      TA(la_data_sample(&gg, &r, &f->b), LA_ENULL);
      /* count <= 0; a hand-made generator past the limits */
      bb = f->b;
      bb.count = 0;
      TA(la_data_sample(&f->g, &r, &bb), LA_EDIM);
      gg = f->g;
      gg.cfg.d = LA_MAX_D + 1;
      TA(la_data_sample(&gg, &r, &f->b), LA_EDIM);
      gg = f->g;
      gg.net = f->b.z;
      gg.cfg.net_hidden = LA_MAX_D + 1;
      TA(la_data_sample(&gg, &r, &f->b), LA_EDIM);
      /* a batch of another d or n */
      bb = f->b;
      bb.n = 4;
      TA(la_data_sample(&f->g, &r, &bb), LA_ESHAPE);
      TA_SAME(r, r0);
      LA_CHECK(t, memcmp(zs, f->b.z, zb) == 0, "batch written");
      free(zs);
    }
  }
}

/* --------------------------------------------------------- 3. model */

static void ta_model(la_t *t, ta_fix *f) {
  LA_TEST(t, "args/model: configuration, loss, gradient, HVP") {
    la_model m, m0, bad;
    la_model_config c, z;
    la_kernels nopgemm;
    la_batch bb;
    la_real th[TA_NP], out[3 * TA_NP];
    int off[8], sz[8];
    double loss;
    size_t need;
    unsigned char *work;
    memset(&z, 0, sizeof z);
    z.d = 2; z.n = 3; z.layers = 1;
    ta_fill(&m, sizeof m);
    memcpy(&m0, &m, sizeof m0);
    /* la_model_init: null pointers */
    TA(la_model_init(NULL, &z), LA_ENULL);
    TA(la_model_init(&m, NULL), LA_ENULL);
#define TA_MODEL(stmt, want)                                                  \
  do {                                                                        \
    c = z;                                                                    \
    stmt;                                                                     \
    TA(la_model_init(&m, &c), want);                                          \
  } while (0)
    /* d or n <= 0 or beyond LA_MAX_D, LA_MAX_N */
    TA_MODEL(c.d = 0, LA_EDIM);
    TA_MODEL(c.n = -1, LA_EDIM);
    TA_MODEL(c.d = LA_MAX_D + 1, LA_EDIM);
    TA_MODEL(c.n = LA_MAX_N + 1, LA_EDIM);
    /* layers < 0 or > LA_MAX_LAYERS; an unknown param or activation;
       front_hidden < 0 or > LA_MAX_HIDDEN */
    TA_MODEL(c.layers = -1, LA_ERANGE);
    TA_MODEL(c.layers = LA_MAX_LAYERS + 1, LA_ERANGE);
    TA_MODEL(c.param = LA_PARAM_PGD + 1, LA_ERANGE);
    TA_MODEL(c.activation = -1, LA_ERANGE);
    TA_MODEL(c.front_hidden = -2, LA_ERANGE);
    TA_MODEL(c.front_hidden = LA_MAX_HIDDEN + 1, LA_ERANGE);
    /* init_std < 0, NaN or Inf (0 is the default) */
    TA_MODEL(c.init_std = -0.1, LA_ERANGE);
    TA_MODEL(c.init_std = NAN, LA_ERANGE);
    TA_MODEL(c.init_std = INFINITY, LA_ERANGE);
    /* a kernel table without its panel product */
    nopgemm = *la_kernels_scalar();
    nopgemm.pgemm = NULL;
    TA_MODEL(c.kernels = &nopgemm, LA_ERANGE);
    /* a workspace past size_t: the largest ReLU model on a 32-bit host */
    c = z;
    c.d = LA_MAX_D; c.n = LA_MAX_N; c.layers = LA_MAX_LAYERS;
    c.activation = LA_ACT_RELU;
    if (sizeof(size_t) < 8) {
      TA(la_model_init(&m, &c), LA_EOVERFLOW);
    } else {
      la_model big;
      /* each layer keeps the n x (n+1) scores and their tangents, per lane */
      double lower = 2.0 * LA_MAX_LAYERS * LA_MAX_N * (LA_MAX_N + 1.0) * 2 *
                     LA_W * sizeof(la_real);
      LA_CHECK(t, la_model_init(&big, &c) == LA_OK &&
                      (double)la_model_work_bytes(&big) > lower,
               "the largest workspace counted whole");
    }
#undef TA_MODEL
    TA_SAME(m, m0);

    LA_CHECK(t, f->ok, "the fixture");
    if (f->ok) {
    /* la_model_init_params, la_model_blocks: null pointers */
    ta_fill(th, sizeof th);
    ta_fill(off, sizeof off);
    ta_fill(sz, sizeof sz);
    TA(la_model_init_params(NULL, &f->rng, th), LA_ENULL);
    TA(la_model_init_params(&f->m, NULL, th), LA_ENULL);
    TA(la_model_init_params(&f->m, &f->rng, NULL), LA_ENULL);
    TA(la_model_blocks(NULL, off, sz, 8), LA_ENULL);
    TA(la_model_blocks(&f->m, NULL, sz, 8), LA_ENULL);
    TA(la_model_blocks(&f->m, off, NULL, 8), LA_ENULL);
    /* a model la_model_init did not make: zeroed, or fields changed */
    memset(&bad, 0, sizeof bad);
    TA(la_model_init_params(&bad, &f->rng, th), LA_ERANGE);
    TA(la_model_blocks(&bad, off, sz, 8), LA_ERANGE);
    LA_CHECK(t, la_model_work_bytes(&bad) == 0 && la_model_work_bytes(NULL) == 0,
             "work bytes of an invalid model");
    bad = f->m;
    bad.nparams = TA_NP + 1;
    TA(la_model_loss(&bad, f->theta, &f->b, &loss, NULL, NULL, 0), LA_ERANGE);
    bad = f->m;
    bad.cfg.d = LA_MAX_D + 1;
    TA(la_model_grad(&bad, f->theta, &f->b, &loss, out, NULL, 0), LA_ERANGE);
    bad = f->m;
    bad.cfg.activation = 7;
    TA(la_model_hvp(&bad, f->theta, &f->b, f->v, &loss, NULL, out, NULL, 0),
       LA_ERANGE);
    /* la_model_blocks: max below the number of blocks */
    TA(la_model_blocks(&f->m, off, sz, 1), LA_ERANGE);
    TA_CLEAN(th, sizeof th);
    TA_CLEAN(off, sizeof off);
    TA_CLEAN(sz, sizeof sz);

    /* la_model_loss, _grad, _hvp */
    need = la_model_work_bytes(&f->m);
    work = (unsigned char *)malloc(need);
    loss = 0;
    ta_fill(&loss, sizeof loss);
    ta_fill(out, sizeof out);
    /* null pointers: model, theta, batch, its arrays, grad, v, hv */
    TA(la_model_loss(NULL, f->theta, &f->b, &loss, out, work, need), LA_ENULL);
    TA(la_model_loss(&f->m, NULL, &f->b, &loss, out, work, need), LA_ENULL);
    TA(la_model_grad(&f->m, f->theta, NULL, &loss, out, work, need), LA_ENULL);
    bb = f->b;
    bb.y = NULL;
    TA(la_model_loss(&f->m, f->theta, &bb, &loss, out, work, need), LA_ENULL);
    TA(la_model_grad(&f->m, f->theta, &f->b, &loss, NULL, work, need), LA_ENULL);
    TA(la_model_hvp(&f->m, f->theta, &f->b, NULL, &loss, NULL, out, work, need),
       LA_ENULL);
    TA(la_model_hvp(&f->m, f->theta, &f->b, f->v, &loss, NULL, NULL, work, need),
       LA_ENULL);
    /* work NULL with bytes > 0 */
    TA(la_model_loss(&f->m, f->theta, &f->b, &loss, out, NULL, need), LA_ENULL);
    /* a batch of another d or n */
    bb = f->b;
    bb.d = 3;
    TA(la_model_loss(&f->m, f->theta, &bb, &loss, out, work, need), LA_ESHAPE);
    bb = f->b;
    bb.n = 2;
    TA(la_model_grad(&f->m, f->theta, &bb, &loss, out, work, need), LA_ESHAPE);
    /* an empty batch */
    bb = f->b;
    bb.count = 0;
    TA(la_model_hvp(&f->m, f->theta, &bb, f->v, &loss, out, out + TA_NP, work,
                    need), LA_EDIM);
    /* NaN or Inf in theta or v */
    memcpy(th, f->theta, sizeof th);
    th[3] = (la_real)NAN;
    TA(la_model_loss(&f->m, th, &f->b, &loss, out, work, need), LA_ENONFINITE);
    th[3] = (la_real)INFINITY;
    TA(la_model_grad(&f->m, th, &f->b, &loss, out, work, need), LA_ENONFINITE);
    memcpy(th, f->v, sizeof th);
    th[0] = (la_real)NAN;
    TA(la_model_hvp(&f->m, f->theta, &f->b, th, &loss, out, out + TA_NP, work,
                    need), LA_ENONFINITE);
    /* NaN or Inf in the data of a prompt (its label here) */
    {
      la_real keep = f->b.y[1];
      f->b.y[1] = (la_real)NAN;
      TA(la_model_loss(&f->m, f->theta, &f->b, &loss, NULL, work, need),
         LA_ENONFINITE);
      f->b.y[1] = (la_real)-INFINITY;
      TA(la_model_grad(&f->m, f->theta, &f->b, &loss, out, work, need),
         LA_ENONFINITE);
      f->b.y[1] = keep;
    }
    /* bytes below la_model_work_bytes */
    TA(la_model_grad(&f->m, f->theta, &f->b, &loss, out, work, need - 1),
       LA_EWORKSPACE);
    TA(la_model_hvp(&f->m, f->theta, &f->b, f->v, &loss, out, out + TA_NP, work,
                    1), LA_EWORKSPACE);
    TA_CLEAN(&loss, sizeof loss);
    TA_CLEAN(out, sizeof out);
    /* and the valid call goes through */
    TA(la_model_hvp(&f->m, f->theta, &f->b, f->v, &loss, out, out + TA_NP, work,
                    need), LA_OK);
    /* la_model_grad_fresh: rng and the outputs are left as they were */
    {
      la_rng r0 = f->rng, r = f->rng;
      la_data g2;
      la_data_config dc2 = f->dc;
      ta_fill(&loss, sizeof loss);
      ta_fill(out, sizeof out);
      TA(la_model_grad_fresh(NULL, f->theta, &f->g, &r, 5, &loss, out, work, need),
         LA_ENULL);
      TA(la_model_grad_fresh(&f->m, NULL, &f->g, &r, 5, &loss, out, work, need),
         LA_ENULL);
      TA(la_model_grad_fresh(&f->m, f->theta, NULL, &r, 5, &loss, out, work, need),
         LA_ENULL);
      TA(la_model_grad_fresh(&f->m, f->theta, &f->g, NULL, 5, &loss, out, work,
                             need), LA_ENULL);
      TA(la_model_grad_fresh(&f->m, f->theta, &f->g, &r, 0, &loss, out, work, need),
         LA_EDIM);
      memcpy(th, f->theta, sizeof th);
      th[1] = (la_real)NAN;
      TA(la_model_grad_fresh(&f->m, th, &f->g, &r, 5, &loss, out, work, need),
         LA_ENONFINITE);
      TA(la_model_grad_fresh(&f->m, f->theta, &f->g, &r, 5, &loss, out, work,
                             need - 1), LA_EWORKSPACE);
      dc2.n = 4;
      if (la_data_create(&g2, &dc2, 1) == LA_OK) {
        TA(la_model_grad_fresh(&f->m, f->theta, &g2, &r, 5, &loss, out, work,
                               need), LA_ESHAPE);
        la_data_destroy(&g2);
      }
      r.counter = ((((uint64_t)1 << 30) - 1) << 34) - 1;
      r0 = r;
      TA(la_model_grad_fresh(&f->m, f->theta, &f->g, &r, 5, &loss, out, work,
                             need), LA_ERANGE);
      TA_SAME(r, r0);
      TA_CLEAN(&loss, sizeof loss);
      TA_CLEAN(out, sizeof out);
      r = f->rng;
      TA(la_model_grad_fresh(&f->m, f->theta, &f->g, &r, 5, &loss, out, work,
                             need), LA_OK);
    }
    free(work);
    }
  }
}

/* ---------------------------------------------------- 4. optimizers */

static void ta_optim(la_t *t) {
  LA_TEST(t, "args/optim: configurations, steps, clipping, schedules") {
    la_optim_config sg;
    la_optim_config ad;
    la_optim_config sn;
    la_optim_config ag;
    la_optim_config rm;
    la_optimizer noname = *la_optimizer_adam();
    const la_optimizer *all[6];
    double state[16], bad[4] = {-1e-3, NAN, INFINITY, -INFINITY};
    double betas[4] = {1, 1.5, -0.1, NAN};
    la_real th[4] = {1, 2, 3, 4}, th0[4], g[4] = {0.5, -1, 2, 0}, u[4];
    int off[2] = {0, 2}, sz[2] = {2, 2}, i, o;
    size_t len = 0;
    la_schedule sc, sz0;
    double scale;
    all[0] = la_optimizer_sgd(); all[1] = la_optimizer_adam();
    all[2] = la_optimizer_sign(); all[3] = la_optimizer_nsgd();
    all[4] = la_optimizer_adagrad(); all[5] = la_optimizer_rmsprop();
    memcpy(th0, th, sizeof th);
    /* a null optimizer or one with a null member */
    noname.name = NULL;
    TA(la_optim_check(NULL, NULL), LA_ENULL);
    TA(la_optim_check(&noname, NULL), LA_ENULL);
    noname = *la_optimizer_adam();
    noname.step = NULL;
    TA(la_optim_state_len(&noname, NULL, 4, &len), LA_ENULL);
    TA(la_optim_init(&noname, NULL, 4, state, 16), LA_ENULL);
    TA(la_optim_step(&noname, NULL, 4, state, 16, 1, g, th, u), LA_ENULL);
    /* lr < 0, NaN or Inf (0 is the default), every optimizer */
    for (i = 0; i < 4; ++i) {
      memset(&sg, 0, sizeof sg); sg.lr = bad[i];
      memset(&ad, 0, sizeof ad); ad.lr = bad[i];
      memset(&sn, 0, sizeof sn); sn.lr = bad[i];
      memset(&ag, 0, sizeof ag); ag.lr = bad[i];
      memset(&rm, 0, sizeof rm); rm.lr = bad[i];
      TA(la_optim_check(all[0], &sg), LA_ERANGE);
      TA(la_optim_check(all[1], &ad), LA_ERANGE);
      TA(la_optim_check(all[2], &sn), LA_ERANGE);
      TA(la_optim_check(all[3], &sn), LA_ERANGE);
      TA(la_optim_check(all[4], &ag), LA_ERANGE);
      TA(la_optim_check(all[5], &rm), LA_ERANGE);
    }
    /* momentum, beta1, beta2, alpha outside [0, 1) or NaN */
    for (i = 0; i < 4; ++i) {
      memset(&sg, 0, sizeof sg); sg.momentum = betas[i];
      memset(&sn, 0, sizeof sn); sn.momentum = betas[i];
      memset(&rm, 0, sizeof rm); rm.alpha = betas[i];
      TA(la_optim_check(all[0], &sg), LA_ERANGE);
      TA(la_optim_check(all[2], &sn), LA_ERANGE);
      TA(la_optim_check(all[3], &sn), LA_ERANGE);
      TA(la_optim_check(all[5], &rm), LA_ERANGE);
      memset(&rm, 0, sizeof rm); rm.momentum = betas[i];
      TA(la_optim_check(all[5], &rm), LA_ERANGE);
      memset(&ad, 0, sizeof ad); ad.beta1 = betas[i];
      TA(la_optim_check(all[1], &ad), LA_ERANGE);
      memset(&ad, 0, sizeof ad); ad.beta2 = betas[i];
      TA(la_optim_check(all[1], &ad), LA_ERANGE);
    }
    /* eps, weight_decay, initial < 0 or non-finite */
    for (i = 0; i < 4; ++i) {
      memset(&ad, 0, sizeof ad); ad.eps = bad[i];
      TA(la_optim_check(all[1], &ad), LA_ERANGE);
      memset(&ad, 0, sizeof ad); ad.weight_decay = bad[i];
      TA(la_optim_check(all[1], &ad), LA_ERANGE);
      memset(&sg, 0, sizeof sg); sg.weight_decay = bad[i];
      TA(la_optim_check(all[0], &sg), LA_ERANGE);
      memset(&sn, 0, sizeof sn); sn.weight_decay = bad[i];
      TA(la_optim_check(all[3], &sn), LA_ERANGE);
      memset(&ag, 0, sizeof ag); ag.eps = bad[i];
      TA(la_optim_check(all[4], &ag), LA_ERANGE);
      memset(&ag, 0, sizeof ag); ag.initial = bad[i];
      TA(la_optim_check(all[4], &ag), LA_ERANGE);
      memset(&rm, 0, sizeof rm); rm.eps = bad[i];
      TA(la_optim_check(all[5], &rm), LA_ERANGE);
    }
    /* Nesterov without momentum */
    memset(&sg, 0, sizeof sg);
    sg.nesterov = 1;
    TA(la_optim_check(all[0], &sg), LA_ERANGE);
    /* a bad configuration is refused by every entry point */
    ta_fill(state, sizeof state);
    ta_fill(u, sizeof u);
    TA(la_optim_state_len(all[0], &sg, 4, &len), LA_ERANGE);
    TA(la_optim_init(all[0], &sg, 4, state, 16), LA_ERANGE);
    TA(la_optim_step(all[0], &sg, 4, state, 16, 1, g, th, u), LA_ERANGE);
    /* len null; n <= 0 */
    TA(la_optim_state_len(all[1], NULL, 4, NULL), LA_ENULL);
    for (o = 0; o < 6; ++o) {
      TA(la_optim_state_len(all[o], NULL, 0, &len), LA_EDIM);
      TA(la_optim_init(all[o], NULL, -1, state, 16), LA_EDIM);
      TA(la_optim_step(all[o], NULL, 0, state, 16, 1, g, th, u), LA_EDIM);
    }
    /* state shorter than la_optim_state_len, or null when it is needed */
    TA(la_optim_init(all[1], NULL, 4, state, 8), LA_EWORKSPACE);
    TA(la_optim_step(all[1], NULL, 4, state, 8, 1, g, th, u), LA_EWORKSPACE);
    TA(la_optim_init(all[1], NULL, 4, NULL, 16), LA_ENULL);
    TA(la_optim_step(all[4], NULL, 4, NULL, 16, 1, g, th, u), LA_ENULL);
    /* null grad, theta or update */
    TA(la_optim_step(all[1], NULL, 4, state, 16, 1, NULL, th, u), LA_ENULL);
    TA(la_optim_step(all[1], NULL, 4, state, 16, 1, g, NULL, u), LA_ENULL);
    TA(la_optim_step(all[1], NULL, 4, state, 16, 1, g, th, NULL), LA_ENULL);
    /* lr_scale < 0 or non-finite */
    for (i = 0; i < 4; ++i)
      TA(la_optim_step(all[1], NULL, 4, state, 16, bad[i], g, th, u), LA_ERANGE);
    /* NaN or Inf in the gradient or in theta */
    g[1] = (la_real)NAN;
    TA(la_optim_step(all[1], NULL, 4, state, 16, 1, g, th, u), LA_ENONFINITE);
    g[1] = -1;
    th[2] = (la_real)INFINITY;
    TA(la_optim_step(all[0], NULL, 4, state, 16, 1, g, th, u), LA_ENONFINITE);
    th[2] = 3;
    TA_CLEAN(state, sizeof state);
    TA_CLEAN(u, sizeof u);
    LA_CHECK(t, memcmp(th, th0, sizeof th) == 0, "theta changed");

    /* la_clip_norm, la_clip_blocks: null pointers */
    TA(la_clip_norm(4, NULL, 1, NULL), LA_ENULL);
    TA(la_clip_blocks(4, NULL, 2, off, sz, 1), LA_ENULL);
    TA(la_clip_blocks(4, th, 2, NULL, sz, 1), LA_ENULL);
    TA(la_clip_blocks(4, th, 2, off, NULL, 1), LA_ENULL);
    /* n <= 0; nblocks <= 0 */
    TA(la_clip_norm(0, th, 1, NULL), LA_EDIM);
    TA(la_clip_blocks(-1, th, 2, off, sz, 1), LA_EDIM);
    TA(la_clip_blocks(4, th, 0, off, sz, 1), LA_EDIM);
    /* a block outside [0, n), or of size <= 0 */
    off[1] = 3;
    TA(la_clip_blocks(4, th, 2, off, sz, 1), LA_EDIM);
    off[1] = -1;
    TA(la_clip_blocks(4, th, 2, off, sz, 1), LA_EDIM);
    off[1] = 2; sz[1] = 0;
    TA(la_clip_blocks(4, th, 2, off, sz, 1), LA_EDIM);
    sz[1] = 2;
    /* max_norm <= 0 or non-finite */
    for (i = 0; i < 4; ++i) {
      TA(la_clip_norm(4, th, bad[i], NULL), LA_ERANGE);
      TA(la_clip_blocks(4, th, 2, off, sz, bad[i]), LA_ERANGE);
    }
    TA(la_clip_norm(4, th, 0, NULL), LA_ERANGE);
    /* NaN or Inf in g */
    th[1] = (la_real)NAN;
    scale = 7;
    TA(la_clip_norm(4, th, 1, &scale), LA_ENONFINITE);
    TA(la_clip_blocks(4, th, 2, off, sz, 1), LA_ENONFINITE);
    th[1] = 2;
    LA_CHECK(t, memcmp(th, th0, sizeof th) == 0 && scale == 7, "g or norm written");

    /* la_schedule_check, la_schedule_scale */
    memset(&sc, 0, sizeof sc);
    scale = 7;
    TA(la_schedule_check(NULL), LA_ENULL);
    TA(la_schedule_scale(NULL, 0, &scale), LA_ENULL);
    TA(la_schedule_scale(&sc, 0, NULL), LA_ENULL);
    memcpy(&sz0, &sc, sizeof sz0);
#define TA_SCHED(stmt)                                                        \
  do {                                                                        \
    sc = sz0;                                                                 \
    stmt;                                                                     \
    TA(la_schedule_check(&sc), LA_ERANGE);                                    \
    TA(la_schedule_scale(&sc, 3, &scale), LA_ERANGE);                         \
  } while (0)
    /* an unknown kind; warmup < 0 */
    TA_SCHED(sc.kind = 3);
    TA_SCHED(sc.warmup = -1);
    /* HALVING: period < 0, decay outside (0, 1) (0 is the default of both) */
    TA_SCHED((sc.kind = LA_SCHED_HALVING, sc.period = -1));
    TA_SCHED((sc.kind = LA_SCHED_HALVING, sc.period = 5, sc.decay = 1));
    TA_SCHED((sc.kind = LA_SCHED_HALVING, sc.period = 5, sc.decay = -0.5));
    TA_SCHED((sc.kind = LA_SCHED_HALVING, sc.period = 5, sc.decay = NAN));
    /* COSINE: total <= warmup, min_scale outside [0, 1] */
    TA_SCHED((sc.kind = LA_SCHED_COSINE, sc.total = 10, sc.warmup = 10));
    TA_SCHED((sc.kind = LA_SCHED_COSINE, sc.total = 10, sc.min_scale = 1.5));
    TA_SCHED((sc.kind = LA_SCHED_COSINE, sc.total = 10, sc.min_scale = NAN));
#undef TA_SCHED
    /* t < 0 */
    sc = sz0;
    TA(la_schedule_scale(&sc, -1, &scale), LA_ERANGE);
    LA_CHECK(t, scale == 7, "scale written");
  }
}

/* --------------------------------------------------- 5. diagnostics */

static void ta_diag(la_t *t) {
  LA_TEST(t, "args/diag: eigensolvers, Lanczos, SLQ, traces, statistics") {
    double dg[6] = {1, 2, 3, 4, 5, 6}, a[36], w[6], vecs[36], h[36];
    double nodes[64], weights[64], grid[4] = {0, 1, 2, 3}, dens[4];
    double vals[6] = {3, 1, 2, 5, 4, 6}, wts[6] = {1, 1, 1, 1, 1, 1};
    double med, r, x, tr, se, alpha, work[64];
    double ev[6], res[6];
    la_real vv[36];
    la_eig_out out, out0;
    la_lanczos_config lc;
    la_slq_config sq;
    la_trace_config tc;
    la_lsmooth_fit fit;
    la_noise_config nc;
    la_noise_stats ns;
    int i;
    for (i = 0; i < 36; ++i) a[i] = (i % 7 == 0) ? 1.0 + i : 0.0; /* diagonal */
    /* the sentinel in every output */
    ta_fill(w, sizeof w); ta_fill(vecs, sizeof vecs); ta_fill(h, sizeof h);
    ta_fill(nodes, sizeof nodes); ta_fill(weights, sizeof weights);
    ta_fill(dens, sizeof dens); ta_fill(&med, sizeof med); ta_fill(&r, sizeof r);
    ta_fill(&x, sizeof x); ta_fill(&tr, sizeof tr); ta_fill(&se, sizeof se);
    ta_fill(&alpha, sizeof alpha); ta_fill(&fit, sizeof fit);
    ta_fill(&ns, sizeof ns); ta_fill(ev, sizeof ev); ta_fill(res, sizeof res);
    ta_fill(vv, sizeof vv);
    memset(&out, 0, sizeof out);
    out.values = ev; out.residuals = res; out.vectors = vv;
    ta_fill(&out.matvecs, 3 * sizeof(int));
    memcpy(&out0, &out, sizeof out0);

    /* la_sym_eig, la_dense_from_matvec: n <= 0 or > 46340 */
    LA_CHECK(t, la_sym_eig_work_bytes(0) == 0 && la_sym_eig_work_bytes(46341) == 0 &&
                    la_dense_from_matvec_work_bytes(-1) == 0 &&
                    la_dense_from_matvec_work_bytes(46341) == 0, "work bytes 0");
    TA(la_sym_eig(0, a, w, vecs, NULL, 0), LA_EDIM);
    TA(la_sym_eig(46341, a, w, vecs, NULL, 0), LA_EDIM);
    TA(la_dense_from_matvec(0, ta_diag_mv, dg, h, NULL, 0), LA_EDIM);
    TA(la_dense_from_matvec(46341, ta_diag_mv, dg, h, NULL, 0), LA_EDIM);
    /* the workspace past size_t (a 32-bit host) */
    if (sizeof(size_t) < 8)
      TA(la_sym_eig(20000, a, w, vecs, NULL, 0), LA_EOVERFLOW);
    else
      LA_CHECK(t, (double)la_sym_eig_work_bytes(46340) >= 8.0 * 46340 * 46340,
               "the largest eigensolver workspace counted whole");
    /* null matrices, outputs or operators */
    TA(la_sym_eig(6, NULL, w, vecs, NULL, 0), LA_ENULL);
    TA(la_sym_eig(6, a, NULL, vecs, NULL, 0), LA_ENULL);
    TA(la_dense_from_matvec(6, NULL, dg, h, NULL, 0), LA_ENULL);
    TA(la_dense_from_matvec(6, ta_diag_mv, dg, NULL, NULL, 0), LA_ENULL);
    /* a NaN or Inf in the matrix */
    a[8] = NAN;
    TA(la_sym_eig(6, a, w, vecs, NULL, 0), LA_ENONFINITE);
    a[8] = 0;
    /* work NULL with bytes > 0; bytes below the size query */
    TA(la_sym_eig(6, a, w, vecs, NULL, 64), LA_ENULL);
    TA(la_sym_eig(6, a, w, vecs, work, la_sym_eig_work_bytes(6) - 1),
       LA_EWORKSPACE);
    TA(la_dense_from_matvec(6, ta_diag_mv, dg, h, work, 8), LA_EWORKSPACE);
    TA(la_lanczos(6, ta_diag_mv, dg, 2, 1e-8, NULL, &out, NULL, 8), LA_ENULL);
    TA(la_lanczos(6, ta_diag_mv, dg, 2, 1e-8, NULL, &out, work, 8), LA_EWORKSPACE);
    TA(la_slq(6, ta_diag_mv, dg, NULL, nodes, weights, NULL, 8), LA_ENULL);
    TA(la_slq(6, ta_diag_mv, dg, NULL, nodes, weights, work, 8), LA_EWORKSPACE);
    TA(la_trace(6, ta_diag_mv, dg, NULL, &tr, &se, NULL, 8), LA_ENULL);
    TA(la_trace(6, ta_diag_mv, dg, NULL, &tr, &se, work, 8), LA_EWORKSPACE);
    TA(la_weighted_median(6, vals, NULL, &med, work, 8), LA_EWORKSPACE);
    TA(la_rcond_diag(6, dg, LA_MEDIAN_MID, &r, work, 16), LA_EWORKSPACE);
    TA(la_rcond_spectrum(6, vals, NULL, &r, work, 16), LA_EWORKSPACE);
    TA(la_hill(6, vals, 2, &alpha, NULL, 16), LA_ENULL);
    TA(la_hill(6, vals, 2, &alpha, work, 8), LA_EWORKSPACE);
    TA(la_noise_summary(6, vals, NULL, &ns, NULL, NULL, NULL, NULL, work, 8),
       LA_EWORKSPACE);
    TA(la_lsmooth(6, dg, vals, &fit, work, 16), LA_EWORKSPACE);
    TA(la_lsmooth(6, dg, vals, &fit, NULL, 16), LA_ENULL);

    /* la_lanczos: null operator, outputs or values */
    TA(la_lanczos(6, NULL, dg, 2, 1e-8, NULL, &out, NULL, 0), LA_ENULL);
    TA(la_lanczos(6, ta_diag_mv, dg, 2, 1e-8, NULL, NULL, NULL, 0), LA_ENULL);
    out.values = NULL;
    TA(la_lanczos(6, ta_diag_mv, dg, 2, 1e-8, NULL, &out, NULL, 0), LA_ENULL);
    out.values = ev;
    /* n <= 0, k <= 0, k > n */
    TA(la_lanczos(0, ta_diag_mv, dg, 1, 1e-8, NULL, &out, NULL, 0), LA_EDIM);
    TA(la_lanczos(6, ta_diag_mv, dg, 0, 1e-8, NULL, &out, NULL, 0), LA_EDIM);
    TA(la_lanczos(6, ta_diag_mv, dg, 7, 1e-8, NULL, &out, NULL, 0), LA_EDIM);
    LA_CHECK(t, la_lanczos_work_bytes(6, 7, NULL) == 0, "work bytes k > n");
    /* tol <= 0 or non-finite */
    TA(la_lanczos(6, ta_diag_mv, dg, 2, 0, NULL, &out, NULL, 0), LA_ERANGE);
    TA(la_lanczos(6, ta_diag_mv, dg, 2, NAN, NULL, &out, NULL, 0), LA_ERANGE);
    TA(la_lanczos(6, ta_diag_mv, dg, 2, INFINITY, NULL, &out, NULL, 0), LA_ERANGE);
    /* an unknown `which`; max_iter < 0 or below k */
    memset(&lc, 0, sizeof lc);
    lc.which = 3;
    TA(la_lanczos(6, ta_diag_mv, dg, 2, 1e-8, &lc, &out, NULL, 0), LA_ERANGE);
    lc.which = 0; lc.max_iter = -1;
    TA(la_lanczos(6, ta_diag_mv, dg, 2, 1e-8, &lc, &out, NULL, 0), LA_ERANGE);
    lc.max_iter = 1;
    TA(la_lanczos(6, ta_diag_mv, dg, 2, 1e-8, &lc, &out, NULL, 0), LA_ERANGE);
    LA_CHECK(t, la_lanczos_work_bytes(6, 2, &lc) == 0, "work bytes max_iter < k");
    /* a basis past 1e12 bytes (or size_t) */
    TA(la_lanczos(1 << 30, ta_diag_mv, dg, 1, 1e-8, NULL, &out, NULL, 0),
       LA_EOVERFLOW);
    /* k near INT_MAX: the default cap must not overflow an int */
    TA(la_lanczos(2147483647, ta_diag_mv, dg, 2147483647, 1e-8, NULL, &out, NULL,
                  0), LA_EOVERFLOW);
    LA_CHECK(t, memcmp(&out, &out0, sizeof out) == 0, "out written");

    /* la_slq: null pointers; n <= 0; probes or steps < 0; sizes */
    memset(&sq, 0, sizeof sq);
    TA(la_slq(6, NULL, dg, NULL, nodes, weights, NULL, 0), LA_ENULL);
    TA(la_slq(6, ta_diag_mv, dg, NULL, NULL, weights, NULL, 0), LA_ENULL);
    TA(la_slq(6, ta_diag_mv, dg, NULL, nodes, NULL, NULL, 0), LA_ENULL);
    TA(la_slq(0, ta_diag_mv, dg, NULL, nodes, weights, NULL, 0), LA_EDIM);
    sq.probes = -1;
    TA(la_slq(6, ta_diag_mv, dg, &sq, nodes, weights, NULL, 0), LA_ERANGE);
    sq.probes = 0; sq.steps = -2;
    TA(la_slq(6, ta_diag_mv, dg, &sq, nodes, weights, NULL, 0), LA_ERANGE);
    LA_CHECK(t, la_slq_work_bytes(6, &sq) == 0, "slq bytes, steps < 0");
    sq.steps = 200;
    TA(la_slq(1 << 30, ta_diag_mv, dg, &sq, nodes, weights, NULL, 0), LA_EOVERFLOW);
    sq.steps = 0; sq.probes = 2147483647;
    TA(la_slq(6, ta_diag_mv, dg, &sq, nodes, weights, NULL, 0), LA_EOVERFLOW);
    LA_CHECK(t, la_slq_work_bytes(6, &sq) == 0, "slq bytes, probes * steps");
    TA_CLEAN(nodes, sizeof nodes);
    TA_CLEAN(weights, sizeof weights);

    /* la_density_eval: nulls; count or ngrid <= 0; sigma; NaN or Inf */
    for (i = 0; i < 6; ++i) nodes[i] = i, weights[i] = 1.0 / 6;
    TA(la_density_eval(6, NULL, weights, 1, 4, grid, dens), LA_ENULL);
    TA(la_density_eval(6, nodes, NULL, 1, 4, grid, dens), LA_ENULL);
    TA(la_density_eval(6, nodes, weights, 1, 4, NULL, dens), LA_ENULL);
    TA(la_density_eval(6, nodes, weights, 1, 4, grid, NULL), LA_ENULL);
    TA(la_density_eval(0, nodes, weights, 1, 4, grid, dens), LA_EDIM);
    TA(la_density_eval(6, nodes, weights, 1, -4, grid, dens), LA_EDIM);
    TA(la_density_eval(6, nodes, weights, 0, 4, grid, dens), LA_ERANGE);
    TA(la_density_eval(6, nodes, weights, NAN, 4, grid, dens), LA_ERANGE);
    TA(la_density_eval(6, nodes, weights, INFINITY, 4, grid, dens), LA_ERANGE);
    nodes[2] = NAN;
    TA(la_density_eval(6, nodes, weights, 1, 4, grid, dens), LA_ENONFINITE);
    nodes[2] = 2; weights[4] = INFINITY;
    TA(la_density_eval(6, nodes, weights, 1, 4, grid, dens), LA_ENONFINITE);
    weights[4] = 1.0 / 6; grid[3] = NAN;
    TA(la_density_eval(6, nodes, weights, 1, 4, grid, dens), LA_ENONFINITE);
    grid[3] = 3;
    TA_CLEAN(dens, sizeof dens);

    /* la_weighted_median, la_rcond_spectrum: nulls; count <= 0; NaN or Inf;
       a negative weight or a zero total */
    TA(la_weighted_median(6, NULL, wts, &med, NULL, 0), LA_ENULL);
    TA(la_weighted_median(6, vals, wts, NULL, NULL, 0), LA_ENULL);
    TA(la_rcond_spectrum(6, NULL, wts, &r, NULL, 0), LA_ENULL);
    TA(la_rcond_spectrum(6, vals, wts, NULL, NULL, 0), LA_ENULL);
    TA(la_weighted_median(0, vals, wts, &med, NULL, 0), LA_EDIM);
    TA(la_rcond_spectrum(-1, vals, wts, &r, NULL, 0), LA_EDIM);
    vals[1] = NAN;
    TA(la_weighted_median(6, vals, wts, &med, NULL, 0), LA_ENONFINITE);
    TA(la_rcond_spectrum(6, vals, NULL, &r, NULL, 0), LA_ENONFINITE);
    vals[1] = 1; wts[2] = INFINITY;
    TA(la_weighted_median(6, vals, wts, &med, NULL, 0), LA_ENONFINITE);
    wts[2] = -1;
    TA(la_weighted_median(6, vals, wts, &med, NULL, 0), LA_ERANGE);
    TA(la_rcond_spectrum(6, vals, wts, &r, NULL, 0), LA_ERANGE);
    for (i = 0; i < 6; ++i) wts[i] = 0;
    TA(la_weighted_median(6, vals, wts, &med, NULL, 0), LA_ERANGE);
    for (i = 0; i < 6; ++i) wts[i] = 1;
    /* la_rcond_spectrum, la_rcond_diag: a median of 0 */
    {
      double zs[5] = {0, 0, 0, 4, 5};
      TA(la_rcond_spectrum(5, zs, NULL, &r, NULL, 0), LA_ERANGE);
      TA(la_rcond_diag(5, zs, LA_MEDIAN_MID, &r, NULL, 0), LA_ERANGE);
    }
    /* la_rcond_diag: nulls; n <= 0; NaN or Inf */
    TA(la_rcond_diag(6, NULL, LA_MEDIAN_MID, &r, NULL, 0), LA_ENULL);
    TA(la_rcond_diag(6, dg, LA_MEDIAN_MID, NULL, NULL, 0), LA_ENULL);
    TA(la_rcond_diag(0, dg, LA_MEDIAN_MID, &r, NULL, 0), LA_EDIM);
    dg[5] = -INFINITY;
    TA(la_rcond_diag(6, dg, LA_MEDIAN_MID, &r, NULL, 0), LA_ENONFINITE);
    dg[5] = 6;
    TA_CLEAN(&med, sizeof med);
    TA_CLEAN(&r, sizeof r);

    /* la_trace: nulls; n <= 0; matvecs < 0, a budget below 2 (Hutch++: 3),
       an unknown method; a sketch past 1e12 bytes */
    memset(&tc, 0, sizeof tc);
    TA(la_trace(6, NULL, dg, NULL, &tr, &se, NULL, 0), LA_ENULL);
    TA(la_trace(6, ta_diag_mv, dg, NULL, NULL, &se, NULL, 0), LA_ENULL);
    TA(la_trace(-6, ta_diag_mv, dg, NULL, &tr, &se, NULL, 0), LA_EDIM);
    tc.matvecs = -1;
    TA(la_trace(6, ta_diag_mv, dg, &tc, &tr, &se, NULL, 0), LA_ERANGE);
    tc.matvecs = 1;
    TA(la_trace(6, ta_diag_mv, dg, &tc, &tr, &se, NULL, 0), LA_ERANGE);
    tc.matvecs = 2; tc.method = LA_TRACE_HUTCHPP;
    TA(la_trace(6, ta_diag_mv, dg, &tc, &tr, &se, NULL, 0), LA_ERANGE);
    tc.matvecs = 0; tc.method = 2;
    TA(la_trace(6, ta_diag_mv, dg, &tc, &tr, &se, NULL, 0), LA_ERANGE);
    LA_CHECK(t, la_trace_work_bytes(6, &tc) == 0, "trace bytes, method");
    tc.method = LA_TRACE_HUTCHPP; tc.matvecs = 1 << 20;
    TA(la_trace(1 << 30, ta_diag_mv, dg, &tc, &tr, &se, NULL, 0), LA_EOVERFLOW);
    TA_CLEAN(&tr, sizeof tr);
    TA_CLEAN(&se, sizeof se);

    /* la_lsmooth: nulls; count < 2; NaN or Inf; a negative gradient norm */
    TA(la_lsmooth(6, NULL, vals, &fit, NULL, 0), LA_ENULL);
    TA(la_lsmooth(6, dg, NULL, &fit, NULL, 0), LA_ENULL);
    TA(la_lsmooth(6, dg, vals, NULL, NULL, 0), LA_ENULL);
    TA(la_lsmooth(1, dg, vals, &fit, NULL, 0), LA_EDIM);
    vals[3] = NAN;
    TA(la_lsmooth(6, dg, vals, &fit, NULL, 0), LA_ENONFINITE);
    vals[3] = 5; dg[0] = -1;
    TA(la_lsmooth(6, dg, vals, &fit, NULL, 0), LA_ERANGE);
    dg[0] = 1;
    TA_CLEAN(&fit, sizeof fit);

    /* la_normal_quantile: null; p outside (0, 1) or NaN */
    TA(la_normal_quantile(0.5, NULL), LA_ENULL);
    TA(la_normal_quantile(0, &x), LA_ERANGE);
    TA(la_normal_quantile(1, &x), LA_ERANGE);
    TA(la_normal_quantile(NAN, &x), LA_ERANGE);
    TA(la_normal_quantile(-INFINITY, &x), LA_ERANGE);
    TA_CLEAN(&x, sizeof x);

    /* la_hill: nulls; count < 2; k outside [1, count); NaN or Inf;
       a non-positive sample among the k + 1 largest */
    TA(la_hill(6, NULL, 2, &alpha, NULL, 0), LA_ENULL);
    TA(la_hill(6, vals, 2, NULL, NULL, 0), LA_ENULL);
    TA(la_hill(1, vals, 1, &alpha, NULL, 0), LA_EDIM);
    TA(la_hill(6, vals, 0, &alpha, NULL, 0), LA_ERANGE);
    TA(la_hill(6, vals, 6, &alpha, NULL, 0), LA_ERANGE);
    vals[0] = INFINITY;
    TA(la_hill(6, vals, 2, &alpha, NULL, 0), LA_ENONFINITE);
    vals[0] = 3;
    {
      double neg[4] = {-1, 0, 2, 3};
      TA(la_hill(4, neg, 2, &alpha, NULL, 0), LA_ERANGE);
    }
    TA_CLEAN(&alpha, sizeof alpha);

    /* la_noise_summary: nulls; count < 2; bins < 0; hill_k < 0 or >= count;
       NaN or Inf */
    memset(&nc, 0, sizeof nc);
    TA(la_noise_summary(6, NULL, NULL, &ns, NULL, NULL, NULL, NULL, NULL, 0),
       LA_ENULL);
    TA(la_noise_summary(6, vals, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0),
       LA_ENULL);
    TA(la_noise_summary(1, vals, NULL, &ns, NULL, NULL, NULL, NULL, NULL, 0),
       LA_EDIM);
    nc.bins = -1;
    TA(la_noise_summary(6, vals, &nc, &ns, NULL, NULL, NULL, NULL, NULL, 0),
       LA_ERANGE);
    nc.bins = 0; nc.hill_k = 6;
    TA(la_noise_summary(6, vals, &nc, &ns, NULL, NULL, NULL, NULL, NULL, 0),
       LA_ERANGE);
    nc.hill_k = -1;
    TA(la_noise_summary(6, vals, &nc, &ns, NULL, NULL, NULL, NULL, NULL, 0),
       LA_ERANGE);
    vals[4] = NAN;
    TA(la_noise_summary(6, vals, NULL, &ns, dens, nodes, weights, h, NULL, 0),
       LA_ENONFINITE);
    vals[4] = 4;
    TA_CLEAN(&ns, sizeof ns);
    TA_CLEAN(dens, sizeof dens);
    TA_CLEAN(h, sizeof h);

    /* counts whose workspace is past size_t (a 32-bit host; nothing is
       read: the size is checked first) */
    if (sizeof(size_t) < 8) {
      TA(la_weighted_median(2147483647, vals, NULL, &med, NULL, 0), LA_EOVERFLOW);
      TA(la_rcond_diag(2147483647, vals, LA_MEDIAN_MID, &r, NULL, 0), LA_EOVERFLOW);
      TA(la_lsmooth(2147483647, vals, vals, &fit, NULL, 0), LA_EOVERFLOW);
      TA(la_hill(2147483647, vals, 2, &alpha, NULL, 0), LA_EOVERFLOW);
      TA(la_noise_summary(2147483647, vals, NULL, &ns, NULL, NULL, NULL, NULL,
                          NULL, 0), LA_EOVERFLOW);
    }
    TA_CLEAN(w, sizeof w);
    TA_CLEAN(vecs, sizeof vecs);
  }
}

/* ------------------------------------- 5. diagnostics on the model */

static void ta_hessian(la_t *t, ta_fix *f) {
  LA_TEST(t, "args/diag: the model's Hessian, condition, smoothness, noise") {
    la_hvp_op op;
    la_batch bb;
    la_model bad;
    la_real th[TA_NP], y[TA_NP], thn[TA_NP];
    double h[TA_NP * TA_NP], dgl[TA_NP], ev[2], sm, gn, norms[4], tg;
    la_eig_out out;
    la_lanczos_config lc;
    la_rcond_config rc;
    la_rcond ro;
    la_grad_noise_config nc;
    la_rng r0;
    la_data gg;
    int i;
    LA_CHECK(t, f->ok, "the fixture");
    if (f->ok) {
    ta_fill(y, sizeof y); ta_fill(h, sizeof h); ta_fill(dgl, sizeof dgl);
    ta_fill(ev, sizeof ev); ta_fill(&sm, sizeof sm); ta_fill(&gn, sizeof gn);
    ta_fill(&ro, sizeof ro); ta_fill(norms, sizeof norms); ta_fill(&tg, sizeof tg);
    memset(&out, 0, sizeof out);
    out.values = ev;
    memcpy(thn, f->theta, sizeof thn);
    /* la_hvp_matvec: null op, model, x or y; n other than nparams */
    memset(&op, 0, sizeof op);
    TA(la_hvp_matvec(&op, TA_NP, f->v, y), LA_ENULL);
    op.model = &f->m; op.theta = f->theta; op.batch = &f->b;
    TA(la_hvp_matvec(NULL, TA_NP, f->v, y), LA_ENULL);
    TA(la_hvp_matvec(&op, TA_NP, NULL, y), LA_ENULL);
    TA(la_hvp_matvec(&op, TA_NP, f->v, NULL), LA_ENULL);
    TA(la_hvp_matvec(&op, TA_NP + 1, f->v, y), LA_EDIM);
    TA_CLEAN(y, sizeof y);
    /* the output null */
    TA(la_hessian_dense(&f->m, f->theta, &f->b, NULL, NULL, 0), LA_ENULL);
    TA(la_hessian_diag(&f->m, f->theta, &f->b, NULL, NULL, 0), LA_ENULL);
    TA(la_hessian_eigs(&f->m, f->theta, &f->b, 1, 1e-6, NULL, NULL, NULL, 0),
       LA_ENULL);
    TA(la_robust_cond(&f->m, f->theta, &f->b, NULL, NULL, NULL, 0), LA_ENULL);
    TA(la_dir_smoothness(&f->m, f->theta, NULL, &f->b, &sm, &gn, NULL, 0),
       LA_ENULL);
    TA(la_dir_smoothness(&f->m, f->theta, thn, &f->b, NULL, &gn, NULL, 0),
       LA_ENULL);
    /* the model, theta or batch null */
    TA(la_hessian_dense(NULL, f->theta, &f->b, h, NULL, 0), LA_ENULL);
    TA(la_hessian_diag(&f->m, NULL, &f->b, dgl, NULL, 0), LA_ENULL);
    TA(la_hessian_eigs(&f->m, f->theta, NULL, 1, 1e-6, NULL, &out, NULL, 0),
       LA_ENULL);
    TA(la_robust_cond(&f->m, NULL, &f->b, NULL, &ro, NULL, 0), LA_ENULL);
    TA(la_dir_smoothness(&f->m, f->theta, thn, NULL, &sm, &gn, NULL, 0), LA_ENULL);
    /* a model without parameters */
    memset(&bad, 0, sizeof bad);
    TA(la_hessian_dense(&bad, f->theta, &f->b, h, NULL, 0), LA_EDIM);
    TA(la_robust_cond(&bad, f->theta, &f->b, NULL, &ro, NULL, 0), LA_EDIM);
    LA_CHECK(t, la_hessian_work_bytes(&bad) == 0 && la_rcond_work_bytes(&bad, NULL) == 0 &&
                    la_dir_smoothness_work_bytes(NULL) == 0 &&
                    la_hessian_eigs_work_bytes(&bad, 1, NULL) == 0 &&
                    la_grad_noise_work_bytes(&bad, NULL) == 0, "work bytes 0");
    /* a batch of another d or n */
    bb = f->b;
    bb.n = 5;
    TA(la_hessian_diag(&f->m, f->theta, &bb, dgl, NULL, 0), LA_ESHAPE);
    TA(la_dir_smoothness(&f->m, f->theta, thn, &bb, &sm, &gn, NULL, 0), LA_ESHAPE);
    /* NaN or Inf in theta: refused before the first product */
    memcpy(th, f->theta, sizeof th);
    th[5] = (la_real)NAN;
    TA(la_hessian_dense(&f->m, th, &f->b, h, NULL, 0), LA_ENONFINITE);
    TA(la_hessian_diag(&f->m, th, &f->b, dgl, NULL, 0), LA_ENONFINITE);
    TA(la_hessian_eigs(&f->m, th, &f->b, 1, 1e-6, NULL, &out, NULL, 0),
       LA_ENONFINITE);
    TA(la_robust_cond(&f->m, th, &f->b, NULL, &ro, NULL, 0), LA_ENONFINITE);
    TA(la_dir_smoothness(&f->m, th, thn, &f->b, &sm, &gn, NULL, 0), LA_ENONFINITE);
    /* work NULL with bytes > 0; bytes below the size query */
    TA(la_hessian_dense(&f->m, f->theta, &f->b, h, NULL, 16), LA_ENULL);
    TA(la_hessian_diag(&f->m, f->theta, &f->b, dgl, h, 16), LA_EWORKSPACE);
    TA(la_robust_cond(&f->m, f->theta, &f->b, NULL, &ro, h, 16), LA_EWORKSPACE);
    TA(la_dir_smoothness(&f->m, f->theta, thn, &f->b, &sm, &gn, h, 16),
       LA_EWORKSPACE);
    /* la_hessian_eigs: k <= 0 or > nparams; tol; which, max_iter */
    TA(la_hessian_eigs(&f->m, f->theta, &f->b, 0, 1e-6, NULL, &out, NULL, 0),
       LA_EDIM);
    TA(la_hessian_eigs(&f->m, f->theta, &f->b, TA_NP + 1, 1e-6, NULL, &out, NULL,
                       0), LA_EDIM);
    TA(la_hessian_eigs(&f->m, f->theta, &f->b, 1, -1, NULL, &out, NULL, 0),
       LA_ERANGE);
    memset(&lc, 0, sizeof lc);
    lc.which = -1;
    TA(la_hessian_eigs(&f->m, f->theta, &f->b, 1, 1e-6, &lc, &out, NULL, 0),
       LA_ERANGE);
    lc.which = 0; lc.max_iter = 1;
    TA(la_hessian_eigs(&f->m, f->theta, &f->b, 2, 1e-6, &lc, &out, NULL, 0),
       LA_ERANGE);
    lc.max_iter = -3;
    TA(la_hessian_eigs(&f->m, f->theta, &f->b, 2, 1e-6, &lc, &out, NULL, 0),
       LA_ERANGE);
    /* la_robust_cond: dense_max, probes or steps < 0; probes * steps past
       INT_MAX */
    memset(&rc, 0, sizeof rc);
    rc.dense_max = -1;
    TA(la_robust_cond(&f->m, f->theta, &f->b, &rc, &ro, NULL, 0), LA_ERANGE);
    rc.dense_max = 0; rc.slq.steps = -1;
    TA(la_robust_cond(&f->m, f->theta, &f->b, &rc, &ro, NULL, 0), LA_ERANGE);
    rc.slq.steps = 0; rc.slq.probes = 2147483647; rc.dense_max = 1;
    TA(la_robust_cond(&f->m, f->theta, &f->b, &rc, &ro, NULL, 0), LA_EOVERFLOW);
    LA_CHECK(t, la_rcond_work_bytes(&f->m, &rc) == 0, "rcond bytes");
    /* the dense path past 46340 parameters (n^2 past INT_MAX) */
    {
      la_model big;
      la_model_config bc;
      la_batch b1;
      la_real *tb;
      memset(&bc, 0, sizeof bc);
      bc.d = 153; bc.n = 1; bc.layers = 1; /* 2 d^2 = 46818 parameters */
      memset(&rc, 0, sizeof rc);
      rc.dense_max = 100000;
      tb = (la_real *)calloc(46818, sizeof(la_real));
      if (la_model_init(&big, &bc) == LA_OK && tb &&
          la_batch_create(&b1, 153, 1, 1) == LA_OK) {
        TA(la_robust_cond(&big, tb, &b1, &rc, &ro, NULL, 0), LA_EOVERFLOW);
        LA_CHECK(t, la_rcond_work_bytes(&big, &rc) == 0, "rcond bytes, dense");
        la_batch_destroy(&b1);
      } else {
        LA_CHECK(t, 0, "the 46818-parameter model");
      }
      free(tb);
    }
    /* la_dir_smoothness: a zero step; a NaN or Inf step */
    TA(la_dir_smoothness(&f->m, f->theta, thn, &f->b, &sm, &gn, NULL, 0), LA_ERANGE);
    thn[2] = (la_real)INFINITY;
    TA(la_dir_smoothness(&f->m, f->theta, thn, &f->b, &sm, &gn, NULL, 0),
       LA_ENONFINITE);
    TA_CLEAN(h, sizeof h);
    TA_CLEAN(dgl, sizeof dgl);
    TA_CLEAN(ev, sizeof ev);
    TA_CLEAN(&ro, sizeof ro);
    TA_CLEAN(&sm, sizeof sm);
    TA_CLEAN(&gn, sizeof gn);
    LA_CHECK(t, out.matvecs == 0 && out.converged == 0, "out written");

    /* la_grad_noise: nulls; negative sizes; no parameters; data of another
       shape; NaN theta (the generator untouched); 100 * minibatch past
       INT_MAX */
    memset(&nc, 0, sizeof nc);
    memcpy(&r0, &f->rng, sizeof r0);
    TA(la_grad_noise(NULL, f->theta, &f->g, &f->rng, &nc, norms, &tg, NULL, 0),
       LA_ENULL);
    TA(la_grad_noise(&f->m, NULL, &f->g, &f->rng, &nc, norms, &tg, NULL, 0),
       LA_ENULL);
    TA(la_grad_noise(&f->m, f->theta, NULL, &f->rng, &nc, norms, &tg, NULL, 0),
       LA_ENULL);
    TA(la_grad_noise(&f->m, f->theta, &f->g, NULL, &nc, norms, &tg, NULL, 0),
       LA_ENULL);
    TA(la_grad_noise(&f->m, f->theta, &f->g, &f->rng, &nc, NULL, &tg, NULL, 0),
       LA_ENULL);
    for (i = 0; i < 3; ++i) {
      memset(&nc, 0, sizeof nc);
      if (i == 0) nc.minibatch = -1;
      if (i == 1) nc.true_batch = -1;
      if (i == 2) nc.samples = -1;
      TA(la_grad_noise(&f->m, f->theta, &f->g, &f->rng, &nc, norms, &tg, NULL, 0),
         LA_ERANGE);
      LA_CHECK(t, la_grad_noise_work_bytes(&f->m, &nc) == 0, "noise bytes %d", i);
    }
    memset(&nc, 0, sizeof nc);
    nc.minibatch = 3; nc.samples = 4;
    TA(la_grad_noise(&bad, f->theta, &f->g, &f->rng, &nc, norms, &tg, NULL, 0),
       LA_EDIM);
    gg = f->g;
    gg.cfg.n = 4;
    TA(la_grad_noise(&f->m, f->theta, &gg, &f->rng, &nc, norms, &tg, NULL, 0),
       LA_ESHAPE);
    TA(la_grad_noise(&f->m, th, &f->g, &f->rng, &nc, norms, &tg, NULL, 0),
       LA_ENONFINITE);
    TA(la_grad_noise(&f->m, f->theta, &f->g, &f->rng, &nc, norms, &tg, h, 16),
       LA_EWORKSPACE);
    nc.minibatch = 2147483647 / 100 + 1;
    TA(la_grad_noise(&f->m, f->theta, &f->g, &f->rng, &nc, norms, &tg, NULL, 0),
       LA_EOVERFLOW);
    TA_SAME(f->rng, r0);
    TA_CLEAN(norms, sizeof norms);
    TA_CLEAN(&tg, sizeof tg);
    }
  }
}

/* ------------------------------------- 6. trainer and checkpoints */

/* What a failed load must leave as it was. */
typedef struct ta_snap {
  long step;
  la_rng rng, batch_rng;
  la_real theta[TA_NP];
  double state[2 * TA_NP + 1];
} ta_snap;
static void ta_snap_take(const la_trainer *tr, ta_snap *s) {
  memset(s, 0, sizeof *s);
  s->step = tr->step;
  memcpy(&s->rng, &tr->rng, sizeof s->rng);
  memcpy(&s->batch_rng, &tr->batch_rng, sizeof s->batch_rng);
  memcpy(s->theta, tr->theta, sizeof(la_real) * (size_t)tr->n);
  memcpy(s->state, tr->state, sizeof(double) * tr->state_len);
}

static void ta_train(la_t *t, ta_fix *f) {
  LA_TEST(t, "args/train: configurations, trainers, checkpoints") {
    la_train_config q, c, z;
    la_trainer tr, tr2, tr0;
    la_batch bb;
    la_data gg;
    la_model bad;
    la_real th0[1] = {NAN};
    size_t bytes = 7, cbytes = 0;
    double loss = 7;
    unsigned char *mem, *ck, *ck2;
    ta_snap s0, s1;
    const char *missing = "/nonexistent-dir/args.ckpt";
    LA_CHECK(t, f->ok, "the fixture");
    if (f->ok) {
    /* a quadratic objective (1 parameter) and the fixture's model */
    memset(&q, 0, sizeof q);
    q.objective = ta_quad; q.nparams = 1; q.optimizer = la_optimizer_sgd();
    q.eval_every = -1;
    memset(&z, 0, sizeof z);
    z.model = &f->m; z.data = &f->g; z.batch = 8; z.eval_every = -1;
    ta_fill(&tr, sizeof tr);
    memcpy(&tr0, &tr, sizeof tr0);
    /* la_trainer_bytes, _init, _create: null pointers */
    TA(la_trainer_bytes(NULL, &bytes), LA_ENULL);
    TA(la_trainer_bytes(&q, NULL), LA_ENULL);
    TA(la_trainer_create(NULL, &q), LA_ENULL);
    TA(la_trainer_create(&tr, NULL), LA_ENULL);
    TA(la_trainer_init(&tr, &q, NULL, 64), LA_ENULL);
    TA_SAME(tr, tr0);
#define TA_TRAIN(base, stmt, want)                                            \
  do {                                                                        \
    c = base;                                                                 \
    stmt;                                                                     \
    bytes = 7;                                                                \
    TA(la_trainer_bytes(&c, &bytes), want);                                   \
    LA_CHECK(t, bytes == 7, "bytes written: %s", #stmt);                      \
    TA(la_trainer_create(&tr, &c), want);                                     \
  } while (0)
    /* neither model nor objective; a model without data or dataset */
    TA_TRAIN(q, c.objective = NULL, LA_ENULL);
    TA_TRAIN(z, c.data = NULL, LA_ENULL);
    /* an objective without a model: nparams <= 0 */
    TA_TRAIN(q, c.nparams = 0, LA_EDIM);
    /* batch, eval_batch or resample_every < 0 */
    TA_TRAIN(z, c.batch = -1, LA_EDIM);
    TA_TRAIN(z, c.eval_batch = -8, LA_EDIM);
    TA_TRAIN(z, c.resample_every = -1, LA_EDIM);
    /* an unknown data_mode; given data without batches, or none */
    TA_TRAIN(z, c.data_mode = LA_DATA_GIVEN + 1, LA_ERANGE);
    TA_TRAIN(z, c.data_mode = LA_DATA_GIVEN, LA_ENULL);
    TA_TRAIN(z, (c.data_mode = LA_DATA_GIVEN, c.batches = (const la_batch *)&c,
                 c.nbatches = 0), LA_EDIM);
    /* clip_norm or clip_block < 0 or non-finite */
    TA_TRAIN(q, c.clip_norm = -1, LA_ERANGE);
    TA_TRAIN(q, c.clip_norm = NAN, LA_ERANGE);
    TA_TRAIN(q, c.clip_block = INFINITY, LA_ERANGE);
    /* the schedule's and the optimizer's own checks */
    TA_TRAIN(q, (c.schedule.kind = LA_SCHED_HALVING, c.schedule.period = -1),
             LA_ERANGE);
    {
      la_optim_config ad;
      la_optimizer noname = *la_optimizer_adam();
      memset(&ad, 0, sizeof ad);
      ad.beta1 = 1;
      TA_TRAIN(q, (c.optimizer = la_optimizer_adam(), c.optimizer_config = &ad),
               LA_ERANGE);
      noname.init = NULL;
      TA_TRAIN(q, c.optimizer = &noname, LA_ENULL);
    }
    /* a dataset or a generator of another d or n than the model */
    bb = f->b;
    bb.n = 4;
    TA_TRAIN(z, (c.data_mode = LA_DATA_FIXED, c.dataset = &bb), LA_ESHAPE);
    gg = f->g;
    gg.cfg.d = 3;
    TA_TRAIN(z, c.data = &gg, LA_ESHAPE);
    /* a model la_model_init did not make */
    bad = f->m;
    bad.nparams = 3;
    TA_TRAIN(z, c.model = &bad, LA_ERANGE);
    /* a block past size_t: an optimizer state of SIZE_MAX / 8 doubles */
    TA_TRAIN(q, c.optimizer = &ta_huge_opt, LA_EOVERFLOW);
    /* a batch past size_t (a 32-bit host) */
    if (sizeof(size_t) < 8) TA_TRAIN(z, c.batch = 2147483647, LA_EOVERFLOW);
#undef TA_TRAIN
    /* la_trainer_init: bytes below la_trainer_bytes; a NaN theta0 */
    TA(la_trainer_bytes(&q, &bytes), LA_OK);
    mem = (unsigned char *)malloc(bytes);
    TA(la_trainer_init(&tr, &q, mem, bytes - 1), LA_EWORKSPACE);
    c = q;
    c.theta0 = th0;
    TA(la_trainer_init(&tr, &c, mem, bytes), LA_ENONFINITE);
    /* a trainer whose init failed is unusable: every call is LA_ENULL */
    TA(la_trainer_step(&tr), LA_ENULL);
    TA(la_trainer_run(&tr, 2), LA_ENULL);
    TA(la_trainer_eval(&tr, &loss), LA_ENULL);
    TA(la_checkpoint_bytes(&tr, &cbytes), LA_ENULL);
    /* la_trainer_step, _run, _eval: a null trainer or loss; steps < 0 */
    TA(la_trainer_init(&tr, &q, mem, bytes), LA_OK);
    TA(la_trainer_step(NULL), LA_ENULL);
    TA(la_trainer_run(NULL, 1), LA_ENULL);
    TA(la_trainer_eval(NULL, &loss), LA_ENULL);
    TA(la_trainer_eval(&tr, NULL), LA_ENULL);
    TA(la_trainer_run(&tr, -1), LA_ERANGE);
    LA_CHECK(t, tr.step == 0 && loss == 7, "a refused call trained or wrote");
    /* la_trainer_eval: a model trained on a given dataset, no generator */
    c = z;
    c.data = NULL; c.data_mode = LA_DATA_FIXED; c.dataset = &f->b;
    TA(la_trainer_create(&tr2, &c), LA_OK);
    TA(la_trainer_eval(&tr2, &loss), LA_ENULL);
    LA_CHECK(t, loss == 7, "loss written");
    la_trainer_destroy(&tr2);

    /* checkpoints: null pointers */
    TA(la_trainer_run(&tr, 3), LA_OK);
    TA(la_checkpoint_bytes(&tr, &cbytes), LA_OK);
    ck = (unsigned char *)malloc(cbytes + 8);
    ck2 = (unsigned char *)malloc(cbytes + 8);
    TA(la_checkpoint_save_mem(&tr, ck, cbytes, NULL), LA_OK);
    TA(la_checkpoint_bytes(NULL, &cbytes), LA_ENULL);
    TA(la_checkpoint_bytes(&tr, NULL), LA_ENULL);
    TA(la_checkpoint_save_mem(NULL, ck2, cbytes, NULL), LA_ENULL);
    TA(la_checkpoint_save_mem(&tr, NULL, cbytes, NULL), LA_ENULL);
    TA(la_checkpoint_load_mem(NULL, ck, cbytes), LA_ENULL);
    TA(la_checkpoint_load_mem(&tr, NULL, cbytes), LA_ENULL);
    TA(la_checkpoint_info(NULL, cbytes, NULL, NULL), LA_ENULL);
    TA(la_checkpoint_save(&tr, NULL), LA_ENULL);
    TA(la_checkpoint_save(NULL, missing), LA_ENULL);
    TA(la_checkpoint_load(&tr, NULL), LA_ENULL);
    TA(la_checkpoint_load(NULL, missing), LA_ENULL);
    /* la_checkpoint_save_mem: cap below la_checkpoint_bytes */
    ta_fill(ck2, cbytes + 8);
    TA(la_checkpoint_save_mem(&tr, ck2, cbytes - 1, NULL), LA_EWORKSPACE);
    TA_CLEAN(ck2, cbytes + 8);
    /* load and info: not a checkpoint, truncated, padded */
    ta_snap_take(&tr, &s0);
    TA(la_checkpoint_load_mem(&tr, ck2, cbytes), LA_EFORMAT);
    TA(la_checkpoint_info(ck2, cbytes, NULL, NULL), LA_EFORMAT);
    TA(la_checkpoint_load_mem(&tr, ck, cbytes - 1), LA_EFORMAT);
    memcpy(ck2, ck, cbytes);
    ck2[cbytes] = 0;
    TA(la_checkpoint_info(ck2, cbytes + 1, NULL, NULL), LA_EFORMAT);
    /* another format version */
    ck2[8] ^= 0x04;
    TA(la_checkpoint_load_mem(&tr, ck2, cbytes), LA_EVERSION);
    TA(la_checkpoint_info(ck2, cbytes, NULL, NULL), LA_EVERSION);
    ck2[8] ^= 0x04;
    /* a byte changed after the header */
    ck2[cbytes - 9] ^= 0x10;
    TA(la_checkpoint_load_mem(&tr, ck2, cbytes), LA_ECHECKSUM);
    TA(la_checkpoint_info(ck2, cbytes, NULL, NULL), LA_ECHECKSUM);
    /* another trainer: another optimizer (and state) than the file's */
    c = q;
    c.optimizer = la_optimizer_adam();
    TA(la_trainer_create(&tr2, &c), LA_OK);
    ta_snap_take(&tr2, &s1);
    TA(la_checkpoint_load_mem(&tr2, ck, cbytes), LA_ESHAPE);
    {
      ta_snap s2;
      ta_snap_take(&tr2, &s2);
      LA_CHECK(t, memcmp(&s1, &s2, sizeof s1) == 0, "refused load changed tr2");
    }
    la_trainer_destroy(&tr2);
    /* la_checkpoint_save, _load: a path that cannot be written or read */
    TA(la_checkpoint_save(&tr, missing), LA_EIO);
    TA(la_checkpoint_load(&tr, missing), LA_EIO);
    ta_snap_take(&tr, &s1);
    LA_CHECK(t, memcmp(&s0, &s1, sizeof s0) == 0, "a refused load changed tr");
    free(ck);
    free(ck2);
    free(mem);
    }
  }
}

static void suite_args(la_t *t) {
  ta_fix f;
  ta_fix_make(&f);
  ta_kernels(t);
  ta_prompts(t, &f);
  ta_model(t, &f);
  ta_optim(t);
  ta_diag(t);
  ta_hessian(t, &f);
  ta_train(t, &f);
  ta_fix_free(&f);
}
