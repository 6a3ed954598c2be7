/* cli/commands/reproduce.h - `linattn reproduce`: paper A's experiments end to
   end (paper B's, `reproduce --paper b`, are in cli/commands/paperb.h). A form
   (a setting, a depth, the larger model; --all: every one) is a study: SGD
   and Adam over seeds, run in child processes, with the gradient noise at
   initialization beside them.
   Learning rates are paper A's code's (listed for L = 3), given, or tuned
   on a grid (--tune; by default at every other depth). Each study gets a
   folder with report.md, figures and the CSV behind them; --all adds a
   report over the studies, each number beside paper A's. A report is
   written whatever the runs did: a run that diverged is counted and drawn
   up to its divergence, and the exit status says whether every run
   completed (1 if not); only bad input (2) writes none. The runs are
   train's (train_one), the noise noise's (measure_noise). */
#ifndef LINATTN_REPRODUCE_H
#define LINATTN_REPRODUCE_H

#include "../io/svg.h"
#include "noise_curvature.h"
#include "paperb.h"
#include "../study/runs.h"
#include "../study/plan.h"
#include "train.h"

#include <sys/stat.h>

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
   nonlinear model's Hessian diagonal (about 550 parameters) on its 2000
   prompts stops at 1250 (the table's last iteration); the larger model's
   6,400 parameters make its robust condition number cost minutes, so it is
   not measured there, and its quick form is short. The quick forms run
   paper A's 6 seeds, which decide a sign test at 5% when all agree (4
   never can); the full form's 12 decide at 10 of 12. R is measured on hb Hessian batches (the median over them, and their
   range: how much one batch decides), shared by every run of the study or
   (per_seed, paper A's nonlinear code) drawn for each seed. */
typedef struct repro_len {
  const char *preset;
  long steps[2], seeds[2], diag_every, smooth_every[2], samples[2];
  long diag_batch, hb[2];
  int per_seed;
} repro_len;
static const repro_len repro_lens[] = {
    /* preset       steps quick/full  seeds  diag  smooth   noise samples
                                                    Hessian batch, count */
    {NULL, {2000, 10000}, {6, 12}, 250, {5, 10}, {4000, 10000}, 1000, {3, 5}, 0},
    {"nonlinear", {1250, 10000}, {6, 12}, 250, {5, 10}, {4000, 10000}, 2000, {3, 5}, 1},
    {"large", {600, 10000}, {2, 6}, 0, {20, 50}, {1000, 10000}, 1000, {1, 1}, 0}};

/* Every run of a study measures on the same Hessian batches (paper A's code
   draws one, from a seed of its own, for every seed and optimizer; its
   nonlinear study one per seed, each seed's own), and its
   setting's one-off draws (the nonlinear target network) are shared by
   every seed: seeds that are none of the runs'. */
#define REPRO_DIAG_SEED 999
#define REPRO_DATA_SEED 998

/* A study's gradient noise: a run's output (a plan's merge keeps it). */
static const char repro_noise_file[] = "noise.json";

/* The deep studies (L >= REPRO_DEEP) run in double and skip a step whose
   loss or gradient overflows, up to REPRO_SKIPS a run (repro_why_skip). */
#define REPRO_DEEP 6
#define REPRO_SKIPS 10

#define TUNE_GRID 10
#define TUNE_SEED 1001 /* the first tuning seed: none of the reported ones */
#define TUNE_SEEDS 2   /* a rate must train on every one of them */
enum { LR_PAPER, LR_GIVEN, LR_TUNED };
enum { J_TUNE, J_RUN, J_NOISE };

/* The numbers of each seed behind the tables (NaN: not measured), each with
   its column of seeds.csv. Pairs are [750, 1250] (R, lambda_max/median, the
   spread of R over Hessian batches: its max / min). */
#define SV_COLUMNS(X)                                                         \
  X(SV_FIN_SGD, "final_eval_sgd")                                             \
  X(SV_FIN_ADAM, "final_eval_adam")                                           \
  X(SV_LOSS_RATIO, "final_eval_sgd_over_adam")                                \
  X(SV_R_SGD, "R_sgd_750") X(SV_R_SGD_1250, "R_sgd_1250")                     \
  X(SV_R_ADAM, "R_adam_750") X(SV_R_ADAM_1250, "R_adam_1250")                 \
  X(SV_R_RATIO, "R_sgd_over_adam_750")                                        \
  X(SV_R_RATIO_1250, "R_sgd_over_adam_1250")                                  \
  X(SV_L_SGD, "lmax_over_lmed_sgd_750")                                       \
  X(SV_L_SGD_1250, "lmax_over_lmed_sgd_1250")                                 \
  X(SV_L_ADAM, "lmax_over_lmed_adam_750")                                     \
  X(SV_L_ADAM_1250, "lmax_over_lmed_adam_1250")                               \
  X(SV_L_RATIO, "lratio_sgd_over_adam_750")                                   \
  X(SV_L_RATIO_1250, "lratio_sgd_over_adam_1250")                             \
  X(SV_CORR, "loglog_corr_smoothness_gradnorm_adam")                          \
  X(SV_SPREAD_SGD, "R_spread_sgd_750")                                        \
  X(SV_SPREAD_SGD_1250, "R_spread_sgd_1250")                                  \
  X(SV_SPREAD_ADAM, "R_spread_adam_750")                                      \
  X(SV_SPREAD_ADAM_1250, "R_spread_adam_1250")                                \
  X(SV_R0, "R_init_sgd")
#define SV_ENUM(e, name) e,
enum { SV_COLUMNS(SV_ENUM) SV_N };
#undef SV_ENUM

typedef struct study {
  char key[32], title[160], dir[4096];
  cli_config base;     /* the flags of its runs (optimizer, seed, lr added) */
  la_run_config rc[2]; /* seed 1's SGD and Adam runs, resolved */
  int seeds, tune[2], lr_from[2], depth_default;
  int dbl; /* its runs in double (reproduce --precision) */
  double lr[2], grid[2][TUNE_GRID], score[2][TUNE_GRID];
  int best[2]; /* the grid's best accepted rate; lr is one step below */
  long tune_steps;
  int tune_job, run_job; /* its first job of each phase */
  const paper_r *paper;
  /* what came back */
  runlog *logs; /* 2 seeds: SGD and Adam of seed s at 2(s-1), 2(s-1)+1 */
  int *ok;      /* per run: 1 completed, 0 diverged, -1 missing or failed */
  int diverged, failed;
  int skips; /* the steps its runs skipped (skip_overflow), all together */
  jv noise;
  int has_noise;
  double *v[SV_N]; /* per seed */
  verdict loss, r[2], corr;
  int heavy;            /* the noise's tail heavier than its Gaussian reference */
  int tail_tested;      /* by the reference's tail (noise.json's tail_share) */
  double kurt_limit;    /* a Gaussian sample's kurtosis, 3 + 3 sqrt(24 / N) */
  la_lsmooth_fit fit;   /* Adam's pooled pairs */
  double env_l0, env_l1; /* (L0, L1) bounding each bin's ENV_Q quantile */
  double env_under;      /* the share of the pairs on or under that line */
  int env_ok;
} study;

typedef struct rjob {
  int study, kind, opt, seed, grid, index;
  cli_config cfg;
  long steps;
  double cost;
} rjob;

/* Where the runs run: here (in child processes), or written as commands
   into a plan folder, or read back from one (reproduce --plan, --from). */
enum { REPRO_HERE, REPRO_PLAN, REPRO_FROM };

typedef struct repro {
  const cli_config *c;
  const char *dir;
  study *s;
  int ns;
  rjob *jobs;
  int nj;
  double t0;
  int mode;            /* REPRO_* */
  char program[2][4200]; /* the programs the commands start: float, double */
  char dir_abs[4200];    /* a plan's folder (plan_begin) */
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
  S->base = *c; /* the run fields, the preset, the noise's sizes */
  S->base.cmd = CLI_TRAIN;
  cli_opts_defaults(&S->base); /* no checkpoint, no resume */
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
  if (!cli_given(c, "diag_seed") && !len->per_seed)
    cli_give(&S->base, "diag_seed", REPRO_DIAG_SEED);
  if (!cli_given(c, "data_seed")) cli_give(&S->base, "data_seed", REPRO_DATA_SEED);
  if (!cli_given(c, "diag_batch")) cli_give(&S->base, "diag_batch", (double)len->diag_batch);
  if (!cli_given(c, "diag_batches") && S->base.run.measure.diag_every > 0)
    cli_give(&S->base, "diag_batches", (double)len->hb[full]);
  else if (train_diag_ok(c, &S->base.run) != 0)
    return EXIT_BAD_INPUT;
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
    double given = o ? c->opts.repro.lr_adam : c->opts.repro.lr_sgd;
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
    } else if (c->opts.repro.tune || !S->depth_default) {
      int g;
      S->tune[o] = 1;
      S->lr_from[o] = LR_TUNED;
      for (g = 0; g < TUNE_GRID; ++g) /* lr0 / 64 .. 8 lr0, factors of 2 */
        S->grid[o][g] = S->rc[o].opt.lr * ldexp(1, g - 6);
    }
  }
  /* double at depth 6 and beyond: repro_why_double; a step that overflows
     skipped there: repro_why_skip */
  S->dbl = c->opts.repro.precision == CLI_PREC_DOUBLE ||
           (c->opts.repro.precision == CLI_PREC_AUTO && S->rc[0].model.layers >= REPRO_DEEP);
  if (S->rc[0].model.layers >= REPRO_DEEP && !cli_given(c, "skip_overflow")) {
    cli_give(&S->base, "skip_overflow", REPRO_SKIPS);
    S->rc[0].skip_overflow = S->rc[1].skip_overflow = REPRO_SKIPS;
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
/* Where each job writes its output: a tuning run, a run, the noise. */
static void tune_path(const study *S, int o, int g, int seed, char *buf, size_t cap) {
  snprintf(buf, cap, "%.4000s/tune/%s-lr%d-seed%d.jsonl", S->dir, opt_names[o], g, seed);
}

static void run_path(const study *S, int o, int seed, char *buf, size_t cap) {
  snprintf(buf, cap, "%.4000s/runs/%s-seed%d.jsonl", S->dir, opt_names[o], seed);
}

static void noise_path(const study *S, char *buf, size_t cap) {
  snprintf(buf, cap, "%.4000s/%s", S->dir, repro_noise_file);
}

/* Job j's output (not kept in the job: a plan of 10,000 runs would hold
   40 MB of paths). */
static void job_path(const repro *R, const rjob *j, char *buf, size_t cap) {
  const study *S = &R->s[j->study];
  if (j->kind == J_TUNE) tune_path(S, j->opt, j->grid, j->seed, buf, cap);
  else if (j->kind == J_RUN) run_path(S, j->opt, j->seed, buf, cap);
  else noise_path(S, buf, cap);
}

/* A job is one command line: `linattn train` of a run, or `linattn noise`
   of a study's gradient noise, every flag explicit and its output its
   own. Run here, it is that command line parsed and run in this process;
   in a plan, it is that line. */
static const char *const job_skip[] = {"out-dir", "plan", "from", "slurm",
                                       "jobs", NULL};
static int job_words(const repro *R, const rjob *j, words *w) {
  const study *S = &R->s[j->study];
  int noise = j->kind == J_NOISE;
  char path[4200];
  cli_config c = noise ? S->base : j->cfg;
  if (noise) {
    c.cmd = CLI_NOISE; /* noise's own options, none given */
    cli_opts_defaults(&c);
    cli_give(&c, "seed", 1); /* seed 1's initialization */
  }
  job_path(R, j, path, sizeof path);
  c.out = path;
  return words_add(w, R->program[S->dbl]) || words_add(w, noise ? "noise" : "train") ||
                 words_command(w, &c, noise ? CLI_NOISE : CLI_TRAIN, job_skip)
             ? -1
             : 0;
}

/* A job of the other precision: its command run by that build of the
   program in place of this process (a pool's child), its progress into the
   pool's pipe. Returns only when it cannot start (Windows: when it has run,
   with its exit status). */
#define REPRO_BUILD_DOUBLE (sizeof(la_real) == 8)
static int repro_exec(char **argv, const u_progress *p) {
  char env[64];
  int rc;
  snprintf(env, sizeof env, "%d %d", p->fd, p->job);
  if (p->fd >= 0 && u_sys_setenv(U_PROGRESS_ENV, env) != 0)
    return u_fail(EXIT_FAILED, "cannot set the environment: %s", strerror(errno));
  (void)fflush(NULL);
  if ((rc = u_sys_exec(argv)) >= 0) return rc; /* Windows: it ran */
  return u_fail(u_exit_of_errno(errno, EXIT_FAILED), "cannot start %s: %s",
                U_Q(argv[0]), strerror(errno));
}

/* A job's command words run: by the other build's program when the job's
   precision is not this build's, else parsed here and run as train, or as
   the noise at the checkpoint its --at names (at initialization without
   one). quiet: stderr to /dev/null (a tuning grid's top point diverges
   by design). The optimizers' study runs its jobs through it too. */
static int repro_run_words(const words *w, int other_build, int quiet, int noise, u_progress *p) {
  cli_config c;
  const char **scratch;
  char err[600];
  int st;
  if (!(scratch = (const char **)calloc((size_t)w->n + 1, sizeof(char *)))) return u_oom();
  if (quiet && !freopen("/dev/null", "w", stderr)) st = EXIT_IO;
  else if (other_build) st = repro_exec(w->v, p);
  else if (cli_parse(w->n, w->v, &c, scratch, err, sizeof err) != CLI_OK)
    st = u_fail(EXIT_BAD_INPUT, "a job's command: %s", err);
  else if (!noise)
    st = train_one(&c, p);
  else {
    la_run r;
    la_pool *pool = NULL;
    long step;
    u_out out;
    given_in g;
    if ((st = load_theta(&c, c.opts.measure.at, &r, &pool, &step, &g)) == 0) {
      if ((st = u_open(&out, c.out)) == 0) {
        st = measure_noise(&c, NULL, &r, r.trainer.theta, step, out.f, NULL, p);
        if (st) u_abort(&out);
        else st = u_commit(&out);
      }
      run_free(&r, pool);
      given_free(&g);
    }
  }
  free(scratch);
  return st;
}

static int repro_job(void *ctx, int i, u_progress *p) {
  repro *R = (repro *)ctx;
  const rjob *j = &R->jobs[i];
  words w;
  int st;
  memset(&w, 0, sizeof w);
  if (job_words(R, j, &w)) {
    words_free(&w);
    return u_oom();
  }
  st = repro_run_words(&w, R->s[j->study].dbl != REPRO_BUILD_DOUBLE, j->kind == J_TUNE,
                       j->kind == J_NOISE, p);
  words_free(&w);
  return st;
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
  /* one process per CPU this job may use (la_cpu_count), each run one
     thread */
  int i, procs = (int)(R->c->jobs > 0 ? R->c->jobs : la_cpu_count());
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

/* Whether the object o (a run's config line, a measurement's object) is
   what the command w writes: every run field as the command resolves it,
   each other flag of the command that o records (minibatch, samples) with
   the command's value, and the precision of its program where o records
   one (a run does). 0, or 1 with the first difference in why. */
static int job_output_matches(const words *w, const jv *o, const char *precision,
                              char *why, size_t cap) {
  cli_config c;
  la_run_config rc;
  const char **scratch = (const char **)calloc((size_t)w->n + 1, sizeof(char *));
  char err[600];
  int i, n = la_run_field_count(), bad = 0;
  const char *prec = jv_str(o, "precision");
  if (!scratch) {
    snprintf(why, cap, "out of memory");
    return 1;
  }
  if (cli_parse(w->n, w->v, &c, scratch, err, sizeof err) != CLI_OK ||
      cli_run_of(&c, &rc, err, sizeof err) != CLI_OK) {
    snprintf(why, cap, "its command does not parse: %s", err);
    free(scratch);
    return 1;
  }
  for (i = 0; i < n && !bad; ++i) {
    const la_run_field *f = la_run_field_at(i);
    const jv *v = jv_get(o, f->key);
    char want[64];
    double x;
    cli_field_text(&rc, f, want, sizeof want);
    (void)la_run_field_get(&rc, f, &x);
    if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER)
      bad = !v || v->type != JV_STR || strcmp(v->str, want) != 0;
    else
      bad = !v || v->type != JV_NUM || v->num != x;
    if (bad) snprintf(why, cap, "its %s is not its command's (%s)", f->key, want);
  }
  for (i = 2; i + 1 < w->n && !bad; ++i) { /* "--flag value" pairs */
    char key[64];
    const jv *v;
    size_t k;
    if (strncmp(w->v[i], "--", 2) != 0 || strlen(w->v[i]) >= sizeof key + 2) continue;
    for (k = 0; w->v[i][k + 2]; ++k) key[k] = w->v[i][k + 2] == '-' ? '_' : w->v[i][k + 2];
    key[k] = 0;
    if (cli_field_index(key) >= 0 || !(v = jv_get(o, key))) continue;
    if (v->type == JV_NUM) bad = strtod(w->v[i + 1], NULL) != v->num;
    else if (v->type == JV_STR) bad = strcmp(v->str, w->v[i + 1]) != 0;
    if (bad) snprintf(why, cap, "its %s is not its command's (%s)", key, w->v[i + 1]);
  }
  if (!bad && prec && strcmp(prec, precision) != 0) {
    bad = 1;
    snprintf(why, cap, "it was computed in %s; its command's program computes in %s "
             "(a twin of the other precision?)", prec, precision);
  }
  free(scratch);
  return bad;
}

/* Whether job j's output is there and is its command's (w): 0; 1 with why
   when it is missing (*missing set) or is not (another plan's, another
   run's copied there, unreadable, cut short, another precision's). */
static int job_check(const repro *R, const rjob *j, const words *w, int *missing,
                     char *why, size_t cap) {
  const char *precision = R->s[j->study].dbl ? "double" : "float";
  char path[4200], err[U_QCAP + 200];
  struct stat sb;
  int bad;
  job_path(R, j, path, sizeof path);
  *missing = stat(path, &sb) != 0 || !S_ISREG(sb.st_mode); /* a folder: the run failed */
  if (*missing) {
    snprintf(why, cap, "no output");
    return 1;
  }
  if (j->kind == J_NOISE) {
    char *text = u_slurp(path, NULL);
    const char *jwhy = NULL;
    jv o;
    if (!text) {
      snprintf(why, cap, "cannot be read: %s", strerror(errno));
      return 1;
    }
    if (jv_parse(text, &o, &jwhy) != 0) {
      snprintf(why, cap, "not JSON (%s)", jwhy ? jwhy : "?");
      free(text);
      return 1;
    }
    free(text);
    bad = o.type != JV_OBJ || !jv_str(&o, "type") || strcmp(jv_str(&o, "type"), "noise") != 0;
    if (bad) snprintf(why, cap, "not a noise measurement (its \"type\" is not \"noise\")");
    else if ((bad = !(jv_num(&o, "samples") >= 1) || !isfinite(jv_num(&o, "kurtosis")) ||
                    !isfinite(jv_num(&o, "hill_alpha"))) != 0)
      snprintf(why, cap, "its samples, kurtosis or hill_alpha is missing or not a number");
    else
      bad = job_output_matches(w, &o, precision, why, cap);
    jv_free(&o);
    return bad;
  } else {
    runlog r;
    if (runlog_load(path, &r, err, sizeof err) != 0) {
      snprintf(why, cap, "unreadable: %s", err);
      return 1;
    }
    bad = 1;
    if (!r.has_summary)
      snprintf(why, cap, "cut short: no summary line (the run did not end)");
    else if (!jv_str(&r.config, "precision"))
      snprintf(why, cap, "its config line records no precision");
    else
      bad = job_output_matches(w, &r.config, precision, why, cap);
    runlog_free(&r);
    return bad;
  }
}

/* A stage of the study: run here; or its commands written into the plan;
   or (from a plan) its outputs found, the commands of those missing named
   (EXIT_FAILED). */
static int repro_stage(repro *R, int stage, rjob *jobs, int n, const char *what) {
  int i, missing = 0, wrong = 0, st = 0;
  words *cmds;
  if (!n) return 0;
  if (R->mode == REPRO_HERE) {
    int *status = (int *)calloc((size_t)n, sizeof(int));
    if (!status) return u_oom();
    st = repro_pool(R, jobs, n, what, status);
    free(status);
    if (st) return st;
  }
  if (!(cmds = (words *)calloc((size_t)n, sizeof(words)))) return u_oom();
  R->jobs = jobs;
  /* each output held to its command: here a run that failed is counted
     by the report (no output), one that is not its command's is not; from
     a plan, every run must be there and be its command's */
  for (i = 0; i < n && !st; ++i) {
    char why[U_QCAP + 400], path[4200];
    int gone;
    if (job_words(R, &jobs[i], &cmds[i])) st = u_oom();
    else if (R->mode != REPRO_PLAN && job_check(R, &jobs[i], &cmds[i], &gone, why, sizeof why) &&
             (R->mode == REPRO_FROM || !gone)) {
      if (missing + wrong == 0)
        fprintf(stderr, "linattn reproduce: the runs of stage %d whose output is "
                        "missing or not their command's; each line redoes one:\n", stage);
      job_path(R, &jobs[i], path, sizeof path);
      fprintf(stderr, "# %s: %s\n", U_Q(path), why);
      (void)words_line(stderr, &cmds[i]);
      if (gone) missing++;
      else wrong++;
    }
  }
  if (!st && R->mode == REPRO_PLAN) {
    plan_stage p;
    words merge;
    memset(&p, 0, sizeof p);
    memset(&merge, 0, sizeof merge);
    p.dir = R->dir;
    p.program = R->program[REPRO_BUILD_DOUBLE]; /* the merge: this program */
    p.stage = stage;
    p.n = n;
    p.cmds = cmds;
    p.threads = R->c->threads > 0 ? R->c->threads : 1; /* each run's (study_init) */
    p.jobs = R->c->jobs;
    p.merge = &merge;
    if (words_add(&merge, R->program[REPRO_BUILD_DOUBLE]) || words_add(&merge, "reproduce") ||
        words_add(&merge, "--from") || words_add(&merge, R->dir))
      st = u_oom();
    else
      st = plan_write(&p, R->c->slurm != 0);
    words_free(&merge);
  }
  if (!st && (missing || wrong))
    st = u_fail(EXIT_FAILED, "%d of stage %d's %d runs have no output yet, %d an output "
                "that is not their command's", missing, stage, n, wrong);
  for (i = 0; i < n; ++i) words_free(&cmds[i]);
  free(cmds);
  R->jobs = NULL;
  return st;
}

/* ------------------------------------------------------------ tuning */
/* A tuning run's score: the median of its last five evaluation losses
   (Adam's loss has spikes: one evaluation would choose by chance); NaN
   when the run diverged, skipped a step (skip_overflow: the rate is
   chosen where no step overflowed), did not finish, or ended above its
   loss at initialization (a rate that does not train). */
static double tune_score(const char *path) {
  runlog r;
  char err[600];
  double v[6], score = NAN;
  int i, n = 0;
  if (runlog_load(path, &r, err, sizeof err)) return NAN;
  if (!strcmp(r.status, "ok") && !r.skips && r.f[F_EVAL].n > 0 &&
      r.final_eval == r.final_eval) {
    const series *e = &r.f[F_EVAL];
    stats s;
    /* the evaluations after initialization, the final one included
       (a short run may have none in its series) */
    for (i = e->n - 5 < 1 ? 1 : e->n - 5; i < e->n; ++i) v[n++] = e->y[i];
    if (n == 0 || e->x[e->n - 1] < (double)r.steps) v[n++] = r.final_eval;
    if (n > 5) { memmove(v, v + 1, 5 * sizeof v[0]); n = 5; }
    stats_of(v, n, &s);
    score = s.med < e->y[0] ? s.med : NAN;
  }
  runlog_free(&r);
  return score;
}

/* A grid value's score over the tuning seeds: their mean, NaN (rejected)
   when any seed's run diverged or did not train. */
static double tune_grid_score(const study *S, int o, int g) {
  double sum = 0;
  int k;
  for (k = 0; k < TUNE_SEEDS; ++k) {
    char path[4200];
    double v;
    tune_path(S, o, g, TUNE_SEED + k, path, sizeof path);
    v = tune_score(path);
    if (v != v) return NAN;
    sum += v;
  }
  return sum / TUNE_SEEDS;
}

/* Stage 1 of a tuned study: short runs (a quarter of the steps, at least
   200, no diagnostics) per grid value and tuned optimizer, on each of
   TUNE_SEEDS seeds. Their count (0: nothing is tuned), jobs in *out. */
static int tune_jobs(repro *R, rjob **out, int *count) {
  rjob *jobs;
  int n = 0, i, o, g, k, st = 0;
  *out = NULL;
  *count = 0;
  for (i = 0; i < R->ns; ++i)
    for (o = 0; o < 2; ++o) n += R->s[i].tune[o] ? TUNE_GRID * TUNE_SEEDS : 0;
  if (!n) return 0;
  if (!(jobs = (rjob *)calloc((size_t)n, sizeof(rjob)))) return u_oom();
  n = 0;
  for (i = 0; i < R->ns && !st; ++i) {
    study *S = &R->s[i];
    char dir[4200];
    cli_config base = S->base;
    snprintf(dir, sizeof dir, "%.4000s/tune", S->dir);
    if (!S->tune[0] && !S->tune[1]) continue;
    if (R->mode != REPRO_FROM && (st = u_mkdirs(dir)) != 0) break;
    cli_give(&base, "steps", (double)S->tune_steps);
    cli_give(&base, "diag_every", 0);
    cli_give(&base, "smooth_every", 0);
    base.given[cli_field_index("diag_batches")] = 0; /* no diagnostics: none to take */
    S->tune_job = n;
    for (o = 0; o < 2 && !st; ++o)
      for (g = 0; g < TUNE_GRID && S->tune[o] && !st; ++g)
        for (k = 0; k < TUNE_SEEDS && !st; ++k) {
          rjob *j = &jobs[n++];
          la_run_config rc;
          cli_config keep = S->base;
          S->base = base;
          st = job_config(S, o, TUNE_SEED + k, S->grid[o][g], &j->cfg, &rc);
          S->base = keep;
          j->study = i;
          j->kind = J_TUNE;
          j->opt = o;
          j->grid = g;
          j->seed = TUNE_SEED + k;
          j->steps = rc.steps;
          j->cost = job_cost(&rc, 0, J_TUNE);
        }
  }
  if (st) {
    free(jobs);
    return st;
  }
  *out = jobs;
  *count = n;
  return 0;
}

/* The rates the grid chose: a value any of whose runs diverged, skipped a
   step or did not train is rejected, and each study takes one grid step (a factor of 2)
   below the accepted value with the lowest mean score: the best rate of a
   short run sits at the edge of stability, and a long run near the edge
   diverges. */
/* The rule on a grid of n scores (NaN: rejected): the index of the
   accepted rate with the lowest score, -1 when every one is rejected, and
   in *pick the index taken, one grid step below it (the grid's least when
   it is the least). The optimizers' study takes the same rule. */
static int tune_pick(const double *score, int n, int *pick) {
  int g, best = -1;
  for (g = 0; g < n; ++g)
    if (score[g] == score[g] && (best < 0 || score[g] < score[best])) best = g;
  *pick = best > 0 ? best - 1 : 0;
  return best;
}

static void tune_decide(repro *R) {
  int i, o, g, pick;
  for (i = 0; i < R->ns; ++i) {
    study *S = &R->s[i];
    for (o = 0; o < 2; ++o) {
      if (!S->tune[o]) continue;
      for (g = 0; g < TUNE_GRID; ++g) S->score[o][g] = tune_grid_score(S, o, g);
      S->best[o] = tune_pick(S->score[o], TUNE_GRID, &pick);
      /* every grid value rejected: the paper's rate, said in the report */
      if (S->best[o] >= 0) S->lr[o] = S->grid[o][pick];
      else S->lr_from[o] = LR_PAPER;
    }
  }
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

/* The runs: SGD and Adam over the seeds, and the noise, of every study. */
static int run_jobs(repro *R, rjob **out, int *count) {
  rjob *jobs;
  int n = 0, i, o, s, st = 0;
  *out = NULL;
  *count = 0;
  for (i = 0; i < R->ns; ++i) n += 2 * R->s[i].seeds + 1;
  if (!(jobs = (rjob *)calloc((size_t)n, sizeof(rjob)))) return u_oom();
  n = 0;
  for (i = 0; i < R->ns && !st; ++i) {
    study *S = &R->s[i];
    char dir[4200];
    snprintf(dir, sizeof dir, "%.4000s/runs", S->dir);
    if (R->mode != REPRO_FROM && (st = u_mkdirs(dir)) != 0) break;
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
      }
    if (!st) { /* the noise costs a gradient per sample */
      rjob *j = &jobs[n++];
      la_run_config rc = S->rc[0];
      rc.steps = S->base.samples + S->base.true_batch / 1000;
      j->study = i;
      j->kind = J_NOISE;
      j->steps = S->base.samples;
      j->cost = job_cost(&rc, 0, J_NOISE);
    }
  }
  if (st) {
    free(jobs);
    return st;
  }
  *out = jobs;
  *count = n;
  return 0;
}

/* The study's runs, in their stages (REPRO_HERE: run; REPRO_PLAN: the
   first stage written; REPRO_FROM: each stage's outputs found, the next
   stage written when it is not yet). *later is set when a stage remains
   for another time (a plan's: nothing more to do now). */
static int repro_stages(repro *R, int *later) {
  rjob *tj = NULL, *rj = NULL;
  int nt = 0, nr = 0, st, stage = 1;
  char path[4400];
  struct stat sb;
  *later = 0;
  if ((st = tune_jobs(R, &tj, &nt)) != 0) return st;
  if (nt) {
    st = repro_stage(R, stage++, tj, nt, "tuning");
    if (R->mode == REPRO_PLAN) *later = 1;
    if (st || *later) goto out;
    tune_decide(R);
  }
  if ((st = run_jobs(R, &rj, &nr)) != 0) goto out;
  snprintf(path, sizeof path, "%.4000s/plan/stage-%d.txt", R->dir, stage);
  if (R->mode == REPRO_FROM && stat(path, &sb) != 0) { /* its turn: written */
    R->mode = REPRO_PLAN;
    *later = 1;
  }
  st = repro_stage(R, stage, rj, nr, "reproduce");
  if (R->mode == REPRO_PLAN) *later = 1;
out:
  free(tj);
  free(rj);
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
/* Paper A's (L0, L1)-smoothness bound s <= L0 + L1 ||g|| with L0, L1 >= 0,
   drawn as a bound on the points that a few outliers do not decide: the
   pairs binned by log ||g|| (ENV_BINS bins), each bin's ENV_Q quantile of
   s at its largest ||g||, and the tightest such line above those points
   (la_lsmooth's envelope). */
#define ENV_BINS 10
#define ENV_Q 0.95
static void envelope_of(study *S, const pairs *P) {
  double gx[ENV_BINS], sx[ENV_BINS], glo = HUGE_VAL, ghi = 0, *tmp;
  la_lsmooth_fit fit;
  int b, i, m = 0, under = 0, used = 0;
  S->env_ok = 0;
  for (i = 0; i < P->n; ++i)
    if (P->g[i] > 0 && P->s[i] > 0) {
      glo = fmin(glo, P->g[i]);
      ghi = fmax(ghi, P->g[i]);
    }
  if (!(ghi > glo) || !(tmp = (double *)malloc(sizeof(double) * (size_t)P->n)))
    return;
  for (b = 0; b < ENV_BINS; ++b) {
    double lo = glo * pow(ghi / glo, (double)b / ENV_BINS);
    double hi = glo * pow(ghi / glo, (double)(b + 1) / ENV_BINS), gmax = 0;
    int k = 0;
    for (i = 0; i < P->n; ++i)
      if (P->g[i] > 0 && P->s[i] > 0 && P->g[i] >= lo &&
          (P->g[i] < hi || (b == ENV_BINS - 1 && P->g[i] <= hi))) {
        tmp[k++] = P->s[i];
        gmax = fmax(gmax, P->g[i]);
      }
    if (k < 5) continue; /* too few for a quantile */
    qsort(tmp, (size_t)k, sizeof(double), runs_cmp_double);
    gx[m] = gmax;
    sx[m++] = stat_quantile(tmp, k, ENV_Q);
  }
  free(tmp);
  if (m < 2 || la_lsmooth(m, gx, sx, &fit, NULL, 0) != 0) return;
  S->env_l0 = fit.l0_env;
  S->env_l1 = fit.l1_env;
  for (i = 0; i < P->n; ++i)
    if (P->g[i] > 0 && P->s[i] > 0) {
      used++;
      under += P->s[i] <= S->env_l0 + S->env_l1 * P->g[i];
    }
  S->env_under = used ? (double)under / used : NAN;
  S->env_ok = 1;
}

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
      S->skips += S->logs[i].skips;
    } else if (!strcmp(S->logs[i].status, "diverged")) {
      S->ok[i] = 0;
      S->diverged++;
      S->skips += S->logs[i].skips;
    } else {
      S->ok[i] = -1;
      S->failed++;
    }
  }
  noise_path(S, path, sizeof path);
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
      S->v[SV_SPREAD_SGD + t][i] = series_at(&a->f[F_RMAX], repro_at[t]) /
                                   series_at(&a->f[F_RMIN], repro_at[t]);
      S->v[SV_SPREAD_ADAM + t][i] = series_at(&b->f[F_RMAX], repro_at[t]) /
                                    series_at(&b->f[F_RMIN], repro_at[t]);
    }
    S->v[SV_R0][i] = series_at(&a->f[F_RCOND], 0);
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
    S->tail_tested = jv_get(&S->noise, "tail_share") != NULL;
    S->heavy = S->tail_tested ? jv_num(&S->noise, "tail_heavy") > 0
                              : jv_num(&S->noise, "kurtosis") > S->kurt_limit;
  }
  memset(&S->fit, 0, sizeof S->fit);
  if (pairs_of(S, 0, &P) == 0) {
    if (P.n >= 3) (void)la_lsmooth(P.n, P.g, P.s, &S->fit, NULL, 0);
    envelope_of(S, &P);
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
  const study *S;
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
  const study *S = sf->S;
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
  if (S->env_ok) { /* L0, L1 >= 0: on log axes it lies above the points */
    scatter_line(ax.lo, ax.hi, S->env_l0, S->env_l1, x, y, 100);
    svg_line(&p, x, y, 100, "#000000", 1.5, 1);
    snprintf(lab, sizeof lab, "(L0, L1) bound s = %s + %s ||g|| (%.0f%% of each bin under it)",
             fmt_num(a, sizeof a, S->env_l0, 3), fmt_num(b, sizeof b, S->env_l1, 3),
             100 * ENV_Q);
    svg_legend(&p, lab, "#000000", SVG_DASHED);
  }
  svg_close(&p);
}

