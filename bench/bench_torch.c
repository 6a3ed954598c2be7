/* The library against independent PyTorch and JAX implementations of the
   same model (bench/py/torch_ref.py), whichever the given Python can import,
   on the CPU and on a GPU when one is there:

   1. the versions of everything that ran, the machine's cores and load;
   2. agreement: loss, gradient and HVP of each implementation on the same
      prompts and theta, and the library with every core against one
      thread (required: the same bits);
   3. the table: for each batch size (1,000, 20,000 and 100,000 unless -b
      says otherwise) the library with 1, 2, ... all cores (its built-in
      pool), then torch (1 thread, all threads, the GPU) and JAX (the CPU,
      the GPU): ms per training step (fresh prompts, gradient, global-norm
      clipping at 1, Adam with betas 0.9, 0.9), per loss and gradient, per
      Hessian-vector product, per fresh batch alone.

   The library's rows give the speedup over its own one-thread row (wall
   time) and `cpu`: the process CPU time per call over one thread's, 1.0
   when threads cost nothing beyond their share of the work. Times are the
   best of many groups of calls, wall clock for every thread count (the
   CPU clock beside it), so run it when the machine is quiet: the header
   prints the load average before and after.

   bench_torch [-b batch[,batch..]] [-L layers] [-d dim] [-n context]
               [-p sparse|dense] [-t max_threads] [-s seconds] [-r reps]
               [--no-torch] [--python PATH] [--script PATH]            */
#define _POSIX_C_SOURCE 200809L /* mkstemp, sysconf */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "bench_common.h"

#define BT_MAX_THREADS 256
#define BT_MAX_BATCHES 8

/* --------------------------------------------- the library's side */

typedef struct bt_setup {
  int batch, layers, d, n, param;
} bt_setup;

/* Everything one configuration needs with `threads` workers. */
typedef struct bt_lib {
  bt_setup s;
  int threads;
  la_pool *pool;
  la_model m;
  la_data_config dcfg;
  la_data data;
  la_batch b;
  la_rng rng; /* fresh batches for the `sample` row */
  void *work;
  size_t work_bytes;
  la_real *theta, *v, *grad, *hv;
  la_optim_config adam; /* paper A: beta1 = beta2 = 0.9, clipped at norm 1 */
  la_trainer tr;
  int has_tr;
} bt_lib;

static int bt_grad(bt_lib *L, double *loss) {
  return la_model_grad(&L->m, L->theta, &L->b, loss, L->grad, L->work,
                       L->work_bytes);
}
static int bt_hvp(bt_lib *L) {
  return la_model_hvp(&L->m, L->theta, &L->b, L->v, NULL, NULL, L->hv,
                      L->work, L->work_bytes);
}
/* One training step as a user runs it: the trainer on fresh prompts. */
static int bt_step(bt_lib *L) { return la_trainer_step(&L->tr); }

static void bt_lib_free(bt_lib *L) {
  if (L->has_tr) la_trainer_destroy(&L->tr);
  la_free(L->work);
  la_free(L->theta); la_free(L->v); la_free(L->grad); la_free(L->hv);
  la_batch_destroy(&L->b);
  la_data_destroy(&L->data);
  la_pool_destroy(L->pool);
  memset(L, 0, sizeof *L);
}

/* Sets up s with `threads` workers; theta ~ N(0, 0.05^2), v ~ N(0, 1),
   the fixed batch drawn once from setting 1. */
