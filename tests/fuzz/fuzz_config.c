/* libFuzzer harness of the configuration validators: la_model_config,
   la_data_config (with a given Sigma), the optimizers' configurations,
   la_schedule and la_train_config, filled from the fuzzer's bytes with
   small sizes, edge values (0, -0, NaN, +-Inf, 1e300, 1e-300, ...) and raw
   bit patterns, then used: a batch is sampled, a trainer built in a
   caller-owned block and run for three steps. Checked:
     - every status is documented, and a query of size 0 goes with an
       error from the matching init;
     - an accepted model has the parameter count of its documented packing,
       and blocks that tile theta;
     - an accepted schedule gives factors in [0, 1];
     - an accepted trainer refuses a block one byte short, and each step
       either succeeds with finite loss, norms and theta (checked in the
       callback too) or reports LA_EDIVERGED, keeping a finite theta.
   Field order: model, data, Sigma, optimizer, schedule, trainer (see the
   decode_* functions); input past its end reads as zero (the defaults). */
#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"
#include "fuzz_util.h"

#define BLOCK_CAP (1u << 20)
#define BATCH_CAP 16

static unsigned char block[BLOCK_CAP + LA_ALIGN];
static unsigned char data_mem[1 << 16];


static void decode_model(fz_in *in, la_model_config *c) {
  memset(c, 0, sizeof *c);
  c->d = fz_int(in, 8);
  c->n = fz_int(in, 24);
  c->layers = fz_int(in, 4);
  c->param = fz_int(in, 3);
  c->activation = fz_int(in, 2);
  c->front_hidden = fz_int(in, 4);
  c->init_std = fz_real(in);
  if (fz_bits(in, 1) & 1) c->kernels = la_kernels_scalar();
}

/* d, n default to the model's (the common case), else are fields too. */
static void decode_data(fz_in *in, const la_model_config *m,
                        la_data_config *c, double *sigma) {
  int i, dd;
  memset(c, 0, sizeof *c);
  if (fz_bits(in, 1) & 1) {
    c->d = fz_int(in, 8);
    c->n = fz_int(in, 24);
  } else {
    c->d = m->d;
    c->n = m->n;
  }
  c->covariates = fz_int(in, 3);
  c->gamma_shape = fz_real(in);
  c->gamma_scale = fz_real(in);
  c->sigma = fz_int(in, 3);
  c->wstar = fz_int(in, 2);
  c->target = fz_int(in, 2);
  c->net_hidden = fz_int(in, 12);
  c->noise_std = fz_real(in);
  /* a given Sigma: the identity plus a symmetric perturbation, or raw */
  memset(sigma, 0, 64 * sizeof *sigma);
  dd = c->d > 0 && c->d <= 8 ? c->d : 0;
  for (i = 0; i < dd * dd; ++i) sigma[i] = i % (dd + 1) == 0;
  if (fz_bits(in, 1) & 1)
    for (i = 0; i < dd * dd; ++i) sigma[i] += fz_real(in);
  c->sigma_matrix = c->sigma == LA_SIGMA_GIVEN && !(fz_bits(in, 1) & 1) &&
                            dd ? sigma : NULL;
}

static const la_optimizer *decode_optimizer(fz_in *in, la_optim_config *o,
                                            const void **cfg) {
  int which = fz_int(in, 5);
  memset(o, 0, sizeof *o);
  *cfg = o;
  switch (which) {
  case 0:
    o->lr = fz_real(in);
    o->momentum = fz_real(in);
    o->nesterov = fz_int(in, 1);
    o->weight_decay = fz_real(in);
    return la_optimizer_sgd();
  case 2:
  case 3:
    o->lr = fz_real(in);
    o->momentum = fz_real(in);
    o->weight_decay = fz_real(in);
    return which == 2 ? la_optimizer_sign() : la_optimizer_nsgd();
  case 4:
    o->lr = fz_real(in);
    o->eps = fz_real(in);
    o->initial = fz_real(in);
    o->weight_decay = fz_real(in);
    return la_optimizer_adagrad();
  case 5:
    o->lr = fz_real(in);
    o->alpha = fz_real(in);
    o->eps = fz_real(in);
    o->momentum = fz_real(in);
    o->weight_decay = fz_real(in);
    return la_optimizer_rmsprop();
  default:
    o->lr = fz_real(in);
    o->beta1 = fz_real(in);
    o->beta2 = fz_real(in);
    o->eps = fz_real(in);
    o->weight_decay = fz_real(in);
    o->decoupled = fz_int(in, 1);
    if (fz_bits(in, 1) & 1) *cfg = NULL; /* the defaults */
    return la_optimizer_adam();
  }
}

