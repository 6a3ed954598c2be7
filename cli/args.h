/* cli/args.h - the command line of examples/linattn.c.

   Parsing is one pure function, cli_parse(argc, argv, cfg, scratch, err):
   no I/O, no allocation, no global state, so that it can be fuzzed
   (tests/fuzz/fuzz_cli.c) and tested on its own. A run's flags are not
   written here: they are the header's run fields (la_run_field_at), each a
   flag (its key with '-' for '_'), a JSON key, a range and an identity bit,
   from which the parser, --help, the config line, the report's grouping,
   the sweep's axes and its file names all come. The subcommands are one
   list, CLI_COMMANDS; the flags of the program itself (outputs,
   measurements, subcommand options) are rows of cli_flags, each naming
   the commands that take it; each command's own options are a struct of
   cli_config's union. Strings in the result point into argv. */
#ifndef LINATTN_CLI_H
#define LINATTN_CLI_H

#include "linattn.h"
#include "io/json.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CLI_OK = 0, CLI_HELP = 1, CLI_ERROR = 2, CLI_VERSION = 3 };

/* ------------------------------------------------------------ commands */
/* The subcommands, written once: X(ID, name, run-field groups, summary).
   From this list come the bits CLI_ID (a flag row names the commands that
   take it by them), the names the parser knows, the run fields each one
   takes (cli_field_applies), the top-level --help (in this order), and in
   cli/main.c the dispatch: `linattn NAME` runs cmd_NAME(c) and its
   --help prints NAME_help, both defined in the command's own file (listed
   at the top of cli/main.c). The groups are those of cli_field_group; a
   summary's second line starts at the column of its first (14 spaces). */
#define CLI_COMMANDS(X)                                                        \
  X(REPRO, reproduce, CLI_G_DATA | CLI_G_TRAIN | CLI_G_STEPS | CLI_G_MEASURE,  \
    "paper A's experiments: report.md and SVG figures in a folder\n"          \
    "              (no flags: the quick form of Setting 1, under a minute)")  \
  X(TRAIN, train, CLI_G_RUN,                                                   \
    "one training run: JSON lines, diagnostics, checkpoints, resume")         \
  X(NOISE, noise, CLI_G_DATA | CLI_G_SEED | CLI_G_MEASURE,                     \
    "the gradient-noise histogram at initialization or a checkpoint")         \
  X(CURV, curvature, CLI_G_DATA | CLI_G_SEED | CLI_G_MEASURE,                  \
    "Hessian spectrum, top eigenvalues, density, robust condition")           \
  X(THEOREM, theorem, CLI_G_SEED | CLI_G_STEPS,                                \
    "paper B's closed forms checked against training")                        \
  X(SWEEP, sweep, CLI_G_RUN,                                                   \
    "a grid of runs as one command per line, or run with --jobs")             \
  X(REPORT, report, 0,                                                         \
    "merge the JSON lines of many runs into tables and figures")              \
  X(EXPORT, export, 0,                                                         \
    "JSON lines of runs and measurements to CSV (pandas, R)")

#define CLI_INDEX_(ID, name, groups, summary) CLI_I_##ID,
enum { CLI_COMMANDS(CLI_INDEX_) CLI_NCMDS };
/* Subcommands as bits, so that a flag can belong to several. */
#define CLI_BIT_(ID, name, groups, summary) CLI_##ID = 1 << CLI_I_##ID,
enum { CLI_NONE = 0, CLI_COMMANDS(CLI_BIT_) };
/* The subcommands that read files named on the command line. */
#define CLI_READERS (CLI_REPORT | CLI_EXPORT)
#define CLI_MODEL (CLI_TRAIN | CLI_NOISE | CLI_CURV)

/* The optimizers a sweep runs where --opt is not given. */
static const char cli_sweep_opts[] = "sgd,adam";

/* The run fields a table may hold (cli_parse refuses a larger header). */
#define CLI_MAX_FIELDS 96

/* ------------------------------------------------------------ options */
/* Each subcommand's own options: the flags that one command (or noise and
   curvature) takes. sweep, report and export take only flags they share
   with others, which are cli_config's own members. A flag not given reads
   -1 (a whole number), NaN (a real), else 0 or NULL (cli_unset). */
typedef struct cli_train_opts {
  const char *checkpoint; /* save the run there */
  long checkpoint_every;  /* and every k steps */
  const char *resume;     /* continue the run saved there */
  const char *heatmap;    /* heat maps of the learned matrices there */
  const char *save_theta; /* the trajectory there, a row every k steps */
  long save_theta_every;
} cli_train_opts;

typedef struct cli_measure_opts { /* noise and curvature */
  const char *at;          /* the checkpoint measured (NULL: initialization) */
  const char *samples_out; /* noise: the raw samples */
  long top, probes, slq_steps, grid, dense; /* curvature */
} cli_measure_opts;

typedef struct cli_repro_opts {
  long paper; /* 0 paper A, 1 paper B */
  long all, compare_attention, tune;
  long precision; /* CLI_PREC_* */
  double lr_sgd, lr_adam;
  const char *optimizers; /* the optimizers' study: registry names, or all */
} cli_repro_opts;

typedef struct cli_theorem_opts {
  long check; /* an index into cli_check_names */
  long unit;  /* depth and context: one unit's depth L or length n */
} cli_theorem_opts;

typedef struct cli_config {
  int cmd; /* CLI_TRAIN, ... */
  const char *argv0;
  /* the run fields given: run holds their values (zero elsewhere), given[i]
     says which of la_run_field_at(i) were; a sweep keeps each one's list */
  la_run_config run;
  unsigned char given[CLI_MAX_FIELDS];
  const char *list[CLI_MAX_FIELDS];
  const char *preset; /* the preset given (the run field's name), or NULL */
  long threads;       /* threads of one run; -1: every online CPU */
  /* the flags several subcommands take */
  const char *out;     /* --out FILE: train, noise, curvature, theorem */
  const char *out_dir; /* --out-dir DIR: reproduce, sweep, report, export */
  const char *svg;     /* noise, curvature, theorem */
  /* train, curvature: another program's batches (one a step), its initial
     theta, and the batches it measures the Hessian on */
  const char *data_file, *init_theta, *diag_file;
  long minibatch, true_batch, samples, bins; /* the noise: noise, reproduce */
  long full, seeds;    /* reproduce, theorem */
  long jobs;           /* reproduce, sweep: processes at once */
  long slurm;          /* reproduce --plan, sweep: Slurm's job arrays too */
  const char *plan;    /* reproduce, theorem: the work written as commands
                          into this folder */
  const char *from;    /* reproduce, theorem: the output from a plan
                          folder's outputs */
  /* report's and export's inputs, in the caller's scratch array of argc
     pointers */
  int npos;
  const char **pos;
  /* the options of cmd alone (the other members share its memory) */
  union {
    cli_train_opts train;
    cli_measure_opts measure; /* noise, curvature */
    cli_repro_opts repro;
    cli_theorem_opts theorem;
  } opts;
} cli_config;

