/* linattn.h - the linear-transformer optimization testbed in one C99 header.

   Trains and measures the L-layer linear-attention model on in-context linear
   regression, the testbed of Ahn et al., "Linear attention is (maybe) all you
   need (to understand transformer optimization)" (arXiv:2310.01082) and Ahn et
   al., "Transformers learn to implement preconditioned gradient descent for
   in-context learning" (arXiv:2306.00297).

QUICK START

   In exactly one C or C++ file:

       #define LINATTN_IMPLEMENTATION
       #include "linattn.h"

   Everywhere else just #include "linattn.h". Link with -lm.

CONFIGURATION MACROS (define before including)

   LINATTN_IMPLEMENTATION  emit the implementation in this translation unit.
   LINATTN_STATIC          make every function static (two libraries may then
                           embed the header without clashing symbols).
   LINATTN_DOUBLE          la_real is double instead of float, everywhere.
   LINATTN_SIMD            force a backend: LINATTN_SCALAR, LINATTN_AVX2 or
                           LINATTN_NEON. Forcing one the compiler cannot honour
                           (for example LINATTN_AVX2 without -mavx2 -mfma) is a
                           #warning and the scalar backend is used instead.
   LINATTN_MALLOC(sz, ctx) / LINATTN_FREE(p, ctx)
                           the allocator of the convenience layer; define both
                           or neither (defining one alone is a build error).
   LINATTN_NO_STDLIB       no malloc, no stdio: only the caller-owned-workspace
                           API is compiled (bare-metal boards).
   LINATTN_ASSERT(x)       internal consistency checks (default: nothing).
                           Argument errors never assert: they return a status.

SIMD

   The backend is chosen at compile time from the compiler's own macros:
   AVX2 with FMA (__AVX2__ and __FMA__), NEON on AArch64 (float and double
   lanes), NEON on 32-bit ARMv7 (float lanes; fused multiply-add only with
   VFPv4, __ARM_FEATURE_FMA), otherwise scalar. There is no run-time CPU
   dispatch. la_backend_name() says which backend was compiled.

   Many small matrices are processed at once in a batch-interleaved layout:
   LA_W prompts form a panel and element (i, j) of the LA_W matrices of a panel
   is stored contiguously, so every per-prompt operation is a straight line of
   vector FMAs with every lane busy. LA_W is fixed by the precision alone
   (8 floats, 4 doubles), not by the backend, so that data laid out on one
   machine means the same on every other. A backend with narrower registers
   uses two of them per panel; the scalar backend loops over the lanes.

   Every kernel has a scalar twin that is always compiled (la_kernels_scalar),
   the reference that each SIMD result is tested against.

DETERMINISM

   Within one build, every function is a pure function of its arguments: the
   same inputs give bit-identical outputs, run after run, thread count aside.
   Across backends, results of arithmetic kernels agree to rounding (FMA
   contracts and lane-wise summation order differ), not bit for bit.

MEMORY

   Nothing is allocated behind your back. Functions that need scratch memory
   take (void *work, size_t bytes) with a size query next to them; the
   convenience layer allocates through LINATTN_MALLOC / LINATTN_FREE.
   Interleaved batches must be aligned to LA_ALIGN bytes (la_alloc does this).

THREAD SAFETY

   No global or static mutable state. Every function is reentrant; objects are
   not synchronized, so one object is used by one thread at a time.

CONTENTS

   1. Public API: version, status codes, types, kernels
   2. Implementation: SIMD layer, kernels
   3. Licence
*/
#ifndef LINATTN_H
#define LINATTN_H

#define LINATTN_VERSION_MAJOR 0
#define LINATTN_VERSION_MINOR 1
#define LINATTN_VERSION_PATCH 0
#define LINATTN_VERSION_NUMBER                                                \
  (LINATTN_VERSION_MAJOR * 10000 + LINATTN_VERSION_MINOR * 100 +              \
   LINATTN_VERSION_PATCH)

#include <stddef.h>
#include <stdint.h>

#ifdef LINATTN_STATIC
/* An embedding library uses only part of the API: no unused warnings. */
#if defined(__GNUC__) || defined(__clang__)
#define LINATTN_DEF static __attribute__((unused))
#else
#define LINATTN_DEF static
#endif
#else
#define LINATTN_DEF extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- types */

