/* cli/io/svg.h - small SVG figures for cli/main.c: line plots on linear
   or logarithmic axes with bands and markers, histograms, error bars,
   scatter plots coloured by a value with a colour bar, in one panel or a
   grid of panels, with the legend in a strip below the axes (never over
   the data). Plain C99 and stdio; the caller owns the FILE and the data.

   One figure of one panel: svg_open (title, axes), svg_axes, then any of
   svg_band, svg_line, svg_markers, svg_bars, svg_errbar, svg_points,
   svg_legend, svg_colorbar, and svg_close. Several panels: svg_fig_open,
   then per panel svg_panel ... svg_close, then svg_fig_close; the legend
   entries of every panel are gathered (each label once) under the figure.

   Values a log axis cannot show (x <= 0) and non-finite values are skipped
   and a line is broken there; a point left alone between two gaps is drawn
   as a dot, so that no value is lost and no line crosses a gap. Whatever
   the data (1e-300 beside 1e300, a range of zero width), every coordinate
   written is a finite number. */
#ifndef LA_SVG_H
#define LA_SVG_H

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct svg_axis {
  double lo, hi; /* data range (for a log axis, positive) */
  int log;       /* base-10 logarithmic */
  const char *label;
} svg_axis;

#define SVG_MAXLEG 24
/* A canvas: its elements go to `body` (a temporary file) until the legend
   below them is sized, then the whole is written to `out`. */
typedef struct svg_fig {
  FILE *out, *body;
  double w, h; /* the canvas above the legend strip */
  char title[200];
  int panels;
  int nlegend;
  char leg_label[SVG_MAXLEG][128];
  const char *leg_color[SVG_MAXLEG];
  int leg_kind[SVG_MAXLEG];
} svg_fig;

typedef struct svg_plot {
  FILE *f; /* where elements are written */
  svg_fig *fig, own; /* own: the figure of svg_open */
  double ox, oy;         /* the panel's corner on the canvas */
  double w, h;           /* the panel in px */
  double ml, mr, mt, mb; /* margins around the plotting area */
  svg_axis x, y;
  int id; /* of the panel's clip path */
} svg_plot;

/* Colours that stay apart for colour-blind readers (Okabe-Ito). */
static const char *const svg_palette[] = {"#0072B2", "#D55E00", "#009E73",
                                          "#CC79A7", "#E69F00", "#56B4E9",
                                          "#F0E442", "#000000"};
#define SVG_NPALETTE 8

/* Legend and marker kinds. */
enum {
  SVG_LINE = 0,   /* a line */
  SVG_DASHED = 1, /* a dashed line */
  SVG_BOX = 2,    /* a filled box (a band, bars) */
  SVG_DOT = 3,    /* a dot (markers, a scatter) */
  SVG_CROSS = 4,  /* a cross (a run that ended) */
  SVG_LINEDOT = 5 /* a line with dots on it */
};

static void svg_text(FILE *f, const char *s) {
  for (; s && *s; ++s) {
    if (*s == '&') fputs("&amp;", f);
    else if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else if (*s == '"') fputs("&quot;", f);
    else fputc(*s, f);
  }
}

/* The decimal exponents an axis may span: a double's normal range. */
#define SVG_EMIN (-307.0)
#define SVG_EMAX 307.0

static int svg_ok(const svg_axis *a, double v) {
  return isfinite(v) && (!a->log || v > 0);
}
/* Position of v along the axis, 0 at lo and 1 at hi; finite for any
   finite v (a range that overflows is taken in halves), bounded so that a
   point far outside stays a finite coordinate the clip path hides. */
static double svg_t(const svg_axis *a, double v) {
  double t;
  if (a->log) {
    double l0 = log10(a->lo), l1 = log10(a->hi);
    t = (log10(v) - l0) / (l1 - l0);
  } else {
    double span = a->hi - a->lo;
    t = isfinite(span) ? (v - a->lo) / span
                       : (v * 0.5 - a->lo * 0.5) / (a->hi * 0.5 - a->lo * 0.5);
  }
  if (!(t > -20)) return -20; /* NaN too: only from a broken axis */
  return t < 20 ? t : 20;
}
static double svg_px(const svg_plot *p, double x) {
  return p->ox + p->ml + svg_t(&p->x, x) * (p->w - p->ml - p->mr);
}
static double svg_py(const svg_plot *p, double y) {
  return p->oy + p->h - p->mb - svg_t(&p->y, y) * (p->h - p->mt - p->mb);
}
/* The plotting area's corners. */
static double svg_left(const svg_plot *p) { return p->ox + p->ml; }
static double svg_right(const svg_plot *p) { return p->ox + p->w - p->mr; }
static double svg_top(const svg_plot *p) { return p->oy + p->mt; }
static double svg_bottom(const svg_plot *p) { return p->oy + p->h - p->mb; }

