/* cli/commands/train.h - `linattn train`: one run as the flags say, JSON lines
   (a config line, step lines, a summary line) to --out, the run saved to
   --checkpoint (every --checkpoint-every steps too) and continued by
   --resume, theta along the run (--save-theta) and heat maps of the learned
   matrices (--heatmap). reproduce runs its studies' runs through
   train_one. */
#ifndef LINATTN_TRAIN_H
#define LINATTN_TRAIN_H

#include "../io/svg.h"
#include "../common.h"
#include "../io/npy.h"

#include <float.h>

/* The config line: the run, then what is measured along it. */
static void write_config(jw *w, const la_run *r) {
  jw_str(w, "type", "config");
  cli_write_run(w, &r->cfg);
  jw_int(w, "nparams", r->model.nparams);
  jw_str(w, "backend", la_backend_name());
  jw_str(w, "precision", precision_name);
}

/* ------------------------------------------------------------ outputs */
/* Saves the trainer to path as la_checkpoint_save does, through the
   command's own outputs (u_out: an exclusive temporary, fsync, rename, the
   stale temporaries of killed runs removed), so that a failure says why
   (disk full) and has the table's status. */
static int save_checkpoint(const la_trainer *tr, const char *path) {
  size_t bytes = 0;
  unsigned char *buf;
  u_out o;
  int st = la_checkpoint_bytes(tr, &bytes);
  if (st) return u_fail(EXIT_FAILED, "cannot save a checkpoint: %s", la_status_str(st));
  if (!(buf = (unsigned char *)malloc(bytes))) return u_oom();
  if ((st = la_checkpoint_save_mem(tr, buf, bytes, &bytes)) != 0) {
    free(buf);
    return u_fail(exit_of_status(st), "cannot save a checkpoint: %s", la_status_str(st));
  }
  if ((st = u_open_as(&o, path, 1)) == 0) {
    /* a short write leaves the stream's error set: u_commit reports it */
    if (fwrite(buf, 1, bytes, o.f) != bytes) o.err = errno;
    st = u_commit(&o);
  }
  free(buf);
  return st;
}

/* ------------------------------------------------------------ heat maps */
/* A run's learned matrices as heat maps: per layer B_l (sparse form), A_l
   and Sigma^1/2 A_l Sigma^1/2, each cell coloured on a blue-white-red
   scale symmetric about 0 (one scale per panel) and labelled with its
   value; the numbers also as CSV (layer, matrix, row, col, value). */
typedef struct heatmap {
  int L, d, nm;          /* layers, dimension, matrices per layer */
  const char *names[3];  /* the panels of a row */
  double m[LA_MAX_LAYERS][3][64];
} heatmap;

/* Whether a model has the heat maps' form (heatmap_fits_msg otherwise):
   asked before a run trains, so that a run is never spent to be refused. */
static const char heatmap_fits_msg[] =
    "--heatmap: the sparse or pgd form of linear attention, d <= 8, one head, "
    "merged keys and queries, no front layer";
static int heatmap_fits(const la_model_config *c) {
  return c->d <= 8 && !c->front_hidden && c->heads <= 1 && !c->qk_rank &&
         c->activation == LA_ACT_LINEAR &&
         (c->param == LA_PARAM_SPARSE || c->param == LA_PARAM_PGD);
}

static int heatmap_of(const la_run *r, heatmap *h) {
  const la_model *m = &r->model;
  double sig[64], sh[64], u[64];
  int l, i, d = m->cfg.d, sparse = m->cfg.param == LA_PARAM_SPARSE;
  if (!heatmap_fits(&m->cfg)) return 0;
  memset(h, 0, sizeof *h);
  h->L = m->cfg.layers;
  h->d = d;
  h->nm = sparse ? 3 : 2;
  h->names[0] = sparse ? "B_l" : "A_l";
  h->names[1] = sparse ? "A_l" : "Sigma^1/2 A_l Sigma^1/2";
  h->names[2] = "Sigma^1/2 A_l Sigma^1/2";
  th_sigma(&r->data, d, sig);
  th_sqrtm(d, sig, sh);
  for (l = 0; l < h->L; ++l) {
    double *A = h->m[l][sparse ? 1 : 0];
    if (sparse)
      for (i = 0; i < d * d; ++i) h->m[l][0][i] = (double)r->trainer.theta[2 * l * d * d + i];
    th_block(m, r->trainer.theta, l, A);
    th_mul(d, sh, A, u);
    th_mul(d, u, sh, h->m[l][h->nm - 1]);
  }
  return 1;
}

static void heatmap_svg(FILE *f, void *ctx) {
  const heatmap *h = (const heatmap *)ctx;
  double cell = 44, gap = 36, top = 56, left = 70;
  double pw = h->d * cell, w = left + h->nm * (pw + gap), ht = top + h->L * (pw + gap);
  int l, k, i, j;
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
          "height=\"%g\" viewBox=\"0 0 %g %g\" font-family=\"DejaVu Sans, "
          "Helvetica, Arial, sans-serif\" font-size=\"11\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
          "<text x=\"%g\" y=\"22\" text-anchor=\"middle\" font-size=\"14\" "
          "font-weight=\"bold\">The learned matrices by layer (blue negative, "
          "red positive; one scale per panel)</text>\n",
          w, ht, w, ht, w / 2);
  for (k = 0; k < h->nm; ++k) {
    fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">",
            left + k * (pw + gap) + pw / 2, top - 10);
    svg_text(f, h->names[k]);
    fputs("</text>\n", f);
  }
  for (l = 0; l < h->L; ++l) {
    double y0 = top + l * (pw + gap);
    fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">layer %d</text>\n",
            left - 10, y0 + pw / 2, l + 1);
    for (k = 0; k < h->nm; ++k) {
      const double *m = h->m[l][k];
      double x0 = left + k * (pw + gap), big = 0;
      for (i = 0; i < h->d * h->d; ++i) big = fmax(big, fabs(m[i]));
      for (i = 0; i < h->d; ++i)
        for (j = 0; j < h->d; ++j) {
          double v = m[i * h->d + j], t = big > 0 ? v / big : 0;
          int r = t < 0 ? (int)(255 * (1 + t)) : 255;
          int g = (int)(255 * (1 - fabs(t)));
          int b = t > 0 ? (int)(255 * (1 - t)) : 255;
          fprintf(f,
                  "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" "
                  "fill=\"#%02x%02x%02x\" stroke=\"#888\" stroke-width=\"0.3\"/>\n"
                  "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\" "
                  "font-size=\"9\" fill=\"%s\">%.*f</text>\n",
                  x0 + j * cell, y0 + i * cell, cell, cell, r, g, b,
                  x0 + (j + 0.5) * cell, y0 + (i + 0.5) * cell + 3,
                  fabs(t) > 0.6 ? "white" : "black", fabs(v) < 9.995 ? 2 : 1, v);
        }
    }
  }
  fputs("</svg>\n", f);
}

