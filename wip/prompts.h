/* linattn.h section under development: RNG and prompt generator.
   Included twice by linattn.h: once with LA__PART_API defined (declarations,
   inside the include guard and extern "C"), once with LA__PART_IMPL. */
#if defined(LA__PART_API)

/* ------------------------------------------------------------ the RNG */
/* CONTRACT (other sections use these names and meanings; the internals may
   change): a seedable generator in a caller-owned state, with independent
   streams selected by `stream`. */
typedef struct la_rng {
  uint64_t key;     /* from the seed and the stream */
  uint64_t counter; /* position in the stream */
} la_rng;
LINATTN_DEF void la_rng_seed(la_rng *r, uint64_t seed, uint64_t stream);
LINATTN_DEF uint64_t la_rng_u64(la_rng *r);
LINATTN_DEF double la_rng_uniform(la_rng *r); /* in [0, 1) */
LINATTN_DEF double la_rng_normal(la_rng *r);  /* N(0, 1) */

/* ---------------------------------------------------------- a batch */
/* CONTRACT: a batch of prompts in the interleaved layout. z holds
   la_panels(count) panels of (d+1) x (n+1) matrices Z0 = [[x_1..x_n x_q],
   [y_1..y_n 0]]; y holds la_panels(count) panels of 1 real, the targets y_q.
   Padding lanes are zero. */
#define LA_MAX_D 256  /* largest covariate dimension d */
#define LA_MAX_N 4096 /* largest context length n */
typedef struct la_batch {
  int d, n, count;
  la_real *z;
  la_real *y;
} la_batch;
LINATTN_DEF size_t la_batch_bytes(int d, int n, int count);
LINATTN_DEF int la_batch_init(la_batch *b, int d, int n, int count, void *mem,
                              size_t bytes);
#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_batch_create(la_batch *b, int d, int n, int count);
LINATTN_DEF void la_batch_destroy(la_batch *b);
#endif

/* ------------------------------------------------- the data settings */
/* CONTRACT (the training driver and the tools code against these names;
   the generator section may add fields, presets and functions). A data
   setting is a description (la_data_config, zero fields = defaults) turned
   into a generator (la_data) that owns what is fixed for a run: Sigma's
   factor, the random target network. Sampling a batch never allocates. */
enum {
  LA_SETTING_1 = 1,      /* paper A: n = 20, d = 5, x ~ N(0, I) */
  LA_SETTING_2 = 2,      /* paper A: n = 5, d = 5 */
  LA_SETTING_3 = 3,      /* paper A: heavy-tailed, Gamma(0.1, 10) radii */
  LA_SETTING_SPHERE = 4, /* paper A: x uniform on the sphere */
  LA_SETTING_NONLINEAR = 5, /* paper A: targets through a random ReLU net */
  LA_SETTING_PAPER_B = 6 /* paper B: x ~ N(0, Sigma), w* ~ N(0, Sigma^-1) */
};
typedef struct la_data_config la_data_config; /* defined by the section */
typedef struct la_data la_data;               /* defined by the section */
/* cfg = the preset's description (d, n and everything else filled in). */
LINATTN_DEF int la_data_preset(la_data_config *cfg, int setting);
/* Generator for `cfg`, fixed parts drawn from `seed`. */
LINATTN_DEF size_t la_data_bytes(const la_data_config *cfg);
LINATTN_DEF int la_data_init(la_data *g, const la_data_config *cfg,
                             uint64_t seed, void *mem, size_t bytes);
#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_data_create(la_data *g, const la_data_config *cfg,
                               uint64_t seed);
LINATTN_DEF void la_data_destroy(la_data *g);
#endif
/* Fill every prompt of b (b->d, b->n must match the setting) from rng. */
LINATTN_DEF int la_data_sample(const la_data *g, la_rng *rng, la_batch *b);

#elif defined(LA__PART_IMPL)

/* PRELIMINARY implementation, to be replaced by the generator section. */
static uint64_t la__mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
LINATTN_DEF void la_rng_seed(la_rng *r, uint64_t seed, uint64_t stream) {
  r->key = la__mix64(seed ^ la__mix64(stream + 0x9e3779b97f4a7c15ull));
  r->counter = 0;
}
LINATTN_DEF uint64_t la_rng_u64(la_rng *r) {
  return la__mix64(r->key + 0x9e3779b97f4a7c15ull * ++r->counter);
}
LINATTN_DEF double la_rng_uniform(la_rng *r) {
  return (double)(la_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}
LINATTN_DEF double la_rng_normal(la_rng *r) {
  double u = 1.0 - la_rng_uniform(r), v = la_rng_uniform(r);
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static size_t la__panel_reals(int rows, int cols, int count) {
  return (size_t)la_panels(count) * (size_t)rows * (size_t)cols * LA_W;
}
LINATTN_DEF size_t la_batch_bytes(int d, int n, int count) {
  if (d <= 0 || n <= 0 || count <= 0 || d > LA_MAX_D || n > LA_MAX_N) return 0;
  return sizeof(la_real) *
         (la__panel_reals(d + 1, n + 1, count) + la__panel_reals(1, 1, count));
}
LINATTN_DEF int la_batch_init(la_batch *b, int d, int n, int count, void *mem,
                              size_t bytes) {
  size_t need = la_batch_bytes(d, n, count);
  if (!b || !mem) return LA_ENULL;
  if (!need) return LA_EDIM;
  if (bytes < need) return LA_EWORKSPACE;
  b->d = d; b->n = n; b->count = count;
  b->z = (la_real *)mem;
  b->y = b->z + la__panel_reals(d + 1, n + 1, count);
  memset(mem, 0, need);
  return LA_OK;
}
#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_batch_create(la_batch *b, int d, int n, int count) {
  size_t need = la_batch_bytes(d, n, count);
  void *mem;
  if (!b) return LA_ENULL;
  if (!need) return LA_EDIM;
  mem = la_alloc(need);
  if (!mem) return LA_ENOMEM;
  return la_batch_init(b, d, n, count, mem, need);
}
LINATTN_DEF void la_batch_destroy(la_batch *b) {
  if (b) { la_free(b->z); b->z = b->y = NULL; }
}
#endif

#endif
