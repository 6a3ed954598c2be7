/* linattn - paper A's and paper B's experiments from the command line.

     linattn reproduce            paper A, Setting 1, quick: report + figures
     linattn train ...            one run, JSON lines, checkpoints, resume
     linattn noise | curvature    measurements at initialization or a checkpoint
     linattn theorem              paper B's closed forms against training
     linattn sweep ... | report   grids of runs, and their merged report
     linattn export FILES...      JSON lines to CSV, for pandas and R

   Every subcommand takes --help. Exit statuses: one table for all
   (linattn_util.h, printed by --help): 0 done, 1 the work failed, 2 bad
   input, 3 a file could not be written or read, 4 out of memory. Built by
   `make` into build/linattn; C99 + POSIX, the library through its public
   API only. */
#define _POSIX_C_SOURCE 200809L
#define LINATTN_IMPLEMENTATION
#include "linattn.h"

#include "la_svg.h"
#include "linattn_cli.h"
#include "linattn_export.h"
#include "linattn_json.h"
#include "linattn_npy.h"
#include "linattn_runs.h"
#include "linattn_theorem.h"
#include "linattn_paperb.h"
#include "linattn_util.h"

#include <float.h>
#include <math.h>

/* ================================================================== */
/*                         building one run                           */
/* ================================================================== */

static const char *const precision_name =
    sizeof(la_real) == 8 ? "double" : "float";

/* The exit status of a library status met while working: out of memory
   and file errors have their own; any other is the work failing. */
static int exit_of_status(int st) {
  if (st == LA_ENOMEM) return EXIT_NOMEM;
  if (st == LA_EIO) return EXIT_IO;
  return st ? EXIT_FAILED : EXIT_DONE;
}

/* A run's objects for a resolved description, computing with `threads`
   threads (a pool in *pool, NULL for one; the results are the same bits
   whatever the count): EXIT_BAD_INPUT with the library's word when it
   cannot be built. */
static int run_make(la_run *r, const la_run_config *rc, const la_run_env *env,
                    long threads, la_pool **pool) {
  la_run_env e;
  int st;
  memset(&e, 0, sizeof e);
  if (env) e = *env;
  *pool = NULL;
  if (threads < 0) threads = la_cpu_count();
  if (threads > 1 && (st = la_pool_create(pool, (int)threads)) != 0)
    return st == LA_ENOMEM ? u_oom()
                           : u_fail(EXIT_BAD_INPUT, "--threads %ld: %s", threads,
                                    la_status_str(st));
  e.parallel = *pool ? la_pool_parallel(*pool) : NULL;
  st = la_run_create(r, rc, &e);
  if (st) {
    la_pool_destroy(*pool);
    *pool = NULL;
  }
  if (st == LA_ENOMEM) return u_oom();
  if (st) return u_fail(EXIT_BAD_INPUT, "cannot set up the run: %s", la_status_str(st));
  return 0;
}

/* The run's objects, then its threads. */
static void run_free(la_run *r, la_pool *pool) {
  la_run_destroy(r);
  la_pool_destroy(pool);
}

/* The fixed batch of the diagnostics: its own stream of the eval seed. */
#define DIAG_STREAM (LA_STREAM_EVAL - 2)
static int diag_batch(const la_run *r, long prompts, la_batch *b) {
  la_rng rng;
  int st = la_batch_create(b, r->cfg.data.d, r->cfg.data.n, (int)prompts);
  if (st) return st;
  la_rng_seed(&rng, r->trainer.cfg.eval_seed, DIAG_STREAM);
  if ((st = la_data_sample(&r->data, &rng, b)) != 0) la_batch_destroy(b);
  return st;
}

/* The config line: the run, then what is measured along it. */
static void write_config(jw *w, const la_run *r) {
  jw_str(w, "type", "config");
  cli_write_run(w, &r->cfg);
  jw_int(w, "nparams", r->model.nparams);
  jw_str(w, "backend", la_backend_name());
  jw_str(w, "precision", precision_name);
}

/* A checkpoint the command reads: its bytes, read once (only from a
   regular file of a bounded size, so a FIFO, a device or a folder is
   refused at once), and whether it is of version 1. */
typedef struct ckpt_in {
  const char *path;
  unsigned char *buf;
  size_t len;
  int v1;
} ckpt_in;

static void ckpt_free(ckpt_in *in) {
  free(in->buf);
  in->buf = NULL;
}

/* Reads path into in and checks its framing: the exit status. */
static int read_checkpoint(const char *path, ckpt_in *in) {
  char *text;
  int st;
  memset(in, 0, sizeof *in);
  in->path = path;
  if ((st = u_read_file(path, "a checkpoint", &text, &in->len)) != 0) return st;
  in->buf = (unsigned char *)text;
  st = la_checkpoint_run(in->buf, in->len, NULL, NULL);
  if (st == LA_EFORMAT && la_checkpoint_info(in->buf, in->len, NULL, NULL) == 0) {
    in->v1 = 1;
    st = 0;
  }
  if (st) {
    ckpt_free(in);
    return u_fail(st == LA_ENOMEM ? EXIT_NOMEM : EXIT_BAD_INPUT,
                  "%s is not a checkpoint this program can read: %s", U_Q(path),
                  la_status_str(st));
  }
  return 0;
}

/* The run a command describes: its flags over a preset, or, from a
   checkpoint (read into in, which the caller frees), the run saved there
   (the flags given must agree with it). A version 1 checkpoint holds no
   description: its flags then say it. */
static int resolve_run(const cli_config *c, const char *ckpt,
                       la_run_config *rc, ckpt_in *in) {
  char err[600];
  memset(in, 0, sizeof *in);
  if (ckpt) {
    la_run_config saved;
    int st = read_checkpoint(ckpt, in);
    if (st) return st;
    if (!in->v1) {
      if ((st = la_checkpoint_run(in->buf, in->len, &saved, NULL)) != 0) /* checked: memory */
        return u_fail(exit_of_status(st), "%s: %s", U_Q(ckpt), la_status_str(st));
      if (cli_resume_of(c, &saved, rc, err, sizeof err) != CLI_OK)
        return u_fail(EXIT_BAD_INPUT, "%s", err);
      return 0;
    }
  }
  if (cli_run_of(c, rc, err, sizeof err) != CLI_OK)
    return u_fail(EXIT_BAD_INPUT, "%s", err);
  return 0;
}

/* Loads a checkpoint into r: by its description, or (version 1) by shape. */
static int load_into(la_run *r, const ckpt_in *in) {
  const la_run_field *why = NULL;
  int st = in->v1 ? la_checkpoint_load_mem(&r->trainer, in->buf, in->len)
                  : la_run_resume_mem(r, in->buf, in->len, &why);
  if (st == LA_ESHAPE && why)
    return u_fail(EXIT_BAD_INPUT, "cannot resume from %s: its run differs in %s",
                  U_Q(in->path), why->key);
  if (st)
    return u_fail(st == LA_ENOMEM ? EXIT_NOMEM : EXIT_BAD_INPUT,
                  "cannot resume from %s: %s%s", U_Q(in->path), la_status_str(st),
                  in->v1 ? " (a version 1 checkpoint: give the run's flags)" : "");
  return 0;
}

/* Saves the trainer to path as la_checkpoint_save does, through the
   command's own outputs (u_out: an exclusive temporary, fsync, rename, the
   stale temporaries of killed runs removed), so that a failure says why
   (disk full) and has the table's status. */
static int save_checkpoint(const la_trainer *tr, const char *path) {
  size_t bytes = 0;
  unsigned char *buf;
  u_out o;
  int st = la_checkpoint_bytes(tr, &bytes);
  if (st) return u_fail(EXIT_FAILED, "cannot save a checkpoint: %s", la_status_str(st));
  if (!(buf = (unsigned char *)malloc(bytes))) return u_oom();
  if ((st = la_checkpoint_save_mem(tr, buf, bytes, &bytes)) != 0) {
    free(buf);
    return u_fail(exit_of_status(st), "cannot save a checkpoint: %s", la_status_str(st));
  }
  if ((st = u_open_as(&o, path, 1)) == 0) {
    /* a short write leaves the stream's error set: u_commit reports it */
    if (fwrite(buf, 1, bytes, o.f) != bytes) o.err = errno;
    st = u_commit(&o);
  }
  free(buf);
  return st;
}

/* ================================================================== */
/*                              train                                 */
/* ================================================================== */

typedef struct train_ctx {
  const cli_config *c;
  la_run *run;
  FILE *out;
  la_batch diag;
  void *work;
  size_t bytes;
  la_real *prev;
  u_progress *prog;
  long steps, log_every, diag_every, smooth_every;
  int status;
  struct theta_tap *tap; /* --save-theta */
} train_ctx;

static int write_rcond(train_ctx *x, jw *w, const la_real *theta) {
  la_rcond rc;
  int st = la_robust_cond(&x->run->model, theta, &x->diag, NULL, &rc, x->work,
                          x->bytes);
  if (st) return st;
  jw_num(w, "rcond_diag", rc.by_diag);
  jw_num(w, "rcond_spectrum", rc.by_spectrum);
  jw_num(w, "lambda_max", rc.lambda_max);
  jw_num(w, "lambda_median", rc.lambda_median);
  return 0;
}

static int train_cb(void *user, const la_train_record *rec) {
  train_ctx *x = (train_ctx *)user;
  long t = rec->step;
  int smooth = x->smooth_every > 0 && t % x->smooth_every == 0;
  int diag = x->diag_every > 0 && t % x->diag_every == 0;
  if (t % x->log_every == 0 || rec->has_eval || smooth || diag || t == x->steps) {
    jw w;
    jw_begin(&w, x->out);
    jw_str(&w, "type", "step");
    jw_int(&w, "step", t);
    jw_num(&w, "loss", rec->loss);
    jw_num(&w, "grad_norm", rec->grad_norm);
    jw_num(&w, "clipped_norm", rec->clipped_norm);
    jw_num(&w, "lr_scale", rec->lr_scale);
    jw_num(&w, "update_norm", rec->update_norm);
    if (rec->has_eval) jw_num(&w, "eval_loss", rec->eval_loss);
    if (smooth) {
      double s, g;
      int st = la_dir_smoothness(&x->run->model, x->prev, rec->theta, &x->diag,
                                 &s, &g, x->work, x->bytes);
      if (st == 0) {
        jw_num(&w, "smoothness", s);
        jw_num(&w, "smooth_grad_norm", g);
      } else if (st != LA_ERANGE) { /* ERANGE: no step was taken */
        x->status = st;
      }
    }
    if (diag && !x->status) x->status = write_rcond(x, &w, rec->theta);
    jw_end(&w);
  }
  memcpy(x->prev, rec->theta, sizeof(la_real) * (size_t)rec->nparams);
  u_progress_step(x->prog, t);
  return x->status != 0;
}

/* ---- --save-theta: the trajectory, a row (the step, then theta) at step
   0, every k-th step and the last, in a .npy written as the run goes (in
   place, so that a killed run leaves the rows it counts: its path is
   checked with the other outputs, a regular file, before anything runs) */
typedef struct theta_tap {
  npy_rows npy;
  long every;
  double *row;
  const char *path;
} theta_tap;

static int theta_tap_add(theta_tap *t, long step, const la_real *theta,
                         int n) {
  int i;
  t->row[0] = (double)step;
  for (i = 0; i < n; ++i) t->row[i + 1] = (double)theta[i];
  return npy_rows_add(&t->npy, t->row);
}

