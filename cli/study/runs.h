/* cli/study/runs.h - reading the JSON lines of training runs back, merging
   the runs of one configuration over their seeds (mean, spread, min, max at
   each step), and drawing such curves. Used by `reproduce` and `report`.

   Files are read as streams of runs: a config line starts a run, its step
   lines follow, a summary line ends it, so a file may hold one run or many
   (`cat *.jsonl > all.jsonl`). Lines are read with a bound on their length,
   so memory follows the numbers kept, never the size of a line or a file;
   each run's summary numbers (the best evaluation loss, the last robust
   condition number) are taken when it ends, so that a caller may drop its
   curves (runlog_drop_curves) and keep only those. */
#ifndef LINATTN_RUNS_H
#define LINATTN_RUNS_H

#include "../io/svg.h"
#include "../io/json.h"
#include "../io/sys.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>

/* The per-step quantities a run's lines may carry: the step record's
   losses and norms, then every single-valued row of the header's
   measurement table (LA_MEASURE_KEYS), read under its key. */
#define RUNS_MEASURED(id) (F_MEASURE + LA_MEASURE_##id)
enum {
  F_EVAL, F_LOSS, F_GNORM,
  F_MEASURE, /* + LA_MEASURE_*: the measurement table's rows */
  NFIELDS = F_MEASURE + LA_MEASURE_NKEYS,
  F_SMOOTH = RUNS_MEASURED(SMOOTHNESS),
  F_SGNORM = RUNS_MEASURED(SMOOTH_GRAD_NORM),
  F_RCOND = RUNS_MEASURED(RCOND_DIAG),
  F_RSPEC = RUNS_MEASURED(RCOND_SPECTRUM),
  F_LMAX = RUNS_MEASURED(LAMBDA_MAX),
  F_RMIN = RUNS_MEASURED(RCOND_DIAG_MIN), /* R's range over the batches */
  F_RMAX = RUNS_MEASURED(RCOND_DIAG_MAX)
};
/* Field k's key in a step line; NULL for a list (read by none). */
static const char *field_key(int k) {
  static const char *const step_key[F_MEASURE] = {"eval_loss", "loss", "grad_norm"};
  const la_measure_key *m;
  if (k < F_MEASURE) return step_key[k];
  m = la_measure_key_at(k - F_MEASURE);
  return m->indexed ? NULL : m->key;
}

typedef struct series {
  int n, cap;
  double *x, *y;
} series;

/* One run: its config line (kept by whoever takes the run), its curves and
   its summary. */
typedef struct runlog {
  jv config;
  int has_summary;
  char status[16];
  double final_eval, steps_per_second, seconds;
  double best_eval, last_rcond; /* from its curves: NaN when they are empty */
  long steps;
  /* a diverged run: where and why (train.h's diverge_cause) */
  long diverged_step;
  char cause[16];
  int bad_prompts, batch;
  double prompt_norm, norm_median;
  /* its skipped steps (skip_overflow; train's "skip" lines): how many, the
     first RUNLOG_SKIPS steps, the largest norm of a prompt at fault and
     the median norm of that prompt's batch */
  int skips;
  long skip_step[4];
  double skip_norm, skip_median;
  series f[NFIELDS];
} runlog;
#define RUNLOG_SKIPS 4

static int series_add(series *s, double x, double y) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    double *nx, *ny;
    if (s->cap > INT_MAX / 4) return -1;
    nx = (double *)realloc(s->x, sizeof(double) * (size_t)cap);
    if (!nx) return -1;
    s->x = nx;
    ny = (double *)realloc(s->y, sizeof(double) * (size_t)cap);
    if (!ny) return -1;
    s->y = ny;
    s->cap = cap;
  }
  s->x[s->n] = x;
  s->y[s->n++] = y;
  return 0;
}

static void runlog_free(runlog *r) {
  int i;
  jv_free(&r->config);
  for (i = 0; i < NFIELDS; ++i) {
    free(r->f[i].x);
    free(r->f[i].y);
  }
  memset(r, 0, sizeof *r);
}

/* Frees a run's curves, keeping its summary numbers. */
static void runlog_drop_curves(runlog *r) {
  int i;
  for (i = 0; i < NFIELDS; ++i) {
    free(r->f[i].x);
    free(r->f[i].y);
    memset(&r->f[i], 0, sizeof r->f[i]);
  }
}

/* A member that must be a whole number of steps: -1 when it is missing,
   null, not finite, fractional or beyond 9e15 (jv_long: never an undefined
   conversion). */
static long runs_long(const jv *o, const char *key) {
  return jv_long(o, key, 0, 9e15, -1);
}

/* ------------------------------------------------------------ lines */
/* The longest line read (a curvature object with a dense spectrum is a few
   hundred kilobytes). */
#define RUNS_MAX_LINE ((size_t)64 << 20)
/* The most members (array elements and object members) of one line: a
   dense spectrum has one per parameter, and a model whose Hessian fits in
   memory has far fewer than 2^20; the tree of a line then stays within
   some 50 MB whatever the line holds. */
