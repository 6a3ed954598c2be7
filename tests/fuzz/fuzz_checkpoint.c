/* libFuzzer harness of the checkpoint reader: la_checkpoint_info and
   la_checkpoint_load_mem on arbitrary bytes.

   Each input is tried twice: as it is (framing, version, checksum), and
   "resealed", its length field and closing checksum rewritten to match, so
   that mutations reach the checks behind the checksum. Both copies are
   loaded into a fixed trainer (paper A's base model, Adam); the resealed
   one also into a trainer built from what la_checkpoint_info reports, as a
   program resuming a run would, so that the loader's paths past the shape
   checks are reached too. Checked:
     - every status is one the loader documents;
     - a failed load leaves the trainer, and every byte of its block, as
       they were;
     - a successful load gives finite theta and state, saves again to a file
       that loads and saves to the same bytes, and two more training steps
       either succeed with finite results or report LA_EDIVERGED. */
#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"
#include "fuzz_util.h"

#define RIG_CAP (1u << 20)
#define FILE_CAP (1u << 18)


/* A trainer and everything it points to: it keeps the pointers. */
typedef struct rig {
  la_model model;
  la_data data;
  unsigned char data_mem[1024];
  la_optim_config opt;
  la_train_config tc;
  la_trainer tr;
  size_t bytes;
  unsigned char *mem, *shadow;
} rig;

/* The registry's optimizer of that name (any plain one: a closure
   optimizer's checkpoints are fuzzed through its own corpus), else Adam. */
static const la_optimizer *optimizer_named(const char *name) {
  const la_optim_entry *e = la_optim_find(name);
  if (!e || e->optimizer->step == la_closure_step) return la_optimizer_adam();
  return e->optimizer;
}

/* The optimizer's configuration whose state has `len` doubles, if any:
   momentum decides it for the SGD family and RMSprop. */
static void optimizer_for_len(rig *r, size_t len, int n) {
  int with_momentum = len >= (size_t)n && len != 0;
  memset(&r->opt, 0, sizeof r->opt);
  if (r->tc.optimizer == la_optimizer_rmsprop())
    r->opt.momentum = len == 2 * (size_t)n ? 0.9 : 0;
  else if (r->tc.optimizer == la_optimizer_sgd() ||
           r->tc.optimizer == la_optimizer_sign() ||
           r->tc.optimizer == la_optimizer_nsgd())
    r->opt.momentum = with_momentum ? 0.9 : 0;
  else if (r->tc.optimizer == la_optimizer_adam())
    r->opt.beta2 = 0.9;
  r->tc.optimizer_config = &r->opt;
}

/* Builds r's trainer for model config mc; 0 when it is invalid or larger
   than a fuzzing iteration should afford. */
static int rig_build(rig *r, const la_model_config *mc, const char *opt,
                     size_t state_len, int nparams, int mode) {
  la_data_config dc;
  size_t bytes;
  if (mc->d <= 0 || mc->d > 8 || mc->n <= 0 || mc->n > 32 ||
      mc->layers > 4 || mc->front_hidden > 8)
    return 0;
  if (la_model_init(&r->model, mc) != LA_OK) return 0;
  memset(&dc, 0, sizeof dc);
  dc.d = mc->d;
  dc.n = mc->n;
  if (la_data_bytes(&dc) > sizeof r->data_mem) return 0;
  FZ_CHECK(la_data_init(&r->data, &dc, 3, r->data_mem, sizeof r->data_mem) ==
               LA_OK, "data d=%d n=%d", dc.d, dc.n);
  memset(&r->tc, 0, sizeof r->tc);
  r->tc.model = &r->model;
  r->tc.data = &r->data;
  r->tc.optimizer = optimizer_named(opt);
  optimizer_for_len(r, state_len, nparams);
  r->tc.clip_norm = 1;
  r->tc.batch = 8;
  r->tc.eval_every = 1;
  r->tc.data_mode = mode;
  r->tc.resample_every = 3;
  r->tc.seed = 11;
  if (la_trainer_bytes(&r->tc, &bytes) != LA_OK || bytes > RIG_CAP) return 0;
  r->bytes = bytes;
  FZ_CHECK(la_trainer_init(&r->tr, &r->tc, r->mem, bytes) == LA_OK, "init");
  return 1;
}

static int load_status_ok(int st) {
  return st == LA_OK || st == LA_EFORMAT || st == LA_EVERSION ||
         st == LA_ECHECKSUM || st == LA_ESHAPE;
}

