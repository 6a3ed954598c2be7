/* The prompt generator's speed: prompts per second for every preset, normals
   per second against the scalar twin, a Setting 3 batch (Gamma radii)
   against a Setting 1 batch timed in turn, and the time to draw a Setting 1
   batch of 1000 next to one gradient pass of a sparse L = 3 model on it
   (the share the generator takes of a training step), the two timed in
   turn. Best of many repetitions. */
#define _POSIX_C_SOURCE 200809L
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "bench_common.h"
#include <stdlib.h>

#define COUNT 1000
#define REPS 200

static double best_sample(const la_data *g, la_batch *b, int reps) {
  double best = 1e30;
  la_rng r;
  int k;
  for (k = 0; k < reps; ++k) {
    double t0;
    la_rng_seed(&r, 1, (uint64_t)k);
    t0 = bench_now();
    la_data_sample(g, &r, b);
    t0 = bench_now() - t0;
    if (t0 < best) best = t0;
  }
  return best;
}

/* n normals through the scalar twin, chunk by chunk as la__fill_normals. */
static void scalar_normals(la_rng *r, int n, float *x) {
  uint64_t blk = (r->counter + 3) >> 2;
  int i;
  for (i = 0; i + 32 <= n; i += 32, blk += 8) la__normals32_scalar(r, blk, x + i);
  r->counter = blk << 2;
}

int main(void) {
  static const char *names[] = {"", "setting1", "setting2", "setting3",
                                "sphere", "nonlinear", "paperB"};
  enum { NN = 105024 };
  la_real *x = (la_real *)malloc(sizeof(la_real) * NN);
  float *xs = (float *)malloc(sizeof(float) * NN);
  double t_simd = 1e30, t_scalar = 1e30, t_gen = 0;
  la_rng r;
  int s, k;
  bench_header("prompts", bench_fma_peak_gflops());
  printf("%-10s %3s %4s %6s %12s %14s\n", "setting", "d", "n", "count",
         "us/batch", "prompts/s");
  for (s = LA_SETTING_1; s <= LA_SETTING_PAPER_B; ++s) {
    la_data_config c;
    la_data g;
    la_batch b;
    double t;
    if (la_data_preset(&c, s) || la_data_create(&g, &c, 1) ||
        la_batch_create(&b, c.d, c.n, COUNT))
      return 1;
    t = best_sample(&g, &b, REPS);
    if (s == LA_SETTING_1) t_gen = t;
    printf("%-10s %3d %4d %6d %12.1f %14.0f\n", names[s], c.d, c.n, COUNT,
           t * 1e6, COUNT / t);
    la_batch_destroy(&b);
    la_data_destroy(&g);
  }
  { /* Setting 3 against Setting 1, batch for batch in turn, so that a busy
       neighbour slows both alike */
    la_data_config c1, c3;
    la_data g1, g3;
    la_batch b1, b3;
    double t1 = 1e30, t3 = 1e30;
    if (la_data_preset(&c1, LA_SETTING_1) || la_data_preset(&c3, LA_SETTING_3) ||
        la_data_create(&g1, &c1, 1) || la_data_create(&g3, &c3, 1) ||
        la_batch_create(&b1, 5, 20, COUNT) || la_batch_create(&b3, 5, 20, COUNT))
      return 1;
    for (k = 0; k < 2 * REPS; ++k) {
      double t0;
      la_rng_seed(&r, 5, (uint64_t)k);
      t0 = bench_now();
      la_data_sample(&g1, &r, &b1);
      t0 = bench_now() - t0;
      if (t0 < t1) t1 = t0;
      la_rng_seed(&r, 5, (uint64_t)k);
      t0 = bench_now();
      la_data_sample(&g3, &r, &b3);
      t0 = bench_now() - t0;
      if (t0 < t3) t3 = t0;
    }
    printf("setting 3 (Gamma(0.1, 10) radii), %d prompts: %.1f us against "
           "setting 1's %.1f us: ratio %.2f\n",
           COUNT, t3 * 1e6, t1 * 1e6, t3 / t1);
    la_batch_destroy(&b1);
    la_batch_destroy(&b3);
    la_data_destroy(&g1);
    la_data_destroy(&g3);
  }
  for (k = 0; k < REPS; ++k) {
    double t0;
    la_rng_seed(&r, 2, (uint64_t)k);
    t0 = bench_now();
    la_rng_normals(&r, NN, x);
    t0 = bench_now() - t0;
    if (t0 < t_simd) t_simd = t0;
    if (k % 10) continue;
    la_rng_seed(&r, 2, (uint64_t)k);
    t0 = bench_now();
    scalar_normals(&r, NN, xs);
    t0 = bench_now() - t0;
    if (t0 < t_scalar) t_scalar = t0;
  }
  printf("normals: %d in %.1f us (%.2f ns each, %.0f M/s); scalar twin "
         "%.1f us; speedup %.1fx\n",
         NN, t_simd * 1e6, t_simd * 1e9 / NN, NN / t_simd / 1e6,
         t_scalar * 1e6, t_scalar / t_simd);
#ifdef LA_MAX_LAYERS /* defined by the model section once it is in */
  {
    la_model_config mc;
    la_model m;
    la_data_config c;
    la_data g;
    la_batch b;
    la_real *theta, *grad;
    double loss, t_grad = 1e30;
    memset(&mc, 0, sizeof mc);
    mc.d = 5;
    mc.n = 20;
    mc.layers = 3;
    la_data_preset(&c, LA_SETTING_1);
    if (la_model_init(&m, &mc) || la_data_create(&g, &c, 1) ||
        la_batch_create(&b, 5, 20, COUNT))
      return 1;
    theta = (la_real *)la_alloc(sizeof(la_real) * m.nparams);
    grad = (la_real *)la_alloc(sizeof(la_real) * m.nparams);
    la_rng_seed(&r, 3, 0);
    la_model_init_params(&m, &r, theta);
    la_data_sample(&g, &r, &b);
    { /* the two alternate, so that a busy neighbour slows both alike */
      size_t wb = la_model_work_bytes(&m);
      void *work = la_alloc(wb);
      t_gen = 1e30;
      for (k = 0; k < 2 * REPS; ++k) {
        double t0;
        la_rng_seed(&r, 4, (uint64_t)k);
        t0 = bench_now();
        la_data_sample(&g, &r, &b);
        t0 = bench_now() - t0;
        if (t0 < t_gen) t_gen = t0;
        t0 = bench_now();
        la_model_grad(&m, theta, &b, &loss, grad, work, wb);
        t0 = bench_now() - t0;
        if (t0 < t_grad) t_grad = t0;
      }
      la_free(work);
    }
    printf("setting 1, %d prompts: generation %.1f us, la_model_grad (sparse, "
           "L = 3) %.1f us: generation = %.1f%% of the pass\n",
           COUNT, t_gen * 1e6, t_grad * 1e6, 100 * t_gen / t_grad);
    la_free(theta);
    la_free(grad);
    la_batch_destroy(&b);
    la_data_destroy(&g);
  }
#else
  printf("setting 1, %d prompts: generation %.1f us; the ratio to "
         "la_model_grad is pending (model section not in this build)\n",
         COUNT, t_gen * 1e6);
#endif
  free(x);
  free(xs);
  return 0;
}