/* ------------------------------------------------------------ names */
enum {
  CLI_ALL,
  CLI_THM1,
  CLI_LEMMA1,
  CLI_THREE,
  CLI_THM5,
  /* paper B's comparative checks (cli/commands/paperb.h), not part of "all" */
  CLI_DEPTH,
  CLI_CONTEXT,
  CLI_THM4,
  CLI_LEMMA4,
  CLI_OPTIMUM
};
static const char *const cli_check_names[] = {
    "all",   "theorem1", "lemma1",   "three-layer", "theorem5", "depth",
    "context", "theorem4", "lemma4", "optimum",     NULL};
static const char *const cli_paper_names[] = {"a", "b", NULL};
/* reproduce --precision: a study's reals (auto: double at depth 6 and
   beyond, float below) */
enum { CLI_PREC_AUTO, CLI_PREC_FLOAT, CLI_PREC_DOUBLE };
static const char *const cli_precision_names[] = {"auto", "float", "double", NULL};

/* ------------------------------------------------------------ run fields */
/* Which subcommands take which run fields: by the part of la_run_config a
   field lives in. noise and curvature measure a model on data (at its
   initialization or a checkpoint); reproduce runs SGD and Adam itself. */
enum {
  CLI_G_DATA = 1,  /* the data setting and the model */
  CLI_G_OPT = 2,   /* the optimizer */
  CLI_G_TRAIN = 4, /* schedule, clipping, batches, evaluation */
  CLI_G_SEED = 8,  /* the seeds */
  CLI_G_STEPS = 16,
  CLI_G_MEASURE = 32, /* what train measures along the run */
  /* all of them: train, sweep */
  CLI_G_RUN = CLI_G_DATA | CLI_G_OPT | CLI_G_TRAIN | CLI_G_SEED | CLI_G_STEPS |
              CLI_G_MEASURE
};
static unsigned cli_field_group(const la_run_field *f) {
  size_t o = f->offset;
  if (!strcmp(f->key, "seed") || !strcmp(f->key, "eval_seed"))
    return CLI_G_SEED;
  if (!strcmp(f->key, "steps")) return CLI_G_STEPS;
  if (o >= offsetof(la_run_config, measure) &&
      o < offsetof(la_run_config, measure) + sizeof(((la_run_config *)0)->measure))
    return CLI_G_MEASURE;
  if ((f->flags & LA_FIELD_SELECTOR && f->kind == LA_FIELD_ENUM) ||
      (o >= offsetof(la_run_config, data) &&
       o < offsetof(la_run_config, data) + sizeof(la_data_config)) ||
      (o >= offsetof(la_run_config, model) &&
       o < offsetof(la_run_config, model) + sizeof(la_model_config)))
    return CLI_G_DATA;
  if (f->kind == LA_FIELD_OPTIMIZER || f->optim) return CLI_G_OPT;
  return CLI_G_TRAIN;
}
/* The command table: each subcommand's name, run-field groups and summary,
   in CLI_COMMANDS' order (bit 1 << i is row i). */
typedef struct cli_command {
  const char *name;
  unsigned groups;
  const char *summary;
} cli_command;
#define CLI_ROW_(ID, name, groups, summary) {#name, groups, summary},
static const cli_command cli_commands[] = {CLI_COMMANDS(CLI_ROW_)};

/* The row of command bit cmd, or -1. */
static int cli_cmd_index(int cmd) {
  int k;
  for (k = 0; k < CLI_NCMDS; ++k)
    if (cmd == 1 << k) return k;
  return -1;
}
static unsigned cli_cmd_groups(int cmd) {
  int k = cli_cmd_index(cmd);
  return k < 0 ? 0 : cli_commands[k].groups;
}
static int cli_field_applies(int cmd, const la_run_field *f) {
  if (cmd == CLI_THEOREM && !strcmp(f->key, "eval_seed")) return 0;
  /* of the measurements, curvature uses the batch and noise none */
  if (cli_field_group(f) == CLI_G_MEASURE && (cmd == CLI_NOISE || cmd == CLI_CURV))
    return cmd == CLI_CURV && !strcmp(f->key, "diag_batch");
  return (cli_cmd_groups(cmd) & cli_field_group(f)) != 0;
}

/* The index of run field `key` and whether the user gave it. */
static int cli_field_index(const char *key) {
  const la_run_field *f = la_run_field_find(key);
  return f ? (int)(f - la_run_field_at(0)) : -1;
}
static int cli_given(const cli_config *c, const char *key) {
  int i = cli_field_index(key);
  return i >= 0 && c->given[i];
}

/* Gives run field `key` the value v, as if from the command line. */
static void cli_give(cli_config *c, const char *key, double v) {
  int i = cli_field_index(key);
  if (i < 0 || la_run_field_set(&c->run, la_run_field_at(i), v) != 0) return;
  c->given[i] = 1;
}
/* The same by a name (an enum's or an optimizer's). */
static void cli_give_name(cli_config *c, const char *key, const char *name) {
  const la_run_field *f = la_run_field_find(key);
  const char *nm;
  int v;
  for (v = 0; f && (nm = la_run_field_name(f, v)) != NULL; ++v)
    if (!strcmp(nm, name)) {
      cli_give(c, key, v);
      return;
    }
}

/* ------------------------------------------------------------ the table */
enum {
  CLI_K_INT,  /* long, whole number within [lo, hi] */
  CLI_K_REAL, /* double, finite, within [lo, hi] */
  CLI_K_STR,  /* const char * */
  CLI_K_ENUM, /* long, index into names */
  CLI_K_BOOL  /* long set to 1, takes no value */
};

typedef struct cli_flag {
  const char *name; /* without the leading "--" */
  int kind;
  unsigned cmds; /* subcommands that accept it */
  size_t off;    /* into cli_config: its own member where several commands
                    take the flag, else into opts (CLI_O) */
  double lo, hi;
  const char *const *names; /* CLI_K_ENUM */
  const char *arg;          /* value placeholder in --help */
  const char *help;
} cli_flag;