/* DIR/heatmap.svg and DIR/heatmap.csv of a run's theta. */
static int write_heatmaps(const char *dir, const la_run *r) {
  heatmap *h = (heatmap *)malloc(sizeof *h);
  char path[4200];
  u_out o;
  int st, l, k, i;
  if (!h) return u_fail(1, "out of memory");
  if (!heatmap_of(r, h)) {
    free(h);
    return u_fail(EXIT_BAD_INPUT, "%s", heatmap_fits_msg);
  }
  u_own(dir);
  if ((st = u_mkdirs(dir)) != 0) {
    free(h);
    return st;
  }
  snprintf(path, sizeof path, "%s/heatmap.svg", dir);
  if ((st = write_svg(path, heatmap_svg, h)) != 0) {
    free(h);
    return st;
  }
  snprintf(path, sizeof path, "%s/heatmap.csv", dir);
  if ((st = u_open(&o, path)) != 0) {
    free(h);
    return st;
  }
  fprintf(o.f, "layer,matrix,row,col,value\n");
  for (l = 0; l < h->L; ++l)
    for (k = 0; k < h->nm; ++k)
      for (i = 0; i < h->d * h->d; ++i)
        fprintf(o.f, "%d,%s,%d,%d,%.9g\n", l + 1,
                h->nm == 3 ? (k == 0 ? "B" : k == 1 ? "A" : "whitened_A")
                           : (k == 0 ? "A" : "whitened_A"),
                i / h->d + 1, i % h->d + 1, h->m[l][k][i]);
  free(h);
  return u_commit(&o);
}

/* ---- why a run diverged: read at its last finite theta, on the batch the
   failing step or evaluation used. A forward pass that is a polynomial of
   degree 3^L in a prompt overflows on one unusual prompt while the others
   stay finite; an optimizer's step overflows with every prompt finite. */
typedef struct diverge_why {
  const char *cause; /* NULL: the run did not diverge */
  int prompts;       /* how many of the batch's predictions are not finite */
  int count;         /* the batch's prompts */
  double norm;       /* the largest of those prompts' norms ||Z0||_F */
  double norm_median; /* the batch's median prompt norm */
  double error;       /* a finite prediction's error that dominates the loss */
} diverge_why;

/* The batch of step `step` (0-based) of a run whose data are drawn or
   given, into b (created here); LA status. */
static int step_batch(const la_run *r, long step, la_batch *b) {
  const la_trainer *tr = &r->trainer;
  const la_train_config *c = &tr->cfg;
  la_rng rng;
  uint64_t stream;
  int st;
  if (c->data_mode == LA_DATA_GIVEN) {
    if (step >= c->nbatches) return LA_ERANGE;
    st = la_batch_create(b, c->batches[step].d, c->batches[step].n, c->batches[step].count);
    if (!st) {
      memcpy(b->z, c->batches[step].z, la_batch_bytes(b->d, b->n, b->count));
    }
    return st;
  }
  if (c->data_mode == LA_DATA_FIXED && c->dataset) return LA_EUNSUPPORTED;
  stream = c->data_mode == LA_DATA_RESAMPLE && c->resample_every > 0
               ? (uint64_t)(step / c->resample_every)
               : (uint64_t)step;
  if ((st = la_batch_create(b, r->cfg.data.d, r->cfg.data.n, c->batch)) != 0) return st;
  la_rng_seed(&rng, tr->data_seed, stream);
  return la_data_sample(&r->data, &rng, b);
}

/* Why theta overflows on the batch of 0-based step `step` (eval: on the
   evaluation batch): "eval_prompt" / "train_prompt" (a few of its prompts,
   under a tenth, overflow, or one prompt's finite error is over half the
   batch's loss), "theta" (most predictions overflow: theta itself left the
   range, the optimizer's earlier steps), "gradient" (every prediction
   finite, the gradient not), "update" (the optimizer's step not finite),
   "unknown" (the batch cannot be had). A diverged run is read at its last
   finite theta, a skipped step at the theta it kept. */
