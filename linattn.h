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
   lanes into the batch sum; padding lanes add zero when one operand is
   packed (la_pack zeroes them), but with both operands shared every lane
   adds the same product. The operands must not overlap C. A non-finite
   alpha is LA_ENONFINITE; the matrices are not scanned (that would cost a
   pass over the batch). */
LINATTN_DEF int la_bgemm(unsigned flags, int m, int n, int k, la_real alpha,
                         const la_real *A, size_t a_stride, const la_real *B,
                         size_t b_stride, la_real *C, size_t c_stride,
                         int npanels);

/* Plain vectors (optimizers, Lanczos), at any address. Products and sums
   are formed in double, so la_dot of floats carries no float rounding at
   all and differs between backends only by the order of the double
   additions; la_nrm2 does not overflow or underflow before its result does.
   n <= 0 or a null pointer is an empty vector: 0 is returned, nothing is
   written. In la_axpy, x and y are the same vector or do not overlap. */
LINATTN_DEF double la_dot(int n, const la_real *x, const la_real *y);
LINATTN_DEF double la_nrm2(int n, const la_real *x);
LINATTN_DEF void la_axpy(int n, la_real a, const la_real *x, la_real *y);
LINATTN_DEF void la_scale(int n, la_real a, la_real *x);

/* The kernel table: the compiled backend's kernels, and the scalar twins.
   The model and the tests choose between them; users rarely need this.
   The entries do not check their arguments (the la_ functions above do).
   pgemm is one panel of la_bgemm (C never batch-summed); bgemm is la_bgemm
   itself with all its strides, one call for the whole batch. */
