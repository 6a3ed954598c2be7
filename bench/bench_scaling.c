/* How the cost of one training step (fresh prompts, gradient, clipping,
   Adam) grows with the batch size, the depth L, the context length N and
   the dimension d, one at a time around the base setting (sparse, L = 3,
   d = 5, N = 20, batch 1000), one thread. One row per case:

     scaling AXIS VALUE batch L d N  step_ms  us_per_prompt

   bench/py/plot_scaling.py turns the rows into an SVG (make bench-scaling).
   bench_scaling [-s seconds] [-r repetitions] [-t threads]            */
#define BT_NO_MAIN
#include "bench_torch.c"

static int bs_case(const char *axis, int value, const bt_setup *s,
                   int threads, double min_s, int reps) {
  bt_lib L;
  double t;
  int st = bt_lib_init(&L, s, threads);
  t = st ? -1 : bt_time(&L, bt_step, min_s, reps);
  bt_lib_free(&L);
  if (st || t < 0) {
    printf("# %s = %d failed: %s\n", axis, value,
           la_status_str(st ? st : LA_EDIVERGED));
    return 1;
  }
  printf("scaling %-5s %6d %6d %2d %2d %3d %11.4f %9.4f\n", axis, value,
         s->batch, s->layers, s->d, s->n, 1e3 * t, 1e6 * t / s->batch);
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  static const int batches[] = {1,    3,    10,    30,    100,   300,
                                1000, 3000, 10000, 30000, 100000};
  static const int depths[] = {1, 2, 3, 4, 6, 8, 12, 16};
  static const int contexts[] = {5, 10, 20, 40, 70, 120, 200};
  static const int dims[] = {2, 3, 5, 8, 12, 16, 24, 32};
  bt_setup base, s;
  double min_s = 0.1;
  int reps = 5, threads = 1, i, bad = 0;
  (void)bt_grad; /* bench_torch's, unused here */
  (void)bt_hvp;
  for (i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-s")) min_s = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "-r")) reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-t")) threads = atoi(argv[i + 1]);
  }
  if (reps < 1 || threads < 1 || threads > BT_MAX_THREADS || min_s <= 0 ||
      i != argc) {
    fprintf(stderr, "usage: bench_scaling [-s seconds] [-r reps] [-t threads]\n");
    return 2;
  }
  bench_header("bench_scaling", bench_fma_peak_gflops());
  printf("# time per training step, %d thread%s, sparse, setting-1 prompts\n",
         threads, threads > 1 ? "s" : "");
  printf("# scaling axis  value  batch  L  d   N     step_ms us/prompt\n");
  base.batch = 1000; base.layers = 3; base.d = 5; base.n = 20;
  base.param = LA_PARAM_SPARSE;
  for (i = 0; i < (int)(sizeof batches / sizeof *batches); ++i) {
    s = base; s.batch = batches[i];
    bad |= bs_case("batch", s.batch, &s, threads, min_s, reps);
  }
  for (i = 0; i < (int)(sizeof depths / sizeof *depths); ++i) {
    s = base; s.layers = depths[i];
    bad |= bs_case("L", s.layers, &s, threads, min_s, reps);
  }
  for (i = 0; i < (int)(sizeof contexts / sizeof *contexts); ++i) {
    s = base; s.n = contexts[i];
    bad |= bs_case("N", s.n, &s, threads, min_s, reps);
  }
  for (i = 0; i < (int)(sizeof dims / sizeof *dims); ++i) {
    s = base; s.d = dims[i];
    bad |= bs_case("d", s.d, &s, threads, min_s, reps);
  }
  return bad;
}
