/* linattn.h section under development: RNG and prompt generator.
   Included twice by linattn.h: once with LA__PART_API defined (declarations,
   inside the include guard and extern "C"), once with LA__PART_IMPL.

RANDOM NUMBERS

   la_rng is Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy
   as 1, 2, 3", SC 2011), a counter-based generator: block b of stream s under
   seed k is Philox(counter = (b, s), key = k), four 32-bit words. The state is
   three integers owned by the caller; there is no global state. Any two
   (seed, stream) pairs give independent sequences, so runs, steps or prompts
   get their own stream simply by number: la_rng_seed(&r, seed, step).

   Normals come from Box-Muller on the words of one block (words 0,1 give
   normals 0,1; words 2,3 give normals 2,3), computed in float arithmetic with
   an in-house logarithm and sine/cosine (no libm transcendental), so every
   backend computes the same bits. The uniform feeding the radius has 31-bit
   resolution: |z| <= 6.56, a tail of probability 5e-11 is cut. Bulk draws
   (la_rng_normals, la_data_sample) start at a block boundary and produce
   exactly what as many la_rng_normal calls from there would.

DETERMINISM (replacing the header's paragraph when the section is folded in)

   Within one build, every function is a pure function of its arguments: the
   same inputs give bit-identical outputs, run after run, thread count aside.
   The random numbers and prompts are bit-identical across backends and
   machines for a given precision: the scalar, AVX2, AArch64 NEON and ARMv7
   NEON builds draw the same words, normals, Gamma variates, rotations and
   batches (checked against committed golden vectors on each of them). The
   float and double builds draw the same normals but lay out LA_W = 8 or 4
   prompts per panel, so their batches differ. This holds for IEEE-754 float
   and double evaluated at their own precision (SSE2, AArch64, ARMv7 VFP;
   not x87) and without value-changing options (-ffast-math, or clang's
   -ffp-contract=fast, which overrides the FP_CONTRACT pragma this section
   sets; gcc's default contraction is switched off here by a pragma).
   Results of arithmetic kernels agree across backends to rounding (FMA
   contracts and lane-wise summation order differ), not bit for bit.

DATA SETTINGS

   A la_data_config (zero = Setting 1) describes the covariates, Sigma, w*
   and the targets; la_data_init draws what is fixed for a run from its seed
   (paper B's rotation on stream 1, the target network on stream 2) into
   caller memory; la_data_sample fills a batch from a la_rng without
   allocating. The two papers' loops are then:
     fixed evaluation batch:   la_rng_seed(&r, seed, LA_STREAM_EVAL), once;
     fresh batch every step:   la_rng_seed(&r, seed, step) before each;
     resampled every k steps:  la_rng_seed(&r, seed, step / k) when
                               step % k == 0.
   Within a batch the stream is consumed panel by panel (LA_W prompts): the
   covariates, then w*, then the Gamma radii, then the label noise; prompt i
   of a batch is therefore the same whatever the batch's count beyond i. */
#if defined(LA__PART_API)

/* ------------------------------------------------------------ the RNG */
/* CONTRACT (other sections use these names and meanings; the internals may
   change): a seedable generator in a caller-owned state, with independent
   streams selected by `stream`. */
typedef struct la_rng {
  uint64_t key;     /* the seed: Philox's key */
  uint64_t stream;  /* the upper half of Philox's counter */
  uint64_t counter; /* position in the stream, in 32-bit words */
} la_rng;
/* A stream number no step reaches: the fixed evaluation batch's. */
#define LA_STREAM_EVAL 0xffffffffffffffffull
LINATTN_DEF void la_rng_seed(la_rng *r, uint64_t seed, uint64_t stream);
LINATTN_DEF uint64_t la_rng_u64(la_rng *r);
LINATTN_DEF double la_rng_uniform(la_rng *r); /* in [0, 1), 53 bits */
LINATTN_DEF double la_rng_normal(la_rng *r);  /* N(0, 1) */
/* n normals into x (vectorized); the same values as n la_rng_normal calls
   from the next block boundary. */
LINATTN_DEF int la_rng_normals(la_rng *r, int n, la_real *x);
/* Gamma(shape k, scale theta) for every k > 0: mean k theta. */
LINATTN_DEF int la_rng_gamma(la_rng *r, double k, double theta, double *g);
/* A point uniform on the unit sphere S^{d-1} of R^d. */
LINATTN_DEF int la_rng_sphere(la_rng *r, int d, la_real *x);
/* A Haar-distributed orthogonal d x d matrix q (row-major), d <= LA_MAX_D. */
LINATTN_DEF int la_rng_orthogonal(la_rng *r, int d, double *q);

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
/* Base covariate x0 (then x = Sigma^{1/2} x0 with Sigma's Cholesky factor). */
enum {
  LA_X_GAUSSIAN = 0,     /* x0 ~ N(0, I_d) */
  LA_X_GAMMA_SPHERE = 1, /* x0 = sqrt(g) u, u on S^{d-1}, g ~ Gamma(k, theta) */
  LA_X_SPHERE = 2        /* x0 uniform on S^{d-1} */
};
enum {
  LA_SIGMA_IDENTITY = 0, /* Sigma = I */
  LA_SIGMA_GIVEN = 1,    /* sigma_matrix, symmetric positive definite */
  LA_SIGMA_PAPER_B = 2   /* U diag(1,1,1/2,1/4,1)^2 U^T, U Haar (the diagonal
                            pattern repeats beyond d = 5) */
};
enum {
  LA_WSTAR_IDENTITY = 0, /* w* ~ N(0, I_d) */
  LA_WSTAR_SIGMA_INV = 1 /* w* ~ N(0, Sigma^{-1}) (paper B, Theorems 3, 4) */
};
enum {
  LA_TARGET_LINEAR = 0, /* y = <w*, x> */
  LA_TARGET_RELU_NET = 1 /* y = <w*, g(x)>, g = Linear(d,h)-ReLU-Linear(h,d)
                            fixed per run, entries U(+-1/sqrt(fan_in)) */
};
typedef struct la_data_config la_data_config;
typedef struct la_data la_data;
struct la_data_config {
  int d, n;                   /* 0 -> 5, 20 */
  int covariates;             /* LA_X_*; 0 -> Gaussian */
  double gamma_shape;         /* k of LA_X_GAMMA_SPHERE; 0 -> 0.1 */
  double gamma_scale;         /* theta of LA_X_GAMMA_SPHERE; 0 -> 10 */
  int sigma;                  /* LA_SIGMA_*; 0 -> identity */
  const double *sigma_matrix; /* LA_SIGMA_GIVEN: d x d row-major; read by
                                 la_data_init only */
  int wstar;                  /* LA_WSTAR_*; 0 -> N(0, I) */
  int target;                 /* LA_TARGET_*; 0 -> linear */
  int net_hidden;             /* h of LA_TARGET_RELU_NET; 0 -> 10 */
  double noise_std;           /* N(0, noise_std^2) added to every label,
                                 y_q included; 0 -> none */
};
struct la_data {
  la_data_config cfg; /* defaults filled in, sigma_matrix cleared */
  la_real *chol;      /* d x d lower Cholesky factor of Sigma, or NULL (I) */
  la_real *winv;      /* d x d, L^{-T}: w* = winv z, or NULL (w* = z) */
  la_real *net;       /* W1 (h x d), b1 (h), W2 (d x h), b2 (d), or NULL */
  void *owned;        /* the block of la_data_create */
};
/* cfg = the preset's description (d, n and everything else filled in). */
LINATTN_DEF int la_data_preset(la_data_config *cfg, int setting);
/* Generator for `cfg`, fixed parts drawn from `seed`. la_data_bytes is 0 for
   an invalid description. */
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

