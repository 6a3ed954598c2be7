/* linattn_cli.h - the command line of examples/linattn.c.

   Parsing is one pure function, cli_parse(argc, argv, cfg, err): no I/O, no
   allocation, no global state, so that it can be fuzzed (tests/fuzz/fuzz_cli.c)
   and tested on its own. Every flag is a row of one table (cli_flags) that
   drives the parsing, the range checks, the --help text and the flags written
   beside a checkpoint; values that the user did not give stay "unset" (-1 or
   NaN) and cli_resolve_run fills in the papers' defaults afterwards. Strings
   in the result point into argv. */
#ifndef LINATTN_CLI_H
#define LINATTN_CLI_H

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CLI_OK = 0, CLI_HELP = 1, CLI_ERROR = 2 };

/* Subcommands, as bits so that a flag can belong to several. */
enum {
  CLI_NONE = 0,
  CLI_TRAIN = 1,
  CLI_NOISE = 2,
  CLI_CURV = 4,
  CLI_REPRO = 8,
  CLI_THEOREM = 16,
  CLI_SWEEP = 32,
  CLI_REPORT = 64
};
#define CLI_MODEL (CLI_TRAIN | CLI_NOISE | CLI_CURV)

#define CLI_MAXLIST 64
#define CLI_MAXPOS 512

/* A list of numbers (or of enum indices) from "a,b,c" or "a..b". */
typedef struct cli_list {
  int n;
  double v[CLI_MAXLIST];
} cli_list;

/* One training run: what a checkpoint's side file records. -1 / NaN =
   unset, resolved by cli_resolve_run. Enum fields hold the index of the
   name in its table below. */
typedef struct cli_run {
  long setting, layers, d, n, param, act, front;
  double init_std;
  long opt, nesterov;
  double lr, momentum, beta1, beta2, eps, wd;
  long sched, warmup, period, total;
  double decay, min_scale, clip, clip_block;
  long batch, steps, seed, eval_seed, data_mode, resample_every;
  long eval_every, eval_batch, diag_every, smooth_every, diag_batch;
  long log_every;
} cli_run;

typedef struct cli_config {
  int cmd; /* CLI_TRAIN, ... */
  const char *argv0;
  cli_run run;
  /* outputs and checkpoints */
  const char *out, *svg, *checkpoint, *resume;
  long checkpoint_every;
  /* noise */
  long minibatch, true_batch, samples, bins;
  /* curvature */
  long top, probes, slq_steps, grid, dense;
  /* reproduce */
  long full, seeds, jobs;
  double lr_sgd, lr_adam;
  /* theorem */
  long check;
  /* sweep grid */
  cli_list g_lr, g_seed, g_setting, g_depth, g_opt;
  /* positional arguments (report inputs) and sweep's extra train flags */
  int npos;
  const char *pos[CLI_MAXPOS];
  int nextra;
  const char *extra[CLI_MAXPOS];
} cli_config;

/* ------------------------------------------------------------ enum names */
/* Indices into the name tables, as stored in the configuration. */
enum { CLI_S1, CLI_S2, CLI_S3, CLI_SPHERE, CLI_NONLINEAR, CLI_PAPER_B };
enum { CLI_SGD, CLI_ADAM, CLI_SIGN, CLI_NSGD, CLI_ADAGRAD, CLI_RMSPROP };
enum { CLI_ALL, CLI_THM1, CLI_LEMMA1, CLI_THREE, CLI_THM5 };

static const char *const cli_setting_names[] = {
    "1", "2", "3", "sphere", "nonlinear", "paper-b", NULL};
static const char *const cli_opt_names[] = {"sgd",  "adam",    "sign",
                                            "nsgd", "adagrad", "rmsprop",
                                            NULL};
static const char *const cli_param_names[] = {"sparse", "dense", "pgd", NULL};
static const char *const cli_act_names[] = {"linear", "relu", NULL};
static const char *const cli_sched_names[] = {"constant", "halving", "cosine",
                                              NULL};
static const char *const cli_data_names[] = {"fresh", "resample", "fixed",
                                             NULL};
static const char *const cli_check_names[] = {
    "all", "theorem1", "lemma1", "three-layer", "theorem5", NULL};
static const char *const cli_cmd_names[] = {
    "train", "noise", "curvature", "reproduce", "theorem", "sweep", "report",
    NULL};

