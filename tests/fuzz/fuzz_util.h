/* What the libFuzzer harnesses share: a failure that stops the fuzzer with
   a message, the set of documented status codes, and a little-endian
   reader that turns the fuzzer's bytes into field values. Each harness is
   one translation unit with the implementation in it. */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FZ_CHECK(cond, ...)                                                   \
  do {                                                                        \
    if (!(cond)) {                                                            \
      (void)fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__,  \
                    #cond);                                                   \
      (void)fprintf(stderr, __VA_ARGS__);                                     \
      (void)fprintf(stderr, "\n");                                            \
      abort();                                                                \
    }                                                                         \
  } while (0)

/* Every status the header documents: LA_OK and LA_ENULL .. LA_EUNSUPPORTED. */
static inline int fz_documented(int st) { return st <= 0 && st >= LA_EUNSUPPORTED; }

static inline int fz_all_finite(int n, const la_real *x) {
  int i;
  for (i = 0; i < n; ++i)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* The fuzzer's input read as a stream of fields; past its end every field
   reads as zero, which is each configuration's default. */
typedef struct fz_in {
  const uint8_t *p;
  size_t len, at;
} fz_in;

static inline uint64_t fz_bits(fz_in *in, int bytes) {
  uint64_t v = 0;
  int i;
  for (i = 0; i < bytes; ++i)
    v |= (uint64_t)(in->at < in->len ? in->p[in->at++] : 0) << (8 * i);
  return v;
}

/* A small integer most of the time, any 32-bit value when the top bit of
   the selector byte is set: sizes stay cheap, limits still get probed. */
static inline int fz_int(fz_in *in, int small) {
  uint64_t sel = fz_bits(in, 1);
  if (sel & 0x80) {
    uint32_t u = (uint32_t)fz_bits(in, 4);
    return u <= 0x7fffffffu ? (int)u : -(int)(0xffffffffu - u) - 1;
  }
  return (int)(sel % (uint64_t)(small + 1));
}

/* A double from a table of edge values, or any bit pattern. */
static inline double fz_real(fz_in *in) {
  static const double edge[16] = {0,     1,      -1,    0.5,   1e-300, 1e300,
                                  0.9,   0.999,  1e-8,  100,   -0.0,   2,
                                  1e-3,  0.02,   1.5,   1e30};
  uint64_t sel = fz_bits(in, 1), u;
  double x;
  if (sel < 0xd0) return edge[sel % 16];
  if (sel < 0xe0) return sel & 1 ? NAN : (sel & 2 ? INFINITY : -INFINITY);
  u = fz_bits(in, 8);
  memcpy(&x, &u, sizeof x);
  return x;
}

/* The checkpoint's closing FNV-1a 64, computed here independently, so that
   a harness can make a mutated file pass the checksum and reach the
   checks behind it. */
static inline void fz_reseal(uint8_t *p, size_t len) {
  uint64_t h = 14695981039346656037ull;
  size_t i;
  if (len < 8) return;
  for (i = 0; i + 8 < len; ++i) h = (h ^ p[i]) * 1099511628211ull;
  for (i = 0; i < 8; ++i) p[len - 8 + i] = (uint8_t)(h >> (8 * i));
}
#endif