/* The trainer's callback with --save-theta: the row, then train_cb. */
static int theta_cb(void *user, const la_train_record *rec) {
  train_ctx *x = (train_ctx *)user;
  theta_tap *t = x->tap;
  if (!x->status && (rec->step % t->every == 0 || rec->step == x->steps) &&
      theta_tap_add(t, rec->step, rec->theta, rec->nparams) != 0) {
    int e = errno;
    u_fail(u_exit_of_errno(e, EXIT_IO), "cannot write %s: %s", U_Q(t->path), strerror(e));
    x->status = e == ENOMEM ? LA_ENOMEM : LA_EIO;
  }
  return train_cb(user, rec);
}

/* Opens --save-theta's file (x->tap), its first row at step 0. */
static int theta_tap_open(train_ctx *x, const cli_config *c, const la_run *r,
                          long start) {
  theta_tap *t;
  int st;
  if (!c->save_theta) return 0;
  if ((st = u_mkparent(c->save_theta)) != 0) return st;
  if (!(t = (theta_tap *)calloc(1, sizeof *t)) ||
      !(t->row = (double *)malloc(sizeof(double) * ((size_t)r->model.nparams + 1)))) {
    free(t);
    return u_oom();
  }
  t->path = c->save_theta;
  t->every = c->save_theta_every > 0 ? c->save_theta_every : x->log_every;
  x->tap = t;
  if (npy_rows_open(&t->npy, t->path, (long)r->model.nparams + 1) != 0 ||
      (start == 0 && theta_tap_add(t, 0, r->trainer.theta, r->model.nparams) != 0)) {
    int e = errno;
    return u_fail(u_exit_of_errno(e, EXIT_BAD_INPUT), "cannot write %s: %s",
                  U_Q(t->path), strerror(e));
  }
  return 0;
}

/* Closes --save-theta's file: 0, or the exit status of a failed write. */
static int theta_tap_close(train_ctx *x) {
  int bad, code = 0;
  if (!x->tap) return 0;
  bad = npy_rows_close(&x->tap->npy);
  if (bad) {
    int e = errno;
    code = u_fail(u_exit_of_errno(e, EXIT_IO), "cannot write %s: %s", U_Q(x->tap->path),
                  strerror(e));
  }
  free(x->tap->row);
  free(x->tap);
  x->tap = NULL;
  return code;
}

/* The summary line of a run that ended with st after `target` steps were
   asked for; ckpt: the status of saving its checkpoint (-1: none asked). */
static void train_summary(FILE *f, la_run *r, int st, long start, long target,
                          double t0, int ckpt) {
  jw w;
  double ev = NAN;
  la_trainer *tr = &r->trainer;
  jw_begin(&w, f);
  jw_str(&w, "type", "summary");
  jw_str(&w, "status", st == LA_EDIVERGED ? "diverged"
                       : st == 0 && tr->step >= target ? "ok" : "error");
  jw_int(&w, "steps", tr->step);
  jw_int(&w, "diverged_step", tr->diverged_step);
  if (tr->has_eval && st == 0 && la_trainer_eval(tr, &ev) == 0)
    jw_num(&w, "final_eval_loss", ev);
  jw_num(&w, "seconds", u_now() - t0);
  jw_num(&w, "steps_per_second", (double)(tr->step - start) / (u_now() - t0));
  if (ckpt >= 0) jw_str(&w, "checkpoint", ckpt ? "not saved" : "saved");
  jw_end(&w);
}

/* The buffers the train callback measures with. */
static int train_buffers(train_ctx *x, la_run *r, long prompts) {
  size_t b1 = la_rcond_work_bytes(&r->model, NULL);
  size_t b2 = la_dir_smoothness_work_bytes(&r->model);
  int st;
  x->bytes = b1 > b2 ? b1 : b2;
  x->work = malloc(x->bytes ? x->bytes : 1);
  x->prev = (la_real *)malloc(sizeof(la_real) * ((size_t)r->model.nparams + 1));
  if (!x->work || !x->prev) return u_oom();
  if ((st = diag_batch(r, prompts, &x->diag)) != 0)
    return st == LA_ENOMEM ? u_oom()
           : u_fail(EXIT_FAILED, "the diagnostics' batch: %s", la_status_str(st));
  memcpy(x->prev, r->trainer.theta, sizeof(la_real) * (size_t)r->trainer.n);
  return 0;
}

/* One run as the config says, JSON lines to its --out. The progress goes
   to p (a terminal line, a pool's pipe, or nowhere). Nothing is written
   before the run is built (and its checkpoint read); then the output is
   complete whatever happens to the run or its checkpoint, and the exit
   status is the worst of the three (the run's, the checkpoint's, the
   output's). */
static int run_train(const cli_config *c, u_progress *p) {
  la_run_config rc;
  la_run r;
  la_run_env env;
  la_pool *pool = NULL;
  train_ctx x;
  u_out out;
  ckpt_in in;
  double t0 = u_now();
  int st, code = 0, ck = c->checkpoint ? 0 : -1;
  long start, saved = -1;
  memset(&x, 0, sizeof x);
  memset(&r, 0, sizeof r);
  memset(&rc, 0, sizeof rc);
  if ((code = resolve_run(c, c->resume, &rc, &in)) != 0) goto done;
  x.c = c;
  x.run = &r;
  x.prog = p;
  x.steps = rc.steps;
  x.log_every = rc.measure.log_every;
  x.diag_every = rc.measure.diag_every;
  x.smooth_every = rc.measure.smooth_every;
  memset(&env, 0, sizeof env);
  env.callback = c->save_theta ? theta_cb : train_cb;
  env.user = &x;
  if ((code = run_make(&r, &rc, &env, c->threads, &pool)) != 0) goto done;
  if (c->resume && (code = load_into(&r, &in)) != 0) goto done;
  ckpt_free(&in);
  if (p) p->total = rc.steps;
  start = r.trainer.step;
  if ((code = train_buffers(&x, &r, rc.measure.diag_batch)) != 0) goto done;
  if ((code = u_mkparent(c->out)) != 0 ||
      (c->checkpoint && (code = u_mkparent(c->checkpoint)) != 0) ||
      (code = u_open(&out, c->out)) != 0)
    goto done;
  x.out = out.f;
  if ((code = theta_tap_open(&x, c, &r, start)) != 0) {
    u_abort(&out);
    goto done;
  }
  {
    jw w;
    jw_begin(&w, out.f);
    write_config(&w, &r);
    if (c->resume) jw_int(&w, "resumed_at", start);
    jw_end(&w);
  }
  if (start == 0) { /* the state at initialization */
    jw w;
    double ev;
    jw_begin(&w, out.f);
    jw_str(&w, "type", "step");
    jw_int(&w, "step", 0);
    if (r.trainer.has_eval && la_trainer_eval(&r.trainer, &ev) == 0)
      jw_num(&w, "eval_loss", ev);
    if (x.diag_every > 0) x.status = write_rcond(&x, &w, r.trainer.theta);
    jw_end(&w);
  }
  st = 0;
  while (!st && !x.status && ck <= 0 && r.trainer.step < rc.steps) {
    long chunk = rc.steps - r.trainer.step;
    if (c->checkpoint_every > 0 && chunk > c->checkpoint_every)
      chunk = c->checkpoint_every;
    st = la_trainer_run(&r.trainer, chunk);
    if (!st && c->checkpoint && c->checkpoint_every > 0 &&
        (ck = save_checkpoint(&r.trainer, c->checkpoint)) == 0)
      saved = r.trainer.step;
  }
  u_progress_end(p);
  if (x.status) st = x.status;
  /* the last state, unless a periodic save has just failed */
  if (ck == 0 && (st == 0 || st == LA_EDIVERGED) && saved != r.trainer.step)
    ck = save_checkpoint(&r.trainer, c->checkpoint);
  train_summary(out.f, &r, st, start, rc.steps, t0, ck);
  code = u_commit(&out);
  if (!code && c->heatmap && (st == 0 || st == LA_EDIVERGED))
    code = pb_heatmaps(c->heatmap, &r);
  if (st == LA_EDIVERGED)
    code = u_exit_worse(code, u_fail(EXIT_FAILED, "the run diverged at step %ld (NaN "
                                     "or Inf); the output and checkpoint hold the last "
                                     "finite state", r.trainer.diverged_step));
  else if (st)
    code = u_exit_worse(code, u_fail(exit_of_status(st), "training failed: %s",
                                     la_status_str(st)));
  if (ck > 0) code = u_exit_worse(code, ck);
done:
  ckpt_free(&in);
  {
    int tc = theta_tap_close(&x);
    if (tc) code = u_exit_worse(code, tc);
  }
  if (x.diag.z) la_batch_destroy(&x.diag);
  free(x.work);
  free(x.prev);
  run_free(&r, pool);
  return code;
}

/* ================================================================== */
/*                   theta at initialization or a checkpoint          */
/* ================================================================== */

/* The run of a measurement (its data, its model) and its theta: initial
   (from the seed, as train starts) or the checkpoint's. */
static int load_theta(const cli_config *c, la_run *r, la_pool **pool,
                      long *step) {
  la_run_config rc;
  ckpt_in in;
  int st;
  memset(r, 0, sizeof *r);
  memset(&rc, 0, sizeof rc);
  *step = 0;
  if ((st = resolve_run(c, c->checkpoint, &rc, &in)) != 0) {
    ckpt_free(&in);
    return st;
  }
  if (in.v1) { /* the model's shape from the file itself */
    la_model_config mc;
    if ((st = la_checkpoint_info(in.buf, in.len, &mc, NULL)) != 0) { /* checked */
      ckpt_free(&in);
      return u_fail(exit_of_status(st), "%s: %s", U_Q(c->checkpoint), la_status_str(st));
    }
    rc.data.d = mc.d;
    rc.data.n = mc.n;
    rc.model.layers = mc.layers;
    rc.model.param = mc.param;
    rc.model.activation = mc.activation;
    rc.model.front_hidden = mc.front_hidden;
    rc.model.init_std = mc.init_std;
  }
  if ((st = run_make(r, &rc, NULL, c->threads, pool)) == 0 && c->checkpoint &&
      (st = load_into(r, &in)) != 0) {
    run_free(r, *pool);
    *pool = NULL;
  }
  ckpt_free(&in);
  if (!st) *step = r->trainer.step;
  return st;
}

/* ================================================================== */
/*                              noise                                 */
/* ================================================================== */

/* noise --samples-out: the raw samples, FILE.npy (float64) or a CSV column. */
static int write_samples(const char *path, const double *v, int n) {
  size_t len = strlen(path);
  u_out o;
  int st = u_open(&o, path), bad;
  if (st) return st;
  if (len > 4 && !strcmp(path + len - 4, ".npy")) bad = npy_write_vector(o.f, v, n);
  else bad = csv_write_column(o.f, "norm", v, n);
  if (bad) {
    int e = errno;
    u_abort(&o);
    return u_fail(u_exit_of_errno(e, EXIT_IO), "cannot write %s: %s", U_Q(path), strerror(e));
  }
  return u_commit(&o);
}

