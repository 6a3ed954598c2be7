/* linattn_runs.h - reading the JSON lines of training runs back, merging
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

#include "la_svg.h"
#include "linattn_json.h"
#include "linattn_util.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>

/* The per-step quantities a run's lines may carry. */
enum {
  F_EVAL, F_LOSS, F_GNORM, F_SMOOTH, F_SGNORM, F_RCOND, F_RSPEC, F_LMAX,
  NFIELDS
};
static const char *const field_key[NFIELDS] = {
    "eval_loss",  "loss",       "grad_norm",      "smoothness",
    "smooth_grad_norm", "rcond_diag", "rcond_spectrum", "lambda_max"};

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
  series f[NFIELDS];
} runlog;

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
    s->cur.steps = -1;
    s->cur.config = *v;
    memset(v, 0, sizeof *v);
    s->open = 1;
    return 0;
  }
  if (!type || (strcmp(type, "step") != 0 && strcmp(type, "summary") != 0))
    return 0;
  if (!s->open) {
    snprintf(s->err, s->cap, "%s line %ld: a %s line before any config line",
             U_Q(s->path), lineno, type);
    return EXIT_BAD_INPUT;
  }
  if (!strcmp(type, "step")) {
    double step = jv_num(v, "step");
    for (k = 0; k < NFIELDS && isfinite(step); ++k) {
      double y = jv_num(v, field_key[k]);
      if (isfinite(y) && series_add(&s->cur.f[k], step, y)) {
        snprintf(s->err, s->cap, "out of memory");
        return EXIT_NOMEM;
      }
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
static int runlog_load(const char *path, runlog *r, char *err, size_t cap) {
  int st;
  memset(r, 0, sizeof *r);
  st = runs_read_file(path, runs_take_one, r, err, cap);
  if (!st && r->config.type != JV_OBJ) {
    snprintf(err, cap, "%s: no config line (not the output of train)", U_Q(path));
    st = EXIT_BAD_INPUT;
  }
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

/* Mean and sample standard deviation of the finite values (NaN where
   there are none), over the values scaled by the largest magnitude: no
   sum or square overflows, so finite values of any size (1e300) give
   their mean, and an sd that is finite where it is representable. */
static void mean_sd(const double *v, int n, double *mean, double *sd) {
  double big = 0, s = 0, q = 0, mu;
  int i, m = 0;
  for (i = 0; i < n; ++i)
    if (isfinite(v[i])) {
      if (fabs(v[i]) > big) big = fabs(v[i]);
      ++m;
    }
  if (!m) {
    *mean = *sd = NAN;
    return;
  }
  if (big == 0) big = 1;
  for (i = 0; i < n; ++i)
    if (isfinite(v[i])) s += v[i] / big;
  mu = s / m;
  for (i = 0; i < n; ++i)
    if (isfinite(v[i])) q += (v[i] / big - mu) * (v[i] / big - mu);
  *mean = mu * big;
  *sd = m > 1 ? sqrt(q / (m - 1)) * big : 0;
}

/* Statistics over k runs at the steps of the first that all of them have. */
typedef struct band {
  int n;
  double *x, *mean, *sd, *lo, *hi;
} band;

static void band_free(band *b) {
  free(b->x);
  free(b->mean);
  free(b->sd);
  free(b->lo);
  free(b->hi);
  memset(b, 0, sizeof *b);
}

static int band_make(runlog *const *rs, int k, int field, band *b) {
  const series *s0;
  double *ys;
  int i, j, cap;
  memset(b, 0, sizeof *b);
  if (k < 1) return 0;
  s0 = &rs[0]->f[field];
  cap = s0->n ? s0->n : 1;
  /* zeroed: a figure never reads past b->n, but no slot is left undefined */
  b->x = (double *)calloc((size_t)cap, sizeof(double));
  b->mean = (double *)calloc((size_t)cap, sizeof(double));
  b->sd = (double *)calloc((size_t)cap, sizeof(double));
  b->lo = (double *)calloc((size_t)cap, sizeof(double));
  b->hi = (double *)calloc((size_t)cap, sizeof(double));
  if (!b->x || !b->mean || !b->sd || !b->lo || !b->hi) return -1;
  if (!(ys = (double *)malloc(sizeof(double) * (size_t)k))) return -1;
  for (i = 0; i < s0->n; ++i) {
    double x = s0->x[i], lo = HUGE_VAL, hi = -HUGE_VAL;
    int ok = 1;
    for (j = 0; j < k && ok; ++j) {
      double y = ys[j] = series_at(&rs[j]->f[field], x);
      if (!isfinite(y)) ok = 0;
      if (y < lo) lo = y;
      if (y > hi) hi = y;
    }
    if (!ok) continue;
    b->x[b->n] = x;
    mean_sd(ys, k, &b->mean[b->n], &b->sd[b->n]);
    b->lo[b->n] = lo;
    b->hi[b->n++] = hi;
  }
  free(ys);
  return 0;
}

/* ------------------------------------------------------------ figures */
typedef struct curve {
  const char *label;
  band b;
} curve;

typedef struct curves_fig {
  const char *title, *xlabel, *ylabel, *note;
  int logy; /* 1 log, 0 linear, -1 log if every value is positive */
  curve *c;
  int n;
} curves_fig;

/* Mean lines over min-max bands, one colour per curve. */
static void draw_curves(FILE *f, void *ctx) {
  curves_fig *cf = (curves_fig *)ctx;
  svg_axis ax = {0, 1, 0, NULL}, ay = {0, 1, 0, NULL};
  svg_plot p;
  double *all;
  int i, total = 0, k = 0, logy = cf->logy;
  for (i = 0; i < cf->n; ++i) total += 3 * cf->c[i].b.n;
  all = (double *)calloc((size_t)total + 1, sizeof(double));
  if (!all) return;
  for (i = 0; i < cf->n; ++i) {
    memcpy(all + k, cf->c[i].b.lo, sizeof(double) * (size_t)cf->c[i].b.n);
    k += cf->c[i].b.n;
    memcpy(all + k, cf->c[i].b.hi, sizeof(double) * (size_t)cf->c[i].b.n);
    k += cf->c[i].b.n;
  }
  if (logy < 0) {
    logy = 1;
    for (i = 0; i < k; ++i)
      if (!(all[i] > 0)) logy = 0;
  }
  ay.log = logy;
  if (!svg_range(all, k, logy, &ay.lo, &ay.hi)) {
    ay.lo = 0.1;
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
  svg_open(&p, f, 680, 420, cf->title, ax, ay);
  svg_axes(&p);
  for (i = 0; i < cf->n; ++i) {
    const band *b = &cf->c[i].b;
    const char *col = svg_palette[i % SVG_NPALETTE];
    svg_band(&p, b->x, b->lo, b->hi, b->n, col, 0.22);
    svg_line(&p, b->x, b->mean, b->n, col, 2, 0);
  }
  for (i = 0; i < cf->n; ++i)
    svg_legend(&p, cf->c[i].label, svg_palette[i % SVG_NPALETTE], 0);
  if (cf->note) svg_legend(&p, cf->note, "#999999", 2);
  svg_close(&p);
}

#endif /* LINATTN_RUNS_H */