typedef struct la_kernels {
  const char *name; /* "scalar", "avx2", "neon64" or "neon32" */
  void (*pgemm)(unsigned flags, int m, int n, int k, la_real alpha,
                const la_real *A, const la_real *B, la_real *C);
  double (*dot)(int n, const la_real *x, const la_real *y);
  void (*axpy)(int n, la_real a, const la_real *x, la_real *y);
  void (*bgemm)(unsigned flags, int m, int n, int k, la_real alpha,
                const la_real *A, size_t a_stride, const la_real *B,
                size_t b_stride, la_real *C, size_t c_stride, int npanels);
  void (*scale)(int n, la_real a, la_real *x);
  double (*nrm2)(int n, const la_real *x);
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
   once against these few operations; vload/vstore need LA_ALIGN-aligned
   panels, vloadu/vstoreu take plain vectors at any address. */

#if LA__SIMD == LINATTN_AVX2 && !defined(LINATTN_DOUBLE)
typedef __m256 la__vec;
LA__INLINE la__vec la__vload(const la_real *p) { return _mm256_load_ps(p); }
LA__INLINE la__vec la__vloadu(const la_real *p) { return _mm256_loadu_ps(p); }
LA__INLINE void la__vstore(la_real *p, la__vec v) { _mm256_store_ps(p, v); }
LA__INLINE void la__vstoreu(la_real *p, la__vec v) { _mm256_storeu_ps(p, v); }
LA__INLINE la__vec la__vset1(la_real x) { return _mm256_set1_ps(x); }
LA__INLINE la__vec la__vzero(void) { return _mm256_setzero_ps(); }
LA__INLINE la__vec la__vmul(la__vec a, la__vec b) { return _mm256_mul_ps(a, b); }
LA__INLINE la__vec la__vfma(la__vec c, la__vec a, la__vec b) {
  return _mm256_fmadd_ps(a, b, c);
}
#elif LA__SIMD == LINATTN_AVX2
typedef __m256d la__vec;
LA__INLINE la__vec la__vload(const la_real *p) { return _mm256_load_pd(p); }
LA__INLINE la__vec la__vloadu(const la_real *p) { return _mm256_loadu_pd(p); }
LA__INLINE void la__vstore(la_real *p, la__vec v) { _mm256_store_pd(p, v); }
LA__INLINE void la__vstoreu(la_real *p, la__vec v) { _mm256_storeu_pd(p, v); }
LA__INLINE la__vec la__vset1(la_real x) { return _mm256_set1_pd(x); }
LA__INLINE la__vec la__vzero(void) { return _mm256_setzero_pd(); }
LA__INLINE la__vec la__vmul(la__vec a, la__vec b) { return _mm256_mul_pd(a, b); }
LA__INLINE la__vec la__vfma(la__vec c, la__vec a, la__vec b) {
  return _mm256_fmadd_pd(a, b, c);
}
#elif LA__SIMD == LINATTN_NEON && !defined(LINATTN_DOUBLE)
/* vld1q/vst1q accept any address, so the aligned and plain forms agree. */
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
LA__INLINE la__vec la__vmul(la__vec x, la__vec y) {
  la__vec v; v.a = vmulq_f64(x.a, y.a); v.b = vmulq_f64(x.b, y.b); return v;
}
LA__INLINE la__vec la__vfma(la__vec c, la__vec x, la__vec y) {
  la__vec v; v.a = vfmaq_f64(c.a, x.a, y.a); v.b = vfmaq_f64(c.b, x.b, y.b);
  return v;
}
#endif
#if LA__SIMD == LINATTN_NEON
LA__INLINE la__vec la__vloadu(const la_real *p) { return la__vload(p); }
LA__INLINE void la__vstoreu(la_real *p, la__vec v) { la__vstore(p, v); }
LA__INLINE la__vec la__vzero(void) { return la__vset1(0); }
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
  int b, e, rc, st = la__check_dims(count, rows, cols);
  if (st) return st;
  rc = rows * cols; /* fits: checked above */
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
  int b, e, rc, st = la__check_dims(count, rows, cols);
  if (st) return st;
  rc = rows * cols; /* fits: checked above */
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
/* A panel product computes C = alpha op(A) op(B) (+ C) for the LA_W prompts
   of one panel. Element (i, p) of op(A) sits at A + (i*ars + p*acs)*LA_W;
   transposition only swaps the strides. */

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

/* The reference: plain loops over lanes, one element of C at a time. */
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

/* The batched reference: one panel after another. A batch-summed C
   (c_stride 0) is zeroed once, then every panel adds to it. */
static void la__bgemm_scalar(unsigned flags, int m, int n, int k, la_real alpha,
                             const la_real *A, size_t a_stride,
                             const la_real *B, size_t b_stride, la_real *C,
                             size_t c_stride, int npanels) {
  int p;
  if (c_stride == 0 && !(flags & LA_ACCUMULATE)) {
    memset(C, 0, sizeof(la_real) * (size_t)m * n * LA_W);
    flags |= LA_ACCUMULATE;
  }
  for (p = 0; p < npanels; ++p)
    la__pgemm_scalar(flags, m, n, k, alpha, A + p * a_stride, B + p * b_stride,
                     C + p * c_stride);
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

static void la__scale_scalar(int n, la_real a, la_real *x) {
  int i;
  for (i = 0; i < n; ++i) x[i] *= a;
}

/* ||x|| from a sum of squares in double. Float squares cannot overflow or
   underflow a double; double ones can, and then the norm is computed again
   from x / max|x|, which cannot. */
static double la__nrm2_from(double sumsq, int n, const la_real *x) {
  double amax = 0, s = 0, v;
  int i;
  if (sizeof(la_real) < sizeof(double) || (sumsq > 1e-290 && sumsq < 1e290))
    return sqrt(sumsq);
  for (i = 0; i < n; ++i)
    if (fabs((double)x[i]) > amax) amax = fabs((double)x[i]);
  if (amax == 0 || !(amax <= 1.79769313486231570e308)) return sqrt(sumsq);
  for (i = 0; i < n; ++i) { v = (double)x[i] / amax; s += v * v; }
  return amax * sqrt(s);
}

static double la__nrm2_scalar(int n, const la_real *x) {
  return la__nrm2_from(la__dot_scalar(n, x, x), n, x);
}

#if LA__SIMD != LINATTN_SCALAR
/* The register-blocked panel product. A block of MR x NR vector accumulators
   lives in registers for the whole k loop: per step of k it costs MR + NR
   vector loads and MR*NR FMAs, so MR*NR of 8..12 keeps the two FMA ports of
   a core busy and the FMA latency covered while staying within 16 vector
   registers. MR, NR and the orientations TA, TB are constants at every call
   site, so each block compiles to straight-line code with constant offsets;
   the loops over them are forced open because -O2 would not unroll them and
   the accumulators would live on the stack. */
#if defined(__clang__)
#define LA__UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__) && __GNUC__ >= 8
#define LA__UNROLL _Pragma("GCC unroll 16")
#else
#define LA__UNROLL
#endif

/* Pins an element of A in a register. Left alone, gcc folds its load into
   each of the NR FMAs that use it (x86 FMAs take a memory operand), so a
   6x2 block issues 14 loads instead of 8 per step of k and the load ports,
   not the FMAs, set the pace; on AArch64 it hoists every load of a step
   and spills accumulators instead. */
#if LA__SIMD == LINATTN_AVX2 && (defined(__GNUC__) || defined(__clang__))
#define LA__PIN(v) __asm__("" : "+x"(v))
#elif LA__SIMD == LINATTN_NEON && defined(__aarch64__) && !defined(LINATTN_DOUBLE) && \
    (defined(__GNUC__) || defined(__clang__))
#define LA__PIN(v) __asm__("" : "+w"((v).lo), "+w"((v).hi))
#elif LA__SIMD == LINATTN_NEON && defined(__aarch64__) && \
    (defined(__GNUC__) || defined(__clang__))
#define LA__PIN(v) __asm__("" : "+w"((v).a), "+w"((v).b))
#else
#define LA__PIN(v) ((void)0)
#endif

/* How a block leaves its accumulators in C. */
enum {
  LA__PUT = 0,     /* C = acc */
  LA__PUT_MUL = 1, /* C = alpha acc */
  LA__ADD = 2,     /* C += acc: the accumulators start from C */
  LA__ADD_MUL = 3  /* C += alpha acc */
};

#define LA__MRMAX 8
#define LA__NRMAX 8

/* A points at op(A)(i0, 0), B at op(B)(0, j0), C at C(i0, j0). */
LA__INLINE void la__kblock(const int MR, const int NR, const int TA,
                           const int TB, int m, int n, int k, int mode,
                           la__vec valpha, const la_real *LA__RESTRICT A,
                           const la_real *LA__RESTRICT B,
                           la_real *LA__RESTRICT C) {
  const size_t ars = TA ? LA_W : (size_t)k * LA_W;
  const size_t acs = TA ? (size_t)m * LA_W : LA_W;
  const size_t brs = TB ? LA_W : (size_t)n * LA_W;
  const size_t bcs = TB ? (size_t)k * LA_W : LA_W;
  const size_t crs = (size_t)n * LA_W;
  la__vec acc[LA__MRMAX][LA__NRMAX], b[LA__NRMAX], va;
  int i, j, p;
  if (mode == LA__ADD) {
    LA__UNROLL for (i = 0; i < MR; ++i)
      LA__UNROLL for (j = 0; j < NR; ++j)
        acc[i][j] = la__vload(C + i * crs + j * LA_W);
  } else {
    LA__UNROLL for (i = 0; i < MR; ++i)
      LA__UNROLL for (j = 0; j < NR; ++j) acc[i][j] = la__vzero();
  }
  for (p = 0; p < k; ++p) {
    LA__UNROLL for (j = 0; j < NR; ++j) b[j] = la__vload(B + j * bcs);
    LA__UNROLL for (i = 0; i < MR; ++i) {
      va = la__vload(A + i * ars);
      LA__PIN(va);
      LA__UNROLL for (j = 0; j < NR; ++j)
        acc[i][j] = la__vfma(acc[i][j], va, b[j]);
    }
    A += acs;
    B += brs;
  }
  LA__UNROLL for (i = 0; i < MR; ++i)
    LA__UNROLL for (j = 0; j < NR; ++j) {
      la_real *c = C + i * crs + j * LA_W;
      la__vec r = acc[i][j];
      if (mode == LA__PUT_MUL) r = la__vmul(valpha, r);
      else if (mode == LA__ADD_MUL) r = la__vfma(la__vload(c), valpha, r);
      la__vstore(c, r);
    }
}

/* A strip of MR rows of C: blocks of NR columns, then the last n % NR
   columns in blocks of 4, 2 and 1 (the branches for widths not below NR
   are compile-time dead). */
LA__INLINE void la__kstrip(const int MR, const int NR, const int TA,
                           const int TB, int i0, int m, int n, int k, int mode,
                           la__vec valpha, const la_real *A, const la_real *B,
                           la_real *C) {
  const size_t ars = TA ? LA_W : (size_t)k * LA_W;
  const size_t bcs = TB ? (size_t)k * LA_W : LA_W;
  int j = 0;
  A += i0 * ars;
  C += (size_t)i0 * n * LA_W;
  for (; j + NR <= n; j += NR)
    la__kblock(MR, NR, TA, TB, m, n, k, mode, valpha, A, B + j * bcs,
               C + (size_t)j * LA_W);
  if (NR > 4 && n - j >= 4) {
    la__kblock(MR, 4, TA, TB, m, n, k, mode, valpha, A, B + j * bcs,
               C + (size_t)j * LA_W);
    j += 4;
  }
  if (NR > 2 && n - j >= 2) {
    la__kblock(MR, 2, TA, TB, m, n, k, mode, valpha, A, B + j * bcs,
               C + (size_t)j * LA_W);
    j += 2;
  }
  if (NR > 1 && n - j >= 1)
    la__kblock(MR, 1, TA, TB, m, n, k, mode, valpha, A, B + j * bcs,
               C + (size_t)j * LA_W);
}

/* Row strips: as many rows as the registers allow, and for the last m % MR
   rows wider blocks, so that a short strip still has 8..12 accumulators.
   A NEON vector of a panel element takes two registers: AArch64's 32 hold
   8 of them as accumulators without spilling (checked in the generated
   code), ARMv7's 16 hold 4. Each strip shape is a function of its own: one
   call per strip costs nothing, and small functions, with only the main
   strip compiled once per orientation, keep instrumented builds from
   taking minutes. */
#define LA__STRIP_FN(MR, NR, TA, TB)                                           \
  static void la__strip_##MR##x##NR##_##TA##TB(                                \
      int i0, int m, int n, int k, int mode, la_real alpha, const la_real *A,  \
      const la_real *B, la_real *C) {                                          \
    la__kstrip(MR, NR, TA, TB, i0, m, n, k, mode, la__vset1(alpha), A, B, C);  \
  }
/* The last rows: orientation known at run time only (strides computed, not
   constant), so that they are compiled once rather than four times. */
#define LA__TAIL_FN(MR, NR)                                                    \
  static void la__tail_##MR##x##NR(int ta, int tb, int i0, int m, int n,       \
                                   int k, int mode, la_real alpha,             \
                                   const la_real *A, const la_real *B,         \
                                   la_real *C) {                               \
    la__kstrip(MR, NR, ta, tb, i0, m, n, k, mode, la__vset1(alpha), A, B, C);  \
  }
