/* The statistics and figures of the linattn command (examples/
   cli/study/runs.h and cli/io/svg.h): quantiles against their definition, the
   verdict rule on constructed seeds, means that do not overflow, bands
   over runs of unequal length, and SVG that stays finite and keeps its
   legend off the data whatever the values. C99 with POSIX. */
#define _POSIX_C_SOURCE 200809L
#define LINATTN_IMPLEMENTATION
#include "linattn.h"
#include "cli/study/runs.h"
#include "../unit/la_test.h"

#include <float.h>

/* A figure drawn into memory: the SVG text (free it). */
static char *svg_of(draw_fn draw, void *ctx) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return NULL;
  draw(m, ctx);
  fclose(m);
  return text;
}

/* Every number inside points="...", x=, y=, cx=, cy=, d="..." attributes
   finite and within the canvas (plus a margin the clip path hides);
   returns how many were read, -1 at the first bad one. */
static int coords_ok(const char *s, double lim) {
  static const char *const attrs[] = {" points=\"", " x=\"", " y=\"", " cx=\"",
                                      " cy=\"", " x1=\"", " y1=\"", " x2=\"",
                                      " y2=\"", " d=\"M"};
  int count = 0;
  size_t k;
  if (strstr(s, "nan") || strstr(s, "inf")) return -1;
  for (k = 0; k < sizeof attrs / sizeof attrs[0]; ++k) {
    const char *p = s;
    while ((p = strstr(p, attrs[k])) != NULL) {
      char *end;
      p += strlen(attrs[k]);
      for (;;) {
        double v;
        while (*p == ' ' || *p == ',' || *p == 'l' || *p == 'm' || *p == 'h' ||
               *p == 'V' || *p == 'M')
          ++p;
        if (*p == '"') break;
        v = strtod(p, &end);
        if (end == p) break;
        if (!isfinite(v) || fabs(v) > lim) return -1;
        ++count;
        p = end;
      }
    }
  }
  return count;
}

/* A run whose field F_EVAL has the given values at steps 0, 10, ... */
static void run_with(runlog *r, const double *y, int n, const char *status) {
  int i;
  memset(r, 0, sizeof *r);
  snprintf(r->status, sizeof r->status, "%s", status);
  for (i = 0; i < n; ++i) series_add(&r->f[F_EVAL], 10.0 * i, y[i]);
}

