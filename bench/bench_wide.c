/* What 512-bit model panels would buy the model's products on this core:
   the panel product's register block (la__kblock's shape, an element of
   A pinned in a register, every accumulator an FMA chain over k) on panels
   of 8 float lanes (one __m256, AVX2's and today's AVX-512 build's
   layout) and of 16 lanes (one __m512: two panels per register), operands
   in L1 as they are in the model's panel loop (each panel's products run
   on data it has just written).

   Shapes of the base setting (D = 6, T = 21): C = A B with A m x 6,
   B 6 x 6, m = 6 (P S, (P S) Q, the backward's D x D products) and
   m = 24 (about Zt C^T, T x D). Blocks: 6x2 (12 accumulators, as the
   library's x86 strips) and, at 16 lanes, 6x4 then 6x2 (24 accumulators of
   AVX-512's 32 registers).

   Thread CPU time, the variants interleaved round by round, best of the
   rounds; the FMA peaks of both widths measured in the same rounds.
   `make bench-wide` builds it with -O2 -march=native; without AVX-512 it
   says so and stops. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "bench_common.h"

#if defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__) &&          \
    !defined(LINATTN_DOUBLE)
#include <immintrin.h>
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#if defined(__clang__)
#define BW_UNROLL _Pragma("clang loop unroll(full)")
#else
#define BW_UNROLL _Pragma("GCC unroll 16")
#endif

/* An MR x NR block of C (row stride n) over k, panels of W lanes. */
#define BW_BLOCK(NAME, V, W, LOAD, STORE, FMA, ZERO)                           \
  static inline void NAME(const int MR, const int NR, int n, int k,          \
                          const float *A, const float *B, float *C) {        \
    V acc[6][4], b[4], a;                                                    \
    int r, c, p;                                                             \
    BW_UNROLL for (r = 0; r < MR; ++r)                                       \
      BW_UNROLL for (c = 0; c < NR; ++c) acc[r][c] = ZERO();                 \
    for (p = 0; p < k; ++p) {                                                \
      BW_UNROLL for (c = 0; c < NR; ++c) b[c] = LOAD(B + (p * n + c) * W);   \
      BW_UNROLL for (r = 0; r < MR; ++r) {                                   \
        a = LOAD(A + (r * k + p) * W);                                       \
        __asm__("" : "+v"(a));                                               \
        BW_UNROLL for (c = 0; c < NR; ++c) acc[r][c] = FMA(a, b[c], acc[r][c]); \
      }                                                                      \
    }                                                                        \
    BW_UNROLL for (r = 0; r < MR; ++r)                                       \
      BW_UNROLL for (c = 0; c < NR; ++c) STORE(C + (r * n + c) * W, acc[r][c]); \
  }
BW_BLOCK(bw_block8, __m256, 8, _mm256_load_ps, _mm256_store_ps,
         _mm256_fmadd_ps, _mm256_setzero_ps)
BW_BLOCK(bw_block16, __m512, 16, _mm512_load_ps, _mm512_store_ps,
         _mm512_fmadd_ps, _mm512_setzero_ps)

