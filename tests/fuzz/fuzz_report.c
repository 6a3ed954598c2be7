/* libFuzzer harness of the linattn command's `report` path: the input is
   the bytes of one JSON-lines file, read as a stream (runs_read_stream, as
   `report FILE` reads it), its runs grouped into configurations
   (report_take), then report.md written and the figures drawn into memory
   (report_write, report_curves, draw_curves). Checked besides not
   crashing, leaking or running into undefined behaviour:
     - the status is one of the table's (0, 2 bad input, 4 out of memory),
       and bad input comes with a one-line message of printable text;
     - every run read is in exactly one configuration;
     - report.md and the SVGs are text without control characters (a table
       row or a legend cannot be broken by what a file says), and each SVG
       ends its <svg> element;
     - every coordinate of an SVG is a number of a few digits (no NaN or
       Inf, whatever extreme values the runs hold).
   The seed corpus (tests/fuzz/corpus/report/) is real train output.

   clang -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_report.c -lm */
#define _POSIX_C_SOURCE 200809L /* as the command defines it, before any header */
#include <stdint.h>

/* the command itself, its main renamed: the harness calls its parts */
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#define main linattn_main
#include "../../cli/main.c"
#undef main

#include "fuzz_util.h"

/* Text as report writes it: printable UTF-8, newlines, nothing else. */
static int fz_clean_text(const char *s, size_t n) {
  size_t i = 0, k;
  while (i < n) {
    if (s[i] == '\n') {
      ++i;
      continue;
    }
    if (!s[i] || !(k = u_utf8_printable((const unsigned char *)s + i)) || i + k > n)
      return 0;
    i += k;
  }
  return 1;
}

/* Every coordinate and size of an SVG is a number of a few digits: no
   NaN, no Inf, none of hundreds of digits, whatever values the runs hold. */
static int fz_svg_numbers(const char *svg) {
  static const char *const attrs[] = {" points=\"", " x=\"", " y=\"", " x1=\"", " y1=\"",
                                      " x2=\"", " y2=\"", " cx=\"", " cy=\"", " r=\"",
                                      " width=\"", " height=\""};
  size_t a;
  for (a = 0; a < sizeof attrs / sizeof attrs[0]; ++a) {
    const char *p = svg;
    while ((p = strstr(p, attrs[a])) != NULL) {
      int digits = 0;
      for (p += strlen(attrs[a]); *p && *p != '"'; ++p) {
        if (!strchr("0123456789.-, %", *p)) return 0;
        digits = *p >= '0' && *p <= '9' ? digits + 1 : 0;
        if (digits > 7) return 0;
      }
    }
  }
  return 1;
}

/* Draws figure fi of R into memory and checks the text. */
static void fz_figure(const report *R, char (*labels)[512], int fi) {
  curve cs[REPORT_DRAWN];
  curves_fig cf;
  char *svg = NULL;
  size_t len = 0;
  int g, any = report_curves(R, labels, fi, cs, &cf);
  if (any > 0) {
    FILE *m = open_memstream(&svg, &len);
    if (m) {
      draw_curves(m, &cf);
      if (fclose(m) == 0) {
        FZ_CHECK(fz_clean_text(svg, len), "figure %d: a control character", fi);
        FZ_CHECK(len > 6 && strstr(svg, "</svg>"), "figure %d: not closed", fi);
        FZ_CHECK(fz_svg_numbers(svg), "figure %d: a coordinate not a short number", fi);
      }
      free(svg);
    }
  }
  for (g = 0; g < REPORT_DRAWN; ++g) band_free(&cs[g].b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  report R;
  char err[U_QCAP + 200], *md = NULL;
  size_t len = 0;
  long runs = 0;
  int st, g;
  FILE *f;
  char *copy;
  if (size == 0) return 0; /* fmemopen takes no empty buffer */
  /* a copy: fmemopen takes a buffer it may write, and the input is const */
  if (!(copy = (char *)malloc(size))) return 0;
  memcpy(copy, data, size);
  if (!(f = fmemopen(copy, size, "r"))) {
    free(copy);
    return 0;
  }
  memset(&R, 0, sizeof R);
  err[0] = 0;
  st = runs_read_stream(f, "fuzz.jsonl", report_take, &R, err, sizeof err);
  (void)fclose(f);
  free(copy);
  FZ_CHECK(st == 0 || st == EXIT_BAD_INPUT || st == EXIT_NOMEM, "status %d", st);
  if (st == EXIT_BAD_INPUT) { /* the reader's message, or report_take's */
    const char *why = err[0] ? err : R.why;
    FZ_CHECK(why[0] && fz_clean_text(why, strlen(why)) && !strchr(why, '\n'),
             "bad input without a one-line message: %s", why);
  }
  for (g = 0; g < R.ng; ++g) {
    int i;
    FZ_CHECK(R.g[g].n > 0, "an empty configuration");
    for (i = 0; i < R.g[g].n; ++i)
      FZ_CHECK(g < REPORT_DRAWN || R.g[g].runs[i]->f[F_EVAL].n == 0,
               "curves kept of a configuration no figure shows");
    runs += R.g[g].n;
  }
  FZ_CHECK(runs == R.nruns, "%ld runs grouped, %ld read", runs, R.nruns);
  if (st == 0 && R.nruns > 0) {
    FILE *m = open_memstream(&md, &len);
    if (m) {
      st = report_write(&R, m, NULL);
      if (fclose(m) == 0 && st == 0)
        FZ_CHECK(fz_clean_text(md, len), "report.md: a control character");
      free(md);
    }
    if (st == 0) {
      char (*labels)[512] = (char(*)[512])calloc((size_t)R.ng + 1, 512);
      int fi;
      if (labels) {
        char common[4096];
        group_labels(&R, labels, common, sizeof common);
        for (fi = 0; fi < REPORT_NFIGS; ++fi) fz_figure(&R, labels, fi);
        free(labels);
      }
    }
  }
  report_free(&R);
  return 0;
}