#ifdef LINATTN_DOUBLE
typedef double la_real;
#define LA_W 4
#else
typedef float la_real;
#define LA_W 8
#endif

/* Byte alignment of interleaved panels: one 256-bit register. */
#define LA_ALIGN 32

/* Backends, for LINATTN_SIMD and la_backend(). */
#define LINATTN_SCALAR 0
#define LINATTN_AVX2 1
#define LINATTN_NEON 2

/* Status codes: LA_OK is zero, every error is negative. */
enum {
  LA_OK = 0,
  LA_ENULL = -1,        /* a required pointer is null */
  LA_EDIM = -2,         /* a dimension is zero, negative or beyond its limit */
  LA_EOVERFLOW = -3,    /* a size computation would overflow */
  LA_EWORKSPACE = -4,   /* the workspace given is too small */
  LA_ENOMEM = -5,       /* the allocator returned null */
  LA_ERANGE = -6,       /* a configuration value is out of its range */
  LA_ENONFINITE = -7,   /* a NaN or infinity in the input */
  LA_ENOTSPD = -8,      /* a matrix is not symmetric positive definite */
  LA_EDIVERGED = -9,    /* a computed loss or gradient became NaN or Inf */
  LA_EIO = -10,         /* reading or writing a file failed */
  LA_EFORMAT = -11,     /* a file is not in the expected format (or truncated) */
  LA_EVERSION = -12,    /* a file has an unsupported format version */
  LA_ECHECKSUM = -13,   /* a file's checksum does not match its contents */
  LA_ESHAPE = -14,      /* a file or object has another shape than expected */
  LA_ENOCONVERGE = -15, /* an iteration did not reach its tolerance */
  LA_EUNSUPPORTED = -16 /* valid, but not supported by this build */
};

/* Flags of the batched products. */
#define LA_TRANS_A 1u    /* use A^T */
#define LA_TRANS_B 2u    /* use B^T */
#define LA_ACCUMULATE 4u /* add to C instead of overwriting it */

/* ------------------------------------------------------------ functions */

LINATTN_DEF int la_version(void); /* LINATTN_VERSION_NUMBER of the build */
LINATTN_DEF const char *la_version_string(void);
LINATTN_DEF const char *la_status_str(int status);
LINATTN_DEF int la_backend(void); /* LINATTN_SCALAR, _AVX2 or _NEON */
LINATTN_DEF const char *la_backend_name(void);

/* Batch-interleaved layout. A batch of `count` r x c matrices occupies
   la_panels(count) panels of r*c*LA_W reals; element (i, j) of matrix b is
   at index ((b / LA_W) * r * c + i * c + j) * LA_W + b % LA_W. Lanes past
   `count` in the last panel are padding, written as zero by la_pack. */
LINATTN_DEF int la_panels(int count);
LINATTN_DEF int la_pack(int count, int rows, int cols, const la_real *plain,
                        la_real *interleaved);
LINATTN_DEF int la_unpack(int count, int rows, int cols,
                          const la_real *interleaved, la_real *plain);
/* One panel holding the same plain r x c matrix in every lane: the form a
   shared operand takes in la_bgemm. */
LINATTN_DEF int la_broadcast(int rows, int cols, const la_real *plain,
                             la_real *panel);
/* Sum over the lanes of one interleaved r x c panel into a plain matrix. */
LINATTN_DEF int la_lane_sum(int rows, int cols, const la_real *panel,
                            la_real *plain);

/* Batched product over `npanels` panels:
       C_b = alpha * op(A_b) * op(B_b)        (+ C_b with LA_ACCUMULATE)
   op(A_b) is m x k, op(B_b) is k x n, C_b is m x n, all interleaved.
   a_stride, b_stride, c_stride are the distances in reals between one
   panel and the next: rows*cols*LA_W for a matrix that differs per prompt,
   0 for a matrix shared by the whole batch (one broadcast panel).
   c_stride == 0 sums the products of all panels lane-wise into the one C
   panel (zeroed first unless LA_ACCUMULATE): la_lane_sum then folds the
   lanes into the batch sum. The operands must not overlap C. */
