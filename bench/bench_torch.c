/* The library against an independent PyTorch implementation of the same
   model (bench/torch_ref.py), on the same prompts and parameters, in one
   run: time per training step (fresh prompts, gradient, global-norm
   clipping, Adam), per loss and gradient, per Hessian-vector product, with
   one thread and with every core; then how far apart the two results are.

   The prompts and theta go to a temporary file, the PyTorch side computes
   and times on them and writes its results back. The library splits the
   batch over threads by whole panels and adds the parts, weighted by their
   prompt counts, since the loss is a mean over the batch.

   bench_torch [-b batch] [-L layers] [-d dim] [-n context] [-p sparse|dense]
               [-t threads] [-s seconds] [-r repetitions] [--no-torch]
               [--python PATH] [--script PATH]                          */
#define _POSIX_C_SOURCE 200809L /* barriers, mkstemp, sysconf */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "bench_common.h"

/* ------------------------------------------------- a pool of threads */
/* Workers wait at a barrier, run their share, meet at the barrier again;
   the calling thread is worker 0, so a 1-thread pool has no thread. The
   barrier spins before it yields: a call lasts a fraction of a millisecond,
   and a futex wake-up (pthread_barrier_wait) costs a good part of that. */
#define BT_MAX_THREADS 64

typedef struct bt_barrier { int count, gen, n; } bt_barrier;

static void bt_barrier_wait(bt_barrier *b) {
  int gen = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
  if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == b->n) {
    __atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->gen, gen + 1, __ATOMIC_RELEASE);
  } else {
    long spins = 0;
    while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == gen)
      if (++spins > 20000) sched_yield(); /* a descheduled partner */
  }
}

typedef struct bt_pool bt_pool;
typedef void (*bt_job)(bt_pool *p, int worker);
typedef struct { bt_pool *pool; int worker; } bt_worker_arg;
struct bt_pool {
  int nthreads;
  pthread_t tid[BT_MAX_THREADS];
  bt_worker_arg args[BT_MAX_THREADS];
  bt_barrier start, done;
  bt_job job;
  void *arg;
  int quit;
};

static void *bt_worker(void *varg) {
  bt_worker_arg *a = (bt_worker_arg *)varg;
  for (;;) {
    bt_barrier_wait(&a->pool->start);
    if (__atomic_load_n(&a->pool->quit, __ATOMIC_ACQUIRE)) return NULL;
    a->pool->job(a->pool, a->worker);
    bt_barrier_wait(&a->pool->done);
  }
}

static int bt_pool_start(bt_pool *p, int nthreads) {
  int i;
  memset(p, 0, sizeof *p);
  p->nthreads = nthreads;
  if (nthreads <= 1) return 0;
  p->start.n = p->done.n = nthreads;
  for (i = 1; i < nthreads; ++i) {
    p->args[i].pool = p;
    p->args[i].worker = i;
    if (pthread_create(&p->tid[i], NULL, bt_worker, &p->args[i])) {
      perror("bench_torch: pthread_create"); /* the barrier would hang */
      exit(1);
    }
  }
  return 0;
}

static void bt_pool_run(bt_pool *p, bt_job job, void *arg) {
  p->job = job;
  p->arg = arg;
  if (p->nthreads <= 1) { job(p, 0); return; }
  bt_barrier_wait(&p->start);
  job(p, 0);
  bt_barrier_wait(&p->done);
}

static void bt_pool_stop(bt_pool *p) {
  int i;
  if (p->nthreads <= 1) return;
  __atomic_store_n(&p->quit, 1, __ATOMIC_RELEASE);
  bt_barrier_wait(&p->start);
  for (i = 1; i < p->nthreads; ++i) pthread_join(p->tid[i], NULL);
}

/* --------------------------------------------- the library's side */

typedef struct bt_setup {
  int batch, layers, d, n, param;
} bt_setup;

