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
