/* cli/commands/optimizers.h - `linattn reproduce --optimizers LIST`: paper
   A's question asked of every optimizer in LIST (names of the registry,
   or `all`: every registry optimizer with a one-gradient step). One study
   of the setting the flags say (Setting 1 by default, at its quick or
   --full length, as reproduce.h's lengths give it), in three stages:
     1. the tuner of reproduce.h for each optimizer on a wider grid, OS_GRID
        rates (lr0 / 64 .. 512 lr0 around the registry's or the setting's rate),
        short runs on TUNE_SEEDS seeds scored by tune_score, the rate one
        grid step below the best accepted one;
     2. the runs, every optimizer over the seeds, measuring R, the
        spectrum, the smoothness along the step and the blocks' Hessian
        spectra (block_js_mean) as train does; seed 1's run saves its end;
     3. the gradient noise at each optimizer's end (seed 1's theta).
   The report gives per optimizer the final evaluation loss, R at 750 and
   1250 and R over SGD's and Adam's there (seed by seed, where they are in
   LIST), lambda_max / lambda_median, the correlation of log smoothness
   with log gradient norm, the noise's kurtosis and tail index and
   block_js_mean; the figures R and the loss against iteration for all of them
   (and block_js_mean), each with the CSV behind it. The stages run here, or are
   written as a plan (--plan DIR) and merged (--from DIR) as every study's
   (cli/study/plan.h). */
#ifndef LINATTN_OPTIMIZERS_H
#define LINATTN_OPTIMIZERS_H

#include "reproduce.h"

enum { OS_TUNE, OS_RUN, OS_NOISE };

/* The numbers of each seed behind the table, each a column of seeds.csv;
   pairs are [750, 1250]. */
#define OV_COLUMNS(X)                                                         \
  X(OV_FINAL, "final_eval")                                                   \
  X(OV_R, "R_750") X(OV_R_1250, "R_1250")                                     \
  X(OV_R_SGD, "R_over_sgd_750") X(OV_R_SGD_1250, "R_over_sgd_1250")           \
  X(OV_R_ADAM, "R_over_adam_750") X(OV_R_ADAM_1250, "R_over_adam_1250")       \
  X(OV_L, "lmax_over_lmed_750") X(OV_L_1250, "lmax_over_lmed_1250")           \
  X(OV_CORR, "loglog_corr_smoothness_gradnorm")                               \
  X(OV_JS0, "block_js_mean_init") X(OV_JS, "block_js_mean_1250")
#define OV_ENUM(e, name) e,
enum { OV_COLUMNS(OV_ENUM) OV_N };
#undef OV_ENUM

/* The tuning grid: lr0 * 2^(g - 6), g < OS_GRID. Wider upward than
   reproduce's TUNE_GRID: the registry's rates are language models' (1e-4
   for Lion and Sophia) and the updates bounded per coordinate train this
   testbed best at about a hundred times them. */
#define OS_GRID 16

typedef struct os_opt {
  char name[LA_NAME_MAX];
  double lr0, lr, grid[OS_GRID], score[OS_GRID];
  int best;       /* the grid's best accepted rate, -1 none */
  runlog *logs;   /* per seed */
  int *ok;        /* 1 completed, 0 diverged, -1 missing or failed */
  jv noise;
  int has_noise;
  double *v[OV_N]; /* per seed */
} os_opt;

typedef struct os_job {
  int kind, opt, seed, grid, index;
  cli_config cfg;
  long steps;
  double cost;
} os_job;

typedef struct os_study {
  const cli_config *c;
  study S; /* the setting's study (reproduce.h's study_init): base flags,
              lengths, seeds, folder, precision, title */
  os_opt *o;
  int nopt, mode, sgd, adam; /* sgd, adam: their index in o, -1 none */
  char program[2][4200], dir_abs[4200];
  os_job *jobs; /* the pool's, sorted */
  int diverged, failed;
} os_study;

/* Whether a registry optimizer steps on one gradient (a closure
   optimizer evaluates again within a step: not the per-step prompts of
   paper A's training). */
static int os_one_gradient(const la_optim_entry *e) {
  return e && e->optimizer->step != la_closure_step;
}