/* The gradient-noise histogram at theta: one JSON object. */
static int measure_noise(const cli_config *c, const la_run *r,
                         const la_real *theta, long step, FILE *f,
                         la_noise_stats *st_out, u_progress *p) {
  la_grad_noise_config g;
  la_noise_config nc;
  la_noise_stats st;
  la_rng rng;
  double *norms, *hist, *edges, tg;
  int s, bins = c->bins > 0 ? (int)c->bins : 100;
  jw w;
  memset(&g, 0, sizeof g);
  g.minibatch = c->minibatch > 0 ? (int)c->minibatch : 1000;
  g.true_batch = c->true_batch > 0 ? (int)c->true_batch : 100 * g.minibatch;
  g.samples = c->samples > 0 ? (int)c->samples : 10000;
  norms = (double *)malloc(sizeof(double) * (size_t)g.samples);
  hist = (double *)malloc(sizeof(double) * (size_t)bins);
  edges = (double *)malloc(sizeof(double) * (size_t)(bins + 1));
  if (!norms || !hist || !edges) {
    free(norms);
    free(hist);
    free(edges);
    return u_oom();
  }
  if (p) u_progress_step(p, 0);
  la_rng_seed(&rng, r->cfg.seed, LA_STREAM_EVAL - 3);
  s = la_grad_noise(&r->model, theta, &r->data, &rng, &g, norms, &tg, NULL, 0);
  memset(&nc, 0, sizeof nc);
  nc.bins = bins;
  if (!s) s = la_noise_summary(g.samples, norms, &nc, &st, hist, edges, NULL,
                               NULL, NULL, 0);
  if (s) {
    free(norms);
    free(hist);
    free(edges);
    return u_fail(exit_of_status(s), "gradient noise: %s", la_status_str(s));
  }
  if (c->samples_out && (s = write_samples(c->samples_out, norms, g.samples)) != 0) {
    free(norms);
    free(hist);
    free(edges);
    return s;
  }
  jw_begin(&w, f);
  jw_str(&w, "type", "noise");
  cli_write_run(&w, &r->cfg);
  jw_int(&w, "step", step);
  jw_int(&w, "minibatch", g.minibatch);
  jw_int(&w, "true_batch", g.true_batch);
  jw_int(&w, "samples", g.samples);
  jw_num(&w, "true_grad_norm", tg);
  jw_num(&w, "mean", st.mean);
  jw_num(&w, "var", st.var);
  jw_num(&w, "kurtosis", st.kurtosis);
  jw_num(&w, "hill_alpha", st.hill_alpha);
  jw_num(&w, "hill_stderr", st.hill_stderr);
  jw_num(&w, "min", st.min);
  jw_num(&w, "max", st.max);
  jw_arr(&w, "hist", hist, bins);
  jw_arr(&w, "edges", edges, bins + 1);
  jw_end(&w);
  if (st_out) *st_out = st;
  if (p) u_progress_step(p, p->total);
  free(norms);
  free(hist);
  free(edges);
  return 0;
}

/* The histogram (density) with N(mean, var) over it. */
static void svg_noise(FILE *f, const double *hist, const double *edges,
                      int bins, double mean, double var, const char *title) {
  svg_plot p;
  svg_axis ax = {0, 1, 0, "\xe2\x80\x96g_B \xe2\x88\x92 g\xe2\x80\x96\xe2\x82\x82 (minibatch gradient minus full gradient)"};
  svg_axis ay = {0, 1, 0, "density"};
  double xs[400], ys[400], top = 0, sd = sqrt(var > 0 ? var : 0);
  int i;
  for (i = 0; i < bins; ++i)
    if (hist[i] > top) top = hist[i];
  ax.lo = edges[0];
  ax.hi = edges[bins];
  if (mean - 3 * sd < ax.lo && mean - 3 * sd > 0) ax.lo = mean - 3 * sd;
  if (!(ax.hi > ax.lo)) ax.hi = ax.lo + 1;
  for (i = 0; i < 400; ++i) {
    double x = ax.lo + (ax.hi - ax.lo) * i / 399.0, z = (x - mean) / sd;
    xs[i] = x;
    ys[i] = sd > 0 ? exp(-0.5 * z * z) / (sd * 2.5066282746310002) : 0;
    if (ys[i] > top) top = ys[i];
  }
  ay.hi = top * 1.08;
  svg_open(&p, f, 640, 400, title, ax, ay);
  svg_axes(&p);
  svg_bars(&p, edges, hist, bins, svg_palette[0]);
  svg_line(&p, xs, ys, 400, svg_palette[1], 2, 0);
  svg_legend(&p, "histogram of the samples", svg_palette[0], 2);
  svg_legend(&p, "Gaussian, same mean and variance", svg_palette[1], 0);
  svg_close(&p);
}

typedef struct fig_ctx {
  const jv *obj;
  const char *title;
} fig_ctx;

/* A member array of numbers into a new buffer; its length, or -1. */
static int jv_array(const jv *o, const char *key, double **out) {
  const jv *a = jv_get(o, key);
  int i;
  *out = NULL;
  if (!a || a->type != JV_ARR || a->n < 1) return -1;
  if (!(*out = (double *)malloc(sizeof(double) * (size_t)a->n))) return -1;
  for (i = 0; i < a->n; ++i)
    (*out)[i] = a->items[i].type == JV_NUM ? a->items[i].num : NAN;
  return a->n;
}

static void draw_noise(FILE *f, void *ctx) {
  fig_ctx *fc = (fig_ctx *)ctx;
  double *hist, *edges;
  int nb = jv_array(fc->obj, "hist", &hist);
  int ne = jv_array(fc->obj, "edges", &edges);
  if (nb >= 1 && ne == nb + 1)
    svg_noise(f, hist, edges, nb, jv_num(fc->obj, "mean"),
              jv_num(fc->obj, "var"), fc->title);
  free(hist);
  free(edges);
}

/* Writes the JSON object of a measurement to --out and re-reads it for the
   figure: the figure shows exactly what the file says. */
static int finish_measurement(const cli_config *c, const char *text,
                              draw_fn draw, const char *title) {
  jv obj;
  const char *why = NULL;
  u_out o;
  fig_ctx fc;
  int st;
  if ((st = u_mkparent(c->out)) != 0 || (st = u_mkparent(c->svg)) != 0 ||
      (st = u_open(&o, c->out)) != 0)
    return st;
  fputs(text, o.f);
  if ((st = u_commit(&o)) != 0) return st;
  if (!c->svg) return 0;
  /* the program's own JSON: only memory can fail it */
  if (jv_parse(text, &obj, &why)) return u_fail(EXIT_NOMEM, "reading back the JSON: %s", why);
  fc.obj = &obj;
  fc.title = title;
  st = write_svg(c->svg, draw, &fc);
  jv_free(&obj);
  return st;
}

/* "setting S, L = L" of a run, for titles. */
static const char *run_label(const la_run *r, char *buf, size_t cap) {
  char s[64];
  cli_field_text(&r->cfg, la_run_field_find("setting"), s, sizeof s);
  snprintf(buf, cap, "setting %s, L = %d", s, r->cfg.model.layers);
  return buf;
}

static int cmd_noise(cli_config *c) {
  la_run r;
  long step;
  FILE *m;
  char *text = NULL, title[160], lab[96];
  size_t len = 0;
  u_progress p;
  la_pool *pool = NULL;
  int st = load_theta(c, &r, &pool, &step);
  if (st) return st;
  u_progress_init(&p, "noise", 1);
  if (!(m = open_memstream(&text, &len))) {
    st = u_oom();
  } else {
    st = measure_noise(c, &r, r.trainer.theta, step, m, NULL, &p);
    /* closing a memory stream writes its last bytes into text */
    if (fclose(m) != 0 && !st) st = u_oom();
  }
  u_progress_end(&p);
  snprintf(title, sizeof title, "Gradient noise, %s, step %ld",
           run_label(&r, lab, sizeof lab), step);
  if (!st) st = finish_measurement(c, text, draw_noise, title);
  free(text);
  run_free(&r, pool);
  return st;
}

/* ================================================================== */
/*                             curvature                              */
/* ================================================================== */

typedef struct curv_out {
  int k, kb, nslq, ngrid, nspec;
  double *top, *res, *bottom, *nodes, *weights, *grid, *dens, *spec;
  la_rcond rc;
} curv_out;

static void curv_free(curv_out *q) {
  free(q->top);
  free(q->res);
  free(q->bottom);
  free(q->nodes);
  free(q->weights);
  free(q->grid);
  free(q->dens);
  free(q->spec);
}

/* Top and bottom eigenvalues, both robust condition numbers, the SLQ
   density and (with --dense) the whole spectrum of H(theta) on batch b. */
static int curv_measure(const cli_config *c, const la_model *m,
                        const la_real *theta, const la_batch *b,
                        curv_out *q) {
  int n = m->nparams, st, i;
  la_hvp_op op;
  la_eig_out eo;
  la_lanczos_config lc;
  la_slq_config sc;
  double lo = HUGE_VAL, hi = -HUGE_VAL, sigma;
  memset(q, 0, sizeof *q);
  q->k = c->top > 0 ? (int)c->top : 10;
  if (q->k > n) q->k = n;
  q->kb = n < 3 ? n : 3;
  memset(&sc, 0, sizeof sc);
  sc.probes = c->probes > 0 ? (int)c->probes : 10;
  sc.steps = c->slq_steps > 0 ? (int)c->slq_steps : 80;
  if (sc.steps > n) sc.steps = n;
  q->nslq = sc.probes * sc.steps;
  q->ngrid = c->grid > 0 ? (int)c->grid : 400;
  q->top = (double *)malloc(sizeof(double) * (size_t)q->k);
  q->res = (double *)malloc(sizeof(double) * (size_t)q->k);
  q->bottom = (double *)malloc(sizeof(double) * (size_t)q->kb);
  q->nodes = (double *)malloc(sizeof(double) * (size_t)q->nslq);
  q->weights = (double *)malloc(sizeof(double) * (size_t)q->nslq);
  q->grid = (double *)malloc(sizeof(double) * (size_t)q->ngrid);
  q->dens = (double *)malloc(sizeof(double) * (size_t)q->ngrid);
  if (!q->top || !q->res || !q->bottom || !q->nodes || !q->weights ||
      !q->grid || !q->dens)
    return LA_ENOMEM;
  memset(&lc, 0, sizeof lc);
  memset(&eo, 0, sizeof eo);
  eo.values = q->top;
  eo.residuals = q->res;
  st = la_hessian_eigs(m, theta, b, q->k, 1e-6, &lc, &eo, NULL, 0);
  if (st && st != LA_ENOCONVERGE) return st;
  lc.which = LA_EIG_SMALLEST;
  memset(&eo, 0, sizeof eo);
  eo.values = q->bottom;
  st = la_hessian_eigs(m, theta, b, q->kb, 1e-6, &lc, &eo, NULL, 0);
  if (st && st != LA_ENOCONVERGE) return st;
  if ((st = la_robust_cond(m, theta, b, NULL, &q->rc, NULL, 0)) != 0)
    return st;
  op.model = m;
  op.theta = theta;
  op.batch = b;
  op.work = NULL;
  op.bytes = 0;
  if ((st = la_slq(n, la_hvp_matvec, &op, &sc, q->nodes, q->weights, NULL,
                   0)) != 0)
    return st;
  for (i = 0; i < q->nslq; ++i)
    if (q->weights[i] > 0) {
      if (q->nodes[i] < lo) lo = q->nodes[i];
      if (q->nodes[i] > hi) hi = q->nodes[i];
    }
  sigma = (hi - lo) / 150 + 1e-12;
  for (i = 0; i < q->ngrid; ++i)
    q->grid[i] = lo - 5 * sigma + (hi - lo + 10 * sigma) * i / (q->ngrid - 1);
  if ((st = la_density_eval(q->nslq, q->nodes, q->weights, sigma, q->ngrid,
                            q->grid, q->dens)) != 0)
    return st;
  if (c->dense) {
    double *h = (double *)malloc(sizeof(double) * (size_t)n * (size_t)n);
    q->spec = (double *)malloc(sizeof(double) * (size_t)n);
    if (!h || !q->spec) {
      free(h);
      return LA_ENOMEM;
    }
    st = la_hessian_dense(m, theta, b, h, NULL, 0);
    if (!st) st = la_sym_eig(n, h, q->spec, NULL, NULL, 0);
    free(h);
    if (st) return st;
    q->nspec = n;
  }
  return 0;
}

