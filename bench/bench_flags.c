/* The same library built with different compiler flags, timed in one
   process: loss+gradient and one Hessian-vector product of the base
   setting (sparse linear, L = 3, d = 5, n = 20, batch 1000), one thread.

   `make bench-flags` compiles this file once per flag set of FLAG_SETS in
   mk/bench.mk (-DBENCH_TU=name: the header's implementation, static, and
   one entry point bench_tu_name) and once more as the driver
   (-DBENCH_VARIANTS='X(name) ...'), and links them together. Built alone
   (as `make bench` and the bench-build test do) it is one variant, the
   flags it was compiled with.

   Each variant's gradient and HVP are compared bit for bit with the
   first's (the header promises the same bits whatever the compiler,
   optimization level and x86 backend); then rounds in which every variant
   runs one group of calls in turn, thread CPU time, best of the rounds:
   the ratios come from one process under the same neighbours. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(BENCH_TU) && !defined(BENCH_VARIANTS)
#define BENCH_TU self
#define BENCH_VARIANTS X(self)
#define BENCH_SINGLE 1
#endif
#ifndef BENCH_TU_FLAGS
#define BENCH_TU_FLAGS "(this build's)"
#endif

#define BENCH_CAT2(a, b) a##b
#define BENCH_CAT(a, b) BENCH_CAT2(a, b)

typedef struct bench_tu_out {
  const char *flags, *backend;
  double seconds;
  int nparams, status;
  float grad[64]; /* the first entries of the result, for the bit check */
} bench_tu_out;

#ifdef BENCH_TU
#define LINATTN_STATIC
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"

static double tu_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static struct {
  la_model m;
  la_batch b;
  la_real *th, *v, *g;
  void *work;
  size_t bytes;
  int ready;
} tu;

static int tu_setup(void) {
  la_model_config mc;
  la_rng rng;
  int d = 5, n = 20, count = 1000, D = d + 1, T = n + 1, i;
  int np = la_panels(count);
  size_t nz = (size_t)count * D * T;
  la_real *plain = (la_real *)malloc(sizeof(la_real) * (nz + count));
  memset(&mc, 0, sizeof mc);
  mc.d = d; mc.n = n; mc.layers = 3; mc.param = LA_PARAM_SPARSE;
  mc.activation = LA_ACT_LINEAR; mc.heads = 1;
  if (!plain || la_model_init(&tu.m, &mc)) return -1;
  la_rng_seed(&rng, 1, 0);
  for (i = 0; i < (int)nz + count; ++i) plain[i] = (la_real)la_rng_normal(&rng);
  for (i = 0; i < count; ++i) plain[(size_t)i * D * T + D * T - 1] = 0;
  tu.b.d = d; tu.b.n = n; tu.b.count = count;
  tu.b.z = (la_real *)la_alloc(sizeof(la_real) * (size_t)np * D * T * LA_W);
  tu.b.y = (la_real *)la_alloc(sizeof(la_real) * (size_t)np * LA_W);
  tu.th = (la_real *)malloc(sizeof(la_real) * (size_t)tu.m.nparams * 3);
  tu.bytes = la_model_work_bytes(&tu.m);
  tu.work = malloc(tu.bytes);
  if (!tu.b.z || !tu.b.y || !tu.th || !tu.work) return -1;
  la_pack(count, D, T, plain, tu.b.z);
  la_pack(count, 1, 1, plain + nz, tu.b.y);
  free(plain);
  tu.v = tu.th + tu.m.nparams;
  tu.g = tu.v + tu.m.nparams;
  la_model_init_params(&tu.m, &rng, tu.th);
  for (i = 0; i < tu.m.nparams; ++i) tu.v[i] = (la_real)la_rng_normal(&rng);
  tu.ready = 1;
  return 0;
}

/* what 0: loss+gradient, 1: HVP; reps calls; out the time per call and
   the result's first entries. */
void BENCH_CAT(bench_tu_, BENCH_TU)(int what, int reps, bench_tu_out *out);
void BENCH_CAT(bench_tu_, BENCH_TU)(int what, int reps, bench_tu_out *out) {
  double t0, loss;
  int k, st = 0, i;
  out->flags = BENCH_TU_FLAGS;
  out->backend = la_backend_name();
  if (!tu.ready && tu_setup()) {
    out->status = -1;
    return;
  }
  t0 = tu_cpu();
  for (k = 0; k < reps; ++k)
    st |= what ? la_model_hvp(&tu.m, tu.th, &tu.b, tu.v, &loss, NULL, tu.g,
                              tu.work, tu.bytes)
               : la_model_grad(&tu.m, tu.th, &tu.b, &loss, tu.g, tu.work,
                               tu.bytes);
  out->seconds = (tu_cpu() - t0) / reps;
  out->status = st;
  out->nparams = tu.m.nparams < 64 ? tu.m.nparams : 64;
  for (i = 0; i < out->nparams; ++i) out->grad[i] = (float)tu.g[i];
}
#endif /* BENCH_TU */

#ifdef BENCH_VARIANTS
#define X(name) void bench_tu_##name(int, int, bench_tu_out *);
BENCH_VARIANTS
#undef X
static const struct {
  const char *name;
  void (*run)(int, int, bench_tu_out *);
} variants[] = {
#define X(name) {#name, bench_tu_##name},
    BENCH_VARIANTS
#undef X
};
#define NV ((int)(sizeof variants / sizeof variants[0]))

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 40, r, i, w, reps = 1;
  double best[2][16];
  bench_tu_out o, ref;
  static const char *whats[2] = {"grad", "hvp"};
  if (NV > 16) return 1;
  printf("# flags: loss+gradient and HVP, sparse linear L=3 d=5 n=20, batch "
         "1000, float, one thread, compiler %s\n",
#if defined(__clang__)
         "clang " __clang_version__
#elif defined(__GNUC__)
         "gcc " __VERSION__
#else
         "unknown"
#endif
  );
  for (w = 0; w < 2; ++w) {
    variants[0].run(w, 1, &ref);
    if (ref.status) { printf("%s failed\n", variants[0].name); return 1; }
    for (i = 0; i < NV; ++i) {
      variants[i].run(w, 1, &o);
      if (o.status) { printf("%s failed\n", variants[i].name); return 1; }
      if (w == 0)
        printf("# %-16s backend %-7s flags %s\n", variants[i].name, o.backend,
               o.flags);
      if (memcmp(o.grad, ref.grad, sizeof(float) * (size_t)ref.nparams))
        printf("# %s: %s differs from %s's in its bits\n", variants[i].name,
               whats[w], variants[0].name);
    }
    for (i = 0; i < NV; ++i) best[w][i] = 1e30;
  }
  for (;;) { /* groups of about 2 ms */
    variants[0].run(0, reps, &o);
    if (o.seconds * reps > 2e-3 || reps >= 1024) break;
    reps *= 2;
  }
  for (r = 0; r < rounds; ++r)
    for (w = 0; w < 2; ++w)
      for (i = 0; i < NV; ++i) {
        variants[i].run(w, w ? (reps + 1) / 2 : reps, &o);
        if (o.seconds < best[w][i]) best[w][i] = o.seconds;
      }
  for (i = 0; i < NV; ++i)
    printf("variant=%s grad_us=%.1f grad_vs_first=%.3f hvp_us=%.1f "
           "hvp_vs_first=%.3f\n",
           variants[i].name, best[0][i] * 1e6, best[0][i] / best[0][0],
           best[1][i] * 1e6, best[1][i] / best[1][0]);
  return 0;
}
#endif /* BENCH_VARIANTS */