/* Every operation below is written as the IEEE operations it performs, in
   order: a compiler that fused a multiply and an add would give other bits
   on another machine. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

/* ------------------------------------------------------- Philox4x32-10 */

#define LA__PHILOX_M0 0xD2511F53u
#define LA__PHILOX_M1 0xCD9E8D57u
#define LA__PHILOX_W0 0x9E3779B9u
#define LA__PHILOX_W1 0xBB67AE85u

static void la__philox(uint32_t c[4], uint32_t k0, uint32_t k1) {
  int round;
  for (round = 0; round < 10; ++round) {
    uint64_t p0 = (uint64_t)LA__PHILOX_M0 * c[0];
    uint64_t p1 = (uint64_t)LA__PHILOX_M1 * c[2];
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
    c[1] = (uint32_t)p1;
    c[3] = (uint32_t)p0;
    c[0] = n0;
    c[2] = n2;
    k0 += LA__PHILOX_W0;
    k1 += LA__PHILOX_W1;
  }
}

/* The four words of block `blk` of r's stream. */
static void la__philox_block(const la_rng *r, uint64_t blk, uint32_t w[4]) {
  w[0] = (uint32_t)blk;
  w[1] = (uint32_t)(blk >> 32);
  w[2] = (uint32_t)r->stream;
  w[3] = (uint32_t)(r->stream >> 32);
  la__philox(w, (uint32_t)r->key, (uint32_t)(r->key >> 32));
}

LINATTN_DEF void la_rng_seed(la_rng *r, uint64_t seed, uint64_t stream) {
  if (!r) return;
  r->key = seed;
  r->stream = stream;
  r->counter = 0;
}

LINATTN_DEF uint64_t la_rng_u64(la_rng *r) {
  uint32_t w[4];
  uint64_t pos;
  if (!r) return 0;
  pos = (r->counter + 1) & ~(uint64_t)1; /* a whole pair, never half a one */
  la__philox_block(r, pos >> 2, w);
  r->counter = pos + 2;
  return (uint64_t)w[pos & 3] | (uint64_t)w[(pos & 3) + 1] << 32;
}

LINATTN_DEF double la_rng_uniform(la_rng *r) {
  return (double)(la_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* ------------------------------------------------- Box-Muller, scalar */

static float la__u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t la__f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* ln(u) for u in [2^-31, 1]: u = 2^k m with m in [sqrt(1/2), sqrt(2)), then
   ln m from Cephes' logf polynomial in f = m - 1 (about 1 ulp). */
static float la__logf(float u) {
  uint32_t ix = la__f2u(u) + (0x3f800000u - 0x3f3504f3u);
  float kf = (float)((int32_t)(ix >> 23) - 127);
  float f = la__u2f((ix & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
  float z = f * f, p = 7.0376836292e-2f, y;
  p = p * f; p = p + -1.1514610310e-1f;
  p = p * f; p = p + 1.1676998740e-1f;
  p = p * f; p = p + -1.2420140846e-1f;
  p = p * f; p = p + 1.4249322787e-1f;
  p = p * f; p = p + -1.6668057665e-1f;
  p = p * f; p = p + 2.0000714765e-1f;
  p = p * f; p = p + -2.4999993993e-1f;
  p = p * f; p = p + 3.3333331174e-1f;
  y = f * z; y = y * p;
  y = y + kf * -2.12194440e-4f;
  y = y + -0.5f * z;
  f = f + y;
  return f + kf * 0.693359375f;
}

/* The pair of normals of words (w1, w2): radius from w1, angle 2 pi w2/2^32.
   The angle is reduced in integers (quadrant = top bits, rounded), leaving
   |phi| <= pi/4 for Cephes' sinf/cosf polynomials. */
static void la__boxmuller(uint32_t w1, uint32_t w2, float *n0, float *n1) {
  float u = (float)(int32_t)((w1 >> 1) | 1u) * 4.6566128730773926e-10f;
  float rad = sqrtf(-2.0f * la__logf(u));
  uint32_t q = (w2 + 0x20000000u) >> 30, swap, cb, sb;
  float ph = (float)(int32_t)(w2 - (q << 30)) * 1.4629180792671596e-9f;
  float z = ph * ph, s, c, h;
  s = -1.9515295891e-4f * z; s = s + 8.3321608736e-3f;
  s = s * z; s = s + -1.6666654611e-1f;
  s = s * z; s = s * ph; s = s + ph;
  c = 2.443315711809948e-5f * z; c = c + -1.388731625493765e-3f;
  c = c * z; c = c + 4.166664568298827e-2f;
  c = c * z; c = c * z; h = 0.5f * z; c = c - h; c = c + 1.0f;
  swap = 0u - (q & 1u);
  cb = (la__f2u(s) & swap) | (la__f2u(c) & ~swap);
  sb = (la__f2u(c) & swap) | (la__f2u(s) & ~swap);
  cb ^= (((q + 1u) >> 1) & 1u) << 31;
  sb ^= ((q >> 1) & 1u) << 31;
  *n0 = rad * la__u2f(cb);
  *n1 = rad * la__u2f(sb);
}

/* The 32 normals of blocks blk..blk+7, in stream order. */
static void la__normals32_scalar(const la_rng *r, uint64_t blk, float *out) {
  int b;
  for (b = 0; b < 8; ++b) {
    uint32_t w[4];
    la__philox_block(r, blk + (uint64_t)b, w);
    la__boxmuller(w[0], w[1], out + 4 * b, out + 4 * b + 1);
    la__boxmuller(w[2], w[3], out + 4 * b + 2, out + 4 * b + 3);
  }
}

LINATTN_DEF double la_rng_normal(la_rng *r) {
  uint32_t w[4];
  float n[2];
  uint64_t pos;
  if (!r) return 0;
  pos = r->counter++;
  la__philox_block(r, pos >> 2, w);
  la__boxmuller(w[pos & 2], w[(pos & 2) + 1], n, n + 1);
  return n[pos & 1];
}

/* ---------------------------------------- Box-Muller, SIMD (same bits) */
/* A few operations on LA__PL lanes of uint32 (pu) and float (pf). Written
   once against them, la__normals_lanes computes blocks blk..blk+LA__PL-1
   exactly as la__boxmuller does, lane by lane. */
#if LA__SIMD == LINATTN_AVX2
#define LA__PRNG_SIMD 1
#define LA__PL 8
typedef __m256i la__pu;
typedef __m256 la__pf;
#define la__u1(x) _mm256_set1_epi32((int)(x))
#define la__uload(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define la__uadd _mm256_add_epi32
#define la__usub _mm256_sub_epi32
#define la__uxor _mm256_xor_si256
#define la__uand _mm256_and_si256
#define la__uor _mm256_or_si256
#define la__usrl(v, n) _mm256_srli_epi32(v, n)
#define la__usll(v, n) _mm256_slli_epi32(v, n)
#define la__f1 _mm256_set1_ps
#define la__fadd _mm256_add_ps
#define la__fsub _mm256_sub_ps
#define la__fmul _mm256_mul_ps
#define la__fsqrt _mm256_sqrt_ps
#define la__fcvt _mm256_cvtepi32_ps /* lanes read as int32 */
#define la__fbits _mm256_castps_si256
#define la__bitsf _mm256_castsi256_ps
/* x where bit 31 of m is set, else y */
#define la__fsel(m, x, y) _mm256_blendv_ps(y, x, _mm256_castsi256_ps(m))
LA__INLINE void la__umulhilo(la__pu a, uint32_t m, la__pu *hi, la__pu *lo) {
  __m256i vm = _mm256_set1_epi32((int)m);
  __m256i pe = _mm256_mul_epu32(a, vm);
  __m256i po = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), vm);
  *lo = _mm256_mullo_epi32(a, vm);
  *hi = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}
/* out[4 l + j] = n_j[l]: lanes are blocks, stream order is block-major. */
LA__INLINE void la__store4t(float *out, la__pf n0, la__pf n1, la__pf n2,
                        la__pf n3) {
  __m256 t0 = _mm256_unpacklo_ps(n0, n1), t1 = _mm256_unpackhi_ps(n0, n1);
  __m256 t2 = _mm256_unpacklo_ps(n2, n3), t3 = _mm256_unpackhi_ps(n2, n3);
  __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  _mm256_storeu_ps(out, _mm256_permute2f128_ps(s0, s1, 0x20));
  _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(s2, s3, 0x20));
  _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(s0, s1, 0x31));
  _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(s2, s3, 0x31));
}
#elif LA__SIMD == LINATTN_NEON
#define LA__PRNG_SIMD 1
#define LA__PL 4
typedef uint32x4_t la__pu;
typedef float32x4_t la__pf;
#define la__u1(x) vdupq_n_u32(x)
#define la__uload(p) vld1q_u32(p)
#define la__uadd vaddq_u32
#define la__usub vsubq_u32
#define la__uxor veorq_u32
#define la__uand vandq_u32
#define la__uor vorrq_u32
#define la__usrl(v, n) vshrq_n_u32(v, n)
#define la__usll(v, n) vshlq_n_u32(v, n)
#define la__f1 vdupq_n_f32
#define la__fadd vaddq_f32
#define la__fsub vsubq_f32
#define la__fmul vmulq_f32
#define la__fcvt(u) vcvtq_f32_s32(vreinterpretq_s32_u32(u))
#define la__fbits vreinterpretq_u32_f32
#define la__bitsf vreinterpretq_f32_u32
/* x where bit 31 of m is set, else y */
#define la__fsel(m, x, y)                                                     \
  vbslq_f32(vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_u32(m), 31)), x, y)
