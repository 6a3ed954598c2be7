/* linattn.h section: the training driver and checkpoints.
   Included twice by linattn.h: once with LA__PART_API defined (declarations,
   inside the include guard and extern "C"), once with LA__PART_IMPL. */
#if defined(LA__PART_API)

/* ------------------------------------------------------------- trainer */
/* A trainer owns everything one run needs (theta, gradient, optimizer
   state, batches, model workspace) in one block sized by la_trainer_bytes,
   so that a step allocates nothing. One step:
     1. the batch of the step (data_mode below);
     2. loss and gradient; a NaN or Inf in either ends the run;
     3. clipping (global norm, then each parameter matrix);
     4. the optimizer's update at the schedule's learning-rate factor;
        a non-finite update or theta ends the run as well;
     5. every eval_every steps the loss on a fixed seeded batch;
     6. the callback, which may ask to stop.
   A run that ends in LA_EDIVERGED keeps the theta and optimizer state of
   the last finite step and names the failing step in diverged_step. */

/* The batch of 0-based step t is drawn from la_rng_seed(seed, t) (FRESH),
   from la_rng_seed(seed, t / k) at every t multiple of k (RESAMPLE), or from
   la_rng_seed(seed, 0) once (FIXED): the data of a step depends on the
   seed and the step alone. The eval batch comes from eval_seed's stream
   0xffffffffffffffff and theta from seed's stream 0xfffffffffffffffe. */
enum {
  LA_DATA_FRESH = 0,    /* a new batch every step (paper A) */
  LA_DATA_RESAMPLE = 1, /* a new batch every resample_every steps (paper B) */
  LA_DATA_FIXED = 2     /* one dataset for the whole run */
};

/* What the callback sees after each step. The pointers are valid during
   the call only. */
typedef struct la_train_record {
  long step;             /* steps taken so far, this one included (1-based) */
  double loss;           /* training loss at theta before the step */
  double grad_norm;      /* ||g|| before clipping */
  double clipped_norm;   /* ||g|| after clipping */
  double lr_scale;       /* schedule factor used by the step */
  double update_norm;    /* ||theta_new - theta_old|| */
  int nparams;           /* length of the vectors below */
  const la_real *grad;   /* the gradient after clipping */
  const la_real *update; /* theta_new - theta_old, as applied */
  const la_real *theta;  /* theta after the step */
  int has_eval;          /* nonzero when eval_loss was computed */
  double eval_loss;      /* loss on the evaluation batch at the new theta */
} la_train_record;

/* Return nonzero to stop the run after this step. */
typedef int (*la_train_callback)(void *user, const la_train_record *rec);

/* Replaces the model as the function being minimized (tests, other
   models): loss (and the gradient unless grad is NULL) at theta on batch b,
   b being NULL when the trainer has no data. */
typedef int (*la_objective_fn)(void *ctx, const la_real *theta,
                               const la_batch *b, double *loss, la_real *grad);

/* Zero fields mean the documented default. The trainer keeps the pointers
   (model, data, optimizer, its config, dataset): they must outlive it. */
typedef struct la_train_config {
  const la_model *model;         /* required unless objective is set */
  const la_data *data;           /* the prompts; NULL only without model
                                    or with a caller-given dataset */
  const la_optimizer *optimizer; /* NULL -> Adam */
  const void *optimizer_config;  /* NULL -> the optimizer's defaults */
  la_schedule schedule;          /* zero -> constant */
  double clip_norm;              /* global-norm threshold; 0 -> none */
  double clip_block;             /* per-matrix threshold; 0 -> none */
  int batch;                     /* prompts per step; 0 -> 1000 */
  int data_mode;                 /* LA_DATA_*; 0 -> fresh */
  int resample_every;            /* RESAMPLE: k; 0 -> 100 */
  const la_batch *dataset;       /* FIXED: this batch; NULL -> drawn once */
  int eval_every;                /* 0 -> 50; negative -> never */
  int eval_batch;                /* prompts in the eval batch; 0 -> batch */
  uint64_t seed;                 /* initial theta and the training data */
  uint64_t eval_seed;            /* the eval batch; 0 -> seed */
  const la_real *theta0;         /* NULL -> la_model_init_params(seed) */
  la_train_callback callback;    /* NULL -> none */
  void *user;                    /* passed to callback */
  la_objective_fn objective;     /* NULL -> the model's loss */
  void *objective_ctx;           /* passed to objective */
  int nparams;                   /* with objective and no model: length */
} la_train_config;

/* Read the fields, do not write them. */
typedef struct la_trainer {
  la_train_config cfg; /* defaults filled in */
  int n;               /* length of theta */
  long step;           /* steps taken (the schedule position) */
  long diverged_step;  /* 1-based step that met a NaN/Inf; 0 if none */
  int stopped;         /* the callback asked to stop */
  double last_eval;    /* latest eval loss (NaN before the first) */
  la_real *theta, *grad, *update;
  double *state, *backup; /* optimizer state and its copy before a step */
  size_t state_len;
  int nblocks, *block_off, *block_size;
  la_batch train, eval;
  int has_train, has_eval, batch_valid;
  uint64_t data_seed; /* seed of the training data (saved in checkpoints) */
  la_rng rng;         /* the data stream after the current batch */
  la_rng batch_rng;   /* the stream the current batch was drawn from */
  void *work;
  size_t work_bytes;
  void *owned; /* memory of la_trainer_create */
} la_trainer;

