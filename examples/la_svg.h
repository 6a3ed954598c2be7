/* la_svg.h - small SVG figures for examples/linattn.c: line plots on linear
   or logarithmic axes with bands, histograms with a curve over them, scatter
   plots coloured by a value with a colour bar, ticks, labels and legends.
   Plain C99 and stdio; the caller owns the FILE and the data.

   One figure: svg_open (title, axes), svg_axes, then any of svg_band,
   svg_line, svg_bars, svg_points, svg_legend, svg_colorbar, and svg_close.
   Points that a log axis cannot show (x <= 0) and non-finite values are
   skipped; a line is broken there. */
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

#define SVG_GX 24 /* occupancy grid over the plotting area */
#define SVG_GY 16
#define SVG_MAXLEG 16
typedef struct svg_plot {
  FILE *f;
  double w, h;             /* canvas in px */
  double ml, mr, mt, mb;   /* margins around the plotting area */
  svg_axis x, y;
  int nlegend;
  /* the legend is drawn by svg_close in the corner with the least ink */
  char leg_label[SVG_MAXLEG][128];
  const char *leg_color[SVG_MAXLEG];
  int leg_kind[SVG_MAXLEG];
  unsigned char occ[SVG_GY][SVG_GX];
} svg_plot;

/* Colours that stay apart for colour-blind readers (Okabe-Ito). */
static const char *const svg_palette[] = {"#0072B2", "#D55E00", "#009E73",
                                          "#CC79A7", "#E69F00", "#56B4E9",
                                          "#F0E442", "#000000"};
#define SVG_NPALETTE 8

static void svg_text(FILE *f, const char *s) {
  for (; s && *s; ++s) {
    if (*s == '&') fputs("&amp;", f);
    else if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else if (*s == '"') fputs("&quot;", f);
    else fputc(*s, f);
  }
}

/* The width of a linear axis, halved: finite for any finite ends (the
   whole width of [-DBL_MAX, DBL_MAX] is not). */
static double svg_half_width(const svg_axis *a) { return a->hi * 0.5 - a->lo * 0.5; }

/* Where v lies along the axis, 0 at lo and 1 at hi. */
static double svg_t(const svg_axis *a, double v) {
  if (a->log) return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
  return (v * 0.5 - a->lo * 0.5) / svg_half_width(a);
}
static int svg_ok(const svg_axis *a, double v) {
  return isfinite(v) && (!a->log || v > 0);
}
/* A pixel coordinate: far outside the canvas is clamped (the frame's clip
   hides it), so that no value, however far off the axis, prints as a
   number of hundreds of digits. */
static double svg_clamp_px(double v, double size) {
  return v < -10 * size ? -10 * size : v > 11 * size ? 11 * size : v;
}
static double svg_px(const svg_plot *p, double x) {
  return svg_clamp_px(p->ml + svg_t(&p->x, x) * (p->w - p->ml - p->mr), p->w);
}
static double svg_py(const svg_plot *p, double y) {
  return svg_clamp_px(p->h - p->mb - svg_t(&p->y, y) * (p->h - p->mt - p->mb), p->h);
}

/* An axis every finite value can be placed on: finite ends (positive for
   a log axis) with lo < hi, widened around its middle where narrower than
   a %g label can tell apart (a degenerate spectrum, one value). */