/* An axis fit to draw: lo < hi, both finite (positive and within a
   double's normal range on a log axis). A broken one becomes [0, 1] or
   [1, 10]; an empty one is widened around its value. */
static void svg_fix_axis(svg_axis *a) {
  if (a->log) {
    double l0 = a->lo > 0 && isfinite(a->lo) ? log10(a->lo) : 0;
    double l1 = a->hi > 0 && isfinite(a->hi) ? log10(a->hi) : l0 + 1;
    if (l0 < SVG_EMIN) l0 = SVG_EMIN;
    if (l1 > SVG_EMAX) l1 = SVG_EMAX;
    if (!(l1 > l0 + 1e-9)) {
      l0 -= 0.5;
      l1 = l0 + 1;
    }
    a->lo = pow(10, l0);
    a->hi = pow(10, l1);
  } else {
    if (!isfinite(a->lo)) a->lo = 0;
    if (!isfinite(a->hi)) a->hi = a->lo + 1;
    if (!(a->hi > a->lo)) {
      double pad = fabs(a->lo) > 0 ? fabs(a->lo) * 1e-3 : 1;
      a->lo -= pad;
      a->hi = a->lo + 2 * pad;
    }
  }
}

/* A range covering the finite values (positive ones for a log axis), with
   a margin; a log range stays within a double's normal numbers, a range
   of zero width is widened. Returns 0 when no value can be shown. */
static int svg_range(const double *v, int n, int logscale, double *lo,
                     double *hi) {
  double a = HUGE_VAL, b = -HUGE_VAL;
  int i;
  for (i = 0; i < n; ++i)
    if (isfinite(v[i]) && (!logscale || v[i] > 0)) {
      if (v[i] < a) a = v[i];
      if (v[i] > b) b = v[i];
    }
  if (a > b) return 0;
  if (logscale) { /* the margin within the doubles: 1e-300 .. 1e300 */
    double la = log10(a), lb = log10(b), pad = (lb - la) * 0.04;
    /* at least a factor of 3, so that two ticks of 1..9 times a power of
       ten fall inside and the axis has two labels */
    if (lb - la < 0.5) pad = 0.25 - (lb - la) / 2;
    la = la - pad < SVG_EMIN ? SVG_EMIN : la - pad;
    lb = lb + pad > SVG_EMAX ? SVG_EMAX : lb + pad;
    *lo = pow(10, la);
    *hi = pow(10, lb);
  } else {
    double pad = b * 0.05 - a * 0.05; /* no overflow near DBL_MAX */
    if (!(pad > 0)) pad = fabs(a) > 0 ? fabs(a) * 0.1 : 1;
    *lo = a - pad;
    *hi = b + pad;
    if (!isfinite(*lo)) *lo = -DBL_MAX;
    if (!isfinite(*hi)) *hi = DBL_MAX;
  }
  return 1;
}

/* ------------------------------------------------------------ figures */
static void svg_fig_open(svg_fig *g, FILE *f, double w, double h,
                         const char *title) {
  memset(g, 0, sizeof *g);
  g->out = f;
  g->w = w;
  g->h = h;
  snprintf(g->title, sizeof g->title, "%s", title ? title : "");
  /* a figure that cannot buffer writes straight through (its legend then
     sits in the top strip of the canvas) */
  g->body = tmpfile();
  if (!g->body) {
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
            "height=\"%g\" viewBox=\"0 0 %g %g\" font-family=\"DejaVu Sans, "
            "Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            w, h, w, h);
  }
}

/* Width of a label in px: a DejaVu Sans 12 px average, UTF-8 aware. */
static double svg_text_width(const char *s) {
  double w = 0;
  for (; *s; ++s)
    if (((unsigned char)*s & 0xc0) != 0x80) w += 6.9;
  return w;
}