static void draw_curvature(FILE *f, void *ctx) {
  fig_ctx *fc = (fig_ctx *)ctx;
  double *grid, *dens, *top, lo, hi;
  int ng = jv_array(fc->obj, "grid", &grid), nd = jv_array(fc->obj, "density", &dens);
  int nt = jv_array(fc->obj, "top", &top), i;
  svg_axis ax = {0, 1, 0, "eigenvalue of the Hessian"};
  svg_axis ay = {0, 1, 1, "spectral density (smoothed, log scale)"};
  svg_plot p;
  if (ng > 1 && nd == ng && svg_range(dens, nd, 1, &lo, &hi)) {
    ax.lo = grid[0];
    ax.hi = grid[ng - 1];
    ay.lo = hi * 1e-6 > lo ? hi * 1e-6 : lo;
    ay.hi = hi * 2;
    svg_open(&p, f, 640, 400, fc->title, ax, ay);
    svg_axes(&p);
    svg_line(&p, grid, dens, ng, svg_palette[0], 2, 0);
    for (i = 0; i < nt; ++i) {
      double xs[2], ys[2];
      xs[0] = xs[1] = top[i];
      ys[0] = ay.lo;
      ys[1] = ay.lo * pow(ay.hi / ay.lo, 0.25);
      svg_line(&p, xs, ys, 2, svg_palette[1], 1.5, 0);
    }
    svg_legend(&p, "SLQ density", svg_palette[0], 0);
    svg_legend(&p, "top eigenvalues (Lanczos)", svg_palette[1], 0);
    svg_close(&p);
  }
  free(grid);
  free(dens);
  free(top);
}

static int cmd_curvature(cli_config *c) {
  la_run r;
  la_batch b;
  curv_out q;
  long step;
  FILE *m;
  char *text = NULL, title[160], lab[96];
  size_t len = 0;
  la_pool *pool = NULL;
  int st = load_theta(c, &r, &pool, &step);
  memset(&b, 0, sizeof b);
  memset(&q, 0, sizeof q);
  if (st) return st;
  if ((st = diag_batch(&r, r.cfg.measure.diag_batch, &b)) != 0) {
    st = u_fail(exit_of_status(st), "the batch of the Hessian: %s", la_status_str(st));
    goto out;
  }
  if ((st = curv_measure(c, &r.model, r.trainer.theta, &b, &q)) != 0) {
    st = u_fail(exit_of_status(st), "curvature: %s", la_status_str(st));
    goto out;
  }
  if (!(m = open_memstream(&text, &len))) {
    st = u_oom();
    goto out;
  }
  {
    jw w;
    jw_begin(&w, m);
    jw_str(&w, "type", "curvature");
    cli_write_run(&w, &r.cfg);
    jw_int(&w, "nparams", r.model.nparams);
    jw_int(&w, "step", step);
    jw_arr(&w, "top", q.top, q.k);
    jw_arr(&w, "top_residuals", q.res, q.k);
    jw_arr(&w, "bottom", q.bottom, q.kb);
    jw_num(&w, "rcond_diag", q.rc.by_diag);
    jw_num(&w, "rcond_spectrum", q.rc.by_spectrum);
    jw_num(&w, "lambda_max", q.rc.lambda_max);
    jw_num(&w, "lambda_median", q.rc.lambda_median);
    jw_int(&w, "rcond_exact", q.rc.exact);
    jw_arr(&w, "slq_nodes", q.nodes, q.nslq);
    jw_arr(&w, "slq_weights", q.weights, q.nslq);
    jw_arr(&w, "grid", q.grid, q.ngrid);
    jw_arr(&w, "density", q.dens, q.ngrid);
    if (q.nspec) jw_arr(&w, "spectrum", q.spec, q.nspec);
    jw_end(&w);
  }
  if (fclose(m) != 0) { /* it writes the stream's last bytes into text */
    st = u_oom();
    goto out;
  }
  snprintf(title, sizeof title, "Hessian spectrum, %s, step %ld",
           run_label(&r, lab, sizeof lab), step);
  st = finish_measurement(c, text, draw_curvature, title);
out:
  if (b.z) la_batch_destroy(&b);
  curv_free(&q);
  free(text);
  run_free(&r, pool);
  return st;
}

/* ================================================================== */
/*                             reproduce                              */
/* ================================================================== */

#define REPRO_MAXJOBS 2048
typedef struct repro {
  cli_config base;
  const char *dir;
  int seeds, nruns;
  cli_config *jobs;
  char (*paths)[4200];
  char noise_path[4200];
  la_run_config rc[2]; /* seed 1's runs, SGD and Adam, as resolved */
} repro;

static int repro_noise(const repro *R, u_progress *p) {
  cli_config c = R->base;
  la_run r;
  la_pool *pool = NULL;
  long step;
  u_out out;
  int st;
  c.checkpoint = NULL;
  cli_give(&c, "seed", 1);
  if ((st = load_theta(&c, &r, &pool, &step)) != 0) return st;
  if ((st = u_open(&out, R->noise_path)) == 0) {
    st = measure_noise(&c, &r, r.trainer.theta, 0, out.f, NULL, p);
    if (st) u_abort(&out);
    else st = u_commit(&out);
  }
  run_free(&r, pool);
  return st;
}

static int repro_job(void *ctx, int i, u_progress *p) {
  repro *R = (repro *)ctx;
  if (i < R->nruns) return run_train(&R->jobs[i], p);
  return repro_noise(R, p);
}

/* Value of field f at step t in each of k runs. */
static void values_at(runlog *const *rs, int k, int f, double t, double *out) {
  int i;
  for (i = 0; i < k; ++i) out[i] = series_at(&rs[i]->f[f], t);
}

static void fmt_msd(char *buf, size_t cap, const double *v, int n) {
  double m, sd;
  mean_sd(v, n, &m, &sd);
  if (isfinite(m) && isfinite(sd)) snprintf(buf, cap, "%.3g \xc2\xb1 %.2g", m, sd);
  else if (isfinite(m)) snprintf(buf, cap, "%.3g", m); /* an sd beyond the doubles */
  else snprintf(buf, cap, "n/a");
}

/* The scatter of log ||grad|| against log smoothness over the first 2000
   steps of the Adam runs, coloured by iteration. */
typedef struct scatter_fig {
  const char *title;
  double *s, *g, *t;
  int n;
  double tmax;
} scatter_fig;

static void draw_scatter(FILE *f, void *ctx) {
  scatter_fig *sf = (scatter_fig *)ctx;
  svg_axis ax = {0, 1, 1, "directional smoothness (log scale)"};
  svg_axis ay = {0, 1, 1, "gradient norm (log scale)"};
  svg_plot p;
  if (!svg_range(sf->s, sf->n, 1, &ax.lo, &ax.hi)) ax.lo = 0.1, ax.hi = 1;
  if (!svg_range(sf->g, sf->n, 1, &ay.lo, &ay.hi)) ay.lo = 0.1, ay.hi = 1;
  svg_open(&p, f, 680, 440, sf->title, ax, ay);
  p.mr = 110;
  svg_axes(&p);
  svg_points(&p, sf->s, sf->g, sf->t, sf->n, 0, sf->tmax, NULL, 2.6);
  svg_colorbar(&p, 0, sf->tmax, "iteration");
  svg_close(&p);
}

static int plot_field(const char *dir, const char *file, const char *title,
                      const char *ylabel, int logy, int field,
                      runlog **sgd, runlog **adam, int k, const char *lab_sgd,
                      const char *lab_adam) {
  char path[4300];
  curve cs[2];
  curves_fig cf;
  int st;
  memset(cs, 0, sizeof cs);
  if (band_make(sgd, k, field, &cs[0].b) || band_make(adam, k, field, &cs[1].b))
    st = u_oom();
  else {
    cs[0].label = lab_sgd;
    cs[1].label = lab_adam;
    cf.title = title;
    cf.xlabel = "iteration";
    cf.ylabel = ylabel;
    cf.note = "band: min to max over seeds";
    cf.logy = logy;
    cf.c = cs;
    cf.n = 2;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    st = write_svg(path, draw_curves, &cf);
  }
  band_free(&cs[0].b);
  band_free(&cs[1].b);
  return st;
}

