/* cli/commands/paperb.h - paper B's comparative experiments from the command
   line: `linattn theorem --check depth|context|theorem4|lemma4|optimum`
   and `linattn reproduce --paper b` (every one of them, and Theorem 5's
   closed form, into one report.md).

     depth     the loss against the number of layers L = 1..4: the trained
               model beside L steps of GD and of preconditioned GD (each
               with its best step size on a validation batch), least
               squares and ridge, all on the same test prompts
     context   the same against the context length n at L = 3
     theorem4  B_l free: Dist(B_l, I) and Dist(Sigma^1/2 A_l Sigma^1/2, I)
               along training, the learned b_l and a_l, isotropic (GD++)
               and Sigma cases
     lemma4    exchanging two layers' a_l leaves the loss unchanged, on a
               trained model's a_l; B_l != 0 breaks it (the control)
     optimum   the a_l minimizing the loss under A_l = a_l Sigma^-1 beside
               a trained model's, L = 1..4

   Each check has a quick form (the default: seconds to a minute or two)
   and paper B's lengths under --full; --steps overrides the steps. The
   trained models come from the header's run presets (b-depth, b-context,
   b-theorem4), so `linattn train --preset ...` repeats any one of them.
   The shapes are paper B's (d = 5): matrices fit 8 x 8 arrays. Baselines
   see all n context points; paper B's notebook gives its GD
   baselines the first n - 1 only. The entries are pb_theorem and
   pb_reproduce, which cmd_theorem (cli/commands/theorem.h) and cmd_reproduce
   (cli/commands/reproduce.h) call. */
#ifndef LINATTN_PAPERB_H
#define LINATTN_PAPERB_H

#include "../io/svg.h"
#include "../common.h"
#include "../study/plan.h"
#include "../study/runs.h"

typedef struct pb_ctx {
  const cli_config *c;
  FILE *o; /* the text: stdout, or reproduce's report.md */
  jw w;
  int full, failed;
  int seeds;       /* of depth and context: --seeds, else 5 full, 1 quick */
  const char *dir; /* reproduce's folder: the figures go there */
  uint64_t seed;
  u_progress prog;
  /* depth's and context's units: trained here (PB_HERE), written as a
     plan's commands (PB_PLAN) or read from its outputs (PB_FROM) in the
     plan folder, started as program */
  int mode;
  const char *plan, *program;
} pb_ctx;

/* ------------------------------------------------------------ figures */
/* Depth and context: each method's test loss against L or n, one line
   each, on a log axis; FILE.csv beside FILE.svg holds the numbers, also
   of series not drawn (an exact method's zeros would flatten the rest). */
#define PB_FIG_SERIES 4
typedef struct pb_fig {
  const char *title, *xlabel;
  int n, ns, drawn; /* points, series (all in the CSV), the first drawn */
  const double *x, *y[PB_FIG_SERIES];
  const char *label[PB_FIG_SERIES];
} pb_fig;

static void pb_fig_svg(FILE *f, void *ctx) {
  const pb_fig *F = (const pb_fig *)ctx;
  double all[PB_FIG_SERIES * 32];
  svg_axis ax = {0, 1, 0, NULL}, ay = {1e-3, 1, 1, "test loss (log scale)"};
  svg_plot p;
  int k, i, m = 0;
  for (k = 0; k < F->drawn; ++k)
    for (i = 0; i < F->n && m < PB_FIG_SERIES * 32; ++i) all[m++] = F->y[k][i];
  (void)svg_range(F->x, F->n, 0, &ax.lo, &ax.hi);
  (void)svg_range(all, m, 1, &ay.lo, &ay.hi);
  ax.label = F->xlabel;
  svg_open(&p, f, 720, 480, F->title, ax, ay);
  svg_axes(&p);
  for (k = 0; k < F->drawn; ++k) {
    svg_line(&p, F->x, F->y[k], F->n, svg_palette[k], 2, k == 0 ? 0 : 1);
    svg_markers(&p, F->x, F->y[k], F->n, svg_palette[k], SVG_DOT, 3.5);
    svg_legend(&p, F->label[k], svg_palette[k], k == 0 ? SVG_LINEDOT : SVG_DASHED);
  }
  svg_close(&p);
}

static void pb_fig_csv(FILE *f, void *ctx) {
  const pb_fig *F = (const pb_fig *)ctx;
  char a[32], b[32];
  int k, i;
  fprintf(f, "series,x,test_loss\n");
  for (k = 0; k < F->ns; ++k)
    for (i = 0; i < F->n; ++i)
      fprintf(f, "\"%s\",%s,%s\n", F->label[k], csv_num(a, F->x[i]),
              csv_num(b, F->y[k][i]));
}

/* The figure NAME.svg into reproduce's folder, or at --svg for one check. */
static int pb_figure(const pb_ctx *x, const char *name, const pb_fig *F) {
  char path[4200];
  if (x->dir) snprintf(path, sizeof path, "%.4000s/%s.svg", x->dir, name);
  else if (x->c->svg) snprintf(path, sizeof path, "%.4000s", x->c->svg);
  else return 0;
  return write_figure(path, pb_fig_svg, pb_fig_csv, (void *)F);
}

static long pb_steps(const pb_ctx *x, long quick, long full) {
  if (cli_given(x->c, "steps")) return x->c->run.steps;
  return x->full ? full : quick;
}

/* ------------------------------------------------------------ training */
/* One run from a preset, with the shape and length of the check. The
   learning rate is halved 4 times over the run, as paper B's 20,000 steps
   halved every 4,000. */
typedef struct pb_spec {
  const char *preset;
  int layers, n, param, batch, iso;
  long steps;
  uint64_t seed; /* 0: the check's */
  double lr; /* 0: the preset's */
  int best;  /* keep the best of the last 20 of 100 checkpoints */
  la_train_callback cb;
  void *user;
} pb_spec;

/* The sparse form (B_l, A_l) of preset, its shape and length; the rest
   zero (the check's seed, the preset's learning rate, the last theta). */
static pb_spec pb_sparse(const char *preset, int layers, int n, int batch,
                         long steps) {
  pb_spec s;
  memset(&s, 0, sizeof s);
  s.preset = preset;
  s.layers = layers;
  s.n = n;
  s.param = LA_PARAM_SPARSE;
  s.batch = batch;
  s.steps = steps;
  return s;
}

/* Paper B's model selection: of the last 20 of 100 evenly spaced
   checkpoints, the one with the least loss on the validation batch (drawn
   from the run's data when first needed). */
typedef struct pb_best {
  la_run *r;
  uint64_t seed; /* the run's: its validation batch is its own */
  la_batch val;
  int has_val;
  long from, every;
  double loss;
  la_real *theta;
} pb_best;

static int pb_batch(uint64_t seed, const la_data *g, int count, int which,
                    la_batch *b);

static int pb_best_cb(void *user, const la_train_record *rec) {
  pb_best *b = (pb_best *)user;
  double l;
  if (rec->step < b->from || rec->step % b->every) return 0;
  if (!b->has_val) {
    if (pb_batch(b->seed, &b->r->data, 10000, 1, &b->val)) return 0;
    b->has_val = 1;
  }
  if (la_model_loss(&b->r->model, rec->theta, &b->val, &l, NULL, NULL, 0) == 0 &&
      l < b->loss) {
    b->loss = l;
    memcpy(b->theta, rec->theta, sizeof(la_real) * (size_t)rec->nparams);
  }
  return 0;
}

/* A run field given, zero included (a zero written into the struct would
   mean the preset's value). */
static void pb_give(la_run_config *rc, const char *key, double v) {
  (void)la_run_field_set(rc, la_run_field_find(key), v);
}

/* Paper B's Theorem 4 and GD++ on isotropic data: x ~ N(0, I), w* ~ N(0, I),
   no data setting (paper B's fixes Sigma). */
static void pb_isotropic(la_run_config *rc) {
  pb_give(rc, "setting", 0);
  pb_give(rc, "sigma", LA_SIGMA_IDENTITY);
  pb_give(rc, "wstar", LA_WSTAR_IDENTITY);
}

