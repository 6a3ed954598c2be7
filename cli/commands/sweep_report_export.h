/* cli/commands/sweep_report_export.h - the commands over many runs' files:
   `linattn sweep` (a grid of train runs: their commands, or run --jobs at a
   time), `linattn report` (their JSON lines merged into tables and figures)
   and `linattn export` (the JSON lines of runs and measurements as CSV,
   the numbers behind every report for pandas, R or a spreadsheet).

   export: into the output folder go one CSV per run or measurement and
   configs.csv:
     a train run     its step lines: a column per key (in the order the keys
                     first appear), a row per line; a cell a line lacks is
                     empty
     a measurement   (noise, curvature) its arrays: a column per array
                     (hist, edges; top, density, ...), shorter ones padded
                     with empty cells
     configs.csv     a row per run or measurement: run (the name of its
                     CSV), source (the file it came from), type, then every
                     scalar of its config line or object, then a run's
                     summary (a summary key its config line has too, steps,
                     is written summary_steps)
   A CSV is named after its source file (run.jsonl -> run.csv; the next run
   of the same file, or a name already taken, run-2.csv, ...). Numbers are
   written so that they read back to the same double, null as an empty
   cell, strings quoted where CSV needs it (RFC 4180). Files appear only
   when complete (written under a temporary name, then renamed). */
#ifndef LINATTN_SWEEP_REPORT_EXPORT_H
#define LINATTN_SWEEP_REPORT_EXPORT_H

#include "../io/svg.h"
#include "../args.h"
#include "../io/json.h"
#include "../study/plan.h"
#include "../study/runs.h"
#include "../io/sys.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================== */
/*                                sweep                               */
/* ================================================================== */

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
  const char *program; /* the commands' program (absolute in a plan) */
  axis ax[CLI_MAX_FIELDS];
  int nax;
  long n;          /* grid points */
  int threaded;     /* each run given --threads */
  char threads[24]; /* its value */
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

static int sweep_cmp_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A value twice on one axis (--seed 1,1; 1 and 1.0; 0 and -0) is two grid
   points of one run: two processes would write one output at once, so it
   is refused. The values were checked by the walk: each reads as a name's
   index or a number. */
static int sweep_axis_unique(const axis *a) {
  double *v = (double *)malloc(sizeof(double) * (size_t)(a->n > 0 ? a->n : 1));
  const char *why;
  long i;
  if (!v) return u_oom();
  for (i = 0; i < a->n; ++i) (void)cli_field_value(a->f, a->v[i], &v[i], &why);
  qsort(v, (size_t)a->n, sizeof(double), sweep_cmp_value);
  for (i = 1; i < a->n && v[i] != v[i - 1]; ++i) {
  }
  if (i < a->n) {
    char val[64];
    la_run_config rc;
    memset(&rc, 0, sizeof rc);
    (void)la_run_field_set(&rc, a->f, v[i]); /* checked by the walk */
    cli_field_text(&rc, a->f, val, sizeof val);
    free(v);
    return u_fail(EXIT_BAD_INPUT, "--%s: %s is given twice; each grid point is one "
                  "run, written to its own file", a->flag, val);
  }
  free(v);
  return 0;
}

/* The axes: every run field given (a list, or one value), in the table's
   order; the optimizers default to cli_sweep_opts. */