static void overflow_cause(const la_run *r, int eval, long step, diverge_why *w) {
  const la_trainer *tr = &r->trainer;
  const la_model *m = &r->model;
  la_batch own, *b = NULL;
  la_real *pred = NULL, *grad = NULL;
  double *tok = NULL, *norms = NULL, *y = NULL, loss, big = -1, sum = 0;
  size_t per;
  int i, j, top = -1;
  memset(w, 0, sizeof *w);
  memset(&own, 0, sizeof own);
  w->norm = w->norm_median = w->error = NAN;
  w->cause = "unknown";
  if (eval) b = (la_batch *)&tr->eval;
  else if (step_batch(r, step, &own) == 0) b = &own;
  if (!b) goto done;
  per = (size_t)(b->n + 1) * (size_t)(b->d + 1);
  pred = (la_real *)malloc(sizeof(la_real) * (size_t)b->count);
  tok = (double *)malloc(sizeof(double) * per * (size_t)b->count);
  norms = (double *)calloc((size_t)b->count, sizeof(double));
  grad = (la_real *)malloc(sizeof(la_real) * ((size_t)m->nparams + 1));
  y = (double *)malloc(sizeof(double) * (size_t)b->count);
  if (!pred || !tok || !norms || !grad || !y || la_batch_get_tokens(b, tok, y) != 0) goto done;
  w->count = b->count;
  (void)la_model_loss(m, tr->theta, b, &loss, pred, NULL, 0);
  for (i = 0; i < b->count; ++i) {
    double s = 0;
    for (j = 0; j < (int)per; ++j) s += tok[per * (size_t)i + (size_t)j] * tok[per * (size_t)i + (size_t)j];
    norms[i] = sqrt(s);
    if (!isfinite((double)pred[i])) {
      w->prompts++;
      if (!(w->norm >= norms[i])) w->norm = norms[i];
    } else { /* the squared errors, each scaled by the largest so far */
      double e = fabs((double)pred[i] - y[i]);
      if (e > big) {
        sum = big > 0 ? sum * (big / e) * (big / e) : 0;
        big = e;
        top = i;
      }
      if (big > 0) sum += (e / big) * (e / big);
    }
  }
  (void)la_weighted_median(b->count, norms, NULL, &w->norm_median, NULL, 0);
  /* a few prompts: they overflow; most of them: theta left the range */
  if (w->prompts && 10 * w->prompts < b->count) w->cause = eval ? "eval_prompt" : "train_prompt";
  else if (w->prompts) w->cause = "theta";
  else if (top >= 0 && sum < 2) { /* one prompt's error over half the loss */
    w->cause = eval ? "eval_prompt" : "train_prompt";
    w->prompts = 1;
    w->norm = norms[top];
    w->error = big;
  }
  else if (la_model_grad(m, tr->theta, b, &loss, grad, NULL, 0) != 0 ||
           !isfinite(loss))
    w->cause = "gradient";
  else {
    w->cause = "update";
    for (i = 0; i < m->nparams; ++i)
      if (!isfinite((double)grad[i])) w->cause = "gradient";
  }
done:
  if (own.z) la_batch_destroy(&own);
  free(pred);
  free(tok);
  free(norms);
  free(grad);
  free(y);
}

/* A run's divergence: at its last finite theta, on the evaluation that
   overflowed after the last step or on the batch of the step that failed. */
static void diverge_cause(const la_run *r, diverge_why *w) {
  const la_trainer *tr = &r->trainer;
  overflow_cause(r, tr->diverged_step == tr->step, tr->step, w);
}

/* The members of a cause (a diverged run's summary: "diverged", a skipped
   step's line: "skip"): PREFIX_cause, _prompts, _batch, _prompt_norm,
   prompt_norm_median, PREFIX_prompt_error. */
static void write_why(jw *w, const char *prefix, const diverge_why *why) {
  char key[64];
#define WHY_KEY(k) (snprintf(key, sizeof key, "%s_%s", prefix, k), key)
  jw_str(w, WHY_KEY("cause"), why->cause);
  jw_int(w, WHY_KEY("prompts"), why->prompts);
  jw_int(w, WHY_KEY("batch"), why->count);
  if (why->norm == why->norm) jw_num(w, WHY_KEY("prompt_norm"), why->norm);
  if (why->norm_median == why->norm_median) jw_num(w, "prompt_norm_median", why->norm_median);
  if (why->error == why->error) jw_num(w, WHY_KEY("prompt_error"), why->error);
#undef WHY_KEY
}

/* ------------------------------------------------------------ the run */
typedef struct train_ctx {
  const cli_config *c;
  la_run *run;
  FILE *out;
  void *work; /* la_run_measure's */
  size_t bytes;
  char *json; /* its record's members */
  size_t json_cap;
  la_real *prev;
  u_progress *prog;
  long steps, log_every, diag_every, smooth_every, blocks_every;
  int status; /* an output that cannot be written: the run stops */
  struct theta_tap *tap; /* --save-theta */
} train_ctx;

/* What the run's measure fields ask at this step (la_run_measure: a
   diagnostic that fails is in its record, the run goes on), written as
   the members of w's line; prev NULL where no step moved theta. */
static void write_measured(train_ctx *x, jw *w, long step, const la_real *theta,
                           const la_real *prev) {
  la_measure_record m;
  size_t len;
  if (la_run_measure(x->run, NULL, step, theta, prev, &m, x->work, x->bytes) != 0)
    return; /* not reached: the workspace is la_run_measure_work_bytes' */
  len = la_measure_json(&m, x->json, x->json_cap);
  if (len >= x->json_cap) {
    char *nj = (char *)realloc(x->json, len + 1);
    if (!nj) {
      x->status = LA_ENOMEM;
      u_oom();
      return;
    }
    x->json = nj;
    x->json_cap = len + 1;
    la_measure_json(&m, x->json, x->json_cap);
  }
  jw_members(w, x->json);
}

static int train_cb(void *user, const la_train_record *rec) {
  train_ctx *x = (train_ctx *)user;
  long t = rec->step;
  int smooth = x->smooth_every > 0 && t % x->smooth_every == 0;
  int diag = (x->diag_every > 0 && t % x->diag_every == 0) ||
             (x->blocks_every > 0 && t % x->blocks_every == 0);
  if (rec->skipped) { /* its own line: the prompts that overflow */
    diverge_why why;
    jw w;
    overflow_cause(x->run, 0, t - 1, &why);
    jw_begin(&w, x->out);
    jw_str(&w, "type", "skip");
    jw_int(&w, "step", t);
    write_why(&w, "skip", &why);
    jw_end(&w);
  }
  if (t % x->log_every == 0 || rec->has_eval || smooth || diag || t == x->steps) {
    jw w;
    jw_begin(&w, x->out);
    jw_str(&w, "type", "step");
    jw_int(&w, "step", t);
    jw_num(&w, "loss", rec->loss);
    jw_num(&w, "grad_norm", rec->grad_norm);
    jw_num(&w, "clipped_norm", rec->clipped_norm);
    jw_num(&w, "lr_scale", rec->lr_scale);
    jw_num(&w, "update_norm", rec->update_norm);
    if (rec->has_eval) jw_num(&w, "eval_loss", rec->eval_loss);
    if (smooth || diag)
      write_measured(x, &w, t, rec->theta, rec->update_norm > 0 ? x->prev : NULL);
    jw_end(&w);
  }
  memcpy(x->prev, rec->theta, sizeof(la_real) * (size_t)rec->nparams);
  u_progress_step(x->prog, t);
  return x->status != 0; /* a diagnostic's failure is in its record */
}