/* One legend sample at (x, y), the text's baseline. */
static void svg_legend_mark(FILE *f, double x, double y, const char *color,
                            int kind) {
  if (kind == SVG_LINE || kind == SVG_DASHED || kind == SVG_LINEDOT)
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"%s\" stroke-width=\"2.5\"%s/>\n",
            x, y - 4, x + 24, y - 4, color,
            kind == SVG_DASHED ? " stroke-dasharray=\"6 4\"" : "");
  if (kind == SVG_BOX)
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"10\" "
            "fill=\"%s\" fill-opacity=\"0.45\"/>\n",
            x, y - 9, color);
  if (kind == SVG_DOT || kind == SVG_LINEDOT)
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n",
            x + 12, y - 4, color);
  if (kind == SVG_CROSS)
    fprintf(f,
            "<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\" stroke=\"%s\" "
            "stroke-width=\"2\"/>\n",
            x + 8, y - 8, color);
}

/* The legend's rows below the canvas (or, unbuffered, over its top):
   entries flow left to right. Returns the strip's height. */
static double svg_legend_strip(const svg_fig *g, FILE *f, double y0,
                               int draw) {
  double x = 16, y = y0 + 16, room = g->w - 16;
  int i;
  if (!g->nlegend) return 0;
  for (i = 0; i < g->nlegend; ++i) {
    double ew = 32 + svg_text_width(g->leg_label[i]) + 18;
    if (x > 16 && x + ew > room) {
      x = 16;
      y += 18;
    }
    if (draw) {
      svg_legend_mark(f, x, y, g->leg_color[i], g->leg_kind[i]);
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 30, y);
      svg_text(f, g->leg_label[i]);
      fputs("</text>\n", f);
    }
    x += ew;
  }
  return y - y0 + 10;
}

static void svg_fig_close(svg_fig *g) {
  FILE *f = g->out;
  double strip;
  if (!g->body) { /* written through: the legend over the top */
    svg_legend_strip(g, f, 0, 1);
    fputs("</svg>\n", f);
    return;
  }
  strip = svg_legend_strip(g, f, g->h, 0);
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
          "height=\"%g\" viewBox=\"0 0 %g %g\" font-family=\"DejaVu Sans, "
          "Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
          g->w, g->h + strip, g->w, g->h + strip);
  if (g->title[0]) {
    fprintf(f,
            "<text x=\"%.1f\" y=\"22\" text-anchor=\"middle\" "
            "font-size=\"14\" font-weight=\"bold\">",
            g->w / 2);
    svg_text(f, g->title);
    fputs("</text>\n", f);
  }
  {
    char buf[8192];
    size_t got;
    rewind(g->body);
    while ((got = fread(buf, 1, sizeof buf, g->body)) > 0)
      if (fwrite(buf, 1, got, f) != got) break; /* the caller sees ferror */
    (void)fclose(g->body); /* a temporary file: nothing to keep */
    g->body = NULL;
  }
  svg_legend_strip(g, f, g->h, 1);
  fputs("</svg>\n", f);
}

/* A panel of figure g: the box (x, y, w, h) on its canvas, a title above
   the plotting area, and the axes. */
static void svg_panel(svg_plot *p, svg_fig *g, double x, double y, double w,
                      double h, const char *title, svg_axis ax, svg_axis ay) {
  memset(p, 0, sizeof *p);
  p->fig = g;
  p->f = g->body ? g->body : g->out;
  p->ox = x;
  p->oy = y;
  p->w = w;
  p->h = h;
  p->ml = 78;
  p->mr = 24;
  p->mt = title && *title ? 26 : 10;
  p->mb = 52;
  svg_fix_axis(&ax);
  svg_fix_axis(&ay);
  p->x = ax;
  p->y = ay;
  p->id = g->panels++;
  if (title && *title) {
    fprintf(p->f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
            "font-weight=\"bold\">",
            x + (p->ml + w - p->mr) / 2, y + 16);
    svg_text(p->f, title);
    fputs("</text>\n", p->f);
  }
}