static int sweep_axes(sweep *S) {
  const cli_config *c = S->c;
  int i, st, n = la_run_field_count();
  double total = 1;
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    axis *a = &S->ax[S->nax];
    const char *why;
    char bad[64];
    size_t k;
    const char *list = c->given[i] ? c->list[i]
                       : f->kind == LA_FIELD_OPTIMIZER ? cli_sweep_opts : NULL;
    if (!list) continue;
    a->f = f;
    for (k = 0; f->key[k] && k + 1 < sizeof a->flag; ++k)
      a->flag[k] = f->key[k] == '_' ? '-' : f->key[k];
    a->flag[k] = 0;
    S->nax++;
    if (cli_list_walk(f, list, axis_add, a, &why, bad, sizeof bad) < 0)
      return u_oom();
    if ((st = sweep_axis_unique(a)) != 0) return st;
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
  long at[CLI_MAX_FIELDS];
  char name[256], out[4400], **v;
  int k, w = 0;
  size_t nwords = 8 + 2 * (size_t)S->nax;
  sweep_point(S, i, at);
  sweep_name(S, i, name, sizeof name);
  if (!(v = (char **)calloc(nwords, sizeof(char *)))) return NULL;
  v[w++] = (char *)S->program;
  v[w++] = (char *)"train"; /* --preset, as every run field, is an axis */
  if (S->threaded) {
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
  int k, w = 2 + (S->threaded ? 2 : 0);
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
  {
    int rc = u_sys_exec(v);
    if (rc >= 0) { /* Windows: it ran */
      sweep_command_free(S, v);
      return rc;
    }
  }
  {
    int e = errno;
    u_fail(EXIT_FAILED, "cannot run %s: %s", U_Q(v[0]), strerror(e));
    sweep_command_free(S, v);
    return EXIT_FAILED;
  }
}

/* The commands as a plan (--slurm; cli/study/plan.h writes it): stage 1 a
   run a line, a job array over it (--jobs at once, --threads CPUs a task)
   and a merge job that writes the report into DIR/report. */
static int sweep_plan(const sweep *S) {
  const cli_config *c = S->c;
  words *cmds = (words *)calloc((size_t)S->n + 1, sizeof(words));
  words merge;
  plan_stage p;
  char plan[4400], rdir[4400];
  long i;
  int k, st = 0;
  memset(&merge, 0, sizeof merge);
  if (!cmds) return u_oom();
  for (i = 0; i < S->n && !st; ++i) {
    char **v = sweep_command(S, i);
    for (k = 0; v && v[k] && !st; ++k)
      if (words_add(&cmds[i], v[k])) st = -1;
    if (!v || st) st = u_oom();
    sweep_command_free(S, v);
  }
  snprintf(plan, sizeof plan, "%.4000s/plan", S->dir);
  snprintf(rdir, sizeof rdir, "%.4000s/report", S->dir);
  if (!st && (words_add(&merge, S->program) || words_add(&merge, "report") ||
              words_add(&merge, S->dir) || words_add(&merge, "--out-dir") ||
              words_add(&merge, rdir)))
    st = u_oom();
  if (!st && (st = u_mkdirs(plan)) == 0) {
    memset(&p, 0, sizeof p);
    p.dir = S->dir;
    p.program = S->program;
    p.stage = 1;
    p.n = (int)S->n;
    p.cmds = cmds;
    p.threads = c->threads > 0 ? c->threads : 1;
    p.jobs = c->jobs;
    p.merge = &merge;
    st = plan_write(&p, 1);
  }
  for (i = 0; i < S->n; ++i) words_free(&cmds[i]);
  free(cmds);
  words_free(&merge);
  return st;
}

/* One train command per point of the grid (every given run field an axis),
   each writing DIR/NAME.jsonl; printed, run --jobs at a time, or written
   as a Slurm plan (--slurm). */
static const char sweep_help[] =
    "usage: linattn sweep [GRID FLAGS] [-- TRAIN FLAGS]\n\n"
    "Expands a grid into one `linattn train` command per line, for xargs -P,\n"
    "GNU parallel or a Slurm job array (e.g. sed -n \"${SLURM_ARRAY_TASK_ID}p\").\n"
    "With --jobs K the commands run here, K at a time. With --slurm they are\n"
    "written into DIR/plan (stage-1.txt, a job array, a merge job that writes\n"
    "DIR/report; --jobs K: at most K at once; an earlier plan's files and\n"
    "runs, DIR/*.jsonl, removed first); run: sh DIR/plan/submit.sh.\n"
    "Flags after -- are passed to every run. Then: linattn report DIR\n";

static int cmd_sweep(const cli_config *c) {
  static sweep S;
  static char dir[4200], program[4200];
  long *totals = NULL, i;
  int *status = NULL, st = 0;
  memset(&S, 0, sizeof S);
  S.c = c;
  S.dir = c->out_dir ? c->out_dir : "sweep";
  S.program = c->argv0;
  /* with --jobs K here each run takes its share of the CPUs this job was
     given (la_cpu_count: the affinity mask, a cgroup quota,
     SLURM_CPUS_PER_TASK, OMP_NUM_THREADS), at least one; on Slurm, the
     CPUs of its task */
  S.threaded = c->threads > 0 || (c->jobs >= 1 && !c->slurm);
  snprintf(S.threads, sizeof S.threads, "%ld",
           c->threads > 0 ? c->threads
           : c->jobs >= 1 && la_cpu_count() / c->jobs > 1 ? la_cpu_count() / c->jobs
                                                          : 1L);
  if ((st = u_folder_ok("--out-dir", S.dir)) != 0) goto out;
  if (c->slurm) { /* the jobs start in other folders: absolute paths */
    if ((st = plan_abs_dir(S.dir, dir, sizeof dir)) != 0) goto out;
    plan_program(c->argv0, program, sizeof program);
    S.dir = dir;
    S.program = program;
  }
  if ((st = sweep_axes(&S)) != 0) goto out;
  totals = (long *)calloc((size_t)S.n + 1, sizeof(long));
  if (!totals) {
    st = u_oom();
    goto out;
  }
  for (i = 0; i < S.n && !st; ++i) st = sweep_check(&S, i, &totals[i]);
  if (st) goto out;
  if (c->slurm) {
    /* the folder holds this plan alone: an earlier plan's files and runs
       removed (the merge reports every run in DIR) */
    if (S.n > INT_MAX / 2) st = u_fail(EXIT_BAD_INPUT, "too many runs for one job array");
    else if ((st = plan_begin(dir, dir, sizeof dir)) == 0 &&
             (st = plan_clear(dir, "", ".jsonl")) == 0)
      st = sweep_plan(&S);
    goto out;
  }
  if (c->jobs < 1) { /* the commands, for xargs -P, parallel or a job array */
    char **v = sweep_command(&S, 0);
    int j;
    for (j = 0; v && v[j] && !st; ++j) st = u_one_line("a run's word", v[j]);
    sweep_command_free(&S, v);
    if (!v) st = u_oom();
    if (st) goto out;
    for (i = 0; i < S.n; ++i) {
      v = sweep_command(&S, i);
      for (j = 0; v && v[j]; ++j) {
        if (j) fputc(' ', stdout);
        if (u_print_word(stdout, v[j])) break;
      }
      if (!v || v[j]) {
        sweep_command_free(&S, v);
        st = u_oom();
        goto out;
      }
      fputc('\n', stdout);
      sweep_command_free(&S, v);
    }
    st = u_stdout_check();
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
    printf("%ld runs in %s; merge them with: ", S.n, U_Q(S.dir));
    (void)u_print_word(stdout, c->argv0);
    fputs(" report ", stdout);
    (void)u_print_word(stdout, S.dir);
    fputc('\n', stdout);
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
  const char *path; /* the input being read, for messages */
  char why[U_QCAP + 600]; /* why report_take refused a run ("" if it did not) */
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

/* A JSON value as a message shows it: a string quoted (u_quote), a
   number, or its type. */
static const char *report_value_text(const jv *v, char *buf, size_t cap) {
  if (v->type == JV_STR) return u_quote(v->str, buf, cap);
  if (v->type == JV_NUM) snprintf(buf, cap, "%.17g", v->num);
  else snprintf(buf, cap, "%s", v->type == JV_NULL ? "null" : v->type == JV_BOOL
                ? (v->num ? "true" : "false") : v->type == JV_ARR ? "an array" : "an object");
  return buf;
}

/* A run whose config line holds a run field the header's table refuses
   (cli_config_bad) is bad input, said in R->why: grouped by it, the run
   would be merged with others under a value no run can have. */
static int report_config_ok(report *R, const jv *cfg) {
  char allowed[400], val[U_QCAP];
  const la_run_field *f = cli_config_bad(cfg, allowed, sizeof allowed);
  if (!f) return 0;
  snprintf(R->why, sizeof R->why, "%s: a config line has %s %s; it takes %s",
           U_Q(R->path ? R->path : "the input"), f->key,
           report_value_text(jv_get(cfg, f->key), val, sizeof val), allowed);
  return EXIT_BAD_INPUT;
}

/* Takes one run read from the inputs into its configuration. */
static int report_take(void *ctx, runlog *r) {
  report *R = (report *)ctx;
  char key[4096];
  group *g;
  runlog *keep;
  int i, st;
  if ((st = report_config_ok(R, &r->config)) != 0) {
    runlog_free(r);
    return st;
  }
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

/* A field's value as a label says it: "" for an optimizer's field that the
   configuration's optimizer does not read (no "momentum 0" on Adam). */
static void label_value(const jv *cfg, const la_run_field *f, char *buf, size_t cap) {
  if (f->optim) {
    const jv *o = jv_get(cfg, "opt");
    const la_optim_entry *e = o && o->type == JV_STR ? la_optim_find(o->str) : NULL;
    if (e && !(e->fields & f->optim)) {
      buf[0] = 0;
      return;
    }
  }
  key_value(cfg, f->key, buf, cap);
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
    label_value(&R->g[0].config, f, v0, sizeof v0);
    for (g = 1; g < R->ng && !varies; ++g) {
      label_value(&R->g[g].config, f, v, sizeof v);
      varies = strcmp(v, v0) != 0;
    }
    if (!varies) { /* a zero is a setting not used: not worth a word */
      int w = strcmp(v0, "0") == 0 || !v0[0] ? 0
              : snprintf(common + cu, cap - cu, "%s%s %s", cu ? ", " : "", f->key, v0);
      if (w > 0 && (size_t)w < cap - cu) cu += (size_t)w;
      continue;
    }
    for (g = 0; g < R->ng; ++g) {
      size_t u = strlen(labels[g]);
      label_value(&R->g[g].config, f, v, sizeof v);
      if (v[0]) snprintf(labels[g] + u, 512 - u, "%s%s %s", u ? ", " : "", f->key, v);
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
    outs[i].flag = "--out-dir";
    outs[i].path = paths[i];
  }
  return REPORT_NOUT;
}

static const char report_help[] =
    "usage: linattn report FILES... [--out-dir DIR]\n\n"
    "Merges the JSON lines of train runs: runs that differ only in their seed\n"
    "form a configuration; report.md gets a table per configuration and\n"
    "loss.svg, rcond.svg, smoothness.svg curves with bands over the seeds.\n"
    "A line that is not a JSON object, or nests arrays and objects deeper\n"
    "than " JV_QUOTE(JV_MAX_DEPTH) " levels, is bad input (exit status 2).\n";

static int cmd_report(const cli_config *c) {
  const char *dir = c->out_dir ? c->out_dir : "linattn-report";
  report R;
  char err[U_QCAP + 200], paths[REPORT_NOUT][U_PATH_MAX + 64];
  u_path outs[REPORT_NOUT], in;
  int i, nout, st;
  u_out md;
  memset(&R, 0, sizeof R);
  if ((st = u_folder_ok("--out-dir", dir)) != 0) return st;
  u_own(dir);
  nout = report_outputs(dir, paths, outs);
  for (i = 0; i < c->npos && !st; ++i) {
    in.flag = "report";
    in.path = c->pos[i];
    st = u_no_alias(outs, nout, &in, 1);
  }
  for (i = 0; i < c->npos && !st; ++i) {
    err[0] = 0; /* stays empty where the error was said already */
    R.path = c->pos[i];
    if ((st = runs_read_path(c->pos[i], report_take, &R, err, sizeof err, 0)) != 0 &&
        (err[0] || R.why[0]))
      u_fail(st, "%s", err[0] ? err : R.why);
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
/* ------------------------------------------------------------ cells */
/* One value as a CSV cell (nothing for null and for arrays and objects,
   which are not cells). */
static void ex_cell(FILE *f, const jv *v) {
  char buf[32];
  if (!v) return;
  switch (v->type) {
  case JV_NUM:
    if (isfinite(v->num)) fputs(jw_shortest(buf, sizeof buf, v->num), f);
    return;
  case JV_BOOL: fputs(v->num != 0 ? "true" : "false", f); return;
  case JV_STR: csv_quoted(f, v->str); return;
  default: return;
  }
}

static int ex_scalar(const jv *v) {
  return v->type == JV_NUM || v->type == JV_BOOL || v->type == JV_STR ||
         v->type == JV_NULL;
}

/* ------------------------------------------------------------ key lists */
/* Names in the order they were first seen. */
typedef struct ex_keys {
  char **k;
  int n, cap;
} ex_keys;

static int ex_key_add(ex_keys *ks, const char *key) {
  int i;
  for (i = 0; i < ks->n; ++i)
    if (!strcmp(ks->k[i], key)) return 0;
  if (ks->n == ks->cap) {
    char **nk = (char **)realloc(ks->k, sizeof(char *) * (size_t)(ks->cap = ks->cap ? 2 * ks->cap : 32));
    if (!nk) return -1;
    ks->k = nk;
  }
  if (!(ks->k[ks->n] = (char *)malloc(strlen(key) + 1))) return -1;
  memcpy(ks->k[ks->n++], key, strlen(key) + 1);
  return 0;
}

static void ex_keys_free(ex_keys *ks) {
  int i;
  for (i = 0; i < ks->n; ++i) free(ks->k[i]);
  free(ks->k);
  memset(ks, 0, sizeof *ks);
}

/* ------------------------------------------------------------ the export */
/* A row of configs.csv: the CSV's name, the source, the type, then the
   members (the config line's or the object's scalars, then the summary's,
   renamed where they collide). */
typedef struct ex_row {
  char *run, *source, *type;
  jv obj; /* an object of scalars */
} ex_row;

typedef struct exporter {
  const char *dir;
  ex_keys names;   /* CSV names taken */
  ex_keys columns; /* of configs.csv */
  ex_row *rows;
  int nrows, cap;
  /* the train run being read */
  int open;
  jv config;
  jv *steps;
  int nsteps, stepcap;
  const char *path; /* its source */
  int in_file;      /* runs of the current file so far */
  long nruns, nmeas;
} exporter;

/* "DIR/base.csv", or base-2.csv, ... when taken; the name into out. */
static int ex_csv_name(exporter *E, const char *source, char *out, size_t cap) {
  const char *b = strrchr(source, '/');
  char base[256];
  size_t len;
  int k;
  b = b ? b + 1 : source;
  snprintf(base, sizeof base, "%s", b);
  len = strlen(base);
  if (len > 6 && !strcmp(base + len - 6, ".jsonl")) base[len - 6] = 0;
  else if (len > 5 && !strcmp(base + len - 5, ".json")) base[len - 5] = 0;
  if (!base[0] || !strcmp(base, "configs")) snprintf(base, sizeof base, "run");
  for (k = 1;; ++k) {
    int i, taken = 0;
    if (k == 1) snprintf(out, cap, "%s.csv", base);
    else snprintf(out, cap, "%s-%d.csv", base, k);
    for (i = 0; i < E->names.n && !taken; ++i) taken = !strcmp(E->names.k[i], out);
    if (!taken) return ex_key_add(&E->names, out);
  }
}

static char *ex_dup(const char *s) {
  char *d = (char *)malloc(strlen(s) + 1);
  if (d) memcpy(d, s, strlen(s) + 1);
  return d;
}

/* Moves member i of o (its key and value) to the end of dst, an object;
   renamed with `prefix` when dst has the key already. */
static int ex_take_member(jv *dst, jv *o, int i, const char *prefix) {
  jv *items;
  char **keys, *key = o->keys[i];
  if (jv_get(dst, key) && prefix) {
    char *nk = (char *)malloc(strlen(prefix) + strlen(key) + 1);
    if (!nk) return -1;
    snprintf(nk, strlen(prefix) + strlen(key) + 1, "%s%s", prefix, key);
    free(key);
    key = nk;
  }
  items = (jv *)realloc(dst->items, sizeof(jv) * (size_t)(dst->n + 1));
  if (!items) return -1;
  dst->items = items;
  keys = (char **)realloc(dst->keys, sizeof(char *) * (size_t)(dst->n + 1));
  if (!keys) return -1;
  dst->keys = keys;
  dst->items[dst->n] = o->items[i];
  dst->keys[dst->n++] = key;
  memset(&o->items[i], 0, sizeof o->items[i]);
  o->keys[i] = NULL;
  return 0;
}

/* A row of configs.csv from an object's scalars (and a summary's). */
static int ex_add_row(exporter *E, const char *run, const char *type, jv *obj,
                      jv *summary) {
  ex_row *r;
  int i;
  if (E->nrows == E->cap) {
    ex_row *nr = (ex_row *)realloc(E->rows, sizeof(ex_row) * (size_t)(E->cap = E->cap ? 2 * E->cap : 16));
    if (!nr) return -1;
    E->rows = nr;
  }
  r = &E->rows[E->nrows++];
  memset(r, 0, sizeof *r);
  r->obj.type = JV_OBJ;
  if (!(r->run = ex_dup(run)) || !(r->source = ex_dup(E->path)) ||
      !(r->type = ex_dup(type)))
    return -1;
  for (i = 0; i < obj->n; ++i)
    if (strcmp(obj->keys[i], "type") != 0 && ex_scalar(&obj->items[i]) &&
        (ex_key_add(&E->columns, obj->keys[i]) || ex_take_member(&r->obj, obj, i, NULL)))
      return -1;
  for (i = 0; summary && i < summary->n; ++i)
    if (strcmp(summary->keys[i], "type") != 0 && ex_scalar(&summary->items[i])) {
      if (ex_take_member(&r->obj, summary, i, "summary_") ||
          ex_key_add(&E->columns, r->obj.keys[r->obj.n - 1]))
        return -1;
    }
  return 0;
}

/* Writes DIR/name: a header of keys, then each object's cells. */
static int ex_write_table(exporter *E, const char *name, const ex_keys *ks,
                          const jv *objs, int n) {
  char path[4400];
  u_out o;
  int i, j, st;
  snprintf(path, sizeof path, "%s/%s", E->dir, name);
  if ((st = u_open(&o, path)) != 0) return st;
  for (j = 0; j < ks->n; ++j) {
    if (j) fputc(',', o.f);
    csv_quoted(o.f, ks->k[j]);
  }
  fputc('\n', o.f);
  for (i = 0; i < n; ++i) {
    for (j = 0; j < ks->n; ++j) {
      if (j) fputc(',', o.f);
      ex_cell(o.f, jv_get(&objs[i], ks->k[j]));
    }
    fputc('\n', o.f);
  }
  return u_commit(&o);
}

static void ex_steps_free(exporter *E) {
  int i;
  for (i = 0; i < E->nsteps; ++i) jv_free(&E->steps[i]);
  E->nsteps = 0;
  jv_free(&E->config);
  E->open = 0;
}

/* The run read so far: its CSV of steps and its row; summary may be NULL
   (a run cut short). */
static int ex_end_run(exporter *E, jv *summary) {
  ex_keys ks;
  char name[300];
  int i, j, st = 0;
  if (!E->open) return 0;
  memset(&ks, 0, sizeof ks);
  for (i = 0; i < E->nsteps && !st; ++i)
    for (j = 0; j < E->steps[i].n && !st; ++j)
      if (strcmp(E->steps[i].keys[j], "type") != 0 && ex_scalar(&E->steps[i].items[j]))
        st = ex_key_add(&ks, E->steps[i].keys[j]) ? u_oom() : 0;
  if (!st && ex_csv_name(E, E->path, name, sizeof name))
    st = u_oom();
  if (!st) st = ex_write_table(E, name, &ks, E->steps, E->nsteps);
  if (!st && ex_add_row(E, name, "train", &E->config, summary))
    st = u_oom();
  ex_keys_free(&ks);
  ex_steps_free(E);
  E->nruns++;
  return st;
}

/* A noise or curvature object: its arrays as columns, its row. */
static int ex_measurement(exporter *E, jv *obj, const char *type) {
  char name[300], path[4400];
  u_out o;
  int i, j, rows = 0, cols = 0, st;
  for (i = 0; i < obj->n; ++i)
    if (obj->items[i].type == JV_ARR) {
      cols++;
      if (obj->items[i].n > rows) rows = obj->items[i].n;
    }
  if (ex_csv_name(E, E->path, name, sizeof name)) return u_oom();
  snprintf(path, sizeof path, "%s/%s", E->dir, name);
  if ((st = u_open(&o, path)) != 0) return st;
  for (i = 0, j = 0; i < obj->n; ++i)
    if (obj->items[i].type == JV_ARR) {
      if (j++) fputc(',', o.f);
      csv_quoted(o.f, obj->keys[i]);
    }
  fputc('\n', o.f);
  for (j = 0; j < rows && cols; ++j) {
    int c = 0;
    for (i = 0; i < obj->n; ++i) {
      const jv *a = &obj->items[i];
      if (a->type != JV_ARR) continue;
      if (c++) fputc(',', o.f);
      if (j < a->n && ex_scalar(&a->items[j])) ex_cell(o.f, &a->items[j]);
    }
    fputc('\n', o.f);
  }
  if ((st = u_commit(&o)) != 0) return st;
  E->nmeas++;
  return ex_add_row(E, name, type, obj, NULL) ? u_oom() : 0;
}

/* One line of a file. */
static int ex_line(exporter *E, jv *v, long lineno) {
  const char *type = jv_str(v, "type");
  if (!type) return 0;
  if (!strcmp(type, "config")) {
    int st = ex_end_run(E, NULL);
    if (st) return st;
    E->config = *v;
    memset(v, 0, sizeof *v);
    E->open = 1;
    return 0;
  }
  if (!strcmp(type, "noise") || !strcmp(type, "curvature")) {
    int st = ex_end_run(E, NULL);
    return st ? st : ex_measurement(E, v, type);
  }
  if (strcmp(type, "step") != 0 && strcmp(type, "summary") != 0) return 0;
  if (!E->open)
    return u_fail(EXIT_BAD_INPUT, "%s line %ld: a %s line before any config line",
                  U_Q(E->path), lineno, U_Q(type));
  if (!strcmp(type, "summary")) return ex_end_run(E, v);
  if (E->nsteps == E->stepcap) {
    jv *ns = (jv *)realloc(E->steps, sizeof(jv) * (size_t)(E->stepcap = E->stepcap ? 2 * E->stepcap : 256));
    if (!ns) return u_oom();
    E->steps = ns;
  }
  E->steps[E->nsteps++] = *v;
  memset(v, 0, sizeof *v);
  return 0;
}

/* Every line of one file (runs_walk's callback). */
static int ex_file(void *ctx, const char *path, char *err, size_t cap) {
  exporter *E = (exporter *)ctx;
  lreader lr;
  size_t len;
  int got, st = 0;
  (void)err;
  (void)cap;
  memset(&lr, 0, sizeof lr);
  E->path = path;
  if (!(lr.f = fopen(path, "r"))) {
    int e = errno;
    return u_fail(u_exit_of_errno(e, EXIT_BAD_INPUT), "cannot read %s: %s", U_Q(path),
                  strerror(e));
  }
  while (!st && (got = lr_next(&lr, &len)) != 0) {
    jv v;
    const char *why = NULL;
    char *p = lr.buf;
    if (got < 0) {
      st = u_fail(got == -2 ? EXIT_NOMEM : got == -3 ? EXIT_IO : EXIT_BAD_INPUT, "%s line %ld: %s",
                  U_Q(path), lr.lineno + 1,
                  got == -1 ? "a line longer than 64 MB (not JSON lines)"
                  : got == -2 ? "out of memory" : "cannot read");
      break;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
    if (!*p) continue;
    if (strlen(lr.buf) != len || jv_parse_max(lr.buf, &v, &why, RUNS_MAX_MEMBERS) ||
        v.type != JV_OBJ) {
      if (!why && strlen(lr.buf) == len) jv_free(&v);
      st = u_fail(why && !strcmp(why, "out of memory") ? EXIT_NOMEM : EXIT_BAD_INPUT,
                  "%s line %ld: not a JSON object (%s)", U_Q(path), lr.lineno,
                  why ? why : strlen(lr.buf) != len ? "a NUL byte" : "another value");
      break;
    }
    st = ex_line(E, &v, lr.lineno);
    jv_free(&v);
  }
  if (!st) st = ex_end_run(E, NULL); /* a run cut short: what it wrote */
  ex_steps_free(E);
  free(lr.buf);
  (void)fclose(lr.f); /* read only: nothing to lose */
  return st;
}

/* configs.csv: run, source, type, then every column seen. */
static int ex_configs(exporter *E) {
  ex_keys ks;
  jv *objs;
  int i, j, st;
  memset(&ks, 0, sizeof ks);
  objs = (jv *)calloc((size_t)E->nrows + 1, sizeof(jv));
  if (!objs || ex_key_add(&ks, "run") || ex_key_add(&ks, "source") ||
      ex_key_add(&ks, "type")) {
    free(objs);
    ex_keys_free(&ks);
    return u_oom();
  }
  for (j = 0; j < E->columns.n; ++j)
    if (ex_key_add(&ks, E->columns.k[j])) {
      free(objs);
      ex_keys_free(&ks);
      return u_oom();
    }
  /* the three names as members of each row, for the one writer */
  for (i = 0; i < E->nrows; ++i) {
    jv *o = &objs[i];
    ex_row *r = &E->rows[i];
    static const char *const names[3] = {"run", "source", "type"};
    const char *vals[3];
    int k;
    vals[0] = r->run;
    vals[1] = r->source;
    vals[2] = r->type;
    *o = r->obj;
    for (k = 0; k < 3; ++k) {
      jv *it = (jv *)realloc(o->items, sizeof(jv) * (size_t)(o->n + 1));
      char **kk;
      if (!it) break;
      o->items = it;
      if (!(kk = (char **)realloc(o->keys, sizeof(char *) * (size_t)(o->n + 1)))) break;
      o->keys = kk;
      memset(&o->items[o->n], 0, sizeof(jv));
      o->items[o->n].type = JV_STR;
      o->items[o->n].str = ex_dup(vals[k]);
      o->keys[o->n] = ex_dup(names[k]);
      o->n++;
      if (!o->items[o->n - 1].str || !o->keys[o->n - 1]) break;
    }
    r->obj = *o;
    if (k < 3) {
      free(objs);
      ex_keys_free(&ks);
      return u_oom();
    }
  }
  st = ex_write_table(E, "configs.csv", &ks, objs, E->nrows);
  free(objs); /* the members are the rows', freed with them */
  ex_keys_free(&ks);
  return st;
}

static void ex_free(exporter *E) {
  int i;
  for (i = 0; i < E->nrows; ++i) {
    free(E->rows[i].run);
    free(E->rows[i].source);
    free(E->rows[i].type);
    jv_free(&E->rows[i].obj);
  }
  free(E->rows);
  ex_steps_free(E);
  free(E->steps);
  ex_keys_free(&E->names);
  ex_keys_free(&E->columns);
}

/* The export of paths (files or folders) into dir; an exit status. */
static int export_runs(const char *const *paths, int npaths, const char *dir) {
  exporter E;
  char err[600];
  int i, st = 0;
  memset(&E, 0, sizeof E);
  E.dir = dir;
  err[0] = 0;
  u_own(dir);
  if ((st = u_mkdirs(dir)) != 0) return st;
  for (i = 0; i < npaths && !st; ++i) {
    st = runs_walk(paths[i], ex_file, &E, err, sizeof err, 0);
    if (st && err[0]) u_fail(st, "%s", err); /* the walk's own failures */
  }
  if (!st && E.nrows == 0)
    st = u_fail(EXIT_BAD_INPUT, "no runs or measurements in the inputs (JSON lines "
                                "of train, noise or curvature)");
  if (!st) st = ex_configs(&E);
  if (!st)
    printf("%ld runs, %ld measurements: %s/configs.csv and one CSV each\n", E.nruns,
           E.nmeas, dir);
  ex_free(&E);
  return st;
}

static const char export_help[] =
    "usage: linattn export FILES... [--out-dir DIR]\n\n"
    "The numbers behind every report, as CSV: each train run's step lines as\n"
    "RUN.csv (a column per key), each noise or curvature object's arrays as a\n"
    "CSV of columns, and configs.csv with a row per run or measurement (its\n"
    "settings, its summary, and `run`, the name of its CSV). FILES are\n"
    "JSON-lines files or folders of them. In pandas:\n"
    "  cfg = pd.read_csv(\"DIR/configs.csv\")\n"
    "  steps = pd.concat(pd.read_csv(f\"DIR/{r}\").assign(run=r) for r in cfg.run)\n";

static int cmd_export(const cli_config *c) {
  return export_runs(c->pos, c->npos, c->out_dir ? c->out_dir : "linattn-export");
}

#endif /* LINATTN_SWEEP_REPORT_EXPORT_H */