static int bt_lib_init(bt_lib *L, const bt_setup *s, int threads) {
  la_model_config mc;
  la_train_config tc;
  la_rng r;
  int st, i;
  memset(L, 0, sizeof *L);
  L->s = *s;
  L->threads = threads;
  if ((st = la_pool_create(&L->pool, threads))) return st;
  memset(&mc, 0, sizeof mc);
  mc.d = s->d; mc.n = s->n; mc.layers = s->layers; mc.param = s->param;
  mc.parallel = la_pool_parallel(L->pool);
  if ((st = la_model_init(&L->m, &mc))) return st;
  if ((st = la_data_preset(&L->dcfg, LA_SETTING_1))) return st;
  L->dcfg.d = s->d;
  L->dcfg.n = s->n;
  if ((st = la_data_create(&L->data, &L->dcfg, 1))) return st;
  if ((st = la_batch_create(&L->b, s->d, s->n, s->batch))) return st;
  L->work_bytes = la_model_work_bytes(&L->m);
  L->work = la_alloc(L->work_bytes ? L->work_bytes : 1);
  L->theta = (la_real *)la_alloc(sizeof(la_real) * L->m.nparams);
  L->v = (la_real *)la_alloc(sizeof(la_real) * L->m.nparams);
  L->grad = (la_real *)la_alloc(sizeof(la_real) * L->m.nparams);
  L->hv = (la_real *)la_alloc(sizeof(la_real) * L->m.nparams);
  if (!L->work || !L->theta || !L->v || !L->grad || !L->hv) return LA_ENOMEM;
  la_rng_seed(&r, 3, 0);
  if ((st = la_model_init_params(&L->m, &r, L->theta))) return st;
  for (i = 0; i < L->m.nparams; ++i) L->v[i] = (la_real)la_rng_normal(&r);
  la_rng_seed(&r, 4, 0);
  if ((st = la_data_sample(&L->data, &r, &L->b))) return st;
  la_rng_seed(&L->rng, 5, 0);
  memset(&L->adam, 0, sizeof L->adam);
  L->adam.lr = 1e-3;
  L->adam.beta1 = 0.9;
  L->adam.beta2 = 0.9;
  L->adam.eps = 1e-8;
  memset(&tc, 0, sizeof tc);
  tc.model = &L->m;
  tc.data = &L->data;
  tc.optimizer = la_optimizer_adam();
  tc.optimizer_config = &L->adam;
  tc.clip_norm = 1;
  tc.batch = s->batch;
  tc.eval_every = -1;
  tc.eval_batch = LA_W; /* never evaluated: the smallest batch */
  tc.seed = 2;
  tc.theta0 = L->theta;
  if ((st = la_trainer_create(&L->tr, &tc))) return st;
  L->has_tr = 1;
  return LA_OK;
}

/* ----------------------------------------------------------- timing */

typedef int (*bt_fn)(bt_lib *L);
typedef struct bt_timing { double wall, cpu; } bt_timing;

static double bt_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What the cores give at the moment: `threads` FMA loops at once, each on
   a thread of its own, against one loop alone. A shared host can put two
   virtual cores on one physical core for seconds at a time, and then two
   loops run at one loop's rate whatever the program: the threads' rows
   are read against this. A loop lasts about 4 ms. */
#define BT_LOOP_ITERS 800000
static void *bt_fma_loop(void *gflops) {
  *(double *)gflops = bench_fma_run(BT_LOOP_ITERS, bench_now);
  return NULL;
}

/* The capacity seen over a measurement: the least and greatest GFLOP/s of
   the loops together, and the best of one loop alone. */
typedef struct bt_cap { double lo, hi, one; } bt_cap;

static void bt_capacity(int threads, bt_cap *cap) {
  pthread_t tid[BT_MAX_THREADS];
  double g[BT_MAX_THREADS], one, sum;
  int i, started = 1;
  bt_fma_loop(&one);
  for (i = 1; i < threads; ++i, ++started)
    if (pthread_create(&tid[i], NULL, bt_fma_loop, &g[i])) break;
  bt_fma_loop(&g[0]);
  for (i = 1, sum = g[0]; i < started; ++i) {
    pthread_join(tid[i], NULL);
    sum += g[i];
  }
  if (one > cap->one) cap->one = one;
  if (sum < cap->lo) cap->lo = sum;
  if (sum > cap->hi) cap->hi = sum;
}