/* ------------------------------------------------------------ the table */
enum {
  CLI_K_INT,   /* long, whole number within [lo, hi] */
  CLI_K_REAL,  /* double, finite, within [lo, hi] */
  CLI_K_STR,   /* const char * */
  CLI_K_ENUM,  /* long, index into names */
  CLI_K_BOOL,  /* long set to 1, takes no value */
  CLI_K_LIST,  /* cli_list of reals within [lo, hi] */
  CLI_K_ILIST, /* cli_list of whole numbers, "a..b" allowed */
  CLI_K_ELIST  /* cli_list of enum indices */
};

typedef struct cli_flag {
  const char *name; /* without the leading "--" */
  int kind;
  size_t off; /* into cli_config */
  double lo, hi;
  const char *const *names; /* CLI_K_ENUM, CLI_K_ELIST */
  unsigned cmds;            /* subcommands that accept it */
  int run;                  /* part of a run's definition (side file) */
  const char *arg;          /* value placeholder in --help */
  const char *help;
} cli_flag;

#define CLI_R(f) offsetof(cli_config, run) + offsetof(cli_run, f)
#define CLI_C(f) offsetof(cli_config, f)
#define CLI_BIG 1e15   /* whole numbers stay exact in a double below 2^53 */
#define CLI_HUGE 1e300 /* any finite real */