/* A figure of one panel, titled. */
static void svg_open(svg_plot *p, FILE *f, double w, double h,
                     const char *title, svg_axis x, svg_axis y) {
  svg_fig g;
  svg_fig_open(&g, f, w, h, title);
  svg_panel(p, &g, 0, 30, w, h - 30, NULL, x, y);
  p->own = g; /* the same files, the panel counted */
  p->fig = &p->own;
}

/* ------------------------------------------------------------ axes */
/* Tick values of an axis into t (at most cap), with minor ones flagged in
   major[] = 0 (a log axis's 2..9 times a power of ten). */
static int svg_ticks(const svg_axis *a, double *t, int *major, int cap) {
  int n = 0;
  if (a->log) {
    static const int nice[] = {1, 2, 5, 10, 20, 25, 50, 100, 200};
    double l0 = floor(log10(a->lo)), l1 = ceil(log10(a->hi)), e;
    int span = (int)(l1 - l0), every = 1, k, majors = 0;
    /* at most about ten labelled decades, at multiples of a round step */
    for (k = 0; k + 1 < 9 && span > 10 * nice[k]; ++k) every = nice[k + 1];
    for (e = l0; e <= l1 && n < cap; e += 1) {
      int m;
      for (m = 1; m <= 9 && n < cap; ++m) {
        double v = (double)m * pow(10, e);
        int is_major = m == 1 && (int)e % every == 0;
        int keep = is_major || (span <= 2 && (m == 2 || m == 5)) ||
                   (span <= 5 && m != 1);
        if (v < a->lo * (1 - 1e-12) || v > a->hi * (1 + 1e-12) || !keep)
          continue;
        t[n] = v;
        major[n++] = is_major || span <= 1;
      }
    }
    for (k = 0; k < n; ++k) majors += major[k];
    if (majors < 2) { /* fewer than two labels: 2 and 5 as well */
      for (k = 0, majors = 0; k < n; ++k) {
        double m = t[k] / pow(10, floor(log10(t[k]) + 1e-9));
        if (fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6 || fabs(m - 1) < 1e-6)
          major[k] = 1;
        majors += major[k];
      }
      if (majors < 2) /* within a factor of 5: every tick */
        for (k = 0; k < n; ++k) major[k] = 1;
    }
  } else {
    double range = a->hi - a->lo, raw = range / 6, mag, step, v;
    if (!(range > 0) || !isfinite(range)) return 0;
    mag = pow(10, floor(log10(raw)));
    step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag
         : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    if (!(step > 0) || !isfinite(step)) return 0;
    for (v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9 && n < cap;
         v += step) {
      t[n] = fabs(v) < step * 1e-9 ? 0 : v;
      major[n++] = 1;
    }
  }
  return n;
}

/* The labels of one log axis share a style: plain numbers when every
   label lies in 0.001 .. 10000, powers of ten otherwise. */
static int svg_log_plain(const double *t, const int *major, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (major[i] && (t[i] < 1e-3 * (1 - 1e-9) || t[i] > 1e4 * (1 + 1e-9)))
      return 0;
  return 1;
}

/* A tick label: %g on a linear axis; on a log one, by the axis's style. */
static void svg_tick_label(FILE *f, const svg_axis *a, double v, int plain) {
  if (a->log && !plain) {
    double e = floor(log10(v) + 1e-9), m = v / pow(10, e);
    if (fabs(m - 1) > 1e-6) fprintf(f, "%g\xc3\x97", m);
    fprintf(f, "10<tspan dy=\"-6\" font-size=\"9\">%d</tspan>", (int)e);
  } else {
    fprintf(f, "%g", v);
  }
}

/* A grid line or a tick. */
static void svg_seg(FILE *f, double x1, double y1, double x2, double y2,
                    const char *stroke) {
  fprintf(f,
          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
          "stroke=\"%s\"/>\n",
          x1, y1, x2, y2, stroke);
}