/* C (m x 6) = A (m x 6) B (6 x 6), m a multiple of 6. */
static void bw_mm8(int m, const float *A, const float *B, float *C) {
  int i, j;
  for (i = 0; i < m; i += 6)
    for (j = 0; j < 6; j += 2)
      bw_block8(6, 2, 6, 6, A + i * 6 * 8, B + j * 8, C + (i * 6 + j) * 8);
}
static void bw_mm16(int m, const float *A, const float *B, float *C) {
  int i, j;
  for (i = 0; i < m; i += 6)
    for (j = 0; j < 6; j += 2)
      bw_block16(6, 2, 6, 6, A + i * 6 * 16, B + j * 16, C + (i * 6 + j) * 16);
}
static void bw_mm16w(int m, const float *A, const float *B, float *C) {
  int i;
  for (i = 0; i < m; i += 6) {
    bw_block16(6, 4, 6, 6, A + i * 6 * 16, B, C + i * 6 * 16);
    bw_block16(6, 2, 6, 6, A + i * 6 * 16, B + 4 * 16, C + (i * 6 + 4) * 16);
  }
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 200, prompts = 1000, r, q, s, v;
  static const int ms[2] = {6, 24};
  /* two 16-lane panels' (four 8-lane panels') operands, reused: in L1 */
  void *pa = NULL, *pb = NULL, *pc = NULL;
  float *A, *B, *C;
  double pk256 = 0, pk512 = 0;
  if (posix_memalign(&pa, 64, sizeof(float) * 24 * 6 * 32) ||
      posix_memalign(&pb, 64, sizeof(float) * 6 * 6 * 32) ||
      posix_memalign(&pc, 64, sizeof(float) * 24 * 6 * 32))
    return 1;
  A = (float *)pa; B = (float *)pb; C = (float *)pc;
  (void)bench_fma_peak_gflops; /* the peaks here are the rounds' */
  for (q = 0; q < 24 * 6 * 32; ++q) A[q] = 1.0f + (float)(q % 7) * 0.01f;
  for (q = 0; q < 6 * 6 * 32; ++q) B[q] = 0.5f + (float)(q % 5) * 0.01f;
  for (q = 0; q < 10; ++q) { /* the first runs of a core wake its vector units */
    double a = bench_fma_run(400000, cpu_now);
    if (a > pk256) pk256 = a;
  }
  bench_header("wide: the panel product's register block at 8 and 16 lanes",
               pk256);
  for (s = 0; s < 2; ++s) {
    int m = ms[s];
    double best[3] = {1e30, 1e30, 1e30}, fl = 2.0 * m * 6 * 6 * prompts;
    static const char *names[3] = {"8 lanes, 6x2 blocks", "16 lanes, 6x2 blocks",
                                   "16 lanes, 6x4+6x2 blocks"};
    for (r = 0; r < rounds; ++r) {
      for (v = 0; v < 3; ++v) {
        double t0 = cpu_now(), t;
        if (v == 0)
          for (q = 0; q < prompts / 8; ++q)
            bw_mm8(m, A + (q & 3) * 24 * 6 * 8, B + (q & 3) * 36 * 8,
                   C + (q & 3) * 24 * 6 * 8);
        else
          for (q = 0; q < prompts / 16; ++q)
            (v == 1 ? bw_mm16 : bw_mm16w)(m, A + (q & 1) * 24 * 6 * 16,
                                          B + (q & 1) * 36 * 16,
                                          C + (q & 1) * 24 * 6 * 16);
        t = cpu_now() - t0;
        if (t < best[v]) best[v] = t;
      }
      if (s == 0 && r % 10 == 0) {
        double a = bench_fma_run(200000, cpu_now), b = bench_fma512_run(100000, cpu_now);
        if (a > pk256) pk256 = a;
        if (b > pk512) pk512 = b;
      }
    }
    for (v = 0; v < 3; ++v)
      printf("shape=%dx6x6 prompts=%d variant=\"%s\" us=%.2f gflops=%.1f "
             "speedup=%.2f\n",
             m, prompts, names[v], best[v] * 1e6, fl / best[v] * 1e-9,
             best[0] / best[v]);
  }
  printf("# FMA peaks in the same rounds: %.1f GFLOP/s (256-bit), %.1f "
         "(512-bit)\n", pk256, pk512);
  if (C[5] == 12345.0f) printf("%g\n", C[5]); /* keep the stores */
  free(pa); free(pb); free(pc);
  return 0;
}
#else
int main(void) {
  (void)bench_header; /* shared helpers this build does not call */
  (void)bench_fma512_run;
  (void)bench_fma_peak_gflops;
  printf("bench_wide: needs a float build with AVX-512 (make bench-wide: "
         "-march=native on an AVX-512 core)\n");
  return 0;
}
#endif
