/* The soak run (`make soak`, under ASan and UBSan): training runs with
   random configurations, valid and invalid, until a time budget is spent.
   Each run draws a model, a data setting, an optimizer with its settings
   (learning rates up to 1e30, negative, NaN), a schedule, clipping, batch
   sizes and data modes; sometimes NaN in theta0, in a caller's dataset or
   written into theta mid-run; sometimes a workspace too small; then trains,
   checkpoints, corrupts the checkpoint and loads it back.

   Every call must return LA_OK with finite results, or an error code the
   header documents for it; a failed checkpoint load must leave the trainer
   as it was, a clean one must resume bit for bit. The run ends with the
   counts of runs and of each status; the first broken contract ends it at
   once with status 1 (ASan adds leaks and invalid accesses, UBSan
   undefined behaviour).

   With --cli BIN (an ASan + UBSan build of the linattn command), half of
   the time goes to the command's file handling instead (tests/fuzz/soak_cli.h:
   random paths, links, FIFOs, full disks).

     soak [SECONDS [SEED]] [--cli BIN]   default 120 s, seed from the clock */
#define _POSIX_C_SOURCE 200809L
#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* ------------------------------------------------------ random choices */
typedef struct rnd { uint64_t s; } rnd;
static uint64_t rnd_u64(rnd *r) { /* splitmix64 */
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int rnd_int(rnd *r, int lo, int hi) { /* in [lo, hi] */
  return lo + (int)(rnd_u64(r) % (uint64_t)(hi - lo + 1));
}
static double rnd_unit(rnd *r) { return (double)(rnd_u64(r) >> 11) / 9007199254740992.0; }
static int rnd_chance(rnd *r, double p) { return rnd_unit(r) < p; }
/* log-uniform in [lo, hi] */
static double rnd_log(rnd *r, double lo, double hi) {
  return exp(log(lo) + rnd_unit(r) * (log(hi) - log(lo)));
}
/* A value for a field whose valid range is given: most of the time valid,
   else a bad one (negative, NaN, Inf, or `bad`). */
static double rnd_field(rnd *r, double lo, double hi, double bad, double p_bad) {
  static const double worst[4] = {-1, NAN, INFINITY, -INFINITY};
  if (rnd_chance(r, p_bad)) return rnd_chance(r, 0.5) ? bad : worst[rnd_int(r, 0, 3)];
  return rnd_chance(r, 0.2) ? 0 : lo + rnd_unit(r) * (hi - lo);
}

/* ------------------------------------------------------- bookkeeping */
typedef struct tally {
  long runs, steps, calls, broken;
  long status[17]; /* by -code */
} tally;
static tally T;

static const char *const status_name[17] = {
    "LA_OK",        "LA_ENULL",      "LA_EDIM",       "LA_EOVERFLOW",
    "LA_EWORKSPACE", "LA_ENOMEM",    "LA_ERANGE",     "LA_ENONFINITE",
    "LA_ENOTSPD",   "LA_EDIVERGED",  "LA_EIO",        "LA_EFORMAT",
    "LA_EVERSION",  "LA_ECHECKSUM",  "LA_ESHAPE",     "LA_ENOCONVERGE",
    "LA_EUNSUPPORTED"};

static char run_desc[160]; /* what the current run is, for reports */

static void summary(void) {
  int i;
  printf("%ld runs, %ld steps, %ld calls; statuses:\n", T.runs, T.steps, T.calls);
  for (i = 0; i < 17; ++i)
    if (T.status[i]) printf("  %-16s %8ld  %s\n", status_name[i], T.status[i], la_status_str(-i));
  printf("%ld broken contracts\n", T.broken);
}

static void broken(void) {
  T.broken++;
  summary();
  exit(1);
}

static int count(int st) {
  T.calls++;
  if (st <= 0 && st >= LA_EUNSUPPORTED) T.status[-st]++;
  return st;
}

#define CONTRACT(cond, ...)                                                   \
  do {                                                                        \
    if (!(cond)) {                                                            \
      printf("BROKEN %s:%d (%s): %s: ", __FILE__, __LINE__, run_desc, #cond); \
      printf(__VA_ARGS__);                                                    \
      printf("\n");                                                           \
      broken();                                                               \
    }                                                                         \
  } while (0)

static int one_of(int st, const int *ok, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (st == ok[i]) return 1;
  return 0;
}
#define ONE_OF(st, ...)                                                       \
  one_of((st), (const int[]){__VA_ARGS__},                                    \
         (int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int)))

static int all_finite(int n, const la_real *x) {
  int i;
  for (i = 0; i < n; ++i)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* ---------------------------------------------------- one random run */

typedef struct run {
  la_model_config mc;
  la_model m;
  la_data_config dc;
  la_data g;
  double sigma[64];
  la_optim_config oc;
  la_train_config tc;
  la_real *theta0;
  la_batch dataset;
  int has_dataset;
} run;

static void draw_model(rnd *r, la_model_config *c) {
  memset(c, 0, sizeof *c);
  c->d = rnd_chance(r, 0.03) ? rnd_int(r, -2, 0) : rnd_int(r, 1, 7);
  c->n = rnd_chance(r, 0.03) ? LA_MAX_N + 1 : rnd_int(r, 1, 24);
  c->layers = rnd_chance(r, 0.03) ? LA_MAX_LAYERS + 1 : rnd_int(r, 0, 4);
  c->param = rnd_int(r, 0, rnd_chance(r, 0.03) ? 3 : 2);
  c->activation = rnd_int(r, 0, rnd_chance(r, 0.03) ? 2 : 1);
  c->front_hidden = rnd_chance(r, 0.7) ? 0 : rnd_int(r, rnd_chance(r, 0.05) ? -1 : 1, 4);
  c->init_std = rnd_chance(r, 0.5) ? 0 : rnd_field(r, 1e-3, 1, 1e300, 0.05);
}

static void draw_data(rnd *r, const la_model_config *m, la_data_config *c,
                      double *sigma) {
  int i, j, d;
  la_data_preset(c, rnd_int(r, LA_SETTING_1, LA_SETTING_PAPER_B));
  c->d = rnd_chance(r, 0.03) ? m->d + 1 : m->d;
  c->n = rnd_chance(r, 0.03) ? m->n + 1 : m->n;
  c->noise_std = rnd_chance(r, 0.7) ? 0 : rnd_field(r, 0, 1, 1e300, 0.05);
  if (c->covariates == LA_X_GAMMA_SPHERE && rnd_chance(r, 0.1))
    c->gamma_scale = rnd_field(r, 0.1, 100, 1e300, 0.3);
  d = c->d > 0 && c->d <= 8 ? c->d : 0;
  if (d && rnd_chance(r, 0.1)) { /* a given Sigma: A A^T + I, or broken */
    for (i = 0; i < d; ++i)
      for (j = 0; j <= i; ++j)
        sigma[i * d + j] = sigma[j * d + i] = (i == j) + 0.3 * rnd_unit(r);
    if (rnd_chance(r, 0.2)) sigma[rnd_int(r, 0, d * d - 1)] = -5;
    if (rnd_chance(r, 0.1)) sigma[0] = NAN;
    c->sigma = LA_SIGMA_GIVEN;
    c->sigma_matrix = sigma;
  }
}

static const la_optimizer *draw_optimizer(rnd *r, la_optim_config *o) {
  double lr = rnd_chance(r, 0.1) ? rnd_log(r, 1, 1e30) : rnd_log(r, 1e-5, 0.5);
  int which = rnd_int(r, 0, 5);
  if (rnd_chance(r, 0.05)) lr = rnd_field(r, 0, 1, -1e-3, 1);
  memset(o, 0, sizeof *o);
  switch (which) {
  case 0:
    o->lr = lr;
    o->momentum = rnd_field(r, 0, 0.99, 1, 0.05);
    o->nesterov = rnd_chance(r, 0.3);
    o->weight_decay = rnd_field(r, 0, 0.1, -1, 0.03);
    return la_optimizer_sgd();
  case 1:
  case 2:
    o->lr = lr;
    o->momentum = rnd_field(r, 0, 0.99, 1.5, 0.05);
    o->weight_decay = rnd_field(r, 0, 0.1, -1, 0.03);
    return which == 1 ? la_optimizer_sign() : la_optimizer_nsgd();
  case 3:
    o->lr = lr;
    o->eps = rnd_field(r, 0, 1e-6, -1, 0.03);
    o->initial = rnd_field(r, 0, 1, -1, 0.03);
    return la_optimizer_adagrad();
  case 4:
    o->lr = lr;
    o->alpha = rnd_field(r, 0, 0.999, 1, 0.05);
    o->momentum = rnd_field(r, 0, 0.9, 1, 0.03);
    return la_optimizer_rmsprop();
  default:
    o->lr = lr;
    o->beta1 = rnd_field(r, 0, 0.99, 1, 0.05);
    o->beta2 = rnd_field(r, 0, 0.999, 1, 0.05);
    o->eps = rnd_field(r, 0, 1e-6, -1, 0.03);
    o->weight_decay = rnd_field(r, 0, 0.1, -1, 0.03);
    o->decoupled = rnd_chance(r, 0.5);
    return la_optimizer_adam();
  }
}

static void draw_schedule(rnd *r, la_schedule *s) {
  memset(s, 0, sizeof *s);
  s->kind = rnd_int(r, 0, rnd_chance(r, 0.03) ? 3 : 2);
  s->warmup = rnd_chance(r, 0.03) ? -1 : rnd_int(r, 0, 5);
  s->period = rnd_int(r, rnd_chance(r, 0.05) ? -1 : 1, 10);
  s->decay = rnd_field(r, 0, 0.99, 1.5, 0.05);
  s->total = s->warmup + rnd_int(r, rnd_chance(r, 0.05) ? -2 : 1, 40);
  s->min_scale = rnd_field(r, 0, 1, 2, 0.05);
}

/* A caller's dataset for LA_DATA_FIXED, NaN in it sometimes. */
static int draw_dataset(rnd *r, run *u) {
  la_rng g;
  if (la_batch_create(&u->dataset, u->m.cfg.d, u->m.cfg.n, rnd_int(r, 1, 24)))
    return 0;
  la_rng_seed(&g, rnd_u64(r), 0);
  if (la_data_sample(&u->g, &g, &u->dataset)) {
    la_batch_destroy(&u->dataset);
    return 0;
  }
  if (rnd_chance(r, 0.2))
    u->dataset.z[rnd_int(r, 0, (u->m.cfg.d + 1) * (u->m.cfg.n + 1) * LA_W - 1)] = NAN;
  return 1;
}

static int on_record(void *user, const la_train_record *rec) {
  int *bad = (int *)user;
  if (!isfinite(rec->loss) || !isfinite(rec->grad_norm) ||
      !isfinite(rec->clipped_norm) || !isfinite(rec->update_norm) ||
      !all_finite(rec->nparams, rec->theta) ||
      (rec->has_eval && !isfinite(rec->eval_loss)))
    ++*bad;
  return 0;
}

/* The trainer's state that a failed load must not change. */
typedef struct snapshot {
  la_trainer tr;
  unsigned char *block;
  size_t bytes;
} snapshot;

static void check_checkpoints(rnd *r, la_trainer *A, const la_train_config *tc) {
  la_trainer B, C, keep;
  unsigned char *buf, *bad;
  size_t len = 0, cut;
  int st, i, flips;
  long steps = rnd_int(r, 1, 5);
  if (count(la_checkpoint_bytes(A, &len))) return;
  buf = (unsigned char *)malloc(len);
  bad = (unsigned char *)malloc(len);
  CONTRACT(buf && bad, "malloc");
  CONTRACT(count(la_checkpoint_save_mem(A, buf, len, &len)) == LA_OK, "save");
  st = count(la_trainer_create(&B, tc));
  CONTRACT(st == LA_OK, "a second trainer: %s", la_status_str(st));
  /* corrupted copies: flips, a cut, a resealed length */
  memcpy(bad, buf, len);
  flips = rnd_int(r, 1, 4);
  for (i = 0; i < flips; ++i) bad[rnd_int(r, 0, (int)len - 1)] ^= (unsigned char)rnd_int(r, 1, 255);
  cut = rnd_chance(r, 0.3) ? (size_t)rnd_int(r, 0, (int)len - 1) : len;
  keep = B;
  st = count(la_checkpoint_load_mem(&B, bad, cut));
  CONTRACT(ONE_OF(st, LA_OK, LA_EFORMAT, LA_EVERSION, LA_ECHECKSUM, LA_ESHAPE),
           "corrupt load: %s", la_status_str(st));
  if (st) CONTRACT(memcmp(&keep, &B, sizeof B) == 0, "a failed load changed the trainer");
  /* the clean file resumes bit for bit */
  CONTRACT(count(la_checkpoint_load_mem(&B, buf, len)) == LA_OK, "clean load");
  CONTRACT(count(la_trainer_create(&C, tc)) == LA_OK, "third trainer");
  CONTRACT(count(la_checkpoint_load_mem(&C, buf, len)) == LA_OK, "clean load");
  st = count(la_trainer_run(&B, steps));
  i = count(la_trainer_run(&C, steps));
  CONTRACT(st == i && B.step == C.step &&
               memcmp(B.theta, C.theta, sizeof(la_real) * (size_t)B.n) == 0,
           "two resumed runs differ");
  la_trainer_destroy(&B);
  la_trainer_destroy(&C);
  free(buf);
  free(bad);
}

static void check_model_calls(rnd *r, const la_model *m, const la_trainer *tr) {
  la_real *v = (la_real *)calloc((size_t)m->nparams, sizeof(la_real));
  la_real *hv = (la_real *)calloc((size_t)m->nparams, sizeof(la_real));
  double loss = NAN;
  int i, st;
  CONTRACT(v && hv, "calloc");
  for (i = 0; i < m->nparams; ++i) v[i] = (la_real)(rnd_unit(r) - 0.5);
  if (rnd_chance(r, 0.3)) v[rnd_int(r, 0, m->nparams - 1)] = NAN;
  st = count(la_model_hvp(m, tr->theta, &tr->eval, v, &loss, NULL, hv, NULL, 0));
  CONTRACT(ONE_OF(st, LA_OK, LA_ENONFINITE, LA_EDIVERGED), "hvp: %s", la_status_str(st));
  if (st == LA_OK)
    CONTRACT(isfinite(loss) && all_finite(m->nparams, hv), "hvp OK with NaN");
  free(v);
  free(hv);
}

static void train(rnd *r, run *u) {
  la_trainer tr;
  size_t bytes = 0;
  unsigned char *block;
  int st, i, steps = rnd_int(r, 1, 25), bad_records = 0;
  u->tc.callback = on_record;
  u->tc.user = &bad_records;
  st = count(la_trainer_bytes(&u->tc, &bytes));
  CONTRACT(ONE_OF(st, LA_OK, LA_ENULL, LA_EDIM, LA_ERANGE, LA_ESHAPE, LA_EOVERFLOW),
           "trainer bytes: %s", la_status_str(st));
  if (st) return;
  block = (unsigned char *)malloc(bytes);
  CONTRACT(block != NULL, "malloc %lu", (unsigned long)bytes);
  if (rnd_chance(r, 0.1)) { /* too small by a random amount */
    st = count(la_trainer_init(&tr, &u->tc, block, bytes - (size_t)rnd_int(r, 1, (int)(bytes < 4096 ? bytes : 4096))));
    CONTRACT(st == LA_EWORKSPACE, "short block: %s", la_status_str(st));
    CONTRACT(count(la_trainer_step(&tr)) == LA_ENULL, "a failed trainer steps");
  }
  st = count(la_trainer_init(&tr, &u->tc, block, bytes));
  CONTRACT(ONE_OF(st, LA_OK, LA_ENONFINITE), "init: %s", la_status_str(st));
  if (st) {
    free(block);
    return;
  }
  for (i = 0; i < steps; ++i) {
    if (rnd_chance(r, 0.02)) tr.theta[rnd_int(r, 0, tr.n - 1)] = NAN; /* a corrupted theta */
    st = count(la_trainer_step(&tr));
    T.steps++;
    CONTRACT(ONE_OF(st, LA_OK, LA_EDIVERGED), "step: %s", la_status_str(st));
    if (st) {
      CONTRACT(tr.diverged_step > 0 && tr.diverged_step >= tr.step, "diverged_step");
      break;
    }
    CONTRACT(all_finite(tr.n, tr.theta), "theta after LA_OK");
  }
  CONTRACT(bad_records == 0, "%d records with NaN", bad_records);
  if (!tr.diverged_step) {
    double loss = NAN;
    st = count(la_trainer_eval(&tr, &loss));
    CONTRACT(ONE_OF(st, LA_OK, LA_EDIVERGED, LA_ENULL), "eval: %s", la_status_str(st));
    if (st == LA_OK) CONTRACT(isfinite(loss), "eval OK with NaN");
    if (rnd_chance(r, 0.3) && tr.has_eval) check_model_calls(r, &u->m, &tr);
    if (rnd_chance(r, 0.4)) check_checkpoints(r, &tr, &u->tc);
  }
  free(block);
}

static void one_run(rnd *r) {
  run u;
  int st;
  memset(&u, 0, sizeof u);
  draw_model(r, &u.mc);
  st = count(la_model_init(&u.m, &u.mc));
  (void)snprintf(run_desc, sizeof run_desc, "d %d n %d L %d param %d act %d h %d",
                 u.mc.d, u.mc.n, u.mc.layers, u.mc.param, u.mc.activation,
                 u.mc.front_hidden);
  T.runs++;
  CONTRACT(ONE_OF(st, LA_OK, LA_EDIM, LA_ERANGE), "model init: %s", la_status_str(st));
  if (st) return;
  draw_data(r, &u.mc, &u.dc, u.sigma);
  st = count(la_data_create(&u.g, &u.dc, rnd_u64(r)));
  CONTRACT(ONE_OF(st, LA_OK, LA_EDIM, LA_ERANGE, LA_ENONFINITE, LA_ENOTSPD),
           "data: %s", la_status_str(st));
  if (st) return;
  u.tc.model = &u.m;
  u.tc.data = &u.g;
  u.tc.optimizer = draw_optimizer(r, &u.oc);
  u.tc.optimizer_config = &u.oc;
  draw_schedule(r, &u.tc.schedule);
  u.tc.clip_norm = rnd_chance(r, 0.5) ? 0 : rnd_field(r, 1e-3, 10, -1, 0.05);
  u.tc.clip_block = rnd_chance(r, 0.7) ? 0 : rnd_field(r, 1e-3, 1, -1, 0.05);
  u.tc.batch = rnd_chance(r, 0.02) ? -1 : rnd_int(r, 1, 40);
  u.tc.eval_batch = rnd_int(r, 1, 24);
  u.tc.data_mode = rnd_int(r, 0, rnd_chance(r, 0.02) ? 3 : 2);
  u.tc.resample_every = rnd_int(r, 0, 5);
  u.tc.eval_every = rnd_int(r, -1, 5);
  u.tc.seed = rnd_u64(r);
  u.tc.eval_seed = rnd_u64(r) % 3;
  if (rnd_chance(r, 0.2)) {
    int i;
    u.theta0 = (la_real *)malloc(sizeof(la_real) * (size_t)u.m.nparams);
    CONTRACT(u.theta0 != NULL, "malloc");
    for (i = 0; i < u.m.nparams; ++i) u.theta0[i] = (la_real)(0.1 * (rnd_unit(r) - 0.5));
    if (rnd_chance(r, 0.3)) u.theta0[rnd_int(r, 0, u.m.nparams - 1)] = NAN;
    u.tc.theta0 = u.theta0;
  }
  if (u.tc.data_mode == LA_DATA_FIXED && rnd_chance(r, 0.3) && draw_dataset(r, &u)) {
    u.has_dataset = 1;
    u.tc.dataset = &u.dataset;
  }
  train(r, &u);
  if (u.has_dataset) la_batch_destroy(&u.dataset);
  free(u.theta0);
  la_data_destroy(&u.g);
}

#include "soak_cli.h"

int main(int argc, char **argv) {
  const char *cli = NULL, *pos[2] = {NULL, NULL};
  double seconds;
  rnd r;
  time_t start = time(NULL);
  int i, npos = 0;
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--cli") && i + 1 < argc) cli = argv[++i];
    else if (npos < 2) pos[npos++] = argv[i];
  }
  seconds = pos[0] ? strtod(pos[0], NULL) : 120;
  r.s = pos[1] && *pos[1] ? strtoull(pos[1], NULL, 10) : (uint64_t)start;
  printf("soak: %g s, seed %llu\n", seconds, (unsigned long long)r.s);
  memset(&T, 0, sizeof T);
  while (difftime(time(NULL), start) < (cli ? seconds / 2 : seconds)) one_run(&r);
  summary();
  (void)fflush(stdout);
  if (cli && soak_cli(seconds - difftime(time(NULL), start), &r, cli)) return 1;
  return 0;
}
