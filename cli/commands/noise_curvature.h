/* cli/commands/noise_curvature.h - `linattn noise` and `linattn curvature`:
   measurements of a model at its initialization (--seed) or at a
   checkpoint (--at FILE), each one JSON object to --out and a figure to
   --svg. noise: paper A's gradient noise, the norms of minibatch gradient
   minus full gradient (reproduce measures it too, through measure_noise
   and draws it through draw_noise). curvature: the Hessian's spectrum. */
#ifndef LINATTN_NOISE_CURVATURE_H
#define LINATTN_NOISE_CURVATURE_H

#include "../io/svg.h"
#include "../common.h"
#include "../io/npy.h"
#include "../study/runs.h"
#include "train.h"

/* ------------------------------------------------------------ both */
/* noise's and curvature's outputs, checked before anything is read or
   written (check_outputs); curvature takes no --samples-out. */
static int measure_outputs(const cli_config *c) {
  u_path outs[3] = {{"--out", NULL}, {"--svg", NULL}, {"--samples-out", NULL}};
  u_path in = {"--at", NULL};
  outs[0].path = c->out;
  outs[1].path = c->svg;
  outs[2].path = c->opts.measure.samples_out;
  in.path = c->opts.measure.at;
  return check_outputs(outs, 0, &in, 0);
}

/* The run of a measurement (its data, its model) and its theta: initial
   (from the seed, as train starts, or --init-theta) or that of the
   checkpoint `at`; what --data-file, --init-theta and --diag-file give
   into *g, which the run reads (the caller frees it after the run). */
static int load_theta(const cli_config *c, const char *at, la_run *r,
                      la_pool **pool, long *step, given_in *g) {
  cli_config fc = *c; /* with what the given files decide */
  la_run_config rc;
  la_run_env env;
  ckpt_in in;
  int st;
  memset(r, 0, sizeof *r);
  memset(&rc, 0, sizeof rc);
  memset(&in, 0, sizeof in);
  memset(&env, 0, sizeof env);
  *step = 0;
  if ((st = given_pre(&fc, g)) != 0 || (st = resolve_run(&fc, at, &rc, &in)) != 0 ||
      (st = given_post(&fc, &rc, g)) != 0) {
    ckpt_free(&in);
    given_free(g);
    return st;
  }
  if (in.v1) { /* the model's shape from the file itself */
    la_model_config mc;
    if ((st = la_checkpoint_info(in.buf, in.len, &mc, NULL)) != 0) { /* checked */
      ckpt_free(&in);
      return u_fail(exit_of_status(st), "%s: %s", U_Q(at), la_status_str(st));
    }
    /* given, zeros included (a zero written into the struct would be the
       setting's value) */
    static const char *const keys[] = {"d", "n", "depth", "param", "attention",
                                       "front", "init_std"};
    const double v[] = {mc.d, mc.n, mc.layers, mc.param, mc.activation,
                        mc.front_hidden, mc.init_std};
    size_t k;
    for (k = 0; k < sizeof keys / sizeof keys[0]; ++k)
      (void)la_run_field_set(&rc, la_run_field_find(keys[k]), v[k]);
  }
  given_env(g, &env);
  if ((st = run_make(r, &rc, &env, c->threads, pool)) == 0 && at &&
      (st = load_into(r, &in)) != 0) {
    run_free(r, *pool);
    *pool = NULL;
  }
  ckpt_free(&in);
  if (st) given_free(g);
  if (!st) *step = r->trainer.step;
  return st;
}

/* ================================================================== */
/*                              noise                                 */
/* ================================================================== */

/* noise --samples-out: the raw samples, FILE.npy (float64) or a CSV column. */
static int write_samples(const char *path, const double *v, int n) {
  size_t len = strlen(path);
  u_out o;
  int st = u_open(&o, path), bad;
  if (st) return st;
  if (len > 4 && !strcmp(path + len - 4, ".npy")) bad = npy_write_vector(o.f, v, n);
  else bad = csv_write_column(o.f, "norm", v, n);
  if (bad) {
    int e = errno;
    u_abort(&o);
    return u_fail(u_exit_of_errno(e, EXIT_IO), "cannot write %s: %s", U_Q(path), strerror(e));
  }
  return u_commit(&o);
}

/* The gradient-noise histogram at theta: one JSON object (and the raw
   samples to samples_out, unless NULL). */
/* The reference of paper A's heavy-tail claim: the norm of Gaussian noise
   with the measured covariance. The covariance of a minibatch gradient
   is C / B, C that of one prompt's gradient, estimated here from
   NOISE_REF_PROMPTS further prompts' gradients (fresh, drawn after the
   samples); the reference norms are ||e||, e ~ N(0, C / B), as
   sqrt(sum_i lambda_i z_i^2 / B) over C's eigenvalues, NOISE_REF_DRAWS of
   them, scaled so that their median is the samples' (the shape of the
   covariance from the prompts, its scale from the samples' bulk). The test: the share of the measured norms above the reference's
   NOISE_REF_Q quantile against the 1 - NOISE_REF_Q a sample of the
   reference puts there, its standard error binomial over both counts
   (the samples' and the draws'). Heavy when the share exceeds 1 -
   NOISE_REF_Q by more than NOISE_REF_Z standard errors. Not taken for a
   model of more than NOISE_REF_MAXP parameters (its covariance's size). */