static void decode_schedule(fz_in *in, la_schedule *s) {
  memset(s, 0, sizeof *s);
  s->kind = fz_int(in, 3);
  s->warmup = fz_int(in, 8);
  s->period = fz_int(in, 5);
  s->decay = fz_real(in);
  s->total = fz_int(in, 20);
  s->min_scale = fz_real(in);
}

static void check_model(const la_model *m) {
  const la_model_config *c = &m->cfg;
  int off[2 * LA_MAX_LAYERS + 4], sz[2 * LA_MAX_LAYERS + 4];
  long d = c->d, D = d + 1, h = c->front_hidden, per, want, at = 0;
  int nb, i;
  per = c->param == LA_PARAM_DENSE ? 2 * D * D
        : c->param == LA_PARAM_SPARSE ? 2 * d * d : d * d;
  want = per * c->layers + (h ? 2 * h * d + h + d : 0);
  FZ_CHECK(m->nparams == want, "nparams %d, packing %ld", m->nparams, want);
  FZ_CHECK(la_model_work_bytes(m) > 0, "work bytes");
  nb = la_model_blocks(m, off, sz, (int)(sizeof off / sizeof off[0]));
  FZ_CHECK(nb > 0, "blocks %d", nb);
  for (i = 0; i < nb; ++i) {
    FZ_CHECK(off[i] == at && sz[i] > 0, "block %d", i);
    at += sz[i];
  }
  FZ_CHECK(at == m->nparams, "blocks cover %ld of %d", at, m->nparams);
}

static void check_schedule(const la_schedule *s, long t) {
  double f = -1;
  int st = la_schedule_check(s), st2 = la_schedule_scale(s, t, &f);
  FZ_CHECK(fz_documented(st) && fz_documented(st2), "schedule");
  if (st) FZ_CHECK(st2 == st, "scale %d after check %d", st2, st);
  else if (t >= 0) FZ_CHECK(st2 == LA_OK && f >= 0 && f <= 1, "factor %g", f);
}

/* Values a finite configuration must not overflow: the sizes of draws
   stay far below la_real's range. */
static int moderate(const la_data_config *c) {
  double gs = c->gamma_shape ? c->gamma_shape : 0.1;
  double gt = c->gamma_scale ? c->gamma_scale : 10;
  return c->noise_std <= 1e6 &&
         (c->covariates != LA_X_GAMMA_SPHERE || (gs <= 1e6 && gt <= 1e6));
}

static void check_sample(const la_data *g, fz_in *in) {
  static unsigned char mem[1 << 16];
  la_batch b;
  la_rng r;
  int count = fz_int(in, BATCH_CAP), st, i, np;
  size_t bytes = la_batch_bytes(g->cfg.d, g->cfg.n, count);
  if (!bytes || bytes > sizeof mem) {
    FZ_CHECK(la_batch_init(&b, g->cfg.d, g->cfg.n, count, mem, sizeof mem) !=
                 LA_OK || bytes > sizeof mem, "a size 0 batch accepted");
    return;
  }
  FZ_CHECK(la_batch_init(&b, g->cfg.d, g->cfg.n, count, mem, bytes) == LA_OK,
           "batch");
  la_rng_seed(&r, fz_bits(in, 8), fz_bits(in, 8));
  st = la_data_sample(g, &r, &b);
  FZ_CHECK(st == LA_OK, "sample: %s", la_status_str(st));
  np = la_panels(count);
  if (moderate(&g->cfg))
    FZ_CHECK(fz_all_finite(np * (g->cfg.d + 1) * (g->cfg.n + 1) * LA_W, b.z) &&
                 fz_all_finite(np * LA_W, b.y),
             "a moderate setting drew a NaN or Inf");
  for (i = count; i < np * LA_W; ++i) FZ_CHECK(b.y[i] == 0, "padding lane");
}

static int on_record(void *user, const la_train_record *r) {
  (void)user;
  FZ_CHECK(isfinite(r->loss) && isfinite(r->grad_norm) &&
               isfinite(r->clipped_norm) && isfinite(r->update_norm) &&
               r->clipped_norm <= r->grad_norm * (1 + 1e-6) + 1e-300,
           "record of step %ld", r->step);
  FZ_CHECK(fz_all_finite(r->nparams, r->theta), "theta in the record");
  FZ_CHECK(!r->has_eval || isfinite(r->eval_loss), "eval loss");
  return 0;
}