static int pb_train(pb_ctx *x, const pb_spec *s, la_run *r) {
  la_run_config rc;
  la_run_env env;
  pb_best best;
  long done = 0;
  int st;
  if ((st = la_run_preset(&rc, s->preset, NULL)) != 0) return st;
  rc.model.layers = s->layers;
  pb_give(&rc, "param", s->param);
  rc.data.n = s->n;
  if (s->iso) pb_isotropic(&rc);
  rc.batch = s->batch;
  rc.eval_every = -1;
  rc.steps = s->steps;
  rc.schedule.period = s->steps / 5 > 0 ? s->steps / 5 : 1;
  rc.seed = s->seed ? s->seed : x->seed;
  if (s->lr > 0) rc.opt.lr = s->lr;
  memset(&env, 0, sizeof env);
  memset(&best, 0, sizeof best);
  env.callback = s->cb;
  env.user = s->user;
  if (s->best) {
    best.r = r;
    best.seed = rc.seed;
    best.every = s->steps / 100 > 0 ? s->steps / 100 : 1;
    best.from = s->steps - 19 * best.every;
    best.loss = HUGE_VAL;
    env.callback = pb_best_cb;
    env.user = &best;
  }
  if ((st = la_run_create(r, &rc, &env)) != 0) return st;
  if (s->best &&
      !(best.theta = (la_real *)malloc(sizeof(la_real) * (size_t)r->trainer.n)))
    st = LA_ENOMEM;
  while (done < s->steps && !st) {
    long k = s->steps - done < 100 ? s->steps - done : 100;
    st = la_trainer_run(&r->trainer, k);
    done += k;
    u_progress_step(&x->prog, x->prog.base + done);
  }
  x->prog.base += s->steps;
  if (!st && s->best && best.loss < HUGE_VAL)
    memcpy(r->trainer.theta, best.theta, sizeof(la_real) * (size_t)r->trainer.n);
  free(best.theta);
  if (best.has_val) la_batch_destroy(&best.val);
  if (st) la_run_destroy(r);
  return st;
}

/* A batch of a run's data from the run's seed and a stream of its own:
   validation (1) or test (2), neither the training's nor the
   evaluation's. */
static int pb_batch(uint64_t seed, const la_data *g, int count, int which,
                    la_batch *b) {
  la_rng rng;
  int st = la_batch_create(b, g->cfg.d, g->cfg.n, count);
  if (st) return st;
  la_rng_seed(&rng, seed, LA_STREAM_EVAL - (uint64_t)which);
  if ((st = la_data_sample(g, &rng, b)) != 0) la_batch_destroy(b);
  return st;
}

/* -------------------------------------------------------- the baselines */
/* GD and preconditioned GD with k = 1..K steps, their step sizes tuned on
   val and scored on test; least squares and ridge the same way. */
typedef struct pb_base {
  double gd[4], pgd[4], eta[4], peta[4], ols, ridge, lambda;
} pb_base;

static int pb_baselines(const la_data *g, const la_batch *val,
                        const la_batch *test, int K, pb_base *r) {
  double sinv[64], vl[4], ls[4];
  la_gd_spec s;
  int st, pre;
  if ((st = la_data_sigma_inv(g, sinv)) != 0) return st;
  for (pre = 0; pre < 2; ++pre) {
    double *eta = pre ? r->peta : r->eta, *out = pre ? r->pgd : r->gd;
    int k;
    if ((st = la_gd_tune(val, K, pre ? sinv : NULL, NULL, eta, vl, NULL, 0)))
      return st;
    for (k = 1; k <= K; ++k) {
      memset(&s, 0, sizeof s);
      s.steps = k;
      s.eta = eta[k - 1];
      s.precond = pre ? sinv : NULL;
      if ((st = la_gd_eval(test, &s, ls, NULL, NULL, 0)) != 0) return st;
      out[k - 1] = ls[k - 1];
    }
  }
  if ((st = la_ridge_eval(test, 0, &r->ols, NULL, NULL, 0)) != 0) return st;
  if ((st = la_ridge_tune(val, NULL, &r->lambda, vl, NULL, 0)) != 0) return st;
  return la_ridge_eval(test, r->lambda, &r->ridge, NULL, NULL, 0);
}

static double pb_model_loss(const la_run *r, const la_batch *b) {
  double l = NAN;
  if (la_model_loss(&r->model, r->trainer.theta, b, &l, NULL, NULL, 0)) return NAN;
  return l;
}

/* ------------------------------------------------------------ units */
/* Depth and context train one model a point (a depth L, a context length
   n) and a seed: a unit. Each keeps the best of its last checkpoints on
   its own validation batch and is measured on its own test batch, beside
   the baselines there; it depends on nothing but its point, its seed and
   the check's form, so it runs anywhere: here, one after the other (the
   local run), or as its own command line (`theorem --check C --unit P
   --seed S --out FILE`, which --plan writes). One merge makes the check's
   table from the units, run here or read back from a plan's outputs
   (--from): the same bytes either way. */
enum { PB_HERE, PB_PLAN, PB_FROM };

typedef struct pb_unit {
  int point; /* L, or n */
  uint64_t seed;
  double model; /* the trained model's test loss */
  int has_base; /* the baselines measured: context's every unit, depth's L = 1 */
  pb_base base;
} pb_unit;

#define PB_MAX_POINTS 19

/* The quick forms' learning rate: A_l ~ a_l Sigma^-1 has entries near 10
   (Sigma's smallest eigenvalue is 1/16), which Adam at paper B's 0.01
   reaches only after thousands of steps. */
#ifndef PB_QUICK_LR
#define PB_QUICK_LR 0.05
#endif

static const char *pb_point_name(int check) { return check == CLI_DEPTH ? "L" : "n"; }

/* The points of a check into pt (depth: L = 1..4; context: n), their count. */
static int pb_points(const pb_ctx *x, int check, int *pt) {
  static const int quick_n[] = {2, 3, 5, 10, 20};
  int i, count = check == CLI_DEPTH ? 4 : x->full ? 19 : 5;
  for (i = 0; i < count; ++i)
    pt[i] = check == CLI_DEPTH ? i + 1 : x->full ? i + 2 : quick_n[i];
  return count;
}

/* A unit's training run: its check's preset, shape, batch, length and
   rate, its best checkpoint kept. */
static pb_spec pb_unit_spec(const pb_ctx *x, int check, int point, uint64_t seed) {
  pb_spec s;
  if (check == CLI_DEPTH) {
    s = pb_sparse("b-depth", point, 20, x->full ? 20000 : 10000, pb_steps(x, 1500, 20000));
    s.lr = x->full ? 0 : PB_QUICK_LR;
  } else {
    s = pb_sparse("b-context", 3, point, x->full ? 40000 : 10000, pb_steps(x, 1000, 8000));
    s.lr = (point < 5 ? 0.001 : 0.01) * (x->full ? 1 : PB_QUICK_LR / 0.01);
  }
  s.best = 1;
  s.seed = seed;
  return s;
}

/* NaN of one sign, whatever the arithmetic gave (printf writes "-nan"
   for the other): a unit's numbers read back print the same bytes. */
static void pb_one_nan(double *v, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (v[i] != v[i]) v[i] = NAN;
}

/* Unit (check, point, seed) trained and measured: the model's test loss,
   and where the check reads them the baselines on the same prompts (GD
   and preconditioned GD of K steps, depth 4 and context 3; least squares,
   ridge). */
