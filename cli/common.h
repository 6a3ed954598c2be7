/* cli/common.h - what several subcommands of cli/main.c
   share, placed before them: building a run and its threads (train, noise,
   curvature, reproduce), reading a checkpoint (train --resume, noise and
   curvature --at), the diagnostics' fixed batch (train, curvature), the
   check of a command's output files (train, noise, curvature, theorem),
   and the small dense algebra in double over paper B's matrices (theorem,
   paper B's checks, train --heatmap). */
#ifndef LINATTN_COMMON_H
#define LINATTN_COMMON_H

#include "args.h"
#include "io/json.h"
#include "io/sys.h"

#include <math.h>

/* ------------------------------------------------------------ one run */
/* The build's reals, as the outputs name them. */
static const char *const precision_name =
    sizeof(la_real) == 8 ? "double" : "float";

/* The exit status of a library status met while working: out of memory
   and file errors have their own; any other is the work failing. */
static int exit_of_status(int st) {
  if (st == LA_ENOMEM) return EXIT_NOMEM;
  if (st == LA_EIO) return EXIT_IO;
  return st ? EXIT_FAILED : EXIT_DONE;
}

/* A run's objects for a resolved description, computing with `threads`
   threads (a pool in *pool, NULL for one; the results are the same bits
   whatever the count): EXIT_BAD_INPUT with the library's word when it
   cannot be built. */
static int run_make(la_run *r, const la_run_config *rc, const la_run_env *env,
                    long threads, la_pool **pool) {
  la_run_env e;
  int st;
  memset(&e, 0, sizeof e);
  if (env) e = *env;
  *pool = NULL;
  if (threads < 0) threads = la_cpu_count();
  if (threads > 1 && (st = la_pool_create(pool, (int)threads)) != 0)
    return st == LA_ENOMEM ? u_oom()
                           : u_fail(EXIT_BAD_INPUT, "--threads %ld: %s", threads,
                                    la_status_str(st));
  e.parallel = *pool ? la_pool_parallel(*pool) : NULL;
  {
    size_t need = 0;
    if (la_run_bytes(rc, &e, &need) == LA_OK && (st = u_fits_memory((double)need, "the run"))) {
      la_pool_destroy(*pool);
      *pool = NULL;
      return st;
    }
  }
  st = la_run_create(r, rc, &e);
  if (st) {
    la_pool_destroy(*pool);
    *pool = NULL;
  }
  if (st == LA_ENOMEM) return u_oom();
  /* what the environment gives: another program's batches, a theta */
  if (st == LA_ENULL && rc->data_mode == LA_DATA_GIVEN && !e.batches)
    return u_fail(EXIT_BAD_INPUT, "the run trains on another program's batches: give "
                  "them again with --data-file");
  if (st == LA_ENULL && rc->init_hash && !e.theta0)
    return u_fail(EXIT_BAD_INPUT, "the run started from a given theta: give it again "
                  "with --init-theta");
  if (st == LA_ESHAPE && (e.batches || e.theta0))
    return u_fail(EXIT_BAD_INPUT, "the %s differ from those the run was made with "
                  "(its %s)", e.batches ? "batches of --data-file" : "--init-theta's values",
                  e.batches ? "data_hash" : "init_hash");
  if (st) return u_fail(EXIT_BAD_INPUT, "cannot set up the run: %s", la_status_str(st));
  return 0;
}

/* The run's objects, then its threads. */
static void run_free(la_run *r, la_pool *pool) {
  la_run_destroy(r);
  la_pool_destroy(pool);
}

/* The fixed batch of the diagnostics (the run's first, la_run_diag_batch). */
static int diag_batch(const la_run *r, long prompts, la_batch *b) {
  int st = la_batch_create(b, r->cfg.data.d, r->cfg.data.n, (int)prompts);
  if (st) return st;
  if ((st = la_run_diag_batch(r, 0, b)) != 0) la_batch_destroy(b);
  return st;
}

/* A checkpoint the command reads: its bytes, read once (only from a
   regular file of a bounded size, so a FIFO, a device or a folder is
   refused at once), and whether it is of version 1. */
typedef struct ckpt_in {
  const char *path;
  unsigned char *buf;
  size_t len;
  int v1;
} ckpt_in;

static void ckpt_free(ckpt_in *in) {
  free(in->buf);
  in->buf = NULL;
}