/* Everything one configuration needs, threads included. */
typedef struct bt_lib {
  bt_setup s;
  la_model m;
  la_data_config dcfg;
  la_data data;
  la_batch b;
  la_batch view[BT_MAX_THREADS]; /* each worker's panels of b */
  la_rng rng[BT_MAX_THREADS];    /* each worker's stream of fresh prompts */
  void *work[BT_MAX_THREADS];
  size_t work_bytes;
  la_real *theta, *v, *grad, *hv;
  la_real *part[BT_MAX_THREADS]; /* each worker's gradient or HVP */
  double loss_part[BT_MAX_THREADS];
  int status[BT_MAX_THREADS];
  la_adam_config adam; /* paper A: beta1 = beta2 = 0.9, clipped at norm 1 */
  double *state;
  size_t state_len;
  la_real *update;
  bt_pool pool;
} bt_lib;

/* Worker w's share: panels [P w / T, P (w+1) / T) of the batch. */
static void bt_split(bt_lib *L) {
  int T = L->pool.nthreads, P = la_panels(L->b.count), w;
  size_t zp = (size_t)(L->b.d + 1) * (L->b.n + 1) * LA_W;
  for (w = 0; w < T; ++w) {
    int p0 = (int)((long)P * w / T), p1 = (int)((long)P * (w + 1) / T);
    int last = p1 * LA_W < L->b.count ? p1 * LA_W : L->b.count;
    la_batch *v = &L->view[w];
    *v = L->b;
    v->count = last - p0 * LA_W;
    v->z = L->b.z + zp * p0;
    v->y = L->b.y + (size_t)LA_W * p0;
  }
}

static void bt_job_sample(bt_pool *p, int w) {
  bt_lib *L = (bt_lib *)p->arg;
  L->status[w] = L->view[w].count > 0
                     ? la_data_sample(&L->data, &L->rng[w], &L->view[w])
                     : LA_OK;
}
static void bt_job_grad(bt_pool *p, int w) {
  bt_lib *L = (bt_lib *)p->arg;
  L->loss_part[w] = 0;
  L->status[w] = L->view[w].count > 0
                     ? la_model_grad(&L->m, L->theta, &L->view[w],
                                     &L->loss_part[w], L->part[w], L->work[w],
                                     L->work_bytes)
                     : LA_OK;
}
static void bt_job_hvp(bt_pool *p, int w) {
  bt_lib *L = (bt_lib *)p->arg;
  L->status[w] = L->view[w].count > 0
                     ? la_model_hvp(&L->m, L->theta, &L->view[w], L->v, NULL,
                                    NULL, L->part[w], L->work[w],
                                    L->work_bytes)
                     : LA_OK;
}
static void bt_job_step(bt_pool *p, int w) {
  bt_job_sample(p, w);
  if (((bt_lib *)p->arg)->status[w] == LA_OK) bt_job_grad(p, w);
}

/* out = sum_w (count_w / count) part_w; the loss likewise. */
static int bt_combine(bt_lib *L, la_real *out, double *loss) {
  int w, i, T = L->pool.nthreads, np = L->m.nparams;
  double sum = 0;
  for (w = 0; w < T; ++w)
    if (L->status[w]) return L->status[w];
  if (T == 1) {
    if (out != L->part[0]) memcpy(out, L->part[0], sizeof(la_real) * np);
    if (loss) *loss = L->loss_part[0];
    return LA_OK;
  }
  for (i = 0; i < np; ++i) out[i] = 0;
  for (w = 0; w < T; ++w) {
    la_real share = (la_real)L->view[w].count / (la_real)L->b.count;
    if (L->view[w].count) la_axpy(np, share, L->part[w], out);
    sum += (double)L->view[w].count / L->b.count * L->loss_part[w];
  }
  if (loss) *loss = sum;
  return LA_OK;
}

static int bt_grad(bt_lib *L, double *loss) {
  bt_pool_run(&L->pool, bt_job_grad, L);
  return bt_combine(L, L->grad, loss);
}
static int bt_hvp(bt_lib *L) {
  bt_pool_run(&L->pool, bt_job_hvp, L);
  return bt_combine(L, L->hv, NULL);
}
/* One training step as a user runs it: fresh prompts, the gradient,
   global-norm clipping at 1 and an Adam update. */