#define RUNS_MAX_MEMBERS (1L << 20)

typedef struct lreader {
  FILE *f;
  char *buf;
  size_t cap;
  long lineno;
} lreader;

/* The next line without its newline (NUL bytes kept: the caller sees them
   by its length): 1, 0 at the end, -1 a line beyond RUNS_MAX_LINE, -2 out
   of memory, -3 a read error. */
static int lr_next(lreader *r, size_t *len) {
  size_t n = 0;
  int ch;
  if (!r->buf) {
    r->cap = 4096;
    if (!(r->buf = (char *)calloc(r->cap, 1))) return -2;
  }
  while ((ch = getc_unlocked(r->f)) != EOF && ch != '\n') {
    if (n + 1 == r->cap) {
      char *nb;
      if (r->cap >= RUNS_MAX_LINE) return -1;
      if (!(nb = (char *)realloc(r->buf, r->cap * 2))) return -2;
      r->buf = nb;
      r->cap *= 2;
    }
    r->buf[n++] = (char)ch;
  }
  if (ch == EOF && ferror(r->f)) return -3;
  if (ch == EOF && n == 0) return 0;
  r->buf[n] = 0;
  r->lineno++;
  *len = n;
  return 1;
}

/* ------------------------------------------------------------ runs */
/* Receives each run read; it owns the run afterwards (runlog_free). A
   nonzero return stops the reading with that status. */
typedef int (*run_fn)(void *ctx, runlog *r);

typedef struct runs_file {
  const char *path;
  runlog cur;
  int open;
  run_fn fn;
  void *ctx;
  char *err;
  size_t cap;
} runs_file;

static int runs_emit(runs_file *s) {
  const series *ev = &s->cur.f[F_EVAL], *rc = &s->cur.f[F_RCOND];
  int st, j;
  if (!s->open) return 0;
  s->open = 0;
  s->cur.best_eval = NAN;
  for (j = 0; j < ev->n; ++j)
    if (!(ev->y[j] >= s->cur.best_eval)) s->cur.best_eval = ev->y[j];
  s->cur.last_rcond = rc->n ? rc->y[rc->n - 1] : NAN;
  st = s->fn(s->ctx, &s->cur);
  memset(&s->cur, 0, sizeof s->cur);
  return st;
}

static int runs_line(runs_file *s, jv *v, long lineno) {
  const char *type = jv_str(v, "type");
  int k;
  if (type && !strcmp(type, "config")) {
    int st = runs_emit(s);
    if (st) return st;
    memset(&s->cur, 0, sizeof s->cur);
    s->cur.final_eval = s->cur.steps_per_second = s->cur.seconds = NAN;
    s->cur.prompt_norm = s->cur.norm_median = NAN;
    s->cur.skip_norm = s->cur.skip_median = NAN;
    s->cur.steps = -1;
    s->cur.config = *v;
    memset(v, 0, sizeof *v);
    s->open = 1;
    return 0;
  }
  if (!type || (strcmp(type, "step") != 0 && strcmp(type, "summary") != 0 &&
                strcmp(type, "skip") != 0))
    return 0;
  if (!s->open) {
    snprintf(s->err, s->cap, "%s line %ld: a %s line before any config line",
             U_Q(s->path), lineno, type);
    return EXIT_BAD_INPUT;
  }
  if (!strcmp(type, "step")) {
    double step = jv_num(v, "step");
    for (k = 0; k < NFIELDS && isfinite(step); ++k) {
      const char *key = field_key(k);
      double y = key ? jv_num(v, key) : NAN;
      if (isfinite(y) && series_add(&s->cur.f[k], step, y)) {
        snprintf(s->err, s->cap, "out of memory");
        return EXIT_NOMEM;
      }
    }
    return 0;
  }
  if (!strcmp(type, "skip")) {
    double norm = jv_num(v, "skip_prompt_norm");
    if (s->cur.skips < RUNLOG_SKIPS) s->cur.skip_step[s->cur.skips] = runs_long(v, "step");
    s->cur.skips++;
    if (!(s->cur.skip_norm >= norm)) {
      s->cur.skip_norm = norm;
      s->cur.skip_median = jv_num(v, "prompt_norm_median");
    }
    return 0;
  }
  {
    const char *st = jv_str(v, "status");
    s->cur.has_summary = 1;
    snprintf(s->cur.status, sizeof s->cur.status, "%s", st ? st : "?");
    s->cur.final_eval = jv_num(v, "final_eval_loss");
    s->cur.steps_per_second = jv_num(v, "steps_per_second");
    s->cur.seconds = jv_num(v, "seconds");
    s->cur.steps = runs_long(v, "steps");
    s->cur.diverged_step = runs_long(v, "diverged_step");
    st = jv_str(v, "diverged_cause");
    snprintf(s->cur.cause, sizeof s->cur.cause, "%s", st ? st : "");
    s->cur.bad_prompts = (int)runs_long(v, "diverged_prompts");
    s->cur.batch = (int)runs_long(v, "diverged_batch");
    s->cur.prompt_norm = jv_num(v, "diverged_prompt_norm");
    s->cur.norm_median = jv_num(v, "prompt_norm_median");
  }
  return runs_emit(s);
}