static int pb_unit_run(pb_ctx *x, int check, int point, uint64_t seed, pb_unit *u) {
  pb_spec s = pb_unit_spec(x, check, point, seed);
  la_run r;
  la_batch val, test;
  int st;
  memset(u, 0, sizeof *u);
  u->point = point;
  u->seed = seed;
  u->has_base = check == CLI_CONTEXT || point == 1;
  if ((st = pb_train(x, &s, &r)) != 0)
    return u_fail(1, "%s, %s = %d, seed %llu: %s", cli_check_names[check],
                  pb_point_name(check), point, (unsigned long long)seed, la_status_str(st));
  st = pb_batch(seed, &r.data, 10000, 1, &val);
  if (!st && (st = pb_batch(seed, &r.data, 10000, 2, &test)) != 0) la_batch_destroy(&val);
  if (!st) {
    if (u->has_base)
      st = pb_baselines(&r.data, &val, &test, check == CLI_DEPTH ? 4 : 3, &u->base);
    u->model = pb_model_loss(&r, &test);
    la_batch_destroy(&val);
    la_batch_destroy(&test);
  }
  la_run_destroy(&r);
  if (st)
    return u_fail(1, "%s baselines, %s = %d, seed %llu: %s", cli_check_names[check],
                  pb_point_name(check), point, (unsigned long long)seed, la_status_str(st));
  pb_one_nan(&u->model, 1);
  pb_one_nan(u->base.gd, 4);
  pb_one_nan(u->base.pgd, 4);
  pb_one_nan(u->base.eta, 4);
  pb_one_nan(u->base.peta, 4);
  pb_one_nan(&u->base.ols, 1);
  pb_one_nan(&u->base.ridge, 1);
  pb_one_nan(&u->base.lambda, 1);
  return 0;
}

/* A unit's output: what it is (the merge takes only its plan's units) and
   its numbers, each read back to the same double. */
static void pb_unit_json(FILE *f, const pb_ctx *x, int check, const pb_unit *u) {
  pb_spec s = pb_unit_spec(x, check, u->point, u->seed);
  jw w;
  jw_begin(&w, f);
  jw_str(&w, "type", "theorem-unit");
  jw_str(&w, "check", cli_check_names[check]);
  jw_int(&w, "point", u->point);
  jw_exact(&w, "seed", (double)u->seed);
  jw_int(&w, "steps", s.steps);
  jw_int(&w, "full", x->full);
  jw_str(&w, "precision", precision_name);
  jw_exact(&w, "model", u->model);
  if (u->has_base) {
    jw_exact_arr(&w, "gd", u->base.gd, 4);
    jw_exact_arr(&w, "pgd", u->base.pgd, 4);
    jw_exact_arr(&w, "eta", u->base.eta, 4);
    jw_exact_arr(&w, "peta", u->base.peta, 4);
    jw_exact(&w, "ols", u->base.ols);
    jw_exact(&w, "ridge", u->base.ridge);
    jw_exact(&w, "lambda", u->base.lambda);
  }
  jw_end(&w);
}

/* A number as jw_exact writes it (null: NaN) into *v: 1, or 0 for
   anything else (a string, an infinity such as 1e400, which jw_exact never
   writes). */
static int pb_jv_real(const jv *a, double *v) {
  if (!a || (a->type != JV_NULL && (a->type != JV_NUM || !isfinite(a->num)))) return 0;
  *v = a->type == JV_NUM ? a->num : NAN;
  return 1;
}

/* Array member key of n numbers (null: NaN) into v; 0 when it is not. */
static int pb_jv_arr(const jv *o, const char *key, double *v, int n) {
  const jv *a = jv_get(o, key);
  int i;
  if (!a || a->type != JV_ARR || a->n != n) return 0;
  for (i = 0; i < n; ++i)
    if (!pb_jv_real(&a->items[i], &v[i])) return 0;
  return 1;
}

static int pb_jv_is(const jv *o, const char *key, const char *want) {
  const char *v = jv_str(o, key);
  return v && !strcmp(v, want);
}

/* Unit u (its point and seed set) from its output at path: 1 when that is
   this unit's, of this form and precision, with the numbers the check
   reads; else 0 (missing, unreadable, or another plan's). */
static int pb_unit_load(const pb_ctx *x, int check, const char *path, pb_unit *u) {
  pb_spec s = pb_unit_spec(x, check, u->point, u->seed);
  char *text = u_slurp(path, NULL);
  const char *err;
  jv o;
  int ok;
  if (!text) return 0;
  ok = jv_parse(text, &o, &err) == 0;
  free(text);
  if (!ok) return 0;
  ok = pb_jv_is(&o, "type", "theorem-unit") && pb_jv_is(&o, "check", cli_check_names[check]) &&
       pb_jv_is(&o, "precision", precision_name) &&
       jv_long(&o, "point", 1, PB_MAX_POINTS + 1, -1) == u->point &&
       jv_num(&o, "seed") == (double)u->seed && jv_long(&o, "steps", 1, 9e15, -1) == s.steps &&
       jv_long(&o, "full", 0, 1, -1) == x->full && pb_jv_real(jv_get(&o, "model"), &u->model);
  u->has_base = pb_jv_arr(&o, "gd", u->base.gd, 4) && pb_jv_arr(&o, "pgd", u->base.pgd, 4) &&
                pb_jv_arr(&o, "eta", u->base.eta, 4) && pb_jv_arr(&o, "peta", u->base.peta, 4) &&
                pb_jv_real(jv_get(&o, "ols"), &u->base.ols) &&
                pb_jv_real(jv_get(&o, "ridge"), &u->base.ridge) &&
                pb_jv_real(jv_get(&o, "lambda"), &u->base.lambda);
  if (check == CLI_CONTEXT || u->point == 1) ok = ok && u->has_base;
  jv_free(&o);
  return ok;
}

/* A unit's output in the plan folder. */
static void pb_unit_path(const pb_ctx *x, int check, const pb_unit *u, char *buf, size_t cap) {
  snprintf(buf, cap, "%.4000s/runs/%s-%s%d-seed%llu.json", x->plan, cli_check_names[check],
           pb_point_name(check), u->point, (unsigned long long)u->seed);
}

/* A unit as one command line: this program's theorem with every flag
   that decides the unit (its length explicit), its output its own. */
static int pb_unit_words(const pb_ctx *x, int check, const pb_unit *u, words *w) {
  cli_config c = *x->c;
  char path[4200];
  pb_unit_path(x, check, u, path, sizeof path);
  c.plan = c.from = c.svg = NULL;
  c.slurm = 0;
  c.seeds = -1;
  c.out = path;
  c.opts.theorem.check = check;
  c.opts.theorem.unit = u->point;
  cli_give(&c, "seed", (double)u->seed);
  cli_give(&c, "steps", (double)pb_unit_spec(x, check, u->point, u->seed).steps);
  return words_add(w, x->program) || words_add(w, "theorem") ||
                 words_command(w, &c, CLI_THEOREM, NULL)
             ? -1
             : 0;
}

/* The units of a check, every point of every seed (seed by seed, the
   order the means add them), their points and seeds set. */
static int pb_unit_list(const pb_ctx *x, int check, pb_unit **units, int *count) {
  int pt[PB_MAX_POINTS], n = pb_points(x, check, pt), q, i;
  pb_unit *u = (pb_unit *)calloc((size_t)n * (size_t)x->seeds, sizeof(pb_unit));
  if (!u) return u_oom();
  for (q = 0; q < x->seeds; ++q)
    for (i = 0; i < n; ++i) {
      u[q * n + i].point = pt[i];
      u[q * n + i].seed = x->seed + (uint64_t)q;
    }
  *units = u;
  *count = n * x->seeds;
  return 0;
}

/* Each unit trained here, or read from the plan's outputs; those missing
   (or another plan's) named with the commands that redo them, then
   EXIT_FAILED. */