#define LA__STRIP(MR, NR, TA, TB)                                              \
  la__strip_##MR##x##NR##_##TA##TB(i, m, n, k, mode, alpha, A, B, C)
#define LA__TAIL(MR, NR, TA, TB)                                               \
  la__tail_##MR##x##NR(TA, TB, i, m, n, k, mode, alpha, A, B, C)

#if LA__SIMD == LINATTN_NEON && !defined(__aarch64__)
LA__TAIL_FN(1, 3)
#define LA__STRIP_FNS(TA, TB) LA__STRIP_FN(2, 2, TA, TB)
#define LA__STRIPS(TA, TB)                                                     \
  for (i = 0; i + 2 <= m; i += 2) LA__STRIP(2, 2, TA, TB);                     \
  if (i < m) LA__TAIL(1, 3, TA, TB);
#elif LA__SIMD == LINATTN_NEON
LA__TAIL_FN(3, 2)
LA__TAIL_FN(2, 4)
LA__TAIL_FN(1, 4)
#define LA__STRIP_FNS(TA, TB) LA__STRIP_FN(4, 2, TA, TB)
#define LA__STRIPS(TA, TB)                                                     \
  for (i = 0; i + 4 <= m; i += 4) LA__STRIP(4, 2, TA, TB);                     \
  switch (m - i) {                                                             \
  case 3: LA__TAIL(3, 2, TA, TB); break;                                       \
  case 2: LA__TAIL(2, 4, TA, TB); break;                                       \
  case 1: LA__TAIL(1, 4, TA, TB); break;                                       \
  default: break;                                                              \
  }