LINATTN_DEF int la_trainer_bytes(const la_train_config *cfg, size_t *bytes);
LINATTN_DEF int la_trainer_init(la_trainer *tr, const la_train_config *cfg,
                                void *mem, size_t bytes);
/* One step; LA_EDIVERGED (sticky) when it met a NaN or Inf. */
LINATTN_DEF int la_trainer_step(la_trainer *tr);
/* Up to `steps` steps, fewer if the callback stops the run. */
LINATTN_DEF int la_trainer_run(la_trainer *tr, long steps);
/* The loss on the eval batch at the current theta, computed now (the
   objective with a NULL batch when there is no model; LA_ENULL for a model
   trained on a caller-given dataset without a generator). */
LINATTN_DEF int la_trainer_eval(la_trainer *tr, double *loss);
#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_trainer_create(la_trainer *tr, const la_train_config *cfg);
LINATTN_DEF void la_trainer_destroy(la_trainer *tr);
#endif

/* ---------------------------------------------------------- checkpoints */
/* A checkpoint holds the model config, theta, the optimizer's name and
   state, the step (schedule position) and the data RNG; the current batch
   of a RESAMPLE or FIXED run is redrawn from the saved RNG, so a resumed
   run continues bit for bit. Format version 1, little-endian whatever the
   host (IEEE-754 doubles assumed), reals stored as doubles (a float
   checkpoint loads into a double build exactly), ending in an FNV-1a 64
   checksum of all preceding bytes. Loading validates everything first: a
   bad file gives LA_EFORMAT (not a checkpoint, truncated or padded),
   LA_EVERSION, LA_ECHECKSUM or LA_ESHAPE (another model, optimizer or
   state size) and leaves the trainer untouched. */
#define LA_CHECKPOINT_VERSION 1
LINATTN_DEF int la_checkpoint_bytes(const la_trainer *tr, size_t *bytes);
LINATTN_DEF int la_checkpoint_save_mem(const la_trainer *tr, void *buf,
                                       size_t cap, size_t *written);
LINATTN_DEF int la_checkpoint_load_mem(la_trainer *tr, const void *buf,
                                       size_t len);
/* Validates a checkpoint and reads its model config and step, so that a
   program can build the matching model before loading (either may be
   NULL; the config's kernels field is left NULL). */
LINATTN_DEF int la_checkpoint_info(const void *buf, size_t len,
                                   la_model_config *model, long *step);
#ifndef LINATTN_NO_STDLIB
/* Written to PATH.tmp, flushed, fsync'ed when the build has POSIX (the
   including file defines _POSIX_C_SOURCE >= 200112L or a gnu mode; plain C
   has no fsync), then renamed over PATH: a crash leaves either the old or
   the new checkpoint. On Windows rename cannot replace a file, so there
   PATH is removed first and that window is not crash-safe. */
LINATTN_DEF int la_checkpoint_save(const la_trainer *tr, const char *path);
LINATTN_DEF int la_checkpoint_load(la_trainer *tr, const char *path);
#endif

#elif defined(LA__PART_IMPL)

/* The driver trains the model on the generator's data. While the model or
   the generator section of a build is only its contract (no LA_MAX_LAYERS,
   no LA_STREAM_EVAL), only the objective hook works and a trainer on the
   model is LA_EUNSUPPORTED. */
#if defined(LA_MAX_LAYERS) && defined(LA_STREAM_EVAL)
#define LA__TR_MODEL 1
#define LA__TR_CALL(call) call
#define LA__TR_WORK(m) la_model_work_bytes(m)
#else
#define LA__TR_MODEL 0
#define LA__TR_CALL(call) LA_EUNSUPPORTED
#define LA__TR_WORK(m) 0
#endif

/* ------------------------------------------------------------- trainer */

static la_train_config la__tr_train_defaults(const la_train_config *c) {
  la_train_config d = *c;
  if (!d.optimizer) d.optimizer = la_optimizer_adam();
  if (!d.batch) d.batch = 1000;
  if (!d.resample_every) d.resample_every = 100;
  if (!d.eval_every) d.eval_every = 50;
  if (!d.eval_batch) d.eval_batch = d.batch;
  if (!d.eval_seed) d.eval_seed = d.seed;
  return d;
}