static void csv_scatter(FILE *f, void *ctx) {
  scatter_fig *sf = (scatter_fig *)ctx;
  const pairs *P = sf->P;
  const la_lsmooth_fit *fit = &sf->S->fit;
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
  if (sf->S->env_ok)
    fprintf(f, "bound of each bin's 0.95 quantile L0 and L1,,,%s,%s\n",
            csv_num(a, sf->S->env_l0), csv_num(b, sf->S->env_l1));
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
  snprintf(title, sizeof title, "Learning rates, %s: %ld-step runs, seeds %d-%d",
           S->title, S->tune_steps, TUNE_SEED, TUNE_SEED + TUNE_SEEDS - 1);
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
    snprintf(lab, sizeof lab, "%s (a missing point: rejected)", opt_titles[o]);
    svg_legend(&p, lab, svg_palette[o], SVG_LINEDOT);
  }
  svg_legend(&p, "cross: the rate taken, a step below the best", "#666666", SVG_CROSS);
  svg_close(&p);
}

static void csv_tune(FILE *f, void *ctx) {
  const study *S = ((tune_fig *)ctx)->S;
  char a[32];
  int o, g;
  fprintf(f, "optimizer,lr,score,best,taken\n");
  for (o = 0; o < 2; ++o)
    for (g = 0; g < TUNE_GRID && S->tune[o]; ++g)
      fprintf(f, "%s,%.10g,%s,%d,%d\n", opt_names[o], S->grid[o][g],
              S->score[o][g] == S->score[o][g] ? csv_num(a, S->score[o][g]) : "rejected",
              g == S->best[o], S->grid[o][g] == S->lr[o]);
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
    sf.S = S;
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
    "data), and the seeds decide it by a one-sided sign test at 5%: it "
    "*holds* when so many seeds agree with it that a fair coin per seed "
    "would agree that often with a chance of 5% or less (5 of 5, 6 of 6 or "
    "7, 7 of 8, 9 of 10 or 11, 10 of 12), *does not hold* when as many "
    "disagree, and is *undecided* otherwise: four seeds never decide (a "
    "chance of 1/16), which is why the quick forms run paper A's 6 (all 6 "
    "must agree) and the full form 12; an undecided claim says which way "
    "its seeds lean and how many agreeing seeds would decide it. A seed "
    "without the "
    "number (a run that failed, both runs diverged, a diagnostic not "
    "measured there) counts for neither side. A "
    "run that diverged counts as the higher loss (its final loss is written "
    "inf; a median or quartile of inf says that at least that share of the "
    "runs diverged). Medians and quartiles "
    "interpolate between the seeds' values geometrically when both are "
    "positive (the figures' axes are logarithmic). The noise's tail is one measurement (seed 1's "
    "initialization) against its reference, the norm of Gaussian noise "
    "with the measured covariance: C / B, C the covariance of one prompt's "
    "gradient estimated from 4000 further prompts, its norms drawn 20,000 "
    "times and scaled to the samples' median (the scale of a few thousand "
    "prompts' C is off by a few percent, which alone would move the tail). "
    "Heavy when the share of the samples above the reference's 99th "
    "percentile exceeds the 1% a reference sample puts there by more than "
    "three standard errors (binomial, over the samples and the draws). The "
    "norm of Gaussian noise is not itself Gaussian (along one dominant "
    "direction half-normal, kurtosis 3.87), so the kurtosis is read beside "
    "the reference's. A model of more than 1024 parameters (its covariance "
    "too large) is judged by the kurtosis against a Gaussian sample's 3 + "
    "3 sqrt(24/N) instead, said where it is. "
    "lambda_max / lambda_median is given only where the "
    "median eigenvalue stands above the Hessian's rounding (|lambda_median| "
    "> n_params u max|lambda|, u the unit roundoff of the build's reals); "
    "elsewhere it is *not resolved*.\n\n";

/* Each run that diverged: where and why, read at its last finite theta on
   the batch that failed (train's diverge_cause). */
static void report_diverged(FILE *f, const study *S) {
  static const struct {
    const char *key, *text;
  } causes[] = {
      {"train_prompt", "prompts of the step's batch: their predictions overflow, or "
                       "one's error is over half the loss"},
      {"eval_prompt", "prompts of the evaluation batch: their predictions overflow, "
                      "or one's error is over half the loss"},
      {"theta", "most prompts overflow: theta left the range (the optimizer's steps)"},
      {"gradient", "every prediction finite, the gradient not"},
      {"update", "the optimizer's update not finite"},
      {"unknown", "not read (the batch cannot be had)"}};
  int i, o, any = 0;
  char a[32], b[32];
  for (i = 0; i < S->seeds; ++i)
    for (o = 0; o < 2; ++o) {
      const runlog *l = &S->logs[2 * i + o];
      const char *why = l->cause;
      size_t k;
      if (S->ok[2 * i + o] != 0 || !l->has_summary) continue;
      for (k = 0; k < sizeof causes / sizeof causes[0]; ++k)
        if (!strcmp(l->cause, causes[k].key)) why = causes[k].text;
      if (!any++)
        fprintf(f, "\nThe runs that diverged, each read at its last finite theta on "
                   "the batch that failed:\n\n| seed | optimizer | step | cause | "
                   "prompts at fault | their largest norm, the batch's median |\n"
                   "|---|---|---|---|---|---|\n");
      fprintf(f, "| %d | %s | %ld | %s | %d of %d | %s, %s |\n", i + 1, o ? "Adam" : "SGD",
              l->diverged_step, *why ? why : "not said", l->bad_prompts, l->batch,
              fmt_num(a, sizeof a, l->prompt_norm, 3), fmt_num(b, sizeof b, l->norm_median, 3));
    }
  if (any) fputc('\n', f);
}

/* Each run that skipped steps (skip_overflow): how many, where, and the
   prompts at fault, read as a divergence is. */
static void report_skipped(FILE *f, const study *S) {
  int i, o, k, any = 0;
  char a[32], b[32];
  for (i = 0; i < S->seeds; ++i)
    for (o = 0; o < 2; ++o) {
      const runlog *l = &S->logs[2 * i + o];
      if (S->ok[2 * i + o] < 0 || !l->skips) continue;
      if (!any++)
        fprintf(f, "\nThe runs that skipped steps (a step whose loss or gradient "
                   "overflows, at most %ld a run), each step read at the theta it "
                   "kept:\n\n| seed | optimizer | steps skipped | at steps | the "
                   "largest norm of a prompt at fault, its batch's median |\n"
                   "|---|---|---|---|---|\n", S->rc[0].skip_overflow);
      fprintf(f, "| %d | %s | %d | ", i + 1, o ? "Adam" : "SGD", l->skips);
      for (k = 0; k < l->skips && k < RUNLOG_SKIPS; ++k)
        fprintf(f, "%s%ld", k ? ", " : "", l->skip_step[k]);
      fprintf(f, "%s | %s, %s |\n", l->skips > RUNLOG_SKIPS ? ", ..." : "",
              fmt_num(a, sizeof a, l->skip_norm, 3), fmt_num(b, sizeof b, l->skip_median, 3));
    }
  if (any) fputc('\n', f);
}

/* The noise's tail as a report says it: the share above the Gaussian
   reference's 99th percentile, or (not tested that way) the kurtosis
   against a Gaussian sample's. */
static const char *fmt_tail(char *buf, size_t cap, const study *S) {
  const jv *n = &S->noise;
  char a[32], b[32], c[32], d[32];
  if (S->tail_tested)
    snprintf(buf, cap, "%s%% above the Gaussian reference's 99th percentile "
             "(1%% expected, se %s%%); kurtosis %s, the reference's %s",
             fmt_num(a, sizeof a, 100 * jv_num(n, "tail_share"), 3),
             fmt_num(b, sizeof b, 100 * jv_num(n, "tail_share_se"), 2),
             fmt_num(c, sizeof c, jv_num(n, "kurtosis"), 3),
             fmt_num(d, sizeof d, jv_num(n, "gauss_ref_kurtosis"), 3));
  else
    snprintf(buf, cap, "kurtosis %s against a Gaussian sample's limit %s "
             "(no covariance reference: too many parameters)",
             fmt_num(a, sizeof a, jv_num(n, "kurtosis"), 3),
             fmt_num(b, sizeof b, S->kurt_limit, 3));
  return buf;
}

/* "5 of 6 seeds" (and how many had no number: not measured, or both runs
   diverged). */
static const char *fmt_seeds(char *buf, size_t cap, const verdict *v) {
  int none = v->seeds - v->yes - v->no;
  if (none)
    snprintf(buf, cap, "%d of %d seeds (%d without it)", v->yes, v->seeds, none);
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
  size_t n;
  if (!S->diverged && !S->failed)
    n = (size_t)snprintf(buf, cap, "all %d completed", 2 * S->seeds);
  else
    n = (size_t)snprintf(buf, cap, "%d of %d diverged, %d failed", S->diverged,
                         2 * S->seeds, S->failed);
  if (S->skips && n < cap)
    snprintf(buf + n, cap - n, ", %d step%s skipped", S->skips, S->skips == 1 ? "" : "s");
}

/* The per-seed numbers behind the tables. */
static void csv_seeds(FILE *f, void *ctx) {
  const study *S = (const study *)ctx;
#define SV_NAME(e, name) name,
  static const char *const cols[SV_N] = {SV_COLUMNS(SV_NAME)};
#undef SV_NAME
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
/* How R was measured, and how much one Hessian batch decides it. */
static void report_rcond_measure(FILE *f, const study *S) {
  const la_run_config *r = &S->rc[0];
  char a[80], b[80];
  stats s;
  int t, hb = r->measure.diag_batches;
  fprintf(f,
          "\nR = max|diag H| / median|diag H|, the median %s, over all %ld "
          "parameters (structural zeros included, as paper A's code does); "
          "medians and interquartile ranges over the seeds, the ratio taken "
          "seed by seed. ",
          r->measure.median == LA_MEDIAN_LOWER
              ? "as torch.median takes it (the lower of the two middle values, "
                "paper A's code)"
              : "the midpoint of the two middle values (not paper A's code's)",
          run_nparams(r));
  if (cli_given(&S->base, "diag_seed"))
    fprintf(f, "Every run, both optimizers, is measured on the same Hessian "
               "batch%s of %d prompts (seed %llu), as paper A's code measures "
               "every seed on one batch",
            hb > 1 ? "es" : "", r->measure.diag_batch,
            (unsigned long long)r->measure.diag_seed);
  else
    fprintf(f, "Each seed's two runs are measured on that seed's Hessian "
               "batch%s of %d prompts, as paper A's code measures this study",
            hb > 1 ? "es" : "", r->measure.diag_batch);
  stats_of(S->v[SV_R0], S->seeds, &s);
  if (s.n > 0) {
    fmt_miqr(a, sizeof a, &s);
    fprintf(f, ". At initialization R is %s", a);
  }
  if (hb <= 1) {
    fprintf(f, ".\n\n");
    return;
  }
  fprintf(f,
          "; R is the median over %d such batches. How much one batch "
          "decides it: R's largest over its least on those batches, median "
          "[IQR] over the seeds:\n\n| iteration | SGD | Adam |\n|---|---|---|\n",
          hb);
  for (t = 0; t < 2; ++t) {
    stats_of(S->v[SV_SPREAD_SGD + t], S->seeds, &s);
    fmt_miqr(a, sizeof a, &s);
    stats_of(S->v[SV_SPREAD_ADAM + t], S->seeds, &s);
    fmt_miqr(b, sizeof b, &s);
    fprintf(f, "| %.0f | %s | %s |\n", repro_at[t], a, b);
  }
  fprintf(f, "\n");
}

static void report_rcond(FILE *f, const study *S) {
  char a[80], b[80], c[80], d[80], e[80], p[80], vb[160];
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
            fmt_verdict(vb, sizeof vb, &S->r[t]), p);
  }
  report_rcond_measure(f, S);
  fprintf(f,
          "lambda_max / lambda_median (paper A's text), SGD's over "
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
/* Why the deep studies run in double by default, and why they skip a step
   that overflows (measured: the 12 runs of the quick L = 8 study, seeds 1
   to 6 at SGD 0.04 / Adam 0.01, in each build, with and without skipping;
   and each rate of the tuning grids at L = 8 in double on seeds 1 to 6,
   1001 and 1002 without skipping). */
static const char repro_why_double[] =
    "float's range is too small at depth: the quick L = 8 study's 12 runs "
    "(SGD 0.04, Adam 0.01) lose 10 in float and 3 in double without "
    "skipping; skipping, float skips 41 steps and still loses one run, "
    "double skips 4 and loses none";
static const char repro_why_skip[] =
    "a step whose loss or gradient overflows is skipped (no update, its batch "
    "used up, each listed below; at most %ld a run, the next one ends it), as "
    "mixed-precision training skips a step whose gradient overflows: the "
    "forward pass is a polynomial of degree 3^L in a prompt, a trained deep "
    "model's overflows on rare prompts (a few in ten million at L = 8), and "
    "no learning rate of the grid avoids them (at L = 8 in double, Adam loses "
    "at least one of 8 runs of 2000 steps at every rate from 0.00125 to "
    "0.04)";

/* What this study does otherwise than paper A's code (its repository's
   notebooks), that a reader comparing numbers should know. */
static void report_differences(FILE *f, const study *S) {
  const la_run_config *r = &S->rc[0];
  fprintf(f,
          "Otherwise than paper A's code: prompts, initializations and the "
          "Hessian batches come from linattn's counter-based streams (the same "
          "distributions, other draws: seed k here is not the code's seed k); "
          "the setting's one-off draws come from seed %llu, where the code "
          "uses a seed of its own; clipping divides by the gradient's norm "
          "(the code's clip_grad_norm_ by the norm + 1e-6)",
          (unsigned long long)r->data_seed);
  if (r->model.front_hidden > 0)
    fprintf(f, "; the parameters measured at iteration t are those after t "
               "updates (the code records them after t + 1)");
  if (S->dbl) fprintf(f, "; the runs are in double (the code's are float32: %s)", repro_why_double);
  if (r->skip_overflow > 0) {
    fprintf(f, "; ");
    fprintf(f, repro_why_skip, r->skip_overflow);
  }
  if (!S->depth_default)
    fprintf(f, "; the code gives no learning rates beyond L = 3 and linear "
               "attention: these are tuned");
  fprintf(f, ".\n\n");
}

static int study_report(const study *S, const int *has) {
  const la_run_config *r = &S->rc[0];
  char path[4300], a[80], b[80], c[80], d[80], e[32], g[32], h[32], pname[32];
  char pname2[32], vb[160], tb[240];
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
              "Backend %s, %s.\n\n",
              r->model.layers, r->data.d, r->data.n, pname,
              r->model.front_hidden > 0 ? " behind a trainable ReLU front MLP" : "",
              run_nparams(r), r->batch, r->steps, S->seeds, S->seeds == 1 ? "" : "s",
              r->clip_norm, fmt_num(a, sizeof a, S->lr[0], 3), lr_origin(S, 0),
              fmt_num(b, sizeof b, S->lr[1], 3), lr_origin(S, 1), r->eval_batch,
              r->eval_every, r->measure.diag_batch, r->measure.diag_every,
              r->measure.diag_every > 0 ? "" : " (not measured: 0)",
              r->measure.smooth_every, (fmt_incomplete(c, sizeof c, S), c),
              la_backend_name(), S->dbl ? "double" : "float");
      if (has[FIG_TUNE])
        fprintf(f,
                "Learning rates: paper A's code gives them for L = 3 and linear "
                "attention only; here each tuned one comes from a grid of %d (the "
                "code's rate times 2^-6 .. 2^3), each value trained %ld steps on "
                "seeds %d to %d (none of the seeds reported). A value is rejected "
                "when any of its runs diverges, skips a step (where steps are "
                "skipped) or ends above its loss at initialization; the best accepted value has the lowest mean of "
                "the runs' median last five evaluation losses, and the rate taken "
                "is one grid step below it (half of it: the best rate of a short "
                "run sits at the edge of stability) (`tune.csv`: both).\n\n"
                "![learning-rate tuning](tune.svg)\n\n",
                TUNE_GRID, S->tune_steps, TUNE_SEED, TUNE_SEED + TUNE_SEEDS - 1);
      for (o = 0; o < 2 && has[FIG_TUNE]; ++o) /* a choice at the grid's edge */
        if (S->tune[o] && S->lr_from[o] == LR_TUNED &&
            (S->best[o] == 0 || S->best[o] == TUNE_GRID - 1))
          fprintf(f, "**%s's best accepted rate is the grid's %s value** (%s)%s: the "
                  "grid does not bracket its best rate, and the rate taken is %s.\n\n",
                  o ? "Adam" : "SGD", S->best[o] ? "largest" : "smallest",
                  fmt_num(a, sizeof a, S->grid[o][S->best[o]], 3),
                  S->best[o] ? "" : ", every larger one rejected or worse",
                  S->best[o] ? "one step below it"
                             : "that value itself (there is no step below)");
      report_differences(f, S);
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
      report_diverged(f, S);
      report_skipped(f, S);
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
                "||g_B - g||: mean %s, sd %s; %s; Hill tail index %s \xc2\xb1 %s, largest "
                "sample %s standard deviations above the mean.\n\n",
                (int)jv_num(n, "samples"), (int)jv_num(n, "minibatch"),
                (int)jv_num(n, "true_batch"), fmt_num(a, sizeof a, jv_num(n, "mean"), 4),
                fmt_num(b, sizeof b, sqrt(jv_num(n, "var")), 4),
                fmt_tail(tb, sizeof tb, S),
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
                "%s (median [IQR]); above 0.5 in %s. The figure's line is "
                "paper A's (L0, L1) bound s <= L0 + L1 ||grad f|| with L0, L1 "
                ">= 0, drawn above each of %d bins of log ||grad f||'s %.0f%% "
                "quantile: L0 = %s, L1 = %s, %.0f%% of the pairs under it. Over "
                "all the pairs, least squares gives %s, %s (its intercept may "
                "be negative: no bound) and the tightest line above every pair "
                "%s, %s.\n\n",
                pairs_until(S), S->fit.used, a, fmt_seeds(b, sizeof b, &S->corr),
                ENV_BINS, 100 * ENV_Q, fmt_num(h, sizeof h, S->env_l0, 3),
                fmt_num(pname2, sizeof pname2, S->env_l1, 3), 100 * S->env_under,
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
            fmt_verdict(vb, sizeof vb, &S->loss));
    for (o = 0; o < 2 && r->measure.diag_every > 0; ++o)
      fprintf(f, "| R_SGD > R_Adam at %.0f | %s | %s | %s |\n", repro_at[o],
              fmt_seeds(a, sizeof a, &S->r[o]),
              fmt_num(b, sizeof b, S->r[o].median, 3),
              fmt_verdict(vb, sizeof vb, &S->r[o]));
    if (S->has_noise)
      fprintf(f, "| heavy right tail of the noise | one measurement | %s | %s |\n",
              fmt_tail(tb, sizeof tb, S), S->heavy ? "holds" : "does not hold");
    fprintf(f, "| smoothness and gradient norm move together (log-log correlation > 0.5) "
               "| %s | %s | %s |\n",
            fmt_seeds(a, sizeof a, &S->corr), fmt_num(b, sizeof b, S->corr.median, 2),
            fmt_verdict(vb, sizeof vb, &S->corr));
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
      /* neighbouring depths' notes on rows of their own (a note is wider
         than two depths' spacing): SGD's above Adam's */
      snprintf(txt, sizeof txt, "%s %d/%d diverged", o ? "Adam" : "SGD", dv, S->seeds);
      svg_note(&p, S->rc[0].model.layers, 0, 0, -8 - 13 * (2 * (i % 2) + 1 - o),
               "middle", svg_palette[o], txt);
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
/* Whether a study runs in double. */
static int repro_any_double(const repro *R) {
  int i;
  for (i = 0; i < R->ns; ++i)
    if (R->s[i].dbl) return 1;
  return 0;
}

static int repro_summary(repro *R) {
  char path[4300], a[80], b[80], c[80], d[80], e[80], vb[160], tb[240];
  const study *depth[REPRO_NFORMS];
  depth_fig D;
  tails_fig T;
  u_out md;
  int i, t, nd = 0, st, has_depth = 0, has_tails = 0;
  const int attn = R->c->opts.repro.compare_attention != 0;
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
          "%s, %s%s. The numbers of every table: "
          "`summary.csv`; each study's seeds: `STUDY/seeds.csv`.\n\n",
          R->ns, la_backend_name(), precision_name,
          repro_any_double(R) && !REPRO_BUILD_DOUBLE
              ? "; the studies at depth 6 and beyond in double (float runs "
                "there overflow), a step whose loss or gradient overflows "
                "skipped there (each study's report lists them)"
              : "");
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
            fmt_verdict(vb, sizeof vb, &S->loss));
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
              fmt_verdict(vb, sizeof vb, &S->r[t]), c);
    }
  }
  fprintf(f, "\n## Gradient noise (paper A: heavy-tailed, except with spherical covariates)\n\n"
             "| study | the tail against the norm of Gaussian noise of the measured "
             "covariance | Hill tail index | heavy tail |\n"
             "|---|---|---|---|\n");
  for (i = 0; i < R->ns; ++i) {
    const study *S = &R->s[i];
    if (!S->has_noise) {
      fprintf(f, "| %s | not measured | | |\n", S->title);
      continue;
    }
    fprintf(f, "| %s | %s | %s | %s |\n", S->title, fmt_tail(tb, sizeof tb, S),
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
            fmt_verdict(vb, sizeof vb, &S->corr));
  }
  if (has_depth)
    fprintf(f, "\n## Depth (paper A: the phenomena grow stronger with depth)\n\n"
               "![the phenomena against depth](depth.svg)\n\nEach depth's "
               "learning rates are tuned (paper A's code lists them for "
               "L = 3 only); see each study's `tune.svg`. At depth 6 and 8 a "
               "step whose loss or gradient overflows is skipped (the runs "
               "column above counts them; each study's report lists them).\n");
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