#define CLI_C(f) offsetof(cli_config, f)
#define CLI_O(f) offsetof(cli_config, opts.f)
#define CLI_BIG 1e15   /* whole numbers stay exact in a double below 2^53 */
#define CLI_TRAINISH (CLI_TRAIN | CLI_SWEEP)

static const cli_flag cli_flags[] = {
    {"threads", CLI_K_INT, CLI_TRAINISH | CLI_NOISE | CLI_CURV | CLI_REPRO,
     CLI_C(threads), 1, LA_MAX_WORKERS, NULL, "K",
     "threads of one run, the same bits for any count (default: the CPUs "
     "this job may use: its affinity, a cgroup quota, SLURM_CPUS_PER_TASK, "
     "OMP_NUM_THREADS; reproduce: 1 per process; sweep --jobs K: a K-th "
     "each)"},
    /* outputs */
    {"out", CLI_K_STR, CLI_MODEL | CLI_THEOREM,
     CLI_C(out), 0, 0, NULL, "FILE",
     "JSON output file (default: stdout)"},
    {"out-dir", CLI_K_STR, CLI_REPRO | CLI_SWEEP | CLI_READERS,
     CLI_C(out_dir), 0, 0, NULL, "DIR",
     "output folder (default linattn-reproduce, sweep, linattn-report or "
     "linattn-export)"},
    {"svg", CLI_K_STR, CLI_NOISE | CLI_CURV | CLI_THEOREM,
     CLI_C(svg), 0, 0, NULL, "FILE",
     "also draw a figure"},
    {"checkpoint", CLI_K_STR, CLI_TRAIN,
     CLI_O(train.checkpoint), 0, 0, NULL, "FILE",
     "save the run there (all of it: --resume continues it)"},
    {"at", CLI_K_STR, CLI_NOISE | CLI_CURV,
     CLI_O(measure.at), 0, 0, NULL, "FILE",
     "measure at the run saved there by train --checkpoint (default: at "
     "initialization)"},
    {"checkpoint-every", CLI_K_INT, CLI_TRAIN,
     CLI_O(train.checkpoint_every), 1, CLI_BIG, NULL, "K",
     "save the checkpoint every k steps as well"},
    {"heatmap", CLI_K_STR, CLI_TRAIN,
     CLI_O(train.heatmap), 0, 0, NULL, "DIR",
     "heat maps of B_l, A_l and Sigma^1/2 A_l Sigma^1/2 at the end (SVG and "
     "CSV in DIR; with --resume at --steps of the checkpoint: at it)"},
    {"resume", CLI_K_STR, CLI_TRAIN,
     CLI_O(train.resume), 0, 0, NULL, "FILE",
     "continue the run saved in FILE (only --steps and outputs may change)"},
    {"data-file", CLI_K_STR, CLI_TRAIN | CLI_CURV,
     CLI_C(data_file), 0, 0, NULL, "FILE.npy",
     "train on another program's prompts, a batch a step: float32 or "
     "float64, shape (T, B, n + 1, d + 1) as paper A's code lays out Z, "
     "each prompt's query row [x_q, y_q] holding its target (the data mode "
     "becomes given; d, n, the batch and the steps follow the file; "
     "curvature --at: the file the run trained on)"},
    {"init-theta", CLI_K_STR, CLI_TRAIN | CLI_CURV,
     CLI_C(init_theta), 0, 0, NULL, "FILE.npy",
     "start from this theta: linattn's packing (one vector) or paper A's "
     "code's allparam (L, H, 2, d, d), sparse models: B = P, A = Q^T"},
    {"diag-file", CLI_K_STR, CLI_TRAIN | CLI_CURV,
     CLI_C(diag_file), 0, 0, NULL, "FILE.npy",
     "measure the Hessian (R, the spectrum, the smoothness) on another "
     "program's batches: (K, B, n + 1, d + 1) or one (B, n + 1, d + 1), laid "
     "out as --data-file; batch k is the measurements' k-th (--diag-batch "
     "and --diag-batches follow the file)"},
    {"save-theta", CLI_K_STR, CLI_TRAIN,
     CLI_O(train.save_theta), 0, 0, NULL, "FILE.npy",
     "theta along the run, as it goes: a float64 .npy, a row per saved step "
     "(the step, then theta); numpy.load reads it, a killed run's too"},
    {"save-theta-every", CLI_K_INT, CLI_TRAIN,
     CLI_O(train.save_theta_every), 1, CLI_BIG, NULL, "K",
     "save theta at step 0, every k steps and the last (default: "
     "--log-every)"},
    /* noise */
    {"minibatch", CLI_K_INT, CLI_NOISE | CLI_REPRO,
     CLI_C(minibatch), 1, 1e7, NULL, "B",
     "prompts per minibatch (default 1000)"},
    {"true-batch", CLI_K_INT, CLI_NOISE | CLI_REPRO,
     CLI_C(true_batch), 1, 1e9, NULL, "B",
     "prompts of the 'true' gradient (default 100 times the minibatch; "
     "reproduce 50000, 100000 with --full)"},
    {"samples", CLI_K_INT, CLI_NOISE | CLI_REPRO,
     CLI_C(samples), 2, 1e8, NULL, "K",
     "minibatch gradients drawn (default 10000; reproduce 4000, 10000 with "
     "--full)"},
    {"bins", CLI_K_INT, CLI_NOISE | CLI_REPRO,
     CLI_C(bins), 1, 100000, NULL, "K",
     "histogram bins (default 100; reproduce 50, 100 with --full)"},
    {"samples-out", CLI_K_STR, CLI_NOISE,
     CLI_O(measure.samples_out), 0, 0, NULL, "FILE",
     "also the raw samples ||g_B - g||: FILE.npy (float64), else CSV"},
    /* curvature */
    {"top", CLI_K_INT, CLI_CURV,
     CLI_O(measure.top), 1, 1000, NULL, "K",
     "top eigenvalues by Lanczos (default 10)"},
    {"probes", CLI_K_INT, CLI_CURV,
     CLI_O(measure.probes), 1, 10000, NULL, "K",
     "SLQ probe vectors (default 10)"},
    {"slq-steps", CLI_K_INT, CLI_CURV,
     CLI_O(measure.slq_steps), 2, 100000, NULL, "K",
     "Lanczos steps per SLQ probe (default 80)"},
    {"grid", CLI_K_INT, CLI_CURV,
     CLI_O(measure.grid), 2, 100000, NULL, "K",
     "points of the smoothed density (default 400)"},
    {"dense", CLI_K_BOOL, CLI_CURV,
     CLI_O(measure.dense), 0, 0, NULL, NULL,
     "also the whole exact spectrum (dense Hessian)"},
    /* reproduce */
    {"full", CLI_K_BOOL, CLI_REPRO | CLI_THEOREM,
     CLI_C(full), 0, 0, NULL, NULL,
     "the papers' lengths (paper A: 10,000 steps, 12 seeds, diagnostics "
     "every 250; paper B's checks: its steps and batches)"},
    {"paper", CLI_K_ENUM, CLI_REPRO,
     CLI_O(repro.paper), 0, 0, cli_paper_names, "P",
     "a (default) or b: paper B's checks, quick forms, into one report"},
    {"all", CLI_K_BOOL, CLI_REPRO,
     CLI_O(repro.all), 0, 0, NULL, NULL,
     "every study of paper A (settings 1, 2, 3, sphere, nonlinear; depths "
     "2, 4, 6, 8; the larger model) in one report"},
    {"compare-attention", CLI_K_BOOL, CLI_REPRO,
     CLI_O(repro.compare_attention), 0, 0, NULL, NULL,
     "the study twice, linear and softmax attention, side by side in one "
     "report (loss, R_SGD / R_Adam, noise tail, smoothness)"},
    {"plan", CLI_K_STR, CLI_REPRO | CLI_THEOREM,
     CLI_C(plan), 0, 0, NULL, "DIR",
     "write the work as commands into DIR (DIR/plan/stage-1.txt, one run "
     "a line, every flag explicit; run them with xargs, GNU parallel or a "
     "Slurm array), then: the same command with --from DIR (theorem: the "
     "depth and context checks)"},
    {"from", CLI_K_STR, CLI_REPRO | CLI_THEOREM,
     CLI_C(from), 0, 0, NULL, "DIR",
     "the output of the plan in DIR from its runs' outputs, the same bytes "
     "as the work run here (or its next stage's commands, or the commands "
     "of the runs missing)"},
    {"slurm", CLI_K_BOOL, CLI_REPRO | CLI_SWEEP | CLI_THEOREM,
     CLI_C(slurm), 0, 0, NULL, NULL,
     "also a Slurm job array a stage (--cpus-per-task: --threads; at most "
     "--jobs at once) and the merge as a job that depends on it"},
    {"tune", CLI_K_BOOL, CLI_REPRO,
     CLI_O(repro.tune), 0, 0, NULL, NULL,
     "pick each optimizer's learning rate from a grid of 10 by short runs "
     "(default at depths other than 3)"},
    {"seeds", CLI_K_INT, CLI_REPRO | CLI_THEOREM,
     CLI_C(seeds), 1, 512, NULL, "K",
     "seeds per optimizer (default 6, paper A's; 12 with --full; the larger "
     "model 2, 6 with --full); "
     "paper B's depth and context: seeds averaged (default 1; 5 with --full)"},
    {"jobs", CLI_K_INT, CLI_REPRO | CLI_SWEEP,
     CLI_C(jobs), 1, 1024, NULL, "K",
     "parallel processes (reproduce: default the CPUs this job may use; sweep: run "
     "the commands)"},
    {"lr-sgd", CLI_K_REAL, CLI_REPRO,
     CLI_O(repro.lr_sgd), 1e-12, 1e6, NULL, "X",
     "SGD's learning rate (default: paper A's for the setting)"},
    {"lr-adam", CLI_K_REAL, CLI_REPRO,
     CLI_O(repro.lr_adam), 1e-12, 1e6, NULL, "X",
     "Adam's learning rate (default: paper A's for the setting)"},
    {"optimizers", CLI_K_STR, CLI_REPRO,
     CLI_O(repro.optimizers), 0, 0, NULL, "LIST",
     "the optimizers' study: paper A's question (R, R over SGD's and Adam's, "
     "smoothness against the gradient norm, the noise, the blocks' Hessian "
     "spectra) asked of each optimizer of LIST (registry names a comma apart, "
     "or all), rates tuned (cli/commands/optimizers.h)"},
    {"precision", CLI_K_ENUM, CLI_REPRO,
     CLI_O(repro.precision), 0, 0, cli_precision_names, "P",
     "the runs' reals: auto (default: double at depth 6 and beyond, where "
     "float runs overflow; its program is linattn-double beside this one), "
     "float or double"},
    /* theorem */
    {"check", CLI_K_ENUM, CLI_THEOREM,
     CLI_O(theorem.check), 0, 0, cli_check_names, "C",
     "all, theorem1, lemma1, three-layer, theorem5 (default all); paper "
     "B's: depth, context, theorem4, lemma4, optimum"},
    {"unit", CLI_K_INT, CLI_THEOREM,
     CLI_O(theorem.unit), 1, 20, NULL, "P",
     "depth and context: one unit of the check, the model of depth P (or of "
     "context length P) from --seed, trained and measured, its numbers into "
     "--out (the commands --plan writes)"},
};
#define CLI_NFLAGS ((int)(sizeof cli_flags / sizeof cli_flags[0]))