static void svg_axis_fix(svg_axis *a) {
  if (a->log) {
    double l0, l1, mid;
    if (!(a->lo > 0 && a->lo <= DBL_MAX)) a->lo = a->lo > DBL_MAX ? DBL_MAX : DBL_MIN;
    if (!(a->hi > 0 && a->hi <= DBL_MAX)) a->hi = a->hi > 0 ? DBL_MAX : DBL_MIN;
    l0 = log10(a->lo);
    l1 = log10(a->hi);
    if (l1 - l0 > 1e-9) return;
    mid = (l0 > l1 ? l0 : l1) * 0.5 + (l0 > l1 ? l1 : l0) * 0.5;
    if (mid > 307.5) mid = 307.5; /* 10^(mid + 0.5) finite */
    if (mid < -307.5) mid = -307.5; /* 10^(mid - 0.5) normal */
    a->lo = pow(10, mid - 0.5);
    a->hi = pow(10, mid + 0.5);
  } else {
    double mid, pad;
    if (!isfinite(a->lo)) a->lo = a->lo > 0 ? DBL_MAX : -DBL_MAX;
    if (!isfinite(a->hi)) a->hi = a->hi > 0 ? DBL_MAX : -DBL_MAX;
    mid = a->lo * 0.5 + a->hi * 0.5;
    if (a->hi > a->lo && svg_half_width(a) > 5e-10 * fabs(mid)) return;
    pad = fabs(mid) > 1e-300 ? fabs(mid) * 0.1 : 1;
    a->lo = mid - pad;
    a->hi = mid + pad;
  }
}

/* Marks the grid cell under pixel (px, py) as inked. */
static void svg_mark(svg_plot *p, double px, double py) {
  double u = (px - p->ml) / (p->w - p->ml - p->mr);
  double v = (py - p->mt) / (p->h - p->mt - p->mb);
  int i, j;
  if (!(u >= 0 && u < 1 && v >= 0 && v < 1)) return;
  i = (int)(v * SVG_GY);
  j = (int)(u * SVG_GX);
  p->occ[i][j] = 1;
}
/* Marks the cells along a segment, and optionally everything below or
   between (a band or a bar: x0 == x1, from y0 to y1). */
static void svg_mark_seg(svg_plot *p, double x0, double y0, double x1,
                         double y1) {
  int k, steps = 24;
  for (k = 0; k <= steps; ++k)
    svg_mark(p, x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps);
}

/* A range covering the finite values (positive ones for a log axis), with
   a margin; lo == hi is widened. Returns 0 when no value can be shown. */
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
    if (lb - la < 1e-9) pad = 0.5;
    *lo = pow(10, la - pad);
    *hi = pow(10, lb + pad);
    if (!(*lo > 0)) *lo = a;
    if (!(*hi <= DBL_MAX)) *hi = b;
  } else { /* the width may exceed DBL_MAX: the margin from its halves */
    double pad = (b * 0.5 - a * 0.5) * 0.1;
    if (b - a < 1e-300) pad = fabs(a) > 0 ? fabs(a) * 0.1 : 1;
    *lo = a - pad;
    *hi = b + pad;
    if (!isfinite(*lo)) *lo = a;
    if (!isfinite(*hi)) *hi = b;
  }
  return 1;
}

static void svg_open(svg_plot *p, FILE *f, double w, double h,
                     const char *title, svg_axis x, svg_axis y) {
  memset(p, 0, sizeof *p);
  p->f = f;
  p->w = w;
  p->h = h;
  p->ml = 78;
  p->mr = 24;
  p->mt = title && *title ? 36 : 16;
  p->mb = 52;
  p->x = x;
  p->y = y;
  svg_axis_fix(&p->x);
  svg_axis_fix(&p->y);
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
          "height=\"%g\" viewBox=\"0 0 %g %g\" font-family=\"DejaVu Sans, "
          "Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
          w, h, w, h);
  if (title && *title) {
    fprintf(f,
            "<text x=\"%g\" y=\"22\" text-anchor=\"middle\" "
            "font-size=\"14\" font-weight=\"bold\">",
            (p->ml + w - p->mr) / 2);
    svg_text(f, title);
    fputs("</text>\n", f);
  }
}

/* Tick values of an axis into t (at most cap), with minor ones for a log
   axis flagged in major[] = 0. */
