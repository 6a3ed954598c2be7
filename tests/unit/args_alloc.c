/* Sizes that would overflow must be refused before anything is allocated.
   The library is built here with a counting allocator (LINATTN_MALLOC,
   LINATTN_FREE): every call that the args suite shows returning
   LA_EOVERFLOW is made again with work = NULL, bytes = 0 (the allocating
   form), and must leave the count at zero. A request above TA_CAP is
   refused (NULL), so that the calls a 64-bit host can size but not hold
   show the size they asked for instead of exhausting memory. Run on the
   host and on 32-bit ARM, where size_t wraps first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TA_CAP ((size_t)1 << 28)
static unsigned long ta_mallocs, ta_frees;
static size_t ta_asked; /* the largest size asked for */
static void *ta_malloc(size_t sz) {
  ta_mallocs++;
  if (sz > ta_asked) ta_asked = sz;
  return sz > TA_CAP ? NULL : malloc(sz);
}
static void ta_free(void *p) {
  if (p) ta_frees++;
  free(p);
}
#define LINATTN_MALLOC(sz, ctx) ((void)(ctx), ta_malloc(sz))
#define LINATTN_FREE(p, ctx) ((void)(ctx), ta_free(p))
#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"
#include "la_test.h"

static void ta_reset(void) { ta_mallocs = ta_frees = 0; ta_asked = 0; }

/* `call` gives `want` without a single allocation. */
#define TA_NOALLOC(call, want)                                                \
  do {                                                                        \
    int ta_st_;                                                               \
    ta_reset();                                                               \
    ta_st_ = (call);                                                          \
    LA_CHECK(t, ta_st_ == (want) && ta_mallocs == 0,                          \
             "%s gave %s after %lu allocations", #call, la_status_str(ta_st_), \
             ta_mallocs);                                                     \
  } while (0)

#include "args_util.h"