/* The figures and report.md from the runs' files. */
static int repro_report(repro *R, double wall) {
  int k = R->seeds, i, st = 0, holds_loss, holds_r;
  runlog *logs = (runlog *)calloc((size_t)R->nruns, sizeof(runlog));
  runlog *sgd[1024], *adam[1024];
  char err[600], path[4300], lab_s[128], lab_a[128], title[200];
  const la_run_config *r = &R->rc[0];
  char sname[32], pname[32];
  jv noise;
  const char *why = NULL;
  char *ntext;
  u_out md;
  double rs[2][1024], ra[2][1024], ratio[2][1024], ls[2][1024], la[2][1024],
      lratio[2][1024], fin[2][1024];
  static const double at[2] = {750, 1250};
  la_lsmooth_fit fit;
  scatter_fig sf;
  if (!logs) return u_oom();
  cli_field_text(r, la_run_field_find("setting"), sname, sizeof sname);
  cli_field_text(r, la_run_field_find("param"), pname, sizeof pname);
  memset(&noise, 0, sizeof noise);
  memset(&sf, 0, sizeof sf);
  memset(&fit, 0, sizeof fit);
  for (i = 0; i < R->nruns; ++i)
    if (runlog_load(R->paths[i], &logs[i], err, sizeof err)) {
      st = u_fail(1, "%s", err);
      goto out;
    }
  for (i = 0; i < k; ++i) {
    sgd[i] = &logs[2 * i];
    adam[i] = &logs[2 * i + 1];
  }
  snprintf(lab_s, sizeof lab_s, "SGD, momentum 0.9, lr %g (mean of %d)",
           R->rc[0].opt.lr, k);
  snprintf(lab_a, sizeof lab_a, "Adam, betas 0.9, 0.9, lr %g (mean of %d)",
           R->rc[1].opt.lr, k);
  snprintf(title, sizeof title, "Evaluation loss, setting %s, L = %d",
           sname, r->model.layers);
  if ((st = plot_field(R->dir, "loss.svg", title, "evaluation loss (log scale)",
                       1, F_EVAL, sgd, adam, k, lab_s, lab_a)))
    goto out;
  snprintf(title, sizeof title, "Robust condition number max|H_ii| / median|H_ii|");
  if ((st = plot_field(R->dir, "rcond.svg", title, "R (log scale)", 1, F_RCOND,
                       sgd, adam, k, lab_s, lab_a)))
    goto out;
  snprintf(title, sizeof title, "Directional smoothness along the step taken");
  if ((st = plot_field(R->dir, "smoothness.svg", title, "u\xe1\xb5\x80 H u (log scale)",
                       1, F_SMOOTH, sgd, adam, k, lab_s, lab_a)))
    goto out;
  /* the noise histogram */
  ntext = u_slurp(R->noise_path, NULL);
  if (!ntext || jv_parse(ntext, &noise, &why)) {
    free(ntext);
    st = u_fail(EXIT_FAILED, "cannot read %s", U_Q(R->noise_path));
    goto out;
  }
  free(ntext);
  {
    fig_ctx fc;
    char t2[200];
    snprintf(t2, sizeof t2, "Gradient noise at initialization, setting %s",
             sname);
    fc.obj = &noise;
    fc.title = t2;
    snprintf(path, sizeof path, "%s/noise.svg", R->dir);
    if ((st = write_svg(path, draw_noise, &fc))) goto out;
  }
  /* the scatter over the first 2000 Adam steps */
  for (i = 0; i < k; ++i) sf.n += adam[i]->f[F_SMOOTH].n;
  sf.s = (double *)malloc(sizeof(double) * (size_t)(sf.n + 1));
  sf.g = (double *)malloc(sizeof(double) * (size_t)(sf.n + 1));
  sf.t = (double *)malloc(sizeof(double) * (size_t)(sf.n + 1));
  if (!sf.s || !sf.g || !sf.t) {
    st = u_oom();
    goto out;
  }
  sf.n = 0;
  for (i = 0; i < k; ++i) {
    const series *s = &adam[i]->f[F_SMOOTH];
    int j;
    for (j = 0; j < s->n && s->x[j] <= 2000; ++j) {
      double g = series_at(&adam[i]->f[F_SGNORM], s->x[j]);
      if (!(s->y[j] > 0) || !(g > 0)) continue;
      sf.s[sf.n] = s->y[j];
      sf.g[sf.n] = g;
      sf.t[sf.n] = s->x[j];
      if (s->x[j] > sf.tmax) sf.tmax = s->x[j];
      sf.n++;
    }
  }
  sf.title = "Adam: gradient norm against directional smoothness";
  snprintf(path, sizeof path, "%s/gnorm_smoothness.svg", R->dir);
  if ((st = write_svg(path, draw_scatter, &sf))) goto out;
  if (sf.n >= 2) la_lsmooth(sf.n, sf.g, sf.s, &fit, NULL, 0);
  /* the tables */
  for (i = 0; i < k; ++i) {
    fin[0][i] = sgd[i]->final_eval;
    fin[1][i] = adam[i]->final_eval;
  }
  for (i = 0; i < 2; ++i) {
    int j;
    values_at(sgd, k, F_RCOND, at[i], rs[i]);
    values_at(adam, k, F_RCOND, at[i], ra[i]);
    values_at(sgd, k, F_RSPEC, at[i], ls[i]);
    values_at(adam, k, F_RSPEC, at[i], la[i]);
    for (j = 0; j < k; ++j) {
      ratio[i][j] = rs[i][j] / ra[i][j];
      lratio[i][j] = ls[i][j] / la[i][j];
    }
  }
  snprintf(path, sizeof path, "%s/report.md", R->dir);
  if ((st = u_open(&md, path))) goto out;
  {
    FILE *f = md.f;
    char a[64], b[64], c2[64];
    double m0, s0, m1, s1, q0, q1, dummy;
    fprintf(f, "# Paper A, setting %s: SGD against Adam%s\n\n",
            sname, R->base.full ? "" : " (quick form)");
    fprintf(f,
            "Linear transformer, L = %d, d = %d, n = %d, %s parametrization%s "
            "(%d parameters), %d fresh prompts per step, %ld steps, %d seed%s "
            "per optimizer, global gradient clipping at %g. SGD with momentum "
            "0.9 at learning rate %g; Adam with beta1 = beta2 = 0.9 at %g. "
            "Evaluation loss on a fixed batch of %d prompts every %d steps; "
            "robust condition numbers on a fixed batch of %d every %d steps; "
            "directional smoothness every %d steps. Backend %s, %s. Wall "
            "time %.1f s.\n\n",
            r->model.layers, r->data.d, r->data.n, pname,
            r->model.front_hidden > 0 ? " behind a trainable ReLU front MLP" : "",
            (int)runs_long(&logs[0].config, "nparams"), r->batch, r->steps, k,
            k == 1 ? "" : "s", r->clip_norm, R->rc[0].opt.lr, R->rc[1].opt.lr,
            r->eval_batch, r->eval_every, r->measure.diag_batch,
            r->measure.diag_every, r->measure.smooth_every,
            la_backend_name(), precision_name, wall);
    fprintf(f, "## Loss\n\n![evaluation loss](loss.svg)\n\n");
    fmt_msd(a, sizeof a, fin[0], k);
    fmt_msd(b, sizeof b, fin[1], k);
    fprintf(f, "| final evaluation loss | mean \xc2\xb1 sd over seeds |\n|---|---|\n"
               "| SGD | %s |\n| Adam | %s |\n\n", a, b);
    mean_sd(fin[0], k, &m0, &dummy);
    mean_sd(fin[1], k, &m1, &dummy);
    holds_loss = m1 < m0;
    fprintf(f, "## Gradient noise at initialization\n\n![noise](noise.svg)\n\n");
    fprintf(f,
            "%d minibatches of %d prompts against the gradient of %d prompts "
            "(seed 1's initial theta). ||g_B - g||: mean %.4g, sd %.4g, "
            "kurtosis %.3g (a Gaussian has 3), Hill tail index %.3g \xc2\xb1 "
            "%.2g, largest sample %.3g standard deviations above the mean.\n\n",
            (int)jv_num(&noise, "samples"), (int)jv_num(&noise, "minibatch"),
            (int)jv_num(&noise, "true_batch"), jv_num(&noise, "mean"),
            sqrt(jv_num(&noise, "var")), jv_num(&noise, "kurtosis"),
            jv_num(&noise, "hill_alpha"), jv_num(&noise, "hill_stderr"),
            (jv_num(&noise, "max") - jv_num(&noise, "mean")) /
                sqrt(jv_num(&noise, "var")));
    fprintf(f, "## Robust condition number\n\n![robust condition number](rcond.svg)\n\n");
    fprintf(f,
            "R = max|diag H| / median|diag H| of the exact Hessian on the "
            "fixed batch (paper A's code), and lambda_max / lambda_median of "
            "its spectrum (paper A's text), mean \xc2\xb1 sd over seeds; the "
            "ratio is taken seed by seed.\n\n"
            "| iteration | R_SGD | R_Adam | R_SGD / R_Adam | "
            "(lambda_max/lambda_med) SGD / Adam |\n|---|---|---|---|---|\n");
    for (i = 0; i < 2; ++i) {
      char d2[64];
      fmt_msd(a, sizeof a, rs[i], k);
      fmt_msd(b, sizeof b, ra[i], k);
      fmt_msd(c2, sizeof c2, ratio[i], k);
      fmt_msd(d2, sizeof d2, lratio[i], k);
      fprintf(f, "| %.0f | %s | %s | **%s** | %s |\n", at[i], a, b, c2, d2);
    }
    mean_sd(ratio[0], k, &q0, &s0);
    mean_sd(ratio[1], k, &q1, &s1);
    holds_r = q0 > 1 && q1 > 1;
    fprintf(f, "\n## Directional smoothness\n\n![directional smoothness](smoothness.svg)\n\n");
    fprintf(f, "## Gradient norm and smoothness\n\n![gradient norm against smoothness](gnorm_smoothness.svg)\n\n");
    fprintf(f,
            "Adam, first 2000 steps, %d pairs (||grad f||, u^T H u) on the "
            "fixed batch: correlation of their logarithms %.3f; (L0, L1) by "
            "least squares %.3g, %.3g; tightest line above every pair %.3g, "
            "%.3g.\n\n",
            fit.used, fit.corr_log, fit.l0_ls, fit.l1_ls, fit.l0_env,
            fit.l1_env);
    fprintf(f, "## Against paper A\n\n| expectation | here |\n|---|---|\n");
    fprintf(f, "| Adam's loss ends below SGD's | %s (%.3g vs %.3g) |\n",
            holds_loss ? "holds" : "does not hold", m1, m0);
    fprintf(f, "| R_SGD > R_Adam at 750 and 1250 | %s (ratios %.3g, %.3g) |\n",
            holds_r ? "holds" : (isfinite(q0) ? "does not hold" : "not measured"),
            q0, q1);
    fprintf(f, "| heavy right tail of the noise (kurtosis > 3) | %s (%.3g) |\n",
            jv_num(&noise, "kurtosis") > 3 ? "holds" : "does not hold",
            jv_num(&noise, "kurtosis"));
    fprintf(f, "| smoothness and gradient norm move together | %s (log-log correlation %.2f) |\n",
            fit.corr_log > 0.5 ? "holds" : "does not hold", fit.corr_log);
    fprintf(f, "\nRuns: `runs/*.jsonl` (one JSON object per line); noise: `noise.json`.\n");
    if ((st = u_commit(&md))) goto out;
    /* the table on stdout as well */
    printf("R_SGD / R_Adam (mean \xc2\xb1 sd over %d seeds):", k);
    for (i = 0; i < 2; ++i) {
      fmt_msd(a, sizeof a, ratio[i], k);
      printf("  iteration %.0f: %s", at[i], a);
    }
    printf("\nfinal evaluation loss: SGD %.3g, Adam %.3g\nreport: %s/report.md\n",
           m0, m1, R->dir);
  }
out:
  for (i = 0; i < R->nruns; ++i) runlog_free(&logs[i]);
  free(logs);
  jv_free(&noise);
  free(sf.s);
  free(sf.g);
  free(sf.t);
  return st;
}

/* What repro_report writes into the folder from the runs: removed before
   new runs start, so that a reproduce that fails or is killed leaves no
   report of other runs beside its own. */
static const char *const repro_products[] = {"report.md", "loss.svg", "rcond.svg",
                                             "smoothness.svg", "noise.svg",
                                             "gnorm_smoothness.svg"};

static int repro_clear(const char *dir) {
  size_t i;
  char path[4200];
  for (i = 0; i < sizeof repro_products / sizeof repro_products[0]; ++i) {
    snprintf(path, sizeof path, "%.4000s/%s", dir, repro_products[i]);
    if (unlink(path) != 0 && errno != ENOENT) {
      int e = errno;
      return u_fail(u_exit_of_errno(e, EXIT_IO), "cannot remove the previous %s: %s",
                    U_Q(path), strerror(e));
    }
  }
  return 0;
}

static int cmd_reproduce(cli_config *c) {
  repro R;
  long *totals;
  int *status, i, nj, failed, st, procs;
  char runs[4200];
  double t0 = u_now();
  memset(&R, 0, sizeof R);
  R.base = *c;
  R.dir = c->out ? c->out : "linattn-reproduce";
  R.seeds = (int)(c->seeds > 0 ? c->seeds : c->full ? 6 : 4);
  if (R.seeds > 512) return u_fail(EXIT_BAD_INPUT, "--seeds: at most 512");
  if (!cli_given(c, "steps")) cli_give(&R.base, "steps", c->full ? 10000 : 2000);
  if (!cli_given(c, "diag_every")) cli_give(&R.base, "diag_every", 250);
  if (!cli_given(c, "smooth_every"))
    cli_give(&R.base, "smooth_every", c->full ? 10 : 5);
  if (c->minibatch < 0) R.base.minibatch = 1000;
  if (c->true_batch < 0) R.base.true_batch = c->full ? 100000 : 50000;
  if (c->samples < 0) R.base.samples = c->full ? 10000 : 4000;
  if (c->bins < 0) R.base.bins = c->full ? 100 : 50;
  cli_give(&R.base, "log_every", 50);
  R.base.checkpoint = R.base.resume = NULL;
  R.base.checkpoint_every = -1;
  procs = (int)(c->jobs > 0 ? c->jobs : u_online_cpus());
  if (c->threads < 0) R.base.threads = 1; /* the processes share the CPUs */
  if ((st = u_mkdirs(R.dir)) != 0 || (st = repro_clear(R.dir)) != 0) return st;
  snprintf(runs, sizeof runs, "%s/runs", R.dir);
  if ((st = u_mkdirs(runs)) != 0) return st;
  R.nruns = 2 * R.seeds;
  nj = R.nruns + 1;
  R.jobs = (cli_config *)calloc((size_t)R.nruns, sizeof(cli_config));
  R.paths = (char(*)[4200])calloc((size_t)R.nruns, sizeof *R.paths);
  totals = (long *)calloc((size_t)nj, sizeof(long));
  status = (int *)calloc((size_t)nj, sizeof(int));
  if (!R.jobs || !R.paths || !totals || !status) {
    st = u_oom();
    goto out;
  }
  for (i = 0; i < R.nruns; ++i) {
    cli_config *j = &R.jobs[i];
    int adam = i % 2, seed = i / 2 + 1; /* the pair (SGD, Adam) of a seed */
    la_run_config rc;
    char err[600];
    double lr = adam ? c->lr_adam : c->lr_sgd;
    *j = R.base;
    cli_give_name(j, "opt", adam ? "adam" : "sgd");
    cli_give(j, "seed", seed);
    if (lr == lr) cli_give(j, "lr", lr);
    if (cli_run_of(j, &rc, err, sizeof err) != CLI_OK) {
      st = u_fail(EXIT_BAD_INPUT, "%s", err);
      goto out;
    }
    if (i < 2) R.rc[adam] = rc;
    snprintf(R.paths[i], sizeof R.paths[i], "%.4000s/%s-seed%d.jsonl", runs,
             adam ? "adam" : "sgd", i / 2 + 1);
    j->out = R.paths[i];
    totals[i] = rc.steps;
  }
  snprintf(R.noise_path, sizeof R.noise_path, "%s/noise.json", R.dir);
  /* the noise measurement costs about as many gradients as it has samples */
  totals[R.nruns] = R.base.samples;
  failed = u_pool(repro_job, &R, nj, procs, totals, "reproduce", status);
  if (failed) {
    for (i = 0; i < nj; ++i)
      if (status[i])
        u_fail(1, "%s failed (exit status %d)",
               i < R.nruns ? R.paths[i] : R.noise_path, status[i]);
    st = u_pool_status(status, nj);
  } else {
    st = repro_report(&R, u_now() - t0);
  }
out:
  free(R.jobs);
  free(R.paths);
  free(totals);
  free(status);
  return st;
}

