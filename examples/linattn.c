/* linattn - paper A's and paper B's experiments from the command line.

     linattn reproduce            paper A, Setting 1, quick: report + figures
     linattn train ...            one run, JSON lines, checkpoints, resume
     linattn noise | curvature    measurements at initialization or a checkpoint
     linattn theorem              paper B's closed forms against training
     linattn sweep ... | report   grids of runs, and their merged report

   Every subcommand takes --help. Exit status: 0 done, 1 the work failed (a
   run diverged, a check was off), 2 bad input. Built by `make` into
   build/linattn; C99 + POSIX, the library through its public API only. */
#define _POSIX_C_SOURCE 200809L
#define LINATTN_IMPLEMENTATION
#include "linattn.h"

#include "la_svg.h"
#include "linattn_cli.h"
#include "linattn_json.h"
#include "linattn_runs.h"
#include "linattn_theorem.h"
#include "linattn_util.h"

#include <float.h>
#include <math.h>

/* ================================================================== */
/*                         building one run                           */
/* ================================================================== */

typedef struct run_objs {
  la_data_config dc;
  la_data data;
  la_model model;
  union {
    la_sgd_config sgd;
    la_adam_config adam;
    la_sign_config sign;
    la_adagrad_config adagrad;
    la_rmsprop_config rmsprop;
  } oc;
  la_train_config tc;
  int has_data;
} run_objs;

static const char *const precision_name =
    sizeof(la_real) == 8 ? "double" : "float";

/* A zero that the library reads as zero rather than as "the default". */
static double explicit0(double x) { return x == 0 ? 1e-301 : x; }

static int build_fail(char *err, size_t cap, const char *what, int st) {
  snprintf(err, cap, "%s: %s", what, la_status_str(st));
  return st ? st : LA_ERANGE;
}

static void objs_free(run_objs *o) {
  if (o->has_data) la_data_destroy(&o->data);
  o->has_data = 0;
}

/* The library's objects for a resolved run. */
static int build_run(const cli_run *r, run_objs *o, char *err, size_t cap) {
  la_model_config mc;
  la_train_config *t = &o->tc;
  int st;
  memset(o, 0, sizeof *o);
  la_data_preset(&o->dc, (int)r->setting + 1);
  o->dc.d = (int)r->d;
  o->dc.n = (int)r->n;
  if ((st = la_data_create(&o->data, &o->dc, (uint64_t)r->seed)) != 0)
    return build_fail(err, cap, "data setting", st);
  o->has_data = 1;
  memset(&mc, 0, sizeof mc);
  mc.d = (int)r->d;
  mc.n = (int)r->n;
  mc.layers = (int)r->layers;
  mc.param = (int)r->param;
  mc.activation = (int)r->act;
  mc.front_hidden = (int)r->front;
  mc.init_std = r->init_std;
  if ((st = la_model_init(&o->model, &mc)) != 0)
    return build_fail(err, cap, "model", st);
  switch (r->opt) {
  case CLI_SGD:
    o->oc.sgd.lr = r->lr;
    o->oc.sgd.momentum = r->momentum;
    o->oc.sgd.nesterov = (int)r->nesterov;
    o->oc.sgd.weight_decay = r->wd;
    t->optimizer = la_optimizer_sgd();
    break;
  case CLI_ADAM:
    o->oc.adam.lr = r->lr;
    o->oc.adam.beta1 = explicit0(r->beta1);
    o->oc.adam.beta2 = explicit0(r->beta2);
    o->oc.adam.eps = explicit0(r->eps);
    o->oc.adam.weight_decay = r->wd;
    t->optimizer = la_optimizer_adam();
    break;
  case CLI_SIGN:
  case CLI_NSGD:
    o->oc.sign.lr = r->lr;
    o->oc.sign.momentum = r->momentum;
    o->oc.sign.weight_decay = r->wd;
    t->optimizer = r->opt == CLI_SIGN ? la_optimizer_sign() : la_optimizer_nsgd();
    break;
  case CLI_ADAGRAD:
    o->oc.adagrad.lr = r->lr;
    o->oc.adagrad.eps = explicit0(r->eps);
    o->oc.adagrad.weight_decay = r->wd;
    t->optimizer = la_optimizer_adagrad();
    break;
  default:
    o->oc.rmsprop.lr = r->lr;
    o->oc.rmsprop.eps = explicit0(r->eps);
    o->oc.rmsprop.momentum = r->momentum;
    o->oc.rmsprop.weight_decay = r->wd;
    t->optimizer = la_optimizer_rmsprop();
    break;
  }
  t->optimizer_config = &o->oc;
  if ((st = la_optim_check(t->optimizer, t->optimizer_config)) != 0)
    return build_fail(err, cap, "optimizer settings", st);
  t->model = &o->model;
  t->data = &o->data;
  t->schedule.kind = (int)r->sched;
  t->schedule.warmup = r->warmup;
  t->schedule.period = r->period;
  t->schedule.decay = r->decay;
  t->schedule.total = r->total;
  t->schedule.min_scale = r->min_scale;
  if ((st = la_schedule_check(&t->schedule)) != 0)
    return build_fail(err, cap, "schedule", st);
  t->clip_norm = r->clip;
  t->clip_block = r->clip_block;
  t->batch = (int)r->batch;
  t->data_mode = (int)r->data_mode;
  t->resample_every = (int)r->resample_every;
  t->eval_every = r->eval_every > 0 ? (int)r->eval_every : -1;
  t->eval_batch = (int)r->eval_batch;
  t->seed = (uint64_t)r->seed;
  t->eval_seed = (uint64_t)r->eval_seed;
  return 0;
}

/* The fixed batch of the diagnostics: its own stream of the eval seed. */
#define DIAG_STREAM (LA_STREAM_EVAL - 2)
static int diag_batch(const run_objs *o, const cli_run *r, la_batch *b) {
  la_rng rng;
  int st = la_batch_create(b, (int)r->d, (int)r->n, (int)r->diag_batch);
  if (st) return st;
  la_rng_seed(&rng, (uint64_t)r->eval_seed, DIAG_STREAM);
  if ((st = la_data_sample(&o->data, &rng, b)) != 0) la_batch_destroy(b);
  return st;
}