static void svg_axes(svg_plot *p) {
  FILE *f = p->f;
  double x0 = svg_left(p), x1 = svg_right(p), y0 = svg_bottom(p), y1 = svg_top(p);
  double t[128];
  int major[128], n, i, plain;
  n = svg_ticks(&p->x, t, major, 128);
  plain = svg_log_plain(t, major, n);
  for (i = 0; i < n; ++i) {
    double px = svg_px(p, t[i]);
    svg_seg(f, px, y0, px, y1, major[i] ? "#e4e4e4" : "#f2f2f2");
    svg_seg(f, px, y0, px, y0 + (major[i] ? 5 : 3), "black");
    if (major[i]) {
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px,
              y0 + 18);
      svg_tick_label(f, &p->x, t[i], plain);
      fputs("</text>\n", f);
    }
  }
  n = svg_ticks(&p->y, t, major, 128);
  plain = svg_log_plain(t, major, n);
  for (i = 0; i < n; ++i) {
    double py = svg_py(p, t[i]);
    svg_seg(f, x0, py, x1, py, major[i] ? "#e4e4e4" : "#f2f2f2");
    svg_seg(f, x0 - (major[i] ? 5 : 3), py, x0, py, "black");
    if (major[i]) {
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 8,
              py + 4);
      svg_tick_label(f, &p->y, t[i], plain);
      fputs("</text>\n", f);
    }
  }
  fprintf(f,
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          "fill=\"none\" stroke=\"black\"/>\n",
          x0, y1, x1 - x0, y0 - y1);
  if (p->x.label) {
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            (x0 + x1) / 2, p->oy + p->h - 12);
    svg_text(f, p->x.label);
    fputs("</text>\n", f);
  }
  if (p->y.label) {
    fprintf(f,
            "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
            "text-anchor=\"middle\">",
            p->ox + 18, (y0 + y1) / 2);
    svg_text(f, p->y.label);
    fputs("</text>\n", f);
  }
  /* everything drawn later stays inside the frame */
  fprintf(f,
          "<clipPath id=\"area%d\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
          "height=\"%.1f\"/></clipPath>\n",
          p->id, x0, y1, x1 - x0, y0 - y1);
}

/* ------------------------------------------------------------ marks */
/* Markers at the points that can be shown: SVG_DOT, SVG_CROSS. */
static void svg_markers(svg_plot *p, const double *x, const double *y, int n,
                        const char *color, int kind, double r) {
  int i;
  for (i = 0; i < n; ++i) {
    double px, py;
    if (!svg_ok(&p->x, x[i]) || !svg_ok(&p->y, y[i])) continue;
    px = svg_px(p, x[i]);
    py = svg_py(p, y[i]);
    if (kind == SVG_CROSS)
      fprintf(p->f,
              "<path clip-path=\"url(#area%d)\" d=\"M%.1f %.1fl%g %gm0 %gl%g "
              "%g\" stroke=\"%s\" stroke-width=\"2\"/>\n",
              p->id, px - r, py - r, 2 * r, 2 * r, -2 * r, -2 * r, 2 * r,
              color);
    else
      fprintf(p->f,
              "<circle clip-path=\"url(#area%d)\" cx=\"%.1f\" cy=\"%.1f\" "
              "r=\"%g\" fill=\"%s\"/>\n",
              p->id, px, py, r, color);
  }
}

/* A polyline through the points that can be shown, broken where one
   cannot; a point alone between two breaks is a dot. dash 0 = solid. */
static void svg_line(svg_plot *p, const double *x, const double *y, int n,
                     const char *color, double width, int dash) {
  int i = 0;
  while (i < n) {
    int end = i;
    while (end < n && svg_ok(&p->x, x[end]) && svg_ok(&p->y, y[end])) ++end;
    if (end - i == 1) {
      svg_markers(p, x + i, y + i, 1, color, SVG_DOT, width + 1);
    } else if (end - i > 1) {
      int k;
      fprintf(p->f,
              "<polyline clip-path=\"url(#area%d)\" fill=\"none\" "
              "stroke=\"%s\" stroke-width=\"%g\"%s points=\"",
              p->id, color, width, dash ? " stroke-dasharray=\"6 4\"" : "");
      for (k = i; k < end; ++k)
        fprintf(p->f, "%.1f,%.1f ", svg_px(p, x[k]), svg_py(p, y[k]));
      fputs("\"/>\n", p->f);
    }
    i = end + 1;
  }
}

/* The area between lo and hi (same x), broken where a value cannot be
   shown; a point alone is a vertical bar. */