static int bt_step(bt_lib *L) {
  double loss;
  int st;
  bt_pool_run(&L->pool, bt_job_step, L);
  st = bt_combine(L, L->grad, &loss);
  if (!st) st = la_clip_norm(L->m.nparams, L->grad, 1.0, NULL);
  if (!st)
    st = la_optim_step(la_optimizer_adam(), &L->adam, L->m.nparams, L->state,
                       L->state_len, 1.0, L->grad, L->theta, L->update);
  return st;
}

static void bt_lib_free(bt_lib *L) {
  int w;
  for (w = 0; w < BT_MAX_THREADS; ++w) {
    la_free(L->work[w]);
    la_free(L->part[w]);
  }
  la_free(L->theta); la_free(L->v); la_free(L->grad); la_free(L->hv);
  la_free(L->update);
  free(L->state);
  la_batch_destroy(&L->b);
  la_data_destroy(&L->data);
  bt_pool_stop(&L->pool);
}

/* Sets up s with `threads` workers; theta ~ N(0, 0.05^2), v ~ N(0, 1),
   the batch sampled once from setting 1. */
static int bt_lib_init(bt_lib *L, const bt_setup *s, int threads) {
  la_model_config mc;
  la_rng r;
  int st, w, i;
  memset(L, 0, sizeof *L);
  L->s = *s;
  memset(&mc, 0, sizeof mc);
  mc.d = s->d; mc.n = s->n; mc.layers = s->layers; mc.param = s->param;
  if ((st = la_model_init(&L->m, &mc))) return st;
  if ((st = la_data_preset(&L->dcfg, LA_SETTING_1))) return st;
  L->dcfg.d = s->d;
  L->dcfg.n = s->n;
  if ((st = la_data_create(&L->data, &L->dcfg, 1))) return st;
  if ((st = la_batch_create(&L->b, s->d, s->n, s->batch))) return st;
  if (bt_pool_start(&L->pool, threads)) return LA_ENOMEM;
  L->work_bytes = la_model_work_bytes(&L->m);
  for (w = 0; w < threads; ++w) {
    L->work[w] = la_alloc(L->work_bytes ? L->work_bytes : 1);
    L->part[w] = (la_real *)la_alloc(sizeof(la_real) * L->m.nparams);
    if (!L->work[w] || !L->part[w]) return LA_ENOMEM;
    la_rng_seed(&L->rng[w], 2, (uint64_t)w + 1);
  }
  L->theta = (la_real *)la_alloc(sizeof(la_real) * L->m.nparams);
  L->v = (la_real *)la_alloc(sizeof(la_real) * L->m.nparams);
  L->grad = (la_real *)la_alloc(sizeof(la_real) * L->m.nparams);
  L->hv = (la_real *)la_alloc(sizeof(la_real) * L->m.nparams);
  L->update = (la_real *)la_alloc(sizeof(la_real) * L->m.nparams);
  if (!L->theta || !L->v || !L->grad || !L->hv || !L->update)
    return LA_ENOMEM;
  la_rng_seed(&r, 3, 0);
  if ((st = la_model_init_params(&L->m, &r, L->theta))) return st;
  for (i = 0; i < L->m.nparams; ++i) L->v[i] = (la_real)la_rng_normal(&r);
  la_rng_seed(&r, 4, 0);
  if ((st = la_data_sample(&L->data, &r, &L->b))) return st;
  bt_split(L);
  memset(&L->adam, 0, sizeof L->adam);
  L->adam.lr = 1e-3;
  L->adam.beta1 = 0.9;
  L->adam.beta2 = 0.9;
  L->adam.eps = 1e-8;
  if ((st = la_optim_state_len(la_optimizer_adam(), &L->adam, L->m.nparams,
                               &L->state_len)))
    return st;
  L->state = (double *)malloc(sizeof(double) * (L->state_len + 1));
  if (!L->state) return LA_ENOMEM;
  return la_optim_init(la_optimizer_adam(), &L->adam, L->m.nparams, L->state,
                       L->state_len);
}

/* ----------------------------------------------------------- timing */

typedef int (*bt_fn)(bt_lib *L);

/* CPU seconds used by the process: with one thread, unlike wall time, not
   inflated while other programs hold the core. */