/* Everything reproduce writes into a study's folder or the summary's:
   the reports and tables, each figure with its CSV (NAME.svg, NAME.csv),
   and the runs' outputs: their JSON lines in runs/ and tune/, the noise's
   noise.json. All of it is removed before
   new runs start: a folder holds one study, so a reproduce that fails or
   is killed leaves nothing of an earlier one beside its own. */
static const char *const repro_products[] = {
    "report.md", "summary.md", "seeds.csv", "summary.csv",
    "loss.svg", "rcond.svg", "smoothness.svg", "noise.svg", "gnorm_smoothness.svg",
    "tune.svg", "depth.svg", "tails.svg", "attention.svg"};
static const char *const repro_run_dirs[] = {"runs", "tune"};

/* One folder's products, and its runs unless they are a plan's (runs 0:
   the merge reads them). */
static int repro_clear_one(const char *dir, int runs) {
  size_t i;
  char path[4200], csv[4200];
  int st = 0;
  for (i = 0; i < sizeof repro_products / sizeof repro_products[0] && !st; ++i) {
    snprintf(path, sizeof path, "%.4000s/%s", dir, repro_products[i]);
    if ((st = plan_remove(path)) == 0 && strstr(repro_products[i], ".svg")) {
      csv_path(path, csv, sizeof csv);
      st = plan_remove(csv);
    }
  }
  for (i = 0; runs && i < sizeof repro_run_dirs / sizeof repro_run_dirs[0] && !st; ++i)
    st = plan_clear(dir, repro_run_dirs[i], ".jsonl");
  snprintf(path, sizeof path, "%.4000s/%s", dir, repro_noise_file);
  return st || !runs ? st : plan_remove(path);
}