/* Reads path into in and checks its framing: the exit status. */
static int read_checkpoint(const char *path, ckpt_in *in) {
  char *text;
  int st;
  memset(in, 0, sizeof *in);
  in->path = path;
  if ((st = u_read_file(path, "a checkpoint", &text, &in->len)) != 0) return st;
  in->buf = (unsigned char *)text;
  st = la_checkpoint_run(in->buf, in->len, NULL, NULL);
  if (st == LA_EFORMAT && la_checkpoint_info(in->buf, in->len, NULL, NULL) == 0) {
    in->v1 = 1;
    st = 0;
  }
  if (st) {
    ckpt_free(in);
    return u_fail(st == LA_ENOMEM ? EXIT_NOMEM : EXIT_BAD_INPUT,
                  "%s is not a checkpoint this program can read: %s", U_Q(path),
                  la_status_str(st));
  }
  return 0;
}

/* The run a command describes: its flags over a preset, or, from a
   checkpoint (read into in, which the caller frees), the run saved there
   (the flags given must agree with it). A version 1 checkpoint holds no
   description: its flags then say it. */
static int resolve_run(const cli_config *c, const char *ckpt,
                       la_run_config *rc, ckpt_in *in) {
  char err[600];
  memset(in, 0, sizeof *in);
  if (ckpt) {
    la_run_config saved;
    int st = read_checkpoint(ckpt, in);
    if (st) return st;
    if (!in->v1) {
      if ((st = la_checkpoint_run(in->buf, in->len, &saved, NULL)) != 0) /* checked: memory */
        return u_fail(exit_of_status(st), "%s: %s", U_Q(ckpt), la_status_str(st));
      if (cli_resume_of(c, &saved, rc, err, sizeof err) != CLI_OK)
        return u_fail(EXIT_BAD_INPUT, "%s", err);
      return 0;
    }
  }
  if (cli_run_of(c, rc, err, sizeof err) != CLI_OK)
    return u_fail(EXIT_BAD_INPUT, "%s", err);
  return 0;
}

/* Loads a checkpoint into r: by its description, or (version 1) by shape. */
static int load_into(la_run *r, const ckpt_in *in) {
  const la_run_field *why = NULL;
  int st = in->v1 ? la_checkpoint_load_mem(&r->trainer, in->buf, in->len)
                  : la_run_resume_mem(r, in->buf, in->len, &why);
  if (st == LA_ESHAPE && why)
    return u_fail(EXIT_BAD_INPUT, "cannot resume from %s: its run differs in %s",
                  U_Q(in->path), why->key);
  if (st)
    return u_fail(st == LA_ENOMEM ? EXIT_NOMEM : EXIT_BAD_INPUT,
                  "cannot resume from %s: %s%s", U_Q(in->path), la_status_str(st),
                  in->v1 ? " (a version 1 checkpoint: give the run's flags)" : "");
  return 0;
}

/* ------------------------------------------------------------ outputs */
/* The output files of a command (train, noise, curvature, theorem),
   checked before anything is read, written or created: each a path that
   can be a file, outs[1] and outs[2] regular ones where `regular` (train's
   checkpoint is replaced by renaming, its trajectory's header rewritten in
   place); no two of them one file; none of them the file `in` the command
   reads, but outs[1] may be where `resaved` (a checkpoint resumed may be
   saved again in place); each in a folder where a file can be created
   (u_output_writable), so that no work is lost to an output refused at
   its end. A NULL path is not asked for (outs[0], --out: stdout). */
static int check_outputs(u_path *outs, int regular, const u_path *in,
                         int resaved) {
  int st, i;
  if ((st = u_output_ok(outs[0].flag, outs[0].path, 0)) != 0 ||
      (st = u_output_ok(outs[1].flag, outs[1].path, regular)) != 0 ||
      (outs[2].path && (st = u_output_ok(outs[2].flag, outs[2].path, regular)) != 0))
    return st;
  if ((st = u_no_alias(outs, 3, NULL, 0)) != 0) return st;
  if (resaved) {
    u_path both[2];
    both[0] = outs[0];
    both[1] = outs[2];
    st = u_no_alias(both, 2, in, 1);
  } else {
    st = u_no_alias(outs, 3, in, 1);
  }
  for (i = 0; i < 3 && !st; ++i) st = u_output_writable(outs[i].flag, outs[i].path);
  return st;
}