#define NOISE_REF_PROMPTS 4000
#define NOISE_REF_DRAWS 20000
#define NOISE_REF_Q 0.99
#define NOISE_REF_Z 3.0
#define NOISE_REF_MAXP 1024
typedef struct noise_ref {
  int ok;               /* taken */
  double q, share, se;  /* the quantile, the measured share above it, its se */
  double kurtosis;      /* the reference norms' kurtosis */
  double scale;         /* the samples' median over the unscaled reference's */
  int heavy;
} noise_ref;

static double kurtosis_of(const double *v, int n) {
  double m = 0, m2 = 0, m4 = 0;
  int i;
  for (i = 0; i < n; ++i) m += v[i];
  m /= n;
  for (i = 0; i < n; ++i) {
    double u = (v[i] - m) * (v[i] - m);
    m2 += u;
    m4 += u * u;
  }
  m2 /= n;
  m4 /= n;
  return m2 > 0 ? m4 / (m2 * m2) : NAN;
}

/* The reference and its test for the samples norms[0..ns) of minibatches
   of `mb` prompts, further prompts drawn from rng; LA status. */
static int noise_reference(const la_run *r, const la_real *theta, la_rng *rng, int mb,
                           const double *norms, int ns, noise_ref *out) {
  const la_model *m = &r->model;
  int p = m->nparams, i, j, k, st = 0, above = 0;
  size_t wb = la_model_work_bytes(m), eb = la_sym_eig_work_bytes(p);
  double *C, *mean, *lam, *ref, loss, pe = 1 - NOISE_REF_Q;
  la_real *g;
  void *work;
  memset(out, 0, sizeof *out);
  if (p > NOISE_REF_MAXP) return LA_OK;
  C = (double *)calloc((size_t)p * (size_t)p, sizeof(double));
  mean = (double *)calloc((size_t)p, sizeof(double));
  lam = (double *)malloc(sizeof(double) * (size_t)p);
  ref = (double *)malloc(sizeof(double) * NOISE_REF_DRAWS);
  g = (la_real *)malloc(sizeof(la_real) * (size_t)p);
  work = malloc((wb > eb ? wb : eb) + 1);
  if (!C || !mean || !lam || !ref || !g || !work) st = LA_ENOMEM;
  /* one prompt's gradient, NOISE_REF_PROMPTS times: the covariance by
     Welford's update (mean, then the outer products of the deviations) */
  for (k = 0; k < NOISE_REF_PROMPTS && !st; ++k) {
    st = la_model_grad_fresh(m, theta, &r->data, rng, 1, &loss, g, work, wb);
    for (i = 0; i < p && !st; ++i) lam[i] = (double)g[i] - mean[i]; /* before */
    for (i = 0; i < p && !st; ++i) mean[i] += lam[i] / (k + 1);
    for (i = 0; i < p && !st; ++i) {
      double after = (double)g[i] - mean[i];
      for (j = 0; j < p; ++j) C[(size_t)i * (size_t)p + (size_t)j] += after * lam[j];
    }
  }
  if (!st) {
    for (i = 0; i < p; ++i) /* symmetric as the update is in exact arithmetic */
      for (j = 0; j <= i; ++j) {
        double v = (C[(size_t)i * (size_t)p + (size_t)j] + C[(size_t)j * (size_t)p + (size_t)i]) /
                   (2.0 * (NOISE_REF_PROMPTS - 1));
        C[(size_t)i * (size_t)p + (size_t)j] = C[(size_t)j * (size_t)p + (size_t)i] = v;
      }
    st = la_sym_eig(p, C, lam, NULL, work, eb);
  }
  if (!st) {
    double med;
    for (k = 0; k < NOISE_REF_DRAWS; ++k) {
      double s2 = 0;
      for (i = 0; i < p; ++i) {
        double z = la_rng_normal(rng);
        s2 += (lam[i] > 0 ? lam[i] : 0) * z * z;
      }
      ref[k] = sqrt(s2 / mb);
    }
    /* the shape C's, the scale the samples' median: an estimate of C from
       a few thousand prompts is off in scale by a few percent (more where
       one prompt's gradient has a heavy tail), which alone would move the
       share above the quantile; the median is not the tail tested */
    qsort(ref, NOISE_REF_DRAWS, sizeof(double), runs_cmp_double);
    {
      double *sorted = (double *)malloc(sizeof(double) * (size_t)ns);
      if (!sorted) {
        st = LA_ENOMEM;
        goto done;
      }
      memcpy(sorted, norms, sizeof(double) * (size_t)ns);
      qsort(sorted, (size_t)ns, sizeof(double), runs_cmp_double);
      med = sorted[ns / 2];
      free(sorted);
    }
    out->scale = ref[NOISE_REF_DRAWS / 2] > 0 ? med / ref[NOISE_REF_DRAWS / 2] : NAN;
    for (k = 0; k < NOISE_REF_DRAWS; ++k) ref[k] *= out->scale;
    out->kurtosis = kurtosis_of(ref, NOISE_REF_DRAWS);
    out->q = ref[(int)(NOISE_REF_Q * NOISE_REF_DRAWS)];
    for (k = 0; k < ns; ++k) above += norms[k] > out->q;
    out->share = (double)above / ns;
    out->se = sqrt(pe * (1 - pe) * (1.0 / ns + 1.0 / NOISE_REF_DRAWS));
    out->heavy = out->share > pe + NOISE_REF_Z * out->se;
    out->ok = 1;
  }
done:
  free(C);
  free(mean);
  free(lam);
  free(ref);
  free(g);
  free(work);
  return st;
}