/* Seconds per call of fn on each of n libraries, wall and process CPU:
   each the best of `reps` groups of enough calls to fill min_s (a group's
   CPU time beside its wall). The libraries' groups are taken in turn (one
   of each, reps times), so that a machine that speeds up or slows down
   meanwhile (a neighbour, the clock) weighs on all alike: the ratios
   between them are what the threads' rows report; -1 when a call fails
   (a diverged training step), whose time would not be the work's. With
   cap, the cores' capacity for n threads (bt_capacity) is taken after
   every turn. */
static int bt_measure_turns(bt_lib *const *L, int n, bt_fn fn, double min_s,
                            int reps, bt_timing *best, bt_cap *cap) {
  long calls[BT_MAX_THREADS], c;
  int i, r;
  for (i = 0; i < n; ++i) {
    double t0, once;
    if (fn(L[i])) return -1;
    t0 = bench_now();
    fn(L[i]);
    once = bench_now() - t0;
    calls[i] = once > 0 ? (long)(min_s / once) : 1000;
    if (calls[i] < 1) calls[i] = 1;
    best[i].wall = best[i].cpu = 1e300;
  }
  for (r = 0; r < reps; ++r) {
    for (i = 0; i < n; ++i) {
      double t0 = bench_now(), c0 = bt_cpu_now(), w, u;
      for (c = 0; c < calls[i]; ++c) /* a failed call returns early */
        if (fn(L[i])) return -1;
      w = (bench_now() - t0) / calls[i];
      u = (bt_cpu_now() - c0) / calls[i];
      if (w < best[i].wall) best[i].wall = w;
      if (u < best[i].cpu) best[i].cpu = u;
    }
    if (cap) bt_capacity(n, cap);
  }
  return 0;
}

/* bt_measure_turns for one library; -1 when fn fails. */
static bt_timing bt_measure(bt_lib *L, bt_fn fn, double min_s, int reps) {
  bt_timing best;
  if (bt_measure_turns(&L, 1, fn, min_s, reps, &best, NULL))
    best.wall = best.cpu = -1;
  return best;
}

/* Seconds per call as bench_scaling wants it: process CPU time with one
   thread (a busy neighbour does not inflate it), wall time with more. */
static double bt_time(bt_lib *L, bt_fn fn, double min_s, int reps) {
  bt_timing t = bt_measure(L, fn, min_s, reps);
  return L->threads > 1 ? t.wall : t.cpu;
}

/* What follows is the comparison program; bench_scaling.c includes this
   file with BT_NO_MAIN for the library's side above. */
#ifndef BT_NO_MAIN
static int bt_sample(bt_lib *L) {
  return la_data_sample(&L->data, &L->rng, &L->b);
}

/* ------------------------------------------------ the Python side */

#define BT_MAGIC 0x3154414c

typedef struct bt_opts {
  bt_setup s;
  int batches[BT_MAX_BATCHES], nbatches;
  int threads, reps, use_torch;
  double min_s;
  const char *python, *script;
} bt_opts;

static int bt_write_all(FILE *f, const void *p, size_t n) {
  return fwrite(p, 1, n, f) == n ? 0 : -1;
}

/* The exchange file torch_ref.py reads: the header, then the prompts,
   targets, theta and v of L (theta per layer [P part, Q part]). */