/* LIST into X->o: names of the registry, comma-separated, or `all`. */
static int os_parse(os_study *X, const char *list) {
  int n = la_optim_count(), i, k = 0;
  const char *p = list;
  if (!(X->o = (os_opt *)calloc((size_t)n + 1, sizeof(os_opt)))) return u_oom();
  if (!strcmp(list, "all")) {
    for (i = 0; i < n; ++i)
      if (os_one_gradient(la_optim_entry_at(i)))
        snprintf(X->o[k++].name, LA_NAME_MAX, "%s", la_optim_entry_at(i)->optimizer->name);
    X->nopt = k;
    return 0;
  }
  while (*p) {
    char name[LA_NAME_MAX];
    size_t len = strcspn(p, ",");
    const la_optim_entry *e;
    if (len == 0 || len >= sizeof name)
      return u_fail(EXIT_BAD_INPUT, "--optimizers %s: a name of the registry a comma "
                    "apart (linattn train --help lists them), or all", U_Q(list));
    memcpy(name, p, len);
    name[len] = 0;
    if (!(e = la_optim_find(name)))
      return u_fail(EXIT_BAD_INPUT, "--optimizers: %s is not an optimizer of the registry",
                    U_Q(name));
    if (!os_one_gradient(e))
      return u_fail(EXIT_BAD_INPUT, "--optimizers: %s evaluates again within a step "
                    "(a closure optimizer): the study trains on fresh prompts a step",
                    U_Q(name));
    for (i = 0; i < k; ++i)
      if (!strcmp(X->o[i].name, name))
        return u_fail(EXIT_BAD_INPUT, "--optimizers: %s twice", U_Q(name));
    if (k == n) return u_fail(EXIT_BAD_INPUT, "--optimizers: more names than the registry's");
    snprintf(X->o[k++].name, LA_NAME_MAX, "%s", name);
    p += len;
    if (*p == ',') ++p;
  }
  X->nopt = k;
  return k ? 0 : u_fail(EXIT_BAD_INPUT, "--optimizers: no optimizer named");
}

/* The flags of one run: optimizer i, seed, learning rate (lr 0: the
   setting's or the registry's). */
static int os_config(const os_study *X, const cli_config *base, int i, long seed,
                     double lr, cli_config *j, la_run_config *rc) {
  char err[600];
  *j = *base;
  cli_give_name(j, "opt", X->o[i].name);
  cli_give(j, "seed", (double)seed);
  if (lr > 0) cli_give(j, "lr", lr);
  if (cli_run_of(j, rc, err, sizeof err) != CLI_OK)
    return u_fail(EXIT_BAD_INPUT, "%s: %s", X->o[i].name, err);
  return 0;
}

/* ------------------------------------------------------------ paths */
static void os_path(const os_study *X, int kind, int i, int g, int seed, char *buf,
                    size_t cap) {
  const char *d = X->S.dir, *n = X->o[i].name;
  if (kind == OS_TUNE) snprintf(buf, cap, "%.4000s/tune/%s-lr%d-seed%d.jsonl", d, n, g, seed);
  else if (kind == OS_RUN) snprintf(buf, cap, "%.4000s/runs/%s-seed%d.jsonl", d, n, seed);
  else snprintf(buf, cap, "%.4000s/noise/%s.json", d, n);
}

/* Seed 1's end, which the noise is measured at. */
static void os_ckpt(const os_study *X, int i, char *buf, size_t cap) {
  snprintf(buf, cap, "%.4000s/runs/%s-seed1.ckpt", X->S.dir, X->o[i].name);
}

/* A job's command line: train of a run (seed 1's saving its end), or
   noise at that end. */
static int os_words(const os_study *X, const os_job *j, words *w) {
  char path[4200], ckpt[4200];
  cli_config c = j->cfg;
  os_path(X, j->kind, j->opt, j->grid, j->seed, path, sizeof path);
  os_ckpt(X, j->opt, ckpt, sizeof ckpt);
  if (j->kind == OS_NOISE) {
    c = X->S.base;
    c.cmd = CLI_NOISE;
    cli_opts_defaults(&c);
    memset(c.given, 0, sizeof c.given); /* the checkpoint's run */
    c.opts.measure.at = ckpt;
  } else if (j->kind == OS_RUN && j->seed == 1) {
    c.opts.train.checkpoint = ckpt;
  }
  c.out = path;
  return words_add(w, X->program[X->S.dbl]) ||
                 words_add(w, j->kind == OS_NOISE ? "noise" : "train") ||
                 words_command(w, &c, j->kind == OS_NOISE ? CLI_NOISE : CLI_TRAIN, job_skip)
             ? -1
             : 0;
}

static int os_job_run(void *ctx, int i, u_progress *p) {
  os_study *X = (os_study *)ctx;
  const os_job *j = &X->jobs[i];
  words w;
  int st;
  memset(&w, 0, sizeof w);
  if (os_words(X, j, &w)) {
    words_free(&w);
    return u_oom();
  }
  st = repro_run_words(&w, X->S.dbl != REPRO_BUILD_DOUBLE, j->kind == OS_TUNE,
                       j->kind == OS_NOISE, p);
  words_free(&w);
  return st;
}