static const cli_flag cli_flags[] = {
    /* the data and the model */
    {"setting", CLI_K_ENUM, CLI_R(setting), 0, 0, cli_setting_names,
     CLI_MODEL | CLI_REPRO, 1, "S",
     "data setting: 1, 2, 3, sphere, nonlinear, paper-b (default 1)"},
    {"depth", CLI_K_INT, CLI_R(layers), 1, 64, NULL, CLI_MODEL | CLI_REPRO, 1,
     "L", "attention layers (default 3)"},
    {"d", CLI_K_INT, CLI_R(d), 1, 256, NULL, CLI_MODEL, 1, "D",
     "covariate dimension (default: the setting's, 5)"},
    {"n", CLI_K_INT, CLI_R(n), 1, 4096, NULL, CLI_MODEL, 1, "N",
     "prompts' context length (default: the setting's)"},
    {"param", CLI_K_ENUM, CLI_R(param), 0, 0, cli_param_names, CLI_MODEL, 1,
     "P",
     "parametrization: sparse, dense, pgd (default sparse; dense for "
     "nonlinear)"},
    {"activation", CLI_K_ENUM, CLI_R(act), 0, 0, cli_act_names, CLI_MODEL, 1,
     "A", "attention: linear or relu (default linear)"},
    {"front", CLI_K_INT, CLI_R(front), 0, 4096, NULL, CLI_MODEL, 1, "H",
     "hidden width of the front MLP, 0 none (default 0; 30 for nonlinear)"},
    {"init-std", CLI_K_REAL, CLI_R(init_std), 1e-12, 10, NULL, CLI_MODEL, 1,
     "X", "std of the initial parameters (default 0.05; 0.1 nonlinear)"},
    /* the optimizer */
    {"opt", CLI_K_ENUM, CLI_R(opt), 0, 0, cli_opt_names, CLI_MODEL, 1, "O",
     "optimizer: sgd, adam, sign, nsgd, adagrad, rmsprop (default adam)"},
    {"lr", CLI_K_REAL, CLI_R(lr), 1e-12, 1e6, NULL, CLI_MODEL, 1, "X",
     "learning rate (default: paper A's for the setting and optimizer)"},
    {"momentum", CLI_K_REAL, CLI_R(momentum), 0, 0.999999, NULL, CLI_MODEL, 1,
     "X", "momentum of sgd, sign, nsgd, rmsprop (default 0.9 for sgd)"},
    {"nesterov", CLI_K_BOOL, CLI_R(nesterov), 0, 0, NULL, CLI_MODEL, 1, NULL,
     "Nesterov momentum (sgd)"},
    {"beta1", CLI_K_REAL, CLI_R(beta1), 0, 0.999999, NULL, CLI_MODEL, 1, "X",
     "Adam's beta1 (default 0.9)"},
    {"beta2", CLI_K_REAL, CLI_R(beta2), 0, 0.999999, NULL, CLI_MODEL, 1, "X",
     "Adam's beta2 (default 0.9, paper A)"},
    {"eps", CLI_K_REAL, CLI_R(eps), 0, 1, NULL, CLI_MODEL, 1, "X",
     "epsilon of adam, adagrad, rmsprop (default 1e-8)"},
    {"weight-decay", CLI_K_REAL, CLI_R(wd), 0, 1e3, NULL, CLI_MODEL, 1, "X",
     "L2 weight decay (default 0)"},
    {"schedule", CLI_K_ENUM, CLI_R(sched), 0, 0, cli_sched_names, CLI_MODEL,
     1, "K", "learning-rate schedule: constant, halving, cosine"},
    {"warmup", CLI_K_INT, CLI_R(warmup), 0, CLI_BIG, NULL, CLI_MODEL, 1, "T",
     "steps of linear warmup (default 0)"},
    {"period", CLI_K_INT, CLI_R(period), 1, CLI_BIG, NULL, CLI_MODEL, 1, "T",
     "halving: steps between decays (default 1000)"},
    {"decay", CLI_K_REAL, CLI_R(decay), 1e-9, 0.999999, NULL, CLI_MODEL, 1,
     "X", "halving: factor per period (default 0.5)"},
    {"cosine-total", CLI_K_INT, CLI_R(total), 1, 2 * CLI_BIG, NULL, CLI_MODEL, 1,
     "T", "cosine: step where the floor is reached (default: --steps)"},
    {"min-scale", CLI_K_REAL, CLI_R(min_scale), 0, 1, NULL, CLI_MODEL, 1, "X",
     "cosine: the floor of the factor (default 0)"},
    {"clip", CLI_K_REAL, CLI_R(clip), 0, CLI_HUGE, NULL, CLI_MODEL, 1, "X",
     "global gradient-norm clipping, 0 none (default 1; 0.1 sphere)"},
    {"clip-block", CLI_K_REAL, CLI_R(clip_block), 0, CLI_HUGE, NULL,
     CLI_MODEL, 1, "X", "per-matrix gradient clipping, 0 none (default 0)"},
    /* the run */
    {"batch", CLI_K_INT, CLI_R(batch), 1, 1e7, NULL, CLI_MODEL, 1, "B",
     "prompts per step (default 1000; 2000 nonlinear)"},
    {"steps", CLI_K_INT, CLI_R(steps), 0, CLI_BIG, NULL,
     CLI_TRAIN | CLI_REPRO | CLI_THEOREM | CLI_SWEEP, 1, "T",
     "total training steps (a resumed run continues up to this count)"},
    {"seed", CLI_K_INT, CLI_R(seed), 0, CLI_BIG, NULL,
     CLI_MODEL | CLI_THEOREM, 1, "S", "seed of theta and the data (default 1)"},
    {"eval-seed", CLI_K_INT, CLI_R(eval_seed), 1, CLI_BIG, NULL, CLI_MODEL, 1,
     "S", "seed of the evaluation and diagnostic batches (default: --seed)"},
    {"data", CLI_K_ENUM, CLI_R(data_mode), 0, 0, cli_data_names, CLI_MODEL, 1,
     "M", "fresh prompts every step, resample every k, or one fixed set"},
    {"resample-every", CLI_K_INT, CLI_R(resample_every), 1, CLI_BIG, NULL,
     CLI_MODEL, 1, "K", "steps between resampled datasets (default 100)"},
    {"eval-every", CLI_K_INT, CLI_R(eval_every), 0, CLI_BIG, NULL, CLI_MODEL,
     1, "K", "eval loss every k steps, 0 never (default 50)"},
    {"eval-batch", CLI_K_INT, CLI_R(eval_batch), 1, 1e7, NULL, CLI_MODEL, 1,
     "B", "prompts in the evaluation batch (default 1000)"},
    {"diag-every", CLI_K_INT, CLI_R(diag_every), 0, CLI_BIG, NULL,
     CLI_TRAIN | CLI_REPRO, 1, "K",
     "robust condition numbers and top eigenvalue every k steps, 0 never"},
    {"smooth-every", CLI_K_INT, CLI_R(smooth_every), 0, CLI_BIG, NULL,
     CLI_TRAIN | CLI_REPRO, 1, "K",
     "directional smoothness every k steps, 0 never"},
    {"diag-batch", CLI_K_INT, CLI_R(diag_batch), 1, 1e6, NULL,
     CLI_MODEL | CLI_REPRO, 1, "B",
     "prompts in the fixed diagnostic batch (default 1000)"},
    {"log-every", CLI_K_INT, CLI_R(log_every), 1, CLI_BIG, NULL, CLI_TRAIN, 1,
     "K", "a JSON line every k steps (default 10)"},
    /* outputs */
    {"out", CLI_K_STR, CLI_C(out), 0, 0, NULL, CLI_MODEL | CLI_THEOREM, 0,
     "FILE", "JSON output file (default: stdout)"},
    {"out", CLI_K_STR, CLI_C(out), 0, 0, NULL,
     CLI_REPRO | CLI_SWEEP | CLI_REPORT, 0, "DIR",
     "output folder (default linattn-reproduce, sweep or linattn-report)"},
    {"svg", CLI_K_STR, CLI_C(svg), 0, 0, NULL,
     CLI_NOISE | CLI_CURV | CLI_THEOREM, 0, "FILE", "also draw a figure"},
    {"checkpoint", CLI_K_STR, CLI_C(checkpoint), 0, 0, NULL, CLI_MODEL, 0,
     "FILE",
     "train: save the run there (with FILE.args); noise, curvature: "
     "measure at it"},
    {"checkpoint-every", CLI_K_INT, CLI_C(checkpoint_every), 1, CLI_BIG, NULL,
     CLI_TRAIN, 0, "K", "save the checkpoint every k steps as well"},
    {"resume", CLI_K_STR, CLI_C(resume), 0, 0, NULL, CLI_TRAIN, 0, "FILE",
     "continue the run saved in FILE (its flags come from FILE.args)"},
    /* noise */
    {"minibatch", CLI_K_INT, CLI_C(minibatch), 1, 1e7, NULL,
     CLI_NOISE | CLI_REPRO, 0, "B", "prompts per minibatch (default 1000)"},
    {"true-batch", CLI_K_INT, CLI_C(true_batch), 1, 1e9, NULL,
     CLI_NOISE | CLI_REPRO, 0, "B",
     "prompts of the 'true' gradient (default 100000)"},
    {"samples", CLI_K_INT, CLI_C(samples), 2, 1e8, NULL, CLI_NOISE | CLI_REPRO,
     0, "K", "minibatch gradients drawn (default 10000)"},
    {"bins", CLI_K_INT, CLI_C(bins), 1, 100000, NULL, CLI_NOISE | CLI_REPRO, 0,
     "K", "histogram bins (default 100)"},
    /* curvature */
    {"top", CLI_K_INT, CLI_C(top), 1, 1000, NULL, CLI_CURV, 0, "K",
     "top eigenvalues by Lanczos (default 10)"},
    {"probes", CLI_K_INT, CLI_C(probes), 1, 10000, NULL, CLI_CURV, 0, "K",
     "SLQ probe vectors (default 10)"},
    {"slq-steps", CLI_K_INT, CLI_C(slq_steps), 2, 100000, NULL, CLI_CURV, 0,
     "K", "Lanczos steps per SLQ probe (default 80)"},
    {"grid", CLI_K_INT, CLI_C(grid), 2, 100000, NULL, CLI_CURV, 0, "K",
     "points of the smoothed density (default 400)"},
    {"dense", CLI_K_BOOL, CLI_C(dense), 0, 0, NULL, CLI_CURV, 0, NULL,
     "also the whole exact spectrum (dense Hessian)"},
    /* reproduce */
    {"full", CLI_K_BOOL, CLI_C(full), 0, 0, NULL, CLI_REPRO, 0, NULL,
     "paper A's length: 10,000 steps, 6 seeds, diagnostics every 250"},
    {"seeds", CLI_K_INT, CLI_C(seeds), 1, 1000, NULL, CLI_REPRO, 0, "K",
     "seeds per optimizer (default 3; 6 with --full)"},
    {"jobs", CLI_K_INT, CLI_C(jobs), 1, 1024, NULL, CLI_REPRO | CLI_SWEEP, 0,
     "K",
     "parallel processes (reproduce: default the online CPUs; sweep: run "
     "the commands)"},
    {"lr-sgd", CLI_K_REAL, CLI_C(lr_sgd), 1e-12, 1e6, NULL, CLI_REPRO, 0, "X",
     "SGD's learning rate (default: paper A's for the setting)"},
    {"lr-adam", CLI_K_REAL, CLI_C(lr_adam), 1e-12, 1e6, NULL, CLI_REPRO, 0,
     "X", "Adam's learning rate (default: paper A's for the setting)"},
    /* theorem */
    {"check", CLI_K_ENUM, CLI_C(check), 0, 0, cli_check_names, CLI_THEOREM, 0,
     "C", "all, theorem1, lemma1, three-layer, theorem5 (default all)"},
    /* sweep grid */
    {"lr", CLI_K_LIST, CLI_C(g_lr), 1e-12, 1e6, NULL, CLI_SWEEP, 0, "LIST",
     "learning rates, e.g. 0.005,0.01,0.02"},
    {"seed", CLI_K_ILIST, CLI_C(g_seed), 0, CLI_BIG, NULL, CLI_SWEEP, 0,
     "LIST", "seeds, e.g. 1..6 (default 1)"},
    {"setting", CLI_K_ELIST, CLI_C(g_setting), 0, 0, cli_setting_names,
     CLI_SWEEP, 0, "LIST", "settings, e.g. 1,3,sphere (default 1)"},
    {"depth", CLI_K_ILIST, CLI_C(g_depth), 1, 64, NULL, CLI_SWEEP, 0, "LIST",
     "depths, e.g. 2,4,6,8 (default 3)"},
    {"opt", CLI_K_ELIST, CLI_C(g_opt), 0, 0, cli_opt_names, CLI_SWEEP, 0,
     "LIST", "optimizers, e.g. sgd,adam (default sgd,adam)"},
};
#define CLI_NFLAGS ((int)(sizeof cli_flags / sizeof cli_flags[0]))