static int measure_noise(const cli_config *c, const char *samples_out,
                         const la_run *r, const la_real *theta, long step,
                         FILE *f, la_noise_stats *st_out, u_progress *p) {
  la_grad_noise_config g;
  la_noise_config nc;
  la_noise_stats st;
  noise_ref ref;
  la_rng rng;
  double *norms, *hist, *edges, tg;
  int s, bins = c->bins > 0 ? (int)c->bins : 100;
  jw w;
  memset(&g, 0, sizeof g);
  g.minibatch = c->minibatch > 0 ? (int)c->minibatch : 1000;
  g.true_batch = c->true_batch > 0 ? (int)c->true_batch : 100 * g.minibatch;
  g.samples = c->samples > 0 ? (int)c->samples : 10000;
  norms = (double *)malloc(sizeof(double) * (size_t)g.samples);
  hist = (double *)malloc(sizeof(double) * (size_t)bins);
  edges = (double *)malloc(sizeof(double) * (size_t)(bins + 1));
  if (!norms || !hist || !edges) {
    free(norms);
    free(hist);
    free(edges);
    return u_oom();
  }
  if (p) u_progress_step(p, 0);
  la_rng_seed(&rng, r->cfg.seed, LA_STREAM_EVAL - 3);
  s = la_grad_noise(&r->model, theta, &r->data, &rng, &g, norms, &tg, NULL, 0);
  memset(&nc, 0, sizeof nc);
  nc.bins = bins;
  if (!s) s = la_noise_summary(g.samples, norms, &nc, &st, hist, edges, NULL,
                               NULL, NULL, 0);
  if (!s) s = noise_reference(r, theta, &rng, g.minibatch, norms, g.samples, &ref);
  if (s) {
    free(norms);
    free(hist);
    free(edges);
    return u_fail(exit_of_status(s), "gradient noise: %s", la_status_str(s));
  }
  if (samples_out && (s = write_samples(samples_out, norms, g.samples)) != 0) {
    free(norms);
    free(hist);
    free(edges);
    return s;
  }
  jw_begin(&w, f);
  jw_str(&w, "type", "noise");
  cli_write_run(&w, &r->cfg);
  jw_int(&w, "step", step);
  jw_int(&w, "minibatch", g.minibatch);
  jw_int(&w, "true_batch", g.true_batch);
  jw_int(&w, "samples", g.samples);
  jw_num(&w, "true_grad_norm", tg);
  jw_num(&w, "mean", st.mean);
  jw_num(&w, "var", st.var);
  jw_num(&w, "kurtosis", st.kurtosis);
  jw_num(&w, "hill_alpha", st.hill_alpha);
  jw_num(&w, "hill_stderr", st.hill_stderr);
  jw_num(&w, "min", st.min);
  jw_num(&w, "max", st.max);
  jw_arr(&w, "hist", hist, bins);
  jw_arr(&w, "edges", edges, bins + 1);
  if (ref.ok) { /* the Gaussian reference and the tail test against it */
    jw_num(&w, "gauss_ref_q99", ref.q);
    jw_num(&w, "gauss_ref_kurtosis", ref.kurtosis);
    jw_num(&w, "gauss_ref_scale", ref.scale);
    jw_num(&w, "tail_share", ref.share);
    jw_num(&w, "tail_share_se", ref.se);
    jw_int(&w, "tail_heavy", ref.heavy);
  }
  jw_end(&w);
  if (st_out) *st_out = st;
  if (p) u_progress_step(p, p->total);
  free(norms);
  free(hist);
  free(edges);
  return 0;
}

/* A histogram of the noise norms in one panel: the density with the
   Gaussian of the same mean and variance over it, on a linear or a log
   density axis (there the Gaussian is a parabola and a heavier tail
   stands above it). */