/* ================================================================== */
/*                                sweep                               */
/* ================================================================== */

/* A word as the shell reads it back, on one line: bare when it needs no
   quoting, else as u_quote writes it ('...', or $'...' with escapes for a
   control character such as a newline), never cut. 0, or -1 out of memory. */
static int print_quoted(FILE *f, const char *s) {
  const char *p;
  char *q;
  size_t cap = 4 * strlen(s) + 8;
  int plain = *s != 0;
  for (p = s; *p; ++p)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "0123456789_./=:,+-@%", *p))
      plain = 0;
  if (plain) {
    fputs(s, f);
    return 0;
  }
  if (!(q = (char *)malloc(cap))) return -1;
  fputs(u_quote(s, q, cap), f);
  free(q);
  return 0;
}

/* One axis of the grid: a run field and its values, as text. */
typedef struct axis {
  const la_run_field *f;
  char flag[48];
  char **v;
  long n, cap;
} axis;

typedef struct sweep {
  const cli_config *c;
  const char *dir;
  axis ax[CLI_MAX_FIELDS];
  int nax;
  long n;          /* grid points */
  char threads[24]; /* --threads of each run */
} sweep;

static int axis_add(void *ctx, const char *text) {
  axis *a = (axis *)ctx;
  size_t len = strlen(text) + 1;
  if (a->n == a->cap) {
    char **nv = (char **)realloc(a->v, sizeof(char *) * (size_t)(a->cap = a->cap ? 2 * a->cap : 8));
    if (!nv) return 1;
    a->v = nv;
  }
  if (!(a->v[a->n] = (char *)malloc(len))) return 1;
  memcpy(a->v[a->n++], text, len);
  return 0;
}

static void sweep_free(sweep *S) {
  int i;
  long j;
  for (i = 0; i < S->nax; ++i) {
    for (j = 0; j < S->ax[i].n; ++j) free(S->ax[i].v[j]);
    free(S->ax[i].v);
  }
}

/* The axes: every run field given (a list, or one value), in the table's
   order; the optimizers default to sgd and adam. */
static int sweep_axes(sweep *S) {
  const cli_config *c = S->c;
  int i, n = la_run_field_count();
  double total = 1;
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    axis *a = &S->ax[S->nax];
    const char *why;
    char bad[64];
    size_t k;
    const char *list = c->given[i] ? c->list[i]
                       : f->kind == LA_FIELD_OPTIMIZER ? "sgd,adam" : NULL;
    if (!list) continue;
    a->f = f;
    for (k = 0; f->key[k] && k + 1 < sizeof a->flag; ++k)
      a->flag[k] = f->key[k] == '_' ? '-' : f->key[k];
    a->flag[k] = 0;
    S->nax++;
    if (cli_list_walk(f, list, axis_add, a, &why, bad, sizeof bad) < 0)
      return u_oom();
    total *= (double)a->n;
  }
  if (total > 1e6)
    return u_fail(EXIT_BAD_INPUT, "the grid has %.0f points (at most 1000000)", total);
  S->n = (long)total;
  return 0;
}

/* The values of grid point i, axis by axis (the last axis varies fastest). */
static void sweep_point(const sweep *S, long i, long *at) {
  int k;
  for (k = S->nax - 1; k >= 0; --k) {
    at[k] = i % S->ax[k].n;
    i /= S->ax[k].n;
  }
}

/* The point's file name: key=value of every axis, joined by commas; a name
   past 200 bytes keeps its start and ends in a hash of the whole. */
static void sweep_name(const sweep *S, long i, char *name, size_t cap) {
  long at[CLI_MAX_FIELDS];
  char full[8192];
  size_t used = 0;
  int k;
  sweep_point(S, i, at);
  full[0] = 0;
  for (k = 0; k < S->nax; ++k) {
    int w;
    /* a measurement or the length, the same for every point: no name */
    if (!(S->ax[k].f->flags & LA_FIELD_IDENTITY) && S->ax[k].n == 1) continue;
    w = snprintf(full + used, sizeof full - used, "%s%s=%s", used ? "," : "",
                 S->ax[k].f->key, S->ax[k].v[at[k]]);
    if (w < 0 || (size_t)w >= sizeof full - used) break;
    used += (size_t)w;
  }
  for (k = 0; full[k]; ++k)
    if (full[k] == '/') full[k] = '_';
  if (strlen(full) < 200 && cap > 200) {
    snprintf(name, cap, "%s", full);
  } else {
    uint64_t h = 0xcbf29ce484222325ull;
    for (k = 0; full[k]; ++k) h = (h ^ (unsigned char)full[k]) * 0x100000001b3ull;
    snprintf(name, cap, "%.180s~%016llx", full, (unsigned long long)h);
  }
}

/* The train command of point i, NULL-terminated (NULL: out of memory). */
static char **sweep_command(const sweep *S, long i) {
  const cli_config *c = S->c;
  long at[CLI_MAX_FIELDS];
  char name[256], out[4400], **v;
  int k, w = 0;
  size_t words = 8 + 2 * (size_t)S->nax;
  sweep_point(S, i, at);
  sweep_name(S, i, name, sizeof name);
  if (!(v = (char **)calloc(words, sizeof(char *)))) return NULL;
  v[w++] = (char *)c->argv0;
  v[w++] = (char *)"train";
  if (c->preset) {
    v[w++] = (char *)"--preset";
    v[w++] = (char *)c->preset;
  }
  if (c->threads > 0 || c->jobs >= 1) { /* with --jobs: one each, by default */
    v[w++] = (char *)"--threads";
    v[w++] = (char *)S->threads;
  }
  for (k = 0; k < S->nax; ++k) {
    size_t len = strlen(S->ax[k].flag) + 3;
    char *flag = (char *)malloc(len);
    if (!flag) return v; /* the caller frees the words it finds */
    (void)snprintf(flag, len, "--%s", S->ax[k].flag);
    v[w++] = flag;
    v[w++] = S->ax[k].v[at[k]];
  }
  snprintf(out, sizeof out, "%s/%s.jsonl", S->dir, name);
  v[w++] = (char *)"--out";
  v[w] = (char *)malloc(strlen(out) + 1);
  if (v[w]) memcpy(v[w], out, strlen(out) + 1);
  return v;
}

/* Frees what sweep_command allocated: the flags and the output path. */
static void sweep_command_free(const sweep *S, char **v) {
  int k, w = 2 + (S->c->preset ? 2 : 0) + (S->c->threads > 0 || S->c->jobs >= 1 ? 2 : 0);
  if (!v) return;
  for (k = 0; k < S->nax; ++k, w += 2) free(v[w]);
  free(v[w + 1]);
  free(v);
}

/* The run of point i, resolved: each point is checked before any runs. */
static int sweep_check(const sweep *S, long i, long *steps) {
  cli_config pc = *S->c;
  long at[CLI_MAX_FIELDS];
  la_run_config rc;
  char err[600], name[256];
  int k;
  memset(&rc, 0, sizeof rc);
  sweep_point(S, i, at);
  pc.cmd = CLI_TRAIN;
  memset(pc.given, 0, sizeof pc.given);
  for (k = 0; k < S->nax; ++k)
    if (cli_set_field(&pc, S->ax[k].f, S->ax[k].flag, S->ax[k].v[at[k]], err,
                      sizeof err) != CLI_OK ||
        cli_run_of(&pc, &rc, err, sizeof err) != CLI_OK) {
      sweep_name(S, i, name, sizeof name);
      return u_fail(EXIT_BAD_INPUT, "grid point %s: %s", name, err);
    }
  if (S->nax == 0 && cli_run_of(&pc, &rc, err, sizeof err) != CLI_OK)
    return u_fail(EXIT_BAD_INPUT, "%s", err);
  *steps = rc.steps;
  return 0;
}

static int sweep_job(void *ctx, int i, u_progress *p) {
  sweep *S = (sweep *)ctx;
  char **v = sweep_command(S, i);
  (void)p;
  if (!v) return u_oom();
  execvp(v[0], v);
  {
    int e = errno;
    u_fail(EXIT_FAILED, "cannot run %s: %s", U_Q(v[0]), strerror(e));
    sweep_command_free(S, v);
    return EXIT_FAILED;
  }
}

/* One train command per point of the grid (every given run field an axis),
   each writing DIR/NAME.jsonl; printed, or run --jobs at a time. */
static int cmd_sweep(cli_config *c) {
  static sweep S;
  long *totals = NULL, i;
  int *status = NULL, st = 0;
  memset(&S, 0, sizeof S);
  S.c = c;
  S.dir = c->out ? c->out : "sweep";
  snprintf(S.threads, sizeof S.threads, "%ld", c->threads > 0 ? c->threads : 1);
  if ((st = u_folder_ok("--out", S.dir)) != 0 || (st = sweep_axes(&S)) != 0) goto out;
  totals = (long *)calloc((size_t)S.n + 1, sizeof(long));
  if (!totals) {
    st = u_oom();
    goto out;
  }
  for (i = 0; i < S.n && !st; ++i) st = sweep_check(&S, i, &totals[i]);
  if (st) goto out;
  if (c->jobs < 1) { /* the commands, for xargs -P, parallel or a job array */
    for (i = 0; i < S.n; ++i) {
      char **v = sweep_command(&S, i);
      int j;
      for (j = 0; v && v[j]; ++j) {
        if (j) fputc(' ', stdout);
        if (print_quoted(stdout, v[j])) break;
      }
      if (!v || v[j]) {
        sweep_command_free(&S, v);
        st = u_oom();
        goto out;
      }
      fputc('\n', stdout);
      sweep_command_free(&S, v);
    }
    if (fflush(stdout) != 0)
      st = u_fail(u_exit_of_errno(errno, EXIT_IO), "writing to standard output failed: %s",
                  strerror(errno));
    goto out;
  }
  if (S.n > INT_MAX / 2) {
    st = u_fail(EXIT_BAD_INPUT, "too many runs to start here");
    goto out;
  }
  if ((st = u_mkdirs(S.dir)) != 0) goto out;
  if (!(status = (int *)calloc((size_t)S.n + 1, sizeof(int)))) {
    st = u_oom();
    goto out;
  }
  if (u_pool(sweep_job, &S, (int)S.n, (int)c->jobs, totals, "sweep", status)) {
    char name[256];
    for (i = 0; i < S.n; ++i) {
      if (!status[i]) continue;
      sweep_name(&S, i, name, sizeof name);
      if (status[i] > 128)
        u_fail(EXIT_FAILED, "run %s was killed by signal %d", U_Q(name), status[i] - 128);
      else
        u_fail(status[i], "run %s failed (exit status %d)", U_Q(name), status[i]);
    }
    st = u_pool_status(status, (int)S.n);
  } else {
    printf("%ld runs in %s; merge them with: %s report %s\n", S.n, U_Q(S.dir),
           U_Q(c->argv0), U_Q(S.dir));
  }
out:
  free(totals);
  free(status);
  sweep_free(&S);
  return st;
}