/* Flags renamed so that each name means one thing: the old spelling, on
   the commands that no longer take it, is refused with the new one (the
   message is a format of the command's name). */
typedef struct cli_renamed {
  const char *name;
  unsigned cmds;
  const char *why;
} cli_renamed;
static const cli_renamed cli_renames[] = {
    {"out", CLI_REPRO | CLI_SWEEP | CLI_READERS,
     "--out is a file; %s writes a folder: --out-dir DIR"},
    {"checkpoint", CLI_NOISE | CLI_CURV,
     "--checkpoint is where train saves; %s reads one with --at FILE"}};

/* ------------------------------------------------------------ defaults */
/* Flag f not given: -1 (a whole number), NaN (a real), else 0 or NULL. */
static void cli_unset_flag(cli_config *c, const cli_flag *f) {
  char *slot = (char *)c + f->off;
  if (f->kind == CLI_K_INT) *(long *)(void *)slot = -1;
  else if (f->kind == CLI_K_REAL) *(double *)(void *)slot = NAN;
}
static int cli_in_opts(const cli_flag *f) {
  return f->off >= offsetof(cli_config, opts) &&
         f->off < offsetof(cli_config, opts) + sizeof(((cli_config *)0)->opts);
}

/* Every flag that several commands take, unset. */
static void cli_defaults(cli_config *c) {
  int i;
  memset(c, 0, sizeof *c);
  for (i = 0; i < CLI_NFLAGS; ++i)
    if (!cli_in_opts(&cli_flags[i])) cli_unset_flag(c, &cli_flags[i]);
}

/* The options of c->cmd unset (a command made from another's flags, as
   reproduce makes its runs', starts from here too). */