LINATTN_DEF int la_bgemm(unsigned flags, int m, int n, int k, la_real alpha,
                         const la_real *A, size_t a_stride, const la_real *B,
                         size_t b_stride, la_real *C, size_t c_stride,
                         int npanels);

/* Plain vectors (optimizers, Lanczos). Sums are accumulated in double. */
LINATTN_DEF double la_dot(int n, const la_real *x, const la_real *y);
LINATTN_DEF double la_nrm2(int n, const la_real *x);
LINATTN_DEF void la_axpy(int n, la_real a, const la_real *x, la_real *y);
LINATTN_DEF void la_scale(int n, la_real a, la_real *x);

/* The kernel table: the compiled backend's kernels, and the scalar twins.
   The model and the tests choose between them; users rarely need this. */
typedef struct la_kernels {
  const char *name;
  void (*pgemm)(unsigned flags, int m, int n, int k, la_real alpha,
                const la_real *A, const la_real *B, la_real *C);
  double (*dot)(int n, const la_real *x, const la_real *y);
  void (*axpy)(int n, la_real a, const la_real *x, la_real *y);
} la_kernels;
LINATTN_DEF const la_kernels *la_kernels_best(void);
LINATTN_DEF const la_kernels *la_kernels_scalar(void);

/* Aligned allocation for interleaved data (convenience layer). */
#ifndef LINATTN_NO_STDLIB
LINATTN_DEF void *la_alloc(size_t bytes);
LINATTN_DEF void la_free(void *p);
#endif

/* Sections under development, each in its own file until it is folded in. */
#define LA__PART_API
#ifndef LA__SKIP_PROMPTS
#include "wip/prompts.h"
#endif
#ifndef LA__SKIP_MODEL
#include "wip/model.h"
#endif
#ifndef LA__SKIP_OPTIM
#include "wip/optim.h"
#endif
#ifndef LA__SKIP_DIAG
#include "wip/diag.h"
#endif
#ifndef LA__SKIP_TRAIN
#include "wip/train.h"
#endif
#undef LA__PART_API

#ifdef __cplusplus
}
#endif
#endif /* LINATTN_H */

/* ================================================================== */
/*                          IMPLEMENTATION                              */
/* ================================================================== */

#if defined(LINATTN_IMPLEMENTATION) && !defined(LINATTN_IMPLEMENTATION_DONE)
#define LINATTN_IMPLEMENTATION_DONE

#if defined(LINATTN_MALLOC) != defined(LINATTN_FREE)
#error "linattn.h: define both LINATTN_MALLOC and LINATTN_FREE, or neither"
#endif
#ifndef LINATTN_NO_STDLIB
#ifndef LINATTN_MALLOC
#include <stdlib.h>
#define LINATTN_MALLOC(sz, ctx) ((void)(ctx), malloc(sz))
#define LINATTN_FREE(p, ctx) ((void)(ctx), free(p))
#endif
#endif
#ifndef LINATTN_ASSERT
#define LINATTN_ASSERT(x) ((void)0)
#endif

#include <math.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define LA__INLINE static __inline__ __attribute__((always_inline))
#define LA__RESTRICT __restrict__
#elif defined(_MSC_VER)
#define LA__INLINE static __forceinline
#define LA__RESTRICT __restrict
#else
#define LA__INLINE static
#define LA__RESTRICT
#endif

/* ------------------------------------------------ backend selection */

#if !defined(LINATTN_SIMD)
#if defined(__AVX2__) && defined(__FMA__)
#define LA__SIMD LINATTN_AVX2
#elif defined(__ARM_NEON) || defined(__ARM_NEON__)
#define LA__SIMD LINATTN_NEON
#else
#define LA__SIMD LINATTN_SCALAR
#endif
#elif LINATTN_SIMD == LINATTN_AVX2
#if defined(__AVX2__) && defined(__FMA__)
#define LA__SIMD LINATTN_AVX2
#else
#warning "linattn.h: LINATTN_SIMD=LINATTN_AVX2 needs -mavx2 -mfma; using scalar"
#define LA__SIMD LINATTN_SCALAR
#endif
#elif LINATTN_SIMD == LINATTN_NEON
#if defined(__ARM_NEON) || defined(__ARM_NEON__)
#define LA__SIMD LINATTN_NEON
#else
#warning "linattn.h: LINATTN_SIMD=LINATTN_NEON needs an ARM NEON target; using scalar"
#define LA__SIMD LINATTN_SCALAR
#endif
#else
#define LA__SIMD LINATTN_SCALAR
#endif