#else /* AVX2: 12 accumulators of the 16 registers */
LA__TAIL_FN(5, 2)
LA__TAIL_FN(4, 3)
LA__TAIL_FN(3, 4)
LA__TAIL_FN(2, 6)
LA__TAIL_FN(1, 8)
#define LA__STRIP_FNS(TA, TB) LA__STRIP_FN(6, 2, TA, TB)
#define LA__STRIPS(TA, TB)                                                     \
  for (i = 0; i + 6 <= m; i += 6) LA__STRIP(6, 2, TA, TB);                     \
  switch (m - i) {                                                             \
  case 5: LA__TAIL(5, 2, TA, TB); break;                                       \
  case 4: LA__TAIL(4, 3, TA, TB); break;                                       \
  case 3: LA__TAIL(3, 4, TA, TB); break;                                       \
  case 2: LA__TAIL(2, 6, TA, TB); break;                                       \
  case 1: LA__TAIL(1, 8, TA, TB); break;                                       \
  default: break;                                                              \
  }
#endif

/* The batched product for one orientation, panel after panel so that each
   panel's operands are read once while in L1. The mode is settled once per
   panel; a batch-summed C is overwritten by the first panel and added to
   by the others, never zeroed separately. */
#define LA__BGEMM_ORIENT(NAME, TA, TB)                                         \
  LA__STRIP_FNS(TA, TB)                                                        \
  static void NAME(unsigned flags, int m, int n, int k, la_real alpha,         \
                   const la_real *A, size_t a_stride, const la_real *B,        \
                   size_t b_stride, la_real *C, size_t c_stride,               \
                   int npanels) {                                              \
    const int scaled = alpha != 1;                                             \
    int p, i, mode = (flags & LA_ACCUMULATE) ? LA__ADD : LA__PUT;              \
    for (p = 0; p < npanels; ++p) {                                            \
      if (p == 1 && c_stride == 0) mode = LA__ADD;                             \
      mode = (mode & LA__ADD) | scaled;                                        \
      LA__STRIPS(TA, TB)                                                       \
      A += a_stride;                                                           \
      B += b_stride;                                                           \
      C += c_stride;                                                           \
    }                                                                          \
  }