typedef struct noise_hist {
  const double *hist, *edges;
  int bins;
  double mean, var;
} noise_hist;

static double gauss_pdf(double x, double mean, double sd) {
  double z = (x - mean) / sd;
  return exp(-0.5 * z * z) / (sd * 2.5066282746310002);
}

static void noise_panel(svg_fig *g, double x, double y, double w, double h,
                        const char *title, const noise_hist *nh, int logy) {
  svg_plot p;
  svg_axis ax = {0, 1, 0, "\xe2\x80\x96g_B \xe2\x88\x92 g\xe2\x80\x96\xe2\x82\x82 (minibatch gradient minus full gradient)"};
  svg_axis ay = {0, 1, 0, NULL};
  double xs[400], ys[400], top = 0, low = HUGE_VAL;
  double sd = sqrt(nh->var > 0 ? nh->var : 0);
  int i;
  for (i = 0; i < nh->bins; ++i)
    if (isfinite(nh->hist[i]) && nh->hist[i] > 0) {
      top = fmax(top, nh->hist[i]);
      low = fmin(low, nh->hist[i]);
    }
  ax.lo = nh->edges[0];
  ax.hi = nh->edges[nh->bins];
  if (sd > 0 && nh->mean - 3 * sd < ax.lo && nh->mean - 3 * sd > 0)
    ax.lo = nh->mean - 3 * sd;
  for (i = 0; i < 400; ++i) {
    xs[i] = ax.lo + (ax.hi - ax.lo) * i / 399.0;
    ys[i] = sd > 0 ? gauss_pdf(xs[i], nh->mean, sd) : NAN;
    if (!logy && ys[i] > top) top = ys[i];
  }
  ay.log = logy;
  ay.label = logy ? "density (log scale)" : "density";
  if (!(top > 0)) top = 1;
  /* a log axis down to a third of the lowest bar (one sample's): the
     tail's last samples stay in view */
  ay.lo = logy ? (low < top ? low / 3 : top / 100) : 0;
  ay.hi = logy ? top * 3 : top * 1.08;
  svg_panel(&p, g, x, y, w, h, title, ax, ay);
  svg_axes(&p);
  svg_bars(&p, nh->edges, nh->hist, nh->bins, svg_palette[0]);
  svg_line(&p, xs, ys, 400, svg_palette[1], 2, 0);
  svg_legend(&p, "histogram of the samples (density)", svg_palette[0], SVG_BOX);
  svg_legend(&p, "Gaussian of the same mean and variance", svg_palette[1], SVG_LINE);
  svg_close(&p);
}

/* The histogram on a linear and on a log density axis, side by side. */
static void svg_noise(FILE *f, const noise_hist *nh, const char *title) {
  svg_fig g;
  svg_fig_open(&g, f, 1040, 420, title);
  noise_panel(&g, 0, 30, 520, 390, "density", nh, 0);
  noise_panel(&g, 520, 30, 520, 390, "log density: the tail", nh, 1);
  svg_fig_close(&g);
}

typedef struct fig_ctx {
  const jv *obj;
  const char *title;
} fig_ctx;

/* A member array of numbers into a new buffer; its length, or -1. */
static int jv_array(const jv *o, const char *key, double **out) {
  const jv *a = jv_get(o, key);
  int i;
  *out = NULL;
  if (!a || a->type != JV_ARR || a->n < 1) return -1;
  if (!(*out = (double *)malloc(sizeof(double) * (size_t)a->n))) return -1;
  for (i = 0; i < a->n; ++i)
    (*out)[i] = a->items[i].type == JV_NUM ? a->items[i].num : NAN;
  return a->n;
}

/* The histogram of a noise object (the caller frees *hist and *edges);
   0 when it has none. */
static int noise_of(const jv *obj, noise_hist *nh, double **hist,
                    double **edges) {
  int nb = jv_array(obj, "hist", hist), ne = jv_array(obj, "edges", edges);
  nh->hist = *hist;
  nh->edges = *edges;
  nh->bins = nb;
  nh->mean = jv_num(obj, "mean");
  nh->var = jv_num(obj, "var");
  return nb >= 1 && ne == nb + 1;
}

static void draw_noise(FILE *f, void *ctx) {
  fig_ctx *fc = (fig_ctx *)ctx;
  double *hist, *edges;
  noise_hist nh;
  if (noise_of(fc->obj, &nh, &hist, &edges)) svg_noise(f, &nh, fc->title);
  free(hist);
  free(edges);
}

