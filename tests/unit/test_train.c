/* The training driver on a quadratic with a known trajectory (through the
   objective hook), then on the real model and data; checkpoints: resume
   bit for bit, every truncation and byte flip, wrong version and shape. */
#include <limits.h>

/* f(theta) = 1/2 sum a_i (theta_i - c_i)^2, a_i = 1 + i, c_i = i / 10;
   optionally NaN from step nan_at on (counted in calls). */
typedef struct quad {
  int n, calls, nan_at;
} quad;

static int quad_fn(void *ctx, const la_real *th, const la_batch *b,
                   double *loss, la_real *grad) {
  quad *q = (quad *)ctx;
  double s = 0;
  int i;
  (void)b;
  if (grad) q->calls++;
  for (i = 0; i < q->n; ++i) {
    double a = 1 + i, e = (double)th[i] - i / 10.0;
    s += 0.5 * a * e * e;
    if (grad) grad[i] = (la_real)(a * e);
  }
  *loss = (q->nan_at && q->calls >= q->nan_at && grad) ? NAN : s;
  return LA_OK;
}

static double quad_loss(int n, const la_real *th) {
  double s = 0;
  int i;
  for (i = 0; i < n; ++i) {
    double e = (double)th[i] - i / 10.0;
    s += 0.5 * (1 + i) * e * e;
  }
  return s;
}

#define QN 6
static const la_real quad_th0[QN] = {1, -1, 0.5, 2, -0.25, 0.75};

static la_train_config quad_config(quad *q) {
  la_train_config c;
  memset(&c, 0, sizeof c);
  memset(q, 0, sizeof *q);
  q->n = QN;
  c.objective = quad_fn;
  c.objective_ctx = q;
  c.nparams = QN;
  c.theta0 = quad_th0;
  return c;
}

static void test_train_quadratic(la_t *t) {
  LA_TEST(t, "train: sgd on a quadratic follows the closed form") {
    quad q;
    la_train_config c = quad_config(&q);
    la_optim_config s;
    la_trainer tr;
    int i;
    memset(&s, 0, sizeof s);
    s.lr = 0.1;
    c.optimizer = la_optimizer_sgd();
    c.optimizer_config = &s;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_trainer_run(&tr, 20) == 0 && tr.step == 20, "run");
    for (i = 0; i < QN; ++i) {
      /* theta_i - c_i = (1 - lr a_i)^t (theta0_i - c_i) */
      double want = i / 10.0 + pow(1 - 0.1 * (1 + i), 20) * (quad_th0[i] - i / 10.0);
      LA_CHECK(t, fabs(tr.theta[i] - want) <= (sizeof(la_real) == 8 ? 1e-13 : 3e-6),
               "theta %d: %g vs %g", i, tr.theta[i], want);
    }
    la_trainer_destroy(&tr);
  }
}

typedef struct rec_log {
  int calls, stop_at, bad;
  long steps[32];
  int has_eval[32];
  double loss[32], gn[32], cn[32], eval[32];
  la_real before[QN];
  la_t *t;
} rec_log;

static int rec_cb(void *user, const la_train_record *r) {
  rec_log *lg = (rec_log *)user;
  int i, k = lg->calls++;
  double un = 0;
  if (k >= 32) return 1;
  lg->steps[k] = r->step;
  lg->loss[k] = r->loss;
  lg->gn[k] = r->grad_norm;
  lg->cn[k] = r->clipped_norm;
  lg->has_eval[k] = r->has_eval;
  lg->eval[k] = r->eval_loss;
  /* the update is theta_new - theta_old exactly, and the loss is the one
     at theta_old */
  if (fabs(r->loss - quad_loss(QN, lg->before)) > 1e-12 * (1 + r->loss)) lg->bad |= 1;
  for (i = 0; i < QN; ++i) {
    if (r->theta[i] - lg->before[i] != r->update[i]) lg->bad |= 2;
    un += (double)r->update[i] * r->update[i];
  }
  if (fabs(sqrt(un) - r->update_norm) > 1e-12 * (1 + un)) lg->bad |= 4;
  if (r->has_eval && fabs(r->eval_loss - quad_loss(QN, r->theta)) > 1e-12 * (1 + r->eval_loss))
    lg->bad |= 8;
  if (r->nparams != QN) lg->bad |= 16;
  memcpy(lg->before, r->theta, sizeof lg->before);
  return r->step == lg->stop_at;
}

static void test_train_record(la_t *t) {
  LA_TEST(t, "train: the per-step record, eval cadence, clipping, stop") {
    quad q;
    la_train_config c = quad_config(&q);
    la_trainer tr;
    rec_log lg;
    int k, i;
    memset(&lg, 0, sizeof lg);
    lg.stop_at = 7;
    memcpy(lg.before, quad_th0, sizeof lg.before);
    c.callback = rec_cb;
    c.user = &lg;
    c.eval_every = 3;
    c.clip_norm = 0.5;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_trainer_run(&tr, 100) == 0, "run");
    LA_CHECK(t, tr.stopped && tr.step == 7 && lg.calls == 7, "stopped at %ld", tr.step);
    LA_CHECK(t, lg.bad == 0, "record inconsistent: %d", lg.bad);
    for (k = 0; k < 7; ++k) {
      LA_CHECK(t, lg.steps[k] == k + 1, "step %d", k);
      LA_CHECK(t, lg.has_eval[k] == ((k + 1) % 3 == 0), "eval at %d", k);
      LA_CHECK(t, lg.gn[k] > 0.5 ? fabs(lg.cn[k] - 0.5) < 1e-6 : lg.cn[k] == lg.gn[k],
               "clip %d: %g -> %g", k, lg.gn[k], lg.cn[k]);
    }
    /* the first gradient norm from its closed form */
    {
      double g2 = 0;
      for (i = 0; i < QN; ++i) {
        double e = (1 + i) * (quad_th0[i] - i / 10.0);
        g2 += e * e;
      }
      LA_CHECK(t, fabs(lg.gn[0] - sqrt(g2)) <= 1e-6 * sqrt(g2), "gn0");
    }
    /* run again: the stop flag is per run */
    LA_CHECK(t, la_trainer_run(&tr, 2) == 0 && tr.step == 9, "resume run");
    la_trainer_destroy(&tr);
  }
}

static int all_finite(int n, const la_real *x) {
  int i;
  for (i = 0; i < n; ++i)
    if (!(fabs((double)x[i]) <= 1e300 * 1e8)) return 0;
  return 1;
}

/* The quadratic, whose evaluation (no gradient) overflows from the third
   gradient call on. */
static int quad_eval_inf(void *ctx, const la_real *th, const la_batch *b,
                         double *loss, la_real *grad) {
  quad *q = (quad *)ctx;
  int st = quad_fn(ctx, th, b, loss, grad);
  if (!grad && q->calls >= 3) *loss = INFINITY;
  return st;
}

