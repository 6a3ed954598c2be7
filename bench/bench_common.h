/* Shared by the benchmark programs: a monotonic clock, the core's measured
   FMA peak, and the header line that says where the figures came from. */
#ifndef LA_BENCH_COMMON_H
#define LA_BENCH_COMMON_H
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

static double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/* This thread's CPU time: on a shared machine the time it waits for a
   core does not count. */
static inline double bench_thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Peak la_real FMA throughput of one core in GFLOP/s (2 flops per lane per
   FMA), from independent chains of vector FMAs: enough chains to cover the
   FMA latency times the number of FMA ports. Best of several tries, so a
   busy neighbour does not lower it. */
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#ifdef LINATTN_DOUBLE
#define BENCH_V __m256d
#define BENCH_SET1 _mm256_set1_pd
#define BENCH_FMA _mm256_fmadd_pd
#define BENCH_LANES 4
#define BENCH_SUM(v) (((double *)&(v))[0])
#else
#define BENCH_V __m256
#define BENCH_SET1 _mm256_set1_ps
#define BENCH_FMA _mm256_fmadd_ps
#define BENCH_LANES 8
#define BENCH_SUM(v) (((float *)&(v))[0])
#endif
/* One run of `iters` steps of the chains, timed by `clock` (seconds):
   GFLOP/s. */
static double bench_fma_run(long iters, double (*clock)(void)) {
  BENCH_V a0 = BENCH_SET1(1), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0,
          a6 = a0, a7 = a0, a8 = a0, a9 = a0, b = BENCH_SET1(0.999999f),
          c = BENCH_SET1(1e-7f);
  long i;
  double t0 = clock(), dt, s;
  for (i = 0; i < iters; ++i) {
    a0 = BENCH_FMA(a0, b, c); a1 = BENCH_FMA(a1, b, c);
    a2 = BENCH_FMA(a2, b, c); a3 = BENCH_FMA(a3, b, c);
    a4 = BENCH_FMA(a4, b, c); a5 = BENCH_FMA(a5, b, c);
    a6 = BENCH_FMA(a6, b, c); a7 = BENCH_FMA(a7, b, c);
    a8 = BENCH_FMA(a8, b, c); a9 = BENCH_FMA(a9, b, c);
    __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4));
    __asm__ volatile("" : "+x"(a5), "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9));
  }
  dt = clock() - t0;
  s = BENCH_SUM(a0) + BENCH_SUM(a1) + BENCH_SUM(a2) + BENCH_SUM(a3) +
      BENCH_SUM(a4) + BENCH_SUM(a5) + BENCH_SUM(a6) + BENCH_SUM(a7) +
      BENCH_SUM(a8) + BENCH_SUM(a9);
  if (s == 12345.678) printf("%g", s); /* keep the chains alive */
  return 10.0 * iters * BENCH_LANES * 2 / dt / 1e9;
}
static double bench_fma_peak_gflops(void) {
  double best = 0;
  int rep;
  for (rep = 0; rep < 5; ++rep) {
    double g = bench_fma_run(20000000, bench_now);
    if (g > best) best = g;
  }
  return best;
}
#else
/* Without AVX2 the peak of scalar FMAs (or multiply-adds). */
static double bench_fma_run(long iters, double (*clock)(void)) {
  volatile double sink;
  double a[8] = {1, 1, 1, 1, 1, 1, 1, 1}, b = 0.999999, c = 1e-7;
  long i;
  double t0 = clock(), dt;
  int j;
  for (i = 0; i < iters; ++i)
    for (j = 0; j < 8; ++j) a[j] = a[j] * b + c;
  dt = clock() - t0;
  sink = a[0] + a[7];
  (void)sink;
  return 8.0 * iters * 2 / dt / 1e9;
}
static double bench_fma_peak_gflops(void) {
  double best = 0;
  int rep;
  for (rep = 0; rep < 3; ++rep) {
    double g = bench_fma_run(20000000, bench_now);
    if (g > best) best = g;
  }
  return best;
}
#endif

/* The peak of 512-bit FMAs where the build has AVX-512 (0 otherwise): the
   core's real peak on cores with two 512-bit FMA units (Zen 5, server
   Xeons), twice the 256-bit one; Zen 4 splits each into two halves and
   measures the 256-bit figure again. */
#if defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
#ifdef LINATTN_DOUBLE
#define BENCH_V512 __m512d
#define BENCH_SET512 _mm512_set1_pd
#define BENCH_FMA512 _mm512_fmadd_pd
#else
#define BENCH_V512 __m512
#define BENCH_SET512 _mm512_set1_ps
#define BENCH_FMA512 _mm512_fmadd_ps
#endif
static inline double bench_fma512_run(long iters, double (*clock)(void)) {
  BENCH_V512 a0 = BENCH_SET512(1), a1 = a0, a2 = a0, a3 = a0, a4 = a0,
             a5 = a0, a6 = a0, a7 = a0, a8 = a0, a9 = a0,
             b = BENCH_SET512(0.999999f), c = BENCH_SET512(1e-7f);
  long i;
  double t0 = clock(), dt;
  for (i = 0; i < iters; ++i) {
    a0 = BENCH_FMA512(a0, b, c); a1 = BENCH_FMA512(a1, b, c);
    a2 = BENCH_FMA512(a2, b, c); a3 = BENCH_FMA512(a3, b, c);
    a4 = BENCH_FMA512(a4, b, c); a5 = BENCH_FMA512(a5, b, c);
    a6 = BENCH_FMA512(a6, b, c); a7 = BENCH_FMA512(a7, b, c);
    a8 = BENCH_FMA512(a8, b, c); a9 = BENCH_FMA512(a9, b, c);
    __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4));
    __asm__ volatile("" : "+v"(a5), "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9));
  }
  dt = clock() - t0;
  return 10.0 * iters * 2 * BENCH_LANES * 2 / dt / 1e9;
}
#else
static inline double bench_fma512_run(long iters, double (*clock)(void)) {
  (void)iters;
  (void)clock;
  return 0;
}
#endif

#define BENCH_STR2(x) #x
#define BENCH_STR(x) BENCH_STR2(x)
#ifndef BENCH_FLAGS
#define BENCH_FLAGS "?"
#endif

/* The line every benchmark starts with. */
static void bench_header(const char *what, double peak) {
  printf("# %s: linattn %s, backend %s, %s, compiler %s, flags %s\n", what,
         la_version_string(), la_backend_name(),
         sizeof(la_real) == 8 ? "double" : "float",
#if defined(__clang__)
         "clang " __clang_version__,
#elif defined(__GNUC__)
         "gcc " __VERSION__,
#else
         "unknown",
#endif
         BENCH_FLAGS);
  printf("# measured FMA peak of one core: %.1f GFLOP/s\n", peak);
}
#endif