/* The numbers of the noise figure: each bin and the Gaussian there. */
static void csv_noise(FILE *f, void *ctx) {
  fig_ctx *fc = (fig_ctx *)ctx;
  double *hist, *edges;
  noise_hist nh;
  char a[32], b[32];
  int i;
  fprintf(f, "bin_from,bin_to,density,gaussian_density_at_centre\n");
  if (noise_of(fc->obj, &nh, &hist, &edges)) {
    double sd = sqrt(nh.var > 0 ? nh.var : 0);
    for (i = 0; i < nh.bins; ++i) {
      double c = 0.5 * (edges[i] + edges[i + 1]);
      fprintf(f, "%.10g,%.10g,%s,%s\n", edges[i], edges[i + 1],
              csv_num(a, hist[i]),
              csv_num(b, sd > 0 ? gauss_pdf(c, nh.mean, sd) : NAN));
    }
  }
  free(hist);
  free(edges);
}

/* Writes the JSON object of a measurement to --out and re-reads it for the
   figure: the figure shows exactly what the file says. */
static int finish_measurement(const cli_config *c, const char *text,
                              draw_fn draw, draw_fn csv, const char *title) {
  jv obj;
  const char *why = NULL;
  u_out o;
  fig_ctx fc;
  int st;
  if ((st = u_mkparent(c->out)) != 0 || (st = u_mkparent(c->svg)) != 0 ||
      (st = u_open(&o, c->out)) != 0)
    return st;
  fputs(text, o.f);
  if ((st = u_commit(&o)) != 0) return st;
  if (!c->svg) return 0;
  /* the program's own JSON: only memory can fail it */
  if (jv_parse(text, &obj, &why)) return u_fail(EXIT_NOMEM, "reading back the JSON: %s", why);
  fc.obj = &obj;
  fc.title = title;
  st = write_figure(c->svg, draw, csv, &fc);
  jv_free(&obj);
  return st;
}

/* "setting S, L = L" of a run, for titles. */
static const char *run_label(const la_run *r, char *buf, size_t cap) {
  char s[64];
  cli_field_text(&r->cfg, la_run_field_find("setting"), s, sizeof s);
  snprintf(buf, cap, "setting %s, L = %d", s, r->cfg.model.layers);
  return buf;
}

static const char noise_help[] =
    "usage: linattn noise [FLAGS]\n\n"
    "Paper A's gradient noise: the norm of (minibatch gradient - full gradient)\n"
    "over many minibatches at initialization (--seed) or at a checkpoint (--at),\n"
    "as one JSON object with the moments, the Hill tail index and the histogram.\n";

/* `linattn noise`: the histogram at theta, to --out and --svg. */
static int cmd_noise(const cli_config *c) {
  la_run r;
  long step;
  FILE *m;
  u_mem mem;
  char *text = NULL, title[160], lab[96];
  size_t len = 0;
  u_progress p;
  la_pool *pool = NULL;
  given_in g;
  int st = measure_outputs(c);
  if (st || (st = load_theta(c, c->opts.measure.at, &r, &pool, &step, &g)) != 0) return st;
  u_progress_init(&p, "noise", 1);
  if (!(m = u_mem_open(&mem, &text, &len))) {
    st = u_oom();
  } else {
    st = measure_noise(c, c->opts.measure.samples_out, &r, r.trainer.theta, step, m,
                       NULL, &p);
    /* closing a memory stream writes its last bytes into text */
    if (u_mem_close(&mem) != 0 && !st) st = u_oom();
  }
  u_progress_end(&p);
  snprintf(title, sizeof title, "Gradient noise, %s, step %ld",
           run_label(&r, lab, sizeof lab), step);
  if (!st) st = finish_measurement(c, text, draw_noise, csv_noise, title);
  free(text);
  run_free(&r, pool);
  given_free(&g);
  return st;
}

/* ================================================================== */
/*                             curvature                              */
/* ================================================================== */

typedef struct curv_out {
  int k, kb, nslq, ngrid, nspec, nblocks;
  double *top, *res, *bottom, *nodes, *weights, *grid, *dens, *spec;
  double *beig, *bjs, bjs_mean; /* --dense: the blocks' spectra, their JS */
  la_rcond rc;
} curv_out;

static void curv_free(curv_out *q) {
  free(q->top);
  free(q->res);
  free(q->bottom);
  free(q->nodes);
  free(q->weights);
  free(q->grid);
  free(q->dens);
  free(q->spec);
  free(q->beig);
  free(q->bjs);
}

/* Each parameter matrix's Hessian block spectrum and the Jensen-Shannon
   distances between them (on 100 points), when there are two blocks or
   more. */
static int curv_blocks(const la_model *m, const la_real *theta,
                       const la_batch *b, curv_out *q) {
  int n = m->nparams, nb = 0, i, st;
  int *off, *sz;
  double *work;
  while (la_model_block_info(m, nb, NULL, NULL, NULL, NULL, NULL) >= 0) ++nb;
  q->beig = (double *)malloc(sizeof(double) * (size_t)n);
  if (!q->beig) return LA_ENOMEM;
  if ((st = la_hessian_blocks(m, theta, b, q->beig, NULL, 0)) != 0) return st;
  q->nblocks = nb;
  if (nb < 2) return 0;
  off = (int *)malloc(sizeof(int) * 2 * (size_t)nb);
  q->bjs = (double *)malloc(sizeof(double) * (size_t)nb * (size_t)nb);
  work = (double *)malloc(sizeof(double) * 100 * ((size_t)nb + 1));
  st = off && q->bjs && work ? 0 : LA_ENOMEM;
  sz = off ? off + nb : NULL;
  for (i = 0; !st && i < nb; ++i) {
    int r, c;
    off[i] = la_model_block_info(m, i, NULL, NULL, NULL, &r, &c);
    sz[i] = r * c;
  }
  if (!st) st = la_spectra_js(nb, sz, q->beig, 100, q->bjs, &q->bjs_mean, work);
  free(off);
  free(work);
  return st;
}