static void cli_opts_defaults(cli_config *c) {
  int i;
  memset(&c->opts, 0, sizeof c->opts);
  for (i = 0; i < CLI_NFLAGS; ++i)
    if (cli_in_opts(&cli_flags[i]) && (cli_flags[i].cmds & (unsigned)c->cmd))
      cli_unset_flag(c, &cli_flags[i]);
}

/* Whether program flag f holds a value in c (the unset value: -1, NaN,
   NULL or 0, cli_unset_flag). */
static int cli_flag_set(const cli_config *c, const cli_flag *f) {
  const char *slot = (const char *)c + f->off;
  switch (f->kind) {
  case CLI_K_INT: return *(const long *)(const void *)slot >= 0;
  case CLI_K_REAL: return *(const double *)(const void *)slot == *(const double *)(const void *)slot;
  case CLI_K_STR: return *(const char *const *)(const void *)slot != NULL;
  default: return *(const long *)(const void *)slot != 0; /* ENUM, BOOL */
  }
}

/* The value of program flag f in c as a flag takes it back ("" for a
   bool). */
static void cli_flag_text(const cli_config *c, const cli_flag *f, char *buf, size_t cap) {
  const char *slot = (const char *)c + f->off;
  switch (f->kind) {
  case CLI_K_INT: snprintf(buf, cap, "%ld", *(const long *)(const void *)slot); break;
  case CLI_K_REAL: snprintf(buf, cap, "%.17g", *(const double *)(const void *)slot); break;
  case CLI_K_STR: snprintf(buf, cap, "%s", *(const char *const *)(const void *)slot); break;
  case CLI_K_ENUM: snprintf(buf, cap, "%s", f->names[*(const long *)(const void *)slot]); break;
  default: buf[0] = 0; break;
  }
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

/* A finite real in [lo, hi] from the whole of s: decimal digits only (no
   hexadecimal, no leading or trailing white space). */
static int cli_real(const char *s, double lo, double hi, double *v,
                    const char **why) {
  char *end;
  const char *p;
  double x;
  *why = "is not a number";
  for (p = s; *p; ++p)
    if (!strchr("0123456789+-.eE", *p)) return 0;
  if (!*s) return 0;
  errno = 0;
  x = strtod(s, &end);
  if (end == s || *end) return 0;
  if (errno == ERANGE && (x > 1 || x < -1)) {
    *why = "is out of range";
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
static int cli_int(const char *s, double lo, double hi, double *v,
                   const char **why) {
  double x;
  if (!cli_real(s, -1e300, 1e300, &x, why)) return 0;
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
  *v = x;
  return 1;
}

static int cli_enum(const char *s, const char *const *names, long *v) {
  long i;
  for (i = 0; names[i]; ++i)
    if (names[i][0] && !strcmp(s, names[i])) {
      *v = i;
      return 1;
    }
  return 0;
}

/* "a, b, c": the valid names of a run field (or of a names table). */
static void cli_name_list(const la_run_field *f, const char *const *names,
                          char *buf, size_t cap) {
  size_t used = 0;
  int i;
  buf[0] = 0;
  for (i = 0;; ++i) {
    const char *nm = f ? la_run_field_name(f, i) : names ? names[i] : NULL;
    int w;
    if (!nm) break;
    if (!*nm) continue;
    w = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", nm);
    if (w < 0 || (size_t)w >= cap - used) break;
    used += (size_t)w;
  }
}

/* One value of run field f from text: a name, or a number within the
   table's range (a zero given is zero: la_run_field_set marks it given). */
static int cli_field_value(const la_run_field *f, const char *s, double *v,
                           const char **why) {
  int i;
  const char *nm;
  switch (f->kind) {
  case LA_FIELD_ENUM:
  case LA_FIELD_OPTIMIZER:
    for (i = 0; (nm = la_run_field_name(f, i)) != NULL; ++i)
      if (*nm && !strcmp(nm, s)) {
        *v = i;
        return 1;
      }
    *why = "is not one of";
    return 0;
  case LA_FIELD_BOOL:
    if (!strcmp(s, "0") || !strcmp(s, "1")) {
      *v = *s == '1';
      return 1;
    }
    *why = "is not 0 or 1";
    return 0;
  case LA_FIELD_REAL:
    return cli_real(s, f->lo, f->hi, v, why);
  default: return cli_int(s, f->lo, f->hi, v, why);
  }
}

/* The value of run field f as text, as a flag takes it back (a name, an
   integer, or a real that reads back to the same double; a zero as 0). */
static void cli_field_text(const la_run_config *r, const la_run_field *f,
                           char *buf, size_t cap) {
  double v = 0;
  if (f->kind == LA_FIELD_OPTIMIZER) {
    snprintf(buf, cap, "%s", r->optimizer[0] ? r->optimizer : "adam");
    return;
  }
  (void)la_run_field_get(r, f, &v);
  if (f->kind == LA_FIELD_ENUM) {
    const char *nm = la_run_field_name(f, (int)v);
    snprintf(buf, cap, "%s", nm && *nm ? nm : "?");
  } else if (f->kind == LA_FIELD_REAL) {
    int digits; /* the fewest that read back to the same double */
    for (digits = 15; digits < 17; ++digits) {
      snprintf(buf, cap, "%.*g", digits, v == 0 ? 0.0 : v);
      if (strtod(buf, NULL) == v) break;
    }
    snprintf(buf, cap, "%.*g", digits, v == 0 ? 0.0 : v);
  } else {
    snprintf(buf, cap, "%.0f", v);
  }
}

/* The most values of one list (a sweep's grid has at most 10^6 points). */
#define CLI_MAX_LIST 1000000
#define CLI_QUOTE_(x) #x
#define CLI_QUOTE(x) CLI_QUOTE_(x)

/* Each item of a list "a,b,c" (whole kinds: also "a..b"), checked; calls
   each(ctx, text) per value when each is not NULL; the number of values, or
   -1 with *why and the offending item in bad. */
typedef int (*cli_item_fn)(void *ctx, const char *text);
static long cli_list_walk(const la_run_field *f, const char *s, cli_item_fn each,
                          void *ctx, const char **why, char *bad, size_t bcap) {
  char item[64];
  long n = 0;
  while (1) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    const char *dots;
    double v;
    snprintf(bad, bcap, "%.*s", (int)(len < 60 ? len : 60), s);
    if (len == 0 || len >= sizeof item) {
      *why = len ? "has an item that is too long" : "has an empty item";
      return -1;
    }
    memcpy(item, s, len);
    item[len] = 0;
    dots = strstr(item, "..");
    if (dots && f->kind != LA_FIELD_REAL && f->kind != LA_FIELD_ENUM &&
        f->kind != LA_FIELD_OPTIMIZER) {
      double a, b;
      long long k;
      item[dots - item] = 0;
      if (!cli_field_value(f, item, &a, why) ||
          !cli_field_value(f, dots + 2, &b, why))
        return -1;
      if (b < a) {
        *why = "has a range that runs backwards";
        return -1;
      }
      /* counted before it is walked: "1..60e9" is refused, not walked
         (nor converted to a long long it may not fit) */
      if (b - a + 1 > CLI_MAX_LIST - (double)n) {
        *why = "has more than " CLI_QUOTE(CLI_MAX_LIST) " values";
        return -1;
      }
      for (k = 0; k <= (long long)(b - a); ++k) {
        char num[32];
        snprintf(num, sizeof num, "%.0f", a + (double)k);
        if (each && each(ctx, num)) return -1;
        n++;
      }
    } else {
      if (!cli_field_value(f, item, &v, why)) return -1;
      if (n >= CLI_MAX_LIST) {
        *why = "has more than " CLI_QUOTE(CLI_MAX_LIST) " values";
        return -1;
      }
      if (each && each(ctx, item)) return -1;
      n++;
    }
    if (!comma) return n;
    s = comma + 1;
  }
}

/* ------------------------------------------------------------ flags */
static const char *cli_cmd_name(int cmd) {
  int k = cli_cmd_index(cmd);
  return k < 0 ? "linattn" : cli_commands[k].name;
}

/* The row of the command named name, or -1. */
static int cli_cmd_find(const char *name) {
  int k;
  for (k = 0; k < CLI_NCMDS; ++k)
    if (!strcmp(name, cli_commands[k].name)) return k;
  return -1;
}

/* The message of a flag renamed away from cmd, or NULL. */
static const char *cli_renamed_why(int cmd, const char *name) {
  size_t i;
  for (i = 0; i < sizeof cli_renames / sizeof cli_renames[0]; ++i)
    if ((cli_renames[i].cmds & (unsigned)cmd) && !strcmp(cli_renames[i].name, name))
      return cli_renames[i].why;
  return NULL;
}

static const cli_flag *cli_find(unsigned cmd, const char *name, int any) {
  int i;
  for (i = 0; i < CLI_NFLAGS; ++i)
    if (!strcmp(cli_flags[i].name, name) && (any || (cli_flags[i].cmds & cmd)))
      return &cli_flags[i];
  return NULL;
}

/* A bound of a range as a message says it: a whole number with all its
   digits (2147483647, not 2.14748e+09: a whole field takes no fraction),
   else the shortest %g. */
static const char *cli_bound(char *buf, size_t cap, double v) {
  if (v == floor(v) && fabs(v) < 1e18) snprintf(buf, cap, "%.0f", v);
  else snprintf(buf, cap, "%g", v);
  return buf;
}

/* "--name: 'value' why" with the allowed range or names. */
static int cli_bad_value(const char *name, const char *val, const char *why,
                         double lo, double hi, const char *names, char *err,
                         size_t cap) {
  char q[64], a[32], b[32];
  cli_clean(val, q, sizeof q);
  if (!err || !cap) return CLI_ERROR;
  if (names && *names)
    snprintf(err, cap, "--%s: '%s' %s: %.250s", name, q,
             !strcmp(why, "is not one of") ? why : "is not one of", names);
  else if (!strcmp(why, "is too large") || !strcmp(why, "is too small"))
    snprintf(err, cap, "--%s: '%s' %s (allowed: %s to %s)", name, q, why,
             cli_bound(a, sizeof a, lo), cli_bound(b, sizeof b, hi));
  else
    snprintf(err, cap, "--%s: '%s' %s", name, q, why);
  return CLI_ERROR;
}

/* Stores one value of a program flag into c. */
static int cli_set(cli_config *c, const cli_flag *f, const char *val,
                   char *err, size_t cap) {
  char *base = (char *)c + f->off;
  const char *why = "is not valid";
  double x;
  long k;
  switch (f->kind) {
  case CLI_K_BOOL: *(long *)(void *)base = 1; return CLI_OK;
  case CLI_K_STR:
    if (!*val) return cli_err(err, cap, "--%s: the value is empty%s", f->name, "");
    *(const char **)(void *)base = val;
    return CLI_OK;
  case CLI_K_INT:
    if (!cli_int(val, f->lo, f->hi, &x, &why)) break;
    *(long *)(void *)base = (long)x;
    return CLI_OK;
  case CLI_K_REAL:
    if (!cli_real(val, f->lo, f->hi, (double *)(void *)base, &why)) break;
    return CLI_OK;
  default:
    if (cli_enum(val, f->names, &k)) {
      *(long *)(void *)base = k;
      return CLI_OK;
    } else {
      char names[300];
      cli_name_list(NULL, f->names, names, sizeof names);
      return cli_bad_value(f->name, val, "is not one of", 0, 0, names, err, cap);
    }
  }
  return cli_bad_value(f->name, val, why, f->lo, f->hi, NULL, err, cap);
}

/* Stores one run field: its value, or (sweep) its checked list. */
static int cli_set_field(cli_config *c, const la_run_field *f, const char *flag,
                         const char *val, char *err, size_t cap) {
  int i = (int)(f - la_run_field_at(0));
  const char *why = "is not valid";
  char bad[64], names[300];
  double v;
  names[0] = 0;
  if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER)
    cli_name_list(f, NULL, names, sizeof names);
  if (c->cmd == CLI_SWEEP) {
    if (cli_list_walk(f, val, NULL, NULL, &why, bad, sizeof bad) < 0)
      return cli_bad_value(flag, bad, why, f->lo, f->hi, names, err, cap);
    c->list[i] = val;
  } else {
    if (!cli_field_value(f, val, &v, &why))
      return cli_bad_value(flag, val, why, f->lo, f->hi, names, err, cap);
    (void)la_run_field_set(&c->run, f, v); /* checked: in range */
  }
  c->given[i] = 1;
  return CLI_OK;
}

/* Applies the flags of argv[0 .. argc-1] on top of c (c->cmd already set). */
static int cli_apply(cli_config *c, int argc, char **argv, char *err,
                     size_t cap) {
  int i, extra = 0;
  for (i = 0; i < argc; ++i) {
    const char *a = argv[i];
    const cli_flag *f;
    const la_run_field *rf;
    const char *eq, *val;
    char name[48], q[64];
    size_t len;
    int is_bool;
    if (!a) return cli_err(err, cap, "a null argument%s%s", "", "");
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return CLI_HELP;
    if (!strcmp(a, "--") && c->cmd == CLI_SWEEP && !extra) {
      extra = 1; /* the train flags that follow: the same as before it */
      continue;
    }
    if (a[0] != '-' || a[1] != '-' || !a[2]) {
      if ((c->cmd & CLI_READERS) && a[0] && strcmp(a, "--") != 0) {
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
    rf = la_run_field_find(name);
    f = rf ? NULL : cli_find((unsigned)c->cmd, name, 0);
    if (rf && !cli_field_applies(c->cmd, rf))
      return cli_err(err, cap, "--%s does not apply to %s", name,
                     cli_cmd_name(c->cmd));
    if (!rf && !f) {
      const char *renamed = cli_renamed_why(c->cmd, name);
      if (renamed) return cli_err(err, cap, renamed, cli_cmd_name(c->cmd), "");
      if (cli_find(0, name, 1))
        return cli_err(err, cap, "--%s does not apply to %s", name,
                       cli_cmd_name(c->cmd));
      return cli_err(err, cap, "unknown flag '--%s'%s", name, "");
    }
    is_bool = rf ? rf->kind == LA_FIELD_BOOL : f->kind == CLI_K_BOOL;
    if (is_bool && !rf && eq)
      return cli_err(err, cap, "--%s takes no value%s", name, "");
    if (is_bool && !eq) {
      val = "1";
    } else if (eq) {
      val = eq + 1;
    } else {
      if (i + 1 >= argc || !argv[i + 1])
        return cli_err(err, cap, "--%s needs a value%s", name, "");
      val = argv[++i];
    }
    if (rf) {
      if (cli_set_field(c, rf, name, val, err, cap) != CLI_OK) return CLI_ERROR;
    } else if (cli_set(c, f, val, err, cap) != CLI_OK) {
      return CLI_ERROR;
    }
  }
  return CLI_OK;
}

/* argv[0] is the program, argv[1] the subcommand. scratch holds argc
   pointers (the report's inputs and sweep's train flags point into it).
   CLI_HELP with cmd 0 is the top-level help, CLI_VERSION --version. The
   error text is one line without the program name. */
static int cli_parse(int argc, char **argv, cli_config *c, const char **scratch,
                     char *err, size_t cap) {
  int k, st;
  cli_defaults(c);
  if (err && cap) err[0] = 0;
  if (la_run_field_count() > CLI_MAX_FIELDS)
    return cli_err(err, cap, "the header has more run fields than %s%s",
                   "CLI_MAX_FIELDS", "");
  if (argc < 1 || !argv) return cli_err(err, cap, "no arguments%s%s", "", "");
  c->argv0 = argv[0] ? argv[0] : "linattn";
  c->pos = scratch;
  if (argc < 2 || !argv[1])
    return cli_err(err, cap, "no subcommand (see --help)%s%s", "", "");
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      !strcmp(argv[1], "help"))
    return CLI_HELP;
  if (!strcmp(argv[1], "--version")) return CLI_VERSION;
  if ((k = cli_cmd_find(argv[1])) < 0) {
    char q[64];
    return cli_err(err, cap, "unknown subcommand '%s' (see --help)%s",
                   cli_clean(argv[1], q, sizeof q), "");
  }
  c->cmd = 1 << k;
  cli_opts_defaults(c);
  if (!scratch && (c->cmd & CLI_READERS))
    return cli_err(err, cap, "no room for the arguments%s%s", "", "");
  st = cli_apply(c, argc - 2, argv + 2, err, cap);
  if (st != CLI_OK) return st;
  if ((c->cmd & CLI_READERS) && c->npos == 0)
    return cli_err(err, cap, "%s needs JSON-lines files or folders to read%s",
                   cli_cmd_name(c->cmd), "");
  if (c->cmd == CLI_TRAIN && c->opts.train.checkpoint_every > 0 &&
      !c->opts.train.checkpoint)
    return cli_err(err, cap, "--checkpoint-every needs --checkpoint%s%s", "",
                   "");
  if (c->cmd == CLI_TRAIN && c->opts.train.save_theta_every > 0 &&
      !c->opts.train.save_theta)
    return cli_err(err, cap, "--save-theta-every needs --save-theta%s%s", "", "");
  if (cli_given(c, "preset") && c->cmd != CLI_SWEEP && c->run.preset > 0)
    c->preset = la_run_field_name(la_run_field_find("preset"), c->run.preset);
  return CLI_OK;
}

/* ------------------------------------------------------------ the run */
/* A message naming a field: "--key VALUE: why". */
static int cli_field_err(const la_run_config *r, const la_run_field *f,
                         const char *why, char *err, size_t cap) {
  char flag[48], val[64];
  size_t i;
  for (i = 0; f->key[i] && i + 1 < sizeof flag; ++i)
    flag[i] = f->key[i] == '_' ? '-' : f->key[i];
  flag[i] = 0;
  cli_field_text(r, f, val, sizeof val);
  snprintf(err, cap, "--%s %s: %s", flag, val, why);
  return CLI_ERROR;
}

/* The run the command describes: the run fields given, laid on a zeroed
   description (the selectors among them: a preset, a setting, an
   optimizer), resolved by the header; a refusal names the flag, its value
   and the header's reason (la_run_explain). */
static int cli_run_of(const cli_config *c, la_run_config *out, char *err,
                      size_t cap) {
  la_run_config r;
  const la_run_field *f = NULL;
  char why[300];
  int i, n = la_run_field_count();
  memset(&r, 0, sizeof r);
  for (i = 0; i < n; ++i)
    if (c->given[i]) (void)la_run_field_copy(&r, &c->run, la_run_field_at(i));
  if (la_run_explain(&r, &f, why, sizeof why) == 0) {
    (void)la_run_resolve(&r, out);
    return CLI_OK;
  }
  if (!f) return cli_err(err, cap, "the run cannot be built: %s%s", why, "");
  return cli_field_err(&r, f, why, err, cap);
}

/* A run continued from a checkpoint's description: the fields given must
   agree with it where they are part of its identity; the others (the step
   count) are laid on. */
static int cli_resume_of(const cli_config *c, const la_run_config *saved,
                         la_run_config *out, char *err, size_t cap) {
  la_run_config r = *saved, t;
  int i, n = la_run_field_count();
  if (cli_given(c, "preset"))
    return cli_err(err, cap,
                   "--preset: a resumed run is the checkpoint's; give only "
                   "--steps and outputs%s%s",
                   "", "");
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    if (!c->given[i]) continue;
    t = r;
    (void)la_run_field_copy(&t, &c->run, f);
    if ((f->flags & LA_FIELD_IDENTITY) && la_run_diff(&r, &t, LA_FIELD_IDENTITY)) {
      char want[64];
      cli_field_text(saved, f, want, sizeof want);
      {
        char why[200];
        snprintf(why, sizeof why,
                 "the checkpoint's run has %s %s (a resumed run keeps what it "
                 "is; start a new run to change it)",
                 f->key, want);
        return cli_field_err(&t, f, why, err, cap);
      }
    }
    r = t;
  }
  if (la_run_resolve(&r, out) != 0)
    return cli_err(err, cap, "the checkpoint's run does not resolve%s%s", "", "");
  return CLI_OK;
}

/* The config line: every run field (resolved), then the measurements. */
static void cli_write_run(jw *w, const la_run_config *r) {
  int i, n = la_run_field_count();
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    char buf[64];
    double v;
    if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER) {
      cli_field_text(r, f, buf, sizeof buf);
      jw_str(w, f->key, buf);
    } else {
      (void)la_run_field_get(r, f, &v);
      jw_exact(w, f->key, v == 0 ? 0.0 : v);
    }
  }
}