/* The folder's, and those of the studies an earlier --all or
   --compare-attention left in its sub-folders (real folders only). */
static int repro_clear(const char *dir, int runs) {
  char sub[4200];
  struct stat st;
  int i, rc = repro_clear_one(dir, runs);
  for (i = 0; i < REPRO_NFORMS + 2 && !rc; ++i) {
    snprintf(sub, sizeof sub, "%.4000s/%s", dir,
             i < REPRO_NFORMS ? repro_forms[i].key : repro_attentions[i - REPRO_NFORMS]);
    if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) rc = repro_clear_one(sub, runs);
  }
  return rc;
}

/* What a plan's flags leave out: not what decides the study and its
   report, but where it runs and how many at once. */
static const char *const plan_skip[] = {"out-dir", "plan", "from", "slurm", "jobs", NULL};

/* The programs of the runs: this one for its own precision, and for the
   other its twin beside it (linattn-double, or linattn beside a double
   build; by name alone when this one was found on PATH). */
static int repro_programs(const cli_config *c, repro *R) {
  char *slash;
  const char *twin = REPRO_BUILD_DOUBLE ? "linattn" : "linattn-double";
  char *self = R->program[REPRO_BUILD_DOUBLE], *other = R->program[!REPRO_BUILD_DOUBLE];
  plan_program(c->argv0, self, sizeof R->program[0]);
  slash = strrchr(self, '/');
  if (slash)
    snprintf(other, sizeof R->program[0], "%.*s/%s", (int)(slash - self), self, twin);
  else
    snprintf(other, sizeof R->program[0], "%s", twin);
  return 0;
}