static int svg_ticks(const svg_axis *a, double *t, int *major, int cap) {
  int n = 0;
  if (a->log) {
    double l0 = floor(log10(a->lo)), l1 = ceil(log10(a->hi)), e;
    int span = (int)(l1 - l0), every = span > 10 ? (span + 9) / 10 : 1;
    for (e = l0; e <= l1 && n < cap; e += 1) {
      int m;
      for (m = 1; m <= 9 && n < cap; ++m) {
        double v = (double)m * pow(10, e);
        int is_major = m == 1 && ((int)(e - l0)) % every == 0;
        int keep = is_major || (span <= 2 && (m == 2 || m == 5)) ||
                   (span <= 5 && m != 1);
        if (v < a->lo * (1 - 1e-12) || v > a->hi * (1 + 1e-12) || !keep)
          continue;
        t[n] = v;
        major[n++] = is_major || span <= 1;
      }
    }
    { /* fewer than two labels: label 2 and 5 as well */
      int k, majors = 0;
      for (k = 0; k < n; ++k) majors += major[k];
      if (majors < 2)
        for (k = 0; k < n; ++k) {
          double m = t[k] / pow(10, floor(log10(t[k]) + 1e-9));
          if (fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6 || fabs(m - 1) < 1e-6)
            major[k] = 1;
        }
    }
  } else {
    double raw = svg_half_width(a) / 3, mag = pow(10, floor(log10(raw)));
    double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag
                : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    double v = ceil(a->lo / step) * step;
    for (; v <= a->hi + step * 1e-9 && n < cap; v += step) {
      t[n] = fabs(v) < step * 1e-9 ? 0 : v;
      major[n++] = 1;
    }
  }
  return n;
}

/* A tick label: %g on a linear axis, 10^k (or m x 10^k) on a log one. */
static void svg_tick_label(FILE *f, const svg_axis *a, double v) {
  if (a->log) {
    double e = floor(log10(v) + 1e-9), m = v / pow(10, e);
    if (e >= -2 && e <= 3) {
      fprintf(f, "%g", v);
      return;
    }
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
  double x0 = p->ml, x1 = p->w - p->mr, y0 = p->h - p->mb, y1 = p->mt;
  double t[128];
  int major[128], n, i;
  /* grid and ticks */
  n = svg_ticks(&p->x, t, major, 128);
  for (i = 0; i < n; ++i) {
    double px = svg_px(p, t[i]);
    svg_seg(f, px, y0, px, y1, "#e4e4e4");
    svg_seg(f, px, y0, px, y0 + (major[i] ? 5 : 3), "black");
    if (major[i]) {
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px,
              y0 + 18);
      svg_tick_label(f, &p->x, t[i]);
      fputs("</text>\n", f);
    }
  }
  n = svg_ticks(&p->y, t, major, 128);
  for (i = 0; i < n; ++i) {
    double py = svg_py(p, t[i]);
    svg_seg(f, x0, py, x1, py, "#e4e4e4");
    svg_seg(f, x0 - (major[i] ? 5 : 3), py, x0, py, "black");
    if (major[i]) {
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 8,
              py + 4);
      svg_tick_label(f, &p->y, t[i]);
      fputs("</text>\n", f);
    }
  }
  fprintf(f,
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          "fill=\"none\" stroke=\"black\"/>\n",
          x0, y1, x1 - x0, y0 - y1);
  if (p->x.label) {
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            (x0 + x1) / 2, p->h - 12);
    svg_text(f, p->x.label);
    fputs("</text>\n", f);
  }
  if (p->y.label) {
    fprintf(f,
            "<text transform=\"translate(18,%.1f) rotate(-90)\" "
            "text-anchor=\"middle\">",
            (y0 + y1) / 2);
    svg_text(f, p->y.label);
    fputs("</text>\n", f);
  }
  /* everything drawn later stays inside the frame */
  fprintf(f,
          "<clipPath id=\"area\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
          "height=\"%.1f\"/></clipPath>\n",
          x0, y1, x1 - x0, y0 - y1);
}