/* The run's flags into a JSON object (the "config" line). */
static void write_run_json(jw *w, const cli_run *r, const la_model *m) {
  jw_str(w, "setting", cli_setting_names[r->setting]);
  jw_int(w, "depth", r->layers);
  jw_int(w, "d", r->d);
  jw_int(w, "n", r->n);
  jw_str(w, "param", cli_param_names[r->param]);
  jw_str(w, "activation", cli_act_names[r->act]);
  jw_int(w, "front", r->front);
  jw_num(w, "init_std", r->init_std);
  jw_str(w, "opt", cli_opt_names[r->opt]);
  jw_num(w, "lr", r->lr);
  jw_num(w, "momentum", r->momentum);
  jw_num(w, "beta1", r->beta1);
  jw_num(w, "beta2", r->beta2);
  jw_num(w, "eps", r->eps);
  jw_num(w, "weight_decay", r->wd);
  jw_str(w, "schedule", cli_sched_names[r->sched]);
  jw_num(w, "clip", r->clip);
  jw_num(w, "clip_block", r->clip_block);
  jw_int(w, "batch", r->batch);
  jw_int(w, "steps", r->steps);
  jw_int(w, "seed", r->seed);
  jw_int(w, "eval_seed", r->eval_seed);
  jw_str(w, "data", cli_data_names[r->data_mode]);
  jw_int(w, "eval_every", r->eval_every);
  jw_int(w, "diag_every", r->diag_every);
  jw_int(w, "smooth_every", r->smooth_every);
  jw_int(w, "diag_batch", r->diag_batch);
  jw_int(w, "nparams", m->nparams);
  jw_str(w, "backend", la_backend_name());
  jw_str(w, "precision", precision_name);
}

/* ================================================================== */
/*                     flags saved beside a checkpoint                */
/* ================================================================== */

/* FILE.args: one word a line, the resolved flags of the run. */
static int save_args(const cli_config *c, const char *ckpt) {
  char path[4200], buf[8192];
  u_out o;
  int len = cli_run_flags(c, buf, sizeof buf), st;
  if (len < 0) return u_fail(1, "run flags too long to save");
  snprintf(path, sizeof path, "%s.args", ckpt);
  if ((st = u_open(&o, path)) != 0) return st;
  fwrite(buf, 1, (size_t)len, o.f);
  return u_commit(&o);
}

/* Lays the flags saved beside `ckpt` (if any) under the command's own:
   c is rebuilt from FILE.args, then argv is applied again on top. The
   words stay in *keep (freed by the caller). */
static int merge_saved_args(cli_config *c, const char *ckpt, int argc,
                            char **argv, char **keep, char *err, size_t cap) {
  char path[4200], *words[512], *s;
  int n = 0, cmd = c->cmd;
  const char *argv0 = c->argv0;
  snprintf(path, sizeof path, "%s.args", ckpt);
  *keep = u_slurp(path, NULL);
  if (!*keep) return 0; /* no side file: the command's flags alone */
  for (s = *keep; *s && n < 512;) {
    char *nl = strchr(s, '\n');
    words[n++] = s;
    if (!nl) break;
    *nl = 0;
    s = nl + 1;
  }
  cli_defaults(c);
  c->argv0 = argv0;
  c->cmd = CLI_TRAIN;
  if (cli_apply(c, n, words, err, cap) != CLI_OK) {
    char inner[300];
    snprintf(inner, sizeof inner, "%s", err);
    snprintf(err, cap, "%.200s: %.190s", path, inner);
    return CLI_ERROR;
  }
  c->cmd = cmd;
  return cli_apply(c, argc, argv, err, cap);
}

/* ================================================================== */
/*                              train                                 */
/* ================================================================== */

typedef struct train_ctx {
  const cli_run *r;
  run_objs *o;
  FILE *out;
  la_batch diag;
  void *work;
  size_t bytes;
  la_real *prev;
  u_progress *prog;
  int status;
} train_ctx;