/* Every run of a stream, in order (name: the file's, for messages); a line
   that does not parse is an error naming the file and line
   (EXIT_BAD_INPUT). The exit status; err holds its message, or is left as
   it was where fn failed (fn says its own). */
static int runs_read_stream(FILE *f, const char *name, run_fn fn, void *ctx,
                            char *err, size_t cap) {
  runs_file s;
  lreader lr;
  size_t len;
  int got, st = 0;
  memset(&s, 0, sizeof s);
  memset(&lr, 0, sizeof lr);
  s.path = name;
  s.fn = fn;
  s.ctx = ctx;
  s.err = err;
  s.cap = cap;
  lr.f = f;
  while (!st && (got = lr_next(&lr, &len)) != 0) {
    jv v;
    const char *why = NULL;
    char *p = lr.buf;
    int nul;
    if (got < 0) {
      snprintf(err, cap, "%s line %ld: %s", U_Q(name), lr.lineno + 1,
               got == -1 ? "a line longer than 64 MB (not JSON lines)"
               : got == -2 ? "out of memory" : "cannot read");
      st = got == -2 ? EXIT_NOMEM : got == -3 ? EXIT_IO : EXIT_BAD_INPUT;
      break;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
    if (!*p && (size_t)(p - lr.buf) == len) continue;
    nul = strlen(lr.buf) != len;
    if (nul || jv_parse_max(lr.buf, &v, &why, RUNS_MAX_MEMBERS) || v.type != JV_OBJ) {
      snprintf(err, cap, "%s line %ld: not a JSON object (%s)", U_Q(name), lr.lineno,
               nul ? "a NUL byte" : why ? why : "another value");
      if (!nul && !why) jv_free(&v);
      st = why && !strcmp(why, "out of memory") ? EXIT_NOMEM : EXIT_BAD_INPUT;
      break;
    }
    st = runs_line(&s, &v, lr.lineno);
    jv_free(&v);
  }
  if (!st) st = runs_emit(&s); /* a run cut short: what it wrote */
  if (s.open) runlog_free(&s.cur);
  free(lr.buf);
  return st;
}

/* runs_read_stream on a file. */
static int runs_read_file(const char *path, run_fn fn, void *ctx, char *err,
                          size_t cap) {
  FILE *f = fopen(path, "r");
  int st;
  if (!f) {
    int e = errno;
    snprintf(err, cap, "cannot read %s: %s", U_Q(path), strerror(e));
    return u_exit_of_errno(e, EXIT_BAD_INPUT);
  }
  st = runs_read_stream(f, path, fn, ctx, err, cap);
  (void)fclose(f); /* read only: nothing to lose */
  return st;
}

static int runs_cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Receives each file a walk finds; a nonzero return stops the walk. */
typedef int (*file_fn)(void *ctx, const char *path, char *err, size_t cap);

/* Each file of a path: the file itself, or a folder's *.jsonl files and
   its subfolders', in name order (links to folders are not followed, so
   no loop). */
/* NOLINTNEXTLINE(misc-no-recursion): one level a folder, at most 32 */
static int runs_walk(const char *path, file_fn fn, void *ctx, char *err,
                     size_t cap, int depth) {
  struct stat st;
  DIR *d;
  struct dirent *e;
  char **names = NULL;
  size_t n = 0, room = 0, i;
  int rc = 0;
  if (stat(path, &st) != 0) {
    snprintf(err, cap, "cannot read %s: %s", U_Q(path), strerror(errno));
    return EXIT_BAD_INPUT;
  }
  if (!S_ISDIR(st.st_mode)) return fn(ctx, path, err, cap);
  if (depth > 32) return 0;
  if (!(d = opendir(path))) {
    snprintf(err, cap, "cannot read folder %s: %s", U_Q(path), strerror(errno));
    return EXIT_BAD_INPUT;
  }
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    char *full;
    struct stat ls;
    if (e->d_name[0] == '.') continue;
    full = (char *)malloc(strlen(path) + len + 2);
    if (!full) {
      rc = EXIT_NOMEM;
      break;
    }
    (void)snprintf(full, strlen(path) + len + 2, "%s/%s", path, e->d_name);
    if (lstat(full, &ls) != 0 ||
        !(S_ISDIR(ls.st_mode) ||
          (S_ISREG(ls.st_mode) && len > 6 && !strcmp(e->d_name + len - 6, ".jsonl")))) {
      free(full);
      continue;
    }
    if (n == room) {
      size_t more = room ? 2 * room : 64;
      char **nn = (char **)realloc(names, sizeof(char *) * more);
      if (!nn) {
        free(full);
        rc = EXIT_NOMEM;
        break;
      }
      names = nn;
      room = more;
    }
    names[n++] = full;
  }
  closedir(d);
  if (rc) snprintf(err, cap, "out of memory");
  if (!rc && n) qsort(names, n, sizeof *names, runs_cmp_names);
  for (i = 0; i < n; ++i) {
    if (!rc) rc = runs_walk(names[i], fn, ctx, err, cap, depth + 1);
    free(names[i]);
  }
  free(names);
  return rc;
}

