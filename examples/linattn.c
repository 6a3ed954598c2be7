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
  {
    size_t need = 0;
    if (la_run_bytes(rc, &e, &need) == LA_OK && (st = u_fits_memory((double)need, "the run"))) {
      la_pool_destroy(*pool);
      *pool = NULL;
      return st;
    }
  }
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
  int status; /* an output that cannot be written: the run stops */
  struct theta_tap *tap; /* --save-theta */
} train_ctx;

/* Whether lambda_median stands above the Hessian's rounding, so that
   lambda_max / lambda_median is a measured ratio and not a quotient of
   noise. The rule: |lambda_median| > n u max(|lambda_max|, |lambda_median|),
   u the unit roundoff of la_real (the Hessian-vector products that build
   H are rounded there) and n the parameters (the eigensolver's growth). */
static int median_resolved(const la_rcond *rc, int n) {
  double u = sizeof(la_real) == 8 ? DBL_EPSILON / 2 : FLT_EPSILON / 2;
  double big = fmax(fabs(rc->lambda_max), fabs(rc->lambda_median));
  return isfinite(rc->lambda_median) && isfinite(big) &&
         fabs(rc->lambda_median) > n * u * big;
}

/* A diagnostic is a measurement: when it fails (no convergence, an
   overflow, a value that is not finite) its record says so under
   `key`_error and the run goes on. */
static void write_diag_error(jw *w, const char *key, int st) {
  char k[64];
  snprintf(k, sizeof k, "%s_error", key);
  jw_str(w, k, la_status_str(st));
}

/* Both robust condition numbers; lambda_max / lambda_median only where the
   median is resolved (spectrum_resolved says which). */
static void write_rcond(train_ctx *x, jw *w, const la_real *theta) {
  la_rcond rc;
  int st = la_robust_cond(&x->run->model, theta, &x->diag, NULL, &rc, x->work,
                          x->bytes);
  if (st == 0 && !(isfinite(rc.by_diag) && isfinite(rc.lambda_max) &&
                   isfinite(rc.lambda_median)))
    st = LA_ENONFINITE;
  if (st) {
    write_diag_error(w, "rcond", st);
    return;
  }
  jw_num(w, "rcond_diag", rc.by_diag > 0 ? rc.by_diag : NAN);
  if (median_resolved(&rc, x->run->model.nparams) && rc.by_spectrum != 0)
    jw_num(w, "rcond_spectrum", rc.by_spectrum);
  jw_int(w, "spectrum_resolved", median_resolved(&rc, x->run->model.nparams));
  jw_num(w, "lambda_max", rc.lambda_max);
  jw_num(w, "lambda_median", rc.lambda_median);
}

/* Directional smoothness along the step just taken (none when the step
   was zero: there is no direction). */
static void write_smoothness(train_ctx *x, jw *w, const la_train_record *rec) {
  double s, g;
  int st;
  if (!(rec->update_norm > 0)) return;
  st = la_dir_smoothness(&x->run->model, x->prev, rec->theta, &x->diag, &s,
                         &g, x->work, x->bytes);
  if (st == 0 && !(isfinite(s) && isfinite(g))) st = LA_ENONFINITE;
  if (st) {
    write_diag_error(w, "smoothness", st);
    return;
  }
  jw_num(w, "smoothness", s);
  jw_num(w, "smooth_grad_norm", g);
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
    if (smooth) write_smoothness(x, &w, rec);
    if (diag) write_rcond(x, &w, rec->theta);
    jw_end(&w);
  }
  memcpy(x->prev, rec->theta, sizeof(la_real) * (size_t)rec->nparams);
  u_progress_step(x->prog, t);
  return x->status != 0; /* a diagnostic's failure is in its record */
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
  if (c->heatmap && !pb_heat_fits(&r.model.cfg)) {
    code = u_fail(EXIT_BAD_INPUT, "%s", pb_heat_fits_msg);
    goto done;
  }
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
    if (x.diag_every > 0) write_rcond(&x, &w, r.trainer.theta);
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
    /* given, zeros included (a zero written into the struct would be the
       setting's value) */
    static const char *const keys[] = {"d", "n", "depth", "param", "attention",
                                       "front", "init_std"};
    const double v[] = {mc.d, mc.n, mc.layers, mc.param, mc.activation,
                        mc.front_hidden, mc.init_std};
    size_t k;
    for (k = 0; k < sizeof keys / sizeof keys[0]; ++k)
      (void)la_run_field_set(&rc, la_run_field_find(keys[k]), v[k]);
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

/* A histogram of the noise norms in one panel: the density with the
   Gaussian of the same mean and variance over it, on a linear or a log
   density axis (there the Gaussian is a parabola and a heavier tail
   stands above it). */
typedef struct noise_hist {
  const double *hist, *edges;
  int bins;
  double mean, var;
} noise_hist;

static double gauss_pdf(double x, double mean, double sd) {
  double z = (x - mean) / sd;
  return exp(-0.5 * z * z) / (sd * 2.5066282746310002);
}

static void noise_panel(svg_fig *g, double x, double y, double w, double h,
                        const char *title, const noise_hist *nh, int logy) {
  svg_plot p;
  svg_axis ax = {0, 1, 0, "\xe2\x80\x96g_B \xe2\x88\x92 g\xe2\x80\x96\xe2\x82\x82 (minibatch gradient minus full gradient)"};
  svg_axis ay = {0, 1, 0, NULL};
  double xs[400], ys[400], top = 0, low = HUGE_VAL;
  double sd = sqrt(nh->var > 0 ? nh->var : 0);
  int i;
  for (i = 0; i < nh->bins; ++i)
    if (isfinite(nh->hist[i]) && nh->hist[i] > 0) {
      top = fmax(top, nh->hist[i]);
      low = fmin(low, nh->hist[i]);
    }
  ax.lo = nh->edges[0];
  ax.hi = nh->edges[nh->bins];
  if (sd > 0 && nh->mean - 3 * sd < ax.lo && nh->mean - 3 * sd > 0)
    ax.lo = nh->mean - 3 * sd;
  for (i = 0; i < 400; ++i) {
    xs[i] = ax.lo + (ax.hi - ax.lo) * i / 399.0;
    ys[i] = sd > 0 ? gauss_pdf(xs[i], nh->mean, sd) : NAN;
    if (!logy && ys[i] > top) top = ys[i];
  }
  ay.log = logy;
  ay.label = logy ? "density (log scale)" : "density";
  if (!(top > 0)) top = 1;
  /* a log axis down to a third of the lowest bar (one sample's): the
     tail's last samples stay in view */
  ay.lo = logy ? (low < top ? low / 3 : top / 100) : 0;
  ay.hi = logy ? top * 3 : top * 1.08;
  svg_panel(&p, g, x, y, w, h, title, ax, ay);
  svg_axes(&p);
  svg_bars(&p, nh->edges, nh->hist, nh->bins, svg_palette[0]);
  svg_line(&p, xs, ys, 400, svg_palette[1], 2, 0);
  svg_legend(&p, "histogram of the samples (density)", svg_palette[0], SVG_BOX);
  svg_legend(&p, "Gaussian of the same mean and variance", svg_palette[1], SVG_LINE);
  svg_close(&p);
}