static void test_train_diverge(la_t *t) {
  LA_TEST(t, "train: an eval loss that overflows ends the run at that step") {
    quad q;
    la_train_config c = quad_config(&q);
    la_trainer tr;
    double loss = 0;
    c.objective = quad_eval_inf;
    c.eval_every = 1;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_trainer_run(&tr, 10) == LA_EDIVERGED, "diverged");
    LA_CHECK(t, tr.diverged_step == 3 && tr.step == 3, "names step %ld of %ld",
             tr.diverged_step, tr.step);
    LA_CHECK(t, all_finite(QN, tr.theta) && tr.last_eval < INFINITY, "finite");
    LA_CHECK(t, la_trainer_step(&tr) == LA_EDIVERGED && tr.step == 3, "sticky");
    LA_CHECK(t, la_trainer_eval(&tr, &loss) == LA_EDIVERGED, "eval says so");
    la_trainer_destroy(&tr);
  }
  LA_TEST(t, "train: a NaN loss ends the run with theta and state kept") {
    quad q;
    la_train_config c = quad_config(&q);
    la_trainer tr;
    la_real th4[QN];
    double st4[1 + 2 * QN];
    q.nan_at = 5;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_trainer_run(&tr, 4) == 0, "4 steps");
    memcpy(th4, tr.theta, sizeof th4);
    memcpy(st4, tr.state, sizeof st4);
    LA_CHECK(t, la_trainer_run(&tr, 10) == LA_EDIVERGED, "diverged");
    LA_CHECK(t, tr.diverged_step == 5 && tr.step == 4, "names step %ld", tr.diverged_step);
    LA_CHECK(t, memcmp(th4, tr.theta, sizeof th4) == 0, "theta kept");
    LA_CHECK(t, memcmp(st4, tr.state, sizeof st4) == 0, "state kept");
    LA_CHECK(t, la_trainer_step(&tr) == LA_EDIVERGED, "sticky");
    la_trainer_destroy(&tr);
  }
  LA_TEST(t, "train: learning rate 1e6 diverges with a finite theta") {
    quad q;
    la_train_config c = quad_config(&q);
    la_optim_config s;
    la_trainer tr;
    memset(&s, 0, sizeof s);
    s.lr = 1e6;
    c.optimizer = la_optimizer_sgd();
    c.optimizer_config = &s;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_trainer_run(&tr, 100000) == LA_EDIVERGED, "diverged");
    LA_CHECK(t, tr.diverged_step == tr.step + 1 && tr.step > 0, "step %ld", tr.diverged_step);
    LA_CHECK(t, all_finite(QN, tr.theta), "theta finite");
    la_trainer_destroy(&tr);
  }
  LA_TEST(t, "train: an update that overflows restores the optimizer state") {
    quad q;
    la_train_config c = quad_config(&q);
    la_optim_config s;
    la_trainer tr;
    la_real big[QN];
    int i, zero = 1;
    for (i = 0; i < QN; ++i) big[i] = (la_real)1e10;
    memset(&s, 0, sizeof s);
    s.lr = 1e300;
    s.momentum = 0.5;
    c.optimizer = la_optimizer_sgd();
    c.optimizer_config = &s;
    c.theta0 = big;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_trainer_step(&tr) == LA_EDIVERGED, "diverged");
    LA_CHECK(t, tr.diverged_step == 1 && memcmp(tr.theta, big, sizeof big) == 0, "kept");
    for (i = 0; i < QN; ++i) zero &= tr.state[i] == 0;
    LA_CHECK(t, zero, "momentum restored");
    la_trainer_destroy(&tr);
  }
}

/* The quadratic whose loss overflows at the gradient calls in `at`. */
typedef struct quad_at {
  quad q;
  int at[3];
  int skipped[8]; /* per step (1-based): the record's skipped flag */
  double loss[8], unorm[8];
} quad_at;
static int quad_inf_at(void *ctx, const la_real *th, const la_batch *b,
                       double *loss, la_real *grad) {
  quad_at *a = (quad_at *)ctx;
  int st = quad_fn(&a->q, th, b, loss, grad), k;
  for (k = 0; k < 3 && grad; ++k)
    if (a->q.calls == a->at[k]) *loss = INFINITY;
  return st;
}
static int quad_at_cb(void *user, const la_train_record *r) {
  quad_at *a = (quad_at *)user;
  if (r->step < 8) {
    a->skipped[r->step] = r->skipped;
    a->loss[r->step] = r->loss;
    a->unorm[r->step] = r->update_norm;
  }
  return 0;
}

static void test_train_skip(la_t *t) {
  LA_TEST(t, "train: skip_overflow skips overflowing steps, the next one past it diverges") {
    quad_at a;
    quad ref_q;
    la_train_config c, ref = quad_config(&ref_q);
    la_trainer tr, rt;
    la_real th2[QN];
    double st2[1 + 2 * QN];
    memset(&a, 0, sizeof a);
    c = quad_config(&a.q);
    a.q.n = QN;
    a.at[0] = 3;
    a.at[1] = 5;
    a.at[2] = 6;
    c.objective = quad_inf_at;
    c.objective_ctx = &a;
    c.callback = quad_at_cb;
    c.user = &a;
    c.skip_overflow = 2;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0 && la_trainer_create(&rt, &ref) == 0, "create");
    LA_CHECK(t, la_trainer_run(&tr, 2) == 0, "2 steps");
    memcpy(th2, tr.theta, sizeof th2);
    memcpy(st2, tr.state, sizeof st2);
    LA_CHECK(t, la_trainer_step(&tr) == 0 && tr.step == 3 && tr.skipped == 1, "step 3 skipped");
    LA_CHECK(t, memcmp(th2, tr.theta, sizeof th2) == 0 && memcmp(st2, tr.state, sizeof st2) == 0,
             "theta and state kept");
    LA_CHECK(t, a.skipped[3] && a.loss[3] == INFINITY && a.unorm[3] == 0 && !a.skipped[2],
             "the record says so");
    /* step 4 is the third update: a run that never overflowed, 3 steps */
    LA_CHECK(t, la_trainer_step(&tr) == 0 && la_trainer_run(&rt, 3) == 0, "step 4");
    LA_CHECK(t, memcmp(tr.theta, rt.theta, sizeof th2) == 0 && !a.skipped[4],
             "theta is the unskipped run's after as many updates");
    LA_CHECK(t, la_trainer_step(&tr) == 0 && tr.skipped == 2 && a.skipped[5], "step 5 skipped");
    LA_CHECK(t, la_trainer_step(&tr) == LA_EDIVERGED && tr.diverged_step == 6 && tr.step == 5,
             "the third overflow ends the run at step %ld", tr.diverged_step);
    LA_CHECK(t, memcmp(tr.theta, rt.theta, sizeof th2) == 0, "theta kept");
    la_trainer_destroy(&tr);
    la_trainer_destroy(&rt);
  }
  LA_TEST(t, "train: skip_overflow 0 ends the run at the first overflow; negative refused") {
    quad_at a;
    la_train_config c;
    la_trainer tr;
    size_t bytes;
    memset(&a, 0, sizeof a);
    c = quad_config(&a.q);
    a.at[0] = 2;
    c.objective = quad_inf_at;
    c.objective_ctx = &a;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_trainer_run(&tr, 5) == LA_EDIVERGED && tr.diverged_step == 2 &&
                    tr.skipped == 0, "diverged at 2");
    la_trainer_destroy(&tr);
    c.skip_overflow = -1;
    LA_CHECK(t, la_trainer_bytes(&c, &bytes) == LA_ERANGE, "negative");
  }
}