/* ---- --save-theta: the trajectory, a row (the step, then theta) at step
   0, every k-th step and the last, in a .npy written as the run goes (in
   place, so that a killed run leaves the rows it counts: its path is
   checked with the other outputs, a regular file, before anything runs) */
typedef struct theta_tap {
  npy_rows npy;
  long every;
  double *row;
  const char *path;
} theta_tap;

static int theta_tap_add(theta_tap *t, long step, const la_real *theta,
                         int n) {
  int i;
  t->row[0] = (double)step;
  for (i = 0; i < n; ++i) t->row[i + 1] = (double)theta[i];
  return npy_rows_add(&t->npy, t->row);
}

/* The trainer's callback with --save-theta: the row, then train_cb. */
static int theta_cb(void *user, const la_train_record *rec) {
  train_ctx *x = (train_ctx *)user;
  theta_tap *t = x->tap;
  if (!x->status && (rec->step % t->every == 0 || rec->step == x->steps) &&
      theta_tap_add(t, rec->step, rec->theta, rec->nparams) != 0) {
    int e = errno;
    u_fail(u_exit_of_errno(e, EXIT_IO), "cannot write %s: %s", U_Q(t->path), strerror(e));
    x->status = e == ENOMEM ? LA_ENOMEM : LA_EIO;
  }
  return train_cb(user, rec);
}

/* Opens --save-theta's file (x->tap), its first row at step 0. */
static int theta_tap_open(train_ctx *x, const cli_config *c, const la_run *r,
                          long start) {
  const cli_train_opts *o = &c->opts.train;
  theta_tap *t;
  int st;
  if (!o->save_theta) return 0;
  if ((st = u_mkparent(o->save_theta)) != 0) return st;
  if (!(t = (theta_tap *)calloc(1, sizeof *t)) ||
      !(t->row = (double *)malloc(sizeof(double) * ((size_t)r->model.nparams + 1)))) {
    free(t);
    return u_oom();
  }
  t->path = o->save_theta;
  t->every = o->save_theta_every > 0 ? o->save_theta_every : x->log_every;
  x->tap = t;
  if (npy_rows_open(&t->npy, t->path, (long)r->model.nparams + 1) != 0 ||
      (start == 0 && theta_tap_add(t, 0, r->trainer.theta, r->model.nparams) != 0)) {
    int e = errno;
    return u_fail(u_exit_of_errno(e, EXIT_BAD_INPUT), "cannot write %s: %s",
                  U_Q(t->path), strerror(e));
  }
  return 0;
}

/* Closes --save-theta's file: 0, or the exit status of a failed write. */
static int theta_tap_close(train_ctx *x) {
  int bad, code = 0;
  if (!x->tap) return 0;
  bad = npy_rows_close(&x->tap->npy);
  if (bad) {
    int e = errno;
    code = u_fail(u_exit_of_errno(e, EXIT_IO), "cannot write %s: %s", U_Q(x->tap->path),
                  strerror(e));
  }
  free(x->tap->row);
  free(x->tap);
  x->tap = NULL;
  return code;
}

/* The summary line of a run that ended with st after `target` steps were
   asked for; ckpt: the status of saving its checkpoint (-1: none asked). */
static void train_summary(FILE *f, la_run *r, int st, long start, long target,
                          double t0, int ckpt) {
  jw w;
  double ev = NAN;
  la_trainer *tr = &r->trainer;
  jw_begin(&w, f);
  jw_str(&w, "type", "summary");
  jw_str(&w, "status", st == LA_EDIVERGED ? "diverged"
                       : st == 0 && tr->step >= target ? "ok" : "error");
  jw_int(&w, "steps", tr->step);
  jw_int(&w, "diverged_step", tr->diverged_step);
  if (st == LA_EDIVERGED) {
    diverge_why why;
    diverge_cause(r, &why);
    write_why(&w, "diverged", &why);
  }
  /* the steps skipped where the run may skip them (skip_overflow) */
  if (r->cfg.skip_overflow > 0) jw_int(&w, "skipped", tr->skipped);
  /* an evaluation only where the run evaluates (--eval-every 0: never) */
  if (tr->has_eval && r->cfg.eval_every > 0 && st == 0 && la_trainer_eval(tr, &ev) == 0)
    jw_num(&w, "final_eval_loss", ev);
  jw_num(&w, "seconds", u_now() - t0);
  jw_num(&w, "steps_per_second", (double)(tr->step - start) / (u_now() - t0));
  /* the threads it ran on (its bits are the same for any count) */
  jw_int(&w, "threads", r->model.cfg.parallel && r->model.cfg.parallel->workers > 1
                            ? r->model.cfg.parallel->workers
                            : 1);
  if (ckpt >= 0) jw_str(&w, "checkpoint", ckpt ? "not saved" : "saved");
  jw_end(&w);
}

/* The buffers the train callback measures with. */
static int train_buffers(train_ctx *x, la_run *r) {
  x->bytes = la_run_measure_work_bytes(r, NULL);
  if (!x->bytes)
    return u_fail(EXIT_FAILED, "the measurements' workspace: %s",
                  la_status_str(LA_EOVERFLOW));
  x->work = malloc(x->bytes);
  x->prev = (la_real *)malloc(sizeof(la_real) * ((size_t)r->model.nparams + 1));
  x->json_cap = 1024;
  x->json = (char *)malloc(x->json_cap);
  if (!x->work || !x->prev || !x->json) return u_oom();
  memcpy(x->prev, r->trainer.theta, sizeof(la_real) * (size_t)r->trainer.n);
  return 0;
}