LA__BGEMM_ORIENT(la__bgemm_nn, 0, 0)
LA__BGEMM_ORIENT(la__bgemm_tn, 1, 0)
LA__BGEMM_ORIENT(la__bgemm_nt, 0, 1)
LA__BGEMM_ORIENT(la__bgemm_tt, 1, 1)
#undef LA__BGEMM_ORIENT
#undef LA__STRIPS
#undef LA__STRIP_FNS
#undef LA__STRIP
#undef LA__STRIP_FN
#undef LA__TAIL
#undef LA__TAIL_FN

/* One switch per call, not per panel. */
static void la__bgemm_simd(unsigned flags, int m, int n, int k, la_real alpha,
                           const la_real *A, size_t a_stride, const la_real *B,
                           size_t b_stride, la_real *C, size_t c_stride,
                           int npanels) {
  switch (flags & (LA_TRANS_A | LA_TRANS_B)) {
  case 0:
    la__bgemm_nn(flags, m, n, k, alpha, A, a_stride, B, b_stride, C, c_stride,
                 npanels);
    break;
  case LA_TRANS_A:
    la__bgemm_tn(flags, m, n, k, alpha, A, a_stride, B, b_stride, C, c_stride,
                 npanels);
    break;
  case LA_TRANS_B:
    la__bgemm_nt(flags, m, n, k, alpha, A, a_stride, B, b_stride, C, c_stride,
                 npanels);
    break;
  default:
    la__bgemm_tt(flags, m, n, k, alpha, A, a_stride, B, b_stride, C, c_stride,
                 npanels);
    break;
  }
}