static int pb_unit_gather(pb_ctx *x, int check, pb_unit *u, int n) {
  int i, missing = 0, st = 0;
  for (i = 0; i < n && !st; ++i) {
    char path[4200];
    words w;
    if (x->mode == PB_HERE) {
      st = pb_unit_run(x, check, u[i].point, u[i].seed, &u[i]);
      continue;
    }
    pb_unit_path(x, check, &u[i], path, sizeof path);
    if (pb_unit_load(x, check, path, &u[i])) continue;
    if (!missing++)
      fprintf(stderr, "linattn theorem: the units of the %s check whose output is "
                      "missing (or another plan's); each line redoes one:\n",
              cli_check_names[check]);
    memset(&w, 0, sizeof w);
    if (pb_unit_words(x, check, &u[i], &w) || words_line(stderr, &w)) st = u_oom();
    words_free(&w);
  }
  if (!st && missing)
    st = u_fail(EXIT_FAILED, "%d of the %s check's %d units have no output yet", missing,
                cli_check_names[check], n);
  return st;
}

/* The plan of a check: its units' commands as stage 1 (and with --slurm
   its job array), the merge `theorem --from DIR` with the outputs asked
   for. */
static int pb_unit_plan(pb_ctx *x, int check) {
  pb_unit *u = NULL;
  words *cmds = NULL, merge;
  plan_stage p;
  char runs[4400], out[4200], svg[4200];
  int n = 0, i, st;
  memset(&merge, 0, sizeof merge);
  snprintf(runs, sizeof runs, "%.4000s/runs", x->plan);
  if ((st = u_mkdirs(runs)) != 0 || (st = pb_unit_list(x, check, &u, &n)) != 0) return st;
  if (!(cmds = (words *)calloc((size_t)n, sizeof(words)))) st = u_oom();
  for (i = 0; i < n && !st; ++i)
    if (pb_unit_words(x, check, &u[i], &cmds[i])) st = u_oom();
  /* the merge writes the outputs this command was given, from any folder */
  if (!st && ((x->c->out && plan_abs_dir(x->c->out, out, sizeof out)) ||
              (x->c->svg && plan_abs_dir(x->c->svg, svg, sizeof svg))))
    st = EXIT_BAD_INPUT;
  if (!st && (words_add(&merge, x->program) || words_add(&merge, "theorem") ||
              words_add(&merge, "--from") || words_add(&merge, x->plan) ||
              (x->c->out && (words_add(&merge, "--out") || words_add(&merge, out))) ||
              (x->c->svg && (words_add(&merge, "--svg") || words_add(&merge, svg)))))
    st = u_oom();
  if (!st) {
    memset(&p, 0, sizeof p);
    p.dir = x->plan;
    p.program = x->program;
    p.stage = 1;
    p.n = n;
    p.cmds = cmds;
    p.threads = 1; /* a unit trains on one thread */
    p.merge = &merge;
    st = plan_write(&p, x->c->slurm != 0);
  }
  for (i = 0; cmds && i < n; ++i) words_free(&cmds[i]);
  free(cmds);
  free(u);
  words_free(&merge);
  return st;
}

/* A check made of units: its units gathered, then its table (the merge). */
typedef int (*pb_table_fn)(pb_ctx *x, const pb_unit *u, int n);
static int pb_unit_check(pb_ctx *x, int check, pb_table_fn table) {
  pb_unit *u = NULL;
  int n = 0, st;
  if ((st = pb_unit_list(x, check, &u, &n)) == 0 && (st = pb_unit_gather(x, check, u, n)) == 0)
    st = table(x, u, n / x->seeds);
  free(u);
  return st;
}

/* ------------------------------------------------------------ depth */
static int pb_depth_table(pb_ctx *x, const pb_unit *u, int points) {
  pb_spec s = pb_unit_spec(x, CLI_DEPTH, 1, x->seed);
  int seeds = x->seeds, L, k, q, ok = 1;
  double model[4] = {0}, gd[4] = {0}, pgd[4] = {0}, ols = 0, ridge = 0;
  fprintf(x->o,
          "Depth (paper B's depth figure): x ~ N(0, Sigma), w* ~ N(0, "
          "Sigma^-1), n = 20, sparse form (B_l, A_l) trained with Adam lr "
          "%g betas (0.99, 0.9), per-matrix clip 0.01, %d prompts resampled "
          "every 100 steps, %ld steps, lr halved 4 times%s; the best of the "
          "last 20 of 100 checkpoints on a validation batch. Test loss on "
          "10,000 prompts; GD's step sizes tuned on the 10,000 validation "
          "prompts; the mean over %d seed%s (each its own Sigma).\n",
          x->full ? 0.01 : PB_QUICK_LR, s.batch, s.steps,
          x->full ? "" : " (quick form; --full: 20,000 x 20,000 at lr 0.01, 5 seeds)",
          seeds, seeds == 1 ? "" : "s");
  for (q = 0; q < seeds; ++q) {
    const pb_unit *row = u + q * points, *base = row; /* L = 1 holds the baselines */
    for (L = 1; L <= 4; ++L) model[L - 1] += row[L - 1].model / seeds;
    for (k = 0; k < 4; ++k) {
      gd[k] += base->base.gd[k] / seeds;
      pgd[k] += base->base.pgd[k] / seeds;
    }
    ols += base->base.ols / seeds;
    ridge += base->base.ridge / seeds;
  }
  fprintf(x->o, "  L   model      GD (k = L)  precond GD  model / PGD\n");
  for (L = 1; L <= 4; ++L) {
    fprintf(x->o, "  %d   %.5f    %.5f     %.5f     %.3f\n", L, model[L - 1],
            gd[L - 1], pgd[L - 1], model[L - 1] / pgd[L - 1]);
    /* matching or beating preconditioned GD: 5% of slack in the quick form */
    if (!(model[L - 1] <= pgd[L - 1] * (x->full ? 1.02 : 1.05))) ok = 0;
  }
  fprintf(x->o,
          "  least squares %.5f, ridge %.5f (noise-free labels, n > d: both "
          "exact)\n"
          "  paper B (figure): the trained model at or below preconditioned "
          "GD at every depth (agreement: model / PGD <= %.2f)\n  -> %s\n\n",
          ols, ridge, x->full ? 1.02 : 1.05, th_verdict(ok));
  jw_arr(&x->w, "depth_model", model, 4);
  jw_arr(&x->w, "depth_gd", gd, 4);
  jw_arr(&x->w, "depth_pgd", pgd, 4);
  jw_num(&x->w, "depth_ols", ols);
  jw_num(&x->w, "depth_ridge", ridge);
  if (!ok) x->failed++;
  {
    static const double Ls[4] = {1, 2, 3, 4};
    pb_fig F;
    memset(&F, 0, sizeof F);
    F.title = "Paper B's depth figure: test loss against the number of layers";
    F.xlabel = "layers L (GD: k = L steps)";
    F.n = 4;
    F.ns = F.drawn = 3;
    F.x = Ls;
    F.y[0] = model; F.label[0] = "trained linear transformer";
    F.y[1] = gd; F.label[1] = "gradient descent, best step size";
    F.y[2] = pgd; F.label[2] = "preconditioned GD (Sigma^-1), best step size";
    return pb_figure(x, "depth", &F);
  }
}

static int pb_depth(pb_ctx *x) { return pb_unit_check(x, CLI_DEPTH, pb_depth_table); }