/* ------------------------------------------------------------ defaults */
static void cli_run_unset(cli_run *r) {
  long *ints[] = {&r->setting,   &r->layers,         &r->d,
                  &r->n,         &r->param,          &r->act,
                  &r->front,     &r->opt,            &r->nesterov,
                  &r->sched,     &r->warmup,         &r->period,
                  &r->total,     &r->batch,          &r->steps,
                  &r->seed,      &r->eval_seed,      &r->data_mode,
                  &r->resample_every, &r->eval_every, &r->eval_batch,
                  &r->diag_every, &r->smooth_every,  &r->diag_batch,
                  &r->log_every};
  double *reals[] = {&r->init_std, &r->lr,       &r->momentum, &r->beta1,
                     &r->beta2,    &r->eps,      &r->wd,       &r->decay,
                     &r->min_scale, &r->clip,    &r->clip_block};
  size_t i;
  for (i = 0; i < sizeof ints / sizeof ints[0]; ++i) *ints[i] = -1;
  for (i = 0; i < sizeof reals / sizeof reals[0]; ++i) *reals[i] = NAN;
}

static void cli_defaults(cli_config *c) {
  memset(c, 0, sizeof *c);
  cli_run_unset(&c->run);
  c->checkpoint_every = c->minibatch = c->true_batch = c->samples = -1;
  c->bins = c->top = c->probes = c->slq_steps = c->grid = -1;
  c->seeds = c->jobs = -1;
  c->lr_sgd = c->lr_adam = NAN;
}