/* ------------------------------------------------------------ algebra */
/* Paper B's matrices in double (d <= 8), written out here so that the
   checks share nothing with the library beyond its public API: theorem's
   checks, paper B's (cli/commands/paperb.h) and train's heat maps use them. */
static double th_frob(int d, const double *a) {
  double s = 0;
  int i;
  for (i = 0; i < d * d; ++i) s += a[i] * a[i];
  return sqrt(s);
}

/* Dist(M, I) = ||M - (tr M / d) I||_F / ||M||_F (paper B). */
static double th_dist(int d, const double *m) {
  double tr = 0, s = 0, nm = th_frob(d, m);
  int i, j;
  for (i = 0; i < d; ++i) tr += m[i * d + i];
  for (i = 0; i < d; ++i)
    for (j = 0; j < d; ++j) {
      double e = m[i * d + j] - (i == j ? tr / d : 0);
      s += e * e;
    }
  return nm > 0 ? sqrt(s) / nm : 0;
}

static void th_mul(int d, const double *a, const double *b, double *c) {
  int i, j, k;
  for (i = 0; i < d; ++i)
    for (j = 0; j < d; ++j) {
      double s = 0;
      for (k = 0; k < d; ++k) s += a[i * d + k] * b[k * d + j];
      c[i * d + j] = s;
    }
}

/* Inverse by Gauss-Jordan with partial pivoting; 0 if singular. */
static int th_inverse(int d, const double *a, double *inv) {
  double m[128];
  int i, j, k, w = 2 * d;
  if (d > 8) return 0;
  for (i = 0; i < d; ++i)
    for (j = 0; j < w; ++j)
      m[i * w + j] = j < d ? a[i * d + j] : (j - d == i);
  for (k = 0; k < d; ++k) {
    int p = k;
    for (i = k + 1; i < d; ++i)
      if (fabs(m[i * w + k]) > fabs(m[p * w + k])) p = i;
    if (fabs(m[p * w + k]) < 1e-300) return 0;
    for (j = 0; j < w; ++j) {
      double t = m[k * w + j];
      m[k * w + j] = m[p * w + j];
      m[p * w + j] = t;
    }
    for (i = 0; i < d; ++i) {
      double f;
      if (i == k) continue;
      f = m[i * w + k] / m[k * w + k];
      for (j = 0; j < w; ++j) m[i * w + j] -= f * m[k * w + j];
    }
  }
  for (i = 0; i < d; ++i)
    for (j = 0; j < d; ++j) inv[i * d + j] = m[i * w + d + j] / m[i * w + i];
  return 1;
}

/* Sigma = L L^T from the generator's Cholesky factor (NULL: identity). */
static void th_sigma(const la_data *g, int d, double *s) {
  int i, j, k;
  for (i = 0; i < d; ++i)
    for (j = 0; j < d; ++j) {
      double v = 0;
      if (!g->chol) v = i == j;
      else
        for (k = 0; k < d; ++k)
          v += (double)g->chol[i * d + k] * (double)g->chol[j * d + k];
      s[i * d + j] = v;
    }
}

/* The symmetric square root through the library's eigensolver. */
static int th_sqrtm(int d, const double *s, double *r) {
  double a[64], w[8], v[64];
  int i, j, k, st;
  memcpy(a, s, sizeof(double) * (size_t)(d * d));
  if ((st = la_sym_eig(d, a, w, v, NULL, 0)) != 0) return st;
  for (i = 0; i < d; ++i)
    for (j = 0; j < d; ++j) {
      double x = 0;
      for (k = 0; k < d; ++k) x += v[k * d + i] * sqrt(fmax(w[k], 0)) * v[k * d + j];
      r[i * d + j] = x;
    }
  return 0;
}

/* Block `which` (0: B or A of pgd, 1: A of sparse) of layer l, as doubles. */
static void th_block(const la_model *m, const la_real *theta, int l, double *a) {
  int d = m->cfg.d, i, off;
  off = m->cfg.param == LA_PARAM_PGD ? l * d * d : (2 * l + 1) * d * d;
  for (i = 0; i < d * d; ++i) a[i] = (double)theta[off + i];
}

/* A check's word: it agrees with the theory or it is clearly off. */
static const char *th_verdict(int ok) { return ok ? "agrees" : "OFF"; }

#endif /* LINATTN_COMMON_H */