typedef struct runs_reading {
  run_fn fn;
  void *ctx;
} runs_reading;
static int runs_read_one(void *ctx, const char *path, char *err, size_t cap) {
  const runs_reading *rd = (const runs_reading *)ctx;
  return runs_read_file(path, rd->fn, rd->ctx, err, cap);
}
/* Every run of a file, or of the files of a folder (runs_walk). */
static int runs_read_path(const char *path, run_fn fn, void *ctx, char *err,
                          size_t cap, int depth) {
  runs_reading rd;
  rd.fn = fn;
  rd.ctx = ctx;
  return runs_walk(path, runs_read_one, &rd, err, cap, depth);
}

/* The one run of a file written by train (reproduce reads its own). */
static int runs_take_one(void *ctx, runlog *r) {
  runlog *dst = (runlog *)ctx;
  if (dst->config.type == JV_OBJ) { /* a second run: keep the first */
    runlog_free(r);
    return 0;
  }
  *dst = *r;
  return 0;
}
/* 0 with the run in *r; else the status, err saying why, and nothing
   held in *r (a run taken before a later line failed is freed). */
static int runlog_load(const char *path, runlog *r, char *err, size_t cap) {
  int st;
  memset(r, 0, sizeof *r);
  st = runs_read_file(path, runs_take_one, r, err, cap);
  if (!st && r->config.type != JV_OBJ) {
    snprintf(err, cap, "%s: no config line (not the output of train)", U_Q(path));
    st = EXIT_BAD_INPUT;
  }
  if (st) runlog_free(r);
  return st;
}

/* The value of a series at step x (NaN if absent); series are sorted. */
static double series_at(const series *s, double x) {
  int lo = 0, hi = s->n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (s->x[mid] == x) return s->y[mid];
    if (s->x[mid] < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return NAN;
}

/* ------------------------------------------------------------ csv */
/* A CSV field, quoted (quotes doubled) where `quote`. */
static void csv_field(FILE *f, const char *s, int quote) {
  if (!quote) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; ++s) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}
/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_text(FILE *f, const char *s) {
  csv_field(f, s, strpbrk(s, ",\"\n\r") != NULL);
}
/* A number for CSV: empty when NaN, inf and -inf spelled out. */
static const char *csv_num(char buf[32], double v) {
  if (isnan(v)) buf[0] = 0;
  else if (isinf(v)) snprintf(buf, 32, v > 0 ? "inf" : "-inf");
  else snprintf(buf, 32, "%.10g", v);
  return buf;
}

/* A string as export's CSV cell: quoted as csv_text quotes, and also when
   it starts or ends with a space. */
static void csv_quoted(FILE *f, const char *s) {
  size_t len = strlen(s);
  csv_field(f, s, s[strcspn(s, ",\"\r\n")] || (len && (s[0] == ' ' || s[len - 1] == ' ')));
}

/* A CSV of one column: its name, then a number a line (a non-finite one
   as an empty cell). */
static int csv_write_column(FILE *f, const char *name, const double *v, long n) {
  char buf[32];
  long i;
  csv_quoted(f, name);
  fputc('\n', f);
  for (i = 0; i < n; ++i)
    fprintf(f, "%s\n", isfinite(v[i]) ? jw_shortest(buf, sizeof buf, v[i]) : "");
  return ferror(f) ? -1 : 0;
}

static int runs_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------ statistics */
/* Quantile q of the sorted values s[0..n-1]: Hyndman and Fan's type 7
   (R's and NumPy's default), the two order statistics around it joined
   linearly, or geometrically when both are positive (losses, ratios and
   curvatures are read on log axes: the median of two runs is then their
   geometric mean). An infinity among them is kept where it falls. NaN
   when n is 0. */
static double stat_quantile(const double *s, int n, double q) {
  double h, a, b;
  int i;
  if (n < 1) return NAN;
  h = (n - 1) * q;
  i = (int)floor(h);
  if (i >= n - 1) return s[n - 1];
  a = s[i];
  b = s[i + 1];
  if (a == b || h == i) return a;
  if (a > 0 && isfinite(b)) return exp(log(a) + (h - i) * (log(b) - log(a)));
  return a + (h - i) * (b - a);
}

/* Summary of the values of some seeds: those that are not NaN count (an
   infinity is a value: a ratio to a run that diverged); mean and sd are
   over the finite ones alone. */
typedef struct stats {
  int n;                 /* values that are not NaN */
  double mean, sd;       /* of the finite values (sd: divisor n - 1) */
  double med, q1, q3;    /* median and quartiles */
  double min, max;
} stats;