/* Adam, a cosine schedule with warmup and both clippings: a run that
   touches every part of the saved state. */
static la_train_config resume_config(quad *q, la_optim_config *a) {
  la_train_config c = quad_config(q);
  memset(a, 0, sizeof *a);
  a->lr = 0.05;
  c.optimizer = la_optimizer_adam();
  c.optimizer_config = a;
  c.schedule.kind = LA_SCHED_COSINE;
  c.schedule.warmup = 5;
  c.schedule.total = 40;
  c.clip_norm = 2;
  c.clip_block = 1;
  return c;
}


/* An optimizer from outside the header that logs what the driver passes:
   state[0] counts init calls, state[1 + k] the lr_scale of step k. */
static int logopt_check(const void *c) { return c ? LA_ERANGE : LA_OK; }
static size_t logopt_len(const void *c, int n) { (void)c; (void)n; return 9; }
static int logopt_init(const void *c, int n, double *s) {
  (void)c; (void)n;
  s[0] += 1;
  return LA_OK;
}
static int logopt_step(const void *c, int n, double *s, double scale,
                       const la_real *th, const la_real *g, la_real *u) {
  int i, k = 0;
  (void)c; (void)th;
  while (k < 8 && s[1 + k] != 0) ++k;
  if (k < 8) s[1 + k] = scale;
  for (i = 0; i < n; ++i) u[i] = (la_real)(-0.01 * scale * g[i]);
  return LA_OK;
}
static const la_optimizer logopt = {"log", logopt_check, logopt_len,
                                    logopt_init, logopt_step};

static void test_train_custom(la_t *t) {
  LA_TEST(t, "train: a custom optimizer gets init once and the schedule's factors") {
    quad q;
    la_train_config c = quad_config(&q);
    la_trainer tr;
    double want[8] = {0.5, 1, 0.5, 0.5, 0.25, 0.25, 0.125, 0.125}, e = 0;
    int k, ok = 1;
    c.optimizer = &logopt;
    c.schedule.kind = LA_SCHED_HALVING;
    c.schedule.period = 2;
    c.schedule.warmup = 2; /* step 0: 1/2, step 1: 2/2 */
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_trainer_run(&tr, 8) == 0, "run");
    LA_CHECK(t, tr.state_len == 9 && tr.state[0] == 1, "init once");
    for (k = 0; k < 8; ++k) ok &= tr.state[1 + k] == want[k];
    LA_CHECK(t, ok, "factors %g %g %g %g", tr.state[1], tr.state[2], tr.state[3],
             tr.state[4]);
    LA_CHECK(t, la_trainer_eval(&tr, &e) == 0 && e == quad_loss(QN, tr.theta), "eval");
    la_trainer_destroy(&tr);
    c.optimizer_config = &q; /* logopt refuses any config */
    LA_CHECK(t, la_trainer_create(&tr, &c) == LA_ERANGE, "custom check");
    c.optimizer_config = NULL;
    c.clip_block = 0.25; /* without a model theta is one block */
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0 && la_trainer_step(&tr) == 0, "block");
    LA_CHECK(t, fabs(la_nrm2(QN, tr.grad) - 0.25) < 1e-6, "block clipped %g",
             la_nrm2(QN, tr.grad));
    la_trainer_destroy(&tr);
  }
}

static void test_train_resume(la_t *t) {
  LA_TEST(t, "train: a resumed run continues bit for bit") {
    quad q1, q2, q3;
    la_optim_config a;
    la_train_config c1 = resume_config(&q1, &a), c2 = resume_config(&q2, &a);
    la_train_config c3 = resume_config(&q3, &a);
    la_trainer A, B, C;
    unsigned char buf[4096];
    size_t len = 0, need = 0;
    long step = -1;
    la_model_config mc;
    LA_CHECK(t, la_trainer_create(&A, &c1) == 0 && la_trainer_create(&B, &c2) == 0 &&
                    la_trainer_create(&C, &c3) == 0, "create");
    LA_CHECK(t, la_trainer_run(&A, 30) == 0, "A");
    LA_CHECK(t, la_trainer_run(&B, 12) == 0, "B");
    LA_CHECK(t, la_checkpoint_bytes(&B, &need) == 0 && need <= sizeof buf, "bytes");
    LA_CHECK(t, la_checkpoint_save_mem(&B, buf, sizeof buf, &len) == 0 && len == need,
             "save");
    LA_CHECK(t, la_checkpoint_info(buf, len, &mc, &step) == 0 && step == 12, "info");
    LA_CHECK(t, la_checkpoint_load_mem(&C, buf, len) == 0 && C.step == 12, "load");
    LA_CHECK(t, la_trainer_run(&C, 18) == 0 && C.step == 30, "C");
    LA_CHECK(t, memcmp(A.theta, C.theta, sizeof(la_real) * QN) == 0, "theta bits");
    LA_CHECK(t, memcmp(A.state, C.state, sizeof(double) * A.state_len) == 0, "state bits");
    LA_CHECK(t, la_checkpoint_save_mem(&B, buf, len - 1, NULL) == LA_EWORKSPACE, "small");
    LA_CHECK(t, la_checkpoint_save_mem(&B, NULL, len, NULL) == LA_ENULL, "null");
    la_trainer_destroy(&A);
    la_trainer_destroy(&B);
    la_trainer_destroy(&C);
  }
}

/* The trainer's observable state, to check a failed load changed nothing. */
typedef struct tr_snap {
  la_real theta[QN];
  double state[1 + 2 * QN];
  long step;
  la_rng rng;
} tr_snap;
static void snap(const la_trainer *tr, tr_snap *s) {
  memcpy(s->theta, tr->theta, sizeof s->theta);
  memcpy(s->state, tr->state, sizeof s->state);
  s->step = tr->step;
  s->rng = tr->rng;
}
static int same(const la_trainer *tr, const tr_snap *s) {
  tr_snap now;
  memset(&now, 0, sizeof now);
  snap(tr, &now);
  return memcmp(now.theta, s->theta, sizeof s->theta) == 0 &&
         memcmp(now.state, s->state, sizeof s->state) == 0 && now.step == s->step &&
         now.rng.key == s->rng.key && now.rng.counter == s->rng.counter;
}

/* FNV-1a 64 written out again, to forge files with a valid checksum. */
static void reseal(unsigned char *p, size_t len) {
  uint64_t h = 14695981039346656037ull;
  size_t i;
  for (i = 0; i + 8 < len; ++i) h = (h ^ p[i]) * 1099511628211ull;
  for (i = 0; i < 8; ++i) p[len - 8 + i] = (unsigned char)(h >> (8 * i));
}

/* The offset of a numeric field's value in a version 2 checkpoint's
   description (its layout: docs/checkpoint.md), found by its key. */
