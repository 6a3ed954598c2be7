/* The RNG and the prompt generator: distributions against their exact laws
   (tolerances from the sample size: 5 standard errors), the prompts against
   their definition, bad input, and the golden vectors every backend must
   reproduce bit for bit. */
#include "golden_prompts.h"
#include "golden_fnv.h"

/* ---------------------------------------------------- exact references */

static double tp_phi(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* Regularized lower incomplete gamma P(a, x): series below a + 1, Lentz's
   continued fraction for the upper tail above. */
static double tp_gammp(double a, double x) {
  double lg = lgamma(a), s, t, b, c, d, h;
  int i;
  if (x <= 0) return 0;
  if (x < a + 1) {
    s = t = 1.0 / a;
    for (i = 1; i < 10000 && fabs(t) > 1e-17 * fabs(s); ++i) {
      t *= x / (a + i);
      s += t;
    }
    return s * exp(-x + a * log(x) - lg);
  }
  b = x + 1 - a;
  c = 1e300;
  d = 1 / b;
  h = d;
  for (i = 1; i < 10000; ++i) {
    double an = -i * (i - a), del;
    b += 2;
    d = an * d + b;
    if (fabs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (fabs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    del = d * c;
    h *= del;
    if (fabs(del - 1) < 1e-16) break;
  }
  return 1 - exp(-x + a * log(x) - lg) * h;
}

/* |estimate - exact| within 5 standard errors (plus a rounding floor). */
static int tp_near(double est, double exact, double se) {
  return fabs(est - exact) <= 5 * se + 1e-9;
}
static int tp_prop(long hits, long n, double p) {
  return tp_near((double)hits / n, p, sqrt(p * (1 - p) / n));
}

/* Element (i, j) of prompt p of a batch. */
static double tp_z(const la_batch *b, int p, int i, int j) {
  size_t e = (size_t)(p / LA_W) * (b->d + 1) * (b->n + 1) +
             (size_t)i * (b->n + 1) + j;
  return b->z[e * LA_W + p % LA_W];
}
static double tp_yq(const la_batch *b, int p) { return b->y[p]; }

/* Solve A x = r (n x n, row-major, destroyed) by Gaussian elimination with
   partial pivoting; 0 when singular. */
static int tp_solve(int n, double *A, double *r) {
  int i, j, k;
  for (k = 0; k < n; ++k) {
    int piv = k;
    for (i = k + 1; i < n; ++i)
      if (fabs(A[i * n + k]) > fabs(A[piv * n + k])) piv = i;
    if (A[piv * n + k] == 0) return 0;
    for (j = 0; j < n; ++j) {
      double t = A[k * n + j];
      A[k * n + j] = A[piv * n + j];
      A[piv * n + j] = t;
    }
    { double t = r[k]; r[k] = r[piv]; r[piv] = t; }
    for (i = k + 1; i < n; ++i) {
      double f = A[i * n + k] / A[k * n + k];
      for (j = k; j < n; ++j) A[i * n + j] -= f * A[k * n + j];
      r[i] -= f * r[k];
    }
  }
  for (i = n - 1; i >= 0; --i) {
    for (j = i + 1; j < n; ++j) r[i] -= A[i * n + j] * r[j];
    r[i] /= A[i * n + i];
  }
  return 1;
}

/* w* of prompt p by least squares over its n labelled tokens (features
   f(x) when feat is given: d x (n+1) per prompt, row-major). */
static int tp_wstar(const la_batch *b, int p, const double *feat, double *w) {
  double A[LA_MAX_D * 8];
  int d = b->d, n = b->n, i, k, j;
  if (d > 8) return 0;
  for (i = 0; i < d; ++i) {
    w[i] = 0;
    for (k = 0; k < d; ++k) A[i * d + k] = 0;
  }
  for (j = 0; j < n; ++j)
    for (i = 0; i < d; ++i) {
      double xi = feat ? feat[i * (n + 1) + j] : tp_z(b, p, i, j);
      w[i] += xi * tp_z(b, p, d, j);
      for (k = 0; k < d; ++k)
        A[i * d + k] += xi * (feat ? feat[k * (n + 1) + j] : tp_z(b, p, k, j));
    }
  return tp_solve(d, A, w);
}

#ifdef LINATTN_DOUBLE
#define TP_EPS 1e-13
#else
#define TP_EPS 2e-6
#endif

static la_data tp_make(la_t *t, const la_data_config *c, uint64_t seed) {
  la_data g;
  int st = la_data_create(&g, c, seed);
  LA_CHECK(t, st == LA_OK, "la_data_create: %s", la_status_str(st));
  return g;
}

/* ----------------------------------------------------------- the RNG */

static void tp_rng(la_t *t) {
  LA_TEST(t, "prompts: Philox4x32-7 known answers") {
    /* the known-answer vectors published with Random123 (kat_vectors) */
    uint32_t a[4] = {0, 0, 0, 0}, b[4], c[4];
    uint32_t ea[4] = {0x5f6fb709u, 0x0d893f64u, 0x4f121f81u, 0x4f730a48u};
    uint32_t eb[4] = {0x5207ddc2u, 0x45165e59u, 0x4d8ee751u, 0x8c52f662u};
    uint32_t ec[4] = {0x4dfccabau, 0x190a87f0u, 0xc47362bau, 0xb6b5242au};
    int i;
    for (i = 0; i < 4; ++i) b[i] = 0xffffffffu;
    c[0] = 0x243f6a88u; c[1] = 0x85a308d3u; c[2] = 0x13198a2eu; c[3] = 0x03707344u;
    la__philox(a, 0, 0);
    la__philox(b, 0xffffffffu, 0xffffffffu);
    la__philox(c, 0xa4093822u, 0x299f31d0u);
    for (i = 0; i < 4; ++i) {
      LA_CHECK(t, a[i] == ea[i], "zero word %d: %08lx", i, (unsigned long)a[i]);
      LA_CHECK(t, b[i] == eb[i], "ones word %d: %08lx", i, (unsigned long)b[i]);
      LA_CHECK(t, c[i] == ec[i], "pi word %d: %08lx", i, (unsigned long)c[i]);
    }
  }

  LA_TEST(t, "prompts: rng streams, positions, u64 from the blocks") {
    la_rng r, s;
    uint32_t w[4] = {0, 0, 0x2a, 0};
    uint64_t u;
    int i, same = 0;
    la_rng_seed(&r, 99, 42);
    la__philox(w, 99, 0); /* block 0 of stream 42 under key 99 */
    u = la_rng_u64(&r);
    LA_CHECK(t, u == ((uint64_t)w[1] << 32 | w[0]), "first u64");
    u = la_rng_u64(&r);
    LA_CHECK(t, u == ((uint64_t)w[3] << 32 | w[2]), "second u64");
    la_rng_seed(&r, 99, 42);
    la_rng_seed(&s, 99, 43);
    for (i = 0; i < 100; ++i) same += la_rng_u64(&r) == la_rng_u64(&s);
    LA_CHECK(t, same == 0, "streams 42 and 43 share %d words", same);
    la_rng_seed(&r, 99, 42);
    la_rng_seed(&s, 98, 42);
    for (i = 0, same = 0; i < 100; ++i) same += la_rng_u64(&r) == la_rng_u64(&s);
    LA_CHECK(t, same == 0, "seeds 99 and 98 share %d words", same);
    /* a u64 after one normal skips the normal's partner word */
    la_rng_seed(&r, 1, 1);
    (void)la_rng_normal(&r);
    LA_CHECK(t, r.counter == 1, "counter %llu", (unsigned long long)r.counter);
    (void)la_rng_u64(&r);
    LA_CHECK(t, r.counter == 4, "counter %llu", (unsigned long long)r.counter);
    la_rng_seed(NULL, 1, 1); /* no crash */
    LA_CHECK(t, la_rng_u64(NULL) == 0 && la_rng_normal(NULL) == 0, "null rng");
  }

  LA_TEST(t, "prompts: bulk normals equal scalar draws from a block boundary") {
    la_rng r, s;
    la_real x[101];
    int i, bad = 0;
    la_rng_seed(&r, 5, 9);
    la_rng_seed(&s, 5, 9);
    (void)la_rng_normal(&r); /* counter 1: bulk starts at word 4 */
    LA_CHECK(t, la_rng_normals(&r, 101, x) == LA_OK, "status");
    s.counter = 4;
    for (i = 0; i < 101; ++i) bad += (double)x[i] != la_rng_normal(&s);
    LA_CHECK(t, bad == 0, "%d differ", bad);
    LA_CHECK(t, r.counter == 4 + 104, "counter %llu", (unsigned long long)r.counter);
    LA_CHECK(t, la_rng_normals(NULL, 3, x) == LA_ENULL, "null rng");
    LA_CHECK(t, la_rng_normals(&r, 3, NULL) == LA_ENULL, "null x");
    s = r;
    LA_CHECK(t, la_rng_normals(&r, 0, x) == LA_EDIM, "n = 0");
    LA_CHECK(t, r.counter == s.counter, "rng moved on bad input");
  }

  LA_TEST(t, "prompts: SIMD chunks equal the scalar twin bit for bit") {
    /* includes blocks whose low word carries inside a chunk */
    static const uint64_t blks[] = {0, 1, 7, 1000, 0xfffffff0ull,
                                    0xfffffffdull, 0x1fffffffbull,
                                    0x123456789abcull};
    float a[LA__NCHUNK], b[LA__NCHUNK];
    la_rng r;
    la__pkeys k;
    int i, c, bad = 0;
    for (i = 0; i < (int)(sizeof blks / sizeof blks[0]); ++i) {
      la_rng_seed(&r, 0x9e3779b97f4a7c15ull * (i + 1), (uint64_t)i << 40 | 3);
      la__pkeys_init(&r, &k, blks[i]);
      la__normals_chunk(&r, &k, blks[i], a);
      for (c = 0; c < LA__NCHUNK; c += 32)
        la__normals32_scalar(&r, blks[i] + c / 4, b + c);
      bad += memcmp(a, b, sizeof a) != 0;
    }
    LA_CHECK(t, bad == 0, "%d chunks differ", bad);
  }

  LA_TEST(t, "prompts: -2 ln u and Box-Muller against libm") {
    la_t_rng q = {77};
    int i, bad = 0, badbm = 0;
    double worst = 0;
    for (i = 0; i <= 310000; ++i) { /* u from 2^-31 to 1 */
      double e = pow(2.0, 31.0 * i / 310000.0);
      uint32_t j = e >= 2147483647.0 ? 2147483647u : (uint32_t)e | 1u;
      double u = (double)(float)(int32_t)j / 2147483648.0;
      double ref = -2 * log(u), ulp;
      int ex;
      if (ref == 0) continue;
      frexp(ref, &ex);
      ulp = fabs(la__m2logf(j << 1) - ref) / ldexp(1.0, ex - 24);
      if (ulp > worst) worst = ulp;
      bad += ulp > 1.25; /* the table method's bound, measured over 2^31 */
    }
    LA_CHECK(t, bad == 0 && la__m2logf(0xffffffffu) == 0,
             "%d logs beyond 1.25 ulp (worst %.2f)", bad, worst);
    for (i = 0; i < 20000; ++i) {
      uint32_t w1 = (uint32_t)(la_t_uniform(&q) * 2147483648.0 + 2147483648.0);
      uint32_t w2 = (uint32_t)(la_t_uniform(&q) * 2147483648.0 + 2147483648.0);
      float n0, n1;
      double u = (double)(float)(int32_t)((w1 >> 1) | 1u) / 2147483648.0;
      double rad = sqrt(-2 * log(u)), th = 6.283185307179586 * (w2 / 4294967296.0);
      double ur = ldexp(1.0, ilogb(rad) - 23); /* an ulp of the radius */
      la__boxmuller(w1, w2, &n0, &n1);
      /* 2.33 at worst over 2e7 pairs (the radius's 1.1 ulp, the sine's
         or cosine's, the product's rounding); the ten-round generator's
         separate multiplies and adds gave 2.46 */
      if (fabs(n0 - rad * cos(th)) > 2.5 * ur ||
          fabs(n1 - rad * sin(th)) > 2.5 * ur)
        ++badbm;
    }
    LA_CHECK(t, badbm == 0, "%d pairs beyond 2.5 ulps of their radius", badbm);
  }

  LA_TEST(t, "prompts: bulk normals of every count equal single draws") {
    /* counts around the chunk sizes of every backend, starts next to a
       carry of the block's low word (the scalar fallback inside a run) */
    static const int ns[] = {1, 3, 4, 5, 17, 31, 32, 33, 63, 65, 127, 129,
                             255, 257, 511, 513, 1023};
    static const uint64_t at[] = {0, 7, 0xffffffe0ull, 0xfffffff9ull};
    static la_real x[1024];
    la_rng r, s;
    int a, c, i, bad = 0, badpos = 0;
    for (a = 0; a < 4; ++a)
      for (c = 0; c < (int)(sizeof ns / sizeof ns[0]); ++c) {
        la_rng_seed(&r, 0x51ed + (uint64_t)c, 11 + (uint64_t)a);
        r.counter = at[a] << 2;
        s = r;
        la_rng_normals(&r, ns[c], x);
        for (i = 0; i < ns[c]; ++i) bad += (double)x[i] != la_rng_normal(&s);
        badpos += r.counter != ((at[a] + ((uint64_t)ns[c] + 3) / 4) << 2);
      }
    LA_CHECK(t, bad == 0, "%d normals differ", bad);
    LA_CHECK(t, badpos == 0, "%d stream positions differ", badpos);
  }

  LA_TEST(t, "prompts: each panel draws from its own stretch of the stream") {
    /* Setting 3's radii take a varying number of words; label noise comes
       last in a panel: neither may move the next panel's start */
    static const int settings[] = {LA_SETTING_1, LA_SETTING_3,
                                   LA_SETTING_PAPER_B};
    int si, p, bad = 0, badpos = 0;
    for (si = 0; si < 3; ++si) {
      la_data_config c;
      la_data g;
      la_batch b, b1, b2;
      la_rng r, r1;
      size_t pr, ps;
      la_real *one;
      la_data_preset(&c, settings[si]);
      c.noise_std = 0.25;
      if (la_data_create(&g, &c, 5)) { bad++; continue; }
      la_batch_create(&b, c.d, c.n, 2 * LA_W + 3);
      la_batch_create(&b1, c.d, c.n, LA_W + 1);
      la_batch_create(&b2, c.d, c.n, LA_W);
      pr = (size_t)(c.d + 1) * (c.n + 1) * LA_W;
      ps = pr + LA_W;
      one = (la_real *)la_alloc(sizeof(la_real) * ps);
      la_rng_seed(&r, 9, 4);
      r.counter = 5; /* past a panel's start: the batch begins at panel 1 */
      r1 = r;
      la_data_sample(&g, &r, &b);
      badpos += r.counter != (uint64_t)4 << 34;
      /* panel by panel at their positions, in reverse order */
      for (p = 2; p >= 0; --p) {
        la__data_panel(&g, &r1, 1 + (uint64_t)p, one, one + pr);
        if (p == 2) { /* padding lanes of the batch are zero */
          int e, l;
          for (l = 3; l < LA_W; ++l) {
            for (e = 0; e < (c.d + 1) * (c.n + 1); ++e) one[(size_t)e * LA_W + l] = 0;
            one[pr + l] = 0;
          }
        }
        bad += memcmp(one, b.z + p * pr, sizeof(la_real) * pr) != 0;
        bad += memcmp(one + pr, b.y + p * LA_W, sizeof(la_real) * LA_W) != 0;
      }
      /* two batches in turn: the second starts at the third panel */
      la_rng_seed(&r, 9, 4);
      r.counter = 5;
      la_data_sample(&g, &r, &b1);
      la_data_sample(&g, &r, &b2);
      /* b's third panel holds 3 prompts, b2's first LA_W */
      for (p = 0; p < 3; ++p) {
        int e;
        for (e = 0; e < (c.d + 1) * (c.n + 1); ++e)
          bad += b2.z[(size_t)e * LA_W + p] != b.z[2 * pr + (size_t)e * LA_W + p];
        bad += b2.y[p] != b.y[2 * LA_W + p];
      }
      badpos += r.counter != (uint64_t)4 << 34;
      la_free(one);
      la_batch_destroy(&b);
      la_batch_destroy(&b1);
      la_batch_destroy(&b2);
      la_data_destroy(&g);
    }
    LA_CHECK(t, bad == 0, "%d panels differ", bad);
    LA_CHECK(t, badpos == 0, "%d stream positions differ", badpos);
  }

  LA_TEST(t, "prompts: a stream holds 2^30 - 1 panels, then LA_ERANGE") {
    la_data_config c;
    la_data g;
    la_batch b;
    la_rng r, r0;
    la_data_preset(&c, LA_SETTING_2);
    g = tp_make(t, &c, 1);
    la_batch_create(&b, c.d, c.n, 2 * LA_W);
    la_rng_seed(&r, 1, 1);
    r.counter = ((uint64_t)1 << 30) - 3;
    r.counter <<= 34;
    LA_CHECK(t, la_data_sample(&g, &r, &b) == LA_OK &&
                    r.counter == (((uint64_t)1 << 30) - 1) << 34,
             "the last two panels");
    r0 = r;
    LA_CHECK(t, la_data_sample(&g, &r, &b) == LA_ERANGE && r.counter == r0.counter,
             "the stream's end");
    r = r0;
    r.counter -= ((uint64_t)2 << 34) - 1;
    r0 = r;
    r = r0;
    r.counter += 1;
    memset(b.z, 0x5a, la_batch_bytes(c.d, c.n, 2 * LA_W));
    LA_CHECK(t, la_data_sample(&g, &r, &b) == LA_ERANGE &&
                    r.counter == r0.counter + 1 && b.z[0] == b.z[1],
             "past the end: nothing drawn");
    la_batch_destroy(&b);
    la_data_destroy(&g);
  }

  LA_TEST(t, "prompts: in-house double exp against libm") {
    int i, bad = 0;
    for (i = -2000; i <= 2000; ++i) {
      double e = i * 0.37, ref = exp(e);
      if (e > -700 && fabs(la__exp(e) - ref) > 4e-16 * ref) ++bad;
    }
    LA_CHECK(t, bad == 0, "%d values beyond 2 ulp", bad);
    LA_CHECK(t, la__exp(-800) == 0 && la__exp(-740) > 0 &&
                    fabs(la__exp(-740) / exp(-740) - 1) < 1e-3,
             "underflow");
    LA_CHECK(t, la__exp(0) == 1, "exp 0");
  }

  LA_TEST(t, "prompts: uniform moments and quantiles") {
    la_rng r;
    long n = 100000, i, c1 = 0, c5 = 0, c9 = 0, out = 0;
    double s = 0, s2 = 0;
    la_rng_seed(&r, 3, 0);
    for (i = 0; i < n; ++i) {
      double u = la_rng_uniform(&r);
      s += u;
      s2 += (u - 0.5) * (u - 0.5);
      c1 += u < 0.1; c5 += u < 0.5; c9 += u < 0.9;
      out += !(u >= 0 && u < 1);
    }
    LA_CHECK(t, out == 0, "%ld outside [0, 1)", out);
    LA_CHECK(t, tp_near(s / n, 0.5, sqrt(1.0 / 12 / n)), "mean %g", s / n);
    LA_CHECK(t, tp_near(s2 / n, 1.0 / 12, sqrt((1.0 / 80 - 1.0 / 144) / n)),
             "variance %g", s2 / n);
    LA_CHECK(t, tp_prop(c1, n, 0.1) && tp_prop(c5, n, 0.5) && tp_prop(c9, n, 0.9),
             "quantiles %ld %ld %ld", c1, c5, c9);
  }

  LA_TEST(t, "prompts: normal moments and quantiles") {
    enum { N = 200000 };
    static la_real x[N];
    static const double q[] = {-3, -2, -1, -0.3, 0, 0.5, 1, 2, 3};
    long cnt[9] = {0};
    double m1 = 0, m2 = 0, m3 = 0, m4 = 0, big = 0;
    la_rng r;
    int i, k;
    la_rng_seed(&r, 8, 1);
    LA_CHECK(t, la_rng_normals(&r, N, x) == LA_OK, "status");
    for (i = 0; i < N; ++i) {
      double z = x[i], z2 = z * z;
      m1 += z; m2 += z2; m3 += z2 * z; m4 += z2 * z2;
      if (fabs(z) > big) big = fabs(z);
      for (k = 0; k < 9; ++k) cnt[k] += z < q[k];
    }
    LA_CHECK(t, tp_near(m1 / N, 0, sqrt(1.0 / N)), "mean %g", m1 / N);
    LA_CHECK(t, tp_near(m2 / N, 1, sqrt(2.0 / N)), "E z^2 %g", m2 / N);
    LA_CHECK(t, tp_near(m3 / N, 0, sqrt(15.0 / N)), "E z^3 %g", m3 / N);
    LA_CHECK(t, tp_near(m4 / N, 3, sqrt(96.0 / N)), "E z^4 %g", m4 / N);
    for (k = 0; k < 9; ++k)
      LA_CHECK(t, tp_prop(cnt[k], N, tp_phi(q[k])), "P(z < %g) = %g",
               q[k], (double)cnt[k] / N);
    LA_CHECK(t, big <= 6.57, "|z| = %g beyond the documented cut", big);
  }
}

/* --------------------------------------------- Gamma, sphere, rotations */

static void tp_shapes(la_t *t) {
  LA_TEST(t, "prompts: Gamma moments and CDF for k below and above 1") {
    static const double ks[] = {0.1, 0.5, 1, 2.5, 7}, th[] = {10, 1, 2, 2, 0.5};
    static const double at[] = {0.001, 0.1, 0.5, 1, 2, 4};
    int c, i, k, n = 10000;
    for (c = 0; c < 5; ++c) {
      double s = 0, s2 = 0, mean = ks[c] * th[c], var = ks[c] * th[c] * th[c];
      double mu4 = 3 * ks[c] * (ks[c] + 2) * th[c] * th[c] * th[c] * th[c];
      long cnt[6] = {0};
      la_rng r;
      int bad = 0;
      la_rng_seed(&r, 17, (uint64_t)c);
      for (i = 0; i < n; ++i) {
        double g = -1;
        bad += la_rng_gamma(&r, ks[c], th[c], &g) != LA_OK || !(g >= 0);
        s += g;
        s2 += (g - mean) * (g - mean);
        for (k = 0; k < 6; ++k) cnt[k] += g < at[k] * mean;
      }
      LA_CHECK(t, bad == 0, "k %g: %d bad draws", ks[c], bad);
      LA_CHECK(t, tp_near(s / n, mean, sqrt(var / n)), "k %g: mean %g", ks[c], s / n);
      LA_CHECK(t, tp_near(s2 / n, var, sqrt((mu4 - var * var) / n)),
               "k %g: variance %g, exact %g", ks[c], s2 / n, var);
      for (k = 0; k < 6; ++k)
        LA_CHECK(t, tp_prop(cnt[k], n, tp_gammp(ks[c], at[k] * ks[c])),
                 "k %g: P(g < %g mean) = %g, exact %g", ks[c], at[k],
                 (double)cnt[k] / n, tp_gammp(ks[c], at[k] * ks[c]));
    }
  }

  LA_TEST(t, "prompts: Gamma bad input writes nothing") {
    la_rng r, s;
    double g = 42;
    la_rng_seed(&r, 1, 2);
    s = r;
    LA_CHECK(t, la_rng_gamma(&r, 0, 1, &g) == LA_ERANGE, "k = 0");
    LA_CHECK(t, la_rng_gamma(&r, -1, 1, &g) == LA_ERANGE, "k < 0");
    LA_CHECK(t, la_rng_gamma(&r, 1, 0, &g) == LA_ERANGE, "theta = 0");
    LA_CHECK(t, la_rng_gamma(&r, 1, -3, &g) == LA_ERANGE, "theta < 0");
    LA_CHECK(t, la_rng_gamma(&r, NAN, 1, &g) == LA_ENONFINITE, "k NaN");
    LA_CHECK(t, la_rng_gamma(&r, 1, INFINITY, &g) == LA_ENONFINITE, "theta inf");
    LA_CHECK(t, la_rng_gamma(&r, 50, 1e307, &g) == LA_ERANGE, "overflow");
    LA_CHECK(t, la_rng_gamma(NULL, 1, 1, &g) == LA_ENULL, "null rng");
    LA_CHECK(t, la_rng_gamma(&r, 1, 1, NULL) == LA_ENULL, "null out");
    LA_CHECK(t, g == 42 && r.counter == s.counter, "written on bad input");
  }

  LA_TEST(t, "prompts: sphere points are unit and uniform") {
    la_rng r;
    la_real x[3], one;
    long n = 20000, i, c1 = 0, c2 = 0, c3 = 0, pos = 0;
    double cross = 0, worst = 0;
    la_rng_seed(&r, 4, 4);
    for (i = 0; i < n; ++i) {
      double nn;
      la_rng_sphere(&r, 3, x);
      nn = (double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2];
      if (fabs(nn - 1) > worst) worst = fabs(nn - 1);
      /* Archimedes: each coordinate of S^2 is uniform on [-1, 1] */
      c1 += x[2] < -0.5; c2 += x[2] < 0; c3 += x[2] < 0.7;
      cross += (double)x[0] * x[1];
    }
    LA_CHECK(t, worst < 8 * TP_EPS, "| |x|^2 - 1 | = %g", worst);
    LA_CHECK(t, tp_prop(c1, n, 0.25) && tp_prop(c2, n, 0.5) && tp_prop(c3, n, 0.85),
             "coordinate quantiles %ld %ld %ld", c1, c2, c3);
    /* E x0 x1 = 0, Var = E x0^2 x1^2 = 1/15 on S^2 */
    LA_CHECK(t, tp_near(cross / n, 0, sqrt(1.0 / 15 / n)), "E x0 x1 %g", cross / n);
    for (i = 0; i < 2000; ++i) {
      la_rng_sphere(&r, 1, &one);
      pos += one > 0;
      if (one != 1 && one != -1) c1 = -1;
    }
    LA_CHECK(t, c1 != -1 && tp_prop(pos, 2000, 0.5), "S^0: %ld positive", pos);
    LA_CHECK(t, la_rng_sphere(&r, 0, x) == LA_EDIM, "d = 0");
    LA_CHECK(t, la_rng_sphere(NULL, 3, x) == LA_ENULL, "null rng");
    LA_CHECK(t, la_rng_sphere(&r, 3, NULL) == LA_ENULL, "null x");
  }

  LA_TEST(t, "prompts: random rotations are orthogonal and Haar") {
    static const int ds[] = {1, 2, 5, 17};
    double q[17 * 17], worst = 0, s1 = 0, s2 = 0;
    la_rng r;
    int c, i, j, k, n = 3000;
    long detpos = 0;
    la_rng_seed(&r, 6, 0);
    for (c = 0; c < 4; ++c) {
      int d = ds[c];
      LA_CHECK(t, la_rng_orthogonal(&r, d, q) == LA_OK, "d %d", d);
      for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) {
          double s = 0;
          for (k = 0; k < d; ++k) s += q[i * d + k] * q[j * d + k];
          if (fabs(s - (i == j)) > worst) worst = fabs(s - (i == j));
        }
    }
    LA_CHECK(t, worst < 1e-13, "|Q Q^T - I| = %g", worst);
    for (i = 0; i < n; ++i) { /* Haar on O(3): E q11 = 0, E q11^2 = 1/3 */
      double det;
      la_rng_orthogonal(&r, 3, q);
      s1 += q[0];
      s2 += q[0] * q[0];
      det = q[0] * (q[4] * q[8] - q[5] * q[7]) - q[1] * (q[3] * q[8] - q[5] * q[6]) +
            q[2] * (q[3] * q[7] - q[4] * q[6]);
      detpos += det > 0;
    }
    /* q11 is a coordinate of S^2: uniform on [-1, 1], Var q11^2 = 4/45 */
    LA_CHECK(t, tp_near(s1 / n, 0, sqrt(1.0 / 3 / n)), "E q11 %g", s1 / n);
    LA_CHECK(t, tp_near(s2 / n, 1.0 / 3, sqrt(4.0 / 45 / n)), "E q11^2 %g", s2 / n);
    LA_CHECK(t, tp_prop(detpos, n, 0.5), "det > 0 in %ld of %d", detpos, n);
    LA_CHECK(t, la_rng_orthogonal(&r, 0, q) == LA_EDIM, "d = 0");
    LA_CHECK(t, la_rng_orthogonal(&r, LA_MAX_D + 1, q) == LA_EDIM, "d too big");
    LA_CHECK(t, la_rng_orthogonal(NULL, 2, q) == LA_ENULL, "null rng");
    LA_CHECK(t, la_rng_orthogonal(&r, 2, NULL) == LA_ENULL, "null q");
  }
}

/* ------------------------------------------- Gamma in lanes, and its law */

static int tp_cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* The Kolmogorov-Smirnov distance between the n samples x (sorted here)
   and the Gamma(k, theta) law. */
static double tp_ks_gamma(int n, double *x, double k, double theta) {
  double dmax = 0;
  int i;
  qsort(x, (size_t)n, sizeof(double), tp_cmp_dbl);
  for (i = 0; i < n; ++i) {
    double f = tp_gammp(k, x[i] / theta);
    dmax = fmax(dmax, fmax((i + 1.0) / n - f, f - (double)i / n));
  }
  return dmax;
}
/* 1.95 / sqrt(n): the 0.1% point of the distance's law for large n */
static double tp_ks_limit(int n) { return 1.95 / sqrt((double)n); }

static void tp_gamma(la_t *t) {
  LA_TEST(t, "prompts: -2 ln in lanes, group by group and across groups, equals the scalar") {
#ifdef LA__PRNG_SIMD
    /* la__vm2lnf (the normals' four groups step by step) and la__pm2lnf
       (one group, the Gamma tries') are two codings of la__m2lnf */
    la_t_rng q = {91};
    int i, l, bad = 0;
    for (i = 0; i < 2000; ++i) {
      float v[4 * LA__PL], a[4 * LA__PL], b[4 * LA__PL];
      la__f4 x, y;
      for (l = 0; l < 4 * LA__PL; ++l)
        v[l] = (float)ldexp(1.5 + 0.5 * la_t_uniform(&q), (int)(40 * la_t_uniform(&q)));
      x.a = la__floadu(v); x.b = la__floadu(v + LA__PL);
      x.c = la__floadu(v + 2 * LA__PL); x.d = la__floadu(v + 3 * LA__PL);
      y = la__vm2lnf(x, 0);
      la__fstoreu(a, y.a); la__fstoreu(a + LA__PL, y.b);
      la__fstoreu(a + 2 * LA__PL, y.c); la__fstoreu(a + 3 * LA__PL, y.d);
      la__fstoreu(b, la__pm2lnf(x.a, 0)); la__fstoreu(b + LA__PL, la__pm2lnf(x.b, 0));
      la__fstoreu(b + 2 * LA__PL, la__pm2lnf(x.c, 0));
      la__fstoreu(b + 3 * LA__PL, la__pm2lnf(x.d, 0));
      for (l = 0; l < 4 * LA__PL; ++l) {
        float s = la__m2lnf(v[l], 0);
        bad += memcmp(&s, a + l, 4) != 0 || memcmp(&s, b + l, 4) != 0;
      }
    }
    LA_CHECK(t, bad == 0, "%d logs differ", bad);
#endif
    { /* and the scalar, against libm: within the table method's 1.25 ulp */
      la_t_rng q2 = {92};
      int k, beyond = 0;
      for (k = 0; k < 100000; ++k) {
        float v = (float)ldexp(1 + la_t_uniform(&q2) * 0.99,
                               (int)(60 * la_t_uniform(&q2)));
        double ref = -2 * log((double)v), ulp;
        int ex;
        if (ref == 0) continue;
        frexp(ref, &ex);
        ulp = fabs(la__m2lnf(v, 0) - ref) / ldexp(1.0, ex - 24);
        beyond += ulp > 1.25;
      }
      LA_CHECK(t, beyond == 0, "%d logs beyond 1.25 ulp", beyond);
    }
  }

  LA_TEST(t, "prompts: Gamma tries in lanes equal the scalar twin bit for bit") {
    /* chunks from several first blocks, one next to the block's upper word
       (the scalar twin then makes the chunk quad by quad), contiguous and
       on the odd superblocks; shapes on both sides of 1 and of d = 2 */
    static const uint64_t bases[4] = {0, 5, 0xffffffe0ull, 0x1fffffff0ull};
    static const double ks[4] = {0.1, 1.0, 2.5, 40.0};
    int b, c, sp, q, i, bad = 0, quads = 0;
    for (c = 0; c < 4; ++c)
      for (b = 0; b < 4; ++b)
        for (sp = 0; sp < 2; ++sp) {
          la__gpar p;
          la__grun g;
          la_rng r;
          la_rng_seed(&r, 0xabcdef + (uint64_t)c, 17 + (uint64_t)b);
          la__gpar_init(&p, ks[c], 3.0);
          la__grun_init(&g, &p, &r, bases[b], sp);
          while (g.v < 96) {
            uint64_t v0 = g.v;
            la__grun_make(&g);
            for (q = 0; q < g.nq; ++q, ++quads) {
              float ts[8], es[8];
              uint32_t as[8];
              la__gamma_quad(&p, &r, la__grun_blk(&g, v0 + 4 * (uint64_t)q), ts,
                             es, as);
              for (i = 0; i < 8; ++i) {
                float s1, bb;
                la__gamma_radius(&p, ts[i], es[i], &s1, &bb);
                bad += as[i] != g.qa[q][i];
                if (as[i])
                  bad += memcmp(&s1, &g.qs[q][i], 4) != 0 ||
                         memcmp(&bb, &g.qb[q][i], 4) != 0;
              }
            }
          }
        }
    LA_CHECK(t, bad == 0 && quads > 0, "%d of %d quads' tries differ", bad,
             quads);
  }

  LA_TEST(t, "prompts: a Gamma run taken in pieces equals one fill") {
    static const int pieces[] = {1, 7, 8, 9, 13, 64, 65, 100, 3, 168};
    static float s1[1200], b1[1200], s2[1200], b2[1200];
    la__gpar p;
    la__grun g1, g2;
    la_rng r;
    int i, m = 0, bad = 0;
    la_rng_seed(&r, 4, 4);
    la__gpar_init(&p, 0.1, 10.0);
    la__grun_init(&g1, &p, &r, 9, 1);
    la__grun_init(&g2, &p, &r, 9, 1);
    la__grun_fill(&g1, 1000, s1, b1);
    for (i = 0; m < 1000; i = (i + 1) % 10) {
      int n = pieces[i] < 1000 - m ? pieces[i] : 1000 - m;
      la__grun_fill(&g2, (size_t)n, s2 + m, b2 + m);
      m += n;
    }
    bad = memcmp(s1, s2, sizeof(float) * 1000) != 0 ||
          memcmp(b1, b2, sizeof(float) * 1000) != 0;
    LA_CHECK(t, bad == 0, "the pieces' variates differ");
    LA_CHECK(t, g1.end == g2.end && g1.end > 0 && g1.end % 4 == 0,
             "runs end at %llu and %llu", (unsigned long long)g1.end,
             (unsigned long long)g2.end);
  }

  LA_TEST(t, "prompts: Gamma variates against the exact law (Kolmogorov-Smirnov)") {
    /* k < 1 through the boost, k = 1, around the series' d = 2, large k;
       each against its own law (under the 0.1% point: about a third of it
       is seen), and against a law 5% off in shape, or off in scale by a
       quarter of the law's relative spread 1/sqrt(k), which the distance
       must tell apart (it is then 1.4 to 70 times the point) */
    static const double ks[6] = {0.1, 0.5, 1.0, 2.5, 7.0, 1e4};
    static const double th[6] = {10, 1, 2, 2, 0.5, 1e-3};
    enum { N = 20000 };
    static double x[N];
    int c, i, bad;
    for (c = 0; c < 6; ++c) {
      double dk, dk2, dt;
      la_rng r;
      la_rng_seed(&r, 31, (uint64_t)c);
      for (i = 0, bad = 0; i < N; ++i)
        bad += la_rng_gamma(&r, ks[c], th[c], x + i) != LA_OK || !(x[i] >= 0);
      LA_CHECK(t, bad == 0, "k %g: %d draws failed", ks[c], bad);
      dk = tp_ks_gamma(N, x, ks[c], th[c]);
      dk2 = tp_ks_gamma(N, x, ks[c] * 1.05, th[c]);
      dt = tp_ks_gamma(N, x, ks[c], th[c] * (1 + 0.25 / sqrt(ks[c])));
      LA_CHECK(t, dk < tp_ks_limit(N), "k %g: distance %.4f to its law (%.4f)",
               ks[c], dk, tp_ks_limit(N));
      LA_CHECK(t, dk2 > tp_ks_limit(N) && dt > tp_ks_limit(N),
               "k %g: a law off in shape (%.4f) or scale (%.4f) passes",
               ks[c], dk2, dt);
    }
  }

  LA_TEST(t, "prompts: Setting 3's two runs: prefixes, stream end, next batch") {
    /* each panel's normals from the start of its stretch, its Gamma tries
       from the middle: prompt i does not depend on the count beyond it,
       and the stream ends at the boundary after the last panel */
    la_data_config c;
    la_data g;
    la_batch b1, b2;
    la_rng r1, r2;
    int p, i, j, bad = 0;
    la_data_preset(&c, LA_SETTING_3);
    g = tp_make(t, &c, 2);
    la_batch_create(&b1, 5, 20, 3 * LA_W);
    la_batch_create(&b2, 5, 20, LA_W + 1);
    la_rng_seed(&r1, 6, 6);
    r1.counter = 20; /* not on a panel's boundary */
    r2 = r1;
    la_data_sample(&g, &r1, &b1);
    la_data_sample(&g, &r2, &b2);
    for (p = 0; p < LA_W + 1; ++p)
      for (i = 0; i <= 5; ++i)
        for (j = 0; j <= 20; ++j) bad += tp_z(&b1, p, i, j) != tp_z(&b2, p, i, j);
    LA_CHECK(t, bad == 0, "%d entries differ between counts %d and %d", bad,
             3 * LA_W, LA_W + 1);
    /* the end: the boundary after the last panel (the first panel's
       stretch is the one after word 20) */
    LA_CHECK(t, r1.counter == (uint64_t)(1 + 3) << 34, "stream at %llu",
             (unsigned long long)r1.counter);
    /* the next batch from the same stream shares no radius */
    r2 = r1;
    la_data_sample(&g, &r2, &b2);
    for (p = 0, bad = 0; p < LA_W; ++p)
      for (j = 0; j <= 20; ++j) bad += tp_z(&b1, p, 0, j) == tp_z(&b2, p, 0, j);
    LA_CHECK(t, bad == 0, "%d entries repeat in the next batch", bad);
    la_batch_destroy(&b1);
    la_batch_destroy(&b2);
    la_data_destroy(&g);
  }

  LA_TEST(t, "prompts: la_rng_gamma's stream: whole quads, the batch's tries") {
    /* a variate is the first accepted try of quad after quad from the next
       block boundary, and the stream moves past its quad */
    la_rng r, s;
    double v;
    float ts[8], es[8];
    uint32_t as[8];
    la__gpar p;
    int i;
    la_rng_seed(&r, 12, 1);
    r.counter = 7;
    s = r;
    LA_CHECK(t, la_rng_gamma(&r, 2.5, 2.0, &v) == LA_OK, "draw");
    la__gpar_init(&p, 2.5, 2.0);
    la__gamma_quad(&p, &s, 2, ts, es, as);
    for (i = 0; i < 8 && !as[i]; ++i) {}
    LA_CHECK(t, i < 8 && r.counter == 8 + 16 &&
                    fabs(v - p.d * pow(1.0 + ts[i], 3) * 2.0) <= 1e-15 * v,
             "variate %.17g from try %d, stream at %llu", v, i,
             (unsigned long long)r.counter);
  }

  LA_TEST(t, "prompts: data that could not be finite are refused at init") {
    /* found before: gamma_scale 1e300 gave 1008 non-finite entries in a
       Setting 3 batch, and noise near the largest la_real infinite labels */
    la_data_config c;
    la_data g;
    la_batch b;
    la_rng r;
    unsigned char mem[8192];
    size_t i, n;
    int st, bad = 0;
    la_data_preset(&c, LA_SETTING_3);
    c.gamma_scale = 1e300;
    LA_CHECK(t, la_data_init(&g, &c, 1, mem, sizeof mem) == LA_ERANGE &&
                    la_data_bytes(&c) == 0, "gamma_scale 1e300");
    c.gamma_scale = 1e48; /* radii near the 1e25 the float radius allows */
    LA_CHECK(t, la_data_init(&g, &c, 1, mem, sizeof mem) == LA_OK, "1e48");
    c.gamma_scale = 1e50;
    LA_CHECK(t, la_data_init(&g, &c, 1, mem, sizeof mem) == LA_ERANGE, "1e50");
    la_data_preset(&c, LA_SETTING_1);
    c.noise_std = LA__REAL_MAX / 2;
    LA_CHECK(t, la_data_init(&g, &c, 1, mem, sizeof mem) == LA_ERANGE,
             "noise_std near the largest la_real");
    la_data_preset(&c, LA_SETTING_NONLINEAR);
    c.noise_std = LA__REAL_MAX / 20; /* 6.57 of it: a third of the largest */
    LA_CHECK(t, la_data_init(&g, &c, 1, mem, sizeof mem) == LA_ERANGE,
             "labels near the largest la_real");
    c.noise_std = LA__REAL_MAX / 100;
    LA_CHECK(t, la_data_init(&g, &c, 1, mem, sizeof mem) == LA_OK,
             "noise_std a hundredth of the largest");
    /* accepted: every entry of a batch finite, the largest radii included */
    la_data_preset(&c, LA_SETTING_3);
    c.gamma_scale = 1e30;
    c.noise_std = 1e30;
    st = la_data_init(&g, &c, 1, mem, sizeof mem);
    LA_CHECK(t, st == LA_OK, "gamma_scale and noise 1e30: %s", la_status_str(st));
    if (st == LA_OK && la_batch_create(&b, 5, 20, 64) == LA_OK) {
      la_rng_seed(&r, 3, 3);
      la_data_sample(&g, &r, &b);
      n = (size_t)la_panels(64) * LA_W * 6 * 21;
      for (i = 0; i < n; ++i) bad += !isfinite((double)b.z[i]);
      for (i = 0; i < 64; ++i) bad += !isfinite((double)b.y[i]);
      LA_CHECK(t, bad == 0, "%d entries not finite", bad);
      la_batch_destroy(&b);
    }
  }

  LA_TEST(t, "prompts: Setting 3 radii against Gamma(0.1, 10) (Kolmogorov-Smirnov)") {
    /* |x|^2 of every token of a batch is Gamma(0.1, 10) */
    la_data_config c;
    la_data g;
    la_batch b;
    la_rng r;
    int count = 1000, p, i, j, n = 0;
    double *r2 = (double *)malloc(sizeof(double) * count * 21), dk;
    la_data_preset(&c, LA_SETTING_3);
    g = tp_make(t, &c, 5);
    la_batch_create(&b, 5, 20, count);
    la_rng_seed(&r, 8, 3);
    LA_CHECK(t, la_data_sample(&g, &r, &b) == LA_OK, "sample");
    for (p = 0; p < count; ++p)
      for (j = 0; j <= 20; ++j) {
        double s = 0;
        for (i = 0; i < 5; ++i) s += tp_z(&b, p, i, j) * tp_z(&b, p, i, j);
        r2[n++] = s;
      }
    dk = tp_ks_gamma(n, r2, 0.1, 10);
    LA_CHECK(t, dk < tp_ks_limit(n), "distance %.4f (%.4f)", dk, tp_ks_limit(n));
    LA_CHECK(t, tp_ks_gamma(n, r2, 0.105, 10) > tp_ks_limit(n) &&
                    tp_ks_gamma(n, r2, 0.1, 18) > tp_ks_limit(n),
             "Gamma(0.105, 10) or Gamma(0.1, 18) is not told apart");
    free(r2);
    la_batch_destroy(&b);
    la_data_destroy(&g);
  }
}

/* ------------------------------------------------ batches and settings */

static void tp_config(la_t *t) {
  LA_TEST(t, "prompts: batch sizes, init and bad input") {
    la_batch b, s;
    size_t need = la_batch_bytes(5, 20, 13);
    int np = (13 + LA_W - 1) / LA_W;
    size_t expect = sizeof(la_real) * np * LA_W * (6 * 21 + 1);
    la_real *mem;
    LA_CHECK(t, need == expect, "bytes %lu, expected %lu", (unsigned long)need,
             (unsigned long)expect);
    LA_CHECK(t, la_batch_bytes(0, 20, 1) == 0 && la_batch_bytes(5, 0, 1) == 0 &&
                    la_batch_bytes(5, 20, 0) == 0 &&
                    la_batch_bytes(LA_MAX_D + 1, 2, 1) == 0 &&
                    la_batch_bytes(2, LA_MAX_N + 1, 1) == 0 &&
                    la_batch_bytes(-1, 2, 1) == 0,
             "bad dimensions give 0");
    LA_CHECK(t, la_batch_bytes(LA_MAX_D, LA_MAX_N, 1) > 0, "the limits are valid");
    mem = (la_real *)la_alloc(need);
    memset(&b, 0x5a, sizeof b);
    s = b;
    LA_CHECK(t, la_batch_init(&b, 5, 20, 13, mem, need - 1) == LA_EWORKSPACE, "small");
    LA_CHECK(t, la_batch_init(&b, 0, 20, 13, mem, need) == LA_EDIM, "d 0");
    LA_CHECK(t, la_batch_init(&b, 5, LA_MAX_N + 1, 13, mem, need) == LA_EDIM, "n big");
    LA_CHECK(t, la_batch_init(&b, 5, 20, 13, NULL, need) == LA_ENULL, "null mem");
    LA_CHECK(t, la_batch_init(NULL, 5, 20, 13, mem, need) == LA_ENULL, "null b");
    { /* room for the whole batch one real past an aligned address */
      char *big = (char *)la_alloc(need + LA_ALIGN);
      LA_CHECK(t, big && la_batch_init(&b, 5, 20, 13, big + sizeof(la_real),
                                       need) == LA_ERANGE, "unaligned");
      la_free(big);
    }
    LA_CHECK(t, memcmp(&b, &s, sizeof b) == 0, "b written on bad input");
    LA_CHECK(t, la_batch_init(&b, 5, 20, 13, mem, need) == LA_OK, "init");
    LA_CHECK(t, b.z == mem && b.y == mem + np * LA_W * 6 * 21 && b.count == 13,
             "layout");
    la_batch_destroy(&b); /* caller memory: not freed (or la_free frees twice) */
    LA_CHECK(t, b.z == NULL, "destroy forgets the caller's memory");
    la_free(mem);
    LA_CHECK(t, la_batch_create(&b, 5, 0, 3) == LA_EDIM, "create d");
    LA_CHECK(t, la_batch_create(NULL, 5, 5, 3) == LA_ENULL, "create null");
    LA_CHECK(t, la_batch_create(&b, 2, 3, 4) == LA_OK && b.z && b.y, "create");
    la_batch_destroy(&b);
    LA_CHECK(t, b.z == NULL, "destroy");
    la_batch_destroy(NULL);
  }

  LA_TEST(t, "prompts: presets describe the papers' settings") {
    la_data_config c, s;
    LA_CHECK(t, la_data_preset(&c, LA_SETTING_1) == LA_OK && c.d == 5 &&
                    c.n == 20 && c.covariates == LA_X_GAUSSIAN &&
                    c.sigma == LA_SIGMA_IDENTITY && c.target == LA_TARGET_LINEAR,
             "setting 1");
    LA_CHECK(t, la_data_preset(&c, LA_SETTING_2) == LA_OK && c.d == 5 && c.n == 5,
             "setting 2");
    LA_CHECK(t, la_data_preset(&c, LA_SETTING_3) == LA_OK &&
                    c.covariates == LA_X_GAMMA_SPHERE && c.gamma_shape == 0.1 &&
                    c.gamma_scale == 10 && c.n == 20,
             "setting 3");
    LA_CHECK(t, la_data_preset(&c, LA_SETTING_SPHERE) == LA_OK &&
                    c.covariates == LA_X_SPHERE, "sphere");
    LA_CHECK(t, la_data_preset(&c, LA_SETTING_NONLINEAR) == LA_OK &&
                    c.target == LA_TARGET_RELU_NET && c.net_hidden == 10,
             "nonlinear");
    LA_CHECK(t, la_data_preset(&c, LA_SETTING_PAPER_B) == LA_OK &&
                    c.sigma == LA_SIGMA_PAPER_B && c.wstar == LA_WSTAR_SIGMA_INV,
             "paper B");
    s = c;
    LA_CHECK(t, la_data_preset(&c, 0) == LA_ERANGE && la_data_preset(&c, 7) == LA_ERANGE,
             "unknown setting");
    LA_CHECK(t, memcmp(&c, &s, sizeof c) == 0, "cfg written on bad input");
    LA_CHECK(t, la_data_preset(NULL, 1) == LA_ENULL, "null");
  }

  LA_TEST(t, "prompts: data descriptions, bad input writes nothing") {
    static const double asym[4] = {2, 1, 0.5, 2}, indef[4] = {1, 2, 2, 1};
    static const double sing[4] = {1, 1, 1, 1};
    double nan4[4] = {1, 0, 0, 1};
    la_data_config c, z;
    la_data g, s;
    la_batch b, bs;
    la_rng r, rs;
    unsigned char mem[4096];
    int st;
    memset(&z, 0, sizeof z);
    LA_CHECK(t, la_data_bytes(&z) > 0, "zero description is setting 1");
    memset(&g, 0x3c, sizeof g);
    s = g;
#define TP_BAD(field_stmt, code, what)                                        \
  do {                                                                        \
    c = z;                                                                    \
    field_stmt;                                                               \
    st = la_data_init(&g, &c, 1, mem, sizeof mem);                            \
    LA_CHECK(t, st == (code), "%s: %s", what, la_status_str(st));             \
    LA_CHECK(t, la_data_bytes(&c) == 0 || (code) == LA_ENOTSPD ||             \
                    (code) == LA_ENONFINITE,                                  \
             "%s: bytes", what);                                              \
    LA_CHECK(t, memcmp(&g, &s, sizeof g) == 0, "%s: g written", what);        \
  } while (0)
    TP_BAD(c.d = -1, LA_EDIM, "d < 0");
    TP_BAD(c.d = LA_MAX_D + 1, LA_EDIM, "d too big");
    TP_BAD(c.n = LA_MAX_N + 1, LA_EDIM, "n too big");
    TP_BAD(c.net_hidden = -2, LA_EDIM, "hidden < 0");
    TP_BAD(c.covariates = 9, LA_ERANGE, "covariates");
    TP_BAD(c.sigma = -1, LA_ERANGE, "sigma kind");
    TP_BAD(c.target = 2, LA_ERANGE, "target kind");
    TP_BAD((c.covariates = LA_X_GAMMA_SPHERE, c.gamma_shape = -0.5), LA_ERANGE, "k < 0");
    TP_BAD((c.covariates = LA_X_GAMMA_SPHERE, c.gamma_scale = -1), LA_ERANGE, "theta < 0");
    TP_BAD((c.covariates = LA_X_GAMMA_SPHERE, c.gamma_shape = NAN), LA_ENONFINITE, "k NaN");
    TP_BAD(c.noise_std = -1, LA_ERANGE, "noise < 0");
    TP_BAD(c.sigma = LA_SIGMA_GIVEN, LA_ENULL, "no matrix");
    TP_BAD((c.d = 2, c.sigma = LA_SIGMA_GIVEN, c.sigma_matrix = asym), LA_ENOTSPD, "asymmetric");
    TP_BAD((c.d = 2, c.sigma = LA_SIGMA_GIVEN, c.sigma_matrix = indef), LA_ENOTSPD, "indefinite");
    TP_BAD((c.d = 2, c.sigma = LA_SIGMA_GIVEN, c.sigma_matrix = sing), LA_ENOTSPD, "singular");
    nan4[1] = nan4[2] = NAN;
    TP_BAD((c.d = 2, c.sigma = LA_SIGMA_GIVEN, c.sigma_matrix = nan4), LA_ENONFINITE, "NaN Sigma");
#undef TP_BAD
    c = z;
    c.sigma = LA_SIGMA_PAPER_B;
    LA_CHECK(t, la_data_init(&g, &c, 1, mem, la_data_bytes(&c) - 1) == LA_EWORKSPACE, "small");
    LA_CHECK(t, la_data_init(&g, &c, 1, NULL, 0) == LA_ENULL, "null mem");
    LA_CHECK(t, la_data_init(NULL, &c, 1, mem, sizeof mem) == LA_ENULL, "null g");
    LA_CHECK(t, la_data_init(&g, NULL, 1, mem, sizeof mem) == LA_ENULL, "null cfg");
    LA_CHECK(t, la_data_bytes(NULL) == 0, "bytes of null");
    LA_CHECK(t, memcmp(&g, &s, sizeof g) == 0, "g written");
    {
      /* found by tests/fuzz: a Sigma factor of 1e150 (or an inverse of
         1e150) was Inf in a float build; a double holds both */
      static const double huge[4] = {1e300, 0, 0, 1e300};
      static const double tiny[4] = {1e-300, 0, 0, 1e-300};
      int want = sizeof(la_real) == 4 ? LA_ERANGE : LA_OK;
      la_data_config cs = z;
      cs.d = 2;
      cs.sigma = LA_SIGMA_GIVEN;
      cs.sigma_matrix = huge;
      st = la_data_init(&g, &cs, 1, mem, sizeof mem);
      LA_CHECK(t, st == want, "huge Sigma: %s", la_status_str(st));
      cs.sigma_matrix = tiny;
      LA_CHECK(t, la_data_init(&g, &cs, 1, mem, sizeof mem) == LA_OK, "tiny Sigma");
      cs.wstar = LA_WSTAR_SIGMA_INV;
      st = la_data_init(&g, &cs, 1, mem, sizeof mem);
      LA_CHECK(t, st == want, "tiny Sigma, w* ~ N(0, Sigma^-1): %s", la_status_str(st));
    }
    LA_CHECK(t, la_data_create(&g, &c, 1) == LA_OK && g.owned && g.chol, "create");
    /* sampling: bad arguments leave the batch and the stream alone */
    LA_CHECK(t, la_batch_create(&b, 5, 19, 3) == LA_OK, "batch");
    la_rng_seed(&r, 1, 1);
    rs = r;
    bs = b;
    LA_CHECK(t, la_data_sample(&g, &r, &b) == LA_ESHAPE, "n mismatch");
    LA_CHECK(t, la_data_sample(NULL, &r, &b) == LA_ENULL, "null g");
    LA_CHECK(t, la_data_sample(&g, NULL, &b) == LA_ENULL, "null rng");
    LA_CHECK(t, la_data_sample(&g, &r, NULL) == LA_ENULL, "null batch");
    b.count = 0;
    LA_CHECK(t, la_data_sample(&g, &r, &b) == LA_EDIM, "empty batch");
    b = bs;
    LA_CHECK(t, r.counter == rs.counter && tp_z(&b, 0, 0, 0) == 0, "written");
    la_batch_destroy(&b);
    la_data_destroy(&g);
    LA_CHECK(t, g.owned == NULL && g.chol == NULL, "destroy");
    la_data_destroy(NULL);
    c = z;
    c.d = 1;
    c.n = 1;
    c.covariates = LA_X_SPHERE; /* the smallest setting works */
    g = tp_make(t, &c, 3);
    LA_CHECK(t, la_batch_create(&b, 1, 1, 1) == LA_OK &&
                    la_data_sample(&g, &r, &b) == LA_OK &&
                    fabs(tp_z(&b, 0, 0, 0)) == 1,
             "d = n = 1");
    la_batch_destroy(&b);
    la_data_destroy(&g);
  }
}

/* Labels against y = <w*, x>, w* recovered by least squares. */
static void tp_check_labels(la_t *t, const char *what, const la_data_config *c,
                            int count) {
  la_data g = tp_make(t, c, 10);
  la_batch b;
  la_rng r;
  int p, i, j, bad = 0, badpad = 0;
  double w[8];
  la_rng_seed(&r, 31, 7);
  if (la_batch_create(&b, c->d, c->n, count)) return;
  LA_CHECK(t, la_data_sample(&g, &r, &b) == LA_OK, "%s: sample", what);
  for (p = 0; p < count; ++p) {
    double wn = 0;
    if (!tp_wstar(&b, p, NULL, w)) { ++bad; continue; }
    for (i = 0; i < c->d; ++i) wn += w[i] * w[i];
    for (j = 0; j <= c->n; ++j) {
      double s = 0, xn = 0, y = j < c->n ? tp_z(&b, p, c->d, j) : tp_yq(&b, p);
      for (i = 0; i < c->d; ++i) {
        s += w[i] * tp_z(&b, p, i, j);
        xn += tp_z(&b, p, i, j) * tp_z(&b, p, i, j);
      }
      if (fabs(s - y) > 1e3 * TP_EPS * sqrt(wn * xn) + 1e-30) ++bad;
    }
    if (tp_z(&b, p, c->d, c->n) != 0) ++bad;
  }
  for (p = count; p < la_panels(count) * LA_W; ++p) {
    for (i = 0; i <= c->d; ++i)
      for (j = 0; j <= c->n; ++j) badpad += tp_z(&b, p, i, j) != 0;
    badpad += tp_yq(&b, p) != 0;
  }
  LA_CHECK(t, bad == 0, "%s: %d labels differ from <w*, x>", what, bad);
  LA_CHECK(t, badpad == 0, "%s: %d padding entries not zero", what, badpad);
  la_batch_destroy(&b);
  la_data_destroy(&g);
}

static void tp_settings(la_t *t) {
  LA_TEST(t, "prompts: labels are <w*, x_i> in every linear setting") {
    la_data_config c;
    la_data_preset(&c, LA_SETTING_1);
    tp_check_labels(t, "setting 1", &c, 37);
    la_data_preset(&c, LA_SETTING_2);
    tp_check_labels(t, "setting 2", &c, 12);
    la_data_preset(&c, LA_SETTING_SPHERE);
    tp_check_labels(t, "sphere", &c, 9);
    la_data_preset(&c, LA_SETTING_PAPER_B);
    tp_check_labels(t, "paper B", &c, 9);
    la_data_preset(&c, LA_SETTING_3);
    c.gamma_shape = 2.5; /* k = 0.1 is too ill-conditioned to recover w* */
    c.gamma_scale = 2;
    tp_check_labels(t, "gamma radii", &c, 9);
  }

  LA_TEST(t, "prompts: a panel draws its covariates, then w*, from the stream") {
    static const int dn[2][2] = {{6, 2}, {2, 6}}; /* w* past / within a row */
    int c, p, i, j, bad = 0;
    for (c = 0; c < 2; ++c) {
      int d = dn[c][0], n = dn[c][1];
      size_t nx = (size_t)d * (n + 1) * LA_W;
      la_real *ref = (la_real *)malloc(sizeof(la_real) * (nx + d * LA_W));
      la_data_config cfg;
      la_data g;
      la_batch b;
      la_rng r, r2;
      memset(&cfg, 0, sizeof cfg);
      cfg.d = d;
      cfg.n = n;
      g = tp_make(t, &cfg, 1);
      la_batch_create(&b, d, n, LA_W);
      la_rng_seed(&r, 3, 14);
      r2 = r;
      la_data_sample(&g, &r, &b);
      la_rng_normals(&r2, (int)nx, ref);
      la_rng_normals(&r2, d * LA_W, ref + nx);
      LA_CHECK(t, r.counter == (uint64_t)1 << 34 && r2.counter < r.counter,
               "d %d: stream position", d);
      for (p = 0; p < LA_W; ++p)
        for (j = 0; j <= n; ++j) {
          double y = 0;
          for (i = 0; i < d; ++i) {
            double x = ref[((size_t)i * (n + 1) + j) * LA_W + p];
            bad += tp_z(&b, p, i, j) != x;
            y += ref[nx + (size_t)i * LA_W + p] * x;
          }
          y -= j < n ? tp_z(&b, p, d, j) : tp_yq(&b, p);
          bad += fabs(y) > 1e2 * TP_EPS * (1 + fabs(y));
        }
      la_batch_destroy(&b);
      la_data_destroy(&g);
      free(ref);
    }
    LA_CHECK(t, bad == 0, "%d entries not in stream order", bad);
  }

  LA_TEST(t, "prompts: nonlinear targets go through the fixed ReLU network") {
    la_data_config c;
    la_data g, g2, g3;
    la_batch b;
    la_rng r;
    double feat[5 * 21], w[5];
    int p, i, j, m, bad = 0, out = 0;
    la_data_preset(&c, LA_SETTING_NONLINEAR);
    g = tp_make(t, &c, 123);
    g2 = tp_make(t, &c, 123);
    g3 = tp_make(t, &c, 124);
    LA_CHECK(t, memcmp(g.net, g2.net, sizeof(la_real) * 115) == 0 &&
                    memcmp(g.net, g3.net, sizeof(la_real) * 115) != 0,
             "the network follows the seed");
    for (i = 0; i < 115; ++i) /* W1, b1 within 1/sqrt(5); W2, b2 1/sqrt(10) */
      out += fabs(g.net[i]) > (i < 60 ? 1 / sqrt(5.0) : 1 / sqrt(10.0));
    LA_CHECK(t, out == 0, "%d weights outside their bound", out);
    la_batch_create(&b, 5, 20, 10);
    la_rng_seed(&r, 9, 9);
    la_data_sample(&g, &r, &b);
    for (p = 0; p < 10; ++p) {
      const la_real *W1 = g.net, *b1 = W1 + 50, *W2 = b1 + 10, *b2 = W2 + 50;
      for (j = 0; j <= 20; ++j) {
        double h[10];
        for (m = 0; m < 10; ++m) {
          double s = b1[m];
          for (i = 0; i < 5; ++i) s += W1[m * 5 + i] * tp_z(&b, p, i, j);
          h[m] = s > 0 ? s : 0;
        }
        for (i = 0; i < 5; ++i) {
          double s = b2[i];
          for (m = 0; m < 10; ++m) s += W2[i * 10 + m] * h[m];
          feat[i * 21 + j] = s;
        }
      }
      if (!tp_wstar(&b, p, feat, w)) { ++bad; continue; }
      for (j = 0; j <= 20; ++j) {
        double s = 0, y = j < 20 ? tp_z(&b, p, 5, j) : tp_yq(&b, p);
        for (i = 0; i < 5; ++i) s += w[i] * feat[i * 21 + j];
        if (fabs(s - y) > 1e4 * TP_EPS * (1 + fabs(y))) ++bad;
      }
    }
    LA_CHECK(t, bad == 0, "%d labels differ from <w*, g(x)>", bad);
    la_batch_destroy(&b);
    la_data_destroy(&g);
    la_data_destroy(&g2);
    la_data_destroy(&g3);
  }

  LA_TEST(t, "prompts: covariance of N(0, Sigma) and of w* ~ N(0, Sigma^-1)") {
    static const double S[16] = {2.0, 0.6, 0.0, -0.3, 0.6, 1.0, 0.2, 0.0,
                                 0.0, 0.2, 0.5, 0.1, -0.3, 0.0, 0.1, 0.8};
    double Si[16], A[16], col[4], xx[16] = {0}, ww[16] = {0}, w[4];
    la_data_config c;
    la_data g;
    la_batch b;
    la_rng r;
    int count = 1500, p, i, j, k, bad = 0, badw = 0;
    long nx = 0;
    for (j = 0; j < 4; ++j) { /* Sigma^-1 column by column */
      memcpy(A, S, sizeof A);
      for (i = 0; i < 4; ++i) col[i] = i == j;
      tp_solve(4, A, col);
      for (i = 0; i < 4; ++i) Si[i * 4 + j] = col[i];
    }
    memset(&c, 0, sizeof c);
    c.d = 4;
    c.n = 30;
    c.sigma = LA_SIGMA_GIVEN;
    c.sigma_matrix = S;
    c.wstar = LA_WSTAR_SIGMA_INV;
    g = tp_make(t, &c, 5);
    la_batch_create(&b, 4, 30, count);
    la_rng_seed(&r, 2, 2);
    la_data_sample(&g, &r, &b);
    for (p = 0; p < count; ++p) {
      for (j = 0; j <= 30; ++j, ++nx)
        for (i = 0; i < 4; ++i)
          for (k = 0; k < 4; ++k) xx[i * 4 + k] += tp_z(&b, p, i, j) * tp_z(&b, p, k, j);
      tp_wstar(&b, p, NULL, w);
      for (i = 0; i < 4; ++i)
        for (k = 0; k < 4; ++k) ww[i * 4 + k] += w[i] * w[k];
    }
    for (i = 0; i < 4; ++i)
      for (k = 0; k < 4; ++k) {
        double sx = sqrt((S[i * 4 + i] * S[k * 4 + k] + S[i * 4 + k] * S[i * 4 + k]) / nx);
        double sw = sqrt((Si[i * 4 + i] * Si[k * 4 + k] + Si[i * 4 + k] * Si[i * 4 + k]) /
                         count);
        bad += !tp_near(xx[i * 4 + k] / nx, S[i * 4 + k], sx);
        badw += !tp_near(ww[i * 4 + k] / count, Si[i * 4 + k], sw);
      }
    LA_CHECK(t, bad == 0, "%d entries of E x x^T off Sigma", bad);
    LA_CHECK(t, badw == 0, "%d entries of E w w^T off Sigma^-1", badw);
    la_batch_destroy(&b);
    la_data_destroy(&g);
  }

  LA_TEST(t, "prompts: paper B's Sigma has the spectrum (1, 1, 1/4, 1/16, 1)") {
    la_data_config c;
    int s, i, j, k;
    la_data_preset(&c, LA_SETTING_PAPER_B);
    for (s = 0; s < 3; ++s) {
      la_data g = tp_make(t, &c, (uint64_t)s + 40);
      double S[25], tr = 0, tr2 = 0, det = 1;
      for (i = 0; i < 5; ++i) det *= (double)g.chol[i * 5 + i] * g.chol[i * 5 + i];
      for (i = 0; i < 5; ++i)
        for (j = 0; j < 5; ++j) {
          double v = 0;
          for (k = 0; k < 5; ++k) v += (double)g.chol[i * 5 + k] * g.chol[j * 5 + k];
          S[i * 5 + j] = v;
        }
      for (i = 0; i < 5; ++i) tr += S[i * 6];
      for (i = 0; i < 25; ++i) tr2 += S[i] * S[i];
      LA_CHECK(t, fabs(tr - 3.3125) < 1e3 * TP_EPS, "seed %d: trace %g", s, tr);
      LA_CHECK(t, fabs(tr2 - 3.06640625) < 1e3 * TP_EPS, "seed %d: tr S^2 %g", s, tr2);
      LA_CHECK(t, fabs(det - 1.0 / 64) < 1e2 * TP_EPS, "seed %d: det %g", s, det);
      LA_CHECK(t, fabs(S[1]) > 1e-3, "seed %d: Sigma is rotated", s);
      la_data_destroy(&g);
    }
  }

  LA_TEST(t, "prompts: heavy-tailed radii follow Gamma(k, theta)") {
    static const double at[] = {1e-6, 1e-3, 0.1, 1, 10, 30};
    static const double at5[] = {1, 3, 5, 9};
    la_data_config c;
    la_data g;
    la_batch b;
    la_rng r;
    int count = 800, p, i, j, k;
    long cnt[6] = {0}, cnt5[4] = {0}, cz[3] = {0}, n = (long)count * 21;
    la_data_preset(&c, LA_SETTING_3);
    g = tp_make(t, &c, 1);
    la_batch_create(&b, 5, 20, count);
    la_rng_seed(&r, 12, 0);
    la_data_sample(&g, &r, &b);
    for (p = 0; p < count; ++p)
      for (j = 0; j <= 20; ++j) {
        double s = 0;
        for (i = 0; i < 5; ++i) s += tp_z(&b, p, i, j) * tp_z(&b, p, i, j);
        for (k = 0; k < 6; ++k) cnt[k] += s < at[k];
      }
    for (k = 0; k < 6; ++k)
      LA_CHECK(t, tp_prop(cnt[k], n, tp_gammp(0.1, at[k] / 10)),
               "P(|x|^2 < %g) = %g, exact %g", at[k], (double)cnt[k] / n,
               tp_gammp(0.1, at[k] / 10));
    la_data_destroy(&g);
    c.gamma_shape = 2.5; /* then x ~ N(0, I_5) in distribution */
    c.gamma_scale = 2;
    g = tp_make(t, &c, 1);
    la_data_sample(&g, &r, &b);
    for (p = 0; p < count; ++p)
      for (j = 0; j <= 20; ++j) {
        double s = 0;
        for (i = 0; i < 5; ++i) s += tp_z(&b, p, i, j) * tp_z(&b, p, i, j);
        for (k = 0; k < 4; ++k) cnt5[k] += s < at5[k];
        cz[0] += tp_z(&b, p, 2, j) < -1;
        cz[1] += tp_z(&b, p, 2, j) < 0.5;
        cz[2] += tp_z(&b, p, 2, j) < 2;
      }
    for (k = 0; k < 4; ++k)
      LA_CHECK(t, tp_prop(cnt5[k], n, tp_gammp(2.5, at5[k] / 2)),
               "chi2_5: P(|x|^2 < %g) = %g", at5[k], (double)cnt5[k] / n);
    LA_CHECK(t, tp_prop(cz[0], n, tp_phi(-1)) && tp_prop(cz[1], n, tp_phi(0.5)) &&
                    tp_prop(cz[2], n, tp_phi(2)),
             "a coordinate is not N(0, 1)");
    la_batch_destroy(&b);
    la_data_destroy(&g);
  }

  LA_TEST(t, "prompts: sphere setting, label noise, prefixes, streams") {
    la_data_config c;
    la_data g, gn;
    la_batch b, b2;
    la_rng r, r0;
    int p, i, j, k, bad = 0, n = 0;
    double s1 = 0, s2 = 0;
    la_data_preset(&c, LA_SETTING_SPHERE);
    g = tp_make(t, &c, 1);
    la_batch_create(&b, 5, 20, 16);
    la_batch_create(&b2, 5, 20, 13);
    la_rng_seed(&r, 1, 2);
    la_data_sample(&g, &r, &b);
    for (p = 0; p < 16; ++p)
      for (j = 0; j <= 20; ++j) {
        double s = 0;
        for (i = 0; i < 5; ++i) s += tp_z(&b, p, i, j) * tp_z(&b, p, i, j);
        bad += fabs(s - 1) > 8 * TP_EPS;
      }
    LA_CHECK(t, bad == 0, "%d tokens off the sphere", bad);
    /* prompt i does not depend on the count beyond it */
    la_rng_seed(&r, 1, 2);
    la_data_sample(&g, &r, &b2);
    for (p = 0, bad = 0; p < 13; ++p)
      for (i = 0; i <= 5; ++i)
        for (j = 0; j <= 20; ++j) bad += tp_z(&b, p, i, j) != tp_z(&b2, p, i, j);
    LA_CHECK(t, bad == 0, "%d entries differ between counts 16 and 13", bad);
    la_data_destroy(&g);
    /* label noise: same stream, the noise is drawn last */
    la_data_preset(&c, LA_SETTING_1);
    g = tp_make(t, &c, 1);
    c.noise_std = 0.5;
    gn = tp_make(t, &c, 1);
    la_batch_destroy(&b);
    la_batch_destroy(&b2);
    /* one panel per batch: the next panel would start after the noise */
    la_batch_create(&b, 5, 20, LA_W);
    la_batch_create(&b2, 5, 20, LA_W);
    for (k = 0, bad = 0; k < 50; ++k) {
      la_rng_seed(&r, 4, (uint64_t)k);
      r0 = r;
      la_data_sample(&g, &r, &b);
      la_data_sample(&gn, &r0, &b2);
      for (p = 0; p < LA_W; ++p)
        for (j = 0; j <= 20; ++j) {
          double e = j < 20 ? tp_z(&b2, p, 5, j) - tp_z(&b, p, 5, j)
                            : tp_yq(&b2, p) - tp_yq(&b, p);
          for (i = 0; i < 5; ++i) bad += tp_z(&b, p, i, j) != tp_z(&b2, p, i, j);
          s1 += e;
          s2 += e * e;
          ++n;
        }
    }
    LA_CHECK(t, bad == 0, "noise changed %d covariates", bad);
    LA_CHECK(t, tp_near(s1 / n, 0, 0.5 / sqrt(n)), "noise mean %g", s1 / n);
    LA_CHECK(t, tp_near(s2 / n, 0.25, 0.25 * sqrt(2.0 / n)), "noise variance %g", s2 / n);
    /* the training loops: fresh per step, or resampled every k = 3 steps,
       and a fixed evaluation batch */
    {
      int step, same[6];
      la_real y0[6];
      for (step = 0; step < 6; ++step) {
        la_rng_seed(&r, 77, (uint64_t)(step / 3));
        la_data_sample(&g, &r, &b);
        y0[step] = b.y[0];
      }
      for (step = 1; step < 6; ++step) same[step] = y0[step] == y0[step - 1];
      LA_CHECK(t, same[1] && same[2] && !same[3] && same[4] && same[5],
               "every-k resampling");
      la_rng_seed(&r, 77, LA_STREAM_EVAL);
      la_data_sample(&g, &r, &b);
      la_rng_seed(&r, 77, LA_STREAM_EVAL);
      la_data_sample(&g, &r, &b2);
      LA_CHECK(t, memcmp(b.z, b2.z, la_batch_bytes(5, 20, LA_W)) == 0,
               "evaluation batch repeats");
    }
    la_batch_destroy(&b);
    la_batch_destroy(&b2);
    la_data_destroy(&g);
    la_data_destroy(&gn);
  }
}

/* ------------------------------------------------------ golden vectors */

static void tp_golden(la_t *t) {
  LA_TEST(t, "prompts: golden vectors on this backend") {
    la_rng r;
    la_real x[67];
    double q[25], gam;
    int i, s, bad = 0;
    uint64_t h = GOLDEN_FNV_BASIS;
    la_rng_seed(&r, 12345, 6789);
    for (i = 0; i < 6; ++i) bad += la_rng_u64(&r) != golden_u64[i];
    LA_CHECK(t, bad == 0, "%d u64 differ", bad);
    la_rng_seed(&r, 7, 3);
    for (i = 0, bad = 0; i < 3; ++i) {
      float f = (float)la_rng_normal(&r);
      uint32_t u;
      memcpy(&u, &f, 4);
      bad += u != golden_normal_bits[i];
    }
    la_rng_normals(&r, 67, x);
    for (i = 0; i < 67; ++i) {
      float f = (float)x[i];
      uint32_t u;
      memcpy(&u, &f, 4);
      bad += u != golden_normal_bits[3 + i] || (double)f != (double)x[i];
    }
    LA_CHECK(t, bad == 0, "%d normals differ", bad);
    la_rng_seed(&r, 11, 0);
    for (i = 0, bad = 0; i < 8; ++i) {
      uint64_t u;
      la_rng_gamma(&r, i < 4 ? 0.1 : 2.5, i < 4 ? 10.0 : 2.0, &gam);
      memcpy(&u, &gam, 8);
      bad += u != golden_gamma_bits[i];
    }
    LA_CHECK(t, bad == 0, "%d Gamma variates differ", bad);
    la_rng_seed(&r, 5, 5);
    la_rng_orthogonal(&r, 5, q);
    LA_CHECK(t, golden_fnv(h, q, 25, sizeof q[0]) == golden_orthogonal_hash, "rotation");
    for (s = LA_SETTING_1; s <= LA_SETTING_PAPER_B; ++s) {
      la_data_config c;
      la_data g;
      la_batch b;
      la_data_preset(&c, s);
      la_data_create(&g, &c, 99);
      la_batch_create(&b, c.d, c.n, 11);
      la_rng_seed(&r, 2024, 77);
      la_data_sample(&g, &r, &b);
      h = golden_fnv(GOLDEN_FNV_BASIS, b.z,
                     (size_t)la_panels(11) * LA_W * (c.d + 1) * (c.n + 1), sizeof(la_real));
      h = golden_fnv(h, b.y, (size_t)la_panels(11) * LA_W, sizeof(la_real));
      LA_CHECK(t, h == golden_batch_hash[s], "setting %d batch differs", s);
      la_batch_destroy(&b);
      la_data_destroy(&g);
    }
  }
}

static void suite_prompts(la_t *t) {
  tp_rng(t);
  tp_shapes(t);
  tp_gamma(t);
  tp_config(t);
  tp_settings(t);
  tp_golden(t);
}