/* A polyline through the points that can be shown; dash 0 = solid. */
static void svg_line(svg_plot *p, const double *x, const double *y, int n,
                     const char *color, double width, int dash) {
  int i, open = 0;
  for (i = 0; i < n; ++i) {
    if (!svg_ok(&p->x, x[i]) || !svg_ok(&p->y, y[i])) {
      if (open) fputs("\"/>\n", p->f);
      open = 0;
      continue;
    }
    if (!open) {
      fprintf(p->f,
              "<polyline clip-path=\"url(#area)\" fill=\"none\" "
              "stroke=\"%s\" stroke-width=\"%g\"%s points=\"",
              color, width, dash ? " stroke-dasharray=\"6 4\"" : "");
      open = 1;
    }
    fprintf(p->f, "%.1f,%.1f ", svg_px(p, x[i]), svg_py(p, y[i]));
    if (open > 1)
      svg_mark_seg(p, svg_px(p, x[i - 1]), svg_py(p, y[i - 1]),
                   svg_px(p, x[i]), svg_py(p, y[i]));
    else
      svg_mark(p, svg_px(p, x[i]), svg_py(p, y[i]));
    open = 2;
  }
  if (open) fputs("\"/>\n", p->f);
}

/* The area between lo and hi (same x). */
static void svg_band(svg_plot *p, const double *x, const double *lo,
                     const double *hi, int n, const char *color,
                     double opacity) {
  int i, start = 0;
  while (start < n) {
    int end = start;
    while (end < n && svg_ok(&p->x, x[end]) && svg_ok(&p->y, lo[end]) &&
           svg_ok(&p->y, hi[end]))
      ++end;
    if (end - start >= 2) {
      fprintf(p->f,
              "<polygon clip-path=\"url(#area)\" fill=\"%s\" "
              "fill-opacity=\"%g\" stroke=\"none\" points=\"",
              color, opacity);
      for (i = start; i < end; ++i) {
        fprintf(p->f, "%.1f,%.1f ", svg_px(p, x[i]), svg_py(p, hi[i]));
        svg_mark_seg(p, svg_px(p, x[i]), svg_py(p, hi[i]), svg_px(p, x[i]),
                     svg_py(p, lo[i]));
      }
      for (i = end - 1; i >= start; --i)
        fprintf(p->f, "%.1f,%.1f ", svg_px(p, x[i]), svg_py(p, lo[i]));
      fputs("\"/>\n", p->f);
    }
    start = end + 1;
  }
}

/* Histogram bars: bin i spans edges[i] .. edges[i+1], height h[i]. */
static void svg_bars(svg_plot *p, const double *edges, const double *h,
                     int nbins, const char *color) {
  int i;
  double base = p->y.log ? p->y.lo : (p->y.lo > 0 ? p->y.lo : 0);
  for (i = 0; i < nbins; ++i) {
    double xa, xb, ya, yb;
    if (!svg_ok(&p->y, h[i]) || h[i] <= 0) continue;
    xa = svg_px(p, edges[i]);
    xb = svg_px(p, edges[i + 1]);
    ya = svg_py(p, h[i]);
    yb = svg_py(p, base);
    fprintf(p->f,
            "<rect clip-path=\"url(#area)\" x=\"%.2f\" y=\"%.2f\" "
            "width=\"%.2f\" height=\"%.2f\" fill=\"%s\" fill-opacity=\"0.55\" "
            "stroke=\"%s\" stroke-width=\"0.4\"/>\n",
            xa, ya, xb - xa, yb - ya, color, color);
    svg_mark_seg(p, (xa + xb) / 2, ya, (xa + xb) / 2, yb);
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
            "<circle clip-path=\"url(#area)\" cx=\"%.1f\" cy=\"%.1f\" "
            "r=\"%g\" fill=\"%s\" fill-opacity=\"0.8\"/>\n",
            svg_px(p, x[i]), svg_py(p, y[i]), r, v ? col : color);
    svg_mark(p, svg_px(p, x[i]), svg_py(p, y[i]));
  }
}

