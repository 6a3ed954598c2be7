/* Test data that does not depend on the library's own generator. */
#ifndef LA_TEST_UTIL_H
#define LA_TEST_UTIL_H
#include <stdint.h>
#include <string.h>

typedef struct { uint64_t s; } la_t_rng;

static double la_t_uniform(la_t_rng *r) { /* in [-1, 1) */
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(r->s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static void la_t_fill(la_t_rng *r, size_t n, la_real *x) {
  size_t i;
  for (i = 0; i < n; ++i) x[i] = (la_real)la_t_uniform(r);
}

/* The smallest data and model the checkpoint tests need: d = 2, n = 3,
   one sparse layer (8 parameters), Setting 1's data from `seed`. */
static int la_t_small(la_data *g, la_model *m, uint64_t seed) {
  la_data_config dc;
  la_model_config mc;
  memset(&dc, 0, sizeof dc);
  dc.d = 2;
  dc.n = 3;
  memset(&mc, 0, sizeof mc);
  mc.d = 2;
  mc.n = 3;
  mc.layers = 1;
  return la_data_create(g, &dc, seed) || la_model_init(m, &mc) ? -1 : 0;
}
#endif