/* One run as the config says, JSON lines to its --out: train's, and each
   run of reproduce's studies. The progress goes to p (a terminal line, a
   pool's pipe, or nowhere). Nothing is written
   before the run is built (and its checkpoint read); then the output is
   complete whatever happens to the run or its checkpoint, and the exit
   status is the worst of the three (the run's, the checkpoint's, the
   output's). */
/* ------------------------------------------------------- given inputs */
/* --data-file, --init-theta and --diag-file: another program's batches (a
   batch a step), its initial theta and its Hessian batches, read before
   the run is built. */
typedef struct given_in {
  la_batch *batches;
  long nbatches;
  la_real *theta0;
  la_batch *diag;
  long ndiag;
} given_in;

static void given_batches_free(la_batch **b, long *n) {
  long t;
  for (t = 0; t < *n; ++t) la_batch_destroy(&(*b)[t]);
  free(*b);
  *b = NULL;
  *n = 0;
}

static void given_free(given_in *g) {
  given_batches_free(&g->batches, &g->nbatches);
  given_batches_free(&g->diag, &g->ndiag);
  free(g->theta0);
  memset(g, 0, sizeof *g);
}

/* A .npy file read whole (regular files only, bounded), or the exit
   status with the message said. */
static int given_npy(const char *flag, const char *path, npy_array *a) {
  char *buf;
  size_t len;
  const char *why = "";
  int st = u_read_file(path, "a .npy file", &buf, &len);
  if (st) return st;
  st = npy_parse((const unsigned char *)buf, len, a, &why);
  free(buf);
  if (st > 0) return u_oom();
  if (st) return u_fail(EXIT_BAD_INPUT, "%s %s: %s", flag, U_Q(path), why);
  return 0;
}

/* Run field key takes the file's value v: given already, it must agree
   (at most v where `most`). */
static int given_field(cli_config *c, const char *flag, const char *key, double v,
                       const char *what, int most) {
  double now;
  char name[32];
  size_t k;
  for (k = 0; key[k] && k + 1 < sizeof name; ++k) name[k] = key[k] == '_' ? '-' : key[k];
  name[k] = 0;
  if (!cli_given(c, key)) {
    cli_give(c, key, v);
    return cli_given(c, key) ? 0 : u_fail(EXIT_BAD_INPUT, "%s: %s %.0f is "
                                          "out of range for --%s", flag, what, v, name);
  }
  (void)la_run_field_get(&c->run, la_run_field_find(key), &now);
  if (most ? now > v : now != v)
    return u_fail(EXIT_BAD_INPUT, "--%s %g does not fit %s: its %s is %.0f", name, now,
                  flag, what, v);
  return 0;
}

/* The head of a stack of batches (T, B, n + 1, d + 1), or of one batch
   (B, n + 1, d + 1), in paper A's code's layout: the file read whole into
   *buf (the caller frees it), its header parsed into a (shape as a stack),
   the values' offset and width into *at and *width. */
static int given_head(const char *flag, const char *path, char **buf, size_t *len,
                      npy_array *a, size_t *at, int *width) {
  const char *why = "";
  int st;
  if ((st = u_read_file(path, "a .npy file", buf, len)) != 0) return st;
  if (npy_head((const unsigned char *)*buf, *len, a, at, width, &why) != 0) {
    free(*buf);
    return u_fail(EXIT_BAD_INPUT, "%s %s: %s", flag, U_Q(path), why);
  }
  if (a->ndim == 3) { /* one batch */
    memmove(a->shape + 1, a->shape, 3 * sizeof a->shape[0]);
    a->shape[0] = 1;
    a->ndim = 4;
  }
  if (a->ndim != 4 || a->shape[0] < 1 || a->shape[1] < 1 || a->shape[2] < 2 ||
      a->shape[3] < 2) {
    free(*buf);
    return u_fail(EXIT_BAD_INPUT, "%s %s: not a stack of batches (T, B, n + 1, d + 1) "
                  "with T, B, n, d at least 1", flag, U_Q(path));
  }
  return 0;
}

/* The first `used` batches of the stack whose head given_head read (buf,
   which this frees), each query row [x_q, y_q] holding its target, into
   *out (*nout of them). Only those batches are converted, and the memory
   they need (the file, their values, the batches) is checked against the
   machine's before any is allocated. */
static int given_take(const char *flag, const char *path, char *buf, size_t len,
                      npy_array *a, size_t at, int width, long used, la_batch **out,
                      long *nout) {
  long t, B = a->shape[1], n = a->shape[2] - 1, d = a->shape[3] - 1, nonzero = 0;
  size_t i, per = (size_t)(n + 1) * (size_t)(d + 1);
  double need = (double)len + (double)used * ((double)per * (double)B * 8 + (double)B * 8 +
                                              (double)la_batch_bytes((int)d, (int)n, (int)B));
  const char *why = "";
  int st;
  *out = NULL;
  *nout = 0;
  if ((st = u_fits_memory(need, flag)) != 0) {
    free(buf);
    return st;
  }
  st = npy_take((const unsigned char *)buf, at, width, a, per * (size_t)B * (size_t)used, &why);
  free(buf);
  if (st > 0) return u_oom();
  if (st) return u_fail(EXIT_BAD_INPUT, "%s %s: %s", flag, U_Q(path), why);
  /* a file of the prompts as paper A's code returns them (the query's
     label zeroed) would train on zero targets */
  for (i = 0; i < (size_t)used * (size_t)B; ++i) nonzero += a->v[per * (i + 1) - 1] != 0;
  if (!nonzero) {
    free(a->v);
    return u_fail(EXIT_BAD_INPUT, "%s %s: every prompt's query row [x_q, y_q] holds "
                  "y_q = 0; the file should hold each prompt's target there (paper "
                  "A's code zeroes it in the Z it returns: write Z with its query "
                  "label set to y, the target it returns beside Z)", flag, U_Q(path));
  }
  if (!(*out = (la_batch *)calloc((size_t)used, sizeof(la_batch)))) {
    free(a->v);
    return u_oom();
  }
  for (t = 0; t < used && !st; ++t) {
    double *y = (double *)malloc(sizeof(double) * (size_t)B), *tok = a->v + per * (size_t)B * (size_t)t;
    if (!y || la_batch_create(&(*out)[t], (int)d, (int)n, (int)B) != 0) {
      free(y);
      st = u_oom();
      break;
    }
    *nout = t + 1;
    /* the query's row holds its target: moved to y, its slot emptied */
    for (i = 0; i < (size_t)B; ++i) {
      double *q = tok + (i + 1) * per - 1;
      y[i] = *q;
      *q = 0;
    }
    if (la_batch_put_tokens(&(*out)[t], tok, y) != 0)
      st = u_fail(EXIT_BAD_INPUT, "%s %s: batch %ld holds a value beyond "
                  "the build's reals", flag, U_Q(path), t);
    free(y);
  }
  free(a->v);
  if (st) given_batches_free(out, nout);
  return st;
}