static int bt_write_exchange(const char *path, bt_lib *L, int threads,
                             double min_s, int reps) {
  int32_t head[16];
  size_t count = (size_t)L->b.count, zr = (size_t)(L->s.d + 1) * (L->s.n + 1);
  la_real *plain = (la_real *)malloc(sizeof(la_real) * count * zr);
  FILE *f = fopen(path, "wb");
  int bad = !plain || !f;
  memset(head, 0, sizeof head);
  head[0] = BT_MAGIC; head[1] = (int32_t)sizeof(la_real);
  head[2] = L->s.d; head[3] = L->s.n; head[4] = L->s.layers;
  head[5] = L->s.param; head[6] = L->s.batch; head[7] = L->m.nparams;
  head[8] = 0; head[9] = threads; head[10] = (int32_t)(min_s * 1000);
  head[11] = reps;
  if (!bad) bad = bt_write_all(f, head, sizeof head);
  if (!bad) bad = la_unpack(L->b.count, (int)zr, 1, L->b.z, plain) ||
                  bt_write_all(f, plain, sizeof(la_real) * count * zr);
  if (!bad) bad = la_unpack(L->b.count, 1, 1, L->b.y, plain) ||
                  bt_write_all(f, plain, sizeof(la_real) * count);
  if (!bad) bad = bt_write_all(f, L->theta, sizeof(la_real) * L->m.nparams);
  if (!bad) bad = bt_write_all(f, L->v, sizeof(la_real) * L->m.nparams);
  if (f && fclose(f)) bad = 1;
  free(plain);
  return bad ? -1 : 0;
}

/* Runs `torch_ref.py ARGS` with its output going to out; the exit status
   (3: neither torch nor JAX importable). */