/* 32-bit ARM NEON has no double lanes: a double build there is scalar. */
#if LA__SIMD == LINATTN_NEON && defined(LINATTN_DOUBLE) && !defined(__aarch64__)
#undef LA__SIMD
#define LA__SIMD LINATTN_SCALAR
#endif

#if LA__SIMD == LINATTN_AVX2
#include <immintrin.h>
#elif LA__SIMD == LINATTN_NEON
#include <arm_neon.h>
#endif

/* ----------------------------------------------------- version, status */

LINATTN_DEF int la_version(void) { return LINATTN_VERSION_NUMBER; }

#define LA__STR2(x) #x
#define LA__STR(x) LA__STR2(x)
LINATTN_DEF const char *la_version_string(void) {
  return LA__STR(LINATTN_VERSION_MAJOR) "." LA__STR(
      LINATTN_VERSION_MINOR) "." LA__STR(LINATTN_VERSION_PATCH);
}

LINATTN_DEF const char *la_status_str(int status) {
  switch (status) {
  case LA_OK: return "ok";
  case LA_ENULL: return "a required pointer is null";
  case LA_EDIM: return "a dimension is zero, negative or beyond its limit";
  case LA_EOVERFLOW: return "a size computation would overflow";
  case LA_EWORKSPACE: return "the workspace is too small";
  case LA_ENOMEM: return "out of memory";
  case LA_ERANGE: return "a configuration value is out of range";
  case LA_ENONFINITE: return "a NaN or infinity in the input";
  case LA_ENOTSPD: return "the matrix is not symmetric positive definite";
  case LA_EDIVERGED: return "the loss or gradient became NaN or infinite";
  case LA_EIO: return "reading or writing a file failed";
  case LA_EFORMAT: return "the file is not in the expected format";
  case LA_EVERSION: return "the file has an unsupported format version";
  case LA_ECHECKSUM: return "the file's checksum does not match";
  case LA_ESHAPE: return "the shape does not match";
  case LA_ENOCONVERGE: return "the iteration did not converge";
  case LA_EUNSUPPORTED: return "not supported by this build";
  default: return "unknown status";
  }
}

LINATTN_DEF int la_backend(void) { return LA__SIMD; }

LINATTN_DEF const char *la_backend_name(void) {
#if LA__SIMD == LINATTN_AVX2
  return "avx2";
#elif LA__SIMD == LINATTN_NEON && defined(__aarch64__)
  return "neon64";
#elif LA__SIMD == LINATTN_NEON
  return "neon32";
#else
  return "scalar";
#endif
}

/* ------------------------------------------------------- SIMD layer */
/* One la__vec holds the LA_W lanes of a panel element. Kernels are written
   once against these few operations. */