#if defined(__aarch64__)
#define la__fsqrt vsqrtq_f32
#else
/* ARMv7 NEON has only a square-root estimate: VFP's exact one per lane. */
static la__pf la__fsqrt(la__pf x) {
  float t[4];
  vst1q_f32(t, x);
  t[0] = sqrtf(t[0]); t[1] = sqrtf(t[1]); t[2] = sqrtf(t[2]); t[3] = sqrtf(t[3]);
  return vld1q_f32(t);
}
#endif
LA__INLINE void la__umulhilo(la__pu a, uint32_t m, la__pu *hi, la__pu *lo) {
  uint32x2_t vm = vdup_n_u32(m);
  uint64x2_t pl = vmull_u32(vget_low_u32(a), vm);
  uint64x2_t ph = vmull_u32(vget_high_u32(a), vm);
  uint32x4x2_t z = vuzpq_u32(vreinterpretq_u32_u64(pl), vreinterpretq_u32_u64(ph));
  *lo = z.val[0];
  *hi = z.val[1];
}
LA__INLINE void la__store4t(float *out, la__pf n0, la__pf n1, la__pf n2,
                        la__pf n3) {
  float32x4x4_t v;
  v.val[0] = n0; v.val[1] = n1; v.val[2] = n2; v.val[3] = n3;
  vst4q_f32(out, v);
}
#endif

#ifdef LA__PRNG_SIMD
static const uint32_t la__lane_index[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                            8, 9, 10, 11, 12, 13, 14, 15};

/* Two independent groups of lanes in lockstep: every step of Philox and of
   the logarithm is a chain of dependent operations, and two chains keep the
   vector units busy where one would wait on latency. */
typedef struct la__u2 { la__pu a, b; } la__u2;
typedef struct la__f2 { la__pf a, b; } la__f2;
LA__INLINE la__u2 la__mku2(la__pu a, la__pu b) { la__u2 r; r.a = a; r.b = b; return r; }
LA__INLINE la__f2 la__mkf2(la__pf a, la__pf b) { la__f2 r; r.a = a; r.b = b; return r; }
LA__INLINE la__u2 la__2u(uint32_t x) { return la__mku2(la__u1(x), la__u1(x)); }
LA__INLINE la__f2 la__2f(float x) { return la__mkf2(la__f1(x), la__f1(x)); }
#define LA__U2OP(name, op)                                                    \
  LA__INLINE la__u2 name(la__u2 x, la__u2 y) {                                \
    return la__mku2(op(x.a, y.a), op(x.b, y.b));                              \
  }
#define LA__F2OP(name, op)                                                    \
  LA__INLINE la__f2 name(la__f2 x, la__f2 y) {                                \
    return la__mkf2(op(x.a, y.a), op(x.b, y.b));                              \
  }
#define LA__U2SHIFT(name, op, n)                                              \
  LA__INLINE la__u2 name(la__u2 x) { return la__mku2(op(x.a, n), op(x.b, n)); }
LA__U2OP(la__2uadd, la__uadd)
LA__U2OP(la__2usub, la__usub)
LA__U2OP(la__2uxor, la__uxor)
LA__U2OP(la__2uand, la__uand)
LA__U2OP(la__2uor, la__uor)
LA__F2OP(la__2fadd, la__fadd)
LA__F2OP(la__2fsub, la__fsub)
LA__F2OP(la__2fmul, la__fmul)
LA__U2SHIFT(la__2srl1, la__usrl, 1)
LA__U2SHIFT(la__2srl23, la__usrl, 23)
LA__U2SHIFT(la__2srl30, la__usrl, 30)
LA__U2SHIFT(la__2sll30, la__usll, 30)
LA__U2SHIFT(la__2sll31, la__usll, 31)
LA__INLINE la__f2 la__2fcvt(la__u2 x) { return la__mkf2(la__fcvt(x.a), la__fcvt(x.b)); }
LA__INLINE la__f2 la__2fsqrt(la__f2 x) { return la__mkf2(la__fsqrt(x.a), la__fsqrt(x.b)); }
LA__INLINE la__f2 la__2fsel(la__u2 m, la__f2 x, la__f2 y) {
  return la__mkf2(la__fsel(m.a, x.a, y.a), la__fsel(m.b, x.b, y.b));
}
LA__INLINE la__u2 la__2fbits(la__f2 x) { return la__mku2(la__fbits(x.a), la__fbits(x.b)); }
LA__INLINE la__f2 la__2bitsf(la__u2 x) { return la__mkf2(la__bitsf(x.a), la__bitsf(x.b)); }