static int os_cmp_cost(const void *a, const void *b) {
  const os_job *x = (const os_job *)a, *y = (const os_job *)b;
  if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Whether job j's output is there and is its command's: 0; 1 with why. */
static int os_check(const os_study *X, const os_job *j, const words *w, int *missing,
                    char *why, size_t cap) {
  const char *precision = X->S.dbl ? "double" : "float";
  char path[4200], err[U_QCAP + 200];
  struct stat sb;
  int bad = 1;
  os_path(X, j->kind, j->opt, j->grid, j->seed, path, sizeof path);
  *missing = stat(path, &sb) != 0 || !S_ISREG(sb.st_mode);
  if (*missing) {
    snprintf(why, cap, "no output");
    return 1;
  }
  if (j->kind == OS_NOISE) { /* of the run that seed 1's command trains */
    char *text = u_slurp(path, NULL);
    const char *jwhy = NULL, *opt, *prec;
    la_run_config rc;
    cli_config jc;
    jv o;
    if (!text || jv_parse(text, &o, &jwhy) != 0) {
      snprintf(why, cap, "unreadable or not JSON");
      free(text);
      return 1;
    }
    free(text);
    opt = jv_str(&o, "opt");
    prec = jv_str(&o, "precision");
    if (os_config(X, &X->S.base, j->opt, 1, X->o[j->opt].lr, &jc, &rc) != 0)
      snprintf(why, cap, "its run cannot be built");
    else if (!jv_str(&o, "type") || strcmp(jv_str(&o, "type"), "noise") != 0)
      snprintf(why, cap, "not a noise measurement");
    else if (!opt || strcmp(opt, X->o[j->opt].name) != 0 || jv_num(&o, "lr") != rc.opt.lr ||
             jv_num(&o, "seed") != 1 || jv_num(&o, "step") != (double)rc.steps)
      snprintf(why, cap, "not at the end of %s's seed 1 run at lr %g", X->o[j->opt].name,
               rc.opt.lr);
    else if (prec && strcmp(prec, precision) != 0)
      snprintf(why, cap, "computed in %s, its command's program in %s", prec, precision);
    else if (!(jv_num(&o, "samples") >= 1) || !isfinite(jv_num(&o, "kurtosis")))
      snprintf(why, cap, "its samples or kurtosis is missing");
    else
      bad = 0;
    jv_free(&o);
    return bad;
  } else {
    runlog r;
    if (runlog_load(path, &r, err, sizeof err) != 0) {
      snprintf(why, cap, "unreadable: %s", err);
      return 1;
    }
    if (!r.has_summary) snprintf(why, cap, "cut short: no summary line");
    else if (!jv_str(&r.config, "precision")) snprintf(why, cap, "no precision recorded");
    else bad = job_output_matches(w, &r.config, precision, why, cap);
    runlog_free(&r);
    return bad;
  }
}

/* A stage: run here, written into the plan, or its outputs found (as
   reproduce.h's repro_stage). */
static int os_stage(os_study *X, int stage, os_job *jobs, int n, const char *what) {
  int i, missing = 0, wrong = 0, st = 0;
  words *cmds;
  if (!n) return 0;
  if (X->mode == REPRO_HERE) {
    long *totals = (long *)calloc((size_t)n, sizeof(long));
    int *status = (int *)calloc((size_t)n, sizeof(int));
    os_job *sorted = (os_job *)calloc((size_t)n, sizeof(os_job));
    int procs = (int)(X->c->jobs > 0 ? X->c->jobs : la_cpu_count());
    if (!totals || !status || !sorted) st = u_oom();
    for (i = 0; i < n && !st; ++i) {
      sorted[i] = jobs[i];
      sorted[i].index = i;
    }
    if (!st) {
      qsort(sorted, (size_t)n, sizeof(os_job), os_cmp_cost);
      for (i = 0; i < n; ++i) totals[i] = sorted[i].steps;
      X->jobs = sorted;
      (void)u_pool(os_job_run, X, n, procs, totals, what, status);
      X->jobs = NULL;
    }
    free(totals);
    free(status);
    free(sorted);
    if (st) return st;
  }
  if (!(cmds = (words *)calloc((size_t)n, sizeof(words)))) return u_oom();
  for (i = 0; i < n && !st; ++i) {
    char why[U_QCAP + 400], path[4200];
    int gone;
    if (os_words(X, &jobs[i], &cmds[i])) st = u_oom();
    else if (X->mode != REPRO_PLAN &&
             os_check(X, &jobs[i], &cmds[i], &gone, why, sizeof why) &&
             (X->mode == REPRO_FROM || !gone)) {
      if (missing + wrong == 0)
        fprintf(stderr, "linattn reproduce: the runs of stage %d whose output is "
                        "missing or not their command's; each line redoes one:\n", stage);
      os_path(X, jobs[i].kind, jobs[i].opt, jobs[i].grid, jobs[i].seed, path, sizeof path);
      fprintf(stderr, "# %s: %s\n", U_Q(path), why);
      (void)words_line(stderr, &cmds[i]);
      if (gone) missing++;
      else wrong++;
    }
  }
  if (!st && X->mode == REPRO_PLAN) {
    plan_stage p;
    words merge;
    memset(&p, 0, sizeof p);
    memset(&merge, 0, sizeof merge);
    p.dir = X->S.dir;
    p.program = X->program[REPRO_BUILD_DOUBLE];
    p.stage = stage;
    p.n = n;
    p.cmds = cmds;
    p.threads = X->c->threads > 0 ? X->c->threads : 1;
    p.jobs = X->c->jobs;
    p.merge = &merge;
    if (words_add(&merge, X->program[REPRO_BUILD_DOUBLE]) || words_add(&merge, "reproduce") ||
        words_add(&merge, "--from") || words_add(&merge, X->S.dir))
      st = u_oom();
    else
      st = plan_write(&p, X->c->slurm != 0);
    words_free(&merge);
  }
  if (!st && (missing || wrong))
    st = u_fail(EXIT_FAILED, "%d of stage %d's %d runs have no output yet, %d an output "
                "that is not their command's", missing, stage, n, wrong);
  for (i = 0; i < n; ++i) words_free(&cmds[i]);
  free(cmds);
  return st;
}

/* The jobs of a kind: the tuning grid (short runs, no diagnostics), the
   runs over the seeds, or the noise at each optimizer's end. */
static int os_jobs(os_study *X, int kind, os_job **out, int *count) {
  const study *S = &X->S;
  int per = kind == OS_TUNE ? OS_GRID * TUNE_SEEDS : kind == OS_RUN ? S->seeds : 1;
  int n = 0, i, g, k, st = 0;
  cli_config base = S->base;
  os_job *jobs = (os_job *)calloc((size_t)X->nopt * (size_t)per, sizeof(os_job));
  *out = NULL;
  *count = 0;
  if (!jobs) return u_oom();
  if (kind == OS_TUNE) {
    cli_give(&base, "steps", (double)S->tune_steps);
    cli_give(&base, "diag_every", 0);
    cli_give(&base, "smooth_every", 0);
    cli_give(&base, "blocks_every", 0);
    base.given[cli_field_index("diag_batches")] = 0;
  }
  for (i = 0; i < X->nopt && !st; ++i)
    for (g = 0; g < (kind == OS_TUNE ? OS_GRID : 1) && !st; ++g)
      for (k = 0; k < (kind == OS_TUNE ? TUNE_SEEDS : kind == OS_RUN ? S->seeds : 1) && !st;
           ++k) {
        os_job *j = &jobs[n++];
        la_run_config rc;
        long seed = kind == OS_TUNE ? TUNE_SEED + k : k + 1;
        st = os_config(X, &base, i, seed, kind == OS_TUNE ? X->o[i].grid[g] : X->o[i].lr,
                       &j->cfg, &rc);
        j->kind = kind;
        j->opt = i;
        j->grid = g;
        j->seed = (int)seed;
        j->steps = kind == OS_NOISE ? S->base.samples : rc.steps;
        j->cost = kind == OS_NOISE ? job_cost(&rc, 0, J_NOISE)
                                   : job_cost(&rc, kind == OS_RUN ? run_nparams(&rc) : 0,
                                              kind == OS_RUN ? J_RUN : J_TUNE);
      }
  if (st) {
    free(jobs);
    return st;
  }
  *out = jobs;
  *count = n;
  return 0;
}

/* The tuner's choice by reproduce.h's rule (tune_score, tune_pick): a
   rate any of whose runs diverged, skipped a step or did not train is
   rejected; one grid step below the accepted rate of the lowest mean score
   (every rate rejected: the setting's). */
static void os_decide(os_study *X) {
  int i, g, k, pick;
  for (i = 0; i < X->nopt; ++i) {
    os_opt *o = &X->o[i];
    for (g = 0; g < OS_GRID; ++g) {
      double sum = 0;
      for (k = 0; k < TUNE_SEEDS; ++k) {
        char path[4200];
        os_path(X, OS_TUNE, i, g, TUNE_SEED + k, path, sizeof path);
        sum += tune_score(path);
      }
      o->score[g] = sum / TUNE_SEEDS; /* NaN when any seed's is */
    }
    o->best = tune_pick(o->score, OS_GRID, &pick);
    o->lr = o->best >= 0 ? o->grid[pick] : o->lr0;
  }
}

/* The stages (as reproduce.h's repro_stages): *later when one remains for
   another time. */
static int os_stages(os_study *X, int *later) {
  static const char *const what[3] = {"tuning", "runs", "noise"};
  int kind, stage = 1, st = 0, n;
  os_job *jobs = NULL;
  *later = 0;
  for (kind = OS_TUNE; kind <= OS_NOISE && !st && !*later; ++kind, ++stage) {
    char path[4400];
    struct stat sb;
    if ((st = os_jobs(X, kind, &jobs, &n)) != 0) break;
    snprintf(path, sizeof path, "%.4000s/plan/stage-%d.txt", X->S.dir, stage);
    if (X->mode == REPRO_FROM && stage > 1 && stat(path, &sb) != 0) {
      X->mode = REPRO_PLAN; /* its turn: written */
      *later = 1;
    }
    snprintf(path, sizeof path, "%.4000s/%s", X->S.dir, kind == OS_TUNE ? "tune"
             : kind == OS_RUN ? "runs" : "noise");
    if (X->mode != REPRO_FROM) st = u_mkdirs(path);
    if (!st) st = os_stage(X, stage, jobs, n, what[kind]);
    if (X->mode == REPRO_PLAN) *later = 1;
    free(jobs);
    jobs = NULL;
    if (!st && !*later && kind == OS_TUNE) os_decide(X);
  }
  return st;
}

/* ------------------------------------------------------------ results */
/* Run s of optimizer i's final evaluation loss: +inf when it diverged,
   NaN when it is missing. */
static double os_final(const os_opt *o, int s) {
  if (o->ok[s] == 1) return o->logs[s].final_eval;
  return o->ok[s] == 0 ? HUGE_VAL : NAN;
}

/* The log-log correlation of smoothness with the gradient norm at the
   step's start over a run's first PAIRS_UNTIL steps (la_lsmooth's); NaN
   with fewer than 3 pairs. */
static double os_corr(const runlog *a) {
  const series *sm = &a->f[F_SMOOTH];
  double *g = (double *)malloc(sizeof(double) * (size_t)(sm->n + 1));
  double *s = (double *)malloc(sizeof(double) * (size_t)(sm->n + 1)), out = NAN;
  int j, n = 0;
  la_lsmooth_fit f;
  for (j = 0; g && s && j < sm->n && sm->x[j] <= PAIRS_UNTIL; ++j) {
    double gn = series_at(&a->f[F_SGNORM], sm->x[j]);
    if (!(sm->y[j] > 0) || !(gn > 0) || !isfinite(gn)) continue;
    g[n] = gn;
    s[n++] = sm->y[j];
  }
  if (n >= 3 && la_lsmooth(n, g, s, &f, NULL, 0) == 0 && f.used >= 3) out = f.corr_log;
  free(g);
  free(s);
  return out;
}

static int os_load(os_study *X) {
  int k = X->S.seeds, i, s, t, js = RUNS_MEASURED(BLOCK_JS_MEAN);
  for (i = 0; i < X->nopt; ++i) {
    os_opt *o = &X->o[i];
    char path[4200], err[600], *text;
    const char *why = NULL;
    o->logs = (runlog *)calloc((size_t)k, sizeof(runlog));
    o->ok = (int *)calloc((size_t)k, sizeof(int));
    o->v[0] = (double *)malloc(sizeof(double) * (size_t)k * OV_N);
    if (!o->logs || !o->ok || !o->v[0]) return u_oom();
    for (t = 1; t < OV_N; ++t) o->v[t] = o->v[0] + (size_t)t * (size_t)k;
    for (s = 0; s < k; ++s) {
      os_path(X, OS_RUN, i, 0, s + 1, path, sizeof path);
      if (runlog_load(path, &o->logs[s], err, sizeof err) != 0) {
        memset(&o->logs[s], 0, sizeof o->logs[s]);
        o->ok[s] = -1;
      } else {
        o->ok[s] = !strcmp(o->logs[s].status, "ok") ? 1
                   : !strcmp(o->logs[s].status, "diverged") ? 0 : -1;
      }
      X->failed += o->ok[s] < 0;
      X->diverged += o->ok[s] == 0;
    }
    os_path(X, OS_NOISE, i, 0, 1, path, sizeof path);
    text = u_slurp(path, NULL);
    o->has_noise = text && jv_parse(text, &o->noise, &why) == 0;
    free(text);
    X->failed += !o->has_noise;
  }
  for (i = 0; i < X->nopt; ++i) {
    os_opt *o = &X->o[i];
    for (s = 0; s < k; ++s) {
      const runlog *a = &o->logs[s];
      o->v[OV_FINAL][s] = os_final(o, s);
      for (t = 0; t < 2; ++t) {
        double r = series_at(&a->f[F_RCOND], repro_at[t]);
        o->v[OV_R + t][s] = r;
        o->v[OV_R_SGD + t][s] =
            X->sgd >= 0 ? r / series_at(&X->o[X->sgd].logs[s].f[F_RCOND], repro_at[t]) : NAN;
        o->v[OV_R_ADAM + t][s] =
            X->adam >= 0 ? r / series_at(&X->o[X->adam].logs[s].f[F_RCOND], repro_at[t]) : NAN;
        o->v[OV_L + t][s] = series_at(&a->f[F_RSPEC], repro_at[t]);
      }
      o->v[OV_CORR][s] = os_corr(a);
      o->v[OV_JS0][s] = series_at(&a->f[js], 0);
      o->v[OV_JS][s] = series_at(&a->f[js], repro_at[1]);
    }
  }
  return 0;
}

static void os_free(os_study *X) {
  int i, s;
  for (i = 0; X->o && i < X->nopt; ++i) {
    for (s = 0; X->o[i].logs && s < X->S.seeds; ++s) runlog_free(&X->o[i].logs[s]);
    free(X->o[i].logs);
    free(X->o[i].ok);
    free(X->o[i].v[0]);
    if (X->o[i].has_noise) jv_free(&X->o[i].noise);
  }
  free(X->o);
}

/* ------------------------------------------------------------ figures */
/* One field's curves, an optimizer each (median and bands over the
   seeds); no file where no run has a value. */
static int os_curves(const os_study *X, const char *file, const char *title,
                     const char *ylabel, int field, int logy) {
  char path[4300], a[32];
  char (*lab)[96] = (char (*)[96])calloc((size_t)X->nopt, sizeof *lab);
  curve *cs = (curve *)calloc((size_t)X->nopt, sizeof(curve));
  runlog **r = (runlog **)calloc((size_t)X->S.seeds, sizeof(runlog *));
  curves_fig cf;
  int i, s, st = 0, drawn = 0;
  if (!lab || !cs || !r) st = u_oom();
  for (i = 0; i < X->nopt && !st; ++i) {
    for (s = 0; s < X->S.seeds; ++s) r[s] = &X->o[i].logs[s];
    if (band_make(r, X->S.seeds, field, &cs[i].b)) st = u_oom();
    snprintf(lab[i], sizeof lab[i], "%s, lr %s", X->o[i].name,
             fmt_num(a, sizeof a, X->o[i].lr, 3));
    cs[i].label = lab[i];
    drawn |= cs[i].b.n > 0;
  }
  if (!st && drawn) {
    cf.title = title;
    cf.xlabel = "iteration";
    cf.ylabel = ylabel;
    cf.logy = logy;
    cf.c = cs;
    cf.n = X->nopt;
    snprintf(path, sizeof path, "%.4000s/%s", X->S.dir, file);
    st = write_curves(path, &cf);
  }
  for (i = 0; cs && i < X->nopt; ++i) band_free(&cs[i].b);
  free(cs);
  free(lab);
  free(r);
  return st;
}

static int os_figures(const os_study *X) {
  char title[300];
  int st;
  snprintf(title, sizeof title, "Evaluation loss, %s, %d optimizers", X->S.title, X->nopt);
  if ((st = os_curves(X, "loss.svg", title, "evaluation loss (log scale)", F_EVAL, 1)))
    return st;
  snprintf(title, sizeof title, "Robust condition number max|H_ii| / median|H_ii|, %s",
           X->S.title);
  if ((st = os_curves(X, "rcond.svg", title, "R (log scale)", F_RCOND, 1))) return st;
  snprintf(title, sizeof title,
           "Block heterogeneity: Jensen-Shannon distance between the blocks' Hessian "
           "spectra, %s", X->S.title);
  return os_curves(X, "block_js_mean.svg", title, "mean JS distance", RUNS_MEASURED(BLOCK_JS_MEAN), 0);
}

/* ------------------------------------------------------------ reports */
/* The mean over the seeds that have a value; NaN for none. */
static double os_mean(const double *v, int n) {
  stats s;
  stats_of(v, n, &s);
  return s.mean;
}

/* The table, as markdown (report.md and stdout). */
static void os_table(FILE *f, const os_study *X) {
  int i, k = X->S.seeds, t;
  char a[64];
  fprintf(f, "| optimizer | lr | final eval loss | R 750 | R 1250 | R / R_SGD 750 | "
             "R / R_SGD 1250 | R / R_Adam 750 | R / R_Adam 1250 | "
             "\xce\xbb_max / \xce\xbb_med 750 | \xce\xbb_max / \xce\xbb_med 1250 | "
             "corr(log smoothness, log \xe2\x80\x96g\xe2\x80\x96) | noise kurtosis | "
             "noise tail index | "
             "block_js_mean init | block_js_mean 1250 |\n");
  fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (i = 0; i < X->nopt; ++i) {
    const os_opt *o = &X->o[i];
    int bad = 0, s;
    for (s = 0; s < k; ++s) bad += o->ok[s] != 1;
    fprintf(f, "| %s | %s%s |", o->name, fmt_num(a, sizeof a, o->lr, 3),
            o->best < 0 ? " (setting's: no grid rate trained)"
            : o->best == 0 || o->best == OS_GRID - 1 ? " (grid edge)" : "");
    fprintf(f, " %s", fmt_num(a, sizeof a, os_mean(o->v[OV_FINAL], k), 4));
    if (bad) fprintf(f, " (%d of %d runs diverged or failed)", bad, k);
    fprintf(f, " |");
    for (t = OV_R; t <= OV_CORR; ++t)
      fprintf(f, " %s |", fmt_num(a, sizeof a, os_mean(o->v[t], k), 3));
    fprintf(f, " %s |", o->has_noise ? fmt_num(a, sizeof a, jv_num(&o->noise, "kurtosis"), 3)
                                     : "n/a");
    fprintf(f, " %s |", o->has_noise ? fmt_num(a, sizeof a, jv_num(&o->noise, "hill_alpha"), 3)
                                     : "n/a");
    fprintf(f, " %s |", fmt_num(a, sizeof a, os_mean(o->v[OV_JS0], k), 3));
    fprintf(f, " %s |\n", fmt_num(a, sizeof a, os_mean(o->v[OV_JS], k), 3));
  }
}

/* table.csv: the table's numbers, each mean with its sd over the seeds. */
static void os_csv_table(FILE *f, void *ctx) {
  const os_study *X = (const os_study *)ctx;
  int i, t, k = X->S.seeds;
  char a[32], b[32];
#define OV_HEAD(e, name) fprintf(f, ",%s,%s_sd", name, name);
  fprintf(f, "optimizer,lr,lr_grid_index,seeds");
  OV_COLUMNS(OV_HEAD)
  fprintf(f, ",noise_kurtosis,noise_hill_alpha\n");
#undef OV_HEAD
  for (i = 0; i < X->nopt; ++i) {
    const os_opt *o = &X->o[i];
    csv_text(f, o->name);
    fprintf(f, ",%s,%d,%d", csv_num(a, o->lr), o->best, k);
    for (t = 0; t < OV_N; ++t) {
      stats s;
      stats_of(o->v[t], k, &s);
      fprintf(f, ",%s,%s", csv_num(a, s.mean), csv_num(b, s.sd));
    }
    fprintf(f, ",%s,%s\n", csv_num(a, o->has_noise ? jv_num(&o->noise, "kurtosis") : NAN),
            csv_num(b, o->has_noise ? jv_num(&o->noise, "hill_alpha") : NAN));
  }
}

/* seeds.csv: every seed's numbers. */
static void os_csv_seeds(FILE *f, void *ctx) {
  const os_study *X = (const os_study *)ctx;
  int i, s, t;
  char a[32];
#define OV_NAME(e, name) fprintf(f, ",%s", name);
  fprintf(f, "optimizer,seed,status");
  OV_COLUMNS(OV_NAME)
  fprintf(f, "\n");
#undef OV_NAME
  for (i = 0; i < X->nopt; ++i)
    for (s = 0; s < X->S.seeds; ++s) {
      const os_opt *o = &X->o[i];
      csv_text(f, o->name);
      fprintf(f, ",%d,%s", s + 1, o->ok[s] == 1 ? "ok" : o->ok[s] == 0 ? "diverged" : "failed");
      for (t = 0; t < OV_N; ++t) fprintf(f, ",%s", csv_num(a, o->v[t][s]));
      fprintf(f, "\n");
    }
}

/* tune.csv: each optimizer's grid and its scores. */
static void os_csv_tune(FILE *f, void *ctx) {
  const os_study *X = (const os_study *)ctx;
  int i, g;
  char a[32], b[32];
  fprintf(f, "optimizer,grid_index,lr,score,chosen\n");
  for (i = 0; i < X->nopt; ++i)
    for (g = 0; g < OS_GRID; ++g) {
      csv_text(f, X->o[i].name);
      fprintf(f, ",%d,%s,%s,%d\n", g, csv_num(a, X->o[i].grid[g]),
              csv_num(b, X->o[i].score[g]), X->o[i].grid[g] == X->o[i].lr);
    }
}

static int os_csv(const os_study *X, const char *name, draw_fn fill) {
  char path[4300];
  u_out o;
  int st;
  snprintf(path, sizeof path, "%.4000s/%s", X->S.dir, name);
  if ((st = u_open(&o, path)) != 0) return st;
  fill(o.f, (void *)X);
  return u_commit(&o);
}

static int os_report(const os_study *X) {
  const study *S = &X->S;
  const la_run_config *rc = &S->rc[0];
  char path[4300];
  u_out out;
  FILE *f;
  int st;
  snprintf(path, sizeof path, "%.4000s/report.md", S->dir);
  if ((st = u_open(&out, path)) != 0) return st;
  f = out.f;
  fprintf(f, "# Optimizers on paper A's question: %s\n\n", S->title);
  fprintf(f, "%d optimizers, %d seeds each, %ld steps (batch %d, global clipping %g), the "
             "robust condition number R = max|H_ii| / median|H_ii| on %d Hessian batches "
             "of %d prompts (their median) and the blocks' Hessian spectra every %d steps, "
             "the directional smoothness every %d. Learning rates: reproduce's tuner for "
             "each (a grid of %d, lr0 / 64 .. %g lr0 around the setting's or the registry's "
             "rate, %ld-step runs on %d seeds of their own, the rate one grid step below the "
             "best that trained on every seed; tune.csv).\n\n",
          X->nopt, S->seeds, rc->steps, rc->batch, rc->clip_norm, rc->measure.diag_batches,
          rc->measure.diag_batch, rc->measure.diag_every, rc->measure.smooth_every, OS_GRID, ldexp(1, OS_GRID - 7),
          S->tune_steps, TUNE_SEEDS);
  os_table(f, X);
  fprintf(f, "\nEach number is the mean over the seeds that have it (seeds.csv: each seed; "
             "table.csv: the sd). R / R_SGD and R / R_Adam are taken seed by seed (the same "
             "seed's initialization and prompts) where sgd and adam are in the list. "
             "\xce\xbb_max / \xce\xbb_med is the Hessian's largest over its median eigenvalue "
             "where the median is resolved. corr is the Pearson correlation of log "
             "smoothness u\xe1\xb5\x80 H u along the step with log ||g|| at its start over the "
             "first %d steps (paper A: smoothness tracks the gradient norm, (L0, L1)-"
             "smoothness). The noise is paper A's, ||g_B - g|| over minibatches, at the end "
             "of seed 1's run (kurtosis 3 and a large tail index: Gaussian). block_js_mean is the "
             "mean Jensen-Shannon distance between the parameter matrices' Hessian block "
             "spectra (0 alike, 1 disjoint; Zhang et al. 2024's heterogeneity). n/a: not "
             "measured (a run shorter than the iteration, a median not resolved, an "
             "optimizer not in the list).\n\n",
          PAIRS_UNTIL);
  fprintf(f, "Figures: rcond.svg (R against iteration), loss.svg (evaluation loss), "
             "block_js_mean.svg; the CSV behind each beside it.\n");
  if (X->diverged || X->failed)
    fprintf(f, "\n%d runs diverged and %d runs or measurements failed: counted above, "
               "drawn up to where they stopped.\n", X->diverged, X->failed);
  return u_commit(&out);
}

/* What this study writes into its folder, removed before it runs. */
static const char *const os_products[] = {"report.md", "table.csv", "seeds.csv", "tune.csv",
                                          "loss.svg", "loss.csv", "rcond.svg", "rcond.csv",
                                          "block_js_mean.svg", "block_js_mean.csv"};

/* `reproduce --optimizers LIST`: run here, planned, or merged (mode). */
static int opt_study(const cli_config *c, int mode, const char *dir) {
  const cli_repro_opts *ro = &c->opts.repro;
  os_study X;
  repro R;
  int i, g, st = 0, later = 0;
  size_t p;
  double t0 = u_now();
  memset(&X, 0, sizeof X);
  memset(&R, 0, sizeof R);
  X.c = c;
  X.mode = mode;
  X.sgd = X.adam = -1;
  if (ro->all || ro->compare_attention || ro->tune || ro->lr_sgd == ro->lr_sgd ||
      ro->lr_adam == ro->lr_adam)
    return u_fail(EXIT_BAD_INPUT, "--optimizers is a study of its own, its rates the "
                  "tuner's: give no --all, --compare-attention, --tune, --lr-sgd or --lr-adam");
  if (cli_given(c, "opt") || cli_given(c, "lr"))
    return u_fail(EXIT_BAD_INPUT, "--optimizers names the optimizers and tunes their "
                  "rates: give no --opt or --lr");
  if (cli_given(c, "data") && c->run.data_mode == LA_DATA_GIVEN)
    return u_fail(EXIT_BAD_INPUT, "--data given: a study draws its own prompts");
  if (strlen(dir) > PLAN_DIR_MAX)
    return u_fail(EXIT_BAD_INPUT, "%s: the folder's path is too long", U_Q(dir));
  if ((st = os_parse(&X, ro->optimizers)) != 0) goto out;
  R.c = c;
  R.dir = dir;
  R.ns = 1;
  if ((st = repro_programs(c, &R)) != 0 || (st = study_init(&R, &X.S, "", NULL, c->preset, 0,
                                                            NULL)) != 0)
    goto out;
  memcpy(X.program, R.program, sizeof X.program);
  R.s = &X.S; /* repro_check_programs reads its precision */
  if (!cli_given(c, "blocks_every"))
    cli_give(&X.S.base, "blocks_every", (double)X.S.base.run.measure.diag_every);
  for (i = 0; i < X.nopt && !st; ++i) {
    cli_config j;
    la_run_config rc;
    os_opt *o = &X.o[i];
    if ((st = os_config(&X, &X.S.base, i, 1, 0, &j, &rc)) != 0) break;
    o->lr0 = o->lr = rc.opt.lr;
    for (g = 0; g < OS_GRID; ++g) o->grid[g] = o->lr0 * ldexp(1, g - 6);
    for (g = 0; g < OS_GRID; ++g) o->score[g] = NAN;
    o->best = -1;
    if (!strcmp(o->name, "sgd")) X.sgd = i;
    if (!strcmp(o->name, "adam")) X.adam = i;
  }
  if (st) goto out;
  if (mode != REPRO_FROM && (st = repro_check_programs(&R)) != 0)
    goto out;
  u_own(dir);
  if ((mode == REPRO_PLAN && (st = plan_begin(dir, X.dir_abs, sizeof X.dir_abs)) != 0) ||
      (st = u_mkdirs(dir)) != 0)
    goto out;
  for (p = 0; p < sizeof os_products / sizeof os_products[0] && !st; ++p) {
    char path[4300];
    snprintf(path, sizeof path, "%.4000s/%s", dir, os_products[p]);
    st = plan_remove(path);
  }
  if (!st && mode != REPRO_FROM) {
    static const char *const sub[4][2] = {{"tune", ".jsonl"}, {"runs", ".jsonl"},
                                          {"runs", ".ckpt"}, {"noise", ".json"}};
    for (p = 0; p < 4 && !st; ++p) st = plan_clear(dir, sub[p][0], sub[p][1]);
  }
  if (!st && mode == REPRO_PLAN) st = plan_write_flags(dir, c, CLI_REPRO, plan_skip);
  if (!st) st = os_stages(&X, &later);
  if (st || later) goto out;
  if ((st = os_load(&X)) != 0 || (st = os_figures(&X)) != 0 || (st = os_report(&X)) != 0 ||
      (st = os_csv(&X, "table.csv", os_csv_table)) != 0 ||
      (st = os_csv(&X, "seeds.csv", os_csv_seeds)) != 0 ||
      (st = os_csv(&X, "tune.csv", os_csv_tune)) != 0)
    goto out;
  os_table(stdout, &X);
  printf("report: %s/report.md (%.1f s)\n", dir, u_now() - t0);
  if (X.diverged || X.failed)
    st = u_fail(1, "%d runs diverged and %d runs or measurements failed; the report "
                "counts them", X.diverged, X.failed);
out:
  os_free(&X);
  return st;
}

#endif /* LINATTN_OPTIMIZERS_H */