/* ================================================================== */
/*                               report                               */
/* ================================================================== */

/* A configuration: the runs that differ only in their seed. */
typedef struct group {
  char *key;
  jv config; /* its first run's */
  runlog **runs;
  int n, cap;
} group;

/* The runs read, by configuration. Only the configurations a figure shows
   (the first REPORT_DRAWN) keep their runs' curves; the others keep each
   run's summary numbers, so that memory grows with the number of runs and
   configurations, not with the steps of the runs no figure shows. */
#define REPORT_DRAWN SVG_NPALETTE
typedef struct report {
  group *g;
  int ng, cap;
  long nruns;
} report;

/* Room for one more item in an array of `*cap` items of `size` bytes
   holding n: 0, or -1 (the array and *cap unchanged) out of memory. */
static int grow(void **items, int *cap, int n, size_t size) {
  void *p;
  int c;
  if (n < *cap) return 0;
  if (*cap > INT_MAX / 4) return -1;
  c = *cap ? 2 * *cap : 8;
  if (!(p = realloc(*items, size * (size_t)c))) return -1;
  *items = p;
  *cap = c;
  return 0;
}

/* The configuration of a grouping key: its index, or -1. */
static int report_find(const report *R, const char *key) {
  int i;
  for (i = R->ng - 1; i >= 0; --i) /* the last one is the likeliest */
    if (!strcmp(R->g[i].key, key)) return i;
  return -1;
}

/* Takes one run read from the inputs into its configuration. */
static int report_take(void *ctx, runlog *r) {
  report *R = (report *)ctx;
  char key[4096];
  group *g;
  runlog *keep;
  int i;
  cli_group_key(&r->config, key, sizeof key);
  if ((i = report_find(R, key)) >= 0) {
    g = &R->g[i];
    jv_free(&r->config); /* the same as the group's, up to the seed */
  } else {
    if (grow((void **)&R->g, &R->cap, R->ng, sizeof(group))) goto oom;
    g = &R->g[R->ng];
    memset(g, 0, sizeof *g);
    if (!(g->key = (char *)malloc(strlen(key) + 1))) goto oom;
    memcpy(g->key, key, strlen(key) + 1);
    R->ng++;
    g->config = r->config; /* the group keeps the first config line */
    memset(&r->config, 0, sizeof r->config);
  }
  if (grow((void **)&g->runs, &g->cap, g->n, sizeof(runlog *)) ||
      !(keep = (runlog *)malloc(sizeof *keep)))
    goto oom;
  if (g - R->g >= REPORT_DRAWN) runlog_drop_curves(r);
  *keep = *r;
  g->runs[g->n++] = keep;
  R->nruns++;
  return 0;
oom:
  runlog_free(r);
  return u_oom();
}

static void report_free(report *R) {
  int i, j;
  for (i = 0; i < R->ng; ++i) {
    for (j = 0; j < R->g[i].n; ++j) {
      runlog_free(R->g[i].runs[j]);
      free(R->g[i].runs[j]);
    }
    free(R->g[i].runs);
    free(R->g[i].key);
    jv_free(&R->g[i].config);
  }
  free(R->g);
  memset(R, 0, sizeof *R);
}

/* Text from the inputs fit for a table cell and a figure's legend: at most
   max bytes of printable characters (valid UTF-8), each control character,
   invalid byte or '|' (a cell's border) shown as '?'. */
static void report_text(const char *s, char *out, size_t cap, size_t max) {
  size_t n = 0, k;
  const unsigned char *p = (const unsigned char *)s;
  if (max > cap - 1) max = cap - 1;
  for (; *p && n < max; p += k) {
    k = u_utf8_printable(p);
    if (!k || *p == '|') {
      out[n++] = '?';
      k = 1;
    } else if (n + k <= max) {
      memcpy(out + n, p, k);
      n += k;
    } else {
      break;
    }
  }
  out[n] = 0;
}

/* A config member as text ("?" when absent). */
static void key_value(const jv *cfg, const char *key, char *buf, size_t cap) {
  const jv *v = jv_get(cfg, key);
  if (v && v->type == JV_STR) report_text(v->str, buf, cap, 60);
  else if (v && v->type == JV_NUM) snprintf(buf, cap, "%.6g", v->num);
  else snprintf(buf, cap, "?");
}

/* Labels from the identity fields that vary between the configurations,
   and the common part (said once). */
static void group_labels(const report *R, char (*labels)[512], char *common,
                         size_t cap) {
  size_t cu = 0;
  int k, g, n = la_run_field_count();
  common[0] = 0;
  for (g = 0; g < R->ng; ++g) labels[g][0] = 0;
  for (k = 0; k < n; ++k) {
    const la_run_field *f = la_run_field_at(k);
    char v0[64], v[64];
    int varies = 0;
    if (!(f->flags & LA_FIELD_IDENTITY) || (f->flags & LA_FIELD_SEED)) continue;
    key_value(&R->g[0].config, f->key, v0, sizeof v0);
    for (g = 1; g < R->ng && !varies; ++g) {
      key_value(&R->g[g].config, f->key, v, sizeof v);
      varies = strcmp(v, v0) != 0;
    }
    if (!varies) { /* a zero is a setting not used: not worth a word */
      int w = strcmp(v0, "0") == 0 ? 0
              : snprintf(common + cu, cap - cu, "%s%s %s", cu ? ", " : "", f->key, v0);
      if (w > 0 && (size_t)w < cap - cu) cu += (size_t)w;
      continue;
    }
    for (g = 0; g < R->ng; ++g) {
      size_t u = strlen(labels[g]);
      key_value(&R->g[g].config, f->key, v, sizeof v);
      snprintf(labels[g] + u, 512 - u, "%s%s %s", u ? ", " : "", f->key, v);
    }
  }
  for (g = 0; g < R->ng; ++g)
    if (!labels[g][0]) snprintf(labels[g], 512, "all runs");
}

/* The table row of one configuration: 0, or -1 out of memory. */
static int report_row(FILE *f, const group *g, const char *label) {
  double *v = (double *)calloc((size_t)g->n * 4 + 4, sizeof(double));
  double *fin, *best, *rl, *sps;
  int i, div = 0;
  long steps = 0;
  char a[64], b[64], r2[64], s[64];
  double m, sd;
  if (!v) return -1;
  fin = v;
  best = v + g->n;
  rl = v + 2 * g->n;
  sps = v + 3 * g->n;
  for (i = 0; i < g->n; ++i) {
    const runlog *r = g->runs[i];
    fin[i] = r->final_eval;
    best[i] = r->best_eval;
    rl[i] = r->last_rcond;
    sps[i] = r->steps_per_second;
    if (!strcmp(r->status, "diverged")) div++;
    if (r->steps > steps) steps = r->steps;
  }
  fmt_msd(a, sizeof a, fin, g->n);
  fmt_msd(b, sizeof b, best, g->n);
  fmt_msd(r2, sizeof r2, rl, g->n);
  mean_sd(sps, g->n, &m, &sd);
  /* whole steps per second, or 3 digits where that would be long */
  if (isfinite(m)) snprintf(s, sizeof s, fabs(m) < 1e9 ? "%.0f" : "%.3g", m);
  else snprintf(s, sizeof s, "n/a");
  fprintf(f, "| %s | %d | %ld | %s | %s | %d | %s | %s |\n", label, g->n, steps,
          a, b, div, r2, s);
  free(v);
  return 0;
}

/* The report's figures: one curve per configuration (the first
   REPORT_DRAWN) of one per-step quantity. */
typedef struct report_fig {
  int field, logy;
  const char *file, *title, *ylabel;
} report_fig;
static const report_fig report_figs[] = {
    {F_EVAL, 1, "loss.svg", "Evaluation loss", "evaluation loss (log scale)"},
    {F_RCOND, 1, "rcond.svg", "Robust condition number", "max|H_ii| / median|H_ii|"},
    {F_SMOOTH, 1, "smoothness.svg", "Directional smoothness", "u\xe1\xb5\x80 H u (log scale)"}};
#define REPORT_NFIGS ((int)(sizeof report_figs / sizeof report_figs[0]))

/* The curves of figure fi into cf (cs: room for REPORT_DRAWN curves, freed
   by the caller with band_free): 1 when a curve has points, 0 when none
   has, -1 out of memory. */
static int report_curves(const report *R, char (*labels)[512], int fi, curve *cs,
                         curves_fig *cf) {
  const report_fig *fg = &report_figs[fi];
  int g, any = 0, shown = R->ng < REPORT_DRAWN ? R->ng : REPORT_DRAWN;
  memset(cs, 0, sizeof(curve) * REPORT_DRAWN);
  for (g = 0; g < shown; ++g) {
    if (band_make(R->g[g].runs, R->g[g].n, fg->field, &cs[g].b)) return -1;
    cs[g].label = labels[g];
    if (cs[g].b.n) any = 1;
  }
  cf->title = fg->title;
  cf->xlabel = "iteration";
  cf->ylabel = fg->ylabel;
  cf->note = "band: min to max over seeds";
  cf->logy = fg->logy;
  cf->c = cs;
  cf->n = shown;
  return any;
}

/* report.md into md (its figures, when dir is not NULL, into dir): the
   exit status. */
static int report_write(const report *R, FILE *md, const char *dir) {
  char (*labels)[512] = (char(*)[512])calloc((size_t)R->ng + 1, 512);
  char common[4096], path[U_PATH_MAX + 64];
  int g, fi, st = 0;
  if (!labels) return u_oom();
  group_labels(R, labels, common, sizeof common);
  fprintf(md, "# Report of %ld runs in %d configurations\n\n", R->nruns, R->ng);
  fprintf(md, "Common to every run: %s.\n\n", common);
  fprintf(md,
          "| configuration | runs | steps | final eval loss (mean \xc2\xb1 sd) "
          "| best eval loss | diverged | last R (diag) | steps/s |\n"
          "|---|---|---|---|---|---|---|---|\n");
  for (g = 0; g < R->ng && !st; ++g)
    if (report_row(md, &R->g[g], labels[g])) st = u_oom();
  fprintf(md, "\n");
  for (fi = 0; fi < REPORT_NFIGS && !st; ++fi) {
    curve cs[REPORT_DRAWN];
    curves_fig cf;
    int any = report_curves(R, labels, fi, cs, &cf);
    if (any < 0) {
      st = u_oom();
    } else if (any && dir) {
      snprintf(path, sizeof path, "%s/%s", dir, report_figs[fi].file);
      if ((st = write_svg(path, draw_curves, &cf)) == 0)
        fprintf(md, "![%s](%s)\n\n", report_figs[fi].title, report_figs[fi].file);
    }
    for (g = 0; g < REPORT_DRAWN; ++g) band_free(&cs[g].b);
  }
  if (!st && R->ng > REPORT_DRAWN)
    fprintf(md, "The figures show the first %d of %d configurations.\n",
            REPORT_DRAWN, R->ng);
  free(labels);
  return st;
}