/* Horner step p * x + c, as a separate multiply and add. */
LA__INLINE la__f2 la__2horner(la__f2 p, la__f2 x, float c) {
  return la__2fadd(la__2fmul(p, x), la__2f(c));
}

LA__INLINE la__f2 la__vlogf(la__f2 u) {
  la__u2 ix = la__2uadd(la__2fbits(u), la__2u(0x3f800000u - 0x3f3504f3u));
  la__f2 kf = la__2fcvt(la__2usub(la__2srl23(ix), la__2u(127)));
  la__f2 f = la__2fsub(la__2bitsf(la__2uadd(la__2uand(ix, la__2u(0x007fffffu)),
                                            la__2u(0x3f3504f3u))),
                       la__2f(1.0f));
  la__f2 z = la__2fmul(f, f), p = la__2f(7.0376836292e-2f), y;
  p = la__2horner(p, f, -1.1514610310e-1f);
  p = la__2horner(p, f, 1.1676998740e-1f);
  p = la__2horner(p, f, -1.2420140846e-1f);
  p = la__2horner(p, f, 1.4249322787e-1f);
  p = la__2horner(p, f, -1.6668057665e-1f);
  p = la__2horner(p, f, 2.0000714765e-1f);
  p = la__2horner(p, f, -2.4999993993e-1f);
  p = la__2horner(p, f, 3.3333331174e-1f);
  y = la__2fmul(la__2fmul(f, z), p);
  y = la__2fadd(y, la__2fmul(kf, la__2f(-2.12194440e-4f)));
  y = la__2fadd(y, la__2fmul(la__2f(-0.5f), z));
  f = la__2fadd(f, y);
  return la__2fadd(f, la__2fmul(kf, la__2f(0.693359375f)));
}

LA__INLINE void la__vboxmuller(la__u2 w1, la__u2 w2, la__f2 *n0, la__f2 *n1) {
  la__u2 one = la__2u(1u), sign = la__2u(0x80000000u), q, swap, cb, sb;
  la__f2 u = la__2fmul(la__2fcvt(la__2uor(la__2srl1(w1), one)),
                       la__2f(4.6566128730773926e-10f));
  la__f2 rad = la__2fsqrt(la__2fmul(la__2f(-2.0f), la__vlogf(u)));
  la__f2 ph, z, s, c, h;
  q = la__2srl30(la__2uadd(w2, la__2u(0x20000000u)));
  ph = la__2fmul(la__2fcvt(la__2usub(w2, la__2sll30(q))),
                 la__2f(1.4629180792671596e-9f));
  z = la__2fmul(ph, ph);
  s = la__2horner(la__2f(-1.9515295891e-4f), z, 8.3321608736e-3f);
  s = la__2horner(s, z, -1.6666654611e-1f);
  s = la__2fadd(la__2fmul(la__2fmul(s, z), ph), ph);
  c = la__2horner(la__2f(2.443315711809948e-5f), z, -1.388731625493765e-3f);
  c = la__2horner(c, z, 4.166664568298827e-2f);
  c = la__2fmul(la__2fmul(c, z), z);
  h = la__2fmul(la__2f(0.5f), z);
  c = la__2fadd(la__2fsub(c, h), la__2f(1.0f));
  /* odd quadrants swap sine and cosine; bit 1 of q (of q + 1) is the
     sign of the sine (the cosine), moved to bit 31 */
  swap = la__2sll31(q);
  cb = la__2uxor(la__2fbits(la__2fsel(swap, s, c)),
                 la__2uand(la__2sll30(la__2uadd(q, one)), sign));
  sb = la__2uxor(la__2fbits(la__2fsel(swap, c, s)),
                 la__2uand(la__2sll30(q), sign));
  *n0 = la__2fmul(rad, la__2bitsf(cb));
  *n1 = la__2fmul(rad, la__2bitsf(sb));
}

/* The round keys and the stream words, broadcast once per fill. */
typedef struct la__pkeys {
  la__pu k0[10], k1[10], s0, s1;
} la__pkeys;

static void la__pkeys_init(const la_rng *r, la__pkeys *k) {
  uint32_t k0 = (uint32_t)r->key, k1 = (uint32_t)(r->key >> 32);
  int round;
  for (round = 0; round < 10; ++round) {
    k->k0[round] = la__u1(k0);
    k->k1[round] = la__u1(k1);
    k0 += LA__PHILOX_W0;
    k1 += LA__PHILOX_W1;
  }
  k->s0 = la__u1((uint32_t)r->stream);
  k->s1 = la__u1((uint32_t)(r->stream >> 32));
}

LA__INLINE void la__2mulhilo(la__u2 x, uint32_t m, la__u2 *hi, la__u2 *lo) {
  la__umulhilo(x.a, m, &hi->a, &lo->a);
  la__umulhilo(x.b, m, &hi->b, &lo->b);
}

/* The 8 LA__PL normals of blocks blk .. blk + 2 LA__PL - 1, in stream
   order; the caller ensures the block's low word does not carry. */
LA__INLINE void la__normals_lanes(const la__pkeys *k, uint64_t blk,
                                  float *out) {
  la__u2 c0, c1, c2, c3, h0, l0, h1, l1;
  la__f2 n0, n1, n2, n3;
  int round;
  c0 = la__2uadd(la__2u((uint32_t)blk),
                 la__mku2(la__uload(la__lane_index),
                          la__uload(la__lane_index + LA__PL)));
  c1 = la__2u((uint32_t)(blk >> 32));
  c2 = la__mku2(k->s0, k->s0);
  c3 = la__mku2(k->s1, k->s1);
  for (round = 0; round < 10; ++round) {
    la__2mulhilo(c0, LA__PHILOX_M0, &h0, &l0);
    la__2mulhilo(c2, LA__PHILOX_M1, &h1, &l1);
    c0 = la__2uxor(la__2uxor(h1, c1), la__mku2(k->k0[round], k->k0[round]));
    c2 = la__2uxor(la__2uxor(h0, c3), la__mku2(k->k1[round], k->k1[round]));
    c1 = l1;
    c3 = l0;
  }
  la__vboxmuller(c0, c1, &n0, &n1);
  la__vboxmuller(c2, c3, &n2, &n3);
  la__store4t(out, n0.a, n1.a, n2.a, n3.a);
  la__store4t(out + 4 * LA__PL, n0.b, n1.b, n2.b, n3.b);
}

/* Normals per SIMD chunk; a chunk whose lanes would carry into the block's
   upper word (once in 2^32 blocks) takes the scalar twin: the same bits. */
#define LA__NCHUNK (8 * LA__PL)
static void la__normals_chunk(const la_rng *r, const la__pkeys *k,
                              uint64_t blk, float *out) {
  if ((uint32_t)blk > 0xffffffffu - (2 * LA__PL - 1)) {
    int c;
    for (c = 0; c < LA__NCHUNK; c += 32)
      la__normals32_scalar(r, blk + (uint64_t)(c / 4), out + c);
  } else {
    la__normals_lanes(k, blk, out);
  }
}
#else
#define LA__NCHUNK 32
typedef int la__pkeys;
static void la__pkeys_init(const la_rng *r, la__pkeys *k) {
  (void)r;
  *k = 0;
}
static void la__normals_chunk(const la_rng *r, const la__pkeys *k,
                              uint64_t blk, float *out) {
  (void)k;
  la__normals32_scalar(r, blk, out);
}
#endif