static int la__tr_train_check(const la_train_config *c) {
  int st;
  if (!c->model && !c->objective) return LA_ENULL;
  if (c->model && !LA__TR_MODEL) return LA_EUNSUPPORTED;
  if (!c->model && c->nparams <= 0) return LA_EDIM;
  if (c->model && !c->data && !(c->data_mode == LA_DATA_FIXED && c->dataset))
    return LA_ENULL;
  if (c->batch < 0 || c->eval_batch < 0 || c->resample_every < 0)
    return LA_EDIM;
  if (c->data_mode < 0 || c->data_mode > LA_DATA_FIXED) return LA_ERANGE;
  if (!(c->clip_norm >= 0) || !la__op_finite(c->clip_norm)) return LA_ERANGE;
  if (!(c->clip_block >= 0) || !la__op_finite(c->clip_block)) return LA_ERANGE;
  if ((st = la_schedule_check(&c->schedule)) != 0) return st;
  if ((st = la_optim_check(c->optimizer, c->optimizer_config)) != 0) return st;
  if (c->model && c->dataset &&
      (c->dataset->d != c->model->cfg.d || c->dataset->n != c->model->cfg.n))
    return LA_ESHAPE;
  return LA_OK;
}

/* The layout of the trainer's block, computed once for the size query and
   once more to carve it. */
typedef struct la__tr_train_layout {
  size_t theta, grad, update, state, backup, boff, bsize, train, eval, work,
      total;
  size_t state_len, train_bytes, eval_bytes, work_bytes;
  int n, nblocks_max, has_train, has_eval;
} la__tr_train_layout;

static size_t la__tr_take(size_t *at, size_t bytes) {
  size_t off = *at;
  *at += (bytes + LA_ALIGN - 1) / LA_ALIGN * LA_ALIGN;
  return off;
}

static int la__tr_train_layout_of(const la_train_config *c,
                                  la__tr_train_layout *L) {
  const la_model *m = c->model;
  size_t at = 0;
  int st;
  memset(L, 0, sizeof *L);
  L->n = m ? m->nparams : c->nparams;
  if (L->n <= 0) return LA_EDIM;
  st = la_optim_state_len(c->optimizer, c->optimizer_config, L->n,
                          &L->state_len);
  if (st) return st;
  L->nblocks_max = m ? 2 * m->cfg.layers + 16 : 1;
  L->has_train = m && c->data && !(c->data_mode == LA_DATA_FIXED && c->dataset);
  /* kept even without periodic evaluation, for la_trainer_eval */
  L->has_eval = m && c->data;
  if (L->has_train) {
    L->train_bytes = la_batch_bytes(m->cfg.d, m->cfg.n, c->batch);
    if (!L->train_bytes) return LA_EDIM;
  }
  if (L->has_eval) {
    L->eval_bytes = la_batch_bytes(m->cfg.d, m->cfg.n, c->eval_batch);
    if (!L->eval_bytes) return LA_EDIM;
  }
  L->work_bytes = m ? LA__TR_WORK(m) : 0;
  L->theta = la__tr_take(&at, sizeof(la_real) * (size_t)L->n);
  L->grad = la__tr_take(&at, sizeof(la_real) * (size_t)L->n);
  L->update = la__tr_take(&at, sizeof(la_real) * (size_t)L->n);
  L->state = la__tr_take(&at, sizeof(double) * L->state_len);
  L->backup = la__tr_take(&at, sizeof(double) * L->state_len);
  L->boff = la__tr_take(&at, sizeof(int) * (size_t)L->nblocks_max);
  L->bsize = la__tr_take(&at, sizeof(int) * (size_t)L->nblocks_max);
  L->train = la__tr_take(&at, L->train_bytes);
  L->eval = la__tr_take(&at, L->eval_bytes);
  L->work = la__tr_take(&at, L->work_bytes);
  L->total = at + LA_ALIGN; /* room to align the caller's block */
  return LA_OK;
}

LINATTN_DEF int la_trainer_bytes(const la_train_config *cfg, size_t *bytes) {
  la_train_config c;
  la__tr_train_layout L;
  int st;
  if (!cfg || !bytes) return LA_ENULL;
  c = la__tr_train_defaults(cfg);
  if ((st = la__tr_train_check(&c)) != 0) return st;
  if ((st = la__tr_train_layout_of(&c, &L)) != 0) return st;
  *bytes = L.total;
  return LA_OK;
}

/* Streams of the trainer's own draws; data batches use the stream of
   their step (FRESH) or period (RESAMPLE), as the generator's documentation
   describes, so the batch of step t depends on (seed, t) alone. */
#define LA__TR_STREAM_EVAL 0xffffffffffffffffull
#define LA__TR_STREAM_INIT 0xfffffffffffffffeull

/* Draws the current batch from `stream`, remembering where it started so
   that a checkpoint can redraw it. */
static int la__tr_draw(la_trainer *tr, uint64_t stream) {
  la_rng_seed(&tr->rng, tr->data_seed, stream);
  tr->batch_rng = tr->rng;
  tr->batch_valid = 1;
  return LA__TR_CALL(la_data_sample(tr->cfg.data, &tr->rng, &tr->train));
}