static void check_trained(rig *r) {
  int i, st;
  for (i = 0; i < 2; ++i) {
    st = la_trainer_step(&r->tr);
    FZ_CHECK(st == LA_OK || st == LA_EDIVERGED ||
                 (st == LA_ERANGE && r->tr.step == LONG_MAX),
             "step: %s", la_status_str(st));
    if (st) break;
    FZ_CHECK(fz_all_finite(r->tr.n, r->tr.theta), "theta after a step");
    FZ_CHECK(isfinite(r->tr.last_eval), "eval loss %g", r->tr.last_eval);
  }
}

/* Saving what was loaded and loading that again reproduces it exactly. */
static void check_round_trip(rig *r) {
  static uint8_t a[FILE_CAP], b[FILE_CAP];
  size_t na = 0, nb = 0;
  int st = la_checkpoint_save_mem(&r->tr, a, sizeof a, &na);
  FZ_CHECK(st == LA_OK, "save: %s", la_status_str(st));
  st = la_checkpoint_load_mem(&r->tr, a, na);
  FZ_CHECK(st == LA_OK, "reload: %s", la_status_str(st));
  FZ_CHECK(la_checkpoint_save_mem(&r->tr, b, sizeof b, &nb) == LA_OK, "save");
  FZ_CHECK(na == nb && memcmp(a, b, na) == 0, "a reloaded file saves the same");
}

static void load_checked(rig *r, const uint8_t *buf, size_t len) {
  la_trainer before = r->tr;
  size_t i;
  int st;
  memcpy(r->shadow, r->mem, r->bytes);
  st = la_checkpoint_load_mem(&r->tr, buf, len);
  FZ_CHECK(load_status_ok(st), "load: %d %s", st, la_status_str(st));
  if (st) {
    FZ_CHECK(memcmp(&before, &r->tr, sizeof before) == 0, "trainer changed");
    FZ_CHECK(memcmp(r->shadow, r->mem, r->bytes) == 0, "block changed");
    return;
  }
  FZ_CHECK(r->tr.step >= 0, "step %ld", r->tr.step);
  FZ_CHECK(fz_all_finite(r->tr.n, r->tr.theta), "loaded theta");
  for (i = 0; i < r->tr.state_len; ++i)
    FZ_CHECK(isfinite(r->tr.state[i]), "loaded state[%d]", (int)i);
  check_round_trip(r);
  check_trained(r);
}

static rig base, own;
static la_trainer base_pristine;
static unsigned char *base_pristine_mem;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  la_model_config mc;
  (void)argc;
  (void)argv;
  base.mem = (unsigned char *)malloc(RIG_CAP);
  base.shadow = (unsigned char *)malloc(RIG_CAP);
  own.mem = (unsigned char *)malloc(RIG_CAP);
  own.shadow = (unsigned char *)malloc(RIG_CAP);
  base_pristine_mem = (unsigned char *)malloc(RIG_CAP);
  memset(&mc, 0, sizeof mc);
  mc.d = 5;
  mc.n = 20;
  FZ_CHECK(rig_build(&base, &mc, "adam", 301, 150, LA_DATA_RESAMPLE), "base");
  base_pristine = base.tr;
  memcpy(base_pristine_mem, base.mem, base.bytes);
  return 0;
}

static void base_restore(void) {
  base.tr = base_pristine;
  memcpy(base.mem, base_pristine_mem, base.bytes);
}

/* la_checkpoint_info reads a valid file into a model config and a step. */
static int info_checked(const uint8_t *buf, size_t len, la_model_config *mc) {
  long step = -1;
  int st = la_checkpoint_info(buf, len, mc, &step);
  FZ_CHECK(st == LA_OK || st == LA_EFORMAT || st == LA_EVERSION ||
               st == LA_ECHECKSUM,
           "info: %s", la_status_str(st));
  if (!st) FZ_CHECK(step >= 0 && mc->kernels == NULL, "info step %ld", step);
  return st;
}

static void put64(uint8_t *p, uint64_t v) {
  int i;
  for (i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get64(const uint8_t *p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static uint8_t sealed[FILE_CAP];
  la_model_config mc;
  char name[32];
  if (size > FILE_CAP) return 0;
  info_checked(data, size, &mc);
  base_restore();
  load_checked(&base, data, size);
  if (size < 136) return 0;
  memcpy(sealed, data, size);
  put64(sealed + 16, (uint64_t)size);
  fz_reseal(sealed, size);
  base_restore();
  load_checked(&base, sealed, size);
  if (info_checked(sealed, size, &mc) != LA_OK) return 0;
  memcpy(name, sealed + 88, 31);
  name[31] = 0;
  if (rig_build(&own, &mc, name, (size_t)get64(sealed + 120),
                (int)(get64(sealed + 56) & 0x7fffffff), sealed[72] % 3))
    load_checked(&own, sealed, size);
  return 0;
}