static size_t desc_end(const unsigned char *p) {
  return 104 + ((p[64] | (size_t)p[65] << 8) + 7) / 8 * 8;
}
static size_t desc_value(const unsigned char *p, size_t len, const char *key) {
  size_t k = strlen(key), at = 104, end = 104 + (p[64] | (size_t)p[65] << 8);
  while (at < end && at < len) {
    size_t kl = p[at];
    if (kl == k && !memcmp(p + at + 1, key, k)) return at + 2 + k;
    at += 2 + kl + (p[at + 1 + kl] == LA_FIELD_OPTIMIZER ? 1 + p[at + 2 + kl] : 8);
  }
  return 0;
}

static void test_train_corrupt(la_t *t) {
  LA_TEST(t, "train: every truncation, byte flip, version and shape is refused") {
    quad q1, q2, q3;
    la_optim_config a;
    la_train_config c1 = resume_config(&q1, &a), c2 = resume_config(&q2, &a);
    la_train_config c3 = resume_config(&q3, &a);
    la_trainer A, B, S;
    unsigned char good[4096], bad[4096];
    size_t len = 0, i;
    tr_snap s0;
    int bit, n_trunc = 0, n_flip = 0;
    memset(&s0, 0, sizeof s0);
    LA_CHECK(t, la_trainer_create(&A, &c1) == 0 && la_trainer_create(&B, &c2) == 0, "c");
    LA_CHECK(t, la_trainer_run(&A, 9) == 0 && la_trainer_run(&B, 3) == 0, "run");
    LA_CHECK(t, la_checkpoint_save_mem(&A, good, sizeof good, &len) == 0, "save");
    snap(&B, &s0);
    for (i = 0; i < len; ++i)
      n_trunc += la_checkpoint_load_mem(&B, good, i) == LA_EFORMAT && same(&B, &s0);
    LA_CHECK(t, n_trunc == (int)len, "truncations refused %d of %d", n_trunc, (int)len);
    memcpy(bad, good, len);
    bad[len] = 0;
    LA_CHECK(t, la_checkpoint_load_mem(&B, bad, len + 1) == LA_EFORMAT, "padded");
    for (i = 0; i < len; ++i)
      for (bit = 0; bit < 8; bit += 7) {
        int st;
        memcpy(bad, good, len);
        bad[i] ^= (unsigned char)(1u << bit);
        st = la_checkpoint_load_mem(&B, bad, len);
        n_flip += (st == LA_ECHECKSUM || st == LA_EFORMAT || st == LA_EVERSION) &&
                  same(&B, &s0);
      }
    LA_CHECK(t, n_flip == (int)(2 * len), "flips refused %d of %d", n_flip, (int)(2 * len));
    /* a future version, checksum valid */
    memcpy(bad, good, len);
    bad[8] = LA_CHECKPOINT_VERSION + 1;
    reseal(bad, len);
    LA_CHECK(t, la_checkpoint_load_mem(&B, bad, len) == LA_EVERSION && same(&B, &s0), "ver");
    /* theta beyond the range of la_real (float) or a wrong name: shape */
    memcpy(bad, good, len);
    bad[72] = 'x'; /* the optimizer's name */
    reseal(bad, len);
    LA_CHECK(t, la_checkpoint_load_mem(&B, bad, len) == LA_ESHAPE && same(&B, &s0), "name");
    memcpy(bad, good, len);
    bad[desc_value(good, len, "d")] ^= 1;
    reseal(bad, len);
    LA_CHECK(t, la_checkpoint_load_mem(&B, bad, len) == LA_ESHAPE && same(&B, &s0), "d");
    memcpy(bad, good, len);
    memset(bad + len - 16, 0xff, 8); /* last theta: a NaN */
    reseal(bad, len);
    LA_CHECK(t, la_checkpoint_load_mem(&B, bad, len) == LA_EFORMAT && same(&B, &s0), "nan");
    /* another length of theta, another optimizer */
    c3.nparams = QN - 1;
    q3.n = QN - 1;
    LA_CHECK(t, la_trainer_create(&S, &c3) == 0, "shorter");
    LA_CHECK(t, la_checkpoint_load_mem(&S, good, len) == LA_ESHAPE, "nparams");
    la_trainer_destroy(&S);
    c3.nparams = QN;
    q3.n = QN;
    c3.optimizer = la_optimizer_rmsprop();
    c3.optimizer_config = NULL;
    LA_CHECK(t, la_trainer_create(&S, &c3) == 0, "rmsprop");
    LA_CHECK(t, la_checkpoint_load_mem(&S, good, len) == LA_ESHAPE, "optimizer");
    la_trainer_destroy(&S);
    LA_CHECK(t, la_checkpoint_load_mem(&B, NULL, len) == LA_ENULL, "null buf");
    LA_CHECK(t, la_checkpoint_load_mem(NULL, good, len) == LA_ENULL, "null tr");
    LA_CHECK(t, la_checkpoint_info(good, len - 1, NULL, NULL) == LA_EFORMAT, "info");
    LA_CHECK(t, la_checkpoint_bytes(NULL, &len) == LA_ENULL, "bytes null");
    /* random bytes, and a valid header over random contents (checksum
       resealed): refused, never read past the end */
    {
      la_t_rng r = {99};
      int k, refused = 0, kept = 1;
      for (k = 0; k < 300; ++k) {
        size_t n = (size_t)((la_t_uniform(&r) + 1) * 0.5 * (double)len);
        size_t j;
        for (j = 0; j < n; ++j) bad[j] = (unsigned char)(la_t_uniform(&r) * 128 + 128);
        if (k % 2 && n >= 24) {
          memcpy(bad, good, 24);
          n = len;
          for (j = 24; j < n; ++j) bad[j] = (unsigned char)(la_t_uniform(&r) * 128 + 128);
          reseal(bad, n);
        }
        refused += la_checkpoint_load_mem(&B, bad, n) != LA_OK;
        kept &= same(&B, &s0);
      }
      LA_CHECK(t, refused == 300 && kept, "random files: %d of 300 refused", refused);
    }
    /* the good file still loads after all that */
    LA_CHECK(t, la_checkpoint_load_mem(&B, good, len) == 0 && B.step == 9, "good");
    /* found by tests/fuzz: a NaN in the optimizer state, and a step the
       next training step could not count past */
    memcpy(bad, good, len);
    memset(bad + desc_end(good) + 2 * sizeof(la_rng), 0xff, 8); /* state[0] */
    reseal(bad, len);
    snap(&B, &s0);
    LA_CHECK(t, la_checkpoint_load_mem(&B, bad, len) == LA_EFORMAT && same(&B, &s0),
             "state nan");
    memcpy(bad, good, len);
    for (i = 0; i < 8; ++i) bad[32 + i] = (unsigned char)((uint64_t)LONG_MAX >> (8 * i));
    reseal(bad, len);
    LA_CHECK(t, la_checkpoint_load_mem(&B, bad, len) == 0 && B.step == LONG_MAX, "max");
    LA_CHECK(t, la_trainer_step(&B) == LA_ERANGE && B.step == LONG_MAX, "no overflow");
    for (i = 0; i < 8; ++i)
      bad[32 + i] = (unsigned char)(((uint64_t)LONG_MAX + 1) >> (8 * i));
    reseal(bad, len);
    LA_CHECK(t, la_checkpoint_load_mem(&B, bad, len) == LA_EFORMAT, "beyond long");
    la_trainer_destroy(&A);
    la_trainer_destroy(&B);
  }
}

