/* linattn_runs.h - reading the JSON lines of training runs back, merging
   the runs of one configuration over their seeds (mean, spread, min, max at
   each step), and drawing such curves. Used by `reproduce` and `report`. */
#ifndef LINATTN_RUNS_H
#define LINATTN_RUNS_H

#include "la_svg.h"
#include "linattn_json.h"
#include "linattn_util.h"

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

typedef struct runlog {
  char path[4096];
  jv config;
  int has_config, has_summary;
  char status[16];
  double final_eval, steps_per_second, seconds;
  long steps;
  series f[NFIELDS];
} runlog;

static int series_add(series *s, double x, double y) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 64;
    double *nx = (double *)realloc(s->x, sizeof(double) * (size_t)cap);
    double *ny;
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

/* Reads one run's JSON lines; a line that does not parse is an error
   naming the file and line. Lines of other types are skipped. */
static int runlog_load(const char *path, runlog *r, char *err, size_t cap) {
  FILE *f = fopen(path, "r");
  char *line = NULL;
  size_t lcap = 0;
  long lineno = 0;
  memset(r, 0, sizeof *r);
  r->final_eval = r->steps_per_second = r->seconds = NAN;
  snprintf(r->path, sizeof r->path, "%s", path);
  if (!f) {
    snprintf(err, cap, "cannot read '%s': %s", path, strerror(errno));
    return -1;
  }
  while (getline(&line, &lcap, f) > 0) {
    jv v;
    const char *why = NULL, *type;
    char *p = line;
    ++lineno;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') ++p;
    if (!*p) continue;
    if (jv_parse(line, &v, &why) || v.type != JV_OBJ) {
      snprintf(err, cap, "%s:%ld: not a JSON object (%s)", path, lineno,
               why ? why : "another value");
      if (!why) jv_free(&v);
      free(line);
      (void)fclose(f); /* read only: nothing to lose */
      return -1;
    }
    type = jv_str(&v, "type");
    if (type && !strcmp(type, "config") && !r->has_config) {
      r->config = v;
      r->has_config = 1;
      continue;
    }
    if (type && !strcmp(type, "step")) {
      double step = jv_num(&v, "step");
      int k;
      for (k = 0; k < NFIELDS; ++k) {
        double y = jv_num(&v, field_key[k]);
        if (isfinite(y) && isfinite(step) && series_add(&r->f[k], step, y)) {
          snprintf(err, cap, "out of memory");
          jv_free(&v);
          free(line);
          (void)fclose(f);
          return -1;
        }
      }
    } else if (type && !strcmp(type, "summary")) {
      const char *s = jv_str(&v, "status");
      r->has_summary = 1;
      snprintf(r->status, sizeof r->status, "%s", s ? s : "?");
      r->final_eval = jv_num(&v, "final_eval_loss");
      r->steps_per_second = jv_num(&v, "steps_per_second");
      r->seconds = jv_num(&v, "seconds");
      r->steps = (long)jv_num(&v, "steps");
    }
    jv_free(&v);
  }
  free(line);
  if (ferror(f)) { /* getline stops at an error as at the end */
    snprintf(err, cap, "cannot read '%s'", path);
    (void)fclose(f);
    return -1;
  }
  (void)fclose(f);
  if (!r->has_config) {
    snprintf(err, cap, "%s: no config line (not the output of train)", path);
    return -1;
  }
  return 0;
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
  for (i = 0; i < s0->n; ++i) {
    double x = s0->x[i], sum = 0, sq = 0, lo = HUGE_VAL, hi = -HUGE_VAL;
    int ok = 1;
    for (j = 0; j < k && ok; ++j) {
      double y = series_at(&rs[j]->f[field], x);
      if (!isfinite(y)) ok = 0;
      sum += y;
      sq += y * y;
      if (y < lo) lo = y;
      if (y > hi) hi = y;
    }
    if (!ok) continue;
    b->x[b->n] = x;
    b->mean[b->n] = sum / k;
    b->sd[b->n] = k > 1 ? sqrt(fmax(0, (sq - sum * sum / k) / (k - 1))) : 0;
    b->lo[b->n] = lo;
    b->hi[b->n++] = hi;
  }
  return 0;
}

/* Mean and sample standard deviation. */
static void mean_sd(const double *v, int n, double *mean, double *sd) {
  double s = 0, q = 0;
  int i, m = 0;
  for (i = 0; i < n; ++i)
    if (isfinite(v[i])) {
      s += v[i];
      q += v[i] * v[i];
      ++m;
    }
  *mean = m ? s / m : NAN;
  *sd = m > 1 ? sqrt(fmax(0, (q - s * s / m) / (m - 1))) : (m ? 0 : NAN);
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