/* n normals from the next block boundary; the stream moves past the last
   block used. Chunks differ by backend; the normals, defined block by
   block, do not. */
static void la__fill_normals(la_rng *r, size_t n, la_real *x) {
  uint64_t blk = (r->counter + 3) >> 2;
  float t[LA__NCHUNK];
  size_t i = 0, j;
  la__pkeys k;
  la__pkeys_init(r, &k);
  for (; i + LA__NCHUNK <= n; i += LA__NCHUNK, blk += LA__NCHUNK / 4) {
#ifdef LINATTN_DOUBLE
    la__normals_chunk(r, &k, blk, t);
    for (j = 0; j < LA__NCHUNK; ++j) x[i + j] = t[j];
#else
    la__normals_chunk(r, &k, blk, x + i);
#endif
  }
  if (i < n) {
    la__normals_chunk(r, &k, blk, t);
    for (j = 0; i + j < n; ++j) x[i + j] = t[j];
    blk += (j + 3) / 4;
  }
  r->counter = blk << 2;
}

LINATTN_DEF int la_rng_normals(la_rng *r, int n, la_real *x) {
  (void)la__normals32_scalar; /* the SIMD twin's reference, for the tests */
  if (!r || !x) return LA_ENULL;
  if (n <= 0) return LA_EDIM;
  la__fill_normals(r, (size_t)n, x);
  return LA_OK;
}

/* ---------------------------------------- Gamma, in-house exp and log */
/* Double precision from +, -, *, / and sqrt only, so every machine with
   IEEE doubles gets the same Gamma variates. */