static int la__tr_trainer_start(la_trainer *tr) {
  const la_train_config *c = &tr->cfg;
  int st;
  la_rng r;
  if (c->theta0) {
    memcpy(tr->theta, c->theta0, sizeof(la_real) * (size_t)tr->n);
    if (!la__op_all_finite(tr->n, tr->theta)) return LA_ENONFINITE;
  } else if (c->model) {
    la_rng_seed(&r, c->seed, LA__TR_STREAM_INIT);
    st = LA__TR_CALL(la_model_init_params(c->model, &r, tr->theta));
    if (st) return st;
  }
  if ((st = la_optim_init(c->optimizer, c->optimizer_config, tr->n, tr->state,
                          tr->state_len)) != 0)
    return st;
  tr->data_seed = c->seed;
  la_rng_seed(&tr->rng, c->seed, 0);
  tr->batch_rng = tr->rng;
  if (tr->has_eval) {
    la_rng_seed(&r, c->eval_seed, LA__TR_STREAM_EVAL);
    st = LA__TR_CALL(la_data_sample(c->data, &r, &tr->eval));
    if (st) return st;
  }
  if (tr->has_train && c->data_mode == LA_DATA_FIXED) return la__tr_draw(tr, 0);
  return LA_OK;
}

static int la__tr_trainer_blocks(la_trainer *tr, int nmax) {
  if (!tr->cfg.model) {
    tr->nblocks = 1;
    tr->block_off[0] = 0;
    tr->block_size[0] = tr->n;
    return LA_OK;
  }
  tr->nblocks = LA__TR_CALL(
      la_model_blocks(tr->cfg.model, tr->block_off, tr->block_size, nmax));
  return tr->nblocks > 0 && tr->nblocks <= nmax ? LA_OK : LA_EDIM;
}

static int la__tr_trainer_init(la_trainer *tr, void *mem, size_t bytes) {
  la__tr_train_layout L;
  unsigned char *base;
  int st;
  if ((st = la__tr_train_layout_of(&tr->cfg, &L)) != 0) return st;
  if (bytes < L.total) return LA_EWORKSPACE;
  base = (unsigned char *)mem +
         (LA_ALIGN - (size_t)((uintptr_t)mem % LA_ALIGN)) % LA_ALIGN;
  memset(base, 0, L.total - LA_ALIGN);
  tr->n = L.n;
  tr->theta = (la_real *)(base + L.theta);
  tr->grad = (la_real *)(base + L.grad);
  tr->update = (la_real *)(base + L.update);
  tr->state = (double *)(base + L.state);
  tr->backup = (double *)(base + L.backup);
  tr->state_len = L.state_len;
  tr->block_off = (int *)(base + L.boff);
  tr->block_size = (int *)(base + L.bsize);
  tr->work = L.work_bytes ? base + L.work : NULL;
  tr->work_bytes = L.work_bytes;
  tr->has_train = L.has_train;
  tr->has_eval = L.has_eval;
  tr->last_eval = NAN;
  if (L.has_train && (st = la_batch_init(&tr->train, tr->cfg.model->cfg.d,
                                         tr->cfg.model->cfg.n, tr->cfg.batch,
                                         base + L.train, L.train_bytes)) != 0)
    return st;
  if (L.has_eval && (st = la_batch_init(
                         &tr->eval, tr->cfg.model->cfg.d, tr->cfg.model->cfg.n,
                         tr->cfg.eval_batch, base + L.eval, L.eval_bytes)) != 0)
    return st;
  if ((st = la__tr_trainer_blocks(tr, L.nblocks_max)) != 0) return st;
  return la__tr_trainer_start(tr);
}

LINATTN_DEF int la_trainer_init(la_trainer *tr, const la_train_config *cfg,
                                void *mem, size_t bytes) {
  int st;
  if (!tr || !cfg || !mem) return LA_ENULL;
  memset(tr, 0, sizeof *tr);
  tr->cfg = la__tr_train_defaults(cfg);
  st = la__tr_train_check(&tr->cfg);
  if (!st) st = la__tr_trainer_init(tr, mem, bytes);
  if (st) tr->theta = NULL; /* not usable: every call says LA_ENULL */
  return st;
}

#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_trainer_create(la_trainer *tr, const la_train_config *cfg) {
  size_t bytes;
  void *mem;
  int st;
  if (!tr || !cfg) return LA_ENULL;
  if ((st = la_trainer_bytes(cfg, &bytes)) != 0) return st;
  mem = LINATTN_MALLOC(bytes, NULL);
  if (!mem) return LA_ENOMEM;
  st = la_trainer_init(tr, cfg, mem, bytes);
  tr->owned = mem;
  if (st) la_trainer_destroy(tr);
  return st;
}
LINATTN_DEF void la_trainer_destroy(la_trainer *tr) {
  if (!tr) return;
  if (tr->owned) LINATTN_FREE(tr->owned, NULL);
  tr->owned = NULL;
  tr->theta = tr->grad = tr->update = NULL;
  tr->state = tr->backup = NULL;
}
#endif