/* The histogram on a linear and on a log density axis, side by side. */
static void svg_noise(FILE *f, const noise_hist *nh, const char *title) {
  svg_fig g;
  svg_fig_open(&g, f, 1040, 420, title);
  noise_panel(&g, 0, 30, 520, 390, "density", nh, 0);
  noise_panel(&g, 520, 30, 520, 390, "log density: the tail", nh, 1);
  svg_fig_close(&g);
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

/* The histogram of a noise object (the caller frees *hist and *edges);
   0 when it has none. */
static int noise_of(const jv *obj, noise_hist *nh, double **hist,
                    double **edges) {
  int nb = jv_array(obj, "hist", hist), ne = jv_array(obj, "edges", edges);
  nh->hist = *hist;
  nh->edges = *edges;
  nh->bins = nb;
  nh->mean = jv_num(obj, "mean");
  nh->var = jv_num(obj, "var");
  return nb >= 1 && ne == nb + 1;
}

static void draw_noise(FILE *f, void *ctx) {
  fig_ctx *fc = (fig_ctx *)ctx;
  double *hist, *edges;
  noise_hist nh;
  if (noise_of(fc->obj, &nh, &hist, &edges)) svg_noise(f, &nh, fc->title);
  free(hist);
  free(edges);
}

/* The numbers of the noise figure: each bin and the Gaussian there. */
static void csv_noise(FILE *f, void *ctx) {
  fig_ctx *fc = (fig_ctx *)ctx;
  double *hist, *edges;
  noise_hist nh;
  char a[32], b[32];
  int i;
  fprintf(f, "bin_from,bin_to,density,gaussian_density_at_centre\n");
  if (noise_of(fc->obj, &nh, &hist, &edges)) {
    double sd = sqrt(nh.var > 0 ? nh.var : 0);
    for (i = 0; i < nh.bins; ++i) {
      double c = 0.5 * (edges[i] + edges[i + 1]);
      fprintf(f, "%.10g,%.10g,%s,%s\n", edges[i], edges[i + 1],
              csv_num(a, hist[i]),
              csv_num(b, sd > 0 ? gauss_pdf(c, nh.mean, sd) : NAN));
    }
  }
  free(hist);
  free(edges);
}

/* Writes the JSON object of a measurement to --out and re-reads it for the
   figure: the figure shows exactly what the file says. */
static int finish_measurement(const cli_config *c, const char *text,
                              draw_fn draw, draw_fn csv, const char *title) {
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
  st = write_figure(c->svg, draw, csv, &fc);
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
  if (!st) st = finish_measurement(c, text, draw_noise, csv_noise, title);
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
  /* at least a thousandth of the spectrum's scale: a spectrum of one
     value is a visible bump, and its grid survives the JSON's digits */
  sigma = fmax((hi - lo) / 150, 1e-3 * fmax(fabs(lo), fabs(hi)));
  if (!(sigma > 0)) sigma = 1e-12;
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

/* The smoothed spectral density on a log axis reaching 1e-6 of its peak:
   the bulk near zero and each outlier's bump stay in view, and where the
   density falls below that floor the curve runs along it (filled down to
   it) instead of leaving the frame. The top eigenvalues by Lanczos are
   marked along the bottom. */
#define CURV_DECADES 6
static void draw_curvature(FILE *f, void *ctx) {
  fig_ctx *fc = (fig_ctx *)ctx;
  double *grid, *dens, *top, peak = 0, low, *shown, *base;
  int ng = jv_array(fc->obj, "grid", &grid), nd = jv_array(fc->obj, "density", &dens);
  int nt = jv_array(fc->obj, "top", &top), i;
  svg_axis ax = {0, 1, 0, "eigenvalue of the Hessian"};
  svg_axis ay = {0, 1, 1, "spectral density (smoothed, log scale)"};
  svg_plot p;
  shown = (double *)malloc(sizeof(double) * 2 * (size_t)(ng > 0 ? ng : 1));
  if (ng > 1 && nd == ng && shown) {
    base = shown + ng;
    for (i = 0; i < nd; ++i)
      if (isfinite(dens[i]) && dens[i] > peak) peak = dens[i];
    if (!(peak > 0)) peak = 1;
    low = peak * pow(10, -CURV_DECADES);
    for (i = 0; i < ng; ++i) {
      shown[i] = isfinite(dens[i]) ? fmax(dens[i], low) : NAN;
      base[i] = low;
    }
    ax.lo = grid[0];
    ax.hi = grid[ng - 1];
    ay.lo = low;
    ay.hi = peak * 3;
    svg_open(&p, f, 680, 420, fc->title, ax, ay);
    svg_axes(&p);
    svg_band(&p, grid, base, shown, ng, svg_palette[0], 0.25);
    svg_line(&p, grid, shown, ng, svg_palette[0], 2, 0);
    for (i = 0; i < nt; ++i) {
      double xs[2], ys[2];
      xs[0] = xs[1] = top[i];
      ys[0] = low;
      ys[1] = low * pow(10, CURV_DECADES / 4.0);
      svg_line(&p, xs, ys, 2, svg_palette[1], 1.5, 0);
    }
    svg_legend(&p, "SLQ density (below 1e-6 of the peak: drawn at that floor)",
               svg_palette[0], SVG_LINE);
    svg_legend(&p, "top eigenvalues (Lanczos)", svg_palette[1], SVG_LINE);
    svg_close(&p);
  }
  free(shown);
  free(grid);
  free(dens);
  free(top);
}

/* The numbers of the curvature figure: the density on its grid, then the
   top eigenvalues. */
static void csv_curvature(FILE *f, void *ctx) {
  fig_ctx *fc = (fig_ctx *)ctx;
  double *grid, *dens, *top;
  int ng = jv_array(fc->obj, "grid", &grid), nd = jv_array(fc->obj, "density", &dens);
  int nt = jv_array(fc->obj, "top", &top), i;
  char a[32], b[32];
  fprintf(f, "what,eigenvalue,density\n");
  for (i = 0; i < ng && i < nd; ++i)
    fprintf(f, "density,%s,%s\n", csv_num(a, grid[i]), csv_num(b, dens[i]));
  for (i = 0; i < nt; ++i) fprintf(f, "top eigenvalue,%s,\n", csv_num(a, top[i]));
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
  st = finish_measurement(c, text, draw_curvature, csv_curvature, title);
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
/* Paper A's experiments end to end. A form (a setting, a depth, the larger
   model; --all: every one) is a study: SGD and Adam over seeds, run in
   child processes, with the gradient noise at initialization beside them.
   Learning rates are paper A's code's (listed for L = 3), given, or tuned
   on a grid (--tune; by default at every other depth). Each study gets a
   folder with report.md, figures and the CSV behind them; --all adds a
   report over the studies, each number beside paper A's. A report is
   written whatever the runs did: a run that diverged is counted and drawn
   up to its divergence, and the exit status says whether every run
   completed (1 if not); only bad input (2) writes none. */

/* Paper A's R_SGD / R_Adam, mean (std) over 6 seeds at iterations 750 and
   1250 (its table of the robust condition number), by preset at L = 3. */
typedef struct paper_r {
  const char *preset;
  double mean[2], sd[2];
} paper_r;
static const paper_r paper_a_r[] = {{"1", {1.76, 1.58}, {0.40, 0.41}},
                                    {"2", {3.14, 5.98}, {0.97, 2.86}},
                                    {"3", {9.57, 6.53}, {13.3, 3.55}}};
static const double repro_at[2] = {750, 1250};

/* The studies of --compare-attention, each keyed by its attention's name. */
static const char *const repro_attentions[2] = {"linear", "softmax"};

/* The studies of --all, in the order of its report. */
typedef struct repro_form {
  const char *key, *preset;
  int depth; /* 0: the preset's */
  const char *title;
} repro_form;
static const repro_form repro_forms[] = {
    {"setting-1", "1", 0, "Setting 1"},
    {"setting-2", "2", 0, "Setting 2 (n = 5)"},
    {"setting-3", "3", 0, "Setting 3 (heavy-tailed covariates)"},
    {"sphere", "sphere", 0, "spherical covariates"},
    {"nonlinear", "nonlinear", 0, "nonlinear targets, front MLP"},
    {"depth-2", "1", 2, "Setting 1, L = 2"},
    {"depth-4", "1", 4, "Setting 1, L = 4"},
    {"depth-6", "1", 6, "Setting 1, L = 6"},
    {"depth-8", "1", 8, "Setting 1, L = 8"},
    {"large", "large", 0, "the larger model (L = 8, d = 20, n = 60)"}};
#define REPRO_NFORMS ((int)(sizeof repro_forms / sizeof repro_forms[0]))

/* The lengths of a study, quick and --full, where the flags do not say.
   The quick forms keep `reproduce --all` within minutes on two cores: the
   nonlinear model's dense Hessian (about 550 parameters) is a few seconds
   per measurement, so it stops at 1250 (the table's last iteration); the
   larger model's 6,400 parameters make its robust condition number (one
   Hessian-vector product per diagonal entry) cost minutes, so it is not
   measured there, and its quick form is short. */
typedef struct repro_len {
  const char *preset;
  long steps[2], seeds[2], diag_every, smooth_every[2], samples[2];
} repro_len;
static const repro_len repro_lens[] = {
    /* preset       steps quick/full  seeds  diag  smooth   noise samples */
    {NULL, {2000, 10000}, {4, 6}, 250, {5, 10}, {4000, 10000}},
    {"nonlinear", {1250, 10000}, {4, 6}, 250, {5, 10}, {4000, 10000}},
    {"large", {600, 10000}, {2, 6}, 0, {20, 50}, {1000, 10000}}};

#define TUNE_GRID 10
#define TUNE_SEED 1001 /* none of the reported seeds */
enum { LR_PAPER, LR_GIVEN, LR_TUNED };
enum { J_TUNE, J_RUN, J_NOISE };

/* The numbers of each seed behind the tables (NaN: not measured). */
enum {
  SV_FIN_SGD, SV_FIN_ADAM, SV_LOSS_RATIO,   /* final eval loss, SGD / Adam */
  SV_R_SGD, SV_R_ADAM = SV_R_SGD + 2, SV_R_RATIO = SV_R_ADAM + 2, /* [750, 1250] */
  SV_L_SGD = SV_R_RATIO + 2, SV_L_ADAM = SV_L_SGD + 2, /* lambda_max/median */
  SV_L_RATIO = SV_L_ADAM + 2, SV_CORR = SV_L_RATIO + 2,
  SV_N
};

typedef struct study {
  char key[32], title[160], dir[4096];
  cli_config base;     /* the flags of its runs (optimizer, seed, lr added) */
  la_run_config rc[2]; /* seed 1's SGD and Adam runs, resolved */
  int seeds, tune[2], lr_from[2], depth_default;
  double lr[2], grid[2][TUNE_GRID], score[2][TUNE_GRID];
  long tune_steps;
  int tune_job, run_job; /* its first job of each phase */
  const paper_r *paper;
  /* what came back */
  runlog *logs; /* 2 seeds: SGD and Adam of seed s at 2(s-1), 2(s-1)+1 */
  int *ok;      /* per run: 1 completed, 0 diverged, -1 missing or failed */
  int diverged, failed;
  jv noise;
  int has_noise;
  double *v[SV_N]; /* per seed */
  verdict loss, r[2], corr;
  int heavy;            /* noise kurtosis above the Gaussian band */
  double kurt_limit;
  la_lsmooth_fit fit;   /* Adam's pooled pairs */
} study;

typedef struct rjob {
  int study, kind, opt, seed, grid, index;
  char path[4200];
  cli_config cfg;
  long steps;
  double cost;
} rjob;

typedef struct repro {
  const cli_config *c;
  const char *dir;
  study *s;
  int ns;
  rjob *jobs;
  int nj;
  double t0;
} repro;

static const char *const opt_names[2] = {"sgd", "adam"};
static const char *const opt_titles[2] = {"SGD, momentum 0.9",
                                          "Adam, betas 0.9, 0.9"};

/* The lengths row of a preset. */
static const repro_len *len_of(const char *preset) {
  int i;
  for (i = 1; i < (int)(sizeof repro_lens / sizeof repro_lens[0]); ++i)
    if (preset && !strcmp(repro_lens[i].preset, preset)) return &repro_lens[i];
  return &repro_lens[0];
}

/* A job's relative cost, for the order of the pool (longest first): the
   forward pass of a prompt is about L (d+1)^2 (n+1), a step three of them
   per prompt, a dense robust condition number n_params products of six
   and an eigensolve. */
static double job_cost(const la_run_config *r, long nparams, int kind) {
  double unit = (double)r->model.layers * (r->data.d + 1) * (r->data.d + 1) *
                (r->data.n + 1) + (double)r->model.front_hidden * r->data.d * (r->data.n + 1);
  double steps = (double)r->steps, cost = 3 * steps * r->batch * unit;
  if (kind == J_RUN && r->measure.diag_every > 0)
    cost += (steps / r->measure.diag_every + 1) *
            ((double)nparams * r->measure.diag_batch * unit * 6 +
             10.0 * nparams * nparams * nparams);
  if (kind == J_RUN && r->measure.smooth_every > 0)
    cost += steps / r->measure.smooth_every * 6 * r->measure.diag_batch * unit;
  return cost;
}

/* The study's folder and its runs' flags; its learning rates (given,
   paper A's, or a grid to tune). EXIT_BAD_INPUT when a run cannot be
   built. */
static int study_init(repro *R, study *S, const char *key, const char *title,
                      const char *preset, int depth, const char *attention) {
  const cli_config *c = R->c;
  const repro_len *len;
  char err[600];
  int o, full = c->full != 0;
  memset(S, 0, sizeof *S);
  snprintf(S->key, sizeof S->key, "%s", key);
  S->base = *c;
  S->base.cmd = CLI_TRAIN;
  S->base.checkpoint = S->base.resume = S->base.svg = NULL;
  S->base.checkpoint_every = -1;
  if (c->threads < 0) S->base.threads = 1; /* the processes share the CPUs */
  if (preset) S->base.preset = preset;
  if (depth > 0) cli_give(&S->base, "depth", depth);
  if (attention) cli_give_name(&S->base, "attention", attention);
  if (!S->base.preset) /* the setting's, as train starts */
    S->base.preset = cli_given(c, "setting")
                         ? la_run_field_name(la_run_field_find("setting"), c->run.setting)
                         : "1";
  cli_give_name(&S->base, "preset", S->base.preset);
  len = len_of(S->base.preset);
  if (!cli_given(c, "steps")) cli_give(&S->base, "steps", (double)len->steps[full]);
  if (!cli_given(c, "diag_every")) cli_give(&S->base, "diag_every", (double)len->diag_every);
  if (!cli_given(c, "smooth_every"))
    cli_give(&S->base, "smooth_every", (double)len->smooth_every[full]);
  cli_give(&S->base, "log_every", 50);
  if (c->minibatch < 0) S->base.minibatch = 1000;
  if (c->true_batch < 0) S->base.true_batch = full ? 100000 : 50000;
  if (c->samples < 0) S->base.samples = len->samples[full];
  if (c->bins < 0) S->base.bins = full ? 100 : 50;
  S->seeds = (int)(c->seeds > 0 ? c->seeds : len->seeds[full]);
  if (R->ns > 1) /* each study in a folder of its own */
    snprintf(S->dir, sizeof S->dir, "%.3000s/%s", R->dir, key);
  else
    snprintf(S->dir, sizeof S->dir, "%.4000s", R->dir);
  for (o = 0; o < 2; ++o) {
    cli_config j = S->base;
    double given = o ? c->lr_adam : c->lr_sgd;
    cli_give_name(&j, "opt", opt_names[o]);
    cli_give(&j, "seed", 1);
    if (cli_run_of(&j, &S->rc[o], err, sizeof err) != CLI_OK)
      return u_fail(EXIT_BAD_INPUT, "%s", err);
    /* paper A's code lists its learning rates for L = 3, linear attention */
    S->depth_default = S->rc[o].model.layers == 3 &&
                       S->rc[o].model.activation == LA_ACT_LINEAR;
    S->lr[o] = S->rc[o].opt.lr;
    S->lr_from[o] = LR_PAPER;
    if (given == given) {
      S->lr[o] = given;
      S->lr_from[o] = LR_GIVEN;
    } else if (c->tune || !S->depth_default) {
      int g;
      S->tune[o] = 1;
      S->lr_from[o] = LR_TUNED;
      for (g = 0; g < TUNE_GRID; ++g) /* lr0 / 64 .. 8 lr0, factors of 2 */
        S->grid[o][g] = S->rc[o].opt.lr * ldexp(1, g - 6);
    }
  }
  /* a quarter of the run, at least 200 steps (the run's, if shorter) */
  S->tune_steps = S->rc[0].steps / 4 > 200 ? S->rc[0].steps / 4 : 200;
  if (S->tune_steps > S->rc[0].steps) S->tune_steps = S->rc[0].steps;
  if (title) {
    snprintf(S->title, sizeof S->title, "%s", title);
  } else { /* the preset's study, and its depth if another */
    la_run_config own;
    const char *t = S->base.preset;
    for (o = 0; o < REPRO_NFORMS; ++o)
      if (!strcmp(repro_forms[o].preset, t) && !repro_forms[o].depth) {
        t = repro_forms[o].title;
        break;
      }
    if (la_run_preset(&own, S->base.preset, NULL) == 0 &&
        la_run_resolve(&own, &own) == 0 &&
        own.model.layers != S->rc[0].model.layers)
      snprintf(S->title, sizeof S->title, "%s, L = %d", t, S->rc[0].model.layers);
    else
      snprintf(S->title, sizeof S->title, "%s", t);
  }
  if (attention) {
    size_t tl = strlen(S->title);
    snprintf(S->title + tl, sizeof S->title - tl, ", %s attention", attention);
  }
  for (o = 0; o < (int)(sizeof paper_a_r / sizeof paper_a_r[0]); ++o)
    if (!strcmp(paper_a_r[o].preset, S->base.preset) &&
        S->rc[0].model.layers == 3 && !cli_given(c, "n") && !cli_given(c, "d") &&
        S->rc[0].model.activation == LA_ACT_LINEAR)
      S->paper = &paper_a_r[o];
  return 0;
}

/* The flags of one run of study S: optimizer o, seed, learning rate. */
static int job_config(const study *S, int o, long seed, double lr,
                      cli_config *j, la_run_config *rc) {
  char err[600];
  *j = S->base;
  cli_give_name(j, "opt", opt_names[o]);
  cli_give(j, "seed", (double)seed);
  cli_give(j, "lr", lr);
  if (cli_run_of(j, rc, err, sizeof err) != CLI_OK)
    return u_fail(EXIT_BAD_INPUT, "%s", err);
  return 0;
}

/* ------------------------------------------------------------ jobs */
static int repro_noise(const study *S, u_progress *p) {
  cli_config c = S->base;
  la_run r;
  la_pool *pool = NULL;
  long step;
  u_out out;
  char path[4200];
  int st;
  c.checkpoint = NULL;
  cli_give(&c, "seed", 1);
  snprintf(path, sizeof path, "%.4000s/noise.json", S->dir);
  if ((st = load_theta(&c, &r, &pool, &step)) != 0) return st;
  if ((st = u_open(&out, path)) == 0) {
    st = measure_noise(&c, &r, r.trainer.theta, 0, out.f, NULL, p);
    if (st) u_abort(&out);
    else st = u_commit(&out);
  }
  run_free(&r, pool);
  return st;
}

static int repro_job(void *ctx, int i, u_progress *p) {
  repro *R = (repro *)ctx;
  const rjob *j = &R->jobs[i];
  if (j->kind == J_NOISE) return repro_noise(&R->s[j->study], p);
  /* a grid point that diverges is expected at the grid's top: quiet */
  if (j->kind == J_TUNE && !freopen("/dev/null", "w", stderr)) return 1;
  return run_train(&j->cfg, p);
}

/* Costliest first; equal costs in their first order (qsort is not
   stable). */
static int job_cmp_cost(const void *a, const void *b) {
  const rjob *x = (const rjob *)a, *y = (const rjob *)b;
  if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Runs the jobs in the pool, the costliest first; the status of each
   (by its place before the sort) in status. */
static int repro_pool(repro *R, rjob *jobs, int n, const char *what,
                      int *status) {
  long *totals = (long *)calloc((size_t)n + 1, sizeof(long));
  int *order = (int *)calloc((size_t)n + 1, sizeof(int));
  int *st2 = (int *)calloc((size_t)n + 1, sizeof(int));
  rjob *sorted = (rjob *)calloc((size_t)n + 1, sizeof(rjob));
  int i, procs = (int)(R->c->jobs > 0 ? R->c->jobs : u_online_cpus());
  if (!totals || !order || !st2 || !sorted) {
    free(totals);
    free(order);
    free(st2);
    free(sorted);
    return u_oom();
  }
  memcpy(sorted, jobs, sizeof(rjob) * (size_t)n);
  for (i = 0; i < n; ++i) sorted[i].index = i;
  qsort(sorted, (size_t)n, sizeof(rjob), job_cmp_cost);
  for (i = 0; i < n; ++i) {
    order[i] = sorted[i].index;
    sorted[i].cfg.out = sorted[i].path;
    totals[i] = sorted[i].steps;
  }
  R->jobs = sorted;
  R->nj = n;
  (void)u_pool(repro_job, R, n, procs, totals, what, st2);
  for (i = 0; i < n; ++i) status[order[i]] = st2[i];
  R->jobs = NULL;
  free(totals);
  free(order);
  free(st2);
  free(sorted);
  return 0;
}

/* ------------------------------------------------------------ tuning */
/* A tuning run's score: the median of its last five evaluation losses
   (Adam's loss has spikes: one evaluation would choose by chance); NaN
   when the run diverged or did not finish. */
static double tune_score(const char *path) {
  runlog r;
  char err[600];
  double v[5], score = NAN;
  int i, n;
  if (runlog_load(path, &r, err, sizeof err)) return NAN;
  if (!strcmp(r.status, "ok")) {
    const series *e = &r.f[F_EVAL];
    stats s;
    n = e->n < 5 ? e->n : 5;
    for (i = 0; i < n; ++i) v[i] = e->y[e->n - n + i];
    stats_of(v, n, &s);
    score = s.med;
  }
  runlog_free(&r);
  return score;
}

static void tune_path(const study *S, int o, int g, char *buf, size_t cap) {
  snprintf(buf, cap, "%.4000s/tune/%s-lr%d.jsonl", S->dir, opt_names[o], g);
}

/* Phase 1: a short run (a quarter of the steps, at least 200, no
   diagnostics, seed TUNE_SEED) per grid value and tuned optimizer; each
   study takes the value with the lowest score. */
static int repro_tune(repro *R) {
  rjob *jobs;
  int *status, n = 0, i, o, g, st = 0;
  for (i = 0; i < R->ns; ++i)
    for (o = 0; o < 2; ++o) n += R->s[i].tune[o] ? TUNE_GRID : 0;
  if (!n) return 0;
  jobs = (rjob *)calloc((size_t)n, sizeof(rjob));
  status = (int *)calloc((size_t)n, sizeof(int));
  if (!jobs || !status) {
    free(jobs);
    free(status);
    return u_oom();
  }
  n = 0;
  for (i = 0; i < R->ns && !st; ++i) {
    study *S = &R->s[i];
    char dir[4200];
    cli_config base = S->base;
    snprintf(dir, sizeof dir, "%.4000s/tune", S->dir);
    if (!S->tune[0] && !S->tune[1]) continue;
    if ((st = u_mkdirs(dir)) != 0) break;
    cli_give(&base, "steps", (double)S->tune_steps);
    cli_give(&base, "diag_every", 0);
    cli_give(&base, "smooth_every", 0);
    S->tune_job = n;
    for (o = 0; o < 2 && !st; ++o)
      for (g = 0; g < TUNE_GRID && S->tune[o] && !st; ++g) {
        rjob *j = &jobs[n++];
        la_run_config rc;
        cli_config keep = S->base;
        S->base = base;
        st = job_config(S, o, TUNE_SEED, S->grid[o][g], &j->cfg, &rc);
        S->base = keep;
        j->study = i;
        j->kind = J_TUNE;
        j->opt = o;
        j->grid = g;
        j->steps = rc.steps;
        j->cost = job_cost(&rc, 0, J_TUNE);
        tune_path(S, o, g, j->path, sizeof j->path);
      }
  }
  if (!st) st = repro_pool(R, jobs, n, "tuning", status);
  for (i = 0; i < R->ns && !st; ++i) {
    study *S = &R->s[i];
    for (o = 0; o < 2; ++o) {
      int best = -1;
      if (!S->tune[o]) continue;
      for (g = 0; g < TUNE_GRID; ++g) {
        char path[4200];
        tune_path(S, o, g, path, sizeof path);
        S->score[o][g] = tune_score(path);
        if (S->score[o][g] == S->score[o][g] &&
            (best < 0 || S->score[o][g] < S->score[o][best]))
          best = g;
      }
      /* every grid value diverged: the paper's rate, said in the report */
      if (best >= 0) S->lr[o] = S->grid[o][best];
      else S->lr_from[o] = LR_PAPER;
    }
  }
  free(jobs);
  free(status);
  return st;
}

/* ------------------------------------------------------------ runs */
/* The parameters of a run's model. */
static long run_nparams(const la_run_config *rc) {
  la_model m;
  la_model_config mc = rc->model;
  mc.d = rc->data.d;
  mc.n = rc->data.n;
  return la_model_init(&m, &mc) == 0 ? m.nparams : 0;
}

static void run_path(const study *S, int o, int seed, char *buf, size_t cap) {
  snprintf(buf, cap, "%.4000s/runs/%s-seed%d.jsonl", S->dir, opt_names[o], seed);
}

/* Phase 2: SGD and Adam over the seeds, and the noise, of every study. */
static int repro_runs(repro *R) {
  rjob *jobs;
  int *status, n = 0, i, o, s, st = 0;
  for (i = 0; i < R->ns; ++i) n += 2 * R->s[i].seeds + 1;
  jobs = (rjob *)calloc((size_t)n, sizeof(rjob));
  status = (int *)calloc((size_t)n, sizeof(int));
  if (!jobs || !status) {
    free(jobs);
    free(status);
    return u_oom();
  }
  n = 0;
  for (i = 0; i < R->ns && !st; ++i) {
    study *S = &R->s[i];
    char dir[4200];
    snprintf(dir, sizeof dir, "%.4000s/runs", S->dir);
    if ((st = u_mkdirs(dir)) != 0) break;
    S->run_job = n;
    for (s = 1; s <= S->seeds && !st; ++s)
      for (o = 0; o < 2 && !st; ++o) {
        rjob *j = &jobs[n++];
        la_run_config rc;
        st = job_config(S, o, s, S->lr[o], &j->cfg, &rc);
        j->study = i;
        j->kind = J_RUN;
        j->opt = o;
        j->seed = s;
        j->steps = rc.steps;
        j->cost = job_cost(&rc, run_nparams(&rc), J_RUN);
        run_path(S, o, s, j->path, sizeof j->path);
      }
    if (!st) { /* the noise costs a gradient per sample */
      rjob *j = &jobs[n++];
      la_run_config rc = S->rc[0];
      rc.steps = S->base.samples + S->base.true_batch / 1000;
      j->study = i;
      j->kind = J_NOISE;
      j->steps = S->base.samples;
      j->cost = job_cost(&rc, 0, J_NOISE);
      snprintf(j->path, sizeof j->path, "%.4000s/noise.json", S->dir);
    }
  }
  if (!st) st = repro_pool(R, jobs, n, "reproduce", status);
  free(jobs);
  free(status);
  return st;
}

/* ------------------------------------------------------------ results */
/* The (gradient norm, smoothness) pairs of Adam's runs over the first
   2000 steps: seed, step, g, s; their count. */
#define PAIRS_UNTIL 2000
static long pairs_until(const study *S) {
  return S->rc[0].steps < PAIRS_UNTIL ? S->rc[0].steps : PAIRS_UNTIL;
}
typedef struct pairs {
  double *seed, *t, *g, *s;
  int n;
} pairs;

static void pairs_free(pairs *P) {
  free(P->seed);
  free(P->t);
  free(P->g);
  free(P->s);
  memset(P, 0, sizeof *P);
}

/* Adam's pairs of seed `only` (0: every seed). */
static int pairs_of(const study *S, int only, pairs *P) {
  int s, j, cap = 1;
  memset(P, 0, sizeof *P);
  for (s = 0; s < S->seeds; ++s) cap += S->logs[2 * s + 1].f[F_SMOOTH].n;
  P->seed = (double *)malloc(sizeof(double) * (size_t)cap);
  P->t = (double *)malloc(sizeof(double) * (size_t)cap);
  P->g = (double *)malloc(sizeof(double) * (size_t)cap);
  P->s = (double *)malloc(sizeof(double) * (size_t)cap);
  if (!P->seed || !P->t || !P->g || !P->s) {
    pairs_free(P);
    return -1;
  }
  for (s = 0; s < S->seeds; ++s) {
    const runlog *a = &S->logs[2 * s + 1];
    const series *sm = &a->f[F_SMOOTH];
    if (only && s + 1 != only) continue;
    for (j = 0; j < sm->n && sm->x[j] <= PAIRS_UNTIL; ++j) {
      double g = series_at(&a->f[F_SGNORM], sm->x[j]);
      if (!(sm->y[j] > 0) || !(g > 0) || !isfinite(g)) continue;
      P->seed[P->n] = s + 1;
      P->t[P->n] = sm->x[j];
      P->g[P->n] = g;
      P->s[P->n++] = sm->y[j];
    }
  }
  return 0;
}

/* A run's final evaluation loss for a comparison: +inf when it diverged
   (it lost), NaN when it is missing. */
static double final_of(const study *S, int run) {
  if (S->ok[run] == 1) return S->logs[run].final_eval;
  return S->ok[run] == 0 ? HUGE_VAL : NAN;
}

/* Reads a study's runs and noise back and computes each seed's numbers
   and the verdicts. */
static int study_load(study *S) {
  int k = S->seeds, runs = 2 * k, i, t;
  char path[4200], err[600];
  char *text;
  const char *why = NULL;
  pairs P;
  S->logs = (runlog *)calloc((size_t)runs, sizeof(runlog));
  S->ok = (int *)calloc((size_t)runs, sizeof(int));
  S->v[0] = (double *)malloc(sizeof(double) * (size_t)k * SV_N);
  if (!S->logs || !S->ok || !S->v[0]) return u_oom();
  for (i = 1; i < SV_N; ++i) S->v[i] = S->v[0] + (size_t)i * (size_t)k;
  for (i = 0; i < runs; ++i) {
    run_path(S, i % 2, i / 2 + 1, path, sizeof path);
    if (runlog_load(path, &S->logs[i], err, sizeof err) != 0) {
      memset(&S->logs[i], 0, sizeof S->logs[i]);
      S->ok[i] = -1;
      S->failed++;
    } else if (!strcmp(S->logs[i].status, "ok")) {
      S->ok[i] = 1;
    } else if (!strcmp(S->logs[i].status, "diverged")) {
      S->ok[i] = 0;
      S->diverged++;
    } else {
      S->ok[i] = -1;
      S->failed++;
    }
  }
  snprintf(path, sizeof path, "%.4000s/noise.json", S->dir);
  text = u_slurp(path, NULL);
  S->has_noise = text && jv_parse(text, &S->noise, &why) == 0;
  free(text);
  for (i = 0; i < k; ++i) {
    const runlog *a = &S->logs[2 * i], *b = &S->logs[2 * i + 1];
    double fs = final_of(S, 2 * i), fa = final_of(S, 2 * i + 1);
    S->v[SV_FIN_SGD][i] = fs;
    S->v[SV_FIN_ADAM][i] = fa;
    /* inf / finite: SGD diverged, Adam is lower; finite / inf: 0 */
    S->v[SV_LOSS_RATIO][i] = fs / fa;
    for (t = 0; t < 2; ++t) {
      double rs = series_at(&a->f[F_RCOND], repro_at[t]);
      double ra = series_at(&b->f[F_RCOND], repro_at[t]);
      double ls = series_at(&a->f[F_RSPEC], repro_at[t]);
      double la = series_at(&b->f[F_RSPEC], repro_at[t]);
      S->v[SV_R_SGD + t][i] = rs;
      S->v[SV_R_ADAM + t][i] = ra;
      S->v[SV_R_RATIO + t][i] = rs / ra;
      S->v[SV_L_SGD + t][i] = ls;
      S->v[SV_L_ADAM + t][i] = la;
      S->v[SV_L_RATIO + t][i] = ls / la;
    }
    S->v[SV_CORR][i] = NAN;
    if (pairs_of(S, i + 1, &P) == 0) {
      la_lsmooth_fit f;
      if (P.n >= 3 && la_lsmooth(P.n, P.g, P.s, &f, NULL, 0) == 0 && f.used >= 3)
        S->v[SV_CORR][i] = f.corr_log;
      pairs_free(&P);
    }
  }
  verdict_of(S->v[SV_LOSS_RATIO], k, 1, &S->loss);
  for (t = 0; t < 2; ++t) verdict_of(S->v[SV_R_RATIO + t], k, 1, &S->r[t]);
  verdict_of(S->v[SV_CORR], k, 0.5, &S->corr);
  if (S->has_noise) { /* the sample kurtosis of a Gaussian: sd sqrt(24/N) */
    double N = jv_num(&S->noise, "samples");
    S->kurt_limit = 3 + 3 * sqrt(24 / N);
    S->heavy = jv_num(&S->noise, "kurtosis") > S->kurt_limit;
  }
  memset(&S->fit, 0, sizeof S->fit);
  if (pairs_of(S, 0, &P) == 0) {
    if (P.n >= 3) (void)la_lsmooth(P.n, P.g, P.s, &S->fit, NULL, 0);
    pairs_free(&P);
  }
  return 0;
}

static void study_free(study *S) {
  int i;
  for (i = 0; S->logs && i < 2 * S->seeds; ++i) runlog_free(&S->logs[i]);
  free(S->logs);
  free(S->ok);
  free(S->v[0]);
  jv_free(&S->noise);
}

/* ------------------------------------------------------------ figures */
/* The runs of one optimizer of a study, as pointers. */
static runlog **study_runs(const study *S, int o) {
  runlog **r = (runlog **)malloc(sizeof(runlog *) * (size_t)S->seeds);
  int s;
  for (s = 0; r && s < S->seeds; ++s) r[s] = &S->logs[2 * s + o];
  return r;
}

/* The two optimizers' curves of one field; *drawn says whether any run
   had a value (otherwise no file is written). */
static int study_curves(const study *S, const char *file, const char *title,
                        const char *ylabel, int field, int *drawn) {
  char path[4300], lab[2][160], a[32];
  curve cs[2];
  curves_fig cf;
  int o, st = 0;
  memset(cs, 0, sizeof cs);
  *drawn = 0;
  for (o = 0; o < 2 && !st; ++o) {
    runlog **r = study_runs(S, o);
    if (!r || band_make(r, S->seeds, field, &cs[o].b)) st = u_oom();
    free(r);
    snprintf(lab[o], sizeof lab[o], "%s, lr %s (%d seeds)", opt_titles[o],
             fmt_num(a, sizeof a, S->lr[o], 3), S->seeds);
    cs[o].label = lab[o];
    if (cs[o].b.n) *drawn = 1;
  }
  if (!st && *drawn) {
    cf.title = title;
    cf.xlabel = "iteration";
    cf.ylabel = ylabel;
    cf.logy = 1;
    cf.c = cs;
    cf.n = 2;
    snprintf(path, sizeof path, "%.4000s/%s", S->dir, file);
    st = write_curves(path, &cf);
  }
  band_free(&cs[0].b);
  band_free(&cs[1].b);
  return st;
}

/* The gradient norm against the directional smoothness over Adam's first
   2000 steps, coloured by iteration, with the (L0, L1) lines fitted to
   them: s = L0 + L1 ||g|| by least squares, and the tightest such line
   above every pair. */
typedef struct scatter_fig {
  const char *title;
  const pairs *P;
  const la_lsmooth_fit *fit;
} scatter_fig;

/* A fitted line on the scatter's grid of gradient norms. */
static void scatter_line(double lo, double hi, double l0, double l1,
                         double *x, double *y, int n) {
  int i;
  for (i = 0; i < n; ++i) {
    x[i] = lo * pow(hi / lo, i / (n - 1.0));
    y[i] = l0 + l1 * x[i];
  }
}

static void draw_scatter(FILE *f, void *ctx) {
  scatter_fig *sf = (scatter_fig *)ctx;
  const pairs *P = sf->P;
  const la_lsmooth_fit *fit = sf->fit;
  svg_axis ax = {0, 1, 1, "\xe2\x80\x96\xe2\x88\x87" "f\xe2\x80\x96 gradient norm (log scale)"};
  svg_axis ay = {0, 1, 1, "directional smoothness u\xe1\xb5\x80 H u (log scale)"};
  svg_plot p;
  double x[100], y[100], tmax = 1;
  char lab[200], a[32], b[32];
  int i;
  for (i = 0; i < P->n; ++i) tmax = fmax(tmax, P->t[i]);
  if (!svg_range(P->g, P->n, 1, &ax.lo, &ax.hi)) ax.lo = 0.1, ax.hi = 1;
  if (!svg_range(P->s, P->n, 1, &ay.lo, &ay.hi)) ay.lo = 0.1, ay.hi = 1;
  svg_open(&p, f, 700, 460, sf->title, ax, ay);
  p.mr = 110;
  svg_axes(&p);
  svg_points(&p, P->g, P->s, P->t, P->n, 0, tmax, NULL, 2.4);
  svg_colorbar(&p, 0, tmax, "iteration");
  svg_legend(&p, "one (||grad f||, u^T H u) pair of an Adam step", "#21918c", SVG_DOT);
  if (fit->used >= 3) {
    scatter_line(ax.lo, ax.hi, fit->l0_ls, fit->l1_ls, x, y, 100);
    svg_line(&p, x, y, 100, "#D55E00", 2, 0);
    snprintf(lab, sizeof lab, "least squares: s = %s + %s ||g||",
             fmt_num(a, sizeof a, fit->l0_ls, 3), fmt_num(b, sizeof b, fit->l1_ls, 3));
    svg_legend(&p, lab, "#D55E00", SVG_LINE);
    scatter_line(ax.lo, ax.hi, fit->l0_env, fit->l1_env, x, y, 100);
    svg_line(&p, x, y, 100, "#000000", 1.5, 1);
    snprintf(lab, sizeof lab, "(L0, L1) envelope: s = %s + %s ||g|| (above every pair)",
             fmt_num(a, sizeof a, fit->l0_env, 3), fmt_num(b, sizeof b, fit->l1_env, 3));
    svg_legend(&p, lab, "#000000", SVG_DASHED);
  }
  svg_close(&p);
}

static void csv_scatter(FILE *f, void *ctx) {
  scatter_fig *sf = (scatter_fig *)ctx;
  const pairs *P = sf->P;
  const la_lsmooth_fit *fit = sf->fit;
  char a[32], b[32];
  int i;
  fprintf(f, "what,seed,step,grad_norm,smoothness\n");
  for (i = 0; i < P->n; ++i)
    fprintf(f, "pair,%.0f,%.0f,%s,%s\n", P->seed[i], P->t[i], csv_num(a, P->g[i]),
            csv_num(b, P->s[i]));
  if (fit->used >= 3) {
    fprintf(f, "least squares L0 and L1,,,%s,%s\n", csv_num(a, fit->l0_ls),
            csv_num(b, fit->l1_ls));
    fprintf(f, "envelope L0 and L1,,,%s,%s\n", csv_num(a, fit->l0_env),
            csv_num(b, fit->l1_env));
  }
}

/* The tuning: each grid value's score, per optimizer; the value taken
   crossed. */
typedef struct tune_fig {
  const study *S;
} tune_fig;

static void draw_tune(FILE *f, void *ctx) {
  const study *S = ((tune_fig *)ctx)->S;
  svg_axis ax = {0, 1, 1, "learning rate (log scale)"};
  svg_axis ay = {0, 1, 1, "score: median of the last 5 evaluation losses (log scale)"};
  double all[4 * TUNE_GRID];
  char title[240], lab[160];
  svg_plot p;
  int o, n = 0;
  for (o = 0; o < 2; ++o)
    if (S->tune[o]) {
      memcpy(all + n, S->grid[o], sizeof(double) * TUNE_GRID);
      n += TUNE_GRID;
    }
  if (!svg_range(all, n, 1, &ax.lo, &ax.hi)) ax.lo = 1e-3, ax.hi = 1;
  n = 0;
  for (o = 0; o < 2; ++o)
    if (S->tune[o]) {
      memcpy(all + n, S->score[o], sizeof(double) * TUNE_GRID);
      n += TUNE_GRID;
    }
  if (!svg_range(all, n, 1, &ay.lo, &ay.hi)) ay.lo = 1e-3, ay.hi = 1;
  snprintf(title, sizeof title, "Learning rates, %s: %ld-step runs, seed %d",
           S->title, S->tune_steps, TUNE_SEED);
  svg_open(&p, f, 680, 420, title, ax, ay);
  svg_axes(&p);
  for (o = 0; o < 2; ++o) {
    double x = S->lr[o], y = NAN;
    int g;
    if (!S->tune[o]) continue;
    for (g = 0; g < TUNE_GRID; ++g)
      if (S->grid[o][g] == x) y = S->score[o][g];
    svg_line(&p, S->grid[o], S->score[o], TUNE_GRID, svg_palette[o], 2, 0);
    svg_markers(&p, S->grid[o], S->score[o], TUNE_GRID, svg_palette[o], SVG_DOT, 3.2);
    svg_markers(&p, &x, &y, 1, svg_palette[o], SVG_CROSS, 7);
    snprintf(lab, sizeof lab, "%s (a missing point diverged)", opt_titles[o]);
    svg_legend(&p, lab, svg_palette[o], SVG_LINEDOT);
  }
  svg_legend(&p, "cross: the rate taken", "#666666", SVG_CROSS);
  svg_close(&p);
}

static void csv_tune(FILE *f, void *ctx) {
  const study *S = ((tune_fig *)ctx)->S;
  char a[32];
  int o, g;
  fprintf(f, "optimizer,lr,score,taken\n");
  for (o = 0; o < 2; ++o)
    for (g = 0; g < TUNE_GRID && S->tune[o]; ++g)
      fprintf(f, "%s,%.10g,%s,%d\n", opt_names[o], S->grid[o][g],
              S->score[o][g] == S->score[o][g] ? csv_num(a, S->score[o][g]) : "diverged",
              S->grid[o][g] == S->lr[o]);
}

/* Every figure of a study; which were drawn in *has (loss, rcond,
   smoothness, noise, scatter, tune). */
enum { FIG_LOSS, FIG_RCOND, FIG_SMOOTH, FIG_NOISE, FIG_SCATTER, FIG_TUNE, FIG_N };
static int study_figures(study *S, int *has) {
  char title[300], path[4300];
  int st;
  memset(has, 0, sizeof(int) * FIG_N);
  snprintf(title, sizeof title, "Evaluation loss, %s", S->title);
  if ((st = study_curves(S, "loss.svg", title, "evaluation loss (log scale)",
                         F_EVAL, &has[FIG_LOSS])))
    return st;
  snprintf(title, sizeof title, "Robust condition number max|H_ii| / median|H_ii|, %s", S->title);
  if ((st = study_curves(S, "rcond.svg", title, "R (log scale)", F_RCOND,
                         &has[FIG_RCOND])))
    return st;
  snprintf(title, sizeof title, "Directional smoothness along the step taken, %s", S->title);
  if ((st = study_curves(S, "smoothness.svg", title,
                         "u\xe1\xb5\x80 H u (log scale)", F_SMOOTH, &has[FIG_SMOOTH])))
    return st;
  if (S->has_noise) {
    fig_ctx fc;
    snprintf(title, sizeof title, "Gradient noise at initialization, %s", S->title);
    fc.obj = &S->noise;
    fc.title = title;
    snprintf(path, sizeof path, "%.4000s/noise.svg", S->dir);
    if ((st = write_figure(path, draw_noise, csv_noise, &fc))) return st;
    has[FIG_NOISE] = 1;
  }
  {
    pairs P;
    scatter_fig sf;
    if (pairs_of(S, 0, &P)) return u_oom();
    snprintf(title, sizeof title, "Adam, first %ld steps: smoothness against gradient norm, %s",
             pairs_until(S), S->title);
    sf.title = title;
    sf.P = &P;
    sf.fit = &S->fit;
    snprintf(path, sizeof path, "%.4000s/gnorm_smoothness.svg", S->dir);
    if (P.n > 0) {
      st = write_figure(path, draw_scatter, csv_scatter, &sf);
      has[FIG_SCATTER] = !st;
    }
    pairs_free(&P);
    if (st) return st;
  }
  if (S->tune[0] || S->tune[1]) {
    tune_fig tf;
    tf.S = S;
    snprintf(path, sizeof path, "%.4000s/tune.svg", S->dir);
    if ((st = write_figure(path, draw_tune, csv_tune, &tf))) return st;
    has[FIG_TUNE] = 1;
  }
  return 0;
}

/* ------------------------------------------------------------ reports */
static const char *const rule_text =
    "**How a claim is judged.** Each claim is checked seed by seed (SGD and "
    "Adam of one seed start from the same initialization and see the same "
    "data). It *holds* when it holds in more than half of the seeds and the "
    "median over the seeds agrees; it *does not hold* when it fails in more "
    "than half and the median agrees with that; otherwise it is *mixed*. A "
    "seed without the number (*undecided*: a run that failed, both runs "
    "diverged, a diagnostic not measured there) counts for neither side. A "
    "run that diverged counts as the higher loss (its final loss is written "
    "inf; a median or quartile of inf says that at least that share of the "
    "runs diverged). Medians and quartiles "
    "interpolate between the seeds' values geometrically when both are "
    "positive (the figures' axes are logarithmic). The noise's tail is one measurement (seed 1's "
    "initialization): heavy when its kurtosis exceeds a Gaussian's 3 by "
    "more than three standard errors of a Gaussian sample's kurtosis, "
    "3 sqrt(24/N). lambda_max / lambda_median is given only where the "
    "median eigenvalue stands above the Hessian's rounding (|lambda_median| "
    "> n_params u max|lambda|, u the unit roundoff of the build's reals); "
    "elsewhere it is *not resolved*.\n\n";

/* "5 of 6 seeds" (and how many were undecided: not measured, or both
   runs diverged). */
static const char *fmt_seeds(char *buf, size_t cap, const verdict *v) {
  int none = v->seeds - v->yes - v->no;
  if (none)
    snprintf(buf, cap, "%d of %d seeds (%d undecided)", v->yes, v->seeds, none);
  else
    snprintf(buf, cap, "%d of %d seeds", v->yes, v->seeds);
  return buf;
}

/* The text of a learning rate's origin. */
static const char *lr_origin(const study *S, int o) {
  if (S->lr_from[o] == LR_GIVEN) return "given";
  if (S->lr_from[o] == LR_TUNED) return "tuned";
  if (S->tune[o]) return "paper A's: every tuning run diverged";
  return "paper A's code";
}

/* Runs that did not complete, in words ("" when all did). */
static void fmt_incomplete(char *buf, size_t cap, const study *S) {
  if (!S->diverged && !S->failed) {
    snprintf(buf, cap, "all %d completed", 2 * S->seeds);
    return;
  }
  snprintf(buf, cap, "%d of %d diverged, %d failed", S->diverged,
           2 * S->seeds, S->failed);
}

/* The per-seed numbers behind the tables. */
static void csv_seeds(FILE *f, void *ctx) {
  const study *S = (const study *)ctx;
  static const char *const cols[SV_N] = {
      "final_eval_sgd", "final_eval_adam", "final_eval_sgd_over_adam",
      "R_sgd_750", "R_sgd_1250", "R_adam_750", "R_adam_1250",
      "R_sgd_over_adam_750", "R_sgd_over_adam_1250",
      "lmax_over_lmed_sgd_750", "lmax_over_lmed_sgd_1250",
      "lmax_over_lmed_adam_750", "lmax_over_lmed_adam_1250",
      "lratio_sgd_over_adam_750", "lratio_sgd_over_adam_1250",
      "loglog_corr_smoothness_gradnorm_adam"};
  char a[32];
  int s, k;
  fprintf(f, "seed,status_sgd,status_adam");
  for (k = 0; k < SV_N; ++k) fprintf(f, ",%s", cols[k]);
  fputc('\n', f);
  for (s = 0; s < S->seeds; ++s) {
    fprintf(f, "%d,%s,%s", s + 1,
            S->logs[2 * s].status[0] ? S->logs[2 * s].status : "missing",
            S->logs[2 * s + 1].status[0] ? S->logs[2 * s + 1].status : "missing");
    for (k = 0; k < SV_N; ++k) fprintf(f, ",%s", csv_num(a, S->v[k][s]));
    fputc('\n', f);
  }
}

/* The table of the robust condition numbers, beside paper A's. */
static void report_rcond(FILE *f, const study *S) {
  char a[80], b[80], c[80], d[80], e[80], p[80];
  stats s;
  int t, any = 0;
  fprintf(f,
          "| iteration | R_SGD | R_Adam | R_SGD / R_Adam, mean \xc2\xb1 sd "
          "| median [IQR] | R_SGD > R_Adam | verdict | paper A, mean (std) |\n"
          "|---|---|---|---|---|---|---|---|\n");
  for (t = 0; t < 2; ++t) {
    stats_of(S->v[SV_R_SGD + t], S->seeds, &s);
    fmt_miqr(a, sizeof a, &s);
    stats_of(S->v[SV_R_ADAM + t], S->seeds, &s);
    fmt_miqr(b, sizeof b, &s);
    fmt_msd(c, sizeof c, S->v[SV_R_RATIO + t], S->seeds);
    stats_of(S->v[SV_R_RATIO + t], S->seeds, &s);
    fmt_miqr(d, sizeof d, &s);
    if (S->paper)
      snprintf(p, sizeof p, "%.3g (%.3g)", S->paper->mean[t], S->paper->sd[t]);
    else
      snprintf(p, sizeof p, "not given");
    fprintf(f, "| %.0f | %s | %s | %s | **%s** | %s | %s | %s |\n", repro_at[t],
            a, b, c, d, fmt_seeds(e, sizeof e, &S->r[t]),
            verdict_word(S->r[t].v), p);
  }
  fprintf(f,
          "\nR = max|diag H| / median|diag H| (paper A's code), medians and "
          "interquartile ranges over the seeds; the ratio is taken seed by "
          "seed. lambda_max / lambda_median (paper A's text), SGD's over "
          "Adam's:\n\n| iteration | median [IQR] | seeds where both medians "
          "are resolved |\n|---|---|---|\n");
  for (t = 0; t < 2; ++t) {
    int m = 0, i;
    for (i = 0; i < S->seeds; ++i) m += S->v[SV_L_RATIO + t][i] == S->v[SV_L_RATIO + t][i];
    stats_of(S->v[SV_L_RATIO + t], S->seeds, &s);
    if (m) fmt_miqr(a, sizeof a, &s);
    else snprintf(a, sizeof a, "not resolved");
    fprintf(f, "| %.0f | %s | %d of %d |\n", repro_at[t], a, m, S->seeds);
    any += m;
  }
  (void)any;
}

/* The study's report.md (and summary.md: its tables alone, for other
   documents to include). */
static int study_report(const study *S, const int *has, double wall) {
  const la_run_config *r = &S->rc[0];
  char path[4300], a[80], b[80], c[80], d[80], e[32], g[32], h[32], pname[32];
  stats s;
  u_out md;
  int o, st, pass;
  snprintf(path, sizeof path, "%.4000s/seeds.csv", S->dir);
  if ((st = write_svg(path, csv_seeds, (void *)S)) != 0) return st;
  cli_field_text(r, la_run_field_find("param"), pname, sizeof pname);
  for (pass = 0; pass < 2; ++pass) { /* report.md, then summary.md */
    FILE *f;
    snprintf(path, sizeof path, "%.4000s/%s", S->dir, pass ? "summary.md" : "report.md");
    if ((st = u_open(&md, path)) != 0) return st;
    f = md.f;
    if (!pass) {
      fprintf(f, "# Paper A, %s: SGD against Adam%s\n\n", S->title,
              S->base.full ? "" : " (quick form)");
      fprintf(f,
              "Linear transformer, L = %d, d = %d, n = %d, %s parametrization%s "
              "(%ld parameters), %d fresh prompts per step, %ld steps, %d seed%s "
              "per optimizer, global gradient clipping at %g. SGD with momentum "
              "0.9 at learning rate %s (%s); Adam with beta1 = beta2 = 0.9 at %s "
              "(%s). Evaluation loss on a fixed batch of %d prompts every %d "
              "steps; robust condition numbers on a fixed batch of %d every %d "
              "steps%s; directional smoothness every %d steps. Runs: %s. "
              "Backend %s, %s; wall time %.1f s.\n\n",
              r->model.layers, r->data.d, r->data.n, pname,
              r->model.front_hidden > 0 ? " behind a trainable ReLU front MLP" : "",
              run_nparams(r), r->batch, r->steps, S->seeds, S->seeds == 1 ? "" : "s",
              r->clip_norm, fmt_num(a, sizeof a, S->lr[0], 3), lr_origin(S, 0),
              fmt_num(b, sizeof b, S->lr[1], 3), lr_origin(S, 1), r->eval_batch,
              r->eval_every, r->measure.diag_batch, r->measure.diag_every,
              r->measure.diag_every > 0 ? "" : " (not measured: 0)",
              r->measure.smooth_every, (fmt_incomplete(c, sizeof c, S), c),
              la_backend_name(), precision_name, wall);
      if (has[FIG_TUNE])
        fprintf(f,
                "Learning rates: paper A's code lists them for L = 3; here each "
                "tuned one is the best of a grid of %d (the code's rate times "
                "2^-6 .. 2^3) by the median of the last five evaluation losses "
                "of a %ld-step run on seed %d, none of the seeds reported "
                "(`tune.csv`).\n\n![learning-rate tuning](tune.svg)\n\n",
                TUNE_GRID, S->tune_steps, TUNE_SEED);
      fputs(rule_text, f);
      fprintf(f, "## Loss\n\n");
      if (has[FIG_LOSS]) fprintf(f, "![evaluation loss](loss.svg)\n\n");
      fprintf(f,
              "| final evaluation loss | mean \xc2\xb1 sd | median [IQR] | "
              "runs that diverged |\n|---|---|---|---|\n");
      for (o = 0; o < 2; ++o) {
        int dv = 0, i;
        double *fin = S->v[o ? SV_FIN_ADAM : SV_FIN_SGD];
        for (i = 0; i < S->seeds; ++i) dv += S->ok[2 * i + o] == 0;
        fmt_msd(a, sizeof a, fin, S->seeds);
        stats_of(fin, S->seeds, &s);
        fmt_miqr(b, sizeof b, &s);
        fprintf(f, "| %s | %s | %s | %d |\n", o ? "Adam" : "SGD", a, b, dv);
      }
      stats_of(S->v[SV_LOSS_RATIO], S->seeds, &s);
      fmt_miqr(a, sizeof a, &s);
      fprintf(f,
              "\nAdam ends lower in %s; SGD's final loss over Adam's, seed by "
              "seed: %s (median [IQR]). Per seed: `seeds.csv`.\n\n",
              fmt_seeds(b, sizeof b, &S->loss), a);
      fprintf(f, "## Gradient noise at initialization\n\n");
      if (S->has_noise) {
        const jv *n = &S->noise;
        fprintf(f,
                "![noise](noise.svg)\n\n%d minibatches of %d prompts against "
                "the gradient of %d prompts (seed 1's initial theta). "
                "||g_B - g||: mean %s, sd %s, kurtosis %s (a Gaussian has 3; "
                "heavy above %s), Hill tail index %s \xc2\xb1 %s, largest "
                "sample %s standard deviations above the mean.\n\n",
                (int)jv_num(n, "samples"), (int)jv_num(n, "minibatch"),
                (int)jv_num(n, "true_batch"), fmt_num(a, sizeof a, jv_num(n, "mean"), 4),
                fmt_num(b, sizeof b, sqrt(jv_num(n, "var")), 4),
                fmt_num(c, sizeof c, jv_num(n, "kurtosis"), 3),
                fmt_num(d, sizeof d, S->kurt_limit, 3),
                fmt_num(e, sizeof e, jv_num(n, "hill_alpha"), 3),
                fmt_num(g, sizeof g, jv_num(n, "hill_stderr"), 2),
                fmt_num(h, sizeof h,
                        (jv_num(n, "max") - jv_num(n, "mean")) / sqrt(jv_num(n, "var")), 3));
      } else {
        fprintf(f, "Not measured: the measurement failed (`noise.json` is missing).\n\n");
      }
      fprintf(f, "## Robust condition number\n\n");
      if (has[FIG_RCOND]) fprintf(f, "![robust condition number](rcond.svg)\n\n");
    } else {
      fprintf(f, "Robust condition number, %s:\n\n", S->title);
    }
    if (r->measure.diag_every > 0) report_rcond(f, S);
    else fprintf(f, "Not measured in this form (--diag-every 0).\n");
    if (!pass) {
      fprintf(f, "\n## Directional smoothness\n\n");
      if (has[FIG_SMOOTH]) fprintf(f, "![directional smoothness](smoothness.svg)\n\n");
      else fprintf(f, "Not measured.\n\n");
      fprintf(f, "## Gradient norm and smoothness\n\n");
      if (has[FIG_SCATTER]) {
        stats_of(S->v[SV_CORR], S->seeds, &s);
        fmt_miqr(a, sizeof a, &s);
        fprintf(f,
                "![gradient norm against smoothness](gnorm_smoothness.svg)\n\n"
                "Adam, first %ld steps, %d pairs (||grad f||, u^T H u) on the "
                "fixed batch. Correlation of their logarithms, seed by seed: "
                "%s (median [IQR]); above 0.5 in %s. (L0, L1) over all the "
                "pairs: least squares %s, %s; the tightest line above every "
                "pair %s, %s.\n\n",
                pairs_until(S), S->fit.used, a, fmt_seeds(b, sizeof b, &S->corr),
                fmt_num(c, sizeof c, S->fit.l0_ls, 3),
                fmt_num(d, sizeof d, S->fit.l1_ls, 3),
                fmt_num(e, sizeof e, S->fit.l0_env, 3),
                fmt_num(g, sizeof g, S->fit.l1_env, 3));
      } else {
        fprintf(f, "No pairs: the smoothness was not measured.\n\n");
      }
    }
    fprintf(f, "\n%s| paper A's claim | seeds where it holds | median | verdict |\n"
               "|---|---|---|---|\n",
            pass ? "" : "## Against paper A\n\n");
    stats_of(S->v[SV_LOSS_RATIO], S->seeds, &s);
    fprintf(f, "| Adam's final loss below SGD's | %s | SGD / Adam %s | %s |\n",
            fmt_seeds(a, sizeof a, &S->loss), fmt_num(b, sizeof b, s.med, 3),
            verdict_word(S->loss.v));
    for (o = 0; o < 2 && r->measure.diag_every > 0; ++o)
      fprintf(f, "| R_SGD > R_Adam at %.0f | %s | %s | %s |\n", repro_at[o],
              fmt_seeds(a, sizeof a, &S->r[o]),
              fmt_num(b, sizeof b, S->r[o].median, 3), verdict_word(S->r[o].v));
    if (S->has_noise)
      fprintf(f, "| heavy right tail of the noise | one measurement | kurtosis "
                 "%s (limit %s) | %s |\n",
              fmt_num(a, sizeof a, jv_num(&S->noise, "kurtosis"), 3),
              fmt_num(b, sizeof b, S->kurt_limit, 3),
              S->heavy ? "holds" : "does not hold");
    fprintf(f, "| smoothness and gradient norm move together (log-log correlation > 0.5) "
               "| %s | %s | %s |\n",
            fmt_seeds(a, sizeof a, &S->corr), fmt_num(b, sizeof b, S->corr.median, 2),
            verdict_word(S->corr.v));
    if (!pass)
      fprintf(f,
              "\nRuns: `runs/*.jsonl` (one JSON object per line)%s; noise: "
              "`noise.json`. Beside each figure its numbers as CSV "
              "(`loss.csv`, ...); `seeds.csv` holds each seed's numbers "
              "behind the tables.\n",
              has[FIG_TUNE] ? ", tuning runs `tune/*.jsonl`" : "");
    if ((st = u_commit(&md)) != 0) return st;
  }
  return 0;
}

/* ------------------------------------------------------------ --all */
/* Paper A's depth study: the phenomena against L (it finds them stronger
   with depth), one panel each: the final losses, R_SGD / R_Adam, the
   noise's kurtosis, and how closely smoothness follows the gradient norm.
   Points: the median over the seeds, bars: the interquartile range. */
typedef struct depth_fig {
  const study *const *s; /* the depth studies, by L */
  int n;
} depth_fig;

/* The median and quartiles of per-seed value k of each study, at x = L. */
static void depth_series(const depth_fig *D, int k, double *x, double *m,
                         double *q1, double *q3) {
  int i;
  for (i = 0; i < D->n; ++i) {
    stats s;
    stats_of(D->s[i]->v[k], D->s[i]->seeds, &s);
    x[i] = D->s[i]->rc[0].model.layers;
    m[i] = s.med;
    q1[i] = s.q1;
    q3[i] = s.q3;
  }
}

static void depth_panel(svg_fig *g, double px, double py, const char *title,
                        const char *ylabel, int logy, const depth_fig *D,
                        const int *keys, const char *const *labels, int nkeys,
                        int color0, double ref, const char *ref_label) {
  double x[REPRO_NFORMS], m[4][REPRO_NFORMS], q1[4][REPRO_NFORMS],
      q3[4][REPRO_NFORMS], all[12 * REPRO_NFORMS + 1], rx[2], ry[2];
  svg_axis ax = {1, 9, 0, "attention layers L"}, ay = {0, 1, 0, NULL};
  svg_plot p;
  int i, j, n = 0, drawn = 0;
  for (j = 0; j < nkeys; ++j) {
    depth_series(D, keys[j], x, m[j], q1[j], q3[j]);
    for (i = 0; i < D->n; ++i) {
      all[n++] = m[j][i];
      all[n++] = q1[j][i];
      all[n++] = q3[j][i];
    }
  }
  if (ref == ref) all[n++] = ref;
  ay.log = logy;
  ay.label = ylabel;
  if (!svg_range(all, n, logy, &ay.lo, &ay.hi)) ay.lo = logy ? 0.1 : 0, ay.hi = 1;
  svg_panel(&p, g, px, py, 500, 350, title, ax, ay);
  svg_axes(&p);
  if (ref == ref) { /* the claim's threshold */
    rx[0] = ax.lo;
    rx[1] = ax.hi;
    ry[0] = ry[1] = ref;
    svg_line(&p, rx, ry, 2, "#888888", 1.2, 1);
    svg_legend(&p, ref_label, "#888888", SVG_DASHED);
  }
  for (j = 0; j < nkeys; ++j) {
    const char *col = svg_palette[(color0 + j) % SVG_NPALETTE];
    double xs[REPRO_NFORMS];
    int any = 0;
    for (i = 0; i < D->n; ++i) any |= svg_ok(&ay, m[j][i]);
    if (!any) continue; /* not measured: no legend entry for it either */
    drawn++;
    /* side by side: the series of one L a little apart */
    for (i = 0; i < D->n; ++i) xs[i] = x[i] + (nkeys > 1 ? 0.12 * (2 * j - (nkeys - 1)) : 0);
    svg_errbar(&p, xs, q1[j], q3[j], D->n, col);
    svg_line(&p, xs, m[j], D->n, col, 2, 0);
    svg_markers(&p, xs, m[j], D->n, col, SVG_DOT, 3.5);
    svg_legend(&p, labels[j], col, SVG_LINEDOT);
  }
  if (!drawn) /* an empty frame would read as a failed drawing */
    svg_note(&p, 5, logy ? pow(ay.lo, 0.2) * pow(ay.hi, 0.8) : 0.2 * ay.lo + 0.8 * ay.hi, 0, 0,
             "middle", "#555555", "not measured in this form");
  svg_close(&p);
}

/* Under panel (a)'s points: how many runs of each optimizer diverged at
   each depth (their loss is no point on a log axis). */
static void depth_diverged(svg_fig *g, const depth_fig *D) {
  svg_plot p;
  svg_axis ax = {1, 9, 0, NULL}, ay = {0, 1, 0, NULL};
  int i, o;
  /* an invisible panel over panel (a)'s plotting area: its coordinates */
  memset(&p, 0, sizeof p);
  svg_panel(&p, g, 0, 30, 500, 350, NULL, ax, ay);
  p.mt = 26; /* panel (a) has a title */
  g->panels--;
  for (i = 0; i < D->n; ++i)
    for (o = 0; o < 2; ++o) {
      const study *S = D->s[i];
      char txt[64];
      int s, dv = 0;
      for (s = 0; s < S->seeds; ++s) dv += S->ok[2 * s + o] == 0;
      if (!dv) continue;
      /* short enough that the labels of neighbouring depths stay apart */
      snprintf(txt, sizeof txt, "%s %d/%d diverged", o ? "Adam" : "SGD", dv, S->seeds);
      svg_note(&p, S->rc[0].model.layers, 0, 0, -8 - 13 * (1 - o), "middle",
               svg_palette[o], txt);
    }
}

static void draw_depth(FILE *f, void *ctx) {
  const depth_fig *D = (const depth_fig *)ctx;
  static const int loss_keys[2] = {SV_FIN_SGD, SV_FIN_ADAM};
  static const char *const loss_labels[2] = {"SGD: final evaluation loss",
                                             "Adam: final evaluation loss"};
  static const int r_keys[2] = {SV_R_RATIO, SV_R_RATIO + 1};
  static const char *const r_labels[2] = {"R_SGD / R_Adam at iteration 750",
                                          "R_SGD / R_Adam at iteration 1250"};
  static const int c_keys[1] = {SV_CORR};
  static const char *const c_labels[1] = {
      "Adam: log-log correlation of smoothness and gradient norm"};
  double x[REPRO_NFORMS], k[REPRO_NFORMS], lim = 3, rx[2], ry[2], all[REPRO_NFORMS + 2];
  svg_axis ax = {1, 9, 0, "attention layers L"}, ay = {0, 1, 0, "kurtosis of ||g_B - g||"};
  svg_fig g;
  svg_plot p;
  int i;
  svg_fig_open(&g, f, 1000, 740, "Paper A's phenomena against depth (Setting 1; median over the seeds, bars: interquartile range)");
  depth_panel(&g, 0, 30, "(a) final evaluation loss", "final evaluation loss (log scale)", 1, D,
              loss_keys, loss_labels, 2, 0, NAN, "");
  depth_diverged(&g, D);
  depth_panel(&g, 500, 30, "(b) robust condition number, SGD over Adam", "R_SGD / R_Adam (log scale)", 1,
              D, r_keys, r_labels, 2, 2, 1, "dashed grey: the claim's threshold");
  for (i = 0; i < D->n; ++i) {
    x[i] = D->s[i]->rc[0].model.layers;
    k[i] = D->s[i]->has_noise ? jv_num(&D->s[i]->noise, "kurtosis") : NAN;
    all[i] = k[i];
    if (D->s[i]->has_noise) lim = fmax(lim, D->s[i]->kurt_limit);
  }
  all[D->n] = lim;
  all[D->n + 1] = 3;
  if (!svg_range(all, D->n + 2, 0, &ay.lo, &ay.hi)) ay.lo = 2, ay.hi = 4;
  svg_panel(&p, &g, 0, 390, 500, 350, "(c) gradient noise at initialization", ax, ay);
  svg_axes(&p);
  rx[0] = ax.lo;
  rx[1] = ax.hi;
  ry[0] = ry[1] = lim;
  svg_line(&p, rx, ry, 2, "#888888", 1.2, 1);
  svg_line(&p, x, k, D->n, svg_palette[4], 2, 0);
  svg_markers(&p, x, k, D->n, svg_palette[4], SVG_DOT, 3.5);
  svg_legend(&p, "kurtosis of the noise (seed 1)", svg_palette[4], SVG_LINEDOT);
  svg_close(&p);
  depth_panel(&g, 500, 390, "(d) smoothness against gradient norm", "correlation of the logarithms", 0, D,
              c_keys, c_labels, 1, 1, 0.5, "dashed grey: the claim's threshold");
  svg_fig_close(&g);
}

static void csv_depth(FILE *f, void *ctx) {
  const depth_fig *D = (const depth_fig *)ctx;
  static const int keys[5] = {SV_FIN_SGD, SV_FIN_ADAM, SV_R_RATIO, SV_R_RATIO + 1, SV_CORR};
  static const char *const names[5] = {
      "final_eval_sgd", "final_eval_adam", "R_sgd_over_adam_750",
      "R_sgd_over_adam_1250", "loglog_corr_smoothness_gradnorm_adam"};
  char a[32], b[32], c[32];
  int i, j;
  fprintf(f, "quantity,L,median,q1,q3,seeds_with_value,seeds\n");
  for (j = 0; j < 5; ++j)
    for (i = 0; i < D->n; ++i) {
      stats s;
      stats_of(D->s[i]->v[keys[j]], D->s[i]->seeds, &s);
      fprintf(f, "%s,%d,%s,%s,%s,%d,%d\n", names[j], D->s[i]->rc[0].model.layers,
              csv_num(a, s.med), csv_num(b, s.q1), csv_num(c, s.q3), s.n,
              D->s[i]->seeds);
    }
  for (i = 0; i < D->n; ++i)
    fprintf(f, "noise_kurtosis,%d,%s,,,1,1\n", D->s[i]->rc[0].model.layers,
            csv_num(a, D->s[i]->has_noise ? jv_num(&D->s[i]->noise, "kurtosis") : NAN));
}

/* Heavy-tailed against spherical covariates side by side: the noise (log
   density) and the losses of Setting 3 and of the spherical setting. */
/* Two studies side by side: the noise at initialization above, the
   evaluation loss below (Setting 3 against spherical covariates; linear
   against softmax attention). */
typedef struct tails_fig {
  const study *s[2];
  curve c[2][2];
  const char *title;
} tails_fig;

static void draw_tails(FILE *f, void *ctx) {
  tails_fig *T = (tails_fig *)ctx;
  svg_fig g;
  int i;
  svg_fig_open(&g, f, 1040, 800, T->title);
  for (i = 0; i < 2; ++i) {
    const study *S = T->s[i];
    char title[200];
    double *hist = NULL, *edges = NULL;
    noise_hist nh;
    curves_fig cf;
    snprintf(title, sizeof title, "gradient noise at initialization, %s", S->title);
    if (S->has_noise && noise_of(&S->noise, &nh, &hist, &edges))
      noise_panel(&g, 520.0 * i, 30, 520, 390, title, &nh, 1);
    free(hist);
    free(edges);
    snprintf(title, sizeof title, "evaluation loss, %s", S->title);
    cf.title = title;
    cf.xlabel = "iteration";
    cf.ylabel = "evaluation loss (log scale)";
    cf.logy = 1;
    cf.c = T->c[i];
    cf.n = 2;
    curves_panel(&g, 520.0 * i, 420, 520, 380, title, &cf);
  }
  svg_fig_close(&g);
}

static void csv_tails(FILE *f, void *ctx) {
  tails_fig *T = (tails_fig *)ctx;
  int i, o, j;
  char a[32], b[32], c[32];
  fprintf(f, "panel,series,x,y,y_low,y_high\n");
  for (i = 0; i < 2; ++i) {
    const study *S = T->s[i];
    double *hist = NULL, *edges = NULL;
    noise_hist nh;
    if (S->has_noise && noise_of(&S->noise, &nh, &hist, &edges))
      for (j = 0; j < nh.bins; ++j)
        fprintf(f, "noise %s,density of the bin (x: its centre),%.10g,%s,,\n", S->key,
                0.5 * (edges[j] + edges[j + 1]), csv_num(a, hist[j]));
    free(hist);
    free(edges);
    for (o = 0; o < 2; ++o) {
      const band *bd = &T->c[i][o].b;
      for (j = 0; j < bd->n; ++j)
        fprintf(f, "loss %s,%s median (min to max),%.10g,%s,%s,%s\n", S->key,
                opt_names[o], bd->x[j], csv_num(a, bd->med[j]), csv_num(b, bd->lo[j]),
                csv_num(c, bd->hi[j]));
    }
  }
}

/* One row per study of the table over every study. */
static void csv_summary(FILE *f, void *ctx) {
  const repro *R = (const repro *)ctx;
  char a[32], b[32], c[32], d[32], e[32], g[32], h[32];
  int i, t;
  fprintf(f, "study,L,d,n,lr_sgd,lr_adam,seeds,diverged,failed,"
             "final_sgd_median,final_adam_median,adam_lower_seeds,loss_verdict,"
             "ratio750_mean,ratio750_sd,ratio750_median,sgd_higher750_seeds,"
             "ratio1250_mean,ratio1250_sd,ratio1250_median,sgd_higher1250_seeds,"
             "paperA_ratio750_mean,paperA_ratio750_sd,paperA_ratio1250_mean,"
             "paperA_ratio1250_sd,kurtosis,kurtosis_limit,corr_median,corr_seeds\n");
  for (i = 0; i < R->ns; ++i) {
    const study *S = &R->s[i];
    stats s0, s1;
    stats_of(S->v[SV_FIN_SGD], S->seeds, &s0);
    stats_of(S->v[SV_FIN_ADAM], S->seeds, &s1);
    fprintf(f, "%s,%d,%d,%d,%.6g,%.6g,%d,%d,%d,%s,%s,%d,%s", S->key,
            S->rc[0].model.layers, S->rc[0].data.d, S->rc[0].data.n, S->lr[0],
            S->lr[1], S->seeds, S->diverged, S->failed, csv_num(a, s0.med),
            csv_num(b, s1.med), S->loss.yes, verdict_word(S->loss.v));
    for (t = 0; t < 2; ++t) {
      stats s;
      stats_of(S->v[SV_R_RATIO + t], S->seeds, &s);
      fprintf(f, ",%s,%s,%s,%d", csv_num(c, s.mean), csv_num(d, s.sd),
              csv_num(e, s.med), S->r[t].yes);
    }
    for (t = 0; t < 2; ++t)
      fprintf(f, ",%s,%s", csv_num(g, S->paper ? S->paper->mean[t] : NAN),
              csv_num(h, S->paper ? S->paper->sd[t] : NAN));
    fprintf(f, ",%s,%s,%s,%d\n",
            csv_num(a, S->has_noise ? jv_num(&S->noise, "kurtosis") : NAN),
            csv_num(b, S->has_noise ? S->kurt_limit : NAN),
            csv_num(c, S->corr.median), S->corr.yes);
  }
}

/* The report over every study, each number beside paper A's. */
static int repro_summary(repro *R, double wall) {
  char path[4300], a[80], b[80], c[80], d[80], e[80];
  const study *depth[REPRO_NFORMS];
  depth_fig D;
  tails_fig T;
  u_out md;
  int i, t, nd = 0, st, has_depth = 0, has_tails = 0;
  const int attn = R->c->compare_attention != 0;
  FILE *f;
  memset(&T, 0, sizeof T);
  for (i = 0; i < R->ns; ++i) {
    if (!strncmp(R->s[i].key, "depth-", 6)) depth[nd++] = &R->s[i];
    if (!strcmp(R->s[i].key, attn ? repro_attentions[0] : "setting-3")) T.s[0] = &R->s[i];
    if (!strcmp(R->s[i].key, attn ? repro_attentions[1] : "sphere")) T.s[1] = &R->s[i];
  }
  T.title = attn ? "Linear against softmax attention"
                 : "Heavy-tailed (Setting 3) against spherical covariates";
  D.s = depth;
  D.n = nd;
  if (nd > 0) {
    snprintf(path, sizeof path, "%.4000s/depth.svg", R->dir);
    if ((st = write_figure(path, draw_depth, csv_depth, &D)) != 0) return st;
    has_depth = 1;
  }
  if (T.s[0] && T.s[1]) {
    int o, bad = 0;
    for (i = 0; i < 2; ++i)
      for (o = 0; o < 2; ++o) {
        runlog **r = study_runs(T.s[i], o);
        if (!r || band_make(r, T.s[i]->seeds, F_EVAL, &T.c[i][o].b)) bad = 1;
        T.c[i][o].label = opt_titles[o];
        free(r);
      }
    snprintf(path, sizeof path, "%.4000s/%s.svg", R->dir, attn ? "attention" : "tails");
    st = bad ? u_oom() : write_figure(path, draw_tails, csv_tails, &T);
    for (i = 0; i < 2; ++i)
      for (o = 0; o < 2; ++o) band_free(&T.c[i][o].b);
    if (st) return st;
    has_tails = 1;
  }
  snprintf(path, sizeof path, "%.4000s/summary.csv", R->dir);
  if ((st = write_svg(path, csv_summary, R)) != 0) return st;
  snprintf(path, sizeof path, "%.4000s/report.md", R->dir);
  if ((st = u_open(&md, path)) != 0) return st;
  f = md.f;
  if (attn)
    fprintf(f, "# Paper A's comparison under linear and softmax attention%s\n\n"
               "The same study twice, the attention the only difference "
               "(softmax: each token's scores over the n keys normalized, "
               "docs/library.md; its learning rates tuned); paper A's numbers are for linear attention.\n\n",
            R->c->full ? "" : " (quick form)");
  else
    fprintf(f, "# Paper A, every experiment%s\n\n",
            R->c->full ? "" : " (quick forms)");
  fprintf(f,
          "%d studies of momentum SGD (0.9) against Adam (betas 0.9, 0.9), "
          "each in its folder with its own report, figures and runs. Backend "
          "%s, %s; wall time %.1f s. The numbers of every table: "
          "`summary.csv`; each study's seeds: `STUDY/seeds.csv`.\n\n",
          R->ns, la_backend_name(), precision_name, wall);
  fputs(rule_text, f);
  fprintf(f, "## Loss: Adam ends below SGD (paper A: in every setting)\n\n"
             "| study | L, d, n | lr SGD / Adam | runs | final loss SGD, median [IQR] "
             "| Adam | Adam lower in | verdict |\n|---|---|---|---|---|---|---|---|\n");
  for (i = 0; i < R->ns; ++i) {
    const study *S = &R->s[i];
    stats s0, s1;
    char lr[80], runs[80];
    stats_of(S->v[SV_FIN_SGD], S->seeds, &s0);
    stats_of(S->v[SV_FIN_ADAM], S->seeds, &s1);
    fmt_miqr(a, sizeof a, &s0);
    fmt_miqr(b, sizeof b, &s1);
    snprintf(lr, sizeof lr, "%s / %s%s", fmt_num(c, 32, S->lr[0], 3),
             fmt_num(d, 32, S->lr[1], 3),
             S->lr_from[0] == LR_TUNED || S->lr_from[1] == LR_TUNED ? " (tuned)" : "");
    fmt_incomplete(runs, sizeof runs, S);
    fprintf(f, "| [%s](%s/report.md) | %d, %d, %d | %s | %s | %s | %s | %s | %s |\n",
            S->title, S->key, S->rc[0].model.layers, S->rc[0].data.d,
            S->rc[0].data.n, lr, runs, a, b, fmt_seeds(e, sizeof e, &S->loss),
            verdict_word(S->loss.v));
  }
  fprintf(f, "\n## R_SGD / R_Adam (paper A: above 1)\n\n"
             "Robust condition number max|diag H| / median|diag H|, the ratio "
             "seed by seed.\n\n"
             "| study | iteration | mean \xc2\xb1 sd | median [IQR] | R_SGD > R_Adam | "
             "verdict | paper A, mean (std) over 6 seeds |\n|---|---|---|---|---|---|---|\n");
  for (i = 0; i < R->ns; ++i) {
    const study *S = &R->s[i];
    for (t = 0; t < 2; ++t) {
      stats s;
      if (S->paper) snprintf(c, sizeof c, "%.3g (%.3g)", S->paper->mean[t], S->paper->sd[t]);
      else snprintf(c, sizeof c, "not given");
      if (S->rc[0].measure.diag_every <= 0) { /* paper A's number still shown */
        if (!t || S->paper)
          fprintf(f, "| %s | %s | not measured in this form | | | | %s |\n",
                  t ? "" : S->title, S->paper ? (t ? "1250" : "750") : "",
                  S->paper ? c : "");
        continue;
      }
      fmt_msd(a, sizeof a, S->v[SV_R_RATIO + t], S->seeds);
      stats_of(S->v[SV_R_RATIO + t], S->seeds, &s);
      fmt_miqr(b, sizeof b, &s);
      fprintf(f, "| %s | %.0f | %s | %s | %s | %s | %s |\n", t ? "" : S->title,
              repro_at[t], a, b, fmt_seeds(d, sizeof d, &S->r[t]),
              verdict_word(S->r[t].v), c);
    }
  }
  fprintf(f, "\n## Gradient noise (paper A: heavy-tailed, except with spherical covariates)\n\n"
             "| study | kurtosis | heavy above | Hill tail index | heavy tail |\n"
             "|---|---|---|---|---|\n");
  for (i = 0; i < R->ns; ++i) {
    const study *S = &R->s[i];
    if (!S->has_noise) {
      fprintf(f, "| %s | not measured | | | |\n", S->title);
      continue;
    }
    fprintf(f, "| %s | %s | %s | %s | %s |\n", S->title,
            fmt_num(a, sizeof a, jv_num(&S->noise, "kurtosis"), 3),
            fmt_num(b, sizeof b, S->kurt_limit, 3),
            fmt_num(c, sizeof c, jv_num(&S->noise, "hill_alpha"), 3),
            S->heavy ? "holds" : "does not hold");
  }
  fprintf(f, "\n## Smoothness follows the gradient norm (paper A: (L0, L1)-smooth)\n\n"
             "| study | log-log correlation, median [IQR] | above 0.5 in | verdict |\n"
             "|---|---|---|---|\n");
  for (i = 0; i < R->ns; ++i) {
    const study *S = &R->s[i];
    stats s;
    stats_of(S->v[SV_CORR], S->seeds, &s);
    fmt_miqr(a, sizeof a, &s);
    fprintf(f, "| %s | %s | %s | %s |\n", S->title, a, fmt_seeds(b, sizeof b, &S->corr),
            verdict_word(S->corr.v));
  }
  if (has_depth)
    fprintf(f, "\n## Depth (paper A: the phenomena grow stronger with depth)\n\n"
               "![the phenomena against depth](depth.svg)\n\nEach depth's "
               "learning rates are tuned (paper A's code lists them for "
               "L = 3 only); see each study's `tune.svg`.\n");
  if (has_tails && attn)
    fprintf(f, "\n## Linear against softmax attention\n\n"
               "![linear against softmax attention](attention.svg)\n\n"
               "The gradient noise at initialization and the evaluation loss "
               "of SGD and Adam under each attention; the tables above give "
               "each phenomenon's verdict under both.\n");
  else if (has_tails)
    fprintf(f, "\n## Heavy-tailed against spherical covariates\n\n"
               "![Setting 3 against spherical covariates](tails.svg)\n\n"
               "Paper A: with spherical covariates the noise is light-tailed "
               "and the gap between Adam and SGD shrinks.\n");
  return u_commit(&md);
}

/* Prints a study's verdicts: one line each. */
static void print_study(const study *S) {
  char a[80], b[80], c[80];
  fmt_msd(a, sizeof a, S->v[SV_R_RATIO], S->seeds);
  fmt_msd(b, sizeof b, S->v[SV_R_RATIO + 1], S->seeds);
  printf("%s: Adam lower in %s (%s)", S->title, fmt_seeds(c, sizeof c, &S->loss),
         verdict_word(S->loss.v));
  if (S->rc[0].measure.diag_every > 0)
    printf("; R_SGD / R_Adam (mean \xc2\xb1 sd over %d seeds): iteration 750: %s "
           "(%s), iteration 1250: %s (%s)",
           S->seeds, a, verdict_word(S->r[0].v), b, verdict_word(S->r[1].v));
  printf("\n");
}

/* What repro_report writes into the folder from the runs: removed before
   new runs start, so that a reproduce that fails or is killed leaves no
   report of other runs beside its own. */
static const char *const repro_products[] = {
    "report.md", "loss.svg", "rcond.svg", "smoothness.svg", "noise.svg",
    "gnorm_smoothness.svg", "depth.svg", "tails.svg", "attention.svg"};

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
  int i, st = 0, incomplete = 0;
  memset(&R, 0, sizeof R);
  R.c = c;
  R.dir = c->out ? c->out : "linattn-reproduce";
  R.t0 = u_now();
  /* paper B's experiments would be chosen here, beside --all */
  if (c->all && (cli_given(c, "setting") || cli_given(c, "depth") || c->preset))
    return u_fail(EXIT_BAD_INPUT, "--all runs every setting and depth: give "
                                  "no --setting, --depth or --preset with it");
  if (c->all && (c->lr_sgd == c->lr_sgd || c->lr_adam == c->lr_adam))
    return u_fail(EXIT_BAD_INPUT, "--all takes each study's learning rates "
                                  "(paper A's or tuned): give no --lr-sgd or "
                                  "--lr-adam with it");
  if (c->seeds > 512) return u_fail(EXIT_BAD_INPUT, "--seeds: at most 512");
  if (c->compare_attention && (c->all || cli_given(c, "attention")))
    return u_fail(EXIT_BAD_INPUT, "--compare-attention runs one study under "
                                  "linear and under softmax attention: give "
                                  "no --all or --attention with it");
  R.ns = c->all ? REPRO_NFORMS : c->compare_attention ? 2 : 1;
  if (!(R.s = (study *)calloc((size_t)R.ns, sizeof(study))))
    return u_oom();
  /* a report and figures from before are removed: a failing run leaves none */
  if ((st = u_mkdirs(R.dir)) != 0 || (st = repro_clear(R.dir)) != 0) goto out;
  for (i = 0; i < R.ns && !st; ++i) {
    if (c->all)
      st = study_init(&R, &R.s[i], repro_forms[i].key, repro_forms[i].title,
                      repro_forms[i].preset, repro_forms[i].depth, NULL);
    else if (c->compare_attention)
      st = study_init(&R, &R.s[i], repro_attentions[i], NULL, c->preset, 0,
                      repro_attentions[i]);
    else
      st = study_init(&R, &R.s[i], "", NULL, c->preset, 0, NULL);
    if (!st) st = u_mkdirs(R.s[i].dir);
    if (!st) st = repro_clear(R.s[i].dir);
  }
  if (!st) st = repro_tune(&R);
  if (!st) st = repro_runs(&R);
  for (i = 0; i < R.ns && !st; ++i) {
    int has[FIG_N];
    study *S = &R.s[i];
    if ((st = study_load(S)) != 0 || (st = study_figures(S, has)) != 0 ||
        (st = study_report(S, has, u_now() - R.t0)) != 0)
      break;
    incomplete += S->diverged + S->failed + !S->has_noise;
    print_study(S);
  }
  if (!st && R.ns > 1) st = repro_summary(&R, u_now() - R.t0);
  if (!st) {
    printf("report: %s/report.md\n", R.dir);
    if (incomplete)
      st = u_fail(1, "%d of the runs and measurements did not complete "
                     "(diverged or failed); the report counts them",
                  incomplete);
  }
out:
  for (i = 0; i < R.ns; ++i) study_free(&R.s[i]);
  free(R.s);
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
      if ((st = write_curves(path, &cf)) == 0) /* and FILE.csv beside it */
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
#define REPORT_NOUT (1 + 2 * REPORT_NFIGS) /* report.md, each SVG and CSV */
static int report_outputs(const char *dir, char (*paths)[U_PATH_MAX + 64], u_path *outs) {
  int i;
  snprintf(paths[0], sizeof paths[0], "%s/report.md", dir);
  for (i = 0; i < REPORT_NFIGS; ++i) {
    snprintf(paths[2 * i + 1], sizeof paths[0], "%s/%s", dir, report_figs[i].file);
    csv_path(paths[2 * i + 1], paths[2 * i + 2], sizeof paths[0]);
  }
  for (i = 0; i < REPORT_NOUT; ++i) {
    outs[i].flag = "--out";
    outs[i].path = paths[i];
  }
  return REPORT_NOUT;
}

static int cmd_report(cli_config *c) {
  const char *dir = c->out ? c->out : "linattn-report";
  report R;
  char err[U_QCAP + 200], paths[REPORT_NOUT][U_PATH_MAX + 64];
  u_path outs[REPORT_NOUT], in;
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
    "report.md, the runs' JSON lines, the figures (loss, noise, rcond,\n"
    "smoothness, gnorm_smoothness; tune when tuned) and the CSV behind each\n"
    "(a report and figures already there are removed first).\n"
    "One study: --setting S or --preset NAME (large: L = 8, d = 20, n = 60),\n"
    "--depth L (other than 3: learning rates tuned). --all: every study in\n"
    "one report, beside paper A's numbers, with the depth figure.\n"
    "--compare-attention: the study under linear and under softmax attention\n"
    "(its learning rates tuned), side by side in one report. Default:\n"
    "the quick form of Setting 1 (2000 steps, 4 seeds); --full is paper A's\n"
    "length. The report is written whatever the runs do; exit status 1 when\n"
    "a run diverged or failed.\n",
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