#if LA__SIMD == LINATTN_AVX2 && !defined(LINATTN_DOUBLE)
typedef __m256 la__vec;
LA__INLINE la__vec la__vload(const la_real *p) { return _mm256_load_ps(p); }
LA__INLINE void la__vstore(la_real *p, la__vec v) { _mm256_store_ps(p, v); }
LA__INLINE la__vec la__vset1(la_real x) { return _mm256_set1_ps(x); }
LA__INLINE la__vec la__vadd(la__vec a, la__vec b) { return _mm256_add_ps(a, b); }
LA__INLINE la__vec la__vmul(la__vec a, la__vec b) { return _mm256_mul_ps(a, b); }
LA__INLINE la__vec la__vfma(la__vec c, la__vec a, la__vec b) {
  return _mm256_fmadd_ps(a, b, c);
}
#elif LA__SIMD == LINATTN_AVX2
typedef __m256d la__vec;
LA__INLINE la__vec la__vload(const la_real *p) { return _mm256_load_pd(p); }
LA__INLINE void la__vstore(la_real *p, la__vec v) { _mm256_store_pd(p, v); }
LA__INLINE la__vec la__vset1(la_real x) { return _mm256_set1_pd(x); }
LA__INLINE la__vec la__vadd(la__vec a, la__vec b) { return _mm256_add_pd(a, b); }
LA__INLINE la__vec la__vmul(la__vec a, la__vec b) { return _mm256_mul_pd(a, b); }
LA__INLINE la__vec la__vfma(la__vec c, la__vec a, la__vec b) {
  return _mm256_fmadd_pd(a, b, c);
}
#elif LA__SIMD == LINATTN_NEON && !defined(LINATTN_DOUBLE)
typedef struct { float32x4_t lo, hi; } la__vec;
LA__INLINE la__vec la__vload(const la_real *p) {
  la__vec v; v.lo = vld1q_f32(p); v.hi = vld1q_f32(p + 4); return v;
}
LA__INLINE void la__vstore(la_real *p, la__vec v) {
  vst1q_f32(p, v.lo); vst1q_f32(p + 4, v.hi);
}
LA__INLINE la__vec la__vset1(la_real x) {
  la__vec v; v.lo = vdupq_n_f32(x); v.hi = v.lo; return v;
}
LA__INLINE la__vec la__vadd(la__vec a, la__vec b) {
  la__vec v; v.lo = vaddq_f32(a.lo, b.lo); v.hi = vaddq_f32(a.hi, b.hi); return v;
}
LA__INLINE la__vec la__vmul(la__vec a, la__vec b) {
  la__vec v; v.lo = vmulq_f32(a.lo, b.lo); v.hi = vmulq_f32(a.hi, b.hi); return v;
}
LA__INLINE la__vec la__vfma(la__vec c, la__vec a, la__vec b) {
  la__vec v;
#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
  v.lo = vfmaq_f32(c.lo, a.lo, b.lo); v.hi = vfmaq_f32(c.hi, a.hi, b.hi);
#else /* ARMv7 without VFPv4: multiply-accumulate, not fused */
  v.lo = vmlaq_f32(c.lo, a.lo, b.lo); v.hi = vmlaq_f32(c.hi, a.hi, b.hi);
#endif
  return v;
}
#elif LA__SIMD == LINATTN_NEON
typedef struct { float64x2_t a, b; } la__vec;
LA__INLINE la__vec la__vload(const la_real *p) {
  la__vec v; v.a = vld1q_f64(p); v.b = vld1q_f64(p + 2); return v;
}
LA__INLINE void la__vstore(la_real *p, la__vec v) {
  vst1q_f64(p, v.a); vst1q_f64(p + 2, v.b);
}
LA__INLINE la__vec la__vset1(la_real x) {
  la__vec v; v.a = vdupq_n_f64(x); v.b = v.a; return v;
}
LA__INLINE la__vec la__vadd(la__vec x, la__vec y) {
  la__vec v; v.a = vaddq_f64(x.a, y.a); v.b = vaddq_f64(x.b, y.b); return v;
}
LA__INLINE la__vec la__vmul(la__vec x, la__vec y) {
  la__vec v; v.a = vmulq_f64(x.a, y.a); v.b = vmulq_f64(x.b, y.b); return v;
}
LA__INLINE la__vec la__vfma(la__vec c, la__vec x, la__vec y) {
  la__vec v; v.a = vfmaq_f64(c.a, x.a, y.a); v.b = vfmaq_f64(c.b, x.b, y.b);
  return v;
}
#endif

/* ------------------------------------------------------ the layout */

LINATTN_DEF int la_panels(int count) {
  return count <= 0 ? 0 : (count - 1) / LA_W + 1;
}

static int la__check_dims(int count, int rows, int cols) {
  if (count <= 0 || rows <= 0 || cols <= 0) return LA_EDIM;
  /* every index of the batch must fit an int times LA_W */
  if ((double)la_panels(count) * rows * cols * LA_W > 2147483647.0)
    return LA_EOVERFLOW;
  return LA_OK;
}