/* Whether every study's program can be started here (a study in the other
   precision needs the twin). */
static int repro_check_programs(const repro *R) {
  int i;
  for (i = 0; i < R->ns; ++i) {
    const char *prog = R->program[R->s[i].dbl];
    struct stat sb;
    if (R->s[i].dbl == REPRO_BUILD_DOUBLE) continue;
    if (strchr(prog, '/') ? stat(prog, &sb) != 0 || !S_ISREG(sb.st_mode) ||
                                access(prog, X_OK) != 0
                          : 0)
      return u_fail(EXIT_BAD_INPUT,
                    "%s runs in %s: %s is not there (`make` builds it beside "
                    "this program), or give --precision %s",
                    R->s[i].title, R->s[i].dbl ? "double" : "float", U_Q(prog),
                    R->s[i].dbl ? "float" : "double");
  }
  return 0;
}

/* Paper A's studies: the form the flags say, --all or --compare-attention;
   run here, written as a plan, or merged from one (mode). */
static int repro_paper_a(const cli_config *c, int mode, const char *dir) {
  const cli_repro_opts *o = &c->opts.repro;
  repro R;
  int i, st = 0, incomplete = 0, later = 0;
  memset(&R, 0, sizeof R);
  R.c = c;
  R.mode = mode;
  R.dir = dir;
  R.t0 = u_now();
  if (strlen(dir) > PLAN_DIR_MAX) /* its studies' runs below it, each path whole */
    return u_fail(EXIT_BAD_INPUT, "%s: the folder's path has %lu bytes; the study's files "
                  "below it need it within %d", U_Q(dir), (unsigned long)strlen(dir),
                  PLAN_DIR_MAX);
  if ((st = repro_programs(c, &R)) != 0) return st;
  if (o->all && (cli_given(c, "setting") || cli_given(c, "depth") || c->preset))
    return u_fail(EXIT_BAD_INPUT, "--all runs every setting and depth: give "
                                  "no --setting, --depth or --preset with it");
  if (o->all && (o->lr_sgd == o->lr_sgd || o->lr_adam == o->lr_adam))
    return u_fail(EXIT_BAD_INPUT, "--all takes each study's learning rates "
                                  "(paper A's or tuned): give no --lr-sgd or "
                                  "--lr-adam with it");
  if (c->seeds > 512) return u_fail(EXIT_BAD_INPUT, "--seeds: at most 512");
  if (cli_given(c, "data") && c->run.data_mode == LA_DATA_GIVEN)
    return u_fail(EXIT_BAD_INPUT, "--data given: a study draws its own prompts for "
                                  "every seed; another program's batches train "
                                  "one run: linattn train --data-file FILE.npy");
  if (o->compare_attention && (o->all || cli_given(c, "attention")))
    return u_fail(EXIT_BAD_INPUT, "--compare-attention runs one study under "
                                  "linear and under softmax attention: give "
                                  "no --all or --attention with it");
  R.ns = o->all ? REPRO_NFORMS : o->compare_attention ? 2 : 1;
  if (!(R.s = (study *)calloc((size_t)R.ns, sizeof(study))))
    return u_oom();
  for (i = 0; i < R.ns && !st; ++i) {
    if (o->all)
      st = study_init(&R, &R.s[i], repro_forms[i].key, repro_forms[i].title,
                      repro_forms[i].preset, repro_forms[i].depth, NULL);
    else if (o->compare_attention)
      st = study_init(&R, &R.s[i], repro_attentions[i], NULL, c->preset, 0,
                      repro_attentions[i]);
    else
      st = study_init(&R, &R.s[i], "", NULL, c->preset, 0, NULL);
  }
  if (st || (mode != REPRO_FROM && (st = repro_check_programs(&R)) != 0)) goto out;
  /* a report and figures from before are removed: a failing run leaves none
     (a plan's merge keeps its runs' outputs) */
  u_own(R.dir);
  if ((mode == REPRO_PLAN && (st = plan_begin(dir, R.dir_abs, sizeof R.dir_abs)) != 0) ||
      (st = u_mkdirs(R.dir)) != 0 || (st = repro_clear(R.dir, mode != REPRO_FROM)) != 0) goto out;
  for (i = 0; i < R.ns && !st; ++i) {
    st = u_mkdirs(R.s[i].dir);
    if (!st) st = repro_clear(R.s[i].dir, mode != REPRO_FROM);
  }
  if (!st && mode == REPRO_PLAN) st = plan_write_flags(R.dir, c, CLI_REPRO, plan_skip);
  if (!st) st = repro_stages(&R, &later);
  if (st || later) goto out;
  for (i = 0; i < R.ns && !st; ++i) {
    int has[FIG_N];
    study *S = &R.s[i];
    if ((st = study_load(S)) != 0 || (st = study_figures(S, has)) != 0 ||
        (st = study_report(S, has)) != 0)
      break;
    incomplete += S->diverged + S->failed + !S->has_noise;
    print_study(S);
  }
  if (!st && R.ns > 1) st = repro_summary(&R);
  if (!st) {
    printf("report: %s/report.md (%.1f s)\n", R.dir, u_now() - R.t0);
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

static const char reproduce_help[] =
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
    "the quick form of Setting 1 (2000 steps, 6 seeds); --full is paper A's\n"
    "(10,000 steps, 12 seeds). At depth 6 and beyond the runs are in double\n"
    "and skip a step whose loss or gradient overflows, at most 10 a run\n"
    "(--skip-overflow K: another count), each skip listed in the report.\n"
    "The report is written whatever the runs do; exit status 1 when a run\n"
    "diverged or failed.\n";

/* The optimizers' study (--optimizers; cli/commands/optimizers.h), or
   paper A's studies. */
static int opt_study(const cli_config *c, int mode, const char *dir);
static int repro_study(const cli_config *c, int mode, const char *dir) {
  return c->opts.repro.optimizers ? opt_study(c, mode, dir) : repro_paper_a(c, mode, dir);
}

/* `linattn reproduce`: paper A's studies, or with --paper b paper B's
   checks (cli/commands/paperb.h); here, as a plan (--plan DIR), or merged from
   a plan's outputs (--from DIR). */
static int cmd_reproduce(const cli_config *c) {
  char dir[4200];
  int st;
  if ((c->plan || c->from) && c->out_dir)
    return u_fail(EXIT_BAD_INPUT, "--%s DIR is the study's folder: give no --out-dir "
                  "with it", c->plan ? "plan" : "from");
  if (c->plan && c->from)
    return u_fail(EXIT_BAD_INPUT, "--plan writes a plan, --from merges one: give one");
  if (c->slurm && !c->plan && !c->from)
    return u_fail(EXIT_BAD_INPUT, "--slurm writes a plan's job arrays: give it with --plan");
  /* of paper B's checks only depth and context are made of units (the
     rest train and measure in one process): they take --plan themselves */
  if (c->opts.repro.paper && (c->plan || c->from))
    return u_fail(EXIT_BAD_INPUT, "--%s: paper B's report runs in one process; its "
                  "depth and context checks take it (theorem --check depth --%s DIR)",
                  c->plan ? "plan" : "from", c->plan ? "plan" : "from");
  if (c->opts.repro.paper && c->opts.repro.optimizers)
    return u_fail(EXIT_BAD_INPUT, "--optimizers is a study of paper A's question: give no --paper b");
  if (c->opts.repro.paper) return pb_reproduce(c);
  if (c->plan) {
    if ((st = plan_abs_dir(c->plan, dir, sizeof dir)) != 0) return st;
    return repro_study(c, REPRO_PLAN, dir);
  }
  if (c->from) {
    cli_config fc;
    char *text = NULL;
    const char **scratch = NULL;
    if ((st = plan_abs_dir(c->from, dir, sizeof dir)) == 0 &&
        (st = plan_flags(dir, c->argv0, "reproduce", &fc, &text, &scratch)) == 0) {
      char flag[300];
      int differs = plan_flag_differs(c, &fc, CLI_REPRO, plan_skip, flag, sizeof flag);
      fc.slurm = c->slurm || plan_is_slurm(dir); /* the next stage's arrays */
      fc.jobs = c->jobs;
      if (differs < 0) st = u_oom();
      else if (differs)
        st = u_fail(EXIT_BAD_INPUT, "%s: the plan in %s was written with other flags "
                    "(its plan/flags); give its own or none", flag, U_Q(dir));
      else
        st = repro_study(&fc, REPRO_FROM, dir);
    }
    free(text);
    free(scratch);
    return st;
  }
  return repro_study(c, REPRO_HERE, c->out_dir ? c->out_dir : "linattn-reproduce");
}

#endif /* LINATTN_REPRODUCE_H */