/* ------------------------------------------------------------ context */
static int pb_context_table(pb_ctx *x, const pb_unit *u, int count) {
  pb_spec s = pb_unit_spec(x, CLI_CONTEXT, 2, x->seed);
  int i, q, ok = 1;
  double model[PB_MAX_POINTS], pgd[PB_MAX_POINTS], gd[PB_MAX_POINTS], ols[PB_MAX_POINTS],
      ns[PB_MAX_POINTS];
  fprintf(x->o,
          "Context length (paper B's figure): L = 3, sparse form, AdamW betas "
          "(0.99, 0.99), lr 0.001 for n < 5 else 0.01 (x %g in the quick "
          "form), per-matrix clip 0.001, %d fresh prompts per step, %ld "
          "steps, lr halved 4 times%s; the best of the last 20 of 100 "
          "checkpoints on the validation batch; the mean over %d seed%s "
          "(each its own Sigma).\n"
          "  n    model      GD (k = 3)  precond GD  least squares  model / PGD\n",
          x->full ? 1.0 : PB_QUICK_LR / 0.01, s.batch, s.steps,
          x->full ? "" : " (quick form; --full: n = 2..20, 40,000 x 8,000, 5 seeds)",
          x->seeds, x->seeds == 1 ? "" : "s");
  for (i = 0; i < count; ++i) {
    model[i] = gd[i] = pgd[i] = ols[i] = 0;
    for (q = 0; q < x->seeds; ++q) { /* the mean over the seeds */
      const pb_unit *v = &u[q * count + i];
      model[i] += v->model / x->seeds;
      gd[i] += v->base.gd[2] / x->seeds;
      pgd[i] += v->base.pgd[2] / x->seeds;
      ols[i] += v->base.ols / x->seeds;
    }
    ns[i] = u[i].point;
    fprintf(x->o, "  %-3d  %-9.5f  %-10.5f  %-10.5f  %-13.5f  %.3f\n", u[i].point,
            model[i], gd[i], pgd[i], ols[i], model[i] / pgd[i]);
    if (!(model[i] <= pgd[i] * (x->full ? 1.02 : 1.05))) ok = 0;
  }
  fprintf(x->o,
          "  paper B (figure): the trained model at or below 3-step "
          "preconditioned GD at every n (agreement: model / PGD <= %.2f); "
          "the labels are noise-free, so least squares is exact from n = d = "
          "5 on\n  -> %s\n\n",
          x->full ? 1.02 : 1.05, th_verdict(ok));
  jw_arr(&x->w, "context_n", ns, count);
  jw_arr(&x->w, "context_model", model, count);
  jw_arr(&x->w, "context_gd", gd, count);
  jw_arr(&x->w, "context_pgd", pgd, count);
  jw_arr(&x->w, "context_ols", ols, count);
  if (!ok) x->failed++;
  {
    pb_fig F;
    memset(&F, 0, sizeof F);
    F.title = "Paper B's context-length figure: test loss against n (L = 3)";
    F.xlabel = "context length n";
    F.n = count;
    F.ns = 4;
    F.drawn = 3; /* least squares is exact from n = d on: in the CSV only */
    F.x = ns;
    F.y[0] = model; F.label[0] = "trained linear transformer";
    F.y[1] = gd; F.label[1] = "3 steps of GD, best step size";
    F.y[2] = pgd; F.label[2] = "3 steps of preconditioned GD";
    F.y[3] = ols; F.label[3] = "least squares";
    return pb_figure(x, "context", &F);
  }
}

static int pb_context(pb_ctx *x) { return pb_unit_check(x, CLI_CONTEXT, pb_context_table); }

/* ------------------------------------------------------------ theorem 4 */
/* The learned b_l = tr(B_l)/d and a_l = tr(Sigma^1/2 A_l Sigma^1/2)/d and
   the distances of B_l and of the whitened A_l from multiples of I. */
typedef struct pb_t4 {
  int d;
  double sh[64];
  int L, nrec;
  double step[64], db[64][4], da[64][4];
  long every;
} pb_t4;

static void pb_t4_measure(const pb_t4 *t, const la_real *theta, double *db,
                          double *da, double *b, double *a) {
  int d = t->d, l, i;
  for (l = 0; l < t->L; ++l) {
    double B[64] = {0}, A[64] = {0}, u[64], s[64], tb = 0, ta = 0;
    for (i = 0; i < d * d; ++i) {
      B[i] = (double)theta[2 * l * d * d + i];
      A[i] = (double)theta[(2 * l + 1) * d * d + i];
    }
    th_mul(d, t->sh, A, u);
    th_mul(d, u, t->sh, s);
    for (i = 0; i < d; ++i) {
      tb += B[i * d + i];
      ta += s[i * d + i];
    }
    db[l] = th_dist(d, B);
    da[l] = th_dist(d, s);
    if (b) b[l] = tb / d;
    if (a) a[l] = ta / d;
  }
}

static int pb_t4_cb(void *user, const la_train_record *rec) {
  pb_t4 *t = (pb_t4 *)user;
  if (rec->step % t->every || t->nrec >= 64) return 0;
  t->step[t->nrec] = (double)rec->step;
  pb_t4_measure(t, rec->theta, t->db[t->nrec], t->da[t->nrec], NULL, NULL);
  t->nrec++;
  return 0;
}

static int pb_theorem4_case(pb_ctx *x, int iso, int n, long steps, int batch,
                            int *ok) {
  pb_t4 t;
  pb_spec s;
  la_run r;
  double sig[64], db[4], da[4], b[4], a[4];
  int st, i, l, d;
  memset(&t, 0, sizeof t);
  s = pb_sparse("b-theorem4", 3, n, batch, steps);
  t.L = 3;
  t.every = steps / 8 > 0 ? steps / 8 : 1;
  s.iso = iso;
  s.cb = pb_t4_cb;
  s.user = &t;
  /* Sigma^1/2 before training, for the callback: the run's data decide
     Sigma, and the same preset and seed give the same Sigma */
  {
    la_run_config rc;
    la_data g;
    la_run_preset(&rc, "b-theorem4", NULL);
    rc.data.n = n;
    if (iso) pb_isotropic(&rc);
    if ((st = la_run_resolve(&rc, &rc)) != 0 ||
        (st = la_data_create(&g, &rc.data, x->seed)) != 0)
      return u_fail(1, "theorem 4: %s", la_status_str(st));
    t.d = rc.data.d;
    th_sigma(&g, t.d, sig);
    th_sqrtm(t.d, sig, t.sh);
    la_data_destroy(&g);
  }
  if ((st = pb_train(x, &s, &r)) != 0)
    return u_fail(1, "theorem 4: %s", la_status_str(st));
  d = r.model.cfg.d;
  th_sigma(&r.data, d, sig);
  th_sqrtm(d, sig, t.sh);
  pb_t4_measure(&t, r.trainer.theta, db, da, b, a);
  la_run_destroy(&r);
  fprintf(x->o, "  %s, n = %d:\n    step    Dist(B_l, I) per layer       "
                "Dist(Sigma^1/2 A_l Sigma^1/2, I) per layer\n",
          iso ? "Sigma = I, w* ~ N(0, I) (GD++)" : "Sigma = paper B's, w* ~ N(0, Sigma^-1)", n);
  for (i = 0; i < t.nrec; ++i) {
    fprintf(x->o, "    %-6.0f ", t.step[i]);
    for (l = 0; l < 3; ++l) fprintf(x->o, " %8.4f", t.db[i][l]);
    fprintf(x->o, "     ");
    for (l = 0; l < 3; ++l) fprintf(x->o, " %8.4f", t.da[i][l]);
    fprintf(x->o, "\n");
  }
  fprintf(x->o, "    end:    b_l = %.4f %.4f %.4f, a_l = %.4f %.4f %.4f; Dist(B) "
                "%.4f %.4f %.4f, Dist(A) %.4f %.4f %.4f\n",
          b[0], b[1], b[2], a[0], a[1], a[2], db[0], db[1], db[2], da[0], da[1], da[2]);
  /* B_L only moves the x rows after the last layer: no gradient reaches
     it, so it stays at its initialization and is not judged */
  for (l = 0; l < 3; ++l) {
    double first = t.nrec ? t.da[0][l] : HUGE_VAL;
    if (x->full ? !(da[l] < 0.1) : !(da[l] < 0.5 && da[l] < first)) *ok = 0;
    if (l < 2 && !(db[l] < (x->full ? 0.2 : 0.7))) *ok = 0;
  }
  {
    char key[64];
    snprintf(key, sizeof key, "theorem4_%s_a", iso ? "iso" : "sigma");
    jw_arr(&x->w, key, a, 3);
    snprintf(key, sizeof key, "theorem4_%s_b", iso ? "iso" : "sigma");
    jw_arr(&x->w, key, b, 3);
    snprintf(key, sizeof key, "theorem4_%s_dist_a", iso ? "iso" : "sigma");
    jw_arr(&x->w, key, da, 3);
    snprintf(key, sizeof key, "theorem4_%s_dist_b", iso ? "iso" : "sigma");
    jw_arr(&x->w, key, db, 3);
  }
  return 0;
}