static void stats_sort(double *v, int n) { /* insertion: n is a few seeds */
  int i, j;
  for (i = 1; i < n; ++i) {
    double t = v[i];
    for (j = i; j > 0 && v[j - 1] > t; --j) v[j] = v[j - 1];
    v[j] = t;
  }
}

/* s from v[0..n-1]; tmp holds n doubles (the sorted copy). Mean and
   variance by Welford's updates on the finite values scaled by a power of
   two to at most 1 in magnitude (exact), then scaled back: no difference
   or square overflows ({1.7e308, 2e-308}: sd 1.2e308, not inf) and none
   of the spread underflows ({1e-300, 1e300}: sd 7.07e299). */
static void stats_into(const double *v, int n, double *tmp, stats *s) {
  double mean = 0, m2 = 0, big = 0;
  int i, m = 0, fin = 0, ex = 0;
  for (i = 0; i < n; ++i)
    if (isfinite(v[i]) && fabs(v[i]) > big) big = fabs(v[i]);
  if (big > 0) (void)frexp(big, &ex); /* big = f 2^ex, f in [0.5, 1) */
  for (i = 0; i < n; ++i) {
    if (isnan(v[i])) continue;
    tmp[m++] = v[i];
    if (isfinite(v[i])) {
      double x = ldexp(v[i], -ex), d = x - mean;
      mean += d / ++fin;
      m2 += d * (x - mean);
    }
  }
  stats_sort(tmp, m);
  s->n = m;
  s->mean = fin ? ldexp(mean, ex) : NAN;
  s->sd = fin > 1 ? ldexp(sqrt(m2 / (fin - 1)), ex) : fin ? 0 : NAN;
  s->med = stat_quantile(tmp, m, 0.5);
  s->q1 = stat_quantile(tmp, m, 0.25);
  s->q3 = stat_quantile(tmp, m, 0.75);
  s->min = m ? tmp[0] : NAN;
  s->max = m ? tmp[m - 1] : NAN;
}

/* The same with its own scratch; all NaN when memory runs out. */
static void stats_of(const double *v, int n, stats *s) {
  double *tmp = (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!tmp) {
    memset(s, 0, sizeof *s);
    s->mean = s->sd = s->med = s->q1 = s->q3 = s->min = s->max = NAN;
    return;
  }
  stats_into(v, n, tmp, s);
  free(tmp);
}

/* Mean and sample standard deviation of the finite values. */
static void mean_sd(const double *v, int n, double *mean, double *sd) {
  stats s;
  stats_of(v, n, &s);
  *mean = s.mean;
  *sd = s.sd;
}

/* A number for a table or a label: `digits` significant digits, an
   exponent where one is due (never hundreds of digits), "n/a" for NaN. */
static const char *fmt_num(char *buf, size_t cap, double v, int digits) {
  if (isnan(v)) snprintf(buf, cap, "n/a");
  else if (isinf(v)) snprintf(buf, cap, v > 0 ? "inf" : "-inf");
  else snprintf(buf, cap, "%.*g", digits, v);
  return buf;
}

/* "mean ± sd" of the finite values, or "n/a". */
static void fmt_msd(char *buf, size_t cap, const double *v, int n) {
  stats s;
  char a[32], b[32];
  stats_of(v, n, &s);
  if (isfinite(s.mean))
    snprintf(buf, cap, "%s \xc2\xb1 %s", fmt_num(a, sizeof a, s.mean, 3),
             fmt_num(b, sizeof b, s.sd, 2));
  else snprintf(buf, cap, "n/a");
}

/* "median [q1, q3]", or "n/a". */
static void fmt_miqr(char *buf, size_t cap, const stats *s) {
  char a[32], b[32], c[32];
  if (s->n < 1) {
    snprintf(buf, cap, "n/a");
    return;
  }
  snprintf(buf, cap, "%s [%s, %s]", fmt_num(a, sizeof a, s->med, 3),
           fmt_num(b, sizeof b, s->q1, 3), fmt_num(c, sizeof c, s->q3, 3));
}

/* A claim about each seed, "v_s > threshold", and its verdict by the rule
   the reports state: a one-sided sign test at VERDICT_LEVEL over the
   seeds that have a value. It holds when seeing at least `yes` of the m
   seeds above the threshold would have a chance of at most VERDICT_LEVEL
   were each seed a fair coin; it does not hold when the same is true of
   `no`; it is undecided otherwise (four seeds never decide: 1/16 > 5%; six
   decide when all agree: 1/64). A
   seed without a value (NaN: not measured, or both runs diverged) counts
   as neither. */
#define VERDICT_LEVEL 0.05
enum { V_HOLDS, V_FAILS, V_UNDECIDED, V_NONE };
typedef struct verdict {
  int yes, no, seeds, v;
  double median;
  double p_yes, p_no; /* the sign test's p-values, each side */
} verdict;

/* P(X >= k) for X ~ Binomial(m, 1/2). */
static double sign_tail(int k, int m) {
  double c = 1, p = 0; /* C(m, j) */
  int j;
  for (j = 0; j <= m; ++j) {
    if (j >= k) p += c;
    c = c * (m - j) / (j + 1);
  }
  return p * pow(0.5, m);
}