#ifndef LINATTN_NO_STDLIB
#include <time.h>
static void test_train_files(la_t *t) {
  LA_TEST(t, "train: checkpoint files are replaced atomically, errors are LA_EIO") {
    quad q1, q2;
    la_optim_config a;
    la_train_config c1 = resume_config(&q1, &a), c2 = resume_config(&q2, &a);
    la_trainer A, B;
    char path[256], tmp[300];
    FILE *f;
    int local;
    /* unique per process: several builds run this suite at once */
    (void)sprintf(path, "/tmp/la_ckpt_%lx_%lx_%d.bin", (unsigned long)time(NULL),
            (unsigned long)((size_t)&local & 0xffffffu), (int)sizeof(la_real));
    (void)sprintf(tmp, "%s.tmp", path);
    LA_CHECK(t, la_trainer_create(&A, &c1) == 0 && la_trainer_create(&B, &c2) == 0, "c");
    LA_CHECK(t, la_trainer_run(&A, 7) == 0, "run");
    LA_CHECK(t, la_checkpoint_save(&A, path) == 0, "save");
    LA_CHECK(t, (f = fopen(tmp, "rb")) == NULL, "no temporary left");
    if (f) (void)fclose(f);
    LA_CHECK(t, la_trainer_run(&A, 3) == 0 && la_checkpoint_save(&A, path) == 0, "again");
    LA_CHECK(t, la_checkpoint_load(&B, path) == 0 && B.step == 10, "load");
    LA_CHECK(t, memcmp(A.theta, B.theta, sizeof(la_real) * QN) == 0, "same theta");
    LA_CHECK(t, la_checkpoint_save(&A, "/nonexistent-dir/x.bin") == LA_EIO, "save eio");
    LA_CHECK(t, la_checkpoint_load(&B, "/nonexistent-dir/x.bin") == LA_EIO, "load eio");
    LA_CHECK(t, la_checkpoint_save(&A, NULL) == LA_ENULL, "null path");
#if defined(LA__POSIX_FILES) && !defined(__wasi__) /* WASI has no FIFOs */
    { /* a FIFO (as a device would be) is refused, not renamed over */
      char fifo[320];
      struct stat s;
      (void)sprintf(fifo, "%s.fifo", path);
      if (mkfifo(fifo, 0600) == 0) {
        LA_CHECK(t, la_checkpoint_save(&A, fifo) == LA_EIO, "fifo refused");
        LA_CHECK(t, stat(fifo, &s) == 0 && S_ISFIFO(s.st_mode), "fifo kept");
        (void)remove(fifo);
      }
    }
#endif
    /* a flipped byte on disk */
    if ((f = fopen(path, "r+b")) != NULL) {
      int ok = fseek(f, 200, SEEK_SET) == 0 && fputc(0x42, f) == 0x42;
      ok = fclose(f) == 0 && ok;
      LA_CHECK(t, ok, "flip a byte on disk");
    }
    LA_CHECK(t, la_checkpoint_load(&B, path) == LA_ECHECKSUM && B.step == 10, "disk flip");
    (void)remove(path);
    la_trainer_destroy(&A);
    la_trainer_destroy(&B);
  }
}
#endif

static void test_train_bad(la_t *t) {
  LA_TEST(t, "train: bad configurations and calls") {
    quad q;
    la_train_config c = quad_config(&q), b;
    la_optim_config a;
    la_trainer tr;
    size_t bytes = 0;
    unsigned char mem[8192];
    memset(&a, 0, sizeof a);
    LA_CHECK(t, la_trainer_bytes(&c, &bytes) == 0 && bytes > 0, "bytes");
    LA_CHECK(t, bytes < sizeof mem, "fits %d", (int)bytes);
    if (bytes >= sizeof mem) bytes = 1; /* the calls below then fail, safely */
    LA_CHECK(t, la_trainer_init(&tr, &c, mem, bytes - 1) == LA_EWORKSPACE, "small");
    LA_CHECK(t, la_trainer_step(&tr) == LA_ENULL, "failed init is unusable");
    LA_CHECK(t, la_trainer_init(&tr, &c, mem + 1, bytes) == 0, "unaligned block");
    LA_CHECK(t, la_trainer_run(&tr, 3) == 0, "runs");
    LA_CHECK(t, la_trainer_run(&tr, -1) == LA_ERANGE, "negative steps");
    b = c; b.objective = NULL;
    LA_CHECK(t, la_trainer_bytes(&b, &bytes) == LA_ENULL, "no model");
    b = c; b.nparams = 0;
    LA_CHECK(t, la_trainer_bytes(&b, &bytes) == LA_EDIM, "no nparams");
    b = c; b.clip_norm = -1;
    LA_CHECK(t, la_trainer_bytes(&b, &bytes) == LA_ERANGE, "clip");
    b = c; b.clip_block = NAN;
    LA_CHECK(t, la_trainer_bytes(&b, &bytes) == LA_ERANGE, "clip block");
    b = c; a.lr = -0.1; b.optimizer_config = &a;
    LA_CHECK(t, la_trainer_bytes(&b, &bytes) == LA_ERANGE, "lr");
    a.lr = 0; a.beta1 = 1;
    LA_CHECK(t, la_trainer_bytes(&b, &bytes) == LA_ERANGE, "beta");
    a.beta1 = 0; a.eps = -1;
    LA_CHECK(t, la_trainer_bytes(&b, &bytes) == LA_ERANGE, "eps");
    b = c; b.schedule.kind = LA_SCHED_HALVING; b.schedule.period = -1;
    LA_CHECK(t, la_trainer_bytes(&b, &bytes) == LA_ERANGE, "schedule");
    b = c; b.data_mode = 7;
    LA_CHECK(t, la_trainer_bytes(&b, &bytes) == LA_ERANGE, "data mode");
    b = c; b.batch = -1;
    LA_CHECK(t, la_trainer_bytes(&b, &bytes) == LA_EDIM, "batch");
    LA_CHECK(t, la_trainer_bytes(NULL, &bytes) == LA_ENULL, "null cfg");
    LA_CHECK(t, la_trainer_bytes(&c, NULL) == LA_ENULL, "null out");
    LA_CHECK(t, la_trainer_init(NULL, &c, mem, sizeof mem) == LA_ENULL, "null tr");
    LA_CHECK(t, la_trainer_init(&tr, &c, NULL, sizeof mem) == LA_ENULL, "null mem");
    LA_CHECK(t, la_trainer_step(NULL) == LA_ENULL, "null step");
    LA_CHECK(t, la_trainer_run(NULL, 1) == LA_ENULL, "null run");
    LA_CHECK(t, la_trainer_eval(NULL, NULL) == LA_ENULL, "null eval");
    LA_CHECK(t, la_trainer_create(NULL, &c) == LA_ENULL, "null create");
    la_trainer_destroy(NULL);
  }
}


/* ------------------------------------------------ the model and its data */

typedef struct model_env {
  la_model m;
  la_data data;
  int ok;
} model_env;