/* The runs' key for grouping seeds into configurations: every identity
   field but the seed, as the config line wrote it ("?" when absent). */
static void cli_group_key(const jv *cfg, char *buf, size_t cap) {
  size_t used = 0;
  int i, n = la_run_field_count();
  buf[0] = 0;
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    const jv *v = jv_get(cfg, f->key);
    char val[64];
    int w;
    if (!(f->flags & LA_FIELD_IDENTITY) || (f->flags & LA_FIELD_SEED)) continue;
    if (v && v->type == JV_STR) snprintf(val, sizeof val, "%.60s", v->str);
    else if (v && v->type == JV_NUM)
      snprintf(val, sizeof val, "%.17g", v->num == 0 ? 0.0 : v->num);
    else snprintf(val, sizeof val, "?");
    w = snprintf(buf + used, cap - used, "%s=%s;", f->key, val);
    if (w < 0 || (size_t)w >= cap - used) return;
    used += (size_t)w;
  }
}

/* The first run field of a config line that the header's table refuses,
   or NULL: a field's value must be one of its names (ENUM, OPTIMIZER) as a
   string, else a number in its range, whole for the whole kinds, as
   la_run_field_set takes it, or 0 (a field that does not apply: the
   checkpoint's description allows it whatever the range, docs/
   checkpoint.md); a field absent is its default, a key that is no field
   is not the table's to judge. *allowed says what the field takes. */