LINATTN_DEF int la_pack(int count, int rows, int cols, const la_real *plain,
                        la_real *interleaved) {
  int b, e, rc = rows * cols, st = la__check_dims(count, rows, cols);
  if (st) return st;
  if (!plain || !interleaved) return LA_ENULL;
  for (b = 0; b < la_panels(count) * LA_W; ++b) {
    la_real *dst = interleaved + (size_t)(b / LA_W) * rc * LA_W + b % LA_W;
    for (e = 0; e < rc; ++e)
      dst[(size_t)e * LA_W] = b < count ? plain[(size_t)b * rc + e] : 0;
  }
  return LA_OK;
}

LINATTN_DEF int la_unpack(int count, int rows, int cols,
                          const la_real *interleaved, la_real *plain) {
  int b, e, rc = rows * cols, st = la__check_dims(count, rows, cols);
  if (st) return st;
  if (!plain || !interleaved) return LA_ENULL;
  for (b = 0; b < count; ++b) {
    const la_real *src =
        interleaved + (size_t)(b / LA_W) * rc * LA_W + b % LA_W;
    for (e = 0; e < rc; ++e) plain[(size_t)b * rc + e] = src[(size_t)e * LA_W];
  }
  return LA_OK;
}

LINATTN_DEF int la_broadcast(int rows, int cols, const la_real *plain,
                             la_real *panel) {
  int e, w, st = la__check_dims(1, rows, cols);
  if (st) return st;
  if (!plain || !panel) return LA_ENULL;
  for (e = 0; e < rows * cols; ++e)
    for (w = 0; w < LA_W; ++w) panel[e * LA_W + w] = plain[e];
  return LA_OK;
}

LINATTN_DEF int la_lane_sum(int rows, int cols, const la_real *panel,
                            la_real *plain) {
  int e, w, st = la__check_dims(1, rows, cols);
  if (st) return st;
  if (!plain || !panel) return LA_ENULL;
  for (e = 0; e < rows * cols; ++e) {
    la_real s = 0;
    for (w = 0; w < LA_W; ++w) s += panel[e * LA_W + w];
    plain[e] = s;
  }
  return LA_OK;
}

/* --------------------------------------------- panel product kernels */
/* pgemm computes one panel: C = alpha op(A) op(B) (+ C). Element (i, p) of
   op(A) sits at A + (i*ars + p*acs)*LA_W; transposition only swaps strides,
   so one kernel serves every orientation. */

typedef struct la__gemm_shape {
  int m, n, k;
  int ars, acs, brs, bcs; /* row and column strides of op(A), op(B) */
} la__gemm_shape;

static la__gemm_shape la__shape(unsigned flags, int m, int n, int k) {
  la__gemm_shape s;
  s.m = m; s.n = n; s.k = k;
  if (flags & LA_TRANS_A) { s.ars = 1; s.acs = m; } else { s.ars = k; s.acs = 1; }
  if (flags & LA_TRANS_B) { s.brs = 1; s.bcs = k; } else { s.brs = n; s.bcs = 1; }
  return s;
}

/* The reference: plain loops over lanes. */
static void la__pgemm_scalar(unsigned flags, int m, int n, int k, la_real alpha,
                             const la_real *A, const la_real *B, la_real *C) {
  la__gemm_shape s = la__shape(flags, m, n, k);
  int i, j, p, w;
  for (i = 0; i < m; ++i)
    for (j = 0; j < n; ++j) {
      la_real acc[LA_W];
      la_real *c = C + (size_t)(i * n + j) * LA_W;
      for (w = 0; w < LA_W; ++w) acc[w] = 0;
      for (p = 0; p < k; ++p) {
        const la_real *a = A + (size_t)(i * s.ars + p * s.acs) * LA_W;
        const la_real *b = B + (size_t)(p * s.brs + j * s.bcs) * LA_W;
        for (w = 0; w < LA_W; ++w) acc[w] += a[w] * b[w];
      }
      for (w = 0; w < LA_W; ++w)
        c[w] = (flags & LA_ACCUMULATE) ? c[w] + alpha * acc[w] : alpha * acc[w];
    }
}

static double la__dot_scalar(int n, const la_real *x, const la_real *y) {
  double s = 0;
  int i;
  for (i = 0; i < n; ++i) s += (double)x[i] * y[i];
  return s;
}