static int model_env_make(model_env *e) {
  la_model_config mc;
  la_data_config dc;
  memset(e, 0, sizeof *e);
  memset(&mc, 0, sizeof mc);
  mc.d = 5;
  mc.n = 20;
  mc.layers = 2;
  e->ok = la_model_init(&e->m, &mc) == LA_OK &&
          la_data_preset(&dc, LA_SETTING_1) == LA_OK &&
          la_data_create(&e->data, &dc, 5) == LA_OK;
  return e->ok;
}

static la_train_config model_config(model_env *e, int mode) {
  la_train_config c;
  memset(&c, 0, sizeof c);
  c.model = &e->m;
  c.data = &e->data;
  c.batch = 40;
  c.eval_batch = 24;
  c.eval_every = 5;
  c.data_mode = mode;
  c.resample_every = 4;
  c.clip_norm = 1;
  c.seed = 21;
  c.eval_seed = 99;
  return c;
}

/* The callback redraws each step's batch and the eval batch itself, from
   the documented streams, and holds the record's losses against the
   model's loss there. */
typedef struct data_check {
  model_env *e;
  int mode, k, bad, steps;
  la_real before[4096];
  la_batch b;
} data_check;

static int data_cb(void *user, const la_train_record *r) {
  data_check *dc = (data_check *)user;
  la_rng rng;
  double loss = 0;
  long t = r->step - 1;
  uint64_t stream = dc->mode == LA_DATA_FRESH      ? (uint64_t)t
                    : dc->mode == LA_DATA_RESAMPLE ? (uint64_t)(t / dc->k)
                                                   : 0;
  int i;
  dc->steps++;
  la_rng_seed(&rng, 21, stream);
  la_data_sample(&dc->e->data, &rng, &dc->b);
  la_model_loss(&dc->e->m, dc->before, &dc->b, &loss, NULL, NULL, 0);
  if (fabs(loss - r->loss) > 1e-5 * (1 + loss)) dc->bad |= 1;
  if (r->has_eval) {
    la_batch eb;
    if (la_batch_create(&eb, 5, 20, 24) == LA_OK) {
      la_rng_seed(&rng, 99, 0xffffffffffffffffull);
      la_data_sample(&dc->e->data, &rng, &eb);
      la_model_loss(&dc->e->m, r->theta, &eb, &loss, NULL, NULL, 0);
      if (fabs(loss - r->eval_loss) > 1e-5 * (1 + loss)) dc->bad |= 2;
      la_batch_destroy(&eb);
    }
  }
  for (i = 0; i < r->nparams; ++i) dc->before[i] = r->theta[i];
  return 0;
}

static int rec_first_loss(void *user, const la_train_record *r) {
  ((rec_log *)user)->loss[0] = r->loss;
  return 0;
}