static int pb_theorem4(pb_ctx *x) {
  long steps = pb_steps(x, 3000, 20000);
  int batch = x->full ? 20000 : 4000, ok = 1, st;
  fprintf(x->o,
          "Theorem 4 (B_l free): B_l -> b_l I and A_l -> a_l Sigma^-1 at a "
          "critical point. L = 3, sparse form, Adam lr 0.1 betas (0.99, 0.9), "
          "per-matrix clip 0.01, %d prompts resampled every 100 steps, %ld "
          "steps, lr halved 4 times%s. n = 20 (paper B's notebook; its text "
          "uses n = 10%s).\n",
          batch, steps, x->full ? "" : " (quick form)",
          x->full ? ", run as well below" : ", in --full");
  if ((st = pb_theorem4_case(x, 1, 20, steps, batch, &ok)) != 0) return st;
  if ((st = pb_theorem4_case(x, 0, 20, steps, batch, &ok)) != 0) return st;
  if (x->full && (st = pb_theorem4_case(x, 0, 10, steps, batch, &ok)) != 0) return st;
  fprintf(x->o, "  theory: both distances go to 0 (agreement: whitened Dist(A_l) "
                "below %s; Dist(B_l) below %s for l < L: B_L gets no gradient, "
                "it only moves x after the last layer)\n  -> %s\n\n",
          x->full ? "0.1" : "0.5 and below its first record (the quick form "
                            "checks the trend)",
          x->full ? "0.2" : "0.7", th_verdict(ok));
  if (!ok) x->failed++;
  return 0;
}

/* ---------------------------------------------------- the family optimum */
/* A trained B = 0 model (LA_PARAM_PGD) of L layers, by L-BFGS with a
   strong-Wolfe line search on one fixed batch; its scalars a_l =
   tr(Sigma^1/2 A_l Sigma^1/2)/d in the order of its layers. */
static int pb_trained_pgd(pb_ctx *x, int L, long steps, int batch, la_run *r,
                          double *a) {
  la_run_config rc;
  la_run_env env;
  double sig[64], sh[64];
  int st, l, i, d;
  if ((st = la_run_preset(&rc, "b-depth", "lbfgs")) != 0) return st;
  rc.model.layers = L;
  rc.model.param = LA_PARAM_PGD;
  rc.data_mode = LA_DATA_FIXED;
  rc.batch = batch;
  rc.eval_every = -1;
  rc.steps = steps;
  rc.seed = x->seed;
  rc.opt.lr = 1;
  rc.opt.history = 50;
  rc.opt.max_iter = 10;
  rc.opt.line_search = LA_LS_STRONG_WOLFE;
  pb_give(&rc, "schedule", LA_SCHED_CONSTANT);
  memset(&env, 0, sizeof env);
  if ((st = la_run_create(r, &rc, &env)) != 0) return st;
  if ((st = la_trainer_run(&r->trainer, steps)) != 0 && st != LA_EDIVERGED) {
    la_run_destroy(r);
    return st;
  }
  x->prog.base += steps;
  u_progress_step(&x->prog, x->prog.base);
  d = r->model.cfg.d;
  th_sigma(&r->data, d, sig);
  th_sqrtm(d, sig, sh);
  for (l = 0; l < L; ++l) {
    double A[64], u[64], s[64], tr = 0;
    th_block(&r->model, r->trainer.theta, l, A);
    th_mul(d, sh, A, u);
    th_mul(d, u, sh, s);
    for (i = 0; i < d; ++i) tr += s[i * d + i];
    a[l] = tr / d;
  }
  return 0;
}

static int pb_optimum(pb_ctx *x) {
  long steps = pb_steps(x, 40, 400);
  int batch = x->full ? 100000 : 20000, L, l, st, ok = 1;
  double a[4], opt[4], lt[4], lo[4], tt[4], to[4], sinv[64];
  static const double paper[4][4] = {{0.769, 0, 0, 0},
                                     {0.519, 1.251, 0, 0},
                                     {0.428, 0.698, 1.729, 0},
                                     {0.375, 0.530, 0.905, 2.167}};
  fprintf(x->o,
          "Optimum of the Theorem 3 family A_l = a_l Sigma^-1, B_l = 0: the a_l "
          "minimizing the loss on the training batch (Newton on the model's "
          "HVPs), beside a B = 0 model trained on that batch (L-BFGS, "
          "strong-Wolfe line search, one fixed batch of %d prompts, %ld "
          "steps%s), its scalars a_l = tr(Sigma^1/2 A_l Sigma^1/2)/d; both "
          "also scored on 20,000 test prompts\n",
          batch, steps, x->full ? "" : ", quick form");
  for (L = 1; L <= 4; ++L) {
    la_run r;
    la_batch test;
    double tr[4];
    la_real fam[4 * 64];
    if ((st = pb_trained_pgd(x, L, steps, batch, &r, a)) != 0)
      return u_fail(1, "optimum, L = %d: %s", L, la_status_str(st));
    st = la_data_sigma_inv(&r.data, sinv);
    if (!st) st = la_pgd_optimum(&r.model, &r.trainer.train, sinv, opt, &lo[L - 1], NULL, 0);
    if (st == LA_ENOCONVERGE) st = 0; /* the last iterate, reported */
    if (!st) st = la_pgd_family_theta(&r.model, sinv, opt, fam);
    if (!st && (st = pb_batch(x->seed, &r.data, 20000, 2, &test)) == 0) {
      lt[L - 1] = pb_model_loss(&r, &r.trainer.train);
      tt[L - 1] = pb_model_loss(&r, &test);
      to[L - 1] = NAN;
      la_model_loss(&r.model, fam, &test, &to[L - 1], NULL, NULL, 0);
      la_batch_destroy(&test);
    }
    la_run_destroy(&r);
    if (st) return u_fail(1, "optimum, L = %d: %s", L, la_status_str(st));
    for (l = 0; l < L; ++l) tr[l] = -a[l];
    fprintf(x->o, "  L = %d  -a_l optimum:", L);
    for (l = 0; l < L; ++l) fprintf(x->o, " %.4f", -opt[l]);
    fprintf(x->o, "  (paper B:");
    for (l = 0; l < L; ++l) fprintf(x->o, " %.3f", paper[L - 1][l]);
    fprintf(x->o, ")\n         -a_l trained, by layer:");
    for (l = 0; l < L; ++l) fprintf(x->o, " %.4f", tr[l]);
    fprintf(x->o, "\n         training batch: trained %.5f, optimum %.5f (%+.2f%%); "
                  "test: trained %.5f, optimum %.5f (%+.2f%%)\n",
            lt[L - 1], lo[L - 1], 100 * (lt[L - 1] / lo[L - 1] - 1), tt[L - 1],
            to[L - 1], 100 * (tt[L - 1] / to[L - 1] - 1));
    if (!(lt[L - 1] <= lo[L - 1] * 1.02 && tt[L - 1] <= to[L - 1] * 1.02)) ok = 0;
    {
      char key[64];
      double o[4];
      for (l = 0; l < L; ++l) o[l] = -opt[l];
      snprintf(key, sizeof key, "optimum%d_step_sizes", L);
      jw_arr(&x->w, key, o, L);
      snprintf(key, sizeof key, "optimum%d_trained", L);
      jw_arr(&x->w, key, tr, L);
    }
  }
  jw_arr(&x->w, "optimum_loss", lo, 4);
  jw_arr(&x->w, "optimum_trained_loss", lt, 4);
  jw_arr(&x->w, "optimum_test_loss", to, 4);
  jw_arr(&x->w, "optimum_trained_test_loss", tt, 4);
  fprintf(x->o,
          "  theory: Theorem 3's critical points are this family; the loss is "
          "symmetric in the a_l (Lemma 4), so which layer takes the largest "
          "step is a fact of training, not of the theory. The trained model's "
          "A_l are full matrices: on its own batch it may go below the "
          "family's optimum, and on fresh prompts it pays for fitting that "
          "batch (the test columns). Paper B's step sizes are a finite "
          "sample's too (docs/paperb.md: the population optimum in closed "
          "form). (agreement: the trained loss within 2%% of the optimum's, on "
          "the training batch and on the test prompts)\n  -> %s\n\n",
          th_verdict(ok));
  if (!ok) x->failed++;
  return 0;
}