static void la__axpy_scalar(int n, la_real a, const la_real *x, la_real *y) {
  int i;
  for (i = 0; i < n; ++i) y[i] += a * x[i];
}

#if LA__SIMD != LINATTN_SCALAR
/* A register block of MR x NR vector accumulators over the whole k loop.
   MR and NR are constants at every call, so the compiler unrolls the loops
   and keeps the block in registers (4 x 3 = 12 of AVX2's 16). */
LA__INLINE void la__block(const int MR, const int NR, const la__gemm_shape *s,
                          int i0, int j0, unsigned flags, la_real alpha,
                          const la_real *LA__RESTRICT A,
                          const la_real *LA__RESTRICT B,
                          la_real *LA__RESTRICT C) {
  la__vec acc[4][3], b[3], va;
  int i, j, p;
  for (i = 0; i < MR; ++i)
    for (j = 0; j < NR; ++j) acc[i][j] = la__vset1(0);
  for (p = 0; p < s->k; ++p) {
    for (j = 0; j < NR; ++j)
      b[j] = la__vload(B + (size_t)(p * s->brs + (j0 + j) * s->bcs) * LA_W);
    for (i = 0; i < MR; ++i) {
      va = la__vload(A + (size_t)((i0 + i) * s->ars + p * s->acs) * LA_W);
      for (j = 0; j < NR; ++j) acc[i][j] = la__vfma(acc[i][j], va, b[j]);
    }
  }
  va = la__vset1(alpha);
  for (i = 0; i < MR; ++i)
    for (j = 0; j < NR; ++j) {
      la_real *c = C + (size_t)((i0 + i) * s->n + j0 + j) * LA_W;
      la__vec r = la__vmul(va, acc[i][j]);
      if (flags & LA_ACCUMULATE) r = la__vadd(r, la__vload(c));
      la__vstore(c, r);
    }
}

#define LA__BLOCK_CASE(MR, NR)                                                \
  case (MR)*4 + (NR):                                                         \
    la__block(MR, NR, &s, i, j, flags, alpha, A, B, C);                       \
    break;

static void la__pgemm_simd(unsigned flags, int m, int n, int k, la_real alpha,
                           const la_real *A, const la_real *B, la_real *C) {
  la__gemm_shape s = la__shape(flags, m, n, k);
  int i, j;
  for (i = 0; i < m; i += 4) {
    int mr = m - i < 4 ? m - i : 4;
    for (j = 0; j < n; j += 3) {
      int nr = n - j < 3 ? n - j : 3;
      switch (mr * 4 + nr) {
        LA__BLOCK_CASE(4, 3) LA__BLOCK_CASE(4, 2) LA__BLOCK_CASE(4, 1)
        LA__BLOCK_CASE(3, 3) LA__BLOCK_CASE(3, 2) LA__BLOCK_CASE(3, 1)
        LA__BLOCK_CASE(2, 3) LA__BLOCK_CASE(2, 2) LA__BLOCK_CASE(2, 1)
        LA__BLOCK_CASE(1, 3) LA__BLOCK_CASE(1, 2) LA__BLOCK_CASE(1, 1)
      default: LINATTN_ASSERT(0);
      }
    }
  }
}
#undef LA__BLOCK_CASE

static double la__dot_simd(int n, const la_real *x, const la_real *y) {
  /* unaligned plain vectors: lanes summed in double at the end */
  la_real part[LA_W];
  double s = 0;
  int i = 0, w;
  for (w = 0; w < LA_W; ++w) part[w] = 0;
  for (; i + LA_W <= n; i += LA_W)
    for (w = 0; w < LA_W; ++w) part[w] += x[i + w] * y[i + w];
  for (w = 0; w < LA_W; ++w) s += part[w];
  for (; i < n; ++i) s += (double)x[i] * y[i];
  return s;
}
#endif

static const la_kernels la__kernels_scalar = {"scalar", la__pgemm_scalar,
                                              la__dot_scalar, la__axpy_scalar};