static double bt_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds per call: best of `reps` repetitions of enough calls to fill
   min_s. One thread is timed by CPU time, several by wall time. */
static double bt_time(bt_lib *L, bt_fn fn, double min_s, int reps) {
  double (*now)(void) = L->pool.nthreads > 1 ? bench_now : bt_cpu_now;
  double t0, once, dt, best = 1e300;
  long calls, c;
  int r;
  if (fn(L)) return -1;
  t0 = now();
  fn(L);
  once = now() - t0;
  calls = once > 0 ? (long)(min_s / once) : 1000;
  if (calls < 1) calls = 1;
  for (r = 0; r < reps; ++r) {
    t0 = now();
    for (c = 0; c < calls; ++c) fn(L);
    dt = (now() - t0) / calls;
    if (dt < best) best = dt;
  }
  return best;
}

/* What follows is the comparison program; bench_scaling.c includes this
   file with BT_NO_MAIN for the pool and the step above. */
#ifndef BT_NO_MAIN
typedef struct bt_times { double step, grad, hvp, sample; } bt_times;
static int bt_fn_grad(bt_lib *L) { double loss; return bt_grad(L, &loss); }
static int bt_fn_sample(bt_lib *L) {
  int w;
  bt_pool_run(&L->pool, bt_job_sample, L);
  for (w = 0; w < L->pool.nthreads; ++w)
    if (L->status[w]) return L->status[w];
  return LA_OK;
}

/* Times the three operations, the steps last since they move theta. */
static int bt_time_lib(const bt_setup *s, int threads, double min_s, int reps,
                       bt_times *t) {
  bt_lib L;
  int st = bt_lib_init(&L, s, threads);
  /* the library's calls take a millisecond: twenty times as many groups,
     each a twentieth as long, so that the best one is one no neighbour
     disturbed (torch's 20-100 ms calls keep min_s and reps) */
  min_s /= 20;
  reps *= 20;
  if (!st) {
    t->grad = bt_time(&L, bt_fn_grad, min_s, reps);
    t->hvp = bt_time(&L, bt_hvp, min_s, reps);
    t->sample = bt_time(&L, bt_fn_sample, min_s, reps);
    t->step = bt_time(&L, bt_step, min_s, reps);
    if (t->grad < 0 || t->hvp < 0 || t->step < 0 || t->sample < 0)
      st = LA_EDIVERGED;
  }
  bt_lib_free(&L);
  return st;
}

/* ------------------------------------------- the exchange with torch */

#define BT_MAGIC 0x3154414c

/* theta in torch_ref.py's order: per layer [P part, Q part], row-major. */
static void bt_canonical(const la_model *m, const la_real *theta,
                         la_real *out) {
  memcpy(out, theta, sizeof(la_real) * m->nparams);
}

static int bt_write_all(FILE *f, const void *p, size_t n) {
  return fwrite(p, 1, n, f) == n ? 0 : -1;
}

static int bt_write_exchange(const char *path, bt_lib *L, int timing,
                             int threads, double min_s, int reps) {
  int32_t head[16];
  size_t count = (size_t)L->b.count, zr = (size_t)(L->s.d + 1) * (L->s.n + 1);
  la_real *plain = (la_real *)malloc(sizeof(la_real) * count * zr);
  la_real *canon = (la_real *)malloc(sizeof(la_real) * L->m.nparams);
  FILE *f = fopen(path, "wb");
  int bad = !plain || !canon || !f;
  memset(head, 0, sizeof head);
  head[0] = BT_MAGIC; head[1] = (int32_t)sizeof(la_real);
  head[2] = L->s.d; head[3] = L->s.n; head[4] = L->s.layers;
  head[5] = L->s.param; head[6] = L->s.batch; head[7] = L->m.nparams;
  head[8] = timing; head[9] = threads; head[10] = (int32_t)(min_s * 1000);
  head[11] = reps;
  if (!bad) bad = bt_write_all(f, head, sizeof head);
  if (!bad) bad = la_unpack(L->b.count, (int)zr, 1, L->b.z, plain) ||
                  bt_write_all(f, plain, sizeof(la_real) * count * zr);
  if (!bad) bad = la_unpack(L->b.count, 1, 1, L->b.y, plain) ||
                  bt_write_all(f, plain, sizeof(la_real) * count);
  bt_canonical(&L->m, L->theta, canon);
  if (!bad) bad = bt_write_all(f, canon, sizeof(la_real) * L->m.nparams);
  bt_canonical(&L->m, L->v, canon);
  if (!bad) bad = bt_write_all(f, canon, sizeof(la_real) * L->m.nparams);
  if (f && fclose(f)) bad = 1;
  free(plain);
  free(canon);
  return bad ? -1 : 0;
}