/* ------------------------------------------------------------ lemma 4 */
static double pb_loss_at(const la_model *m, const la_real *theta,
                         const la_batch *b) {
  double l = NAN;
  if (la_model_loss(m, theta, b, &l, NULL, NULL, 0)) return NAN;
  return l;
}

static int pb_lemma4(pb_ctx *x) {
  long steps = pb_steps(x, 30, 400);
  int batch = x->full ? 20000 : 5000, st, i, j, e, d, ok;
  double a[3], sw[3], sinv[64], l0, worst = 0, ctrl, tol;
  la_real th[3 * 64], ts[6 * 64];
  la_run r;
  la_batch test;
  la_model sp;
  la_model_config mc;
  if ((st = pb_trained_pgd(x, 3, steps, batch, &r, a)) != 0)
    return u_fail(1, "lemma 4: %s", la_status_str(st));
  d = r.model.cfg.d;
  st = pb_batch(x->seed, &r.data, 20000, 2, &test);
  if (!st) st = la_data_sigma_inv(&r.data, sinv);
  if (!st) st = la_pgd_family_theta(&r.model, sinv, a, th);
  if (st) {
    la_run_destroy(&r);
    return u_fail(1, "lemma 4: %s", la_status_str(st));
  }
  l0 = pb_loss_at(&r.model, th, &test);
  for (i = 0; i < 3; ++i) { /* the three transpositions */
    double li;
    memcpy(sw, a, sizeof sw);
    sw[i] = a[(i + 1) % 3];
    sw[(i + 1) % 3] = a[i];
    la_pgd_family_theta(&r.model, sinv, sw, th);
    li = pb_loss_at(&r.model, th, &test);
    worst = fmax(worst, fabs(li - l0) / l0);
  }
  /* the control: B_l = b_l I with b = 0.1, 0, -0.1 (Theorem 4's family) */
  memset(&mc, 0, sizeof mc);
  mc.d = d;
  mc.n = r.model.cfg.n;
  mc.layers = 3;
  st = la_model_init(&sp, &mc);
  for (i = 0; i < 3; ++i)
    for (e = 0; e < d * d; ++e) {
      ts[2 * i * d * d + e] = (la_real)(e % (d + 1) == 0 ? 0.1 * (1 - i) : 0);
      ts[(2 * i + 1) * d * d + e] = (la_real)(a[i] * sinv[e]);
    }
  ctrl = pb_loss_at(&sp, ts, &test);
  for (j = 0; j < 2 * d * d; ++j) {
    la_real y = ts[j];
    ts[j] = ts[4 * d * d + j];
    ts[4 * d * d + j] = y;
  }
  ctrl = fabs(pb_loss_at(&sp, ts, &test) - ctrl) / ctrl;
  la_batch_destroy(&test);
  la_run_destroy(&r);
  if (st) return u_fail(1, "lemma 4 control: %s", la_status_str(st));
  tol = sizeof(la_real) == 8 ? 1e-12 : 1e-5;
  ok = worst < tol && ctrl > 1e-3;
  fprintf(x->o,
          "Lemma 4: exchanging two layers' a_l (A_l = a_l Sigma^-1, B_l = 0) "
          "leaves the loss unchanged. The a_l of a trained 3-layer B = 0 model "
          "(%.4f %.4f %.4f), loss %.6f on 20,000 test prompts: the largest "
          "relative change over the three exchanges %.2e (agreement: below %.0e, "
          "rounding in %s); the control, layers 1 and 3 exchanged with B_l = "
          "b_l I, b = 0.1, 0, -0.1: %.2e (must be visible, above 1e-3)\n  -> %s\n\n",
          -a[0], -a[1], -a[2], l0, worst, tol, precision_name, ctrl, th_verdict(ok));
  jw_num(&x->w, "lemma4_change", worst);
  jw_num(&x->w, "lemma4_control", ctrl);
  if (!ok) x->failed++;
  return 0;
}

/* ------------------------------------------------------------ commands */
typedef int (*pb_check_fn)(pb_ctx *x);

static int pb_run_checks(pb_ctx *x, const int *which, int count) {
  static const pb_check_fn fn[] = {pb_depth, pb_context, pb_theorem4, pb_lemma4,
                                   pb_optimum};
  int i, st = 0;
  for (i = 0; i < count && !st; ++i) st = fn[which[i] - CLI_DEPTH](x);
  return st;
}

/* The context of checks writing their text to o, their numbers to json
   (NULL: none, a unit's or a plan's). */
static void pb_init(pb_ctx *x, const cli_config *c, FILE *o, FILE *json) {
  memset(x, 0, sizeof *x);
  x->c = c;
  x->o = o;
  x->full = (int)c->full;
  x->seeds = c->seeds > 0 ? (int)c->seeds : x->full ? 5 : 1;
  x->seed = cli_given(c, "seed") ? c->run.seed : 1;
  if (json) {
    jw_begin(&x->w, json);
    jw_str(&x->w, "type", "theorem");
  }
  u_progress_init(&x->prog, "paper B", 1);
}

/* The check, its text on stdout and its numbers at --out: its units
   trained here (PB_HERE), or read from the outputs of the plan in plan
   (PB_FROM; program redoes those missing). */
static int pb_theorem_run(const cli_config *c, int mode, const char *plan,
                          const char *program) {
  pb_ctx x;
  u_out out;
  FILE *sink;
  int st, which = (int)c->opts.theorem.check;
  if ((st = u_open(&out, c->out ? c->out : NULL)) != 0) return st;
  sink = c->out ? out.f : fopen("/dev/null", "w");
  if (!sink) return u_fail(1, "cannot open /dev/null");
  pb_init(&x, c, stdout, sink);
  x.mode = mode;
  x.plan = plan;
  x.program = program;
  st = pb_run_checks(&x, &which, 1);
  jw_int(&x.w, "failed", x.failed);
  jw_end(&x.w);
  u_progress_end(&x.prog);
  if (!c->out) (void)fclose(sink);
  else if (st) u_abort(&out);
  else if ((st = u_commit(&out)) != 0) return st;
  if (st) return st;
  printf("%s\n", x.failed ? "some checks are OFF" : "every check agrees with the theory");
  return x.failed ? 1 : 0;
}

/* `theorem --check depth|context --unit P`: one unit (the model of depth
   or context length P from --seed) trained, its numbers into --out. */
static int pb_theorem_unit(const cli_config *c) {
  pb_ctx x;
  pb_unit u;
  u_out out;
  int pt[PB_MAX_POINTS], n, i, which = (int)c->opts.theorem.check, st;
  pb_init(&x, c, stdout, NULL);
  n = pb_points(&x, which, pt);
  for (i = 0; i < n && pt[i] != c->opts.theorem.unit; ++i) continue;
  if (i == n)
    return u_fail(EXIT_BAD_INPUT, "--unit %ld: the %s check's points are %s",
                  c->opts.theorem.unit, cli_check_names[which],
                  which == CLI_DEPTH ? "the depths 1 to 4"
                  : x.full           ? "the context lengths 2 to 20"
                                     : "the context lengths 2, 3, 5, 10 and 20 (--full: 2 to 20)");
  if (!c->out) return u_fail(EXIT_BAD_INPUT, "--unit: its numbers go into --out FILE; give one");
  if (c->seeds > 0)
    return u_fail(EXIT_BAD_INPUT, "--seeds: a unit trains one seed (--seed S)");
  if (c->svg)
    return u_fail(EXIT_BAD_INPUT, "--svg: a unit draws no figure; its plan's merge does "
                                  "(theorem --from DIR --svg FILE)");
  if ((st = u_open(&out, c->out)) != 0) return st;
  st = pb_unit_run(&x, which, (int)c->opts.theorem.unit, x.seed, &u);
  u_progress_end(&x.prog);
  if (st) {
    u_abort(&out);
    return st;
  }
  pb_unit_json(out.f, &x, which, &u);
  if ((st = u_commit(&out)) != 0) return st;
  printf("%s, %s = %d, seed %llu: the trained model's test loss %.5f\n",
         cli_check_names[which], pb_point_name(which), u.point,
         (unsigned long long)u.seed, u.model);
  return 0;
}