/* ------------------------------------------------------------ values */
/* A user's word fit to quote in a one-line message: at most 60 bytes,
   control characters shown as '?'. */
static const char *cli_clean(const char *s, char *out, size_t cap) {
  size_t i;
  for (i = 0; s[i] && i + 1 < cap && i < 60; ++i)
    out[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
  out[i] = 0;
  return out;
}

static int cli_err(char *err, size_t cap, const char *fmt, const char *a,
                   const char *b) {
  if (err && cap) snprintf(err, cap, fmt, a, b);
  return CLI_ERROR;
}

/* A finite real in [lo, hi] from the whole of s. */
static int cli_real(const char *s, double lo, double hi, double *v,
                    const char **why) {
  char *end;
  double x;
  if (!*s || *s == ' ' || *s == '\t' || *s == '\n') {
    *why = "is not a number";
    return 0;
  }
  errno = 0;
  x = strtod(s, &end);
  if (end == s || *end) {
    *why = "is not a number";
    return 0;
  }
  if (x != x) {
    *why = "is not a number (NaN)";
    return 0;
  }
  if (errno == ERANGE && (x > 1 || x < -1)) {
    *why = "is out of range";
    return 0;
  }
  if (x - x != 0) {
    *why = "is not finite";
    return 0;
  }
  if (x < lo) {
    *why = lo == 0 ? "must not be negative" : "is too small";
    return 0;
  }
  if (x > hi) {
    *why = "is too large";
    return 0;
  }
  *v = x;
  return 1;
}

/* A whole number in [lo, hi] (written as an integer, "1e4" also accepted). */
static int cli_int(const char *s, double lo, double hi, long *v,
                   const char **why) {
  double x;
  if (!cli_real(s, -CLI_HUGE, CLI_HUGE, &x, why)) return 0;
  if (x != floor(x)) {
    *why = "is not a whole number";
    return 0;
  }
  if (x < lo) {
    *why = x < 0 ? "must not be negative" : "is too small";
    if (lo > 0 && x <= 0) *why = "must be positive";
    return 0;
  }
  if (x > hi) {
    *why = "is too large";
    return 0;
  }
  *v = (long)x;
  return 1;
}

static int cli_enum(const char *s, const char *const *names, long *v) {
  long i;
  for (i = 0; names[i]; ++i)
    if (!strcmp(s, names[i])) {
      *v = i;
      return 1;
    }
  return 0;
}

/* Comma-separated items; in whole-number lists "a..b" is a range. */
static int cli_list_parse(const cli_flag *f, const char *s, cli_list *l,
                          const char **why) {
  char item[64];
  l->n = 0;
  while (1) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    const char *dots;
    if (len == 0 || len >= sizeof item) {
      *why = len ? "has an item that is too long" : "has an empty item";
      return 0;
    }
    memcpy(item, s, len);
    item[len] = 0;
    dots = strstr(item, "..");
    if (f->kind == CLI_K_ILIST && dots) {
      long a, b, k;
      item[dots - item] = 0;
      if (!cli_int(item, f->lo, f->hi, &a, why) ||
          !cli_int(dots + 2, f->lo, f->hi, &b, why))
        return 0;
      if (b < a) {
        *why = "has a range that runs backwards";
        return 0;
      }
      for (k = a; k <= b; ++k) {
        if (l->n == CLI_MAXLIST) {
          *why = "has too many items (at most 64)";
          return 0;
        }
        l->v[l->n++] = (double)k;
      }
    } else {
      double x;
      long k;
      if (l->n == CLI_MAXLIST) {
        *why = "has too many items (at most 64)";
        return 0;
      }
      if (f->kind == CLI_K_ELIST) {
        if (!cli_enum(item, f->names, &k)) {
          *why = "has an unknown name";
          return 0;
        }
        x = (double)k;
      } else if (f->kind == CLI_K_ILIST) {
        if (!cli_int(item, f->lo, f->hi, &k, why)) return 0;
        x = (double)k;
      } else if (!cli_real(item, f->lo, f->hi, &x, why)) {
        return 0;
      }
      l->v[l->n++] = x;
    }
    if (!comma) return 1;
    s = comma + 1;
  }
}