static void suite_cli_stats(la_t *t) {
  LA_TEST(t, "stats: quantiles of type 7, geometric between positive values") {
    double a[5] = {1, 2, 3, 4, 5}, b[2] = {1, 4}, c[2] = {-1, 3};
    double d[3] = {1, HUGE_VAL, HUGE_VAL}, e[4] = {2, 8, 8, 32};
    LA_CHECK(t, stat_quantile(a, 5, 0.25) == 2 && stat_quantile(a, 5, 0.5) == 3 &&
                    stat_quantile(a, 5, 0.75) == 4, "order statistics");
    LA_CHECK(t, fabs(stat_quantile(b, 2, 0.5) - 2) < 1e-15, "sqrt(1*4) = 2: %g",
             stat_quantile(b, 2, 0.5));
    LA_CHECK(t, stat_quantile(c, 2, 0.5) == 1, "arithmetic across zero");
    LA_CHECK(t, stat_quantile(d, 3, 0.5) == HUGE_VAL, "an infinity stays");
    /* q1 of 4 values: h = 0.75, between 2 and 8 geometrically: 2 * 4^0.75 */
    LA_CHECK(t, fabs(stat_quantile(e, 4, 0.25) - 2 * pow(4, 0.75)) < 1e-12,
             "q1 %g", stat_quantile(e, 4, 0.25));
    LA_CHECK(t, isnan(stat_quantile(a, 0, 0.5)), "empty");
  }

  LA_TEST(t, "stats: NaN skipped, infinities counted, mean and sd as two passes") {
    double v[7] = {3, NAN, 1, 4, 1, 5, HUGE_VAL}, big[3] = {1e308, 1e308, 1e308};
    double mean = (3 + 1 + 4 + 1 + 5) / 5.0, sq = 0;
    stats s;
    int i;
    for (i = 0; i < 7; ++i)
      if (isfinite(v[i])) sq += (v[i] - mean) * (v[i] - mean);
    stats_of(v, 7, &s);
    LA_CHECK(t, s.n == 6 && s.max == HUGE_VAL && s.min == 1, "n %d", s.n);
    LA_CHECK(t, fabs(s.mean - mean) < 1e-14 && fabs(s.sd - sqrt(sq / 4)) < 1e-14,
             "mean %g sd %g", s.mean, s.sd);
    stats_of(big, 3, &s);
    LA_CHECK(t, s.mean == 1e308 && s.sd == 0, "mean of 1e308s: %g", s.mean);
  }

  LA_TEST(t, "stats: sd of values near the ends of the doubles, scaled before squaring") {
    double far[2] = {1.7e308, 2e-308}, wide[2] = {1e-300, 1e300}, tiny[2] = {3e-320, 5e-320};
    stats s;
    stats_of(far, 2, &s); /* sd = |a - b| / sqrt 2 */
    LA_CHECK(t, fabs(s.mean / 8.5e307 - 1) < 1e-15 && fabs(s.sd / (1.7e308 / sqrt(2)) - 1) < 1e-15,
             "{1.7e308, 2e-308}: %g ± %g", s.mean, s.sd);
    stats_of(wide, 2, &s);
    LA_CHECK(t, fabs(s.mean / 5e299 - 1) < 1e-15 && fabs(s.sd / 7.0710678118654752e299 - 1) < 1e-15,
             "{1e-300, 1e300}: %g ± %g", s.mean, s.sd);
    stats_of(tiny, 2, &s); /* subnormal: exact to their few bits */
    LA_CHECK(t, s.mean > 0 && s.sd > 0 && fabs(s.sd / (2e-320 / sqrt(2)) - 1) < 1e-3,
             "subnormals: %g ± %g", s.mean, s.sd);
  }

  LA_TEST(t, "verdict: a one-sided sign test at 5% over the seeds with a number") {
    double four[4] = {2, 3, 4, 5}, five[5] = {2, 3, 4, 5, 6};
    double twelve[12], gaps[8] = {2, 2, 2, 2, 2, NAN, NAN, NAN};
    double none[2] = {NAN, NAN}, sgd_div[5] = {HUGE_VAL, HUGE_VAL, 2, 2, 2};
    verdict v;
    int k, i;
    verdict_of(four, 4, 1, &v);
    LA_CHECK(t, v.v == V_UNDECIDED && v.yes == 4 && fabs(v.p_yes - 1.0 / 16) < 1e-15,
             "four seeds never decide: p = 1/16");
    verdict_of(five, 5, 1, &v);
    LA_CHECK(t, v.v == V_HOLDS && fabs(v.p_yes - 1.0 / 32) < 1e-15, "5 of 5");
    for (k = 0; k <= 12; ++k) { /* k of 12 above: holds from 10, fails to 2 */
      for (i = 0; i < 12; ++i) twelve[i] = i < k ? 2 : 0.5;
      verdict_of(twelve, 12, 1, &v);
      LA_CHECK(t, v.v == (k >= 10 ? V_HOLDS : k <= 2 ? V_FAILS : V_UNDECIDED),
               "%d of 12: %s (p %g, %g)", k, verdict_word(v.v), v.p_yes, v.p_no);
    }
    verdict_of(gaps, 8, 1, &v);
    LA_CHECK(t, v.v == V_HOLDS && v.yes == 5 && v.no == 0,
             "unmeasured seeds count for neither: 5 of 5 measured");
    verdict_of(none, 2, 1, &v);
    LA_CHECK(t, v.v == V_NONE, "nothing measured");
    verdict_of(sgd_div, 5, 1, &v);
    LA_CHECK(t, v.v == V_HOLDS, "a diverged SGD run (inf) counts as Adam lower");
  }

  LA_TEST(t, "fmt_verdict: an undecided verdict's lean and what would decide it") {
    /* by hand: 6 of 6 is 1/64 <= 5%, 5 of 6 is 7/64; 4 of 6 plus e agreeing
       seeds is P(X >= 4 + e | 6 + e): 29/128, 37/256, 46/512, 56/1024, and
       67/2048 = 3.3% at e = 5; 4 of 4 plus one is 1/32 */
    double six[6] = {2, 2, 2, 2, 0.5, 0.5}, low[6] = {2, 2, 0.5, 0.5, 0.5, 0.5};
    double even[6] = {2, 2, 2, 0.5, 0.5, 0.5}, four[4] = {2, 2, 2, 2};
    double all6[6] = {2, 2, 2, 2, 2, 2};
    verdict v;
    char b[160];
    verdict_of(six, 6, 1, &v);
    LA_CHECK(t, !strcmp(fmt_verdict(b, sizeof b, &v), "undecided, leans to holds: "
                        "6 of 6 would decide, or 5 more seeds agreeing"), "4 of 6: %s", b);
    verdict_of(low, 6, 1, &v);
    LA_CHECK(t, !strcmp(fmt_verdict(b, sizeof b, &v), "undecided, leans to does not "
                        "hold: 6 of 6 would decide, or 5 more seeds agreeing"), "2 of 6: %s", b);
    verdict_of(even, 6, 1, &v);
    LA_CHECK(t, !strcmp(fmt_verdict(b, sizeof b, &v), "undecided, no lean"), "3 of 6: %s", b);
    verdict_of(four, 4, 1, &v);
    LA_CHECK(t, !strcmp(fmt_verdict(b, sizeof b, &v), "undecided, leans to holds: "
                        "4 seeds never decide, 1 more agreeing would"), "4 of 4: %s", b);
    verdict_of(all6, 6, 1, &v);
    LA_CHECK(t, v.v == V_HOLDS && !strcmp(fmt_verdict(b, sizeof b, &v), "holds"),
             "6 of 6: %s", b);
    LA_CHECK(t, verdict_need(6) == 6 && verdict_need(12) == 10 && verdict_need(4) == 5,
             "the fewest that decide: 6 of 6, 10 of 12, none of 4");
  }

  LA_TEST(t, "fmt_num: never hundreds of digits, n/a for NaN") {
    char b[64];
    LA_CHECK(t, !strcmp(fmt_num(b, sizeof b, NAN, 3), "n/a"), "NaN");
    LA_CHECK(t, strlen(fmt_num(b, sizeof b, DBL_MAX, 3)) < 12, "%s", b);
    LA_CHECK(t, !strcmp(fmt_num(b, sizeof b, -HUGE_VAL, 3), "-inf"), "%s", b);
  }

  LA_TEST(t, "band: every step of any run, counts, and where diverged runs end") {
    double y1[5] = {5, 4, 3, 2, 1}, y2[3] = {6, 5, NAN}, y3[5] = {4, 3, 2, 1, 0.5};
    runlog r[3];
    runlog *rs[3] = {&r[0], &r[1], &r[2]};
    band b;
    run_with(&r[0], y1, 5, "ok");
    run_with(&r[1], y2, 2, "diverged");
    run_with(&r[2], y3, 5, "ok");
    LA_CHECK(t, band_make(rs, 3, F_EVAL, &b) == 0, "band");
    LA_CHECK(t, b.n == 5 && b.count[0] == 3 && b.count[1] == 3 && b.count[2] == 2,
             "n %d counts %d %d %d", b.n, b.count[0], b.count[1], b.count[2]);
    LA_CHECK(t, b.med[0] == 5 && b.lo[0] == 4 && b.hi[0] == 6, "step 0");
    LA_CHECK(t, fabs(b.med[2] - sqrt(6)) < 1e-12, "two runs left: geometric mean %g", b.med[2]);
    LA_CHECK(t, b.nend == 1 && b.end_x[0] == 10 && b.end_y[0] == 5, "end %d", b.nend);
    band_free(&b);
    runlog_free(&r[0]);
    runlog_free(&r[1]);
    runlog_free(&r[2]);
  }

  LA_TEST(t, "svg: 1e-300 beside 1e300, a lone point, a zero-width axis") {
    double y1[13], y2[13];
    runlog r[2];
    runlog *rs[2] = {&r[0], &r[1]};
    curve c[1];
    curves_fig cf;
    char *s;
    int i;
    for (i = 0; i < 13; ++i) {
      y1[i] = pow(10, -300 + 50 * i);
      y2[i] = pow(10, 300 - 50 * i);
    }
    y1[5] = NAN; /* a gap, and a lone point at 6 between gaps */
    y2[5] = NAN;
    y1[7] = -1;
    y2[7] = -1;
    run_with(&r[0], y1, 13, "ok");
    run_with(&r[1], y2, 13, "ok");
    memset(c, 0, sizeof c);
    LA_CHECK(t, band_make(rs, 2, F_EVAL, &c[0].b) == 0, "band");
    c[0].label = "extremes";
    cf.title = "extremes";
    cf.xlabel = "step";
    cf.ylabel = "loss";
    cf.logy = 1;
    cf.c = c;
    cf.n = 1;
    s = svg_of(draw_curves, &cf);
    LA_CHECK(t, s && coords_ok(s, 1e4) > 20, "coordinates finite and bounded");
    LA_CHECK(t, s && strstr(s, "<circle") != NULL, "a lone point is a dot");
    free(s);
    band_free(&c[0].b);
    runlog_free(&r[0]);
    runlog_free(&r[1]);
  }

  LA_TEST(t, "svg: one tick style per log axis; the legend below the plot") {
    svg_axis plain = {1e-3, 1e4, 1, NULL}, powers = {1e-5, 1, 1, NULL};
    double tk[128];
    int major[128], n;
    char *text = NULL;
    size_t len = 0;
    FILE *m;
    svg_plot p;
    svg_axis ax = {0, 1, 0, NULL}, ay = {7, 7, 0, NULL};
    double x[2] = {0, 1}, y[2] = {7, 7};
    n = svg_ticks(&plain, tk, major, 128);
    LA_CHECK(t, svg_log_plain(tk, major, n), "0.001 .. 1e4 plain");
    n = svg_ticks(&powers, tk, major, 128);
    LA_CHECK(t, !svg_log_plain(tk, major, n), "1e-5 .. 1 as powers");
    { /* values within a factor of 1.3 (or one value): still two labels */
      static const double v[3][2] = {{4.6, 5.7}, {9.2, 9.9}, {0.3, 0.3}};
      int i, k, majors;
      for (i = 0; i < 3; ++i) {
        svg_axis narrow = {0, 0, 1, NULL};
        LA_CHECK(t, svg_range(v[i], 2, 1, &narrow.lo, &narrow.hi), "range %d", i);
        LA_CHECK(t, narrow.lo <= v[i][0] && narrow.hi >= v[i][1], "covers %d", i);
        n = svg_ticks(&narrow, tk, major, 128);
        for (k = 0, majors = 0; k < n; ++k) majors += major[k];
        LA_CHECK(t, majors >= 2, "%g .. %g: %d labels", narrow.lo, narrow.hi, majors);
      }
    }
    m = open_memstream(&text, &len);
    LA_CHECK(t, m != NULL, "memstream");
    if (m) {
      const char *leg;
      svg_open(&p, m, 400, 300, "flat", ax, ay);
      svg_axes(&p);
      svg_line(&p, x, y, 2, svg_palette[0], 2, 0);
      svg_legend(&p, "the only curve", svg_palette[0], SVG_LINE);
      svg_close(&p);
      fclose(m);
      LA_CHECK(t, coords_ok(text, 1e4) > 0, "a zero-width axis stays finite");
      leg = strstr(text, ">the only curve<");
      LA_CHECK(t, leg && strstr(text, "height=\"3") != NULL, "canvas grown");
      if (leg) {
        const char *yat = leg;
        while (yat > text && strncmp(yat, " y=\"", 4) != 0) --yat;
        LA_CHECK(t, atof(yat + 4) > 300, "legend text at y %g, below 300", atof(yat + 4));
      }
      free(text);
    }
  }
}

int main(void) {
  static const la_suite suites[] = {{"cli-stats", suite_cli_stats}};
  return la_t_run(suites, 1, NULL, 0, 0);
}