/* What a theorem plan's flags leave out: where its work runs and where
   its merge writes (the merge's own --out and --svg). */
static const char *const pb_plan_skip[] = {"plan", "from", "slurm", "out", "svg", NULL};

/* `theorem --check depth|context --plan DIR`: each unit a command line in
   DIR/plan/stage-1.txt, the check's flags in DIR/plan/flags. */
static int pb_theorem_plan(const cli_config *c) {
  char dir[4200], program[4200];
  pb_ctx x;
  int st;
  /* the folder holds this plan alone: an earlier plan's files and units'
     outputs removed */
  if ((st = plan_begin(c->plan, dir, sizeof dir)) != 0 ||
      (st = plan_clear(dir, "runs", ".json")) != 0 ||
      (st = plan_write_flags(dir, c, CLI_THEOREM, pb_plan_skip)) != 0)
    return st;
  plan_program(c->argv0, program, sizeof program);
  pb_init(&x, c, stdout, NULL);
  x.mode = PB_PLAN;
  x.plan = dir;
  x.program = program;
  return pb_unit_plan(&x, (int)c->opts.theorem.check);
}

/* `theorem --from DIR`: the check of the plan in DIR (its flags read
   back; those given here must be the plan's) from its units' outputs,
   into stdout and the --out and --svg given here. */
static int pb_theorem_from(const cli_config *c) {
  char dir[4200], program[4200], flag[300];
  cli_config fc;
  char *text = NULL;
  const char **scratch = NULL;
  int st, differs;
  if ((st = plan_abs_dir(c->from, dir, sizeof dir)) == 0 &&
      (st = plan_flags(dir, c->argv0, "theorem", &fc, &text, &scratch)) == 0) {
    long which = fc.opts.theorem.check;
    if ((differs = plan_flag_differs(c, &fc, CLI_THEOREM, pb_plan_skip, flag, sizeof flag)) < 0)
      st = u_oom();
    else if (differs)
      st = u_fail(EXIT_BAD_INPUT, "%s: the plan in %s was written with other flags "
                  "(its plan/flags); give its own or none", flag, U_Q(dir));
    else if (which != CLI_DEPTH && which != CLI_CONTEXT)
      st = u_fail(EXIT_BAD_INPUT, "%s/plan/flags: not a plan of theorem's depth or "
                  "context check", U_Q(dir));
    else {
      fc.out = c->out;
      fc.svg = c->svg;
      plan_program(c->argv0, program, sizeof program);
      st = pb_theorem_run(&fc, PB_FROM, dir, program);
    }
  }
  free(text);
  free(scratch);
  return st;
}

/* `theorem --check NAME` for paper B's comparative checks; depth and
   context also as a plan (--plan DIR), merged from one (--from DIR), or
   one unit of a plan (--unit P). */
static int pb_theorem(const cli_config *c) {
  int which = (int)c->opts.theorem.check, unit = c->opts.theorem.unit > 0;
  int units = which == CLI_DEPTH || which == CLI_CONTEXT;
  if (cli_given(c, "steps") && c->run.steps < 1)
    return u_fail(EXIT_BAD_INPUT, "--steps 0: the checks train; give at least 1");
  if (c->plan && c->from)
    return u_fail(EXIT_BAD_INPUT, "--plan writes a plan, --from merges one: give one");
  if (c->slurm && !c->plan)
    return u_fail(EXIT_BAD_INPUT, "--slurm writes a plan's job arrays: give it with --plan");
  if (unit && (c->plan || c->from))
    return u_fail(EXIT_BAD_INPUT, "--unit is one command of a plan: give it without "
                                  "--plan or --from");
  /* --from alone takes its check from the plan */
  if (!units && (c->plan || unit || (c->from && which != CLI_ALL)))
    return u_fail(EXIT_BAD_INPUT, "--%s: of the theorem checks only depth and context "
                  "are made of units (one model a depth or context length and a seed); "
                  "--check %s trains and measures in one process",
                  c->plan ? "plan" : unit ? "unit" : "from", cli_check_names[which]);
  if (c->from) return pb_theorem_from(c);
  if (c->seeds > 0 && !units)
    return u_fail(EXIT_BAD_INPUT, "--seeds: the depth and context checks average "
                                  "seeds; this one runs one");
  if (c->svg && !units)
    return u_fail(EXIT_BAD_INPUT, "--svg: the depth and context checks draw a "
                                  "figure; this one draws none");
  if (unit) return pb_theorem_unit(c);
  if (c->plan) return pb_theorem_plan(c);
  return pb_theorem_run(c, PB_HERE, NULL, NULL);
}

/* `reproduce --paper b`: every check's quick form (or --full) into
   DIR/report.md, the numbers into DIR/paperb.json. */
static int pb_reproduce(const cli_config *c) {
  static const int all[] = {CLI_DEPTH, CLI_CONTEXT, CLI_THM4, CLI_LEMMA4,
                            CLI_OPTIMUM};
  const char *dir = c->out_dir ? c->out_dir : "linattn-reproduce-b";
  char path[4200];
  u_out rep, js;
  FILE *r;
  pb_ctx x;
  double t0 = u_now();
  int st;
  if (cli_given(c, "steps") && c->run.steps < 1)
    return u_fail(EXIT_BAD_INPUT, "--steps 0: the checks train; give at least 1");
  u_own(dir);
  if ((st = u_mkdirs(dir)) != 0) return st;
  /* both files through temporaries, as every output of the folder */
  snprintf(path, sizeof path, "%.4000s/report.md", dir);
  if ((st = u_open(&rep, path)) != 0) return st;
  snprintf(path, sizeof path, "%.4000s/paperb.json", dir);
  if ((st = u_open(&js, path)) != 0) {
    u_abort(&rep);
    return st;
  }
  r = rep.f;
  pb_init(&x, c, r, js.f);
  x.dir = dir;
  fprintf(r, "# Paper B (arXiv:2306.00297): the trained linear transformer "
             "beside the algorithms it implements\n\n%s form, seed %llu, "
             "linattn %s (%s, %s). Each check prints its numbers beside paper "
             "B's and a verdict.\n\n```\n",
          x.full ? "Full" : "Quick", (unsigned long long)x.seed,
          la_version_string(), la_backend_name(), precision_name);
  st = pb_run_checks(&x, all, 5);
  fprintf(r, "```\n\n%d check%s OFF; %.0f s.\n\n"
             "![depth](depth.svg)\n\n![context length](context.svg)\n\n"
             "The numbers of each figure: `depth.csv`, `context.csv`; of "
             "every check: `paperb.json`.\n",
          x.failed, x.failed == 1 ? "" : "s", u_now() - t0);
  jw_int(&x.w, "failed", x.failed);
  jw_num(&x.w, "seconds", u_now() - t0);
  jw_end(&x.w);
  u_progress_end(&x.prog);
  if (st) {
    u_abort(&rep);
    u_abort(&js);
  } else if ((st = u_commit(&rep)) != 0) {
    u_abort(&js);
  } else {
    st = u_commit(&js);
  }
  if (st) return st;
  printf("%s/report.md: %s (%.0f s)\n", dir,
         x.failed ? "some checks are OFF" : "every check agrees with paper B",
         u_now() - t0);
  return x.failed ? 1 : 0;
}

#endif /* LINATTN_PAPERB_H */