/* The batches of --data-file, and the fields they decide: d, n, the batch,
   the data mode (given), and the steps (at most the batches); only the
   batches the steps use are read. */
static int given_data(cli_config *c, const char *path, given_in *g) {
  npy_array a;
  char *buf;
  size_t len, at;
  long T;
  double steps;
  int st, width;
  if ((st = given_head("--data-file", path, &buf, &len, &a, &at, &width)) != 0) return st;
  T = a.shape[0];
  if ((st = given_field(c, "--data-file", "d", (double)(a.shape[3] - 1), "covariate dimension", 0)) != 0 ||
      (st = given_field(c, "--data-file", "n", (double)(a.shape[2] - 1), "context length", 0)) != 0 ||
      (st = given_field(c, "--data-file", "batch", (double)a.shape[1], "batch", 0)) != 0 ||
      (st = given_field(c, "--data-file", "data", LA_DATA_GIVEN, "data", 0)) != 0 ||
      (st = given_field(c, "--data-file", "steps", (double)T, "count of batches", 1)) != 0) {
    free(buf);
    return st;
  }
  (void)la_run_field_get(&c->run, la_run_field_find("steps"), &steps);
  /* batch t is step t's */
  return given_take("--data-file", path, buf, len, &a, at, width,
                    steps >= 1 ? (long)steps : 1, &g->batches, &g->nbatches);
}

/* The batches of --diag-file, and the fields they decide: the Hessian
   batch's prompts, and how many batches R is measured on (at most the
   file's). */
static int given_diag(cli_config *c, const char *path, given_in *g) {
  npy_array a;
  char *buf;
  size_t len, at;
  int st, width;
  if ((st = given_head("--diag-file", path, &buf, &len, &a, &at, &width)) != 0) return st;
  if ((st = given_field(c, "--diag-file", "diag_batch", (double)a.shape[1], "batch's prompts", 0)) != 0 ||
      (st = given_field(c, "--diag-file", "diag_batches", (double)a.shape[0], "count of batches", 1)) != 0) {
    free(buf);
    return st;
  }
  return given_take("--diag-file", path, buf, len, &a, at, width, a.shape[0], &g->diag,
                    &g->ndiag);
}

/* Every given input of a command (c's flags) read: the batches and the
   Hessian batches into *fc's fields before the run resolves (given_pre),
   then theta against the resolved run rc (given_post). */
static int given_pre(cli_config *fc, given_in *g) {
  int st;
  memset(g, 0, sizeof *g);
  if (fc->data_file && (st = given_data(fc, fc->data_file, g)) != 0) return st;
  if (fc->diag_file && (st = given_diag(fc, fc->diag_file, g)) != 0) return st;
  return 0;
}

static int given_theta(const char *path, const la_run_config *rc, given_in *g);
static int given_post(const cli_config *c, const la_run_config *rc, given_in *g) {
  if (g->ndiag && (g->diag[0].d != rc->data.d || g->diag[0].n != rc->data.n))
    return u_fail(EXIT_BAD_INPUT, "--diag-file %s: prompts of d = %d, n = %d; the "
                  "run's are d = %d, n = %d", U_Q(c->diag_file), g->diag[0].d,
                  g->diag[0].n, rc->data.d, rc->data.n);
  if (c->init_theta) return given_theta(c->init_theta, rc, g);
  return 0;
}

/* The run's environment: what was given. */
static void given_env(const given_in *g, la_run_env *env) {
  env->batches = g->batches;
  env->nbatches = g->nbatches;
  env->theta0 = g->theta0;
  env->diag = g->diag;
  env->ndiag = g->ndiag;
}

/* --init-theta for the resolved run rc: linattn's packing, or paper A's
   code's allparam (L, H, 2, d, d) for a sparse model (P = B, Q = A^T). */