static void verdict_of(const double *v, int k, double threshold, verdict *out) {
  stats s;
  int i, m;
  memset(out, 0, sizeof *out);
  out->seeds = k;
  for (i = 0; i < k; ++i) {
    if (isnan(v[i])) continue;
    if (v[i] > threshold) out->yes++;
    else out->no++;
  }
  stats_of(v, k, &s);
  out->median = s.med;
  m = out->yes + out->no;
  out->p_yes = sign_tail(out->yes, m);
  out->p_no = sign_tail(out->no, m);
  if (m == 0) out->v = V_NONE;
  else if (out->p_yes <= VERDICT_LEVEL) out->v = V_HOLDS;
  else if (out->p_no <= VERDICT_LEVEL) out->v = V_FAILS;
  else out->v = V_UNDECIDED;
}

static const char *verdict_word(int v) {
  return v == V_HOLDS ? "holds" : v == V_FAILS ? "does not hold"
         : v == V_UNDECIDED ? "undecided" : "not measured";
}

/* The fewest of m seeds on one side that decide (m + 1: none can). */
static int verdict_need(int m) {
  int k = 0;
  while (k <= m && sign_tail(k, m) > VERDICT_LEVEL) ++k;
  return k;
}

/* The fewest further seeds, all on the side of `a` of m, that would decide
   it (a sign test at VERDICT_LEVEL over a + e of m + e). */
static int verdict_more(int a, int m) {
  int e = 0;
  while (sign_tail(a + e, m + e) > VERDICT_LEVEL) ++e;
  return e;
}

/* The verdict as a report says it: an undecided one with the side its
   seeds lean to, how many of them would decide it and how many further
   seeds agreeing would, e.g. "undecided, leans to holds: 6 of 6 would
   decide, or 3 more seeds agreeing"; "undecided, no lean". */
static const char *fmt_verdict(char *buf, size_t cap, const verdict *v) {
  int m = v->yes + v->no, a = v->yes > v->no ? v->yes : v->no, need;
  const char *side = v->yes > v->no ? "holds" : "does not hold";
  if (v->v != V_UNDECIDED) snprintf(buf, cap, "%s", verdict_word(v->v));
  else if (v->yes == v->no) snprintf(buf, cap, "undecided, no lean");
  else if ((need = verdict_need(m)) <= m)
    snprintf(buf, cap, "undecided, leans to %s: %d of %d would decide, or %d "
             "more seeds agreeing", side, need, m, verdict_more(a, m));
  else
    snprintf(buf, cap, "undecided, leans to %s: %d seeds never decide, %d more "
             "agreeing would", side, m, verdict_more(a, m));
  return buf;
}

/* ------------------------------------------------------------ bands */
/* A field of k runs at every step any of them recorded: the statistics of
   the runs that have a finite value there (count says how many), and the
   last value of each run that diverged (where its curve ends). */
typedef struct band {
  int n, k;
  double *x, *med, *q1, *q3, *lo, *hi, *mean, *sd;
  int *count;
  int nend;
  double *end_x, *end_y;
} band;

static void band_free(band *b) {
  free(b->x);
  free(b->med);
  free(b->q1);
  free(b->q3);
  free(b->lo);
  free(b->hi);
  free(b->mean);
  free(b->sd);
  free(b->count);
  free(b->end_x);
  free(b->end_y);
  memset(b, 0, sizeof *b);
}

/* The steps of every run's series, sorted, each once, into b->x. */
static int band_steps(runlog *const *rs, int k, int field, band *b) {
  long total = 0;
  int j, i, m = 0;
  for (j = 0; j < k; ++j) total += rs[j]->f[field].n;
  if (total > INT_MAX / 2) return -1;
  if (!(b->x = (double *)malloc(sizeof(double) * (size_t)(total + 1)))) return -1;
  for (j = 0; j < k; ++j)
    for (i = 0; i < rs[j]->f[field].n; ++i) b->x[m++] = rs[j]->f[field].x[i];
  /* runs log the same steps: a merge of sorted lists, here as a sort */
  if (m > 1) {
    int w = 1;
    qsort(b->x, (size_t)m, sizeof(double), runs_cmp_double);
    for (i = 1; i < m; ++i)
      if (b->x[i] != b->x[w - 1]) b->x[w++] = b->x[i];
    m = w;
  }
  b->n = m;
  return 0;
}