/* The batch of the coming step, or NULL without data. */
static int la__tr_step_batch(la_trainer *tr, const la_batch **b) {
  const la_train_config *c = &tr->cfg;
  int st = LA_OK;
  *b = NULL;
  if (c->data_mode == LA_DATA_FIXED && c->dataset) {
    *b = c->dataset;
    return LA_OK;
  }
  if (!tr->has_train) return LA_OK;
  if (c->data_mode == LA_DATA_FRESH)
    st = la__tr_draw(tr, (uint64_t)tr->step);
  else if (c->data_mode == LA_DATA_RESAMPLE &&
           tr->step % c->resample_every == 0)
    st = la__tr_draw(tr, (uint64_t)(tr->step / c->resample_every));
  *b = &tr->train;
  return st;
}

static int la__tr_objective(la_trainer *tr, const la_batch *b, double *loss,
                            la_real *grad) {
  const la_train_config *c = &tr->cfg;
  if (c->objective)
    return c->objective(c->objective_ctx, tr->theta, b, loss, grad);
  if (grad)
    return LA__TR_CALL(la_model_grad(c->model, tr->theta, b, loss, grad,
                                     tr->work, tr->work_bytes));
  return LA__TR_CALL(la_model_loss(c->model, tr->theta, b, loss, NULL, tr->work,
                                   tr->work_bytes));
}

LINATTN_DEF int la_trainer_eval(la_trainer *tr, double *loss) {
  int st;
  if (!tr || !loss || !tr->theta) return LA_ENULL;
  st = la__tr_objective(tr, tr->has_eval ? &tr->eval : NULL, loss, NULL);
  if (st) return st;
  tr->last_eval = *loss;
  return LA_OK;
}

static int la__tr_diverged(la_trainer *tr) {
  tr->diverged_step = tr->step + 1;
  return LA_EDIVERGED;
}

/* Steps 3 and 4: clip, then the optimizer's update into tr->update, with
   the state restored if the result is not finite. */
static int la__tr_clip_and_update(la_trainer *tr, la_train_record *r) {
  const la_train_config *c = &tr->cfg;
  double nrm = la__op_norm_d(tr->n, tr->grad);
  int i, st;
  r->grad_norm = nrm;
  if (c->clip_norm > 0) la__op_clip(tr->n, tr->grad, c->clip_norm, nrm);
  if (c->clip_block > 0)
    for (i = 0; i < tr->nblocks; ++i)
      la__op_clip(
          tr->block_size[i], tr->grad + tr->block_off[i], c->clip_block,
          la__op_norm_d(tr->block_size[i], tr->grad + tr->block_off[i]));
  r->clipped_norm = (c->clip_norm > 0 || c->clip_block > 0)
                        ? la__op_norm_d(tr->n, tr->grad)
                        : nrm;
  if ((st = la_schedule_scale(&c->schedule, tr->step, &r->lr_scale)) != 0)
    return st;
  if (tr->state_len)
    memcpy(tr->backup, tr->state, sizeof(double) * tr->state_len);
  st = c->optimizer->step(c->optimizer_config, tr->n, tr->state, r->lr_scale,
                          tr->theta, tr->grad, tr->update);
  if (st) return st;
  {
    double acc = 0;
    for (i = 0; i < tr->n; ++i)
      acc += (double)(tr->theta[i] + tr->update[i]) * 0.0;
    if (acc != 0) {
      if (tr->state_len)
        memcpy(tr->state, tr->backup, sizeof(double) * tr->state_len);
      return la__tr_diverged(tr);
    }
  }
  return LA_OK;
}

/* Adds the update, keeping in tr->update the change that rounding let
   through, the step actually taken. */
static double la__tr_apply(la_trainer *tr) {
  double s = 0;
  int i;
  for (i = 0; i < tr->n; ++i) {
    la_real old = tr->theta[i];
    tr->theta[i] = old + tr->update[i];
    tr->update[i] = tr->theta[i] - old;
    s += (double)tr->update[i] * tr->update[i];
  }
  return sqrt(s);
}

LINATTN_DEF int la_trainer_step(la_trainer *tr) {
  la_train_record r;
  const la_batch *b;
  int st;
  if (!tr || !tr->theta) return LA_ENULL;
  if (tr->diverged_step) return LA_EDIVERGED;
  memset(&r, 0, sizeof r);
  if ((st = la__tr_step_batch(tr, &b)) != 0) return st;
  st = la__tr_objective(tr, b, &r.loss, tr->grad);
  /* the model's own word for an overflow, or a NaN that reached theta */
  if (st == LA_EDIVERGED || st == LA_ENONFINITE) return la__tr_diverged(tr);
  if (st) return st;
  if (!la__op_finite(r.loss) || !la__op_all_finite(tr->n, tr->grad))
    return la__tr_diverged(tr);
  if ((st = la__tr_clip_and_update(tr, &r)) != 0) return st;
  r.update_norm = la__tr_apply(tr);
  r.step = ++tr->step;
  r.nparams = tr->n;
  r.grad = tr->grad;
  r.update = tr->update;
  r.theta = tr->theta;
  if (tr->cfg.eval_every > 0 && tr->step % tr->cfg.eval_every == 0 &&
      (tr->has_eval || !tr->cfg.model)) {
    if ((st = la_trainer_eval(tr, &r.eval_loss)) != 0) return st;
    r.has_eval = 1;
  }
  if (tr->cfg.callback && tr->cfg.callback(tr->cfg.user, &r)) tr->stopped = 1;
  return LA_OK;
}