static int given_theta(const char *path, const la_run_config *rc, given_in *g) {
  npy_array a;
  la_model m;
  la_model_config mc = rc->model;
  long L, H, d = rc->data.d;
  size_t i;
  int st;
  mc.d = rc->data.d;
  mc.n = rc->data.n;
  if (la_model_init(&m, &mc) != 0)
    return u_fail(EXIT_BAD_INPUT, "--init-theta: the run's model cannot be built");
  if ((st = given_npy("--init-theta", path, &a)) != 0) return st;
  if (!(g->theta0 = (la_real *)malloc(sizeof(la_real) * (size_t)m.nparams))) {
    free(a.v);
    return u_oom();
  }
  L = mc.layers, H = mc.heads;
  for (i = 0; i < a.count; ++i) /* within the build's reals before any cast */
    if (!(fabs(a.v[i]) <= (sizeof(la_real) == 4 ? FLT_MAX : DBL_MAX))) {
      free(a.v);
      return u_fail(EXIT_BAD_INPUT, "--init-theta %s: a value beyond the build's reals",
                    U_Q(path));
    }
  if (a.ndim == 1 && a.shape[0] == m.nparams) {
    for (i = 0; i < a.count; ++i) g->theta0[i] = (la_real)a.v[i];
  } else if (a.ndim == 5 && a.shape[0] == L && a.shape[1] == H && a.shape[2] == 2 &&
             a.shape[3] == d && a.shape[4] == d && mc.param == LA_PARAM_SPARSE &&
             !mc.qk_rank && !mc.front_hidden) {
    /* paper A's code scores z_tok^T Q z_key, linattn z_key^T A z_tok */
    long l, h, r, k, at = 0;
    for (l = 0; l < L; ++l)
      for (h = 0; h < H; ++h) {
        const double *P = a.v + ((l * H + h) * 2) * d * d, *Q = P + d * d;
        for (r = 0; r < d * d; ++r) g->theta0[at + r] = (la_real)P[r];
        for (r = 0; r < d; ++r)
          for (k = 0; k < d; ++k) g->theta0[at + d * d + r * d + k] = (la_real)Q[k * d + r];
        at += 2 * d * d;
      }
  } else {
    free(a.v);
    return u_fail(EXIT_BAD_INPUT, "--init-theta %s: its shape is neither the run's "
                  "theta (%d values) nor paper A's allparam (%ld, %ld, 2, %ld, %ld) of "
                  "a sparse model", U_Q(path), m.nparams, L, H, d, d);
  }
  free(a.v);
  return 0;
}

/* --diag-batches K (K > 1) asks for R over K batches at each diagnostic
   step: with --diag-every 0 there is none, and the flag would be taken
   silently. EXIT_BAD_INPUT then; 0 else. */
static int train_diag_ok(const cli_config *c, const la_run_config *rc) {
  if (!cli_given(c, "diag_batches") || rc->measure.diag_batches <= 1 ||
      rc->measure.diag_every > 0)
    return 0;
  return u_fail(EXIT_BAD_INPUT, "--diag-batches %d: R is measured over that many batches "
                "at each --diag-every step, and --diag-every 0 measures none; give "
                "--diag-every N or no --diag-batches", rc->measure.diag_batches);
}

/* Whether the config line o is of the run rc: every identity field (the
   seed too) as rc has it. */
static int train_same_run(const jv *o, const la_run_config *rc) {
  int i, n = la_run_field_count();
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    const jv *v = jv_get(o, f->key);
    char want[64];
    double x;
    if (!(f->flags & LA_FIELD_IDENTITY)) continue;
    cli_field_text(rc, f, want, sizeof want);
    (void)la_run_field_get(rc, f, &x);
    if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER
            ? !v || v->type != JV_STR || strcmp(v->str, want) != 0
            : !v || v->type != JV_NUM || v->num != (x == 0 ? 0.0 : x))
      return 0;
  }
  return 1;
}

/* A resumed run's log (--resume with --out FILE): the step lines of the
   run that was killed writing FILE (its temporary, left by the dead
   process: u_stale_newest) up to the step the checkpoint holds, start, so
   that FILE holds the run from its step 0 as an unbroken run's does. The
   killed run's lines reach its temporary before each checkpoint is saved
   (train_one flushes them), so none the checkpoint covers is lost. The
   temporary counts only when its config line is this run's (rc). *text
   gets the lines (NULL: none; the caller frees). 0, or EXIT_NOMEM. */
static int train_carry(const char *out, const la_run_config *rc, long start, char **text) {
  char tmp[2 * U_PATH_MAX + 8], *buf, *line, *next;
  size_t len, used = 0;
  int first = 1, ok = 1;
  *text = NULL;
  if (start <= 0 || !u_stale_newest(out, tmp, sizeof tmp) ||
      u_read_regular(tmp, U_READ_MAX, &buf, &len) != 0)
    return 0;
  for (line = buf; ok && line < buf + len; line = next) {
    jv v;
    const char *why = NULL, *type;
    char *nl = memchr(line, '\n', (size_t)(buf + len - line));
    if (!nl) break; /* a line cut by the kill */
    *nl = 0;
    next = nl + 1;
    if (strlen(line) != (size_t)(nl - line) || jv_parse(line, &v, &why) != 0) break;
    type = v.type == JV_OBJ ? jv_str(&v, "type") : NULL;
    if (first) ok = type && !strcmp(type, "config") && train_same_run(&v, rc);
    else if (type && !strcmp(type, "step") && jv_num(&v, "step") <= (double)start) {
      memmove(buf + used, line, (size_t)(nl - line)); /* kept in place */
      used += (size_t)(nl - line);
      buf[used++] = '\n';
    } else if (type && !strcmp(type, "step")) {
      ok = 0; /* past the checkpoint */
    }
    first = 0;
    jv_free(&v);
  }
  if (!used) {
    free(buf);
    return 0;
  }
  buf[used] = 0;
  *text = buf;
  return 0;
}