static int band_make(runlog *const *rs, int k, int field, band *b) {
  double *col;
  int i, j, cap;
  memset(b, 0, sizeof *b);
  b->k = k;
  if (k < 1) return 0;
  if (band_steps(rs, k, field, b)) return -1;
  cap = b->n ? b->n : 1;
  /* zeroed: a figure never reads past b->n, but no slot is left undefined */
  b->med = (double *)calloc((size_t)cap, sizeof(double));
  b->q1 = (double *)calloc((size_t)cap, sizeof(double));
  b->q3 = (double *)calloc((size_t)cap, sizeof(double));
  b->lo = (double *)calloc((size_t)cap, sizeof(double));
  b->hi = (double *)calloc((size_t)cap, sizeof(double));
  b->mean = (double *)calloc((size_t)cap, sizeof(double));
  b->sd = (double *)calloc((size_t)cap, sizeof(double));
  b->count = (int *)calloc((size_t)cap, sizeof(int));
  b->end_x = (double *)calloc((size_t)k, sizeof(double));
  b->end_y = (double *)calloc((size_t)k, sizeof(double));
  col = (double *)malloc(sizeof(double) * 2 * (size_t)k);
  if (!b->med || !b->q1 || !b->q3 || !b->lo || !b->hi || !b->mean || !b->sd ||
      !b->count || !b->end_x || !b->end_y || !col) {
    free(col);
    return -1;
  }
  for (i = 0; i < b->n; ++i) {
    stats s;
    for (j = 0; j < k; ++j) {
      double y = series_at(&rs[j]->f[field], b->x[i]);
      col[j] = isfinite(y) ? y : NAN;
    }
    stats_into(col, k, col + k, &s);
    b->count[i] = s.n;
    b->med[i] = s.med;
    b->q1[i] = s.q1;
    b->q3[i] = s.q3;
    b->lo[i] = s.min;
    b->hi[i] = s.max;
    b->mean[i] = s.mean;
    b->sd[i] = s.sd;
  }
  free(col);
  for (j = 0; j < k; ++j) { /* where the curves of diverged runs end */
    const series *s = &rs[j]->f[field];
    if (strcmp(rs[j]->status, "diverged") != 0 || s->n < 1) continue;
    b->end_x[b->nend] = s->x[s->n - 1];
    b->end_y[b->nend++] = s->y[s->n - 1];
  }
  return 0;
}

/* ------------------------------------------------------------ figures */
typedef struct curve {
  const char *label;
  band b;
} curve;

typedef struct curves_fig {
  const char *title, *xlabel, *ylabel;
  int logy; /* 1 log, 0 linear, -1 log if every value is positive */
  curve *c;
  int n;
} curves_fig;

/* Fewer points than this on a curve: each is marked. */
#define CURVE_MARK_BELOW 26

/* One curve: a light band from min to max over the runs, a darker one
   over the interquartile range, the median line (solid where every run
   has a value, dashed where only some do), a dot at each point when the
   points are few, a cross where a run diverged. */
static void draw_curve(svg_plot *p, const band *b, const char *col) {
  double *full = (double *)malloc(sizeof(double) * 2 * (size_t)(b->n + 1));
  double *part = full ? full + b->n + 1 : NULL;
  int i;
  svg_band(p, b->x, b->lo, b->hi, b->n, col, 0.12);
  svg_band(p, b->x, b->q1, b->q3, b->n, col, 0.28);
  if (full) {
    for (i = 0; i < b->n; ++i) {
      int all = b->count[i] == b->k;
      /* a point beside a partial one joins the dashed piece: no gap */
      int beside = (i > 0 && b->count[i - 1] > 0 && b->count[i - 1] < b->k) ||
                   (i + 1 < b->n && b->count[i + 1] > 0 && b->count[i + 1] < b->k);
      full[i] = all ? b->med[i] : NAN;
      part[i] = !all || beside ? b->med[i] : NAN;
    }
    svg_line(p, b->x, full, b->n, col, 2, 0);
    svg_line(p, b->x, part, b->n, col, 2, 1);
    free(full);
  }
  if (b->n < CURVE_MARK_BELOW) svg_markers(p, b->x, b->med, b->n, col, SVG_DOT, 3.2);
  svg_markers(p, b->end_x, b->end_y, b->nend, col, SVG_CROSS, 4.5);
}

/* Median lines over interquartile and min-max bands, one colour per
   curve, in a panel of figure g (title: the panel's, or NULL). */