/* steps: how many to take; 0 checks the sizes and the init only */
static void check_trainer(const la_train_config *tc, int steps) {
  la_trainer tr;
  size_t bytes = 0;
  int st = la_trainer_bytes(tc, &bytes), i;
  FZ_CHECK(fz_documented(st), "trainer bytes");
  if (st || bytes > BLOCK_CAP) return;
  FZ_CHECK(bytes > 0, "zero bytes with LA_OK");
  st = la_trainer_init(&tr, tc, block + 1, bytes - 1);
  FZ_CHECK(st == LA_EWORKSPACE, "a block one byte short: %s", la_status_str(st));
  st = la_trainer_init(&tr, tc, block + 1, bytes);
  FZ_CHECK(st == LA_OK || st == LA_ENONFINITE, "init: %s", la_status_str(st));
  if (st) {
    FZ_CHECK(la_trainer_step(&tr) == LA_ENULL, "a failed trainer steps");
    return;
  }
  for (i = 0; i < steps; ++i) {
    st = la_trainer_step(&tr);
    FZ_CHECK(st == LA_OK || st == LA_EDIVERGED, "step: %s", la_status_str(st));
    FZ_CHECK(fz_all_finite(tr.n, tr.theta), "theta");
    if (st) {
      /* the step that failed, or the one just taken if its eval did */
      FZ_CHECK(tr.diverged_step == tr.step + 1 ||
                   (tr.diverged_step == tr.step && tr.step > 0),
               "diverged_step %ld at step %ld", tr.diverged_step, tr.step);
      FZ_CHECK(la_trainer_step(&tr) == LA_EDIVERGED, "not sticky");
      break;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t size) {
  fz_in in = {p, size, 0};
  la_model_config mc;
  la_model m;
  la_data_config dc;
  la_data g;
  double sigma[64];
  la_optim_config oc;
  la_train_config tc;
  la_real theta0[2048];
  size_t need;
  int st, mst, dst = LA_EDIM, i;

  decode_model(&in, &mc);
  mst = la_model_init(&m, &mc);
  FZ_CHECK(fz_documented(mst), "model init");
  if (!mst) check_model(&m);

  decode_data(&in, &mc, &dc, sigma);
  need = la_data_bytes(&dc);
  if (!need) {
    FZ_CHECK(la_data_init(&g, &dc, 1, data_mem, sizeof data_mem) != LA_OK,
             "la_data_bytes 0 but init accepted");
  } else if (need <= sizeof data_mem) {
    dst = la_data_init(&g, &dc, fz_bits(&in, 8), data_mem, need);
    FZ_CHECK(fz_documented(dst), "data init");
    if (!dst) check_sample(&g, &in);
  }

  memset(&tc, 0, sizeof tc);
  tc.optimizer = decode_optimizer(&in, &oc, &tc.optimizer_config);
  st = la_optim_check(tc.optimizer, tc.optimizer_config);
  FZ_CHECK(fz_documented(st), "optimizer check");
  decode_schedule(&in, &tc.schedule);
  check_schedule(&tc.schedule, fz_int(&in, 100));
  if (mst || dst) return 0;

  tc.model = &m;
  tc.data = &g;
  tc.clip_norm = fz_real(&in);
  tc.clip_block = fz_real(&in);
  tc.batch = fz_int(&in, BATCH_CAP);
  tc.data_mode = fz_int(&in, 3);
  tc.resample_every = fz_int(&in, 4);
  tc.eval_every = fz_int(&in, 3);
  tc.eval_batch = fz_int(&in, BATCH_CAP);
  tc.seed = fz_bits(&in, 8);
  tc.eval_seed = fz_bits(&in, 1);
  tc.callback = on_record;
  if (fz_bits(&in, 1) & 1 && m.nparams <= 2048) {
    for (i = 0; i < m.nparams; ++i) theta0[i] = (la_real)(0.1 * fz_real(&in));
    tc.theta0 = theta0;
  }
  /* 0 means 1000 prompts, and the fused fresh-data step streams a batch of
     any size through a small block: a large one is checked, not stepped */
  check_trainer(&tc, tc.batch > 0 && tc.batch <= BATCH_CAP && tc.eval_batch > 0 &&
                             tc.eval_batch <= BATCH_CAP ? 3 : 0);
  return 0;
}