/* ------------------------------------------------------------ flags */
static const char *cli_cmd_name(int cmd) {
  int k;
  for (k = 0; cli_cmd_names[k]; ++k)
    if (cmd == 1 << k) return cli_cmd_names[k];
  return "linattn";
}

static const cli_flag *cli_find(unsigned cmd, const char *name, int any) {
  int i;
  for (i = 0; i < CLI_NFLAGS; ++i)
    if (!strcmp(cli_flags[i].name, name) && (any || (cli_flags[i].cmds & cmd)))
      return &cli_flags[i];
  return NULL;
}

/* Stores one flag's value into c. */
static int cli_set(cli_config *c, const cli_flag *f, const char *val,
                   char *err, size_t cap) {
  char *base = (char *)c + f->off;
  const char *why = "is not valid";
  char msg[160];
  switch (f->kind) {
  case CLI_K_BOOL: *(long *)(void *)base = 1; return CLI_OK;
  case CLI_K_STR:
    if (!*val) return cli_err(err, cap, "--%s: the value is empty%s", f->name, "");
    *(const char **)(void *)base = val;
    return CLI_OK;
  case CLI_K_INT:
    if (cli_int(val, f->lo, f->hi, (long *)(void *)base, &why)) return CLI_OK;
    break;
  case CLI_K_REAL:
    if (cli_real(val, f->lo, f->hi, (double *)(void *)base, &why))
      return CLI_OK;
    break;
  case CLI_K_ENUM:
    if (cli_enum(val, f->names, (long *)(void *)base)) return CLI_OK;
    why = "is not one of the names in --help";
    break;
  default:
    if (cli_list_parse(f, val, (cli_list *)(void *)base, &why)) return CLI_OK;
    break;
  }
  if (f->kind == CLI_K_INT || f->kind == CLI_K_REAL ||
      f->kind == CLI_K_ILIST) {
    if (!strcmp(why, "is too large") || !strcmp(why, "is too small")) {
      snprintf(msg, sizeof msg, "%s (allowed: %g to %g)", why, f->lo, f->hi);
      why = msg;
    }
  }
  if (err && cap) {
    char q[64];
    snprintf(err, cap, "--%s: '%s' %s", f->name, cli_clean(val, q, sizeof q),
             why);
  }
  return CLI_ERROR;
}

/* Applies the flags of argv[0 .. argc-1] on top of c (c->cmd already set):
   the form a resumed run uses to lay new flags over the saved ones. */