/* The files report writes into its folder, for the check that none of
   them is an input. */
static int report_outputs(const char *dir, char (*paths)[U_PATH_MAX + 64], u_path *outs) {
  int i;
  snprintf(paths[0], sizeof paths[0], "%s/report.md", dir);
  for (i = 0; i < REPORT_NFIGS; ++i)
    snprintf(paths[i + 1], sizeof paths[i + 1], "%s/%s", dir, report_figs[i].file);
  for (i = 0; i <= REPORT_NFIGS; ++i) {
    outs[i].flag = "--out";
    outs[i].path = paths[i];
  }
  return REPORT_NFIGS + 1;
}

static int cmd_report(cli_config *c) {
  const char *dir = c->out ? c->out : "linattn-report";
  report R;
  char err[U_QCAP + 200], paths[REPORT_NFIGS + 1][U_PATH_MAX + 64];
  u_path outs[REPORT_NFIGS + 1], in;
  int i, nout, st;
  u_out md;
  memset(&R, 0, sizeof R);
  if ((st = u_folder_ok("--out", dir)) != 0) return st;
  nout = report_outputs(dir, paths, outs);
  for (i = 0; i < c->npos && !st; ++i) {
    in.flag = "report";
    in.path = c->pos[i];
    st = u_no_alias(outs, nout, &in, 1);
  }
  for (i = 0; i < c->npos && !st; ++i) {
    err[0] = 0; /* stays empty where the error was said already */
    if ((st = runs_read_path(c->pos[i], report_take, &R, err, sizeof err, 0)) != 0 &&
        err[0])
      u_fail(st, "%s", err);
  }
  if (!st && R.nruns == 0)
    st = u_fail(EXIT_BAD_INPUT, "no runs in the inputs (JSON lines of train)");
  if (!st && (st = u_mkdirs(dir)) == 0 && (st = u_open(&md, paths[0])) == 0) {
    if ((st = report_write(&R, md.f, dir)) != 0) u_abort(&md);
    else if ((st = u_commit(&md)) == 0)
      printf("%ld runs, %d configurations: %s\n", R.nruns, R.ng, U_Q(paths[0]));
  }
  report_free(&R);
  return st;
}

/* ================================================================== */
/*                               export                               */
/* ================================================================== */

static int cmd_export(const cli_config *c) {
  return export_runs(c->pos, c->npos, c->out ? c->out : "linattn-export");
}

/* ================================================================== */
/*                                main                                */
/* ================================================================== */

static const char *const help_text[] = {
    /* top level */
    "linattn - the linear-transformer testbed of Ahn et al. (arXiv:2310.01082,\n"
    "arXiv:2306.00297) from the command line.\n\n"
    "usage: linattn SUBCOMMAND [FLAGS]   (linattn SUBCOMMAND --help for its flags)\n\n"
    "  reproduce   paper A's experiments: report.md and SVG figures in a folder\n"
    "              (no flags: the quick form of Setting 1, under a minute)\n"
    "  train       one training run: JSON lines, diagnostics, checkpoints, resume\n"
    "  noise       the gradient-noise histogram at initialization or a checkpoint\n"
    "  curvature   Hessian spectrum, top eigenvalues, density, robust condition\n"
    "  theorem     paper B's closed forms checked against training\n"
    "  sweep       a grid of runs as one command per line, or run with --jobs\n"
    "  report      merge the JSON lines of many runs into tables and figures\n"
    "  export      JSON lines of runs and measurements to CSV (pandas, R)\n",
    /* train */
    "usage: linattn train [FLAGS]\n\n"
    "One run of any setting, depth, parametrization and optimizer. One JSON\n"
    "object per line: a config line, step lines (loss, gradient norm, eval loss,\n"
    "directional smoothness, robust condition numbers, lambda_max as measured),\n"
    "a summary line. --checkpoint saves the run (all of it: its description,\n"
    "theta, the optimizer's state); --resume FILE --steps T continues it bit\n"
    "for bit up to step T. Outputs appear only when complete (written under a\n"
    "temporary name beside them, then renamed); a folder in an output's path\n"
    "is created.\n",
    /* noise */
    "usage: linattn noise [FLAGS]\n\n"
    "Paper A's gradient noise: the norm of (minibatch gradient - full gradient)\n"
    "over many minibatches at initialization (--seed) or at --checkpoint, as one\n"
    "JSON object with the moments, the Hill tail index and the histogram.\n",
    /* curvature */
    "usage: linattn curvature [FLAGS]\n\n"
    "The Hessian of the loss on a fixed batch at initialization or at\n"
    "--checkpoint: top and bottom eigenvalues (Lanczos), both robust condition\n"
    "numbers, the SLQ spectral density, and with --dense the whole spectrum.\n",
    /* reproduce */
    "usage: linattn reproduce [FLAGS]\n\n"
    "Paper A's comparison of momentum SGD and Adam (betas 0.9, 0.9), global\n"
    "clipping, several seeds, run in parallel processes, into a folder with\n"
    "report.md, the runs' JSON lines and the figures loss.svg, noise.svg,\n"
    "rcond.svg, smoothness.svg and gnorm_smoothness.svg (a report and figures\n"
    "already there are removed first: a run that fails leaves none). Default:\n"
    "the quick form of Setting 1 (2000 steps, 4 seeds); --full is paper A's length.\n",
    /* theorem */
    "usage: linattn theorem [FLAGS]\n\n"
    "Paper B's results against training: Theorem 1 (one layer, anisotropic\n"
    "Sigma, the closed-form minimizer), Lemma 1 (the forward pass is\n"
    "preconditioned gradient descent), the three-layer experiment\n"
    "(Dist(Sigma^1/2 A_l Sigma^1/2, I) during training, the learned scalars,\n"
    "their growth with depth) and Theorem 5 (ReLU attention). Exits 1 if a\n"
    "check is clearly off.\n\n"
    "Paper B's comparative checks, each by --check NAME (quick forms; --full\n"
    "for paper B's lengths): depth and context (the trained model beside\n"
    "tuned GD, preconditioned GD, least squares and ridge on the same test\n"
    "prompts), theorem4 (B_l free), lemma4 (exchanging layers' a_l), optimum\n"
    "(the Theorem 3 family's best a_l beside a trained model's). All five\n"
    "into one report: linattn reproduce --paper b --out DIR.\n",
    /* sweep */
    "usage: linattn sweep [GRID FLAGS] [-- TRAIN FLAGS]\n\n"
    "Expands a grid into one `linattn train` command per line, for xargs -P,\n"
    "GNU parallel or a Slurm job array (e.g. sed -n \"${SLURM_ARRAY_TASK_ID}p\").\n"
    "With --jobs K the commands run here, K at a time. Flags after -- are\n"
    "passed to every run. Then: linattn report DIR/*.jsonl\n",
    /* report */
    "usage: linattn report FILES... [--out DIR]\n\n"
    "Merges the JSON lines of train runs: runs that differ only in their seed\n"
    "form a configuration; report.md gets a table per configuration and\n"
    "loss.svg, rcond.svg, smoothness.svg curves with bands over the seeds.\n"
    "A line that is not a JSON object, or nests arrays and objects deeper\n"
    "than " JV_QUOTE(JV_MAX_DEPTH) " levels, is bad input (exit status 2).\n",
    /* export */
    "usage: linattn export FILES... [--out DIR]\n\n"
    "The numbers behind every report, as CSV: each train run's step lines as\n"
    "RUN.csv (a column per key), each noise or curvature object's arrays as a\n"
    "CSV of columns, and configs.csv with a row per run or measurement (its\n"
    "settings, its summary, and `run`, the name of its CSV). FILES are\n"
    "JSON-lines files or folders of them. In pandas:\n"
    "  cfg = pd.read_csv(\"DIR/configs.csv\")\n"
    "  steps = pd.concat(pd.read_csv(f\"DIR/{r}\").assign(run=r) for r in cfg.run)\n"};

static int cmd_index(int cmd) {
  int k = 0;
  while (cmd > 1) cmd >>= 1, ++k;
  return k;
}

/* The output files of a train, noise, curvature or theorem command,
   checked before anything is read, written or created: each a path that
   can be a file (a checkpoint a regular one, since it is replaced by
   renaming), no two of them one file, none of them a file it reads (a
   checkpoint may be resumed and saved again in place). */
static int check_outputs(const cli_config *c) {
  u_path outs[3], ins[1];
  int st, train = c->cmd == CLI_TRAIN;
  outs[0].flag = "--out";
  outs[0].path = c->out;
  outs[1].flag = train ? "--checkpoint" : "--svg";
  outs[1].path = train ? c->checkpoint : c->svg;
  /* train's trajectory is written in place (a regular file: its header is
     rewritten), noise's samples like --out */
  outs[2].flag = train ? "--save-theta" : "--samples-out";
  outs[2].path = train ? c->save_theta : c->cmd == CLI_NOISE ? c->samples_out : NULL;
  ins[0].flag = train ? "--resume" : "--checkpoint";
  ins[0].path = train ? c->resume : c->checkpoint;
  if ((st = u_output_ok(outs[0].flag, outs[0].path, 0)) != 0 ||
      (st = u_output_ok(outs[1].flag, outs[1].path, train)) != 0 ||
      (outs[2].path && (st = u_output_ok(outs[2].flag, outs[2].path, train)) != 0))
    return st;
  if ((st = u_no_alias(outs, 3, NULL, 0)) != 0) return st;
  /* a checkpoint resumed may be saved again in place */
  if (train) {
    outs[1] = outs[2];
    return u_no_alias(outs, 2, ins, 1);
  }
  return u_no_alias(outs, 3, ins, 1);
}

int main(int argc, char **argv) {
  cli_config c;
  char err[600];
  const char **scratch = (const char **)calloc((size_t)argc + 1, sizeof(char *));
  int st;
  if (!scratch) return u_oom();
  st = cli_parse(argc, argv, &c, scratch, err, sizeof err);
  if (st == CLI_HELP) {
    cli_help(stdout, (unsigned)c.cmd, help_text[c.cmd ? cmd_index(c.cmd) + 1 : 0]);
    u_exit_table(stdout);
    free(scratch);
    return fflush(stdout) ? EXIT_IO : EXIT_DONE;
  }
  if (st == CLI_VERSION) {
    printf("linattn %s (%s backend, %s)\n", la_version_string(),
           la_backend_name(), precision_name);
    free(scratch);
    return fflush(stdout) ? EXIT_IO : EXIT_DONE;
  }
  if (st != CLI_OK) {
    if (c.cmd) fprintf(stderr, "linattn %s: %s\n", cli_cmd_name(c.cmd), err);
    else fprintf(stderr, "linattn: %s\n", err);
    free(scratch);
    return EXIT_BAD_INPUT;
  }
  if (c.cmd & (CLI_MODEL | CLI_THEOREM)) st = check_outputs(&c);
  if (!st) switch (c.cmd) {
    case CLI_TRAIN: {
      u_progress p;
      u_progress_init(&p, "train", 1);
      st = run_train(&c, &p);
      break;
    }
    case CLI_NOISE: st = cmd_noise(&c); break;
    case CLI_CURV: st = cmd_curvature(&c); break;
    case CLI_REPRO: st = c.paper ? cmd_reproduce_b(&c) : cmd_reproduce(&c); break;
    case CLI_THEOREM:
      st = c.check >= CLI_DEPTH ? cmd_theorem_b(&c) : cmd_theorem(&c);
      break;
    case CLI_SWEEP: st = cmd_sweep(&c); break;
    case CLI_EXPORT: st = cmd_export(&c); break;
    default: st = cmd_report(&c); break;
    }
  free(scratch);
  return st;
}