static void la__pgemm_simd(unsigned flags, int m, int n, int k, la_real alpha,
                           const la_real *A, const la_real *B, la_real *C) {
  la__bgemm_simd(flags, m, n, k, alpha, A, 0, B, 0, C, 0, 1);
}
#endif /* LA__SIMD != LINATTN_SCALAR */

#if LA__SIMD != LINATTN_SCALAR
/* Plain vectors at any address: whole vectors, then a scalar tail. The
   vector body fuses a*x + y, the scalar twin rounds twice; they agree to
   one rounding per element. x and y are the same vector or disjoint. */
static void la__axpy_simd(int n, la_real a, const la_real *x, la_real *y) {
  const la__vec va = la__vset1(a);
  int i = 0;
  for (; i + 2 * LA_W <= n; i += 2 * LA_W) {
    la__vec y0 = la__vfma(la__vloadu(y + i), va, la__vloadu(x + i));
    la__vec y1 = la__vfma(la__vloadu(y + i + LA_W), va, la__vloadu(x + i + LA_W));
    la__vstoreu(y + i, y0);
    la__vstoreu(y + i + LA_W, y1);
  }
  for (; i + LA_W <= n; i += LA_W)
    la__vstoreu(y + i, la__vfma(la__vloadu(y + i), va, la__vloadu(x + i)));
  for (; i < n; ++i) y[i] += a * x[i];
}

static void la__scale_simd(int n, la_real a, la_real *x) {
  const la__vec va = la__vset1(a);
  int i = 0;
  for (; i + 2 * LA_W <= n; i += 2 * LA_W) {
    la__vec x0 = la__vmul(va, la__vloadu(x + i));
    la__vec x1 = la__vmul(va, la__vloadu(x + i + LA_W));
    la__vstoreu(x + i, x0);
    la__vstoreu(x + i + LA_W, x1);
  }
  for (; i + LA_W <= n; i += LA_W)
    la__vstoreu(x + i, la__vmul(va, la__vloadu(x + i)));
  for (; i < n; ++i) x[i] *= a;
}

/* The dot product keeps the promise of double sums: every product is formed
   in double (exact for floats) and added into four or more double partial
   sums, folded at the end. It differs from the scalar twin only in the
   order of the additions. 32-bit ARM has no double lanes and uses the twin. */
#if LA__SIMD == LINATTN_AVX2
LA__INLINE double la__hsum_pd(__m256d v) {
  __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
#ifndef LINATTN_DOUBLE
#define LA__DLOAD4(p) _mm256_cvtps_pd(_mm_loadu_ps(p)) /* 4 floats as doubles */
#else
#define LA__DLOAD4(p) _mm256_loadu_pd(p)
#endif
static double la__dot_simd(int n, const la_real *x, const la_real *y) {
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  double s;
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_pd(LA__DLOAD4(x + i), LA__DLOAD4(y + i), s0);
    s1 = _mm256_fmadd_pd(LA__DLOAD4(x + i + 4), LA__DLOAD4(y + i + 4), s1);
    s2 = _mm256_fmadd_pd(LA__DLOAD4(x + i + 8), LA__DLOAD4(y + i + 8), s2);
    s3 = _mm256_fmadd_pd(LA__DLOAD4(x + i + 12), LA__DLOAD4(y + i + 12), s3);
  }
  for (; i + 4 <= n; i += 4)
    s0 = _mm256_fmadd_pd(LA__DLOAD4(x + i), LA__DLOAD4(y + i), s0);
  s = la__hsum_pd(_mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3)));
  for (; i < n; ++i) s += (double)x[i] * y[i];
  return s;
}
#undef LA__DLOAD4
#elif LA__SIMD == LINATTN_NEON && defined(__aarch64__)
static double la__dot_simd(int n, const la_real *x, const la_real *y) {
  float64x2_t s0 = vdupq_n_f64(0), s1 = s0, s2 = s0, s3 = s0;
  double s;
  int i = 0;
#ifndef LINATTN_DOUBLE
  for (; i + 8 <= n; i += 8) {
    float32x4_t x0 = vld1q_f32(x + i), y0 = vld1q_f32(y + i);
    float32x4_t x1 = vld1q_f32(x + i + 4), y1 = vld1q_f32(y + i + 4);
    s0 = vfmaq_f64(s0, vcvt_f64_f32(vget_low_f32(x0)), vcvt_f64_f32(vget_low_f32(y0)));
    s1 = vfmaq_f64(s1, vcvt_high_f64_f32(x0), vcvt_high_f64_f32(y0));
    s2 = vfmaq_f64(s2, vcvt_f64_f32(vget_low_f32(x1)), vcvt_f64_f32(vget_low_f32(y1)));
    s3 = vfmaq_f64(s3, vcvt_high_f64_f32(x1), vcvt_high_f64_f32(y1));
  }
#else
  for (; i + 8 <= n; i += 8) {
    s0 = vfmaq_f64(s0, vld1q_f64(x + i), vld1q_f64(y + i));
    s1 = vfmaq_f64(s1, vld1q_f64(x + i + 2), vld1q_f64(y + i + 2));
    s2 = vfmaq_f64(s2, vld1q_f64(x + i + 4), vld1q_f64(y + i + 4));
    s3 = vfmaq_f64(s3, vld1q_f64(x + i + 6), vld1q_f64(y + i + 6));
  }
#endif
  s = vaddvq_f64(vaddq_f64(vaddq_f64(s0, s1), vaddq_f64(s2, s3)));
  for (; i < n; ++i) s += (double)x[i] * y[i];
  return s;
}
#else
#define la__dot_simd la__dot_scalar
#endif