static int train_one(const cli_config *c, u_progress *p) {
  const cli_train_opts *o = &c->opts.train;
  cli_config fc = *c; /* with what a data file decides */
  la_run_config rc;
  la_run r;
  la_run_env env;
  la_pool *pool = NULL;
  train_ctx x;
  u_out out;
  ckpt_in in;
  given_in gv;
  double t0 = u_now();
  int st, code = 0, ck = o->checkpoint ? 0 : -1;
  long start, saved = -1;
  char *carried = NULL;
  memset(&x, 0, sizeof x);
  memset(&r, 0, sizeof r);
  memset(&rc, 0, sizeof rc);
  memset(&gv, 0, sizeof gv);
  memset(&in, 0, sizeof in);
  if ((code = given_pre(&fc, &gv)) != 0) goto done;
  c = &fc;
  if ((code = resolve_run(c, o->resume, &rc, &in)) != 0 || (code = train_diag_ok(c, &rc)) != 0)
    goto done;
  if ((code = given_post(c, &rc, &gv)) != 0) goto done;
  x.c = c;
  x.run = &r;
  x.prog = p;
  x.steps = rc.steps;
  x.log_every = rc.measure.log_every;
  x.diag_every = rc.measure.diag_every;
  x.smooth_every = rc.measure.smooth_every;
  x.blocks_every = rc.measure.blocks_every;
  memset(&env, 0, sizeof env);
  env.callback = o->save_theta ? theta_cb : train_cb;
  env.user = &x;
  given_env(&gv, &env);
  if ((code = run_make(&r, &rc, &env, c->threads, &pool)) != 0) goto done;
  if (o->heatmap && !heatmap_fits(&r.model.cfg)) {
    code = u_fail(EXIT_BAD_INPUT, "%s", heatmap_fits_msg);
    goto done;
  }
  if (o->resume && (code = load_into(&r, &in)) != 0) goto done;
  ckpt_free(&in);
  if (p) p->total = rc.steps;
  start = r.trainer.step;
  if ((code = train_buffers(&x, &r)) != 0) goto done;
  if (o->resume && (code = train_carry(c->out, &r.cfg, start, &carried)) != 0) goto done;
  if ((code = u_mkparent(c->out)) != 0 ||
      (o->checkpoint && (code = u_mkparent(o->checkpoint)) != 0) ||
      (code = u_open(&out, c->out)) != 0)
    goto done;
  x.out = out.f;
  if ((code = theta_tap_open(&x, c, &r, start)) != 0) {
    u_abort(&out);
    goto done;
  }
  {
    jw w;
    jw_begin(&w, out.f);
    write_config(&w, &r);
    if (o->resume) jw_int(&w, "resumed_at", start);
    if (o->resume) jw_int(&w, "log_from", carried ? 0 : start);
    jw_end(&w);
  }
  if (carried) fputs(carried, out.f); /* the killed run's lines the checkpoint covers */
  if (start == 0) { /* the state at initialization */
    jw w;
    double ev;
    jw_begin(&w, out.f);
    jw_str(&w, "type", "step");
    jw_int(&w, "step", 0);
    if (r.trainer.has_eval && rc.eval_every > 0 && la_trainer_eval(&r.trainer, &ev) == 0)
      jw_num(&w, "eval_loss", ev);
    if (x.diag_every > 0 || x.blocks_every > 0) write_measured(&x, &w, 0, r.trainer.theta, NULL);
    jw_end(&w);
  }
  st = 0;
  while (!st && !x.status && ck <= 0 && r.trainer.step < rc.steps) {
    long chunk = rc.steps - r.trainer.step;
    if (o->checkpoint_every > 0 && chunk > o->checkpoint_every)
      chunk = o->checkpoint_every;
    st = la_trainer_run(&r.trainer, chunk);
    if (st || !o->checkpoint || o->checkpoint_every <= 0) continue;
    /* the lines up to the checkpoint reach the output's temporary first:
       a run killed after the save resumes with them (train_carry); a
       failed write stays in the stream's error, said by u_commit */
    (void)fflush(out.f);
    if ((ck = save_checkpoint(&r.trainer, o->checkpoint)) == 0) saved = r.trainer.step;
  }
  u_progress_end(p);
  if (x.status) st = x.status;
  /* the last state, unless a periodic save has just failed */
  if (ck == 0 && (st == 0 || st == LA_EDIVERGED) && saved != r.trainer.step)
    ck = save_checkpoint(&r.trainer, o->checkpoint);
  train_summary(out.f, &r, st, start, rc.steps, t0, ck);
  code = u_commit(&out);
  if (!code && o->heatmap && (st == 0 || st == LA_EDIVERGED))
    code = write_heatmaps(o->heatmap, &r);
  if (st == LA_EDIVERGED)
    code = u_exit_worse(code, u_fail(EXIT_FAILED, "the run diverged at step %ld (NaN "
                                     "or Inf); the output and checkpoint hold the last "
                                     "finite state", r.trainer.diverged_step));
  else if (st)
    code = u_exit_worse(code, u_fail(exit_of_status(st), "training failed: %s",
                                     la_status_str(st)));
  if (ck > 0) code = u_exit_worse(code, ck);
done:
  free(carried);
  ckpt_free(&in);
  {
    int tc = theta_tap_close(&x);
    if (tc) code = u_exit_worse(code, tc);
  }
  free(x.json);
  free(x.work);
  free(x.prev);
  run_free(&r, pool);
  given_free(&gv);
  return code;
}

/* ------------------------------------------------------------ command */
static const char train_help[] =
    "usage: linattn train [FLAGS]\n\n"
    "One run of any setting, depth, parametrization and optimizer. One JSON\n"
    "object per line: a config line, step lines (loss, gradient norm, eval loss,\n"
    "directional smoothness, robust condition numbers, lambda_max as measured),\n"
    "a summary line. --checkpoint saves the run (all of it: its description,\n"
    "theta, the optimizer's state); --resume FILE --steps T continues it bit\n"
    "for bit up to step T. Outputs appear only when complete (written under a\n"
    "temporary name beside them, then renamed); a folder in an output's path\n"
    "is created.\n";

/* `linattn train`: its outputs checked before anything is read or
   written, then the run, its progress on the terminal. */
static int cmd_train(const cli_config *c) {
  const cli_train_opts *o = &c->opts.train;
  u_path outs[3] = {{"--out", NULL}, {"--checkpoint", NULL}, {"--save-theta", NULL}};
  u_path in = {"--resume", NULL};
  u_progress p;
  int st;
  outs[0].path = c->out;
  outs[1].path = o->checkpoint;
  outs[2].path = o->save_theta;
  in.path = o->resume;
  if ((st = check_outputs(outs, 1, &in, 1)) != 0) return st;
  u_progress_init(&p, "train", 1);
  return train_one(c, &p);
}

#endif /* LINATTN_TRAIN_H */