static double la__u2d(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static uint64_t la__d2u(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

#define LA__LN2_HI 6.93147180369123816490e-01
#define LA__LN2_LO 1.90821492927058770002e-10

/* 1/(2j+1) and 1/j!: constants, not divisions, in the loops below. */
static const double la__odd_inv[12] = {
    1, 0.33333333333333331, 0.20000000000000001, 0.14285714285714285,
    0.1111111111111111, 0.090909090909090912, 0.076923076923076927,
    0.066666666666666666, 0.058823529411764705, 0.052631578947368418,
    0.047619047619047616, 0.043478260869565216};
static const double la__inv_fact[14] = {
    1, 1, 0.5, 0.16666666666666666, 0.041666666666666664,
    0.0083333333333333332, 0.0013888888888888889, 0.00019841269841269841,
    2.4801587301587302e-05, 2.7557319223985893e-06, 2.7557319223985888e-07,
    2.505210838544172e-08, 2.08767569878681e-09, 1.6059043836821613e-10};

/* ln(x) for finite x > 0 (normal numbers): x = 2^k m, m in [sqrt(1/2),
   sqrt(2)), ln m = 2 atanh(s), s = (m-1)/(m+1), |s| < 0.172. */
static double la__log(double x) {
  uint64_t ix = la__d2u(x) + (0x3ff0000000000000ull - 0x3fe6a09e667f3bcdull);
  double k = (double)((int)(ix >> 52) - 1023);
  double m = la__u2d((ix & 0x000fffffffffffffull) + 0x3fe6a09e667f3bcdull);
  double f = m - 1.0, s = f / (2.0 + f), t = s * s, p = la__odd_inv[11];
  int j;
  for (j = 10; j >= 0; --j) { p = p * t; p = p + la__odd_inv[j]; }
  p = 2.0 * s * p;
  return k * LA__LN2_HI + (p + k * LA__LN2_LO);
}

/* e^x; 0 below -745.2, +inf above 709.78. */
static double la__exp(double x) {
  double n, r, p, scale = 1.0;
  int j, e;
  if (x < -745.2) return 0.0;
  if (x > 709.78) return INFINITY;
  n = floor(x * 1.4426950408889634 + 0.5);
  r = x - n * LA__LN2_HI;
  r = r - n * LA__LN2_LO; /* |r| <= 0.347: 13 Taylor terms reach 1e-17 */
  p = la__inv_fact[13];
  for (j = 12; j >= 0; --j) { p = p * r; p = p + la__inv_fact[j]; }
  e = (int)n;
  if (e < -1020) { scale = la__u2d((uint64_t)(1023 - 100) << 52); e += 100; }
  if (e > 1023) { scale = 2.0; e -= 1; } /* x near the top of the range */
  return p * la__u2d((uint64_t)(e + 1023) << 52) * scale;
}

/* Gamma(a, 1) for a >= 1: Marsaglia and Tsang (2000), ~1.05 tries. */
static double la__gamma1(la_rng *r, double a) {
  double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double x, v, u, x2;
    do {
      x = la_rng_normal(r);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    u = 1.0 - la_rng_uniform(r); /* (0, 1]: its log is finite */
    x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
    if (la__log(u) < 0.5 * x2 + d * (1.0 - v + la__log(v))) return d * v;
  }
}

/* k < 1 through Gamma(k) = Gamma(k + 1) U^{1/k}. */
static double la__gamma(la_rng *r, double k, double theta) {
  double g, u;
  if (k >= 1.0) return la__gamma1(r, k) * theta;
  g = la__gamma1(r, k + 1.0);
  u = 1.0 - la_rng_uniform(r);
  return g * la__exp(la__log(u) / k) * theta;
}

LINATTN_DEF int la_rng_gamma(la_rng *r, double k, double theta, double *g) {
  double v;
  la_rng save;
  if (!r || !g) return LA_ENULL;
  if (!isfinite(k) || !isfinite(theta)) return LA_ENONFINITE;
  if (k <= 0.0 || theta <= 0.0) return LA_ERANGE;
  save = *r;
  v = la__gamma(r, k, theta);
  if (!isfinite(v)) { *r = save; return LA_ERANGE; } /* theta too large */
  *g = v;
  return LA_OK;
}

LINATTN_DEF int la_rng_sphere(la_rng *r, int d, la_real *x) {
  double s = 0, nrm;
  int i;
  if (!r || !x) return LA_ENULL;
  if (d <= 0) return LA_EDIM;
  la__fill_normals(r, (size_t)d, x);
  for (i = 0; i < d; ++i) s += (double)x[i] * x[i];
  if (s <= 0) { /* every normal exactly 0 (chance 2^-25 at d = 1) */
    x[0] = 1;
    return LA_OK;
  }
  nrm = sqrt(s); /* divide: at d = 1, x / sqrt(x^2) is exactly +-1 */
  for (i = 0; i < d; ++i) x[i] = (la_real)(x[i] / nrm);
  return LA_OK;
}

/* Gram-Schmidt on the rows of a Gaussian matrix: the result is Haar
   distributed (it is the Q of a QR with positive diagonal). Two passes keep
   it orthogonal to rounding. */
LINATTN_DEF int la_rng_orthogonal(la_rng *r, int d, double *q) {
  int i, j, k, pass;
  if (!r || !q) return LA_ENULL;
  if (d <= 0 || d > LA_MAX_D) return LA_EDIM;
  for (i = 0; i < d * d; ++i) q[i] = la_rng_normal(r);
  for (i = 0; i < d; ++i) {
    double *qi = q + (size_t)i * d, s = 0;
    for (pass = 0; pass < 2; ++pass)
      for (j = 0; j < i; ++j) {
        const double *qj = q + (size_t)j * d;
        double dot = 0;
        for (k = 0; k < d; ++k) dot += qi[k] * qj[k];
        for (k = 0; k < d; ++k) qi[k] -= dot * qj[k];
      }
    for (k = 0; k < d; ++k) s += qi[k] * qi[k];
    if (!(s > 0)) return LA_ENOCONVERGE; /* a dependent draw: chance 0 */
    s = 1.0 / sqrt(s);
    for (k = 0; k < d; ++k) qi[k] *= s;
  }
  return LA_OK;
}

/* --------------------------------------------------------- the batch */

static size_t la__panel_reals(int rows, int cols, int count) {
  return (size_t)la_panels(count) * (size_t)rows * (size_t)cols * LA_W;
}
LINATTN_DEF size_t la_batch_bytes(int d, int n, int count) {
  if (d <= 0 || n <= 0 || count <= 0 || d > LA_MAX_D || n > LA_MAX_N) return 0;
  if ((double)la_panels(count) * LA_W * ((d + 1.0) * (n + 1.0) + 1.0) *
          sizeof(la_real) > (double)((size_t)-1) / 2)
    return 0;
  return sizeof(la_real) *
         (la__panel_reals(d + 1, n + 1, count) + la__panel_reals(1, 1, count));
}
LINATTN_DEF int la_batch_init(la_batch *b, int d, int n, int count, void *mem,
                              size_t bytes) {
  size_t need = la_batch_bytes(d, n, count);
  if (!b || !mem) return LA_ENULL;
  if (d <= 0 || n <= 0 || count <= 0 || d > LA_MAX_D || n > LA_MAX_N)
    return LA_EDIM;
  if (!need) return LA_EOVERFLOW;
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
  int st;
  if (!b) return LA_ENULL;
  if (d <= 0 || n <= 0 || count <= 0 || d > LA_MAX_D || n > LA_MAX_N)
    return LA_EDIM;
  if (!need) return LA_EOVERFLOW;
  mem = la_alloc(need);
  if (!mem) return LA_ENOMEM;
  st = la_batch_init(b, d, n, count, mem, need);
  if (st) la_free(mem);
  return st;
}
LINATTN_DEF void la_batch_destroy(la_batch *b) {
  if (b) { la_free(b->z); b->z = b->y = NULL; }
}
#endif

/* ------------------------------------------------- the data settings */

LINATTN_DEF int la_data_preset(la_data_config *cfg, int setting) {
  if (!cfg) return LA_ENULL;
  if (setting < LA_SETTING_1 || setting > LA_SETTING_PAPER_B) return LA_ERANGE;
  memset(cfg, 0, sizeof *cfg);
  cfg->d = 5;
  cfg->n = setting == LA_SETTING_2 ? 5 : 20;
  cfg->net_hidden = 10;
  switch (setting) {
  case LA_SETTING_3:
    cfg->covariates = LA_X_GAMMA_SPHERE;
    cfg->gamma_shape = 0.1;
    cfg->gamma_scale = 10;
    break;
  case LA_SETTING_SPHERE: cfg->covariates = LA_X_SPHERE; break;
  case LA_SETTING_NONLINEAR: cfg->target = LA_TARGET_RELU_NET; break;
  case LA_SETTING_PAPER_B:
    cfg->sigma = LA_SIGMA_PAPER_B;
    cfg->wstar = LA_WSTAR_SIGMA_INV;
    break;
  default: break;
  }
  return LA_OK;
}

/* cfg with defaults filled in, or the status of its first bad field. */
static int la__data_resolve(const la_data_config *in, la_data_config *c) {
  *c = *in;
  if (!c->d) c->d = 5;
  if (!c->n) c->n = 20;
  if (!c->net_hidden) c->net_hidden = 10;
  if (c->d < 0 || c->d > LA_MAX_D || c->n < 0 || c->n > LA_MAX_N ||
      c->net_hidden < 0 || c->net_hidden > LA_MAX_D)
    return LA_EDIM;
  if (c->covariates < 0 || c->covariates > LA_X_SPHERE || c->sigma < 0 ||
      c->sigma > LA_SIGMA_PAPER_B || c->wstar < 0 ||
      c->wstar > LA_WSTAR_SIGMA_INV || c->target < 0 ||
      c->target > LA_TARGET_RELU_NET)
    return LA_ERANGE;
  if (c->covariates == LA_X_GAMMA_SPHERE) {
    if (c->gamma_shape == 0) c->gamma_shape = 0.1;
    if (c->gamma_scale == 0) c->gamma_scale = 10;
    if (!isfinite(c->gamma_shape) || !isfinite(c->gamma_scale))
      return LA_ENONFINITE;
    if (c->gamma_shape < 0 || c->gamma_scale < 0) return LA_ERANGE;
  }
  if (!isfinite(c->noise_std)) return LA_ENONFINITE;
  if (c->noise_std < 0) return LA_ERANGE;
  if (c->sigma == LA_SIGMA_GIVEN && !c->sigma_matrix) return LA_ENULL;
  return LA_OK;
}

/* Sizes in reals of the parts a resolved configuration keeps, then the
   doubles needed while factoring Sigma. */
typedef struct la__data_sizes {
  size_t chol, winv, net, scratch;
} la__data_sizes;

static la__data_sizes la__data_parts(const la_data_config *c) {
  la__data_sizes s;
  size_t dd = (size_t)c->d * c->d, h = (size_t)c->net_hidden;
  s.chol = c->sigma != LA_SIGMA_IDENTITY ? dd : 0;
  s.winv = s.chol && c->wstar == LA_WSTAR_SIGMA_INV ? dd : 0;
  s.net = c->target == LA_TARGET_RELU_NET ? 2 * h * c->d + h + c->d : 0;
  s.scratch = s.chol ? 3 * dd : 0;
  return s;
}

static size_t la__data_need(const la_data_config *c) {
  la__data_sizes s = la__data_parts(c);
  return sizeof(la_real) * (s.chol + s.winv + s.net) +
         sizeof(double) * s.scratch + 2 * LA_ALIGN;
}

LINATTN_DEF size_t la_data_bytes(const la_data_config *cfg) {
  la_data_config c;
  if (!cfg || la__data_resolve(cfg, &c)) return 0;
  return la__data_need(&c);
}

/* Sigma (given or paper B's) into S, checked; d x d doubles. */
static int la__data_sigma_matrix(const la_data_config *c, uint64_t seed,
                                 double *S, double *U) {
  int d = c->d, i, j, k, st;
  if (c->sigma == LA_SIGMA_GIVEN) {
    double big = 0;
    for (i = 0; i < d * d; ++i) {
      if (!isfinite(c->sigma_matrix[i])) return LA_ENONFINITE;
      if (fabs(c->sigma_matrix[i]) > big) big = fabs(c->sigma_matrix[i]);
    }
    for (i = 0; i < d; ++i)
      for (j = 0; j < i; ++j)
        if (fabs(c->sigma_matrix[i * d + j] - c->sigma_matrix[j * d + i]) >
            1e-12 * big)
          return LA_ENOTSPD;
    memcpy(S, c->sigma_matrix, sizeof(double) * d * d);
  } else {
    static const double D2[5] = {1, 1, 0.25, 0.0625, 1}; /* diag(D)^2 */
    la_rng r;
    la_rng_seed(&r, seed, 1);
    st = la_rng_orthogonal(&r, d, U);
    if (st) return st;
    for (i = 0; i < d; ++i)
      for (j = 0; j < d; ++j) {
        double s = 0;
        for (k = 0; k < d; ++k) s += U[i * d + k] * D2[k % 5] * U[j * d + k];
        S[i * d + j] = s;
      }
  }
  return LA_OK;
}

/* Lower Cholesky factor L of S; LA_ENOTSPD when a pivot is not clearly
   positive. */
static int la__cholesky(int d, const double *S, double *L) {
  int i, j, k;
  memset(L, 0, sizeof(double) * d * d);
  for (j = 0; j < d; ++j) {
    double s = S[j * d + j];
    for (k = 0; k < j; ++k) s -= L[j * d + k] * L[j * d + k];
    if (!(s > 1e-13 * fabs(S[j * d + j])) || !(s > 0)) return LA_ENOTSPD;
    L[j * d + j] = sqrt(s);
    for (i = j + 1; i < d; ++i) {
      double t = S[i * d + j];
      for (k = 0; k < j; ++k) t -= L[i * d + k] * L[j * d + k];
      L[i * d + j] = t / L[j * d + j];
    }
  }
  return LA_OK;
}

/* chol = L; winv = L^{-T} (then w* = winv z has covariance Sigma^{-1}). */
static int la__data_sigma(const la_data_config *c, uint64_t seed,
                          la_real *chol, la_real *winv, double *work) {
  int d = c->d, i, j, k, st;
  double *S = work, *L = work + (size_t)d * d, *Li = L + (size_t)d * d;
  st = la__data_sigma_matrix(c, seed, S, Li);
  if (st) return st;
  st = la__cholesky(d, S, L);
  if (st) return st;
  for (i = 0; i < d * d; ++i) chol[i] = (la_real)L[i];
  if (!winv) return LA_OK;
  memset(Li, 0, sizeof(double) * d * d);
  for (i = 0; i < d; ++i) {
    Li[i * d + i] = 1.0 / L[i * d + i];
    for (j = 0; j < i; ++j) {
      double s = 0;
      for (k = j; k < i; ++k) s += L[i * d + k] * Li[k * d + j];
      Li[i * d + j] = -s / L[i * d + i];
    }
  }
  for (i = 0; i < d; ++i)
    for (j = 0; j < d; ++j) winv[i * d + j] = (la_real)Li[j * d + i];
  return LA_OK;
}

/* g = Linear(d,h)-ReLU-Linear(h,d), entries U(-1/sqrt(fan_in), +), the
   initialization of common frameworks' linear layers. */
static void la__data_net(const la_data_config *c, uint64_t seed,
                         la_real *net) {
  int d = c->d, h = c->net_hidden, i;
  double a1 = 1.0 / sqrt((double)d), a2 = 1.0 / sqrt((double)h);
  la_rng r;
  la_rng_seed(&r, seed, 2);
  for (i = 0; i < h * d + h; ++i)
    net[i] = (la_real)((2.0 * la_rng_uniform(&r) - 1.0) * a1);
  for (i = h * d + h; i < 2 * h * d + h + d; ++i)
    net[i] = (la_real)((2.0 * la_rng_uniform(&r) - 1.0) * a2);
}

static unsigned char *la__align_up(unsigned char *p) {
  return p + (LA_ALIGN - (size_t)((uintptr_t)p % LA_ALIGN)) % LA_ALIGN;
}

LINATTN_DEF int la_data_init(la_data *g, const la_data_config *cfg,
                             uint64_t seed, void *mem, size_t bytes) {
  la_data_config c;
  la__data_sizes s;
  la_real *chol, *winv, *net;
  unsigned char *p;
  int st;
  if (!g || !cfg) return LA_ENULL;
  st = la__data_resolve(cfg, &c);
  if (st) return st;
  if (!mem) return LA_ENULL;
  if (bytes < la__data_need(&c)) return LA_EWORKSPACE;
  s = la__data_parts(&c);
  p = la__align_up((unsigned char *)mem);
  chol = s.chol ? (la_real *)(void *)p : NULL;
  winv = s.winv ? (la_real *)(void *)p + s.chol : NULL;
  net = s.net ? (la_real *)(void *)p + s.chol + s.winv : NULL;
  p = la__align_up(p + sizeof(la_real) * (s.chol + s.winv + s.net));
  if (chol) {
    st = la__data_sigma(&c, seed, chol, winv, (double *)(void *)p);
    if (st) return st;
  }
  if (net) la__data_net(&c, seed, net);
  c.sigma_matrix = NULL;
  g->cfg = c;
  g->chol = chol;
  g->winv = winv;
  g->net = net;
  g->owned = NULL;
  return LA_OK;
}

#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_data_create(la_data *g, const la_data_config *cfg,
                               uint64_t seed) {
  size_t need = la_data_bytes(cfg);
  void *mem;
  int st;
  if (!g || !cfg) return LA_ENULL;
  if (!need) {
    la_data_config c;
    return la__data_resolve(cfg, &c);
  }
  mem = la_alloc(need);
  if (!mem) return LA_ENOMEM;
  st = la_data_init(g, cfg, seed, mem, need);
  if (st) { la_free(mem); return st; }
  g->owned = mem;
  return LA_OK;
}
LINATTN_DEF void la_data_destroy(la_data *g) {
  if (!g) return;
  la_free(g->owned);
  g->owned = NULL;
  g->chol = g->winv = g->net = NULL;
}
#endif

/* ------------------------------------------------------- sampling */
/* One panel P of LA_W prompts, every loop running over the lanes last, so
   that it vectorizes; a row of P is (n+1) LA_W reals. */

/* out = A t lane-wise, A d x d (lower or upper triangle only, by `lower`). */
static void la__panel_matvec(int d, const la_real *A, int lower,
                             const la_real *t, la_real *out, size_t ostride) {
  int i, k, l;
  for (i = 0; i < d; ++i) {
    la_real acc[LA_W];
    int k0 = lower ? 0 : i, k1 = lower ? i : d - 1;
    for (l = 0; l < LA_W; ++l) acc[l] = 0;
    for (k = k0; k <= k1; ++k) {
      la_real a = A[i * d + k];
      for (l = 0; l < LA_W; ++l) acc[l] += a * t[k * LA_W + l];
    }
    for (l = 0; l < LA_W; ++l) out[i * ostride + l] = acc[l];
  }
}

/* x0 of LA_X_SPHERE and LA_X_GAMMA_SPHERE: each token scaled to the unit
   sphere, then by sqrt(g), g drawn token by token, lane by lane. */
static void la__panel_radii(const la_data_config *c, la_rng *rng,
                            la_real *P) {
  int d = c->d, n1 = c->n + 1, i, j, l;
  size_t row = (size_t)n1 * LA_W;
  for (j = 0; j < n1; ++j)
    for (l = 0; l < LA_W; ++l) {
      la_real *x = P + (size_t)j * LA_W + l;
      double s = 0, f;
      for (i = 0; i < d; ++i) s += (double)x[i * row] * x[i * row];
      f = c->covariates == LA_X_GAMMA_SPHERE
              ? la__gamma(rng, c->gamma_shape, c->gamma_scale)
              : 1.0;
      if (s > 0) {
        f = sqrt(s / f); /* a division, as in la_rng_sphere */
        for (i = 0; i < d; ++i) x[i * row] = (la_real)(x[i * row] / f);
      } else {
        x[0] = (la_real)sqrt(f);
      }
    }
}

/* The target network on the token at x (stride row): out (d x LA_W). */
static void la__panel_net(const la_data *g, const la_real *x, size_t row,
                          la_real *hid, la_real *out) {
  int d = g->cfg.d, h = g->cfg.net_hidden, i, m, l;
  const la_real *W1 = g->net, *b1 = W1 + h * d, *W2 = b1 + h, *b2 = W2 + d * h;
  for (m = 0; m < h; ++m) {
    la_real acc[LA_W];
    for (l = 0; l < LA_W; ++l) acc[l] = b1[m];
    for (i = 0; i < d; ++i)
      for (l = 0; l < LA_W; ++l) acc[l] += W1[m * d + i] * x[i * row + l];
    for (l = 0; l < LA_W; ++l) hid[m * LA_W + l] = acc[l] > 0 ? acc[l] : 0;
  }
  for (i = 0; i < d; ++i) {
    la_real acc[LA_W];
    for (l = 0; l < LA_W; ++l) acc[l] = b2[i];
    for (m = 0; m < h; ++m)
      for (l = 0; l < LA_W; ++l) acc[l] += W2[i * h + m] * hid[m * LA_W + l];
    for (l = 0; l < LA_W; ++l) out[i * LA_W + l] = acc[l];
  }
}

/* Labels y_j = <w*, f(x_j)>: row d of P for j < n, yq for the query. */
static void la__panel_labels(const la_data *g, const la_real *w, la_real *P,
                             la_real *yq, la_real *t, la_real *hid) {
  int d = g->cfg.d, n1 = g->cfg.n + 1, i, j, l;
  size_t row = (size_t)n1 * LA_W;
  for (j = 0; j < n1; ++j) {
    const la_real *f = P + (size_t)j * LA_W;
    size_t fs = row;
    la_real acc[LA_W];
    if (g->net) {
      la__panel_net(g, f, row, hid, t);
      f = t;
      fs = LA_W;
    }
    for (l = 0; l < LA_W; ++l) acc[l] = 0;
    for (i = 0; i < d; ++i)
      for (l = 0; l < LA_W; ++l) acc[l] += w[i * LA_W + l] * f[i * fs + l];
    for (l = 0; l < LA_W; ++l) {
      P[d * row + (size_t)j * LA_W + l] = j < n1 - 1 ? acc[l] : 0;
      if (j == n1 - 1) yq[l] = acc[l];
    }
  }
}

/* Label noise, every label and y_q; in chunks that keep block alignment. */
static void la__panel_noise(const la_data_config *c, la_rng *rng, la_real *P,
                            la_real *yq, la_real *t) {
  int d = c->d, n1 = c->n + 1, j, l, j0, jn;
  la_real sd = (la_real)c->noise_std;
  la_real *y = P + (size_t)d * n1 * LA_W;
  for (j0 = 0; j0 < n1; j0 += LA_MAX_D) {
    jn = n1 - j0 < LA_MAX_D ? n1 - j0 : LA_MAX_D;
    la__fill_normals(rng, (size_t)jn * LA_W, t);
    for (j = 0; j < jn; ++j)
      for (l = 0; l < LA_W; ++l) {
        la_real e = sd * t[j * LA_W + l];
        if (j0 + j < n1 - 1) y[(size_t)(j0 + j) * LA_W + l] += e;
        else yq[l] += e;
      }
  }
}

static void la__sample_panel(const la_data *g, la_rng *rng, la_real *P,
                             la_real *yq) {
  const la_data_config *c = &g->cfg;
  int d = c->d, n1 = c->n + 1, i, j, l;
  size_t row = (size_t)n1 * LA_W;
  la_real w[LA_MAX_D * LA_W], t[LA_MAX_D * LA_W], hid[LA_MAX_D * LA_W];
  /* x then w* in one fill where w* fits in the label row (d <= n + 1),
     in two otherwise: d (n+1) LA_W is a whole number of blocks, so both
     draw the same normals */
  if (d <= n1) {
    la__fill_normals(rng, (size_t)d * row + (size_t)d * LA_W, P);
    memcpy(w, P + (size_t)d * row, sizeof(la_real) * d * LA_W);
  } else {
    la__fill_normals(rng, (size_t)d * row, P);
    la__fill_normals(rng, (size_t)d * LA_W, w);
  }
  if (g->winv) {
    memcpy(t, w, sizeof(la_real) * d * LA_W);
    la__panel_matvec(d, g->winv, 0, t, w, LA_W);
  }
  if (c->covariates != LA_X_GAUSSIAN) la__panel_radii(c, rng, P);
  if (g->chol)
    for (j = 0; j < n1; ++j) {
      for (i = 0; i < d; ++i)
        for (l = 0; l < LA_W; ++l)
          t[i * LA_W + l] = P[i * row + (size_t)j * LA_W + l];
      la__panel_matvec(d, g->chol, 1, t, P + (size_t)j * LA_W, row);
    }
  la__panel_labels(g, w, P, yq, t, hid);
  if (c->noise_std > 0) la__panel_noise(c, rng, P, yq, t);
}

LINATTN_DEF int la_data_sample(const la_data *g, la_rng *rng, la_batch *b) {
  int p, np, pad, e, l;
  size_t pr;
  if (!g || !rng || !b || !b->z || !b->y) return LA_ENULL;
  if (g->cfg.d <= 0 || g->cfg.d > LA_MAX_D || g->cfg.n <= 0 ||
      g->cfg.n > LA_MAX_N || b->count <= 0)
    return LA_EDIM;
  if (b->d != g->cfg.d || b->n != g->cfg.n) return LA_ESHAPE;
  if ((g->cfg.sigma != LA_SIGMA_IDENTITY && !g->chol) ||
      (g->cfg.target == LA_TARGET_RELU_NET && !g->net))
    return LA_ENULL; /* a generator that was never initialized */
  np = la_panels(b->count);
  pr = (size_t)(b->d + 1) * (b->n + 1) * LA_W;
  for (p = 0; p < np; ++p)
    la__sample_panel(g, rng, b->z + p * pr, b->y + (size_t)p * LA_W);
  pad = np * LA_W - b->count; /* padding lanes stay zero */
  for (l = LA_W - pad; l < LA_W; ++l) {
    for (e = 0; e < (b->d + 1) * (b->n + 1); ++e)
      b->z[(np - 1) * pr + (size_t)e * LA_W + l] = 0;
    b->y[(size_t)(np - 1) * LA_W + l] = 0;
  }
  return LA_OK;
}

#if defined(__clang__)
#pragma STDC FP_CONTRACT DEFAULT
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

#endif