static void suite_alloc(la_t *t) {
  la_model m;
  la_model_config mc;
  la_data g;
  la_data_config dc;
  la_batch b;
  la_real theta[8] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f};
  la_eig_out out;
  double ev[2], nodes[8], weights[8], tr, norms[2], vals[4] = {1, 2, 3, 4};
  double dg[6] = {1, 2, 3, 4, 5, 6};
  la_rng rng;
  int ok;
  memset(&mc, 0, sizeof mc);
  mc.d = 2; mc.n = 3; mc.layers = 1;
  memset(&dc, 0, sizeof dc);
  dc.d = 2; dc.n = 3;
  la_rng_seed(&rng, 1, 1);
  ok = la_model_init(&m, &mc) == LA_OK && la_data_create(&g, &dc, 1) == LA_OK &&
       la_batch_create(&b, 2, 3, 4) == LA_OK && la_data_sample(&g, &rng, &b) == 0;
  memset(&out, 0, sizeof out);
  out.values = ev;

  LA_TEST(t, "args-alloc: the counter sees the allocating forms") {
    /* the same calls at sizes that fit allocate once and free once */
    ta_reset();
    LA_CHECK(t, la_lanczos(6, ta_diag_mv, dg, 1, 1e-8, NULL, &out, NULL, 0) ==
                    LA_OK && ta_mallocs == 1 && ta_frees == 1,
             "lanczos: %lu mallocs, %lu frees", ta_mallocs, ta_frees);
    ta_reset();
    LA_CHECK(t, ok && la_model_loss(&m, theta, &b, &tr, NULL, NULL, 0) == LA_OK &&
                    ta_mallocs == 1 && ta_frees == 1,
             "model: %lu mallocs, %lu frees", ta_mallocs, ta_frees);
  }

  LA_TEST(t, "args-alloc: an overflowing size allocates nothing") {
    la_slq_config sq;
    la_trace_config tc;
    la_rcond_config rc;
    la_rcond ro;
    la_grad_noise_config nc;
    la_train_config c;
    la_trainer trn;
    LA_CHECK(t, ok, "the fixture");
    /* Lanczos: the basis past 1e12 bytes, and the default cap at k near
       INT_MAX */
    TA_NOALLOC(la_lanczos(1 << 30, ta_diag_mv, dg, 1, 1e-8, NULL, &out, NULL, 0),
               LA_EOVERFLOW);
    TA_NOALLOC(la_lanczos(2147483647, ta_diag_mv, dg, 2147483647, 1e-8, NULL,
                          &out, NULL, 0), LA_EOVERFLOW);
    /* SLQ: the basis, and probes * steps past INT_MAX */
    memset(&sq, 0, sizeof sq);
    sq.steps = 200;
    TA_NOALLOC(la_slq(1 << 30, ta_diag_mv, dg, &sq, nodes, weights, NULL, 0),
               LA_EOVERFLOW);
    sq.steps = 0; sq.probes = 2147483647;
    TA_NOALLOC(la_slq(6, ta_diag_mv, dg, &sq, nodes, weights, NULL, 0),
               LA_EOVERFLOW);
    /* Hutch++: the sketch */
    memset(&tc, 0, sizeof tc);
    tc.method = LA_TRACE_HUTCHPP; tc.matvecs = 1 << 20;
    TA_NOALLOC(la_trace(1 << 30, ta_diag_mv, dg, &tc, &tr, NULL, NULL, 0),
               LA_EOVERFLOW);
    /* robust condition numbers: probes * steps */
    memset(&rc, 0, sizeof rc);
    rc.dense_max = 1; rc.slq.probes = 2147483647;
    TA_NOALLOC(la_robust_cond(&m, theta, &b, &rc, &ro, NULL, 0), LA_EOVERFLOW);
    /* robust condition numbers: a dense Hessian of 46818 parameters */
    {
      la_model big;
      la_model_config bc;
      la_batch b1;
      la_real *tb = (la_real *)calloc(46818, sizeof(la_real));
      memset(&bc, 0, sizeof bc);
      bc.d = 153; bc.n = 1; bc.layers = 1;
      memset(&rc, 0, sizeof rc);
      rc.dense_max = 100000;
      int okb = tb && la_model_init(&big, &bc) == LA_OK &&
                big.nparams == 46818 && la_batch_create(&b1, 153, 1, 1) == LA_OK;
      LA_CHECK(t, okb, "the 46818-parameter model");
      if (okb) {
        TA_NOALLOC(la_robust_cond(&big, tb, &b1, &rc, &ro, NULL, 0),
                   LA_EOVERFLOW);
        la_batch_destroy(&b1);
      }
      free(tb);
    }
    /* gradient noise: the default true batch, 100 * minibatch */
    memset(&nc, 0, sizeof nc);
    nc.minibatch = 2147483647 / 100 + 1;
    TA_NOALLOC(la_grad_noise(&m, theta, &g, &rng, &nc, norms, NULL, NULL, 0),
               LA_EOVERFLOW);
    /* the trainer: an optimizer state of SIZE_MAX / 8 doubles */
    memset(&c, 0, sizeof c);
    c.model = &m; c.data = &g; c.batch = 4; c.optimizer = &ta_huge_opt;
    TA_NOALLOC(la_trainer_create(&trn, &c), LA_EOVERFLOW);
  }

  LA_TEST(t, "args-alloc: the largest sizes are counted whole or refused") {
    la_batch big;
    if (sizeof(size_t) < 8) {
      la_model mb;
      la_model_config bc = mc;
      /* 32 bits: every one of these would wrap */
      bc.d = LA_MAX_D; bc.n = LA_MAX_N; bc.layers = LA_MAX_LAYERS;
      bc.activation = LA_ACT_RELU;
      TA_NOALLOC(la_model_init(&mb, &bc), LA_EOVERFLOW);
      TA_NOALLOC(la_batch_create(&big, LA_MAX_D, LA_MAX_N, 2147483647),
                 LA_EOVERFLOW);
      TA_NOALLOC(la_weighted_median(2147483647, vals, NULL, &tr, NULL, 0),
                 LA_EOVERFLOW);
      TA_NOALLOC(la_hill(2147483647, vals, 2, &tr, NULL, 0), LA_EOVERFLOW);
      {
        la_lsmooth_fit fit;
        TA_NOALLOC(la_lsmooth(2147483647, vals, vals, &fit, NULL, 0),
                   LA_EOVERFLOW);
      }
    } else {
      /* 64 bits: the largest batch is asked for in full (and refused by
         this allocator), not as a wrapped small block */
      size_t want = la_batch_bytes(LA_MAX_D, LA_MAX_N, 2147483647);
      int st;
      ta_reset();
      st = la_batch_create(&big, LA_MAX_D, LA_MAX_N, 2147483647);
      LA_CHECK(t, st == LA_ENOMEM && ta_mallocs == 1 && ta_asked >= want &&
                      (double)want > 4294967296.0,
               "%s after asking for %.4g bytes (want %.4g)", la_status_str(st),
               (double)ta_asked, (double)want);
    }
  }
  if (ok) {
    la_batch_destroy(&b);
    la_data_destroy(&g);
  }
}

int main(void) {
  static const la_suite suites[] = {{"args-alloc", suite_alloc}};
  (void)la_t_nse;
  printf("linattn %s, backend %s, %s, %u-bit size_t, counting allocator\n",
         la_version_string(), la_backend_name(),
         sizeof(la_real) == 8 ? "double" : "float",
         (unsigned)(8 * sizeof(size_t)));
  return la_t_run(suites, 1, NULL, 0, 0);
}