typedef struct bt_torch {
  double loss;
  double *grad, *hvp;
  int ntimes;
  int threads[4];
  bt_times t[4];
  char info[256]; /* torch's version and BLAS */
} bt_torch;

static int bt_read_vec(FILE *f, const char *key, double *out, int n) {
  char word[16];
  int i;
  if (fscanf(f, "%15s", word) != 1 || strcmp(word, key)) return -1;
  for (i = 0; i < n; ++i)
    if (fscanf(f, "%lf", &out[i]) != 1) return -1;
  return 0;
}

static int bt_read_torch(const char *path, int np, bt_torch *r) {
  FILE *f = fopen(path, "r");
  char word[16];
  int bad;
  if (!f) return -1;
  bad = bt_read_vec(f, "loss", &r->loss, 1) ||
        bt_read_vec(f, "grad", r->grad, np) ||
        bt_read_vec(f, "hvp", r->hvp, np);
  r->ntimes = 0;
  r->info[0] = 0;
  while (!bad && fscanf(f, "%15s", word) == 1) {
    bt_times *t = &r->t[r->ntimes];
    if (!strcmp(word, "info")) {
      if (!fgets(r->info, sizeof r->info, f)) bad = 1;
      r->info[strcspn(r->info, "\n")] = 0;
    } else if (strcmp(word, "time") || r->ntimes == 4 ||
               fscanf(f, "%d %lf %lf %lf %lf", &r->threads[r->ntimes],
                      &t->step, &t->grad, &t->hvp, &t->sample) != 5)
      bad = 1;
    else
      ++r->ntimes;
  }
  fclose(f);
  return bad ? -1 : 0;
}