static const la_run_field *cli_config_bad(const jv *cfg, char *allowed, size_t cap) {
  int i, n = la_run_field_count();
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    const jv *v = jv_get(cfg, f->key);
    la_run_config scratch;
    const char *why;
    char lo[32], hi[32];
    double x;
    if (!v) continue;
    memset(&scratch, 0, sizeof scratch);
    if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER) {
      if (v->type == JV_STR && cli_field_value(f, v->str, &x, &why)) continue;
      snprintf(allowed, cap, "one of: ");
      cli_name_list(f, NULL, allowed + strlen(allowed), cap - strlen(allowed));
    } else {
      if (v->type == JV_NUM && (v->num == 0 || la_run_field_set(&scratch, f, v->num) == LA_OK))
        continue;
      snprintf(allowed, cap, "a %snumber from %s to %s",
               f->kind == LA_FIELD_REAL ? "" : "whole ",
               cli_bound(lo, sizeof lo, f->lo), cli_bound(hi, sizeof hi, f->hi));
    }
    return f;
  }
  return NULL;
}

/* ------------------------------------------------------------ help */
static void cli_help_line(FILE *o, const char *flag, const char *arg,
                          const char *help) {
  char left[400];
  snprintf(left, sizeof left, "--%s%s%s", flag, arg ? " " : "", arg ? arg : "");
  fprintf(o, "  %-24s %s\n", left, help);
}