/* Top and bottom eigenvalues, both robust condition numbers, the SLQ
   density and (with --dense) the whole spectrum of H(theta) on batch b;
   R's median by `median` (LA_MEDIAN_*). */
static int curv_measure(const cli_measure_opts *o, const la_model *m,
                        const la_real *theta, const la_batch *b, int median,
                        curv_out *q) {
  int n = m->nparams, st, i;
  la_rcond_config rcc;
  la_hvp_op op;
  la_eig_out eo;
  la_lanczos_config lc;
  la_slq_config sc;
  double lo = HUGE_VAL, hi = -HUGE_VAL, sigma;
  memset(q, 0, sizeof *q);
  q->k = o->top > 0 ? (int)o->top : 10;
  if (q->k > n) q->k = n;
  q->kb = n < 3 ? n : 3;
  memset(&sc, 0, sizeof sc);
  sc.probes = o->probes > 0 ? (int)o->probes : 10;
  sc.steps = o->slq_steps > 0 ? (int)o->slq_steps : 80;
  if (sc.steps > n) sc.steps = n;
  q->nslq = sc.probes * sc.steps;
  q->ngrid = o->grid > 0 ? (int)o->grid : 400;
  q->top = (double *)malloc(sizeof(double) * (size_t)q->k);
  q->res = (double *)malloc(sizeof(double) * (size_t)q->k);
  q->bottom = (double *)malloc(sizeof(double) * (size_t)q->kb);
  q->nodes = (double *)malloc(sizeof(double) * (size_t)q->nslq);
  q->weights = (double *)malloc(sizeof(double) * (size_t)q->nslq);
  q->grid = (double *)malloc(sizeof(double) * (size_t)q->ngrid);
  q->dens = (double *)malloc(sizeof(double) * (size_t)q->ngrid);
  if (!q->top || !q->res || !q->bottom || !q->nodes || !q->weights ||
      !q->grid || !q->dens)
    return LA_ENOMEM;
  memset(&lc, 0, sizeof lc);
  memset(&eo, 0, sizeof eo);
  eo.values = q->top;
  eo.residuals = q->res;
  st = la_hessian_eigs(m, theta, b, q->k, 1e-6, &lc, &eo, NULL, 0);
  if (st && st != LA_ENOCONVERGE) return st;
  lc.which = LA_EIG_SMALLEST;
  memset(&eo, 0, sizeof eo);
  eo.values = q->bottom;
  st = la_hessian_eigs(m, theta, b, q->kb, 1e-6, &lc, &eo, NULL, 0);
  if (st && st != LA_ENOCONVERGE) return st;
  memset(&rcc, 0, sizeof rcc);
  rcc.median = median;
  if ((st = la_robust_cond(m, theta, b, &rcc, &q->rc, NULL, 0)) != 0)
    return st;
  op.model = m;
  op.theta = theta;
  op.batch = b;
  op.work = NULL;
  op.bytes = 0;
  if ((st = la_slq(n, la_hvp_matvec, &op, &sc, q->nodes, q->weights, NULL,
                   0)) != 0)
    return st;
  for (i = 0; i < q->nslq; ++i)
    if (q->weights[i] > 0) {
      if (q->nodes[i] < lo) lo = q->nodes[i];
      if (q->nodes[i] > hi) hi = q->nodes[i];
    }
  /* at least a thousandth of the spectrum's scale: a spectrum of one
     value is a visible bump, and its grid survives the JSON's digits */
  sigma = fmax((hi - lo) / 150, 1e-3 * fmax(fabs(lo), fabs(hi)));
  if (!(sigma > 0)) sigma = 1e-12;
  for (i = 0; i < q->ngrid; ++i)
    q->grid[i] = lo - 5 * sigma + (hi - lo + 10 * sigma) * i / (q->ngrid - 1);
  if ((st = la_density_eval(q->nslq, q->nodes, q->weights, sigma, q->ngrid,
                            q->grid, q->dens)) != 0)
    return st;
  if (o->dense) {
    double *h = (double *)malloc(sizeof(double) * (size_t)n * (size_t)n);
    q->spec = (double *)malloc(sizeof(double) * (size_t)n);
    if (!h || !q->spec) {
      free(h);
      return LA_ENOMEM;
    }
    st = la_hessian_dense(m, theta, b, h, NULL, 0);
    if (!st) st = la_sym_eig(n, h, q->spec, NULL, NULL, 0);
    free(h);
    if (st) return st;
    q->nspec = n;
    if ((st = curv_blocks(m, theta, b, q)) != 0) return st;
  }
  return 0;
}