/* A vertical colour bar in the right margin (open the plot with mr >= 90). */
static void svg_colorbar(svg_plot *p, double vlo, double vhi,
                         const char *label) {
  FILE *f = p->f;
  double x = p->w - p->mr + 16, y0 = p->h - p->mb, y1 = p->mt, hgt = y0 - y1;
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
  for (i = 0; i <= 4; ++i) {
    double v = vlo + (vhi - vlo) * i / 4, py = y0 - hgt * i / 4;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%g</text>\n", x + 18, py + 4, v);
  }
  if (label) {
    fprintf(f,
            "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
            "text-anchor=\"middle\">",
            p->w - 8, (y0 + y1) / 2);
    svg_text(f, label);
    fputs("</text>\n", f);
  }
}

/* A legend entry; kind: 0 line, 1 dashed line, 2 box, 3 dot. The entries
   are drawn together by svg_close. */
static void svg_legend(svg_plot *p, const char *label, const char *color,
                       int kind) {
  if (p->nlegend == SVG_MAXLEG) return;
  snprintf(p->leg_label[p->nlegend], sizeof p->leg_label[0], "%s", label);
  p->leg_color[p->nlegend] = color;
  p->leg_kind[p->nlegend++] = kind;
}

/* Width of a label in px: a DejaVu Sans 12 px average, UTF-8 aware. */
static double svg_text_width(const char *s) {
  double w = 0;
  for (; *s; ++s)
    if (((unsigned char)*s & 0xc0) != 0x80) w += 6.9;
  return w;
}

/* Inked cells under a box of the plotting area (pixels). */
static int svg_ink(const svg_plot *p, double x0, double y0, double x1,
                   double y1) {
  double cw = (p->w - p->ml - p->mr) / SVG_GX, ch = (p->h - p->mt - p->mb) / SVG_GY;
  int i, j, n = 0;
  for (i = 0; i < SVG_GY; ++i)
    for (j = 0; j < SVG_GX; ++j) {
      double cx = p->ml + (j + 0.5) * cw, cy = p->mt + (i + 0.5) * ch;
      if (cx >= x0 - cw / 2 && cx <= x1 + cw / 2 && cy >= y0 - ch / 2 &&
          cy <= y1 + ch / 2)
        n += p->occ[i][j];
    }
  return n;
}

static void svg_draw_legend(svg_plot *p) {
  FILE *f = p->f;
  double wmax = 0, bw, bh, bx = 0, by = 0;
  int i, best = -1, corner;
  if (!p->nlegend) return;
  for (i = 0; i < p->nlegend; ++i)
    wmax = fmax(wmax, svg_text_width(p->leg_label[i]));
  bw = 30 + wmax + 14;
  bh = 18.0 * p->nlegend + 8;
  for (corner = 0; corner < 4; ++corner) { /* TR, TL, BR, BL */
    double x = corner % 2 ? p->ml + 8 : p->w - p->mr - 8 - bw;
    double y = corner < 2 ? p->mt + 8 : p->h - p->mb - 8 - bh;
    int ink = svg_ink(p, x, y, x + bw, y + bh);
    if (best < 0 || ink < best) {
      best = ink;
      bx = x;
      by = y;
    }
  }
  fprintf(f,
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          "fill=\"white\" fill-opacity=\"0.85\" stroke=\"#bbbbbb\"/>\n",
          bx, by, bw, bh);
  for (i = 0; i < p->nlegend; ++i) {
    double x = bx + 6, y = by + 18 + 18 * i;
    const char *color = p->leg_color[i];
    int kind = p->leg_kind[i];
    if (kind <= 1)
      fprintf(f,
              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
              "stroke=\"%s\" stroke-width=\"2.5\"%s/>\n",
              x, y - 4, x + 24, y - 4, color,
              kind ? " stroke-dasharray=\"6 4\"" : "");
    else if (kind == 2)
      fprintf(f,
              "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"10\" "
              "fill=\"%s\" fill-opacity=\"0.55\"/>\n",
              x, y - 9, color);
    else
      fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
              x + 12, y - 4, color);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 30, y);
    svg_text(f, p->leg_label[i]);
    fputs("</text>\n", f);
  }
}

static void svg_close(svg_plot *p) {
  svg_draw_legend(p);
  fputs("</svg>\n", p->f);
}

#endif /* LA_SVG_H */