/* --help of one subcommand: `what`, its own flags, then the run fields it
   takes; cmd 0, the program's: `what`, then the command table. */
static void cli_help(FILE *o, unsigned cmd, const char *what) {
  int i, n = la_run_field_count(), any = 0;
  fprintf(o, "%s", what);
  if (!cmd) {
    for (i = 0; i < CLI_NCMDS; ++i)
      fprintf(o, "  %-11s %s\n", cli_commands[i].name, cli_commands[i].summary);
    return;
  }
  fprintf(o, "\nflags:\n");
  for (i = 0; i < CLI_NFLAGS; ++i) {
    const cli_flag *f = &cli_flags[i];
    if (f->cmds & cmd) cli_help_line(o, f->name, f->arg, f->help);
  }
  cli_help_line(o, "help", NULL, "this text");
  if (cli_field_applies((int)cmd, la_run_field_find("preset"))) {
    const char *nm, *about;
    fprintf(o, "\npresets (--preset NAME):\n");
    for (i = 0; (nm = la_run_preset_name(i, &about)) != NULL; ++i)
      fprintf(o, "  %-24s %s\n", nm, about);
  }
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    char flag[48], arg[300];
    size_t k;
    if (!cli_field_applies((int)cmd, f)) continue;
    if (!any++)
      fprintf(o, "\nthe run%s:\n",
              cmd == CLI_SWEEP ? " (each flag a list: a,b,c or a..b for whole "
                                 "numbers; every combination is one run)"
                               : "");
    for (k = 0; f->key[k] && k + 1 < sizeof flag; ++k)
      flag[k] = f->key[k] == '_' ? '-' : f->key[k];
    flag[k] = 0;
    if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER) {
      cli_name_list(f, NULL, arg, sizeof arg);
      if (strlen(arg) > 24) snprintf(arg, sizeof arg, "NAME");
    } else {
      snprintf(arg, sizeof arg, "%s",
               f->kind == LA_FIELD_BOOL ? "" : f->kind == LA_FIELD_REAL ? "X" : "K");
    }
    {
      char help[400];
      if (cmd == CLI_SWEEP && f->kind == LA_FIELD_OPTIMIZER)
        snprintf(help, sizeof help, "%s (default: %s, each one an axis value)",
                 f->help, cli_sweep_opts);
      else la_run_field_help(f, help, sizeof help);
      cli_help_line(o, flag, *arg ? arg : NULL, help);
    }
  }
}

#endif /* LINATTN_CLI_H */