#if LA__SIMD != LINATTN_SCALAR
static const la_kernels la__kernels_simd = {"simd", la__pgemm_simd,
                                            la__dot_simd, la__axpy_scalar};
#endif

LINATTN_DEF const la_kernels *la_kernels_scalar(void) {
  return &la__kernels_scalar;
}
LINATTN_DEF const la_kernels *la_kernels_best(void) {
#if LA__SIMD != LINATTN_SCALAR
  return &la__kernels_simd;
#else
  return &la__kernels_scalar;
#endif
}

/* ------------------------------------------------- batched products */

LINATTN_DEF int la_bgemm(unsigned flags, int m, int n, int k, la_real alpha,
                         const la_real *A, size_t a_stride, const la_real *B,
                         size_t b_stride, la_real *C, size_t c_stride,
                         int npanels) {
  const la_kernels *kern = la_kernels_best();
  int p;
  if (!A || !B || !C) return LA_ENULL;
  if (m <= 0 || n <= 0 || k <= 0 || npanels <= 0) return LA_EDIM;
  if (flags & ~(LA_TRANS_A | LA_TRANS_B | LA_ACCUMULATE)) return LA_ERANGE;
  if ((double)m * n * LA_W > 2147483647.0 ||
      (double)m * k * LA_W > 2147483647.0 || (double)k * n * LA_W > 2147483647.0)
    return LA_EOVERFLOW;
  if (c_stride == 0 && !(flags & LA_ACCUMULATE))
    memset(C, 0, sizeof(la_real) * (size_t)m * n * LA_W);
  for (p = 0; p < npanels; ++p) {
    unsigned f = flags;
    if (c_stride == 0) f |= LA_ACCUMULATE;
    kern->pgemm(f, m, n, k, alpha, A + p * a_stride, B + p * b_stride,
                C + p * c_stride);
  }
  return LA_OK;
}

/* ------------------------------------------------------ plain vectors */

LINATTN_DEF double la_dot(int n, const la_real *x, const la_real *y) {
  return (n <= 0 || !x || !y) ? 0.0 : la_kernels_best()->dot(n, x, y);
}
LINATTN_DEF double la_nrm2(int n, const la_real *x) {
  return sqrt(la_dot(n, x, x));
}
LINATTN_DEF void la_axpy(int n, la_real a, const la_real *x, la_real *y) {
  if (n > 0 && x && y) la_kernels_best()->axpy(n, a, x, y);
}
LINATTN_DEF void la_scale(int n, la_real a, la_real *x) {
  int i;
  if (n > 0 && x)
    for (i = 0; i < n; ++i) x[i] *= a;
}

#ifndef LINATTN_NO_STDLIB
/* Over-allocates LA_ALIGN bytes and keeps the original pointer just below
   the aligned block, so la_free needs no size. */
LINATTN_DEF void *la_alloc(size_t bytes) {
  unsigned char *raw, *aligned;
  if (bytes > (size_t)-1 - 2 * LA_ALIGN) return NULL;
  raw = (unsigned char *)LINATTN_MALLOC(bytes + 2 * LA_ALIGN, NULL);
  if (!raw) return NULL;
  aligned = raw + 2 * LA_ALIGN - ((size_t)raw % LA_ALIGN);
  memcpy(aligned - sizeof(void *), &raw, sizeof(void *));
  return aligned;
}
LINATTN_DEF void la_free(void *p) {
  void *raw;
  if (!p) return;
  memcpy(&raw, (unsigned char *)p - sizeof(void *), sizeof(void *));
  LINATTN_FREE(raw, NULL);
}
#endif

#define LA__PART_IMPL
#ifndef LA__SKIP_PROMPTS
#include "wip/prompts.h"
#endif
#ifndef LA__SKIP_MODEL
#include "wip/model.h"
#endif
#ifndef LA__SKIP_OPTIM
#include "wip/optim.h"
#endif
#ifndef LA__SKIP_DIAG
#include "wip/diag.h"
#endif
#ifndef LA__SKIP_TRAIN
#include "wip/train.h"
#endif
#undef LA__PART_IMPL

#endif /* LINATTN_IMPLEMENTATION */

/*
LICENCE

MIT License. Copyright (c) 2026 the linattn.h authors.

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
*/