static int cli_apply(cli_config *c, int argc, char **argv, char *err,
                     size_t cap) {
  int i;
  for (i = 0; i < argc; ++i) {
    const char *a = argv[i];
    const cli_flag *f;
    const char *eq, *val;
    char name[48], q[64];
    size_t len;
    if (!a) return cli_err(err, cap, "a null argument%s%s", "", "");
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return CLI_HELP;
    if (!strcmp(a, "--") && c->cmd == CLI_SWEEP) {
      for (++i; i < argc; ++i) {
        if (c->nextra == CLI_MAXPOS)
          return cli_err(err, cap, "too many arguments after --%s%s", "", "");
        c->extra[c->nextra++] = argv[i];
      }
      return CLI_OK;
    }
    if (a[0] != '-' || a[1] != '-' || !a[2]) {
      if (c->cmd == CLI_REPORT && a[0] && strcmp(a, "--") != 0) {
        if (c->npos == CLI_MAXPOS)
          return cli_err(err, cap, "too many input files (at most 512)%s%s",
                         "", "");
        c->pos[c->npos++] = a;
        continue;
      }
      return cli_err(err, cap, "unexpected argument '%s'%s",
                     cli_clean(a, q, sizeof q), "");
    }
    eq = strchr(a + 2, '=');
    len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    if (len >= sizeof name)
      return cli_err(err, cap, "unknown flag '%s'%s", cli_clean(a, q, sizeof q),
                     "");
    memcpy(name, a + 2, len);
    name[len] = 0;
    cli_clean(name, name, sizeof name);
    f = cli_find((unsigned)c->cmd, name, 0);
    if (!f) {
      if (cli_find(0, name, 1))
        return cli_err(err, cap, "--%s does not apply to %s", name,
                       cli_cmd_name(c->cmd));
      return cli_err(err, cap, "unknown flag '--%s'%s", name, "");
    }
    if (f->kind == CLI_K_BOOL) {
      if (eq) return cli_err(err, cap, "--%s takes no value%s", name, "");
      val = "";
    } else if (eq) {
      val = eq + 1;
    } else {
      if (i + 1 >= argc || !argv[i + 1])
        return cli_err(err, cap, "--%s needs a value%s", name, "");
      val = argv[++i];
    }
    if (cli_set(c, f, val, err, cap) != CLI_OK) return CLI_ERROR;
  }
  return CLI_OK;
}

/* argv[0] is the program, argv[1] the subcommand. CLI_HELP with cmd 0 is
   the top-level help. The error text is one line without the program name. */
static int cli_parse(int argc, char **argv, cli_config *c, char *err,
                     size_t cap) {
  long k;
  int st;
  cli_defaults(c);
  if (err && cap) err[0] = 0;
  if (argc < 1 || !argv) return cli_err(err, cap, "no arguments%s%s", "", "");
  c->argv0 = argv[0] ? argv[0] : "linattn";
  if (argc < 2 || !argv[1])
    return cli_err(err, cap, "no subcommand (see --help)%s%s", "", "");
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      !strcmp(argv[1], "help"))
    return CLI_HELP;
  if (!cli_enum(argv[1], cli_cmd_names, &k)) {
    char q[64];
    return cli_err(err, cap, "unknown subcommand '%s' (see --help)%s",
                   cli_clean(argv[1], q, sizeof q), "");
  }
  c->cmd = 1 << k;
  st = cli_apply(c, argc - 2, argv + 2, err, cap);
  if (st != CLI_OK) return st;
  if (c->cmd == CLI_REPORT && c->npos == 0)
    return cli_err(err, cap, "report needs JSON-lines files to read%s%s", "",
                   "");
  if (c->cmd == CLI_TRAIN && c->checkpoint_every > 0 && !c->checkpoint)
    return cli_err(err, cap, "--checkpoint-every needs --checkpoint%s%s", "",
                   "");
  return CLI_OK;
}

/* ------------------------------------------------------------ resolving */
/* Paper A's learning rates for L = 3 (its code), SGD then Adam, by setting;
   paper B's experiments use Adam at 1e-3 in this program. */
static const double cli_paper_lr[6][2] = {
    {0.02, 0.02}, {0.01, 0.005}, {0.02, 0.02},
    {5, 0.1},     {0.05, 0.01},  {0.01, 0.001}};

static double cli_default_lr(long setting, long opt) {
  if (opt == CLI_SGD) return cli_paper_lr[setting][0];
  if (opt == CLI_ADAM) return cli_paper_lr[setting][1];
  return opt == CLI_SIGN ? 1e-3 : 0.01;
}

#define CLI_DEF(x, v) \
  do {                \
    if ((x) < 0) (x) = (v); \
  } while (0)
#define CLI_DEFR(x, v) \
  do {                 \
    if ((x) != (x)) (x) = (v); \
  } while (0)