/* The smoothed spectral density on a log axis reaching 1e-6 of its peak:
   the bulk near zero and each outlier's bump stay in view, and where the
   density falls below that floor the curve runs along it (filled down to
   it) instead of leaving the frame. The top eigenvalues by Lanczos are
   marked along the bottom. */
#define CURV_DECADES 6
static void draw_curvature(FILE *f, void *ctx) {
  fig_ctx *fc = (fig_ctx *)ctx;
  double *grid, *dens, *top, peak = 0, low, *shown, *base;
  int ng = jv_array(fc->obj, "grid", &grid), nd = jv_array(fc->obj, "density", &dens);
  int nt = jv_array(fc->obj, "top", &top), i;
  svg_axis ax = {0, 1, 0, "eigenvalue of the Hessian"};
  svg_axis ay = {0, 1, 1, "spectral density (smoothed, log scale)"};
  svg_plot p;
  shown = (double *)malloc(sizeof(double) * 2 * (size_t)(ng > 0 ? ng : 1));
  if (ng > 1 && nd == ng && shown) {
    base = shown + ng;
    for (i = 0; i < nd; ++i)
      if (isfinite(dens[i]) && dens[i] > peak) peak = dens[i];
    if (!(peak > 0)) peak = 1;
    low = peak * pow(10, -CURV_DECADES);
    for (i = 0; i < ng; ++i) {
      shown[i] = isfinite(dens[i]) ? fmax(dens[i], low) : NAN;
      base[i] = low;
    }
    ax.lo = grid[0];
    ax.hi = grid[ng - 1];
    ay.lo = low;
    ay.hi = peak * 3;
    svg_open(&p, f, 680, 420, fc->title, ax, ay);
    svg_axes(&p);
    svg_band(&p, grid, base, shown, ng, svg_palette[0], 0.25);
    svg_line(&p, grid, shown, ng, svg_palette[0], 2, 0);
    for (i = 0; i < nt; ++i) {
      double xs[2], ys[2];
      xs[0] = xs[1] = top[i];
      ys[0] = low;
      ys[1] = low * pow(10, CURV_DECADES / 4.0);
      svg_line(&p, xs, ys, 2, svg_palette[1], 1.5, 0);
    }
    svg_legend(&p, "SLQ density (below 1e-6 of the peak: drawn at that floor)",
               svg_palette[0], SVG_LINE);
    svg_legend(&p, "top eigenvalues (Lanczos)", svg_palette[1], SVG_LINE);
    svg_close(&p);
  }
  free(shown);
  free(grid);
  free(dens);
  free(top);
}

/* The numbers of the curvature figure: the density on its grid, then the
   top eigenvalues. */
static void csv_curvature(FILE *f, void *ctx) {
  fig_ctx *fc = (fig_ctx *)ctx;
  double *grid, *dens, *top;
  int ng = jv_array(fc->obj, "grid", &grid), nd = jv_array(fc->obj, "density", &dens);
  int nt = jv_array(fc->obj, "top", &top), i;
  char a[32], b[32];
  fprintf(f, "what,eigenvalue,density\n");
  for (i = 0; i < ng && i < nd; ++i)
    fprintf(f, "density,%s,%s\n", csv_num(a, grid[i]), csv_num(b, dens[i]));
  for (i = 0; i < nt; ++i) fprintf(f, "top eigenvalue,%s,\n", csv_num(a, top[i]));
  free(grid);
  free(dens);
  free(top);
}

static const char curvature_help[] =
    "usage: linattn curvature [FLAGS]\n\n"
    "The Hessian of the loss on a fixed batch at initialization or at a\n"
    "checkpoint (--at): top and bottom eigenvalues (Lanczos), both robust\n"
    "condition numbers, the SLQ spectral density, and with --dense the whole\n"
    "spectrum, each parameter matrix's Hessian block spectrum (block_NAME[LAYER])\n"
    "and the Jensen-Shannon distances between them (block_js, their mean\n"
    "block_js_mean: the blocks' heterogeneity, and largest block_js_max).\n";

/* The most parameters la_sym_eig takes, asked of the header (its work
   size is 0 past them): the limit is the header's fact, not this file's. */