static int write_rcond(train_ctx *x, jw *w, const la_real *theta) {
  la_rcond rc;
  int st = la_robust_cond(&x->o->model, theta, &x->diag, NULL, &rc, x->work,
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
  const cli_run *r = x->r;
  long t = rec->step;
  int smooth = r->smooth_every > 0 && t % r->smooth_every == 0;
  int diag = r->diag_every > 0 && t % r->diag_every == 0;
  if (t % r->log_every == 0 || rec->has_eval || smooth || diag ||
      t == r->steps) {
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
      int st = la_dir_smoothness(&x->o->model, x->prev, rec->theta, &x->diag,
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

/* One run as the config says, JSON lines to its --out. The progress goes
   to p (a terminal line, a pool's pipe, or nowhere). */
static int run_train(const cli_config *c, u_progress *p) {
  const cli_run *r = &c->run;
  run_objs o;
  la_trainer tr;
  train_ctx x;
  u_out out;
  char err[300];
  size_t b1, b2;
  double t0 = u_now();
  int st, code = 0;
  long start;
  memset(&x, 0, sizeof x);
  if (build_run(r, &o, err, sizeof err)) {
    objs_free(&o);
    return u_fail(EXIT_BAD_INPUT, "%s", err);
  }
  x.r = r;
  x.o = &o;
  x.prog = p;
  o.tc.callback = train_cb;
  o.tc.user = &x;
  if ((st = la_trainer_create(&tr, &o.tc)) != 0) {
    objs_free(&o);
    return u_fail(EXIT_BAD_INPUT, "cannot set up the run: %s",
                  la_status_str(st));
  }
  if (c->resume && (st = la_checkpoint_load(&tr, c->resume)) != 0) {
    la_trainer_destroy(&tr);
    objs_free(&o);
    return u_fail(EXIT_BAD_INPUT, "cannot resume from '%s': %s", c->resume,
                  la_status_str(st));
  }
  start = tr.step;
  b1 = la_rcond_work_bytes(&o.model, NULL);
  b2 = la_dir_smoothness_work_bytes(&o.model);
  x.bytes = b1 > b2 ? b1 : b2;
  x.work = x.bytes ? malloc(x.bytes) : NULL; /* 0: no valid model */
  x.prev = (la_real *)malloc(sizeof(la_real) * (size_t)o.model.nparams);
  if (!x.work || !x.prev || diag_batch(&o, r, &x.diag) != 0) {
    code = u_fail(1, "out of memory");
    goto done;
  }
  memcpy(x.prev, tr.theta, sizeof(la_real) * (size_t)tr.n);
  if ((code = u_open(&out, c->out)) != 0) goto done;
  x.out = out.f;
  {
    jw w;
    jw_begin(&w, out.f);
    jw_str(&w, "type", "config");
    write_run_json(&w, r, &o.model);
    if (c->resume) jw_int(&w, "resumed_at", start);
    jw_end(&w);
  }
  if (start == 0) { /* the state at initialization */
    jw w;
    double ev;
    jw_begin(&w, out.f);
    jw_str(&w, "type", "step");
    jw_int(&w, "step", 0);
    if (tr.has_eval && la_trainer_eval(&tr, &ev) == 0)
      jw_num(&w, "eval_loss", ev);
    if (r->diag_every > 0) x.status = write_rcond(&x, &w, tr.theta);
    jw_end(&w);
  }
  st = 0;
  while (!st && !x.status && tr.step < r->steps) {
    long chunk = r->steps - tr.step;
    if (c->checkpoint_every > 0 && chunk > c->checkpoint_every)
      chunk = c->checkpoint_every;
    st = la_trainer_run(&tr, chunk);
    if (!st && c->checkpoint && c->checkpoint_every > 0 &&
        (st = la_checkpoint_save(&tr, c->checkpoint)) != 0)
      break;
  }
  u_progress_end(p);
  if (x.status) st = x.status;
  if ((st == 0 || st == LA_EDIVERGED) && c->checkpoint) {
    int s2 = la_checkpoint_save(&tr, c->checkpoint);
    if (s2 == 0) s2 = save_args(c, c->checkpoint);
    if (s2) {
      u_abort(&out);
      code = u_fail(EXIT_BAD_INPUT, "cannot save the checkpoint '%s': %s",
                    c->checkpoint, la_status_str(s2));
      goto done;
    }
  }
  {
    jw w;
    double ev = NAN;
    jw_begin(&w, out.f);
    jw_str(&w, "type", "summary");
    jw_str(&w, "status", st == 0 ? "ok" : st == LA_EDIVERGED ? "diverged"
                                                             : "error");
    jw_int(&w, "steps", tr.step);
    jw_int(&w, "diverged_step", tr.diverged_step);
    if (tr.has_eval && st == 0 && la_trainer_eval(&tr, &ev) == 0)
      jw_num(&w, "final_eval_loss", ev);
    jw_num(&w, "seconds", u_now() - t0);
    jw_num(&w, "steps_per_second", (double)(tr.step - start) / (u_now() - t0));
    jw_end(&w);
  }
  if ((code = u_commit(&out)) != 0) goto done;
  if (st == LA_EDIVERGED)
    code = u_fail(1, "the run diverged at step %ld (NaN or Inf); the "
                     "output and checkpoint hold the last finite state",
                  tr.diverged_step);
  else if (st)
    code = u_fail(1, "training failed: %s", la_status_str(st));
done:
  if (x.diag.z) la_batch_destroy(&x.diag);
  free(x.work);
  free(x.prev);
  la_trainer_destroy(&tr);
  objs_free(&o);
  return code;
}

/* ================================================================== */
/*                   theta at initialization or a checkpoint          */
/* ================================================================== */

/* The run's objects and theta: initial (from the seed) or the checkpoint's.
   The model's shape is taken from the checkpoint itself. */
static int load_theta(cli_config *c, run_objs *o, la_real **theta, long *step) {
  char err[300];
  int st;
  /* every exit leaves *o safe for objs_free and o->model's size readable */
  memset(o, 0, sizeof *o);
  *theta = NULL;
  *step = 0;
  if (c->checkpoint) {
    size_t len;
    la_model_config mc;
    char *buf = u_slurp(c->checkpoint, &len);
    if (!buf)
      return u_fail(EXIT_BAD_INPUT, "cannot read '%s': %s", c->checkpoint,
                    strerror(errno));
    st = la_checkpoint_info(buf, len, &mc, step);
    free(buf);
    if (st)
      return u_fail(EXIT_BAD_INPUT, "'%s': %s", c->checkpoint,
                    la_status_str(st));
    c->run.d = mc.d;
    c->run.n = mc.n;
    c->run.layers = mc.layers;
    c->run.param = mc.param;
    c->run.act = mc.activation;
    c->run.front = mc.front_hidden;
    c->run.init_std = mc.init_std;
  }
  cli_resolve_run(&c->run);
  if (build_run(&c->run, o, err, sizeof err))
    return u_fail(EXIT_BAD_INPUT, "%s", err);
  *theta = (la_real *)malloc(sizeof(la_real) * (size_t)o->model.nparams);
  if (!*theta) return u_fail(1, "out of memory");
  if (c->checkpoint) {
    la_trainer tr;
    o->tc.eval_every = -1;
    o->tc.batch = 8;
    if ((st = la_trainer_create(&tr, &o->tc)) != 0)
      return u_fail(EXIT_BAD_INPUT, "%s", la_status_str(st));
    st = la_checkpoint_load(&tr, c->checkpoint);
    if (st == 0) memcpy(*theta, tr.theta, sizeof(la_real) * (size_t)tr.n);
    la_trainer_destroy(&tr);
    if (st)
      return u_fail(EXIT_BAD_INPUT,
                    "cannot load '%s': %s (give the run's --opt, or keep "
                    "its .args file beside it)",
                    c->checkpoint, la_status_str(st));
  } else {
    la_rng rng; /* the trainer's own initialization stream */
    la_rng_seed(&rng, (uint64_t)c->run.seed, 0xfffffffffffffffeull);
    la_model_init_params(&o->model, &rng, *theta);
  }
  return 0;
}

/* ================================================================== */
/*                              noise                                 */
/* ================================================================== */

/* The gradient-noise histogram at theta: one JSON object. */
static int measure_noise(const cli_config *c, const run_objs *o,
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
    return u_fail(1, "out of memory");
  }
  if (p) u_progress_step(p, 0);
  la_rng_seed(&rng, (uint64_t)c->run.seed, LA_STREAM_EVAL - 3);
  s = la_grad_noise(&o->model, theta, &o->data, &rng, &g, norms, &tg, NULL, 0);
  memset(&nc, 0, sizeof nc);
  nc.bins = bins;
  if (!s) s = la_noise_summary(g.samples, norms, &nc, &st, hist, edges, NULL,
                               NULL, NULL, 0);
  if (s) {
    free(norms);
    free(hist);
    free(edges);
    return u_fail(1, "gradient noise: %s", la_status_str(s));
  }
  jw_begin(&w, f);
  jw_str(&w, "type", "noise");
  jw_str(&w, "setting", cli_setting_names[c->run.setting]);
  jw_int(&w, "depth", c->run.layers);
  jw_int(&w, "seed", c->run.seed);
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
  if ((st = u_open(&o, c->out)) != 0) return st;
  fputs(text, o.f);
  if ((st = u_commit(&o)) != 0) return st;
  if (!c->svg) return 0;
  if (jv_parse(text, &obj, &why)) return u_fail(1, "internal JSON: %s", why);
  fc.obj = &obj;
  fc.title = title;
  st = write_svg(c->svg, draw, &fc);
  jv_free(&obj);
  return st;
}

static int cmd_noise(cli_config *c) {
  run_objs o;
  la_real *theta;
  long step;
  FILE *m;
  char *text = NULL, title[160];
  size_t len = 0;
  u_progress p;
  int st = load_theta(c, &o, &theta, &step);
  if (st) {
    free(theta);
    objs_free(&o);
    return st;
  }
  u_progress_init(&p, "noise", 1);
  if (!(m = open_memstream(&text, &len))) {
    st = u_fail(1, "out of memory");
  } else {
    st = measure_noise(c, &o, theta, step, m, NULL, &p);
    /* closing a memory stream writes its last bytes into text */
    if (fclose(m) != 0 && !st) st = u_fail(1, "out of memory");
  }
  u_progress_end(&p);
  snprintf(title, sizeof title, "Gradient noise, setting %s, L = %ld, step %ld",
           cli_setting_names[c->run.setting], c->run.layers, step);
  if (!st) st = finish_measurement(c, text, draw_noise, title);
  free(text);
  free(theta);
  objs_free(&o);
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
  run_objs o;
  la_real *theta;
  la_batch b;
  curv_out q;
  long step;
  FILE *m;
  char *text = NULL, title[160];
  size_t len = 0;
  int st = load_theta(c, &o, &theta, &step);
  memset(&b, 0, sizeof b);
  memset(&q, 0, sizeof q);
  if (st) goto out;
  if (diag_batch(&o, &c->run, &b)) {
    st = u_fail(1, "out of memory");
    goto out;
  }
  if ((st = curv_measure(c, &o.model, theta, &b, &q)) != 0) {
    st = u_fail(1, "curvature: %s", la_status_str(st));
    goto out;
  }
  if (!(m = open_memstream(&text, &len))) {
    st = u_fail(1, "out of memory");
    goto out;
  }
  {
    jw w;
    jw_begin(&w, m);
    jw_str(&w, "type", "curvature");
    jw_str(&w, "setting", cli_setting_names[c->run.setting]);
    jw_int(&w, "depth", c->run.layers);
    jw_int(&w, "nparams", o.model.nparams);
    jw_int(&w, "step", step);
    jw_int(&w, "batch", c->run.diag_batch);
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
    st = u_fail(1, "out of memory");
    goto out;
  }
  snprintf(title, sizeof title, "Hessian spectrum, setting %s, L = %ld, step %ld",
           cli_setting_names[c->run.setting], c->run.layers, step);
  st = finish_measurement(c, text, draw_curvature, title);
out:
  if (b.z) la_batch_destroy(&b);
  curv_free(&q);
  free(text);
  free(theta);
  objs_free(&o);
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
} repro;

/* The parent folder of a file, created when missing. */
static int ensure_parent(const char *path) {
  char dir[4096];
  const char *slash = path ? strrchr(path, '/') : NULL;
  size_t len;
  if (!path || !strcmp(path, "-") || !slash || slash == path) return 0;
  len = (size_t)(slash - path);
  if (len >= sizeof dir)
    return u_fail(EXIT_BAD_INPUT, "path too long: '%.80s...'", path);
  memcpy(dir, path, len);
  dir[len] = 0;
  return u_mkdirs(dir);
}

static int repro_noise(const repro *R, u_progress *p) {
  cli_config c = R->base;
  run_objs o;
  la_real *theta;
  long step;
  u_out out;
  int st;
  c.checkpoint = NULL;
  c.run.seed = 1;
  if ((st = load_theta(&c, &o, &theta, &step)) == 0 &&
      (st = u_open(&out, R->noise_path)) == 0) {
    st = measure_noise(&c, &o, theta, 0, out.f, NULL, p);
    if (st) u_abort(&out);
    else st = u_commit(&out);
  }
  free(theta);
  objs_free(&o);
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
  if (isfinite(m)) snprintf(buf, cap, "%.3g \xc2\xb1 %.2g", m, sd);
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
    st = u_fail(1, "out of memory");
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
  const cli_run *r = &R->jobs[0].run;
  jv noise;
  const char *why = NULL;
  char *ntext;
  u_out md;
  double rs[2][1024], ra[2][1024], ratio[2][1024], ls[2][1024], la[2][1024],
      lratio[2][1024], fin[2][1024];
  static const double at[2] = {750, 1250};
  la_lsmooth_fit fit;
  scatter_fig sf;
  if (!logs) return u_fail(1, "out of memory");
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
           R->jobs[0].run.lr, k);
  snprintf(lab_a, sizeof lab_a, "Adam, betas 0.9, 0.9, lr %g (mean of %d)",
           R->jobs[1].run.lr, k);
  snprintf(title, sizeof title, "Evaluation loss, setting %s, L = %ld",
           cli_setting_names[r->setting], r->layers);
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
    st = u_fail(1, "cannot read '%s'", R->noise_path);
    goto out;
  }
  free(ntext);
  {
    fig_ctx fc;
    char t2[200];
    snprintf(t2, sizeof t2, "Gradient noise at initialization, setting %s",
             cli_setting_names[r->setting]);
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
    st = u_fail(1, "out of memory");
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
            cli_setting_names[r->setting], R->base.full ? "" : " (quick form)");
    fprintf(f,
            "Linear transformer, L = %ld, d = %ld, n = %ld, %s parametrization%s "
            "(%d parameters), %ld fresh prompts per step, %ld steps, %d seed%s "
            "per optimizer, global gradient clipping at %g. SGD with momentum "
            "0.9 at learning rate %g; Adam with beta1 = beta2 = 0.9 at %g. "
            "Evaluation loss on a fixed batch of %ld prompts every %ld steps; "
            "robust condition numbers on a fixed batch of %ld every %ld steps; "
            "directional smoothness every %ld steps. Backend %s, %s. Wall "
            "time %.1f s.\n\n",
            r->layers, r->d, r->n, cli_param_names[r->param],
            r->front > 0 ? " behind a trainable ReLU front MLP" : "",
            (int)jv_num(&logs[0].config, "nparams"), r->batch, r->steps, k,
            k == 1 ? "" : "s", r->clip, R->jobs[0].run.lr, R->jobs[1].run.lr, r->eval_batch,
            r->eval_every, r->diag_batch, r->diag_every, r->smooth_every,
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
  if (c->run.steps < 0) R.base.run.steps = c->full ? 10000 : 2000;
  if (c->run.diag_every < 0) R.base.run.diag_every = 250;
  if (c->run.smooth_every < 0) R.base.run.smooth_every = c->full ? 10 : 5;
  if (c->minibatch < 0) R.base.minibatch = 1000;
  if (c->true_batch < 0) R.base.true_batch = c->full ? 100000 : 50000;
  if (c->samples < 0) R.base.samples = c->full ? 10000 : 4000;
  if (c->bins < 0) R.base.bins = c->full ? 100 : 50;
  R.base.run.log_every = 50;
  R.base.checkpoint = R.base.resume = NULL;
  R.base.checkpoint_every = -1;
  procs = (int)(c->jobs > 0 ? c->jobs : u_online_cpus());
  if ((st = u_mkdirs(R.dir)) != 0) return st;
  snprintf(runs, sizeof runs, "%s/runs", R.dir);
  if ((st = u_mkdirs(runs)) != 0) return st;
  R.nruns = 2 * R.seeds;
  nj = R.nruns + 1;
  R.jobs = (cli_config *)calloc((size_t)R.nruns, sizeof(cli_config));
  R.paths = (char(*)[4200])calloc((size_t)R.nruns, sizeof *R.paths);
  totals = (long *)calloc((size_t)nj, sizeof(long));
  status = (int *)calloc((size_t)nj, sizeof(int));
  if (!R.jobs || !R.paths || !totals || !status) {
    st = u_fail(1, "out of memory");
    goto out;
  }
  for (i = 0; i < R.nruns; ++i) {
    cli_config *j = &R.jobs[i];
    int adam = i % 2;
    *j = R.base;
    j->run.opt = adam ? CLI_ADAM : CLI_SGD;
    j->run.seed = i / 2 + 1;
    j->run.lr = adam ? c->lr_adam : c->lr_sgd;
    cli_resolve_run(&j->run);
    snprintf(R.paths[i], sizeof R.paths[i], "%.4000s/%s-seed%ld.jsonl", runs,
             adam ? "adam" : "sgd", j->run.seed);
    j->out = R.paths[i];
    totals[i] = j->run.steps;
  }
  cli_resolve_run(&R.base.run);
  snprintf(R.noise_path, sizeof R.noise_path, "%s/noise.json", R.dir);
  /* the noise measurement costs about as many gradients as it has samples */
  totals[R.nruns] = R.base.samples;
  failed = u_pool(repro_job, &R, nj, procs, totals, "reproduce", status);
  if (failed) {
    for (i = 0; i < nj; ++i)
      if (status[i])
        u_fail(1, "%s failed (exit status %d)",
               i < R.nruns ? R.paths[i] : R.noise_path, status[i]);
    st = status[0] == EXIT_BAD_INPUT ? EXIT_BAD_INPUT : 1;
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

typedef struct sweep {
  int n;
  char **argv[4096];
  char *name[4096];
} sweep;

static char *str_dup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = (char *)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* A word as the shell reads it back. */
static void print_quoted(FILE *f, const char *s) {
  const char *p;
  int plain = *s != 0;
  for (p = s; *p; ++p)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "0123456789_./=:,+-@%", *p))
      plain = 0;
  if (plain) {
    fputs(s, f);
    return;
  }
  fputc('\'', f);
  for (p = s; *p; ++p) {
    if (*p == '\'') fputs("'\\''", f);
    else fputc(*p, f);
  }
  fputc('\'', f);
}

static int sweep_job(void *ctx, int i, u_progress *p) {
  sweep *S = (sweep *)ctx;
  (void)p;
  execvp(S->argv[i][0], S->argv[i]);
  return u_fail(1, "cannot run '%s': %s", S->argv[i][0], strerror(errno));
}

static void sweep_free(sweep *S) {
  int i, j;
  for (i = 0; i < S->n; ++i) {
    for (j = 0; S->argv[i][j]; ++j) free(S->argv[i][j]);
    free(S->argv[i]);
    free(S->name[i]);
  }
}

/* Frees the first k words of v (a NULL among them too) and v. */
static void words_free(char **v, int k) {
  int i;
  for (i = 0; i < k; ++i) free(v[i]);
  free(v);
}

/* A sweep's train command has at most 16 words of its own, then the
   extra ones and the NULL. */
enum { SWEEP_WORDS = 24 };

/* The train command of one grid point in SWEEP_WORDS + c->nextra slots,
   NULL-terminated; its run is named in name. NULL when out of memory, with
   nothing left allocated. */
static char **sweep_command(const cli_config *c, const char *dir, double setting,
                            double depth, double opt, double lr, double seed,
                            char *name, size_t cap) {
  char out[4400], num[64], **v;
  int k = 0, i;
  v = (char **)calloc((size_t)c->nextra + SWEEP_WORDS, sizeof(char *));
  if (!v) return NULL;
  if (isfinite(lr))
    snprintf(num, sizeof num, "-lr%g", lr);
  else
    num[0] = 0;
  snprintf(name, cap, "s%s-L%g-%s%s-seed%.0f", cli_setting_names[(int)setting],
           depth, cli_opt_names[(int)opt], num, seed);
  snprintf(out, sizeof out, "%s/%s.jsonl", dir, name);
  v[k++] = str_dup(c->argv0);
  v[k++] = str_dup("train");
  v[k++] = str_dup("--setting");
  v[k++] = str_dup(cli_setting_names[(int)setting]);
  v[k++] = str_dup("--depth");
  snprintf(num, sizeof num, "%g", depth);
  v[k++] = str_dup(num);
  v[k++] = str_dup("--opt");
  v[k++] = str_dup(cli_opt_names[(int)opt]);
  if (isfinite(lr)) {
    v[k++] = str_dup("--lr");
    snprintf(num, sizeof num, "%.17g", lr);
    v[k++] = str_dup(num);
  }
  v[k++] = str_dup("--seed");
  snprintf(num, sizeof num, "%.0f", seed);
  v[k++] = str_dup(num);
  if (c->run.steps >= 0) {
    v[k++] = str_dup("--steps");
    snprintf(num, sizeof num, "%ld", c->run.steps);
    v[k++] = str_dup(num);
  }
  v[k++] = str_dup("--out");
  v[k++] = str_dup(out);
  for (i = 0; i < c->nextra; ++i) v[k++] = str_dup(c->extra[i]);
  for (i = 0; i < k; ++i)
    if (!v[i]) {
      words_free(v, k);
      return NULL;
    }
  return v;
}

/* One train command per point of the grid (settings x depths x optimizers
   x learning rates x seeds), each writing DIR/NAME.jsonl. */
static int cmd_sweep(cli_config *c) {
  static sweep S;
  const char *dir = c->out ? c->out : "sweep";
  cli_list one_setting = {1, {0}}, one_depth = {1, {3}}, two_opt = {2, {0, 1}},
           no_lr = {1, {NAN}}, one_seed = {1, {1}};
  const cli_list *gs = c->g_setting.n ? &c->g_setting : &one_setting;
  const cli_list *gd = c->g_depth.n ? &c->g_depth : &one_depth;
  const cli_list *go = c->g_opt.n ? &c->g_opt : &two_opt;
  const cli_list *gl = c->g_lr.n ? &c->g_lr : &no_lr;
  const cli_list *ge = c->g_seed.n ? &c->g_seed : &one_seed;
  double total = (double)gs->n * gd->n * go->n * gl->n * ge->n;
  int a, b, e, l, s, i, st = 0;
  long *totals;
  int *status;
  if (total > 4096)
    return u_fail(EXIT_BAD_INPUT, "the grid has %.0f points (at most 4096)", total);
  memset(&S, 0, sizeof S);
  for (a = 0; a < gs->n; ++a)
    for (b = 0; b < gd->n; ++b)
      for (e = 0; e < go->n; ++e)
        for (l = 0; l < gl->n; ++l)
          for (s = 0; s < ge->n; ++s) {
            char name[200];
            char **v = sweep_command(c, dir, gs->v[a], gd->v[b], go->v[e],
                                     gl->v[l], ge->v[s], name, sizeof name);
            char *vname = v ? str_dup(name) : NULL;
            if (!vname) {
              if (v) words_free(v, c->nextra + SWEEP_WORDS);
              sweep_free(&S);
              return u_fail(1, "out of memory");
            }
            S.argv[S.n] = v;
            S.name[S.n++] = vname;
          }
  if (S.n == 0) return u_fail(EXIT_BAD_INPUT, "the grid is empty");
  if (c->jobs < 1) { /* the commands, for xargs -P, parallel or a job array */
    for (i = 0; i < S.n; ++i) {
      int j;
      for (j = 0; S.argv[i][j]; ++j) {
        if (j) fputc(' ', stdout);
        print_quoted(stdout, S.argv[i][j]);
      }
      fputc('\n', stdout);
    }
    sweep_free(&S);
    return fflush(stdout) ? 1 : 0;
  }
  if ((st = u_mkdirs(dir)) != 0) {
    sweep_free(&S);
    return st;
  }
  totals = (long *)calloc((size_t)S.n, sizeof(long));
  status = (int *)calloc((size_t)S.n, sizeof(int));
  if (!totals || !status) {
    st = u_fail(1, "out of memory");
    goto out;
  }
  for (i = 0; i < S.n; ++i) totals[i] = c->run.steps >= 0 ? c->run.steps : 1000;
  if (u_pool(sweep_job, &S, S.n, (int)c->jobs, totals, "sweep", status)) {
    for (i = 0; i < S.n; ++i)
      if (status[i]) u_fail(1, "%s failed (exit status %d)", S.name[i], status[i]);
    st = 1;
  } else {
    printf("%d runs in %s/; merge them with: %s report %s/*.jsonl\n", S.n, dir,
           c->argv0, dir);
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

/* Runs that differ only in their seed form one group; a group is named by
   the settings in which the groups differ, the rest is said once. */
static const char *const group_keys[] = {
    "setting", "depth", "param", "activation", "opt", "lr", "momentum",
    "beta1", "beta2", "batch", "clip", "clip_block", "d", "n", "front",
    "init_std", "schedule", "data", "weight_decay"};
#define NGROUP_KEYS ((int)(sizeof group_keys / sizeof group_keys[0]))

static void key_value(const jv *cfg, int k, char *buf, size_t cap) {
  const jv *v = jv_get(cfg, group_keys[k]);
  if (!v) snprintf(buf, cap, "?");
  else if (v->type == JV_STR) snprintf(buf, cap, "%s", v->str);
  else snprintf(buf, cap, "%g", v->num);
}

static void group_key(const jv *cfg, char *buf, size_t cap) {
  size_t used = 0;
  int k;
  buf[0] = 0;
  for (k = 0; k < NGROUP_KEYS; ++k) {
    char v[64];
    int w;
    key_value(cfg, k, v, sizeof v);
    w = snprintf(buf + used, cap - used, "%s=%s;", group_keys[k], v);
    if (w < 0 || (size_t)w >= cap - used) return;
    used += (size_t)w;
  }
}

/* Labels from the keys that vary between the groups (first run of each in
   firsts), and the common part. */
static void group_labels(runlog *logs, const int *firsts, int ng,
                         char (*labels)[512], char *common, size_t cap) {
  size_t cu = 0;
  int k, g;
  common[0] = 0;
  for (g = 0; g < ng; ++g) labels[g][0] = 0;
  for (k = 0; k < NGROUP_KEYS; ++k) {
    char v0[64], v[64];
    int varies = 0;
    key_value(&logs[firsts[0]].config, k, v0, sizeof v0);
    for (g = 1; g < ng && !varies; ++g) {
      key_value(&logs[firsts[g]].config, k, v, sizeof v);
      varies = strcmp(v, v0) != 0;
    }
    if (!varies) {
      int w = snprintf(common + cu, cap - cu, "%s%s %s", cu ? ", " : "",
                       group_keys[k], v0);
      if (w > 0 && (size_t)w < cap - cu) cu += (size_t)w;
      continue;
    }
    for (g = 0; g < ng; ++g) {
      size_t u = strlen(labels[g]);
      key_value(&logs[firsts[g]].config, k, v, sizeof v);
      snprintf(labels[g] + u, 512 - u, "%s%s %s", u ? ", " : "",
               group_keys[k], v);
    }
  }
  for (g = 0; g < ng; ++g)
    if (!labels[g][0]) snprintf(labels[g], 512, "all runs");
}

static int cmd_report(cli_config *c) {
  const char *dir = c->out ? c->out : "linattn-report";
  runlog *logs = (runlog *)calloc((size_t)c->npos, sizeof(runlog));
  char (*keys)[512] = (char(*)[512])calloc((size_t)c->npos, 512);
  char (*labels)[512] = (char(*)[512])calloc((size_t)c->npos, 512);
  char common[2048];
  int *group = (int *)calloc((size_t)c->npos, sizeof(int));
  int *firsts = (int *)calloc((size_t)c->npos, sizeof(int));
  int ng = 0, i, g, st = 0, nlog = 0;
  char err[600], path[4300];
  u_out md;
  if (!logs || !keys || !labels || !group || !firsts) {
    free(logs);
    free(keys);
    free(labels);
    free(group);
    free(firsts);
    return u_fail(1, "out of memory");
  }
  for (i = 0; i < c->npos; ++i) {
    if (runlog_load(c->pos[i], &logs[i], err, sizeof err)) {
      st = u_fail(EXIT_BAD_INPUT, "%s", err);
      goto out;
    }
    nlog++;
  }
  if ((st = u_mkdirs(dir)) != 0) goto out;
  /* groups in order of first appearance */
  for (i = 0; i < c->npos; ++i) {
    char k[512];
    group_key(&logs[i].config, k, sizeof k);
    for (g = 0; g < ng && strcmp(keys[g], k) != 0; ++g) {
    }
    if (g == ng) {
      firsts[ng] = i;
      snprintf(keys[ng++], 512, "%s", k);
    }
    group[i] = g;
  }
  group_labels(logs, firsts, ng, labels, common, sizeof common);
  snprintf(path, sizeof path, "%s/report.md", dir);
  if ((st = u_open(&md, path))) goto out;
  fprintf(md.f, "# Report of %d runs in %d configurations\n\n", c->npos, ng);
  fprintf(md.f, "Common to every run: %s.\n\n", common);
  fprintf(md.f,
          "| configuration | runs | steps | final eval loss (mean \xc2\xb1 sd) "
          "| best eval loss | diverged | last R (diag) | steps/s |\n"
          "|---|---|---|---|---|---|---|---|\n");
  for (g = 0; g < ng; ++g) {
    double fin[CLI_MAXPOS], best[CLI_MAXPOS], rl[CLI_MAXPOS], sps[CLI_MAXPOS];
    int n = 0, div = 0;
    long steps = 0;
    char a[64], b[64], r2[64];
    double m, sd;
    for (i = 0; i < c->npos; ++i) {
      const series *ev = &logs[i].f[F_EVAL];
      const series *rc = &logs[i].f[F_RCOND];
      int j;
      if (group[i] != g) continue;
      fin[n] = logs[i].final_eval;
      best[n] = NAN;
      for (j = 0; j < ev->n; ++j)
        if (!(ev->y[j] >= best[n])) best[n] = ev->y[j];
      rl[n] = rc->n ? rc->y[rc->n - 1] : NAN;
      sps[n] = logs[i].steps_per_second;
      if (!strcmp(logs[i].status, "diverged")) div++;
      if (logs[i].steps > steps) steps = logs[i].steps;
      n++;
    }
    fmt_msd(a, sizeof a, fin, n);
    fmt_msd(b, sizeof b, best, n);
    fmt_msd(r2, sizeof r2, rl, n);
    mean_sd(sps, n, &m, &sd);
    fprintf(md.f, "| %s | %d | %ld | %s | %s | %d | %s | %.0f |\n", labels[g], n,
            steps, a, b, div, r2, m);
  }
  /* the figures: one curve per configuration (the first eight) */
  {
    static const struct {
      int field, logy;
      const char *file, *title, *ylabel;
    } figs[] = {
        {F_EVAL, 1, "loss.svg", "Evaluation loss", "evaluation loss (log scale)"},
        {F_RCOND, 1, "rcond.svg", "Robust condition number", "max|H_ii| / median|H_ii|"},
        {F_SMOOTH, 1, "smoothness.svg", "Directional smoothness", "u\xe1\xb5\x80 H u (log scale)"}};
    size_t fi;
    int shown = ng < SVG_NPALETTE ? ng : SVG_NPALETTE;
    fprintf(md.f, "\n");
    for (fi = 0; fi < sizeof figs / sizeof figs[0] && !st; ++fi) {
      curve cs[SVG_NPALETTE];
      curves_fig cf;
      int any = 0;
      memset(cs, 0, sizeof cs);
      for (g = 0; g < shown; ++g) {
        runlog *members[CLI_MAXPOS];
        int n = 0;
        for (i = 0; i < c->npos; ++i)
          if (group[i] == g) members[n++] = &logs[i];
        if (band_make(members, n, figs[fi].field, &cs[g].b)) st = u_fail(1, "out of memory");
        cs[g].label = labels[g];
        if (cs[g].b.n) any = 1;
      }
      if (any && !st) {
        cf.title = figs[fi].title;
        cf.xlabel = "iteration";
        cf.ylabel = figs[fi].ylabel;
        cf.note = "band: min to max over seeds";
        cf.logy = figs[fi].logy;
        cf.c = cs;
        cf.n = shown;
        snprintf(path, sizeof path, "%s/%s", dir, figs[fi].file);
        st = write_svg(path, draw_curves, &cf);
        fprintf(md.f, "![%s](%s)\n\n", figs[fi].title, figs[fi].file);
      }
      for (g = 0; g < shown; ++g) band_free(&cs[g].b);
    }
    if (ng > shown)
      fprintf(md.f, "The figures show the first %d of %d configurations.\n",
              shown, ng);
  }
  if (st) u_abort(&md);
  else if ((st = u_commit(&md)) == 0)
    printf("%d runs, %d configurations: %s/report.md\n", c->npos, ng, dir);
out:
  for (i = 0; i < nlog; ++i) runlog_free(&logs[i]);
  free(logs);
  free(keys);
  free(labels);
  free(group);
  free(firsts);
  return st;
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
    "  report      merge the JSON lines of many runs into tables and figures\n\n"
    "Exit status: 0 done, 1 the work failed (a run diverged, a check was off),\n"
    "2 bad input (flags, numbers, files, output folders).\n",
    /* train */
    "usage: linattn train [FLAGS]\n\n"
    "One run of any setting, depth, parametrization and optimizer. One JSON\n"
    "object per line: a config line, step lines (loss, gradient norm, eval loss,\n"
    "directional smoothness, robust condition numbers, lambda_max as measured),\n"
    "a summary line. --checkpoint saves the run (and FILE.args, its flags);\n"
    "--resume FILE --steps T continues it bit for bit up to step T.\n",
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
    "rcond.svg, smoothness.svg and gnorm_smoothness.svg. Default: the quick\n"
    "form of Setting 1 (2000 steps, 4 seeds); --full is paper A's length.\n",
    /* theorem */
    "usage: linattn theorem [FLAGS]\n\n"
    "Paper B's results against training: Theorem 1 (one layer, anisotropic\n"
    "Sigma, the closed-form minimizer), Lemma 1 (the forward pass is\n"
    "preconditioned gradient descent), the three-layer experiment\n"
    "(Dist(Sigma^1/2 A_l Sigma^1/2, I) during training, the learned scalars,\n"
    "their growth with depth) and Theorem 5 (ReLU attention). Exits 1 if a\n"
    "check is clearly off.\n",
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
    "than " JV_QUOTE(JV_MAX_DEPTH) " levels, is bad input (exit status 2).\n"};

static int cmd_index(int cmd) {
  int k = 0;
  while (cmd > 1) cmd >>= 1, ++k;
  return k;
}

int main(int argc, char **argv) {
  cli_config c;
  char err[400], *keep = NULL;
  int st;
  st = cli_parse(argc, argv, &c, err, sizeof err);
  if (st == CLI_HELP) {
    cli_help(stdout, (unsigned)c.cmd, help_text[c.cmd ? cmd_index(c.cmd) + 1 : 0]);
    return 0;
  }
  if (st != CLI_OK) {
    if (c.cmd) fprintf(stderr, "linattn %s: %s\n", cli_cmd_name(c.cmd), err);
    else fprintf(stderr, "linattn: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  if ((c.cmd == CLI_TRAIN && c.resume) ||
      ((c.cmd == CLI_NOISE || c.cmd == CLI_CURV) && c.checkpoint)) {
    const char *ck = c.resume ? c.resume : c.checkpoint;
    if (merge_saved_args(&c, ck, argc - 2, argv + 2, &keep, err, sizeof err)) {
      fprintf(stderr, "linattn %s: %s\n", cli_cmd_name(c.cmd), err);
      free(keep);
      return EXIT_BAD_INPUT;
    }
  }
  switch (c.cmd) {
  case CLI_TRAIN: {
    u_progress p;
    cli_resolve_run(&c.run);
    /* a checkpoint is saved by renaming a new file over it */
    if (c.checkpoint && u_special(c.checkpoint)) {
      st = u_fail(EXIT_BAD_INPUT, "--checkpoint '%s' is not a regular file",
                  c.checkpoint);
      break;
    }
    if ((st = ensure_parent(c.out)) == 0 &&
        (!c.checkpoint || (st = ensure_parent(c.checkpoint)) == 0)) {
      u_progress_init(&p, "train", c.run.steps);
      st = run_train(&c, &p);
    }
    break;
  }
  case CLI_NOISE: st = cmd_noise(&c); break;
  case CLI_CURV: st = cmd_curvature(&c); break;
  case CLI_REPRO: st = cmd_reproduce(&c); break;
  case CLI_THEOREM: st = cmd_theorem(&c); break;
  case CLI_SWEEP: st = cmd_sweep(&c); break;
  default: st = cmd_report(&c); break;
  }
  free(keep);
  return st;
}