/* ||a - b|| / ||b||, a in la_real (canonical order), b in double. */
static double bt_reldiff(int n, const la_real *a, const double *b) {
  double num = 0, den = 0;
  int i;
  for (i = 0; i < n; ++i) {
    num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    den += b[i] * b[i];
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* ------------------------------------------------------------- main */

typedef struct bt_opts {
  bt_setup s;
  int threads, reps, use_torch;
  double min_s;
  const char *python, *script;
} bt_opts;

static int bt_parse(int argc, char **argv, bt_opts *o) {
  int i;
  o->s.batch = 1000; o->s.layers = 3; o->s.d = 5; o->s.n = 20;
  o->s.param = LA_PARAM_SPARSE;
  o->threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (o->threads < 1) o->threads = 1;
  if (o->threads > BT_MAX_THREADS) o->threads = BT_MAX_THREADS;
  o->reps = 5; o->min_s = 0.2; o->use_torch = 1;
  o->python = "/usr/bin/python3"; o->script = "bench/torch_ref.py";
  for (i = 1; i < argc; ++i) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--no-torch")) { o->use_torch = 0; continue; }
    if (!val) return -1;
    ++i;
    if (!strcmp(a, "-b")) o->s.batch = atoi(val);
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
  if (o->s.batch < 1 || o->s.layers < 1 || o->s.d < 1 || o->s.n < 1 ||
      o->threads < 1 || o->threads > BT_MAX_THREADS || o->reps < 1)
    return -1;
  return 0;
}

/* Runs torch_ref.py on the exchange file; 0 done, 3 no torch, else error. */
static int bt_run_torch(const bt_opts *o, bt_lib *L, bt_torch *r) {
  char in[64], out[72], cmd[1024];
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  int fd, rc;
  snprintf(in, sizeof in, "%.40s/la-torch-XXXXXX", tmp);
  fd = mkstemp(in);
  if (fd < 0) return -1;
  close(fd);
  snprintf(out, sizeof out, "%s.out", in);
  rc = bt_write_exchange(in, L, 1, o->threads, o->min_s, o->reps);
  if (!rc) {
    /* one OpenBLAS thread: torch's own thread count is set inside */
    snprintf(cmd, sizeof cmd, "OPENBLAS_NUM_THREADS=1 '%s' '%s' run '%s' '%s'",
             o->python, o->script, in, out);
    rc = system(cmd);
    rc = rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }
  if (!rc) rc = bt_read_torch(out, L->m.nparams, r);
  remove(in);
  remove(out);
  return rc;
}

static void bt_row(const char *op, int threads, double lib, double torch) {
  if (torch > 0)
    printf("%-7s %7d %12.4f %12.4f %9.1fx\n", op, threads, 1e3 * lib,
           1e3 * torch, torch / lib);
  else
    printf("%-7s %7d %12.4f %12s %10s\n", op, threads, 1e3 * lib, "-", "-");
}

/* The library's loss, gradient and HVP on L's batch against torch's; 1 if
   they differ by more than the precision allows. */
static int bt_check_torch(bt_lib *L, const bt_torch *tr) {
  double tol = sizeof(la_real) == 8 ? 1e-5 : 1e-3, loss, dl, dg, dh;
  la_real *canon = (la_real *)malloc(sizeof(la_real) * L->m.nparams);
  int st = canon ? bt_grad(L, &loss) : LA_ENOMEM;
  if (!st) st = bt_hvp(L);
  if (st) {
    printf("bench_torch: the library failed: %s\n", la_status_str(st));
    free(canon);
    return 1;
  }
  dl = fabs(loss - tr->loss) / fabs(tr->loss);
  bt_canonical(&L->m, L->grad, canon);
  dg = bt_reldiff(L->m.nparams, canon, tr->grad);
  bt_canonical(&L->m, L->hv, canon);
  dh = bt_reldiff(L->m.nparams, canon, tr->hvp);
  free(canon);
  printf("#%s\n# torch in %s; loss %.9g (linattn) vs %.9g (torch)\n",
         tr->info, sizeof(la_real) == 8 ? "float64" : "float32", loss,
         tr->loss);
  printf("check %s vs torch: relative difference loss %.2e, gradient %.2e, "
         "HVP %.2e (tolerance %.0e): %s\n",
         sizeof(la_real) == 8 ? "double" : "float", dl, dg, dh, tol,
         dl <= tol && dg <= tol && dh <= tol ? "ok" : "FAILED");
  return !(dl <= tol && dg <= tol && dh <= tol);
}

/* The batch split over `threads` must give what one thread gives, up to
   the order of the sums; 1 if not. */
static int bt_check_threads(const bt_setup *s, int threads) {
  bt_lib one, many;
  double l1, l2, tol = sizeof(la_real) == 8 ? 1e-12 : 1e-5, dg, dh;
  double *g = NULL;
  int st = bt_lib_init(&one, s, 1), i;
  if (!st) st = bt_lib_init(&many, s, threads);
  if (!st) st = bt_grad(&one, &l1);
  if (!st) st = bt_hvp(&one);
  if (!st) st = bt_grad(&many, &l2);
  if (!st) st = bt_hvp(&many);
  if (!st && !(g = (double *)malloc(sizeof(double) * one.m.nparams)))
    st = LA_ENOMEM;
  if (!st) {
    for (i = 0; i < one.m.nparams; ++i) g[i] = one.grad[i];
    dg = bt_reldiff(one.m.nparams, many.grad, g);
    for (i = 0; i < one.m.nparams; ++i) g[i] = one.hv[i];
    dh = bt_reldiff(one.m.nparams, many.hv, g);
    printf("check %d threads vs 1: relative difference loss %.2e, gradient "
           "%.2e, HVP %.2e (tolerance %.0e): %s\n", threads,
           fabs(l2 - l1) / fabs(l1), dg, dh, tol,
           dg <= tol && dh <= tol ? "ok" : "FAILED");
  } else {
    printf("bench_torch: the library failed: %s\n", la_status_str(st));
  }
  free(g);
  bt_lib_free(&one);
  bt_lib_free(&many);
  return st || !(dg <= tol && dh <= tol);
}

/* Library rows for 1 and o->threads threads, beside torch's if it ran. */
static int bt_timing_rows(const bt_opts *o, const bt_torch *tr) {
  int k, j, st;
  printf("# ms per call, best of %d groups of calls (linattn: %d shorter "
         "ones); 1 thread: process CPU time, more: wall time;\n"
         "# step = fresh prompts + gradient + clipping + Adam, "
         "sample = the fresh prompts alone\n", o->reps, 20 * o->reps);
  printf("%-7s %7s %12s %12s %10s\n", "op", "threads", "linattn_ms",
         "torch_ms", "speedup");
  for (k = 0; k < (o->threads > 1 ? 2 : 1); ++k) {
    int th = k ? o->threads : 1;
    const bt_times *t = NULL;
    bt_times lt;
    if ((st = bt_time_lib(&o->s, th, o->min_s, o->reps, &lt))) {
      printf("bench_torch: timing failed: %s\n", la_status_str(st));
      return 1;
    }
    for (j = 0; tr && j < tr->ntimes; ++j)
      if (tr->threads[j] == th) t = &tr->t[j];
    bt_row("step", th, lt.step, t ? t->step : -1);
    bt_row("grad", th, lt.grad, t ? t->grad : -1);
    bt_row("hvp", th, lt.hvp, t ? t->hvp : -1);
    bt_row("sample", th, lt.sample, t ? t->sample : -1);
    if (k == 0 && t && sizeof(la_real) == 4) /* the figure is the float build's */
      printf("# target one thread: step %.1fx, HVP %.1fx faster than torch, "
             "%s (>= 50x each)\n", t->step / lt.step, t->hvp / lt.hvp,
             t->step >= 50 * lt.step && t->hvp >= 50 * lt.hvp ? "PASS" : "MISS");
    fflush(stdout);
  }
  return 0;
}

int main(int argc, char **argv) {
  static const char *names[] = {"sparse", "dense", "pgd"};
  bt_opts o;
  bt_lib L;
  bt_torch tr;
  int st, rc = 3, bad = 0;
  if (bt_parse(argc, argv, &o)) {
    fprintf(stderr, "usage: bench_torch [-b batch] [-L layers] [-d dim] "
                    "[-n context] [-p sparse|dense] [-t threads] [-s secs] "
                    "[-r reps] [--no-torch] [--python P] [--script S]\n");
    return 2;
  }
  bench_header("bench_torch", bench_fma_peak_gflops());
  printf("# setting: %s, L = %d, d = %d, N = %d, batch %d, setting-1 prompts\n",
         names[o.s.param], o.s.layers, o.s.d, o.s.n, o.s.batch);
  memset(&tr, 0, sizeof tr);
  if ((st = bt_lib_init(&L, &o.s, 1))) {
    printf("bench_torch: the library refused the setting: %s\n",
           la_status_str(st));
    bt_lib_free(&L);
    return 1;
  }
  tr.grad = (double *)malloc(sizeof(double) * L.m.nparams);
  tr.hvp = (double *)malloc(sizeof(double) * L.m.nparams);
  if (o.use_torch && tr.grad && tr.hvp) {
    fflush(stdout);
    rc = bt_run_torch(&o, &L, &tr);
    if (rc == 3)
      printf("# PyTorch is not installed for %s: the torch columns are "
             "skipped (apt-get install python3-torch python3-numpy)\n",
             o.python);
    else if (rc)
      printf("# the PyTorch side failed (status %d): torch columns skipped\n",
             rc);
  }
  if (!rc) bad |= bt_check_torch(&L, &tr);
  bt_lib_free(&L);
  if (o.threads > 1) bad |= bt_check_threads(&o.s, o.threads);
  bad |= bt_timing_rows(&o, rc ? NULL : &tr);
  free(tr.grad);
  free(tr.hvp);
  return bad || (rc && rc != 3);
}
#endif