static void test_train_model_data(la_t *t) {
  model_env e;
  int mode;
  if (!model_env_make(&e)) {
    LA_TEST(t, "train: model and data set up") LA_CHECK(t, 0, "setup failed");
    return;
  }
  LA_TEST(t, "train: each data mode draws its documented batches, eval too") {
    for (mode = LA_DATA_FRESH; mode <= LA_DATA_FIXED; ++mode) {
      la_train_config c = model_config(&e, mode);
      la_trainer tr;
      data_check *dc = (data_check *)calloc(1, sizeof *dc);
      if (!dc || e.m.nparams > 4096) { LA_CHECK(t, 0, "alloc"); free(dc); break; }
      dc->e = &e;
      dc->mode = mode;
      dc->k = 4;
      c.callback = data_cb;
      c.user = dc;
      LA_CHECK(t, la_batch_create(&dc->b, 5, 20, 40) == 0, "batch");
      LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create %d", mode);
      memcpy(dc->before, tr.theta, sizeof(la_real) * (size_t)e.m.nparams);
      LA_CHECK(t, la_trainer_run(&tr, 11) == 0 && dc->steps == 11, "run %d", mode);
      LA_CHECK(t, dc->bad == 0, "mode %d: batches differ (%d)", mode, dc->bad);
      la_trainer_destroy(&tr);
      la_batch_destroy(&dc->b);
      free(dc);
    }
  }
  LA_TEST(t, "train: resumed model runs continue bit for bit in every data mode") {
    for (mode = LA_DATA_FRESH; mode <= LA_DATA_FIXED; ++mode) {
      la_train_config c = model_config(&e, mode);
      la_trainer A, B, C;
      unsigned char *buf;
      size_t len = 0;
      c.optimizer = la_optimizer_adam();
      c.clip_block = 0.05;
      c.schedule.kind = LA_SCHED_HALVING;
      c.schedule.period = 3;
      LA_CHECK(t, la_trainer_create(&A, &c) == 0 && la_trainer_create(&B, &c) == 0, "c");
      c.seed = 1234; /* the checkpoint's seed must win */
      LA_CHECK(t, la_trainer_create(&C, &c) == 0, "c");
      la_checkpoint_bytes(&A, &len);
      buf = (unsigned char *)malloc(len);
      LA_CHECK(t, la_trainer_run(&A, 13) == 0 && la_trainer_run(&B, 6) == 0, "run");
      LA_CHECK(t, buf && la_checkpoint_save_mem(&B, buf, len, NULL) == 0, "save");
      if (buf && mode != LA_DATA_FRESH) {
        /* found by tests/fuzz: a batch RNG at the end of its stream, from
           which the batch redrawn on load cannot be drawn, is refused
           before the trainer changes (the counter: the batch RNG's third
           word, after the RNG's three) */
        unsigned char *bad = (unsigned char *)malloc(len);
        la_real th0 = C.theta[0];
        long s0 = C.step;
        memcpy(bad, buf, len);
        memset(bad + desc_end(buf) + sizeof(la_rng) + 16, 0xff, 8);
        reseal(bad, len);
        LA_CHECK(t, la_checkpoint_load_mem(&C, bad, len) == LA_EFORMAT &&
                        C.theta[0] == th0 && C.step == s0,
                 "mode %d: a batch RNG at the stream's end", mode);
        free(bad);
      }
      LA_CHECK(t, buf && la_checkpoint_load_mem(&C, buf, len) == 0, "load");
      LA_CHECK(t, la_trainer_run(&C, 7) == 0 && C.step == 13, "rest");
      LA_CHECK(t, memcmp(A.theta, C.theta, sizeof(la_real) * (size_t)A.n) == 0,
               "mode %d: theta differs", mode);
      LA_CHECK(t, memcmp(A.state, C.state, sizeof(double) * A.state_len) == 0,
               "mode %d: state differs", mode);
      free(buf);
      la_trainer_destroy(&A);
      la_trainer_destroy(&B);
      la_trainer_destroy(&C);
    }
  }
  LA_TEST(t, "train: the model trains, per-matrix clipping holds, 1e6 diverges") {
    la_train_config c = model_config(&e, LA_DATA_FRESH);
    la_optim_config a;
    la_optim_config s;
    la_trainer tr;
    double l0 = 0, l1 = 0;
    int off[64], size[64], nb, b, i, capped = 1;
    memset(&a, 0, sizeof a);
    a.lr = 0.02;
    c.optimizer_config = &a;
    c.batch = 200;
    c.clip_block = 0.1;
    c.clip_norm = 0;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_trainer_eval(&tr, &l0) == 0, "eval");
    LA_CHECK(t, la_trainer_run(&tr, 150) == 0, "run");
    LA_CHECK(t, la_trainer_eval(&tr, &l1) == 0 && l1 < 0.9 * l0, "loss %g -> %g", l0, l1);
    nb = la_model_blocks(&e.m, off, size, 64);
    LA_CHECK(t, nb > 0, "blocks");
    for (b = 0; b < nb; ++b) {
      double s2 = 0;
      for (i = off[b]; i < off[b] + size[b]; ++i) s2 += (double)tr.grad[i] * tr.grad[i];
      capped &= sqrt(s2) <= 0.1 * (1 + 1e-5);
    }
    LA_CHECK(t, capped, "a block above 0.1");
    la_trainer_destroy(&tr);
    memset(&s, 0, sizeof s);
    s.lr = 1e6;
    c.optimizer = la_optimizer_sgd();
    c.optimizer_config = &s;
    c.clip_block = 0;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_trainer_run(&tr, 1000) == LA_EDIVERGED, "diverged");
    LA_CHECK(t, tr.diverged_step == tr.step + 1, "names step %ld", tr.diverged_step);
    LA_CHECK(t, all_finite(tr.n, tr.theta), "theta finite");
    la_trainer_destroy(&tr);
  }
  LA_TEST(t, "train: model checkpoints refuse another model shape") {
    la_train_config c = model_config(&e, LA_DATA_FRESH);
    la_model m2;
    la_model_config mc = e.m.cfg;
    la_trainer A, B;
    unsigned char *buf;
    size_t len = 0;
    la_model_config got;
    mc.layers = 3;
    LA_CHECK(t, la_model_init(&m2, &mc) == 0, "m2");
    LA_CHECK(t, la_trainer_create(&A, &c) == 0, "A");
    c.model = &m2;
    LA_CHECK(t, la_trainer_create(&B, &c) == 0, "B");
    la_checkpoint_bytes(&A, &len);
    buf = (unsigned char *)malloc(len);
    LA_CHECK(t, buf && la_checkpoint_save_mem(&A, buf, len, NULL) == 0, "save");
    LA_CHECK(t, buf && la_checkpoint_load_mem(&B, buf, len) == LA_ESHAPE, "shape");
    LA_CHECK(t, buf && la_checkpoint_info(buf, len, &got, NULL) == 0 && got.d == 5 &&
                    got.n == 20 && got.layers == e.m.cfg.layers, "info");
    free(buf);
    la_trainer_destroy(&A);
    la_trainer_destroy(&B);
  }
  LA_TEST(t, "train: prompts of another shape than the model's are refused") {
    la_train_config c = model_config(&e, LA_DATA_FRESH);
    la_model m2;
    la_model_config mc = e.m.cfg;
    size_t bytes = 0;
    mc.n = e.m.cfg.n + 1; /* found by tests/fuzz: refused only at the first draw */
    LA_CHECK(t, la_model_init(&m2, &mc) == 0, "m2");
    c.model = &m2;
    LA_CHECK(t, la_trainer_bytes(&c, &bytes) == LA_ESHAPE, "bytes");
    mc.n = e.m.cfg.n;
    mc.d = e.m.cfg.d - 1;
    LA_CHECK(t, la_model_init(&m2, &mc) == 0, "m2");
    LA_CHECK(t, la_trainer_bytes(&c, &bytes) == LA_ESHAPE, "d");
  }
  LA_TEST(t, "train: a caller-given fixed dataset, no generator") {
    la_train_config c = model_config(&e, LA_DATA_FIXED);
    la_batch ds;
    la_rng rng;
    la_trainer tr;
    double l0 = 0, want = 0;
    rec_log lg;
    memset(&lg, 0, sizeof lg);
    LA_CHECK(t, la_batch_create(&ds, 5, 20, 30) == 0, "batch");
    la_rng_seed(&rng, 77, 3);
    LA_CHECK(t, la_data_sample(&e.data, &rng, &ds) == 0, "sample");
    c.data = NULL;
    c.dataset = &ds;
    c.eval_every = -1;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0, "create");
    LA_CHECK(t, la_model_loss(&e.m, tr.theta, &ds, &want, NULL, NULL, 0) == 0, "loss");
    LA_CHECK(t, la_trainer_step(&tr) == 0 && tr.step == 1, "step");
    LA_CHECK(t, la_trainer_eval(&tr, &l0) == LA_ENULL, "no eval batch without data");
    la_trainer_destroy(&tr);
    /* the first step's loss is taken on the caller's batch */
    c.callback = rec_first_loss;
    c.user = &lg;
    LA_CHECK(t, la_trainer_create(&tr, &c) == 0 && la_trainer_step(&tr) == 0, "again");
    LA_CHECK(t, fabs(lg.loss[0] - want) <= 1e-6 * (1 + want), "loss %g vs %g",
             lg.loss[0], want);
    la_trainer_destroy(&tr);
    la_batch_destroy(&ds);
  }
  la_data_destroy(&e.data);
}



/* ------------------------------------------------ what is saved loads */

/* The checksum of a checkpoint made right after a byte changed. */
static void ck_resum(unsigned char *p, size_t len) {
  uint64_t h = 14695981039346656037ull;
  size_t i;
  for (i = 0; i + 8 < len; ++i) h = (h ^ p[i]) * 1099511628211ull;
  for (i = 0; i < 8; ++i) p[len - 8 + i] = (unsigned char)(h >> (8 * i));
}
/* Where a version 3 file's optimizer state begins. */
static size_t ck_state_at(const unsigned char *p) {
  size_t dl = (size_t)p[64] | (size_t)p[65] << 8 | (size_t)p[66] << 16;
  return 104 + (dl + 7) / 8 * 8 + 2 * 3 * 8;
}
static void ck_put_double(unsigned char *p, double x) {
  uint64_t u;
  int i;
  memcpy(&u, &x, 8);
  for (i = 0; i < 8; ++i) p[i] = (unsigned char)(u >> (8 * i));
}

/* A small model trainer with optimizer `opt` (registry name), trained a
   few steps; the data mode given. */
static int forge_trainer(la_trainer *tr, la_data *g, la_model *m,
                         la_optim_config *oc, const char *opt, int mode) {
  la_train_config tc;
  memset(oc, 0, sizeof *oc);
  if (!strcmp(opt, "lbfgs")) oc->history = 3;
  memset(&tc, 0, sizeof tc);
  tc.model = m;
  tc.data = g;
  tc.batch = 16;
  tc.eval_every = -1;
  tc.optimizer = la_optim_find(opt)->optimizer;
  tc.optimizer_config = oc;
  tc.data_mode = mode;
  tc.resample_every = 4;
  if (la_t_small(g, m, 5) || la_trainer_create(tr, &tc))
    return -1;
  return la_trainer_run(tr, 6);
}