LINATTN_DEF int la_trainer_run(la_trainer *tr, long steps) {
  long i;
  int st;
  if (!tr || !tr->theta) return LA_ENULL;
  if (steps < 0) return LA_ERANGE;
  tr->stopped = 0;
  for (i = 0; i < steps && !tr->stopped; ++i)
    if ((st = la_trainer_step(tr)) != 0) return st;
  return LA_OK;
}

/* ---------------------------------------------------------- checkpoints */
/* Layout (offsets in bytes, every field little-endian):
     0 magic "LACKPT\r\n" (the CR LF catches text-mode mangling)
     8 u32 version   12 u32 sizeof(la_real) of the writer (informative)
    16 u64 total length of the file, checksum included
    24 i32 d, n, layers, param, activation, front_hidden   48 f64 init_std
    56 i64 nparams   64 i64 step   72 u64 data seed
    80 u32 batch drawn   84 u32 w, the 64-bit words of a la_rng
    88 optimizer name, 32 bytes NUL-padded
   120 u64 state length s
   128 u64 rng[w], batch rng[w], f64 state[s], f64 theta[nparams]
   end-8 u64 FNV-1a 64 of every byte before it */

#include <float.h>
#ifdef LINATTN_DOUBLE
#define LA__TR_REAL_MAX DBL_MAX
#else
#define LA__TR_REAL_MAX FLT_MAX
#endif
#define LA__TR_CK_HEAD 128
#define LA__TR_RNG_WORDS (sizeof(la_rng) / 8)
/* la_rng is saved word by word: it must be made of uint64_t only */
typedef char
    la__tr_rng_is_words[(sizeof(la_rng) % 8 == 0 && sizeof(la_rng) <= 64) ? 1
                                                                          : -1];
static const unsigned char la__tr_ck_magic[8] = {'L', 'A', 'C',  'K',
                                                 'P', 'T', '\r', '\n'};