static int curv_eig_limit(int n) {
  int lo = 1, hi = n; /* la_sym_eig_work_bytes(lo) > 0, (hi) == 0 */
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    if (la_sym_eig_work_bytes(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* --dense, checked before any work (Lanczos, the robust condition number
   and SLQ take hours on a model that large): n parameters past what
   la_sym_eig takes are bad input, a Hessian and eigensolver larger than
   the machine's memory EXIT_NOMEM, each with the sizes. */
static int curv_dense_fits(const cli_measure_opts *o, int n) {
  double gb = 8.0 * n * n / 1e9;
  size_t eig = la_sym_eig_work_bytes(n);
  char what[160];
  if (!o->dense) return 0;
  if (!eig)
    return u_fail(EXIT_BAD_INPUT, "--dense: the Hessian of %d parameters (%.3g GB) is "
                  "past the dense eigensolver's limit of %d parameters; measure "
                  "without --dense", n, gb, curv_eig_limit(n));
  snprintf(what, sizeof what, "--dense: the Hessian of %d parameters (%.3g GB) with its "
           "eigensolver", n, gb);
  return u_fits_memory(8.0 * n * n + 8.0 * n + (double)eig, what);
}

/* `linattn curvature`: the spectrum at theta, to --out and --svg. */
static int cmd_curvature(const cli_config *c) {
  la_run r;
  la_batch b;
  curv_out q;
  long step;
  FILE *m;
  u_mem mem;
  char *text = NULL, title[160], lab[96];
  size_t len = 0;
  la_pool *pool = NULL;
  given_in g;
  int i, st = measure_outputs(c);
  memset(&b, 0, sizeof b);
  memset(&q, 0, sizeof q);
  if (st || (st = load_theta(c, c->opts.measure.at, &r, &pool, &step, &g)) != 0) return st;
  if ((st = curv_dense_fits(&c->opts.measure, r.model.nparams)) != 0) goto out;
  if ((st = diag_batch(&r, r.cfg.measure.diag_batch, &b)) != 0) {
    st = u_fail(exit_of_status(st), "the batch of the Hessian: %s", la_status_str(st));
    goto out;
  }
  if ((st = curv_measure(&c->opts.measure, &r.model, r.trainer.theta, &b,
                         r.cfg.measure.median, &q)) != 0) {
    st = u_fail(exit_of_status(st), "curvature: %s", la_status_str(st));
    goto out;
  }
  if (!(m = u_mem_open(&mem, &text, &len))) {
    st = u_oom();
    goto out;
  }
  {
    jw w;
    jw_begin(&w, m);
    jw_str(&w, "type", "curvature");
    cli_write_run(&w, &r.cfg);
    jw_int(&w, "nparams", r.model.nparams);
    jw_int(&w, "step", step);
    jw_arr(&w, "top", q.top, q.k);
    jw_arr(&w, "top_residuals", q.res, q.k);
    jw_arr(&w, "bottom", q.bottom, q.kb);
    jw_num(&w, "rcond_diag", q.rc.by_diag);
    jw_num(&w, "rcond_spectrum", q.rc.by_spectrum);
    jw_num(&w, "lambda_max", q.rc.lambda_max);
    jw_num(&w, "lambda_median", q.rc.lambda_median);
    jw_int(&w, "rcond_exact", q.rc.exact);
    jw_arr(&w, "slq_nodes", q.nodes, q.nslq);
    jw_arr(&w, "slq_weights", q.weights, q.nslq);
    jw_arr(&w, "grid", q.grid, q.ngrid);
    jw_arr(&w, "density", q.dens, q.ngrid);
    if (q.nspec) jw_arr(&w, "spectrum", q.spec, q.nspec);
    for (i = 0; i < q.nblocks; ++i) { /* block_A[0], block_W1, ... */
      const char *name;
      int layer, head, rows, cols;
      int off = la_model_block_info(&r.model, i, &name, &layer, &head, &rows, &cols);
      char key[64];
      if (layer < 0) snprintf(key, sizeof key, "block_%s", name);
      else if (r.model.cfg.heads == 1) snprintf(key, sizeof key, "block_%s[%d]", name, layer);
      else snprintf(key, sizeof key, "block_%s[%d,%d]", name, layer, head);
      jw_arr(&w, key, q.beig + off, rows * cols);
    }
    if (q.bjs) {
      double most = 0;
      int j;
      for (j = 0; j < q.nblocks * q.nblocks; ++j)
        if (q.bjs[j] > most) most = q.bjs[j];
      jw_num(&w, "block_js_mean", q.bjs_mean);
      jw_num(&w, "block_js_max", most); /* as train's measurement names them */
      jw_arr(&w, "block_js", q.bjs, q.nblocks * q.nblocks);
    }
    jw_end(&w);
  }
  if (u_mem_close(&mem) != 0) { /* it writes the stream's last bytes into text */
    st = u_oom();
    goto out;
  }
  snprintf(title, sizeof title, "Hessian spectrum, %s, step %ld",
           run_label(&r, lab, sizeof lab), step);
  st = finish_measurement(c, text, draw_curvature, csv_curvature, title);
out:
  if (b.z) la_batch_destroy(&b);
  curv_free(&q);
  free(text);
  run_free(&r, pool);
  given_free(&g);
  return st;
}

#endif /* LINATTN_NOISE_CURVATURE_H */