static void svg_band(svg_plot *p, const double *x, const double *lo,
                     const double *hi, int n, const char *color,
                     double opacity) {
  int i, start = 0;
  while (start < n) {
    int end = start;
    while (end < n && svg_ok(&p->x, x[end]) && svg_ok(&p->y, lo[end]) &&
           svg_ok(&p->y, hi[end]))
      ++end;
    if (end - start == 1) {
      double px = svg_px(p, x[start]);
      fprintf(p->f,
              "<line clip-path=\"url(#area%d)\" x1=\"%.1f\" y1=\"%.1f\" "
              "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-opacity=\"%g\" "
              "stroke-width=\"4\"/>\n",
              p->id, px, svg_py(p, lo[start]), px, svg_py(p, hi[start]), color,
              opacity * 2);
    } else if (end - start >= 2) {
      fprintf(p->f,
              "<polygon clip-path=\"url(#area%d)\" fill=\"%s\" "
              "fill-opacity=\"%g\" stroke=\"none\" points=\"",
              p->id, color, opacity);
      for (i = start; i < end; ++i)
        fprintf(p->f, "%.1f,%.1f ", svg_px(p, x[i]), svg_py(p, hi[i]));
      for (i = end - 1; i >= start; --i)
        fprintf(p->f, "%.1f,%.1f ", svg_px(p, x[i]), svg_py(p, lo[i]));
      fputs("\"/>\n", p->f);
    }
    start = end + 1;
  }
}

/* Vertical error bars from lo to hi at x, with caps. */
static void svg_errbar(svg_plot *p, const double *x, const double *lo,
                       const double *hi, int n, const char *color) {
  int i;
  for (i = 0; i < n; ++i) {
    double px, a, b;
    if (!svg_ok(&p->x, x[i]) || !svg_ok(&p->y, lo[i]) || !svg_ok(&p->y, hi[i]))
      continue;
    px = svg_px(p, x[i]);
    a = svg_py(p, lo[i]);
    b = svg_py(p, hi[i]);
    fprintf(p->f,
            "<path clip-path=\"url(#area%d)\" d=\"M%.1f %.1fV%.1fM%.1f "
            "%.1fh8M%.1f %.1fh8\" stroke=\"%s\" stroke-width=\"1.5\" "
            "fill=\"none\"/>\n",
            p->id, px, a, b, px - 4, a, px - 4, b, color);
  }
}

/* Histogram bars: bin i spans edges[i] .. edges[i+1], height h[i]; on a
   log axis a bar starts at the axis's floor. */
static void svg_bars(svg_plot *p, const double *edges, const double *h,
                     int nbins, const char *color) {
  int i;
  double base = p->y.log ? p->y.lo : (p->y.lo > 0 ? p->y.lo : 0);
  for (i = 0; i < nbins; ++i) {
    double xa, xb, ya, yb;
    if (!svg_ok(&p->y, h[i]) || h[i] <= 0 || !svg_ok(&p->x, edges[i]) ||
        !svg_ok(&p->x, edges[i + 1]))
      continue;
    xa = svg_px(p, edges[i]);
    xb = svg_px(p, edges[i + 1]);
    ya = svg_py(p, h[i]);
    yb = svg_py(p, base);
    if (ya > yb) continue; /* below the floor */
    fprintf(p->f,
            "<rect clip-path=\"url(#area%d)\" x=\"%.2f\" y=\"%.2f\" "
            "width=\"%.2f\" height=\"%.2f\" fill=\"%s\" fill-opacity=\"0.55\" "
            "stroke=\"%s\" stroke-width=\"0.4\"/>\n",
            p->id, xa, ya, xb - xa, yb - ya, color, color);
  }
}