static void la__tr_put64(unsigned char *p, uint64_t v) {
  int i;
  for (i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void la__tr_put32(unsigned char *p, uint32_t v) {
  int i;
  for (i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t la__tr_get64(const unsigned char *p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
static uint32_t la__tr_get32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static void la__tr_putf(unsigned char *p, double x) {
  uint64_t v;
  memcpy(&v, &x, 8);
  la__tr_put64(p, v);
}
static double la__tr_getf(const unsigned char *p) {
  uint64_t v = la__tr_get64(p);
  double x;
  memcpy(&x, &v, 8);
  return x;
}
static int32_t la__tr_geti32(const unsigned char *p) {
  uint32_t u = la__tr_get32(p);
  /* two's complement without implementation-defined conversion */
  return u <= 0x7fffffffu ? (int32_t)u : -(int32_t)(0xffffffffu - u) - 1;
}

static uint64_t la__tr_fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  size_t i;
  for (i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static size_t la__tr_ck_total(size_t words, size_t state_len, size_t n) {
  return LA__TR_CK_HEAD + 8 * (2 * words + state_len + n) + 8;
}

static unsigned char *la__tr_put_rng(unsigned char *p, const la_rng *r) {
  uint64_t w[8];
  size_t i;
  memcpy(w, r, sizeof *r);
  for (i = 0; i < LA__TR_RNG_WORDS; ++i, p += 8) la__tr_put64(p, w[i]);
  return p;
}
static const unsigned char *la__tr_get_rng(const unsigned char *p, la_rng *r) {
  uint64_t w[8];
  size_t i;
  for (i = 0; i < LA__TR_RNG_WORDS; ++i, p += 8) w[i] = la__tr_get64(p);
  memcpy(r, w, sizeof *r);
  return p;
}

LINATTN_DEF int la_checkpoint_bytes(const la_trainer *tr, size_t *bytes) {
  if (!tr || !bytes || !tr->theta) return LA_ENULL;
  *bytes = la__tr_ck_total(LA__TR_RNG_WORDS, tr->state_len, (size_t)tr->n);
  return LA_OK;
}

static void la__tr_ck_model(unsigned char *p, const la_model *m) {
  la_model_config z;
  const la_model_config *c = m ? &m->cfg : &z;
  memset(&z, 0, sizeof z);
  la__tr_put32(p, (uint32_t)c->d);
  la__tr_put32(p + 4, (uint32_t)c->n);
  la__tr_put32(p + 8, (uint32_t)c->layers);
  la__tr_put32(p + 12, (uint32_t)c->param);
  la__tr_put32(p + 16, (uint32_t)c->activation);
  la__tr_put32(p + 20, (uint32_t)c->front_hidden);
  la__tr_putf(p + 24, c->init_std);
}

LINATTN_DEF int la_checkpoint_save_mem(const la_trainer *tr, void *buf,
                                       size_t cap, size_t *written) {
  unsigned char *p = (unsigned char *)buf;
  size_t total, i, nl;
  int st = la_checkpoint_bytes(tr, &total);
  if (st) return st;
  if (!buf) return LA_ENULL;
  if (cap < total) return LA_EWORKSPACE;
  memset(p, 0, LA__TR_CK_HEAD);
  memcpy(p, la__tr_ck_magic, 8);
  la__tr_put32(p + 8, LA_CHECKPOINT_VERSION);
  la__tr_put32(p + 12, (uint32_t)sizeof(la_real));
  la__tr_put64(p + 16, (uint64_t)total);
  la__tr_ck_model(p + 24, tr->cfg.model);
  la__tr_put64(p + 56, (uint64_t)tr->n);
  la__tr_put64(p + 64, (uint64_t)tr->step);
  la__tr_put64(p + 72, tr->data_seed);
  la__tr_put32(p + 80, (uint32_t)tr->batch_valid);
  la__tr_put32(p + 84, (uint32_t)LA__TR_RNG_WORDS);
  nl = strlen(tr->cfg.optimizer->name);
  memcpy(p + 88, tr->cfg.optimizer->name, nl < 31 ? nl : 31);
  la__tr_put64(p + 120, (uint64_t)tr->state_len);
  p = la__tr_put_rng(p + LA__TR_CK_HEAD, &tr->rng);
  p = la__tr_put_rng(p, &tr->batch_rng);
  for (i = 0; i < tr->state_len; ++i, p += 8) la__tr_putf(p, tr->state[i]);
  for (i = 0; i < (size_t)tr->n; ++i, p += 8)
    la__tr_putf(p, (double)tr->theta[i]);
  la__tr_put64(p, la__tr_fnv1a((const unsigned char *)buf, total - 8));
  if (written) *written = total;
  return LA_OK;
}

/* Everything that does not need a trainer: framing, version, checksum and
   the lengths agreeing with each other. */
static int la__tr_ck_validate(const unsigned char *p, size_t len) {
  uint64_t total, sl, n, w;
  if (!p) return LA_ENULL;
  if (len < 8 || memcmp(p, la__tr_ck_magic, 8) != 0) return LA_EFORMAT;
  if (len < 12) return LA_EFORMAT;
  if (la__tr_get32(p + 8) != LA_CHECKPOINT_VERSION) return LA_EVERSION;
  if (len < LA__TR_CK_HEAD + 8) return LA_EFORMAT;
  total = la__tr_get64(p + 16);
  if (total != (uint64_t)len) return LA_EFORMAT;
  if (la__tr_get64(p + len - 8) != la__tr_fnv1a(p, len - 8))
    return LA_ECHECKSUM;
  sl = la__tr_get64(p + 120);
  n = la__tr_get64(p + 56);
  w = la__tr_get32(p + 84);
  if (sl > len / 8 || n > len / 8 || w > 8 || n == 0 ||
      la__tr_ck_total((size_t)w, (size_t)sl, (size_t)n) != len)
    return LA_EFORMAT;
  if (la__tr_get64(p + 64) > 0x7fffffffffffffffull) return LA_EFORMAT;
  if (p[88 + 31] != 0) return LA_EFORMAT;
  return LA_OK;
}

static void la__tr_ck_read_model(const unsigned char *p, la_model_config *c) {
  memset(c, 0, sizeof *c);
  c->d = la__tr_geti32(p);
  c->n = la__tr_geti32(p + 4);
  c->layers = la__tr_geti32(p + 8);
  c->param = la__tr_geti32(p + 12);
  c->activation = la__tr_geti32(p + 16);
  c->front_hidden = la__tr_geti32(p + 20);
  c->init_std = la__tr_getf(p + 24);
}

LINATTN_DEF int la_checkpoint_info(const void *buf, size_t len,
                                   la_model_config *model, long *step) {
  const unsigned char *p = (const unsigned char *)buf;
  int st = la__tr_ck_validate(p, len);
  if (st) return st;
  if (model) la__tr_ck_read_model(p + 24, model);
  if (step) *step = (long)la__tr_get64(p + 64);
  return LA_OK;
}

/* The file against this trainer: same model, optimizer and sizes, and
   values that fit it. */
static int la__tr_ck_matches(const la_trainer *tr, const unsigned char *p) {
  la_model_config f, z;
  const la_model_config *m = tr->cfg.model ? &tr->cfg.model->cfg : &z;
  size_t i, nl = strlen(tr->cfg.optimizer->name);
  const unsigned char *th;
  memset(&z, 0, sizeof z);
  la__tr_ck_read_model(p + 24, &f);
  if (f.d != m->d || f.n != m->n || f.layers != m->layers ||
      f.param != m->param || f.activation != m->activation ||
      f.front_hidden != m->front_hidden)
    return LA_ESHAPE;
  if (la__tr_get64(p + 56) != (uint64_t)tr->n ||
      la__tr_get64(p + 120) != (uint64_t)tr->state_len ||
      la__tr_get32(p + 84) != LA__TR_RNG_WORDS)
    return LA_ESHAPE;
  if (nl > 31 || memcmp(p + 88, tr->cfg.optimizer->name, nl) != 0 ||
      p[88 + nl] != 0)
    return LA_ESHAPE;
  th = p + LA__TR_CK_HEAD + 8 * (2 * LA__TR_RNG_WORDS + tr->state_len);
  /* a double beyond la_real's range would become Inf (or be undefined) */
  for (i = 0; i < (size_t)tr->n; ++i)
    if (!(fabs(la__tr_getf(th + 8 * i)) <= LA__TR_REAL_MAX)) return LA_EFORMAT;
  return LA_OK;
}

LINATTN_DEF int la_checkpoint_load_mem(la_trainer *tr, const void *buf,
                                       size_t len) {
  const unsigned char *p = (const unsigned char *)buf;
  size_t i;
  int st;
  if (!tr || !tr->theta) return LA_ENULL;
  if ((st = la__tr_ck_validate(p, len)) != 0) return st;
  if ((st = la__tr_ck_matches(tr, p)) != 0) return st;
  tr->step = (long)la__tr_get64(p + 64);
  tr->data_seed = la__tr_get64(p + 72);
  tr->batch_valid = la__tr_get32(p + 80) != 0;
  p = la__tr_get_rng(p + LA__TR_CK_HEAD, &tr->rng);
  p = la__tr_get_rng(p, &tr->batch_rng);
  for (i = 0; i < tr->state_len; ++i, p += 8) tr->state[i] = la__tr_getf(p);
  for (i = 0; i < (size_t)tr->n; ++i, p += 8)
    tr->theta[i] = (la_real)la__tr_getf(p);
  tr->diverged_step = 0;
  tr->stopped = 0;
  if (tr->has_train && tr->cfg.data_mode != LA_DATA_FRESH && tr->batch_valid) {
    la_rng r = tr->batch_rng;
    (void)r;
    st = LA__TR_CALL(la_data_sample(tr->cfg.data, &r, &tr->train));
  }
  return st;
}

#ifndef LINATTN_NO_STDLIB
#include <stdio.h>
#if (defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L) ||                \
    defined(__APPLE__)
#include <unistd.h>
#define LA__TR_FSYNC(f) fsync(fileno(f))
#else
#define LA__TR_FSYNC(f) 0
#endif

static int la__tr_write_file(const char *path, const void *buf, size_t len) {
  FILE *f = fopen(path, "wb");
  int ok;
  if (!f) return LA_EIO;
  ok = fwrite(buf, 1, len, f) == len;
  ok = fflush(f) == 0 && ok;
  ok = LA__TR_FSYNC(f) == 0 && ok;
  ok = fclose(f) == 0 && ok;
  return ok ? LA_OK : LA_EIO;
}

LINATTN_DEF int la_checkpoint_save(const la_trainer *tr, const char *path) {
  size_t total, pl;
  char *tmp;
  unsigned char *buf;
  int st;
  if (!path) return LA_ENULL;
  if ((st = la_checkpoint_bytes(tr, &total)) != 0) return st;
  pl = strlen(path);
  buf = (unsigned char *)LINATTN_MALLOC(total + pl + 5, NULL);
  if (!buf) return LA_ENOMEM;
  tmp = (char *)buf + total;
  memcpy(tmp, path, pl);
  memcpy(tmp + pl, ".tmp", 5);
  st = la_checkpoint_save_mem(tr, buf, total, NULL);
  if (!st) st = la__tr_write_file(tmp, buf, total);
#ifdef _WIN32
  if (!st) remove(path);
#endif
  if (!st && rename(tmp, path) != 0) st = LA_EIO;
  if (st) remove(tmp);
  LINATTN_FREE(buf, NULL);
  return st;
}

LINATTN_DEF int la_checkpoint_load(la_trainer *tr, const char *path) {
  FILE *f;
  long size;
  unsigned char *buf;
  int st = LA_OK;
  if (!tr || !path) return LA_ENULL;
  f = fopen(path, "rb");
  if (!f) return LA_EIO;
  if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return LA_EIO;
  }
  buf = (unsigned char *)LINATTN_MALLOC((size_t)size + 1, NULL);
  if (!buf)
    st = LA_ENOMEM;
  else if (fread(buf, 1, (size_t)size, f) != (size_t)size)
    st = LA_EIO;
  fclose(f);
  if (!st) st = la_checkpoint_load_mem(tr, buf, (size_t)size);
  if (buf) LINATTN_FREE(buf, NULL);
  return st;
}
#endif

#endif