static double la__nrm2_simd(int n, const la_real *x) {
  return la__nrm2_from(la__dot_simd(n, x, x), n, x);
}
#endif /* LA__SIMD != LINATTN_SCALAR */

static const la_kernels la__kernels_scalar = {
    "scalar",         la__pgemm_scalar, la__dot_scalar, la__axpy_scalar,
    la__bgemm_scalar, la__scale_scalar, la__nrm2_scalar};
#if LA__SIMD != LINATTN_SCALAR
static const la_kernels la__kernels_simd = {
#if LA__SIMD == LINATTN_AVX2
    "avx2",
#elif defined(__aarch64__)
    "neon64",
#else
    "neon32",
#endif
    la__pgemm_simd, la__dot_simd,   la__axpy_simd,
    la__bgemm_simd, la__scale_simd, la__nrm2_simd};
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
  if (!A || !B || !C) return LA_ENULL;
  if (m <= 0 || n <= 0 || k <= 0 || npanels <= 0) return LA_EDIM;
  if (flags & ~(LA_TRANS_A | LA_TRANS_B | LA_ACCUMULATE)) return LA_ERANGE;
  if (alpha - alpha != 0) return LA_ENONFINITE; /* NaN or infinite */
  if ((double)m * n * LA_W > 2147483647.0 ||
      (double)m * k * LA_W > 2147483647.0 || (double)k * n * LA_W > 2147483647.0)
    return LA_EOVERFLOW;
  la_kernels_best()->bgemm(flags, m, n, k, alpha, A, a_stride, B, b_stride, C,
                           c_stride, npanels);
  return LA_OK;
}

/* ------------------------------------------------------ plain vectors */
/* n <= 0 or a null pointer is an empty vector: a sum of 0, nothing done. */

LINATTN_DEF double la_dot(int n, const la_real *x, const la_real *y) {
  return (n <= 0 || !x || !y) ? 0.0 : la_kernels_best()->dot(n, x, y);
}
LINATTN_DEF double la_nrm2(int n, const la_real *x) {
  return (n <= 0 || !x) ? 0.0 : la_kernels_best()->nrm2(n, x);
}
LINATTN_DEF void la_axpy(int n, la_real a, const la_real *x, la_real *y) {
  if (n > 0 && x && y) la_kernels_best()->axpy(n, a, x, y);
}
LINATTN_DEF void la_scale(int n, la_real a, la_real *x) {
  if (n > 0 && x) la_kernels_best()->scale(n, a, x);
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