static void curves_panel(svg_fig *g, double x, double y, double w, double h,
                         const char *title, const curves_fig *cf) {
  svg_axis ax = {0, 1, 0, NULL}, ay = {0, 1, 0, NULL};
  svg_plot p;
  double *all;
  int i, total = 0, k = 0, logy = cf->logy, partial = 0, ends = 0, marks = 0;
  /* per curve: the quartiles and the median (3 n), the ends */
  for (i = 0; i < cf->n; ++i) total += 3 * cf->c[i].b.n + cf->c[i].b.nend;
  all = (double *)calloc((size_t)total + 1, sizeof(double));
  if (!all) return;
  for (i = 0; i < cf->n; ++i) {
    const band *b = &cf->c[i].b;
    int j;
    /* the axis spans the quartiles: one run's spike is clipped by the
       frame (its band reaches the edge) instead of squashing the rest */
    memcpy(all + k, b->q1, sizeof(double) * (size_t)b->n);
    k += b->n;
    memcpy(all + k, b->q3, sizeof(double) * (size_t)b->n);
    k += b->n;
    memcpy(all + k, b->end_y, sizeof(double) * (size_t)b->nend);
    k += b->nend;
    memcpy(all + k, b->med, sizeof(double) * (size_t)b->n);
    k += b->n;
    for (j = 0; j < b->n; ++j)
      if (b->count[j] > 0 && b->count[j] < b->k) partial = 1;
    ends += b->nend;
    if (b->n > 0 && b->n < CURVE_MARK_BELOW) marks = 1;
  }
  if (logy < 0) { /* log if every value can be shown on one */
    logy = 1;
    for (i = 0; i < cf->n; ++i) {
      int j;
      for (j = 0; j < cf->c[i].b.n; ++j)
        if (!(cf->c[i].b.lo[j] > 0) && !isnan(cf->c[i].b.lo[j])) logy = 0;
    }
  }
  ay.log = logy;
  if (!svg_range(all, k, logy, &ay.lo, &ay.hi)) {
    ay.lo = logy ? 0.1 : 0;
    ay.hi = 1;
  }
  k = 0;
  for (i = 0; i < cf->n; ++i) {
    memcpy(all + k, cf->c[i].b.x, sizeof(double) * (size_t)cf->c[i].b.n);
    k += cf->c[i].b.n;
  }
  if (!svg_range(all, k, 0, &ax.lo, &ax.hi)) ax.hi = 1;
  if (ax.lo < 0 && ax.lo > -0.2 * ax.hi) ax.lo = 0;
  free(all);
  ax.label = cf->xlabel;
  ay.label = cf->ylabel;
  svg_panel(&p, g, x, y, w, h, title, ax, ay);
  svg_axes(&p);
  for (i = 0; i < cf->n; ++i)
    draw_curve(&p, &cf->c[i].b, svg_palette[i % SVG_NPALETTE]);
  for (i = 0; i < cf->n; ++i)
    svg_legend(&p, cf->c[i].label, svg_palette[i % SVG_NPALETTE],
               marks ? SVG_LINEDOT : SVG_LINE);
  svg_legend(&p, "line: median over the runs; bands: interquartile range, min to max", "#999999", SVG_BOX);
  if (partial)
    svg_legend(&p, "dashed: some runs have no value there", "#666666", SVG_DASHED);
  if (ends)
    svg_legend(&p, "cross: a run's last value before it diverged", "#666666", SVG_CROSS);
  svg_close(&p);
}

static void draw_curves(FILE *f, void *ctx) {
  curves_fig *cf = (curves_fig *)ctx;
  svg_fig g;
  svg_fig_open(&g, f, 680, 420, cf->title);
  curves_panel(&g, 0, 30, 680, 390, NULL, cf);
  svg_fig_close(&g);
}

/* The numbers behind draw_curves, one row per curve and step. */
static void csv_curves(FILE *f, void *ctx) {
  const curves_fig *cf = (const curves_fig *)ctx;
  int i, j;
  char v[8][32];
  fprintf(f, "curve,step,runs_with_value,runs,median,q1,q3,min,max,mean,sd\n");
  for (i = 0; i < cf->n; ++i) {
    const band *b = &cf->c[i].b;
    for (j = 0; j < b->n; ++j) {
      csv_text(f, cf->c[i].label);
      fprintf(f, ",%.10g,%d,%d,%s,%s,%s,%s,%s,%s,%s\n", b->x[j], b->count[j],
              b->k, csv_num(v[0], b->med[j]), csv_num(v[1], b->q1[j]),
              csv_num(v[2], b->q3[j]), csv_num(v[3], b->lo[j]),
              csv_num(v[4], b->hi[j]), csv_num(v[5], b->mean[j]),
              csv_num(v[6], b->sd[j]));
    }
    for (j = 0; j < b->nend; ++j) {
      csv_text(f, cf->c[i].label);
      fprintf(f, ",%.10g,diverged here,%d,%s,,,,,,\n", b->end_x[j], b->k,
              csv_num(v[0], b->end_y[j]));
    }
  }
}

/* FILE.svg's numbers go to FILE.csv. */
static void csv_path(const char *svg, char *out, size_t cap) {
  size_t len = strlen(svg);
  if (len > 4 && !strcmp(svg + len - 4, ".svg"))
    snprintf(out, cap, "%.*s.csv", (int)(len - 4), svg);
  else
    snprintf(out, cap, "%s.csv", svg);
}

/* A figure and, beside it, the numbers it draws (FILE.csv). */
static int write_figure(const char *svg, draw_fn draw, draw_fn csv, void *ctx) {
  char path[4200];
  int st = write_svg(svg, draw, ctx);
  if (st || !csv) return st;
  csv_path(svg, path, sizeof path);
  return write_svg(path, csv, ctx); /* any text through a temporary name */
}

static int write_curves(const char *svg, curves_fig *cf) {
  return write_figure(svg, draw_curves, csv_curves, cf);
}

#endif /* LINATTN_RUNS_H */