/* Viridis, by linear interpolation between nine of its colours. */
static void svg_viridis(double t, char out[8]) {
  static const unsigned char c[9][3] = {
      {68, 1, 84},    {71, 45, 123},  {59, 82, 139},
      {44, 114, 142}, {33, 145, 140}, {40, 174, 128},
      {94, 201, 98},  {173, 220, 48}, {253, 231, 37}};
  double s;
  int i, k, rgb[3];
  if (!(t > 0)) t = 0;
  if (t > 1) t = 1;
  s = t * 8;
  i = (int)s;
  if (i > 7) i = 7;
  s -= i;
  for (k = 0; k < 3; ++k)
    rgb[k] = (int)(c[i][k] + (c[i + 1][k] - c[i][k]) * s + 0.5);
  snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/* Points coloured by v on [vlo, vhi] (viridis), or all in `color` when v is
   NULL. */
static void svg_points(svg_plot *p, const double *x, const double *y,
                       const double *v, int n, double vlo, double vhi,
                       const char *color, double r) {
  int i;
  char col[8];
  for (i = 0; i < n; ++i) {
    if (!svg_ok(&p->x, x[i]) || !svg_ok(&p->y, y[i])) continue;
    if (v) svg_viridis(vhi > vlo ? (v[i] - vlo) / (vhi - vlo) : 0, col);
    fprintf(p->f,
            "<circle clip-path=\"url(#area%d)\" cx=\"%.1f\" cy=\"%.1f\" "
            "r=\"%g\" fill=\"%s\" fill-opacity=\"0.75\"/>\n",
            p->id, svg_px(p, x[i]), svg_py(p, y[i]), r, v ? col : color);
  }
}

/* A vertical colour bar in the right margin (set mr >= 90 before
   svg_axes). */
static void svg_colorbar(svg_plot *p, double vlo, double vhi,
                         const char *label) {
  FILE *f = p->f;
  double x = svg_right(p) + 16, y0 = svg_bottom(p), y1 = svg_top(p),
         hgt = y0 - y1;
  int i, steps = 64;
  char col[8];
  for (i = 0; i < steps; ++i) {
    svg_viridis((i + 0.5) / steps, col);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.2f\" width=\"14\" height=\"%.2f\" "
            "fill=\"%s\"/>\n",
            x, y0 - hgt * (i + 1) / steps, hgt / steps + 0.3, col);
  }
  fprintf(f,
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"%.1f\" "
          "fill=\"none\" stroke=\"black\"/>\n",
          x, y1, hgt);
  { /* round values, as on a linear axis (not the quarters of the range) */
    svg_axis a = {0, 0, 0, NULL};
    double t[32];
    int major[32], n;
    a.lo = vlo;
    a.hi = vhi;
    n = vhi > vlo ? svg_ticks(&a, t, major, 32) : 0;
    if (n > 6) { /* the colorbar is short: every other one */
      int k, m = 0;
      for (k = 0; k < n; k += 2) t[m++] = t[k];
      n = m;
    }
    for (i = 0; i < n; ++i)
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%g</text>\n", x + 18,
              y0 - hgt * (t[i] - vlo) / (vhi - vlo) + 4, t[i]);
    if (!n) fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%g</text>\n", x + 18, y0 + 4, vlo);
  }
  if (label) {
    fprintf(f,
            "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
            "text-anchor=\"middle\">",
            p->ox + p->w - 8, (y0 + y1) / 2);
    svg_text(f, label);
    fputs("</text>\n", f);
  }
}

/* A short text at data coordinates, moved by (dx, dy) px; anchor is
   "start", "middle" or "end". */
static void svg_note(svg_plot *p, double x, double y, double dx, double dy,
                     const char *anchor, const char *color, const char *s) {
  if (!svg_ok(&p->x, x) || !svg_ok(&p->y, y)) return;
  fprintf(p->f,
          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"10\" "
          "fill=\"%s\">",
          svg_px(p, x) + dx, svg_py(p, y) + dy, anchor, color);
  svg_text(p->f, s);
  fputs("</text>\n", p->f);
}

/* A legend entry of the figure (each label and kind once); drawn below
   the axes by svg_fig_close. */
static void svg_legend(svg_plot *p, const char *label, const char *color,
                       int kind) {
  svg_fig *g = p->fig;
  int i;
  for (i = 0; i < g->nlegend; ++i)
    if (!strcmp(g->leg_label[i], label) && g->leg_kind[i] == kind) return;
  if (g->nlegend == SVG_MAXLEG) return;
  snprintf(g->leg_label[g->nlegend], sizeof g->leg_label[0], "%s", label);
  g->leg_color[g->nlegend] = color;
  g->leg_kind[g->nlegend++] = kind;
}

/* Ends a panel; the figure of svg_open ends with it. */
static void svg_close(svg_plot *p) {
  if (p->fig == &p->own) svg_fig_close(&p->own);
}

#endif /* LA_SVG_H */