/* Fills every unset field of a run with its default. */
static void cli_resolve_run(cli_run *r) {
  int nonlin;
  CLI_DEF(r->setting, CLI_S1);
  nonlin = r->setting == CLI_NONLINEAR;
  CLI_DEF(r->layers, 3);
  CLI_DEF(r->d, 5);
  CLI_DEF(r->n, r->setting == CLI_S2 ? 5 : 20);
  CLI_DEF(r->param, nonlin ? 1 : 0);
  CLI_DEF(r->act, 0);
  CLI_DEF(r->front, nonlin ? 30 : 0);
  CLI_DEFR(r->init_std, nonlin ? 0.1 : 0.05);
  CLI_DEF(r->opt, CLI_ADAM);
  CLI_DEF(r->nesterov, 0);
  CLI_DEFR(r->lr, cli_default_lr(r->setting, r->opt));
  CLI_DEFR(r->momentum, r->opt == CLI_SGD ? 0.9 : 0);
  CLI_DEFR(r->beta1, 0.9);
  CLI_DEFR(r->beta2, 0.9);
  CLI_DEFR(r->eps, 1e-8);
  CLI_DEFR(r->wd, 0);
  CLI_DEF(r->sched, 0);
  CLI_DEF(r->warmup, 0);
  CLI_DEF(r->period, 1000);
  CLI_DEFR(r->decay, 0.5);
  CLI_DEFR(r->min_scale, 0);
  CLI_DEFR(r->clip, r->setting == CLI_SPHERE ? 0.1 : 1);
  CLI_DEFR(r->clip_block, 0);
  CLI_DEF(r->batch, nonlin ? 2000 : 1000);
  CLI_DEF(r->steps, 1000);
  CLI_DEF(r->total, r->steps > r->warmup ? r->steps : r->warmup + 1);
  CLI_DEF(r->seed, 1);
  CLI_DEF(r->eval_seed, r->seed ? r->seed : 1);
  CLI_DEF(r->data_mode, 0);
  CLI_DEF(r->resample_every, 100);
  CLI_DEF(r->eval_every, 50);
  CLI_DEF(r->eval_batch, 1000);
  CLI_DEF(r->diag_every, 0);
  CLI_DEF(r->smooth_every, 0);
  CLI_DEF(r->diag_batch, 1000);
  CLI_DEF(r->log_every, 10);
}

/* The run's flags that were given, as "--name value" words into buf (one
   flag and value per line), the form read back by cli_apply. */
static int cli_run_flags(const cli_config *c, char *buf, size_t cap) {
  size_t used = 0;
  int i;
  for (i = 0; i < CLI_NFLAGS; ++i) {
    const cli_flag *f = &cli_flags[i];
    const char *base = (const char *)c + f->off;
    char val[64];
    int w;
    if (!f->run || !(f->cmds & CLI_TRAIN)) continue;
    if (f->kind == CLI_K_REAL) {
      double x = *(const double *)(const void *)base;
      if (x != x) continue;
      snprintf(val, sizeof val, "%.17g", x);
    } else {
      long x = *(const long *)(const void *)base;
      if (x < 0 || (f->kind == CLI_K_BOOL && x == 0)) continue;
      if (f->kind == CLI_K_ENUM)
        snprintf(val, sizeof val, "%s", f->names[x]);
      else if (f->kind == CLI_K_BOOL)
        val[0] = 0;
      else
        snprintf(val, sizeof val, "%ld", x);
    }
    w = snprintf(buf + used, cap - used, f->kind == CLI_K_BOOL ? "--%s%s\n"
                                                               : "--%s\n%s\n",
                 f->name, val);
    if (w < 0 || (size_t)w >= cap - used) return -1;
    used += (size_t)w;
  }
  return (int)used;
}

/* --help of one subcommand (cmd 0: the program's). */
static void cli_help(FILE *o, unsigned cmd, const char *what) {
  int i;
  fprintf(o, "%s", what);
  if (!cmd) return;
  fprintf(o, "\nflags:\n");
  for (i = 0; i < CLI_NFLAGS; ++i) {
    const cli_flag *f = &cli_flags[i];
    char left[40];
    if (!(f->cmds & cmd)) continue;
    snprintf(left, sizeof left, "--%s%s%s", f->name, f->arg ? " " : "",
             f->arg ? f->arg : "");
    fprintf(o, "  %-22s %s\n", left, f->help);
  }
  fprintf(o, "  %-22s %s\n", "--help", "this text");
}

#endif /* LINATTN_CLI_H */