static void test_train_forged(la_t *t) {
  static unsigned char good[1 << 15], bad[1 << 15];
  LA_TEST(t, "train: a forged state, batch flag or name is refused, the trainer untouched") {
    static const struct {
      const char *opt;
      int at; /* index into the state; -1 none */
      double v;
      const char *what;
    } cases[] = {
        {"adam", 0, -1, "adam's step count -1"},
        {"adam", 0, 1e308, "adam's step count 1e308"},
        {"adam", 0, 5e-324, "adam's step count 5e-324"},
        {"adam", 1 + 8 + 2, -1e-3, "a negative second moment"}, /* 8 parameters */
        {"adagrad", 3, -1, "a negative sum of squares"},
        {"rmsprop", 0, -2, "a negative average of squares"},
        {"lbfgs", 4, 4, "more pairs than the history"},
        {"lbfgs", 5, 3, "the ring's head past the history"},
        {"sfadamw", 0, -1, "sfadamw's step count -1"},
        {"sfadamw", 1, -1, "sfadamw's largest rate negative"},
        {"sfadamw", 3 + 8, -1, "sfadamw's negative second moment"},
        {"muon", 0, 2.5, "muon's step count 2.5"},
        {"muon", 1 + 16, -1, "muon's negative second moment"},
        {"adafactor", 1 + 8, -1, "adafactor's negative factored moment"},
        {"shampoo", 0, -1, "shampoo's step count -1"},
        {"soap", 0, 0.5, "soap's step count 0.5"},
        {"sophia", 0, -1, "sophia's step count -1"},
        {"sophia", 1, 0.5, "sophia's stream position 0.5"},
    };
    int k;
    for (k = 0; k < (int)(sizeof cases / sizeof cases[0]); ++k) {
      la_trainer tr;
      la_data g;
      la_model m;
      la_optim_config oc;
      la_real th0;
      size_t len = 0;
      LA_CHECK(t, forge_trainer(&tr, &g, &m, &oc, cases[k].opt, LA_DATA_FRESH) == 0 &&
                      la_checkpoint_save_mem(&tr, good, sizeof good, &len) == 0,
               "%s: trained and saved", cases[k].what);
      LA_CHECK(t, la_checkpoint_load_mem(&tr, good, len) == 0, "%s: the good file",
               cases[k].what);
      memcpy(bad, good, len);
      ck_put_double(bad + ck_state_at(bad) + 8 * (size_t)cases[k].at, cases[k].v);
      ck_resum(bad, len);
      th0 = tr.theta[0];
      LA_CHECK(t, la_checkpoint_load_mem(&tr, bad, len) == LA_EFORMAT &&
                      tr.step == 6 && tr.theta[0] == th0,
               "%s refused", cases[k].what);
      la_trainer_destroy(&tr);
      la_data_destroy(&g);
    }
    {
      /* a resampled run between two draws resumes its batch: drawn 0
         there is a forgery; at a draw's step it is not */
      la_trainer tr;
      la_data g;
      la_model m;
      la_optim_config oc;
      size_t len = 0;
      LA_CHECK(t, forge_trainer(&tr, &g, &m, &oc, "sgd", LA_DATA_RESAMPLE) == 0 &&
                      la_checkpoint_save_mem(&tr, good, sizeof good, &len) == 0,
               "resample: saved at step 6");
      memcpy(bad, good, len);
      bad[48] = 0;
      ck_resum(bad, len);
      LA_CHECK(t, la_checkpoint_load_mem(&tr, bad, len) == LA_EFORMAT,
               "drawn 0 in the middle of an interval");
      LA_CHECK(t, la_trainer_run(&tr, 2) == 0 && tr.step == 8 &&
                      la_checkpoint_save_mem(&tr, good, sizeof good, &len) == 0,
               "at step 8");
      memcpy(bad, good, len);
      bad[48] = 0;
      ck_resum(bad, len);
      LA_CHECK(t, la_checkpoint_load_mem(&tr, bad, len) == 0, "drawn 0 at a draw's step");
      /* the optimizer's name, then bytes after its NUL */
      memcpy(bad, good, len);
      bad[72 + 10] = 'x';
      ck_resum(bad, len);
      LA_CHECK(t, la_checkpoint_load_mem(&tr, bad, len) == LA_EFORMAT &&
                      la_checkpoint_info(bad, len, NULL, NULL) == LA_EFORMAT,
               "a name with bytes after its NUL");
      la_trainer_destroy(&tr);
      la_data_destroy(&g);
    }
  }

  LA_TEST(t, "train: what a load refuses is never saved") {
    la_trainer tr;
    la_data g;
    la_model m;
    la_optim_config oc;
    size_t len = 0;
    la_real keep;
    double s0;
    LA_CHECK(t, forge_trainer(&tr, &g, &m, &oc, "adam", LA_DATA_FRESH) == 0, "trained");
    keep = tr.theta[1];
    tr.theta[1] = (la_real)NAN;
    LA_CHECK(t, la_checkpoint_save_mem(&tr, good, sizeof good, &len) == LA_ENONFINITE,
             "theta NaN");
    tr.theta[1] = (la_real)INFINITY;
    LA_CHECK(t, la_checkpoint_save_mem(&tr, good, sizeof good, &len) == LA_ENONFINITE,
             "theta infinite");
    tr.theta[1] = keep;
    s0 = tr.state[3];
    tr.state[3] = INFINITY;
    LA_CHECK(t, la_checkpoint_save_mem(&tr, good, sizeof good, &len) == LA_ENONFINITE,
             "a state infinite");
    tr.state[3] = s0;
    s0 = tr.state[0];
    tr.state[0] = 2.5;
    LA_CHECK(t, la_checkpoint_save_mem(&tr, good, sizeof good, &len) == LA_ERANGE,
             "a state no step reaches");
    tr.state[0] = s0;
    LA_CHECK(t, la_checkpoint_save_mem(&tr, good, sizeof good, &len) == 0 &&
                    la_checkpoint_load_mem(&tr, good, len) == 0,
             "restored: saved and loaded");
#ifndef LINATTN_NO_STDLIB
    {
      /* a periodic save never replaces a good file with a bad one */
      char path[256];
      FILE *f;
      size_t got;
      int local;
      static unsigned char back[1 << 15];
      /* unique per process: several builds run this suite at once */
      (void)sprintf(path, "/tmp/la_forged_%lx_%lx_%d.bin", (unsigned long)time(NULL),
                    (unsigned long)((size_t)&local & 0xffffffu), (int)sizeof(la_real));
      LA_CHECK(t, la_checkpoint_save(&tr, path) == 0, "good file");
      tr.theta[0] = (la_real)NAN;
      LA_CHECK(t, la_checkpoint_save(&tr, path) == LA_ENONFINITE, "NaN refused");
      f = fopen(path, "rb");
      got = f ? fread(back, 1, sizeof back, f) : 0;
      if (f) (void)fclose(f);
      LA_CHECK(t, got == len && memcmp(back, good, len) == 0, "the good file kept");
      (void)remove(path);
    }
#endif
    la_trainer_destroy(&tr);
    la_data_destroy(&g);
  }
}

static void suite_train(la_t *t) {
  test_train_quadratic(t);
  test_train_record(t);
  test_train_diverge(t);
  test_train_skip(t);
  test_train_custom(t);
  test_train_resume(t);
  test_train_corrupt(t);
#ifndef LINATTN_NO_STDLIB
  test_train_files(t);
#endif
  test_train_bad(t);
  test_train_model_data(t);
  test_train_forged(t);
}