static int bt_python(const bt_opts *o, const char *args, const char *out) {
  char cmd[1400];
  int rc;
  snprintf(cmd, sizeof cmd, "'%s' '%s' %s > '%s'", o->python, o->script, args,
           out);
  fflush(stdout);
  rc = system(cmd);
  return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void bt_cat(const char *path, const char *prefix) {
  char line[1024];
  FILE *f = fopen(path, "r");
  if (!f) return;
  while (fgets(line, sizeof line, f)) printf("%s%s", prefix, line);
  fclose(f);
}

/* ||a - b|| / ||b||, a in la_real, b in double. */
static double bt_reldiff(int n, const la_real *a, const double *b) {
  double num = 0, den = 0;
  int i;
  for (i = 0; i < n; ++i) {
    num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    den += b[i] * b[i];
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* The `check` lines of torch_ref.py (one per implementation and device)
   against the library's values on L's batch; 1 if one is beyond the
   precision's tolerance. */
static int bt_check_refs(bt_lib *L, const char *path) {
  double tol = sizeof(la_real) == 8 ? 1e-5 : 1e-3, loss, rl, rg, rh;
  int np = L->m.nparams, i, bad = 0, st;
  double *g = (double *)malloc(sizeof(double) * 2 * (size_t)np), *h = g + np;
  char name[128], word[16];
  FILE *f = fopen(path, "r");
  if (!f || !g) { free(g); if (f) fclose(f); return 1; }
  st = bt_grad(L, &loss);
  if (!st) st = bt_hvp(L);
  if (st) {
    printf("bench_torch: the library failed: %s\n", la_status_str(st));
    free(g); fclose(f);
    return 1;
  }
  while (fscanf(f, "%15s", word) == 1) {
    double rloss;
    if (strcmp(word, "check") || fscanf(f, "%127s %lf", name, &rloss) != 2) {
      if (fscanf(f, "%*[^\n]") < 0) break;
      continue;
    }
    for (i = 0; i < np; ++i) if (fscanf(f, "%lf", &g[i]) != 1) break;
    for (i = 0; i < np; ++i) if (fscanf(f, "%lf", &h[i]) != 1) break;
    rl = fabs(loss - rloss) / fabs(rloss);
    rg = bt_reldiff(np, L->grad, g);
    rh = bt_reldiff(np, L->hv, h);
    printf("check %-16s vs linattn %s: relative difference loss %.2e, "
           "gradient %.2e, HVP %.2e (tolerance %.0e): %s\n", name,
           sizeof(la_real) == 8 ? "double" : "float", rl, rg, rh, tol,
           rl <= tol && rg <= tol && rh <= tol ? "ok" : "FAILED");
    bad |= !(rl <= tol && rg <= tol && rh <= tol);
  }
  fclose(f);
  free(g);
  return bad;
}

/* The library with `threads` workers against one thread: the same bits
   for loss, gradient, HVP and three training steps. */
static int bt_check_threads(const bt_setup *s, int threads) {
  bt_lib one, many;
  double l1 = 0, l2 = 1;
  int st = bt_lib_init(&one, s, 1), same = 0, k;
  if (!st) st = bt_lib_init(&many, s, threads);
  if (!st) st = bt_grad(&one, &l1) || bt_grad(&many, &l2) || bt_hvp(&one) ||
                bt_hvp(&many);
  for (k = 0; k < 3 && !st; ++k) st = bt_step(&one) || bt_step(&many);
  if (!st) {
    int np = one.m.nparams;
    same = l1 == l2 && !memcmp(one.grad, many.grad, sizeof(la_real) * np) &&
           !memcmp(one.hv, many.hv, sizeof(la_real) * np) &&
           !memcmp(one.tr.theta, many.tr.theta, sizeof(la_real) * np);
    printf("check %d threads vs 1, batch %d: loss, gradient, HVP and theta "
           "after 3 steps %s\n", threads, s->batch,
           same ? "bit-identical: ok" : "DIFFER: FAILED");
  } else {
    printf("bench_torch: the library failed: %s\n", la_status_str(st));
  }
  bt_lib_free(&one);
  bt_lib_free(&many);
  return st || !same;
}

/* ------------------------------------------------------------ table */

static int bt_fn_grad(bt_lib *L) {
  double loss;
  return bt_grad(L, &loss);
}

#define BT_ROW_HEAD "%-6s %7s %-8s %-6s %7s %12s %8s %6s\n"
static void bt_row(const char *op, int batch, const char *impl,
                   const char *dev, int threads, double ms, double speedup,
                   double cpu) {
  char sp[16] = "-", cp[16] = "-";
  if (speedup > 0) snprintf(sp, sizeof sp, "%.2fx", speedup);
  if (cpu > 0) snprintf(cp, sizeof cp, "%.2f", cpu);
  printf("%-6s %7d %-8s %-6s %7d %12.4f %8s %6s\n", op, batch, impl, dev,
         threads, ms, sp, cp);
}

/* The threads' targets where this run meets one: all threads of a 2-core
   machine at least 1.9x one thread at 1,000 and 20,000 prompts; of a
   16-core machine at least 14x at 100,000. sp: step, grad, hvp; cap: what
   the cores gave meanwhile, printed first (for any thread count). */
static void bt_target_threads(int threads, int batch, const double *sp,
                              bt_cap cap) {
  double want = threads == 2 && (batch == 1000 || batch == 20000) ? 1.9
                : threads == 16 && batch == 100000              ? 14
                                                                 : 0;
  if (cap.one > 0) /* measured with more than one thread */
    printf("# the cores meanwhile: %d FMA loops at once ran at %.2fx to "
           "%.2fx the best rate of one alone (%d free cores: %dx)\n", threads,
           cap.lo / cap.one, cap.hi / cap.one, threads, threads);
  if (want == 0) return;
  printf("# target %d threads over one, batch %d: step %.2fx, grad %.2fx, "
         "hvp %.2fx, %s (>= %gx)\n", threads, batch, sp[0], sp[1], sp[2],
         sp[0] >= want && sp[1] >= want && sp[2] >= want ? "PASS" : "MISS", want);
}

/* The library's rows for one batch size, threads 1 .. o->threads, every
   thread count's groups taken in turn (bt_measure_turns). */
static int bt_table_lib(const bt_opts *o, const bt_setup *s) {
  static const char *ops[4] = {"step", "grad", "hvp", "sample"};
  static const bt_fn fns[4] = {bt_step, bt_fn_grad, bt_hvp, bt_sample};
  static bt_lib libs[BT_MAX_THREADS];
  bt_lib *L[BT_MAX_THREADS];
  bt_timing t[4][BT_MAX_THREADS];
  double sp[4] = {0, 0, 0, 0}; /* all threads' speedups */
  bt_cap cap = {1e300, 0, 0};
  int th, k, st = 0, made = 0, bad = 0;
  for (th = 1; th <= o->threads && !st; ++th, ++made) {
    L[th - 1] = &libs[th - 1];
    if ((st = bt_lib_init(L[th - 1], s, th)))
      printf("bench_torch: the library refused batch %d, %d threads: %s\n",
             s->batch, th, la_status_str(st));
  }
  for (k = 0; k < 4 && !st && !bad; ++k)
    if (bt_measure_turns(L, o->threads, fns[k], o->min_s, o->reps, t[k],
                         o->threads > 1 ? &cap : NULL)) {
      printf("bench_torch: %s failed\n", ops[k]);
      bad = 1;
    }
  for (th = 1; th <= o->threads && !st && !bad; ++th)
    for (k = 0; k < 4; ++k) {
      const bt_timing *one = &t[k][0], *x = &t[k][th - 1];
      sp[k] = one->wall / x->wall;
      bt_row(ops[k], s->batch, "linattn", "cpu", th, 1e3 * x->wall, sp[k],
             x->cpu / one->cpu);
    }
  for (th = 0; th < made; ++th) bt_lib_free(&libs[th]);
  if (st || bad) return 1;
  bt_target_threads(o->threads, s->batch, sp, cap);
  fflush(stdout);
  return 0;
}

static void bt_load(const char *when) {
  char buf[128] = "?";
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (!fgets(buf, sizeof buf, f)) strcpy(buf, "?");
    fclose(f);
  }
  buf[strcspn(buf, "\n")] = 0;
  printf("# load average %s: %s (%d cores online)\n", when, buf,
         la_cpu_count());
}

static int bt_parse_batches(const char *val, bt_opts *o) {
  char *end;
  o->nbatches = 0;
  while (*val && o->nbatches < BT_MAX_BATCHES) {
    long b = strtol(val, &end, 10);
    if (end == val || b < 1 || b > 10000000) return -1;
    o->batches[o->nbatches++] = (int)b;
    val = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return -1;
  }
  return o->nbatches ? 0 : -1;
}

static int bt_parse(int argc, char **argv, bt_opts *o) {
  int i;
  o->s.batch = 1000; o->s.layers = 3; o->s.d = 5; o->s.n = 20;
  o->s.param = LA_PARAM_SPARSE;
  o->batches[0] = 1000; o->batches[1] = 20000; o->batches[2] = 100000;
  o->nbatches = 3;
  o->threads = la_cpu_count();
  if (o->threads > BT_MAX_THREADS) o->threads = BT_MAX_THREADS;
  o->reps = 20; o->min_s = 0.02; o->use_torch = 1;
  o->python = "/usr/bin/python3"; o->script = "bench/py/torch_ref.py";
  for (i = 1; i < argc; ++i) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--no-torch")) { o->use_torch = 0; continue; }
    if (!val) return -1;
    ++i;
    if (!strcmp(a, "-b")) { if (bt_parse_batches(val, o)) return -1; }
    else if (!strcmp(a, "-L")) o->s.layers = atoi(val);
    else if (!strcmp(a, "-d")) o->s.d = atoi(val);
    else if (!strcmp(a, "-n")) o->s.n = atoi(val);
    else if (!strcmp(a, "-t")) o->threads = atoi(val);
    else if (!strcmp(a, "-r")) o->reps = atoi(val);
    else if (!strcmp(a, "-s")) o->min_s = atof(val);
    else if (!strcmp(a, "-p"))
      o->s.param = !strcmp(val, "dense") ? LA_PARAM_DENSE : LA_PARAM_SPARSE;
    else if (!strcmp(a, "--python")) o->python = val;
    else if (!strcmp(a, "--script")) o->script = val;
    else return -1;
  }
  o->s.batch = o->batches[0];
  if (o->s.layers < 1 || o->s.d < 1 || o->s.n < 1 || o->threads < 1 ||
      o->threads > BT_MAX_THREADS || o->reps < 1 || !(o->min_s > 0))
    return -1;
  return 0;
}

int main(int argc, char **argv) {
  static const char *names[] = {"sparse", "dense", "pgd"};
  bt_opts o;
  bt_lib L;
  char in[64], out[72], args[512];
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  int st, rc = 3, bad = 0, k, fd;
  (void)bt_time; /* bench_scaling's */
  if (bt_parse(argc, argv, &o)) {
    fprintf(stderr, "usage: bench_torch [-b batch[,batch..]] [-L layers] "
                    "[-d dim] [-n context] [-p sparse|dense] [-t max_threads] "
                    "[-s secs] [-r reps] [--no-torch] [--python P] "
                    "[--script S]\n");
    return 2;
  }
  bench_header("bench_torch", bench_fma_peak_gflops());
  bt_load("at the start");
  printf("# setting: %s, L = %d, d = %d, N = %d, setting-1 prompts; "
         "threads 1 .. %d\n", names[o.s.param], o.s.layers, o.s.d, o.s.n,
         o.threads);
  snprintf(in, sizeof in, "%.40s/la-torch-XXXXXX", tmp);
  fd = mkstemp(in);
  if (fd < 0) { perror("bench_torch: mkstemp"); return 1; }
  close(fd);
  snprintf(out, sizeof out, "%s.out", in);
  if (o.use_torch) { /* versions first: they head the output */
    snprintf(args, sizeof args, "versions");
    rc = bt_python(&o, args, out);
    if (rc == 3 || rc == 0) bt_cat(out, "# ");
    if (rc == 3)
      printf("# neither PyTorch nor JAX imports in %s: their rows are "
             "skipped (apt-get install python3-torch python3-numpy)\n",
             o.python);
    else if (rc)
      printf("# %s %s failed (status %d): their rows are skipped\n", o.python,
             o.script, rc);
  }
  /* agreement on the first batch size */
  if ((st = bt_lib_init(&L, &o.s, 1))) {
    printf("bench_torch: the library refused the setting: %s\n",
           la_status_str(st));
    bt_lib_free(&L);
    remove(in);
    return 1;
  }
  if (!rc) {
    if (bt_write_exchange(in, &L, o.threads, o.min_s, o.reps)) rc = -1;
    snprintf(args, sizeof args, "check '%s'", in);
    if (!rc && (rc = bt_python(&o, args, out)) == 0) bad |= bt_check_refs(&L, out);
    if (rc) printf("# the reference check failed (status %d)\n", rc);
  }
  bt_lib_free(&L);
  if (o.threads > 1) bad |= bt_check_threads(&o.s, o.threads);
  printf("# ms per call, best of %d groups of calls of at least %.0f ms each; "
         "wall time.\n# step = fresh prompts + gradient + clipping + Adam (the "
         "trainer); sample = la_data_sample alone (one thread);\n# speedup = linattn's one-thread "
         "time over this row's; cpu = process CPU time per call over one "
         "thread's\n", o.reps, 1e3 * o.min_s);
  printf(BT_ROW_HEAD, "op", "batch", "impl", "device", "threads", "ms/call",
         "speedup", "cpu");
  for (k = 0; k < o.nbatches; ++k) {
    bt_setup s = o.s;
    s.batch = o.batches[k];
    bad |= bt_table_lib(&o, &s);
    if (!rc) {
      snprintf(args, sizeof args, "table %d %d %d %d %d %d %d %g %d",
               (int)sizeof(la_real), s.d, s.n, s.layers, s.param, s.batch,
               o.threads, o.min_s, o.reps);
      if (bt_python(&o, args, out) == 0) bt_cat(out, "");
      else printf("# the reference timings failed for batch %d\n", s.batch);
    }
    fflush(stdout);
  }
  bt_load("at the end");
  remove(in);
  remove(out);
  return bad || (rc && rc != 3);
}
#endif
