/* linattn.h - the linear-transformer optimization testbed in one C99 header.

   Trains and measures the L-layer linear-attention model on in-context linear
   regression, the testbed of Ahn et al., "Linear attention is (maybe) all you
   need (to understand transformer optimization)" (arXiv:2310.01082, paper A)
   and "Transformers learn to implement preconditioned gradient descent for
   in-context learning" (arXiv:2306.00297, paper B): exact gradients, Hessian
   products, optimizers and the papers' curvature measurements, on every lane
   of the vector unit, with no dependency but libm. MIT licence, at the end.

QUICK START: a complete program (cc -O2 -mavx2 -mfma run.c -lm)

   #define LINATTN_IMPLEMENTATION
   #include "linattn.h"
   #include <stdio.h>

   int main(void) {
     la_run_config cfg;
     la_run run;
     la_rcond rc;
     double start;
     // paper A's Setting 1 with Adam: d = 5, n = 20, L = 3, 1000 prompts
     la_run_preset(&cfg, "1", "adam");
     if (la_run_create(&run, &cfg, NULL) != LA_OK) return 1;
     la_trainer_eval(&run.trainer, &start);
     if (la_trainer_run(&run.trainer, 500) != LA_OK) return 1;
     // paper A's robust condition number R = max|H_ii| / median|H_ii|
     la_robust_cond(&run.model, run.trainer.theta, &run.trainer.eval, NULL,
                    &rc, NULL, 0);
     printf("eval loss %.4f -> %.4f, R %.3g, backend %s\n", start,
            run.trainer.last_eval, rc.by_diag, la_backend_name());
     la_run_destroy(&run);
     return 0;
   }

   LINATTN_IMPLEMENTATION goes in exactly one C or C++ file; every other file
   includes the header alone. (make test compiles and runs this sample.)

API OVERVIEW (the declarations below, part by part; the implementation
   follows in the same order)

   1. types, status codes      la_real, LA_OK and the LA_E* statuses,
      and kernels              la_status_str; batched products of tiny
                               matrices (la_kernels), the thread pool
                               (la_pool, la_parallel), la_backend_name
   2. random numbers, prompts  la_rng (Philox4x32-7), la_batch (panels of
                               LA_W prompts), la_data_config and
                               la_data_sample: the papers' data settings
   3. the model                la_model: loss, gradient, Hessian-vector
                               products, H V for k directions, the Hessian's
                               diagonal; named parameter blocks
   4. optimizers               la_optimizer and the registry (SGD, Adam/W,
                               sign, normalized SGD, Adagrad, RMSprop,
                               L-BFGS), clipping, learning-rate schedules
   5. diagnostics              eigensolvers, Lanczos, SLQ densities, traces,
                               robust condition numbers, directional
                               smoothness, gradient noise
   6. runs and checkpoints     la_trainer; la_run_config (a run described by
                               one field table: presets, resolve, explain),
                               la_run; la_run_measure (R, the spectrum,
                               smoothness, noise, the blocks' spectra along
                               a run, one key table); checkpoints with
                               bit-exact resume
   7. the research layer       paper B's in-context baselines, their tuners
                               and its Theorem 3 family (LINATTN_NO_RESEARCH
                               compiles it out)

OPTIONS (define before including)

   LINATTN_IMPLEMENTATION  emit the implementation in this translation unit.
   LINATTN_STATIC          make every function static (two libraries may then
                           embed the header without clashing symbols).
   LINATTN_DOUBLE          la_real is double instead of float, everywhere.
   LINATTN_SIMD            force a backend: LINATTN_SCALAR, LINATTN_AVX2,
                           LINATTN_AVX512, LINATTN_NEON or
                           LINATTN_WASM_SIMD128. Forcing one the
                           compiler cannot honour (for example LINATTN_AVX2
                           without -mavx2 -mfma; MSVC: /arch:AVX2) is a
                           compiler warning (MSVC: a #pragma message) and the scalar
                           backend is used instead.
   LINATTN_PANEL_BITS      the AVX-512 backend's model panels: 512 (the
                           default; two panels' lanes per 512-bit vector, for
                           cores with full-width 512-bit FMAs: Zen 5, server
                           Xeons) or 256 (AVX2's panels, for Zen 4, which
                           splits 512-bit FMAs into two halves). Either gives
                           the AVX2 build's bits. Other backends ignore it.
   LINATTN_MALLOC(sz, ctx) / LINATTN_FREE(p, ctx)
                           the allocator of the convenience layer; define both
                           or neither (defining one alone is a build error).
   LINATTN_NO_STDLIB       no malloc, no stdio: only the caller-owned-workspace
                           API is compiled (bare-metal boards); no built-in
                           thread pool (a host parallel-for still works).
   LINATTN_NO_THREADS      no built-in thread pool even where threads
                           exist (it is built on __unix__ and __APPLE__
                           hosts with gcc or clang, on POSIX threads: C
                           libraries older than glibc 2.34 then need
                           -pthread when linking; and on Windows, _WIN32,
                           with any compiler, on Win32 threads).
   LINATTN_NO_WIN32_FILES  on Windows, checkpoints saved with the C library
                           alone (see la_checkpoint_save); with it and
                           LINATTN_NO_THREADS the implementation does not
                           include <windows.h>.
   LINATTN_NO_RESEARCH     leave out part 7, the research layer.
   LINATTN_ASSERT(x)       internal consistency checks (default: nothing).
                           Argument errors never assert: they return a status.

SIMD

   The backend is chosen at compile time from the compiler's own macros:
   AVX-512 (__AVX512F__ and __AVX512VL__ with AVX2 and FMA), AVX2 with FMA
   (MSVC's /arch:AVX2, which enables FMA without saying so, counts), NEON
   (AArch64; ARMv7 with -mfpu=neon), WebAssembly SIMD128 (clang's
   -msimd128; no fused multiply-add), otherwise scalar; no run-time
   dispatch. la_backend_name() says which backend was compiled. An ARMv7-A
   build without NEON is a #warning (LINATTN_SIMD=LINATTN_SCALAR keeps the
   scalar backend without it). Many small
   matrices are processed at once: LA_W prompts form a panel (8 floats, 4
   doubles, whatever the backend, so data laid out on one machine means the
   same on every other) and element (i, j) of a panel's matrices is stored
   contiguously, so every per-prompt operation is a straight line of vector
   FMAs. The AVX-512 backend runs the linear-attention model (loss,
   gradient, Hessian products and diagonal; no front layer) on two panels
   at once, their 2 LA_W lanes in 512-bit vectors, each lane through the
   operations AVX2 runs on it and the gradient's lanes added into 256-bit
   sums panel after panel as AVX2 adds them, so its results are AVX2's bits
   (LINATTN_PANEL_BITS=256 keeps one panel at a time, for Zen 4, which
   splits 512-bit FMAs); the other models and the public kernels keep
   256-bit panels; it draws prompts on 512-bit lanes. On a Xeon with two
   512-bit FMA units the model runs 1.2x faster than AVX2's; Zen 4, Zen 5
   and Xeon cores: docs/performance.md.
   Every kernel has a scalar twin, always compiled (la_kernels_scalar),
   that each SIMD result is tested against.

DETERMINISM

   Within one build every function is a pure function of its arguments,
   whatever the number of threads. The random numbers and prompts are the
   same bits on every backend and machine for a given precision (golden
   vectors on x86-64, AArch64, ARMv7, RISC-V 64, WebAssembly and big-endian
   s390x). Results computed
   from +, -, *, /, sqrt and fused multiply-adds (the model's loss, gradient,
   HVP; the kernels) are the same on such hosts; those that call libm
   (schedules' pow and cos, some statistics) may differ in the last bit.
   Floating-point contraction is off for the whole implementation, so C and
   C++, gcc and clang, -O2 and -O3 compute the same bits. Requires IEEE-754
   float and double at their own precision and no -ffast-math. The full
   statement, with how each part was measured: docs/numerics.md.

RANDOM NUMBERS AND PROMPTS

   la_rng is Philox4x32-7, counter-based: any two (seed, stream) pairs give
   independent sequences, so runs, steps and prompts get their own stream by
   number (la_rng_seed(&r, seed, step)). Normals by Box-Muller from tables
   and polynomials (no libm), Gamma variates by Marsaglia and Tsang. Each
   panel of a batch draws from its own stretch of the stream, so prompt i of
   a batch is the same whatever the batch's size, and panels can be drawn in
   any order on any thread. Layout and accuracy: docs/numerics.md.

MEMORY

   Nothing is allocated behind your back. Functions that need scratch memory
   take (void *work, size_t bytes) with a size query next to them; the
   convenience layer allocates through LINATTN_MALLOC / LINATTN_FREE.
   Interleaved batches must be aligned to LA_ALIGN bytes (la_alloc does this).

THREAD SAFETY

   No global or static mutable state. Every function is reentrant; objects are
   not synchronized, so one object is used by one thread at a time. A model
   (or trainer) given a la_parallel is such an object too: its pool serves
   one call at a time.

More: README.md (the two commands, the program), docs/library.md (each part
in depth), docs/contributing.md (where to add an optimizer, a backend, a
field).
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

/* ================================================================== */
/*                API 1. Types, status codes, kernels                 */
/* ================================================================== */

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
#define LINATTN_AVX512 3
#define LINATTN_WASM_SIMD128 4

/* Status codes: LA_OK is zero, every error is negative, and they run
   without a gap from LA_OK down to LA_EUNSUPPORTED (a caller can list them:
   la_status_name is "" past the last). Each is written once, in this list:
   its code, its name and its message (la_status_str). */
#define LA_STATUS_LIST(X)                                                     \
  X(LA_OK, 0, "ok")                                                           \
  X(LA_ENULL, -1, "a required pointer is null")                               \
  X(LA_EDIM, -2, "a dimension is zero, negative or beyond its limit")         \
  X(LA_EOVERFLOW, -3, "a size computation would overflow")                    \
  X(LA_EWORKSPACE, -4, "the workspace is too small")                          \
  X(LA_ENOMEM, -5, "out of memory")                                           \
  X(LA_ERANGE, -6, "a configuration value is out of range")                   \
  X(LA_ENONFINITE, -7, "a NaN or infinity in the input")                      \
  X(LA_ENOTSPD, -8, "the matrix is not symmetric positive definite")          \
  X(LA_EDIVERGED, -9, "the loss or gradient became NaN or infinite")          \
  X(LA_EIO, -10, "reading or writing a file failed")                          \
  X(LA_EFORMAT, -11, "the file is not in the expected format")                \
  X(LA_EVERSION, -12, "the file has an unsupported format version")           \
  X(LA_ECHECKSUM, -13, "the file's checksum does not match")                  \
  X(LA_ESHAPE, -14, "the shape does not match")                               \
  X(LA_ENOCONVERGE, -15, "the iteration did not converge")                    \
  X(LA_EUNSUPPORTED, -16, "not supported by this build")
#define LA__STATUS_ENUM(name, code, message) name = (code),
enum { LA_STATUS_LIST(LA__STATUS_ENUM) };
#undef LA__STATUS_ENUM

/* Flags of the batched products. */
#define LA_TRANS_A 1u    /* use A^T */
#define LA_TRANS_B 2u    /* use B^T */
#define LA_ACCUMULATE 4u /* add to C instead of overwriting it */

/* ------------------------------------------------------------ functions */

LINATTN_DEF int la_version(void); /* LINATTN_VERSION_NUMBER of the build */
LINATTN_DEF const char *la_version_string(void);
LINATTN_DEF const char *la_status_str(int status);
/* The status's name as the enum above spells it ("LA_ERANGE"); "" for a
   value that is not a status. For messages and foreign callers. */
LINATTN_DEF const char *la_status_name(int status);
/* LINATTN_SCALAR, _AVX2, _AVX512, _NEON or _WASM_SIMD128 */
LINATTN_DEF int la_backend(void);
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
   pass over the batch). A, B and C must be LA_ALIGN-aligned and every
   stride a multiple of LA_W (LA_ERANGE otherwise: the SIMD kernels load
   whole aligned vectors); a stride other than 0 that is shorter than its
   operand's panel would make panels overlap (LA_EDIM). */
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
   itself with all its strides, one call for the whole batch. vexp is
   y = e^x element by element (n elements at any address; y may be x):
   within 1 ulp of e^x where that is a normal number (2 ulps on ARMv7
   without VFPv4), 0 where it would be subnormal or below (every backend
   flushes, as ARMv7 NEON does), +inf above the largest la_real, NaN for
   NaN. vexpn is e^x for x <= 0 alone, the softmax's arguments (each score
   less its column's largest; the model calls vexpn, or vexp in a table
   without it): the same flushing in fewer operations (15 vector
   operations in float against vexp's 26), within 2.2 ulps in float (0.91
   in double; see the exp section), undefined for x > 0. */
typedef struct la_kernels {
  const char *name; /* la_backend_name(): "scalar", "avx2", "avx512",
                       "neon64" or "neon32" */
  void (*pgemm)(unsigned flags, int m, int n, int k, la_real alpha,
                const la_real *A, const la_real *B, la_real *C);
  double (*dot)(int n, const la_real *x, const la_real *y);
  void (*axpy)(int n, la_real a, const la_real *x, la_real *y);
  void (*bgemm)(unsigned flags, int m, int n, int k, la_real alpha,
                const la_real *A, size_t a_stride, const la_real *B,
                size_t b_stride, la_real *C, size_t c_stride, int npanels);
  void (*scale)(int n, la_real a, la_real *x);
  double (*nrm2)(int n, const la_real *x);
  void (*vexp)(int n, const la_real *x, la_real *y);
  void (*vexpn)(int n, const la_real *x, la_real *y);
} la_kernels;
LINATTN_DEF const la_kernels *la_kernels_best(void);
LINATTN_DEF const la_kernels *la_kernels_scalar(void);

/* Aligned allocation for interleaved data (convenience layer). */
#ifndef LINATTN_NO_STDLIB
LINATTN_DEF void *la_alloc(size_t bytes);
LINATTN_DEF void la_free(void *p);
#endif

/* ------------------------------------------------------------ threads */
/* Functions that work on a batch (the model's loss, gradient and HVP, and
   through them the trainer and every diagnostic) split it over the
   workers of a la_parallel: a parallel-for that the caller hands in
   (OpenMP, TBB, its own pool) or the built-in pool's. The batch is cut
   into chunks of whole panels by its size alone, never by the number of
   workers; each chunk's sums are kept apart and added in chunk order, so
   the results are bit-identical for any number of workers, one included.

   run(ctx, ntasks, task, arg) must call task(arg, i, worker) once for
   every i in [0, ntasks), in any order and on any threads, and return
   when all have returned; worker is in [0, workers) and two calls that
   run at the same time have different workers (each worker has its own
   scratch memory). A task never calls run again. One la_parallel serves
   one call at a time. workers <= 1 means one thread: run is then never
   called. At most LA_MAX_WORKERS. */
#define LA_MAX_WORKERS 1024
typedef void (*la_task_fn)(void *arg, int task, int worker);
typedef struct la_parallel {
  int workers; /* threads that may run tasks at once */
  void (*run)(void *ctx, int ntasks, la_task_fn task, void *arg);
  void *ctx; /* passed to run */
} la_parallel;

/* The built-in pool: threads - 1 threads of its own beside the caller's,
   which takes its share of every job (threads 0 or 1: no thread at all).
   A worker that waits spins for a few microseconds, then sleeps on a
   condition variable, so a machine busier than the pool has cores loses
   little. Built on POSIX hosts (__unix__, __APPLE__) with gcc or clang
   (POSIX threads) and on Windows (Win32 threads, SRW locks and condition
   variables) unless LINATTN_NO_THREADS is defined; elsewhere threads > 1
   is LA_EUNSUPPORTED. LA_ERANGE for threads < 0 or beyond
   LA_MAX_WORKERS, LA_ENOMEM when memory or a thread could not be had.

   la_cpu_count is the number of CPUs this process may use, the default of
   every thread count (the `linattn` command's, Python's): the processors
   of its affinity mask (Linux: sched_getaffinity where the including
   file's dialect declares it, else the mask /proc/self/status lists;
   Windows: GetProcessAffinityMask, its processor group's; other hosts:
   the online processors), bounded by its cgroup's CPU quota
   (cgroup v2: cpu.max of its cgroup and of each one above it; v1:
   cpu.cfs_quota_us / cpu.cfs_period_us; rounded up), and by
   SLURM_CPUS_PER_TASK and OMP_NUM_THREADS (its first number) where they
   hold a positive number: a Slurm task given 1 CPU on a 64-core node, or
   a job started with OMP_NUM_THREADS=1 beside others, does not
   oversubscribe. At least 1 (1 where threads are not built), at most
   LA_MAX_WORKERS. */
#ifndef LINATTN_NO_STDLIB
typedef struct la_pool la_pool;
LINATTN_DEF int la_pool_create(la_pool **pool, int threads);
LINATTN_DEF void la_pool_destroy(la_pool *pool);
LINATTN_DEF const la_parallel *la_pool_parallel(const la_pool *pool);
#endif
LINATTN_DEF int la_cpu_count(void);

/* ================================================================== */
/*                 API 2. Random numbers and prompts                  */
/* ================================================================== */

/* ------------------------------------------------------------ the RNG */
/* A seedable generator in a caller-owned state, with independent streams
   selected by `stream` (see RANDOM NUMBERS above). */
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
/* Gamma(shape k, scale theta) for every k > 0: mean k theta. The tries
   are those of Setting 3's radii (see RANDOM NUMBERS): from the next block
   boundary quad after quad of blocks, the stream moving past the quad of
   the accepted try (16 words at least); the value d (1 + t)^3 U^(1/k)
   theta is then formed in double from the float try t and -2 ln U, so
   that the variates carry float resolution (about 1e-7 of their spread),
   and U^(1/k) a relative error near 6e-8 ln(1/U)/k. Shapes whose spread
   is below double's resolution (k above 1.5e35) give (k - 1/3) theta.
   LA_ENONFINITE for a NaN or Inf k or theta, LA_ERANGE for k or theta
   <= 0 or a variate beyond double (r is then left as it was). */
LINATTN_DEF int la_rng_gamma(la_rng *r, double k, double theta, double *g);
/* A point uniform on the unit sphere S^{d-1} of R^d. */
LINATTN_DEF int la_rng_sphere(la_rng *r, int d, la_real *x);
/* A Haar-distributed orthogonal d x d matrix q (row-major), d <= LA_MAX_D. */
LINATTN_DEF int la_rng_orthogonal(la_rng *r, int d, double *q);

/* ---------------------------------------------------------- a batch */
/* A batch of prompts in the interleaved layout. z holds
   la_panels(count) panels of (d+1) x (n+1) matrices Z0 = [[x_1..x_n x_q],
   [y_1..y_n 0]]; y holds la_panels(count) panels of 1 real, the targets y_q.
   Padding lanes are zero. z and y must be LA_ALIGN-aligned (the model
   refuses others with LA_ERANGE). la_batch_init lays a batch into the
   caller's memory (LA_ALIGN-aligned, la_batch_bytes long; LA_ERANGE if not
   aligned); la_batch_create allocates it, and la_batch_destroy frees only
   what la_batch_create allocated (a batch over caller memory, or a struct
   filled by hand, is left to its owner). */
#define LA_MAX_D 256  /* largest covariate dimension d */
#define LA_MAX_N 4096 /* largest context length n */
typedef struct la_batch {
  int d, n, count;
  la_real *z;
  la_real *y;
  void *owned; /* la_batch_create's block, or NULL */
} la_batch;
LINATTN_DEF size_t la_batch_bytes(int d, int n, int count);
LINATTN_DEF int la_batch_init(la_batch *b, int d, int n, int count, void *mem,
                              size_t bytes);
#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_batch_create(la_batch *b, int d, int n, int count);
LINATTN_DEF void la_batch_destroy(la_batch *b);
#endif
/* The prompts of b in the token layout of paper A's code: tokens[i] for
   prompt i is (n+1) x (d+1) row-major, row j the token [x_j, y_j], the
   query's row [x_q, 0], and y[i] its target y_q (doubles, so that a file
   of either precision reads into either build). put fills b from them
   (the query's label slot must be 0: LA_ERANGE; a NaN or infinity:
   LA_ENONFINITE, b untouched); get writes them (either may be NULL). */
LINATTN_DEF int la_batch_put_tokens(la_batch *b, const double *tokens,
                                    const double *y);
LINATTN_DEF int la_batch_get_tokens(const la_batch *b, double *tokens,
                                    double *y);

/* ------------------------------------------------- the data settings */
/* A data setting is a description (la_data_config, zero fields = defaults) turned
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
   an invalid description. la_data_init: LA_EDIM (d, n, net_hidden),
   LA_ERANGE (an unknown kind, a negative Gamma parameter, noise_std < 0 or
   beyond la_real, a given Sigma whose Cholesky factor or, for w* ~
   N(0, Sigma^-1), its inverse overflows la_real, and any description whose
   batches could hold a value beyond la_real: the bounds follow from the
   generator's cut of every normal at 6.57 - covariates, w*, the target
   network's units and the labels with their noise, with a margin of 4 -
   and Gamma radii, formed in float, must stay below 1e25, i.e.
   gamma_scale (a - 1/3) (1 + 6.57/sqrt(9 a - 3))^3 <= 1e50 with a = k,
   or k + 1 below 1), LA_ENONFINITE (those values or sigma_matrix),
   LA_ENULL (LA_SIGMA_GIVEN without sigma_matrix), LA_ENOTSPD (a given
   Sigma not symmetric positive definite), LA_EWORKSPACE; g is written only
   on success. */
LINATTN_DEF size_t la_data_bytes(const la_data_config *cfg);
LINATTN_DEF int la_data_init(la_data *g, const la_data_config *cfg,
                             uint64_t seed, void *mem, size_t bytes);
#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_data_create(la_data *g, const la_data_config *cfg,
                               uint64_t seed);
LINATTN_DEF void la_data_destroy(la_data *g);
#endif
/* Fill every prompt of b (b->d, b->n must match the setting: LA_ESHAPE)
   from rng, each panel from its own stretch of the stream (DATA SETTINGS);
   LA_EDIM for b->count <= 0, LA_ENULL for a generator that la_data_init
   did not fill, LA_ERANGE (nothing drawn) when rng's stream has no room
   left for the batch's panels. */
LINATTN_DEF int la_data_sample(const la_data *g, la_rng *rng, la_batch *b);


/* ================================================================== */
/*                          API 3. The model                          */
/* ================================================================== */

/* ------------------------------------------------------------ the model

   A prompt Z0 is (d+1) x (n+1), tokens z_1 .. z_{n+1} as columns, the
   last the query; with M = diag(1, .., 1, 0) each layer does
       Z_{l+1} = Z_l + (1/n) sum_{h < H} P_{l,h} Z_l M act(Z_l^T Q_{l,h} Z_l)
   with H heads per layer (the reference code's n_head: outputs summed,
   each with its 1/n), the prediction is -[Z_L]_{d+1,n+1} and the loss is
   the mean over the batch of ([Z_L]_{d+1,n+1} + y_q)^2. An optional front
   layer x <- W2 relu(W1 x + b1) + b2 (h hidden units) acts on the x-part
   of every token, query included, before layer 0.

   ACTIVATIONS. act acts on the score matrix A = Z^T Q Z, whose entry
   a_ij = z_i^T Q z_j scores key i for token j, before the sum over keys
   (where the reference code of paper A hooks its activation); M keeps the
   n keys i <= n and drops the query, which is no key.
     LA_ACT_LINEAR   act = identity: the papers' model.
     LA_ACT_RELU     act = max(0, a) entrywise (paper B, Theorem 5).
     LA_ACT_SOFTMAX  every token j weighs the n keys by a softmax over
                     them: s_ij = e^{a_ij} / sum_{k <= n} e^{a_kj}, i <= n,
                     so its weights sum to one; the layer adds
                     (1/n) sum_h P_h K S_h (K: the n key columns of Z).
                     The 1/n stays, as the reference code keeps its /N
                     after the activation, and there is no other
                     temperature: the scores are z_i^T Q z_j as they are
                     (no 1/sqrt(d)), so Q's scale is the inverse
                     temperature and P's absorbs the 1/n (P -> n P undoes
                     it). The query is masked inside the softmax (its
                     score as -inf). Read literally, P Z M act(Z^T Q Z)
                     applies act to all n+1 rows and M drops the query's
                     row afterwards, and so does the reference code
                     (softmax over dim 2, all n+1 tokens, then its mask):
                     there the query's own score takes part in every
                     normalization although the query is no key, and the
                     n key weights sum to less than one. Here they sum to
                     one, which is the softmax over the keys the model
                     means. Each column's largest score is subtracted
                     before e^x (the kernel table's vexp), which changes
                     nothing but leaves no overflow for any finite scores;
                     a weight below the smallest normal la_real is 0.
   Every activation works with every parametrization, head count, factored
   Q and the front layer.

   KEYS AND QUERIES. qk_rank = r > 0 trains Q's free block as the product
   of two r-row factors, Q = W_K^T W_Q: a_ij = (W_K z_i) . (W_Q z_j). Dense:
   W_K, W_Q are r x D, 1 <= r <= D. Sparse and pgd: Q's last row and column
   are fixed at zero, so only A = W_K^T W_Q is factored, W_K, W_Q r x d,
   1 <= r <= d (a factor of the whole Q would have to keep a zero column:
   the same thing). r = 0 trains Q (or A) itself.

   THE PACKING OF THETA (D = d+1, all matrices row-major), per layer
   l = 0 .. L-1 in order and within it per head h = 0 .. H-1 (the
   reference code's allparam[l, h]), then the front layer:
     LA_PARAM_DENSE   P (D x D), Q (D x D)                      2 D^2 per head
     LA_PARAM_SPARSE  B (d x d), A (d x d), where
                      P = [[B, 0], [0, 1]], Q = [[A, 0], [0, 0]]
                                                                2 d^2 per head
     LA_PARAM_PGD     A (d x d); P = [[0, 0], [0, 1]], Q as above
                                                                  d^2 per head
   and with qk_rank = r > 0, W_K then W_Q in the place of Q (or A):
     LA_PARAM_DENSE   P (D x D), W_K (r x D), W_Q (r x D)   D^2 + 2 r D per head
     LA_PARAM_SPARSE  B (d x d), W_K (r x d), W_Q (r x d)   d^2 + 2 r d per head
     LA_PARAM_PGD     W_K (r x d), W_Q (r x d)                  2 r d per head
     front (h > 0)    W1 (h x d), b1 (h), W2 (d x h), b2 (d)
   la_model_blocks lists these matrices (offset, size) in the same order,
   one block per matrix. With one head and a merged Q (the defaults) this
   is one P, Q pair per layer.

   BATCHES AND THREADS. Loss, gradient and Hessian-vector product are means
   over the b->count prompts of b. The batch is cut into at most 64 chunks
   of at least 8 panels each (fewer when the dense P_l, Q_l and the front
   layer hold more than 65536 reals), by its panel count alone; a chunk's
   sums are folded
   into double and the chunks' added in order, so that cfg.parallel's
   workers share the chunks with bit-identical results whatever their
   number. The workspace holds one panel's scratch per worker, and with
   more than one worker a partial sum per chunk. A batch may also be split
   by the caller into views of whole panels (z and y advanced by whole
   panels, count reduced) and combined with weights count_i / sum count_i:
   that result equals the whole batch's up to rounding.

   COST (per prompt, linear attention). The products are associated so that
   n appears once per product: S = Z M Z^T, then P S Q (D x D), then
   (P S Q) Z; the last layer computes only the entry the loss reads. At the
   base setting (L = 3, d = 5, n = 20) a gradient costs about 2-2.5 forward
   passes (la_model_loss), a Hessian-vector product about 5-6: its tangent
   doubles every product of the gradient except where the data enter (layer
   0, without a front layer). la_model_hmp runs the forward and backward
   steps once for its k directions: each further direction costs the
   tangents alone, about 1.6 gradients at the base setting against the
   HVP's 2.6. S is shared by the heads: each further head
   adds only its D x D products (about 2 D^3 forward and 5 D^3 backward per
   hidden layer, 3 D^2 in the last), no pass over the keys.
   ReLU and softmax attention cannot be associated this way: a hidden
   layer forms each head's n x (n+1) scores and their weighted sum, about
   2 D n^2 + 2 D^2 n multiply-adds forward and twice that backward per
   head; the last layer takes only the query's column of the scores,
   O(D n) per head. Softmax adds n (n+1) exponentials per head and hidden
   layer (n in the last), forward only: the backward step and the tangents
   reuse the weights. A factored Q costs nothing per prompt: the model runs
   on the product W_K^T W_Q, formed once per call, and the gradient is
   contracted through it once per call (O(r D^2) per head). At the base
   setting (sparse, bench/bench_model.c) four heads cost about 2.2 times
   one head's gradient (2.3 times its HVP), rank-2 keys and queries the
   same as a merged Q, ReLU attention about 3.5 times the linear model's
   gradient and softmax about 5.8 times (about 5 times its HVP): 4.2 times
   the linear model's multiply-adds; its exponential (vexpn) and its
   passes over the weights take about 40% of its gradient. The
   workspace holds every layer's values of one panel: about
   (L+1) (n+1)(d+1) LA_W reals twice, plus per layer (2 + H) D^2 LA_W
   (linear) or H ((n+1)(2n + D) + n D) LA_W (ReLU, softmax), twice, what
   the backward step keeps for the tangents, and per direction of
   la_model_hmp two expanded parameter vectors of LA_W lanes.

   FAILURES. LA_ENULL (null pointer), LA_ESHAPE (batch d or n differ from
   the model's), LA_EDIM (empty batch), LA_EWORKSPACE (work too small),
   LA_ENONFINITE (NaN or Inf in theta, v, or the data of a valid prompt),
   LA_EDIVERGED (finite inputs, but the loss or a result overflowed),
   LA_ENOMEM (the allocating form could not allocate), LA_ERANGE (a model
   la_model_init did not make, or a host parallel-for that skipped a task
   or named a worker out of range), LA_EOVERFLOW (a workspace beyond
   size_t: 32-bit hosts at the largest sizes). Checks come before any
   output is written, except that pred may already hold the predictions of
   other panels than one whose data are not finite (the first such panel,
   in batch order, decides the status); with LA_EDIVERGED the loss and
   results are written as computed. */

enum { LA_PARAM_SPARSE = 0, LA_PARAM_DENSE = 1, LA_PARAM_PGD = 2 };
/* The front MLP's initial weights and biases: U(-1/sqrt(fan_in),
   1/sqrt(fan_in)) each, as PyTorch's nn.Linear (paper A's code), or
   N(0, init_std^2) as the attention's. */
enum { LA_FRONT_UNIFORM = 0, LA_FRONT_NORMAL = 1 };
enum { LA_ACT_LINEAR = 0, LA_ACT_RELU = 1, LA_ACT_SOFTMAX = 2 };

/* Zero means the documented default. */
typedef struct la_model_config {
  int d, n;                  /* covariate dimension, context length (required) */
  int layers;                /* L; 0 -> 3; at most LA_MAX_LAYERS */
  int param;                 /* LA_PARAM_*; 0 -> sparse */
  int activation;            /* LA_ACT_*; 0 -> linear */
  int heads;                 /* H heads per layer; 0 -> 1; at most
                                LA_MAX_HEADS */
  int qk_rank;               /* r: Q = W_K^T W_Q, factors of r rows; 0 ->
                                Q trained as one matrix; else 1..d+1
                                (dense) or 1..d (sparse, pgd) */
  int front_hidden;          /* width h of the front MLP; 0 -> none */
  double init_std;           /* 0 -> 0.05; at most la_real's largest value
                                / 8 */
  int front_init;            /* LA_FRONT_*: the front MLP's initialization;
                                0 -> uniform */
  const la_kernels *kernels; /* NULL -> la_kernels_best() */
  const la_parallel *parallel; /* threads for a batch; NULL -> one */
} la_model_config;

#define LA_MAX_LAYERS 64
#define LA_MAX_HEADS 64
#define LA_MAX_HIDDEN 4096

typedef struct la_model {
  la_model_config cfg; /* defaults filled in */
  int nparams;         /* length of theta */
} la_model;

/* LA_ERANGE for a configuration out of range (init_std <= 0 or non-finite
   included, and softmax with a kernel table that has no vexp), LA_EDIM
   for d or n, LA_EOVERFLOW when the workspace would not
   fit size_t (32-bit hosts); m is written only on success. */
LINATTN_DEF int la_model_init(la_model *m, const la_model_config *cfg);
/* The attention's parameters ~ N(0, init_std^2) entrywise from the stream
   of rng: theta[i] = init_std * la_rng_normal(rng), i = 0, 1, .. in order;
   then the front MLP's W1, b1 (fan-in d) and W2, b2 (fan-in h) as
   front_init says: (2 la_rng_uniform(rng) - 1) / sqrt(fan_in) each, or
   normals as the attention's. */
LINATTN_DEF int la_model_init_params(const la_model *m, la_rng *rng,
                                     la_real *theta);
/* The parameter matrices in theta: up to max (offset, size) pairs; returns
   their number (per-matrix clipping uses it), or a negative status. */
LINATTN_DEF int la_model_blocks(const la_model *m, int *offsets, int *sizes,
                                int max);
/* Block i of la_model_blocks by name and shape: *name the matrix's name in
   the packing above ("P", "Q", "B", "A", "W_K", "W_Q", "W1", "b1", "W2",
   "b2"), *layer and *head where it stands (-1 and -1 for the front layer),
   *rows x *cols its shape, row-major (a vector b1, b2: cols 1). Every
   output may be NULL. Returns the block's offset in theta, LA_ERANGE for i
   outside 0 .. la_model_blocks' count - 1 or a model la_model_init did not
   make, LA_ENULL for no model. */
LINATTN_DEF int la_model_block_info(const la_model *m, int i, const char **name,
                                    int *layer, int *head, int *rows,
                                    int *cols);
/* Workspace for one call of loss, grad or hvp with cfg.parallel's workers;
   independent of batch size. Any byte alignment will do. 0 for an invalid
   model, or one whose workspace does not fit size_t. */
LINATTN_DEF size_t la_model_work_bytes(const la_model *m);
/* work == NULL with bytes == 0: the call allocates (and frees) its own.
   loss and pred may be NULL; pred (if given) receives b->count plain
   predictions -[Z_L]_{d+1,n+1}, one per prompt in batch order. */
LINATTN_DEF int la_model_loss(const la_model *m, const la_real *theta,
                              const la_batch *b, double *loss, la_real *pred,
                              void *work, size_t bytes);
/* grad (nparams) = d loss / d theta; loss may be NULL. */
LINATTN_DEF int la_model_grad(const la_model *m, const la_real *theta,
                              const la_batch *b, double *loss, la_real *grad,
                              void *work, size_t bytes);
/* The loss and (grad not NULL) its gradient on `count` prompts drawn from
   g at rng's position, each panel drawn where it is consumed, on the
   workers of cfg.parallel: the same bits as la_data_sample into a batch of
   `count` and then la_model_grad (or la_model_loss), without the batch's
   memory or its trip through the caches. rng moves as la_data_sample
   moves it, when every prompt was drawn (LA_OK, LA_EDIVERGED). Statuses
   as la_data_sample's and la_model_grad's (LA_ESHAPE: g and the model
   differ in d or n). The workspace is la_model_work_bytes(m). */
LINATTN_DEF int la_model_grad_fresh(const la_model *m, const la_real *theta,
                                    const la_data *g, la_rng *rng, int count,
                                    double *loss, la_real *grad, void *work,
                                    size_t bytes);
/* hv = H(theta) v, exact (forward-over-reverse); loss and grad may be NULL. */
LINATTN_DEF int la_model_hvp(const la_model *m, const la_real *theta,
                             const la_batch *b, const la_real *v, double *loss,
                             la_real *grad, la_real *hv, void *work,
                             size_t bytes);
/* H(theta) V for k directions in one pass over the batch: the rows of v
   (k x nparams, row-major) are the directions, the rows of hv their
   products. Each panel is loaded once and its forward and backward steps
   run once; only the tangents are per direction. Row i of hv is bit for
   bit la_model_hvp's of row i of v (the same chunks, the same sums, in
   the same order). loss and grad may be NULL. k < 1 is LA_EDIM; a NaN or
   Inf in any row of v LA_ENONFINITE; otherwise as la_model_hvp. The
   workspace, la_model_hmp_work_bytes(m, k), grows with k by about two
   expanded parameter vectors of LA_W lanes per direction (per worker for
   the lane-wise sums; four on the AVX-512 backend's wide panels); k = 1 is
   la_model_work_bytes. */
LINATTN_DEF size_t la_model_hmp_work_bytes(const la_model *m, int k);
LINATTN_DEF int la_model_hmp(const la_model *m, const la_real *theta,
                             const la_batch *b, int k, const la_real *v,
                             double *loss, la_real *grad, la_real *hv,
                             void *work, size_t bytes);


/* ================================================================== */
/*                         API 4. Optimizers                          */
/* ================================================================== */

/* ---------------------------------------------------------- optimizers */
/* An optimizer works on the flat parameter vector theta (n reals). Its state
   is an array of doubles: double so that second-moment sums and momenta do
   not lose the small updates a float would round away, and a plain array so
   that checkpoints can write it in a defined byte order.

   The interface is public: the built-in optimizers are values of this type,
   and a new one is a struct of four functions (see examples/).
     check      LA_OK, or LA_ERANGE for a bad configuration
     state_len  doubles of state for n parameters (0 is fine)
     init       set the state before the first step
     step       write the update u (theta_new = theta + u) for gradient g;
                lr_scale multiplies the configured learning rate (it is
                how the schedules act). Must not modify theta or grad.
   cfg may be NULL: every built-in then uses its all-default configuration,
   as for a zeroed struct. An optimizer that evaluates the objective again
   within a step (L-BFGS) is a la_closure_optimizer, below; one that reads
   an estimate of the Hessian's diagonal (Sophia) asks for it through its
   registry row (la_optim_curvature, below). */
#define LA_NAME_MAX 32 /* an optimizer's name, its NUL included */
typedef struct la_optimizer {
  const char *name; /* written into checkpoints: at most 31 bytes
                       (LA_NAME_MAX - 1), or la_optim_check refuses it */
  int (*check)(const void *cfg);
  size_t (*state_len)(const void *cfg, int n);
  int (*init)(const void *cfg, int n, double *state);
  int (*step)(const void *cfg, int n, double *state, double lr_scale,
              const la_real *theta, const la_real *grad, la_real *update);
} la_optimizer;

/* One configuration type serves every built-in; each reads the fields its
   registry entry names (la_optim_entry.fields) and a built-in given another
   field that is not zero refuses it (LA_ERANGE): a setting meant for
   another optimizer is a mistake, not a no-op. Zero means the optimizer's
   default (its entry's `defaults`); LA_ZERO, a negative zero, says zero
   itself where the default is not zero (beta1 = LA_ZERO: Adam without
   first-moment averaging). Negative or non-finite learning rates, betas
   and alpha outside [0, 1), eps < 0 and weight decay < 0 are LA_ERANGE.

     sgd      b = momentum b + (g + wd theta); u = -lr b, or with Nesterov
              u = -lr (g + wd theta + momentum b). Paper A: momentum 0.9.
     adam     Adam with bias correction; decoupled != 0 is AdamW (decay
              applied to theta directly, u -= lr wd theta). Paper A:
              beta1 = beta2 = 0.9, eps = 1e-8; paper B's code: beta1 = 0.99.
     sign     b = momentum b + (g + wd theta); u = -lr sign(b).
     nsgd     the same b; u = -lr b / ||b||_2 (0 if b = 0).
     adagrad  G += g^2; u = -lr g / (sqrt(G) + eps), G starting at initial.
     rmsprop  v = alpha v + (1 - alpha) g^2; s = g / (sqrt(v) + eps);
              b = momentum b + s; u = -lr b (u = -lr s without momentum).
     lbfgs    L-BFGS, a closure optimizer (below): lr, history, max_iter,
              max_eval, tol_grad, tol_change, line_search, c1, c2, max_ls.
     lion     Lion (Chen et al. 2023, Algorithm 2): c = beta1 m + (1 - beta1)
              g; u = -lr (sign(c) + wd theta); m = beta2 m + (1 - beta2) g.
              Defaults lr 1e-4, beta1 0.9, beta2 0.99.
     sfadamw  schedule-free AdamW (Defazio et al. 2024, Algorithm 1, as its
              reference implementation with r = 0 and weight_lr_power 2):
              theta is y, the point where gradients are taken; z the base
              sequence, x their weighted average, y = (1 - beta1) z +
              beta1 x. v = beta2 v + (1 - beta2) g^2; lr_t = lr
              sqrt(1 - beta2^t) (the schedule's factor included); c_t =
              max_lr^2 / sum max_lr^2 (max_lr the largest lr_t so far);
              z -= lr_t (g / (sqrt(v) + eps) + wd y); x = (1 - c_t) x +
              c_t z. Defaults lr 0.0025, beta1 0.9, beta2 0.999, eps 1e-8.
     muon     Muon (Jordan et al. 2024, its reference implementation), per
              weight matrix (model's blocks with two or more rows and
              columns): b = momentum b + (1 - momentum) g, the Nesterov
              direction (1 - momentum) g + momentum b orthogonalized by five
              steps of the quintic Newton-Schulz iteration (3.4445, -4.7750,
              2.0315, after scaling to Frobenius norm 1; in la_real), times
              sqrt(max(1, rows / cols)); u = -lr (O + wd theta). Every other
              entry (vectors; all of theta without a model) is Adam with
              bias correction at lr_aux, beta1, beta2, eps, the same decay
              decoupled. Defaults lr 0.02, momentum 0.95, beta1 0.9, beta2
              0.95, eps 1e-10, lr_aux 3e-4.
     adafactor  Adafactor (Shazeer and Stern 2018, Algorithms 4 and 5 with
              update clipping d = 1 and relative step sizes): per weight
              matrix R and C, the row and column sums of the averaged
              g^2 + eps (beta2_t = 1 - t^-0.8), V = R C / sum R; for a vector
              (all of theta without a model) the average itself; U = g /
              sqrt(V), scaled down to RMS(U) <= 1; alpha_t = max(1e-3,
              RMS(theta's block)) min(lr, 1 / sqrt(t)) (the schedule's
              factor included); u = -alpha_t U, or with beta1 > 0 the
              average m = beta1 m + (1 - beta1) U in its place. Defaults lr
              1e-2 (the relative step's cap), beta1 0 (none), eps 1e-30.
     shampoo  Shampoo (Gupta et al. 2018, Algorithm 1) per weight matrix G:
              L += G G^T, R += G^T G from eps I; u = -lr L^-1/4 G R^-1/4,
              the roots (eigendecompositions, eigenvalues below eps read
              as eps) recomputed at steps 1, 1 + precond_every, ...; a
              vector: diagonal Adagrad, u = -lr g / sqrt(eps + sum g^2).
              Defaults lr 0.01, eps 1e-4, precond_every 10.
     soap     SOAP (Vyas et al. 2024, Algorithm 3, full eigendecompositions)
              per weight matrix: M = beta1 M + (1 - beta1) G; with Q_L, Q_R
              the eigenvectors of L, R: G' = Q_L^T G Q_R, V = beta2 V +
              (1 - beta2) G'^2, N' = (Q_L^T M Q_R / c1) / (sqrt(V / c2) +
              eps) (c1, c2 Adam's bias corrections), u = -lr Q_L N' Q_R^T;
              then L = beta2 L + (1 - beta2) G G^T, R likewise, and at
              every multiple of precond_every steps Q_L, Q_R recomputed
              (the identity before: Adam). A vector: Adam. Defaults lr
              3e-3, beta1 = beta2 = 0.95, eps 1e-8, precond_every 10.
     sophia   Sophia (Liu et al. 2023, Algorithm 3): m = beta1 m + (1 -
              beta1) g; at steps 1, 1 + k, 1 + 2k, ... (k = precond_every)
              h = beta2 h + (1 - beta2) h_hat, h_hat an estimate of the
              Hessian's diagonal on the step's batch at theta (`hessian`,
              LA_HESS_*: below, la_optim_curvature); u = -lr (wd theta +
              clip(m / max(gamma h, eps), 1)), clip elementwise to [-1, 1]
              (h starts at 0, no bias correction). eps must be > 0.
              Defaults lr 1e-4, beta1 0.96, beta2 0.99, eps 1e-12, gamma
              0.01, precond_every 10, hessian hutchinson.
   The matrix optimizers (muon, adafactor, shampoo, soap) see theta's
   weight matrices through `model` (la_model_block_info; its nparams must
   be n, else a step is LA_ESHAPE): the trainer sets it from its own model
   when the configuration leaves it NULL. It is not a field of a run. */
#define LA_ZERO (-0.0)
typedef struct la_optim_config {
  double lr;           /* every one */
  double momentum;     /* sgd, sign, nsgd, rmsprop; 0 -> none */
  int nesterov;        /* sgd: nonzero = Nesterov momentum (needs momentum) */
  double beta1, beta2; /* adam */
  double eps;          /* adam, adagrad, rmsprop */
  double weight_decay; /* every one; 0 -> none */
  int decoupled;       /* adam: nonzero = AdamW */
  double alpha;        /* rmsprop: the average's decay */
  double initial;      /* adagrad: the starting value of G */
  /* lbfgs (see la_optimizer_lbfgs for what each does) */
  int history;         /* pairs kept; 0 -> 100; at most 1 << 20 */
  int max_iter;        /* inner iterations per step; 0 -> 20; <= 1 << 24 */
  int max_eval;        /* evaluations per step; 0 -> max_iter * 5 / 4 */
  double tol_grad;     /* 0 -> 1e-7 */
  double tol_change;   /* 0 -> 1e-9 */
  int line_search;     /* LA_LS_*; 0 -> none (steps of length lr) */
  double c1, c2;       /* strong-Wolfe constants, 0 < c1 < c2 < 1;
                          0 -> 1e-4, 0.9 */
  int max_ls;          /* evaluations per line search; 0 -> 25 */
  double lr_aux;       /* muon: Adam's learning rate off the matrices */
  int precond_every;   /* shampoo, soap: steps between eigendecompositions;
                          sophia: between Hessian estimates; 0 -> 10; at
                          most 1 << 20 */
  double gamma;        /* sophia: the Hessian's scale in the ratio */
  int hessian;         /* sophia: its estimator, LA_HESS_*; 0 -> hutchinson */
  const la_model *model; /* muon, adafactor: theta's matrices; NULL ->
                            theta is one vector */
} la_optim_config;

/* The fields of la_optim_config, as bits of la_optim_entry.fields. */
enum {
  LA_OPT_LR = 1 << 0,
  LA_OPT_MOMENTUM = 1 << 1,
  LA_OPT_NESTEROV = 1 << 2,
  LA_OPT_BETA1 = 1 << 3,
  LA_OPT_BETA2 = 1 << 4,
  LA_OPT_EPS = 1 << 5,
  LA_OPT_WEIGHT_DECAY = 1 << 6,
  LA_OPT_DECOUPLED = 1 << 7,
  LA_OPT_ALPHA = 1 << 8,
  LA_OPT_INITIAL = 1 << 9,
  LA_OPT_HISTORY = 1 << 10,
  LA_OPT_MAX_ITER = 1 << 11,
  LA_OPT_MAX_EVAL = 1 << 12,
  LA_OPT_TOL_GRAD = 1 << 13,
  LA_OPT_TOL_CHANGE = 1 << 14,
  LA_OPT_LINE_SEARCH = 1 << 15,
  LA_OPT_C1 = 1 << 16,
  LA_OPT_C2 = 1 << 17,
  LA_OPT_MAX_LS = 1 << 18,
  LA_OPT_LR_AUX = 1 << 19,
  LA_OPT_PRECOND_EVERY = 1 << 20,
  LA_OPT_GAMMA = 1 << 21,
  LA_OPT_HESSIAN = 1 << 22
};

/* The registry of built-in optimizers: one row each, the only place where
   the set is written down (programs list, look up and describe optimizers
   from it). */
typedef struct la_curvature la_curvature; /* below */
typedef struct la_optim_entry {
  const la_optimizer *optimizer;
  unsigned fields;          /* the LA_OPT_* fields it reads */
  la_optim_config defaults; /* what a zero field means */
  const char *about;        /* one line */
  /* an optimizer that reads an estimate of the Hessian's diagonal (sophia):
     what its coming step asks for (la_optim_curvature); NULL for those
     that read the gradient alone */
  int (*curvature)(const void *cfg, int n, double *state,
                   la_curvature *req);
} la_optim_entry;
/* Row i (0 <= i < la_optim_count()), or NULL. */
LINATTN_DEF int la_optim_count(void);
LINATTN_DEF const la_optim_entry *la_optim_entry_at(int i);
/* The row named `name` (the optimizer's name), or NULL. */
LINATTN_DEF const la_optim_entry *la_optim_find(const char *name);
/* The row of a built-in optimizer, or NULL for one defined elsewhere. */
LINATTN_DEF const la_optim_entry *la_optim_entry_of(const la_optimizer *o);
/* in with every default written out: a field the optimizer reads that is
   zero becomes its default, or stays zero (+0 where the default is zero,
   LA_ZERO where it is not) when it was LA_ZERO; fields it does not read
   must be zero (LA_ERANGE). Two configurations that mean the same are
   then equal field by field. in == out is allowed. */
LINATTN_DEF int la_optim_resolve(const la_optim_entry *e,
                                 const la_optim_config *in,
                                 la_optim_config *out);

/* The built-ins (also reachable through the registry). */
LINATTN_DEF const la_optimizer *la_optimizer_sgd(void);
LINATTN_DEF const la_optimizer *la_optimizer_adam(void);
LINATTN_DEF const la_optimizer *la_optimizer_sign(void);
LINATTN_DEF const la_optimizer *la_optimizer_nsgd(void);
LINATTN_DEF const la_optimizer *la_optimizer_adagrad(void);
LINATTN_DEF const la_optimizer *la_optimizer_rmsprop(void);
LINATTN_DEF const la_optimizer *la_optimizer_lbfgs(void);
LINATTN_DEF const la_optimizer *la_optimizer_lion(void);
LINATTN_DEF const la_optimizer *la_optimizer_sfadamw(void);
LINATTN_DEF const la_optimizer *la_optimizer_muon(void);
LINATTN_DEF const la_optimizer *la_optimizer_adafactor(void);
LINATTN_DEF const la_optimizer *la_optimizer_shampoo(void);
LINATTN_DEF const la_optimizer *la_optimizer_soap(void);
LINATTN_DEF const la_optimizer *la_optimizer_sophia(void);
/* Checked entry points over any optimizer (built-in or not). */
LINATTN_DEF int la_optim_check(const la_optimizer *o, const void *cfg);
LINATTN_DEF int la_optim_state_len(const la_optimizer *o, const void *cfg,
                                   int n, size_t *len);
LINATTN_DEF int la_optim_init(const la_optimizer *o, const void *cfg, int n,
                              double *state, size_t len);
/* Computes the update into `update` and adds it to theta. A non-finite
   gradient or theta is LA_ENONFINITE (nothing written), a negative or
   non-finite lr_scale LA_ERANGE, and a non-finite update LA_EDIVERGED;
   theta is then unchanged (the state may have advanced: the trainer keeps
   a copy). */
LINATTN_DEF int la_optim_step(const la_optimizer *o, const void *cfg, int n,
                              double *state, size_t len, double lr_scale,
                              const la_real *grad, la_real *theta,
                              la_real *update);

/* ------------------------------------ optimizers that evaluate again */
/* Some optimizers evaluate the objective again inside one step (L-BFGS's
   inner iterations and line search). They get a closure: loss and gradient
   (n reals) at any theta, on the data of the step being taken. The trainer
   builds one for every step from its model (or objective) and the step's
   batch; it returns the objective's own gradient, not clipped. eval returns
   LA_OK or a status (LA_EDIVERGED when the loss or gradient overflowed).
   work is 2n reals of scratch the step may use as it likes (its trial
   points), valid during the step. */
typedef struct la_closure {
  int (*eval)(void *ctx, const la_real *theta, double *loss, la_real *grad);
  void *ctx;
  la_real *work; /* 2n reals */
} la_closure;

/* Such an optimizer is a la_closure_optimizer. Its first member is a
   la_optimizer like any other (the pointer that goes into la_train_config,
   la_optim_check, checkpoints), whose step is the marker la_closure_step;
   whoever calls a step and sees that marker calls `step` below instead,
   with the loss at theta (grad's loss) and a closure. A plain la_optimizer
   is untouched: its struct did not grow, so the positional initializers of
   existing optimizers still compile under -Wextra. Same contract as a
   plain step otherwise (write the update, leave theta and grad alone). */
typedef int (*la_closure_step_fn)(const void *cfg, int n, double *state,
                                  double lr_scale, double loss,
                                  const la_real *theta, const la_real *grad,
                                  la_real *update, const la_closure *f);
typedef struct la_closure_optimizer {
  la_optimizer base; /* base.step = la_closure_step */
  la_closure_step_fn step;
} la_closure_optimizer;
/* The marker: called as a plain step it only answers LA_EUNSUPPORTED (the
   optimizer needs a closure: use la_optim_step_closure). */
LINATTN_DEF int la_closure_step(const void *cfg, int n, double *state,
                                double lr_scale, const la_real *theta,
                                const la_real *grad, la_real *update);
/* la_optim_step for any optimizer, with the closure a closure optimizer
   needs (a plain one ignores f and loss). LA_ENULL for a closure optimizer
   without f, f->eval or f->work; LA_ENONFINITE for a non-finite loss;
   otherwise as la_optim_step, the step's own status passed on. */
LINATTN_DEF int la_optim_step_closure(const la_optimizer *o, const void *cfg,
                                      int n, double *state, size_t len,
                                      double lr_scale, const la_closure *f,
                                      double loss, const la_real *grad,
                                      la_real *theta, la_real *update);

/* L-BFGS (Nocedal 1980; Nocedal and Wright, Numerical Optimization, ch. 7),
   step by step as PyTorch's torch.optim.LBFGS defines it, so that its runs
   compare: each step makes up to max_iter inner iterations from the
   gradient given, re-evaluating through the closure; the direction comes
   from the two-loop recursion over the last `history` pairs (s, y), kept
   only when y.s > 1e-10, with H0 = (y.s / y.y) I; the step length is lr
   (lr min(1, 1/|g|_1) at the very first iteration), or the strong-Wolfe
   line search's (Nocedal and Wright, algorithms 3.5 and 3.6, cubic
   interpolation) starting from it. A step ends early when max|g| <=
   tol_grad, g.d > -tol_change, max|t d| <= tol_change, the loss moved less
   than tol_change, or max_eval evaluations were spent. The history, the
   last direction and step and the iteration count live in the state, so a
   checkpoint resumes L-BFGS bit for bit. The state is about 2 history n
   doubles. Paper B's reference run: lr 0.1, history 600, max_iter 4, no
   line search, one fixed batch of 20,000 prompts (LA_DATA_FIXED). The
   closure's gradients are not clipped: the trainer refuses clipping with
   a closure optimizer (LA_ERANGE). It is in the registry as "lbfgs" and
   reads the L-BFGS fields of la_optim_config (la_optim_config is the same
   type); lr 0 -> 1, PyTorch's default. */
enum { LA_LS_NONE = 0, LA_LS_STRONG_WOLFE = 1 };

/* ---------------------------- optimizers that read the Hessian's diagonal */
/* Sophia preconditions by an estimate h_hat of the Hessian's diagonal on
   the step's batch at theta, taken every precond_every steps. Its registry
   row has a curvature function; before each step its caller asks
   la_optim_curvature what the coming step wants. req->want NULL: nothing
   (every optimizer without that function, and Sophia between estimates).
   Otherwise the caller writes the estimate of kind req->estimator
   (LA_HESS_*) as n doubles to req->want, memory inside the state (nothing
   to allocate), and then steps as usual (la_optim_step); the estimate's
   random draws come from a la_rng whose counter is *req->position, a
   double of the state that the caller sets back to the generator's
   counter after the draws, so that a checkpoint resumes them. The trainer
   does this itself, from its model, on the step's batch (after clipping:
   the estimate is the loss's own), with the generator (its seed,
   LA_STREAM_HESS). la_hdiag_estimate (diagnostics) computes each kind.
   A step not given its estimate reads zeros there. */
enum {
  LA_HESS_HUTCHINSON = 0, /* u * (H u), u Rademacher */
  LA_HESS_EXACT = 1,      /* the exact diagonal (la_hessian_diag) */
  LA_HESS_GNB = 2         /* Gauss-Newton-Bartlett: B g~ * g~ */
};
/* The stream of the trainer's Hessian estimates: no step's batch (streams
   0 .. LONG_MAX) and no measurement batch (LA_STREAM_DIAG - k) reaches
   it. */
#define LA_STREAM_HESS 0x8000000000000000ull
struct la_curvature {
  int estimator;    /* LA_HESS_* */
  double *want;     /* n doubles for the estimate, or NULL: none wanted */
  double *position; /* the estimates' stream position (la_rng.counter) */
};
/* LA_OK with *req filled (want NULL for an optimizer that reads no
   curvature); statuses as la_optim_step's checks. */
LINATTN_DEF int la_optim_curvature(const la_optimizer *o, const void *cfg,
                                   int n, double *state, size_t len,
                                   la_curvature *req);

/* ------------------------------------------------------------ clipping */
/* Scales g so that ||g||_2 <= max_norm, keeping its direction (paper A:
   max_norm = 1). *norm (may be NULL) receives the norm before clipping. */
LINATTN_DEF int la_clip_norm(int n, la_real *g, double max_norm, double *norm);
/* The same for each block (offset, size) of g on its own: paper B clips
   each parameter matrix to 0.01 (blocks from la_model_blocks). */
LINATTN_DEF int la_clip_blocks(int n, la_real *g, int nblocks,
                               const int *offsets, const int *sizes,
                               double max_norm);

/* ----------------------------------------------------------- schedules */
/* The factor multiplying the learning rate at 0-based step t:
     CONSTANT  1
     HALVING   decay^floor(t / period)        (paper B: 0.5 every k steps)
     COSINE    min + (1 - min) (1 + cos(pi p)) / 2, p = (t - warmup) /
               (total - warmup) clamped to [0, 1]
   times the linear warmup (t + 1) / warmup while t < warmup. */
enum { LA_SCHED_CONSTANT = 0, LA_SCHED_HALVING = 1, LA_SCHED_COSINE = 2 };
#define LA_SCHED_PERIOD 1000 /* HALVING's period when it is 0 */
#define LA_SCHED_DECAY 0.5   /* HALVING's decay when it is 0 */
typedef struct la_schedule {
  int kind;         /* LA_SCHED_*; 0 -> constant */
  long warmup;      /* steps of linear warmup; 0 -> none */
  long period;      /* HALVING: steps between decays; 0 -> LA_SCHED_PERIOD */
  double decay;     /* HALVING: factor per period in (0, 1); 0 ->
                       LA_SCHED_DECAY */
  long total;       /* COSINE: step where the floor is reached (> warmup) */
  double min_scale; /* COSINE: the floor in [0, 1]; 0 -> 0 */
} la_schedule;
LINATTN_DEF int la_schedule_check(const la_schedule *s);
LINATTN_DEF int la_schedule_scale(const la_schedule *s, long t, double *scale);


/*

   Curvature and noise diagnostics. Everything spectral works over a symmetric
   matrix-vector callback (la_matvec_fn), so it serves the model's Hessian
   (through la_hvp_matvec) and any other operator alike. Linear algebra inside
   is in double, whatever la_real is: only the callback sees la_real vectors.

   Workspaces follow the model's convention: a block at any byte alignment,
   sized by the size query beside the function (or, for the medians, Hill
   and the summaries of samples, a count of doubles its comment states),
   and work == NULL with bytes == 0 makes the call allocate (and free) its
   own. */

/* ================================================================== */
/*                         API 5. Diagnostics                         */
/* ================================================================== */

/* ---------------------------------------------------- operators */
/* y = A x for a symmetric A of order n. A non-zero return is passed on as
   the caller's status. */
typedef int (*la_matvec_fn)(void *ctx, int n, const la_real *x, la_real *y);
/* The same for k vectors at once: the rows of x (k x n, row-major) into the
   rows of y. An operator that shares work among the k (la_hmp_matmat: one
   pass over the batch) is what the _block functions below are for. */
typedef int (*la_matmat_fn)(void *ctx, int n, int k, const la_real *x,
                            la_real *y);

/* ------------------------------------------ dense symmetric solver */
/* Eigenvalues of the symmetric n x n row-major matrix a (overwritten) in
   ascending order into w; with vecs non-NULL, the unit eigenvectors as the
   rows of vecs (row i belongs to w[i]). Householder tridiagonalization and
   implicit QL, in double, backward stable: each eigenvalue within a small
   multiple of n eps ||A|| of the exact one. a is first scaled by a power of
   two (exactly) to a largest entry in [0.5, 1), and each reflector is
   formed from its column so scaled, so entries from the smallest normal
   double to the largest neither overflow nor underflow; blocks that a
   block-diagonal a splits into keep their own scale. QL deflates where an
   off-diagonal is negligible next to its two diagonal neighbours or next
   to its unreduced block's norm (eps relative), so zero rows and columns
   and eigenvalues at rounding level end the iteration. LA_ERANGE when an
   eigenvalue lies beyond the largest double; LA_ENOCONVERGE when one takes
   more than 60 QL sweeps. n is at most 46340 (n^2 fits an int: LA_EDIM
   beyond); LA_EOVERFLOW when the workspace would not fit size_t. */
LINATTN_DEF size_t la_sym_eig_work_bytes(int n);
LINATTN_DEF int la_sym_eig(int n, double *a, double *w, double *vecs,
                           void *work, size_t bytes);
/* H = (A + A^T)/2 from n matvecs with the unit vectors (H row-major). */
LINATTN_DEF size_t la_dense_from_matvec_work_bytes(int n);
LINATTN_DEF int la_dense_from_matvec(int n, la_matvec_fn f, void *ctx,
                                     double *h, void *work, size_t bytes);

/* ---------------------------------------------------------- Lanczos */
/* Which end of an indefinite spectrum: distinct orderings on purpose. */
enum {
  LA_EIG_LARGEST = 0,  /* largest algebraic, returned descending */
  LA_EIG_SMALLEST = 1, /* smallest algebraic, returned ascending */
  LA_EIG_MAGNITUDE = 2 /* largest |lambda|, returned by descending |.| */
};
/* Zero means the default. */
typedef struct la_lanczos_config {
  int which;     /* LA_EIG_*; 0 -> largest */
  int max_iter;  /* cap on matvecs = Krylov dimension; 0 -> min(n, 20k+200) */
  uint64_t seed; /* stream of every probe vector (la_rng, stream 0x1a2c) */
} la_lanczos_config;
/* Outputs; the caller provides the arrays it wants. */
typedef struct la_eig_out {
  double *values;    /* k Ritz values, required */
  double *residuals; /* k residual norms |beta_m s_m,i| (NULL: not wanted) */
  la_real *vectors;  /* k x n unit Ritz vectors as rows (NULL: not wanted) */
  int matvecs;       /* matvecs used */
  int converged;     /* how many of the k are within the tolerance */
  int restarts;      /* invariant subspaces met and left with a new vector */
} la_eig_out;
/* k eigenvalues of the symmetric operator by Lanczos with full
   reorthogonalization (two classical Gram-Schmidt passes) in double. A pair
   has converged when its residual norm is at most tol * max|Ritz value|;
   the iteration stops when all k have. A breakdown (an invariant Krylov
   subspace) continues from a fresh seeded vector orthogonal to the basis.
   A single starting vector sees one copy of an exactly repeated eigenvalue
   until its invariant subspace is exhausted: the k values returned are then
   the distinct ones, more copies appear only after a restart (see docs/library.md).
   LA_ENOCONVERGE: the cap was reached; the best estimates are returned.
   LA_ERANGE for tol <= 0 or non-finite, an unknown `which`, or a max_iter
   below k (or negative), and for a Ritz value beyond the largest double
   (norms are scaled: operators near 1e308 are fine); LA_EOVERFLOW when the
   basis would pass 1e12 bytes (or size_t). out is written only once the
   checks have passed. */
LINATTN_DEF size_t la_lanczos_work_bytes(int n, int k,
                                         const la_lanczos_config *cfg);
LINATTN_DEF int la_lanczos(int n, la_matvec_fn f, void *ctx, int k, double tol,
                           const la_lanczos_config *cfg, la_eig_out *out,
                           void *work, size_t bytes);

/* ------------------------------------------- densities and traces */
typedef struct la_slq_config {
  int probes;    /* Rademacher probes; 0 -> 10 */
  int steps;     /* Lanczos steps per probe; 0 -> min(n, 80) */
  uint64_t seed; /* probe stream */
} la_slq_config;
/* Stochastic Lanczos quadrature: probes*steps nodes and weights (weights
   sum to 1; a probe whose Krylov space closes early pads with zero
   weights). The spectral density is sum_i weights[i] delta(x - nodes[i]).
   LA_EOVERFLOW when probes*steps exceeds an int or the basis 1e12 bytes. */
LINATTN_DEF size_t la_slq_work_bytes(int n, const la_slq_config *cfg);
LINATTN_DEF int la_slq(int n, la_matvec_fn f, void *ctx,
                       const la_slq_config *cfg, double *nodes,
                       double *weights, void *work, size_t bytes);
/* la_slq with a block operator: the probes' Lanczos steps in lockstep, one
   product of all the probes still running per step. The same nodes and
   weights as la_slq with an operator whose block rows are its single
   products (la_hmp_matmat's are la_hvp_matvec's, bit for bit); the
   workspace holds every probe's basis at once (probes times la_slq's). */
LINATTN_DEF size_t la_slq_block_work_bytes(int n, const la_slq_config *cfg);
LINATTN_DEF int la_slq_block(int n, la_matmat_fn f, void *ctx,
                             const la_slq_config *cfg, double *nodes,
                             double *weights, void *work, size_t bytes);
/* The density smoothed by a Gaussian of width sigma, on ngrid points
   (sigma <= 0 or non-finite: LA_ERANGE; a NaN or Inf among nodes, weights
   or grid: LA_ENONFINITE). Any positive sigma, subnormal included; a value
   beyond the largest double (a grid point on a node with sigma near 1e-308,
   say) is LA_ERANGE, and out is then not written. */
LINATTN_DEF int la_density_eval(int count, const double *nodes,
                                const double *weights, double sigma,
                                int ngrid, const double *grid, double *out);
/* Weighted median of values (weights NULL: equal weights); work holds
   2*count doubles (NULL, 0: allocated). A NaN or Inf is LA_ENONFINITE, a
   negative weight or a zero total LA_ERANGE. */
LINATTN_DEF int la_weighted_median(int count, const double *values,
                                   const double *weights, double *median,
                                   void *work, size_t bytes);

enum { LA_TRACE_HUTCHINSON = 0, LA_TRACE_HUTCHPP = 1 };
typedef struct la_trace_config {
  int matvecs;   /* budget; 0 -> 30 */
  int method;    /* LA_TRACE_*; 0 -> Hutchinson (Rademacher probes) */
  uint64_t seed;
} la_trace_config;
/* tr(A) and the standard error of the estimate (Hutch++: of its stochastic
   part; the sketched part is exact for the sketch drawn). LA_ERANGE for a
   budget below 2 (Hutch++: 3) or an unknown method, and for a trace or
   error beyond the largest double (outputs then not written); the sums of
   squares are scaled, so an operator near 1e300 is fine. */
LINATTN_DEF size_t la_trace_work_bytes(int n, const la_trace_config *cfg);
LINATTN_DEF int la_trace(int n, la_matvec_fn f, void *ctx,
                         const la_trace_config *cfg, double *trace,
                         double *stderr_, void *work, size_t bytes);
/* la_trace with a block operator: Hutchinson's probes in one product,
   Hutch++'s sketch, its basis and its probes in one product each; the same
   results as la_trace with an operator whose block rows are its single
   products. */
LINATTN_DEF size_t la_trace_block_work_bytes(int n,
                                             const la_trace_config *cfg);
LINATTN_DEF int la_trace_block(int n, la_matmat_fn f, void *ctx,
                               const la_trace_config *cfg, double *trace,
                               double *stderr_, void *work, size_t bytes);

/* ---------------------------------------------- the papers' numbers */
/* The median of the robust condition number R = max |H_ii| / median
   |H_ii|: paper A's code takes torch.median, the lower of the two middle
   values of an even count (its 150 |H_ii| split into two groups, the P
   blocks' and the Q blocks', so the two conventions differ by up to two
   orders of magnitude at initialization); MID is their midpoint. */
enum { LA_MEDIAN_LOWER = 0, LA_MEDIAN_MID = 1 };
/* max |d_i| / median |d_i| (paper A's code, Jiang et al. 2022), the median
   by `median` (LA_MEDIAN_*, another value LA_ERANGE; structural zeros
   count as entries, as there); work holds 3n doubles (NULL, 0: allocated);
   LA_ERANGE if the median is 0 or the ratio passes the largest double (r
   is then not written). */
LINATTN_DEF int la_rcond_diag(int n, const double *diag, int median, double *r,
                              void *work, size_t bytes);
/* lambda_max / lambda_median (paper A's text) of a spectrum given as
   values with weights (NULL: equal); LA_ERANGE if the median is 0 or the
   ratio passes the largest double (r is then not written). work as for
   la_weighted_median. */
LINATTN_DEF int la_rcond_spectrum(int count, const double *values,
                                  const double *weights, double *r,
                                  void *work, size_t bytes);

/* (L0, L1)-smoothness from a trajectory of (||grad||, smoothness) pairs.
   Least squares: s ~ L0 + L1 g. Envelope: the tightest line above every
   pair, minimizing its mean height L0 + L1 mean(g) with L0, L1 >= 0 (a
   two-variable linear program, solved exactly on the upper hull). Both
   fits run on g and s scaled by powers of two to largest entries near 1,
   so pairs near the largest double fit as well as any. work holds 2 count
   doubles (NULL, 0: allocated); a negative gnorm is LA_ERANGE, a NaN or Inf
   LA_ENONFINITE; LA_ERANGE too when a slope or intercept is beyond the
   largest double (s near 1e300 against g near 1e-300); fit is written only
   on success. */
typedef struct la_lsmooth_fit {
  double corr_log;  /* Pearson correlation of (log g, log s) over s, g > 0 */
  int used;         /* pairs with s > 0 and g > 0 */
  double l0_ls, l1_ls;
  double l0_env, l1_env;
} la_lsmooth_fit;
LINATTN_DEF int la_lsmooth(int count, const double *gnorm,
                           const double *smooth, la_lsmooth_fit *fit,
                           void *work, size_t bytes);

/* ----------------------------------------------- noise statistics */
/* x with Phi(x) = p, 0 < p < 1. */
LINATTN_DEF int la_normal_quantile(double p, double *x);
/* Hill's estimate of the tail index from the k largest of count positive
   samples (work: count doubles, or NULL, 0). LA_ERANGE when the (k+1)-th
   largest is not positive, or the k+1 largest are equal (the index would
   be infinite); alpha is written only on success. */
LINATTN_DEF int la_hill(int count, const double *x, int k, double *alpha,
                        void *work, size_t bytes);
typedef struct la_noise_config {
  int bins;   /* histogram bins over [min, max]; 0 -> 100 */
  int hill_k; /* order statistics used by Hill; 0 -> max(2, count/10) */
} la_noise_config;
typedef struct la_noise_stats {
  double mean, var;   /* var with divisor count - 1 */
  double kurtosis;    /* m4 / m2^2 (3 for a Gaussian) */
  double hill_alpha;  /* tail index; its standard error is alpha/sqrt(k) */
  double hill_stderr;
  double min, max;
} la_noise_stats;
/* Summary of count samples. Optional outputs (NULL: skipped): hist (bins
   densities, integrating to 1), edges (bins+1), sorted (the samples in
   ascending order) and gauss (the quantiles of N(mean, var) at the plotting
   positions (i + 0.5)/count, for a QQ plot against sorted). The moments
   and the bins are computed on the samples scaled by a power of two to a
   largest near 1, so samples near +-1e300 summarize as any others as long
   as the result exists: LA_ERANGE, with nothing written, when the variance
   passes the largest double (a spread beyond about 1.3e154), when the
   hill_k + 1 largest samples are equal (all samples equal, say: the tail
   index would be infinite), or when a histogram density would pass the
   largest double (samples spread over less than bins / 1.8e308).
   hill_alpha is 0 when the (hill_k+1)-th largest sample is not positive
   (no tail to measure); the kurtosis is 0 when all samples are equal. */
LINATTN_DEF int la_noise_summary(int count, const double *x,
                                 const la_noise_config *cfg,
                                 la_noise_stats *st, double *hist,
                                 double *edges, double *sorted, double *gauss,
                                 void *work, size_t bytes);


/* ------------------------------------------------ the model's Hessian */
/* The model's Hessian as an operator: ctx of la_hvp_matvec. work may be
   NULL with bytes 0 (each product then allocates its own). */
typedef struct la_hvp_op {
  const la_model *model;
  const la_real *theta;
  const la_batch *batch;
  void *work; /* la_model_work_bytes(model) bytes */
  size_t bytes;
} la_hvp_op;
LINATTN_DEF int la_hvp_matvec(void *op, int n, const la_real *x, la_real *y);
/* The same operator on k directions at once (la_model_hmp), for the _block
   functions; op->work then holds la_model_hmp_work_bytes(model, k) bytes
   for the largest k it is called with (or NULL, 0: each call allocates). */
LINATTN_DEF int la_hmp_matmat(void *op, int n, int k, const la_real *x,
                              la_real *y);

/* The exact Hessian (row-major n x n doubles) and its exact diagonal (no
   n x n storage); n = m->nparams. The dense Hessian is the model's Hessian
   times the n unit vectors, a block of them per pass over the batch
   (la_model_hmp's sharing), each product formed only in the rows of the
   entry's own layer and the later ones (its tangent starts at its layer
   and its backward tangent ends there): a pair of entries in two layers is
   formed once, in the column of the earlier layer, and mirrored; a pair
   within one layer is formed both ways and averaged. The front layer's
   entries come first in the forward pass: their columns are whole. Every
   entry formed is la_model_hvp's own, bit for bit. The diagonal, with
   linear attention, comes from forward tangents alone: along one entry the
   model is affine within the entry's layer, so H_jj = (2/B) sum_b (z'_b^2 +
   r_b z''_b), the first and second derivatives of the prediction carried
   forward from that layer (r_b the residual); the same numbers to
   rounding. With ReLU or softmax attention it is the columns' own entries.
   These and the functions below refuse a non-finite theta (LA_ENONFINITE)
   before the first product, so that nothing is written. */
LINATTN_DEF size_t la_hessian_work_bytes(const la_model *m);
LINATTN_DEF int la_hessian_dense(const la_model *m, const la_real *theta,
                                 const la_batch *b, double *h, void *work,
                                 size_t bytes);
LINATTN_DEF int la_hessian_diag(const la_model *m, const la_real *theta,
                                const la_batch *b, double *diag, void *work,
                                size_t bytes);
/* An estimate of the Hessian's diagonal on b at theta (an optimizer's
   h_hat, la_optim_curvature), n = m->nparams doubles into out:
     LA_HESS_EXACT       la_hessian_diag's, bit for bit; no draws.
     LA_HESS_HUTCHINSON  u * (H u) (Hutchinson), H u la_model_hvp's, u_i =
                         +1 when la_rng_uniform(rng) < 0.5 else -1, i = 0,
                         1, .. in order; E[u * (H u)] = diag(H).
     LA_HESS_GNB         Gauss-Newton-Bartlett for the mean of squares:
                         labels y~_b = f_b + xi_b / sqrt(2) resampled from
                         the Gaussian whose negative log-likelihood is the
                         squared loss (f_b the model's prediction, xi_b =
                         la_rng_normal(rng), b = 0, 1, .. in order), g~ the
                         gradient of the loss on them (la_model_grad), out
                         = B g~ * g~ (B = b->count); E[out] = diag(G), G =
                         (2/B) sum_b J_b^T J_b the Gauss-Newton matrix, J_b
                         the gradient of f_b.
   rng (not NULL for the random kinds) moves past the draws. The workspace
   la_hdiag_work_bytes(m, estimator, count) for batches of up to count
   prompts (0 for an invalid model or estimator); work NULL with bytes 0:
   the call allocates. LA_ERANGE for an estimator out of range; otherwise
   the statuses of the calls named. */
LINATTN_DEF size_t la_hdiag_work_bytes(const la_model *m, int estimator,
                                       int count);
LINATTN_DEF int la_hdiag_estimate(const la_model *m, int estimator,
                                  const la_real *theta, const la_batch *b,
                                  la_rng *rng, double *out, void *work,
                                  size_t bytes);
/* The Hessian block by block: for each parameter matrix of
   la_model_blocks (la_model_block_info names it), its diagonal block of
   H, formed as la_hessian_dense forms it (the same entries, bit for bit:
   the block's unit directions, a pass per kb of them) and its
   eigenvalues, ascending, into eig[off .. off + size - 1] at the block's
   own offset in theta (n = m->nparams doubles in all). The workspace
   holds the columns' and the largest block's dense eigensolve. */
LINATTN_DEF size_t la_hessian_blocks_work_bytes(const la_model *m);
LINATTN_DEF int la_hessian_blocks(const la_model *m, const la_real *theta,
                                  const la_batch *b, double *eig, void *work,
                                  size_t bytes);
/* How unlike the spectra of blocks are (Zhang et al. 2024, "Why
   transformers need Adam: a Hessian perspective"): each block's
   eigenvalues (nblocks blocks, sizes[i] of them each, one after another in
   eig) made a density on one grid of `bins` points over [min, max] of all
   of them, each eigenvalue a Gaussian of width (max - min) / bins, the
   density normalized to sum 1; dist (nblocks x nblocks, may be NULL) the
   Jensen-Shannon distance of each pair, sqrt of the divergence in bits
   (0 for equal spectra, 1 for disjoint ones), *mean (may be NULL) its mean
   over the pairs i < j, the heterogeneity. work holds bins * (nblocks + 1)
   doubles. LA_EDIM for nblocks < 2 or bins < 2 or an empty block,
   LA_ENONFINITE for a non-finite eigenvalue; all eigenvalues equal: every
   distance 0. */
LINATTN_DEF int la_spectra_js(int nblocks, const int *sizes, const double *eig,
                              int bins, double *dist, double *mean,
                              double *work);
/* la_lanczos over the model's HVP. */
LINATTN_DEF size_t la_hessian_eigs_work_bytes(const la_model *m, int k,
                                              const la_lanczos_config *cfg);
LINATTN_DEF int la_hessian_eigs(const la_model *m, const la_real *theta,
                                const la_batch *b, int k, double tol,
                                const la_lanczos_config *cfg, la_eig_out *out,
                                void *work, size_t bytes);

/* Both robust condition numbers of H(theta) on a batch. Up to dense_max
   parameters the spectrum is exact (dense Hessian); beyond, lambda_max is
   from Lanczos (tolerance 1e-6) and the median from the SLQ density.
   by_spectrum is reported only where the median eigenvalue is resolved,
   |lambda_median| > resolution, and is 0 otherwise (resolved = 0): a median
   at rounding level would make the ratio a quotient of noise (a singular
   Hessian, as with dead ReLU units or more parameters than directions the
   data move). resolution is, on the dense path, the larger of the
   products' asymmetry (H is symmetric: it is their rounding) and
   n 2^-52 max|lambda| (the eigensolver's), the asymmetry being ||H - H^T||_F
   over the pairs formed both ways (within a layer, see la_hessian_dense),
   scaled to all n (n - 1) / 2 pairs (those formed once are taken to round
   alike); on the iterative path, the larger of 1e-6 lambda_max
   (Lanczos's tolerance) and the spacing of the quadrature nodes,
   (max node - min node) / steps. by_diag is 0 when its median is 0 or the
   ratio passes the largest double.
   LA_EOVERFLOW when slq.probes * steps exceeds an int, or the dense path
   would hold more than 46340 parameters. */
typedef struct la_rcond_config {
  int dense_max;     /* 0 -> 1000 */
  la_slq_config slq; /* the SLQ path; zero -> its defaults */
  int median;        /* by_diag's median, LA_MEDIAN_*; 0 -> lower */
} la_rcond_config;
typedef struct la_rcond {
  double by_diag;     /* max |H_ii| / median |H_ii| (0 if that median is 0) */
  double by_spectrum; /* lambda_max / lambda_median; 0 unless resolved */
  double lambda_max, lambda_median;
  int exact;          /* 1: from the dense spectrum */
  int resolved;       /* 1: |lambda_median| > resolution */
  double resolution;  /* eigenvalues within it of 0 are rounding (below) */
} la_rcond;
LINATTN_DEF size_t la_rcond_work_bytes(const la_model *m,
                                       const la_rcond_config *cfg);
LINATTN_DEF int la_robust_cond(const la_model *m, const la_real *theta,
                               const la_batch *b, const la_rcond_config *cfg,
                               la_rcond *out, void *work, size_t bytes);

/* Directional smoothness u^T H(theta) u along the step taken,
   u = (theta_next - theta) / ||theta_next - theta||, with ||grad f(theta)||
   from the same pass (the pair la_lsmooth fits). gnorm may be NULL;
   LA_ERANGE if the step is zero or u^T H u passes the largest double. */
LINATTN_DEF size_t la_dir_smoothness_work_bytes(const la_model *m);
LINATTN_DEF int la_dir_smoothness(const la_model *m, const la_real *theta,
                                  const la_real *theta_next, const la_batch *b,
                                  double *smooth, double *gnorm, void *work,
                                  size_t bytes);

/* Gradient noise (paper A): the gradient on true_batch fresh prompts is the
   "true" g, then `samples` minibatch gradients g_B, each on fresh prompts;
   norms[i] = ||g_B - g||. All are drawn from rng's stream in that order,
   each batch on its own panels (la_data_sample's layout), where they are
   consumed: nothing is stored. The model's workers (cfg.parallel) share
   the true batch's chunks, then take the samples one each, with the same
   bits for any number of workers. rng moves past the last sample on
   success. Summarize with la_noise_summary. Checked before the first draw
   (rng is then left as it was): LA_ESHAPE for a generator of another d or
   n, LA_ENONFINITE for theta, LA_EOVERFLOW when the default true batch
   100 * minibatch exceeds an int, LA_ERANGE when the stream has no room
   for all the panels. The workspace holds the model's, and per worker a
   one-worker model workspace and a gradient. LA_ERANGE also when a norm
   passes the largest double (the norms are scaled, so gradients near
   1e300 are fine). */
typedef struct la_grad_noise_config {
  int minibatch;  /* 0 -> 1000 */
  int true_batch; /* 0 -> 100 * minibatch */
  int samples;    /* 0 -> 10000 */
} la_grad_noise_config;
LINATTN_DEF size_t la_grad_noise_work_bytes(const la_model *m,
                                            const la_grad_noise_config *cfg);
LINATTN_DEF int la_grad_noise(const la_model *m, const la_real *theta,
                              const la_data *g, la_rng *rng,
                              const la_grad_noise_config *cfg, double *norms,
                              double *true_gnorm, void *work, size_t bytes);

/* ================================================================== */
/*               API 6. Training driver and checkpoints               */
/* ================================================================== */

/* ------------------------------------------------------------- trainer */
/* A trainer owns everything one run needs (theta, gradient, optimizer
   state, batches, model workspace) in one block sized by la_trainer_bytes,
   so that a step allocates nothing. One step:
     1. the batch of the step (data_mode below);
     2. loss and gradient; a NaN or Inf in either ends the run, or, while
        fewer than skip_overflow steps have been skipped, skips the step
        (no update, theta and optimizer state kept, the batch used up: the
        record says skipped), as mixed-precision loss scaling skips a step
        whose gradient overflows;
     3. clipping (global norm, then each parameter matrix);
     4. the optimizer's update at the schedule's learning-rate factor;
        a non-finite update or theta ends the run as well; a closure
        optimizer (L-BFGS) gets a closure over the objective on the
        step's batch, and an evaluation in it that overflows ends the run;
     5. every eval_every steps the loss on a fixed seeded batch;
     6. the callback, which may ask to stop.
   A run that ends in LA_EDIVERGED keeps the theta and optimizer state of
   the last finite step and names the failing step in diverged_step (the
   step just taken when only its evaluation overflowed). */

/* The batch of 0-based step t is drawn from la_rng_seed(seed, t) (FRESH),
   from la_rng_seed(seed, t / k) at every t multiple of k (RESAMPLE), or from
   la_rng_seed(seed, 0) once (FIXED): the data of a step depends on the
   seed and the step alone; or it is the caller's batches[t] (GIVEN: the
   prompts another program drew, step by step). The eval batch comes from
   eval_seed's stream 0xffffffffffffffff and theta from seed's stream
   0xfffffffffffffffe. */
enum {
  LA_DATA_FRESH = 0,    /* a new batch every step (paper A) */
  LA_DATA_RESAMPLE = 1, /* a new batch every resample_every steps (paper B) */
  LA_DATA_FIXED = 2,    /* one dataset for the whole run */
  LA_DATA_GIVEN = 3     /* the caller's batch for each step */
};

/* What the callback sees after each step. The pointers are valid during
   the call only. */
typedef struct la_train_record {
  long step;             /* steps taken so far, this one included (1-based) */
  double loss;           /* training loss at theta before the step */
  double grad_norm;      /* ||g|| before clipping */
  double clipped_norm;   /* ||g|| after clipping */
  double lr_scale;       /* schedule factor used by the step */
  double update_norm;    /* ||theta_new - theta_old|| */
  int nparams;           /* length of the vectors below */
  const la_real *grad;   /* the gradient after clipping */
  const la_real *update; /* theta_new - theta_old, as applied */
  const la_real *theta;  /* theta after the step */
  int has_eval;          /* nonzero when eval_loss was computed */
  double eval_loss;      /* loss on the evaluation batch at the new theta */
  int skipped;           /* nonzero: the loss or gradient overflowed and the
                            step was skipped (loss +Inf, update zero) */
} la_train_record;

/* Return nonzero to stop the run after this step. */
typedef int (*la_train_callback)(void *user, const la_train_record *rec);

/* Replaces the model as the function being minimized (tests, other
   models): loss (and the gradient unless grad is NULL) at theta on batch b,
   b being NULL when the trainer has no data. */
typedef int (*la_objective_fn)(void *ctx, const la_real *theta,
                               const la_batch *b, double *loss, la_real *grad);

/* The description of a run (below, with the runs). */
typedef struct la_run_config la_run_config;

/* Zero fields mean the documented default. The trainer keeps the pointers
   (model, data, optimizer, its config, dataset): they must outlive it. */
typedef struct la_train_config {
  const la_model *model;         /* required unless objective is set */
  const la_data *data;           /* the prompts; NULL only without model
                                    or with a caller-given dataset */
  const la_optimizer *optimizer; /* NULL -> Adam */
  const void *optimizer_config;  /* NULL -> the optimizer's defaults */
  la_schedule schedule;          /* zero -> constant */
  double clip_norm;              /* global-norm threshold; 0 -> none */
  double clip_block;             /* per-matrix threshold; 0 -> none (a
                                    closure optimizer takes neither:
                                    LA_ERANGE) */
  long skip_overflow;            /* steps whose loss or gradient overflows
                                    that are skipped before one ends the
                                    run (counted from la_trainer_init or a
                                    checkpoint's load); 0 -> none */
  int batch;                     /* prompts per step; 0 -> 1000 */
  int data_mode;                 /* LA_DATA_*; 0 -> fresh */
  int resample_every;            /* RESAMPLE: k; 0 -> 100 */
  const la_batch *dataset;       /* FIXED: this batch; NULL -> drawn once */
  const la_batch *batches;       /* GIVEN: step t's batch is batches[t] (a
                                    step past the last: LA_ERANGE); data,
                                    when given, draws the eval batch */
  long nbatches;
  int eval_every;                /* 0 -> 50; negative -> never */
  int eval_batch;                /* prompts in the eval batch; 0 -> batch */
  uint64_t seed;                 /* initial theta and the training data */
  uint64_t eval_seed;            /* the eval batch; 0 -> seed */
  const la_real *theta0;         /* NULL -> la_model_init_params(seed) */
  la_train_callback callback;    /* NULL -> none */
  void *user;                    /* passed to callback */
  la_objective_fn objective;     /* NULL -> the model's loss */
  void *objective_ctx;           /* passed to objective */
  int nparams;                   /* with objective and no model: length */
  const la_run_config *run;      /* the description it was made from (la_run_init
                                    sets it), saved in checkpoints; NULL -> one
                                    gathered from the fields above */
  const la_parallel *parallel;   /* threads of the model's calls (steps,
                                    evaluation); NULL -> the model's own
                                    cfg.parallel */
} la_train_config;

/* Read the fields, do not write them. */
typedef struct la_trainer {
  la_train_config cfg; /* defaults filled in */
  int n;               /* length of theta */
  long step;           /* steps taken (the schedule position) */
  long diverged_step;  /* 1-based step that met a NaN/Inf; 0 if none */
  long skipped;        /* steps skipped (skip_overflow) */
  int stopped;         /* the callback asked to stop */
  double last_eval;    /* latest eval loss (NaN before the first) */
  la_real *theta, *grad, *update;
  double *state, *backup; /* optimizer state and its copy before a step */
  size_t state_len;
  int nblocks, *block_off, *block_size;
  la_batch train, eval;
  int has_train, has_eval, batch_valid;
  uint64_t data_seed; /* seed of the training data (saved in checkpoints) */
  la_rng rng;         /* the data stream after the current batch */
  la_rng batch_rng;   /* the stream the current batch was drawn from */
  void *work;
  size_t work_bytes;
  void *hwork;        /* an optimizer's Hessian estimates (la_hdiag_estimate) */
  size_t hwork_bytes;
  void *owned; /* memory of la_trainer_create */
} la_trainer;

/* la_trainer_bytes and la_trainer_init check the whole configuration
   (LA_ERANGE for a model that la_model_init did not make, LA_ESHAPE for data
   or a dataset of another d or n, LA_EOVERFLOW for a block beyond size_t);
   a failed la_trainer_init leaves tr unusable: every call on it is
   LA_ENULL. */
LINATTN_DEF int la_trainer_bytes(const la_train_config *cfg, size_t *bytes);
LINATTN_DEF int la_trainer_init(la_trainer *tr, const la_train_config *cfg,
                                void *mem, size_t bytes);
/* One step; LA_EDIVERGED (sticky) when it met a NaN or Inf, LA_ERANGE when
   the step count is at LONG_MAX. */
LINATTN_DEF int la_trainer_step(la_trainer *tr);
/* Up to `steps` steps, fewer if the callback stops the run. */
LINATTN_DEF int la_trainer_run(la_trainer *tr, long steps);
/* The loss on the eval batch at the current theta, computed now (the
   objective with a NULL batch when there is no model; LA_ENULL for a model
   trained on a caller-given dataset without a generator). */
LINATTN_DEF int la_trainer_eval(la_trainer *tr, double *loss);
#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_trainer_create(la_trainer *tr, const la_train_config *cfg);
LINATTN_DEF void la_trainer_destroy(la_trainer *tr);
#endif

/* ---------------------------------------------------------------- runs */
/* A run described once: the data, the model, the optimizer and its
   configuration, the schedule, clipping, the data mode and batch, the
   evaluation and the seed, as one value. la_run_create builds the run's
   objects from it; checkpoints store it whole, so that a resume needs
   nothing beside the checkpoint.

   Its fields come with a table (la_run_field_at): a key, a kind, a range,
   a default, and whether the field is part of the run's identity
   (everything but the step count and what is measured along the run: a
   resume may continue a run for longer, never change what it is).
   Programs generate their command lines, help, records and groupings from
   the table, so a new field is one member here and one row there.

   PRESETS, SELECTORS, DEFAULTS AND ZERO (docs/library.md, with examples).
   A field is GIVEN when la_run_field_set wrote it, zero included, or, for
   a caller that fills the struct itself, when it is not zero (a real's
   LA_ZERO, a negative zero, is a given zero). Three fields are SELECTORS
   (flag LA_FIELD_SELECTOR), choosing the values of the fields not given:
     preset   an experiment of the papers (la_run_preset_name): its own
              values, on its data setting unless `setting` is given;
     setting  a data setting: its data and paper A's training for it
              (the learning rate for each optimizer, SGD's momentum 0.9,
              Adam's betas 0.9 and 0.9, clipping at 1, 10,000 steps);
              not given, the preset's, else Setting 1. `none` leaves the
              data to the data fields and the training to the defaults;
     opt      the optimizer; not given, the preset's or the setting's
              (Adam).
   la_run_resolve writes every value out. A field given keeps its value;
   any other takes the preset's value for the optimizer, else the
   setting's, else the table's default (la_run_field.def; or the value of
   the field it follows, except that cosine_total stays 0 and follows the
   steps when the run is made, resumed runs included; or for an
   optimizer's field the registry's default, la_optim_entry.defaults)
   where it applies, and 0 where it does
   not (an optimizer's field its optimizer does not read, the Gamma
   parameters without Gamma radii, the network's width with linear
   targets, the period of a schedule that does not halve, ...).
   Refused (LA_ERANGE; la_run_explain names the field and says why): a
   value outside the table's range; a field given to an optimizer that
   does not read it; with a setting, a data field that the setting fixes
   (flag LA_FIELD_SETTING: the covariates and their Gamma parameters,
   Sigma, w*, the targets and their network) given another value than the
   setting's: `setting none` describes other data.
   A resolved description is final: it resolves to itself, and the given
   bits record what was given. A field changed in it directly keeps its
   new value and the others keep theirs (no field follows another any
   more), so a selector changed there meets values it does not give and is
   refused where they disagree: choose presets, settings and the optimizer
   before resolving. Checkpoints keep the given bits. */
#define LA_MAX_BATCH 100000000 /* prompts per step a run may ask for */
#define LA_RUN_MAX_FIELDS 128  /* the table's rows, at most */
struct la_run_config {
  int preset;              /* the experiment, an index of
                              la_run_preset_name + 1; 0 none */
  int setting;             /* LA_SETTING_*; 0 none: the data fields alone */
  la_data_config data;     /* sigma_matrix must be NULL (not a value) */
  uint64_t data_seed;      /* what the data setting fixes (Sigma's rotation,
                              the target network); follows seed */
  la_model_config model;   /* d and n are the data's; `kernels` and
                              `parallel` are ignored (la_run_env says) */
  uint64_t init_hash;      /* a given theta0's fingerprint; 0 none */
  char optimizer[LA_NAME_MAX]; /* a registry name; "" -> the experiment's */
  la_optim_config opt;     /* the optimizer's configuration (model must
                              be NULL: the trainer binds its own) */
  la_schedule schedule;    /* COSINE's total follows the run's steps */
  double clip_norm;        /* global-norm threshold; 0 -> none */
  double clip_block;       /* per-matrix threshold; 0 -> none */
  long skip_overflow;      /* overflowing steps skipped; 0 -> none */
  int batch;               /* prompts per step */
  int data_mode;           /* LA_DATA_* */
  uint64_t data_hash;      /* GIVEN: the batches' fingerprint (la_run_env) */
  int resample_every;      /* RESAMPLE: k */
  int eval_every;          /* an evaluation every k steps; -1 never */
  int eval_batch;          /* follows batch */
  uint64_t seed;           /* theta and the training data */
  uint64_t eval_seed;      /* the evaluation batch; follows seed */
  long steps;              /* the run's length (not its identity) */
  struct {                 /* what a program measures along the run (not
                              its identity; the trainer reads none) */
    int log_every;         /* a record every k steps */
    int diag_every;        /* robust condition numbers; 0 never */
    int smooth_every;      /* directional smoothness; 0 never */
    int diag_batch;        /* their fixed batch's prompts */
    uint64_t diag_seed;    /* its seed; follows eval_seed */
    int diag_batches;      /* R on this many such batches (their median) */
    int median;            /* LA_MEDIAN_*: R's median convention */
    int blocks_every;      /* the Hessian's block spectra; 0 never */
  } measure;
  /* bit i of the table's row i: given (la_run_field_given reads it) */
  unsigned char given[LA_RUN_MAX_FIELDS / 8];
};

/* The kinds of fields, and the flags of la_run_field. */
enum {
  LA_FIELD_INT = 0,   /* int */
  LA_FIELD_LONG = 1,  /* long */
  LA_FIELD_U64 = 2,   /* uint64_t (the table's range keeps it below 2^53) */
  LA_FIELD_REAL = 3,  /* double */
  LA_FIELD_ENUM = 4,  /* int, one of the names of la_run_field_name */
  LA_FIELD_BOOL = 5,  /* int, 0 or 1 */
  LA_FIELD_OPTIMIZER = 6 /* char[LA_NAME_MAX], a registry name; its value
                            is the registry index */
};
#define LA_FIELD_IDENTITY 1u /* part of what the run is */
#define LA_FIELD_SEED 2u     /* the seed: runs differing only here are the
                                seeds of one configuration */
#define LA_FIELD_SHAPE 4u    /* decides theta's layout: a checkpoint loads
                                only into a model that agrees on it */
#define LA_FIELD_SELECTOR 8u /* preset, setting, opt: chooses the values of
                                the fields not given */
#define LA_FIELD_SETTING 16u /* a data setting fixes it */
typedef struct la_run_field {
  const char *key;  /* JSON key; with '-' for '_' a command-line flag */
  int kind;         /* LA_FIELD_* */
  size_t offset;    /* of the member in la_run_config */
  double lo, hi;    /* the values allowed (ENUM: indices) */
  unsigned flags;   /* LA_FIELD_IDENTITY, _SEED, _SHAPE, _SELECTOR, _SETTING */
  unsigned optim;   /* its LA_OPT_* bit when it is an optimizer field */
  const char *const *names; /* ENUM: the names by value, NULL-terminated */
  const char *help; /* one line: what it is (la_run_field_help adds the
                       default) */
  double def;       /* the default where no experiment gives a value; NaN
                       for an optimizer's field (the registry's) and for
                       one that follows another */
  const char *follows; /* the key of the field whose value it takes, or
                          NULL */
} la_run_field;
LINATTN_DEF int la_run_field_count(void);
LINATTN_DEF const la_run_field *la_run_field_at(int i); /* NULL past the end */
/* By key or flag ('-' and '_' alike), or NULL. */
LINATTN_DEF const la_run_field *la_run_field_find(const char *key);
/* The name of value v of an ENUM or OPTIMIZER field; NULL past the end,
   "" for a value that exists but cannot be part of a run. */
LINATTN_DEF const char *la_run_field_name(const la_run_field *f, int v);
/* A field's value as a double (OPTIMIZER: the registry index, LA_ERANGE
   for a name not in the registry); set checks the table's range (LA_ERANGE)
   and that whole kinds get whole numbers, and marks the field given.
   unset makes it not given (its value 0: the default), copy copies the
   value and whether it was given. given is 1 for a field given (above). */
LINATTN_DEF int la_run_field_get(const la_run_config *c, const la_run_field *f,
                                 double *value);
LINATTN_DEF int la_run_field_set(la_run_config *c, const la_run_field *f,
                                 double value);
LINATTN_DEF int la_run_field_unset(la_run_config *c, const la_run_field *f);
LINATTN_DEF int la_run_field_copy(la_run_config *to, const la_run_config *from,
                                  const la_run_field *f);
LINATTN_DEF int la_run_field_given(const la_run_config *c,
                                   const la_run_field *f);

/* Presets: every experiment of both papers, by name (i from 0 while
   la_run_preset_name(i, &about) is not NULL); the data settings are among
   them, by their names. la_run_preset writes a description with nothing
   given but the preset and, when optimizer is not NULL or "", the
   optimizer: la_run_resolve then gives every value (LA_ERANGE for an
   unknown name or optimizer). */
LINATTN_DEF const char *la_run_preset_name(int i, const char **about);
LINATTN_DEF int la_run_preset(la_run_config *cfg, const char *experiment,
                              const char *optimizer);

/* Every value written out (above), every field checked: LA_ERANGE for a
   refused value or an optimizer not in the registry, and the statuses of
   la_data_init, la_model_init and la_optim_check. out may be in. Two
   descriptions that mean the same resolve to equal values field by field
   (their given bits may differ). */
LINATTN_DEF int la_run_resolve(const la_run_config *in, la_run_config *out);
#ifndef LINATTN_NO_STDLIB
/* la_run_resolve's status for `in`, and when it fails, the field to blame
   (*field, NULL when none is) and why, in words fit to follow the field and
   its value ("sgd does not read it", "setting 3 has covariates
   gamma-sphere; setting none describes other data"); field and why may be
   NULL. */
LINATTN_DEF int la_run_explain(const la_run_config *in,
                               const la_run_field **field, char *why,
                               size_t cap);
/* The field's help line with its default in words ("prompts per step
   (default 1000; the experiment's where it gives one)"); the length it
   needs, as snprintf. */
LINATTN_DEF int la_run_field_help(const la_run_field *f, char *buf, size_t cap);
#endif
/* The first field, among those with any of `flags`, in which the resolved
   a and b differ; NULL when they agree (or either does not resolve: then
   the field is the first that does not). */
LINATTN_DEF const la_run_field *la_run_diff(const la_run_config *a,
                                            const la_run_config *b,
                                            unsigned flags);

/* What a run needs beside its description; zero fields: none. A run whose
   data mode is "given" takes each step's batch from batches (the prompts
   another program drew; data_hash, a fingerprint of their values, is then
   part of the run's identity), and theta0 its initial theta (init_hash
   likewise): a resume needs the same ones again (LA_ESHAPE for others,
   LA_ENULL for none). diag, when given, holds the batches of the
   measurements along the run (another program's Hessian batches):
   la_run_diag_batch's k-th is diag[k]; each of the run's d and n and of
   measure.diag_batch prompts (LA_ESHAPE otherwise), at least
   measure.diag_batches of them (LA_ERANGE). They are read, never kept
   beyond the run's life, and are no part of its identity. */
typedef struct la_run_env {
  la_train_callback callback; /* the trainer's, with user */
  void *user;
  const la_kernels *kernels; /* NULL -> la_kernels_best() */
  const la_parallel *parallel; /* threads for every batch; NULL -> one */
  const la_batch *batches;   /* data "given": step t's batch, t < nbatches */
  long nbatches;
  const la_real *theta0;     /* NULL -> drawn from the seed */
  const la_batch *diag;      /* NULL -> drawn from measure.diag_seed */
  long ndiag;
} la_run_env;

/* A run's objects in one block. Read the fields; it must stay where it was
   initialized (the trainer points into it). */
typedef struct la_run {
  la_run_config cfg; /* resolved */
  la_data data;
  la_model model;
  la_trainer trainer;
  const la_batch *diag; /* la_run_env's diag (NULL: drawn), ndiag of them */
  long ndiag;
  void *owned; /* the block of la_run_create */
} la_run;
/* The block of a run with env's threads (each worker has its workspace);
   LA_EOVERFLOW when it passes the largest workspace a size query answers. */
LINATTN_DEF int la_run_bytes(const la_run_config *cfg, const la_run_env *env,
                             size_t *bytes);
LINATTN_DEF int la_run_init(la_run *r, const la_run_config *cfg,
                            const la_run_env *env, void *mem, size_t bytes);
#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_run_create(la_run *r, const la_run_config *cfg,
                              const la_run_env *env);
LINATTN_DEF void la_run_destroy(la_run *r);
#endif
/* Continues the run saved in a checkpoint: LA_ESHAPE when the checkpoint's
   description differs from r's in an identity field (*differs, which may be
   NULL, names it), or when it holds no description of a run; otherwise as
   la_checkpoint_load_mem. */
LINATTN_DEF int la_run_resume_mem(la_run *r, const void *buf, size_t len,
                                  const la_run_field **differs);
/* ---------------------------------------------------------- checkpoints */
/* A checkpoint holds the description of the run (la_run_config: the one
   the trainer was made from, or one gathered from its configuration), theta,
   the optimizer's name and state, the step (schedule position) and the
   data RNG; the current batch of a RESAMPLE or FIXED run is redrawn from
   the saved RNG, so a resumed run continues bit for bit. Format version 2,
   little-endian whatever the host (IEEE-754 doubles assumed), reals stored
   as doubles (a float checkpoint loads into a double build exactly), the
   description as named fields (a field added later reads as zero, its
   default, from an older file), ending in an FNV-1a 64 checksum of all
   preceding bytes; docs/checkpoint.md gives the byte layout. Version 1
   files (no description) still load. Loading validates everything first:
   a bad file gives LA_EFORMAT (not a checkpoint, truncated or padded, a
   step beyond LONG_MAX, a batch RNG no batch can be drawn from (a
   RESAMPLE or FIXED run's batch is redrawn on load), a NaN or Inf in theta
   or state, a whole-number
   field out of its range or a real one not finite: a trainer takes reals
   beyond the ranges of a run's fields, and its checkpoint loads),
   LA_EVERSION (a version or a field this build does not know),
   LA_ECHECKSUM or LA_ESHAPE (another model, optimizer or state size) and
   leaves the trainer untouched. */
#define LA_CHECKPOINT_VERSION 3
LINATTN_DEF int la_checkpoint_bytes(const la_trainer *tr, size_t *bytes);
LINATTN_DEF int la_checkpoint_save_mem(const la_trainer *tr, void *buf,
                                       size_t cap, size_t *written);
LINATTN_DEF int la_checkpoint_load_mem(la_trainer *tr, const void *buf,
                                       size_t len);
/* Validates a checkpoint and reads its model config and step, so that a
   program can build the matching model before loading (either may be
   NULL; the config's kernels field is left NULL). */
LINATTN_DEF int la_checkpoint_info(const void *buf, size_t len,
                                   la_model_config *model, long *step);
/* The description of the run a checkpoint holds (run and step may be
   NULL); LA_EFORMAT for a version 1 file, which holds none. */
LINATTN_DEF int la_checkpoint_run(const void *buf, size_t len,
                                  la_run_config *run, long *step);
#ifndef LINATTN_NO_STDLIB
/* On a POSIX host (__unix__ or __APPLE__; whatever dialect the including
   file asks for: -std=c99 too; LINATTN_NO_POSIX_FILES turns it off): written
   to a new file beside PATH (PATH.<64 random bits>.tmp, created
   exclusively: never through a planted link, never over another file),
   fsync'ed, then renamed over PATH, so a crash leaves either the old or the
   new checkpoint, and a killed save at most a *.tmp file; an empty PATH, or
   one that exists and is not a regular file (a device, a FIFO, a folder),
   is LA_EIO and left as it is. A load reads only a regular file (a FIFO or
   a device is LA_EIO at once, never waited on) of at most 1e12 bytes.
   On Windows (_WIN32; LINATTN_NO_WIN32_FILES turns it off) the same
   holds with Win32 calls: PATH is UTF-8 (a name that is not is read in
   the ANSI code page, as fopen reads it), the temporary is created with
   CREATE_NEW, flushed by FlushFileBuffers and moved over PATH by
   MoveFileExW (MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH); a
   folder or a device (NUL, CON) is LA_EIO; a load opens its file shared
   for deletion, but a file another handle holds open may still refuse
   the move: the save is then LA_EIO and PATH keeps the old checkpoint.
   Elsewhere (bare C libraries, and the two switches above) only the C
   library is used: the temporary is PATH.tmp, created exclusively only by
   C11's "wbx" (a link planted there is followed before C11), nothing is
   fsync'ed, a PATH that is not a regular file is not told apart (saving
   over a device replaces it where rename can) and a load opens whatever
   fopen opens; on Windows rename cannot replace a file, so PATH is
   removed first and that window is not crash-safe. A theta or optimizer
   state that is not finite is refused before anything is written
   (LA_ENONFINITE: such a file would not load). */
LINATTN_DEF int la_checkpoint_save(const la_trainer *tr, const char *path);
LINATTN_DEF int la_checkpoint_load(la_trainer *tr, const char *path);
/* la_run_resume_mem on a file's bytes. */
LINATTN_DEF int la_run_resume(la_run *r, const char *path,
                              const la_run_field **differs);
#endif

/* ------------------------------------------------------ foreign callers */
/* For programs that reach the library through a foreign-function interface
   (Python's ctypes, Julia's ccall, ...) and so cannot see the structs. The
   run's structs (la_run_config, la_model, la_data, la_trainer, la_run) grow
   as the model and the trainer do: such a caller holds them as opaque
   blocks of la_sizeof bytes, reaches their members through the functions
   below and the run-field table, and mirrors only the small structs it
   passes by value, checking their sizes here. la_sizeof is 0 for an
   unknown type. */
enum {
  LA_TYPE_REAL = 0,        /* la_real: 4 (float) or 8 (LINATTN_DOUBLE) */
  LA_TYPE_RUN_CONFIG = 1,  /* la_run_config */
  LA_TYPE_RUN = 2,         /* la_run */
  LA_TYPE_MODEL = 3,       /* la_model */
  LA_TYPE_DATA = 4,        /* la_data */
  LA_TYPE_TRAINER = 5,     /* la_trainer */
  LA_TYPE_BATCH = 6,       /* la_batch */
  LA_TYPE_RNG = 7,         /* la_rng */
  LA_TYPE_RUN_FIELD = 8,   /* la_run_field */
  LA_TYPE_TRAIN_RECORD = 9, /* la_train_record */
  LA_TYPE_EIG_OUT = 10,    /* la_eig_out */
  LA_TYPE_LANCZOS_CONFIG = 11, /* la_lanczos_config */
  LA_TYPE_SLQ_CONFIG = 12, /* la_slq_config */
  LA_TYPE_RCOND_CONFIG = 13, /* la_rcond_config */
  LA_TYPE_RCOND = 14,      /* la_rcond */
  LA_TYPE_GRAD_NOISE_CONFIG = 15, /* la_grad_noise_config */
  LA_TYPE_NOISE_CONFIG = 16, /* la_noise_config */
  LA_TYPE_NOISE_STATS = 17, /* la_noise_stats */
  LA_TYPE_RUN_ENV = 18,    /* la_run_env */
  LA_TYPE_MEASURE_CONFIG = 19, /* la_measure_config */
  LA_TYPE_MEASURE_RECORD = 20  /* la_measure_record */
};
LINATTN_DEF size_t la_sizeof(int type);
/* The members of a mirrored type, in order: member i's offset, and its
   name in *name (which may be NULL); past the last, or for a type whose
   members are not listed (the opaque ones), (size_t)-1 and *name NULL. A
   caller checks its mirror member by member, so that a reorder of equal
   size is caught. */
LINATTN_DEF size_t la_member_at(int type, int i, const char **name);
/* The scalars of la_train_record, as a table: what a record holds, for a
   caller that keeps records as rows (key = the member's name; kind
   LA_FIELD_LONG or LA_FIELD_REAL; eval_loss holds only where has_eval).
   NULL past the end. */
typedef struct la_record_field {
  const char *key;
  int kind;
  size_t offset; /* in la_train_record */
  const char *help;
} la_record_field;
LINATTN_DEF const la_record_field *la_train_record_field_at(int i);
/* A run's objects (NULL for a NULL run): its trainer, model and data. */
LINATTN_DEF la_trainer *la_run_trainer(la_run *r);
LINATTN_DEF const la_model *la_run_model(const la_run *r);
LINATTN_DEF const la_data *la_run_data(const la_run *r);
/* The run's theta, in place (*n, which may be NULL, its length), its steps
   taken, and its evaluation batch (the one la_trainer_eval uses; drawn
   whatever eval_every says). */
LINATTN_DEF la_real *la_run_theta(la_run *r, int *n);
LINATTN_DEF long la_run_step(const la_run *r);
LINATTN_DEF const la_batch *la_run_eval_batch(const la_run *r);
/* The k-th batch (k >= 0) of the measurements along a run (the robust
   condition number, directional smoothness) into b (the caller's, of the
   run's d and n, measure.diag_batch prompts as a rule): la_run_env's
   diag[k] where the run was given them (b of their count, LA_ESHAPE
   otherwise; LA_ERANGE for k >= ndiag), else drawn from measure.diag_seed's
   stream LA_STREAM_DIAG - k. */
#define LA_STREAM_DIAG (LA_STREAM_EVAL - 2)
LINATTN_DEF int la_run_diag_batch(const la_run *r, int k, la_batch *b);

/* ------------------------------------------------ measuring along a run */
/* What a run's `measure` fields ask at a step, measured on the batches of
   la_run_diag_batch (k = 0 the fixed one) into a record, and the record
   written as the members of a JSON line. Five groups, each due at its own
   steps:
     smoothness  at smooth_every steps, along the step just taken: u^T H u
                 and ||grad f|| at the step's start (la_dir_smoothness), on
                 batch 0; not taken where no step was taken (prev NULL);
     rcond       at diag_every steps: R = max|H_ii| / median|H_ii| (the
                 `median` convention) on batch 0, and with diag_batches > 1
                 the median of R over batches 0 .. diag_batches - 1 with
                 its least and largest; lambda_max and lambda_median of
                 batch 0 (la_robust_cond), and their ratio where the median
                 is resolved;
     top         at diag_every steps, la_measure_config.top: the largest
                 Hessian eigenvalues on batch 0 (Lanczos, tolerance 1e-6);
     noise       at diag_every steps, la_measure_config.noise: paper A's
                 gradient noise of that many minibatches of the run's batch
                 (la_grad_noise from the seed's stream LA_STREAM_EVAL - 3,
                 `linattn noise`'s), summarized by la_noise_summary;
     blocks      at blocks_every steps: each parameter matrix's Hessian
                 block on batch 0 and its eigenvalues (la_hessian_blocks),
                 the Jensen-Shannon distances between those spectra
                 (la_spectra_js on 100 points; Zhang et al. 2024's block
                 heterogeneity): their mean over the pairs and their
                 largest; LA_EDIM for a model of one block.
   RESOLVED. lambda_max / lambda_median is a measured ratio only where the
   median stands above what the computation of the spectrum cannot tell
   from zero: la_rcond.resolved, |lambda_median| > la_rcond.resolution.
   That resolution is what the path taken can resolve: on the dense path
   the rounding measured in H itself (its asymmetry, the products' own
   rounding in la_real) or the eigensolver's n 2^-52 max|lambda|, on the
   iterative path Lanczos's tolerance and the quadrature nodes' spacing. A
   bound n u max|lambda| in la_real's unit roundoff u would call a median
   well above the rounding present noise (the bound is loose by the
   parameters' count), and a median within the nodes' spacing of an SLQ
   density resolved: it is not the rule.
   A group that fails (no convergence, an overflow, a value that is not
   finite) holds its status and no values, and the others are still
   measured: a diagnostic is a measurement, the run goes on.

   The keys, one table (la_measure_key_at): the row's key is the JSON
   member's name; an indexed row (top) is a list written key_1 .. key_k;
   a group that failed is written as "<group>_error" (la_measure_group)
   with la_status_str's message, where its keys would be. */
/* The rows: (id, key, group, kind, ONE value or a LIST, help). */
#define LA_MEASURE_KEYS(X)                                                    \
  X(SMOOTHNESS, "smoothness", SMOOTH, REAL, ONE,                              \
    "u^T H u along the step just taken, u its unit direction")                \
  X(SMOOTH_GRAD_NORM, "smooth_grad_norm", SMOOTH, REAL, ONE,                  \
    "||grad f|| at the step's start, from the same pass")                     \
  X(RCOND_DIAG, "rcond_diag", RCOND, REAL, ONE,                               \
    "R = max|H_ii| / median|H_ii| (NaN for a zero median); with several "     \
    "batches their median")                                                   \
  X(RCOND_DIAG_MIN, "rcond_diag_min", RCOND, REAL, ONE,                       \
    "R's least over the batches (diag_batches > 1)")                          \
  X(RCOND_DIAG_MAX, "rcond_diag_max", RCOND, REAL, ONE,                       \
    "R's largest over the batches (diag_batches > 1)")                        \
  X(RCOND_SPECTRUM, "rcond_spectrum", RCOND, REAL, ONE,                       \
    "lambda_max / lambda_median, where spectrum_resolved")                    \
  X(SPECTRUM_RESOLVED, "spectrum_resolved", RCOND, BOOL, ONE,                 \
    "1: |lambda_median| > la_rcond.resolution")                               \
  X(LAMBDA_MAX, "lambda_max", RCOND, REAL, ONE,                               \
    "the Hessian's largest eigenvalue")                                       \
  X(LAMBDA_MEDIAN, "lambda_median", RCOND, REAL, ONE,                         \
    "the median of its eigenvalues")                                          \
  X(TOP, "top", TOP, REAL, LIST,                                              \
    "a list: the largest eigenvalues, top_1 the largest")                     \
  X(NOISE_MEAN, "noise_mean", NOISE, REAL, ONE, "mean of ||g_B - g||")        \
  X(NOISE_VAR, "noise_var", NOISE, REAL, ONE,                                 \
    "its variance (divisor count - 1)")                                       \
  X(NOISE_KURTOSIS, "noise_kurtosis", NOISE, REAL, ONE, "its kurtosis")       \
  X(NOISE_HILL_ALPHA, "noise_hill_alpha", NOISE, REAL, ONE, "its tail index") \
  X(NOISE_HILL_STDERR, "noise_hill_stderr", NOISE, REAL, ONE,                 \
    "the tail index's standard error")                                        \
  X(NOISE_MIN, "noise_min", NOISE, REAL, ONE, "the least ||g_B - g||")        \
  X(NOISE_MAX, "noise_max", NOISE, REAL, ONE, "the largest ||g_B - g||")      \
  X(TRUE_GRAD_NORM, "true_grad_norm", NOISE, REAL, ONE,                       \
    "||g||, the gradient on the true batch")                                  \
  X(BLOCK_JS_MEAN, "block_js_mean", BLOCKS, REAL, ONE,                        \
    "the mean Jensen-Shannon distance between the blocks' Hessian spectra")   \
  X(BLOCK_JS_MAX, "block_js_max", BLOCKS, REAL, ONE,                          \
    "the largest such distance, of the two least alike blocks")
/* The table's rows by name (LA_MEASURE_SMOOTHNESS, ...). */
enum {
#define LA__MEASURE_ENUM(id, key, group, kind, arity, help) LA_MEASURE_##id,
  LA_MEASURE_KEYS(LA__MEASURE_ENUM)
#undef LA__MEASURE_ENUM
  LA_MEASURE_NKEYS
};
/* The groups (la_measure_group names them: "smoothness", "rcond", "top",
   "noise", "blocks"). */
#define LA_MEASURE_GROUPS(X)                                                  \
  X(SMOOTH, "smoothness") X(RCOND, "rcond") X(TOP, "top") X(NOISE, "noise")   \
  X(BLOCKS, "blocks")
enum {
#define LA__MEASURE_GENUM(id, name) LA_MEASURE_GROUP_##id,
  LA_MEASURE_GROUPS(LA__MEASURE_GENUM)
#undef LA__MEASURE_GENUM
  LA_MEASURE_NGROUPS
};
typedef struct la_measure_key {
  const char *key;  /* the JSON member (an indexed row's stem) */
  int group;        /* LA_MEASURE_GROUP_* */
  int kind;         /* LA_FIELD_REAL, or LA_FIELD_BOOL (written 0 or 1) */
  int indexed;      /* 1: a list, written key_1 .. key_k */
  const char *help;
} la_measure_key;
/* Row i of the table; NULL past the end. */
LINATTN_DEF const la_measure_key *la_measure_key_at(int i);
/* The row of a member's name, -1 for none; an indexed row's key_k (k >= 1)
   finds the row, *index (which may be NULL) = k - 1, else 0. */
LINATTN_DEF int la_measure_key_find(const char *name, int *index);
/* A group's name; NULL past the end. */
LINATTN_DEF const char *la_measure_group(int g);

typedef struct la_measure_config {
  int top;   /* eigenvalues at diag_every steps (at most the parameters);
                0 none */
  int noise; /* noise minibatches at diag_every steps; 0 none */
} la_measure_config;
typedef struct la_measure_record {
  long step;
  unsigned due;                   /* bit g: group g was due at this step */
  int status[LA_MEASURE_NGROUPS]; /* LA_OK, or why group g holds nothing */
  unsigned char has[LA_MEASURE_NKEYS]; /* row i holds a value */
  double value[LA_MEASURE_NKEYS]; /* row i's value; NaN where !has, for
                                     rcond_diag of a zero median, and for
                                     the list (its values are top's) */
  int ntop;                       /* top's values, in the workspace (valid */
  const double *top;              /* until it is used again) */
} la_measure_record;
/* The groups r's measure fields and cfg (NULL: zeros) measure at some
   step, bit g for group g (a reader's columns); 0 for a NULL run. */
LINATTN_DEF unsigned la_run_measure_groups(const la_run *r,
                                           const la_measure_config *cfg);
/* The workspace of la_run_measure for r's measure fields and cfg (NULL:
   zeros); 0 for a NULL run or one whose workspace a size query cannot
   answer. */
LINATTN_DEF size_t la_run_measure_work_bytes(const la_run *r,
                                             const la_measure_config *cfg);
/* Measures at `step` what is due there (the groups above) at theta; prev
   is theta before the step just taken, NULL where no step was taken or it
   was zero (no smoothness then). LA_OK whether or not a group failed (its
   status says); LA_ENULL, LA_ERANGE (cfg's negative counts) or
   LA_EWORKSPACE (rec then holds nothing due) otherwise. */
LINATTN_DEF int la_run_measure(const la_run *r, const la_measure_config *cfg,
                               long step, const la_real *theta,
                               const la_real *prev, la_measure_record *rec,
                               void *work, size_t bytes);
#ifndef LINATTN_NO_STDLIB
/* The record's members as JSON, in the table's order, separated by commas,
   without braces ("rcond_diag":12.5,"spectrum_resolved":1,...; "" when
   nothing was due): reals with 10 significant digits and null for a NaN
   or an infinity, a failed group as "<group>_error":"<message>". Writes
   at most cap bytes, a terminating NUL included, and returns the length
   of the whole text, as snprintf. */
LINATTN_DEF size_t la_measure_json(const la_measure_record *rec, char *buf,
                                   size_t cap);
#endif


/* ================================================================== */
/*    API 7. The research layer: paper B's baselines and its family  */
/* ================================================================== */
/* What serves paper B's studies rather than a model's user: the in-context
   baselines its theorems compare the model with, their tuners, and the
   optimum of its Theorem 3 family. Nothing above uses it;
   -DLINATTN_NO_RESEARCH compiles it out (declarations and code). */
#ifndef LINATTN_NO_RESEARCH

/* --------------------------------------------- in-context baselines */
/* The algorithms paper B says a trained linear transformer implements, as
   predictors on a batch (la_batch, the layout of API 2), scored as the
   model is scored: loss = mean over the prompts of (prediction - y_q)^2,
   no 1/2. Each prompt's least squares uses all n context points:
       R(w) = (1/2n) sum_{i=1..n} (<w, x_i> - y_i)^2
            = (1/2) w^T S w - c^T w + const,  S = X^T X / n, c = X^T y / n.
   Paper B's reference notebook runs its GD baselines on the first n - 1
   points only (a slip); here the model and the baselines see the same n.
   Everything is computed in double whatever la_real is, LA_W prompts at a
   time (the S, c and iterates of a panel's lanes side by side), in a
   workspace whose size does not depend on the batch's; work == NULL with
   bytes == 0 allocates it. Failures: LA_ENULL, LA_EDIM (an empty batch, d
   or n out of range, steps < 1), LA_ERANGE (lambda < 0, a search interval
   or grid out of range), LA_ENONFINITE (a NaN or Inf among the inputs or
   the data of a valid prompt), LA_EWORKSPACE, LA_EOVERFLOW (a tuner's grid
   times steps beyond 1e8), LA_EDIVERGED (finite inputs, a loss that is
   not: outputs written as computed). Nothing is written before the checks
   pass, except that a prompt with a NaN is found panel by panel: losses
   are then not written, pred may hold the earlier panels'. */

/* k-step gradient descent from w_0 = 0:
       w_{t+1} = w_t - eta_t P grad R(w_t) = w_t - eta_t P (S w_t - c),
   prediction <w_t, x_q>. P = precond, any d x d matrix (row-major), NULL
   for the identity; paper B's preconditioned GD is P = Sigma^-1
   (la_data_sigma_inv). Step sizes may be any finite numbers. */
typedef struct la_gd_spec {
  int steps;             /* k >= 1 */
  double eta;            /* the step size of every step, when etas is NULL */
  const double *etas;    /* or one step size per step (steps entries) */
  const double *precond; /* d x d row-major; NULL: identity */
} la_gd_spec;
/* losses (steps entries, may be NULL): the loss after 1, 2, .., steps
   steps; pred (b->count, may be NULL): the predictions after all steps. */
LINATTN_DEF size_t la_gd_work_bytes(int d, int n);
LINATTN_DEF int la_gd_eval(const la_batch *b, const la_gd_spec *s,
                           double *losses, la_real *pred, void *work,
                           size_t bytes);

/* Ridge regression w = argmin R(w) + (lambda/2) |w|^2 = (S + lambda I)^-1 c
   (a Cholesky solve); lambda = 0 is ordinary least squares with the
   minimum-norm solution, w = S^+ c = X^+ y (the pseudo-inverse, from the
   eigenvectors of S by Jacobi's method: eigenvalues below
   1000 d eps lambda_max(S) count as zero), so n < d and other
   rank-deficient prompts are fine. lambda < 0: LA_ERANGE. */
LINATTN_DEF size_t la_ridge_work_bytes(int d, int n);
LINATTN_DEF int la_ridge_eval(const la_batch *b, double lambda, double *loss,
                              la_real *pred, void *work, size_t bytes);

/* Tuners: the step size (or lambda) with the least loss on a validation
   batch, by a log-spaced grid over [lo, hi] and then golden-section search
   on the log between the best grid point's neighbours, to a bracket of
   width tol. The answer lies in [lo, hi]; a loss that overflows counts as
   +infinity (LA_EDIVERGED, nothing written, when every grid point's does
   for some k; for ridge, when least squares' does too). */
typedef struct la_tune_config {
  double lo, hi; /* 0 < lo < hi; 0 -> the tuner's default interval */
  int grid;      /* grid points, 3 .. 10000; 0 -> 31 */
  double tol;    /* final bracket width in log; 0 -> 1e-6 */
} la_tune_config;
/* For every k = 1 .. steps, the constant step size of k-step GD (precond
   as in la_gd_spec) with the least loss on val: eta[k-1] and that loss,
   loss[k-1]. Default interval [1e-4, 1e2]. */
LINATTN_DEF size_t la_gd_tune_work_bytes(int d, int n, int steps,
                                         const la_tune_config *cfg);
LINATTN_DEF int la_gd_tune(const la_batch *val, int steps,
                           const double *precond, const la_tune_config *cfg,
                           double *eta, double *loss, void *work,
                           size_t bytes);
/* The ridge lambda with the least loss on val among 0 (least squares) and
   [lo, hi] (default [1e-8, 1e2]); 0 wins ties. */
LINATTN_DEF size_t la_ridge_tune_work_bytes(int d, int n,
                                            const la_tune_config *cfg);
LINATTN_DEF int la_ridge_tune(const la_batch *val, const la_tune_config *cfg,
                              double *lambda, double *loss, void *work,
                              size_t bytes);

/* ------------------------------------------ paper B's Theorem 3 family */
/* Sigma^-1 of a data setting as a d x d row-major matrix in double, from
   its Cholesky factor (the identity when Sigma = I). */
LINATTN_DEF int la_data_sigma_inv(const la_data *g, double *sinv);

/* The family A_l = a_l M, B_l = 0 of a LA_PARAM_PGD model (linear
   attention, no front layer: LA_ERANGE otherwise), M = sinv (d x d
   row-major; NULL: the identity). By Lemma 1 such a model predicts what
   la_gd_eval predicts with etas[l] = -a[l] and precond = M^T: paper B's
   preconditioned GD with step sizes -a_l. theta receives the L blocks. */
LINATTN_DEF int la_pgd_family_theta(const la_model *m, const double *sinv,
                                    const double *a, la_real *theta);
/* The a_l (L of them) that minimize the model's loss on b within the
   family, and that loss: Newton's method on the L scalars with the model's
   gradient (dLoss/da_l = <dLoss/dA_l, M>) and Hessian (from L
   Hessian-vector products), a Levenberg-Marquardt shift where the Hessian
   is not positive definite and backtracking on the loss, started from
   step sizes spread like Chebyshev nodes over the Marchenko-Pastur range
   (1 +- sqrt(d/n))^2. The loss is symmetric in the a_l (Lemma 4), so they
   are returned in ascending order of the step size -a_l. LA_ENOCONVERGE
   when the steps did not settle within 100 iterations at a point whose
   Hessian is positive definite (a and loss then hold the last iterate).
   The population optima for Sigma = I, d = 5, n = 20 (a closed form, see
   docs/paperb.md): -a = 0.7692 = n/(n+d+1) (L = 1); 0.5154, 1.2496;
   0.4224, 0.6891, 1.7142; 0.3621, 0.5205, 0.8890, 2.1389 (paper B
   reports 0.769; 0.519, 1.251; 0.428, 0.698, 1.729; 0.375, 0.530, 0.905,
   2.167, found numerically). */
LINATTN_DEF size_t la_pgd_optimum_work_bytes(const la_model *m);
LINATTN_DEF int la_pgd_optimum(const la_model *m, const la_batch *b,
                               const double *sinv, double *a, double *loss,
                               void *work, size_t bytes);
#endif /* LINATTN_NO_RESEARCH */

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

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#ifndef LINATTN_NO_STDLIB
#include <stdio.h> /* checkpoint files; the run's messages (snprintf) */
#endif

#ifdef LINATTN_DOUBLE
#define LA__REAL_MAX DBL_MAX
#else
#define LA__REAL_MAX FLT_MAX
#endif

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

/* ----------------------------------------------------- finiteness, once */
/* x - x is 0 for every finite x and NaN for an infinity or a NaN: no
   library call, no branch. Every finiteness check of the implementation is
   one of these two (the public API's inputs use la__finite() only where a
   status must name which input was bad). */
LA__INLINE int la__finite(double x) { return x - x == 0; }

/* Every entry finite: one sum of x * 0 carries any NaN or infinity, which
   costs less than a test per entry. */
static int la__all_finite(int n, const la_real *x) {
  double acc = 0;
  int i;
  for (i = 0; i < n; ++i) acc += (double)x[i] * 0.0;
  return acc == 0;
}

/* ------------------------------------------------------ alignment, once */
/* n rounded up to a multiple of LA_ALIGN, and the bytes from p to its next
   LA_ALIGN boundary: every carving of a workspace aligns with these. */
LA__INLINE size_t la__round_up(size_t n) {
  return (n + LA_ALIGN - 1) / LA_ALIGN * LA_ALIGN;
}
LA__INLINE size_t la__align_gap(const void *p) {
  size_t off = (size_t)((uintptr_t)p % LA_ALIGN);
  return la__round_up(off) - off;
}

/* -------------------------------------------------- workspace carving */
/* Every workspace of the implementation is carved by one walk that serves
   both its size query (base == NULL counts) and the carving, so the two can
   never disagree. (The model's layout, la__m_layout, counts panel elements
   in double before it forms a size: its largest models exceed size_t on a
   32-bit host.) */
typedef struct la__arena {
  unsigned char *base;
  size_t used, cap;
  int over; /* a region passed LA__WORK_MAX: the size query says so */
} la__arena;

/* The largest workspace a size query answers with (1e12 bytes on 64-bit
   hosts). Products are held to it in double before they are formed in
   size_t, which on a 32-bit host would wrap long before memory runs out. */
#define LA__WORK_MAX                                                          \
  ((double)(size_t)-1 / 4 < 1e12 ? (double)(size_t)-1 / 4 : 1e12)

/* The offset of the next region of `bytes`, aligned. A count past
   LA__WORK_MAX marks the walk over instead of wrapping. */
static size_t la__take_off(la__arena *a, size_t bytes) {
  size_t at = la__round_up(a->used);
  if (a->over || (double)at + (double)bytes > LA__WORK_MAX) {
    a->over = 1;
    return 0;
  }
  a->used = at + bytes;
  /* a carving walk stays within the block its counting walk sized */
  LINATTN_ASSERT(!a->base || a->used <= a->cap);
  return at;
}
static void *la__take(la__arena *a, size_t bytes) {
  size_t at = la__take_off(a, bytes);
  return a->base && !a->over ? (void *)(a->base + at) : NULL;
}
static la__arena la__arena_count(void) {
  la__arena a;
  a.base = NULL; a.used = 0; a.cap = 0; a.over = 0;
  return a;
}
static la__arena la__arena_on(void *work, size_t bytes) {
  la__arena a;
  a.base = (unsigned char *)work; a.used = 0; a.cap = bytes; a.over = 0;
  return a;
}
/* The end of a counting walk: its size, padded for the base's alignment;
   0 when a region did not fit. */
static size_t la__arena_size(const la__arena *a) {
  return a->over ? 0 : a->used + LA_ALIGN;
}
/* Aligns the caller's block; false when it is too small. */
static int la__arena_align(la__arena *a) {
  size_t gap = la__align_gap(a->base);
  if (a->cap < gap) return 0;
  a->base += gap;
  a->cap -= gap;
  return 1;
}

/* ------------------------------------------------ backend selection */

/* Fused multiply-add on x86: __FMA__ (gcc, clang, clang-cl); MSVC's
   /arch:AVX2 and /arch:AVX512 enable FMA but never define __FMA__. */
#if defined(__FMA__) ||                                                       \
    (defined(_MSC_VER) && !defined(__clang__) && defined(__AVX2__))
#define LA__X86_FMA 1
#else
#define LA__X86_FMA 0
#endif
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX2__) &&     \
    LA__X86_FMA
#define LA__HAVE_AVX512 1
#else
#define LA__HAVE_AVX512 0
#endif
#if defined(__AVX2__) && LA__X86_FMA
#define LA__HAVE_AVX2 1
#else
#define LA__HAVE_AVX2 0
#endif
#if defined(__ARM_NEON) || defined(__ARM_NEON__)
#define LA__HAVE_NEON 1
#else
#define LA__HAVE_NEON 0
#endif
#if defined(__wasm_simd128__)
#define LA__HAVE_WASM_SIMD128 1
#else
#define LA__HAVE_WASM_SIMD128 0
#endif
/* An ARMv7-A (or later 32-bit A-profile) target compiled without NEON:
   Debian's armhf defaults (-mfpu=vfpv3-d16) give the scalar backend, a
   lane at a time on a core that would take four. Say so, unless a
   backend was chosen (LINATTN_SIMD=LINATTN_SCALAR for a core without
   NEON). */
#if !defined(LINATTN_SIMD) && defined(__arm__) && !defined(__aarch64__) &&   \
    !defined(__ARM_NEON) && !defined(__ARM_NEON__) &&                        \
    defined(__ARM_ARCH) && __ARM_ARCH >= 7 &&                                \
    defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'A'
#warning "linattn.h: ARM without NEON: scalar backend (add -mfpu=neon-vfpv4, or define LINATTN_SIMD=LINATTN_SCALAR to keep it)"
#endif
/* A forced backend the compiler cannot honour sets LA__SIMD_REFUSED to
   the flags it needs; the scalar backend is used and the build says so
   (a #warning, MSVC's #pragma message, which has no #warning). */
#if !defined(LINATTN_SIMD)
#if LA__HAVE_AVX512
#define LA__SIMD LINATTN_AVX512
#elif LA__HAVE_AVX2
#define LA__SIMD LINATTN_AVX2
#elif LA__HAVE_NEON
#define LA__SIMD LINATTN_NEON
#elif LA__HAVE_WASM_SIMD128
#define LA__SIMD LINATTN_WASM_SIMD128
#else
#define LA__SIMD LINATTN_SCALAR
#endif
#elif LINATTN_SIMD == LINATTN_AVX2
#if LA__HAVE_AVX2
#define LA__SIMD LINATTN_AVX2
#else
#define LA__SIMD_REFUSED "linattn.h: LINATTN_SIMD=LINATTN_AVX2 needs -mavx2 -mfma (MSVC: /arch:AVX2); using scalar"
#endif
#elif LINATTN_SIMD == LINATTN_AVX512
#if LA__HAVE_AVX512
#define LA__SIMD LINATTN_AVX512
#else
#define LA__SIMD_REFUSED "linattn.h: LINATTN_SIMD=LINATTN_AVX512 needs -mavx512f -mavx512vl -mfma (MSVC: /arch:AVX512); using scalar"
#endif
#elif LINATTN_SIMD == LINATTN_NEON
#if LA__HAVE_NEON
#define LA__SIMD LINATTN_NEON
#else
#define LA__SIMD_REFUSED "linattn.h: LINATTN_SIMD=LINATTN_NEON needs an ARM NEON target; using scalar"
#endif
#elif LINATTN_SIMD == LINATTN_WASM_SIMD128
#if LA__HAVE_WASM_SIMD128
#define LA__SIMD LINATTN_WASM_SIMD128
#else
#define LA__SIMD_REFUSED "linattn.h: LINATTN_SIMD=LINATTN_WASM_SIMD128 needs -msimd128; using scalar"
#endif
#else
#define LA__SIMD LINATTN_SCALAR
#endif
#ifdef LA__SIMD_REFUSED
#define LA__SIMD LINATTN_SCALAR
#if defined(_MSC_VER) && !defined(__clang__)
#pragma message(LA__SIMD_REFUSED)
#else
#define LA__PRAGMA_STR(x) #x
#define LA__PRAGMA(x) _Pragma(LA__PRAGMA_STR(x))
LA__PRAGMA(GCC warning LA__SIMD_REFUSED)
#endif
#endif

/* 32-bit ARM NEON has no double lanes: a double build there is scalar. */
#if LA__SIMD == LINATTN_NEON && defined(LINATTN_DOUBLE) && !defined(__aarch64__)
#undef LA__SIMD
#define LA__SIMD LINATTN_SCALAR
#endif

/* The two x86 backends share the 256-bit panel vector (LA_W is fixed by
   the precision); AVX-512 adds 32 registers, wider generator lanes and,
   where a core has two 512-bit FMA units, twice the peak. */
#define LA__X86 (LA__SIMD == LINATTN_AVX2 || LA__SIMD == LINATTN_AVX512)
/* LA__WIDE: the model's wide panels (LINATTN_PANEL_BITS, see OPTIONS). */
#if defined(LINATTN_PANEL_BITS) && LINATTN_PANEL_BITS != 256 &&               \
    LINATTN_PANEL_BITS != 512
#error "linattn.h: LINATTN_PANEL_BITS must be 256 or 512"
#endif
#if LA__SIMD == LINATTN_AVX512 &&                                             \
    (!defined(LINATTN_PANEL_BITS) || LINATTN_PANEL_BITS == 512)
#define LA__WIDE 1
#else
#define LA__WIDE 0
#endif
#if LA__X86
#include <immintrin.h>
#elif LA__SIMD == LINATTN_NEON
#include <arm_neon.h>
#elif LA__SIMD == LINATTN_WASM_SIMD128
#include <wasm_simd128.h>
#endif

/* The built-in thread pool: POSIX threads (LA__THREADS 1) with gcc's or
   clang's atomics for the counters its workers spin on before they sleep;
   on Windows (LA__THREADS 2) Win32 threads, SRW locks and condition
   variables (Vista and later), with the same atomics under MinGW and
   clang, the Interlocked functions under MSVC. */
#if defined(LINATTN_NO_THREADS) || defined(LINATTN_NO_STDLIB)
#define LA__THREADS 0
#elif (defined(__unix__) || defined(__unix) || defined(__APPLE__)) &&        \
    (defined(__GNUC__) || defined(__clang__))
#define LA__THREADS 1
#include <pthread.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h> /* sched_getaffinity where the dialect declares it */
#endif
#elif defined(_WIN32)
#define LA__THREADS 2
#else
#define LA__THREADS 0
#endif
/* Windows: the pool and the checkpoint files' replacement (see
   la_checkpoint_save) need <windows.h>; a build that must not see it
   defines LINATTN_NO_THREADS and LINATTN_NO_WIN32_FILES. */
#if defined(_WIN32) && !defined(LINATTN_NO_STDLIB) &&                       \
    (LA__THREADS == 2 || !defined(LINATTN_NO_WIN32_FILES))
#include <windows.h>
#endif

/* No contraction anywhere in the implementation: a * b + c is a multiply
   rounded, then an add rounded, whatever the compiler or language, so that
   gcc, g++, clang and clang++ give the same bits at every optimization
   level. Where a fused multiply-add is wanted the code says so (the SIMD
   FMA intrinsics, fmaf and fma). gcc ignores the STDC pragma and contracts
   by default in GNU C and in every C++ mode; its optimize pragma is what
   it and g++ obey. Restored after the implementation, so a user's code
   keeps the user's setting (MSVC's fp_contract has no push: it stays off
   to the end of the implementing file).
   Float is evaluated in float: gcc in ISO C mode on s390x
   (__FLT_EVAL_METHOD__ 1, to match glibc's float_t there, which is double)
   would compute float expressions in double and round to float only at
   assignments, casts, calls and returns, so that a * b + c rounds like a
   fused multiply-add and one sum written as one expression or as two
   statements differ; excess-precision=fast gives float operations, as on
   every other host. (Not x87, whose method 2 this does not change.) */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(_MSC_VER)
#pragma fp_contract(off) /* not restored: MSVC has no push for it */
#elif defined(__GNUC__)
#pragma GCC push_options
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ == 1
#pragma GCC optimize("fp-contract=off", "excess-precision=fast")
#else
#pragma GCC optimize("fp-contract=off")
#endif
#endif

/* ---- fused multiply-add where the C library's is not correctly rounded */
/* MinGW-w64's fma and fmaf, used where the target has no FMA instruction,
   round twice (through the x87's 64-bit products): their bits differ from
   every other host's. la__fma_soft and la__fmaf_soft are a b + c rounded
   once to nearest even, from the exact product: the double one on 64-bit
   integers (a 106-bit product and a sticky bit), the float one by rounding
   the exact double sum to odd before rounding to float (53 bits >= 24 + 2:
   one correct rounding). Both are compiled everywhere and tested against
   the C library where it is correctly rounded; the implementation calls
   la__fma and la__fmaf, theirs on MinGW without FMA (and la__fma_soft
   on WASI, whose fma misses the sign of an underflow), else the C
   library's (an FMA instruction where the target has one). */
#if defined(__GNUC__) || defined(__clang__)
#define LA__MAYBE_UNUSED static __attribute__((unused))
#else
#define LA__MAYBE_UNUSED static
#endif
static uint64_t la__dbits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
static double la__dfrom(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}
static int la__clz64(uint64_t x) {
  int n = 0;
  if (!x) return 64;
  while (!(x >> 63)) x <<= 1, ++n;
  return n;
}
/* (h, l) shifted left by n in [0, 127]; right by n with the bits shifted
   out ORed into bit 0 (sticky) */
static void la__shl128(uint64_t *h, uint64_t *l, int n) {
  if (n == 0) return;
  if (n >= 64) {
    *h = *l << (n - 64);
    *l = 0;
  } else {
    *h = *h << n | *l >> (64 - n);
    *l <<= n;
  }
}
static void la__shr128_sticky(uint64_t *h, uint64_t *l, int n) {
  uint64_t lost;
  if (n == 0) return;
  if (n >= 128) {
    *l = (*h | *l) != 0;
    *h = 0;
    return;
  }
  if (n < 64) {
    lost = *l & (((uint64_t)1 << n) - 1);
    *l = *l >> n | *h << (64 - n);
    *h >>= n;
  } else {
    lost = *l | (n > 64 ? *h & (((uint64_t)1 << (n - 64)) - 1) : 0);
    *l = n > 64 ? *h >> (n - 64) : *h;
    *h = 0;
  }
  *l |= lost != 0;
}
/* the 128-bit product of a and b */
static void la__mul64(uint64_t a, uint64_t b, uint64_t *h, uint64_t *l) {
  uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu,
           b1 = b >> 32;
  uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  *l = (mid << 32) | (p00 & 0xffffffffu);
  *h = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
/* sign, biased exponent and significand (implicit bit at 52; a subnormal
   normalized, its exponent below 1) */
static void la__dsplit(uint64_t b, int *s, int *e, uint64_t *m) {
  *s = (int)(b >> 63);
  *e = (int)(b >> 52 & 0x7ff);
  *m = b & (((uint64_t)1 << 52) - 1);
  if (*e == 0) {
    int shift = la__clz64(*m) - 11;
    *m <<= shift;
    *e = 1 - shift;
  } else {
    *m |= (uint64_t)1 << 52;
  }
}

LA__MAYBE_UNUSED double la__fma_soft(double x, double y, double z) {
  const uint64_t inf = (uint64_t)0x7ff << 52;
  uint64_t bx = la__dbits(x), by = la__dbits(y), bz = la__dbits(z);
  uint64_t xm, ym, zm, pm1, pm2, zm1, zm2, m;
  int xs, xe, ys, ye, zs, ze, ps, pe, top0;
  if (x == 0 || y == 0 || (bx & inf) == inf || (by & inf) == inf)
    return x * y + z; /* exact product (0, or inf or NaN): one rounding */
  if ((bz & inf) == inf) return z;
  if (z == 0) return x * y; /* the product's one rounding, its sign */
  la__dsplit(bx, &xs, &xe, &xm);
  la__dsplit(by, &ys, &ye, &ym);
  la__dsplit(bz, &zs, &ze, &zm);
  /* the product, its top bit at 126 or 125 of (pm1, pm2), made 126 */
  pe = xe + ye - 1023 + 1;
  la__mul64(xm << 10, ym << 11, &pm1, &pm2);
  zm1 = zm << 10;
  zm2 = 0;
  ps = xs ^ ys;
  top0 = (int)((~pm1 >> 62) & 1);
  la__shl128(&pm1, &pm2, top0);
  pe -= top0;
  if (pe < ze || (pe == ze && pm1 < zm1)) { /* |p| >= |z| */
    uint64_t t1 = pm1, t2 = pm2;
    int ts = ps, te = pe;
    pm1 = zm1, pm2 = zm2, ps = zs, pe = ze;
    zm1 = t1, zm2 = t2, zs = ts, ze = te;
  }
  if (ps != zs && pe == ze && pm1 == zm1 && pm2 == zm2) return 0.0;
  la__shr128_sticky(&zm1, &zm2, pe - ze);
  if (ps == zs) {
    uint64_t c;
    pm2 += zm2;
    c = pm2 < zm2;
    pm1 += zm1 + c;
    pe -= (int)(~pm1 >> 63);
    la__shr128_sticky(&pm1, &pm2, 64 + (int)(pm1 >> 63));
    m = pm2;
  } else {
    uint64_t c = pm2 < zm2;
    int nz;
    pm2 -= zm2;
    pm1 -= zm1 + c;
    nz = pm1 ? la__clz64(pm1) : 64 + la__clz64(pm2);
    pe -= nz;
    la__shl128(&pm1, &pm2, nz - 1);
    m = pm1 | (pm2 != 0);
  }
  /* m's top bit at 62; round to 53 bits, ties to even */
  if (pe > 1022 + 1023 ||
      (pe == 1022 + 1023 && ((m + ((uint64_t)1 << 9)) >> 63) == 1))
    return la__dfrom((uint64_t)ps << 63 | inf);
  if (pe < 0) {
    int n = -pe;
    m = n >= 64 ? m != 0 : m >> n | ((m & (((uint64_t)1 << n) - 1)) != 0);
    pe = 0;
  }
  m = ((m + ((uint64_t)1 << 9)) >> 10) &
      ~(uint64_t)((m & 0x3ff) == 0x200 ? 1 : 0); /* a tie: to even */
  if (!m) pe = 0;
  return la__dfrom(((uint64_t)ps << 63) + ((uint64_t)pe << 52) + m);
}

LA__MAYBE_UNUSED float la__fmaf_soft(float x, float y, float z) {
  double xy = (double)x * (double)y; /* exact: 48 bits */
  double s = xy + (double)z, bp = s - xy;
  double e = (xy - (s - bp)) + ((double)z - bp); /* s + e = xy + z */
  uint64_t u = la__dbits(s);
  if (e != 0 && (u >> 52 & 0x7ff) != 0x7ff && !(u & 1)) {
    u += (e > 0) == (s > 0) ? 1 : (uint64_t)-1; /* to odd, toward e */
    s = la__dfrom(u);
  }
  return (float)s;
}
#if defined(__MINGW32__) && !LA__X86_FMA
#define la__fma la__fma_soft
#define la__fmaf la__fmaf_soft
#elif defined(__wasi__)
/* wasi-libc's fma gives +0 for a product that underflows to -0 */
#define la__fma la__fma_soft
#define la__fmaf fmaf
#else
#define la__fma fma
#define la__fmaf fmaf
#endif

/* ----------------------------------------------------- version, status */

LINATTN_DEF int la_version(void) { return LINATTN_VERSION_NUMBER; }

#define LA__STR2(x) #x
#define LA__STR(x) LA__STR2(x)
LINATTN_DEF const char *la_version_string(void) {
  return LA__STR(LINATTN_VERSION_MAJOR) "." LA__STR(
      LINATTN_VERSION_MINOR) "." LA__STR(LINATTN_VERSION_PATCH);
}

/* Every status: its code, its name, its message (LA_STATUS_LIST). */
#define LA__STATUS_ROW(name, code, message) {name, #name, message},
static const struct {
  int status;
  const char *name, *message;
} la__statuses[] = {LA_STATUS_LIST(LA__STATUS_ROW)};
#undef LA__STATUS_ROW

static int la__status_row(int status) {
  int i, n = (int)(sizeof la__statuses / sizeof la__statuses[0]);
  for (i = 0; i < n; ++i)
    if (la__statuses[i].status == status) return i;
  return -1;
}

LINATTN_DEF const char *la_status_str(int status) {
  int i = la__status_row(status);
  return i < 0 ? "unknown status" : la__statuses[i].message;
}

LINATTN_DEF const char *la_status_name(int status) {
  int i = la__status_row(status);
  return i < 0 ? "" : la__statuses[i].name;
}

LINATTN_DEF int la_backend(void) { return LA__SIMD; }

/* The backend's name is its kernel table's: written once, there. */
LINATTN_DEF const char *la_backend_name(void) { return la_kernels_best()->name; }

/* ================================================================== */
/*                     1. SIMD layer and kernels                      */
/* ================================================================== */

/* ------------------------------------------------------- SIMD layer */
/* One la__vec holds the LA_W lanes of a panel element. Kernels are written
   once against these few operations; vload/vstore need LA_ALIGN-aligned
   panels, vloadu/vstoreu take plain vectors at any address. */

#if LA__X86 && !defined(LINATTN_DOUBLE)
typedef __m256 la__vec;
LA__INLINE la__vec la__vload(const la_real *p) { return _mm256_load_ps(p); }
LA__INLINE la__vec la__vloadu(const la_real *p) { return _mm256_loadu_ps(p); }
LA__INLINE void la__vstore(la_real *p, la__vec v) { _mm256_store_ps(p, v); }
LA__INLINE void la__vstoreu(la_real *p, la__vec v) { _mm256_storeu_ps(p, v); }
LA__INLINE la__vec la__vset1(la_real x) { return _mm256_set1_ps(x); }
LA__INLINE la__vec la__vzero(void) { return _mm256_setzero_ps(); }
LA__INLINE la__vec la__vmul(la__vec a, la__vec b) { return _mm256_mul_ps(a, b); }
LA__INLINE la__vec la__vadd(la__vec a, la__vec b) { return _mm256_add_ps(a, b); }
LA__INLINE la__vec la__vfma(la__vec c, la__vec a, la__vec b) {
  return _mm256_fmadd_ps(a, b, c);
}
LA__INLINE la__vec la__vsub(la__vec a, la__vec b) { return _mm256_sub_ps(a, b); }
LA__INLINE la__vec la__vmax(la__vec a, la__vec b) { return _mm256_max_ps(a, b); }
LA__INLINE la__vec la__vmin(la__vec a, la__vec b) { return _mm256_min_ps(a, b); }
/* The bits of x shifted left by LA__EXP_SHIFT: 2^k from k + LA__EXP_BIAS. */
LA__INLINE la__vec la__vshl_exp(la__vec x) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(x), 23));
}
/* y where y >= lo, else 0; then x where x is NaN. */
LA__INLINE la__vec la__vexp_edges(la__vec x, la__vec y, la__vec lo) {
  y = _mm256_and_ps(y, _mm256_cmp_ps(y, lo, _CMP_GE_OQ));
  return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}
/* 0 where y < lo, else y (a NaN y stays). */
LA__INLINE la__vec la__vflush(la__vec y, la__vec lo) {
  return _mm256_andnot_ps(_mm256_cmp_ps(y, lo, _CMP_LT_OQ), y);
}
#elif LA__X86
typedef __m256d la__vec;
LA__INLINE la__vec la__vload(const la_real *p) { return _mm256_load_pd(p); }
LA__INLINE la__vec la__vloadu(const la_real *p) { return _mm256_loadu_pd(p); }
LA__INLINE void la__vstore(la_real *p, la__vec v) { _mm256_store_pd(p, v); }
LA__INLINE void la__vstoreu(la_real *p, la__vec v) { _mm256_storeu_pd(p, v); }
LA__INLINE la__vec la__vset1(la_real x) { return _mm256_set1_pd(x); }
LA__INLINE la__vec la__vzero(void) { return _mm256_setzero_pd(); }
LA__INLINE la__vec la__vmul(la__vec a, la__vec b) { return _mm256_mul_pd(a, b); }
LA__INLINE la__vec la__vadd(la__vec a, la__vec b) { return _mm256_add_pd(a, b); }
LA__INLINE la__vec la__vfma(la__vec c, la__vec a, la__vec b) {
  return _mm256_fmadd_pd(a, b, c);
}
LA__INLINE la__vec la__vsub(la__vec a, la__vec b) { return _mm256_sub_pd(a, b); }
LA__INLINE la__vec la__vmax(la__vec a, la__vec b) { return _mm256_max_pd(a, b); }
LA__INLINE la__vec la__vmin(la__vec a, la__vec b) { return _mm256_min_pd(a, b); }
LA__INLINE la__vec la__vshl_exp(la__vec x) {
  return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_castpd_si256(x), 52));
}
LA__INLINE la__vec la__vexp_edges(la__vec x, la__vec y, la__vec lo) {
  y = _mm256_and_pd(y, _mm256_cmp_pd(y, lo, _CMP_GE_OQ));
  return _mm256_blendv_pd(y, x, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
}
LA__INLINE la__vec la__vflush(la__vec y, la__vec lo) {
  return _mm256_andnot_pd(_mm256_cmp_pd(y, lo, _CMP_LT_OQ), y);
}
#endif
#if LA__WIDE
/* The model's wide panels: LA__WL lanes, one 512-bit vector, 64-byte
   aligned in the model's workspace. */
#define LA__WL (2 * LA_W)
#ifndef LINATTN_DOUBLE
typedef __m512 la__wvec;
LA__INLINE la__wvec la__wload(const la_real *p) { return _mm512_load_ps(p); }
LA__INLINE void la__wstore(la_real *p, la__wvec v) { _mm512_store_ps(p, v); }
LA__INLINE la__wvec la__wset1(la_real x) { return _mm512_set1_ps(x); }
LA__INLINE la__wvec la__wzero(void) { return _mm512_setzero_ps(); }
LA__INLINE la__wvec la__wmul(la__wvec a, la__wvec b) { return _mm512_mul_ps(a, b); }
LA__INLINE la__wvec la__wadd(la__wvec a, la__wvec b) { return _mm512_add_ps(a, b); }
LA__INLINE la__wvec la__wfma(la__wvec c, la__wvec a, la__wvec b) {
  return _mm512_fmadd_ps(a, b, c);
}
#else
typedef __m512d la__wvec;
LA__INLINE la__wvec la__wload(const la_real *p) { return _mm512_load_pd(p); }
LA__INLINE void la__wstore(la_real *p, la__wvec v) { _mm512_store_pd(p, v); }
LA__INLINE la__wvec la__wset1(la_real x) { return _mm512_set1_pd(x); }
LA__INLINE la__wvec la__wzero(void) { return _mm512_setzero_pd(); }
LA__INLINE la__wvec la__wmul(la__wvec a, la__wvec b) { return _mm512_mul_pd(a, b); }
LA__INLINE la__wvec la__wadd(la__wvec a, la__wvec b) { return _mm512_add_pd(a, b); }
LA__INLINE la__wvec la__wfma(la__wvec c, la__wvec a, la__wvec b) {
  return _mm512_fmadd_pd(a, b, c);
}
#endif
#define LA__MALIGN 64 /* the model workspace's alignment */
#else
#define LA__MALIGN LA_ALIGN
#endif
#if LA__X86
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
LA__INLINE la__vec la__vadd(la__vec a, la__vec b) {
  la__vec v; v.lo = vaddq_f32(a.lo, b.lo); v.hi = vaddq_f32(a.hi, b.hi); return v;
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
LA__INLINE la__vec la__vsub(la__vec a, la__vec b) {
  la__vec v; v.lo = vsubq_f32(a.lo, b.lo); v.hi = vsubq_f32(a.hi, b.hi); return v;
}
LA__INLINE la__vec la__vmax(la__vec a, la__vec b) {
  la__vec v; v.lo = vmaxq_f32(a.lo, b.lo); v.hi = vmaxq_f32(a.hi, b.hi); return v;
}
LA__INLINE la__vec la__vmin(la__vec a, la__vec b) {
  la__vec v; v.lo = vminq_f32(a.lo, b.lo); v.hi = vminq_f32(a.hi, b.hi); return v;
}
LA__INLINE float32x4_t la__vshl_exp4(float32x4_t x) {
  return vreinterpretq_f32_u32(vshlq_n_u32(vreinterpretq_u32_f32(x), 23));
}
LA__INLINE la__vec la__vshl_exp(la__vec x) {
  la__vec v; v.lo = la__vshl_exp4(x.lo); v.hi = la__vshl_exp4(x.hi); return v;
}
LA__INLINE float32x4_t la__vexp_edges4(float32x4_t x, float32x4_t y,
                                       float32x4_t lo) {
  y = vreinterpretq_f32_u32(
      vandq_u32(vreinterpretq_u32_f32(y), vcgeq_f32(y, lo)));
  return vbslq_f32(vceqq_f32(x, x), y, x);
}
LA__INLINE la__vec la__vexp_edges(la__vec x, la__vec y, la__vec lo) {
  la__vec v;
  v.lo = la__vexp_edges4(x.lo, y.lo, lo.lo);
  v.hi = la__vexp_edges4(x.hi, y.hi, lo.hi);
  return v;
}
LA__INLINE float32x4_t la__vflush4(float32x4_t y, float32x4_t lo) {
  return vreinterpretq_f32_u32(
      vbicq_u32(vreinterpretq_u32_f32(y), vcltq_f32(y, lo)));
}
LA__INLINE la__vec la__vflush(la__vec y, la__vec lo) {
  la__vec v;
  v.lo = la__vflush4(y.lo, lo.lo);
  v.hi = la__vflush4(y.hi, lo.hi);
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
LA__INLINE la__vec la__vadd(la__vec x, la__vec y) {
  la__vec v; v.a = vaddq_f64(x.a, y.a); v.b = vaddq_f64(x.b, y.b); return v;
}
LA__INLINE la__vec la__vfma(la__vec c, la__vec x, la__vec y) {
  la__vec v; v.a = vfmaq_f64(c.a, x.a, y.a); v.b = vfmaq_f64(c.b, x.b, y.b);
  return v;
}
LA__INLINE la__vec la__vsub(la__vec x, la__vec y) {
  la__vec v; v.a = vsubq_f64(x.a, y.a); v.b = vsubq_f64(x.b, y.b); return v;
}
LA__INLINE la__vec la__vmax(la__vec x, la__vec y) {
  la__vec v; v.a = vmaxq_f64(x.a, y.a); v.b = vmaxq_f64(x.b, y.b); return v;
}
LA__INLINE la__vec la__vmin(la__vec x, la__vec y) {
  la__vec v; v.a = vminq_f64(x.a, y.a); v.b = vminq_f64(x.b, y.b); return v;
}
LA__INLINE float64x2_t la__vshl_exp2(float64x2_t x) {
  return vreinterpretq_f64_u64(vshlq_n_u64(vreinterpretq_u64_f64(x), 52));
}
LA__INLINE la__vec la__vshl_exp(la__vec x) {
  la__vec v; v.a = la__vshl_exp2(x.a); v.b = la__vshl_exp2(x.b); return v;
}
LA__INLINE float64x2_t la__vexp_edges2(float64x2_t x, float64x2_t y,
                                       float64x2_t lo) {
  y = vreinterpretq_f64_u64(
      vandq_u64(vreinterpretq_u64_f64(y), vcgeq_f64(y, lo)));
  return vbslq_f64(vceqq_f64(x, x), y, x);
}
LA__INLINE la__vec la__vexp_edges(la__vec x, la__vec y, la__vec lo) {
  la__vec v;
  v.a = la__vexp_edges2(x.a, y.a, lo.a);
  v.b = la__vexp_edges2(x.b, y.b, lo.b);
  return v;
}
LA__INLINE float64x2_t la__vflush2(float64x2_t y, float64x2_t lo) {
  return vreinterpretq_f64_u64(
      vbicq_u64(vreinterpretq_u64_f64(y), vcltq_f64(y, lo)));
}
LA__INLINE la__vec la__vflush(la__vec y, la__vec lo) {
  la__vec v;
  v.a = la__vflush2(y.a, lo.a);
  v.b = la__vflush2(y.b, lo.b);
  return v;
}
#elif LA__SIMD == LINATTN_WASM_SIMD128
/* WebAssembly SIMD128: a panel element is two 128-bit vectors, four float
   or two double lanes each. SIMD128 has no fused multiply-add (the relaxed
   SIMD proposal's is not in clang 14, and is not required to fuse), so
   la__vfma multiplies and adds with two roundings, as ARMv7 NEON before
   VFPv4 does. Its lanes are IEEE: subnormals are kept. v128 loads and
   stores take any address. */
typedef struct { v128_t lo, hi; } la__vec;
#ifndef LINATTN_DOUBLE
#define LA__WOP(f) wasm_f32x4_##f /* the lane-wise operation f of la_real */
#define LA__WHALF 4               /* la_real lanes per v128 */
#define LA__WSHL(x) wasm_i32x4_shl(x, 23)
#else
#define LA__WOP(f) wasm_f64x2_##f
#define LA__WHALF 2
#define LA__WSHL(x) wasm_i64x2_shl(x, 52)
#endif
LA__INLINE la__vec la__vload(const la_real *p) {
  la__vec v; v.lo = wasm_v128_load(p); v.hi = wasm_v128_load(p + LA__WHALF);
  return v;
}
LA__INLINE void la__vstore(la_real *p, la__vec v) {
  wasm_v128_store(p, v.lo); wasm_v128_store(p + LA__WHALF, v.hi);
}
LA__INLINE la__vec la__vset1(la_real x) {
  la__vec v; v.lo = LA__WOP(splat)(x); v.hi = v.lo; return v;
}
LA__INLINE la__vec la__vmul(la__vec a, la__vec b) {
  la__vec v; v.lo = LA__WOP(mul)(a.lo, b.lo); v.hi = LA__WOP(mul)(a.hi, b.hi);
  return v;
}
LA__INLINE la__vec la__vadd(la__vec a, la__vec b) {
  la__vec v; v.lo = LA__WOP(add)(a.lo, b.lo); v.hi = LA__WOP(add)(a.hi, b.hi);
  return v;
}
LA__INLINE la__vec la__vfma(la__vec c, la__vec a, la__vec b) {
  return la__vadd(c, la__vmul(a, b)); /* two roundings: see above */
}
LA__INLINE la__vec la__vsub(la__vec a, la__vec b) {
  la__vec v; v.lo = LA__WOP(sub)(a.lo, b.lo); v.hi = LA__WOP(sub)(a.hi, b.hi);
  return v;
}
/* a > b ? a : b and a < b ? a : b, as x86's max and min (pmax(b, a) is
   b < a ? a : b, pmin(b, a) is a < b ? a : b) */
LA__INLINE la__vec la__vmax(la__vec a, la__vec b) {
  la__vec v; v.lo = LA__WOP(pmax)(b.lo, a.lo); v.hi = LA__WOP(pmax)(b.hi, a.hi);
  return v;
}
LA__INLINE la__vec la__vmin(la__vec a, la__vec b) {
  la__vec v; v.lo = LA__WOP(pmin)(b.lo, a.lo); v.hi = LA__WOP(pmin)(b.hi, a.hi);
  return v;
}
LA__INLINE la__vec la__vshl_exp(la__vec x) {
  la__vec v; v.lo = LA__WSHL(x.lo); v.hi = LA__WSHL(x.hi); return v;
}
LA__INLINE v128_t la__vexp_edges1(v128_t x, v128_t y, v128_t lo) {
  y = wasm_v128_and(y, LA__WOP(ge)(y, lo));
  return wasm_v128_bitselect(y, x, LA__WOP(eq)(x, x));
}
LA__INLINE la__vec la__vexp_edges(la__vec x, la__vec y, la__vec lo) {
  la__vec v;
  v.lo = la__vexp_edges1(x.lo, y.lo, lo.lo);
  v.hi = la__vexp_edges1(x.hi, y.hi, lo.hi);
  return v;
}
LA__INLINE la__vec la__vflush(la__vec y, la__vec lo) {
  la__vec v;
  v.lo = wasm_v128_andnot(y.lo, LA__WOP(lt)(y.lo, lo.lo));
  v.hi = wasm_v128_andnot(y.hi, LA__WOP(lt)(y.hi, lo.hi));
  return v;
}
#undef LA__WSHL
#endif
#if LA__SIMD == LINATTN_NEON || LA__SIMD == LINATTN_WASM_SIMD128
LA__INLINE la__vec la__vloadu(const la_real *p) { return la__vload(p); }
LA__INLINE void la__vstoreu(la_real *p, la__vec v) { la__vstore(p, v); }
LA__INLINE la__vec la__vzero(void) { return la__vset1(0); }
#endif
/* ---------------------------------------------------------------- exp */
/* e^x lane-wise (la__vexp) and its scalar twin (la__exp_real): the same
   operations in the same order, with C99's fma/fmaf where the vector code
   fuses, so that backends with a fused multiply-add agree bit for bit.
   x = n ln2 + r with n = round(x / ln2) (by adding and subtracting 1.5 2^p,
   which leaves the integer in the low bits), |r| <= ln2/2 (Cody and Waite:
   n ln2_hi is exact), e^r from its Taylor polynomial by Horner (degree 7 in
   float, 13 in double: the truncation is below 0.05 ulp), then times 2^k1
   and 2^k2, k1 + k2 = n, each built from its exponent bits: two factors
   reach 2^128 (2^1024) without an exponent field that cannot hold it.
   Within 1 ulp of e^x wherever the result is a normal number (2 without a
   fused multiply-add: ARMv7 before VFPv4, WebAssembly SIMD128); 0 where it would be subnormal
   (ARMv7 NEON flushes those, so every backend flushes them), +inf past the
   largest la_real, NaN for NaN. */

/* 1/j!, j = 0..13: the Taylor coefficients of e^r. */
static const double la__inv_fact[14] = {
    1, 1, 0.5, 0.16666666666666666, 0.041666666666666664,
    0.0083333333333333332, 0.0013888888888888889, 0.00019841269841269841,
    2.4801587301587302e-05, 2.7557319223985893e-06, 2.7557319223985888e-07,
    2.505210838544172e-08, 2.08767569878681e-09, 1.6059043836821613e-10};

/* ln 2 = LN2_HI + LN2_LO, the high part with enough trailing zero bits that
   n LN2_HI is exact for every n of the range. */
#define LA__LN2_HI 6.93147180369123816490e-01
#define LA__LN2_LO 1.90821492927058770002e-10

#ifdef LINATTN_DOUBLE
#define LA__EXP_DEG 13
#define LA__EXP_LO (-709.0) /* inputs clamped to [LO, HI]: n in range */
#define LA__EXP_HI 710.0
#define LA__EXP_MAGIC 6755399441055744.0 /* 1.5 2^52 */
#define LA__EXP_BIAS 6755399441056767.0  /* 1.5 2^52 + 1023 */
#define LA__EXP_TINY DBL_MIN
#define LA__EXP_L2HI LA__LN2_HI
#define LA__EXP_L2LO LA__LN2_LO
#define la__rfma la__fma
#else
#define LA__EXP_DEG 7
#define LA__EXP_LO (-88.0f)
#define LA__EXP_HI 89.0f
#define LA__EXP_MAGIC 12582912.0f /* 1.5 2^23 */
#define LA__EXP_BIAS 12583039.0f  /* 1.5 2^23 + 127 */
#define LA__EXP_TINY FLT_MIN
#define LA__EXP_L2HI 0.693145751953125f /* 15 bits */
#define LA__EXP_L2LO 1.42860682030941723212e-6f
#define la__rfma la__fmaf
#endif
#define LA__LOG2E ((la_real)1.44269504088896340736)

/* 2^k for an integer-valued k: k + BIAS holds k + the exponent bias in its
   low bits, which the shift moves into the exponent field. */
static la_real la__pow2i(la_real k) {
  la_real f = k + (la_real)LA__EXP_BIAS;
#ifdef LINATTN_DOUBLE
  uint64_t u;
  memcpy(&u, &f, sizeof u);
  u <<= 52;
#else
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  u <<= 23;
#endif
  memcpy(&f, &u, sizeof f);
  return f;
}

static la_real la__exp_real(la_real x) {
  const la_real M = (la_real)LA__EXP_MAGIC;
  la_real xc, nf, k1, k2, r, p, y;
  int j;
  if (x != x) return x;
  xc = x < LA__EXP_LO ? LA__EXP_LO : x > LA__EXP_HI ? LA__EXP_HI : x;
  nf = la__rfma(xc, LA__LOG2E, M) - M;
  k1 = la__rfma(nf, (la_real)0.5, M) - M;
  k2 = nf - k1;
  r = la__rfma(nf, -(la_real)LA__EXP_L2HI, xc);
  r = la__rfma(nf, -(la_real)LA__EXP_L2LO, r);
  p = (la_real)la__inv_fact[LA__EXP_DEG];
  for (j = LA__EXP_DEG - 1; j >= 0; --j)
    p = la__rfma(p, r, (la_real)la__inv_fact[j]);
  y = p * la__pow2i(k1) * la__pow2i(k2);
  return y >= LA__EXP_TINY ? y : 0;
}

#if LA__SIMD != LINATTN_SCALAR
LA__INLINE la__vec la__vexp(la__vec x) {
  const la__vec M = la__vset1((la_real)LA__EXP_MAGIC);
  const la__vec B = la__vset1((la_real)LA__EXP_BIAS);
  la__vec xc, nf, k1, k2, r, p;
  xc = la__vmin(la__vmax(x, la__vset1(LA__EXP_LO)), la__vset1(LA__EXP_HI));
  nf = la__vsub(la__vfma(M, xc, la__vset1(LA__LOG2E)), M);
  k1 = la__vsub(la__vfma(M, nf, la__vset1((la_real)0.5)), M);
  k2 = la__vsub(nf, k1);
  r = la__vfma(xc, nf, la__vset1(-(la_real)LA__EXP_L2HI));
  r = la__vfma(r, nf, la__vset1(-(la_real)LA__EXP_L2LO));
  p = la__vset1((la_real)la__inv_fact[LA__EXP_DEG]);
  p = la__vfma(la__vset1((la_real)la__inv_fact[LA__EXP_DEG - 1]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[LA__EXP_DEG - 2]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[LA__EXP_DEG - 3]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[LA__EXP_DEG - 4]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[LA__EXP_DEG - 5]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[LA__EXP_DEG - 6]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[LA__EXP_DEG - 7]), p, r);
#ifdef LINATTN_DOUBLE
  p = la__vfma(la__vset1((la_real)la__inv_fact[5]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[4]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[3]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[2]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[1]), p, r);
  p = la__vfma(la__vset1((la_real)la__inv_fact[0]), p, r);
#endif
  p = la__vmul(la__vmul(p, la__vshl_exp(la__vadd(k1, B))),
               la__vshl_exp(la__vadd(k2, B)));
  return la__vexp_edges(x, p, la__vset1(LA__EXP_TINY));
}
#endif

/* e^x for x <= 0 (vexpn: the softmax's arguments), the same reduction
   with what x <= 0 lets go: no upper clamp, 2^n from one exponent field
   (x is clamped below at LA__EXPN_LO, so n >= -126 (-1022): the field
   holds it; results below the smallest normal are flushed as before),
   and a minimax polynomial for e^r on |r| <= ln2/2, its first two
   coefficients held at 1 (so e^0 = 1 exactly, the softmax's largest
   weight), in place of the Taylor one, from Lawson's iteration on 800
   Chebyshev nodes in 50 digits. Float: degree 5 (relative error 1.05e-7
   before rounding, against Taylor's 7), within 2.2 ulps of e^x wherever
   that is a normal number (every float of [-88, 0] against double exp,
   AVX2; 2.3 measured without a fused multiply-add, WebAssembly SIMD128,
   and within 3.2 by the test): the accuracy the softmax needs, whose sum of n weights rounds
   by up to n/2 ulps (degree 6 is within 0.89 ulp and costs the softmax
   step 5% more). Double: degree 11 (3.6e-18, Taylor's 13), within 0.91
   ulp (2e7 points against long double). The result is NaN exactly where
   x is (a finite x gives a finite p and 2^n), so the flush of results
   below the smallest normal needs no second test (la__vflush). Per
   vector: 15 operations in float against la__vexp's 26. */
#ifdef LINATTN_DOUBLE
#define LA__EXPN_DEG 11
#define LA__EXPN_LO (-708.5)
static const la_real la__expn_c[LA__EXPN_DEG + 1] = {
    1, 1, 0.5000000000000010617235265, 0.1666666666666641276679932,
    0.0416666666665302620182022, 0.0083333333334943363510365,
    0.001388888894359868280184342, 0.0001984126950677566257234202,
    0.00002480149313522495628094962, 0.000002755758626805987361664586,
    0.0000002763023424277858655793916, 2.500007219379859236034094e-8};
#else
#define LA__EXPN_DEG 5
#define LA__EXPN_LO (-87.5f)
static const la_real la__expn_c[LA__EXPN_DEG + 1] = {
    1, 1, 0.4999923177493952147822297f, 0.1666711445797785037001344f,
    0.04189011489980676616169112f, 0.008312526040748746299293133f};
#endif

static la_real la__expn_real(la_real x) {
  const la_real M = (la_real)LA__EXP_MAGIC;
  la_real xc, nf, r, p, y;
  int j;
  if (x != x) return x;
  xc = x < LA__EXPN_LO ? LA__EXPN_LO : x;
  nf = la__rfma(xc, LA__LOG2E, M) - M;
  r = la__rfma(nf, -(la_real)LA__EXP_L2HI, xc);
  r = la__rfma(nf, -(la_real)LA__EXP_L2LO, r);
  p = la__expn_c[LA__EXPN_DEG];
  for (j = LA__EXPN_DEG - 1; j >= 0; --j) p = la__rfma(p, r, la__expn_c[j]);
  y = p * la__pow2i(nf);
  return y >= LA__EXP_TINY ? y : 0;
}

#if LA__SIMD != LINATTN_SCALAR
LA__INLINE la__vec la__vexpn(la__vec x) {
  const la__vec M = la__vset1((la_real)LA__EXP_MAGIC);
  la__vec xc, nf, r, p;
  int j;
  xc = la__vmax(la__vset1(LA__EXPN_LO), x); /* a NaN x stays NaN */
  nf = la__vsub(la__vfma(M, xc, la__vset1(LA__LOG2E)), M);
  r = la__vfma(xc, nf, la__vset1(-(la_real)LA__EXP_L2HI));
  r = la__vfma(r, nf, la__vset1(-(la_real)LA__EXP_L2LO));
  p = la__vset1(la__expn_c[LA__EXPN_DEG]);
  for (j = LA__EXPN_DEG - 1; j >= 0; --j)
    p = la__vfma(la__vset1(la__expn_c[j]), p, r);
  p = la__vmul(p, la__vshl_exp(la__vadd(nf, la__vset1((la_real)LA__EXP_BIAS))));
  return la__vflush(p, la__vset1(LA__EXP_TINY));
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
#if LA__SIMD == LINATTN_AVX512 && (defined(__GNUC__) || defined(__clang__))
#define LA__PIN(v) __asm__("" : "+v"(v)) /* any of the 32 registers */
#elif LA__X86 && (defined(__GNUC__) || defined(__clang__))
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

/* A points at op(A)(i0, 0), B at op(B)(0, j0), C at C(i0, j0). The block
   and the strip are written once for a vector type VEC of LW lanes whose
   operations are V##load, V##fma and so on: la__kblock on the panel vector
   (LA_W lanes), la__wblock on the AVX-512 model's wide panels (LA__WL).
   C's elements are LWC reals apart: LW but in la__gblock, which adds one
   LA_W-lane half of wide operands into an LA_W-lane panel. */
#define LA__KBLOCK_DEF(NAME, VEC, V, LW, LWC)                                  \
  LA__INLINE void NAME(const int MR, const int NR, const int TA,               \
                       const int TB, int m, int n, int k, int mode,            \
                       VEC valpha, const la_real *LA__RESTRICT A,              \
                       const la_real *LA__RESTRICT B,                          \
                       la_real *LA__RESTRICT C) {                              \
    const size_t ars = TA ? (LW) : (size_t)k * (LW);                           \
    const size_t acs = TA ? (size_t)m * (LW) : (LW);                           \
    const size_t brs = TB ? (LW) : (size_t)n * (LW);                           \
    const size_t bcs = TB ? (size_t)k * (LW) : (LW);                           \
    const size_t crs = (size_t)n * (LWC);                                      \
    VEC acc[LA__MRMAX][LA__NRMAX], b[LA__NRMAX], va;                           \
    int i, j, p;                                                               \
    if (mode == LA__ADD) {                                                     \
      LA__UNROLL for (i = 0; i < MR; ++i)                                      \
        LA__UNROLL for (j = 0; j < NR; ++j)                                    \
          acc[i][j] = V##load(C + i * crs + j * (LWC));                        \
    } else {                                                                   \
      LA__UNROLL for (i = 0; i < MR; ++i)                                      \
        LA__UNROLL for (j = 0; j < NR; ++j) acc[i][j] = V##zero();             \
    }                                                                          \
    for (p = 0; p < k; ++p) {                                                  \
      LA__UNROLL for (j = 0; j < NR; ++j) b[j] = V##load(B + j * bcs);         \
      LA__UNROLL for (i = 0; i < MR; ++i) {                                    \
        va = V##load(A + i * ars);                                             \
        LA__PIN(va);                                                           \
        LA__UNROLL for (j = 0; j < NR; ++j)                                    \
          acc[i][j] = V##fma(acc[i][j], va, b[j]);                             \
      }                                                                        \
      A += acs;                                                                \
      B += brs;                                                                \
    }                                                                          \
    LA__UNROLL for (i = 0; i < MR; ++i)                                        \
      LA__UNROLL for (j = 0; j < NR; ++j) {                                    \
        la_real *c = C + i * crs + j * (LWC);                                  \
        VEC r = acc[i][j];                                                     \
        if (mode == LA__PUT_MUL) r = V##mul(valpha, r);                        \
        else if (mode == LA__ADD_MUL) r = V##fma(V##load(c), valpha, r);       \
        V##store(c, r);                                                        \
      }                                                                        \
  }
LA__KBLOCK_DEF(la__kblock, la__vec, la__v, LA_W, LA_W)

/* A strip of MR rows of C: blocks of NR columns, then the last n % NR
   columns in blocks of 4, 2 and 1 (the branches for widths not below NR
   are compile-time dead). */
#define LA__KSTRIP_DEF(NAME, BLOCK, VEC, LW, LWC)                              \
  LA__INLINE void NAME(const int MR, const int NR, const int TA,               \
                       const int TB, int i0, int m, int n, int k, int mode,    \
                       VEC valpha, const la_real *A, const la_real *B,         \
                       la_real *C) {                                           \
    const size_t ars = TA ? (LW) : (size_t)k * (LW);                           \
    const size_t bcs = TB ? (size_t)k * (LW) : (LW);                           \
    int j = 0;                                                                 \
    A += i0 * ars;                                                             \
    C += (size_t)i0 * n * (LWC);                                               \
    for (; j + NR <= n; j += NR)                                               \
      BLOCK(MR, NR, TA, TB, m, n, k, mode, valpha, A, B + j * bcs,             \
            C + (size_t)j * (LWC));                                            \
    if (NR > 4 && n - j >= 4) {                                                \
      BLOCK(MR, 4, TA, TB, m, n, k, mode, valpha, A, B + j * bcs,              \
            C + (size_t)j * (LWC));                                            \
      j += 4;                                                                  \
    }                                                                          \
    if (NR > 2 && n - j >= 2) {                                                \
      BLOCK(MR, 2, TA, TB, m, n, k, mode, valpha, A, B + j * bcs,              \
            C + (size_t)j * (LWC));                                            \
      j += 2;                                                                  \
    }                                                                          \
    if (NR > 1 && n - j >= 1)                                                  \
      BLOCK(MR, 1, TA, TB, m, n, k, mode, valpha, A, B + j * bcs,              \
            C + (size_t)j * (LWC));                                            \
  }
LA__KSTRIP_DEF(la__kstrip, la__kblock, la__vec, LA_W, LA_W)

/* Row strips: as many rows as the registers allow, and for the last m % MR
   rows wider blocks, so that a short strip still has 8..12 accumulators.
   A NEON vector of a panel element takes two registers: AArch64's 32 hold
   8 of them as accumulators without spilling (checked in the generated
   code), ARMv7's 16 hold 4, and so do the 16 vector registers that V8
   and other engines give WebAssembly on x86-64. Each strip shape is a function of its own: one
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

#if (LA__SIMD == LINATTN_NEON && !defined(__aarch64__)) ||                   \
    LA__SIMD == LINATTN_WASM_SIMD128
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
#else /* x86: 12 accumulators of AVX2's 16 registers. AVX-512's 32 would
         hold 6x4 blocks, but on Zen 4 they ran the base model 8% slower
         than these (its products are 6 wide: a 6x4 block leaves a 6x2) */
/* the last rows with the orientation a constant as well: a strip of T =
   n + 1 rows (6 6 6 3 at the base setting) ends in one */
#define LA__STRIP_FNS(TA, TB)                                                  \
  LA__STRIP_FN(6, 2, TA, TB) LA__STRIP_FN(5, 2, TA, TB)                       \
  LA__STRIP_FN(4, 3, TA, TB) LA__STRIP_FN(3, 4, TA, TB)                       \
  LA__STRIP_FN(2, 6, TA, TB) LA__STRIP_FN(1, 8, TA, TB)
#define LA__STRIPS(TA, TB)                                                     \
  for (i = 0; i + 6 <= m; i += 6) LA__STRIP(6, 2, TA, TB);                     \
  switch (m - i) {                                                             \
  case 5: LA__STRIP(5, 2, TA, TB); break;                                      \
  case 4: LA__STRIP(4, 3, TA, TB); break;                                      \
  case 3: LA__STRIP(3, 4, TA, TB); break;                                      \
  case 2: LA__STRIP(2, 6, TA, TB); break;                                      \
  case 1: LA__STRIP(1, 8, TA, TB); break;                                      \
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

/* One panel, the mode given: the model's products, straight to the strips
   (the batched path's panel loop and mode juggling cost a tenth of a 6x6x6
   product). */
#define LA__PGEMM_ORIENT(NAME, TA, TB)                                         \
  static void NAME(int m, int n, int k, int mode, la_real alpha,               \
                   const la_real *A, const la_real *B, la_real *C) {           \
    int i;                                                                     \
    LA__STRIPS(TA, TB)                                                         \
  }
LA__PGEMM_ORIENT(la__pgemm_nn, 0, 0)
LA__PGEMM_ORIENT(la__pgemm_tn, 1, 0)
LA__PGEMM_ORIENT(la__pgemm_nt, 0, 1)
LA__PGEMM_ORIENT(la__pgemm_tt, 1, 1)
#undef LA__PGEMM_ORIENT

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

/* Matrix times vector, c = alpha M x (+ c): row i of M at M + i rs, its
   element p at + p cs (in panel elements). Each k step is one load of x
   and MR of M for MR FMAs, so the rows go six at a time with two partial
   sums each (even and odd p): twelve independent chains cover the FMA
   latency that six would leave bare at the model's k = d+1. Written once
   per vector type, as the block. */
#define LA__MVBLOCK_DEF(NAME, VEC, V, LW)                                      \
  LA__INLINE void NAME(const int MR, int k, int mode, VEC valpha,              \
                       const la_real *LA__RESTRICT M, size_t rs, size_t cs,    \
                       const la_real *LA__RESTRICT x,                          \
                       la_real *LA__RESTRICT c) {                              \
    VEC a0[6], a1[6], x0, x1;                                                  \
    int r, p = 0;                                                              \
    LA__UNROLL for (r = 0; r < MR; ++r) a0[r] = a1[r] = V##zero();             \
    for (; p + 2 <= k; p += 2) {                                               \
      x0 = V##load(x + (size_t)p * (LW));                                      \
      x1 = V##load(x + (size_t)(p + 1) * (LW));                                \
      LA__UNROLL for (r = 0; r < MR; ++r) {                                    \
        a0[r] = V##fma(a0[r], V##load(M + r * rs + p * cs), x0);               \
        a1[r] = V##fma(a1[r], V##load(M + r * rs + (p + 1) * cs), x1);         \
      }                                                                        \
    }                                                                          \
    if (p < k) {                                                               \
      x0 = V##load(x + (size_t)p * (LW));                                      \
      LA__UNROLL for (r = 0; r < MR; ++r)                                      \
        a0[r] = V##fma(a0[r], V##load(M + r * rs + p * cs), x0);               \
    }                                                                          \
    LA__UNROLL for (r = 0; r < MR; ++r) {                                      \
      la_real *o = c + (size_t)r * (LW);                                       \
      VEC v = V##add(a0[r], a1[r]);                                            \
      if (mode == LA__PUT_MUL) v = V##mul(valpha, v);                          \
      else if (mode == LA__ADD) v = V##add(V##load(o), v);                     \
      else if (mode == LA__ADD_MUL) v = V##fma(V##load(o), valpha, v);         \
      V##store(o, v);                                                          \
    }                                                                          \
  }
#define LA__MV_DEF(NAME, BLOCK, VEC, V, LW)                                    \
  static void NAME(int rows, int k, int mode, la_real alpha,                   \
                   const la_real *M, size_t rs, size_t cs, const la_real *x,   \
                   la_real *c) {                                               \
    const VEC valpha = V##set1(alpha);                                         \
    int i = 0;                                                                 \
    rs *= (LW);                                                                \
    cs *= (LW);                                                                \
    for (; i + 6 <= rows; i += 6)                                              \
      BLOCK(6, k, mode, valpha, M + i * rs, rs, cs, x, c + (size_t)i * (LW));  \
    switch (rows - i) {                                                        \
    case 5: BLOCK(5, k, mode, valpha, M + i * rs, rs, cs, x, c + (size_t)i * (LW)); break; \
    case 4: BLOCK(4, k, mode, valpha, M + i * rs, rs, cs, x, c + (size_t)i * (LW)); break; \
    case 3: BLOCK(3, k, mode, valpha, M + i * rs, rs, cs, x, c + (size_t)i * (LW)); break; \
    case 2: BLOCK(2, k, mode, valpha, M + i * rs, rs, cs, x, c + (size_t)i * (LW)); break; \
    case 1: BLOCK(1, k, mode, valpha, M + i * rs, rs, cs, x, c + (size_t)i * (LW)); break; \
    default: break;                                                            \
    }                                                                          \
  }
/* One panel product: a column or a row of C is matrix times vector (B's
   column and A's row are contiguous whatever the flags), the rest goes to
   the orientation's strips. */
#define LA__PGEMM_DEF(NAME, MV, PRE)                                           \
  static void NAME(unsigned flags, int m, int n, int k, la_real alpha,         \
                   const la_real *A, const la_real *B, la_real *C) {           \
    int mode = ((flags & LA_ACCUMULATE) ? LA__ADD : LA__PUT) | (alpha != 1);   \
    if (n == 1) {                                                              \
      if (flags & LA_TRANS_A) MV(m, k, mode, alpha, A, 1, (size_t)m, B, C);    \
      else MV(m, k, mode, alpha, A, (size_t)k, 1, B, C);                       \
      return;                                                                  \
    }                                                                          \
    if (m == 1) {                                                              \
      if (flags & LA_TRANS_B) MV(n, k, mode, alpha, B, (size_t)k, 1, A, C);    \
      else MV(n, k, mode, alpha, B, 1, (size_t)n, A, C);                       \
      return;                                                                  \
    }                                                                          \
    switch (flags & (LA_TRANS_A | LA_TRANS_B)) {                               \
    case 0: PRE##_nn(m, n, k, mode, alpha, A, B, C); break;                    \
    case LA_TRANS_A: PRE##_tn(m, n, k, mode, alpha, A, B, C); break;           \
    case LA_TRANS_B: PRE##_nt(m, n, k, mode, alpha, A, B, C); break;           \
    default: PRE##_tt(m, n, k, mode, alpha, A, B, C); break;                   \
    }                                                                          \
  }
LA__MVBLOCK_DEF(la__mv_block, la__vec, la__v, LA_W)
LA__MV_DEF(la__mv, la__mv_block, la__vec, la__v, LA_W)
LA__PGEMM_DEF(la__pgemm_simd, la__mv, la__pgemm)

#if LA__X86
/* S = A^T A for A a k x D panel (the keys' Gram matrix): the lower
   triangle, two columns at a time down from the diagonal (6 rows a block,
   as the product's strips), then mirrored. Each entry is the chain of
   FMAs the full product would run (and S_ij the same as S_ji: the products
   commute), so the numbers are the product's; at D = 6 it runs 24 of the
   36 accumulators per step of k. */
#define LA__SYRK_BLOCK(BLOCK, LW, MR, NR)                                      \
  BLOCK(MR, NR, 1, 0, D, D, k, LA__PUT, one, A + (size_t)i * (LW),             \
        A + (size_t)j * (LW), C + ((size_t)i * D + j) * (LW))
#define LA__SYRK_COLS(BLOCK, LW, NR)                                           \
  do {                                                                         \
    for (i = j; i + 6 <= D; i += 6) LA__SYRK_BLOCK(BLOCK, LW, 6, NR);          \
    switch (D - i) {                                                           \
    case 5: LA__SYRK_BLOCK(BLOCK, LW, 5, NR); break;                           \
    case 4: LA__SYRK_BLOCK(BLOCK, LW, 4, NR); break;                           \
    case 3: LA__SYRK_BLOCK(BLOCK, LW, 3, NR); break;                           \
    case 2: LA__SYRK_BLOCK(BLOCK, LW, 2, NR); break;                           \
    case 1: LA__SYRK_BLOCK(BLOCK, LW, 1, NR); break;                           \
    default: break;                                                            \
    }                                                                          \
  } while (0)
#define LA__SYRK_DEF(NAME, BLOCK, VEC, V, LW)                                  \
  static void NAME(int D, int k, const la_real *A, la_real *C) {               \
    const VEC one = V##set1(1);                                                \
    int i, j;                                                                  \
    for (j = 0; j + 2 <= D; j += 2) LA__SYRK_COLS(BLOCK, LW, 2);               \
    if (j < D) LA__SYRK_COLS(BLOCK, LW, 1);                                    \
    for (i = 0; i < D; ++i) /* the upper triangle from the lower */            \
      for (j = i + 1; j < D; ++j)                                              \
        if (j > (i | 1)) /* not computed beside the diagonal */                \
          memcpy(C + ((size_t)i * D + j) * (LW),                               \
                 C + ((size_t)j * D + i) * (LW), sizeof(la_real) * (LW));      \
  }
LA__SYRK_DEF(la__psyrk_simd, la__kblock, la__vec, la__v, LA_W)

#if LA__WIDE
/* The AVX-512 model's wide panels (LA__WL lanes, two panels' lanes side by
   side): the same block, strips, matrix times vector and Gram matrix on
   512-bit vectors. Each lane runs the operations the 256-bit kernels run on
   it, in the same order (the chain of FMAs over k of each entry, the even
   and odd partial sums of a matrix times vector, then alpha), so a lane's
   result has the 256-bit kernels' bits whatever the block shapes. */
LA__KBLOCK_DEF(la__wblock, la__wvec, la__w, LA__WL, LA__WL)
LA__KSTRIP_DEF(la__wkstrip, la__wblock, la__wvec, LA__WL, LA__WL)
#undef LA__STRIP_FN
#undef LA__STRIP
#define LA__STRIP_FN(MR, NR, TA, TB)                                           \
  static void la__wstrip_##MR##x##NR##_##TA##TB(                               \
      int i0, int m, int n, int k, int mode, la_real alpha, const la_real *A,  \
      const la_real *B, la_real *C) {                                          \
    la__wkstrip(MR, NR, TA, TB, i0, m, n, k, mode, la__wset1(alpha), A, B, C); \
  }
#define LA__STRIP(MR, NR, TA, TB)                                              \
  la__wstrip_##MR##x##NR##_##TA##TB(i, m, n, k, mode, alpha, A, B, C)
#define LA__WPGEMM_ORIENT(NAME, TA, TB)                                        \
  LA__STRIP_FNS(TA, TB)                                                        \
  static void NAME(int m, int n, int k, int mode, la_real alpha,               \
                   const la_real *A, const la_real *B, la_real *C) {           \
    int i;                                                                     \
    LA__STRIPS(TA, TB)                                                         \
  }
LA__WPGEMM_ORIENT(la__wpgemm_nn, 0, 0)
LA__WPGEMM_ORIENT(la__wpgemm_tn, 1, 0)
LA__WPGEMM_ORIENT(la__wpgemm_nt, 0, 1)
LA__WPGEMM_ORIENT(la__wpgemm_tt, 1, 1)
/* One LA_W-lane half of wide operands added into an LA_W-lane gradient
   panel (la__mm_g): the 256-bit block on strided operands. */
LA__KBLOCK_DEF(la__gblock, la__vec, la__v, LA__WL, LA_W)
LA__KSTRIP_DEF(la__gkstrip, la__gblock, la__vec, LA__WL, LA_W)
#undef LA__STRIP_FN
#undef LA__STRIP
#define LA__STRIP_FN(MR, NR, TA, TB)                                           \
  static void la__gstrip_##MR##x##NR##_##TA##TB(                               \
      int i0, int m, int n, int k, int mode, la_real alpha, const la_real *A,  \
      const la_real *B, la_real *C) {                                          \
    la__gkstrip(MR, NR, TA, TB, i0, m, n, k, mode, la__vset1(alpha), A, B, C); \
  }
#define LA__STRIP(MR, NR, TA, TB)                                              \
  la__gstrip_##MR##x##NR##_##TA##TB(i, m, n, k, mode, alpha, A, B, C)
LA__WPGEMM_ORIENT(la__gpgemm_nn, 0, 0)
LA__WPGEMM_ORIENT(la__gpgemm_tn, 1, 0)
#undef LA__WPGEMM_ORIENT
LA__MVBLOCK_DEF(la__wmv_block, la__wvec, la__w, LA__WL)
LA__MV_DEF(la__wmv, la__wmv_block, la__wvec, la__w, LA__WL)
LA__PGEMM_DEF(la__wpgemm, la__wmv, la__wpgemm)
LA__SYRK_DEF(la__wpsyrk, la__wblock, la__wvec, la__w, LA__WL)
#endif /* LA__WIDE */
#undef LA__SYRK_COLS
#undef LA__SYRK_BLOCK
#endif
#undef LA__STRIPS
#undef LA__STRIP_FNS
#undef LA__STRIP
#undef LA__STRIP_FN
#undef LA__TAIL
#undef LA__TAIL_FN
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
   order of the additions. 32-bit ARM has no double lanes and uses the twin;
   WebAssembly's f64x2 lanes multiply and add with two roundings, as the
   twin does (a product of floats is exact in double). */
#if LA__X86
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
#elif LA__SIMD == LINATTN_WASM_SIMD128
#ifndef LINATTN_DOUBLE /* the low and high float pairs as doubles */
#define LA__DLO(v) wasm_f64x2_promote_low_f32x4(v)
#define LA__DHI(v) wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 2, 3))
#define LA__DSTEP(s, p, q, h)                                                  \
  s = wasm_f64x2_add(s, wasm_f64x2_mul(h(wasm_v128_load(p)), h(wasm_v128_load(q))))
static double la__dot_simd(int n, const la_real *x, const la_real *y) {
  v128_t s0 = wasm_f64x2_splat(0), s1 = s0, s2 = s0, s3 = s0;
  double s;
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    LA__DSTEP(s0, x + i, y + i, LA__DLO);
    LA__DSTEP(s1, x + i, y + i, LA__DHI);
    LA__DSTEP(s2, x + i + 4, y + i + 4, LA__DLO);
    LA__DSTEP(s3, x + i + 4, y + i + 4, LA__DHI);
  }
#else
#define LA__DSTEP(s, p, q)                                                     \
  s = wasm_f64x2_add(s, wasm_f64x2_mul(wasm_v128_load(p), wasm_v128_load(q)))
static double la__dot_simd(int n, const la_real *x, const la_real *y) {
  v128_t s0 = wasm_f64x2_splat(0), s1 = s0, s2 = s0, s3 = s0;
  double s;
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    LA__DSTEP(s0, x + i, y + i);
    LA__DSTEP(s1, x + i + 2, y + i + 2);
    LA__DSTEP(s2, x + i + 4, y + i + 4);
    LA__DSTEP(s3, x + i + 6, y + i + 6);
  }
#endif
  s0 = wasm_f64x2_add(wasm_f64x2_add(s0, s1), wasm_f64x2_add(s2, s3));
  s = wasm_f64x2_extract_lane(s0, 0) + wasm_f64x2_extract_lane(s0, 1);
  for (; i < n; ++i) s += (double)x[i] * y[i];
  return s;
}
#undef LA__DLO
#undef LA__DHI
#undef LA__DSTEP
#else
#define la__dot_simd la__dot_scalar
#endif

static double la__nrm2_simd(int n, const la_real *x) {
  return la__nrm2_from(la__dot_simd(n, x, x), n, x);
}
#endif /* LA__SIMD != LINATTN_SCALAR */

static void la__vexp_scalar(int n, const la_real *x, la_real *y) {
  int i;
  for (i = 0; i < n; ++i) y[i] = la__exp_real(x[i]);
}
static void la__vexpn_scalar(int n, const la_real *x, la_real *y) {
  int i;
  for (i = 0; i < n; ++i) y[i] = la__expn_real(x[i]);
}
#if LA__SIMD != LINATTN_SCALAR
static void la__vexp_simd(int n, const la_real *x, la_real *y) {
  int i = 0;
  for (; i + LA_W <= n; i += LA_W)
    la__vstoreu(y + i, la__vexp(la__vloadu(x + i)));
  for (; i < n; ++i) y[i] = la__exp_real(x[i]);
}
static void la__vexpn_simd(int n, const la_real *x, la_real *y) {
  int i = 0;
  for (; i + LA_W <= n; i += LA_W)
    la__vstoreu(y + i, la__vexpn(la__vloadu(x + i)));
  for (; i < n; ++i) y[i] = la__expn_real(x[i]);
}
#endif

static const la_kernels la__kernels_scalar = {
    "scalar",         la__pgemm_scalar, la__dot_scalar,  la__axpy_scalar,
    la__bgemm_scalar, la__scale_scalar, la__nrm2_scalar, la__vexp_scalar,
    la__vexpn_scalar};
#if LA__SIMD != LINATTN_SCALAR
static const la_kernels la__kernels_simd = {
#if LA__SIMD == LINATTN_AVX2
    "avx2",
#elif LA__SIMD == LINATTN_AVX512
    "avx512",
#elif LA__SIMD == LINATTN_WASM_SIMD128
    "wasm-simd128",
#elif defined(__aarch64__)
    "neon64",
#else
    "neon32",
#endif
    la__pgemm_simd, la__dot_simd,   la__axpy_simd,
    la__bgemm_simd, la__scale_simd, la__nrm2_simd, la__vexp_simd,
    la__vexpn_simd};
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
  if ((a_stride && a_stride < (size_t)m * k * LA_W) ||
      (b_stride && b_stride < (size_t)k * n * LA_W) ||
      (c_stride && c_stride < (size_t)m * n * LA_W))
    return LA_EDIM;
  if ((uintptr_t)A % LA_ALIGN || (uintptr_t)B % LA_ALIGN ||
      (uintptr_t)C % LA_ALIGN || a_stride % LA_W || b_stride % LA_W ||
      c_stride % LA_W)
    return LA_ERANGE;
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
  memcpy(aligned - sizeof raw, &raw, sizeof raw);
  return aligned;
}
LINATTN_DEF void la_free(void *p) {
  void *raw;
  if (!p) return;
  memcpy(&raw, (unsigned char *)p - sizeof(void *), sizeof(void *));
  LINATTN_FREE(raw, NULL);
}
#endif

/* ------------------------------------------------------- thread pool */
/* Jobs are handed out by generation: the caller (worker 0) writes the job,
   bumps `gen` and takes tasks beside its helpers, each task index from one
   shared counter. Every helper checks in on every job (`active` counts
   those still out), so the job's fields are never rewritten under a helper
   still reading them. Waiting is a short spin on a counter, then a
   condition variable: a thread that spins (or yields) without end, put by
   the scheduler on the core its partner needs, holds that partner up for
   whole time slices. */

#if LA__THREADS
/* A limit on the CPUs in the environment variable `name`: its first whole
   number (OMP_NUM_THREADS may list one per nesting level), 0 where it is
   unset, not a number or not positive. Capped above LA_MAX_WORKERS. */
static long la__cpu_env(const char *name) {
  const char *s = getenv(name);
  long v = 0;
  if (!s) return 0;
  while (*s == ' ' || *s == '\t') ++s;
  for (; *s >= '0' && *s <= '9'; ++s)
    if ((v = v * 10 + (*s - '0')) > LA_MAX_WORKERS) v = LA_MAX_WORKERS + 1;
  return v;
}

#endif

#if LA__THREADS == 1
/* The first line of the file at path into buf ("" when there is none). */
static void la__cpu_line(const char *path, char *buf, int cap) {
  FILE *f = path ? fopen(path, "r") : NULL;
  buf[0] = 0;
  if (!f) return;
  if (!fgets(buf, cap, f)) buf[0] = 0;
  (void)fclose(f);
}

/* The CPUs a cgroup's quota allows, rounded up: cgroup v2's "QUOTA PERIOD"
   (or "max PERIOD") in v2_max, else v1's quota (-1: none) and period; 0
   where there is no quota or no file. */
static long la__cpu_quota(const char *v2_max, const char *v1_quota,
                          const char *v1_period) {
  char line[64], *end;
  double q = -1, p = 0;
  la__cpu_line(v2_max, line, sizeof line);
  if (line[0]) {
    if (strncmp(line, "max", 3) != 0) {
      q = strtod(line, &end);
      p = strtod(end, NULL);
    }
  } else if (v1_quota) {
    la__cpu_line(v1_quota, line, sizeof line);
    if (line[0]) q = strtod(line, NULL);
    la__cpu_line(v1_period, line, sizeof line);
    if (line[0]) p = strtod(line, NULL);
  }
  if (!(q > 0 && p > 0)) return 0;
  q = ceil(q / p);
  return q > LA_MAX_WORKERS ? LA_MAX_WORKERS : (long)q;
}

/* The smallest quota of this process's cgroup and those above it (v2:
   the line "0::PATH" of /proc/self/cgroup), or of v1's cpu controller;
   0 where none is set. */
static long la__cpu_cgroup(void) {
  char line[512], path[600];
  long best = la__cpu_quota("/sys/fs/cgroup/cpu.max",
                            "/sys/fs/cgroup/cpu/cpu.cfs_quota_us",
                            "/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (!f) return best;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "0::/", 4)) {
      char *end = line + strcspn(line, "\n"), *cut;
      *end = 0;
      while ((cut = strrchr(line + 3, '/')) != NULL && cut[1]) {
        long q;
        (void)snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", line + 3);
        q = la__cpu_quota(path, NULL, NULL);
        if (q > 0 && (best == 0 || q < best)) best = q;
        *cut = 0; /* its parent */
      }
    }
  (void)fclose(f);
  return best;
}

/* The processors of the affinity mask, 0 where it cannot be read. */
static long la__cpu_affinity(void) {
#if defined(__linux__) && defined(CPU_COUNT)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return 0;
#elif defined(__linux__)
  /* the dialect hides sched_getaffinity: the same mask, as a list */
  char line[4096];
  long n = 0;
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "Cpus_allowed_list:", 18)) {
      char *s = line + 18;
      while (*s) {
        long a = strtol(s, &s, 10), b = a;
        if (*s == '-') b = strtol(s + 1, &s, 10);
        n += b >= a ? b - a + 1 : 0;
        s += strspn(s, ", \t\n");
        if (*s && (*s < '0' || *s > '9')) break;
      }
    }
  (void)fclose(f);
  return n;
#else
  return 0;
#endif
}

/* The online processors, or those of the affinity mask; the cgroup's
   quota into *cgroup. */
static long la__cpu_host(long *cgroup) {
#ifdef _SC_NPROCESSORS_ONLN
  long n = sysconf(_SC_NPROCESSORS_ONLN), a = la__cpu_affinity();
  *cgroup = la__cpu_cgroup();
  return a > 0 ? a : n;
#else
  *cgroup = 0;
  return 1;
#endif
}
#elif LA__THREADS == 2
/* The processors of the process's affinity mask (those of its processor
   group: a process runs in one group unless it asks for more), else the
   machine's; Windows has no cgroup. */
static long la__cpu_host(long *cgroup) {
  DWORD_PTR mine = 0, sys = 0;
  long n = 0;
  *cgroup = 0;
  if (GetProcessAffinityMask(GetCurrentProcess(), &mine, &sys))
    for (; mine; mine &= mine - 1) ++n;
  if (n < 1) {
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    n = (long)si.dwNumberOfProcessors;
  }
  return n;
}
#endif

LINATTN_DEF int la_cpu_count(void) {
#if LA__THREADS
  long limits[3], i, n = la__cpu_host(&limits[0]);
  limits[1] = la__cpu_env("SLURM_CPUS_PER_TASK");
  limits[2] = la__cpu_env("OMP_NUM_THREADS");
  for (i = 0; i < 3; ++i)
    if (limits[i] > 0 && limits[i] < n) n = limits[i];
  return n < 1 ? 1 : n > LA_MAX_WORKERS ? LA_MAX_WORKERS : (int)n;
#else
  return 1;
#endif
}

#ifndef LINATTN_NO_STDLIB
/* Spins of a waiting thread before it sleeps: 20-30 microseconds (a
   pause takes 25 ns on Zen 4, about 40 on recent Intel cores), longer than
   the gap between the pool's jobs in a training step or a Lanczos run, far
   shorter than a scheduler's time slice. Measured on 2 cores under a load
   of 8: 4000 spins burnt 1.6x one thread's CPU time on a 2-thread job. */
#define LA__POOL_SPIN 800

typedef struct la__pool_arg {
  la_pool *pool;
  int worker;
} la__pool_arg;

/* The host's threads, mutex and condition variables: POSIX or Win32. */
#if LA__THREADS == 1
typedef pthread_t la__thread;
typedef pthread_mutex_t la__mutex;
typedef pthread_cond_t la__cond;
#define LA__THREAD_FN static void *
#define LA__THREAD_END NULL
#elif LA__THREADS == 2
typedef HANDLE la__thread;
typedef SRWLOCK la__mutex;
typedef CONDITION_VARIABLE la__cond;
#define LA__THREAD_FN static DWORD WINAPI
#define LA__THREAD_END 0
#endif

struct la_pool {
  la_parallel par; /* par.ctx is the pool */
  int threads;     /* workers, the caller included */
#if LA__THREADS
  la__thread *tid;
  la__pool_arg *args;
  la__mutex mu;
  la__cond wake, done;
  int sync;     /* mutex and conditions initialized, 0..3 */
  int started;  /* helper threads running */
  unsigned gen; /* job number (atomic) */
  int sleeping; /* helpers waiting on `wake` (atomic) */
  int active;   /* helpers still in the job (atomic) */
  int next;     /* next task index (atomic) */
  int quit;     /* set before the last `gen` (atomic) */
  int ntasks;
  la_task_fn task;
  void *arg;
#endif
};

#if LA__THREADS
/* Sequentially consistent loads, stores and adds (giving the new value)
   of the pool's int and unsigned counters. */
#if defined(__GNUC__) || defined(__clang__)
#define LA__LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define LA__STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define LA__ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#else /* MSVC: LONG has the 32 bits of int and unsigned */
#define LA__LOAD(p) InterlockedCompareExchange((volatile LONG *)(void *)(p), 0, 0)
#define LA__STORE(p, v) (void)InterlockedExchange((volatile LONG *)(void *)(p), (LONG)(v))
#define LA__ADD(p, v) InterlockedAdd((volatile LONG *)(void *)(p), (LONG)(v))
#endif

static void la__relax(void) {
#if LA__THREADS == 2
  YieldProcessor();
#elif defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || (defined(__ARM_ARCH) && __ARM_ARCH >= 7)
  __asm__ __volatile__("yield" ::: "memory");
#endif
}

#if LA__THREADS == 1
static void la__lock(la__mutex *m) { pthread_mutex_lock(m); }
static void la__unlock(la__mutex *m) { pthread_mutex_unlock(m); }
static void la__wait(la__cond *c, la__mutex *m) { pthread_cond_wait(c, m); }
static void la__signal(la__cond *c) { pthread_cond_signal(c); }
static void la__broadcast(la__cond *c) { pthread_cond_broadcast(c); }
static int la__mutex_init(la__mutex *m) { return pthread_mutex_init(m, NULL) == 0; }
static int la__cond_init(la__cond *c) { return pthread_cond_init(c, NULL) == 0; }
static void la__mutex_destroy(la__mutex *m) { pthread_mutex_destroy(m); }
static void la__cond_destroy(la__cond *c) { pthread_cond_destroy(c); }
static int la__thread_start(la__thread *t, void *(*fn)(void *), void *arg) {
  return pthread_create(t, NULL, fn, arg) == 0;
}
static void la__thread_join(la__thread t) { pthread_join(t, NULL); }
#else
static void la__lock(la__mutex *m) { AcquireSRWLockExclusive(m); }
static void la__unlock(la__mutex *m) { ReleaseSRWLockExclusive(m); }
static void la__wait(la__cond *c, la__mutex *m) {
  (void)SleepConditionVariableSRW(c, m, INFINITE, 0);
}
static void la__signal(la__cond *c) { WakeConditionVariable(c); }
static void la__broadcast(la__cond *c) { WakeAllConditionVariable(c); }
static int la__mutex_init(la__mutex *m) {
  InitializeSRWLock(m);
  return 1;
}
static int la__cond_init(la__cond *c) {
  InitializeConditionVariable(c);
  return 1;
}
static void la__mutex_destroy(la__mutex *m) { (void)m; } /* SRW: nothing */
static void la__cond_destroy(la__cond *c) { (void)c; }
static int la__thread_start(la__thread *t, LPTHREAD_START_ROUTINE fn,
                            void *arg) {
  *t = CreateThread(NULL, 0, fn, arg, 0, NULL);
  return *t != NULL;
}
static void la__thread_join(la__thread t) {
  (void)WaitForSingleObject(t, INFINITE);
  (void)CloseHandle(t);
}
#endif

static void la__pool_work(la_pool *p, int worker) {
  int i;
  while ((i = LA__ADD(&p->next, 1) - 1) < p->ntasks)
    p->task(p->arg, i, worker);
}

LA__THREAD_FN la__pool_main(void *arg_) {
  la__pool_arg *a = (la__pool_arg *)arg_;
  la_pool *p = a->pool;
  unsigned seen = 0, g = 0;
  for (;;) {
    int spin;
    for (spin = 0; spin < LA__POOL_SPIN && (g = LA__LOAD(&p->gen)) == seen;
         ++spin)
      la__relax();
    if (g == seen) {
      la__lock(&p->mu);
      LA__ADD(&p->sleeping, 1);
      /* the caller bumps gen, then reads sleeping: one of the two sees
         the other's write, so a sleeper is always woken */
      while ((g = LA__LOAD(&p->gen)) == seen)
        la__wait(&p->wake, &p->mu);
      LA__ADD(&p->sleeping, -1);
      la__unlock(&p->mu);
    }
    seen = g;
    if (LA__LOAD(&p->quit)) return LA__THREAD_END;
    la__pool_work(p, a->worker);
    if (LA__ADD(&p->active, -1) == 0) {
      la__lock(&p->mu);
      la__signal(&p->done);
      la__unlock(&p->mu);
    }
  }
}

/* Starts the job in p (or the quit); `all` wakes every helper whatever the
   count of sleepers says. */
static void la__pool_wake(la_pool *p, int all) {
  LA__ADD(&p->gen, 1u);
  if (all || LA__LOAD(&p->sleeping)) {
    la__lock(&p->mu);
    la__broadcast(&p->wake);
    la__unlock(&p->mu);
  }
}
#endif

static void la__pool_run(void *ctx, int ntasks, la_task_fn task, void *arg) {
  int i;
#if LA__THREADS
  la_pool *p = (la_pool *)ctx;
  if (p->started > 0 && ntasks > 1) {
    int spin;
    p->task = task;
    p->arg = arg;
    p->ntasks = ntasks;
    LA__STORE(&p->next, 0);
    LA__STORE(&p->active, p->started);
    la__pool_wake(p, 0);
    la__pool_work(p, 0);
    for (spin = 0; spin < LA__POOL_SPIN && LA__LOAD(&p->active); ++spin)
      la__relax();
    if (LA__LOAD(&p->active)) {
      la__lock(&p->mu);
      while (LA__LOAD(&p->active)) la__wait(&p->done, &p->mu);
      la__unlock(&p->mu);
    }
    return;
  }
#else
  (void)ctx;
#endif
  for (i = 0; i < ntasks; ++i) task(arg, i, 0);
}

LINATTN_DEF void la_pool_destroy(la_pool *p) {
  if (!p) return;
#if LA__THREADS
  if (p->started > 0) {
    int i;
    LA__STORE(&p->quit, 1);
    la__pool_wake(p, 1);
    for (i = 0; i < p->started; ++i) la__thread_join(p->tid[i]);
  }
  if (p->sync > 2) la__cond_destroy(&p->done);
  if (p->sync > 1) la__cond_destroy(&p->wake);
  if (p->sync > 0) la__mutex_destroy(&p->mu);
#endif
  LINATTN_FREE(p, NULL);
}

LINATTN_DEF int la_pool_create(la_pool **out, int threads) {
  la_pool *p;
  size_t bytes = sizeof(la_pool);
  if (!out) return LA_ENULL;
  if (threads < 0 || threads > LA_MAX_WORKERS) return LA_ERANGE;
  if (threads == 0) threads = 1;
#if LA__THREADS
  bytes += (size_t)threads * (sizeof(la__thread) + sizeof(la__pool_arg));
#else
  if (threads > 1) return LA_EUNSUPPORTED;
#endif
  p = (la_pool *)LINATTN_MALLOC(bytes, NULL);
  if (!p) return LA_ENOMEM;
  memset(p, 0, bytes);
  p->threads = threads;
  p->par.workers = threads;
  p->par.run = la__pool_run;
  p->par.ctx = p;
#if LA__THREADS
  if (threads > 1) {
    int i, ok;
    p->args = (la__pool_arg *)(void *)(p + 1);
    p->tid = (la__thread *)(void *)(p->args + threads);
    ok = la__mutex_init(&p->mu) && ++p->sync && la__cond_init(&p->wake) &&
         ++p->sync && la__cond_init(&p->done) && ++p->sync;
    for (i = 1; ok && i < threads; ++i) {
      p->args[i].pool = p;
      p->args[i].worker = i;
      ok = la__thread_start(&p->tid[i - 1], la__pool_main, &p->args[i]);
      if (ok) p->started = i;
    }
    if (!ok) {
      la_pool_destroy(p); /* joins the threads started */
      return LA_ENOMEM;
    }
  }
#endif
  *out = p;
  return LA_OK;
}

LINATTN_DEF const la_parallel *la_pool_parallel(const la_pool *pool) {
  return pool ? &pool->par : NULL;
}
#endif /* LINATTN_NO_STDLIB */


/* ================================================================== */
/*                   2. Random numbers and prompts                    */
/* ================================================================== */

/* Every operation below is written as the IEEE operations it performs, in
   order (contraction is off for the whole implementation, see its top). */

/* Vector lanes that round like the scalar code, fused multiply-adds
   included: AVX2, AVX-512 and AArch64 NEON, not ARMv7 NEON, which flushes
   subnormals to zero, nor WebAssembly SIMD128, which has no fused
   multiply-add (the generator's own lanes, below, fuse by fmaf there). */
#if LA__X86 || (LA__SIMD == LINATTN_NEON && defined(__aarch64__))
#define LA__PRNG_LANES_IEEE 1
#else
#define LA__PRNG_LANES_IEEE 0
#endif
/* Kept out of line: a hot loop inlined into a large caller loses its
   registers to the caller's, by a fifth of the time measured here. */
#if defined(__GNUC__) || defined(__clang__)
#define LA__NOINLINE static __attribute__((noinline))
#elif defined(_MSC_VER)
#define LA__NOINLINE static __declspec(noinline)
#else
#define LA__NOINLINE static
#endif
/* A short loop over the coordinates unrolled where the compiler knows
   how (gcc and clang): at -O2 it is not, and the loop's overhead is a
   fifth of the normalization's time. */
#if defined(__GNUC__) || defined(__clang__)
#define LA__UNROLL4 _Pragma("GCC unroll 4")
#else
#define LA__UNROLL4
#endif
/* a b + c in la_real with one rounding, as la__vfma on those lanes */
#ifdef LINATTN_DOUBLE
#define LA__FMA(a, b, c) la__fma(a, b, c)
#else
#define LA__FMA(a, b, c) la__fmaf(a, b, c)
#endif

/* -------------------------------------------------------- Philox4x32-7 */
/* Seven rounds: the fewest with which Philox4x32 is Crush-resistant in
   Salmon et al. (every TestU01 battery, BigCrush included, passed for many
   keys and counter patterns); Random123 defaults to ten for a wider margin,
   which would cost a data generator that is mostly random numbers 40% more
   time. */

#define LA__PHILOX_M0 0xD2511F53u
#define LA__PHILOX_M1 0xCD9E8D57u
#define LA__PHILOX_W0 0x9E3779B9u
#define LA__PHILOX_W1 0xBB67AE85u
#define LA__PHILOX_ROUNDS 7

static void la__philox(uint32_t c[4], uint32_t k0, uint32_t k1) {
  int round;
  for (round = 0; round < LA__PHILOX_ROUNDS; ++round) {
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
/* Fused multiply-adds (one rounding each) are part of the definition:
   every backend has them as an instruction or as C99's correctly rounded
   fmaf, and they halve the operations of the polynomials. */

static float la__u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t la__f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* -2 ln u from a table of 8: u = 2^k m with m in [sqrt(1/2), sqrt(2)) cut
   into 8 by its top mantissa bits; for each piece a float i close to 1/m
   whose -2 ln(1/i) = 2 ln i is a float to within 2^-10 ulp (chosen so, as
   in Tang's and Gal's accurate tables; i = 1 for the piece holding 1), so
   m = (1 + r) / i with r = m i - 1 rounded once by a fused multiply-add,
   |r| < 0.057. Then -2 ln m = 2 ln i + g(t), t = -2r, and
   g(t) = -2 ln(1 - t/2) = t + t^2 (1/4 + t/12 + ...) is a polynomial fitted
   for relative error 4e-10. Over all of [2^-31, 1] -2 ln u is within 1.2
   ulp (mean 0.26), as close as Cephes' logf, with half its multiplies. */
static const float la__ln_inv2[8] = { /* -2 i, so that t = fma(m, -2i, 2) */
    -2.7087533473968506f, -2.4973461627960205f, -2.316892623901367f,
    -2.1600584983825684f, -2.0f,               -1.8153495788574219f,
    -1.6304152011871338f, -1.4796934127807617f};
static const float la__ln_2lni[8] = { /* 2 ln i */
    0.6066826581954956f, 0.44416290521621704f, 0.2941594421863556f,
    0.15397624671459198f, 0.0f, -0.19373825192451477f,
    -0.40862494707107544f, -0.6026245355606079f};
#define LA__G4 0.005234528332948685f
#define LA__G3 0.012537390924990177f
#define LA__G2 0.03124980255961418f
#define LA__G1 0.08333320170640945f
#define LA__M2LN2 (-1.3862943649291992f) /* -2 ln 2, within 0.06 ulp */
/* Cephes' sinf and cosf on [-pi/4, pi/4] */
#define LA__SIN3 (-1.9515295891e-4f)
#define LA__SIN2 8.3321608736e-3f
#define LA__SIN1 (-1.6666654611e-1f)
#define LA__COS3 2.443315711809948e-5f
#define LA__COS2 (-1.388731625493765e-3f)
#define LA__COS1 4.166664568298827e-2f
/* 2 pi / 2^34: the angle of one unit of w2 << 2 */
#define LA__ANGLE (1.4629180792671596e-9f / 4)

/* -2 ln (v 2^-koff) for a positive normal float v: the scaling never
   becomes a multiply, it is an offset of the exponent k. k is bits 23..31
   of ix read as a signed 9-bit number. */
static float la__m2lnf(float v, uint32_t koff) {
  uint32_t ix = la__f2u(v) - 0x3f3504f3u - (koff << 23), j = (ix >> 20) & 7u;
  float kf = (float)((int32_t)((ix >> 23) ^ 0x100u) - 0x100);
  float m = la__u2f((ix & 0x007fffffu) + 0x3f3504f3u);
  float t = la__fmaf(m, la__ln_inv2[j], 2.0f), g;
  g = la__fmaf(
      la__fmaf(la__fmaf(la__fmaf(LA__G4, t, LA__G3), t, LA__G2), t, LA__G1), t,
      0.25f);
  g = la__fmaf(t * t, g, t) + la__ln_2lni[j];
  return la__fmaf(kf, LA__M2LN2, g);
}

/* -2 ln u for u = ((w >> 1) | 1) 2^-31 in [2^-31, 1]. */
static float la__m2logf(uint32_t w) {
  return la__m2lnf((float)(int32_t)((w >> 1) | 1u), 31);
}

/* The pair of normals of words (w1, w2): radius from w1, angle 2 pi w2/2^32
   = q pi/2 + ph with q the top two bits of w2 + 2^29 (rounded quadrant) and
   |ph| <= pi/4 from w2's lower 30 bits, signed. Odd q swaps sine and
   cosine; the signs are q's bits. */
static void la__boxmuller(uint32_t w1, uint32_t w2, float *n0, float *n1) {
  float rad = sqrtf(la__m2logf(w1));
  float ph = (float)(int32_t)(w2 << 2) * LA__ANGLE;
  float z = ph * ph, s, c;
  uint32_t q = w2 + 0x20000000u;
  s = la__fmaf(la__fmaf(la__fmaf(LA__SIN3, z, LA__SIN2), z, LA__SIN1), z * ph,
               ph);
  c = la__fmaf(la__fmaf(la__fmaf(la__fmaf(LA__COS3, z, LA__COS2), z, LA__COS1),
                        z, -0.5f),
               z, 1.0f); /* 0.88 ulp, Cephes' own order 1.24 */
  /* odd q turns (c, s) by pi/2 to (-s, c); q >= 2 by pi */
  rad = la__u2f(la__f2u(rad) ^ (q & 0x80000000u));
  *n0 = rad * ((q >> 30) & 1u ? -s : c);
  *n1 = rad * ((q >> 30) & 1u ? c : s);
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
   once against them, the lanes compute blocks blk..blk+4 LA__PL-1 exactly
   as la__philox_block and la__boxmuller do, lane by lane. */
#if LA__SIMD == LINATTN_AVX2
#define LA__PRNG_SIMD 1
#define LA__PL 8
typedef __m256i la__pu;
typedef __m256 la__pf;
#define la__u1(x) _mm256_set1_epi32((int)(x))
#define la__uload(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define la__uadd _mm256_add_epi32
#define la__uxor _mm256_xor_si256
#define la__uxor3(a, b, c) _mm256_xor_si256(a, _mm256_xor_si256(b, c))
#define la__uand _mm256_and_si256
#define la__uor _mm256_or_si256
#define la__usrl(v, n) _mm256_srli_epi32(v, n)
#define la__usra(v, n) _mm256_srai_epi32(v, n)
#define la__usll(v, n) _mm256_slli_epi32(v, n)
#define la__f1 _mm256_set1_ps
#define la__fadd _mm256_add_ps
#define la__fsub _mm256_sub_ps
#define la__fmul _mm256_mul_ps
#define la__ffma _mm256_fmadd_ps /* a b + c, one rounding */
#define la__fsqrt _mm256_sqrt_ps
#define la__fcvt _mm256_cvtepi32_ps /* lanes read as int32 */
#define la__fbits _mm256_castps_si256
#define la__bitsf _mm256_castsi256_ps
/* x where bit 31 of m is set, else y */
#define la__fsel(m, x, y) _mm256_blendv_ps(y, x, _mm256_castsi256_ps(m))
/* tab[j & 7] per lane */
#define la__tab8(tab, j) _mm256_permutevar8x32_ps(_mm256_loadu_ps(tab), j)
/* all ones where a > b (ordered), else zero */
#define la__fgt(a, b) _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_GT_OQ))
#define la__usub _mm256_sub_epi32
#define la__floadu _mm256_loadu_ps
#define la__fstoreu _mm256_storeu_ps
#define la__ustoreu(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)

LA__INLINE void la__umulhilo(la__pu a, uint32_t m, la__pu *hi, la__pu *lo) {
  __m256i vm = _mm256_set1_epi32((int)m);
  __m256i pe = _mm256_mul_epu32(a, vm);
  __m256i po = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), vm);
  *lo = _mm256_mullo_epi32(a, vm);
  *hi = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}
/* out[4 l + j] = n_j[l]: lanes are blocks, stream order is block-major. */
LA__INLINE void la__store4t8(float *out, __m256 n0, __m256 n1, __m256 n2,
                             __m256 n3) {
  __m256 t0 = _mm256_unpacklo_ps(n0, n1), t1 = _mm256_unpackhi_ps(n0, n1);
  __m256 t2 = _mm256_unpacklo_ps(n2, n3), t3 = _mm256_unpackhi_ps(n2, n3);
  __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  _mm256_storeu_ps(out, _mm256_permute2f128_ps(s0, s1, 0x20));
  _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(s2, s3, 0x20));
  _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(s0, s1, 0x31));
  _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(s2, s3, 0x31));
}
#define la__store4t la__store4t8
#elif LA__SIMD == LINATTN_AVX512
/* Sixteen lanes: the same operations on twice the blocks per instruction
   (Zen 4 executes them in two halves, Intel's server cores at once). */
#define LA__PRNG_SIMD 1
#define LA__PL 16
typedef __m512i la__pu;
typedef __m512 la__pf;
#define la__u1(x) _mm512_set1_epi32((int)(x))
#define la__uload(p) _mm512_loadu_si512((const void *)(p))
#define la__uadd _mm512_add_epi32
#define la__uxor _mm512_xor_si512
#define la__uxor3(a, b, c) _mm512_ternarylogic_epi32(a, b, c, 0x96) /* a^b^c */
#define la__uand _mm512_and_si512
#define la__uor _mm512_or_si512
#define la__usrl(v, n) _mm512_srli_epi32(v, n)
#define la__usra(v, n) _mm512_srai_epi32(v, n)
#define la__usll(v, n) _mm512_slli_epi32(v, n)
#define la__f1 _mm512_set1_ps
#define la__fadd _mm512_add_ps
#define la__fsub _mm512_sub_ps
#define la__fmul _mm512_mul_ps
#define la__ffma _mm512_fmadd_ps /* a b + c, one rounding */
#define la__fsqrt _mm512_sqrt_ps
#define la__fcvt _mm512_cvtepi32_ps /* lanes read as int32 */
#define la__fbits _mm512_castps_si512
#define la__bitsf _mm512_castsi512_ps
/* x where bit 31 of m is set (m < 0 as int32), else y */
#define la__fsel(m, x, y)                                                     \
  _mm512_mask_blend_ps(_mm512_cmplt_epi32_mask(m, _mm512_setzero_si512()), y, x)
/* all ones where a > b (ordered), else zero */
#define la__fgt(a, b)                                                         \
  _mm512_maskz_mov_epi32(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ), _mm512_set1_epi32(-1))
#define la__usub _mm512_sub_epi32
#define la__floadu _mm512_loadu_ps
#define la__fstoreu _mm512_storeu_ps
#define la__ustoreu(p, v) _mm512_storeu_si512((void *)(p), v)
/* tab[j & 7] per lane: the table twice over, indexed by j's low 4 bits */
LA__INLINE la__pf la__tab8(const float *tab, la__pu j) {
  __m512 t = _mm512_castps256_ps512(_mm256_loadu_ps(tab));
  return _mm512_permutexvar_ps(j, _mm512_shuffle_f32x4(t, t, 0x44));
}
LA__INLINE void la__umulhilo(la__pu a, uint32_t m, la__pu *hi, la__pu *lo) {
  /* the 32-bit halves of the even and the odd lanes' products, each
     gathered by one two-source permute */
  __m512i vm = _mm512_set1_epi32((int)m);
  __m512i pe = _mm512_mul_epu32(a, vm);
  __m512i po = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), vm);
  *lo = _mm512_permutex2var_epi32(
      pe, _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2, 16, 0), po);
  *hi = _mm512_permutex2var_epi32(
      pe, _mm512_set_epi32(31, 15, 29, 13, 27, 11, 25, 9, 23, 7, 21, 5, 19, 3, 17, 1), po);
}
/* out[4 l + j] = n_j[l]: lanes are blocks, stream order is block-major. */
LA__INLINE void la__store4t8(float *out, __m256 n0, __m256 n1, __m256 n2,
                             __m256 n3) {
  __m256 t0 = _mm256_unpacklo_ps(n0, n1), t1 = _mm256_unpackhi_ps(n0, n1);
  __m256 t2 = _mm256_unpacklo_ps(n2, n3), t3 = _mm256_unpackhi_ps(n2, n3);
  __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  _mm256_storeu_ps(out, _mm256_permute2f128_ps(s0, s1, 0x20));
  _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(s2, s3, 0x20));
  _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(s0, s1, 0x31));
  _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(s2, s3, 0x31));
}
/* Each 256-bit half as the AVX2 lanes store theirs. */
LA__INLINE void la__store4t(float *out, la__pf n0, la__pf n1, la__pf n2,
                            la__pf n3) {
#define LA__HI8(v) _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))
  la__store4t8(out, _mm512_castps512_ps256(n0), _mm512_castps512_ps256(n1),
               _mm512_castps512_ps256(n2), _mm512_castps512_ps256(n3));
  la__store4t8(out + 32, LA__HI8(n0), LA__HI8(n1), LA__HI8(n2), LA__HI8(n3));
#undef LA__HI8
}
#elif LA__SIMD == LINATTN_NEON
#define LA__PRNG_SIMD 1
#define LA__PL 4
typedef uint32x4_t la__pu;
typedef float32x4_t la__pf;
#define la__u1(x) vdupq_n_u32(x)
#define la__uload(p) vld1q_u32(p)
#define la__uadd vaddq_u32
#define la__uxor veorq_u32
#define la__uxor3(a, b, c) veorq_u32(a, veorq_u32(b, c))
#define la__uand vandq_u32
#define la__uor vorrq_u32
#define la__usrl(v, n) vshrq_n_u32(v, n)
#define la__usra(v, n) vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_u32(v), n))
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
/* all ones where a > b (ordered), else zero */
#define la__fgt(a, b) vcgtq_f32(a, b)
#define la__usub vsubq_u32
#define la__floadu vld1q_f32
#define la__fstoreu vst1q_f32
#define la__ustoreu vst1q_u32
/* every lane of a compare mask set */
LA__INLINE int la__uall(la__pu m) {
  uint32x2_t h = vand_u32(vget_low_u32(m), vget_high_u32(m));
  return (vget_lane_u32(h, 0) & vget_lane_u32(h, 1)) == 0xffffffffu;
}
/* tab[j & 7] per lane: byte lookups of the 32-byte table */
LA__INLINE la__pf la__tab8(const float *tab, la__pu j) {
  uint32x4_t b = vmlaq_n_u32(vdupq_n_u32(0x03020100u), vandq_u32(j, vdupq_n_u32(7)),
                             0x04040404u);
#if defined(__aarch64__)
  uint8x16x2_t t;
  t.val[0] = vld1q_u8((const uint8_t *)(const void *)tab);
  t.val[1] = vld1q_u8((const uint8_t *)(const void *)(tab + 4));
  return vreinterpretq_f32_u8(vqtbl2q_u8(t, vreinterpretq_u8_u32(b)));
#else
  uint8x8x4_t t;
  uint8x16_t bb = vreinterpretq_u8_u32(b);
  t.val[0] = vld1_u8((const uint8_t *)(const void *)tab);
  t.val[1] = vld1_u8((const uint8_t *)(const void *)(tab + 2));
  t.val[2] = vld1_u8((const uint8_t *)(const void *)(tab + 4));
  t.val[3] = vld1_u8((const uint8_t *)(const void *)(tab + 6));
  return vreinterpretq_f32_u8(vcombine_u8(vtbl4_u8(t, vget_low_u8(bb)),
                                          vtbl4_u8(t, vget_high_u8(bb))));
#endif
}
#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
#define la__ffma(a, b, c) vfmaq_f32(c, a, b) /* a b + c, one rounding */
#else
/* NEON before VFPv4 multiplies and adds with two roundings: C99's fmaf
   per lane keeps the one. */
static la__pf la__ffma(la__pf a, la__pf b, la__pf c) {
  float x[4], y[4], s[4];
  int l;
  vst1q_f32(x, a); vst1q_f32(y, b); vst1q_f32(s, c);
  for (l = 0; l < 4; ++l) s[l] = la__fmaf(x[l], y[l], s[l]);
  return vld1q_f32(s);
}
#endif
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
#elif LA__SIMD == LINATTN_WASM_SIMD128
/* Four lanes, as NEON's; the fused multiply-adds, which SIMD128 lacks, are
   C99's fmaf lane by lane (correctly rounded in wasi-libc and Emscripten's
   musl, which compute it in double and correct the one case where that
   rounds twice). */
#define LA__PRNG_SIMD 1
#define LA__PL 4
typedef v128_t la__pu;
typedef v128_t la__pf;
#define la__u1(x) wasm_u32x4_splat(x)
#define la__uload(p) wasm_v128_load(p)
#define la__uadd wasm_i32x4_add
#define la__uxor wasm_v128_xor
#define la__uxor3(a, b, c) wasm_v128_xor(a, wasm_v128_xor(b, c))
#define la__uand wasm_v128_and
#define la__uor wasm_v128_or
#define la__usrl(v, n) wasm_u32x4_shr(v, n)
#define la__usra(v, n) wasm_i32x4_shr(v, n)
#define la__usll(v, n) wasm_i32x4_shl(v, n)
#define la__f1 wasm_f32x4_splat
#define la__fadd wasm_f32x4_add
#define la__fsub wasm_f32x4_sub
#define la__fmul wasm_f32x4_mul
#define la__fsqrt wasm_f32x4_sqrt
#define la__fcvt wasm_f32x4_convert_i32x4 /* lanes read as int32 */
#define la__fbits(v) (v)
#define la__bitsf(v) (v)
/* x where bit 31 of m is set, else y */
#define la__fsel(m, x, y) wasm_v128_bitselect(x, y, wasm_i32x4_shr(m, 31))
/* all ones where a > b (ordered), else zero */
#define la__fgt(a, b) wasm_f32x4_gt(a, b)
#define la__usub wasm_i32x4_sub
#define la__floadu wasm_v128_load
#define la__fstoreu wasm_v128_store
#define la__ustoreu wasm_v128_store
/* tab[j & 7] per lane: byte lookups in the table's two halves (a swizzle
   index past 15 gives 0, so each byte comes from one half) */
LA__INLINE la__pf la__tab8(const float *tab, la__pu j) {
  v128_t b = wasm_i32x4_add(wasm_u32x4_splat(0x03020100u),
                            wasm_i32x4_mul(wasm_v128_and(j, wasm_u32x4_splat(7)),
                                           wasm_u32x4_splat(0x04040404u)));
  return wasm_v128_or(
      wasm_i8x16_swizzle(wasm_v128_load(tab), b),
      wasm_i8x16_swizzle(wasm_v128_load(tab + 4),
                         wasm_i8x16_sub(b, wasm_u8x16_splat(16))));
}
static la__pf la__ffma(la__pf a, la__pf b, la__pf c) {
  float x[4], y[4], s[4];
  int l;
  wasm_v128_store(x, a); wasm_v128_store(y, b); wasm_v128_store(s, c);
  for (l = 0; l < 4; ++l) s[l] = la__fmaf(x[l], y[l], s[l]);
  return wasm_v128_load(s);
}
LA__INLINE void la__umulhilo(la__pu a, uint32_t m, la__pu *hi, la__pu *lo) {
  v128_t vm = wasm_u32x4_splat(m);
  v128_t pl = wasm_u64x2_extmul_low_u32x4(a, vm);
  v128_t ph = wasm_u64x2_extmul_high_u32x4(a, vm);
  *lo = wasm_i32x4_shuffle(pl, ph, 0, 2, 4, 6);
  *hi = wasm_i32x4_shuffle(pl, ph, 1, 3, 5, 7);
}
/* out[4 l + j] = n_j[l] */
LA__INLINE void la__store4t(float *out, la__pf n0, la__pf n1, la__pf n2,
                            la__pf n3) {
  v128_t t0 = wasm_i32x4_shuffle(n0, n1, 0, 4, 1, 5);
  v128_t t1 = wasm_i32x4_shuffle(n0, n1, 2, 6, 3, 7);
  v128_t t2 = wasm_i32x4_shuffle(n2, n3, 0, 4, 1, 5);
  v128_t t3 = wasm_i32x4_shuffle(n2, n3, 2, 6, 3, 7);
  wasm_v128_store(out, wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5));
  wasm_v128_store(out + 4, wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7));
  wasm_v128_store(out + 8, wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5));
  wasm_v128_store(out + 12, wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7));
}
#endif

#ifdef LA__PRNG_SIMD
static const uint32_t la__lane_index[64] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
    48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

/* Four independent groups of lanes in lockstep: every step of Philox and
   of the polynomials is a chain of dependent operations, and four chains
   keep the vector units busy where fewer would wait on latency (measured:
   four are 7% faster than two on Zen 4, whose spills cost less than the
   waits). */
typedef struct la__u4 { la__pu a, b, c, d; } la__u4;
typedef struct la__f4 { la__pf a, b, c, d; } la__f4;
LA__INLINE la__u4 la__4u(uint32_t x) {
  la__u4 r;
  r.a = r.b = r.c = r.d = la__u1(x);
  return r;
}
LA__INLINE la__f4 la__4f(float x) {
  la__f4 r;
  r.a = r.b = r.c = r.d = la__f1(x);
  return r;
}
/* two-operand lane-wise operations on la__u4 or la__f4 (T) */
#define LA__4OP(name, T, op)                                                  \
  LA__INLINE T name(T x, T y) {                                               \
    T r;                                                                      \
    r.a = op(x.a, y.a); r.b = op(x.b, y.b);                                   \
    r.c = op(x.c, y.c); r.d = op(x.d, y.d);                                   \
    return r;                                                                 \
  }
#define LA__U4SHIFT(name, op, n)                                              \
  LA__INLINE la__u4 name(la__u4 x) {                                          \
    la__u4 r;                                                                 \
    r.a = op(x.a, n); r.b = op(x.b, n); r.c = op(x.c, n); r.d = op(x.d, n);   \
    return r;                                                                 \
  }
/* one-operand maps between the integer and float views */
#define LA__4MAP(name, R, A, op)                                              \
  LA__INLINE R name(A x) {                                                    \
    R r;                                                                      \
    r.a = op(x.a); r.b = op(x.b); r.c = op(x.c); r.d = op(x.d);               \
    return r;                                                                 \
  }
LA__4OP(la__4uadd, la__u4, la__uadd)
LA__4OP(la__4uxor, la__u4, la__uxor)
LA__INLINE la__u4 la__4uxor3(la__u4 x, la__u4 y, la__u4 z) {
  la__u4 r;
  r.a = la__uxor3(x.a, y.a, z.a); r.b = la__uxor3(x.b, y.b, z.b);
  r.c = la__uxor3(x.c, y.c, z.c); r.d = la__uxor3(x.d, y.d, z.d);
  return r;
}
LA__4OP(la__4uand, la__u4, la__uand)
LA__4OP(la__4uor, la__u4, la__uor)
LA__4OP(la__4fadd, la__f4, la__fadd)
LA__4OP(la__4fmul, la__f4, la__fmul)
LA__U4SHIFT(la__4srl1, la__usrl, 1)
LA__U4SHIFT(la__4srl20, la__usrl, 20)
LA__U4SHIFT(la__4sll1, la__usll, 1)
LA__U4SHIFT(la__4sll2, la__usll, 2)
LA__U4SHIFT(la__4sra23, la__usra, 23)
LA__4MAP(la__4fcvt, la__f4, la__u4, la__fcvt)
LA__4MAP(la__4fsqrt, la__f4, la__f4, la__fsqrt)
LA__4MAP(la__4fbits, la__u4, la__f4, la__fbits)
LA__4MAP(la__4bitsf, la__f4, la__u4, la__bitsf)
LA__INLINE la__f4 la__4fsel(la__u4 m, la__f4 x, la__f4 y) {
  la__f4 r;
  r.a = la__fsel(m.a, x.a, y.a); r.b = la__fsel(m.b, x.b, y.b);
  r.c = la__fsel(m.c, x.c, y.c); r.d = la__fsel(m.d, x.d, y.d);
  return r;
}
LA__INLINE la__f4 la__4tab8(const float *tab, la__u4 j) {
  la__f4 r;
  r.a = la__tab8(tab, j.a); r.b = la__tab8(tab, j.b);
  r.c = la__tab8(tab, j.c); r.d = la__tab8(tab, j.d);
  return r;
}
/* a b + c with one rounding; a constant a or c as la__4f(...) */
LA__INLINE la__f4 la__4fma(la__f4 a, la__f4 b, la__f4 c) {
  la__f4 r;
  r.a = la__ffma(a.a, b.a, c.a); r.b = la__ffma(a.b, b.b, c.b);
  r.c = la__ffma(a.c, b.c, c.c); r.d = la__ffma(a.d, b.d, c.d);
  return r;
}
/* Horner step p t + c */
LA__INLINE la__f4 la__4hstep(la__f4 p, la__f4 t, float c) {
  return la__4fma(p, t, la__4f(c));
}

/* la__m2lnf and la__m2logf on one group of lanes; k's offset folded into
   one signed shift */
LA__INLINE la__pf la__pm2lnf(la__pf v, uint32_t koff) {
  la__pu ix = la__uadd(la__fbits(v), la__u1(0u - 0x3f3504f3u - (koff << 23)));
  la__pf kf = la__fcvt(la__usra(ix, 23));
  la__pf m = la__bitsf(la__uadd(la__uand(ix, la__u1(0x007fffffu)),
                                la__u1(0x3f3504f3u)));
  la__pu j = la__usrl(ix, 20); /* the piece, in the low 3 bits */
  la__pf t = la__ffma(m, la__tab8(la__ln_inv2, j), la__f1(2.0f)), g;
  g = la__ffma(la__ffma(la__ffma(la__ffma(la__f1(LA__G4), t, la__f1(LA__G3)),
                                 t, la__f1(LA__G2)), t, la__f1(LA__G1)),
               t, la__f1(0.25f));
  g = la__fadd(la__ffma(la__fmul(t, t), g, t), la__tab8(la__ln_2lni, j));
  return la__ffma(kf, la__f1(LA__M2LN2), g);
}
LA__INLINE la__pf la__pm2logf(la__pu w) {
  return la__pm2lnf(la__fcvt(la__uor(la__usrl(w, 1), la__u1(1u))), 31);
}
/* ... on the four groups, step by step across them */
LA__INLINE la__f4 la__vm2lnf(la__f4 v, uint32_t koff) {
  la__u4 ix = la__4uadd(la__4fbits(v), la__4u(0u - 0x3f3504f3u - (koff << 23)));
  la__f4 kf = la__4fcvt(la__4sra23(ix));
  la__f4 m = la__4bitsf(la__4uadd(la__4uand(ix, la__4u(0x007fffffu)),
                                  la__4u(0x3f3504f3u)));
  la__u4 j = la__4srl20(ix); /* the piece, in the low 3 bits */
  la__f4 t = la__4fma(m, la__4tab8(la__ln_inv2, j), la__4f(2.0f)), g;
  g = la__4hstep(la__4hstep(la__4hstep(la__4hstep(la__4f(LA__G4), t, LA__G3),
                                       t, LA__G2), t, LA__G1), t, 0.25f);
  g = la__4fadd(la__4fma(la__4fmul(t, t), g, t), la__4tab8(la__ln_2lni, j));
  return la__4fma(kf, la__4f(LA__M2LN2), g);
}
LA__INLINE la__f4 la__vm2logf(la__u4 w) {
  return la__vm2lnf(la__4fcvt(la__4uor(la__4srl1(w), la__4u(1u))), 31);
}

LA__INLINE void la__vboxmuller(la__u4 w1, la__u4 w2, la__f4 *n0, la__f4 *n1) {
  la__u4 sign = la__4u(0x80000000u), q, swap;
  la__f4 rad = la__4fsqrt(la__vm2logf(w1));
  la__f4 ph = la__4fmul(la__4fcvt(la__4sll2(w2)), la__4f(LA__ANGLE));
  la__f4 z = la__4fmul(ph, ph), s, c;
  s = la__4hstep(la__4hstep(la__4f(LA__SIN3), z, LA__SIN2), z, LA__SIN1);
  s = la__4fma(s, la__4fmul(z, ph), ph);
  c = la__4hstep(la__4hstep(la__4f(LA__COS3), z, LA__COS2), z, LA__COS1);
  c = la__4hstep(la__4hstep(c, z, -0.5f), z, 1.0f);
  q = la__4uadd(w2, la__4u(0x20000000u));
  swap = la__4sll1(q);
  rad = la__4bitsf(la__4uxor(la__4fbits(rad), la__4uand(q, sign)));
  *n0 = la__4fmul(rad, la__4fsel(swap, la__4bitsf(la__4uxor(la__4fbits(s), sign)), c));
  *n1 = la__4fmul(rad, la__4fsel(swap, c, s));
}

/* What a fill shares: the round keys and the first rounds' constants.
   The counter's lanes differ only in word 0, so round 0 multiplies one
   varying word, round 1 one, and round 2 xors a constant word. */
typedef struct la__pkeys {
  la__pu k0[LA__PHILOX_ROUNDS], k1[LA__PHILOX_ROUNDS], r0c2;
  uint32_t key0, key1, hi1, lo1, blk_hi;
  la__pu r1c0, r1c2, r2c2; /* for blocks whose upper word is blk_hi */
} la__pkeys;

static void la__pkeys_block_hi(la__pkeys *k, uint32_t blk_hi) {
  uint32_t c0 = k->hi1 ^ blk_hi ^ k->key0; /* word 0 after round 0 */
  uint64_t p0 = (uint64_t)LA__PHILOX_M0 * c0;
  k->blk_hi = blk_hi;
  k->r1c0 = la__u1(k->lo1 ^ (k->key0 + LA__PHILOX_W0));
  k->r1c2 = la__u1((uint32_t)(p0 >> 32) ^ (k->key1 + LA__PHILOX_W1));
  k->r2c2 = la__u1((uint32_t)p0 ^ (k->key1 + 2 * LA__PHILOX_W1));
}

static void la__pkeys_init(const la_rng *r, la__pkeys *k, uint64_t blk) {
  uint32_t k0 = (uint32_t)r->key, k1 = (uint32_t)(r->key >> 32);
  uint32_t s0 = (uint32_t)r->stream, s1 = (uint32_t)(r->stream >> 32);
  uint64_t p1 = (uint64_t)LA__PHILOX_M1 * s0; /* round 0's constant product */
  int round;
  k->key0 = k0;
  k->key1 = k1;
  for (round = 0; round < LA__PHILOX_ROUNDS; ++round) {
    k->k0[round] = la__u1(k0);
    k->k1[round] = la__u1(k1);
    k0 += LA__PHILOX_W0;
    k1 += LA__PHILOX_W1;
  }
  k->hi1 = (uint32_t)(p1 >> 32);
  k->lo1 = (uint32_t)p1;
  k->r0c2 = la__u1(s1 ^ k->key1);
  la__pkeys_block_hi(k, (uint32_t)(blk >> 32));
}

LA__INLINE void la__4mulhilo(la__u4 x, uint32_t m, la__u4 *hi, la__u4 *lo) {
  la__umulhilo(x.a, m, &hi->a, &lo->a);
  la__umulhilo(x.b, m, &hi->b, &lo->b);
  la__umulhilo(x.c, m, &hi->c, &lo->c);
  la__umulhilo(x.d, m, &hi->d, &lo->d);
}
LA__INLINE la__u4 la__4k(la__pu k) {
  la__u4 r;
  r.a = r.b = r.c = r.d = k;
  return r;
}

/* Words w[0..3] of blocks blk .. blk + 4 LA__PL - 1 (lane l of group a:
   block blk + l; of b: blk + LA__PL + l; and so on). The caller ensures the
   block's low word does not carry and k is set for blk's upper word. */
LA__INLINE void la__philox_lanes(const la__pkeys *k, uint64_t blk,
                                 la__u4 w[4]) {
  la__u4 c0, c1, c2, c3, h0, l0, h1, l1;
  c0.a = la__uload(la__lane_index);
  c0.b = la__uload(la__lane_index + LA__PL);
  c0.c = la__uload(la__lane_index + 2 * LA__PL);
  c0.d = la__uload(la__lane_index + 3 * LA__PL);
  c0 = la__4uadd(la__4u((uint32_t)blk), c0);
  /* round 0: words 1, 2, 3 are the same in every lane */
  la__4mulhilo(c0, LA__PHILOX_M0, &h0, &c3);
  c2 = la__4uxor(h0, la__4k(k->r0c2));
  /* round 1: word 0 and word 1 are constants */
  la__4mulhilo(c2, LA__PHILOX_M1, &h1, &c1);
  c0 = la__4uxor(h1, la__4k(k->r1c0));
  c2 = la__4uxor(c3, la__4k(k->r1c2));
  /* round 2: word 3 is a constant */
  la__4mulhilo(c0, LA__PHILOX_M0, &h0, &l0);
  la__4mulhilo(c2, LA__PHILOX_M1, &h1, &l1);
  c0 = la__4uxor3(h1, c1, la__4k(k->k0[2]));
  c2 = la__4uxor(h0, la__4k(k->r2c2));
  c1 = l1;
  c3 = l0;
  /* written out: a loop left rolled at -O2 would reload its keys */
#define LA__PHILOX_ROUND(r)                                                   \
  la__4mulhilo(c0, LA__PHILOX_M0, &h0, &l0);                                  \
  la__4mulhilo(c2, LA__PHILOX_M1, &h1, &l1);                                  \
  c0 = la__4uxor3(h1, c1, la__4k(k->k0[r]));                                 \
  c2 = la__4uxor3(h0, c3, la__4k(k->k1[r]));                                  \
  c1 = l1;                                                                    \
  c3 = l0
  LA__PHILOX_ROUND(3);
  LA__PHILOX_ROUND(4);
  LA__PHILOX_ROUND(5);
  LA__PHILOX_ROUND(6);
#undef LA__PHILOX_ROUND
#if LA__PHILOX_ROUNDS != 7
#error "la__philox_lanes spells out seven rounds"
#endif
  w[0] = c0;
  w[1] = c1;
  w[2] = c2;
  w[3] = c3;
}

/* The 16 LA__PL normals of the words of la__philox_lanes, in stream order. */
LA__INLINE void la__normals_lanes(const la__u4 w[4], float *out) {
  la__f4 n0, n1, n2, n3;
  la__vboxmuller(w[0], w[1], &n0, &n1);
  la__vboxmuller(w[2], w[3], &n2, &n3);
  la__store4t(out, n0.a, n1.a, n2.a, n3.a);
  la__store4t(out + 4 * LA__PL, n0.b, n1.b, n2.b, n3.b);
  la__store4t(out + 8 * LA__PL, n0.c, n1.c, n2.c, n3.c);
  la__store4t(out + 12 * LA__PL, n0.d, n1.d, n2.d, n3.d);
}

/* Normals per SIMD chunk; a chunk whose lanes would carry into the block's
   upper word (once in 2^32 blocks) takes the scalar twin: the same bits. */
#define LA__NCHUNK (16 * LA__PL)
static void la__normals_chunk(const la_rng *r, la__pkeys *k, uint64_t blk,
                              float *out) {
  if ((uint32_t)blk > 0xffffffffu - (4 * LA__PL - 1)) {
    int c;
    for (c = 0; c < LA__NCHUNK; c += 32)
      la__normals32_scalar(r, blk + (uint64_t)(c / 4), out + c);
  } else {
    la__u4 w[4];
    if ((uint32_t)(blk >> 32) != k->blk_hi)
      la__pkeys_block_hi(k, (uint32_t)(blk >> 32));
    la__philox_lanes(k, blk, w);
    la__normals_lanes(w, out);
  }
}

/* `chunks` whole chunks from blk into out, each chunk's normals followed
   by the next chunk's words: the two are independent, and the core runs
   them side by side (7% faster than a chunk's words and normals in turn).
   The chunks must not carry into the block's upper word. */
static void la__normals_run(la__pkeys *k, uint64_t blk, size_t chunks,
                            la_real *x) {
  la__u4 w[4];
  size_t c;
#ifdef LINATTN_DOUBLE
  float t[LA__NCHUNK];
  int j;
#endif
  if ((uint32_t)(blk >> 32) != k->blk_hi)
    la__pkeys_block_hi(k, (uint32_t)(blk >> 32));
  la__philox_lanes(k, blk, w);
  for (c = 0; c < chunks; ++c) {
#ifdef LINATTN_DOUBLE
    la__normals_lanes(w, t);
    for (j = 0; j < LA__NCHUNK; ++j) x[c * LA__NCHUNK + (size_t)j] = t[j];
#else
    la__normals_lanes(w, x + c * LA__NCHUNK);
#endif
    if (c + 1 < chunks) la__philox_lanes(k, blk + (c + 1) * (LA__NCHUNK / 4), w);
  }
}
#else
#define LA__NCHUNK 32
typedef int la__pkeys;
static void la__pkeys_init(const la_rng *r, la__pkeys *k, uint64_t blk) {
  (void)r;
  (void)blk;
  *k = 0;
}
static void la__normals_chunk(const la_rng *r, la__pkeys *k, uint64_t blk,
                              float *out) {
  (void)k;
  la__normals32_scalar(r, blk, out);
}
#endif

/* n normals from the next block boundary; the stream moves past the last
   block used. Chunks differ by backend; the normals, defined block by
   block, do not. `room` more reals may be written past x + n: a last
   partial chunk then goes there whole instead of through a copy. */
static void la__fill_normals_room(la_rng *r, size_t n, la_real *x,
                                  size_t room) {
  uint64_t blk = (r->counter + 3) >> 2, end = blk + (n + 3) / 4;
  float t[LA__NCHUNK];
  size_t i = 0, j;
  la__pkeys k;
  la__pkeys_init(r, &k, blk);
#ifdef LA__PRNG_SIMD
  { /* the whole run at once unless a block's low word carries inside it */
    size_t chunks = n / LA__NCHUNK;
    if (n % LA__NCHUNK && LA__NCHUNK - n % LA__NCHUNK <= room) ++chunks;
    if (chunks && (uint64_t)(uint32_t)blk + chunks * (LA__NCHUNK / 4) <=
                      (uint64_t)0xffffffffu + 1) {
      la__normals_run(&k, blk, chunks, x);
      i = chunks * LA__NCHUNK;
      blk += chunks * (LA__NCHUNK / 4);
    }
  }
#else
  (void)room;
#endif
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
  }
  r->counter = end << 2;
}

static void la__fill_normals(la_rng *r, size_t n, la_real *x) {
  la__fill_normals_room(r, n, x, 0);
}

/* Where a run of normals comes from: virtual block v of the run is block
   base + v of rng's stream (a panel's stretch, la__data_panel). vm: the
   blocks the run has drawn. */
typedef struct la__draws {
  la_rng *rng;
  uint64_t base, vm;
} la__draws;

/* n normals from the run's next block into x (room as for
   la__fill_normals_room). */
static void la__draw(la__draws *dr, size_t n, la_real *x, size_t room) {
  la_rng t = *dr->rng;
  t.counter = (dr->base + dr->vm) << 2;
  la__fill_normals_room(&t, n, x, room);
  dr->vm += (n + 3) / 4;
}

LINATTN_DEF int la_rng_normals(la_rng *r, int n, la_real *x) {
  (void)la__normals32_scalar; /* the SIMD twin's reference, for the tests */
  if (!r || !x) return LA_ENULL;
  if (n <= 0) return LA_EDIM;
  la__fill_normals(r, (size_t)n, x);
  return LA_OK;
}

/* ------------------------------------------------------- in-house exp */
/* Double precision from +, -, * and floor only, so every machine with
   IEEE doubles gets the same values: la_rng_gamma's U^(1/k). */

static double la__u2d(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }


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

/* ------------------------------------------ Gamma, two tries per block */
/* Marsaglia and Tsang (2000) for shape a >= 1: with d = a - 1/3,
   c = 1/sqrt(9 d), x ~ N(0, 1), t = c x and u ~ U(0, 1), d (1 + t)^3 is
   Gamma(a, 1) when accepted, which it is iff
       ln u < h(x) = x^2/2 + d (1 - (1 + t)^3 + 3 ln(1 + t))  (h <= 0)
   (96% of tries at a = 1.1, more for larger a). Shapes k < 1 take
   a = k + 1 and multiply by U^(1/k) with U ~ U(0, 1) (Gamma(k) =
   Gamma(k + 1) U^(1/k)), and U is the accepted try's own u / e^h(x): given
   acceptance, u is uniform on (0, e^h(x)), so U is uniform and independent
   of x, and ln U = ln u - h(x) is what the test has just computed.

   A Philox block holds two tries: normal 0 of the block (as la_rng_normal
   draws it, from words 0 and 1) with u from word 2, and normal 1 with u
   from word 3 (u = ((w >> 1) | 1) 2^-31 as for the normals' radius). They
   are taken a quad of blocks at a time (from the run's first block): the
   first tries of its four blocks in turn, then their second tries. A try
   depends on its own words alone, so the tries of many blocks are made at
   once in vector lanes and the accepted ones taken in that order: the
   variates are those of trying one after another, whatever the lanes, and
   the stream moves past the quad of the last variate taken.

   The test is computed in float as the normals are, from +, -, *, fused
   multiply-adds, sqrt and tables. With R(t) = ln(1 + t) - t + t^2/2 -
   t^3/3 it reads L = -2 ln u > Q = -2 h = -6 d R(t) >= 0 (x^2/2 cancels
   exactly against d's t^2 terms: 6 d t^2 = (2/3) x^2), a form without
   cancellation even for large d: for |t| < 1/4, Q = (2/3) x^2 t^2 S(t),
   S(t) = -R(t)/t^4 = 1/4 - t/5 + t^2/6 - .. a fitted polynomial (within
   2 ulp); beyond, where d <= 77 necessarily, Q = 3d (-2 ln(1 + t) + 2t -
   t^2 + 2t^3/3). -2 ln U = L - Q. Where it cannot change the outcome the
   test is cut short exactly, so that no subnormal arises (ARMv7 NEON
   flushes them): L is 0 or at least 1.19e-7, so |t| < 2^-20 (Q < 1e-11)
   acts as Q = 0; 1 + t <= 2^-20 gives Q > 48 > 43 >= L: rejected; and
   c < 2^-60 (d > 4e34: a spread below double's resolution) counts as 0,
   so that every try is accepted with t = 0. */

/* What a Gamma(k, theta) draw needs, fixed by k and theta. */
typedef struct la__gpar {
  double k, d;   /* shape; d = a - 1/3 */
  int boost;     /* k < 1: times U^(1/k) */
  int series;    /* d >= 2: the series form for |t| < 1/4 */
  float c;       /* 1/sqrt(9 d), 0 below 2^-60 */
  float d3;      /* 3 d, at most 1e30 (only d <= 77 uses it) */
  float rsq;     /* sqrt(theta d), at most 3.4e38: the radius of t = 0 */
  float hk;      /* -1/(4 k ln 2): log2 of U^(1/(2k)) per unit of -2 ln U */
} la__gpar;

static void la__gpar_init(la__gpar *p, double k, double theta) {
  double a = k < 1 ? k + 1 : k, c, h;
  p->k = k;
  p->boost = k < 1;
  p->d = a - 1.0 / 3.0;
  p->series = p->d >= 2;
  c = 1.0 / sqrt(9.0 * p->d);
  p->c = c < 8.6736173798840355e-19 ? 0.0f : (float)c;
  p->d3 = 3 * p->d < 1e30 ? (float)(3 * p->d) : 1e30f;
  p->rsq = sqrt(theta * p->d) < 3.4e38 ? (float)sqrt(theta * p->d) : 3.4e38f;
  h = k < 1 ? 1.0 / (4.0 * k * 0.69314718055994531) : 0;
  p->hk = -(float)(h < 1e30 ? h : 1e30);
}

/* S(t) = -R(t)/t^4 on [-1/4, 1/4], constant term first */
static const float la__gam_s[8] = {
    0.2499999850988388f,   -0.19999997317790985f, 0.16667234897613525f,
    -0.14286364614963531f, 0.12455002963542938f,  -0.1106550469994545f,
    0.11124565452337265f,  -0.10166683048009872f};
/* 2^f on [-1/2, 1/2] (within 1.3 ulp), constant term first */
static const float la__exp2c[7] = {
    1.0f, 0.6931471824645996f, 0.24022646248340607f, 0.05550328642129898f,
    0.009618489071726799f, 0.0013399930903688073f, 0.00015345794963650405f};
#define LA__GAM_T0 0.25f                  /* the series form below */
#define LA__GAM_TINY 9.5367431640625e-07f /* 2^-20 */
#define LA__TWO3 0.6666666865348816f      /* 2/3 */
#define LA__HMIN (-200.0f) /* below, U^(1/(2k)) = 2^h is 0 in float anyway */

static float la__horner(const float *c, int deg, float t) {
  float s = c[deg];
  int i;
  for (i = deg - 1; i >= 0; --i) s = la__fmaf(s, t, c[i]);
  return s;
}

/* One try from its normal x and word wu: 1 on acceptance, with t and
   e = -2 ln U = L - Q. */
static int la__gamma_try(const la__gpar *p, float x, uint32_t wu, float *t_out,
                         float *e_out) {
  float t = p->c * x, s1 = 1.0f + t, at, q, l;
  if (!(s1 > LA__GAM_TINY)) return 0;
  at = fabsf(t);
  if (p->series && at < LA__GAM_T0) {
    float tq = at < LA__GAM_TINY ? 0.0f : t;
    q = LA__TWO3 * (x * x) * (tq * tq) * la__horner(la__gam_s, 7, t);
  } else {
    float poly = la__fmaf(la__fmaf(t, LA__TWO3, -1.0f), t, 2.0f);
    q = p->d3 * la__fmaf(t, poly, la__m2lnf(s1, 0));
  }
  l = la__m2logf(wu);
  if (!(l > q)) return 0;
  *t_out = t;
  *e_out = l - q;
  return 1;
}

/* The eight tries of the quad of blocks from blk, in order (the first
   tries of its four blocks, then their second): t, e and acceptance (all
   ones, or zero) of each. */
static void la__gamma_quad(const la__gpar *p, const la_rng *r, uint64_t blk,
                           float *t, float *e, uint32_t *a) {
  uint32_t w[4][4];
  float x[2][4];
  int b, i;
  for (b = 0; b < 4; ++b) {
    la__philox_block(r, blk + (uint64_t)b, w[b]);
    la__boxmuller(w[b][0], w[b][1], &x[0][b], &x[1][b]);
  }
  for (i = 0; i < 2; ++i)
    for (b = 0; b < 4; ++b) {
      t[4 * i + b] = e[4 * i + b] = 0;
      a[4 * i + b] = la__gamma_try(p, x[i][b], w[b][2 + i], t + 4 * i + b,
                                   e + 4 * i + b) ? 0xffffffffu : 0;
    }
}

/* 2^e for an integer e in [-126, 127] */
static float la__pow2f(int32_t e) { return la__u2f((uint32_t)(e + 127) << 23); }

/* 1.5 2^23: y + it - it is y rounded to an integer (|y| < 2^22), which
   the low bits of y + it then hold */
#define LA__RINT 12582912.0f

/* What a variate (t, e) contributes to its token's radius, in float:
   *s1 = 1 + t and *b = sqrt(theta d) (1 + t) U^(1/(2k)); the radius
   sqrt(theta g) is b sqrt(s1). U^(1/(2k)) = 2^h, h = e hk = n + f with n
   the nearest integer and |f| <= 1/2 (h below -200 is -200), 2^n applied
   as 2^floor(n/2) 2^ceil(n/2) so that each factor is a normal float. */
static void la__gamma_radius(const la__gpar *p, float t, float e, float *s1,
                             float *b) {
  float r;
  *s1 = 1.0f + t;
  r = p->rsq * *s1;
  if (p->boost) {
    float h = e * p->hk, y, f;
    int32_t n, n1;
    if (!(h > LA__HMIN)) h = LA__HMIN;
    y = h + LA__RINT;
    n = (int32_t)(la__f2u(y) - 0x4b400000u);
    f = h - (y - LA__RINT);
    n1 = (int32_t)(((uint32_t)n >> 1) | ((uint32_t)n & 0x80000000u)); /* floor */
    r = r * la__horner(la__exp2c, 6, f);
    r = r * la__pow2f(n1);
    r = r * la__pow2f(n - n1);
  }
  *b = r;
}

#ifdef LA__PRNG_SIMD
/* la__gamma_try in every lane of a group: t and e, all ones in the result
   where accepted. The series form is selected lane by lane by the scalar
   twin's conditions. A group at a time keeps the registers few. */
LA__INLINE la__pu la__vgamma_try(const la__gpar *p, la__pf x, la__pu wu,
                                 la__pf *t, la__pf *e) {
  la__pf s1, poly, q, l;
  *t = la__fmul(la__f1(p->c), x);
  s1 = la__fadd(la__f1(1.0f), *t);
  poly = la__ffma(la__ffma(*t, la__f1(LA__TWO3), la__f1(-1.0f)), *t,
                  la__f1(2.0f));
  q = la__fmul(la__f1(p->d3), la__ffma(*t, poly, la__pm2lnf(s1, 0)));
  if (p->series) {
    la__pf at = la__bitsf(la__uand(la__fbits(*t), la__u1(0x7fffffffu)));
    la__pf sr, tq, q1;
    tq = la__fsel(la__fgt(la__f1(LA__GAM_TINY), at), la__f1(0.0f), *t);
    sr = la__ffma(la__f1(la__gam_s[7]), *t, la__f1(la__gam_s[6]));
    sr = la__ffma(sr, *t, la__f1(la__gam_s[5]));
    sr = la__ffma(sr, *t, la__f1(la__gam_s[4]));
    sr = la__ffma(sr, *t, la__f1(la__gam_s[3]));
    sr = la__ffma(sr, *t, la__f1(la__gam_s[2]));
    sr = la__ffma(sr, *t, la__f1(la__gam_s[1]));
    sr = la__ffma(sr, *t, la__f1(la__gam_s[0]));
    q1 = la__fmul(la__fmul(la__fmul(la__f1(LA__TWO3), la__fmul(x, x)),
                           la__fmul(tq, tq)), sr);
    q = la__fsel(la__fgt(la__f1(LA__GAM_T0), at), q1, q);
  }
  l = la__pm2logf(wu);
  *e = la__fsub(l, q);
  return la__uand(la__fgt(s1, la__f1(LA__GAM_TINY)), la__fgt(l, q));
}
#endif

#if defined(LA__PRNG_SIMD) && LA__PRNG_LANES_IEEE
/* la__gamma_radius on one group (IEEE lanes only: the products may be
   subnormal) */
LA__INLINE void la__vgamma_radius(const la__gpar *p, la__pf t, la__pf e,
                                  la__pf *s1, la__pf *b) {
  la__pf r, h, y, f, x;
  la__pu n, n1;
  *s1 = la__fadd(la__f1(1.0f), t);
  r = la__fmul(la__f1(p->rsq), *s1);
  if (p->boost) {
    h = la__fmul(e, la__f1(p->hk));
    h = la__fsel(la__fgt(h, la__f1(LA__HMIN)), h, la__f1(LA__HMIN));
    y = la__fadd(h, la__f1(LA__RINT));
    n = la__usub(la__fbits(y), la__u1(0x4b400000u));
    f = la__fsub(h, la__fsub(y, la__f1(LA__RINT)));
    /* written out: a loop left rolled at -O2 is a chain the core waits on */
    x = la__ffma(la__f1(la__exp2c[6]), f, la__f1(la__exp2c[5]));
    x = la__ffma(x, f, la__f1(la__exp2c[4]));
    x = la__ffma(x, f, la__f1(la__exp2c[3]));
    x = la__ffma(x, f, la__f1(la__exp2c[2]));
    x = la__ffma(x, f, la__f1(la__exp2c[1]));
    x = la__ffma(x, f, la__f1(la__exp2c[0]));
    n1 = la__usra(n, 1); /* floor(n / 2) */
    r = la__fmul(r, x);
    r = la__fmul(r, la__bitsf(la__usll(la__uadd(n1, la__u1(127u)), 23)));
    r = la__fmul(r, la__bitsf(la__usll(la__uadd(la__usub(n, n1), la__u1(127u)), 23)));
  }
  *b = r;
}
#endif

#ifdef LA__PRNG_SIMD
#if LA__SIMD == LINATTN_AVX2
/* For each 8-bit mask, its set bits' positions in increasing order, 3 bits
   each from bit 0, and their number in bits 24..27: the permutation that
   packs the accepted lanes of 8 to the front. */
static const uint32_t la__pack8[256] = {
    0x00000000u, 0x01000000u, 0x01000001u, 0x02000008u, 0x01000002u, 0x02000010u,
    0x02000011u, 0x03000088u, 0x01000003u, 0x02000018u, 0x02000019u, 0x030000c8u,
    0x0200001au, 0x030000d0u, 0x030000d1u, 0x04000688u, 0x01000004u, 0x02000020u,
    0x02000021u, 0x03000108u, 0x02000022u, 0x03000110u, 0x03000111u, 0x04000888u,
    0x02000023u, 0x03000118u, 0x03000119u, 0x040008c8u, 0x0300011au, 0x040008d0u,
    0x040008d1u, 0x05004688u, 0x01000005u, 0x02000028u, 0x02000029u, 0x03000148u,
    0x0200002au, 0x03000150u, 0x03000151u, 0x04000a88u, 0x0200002bu, 0x03000158u,
    0x03000159u, 0x04000ac8u, 0x0300015au, 0x04000ad0u, 0x04000ad1u, 0x05005688u,
    0x0200002cu, 0x03000160u, 0x03000161u, 0x04000b08u, 0x03000162u, 0x04000b10u,
    0x04000b11u, 0x05005888u, 0x03000163u, 0x04000b18u, 0x04000b19u, 0x050058c8u,
    0x04000b1au, 0x050058d0u, 0x050058d1u, 0x0602c688u, 0x01000006u, 0x02000030u,
    0x02000031u, 0x03000188u, 0x02000032u, 0x03000190u, 0x03000191u, 0x04000c88u,
    0x02000033u, 0x03000198u, 0x03000199u, 0x04000cc8u, 0x0300019au, 0x04000cd0u,
    0x04000cd1u, 0x05006688u, 0x02000034u, 0x030001a0u, 0x030001a1u, 0x04000d08u,
    0x030001a2u, 0x04000d10u, 0x04000d11u, 0x05006888u, 0x030001a3u, 0x04000d18u,
    0x04000d19u, 0x050068c8u, 0x04000d1au, 0x050068d0u, 0x050068d1u, 0x06034688u,
    0x02000035u, 0x030001a8u, 0x030001a9u, 0x04000d48u, 0x030001aau, 0x04000d50u,
    0x04000d51u, 0x05006a88u, 0x030001abu, 0x04000d58u, 0x04000d59u, 0x05006ac8u,
    0x04000d5au, 0x05006ad0u, 0x05006ad1u, 0x06035688u, 0x030001acu, 0x04000d60u,
    0x04000d61u, 0x05006b08u, 0x04000d62u, 0x05006b10u, 0x05006b11u, 0x06035888u,
    0x04000d63u, 0x05006b18u, 0x05006b19u, 0x060358c8u, 0x05006b1au, 0x060358d0u,
    0x060358d1u, 0x071ac688u, 0x01000007u, 0x02000038u, 0x02000039u, 0x030001c8u,
    0x0200003au, 0x030001d0u, 0x030001d1u, 0x04000e88u, 0x0200003bu, 0x030001d8u,
    0x030001d9u, 0x04000ec8u, 0x030001dau, 0x04000ed0u, 0x04000ed1u, 0x05007688u,
    0x0200003cu, 0x030001e0u, 0x030001e1u, 0x04000f08u, 0x030001e2u, 0x04000f10u,
    0x04000f11u, 0x05007888u, 0x030001e3u, 0x04000f18u, 0x04000f19u, 0x050078c8u,
    0x04000f1au, 0x050078d0u, 0x050078d1u, 0x0603c688u, 0x0200003du, 0x030001e8u,
    0x030001e9u, 0x04000f48u, 0x030001eau, 0x04000f50u, 0x04000f51u, 0x05007a88u,
    0x030001ebu, 0x04000f58u, 0x04000f59u, 0x05007ac8u, 0x04000f5au, 0x05007ad0u,
    0x05007ad1u, 0x0603d688u, 0x030001ecu, 0x04000f60u, 0x04000f61u, 0x05007b08u,
    0x04000f62u, 0x05007b10u, 0x05007b11u, 0x0603d888u, 0x04000f63u, 0x05007b18u,
    0x05007b19u, 0x0603d8c8u, 0x05007b1au, 0x0603d8d0u, 0x0603d8d1u, 0x071ec688u,
    0x0200003eu, 0x030001f0u, 0x030001f1u, 0x04000f88u, 0x030001f2u, 0x04000f90u,
    0x04000f91u, 0x05007c88u, 0x030001f3u, 0x04000f98u, 0x04000f99u, 0x05007cc8u,
    0x04000f9au, 0x05007cd0u, 0x05007cd1u, 0x0603e688u, 0x030001f4u, 0x04000fa0u,
    0x04000fa1u, 0x05007d08u, 0x04000fa2u, 0x05007d10u, 0x05007d11u, 0x0603e888u,
    0x04000fa3u, 0x05007d18u, 0x05007d19u, 0x0603e8c8u, 0x05007d1au, 0x0603e8d0u,
    0x0603e8d1u, 0x071f4688u, 0x030001f5u, 0x04000fa8u, 0x04000fa9u, 0x05007d48u,
    0x04000faau, 0x05007d50u, 0x05007d51u, 0x0603ea88u, 0x04000fabu, 0x05007d58u,
    0x05007d59u, 0x0603eac8u, 0x05007d5au, 0x0603ead0u, 0x0603ead1u, 0x071f5688u,
    0x04000facu, 0x05007d60u, 0x05007d61u, 0x0603eb08u, 0x05007d62u, 0x0603eb10u,
    0x0603eb11u, 0x071f5888u, 0x05007d63u, 0x0603eb18u, 0x0603eb19u, 0x071f58c8u,
    0x0603eb1au, 0x071f58d0u, 0x071f58d1u, 0x08fac688u,
};
#endif

#endif

/* A run of Gamma tries, taken variate by variate by fill after fill: a
   panel's radii piece after piece, each fill going on where the last
   stopped (in the middle of a quad if need be), so that no try is made
   twice or made and left. Virtual block v of the run is block base + v of
   the stream (la__data_panel: from the middle of the panel's stretch), or
   with split block base + v + 32 (v / 32) + 32, the odd superblocks of 32
   (a layout that interleaves the tries with normals; kept tested, not used
   by the sampler). Tries are made a chunk of
   quads at a time (la__philox_lanes' blocks; one quad without SIMD) and
   kept, as s1 and b (la__gamma_radius), until taken. */
#ifdef LA__PRNG_SIMD
#define LA__GQ LA__PL /* quads per chunk */
#else
#define LA__GQ 1
#endif
typedef struct la__grun {
  la__gpar p;
  la_rng r;                 /* key and stream */
  uint64_t base, v;         /* block of virtual block 0; next to try */
  uint64_t end;             /* virtual block past the last quad taken from */
  int split;
  int nq, iq, it;           /* quads made, the next to take from, tries of
                               it already taken */
  float qs[LA__GQ][8], qb[LA__GQ][8]; /* s1 and b of each try */
  uint32_t qa[LA__GQ][8];             /* all ones where accepted */
#ifdef LA__PRNG_SIMD
  la__pkeys k;
#endif
} la__grun;

static uint64_t la__grun_blk(const la__grun *g, uint64_t v) {
  return g->base + v + (g->split ? (v & ~(uint64_t)31) + 32 : 0);
}

static void la__grun_init(la__grun *g, const la__gpar *p, const la_rng *r,
                          uint64_t base, int split) {
  g->p = *p;
  g->r = *r;
  g->base = base;
  g->v = g->end = 0;
  g->split = split;
  g->nq = g->iq = g->it = 0;
#ifdef LA__PRNG_SIMD
  la__pkeys_init(r, &g->k, base);
#endif
}

/* The radii of quad q's tries, one by one (lanes that flush subnormals,
   and the scalar twin). */
static void la__grun_radii(la__grun *g, int q) {
  int i;
  for (i = 0; i < 8; ++i) /* t and e by value, then s1 and b over them */
    la__gamma_radius(&g->p, g->qs[q][i], g->qb[q][i], g->qs[q] + i,
                     g->qb[q] + i);
}

/* The next chunk's tries into the quads (the scalar twin's one quad where
   a chunk's blocks would carry into the upper word). */
LA__NOINLINE void la__grun_make(la__grun *g) {
  uint64_t blk = la__grun_blk(g, g->v);
  int q;
  /* AVX-512's sixteen lanes take the scalar twin's quads: their lane order
     is not yet held bit for bit to it */
#if defined(LA__PRNG_SIMD) && LA__PL <= 8
  if ((uint32_t)blk <= 0xffffffffu - (4 * LA__PL - 1)) {
    const la__gpar *p = &g->p;
    la__u4 w[4];
    la__f4 x0, x1;
    la__pf t[2][4], e[2][4];
    la__pu a[2][4];
    int h;
    if ((uint32_t)(blk >> 32) != g->k.blk_hi)
      la__pkeys_block_hi(&g->k, (uint32_t)(blk >> 32));
    la__philox_lanes(&g->k, blk, w);
    la__vboxmuller(w[0], w[1], &x0, &x1);
    a[0][0] = la__vgamma_try(p, x0.a, w[2].a, &t[0][0], &e[0][0]);
    a[1][0] = la__vgamma_try(p, x1.a, w[3].a, &t[1][0], &e[1][0]);
    a[0][1] = la__vgamma_try(p, x0.b, w[2].b, &t[0][1], &e[0][1]);
    a[1][1] = la__vgamma_try(p, x1.b, w[3].b, &t[1][1], &e[1][1]);
    a[0][2] = la__vgamma_try(p, x0.c, w[2].c, &t[0][2], &e[0][2]);
    a[1][2] = la__vgamma_try(p, x1.c, w[3].c, &t[1][2], &e[1][2]);
    a[0][3] = la__vgamma_try(p, x0.d, w[2].d, &t[0][3], &e[0][3]);
    a[1][3] = la__vgamma_try(p, x1.d, w[3].d, &t[1][3], &e[1][3]);
    for (h = 0; h < 4; ++h) {
#if LA__PRNG_LANES_IEEE /* every try's radius, the rejected ones' too */
      la__vgamma_radius(p, t[0][h], e[0][h], &t[0][h], &e[0][h]);
      la__vgamma_radius(p, t[1][h], e[1][h], &t[1][h], &e[1][h]);
#endif
#if LA__PL == 8 /* a group is two quads: blocks 0-3, then 4-7 */
      _mm256_storeu_ps(g->qs[2 * h], _mm256_permute2f128_ps(t[0][h], t[1][h], 0x20));
      _mm256_storeu_ps(g->qs[2 * h + 1], _mm256_permute2f128_ps(t[0][h], t[1][h], 0x31));
      _mm256_storeu_ps(g->qb[2 * h], _mm256_permute2f128_ps(e[0][h], e[1][h], 0x20));
      _mm256_storeu_ps(g->qb[2 * h + 1], _mm256_permute2f128_ps(e[0][h], e[1][h], 0x31));
      la__ustoreu(g->qa[2 * h], _mm256_permute2x128_si256(a[0][h], a[1][h], 0x20));
      la__ustoreu(g->qa[2 * h + 1], _mm256_permute2x128_si256(a[0][h], a[1][h], 0x31));
#else /* a group is one quad */
      la__fstoreu(g->qs[h], t[0][h]); la__fstoreu(g->qs[h] + 4, t[1][h]);
      la__fstoreu(g->qb[h], e[0][h]); la__fstoreu(g->qb[h] + 4, e[1][h]);
      la__ustoreu(g->qa[h], a[0][h]); la__ustoreu(g->qa[h] + 4, a[1][h]);
#endif
    }
#if !LA__PRNG_LANES_IEEE /* products that may be subnormal: not in lanes */
    for (q = 0; q < LA__GQ; ++q) la__grun_radii(g, q);
#endif
    g->nq = LA__GQ;
    g->iq = g->it = 0;
    g->v += 4 * LA__PL;
    return;
  }
#endif
  la__gamma_quad(&g->p, &g->r, blk, g->qs[0], g->qb[0], g->qa[0]);
  la__grun_radii(g, 0);
  (void)q;
  g->nq = 1;
  g->iq = g->it = 0;
  g->v += 4;
}

/* The next count variates' s1 and b into sb, bb (room for count + 8: a
   quad is packed whole). */
static void la__grun_fill(la__grun *g, size_t count, float *LA__RESTRICT sb,
                          float *LA__RESTRICT bb) {
  size_t m = 0;
  int iq = g->iq, it = g->it, last = -1; /* the quad taken from last */
  while (m < count) {
    if (iq == g->nq) {
      if (last >= 0) g->end = g->v - 4 * (uint64_t)(g->nq - last - 1);
      la__grun_make(g);
      iq = it = 0;
      last = -1;
    }
#if LA__SIMD == LINATTN_AVX2
    if (it == 0 && count - m > 8) { /* the quad's accepted tries, packed */
      uint32_t code = la__pack8[_mm256_movemask_ps(_mm256_castsi256_ps(
          _mm256_loadu_si256((const __m256i *)(const void *)g->qa[iq])))];
      __m256i idx = _mm256_and_si256(
          _mm256_srlv_epi32(_mm256_set1_epi32((int)code),
                            _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21)),
          _mm256_set1_epi32(7));
      _mm256_storeu_ps(sb + m, _mm256_permutevar8x32_ps(_mm256_loadu_ps(g->qs[iq]), idx));
      _mm256_storeu_ps(bb + m, _mm256_permutevar8x32_ps(_mm256_loadu_ps(g->qb[iq]), idx));
      if (code >> 24) last = iq;
      m += code >> 24;
      ++iq;
      continue;
    }
#endif
    for (; it < 8; ++it)
      if (g->qa[iq][it]) {
        sb[m] = g->qs[iq][it];
        bb[m] = g->qb[iq][it];
        last = iq;
        if (++m == count) { ++it; break; }
      }
    if (it == 8) { ++iq; it = 0; }
  }
  if (last >= 0) g->end = g->v - 4 * (uint64_t)(g->nq - last - 1);
  g->iq = iq;
  g->it = it;
}

LINATTN_DEF int la_rng_gamma(la_rng *r, double k, double theta, double *g) {
  la__gpar p;
  uint64_t blk;
  float t[8], e[8];
  uint32_t a[8];
  int i = 8;
  double s1, v;
  if (!r || !g) return LA_ENULL;
  if (!la__finite(k) || !la__finite(theta)) return LA_ENONFINITE;
  if (k <= 0.0 || theta <= 0.0) return LA_ERANGE;
  la__gpar_init(&p, k, theta);
  /* quad after quad, the scalar twin: the same tries as a batch's run */
  for (blk = (r->counter + 3) >> 2; i == 8; blk += 4) {
    la__gamma_quad(&p, r, blk, t, e, a);
    for (i = 0; i < 8 && !a[i]; ++i) {}
  }
  /* the value in double from the float try: d (1 + t)^3 U^(1/k) theta */
  s1 = 1.0 + t[i];
  v = p.d * (s1 * s1 * s1);
  if (p.boost) v = v * la__exp(-0.5 * e[i] / k);
  v = v * theta;
  if (!la__finite(v)) return LA_ERANGE; /* theta too large; r unmoved */
  r->counter = blk << 2;
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
  if ((uintptr_t)mem % LA_ALIGN) return LA_ERANGE; /* the model's loads */
  b->d = d; b->n = n; b->count = count;
  b->z = (la_real *)mem;
  b->y = b->z + la__panel_reals(d + 1, n + 1, count);
  b->owned = NULL;
  memset(mem, 0, need);
  return LA_OK;
}
/* Element (r, c) of prompt i's Z0 in b's interleaved z. */
static size_t la__batch_at(const la_batch *b, int i, int r, int c) {
  size_t rc = (size_t)(b->d + 1) * (size_t)(b->n + 1);
  return ((size_t)(i / LA_W) * rc + (size_t)r * (size_t)(b->n + 1) + (size_t)c) *
             LA_W + (size_t)(i % LA_W);
}
static size_t la__batch_y_at(int i) {
  return (size_t)(i / LA_W) * LA_W + (size_t)(i % LA_W);
}

LINATTN_DEF int la_batch_put_tokens(la_batch *b, const double *tokens,
                                    const double *y) {
  size_t k, per;
  int i, r, c;
  if (!b || !b->z || !b->y || !tokens || !y) return LA_ENULL;
  per = (size_t)(b->d + 1) * (size_t)(b->n + 1);
  for (k = 0; k < per * (size_t)b->count; ++k)
    if (!la__finite(tokens[k]) || !(fabs(tokens[k]) <= LA__REAL_MAX))
      return LA_ENONFINITE;
  for (i = 0; i < b->count; ++i) {
    if (!la__finite(y[i]) || !(fabs(y[i]) <= LA__REAL_MAX)) return LA_ENONFINITE;
    if (tokens[per * (size_t)i + per - 1] != 0) return LA_ERANGE;
  }
  for (i = 0; i < b->count; ++i) {
    const double *t = tokens + per * (size_t)i;
    for (c = 0; c <= b->n; ++c) /* token c is column c of Z0 */
      for (r = 0; r <= b->d; ++r)
        b->z[la__batch_at(b, i, r, c)] = (la_real)t[(size_t)c * (size_t)(b->d + 1) + (size_t)r];
    b->y[la__batch_y_at(i)] = (la_real)y[i];
  }
  return LA_OK;
}

LINATTN_DEF int la_batch_get_tokens(const la_batch *b, double *tokens,
                                    double *y) {
  size_t per;
  int i, r, c;
  if (!b || !b->z || !b->y) return LA_ENULL;
  per = (size_t)(b->d + 1) * (size_t)(b->n + 1);
  for (i = 0; i < b->count; ++i) {
    if (tokens)
      for (c = 0; c <= b->n; ++c)
        for (r = 0; r <= b->d; ++r)
          tokens[per * (size_t)i + (size_t)c * (size_t)(b->d + 1) + (size_t)r] =
              (double)b->z[la__batch_at(b, i, r, c)];
    if (y) y[i] = (double)b->y[la__batch_y_at(i)];
  }
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
  else b->owned = mem;
  return st;
}
LINATTN_DEF void la_batch_destroy(la_batch *b) {
  if (!b) return;
  la_free(b->owned);
  b->z = b->y = NULL;
  b->owned = NULL;
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

/* The largest radius la_data_sample can give with Gamma radii: every
   normal is within 6.57 (the generator's cut), so t = c x within 6.57 c
   and the radius sqrt(theta d) (1 + t)^(3/2) U^(1/(2k)) within
   sqrt(theta d) (1 + 6.57 c)^(3/2). */
static double la__radius_max(const la_data_config *c) {
  double d = (c->gamma_shape < 1 ? c->gamma_shape + 1 : c->gamma_shape) -
             1.0 / 3.0;
  double s1 = 1 + 6.57 / sqrt(9 * d);
  return sqrt(c->gamma_scale * d) * s1 * sqrt(s1);
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
    if (!la__finite(c->gamma_shape) || !la__finite(c->gamma_scale))
      return LA_ENONFINITE;
    if (c->gamma_shape < 0 || c->gamma_scale < 0) return LA_ERANGE;
    /* the radius is formed in float, and divided by |x| >= 5e-13 */
    if (!(la__radius_max(c) <= 1e25)) return LA_ERANGE;
  }
  if (!la__finite(c->noise_std)) return LA_ENONFINITE;
  /* beyond la_real's range every label would come out infinite */
  if (c->noise_std < 0 || c->noise_std > (sizeof(la_real) == 4 ? 3.4e38 : 1e308))
    return LA_ERANGE;
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

/* The generator's block: its fixed parameters (Cholesky factor, inverse,
   target network) in one run of la_reals, then the scratch their
   construction needs. */
static void la__data_walk(la__arena *a, const la__data_sizes *s, la_real **par,
                          double **scratch) {
  *par = (la_real *)la__take(a, sizeof(la_real) * (s->chol + s->winv + s->net));
  *scratch = (double *)la__take(a, sizeof(double) * s->scratch);
}

static size_t la__data_need(const la_data_config *c) {
  la__data_sizes s = la__data_parts(c);
  la__arena a = la__arena_count();
  la_real *par;
  double *scratch;
  la__data_walk(&a, &s, &par, &scratch);
  return la__arena_size(&a);
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
      if (!la__finite(c->sigma_matrix[i])) return LA_ENONFINITE;
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
  for (i = 0; i < d * d; ++i)
    if (!(fabs(L[i]) <= LA__REAL_MAX)) return LA_ERANGE;
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
  for (i = 0; i < d * d; ++i)
    if (!(fabs(Li[i]) <= LA__REAL_MAX)) return LA_ERANGE;
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

/* sqrt of the sum of squares of n entries (in double: no overflow) */
static double la__frob(int n, const la_real *a) {
  double s = 0;
  int i;
  for (i = 0; i < n; ++i) s += (double)a[i] * a[i];
  return sqrt(s);
}

/* Whether every value la_data_sample can write is finite: bounds on the
   norms of x (|x0| within 6.57 sqrt(d), 1, or la__radius_max; times
   ||chol||), w* (6.57 sqrt(d) ||winv||), the target network's hidden
   units and features, and the labels with their noise (6.57 noise_std),
   each with a margin of 4 for the rounding of the sums. LA_ERANGE if one
   could pass la_real's largest value. */
static int la__data_bounds(const la_data_config *c, const la_real *chol,
                           const la_real *winv, const la_real *net) {
  const double z = 6.57, big = LA__REAL_MAX / 4;
  int d = c->d, h = c->net_hidden;
  double x, w, f, y;
  x = c->covariates == LA_X_GAMMA_SPHERE ? la__radius_max(c)
      : c->covariates == LA_X_SPHERE     ? 1.0
                                         : z * sqrt((double)d);
  if (chol) x *= la__frob(d * d, chol);
  w = z * sqrt((double)d) * (winv ? la__frob(d * d, winv) : 1.0);
  f = x;
  if (net) {
    double hid = la__frob(h * d, net) * x + la__frob(h, net + h * d);
    if (!(hid <= big)) return LA_ERANGE;
    f = la__frob(d * h, net + h * d + h) * hid +
        la__frob(d, net + 2 * h * d + h);
  }
  y = w * f + c->noise_std * z;
  return x <= big && w <= big && f <= big && y <= big ? LA_OK : LA_ERANGE;
}

LINATTN_DEF int la_data_init(la_data *g, const la_data_config *cfg,
                             uint64_t seed, void *mem, size_t bytes) {
  la_data_config c;
  la__data_sizes s;
  la_real *chol, *winv, *net, *par;
  double *scratch;
  la__arena a;
  size_t need;
  int st;
  if (!g || !cfg) return LA_ENULL;
  st = la__data_resolve(cfg, &c);
  if (st) return st;
  if (!mem) return LA_ENULL;
  need = la__data_need(&c);
  if (!need) return LA_EOVERFLOW;
  if (bytes < need) return LA_EWORKSPACE;
  s = la__data_parts(&c);
  a = la__arena_on(mem, bytes);
  if (!la__arena_align(&a)) return LA_EWORKSPACE;
  la__data_walk(&a, &s, &par, &scratch);
  chol = s.chol ? par : NULL;
  winv = s.winv ? par + s.chol : NULL;
  net = s.net ? par + s.chol + s.winv : NULL;
  if (chol) {
    st = la__data_sigma(&c, seed, chol, winv, scratch);
    if (st) return st;
  }
  if (net) la__data_net(&c, seed, net);
  st = la__data_bounds(&c, chol, winv, net);
  if (st) return st;
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
  if (!need) { /* the configuration's error, or a size beyond size_t */
    la_data_config c;
    st = la__data_resolve(cfg, &c);
    return st ? st : LA_EOVERFLOW;
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

#if LA__PRNG_LANES_IEEE
/* A few more operations on the la_real lanes of a panel: exact square
   root and division (IEEE on these lanes), and whether any lane is 0. */
#if LA__X86 && !defined(LINATTN_DOUBLE) /* AVX-512 panels are 256 bits too */
#define la__vsqrt _mm256_sqrt_ps
#define la__vdiv _mm256_div_ps
#define la__vloadf _mm256_loadu_ps
LA__INLINE int la__vany_zero(la__vec v) {
  return _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_EQ_OQ));
}
#elif LA__X86
#define la__vsqrt _mm256_sqrt_pd
#define la__vdiv _mm256_div_pd
#define la__vloadf(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
LA__INLINE int la__vany_zero(la__vec v) {
  return _mm256_movemask_pd(_mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_EQ_OQ));
}
#elif !defined(LINATTN_DOUBLE)
LA__INLINE la__vec la__vsqrt(la__vec x) {
  la__vec v; v.lo = vsqrtq_f32(x.lo); v.hi = vsqrtq_f32(x.hi); return v;
}
LA__INLINE la__vec la__vdiv(la__vec x, la__vec y) {
  la__vec v; v.lo = vdivq_f32(x.lo, y.lo); v.hi = vdivq_f32(x.hi, y.hi);
  return v;
}
#define la__vloadf la__vload
LA__INLINE int la__vany_zero(la__vec v) {
  return vmaxvq_u32(vorrq_u32(vceqzq_f32(v.lo), vceqzq_f32(v.hi))) != 0;
}
#else
LA__INLINE la__vec la__vsqrt(la__vec x) {
  la__vec v; v.a = vsqrtq_f64(x.a); v.b = vsqrtq_f64(x.b); return v;
}
LA__INLINE la__vec la__vdiv(la__vec x, la__vec y) {
  la__vec v; v.a = vdivq_f64(x.a, y.a); v.b = vdivq_f64(x.b, y.b); return v;
}
LA__INLINE la__vec la__vloadf(const float *p) {
  la__vec v; v.a = vcvt_f64_f32(vld1_f32(p)); v.b = vcvt_f64_f32(vld1_f32(p + 2));
  return v;
}
LA__INLINE int la__vany_zero(la__vec v) {
  return vmaxvq_u32(vreinterpretq_u32_u64(
             vorrq_u64(vceqzq_f64(v.a), vceqzq_f64(v.b)))) != 0;
}
#endif
#endif

#ifdef LINATTN_DOUBLE
#define LA__SQRT(x) sqrt(x)
#else
#define LA__SQRT(x) sqrtf(x)
#endif

/* One token of la__unit_scale lane by lane (the vector path's operations,
   in order). */
static void la__unit_scale1(int d, size_t row, la_real *xj, const float *sj,
                            const float *bj) {
  int i, l;
  for (l = 0; l < LA_W; ++l) {
    la_real ss = xj[l] * xj[l], ws;
    for (i = 1; i < d; ++i) ss = LA__FMA(xj[i * row + l], xj[i * row + l], ss);
    if (ss > 0) {
      ws = LA__SQRT((la_real)sj[l] / ss) * (la_real)bj[l];
      for (i = 0; i < d; ++i) xj[i * row + l] = xj[i * row + l] * ws;
    } else { /* every normal exactly 0 (chance 2^-25 at d = 1) */
      xj[l] = (la_real)bj[l] * LA__SQRT((la_real)sj[l]);
    }
  }
}

/* Tokens j < nt of x (coordinates row apart, lanes innermost) scaled to
   the unit sphere, then to their radii b sqrt(s1) (la__gamma_radius; 1
   and 1 on the sphere), entry (j, lane) of s1 and b at j LA_W + lane:
   x (sqrt(s1/|x|^2) b), one division and one square root per token. The
   factor is radius/|x|, below 3.4e38 since a nonzero normal is at least
   5e-13 and la_data_init holds radii below 1e25. |x|^2 is summed with
   fused multiply-adds. An all-zero token becomes (b sqrt(s1), 0, .., 0). */
static void la__unit_scale(int d, size_t row, la_real *x, int nt,
                           const float *s1, const float *b) {
  int j = 0;
#if LA__PRNG_LANES_IEEE
  /* two tokens at a time: twice the work between loop tests */
  for (; j + 1 < nt; j += 2) {
    la_real *xj = x + (size_t)j * LA_W;
    const float *sj = s1 + (size_t)j * LA_W, *bj = b + (size_t)j * LA_W;
    la__vec s = la__vmul(la__vloadu(xj), la__vloadu(xj)), w;
    la__vec t = la__vmul(la__vloadu(xj + LA_W), la__vloadu(xj + LA_W)), v;
    int i;
    LA__UNROLL4
    for (i = 1; i < d; ++i) {
      la__vec xa = la__vloadu(xj + i * row), xb = la__vloadu(xj + i * row + LA_W);
      s = la__vfma(s, xa, xa);
      t = la__vfma(t, xb, xb);
    }
    if (la__vany_zero(s) || la__vany_zero(t)) {
      la__unit_scale1(d, row, xj, sj, bj);
      la__unit_scale1(d, row, xj + LA_W, sj + LA_W, bj + LA_W);
      continue;
    }
    w = la__vmul(la__vsqrt(la__vdiv(la__vloadf(sj), s)), la__vloadf(bj));
    v = la__vmul(la__vsqrt(la__vdiv(la__vloadf(sj + LA_W), t)),
                 la__vloadf(bj + LA_W));
    LA__UNROLL4
    for (i = 0; i < d; ++i) {
      la__vstoreu(xj + i * row, la__vmul(la__vloadu(xj + i * row), w));
      la__vstoreu(xj + i * row + LA_W,
                  la__vmul(la__vloadu(xj + i * row + LA_W), v));
    }
  }
  if (j < nt) { /* the last of an odd count */
    la_real *xj = x + (size_t)j * LA_W;
    const float *sj = s1 + (size_t)j * LA_W, *bj = b + (size_t)j * LA_W;
    la__vec s = la__vmul(la__vloadu(xj), la__vloadu(xj)), w;
    int i;
    for (i = 1; i < d; ++i) {
      la__vec xa = la__vloadu(xj + i * row);
      s = la__vfma(s, xa, xa);
    }
    if (!la__vany_zero(s)) {
      w = la__vmul(la__vsqrt(la__vdiv(la__vloadf(sj), s)), la__vloadf(bj));
      for (i = 0; i < d; ++i)
        la__vstoreu(xj + i * row, la__vmul(la__vloadu(xj + i * row), w));
      ++j;
    }
  }
#endif
  for (; j < nt; ++j)
    la__unit_scale1(d, row, x + (size_t)j * LA_W, s1 + (size_t)j * LA_W,
                    b + (size_t)j * LA_W);
}

/* Tokens whose radii are drawn at a time: the panel's draws are those of
   one run whatever the piece (a piece ends where its last variate's
   block does). */
#define LA__RPIECE 32

/* x0 of LA_X_SPHERE and LA_X_GAMMA_SPHERE (gr NULL: the sphere): each
   token's normals scaled to the unit sphere, then to its radius, 1 or
   sqrt(g) with g the Gamma run's next variate, token by token, lane by
   lane. */
LA__NOINLINE void la__panel_radii(const la_data_config *c, la__grun *gr,
                                 la_real *P) {
  enum { R = LA__RPIECE * LA_W };
  int n1 = c->n + 1, j0, nt, i;
  size_t row = (size_t)n1 * LA_W;
  float s1[R + 8], b[R + 8]; /* room for a quad packed whole */
  if (!gr)
    for (i = 0; i < R; ++i) s1[i] = b[i] = 1;
  for (j0 = 0; j0 < n1; j0 += LA__RPIECE) {
    nt = n1 - j0 < LA__RPIECE ? n1 - j0 : LA__RPIECE;
    if (gr) la__grun_fill(gr, (size_t)nt * LA_W, s1, b);
    la__unit_scale(c->d, row, P + (size_t)j0 * LA_W, nt, s1, b);
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
LA__NOINLINE void la__panel_labels(const la_data *g, const la_real *w, la_real *P,
                             la_real *yq, la_real *t, la_real *hid) {
  int d = g->cfg.d, n1 = g->cfg.n + 1, i, j, l;
  size_t row = (size_t)n1 * LA_W;
  la_real *Y = P + (size_t)d * row;
  if (!g->net) {
    j = 0;
#if LA__PRNG_LANES_IEEE
    /* four tokens at a time share each load of w*; the same operations,
       in the same order, as the loop below */
    for (; j + 4 <= n1; j += 4) {
      const la_real *x = P + (size_t)j * LA_W;
      la__vec wi = la__vloadu(w), a0, a1, a2, a3;
      a0 = la__vmul(wi, la__vloadu(x));
      a1 = la__vmul(wi, la__vloadu(x + LA_W));
      a2 = la__vmul(wi, la__vloadu(x + 2 * LA_W));
      a3 = la__vmul(wi, la__vloadu(x + 3 * LA_W));
      for (i = 1; i < d; ++i) {
        const la_real *xi = x + i * row;
        wi = la__vloadu(w + i * LA_W);
        a0 = la__vfma(a0, wi, la__vloadu(xi));
        a1 = la__vfma(a1, wi, la__vloadu(xi + LA_W));
        a2 = la__vfma(a2, wi, la__vloadu(xi + 2 * LA_W));
        a3 = la__vfma(a3, wi, la__vloadu(xi + 3 * LA_W));
      }
      la__vstoreu(Y + (size_t)j * LA_W, a0);
      la__vstoreu(Y + (size_t)(j + 1) * LA_W, a1);
      la__vstoreu(Y + (size_t)(j + 2) * LA_W, a2);
      la__vstoreu(Y + (size_t)(j + 3) * LA_W, a3);
    }
    for (; j < n1; ++j) {
      const la_real *x = P + (size_t)j * LA_W;
      la__vec a0 = la__vmul(la__vloadu(w), la__vloadu(x));
      for (i = 1; i < d; ++i)
        a0 = la__vfma(a0, la__vloadu(w + i * LA_W), la__vloadu(x + i * row));
      la__vstoreu(Y + (size_t)j * LA_W, a0);
    }
#endif
    for (; j < n1; ++j) {
      const la_real *x = P + (size_t)j * LA_W;
      la_real acc[LA_W];
      for (l = 0; l < LA_W; ++l) acc[l] = w[l] * x[l];
      for (i = 1; i < d; ++i)
        for (l = 0; l < LA_W; ++l)
          acc[l] = LA__FMA(w[i * LA_W + l], x[i * row + l], acc[l]);
      for (l = 0; l < LA_W; ++l) Y[(size_t)j * LA_W + l] = acc[l];
    }
  } else {
    for (j = 0; j < n1; ++j) {
      la_real acc[LA_W];
      la__panel_net(g, P + (size_t)j * LA_W, row, hid, t);
      /* w is set for d >= 1 (la_data_init refuses less), which the
         analyzer does not know:
         NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
      for (l = 0; l < LA_W; ++l) acc[l] = w[l] * t[l];
      for (i = 1; i < d; ++i)
        for (l = 0; l < LA_W; ++l)
          acc[l] = LA__FMA(w[i * LA_W + l], t[i * LA_W + l], acc[l]);
      for (l = 0; l < LA_W; ++l) Y[(size_t)j * LA_W + l] = acc[l];
    }
  }
#if LA__PRNG_LANES_IEEE /* the query's label is the target */
  la__vstoreu(yq, la__vloadu(Y + (size_t)(n1 - 1) * LA_W));
  la__vstoreu(Y + (size_t)(n1 - 1) * LA_W, la__vzero());
#else
  for (l = 0; l < LA_W; ++l) {
    yq[l] = Y[(size_t)(n1 - 1) * LA_W + l];
    Y[(size_t)(n1 - 1) * LA_W + l] = 0;
  }
#endif
}

/* Label noise, every label and y_q; in chunks that keep block alignment. */
static void la__panel_noise(const la_data_config *c, la__draws *dr,
                            la_real *P, la_real *yq, la_real *t) {
  int d = c->d, n1 = c->n + 1, j, l, j0, jn;
  la_real sd = (la_real)c->noise_std;
  la_real *y = P + (size_t)d * n1 * LA_W;
  for (j0 = 0; j0 < n1; j0 += LA_MAX_D) {
    jn = n1 - j0 < LA_MAX_D ? n1 - j0 : LA_MAX_D;
    la__draw(dr, (size_t)jn * LA_W, t, 0);
    for (j = 0; j < jn; ++j)
      for (l = 0; l < LA_W; ++l) {
        la_real e = sd * t[j * LA_W + l];
        if (j0 + j < n1 - 1) y[(size_t)(j0 + j) * LA_W + l] += e;
        else yq[l] += e;
      }
  }
}

/* A panel's draws; `drawn`: its covariates and w* are already in P, where
   la_data_sample drew every panel's in one run (see there). */
static void la__sample_panel(const la_data *g, la__draws *dr, la__grun *gr,
                             la_real *P, la_real *yq) {
  const la_data_config *c = &g->cfg;
  int d = c->d, n1 = c->n + 1, i, j, l;
  size_t row = (size_t)n1 * LA_W;
  la_real w[LA_MAX_D * LA_W], t[LA_MAX_D * LA_W], hid[LA_MAX_D * LA_W];
  /* x then w* in one fill where w* fits in the label row (d <= n + 1),
     in two otherwise: d (n+1) LA_W is a whole number of blocks, so both
     draw the same normals */
  if (d <= n1) { /* the label row past w* is scratch until the labels */
    la__draw(dr, (size_t)d * row + (size_t)d * LA_W, P, row - (size_t)d * LA_W);
#if LA__PRNG_LANES_IEEE /* a few vectors: cheaper than a call */
    for (i = 0; i < d; ++i)
      la__vstoreu(w + i * LA_W, la__vloadu(P + (size_t)d * row + i * LA_W));
#else
    memcpy(w, P + (size_t)d * row, sizeof(la_real) * d * LA_W);
#endif
  } else {
    la__draw(dr, (size_t)d * row, P, 0);
    la__draw(dr, (size_t)d * LA_W, w, 0);
  }
  if (g->winv) {
    memcpy(t, w, sizeof(la_real) * d * LA_W);
    la__panel_matvec(d, g->winv, 0, t, w, LA_W);
  }
  if (c->covariates != LA_X_GAUSSIAN) la__panel_radii(c, gr, P);
  if (g->chol)
    for (j = 0; j < n1; ++j) {
      for (i = 0; i < d; ++i)
        for (l = 0; l < LA_W; ++l)
          t[i * LA_W + l] = P[i * row + (size_t)j * LA_W + l];
      la__panel_matvec(d, g->chol, 1, t, P + (size_t)j * LA_W, row);
    }
  la__panel_labels(g, w, P, yq, t, hid);
  if (c->noise_std > 0) la__panel_noise(c, dr, P, yq, t);
}

/* ------------------------------------------------ panel positions */
/* Panel p of a batch draws from its own stretch of the stream: words
   [(p0 + p) 2^34, (p0 + p + 1) 2^34), p0 the first such boundary at or
   after the generator's position. Its prompts then depend on (seed,
   stream, p0 + p) alone, panels can be drawn in any order or on any
   thread, and the generator moves to the boundary after the batch. No
   panel comes near 2^34 words (the largest, d = 256 and n = 4096, takes
   about 2^25); a stream holds 2^30 - 1 panels (the counter never wraps
   back to the first). */
#define LA__PANEL_WORDS_LOG2 34
#define LA__STREAM_PANELS (((uint64_t)1 << (64 - LA__PANEL_WORDS_LOG2)) - 1)
/* The first block of a panel's Gamma tries, from its first block: half
   its stretch, far past its normals (2^23 blocks at the largest panel)
   and with 2^31 blocks of room, so no block counter's low word carries. */
#define LA__PANEL_GAMMA_BLOCK ((uint64_t)1 << (LA__PANEL_WORDS_LOG2 - 3))

/* The first panel of a batch of np panels drawn from rng, or LA_ERANGE
   when the stream has not room for np more. */
static int la__data_first_panel(const la_rng *rng, int np, uint64_t *p0) {
  uint64_t c = rng->counter, first = c >> LA__PANEL_WORDS_LOG2;
  if (c & (((uint64_t)1 << LA__PANEL_WORDS_LOG2) - 1)) ++first;
  if (first > LA__STREAM_PANELS - (uint64_t)np) return LA_ERANGE;
  *p0 = first;
  return LA_OK;
}

/* Panel `panel` of rng's stream into P (the interleaved Z0 panel) and yq;
   padding lanes are left as drawn. */
static void la__data_panel(const la_data *g, const la_rng *rng, uint64_t panel,
                           la_real *P, la_real *yq) {
  la_rng r = *rng;
  la__draws dr;
  la__grun gr;
  int gam = g->cfg.covariates == LA_X_GAMMA_SPHERE;
  dr.rng = &r;
  dr.base = panel << (LA__PANEL_WORDS_LOG2 - 2); /* 4 words a block */
  dr.vm = 0;
  if (gam) { /* the Gamma tries from the middle of the panel's stretch */
    la__gpar gp;
    la__gpar_init(&gp, g->cfg.gamma_shape, g->cfg.gamma_scale);
    la__grun_init(&gr, &gp, &r, dr.base + LA__PANEL_GAMMA_BLOCK, 0);
  }
  la__sample_panel(g, &dr, gam ? &gr : NULL, P, yq);
}

/* The checks of la_data_sample for a batch of d, n, count. */
static int la__data_check(const la_data *g, int d, int n, int count) {
  if (g->cfg.d <= 0 || g->cfg.d > LA_MAX_D || g->cfg.n <= 0 ||
      g->cfg.n > LA_MAX_N || count <= 0 ||
      (g->net && (g->cfg.net_hidden <= 0 || g->cfg.net_hidden > LA_MAX_D)))
    return LA_EDIM; /* the hidden layer lives in a LA_MAX_D stack buffer */
  if (d != g->cfg.d || n != g->cfg.n) return LA_ESHAPE;
  if ((g->cfg.sigma != LA_SIGMA_IDENTITY && !g->chol) ||
      (g->cfg.target == LA_TARGET_RELU_NET && !g->net))
    return LA_ENULL; /* a generator that was never initialized */
  return LA_OK;
}

/* A batch's panels split among the workers of a la_parallel: any split
   draws the same bits. */
typedef struct la__sjob {
  const la_data *g;
  const la_rng *rng;
  la_batch *b;
  uint64_t p0;
  int np, ntasks;
} la__sjob;

static void la__sample_task(void *arg, int task, int worker) {
  const la__sjob *j = (const la__sjob *)arg;
  size_t pr = (size_t)(j->b->d + 1) * (j->b->n + 1) * LA_W;
  int p = (int)((long long)j->np * task / j->ntasks);
  int p1 = (int)((long long)j->np * (task + 1) / j->ntasks);
  (void)worker;
  for (; p < p1; ++p)
    la__data_panel(j->g, j->rng, j->p0 + (uint64_t)p, j->b->z + p * pr,
                   j->b->y + (size_t)p * LA_W);
}

/* la_data_sample over par's workers (NULL: one). */
static int la__data_sample_on(const la_data *g, la_rng *rng, la_batch *b,
                              const la_parallel *par) {
  int np, pad, e, l, st;
  size_t pr;
  la__sjob j;
  if (!g || !rng || !b || !b->z || !b->y) return LA_ENULL;
  if ((st = la__data_check(g, b->d, b->n, b->count)) != 0) return st;
  np = la_panels(b->count);
  if ((st = la__data_first_panel(rng, np, &j.p0)) != 0) return st;
  pr = (size_t)(b->d + 1) * (b->n + 1) * LA_W;
  j.g = g;
  j.rng = rng;
  j.b = b;
  j.np = np;
  j.ntasks = 1;
  if (par && par->workers > 1 && par->run && np > 1) {
    j.ntasks = np < 4 * par->workers ? np : 4 * par->workers;
    par->run(par->ctx, j.ntasks, la__sample_task, &j);
  } else {
    la__sample_task(&j, 0, 0);
  }
  pad = np * LA_W - b->count; /* padding lanes stay zero */
  for (l = LA_W - pad; l < LA_W; ++l) {
    for (e = 0; e < (b->d + 1) * (b->n + 1); ++e)
      b->z[(np - 1) * pr + (size_t)e * LA_W + l] = 0;
    b->y[(size_t)(np - 1) * LA_W + l] = 0;
  }
  rng->counter = (j.p0 + (uint64_t)np) << LA__PANEL_WORDS_LOG2;
  return LA_OK;
}

LINATTN_DEF int la_data_sample(const la_data *g, la_rng *rng, la_batch *b) {
  return la__data_sample_on(g, rng, b, NULL);
}

/* ================================================================== */
/*                            3. The model                            */
/* ================================================================== */

/* ------------------------------------------------------------ the model */
/* Every parametrization runs as the dense model: theta is expanded into
   full P, Q per layer and head (fixed entries included; a factored Q as
   the product W_K^T W_Q) and the gradient is contracted back to the free
   entries (through the product: once per call, not per prompt). A batch is
   processed one panel at a time through all layers, so a panel's
   activations stay in cache; products are the kernel table's panel
   products on a transposed copy Zt = Z^T (T x D, T = n+1), whose first n
   rows are the keys: every product is then one call on contiguous
   operands. Shared gradients accumulate lane-wise and are folded once per
   call. */

#define LA__LIN(m) ((m)->cfg.activation == LA_ACT_LINEAR)

typedef struct la__mdim {
  int d, n, D, T, L, h, H, act, hvp; /* h: front width, H: heads */
  int k;          /* directions of the Hessian product */
  int pfix;       /* P's last row fixed at e_{d+1} (sparse, pgd) */
  size_t D2, TD;  /* elements of a D x D and a T x D panel */
  size_t nex;     /* expanded parameters */
  size_t lay;     /* elements per layer of stored forward values */
  size_t bl;      /* elements per layer of stored backward values */
  int W;          /* lanes of the worker's panels: LA_W, or LA__WL (wide) */
} la__mdim;

/* Offsets (in reals) of the workspace regions; each a multiple of LA_W.
   The parameters are shared; every worker has a block of its own (offsets
   within it), and with several workers each chunk a partial sum. */
typedef struct la__mlay {
  size_t ex, exv, exw, exvw, plain, fold;                 /* shared */
  size_t g, gv, zt, zdt, st, sdt, gt, bst, tmp, front, y; /* a worker's */
  size_t pz, py, part; /* a drawn panel; the partial sum of one worker */
  size_t half;         /* wide: one lane half of a product's operands */
  size_t wk, wsize;    /* worker 0's block, reals per block */
  size_t parts;        /* the chunks' partial sums (doubles) */
  size_t pstride;      /* doubles per partial sum: loss, status, (1+k) nex */
  int workers, slots;
  size_t total;
} la__mlay;

/* One worker's view of a call. With directions (hvp), exv and gv hold k
   of them, nex LA_W reals apart, and a tangent pass works on one of them
   (la__m_tangent points exv and gv at it). */
typedef struct la__mctx {
  const la_kernels *k;
  la__mdim m;
  la_real *ex, *exv, *g, *gv; /* broadcast parameters, lane-wise gradients */
  la_real *zt, *zdt;          /* (L+1) panels Zt_l and their tangents */
  la_real *st, *sdt;          /* per layer stored forward values, tangents */
  la_real *gt;                /* the backward panels G_l, then 2 tangents */
  la_real *bst;               /* stored backward values (la__m_bst) */
  la_real *tmp, *tmp_end;     /* backward temporaries, and their end */
  la_real *fr;                /* front layer buffers */
  la_real *y;                 /* targets of the panel */
  const int *stage;           /* per direction its first stage, or NULL */
  int tri;                    /* stop each tangent's backward at its stage */
  int W;      /* lanes of its panels (g and gv have LA_W whatever W is) */
  la_real *half;              /* wide: la__mm_g's operand halves */
} la__mctx;

static size_t la__m_front_params(int d, int h) {
  return h > 0 ? (size_t)2 * h * d + h + d : 0;
}

static void la__m_dims(const la_model *m, int hvp, la__mdim *o) {
  const la_model_config *c = &m->cfg;
  o->d = c->d; o->n = c->n; o->D = c->d + 1; o->T = c->n + 1;
  o->L = c->layers; o->h = c->front_hidden; o->hvp = hvp;
  o->H = c->heads; o->act = c->activation;
  o->pfix = c->param != LA_PARAM_DENSE;
  o->D2 = (size_t)o->D * o->D;
  o->TD = (size_t)o->T * o->D;
  o->nex = 2 * o->D2 * o->L * o->H + la__m_front_params(o->d, o->h);
  /* linear: S, C and P_h S per head; otherwise per head Vt, the scores
     (n x T, with as much again in reserve) and Ut */
  o->lay = LA__LIN(m) ? (2 + (size_t)o->H) * o->D2
                      : (size_t)o->H * (o->TD + 2 * (size_t)o->n * o->T +
                                        (size_t)o->n * o->D);
  /* what a layer's backward step keeps for the tangents (la__m_bst): the
     larger of a hidden and the last layer's. Linear: dC, E and T1 per
     head; last: g/n, then per head u, S u, K p, K u. Otherwise per head
     dU, dA, dV and the softmax's centred product; last: g/n, then per
     head ds, dw, the centred product and dv. */
  {
    size_t n = (size_t)o->n, D = (size_t)o->D, H = (size_t)o->H, hid, last;
    hid = LA__LIN(m) ? (2 + H) * o->D2 : H * (n * D + 2 * n * o->T + o->TD);
    last = 1 + H * (LA__LIN(m) ? 2 * D + 2 * n : 3 * n + D);
    o->bl = hid > last ? hid : last;
  }
  o->k = 1;
  /* wide panels: linear attention without a front layer, on the built-in
     kernels (every pass: loss, gradient, Hessian products, diagonal) */
  o->W = LA_W;
#if LA__WIDE
  if (LA__LIN(m) && o->h == 0 && c->kernels == &la__kernels_simd)
    o->W = LA__WL;
#endif
}

/* Sizes arrive as doubles so that none wraps before it is checked: on a
   32-bit host the largest models need more than size_t counts. A region
   that does not fit leaves *at at SIZE_MAX, which la__m_layout reports. */
static size_t la__m_take(size_t *at, double reals) {
  size_t here = *at;
  const size_t qn = LA__MALIGN / sizeof(la_real); /* LA_W unless wide */
  double q = (double)qn, r = ceil(reals / q) * q;
  if (r > (double)(size_t)-1 / 4 - (double)here) *at = (size_t)-1;
  else *at = here + (size_t)r;
  return here;
}

/* Temporaries of one backward layer, in panel elements (the heads of a
   layer use them in turn). */
static size_t la__m_tmp_elems(const la_model *m, const la__mdim *d) {
  if (LA__LIN(m)) return 16 * d->D2 + 4 * (size_t)d->n + 4 * d->D + 2;
  return 6 * ((size_t)d->n * d->T + d->TD + (size_t)d->n * d->D);
}

/* Chunks of a batch: at most LA__CHUNKS of at least LA__CHUNK_PANELS
   panels, and at most 2^22 doubles of partial sums: a function of the
   model and the batch's panel count, never of the number of workers. */
#define LA__CHUNKS 64
#define LA__CHUNK_PANELS 8
static int la__m_chunk_cap(const la__mdim *d) {
  double c = 4194304.0 / (double)d->nex;
  return c >= LA__CHUNKS ? LA__CHUNKS : c < 1 ? 1 : (int)c;
}
static int la__m_chunks(const la__mdim *d, int np) {
  int c = (np + LA__CHUNK_PANELS - 1) / LA__CHUNK_PANELS, cap = la__m_chunk_cap(d);
  return c < 1 ? 1 : c > cap ? cap : c;
}
/* Panels [first, end) of chunk c of nch over np panels. */
static int la__m_chunk_start(int np, int nch, int c) {
  return (int)((long long)np * c / nch);
}

static int la__m_workers(const la_parallel *par) {
  return par && par->workers > 1 ? par->workers : 1;
}

static size_t la__m_layout(const la_model *m, const la__mdim *d, int workers,
                           la__mlay *o) {
  /* every count in double (see la__m_take) */
  double W = d->W, h = d->h, T = d->T, TD = (double)d->TD, L = d->L;
  double nex = (double)d->nex, lay = (double)d->lay;
  double fr = h > 0 ? 4 * T * d->d + 6 * T * h : 0;
  double per_double = sizeof(double) > sizeof(la_real) ? 2 : 1;
  size_t at = 0, w = 0;
  double k = d->k, sums = 2 + (1 + k) * nex; /* doubles of a partial sum */
  o->workers = workers;
  o->slots = workers > 1 ? la__m_chunk_cap(d) : 0;
  o->pstride = 2 + (1 + (size_t)d->k) * d->nex;
  /* without tangents (hvp 0: loss, gradient) no tangent regions, two
     backward panels in turn and one backward store (la__m_G, la__m_bst) */
  double hv = d->hvp ? 1 : 0;
  o->g = la__m_take(&w, nex * LA_W);
  o->gv = la__m_take(&w, hv * k * nex * LA_W);
  o->zt = la__m_take(&w, (L + 1) * TD * W);
  o->zdt = la__m_take(&w, hv * (L + 1) * TD * W);
  o->st = la__m_take(&w, L * lay * W);
  o->sdt = la__m_take(&w, hv * L * lay * W);
  o->gt = la__m_take(&w, (d->hvp ? L + 3 : 2) * TD * W);
  o->bst = la__m_take(&w, (d->hvp ? L : 1) * (double)d->bl * W);
  o->tmp = la__m_take(&w, (double)la__m_tmp_elems(m, d) * W);
  o->front = la__m_take(&w, fr * W);
  o->y = la__m_take(&w, W);
  o->pz = la__m_take(&w, TD * W);
  o->py = la__m_take(&w, W);
  o->part = la__m_take(&w, sums * per_double);
  o->half = la__m_take(&w, d->W != LA_W ? 2.0 * (double)d->D2 * LA_W : 0);
  o->wsize = w;
  o->ex = la__m_take(&at, nex * LA_W);
  o->exv = la__m_take(&at, k * nex * LA_W);
  o->exw = la__m_take(&at, d->W != LA_W ? nex * W : 0);
  o->exvw = la__m_take(&at, d->W != LA_W ? k * nex * W : 0);
  o->plain = la__m_take(&at, (1 + k) * nex);
  o->fold = la__m_take(&at, (1 + k) * nex * per_double); /* la_reals per double */
  o->wk = la__m_take(&at, (double)w * workers);
  o->parts = la__m_take(&at, (double)o->slots * sums * per_double);
  o->total = at;
  if (w > ((size_t)-1 / 4) / sizeof(la_real) ||
      at > ((size_t)-1 / 4) / sizeof(la_real))
    return 0; /* does not fit */
  return at * sizeof(la_real) + LA__MALIGN;
}

/* ----------------------------------------------------------- parameters */
/* The entries of theta of one head (see THE PACKING OF THETA): pe of P's
   free part, then qe of Q's: its q x q free block, or the factors W_K and
   W_Q, r x q each. */
typedef struct la__mpack {
  int pe, q, r, qe;
} la__mpack;

static la__mpack la__m_pack(const la_model *m) {
  la__mpack k;
  int d = m->cfg.d, D = d + 1;
  k.q = m->cfg.param == LA_PARAM_DENSE ? D : d;
  k.pe = m->cfg.param == LA_PARAM_DENSE    ? D * D
         : m->cfg.param == LA_PARAM_SPARSE ? d * d
                                           : 0;
  k.r = m->cfg.qk_rank;
  k.qe = k.r ? 2 * k.r * k.q : k.q * k.q;
  return k;
}

static int la__m_layer_params(const la_model *m) {
  la__mpack k = la__m_pack(m);
  return m->cfg.heads * (k.pe + k.qe);
}

/* Parameter matrices of one head: P (unless pgd), then Q or W_K, W_Q. */
static int la__m_head_blocks(const la_model *m) {
  return (m->cfg.param != LA_PARAM_PGD) + (m->cfg.qk_rank ? 2 : 1);
}

/* The stage of theta's entry i: the layer it belongs to, or -1 for the
   front layer's (first in the forward pass, last in theta). */
static int la__m_stage(const la_model *m, int i) {
  int lp = la__m_layer_params(m);
  return i < m->cfg.layers * lp ? i / lp : -1;
}

static int la__m_nblocks(const la_model *m) {
  return m->cfg.layers * m->cfg.heads * la__m_head_blocks(m) +
         (m->cfg.front_hidden > 0 ? 4 : 0);
}

/* The q x q top-left block of Q (row stride D) = WK^T WQ, WK and WQ r x q;
   with WKd, WQd its tangent WKd^T WQ + WK^T WQd. */
static void la__m_qk(int r, int q, int D, const la_real *WK,
                     const la_real *WQ, const la_real *WKd,
                     const la_real *WQd, la_real *Q) {
  int i, j, a;
  for (i = 0; i < q; ++i)
    for (j = 0; j < q; ++j) {
      double s = 0;
      for (a = 0; a < r; ++a) {
        size_t ai = (size_t)a * q + i, aj = (size_t)a * q + j;
        if (WKd) s += (double)WKd[ai] * WQ[aj] + (double)WK[ai] * WQd[aj];
        else s += (double)WK[ai] * WQ[aj];
      }
      Q[(size_t)i * D + j] = (la_real)s;
    }
}

/* theta t -> dense P, Q of every layer and head, then the front layer; with
   a direction v, the tangent along v at t instead (fixed entries get 0). */
static void la__m_expand(const la_model *m, const la_real *t,
                         const la_real *v, la_real *ex) {
  la__mpack k = la__m_pack(m);
  int d = m->cfg.d, D = d + 1, l, i, j, nb = m->cfg.layers * m->cfg.heads;
  size_t D2 = (size_t)D * D;
  const la_real *s = v ? v : t; /* the entries copied */
  for (l = 0; l < nb; ++l) {    /* (layer, head) pairs in order */
    la_real *P = ex + 2 * D2 * l, *Q = P + D2;
    const la_real *qs = s + k.pe, *qt = t + k.pe;
    if (m->cfg.param == LA_PARAM_DENSE) {
      memcpy(P, s, sizeof(la_real) * (k.r ? D2 : 2 * D2));
    } else {
      memset(P, 0, sizeof(la_real) * 2 * D2);
      if (m->cfg.param == LA_PARAM_SPARSE)
        for (i = 0; i < d; ++i)
          for (j = 0; j < d; ++j) P[i * D + j] = s[i * d + j];
      if (!v) P[D2 - 1] = 1;
      if (!k.r)
        for (i = 0; i < d; ++i)
          for (j = 0; j < d; ++j) Q[i * D + j] = qs[i * d + j];
    }
    if (k.r)
      la__m_qk(k.r, k.q, D, qt, qt + k.r * k.q, v ? qs : NULL,
               v ? qs + k.r * k.q : NULL, Q);
    s += k.pe + k.qe;
    t += k.pe + k.qe;
  }
  memcpy(ex + 2 * D2 * nb, s,
         sizeof(la_real) * la__m_front_params(d, m->cfg.front_hidden));
}

/* W_K's and W_Q's entries of the gradient from Q's, dQ (row stride D):
   dW_K = W_Q dQ^T, dW_Q = W_K dQ, added to oK, oQ (r x q each). */
static void la__m_qk_back(int r, int q, int D, const la_real *WK,
                          const la_real *WQ, const double *dQ, double *oK,
                          double *oQ) {
  int i, j, a;
  for (a = 0; a < r; ++a)
    for (i = 0; i < q; ++i) {
      double sk = 0, sq = 0;
      for (j = 0; j < q; ++j) {
        sk += (double)WQ[(size_t)a * q + j] * dQ[(size_t)i * D + j];
        sq += (double)WK[(size_t)a * q + j] * dQ[(size_t)j * D + i];
      }
      oK[(size_t)a * q + i] += sk;
      oQ[(size_t)a * q + i] += sq;
    }
}

/* Dense gradient sums gf -> gradient of theta t, scaled into out. With gv
   (the sums of the gradient's tangent along v) the Hessian-vector product
   instead: the tangent of the contraction, which for factors adds the
   terms of v's factors against gf (the product's second derivative). */
static void la__m_contract(const la_model *m, const la_real *t,
                           const la_real *v, const double *gf,
                           const double *gv, double scale, la_real *out) {
  la__mpack k = la__m_pack(m);
  int d = m->cfg.d, D = d + 1, l, i, j, nb = m->cfg.layers * m->cfg.heads;
  size_t D2 = (size_t)D * D, e, nf, rq = (size_t)k.r * k.q;
  const double *G = gv ? gv : gf;
  double acc[2 * (LA_MAX_D + 1)] = {0}; /* zeroed per row below; whole here for the analyzer */
  if (!gf) return; /* never: the folds live in the workspace */
  for (l = 0; l < nb; ++l) {
    const double *P = G + 2 * D2 * l, *Q = P + D2;
    if (m->cfg.param == LA_PARAM_DENSE)
      for (e = 0; e < (k.r ? D2 : 2 * D2); ++e)
        *out++ = (la_real)(scale * P[e]);
    if (m->cfg.param == LA_PARAM_SPARSE)
      for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) *out++ = (la_real)(scale * P[i * D + j]);
    if (m->cfg.param != LA_PARAM_DENSE && !k.r)
      for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) *out++ = (la_real)(scale * Q[i * D + j]);
    if (k.r) { /* one factor row at a time: acc holds its two rows */
      const la_real *WK = t + k.pe, *WQ = WK + rq;
      int a;
      for (a = 0; a < k.r; ++a) {
        for (i = 0; i < k.q; ++i) acc[i] = acc[k.q + i] = 0;
        la__m_qk_back(1, k.q, D, WK + (size_t)a * k.q, WQ + (size_t)a * k.q,
                      Q, acc, acc + k.q);
        if (gv)
          la__m_qk_back(1, k.q, D, v + k.pe + (size_t)a * k.q,
                        v + k.pe + rq + (size_t)a * k.q, gf + 2 * D2 * l + D2,
                        acc, acc + k.q);
        for (i = 0; i < k.q; ++i)
          out[(size_t)a * k.q + i] = (la_real)(scale * acc[i]);
        for (i = 0; i < k.q; ++i)
          out[rq + (size_t)a * k.q + i] = (la_real)(scale * acc[k.q + i]);
      }
      out += 2 * rq;
    }
    t += k.pe + k.qe;
    if (v) v += k.pe + k.qe;
  }
  nf = la__m_front_params(d, m->cfg.front_hidden);
  for (e = 0; e < nf; ++e) *out++ = (la_real)(scale * G[2 * D2 * nb + e]);
}
/* ------------------------------------------------- panel element ops */
/* Plain loops over whole panels (n elements of LA_W reals): compilers turn
   them into vector code, and they are exact, so one version serves every
   backend. LA__ROWS runs body for the n * LA_W reals, the LA_W lanes of
   an element in an inner loop of constant length: compilers vectorize it
   without a remainder even where the function is inlined (a loop over
   n * LA_W they may then leave scalar). w indexes the real. */
#define LA__ROWS(n, body)                                                      \
  do {                                                                         \
    size_t e_;                                                                 \
    int w;                                                                     \
    for (e_ = 0; e_ < (n)*LA_W; e_ += LA_W)                                    \
      for (w = (int)e_; w < (int)e_ + LA_W; ++w) (void)(body);                \
  } while (0)

/* The helpers that take W work on panels of W lanes (LA_W, or LA__WL on
   the wide panels); the others on LA_W. Their lane loops go LA_W lanes at
   a time (LA__LANES), a count the compiler knows. */
#define LA__LANES(W, h) for ((h) = 0; (h) < (W); (h) += LA_W)
static void la__e_copy(int W, size_t n, const la_real *LA__RESTRICT a,
                       la_real *LA__RESTRICT c) {
  memcpy(c, a, sizeof(la_real) * n * W);
}
static void la__e_zero(int W, size_t n, la_real *c) {
  memset(c, 0, sizeof(la_real) * n * W);
}
/* E = X + X^T of a D x D panel. */
LA__INLINE void la__e_sym_w(const int W, int D, const la_real *LA__RESTRICT X,
                            la_real *LA__RESTRICT E) {
  int i, j, w, h;
  for (i = 0; i < D; ++i)
    for (j = 0; j < D; ++j)
      LA__LANES(W, h) {
        const la_real *a = X + (size_t)(i * D + j) * W + h;
        const la_real *b = X + (size_t)(j * D + i) * W + h;
        la_real *e = E + (size_t)(i * D + j) * W + h;
        for (w = 0; w < LA_W; ++w) e[w] = a[w] + b[w];
      }
}
static void la__e_sym(int W, int D, const la_real *LA__RESTRICT X,
                      la_real *LA__RESTRICT E) {
  if (W == LA_W) la__e_sym_w(LA_W, D, X, E);
  else la__e_sym_w(2 * LA_W, D, X, E);
}
static void la__e_relu(size_t n, la_real *x) {
  LA__ROWS(n, x[w] = x[w] > 0 ? x[w] : 0);
}
/* x <- x where the activation r is positive, else 0 (ReLU's derivative). */
static void la__e_mask(size_t n, const la_real *LA__RESTRICT r,
                       la_real *LA__RESTRICT x) {
  LA__ROWS(n, x[w] = r[w] > 0 ? x[w] : 0);
}
/* Rows of an r x c panel += the bias vector panel b (c elements). */
static void la__e_addrow(int r, int c, const la_real *LA__RESTRICT b,
                         la_real *LA__RESTRICT x) {
  int i;
  size_t e;
  for (i = 0; i < r; ++i)
    for (e = 0; e < (size_t)c * LA_W; ++e) x[(size_t)i * c * LA_W + e] += b[e];
}
/* acc (c elements) += column sums of an r x c panel. */
static void la__e_colsum(int r, int c, const la_real *LA__RESTRICT x,
                         la_real *LA__RESTRICT acc) {
  int i;
  size_t e;
  for (i = 0; i < r; ++i)
    for (e = 0; e < (size_t)c * LA_W; ++e) acc[e] += x[(size_t)i * c * LA_W + e];
}
/* Columns [0, c) of an r x ldc panel <-> a contiguous r x c panel. */
static void la__e_getcols(int W, int r, int c, int ldc,
                          const la_real *LA__RESTRICT s,
                          la_real *LA__RESTRICT t) {
  int i;
  for (i = 0; i < r; ++i)
    memcpy(t + (size_t)i * c * W, s + (size_t)i * ldc * W,
           sizeof(la_real) * c * W);
}
static void la__e_setcols(int r, int c, int ldc, const la_real *LA__RESTRICT s,
                          la_real *LA__RESTRICT t) {
  int i;
  for (i = 0; i < r; ++i)
    memcpy(t + (size_t)i * ldc * LA_W, s + (size_t)i * c * LA_W,
           sizeof(la_real) * c * LA_W);
}

/* One row of a panel against a row of column values (n elements each):
   c += s .* x; x <- s .* (x - c), keeping x - c in dc when dc is not null;
   y <- sd .* dc + s .* y, c += y; y <- y - s .* c. */
static void la__e_racc(size_t n, const la_real *LA__RESTRICT s,
                       const la_real *LA__RESTRICT x, la_real *LA__RESTRICT c) {
  LA__ROWS(n, c[w] += s[w] * x[w]);
}
static void la__e_rcent(size_t n, const la_real *LA__RESTRICT s,
                        const la_real *LA__RESTRICT c, la_real *LA__RESTRICT x,
                        la_real *LA__RESTRICT dc) {
  if (dc) LA__ROWS(n, (dc[w] = x[w] - c[w], x[w] = s[w] * dc[w]));
  else LA__ROWS(n, x[w] = s[w] * (x[w] - c[w]));
}
static void la__e_rjac2(size_t n, const la_real *LA__RESTRICT s,
                        const la_real *LA__RESTRICT sd,
                        const la_real *LA__RESTRICT dc, la_real *LA__RESTRICT y,
                        la_real *LA__RESTRICT c) {
  LA__ROWS(n, (y[w] = sd[w] * dc[w] + s[w] * y[w], c[w] += y[w]));
}
static void la__e_rnmul(size_t n, const la_real *LA__RESTRICT s,
                        const la_real *LA__RESTRICT c, la_real *LA__RESTRICT y) {
  LA__ROWS(n, y[w] -= s[w] * c[w]);
}
/* Softmax over the n rows of each column of an n x T panel, in place. The
   column's largest score is subtracted first, so the largest term is
   e^0 = 1 and the sum lies in [1, n]: nothing overflows whatever the
   scores, and the quotient needs one reciprocal per column. A NaN or an
   infinite score makes its column NaN (inf - inf), which the loss reports.
   Row by row: each pass is a loop over T contiguous elements with no
   dependency from one row to the next (a column at a time chained every
   maximum and sum through one register); the sums are still added in row
   order. cm: T elements of work (the maxima, then the sums). */
static void la__e_softmax(const la_kernels *k, int n, int T, la_real *R,
                          la_real *LA__RESTRICT cm) {
  size_t TW = (size_t)T * LA_W;
  int i;
  la__e_copy(LA_W, (size_t)T, R, cm);
  for (i = 1; i < n; ++i) {
    const la_real *LA__RESTRICT r = R + i * TW;
    LA__ROWS((size_t)T, cm[w] = r[w] > cm[w] ? r[w] : cm[w]);
  }
  for (i = 0; i < n; ++i) {
    la_real *LA__RESTRICT r = R + i * TW;
    LA__ROWS((size_t)T, r[w] -= cm[w]);
  }
  (k->vexpn ? k->vexpn : k->vexp)((int)((size_t)n * TW), R, R);
  la__e_copy(LA_W, (size_t)T, R, cm);
  for (i = 1; i < n; ++i) {
    const la_real *LA__RESTRICT r = R + i * TW;
    LA__ROWS((size_t)T, cm[w] += r[w]);
  }
  LA__ROWS((size_t)T, cm[w] = 1 / cm[w]);
  for (i = 0; i < n; ++i) {
    la_real *LA__RESTRICT r = R + i * TW;
    LA__ROWS((size_t)T, r[w] *= cm[w]);
  }
}
/* X <- S .* (X - 1 c^T), c = column sums of S .* X, for n x T panels: the
   softmax's Jacobian diag(s) - s s^T applied to every column. It is
   symmetric, so this is both the tangent of the softmax (X = the scores'
   tangent) and its backward step (X = the gradient of its output). Dc,
   if not null, keeps X - 1 c^T for la__e_smx_jac2. w: T elements. */
static void la__e_smx_jac(int n, int T, const la_real *S, la_real *X,
                          la_real *Dc, la_real *w) {
  size_t TW = (size_t)T * LA_W;
  int i;
  memset(w, 0, sizeof(la_real) * TW);
  for (i = 0; i < n; ++i) la__e_racc((size_t)T, S + i * TW, X + i * TW, w);
  for (i = 0; i < n; ++i)
    la__e_rcent((size_t)T, S + i * TW, w, X + i * TW, Dc ? Dc + i * TW : NULL);
}
/* The tangent of the backward step above along the direction whose
   softmax tangent is Sd (columns summing to 0): with Xd the tangent of the
   output's gradient, Xd <- Y - S .* (1 colsum(Y)^T), Y = Sd .* Dc + S .* Xd
   (the term Sd .* Dc - S sd^T Dc is the Jacobian's own tangent). */
static void la__e_smx_jac2(int n, int T, const la_real *S, const la_real *Sd,
                           const la_real *Dc, la_real *Xd, la_real *w) {
  size_t TW = (size_t)T * LA_W;
  int i;
  memset(w, 0, sizeof(la_real) * TW);
  for (i = 0; i < n; ++i)
    la__e_rjac2((size_t)T, S + i * TW, Sd + i * TW, Dc + i * TW, Xd + i * TW, w);
  for (i = 0; i < n; ++i) la__e_rnmul((size_t)T, S + i * TW, w, Xd + i * TW);
}

/* The product the model calls: the kernel table's panel product,
   C = alpha op(A) op(B) (+ C, or + Y when Y is not null). */
static void la__mm(const la__mctx *c, unsigned f, int m, int n, int k,
                   double alpha, const la_real *A, const la_real *B,
                   const la_real *Y, la_real *C) {
  if (Y) {
    memcpy(C, Y, sizeof(la_real) * (size_t)m * n * c->W);
    f |= LA_ACCUMULATE;
  }
#if LA__WIDE
  if (c->W != LA_W) {
    la__wpgemm(f, m, n, k, (la_real)alpha, A, B, C);
    return;
  }
#endif
#if LA__SIMD != LINATTN_SCALAR
  if (c->k == &la__kernels_simd) { /* a direct call: no pointer to chase */
    la__pgemm_simd(f, m, n, k, (la_real)alpha, A, B, C);
    return;
  }
#endif
  c->k->pgemm(f, m, n, k, (la_real)alpha, A, B, C);
}
/* S = Zt_K^T Zt_K, the keys' D x D Gram matrix (first n rows of Zt):
   symmetric, so on x86 half of it is computed (la__psyrk_simd); the same
   numbers as the product. */
static void la__mm_gram(const la__mctx *c, int D, int n, const la_real *Z,
                        la_real *S) {
#if LA__WIDE
  if (c->W != LA_W) {
    la__wpsyrk(D, n, Z, S);
    return;
  }
#endif
#if LA__X86
  if (c->k == &la__kernels_simd) {
    la__psyrk_simd(D, n, Z, S);
    return;
  }
#endif
  la__mm(c, LA_TRANS_A, D, D, n, 1, Z, Z, NULL, S);
}
/* C += op1(A1) op1(B1) (+ op2(A2) op2(B2) unless A2 is NULL) into a
   gradient panel C (LA_W lanes whatever c->W). On wide panels the 256-bit
   product adds each lane half of the operands (read in place by the
   strided block, la__gpgemm_*, or copied to LA_W-lane panels): the lower
   half (the first panel) its terms, then the upper half its terms, the
   chains of FMAs from C that two panels in turn run. f1, f2: each term's
   transposition flags. */
static void la__mm_g(const la__mctx *c, int m, int n, int k, unsigned f1,
                     const la_real *A1, const la_real *B1, unsigned f2,
                     const la_real *A2, const la_real *B2, la_real *C) {
#if LA__WIDE
  if (c->W != LA_W) {
    size_t na = (size_t)m * k, nb = (size_t)k * n, e;
    la_real *a = c->half, *b = a + na * LA_W;
    int h, t;
    LINATTN_ASSERT(na <= c->m.D2 && nb <= c->m.D2);
    for (h = 0; h < LA__WL; h += LA_W)
      for (t = 0; t < (A2 ? 2 : 1); ++t) {
        const la_real *A = t ? A2 : A1, *B = t ? B2 : B1;
        unsigned f = t ? f2 : f1;
        if (m > 1 && n > 1 && (f == 0 || f == LA_TRANS_A)) { /* in place */
          if (f) la__gpgemm_tn(m, n, k, LA__ADD, 1, A + h, B + h, C);
          else la__gpgemm_nn(m, n, k, LA__ADD, 1, A + h, B + h, C);
          continue;
        }
        for (e = 0; e < na; ++e)
          la__vstore(a + e * LA_W, la__vload(A + e * LA__WL + h));
        for (e = 0; e < nb; ++e)
          la__vstore(b + e * LA_W, la__vload(B + e * LA__WL + h));
        la__pgemm_simd(f | LA_ACCUMULATE, m, n, k, 1, a, b, C);
      }
    return;
  }
#endif
  la__mm(c, f1 | LA_ACCUMULATE, m, n, k, 1, A1, B1, NULL, C);
  if (A2) la__mm(c, f2 | LA_ACCUMULATE, m, n, k, 1, A2, B2, NULL, C);
}
#define LA__MM(c, f, M, N, K, al, A, B, C)                                    \
  la__mm((c), (f), (M), (N), (K), (al), (A), (B), NULL, (C))
#define LA__MMY(c, f, M, N, K, al, A, B, Y, C)                                \
  la__mm((c), (f), (M), (N), (K), (al), (A), (B), (Y), (C))
#define LA__TA LA_TRANS_A
#define LA__TB LA_TRANS_B
#define LA__AC LA_ACCUMULATE


/* P of head h of layer l in a broadcast parameter region (ex, exv, g or
   gv); Q follows it. */
static la_real *la__m_P(const la__mctx *c, la_real *base, int l, int h) {
  return base + 2 * c->m.D2 * c->W * ((size_t)l * c->m.H + h);
}
/* The same in a gradient region (g, gv: LA_W lanes on any panels). */
static la_real *la__m_gP(const la__mctx *c, la_real *base, int l, int h) {
  return base + 2 * c->m.D2 * LA_W * ((size_t)l * c->m.H + h);
}
/* What layer l's backward step keeps for the tangents that follow it: a
   region per layer when there are tangents (hvp), else one that every
   layer reuses in turn. */
static la_real *la__m_bst(const la__mctx *c, int l) {
  return c->bst + (c->m.hvp ? (size_t)l * c->m.bl * c->W : 0);
}
/* G_l = dloss / dZt_l, l = 0 .. L: kept for the tangents (hvp), else two
   panels in turn; the tangents' two panels follow. */
static la_real *la__m_G(const la__mctx *c, int l) {
  return c->gt + (size_t)(c->m.hvp ? l : l & 1) * c->m.TD * c->W;
}
static la_real *la__m_Gd(const la__mctx *c) {
  return c->gt + (size_t)(c->m.L + 1) * c->m.TD * c->W;
}

/* ------------------------------------------------------ linear layer */
/* Stored per layer: S = K K^T, C' = I + sum_h P_h S Q_h / n, and P_h S per
   head (and tangents: Sdot, Cdot / n, (P_h S)dot). S is shared by the
   heads: a head costs its D^3 products, not another pass over the keys.
   The identity folded into C' makes the residual update one product,
   Zt_{l+1} = Zt C'^T, and likewise dZt = G C'. */

static void la__e_adddiag(int W, int D, la_real *X) {
  int i, w, h;
  for (i = 0; i < D; ++i)
    LA__LANES(W, h) {
      la_real *x = X + (size_t)(i * D + i) * W + h;
      for (w = 0; w < LA_W; ++w) x[w] += 1;
    }
}

static void la__lin_fwd(const la__mctx *c, int l) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * c->W, TD = m->TD * c->W;
  int D = m->D, n = m->n, T = m->T, h;
  la_real *Z = c->zt + TD * l, *Zn = Z + TD;
  la_real *S = c->st + m->lay * c->W * l, *C = S + D2;
  double in = 1.0 / n;
  la__mm_gram(c, D, n, Z, S);
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2;
    la_real *PS = C + D2 * (1 + h);
    LA__MM(c, 0, D, D, D, 1, P, S, PS);
    LA__MM(c, h ? LA__AC : 0, D, D, D, in, PS, Q, C);
  }
  la__e_adddiag(c->W, D, C);
  LA__MM(c, LA__TB, T, D, D, 1, Z, C, Zn);
}

/* The tangent of la__lin_fwd along c's direction; zd0: Zd_l = 0, pd0:
   this layer's parameters do not move (never both). */
static void la__lin_fwd_t(const la__mctx *c, int l, int zd0, int pd0) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * c->W, TD = m->TD * c->W;
  int D = m->D, n = m->n, T = m->T, h;
  const la_real *Z = c->zt + TD * l;
  const la_real *S = c->st + m->lay * c->W * l, *C = S + D2;
  la_real *Zd = c->zdt + TD * l, *Zdn = Zd + TD;
  la_real *Sd = c->sdt + m->lay * c->W * l, *Cd = Sd + D2;
  la_real *E1 = c->tmp;
  double in = 1.0 / n;
  if (zd0) {
    la__e_zero(c->W, m->D2, Sd);
  } else {
    LA__MM(c, LA__TA, D, D, n, 1, Zd, Z, E1);
    la__e_sym(c->W, D, E1, Sd);
  }
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2;
    const la_real *Pd = la__m_P(c, c->exv, l, h), *Qd = Pd + D2;
    const la_real *PS = C + D2 * (1 + h);
    la_real *PSd = Cd + D2 * (1 + h);
    if (!pd0) LA__MM(c, 0, D, D, D, 1, Pd, S, PSd);
    if (!zd0) LA__MM(c, pd0 ? 0 : LA__AC, D, D, D, 1, P, Sd, PSd);
    LA__MM(c, h ? LA__AC : 0, D, D, D, in, PSd, Q, Cd);
    if (!pd0) LA__MM(c, LA__AC, D, D, D, in, PS, Qd, Cd);
  }
  if (zd0) {
    LA__MM(c, LA__TB, T, D, D, 1, Z, Cd, Zdn);
  } else {
    LA__MM(c, LA__TB, T, D, D, 1, Zd, C, Zdn);
    LA__MM(c, LA__TB | LA__AC, T, D, D, 1, Z, Cd, Zdn);
  }
}

/* G = dloss/dZt_{l+1} -> G2 = dloss/dZt_l (if dz), gradients of P_h, Q_h
   accumulated; dC, E and each head's T1 kept (la__m_bst) for
   la__lin_bwd_t. dC is shared by the heads, dS sums theirs. dQ_h = (P_h
   S)^T dC reads the forward's P_h S transposed rather than forming S
   P_h^T: S is symmetric bit for bit (S_ij and S_ji are the same products
   added in the same order), so the two are the same numbers, one D^3
   product sooner (and the tangent's (P_h S)dot likewise: Sdot = E + E^T
   is symmetric too). */
static void la__lin_bwd(const la__mctx *c, int l, int dz, const la_real *G,
                        la_real *G2) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * c->W, TD = m->TD * c->W;
  int D = m->D, n = m->n, T = m->T, h;
  const la_real *Z = c->zt + TD * l;
  const la_real *S = c->st + m->lay * c->W * l, *C = S + D2;
  la_real *dC = la__m_bst(c, l), *E = dC + D2, *T1 = E + D2, *dS = c->tmp;
  double in = 1.0 / n;
  LINATTN_ASSERT(dS + D2 <= c->tmp_end);
  LA__MM(c, LA__TA, D, D, T, in, G, Z, dC);
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2;
    const la_real *PS = C + D2 * (1 + h);
    la_real *gP = la__m_gP(c, c->g, l, h), *gQ = gP + m->D2 * LA_W, *T1h = T1 + D2 * h;
    LA__MM(c, LA__TB, D, D, D, 1, dC, Q, T1h);
    la__mm_g(c, D, D, D, 0, T1h, S, 0, NULL, NULL, gP);
    la__mm_g(c, D, D, D, LA__TA, PS, dC, 0, NULL, NULL, gQ);
    if (dz) LA__MM(c, LA__TA | (h ? LA__AC : 0), D, D, D, 1, P, T1h, dS);
  }
  if (dz) {
    la__e_sym(c->W, D, dS, E);
    LA__MM(c, 0, T, D, D, 1, G, C, G2);
    LA__MM(c, LA__AC, n, D, D, 1, Z, E, G2);
  }
}

/* The tangent of la__lin_bwd: Gd (the tangent of G) -> Gd2 (if dz), the
   tangents of the gradients of P_h, Q_h accumulated into gv. */
static void la__lin_bwd_t(const la__mctx *c, int l, int zd0, int pd0,
                          int dz, const la_real *G, const la_real *Gd,
                          la_real *Gd2) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * c->W, TD = m->TD * c->W;
  int D = m->D, n = m->n, T = m->T, h;
  const la_real *Z = c->zt + TD * l, *Zd = c->zdt + TD * l;
  const la_real *S = c->st + m->lay * c->W * l, *C = S + D2;
  const la_real *Sd = c->sdt + m->lay * c->W * l, *Cd = Sd + D2;
  const la_real *dC = la__m_bst(c, l), *E = dC + D2, *T1 = E + D2;
  la_real *dCd = c->tmp, *T1d = dCd + D2, *dSd = T1d + D2, *Ed = dSd + D2;
  double in = 1.0 / n;
  LINATTN_ASSERT(Ed + D2 <= c->tmp_end); /* what la__m_tmp_elems reserved */
  LA__MM(c, LA__TA, D, D, T, in, Gd, Z, dCd);
  if (!zd0) LA__MM(c, LA__TA | LA__AC, D, D, T, in, G, Zd, dCd);
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2;
    const la_real *PS = C + D2 * (1 + h), *PSd = Cd + D2 * (1 + h);
    const la_real *Pd = la__m_P(c, c->exv, l, h), *Qd = Pd + D2;
    const la_real *T1h = T1 + D2 * h;
    la_real *gvP = la__m_gP(c, c->gv, l, h), *gvQ = gvP + m->D2 * LA_W;
    LA__MM(c, LA__TB, D, D, D, 1, dCd, Q, T1d);
    if (!pd0) LA__MM(c, LA__TB | LA__AC, D, D, D, 1, dC, Qd, T1d);
    la__mm_g(c, D, D, D, 0, T1d, S, 0, zd0 ? NULL : T1h, Sd, gvP);
    la__mm_g(c, D, D, D, LA__TA, PSd, dC, LA__TA, PS, dCd, gvQ);
    if (dz) {
      if (!pd0) LA__MM(c, LA__TA | (h ? LA__AC : 0), D, D, D, 1, Pd, T1h, dSd);
      LA__MM(c, LA__TA | (h || !pd0 ? LA__AC : 0), D, D, D, 1, P, T1d, dSd);
    }
  }
  if (dz) {
    la__e_sym(c->W, D, dSd, Ed);
    LA__MM(c, 0, T, D, D, 1, Gd, C, Gd2);
    LA__MM(c, LA__AC, T, D, D, 1, G, Cd, Gd2);
    LA__MM(c, LA__AC, n, D, D, 1, Z, Ed, Gd2);
    if (!zd0) LA__MM(c, LA__AC, n, D, D, 1, Zd, E, Gd2);
  }
}

/* ------------------------------------------------ last linear layer */
/* Only [Z_L]_{d+1,n+1} is needed: with p = row d+1 of P, q the query
   column, r1 = p^T S and c = r1 Q (the last row of C = P S Q),
       z = q_{d+1} + (1/n) c q.
   Its gradient has rank-one and rank-two structure (u = Q q, gs = g/n):
       dP_{d+1,:} += gs (S u)^T,  dQ += gs r1^T q^T,
       dq = g e_{d+1} + gs c^T,   dK^T[j,:] = gs ((K^T p)_j u + (K^T u)_j p)^T
   which costs O(D n) per prompt instead of O(D^2 n). Stored: S, r1, c. */

/* y (n elements) += g x, g one panel element (lane-wise scalars): lanes
   [h, h + yw) of g and x (W lanes) into y (yw lanes: W with h = 0, or
   LA_W, a gradient panel, one lane half at a time on wide panels: the
   caller adds the lower half's terms, then the upper half's, as two
   panels in turn would add them; LA__HALVES). */
static void la__e_gaxpy(int W, int yw, int h, size_t n,
                        const la_real *LA__RESTRICT g,
                        const la_real *LA__RESTRICT x, la_real *LA__RESTRICT y) {
  size_t e;
  int w, k;
  for (e = 0; e < n; ++e)
    LA__LANES(yw, k) {
      la_real *yk = y + e * yw + k;
      const la_real *gk = g + h + k, *xk = x + e * W + h + k;
      for (w = 0; w < LA_W; ++w) yk[w] += gk[w] * xk[w];
    }
}
/* C (m x n) += g a b^T, lanes as la__e_gaxpy's. */
static void la__e_gouter(int W, int yw, int h, int m, int n,
                         const la_real *LA__RESTRICT g,
                         const la_real *LA__RESTRICT a,
                         const la_real *LA__RESTRICT b, la_real *LA__RESTRICT C) {
  int i, j, w, k;
  for (i = 0; i < m; ++i)
    for (j = 0; j < n; ++j)
      LA__LANES(yw, k) {
        la_real *o = C + ((size_t)i * n + j) * yw + k;
        const la_real *gk = g + h + k, *ak = a + i * W + h + k,
                      *bk = b + j * W + h + k;
        for (w = 0; w < LA_W; ++w) o[w] += gk[w] * ak[w] * bk[w];
      }
}
/* For each LA_W-lane half h of c's panels (one pass on LA_W lanes). */
#define LA__HALVES(c, h) LA__LANES((c)->W, h)

/* C (m x n) = g (a u^T + b p^T), or += with acc; p NULL: p = 0 (the
   same numbers: b p^T adds exact zeros). */
LA__INLINE void la__e_grank2_w(const int W, int m, int n,
                               const la_real *LA__RESTRICT g, const la_real *a,
                               const la_real *u, const la_real *b,
                               const la_real *p, la_real *LA__RESTRICT C,
                               int acc) {
  int i, j, w, h;
  if (!p) {
    for (i = 0; i < m; ++i)
      for (j = 0; j < n; ++j)
        LA__LANES(W, h) {
          la_real *o = C + ((size_t)i * n + j) * W + h;
          const la_real *gh = g + h, *ah = a + i * W + h, *uh = u + j * W + h;
          for (w = 0; w < LA_W; ++w)
            o[w] = (acc ? o[w] : 0) + gh[w] * (ah[w] * uh[w]);
        }
    return;
  }
  for (i = 0; i < m; ++i)
    for (j = 0; j < n; ++j)
      LA__LANES(W, h) {
        la_real *o = C + ((size_t)i * n + j) * W + h;
        const la_real *gh = g + h, *ah = a + i * W + h, *uh = u + j * W + h;
        const la_real *bh = b + i * W + h, *ph = p + j * W + h;
        for (w = 0; w < LA_W; ++w)
          o[w] = (acc ? o[w] : 0) + gh[w] * (ah[w] * uh[w] + bh[w] * ph[w]);
      }
}
/* W a constant in each copy: LA_W, or the wide panels' 2 LA_W. */
static void la__e_grank2(int W, int m, int n, const la_real *LA__RESTRICT g,
                         const la_real *a, const la_real *u, const la_real *b,
                         const la_real *p, la_real *LA__RESTRICT C, int acc) {
  if (W == LA_W) la__e_grank2_w(LA_W, m, n, g, a, u, b, p, C, acc);
  else la__e_grank2_w(2 * LA_W, m, n, g, a, u, b, p, C, acc);
}

static void la__last_fwd(const la__mctx *c, int l) {
  const la__mdim *m = &c->m;
  size_t W = c->W, D2 = m->D2 * W, TD = m->TD * W;
  int D = m->D, n = m->n, h;
  size_t at = ((size_t)n * D + D - 1) * W, DW = (size_t)D * W;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  la_real *S = c->st + m->lay * W * l, *r1 = S + D2, *cr = r1 + m->H * DW;
  la_real *out = c->zt + TD * (l + 1) + at;
  double in = 1.0 / n;
  la__mm_gram(c, D, n, Z, S);
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2,
                  *p = P + (D - 1) * DW;
    LA__MM(c, 0, 1, D, D, 1, p, S, r1 + h * DW);
    LA__MM(c, h ? LA__AC : 0, 1, D, D, 1, r1 + h * DW, Q, cr);
  }
  la__e_copy(c->W, 1, q + (D - 1) * W, out);
  LA__MM(c, LA__TB | LA__AC, 1, 1, D, in, cr, q, out);
}

/* pfix (sparse, pgd): P's last row p is e_{d+1}, fixed, so p Sd is Sd's
   last row and pd = 0. */
static void la__last_fwd_t(const la__mctx *c, int l, int zd0, int pd0) {
  const la__mdim *m = &c->m;
  size_t W = c->W, D2 = m->D2 * W, TD = m->TD * W;
  int D = m->D, n = m->n, h;
  size_t at = ((size_t)n * D + D - 1) * W, DW = (size_t)D * W;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  const la_real *S = c->st + m->lay * W * l, *r1 = S + D2,
                *cr = r1 + m->H * DW;
  const la_real *Zd = c->zdt + TD * l, *qd = Zd + (size_t)n * DW;
  la_real *Sd = c->sdt + m->lay * W * l, *r1d = Sd + D2, *cd = r1d + m->H * DW;
  la_real *outd = c->zdt + TD * (l + 1) + at;
  double in = 1.0 / n;
  if (zd0) {
    la__e_zero(c->W, m->D2, Sd);
    la__e_zero(c->W, 1, outd);
  } else {
    LA__MM(c, LA__TA, D, D, n, 1, Zd, Z, c->tmp);
    la__e_sym(c->W, D, c->tmp, Sd);
    la__e_copy(c->W, 1, qd + (D - 1) * W, outd);
    LA__MM(c, LA__TB | LA__AC, 1, 1, D, in, cr, qd, outd);
  }
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *p = P + (D - 1) * DW;
    const la_real *Pd = la__m_P(c, c->exv, l, h), *Qd = Pd + D2,
                  *pd = Pd + (D - 1) * DW, *Q = P + D2;
    if (m->pfix && zd0) la__e_zero(c->W, D, r1d + h * DW);
    else if (m->pfix) la__e_copy(c->W, D, Sd + (D - 1) * DW, r1d + h * DW);
    if (!m->pfix && !pd0) LA__MM(c, 0, 1, D, D, 1, pd, S, r1d + h * DW);
    if (!m->pfix && !zd0)
      LA__MM(c, pd0 ? 0 : LA__AC, 1, D, D, 1, p, Sd, r1d + h * DW);
    LA__MM(c, h ? LA__AC : 0, 1, D, D, 1, r1d + h * DW, Q, cd);
    if (!pd0) LA__MM(c, LA__AC, 1, D, D, 1, r1 + h * DW, Qd, cd);
  }
  LA__MM(c, LA__TB | LA__AC, 1, 1, D, in, cd, q, outd);
}

/* Kept for the tangents (la__m_bst): g/n, then per head u, S u, K p, K u
   (the last two only when dz). */
static void la__last_bwd(const la__mctx *c, int l, int dz, const la_real *G,
                         la_real *G2) {
  const la__mdim *m = &c->m;
  size_t W = c->W, D2 = m->D2 * W, TD = m->TD * W;
  int D = m->D, n = m->n, w, h, hw;
  size_t at = ((size_t)n * D + D - 1) * W, DW = (size_t)D * W, nW = n * W;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  const la_real *S = c->st + m->lay * W * l, *r1 = S + D2,
                *cr = r1 + m->H * DW;
  la_real *gs = la__m_bst(c, l);
  const la_real *g = G + at;
  for (w = 0; w < c->W; ++w) gs[w] = g[w] / (la_real)n;
  if (dz) {
    la__e_zero(c->W, D, G2 + (size_t)n * DW);
    la__e_gaxpy(c->W, c->W, 0, D, gs, cr, G2 + (size_t)n * DW);
    for (w = 0; w < c->W; ++w) G2[at + w] += g[w];
  }
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2,
                  *p = P + (D - 1) * DW, *r1h = r1 + h * DW;
    la_real *gP = la__m_gP(c, c->g, l, h), *gQ = gP + m->D2 * LA_W;
    la_real *u = gs + W + h * (2 * DW + 2 * nW), *su = u + DW, *a = su + DW,
            *b = a + nW;
    LA__MM(c, 0, D, 1, D, 1, Q, q, u);
    LA__MM(c, 0, D, 1, D, 1, S, u, su);
    LA__HALVES(c, hw)
      la__e_gaxpy(c->W, LA_W, hw, D, gs, su, gP + (size_t)(D - 1) * D * LA_W);
    LA__HALVES(c, hw) la__e_gouter(c->W, LA_W, hw, D, D, gs, r1h, q, gQ);
    if (dz) {
      LA__MM(c, 0, n, 1, D, 1, Z, p, a);
      LA__MM(c, 0, n, 1, D, 1, Z, u, b);
      la__e_grank2(c->W, n, D, gs, a, u, b, p, G2, h != 0);
    }
  }
}

static void la__last_bwd_t(const la__mctx *c, int l, int zd0, int pd0,
                           int dz, const la_real *Gd, la_real *Gd2) {
  const la__mdim *m = &c->m;
  size_t W = c->W, D2 = m->D2 * W, TD = m->TD * W;
  int D = m->D, n = m->n, w, h, hw;
  size_t at = ((size_t)n * D + D - 1) * W, DW = (size_t)D * W, nW = n * W;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  const la_real *Zd = c->zdt + TD * l, *qd = Zd + (size_t)n * DW;
  const la_real *S = c->st + m->lay * W * l, *r1 = S + D2,
                *cr = r1 + m->H * DW;
  const la_real *Sd = c->sdt + m->lay * W * l, *r1d = Sd + D2,
                *cd = r1d + m->H * DW;
  const la_real *gs = la__m_bst(c, l);
  la_real *gds = c->tmp, *ud = gds + W, *sud = ud + DW, *ad = sud + DW,
          *bd = ad + nW;
  const la_real *gd = Gd + at;
  LINATTN_ASSERT(bd + nW <= c->tmp_end);
  for (w = 0; w < c->W; ++w) gds[w] = gd[w] / (la_real)n;
  if (dz) {
    la__e_zero(c->W, D, Gd2 + (size_t)n * DW);
    la__e_gaxpy(c->W, c->W, 0, D, gds, cr, Gd2 + (size_t)n * DW);
    la__e_gaxpy(c->W, c->W, 0, D, gs, cd, Gd2 + (size_t)n * DW);
    for (w = 0; w < c->W; ++w) Gd2[at + w] += gd[w];
  }
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2,
                  *p = P + (D - 1) * DW, *r1h = r1 + h * DW;
    const la_real *Pd = la__m_P(c, c->exv, l, h), *Qd = Pd + D2,
                  *pd = Pd + (D - 1) * DW, *r1dh = r1d + h * DW;
    const la_real *u = gs + W + h * (2 * DW + 2 * nW), *su = u + DW,
                  *a = su + DW, *b = a + nW;
    la_real *gvP = la__m_gP(c, c->gv, l, h), *gvQ = gvP + m->D2 * LA_W;
    if (!pd0) LA__MM(c, 0, D, 1, D, 1, Qd, q, ud);
    if (!zd0) LA__MM(c, pd0 ? 0 : LA__AC, D, 1, D, 1, Q, qd, ud);
    LA__MM(c, 0, D, 1, D, 1, S, ud, sud);
    if (!zd0) LA__MM(c, LA__AC, D, 1, D, 1, Sd, u, sud);
    LA__HALVES(c, hw) {
      la_real *gvp = gvP + (size_t)(D - 1) * D * LA_W;
      la__e_gaxpy(c->W, LA_W, hw, D, gds, su, gvp);
      la__e_gaxpy(c->W, LA_W, hw, D, gs, sud, gvp);
    }
    LA__HALVES(c, hw) {
      la__e_gouter(c->W, LA_W, hw, D, D, gds, r1h, q, gvQ);
      la__e_gouter(c->W, LA_W, hw, D, D, gs, r1dh, q, gvQ);
      if (!zd0) la__e_gouter(c->W, LA_W, hw, D, D, gs, r1h, qd, gvQ);
    }
    if (dz) {
      int p0 = m->pfix || pd0; /* pd = 0 */
      if (m->pfix) { /* ad = Zd's last column */
        if (zd0) la__e_zero(c->W, n, ad);
        else la__e_getcols(c->W, n, 1, D, Zd + (D - 1) * W, ad);
      } else {
        if (!pd0) LA__MM(c, 0, n, 1, D, 1, Z, pd, ad);
        if (!zd0) LA__MM(c, pd0 ? 0 : LA__AC, n, 1, D, 1, Zd, p, ad);
      }
      LA__MM(c, 0, n, 1, D, 1, Z, ud, bd);
      if (!zd0) LA__MM(c, LA__AC, n, 1, D, 1, Zd, u, bd);
      la__e_grank2(c->W, n, D, gds, a, u, b, p, Gd2, h != 0);
      la__e_grank2(c->W, n, D, gs, ad, u, bd, p, Gd2, 1);
      la__e_grank2(c->W, n, D, gs, a, ud, b, p0 ? NULL : pd, Gd2, 1);
    }
  }
}

/* ------------------------------------------ second-order tangents */
/* Along a unit direction (one entry of theta) the model is affine in the
   entry within its own layer: Z_{l+1} = Z_l C_l^T with C_l linear in each
   entry of P_l, Q_l (and of W_K, W_Q: Q is linear in each), and the front
   layer's ReLU network piecewise linear. Its second derivative z'' thus
   starts at the next layer, where the parameters do not move (pd0), and
   the diagonal of the Hessian is, with r the residual,
       H_jj = (2 / B) sum_b (z'_b^2 + r_b z''_b),
   forward tangents alone, no backward step (la__m_diag2). With S'' =
   E + E^T, E = Kdd^T K + Kd^T Kd (keys: the first n rows):
       Zdd_{l+1} = Zdd C^T + 2 Zd Cd^T + Z Cdd^T,  Cdd = sum_h P_h S'' Q_h / n
   and in the last layer, c = sum_h p_h^T S Q_h (stored, cd its tangent),
       z'' = qdd_{d+1} + (cdd . q + 2 cd . qd + c . qdd) / n.
   zdd0: Zdd_l = 0 (the layer after the direction's own). */
static void la__sdd(const la__mctx *c, int l, int zdd0, const la_real *Zdd,
                    la_real *E, la_real *Sdd) {
  const la__mdim *m = &c->m;
  size_t TD = m->TD * c->W;
  const la_real *Z = c->zt + TD * l, *Zd = c->zdt + TD * l;
  la__mm_gram(c, m->D, m->n, Zd, E);
  if (!zdd0) LA__MM(c, LA__TA | LA__AC, m->D, m->D, m->n, 1, Zdd, Z, E);
  la__e_sym(c->W, m->D, E, Sdd);
}

static void la__lin_fwd_tt(const la__mctx *c, int l, int zdd0,
                           const la_real *Zdd, la_real *Zddn) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * c->W, TD = m->TD * c->W;
  int D = m->D, n = m->n, T = m->T, h;
  const la_real *Z = c->zt + TD * l, *Zd = c->zdt + TD * l;
  const la_real *S = c->st + m->lay * c->W * l, *C = S + D2;
  const la_real *Cd = c->sdt + m->lay * c->W * l + D2;
  la_real *E = c->tmp, *Sdd = E + D2, *PSdd = Sdd + D2, *Cdd = PSdd + D2;
  double in = 1.0 / n;
  LINATTN_ASSERT(Cdd + D2 <= c->tmp_end);
  la__sdd(c, l, zdd0, Zdd, E, Sdd);
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2;
    LA__MM(c, 0, D, D, D, 1, P, Sdd, PSdd);
    LA__MM(c, h ? LA__AC : 0, D, D, D, in, PSdd, Q, Cdd);
  }
  LA__MM(c, LA__TB, T, D, D, 2, Zd, Cd, Zddn);
  if (!zdd0) LA__MM(c, LA__TB | LA__AC, T, D, D, 1, Zdd, C, Zddn);
  LA__MM(c, LA__TB | LA__AC, T, D, D, 1, Z, Cdd, Zddn);
}

/* z'' of the last layer into out (one panel element). */
static void la__last_fwd_tt(const la__mctx *c, int l, int zdd0,
                            const la_real *Zdd, la_real *out) {
  const la__mdim *m = &c->m;
  size_t W = c->W, D2 = m->D2 * W, TD = m->TD * W, DW = (size_t)m->D * W;
  int D = m->D, n = m->n, h;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  const la_real *Zd = c->zdt + TD * l, *qd = Zd + (size_t)n * DW;
  const la_real *S = c->st + m->lay * W * l, *cr = S + D2 + m->H * DW;
  const la_real *cd = c->sdt + m->lay * W * l + D2 + m->H * DW;
  la_real *E = c->tmp, *Sdd = E + D2, *r1dd = Sdd + D2, *cdd = r1dd + DW;
  double in = 1.0 / n;
  LINATTN_ASSERT(cdd + DW <= c->tmp_end);
  la__sdd(c, l, zdd0, Zdd, E, Sdd);
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2,
                  *p = P + (D - 1) * DW;
    if (m->pfix) la__e_copy(c->W, D, Sdd + (D - 1) * DW, r1dd);
    else LA__MM(c, 0, 1, D, D, 1, p, Sdd, r1dd);
    LA__MM(c, h ? LA__AC : 0, 1, D, D, 1, r1dd, Q, cdd);
  }
  if (zdd0) la__e_zero(c->W, 1, out);
  else la__e_copy(c->W, 1, Zdd + ((size_t)n * D + D - 1) * W, out);
  LA__MM(c, LA__TB | LA__AC, 1, 1, D, in, cdd, q, out);
  LA__MM(c, LA__TB | LA__AC, 1, 1, D, 2 * in, cd, qd, out);
  if (!zdd0) LA__MM(c, LA__TB | LA__AC, 1, 1, D, in, cr, Zdd + (size_t)n * DW, out);
}

/* --------------------------------------------------- nonlinear layers */
/* ReLU and softmax attention: Z_{l+1} = Z + (1/n) sum_h U_h act(K^T V_h),
   U_h = P_h K, V_h = Q_h Z. Stored per layer and head: Vt = Zt Q^T
   (T x D), R = act(Kt Vt^T) (n x T: each column one token's weights over
   the n keys), Ut = Kt P^T (n x D); the tangent store holds Vdt, Rd (the
   tangent of act's output) and Udt in the same places. Both activations
   have symmetric Jacobians (ReLU's diagonal mask, softmax's
   diag(s) - s s^T per column), so one function applies each forward and
   backward. */

static size_t la__nl_head(const la__mdim *m) { /* stored reals per head */
  return m->lay / (size_t)m->H * LA_W;
}

/* The activation of scores R (n x T) in place (c->tmp: softmax's T
   elements of work, free in the forward pass). */
static void la__act(const la__mctx *c, int n, int T, la_real *R) {
  if (c->m.act == LA_ACT_SOFTMAX) la__e_softmax(c->k, n, T, R, c->tmp);
  else la__e_relu((size_t)n * T, R);
}
/* X <- J X, J the Jacobian at output R; Dc as for la__e_smx_jac. */
static void la__act_jac(const la__mctx *c, int n, int T, const la_real *R,
                        la_real *X, la_real *Dc, la_real *w) {
  if (c->m.act == LA_ACT_SOFTMAX) la__e_smx_jac(n, T, R, X, Dc, w);
  else la__e_mask((size_t)n * T, R, X);
}
/* The tangent of the backward step: Xd (the tangent of the gradient of
   act's output) <- J Xd + Jdot X, Jdot = 0 for ReLU. */
static void la__act_jac2(const la__mctx *c, int n, int T, const la_real *R,
                         const la_real *Rd, const la_real *Dc, la_real *Xd,
                         la_real *w) {
  if (c->m.act == LA_ACT_SOFTMAX) la__e_smx_jac2(n, T, R, Rd, Dc, Xd, w);
  else la__e_mask((size_t)n * T, R, Xd);
}

static void la__nl_fwd(const la__mctx *c, int l) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * c->W, TD = m->TD * c->W, nT = (size_t)m->n * m->T;
  int D = m->D, n = m->n, T = m->T, h;
  la_real *Z = c->zt + TD * l, *Zn = Z + TD;
  double in = 1.0 / n;
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2;
    la_real *Vt = c->st + m->lay * c->W * l + la__nl_head(m) * h,
            *R = Vt + TD, *Ut = R + nT * c->W;
    LA__MM(c, LA__TB, T, D, D, 1, Z, Q, Vt);
    LA__MM(c, LA__TB, n, T, D, 1, Z, Vt, R);
    la__act(c, n, T, R);
    LA__MM(c, LA__TB, n, D, D, 1, Z, P, Ut);
    if (h) LA__MM(c, LA__TA | LA__AC, T, D, n, in, R, Ut, Zn);
    else LA__MMY(c, LA__TA, T, D, n, in, R, Ut, Z, Zn);
  }
}

static void la__nl_fwd_t(const la__mctx *c, int l, int zd0, int pd0) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * c->W, TD = m->TD * c->W, nT = (size_t)m->n * m->T;
  int D = m->D, n = m->n, T = m->T, h;
  const la_real *Z = c->zt + TD * l;
  la_real *Zd = c->zdt + TD * l, *Zdn = Zd + TD;
  double in = 1.0 / n;
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2;
    const la_real *Vt = c->st + m->lay * c->W * l + la__nl_head(m) * h,
                  *R = Vt + TD, *Ut = R + nT * c->W;
    const la_real *Pd = la__m_P(c, c->exv, l, h), *Qd = Pd + D2;
    la_real *Vdt = c->sdt + m->lay * c->W * l + la__nl_head(m) * h,
            *Rd = Vdt + TD, *Udt = Rd + nT * c->W;
    if (!pd0) LA__MM(c, LA__TB, T, D, D, 1, Z, Qd, Vdt);
    if (!zd0) LA__MM(c, LA__TB | (pd0 ? 0 : LA__AC), T, D, D, 1, Zd, Q, Vdt);
    LA__MM(c, LA__TB, n, T, D, 1, Z, Vdt, Rd);
    if (!zd0) LA__MM(c, LA__TB | LA__AC, n, T, D, 1, Zd, Vt, Rd);
    la__act_jac(c, n, T, R, Rd, NULL, c->tmp);
    if (!pd0) LA__MM(c, LA__TB, n, D, D, 1, Z, Pd, Udt);
    if (!zd0) LA__MM(c, LA__TB | (pd0 ? 0 : LA__AC), n, D, D, 1, Zd, P, Udt);
    if (h) LA__MM(c, LA__TA | LA__AC, T, D, n, in, Rd, Ut, Zdn);
    else LA__MMY(c, LA__TA, T, D, n, in, Rd, Ut, zd0 ? NULL : Zd, Zdn);
    LA__MM(c, LA__TA | LA__AC, T, D, n, in, R, Udt, Zdn);
  }
}

/* Kept per head for the tangents (la__m_bst): dU, dA, dV, and the
   softmax's centred product Dc. */
static void la__nl_bwd(const la__mctx *c, int l, int dz, const la_real *G,
                       la_real *G2) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * c->W, TD = m->TD * c->W, nT = (size_t)m->n * m->T,
         nD = (size_t)m->n * m->D;
  int D = m->D, n = m->n, T = m->T, h;
  const la_real *Z = c->zt + TD * l;
  la_real *w = c->tmp;
  double in = 1.0 / n;
  LINATTN_ASSERT(w + (size_t)T * c->W <= c->tmp_end);
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2;
    la_real *gP = la__m_gP(c, c->g, l, h), *gQ = gP + m->D2 * LA_W;
    const la_real *Vt = c->st + m->lay * c->W * l + la__nl_head(m) * h,
                  *R = Vt + TD, *Ut = R + nT * c->W;
    la_real *dUt = la__m_bst(c, l) + (nD + 2 * nT + m->TD) * c->W * h,
            *dA = dUt + nD * c->W, *dVt = dA + nT * c->W, *Dc = dVt + TD;
    LA__MM(c, 0, n, D, T, in, R, G, dUt);
    LA__MM(c, LA__TB, n, T, D, in, Ut, G, dA);
    la__act_jac(c, n, T, R, dA, m->hvp ? Dc : NULL, w);
    LA__MM(c, LA__TA | LA__AC, D, D, n, 1, dUt, Z, gP);
    LA__MM(c, LA__TA, T, D, n, 1, dA, Z, dVt);
    LA__MM(c, LA__TA | LA__AC, D, D, T, 1, dVt, Z, gQ);
    if (dz) {
      if (!h) la__e_copy(c->W, m->TD, G, G2);
      LA__MM(c, LA__AC, n, D, D, 1, dUt, P, G2);
      LA__MM(c, LA__AC, n, D, T, 1, dA, Vt, G2);
      LA__MM(c, LA__AC, T, D, D, 1, dVt, Q, G2);
    }
  }
}

static void la__nl_bwd_t(const la__mctx *c, int l, int zd0, int pd0, int dz,
                         const la_real *G, const la_real *Gd, la_real *Gd2) {
  const la__mdim *m = &c->m;
  size_t D2 = m->D2 * c->W, TD = m->TD * c->W, nT = (size_t)m->n * m->T,
         nD = (size_t)m->n * m->D;
  int D = m->D, n = m->n, T = m->T, h;
  const la_real *Z = c->zt + TD * l, *Zd = c->zdt + TD * l;
  la_real *dUdt = c->tmp, *dAd = dUdt + nD * c->W, *dVdt = dAd + nT * c->W;
  la_real *w = dVdt + TD;
  double in = 1.0 / n;
  LINATTN_ASSERT(w + (size_t)T * c->W <= c->tmp_end);
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2;
    const la_real *Vt = c->st + m->lay * c->W * l + la__nl_head(m) * h,
                  *R = Vt + TD, *Ut = R + nT * c->W;
    const la_real *dUt = la__m_bst(c, l) + (nD + 2 * nT + m->TD) * c->W * h,
                  *dA = dUt + nD * c->W, *dVt = dA + nT * c->W, *Dc = dVt + TD;
    const la_real *Pd = la__m_P(c, c->exv, l, h), *Qd = Pd + D2;
    la_real *gvP = la__m_gP(c, c->gv, l, h), *gvQ = gvP + m->D2 * LA_W;
    const la_real *Vdt = c->sdt + m->lay * c->W * l + la__nl_head(m) * h,
                  *Rd = Vdt + TD, *Udt = Rd + nT * c->W;
    LA__MM(c, 0, n, D, T, in, Rd, G, dUdt);
    LA__MM(c, LA__AC, n, D, T, in, R, Gd, dUdt);
    LA__MM(c, LA__TB, n, T, D, in, Udt, G, dAd);
    LA__MM(c, LA__TB | LA__AC, n, T, D, in, Ut, Gd, dAd);
    la__act_jac2(c, n, T, R, Rd, Dc, dAd, w);
    LA__MM(c, LA__TA | LA__AC, D, D, n, 1, dUdt, Z, gvP);
    if (!zd0) LA__MM(c, LA__TA | LA__AC, D, D, n, 1, dUt, Zd, gvP);
    LA__MM(c, LA__TA, T, D, n, 1, dAd, Z, dVdt);
    if (!zd0) LA__MM(c, LA__TA | LA__AC, T, D, n, 1, dA, Zd, dVdt);
    LA__MM(c, LA__TA | LA__AC, D, D, T, 1, dVdt, Z, gvQ);
    if (!zd0) LA__MM(c, LA__TA | LA__AC, D, D, T, 1, dVt, Zd, gvQ);
    if (dz) {
      if (!h) la__e_copy(c->W, m->TD, Gd, Gd2);
      LA__MM(c, LA__AC, n, D, D, 1, dUdt, P, Gd2);
      if (!pd0) LA__MM(c, LA__AC, n, D, D, 1, dUt, Pd, Gd2);
      LA__MM(c, LA__AC, n, D, T, 1, dAd, Vt, Gd2);
      LA__MM(c, LA__AC, n, D, T, 1, dA, Vdt, Gd2);
      LA__MM(c, LA__AC, T, D, D, 1, dVdt, Q, Gd2);
      if (!pd0) LA__MM(c, LA__AC, T, D, D, 1, dVt, Qd, Gd2);
    }
  }
}

/* ------------------------------------------------- last nonlinear layer */
/* Only [Z_L]_{d+1,n+1} is needed, so only the query's column of each
   head's scores: with q the query token, v = Q q, s = act(K^T v) (n
   weights), w = K^T p (p = row d+1 of P),
       z = q_{d+1} + (1/n) sum_h w_h . s_h,
   and backward (gs = g/n): ds = gs w, dw = gs s, da = J ds,
       dp = K dw,  dv = K da,  dQ += dv q^T,  dq = g e_{d+1} + sum_h Q^T dv,
       dK^T[i,:] = sum_h dw_i p^T + da_i v^T.
   O(D n) per head instead of O(D n^2). Stored per head: v, s, w. */

/* y (n elements) = g x, g one panel element (lane-wise scalars). */
static void la__e_gscale(size_t n, const la_real *LA__RESTRICT g,
                         const la_real *LA__RESTRICT x, la_real *LA__RESTRICT y) {
  size_t e;
  int w;
  for (e = 0; e < n; ++e)
    for (w = 0; w < LA_W; ++w) y[e * LA_W + w] = g[w] * x[e * LA_W + w];
}

static void la__nlast_fwd(const la__mctx *c, int l) {
  const la__mdim *m = &c->m;
  size_t W = c->W, D2 = m->D2 * W, TD = m->TD * W, DW = (size_t)m->D * W;
  int D = m->D, n = m->n, h;
  size_t at = ((size_t)n * D + D - 1) * W, nW = (size_t)n * W;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  la_real *out = c->zt + TD * (l + 1) + at;
  double in = 1.0 / n;
  la__e_copy(c->W, 1, q + (D - 1) * W, out);
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2,
                  *p = P + (D - 1) * DW;
    la_real *v = c->st + m->lay * W * l + la__nl_head(m) * h, *s = v + DW,
            *wk = s + nW;
    LA__MM(c, 0, D, 1, D, 1, Q, q, v);
    LA__MM(c, 0, n, 1, D, 1, Z, v, s);
    la__act(c, n, 1, s);
    LA__MM(c, 0, n, 1, D, 1, Z, p, wk);
    LA__MM(c, LA__TA | LA__AC, 1, 1, n, in, wk, s, out);
  }
}

static void la__nlast_fwd_t(const la__mctx *c, int l, int zd0, int pd0) {
  const la__mdim *m = &c->m;
  size_t W = c->W, D2 = m->D2 * W, TD = m->TD * W, DW = (size_t)m->D * W;
  int D = m->D, n = m->n, h;
  size_t at = ((size_t)n * D + D - 1) * W, nW = (size_t)n * W;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  const la_real *Zd = c->zdt + TD * l, *qd = Zd + (size_t)n * DW;
  la_real *outd = c->zdt + TD * (l + 1) + at;
  double in = 1.0 / n;
  if (zd0) la__e_zero(c->W, 1, outd);
  else la__e_copy(c->W, 1, qd + (D - 1) * W, outd);
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2,
                  *p = P + (D - 1) * DW;
    const la_real *v = c->st + m->lay * W * l + la__nl_head(m) * h,
                  *s = v + DW, *wk = s + nW;
    const la_real *Pd = la__m_P(c, c->exv, l, h), *Qd = Pd + D2,
                  *pd = Pd + (D - 1) * DW;
    la_real *vd = c->sdt + m->lay * W * l + la__nl_head(m) * h,
            *sd = vd + DW, *wd = sd + nW;
    if (!pd0) LA__MM(c, 0, D, 1, D, 1, Qd, q, vd);
    if (!zd0) LA__MM(c, pd0 ? 0 : LA__AC, D, 1, D, 1, Q, qd, vd);
    LA__MM(c, 0, n, 1, D, 1, Z, vd, sd);
    if (!zd0) LA__MM(c, LA__AC, n, 1, D, 1, Zd, v, sd);
    la__act_jac(c, n, 1, s, sd, NULL, c->tmp);
    if (!pd0) LA__MM(c, 0, n, 1, D, 1, Z, pd, wd);
    if (!zd0) LA__MM(c, pd0 ? 0 : LA__AC, n, 1, D, 1, Zd, p, wd);
    LA__MM(c, LA__TA | LA__AC, 1, 1, n, in, wd, s, outd);
    LA__MM(c, LA__TA | LA__AC, 1, 1, n, in, wk, sd, outd);
  }
}

/* Kept for the tangents (la__m_bst): g/n, then per head ds (da once the
   Jacobian is applied), dw, the softmax's centred product Dc and dv. */
static void la__nlast_bwd(const la__mctx *c, int l, int dz, const la_real *G,
                          la_real *G2) {
  const la__mdim *m = &c->m;
  size_t W = c->W, D2 = m->D2 * W, TD = m->TD * W, DW = (size_t)m->D * W;
  int D = m->D, n = m->n, h, i;
  size_t at = ((size_t)n * D + D - 1) * W, nW = (size_t)n * W;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  la_real *gs = la__m_bst(c, l), *w = c->tmp;
  const la_real *g = G + at;
  LINATTN_ASSERT(w + c->W <= c->tmp_end);
  for (i = 0; i < c->W; ++i) gs[i] = g[i] / (la_real)n;
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2,
                  *p = P + (D - 1) * DW;
    la_real *gP = la__m_gP(c, c->g, l, h), *gQ = gP + m->D2 * LA_W;
    const la_real *v = c->st + m->lay * W * l + la__nl_head(m) * h,
                  *s = v + DW, *wk = s + nW;
    la_real *ds = gs + W + h * (3 * nW + DW), *dw = ds + nW, *Dc = dw + nW,
            *dv = Dc + nW;
    unsigned acc = h ? LA__AC : 0;
    la__e_gscale((size_t)n, gs, wk, ds);
    la__e_gscale((size_t)n, gs, s, dw);
    la__act_jac(c, n, 1, s, ds, m->hvp ? Dc : NULL, w); /* ds -> da */
    LA__MM(c, LA__TA | LA__AC, D, 1, n, 1, Z, dw, gP + (size_t)(D - 1) * D * LA_W);
    LA__MM(c, LA__TA, D, 1, n, 1, Z, ds, dv);
    LA__MM(c, LA__AC, D, D, 1, 1, dv, q, gQ);
    if (dz) {
      LA__MM(c, LA__TA | acc, D, 1, D, 1, Q, dv, G2 + (size_t)n * DW);
      LA__MM(c, acc, n, D, 1, 1, dw, p, G2);
      LA__MM(c, LA__AC, n, D, 1, 1, ds, v, G2);
    }
  }
  if (dz)
    for (i = 0; i < c->W; ++i) G2[at + i] += g[i];
}

static void la__nlast_bwd_t(const la__mctx *c, int l, int zd0, int pd0,
                            int dz, const la_real *Gd, la_real *Gd2) {
  const la__mdim *m = &c->m;
  size_t W = c->W, D2 = m->D2 * W, TD = m->TD * W, DW = (size_t)m->D * W;
  int D = m->D, n = m->n, h, i;
  size_t at = ((size_t)n * D + D - 1) * W, nW = (size_t)n * W;
  const la_real *Z = c->zt + TD * l, *q = Z + (size_t)n * DW;
  const la_real *Zd = c->zdt + TD * l, *qd = Zd + (size_t)n * DW;
  const la_real *gs = la__m_bst(c, l);
  la_real *gds = c->tmp, *dsd = gds + W, *dwd = dsd + nW, *dvd = dwd + nW,
          *w = dvd + DW;
  const la_real *gd = Gd + at;
  LINATTN_ASSERT(w + c->W <= c->tmp_end);
  for (i = 0; i < c->W; ++i) gds[i] = gd[i] / (la_real)n;
  for (h = 0; h < m->H; ++h) {
    const la_real *P = la__m_P(c, c->ex, l, h), *Q = P + D2,
                  *p = P + (D - 1) * DW;
    const la_real *v = c->st + m->lay * W * l + la__nl_head(m) * h,
                  *s = v + DW, *wk = s + nW;
    const la_real *ds = gs + W + h * (3 * nW + DW), *dw = ds + nW,
                  *Dc = dw + nW, *dv = Dc + nW;
    unsigned acc = h ? LA__AC : 0;
    const la_real *Pd = la__m_P(c, c->exv, l, h), *Qd = Pd + D2,
                  *pd = Pd + (D - 1) * DW;
    la_real *gvP = la__m_gP(c, c->gv, l, h), *gvQ = gvP + m->D2 * LA_W;
    const la_real *vd = c->sdt + m->lay * W * l + la__nl_head(m) * h,
                  *sd = vd + DW, *wd = sd + nW;
    la__e_gscale((size_t)n, gds, wk, dsd);
    la__e_gaxpy(c->W, c->W, 0, (size_t)n, gs, wd, dsd);
    la__e_gscale((size_t)n, gds, s, dwd);
    la__e_gaxpy(c->W, c->W, 0, (size_t)n, gs, sd, dwd);
    la__act_jac2(c, n, 1, s, sd, Dc, dsd, w); /* dsd -> dad */
    LA__MM(c, LA__TA | LA__AC, D, 1, n, 1, Z, dwd, gvP + (size_t)(D - 1) * D * LA_W);
    if (!zd0) LA__MM(c, LA__TA | LA__AC, D, 1, n, 1, Zd, dw, gvP + (size_t)(D - 1) * D * LA_W);
    LA__MM(c, LA__TA, D, 1, n, 1, Z, dsd, dvd);
    if (!zd0) LA__MM(c, LA__TA | LA__AC, D, 1, n, 1, Zd, ds, dvd);
    LA__MM(c, LA__AC, D, D, 1, 1, dvd, q, gvQ);
    if (!zd0) LA__MM(c, LA__AC, D, D, 1, 1, dv, qd, gvQ);
    if (dz) {
      LA__MM(c, LA__TA | acc, D, 1, D, 1, Q, dvd, Gd2 + (size_t)n * DW);
      if (!pd0)
        LA__MM(c, LA__TA | LA__AC, D, 1, D, 1, Qd, dv, Gd2 + (size_t)n * DW);
      LA__MM(c, acc, n, D, 1, 1, dwd, p, Gd2);
      if (!pd0) LA__MM(c, LA__AC, n, D, 1, 1, dw, pd, Gd2);
      LA__MM(c, LA__AC, n, D, 1, 1, dsd, v, Gd2);
      LA__MM(c, LA__AC, n, D, 1, 1, ds, vd, Gd2);
    }
  }
  if (dz)
    for (i = 0; i < c->W; ++i) Gd2[at + i] += gd[i];
}

/* ------------------------------------------------------- front layer */
/* On the x-part Xt (T x d) of the transposed prompt:
   A1 = Xt W1^T + b1, R1 = relu(A1), Xt <- R1 W2^T + b2. */

typedef struct la__fbuf {
  la_real *x, *r, *rd, *xo, *dx, *dxd, *da, *dad;
  const la_real *W1, *b1, *W2, *b2, *W1d, *b1d, *W2d, *b2d;
  la_real *gW1, *gb1, *gW2, *gb2, *vW1, *vb1, *vW2, *vb2;
} la__fbuf;

static la__fbuf la__front_bufs(const la__mctx *c) {
  const la__mdim *m = &c->m;
  size_t Td = (size_t)m->T * m->d * LA_W, Th = (size_t)m->T * m->h * LA_W;
  size_t off = 2 * m->D2 * m->L * m->H * LA_W, hd = (size_t)m->h * m->d * LA_W;
  size_t o1 = off + hd, o2 = o1 + (size_t)m->h * LA_W, o3 = o2 + hd;
  la__fbuf f;
  f.x = c->fr; f.xo = f.x + Td; f.dx = f.xo + Td; f.dxd = f.dx + Td;
  f.r = f.dxd + Td; f.rd = f.r + Th; f.da = f.rd + Th; f.dad = f.da + Th;
  f.W1 = c->ex + off; f.b1 = c->ex + o1; f.W2 = c->ex + o2; f.b2 = c->ex + o3;
  f.W1d = c->exv + off; f.b1d = c->exv + o1; f.W2d = c->exv + o2;
  f.b2d = c->exv + o3;
  f.gW1 = c->g + off; f.gb1 = c->g + o1; f.gW2 = c->g + o2; f.gb2 = c->g + o3;
  f.vW1 = c->gv + off; f.vb1 = c->gv + o1; f.vW2 = c->gv + o2;
  f.vb2 = c->gv + o3;
  return f;
}

static void la__front_fwd(const la__mctx *c) {
  const la__mdim *m = &c->m;
  la__fbuf f = la__front_bufs(c);
  int T = m->T, d = m->d, h = m->h, D = m->D;
  size_t Th = (size_t)T * h;
  la__e_getcols(LA_W, T, d, D, c->zt, f.x);
  LA__MM(c, LA__TB, T, h, d, 1, f.x, f.W1, f.r);
  la__e_addrow(T, h, f.b1, f.r);
  la__e_relu(Th, f.r);
  LA__MM(c, LA__TB, T, d, h, 1, f.r, f.W2, f.xo);
  la__e_addrow(T, d, f.b2, f.xo);
  la__e_setcols(T, d, D, f.xo, c->zt);
}

static void la__front_fwd_t(const la__mctx *c) {
  const la__mdim *m = &c->m;
  la__fbuf f = la__front_bufs(c);
  int T = m->T, d = m->d, h = m->h, D = m->D;
  size_t Th = (size_t)T * h;
  LA__MM(c, LA__TB, T, h, d, 1, f.x, f.W1d, f.rd);
  la__e_addrow(T, h, f.b1d, f.rd);
  la__e_mask(Th, f.r, f.rd);
  LA__MM(c, LA__TB, T, d, h, 1, f.rd, f.W2, f.xo);
  LA__MM(c, LA__TB | LA__AC, T, d, h, 1, f.r, f.W2d, f.xo);
  la__e_addrow(T, d, f.b2d, f.xo);
  la__e_zero(c->W, m->TD, c->zdt);
  la__e_setcols(T, d, D, f.xo, c->zdt);
}

static void la__front_bwd(const la__mctx *c, const la_real *G) {
  const la__mdim *m = &c->m;
  la__fbuf f = la__front_bufs(c);
  int T = m->T, d = m->d, h = m->h, D = m->D;
  size_t Th = (size_t)T * h;
  la__e_getcols(LA_W, T, d, D, G, f.dx);
  la__e_colsum(T, d, f.dx, f.gb2);
  LA__MM(c, LA__TA | LA__AC, d, h, T, 1, f.dx, f.r, f.gW2);
  LA__MM(c, 0, T, h, d, 1, f.dx, f.W2, f.da);
  la__e_mask(Th, f.r, f.da);
  la__e_colsum(T, h, f.da, f.gb1);
  LA__MM(c, LA__TA | LA__AC, h, d, T, 1, f.da, f.x, f.gW1);
}

static void la__front_bwd_t(const la__mctx *c, const la_real *Gd) {
  const la__mdim *m = &c->m;
  la__fbuf f = la__front_bufs(c);
  int T = m->T, d = m->d, h = m->h, D = m->D;
  size_t Th = (size_t)T * h;
  la__e_getcols(LA_W, T, d, D, Gd, f.dxd);
  la__e_colsum(T, d, f.dxd, f.vb2);
  LA__MM(c, LA__TA | LA__AC, d, h, T, 1, f.dxd, f.r, f.vW2);
  LA__MM(c, LA__TA | LA__AC, d, h, T, 1, f.dx, f.rd, f.vW2);
  LA__MM(c, 0, T, h, d, 1, f.dxd, f.W2, f.dad);
  LA__MM(c, LA__AC, T, h, d, 1, f.dx, f.W2d, f.dad);
  la__e_mask(Th, f.r, f.dad);
  la__e_colsum(T, h, f.dad, f.vb1);
  LA__MM(c, LA__TA | LA__AC, h, d, T, 1, f.dad, f.x, f.vW1);
}

/* ------------------------------------------------------- one panel */

/* Zt_0 <- transposed panel p of b, lanes >= valid zeroed (a view's padding
   may hold anything). Non-finite values are found by x - x, which is 0 for
   every finite x and NaN otherwise, summed lane-wise in four independent
   chains over the contiguous source: no branches, no long dependency. */
static int la__m_load(const la__mctx *c, const la_batch *b, int p,
                      int valid) {
  const la__mdim *m = &c->m;
  size_t ne = m->TD, e;
  const la_real *z = b->z + (size_t)p * ne * LA_W;
  const la_real *y = b->y + (size_t)p * LA_W;
  la_real k0[LA_W], k1[LA_W], k2[LA_W], k3[LA_W];
  int i, j, w, ok = 1;
  if (valid < c->W) { /* the last panel of a batch: lane by lane */
    for (i = 0; i < m->D; ++i)
      for (j = 0; j < m->T; ++j) {
        const la_real *s = z + (size_t)(i * m->T + j) * LA_W;
        la_real *t = c->zt + (size_t)(j * m->D + i) * c->W;
        for (w = 0; w < c->W; ++w) { /* lane w of panel p + w / LA_W */
          t[w] = w < valid ? s[(size_t)(w / LA_W) * ne * LA_W + w % LA_W] : 0;
          ok &= t[w] - t[w] == 0;
        }
      }
    for (w = 0; w < c->W; ++w) {
      c->y[w] = w < valid ? y[w] : 0;
      ok &= c->y[w] - c->y[w] == 0;
    }
    return ok ? LA_OK : LA_ENONFINITE;
  }
#if LA__SIMD != LINATTN_SCALAR
  { /* one pass: each element checked as it is moved, four chains */
    const la__vec m1 = la__vset1(-1);
    la__vec a0 = la__vzero(), a1 = a0, a2 = a0, a3 = a0, v;
    la_real lanes[LA_W];
    size_t DW = (size_t)m->D * c->W;
    int hw; /* wide panels: panel p into the lower lanes, p + 1 the upper */
    for (hw = 0; hw < c->W; hw += LA_W)
    for (i = 0; i < m->D; ++i) {
      const la_real *s = z + (size_t)(hw / LA_W) * ne * LA_W +
                         (size_t)i * m->T * LA_W;
      la_real *t = c->zt + (size_t)i * c->W + hw;
      for (j = 0; j + 4 <= m->T; j += 4) {
        la__vec v0 = la__vload(s + (size_t)j * LA_W);
        la__vec v1 = la__vload(s + (size_t)(j + 1) * LA_W);
        la__vec v2 = la__vload(s + (size_t)(j + 2) * LA_W);
        la__vec v3 = la__vload(s + (size_t)(j + 3) * LA_W);
        a0 = la__vadd(a0, la__vfma(v0, v0, m1)); /* v - v: 0 or NaN */
        a1 = la__vadd(a1, la__vfma(v1, v1, m1));
        a2 = la__vadd(a2, la__vfma(v2, v2, m1));
        a3 = la__vadd(a3, la__vfma(v3, v3, m1));
        la__vstore(t + (size_t)j * DW, v0);
        la__vstore(t + (size_t)(j + 1) * DW, v1);
        la__vstore(t + (size_t)(j + 2) * DW, v2);
        la__vstore(t + (size_t)(j + 3) * DW, v3);
      }
      for (; j < m->T; ++j) {
        v = la__vload(s + (size_t)j * LA_W);
        a0 = la__vadd(a0, la__vfma(v, v, m1));
        la__vstore(t + (size_t)j * DW, v);
      }
    }
    for (hw = 0; hw < c->W; hw += LA_W) {
      v = la__vload(y + hw);
      a0 = la__vadd(a0, la__vfma(v, v, m1));
      la__vstore(c->y + hw, v);
    }
    a0 = la__vadd(a0, la__vadd(a1, la__vadd(a2, a3)));
    la__vstoreu(lanes, a0);
    for (w = 0; w < LA_W; ++w) ok &= lanes[w] == 0;
    (void)e; (void)k0; (void)k1; (void)k2; (void)k3;
    return ok ? LA_OK : LA_ENONFINITE;
  }
#endif
  for (w = 0; w < LA_W; ++w) k0[w] = k1[w] = k2[w] = k3[w] = 0;
  for (e = 0; e + 4 <= ne; e += 4) {
    const la_real *s = z + e * LA_W;
    for (w = 0; w < LA_W; ++w) {
      k0[w] += s[w] - s[w];
      k1[w] += s[LA_W + w] - s[LA_W + w];
      k2[w] += s[2 * LA_W + w] - s[2 * LA_W + w];
      k3[w] += s[3 * LA_W + w] - s[3 * LA_W + w];
    }
  }
  for (; e < ne; ++e)
    for (w = 0; w < LA_W; ++w) k0[w] += z[e * LA_W + w] - z[e * LA_W + w];
  for (w = 0; w < LA_W; ++w) {
    c->y[w] = y[w];
    k0[w] += (y[w] - y[w]) + k1[w] + k2[w] + k3[w];
  }
  for (w = 0; w < LA_W; ++w) ok &= k0[w] == 0;
  if (!ok) return LA_ENONFINITE;
  for (i = 0; i < m->D; ++i)
    for (j = 0; j < m->T; ++j) {
      const la_real *s = z + (size_t)(i * m->T + j) * LA_W;
      la_real *t = c->zt + (size_t)(j * m->D + i) * LA_W;
      memcpy(t, s, sizeof(la_real) * LA_W); /* one vector move */
    }
  return LA_OK;
}

/* One direction's tangent pass over a panel whose forward and backward
   steps are done: the tangent forward from the direction's first stage
   (the layer its entries are in; -1, the front layer, for every entry
   without c->stage), then the tangent backward down to layer 0 and the
   front layer, or with c->tri only down to that stage: the Hessian's rows
   of earlier stages are then not formed. A stage whose tangent is zero
   costs nothing: the forward skips it, as it skips layer 0's data. */
static void la__m_tangent(const la__mctx *c0, int dir, int valid) {
  const la__mdim *m = &c0->m;
  size_t TD = m->TD * c0->W, at = ((size_t)m->n * m->D + m->D - 1) * c0->W;
  int front = m->h > 0, lin = m->act == LA_ACT_LINEAR, s, l, w, lo;
  la__mctx cv = *c0;
  const la__mctx *c = &cv;
  const la_real *zdL = c0->zdt + TD * m->L + at;
  la_real *Gd = la__m_Gd(c0), *Gd2 = Gd + TD, *t;
  cv.exv += (size_t)dir * m->nex * c0->W;
  cv.gv += (size_t)dir * m->nex * LA_W;
  s = c0->stage ? c0->stage[dir] : front ? -1 : 0;
  if (s < 0) la__front_fwd_t(c);
  for (l = s < 0 ? 0 : s; l < m->L; ++l) {
    int zd0 = l == s || (l == 0 && !front), last = l == m->L - 1;
    int pd0 = c0->stage && l != s;
    if (lin && last) la__last_fwd_t(c, l, zd0, pd0);
    else if (lin) la__lin_fwd_t(c, l, zd0, pd0);
    else if (last) la__nlast_fwd_t(c, l, zd0, pd0);
    else la__nl_fwd_t(c, l, zd0, pd0);
  }
  for (w = 0; w < c0->W; ++w)
    Gd[at + w] = w < valid ? (la_real)(2 * zdL[w]) : 0;
  lo = c0->tri && s > 0 ? s : 0;
  for (l = m->L - 1; l >= lo; --l) {
    int zd0 = l == s || (l == 0 && !front), last = l == m->L - 1;
    int pd0 = c0->stage && l != s;
    int dz = c0->tri ? l > s : l > 0 || front;
    const la_real *G = la__m_G(c, l + 1);
    if (lin && last) la__last_bwd_t(c, l, zd0, pd0, dz, Gd, Gd2);
    else if (lin) la__lin_bwd_t(c, l, zd0, pd0, dz, G, Gd, Gd2);
    else if (last) la__nlast_bwd_t(c, l, zd0, pd0, dz, Gd, Gd2);
    else la__nl_bwd_t(c, l, zd0, pd0, dz, G, Gd, Gd2);
    t = Gd; Gd = Gd2; Gd2 = t;
  }
  if (front && s < 0) la__front_bwd_t(c, Gd);
}

/* One unit direction's term of the Hessian's diagonal (linear attention,
   see la__sdd): its first- and second-order tangents forward from its
   stage, then acc (LA_W doubles) += 2 (z'^2 + r z''), lane by lane, r the
   residuals, in the valid lanes (a padding lane's zero prompt has
   tangents too, through the front layer's biases). The second-order
   tangents take turns in the tangent backward's two panels, which this
   pass does not use. */
static void la__m_diag2(const la__mctx *c0, int dir, int valid,
                        const double *r, double *acc) {
  const la__mdim *m = &c0->m;
  size_t TD = m->TD * c0->W, at = ((size_t)m->n * m->D + m->D - 1) * c0->W;
  int front = m->h > 0, s, l, w, zdd0 = 1;
  la__mctx cv = *c0;
  const la__mctx *c = &cv;
  la_real *A = la__m_Gd(c0), *B = A + TD, *t, *zdd;
  const la_real *zdL = c0->zdt + TD * m->L + at;
  cv.exv += (size_t)dir * m->nex * c0->W;
  s = c0->stage[dir];
  if (s < 0) la__front_fwd_t(c);
  for (l = s < 0 ? 0 : s; l < m->L; ++l) {
    int zd0 = l == s || (l == 0 && !front), pd0 = l != s;
    if (l == m->L - 1) {
      la__last_fwd_t(c, l, zd0, pd0);
      if (l > s) la__last_fwd_tt(c, l, zdd0, A, B); /* z'' into B's first */
      else la__e_zero(c->W, 1, B); /* the direction's own layer: z'' = 0 */
    } else {
      la__lin_fwd_t(c, l, zd0, pd0);
      if (l > s) {
        la__lin_fwd_tt(c, l, zdd0, A, B);
        t = A; A = B; B = t;
        zdd0 = 0;
      }
    }
  }
  zdd = B;
  /* acc has LA_W lanes: on wide panels the lower half's terms (the first
     panel's) are added before the upper half's, as two panels in turn */
  for (w = 0; w < valid; ++w)
    acc[w % LA_W] += 2 * ((double)zdL[w] * zdL[w] + r[w] * zdd[w]);
}

/* What a pass over the batch computes. */
enum {
  LA__M_LOSS = 0, /* the loss (and predictions) */
  LA__M_GRAD = 1, /* and the gradient */
  LA__M_HMP = 2,  /* and the Hessian times each of k directions */
  LA__M_DIAG = 3  /* the Hessian's diagonal entries of k unit directions */
};

/* LA__M_HMP: the forward and backward steps once, then each direction's
   tangents on what they kept; LA__M_DIAG (linear attention): the forward
   step once, then each direction's forward tangents (la__m_diag2). */
static int la__m_panel(const la__mctx *c, const la_model *mod,
                       const la_batch *b, int p, int mode, double *lsum,
                       la_real *pred) {
  const la__mdim *m = &c->m;
  size_t TD = m->TD * c->W, at = ((size_t)m->n * m->D + m->D - 1) * c->W;
  int valid = b->count - p * LA_W, l, w, st, lin = LA__LIN(mod);
  int front = m->h > 0;
  double sum = *lsum;
  la_real *G = la__m_G(c, m->L);
  const la_real *zL = c->zt + TD * m->L + at;
  if (valid > c->W) valid = c->W;
  st = la__m_load(c, b, p, valid);
  if (st) return st;
  if (front) la__front_fwd(c);
  for (l = 0; l < m->L; ++l) {
    int last = l == m->L - 1;
    if (lin && last) la__last_fwd(c, l);
    else if (lin) la__lin_fwd(c, l);
    else if (last) la__nlast_fwd(c, l);
    else la__nl_fwd(c, l);
  }
  /* the last layer reads only entry `at` of its incoming gradient; the
     sum in a local, not through lsum (whose store and reload would chain
     the lanes), added in the same order */
  for (w = 0; w < c->W; ++w) {
    double r = (double)zL[w] + c->y[w];
    G[at + w] = 0;
    if (w >= valid) continue;
    sum += r * r;
    if (pred) pred[(size_t)p * LA_W + w] = -zL[w];
    G[at + w] = (la_real)(2 * r);
  }
  *lsum = sum;
  if (mode == LA__M_LOSS) return LA_OK;
  if (mode == LA__M_DIAG) {
    double r[2 * LA_W];
    for (w = 0; w < valid; ++w) r[w] = (double)zL[w] + c->y[w];
    for (l = 0; l < m->k; ++l)
      la__m_diag2(c, l, valid, r,
                  (double *)(void *)(c->gv + (size_t)l * m->nex * LA_W));
    return LA_OK;
  }
  for (l = m->L - 1; l >= 0; --l) {
    int dz = l > 0 || front, last = l == m->L - 1;
    const la_real *Gi = la__m_G(c, l + 1);
    la_real *Go = la__m_G(c, l);
    if (lin && last) la__last_bwd(c, l, dz, Gi, Go);
    else if (lin) la__lin_bwd(c, l, dz, Gi, Go);
    else if (last) la__nlast_bwd(c, l, dz, Gi, Go);
    else la__nl_bwd(c, l, dz, Gi, Go);
  }
  if (front) la__front_bwd(c, la__m_G(c, 0));
  if (mode == LA__M_HMP)
    for (l = 0; l < m->k; ++l) la__m_tangent(c, l, valid);
  return LA_OK;
}

/* ------------------------------------------------------ entry points */

/* A la_parallel the model can use: NULL, or workers in range and, for
   more than one, a run function. */
static int la__par_valid(const la_parallel *par) {
  return !par || (par->workers >= 0 && par->workers <= LA_MAX_WORKERS &&
                  (par->workers <= 1 || par->run));
}

/* The ranges of a configuration whose defaults are filled in (d and n
   apart): the kernels it calls must be in its table. */
static int la__m_cfg_ok(const la_model_config *c) {
  int q = c->param == LA_PARAM_DENSE ? c->d + 1 : c->d; /* Q's free block */
  return c->layers > 0 && c->layers <= LA_MAX_LAYERS && c->param >= 0 &&
         c->param <= LA_PARAM_PGD && c->activation >= 0 &&
         c->activation <= LA_ACT_SOFTMAX && c->heads > 0 &&
         c->heads <= LA_MAX_HEADS && c->qk_rank >= 0 && c->qk_rank <= q &&
         c->front_hidden >= 0 && c->front_hidden <= LA_MAX_HIDDEN &&
         c->front_init >= LA_FRONT_UNIFORM && c->front_init <= LA_FRONT_NORMAL &&
         c->kernels && c->kernels->pgemm &&
         (c->activation != LA_ACT_SOFTMAX || c->kernels->vexp);
}

LINATTN_DEF int la_model_init(la_model *m, const la_model_config *cfg) {
  la_model_config c;
  double np;
  if (!m || !cfg) return LA_ENULL;
  c = *cfg;
  if (c.d <= 0 || c.n <= 0 || c.d > LA_MAX_D || c.n > LA_MAX_N) return LA_EDIM;
  if (c.layers == 0) c.layers = 3;
  if (c.heads == 0) c.heads = 1;
  if (c.init_std == 0) c.init_std = 0.05;
  if (!c.kernels) c.kernels = la_kernels_best();
  if (!la__m_cfg_ok(&c)) return LA_ERANGE;
  /* normals stay within 6.56: theta must be finite in la_real */
  if (!(c.init_std > 0) || !(c.init_std <= LA__REAL_MAX / 8)) return LA_ERANGE;
  if (!la__par_valid(c.parallel)) return LA_ERANGE;
  {
    la_model t; /* the caller's model is written only on success */
    la__mdim dm;
    la__mlay o;
    memset(&t, 0, sizeof t);
    t.cfg = c;
    np = (double)c.layers * la__m_layer_params(&t) +
         (double)la__m_front_params(c.d, c.front_hidden);
    if (np > 2147483647.0) return LA_EOVERFLOW;
    t.nparams = (int)np;
    la__m_dims(&t, 1, &dm);
    /* one worker's layout: more workers' (which only a 32-bit host could
       fail to hold) are refused by la_model_work_bytes and the calls */
    if (!la__m_layout(&t, &dm, 1, &o)) return LA_EOVERFLOW;
    *m = t;
  }
  return LA_OK;
}

static int la__m_valid(const la_model *m) {
  const la_model_config *c = m ? &m->cfg : NULL;
  return m && c->d > 0 && c->n > 0 && m->nparams > 0 && c->d <= LA_MAX_D &&
         c->n <= LA_MAX_N && la__m_cfg_ok(c) &&
         (double)m->nparams ==
             (double)c->layers * la__m_layer_params(m) +
                 (double)la__m_front_params(c->d, c->front_hidden);
}

LINATTN_DEF int la_model_init_params(const la_model *m, la_rng *rng,
                                     la_real *theta) {
  int i;
  int d = m ? m->cfg.d : 0, h = m ? m->cfg.front_hidden : 0, front;
  if (!m || !rng || !theta) return LA_ENULL;
  if (!la__m_valid(m)) return LA_ERANGE;
  front = m->cfg.front_init == LA_FRONT_UNIFORM && h > 0
              ? m->nparams - (2 * h * d + h + d)
              : m->nparams;
  for (i = 0; i < front; ++i)
    theta[i] = (la_real)(m->cfg.init_std * la_rng_normal(rng));
  for (; i < m->nparams; ++i) { /* W1 and b1, then W2 and b2 */
    double fan = i < front + h * d + h ? (double)d : (double)h;
    theta[i] = (la_real)((2 * la_rng_uniform(rng) - 1) / sqrt(fan));
  }
  return LA_OK;
}

LINATTN_DEF int la_model_blocks(const la_model *m, int *offsets, int *sizes,
                                int max) {
  int l, k = 0, at = 0, i, j, nsz, d, h, sz[4];
  la__mpack pk;
  if (!m || !offsets || !sizes) return LA_ENULL;
  if (!la__m_valid(m)) return LA_ERANGE;
  if (max < la__m_nblocks(m)) return LA_ERANGE;
  d = m->cfg.d; h = m->cfg.front_hidden;
  pk = la__m_pack(m);
  for (l = 0; l < m->cfg.layers * m->cfg.heads; ++l) { /* in theta's order */
    nsz = 0;
    if (pk.pe) sz[nsz++] = pk.pe;
    if (pk.r) { sz[nsz++] = pk.r * pk.q; sz[nsz++] = pk.r * pk.q; }
    else sz[nsz++] = pk.q * pk.q;
    for (j = 0; j < nsz; ++j) {
      offsets[k] = at; sizes[k] = sz[j]; at += sz[j]; ++k;
    }
  }
  sz[0] = h * d; sz[1] = h; sz[2] = d * h; sz[3] = d;
  for (i = 0; h > 0 && i < 4; ++i) {
    offsets[k] = at; sizes[k] = sz[i]; at += sz[i]; ++k;
  }
  return k;
}

/* The shape of block j (0 .. la__m_head_blocks - 1) of a head: P (or B)
   unless pgd, then Q (or A), or W_K and W_Q. */
static const char *la__m_head_block(const la_model *m, int j, int *rows,
                                    int *cols) {
  la__mpack pk = la__m_pack(m);
  int sparse = m->cfg.param != LA_PARAM_DENSE;
  if (m->cfg.param == LA_PARAM_PGD) ++j; /* no P */
  *rows = pk.q;
  *cols = pk.q;
  if (j == 0) return sparse ? "B" : "P";
  if (!pk.r) return sparse ? "A" : "Q";
  *rows = pk.r;
  return j == 1 ? "W_K" : "W_Q";
}

LINATTN_DEF int la_model_block_info(const la_model *m, int i, const char **name,
                                    int *layer, int *head, int *rows,
                                    int *cols) {
  static const char *const front[] = {"W1", "b1", "W2", "b2"};
  int hb, nb, j, k, r = 0, c = 0, l = -1, h = -1, at, fh;
  const char *nm;
  if (!m) return LA_ENULL;
  if (!la__m_valid(m) || i < 0 || i >= (nb = la__m_nblocks(m))) return LA_ERANGE;
  hb = la__m_head_blocks(m);
  fh = m->cfg.front_hidden;
  if (i < m->cfg.layers * m->cfg.heads * hb) {
    l = i / hb / m->cfg.heads;
    h = i / hb % m->cfg.heads;
    at = i / hb * (la__m_layer_params(m) / m->cfg.heads);
    for (k = 0; k < i % hb; ++k) { /* the head's blocks before it */
      (void)la__m_head_block(m, k, &r, &c);
      at += r * c;
    }
    nm = la__m_head_block(m, i % hb, &r, &c);
  } else {
    int fr[4], fc[4];
    fr[0] = fr[1] = fc[2] = fh;
    fr[2] = fr[3] = fc[0] = m->cfg.d;
    fc[1] = fc[3] = 1;
    j = i - (nb - 4);
    at = m->cfg.layers * la__m_layer_params(m);
    for (k = 0; k < j; ++k) at += fr[k] * fc[k];
    nm = front[j];
    r = fr[j];
    c = fc[j];
  }
  if (name) *name = nm;
  if (layer) *layer = l;
  if (head) *head = h;
  if (rows) *rows = r;
  if (cols) *cols = c;
  return at;
}

/* The workspace of one call with `par`'s workers and k directions, or
   (k = 0) of a loss or gradient alone (0: not valid, or beyond size_t). */
static size_t la__m_work_bytes_k(const la_model *m, const la_parallel *par,
                                 int k) {
  la__mdim d;
  la__mlay o;
  if (!m || !la__m_valid(m) || !la__par_valid(par) || k < 0) return 0;
  la__m_dims(m, k > 0, &d);
  d.k = k > 0 ? k : 1;
  return la__m_layout(m, &d, la__m_workers(par), &o);
}
/* A loss or a gradient's (the trainer, the gradient noise). */
static size_t la__m_work_bytes(const la_model *m, const la_parallel *par) {
  return la__m_work_bytes_k(m, par, 0);
}

LINATTN_DEF size_t la_model_work_bytes(const la_model *m) {
  return m ? la__m_work_bytes_k(m, m->cfg.parallel, 1) : 0;
}

/* Where the prompts of a call come from: a stored batch, or (b NULL) drawn
   panel by panel from the generator g, panel p of the call from panel
   p0 + p of rng's stream, each where it is consumed. */
typedef struct la__msrc {
  const la_batch *b;
  const la_data *g;
  la_rng rng;
  uint64_t p0;
  int d, n, count;
} la__msrc;

/* The drawn source of `count` prompts at rng's position (checked as
   la_data_sample checks). */
static int la__msrc_drawn(la__msrc *s, const la_data *g, const la_rng *rng,
                          int count) {
  int st;
  memset(s, 0, sizeof *s);
  if ((st = la__data_check(g, g->cfg.d, g->cfg.n, count)) != 0) return st;
  if ((st = la__data_first_panel(rng, la_panels(count), &s->p0)) != 0)
    return st;
  s->g = g;
  s->rng = *rng;
  s->d = g->cfg.d;
  s->n = g->cfg.n;
  s->count = count;
  return LA_OK;
}

static const la__msrc *la__msrc_batch(la__msrc *s, const la_batch *b) {
  memset(s, 0, sizeof *s);
  s->b = b;
  if (b) { s->d = b->d; s->n = b->n; s->count = b->count; }
  return s;
}

/* The directions of a Hessian product: k rows of v (k x nparams), their
   products into the rows of hv; stage and tri as in la__mctx. */
typedef struct la__mdirs {
  int k;
  const la_real *v;
  la_real *hv;
  double *diag; /* LA__M_DIAG: the k diagonal entries */
  const int *stage;
  int tri;
  int lean; /* a loss or gradient in la__m_work_bytes's workspace */
} la__mdirs;

/* One call's shared state; each task (a chunk) builds its worker's
   context from it. */
typedef struct la__mjob {
  const la_model *mod;
  const la__msrc *src;
  const la__mdirs *dirs;
  la__mdim dm;
  la__mlay o;
  la_real *base;
  la_real *pred;
  int mode, np, nch;
} la__mjob;

/* W: LA_W, or the wide panels' LA__WL where j->dm.W allows them. */
static la__mctx la__m_ctx(const la__mjob *j, int worker, int W) {
  la__mctx c;
  la_real *w = j->base + j->o.wk + (size_t)worker * j->o.wsize;
  c.k = j->mod->cfg.kernels;
  c.m = j->dm;
  c.ex = j->base + j->o.ex; c.exv = j->base + j->o.exv;
  c.g = w + j->o.g; c.gv = w + j->o.gv; c.zt = w + j->o.zt;
  c.zdt = w + j->o.zdt; c.st = w + j->o.st; c.sdt = w + j->o.sdt;
  c.gt = w + j->o.gt; c.bst = w + j->o.bst; c.tmp = w + j->o.tmp;
  c.fr = w + j->o.front;
  c.tmp_end = c.fr; /* the layout's next part follows the temporaries */
  c.y = w + j->o.y;
  c.stage = j->dirs ? j->dirs->stage : NULL;
  c.tri = j->dirs ? j->dirs->tri : 0;
  c.W = W;
  c.half = w + j->o.half;
  if (W != LA_W) {
    c.ex = j->base + j->o.exw;
    c.exv = j->base + j->o.exvw;
  }
  return c;
}

/* part[e] = sum over the lanes of x[e], e < n, in double: each build has
   one order of the additions (which is all that the same bits for any
   number of workers need); on x86 a tree over the vector's halves. */
static void la__m_fold(size_t n, const la_real *x, double *part) {
  size_t e;
#if LA__X86
  for (e = 0; e < n; ++e) {
#ifdef LINATTN_DOUBLE
    __m256d s = _mm256_load_pd(x + e * LA_W);
#else
    __m256 v = _mm256_load_ps(x + e * LA_W);
    __m256d s = _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)),
                              _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
#endif
    part[e] = la__hsum_pd(s);
  }
#else
  int w;
  for (e = 0; e < n; ++e) {
    double s = 0;
    for (w = 0; w < LA_W; ++w) s += x[e * LA_W + w];
    part[e] = s;
  }
#endif
}

/* Chunk `chunk` on `worker`'s block into part: loss sum, status, the
   folded gradient sums, then each direction's. */
static void la__m_chunk(const la__mjob *j, int chunk, int worker,
                        double *part) {
  la__mctx c = la__m_ctx(j, worker, LA_W);
#if LA__WIDE
  la__mctx cw = la__m_ctx(j, worker, j->dm.W);
  const int wide = j->dm.W != LA_W;
#else
  const la__mctx cw = c;
  const int wide = 0;
#endif
  const la__msrc *src = j->src;
  int p = la__m_chunk_start(j->np, j->nch, chunk);
  int p1 = la__m_chunk_start(j->np, j->nch, chunk + 1), st = LA_OK;
  double lsum = 0;
  size_t nex = j->dm.nex, kn = (size_t)j->dm.k * nex;
  if (j->mode == LA__M_GRAD || j->mode == LA__M_HMP) la__e_zero(LA_W, nex, c.g);
  if (j->mode >= LA__M_HMP) la__e_zero(LA_W, kn, c.gv);
  /* on wide panels two panels at a time, the chunk's last odd one on
     LA_W lanes: a chunk's panels in the same order either way */
  if (src->b) {
    while (p < p1 && st == LA_OK) {
      const int two = wide && p + 1 < p1;
      st = la__m_panel(two ? &cw : &c, j->mod, src->b, p, j->mode, &lsum,
                       j->pred);
      p += two ? 2 : 1;
    }
  } else { /* each panel drawn into this worker's block, consumed in L1 */
    la_real *w = j->base + j->o.wk + (size_t)worker * j->o.wsize;
    la_batch one;
    memset(&one, 0, sizeof one);
    one.d = src->d;
    one.n = src->n;
    one.z = w + j->o.pz;
    one.y = w + j->o.py;
    while (p < p1 && st == LA_OK) {
      const int two = wide && p + 1 < p1, lanes = two ? 2 * LA_W : LA_W;
      int left = src->count - p * LA_W;
      la__data_panel(src->g, &src->rng, src->p0 + (uint64_t)p, one.z, one.y);
      if (two)
        la__data_panel(src->g, &src->rng, src->p0 + (uint64_t)p + 1,
                       one.z + j->dm.TD * LA_W, one.y + LA_W);
      one.count = left < lanes ? left : lanes;
      st = la__m_panel(two ? &cw : &c, j->mod, &one, 0, j->mode, &lsum, NULL);
      p += two ? 2 : 1;
    }
  }
  part[0] = lsum;
  part[1] = st;
  if (st) return;
  if (j->mode == LA__M_GRAD || j->mode == LA__M_HMP) la__m_fold(nex, c.g, part + 2);
  if (j->mode == LA__M_HMP) la__m_fold(kn, c.gv, part + 2 + nex);
  if (j->mode == LA__M_DIAG) { /* each direction's lanes, in lane order */
    int d, w;
    for (d = 0; d < j->dm.k; ++d) {
      const double *a = (const double *)(void *)(c.gv + (size_t)d * nex * LA_W);
      double s = 0;
      for (w = 0; w < LA_W; ++w) s += a[w];
      part[2 + d] = s;
    }
  }
}

static void la__m_task(void *arg, int chunk, int worker) {
  const la__mjob *j = (const la__mjob *)arg;
  double *part;
  if (chunk < 0 || chunk >= j->nch) return;
  part = (double *)(void *)(j->base + j->o.parts) + (size_t)chunk * j->o.pstride;
  if (worker < 0 || worker >= j->o.workers) return; /* part says LA_ERANGE */
  la__m_chunk(j, chunk, worker, part);
}

/* fold += part's sums, chunk after chunk; the first failing chunk's
   status. */
static int la__m_add_part(const la__mjob *j, const double *part, double *lsum,
                          double *fold) {
  size_t e, n = j->mode == LA__M_HMP    ? (1 + (size_t)j->dm.k) * j->dm.nex
                : j->mode == LA__M_GRAD ? j->dm.nex
                : j->mode == LA__M_DIAG ? (size_t)j->dm.k
                               : 0;
  if (part[1] != 0) return (int)part[1];
  *lsum += part[0];
  for (e = 0; e < n; ++e) fold[e] += part[2 + e];
  return LA_OK;
}

/* The common path of loss, grad and the Hessian products, over `par`'s
   workers; dirs (LA__M_HMP, LA__M_DIAG) the directions. */
static int la__m_run_k(const la_model *mod, const la_parallel *par,
                       const la_real *theta, const la__msrc *src,
                       const la__mdirs *dirs, int mode, double *loss,
                       la_real *pred, la_real *grad, void *work,
                       size_t bytes) {
  la__mjob j;
  size_t need, e, nex, np;
  la_real *ex, *exv;
  double *fold, lsum = 0;
  int c, st = LA_OK, k = mode >= LA__M_HMP ? dirs->k : 1;
  void *own = NULL;
  if (!mod || !theta || !src) return LA_ENULL;
  if (src->b && (!src->b->z || !src->b->y)) return LA_ENULL;
  if (!src->b && !src->g) return LA_ENULL;
  if (!la__m_valid(mod) || !la__par_valid(par)) return LA_ERANGE;
  /* the panel kernels load whole aligned vectors */
  if (src->b &&
      ((uintptr_t)src->b->z % LA_ALIGN || (uintptr_t)src->b->y % LA_ALIGN))
    return LA_ERANGE;
  if (src->d != mod->cfg.d || src->n != mod->cfg.n) return LA_ESHAPE;
  if (src->count <= 0) return LA_EDIM;
  np = (size_t)mod->nparams;
  if (!la__all_finite(mod->nparams, theta)) return LA_ENONFINITE;
  for (c = 0; mode >= LA__M_HMP && c < k; ++c)
    if (!la__all_finite(mod->nparams, dirs->v + np * c)) return LA_ENONFINITE;
  memset(&j, 0, sizeof j);
  /* the public calls share one size (la_model_work_bytes, the HVP's) */
  la__m_dims(mod, mode >= LA__M_HMP || !dirs->lean, &j.dm);
  j.dm.k = k;
  need = la__m_layout(mod, &j.dm, la__m_workers(par), &j.o);
  if (!need) return LA_EOVERFLOW;
  if (!work) {
    if (bytes) return LA_ENULL;
#ifndef LINATTN_NO_STDLIB
    own = work = la_alloc(need);
    bytes = need;
    if (!own) return LA_ENOMEM;
#else
    return LA_ENULL;
#endif
  }
  if (bytes < need) return LA_EWORKSPACE;
  j.base = (la_real *)(void *)((char *)work +
                               (LA__MALIGN - (uintptr_t)work % LA__MALIGN) %
                                   LA__MALIGN);
  j.mod = mod;
  j.src = src;
  j.dirs = mode >= LA__M_HMP ? dirs : NULL;
  j.pred = pred;
  j.mode = mode;
  j.np = la_panels(src->count);
  j.nch = la__m_chunks(&j.dm, j.np);
  nex = j.dm.nex;
  ex = j.base + j.o.plain;
  exv = ex + nex;
  fold = (double *)(void *)(j.base + j.o.fold);
  la__m_expand(mod, theta, NULL, ex);
  la_broadcast(1, (int)nex, ex, j.base + j.o.ex);
  for (c = 0; mode >= LA__M_HMP && c < k; ++c) {
    la__m_expand(mod, theta, dirs->v + np * c, exv + nex * c);
    la_broadcast(1, (int)nex, exv + nex * c, j.base + j.o.exv + nex * LA_W * c);
  }
#if LA__WIDE
  if (j.dm.W != LA_W) { /* the wide panels' copies: each lane of LA__WL */
    la_real *xw = j.base + j.o.exw, *xvw = j.base + j.o.exvw;
    int w;
    for (e = 0; e < nex; ++e)
      for (w = 0; w < LA__WL; ++w) xw[e * LA__WL + (size_t)w] = ex[e];
    for (e = 0; mode >= LA__M_HMP && e < (size_t)k * nex; ++e)
      for (w = 0; w < LA__WL; ++w) xvw[e * LA__WL + (size_t)w] = exv[e];
  }
#endif
  for (e = 0; e < (1 + (size_t)k) * nex; ++e) fold[e] = 0;
  if (j.o.workers == 1) { /* chunk after chunk through worker 0's part */
    double *part = (double *)(void *)(j.base + j.o.wk + j.o.part);
    for (c = 0; c < j.nch && st == LA_OK; ++c) {
      la__m_chunk(&j, c, 0, part);
      st = la__m_add_part(&j, part, &lsum, fold);
    }
  } else {
    double *parts = (double *)(void *)(j.base + j.o.parts);
    for (c = 0; c < j.nch; ++c) parts[(size_t)c * j.o.pstride + 1] = LA_ERANGE;
    par->run(par->ctx, j.nch, la__m_task, &j);
    for (c = 0; c < j.nch && st == LA_OK; ++c)
      st = la__m_add_part(&j, parts + (size_t)c * j.o.pstride, &lsum, fold);
  }
  if (!st) {
    double sc = 1.0 / src->count;
    if (loss) *loss = lsum * sc;
    if (!la__finite(lsum)) st = LA_EDIVERGED;
    if (mode >= LA__M_GRAD && grad) {
      la__m_contract(mod, theta, NULL, fold, NULL, sc, grad);
      if (!la__all_finite(mod->nparams, grad)) st = LA_EDIVERGED;
    }
    for (c = 0; mode == LA__M_DIAG && c < k; ++c) {
      dirs->diag[c] = fold[c] * sc;
      if (!la__finite(dirs->diag[c])) st = LA_EDIVERGED;
    }
    for (c = 0; mode == LA__M_HMP && c < k; ++c) {
      la_real *hv = dirs->hv + np * c;
      la__m_contract(mod, theta, dirs->v + np * c, fold, fold + nex * (1 + c),
                     sc, hv);
      if (!la__all_finite(mod->nparams, hv)) st = LA_EDIVERGED;
    }
  }
#ifndef LINATTN_NO_STDLIB
  if (own) la_free(own);
#else
  (void)own;
#endif
  return st;
}

/* One direction v (or none), its product into hv; lean: a loss or a
   gradient in the workspace of one alone (la__m_work_bytes: the
   trainer's, the gradient noise's), else in the public calls' one size. */
static int la__m_run1(const la_model *mod, const la_parallel *par,
                      const la_real *theta, const la__msrc *src,
                      const la_real *v, int mode, double *loss, la_real *pred,
                      la_real *grad, la_real *hv, void *work, size_t bytes,
                      int lean) {
  la__mdirs d;
  memset(&d, 0, sizeof d);
  d.k = 1;
  d.v = v;
  d.hv = hv;
  d.lean = lean;
  return la__m_run_k(mod, par, theta, src, &d, mode, loss, pred, grad, work,
                     bytes);
}
static int la__m_run(const la_model *mod, const la_parallel *par,
                     const la_real *theta, const la__msrc *src,
                     const la_real *v, int mode, double *loss, la_real *pred,
                     la_real *grad, la_real *hv, void *work, size_t bytes) {
  return la__m_run1(mod, par, theta, src, v, mode, loss, pred, grad, hv, work,
                    bytes, 1);
}

LINATTN_DEF int la_model_loss(const la_model *m, const la_real *theta,
                              const la_batch *b, double *loss, la_real *pred,
                              void *work, size_t bytes) {
  la__msrc src;
  return la__m_run1(m, m ? m->cfg.parallel : NULL, theta,
                    la__msrc_batch(&src, b), NULL, LA__M_LOSS, loss, pred, NULL, NULL,
                    work, bytes, 0);
}

LINATTN_DEF int la_model_grad(const la_model *m, const la_real *theta,
                              const la_batch *b, double *loss, la_real *grad,
                              void *work, size_t bytes) {
  la__msrc src;
  if (!grad) return LA_ENULL;
  return la__m_run1(m, m ? m->cfg.parallel : NULL, theta,
                    la__msrc_batch(&src, b), NULL, LA__M_GRAD, loss, NULL, grad, NULL,
                    work, bytes, 0);
}

LINATTN_DEF int la_model_hvp(const la_model *m, const la_real *theta,
                             const la_batch *b, const la_real *v, double *loss,
                             la_real *grad, la_real *hv, void *work,
                             size_t bytes) {
  la__msrc src;
  if (!v || !hv) return LA_ENULL;
  return la__m_run1(m, m ? m->cfg.parallel : NULL, theta,
                    la__msrc_batch(&src, b), v, LA__M_HMP, loss, NULL, grad, hv, work,
                    bytes, 0);
}

LINATTN_DEF size_t la_model_hmp_work_bytes(const la_model *m, int k) {
  return m && k > 0 ? la__m_work_bytes_k(m, m->cfg.parallel, k) : 0;
}

LINATTN_DEF int la_model_hmp(const la_model *m, const la_real *theta,
                             const la_batch *b, int k, const la_real *v,
                             double *loss, la_real *grad, la_real *hv,
                             void *work, size_t bytes) {
  la__msrc src;
  la__mdirs d;
  if (!v || !hv) return LA_ENULL;
  if (k < 1) return LA_EDIM;
  memset(&d, 0, sizeof d);
  d.k = k;
  d.v = v;
  d.hv = hv;
  return la__m_run_k(m, m ? m->cfg.parallel : NULL, theta,
                     la__msrc_batch(&src, b), &d, LA__M_HMP, loss, NULL, grad, work,
                     bytes);
}

LINATTN_DEF int la_model_grad_fresh(const la_model *m, const la_real *theta,
                                    const la_data *g, la_rng *rng, int count,
                                    double *loss, la_real *grad, void *work,
                                    size_t bytes) {
  la__msrc src;
  int st;
  if (!m || !g || !rng) return LA_ENULL;
  if ((st = la__msrc_drawn(&src, g, rng, count)) != 0) return st;
  st = la__m_run1(m, m->cfg.parallel, theta, &src, NULL, grad ? LA__M_GRAD : LA__M_LOSS, loss,
                  NULL, grad, NULL, work, bytes, 0);
  if (st == LA_OK || st == LA_EDIVERGED)
    rng->counter = (src.p0 + (uint64_t)la_panels(count))
                   << LA__PANEL_WORDS_LOG2;
  return st;
}

#undef LA__MM
#undef LA__MMY
#undef LA__TA
#undef LA__TB
#undef LA__AC
#undef LA__ROWS
#undef LA__LIN


/* ================================================================== */
/*                           4. Optimizers                            */
/* ================================================================== */

/* A negative zero: LA_ZERO, "zero itself" rather than "the default". */
static int la__op_neg_zero(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b == 0x8000000000000000ull;
}
/* x, or dflt where x is zero meaning "the default" */
static double la__op_or(double x, double dflt) {
  return x == 0 && !la__op_neg_zero(x) ? dflt : x;
}

/* g + wd * theta, the coupled weight decay shared by the SGD family */
LA__INLINE double la__op_gwd(const la_real *g, const la_real *th, double wd,
                             int i) {
  return (double)g[i] + wd * (double)th[i];
}

/* The fields of la_optim_config by their LA_OPT_* bit, so that resolving
   and checking walk one list. */
typedef struct la__oc_field {
  size_t off;
  unsigned bit;
  int is_int;
} la__oc_field;
#define LA__OC(bit, f, i) {offsetof(la_optim_config, f), bit, i}
static const la__oc_field la__oc_fields[] = {
    LA__OC(LA_OPT_LR, lr, 0),           LA__OC(LA_OPT_MOMENTUM, momentum, 0),
    LA__OC(LA_OPT_NESTEROV, nesterov, 1), LA__OC(LA_OPT_BETA1, beta1, 0),
    LA__OC(LA_OPT_BETA2, beta2, 0),     LA__OC(LA_OPT_EPS, eps, 0),
    LA__OC(LA_OPT_WEIGHT_DECAY, weight_decay, 0),
    LA__OC(LA_OPT_DECOUPLED, decoupled, 1), LA__OC(LA_OPT_ALPHA, alpha, 0),
    LA__OC(LA_OPT_INITIAL, initial, 0),
    LA__OC(LA_OPT_HISTORY, history, 1), LA__OC(LA_OPT_MAX_ITER, max_iter, 1),
    LA__OC(LA_OPT_MAX_EVAL, max_eval, 1),
    LA__OC(LA_OPT_TOL_GRAD, tol_grad, 0),
    LA__OC(LA_OPT_TOL_CHANGE, tol_change, 0),
    LA__OC(LA_OPT_LINE_SEARCH, line_search, 1), LA__OC(LA_OPT_C1, c1, 0),
    LA__OC(LA_OPT_C2, c2, 0), LA__OC(LA_OPT_MAX_LS, max_ls, 1),
    LA__OC(LA_OPT_LR_AUX, lr_aux, 0),
    LA__OC(LA_OPT_PRECOND_EVERY, precond_every, 1),
    LA__OC(LA_OPT_GAMMA, gamma, 0), LA__OC(LA_OPT_HESSIAN, hessian, 1)};
#undef LA__OC
#define LA__OC_NFIELDS ((int)(sizeof la__oc_fields / sizeof la__oc_fields[0]))

/* What a zero field means, per built-in: each row below is written once,
   as a macro that both the optimizer's step (through la__X_dflt) and its
   registry row (an initializer needs a constant) use. Fields in
   order: lr, momentum, nesterov, beta1, beta2, eps, weight_decay,
   decoupled, alpha, initial, then L-BFGS's history, max_iter, max_eval,
   tol_grad, tol_change, line_search, c1, c2, max_ls (max_eval's 0 stays:
   its default follows max_iter), then muon's lr_aux, shampoo's, soap's
   and sophia's precond_every, sophia's gamma and hessian, and the model
   (never a default). */
#define LA__NO_LB 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL
#define LA__SGD_DFLT {0.01, 0, 0, 0, 0, 0, 0, 0, 0, 0, LA__NO_LB}
#define LA__ADAM_DFLT {1e-3, 0, 0, 0.9, 0.999, 1e-8, 0, 0, 0, 0, LA__NO_LB}
#define LA__SIGN_DFLT {1e-3, 0, 0, 0, 0, 0, 0, 0, 0, 0, LA__NO_LB}
#define LA__NSGD_DFLT {0.01, 0, 0, 0, 0, 0, 0, 0, 0, 0, LA__NO_LB}
#define LA__ADAGRAD_DFLT {0.01, 0, 0, 0, 0, 1e-10, 0, 0, 0, 0, LA__NO_LB}
#define LA__RMSPROP_DFLT {0.01, 0, 0, 0, 0, 1e-8, 0, 0, 0.99, 0, LA__NO_LB}
#define LA__LBFGS_DFLT                                                        \
  {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 20, 0, 1e-7, 1e-9, 0, 1e-4, 0.9, 25,  \
   0, 0, 0, 0, NULL}
#define LA__LION_DFLT {1e-4, 0, 0, 0.9, 0.99, 0, 0, 0, 0, 0, LA__NO_LB}
#define LA__SFADAMW_DFLT                                                      \
  {0.0025, 0, 0, 0.9, 0.999, 1e-8, 0, 0, 0, 0, LA__NO_LB}
#define LA__MUON_DFLT                                                         \
  {0.02, 0.95, 0, 0.9, 0.95, 1e-10, 0, 0, 0, 0,                              \
   0, 0, 0, 0, 0, 0, 0, 0, 0, 3e-4, 0, 0, 0, NULL}
#define LA__ADAFACTOR_DFLT {1e-2, 0, 0, 0, 0, 1e-30, 0, 0, 0, 0, LA__NO_LB}
#define LA__SHAMPOO_DFLT                                                      \
  {0.01, 0, 0, 0, 0, 1e-4, 0, 0, 0, 0,                                       \
   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, NULL}
#define LA__SOAP_DFLT                                                         \
  {3e-3, 0, 0, 0.95, 0.95, 1e-8, 0, 0, 0, 0,                                 \
   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, NULL}
#define LA__SOPHIA_DFLT                                                       \
  {1e-4, 0, 0, 0.96, 0.99, 1e-12, 0, 0, 0, 0,                                \
   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0.01, LA_HESS_HUTCHINSON, NULL}
static const la_optim_config la__sgd_dflt = LA__SGD_DFLT;
static const la_optim_config la__adam_dflt = LA__ADAM_DFLT;
static const la_optim_config la__sign_dflt = LA__SIGN_DFLT;
static const la_optim_config la__nsgd_dflt = LA__NSGD_DFLT;
static const la_optim_config la__adagrad_dflt = LA__ADAGRAD_DFLT;
static const la_optim_config la__rmsprop_dflt = LA__RMSPROP_DFLT;
static const la_optim_config la__lbfgs_dflt = LA__LBFGS_DFLT;
static const la_optim_config la__lion_dflt = LA__LION_DFLT;
static const la_optim_config la__sfadamw_dflt = LA__SFADAMW_DFLT;
static const la_optim_config la__muon_dflt = LA__MUON_DFLT;
static const la_optim_config la__adafactor_dflt = LA__ADAFACTOR_DFLT;
static const la_optim_config la__shampoo_dflt = LA__SHAMPOO_DFLT;
static const la_optim_config la__soap_dflt = LA__SOAP_DFLT;
static const la_optim_config la__sophia_dflt = LA__SOPHIA_DFLT;

/* cfg (NULL: all zero) with the zero fields read as their defaults. */
static la_optim_config la__oc_get(const void *cfg, const la_optim_config *dflt) {
  la_optim_config c;
  if (cfg) c = *(const la_optim_config *)cfg;
  else memset(&c, 0, sizeof c);
  c.lr = la__op_or(c.lr, dflt->lr);
  c.momentum = la__op_or(c.momentum, dflt->momentum);
  c.beta1 = la__op_or(c.beta1, dflt->beta1);
  c.beta2 = la__op_or(c.beta2, dflt->beta2);
  c.eps = la__op_or(c.eps, dflt->eps);
  c.weight_decay = la__op_or(c.weight_decay, dflt->weight_decay);
  c.alpha = la__op_or(c.alpha, dflt->alpha);
  c.initial = la__op_or(c.initial, dflt->initial);
  c.history = c.history ? c.history : dflt->history;
  c.max_iter = c.max_iter ? c.max_iter : dflt->max_iter;
  c.max_eval = c.max_eval ? c.max_eval : dflt->max_eval;
  c.tol_grad = la__op_or(c.tol_grad, dflt->tol_grad);
  c.tol_change = la__op_or(c.tol_change, dflt->tol_change);
  c.c1 = la__op_or(c.c1, dflt->c1);
  c.c2 = la__op_or(c.c2, dflt->c2);
  c.max_ls = c.max_ls ? c.max_ls : dflt->max_ls;
  c.lr_aux = la__op_or(c.lr_aux, dflt->lr_aux);
  c.precond_every = c.precond_every ? c.precond_every : dflt->precond_every;
  c.gamma = la__op_or(c.gamma, dflt->gamma);
  c.hessian = c.hessian ? c.hessian : dflt->hessian;
  return c;
}

static int la__op_bad_lr(double lr) { return !(lr >= 0) || !la__finite(lr); }
static int la__op_bad_beta(double b) { return !(b >= 0 && b < 1); }
static int la__op_bad_nonneg(double x) {
  return !(x >= 0) || !la__finite(x);
}
/* The checks every built-in shares (fields it does not read are zero, and
   zero passes each test). */
static int la__oc_check(const la_optim_config *c) {
  if (la__op_bad_lr(c->lr) || la__op_bad_lr(c->lr_aux) ||
      la__op_bad_beta(c->momentum) ||
      la__op_bad_beta(c->beta1) || la__op_bad_beta(c->beta2) ||
      la__op_bad_beta(c->alpha) || la__op_bad_nonneg(c->eps) ||
      la__op_bad_nonneg(c->weight_decay) || la__op_bad_nonneg(c->initial) ||
      la__op_bad_nonneg(c->gamma))
    return LA_ERANGE;
  if (c->hessian < LA_HESS_HUTCHINSON || c->hessian > LA_HESS_GNB)
    return LA_ERANGE;
  if (c->nesterov && c->momentum == 0) return LA_ERANGE;
  if (c->precond_every < 0 || c->precond_every > (1 << 20)) return LA_ERANGE;
  return LA_OK;
}

static int la__op_zero_init(const void *c, int n, double *s) {
  (void)c;
  (void)n;
  (void)s;
  return LA_OK; /* the wrapper zeroes the state */
}

/* ---- SGD */

static int la__sgd_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__sgd_dflt);
  return la__oc_check(&r);
}
static size_t la__sgd_len(const void *c, int n) {
  return la__oc_get(c, &la__sgd_dflt).momentum > 0 ? (size_t)n : 0;
}
static int la__sgd_step(const void *c_, int n, double *b, double scale,
                        const la_real *th, const la_real *g, la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__sgd_dflt);
  double lr = c.lr * scale, mu = c.momentum;
  int i;
  for (i = 0; i < n; ++i) {
    double gi = la__op_gwd(g, th, c.weight_decay, i), d = gi;
    if (mu > 0) {
      b[i] = mu * b[i] + gi;
      d = c.nesterov ? gi + mu * b[i] : b[i];
    }
    u[i] = (la_real)(-lr * d);
  }
  return LA_OK;
}

/* ---- Adam / AdamW: state = [t, m(n), v(n)] */

static int la__adam_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__adam_dflt);
  return la__oc_check(&r);
}
static size_t la__adam_len(const void *c, int n) {
  (void)c;
  return 1 + 2 * (size_t)n;
}
static int la__adam_step(const void *c_, int n, double *s, double scale,
                         const la_real *th, const la_real *g, la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__adam_dflt);
  double lr = c.lr * scale, b1 = c.beta1, b2 = c.beta2, eps = c.eps;
  double wd = c.weight_decay, t = s[0] += 1, *m = s + 1, *v = s + 1 + n;
  double c1 = 1 - pow(b1, t), c2 = 1 - pow(b2, t);
  int i;
  for (i = 0; i < n; ++i) {
    double gi = c.decoupled ? (double)g[i] : la__op_gwd(g, th, wd, i);
    m[i] = b1 * m[i] + (1 - b1) * gi;
    v[i] = b2 * v[i] + (1 - b2) * gi * gi;
    u[i] = (la_real)(-lr * ((m[i] / c1) / (sqrt(v[i] / c2) + eps) +
                            (c.decoupled ? wd * (double)th[i] : 0.0)));
  }
  return LA_OK;
}

/* ---- sign descent and normalized SGD: state = b(n) with momentum */

static int la__sign_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__sign_dflt);
  return la__oc_check(&r);
}
static size_t la__sign_len(const void *c, int n) {
  return la__oc_get(c, &la__sign_dflt).momentum > 0 ? (size_t)n : 0;
}
/* The direction before normalization, into u (momentum folded in). */
static void la__sign_dir(const la_optim_config *c, int n, double *b,
                         const la_real *th, const la_real *g, la_real *u) {
  int i;
  for (i = 0; i < n; ++i) {
    double gi = la__op_gwd(g, th, c->weight_decay, i);
    if (c->momentum > 0) gi = b[i] = c->momentum * b[i] + gi;
    u[i] = (la_real)gi;
  }
}
static int la__sign_step(const void *c_, int n, double *b, double scale,
                         const la_real *th, const la_real *g, la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__sign_dflt);
  double lr = c.lr * scale;
  int i;
  la__sign_dir(&c, n, b, th, g, u);
  for (i = 0; i < n; ++i)
    u[i] = (la_real)(u[i] > 0 ? -lr : u[i] < 0 ? lr : 0.0);
  return LA_OK;
}
static int la__nsgd_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__nsgd_dflt);
  return la__oc_check(&r);
}
static int la__nsgd_step(const void *c_, int n, double *b, double scale,
                         const la_real *th, const la_real *g, la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__nsgd_dflt);
  double lr = c.lr * scale, nrm = 0;
  int i;
  la__sign_dir(&c, n, b, th, g, u);
  /* the norm of the double direction, not of its rounded copy in u */
  for (i = 0; i < n; ++i) {
    double di = c.momentum > 0 ? b[i] : (double)u[i];
    nrm += di * di;
  }
  nrm = sqrt(nrm);
  for (i = 0; i < n; ++i) {
    double di = c.momentum > 0 ? b[i] : (double)u[i];
    u[i] = (la_real)(nrm > 0 ? -lr * di / nrm : 0.0);
  }
  return LA_OK;
}

/* ---- Adagrad: state = G(n) */

static int la__adagrad_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__adagrad_dflt);
  return la__oc_check(&r);
}
static size_t la__adagrad_len(const void *c, int n) {
  (void)c;
  return (size_t)n;
}
static int la__adagrad_init(const void *c, int n, double *s) {
  double g0 = la__oc_get(c, &la__adagrad_dflt).initial;
  int i;
  for (i = 0; i < n; ++i) s[i] = g0;
  return LA_OK;
}
static int la__adagrad_step(const void *c_, int n, double *G, double scale,
                            const la_real *th, const la_real *g, la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__adagrad_dflt);
  double lr = c.lr * scale, eps = c.eps;
  int i;
  for (i = 0; i < n; ++i) {
    double gi = la__op_gwd(g, th, c.weight_decay, i);
    G[i] += gi * gi;
    u[i] = (la_real)(-lr * gi / (sqrt(G[i]) + eps));
  }
  return LA_OK;
}

/* ---- RMSprop: state = v(n), then b(n) with momentum */

static int la__rmsprop_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__rmsprop_dflt);
  return la__oc_check(&r);
}
static size_t la__rmsprop_len(const void *c, int n) {
  return (size_t)n * (la__oc_get(c, &la__rmsprop_dflt).momentum > 0 ? 2 : 1);
}
static int la__rmsprop_step(const void *c_, int n, double *v, double scale,
                            const la_real *th, const la_real *g, la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__rmsprop_dflt);
  double lr = c.lr * scale, a = c.alpha, eps = c.eps, mu = c.momentum;
  double *b = v + n;
  int i;
  for (i = 0; i < n; ++i) {
    double gi = la__op_gwd(g, th, c.weight_decay, i), si;
    v[i] = a * v[i] + (1 - a) * gi * gi;
    si = gi / (sqrt(v[i]) + eps);
    if (mu > 0) si = b[i] = mu * b[i] + si;
    u[i] = (la_real)(-lr * si);
  }
  return LA_OK;
}

/* ---- the pieces of theta a matrix optimizer sees: the model's blocks
   (offset, rows x cols), or all of theta as one vector without a model */

static int la__op_npieces(const la_optim_config *c, int n) {
  return c->model && c->model->nparams == n ? la__m_nblocks(c->model) : 1;
}
/* Piece i: its offset; *r x *k its shape (a vector: 1 x size). */
static int la__op_piece(const la_optim_config *c, int n, int i, int *r,
                        int *k) {
  if (!(c->model && c->model->nparams == n)) {
    *r = 1;
    *k = n;
    return 0;
  }
  return la_model_block_info(c->model, i, NULL, NULL, NULL, r, k);
}
/* A matrix the factored and orthogonalized updates act on. */
static int la__op_is_matrix(int r, int k) { return r > 1 && k > 1; }
/* The built-ins that see theta's matrices through the model. */
static int la__op_reads_model(const la_optimizer *o);
/* A model that does not describe theta: LA_ESHAPE. */
static int la__op_model_bad(const la_optim_config *c, int n) {
  return c->model && c->model->nparams != n;
}
/* What a walk does with piece r x k whose state starts `at` doubles into
   the pieces' part of the state: its length there (or 0). */
typedef size_t (*la__op_piece_fn)(void *ctx, int r, int k, size_t at);
/* f on each piece in order; the sum of what it returns. */
static size_t la__op_walk(const la_optim_config *c, int n, la__op_piece_fn f,
                          void *ctx) {
  size_t at = 0;
  int i, np = la__op_npieces(c, n), r, k;
  for (i = 0; i < np; ++i) {
    (void)la__op_piece(c, n, i, &r, &k);
    at += f(ctx, r, k, at);
  }
  return at;
}
/* A walk's largest matrix: its longer side, its size, and Muon's scratch
   for it. */
typedef struct la__op_most {
  int side, size;
  size_t muon;
} la__op_most;
static size_t la__op_most_piece(void *ctx, int r, int k, size_t at) {
  la__op_most *w = (la__op_most *)ctx;
  size_t a = (size_t)(r < k ? r : k), b = (size_t)(r < k ? k : r);
  (void)at;
  if (!la__op_is_matrix(r, k)) return 0;
  if (r > w->side) w->side = r;
  if (k > w->side) w->side = k;
  if (r * k > w->size) w->size = r * k;
  if (2 * a * b + 2 * a * a > w->muon) w->muon = 2 * a * b + 2 * a * a;
  return 0;
}
static la__op_most la__op_most_of(const la_optim_config *c, int n) {
  la__op_most w;
  memset(&w, 0, sizeof w);
  (void)la__op_walk(c, n, la__op_most_piece, &w);
  return w;
}

/* ---- Lion: state = m(n) */

static int la__lion_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__lion_dflt);
  return la__oc_check(&r);
}
static size_t la__lion_len(const void *c, int n) {
  (void)c;
  return (size_t)n;
}
static int la__lion_step(const void *c_, int n, double *m, double scale,
                         const la_real *th, const la_real *g, la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__lion_dflt);
  double lr = c.lr * scale, b1 = c.beta1, b2 = c.beta2, wd = c.weight_decay;
  int i;
  for (i = 0; i < n; ++i) {
    double gi = (double)g[i], ci = b1 * m[i] + (1 - b1) * gi;
    double sg = ci > 0 ? 1.0 : ci < 0 ? -1.0 : 0.0;
    u[i] = (la_real)(-lr * (sg + wd * (double)th[i]));
    m[i] = b2 * m[i] + (1 - b2) * gi;
  }
  return LA_OK;
}

/* ---- schedule-free AdamW: state = [t, max lr_t, sum of weights, z(n),
   v(n)]; theta is y (x = (y - (1 - beta1) z) / beta1 is implied) */

enum { LA__SF_T, LA__SF_LRMAX, LA__SF_WSUM, LA__SF_HDR };
static int la__sfadamw_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__sfadamw_dflt);
  return la__oc_check(&r);
}
static size_t la__sfadamw_len(const void *c, int n) {
  (void)c;
  return LA__SF_HDR + 2 * (size_t)n;
}
static int la__sfadamw_step(const void *c_, int n, double *s, double scale,
                            const la_real *th, const la_real *g,
                            la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__sfadamw_dflt);
  double b1 = c.beta1, b2 = c.beta2, eps = c.eps, wd = c.weight_decay;
  double *z = s + LA__SF_HDR, *v = z + n, t, lr, w, ck, ylr;
  int i;
  if (s[LA__SF_T] == 0) /* z starts at theta */
    for (i = 0; i < n; ++i) z[i] = (double)th[i];
  t = s[LA__SF_T] += 1;
  lr = c.lr * scale * sqrt(1 - pow(b2, t));
  if (lr > s[LA__SF_LRMAX]) s[LA__SF_LRMAX] = lr;
  w = s[LA__SF_LRMAX] * s[LA__SF_LRMAX];
  s[LA__SF_WSUM] += w;
  ck = s[LA__SF_WSUM] > 0 ? w / s[LA__SF_WSUM] : 0.0;
  ylr = lr * (b1 * (1 - ck) - 1);
  for (i = 0; i < n; ++i) {
    double gi = (double)g[i], y = (double)th[i], gn;
    v[i] = b2 * v[i] + (1 - b2) * gi * gi;
    gn = gi / (sqrt(v[i]) + eps) + wd * y;
    /* y moves to (1 - c) y + c z, then along the step (the reference's
       form of y = (1 - beta1) z + beta1 x after z and x move) */
    u[i] = (la_real)(ck * (z[i] - y) + ylr * gn);
    z[i] -= lr * gn;
  }
  return LA_OK;
}

/* ---- Muon: state = [t, b(n), m(n), v(n), scratch of the largest
   matrix]; b the momentum of the matrices, m and v Adam's elsewhere.
   The scratch is zero between steps. */

static size_t la__muon_scratch(const la_optim_config *c, int n) {
  return la__op_most_of(c, n).muon;
}
static int la__muon_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__muon_dflt);
  return la__oc_check(&r);
}
static size_t la__muon_len(const void *c_, int n) {
  la_optim_config c = la__oc_get(c_, &la__muon_dflt);
  return 1 + 3 * (size_t)n + la__muon_scratch(&c, n);
}
/* X (a x b, a <= b, row-major) orthogonalized in place: five steps of
   X = 3.4445 X + (-4.7750 A + 2.0315 A A) X, A = X X^T, from X / (|X|_F +
   1e-7), every matrix held at la_real's precision (its products summed in
   double, as the reference runs in bfloat16). W holds a b + 2 a^2
   doubles. */
static void la__muon_ns(int a, int b, double *X, double *W) {
  double *A = W, *B = A + (size_t)a * a, *Y = B + (size_t)a * a, nrm = 0;
  int it, i, j, l;
  for (i = 0; i < a * b; ++i) nrm += X[i] * X[i];
  nrm = sqrt(nrm) + 1e-7;
  for (i = 0; i < a * b; ++i) X[i] = (double)(la_real)(X[i] / nrm);
  for (it = 0; it < 5; ++it) {
    for (i = 0; i < a; ++i)
      for (j = 0; j < a; ++j) {
        double acc = 0;
        for (l = 0; l < b; ++l) acc += X[i * b + l] * X[j * b + l];
        A[i * a + j] = (double)(la_real)acc;
      }
    for (i = 0; i < a; ++i)
      for (j = 0; j < a; ++j) {
        double acc = 0;
        for (l = 0; l < a; ++l) acc += A[i * a + l] * A[l * a + j];
        B[i * a + j] = (double)(la_real)(-4.7750 * A[i * a + j] + 2.0315 * acc);
      }
    for (i = 0; i < a; ++i)
      for (j = 0; j < b; ++j) {
        double acc = 0;
        for (l = 0; l < a; ++l) acc += B[i * a + l] * X[l * b + j];
        Y[i * b + j] = (double)(la_real)(3.4445 * X[i * b + j] + acc);
      }
    memcpy(X, Y, sizeof(double) * (size_t)a * (size_t)b);
  }
}
static int la__muon_step(const void *c_, int n, double *s, double scale,
                         const la_real *th, const la_real *g, la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__muon_dflt);
  double lr = c.lr * scale, la = c.lr_aux * scale, mu = c.momentum;
  double b1 = c.beta1, b2 = c.beta2, eps = c.eps, wd = c.weight_decay;
  double t, c1, c2, *bm = s + 1, *m = bm + n, *v = m + n, *X = v + n;
  size_t scr = la__muon_scratch(&c, n);
  int p, np = la__op_npieces(&c, n);
  if (la__op_model_bad(&c, n)) return LA_ESHAPE;
  t = s[0] += 1;
  c1 = 1 - pow(b1, t);
  c2 = 1 - pow(b2, t);
  for (p = 0; p < np; ++p) {
    int r, k, i, j, off = la__op_piece(&c, n, p, &r, &k);
    if (la__op_is_matrix(r, k)) {
      int tr = r > k, a = tr ? k : r, b = tr ? r : k;
      double f = sqrt(r > k ? (double)r / k : 1.0);
      for (i = 0; i < r; ++i)
        for (j = 0; j < k; ++j) {
          int q = off + i * k + j;
          double gi = (double)g[q];
          bm[q] = mu * bm[q] + (1 - mu) * gi;
          X[tr ? j * b + i : i * b + j] = (1 - mu) * gi + mu * bm[q];
        }
      la__muon_ns(a, b, X, X + (size_t)a * b);
      for (i = 0; i < r; ++i)
        for (j = 0; j < k; ++j) {
          int q = off + i * k + j;
          double o = X[tr ? j * b + i : i * b + j];
          u[q] = (la_real)(-lr * (f * o + wd * (double)th[q]));
        }
    } else {
      for (i = off; i < off + r * k; ++i) {
        double gi = (double)g[i];
        m[i] = b1 * m[i] + (1 - b1) * gi;
        v[i] = b2 * v[i] + (1 - b2) * gi * gi;
        u[i] = (la_real)(-la * ((m[i] / c1) / (sqrt(v[i] / c2) + eps) +
                                wd * (double)th[i]));
      }
    }
  }
  memset(X, 0, sizeof(double) * scr);
  return LA_OK;
}

/* ---- Adafactor: state = [t, m(n)], then per piece R(rows) and C(cols)
   for a matrix, v(size) for a vector */

static int la__adafactor_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__adafactor_dflt);
  return la__oc_check(&r);
}
/* A piece's factors: R and C for a matrix, v for a vector. */
static size_t la__adafactor_piece(void *ctx, int r, int k, size_t at) {
  (void)ctx;
  (void)at;
  return la__op_is_matrix(r, k) ? (size_t)r + (size_t)k : (size_t)r * k;
}
static size_t la__adafactor_len(const void *c_, int n) {
  la_optim_config c = la__oc_get(c_, &la__adafactor_dflt);
  return 1 + (size_t)n + la__op_walk(&c, n, la__adafactor_piece, NULL);
}
static int la__adafactor_step(const void *c_, int n, double *s, double scale,
                              const la_real *th, const la_real *g,
                              la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__adafactor_dflt);
  double t, rho, b2, e1 = c.eps, b1 = c.beta1, *m = s + 1, *f = m + n;
  int p, np = la__op_npieces(&c, n);
  if (la__op_model_bad(&c, n)) return LA_ESHAPE;
  t = s[0] += 1;
  rho = 1 / sqrt(t) < c.lr ? 1 / sqrt(t) : c.lr;
  b2 = 1 - pow(t, -0.8);
  for (p = 0; p < np; ++p) {
    int r, k, i, j, off = la__op_piece(&c, n, p, &r, &k), sz = r * k;
    int fac = la__op_is_matrix(r, k);
    double *R = f, *C = f + r, rsum = 0, ums = 0, xms = 0, alpha, d;
    /* the second moments */
    if (fac) {
      for (i = 0; i < r; ++i) {
        double acc = 0;
        for (j = 0; j < k; ++j) {
          double gi = (double)g[off + i * k + j];
          acc += gi * gi + e1;
        }
        R[i] = b2 * R[i] + (1 - b2) * acc;
        rsum += R[i];
      }
      for (j = 0; j < k; ++j) {
        double acc = 0;
        for (i = 0; i < r; ++i) {
          double gi = (double)g[off + i * k + j];
          acc += gi * gi + e1;
        }
        C[j] = b2 * C[j] + (1 - b2) * acc;
      }
    } else {
      for (i = 0; i < sz; ++i) {
        double gi = (double)g[off + i];
        f[i] = b2 * f[i] + (1 - b2) * (gi * gi + e1);
      }
    }
    /* U's and the parameters' mean squares */
    for (i = 0; i < sz; ++i) {
      double vi = fac ? R[i / k] * C[i % k] / rsum : f[i];
      double ui = (double)g[off + i] / sqrt(vi), x = (double)th[off + i];
      ums += ui * ui;
      xms += x * x;
    }
    d = sqrt(ums / sz);
    d = d > 1 ? d : 1;
    xms = sqrt(xms / sz);
    alpha = scale * (xms > 1e-3 ? xms : 1e-3) * rho;
    for (i = 0; i < sz; ++i) {
      double vi = fac ? R[i / k] * C[i % k] / rsum : f[i];
      double ui = (double)g[off + i] / sqrt(vi) / d;
      if (b1 > 0) ui = m[off + i] = b1 * m[off + i] + (1 - b1) * ui;
      u[off + i] = (la_real)(-alpha * ui);
    }
    f += fac ? r + k : sz;
  }
  return LA_OK;
}

/* ---- helpers of the preconditioned optimizers (Shampoo, SOAP) */

/* C (m x n) = op(A) op(B), op(X) = X or X^T, every matrix row-major and
   dense; the inner dimension is k. */
static void la__op_mm(int m, int n, int k, const double *A, int ta,
                      const double *B, int tb, double *C) {
  int i, j, l;
  for (i = 0; i < m; ++i)
    for (j = 0; j < n; ++j) {
      double acc = 0;
      for (l = 0; l < k; ++l)
        acc += (ta ? A[l * m + i] : A[i * k + l]) *
               (tb ? B[j * k + l] : B[l * n + j]);
      C[i * n + j] = acc;
    }
}
/* Doubles of la_sym_eig's workspace for n, with room to align it. */
static size_t la__op_eig_doubles(int n) {
  return la_sym_eig_work_bytes(n) / sizeof(double) + 2 + LA_ALIGN / 8;
}
/* The eigenvalues (ascending, into w) and eigenvectors (rows of E) of the
   symmetric n x n S, through the scratch a (n^2) and work (eig_doubles). */
static int la__op_eigh(int n, const double *S, double *w, double *E,
                       double *a, double *work) {
  memcpy(a, S, sizeof(double) * (size_t)n * (size_t)n);
  return la_sym_eig(n, a, w, E, work, la__op_eig_doubles(n) * sizeof(double));
}
/* The largest matrix side among the pieces, and the largest piece. */
static void la__op_sides(const la_optim_config *c, int n, int *side,
                         int *size) {
  la__op_most w = la__op_most_of(c, n);
  *side = w.side;
  *size = w.size;
}

/* ---- Shampoo: state = [t], per matrix L (r^2), R (k^2) and their inverse
   fourth roots (r^2, k^2), per vector its sum of squares; then scratch */

static int la__shampoo_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__shampoo_dflt);
  if (!(r.eps > 0)) return LA_ERANGE; /* L and R start at eps I */
  return la__oc_check(&r);
}
static size_t la__shampoo_scratch(const la_optim_config *c, int n) {
  int side, size;
  la__op_sides(c, n, &side, &size);
  return side ? la__op_eig_doubles(side) + 3 * (size_t)side * side + side +
                    (size_t)size
              : 0;
}
/* A piece's state: L, R and their roots for a matrix, the sum of squares
   for a vector; with ctx (la__op_init) L and R start at eps I, the sums
   at eps. */
typedef struct la__op_init {
  double *f; /* the pieces' part of the state */
  double eps;
} la__op_init;
static size_t la__shampoo_piece(void *ctx, int r, int k, size_t at) {
  la__op_init *w = (la__op_init *)ctx;
  int i;
  if (w && la__op_is_matrix(r, k)) {
    for (i = 0; i < r; ++i) w->f[at + (size_t)(i * r + i)] = w->eps;
    for (i = 0; i < k; ++i) w->f[at + (size_t)(r * r + i * k + i)] = w->eps;
  } else if (w) {
    for (i = 0; i < r * k; ++i) w->f[at + (size_t)i] = w->eps;
  }
  return la__op_is_matrix(r, k) ? 2 * ((size_t)r * r + (size_t)k * k)
                                : (size_t)r * k;
}
static size_t la__shampoo_len(const void *c_, int n) {
  la_optim_config c = la__oc_get(c_, &la__shampoo_dflt);
  return 1 + la__op_walk(&c, n, la__shampoo_piece, NULL) +
         la__shampoo_scratch(&c, n);
}
static int la__shampoo_init(const void *c_, int n, double *s) {
  la_optim_config c = la__oc_get(c_, &la__shampoo_dflt);
  la__op_init w;
  w.f = s + 1;
  w.eps = c.eps;
  (void)la__op_walk(&c, n, la__shampoo_piece, &w);
  return LA_OK;
}
/* P = S^(-1/4) (S symmetric positive definite; eigenvalues below eps, from
   rounding, read as eps). */
static int la__shampoo_root(int n, const double *S, double *P, double eps,
                            double *scr) {
  double *w = scr, *E = w + n, *a = E + (size_t)n * n, *wk = a + (size_t)n * n;
  int i, j, l, st = la__op_eigh(n, S, w, E, a, wk);
  if (st) return st;
  for (i = 0; i < n; ++i) w[i] = pow(w[i] > eps ? w[i] : eps, -0.25);
  for (i = 0; i < n; ++i)
    for (j = 0; j < n; ++j) {
      double acc = 0;
      for (l = 0; l < n; ++l) acc += E[l * n + i] * w[l] * E[l * n + j];
      P[i * n + j] = acc;
    }
  return LA_OK;
}
static int la__shampoo_step(const void *c_, int n, double *s, double scale,
                            const la_real *th, const la_real *g,
                            la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__shampoo_dflt);
  double lr = c.lr * scale, *f = s + 1, t, *scr;
  size_t len = la__shampoo_len(c_, n), nscr = la__shampoo_scratch(&c, n);
  int p, np = la__op_npieces(&c, n), st = LA_OK, side, size;
  (void)th;
  if (la__op_model_bad(&c, n)) return LA_ESHAPE;
  scr = s + len - nscr;
  la__op_sides(&c, n, &side, &size);
  t = s[0] += 1;
  for (p = 0; p < np && !st; ++p) {
    int r, k, i, j, off = la__op_piece(&c, n, p, &r, &k);
    if (la__op_is_matrix(r, k)) {
      double *L = f, *R = L + r * r, *PL = R + k * k, *PR = PL + r * r;
      double *G = scr, *T = G + size, *rs = T + (size_t)side * side;
      for (i = 0; i < r * k; ++i) G[i] = (double)g[off + i];
      la__op_mm(r, r, k, G, 0, G, 1, T); /* G G^T */
      for (i = 0; i < r * r; ++i) L[i] += T[i];
      la__op_mm(k, k, r, G, 1, G, 0, T); /* G^T G */
      for (i = 0; i < k * k; ++i) R[i] += T[i];
      if (fmod(t - 1, (double)c.precond_every) == 0) {
        st = la__shampoo_root(r, L, PL, c.eps, rs);
        if (!st) st = la__shampoo_root(k, R, PR, c.eps, rs);
      }
      la__op_mm(r, k, r, PL, 0, G, 0, T);  /* PL G */
      la__op_mm(r, k, k, T, 0, PR, 0, G);  /* (PL G) PR */
      for (i = 0; i < r; ++i)
        for (j = 0; j < k; ++j)
          u[off + i * k + j] = (la_real)(-lr * G[i * k + j]);
      f += 2 * (r * r + k * k);
    } else {
      for (i = 0; i < r * k; ++i) {
        double gi = (double)g[off + i];
        f[i] += gi * gi;
        u[off + i] = (la_real)(-lr * gi / sqrt(f[i]));
      }
      f += r * k;
    }
  }
  memset(scr, 0, sizeof(double) * nscr);
  return st;
}

/* ---- SOAP: state = [t], per matrix L (r^2), R (k^2), their eigenvectors
   E_L (r^2), E_R (k^2) as rows, Adam's M and V (r k each, M in the
   parameters' basis, V in the eigenbasis), per vector Adam's m and v;
   then scratch */

static int la__soap_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__soap_dflt);
  return la__oc_check(&r);
}
static size_t la__soap_scratch(const la_optim_config *c, int n) {
  int side, size;
  la__op_sides(c, n, &side, &size);
  return side ? la__op_eig_doubles(side) + 2 * (size_t)side * side + side +
                    2 * (size_t)size
              : 0;
}
/* A piece's state: L, R, E_L, E_R, M and V for a matrix, m and v for a
   vector; with ctx (la__op_init) the eigenbases start as the identity:
   Adam until the first update. */
static size_t la__soap_piece(void *ctx, int r, int k, size_t at) {
  la__op_init *w = (la__op_init *)ctx;
  int i;
  if (!la__op_is_matrix(r, k)) return 2 * (size_t)r * k;
  if (w) {
    double *EL = w->f + at + r * r + k * k, *ER = EL + r * r;
    for (i = 0; i < r; ++i) EL[i * r + i] = 1;
    for (i = 0; i < k; ++i) ER[i * k + i] = 1;
  }
  return 2 * ((size_t)r * r + (size_t)k * k) + 2 * (size_t)r * k;
}
static size_t la__soap_len(const void *c_, int n) {
  la_optim_config c = la__oc_get(c_, &la__soap_dflt);
  return 1 + la__op_walk(&c, n, la__soap_piece, NULL) +
         la__soap_scratch(&c, n);
}
static int la__soap_init(const void *c_, int n, double *s) {
  la_optim_config c = la__oc_get(c_, &la__soap_dflt);
  la__op_init w;
  w.f = s + 1;
  w.eps = 0;
  (void)la__op_walk(&c, n, la__soap_piece, &w);
  return LA_OK;
}
static int la__soap_step(const void *c_, int n, double *s, double scale,
                         const la_real *th, const la_real *g, la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__soap_dflt);
  double lr = c.lr * scale, b1 = c.beta1, b2 = c.beta2, eps = c.eps;
  double *f = s + 1, t, c1, c2, *scr;
  size_t len = la__soap_len(c_, n), nscr = la__soap_scratch(&c, n);
  int p, np = la__op_npieces(&c, n), st = LA_OK, side, size;
  (void)th;
  if (la__op_model_bad(&c, n)) return LA_ESHAPE;
  scr = s + len - nscr;
  la__op_sides(&c, n, &side, &size);
  t = s[0] += 1;
  c1 = 1 - pow(b1, t);
  c2 = 1 - pow(b2, t);
  for (p = 0; p < np && !st; ++p) {
    int r, k, i, off = la__op_piece(&c, n, p, &r, &k);
    if (la__op_is_matrix(r, k)) {
      double *L = f, *R = L + r * r, *EL = R + k * k, *ER = EL + r * r;
      double *M = ER + k * k, *V = M + r * k;
      double *G = scr, *A = G + size, *B = A + (size_t)side * side;
      double *w = B + size, *a = w + side, *wk = a + (size_t)side * side;
      for (i = 0; i < r * k; ++i) {
        G[i] = (double)g[off + i];
        M[i] = b1 * M[i] + (1 - b1) * G[i];
      }
      /* G' = E_L G E_R^T into B, then V */
      la__op_mm(r, k, r, EL, 0, G, 0, A);
      la__op_mm(r, k, k, A, 0, ER, 1, B);
      for (i = 0; i < r * k; ++i) V[i] = b2 * V[i] + (1 - b2) * B[i] * B[i];
      /* M' = E_L M E_R^T into B, N' in place, N = E_L^T N' E_R */
      la__op_mm(r, k, r, EL, 0, M, 0, A);
      la__op_mm(r, k, k, A, 0, ER, 1, B);
      for (i = 0; i < r * k; ++i) B[i] = (B[i] / c1) / (sqrt(V[i] / c2) + eps);
      la__op_mm(r, k, r, EL, 1, B, 0, A);
      la__op_mm(r, k, k, A, 0, ER, 0, B);
      for (i = 0; i < r * k; ++i) u[off + i] = (la_real)(-lr * B[i]);
      /* the preconditioners, and every precond_every steps their
         eigenbases */
      la__op_mm(r, r, k, G, 0, G, 1, A);
      for (i = 0; i < r * r; ++i) L[i] = b2 * L[i] + (1 - b2) * A[i];
      la__op_mm(k, k, r, G, 1, G, 0, A);
      for (i = 0; i < k * k; ++i) R[i] = b2 * R[i] + (1 - b2) * A[i];
      if (fmod(t, (double)c.precond_every) == 0) {
        st = la__op_eigh(r, L, w, EL, a, wk);
        if (!st) st = la__op_eigh(k, R, w, ER, a, wk);
      }
      f += 2 * (r * r + k * k) + 2 * r * k;
    } else {
      double *m = f, *v = f + r * k;
      for (i = 0; i < r * k; ++i) {
        double gi = (double)g[off + i];
        m[i] = b1 * m[i] + (1 - b1) * gi;
        v[i] = b2 * v[i] + (1 - b2) * gi * gi;
        u[off + i] = (la_real)(-lr * ((m[i] / c1) / (sqrt(v[i] / c2) + eps)));
      }
      f += 2 * r * k;
    }
  }
  memset(scr, 0, sizeof(double) * nscr);
  return st;
}

/* ---- Sophia: state = [t, the estimates' stream position, m(n), h(n),
   h_hat(n)]; h_hat is where the caller writes the step's estimate (zero
   between steps) */

enum { LA__SO_T, LA__SO_POS, LA__SO_HDR };
static int la__sophia_check(const void *c) {
  la_optim_config r = la__oc_get(c, &la__sophia_dflt);
  if (!(r.eps > 0)) return LA_ERANGE; /* max(gamma h, eps) divides */
  return la__oc_check(&r);
}
static size_t la__sophia_len(const void *c, int n) {
  (void)c;
  return LA__SO_HDR + 3 * (size_t)n;
}
/* Whether the step after t steps renews h: steps 1, 1 + k, 1 + 2k, .. */
static int la__sophia_renews(const la_optim_config *c, double t) {
  return fmod(t, (double)c->precond_every) == 0;
}
static int la__sophia_curvature(const void *c_, int n, double *s,
                                la_curvature *req) {
  la_optim_config c = la__oc_get(c_, &la__sophia_dflt);
  req->estimator = c.hessian;
  req->position = s + LA__SO_POS;
  req->want = la__sophia_renews(&c, s[LA__SO_T])
                  ? s + LA__SO_HDR + 2 * (size_t)n
                  : NULL;
  return LA_OK;
}
static int la__sophia_step(const void *c_, int n, double *s, double scale,
                           const la_real *th, const la_real *g, la_real *u) {
  la_optim_config c = la__oc_get(c_, &la__sophia_dflt);
  double lr = c.lr * scale, b1 = c.beta1, b2 = c.beta2, eps = c.eps;
  double *m = s + LA__SO_HDR, *h = m + n, *hh = h + n;
  int i, renew = la__sophia_renews(&c, s[LA__SO_T]);
  s[LA__SO_T] += 1;
  for (i = 0; i < n; ++i) {
    double den, r;
    if (renew) h[i] = b2 * h[i] + (1 - b2) * hh[i];
    hh[i] = 0;
    m[i] = b1 * m[i] + (1 - b1) * (double)g[i];
    den = c.gamma * h[i];
    den = den > eps ? den : eps;
    r = m[i] / den;
    r = r > 1 ? 1 : r < -1 ? -1 : r;
    u[i] = (la_real)(-lr * (c.weight_decay * (double)th[i] + r));
  }
  return LA_OK;
}

static const la_optimizer la__opt_sgd = {"sgd", la__sgd_check, la__sgd_len,
                                         la__op_zero_init, la__sgd_step};
static const la_optimizer la__opt_adam = {"adam", la__adam_check, la__adam_len,
                                          la__op_zero_init, la__adam_step};
static const la_optimizer la__opt_sign = {"sign", la__sign_check, la__sign_len,
                                          la__op_zero_init, la__sign_step};
static const la_optimizer la__opt_nsgd = {"nsgd", la__nsgd_check, la__sign_len,
                                          la__op_zero_init, la__nsgd_step};
static const la_optimizer la__opt_adagrad = {"adagrad", la__adagrad_check,
                                             la__adagrad_len, la__adagrad_init,
                                             la__adagrad_step};
static const la_optimizer la__opt_rmsprop = {"rmsprop", la__rmsprop_check,
                                             la__rmsprop_len, la__op_zero_init,
                                             la__rmsprop_step};
static const la_optimizer la__opt_lion = {"lion", la__lion_check, la__lion_len,
                                          la__op_zero_init, la__lion_step};
static const la_optimizer la__opt_sfadamw = {"sfadamw", la__sfadamw_check,
                                             la__sfadamw_len, la__op_zero_init,
                                             la__sfadamw_step};
static const la_optimizer la__opt_muon = {"muon", la__muon_check, la__muon_len,
                                          la__op_zero_init, la__muon_step};
static const la_optimizer la__opt_adafactor = {
    "adafactor", la__adafactor_check, la__adafactor_len, la__op_zero_init,
    la__adafactor_step};
static const la_optimizer la__opt_shampoo = {"shampoo", la__shampoo_check,
                                             la__shampoo_len, la__shampoo_init,
                                             la__shampoo_step};
static const la_optimizer la__opt_soap = {"soap", la__soap_check, la__soap_len,
                                          la__soap_init, la__soap_step};
static const la_optimizer la__opt_sophia = {"sophia", la__sophia_check,
                                            la__sophia_len, la__op_zero_init,
                                            la__sophia_step};

/* ---- L-BFGS: state = header, then d, g, the previous g, two line-search
   gradients (n each), the pairs s and y (history x n each, a ring), rho and
   the two-loop's alphas (history each). Every vector in double. */

enum {
  LA__LB_ITER,  /* inner iterations ever made */
  LA__LB_EVALS, /* closure evaluations ever made */
  LA__LB_T,     /* the last step length */
  LA__LB_HDIAG, /* H0 = hdiag I */
  LA__LB_LEN,   /* pairs held */
  LA__LB_HEAD,  /* ring index of the oldest pair */
  LA__LB_HDR = 8
};


/* The configuration resolved, and the views of one step. */
typedef struct la__lb {
  double lr, tol_grad, tol_change, c1, c2;
  int m, max_iter, max_eval, ls, max_ls, n;
  double *h, *d, *g, *pg, *ga, *gb, *S, *Y, *rho, *al;
  const la_closure *f;
  la_real *x, *xt, *gt; /* the current point, a trial point, its gradient */
  int evals;            /* this step's evaluations */
} la__lb;

/* c (NULL: all zero) with the registry row's defaults. */
static void la__lb_resolve(const void *c_, la__lb *s) {
  la_optim_config c = la__oc_get(c_, &la__lbfgs_dflt);
  s->lr = c.lr;
  s->m = c.history;
  s->max_iter = c.max_iter;
  s->max_eval = c.max_eval ? c.max_eval : c.max_iter * 5 / 4;
  s->tol_grad = c.tol_grad;
  s->tol_change = c.tol_change;
  s->ls = c.line_search;
  s->c1 = c.c1;
  s->c2 = c.c2;
  s->max_ls = c.max_ls;
}

static int la__lbfgs_check(const void *c_) {
  la_optim_config c = la__oc_get(c_, &la__lbfgs_dflt);
  if (la__oc_check(&c) || la__op_bad_nonneg(c.tol_grad) ||
      la__op_bad_nonneg(c.tol_change))
    return LA_ERANGE;
  if (c.history < 0 || c.history > (1 << 20) || c.max_iter < 0 ||
      c.max_iter > (1 << 24) || c.max_eval < 0 || c.max_ls < 0 ||
      c.max_ls > 1000)
    return LA_ERANGE;
  if (c.line_search != LA_LS_NONE && c.line_search != LA_LS_STRONG_WOLFE)
    return LA_ERANGE;
  if (!(c.c1 > 0 && c.c1 < c.c2 && c.c2 < 1)) return LA_ERANGE;
  return LA_OK;
}

/* Saturates instead of wrapping: the trainer reports a state this long as
   LA_EOVERFLOW. */
static size_t la__lbfgs_len(const void *c, int n) {
  la__lb s;
  double len;
  la__lb_resolve(c, &s);
  len = (double)(int)LA__LB_HDR + 5.0 * n + 2.0 * s.m * (double)n + 2.0 * s.m;
  return len < (double)((size_t)-1) / 2 ? (size_t)len : (size_t)-1 / 2;
}

static void la__lb_views(la__lb *s, int n, double *st) {
  size_t m = (size_t)s->m, nn = (size_t)n;
  s->n = n;
  s->h = st;
  s->d = st + LA__LB_HDR;
  s->g = s->d + nn;
  s->pg = s->g + nn;
  s->ga = s->pg + nn;
  s->gb = s->ga + nn;
  s->S = s->gb + nn;
  s->Y = s->S + m * nn;
  s->rho = s->Y + m * nn;
  s->al = s->rho + m;
}

static double la__lb_dot(int n, const double *x, const double *y) {
  double a = 0;
  int i;
  for (i = 0; i < n; ++i) a += x[i] * y[i];
  return a;
}
static double la__lb_maxabs(int n, const double *x) {
  double a = 0;
  int i;
  for (i = 0; i < n; ++i) a = fabs(x[i]) > a ? fabs(x[i]) : a;
  return a;
}

/* Loss and gradient (into g, double) at x + t d, and the slope g.d. A
   point where the objective overflows is *ok = 0, for the line search to
   back away from; other failures are the closure's status. */
static int la__lb_eval(la__lb *s, double t, double *f, double *g,
                       double *gtd, int *ok) {
  int i, st;
  for (i = 0; i < s->n; ++i)
    s->xt[i] = (la_real)((double)s->x[i] + t * s->d[i]);
  st = s->f->eval(s->f->ctx, s->xt, f, s->gt);
  s->evals++;
  s->h[LA__LB_EVALS] += 1;
  *ok = st == LA_OK && la__finite(*f) && la__all_finite(s->n, s->gt);
  if (st && st != LA_EDIVERGED && st != LA_ENONFINITE) return st;
  for (i = 0; i < s->n; ++i) g[i] = *ok ? (double)s->gt[i] : 0.0;
  *gtd = *ok ? la__lb_dot(s->n, g, s->d) : 0.0;
  if (!*ok) *f = HUGE_VAL;
  return LA_OK;
}

/* The minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2),
   clamped to [lo, hi]; the midpoint when the cubic has none (or the data
   are not finite). Nocedal and Wright, eq. 3.59. */
static double la__lb_cubic(double x1, double f1, double g1, double x2,
                           double f2, double g2, double lo, double hi) {
  double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2), d2sq = d1 * d1 - g1 * g2;
  double d2, t;
  if (!(d2sq >= 0) || !la__finite(d2sq)) return (lo + hi) / 2;
  d2 = sqrt(d2sq);
  if (x1 <= x2)
    t = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2));
  else
    t = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  if (!la__finite(t)) return (lo + hi) / 2;
  return t < lo ? lo : t > hi ? hi : t;
}

/* One end of a bracket: a step length with its loss, slope and gradient. */
typedef struct la__lb_pt {
  double t, f, gtd;
  double *g;
} la__lb_pt;

static void la__lb_swap(la__lb_pt *a, la__lb_pt *b) {
  la__lb_pt c = *a;
  *a = *b;
  *b = c;
}

/* Strong-Wolfe line search from step t along d (Nocedal and Wright,
   algorithm 3.5, then 3.6's zoom). f0, s->g, gtd0 are at t = 0. On
   return *t, *f and s->g are at the accepted point (the best found when
   the budget ran out). */
static int la__lb_wolfe(la__lb *s, double *t, double *f, double gtd0) {
  la__lb_pt lo, hi, cur;
  double f0 = *f, dmax = la__lb_maxabs(s->n, s->d);
  int it = 0, ok, st, done = 0, insuf = 0, bracketed = 0;
  lo.t = 0; lo.f = f0; lo.gtd = gtd0; lo.g = s->ga;
  memcpy(lo.g, s->g, sizeof(double) * (size_t)s->n);
  cur.t = *t; cur.g = s->gb;
  hi = lo;
  /* bracketing: lo is the previous trial, cur the new one */
  while (it < s->max_ls) {
    if ((st = la__lb_eval(s, cur.t, &cur.f, cur.g, &cur.gtd, &ok)) != 0)
      return st;
    ++it;
    if (cur.f > f0 + s->c1 * cur.t * gtd0 || (it > 1 && cur.f >= lo.f)) {
      hi = cur; bracketed = 1;
      break;
    }
    if (fabs(cur.gtd) <= -s->c2 * gtd0) {
      lo = cur; done = 1;
      break;
    }
    if (cur.gtd >= 0) {
      hi = lo; lo = cur; bracketed = 1;
      break;
    }
    {
      double tn = la__lb_cubic(lo.t, lo.f, lo.gtd, cur.t, cur.f, cur.gtd,
                               cur.t + 0.01 * (cur.t - lo.t), cur.t * 10);
      double *spare = lo.g;
      lo = cur;
      cur.t = tn; cur.g = spare;
    }
  }
  /* out of budget while still extrapolating: lo, the last point
     evaluated, is the best */
  if (!bracketed) done = 1;
  /* zoom: lo has the lower loss; hi is the other end */
  cur.g = (lo.g == s->ga || hi.g == s->ga) ? (lo.g == s->gb || hi.g == s->gb)
                                                  ? s->g
                                                  : s->gb
                                            : s->ga;
  while (!done && it < s->max_ls) {
    double a = lo.t < hi.t ? lo.t : hi.t, b = lo.t < hi.t ? hi.t : lo.t;
    double w = b - a, eps = 0.1 * w, tn;
    if (w * dmax < s->tol_change) break;
    tn = la__lb_cubic(lo.t, lo.f, lo.gtd, hi.t, hi.f, hi.gtd, a, b);
    /* an interpolant that keeps landing at an end makes no progress:
       the second time, move it a tenth of the bracket inside */
    if (b - tn < eps || tn - a < eps) {
      if (insuf || tn >= b || tn <= a) {
        tn = fabs(tn - b) < fabs(tn - a) ? b - eps : a + eps;
        insuf = 0;
      } else {
        insuf = 1;
      }
    } else {
      insuf = 0;
    }
    cur.t = tn;
    if ((st = la__lb_eval(s, cur.t, &cur.f, cur.g, &cur.gtd, &ok)) != 0)
      return st;
    ++it;
    if (cur.f > f0 + s->c1 * cur.t * gtd0 || cur.f >= lo.f) {
      la__lb_swap(&hi, &cur); /* cur now holds the old hi's buffer */
    } else {
      if (fabs(cur.gtd) <= -s->c2 * gtd0) done = 1;
      else if (cur.gtd * (hi.t - lo.t) >= 0) la__lb_swap(&hi, &lo);
      la__lb_swap(&lo, &cur);
    }
  }
  *t = lo.t;
  *f = lo.f;
  if (lo.g != s->g) memcpy(s->g, lo.g, sizeof(double) * (size_t)s->n);
  return LA_OK;
}

/* The pair of the last move joins the history (if its curvature y.s is
   positive enough), then d = -H g by the two-loop recursion. */
static void la__lb_direction(la__lb *s) {
  int n = s->n, m = s->m, len = (int)s->h[LA__LB_LEN], i, j, k;
  int head = (int)s->h[LA__LB_HEAD];
  double t = s->h[LA__LB_T], ys = 0, yy = 0, *q = s->d;
  for (i = 0; i < n; ++i) {
    double y = s->g[i] - s->pg[i];
    ys += y * s->d[i] * t;
    yy += y * y;
  }
  if (ys > 1e-10) {
    double *sk, *yk;
    if (len == m) { /* drop the oldest */
      head = (head + 1) % m;
      --len;
    }
    k = (head + len) % m;
    sk = s->S + (size_t)k * n;
    yk = s->Y + (size_t)k * n;
    for (i = 0; i < n; ++i) {
      sk[i] = s->d[i] * t;
      yk[i] = s->g[i] - s->pg[i];
    }
    s->rho[k] = 1 / ys;
    s->h[LA__LB_HDIAG] = ys / yy;
    ++len;
    s->h[LA__LB_LEN] = len;
    s->h[LA__LB_HEAD] = head;
  }
  for (i = 0; i < n; ++i) q[i] = -s->g[i];
  for (j = len - 1; j >= 0; --j) {
    const double *sk, *yk;
    k = (head + j) % m;
    sk = s->S + (size_t)k * n;
    yk = s->Y + (size_t)k * n;
    s->al[k] = s->rho[k] * la__lb_dot(n, sk, q);
    for (i = 0; i < n; ++i) q[i] -= s->al[k] * yk[i];
  }
  for (i = 0; i < n; ++i) q[i] *= s->h[LA__LB_HDIAG];
  for (j = 0; j < len; ++j) {
    const double *sk, *yk;
    double be;
    k = (head + j) % m;
    sk = s->S + (size_t)k * n;
    yk = s->Y + (size_t)k * n;
    be = s->rho[k] * la__lb_dot(n, yk, q);
    for (i = 0; i < n; ++i) q[i] += (s->al[k] - be) * sk[i];
  }
}

/* x <- x + t d, rounded as the trial points are. */
static void la__lb_move(la__lb *s, double t) {
  int i;
  for (i = 0; i < s->n; ++i)
    s->x[i] = (la_real)((double)s->x[i] + t * s->d[i]);
}

/* One inner iteration's move from x with direction d and slope gtd: the
   line search's step, or lr's with a fresh evaluation unless it is the
   step's last iteration. *f and s->g follow x. */
static int la__lb_advance(la__lb *s, double *t, double *f, double gtd,
                          int last) {
  int st, i;
  if (s->ls == LA_LS_STRONG_WOLFE) {
    if ((st = la__lb_wolfe(s, t, f, gtd)) != 0) return st;
    la__lb_move(s, *t);
    return LA_OK;
  }
  la__lb_move(s, *t);
  if (last) return LA_OK;
  for (i = 0; i < s->n; ++i) s->xt[i] = s->x[i];
  st = s->f->eval(s->f->ctx, s->xt, f, s->gt);
  s->evals++;
  s->h[LA__LB_EVALS] += 1;
  if (st) return st;
  if (!la__finite(*f) || !la__all_finite(s->n, s->gt))
    return LA_EDIVERGED;
  for (i = 0; i < s->n; ++i) s->g[i] = (double)s->gt[i];
  return LA_OK;
}

static int la__lbfgs_step(const void *c_, int n, double *state, double scale,
                          double loss, const la_real *theta,
                          const la_real *grad, la_real *u,
                          const la_closure *f) {
  la__lb s;
  double t = 0, f_prev;
  int i, it = 0, st = LA_OK;
  la__lb_resolve(c_, &s);
  la__lb_views(&s, n, state);
  s.f = f;
  s.x = u;
  s.xt = f->work;
  s.gt = f->work + n;
  s.evals = 1; /* the loss and gradient given */
  s.lr *= scale;
  for (i = 0; i < n; ++i) {
    s.x[i] = theta[i];
    s.g[i] = (double)grad[i];
  }
  if (la__lb_maxabs(n, s.g) <= s.tol_grad) {
    for (i = 0; i < n; ++i) u[i] = 0;
    return LA_OK;
  }
  while (it < s.max_iter) {
    double gtd, gsum = 0;
    ++it;
    s.h[LA__LB_ITER] += 1;
    if (s.h[LA__LB_ITER] == 1) {
      for (i = 0; i < n; ++i) s.d[i] = -s.g[i];
      s.h[LA__LB_LEN] = s.h[LA__LB_HEAD] = 0;
      s.h[LA__LB_HDIAG] = 1;
    } else {
      la__lb_direction(&s);
    }
    memcpy(s.pg, s.g, sizeof(double) * (size_t)n);
    f_prev = loss;
    for (i = 0; i < n; ++i) gsum += fabs(s.g[i]);
    t = s.h[LA__LB_ITER] == 1 ? (gsum > 1 ? 1 / gsum : 1.0) * s.lr : s.lr;
    s.h[LA__LB_T] = t;
    gtd = la__lb_dot(n, s.g, s.d);
    if (gtd > -s.tol_change) break;
    if ((st = la__lb_advance(&s, &t, &loss, gtd, it == s.max_iter)) != 0)
      break;
    s.h[LA__LB_T] = t;
    if (it == s.max_iter || s.evals >= s.max_eval) break;
    if (la__lb_maxabs(n, s.g) <= s.tol_grad) break;
    if (la__lb_maxabs(n, s.d) * fabs(t) <= s.tol_change) break;
    if (fabs(loss - f_prev) < s.tol_change) break;
  }
  for (i = 0; i < n; ++i) u[i] = s.x[i] - theta[i];
  return st;
}

static const la_closure_optimizer la__opt_lbfgs = {
    {"lbfgs", la__lbfgs_check, la__lbfgs_len, la__op_zero_init,
     la_closure_step},
    la__lbfgs_step};

LINATTN_DEF const la_optimizer *la_optimizer_lbfgs(void) {
  return &la__opt_lbfgs.base;
}

/* ---- the states a step can reach (checkpoints hold files to them) */

/* A state to check, in memory (doubles) or in a checkpoint's bytes (little
   endian): a file is checked before anything of the trainer changes. */
typedef struct la__sview {
  const double *d;
  const unsigned char *le;
} la__sview;
static double la__sv_at(const la__sview *v, size_t i) {
  uint64_t u = 0;
  double x;
  int k;
  if (v->d) return v->d[i];
  if (!v->le) return NAN; /* not reached: a view holds one of the two */
  for (k = 7; k >= 0; --k) u = (u << 8) | v->le[8 * i + (size_t)k];
  memcpy(&x, &u, 8);
  return x;
}
/* Doubles [from, from + k) at least 0. */
static int la__sv_nonneg(const la__sview *v, size_t from, size_t k) {
  size_t i;
  for (i = from; i < from + k; ++i)
    if (!(la__sv_at(v, i) >= 0)) return 0;
  return 1;
}
/* A count: a whole number in [0, 2^53]. */
static int la__op_count(double x) {
  return x >= 0 && x <= 9007199254740992.0 && x == floor(x);
}
/* L-BFGS: its counts, the pairs held and the ring's head within the
   history, a positive H0 once iterating, positive rho of the pairs held. */
static int la__lbfgs_state_ok(const void *c, int n, const la__sview *v) {
  la__lb b;
  double m, len, head;
  size_t k, rho;
  la__lb_resolve(c, &b);
  m = (double)b.m;
  len = la__sv_at(v, LA__LB_LEN);
  head = la__sv_at(v, LA__LB_HEAD);
  if (!la__op_count(la__sv_at(v, LA__LB_ITER)) ||
      !la__op_count(la__sv_at(v, LA__LB_EVALS)) || !la__op_count(len) ||
      !la__op_count(head) || len > m || (m > 0 && head >= m) ||
      !(la__sv_at(v, LA__LB_HDIAG) > 0 || la__sv_at(v, LA__LB_ITER) == 0))
    return 0;
  rho = (size_t)LA__LB_HDR + (5 + 2 * (size_t)b.m) * (size_t)n;
  for (k = 0; k < (size_t)len; ++k)
    if (!(la__sv_at(v, rho + ((size_t)head + k) % (size_t)b.m) > 0)) return 0;
  return 1;
}
/* Whether the built-in optimizer o could have reached the state (len
   doubles, finite): Adam's step count a count and its second moments >= 0,
   Adagrad's sums and RMSprop's averages of squares >= 0, L-BFGS above;
   schedule-free AdamW's, Muon's, Adafactor's, Shampoo's, SOAP's and
   Sophia's step counts counts (Sophia's stream position too), their
   largest rate, sum of weights and second moments >= 0.
   Optimizers defined elsewhere: any finite state. */
static int la__optim_state_ok(const la_optimizer *o, const void *c, int n,
                              const la__sview *v, size_t len) {
  size_t nn = (size_t)n;
  if (o == la_optimizer_adam())
    return len == 1 + 2 * nn && la__op_count(la__sv_at(v, 0)) &&
           la__sv_nonneg(v, 1 + nn, nn);
  if (o == la_optimizer_adagrad()) return len == nn && la__sv_nonneg(v, 0, nn);
  if (o == la_optimizer_rmsprop()) return len >= nn && la__sv_nonneg(v, 0, nn);
  if (o == la_optimizer_lbfgs())
    return len == la__lbfgs_len(c, n) && la__lbfgs_state_ok(c, n, v);
  if (o == la_optimizer_sfadamw())
    return len == la__sfadamw_len(c, n) &&
           la__op_count(la__sv_at(v, LA__SF_T)) &&
           la__sv_nonneg(v, LA__SF_LRMAX, 2) &&
           la__sv_nonneg(v, LA__SF_HDR + nn, nn);
  if (o == la_optimizer_muon())
    return len == la__muon_len(c, n) && la__op_count(la__sv_at(v, 0)) &&
           la__sv_nonneg(v, 1 + 2 * nn, nn);
  if (o == la_optimizer_adafactor())
    return len == la__adafactor_len(c, n) && la__op_count(la__sv_at(v, 0)) &&
           la__sv_nonneg(v, 1 + nn, len - 1 - nn);
  if (o == la_optimizer_shampoo())
    return len == la__shampoo_len(c, n) && la__op_count(la__sv_at(v, 0));
  if (o == la_optimizer_soap())
    return len == la__soap_len(c, n) && la__op_count(la__sv_at(v, 0));
  if (o == la_optimizer_sophia())
    return len == la__sophia_len(c, n) &&
           la__op_count(la__sv_at(v, LA__SO_T)) &&
           la__op_count(la__sv_at(v, LA__SO_POS));
  return 1;
}

/* ---- the registry */

#define LA__OPT_SGD_FIELDS                                                    \
  (LA_OPT_LR | LA_OPT_MOMENTUM | LA_OPT_NESTEROV | LA_OPT_WEIGHT_DECAY)
#define LA__OPT_SIGN_FIELDS (LA_OPT_LR | LA_OPT_MOMENTUM | LA_OPT_WEIGHT_DECAY)
static const la_optim_entry la__optim_registry[] = {
    {&la__opt_sgd, LA__OPT_SGD_FIELDS, LA__SGD_DFLT,
     "SGD, with momentum and Nesterov momentum", NULL},
    {&la__opt_adam,
     LA_OPT_LR | LA_OPT_BETA1 | LA_OPT_BETA2 | LA_OPT_EPS |
         LA_OPT_WEIGHT_DECAY | LA_OPT_DECOUPLED,
     LA__ADAM_DFLT, "Adam with bias correction; AdamW with decoupled decay",
     NULL},
    {&la__opt_sign, LA__OPT_SIGN_FIELDS, LA__SIGN_DFLT,
     "sign descent on the (momentum) gradient", NULL},
    {&la__opt_nsgd, LA__OPT_SIGN_FIELDS, LA__NSGD_DFLT,
     "normalized SGD: the (momentum) gradient scaled to length lr", NULL},
    {&la__opt_adagrad,
     LA_OPT_LR | LA_OPT_EPS | LA_OPT_INITIAL | LA_OPT_WEIGHT_DECAY,
     LA__ADAGRAD_DFLT, "Adagrad", NULL},
    {&la__opt_rmsprop,
     LA_OPT_LR | LA_OPT_ALPHA | LA_OPT_EPS | LA_OPT_MOMENTUM |
         LA_OPT_WEIGHT_DECAY,
     LA__RMSPROP_DFLT, "RMSprop, with momentum", NULL},
    {&la__opt_lbfgs.base,
     LA_OPT_LR | LA_OPT_HISTORY | LA_OPT_MAX_ITER | LA_OPT_MAX_EVAL |
         LA_OPT_TOL_GRAD | LA_OPT_TOL_CHANGE | LA_OPT_LINE_SEARCH | LA_OPT_C1 |
         LA_OPT_C2 | LA_OPT_MAX_LS,
     LA__LBFGS_DFLT,
     "L-BFGS, evaluating again within a step; strong-Wolfe line search", NULL},
    {&la__opt_lion, LA_OPT_LR | LA_OPT_BETA1 | LA_OPT_BETA2 | LA_OPT_WEIGHT_DECAY,
     LA__LION_DFLT, "Lion: the sign of interpolated momentum", NULL},
    {&la__opt_sfadamw,
     LA_OPT_LR | LA_OPT_BETA1 | LA_OPT_BETA2 | LA_OPT_EPS | LA_OPT_WEIGHT_DECAY,
     LA__SFADAMW_DFLT, "schedule-free AdamW: theta is y, no schedule needed",
     NULL},
    {&la__opt_muon,
     LA_OPT_LR | LA_OPT_MOMENTUM | LA_OPT_BETA1 | LA_OPT_BETA2 | LA_OPT_EPS |
         LA_OPT_WEIGHT_DECAY | LA_OPT_LR_AUX,
     LA__MUON_DFLT,
     "Muon: Newton-Schulz orthogonalized momentum per matrix, Adam elsewhere",
     NULL},
    {&la__opt_adafactor, LA_OPT_LR | LA_OPT_BETA1 | LA_OPT_EPS,
     LA__ADAFACTOR_DFLT,
     "Adafactor: factored second moments per matrix, relative steps", NULL},
    {&la__opt_shampoo, LA_OPT_LR | LA_OPT_EPS | LA_OPT_PRECOND_EVERY,
     LA__SHAMPOO_DFLT,
     "Shampoo: L^-1/4 G R^-1/4 per matrix, roots every precond_every steps",
     NULL},
    {&la__opt_soap,
     LA_OPT_LR | LA_OPT_BETA1 | LA_OPT_BETA2 | LA_OPT_EPS | LA_OPT_PRECOND_EVERY,
     LA__SOAP_DFLT, "SOAP: Adam in Shampoo's eigenbasis, per matrix", NULL},
    {&la__opt_sophia,
     LA_OPT_LR | LA_OPT_BETA1 | LA_OPT_BETA2 | LA_OPT_EPS |
         LA_OPT_WEIGHT_DECAY | LA_OPT_PRECOND_EVERY | LA_OPT_GAMMA |
         LA_OPT_HESSIAN,
     LA__SOPHIA_DFLT,
     "Sophia: clipped momentum over the Hessian's diagonal, every k steps",
     la__sophia_curvature}};
#undef LA__OPT_SGD_FIELDS
#undef LA__OPT_SIGN_FIELDS
#define LA__OPT_COUNT                                                         \
  ((int)(sizeof la__optim_registry / sizeof la__optim_registry[0]))

LINATTN_DEF int la_optim_count(void) { return LA__OPT_COUNT; }

LINATTN_DEF const la_optim_entry *la_optim_entry_at(int i) {
  return i >= 0 && i < LA__OPT_COUNT ? &la__optim_registry[i] : NULL;
}

LINATTN_DEF const la_optim_entry *la_optim_find(const char *name) {
  int i;
  if (!name) return NULL;
  for (i = 0; i < LA__OPT_COUNT; ++i)
    if (!strcmp(la__optim_registry[i].optimizer->name, name))
      return &la__optim_registry[i];
  return NULL;
}

LINATTN_DEF const la_optim_entry *la_optim_entry_of(const la_optimizer *o) {
  int i;
  for (i = 0; i < LA__OPT_COUNT; ++i)
    if (la__optim_registry[i].optimizer == o) return &la__optim_registry[i];
  return NULL;
}

/* A field of c by its table row. */
static double *la__oc_real(la_optim_config *c, const la__oc_field *f) {
  return (double *)(void *)((char *)c + f->off);
}
static int *la__oc_int(la_optim_config *c, const la__oc_field *f) {
  return (int *)(void *)((char *)c + f->off);
}

/* A built-in given a field it does not read: the caller meant another. */
static int la__oc_foreign(const la_optim_entry *e, const void *cfg) {
  la_optim_config c;
  int i;
  if (!cfg) return 0;
  c = *(const la_optim_config *)cfg;
  for (i = 0; i < LA__OC_NFIELDS; ++i) {
    const la__oc_field *f = &la__oc_fields[i];
    if (e->fields & f->bit) continue;
    if (f->is_int ? *la__oc_int(&c, f) != 0 : *la__oc_real(&c, f) != 0)
      return 1;
  }
  return 0;
}

LINATTN_DEF int la_optim_resolve(const la_optim_entry *e,
                                 const la_optim_config *in,
                                 la_optim_config *out) {
  la_optim_config r, d;
  int i, st;
  if (!e || !in || !out) return LA_ENULL;
  if (la__oc_foreign(e, in)) return LA_ERANGE;
  if ((st = e->optimizer->check(in)) != 0) return st;
  r = la__oc_get(in, &e->defaults);
  d = e->defaults;
  /* a zero whose default is zero is +0, one whose default is not LA_ZERO:
     equal meanings, equal bits */
  for (i = 0; i < LA__OC_NFIELDS; ++i) {
    const la__oc_field *f = &la__oc_fields[i];
    double *x = la__oc_real(&r, f);
    if (f->is_int || *x != 0) continue;
    *x = *la__oc_real(&d, f) != 0 ? LA_ZERO : 0.0;
  }
  *out = r;
  return LA_OK;
}

/* The built-ins' accessors, one line each. */
#define LA__OPT_ACCESSOR(name)                                                 \
  LINATTN_DEF const la_optimizer *la_optimizer_##name(void) {                  \
    return &la__opt_##name;                                                    \
  }
LA__OPT_ACCESSOR(sgd)
LA__OPT_ACCESSOR(adam)
LA__OPT_ACCESSOR(sign)
LA__OPT_ACCESSOR(nsgd)
LA__OPT_ACCESSOR(adagrad)
LA__OPT_ACCESSOR(rmsprop)
LA__OPT_ACCESSOR(lion)
LA__OPT_ACCESSOR(sfadamw)
LA__OPT_ACCESSOR(muon)
LA__OPT_ACCESSOR(adafactor)
LA__OPT_ACCESSOR(shampoo)
LA__OPT_ACCESSOR(soap)
LA__OPT_ACCESSOR(sophia)
#undef LA__OPT_ACCESSOR
static int la__op_reads_model(const la_optimizer *o) {
  return o == &la__opt_muon || o == &la__opt_adafactor ||
         o == &la__opt_shampoo || o == &la__opt_soap;
}

/* ---- the checked entry points */

LINATTN_DEF int la_optim_check(const la_optimizer *o, const void *cfg) {
  if (!o || !o->check || !o->state_len || !o->init || !o->step || !o->name)
    return LA_ENULL;
  if (o->step == la_closure_step &&
      !((const la_closure_optimizer *)(const void *)o)->step)
    return LA_ENULL;
  /* checkpoints hold the name in LA_NAME_MAX bytes */
  if (strlen(o->name) > LA_NAME_MAX - 1) return LA_ERANGE;
  {
    const la_optim_entry *e = la_optim_entry_of(o);
    if (e && la__oc_foreign(e, cfg)) return LA_ERANGE;
  }
  return o->check(cfg);
}

LINATTN_DEF int la_optim_state_len(const la_optimizer *o, const void *cfg,
                                   int n, size_t *len) {
  int st = la_optim_check(o, cfg);
  if (st) return st;
  if (!len) return LA_ENULL;
  if (n <= 0) return LA_EDIM;
  *len = o->state_len(cfg, n);
  return LA_OK;
}

LINATTN_DEF int la_optim_init(const la_optimizer *o, const void *cfg, int n,
                              double *state, size_t len) {
  size_t need, i;
  int st = la_optim_state_len(o, cfg, n, &need);
  if (st) return st;
  if (len < need) return LA_EWORKSPACE;
  if (need && !state) return LA_ENULL;
  for (i = 0; i < need; ++i) state[i] = 0;
  return o->init(cfg, n, state);
}

LINATTN_DEF int la_optim_step(const la_optimizer *o, const void *cfg, int n,
                              double *state, size_t len, double lr_scale,
                              const la_real *grad, la_real *theta,
                              la_real *update) {
  size_t need;
  int i, st = la_optim_state_len(o, cfg, n, &need);
  if (st) return st;
  if (!grad || !theta || !update || (need && !state)) return LA_ENULL;
  if (len < need) return LA_EWORKSPACE;
  if (!(lr_scale >= 0) || !la__finite(lr_scale)) return LA_ERANGE;
  if (!la__all_finite(n, grad) || !la__all_finite(n, theta))
    return LA_ENONFINITE; /* a NaN theta would pass through the update */
  st = o->step(cfg, n, state, lr_scale, theta, grad, update);
  if (st) return st;
  if (!la__all_finite(n, update)) return LA_EDIVERGED;
  for (i = 0; i < n; ++i) theta[i] += update[i];
  return LA_OK;
}

/* ------------------------------------ optimizers that evaluate again */

LINATTN_DEF int la_closure_step(const void *cfg, int n, double *state,
                                double lr_scale, const la_real *theta,
                                const la_real *grad, la_real *update) {
  (void)cfg; (void)n; (void)state; (void)lr_scale;
  (void)theta; (void)grad; (void)update;
  return LA_EUNSUPPORTED;
}

/* The closure step of o, or NULL for a plain optimizer. */
static la_closure_step_fn la__op_closure_fn(const la_optimizer *o) {
  if (o->step != la_closure_step) return NULL;
  return ((const la_closure_optimizer *)(const void *)o)->step;
}

LINATTN_DEF int la_optim_step_closure(const la_optimizer *o, const void *cfg,
                                      int n, double *state, size_t len,
                                      double lr_scale, const la_closure *f,
                                      double loss, const la_real *grad,
                                      la_real *theta, la_real *update) {
  size_t need;
  la_closure_step_fn cs;
  int i, st = la_optim_state_len(o, cfg, n, &need);
  if (st) return st;
  cs = la__op_closure_fn(o);
  if (!cs)
    return la_optim_step(o, cfg, n, state, len, lr_scale, grad, theta, update);
  if (!grad || !theta || !update || (need && !state)) return LA_ENULL;
  if (!f || !f->eval || !f->work) return LA_ENULL;
  if (len < need) return LA_EWORKSPACE;
  if (!(lr_scale >= 0) || !la__finite(lr_scale)) return LA_ERANGE;
  if (!la__finite(loss) || !la__all_finite(n, grad) ||
      !la__all_finite(n, theta))
    return LA_ENONFINITE;
  st = cs(cfg, n, state, lr_scale, loss, theta, grad, update, f);
  if (st) return st;
  if (!la__all_finite(n, update)) return LA_EDIVERGED;
  for (i = 0; i < n; ++i) theta[i] += update[i];
  return LA_OK;
}

/* ---------------------------- optimizers that read the Hessian's diagonal */

LINATTN_DEF int la_optim_curvature(const la_optimizer *o, const void *cfg,
                                   int n, double *state, size_t len,
                                   la_curvature *req) {
  const la_optim_entry *e;
  size_t need;
  int st = la_optim_state_len(o, cfg, n, &need);
  if (st) return st;
  if (!req || (need && !state)) return LA_ENULL;
  if (len < need) return LA_EWORKSPACE;
  memset(req, 0, sizeof *req);
  e = la_optim_entry_of(o);
  return e && e->curvature ? e->curvature(cfg, n, state, req) : LA_OK;
}

/* ------------------------------------------------------------ clipping */

static double la__op_norm_d(int n, const la_real *x) {
  double s = 0, big = 0;
  int i;
  for (i = 0; i < n; ++i) s += (double)x[i] * x[i];
  if (s < 1e300 || s != s) return sqrt(s);
  /* doubles beyond 1e150 overflow their squares: scale by the largest */
  for (i = 0; i < n; ++i)
    if (fabs((double)x[i]) > big) big = fabs((double)x[i]);
  if (!la__finite(big)) return big; /* an infinite entry */
  for (s = 0, i = 0; i < n; ++i) {
    double q = (double)x[i] / big;
    s += q * q;
  }
  return big * sqrt(s);
}

static void la__op_clip(int n, la_real *g, double max_norm, double nrm) {
  int i;
  if (nrm > max_norm) {
    double f = max_norm / nrm;
    for (i = 0; i < n; ++i) g[i] = (la_real)(g[i] * f);
  }
}

LINATTN_DEF int la_clip_norm(int n, la_real *g, double max_norm, double *norm) {
  double nrm;
  if (!g) return LA_ENULL;
  if (n <= 0) return LA_EDIM;
  if (!(max_norm > 0) || !la__finite(max_norm)) return LA_ERANGE;
  nrm = la__op_norm_d(n, g);
  if (!la__finite(nrm)) return LA_ENONFINITE;
  la__op_clip(n, g, max_norm, nrm);
  if (norm) *norm = nrm;
  return LA_OK;
}

LINATTN_DEF int la_clip_blocks(int n, la_real *g, int nblocks,
                               const int *offsets, const int *sizes,
                               double max_norm) {
  int b;
  if (!g || !offsets || !sizes) return LA_ENULL;
  if (n <= 0 || nblocks <= 0) return LA_EDIM;
  if (!(max_norm > 0) || !la__finite(max_norm)) return LA_ERANGE;
  for (b = 0; b < nblocks; ++b)
    if (offsets[b] < 0 || sizes[b] <= 0 || sizes[b] > n - offsets[b])
      return LA_EDIM;
  if (!la__all_finite(n, g)) return LA_ENONFINITE;
  for (b = 0; b < nblocks; ++b)
    la__op_clip(sizes[b], g + offsets[b], max_norm,
                la__op_norm_d(sizes[b], g + offsets[b]));
  return LA_OK;
}

/* ----------------------------------------------------------- schedules */

LINATTN_DEF int la_schedule_check(const la_schedule *s) {
  if (!s) return LA_ENULL;
  if (s->warmup < 0) return LA_ERANGE;
  switch (s->kind) {
  case LA_SCHED_CONSTANT: return LA_OK;
  case LA_SCHED_HALVING:
    if (s->period < 0) return LA_ERANGE;
    if (s->decay != 0 && !(s->decay > 0 && s->decay < 1)) return LA_ERANGE;
    return LA_OK;
  case LA_SCHED_COSINE:
    if (s->total <= s->warmup) return LA_ERANGE;
    if (!(s->min_scale >= 0 && s->min_scale <= 1)) return LA_ERANGE;
    return LA_OK;
  default: return LA_ERANGE;
  }
}

LINATTN_DEF int la_schedule_scale(const la_schedule *s, long t, double *scale) {
  double f = 1;
  int st = la_schedule_check(s);
  if (st) return st;
  if (!scale) return LA_ENULL;
  if (t < 0) return LA_ERANGE;
  if (s->kind == LA_SCHED_HALVING) {
    long period = s->period ? s->period : LA_SCHED_PERIOD;
    /* NOLINTNEXTLINE(bugprone-integer-division): floor(t / period) */
    f = pow(s->decay != 0 ? s->decay : LA_SCHED_DECAY, (double)(t / period));
  } else if (s->kind == LA_SCHED_COSINE) {
    double p = (double)(t - s->warmup) / (double)(s->total - s->warmup);
    p = p < 0 ? 0 : p > 1 ? 1 : p;
    f = s->min_scale +
        (1 - s->min_scale) * 0.5 * (1 + cos(3.14159265358979323846 * p));
  }
  if (t < s->warmup) f *= (double)(t + 1) / (double)s->warmup;
  *scale = f;
  return LA_OK;
}

/* ================================================================== */
/*                           5. Diagnostics                           */
/* ================================================================== */

/* work == NULL, bytes == 0: allocate `need` (freed by la__work_end). */
static int la__work_begin(size_t need, void **work, size_t *bytes,
                          void **owned) {
  *owned = NULL;
  if (!*work && *bytes == 0) {
#ifndef LINATTN_NO_STDLIB
    *owned = la_alloc(need ? need : 1);
    if (!*owned) return LA_ENOMEM;
    *work = *owned;
    *bytes = need;
    return LA_OK;
#else
    return LA_ENULL;
#endif
  }
  if (!*work) return LA_ENULL;
  if (*bytes < need) return LA_EWORKSPACE;
  return LA_OK;
}
static void la__work_end(void *owned) {
#ifndef LINATTN_NO_STDLIB
  la_free(owned);
#else
  (void)owned;
#endif
}

/* (a + b) / 2, also where a + b would overflow */
static double la__midpoint(double a, double b) {
  double m = 0.5 * (a + b);
  return la__finite(m) ? m : 0.5 * a + 0.5 * b;
}

/* ------------------------------------------------- small dense tools */

static double la__ddot(int n, const double *x, const double *y) {
  double s = 0;
  int i;
  for (i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

/* The i-th double of a block that may start at any byte (a caller's
   workspace): moved through memcpy, one load or store where the target
   allows it. */
static double la__dget(const void *p, size_t i) {
  double v;
  memcpy(&v, (const unsigned char *)p + i * sizeof v, sizeof v);
  return v;
}
static void la__dput(void *p, size_t i, double v) {
  memcpy((unsigned char *)p + i * sizeof v, &v, sizeof v);
}

/* Heapsort, ascending, of the n doubles at x with an optional companion
   block c carried along (libc's qsort would do, but bare-metal builds lack
   it); both may start at any byte. */
static void la__swap2(void *x, void *c, int i, int j) {
  double t = la__dget(x, (size_t)i);
  la__dput(x, (size_t)i, la__dget(x, (size_t)j));
  la__dput(x, (size_t)j, t);
  if (c) {
    t = la__dget(c, (size_t)i);
    la__dput(c, (size_t)i, la__dget(c, (size_t)j));
    la__dput(c, (size_t)j, t);
  }
}
static void la__sift(void *x, void *c, int root, int end) {
  while (2 * root + 1 < end) {
    int child = 2 * root + 1;
    if (child + 1 < end &&
        la__dget(x, (size_t)child + 1) > la__dget(x, (size_t)child))
      child++;
    if (la__dget(x, (size_t)root) >= la__dget(x, (size_t)child)) return;
    la__swap2(x, c, root, child);
    root = child;
  }
}
static void la__sort(int n, void *x, void *c) {
  int i;
  for (i = n / 2 - 1; i >= 0; --i) la__sift(x, c, i, n);
  for (i = n - 1; i > 0; --i) {
    la__swap2(x, c, 0, i);
    la__sift(x, c, 0, i);
  }
}

/* ------------------------------------------- tridiagonal QL (tql2) */
#define LA__DEPS 1.1102230246251565e-16 /* 2^-53, double's unit roundoff */

/* The exponent e of the largest |x_i| (max = f 2^e, f in [0.5, 1)), or
   INT_MIN when every entry is zero. Scaling by 2^-e is exact, and brings
   the largest entry to [0.5, 1): away from overflow and underflow. */
static int la__max_exponent(size_t n, const double *x) {
  double mx = 0;
  size_t i;
  int ex;
  for (i = 0; i < n; ++i)
    if (fabs(x[i]) > mx) mx = fabs(x[i]);
  if (mx == 0) return INT_MIN;
  frexp(mx, &ex);
  return ex;
}

/* Multiplication by 2^ex as two factors, so that every |ex| up to 2100 is
   covered (2^ex itself is a double only up to |ex| = 1023): exact unless
   the product leaves the normal range. */
typedef struct la__pow2 {
  double f1, f2;
} la__pow2;
static la__pow2 la__pow2_of(int ex) {
  la__pow2 p;
  p.f1 = ldexp(1.0, ex / 2);
  p.f2 = ldexp(1.0, ex - ex / 2);
  return p;
}
static double la__pow2_mul(la__pow2 p, double x) { return x * p.f1 * p.f2; }

/* x *= 2^ex */
static void la__scale_pow2(size_t n, double *x, int ex) {
  la__pow2 p = la__pow2_of(ex);
  size_t i;
  for (i = 0; i < n; ++i) x[i] = la__pow2_mul(p, x[i]);
}

/* Where an unreduced block of T splits: e[m] is negligible next to its two
   diagonal neighbours (the relative test, which keeps small eigenvalues of
   graded blocks accurate) or next to the block's norm `bnorm` (the
   backward-stable test: T changes by at most eps ||T||). The second is what
   ends the iteration on an eigenvalue at the block's rounding level (zero
   rows, a cluster at zero): there the neighbours are themselves rounding,
   and the relative test would wait for an |e| no sweep can produce. */
static int la__negligible(double e, double d0, double d1, double bnorm) {
  return fabs(e) <= LA__DEPS * (fabs(d0) + fabs(d1)) ||
         fabs(e) <= LA__DEPS * bnorm;
}

/* max |d_i| + |e_i| over the unreduced block that starts at l: its norm to
   within a factor of 2, from l to the first exactly zero e. */
static double la__block_norm(int n, const double *d, const double *e, int l) {
  double b = 0;
  int m;
  for (m = l; m < n; ++m) {
    double r = fabs(d[m]) + fabs(e[m]);
    if (r > b) b = r;
    if (e[m] == 0) break;
  }
  return b;
}

/* Eigen-decomposition of the symmetric tridiagonal matrix with diagonal
   d[0..n-1] and off-diagonal e[0..n-2] (e[n-1] is scratch) by implicit QL
   with Wilkinson-like shifts. d receives the eigenvalues (unsorted). When zt
   is non-NULL its rows are vectors that the plane rotations are applied to:
   start from the identity to get the eigenvectors of T as rows, from Q^T
   to get those of Q T Q^T. T is scaled by a power of two to a largest entry
   in [0.5, 1) (exact: the iteration is homogeneous, so the rotations are
   the same) and the eigenvalues scaled back: entries near the largest
   double cannot overflow in the shifts. An eigenvalue beyond the largest
   double comes back infinite (the callers' LA_ERANGE). */
static int la__tql(int n, double *d, double *e, double *zt) {
  int l, m, i, k, iter, ex;
  if (n <= 0) return LA_OK;
  e[n - 1] = 0;
  ex = la__max_exponent((size_t)n, d);
  i = la__max_exponent((size_t)n - 1, e);
  if (i > ex) ex = i;
  if (ex == INT_MIN) return LA_OK; /* T = 0 */
  la__scale_pow2((size_t)n, d, -ex);
  la__scale_pow2((size_t)n - 1, e, -ex);
  for (l = 0; l < n; ++l) {
    iter = 0;
    for (;;) {
      double g, r, s, c, p, f, b, bn = la__block_norm(n, d, e, l);
      for (m = l; m < n - 1; ++m)
        if (la__negligible(e[m], d[m], d[m + 1], bn)) break;
      if (m == l) break;
      if (++iter > 60) return LA_ENOCONVERGE;
      g = (d[l + 1] - d[l]) / (2.0 * e[l]);
      r = hypot(g, 1.0);
      g = d[m] - d[l] + e[l] / (g + (g >= 0 ? r : -r));
      s = c = 1.0;
      p = 0.0;
      for (i = m - 1; i >= l; --i) {
        f = s * e[i];
        b = c * e[i];
        r = hypot(f, g);
        e[i + 1] = r;
        if (r == 0.0) { /* deflation in the middle of the sweep */
          d[i + 1] -= p;
          e[m] = 0.0;
          break;
        }
        s = f / r;
        c = g / r;
        g = d[i + 1] - p;
        r = (d[i] - g) * s + 2.0 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        if (zt) {
          double *zi = zt + (size_t)i * n, *zj = zi + n;
          for (k = 0; k < n; ++k) {
            f = zj[k];
            zj[k] = s * zi[k] + c * f;
            zi[k] = c * zi[k] - s * f;
          }
        }
      }
      if (r == 0.0 && i >= l) continue;
      d[l] -= p;
      e[l] = g;
      e[m] = 0.0;
    }
  }
  la__scale_pow2((size_t)n, d, ex);
  return LA_OK;
}

/* Sorts eigenvalues ascending, moving the rows of zt (order n x len). */
static void la__sort_pairs(int n, int len, double *w, double *zt) {
  int i, j, k;
  for (i = 0; i < n - 1; ++i) {
    int mi = i;
    for (j = i + 1; j < n; ++j)
      if (w[j] < w[mi]) mi = j;
    if (mi == i) continue;
    { double t = w[i]; w[i] = w[mi]; w[mi] = t; }
    if (zt)
      for (k = 0; k < len; ++k) {
        double t = zt[(size_t)i * len + k];
        zt[(size_t)i * len + k] = zt[(size_t)mi * len + k];
        zt[(size_t)mi * len + k] = t;
      }
  }
}

/* ------------------------------------- Householder tridiagonalization */
/* a = Q T Q^T: on return d, e hold T and qt (if non-NULL) holds Q^T.
   Step k reflects rows/columns k+1.. so that column k below the
   subdiagonal vanishes; v is the reflector, p = beta a v. */
static void la__tridiag(int n, double *a, double *d, double *e, double *qt,
                        double *v, double *p) {
  int i, j, k, ex;
  if (qt)
    for (i = 0; i < n; ++i)
      for (j = 0; j < n; ++j) qt[(size_t)i * n + j] = i == j;
  for (k = 0; k + 2 < n; ++k) {
    int len = n - k - 1;
    double xn = 0, tail = 0, alpha, beta, kk;
    const double *col = a + (size_t)(k + 1) * n + k; /* stride n */
    for (i = 0; i < len; ++i) v[i] = col[(size_t)i * n];
    /* the reflector is the same for any multiple of v: v is scaled (by a
       power of two, exactly) to a largest entry near 1, so that its
       squares neither underflow in a column of tiny entries nor overflow */
    ex = la__max_exponent((size_t)len - 1, v + 1);
    if (ex == INT_MIN) continue; /* already tridiagonal here */
    if (la__max_exponent(1, v) > ex) ex = la__max_exponent(1, v);
    la__scale_pow2((size_t)len, v, -ex);
    for (i = 1; i < len; ++i) tail += v[i] * v[i];
    xn = sqrt(tail + v[0] * v[0]);
    alpha = v[0] > 0 ? -xn : xn;
    v[0] -= alpha;
    beta = 2.0 / (tail + v[0] * v[0]);
    alpha = ldexp(alpha, ex);
    for (i = 0; i < len; ++i) {
      const double *row = a + (size_t)(k + 1 + i) * n + k + 1;
      p[i] = beta * la__ddot(len, row, v);
    }
    kk = 0.5 * beta * la__ddot(len, p, v);
    for (i = 0; i < len; ++i) p[i] -= kk * v[i]; /* p is now w */
    for (i = 0; i < len; ++i) {
      double *row = a + (size_t)(k + 1 + i) * n + k + 1;
      for (j = 0; j < len; ++j) row[j] -= v[i] * p[j] + p[i] * v[j];
    }
    for (i = 0; i < len; ++i)
      a[(size_t)(k + 1 + i) * n + k] = a[(size_t)k * n + k + 1 + i] = 0;
    a[(size_t)(k + 1) * n + k] = a[(size_t)k * n + k + 1] = alpha;
    if (qt) { /* Q^T <- H Q^T on rows k+1.. */
      for (j = 0; j < n; ++j) {
        double s = 0;
        for (i = 0; i < len; ++i) s += v[i] * qt[(size_t)(k + 1 + i) * n + j];
        s *= beta;
        for (i = 0; i < len; ++i) qt[(size_t)(k + 1 + i) * n + j] -= s * v[i];
      }
    }
  }
  for (i = 0; i < n; ++i) d[i] = a[(size_t)i * n + i];
  for (i = 0; i + 1 < n; ++i) e[i] = a[(size_t)(i + 1) * n + i];
  if (n > 0) e[n - 1] = 0;
}

static size_t la__sym_eig_walk(la__arena *a, int n, double **e, double **v,
                               double **p, double **qt) {
  *e = (double *)la__take(a, sizeof(double) * (size_t)n);
  *v = (double *)la__take(a, sizeof(double) * (size_t)n);
  *p = (double *)la__take(a, sizeof(double) * (size_t)n);
  *qt = (double *)la__take(a, sizeof(double) * (size_t)n * n);
  return la__arena_size(a);
}

LINATTN_DEF size_t la_sym_eig_work_bytes(int n) {
  la__arena a = la__arena_count();
  double *e, *v, *p, *qt;
  if (n <= 0 || n > 46340) return 0;
  if ((double)n * n * 8.0 > LA__WORK_MAX) return 0;
  return la__sym_eig_walk(&a, n, &e, &v, &p, &qt);
}

LINATTN_DEF int la_sym_eig(int n, double *a, double *w, double *vecs,
                           void *work, size_t bytes) {
  size_t need = la_sym_eig_work_bytes(n), i;
  void *owned;
  la__arena ar;
  double *e, *v, *p, *qt;
  int st, ex;
  if (!need) return n <= 0 || n > 46340 ? LA_EDIM : LA_EOVERFLOW;
  if (!a || !w) return LA_ENULL;
  for (i = 0; i < (size_t)n * n; ++i)
    if (!la__finite(a[i])) return LA_ENONFINITE;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  la__sym_eig_walk(&ar, n, &e, &v, &p, &qt);
  /* a scaled to a largest entry in [0.5, 1) (a power of two: exact), so
     that the reflectors' products cannot overflow; w scaled back */
  ex = la__max_exponent((size_t)n * n, a);
  if (ex == INT_MIN) ex = 0;
  la__scale_pow2((size_t)n * n, a, -ex);
  la__tridiag(n, a, w, e, vecs ? qt : NULL, v, p);
  st = la__tql(n, w, e, vecs ? qt : NULL);
  if (st == LA_OK) {
    la__scale_pow2((size_t)n, w, ex);
    for (i = 0; i < (size_t)n; ++i)
      if (!la__finite(w[i])) st = LA_ERANGE; /* beyond the largest double */
  }
  if (st == LA_OK) {
    la__sort_pairs(n, n, w, vecs ? qt : NULL);
    if (vecs) memcpy(vecs, qt, sizeof(double) * (size_t)n * n);
  }
  la__work_end(owned);
  return st;
}

/* ---------------------------------------------- dense from matvecs */

LINATTN_DEF size_t la_dense_from_matvec_work_bytes(int n) {
  la__arena a = la__arena_count();
  if (n <= 0 || n > 46340) return 0;
  la__take(&a, sizeof(la_real) * (size_t)n);
  la__take(&a, sizeof(la_real) * (size_t)n);
  return la__arena_size(&a);
}

/* ||H - H^T||_F of the products as they came: the operator is symmetric,
   so this is rounding alone (la_robust_cond's measure of it). Scaled as
   la__dnrm2, in two passes over the upper triangle. Only the pairs
   within one stage of the model count (la__hcols: the pairs across
   stages are formed once), and *pairs says how many. */
static int la__asym_pair(const la_model *m, int i, int j) {
  return la__m_stage(m, i) == la__m_stage(m, j);
}
static double la__asymmetry(int n, const double *h, const la_model *m,
                            double *pairs) {
  double mx = 0, s = 0, m1[1]; /* m1: an array, as la__max_exponent reads */
  int i, j, ex;
  la__pow2 p;
  *pairs = 0;
  for (i = 0; i < n; ++i)
    for (j = i + 1; j < n; ++j)
      if (la__asym_pair(m, i, j)) {
        double d = fabs(h[(size_t)i * n + j] - h[(size_t)j * n + i]);
        *pairs += 1;
        if (d > mx) mx = d;
      }
  m1[0] = mx;
  ex = la__max_exponent(1, m1);
  if (ex == INT_MIN) return 0;
  p = la__pow2_of(-ex);
  for (i = 0; i < n; ++i)
    for (j = i + 1; j < n; ++j)
      if (la__asym_pair(m, i, j)) {
        double d = la__pow2_mul(p, h[(size_t)i * n + j] - h[(size_t)j * n + i]);
        s += d * d;
      }
  return ldexp(sqrt(2 * s), ex);
}

LINATTN_DEF int la_dense_from_matvec(int n, la_matvec_fn f, void *ctx,
                                     double *h, void *work, size_t bytes) {
  size_t need = la_dense_from_matvec_work_bytes(n);
  void *owned;
  la__arena ar;
  la_real *x, *y;
  int i, j, st;
  if (!need) return LA_EDIM;
  if (!f || !h) return LA_ENULL;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  x = (la_real *)la__take(&ar, sizeof(la_real) * (size_t)n);
  y = (la_real *)la__take(&ar, sizeof(la_real) * (size_t)n);
  for (i = 0; i < n; ++i) x[i] = 0;
  for (j = 0; j < n && st == LA_OK; ++j) {
    x[j] = 1;
    st = f(ctx, n, x, y);
    if (st == LA_OK) st = la__all_finite(n, y) ? LA_OK : LA_ENONFINITE;
    for (i = 0; i < n && st == LA_OK; ++i) h[(size_t)i * n + j] = y[i];
    x[j] = 0;
  }
  /* the product is symmetric only up to rounding: average the halves */
  for (i = 0; i < n && st == LA_OK; ++i)
    for (j = i + 1; j < n; ++j) {
      double s = la__midpoint(h[(size_t)i * n + j], h[(size_t)j * n + i]);
      h[(size_t)i * n + j] = h[(size_t)j * n + i] = s;
    }
  la__work_end(owned);
  return st;
}

/* ---------------------------------------------------- Lanczos core */
/* The basis V (rows q_0..q_m), alpha, beta and the conversion buffers all
   live in one workspace. The recurrence is in double; only the operator
   sees la_real. */
/* An operator of either kind: a block one (fm) or k single products (f). */
typedef struct la__linop {
  la_matvec_fn f;
  la_matmat_fn fm;
  void *ctx;
} la__linop;

static la__linop la__linop_of(la_matvec_fn f, la_matmat_fn fm, void *ctx) {
  la__linop o;
  o.f = f; o.fm = fm; o.ctx = ctx;
  return o;
}

static int la__linop_apply(const la__linop *o, int n, int k, const la_real *x,
                        la_real *y) {
  int i, st = LA_OK;
  if (o->fm) return o->fm(o->ctx, n, k, x, y);
  for (i = 0; i < k && st == LA_OK; ++i)
    st = o->f(o->ctx, n, x + (size_t)i * n, y + (size_t)i * n);
  return st;
}

typedef struct la__lz {
  int n, m;
  la__linop op;
  double *V;           /* (m+1) x n */
  double *alpha, *beta; /* m each */
  double *h;           /* m+1: Gram-Schmidt coefficients */
  la_real *x, *y;      /* n each */
  int j;               /* steps done: T is j x j */
  int matvecs, restarts;
  int done;            /* a probe run in lockstep: no more steps */
  double anorm;        /* running estimate of ||A|| */
  la_rng rng;
} la__lz;

static void la__lz_walk(la__arena *a, la__lz *s, int n, int m) {
  s->n = n; s->m = m;
  s->V = (double *)la__take(a, sizeof(double) * (size_t)(m + 1) * n);
  s->alpha = (double *)la__take(a, sizeof(double) * (size_t)m);
  s->beta = (double *)la__take(a, sizeof(double) * (size_t)m);
  s->h = (double *)la__take(a, sizeof(double) * (size_t)(m + 1));
  s->x = (la_real *)la__take(a, sizeof(la_real) * (size_t)n);
  s->y = (la_real *)la__take(a, sizeof(la_real) * (size_t)n);
}

/* w -= V[0..rows) (V[0..rows) . w), twice: one pass of classical
   Gram-Schmidt loses orthogonality in proportion to the condition of the
   basis, the second restores it to rounding ("twice is enough"). */
static void la__orth2(la__lz *s, int rows, double *w) {
  int pass, i, k, n = s->n;
  for (pass = 0; pass < 2; ++pass) {
    for (i = 0; i < rows; ++i) s->h[i] = la__ddot(n, s->V + (size_t)i * n, w);
    for (i = 0; i < rows; ++i) {
      const double *q = s->V + (size_t)i * n;
      double c = s->h[i];
      for (k = 0; k < n; ++k) w[k] -= c * q[k];
    }
  }
}

/* ||x||_2 without overflow or underflow before the result's own: the
   squares are taken of x scaled by a power of two (exact) to a largest
   entry in [0.5, 1). */
static double la__dnrm2(int n, const double *x) {
  double s = 0;
  int i, ex = la__max_exponent((size_t)(n > 0 ? n : 0), x);
  la__pow2 p;
  if (ex == INT_MIN) return 0;
  p = la__pow2_of(-ex);
  for (i = 0; i < n; ++i) {
    double y = la__pow2_mul(p, x[i]);
    s += y * y;
  }
  return ldexp(sqrt(s), ex);
}

static double la__normalize(int n, double *w) {
  double nr = la__dnrm2(n, w);
  int k;
  if (nr > 0)
    for (k = 0; k < n; ++k) w[k] /= nr;
  return nr;
}

/* A fresh unit vector orthogonal to rows 0..rows-1 of V, into row `rows`
   (Gaussian from the seeded stream). False when none is left (rows == n or
   the draws keep falling into the span). */
static int la__lz_fresh(la__lz *s, int rows) {
  double *w = s->V + (size_t)rows * s->n;
  int tries, k;
  if (rows >= s->n) return 0;
  for (tries = 0; tries < 3; ++tries) {
    for (k = 0; k < s->n; ++k) w[k] = la_rng_normal(&s->rng);
    la__normalize(s->n, w);
    la__orth2(s, rows, w);
    if (la__normalize(s->n, w) > 1e-8) return 1;
  }
  return 0;
}

/* The operator on k double vectors (rows of q, n apart) into out: each
   rounded to la_real into x, the products into y (k x n each), then back,
   checked finite. */
static int la__op_rows(const la__linop *o, int n, int k, const double *q,
                       la_real *x, la_real *y, double *out, size_t ostride) {
  size_t e, kn = (size_t)k * n;
  int i, st;
  for (e = 0; e < kn; ++e) x[e] = (la_real)q[e];
  st = la__linop_apply(o, n, k, x, y);
  if (st) return st;
  for (i = 0; i < k; ++i) {
    const la_real *yi = y + (size_t)i * n;
    int j;
    if (!la__all_finite(n, yi)) return LA_ENONFINITE;
    for (j = 0; j < n; ++j) out[(size_t)i * ostride + j] = yi[j];
  }
  return LA_OK;
}

static int la__lz_apply(la__lz *s, const double *q, double *out) {
  s->matvecs++;
  return la__op_rows(&s->op, s->n, 1, q, s->x, s->y, out, 0);
}

/* The step after its product: from q_j (row j of V) and w = A q_j (row
   j + 1) to alpha_j, beta_j and q_{j+1}. With `restart`, a breakdown
   continues from a fresh orthogonal vector and beta_j = 0 cuts T into
   blocks; without, *closed says the space is invariant (the quadrature is
   then exact). */
static void la__lz_finish(la__lz *s, int restart, int *closed) {
  int n = s->n, j = s->j, k;
  double *q = s->V + (size_t)j * n, *w = q + n, a, b;
  /* below this, beta is the operator's own rounding, not a direction */
  double tiny = (sizeof(la_real) == 4 ? 1.2e-7 : 2.3e-16) * 16.0;
  *closed = 0;
  a = la__ddot(n, q, w);
  for (k = 0; k < n; ++k) w[k] -= a * q[k];
  if (j > 0) {
    double bp = s->beta[j - 1];
    const double *qp = q - n;
    for (k = 0; k < n; ++k) w[k] -= bp * qp[k];
  }
  la__orth2(s, j + 1, w);
  b = la__dnrm2(n, w);
  s->alpha[j] = a;
  if (fabs(a) > s->anorm) s->anorm = fabs(a);
  if (b > s->anorm) s->anorm = b;
  s->j = j + 1;
  if (b > tiny * s->anorm && j + 1 < n) {
    for (k = 0; k < n; ++k) w[k] /= b;
    s->beta[j] = b;
    return;
  }
  s->beta[j] = 0;
  *closed = 2; /* 2: nothing left to continue with */
  if (restart && s->j < s->m && la__lz_fresh(s, s->j)) {
    s->restarts++;
    *closed = 1;
  }
}

/* One step: the product of q_j, then la__lz_finish. */
static int la__lz_step(la__lz *s, int restart, int *closed) {
  double *q = s->V + (size_t)s->j * s->n;
  int st = la__lz_apply(s, q, q + s->n);
  if (st) return st;
  la__lz_finish(s, restart, closed);
  return LA_OK;
}

static int la__lz_start(la__lz *s, const double *q0) {
  int k;
  s->j = 0;
  s->matvecs = s->restarts = 0;
  s->anorm = 0;
  if (q0) {
    for (k = 0; k < s->n; ++k) s->V[k] = q0[k];
    return la__normalize(s->n, s->V) > 0;
  }
  return la__lz_fresh(s, 0);
}

/* Ritz pairs of T_j: theta in d (ascending), eigenvectors of T as rows of
   zt (j x j), e scratch. */
static int la__lz_ritz(const la__lz *s, double *d, double *e, double *zt) {
  int i, j = s->j, st;
  for (i = 0; i < j; ++i) d[i] = s->alpha[i];
  for (i = 0; i + 1 < j; ++i) e[i] = s->beta[i];
  for (i = 0; i < j * j; ++i) zt[i] = 0;
  for (i = 0; i < j; ++i) zt[(size_t)i * j + i] = 1;
  st = la__tql(j, d, e, zt);
  for (i = 0; i < j && st == LA_OK; ++i)
    if (!la__finite(d[i])) st = LA_ERANGE; /* beyond the largest double */
  if (st == LA_OK) la__sort_pairs(j, j, d, zt);
  return st;
}

/* Indices (into the ascending Ritz values) of the k wanted ones, in the
   order they are returned. */
static void la__pick(int which, int j, const double *d, int k, int *idx) {
  int i, lo = 0, hi = j - 1;
  if (which == LA_EIG_SMALLEST) {
    for (i = 0; i < k; ++i) idx[i] = i;
  } else if (which == LA_EIG_LARGEST) {
    for (i = 0; i < k; ++i) idx[i] = j - 1 - i;
  } else { /* merge from both ends of the sorted list */
    for (i = 0; i < k; ++i)
      idx[i] = fabs(d[hi]) >= fabs(d[lo]) ? hi-- : lo++;
  }
}

/* ---------------------------------------------------------- Lanczos */

static int la__lz_cap(int n, int k, const la_lanczos_config *cfg) {
  int m = cfg && cfg->max_iter > 0 ? cfg->max_iter
          : k > (2147483647 - 200) / 20 ? n : 20 * k + 200;
  return m < n ? m : n;
}

static size_t la__lanczos_walk(la__arena *a, int n, int m, int k, la__lz *s,
                               double **d, double **e, double **zt,
                               int **idx) {
  la__lz_walk(a, s, n, m);
  *d = (double *)la__take(a, sizeof(double) * (size_t)m);
  *e = (double *)la__take(a, sizeof(double) * (size_t)m);
  *zt = (double *)la__take(a, sizeof(double) * (size_t)m * m);
  *idx = (int *)la__take(a, sizeof(int) * (size_t)k);
  return la__arena_size(a);
}

LINATTN_DEF size_t la_lanczos_work_bytes(int n, int k,
                                         const la_lanczos_config *cfg) {
  la__arena a = la__arena_count();
  la__lz s;
  double *d, *e, *zt;
  int *idx, m;
  if (n <= 0 || k <= 0 || k > n || (cfg && cfg->max_iter < 0)) return 0;
  if (cfg && cfg->max_iter > 0 && cfg->max_iter < k) return 0;
  m = la__lz_cap(n, k, cfg);
  if (((double)m + 1) * n * 8.0 > LA__WORK_MAX) return 0;
  return la__lanczos_walk(&a, n, m, k, &s, &d, &e, &zt, &idx);
}

/* Ritz values, residual bounds and (optionally) vectors of the picked
   pairs; returns how many are within tolerance. */
static int la__lz_report(const la__lz *s, const double *d, const double *zt,
                         const int *idx, int k, double tol, la_eig_out *out) {
  int i, c, l, ok = 0, j = s->j, n = s->n;
  double scale = 0, blast = s->beta[j - 1];
  for (i = 0; i < j; ++i)
    if (fabs(d[i]) > scale) scale = fabs(d[i]);
  for (i = 0; i < k; ++i) {
    double r = fabs(blast * zt[(size_t)idx[i] * j + j - 1]);
    out->values[i] = d[idx[i]];
    if (out->residuals) out->residuals[i] = r;
    ok += r <= tol * scale;
  }
  if (out->vectors)
    for (i = 0; i < k; ++i) {
      la_real *y = out->vectors + (size_t)i * n;
      for (l = 0; l < n; ++l) {
        double acc = 0;
        for (c = 0; c < j; ++c)
          acc += zt[(size_t)idx[i] * j + c] * s->V[(size_t)c * n + l];
        y[l] = (la_real)acc;
      }
    }
  return ok;
}

/* T's eigen-decomposition costs O(j^3): every step while small, then
   every ~j/8 steps so that it stays a minor share of the work. */
static int la__lz_check_now(int j, int k, int m) {
  if (j < k) return 0;
  if (j >= m || j <= 64) return 1;
  return j % (j / 8) == 0;
}

static int la__lanczos_run(la__lz *s, int k, double tol, int which,
                           double *d, double *e, double *zt, int *idx,
                           la_eig_out *out) {
  int st, closed, done, ok = -1;
  if (!la__lz_start(s, NULL)) return LA_EDIM;
  do {
    st = la__lz_step(s, 1, &closed);
    if (st) return st;
    done = s->j >= s->m || closed == 2;
    if (s->j >= k && (done || la__lz_check_now(s->j, k, s->m))) {
      st = la__lz_ritz(s, d, e, zt);
      if (st) return st;
      la__pick(which, s->j, d, k, idx);
      ok = la__lz_report(s, d, zt, idx, k, tol, out);
      if (ok == k) done = 1;
    }
  } while (!done);
  out->matvecs = s->matvecs;
  out->restarts = s->restarts;
  out->converged = ok < 0 ? 0 : ok;
  return ok == k ? LA_OK : LA_ENOCONVERGE;
}

LINATTN_DEF int la_lanczos(int n, la_matvec_fn f, void *ctx, int k, double tol,
                           const la_lanczos_config *cfg, la_eig_out *out,
                           void *work, size_t bytes) {
  size_t need;
  void *owned;
  la__arena ar;
  la__lz s;
  double *d, *e, *zt;
  int *idx, which = cfg ? cfg->which : 0, st, i;
  if (!f || !out || !out->values) return LA_ENULL;
  if (n <= 0 || k <= 0 || k > n) return LA_EDIM;
  if (!(tol > 0) || !la__finite(tol)) return LA_ERANGE;
  if (which < 0 || which > 2 || (cfg && cfg->max_iter < 0)) return LA_ERANGE;
  /* a Krylov space smaller than k never holds k Ritz values */
  if (cfg && cfg->max_iter > 0 && cfg->max_iter < k) return LA_ERANGE;
  need = la_lanczos_work_bytes(n, k, cfg);
  if (!need) return LA_EOVERFLOW;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  out->matvecs = out->converged = out->restarts = 0;
  for (i = 0; i < k; ++i) out->values[i] = 0;
  la__lanczos_walk(&ar, n, la__lz_cap(n, k, cfg), k, &s, &d, &e, &zt, &idx);
  s.op = la__linop_of(f, NULL, ctx);
  la_rng_seed(&s.rng, cfg ? cfg->seed : 0, 0x1a2c);
  st = la__lanczos_run(&s, k, tol, which, d, e, zt, idx, out);
  la__work_end(owned);
  return st;
}

/* --------------------------------------------------------------- SLQ */

static void la__slq_defaults(int n, const la_slq_config *cfg, int *probes,
                             int *steps) {
  *probes = cfg && cfg->probes > 0 ? cfg->probes : 10;
  *steps = cfg && cfg->steps > 0 ? cfg->steps : 80;
  if (*steps > n) *steps = n;
}

/* group probes' Lanczos states (one each), the Ritz buffers, a probe
   vector, and the block of rounded vectors and products (group x n). */
typedef struct la__slqw {
  la__lz *s;
  double *d, *e, *zt, *q0;
  la_real *x, *y;
} la__slqw;

static size_t la__slq_walk(la__arena *a, int n, int m, int group,
                           la__slqw *w) {
  la__lz count;
  int p;
  w->s = (la__lz *)la__take(a, sizeof(la__lz) * (size_t)group);
  for (p = 0; p < group; ++p) la__lz_walk(a, w->s ? w->s + p : &count, n, m);
  w->d = (double *)la__take(a, sizeof(double) * (size_t)m);
  w->e = (double *)la__take(a, sizeof(double) * (size_t)m);
  w->zt = (double *)la__take(a, sizeof(double) * (size_t)m * m);
  w->q0 = (double *)la__take(a, sizeof(double) * (size_t)n);
  w->x = (la_real *)la__take(a, sizeof(la_real) * (size_t)group * n);
  w->y = (la_real *)la__take(a, sizeof(la_real) * (size_t)group * n);
  return la__arena_size(a);
}

/* The status of an SLQ request before any work: probes * steps nodes must
   be countable in an int (la_weighted_median takes them). */
static int la__slq_check(int n, const la_slq_config *cfg, int block) {
  int probes, m;
  if (n <= 0) return LA_EDIM;
  if (cfg && (cfg->probes < 0 || cfg->steps < 0)) return LA_ERANGE;
  la__slq_defaults(n, cfg, &probes, &m);
  if (((double)m + 1) * n * 8.0 * (block ? probes : 1) > LA__WORK_MAX ||
      (double)probes * m > 2147483647.0)
    return LA_EOVERFLOW;
  return LA_OK;
}

static size_t la__slq_bytes(int n, const la_slq_config *cfg, int block) {
  la__arena a = la__arena_count();
  la__slqw w;
  int probes, m;
  if (la__slq_check(n, cfg, block)) return 0;
  la__slq_defaults(n, cfg, &probes, &m);
  return la__slq_walk(&a, n, m, block ? probes : 1, &w);
}

LINATTN_DEF size_t la_slq_work_bytes(int n, const la_slq_config *cfg) {
  return la__slq_bytes(n, cfg, 0);
}
LINATTN_DEF size_t la_slq_block_work_bytes(int n, const la_slq_config *cfg) {
  return la__slq_bytes(n, cfg, 1);
}

static void la__rademacher(la_rng *r, int n, double *v) {
  int i = 0;
  while (i < n) {
    uint64_t bits = la_rng_u64(r);
    int b;
    for (b = 0; b < 64 && i < n; ++b, ++i) v[i] = (bits >> b) & 1 ? 1.0 : -1.0;
  }
}

/* A probe's nodes and weights once its steps are done: the Ritz values of
   T, the squared first components of its eigenvectors (Gauss quadrature
   for v^T g(A) v); zeros past a Krylov space that closed early. */
static int la__slq_quad(const la__lz *s, la__slqw *w, double *nodes,
                        double *weights, double scale) {
  int i, st = la__lz_ritz(s, w->d, w->e, w->zt);
  if (st) return st;
  for (i = 0; i < s->m; ++i) {
    nodes[i] = i < s->j ? w->d[i] : 0;
    weights[i] = i < s->j
                     ? scale * w->zt[(size_t)i * s->j] * w->zt[(size_t)i * s->j]
                     : 0;
  }
  return LA_OK;
}

/* Probes p0 .. p0+g-1, their Lanczos steps in lockstep: each step one
   product of the probes still running, in probe order (with g = 1, one
   probe after another: la_slq's order of products). */
static int la__slq_group(la__slqw *w, int g, int m, int p0, int probes,
                         la_rng *rng, double *nodes, double *weights) {
  int p, r, st = LA_OK, closed, n = w->s[0].n;
  size_t e;
  for (p = 0; p < g && st == LA_OK; ++p) {
    la__rademacher(rng, n, w->q0);
    if (!la__lz_start(&w->s[p], w->q0)) st = LA_EDIM;
    w->s[p].done = 0;
  }
  while (st == LA_OK) { /* the running probes' q_j, then their products */
    for (p = r = 0; p < g; ++p) {
      la__lz *s = &w->s[p];
      const double *q = s->V + (size_t)s->j * n;
      if (s->done || s->j >= m) continue;
      for (e = 0; e < (size_t)n; ++e) w->x[(size_t)r * n + e] = (la_real)q[e];
      ++r;
    }
    if (!r) break;
    st = la__linop_apply(&w->s[0].op, n, r, w->x, w->y);
    for (p = r = 0; p < g && st == LA_OK; ++p) {
      la__lz *s = &w->s[p];
      const la_real *y = w->y + (size_t)r * n;
      double *out = s->V + (size_t)(s->j + 1) * n;
      if (s->done || s->j >= m) continue;
      ++r;
      s->matvecs++;
      if (!la__all_finite(n, y)) {
        st = LA_ENONFINITE;
        break;
      }
      for (e = 0; e < (size_t)n; ++e) out[e] = y[e];
      la__lz_finish(s, 0, &closed);
      s->done = closed != 0;
    }
  }
  for (p = 0; p < g && st == LA_OK; ++p)
    st = la__slq_quad(&w->s[p], w, nodes + (size_t)(p0 + p) * m,
                      weights + (size_t)(p0 + p) * m, 1.0 / probes);
  return st;
}

static int la__slq_run(int n, const la__linop *op, const la_slq_config *cfg,
                       int block, double *nodes, double *weights, void *work,
                       size_t bytes) {
  size_t need;
  void *owned;
  la__arena ar;
  la__slqw w;
  la_rng rng;
  int probes, m, p, g, group, st;
  if (!nodes || !weights) return LA_ENULL;
  if ((st = la__slq_check(n, cfg, block)) != 0) return st;
  need = la__slq_bytes(n, cfg, block);
  la__slq_defaults(n, cfg, &probes, &m);
  group = block ? probes : 1;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  la__slq_walk(&ar, n, m, group, &w);
  for (p = 0; p < group; ++p) w.s[p].op = *op;
  la_rng_seed(&rng, cfg ? cfg->seed : 0, 0x51c0);
  for (p = 0; p < probes && st == LA_OK; p += g) {
    g = probes - p < group ? probes - p : group;
    st = la__slq_group(&w, g, m, p, probes, &rng, nodes, weights);
  }
  la__work_end(owned);
  return st;
}

LINATTN_DEF int la_slq(int n, la_matvec_fn f, void *ctx,
                       const la_slq_config *cfg, double *nodes,
                       double *weights, void *work, size_t bytes) {
  la__linop op = la__linop_of(f, NULL, ctx);
  return f ? la__slq_run(n, &op, cfg, 0, nodes, weights, work, bytes) : LA_ENULL;
}
LINATTN_DEF int la_slq_block(int n, la_matmat_fn f, void *ctx,
                             const la_slq_config *cfg, double *nodes,
                             double *weights, void *work, size_t bytes) {
  la__linop op = la__linop_of(NULL, f, ctx);
  return f ? la__slq_run(n, &op, cfg, 1, nodes, weights, work, bytes) : LA_ENULL;
}

/* The smoothed density at x: the weighted kernels' sum divided by sigma
   and sqrt(2 pi) in turn, not multiplied by 1 / (sigma sqrt(2 pi)), which
   is infinite for a subnormal sigma even where the sum is 0. */
static double la__density_at(int count, const double *nodes,
                             const double *weights, double sigma, double x) {
  double acc = 0;
  int i;
  for (i = 0; i < count; ++i) {
    double z = (x - nodes[i]) / sigma;
    if (weights[i] != 0) acc += weights[i] * exp(-0.5 * z * z);
  }
  return acc / sigma / 2.5066282746310002;
}

LINATTN_DEF int la_density_eval(int count, const double *nodes,
                                const double *weights, double sigma,
                                int ngrid, const double *grid, double *out) {
  int g, i;
  double wsum = 0;
  if (!nodes || !weights || !grid || !out) return LA_ENULL;
  if (count <= 0 || ngrid <= 0) return LA_EDIM;
  if (!(sigma > 0) || !la__finite(sigma)) return LA_ERANGE;
  for (i = 0; i < count; ++i)
    if (!la__finite(nodes[i]) || !la__finite(weights[i])) return LA_ENONFINITE;
  for (g = 0; g < ngrid; ++g)
    if (!la__finite(grid[g])) return LA_ENONFINITE;
  /* sum |w| / (sigma sqrt(2 pi)) bounds every value: only past the largest
     double is each value checked first, so that out is written only when
     all are finite */
  for (i = 0; i < count; ++i) wsum += fabs(weights[i]);
  if (!la__finite(wsum / sigma))
    for (g = 0; g < ngrid; ++g)
      if (!la__finite(la__density_at(count, nodes, weights, sigma, grid[g])))
        return LA_ERANGE;
  for (g = 0; g < ngrid; ++g)
    out[g] = la__density_at(count, nodes, weights, sigma, grid[g]);
  return LA_OK;
}

/* The weighted median of values (of |values| when absolute) on a block of
   2*count doubles at any byte (count doubles where weights is NULL): a
   sorted copy of the values with their weights; the median is where the
   running weight first reaches half the total. */
static int la__wmedian(int count, const double *values, int absolute,
                       const double *weights, double *median, void *work) {
  unsigned char *v = (unsigned char *)work;
  unsigned char *w = weights ? v + sizeof(double) * (size_t)count : NULL;
  double total = 0, run = 0, med, wi;
  la__pow2 p;
  int i, ex;
  /* weights scaled by a power of two to a largest in [0.5, 1): their sum
     cannot overflow (the median depends on their ratios only); equal
     weights are each 1/2 */
  ex = weights ? la__max_exponent((size_t)count, weights) : 1;
  if (ex == INT_MIN) return LA_ERANGE;
  p = la__pow2_of(-ex);
  for (i = 0; i < count; ++i) {
    wi = la__pow2_mul(p, weights ? weights[i] : 1.0);
    la__dput(v, (size_t)i, absolute ? fabs(values[i]) : values[i]);
    if (w) la__dput(w, (size_t)i, wi);
    total += wi;
  }
  la__sort(count, v, w);
  med = la__dget(v, (size_t)count - 1);
  wi = 0.5; /* the weight of every value where weights is NULL */
  for (i = 0; i < count; ++i) {
    run += w ? la__dget(w, (size_t)i) : wi;
    if (run >= 0.5 * total) {
      /* exactly half: the midpoint, as for an even count of equal weights */
      med = la__dget(v, (size_t)i);
      if (fabs(run - 0.5 * total) <= 1e-12 * total) {
        int nx = i + 1;
        while (nx < count && w && la__dget(w, (size_t)nx) == 0) ++nx;
        if (nx < count) med = la__midpoint(med, la__dget(v, (size_t)nx));
      }
      break;
    }
  }
  *median = med;
  return LA_OK;
}

LINATTN_DEF int la_weighted_median(int count, const double *values,
                                   const double *weights, double *median,
                                   void *work, size_t bytes) {
  size_t need = sizeof(double) * 2 * (size_t)(count > 0 ? count : 1);
  void *owned;
  int i, st;
  if (!values || !median) return LA_ENULL;
  if (count <= 0) return LA_EDIM;
  if ((size_t)count > (size_t)-1 / (2 * sizeof(double))) return LA_EOVERFLOW;
  for (i = 0; i < count; ++i)
    if (!la__finite(values[i]) || (weights && !la__finite(weights[i])))
      return LA_ENONFINITE;
  for (i = 0; weights && i < count; ++i)
    if (weights[i] < 0) return LA_ERANGE;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  st = la__wmedian(count, values, 0, weights, median, work);
  la__work_end(owned);
  return st;
}

/* ------------------------------------------------------------ traces */

static void la__trace_defaults(const la_trace_config *cfg, int *mv,
                               int *method) {
  *mv = cfg && cfg->matvecs > 0 ? cfg->matvecs : 30;
  *method = cfg ? cfg->method : LA_TRACE_HUTCHINSON;
}

/* Hutch++ splits the budget in thirds: a sketch, its products, probes. */
static int la__hpp_rank(int n, int mv) {
  int s = mv / 3;
  return s < n ? s : n;
}

/* The sketch basis (Hutch++), and group probes at a time: drawn (g),
   their products (ag), and both rounded for the operator (x, y). */
typedef struct la__trw {
  la__lz s;
  double *g, *ag;
  la_real *x, *y;
  int group;
} la__trw;

static int la__trace_group(int n, int mv, int method, int block) {
  int rank = method == LA_TRACE_HUTCHPP ? la__hpp_rank(n, mv) : 0;
  int probes = mv - 2 * rank;
  return !block ? 1 : rank > probes ? rank : probes;
}

static size_t la__trace_walk(la__arena *a, int n, int mv, int method,
                             int block, la__trw *w) {
  int rank = method == LA_TRACE_HUTCHPP ? la__hpp_rank(n, mv) : 0;
  size_t gn;
  w->group = la__trace_group(n, mv, method, block);
  gn = (size_t)w->group * n;
  /* V holds the orthonormal sketch basis Q (rank rows) */
  la__lz_walk(a, &w->s, n, rank);
  w->g = (double *)la__take(a, sizeof(double) * gn);
  w->ag = (double *)la__take(a, sizeof(double) * gn);
  w->x = (la_real *)la__take(a, sizeof(la_real) * gn);
  w->y = (la_real *)la__take(a, sizeof(la_real) * gn);
  return la__arena_size(a);
}

/* The status of a trace request before any work. */
static int la__trace_check(int n, const la_trace_config *cfg, int block) {
  int mv, method, rank;
  if (n <= 0) return LA_EDIM;
  la__trace_defaults(cfg, &mv, &method);
  if (method < 0 || method > 1 || (cfg && cfg->matvecs < 0)) return LA_ERANGE;
  if (method == LA_TRACE_HUTCHPP && mv < 3) return LA_ERANGE;
  if (mv < 2) return LA_ERANGE; /* no standard error from one probe */
  rank = method == LA_TRACE_HUTCHPP ? la__hpp_rank(n, mv) : 0;
  if (((double)rank + 3 + 3.0 * la__trace_group(n, mv, method, block)) * n *
          8.0 > LA__WORK_MAX)
    return LA_EOVERFLOW;
  return LA_OK;
}

static size_t la__trace_bytes(int n, const la_trace_config *cfg, int block) {
  la__arena a = la__arena_count();
  la__trw w;
  int mv, method;
  if (la__trace_check(n, cfg, block)) return 0;
  la__trace_defaults(cfg, &mv, &method);
  return la__trace_walk(&a, n, mv, method, block, &w);
}

LINATTN_DEF size_t la_trace_work_bytes(int n, const la_trace_config *cfg) {
  return la__trace_bytes(n, cfg, 0);
}
LINATTN_DEF size_t la_trace_block_work_bytes(int n,
                                             const la_trace_config *cfg) {
  return la__trace_bytes(n, cfg, 1);
}

/* Mean and standard error of z^T B z over `probes` Rademacher z, where B
   is A deflated by the rows of V (none when rank == 0):
   B = (I - Q Q^T) A (I - Q Q^T). The probes are drawn and applied group
   at a time, in order. */
static int la__hutch(la__trw *w, int rank, int probes, la_rng *rng,
                     double *mean, double *se) {
  /* the sums are of t 2^-ex, ex raised (and the sums rescaled, exactly)
     whenever a t would square past 1e240: no overflow before the results. */
  la__lz *s = &w->s;
  double sum = 0, sum2 = 0;
  int p, p0, i, gk, st, k, ex = 0, n = s->n;
  for (p0 = 0; p0 < probes; p0 += gk) {
    gk = probes - p0 < w->group ? probes - p0 : w->group;
    for (i = 0; i < gk; ++i) {
      la__rademacher(rng, n, w->g + (size_t)i * n);
      if (rank) la__orth2(s, rank, w->g + (size_t)i * n);
    }
    s->matvecs += gk;
    st = la__op_rows(&s->op, n, gk, w->g, w->x, w->y, w->ag, (size_t)n);
    if (st) return st;
    for (p = 0; p < gk; ++p) {
      double t, *ag = w->ag + (size_t)p * n;
      if (rank) la__orth2(s, rank, ag);
      t = la__ddot(n, w->g + (size_t)p * n, ag);
      if (fabs(ldexp(t, -ex)) > 1e120) {
        int nx;
        frexp(t, &nx); /* t is not 0: the exponent of |t| */
        sum = ldexp(sum, ex - nx);
        sum2 = ldexp(sum2, 2 * (ex - nx));
        ex = nx;
      }
      t = ldexp(t, -ex);
      sum += t;
      sum2 += t * t;
    }
  }
  k = probes;
  *mean = ldexp(sum / probes, ex);
  *se = k > 1 ? ldexp(sqrt(fmax(0.0, (sum2 - sum * sum / k) / (k - 1)) / k), ex)
              : 0;
  return LA_OK;
}

/* tr(Q^T A Q) + Hutchinson on the deflated remainder (Meyer, Musco, Musco,
   Woodruff 2021). Q spans A S for a Rademacher sketch S. */
static int la__hutchpp(la__trw *w, int rank, int probes, la_rng *rng,
                       double *tr, double *se) {
  la__lz *s = &w->s;
  int i, i0, gk, st, kept = 0, n = s->n;
  double exact = 0, rest = 0; /* rest: not set when la__hutch fails */
  for (i0 = 0; i0 < rank; i0 += gk) {
    gk = rank - i0 < w->group ? rank - i0 : w->group;
    for (i = 0; i < gk; ++i) la__rademacher(rng, n, w->g + (size_t)i * n);
    s->matvecs += gk;
    st = la__op_rows(&s->op, n, gk, w->g, w->x, w->y, w->ag, (size_t)n);
    if (st) return st;
    for (i = 0; i < gk; ++i) {
      double *row = s->V + (size_t)kept * n;
      memcpy(row, w->ag + (size_t)i * n, sizeof(double) * (size_t)n);
      la__normalize(n, row);
      la__orth2(s, kept, row);
      if (la__normalize(n, row) > 1e-8) kept++;
    }
  }
  for (i0 = 0; i0 < kept; i0 += gk) {
    gk = kept - i0 < w->group ? kept - i0 : w->group;
    s->matvecs += gk;
    st = la__op_rows(&s->op, n, gk, s->V + (size_t)i0 * n, w->x, w->y, w->ag,
                     (size_t)n);
    if (st) return st;
    for (i = 0; i < gk; ++i)
      exact += la__ddot(n, s->V + (size_t)(i0 + i) * n, w->ag + (size_t)i * n);
  }
  st = la__hutch(w, kept, probes, rng, &rest, se);
  *tr = exact + rest;
  return st;
}

static int la__trace_run(int n, const la__linop *op, const la_trace_config *cfg,
                         int block, double *trace, double *stderr_,
                         void *work, size_t bytes) {
  size_t need;
  void *owned;
  la__arena ar;
  la__trw w;
  la_rng rng;
  double se = 0, tr = 0;
  int mv, method, st;
  if (!trace) return LA_ENULL;
  if ((st = la__trace_check(n, cfg, block)) != 0) return st;
  need = la__trace_bytes(n, cfg, block);
  la__trace_defaults(cfg, &mv, &method);
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  la__trace_walk(&ar, n, mv, method, block, &w);
  w.s.op = *op; w.s.matvecs = 0;
  la_rng_seed(&rng, cfg ? cfg->seed : 0, 0x7ace);
  if (method == LA_TRACE_HUTCHPP) {
    int rank = la__hpp_rank(n, mv);
    st = la__hutchpp(&w, rank, mv - 2 * rank, &rng, &tr, &se);
  } else {
    st = la__hutch(&w, 0, mv, &rng, &tr, &se);
  }
  /* a trace or error beyond the largest double is LA_ERANGE */
  if (st == LA_OK && (!la__finite(tr) || !la__finite(se))) st = LA_ERANGE;
  if (st == LA_OK) { /* a failed product leaves the outputs alone */
    *trace = tr;
    if (stderr_) *stderr_ = se;
  }
  la__work_end(owned);
  return st;
}

LINATTN_DEF int la_trace(int n, la_matvec_fn f, void *ctx,
                         const la_trace_config *cfg, double *trace,
                         double *stderr_, void *work, size_t bytes) {
  la__linop op = la__linop_of(f, NULL, ctx);
  return f ? la__trace_run(n, &op, cfg, 0, trace, stderr_, work, bytes)
           : LA_ENULL;
}
LINATTN_DEF int la_trace_block(int n, la_matmat_fn f, void *ctx,
                               const la_trace_config *cfg, double *trace,
                               double *stderr_, void *work, size_t bytes) {
  la__linop op = la__linop_of(NULL, f, ctx);
  return f ? la__trace_run(n, &op, cfg, 1, trace, stderr_, work, bytes)
           : LA_ENULL;
}

/* ------------------------------------------- robust condition numbers */

/* *r = mx / med; LA_ERANGE (r untouched) for a zero median or a ratio
   beyond the largest double. */
static int la__ratio(double mx, double med, double *r) {
  double q;
  if (med == 0) return LA_ERANGE;
  q = mx / med;
  if (!la__finite(q)) return LA_ERANGE;
  *r = q;
  return LA_OK;
}

LINATTN_DEF int la_rcond_diag(int n, const double *diag, int median, double *r,
                              void *work, size_t bytes) {
  size_t need = sizeof(double) * 3 * (size_t)(n > 0 ? n : 1);
  void *owned;
  double mx = 0, med;
  int i, st;
  if (!diag || !r) return LA_ENULL;
  if (n <= 0) return LA_EDIM;
  if (median != LA_MEDIAN_LOWER && median != LA_MEDIAN_MID) return LA_ERANGE;
  if ((size_t)n > (size_t)-1 / (3 * sizeof(double))) return LA_EOVERFLOW;
  for (i = 0; i < n; ++i) {
    if (!la__finite(diag[i])) return LA_ENONFINITE;
    if (fabs(diag[i]) > mx) mx = fabs(diag[i]);
  }
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  if (median == LA_MEDIAN_LOWER) { /* torch.median: the ((n+1)/2)-th smallest */
    for (i = 0; i < n; ++i) la__dput(work, (size_t)i, fabs(diag[i]));
    la__sort(n, work, NULL);
    med = la__dget(work, (size_t)(n - 1) / 2);
  } else {
    st = la__wmedian(n, diag, 1, NULL, &med, work);
  }
  la__work_end(owned);
  if (st) return st;
  return la__ratio(mx, med, r);
}

LINATTN_DEF int la_rcond_spectrum(int count, const double *values,
                                  const double *weights, double *r,
                                  void *work, size_t bytes) {
  double mx, med;
  int i, st;
  if (!values || !r) return LA_ENULL;
  if (count <= 0) return LA_EDIM;
  st = la_weighted_median(count, values, weights, &med, work, bytes);
  if (st) return st;
  mx = -HUGE_VAL;
  for (i = 0; i < count; ++i)
    if ((!weights || weights[i] > 0) && values[i] > mx) mx = values[i];
  return la__ratio(mx, med, r);
}

/* ------------------------------------------- generalized smoothness */

/* The pairs are read through power-of-two scalings pg, ps (exact), which
   bring their largest entries to [0.5, 1): no difference or cross product
   below can overflow. */

/* Height above g = gbar of the lowest line over every pair with slope l1
   and nonnegative intercept: phi(l1) = max(0, max_i s_i - l1 g_i) + l1 gbar,
   convex and piecewise linear in l1. */
static double la__env_cost(int count, const double *g, const double *s,
                           la__pow2 pg, la__pow2 ps, double l1, double gbar,
                           double *l0) {
  double h = 0;
  int i;
  for (i = 0; i < count; ++i) {
    double r = la__pow2_mul(ps, s[i]) - l1 * la__pow2_mul(pg, g[i]);
    if (r > h) h = r;
  }
  *l0 = h;
  return h + l1 * gbar;
}

/* phi turns only where the binding pair changes, at the slopes of the
   upper convex hull of the pairs, or where the intercept reaches 0
   (l1 = max s_i/g_i): its minimum over l1 >= 0 is at one of those or at 0.
   gs, ss: the scaled pairs sorted by g, overwritten by the hull (count
   doubles each, at any byte). */
static void la__envelope(int count, const double *g, const double *s,
                         la__pow2 pg, la__pow2 ps, void *gs, void *ss,
                         double *l0, double *l1) {
  double gbar = 0, best, c, t0, cand, through0 = 0;
  int i, h = 0;
#define LA__GS(j) la__dget(gs, (size_t)(j))
#define LA__SS(j) la__dget(ss, (size_t)(j))
  for (i = 0; i < count; ++i) {
    double gi = la__pow2_mul(pg, g[i]), si = la__pow2_mul(ps, s[i]);
    la__dput(gs, (size_t)i, gi);
    la__dput(ss, (size_t)i, si);
    gbar += gi;
    if (gi > 0 && si / gi > through0) through0 = si / gi;
  }
  gbar /= count;
  la__sort(count, gs, ss);
  for (i = 0; i < count; ++i) { /* monotone chain, kept in place */
    while (h >= 2 && (LA__GS(h - 1) - LA__GS(h - 2)) * (LA__SS(i) - LA__SS(h - 2)) -
                             (LA__SS(h - 1) - LA__SS(h - 2)) *
                                 (LA__GS(i) - LA__GS(h - 2)) >=
                         0)
      --h;
    la__dput(gs, (size_t)h, LA__GS(i));
    la__dput(ss, (size_t)h, LA__SS(i));
    ++h;
  }
  *l1 = 0;
  best = la__env_cost(count, g, s, pg, ps, 0, gbar, l0);
  for (i = 0; i <= h; ++i) {
    if (i < h - 1) {
      if (!(LA__GS(i + 1) > LA__GS(i))) continue;
      cand = (LA__SS(i + 1) - LA__SS(i)) / (LA__GS(i + 1) - LA__GS(i));
    } else if (i == h - 1) {
      continue;
    } else {
      cand = through0;
    }
    if (!(cand > 0)) continue;
    c = la__env_cost(count, g, s, pg, ps, cand, gbar, &t0);
    if (c < best) { best = c; *l1 = cand; *l0 = t0; }
  }
#undef LA__GS
#undef LA__SS
}

/* Both fits on the scaled pairs (g 2^-eg, s 2^-es); L1 then carries
   2^(es - eg) and L0 2^es. work: 2 count doubles, at any byte. */
static void la__lsmooth_scaled(int count, const double *g, const double *s,
                               int eg, int es, void *work,
                               la_lsmooth_fit *fit) {
  la__pow2 pg = la__pow2_of(-eg), ps = la__pow2_of(-es);
  double mg = 0, ms = 0, sgg = 0, sgs = 0;
  int i;
  for (i = 0; i < count; ++i) {
    mg += la__pow2_mul(pg, g[i]);
    ms += la__pow2_mul(ps, s[i]);
  }
  mg /= count; ms /= count;
  for (i = 0; i < count; ++i) {
    double dg = la__pow2_mul(pg, g[i]) - mg, ds = la__pow2_mul(ps, s[i]) - ms;
    sgg += dg * dg;
    sgs += dg * ds;
  }
  fit->l1_ls = sgg > 0 ? sgs / sgg : 0;
  fit->l0_ls = ms - fit->l1_ls * mg;
  la__envelope(count, g, s, pg, ps, work,
               (unsigned char *)work + sizeof(double) * (size_t)count,
               &fit->l0_env, &fit->l1_env);
  fit->l1_ls = ldexp(fit->l1_ls, es - eg);
  fit->l1_env = ldexp(fit->l1_env, es - eg);
  fit->l0_ls = ldexp(fit->l0_ls, es);
  fit->l0_env = ldexp(fit->l0_env, es);
}

/* Pearson correlation of (log g, log s) over the pairs with both > 0. */
static double la__corr_log(int count, const double *g, const double *s,
                           int *used) {
  double lx = 0, ly = 0, sxx = 0, syy = 0, sxy = 0;
  int i, u = 0;
  for (i = 0; i < count; ++i)
    if (g[i] > 0 && s[i] > 0) { lx += log(g[i]); ly += log(s[i]); u++; }
  *used = u;
  if (u < 2) return 0;
  lx /= u; ly /= u;
  for (i = 0; i < count; ++i)
    if (g[i] > 0 && s[i] > 0) {
      double a = log(g[i]) - lx, b = log(s[i]) - ly;
      sxx += a * a; syy += b * b; sxy += a * b;
    }
  return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

LINATTN_DEF int la_lsmooth(int count, const double *gnorm,
                           const double *smooth, la_lsmooth_fit *fit,
                           void *work, size_t bytes) {
  la_lsmooth_fit f;
  int i, st, eg, es;
  void *owned;
  if (!gnorm || !smooth || !fit) return LA_ENULL;
  if (count < 2) return LA_EDIM;
  if ((size_t)count > (size_t)-1 / (2 * sizeof(double))) return LA_EOVERFLOW;
  for (i = 0; i < count; ++i)
    if (!la__finite(gnorm[i]) || !la__finite(smooth[i])) return LA_ENONFINITE;
  for (i = 0; i < count; ++i)
    if (gnorm[i] < 0) return LA_ERANGE;
  st = la__work_begin(sizeof(double) * 2 * (size_t)count, &work, &bytes,
                      &owned);
  if (st) return st;
  eg = la__max_exponent((size_t)count, gnorm);
  es = la__max_exponent((size_t)count, smooth);
  if (eg == INT_MIN) eg = 0; /* all zero: nothing to scale */
  if (es == INT_MIN) es = 0;
  la__lsmooth_scaled(count, gnorm, smooth, eg, es, work, &f);
  f.corr_log = la__corr_log(count, gnorm, smooth, &f.used);
  la__work_end(owned);
  if (!la__finite(f.l0_ls) || !la__finite(f.l1_ls) ||
      !la__finite(f.l0_env) || !la__finite(f.l1_env))
    return LA_ERANGE; /* a slope or intercept beyond the largest double */
  *fit = f;
  return LA_OK;
}

/* ------------------------------------------------ noise statistics */

LINATTN_DEF int la_normal_quantile(double p, double *x) {
  double lo = -40, hi = 40, z = 0;
  int it;
  if (!x) return LA_ENULL;
  if (!(p > 0 && p < 1)) return LA_ERANGE;
  /* Newton on Phi(z) = p, kept inside a shrinking bracket */
  for (it = 0; it < 200; ++it) {
    double cdf = 0.5 * erfc(-z * 0.70710678118654752), pdf, step, nz;
    if (cdf < p) lo = z; else hi = z;
    pdf = 0.39894228040143268 * exp(-0.5 * z * z);
    step = pdf > 0 ? (cdf - p) / pdf : 0;
    nz = z - step;
    if (!(nz > lo && nz < hi)) nz = 0.5 * (lo + hi);
    if (fabs(nz - z) <= 1e-15 * (1 + fabs(z))) { z = nz; break; }
    z = nz;
  }
  *x = z;
  return LA_OK;
}

/* x sorted descending in its first k+1 entries is enough: a full sort
   (asc: count doubles at any byte). Infinite when the k + 1 largest are
   equal (the caller's LA_ERANGE). */
static double la__hill_sorted(int count, const void *asc, int k) {
  double s = 0, ref = la__dget(asc, (size_t)(count - 1 - k));
  int i;
  for (i = 0; i < k; ++i) {
    double a = la__dget(asc, (size_t)(count - 1 - i));
    double q = a / ref; /* beyond double: logs apart */
    s += la__finite(q) ? log(q) : log(a) - log(ref);
  }
  return s > 0 ? k / s : HUGE_VAL;
}

LINATTN_DEF int la_hill(int count, const double *x, int k, double *alpha,
                        void *work, size_t bytes) {
  size_t need = sizeof(double) * (size_t)(count > 0 ? count : 1);
  void *owned;
  double a = 0;
  int i, st;
  if (!x || !alpha) return LA_ENULL;
  if (count < 2) return LA_EDIM;
  if ((size_t)count > (size_t)-1 / sizeof(double)) return LA_EOVERFLOW;
  if (k < 1 || k >= count) return LA_ERANGE;
  for (i = 0; i < count; ++i)
    if (!la__finite(x[i])) return LA_ENONFINITE;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  memcpy(work, x, need);
  la__sort(count, work, NULL);
  if (!(la__dget(work, (size_t)(count - 1 - k)) > 0)) st = LA_ERANGE;
  else a = la__hill_sorted(count, work, k);
  la__work_end(owned);
  if (st == LA_OK && !la__finite(a)) st = LA_ERANGE;
  if (st == LA_OK) *alpha = a; /* written only on success */
  return st;
}

/* Mean, variance and kurtosis from x scaled by 2^-ex (exact: the largest
   |x| in [0.5, 1)), so that no sum of squares or fourth powers overflows;
   the variance carries 2^(2 ex) and may pass the largest double, which the
   caller refuses. min and max as they are. */
static void la__moments(int count, const double *x, int ex,
                        la_noise_stats *st) {
  la__pow2 p = la__pow2_of(-ex);
  double m = 0, m2 = 0, m4 = 0;
  int i;
  st->min = st->max = x[0];
  for (i = 0; i < count; ++i) {
    m += la__pow2_mul(p, x[i]);
    if (x[i] < st->min) st->min = x[i];
    if (x[i] > st->max) st->max = x[i];
  }
  m /= count;
  for (i = 0; i < count; ++i) {
    double c = (la__pow2_mul(p, x[i]) - m) * (la__pow2_mul(p, x[i]) - m);
    m2 += c; m4 += c * c;
  }
  st->mean = ldexp(m, ex);
  st->var = count > 1 ? ldexp(ldexp(m2 / (count - 1), ex), ex) : 0;
  m2 /= count; m4 /= count;
  st->kurtosis = m2 > 0 ? m4 / (m2 * m2) : 0;
}

/* Bins over [lo, hi] in the scaled units of la__moments: the width and
   the edges are formed from lo 2^-ex and hi 2^-ex, which cannot overflow
   where hi - lo would. All samples equal: unit-wide bins from lo. */
static double la__bin_width(double lo, double hi, int bins, int ex) {
  la__pow2 p = la__pow2_of(-ex);
  double w = (la__pow2_mul(p, hi) - la__pow2_mul(p, lo)) / bins;
  return w > 0 ? w : ldexp(1.0, -ex);
}

static void la__histogram(int count, const double *x, int bins, double lo,
                          double hi, int ex, double *hist, double *edges) {
  la__pow2 p = la__pow2_of(-ex);
  double width = la__bin_width(lo, hi, bins, ex), lo_s = la__pow2_mul(p, lo);
  int i;
  if (edges) {
    for (i = 0; i < bins; ++i) edges[i] = ldexp(lo_s + i * width, ex);
    edges[bins] = hi > lo ? hi : ldexp(lo_s + bins * width, ex);
  }
  if (!hist) return;
  for (i = 0; i < bins; ++i) hist[i] = 0;
  for (i = 0; i < count; ++i) {
    int b = (int)((la__pow2_mul(p, x[i]) - lo_s) / width);
    if (b >= bins) b = bins - 1;
    if (b < 0) b = 0;
    hist[b] += 1.0;
  }
  for (i = 0; i < bins; ++i) hist[i] = ldexp(hist[i] / (count * width), -ex);
}

LINATTN_DEF int la_noise_summary(int count, const double *x,
                                 const la_noise_config *cfg,
                                 la_noise_stats *st, double *hist,
                                 double *edges, double *sorted, double *gauss,
                                 void *work, size_t bytes) {
  int bins = cfg && cfg->bins > 0 ? cfg->bins : 100, k, i, s, ex, top = 0;
  void *owned = NULL, *v;
  la_noise_stats m;
  if (!x || !st) return LA_ENULL;
  if (count < 2) return LA_EDIM;
  if ((size_t)count > (size_t)-1 / sizeof(double)) return LA_EOVERFLOW;
  if (cfg && (cfg->bins < 0 || cfg->hill_k < 0 || cfg->hill_k >= count))
    return LA_ERANGE;
  k = cfg && cfg->hill_k > 0 ? cfg->hill_k : count / 10;
  if (k < 2) k = count > 2 ? 2 : 1;
  for (i = 0; i < count; ++i)
    if (!la__finite(x[i])) return LA_ENONFINITE;
  /* every statistic is checked before anything is written */
  ex = la__max_exponent((size_t)count, x);
  if (ex == INT_MIN) ex = 0;
  la__moments(count, x, ex, &m);
  for (i = 0; i < count; ++i) top += x[i] == m.max;
  if (!la__finite(m.var) || /* the spread is beyond the largest double */
      (m.max > 0 && top > k) || /* the k+1 largest equal: infinite index */
      (hist && !la__finite(ldexp(1.0 / la__bin_width(m.min, m.max, bins, ex),
                                 -ex)))) /* a density beyond it */
    return LA_ERANGE;
  if (sorted) {
    v = sorted;
  } else {
    s = la__work_begin(sizeof(double) * (size_t)count, &work, &bytes, &owned);
    if (s) return s;
    v = work;
  }
  memcpy(v, x, sizeof(double) * (size_t)count);
  la__sort(count, v, NULL);
  la__histogram(count, x, bins, m.min, m.max, ex, hist, edges);
  m.hill_alpha = la__dget(v, (size_t)(count - 1 - k)) > 0
                     ? la__hill_sorted(count, v, k) : 0;
  m.hill_stderr = m.hill_alpha / sqrt((double)k);
  if (gauss)
    for (i = 0; i < count; ++i) {
      double z = 0; /* p in (0, 1): the quantile is always set */
      la_normal_quantile((i + 0.5) / count, &z);
      gauss[i] = m.mean + sqrt(m.var) * z;
    }
  *st = m;
  la__work_end(owned);
  return LA_OK;
}


/* ------------------------------------------------ the model's Hessian */

LINATTN_DEF int la_hvp_matvec(void *op_, int n, const la_real *x, la_real *y) {
  la_hvp_op *op = (la_hvp_op *)op_;
  if (!op || !op->model || !x || !y) return LA_ENULL;
  if (n != op->model->nparams) return LA_EDIM;
  return la_model_hvp(op->model, op->theta, op->batch, x, NULL, NULL, y,
                      op->work, op->bytes);
}

LINATTN_DEF int la_hmp_matmat(void *op_, int n, int k, const la_real *x,
                              la_real *y) {
  la_hvp_op *op = (la_hvp_op *)op_;
  if (!op || !op->model || !x || !y) return LA_ENULL;
  if (n != op->model->nparams) return LA_EDIM;
  return la_model_hmp(op->model, op->theta, op->batch, k, x, NULL, NULL, y,
                      op->work, op->bytes);
}

/* The model's workspace first, then what the caller of the walk adds. */
static void *la__model_take(la__arena *a, const la_model *m, size_t *mb) {
  *mb = la_model_work_bytes(m);
  return la__take(a, *mb);
}

static int la__check_model(const la_model *m, const la_real *theta,
                           const la_batch *b) {
  if (!m || !theta || !b) return LA_ENULL;
  if (m->nparams <= 0) return LA_EDIM;
  if (b->d != m->cfg.d || b->n != m->cfg.n) return LA_ESHAPE;
  /* here, before any output: the first product would find it too late */
  if (!la__all_finite(m->nparams, theta)) return LA_ENONFINITE;
  return LA_OK;
}

/* Sets up op on the caller's (or an owned) block: the model workspace and
   `extra`, the rest for the operation. */
static int la__hess_begin(const la_model *m, const la_real *theta,
                          const la_batch *b, size_t need, void **work,
                          size_t *bytes, void **owned, la__arena *ar,
                          la_hvp_op *op) {
  int st = la__check_model(m, theta, b);
  if (st) return st;
  if (!need) return LA_EOVERFLOW; /* the size queries' word for it */
  st = la__work_begin(need, work, bytes, owned);
  if (st) return st;
  *ar = la__arena_on(*work, *bytes);
  if (!la__arena_align(ar)) { la__work_end(*owned); return LA_EWORKSPACE; }
  op->model = m; op->theta = theta; op->batch = b;
  op->work = la__model_take(ar, m, &op->bytes);
  return LA_OK;
}

/* ---- the Hessian's columns, a block of unit directions per pass */
/* The dense Hessian and its diagonal run the model with unit directions,
   kb of them per pass over the batch (la_model_hmp's sharing), each
   starting its tangent at its own stage (the layer the entry belongs to)
   and ending its backward tangent there (la__m_tangent's triangle):
   column j is formed in the rows of its stage and the later ones, the
   rest is the transpose of what the earlier stages' columns formed. kb
   keeps a pass's tangent parameters and its worker's lane-wise sums
   near 512 KiB. */
typedef struct la__hcols {
  la_real *v, *hv;     /* kb unit directions and their columns, as rows */
  int *stage;          /* their stages */
  void *mw;            /* the model's workspace for kb directions */
  size_t mb;
  int kb;
} la__hcols;

static void la__hcols_walk(la__arena *a, const la_model *m, la__hcols *h) {
  size_t n = (size_t)m->nparams;
  la__mdim d;
  la__m_dims(m, 1, &d);
  h->kb = (int)(262144.0 / ((double)d.nex * LA_W * sizeof(la_real)));
  if (h->kb < 1) h->kb = 1;
  if (h->kb > m->nparams) h->kb = m->nparams;
  h->mb = la__m_work_bytes_k(m, m->cfg.parallel, h->kb);
  if (!h->mb) a->over = 1; /* beyond size_t: the walk says so */
  h->mw = la__take(a, h->mb);
  h->v = (la_real *)la__take(a, sizeof(la_real) * (size_t)h->kb * n);
  h->hv = (la_real *)la__take(a, sizeof(la_real) * (size_t)h->kb * n);
  h->stage = (int *)la__take(a, sizeof(int) * (size_t)h->kb);
}

static size_t la__hcols_bytes(const la_model *m) {
  la__arena a = la__arena_count();
  la__hcols h;
  la__hcols_walk(&a, m, &h);
  return la__arena_size(&a);
}

/* Columns j0 .. j0+k-1 (k <= kb) into the rows of h->hv, or with diag
   (linear attention) their diagonal entries alone into diag[0 .. k-1],
   by forward tangents (la__m_diag2). */
static int la__hess_cols(const la_model *m, const la_real *theta,
                         const la_batch *b, la__hcols *h, int j0, int k,
                         double *diag) {
  size_t n = (size_t)m->nparams;
  la__msrc src;
  la__mdirs d;
  int j;
  /* never: a walk that did not fit was refused by the size query */
  if (!h->v || !h->stage) return LA_EOVERFLOW;
  memset(h->v, 0, sizeof(la_real) * (size_t)k * n);
  for (j = 0; j < k; ++j) {
    h->v[n * j + (size_t)(j0 + j)] = 1;
    h->stage[j] = la__m_stage(m, j0 + j);
  }
  memset(&d, 0, sizeof d);
  d.k = k;
  d.v = h->v;
  d.hv = h->hv;
  d.diag = diag;
  d.stage = h->stage;
  d.tri = 1;
  return la__m_run_k(m, m->cfg.parallel, theta, la__msrc_batch(&src, b), &d,
                     diag ? LA__M_DIAG : LA__M_HMP, NULL, NULL, NULL, h->mw, h->mb);
}

/* Whether column j forms row i (see la__hcols). */
static int la__hess_formed(const la_model *m, int i, int j) {
  int sj = la__m_stage(m, j);
  return sj < 0 || la__m_stage(m, i) >= sj;
}

/* The dense Hessian into h (row-major n x n): the formed entries, each
   pair formed both ways (within a stage) averaged, the others mirrored;
   asym (when not NULL) the asymmetry of the pairs formed both ways,
   scaled to all n (n - 1) / 2 pairs (the rounding of a pair formed once
   is taken to be of their size). */
static int la__hess_dense(const la_model *m, const la_real *theta,
                          const la_batch *b, la__hcols *hc, double *h,
                          double *asym) {
  int n = m->nparams, i, j, j0, k, st = LA_OK;
  for (j0 = 0; j0 < n && st == LA_OK; j0 += hc->kb) {
    k = n - j0 < hc->kb ? n - j0 : hc->kb;
    st = la__hess_cols(m, theta, b, hc, j0, k, NULL);
    for (j = 0; j < k && st == LA_OK; ++j) {
      const la_real *col = hc->hv + (size_t)n * j;
      if (!la__all_finite(n, col)) st = LA_ENONFINITE;
      for (i = 0; i < n; ++i)
        if (la__hess_formed(m, i, j0 + j)) h[(size_t)i * n + j0 + j] = col[i];
    }
  }
  if (st) return st;
  if (asym) {
    double pairs, a = la__asymmetry(n, h, m, &pairs);
    *asym = pairs > 0 ? a * sqrt(0.5 * n * (n - 1.0) / pairs) : 0;
  }
  for (i = 0; i < n; ++i)
    for (j = i + 1; j < n; ++j) {
      double *a = h + (size_t)i * n + j, *t = h + (size_t)j * n + i;
      int fa = la__hess_formed(m, i, j), ft = la__hess_formed(m, j, i);
      if (fa && ft) *a = *t = la__midpoint(*a, *t);
      else if (fa) *t = *a;
      else *a = *t;
    }
  return LA_OK;
}

/* The diagonal alone into diag: by forward tangents with linear
   attention, else from the columns' own stage. */
static int la__hess_diag(const la_model *m, const la_real *theta,
                         const la_batch *b, la__hcols *hc, double *diag) {
  int n = m->nparams, j, j0, k, st = LA_OK;
  int fwd = m->cfg.activation == LA_ACT_LINEAR;
  for (j0 = 0; j0 < n && st == LA_OK; j0 += hc->kb) {
    k = n - j0 < hc->kb ? n - j0 : hc->kb;
    st = la__hess_cols(m, theta, b, hc, j0, k, fwd ? diag + j0 : NULL);
    if (st == LA_EDIVERGED) st = LA_ENONFINITE;
    for (j = 0; j < k && st == LA_OK && !fwd; ++j) {
      double x = hc->hv[(size_t)n * j + (size_t)(j0 + j)];
      if (!la__finite(x)) st = LA_ENONFINITE;
      else diag[j0 + j] = x;
    }
  }
  return st;
}

LINATTN_DEF size_t la_hessian_work_bytes(const la_model *m) {
  la__arena a = la__arena_count();
  size_t mb;
  if (!m || m->nparams <= 0 || !la__m_valid(m)) return 0;
  la__model_take(&a, m, &mb);
  la__take(&a, la__hcols_bytes(m));
  return la__arena_size(&a);
}

LINATTN_DEF int la_hessian_dense(const la_model *m, const la_real *theta,
                                 const la_batch *b, double *h, void *work,
                                 size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  la__hcols hc;
  int st;
  if (!h) return LA_ENULL;
  st = la__hess_begin(m, theta, b, la_hessian_work_bytes(m), &work, &bytes,
                      &owned, &ar, &op);
  if (st) return st;
  la__hcols_walk(&ar, m, &hc);
  st = la__hess_dense(m, theta, b, &hc, h, NULL);
  la__work_end(owned);
  return st;
}

LINATTN_DEF int la_hessian_diag(const la_model *m, const la_real *theta,
                                const la_batch *b, double *diag, void *work,
                                size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  la__hcols hc;
  int st;
  if (!diag) return LA_ENULL;
  st = la__hess_begin(m, theta, b, la_hessian_work_bytes(m), &work, &bytes,
                      &owned, &ar, &op);
  if (st) return st;
  la__hcols_walk(&ar, m, &hc);
  st = la__hess_diag(m, theta, b, &hc, diag);
  la__work_end(owned);
  return st;
}

/* ---- estimates of the Hessian's diagonal (an optimizer's h_hat) */

typedef struct la__hdw {
  la__hcols hc;          /* exact: the columns' walk */
  la_real *u, *hv, *g;   /* hutchinson: u and H u; gnb: g~ */
  la_real *pred, *y;     /* gnb: the predictions and resampled labels */
} la__hdw;
static void la__hdiag_walk(la__arena *a, const la_model *m, int est,
                           int count, la__hdw *w) {
  size_t n = (size_t)m->nparams;
  size_t lanes = (size_t)la_panels(count) * LA_W;
  memset(w, 0, sizeof *w);
  if (est == LA_HESS_EXACT) la__hcols_walk(a, m, &w->hc);
  if (est == LA_HESS_HUTCHINSON) {
    w->u = (la_real *)la__take(a, sizeof(la_real) * n);
    w->hv = (la_real *)la__take(a, sizeof(la_real) * n);
  }
  if (est == LA_HESS_GNB) {
    w->g = (la_real *)la__take(a, sizeof(la_real) * n);
    w->pred = (la_real *)la__take(a, sizeof(la_real) * lanes);
    w->y = (la_real *)la__take(a, sizeof(la_real) * lanes);
  }
}

LINATTN_DEF size_t la_hdiag_work_bytes(const la_model *m, int estimator,
                                       int count) {
  la__arena a = la__arena_count();
  la__hdw w;
  size_t mb;
  if (!m || m->nparams <= 0 || !la__m_valid(m) || count <= 0 ||
      estimator < LA_HESS_HUTCHINSON || estimator > LA_HESS_GNB)
    return 0;
  la__model_take(&a, m, &mb);
  la__hdiag_walk(&a, m, estimator, count, &w);
  return la__arena_size(&a);
}

LINATTN_DEF int la_hdiag_estimate(const la_model *m, int estimator,
                                  const la_real *theta, const la_batch *b,
                                  la_rng *rng, double *out, void *work,
                                  size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  la__hdw w;
  int st, i, n;
  if (!out) return LA_ENULL;
  if (estimator < LA_HESS_HUTCHINSON || estimator > LA_HESS_GNB)
    return LA_ERANGE;
  if (estimator != LA_HESS_EXACT && !rng) return LA_ENULL;
  if ((st = la__check_model(m, theta, b)) != 0) return st;
  if (b->count <= 0) return LA_EDIM;
  st = la__hess_begin(m, theta, b,
                      la_hdiag_work_bytes(m, estimator, b->count), &work,
                      &bytes, &owned, &ar, &op);
  if (st) return st;
  la__hdiag_walk(&ar, m, estimator, b->count, &w);
  n = m->nparams;
  if (estimator == LA_HESS_EXACT) {
    st = la__hess_diag(m, theta, b, &w.hc, out);
  } else if (estimator == LA_HESS_HUTCHINSON) {
    for (i = 0; i < n; ++i) w.u[i] = la_rng_uniform(rng) < 0.5 ? 1 : -1;
    st = la_model_hvp(m, theta, b, w.u, NULL, NULL, w.hv, op.work, op.bytes);
    for (i = 0; i < n && !st; ++i) out[i] = (double)w.u[i] * (double)w.hv[i];
  } else {
    la_batch bt = *b;
    size_t lanes = (size_t)la_panels(b->count) * LA_W, k;
    st = la_model_loss(m, theta, b, NULL, w.pred, op.work, op.bytes);
    for (k = 0; k < lanes; ++k)
      w.y[k] = k < (size_t)b->count
                   ? (la_real)((double)w.pred[k] +
                               la_rng_normal(rng) * sqrt(0.5))
                   : 0;
    bt.y = w.y;
    bt.owned = NULL;
    if (!st) st = la_model_grad(m, theta, &bt, NULL, w.g, op.work, op.bytes);
    for (i = 0; i < n && !st; ++i)
      out[i] = (double)b->count * (double)w.g[i] * (double)w.g[i];
  }
  la__work_end(owned);
  return st;
}

/* The largest block of la_model_blocks. */
static int la__hblk_max(const la_model *m) {
  int i, nb = la__m_nblocks(m), most = 0, r, k;
  for (i = 0; i < nb; ++i) {
    (void)la_model_block_info(m, i, NULL, NULL, NULL, &r, &k);
    if (r * k > most) most = r * k;
  }
  return most;
}

LINATTN_DEF size_t la_hessian_blocks_work_bytes(const la_model *m) {
  la__arena a = la__arena_count();
  size_t mb, big, ew;
  if (!m || m->nparams <= 0 || !la__m_valid(m)) return 0;
  big = (size_t)la__hblk_max(m);
  ew = la_sym_eig_work_bytes((int)big);
  if (!ew) return 0;
  la__model_take(&a, m, &mb);
  la__take(&a, la__hcols_bytes(m));
  la__take(&a, sizeof(double) * big * big);
  la__take(&a, ew);
  return la__arena_size(&a);
}

LINATTN_DEF int la_hessian_blocks(const la_model *m, const la_real *theta,
                                  const la_batch *b, double *eig, void *work,
                                  size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  la__hcols hc;
  double *blk;
  void *ew;
  size_t ewb;
  int st, nb, p, n, big;
  if (!eig) return LA_ENULL;
  st = la__hess_begin(m, theta, b, la_hessian_blocks_work_bytes(m), &work,
                      &bytes, &owned, &ar, &op);
  if (st) return st;
  n = m->nparams;
  big = la__hblk_max(m);
  la__hcols_walk(&ar, m, &hc);
  blk = (double *)la__take(&ar, sizeof(double) * (size_t)big * (size_t)big);
  ewb = la_sym_eig_work_bytes(big);
  ew = la__take(&ar, ewb);
  nb = la__m_nblocks(m);
  for (p = 0; p < nb && st == LA_OK; ++p) {
    int r, c, off = la_model_block_info(m, p, NULL, NULL, NULL, &r, &c);
    int sz = r * c, i, j, j0, k;
    for (j0 = 0; j0 < sz && st == LA_OK; j0 += hc.kb) {
      k = sz - j0 < hc.kb ? sz - j0 : hc.kb;
      st = la__hess_cols(m, theta, b, &hc, off + j0, k, NULL);
      for (j = 0; j < k && st == LA_OK; ++j) {
        const la_real *col = hc.hv + (size_t)n * j;
        if (!la__all_finite(n, col)) st = LA_ENONFINITE;
        for (i = 0; i < sz; ++i) blk[(size_t)i * sz + j0 + j] = col[off + i];
      }
    }
    if (st) break;
    /* within a block every pair is formed both ways (one stage) */
    for (i = 0; i < sz; ++i)
      for (j = i + 1; j < sz; ++j) {
        double *x = blk + (size_t)i * sz + j, *y = blk + (size_t)j * sz + i;
        *x = *y = la__midpoint(*x, *y);
      }
    st = la_sym_eig(sz, blk, eig + off, NULL, ew, ewb);
  }
  la__work_end(owned);
  return st;
}

LINATTN_DEF int la_spectra_js(int nblocks, const int *sizes, const double *eig,
                              int bins, double *dist, double *mean,
                              double *work) {
  double lo, hi, w, *dens = work, *mix, sum = 0;
  int i, j, q, at, tot = 0, pairs = 0;
  if (!sizes || !eig || !work) return LA_ENULL;
  if (nblocks < 2 || bins < 2) return LA_EDIM;
  for (i = 0; i < nblocks; ++i) {
    if (sizes[i] <= 0) return LA_EDIM;
    tot += sizes[i];
  }
  for (i = 0; i < tot; ++i)
    if (!la__finite(eig[i])) return LA_ENONFINITE;
  lo = hi = eig[0];
  for (i = 1; i < tot; ++i) {
    if (eig[i] < lo) lo = eig[i];
    if (eig[i] > hi) hi = eig[i];
  }
  w = (hi - lo) / bins;
  mix = dens + (size_t)bins * (size_t)nblocks;
  for (i = 0, at = 0; i < nblocks; at += sizes[i], ++i) {
    double *d = dens + (size_t)bins * (size_t)i, z = 0;
    for (q = 0; q < bins; ++q) {
      double x = lo + (hi - lo) * q / (bins - 1), acc = 0;
      int e;
      for (e = 0; e < sizes[i] && w > 0; ++e) {
        double t = (x - eig[at + e]) / w;
        acc += exp(-0.5 * t * t);
      }
      d[q] = w > 0 ? acc : 1;
      z += d[q];
    }
    for (q = 0; q < bins; ++q) d[q] /= z;
  }
  for (i = 0; i < nblocks; ++i)
    for (j = 0; j < nblocks; ++j) {
      const double *a = dens + (size_t)bins * i, *c = dens + (size_t)bins * j;
      double js = 0, dj;
      for (q = 0; q < bins; ++q) {
        mix[q] = 0.5 * (a[q] + c[q]);
        if (a[q] > 0) js += 0.5 * a[q] * log2(a[q] / mix[q]);
        if (c[q] > 0) js += 0.5 * c[q] * log2(c[q] / mix[q]);
      }
      dj = sqrt(js > 0 ? (js < 1 ? js : 1) : 0);
      if (dist) dist[(size_t)i * nblocks + j] = dj;
      if (i < j) {
        sum += dj;
        ++pairs;
      }
    }
  if (mean) *mean = sum / pairs;
  return LA_OK;
}

LINATTN_DEF size_t la_hessian_eigs_work_bytes(const la_model *m, int k,
                                              const la_lanczos_config *cfg) {
  la__arena a = la__arena_count();
  size_t mb, lz;
  if (!m || m->nparams <= 0) return 0;
  lz = la_lanczos_work_bytes(m->nparams, k, cfg);
  if (!lz) return 0;
  la__model_take(&a, m, &mb);
  la__take(&a, lz);
  return la__arena_size(&a);
}

LINATTN_DEF int la_hessian_eigs(const la_model *m, const la_real *theta,
                                const la_batch *b, int k, double tol,
                                const la_lanczos_config *cfg, la_eig_out *out,
                                void *work, size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  size_t lz;
  int st;
  if (!out || !out->values) return LA_ENULL;
  if (m && (k <= 0 || k > m->nparams)) return LA_EDIM;
  if (!(tol > 0) || !la__finite(tol)) return LA_ERANGE;
  if (cfg && (cfg->which < 0 || cfg->which > 2 || cfg->max_iter < 0 ||
              (cfg->max_iter > 0 && cfg->max_iter < k)))
    return LA_ERANGE; /* la_lanczos's own checks, before the workspace */
  st = la__hess_begin(m, theta, b, la_hessian_eigs_work_bytes(m, k, cfg),
                      &work, &bytes, &owned, &ar, &op);
  if (st) return st;
  lz = la_lanczos_work_bytes(m->nparams, k, cfg);
  st = la_lanczos(m->nparams, la_hvp_matvec, &op, k, tol, cfg, out,
                  la__take(&ar, lz), lz);
  la__work_end(owned);
  return st;
}

/* ------------------------------------------ robust condition (model) */

static int la__rcond_dense(const la_rcond_config *cfg, int n) {
  int mx = cfg && cfg->dense_max > 0 ? cfg->dense_max : 1000;
  return n <= mx;
}

/* Layout after the model's workspace: diag (n), then either the dense path
   (H, spectrum) or the iterative one (SLQ nodes and weights), then room
   for the largest of what comes in turn: the Hessian's columns
   (la__hcols), the eigensolver, or the SLQ, Lanczos and median
   workspaces. */
static void la__rcond_walk(la__arena *a, const la_model *m,
                           const la_rcond_config *cfg, double **diag,
                           double **h, double **w, double **nodes,
                           double **weights, void **hmp, size_t *hmpb,
                           void **sub, size_t *subb) {
  int n = m->nparams;
  size_t hc = la__hcols_bytes(m);
  *diag = (double *)la__take(a, sizeof(double) * (size_t)n);
  *h = *w = *nodes = *weights = NULL;
  *hmp = NULL;
  *hmpb = 0;
  if (la__rcond_dense(cfg, n)) {
    *h = (double *)la__take(a, sizeof(double) * (size_t)n * n);
    *w = (double *)la__take(a, sizeof(double) * (size_t)n);
    *subb = la_sym_eig_work_bytes(n);
  } else {
    int probes, steps;
    size_t e1, e2;
    la__slq_defaults(n, cfg ? &cfg->slq : NULL, &probes, &steps);
    *nodes = (double *)la__take(a, sizeof(double) * (size_t)probes * steps);
    *weights = (double *)la__take(a, sizeof(double) * (size_t)probes * steps);
    /* the SLQ's probes in lockstep: the model's workspace for all of them */
    e1 = la__m_work_bytes_k(m, m->cfg.parallel, probes);
    if (!e1) a->over = 1;
    *hmp = la__take(a, e1);
    *hmpb = e1;
    e1 = la_slq_block_work_bytes(n, cfg ? &cfg->slq : NULL);
    e2 = la_lanczos_work_bytes(n, 1, NULL);
    *subb = e1 > e2 ? e1 : e2;
    e1 = sizeof(double) * 2 * (size_t)(probes * steps > n ? probes * steps : n);
    if (e1 > *subb) *subb = e1;
  }
  if (!hc) a->over = 1;
  if (hc > *subb) *subb = hc;
  if (sizeof(double) * 3 * (size_t)n > *subb) *subb = sizeof(double) * 3 * (size_t)n;
  *sub = la__take(a, *subb);
}

LINATTN_DEF size_t la_rcond_work_bytes(const la_model *m,
                                       const la_rcond_config *cfg) {
  la__arena a = la__arena_count();
  double *d, *h, *w, *nd, *wt;
  void *sub, *hmp;
  size_t subb, mb, hmpb;
  if (!m || m->nparams <= 0 || !la__m_valid(m)) return 0;
  if (cfg && (cfg->dense_max < 0 || cfg->slq.probes < 0 || cfg->slq.steps < 0))
    return 0;
  if (la__rcond_dense(cfg, m->nparams)
          ? !la_sym_eig_work_bytes(m->nparams)
          : !la_slq_block_work_bytes(m->nparams, cfg ? &cfg->slq : NULL))
    return 0; /* the n x n matrix or the probes * steps nodes do not fit */
  la__model_take(&a, m, &mb);
  la__rcond_walk(&a, m, cfg, &d, &h, &w, &nd, &wt, &hmp, &hmpb, &sub, &subb);
  return la__arena_size(&a);
}

/* The Hessian's columns carved from sub (la__rcond_walk made room). */
static la__hcols la__rcond_cols(const la_model *m, void *sub, size_t subb) {
  la__arena a = la__arena_on(sub, subb);
  la__hcols hc;
  la__hcols_walk(&a, m, &hc); /* sub is aligned, as every region of a walk */
  return hc;
}

/* lambda_max by Lanczos, the median from the SLQ density (its probes in
   lockstep through opk, the model's workspace for all of them). */
static int la__rcond_iterative(la_hvp_op *op, la_hvp_op *opk, int n,
                               const la_rcond_config *cfg, double *nodes,
                               double *weights, void *sub, size_t subb,
                               la_rcond *out) {
  int probes, steps, st;
  double lmax = 0;
  la_eig_out eo;
  memset(&eo, 0, sizeof eo);
  eo.values = &lmax;
  st = la_lanczos(n, la_hvp_matvec, op, 1, 1e-6, NULL, &eo, sub, subb);
  if (st && st != LA_ENOCONVERGE) return st;
  out->lambda_max = lmax;
  st = la_slq_block(n, la_hmp_matmat, opk, cfg ? &cfg->slq : NULL, nodes,
                    weights, sub, subb);
  if (st) return st;
  la__slq_defaults(n, cfg ? &cfg->slq : NULL, &probes, &steps);
  { /* the spacing of the quadrature nodes, or Lanczos's tolerance */
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    int i;
    for (i = 0; i < probes * steps; ++i)
      if (weights[i] > 0) {
        lo = nodes[i] < lo ? nodes[i] : lo;
        hi = nodes[i] > hi ? nodes[i] : hi;
      }
    out->resolution = 1e-6 * fabs(lmax);
    if (hi > lo && (hi - lo) / steps > out->resolution)
      out->resolution = (hi - lo) / steps;
  }
  return la_weighted_median(probes * steps, nodes, weights,
                            &out->lambda_median, sub, subb);
}

static int la__rcond_exact(const la_hvp_op *op, double *h, double *w,
                           double *diag, void *sub, size_t subb,
                           la_rcond *out) {
  const la_model *m = op->model;
  la__hcols hc = la__rcond_cols(m, sub, subb);
  double asym = 0, big;
  int i, n = m->nparams;
  int st = la__hess_dense(m, op->theta, op->batch, &hc, h, &asym);
  for (i = 0; i < n && st == LA_OK; ++i) diag[i] = h[(size_t)i * n + i];
  if (st == LA_OK) st = la_sym_eig(n, h, w, NULL, sub, subb);
  if (st) return st;
  out->lambda_max = w[n - 1];
  /* the Hessian's own rounding, or the eigensolver's */
  big = fabs(w[0]) > fabs(w[n - 1]) ? fabs(w[0]) : fabs(w[n - 1]);
  out->resolution = asym > n * 2.220446049250313e-16 * big
                        ? asym
                        : n * 2.220446049250313e-16 * big;
  return la_weighted_median(n, w, NULL, &out->lambda_median, sub, subb);
}

LINATTN_DEF int la_robust_cond(const la_model *m, const la_real *theta,
                               const la_batch *b, const la_rcond_config *cfg,
                               la_rcond *out, void *work, size_t bytes) {
  void *owned, *sub;
  la__arena ar;
  la_hvp_op op, opk;
  double *diag, *h, *w, *nodes, *weights, r;
  size_t subb;
  int n, st;
  if (!out) return LA_ENULL;
  if (cfg && (cfg->dense_max < 0 || cfg->slq.probes < 0 || cfg->slq.steps < 0 ||
              (cfg->median != LA_MEDIAN_LOWER && cfg->median != LA_MEDIAN_MID)))
    return LA_ERANGE;
  st = la__hess_begin(m, theta, b, la_rcond_work_bytes(m, cfg), &work, &bytes,
                      &owned, &ar, &op);
  if (st) return st;
  n = m->nparams;
  opk = op;
  la__rcond_walk(&ar, m, cfg, &diag, &h, &w, &nodes, &weights, &opk.work,
                 &opk.bytes, &sub, &subb);
  memset(out, 0, sizeof *out);
  out->exact = h != NULL;
  if (h) {
    st = la__rcond_exact(&op, h, w, diag, sub, subb, out);
  } else {
    la__hcols hc = la__rcond_cols(m, sub, subb);
    st = la__hess_diag(m, theta, b, &hc, diag);
    if (st == LA_OK)
      st = la__rcond_iterative(&op, &opk, n, cfg, nodes, weights, sub, subb,
                               out);
  }
  out->resolved = st == LA_OK &&
                  fabs(out->lambda_median) > out->resolution &&
                  la__ratio(out->lambda_max, out->lambda_median,
                            &out->by_spectrum) == LA_OK;
  if (st == LA_OK &&
      la_rcond_diag(n, diag, cfg ? cfg->median : LA_MEDIAN_LOWER, &r, sub, subb) == LA_OK)
    out->by_diag = r;
  la__work_end(owned);
  return st;
}

/* ------------------------------------------- directional smoothness */

LINATTN_DEF size_t la_dir_smoothness_work_bytes(const la_model *m) {
  la__arena a = la__arena_count();
  size_t mb;
  if (!m || m->nparams <= 0) return 0;
  la__model_take(&a, m, &mb);
  la__take(&a, sizeof(la_real) * 3 * (size_t)m->nparams);
  return la__arena_size(&a);
}

LINATTN_DEF int la_dir_smoothness(const la_model *m, const la_real *theta,
                                  const la_real *theta_next, const la_batch *b,
                                  double *smooth, double *gnorm, void *work,
                                  size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  la_real *u, *hu, *g;
  double nr = 0;
  int i, n, st;
  if (!theta_next || !smooth) return LA_ENULL;
  st = la__hess_begin(m, theta, b, la_dir_smoothness_work_bytes(m), &work,
                      &bytes, &owned, &ar, &op);
  if (st) return st;
  n = m->nparams;
  u = (la_real *)la__take(&ar, sizeof(la_real) * 3 * (size_t)n);
  hu = u + n;
  g = hu + n;
  /* the difference in double: consecutive iterates agree in most digits */
  for (i = 0; i < n; ++i) {
    double dlt = (double)theta_next[i] - (double)theta[i];
    nr += dlt * dlt;
  }
  nr = sqrt(nr);
  if (!(nr > 0) || !la__finite(nr)) {
    la__work_end(owned);
    return la__finite(nr) ? LA_ERANGE : LA_ENONFINITE;
  }
  for (i = 0; i < n; ++i)
    u[i] = (la_real)(((double)theta_next[i] - (double)theta[i]) / nr);
  st = la_model_hvp(m, theta, b, u, NULL, g, hu, op.work, op.bytes);
  if (st == LA_OK && (!la__all_finite(n, hu) || !la__all_finite(n, g)))
    st = LA_ENONFINITE;
  if (st == LA_OK) {
    double sm = la_dot(n, u, hu) / la_dot(n, u, u);
    if (!la__finite(sm)) st = LA_ERANGE; /* beyond the largest double */
    else *smooth = sm;
    if (st == LA_OK && gnorm) *gnorm = la_nrm2(n, g);
  }
  la__work_end(owned);
  return st;
}

/* ---------------------------------------------------- gradient noise */
/* The true gradient is one call on true_batch prompts drawn panel by panel
   (the model's workers share its chunks). The samples are tasks for the
   same workers, each a one-worker call on its own panels of the stream:
   sample s takes the panels after the true batch's and after those of the
   s samples before it, so its prompts, and its norm, do not depend on
   which worker drew them or when. */

static void la__gnoise_defaults(const la_grad_noise_config *cfg, int *mb,
                                int *tb, int *samples) {
  *mb = cfg && cfg->minibatch > 0 ? cfg->minibatch : 1000;
  /* 100 * minibatch past INT_MAX: -1, which the callers refuse */
  *tb = cfg && cfg->true_batch > 0 ? cfg->true_batch
        : *mb > 2147483647 / 100   ? -1
                                   : 100 * *mb;
  *samples = cfg && cfg->samples > 0 ? cfg->samples : 10000;
}

/* Each worker's block: a one-worker model workspace, then its gradient. */
typedef struct la__gnblocks {
  unsigned char *base;
  size_t mb1, stride;
} la__gnblocks;

/* The true gradient (la_real and double), the workers' first failures
   (sample, status) and blocks; 0 in *ok when the blocks overflow. */
static void la__gnoise_walk(la__arena *a, const la_model *m, la_real **gtr,
                            double **gt, int **fail, la__gnblocks *bl,
                            int *ok) {
  int n = m->nparams, workers = la__m_workers(m->cfg.parallel);
  *gtr = (la_real *)la__take(a, sizeof(la_real) * (size_t)n);
  *gt = (double *)la__take(a, sizeof(double) * (size_t)n);
  *fail = (int *)la__take(a, sizeof(int) * 2 * (size_t)workers);
  bl->mb1 = la__m_work_bytes(m, NULL);
  bl->stride = la__round_up(bl->mb1) + la__round_up(sizeof(la_real) * (size_t)n);
  *ok = bl->mb1 > 0 && (double)bl->stride * workers <= LA__WORK_MAX;
  bl->base = (unsigned char *)la__take(a, *ok ? bl->stride * (size_t)workers : 0);
}

LINATTN_DEF size_t la_grad_noise_work_bytes(const la_model *m,
                                            const la_grad_noise_config *cfg) {
  la__arena a = la__arena_count();
  size_t mb;
  la_real *gtr;
  double *gt;
  int *fail, mbsz, tb, samples, ok;
  la__gnblocks bl;
  if (!m || m->nparams <= 0 || !la__m_valid(m)) return 0;
  if (cfg && (cfg->minibatch < 0 || cfg->true_batch < 0 || cfg->samples < 0))
    return 0;
  la__gnoise_defaults(cfg, &mbsz, &tb, &samples);
  if (tb < 0) return 0;
  la__model_take(&a, m, &mb);
  la__gnoise_walk(&a, m, &gtr, &gt, &fail, &bl, &ok);
  return ok ? la__arena_size(&a) : 0;
}

/* ||a - b||_2, scaled as la__dnrm2: no square overflows. */
static double la__dist(int n, const la_real *a, const double *b) {
  double mx = 0, s = 0;
  int i, ex;
  la__pow2 p;
  for (i = 0; i < n; ++i)
    if (fabs(a[i] - b[i]) > mx) mx = fabs(a[i] - b[i]);
  ex = la__max_exponent(1, &mx);
  if (ex == INT_MIN) return 0;
  p = la__pow2_of(-ex);
  for (i = 0; i < n; ++i) {
    double y = la__pow2_mul(p, a[i] - b[i]);
    s += y * y;
  }
  return ldexp(sqrt(s), ex);
}

typedef struct la__gnjob {
  const la_model *m;
  const la_real *theta;
  const la__msrc *src; /* sample 0's source; p0 advanced per sample */
  const double *gt;
  double *norms;
  int *fail;
  la__gnblocks bl;
  uint64_t mb_panels;
} la__gnjob;

static void la__gnoise_task(void *arg, int s, int worker) {
  const la__gnjob *j = (const la__gnjob *)arg;
  int n = j->m->nparams, st, *f;
  unsigned char *blk;
  la_real *gb;
  la__msrc src;
  double loss;
  if (worker < 0 || worker >= la__m_workers(j->m->cfg.parallel)) return;
  blk = j->bl.base + (size_t)worker * j->bl.stride;
  gb = (la_real *)(void *)(blk + la__round_up(j->bl.mb1));
  f = j->fail + 2 * worker;
  src = *j->src;
  src.p0 += (uint64_t)s * j->mb_panels;
  st = la__m_run(j->m, NULL, j->theta, &src, NULL, LA__M_GRAD, &loss, NULL, gb, NULL,
                 blk, j->bl.mb1);
  if (st == LA_OK && !la__all_finite(n, gb)) st = LA_ENONFINITE;
  if (st) { /* the worker's first failing sample: tasks run in any order */
    if (f[0] < 0 || s < f[0]) { f[0] = s; f[1] = st; }
    return;
  }
  j->norms[s] = la__dist(n, gb, j->gt);
  if (!la__finite(j->norms[s])) { /* beyond double: a status, not inf */
    if (f[0] < 0 || s < f[0]) { f[0] = s; f[1] = LA_ERANGE; }
  }
}

LINATTN_DEF int la_grad_noise(const la_model *m, const la_real *theta,
                              const la_data *g, la_rng *rng,
                              const la_grad_noise_config *cfg, double *norms,
                              double *true_gnorm, void *work, size_t bytes) {
  void *owned;
  la__arena ar;
  la_hvp_op op;
  la__msrc src;
  la__gnjob j;
  size_t need;
  la_real *gtr;
  double *gt, loss;
  int *fail, mbsz, tb, samples, n, i, s, st, ok, workers, first = -1;
  uint64_t total;
  if (!m || !theta || !g || !rng || !norms) return LA_ENULL;
  if (cfg && (cfg->minibatch < 0 || cfg->true_batch < 0 || cfg->samples < 0))
    return LA_ERANGE;
  if (m->nparams <= 0) return LA_EDIM;
  if (!la__m_valid(m)) return LA_ERANGE;
  if (g->cfg.d != m->cfg.d || g->cfg.n != m->cfg.n) return LA_ESHAPE;
  /* before the first draw, so that rng is left as it was */
  if (!la__all_finite(m->nparams, theta)) return LA_ENONFINITE;
  la__gnoise_defaults(cfg, &mbsz, &tb, &samples);
  need = la_grad_noise_work_bytes(m, cfg);
  if (!need) return LA_EOVERFLOW; /* the default true batch, or the blocks */
  /* every panel of the run fits the stream */
  if ((st = la__msrc_drawn(&src, g, rng, tb)) != 0) return st;
  j.mb_panels = (uint64_t)la_panels(mbsz);
  total = (uint64_t)la_panels(tb) + (uint64_t)samples * j.mb_panels;
  if (src.p0 > LA__STREAM_PANELS - total) return LA_ERANGE;
  st = la__work_begin(need, &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) { la__work_end(owned); return LA_EWORKSPACE; }
  n = m->nparams;
  workers = la__m_workers(m->cfg.parallel);
  op.work = la__model_take(&ar, m, &op.bytes);
  la__gnoise_walk(&ar, m, &gtr, &gt, &fail, &j.bl, &ok);
  st = la__m_run(m, m->cfg.parallel, theta, &src, NULL, LA__M_GRAD, &loss, NULL, gtr,
                 NULL, op.work, op.bytes);
  if (st == LA_OK && !la__all_finite(n, gtr)) st = LA_ENONFINITE;
  for (i = 0; i < n; ++i) gt[i] = gtr[i];
  if (st == LA_OK) {
    j.m = m;
    j.theta = theta;
    j.gt = gt;
    j.norms = norms;
    j.fail = fail;
    src.p0 += (uint64_t)la_panels(tb);
    src.count = mbsz;
    j.src = &src;
    for (i = 0; i < 2 * workers; ++i) fail[i] = -1;
    for (s = 0; s < samples; ++s) norms[s] = -1; /* a sample not run */
    if (workers > 1)
      m->cfg.parallel->run(m->cfg.parallel->ctx, samples, la__gnoise_task, &j);
    else
      for (s = 0; s < samples; ++s) la__gnoise_task(&j, s, 0);
    for (i = 0; i < workers; ++i) /* the first failing sample decides */
      if (fail[2 * i] >= 0 && (first < 0 || fail[2 * i] < first)) {
        first = fail[2 * i];
        st = fail[2 * i + 1];
      }
    for (s = 0; s < samples && st == LA_OK; ++s)
      if (norms[s] < 0) st = LA_ERANGE; /* a host that skipped a task */
  }
  if (st == LA_OK) {
    if (true_gnorm) *true_gnorm = la__dnrm2(n, gt);
    rng->counter = (src.p0 + (uint64_t)samples * j.mb_panels)
                   << LA__PANEL_WORDS_LOG2;
  }
  la__work_end(owned);
  return st;
}

/* ================================================================== */
/*                 6. Training driver and checkpoints                 */
/* ================================================================== */

/* ------------------------------------------------------------- trainer */

/* The optimizer of a run that names none, nor its experiment. */
#define LA__OPT_DEFAULT "adam"
/* A run field's default where no experiment gives one (the table of the
   runs, below): the trainer's zero fields take the same values. */
static double la__run_table_default(const char *key);

static la_train_config la__tr_train_defaults(const la_train_config *c) {
  la_train_config d = *c;
  if (!d.optimizer) d.optimizer = la_optim_find(LA__OPT_DEFAULT)->optimizer;
  if (!d.batch) d.batch = (int)la__run_table_default("batch");
  if (!d.resample_every)
    d.resample_every = (int)la__run_table_default("resample_every");
  if (!d.eval_every) d.eval_every = (int)la__run_table_default("eval_every");
  if (!d.eval_batch) d.eval_batch = d.batch;  /* eval_batch follows batch */
  if (!d.eval_seed) d.eval_seed = d.seed;     /* eval_seed follows seed */
  return d;
}

/* The estimator of the Hessian's diagonal the run's optimizer asks for
   (LA_HESS_*), or -1 for one that reads the gradient alone. */
static int la__tr_hess_kind(const la_train_config *c) {
  const la_optim_entry *e = la_optim_entry_of(c->optimizer);
  la_optim_config z, r;
  memset(&z, 0, sizeof z);
  if (!e || !e->curvature) return -1;
  if (la_optim_resolve(e, c->optimizer_config
                              ? (const la_optim_config *)c->optimizer_config
                              : &z,
                       &r) != LA_OK)
    return -1; /* refused by the optimizer's own check */
  return r.hessian;
}

static int la__tr_train_check(const la_train_config *c) {
  int st;
  if (!c->model && !c->objective) return LA_ENULL;
  if (!c->model && c->nparams <= 0) return LA_EDIM;
  if (c->model && !la__m_valid(c->model)) return LA_ERANGE;
  if (c->model && !c->data && !(c->data_mode == LA_DATA_FIXED && c->dataset) &&
      c->data_mode != LA_DATA_GIVEN)
    return LA_ENULL;
  if (c->batch < 0 || c->eval_batch < 0 || c->resample_every < 0)
    return LA_EDIM;
  if (c->data_mode < 0 || c->data_mode > LA_DATA_GIVEN) return LA_ERANGE;
  if (c->data_mode == LA_DATA_GIVEN) {
    long t;
    if (!c->batches) return LA_ENULL;
    if (c->nbatches <= 0) return LA_EDIM;
    for (t = 0; t < c->nbatches; ++t)
      if (c->model && (c->batches[t].d != c->model->cfg.d ||
                       c->batches[t].n != c->model->cfg.n))
        return LA_ESHAPE;
  }
  if (!la__par_valid(c->parallel)) return LA_ERANGE;
  if (!(c->clip_norm >= 0) || !la__finite(c->clip_norm)) return LA_ERANGE;
  if (!(c->clip_block >= 0) || !la__finite(c->clip_block)) return LA_ERANGE;
  if (c->skip_overflow < 0) return LA_ERANGE;
  if ((st = la_schedule_check(&c->schedule)) != 0) return st;
  if ((st = la_optim_check(c->optimizer, c->optimizer_config)) != 0) return st;
  /* a closure optimizer's own evaluations are not clipped: a clipped first
     gradient would not be the objective's */
  if (la__op_closure_fn(c->optimizer) && (c->clip_norm > 0 || c->clip_block > 0))
    return LA_ERANGE;
  /* an optimizer that reads the Hessian's diagonal: the model's */
  if (la__tr_hess_kind(c) >= 0 && (!c->model || c->objective))
    return LA_EUNSUPPORTED;
  if (c->model && c->dataset &&
      (c->dataset->d != c->model->cfg.d || c->dataset->n != c->model->cfg.n))
    return LA_ESHAPE;
  if (c->model && c->data &&
      (c->data->cfg.d != c->model->cfg.d || c->data->cfg.n != c->model->cfg.n))
    return LA_ESHAPE;
  return LA_OK;
}

/* The layout of the trainer's block, computed once for the size query and
   once more to carve it. */
typedef struct la__tr_train_layout {
  size_t theta, grad, update, state, backup, boff, bsize, train, eval, work,
      hwork, ocfg, total;
  size_t state_len, train_bytes, eval_bytes, work_bytes, hwork_bytes;
  int n, nblocks_max, has_train, has_eval, fused;
} la__tr_train_layout;


/* The threads of the trainer's model calls. */
static const la_parallel *la__tr_parallel(const la_train_config *c) {
  return c->parallel || !c->model ? c->parallel : c->model->cfg.parallel;
}

/* Fresh prompts for the model itself are drawn where the gradient consumes
   them, panel by panel: no batch is stored. Not for an optimizer that
   evaluates again within the step (its closure needs the step's batch),
   nor for one that reads the Hessian's diagonal there. */
static int la__tr_fused(const la_train_config *c, int has_train) {
  return has_train && c->data_mode == LA_DATA_FRESH && !c->objective &&
         !la__op_closure_fn(c->optimizer) && la__tr_hess_kind(c) < 0;
}

/* The most prompts a step's batch holds (0 without a model's batches). */
static int la__tr_batch_max(const la_train_config *c, int has_train) {
  long t;
  int most = 0;
  if (c->data_mode == LA_DATA_FIXED && c->dataset) return c->dataset->count;
  if (c->data_mode == LA_DATA_GIVEN) {
    for (t = 0; t < c->nbatches; ++t)
      if (c->batches[t].count > most) most = c->batches[t].count;
    return most;
  }
  return has_train ? c->batch : 0;
}

/* The model's workspace with the trainer's workers (0 without a model). */
static size_t la__tr_work_bytes(const la_train_config *c) {
  return c->model ? la__m_work_bytes(c->model, la__tr_parallel(c)) : 0;
}

/* The configuration the optimizer steps with: a built-in's with the
   trainer's model in place of a NULL model (the matrices it sees), kept
   in buf; otherwise the caller's. */
static const void *la__tr_bind(const la_train_config *c, la_optim_config *buf) {
  if (!c->model || !la__op_reads_model(c->optimizer))
    return c->optimizer_config;
  if (c->optimizer_config) *buf = *(const la_optim_config *)c->optimizer_config;
  else memset(buf, 0, sizeof *buf);
  if (buf->model) return c->optimizer_config;
  buf->model = c->model;
  return buf;
}

static int la__tr_train_layout_of(const la_train_config *c,
                                  la__tr_train_layout *L) {
  const la_model *m = c->model;
  la__arena a = la__arena_count();
  la_optim_config oc;
  const void *ocp = la__tr_bind(c, &oc);
  int st;
  memset(L, 0, sizeof *L);
  L->n = m ? m->nparams : c->nparams;
  if (L->n <= 0) return LA_EDIM;
  st = la_optim_state_len(c->optimizer, ocp, L->n, &L->state_len);
  if (st) return st;
  if (L->state_len > (size_t)-1 / 4 / sizeof(double)) return LA_EOVERFLOW;
  L->nblocks_max = m ? la__m_nblocks(m) : 1;
  L->has_train = m && c->data && !(c->data_mode == LA_DATA_FIXED && c->dataset) &&
                 c->data_mode != LA_DATA_GIVEN;
  /* kept even without periodic evaluation, for la_trainer_eval */
  L->has_eval = m && c->data;
  L->fused = la__tr_fused(c, L->has_train);
  /* the model is valid here (checked): a zero size is an overflow */
  if (L->has_train && !L->fused) {
    L->train_bytes = la_batch_bytes(m->cfg.d, m->cfg.n, c->batch);
    if (!L->train_bytes) return LA_EOVERFLOW;
  }
  if (L->has_eval) {
    L->eval_bytes = la_batch_bytes(m->cfg.d, m->cfg.n, c->eval_batch);
    if (!L->eval_bytes) return LA_EOVERFLOW;
  }
  L->work_bytes = la__tr_work_bytes(c);
  if (m && !L->work_bytes) return LA_EOVERFLOW;
  if (m && la__tr_hess_kind(c) >= 0) {
    int most = la__tr_batch_max(c, L->has_train);
    if (most <= 0) return LA_EDIM;
    L->hwork_bytes = la_hdiag_work_bytes(m, la__tr_hess_kind(c), most);
    if (!L->hwork_bytes) return LA_EOVERFLOW;
  }
  L->theta = la__take_off(&a, sizeof(la_real) * (size_t)L->n);
  L->grad = la__take_off(&a, sizeof(la_real) * (size_t)L->n);
  /* the update, then 2n reals of scratch for a closure optimizer */
  if ((size_t)L->n > (size_t)-1 / 4 / sizeof(la_real)) return LA_EOVERFLOW;
  L->update = la__take_off(&a, sizeof(la_real) * 3 * (size_t)L->n);
  L->state = la__take_off(&a, sizeof(double) * L->state_len);
  L->backup = la__take_off(&a, sizeof(double) * L->state_len);
  L->boff = la__take_off(&a, sizeof(int) * (size_t)L->nblocks_max);
  L->bsize = la__take_off(&a, sizeof(int) * (size_t)L->nblocks_max);
  L->train = la__take_off(&a, L->train_bytes);
  L->eval = la__take_off(&a, L->eval_bytes);
  L->work = la__take_off(&a, L->work_bytes);
  L->hwork = la__take_off(&a, L->hwork_bytes);
  L->ocfg = la__take_off(&a, ocp == &oc ? sizeof oc : 0);
  L->total = la__arena_size(&a); /* with room to align the caller's block */
  if (!L->total) return LA_EOVERFLOW;
  return LA_OK;
}

LINATTN_DEF int la_trainer_bytes(const la_train_config *cfg, size_t *bytes) {
  la_train_config c;
  la__tr_train_layout L;
  int st;
  if (!cfg || !bytes) return LA_ENULL;
  c = la__tr_train_defaults(cfg);
  if ((st = la__tr_train_check(&c)) != 0) return st;
  if ((st = la__tr_train_layout_of(&c, &L)) != 0) return st;
  *bytes = L.total;
  return LA_OK;
}

/* Streams of the trainer's own draws; data batches use the stream of
   their step (FRESH) or period (RESAMPLE), as the generator's documentation
   describes, so the batch of step t depends on (seed, t) alone. */
#define LA__TR_STREAM_EVAL 0xffffffffffffffffull
#define LA__TR_STREAM_INIT 0xfffffffffffffffeull

/* Draws the current batch from `stream`, remembering where it started so
   that a checkpoint can redraw it. */
static int la__tr_draw(la_trainer *tr, uint64_t stream) {
  la_rng_seed(&tr->rng, tr->data_seed, stream);
  tr->batch_rng = tr->rng;
  tr->batch_valid = 1;
  return la__data_sample_on(tr->cfg.data, &tr->rng, &tr->train,
                            la__tr_parallel(&tr->cfg));
}

static int la__tr_trainer_start(la_trainer *tr) {
  const la_train_config *c = &tr->cfg;
  int st;
  la_rng r;
  if (c->theta0) {
    memcpy(tr->theta, c->theta0, sizeof(la_real) * (size_t)tr->n);
    if (!la__all_finite(tr->n, tr->theta)) return LA_ENONFINITE;
  } else if (c->model) {
    la_rng_seed(&r, c->seed, LA__TR_STREAM_INIT);
    st = la_model_init_params(c->model, &r, tr->theta);
    if (st) return st;
  }
  if ((st = la_optim_init(c->optimizer, c->optimizer_config, tr->n, tr->state,
                          tr->state_len)) != 0)
    return st;
  tr->data_seed = c->seed;
  la_rng_seed(&tr->rng, c->seed, 0);
  tr->batch_rng = tr->rng;
  if (tr->has_eval) {
    la_rng_seed(&r, c->eval_seed, LA__TR_STREAM_EVAL);
    st = la__data_sample_on(c->data, &r, &tr->eval, la__tr_parallel(c));
    if (st) return st;
  }
  if (tr->has_train && c->data_mode == LA_DATA_FIXED) return la__tr_draw(tr, 0);
  return LA_OK;
}

static int la__tr_trainer_blocks(la_trainer *tr, int nmax) {
  if (!tr->cfg.model) {
    tr->nblocks = 1;
    tr->block_off[0] = 0;
    tr->block_size[0] = tr->n;
    return LA_OK;
  }
  tr->nblocks = 
      la_model_blocks(tr->cfg.model, tr->block_off, tr->block_size, nmax);
  return tr->nblocks > 0 && tr->nblocks <= nmax ? LA_OK : LA_EDIM;
}

static int la__tr_trainer_init(la_trainer *tr, void *mem, size_t bytes) {
  la__tr_train_layout L;
  unsigned char *base;
  int st;
  if ((st = la__tr_train_layout_of(&tr->cfg, &L)) != 0) return st;
  if (bytes < L.total) return LA_EWORKSPACE;
  base = (unsigned char *)mem + la__align_gap(mem);
  memset(base, 0, L.total - LA_ALIGN);
  tr->n = L.n;
  tr->theta = (la_real *)(void *)(base + L.theta);
  tr->grad = (la_real *)(void *)(base + L.grad);
  tr->update = (la_real *)(void *)(base + L.update);
  tr->state = (double *)(void *)(base + L.state);
  tr->backup = (double *)(void *)(base + L.backup);
  tr->state_len = L.state_len;
  tr->block_off = (int *)(base + L.boff);
  tr->block_size = (int *)(base + L.bsize);
  tr->work = L.work_bytes ? base + L.work : NULL;
  tr->work_bytes = L.work_bytes;
  tr->hwork = L.hwork_bytes ? base + L.hwork : NULL;
  tr->hwork_bytes = L.hwork_bytes;
  tr->has_train = L.has_train;
  tr->has_eval = L.has_eval;
  tr->last_eval = NAN;
  {
    la_optim_config oc;
    if (la__tr_bind(&tr->cfg, &oc) == &oc) {
      la_optim_config *kept = (la_optim_config *)(void *)(base + L.ocfg);
      *kept = oc;
      tr->cfg.optimizer_config = kept;
    }
  }
  if (L.has_train && !L.fused && (st = la_batch_init(&tr->train, tr->cfg.model->cfg.d,
                                         tr->cfg.model->cfg.n, tr->cfg.batch,
                                         base + L.train, L.train_bytes)) != 0)
    return st;
  if (L.has_eval && (st = la_batch_init(
                         &tr->eval, tr->cfg.model->cfg.d, tr->cfg.model->cfg.n,
                         tr->cfg.eval_batch, base + L.eval, L.eval_bytes)) != 0)
    return st;
  if ((st = la__tr_trainer_blocks(tr, L.nblocks_max)) != 0) return st;
  return la__tr_trainer_start(tr);
}

LINATTN_DEF int la_trainer_init(la_trainer *tr, const la_train_config *cfg,
                                void *mem, size_t bytes) {
  int st;
  if (!tr || !cfg || !mem) return LA_ENULL;
  memset(tr, 0, sizeof *tr);
  tr->cfg = la__tr_train_defaults(cfg);
  st = la__tr_train_check(&tr->cfg);
  if (!st) st = la__tr_trainer_init(tr, mem, bytes);
  if (st) tr->theta = NULL; /* not usable: every call says LA_ENULL */
  return st;
}

#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_trainer_create(la_trainer *tr, const la_train_config *cfg) {
  size_t bytes;
  void *mem;
  int st;
  if (!tr || !cfg) return LA_ENULL;
  if ((st = la_trainer_bytes(cfg, &bytes)) != 0) return st;
  mem = LINATTN_MALLOC(bytes, NULL);
  if (!mem) return LA_ENOMEM;
  st = la_trainer_init(tr, cfg, mem, bytes);
  tr->owned = mem;
  if (st) la_trainer_destroy(tr);
  return st;
}
LINATTN_DEF void la_trainer_destroy(la_trainer *tr) {
  if (!tr) return;
  if (tr->owned) LINATTN_FREE(tr->owned, NULL);
  tr->owned = NULL;
  tr->theta = tr->grad = tr->update = NULL;
  tr->state = tr->backup = NULL;
}
#endif

/* The batch of the coming step, or NULL without data. */
static int la__tr_step_batch(la_trainer *tr, const la_batch **b) {
  const la_train_config *c = &tr->cfg;
  int st = LA_OK;
  *b = NULL;
  if (c->data_mode == LA_DATA_FIXED && c->dataset) {
    *b = c->dataset;
    return LA_OK;
  }
  if (c->data_mode == LA_DATA_GIVEN) {
    if (tr->step >= c->nbatches) return LA_ERANGE;
    *b = &c->batches[tr->step];
    return LA_OK;
  }
  if (!tr->has_train) return LA_OK;
  if (c->data_mode == LA_DATA_FRESH && !tr->train.z) { /* fused: no batch */
    la_rng_seed(&tr->rng, tr->data_seed, (uint64_t)tr->step);
    tr->batch_rng = tr->rng;
    tr->batch_valid = 1;
    return LA_OK;
  } else if (c->data_mode == LA_DATA_FRESH)
    st = la__tr_draw(tr, (uint64_t)tr->step);
  else if (c->data_mode == LA_DATA_RESAMPLE &&
           tr->step % c->resample_every == 0)
    st = la__tr_draw(tr, (uint64_t)(tr->step / c->resample_every));
  *b = &tr->train;
  return st;
}

static int la__tr_objective_at(la_trainer *tr, const la_real *theta,
                               const la_batch *b, double *loss,
                               la_real *grad) {
  const la_train_config *c = &tr->cfg;
  la__msrc src;
  int st;
  if (c->objective)
    return c->objective(c->objective_ctx, theta, b, loss, grad);
  if (!b && grad && tr->has_train) { /* fused: the step's prompts drawn */
    if ((st = la__msrc_drawn(&src, c->data, &tr->rng, c->batch)) != 0)
      return st;
    tr->rng.counter = (src.p0 + (uint64_t)la_panels(c->batch))
                      << LA__PANEL_WORDS_LOG2;
    return la__m_run(c->model, la__tr_parallel(c), theta, &src, NULL, LA__M_GRAD,
                     loss, NULL, grad, NULL, tr->work, tr->work_bytes);
  }
  return la__m_run(c->model, la__tr_parallel(c), theta,
                   la__msrc_batch(&src, b), NULL, grad ? LA__M_GRAD : LA__M_LOSS, loss, NULL,
                   grad, NULL, tr->work, tr->work_bytes);
}
static int la__tr_objective(la_trainer *tr, const la_batch *b, double *loss,
                            la_real *grad) {
  return la__tr_objective_at(tr, tr->theta, b, loss, grad);
}

/* The closure a closure optimizer gets: the objective on the step's batch. */
typedef struct la__tr_closure {
  la_trainer *tr;
  const la_batch *b;
} la__tr_closure;
static int la__tr_closure_eval(void *ctx, const la_real *theta, double *loss,
                               la_real *grad) {
  la__tr_closure *c = (la__tr_closure *)ctx;
  return la__tr_objective_at(c->tr, theta, c->b, loss, grad);
}

LINATTN_DEF int la_trainer_eval(la_trainer *tr, double *loss) {
  int st;
  if (!tr || !loss || !tr->theta) return LA_ENULL;
  st = la__tr_objective(tr, tr->has_eval ? &tr->eval : NULL, loss, NULL);
  if (st) return st;
  if (!la__finite(*loss)) return LA_EDIVERGED; /* a caller's objective */
  tr->last_eval = *loss;
  return LA_OK;
}

static int la__tr_diverged(la_trainer *tr) {
  tr->diverged_step = tr->step + 1;
  return LA_EDIVERGED;
}

/* The estimate of the Hessian's diagonal the coming step asks for, on its
   batch at theta, its draws from the run's seed's stream LA_STREAM_HESS
   at the position the state holds. */
static int la__tr_curvature(la_trainer *tr, const la_batch *b) {
  const la_train_config *c = &tr->cfg;
  la_curvature q;
  la_rng r;
  int st = la_optim_curvature(c->optimizer, c->optimizer_config, tr->n,
                              tr->state, tr->state_len, &q);
  if (st || !q.want) return st;
  if (!b || !c->model || !tr->hwork) return LA_EUNSUPPORTED; /* checked */
  la_rng_seed(&r, tr->data_seed, LA_STREAM_HESS);
  r.counter = (uint64_t)*q.position;
  st = la_hdiag_estimate(c->model, q.estimator, tr->theta, b, &r, q.want,
                         tr->hwork, tr->hwork_bytes);
  if (st == LA_OK) *q.position = (double)r.counter;
  return st;
}

/* Steps 3 and 4: clip, then the optimizer's update into tr->update, with
   the state restored if the result is not finite. */
static int la__tr_clip_and_update(la_trainer *tr, la_train_record *r,
                                  const la_batch *b) {
  const la_train_config *c = &tr->cfg;
  la_closure_step_fn cs = la__op_closure_fn(c->optimizer);
  double nrm = la__op_norm_d(tr->n, tr->grad);
  int i, st;
  r->grad_norm = nrm;
  if (c->clip_norm > 0) la__op_clip(tr->n, tr->grad, c->clip_norm, nrm);
  if (c->clip_block > 0)
    for (i = 0; i < tr->nblocks; ++i)
      la__op_clip(
          tr->block_size[i], tr->grad + tr->block_off[i], c->clip_block,
          la__op_norm_d(tr->block_size[i], tr->grad + tr->block_off[i]));
  r->clipped_norm = (c->clip_norm > 0 || c->clip_block > 0)
                        ? la__op_norm_d(tr->n, tr->grad)
                        : nrm;
  if ((st = la_schedule_scale(&c->schedule, tr->step, &r->lr_scale)) != 0)
    return st;
  if (tr->state_len)
    memcpy(tr->backup, tr->state, sizeof(double) * tr->state_len);
  if (tr->hwork && (st = la__tr_curvature(tr, b)) != 0) {
    if (tr->state_len)
      memcpy(tr->state, tr->backup, sizeof(double) * tr->state_len);
    if (st == LA_EDIVERGED || st == LA_ENONFINITE) return la__tr_diverged(tr);
    return st;
  }
  if (cs) {
    la__tr_closure cc;
    la_closure f;
    cc.tr = tr; cc.b = b;
    f.eval = la__tr_closure_eval; f.ctx = &cc; f.work = tr->update + tr->n;
    st = cs(c->optimizer_config, tr->n, tr->state, r->lr_scale, r->loss,
            tr->theta, tr->grad, tr->update, &f);
    /* an evaluation inside the step overflowed: the run diverged there */
    if (st == LA_EDIVERGED || st == LA_ENONFINITE) {
      if (tr->state_len)
        memcpy(tr->state, tr->backup, sizeof(double) * tr->state_len);
      return la__tr_diverged(tr);
    }
  } else {
    st = c->optimizer->step(c->optimizer_config, tr->n, tr->state,
                            r->lr_scale, tr->theta, tr->grad, tr->update);
  }
  if (st) return st;
  {
    double acc = 0;
    for (i = 0; i < tr->n; ++i)
      acc += (double)(tr->theta[i] + tr->update[i]) * 0.0;
    if (acc != 0) {
      if (tr->state_len)
        memcpy(tr->state, tr->backup, sizeof(double) * tr->state_len);
      return la__tr_diverged(tr);
    }
  }
  return LA_OK;
}

/* Adds the update, keeping in tr->update the change that rounding let
   through, the step actually taken. */
static double la__tr_apply(la_trainer *tr) {
  double s = 0;
  int i;
  for (i = 0; i < tr->n; ++i) {
    la_real old = tr->theta[i];
    tr->theta[i] = old + tr->update[i];
    tr->update[i] = tr->theta[i] - old;
    s += (double)tr->update[i] * tr->update[i];
  }
  return sqrt(s);
}

LINATTN_DEF int la_trainer_step(la_trainer *tr) {
  la_train_record r;
  const la_batch *b;
  int st;
  if (!tr || !tr->theta) return LA_ENULL;
  if (tr->diverged_step) return LA_EDIVERGED;
  if (tr->step == LONG_MAX) return LA_ERANGE; /* a loaded step at the limit */
  memset(&r, 0, sizeof r);
  if ((st = la__tr_step_batch(tr, &b)) != 0) return st;
  st = la__tr_objective(tr, b, &r.loss, tr->grad);
  if (st && st != LA_EDIVERGED && st != LA_ENONFINITE) return st;
  /* the model's own word for an overflow, or a NaN that reached theta */
  if (st || !la__finite(r.loss) || !la__all_finite(tr->n, tr->grad)) {
    int i;
    if (tr->skipped >= tr->cfg.skip_overflow) return la__tr_diverged(tr);
    tr->skipped++; /* skipped: no update, the batch used up */
    r.skipped = 1;
    r.loss = r.grad_norm = r.clipped_norm = HUGE_VAL;
    if ((st = la_schedule_scale(&tr->cfg.schedule, tr->step, &r.lr_scale)) != 0)
      return st;
    for (i = 0; i < tr->n; ++i) tr->grad[i] = tr->update[i] = 0;
  } else {
    if ((st = la__tr_clip_and_update(tr, &r, b)) != 0) return st;
    r.update_norm = la__tr_apply(tr);
  }
  r.step = ++tr->step;
  r.nparams = tr->n;
  r.grad = tr->grad;
  r.update = tr->update;
  r.theta = tr->theta;
  if (tr->cfg.eval_every > 0 && tr->step % tr->cfg.eval_every == 0 &&
      (tr->has_eval || !tr->cfg.model)) {
    st = la_trainer_eval(tr, &r.eval_loss);
    /* an eval loss that overflows ends the run as well, at this step */
    if (st == LA_EDIVERGED || st == LA_ENONFINITE) {
      tr->diverged_step = tr->step;
      return LA_EDIVERGED;
    }
    if (st) return st;
    r.has_eval = 1;
  }
  if (tr->cfg.callback && tr->cfg.callback(tr->cfg.user, &r)) tr->stopped = 1;
  return LA_OK;
}

LINATTN_DEF int la_trainer_run(la_trainer *tr, long steps) {
  long i;
  int st;
  if (!tr || !tr->theta) return LA_ENULL;
  if (steps < 0) return LA_ERANGE;
  tr->stopped = 0;
  for (i = 0; i < steps && !tr->stopped; ++i)
    if ((st = la_trainer_step(tr)) != 0) return st;
  return LA_OK;
}

/* ---------------------------------------------------------------- runs */

/* The data settings' names, which are also the names of their presets. */
#define LA__SETTING_NAMES "none", "1", "2", "3", "sphere", "nonlinear", "paper-b"
static const char *const la__setting_names[] = {LA__SETTING_NAMES, NULL};
/* Index 0 none; then the experiments, in the order of la__experiments:
   the settings' first, in the order of their numbers. */
static const char *const la__preset_names[] = {
    LA__SETTING_NAMES, "large",      "b-depth",   "b-context", "b-theorem4",
    "b-theorem1",      "b-three-layer", "b-theorem5", NULL};
static const char *const la__covariate_names[] = {"gaussian", "gamma-sphere",
                                                  "sphere", NULL};
/* a given Sigma is a matrix, not a value: no run names it */
static const char *const la__sigma_names[] = {"identity", "", "paper-b", NULL};
static const char *const la__wstar_names[] = {"identity", "sigma-inv", NULL};
static const char *const la__target_names[] = {"linear", "relu-net", NULL};
static const char *const la__param_names[] = {"sparse", "dense", "pgd", NULL};
static const char *const la__act_names[] = {"linear", "relu", "softmax",
                                            NULL};
static const char *const la__front_init_names[] = {"uniform", "normal", NULL};
static const char *const la__sched_names[] = {"constant", "halving", "cosine",
                                              NULL};
static const char *const la__mode_names[] = {"fresh", "resample", "fixed",
                                             "given", NULL};
static const char *const la__ls_names[] = {"none", "strong-wolfe", NULL};
static const char *const la__hess_names[] = {"hutchinson", "exact", "gnb",
                                             NULL};
static const char *const la__median_names[] = {"lower", "mid", NULL};

/* The fields of a run, in the order records list them. Ranges are the
   header's limits; whole numbers beyond 2^53 would not survive a double.
   A range starting at 1 says that zero is no value of the field (given
   zero is refused; not given, it takes its default). The default column:
   a value; or LA__NODEF with the key of the field it follows, or with
   NULL for an optimizer's field (the registry's). */
#define LA__RF(key, kind, member, lo, hi, flags, optim, names, help, def,     \
               follows)                                                       \
  {key,   kind, offsetof(la_run_config, member), lo, hi, flags, optim, names, \
   help,  def,  follows}
#define LA__ID LA_FIELD_IDENTITY
#define LA__SH (LA_FIELD_IDENTITY | LA_FIELD_SHAPE)
#define LA__DS (LA_FIELD_IDENTITY | LA_FIELD_SETTING)
#define LA__SEL (LA_FIELD_IDENTITY | LA_FIELD_SELECTOR)
#define LA__BIG 9007199254740992.0 /* 2^53 */
#define LA__INTMAX 2147483647.0
#define LA__BETA 0.999999
#define LA__NODEF ((double)NAN) /* the default is not a number of its own */
/* An enum field's largest value: its names array ends with NULL. */
/* NOLINTNEXTLINE(bugprone-integer-division): a count */
#define LA__LAST(names) ((double)(sizeof(names) / sizeof((names)[0]) - 2))
static const la_run_field la__run_fields[] = {
    /* the selectors of the data and the model */
    LA__RF("preset", LA_FIELD_ENUM, preset, 0, LA__LAST(la__preset_names),
           LA_FIELD_SELECTOR, 0, la__preset_names,
           "an experiment of the papers, its values for the fields not "
           "given",
           0, NULL),
    LA__RF("setting", LA_FIELD_ENUM, setting, 0,
           LA__LAST(la__setting_names), LA__SEL, 0,
           la__setting_names,
           "data setting, its data and paper A's training for it; none: "
           "the data fields alone",
           1, NULL),
    /* the data */
    LA__RF("d", LA_FIELD_INT, data.d, 1, LA_MAX_D, LA__SH, 0, NULL,
           "covariate dimension", 5, NULL),
    LA__RF("n", LA_FIELD_INT, data.n, 1, LA_MAX_N, LA__SH, 0, NULL,
           "context length", 20, NULL),
    LA__RF("covariates", LA_FIELD_ENUM, data.covariates, 0,
           LA__LAST(la__covariate_names), LA__DS, 0,
           la__covariate_names, "covariates", LA_X_GAUSSIAN, NULL),
    LA__RF("gamma_shape", LA_FIELD_REAL, data.gamma_shape, 0, 1e6, LA__DS, 0,
           NULL, "gamma-sphere: shape k of the radii's Gamma", 0.1, NULL),
    LA__RF("gamma_scale", LA_FIELD_REAL, data.gamma_scale, 0, 1e6, LA__DS, 0,
           NULL, "gamma-sphere: scale theta of the radii's Gamma", 10, NULL),
    LA__RF("sigma", LA_FIELD_ENUM, data.sigma, 0,
           LA__LAST(la__sigma_names), LA__DS, 0,
           la__sigma_names, "covariance", LA_SIGMA_IDENTITY, NULL),
    LA__RF("wstar", LA_FIELD_ENUM, data.wstar, 0,
           LA__LAST(la__wstar_names), LA__DS, 0,
           la__wstar_names, "the distribution of w*", LA_WSTAR_IDENTITY, NULL),
    LA__RF("target", LA_FIELD_ENUM, data.target, 0,
           LA__LAST(la__target_names), LA__DS, 0,
           la__target_names, "targets", LA_TARGET_LINEAR, NULL),
    LA__RF("net_hidden", LA_FIELD_INT, data.net_hidden, 1, LA_MAX_D, LA__DS,
           0, NULL, "relu-net targets: hidden width", 10, NULL),
    LA__RF("noise_std", LA_FIELD_REAL, data.noise_std, 0, 1e30, LA__ID, 0,
           NULL, "label noise standard deviation", 0, NULL),
    LA__RF("data_seed", LA_FIELD_U64, data_seed, 0, LA__BIG,
           LA__ID | LA_FIELD_SEED, 0, NULL,
           "seed of what the setting fixes: Sigma's rotation, the target "
           "network (one for every seed of a study: give it)",
           LA__NODEF, "seed"),
    /* the model */
    LA__RF("depth", LA_FIELD_INT, model.layers, 1, LA_MAX_LAYERS, LA__SH, 0,
           NULL, "attention layers L", 3, NULL),
    LA__RF("param", LA_FIELD_ENUM, model.param, 0,
           LA__LAST(la__param_names), LA__SH, 0,
           la__param_names, "parametrization", LA_PARAM_SPARSE, NULL),
    LA__RF("attention", LA_FIELD_ENUM, model.activation, 0,
           LA__LAST(la__act_names), LA__SH, 0,
           la__act_names, "the scores' activation", LA_ACT_LINEAR, NULL),
    LA__RF("heads", LA_FIELD_INT, model.heads, 1, LA_MAX_HEADS, LA__SH, 0,
           NULL, "attention heads per layer, outputs summed", 1, NULL),
    LA__RF("qk_rank", LA_FIELD_INT, model.qk_rank, 0, LA_MAX_D + 1, LA__SH, 0,
           NULL,
           "separate keys and queries, Q = W_K^T W_Q of this rank; 0 one "
           "matrix",
           0, NULL),
    LA__RF("front", LA_FIELD_INT, model.front_hidden, 0, LA_MAX_HIDDEN,
           LA__SH, 0, NULL, "hidden width of the front MLP, 0 none", 0, NULL),
    LA__RF("init_std", LA_FIELD_REAL, model.init_std, 1e-300, 1e3, LA__ID, 0,
           NULL, "std of the initial parameters", 0.05, NULL),
    LA__RF("front_init", LA_FIELD_ENUM, model.front_init, 0,
           LA__LAST(la__front_init_names), LA__ID, 0,
           la__front_init_names,
           "the front MLP's initialization: uniform (nn.Linear's, paper A's "
           "code) or normal (init_std)",
           LA_FRONT_UNIFORM, NULL),
    LA__RF("init_hash", LA_FIELD_U64, init_hash, 0, LA__BIG, LA__ID, 0, NULL,
           "a fingerprint of a given initial theta; 0: drawn from the seed",
           0, NULL),
    /* the optimizer */
    LA__RF("opt", LA_FIELD_OPTIMIZER, optimizer, 0, LA__OPT_COUNT - 1, LA__SEL,
           0, NULL, "optimizer, its experiment's values for its fields",
           LA__NODEF, NULL),
    LA__RF("lr", LA_FIELD_REAL, opt.lr, 0, 1e6, LA__ID, LA_OPT_LR, NULL,
           "learning rate", LA__NODEF, NULL),
    LA__RF("momentum", LA_FIELD_REAL, opt.momentum, 0, LA__BETA, LA__ID,
           LA_OPT_MOMENTUM, NULL, "momentum of sgd, sign, nsgd, rmsprop, muon",
           LA__NODEF, NULL),
    LA__RF("nesterov", LA_FIELD_BOOL, opt.nesterov, 0, 1, LA__ID,
           LA_OPT_NESTEROV, NULL, "Nesterov momentum (sgd)", LA__NODEF, NULL),
    LA__RF("beta1", LA_FIELD_REAL, opt.beta1, 0, LA__BETA, LA__ID,
           LA_OPT_BETA1, NULL,
           "beta1 of adam, lion, sfadamw, muon (its Adam), adafactor (0 none), soap, "
           "sophia", LA__NODEF, NULL),
    LA__RF("beta2", LA_FIELD_REAL, opt.beta2, 0, LA__BETA, LA__ID,
           LA_OPT_BETA2, NULL,
           "beta2 of adam, lion, sfadamw, muon (its Adam), soap, sophia (its h)",
           LA__NODEF, NULL),
    LA__RF("eps", LA_FIELD_REAL, opt.eps, 0, 1, LA__ID, LA_OPT_EPS, NULL,
           "epsilon of adam, adagrad, rmsprop, sfadamw, muon, adafactor, shampoo, "
           "soap, sophia", LA__NODEF, NULL),
    LA__RF("weight_decay", LA_FIELD_REAL, opt.weight_decay, 0, 1e3, LA__ID,
           LA_OPT_WEIGHT_DECAY, NULL, "weight decay", LA__NODEF, NULL),
    LA__RF("decoupled", LA_FIELD_BOOL, opt.decoupled, 0, 1, LA__ID,
           LA_OPT_DECOUPLED, NULL, "adam: decoupled weight decay (AdamW)",
           LA__NODEF, NULL),
    LA__RF("alpha", LA_FIELD_REAL, opt.alpha, 0, LA__BETA, LA__ID,
           LA_OPT_ALPHA, NULL, "rmsprop's averaging constant", LA__NODEF, NULL),
    LA__RF("initial", LA_FIELD_REAL, opt.initial, 0, 1e6, LA__ID,
           LA_OPT_INITIAL, NULL, "adagrad's starting accumulator", LA__NODEF, NULL),
    LA__RF("history", LA_FIELD_INT, opt.history, 1, 1 << 20, LA__ID,
           LA_OPT_HISTORY, NULL, "lbfgs: (s, y) pairs kept", LA__NODEF, NULL),
    LA__RF("max_iter", LA_FIELD_INT, opt.max_iter, 1, 1 << 24, LA__ID,
           LA_OPT_MAX_ITER, NULL, "lbfgs: inner iterations per step",
           LA__NODEF, NULL),
    LA__RF("max_eval", LA_FIELD_INT, opt.max_eval, 1, LA__INTMAX, LA__ID,
           LA_OPT_MAX_EVAL, NULL,
           "lbfgs: evaluations per step (the optimizer's: max_iter * 5 / 4)",
           LA__NODEF, NULL),
    LA__RF("tol_grad", LA_FIELD_REAL, opt.tol_grad, 0, 1e300, LA__ID,
           LA_OPT_TOL_GRAD, NULL, "lbfgs: a step ends at max|g| <= this",
           LA__NODEF, NULL),
    LA__RF("tol_change", LA_FIELD_REAL, opt.tol_change, 0, 1e300, LA__ID,
           LA_OPT_TOL_CHANGE, NULL, "lbfgs: a step ends at a smaller change",
           LA__NODEF, NULL),
    LA__RF("line_search", LA_FIELD_ENUM, opt.line_search, 0,
           LA__LAST(la__ls_names), LA__ID,
           LA_OPT_LINE_SEARCH, la__ls_names, "lbfgs: the line search",
           LA__NODEF, NULL),
    LA__RF("c1", LA_FIELD_REAL, opt.c1, 0, LA__BETA, LA__ID, LA_OPT_C1, NULL,
           "lbfgs: strong-Wolfe sufficient decrease", LA__NODEF, NULL),
    LA__RF("c2", LA_FIELD_REAL, opt.c2, 0, LA__BETA, LA__ID, LA_OPT_C2, NULL,
           "lbfgs: strong-Wolfe curvature", LA__NODEF, NULL),
    LA__RF("max_ls", LA_FIELD_INT, opt.max_ls, 1, 1000, LA__ID, LA_OPT_MAX_LS,
           NULL, "lbfgs: evaluations per line search", LA__NODEF, NULL),
    LA__RF("lr_aux", LA_FIELD_REAL, opt.lr_aux, 0, 1e6, LA__ID, LA_OPT_LR_AUX,
           NULL, "muon: Adam's learning rate for what is not a matrix",
           LA__NODEF, NULL),
    LA__RF("precond_every", LA_FIELD_INT, opt.precond_every, 1, 1 << 20,
           LA__ID, LA_OPT_PRECOND_EVERY, NULL,
           "shampoo, soap: steps between eigendecompositions; sophia: "
           "between Hessian estimates",
           LA__NODEF, NULL),
    LA__RF("gamma", LA_FIELD_REAL, opt.gamma, 0, 1e6, LA__ID, LA_OPT_GAMMA,
           NULL, "sophia: the Hessian's scale in clip(m / max(gamma h, eps))",
           LA__NODEF, NULL),
    LA__RF("hessian", LA_FIELD_ENUM, opt.hessian, 0, LA__LAST(la__hess_names),
           LA__ID, LA_OPT_HESSIAN, la__hess_names,
           "sophia: the estimate of the Hessian's diagonal (hutchinson, the "
           "exact diagonal, Gauss-Newton-Bartlett)",
           LA__NODEF, NULL),
    /* the schedule and clipping */
    LA__RF("schedule", LA_FIELD_ENUM, schedule.kind, 0,
           LA__LAST(la__sched_names), LA__ID, 0,
           la__sched_names, "learning-rate schedule", LA_SCHED_CONSTANT,
           NULL),
    LA__RF("warmup", LA_FIELD_LONG, schedule.warmup, 0, LA__BIG, LA__ID, 0,
           NULL, "steps of linear warmup", 0, NULL),
    LA__RF("period", LA_FIELD_LONG, schedule.period, 1, LA__BIG, LA__ID, 0,
           NULL, "halving: steps between decays", LA_SCHED_PERIOD, NULL),
    LA__RF("decay", LA_FIELD_REAL, schedule.decay, 1e-300, LA__BETA, LA__ID,
           0, NULL, "halving: factor per period", LA_SCHED_DECAY, NULL),
    LA__RF("cosine_total", LA_FIELD_LONG, schedule.total, 1, LA__BIG, LA__ID,
           0, NULL, "cosine: step where the floor is reached",
           LA__NODEF, "steps"),
    LA__RF("min_scale", LA_FIELD_REAL, schedule.min_scale, 0, 1, LA__ID, 0,
           NULL, "cosine: the floor of the factor", 0, NULL),
    LA__RF("clip", LA_FIELD_REAL, clip_norm, 0, 1e300, LA__ID, 0, NULL,
           "global gradient-norm clipping, 0 none", 0, NULL),
    LA__RF("clip_block", LA_FIELD_REAL, clip_block, 0, 1e300, LA__ID, 0, NULL,
           "per-matrix gradient clipping, 0 none", 0, NULL),
    LA__RF("skip_overflow", LA_FIELD_LONG, skip_overflow, 0, LA__BIG, LA__ID, 0,
           NULL, "steps whose loss or gradient overflows that are skipped "
           "(no update) before one ends the run, 0 none", 0, NULL),
    /* the data stream and evaluation */
    LA__RF("batch", LA_FIELD_INT, batch, 1, LA_MAX_BATCH, LA__ID, 0, NULL,
           "prompts per step", 1000, NULL),
    LA__RF("data", LA_FIELD_ENUM, data_mode, 0,
           LA__LAST(la__mode_names), LA__ID, 0, la__mode_names,
           "prompts: fresh every step, resample every k, fixed, or given "
           "(another program's, a batch a step)",
           LA_DATA_FRESH, NULL),
    LA__RF("data_hash", LA_FIELD_U64, data_hash, 0, LA__BIG, LA__ID, 0, NULL,
           "given data: a fingerprint of the batches' values", 0, NULL),
    LA__RF("resample_every", LA_FIELD_INT, resample_every, 1, LA__INTMAX,
           LA__ID, 0, NULL, "resample: steps between datasets", 100, NULL),
    LA__RF("eval_every", LA_FIELD_INT, eval_every, -1, LA__INTMAX, LA__ID, 0,
           NULL, "evaluation loss every k steps, 0 or -1 never", 50, NULL),
    LA__RF("eval_batch", LA_FIELD_INT, eval_batch, 1, LA_MAX_BATCH, LA__ID, 0,
           NULL, "prompts of the fixed evaluation batch",
           LA__NODEF, "batch"),
    LA__RF("seed", LA_FIELD_U64, seed, 0, LA__BIG, LA__ID | LA_FIELD_SEED, 0,
           NULL, "seed of theta and the training data", 1, NULL),
    LA__RF("eval_seed", LA_FIELD_U64, eval_seed, 0, LA__BIG,
           LA__ID | LA_FIELD_SEED, 0, NULL, "seed of the evaluation batch",
           LA__NODEF, "seed"),
    LA__RF("steps", LA_FIELD_LONG, steps, 0, LA__BIG, 0, 0, NULL,
           "training steps (a resumed run continues up to this count)", 10000,
           NULL),
    /* what is measured along the run */
    LA__RF("log_every", LA_FIELD_INT, measure.log_every, 1, LA__INTMAX, 0, 0,
           NULL, "a record every k steps", 10, NULL),
    LA__RF("diag_every", LA_FIELD_INT, measure.diag_every, 0, LA__INTMAX, 0,
           0, NULL, "robust condition numbers every k steps, 0 never", 0,
           NULL),
    LA__RF("smooth_every", LA_FIELD_INT, measure.smooth_every, 0, LA__INTMAX,
           0, 0, NULL, "directional smoothness every k steps, 0 never", 0,
           NULL),
    LA__RF("diag_batch", LA_FIELD_INT, measure.diag_batch, 1, 1e6, 0, 0, NULL,
           "prompts of the fixed batch of those measurements", 1000, NULL),
    LA__RF("diag_seed", LA_FIELD_U64, measure.diag_seed, 0, LA__BIG, 0, 0, NULL,
           "seed of that batch (a study gives every run one: paper A's "
           "code measures every seed on one batch)",
           LA__NODEF, "eval_seed"),
    LA__RF("diag_batches", LA_FIELD_INT, measure.diag_batches, 1, 1000, 0, 0,
           NULL,
           "robust condition numbers on this many such batches: their "
           "median, and their range",
           1, NULL),
    LA__RF("median", LA_FIELD_ENUM, measure.median, 0,
           LA__LAST(la__median_names), 0, 0,
           la__median_names,
           "R = max|H_ii| / median|H_ii|: lower, the lower middle value as "
           "torch.median (paper A's code), or mid, the two middle values' "
           "midpoint",
           LA_MEDIAN_LOWER, NULL),
    LA__RF("blocks_every", LA_FIELD_INT, measure.blocks_every, 0, LA__INTMAX,
           0, 0, NULL,
           "the Hessian's block spectra (each parameter matrix's) and the "
           "Jensen-Shannon distance between them every k steps, 0 never",
           0, NULL)};
#undef LA__RF
#undef LA__ID
#undef LA__SH
#undef LA__DS
#undef LA__SEL
#undef LA__NODEF
#define LA__RUN_NFIELDS ((int)(sizeof la__run_fields / sizeof la__run_fields[0]))
typedef char la__run_fields_fit[LA__RUN_NFIELDS <= LA_RUN_MAX_FIELDS ? 1 : -1];

LINATTN_DEF int la_run_field_count(void) { return LA__RUN_NFIELDS; }

static double la__run_table_default(const char *key) {
  return la_run_field_find(key)->def;
}

LINATTN_DEF const la_run_field *la_run_field_at(int i) {
  return i >= 0 && i < LA__RUN_NFIELDS ? &la__run_fields[i] : NULL;
}

/* Keys and flags alike: '-' matches '_'. */
static int la__key_eq(const char *key, const char *s) {
  for (; *key && *s; ++key, ++s)
    if (*key != *s && !(*key == '_' && *s == '-')) return 0;
  return *key == *s;
}

LINATTN_DEF const la_run_field *la_run_field_find(const char *key) {
  int i;
  if (!key) return NULL;
  for (i = 0; i < LA__RUN_NFIELDS; ++i)
    if (la__key_eq(la__run_fields[i].key, key)) return &la__run_fields[i];
  return NULL;
}

/* The row of a field of this table; -1 for another pointer. */
static int la__rf_index(const la_run_field *f) {
  int i;
  for (i = 0; i < LA__RUN_NFIELDS; ++i)
    if (f == &la__run_fields[i]) return i;
  return -1;
}
/* The row of a key of this table (every caller names one that is). */
static int la__rf_row(const char *key) {
  const la_run_field *f = la_run_field_find(key);
  int i = f ? la__rf_index(f) : -1;
  LINATTN_ASSERT(i >= 0);
  return i < 0 ? 0 : i;
}
#define LA__RF_KEY(key) (&la__run_fields[la__rf_row(key)])

LINATTN_DEF const char *la_run_field_name(const la_run_field *f, int v) {
  int i;
  if (!f || v < 0) return NULL;
  if (f->kind == LA_FIELD_OPTIMIZER) {
    const la_optim_entry *e = la_optim_entry_at(v);
    return e ? e->optimizer->name : NULL;
  }
  if (f->kind != LA_FIELD_ENUM || !f->names) return NULL;
  for (i = 0; i < v && f->names[i]; ++i) {
  }
  return f->names[i];
}

/* The member a row describes. */
static void *la__rf_at(const la_run_config *c, const la_run_field *f) {
  return (void *)((const char *)c + f->offset);
}
/* The name of the optimizer, the default's when none is given. */
static const char *la__run_opt_name(const la_run_config *c) {
  return c->optimizer[0] ? c->optimizer : LA__OPT_DEFAULT;
}

/* Zero as a caller that fills the struct writes it: +0 for a real (LA_ZERO
   is a value), 0, "". */
static int la__rf_is_zero(const la_run_config *c, const la_run_field *f) {
  const void *p = la__rf_at(c, f);
  switch (f->kind) {
  case LA_FIELD_LONG: return *(const long *)p == 0;
  case LA_FIELD_U64: return *(const uint64_t *)p == 0;
  case LA_FIELD_REAL: {
    double z = 0.0;
    return memcmp(p, &z, sizeof z) == 0;
  }
  case LA_FIELD_OPTIMIZER: return c->optimizer[0] == 0;
  default: return *(const int *)p == 0;
  }
}

static int la__rf_bit(const la_run_config *c, int i) {
  return (c->given[i >> 3] >> (i & 7)) & 1;
}
static void la__rf_mark(la_run_config *c, int i, int on) {
  unsigned char b = (unsigned char)(1u << (i & 7));
  c->given[i >> 3] = (unsigned char)(on ? c->given[i >> 3] | b
                                        : c->given[i >> 3] & ~b);
}
/* Given: its bit, or not zero (the struct's convention). */
static int la__rf_given(const la_run_config *c, int i) {
  return la__rf_bit(c, i) || !la__rf_is_zero(c, &la__run_fields[i]);
}

LINATTN_DEF int la_run_field_given(const la_run_config *c,
                                   const la_run_field *f) {
  int i = f ? la__rf_index(f) : -1;
  return c && i >= 0 ? la__rf_given(c, i) : 0;
}

LINATTN_DEF int la_run_field_get(const la_run_config *c, const la_run_field *f,
                                 double *value) {
  void *p;
  if (!c || !f || !value) return LA_ENULL;
  p = la__rf_at(c, f);
  switch (f->kind) {
  case LA_FIELD_LONG: *value = (double)*(const long *)p; break;
  case LA_FIELD_U64: *value = (double)*(const uint64_t *)p; break;
  case LA_FIELD_REAL: *value = *(const double *)p; break;
  case LA_FIELD_OPTIMIZER: {
    const la_optim_entry *e = la_optim_find(la__run_opt_name(c));
    if (!e) return LA_ERANGE;
    *value = (double)(e - la_optim_entry_at(0));
    break;
  }
  default: *value = (double)*(const int *)p; break;
  }
  return LA_OK;
}

/* The value into the member, unchecked but for what the member can hold. */
static int la__rf_store(la_run_config *c, const la_run_field *f, double v) {
  void *p = la__rf_at(c, f);
  switch (f->kind) {
  case LA_FIELD_LONG:
    if (v > (double)LONG_MAX) return LA_ERANGE; /* ILP32 */
    *(long *)p = (long)v;
    break;
  case LA_FIELD_U64: *(uint64_t *)p = (uint64_t)v; break;
  case LA_FIELD_REAL: *(double *)p = v; break;
  case LA_FIELD_OPTIMIZER: {
    const la_optim_entry *e = la_optim_entry_at((int)v);
    size_t len;
    if (!e) return LA_ERANGE;
    len = strlen(e->optimizer->name);
    memset(c->optimizer, 0, sizeof c->optimizer);
    memcpy(c->optimizer, e->optimizer->name,
           len < LA_NAME_MAX - 1 ? len : LA_NAME_MAX - 1);
    break;
  }
  default: *(int *)p = (int)v; break; /* INT, ENUM, BOOL */
  }
  return LA_OK;
}

/* A value the table allows for f. */
static int la__rf_allowed(const la_run_field *f, double v) {
  if (!(v >= f->lo && v <= f->hi)) return 0; /* NaN too */
  if (f->kind != LA_FIELD_REAL && v != floor(v)) return 0;
  if (f->kind == LA_FIELD_ENUM) {
    const char *name = la_run_field_name(f, (int)v);
    if (!name || !*name) return 0;
  }
  return 1;
}

LINATTN_DEF int la_run_field_set(la_run_config *c, const la_run_field *f,
                                 double v) {
  int i = f ? la__rf_index(f) : -1, st;
  if (!c || !f) return LA_ENULL;
  if (i < 0 || !la__rf_allowed(f, v)) return LA_ERANGE;
  if ((st = la__rf_store(c, f, v)) != 0) return st;
  la__rf_mark(c, i, 1);
  return LA_OK;
}

LINATTN_DEF int la_run_field_unset(la_run_config *c, const la_run_field *f) {
  int i = f ? la__rf_index(f) : -1;
  if (!c || !f) return LA_ENULL;
  if (i < 0) return LA_ERANGE;
  if (f->kind == LA_FIELD_OPTIMIZER) memset(c->optimizer, 0, LA_NAME_MAX);
  else (void)la__rf_store(c, f, 0.0);
  la__rf_mark(c, i, 0);
  return LA_OK;
}

LINATTN_DEF int la_run_field_copy(la_run_config *to, const la_run_config *from,
                                  const la_run_field *f) {
  int i = f ? la__rf_index(f) : -1;
  if (!to || !from || !f) return LA_ENULL;
  if (i < 0) return LA_ERANGE;
  if (f->kind == LA_FIELD_OPTIMIZER)
    memcpy(to->optimizer, from->optimizer, LA_NAME_MAX);
  else /* the bits: LA_ZERO stays itself */
    memcpy((char *)to + f->offset, (const char *)from + f->offset,
           f->kind == LA_FIELD_REAL   ? sizeof(double)
           : f->kind == LA_FIELD_LONG ? sizeof(long)
           : f->kind == LA_FIELD_U64  ? sizeof(uint64_t)
                                      : sizeof(int));
  la__rf_mark(to, i, la__rf_bit(from, i));
  return LA_OK;
}

/* ------------------------------------------------------------- presets */
/* Each experiment's values, written once: the papers' settings and
   training (PAPERS.md in the repository cites them). A value may hold for
   one optimizer only (opt); learning rates are the papers' for SGD and
   Adam, other optimizers take the registry's. Enumerations by number. */
typedef struct la__val {
  const char *key, *opt; /* a field's key; NULL: any optimizer */
  double v;
} la__val;
typedef struct la__experiment {
  const char *about;
  int setting;         /* the data setting it runs on; 0 its own data */
  const la__val *vals; /* ending at a NULL key */
} la__experiment;

/* Paper A's training, under every data setting's experiment: momentum SGD
   and Adam (betas 0.9, 0.9), global clipping at 1, 10,000 steps. L-BFGS
   takes paper B's reference run. */
static const la__val la__paper_a[] = {
    {"momentum", "sgd", 0.9}, {"beta1", "adam", 0.9}, {"beta2", "adam", 0.9},
    {"lr", "lbfgs", 0.1},     {"history", "lbfgs", 600},
    {"max_iter", "lbfgs", 4}, {"clip", NULL, 1},      {NULL, NULL, 0}};
static const la__val la__set1[] = {
    {"lr", "sgd", 0.02}, {"lr", "adam", 0.02}, {NULL, NULL, 0}};
static const la__val la__set2[] = {
    {"n", NULL, 5}, {"lr", "sgd", 0.01}, {"lr", "adam", 0.005},
    {NULL, NULL, 0}};
static const la__val la__set3[] = {
    {"covariates", NULL, LA_X_GAMMA_SPHERE},
    {"gamma_shape", NULL, 0.1},
    {"gamma_scale", NULL, 10},
    {"lr", "sgd", 0.02},
    {"lr", "adam", 0.02},
    {NULL, NULL, 0}};
static const la__val la__set_sphere[] = {{"covariates", NULL, LA_X_SPHERE},
                                         {"lr", "sgd", 5},
                                         {"lr", "adam", 0.1},
                                         {"clip", NULL, 0.1},
                                         {NULL, NULL, 0}};
static const la__val la__set_nonlinear[] = {
    {"target", NULL, LA_TARGET_RELU_NET},
    {"net_hidden", NULL, 10},
    {"param", NULL, LA_PARAM_DENSE},
    {"front", NULL, 30},
    {"init_std", NULL, 0.1},
    {"lr", "sgd", 0.05},
    {"lr", "adam", 0.01},
    {"batch", NULL, 2000},
    {"eval_batch", NULL, 1000},
    {NULL, NULL, 0}};
static const la__val la__set_paper_b[] = {
    {"sigma", NULL, LA_SIGMA_PAPER_B},
    {"wstar", NULL, LA_WSTAR_SIGMA_INV},
    {"lr", "sgd", 0.01},
    {"lr", "adam", 0.001},
    {NULL, NULL, 0}};
static const la__val la__large[] = {
    {"d", NULL, 20}, {"n", NULL, 60}, {"depth", NULL, 8}, {NULL, NULL, 0}};
/* Paper B's training: Adam with beta1 0.99, per-matrix clipping, a tiny
   initialization, the rate halved every period, big batches. */
#define LA__PAPER_B_TRAIN                                                     \
  {"init_std", NULL, 1e-4}, {"beta1", "adam", 0.99}, {"clip", NULL, 0},       \
      {"schedule", NULL, LA_SCHED_HALVING}, {"eval_every", NULL, 100},        \
      {"eval_batch", NULL, 10000}
static const la__val la__b_depth[] = {
    LA__PAPER_B_TRAIN,        {"lr", "adam", 0.01},   {"lr", "sgd", 0.01},
    {"clip_block", NULL, 0.01}, {"batch", NULL, 20000},
    {"data", NULL, LA_DATA_RESAMPLE}, {"period", NULL, 4000},
    {"steps", NULL, 20000},   {NULL, NULL, 0}};
static const la__val la__b_context[] = {
    LA__PAPER_B_TRAIN,        {"lr", "adam", 0.01},   {"lr", "sgd", 0.01},
    {"beta2", "adam", 0.99},  {"decoupled", "adam", 1},
    {"clip_block", NULL, 0.001}, {"batch", NULL, 40000},
    {"period", NULL, 2000},   {"steps", NULL, 8000},  {NULL, NULL, 0}};
static const la__val la__b_theorem4[] = {
    LA__PAPER_B_TRAIN,        {"lr", "adam", 0.1},    {"lr", "sgd", 0.1},
    {"clip_block", NULL, 0.01}, {"batch", NULL, 20000},
    {"data", NULL, LA_DATA_RESAMPLE}, {"period", NULL, 4000},
    {"steps", NULL, 20000},   {NULL, NULL, 0}};
#undef LA__PAPER_B_TRAIN
/* The checks of `linattn theorem`: Adam (betas 0.9, 0.999), the rate halved
   six or ten times over the run, no evaluation. */
#define LA__THEOREM_TRAIN                                                     \
  {"beta2", "adam", 0.999}, {"schedule", NULL, LA_SCHED_HALVING},             \
      {"eval_every", NULL, -1}, {"clip", NULL, 0}
static const la__val la__b_theorem1[] = {
    LA__THEOREM_TRAIN,     {"sigma", NULL, LA_SIGMA_PAPER_B},
    {"depth", NULL, 1},    {"batch", NULL, 2000},
    {"lr", "adam", 0.1},   {"period", NULL, 1000},
    {"steps", NULL, 6000}, {NULL, NULL, 0}};
static const la__val la__b_three_layer[] = {
    LA__THEOREM_TRAIN,        {"param", NULL, LA_PARAM_PGD},
    {"init_std", NULL, 1e-4}, {"batch", NULL, 5000},
    {"data", NULL, LA_DATA_RESAMPLE}, {"lr", "adam", 0.03},
    {"clip_block", NULL, 0.01}, {"period", NULL, 400},
    {"steps", NULL, 4000},    {NULL, NULL, 0}};
static const la__val la__b_theorem5[] = {
    LA__THEOREM_TRAIN,     {"depth", NULL, 1},  {"attention", NULL, LA_ACT_RELU},
    {"batch", NULL, 2000}, {"lr", "adam", 0.01}, {"period", NULL, 500},
    {"steps", NULL, 3000}, {NULL, NULL, 0}};
#undef LA__THEOREM_TRAIN

/* In the order of la__preset_names after "none": the data settings'
   first, by their numbers (preset k <= LA_SETTING_PAPER_B is setting k). */
static const la__experiment la__experiments[] = {
    {"paper A, Setting 1: x ~ N(0, I_5), n = 20", LA_SETTING_1, la__set1},
    {"paper A, Setting 2: n = 5", LA_SETTING_2, la__set2},
    {"paper A, Setting 3: heavy-tailed Gamma(0.1, 10) radii", LA_SETTING_3,
     la__set3},
    {"paper A: x uniform on the sphere, clipping at 0.1", LA_SETTING_SPHERE,
     la__set_sphere},
    {"paper A: targets through a random ReLU net, a trainable front MLP",
     LA_SETTING_NONLINEAR, la__set_nonlinear},
    {"paper B's data (Sigma, w* ~ N(0, Sigma^-1)) under paper A's training",
     LA_SETTING_PAPER_B, la__set_paper_b},
    {"paper A's larger run: L = 8, d = 20, n = 60 (on any --setting)",
     LA_SETTING_1, la__large},
    {"paper B's depth figure (L = 1..4 by --depth): Adam, per-matrix "
     "clipping, 20,000 prompts resampled every 100 steps",
     LA_SETTING_PAPER_B, la__b_depth},
    {"paper B's context-length figure (n = 2..20 by --n): AdamW, 40,000 "
     "fresh prompts per step",
     LA_SETTING_PAPER_B, la__b_context},
    {"paper B's Theorem 4: B_l free, Adam at 0.1, 20,000 prompts resampled "
     "every 100 steps",
     LA_SETTING_PAPER_B, la__b_theorem4},
    {"paper B's Theorem 1 (theorem --check theorem1): one layer, x ~ N(0, "
     "Sigma), w* ~ N(0, I), Adam at 0.1 halved every 1000 steps",
     0, la__b_theorem1},
    {"paper B's three-layer experiment (theorem --check three-layer): B = 0, "
     "Adam at 0.03, per-matrix clipping, 5,000 prompts resampled every 100 "
     "steps",
     LA_SETTING_PAPER_B, la__b_three_layer},
    {"paper B's Theorem 5 (theorem --check theorem5): one ReLU-attention "
     "layer on Setting 1's data, Adam at 0.01",
     LA_SETTING_1, la__b_theorem5}};
#define LA__NPRESETS                                                          \
  ((int)(sizeof la__experiments / sizeof la__experiments[0]))
typedef char la__presets_named[sizeof la__preset_names /
                                       sizeof la__preset_names[0] ==
                                   (size_t)LA__NPRESETS + 2
                               ? 1
                               : -1];

LINATTN_DEF const char *la_run_preset_name(int i, const char **about) {
  if (i < 0 || i >= LA__NPRESETS) return NULL;
  if (about) *about = la__experiments[i].about;
  return la__preset_names[i + 1];
}

LINATTN_DEF int la_run_preset(la_run_config *cfg, const char *experiment,
                              const char *optimizer) {
  la_run_config c;
  int i, st;
  if (!cfg || !experiment) return LA_ENULL;
  memset(&c, 0, sizeof c);
  for (i = 0; i < LA__NPRESETS; ++i)
    if (!strcmp(la__preset_names[i + 1], experiment)) break;
  if (i == LA__NPRESETS) return LA_ERANGE;
  if ((st = la_run_field_set(&c, LA__RF_KEY("preset"), i + 1)) != 0)
    return st;
  if (optimizer && *optimizer) {
    const la_optim_entry *e = la_optim_find(optimizer);
    if (!e) return LA_ERANGE;
    (void)la_run_field_set(&c, LA__RF_KEY("opt"),
                           (double)(e - la_optim_entry_at(0)));
  }
  *cfg = c;
  return LA_OK;
}

/* ------------------------------------------------------------ resolving */

/* What the selectors chose: the preset's and the setting's experiments
   (NULL: none) and the optimizer. */
typedef struct la__choice {
  const la__experiment *preset, *setting;
  int setting_id;
  const char *opt;
} la__choice;

/* The value an experiment's list gives f under the optimizer: the
   optimizer's own first, then any optimizer's. */
static const la__val *la__vals_find(const la__val *v, const la_run_field *f,
                                    const char *opt) {
  const la__val *any = NULL;
  for (; v && v->key; ++v) {
    if (strcmp(v->key, f->key) != 0) continue;
    if (!v->opt) any = any ? any : v;
    else if (!strcmp(v->opt, opt)) return v;
  }
  return any;
}

/* An optimizer that evaluates again within a step is not clipped: its
   evaluations are the objective's own (the trainer refuses clipping). */
static int la__run_unclipped_opt(const char *opt) {
  const la_optim_entry *o = la_optim_find(opt);
  return o && la__op_closure_fn(o->optimizer) != NULL;
}
static int la__run_unclipped(const la_run_config *c) {
  return la__run_unclipped_opt(la__run_opt_name(c));
}
static int la__rf_is_clip(const la_run_field *f) {
  return f->offset == offsetof(la_run_config, clip_norm) ||
         f->offset == offsetof(la_run_config, clip_block);
}

/* The value of f not given: the preset's, the setting's (paper A's
   training under it), else the table's; 0 when the optimizer's registry
   gives it, 2 when it follows another field, 1 with *v set. */
static int la__rf_default(const la__choice *ch, const la_run_field *f,
                          double *v) {
  const la__val *e = NULL;
  if (la__run_unclipped_opt(ch->opt) && la__rf_is_clip(f)) {
    *v = f->def;
    return 1;
  }
  if (ch->preset) e = la__vals_find(ch->preset->vals, f, ch->opt);
  if (!e && ch->setting) e = la__vals_find(ch->setting->vals, f, ch->opt);
  if (!e && ch->setting) e = la__vals_find(la__paper_a, f, ch->opt);
  if (e) {
    *v = e->v;
    return 1;
  }
  if (f->follows) return 2;
  if (f->def != f->def) return 0;
  *v = f->def;
  return 1;
}

/* The selectors of c (their values already in range). */
static void la__run_choose(const la_run_config *c, la__choice *ch) {
  int ip = la__rf_row("preset");
  int is = la__rf_row("setting");
  memset(ch, 0, sizeof *ch);
  if (la__rf_given(c, ip) && c->preset > 0)
    ch->preset = &la__experiments[c->preset - 1];
  ch->setting_id = la__rf_given(c, is) ? c->setting
                   : ch->preset        ? ch->preset->setting
                                       : LA_SETTING_1;
  /* a data setting's own experiment is its setting and nothing more: a
     setting given instead replaces it whole */
  if (ch->preset && c->preset <= LA_SETTING_PAPER_B) ch->preset = NULL;
  if (ch->setting_id > 0) ch->setting = &la__experiments[ch->setting_id - 1];
  ch->opt = la__rf_given(c, la__rf_row("opt")) ? c->optimizer
                                                              : LA__OPT_DEFAULT;
}

/* Whether field f means anything in c (its other fields final). */
static int la__rf_applies(const la_run_config *c, const la_run_field *f) {
  const la_optim_entry *e;
  size_t o = f->offset;
  if (f->optim)
    return (e = la_optim_find(la__run_opt_name(c))) != NULL &&
           (e->fields & f->optim) != 0;
  if (o == offsetof(la_run_config, data.gamma_shape) ||
      o == offsetof(la_run_config, data.gamma_scale))
    return c->data.covariates == LA_X_GAMMA_SPHERE;
  if (o == offsetof(la_run_config, data.net_hidden))
    return c->data.target == LA_TARGET_RELU_NET;
  if (o == offsetof(la_run_config, resample_every))
    return c->data_mode == LA_DATA_RESAMPLE;
  if (o == offsetof(la_run_config, data_hash))
    return c->data_mode == LA_DATA_GIVEN;
  if (o == offsetof(la_run_config, schedule.period) ||
      o == offsetof(la_run_config, schedule.decay))
    return c->schedule.kind == LA_SCHED_HALVING;
  if (o == offsetof(la_run_config, schedule.total) ||
      o == offsetof(la_run_config, schedule.min_scale))
    return c->schedule.kind == LA_SCHED_COSINE;
  return 1;
}

/* The first given field outside the table's range, or -1. */
static int la__run_out_of_range(const la_run_config *c) {
  int i;
  for (i = 0; i < LA__RUN_NFIELDS; ++i) {
    const la_run_field *f = &la__run_fields[i];
    double v;
    if (!la__rf_given(c, i)) continue;
    if (la_run_field_get(c, f, &v) != 0 || !la__rf_allowed(f, v)) return i;
  }
  return -1;
}

/* The values of the fields not given (the selectors' choice), then those
   that follow another. */
static void la__run_fill(la_run_config *c, const unsigned char *given,
                         const la__choice *ch) {
  int i;
  for (i = 0; i < LA__RUN_NFIELDS; ++i) {
    const la_run_field *f = &la__run_fields[i];
    double v;
    if (given[i] || (f->flags & LA_FIELD_SELECTOR)) continue;
    if (la__rf_default(ch, f, &v) == 1) (void)la__rf_store(c, f, v);
    else if (f->kind == LA_FIELD_REAL) (void)la__rf_store(c, f, 0.0);
  }
  for (i = 0; i < LA__RUN_NFIELDS; ++i) {
    const la_run_field *f = &la__run_fields[i], *of;
    double v;
    if (given[i] || la__rf_default(ch, f, &v) != 2) continue;
    /* one that follows a field a resume may change (the steps) stays 0
       and follows it when the run is made */
    if (!((of = la_run_field_find(f->follows))->flags & LA_FIELD_IDENTITY))
      continue;
    (void)la_run_field_get(c, of, &v);
    (void)la__rf_store(c, f, v);
  }
  if (!given[la__rf_row("setting")]) c->setting = ch->setting_id;
  if (!given[la__rf_row("opt")]) {
    memset(c->optimizer, 0, LA_NAME_MAX);
    memcpy(c->optimizer, ch->opt, strlen(ch->opt));
  }
}

/* With a setting, the first field it fixes that holds another value than
   its own, or -1. */
static int la__run_setting_clash(const la_run_config *c, const la__choice *ch) {
  la__choice own = *ch;
  int i;
  if (!ch->setting) return -1;
  own.preset = NULL;
  for (i = 0; i < LA__RUN_NFIELDS; ++i) {
    const la_run_field *f = &la__run_fields[i];
    la_run_config want = *c;
    double v;
    if (!(f->flags & LA_FIELD_SETTING) || !la__rf_applies(c, f)) continue;
    if (la__rf_default(&own, f, &v) != 1) continue;
    (void)la__rf_store(&want, f, v);
    if (memcmp(la__rf_at(c, f), la__rf_at(&want, f),
               f->kind == LA_FIELD_REAL ? sizeof(double) : sizeof(int)) != 0)
      return i;
  }
  return -1;
}

/* The optimizer's configuration: a given zero says zero itself. */
static la_optim_config la__run_optim_in(const la_run_config *c,
                                        const unsigned char *given) {
  la_optim_config o = c->opt;
  int i;
  for (i = 0; i < LA__RUN_NFIELDS; ++i) {
    const la_run_field *f = &la__run_fields[i];
    double *x;
    if (!f->optim || f->kind != LA_FIELD_REAL || !given[i]) continue;
    x = (double *)(void *)((char *)&o + (f->offset - offsetof(la_run_config, opt)));
    if (*x == 0) *x = LA_ZERO;
  }
  return o;
}

/* The schedule the trainer runs: COSINE's total, when it follows the
   steps, made a number. */
static la_schedule la__run_schedule(const la_run_config *c) {
  la_schedule s = c->schedule;
  if (s.kind == LA_SCHED_COSINE && s.total == 0) s.total = c->steps;
  return s;
}

/* The run as resolved, its fields not given set by the selectors. */
static int la__run_resolve(const la_run_config *in, la_run_config *out,
                           int *clash) {
  la_run_config c = *in;
  la__choice ch;
  la_model m;
  la_optim_config oc;
  unsigned char given[LA__RUN_NFIELDS];
  int i, st;
  *clash = -1;
  if (c.data.sigma_matrix || c.opt.model) return LA_ERANGE;
  c.optimizer[LA_NAME_MAX - 1] = 0;
  if (la__run_out_of_range(&c) >= 0) return LA_ERANGE;
  for (i = 0; i < LA__RUN_NFIELDS; ++i) given[i] = (unsigned char)la__rf_given(&c, i);
  la__run_choose(&c, &ch);
  la__run_fill(&c, given, &ch);
  if (given[la__rf_row("eval_every")] && c.eval_every == 0)
    c.eval_every = -1; /* every 0 steps: never */
  /* what does not apply is 0 unless given */
  for (i = 0; i < LA__RUN_NFIELDS; ++i)
    if (!given[i] && !la__rf_applies(&c, &la__run_fields[i]))
      (void)la__rf_store(&c, &la__run_fields[i], 0.0);
  if ((*clash = la__run_setting_clash(&c, &ch)) >= 0) return LA_ERANGE;
  oc = la__run_optim_in(&c, given);
  if ((st = la_optim_resolve(la_optim_find(c.optimizer), &oc, &c.opt)) != 0)
    return st;
  if (la__run_unclipped(&c) && (c.clip_norm != 0 || c.clip_block != 0))
    return LA_ERANGE;
  {
    la_data_config d;
    if ((st = la__data_resolve(&c.data, &d)) != 0) return st;
  }
  c.model.d = c.data.d;
  c.model.n = c.data.n;
  c.model.kernels = NULL;
  c.model.parallel = NULL;
  if ((st = la_model_init(&m, &c.model)) != 0) return st;
  c.model = m.cfg;
  c.model.kernels = NULL; /* run time, not the run */
  {
    la_schedule sc = la__run_schedule(&c);
    if ((st = la_schedule_check(&sc)) != 0) return st;
  }
  /* the zeros of the reals outside the optimizer: one bit pattern */
  for (i = 0; i < LA__RUN_NFIELDS; ++i) {
    const la_run_field *f = &la__run_fields[i];
    double *x = (double *)la__rf_at(&c, f);
    if (f->kind == LA_FIELD_REAL && !f->optim && *x == 0) *x = 0.0;
  }
  memset(c.given, 0, sizeof c.given);
  for (i = 0; i < LA__RUN_NFIELDS; ++i) la__rf_mark(&c, i, given[i]);
  *out = c;
  return LA_OK;
}

LINATTN_DEF int la_run_resolve(const la_run_config *in, la_run_config *out) {
  int clash;
  if (!in || !out) return LA_ENULL;
  return la__run_resolve(in, out, &clash);
}

#ifndef LINATTN_NO_STDLIB
/* The value of f in c as text: a name, or a number. */
static void la__rf_text(const la_run_config *c, const la_run_field *f,
                        char *buf, size_t cap) {
  double v = 0;
  if (f->kind == LA_FIELD_OPTIMIZER) {
    (void)snprintf(buf, cap, "%s", la__run_opt_name(c));
    return;
  }
  (void)la_run_field_get(c, f, &v);
  if (f->kind == LA_FIELD_ENUM) {
    const char *nm = la_run_field_name(f, (int)v);
    (void)snprintf(buf, cap, "%s", nm && *nm ? nm : "?");
  } else {
    (void)snprintf(buf, cap, "%.17g", v == 0 ? 0.0 : v);
  }
}

/* Why f, laid on a description that resolved without it, makes it fail
   with status st; clash: the field a setting fixes that then disagrees. */
static void la__run_why(const la_run_config *c, const la_run_field *f, int st,
                        int clash, char *why, size_t cap) {
  const la_optim_entry *e = la_optim_find(la__run_opt_name(c));
  size_t o = f->offset, s = offsetof(la_run_config, schedule);
  if (clash >= 0) {
    const la_run_field *g = &la__run_fields[clash];
    la__choice ch;
    la_run_config own;
    char gv[40], pv[40];
    double v = 0;
    la__run_choose(c, &ch);
    memset(&own, 0, sizeof own);
    if (ch.preset && la__rf_default(&ch, g, &v) == 1) {
      (void)la__rf_store(&own, g, v);
      la__rf_text(&own, g, pv, sizeof pv);
    }
    ch.preset = NULL;
    if (la__rf_default(&ch, g, &v) == 1) (void)la__rf_store(&own, g, v);
    la__rf_text(&own, g, gv, sizeof gv);
    if (f->flags & LA_FIELD_SETTING)
      (void)snprintf(why, cap, "setting %s has %s %s; setting none describes other "
                         "data", la__setting_names[ch.setting_id], g->key, gv);
    else
      (void)snprintf(why, cap, "setting %s has %s %s, the preset %s gives %s",
               la__setting_names[ch.setting_id], g->key, gv,
               la__preset_names[c->preset], pv);
  } else if (f->optim && e && !(e->fields & f->optim)) {
    (void)snprintf(why, cap, "%s does not read it", e->optimizer->name);
  } else if (la__rf_is_clip(f) && la__run_unclipped(c)) {
    (void)snprintf(why, cap, "%s is not clipped (its evaluations within a step "
                       "are the objective's own)", la__run_opt_name(c));
  } else if (f->optim || f->kind == LA_FIELD_OPTIMIZER) {
    (void)snprintf(why, cap, "%s refuses it (%s)", la__run_opt_name(c),
             la_status_str(st));
  } else if (o >= s && o < s + sizeof(la_schedule)) {
    (void)snprintf(why, cap, "the schedule is inconsistent (cosine: its total must "
                       "exceed the warmup)");
  } else if (o >= offsetof(la_run_config, data) &&
             o < offsetof(la_run_config, optimizer)) {
    (void)snprintf(why, cap, "the data setting and the model cannot be built with "
                       "it (%s)", la_status_str(st));
  } else {
    (void)snprintf(why, cap, "the run cannot be built with it (%s)",
             la_status_str(st));
  }
}

/* The reason a value is outside f's range, in words. */
static void la__rf_range_why(const la_run_field *f, double v, char *why,
                             size_t cap) {
  if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER) {
    (void)snprintf(why, cap, "is not one of its names");
  } else if (v == v && f->kind != LA_FIELD_REAL && v != floor(v)) {
    (void)snprintf(why, cap, "is not a whole number");
  } else {
    char lo[32], hi[32];
    (void)snprintf(lo, sizeof lo, "%.17g", f->lo);
    (void)snprintf(hi, sizeof hi, f->hi >= LA__BIG ? "%.0f" : "%.17g", f->hi);
    (void)snprintf(why, cap, "is outside its range (%s to %s)", lo, hi);
  }
}

LINATTN_DEF int la_run_explain(const la_run_config *in,
                               const la_run_field **field, char *why,
                               size_t cap) {
  const la_run_field *blame = NULL;
  la_run_config c, t, r;
  char scratch[2];
  int st, clash, i;
  if (!why || !cap) why = scratch, cap = sizeof scratch;
  why[0] = 0;
  if (field) *field = NULL;
  if (!in) return LA_ENULL;
  if ((st = la__run_resolve(in, &t, &clash)) == 0) return 0;
  c = *in;
  c.optimizer[LA_NAME_MAX - 1] = 0;
  if ((i = la__run_out_of_range(&c)) >= 0) {
    double v = 0;
    blame = &la__run_fields[i];
    if (la_run_field_get(&c, blame, &v) != 0)
      (void)snprintf(why, cap, "is not an optimizer of the registry");
    else la__rf_range_why(blame, v, why, cap);
  } else {
    /* the selectors alone, then the fields given one by one in the
       table's order: the first whose addition fails is to blame */
    memset(&t, 0, sizeof t);
    for (i = 0; i < LA__RUN_NFIELDS; ++i)
      if ((la__run_fields[i].flags & LA_FIELD_SELECTOR) && la__rf_given(&c, i))
        (void)la_run_field_copy(&t, &c, &la__run_fields[i]);
    int s2 = 0;
    for (i = -1; i < LA__RUN_NFIELDS; ++i) {
      if (i >= 0) {
        if ((la__run_fields[i].flags & LA_FIELD_SELECTOR) ||
            !la__rf_given(&c, i))
          continue;
        (void)la_run_field_copy(&t, &c, &la__run_fields[i]);
      }
      if ((s2 = la__run_resolve(&t, &r, &clash)) != 0) break;
    }
    if (s2 == 0) {
      (void)snprintf(why, cap, "%s", la_status_str(st));
    } else {
      blame = i >= 0 ? &la__run_fields[i] : LA__RF_KEY("setting");
      la__run_why(&t, blame, s2, clash, why, cap);
    }
  }
  if (field) *field = blame;
  return st;
}

/* Whether an experiment gives f a value, under any optimizer. */
static int la__rf_set_by_experiments(const la_run_field *f) {
  int i;
  const la__val *v;
  for (v = la__paper_a; v->key; ++v)
    if (!strcmp(v->key, f->key)) return 1;
  for (i = 0; i < LA__NPRESETS; ++i)
    for (v = la__experiments[i].vals; v->key; ++v)
      if (!strcmp(v->key, f->key)) return 1;
  return 0;
}

LINATTN_DEF int la_run_field_help(const la_run_field *f, char *buf, size_t cap) {
  char dv[64];
  if (!f) return -1;
  if (f->kind == LA_FIELD_OPTIMIZER)
    return snprintf(buf, cap, "%s (default: the experiment's, else %s)",
                    f->help, LA__OPT_DEFAULT);
  if (f->flags & LA_FIELD_SELECTOR && f->def != 0)
    return snprintf(buf, cap, "%s (default: the preset's, else %s)", f->help,
                    la_run_field_name(f, (int)f->def));
  if (f->follows) (void)snprintf(dv, sizeof dv, "follows %s", f->follows);
  else if (f->def != f->def) (void)snprintf(dv, sizeof dv, "the optimizer's");
  else if (f->kind == LA_FIELD_ENUM)
    (void)snprintf(dv, sizeof dv, "%s", la_run_field_name(f, (int)f->def));
  else (void)snprintf(dv, sizeof dv, "%g", f->def);
  return snprintf(buf, cap, "%s (default: %s%s)", f->help,
                  la__rf_set_by_experiments(f)
                      ? "the experiment's where it gives one, else "
                      : "",
                  dv);
}
#endif

/* Two values of one field, equal bit for bit. */
static int la__rf_equal(const la_run_config *a, const la_run_config *b,
                        const la_run_field *f) {
  const void *pa = la__rf_at(a, f), *pb = la__rf_at(b, f);
  switch (f->kind) {
  case LA_FIELD_LONG: return *(const long *)pa == *(const long *)pb;
  case LA_FIELD_U64: return *(const uint64_t *)pa == *(const uint64_t *)pb;
  case LA_FIELD_REAL: return memcmp(pa, pb, sizeof(double)) == 0;
  case LA_FIELD_OPTIMIZER:
    return strncmp(la__run_opt_name(a), la__run_opt_name(b), LA_NAME_MAX) == 0;
  default: return *(const int *)pa == *(const int *)pb;
  }
}

/* The first field (with `flags`) where a and b differ, as given. */
static const la_run_field *la__run_first_diff(const la_run_config *a,
                                              const la_run_config *b,
                                              unsigned flags) {
  int i;
  for (i = 0; i < LA__RUN_NFIELDS; ++i) {
    const la_run_field *f = &la__run_fields[i];
    if ((f->flags & flags) && !la__rf_equal(a, b, f)) return f;
  }
  return NULL;
}

LINATTN_DEF const la_run_field *la_run_diff(const la_run_config *a,
                                            const la_run_config *b,
                                            unsigned flags) {
  la_run_config ra, rb;
  if (!a || !b) return NULL;
  if (la_run_resolve(a, &ra) != 0) ra = *a;
  if (la_run_resolve(b, &rb) != 0) rb = *b;
  return la__run_first_diff(&ra, &rb, flags);
}

/* ---------------------------------------------------------- run objects */

/* The trainer's configuration for a resolved run whose objects live in r. */
static la_train_config la__run_train_config(la_run *r, const la_run_env *env) {
  la_train_config t;
  memset(&t, 0, sizeof t);
  t.model = &r->model;
  t.data = &r->data;
  t.optimizer = la_optim_find(r->cfg.optimizer)->optimizer;
  t.optimizer_config = &r->cfg.opt;
  t.schedule = la__run_schedule(&r->cfg);
  t.clip_norm = r->cfg.clip_norm;
  t.clip_block = r->cfg.clip_block;
  t.skip_overflow = r->cfg.skip_overflow;
  t.batch = r->cfg.batch;
  t.data_mode = r->cfg.data_mode;
  t.resample_every = r->cfg.resample_every;
  t.eval_every = r->cfg.eval_every;
  t.eval_batch = r->cfg.eval_batch;
  t.seed = r->cfg.seed;
  t.eval_seed = r->cfg.eval_seed;
  t.run = &r->cfg;
  if (env) {
    t.callback = env->callback;
    t.user = env->user;
    t.batches = env->batches;
    t.nbatches = env->nbatches;
    t.theta0 = env->theta0;
  }
  return t;
}

/* A fingerprint of values: FNV-1a 64 of their little-endian doubles, in
   53 bits (a run field holds it exactly), never 0 (which says "none"). */
typedef struct la__fp {
  uint64_t h;
} la__fp;
static void la__fp_add(la__fp *f, double x) {
  uint64_t u;
  int k;
  memcpy(&u, &x, 8);
  for (k = 0; k < 8; ++k) f->h = (f->h ^ ((u >> (8 * k)) & 0xffu)) * 0x100000001b3ull;
}
static uint64_t la__fp_end(const la__fp *f) {
  return (f->h & 0x1fffffffffffffull) | 1u;
}
static uint64_t la__batches_hash(const la_batch *b, long count) {
  la__fp f;
  long t;
  int i, r, c;
  f.h = 0xcbf29ce484222325ull;
  for (t = 0; t < count; ++t) {
    la__fp_add(&f, (double)b[t].count);
    for (i = 0; i < b[t].count; ++i) {
      for (c = 0; c <= b[t].n; ++c)
        for (r = 0; r <= b[t].d; ++r)
          la__fp_add(&f, (double)b[t].z[la__batch_at(&b[t], i, r, c)]);
      la__fp_add(&f, (double)b[t].y[la__batch_y_at(i)]);
    }
  }
  return la__fp_end(&f);
}
static uint64_t la__theta_hash(int n, const la_real *theta) {
  la__fp f;
  int i;
  f.h = 0xcbf29ce484222325ull;
  for (i = 0; i < n; ++i) la__fp_add(&f, (double)theta[i]);
  return la__fp_end(&f);
}

/* The measurements' batches the environment gives, checked and kept. */
static int la__run_env_diag(la_run *r, const la_run_env *env) {
  long k;
  if (!env || !env->diag) return LA_OK;
  if (env->ndiag < 1) return LA_EDIM;
  if (env->ndiag < r->cfg.measure.diag_batches) return LA_ERANGE;
  for (k = 0; k < env->ndiag; ++k) {
    const la_batch *g = &env->diag[k];
    if (!g->z || !g->y) return LA_ENULL;
    if (g->d != r->cfg.data.d || g->n != r->cfg.data.n ||
        g->count != r->cfg.measure.diag_batch)
      return LA_ESHAPE;
  }
  r->diag = env->diag;
  r->ndiag = env->ndiag;
  return LA_OK;
}

/* What the environment gives (given batches, a given theta0) into the
   description as fingerprints: LA_ESHAPE where the description names
   others, LA_ENULL where it names some the environment does not give,
   LA_ERANGE for batches given to a run that does not take them. */
static int la__run_env_marks(la_run *r, const la_run_env *env) {
  int id = la__rf_row("data_hash"), ii = la__rf_row("init_hash");
  const la_batch *bs = env ? env->batches : NULL;
  const la_real *th0 = env ? env->theta0 : NULL;
  if (r->cfg.data_mode == LA_DATA_GIVEN) {
    uint64_t h;
    if (!bs) return LA_ENULL;
    if (env->nbatches <= 0) return LA_EDIM;
    h = la__batches_hash(bs, env->nbatches);
    if (r->cfg.data_hash && r->cfg.data_hash != h) return LA_ESHAPE;
    r->cfg.data_hash = h;
    la__rf_mark(&r->cfg, id, 1);
  } else if (bs) {
    return LA_ERANGE;
  }
  if (th0) {
    uint64_t h = la__theta_hash(r->model.nparams, th0);
    if (r->cfg.init_hash && r->cfg.init_hash != h) return LA_ESHAPE;
    r->cfg.init_hash = h;
    la__rf_mark(&r->cfg, ii, 1);
  } else if (r->cfg.init_hash) {
    return LA_ENULL;
  }
  return la__run_env_diag(r, env);
}

/* The run's block: the data's fixed parts, then the trainer's; one walk
   counts (r->data.owned unused) or carves. */
static int la__run_layout(la_run *r, const la_run_env *env, la__arena *a,
                          void **data_mem, size_t *data_bytes,
                          void **tr_mem, size_t *tr_bytes) {
  la_train_config t;
  la_model_config mc = r->cfg.model;
  int st;
  mc.kernels = env ? env->kernels : NULL;
  mc.parallel = env ? env->parallel : NULL;
  if ((st = la_model_init(&r->model, &mc)) != 0) return st;
  r->data.cfg = r->cfg.data; /* enough for the trainer's size query */
  t = la__run_train_config(r, env);
  *data_bytes = la_data_bytes(&r->cfg.data);
  if (!*data_bytes) return LA_EOVERFLOW;
  if ((st = la_trainer_bytes(&t, tr_bytes)) != 0) return st;
  *data_mem = la__take(a, *data_bytes);
  *tr_mem = la__take(a, *tr_bytes);
  return LA_OK;
}

LINATTN_DEF int la_run_bytes(const la_run_config *cfg, const la_run_env *env,
                             size_t *bytes) {
  la_run r;
  la__arena a = la__arena_count();
  void *dm, *tm;
  size_t db, tb;
  int st;
  if (!cfg || !bytes) return LA_ENULL;
  memset(&r, 0, sizeof r);
  if ((st = la_run_resolve(cfg, &r.cfg)) != 0) return st;
  if ((st = la__run_layout(&r, env, &a, &dm, &db, &tm, &tb)) != 0) return st;
  /* each part within the limit, their sum past it (found by clang's
     analyzer: LA_OK with 0 bytes before) */
  *bytes = la__arena_size(&a);
  return *bytes ? LA_OK : LA_EOVERFLOW;
}

LINATTN_DEF int la_run_init(la_run *r, const la_run_config *cfg,
                            const la_run_env *env, void *mem, size_t bytes) {
  la__arena a;
  la_train_config t;
  void *dm, *tm;
  size_t db, tb, need;
  int st;
  if (!r || !cfg || !mem) return LA_ENULL;
  memset(r, 0, sizeof *r);
  if ((st = la_run_bytes(cfg, env, &need)) != 0) return st;
  if (bytes < need) return LA_EWORKSPACE;
  if ((st = la_run_resolve(cfg, &r->cfg)) != 0) return st;
  a = la__arena_on(mem, bytes);
  if (!la__arena_align(&a)) return LA_EWORKSPACE;
  if ((st = la__run_layout(r, env, &a, &dm, &db, &tm, &tb)) != 0) return st;
  LINATTN_ASSERT(a.used <= a.cap);
  if ((st = la_data_init(&r->data, &r->cfg.data, r->cfg.data_seed, dm, db)) != 0)
    return st;
  if ((st = la__run_env_marks(r, env)) != 0) return st;
  t = la__run_train_config(r, env);
  return la_trainer_init(&r->trainer, &t, tm, tb);
}

#ifndef LINATTN_NO_STDLIB
LINATTN_DEF int la_run_create(la_run *r, const la_run_config *cfg,
                              const la_run_env *env) {
  size_t bytes;
  void *mem;
  int st;
  if (!r || !cfg) return LA_ENULL;
  memset(r, 0, sizeof *r);
  if ((st = la_run_bytes(cfg, env, &bytes)) != 0) return st;
  mem = LINATTN_MALLOC(bytes, NULL);
  if (!mem) return LA_ENOMEM;
  st = la_run_init(r, cfg, env, mem, bytes);
  r->owned = mem;
  if (st) la_run_destroy(r);
  return st;
}

LINATTN_DEF void la_run_destroy(la_run *r) {
  if (!r) return;
  if (r->owned) LINATTN_FREE(r->owned, NULL);
  memset(r, 0, sizeof *r);
}
#endif
/* ---------------------------------------------------------- checkpoints */
/* Version 2 (offsets in bytes, every field little-endian):
     0 magic "LACKPT\r\n" (the CR LF catches text-mode mangling)
     8 u32 version   12 u32 sizeof(la_real) of the writer (informative)
    16 u64 total length of the file, checksum included
    24 u64 nparams   32 u64 step   40 u64 data seed
    48 u32 batch drawn   52 u32 w, the 64-bit words of a la_rng
    56 u64 state length s   64 u32 description length r   68 u32 zero
    72 optimizer name, 32 bytes NUL-padded
   104 the description: r bytes of fields, zeros to a multiple of 8
       then u64 rng[w], batch rng[w], f64 state[s], f64 theta[nparams]
   end-8 u64 FNV-1a 64 of every byte before it
   A field of the description: u8 key length k, the k bytes of its key
   (la_run_field.key), u8 kind (LA_FIELD_*), then 8 bytes (an integer in
   two's complement, a u64, or a double's bits) or, for the optimizer, u8
   length and the name's bytes. Version 1 has no description: 24 i32 d, n,
   layers, param, activation, front_hidden, 48 f64 init_std, 56 u64
   nparams, 64 u64 step, 72 u64 seed, 80 u32 batch drawn, 84 u32 w, 88 the
   name, 120 u64 s, then from 128 as version 2 after its description. */
enum {
  LA__CK_VERSION = 8,
  LA__CK_TOTAL = 16,
  LA__CK_N = 24,
  LA__CK_STEP = 32,
  LA__CK_SEED = 40,
  LA__CK_DRAWN = 48,
  LA__CK_WORDS = 52,
  LA__CK_STATE = 56,
  LA__CK_DESC = 64,
  LA__CK_NAME = 72,
  LA__CK_HEAD = 104,
  LA__CK1_MODEL = 24,
  LA__CK1_N = 56,
  LA__CK1_STEP = 64,
  LA__CK1_SEED = 72,
  LA__CK1_DRAWN = 80,
  LA__CK1_WORDS = 84,
  LA__CK1_NAME = 88,
  LA__CK1_STATE = 120,
  LA__CK1_HEAD = 128,
  LA__CK_NAMELEN = 32,
  LA__CK_GIVEN = 0x80 /* version 3: a field's kind byte, given */
};

#define LA__TR_RNG_WORDS (sizeof(la_rng) / 8)
/* la_rng is saved word by word: it must be made of uint64_t only */
typedef char
    la__tr_rng_is_words[(sizeof(la_rng) % 8 == 0 && sizeof(la_rng) <= 64) ? 1
                                                                          : -1];
typedef char la__ck_name_fits[LA_NAME_MAX == LA__CK_NAMELEN ? 1 : -1];
static const unsigned char la__tr_ck_magic[8] = {'L', 'A', 'C',  'K',
                                                 'P', 'T', '\r', '\n'};

static void la__tr_put64(unsigned char *p, uint64_t v) {
  int i;
  for (i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void la__tr_put32(unsigned char *p, uint32_t v) {
  int i;
  for (i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t la__tr_get64(const unsigned char *p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
static uint32_t la__tr_get32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static uint64_t la__tr_bits(double x) {
  uint64_t v;
  memcpy(&v, &x, 8);
  return v;
}
static double la__tr_real(uint64_t v) {
  double x;
  memcpy(&x, &v, 8);
  return x;
}
static void la__tr_putf(unsigned char *p, double x) {
  la__tr_put64(p, la__tr_bits(x));
}
static double la__tr_getf(const unsigned char *p) {
  return la__tr_real(la__tr_get64(p));
}
/* two's complement without implementation-defined conversion */
static int64_t la__tr_signed(uint64_t u) {
  return u <= 0x7fffffffffffffffull ? (int64_t)u
                                    : -(int64_t)(0xffffffffffffffffull - u) - 1;
}
static int32_t la__tr_geti32(const unsigned char *p) {
  uint32_t u = la__tr_get32(p);
  return u <= 0x7fffffffu ? (int32_t)u : -(int32_t)(0xffffffffu - u) - 1;
}

static uint64_t la__tr_fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  size_t i;
  for (i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static unsigned char *la__tr_put_rng(unsigned char *p, const la_rng *r) {
  uint64_t w[8];
  size_t i;
  memcpy(w, r, sizeof *r);
  for (i = 0; i < LA__TR_RNG_WORDS; ++i, p += 8) la__tr_put64(p, w[i]);
  return p;
}
static const unsigned char *la__tr_get_rng(const unsigned char *p, la_rng *r) {
  uint64_t w[8] = {0};
  size_t i;
  for (i = 0; i < LA__TR_RNG_WORDS; ++i, p += 8) w[i] = la__tr_get64(p);
  memcpy(r, w, sizeof *r);
  return p;
}

/* ---- the description */

/* A trainer's run: the one it was made from, or one gathered from its
   configuration (a custom optimizer's settings cannot be: only its name). */
static void la__ck_run_of(const la_trainer *tr, la_run_config *rc) {
  const la_train_config *c = &tr->cfg;
  size_t nl;
  int i;
  if (c->run) {
    *rc = *c->run;
    return;
  }
  memset(rc, 0, sizeof *rc);
  if (c->model) rc->model = c->model->cfg;
  rc->model.kernels = NULL;
  rc->model.parallel = NULL;
  if (c->data) rc->data = c->data->cfg;
  rc->data.sigma_matrix = NULL;
  if (!c->data) {
    rc->data.d = rc->model.d;
    rc->data.n = rc->model.n;
  }
  nl = strlen(c->optimizer->name);
  memcpy(rc->optimizer, c->optimizer->name,
         nl < LA_NAME_MAX - 1 ? nl : LA_NAME_MAX - 1);
  if (la_optim_entry_of(c->optimizer) && c->optimizer_config) {
    rc->opt = *(const la_optim_config *)c->optimizer_config;
    rc->opt.model = NULL; /* the trainer's binding, not part of the run */
  }
  rc->schedule = c->schedule;
  /* what its kind does not read is unchecked (a NaN may sit there): the
     description holds the schedule as it runs */
  if (rc->schedule.kind != LA_SCHED_HALVING) {
    rc->schedule.period = 0;
    rc->schedule.decay = 0;
  }
  if (rc->schedule.kind != LA_SCHED_COSINE) {
    rc->schedule.total = 0;
    rc->schedule.min_scale = 0;
  }
  rc->clip_norm = c->clip_norm;
  rc->clip_block = c->clip_block;
  rc->skip_overflow = c->skip_overflow;
  rc->batch = c->batch;
  rc->data_mode = c->data_mode;
  rc->resample_every = c->resample_every;
  rc->eval_every = c->eval_every;
  rc->eval_batch = c->eval_batch;
  rc->seed = c->seed;
  rc->eval_seed = c->eval_seed;
  /* given: what is not zero (a zero of the trainer's configuration means
     what the run's table means by not given), the seed (the trainer's 0 is
     seed 0) and the setting (none: the data are the trainer's) */
  for (i = 0; i < LA__RUN_NFIELDS; ++i)
    la__rf_mark(rc, i, !la__rf_is_zero(rc, &la__run_fields[i]));
  la__rf_mark(rc, la__rf_row("seed"), 1);
  la__rf_mark(rc, la__rf_row("setting"), 1);
}

/* The raw 64 bits a field is stored as. */
static uint64_t la__ck_raw(const la_run_config *c, const la_run_field *f) {
  const void *p = la__rf_at(c, f);
  switch (f->kind) {
  case LA_FIELD_LONG: return (uint64_t)(int64_t) * (const long *)p;
  case LA_FIELD_U64: return *(const uint64_t *)p;
  case LA_FIELD_REAL: return la__tr_bits(*(const double *)p);
  default: return (uint64_t)(int64_t) * (const int *)p;
  }
}

/* Writes the description at p (NULL: counts); its length. */
static size_t la__ck_desc_put(unsigned char *p, const la_run_config *c) {
  size_t at = 0;
  int i;
  for (i = 0; i < LA__RUN_NFIELDS; ++i) {
    const la_run_field *f = &la__run_fields[i];
    size_t k = strlen(f->key);
    if (p) {
      p[at] = (unsigned char)k;
      memcpy(p + at + 1, f->key, k);
      p[at + 1 + k] = (unsigned char)(f->kind | (la__rf_bit(c, i) ? LA__CK_GIVEN : 0));
    }
    at += 2 + k;
    if (f->kind == LA_FIELD_OPTIMIZER) {
      const char *nm = la__run_opt_name(c);
      size_t nl = strlen(nm);
      if (nl > LA_NAME_MAX - 1) nl = LA_NAME_MAX - 1;
      if (p) { /* a length, then the bytes: no NUL in the file */
        p[at] = (unsigned char)nl;
        memcpy(p + at + 1, nm, nl); /* NOLINT(bugprone-not-null-terminated-result) */
      }
      at += 1 + nl;
    } else {
      if (p) la__tr_put64(p + at, la__ck_raw(c, f));
      at += 8;
    }
  }
  return at;
}

/* One stored field into c: its kind must match, its value fit the table. */
static int la__ck_field_get(const la_run_field *f, const unsigned char *p,
                            size_t room, size_t *used, la_run_config *c) {
  void *m = la__rf_at(c, f);
  uint64_t raw;
  double v;
  if (f->kind == LA_FIELD_OPTIMIZER) {
    size_t nl = room ? p[0] : 0;
    if (!room || nl == 0 || nl > LA_NAME_MAX - 1 || nl + 1 > room ||
        memchr(p + 1, 0, nl))
      return LA_EFORMAT;
    memset(c->optimizer, 0, LA_NAME_MAX);
    memcpy(c->optimizer, p + 1, nl);
    *used = 1 + nl;
    return LA_OK;
  }
  if (room < 8) return LA_EFORMAT;
  raw = la__tr_get64(p);
  *used = 8;
  if (f->kind == LA_FIELD_REAL) v = la__tr_real(raw);
  else if (f->kind == LA_FIELD_U64) v = (double)raw;
  else v = (double)la__tr_signed(raw);
  /* the range, not the names: a description gathered from a trainer may
     hold a value no run can name (a given Sigma). Only the whole numbers
     are held to their ranges (they size the model and its data); a real
     need only be finite and a 64-bit field (a seed) is any: a trainer
     takes a learning rate of 1e10 and any seed, where a run's fields (its
     flags) allow less, and a checkpoint a trainer saves must load.
     la_run_resolve holds a description read back to the run's ranges. */
  if (f->kind == LA_FIELD_REAL ? !la__finite(v)
      : f->kind != LA_FIELD_U64 &&
            (!(v == 0 || (v >= f->lo && v <= f->hi)) || v != floor(v)))
    return LA_EFORMAT; /* 0: a field that does not apply, or its default */
  switch (f->kind) {
  case LA_FIELD_LONG:
    if (v > (double)LONG_MAX) return LA_EFORMAT;
    *(long *)m = (long)v;
    break;
  case LA_FIELD_U64: *(uint64_t *)m = raw; break;
  case LA_FIELD_REAL: *(double *)m = v; break;
  default: *(int *)m = (int)v; break;
  }
  return LA_OK;
}

/* A version 2 description's meaning in version 3's terms: every field
   it holds was written out, so given, but the zeros that followed another
   field (the seed, the steps) or that no value of the field can be; a
   setting was a label, so one its data disagree with becomes none. */
static void la__ck_given_v2(la_run_config *c, const unsigned char *seen) {
  la__choice ch;
  int i;
  for (i = 0; i < LA__RUN_NFIELDS; ++i) {
    const la_run_field *f = &la__run_fields[i];
    la__rf_mark(c, i, seen[i] && !(la__rf_is_zero(c, f) &&
                                   (f->follows || f->lo > 0)));
  }
  la__run_choose(c, &ch);
  if (la__run_setting_clash(c, &ch) >= 0) c->setting = 0;
}

/* Reads a description of version 2 or 3; fields it lacks stay zero and
   not given (their defaults). */
static int la__ck_desc_get(const unsigned char *p, size_t len, unsigned version,
                           la_run_config *c) {
  unsigned char seen[LA__RUN_NFIELDS];
  size_t at = 0;
  memset(c, 0, sizeof *c);
  memset(seen, 0, sizeof seen);
  while (at < len) {
    size_t k = p[at], used;
    const la_run_field *f = NULL;
    int i, st;
    if (k == 0 || at + 2 + k > len) return LA_EFORMAT;
    for (i = 0; i < LA__RUN_NFIELDS && !f; ++i)
      if (strlen(la__run_fields[i].key) == k &&
          !memcmp(la__run_fields[i].key, p + at + 1, k))
        f = &la__run_fields[i];
    if (!f) return LA_EVERSION; /* a field of a later version */
    if (seen[f - la__run_fields]++ ||
        (p[at + 1 + k] & ~(version >= 3 ? LA__CK_GIVEN : 0)) != f->kind)
      return LA_EFORMAT;
    la__rf_mark(c, (int)(f - la__run_fields), (p[at + 1 + k] & LA__CK_GIVEN) != 0);
    at += 2 + k;
    if ((st = la__ck_field_get(f, p + at, len - at, &used, c)) != 0) return st;
    at += used;
  }
  if (version == 2) la__ck_given_v2(c, seen);
  return LA_OK;
}

/* ---- framing */

/* A checkpoint's parts, located and checked, in either version. */
typedef struct la__ck_view {
  unsigned version, drawn, words;
  uint64_t n, step, seed, state_len;
  const unsigned char *name;  /* LA__CK_NAMELEN bytes */
  const unsigned char *desc;  /* version 2 */
  size_t desc_len;
  const unsigned char *model; /* version 1: the model's fields */
  const unsigned char *rng;   /* rng, batch rng, state, theta follow */
} la__ck_view;

static size_t la__ck_pad8(size_t x) { return (x + 7) / 8 * 8; }

static size_t la__ck_tail(uint64_t w, uint64_t s, uint64_t n) {
  return (size_t)(8 * (2 * w + s + n) + 8);
}

static int la__ck_view_of(const unsigned char *p, size_t len, la__ck_view *v) {
  size_t head;
  if (!p) return LA_ENULL;
  memset(v, 0, sizeof *v);
  if (len < 12 || memcmp(p, la__tr_ck_magic, 8) != 0) return LA_EFORMAT;
  v->version = la__tr_get32(p + LA__CK_VERSION);
  if (v->version < 1 || v->version > LA_CHECKPOINT_VERSION)
    return LA_EVERSION;
  head = v->version == 1 ? LA__CK1_HEAD : LA__CK_HEAD;
  if (len < head + 8 || la__tr_get64(p + LA__CK_TOTAL) != (uint64_t)len)
    return LA_EFORMAT;
  if (la__tr_get64(p + len - 8) != la__tr_fnv1a(p, len - 8))
    return LA_ECHECKSUM;
  if (v->version == 1) {
    v->n = la__tr_get64(p + LA__CK1_N);
    v->step = la__tr_get64(p + LA__CK1_STEP);
    v->seed = la__tr_get64(p + LA__CK1_SEED);
    v->drawn = la__tr_get32(p + LA__CK1_DRAWN);
    v->words = la__tr_get32(p + LA__CK1_WORDS);
    v->name = p + LA__CK1_NAME;
    v->state_len = la__tr_get64(p + LA__CK1_STATE);
    v->model = p + LA__CK1_MODEL;
  } else {
    v->n = la__tr_get64(p + LA__CK_N);
    v->step = la__tr_get64(p + LA__CK_STEP);
    v->seed = la__tr_get64(p + LA__CK_SEED);
    v->drawn = la__tr_get32(p + LA__CK_DRAWN);
    v->words = la__tr_get32(p + LA__CK_WORDS);
    v->name = p + LA__CK_NAME;
    v->state_len = la__tr_get64(p + LA__CK_STATE);
    v->desc = p + LA__CK_HEAD;
    v->desc_len = la__tr_get32(p + LA__CK_DESC);
    if (v->desc_len > len || la__tr_get32(p + LA__CK_DESC + 4) != 0)
      return LA_EFORMAT;
    head += la__ck_pad8(v->desc_len);
  }
  if (v->state_len > len / 8 || v->n > len / 8 || v->words > 8 || v->n == 0 ||
      head > len || la__ck_tail(v->words, v->state_len, v->n) != len - head)
    return LA_EFORMAT;
  /* the step becomes a long: 32 bits on ILP32 and Windows */
  if (v->step > (uint64_t)LONG_MAX) return LA_EFORMAT;
  {
    /* the name, then NULs to the end of its 32 bytes */
    size_t k = 0;
    while (k < LA__CK_NAMELEN && v->name[k]) ++k;
    if (k == LA__CK_NAMELEN) return LA_EFORMAT;
    for (; k < LA__CK_NAMELEN; ++k)
      if (v->name[k]) return LA_EFORMAT;
  }
  v->rng = p + head;
  if (v->desc) {
    la_run_config c;
    return la__ck_desc_get(v->desc, v->desc_len, v->version, &c);
  }
  return LA_OK;
}

static void la__ck_read_model1(const unsigned char *p, la_model_config *c) {
  memset(c, 0, sizeof *c);
  c->d = la__tr_geti32(p);
  c->n = la__tr_geti32(p + 4);
  c->layers = la__tr_geti32(p + 8);
  c->param = la__tr_geti32(p + 12);
  c->activation = la__tr_geti32(p + 16);
  c->front_hidden = la__tr_geti32(p + 20);
  c->init_std = la__tr_getf(p + 24);
}

/* The model a checkpoint's theta belongs to, from either version. */
static void la__ck_model(const la__ck_view *v, la_model_config *m) {
  if (v->desc) {
    la_run_config c;
    (void)la__ck_desc_get(v->desc, v->desc_len, v->version, &c); /* checked by the view */
    *m = c.model;
    m->d = c.data.d;
    m->n = c.data.n;
  } else {
    la__ck_read_model1(v->model, m);
  }
}

/* A state (in memory, or a file's bytes) the trainer's optimizer could not
   have reached. */
static int la__tr_state_bad(const la_trainer *tr, const double *mem,
                            const unsigned char *le) {
  la__sview v;
  v.d = mem;
  v.le = le;
  return !la__optim_state_ok(tr->cfg.optimizer, tr->cfg.optimizer_config,
                             tr->n, &v, tr->state_len);
}

LINATTN_DEF int la_checkpoint_bytes(const la_trainer *tr, size_t *bytes) {
  la_run_config rc;
  if (!tr || !bytes || !tr->theta) return LA_ENULL;
  la__ck_run_of(tr, &rc);
  *bytes = LA__CK_HEAD + la__ck_pad8(la__ck_desc_put(NULL, &rc)) +
           la__ck_tail(LA__TR_RNG_WORDS, tr->state_len, (uint64_t)tr->n);
  return LA_OK;
}

LINATTN_DEF int la_checkpoint_save_mem(const la_trainer *tr, void *buf,
                                       size_t cap, size_t *written) {
  unsigned char *p = (unsigned char *)buf, *q;
  la_run_config rc;
  size_t total, i, nl, dl;
  int st = la_checkpoint_bytes(tr, &total);
  if (st) return st;
  if (!buf) return LA_ENULL;
  if (cap < total) return LA_EWORKSPACE;
  /* what a load refuses is not saved (a good file is never replaced by
     one that cannot be read back) */
  if (!la__all_finite(tr->n, tr->theta)) return LA_ENONFINITE;
  for (i = 0; i < tr->state_len; ++i)
    if (!la__finite(tr->state[i])) return LA_ENONFINITE;
  if (la__tr_state_bad(tr, tr->state, NULL)) return LA_ERANGE;
  la__ck_run_of(tr, &rc);
  memset(p, 0, total);
  memcpy(p, la__tr_ck_magic, 8);
  la__tr_put32(p + LA__CK_VERSION, LA_CHECKPOINT_VERSION);
  la__tr_put32(p + LA__CK_VERSION + 4, (uint32_t)sizeof(la_real));
  la__tr_put64(p + LA__CK_TOTAL, (uint64_t)total);
  la__tr_put64(p + LA__CK_N, (uint64_t)tr->n);
  la__tr_put64(p + LA__CK_STEP, (uint64_t)tr->step);
  la__tr_put64(p + LA__CK_SEED, tr->data_seed);
  la__tr_put32(p + LA__CK_DRAWN, (uint32_t)tr->batch_valid);
  la__tr_put32(p + LA__CK_WORDS, (uint32_t)LA__TR_RNG_WORDS);
  la__tr_put64(p + LA__CK_STATE, (uint64_t)tr->state_len);
  nl = strlen(tr->cfg.optimizer->name); /* la_optim_check: at most 31 */
  memcpy(p + LA__CK_NAME, tr->cfg.optimizer->name, nl);
  dl = la__ck_desc_put(p + LA__CK_HEAD, &rc);
  la__tr_put32(p + LA__CK_DESC, (uint32_t)dl);
  q = la__tr_put_rng(p + LA__CK_HEAD + la__ck_pad8(dl), &tr->rng);
  q = la__tr_put_rng(q, &tr->batch_rng);
  for (i = 0; i < tr->state_len; ++i, q += 8) la__tr_putf(q, tr->state[i]);
  for (i = 0; i < (size_t)tr->n; ++i, q += 8)
    la__tr_putf(q, (double)tr->theta[i]);
  la__tr_put64(q, la__tr_fnv1a(p, total - 8));
  if (written) *written = total;
  return LA_OK;
}

LINATTN_DEF int la_checkpoint_info(const void *buf, size_t len,
                                   la_model_config *model, long *step) {
  la__ck_view v;
  int st = la__ck_view_of((const unsigned char *)buf, len, &v);
  if (st) return st;
  if (model) la__ck_model(&v, model);
  if (step) *step = (long)v.step;
  return LA_OK;
}

LINATTN_DEF int la_checkpoint_run(const void *buf, size_t len,
                                  la_run_config *run, long *step) {
  la__ck_view v;
  int st = la__ck_view_of((const unsigned char *)buf, len, &v);
  if (st) return st;
  if (!v.desc) return LA_EFORMAT;
  if (run) (void)la__ck_desc_get(v.desc, v.desc_len, v.version, run);
  if (step) *step = (long)v.step;
  return LA_OK;
}

/* The file against this trainer: the same model shape, optimizer and
   sizes, and values that fit it. */
static int la__ck_matches(const la_trainer *tr, const la__ck_view *v) {
  la_model_config f, m;
  la_run_config rc;
  size_t i, nl = strlen(tr->cfg.optimizer->name);
  const unsigned char *th;
  la__ck_run_of(tr, &rc);
  m = rc.model;
  m.d = rc.data.d;
  m.n = rc.data.n;
  la__ck_model(v, &f);
  if (v->desc) {
    la_run_config fc;
    (void)la__ck_desc_get(v->desc, v->desc_len, v->version, &fc);
    if (la__run_first_diff(&fc, &rc, LA_FIELD_SHAPE)) return LA_ESHAPE;
  } else if (f.d != m.d || f.n != m.n || f.layers != m.layers ||
             f.param != m.param || f.activation != m.activation ||
             f.front_hidden != m.front_hidden) {
    return LA_ESHAPE;
  }
  if (v->n != (uint64_t)tr->n || v->state_len != (uint64_t)tr->state_len ||
      v->words != LA__TR_RNG_WORDS)
    return LA_ESHAPE;
  if (memcmp(v->name, tr->cfg.optimizer->name, nl) != 0 || v->name[nl] != 0)
    return LA_ESHAPE;
  if (tr->has_train && tr->cfg.data_mode != LA_DATA_FRESH && v->drawn) {
    /* the batch is redrawn from the saved RNG after the trainer has been
       written: a stream position no draw can start from (a trainer never
       saves one) is refused here, while nothing has changed */
    la_rng br;
    uint64_t p0;
    (void)la__tr_get_rng(v->rng + 8 * LA__TR_RNG_WORDS, &br);
    if (la__data_first_panel(&br, la_panels(tr->train.count), &p0) != LA_OK)
      return LA_EFORMAT;
  }
  /* a batch a resampled run is in the middle of, or a fixed one, was drawn:
     a file that says otherwise would resume with other numbers */
  if (tr->has_train && !v->drawn && v->step > 0 &&
      (tr->cfg.data_mode == LA_DATA_FIXED ||
       (tr->cfg.data_mode == LA_DATA_RESAMPLE &&
        v->step % (uint64_t)tr->cfg.resample_every != 0)))
    return LA_EFORMAT;
  th = v->rng + 8 * 2 * LA__TR_RNG_WORDS;
  /* a trainer never saves a NaN or Inf in its state (the step that made
     one was rolled back), nor one its optimizer's steps cannot reach */
  for (i = 0; i < tr->state_len; ++i)
    if (!la__finite(la__tr_getf(th + 8 * i))) return LA_EFORMAT;
  if (la__tr_state_bad(tr, NULL, th)) return LA_EFORMAT;
  th += 8 * tr->state_len;
  /* a double beyond la_real's range would become Inf (or be undefined) */
  for (i = 0; i < (size_t)tr->n; ++i)
    if (!(fabs(la__tr_getf(th + 8 * i)) <= LA__REAL_MAX)) return LA_EFORMAT;
  return LA_OK;
}

LINATTN_DEF int la_checkpoint_load_mem(la_trainer *tr, const void *buf,
                                       size_t len) {
  la__ck_view v;
  const unsigned char *p;
  size_t i;
  int st;
  if (!tr || !tr->theta) return LA_ENULL;
  if ((st = la__ck_view_of((const unsigned char *)buf, len, &v)) != 0)
    return st;
  if ((st = la__ck_matches(tr, &v)) != 0) return st;
  tr->step = (long)v.step;
  tr->data_seed = v.seed;
  tr->batch_valid = v.drawn != 0;
  p = la__tr_get_rng(v.rng, &tr->rng);
  p = la__tr_get_rng(p, &tr->batch_rng);
  for (i = 0; i < tr->state_len; ++i, p += 8) tr->state[i] = la__tr_getf(p);
  for (i = 0; i < (size_t)tr->n; ++i, p += 8)
    tr->theta[i] = (la_real)la__tr_getf(p);
  tr->diverged_step = 0;
  tr->skipped = 0;
  tr->stopped = 0;
  if (tr->has_train && tr->cfg.data_mode != LA_DATA_FRESH && tr->batch_valid) {
    la_rng r = tr->batch_rng;
    st = la_data_sample(tr->cfg.data, &r, &tr->train);
  }
  return st;
}

LINATTN_DEF int la_run_resume_mem(la_run *r, const void *buf, size_t len,
                                  const la_run_field **differs) {
  la_run_config fc;
  const la_run_field *f;
  int st;
  if (differs) *differs = NULL;
  if (!r || !buf) return LA_ENULL;
  st = la_checkpoint_run(buf, len, &fc, NULL);
  if (st == LA_EFORMAT && la_checkpoint_info(buf, len, NULL, NULL) == LA_OK)
    return LA_ESHAPE; /* version 1: no description to hold it against */
  if (st) return st;
  if ((f = la_run_diff(&fc, &r->cfg, LA_FIELD_IDENTITY)) != NULL) {
    if (differs) *differs = f;
    return LA_ESHAPE;
  }
  return la_checkpoint_load_mem(&r->trainer, buf, len);
}

#ifndef LINATTN_NO_STDLIB
#if (defined(__unix__) || defined(__APPLE__)) && !defined(LINATTN_NO_POSIX_FILES)
#define LA__POSIX_FILES 1
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#elif defined(_WIN32) && !defined(LINATTN_NO_WIN32_FILES)
#define LA__WIN32_FILES 1
#include <time.h>
#endif

/* The largest checkpoint a load reads: a file beyond it (or a folder whose
   size reads as 2^63) is not one. */
#define LA__CK_MAX_BYTES LA__WORK_MAX

#ifdef LA__POSIX_FILES
/* The calls below (open, read, write, fsync, close, fstat, stat, getpid)
   are declared by the headers of every POSIX host whatever the dialect the
   including file chose: -std=c99 on glibc gives the same guarantees as a
   POSIX build. */

/* Renaming over a device, a FIFO or a folder would replace it (as root,
   /dev/null itself): only a regular file, or nothing yet, may be replaced. */
static int la__ck_replaceable(const char *path) {
  struct stat s;
  return stat(path, &s) != 0 || S_ISREG(s.st_mode);
}

/* A new file tmp (just created, exclusively) that is to replace path by a
   rename takes the permission bits of the file there and, where this
   process may, its owner and group: replacing a file keeps who may read it
   (a 0600 checkpoint stays 0600). Nothing when path names no regular file.
   (chmod and chown, not their f- forms, which -std=c99 does not declare.)
   The linattn program's outputs are replaced by the same rule (cli/io/
   sys.h calls it). */
static void la__file_keep_mode(const char *tmp, const char *path) {
  struct stat s;
  if (stat(path, &s) != 0 || !S_ISREG(s.st_mode)) return;
  /* another owner is kept only where the process may give the file to it
     (root); the mode is set after, as chown may clear set-id bits */
  if (chown(tmp, s.st_uid, s.st_gid) != 0) { /* not ours to give: ours it stays */
  }
  (void)chmod(tmp, s.st_mode & 07777);
}

/* A new file beside `path`, created exclusively (O_EXCL: never through a
   link another user planted, never over a file) under a name no other
   process can know in advance; its name into tmp, its descriptor or -1. */
static int la__ck_create_tmp(const char *path, char *tmp, size_t cap) {
  la_rng r;
  int attempt;
  la_rng_seed(&r, (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32),
              (uint64_t)(uintptr_t)tmp);
  for (attempt = 0; attempt < 64; ++attempt) {
    int fd, n;
    n = snprintf(tmp, cap, "%s.%016llx.tmp", path,
                 (unsigned long long)la_rng_u64(&r));
    if (n < 0 || (size_t)n >= cap) return -1;
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd >= 0) la__file_keep_mode(tmp, path);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

/* The whole buffer, flushed to the disk, the file closed: LA_EIO at the
   first failure. */
static int la__ck_write(int fd, const unsigned char *buf, size_t len) {
  int ok = 1;
  while (len > 0 && ok) {
    size_t chunk = len < ((size_t)1 << 30) ? len : ((size_t)1 << 30);
    long w = (long)write(fd, buf, chunk);
    if (w < 0 && errno == EINTR) continue;
    ok = w > 0;
    if (ok) buf += w, len -= (size_t)w;
  }
  ok = fsync(fd) == 0 && ok;
  ok = close(fd) == 0 && ok;
  return ok ? LA_OK : LA_EIO;
}

/* A checkpoint file's bytes; only a regular file of a checkpoint's size
   is read (a FIFO would block: it is opened without waiting for a writer
   and refused; a folder has no size). */
static int la__ck_slurp(const char *path, unsigned char **buf, size_t *len) {
  struct stat s;
  size_t got = 0;
  int st = LA_OK, fd;
  *buf = NULL;
  *len = 0;
  if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0) return LA_EIO;
  if (fstat(fd, &s) != 0 || !S_ISREG(s.st_mode) || s.st_size < 0 ||
      (double)s.st_size > LA__CK_MAX_BYTES) {
    (void)close(fd); /* read-only: nothing to lose */
    return LA_EIO;
  }
  *buf = (unsigned char *)LINATTN_MALLOC((size_t)s.st_size + 1, NULL);
  if (!*buf) st = LA_ENOMEM;
  while (!st && got < (size_t)s.st_size) {
    size_t want = (size_t)s.st_size - got;
    long r = (long)read(fd, *buf + got, want < ((size_t)1 << 30) ? want : ((size_t)1 << 30));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) st = LA_EIO; /* an error, or the file shrank */
    else got += (size_t)r;
  }
  (void)close(fd);
  *len = got;
  return st;
}
typedef int la__ck_file;
#define LA__CK_NONE (-1)
#define la__ck_rename(tmp, path) (rename((tmp), (path)) == 0)
#define la__ck_unlink(tmp) ((void)remove(tmp))
#elif defined(LA__WIN32_FILES)
/* Windows: paths are UTF-8 (the wide-character calls take them
   converted; a name that is not UTF-8 is read in the ANSI code page, as
   fopen reads it). The temporary is created with CREATE_NEW (never over a
   file or through a planted link), flushed (FlushFileBuffers), then moved
   over PATH by MoveFileExW with MOVEFILE_REPLACE_EXISTING and
   MOVEFILE_WRITE_THROUGH: NTFS replaces the name in one step, so at every
   instant PATH is the old file or the new one. A load opens its file
   shared for deletion, so that a save may replace it while it is read
   where the file system allows it. */

/* path in UTF-16, allocated (NULL when it cannot be). */
static wchar_t *la__wide(const char *path) {
  UINT cp = CP_UTF8;
  DWORD flags = MB_ERR_INVALID_CHARS;
  int n = MultiByteToWideChar(cp, flags, path, -1, NULL, 0);
  wchar_t *w;
  if (n <= 0) {
    cp = CP_ACP;
    flags = 0;
    n = MultiByteToWideChar(cp, flags, path, -1, NULL, 0);
  }
  if (n <= 0) return NULL;
  w = (wchar_t *)LINATTN_MALLOC((size_t)n * sizeof(wchar_t), NULL);
  if (w && MultiByteToWideChar(cp, flags, path, -1, w, n) != n) {
    LINATTN_FREE(w, NULL);
    w = NULL;
  }
  return w;
}

/* A handle on path: access and disposition as CreateFileW's (shared for
   reading, writing and deletion); INVALID_HANDLE_VALUE on failure. */
static HANDLE la__ck_open(const char *path, DWORD access, DWORD disposition) {
  wchar_t *w = la__wide(path);
  HANDLE h = INVALID_HANDLE_VALUE;
  if (w) {
    h = CreateFileW(w, access,
                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                    NULL, disposition, FILE_ATTRIBUTE_NORMAL, NULL);
    LINATTN_FREE(w, NULL);
  }
  return h;
}

/* A regular file on a disk: not a folder, a device (NUL, CON, COM1) or a
   pipe. */
static int la__ck_regular(HANDLE h) {
  BY_HANDLE_FILE_INFORMATION info;
  return GetFileType(h) == FILE_TYPE_DISK &&
         GetFileInformationByHandle(h, &info) &&
         !(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY);
}

/* Nothing at path yet, or a regular file (a folder or a device is not
   replaced). */
static int la__ck_replaceable(const char *path) {
  wchar_t *w = la__wide(path);
  HANDLE h;
  int ok;
  if (!w) return 0;
  /* FILE_FLAG_BACKUP_SEMANTICS opens a folder too, to be told apart */
  h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                  NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD e = GetLastError();
    ok = e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND;
  } else {
    ok = la__ck_regular(h);
    (void)CloseHandle(h);
  }
  LINATTN_FREE(w, NULL);
  return ok;
}

typedef HANDLE la__ck_file;
#define LA__CK_NONE INVALID_HANDLE_VALUE

/* A new file beside `path` under a name no other process can know in
   advance (PATH.<64 random bits>.tmp), created exclusively; its name into
   tmp, its handle or INVALID_HANDLE_VALUE. */
static HANDLE la__ck_create_tmp(const char *path, char *tmp, size_t cap) {
  la_rng r;
  int attempt;
  la_rng_seed(&r, (uint64_t)time(NULL) ^ ((uint64_t)GetCurrentProcessId() << 32),
              (uint64_t)(uintptr_t)tmp ^ (uint64_t)GetTickCount());
  for (attempt = 0; attempt < 64; ++attempt) {
    HANDLE h;
    int n = snprintf(tmp, cap, "%s.%016llx.tmp", path,
                     (unsigned long long)la_rng_u64(&r));
    if (n < 0 || (size_t)n >= cap) return INVALID_HANDLE_VALUE;
    h = la__ck_open(tmp, GENERIC_WRITE, CREATE_NEW);
    if (h != INVALID_HANDLE_VALUE || GetLastError() != ERROR_FILE_EXISTS)
      return h;
  }
  return INVALID_HANDLE_VALUE;
}

/* The whole buffer, flushed to the disk, the file closed: LA_EIO at the
   first failure. */
static int la__ck_write(HANDLE h, const unsigned char *buf, size_t len) {
  int ok = 1;
  while (len > 0 && ok) {
    DWORD chunk = len < ((size_t)1 << 30) ? (DWORD)len : (DWORD)1 << 30, w = 0;
    ok = WriteFile(h, buf, chunk, &w, NULL) && w > 0;
    if (ok) buf += w, len -= w;
  }
  ok = FlushFileBuffers(h) && ok;
  ok = CloseHandle(h) && ok;
  return ok ? LA_OK : LA_EIO;
}

/* tmp moved over path in one step, written through to the disk. */
static int la__ck_rename(const char *tmp, const char *path) {
  wchar_t *a = la__wide(tmp), *b = la__wide(path);
  int ok = a && b &&
           MoveFileExW(a, b, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
  if (a) LINATTN_FREE(a, NULL);
  if (b) LINATTN_FREE(b, NULL);
  return ok;
}

static void la__ck_unlink(const char *tmp) {
  wchar_t *w = la__wide(tmp);
  if (w) {
    (void)DeleteFileW(w);
    LINATTN_FREE(w, NULL);
  }
}

/* A checkpoint file's bytes; only a regular file of a checkpoint's size. */
static int la__ck_slurp(const char *path, unsigned char **buf, size_t *len) {
  LARGE_INTEGER size;
  size_t got = 0;
  int st = LA_OK;
  HANDLE h = la__ck_open(path, GENERIC_READ, OPEN_EXISTING);
  *buf = NULL;
  *len = 0;
  if (h == INVALID_HANDLE_VALUE) return LA_EIO;
  if (!la__ck_regular(h) || !GetFileSizeEx(h, &size) || size.QuadPart < 0 ||
      (double)size.QuadPart > LA__CK_MAX_BYTES) {
    (void)CloseHandle(h); /* read-only: nothing to lose */
    return LA_EIO;
  }
  *buf = (unsigned char *)LINATTN_MALLOC((size_t)size.QuadPart + 1, NULL);
  if (!*buf) st = LA_ENOMEM;
  while (!st && got < (size_t)size.QuadPart) {
    size_t want = (size_t)size.QuadPart - got;
    DWORD r = 0;
    if (!ReadFile(h, *buf + got,
                  want < ((size_t)1 << 30) ? (DWORD)want : (DWORD)1 << 30, &r,
                  NULL) ||
        r == 0)
      st = LA_EIO; /* an error, or the file shrank */
    else
      got += r;
  }
  (void)CloseHandle(h);
  *len = got;
  return st;
}
#else
/* Neither POSIX nor Win32 (bare C libraries): a PATH that is not a
   regular file is not recognized, the temporary is PATH.tmp (created
   exclusively with C11's "x" mode where the build has it), nothing is
   fsync'ed, a load opens any file fopen opens, and rename must be able to
   replace a file. */
#define la__ck_replaceable(path) 1
typedef FILE *la__ck_file;
#define LA__CK_NONE NULL
#define la__ck_unlink(tmp) ((void)remove(tmp))
static int la__ck_rename(const char *tmp, const char *path) {
#ifdef _WIN32
  (void)remove(path); /* rename cannot replace a file there */
#endif
  return rename(tmp, path) == 0;
}
static FILE *la__ck_create_tmp(const char *path, char *tmp, size_t cap) {
  int n = snprintf(tmp, cap, "%s.tmp", path);
  if (n < 0 || (size_t)n >= cap) return NULL;
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
  return fopen(tmp, "wbx");
#else
  return fopen(tmp, "wb");
#endif
}

static int la__ck_write(FILE *f, const unsigned char *buf, size_t len) {
  int ok = fwrite(buf, 1, len, f) == len;
  ok = fflush(f) == 0 && ok;
  ok = fclose(f) == 0 && ok;
  return ok ? LA_OK : LA_EIO;
}

static int la__ck_slurp(const char *path, unsigned char **buf, size_t *len) {
  FILE *f;
  long size;
  int st = LA_OK;
  *buf = NULL;
  *len = 0;
  if (!(f = fopen(path, "rb"))) return LA_EIO;
  if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET) != 0 || (double)size > LA__CK_MAX_BYTES) {
    (void)fclose(f);
    return LA_EIO;
  }
  *buf = (unsigned char *)LINATTN_MALLOC((size_t)size + 1, NULL);
  if (!*buf) st = LA_ENOMEM;
  else if (fread(*buf, 1, (size_t)size, f) != (size_t)size) st = LA_EIO;
  (void)fclose(f);
  *len = (size_t)size;
  return st;
}
#endif

LINATTN_DEF int la_checkpoint_save(const la_trainer *tr, const char *path) {
  size_t total, cap;
  char *tmp;
  unsigned char *buf;
  int st;
  if (!path) return LA_ENULL;
  if ((st = la_checkpoint_bytes(tr, &total)) != 0) return st;
  if (!*path || !la__ck_replaceable(path)) return LA_EIO;
  cap = strlen(path) + 32;
  buf = (unsigned char *)LINATTN_MALLOC(total + cap, NULL);
  if (!buf) return LA_ENOMEM;
  tmp = (char *)buf + total;
  st = la_checkpoint_save_mem(tr, buf, total, NULL);
  if (!st) {
    la__ck_file f = la__ck_create_tmp(path, tmp, cap);
    int made = f != LA__CK_NONE;
    st = made ? la__ck_write(f, buf, total) : LA_EIO;
    if (!st && !la__ck_rename(tmp, path)) st = LA_EIO;
    if (st && made) la__ck_unlink(tmp); /* ours: the error is st's */
  }
  LINATTN_FREE(buf, NULL);
  return st;
}

LINATTN_DEF int la_checkpoint_load(la_trainer *tr, const char *path) {
  unsigned char *buf;
  size_t len = 0;
  int st;
  if (!tr || !path) return LA_ENULL;
  st = la__ck_slurp(path, &buf, &len);
  if (!st) st = la_checkpoint_load_mem(tr, buf, len);
  if (buf) LINATTN_FREE(buf, NULL);
  return st;
}

LINATTN_DEF int la_run_resume(la_run *r, const char *path,
                              const la_run_field **differs) {
  unsigned char *buf;
  size_t len = 0;
  int st;
  if (differs) *differs = NULL;
  if (!r || !path) return LA_ENULL;
  st = la__ck_slurp(path, &buf, &len);
  if (!st) st = la_run_resume_mem(r, buf, len, differs);
  if (buf) LINATTN_FREE(buf, NULL);
  return st;
}
#endif

/* ------------------------------------------------------ foreign callers */

LINATTN_DEF size_t la_sizeof(int type) {
  switch (type) {
  case LA_TYPE_REAL: return sizeof(la_real);
  case LA_TYPE_RUN_CONFIG: return sizeof(la_run_config);
  case LA_TYPE_RUN: return sizeof(la_run);
  case LA_TYPE_MODEL: return sizeof(la_model);
  case LA_TYPE_DATA: return sizeof(la_data);
  case LA_TYPE_TRAINER: return sizeof(la_trainer);
  case LA_TYPE_BATCH: return sizeof(la_batch);
  case LA_TYPE_RNG: return sizeof(la_rng);
  case LA_TYPE_RUN_FIELD: return sizeof(la_run_field);
  case LA_TYPE_TRAIN_RECORD: return sizeof(la_train_record);
  case LA_TYPE_EIG_OUT: return sizeof(la_eig_out);
  case LA_TYPE_LANCZOS_CONFIG: return sizeof(la_lanczos_config);
  case LA_TYPE_SLQ_CONFIG: return sizeof(la_slq_config);
  case LA_TYPE_RCOND_CONFIG: return sizeof(la_rcond_config);
  case LA_TYPE_RCOND: return sizeof(la_rcond);
  case LA_TYPE_GRAD_NOISE_CONFIG: return sizeof(la_grad_noise_config);
  case LA_TYPE_NOISE_CONFIG: return sizeof(la_noise_config);
  case LA_TYPE_NOISE_STATS: return sizeof(la_noise_stats);
  case LA_TYPE_RUN_ENV: return sizeof(la_run_env);
  case LA_TYPE_MEASURE_CONFIG: return sizeof(la_measure_config);
  case LA_TYPE_MEASURE_RECORD: return sizeof(la_measure_record);
  default: return 0;
  }
}

/* The members of the mirrored types, in their order. */
#define LA__MB(T, type, m) {T, #m, offsetof(type, m)}
static const struct {
  int type;
  const char *name;
  size_t offset;
} la__members[] = {
    LA__MB(LA_TYPE_RNG, la_rng, key), LA__MB(LA_TYPE_RNG, la_rng, stream),
    LA__MB(LA_TYPE_RNG, la_rng, counter),
    LA__MB(LA_TYPE_BATCH, la_batch, d), LA__MB(LA_TYPE_BATCH, la_batch, n),
    LA__MB(LA_TYPE_BATCH, la_batch, count), LA__MB(LA_TYPE_BATCH, la_batch, z),
    LA__MB(LA_TYPE_BATCH, la_batch, y), LA__MB(LA_TYPE_BATCH, la_batch, owned),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, key),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, kind),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, offset),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, lo),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, hi),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, flags),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, optim),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, names),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, help),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, def),
    LA__MB(LA_TYPE_RUN_FIELD, la_run_field, follows),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, step),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, loss),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, grad_norm),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, clipped_norm),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, lr_scale),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, update_norm),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, nparams),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, grad),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, update),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, theta),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, has_eval),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, eval_loss),
    LA__MB(LA_TYPE_TRAIN_RECORD, la_train_record, skipped),
    LA__MB(LA_TYPE_EIG_OUT, la_eig_out, values),
    LA__MB(LA_TYPE_EIG_OUT, la_eig_out, residuals),
    LA__MB(LA_TYPE_EIG_OUT, la_eig_out, vectors),
    LA__MB(LA_TYPE_EIG_OUT, la_eig_out, matvecs),
    LA__MB(LA_TYPE_EIG_OUT, la_eig_out, converged),
    LA__MB(LA_TYPE_EIG_OUT, la_eig_out, restarts),
    LA__MB(LA_TYPE_LANCZOS_CONFIG, la_lanczos_config, which),
    LA__MB(LA_TYPE_LANCZOS_CONFIG, la_lanczos_config, max_iter),
    LA__MB(LA_TYPE_LANCZOS_CONFIG, la_lanczos_config, seed),
    LA__MB(LA_TYPE_SLQ_CONFIG, la_slq_config, probes),
    LA__MB(LA_TYPE_SLQ_CONFIG, la_slq_config, steps),
    LA__MB(LA_TYPE_SLQ_CONFIG, la_slq_config, seed),
    LA__MB(LA_TYPE_RCOND_CONFIG, la_rcond_config, dense_max),
    LA__MB(LA_TYPE_RCOND_CONFIG, la_rcond_config, slq),
    LA__MB(LA_TYPE_RCOND_CONFIG, la_rcond_config, median),
    LA__MB(LA_TYPE_RCOND, la_rcond, by_diag),
    LA__MB(LA_TYPE_RCOND, la_rcond, by_spectrum),
    LA__MB(LA_TYPE_RCOND, la_rcond, lambda_max),
    LA__MB(LA_TYPE_RCOND, la_rcond, lambda_median),
    LA__MB(LA_TYPE_RCOND, la_rcond, exact),
    LA__MB(LA_TYPE_RCOND, la_rcond, resolved),
    LA__MB(LA_TYPE_RCOND, la_rcond, resolution),
    LA__MB(LA_TYPE_GRAD_NOISE_CONFIG, la_grad_noise_config, minibatch),
    LA__MB(LA_TYPE_GRAD_NOISE_CONFIG, la_grad_noise_config, true_batch),
    LA__MB(LA_TYPE_GRAD_NOISE_CONFIG, la_grad_noise_config, samples),
    LA__MB(LA_TYPE_NOISE_CONFIG, la_noise_config, bins),
    LA__MB(LA_TYPE_NOISE_CONFIG, la_noise_config, hill_k),
    LA__MB(LA_TYPE_NOISE_STATS, la_noise_stats, mean),
    LA__MB(LA_TYPE_NOISE_STATS, la_noise_stats, var),
    LA__MB(LA_TYPE_NOISE_STATS, la_noise_stats, kurtosis),
    LA__MB(LA_TYPE_NOISE_STATS, la_noise_stats, hill_alpha),
    LA__MB(LA_TYPE_NOISE_STATS, la_noise_stats, hill_stderr),
    LA__MB(LA_TYPE_NOISE_STATS, la_noise_stats, min),
    LA__MB(LA_TYPE_NOISE_STATS, la_noise_stats, max),
    LA__MB(LA_TYPE_RUN_ENV, la_run_env, callback),
    LA__MB(LA_TYPE_RUN_ENV, la_run_env, user),
    LA__MB(LA_TYPE_RUN_ENV, la_run_env, kernels),
    LA__MB(LA_TYPE_RUN_ENV, la_run_env, parallel),
    LA__MB(LA_TYPE_RUN_ENV, la_run_env, batches),
    LA__MB(LA_TYPE_RUN_ENV, la_run_env, nbatches),
    LA__MB(LA_TYPE_RUN_ENV, la_run_env, theta0),
    LA__MB(LA_TYPE_RUN_ENV, la_run_env, diag),
    LA__MB(LA_TYPE_RUN_ENV, la_run_env, ndiag),
    LA__MB(LA_TYPE_MEASURE_CONFIG, la_measure_config, top),
    LA__MB(LA_TYPE_MEASURE_CONFIG, la_measure_config, noise),
    LA__MB(LA_TYPE_MEASURE_RECORD, la_measure_record, step),
    LA__MB(LA_TYPE_MEASURE_RECORD, la_measure_record, due),
    LA__MB(LA_TYPE_MEASURE_RECORD, la_measure_record, status),
    LA__MB(LA_TYPE_MEASURE_RECORD, la_measure_record, has),
    LA__MB(LA_TYPE_MEASURE_RECORD, la_measure_record, value),
    LA__MB(LA_TYPE_MEASURE_RECORD, la_measure_record, ntop),
    LA__MB(LA_TYPE_MEASURE_RECORD, la_measure_record, top)};
#undef LA__MB

LINATTN_DEF size_t la_member_at(int type, int i, const char **name) {
  int k, n = (int)(sizeof la__members / sizeof la__members[0]);
  if (name) *name = NULL;
  for (k = 0; k < n; ++k)
    if (la__members[k].type == type && i-- == 0) {
      if (name) *name = la__members[k].name;
      return la__members[k].offset;
    }
  return (size_t)-1;
}

#define LA__RECF(m, kind, help) {#m, kind, offsetof(la_train_record, m), help}
static const la_record_field la__record_fields[] = {
    LA__RECF(step, LA_FIELD_LONG, "steps taken, this one included"),
    LA__RECF(loss, LA_FIELD_REAL, "training loss at theta before the step"),
    LA__RECF(grad_norm, LA_FIELD_REAL, "||g|| before clipping"),
    LA__RECF(clipped_norm, LA_FIELD_REAL, "||g|| after clipping"),
    LA__RECF(lr_scale, LA_FIELD_REAL, "the schedule's factor of the step"),
    LA__RECF(update_norm, LA_FIELD_REAL, "||theta_new - theta_old||"),
    LA__RECF(eval_loss, LA_FIELD_REAL,
             "loss on the evaluation batch (where has_eval)")};
#undef LA__RECF

LINATTN_DEF const la_record_field *la_train_record_field_at(int i) {
  int n = (int)(sizeof la__record_fields / sizeof la__record_fields[0]);
  return i >= 0 && i < n ? &la__record_fields[i] : NULL;
}

LINATTN_DEF la_trainer *la_run_trainer(la_run *r) {
  return r ? &r->trainer : NULL;
}
LINATTN_DEF const la_model *la_run_model(const la_run *r) {
  return r ? &r->model : NULL;
}
LINATTN_DEF const la_data *la_run_data(const la_run *r) {
  return r ? &r->data : NULL;
}
LINATTN_DEF la_real *la_run_theta(la_run *r, int *n) {
  if (n) *n = r ? r->trainer.n : 0;
  return r ? r->trainer.theta : NULL;
}
LINATTN_DEF long la_run_step(const la_run *r) { return r ? r->trainer.step : 0; }
LINATTN_DEF int la_run_diag_batch(const la_run *r, int k, la_batch *b) {
  la_rng rng;
  if (!r || !b) return LA_ENULL;
  if (k < 0) return LA_ERANGE;
  if (r->diag) {
    const la_batch *g;
    if (k >= r->ndiag) return LA_ERANGE;
    g = &r->diag[k];
    if (!b->z || !b->y) return LA_ENULL;
    if (b->d != g->d || b->n != g->n || b->count != g->count) return LA_ESHAPE;
    memcpy(b->z, g->z, sizeof(la_real) * la__panel_reals(g->d + 1, g->n + 1, g->count));
    memcpy(b->y, g->y, sizeof(la_real) * la__panel_reals(1, 1, g->count));
    return LA_OK;
  }
  la_rng_seed(&rng, r->cfg.measure.diag_seed, LA_STREAM_DIAG - (uint64_t)k);
  return la_data_sample(&r->data, &rng, b);
}

LINATTN_DEF const la_batch *la_run_eval_batch(const la_run *r) {
  return r && r->trainer.has_eval ? &r->trainer.eval : NULL;
}

/* ------------------------------------------------ measuring along a run */
enum { LA__MEASURE_ONE = 0, LA__MEASURE_LIST = 1 };
#define LA__BLOCK_BINS 100 /* the grid of the blocks' spectral densities */
#define LA__MEASURE_ROW(id, key, group, kind, arity, help)                    \
  {key, LA_MEASURE_GROUP_##group, LA_FIELD_##kind, LA__MEASURE_##arity, help},
static const la_measure_key la__measure_keys[LA_MEASURE_NKEYS] = {
    LA_MEASURE_KEYS(LA__MEASURE_ROW)};
#undef LA__MEASURE_ROW
#define LA__MEASURE_GNAME(id, name) name,
static const char *const la__measure_groups[LA_MEASURE_NGROUPS] = {
    LA_MEASURE_GROUPS(LA__MEASURE_GNAME)};
#undef LA__MEASURE_GNAME

LINATTN_DEF const la_measure_key *la_measure_key_at(int i) {
  return i >= 0 && i < LA_MEASURE_NKEYS ? &la__measure_keys[i] : NULL;
}

LINATTN_DEF const char *la_measure_group(int g) {
  return g >= 0 && g < LA_MEASURE_NGROUPS ? la__measure_groups[g] : NULL;
}

LINATTN_DEF int la_measure_key_find(const char *name, int *index) {
  int i;
  if (index) *index = 0;
  if (!name) return -1;
  for (i = 0; i < LA_MEASURE_NKEYS; ++i) {
    const char *k = la__measure_keys[i].key, *s = name;
    long v = 0;
    while (*k && *k == *s) ++k, ++s;
    if (*k) continue;
    if (!*s && !la__measure_keys[i].indexed) return i;
    if (!la__measure_keys[i].indexed || *s++ != '_' || *s < '1' || *s > '9')
      continue;
    for (; *s >= '0' && *s <= '9' && v <= INT_MAX; ++s) v = 10 * v + (*s - '0');
    if (*s || v > INT_MAX) continue;
    if (index) *index = (int)(v - 1);
    return i;
  }
  return -1;
}

/* What la_run_measure uses, by what is due in the run: batch 0 (and the
   further batches' one buffer with the Hessian's diagonal), R on each
   batch, the top eigenvalues, the noise samples with their sorted copy and
   histogram, and one workspace for the functions called in turn. */
typedef struct la__measure_ws {
  la_batch b0, bk;
  double *hd, *rs, *med, *top, *norms, *sorted, *hist, *edges;
  double *beig, *bjs, *bwork; /* the blocks' spectra, distances, densities */
  int *bsize;
  void *sub;
  size_t subb;
} la__measure_ws;

/* The largest of the called functions' workspaces; 0 when one of them
   cannot be sized. */
static size_t la__measure_sub_bytes(const la_run *r, const la_measure_config *c) {
  const la_model *m = &r->model;
  const la_run_config *rc = &r->cfg;
  size_t need = 0, b;
  int ok = 1;
#define LA__NEED(x) (b = (x), ok = ok && b > 0, need = b > need ? b : need)
  if (rc->measure.smooth_every > 0) LA__NEED(la_dir_smoothness_work_bytes(m));
  if (rc->measure.diag_every > 0) {
    la_rcond_config rcfg;
    memset(&rcfg, 0, sizeof rcfg);
    rcfg.median = rc->measure.median;
    LA__NEED(la_rcond_work_bytes(m, &rcfg));
    if (rc->measure.diag_batches > 1) LA__NEED(la_hessian_work_bytes(m));
    if (c->top > 0) {
      la_lanczos_config lc;
      memset(&lc, 0, sizeof lc);
      LA__NEED(la_hessian_eigs_work_bytes(m, c->top < m->nparams ? c->top
                                                                 : m->nparams,
                                          &lc));
    }
    if (c->noise > 0) {
      la_grad_noise_config g;
      g.minibatch = rc->batch;
      g.true_batch = 0;
      g.samples = c->noise;
      LA__NEED(la_grad_noise_work_bytes(m, &g));
    }
  }
  if (rc->measure.blocks_every > 0) LA__NEED(la_hessian_blocks_work_bytes(m));
#undef LA__NEED
  return ok ? need : 0;
}

/* One walk for the size and the carving (la__arena). */
static int la__measure_walk(la__arena *a, const la_run *r,
                            const la_measure_config *c, size_t subb,
                            la__measure_ws *w) {
  const la_run_config *rc = &r->cfg;
  int d = rc->data.d, n = rc->data.n, cnt = rc->measure.diag_batch,
      nb = rc->measure.diag_batches, np = r->model.nparams, st = LA_OK;
  size_t bb = la_batch_bytes(d, n, cnt);
  void *p;
  memset(w, 0, sizeof *w);
  if (rc->measure.smooth_every <= 0 && rc->measure.diag_every <= 0 &&
      rc->measure.blocks_every <= 0)
    return LA_OK;
  if (!bb) return LA_EOVERFLOW;
  p = la__take(a, bb);
  if (p) st = la_batch_init(&w->b0, d, n, cnt, p, bb);
  if (rc->measure.diag_every > 0) {
    if (nb > 1) {
      p = la__take(a, bb);
      if (p && !st) st = la_batch_init(&w->bk, d, n, cnt, p, bb);
      w->hd = (double *)la__take(a, sizeof(double) * 4 * (size_t)np);
      w->rs = (double *)la__take(a, sizeof(double) * (size_t)nb);
      w->med = (double *)la__take(a, sizeof(double) * 2 * (size_t)nb);
    }
    if (c->top > 0)
      w->top = (double *)la__take(a, sizeof(double) *
                                         (size_t)(c->top < np ? c->top : np));
    if (c->noise > 0) {
      w->norms = (double *)la__take(a, sizeof(double) * (size_t)c->noise);
      w->sorted = (double *)la__take(a, sizeof(double) * (size_t)c->noise);
      w->hist = (double *)la__take(a, sizeof(double) * 100);
      w->edges = (double *)la__take(a, sizeof(double) * 101);
    }
  }
  if (rc->measure.blocks_every > 0) {
    size_t nbk = (size_t)la__m_nblocks(&r->model);
    w->beig = (double *)la__take(a, sizeof(double) * (size_t)np);
    w->bjs = (double *)la__take(a, sizeof(double) * nbk * nbk);
    w->bwork = (double *)la__take(a, sizeof(double) * LA__BLOCK_BINS * (nbk + 1));
    w->bsize = (int *)la__take(a, sizeof(int) * nbk);
  }
  w->sub = la__take(a, subb);
  w->subb = subb;
  return st;
}

LINATTN_DEF unsigned la_run_measure_groups(const la_run *r,
                                           const la_measure_config *cfg) {
  unsigned g = 0;
  if (!r) return 0;
  if (r->cfg.measure.smooth_every > 0) g |= 1u << LA_MEASURE_GROUP_SMOOTH;
  if (r->cfg.measure.diag_every > 0) {
    g |= 1u << LA_MEASURE_GROUP_RCOND;
    if (cfg && cfg->top > 0) g |= 1u << LA_MEASURE_GROUP_TOP;
    if (cfg && cfg->noise > 0) g |= 1u << LA_MEASURE_GROUP_NOISE;
  }
  if (r->cfg.measure.blocks_every > 0) g |= 1u << LA_MEASURE_GROUP_BLOCKS;
  return g;
}

LINATTN_DEF size_t la_run_measure_work_bytes(const la_run *r,
                                             const la_measure_config *cfg) {
  la_measure_config none;
  la__arena a = la__arena_count();
  la__measure_ws w;
  size_t subb;
  if (!r) return 0;
  if (!cfg) {
    memset(&none, 0, sizeof none);
    cfg = &none;
  }
  if (cfg->top < 0 || cfg->noise < 0) return 0;
  subb = la__measure_sub_bytes(r, cfg);
  if (!subb && (r->cfg.measure.smooth_every > 0 || r->cfg.measure.diag_every > 0 ||
                r->cfg.measure.blocks_every > 0))
    return 0;
  if (la__measure_walk(&a, r, cfg, subb, &w)) return 0;
  return la__arena_size(&a);
}

/* The robust condition numbers (the group rcond) into rec; its status. */
static int la__measure_rcond(const la_run *r, const la_real *theta,
                             la__measure_ws *w, la_measure_record *rec) {
  const la_model *m = &r->model;
  int nb = r->cfg.measure.diag_batches, k, st;
  la_rcond rc;
  la_rcond_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.median = r->cfg.measure.median;
  st = la_robust_cond(m, theta, &w->b0, &cfg, &rc, w->sub, w->subb);
  if (!st && !(la__finite(rc.by_diag) && la__finite(rc.lambda_max) &&
               la__finite(rc.lambda_median)))
    st = LA_ENONFINITE;
  if (st) return st;
  rec->has[LA_MEASURE_RCOND_DIAG] = 1;
  rec->value[LA_MEASURE_RCOND_DIAG] = rc.by_diag > 0 ? rc.by_diag : NAN;
  if (nb > 1) { /* R on batches 1 .. nb - 1, their median and range */
    double lo, hi, med;
    w->rs[0] = rc.by_diag;
    for (k = 1; k < nb; ++k) {
      if ((st = la_run_diag_batch(r, k, &w->bk)) != 0 ||
          (st = la_hessian_diag(m, theta, &w->bk, w->hd, w->sub, w->subb)) != 0 ||
          (st = la_rcond_diag(m->nparams, w->hd, r->cfg.measure.median, &w->rs[k],
                              w->hd + m->nparams, sizeof(double) * 3 *
                                                      (size_t)m->nparams)) != 0) {
        rec->has[LA_MEASURE_RCOND_DIAG] = 0;
        rec->value[LA_MEASURE_RCOND_DIAG] = NAN;
        return st;
      }
    }
    lo = hi = w->rs[0];
    for (k = 1; k < nb; ++k) {
      lo = lo < w->rs[k] ? lo : w->rs[k];
      hi = hi > w->rs[k] ? hi : w->rs[k];
    }
    if (la_weighted_median(nb, w->rs, NULL, &med, w->med,
                           sizeof(double) * 2 * (size_t)nb) != 0)
      med = NAN; /* one of them not finite */
    rec->value[LA_MEASURE_RCOND_DIAG] = med;
    rec->has[LA_MEASURE_RCOND_DIAG_MIN] = rec->has[LA_MEASURE_RCOND_DIAG_MAX] = 1;
    rec->value[LA_MEASURE_RCOND_DIAG_MIN] = lo;
    rec->value[LA_MEASURE_RCOND_DIAG_MAX] = hi;
  }
  if (rc.resolved && rc.by_spectrum != 0) {
    rec->has[LA_MEASURE_RCOND_SPECTRUM] = 1;
    rec->value[LA_MEASURE_RCOND_SPECTRUM] = rc.by_spectrum;
  }
  rec->has[LA_MEASURE_SPECTRUM_RESOLVED] = 1;
  rec->value[LA_MEASURE_SPECTRUM_RESOLVED] = rc.resolved ? 1 : 0;
  rec->has[LA_MEASURE_LAMBDA_MAX] = rec->has[LA_MEASURE_LAMBDA_MEDIAN] = 1;
  rec->value[LA_MEASURE_LAMBDA_MAX] = rc.lambda_max;
  rec->value[LA_MEASURE_LAMBDA_MEDIAN] = rc.lambda_median;
  return LA_OK;
}

/* The blocks' Hessian spectra and the Jensen-Shannon distances between
   them (the group blocks) into rec; its status. */
static int la__measure_blocks(const la_run *r, const la_real *theta,
                              la__measure_ws *w, la_measure_record *rec) {
  const la_model *m = &r->model;
  int nb = la__m_nblocks(m), i, j, rows, cols, st;
  double mean, most = 0;
  st = la_hessian_blocks(m, theta, &w->b0, w->beig, w->sub, w->subb);
  if (st) return st;
  for (i = 0; i < nb; ++i) {
    (void)la_model_block_info(m, i, NULL, NULL, NULL, &rows, &cols);
    w->bsize[i] = rows * cols;
  }
  st = la_spectra_js(nb, w->bsize, w->beig, LA__BLOCK_BINS, w->bjs, &mean,
                     w->bwork);
  if (st) return st;
  for (i = 0; i < nb; ++i)
    for (j = i + 1; j < nb; ++j)
      if (w->bjs[(size_t)i * nb + j] > most) most = w->bjs[(size_t)i * nb + j];
  rec->has[LA_MEASURE_BLOCK_JS_MEAN] = rec->has[LA_MEASURE_BLOCK_JS_MAX] = 1;
  rec->value[LA_MEASURE_BLOCK_JS_MEAN] = mean;
  rec->value[LA_MEASURE_BLOCK_JS_MAX] = most;
  return LA_OK;
}

/* Paper A's gradient noise (the group noise) into rec; its status. */
static int la__measure_noise(const la_run *r, const la_measure_config *c,
                             const la_real *theta, la__measure_ws *w,
                             la_measure_record *rec) {
  la_rng rng;
  la_grad_noise_config g;
  la_noise_config nc;
  la_noise_stats ns;
  double tg;
  int st;
  la_rng_seed(&rng, r->cfg.seed, LA_STREAM_EVAL - 3);
  g.minibatch = r->cfg.batch;
  g.true_batch = 0;
  g.samples = c->noise;
  nc.bins = 100;
  nc.hill_k = 0;
  st = la_grad_noise(&r->model, theta, &r->data, &rng, &g, w->norms, &tg, w->sub,
                     w->subb);
  if (!st)
    st = la_noise_summary(c->noise, w->norms, &nc, &ns, w->hist, w->edges,
                          w->sorted, NULL, NULL, 0);
  if (st) return st;
  rec->value[LA_MEASURE_NOISE_MEAN] = ns.mean;
  rec->value[LA_MEASURE_NOISE_VAR] = ns.var;
  rec->value[LA_MEASURE_NOISE_KURTOSIS] = ns.kurtosis;
  rec->value[LA_MEASURE_NOISE_HILL_ALPHA] = ns.hill_alpha;
  rec->value[LA_MEASURE_NOISE_HILL_STDERR] = ns.hill_stderr;
  rec->value[LA_MEASURE_NOISE_MIN] = ns.min;
  rec->value[LA_MEASURE_NOISE_MAX] = ns.max;
  rec->value[LA_MEASURE_TRUE_GRAD_NORM] = tg;
  return LA_OK;
}

LINATTN_DEF int la_run_measure(const la_run *r, const la_measure_config *cfg,
                               long step, const la_real *theta,
                               const la_real *prev, la_measure_record *rec,
                               void *work, size_t bytes) {
  const la_run_config *rc;
  la_measure_config none;
  la__measure_ws w;
  la__arena a;
  size_t subb;
  int i, st, s0;
  if (!r || !theta || !rec) return LA_ENULL;
  if (!cfg) {
    memset(&none, 0, sizeof none);
    cfg = &none;
  }
  if (cfg->top < 0 || cfg->noise < 0) return LA_ERANGE;
  rc = &r->cfg;
  memset(rec, 0, sizeof *rec);
  rec->step = step;
  for (i = 0; i < LA_MEASURE_NKEYS; ++i) rec->value[i] = NAN;
  rec->due = la_run_measure_groups(r, cfg);
  if (!prev || rc->measure.smooth_every <= 0 || step % rc->measure.smooth_every != 0)
    rec->due &= ~(1u << LA_MEASURE_GROUP_SMOOTH);
  if (rc->measure.blocks_every <= 0 || step % rc->measure.blocks_every != 0)
    rec->due &= ~(1u << LA_MEASURE_GROUP_BLOCKS);
  if (rc->measure.diag_every <= 0 || step % rc->measure.diag_every != 0)
    rec->due &= 1u << LA_MEASURE_GROUP_SMOOTH |
                1u << LA_MEASURE_GROUP_BLOCKS; /* the others: diag_every's */
  if (!rec->due) return LA_OK;
  subb = la__measure_sub_bytes(r, cfg);
  a = la__arena_on(work, bytes);
  if (!work || !subb || bytes < la_run_measure_work_bytes(r, cfg) ||
      !la__arena_align(&a) ||
      la__measure_walk(&a, r, cfg, subb, &w) != LA_OK || a.over || !w.sub) {
    rec->due = 0;
    return LA_EWORKSPACE;
  }
  s0 = la_run_diag_batch(r, 0, &w.b0);
  if (rec->due & (1u << LA_MEASURE_GROUP_SMOOTH)) {
    double s, g;
    st = s0 ? s0 : la_dir_smoothness(&r->model, prev, theta, &w.b0, &s, &g,
                                     w.sub, w.subb);
    if (!st && !(la__finite(s) && la__finite(g))) st = LA_ENONFINITE;
    if (!st) {
      rec->has[LA_MEASURE_SMOOTHNESS] = rec->has[LA_MEASURE_SMOOTH_GRAD_NORM] = 1;
      rec->value[LA_MEASURE_SMOOTHNESS] = s;
      rec->value[LA_MEASURE_SMOOTH_GRAD_NORM] = g;
    }
    rec->status[LA_MEASURE_GROUP_SMOOTH] = st;
  }
  if (rec->due & (1u << LA_MEASURE_GROUP_RCOND))
    rec->status[LA_MEASURE_GROUP_RCOND] = s0 ? s0 : la__measure_rcond(r, theta, &w, rec);
  if (rec->due & (1u << LA_MEASURE_GROUP_TOP)) {
    la_lanczos_config lc;
    la_eig_out out;
    int k = cfg->top < r->model.nparams ? cfg->top : r->model.nparams;
    memset(&lc, 0, sizeof lc);
    memset(&out, 0, sizeof out);
    out.values = w.top;
    st = s0 ? s0 : la_hessian_eigs(&r->model, theta, &w.b0, k, 1e-6, &lc, &out,
                                   w.sub, w.subb);
    for (i = 0; !st && i < k; ++i)
      if (!la__finite(w.top[i])) st = LA_ENONFINITE;
    if (!st) {
      rec->has[LA_MEASURE_TOP] = 1;
      rec->ntop = k;
      rec->top = w.top;
    }
    rec->status[LA_MEASURE_GROUP_TOP] = st;
  }
  if (rec->due & (1u << LA_MEASURE_GROUP_NOISE)) {
    st = la__measure_noise(r, cfg, theta, &w, rec);
    for (i = 0; i < LA_MEASURE_NKEYS; ++i)
      if (la__measure_keys[i].group == LA_MEASURE_GROUP_NOISE) rec->has[i] = !st;
    rec->status[LA_MEASURE_GROUP_NOISE] = st;
  }
  if (rec->due & (1u << LA_MEASURE_GROUP_BLOCKS))
    rec->status[LA_MEASURE_GROUP_BLOCKS] = s0 ? s0 : la__measure_blocks(r, theta, &w, rec);
  return LA_OK;
}

#ifndef LINATTN_NO_STDLIB
/* Appends text to buf (cap bytes) at *len, counting what does not fit. */
static void la__json_put(char *buf, size_t cap, size_t *len, const char *s) {
  for (; *s; ++s, ++*len)
    if (*len + 1 < cap) buf[*len] = *s;
}

LINATTN_DEF size_t la_measure_json(const la_measure_record *rec, char *buf,
                                   size_t cap) {
  size_t len = 0;
  int i, j, g, first = 1;
  char num[48];
  unsigned said = 0; /* the failed groups written */
  if (!rec) return 0;
  for (i = 0; i < LA_MEASURE_NKEYS; ++i) {
    const la_measure_key *k = &la__measure_keys[i];
    g = k->group;
    if (!(rec->due & (1u << g))) continue;
    if (rec->status[g]) {
      const char *m = la_status_str(rec->status[g]);
      if (said & (1u << g)) continue;
      said |= 1u << g;
      la__json_put(buf, cap, &len, first ? "\"" : ",\"");
      la__json_put(buf, cap, &len, la__measure_groups[g]);
      la__json_put(buf, cap, &len, "_error\":\"");
      la__json_put(buf, cap, &len, m); /* the messages hold no quote */
      la__json_put(buf, cap, &len, "\"");
      first = 0;
      continue;
    }
    if (!rec->has[i]) continue;
    for (j = 0; j < (k->indexed ? rec->ntop : 1); ++j) {
      double v = k->indexed ? rec->top[j] : rec->value[i];
      la__json_put(buf, cap, &len, first ? "\"" : ",\"");
      la__json_put(buf, cap, &len, k->key);
      if (k->indexed) {
        (void)snprintf(num, sizeof num, "_%d", j + 1);
        la__json_put(buf, cap, &len, num);
      }
      la__json_put(buf, cap, &len, "\":");
      if (k->kind == LA_FIELD_BOOL)
        (void)snprintf(num, sizeof num, "%d", v != 0);
      else if (la__finite(v))
        (void)snprintf(num, sizeof num, "%.10g", v);
      else
        (void)snprintf(num, sizeof num, "null");
      la__json_put(buf, cap, &len, num);
      first = 0;
    }
  }
  if (cap) buf[len < cap ? len : cap - 1] = 0;
  return len;
}
#endif

/* ================================================================== */
/*        7. The research layer: paper B's baselines and family       */
/* ================================================================== */

#ifndef LINATTN_NO_RESEARCH

/* ------------------------------------------- in-context baselines */
/* A panel's LA_W prompts side by side, as the model keeps them: element e
   of lane w at [e * LA_W + w], in double. */
typedef struct la__bl {
  int d;
  double *S, *c, *xq, *yq; /* d*d, d, d, 1 */
  double *w, *g, *v;       /* GD's iterate, gradient, direction: d each */
  double *A, *V;           /* Cholesky factor / Jacobi's matrix, vectors */
  int eig_done;            /* V and the eigenvalues (A's diagonal) hold S's */
} la__bl;

static int la__bl_dims_ok(int d, int n) {
  return d > 0 && n > 0 && d <= LA_MAX_D && n <= LA_MAX_N;
}

/* The buffers of one panel (n does not enter: S and c are d-sized). */
static void la__bl_take(la__arena *ar, int d, la__bl *B) {
  size_t W = LA_W, dd = (size_t)d * (size_t)d, dv = (size_t)d * W;
  B->d = d;
  B->S = (double *)la__take(ar, sizeof(double) * dd * W);
  B->c = (double *)la__take(ar, sizeof(double) * dv);
  B->xq = (double *)la__take(ar, sizeof(double) * dv);
  B->yq = (double *)la__take(ar, sizeof(double) * W);
  B->w = (double *)la__take(ar, sizeof(double) * dv);
  B->g = (double *)la__take(ar, sizeof(double) * dv);
  B->v = (double *)la__take(ar, sizeof(double) * dv);
  B->A = (double *)la__take(ar, sizeof(double) * dd * W);
  B->V = (double *)la__take(ar, sizeof(double) * dd * W);
  B->eig_done = 0;
}

/* Checks shared by every baseline, before any output is written. */
static int la__bl_check_batch(const la_batch *b) {
  if (!b || !b->z || !b->y) return LA_ENULL;
  if (!la__bl_dims_ok(b->d, b->n) || b->count <= 0) return LA_EDIM;
  return LA_OK;
}

/* Opens the workspace (the caller's or an owned one) and carves a panel's
   buffers, then what `extra` (if not NULL) adds to the walk. */
typedef void (*la__bl_extra_fn)(la__arena *ar, void *ctx);
static size_t la__bl_size(int d, int n, la__bl_extra_fn extra, void *ctx) {
  la__arena a = la__arena_count();
  la__bl B;
  if (!la__bl_dims_ok(d, n)) return 0;
  la__bl_take(&a, d, &B);
  if (extra) extra(&a, ctx);
  return la__arena_size(&a);
}
static int la__bl_open(int d, int n, la__bl_extra_fn extra, void *ctx,
                       void **work, size_t *bytes, void **owned, la__bl *B) {
  la__arena ar;
  size_t need = la__bl_size(d, n, extra, ctx);
  int st;
  if (!need) return LA_EDIM;
  if ((st = la__work_begin(need, work, bytes, owned)) != 0) return st;
  ar = la__arena_on(*work, *bytes);
  if (!la__arena_align(&ar) || ar.cap < need - LA_ALIGN) {
    la__work_end(*owned);
    return LA_EWORKSPACE;
  }
  la__bl_take(&ar, d, B);
  if (extra) extra(&ar, ctx);
  return LA_OK;
}

/* S, c, x_q and y_q of panel p; 0 when the data of a valid lane are not
   finite. */
static int la__bl_gram(const la_batch *b, int p, la__bl *B) {
  const int d = b->d, n = b->n, T = n + 1;
  const size_t W = LA_W;
  const la_real *z = b->z + (size_t)p * (size_t)(d + 1) * (size_t)T * W;
  const la_real *yrow = z + (size_t)d * T * W;
  int i, a, e, w, valid = b->count - p * LA_W;
  double inv = 1.0 / n, acc = 0;
  if (valid > LA_W) valid = LA_W;
  memset(B->S, 0, sizeof(double) * (size_t)d * d * W);
  memset(B->c, 0, sizeof(double) * (size_t)d * W);
  for (i = 0; i < n; ++i) {
    const la_real *yi = yrow + (size_t)i * W;
    for (a = 0; a < d; ++a) {
      const la_real *xa = z + ((size_t)a * T + i) * W;
      double *ca = B->c + (size_t)a * W;
      for (w = 0; w < LA_W; ++w) ca[w] += (double)xa[w] * (double)yi[w];
      for (e = a; e < d; ++e) {
        const la_real *xe = z + ((size_t)e * T + i) * W;
        double *s = B->S + ((size_t)a * d + e) * W;
        for (w = 0; w < LA_W; ++w) s[w] += (double)xa[w] * (double)xe[w];
      }
    }
  }
  for (a = 0; a < d; ++a) {
    for (w = 0; w < LA_W; ++w) B->c[(size_t)a * W + w] *= inv;
    for (e = a; e < d; ++e)
      for (w = 0; w < LA_W; ++w) {
        double s = B->S[((size_t)a * d + e) * W + w] * inv;
        B->S[((size_t)a * d + e) * W + w] = s;
        B->S[((size_t)e * d + a) * W + w] = s;
      }
    for (w = 0; w < LA_W; ++w)
      B->xq[(size_t)a * W + w] = (double)z[((size_t)a * T + n) * W + w];
  }
  for (w = 0; w < LA_W; ++w) B->yq[w] = (double)b->y[(size_t)p * W + w];
  /* the diagonal of S carries every x, c every y */
  for (w = 0; w < valid; ++w) {
    acc += B->yq[w] * 0.0;
    for (a = 0; a < d; ++a)
      acc += (B->S[((size_t)a * d + a) * W + w] + B->c[(size_t)a * W + w] +
              B->xq[(size_t)a * W + w]) * 0.0;
  }
  B->eig_done = 0;
  return acc == 0;
}

/* The squared errors of the valid lanes of the predictions <u, x_q>
   (u: d x LA_W), summed in lane order into *sum; pred gets them. The
   lane loops below keep their sums in local arrays and their operands
   behind restrict pointers, so that compilers hold them in vector
   registers instead of reloading through B's aliasing pointers. */
static void la__bl_score(const la__bl *B, const double *LA__RESTRICT u,
                         int valid, double *sum, la_real *pred) {
  const double *LA__RESTRICT xq = B->xq;
  double acc[LA_W];
  int a, w;
  for (w = 0; w < LA_W; ++w) acc[w] = 0;
  for (a = 0; a < B->d; ++a)
    for (w = 0; w < LA_W; ++w) acc[w] += xq[a * LA_W + w] * u[a * LA_W + w];
  for (w = 0; w < valid; ++w) {
    double e = acc[w] - B->yq[w];
    if (pred) pred[w] = (la_real)acc[w];
    *sum += e * e;
  }
}

/* d x LA_W lanes: out = S in - c, S d x d per lane (row a at a d LA_W,
   element e of it at e LA_W). */
static void la__bl_lane_grad(int d, const double *LA__RESTRICT S,
                             const double *LA__RESTRICT in,
                             const double *LA__RESTRICT c,
                             double *LA__RESTRICT out) {
  int a, e, w;
  for (a = 0; a < d; ++a) {
    const double *LA__RESTRICT Sa = S + (size_t)a * d * LA_W;
    double *LA__RESTRICT oa = out + a * LA_W;
    for (w = 0; w < LA_W; ++w) oa[w] = -c[a * LA_W + w];
    for (e = 0; e < d; ++e)
      for (w = 0; w < LA_W; ++w) oa[w] += Sa[e * LA_W + w] * in[e * LA_W + w];
  }
}
/* out = P in, P a shared d x d matrix (row-major). */
static void la__bl_lane_pre(int d, const double *LA__RESTRICT P,
                            const double *LA__RESTRICT in,
                            double *LA__RESTRICT out) {
  int a, e, w;
  for (a = 0; a < d; ++a) {
    double *LA__RESTRICT oa = out + a * LA_W;
    double p0 = P[(size_t)a * d];
    /* the first term initializes: a zeroing loop ahead of the sums gets
       stored in halves that the first whole-vector load cannot forward */
    for (w = 0; w < LA_W; ++w) oa[w] = p0 * in[w];
    for (e = 1; e < d; ++e) {
      double pe = P[(size_t)a * d + e];
      for (w = 0; w < LA_W; ++w) oa[w] += pe * in[e * LA_W + w];
    }
  }
}

/* w -= eta dir over d x LA_W lanes. */
static void la__bl_lane_step(int d, double eta, const double *LA__RESTRICT dir,
                             double *LA__RESTRICT wv) {
  int a, w;
  for (a = 0; a < d; ++a)
    for (w = 0; w < LA_W; ++w) wv[a * LA_W + w] -= eta * dir[a * LA_W + w];
}

/* k steps of (preconditioned) GD on the panel; the squared errors after
   step t are added to out[t] (out may be NULL), the last predictions go to
   pred (may be NULL). */
static void la__bl_gd(la__bl *B, int valid, const double *P, int k,
                      double eta, const double *etas, double *out,
                      la_real *pred) {
  const int d = B->d;
  double *LA__RESTRICT wv = B->w;
  int t;
  double last = 0;
  memset(wv, 0, sizeof(double) * (size_t)d * LA_W);
  for (t = 0; t < k; ++t) {
    double et = etas ? etas[t] : eta;
    const double *LA__RESTRICT dir = B->g;
    la__bl_lane_grad(d, B->S, wv, B->c, B->g);
    if (P) {
      la__bl_lane_pre(d, P, B->g, B->v);
      dir = B->v;
    }
    la__bl_lane_step(d, et, dir, wv);
    if (out || (pred && t == k - 1))
      la__bl_score(B, wv, valid, out ? &out[t] : &last,
                   t == k - 1 ? pred : NULL);
  }
}

/* Columns (or rows, stride 1 between elements of a row) p and q of a d x d
   lane matrix rotated by (c, s) lane by lane: x' = c x - s y, y' = s x + c y.
   `step` is the distance between consecutive elements along the rotated
   pair (d LA_W for columns, LA_W for rows); `at` the distance between p
   and q. */
static void la__bl_rot(int d, double *LA__RESTRICT X, size_t step, size_t at,
                       const double *LA__RESTRICT cs,
                       const double *LA__RESTRICT sn) {
  int r, w;
  for (r = 0; r < d; ++r) {
    double *LA__RESTRICT x = X + (size_t)r * step, *LA__RESTRICT y = x + at;
    for (w = 0; w < LA_W; ++w) {
      double u = x[w], v = y[w];
      x[w] = cs[w] * u - sn[w] * v;
      y[w] = sn[w] * u + cs[w] * v;
    }
  }
}

/* Jacobi's method on the lanes' S at once: A's diagonal receives the
   eigenvalues, V's columns the eigenvectors. Cyclic sweeps until every
   lane's off-diagonal part is below 1e-15 of its norm (quadratic
   convergence: a handful of sweeps). The rotation of each lane is computed
   without branches (selects), so that the lanes run as vectors. */
static void la__bl_eig(la__bl *B) {
  const size_t W = LA_W;
  const int d = B->d;
  double *LA__RESTRICT A = B->A, *LA__RESTRICT V = B->V;
  size_t col = (size_t)d * W; /* from A[r][p] to A[r + 1][p] */
  int sweep, p, q, w;
  double cs[LA_W], sn[LA_W], off[LA_W], dia[LA_W];
  if (B->eig_done) return;
  memcpy(A, B->S, sizeof(double) * (size_t)d * d * W);
  memset(V, 0, sizeof(double) * (size_t)d * d * W);
  for (p = 0; p < d; ++p)
    for (w = 0; w < LA_W; ++w) V[((size_t)p * d + p) * W + w] = 1;
  for (sweep = 0; sweep < 60; ++sweep) {
    int more = 0;
    for (w = 0; w < LA_W; ++w) off[w] = dia[w] = 0;
    for (p = 0; p < d; ++p)
      for (q = 0; q < d; ++q) {
        const double *LA__RESTRICT x = A + ((size_t)p * d + q) * W;
        double *LA__RESTRICT acc = p == q ? dia : off;
        for (w = 0; w < LA_W; ++w) acc[w] += x[w] * x[w];
      }
    for (w = 0; w < LA_W; ++w) more |= off[w] > 1e-30 * dia[w];
    if (!more) break;
    for (p = 0; p < d; ++p)
      for (q = p + 1; q < d; ++q) {
        const double *LA__RESTRICT apq = A + ((size_t)p * d + q) * W;
        const double *LA__RESTRICT app = A + ((size_t)p * d + p) * W;
        const double *LA__RESTRICT aqq = A + ((size_t)q * d + q) * W;
        for (w = 0; w < LA_W; ++w) {
          /* th = (a_qq - a_pp) / (2 a_pq), t = sign(th) / (|th| +
             sqrt(th^2 + 1)): 0 where a_pq = 0 or th^2 overflows */
          int zero = apq[w] == 0;
          double th = (aqq[w] - app[w]) / (zero ? 1.0 : 2 * apq[w]);
          double t = 1 / (fabs(th) + sqrt(th * th + 1));
          t = zero ? 0.0 : th < 0 ? -t : t;
          cs[w] = 1 / sqrt(t * t + 1);
          sn[w] = t * cs[w];
        }
        la__bl_rot(d, A + (size_t)p * W, col, (size_t)(q - p) * W, cs, sn);
        la__bl_rot(d, V + (size_t)p * W, col, (size_t)(q - p) * W, cs, sn);
        la__bl_rot(d, A + (size_t)p * col, W, (size_t)(q - p) * col, cs, sn);
      }
  }
  B->eig_done = 1;
}

/* w = sum_i f(mu_i) (v_i . c) v_i over S's eigenpairs into B->w, with
   f(mu) = 1 / (mu + lambda), and for lambda = 0 the pseudo-inverse's
   1 / mu above the rank threshold, 0 below. */
static void la__bl_spectral(la__bl *B, double lambda) {
  const size_t W = LA_W;
  const int d = B->d;
  int i, a, w;
  la__bl_eig(B);
  memset(B->w, 0, sizeof(double) * (size_t)d * W);
  for (w = 0; w < LA_W; ++w) {
    double mx = 0, tol;
    for (i = 0; i < d; ++i) {
      double mu = fabs(B->A[((size_t)i * d + i) * W + w]);
      mx = mu > mx ? mu : mx;
    }
    tol = 1000.0 * d * DBL_EPSILON * mx;
    for (i = 0; i < d; ++i) {
      double mu = B->A[((size_t)i * d + i) * W + w], vc = 0, f;
      if (lambda > 0) f = 1 / ((mu > 0 ? mu : 0) + lambda);
      else f = mu > tol ? 1 / mu : 0;
      for (a = 0; a < d; ++a)
        vc += B->V[((size_t)a * d + i) * W + w] * B->c[(size_t)a * W + w];
      for (a = 0; a < d; ++a)
        B->w[(size_t)a * W + w] += f * vc * B->V[((size_t)a * d + i) * W + w];
    }
  }
}

/* Cholesky of S + lambda I on every lane into L (lower, d x d lanes), and
   the solves L u = c, L^T w = u into B->w, written lane-inner without
   branches so that the lanes run as vectors. 0 when a valid lane met a
   pivot that is not positive (lambda too small for the rounding of a
   singular S): its results are then not to be used. */
static int la__bl_chol_solve(la__bl *B, int valid, double lambda) {
  const size_t W = LA_W;
  const int d = B->d;
  const double *LA__RESTRICT S = B->S;
  double *LA__RESTRICT L = B->A, *LA__RESTRICT u = B->w;
  double inv[LA_W];
  int i, j, k, w, bad = 0;
  B->eig_done = 0; /* A is overwritten */
  for (j = 0; j < d; ++j) {
    double *LA__RESTRICT Ljj = L + ((size_t)j * d + j) * W;
    const double *LA__RESTRICT Sjj = S + ((size_t)j * d + j) * W;
    for (w = 0; w < LA_W; ++w) Ljj[w] = Sjj[w] + lambda;
    for (k = 0; k < j; ++k) {
      const double *LA__RESTRICT Ljk = L + ((size_t)j * d + k) * W;
      for (w = 0; w < LA_W; ++w) Ljj[w] -= Ljk[w] * Ljk[w];
    }
    for (w = 0; w < valid; ++w) bad |= !(Ljj[w] > 0);
    for (w = 0; w < LA_W; ++w) {
      Ljj[w] = sqrt(Ljj[w] > 0 ? Ljj[w] : 1.0);
      inv[w] = 1 / Ljj[w];
    }
    for (i = j + 1; i < d; ++i) {
      double *LA__RESTRICT Lij = L + ((size_t)i * d + j) * W;
      const double *LA__RESTRICT Sij = S + ((size_t)i * d + j) * W;
      for (w = 0; w < LA_W; ++w) Lij[w] = Sij[w];
      for (k = 0; k < j; ++k) {
        const double *LA__RESTRICT Lik = L + ((size_t)i * d + k) * W;
        const double *LA__RESTRICT Ljk = L + ((size_t)j * d + k) * W;
        for (w = 0; w < LA_W; ++w) Lij[w] -= Lik[w] * Ljk[w];
      }
      for (w = 0; w < LA_W; ++w) Lij[w] *= inv[w];
    }
  }
  for (i = 0; i < d; ++i) { /* L u = c */
    double *LA__RESTRICT ui = u + (size_t)i * W;
    const double *LA__RESTRICT Lii = L + ((size_t)i * d + i) * W;
    for (w = 0; w < LA_W; ++w) ui[w] = B->c[(size_t)i * W + w];
    for (k = 0; k < i; ++k) {
      const double *LA__RESTRICT Lik = L + ((size_t)i * d + k) * W;
      const double *LA__RESTRICT uk = u + (size_t)k * W;
      for (w = 0; w < LA_W; ++w) ui[w] -= Lik[w] * uk[w];
    }
    for (w = 0; w < LA_W; ++w) ui[w] /= Lii[w];
  }
  for (i = d - 1; i >= 0; --i) { /* L^T w = u, in place */
    double *LA__RESTRICT ui = u + (size_t)i * W;
    const double *LA__RESTRICT Lii = L + ((size_t)i * d + i) * W;
    for (k = i + 1; k < d; ++k) {
      const double *LA__RESTRICT Lki = L + ((size_t)k * d + i) * W;
      const double *LA__RESTRICT uk = u + (size_t)k * W;
      for (w = 0; w < LA_W; ++w) ui[w] -= Lki[w] * uk[w];
    }
    for (w = 0; w < LA_W; ++w) ui[w] /= Lii[w];
  }
  return !bad;
}

/* Ridge on the panel: Cholesky for lambda > 0, the spectral form for
   lambda = 0 and where a pivot was not positive. */
static void la__bl_ridge(la__bl *B, int valid, double lambda, double *out,
                         la_real *pred) {
  if (!(lambda > 0) || !la__bl_chol_solve(B, valid, lambda))
    la__bl_spectral(B, lambda);
  la__bl_score(B, B->w, valid, out, pred);
}

/* ---- evaluation */

static int la__bl_spec_check(const la_gd_spec *s, int d) {
  int t;
  if (!s) return LA_ENULL;
  if (s->steps < 1) return LA_EDIM;
  if (s->etas) {
    for (t = 0; t < s->steps; ++t)
      if (!la__finite(s->etas[t])) return LA_ENONFINITE;
  } else if (!la__finite(s->eta)) {
    return LA_ENONFINITE;
  }
  if (s->precond)
    for (t = 0; t < d * d; ++t)
      if (!la__finite(s->precond[t])) return LA_ENONFINITE;
  return LA_OK;
}

LINATTN_DEF size_t la_gd_work_bytes(int d, int n) {
  return la__bl_size(d, n, NULL, NULL);
}

LINATTN_DEF int la_gd_eval(const la_batch *b, const la_gd_spec *s,
                           double *losses, la_real *pred, void *work,
                           size_t bytes) {
  la__bl B;
  void *owned;
  int p, np, t, st;
  if (!b || !s) return LA_ENULL; /* here too, for the analyzers */
  if ((st = la__bl_check_batch(b)) != 0) return st;
  if ((st = la__bl_spec_check(s, b->d)) != 0) return st;
  if ((st = la__bl_open(b->d, b->n, NULL, NULL, &work, &bytes, &owned, &B)))
    return st;
  if (losses)
    for (t = 0; t < s->steps; ++t) losses[t] = 0;
  np = la_panels(b->count);
  for (p = 0; p < np && !st; ++p) {
    int valid = b->count - p * LA_W < LA_W ? b->count - p * LA_W : LA_W;
    if (!la__bl_gram(b, p, &B)) {
      st = LA_ENONFINITE;
      break;
    }
    if (losses || pred)
      la__bl_gd(&B, valid, s->precond, s->steps, s->eta, s->etas, losses,
                pred ? pred + (size_t)p * LA_W : NULL);
  }
  la__work_end(owned);
  if (st) return st;
  if (losses)
    for (t = 0; t < s->steps; ++t) {
      losses[t] /= b->count;
      if (!la__finite(losses[t])) st = LA_EDIVERGED;
    }
  return st;
}

LINATTN_DEF size_t la_ridge_work_bytes(int d, int n) {
  return la__bl_size(d, n, NULL, NULL);
}

/* One pass of ridge fits at several lambdas (loss sums into out). */
static int la__bl_ridge_pass(const la_batch *b, la__bl *B, int nl,
                             const double *lambdas, double *out,
                             la_real *pred) {
  int p, np = la_panels(b->count), j;
  for (j = 0; j < nl; ++j) out[j] = 0;
  for (p = 0; p < np; ++p) {
    int valid = b->count - p * LA_W < LA_W ? b->count - p * LA_W : LA_W;
    if (!la__bl_gram(b, p, B)) return LA_ENONFINITE;
    for (j = 0; j < nl; ++j)
      la__bl_ridge(B, valid, lambdas[j], &out[j],
                   pred ? pred + (size_t)p * LA_W : NULL);
  }
  for (j = 0; j < nl; ++j) out[j] /= b->count;
  return LA_OK;
}

LINATTN_DEF int la_ridge_eval(const la_batch *b, double lambda, double *loss,
                              la_real *pred, void *work, size_t bytes) {
  la__bl B;
  void *owned;
  double l = 0;
  int st;
  if (!b) return LA_ENULL;
  if ((st = la__bl_check_batch(b)) != 0) return st;
  if (!la__finite(lambda)) return LA_ENONFINITE;
  if (lambda < 0) return LA_ERANGE;
  if ((st = la__bl_open(b->d, b->n, NULL, NULL, &work, &bytes, &owned, &B)))
    return st;
  st = la__bl_ridge_pass(b, &B, 1, &lambda, &l, pred);
  la__work_end(owned);
  if (st) return st;
  if (loss) *loss = l;
  return la__finite(l) ? LA_OK : LA_EDIVERGED;
}

/* ---- tuners: a grid pass, then golden-section search on the log of the
   parameter for each of `np_` problems (GD: one per k) side by side, one
   pass over the batch per round. */

typedef struct la__gs {
  double a, b, x1, x2, f1, f2; /* bracket and interior points, in log */
  double bx, bf;               /* the best point evaluated */
  int need;                    /* 0: done; 1: f1 wanted; 2: f2; 3: both */
} la__gs;

typedef struct la__tune {
  double lo, hi, tol;
  int grid, np; /* grid points, problems */
  double *gl;   /* grid losses: grid x np */
  double *xs, *fs;     /* a round's points and losses: 2 per problem */
  la__gs *gs;          /* np */
} la__tune;

static int la__tune_resolve(const la_tune_config *c, double lo, double hi,
                            la__tune *t) {
  t->lo = c && c->lo != 0 ? c->lo : lo;
  t->hi = c && c->hi != 0 ? c->hi : hi;
  t->grid = c && c->grid ? c->grid : 31;
  t->tol = c && c->tol != 0 ? c->tol : 1e-6;
  if (!la__finite(t->lo) || !la__finite(t->hi) || !la__finite(t->tol))
    return LA_ENONFINITE;
  if (!(t->lo > 0 && t->lo < t->hi && t->tol > 0) || t->grid < 3 ||
      t->grid > 10000)
    return LA_ERANGE;
  return LA_OK;
}

static void la__tune_take(la__arena *ar, void *ctx) {
  la__tune *t = (la__tune *)ctx;
  t->gl = (double *)la__take(ar, sizeof(double) * (size_t)t->grid * t->np);
  t->xs = (double *)la__take(ar, sizeof(double) * 2 * (size_t)t->np);
  t->fs = (double *)la__take(ar, sizeof(double) * 2 * (size_t)t->np);
  t->gs = (la__gs *)la__take(ar, sizeof(la__gs) * (size_t)t->np);
}

static double la__tune_grid_x(const la__tune *t, int j) {
  double u0 = log(t->lo), u1 = log(t->hi);
  return j == t->grid - 1 ? u1 : u0 + (u1 - u0) * j / (t->grid - 1);
}
/* Non-finite losses lose every comparison. */
static double la__tune_f(double f) { return f == f ? f : HUGE_VAL; }

#define LA__GOLD 0.6180339887498949

/* After the grid: each problem's bracket around its best grid point;
   LA_EDIVERGED when a problem has no finite loss on the grid. */
static int la__tune_start(la__tune *t) {
  int k, j, all = 1;
  for (k = 0; k < t->np; ++k) {
    la__gs *g = &t->gs[k];
    int best = 0;
    for (j = 0; j < t->grid; ++j) {
      double f = la__tune_f(t->gl[(size_t)j * t->np + k]);
      t->gl[(size_t)j * t->np + k] = f;
      if (f < t->gl[(size_t)best * t->np + k]) best = j;
    }
    g->bx = la__tune_grid_x(t, best);
    g->bf = t->gl[(size_t)best * t->np + k];
    all &= g->bf < HUGE_VAL;
    g->a = la__tune_grid_x(t, best > 0 ? best - 1 : 0);
    g->b = la__tune_grid_x(t, best < t->grid - 1 ? best + 1 : best);
    g->x1 = g->b - LA__GOLD * (g->b - g->a);
    g->x2 = g->a + LA__GOLD * (g->b - g->a);
    g->need = g->bf < HUGE_VAL && g->b - g->a > t->tol ? 3 : 0;
  }
  return all ? LA_OK : LA_EDIVERGED;
}

/* The points a round must evaluate: xs[2k], xs[2k+1] (NaN: none). */
static int la__tune_points(la__tune *t) {
  int k, any = 0;
  for (k = 0; k < t->np; ++k) {
    la__gs *g = &t->gs[k];
    t->xs[2 * k] = g->need & 1 ? g->x1 : NAN;
    t->xs[2 * k + 1] = g->need & 2 ? g->x2 : NAN;
    any |= g->need != 0;
  }
  return any;
}

static void la__tune_update(la__tune *t) {
  int k;
  for (k = 0; k < t->np; ++k) {
    la__gs *g = &t->gs[k];
    if (!g->need) continue;
    if (g->need & 1) g->f1 = la__tune_f(t->fs[2 * k]);
    if (g->need & 2) g->f2 = la__tune_f(t->fs[2 * k + 1]);
    if (g->f1 < g->bf) { g->bf = g->f1; g->bx = g->x1; }
    if (g->f2 < g->bf) { g->bf = g->f2; g->bx = g->x2; }
    if (g->f1 < g->f2) {
      g->b = g->x2; g->x2 = g->x1; g->f2 = g->f1;
      g->x1 = g->b - LA__GOLD * (g->b - g->a);
      g->need = 1;
    } else {
      g->a = g->x1; g->x1 = g->x2; g->f1 = g->f2;
      g->x2 = g->a + LA__GOLD * (g->b - g->a);
      g->need = 2;
    }
    if (g->b - g->a <= t->tol) g->need = 0;
  }
}

/* GD's rounds: the grid pass runs one trajectory of every length at once
   per grid step size; a golden round one k-step trajectory per point. */
typedef struct la__gd_tune_ctx {
  la__tune t;
  int steps;
} la__gd_tune_ctx;

static void la__gd_tune_take(la__arena *ar, void *ctx) {
  la__tune_take(ar, &((la__gd_tune_ctx *)ctx)->t);
}

static int la__gd_tune_round(const la_batch *b, la__bl *B, const double *P,
                             la__tune *t, int grid) {
  int p, np = la_panels(b->count), j, k;
  size_t nout = grid ? (size_t)t->grid * t->np : 2 * (size_t)t->np;
  double *out = grid ? t->gl : t->fs;
  for (j = 0; j < (int)nout; ++j) out[j] = 0;
  for (p = 0; p < np; ++p) {
    int valid = b->count - p * LA_W < LA_W ? b->count - p * LA_W : LA_W;
    if (!la__bl_gram(b, p, B)) return LA_ENONFINITE;
    if (grid) {
      for (j = 0; j < t->grid; ++j)
        la__bl_gd(B, valid, P, t->np, exp(la__tune_grid_x(t, j)), NULL,
                  t->gl + (size_t)j * t->np, NULL);
    } else {
      for (k = 0; k < t->np; ++k)
        for (j = 0; j < 2; ++j) {
          double x = t->xs[2 * k + j];
          if (x != x) continue;
          /* only the last of the k losses is wanted; summed in the order
             la_gd_eval sums, so that the two agree bit for bit */
          la__bl_gd(B, valid, P, k + 1, exp(x), NULL, NULL, NULL);
          la__bl_score(B, B->w, valid, &t->fs[2 * k + j], NULL);
        }
    }
  }
  for (j = 0; j < (int)nout; ++j) out[j] /= b->count;
  return LA_OK;
}

static int la__gd_tune_setup(int d, int n, int steps,
                             const la_tune_config *cfg, la__gd_tune_ctx *c) {
  int st;
  if (!la__bl_dims_ok(d, n) || steps < 1) return LA_EDIM;
  if ((st = la__tune_resolve(cfg, 1e-4, 1e2, &c->t)) != 0) return st;
  if ((double)c->t.grid * steps > 1e8) return LA_EOVERFLOW;
  c->t.np = c->steps = steps;
  return LA_OK;
}

LINATTN_DEF size_t la_gd_tune_work_bytes(int d, int n, int steps,
                                         const la_tune_config *cfg) {
  la__gd_tune_ctx c;
  if (la__gd_tune_setup(d, n, steps, cfg, &c)) return 0;
  return la__bl_size(d, n, la__gd_tune_take, &c);
}

LINATTN_DEF int la_gd_tune(const la_batch *val, int steps,
                           const double *precond, const la_tune_config *cfg,
                           double *eta, double *loss, void *work,
                           size_t bytes) {
  la__gd_tune_ctx c;
  la__bl B;
  void *owned;
  int k, st;
  if (!val || !eta || !loss) return LA_ENULL;
  if ((st = la__bl_check_batch(val)) != 0) return st;
  if ((st = la__gd_tune_setup(val->d, val->n, steps, cfg, &c)) != 0)
    return st;
  if (precond)
    for (k = 0; k < val->d * val->d; ++k)
      if (!la__finite(precond[k])) return LA_ENONFINITE;
  if ((st = la__bl_open(val->d, val->n, la__gd_tune_take, &c, &work, &bytes,
                        &owned, &B)) != 0)
    return st;
  st = la__gd_tune_round(val, &B, precond, &c.t, 1);
  if (!st) st = la__tune_start(&c.t);
  while (!st && la__tune_points(&c.t)) {
    st = la__gd_tune_round(val, &B, precond, &c.t, 0);
    if (!st) la__tune_update(&c.t);
  }
  if (!st)
    for (k = 0; k < steps; ++k) {
      eta[k] = exp(c.t.gs[k].bx);
      loss[k] = c.t.gs[k].bf;
    }
  la__work_end(owned);
  return st;
}

typedef struct la__ridge_tune_ctx {
  la__tune t;
  double *lam; /* a round's lambdas: grid + 1 */
  double *out;
} la__ridge_tune_ctx;

static void la__ridge_tune_take(la__arena *ar, void *ctx) {
  la__ridge_tune_ctx *c = (la__ridge_tune_ctx *)ctx;
  la__tune_take(ar, &c->t);
  c->lam = (double *)la__take(ar, sizeof(double) * ((size_t)c->t.grid + 1));
  c->out = (double *)la__take(ar, sizeof(double) * ((size_t)c->t.grid + 1));
}

static int la__ridge_tune_setup(int d, int n, const la_tune_config *cfg,
                                la__ridge_tune_ctx *c) {
  int st;
  if (!la__bl_dims_ok(d, n)) return LA_EDIM;
  if ((st = la__tune_resolve(cfg, 1e-8, 1e2, &c->t)) != 0) return st;
  c->t.np = 1;
  return LA_OK;
}

LINATTN_DEF size_t la_ridge_tune_work_bytes(int d, int n,
                                            const la_tune_config *cfg) {
  la__ridge_tune_ctx c;
  if (la__ridge_tune_setup(d, n, cfg, &c)) return 0;
  return la__bl_size(d, n, la__ridge_tune_take, &c);
}

LINATTN_DEF int la_ridge_tune(const la_batch *val, const la_tune_config *cfg,
                              double *lambda, double *loss, void *work,
                              size_t bytes) {
  la__ridge_tune_ctx c;
  la__bl B;
  void *owned;
  double ols = HUGE_VAL; /* set by the first pass; initialized for g++ -O2 */
  int j, G, st;
  if (!val || !lambda || !loss) return LA_ENULL;
  if ((st = la__bl_check_batch(val)) != 0) return st;
  if ((st = la__ridge_tune_setup(val->d, val->n, cfg, &c)) != 0) return st;
  if ((st = la__bl_open(val->d, val->n, la__ridge_tune_take, &c, &work,
                        &bytes, &owned, &B)) != 0)
    return st;
  G = c.t.grid;
  /* the grid and lambda = 0 in one pass */
  for (j = 0; j < G; ++j) c.lam[j] = exp(la__tune_grid_x(&c.t, j));
  c.lam[G] = 0;
  st = la__bl_ridge_pass(val, &B, G + 1, c.lam, c.out, NULL);
  if (!st) {
    for (j = 0; j < G; ++j) c.t.gl[j] = c.out[j];
    ols = la__tune_f(c.out[G]);
    st = la__tune_start(&c.t);
    if (st == LA_EDIVERGED && ols < HUGE_VAL) st = LA_OK;
  }
  while (!st && la__tune_points(&c.t)) {
    int nl = 0;
    for (j = 0; j < 2; ++j)
      if (c.t.xs[j] == c.t.xs[j]) c.lam[nl++] = exp(c.t.xs[j]);
    st = la__bl_ridge_pass(val, &B, nl, c.lam, c.out, NULL);
    for (j = 0, nl = 0; !st && j < 2; ++j)
      if (c.t.xs[j] == c.t.xs[j]) c.t.fs[j] = c.out[nl++];
    if (!st) la__tune_update(&c.t);
  }
  if (!st) {
    *lambda = ols <= c.t.gs[0].bf ? 0 : exp(c.t.gs[0].bx);
    *loss = ols <= c.t.gs[0].bf ? ols : c.t.gs[0].bf;
  }
  la__work_end(owned);
  return st;
}

/* ------------------------------------------ paper B's Theorem 3 family */

LINATTN_DEF int la_data_sigma_inv(const la_data *g, double *sinv) {
  int d, i, j, k;
  double x[LA_MAX_D];
  if (!g || !sinv) return LA_ENULL;
  d = g->cfg.d;
  if (d <= 0 || d > LA_MAX_D) return LA_EDIM;
  if (g->cfg.sigma != LA_SIGMA_IDENTITY && !g->chol) return LA_ENULL;
  for (i = 0; i < d * d; ++i) sinv[i] = 0;
  if (!g->chol) {
    for (i = 0; i < d; ++i) sinv[(size_t)i * d + i] = 1;
    return LA_OK;
  }
  /* column j of Sigma^-1 = L^-T (L^-1 e_j): two triangular solves */
  for (j = 0; j < d; ++j) {
    const la_real *L = g->chol;
    for (i = 0; i < d; ++i) {
      double v = i == j ? 1.0 : 0.0;
      for (k = 0; k < i; ++k) v -= (double)L[(size_t)i * d + k] * x[k];
      x[i] = v / (double)L[(size_t)i * d + i];
    }
    for (i = d - 1; i >= 0; --i) {
      double v = x[i];
      for (k = i + 1; k < d; ++k) v -= (double)L[(size_t)k * d + i] * x[k];
      x[i] = v / (double)L[(size_t)i * d + i];
    }
    for (i = 0; i < d; ++i) sinv[(size_t)i * d + j] = x[i];
  }
  for (i = 0; i < d * d; ++i)
    if (!la__finite(sinv[i])) return LA_ENONFINITE;
  return LA_OK;
}

static int la__pgd_model_ok(const la_model *m) {
  return la__m_valid(m) && m->cfg.param == LA_PARAM_PGD &&
         m->cfg.activation == LA_ACT_LINEAR && m->cfg.front_hidden == 0;
}

static int la__pgd_theta(const la_model *m, const double *M, const double *a,
                         la_real *theta) {
  int d = m->cfg.d, l, i, j;
  size_t dd = (size_t)d * d;
  for (l = 0; l < m->cfg.layers; ++l)
    for (i = 0; i < d; ++i)
      for (j = 0; j < d; ++j) {
        double x = a[l] * (M ? M[(size_t)i * d + j] : (double)(i == j));
        if (!(fabs(x) <= LA__REAL_MAX)) return LA_ERANGE;
        theta[(size_t)l * dd + (size_t)i * d + j] = (la_real)x;
      }
  return LA_OK;
}

static int la__pgd_args(const la_model *m, const double *M, int na,
                        const double *a) {
  int i;
  if (!la__pgd_model_ok(m)) return LA_ERANGE;
  for (i = 0; M && i < m->cfg.d * m->cfg.d; ++i)
    if (!la__finite(M[i])) return LA_ENONFINITE;
  for (i = 0; a && i < na; ++i)
    if (!la__finite(a[i])) return LA_ENONFINITE;
  return LA_OK;
}

LINATTN_DEF int la_pgd_family_theta(const la_model *m, const double *sinv,
                                    const double *a, la_real *theta) {
  int st;
  if (!m || !a || !theta) return LA_ENULL;
  if ((st = la__pgd_args(m, sinv, m->cfg.layers, a)) != 0) return st;
  return la__pgd_theta(m, sinv, a, theta);
}

/* The solve's state: the model, its batch and M, and four vectors. */
typedef struct la__pgd {
  const la_model *m;
  const la_batch *b;
  const double *M;
  int L, d;
  la_real *theta, *v, *hv, *grad;
  double *g, *H, *C, *s, *an; /* L, L * L, L * L, L, L */
  void *mw;
  size_t mb;
} la__pgd;

static void la__pgd_take(la__arena *ar, const la_model *m, la__pgd *P) {
  size_t np = (size_t)m->nparams;
  P->mw = la__model_take(ar, m, &P->mb);
  P->theta = (la_real *)la__take(ar, sizeof(la_real) * np);
  P->v = (la_real *)la__take(ar, sizeof(la_real) * np);
  P->hv = (la_real *)la__take(ar, sizeof(la_real) * np);
  P->grad = (la_real *)la__take(ar, sizeof(la_real) * np);
  P->g = (double *)la__take(ar, sizeof(double) * (size_t)m->cfg.layers);
  P->H = (double *)la__take(ar, sizeof(double) * (size_t)m->cfg.layers *
                                    (size_t)m->cfg.layers);
  P->C = (double *)la__take(ar, sizeof(double) * (size_t)m->cfg.layers *
                                    (size_t)m->cfg.layers);
  P->s = (double *)la__take(ar, sizeof(double) * (size_t)m->cfg.layers);
  P->an = (double *)la__take(ar, sizeof(double) * (size_t)m->cfg.layers);
}

LINATTN_DEF size_t la_pgd_optimum_work_bytes(const la_model *m) {
  la__arena a = la__arena_count();
  la__pgd P;
  if (!m || !la__pgd_model_ok(m)) return 0;
  la__pgd_take(&a, m, &P);
  return la__arena_size(&a);
}

/* <block l of x, M> */
static double la__pgd_inner(const la__pgd *P, const la_real *x, int l) {
  size_t dd = (size_t)P->d * P->d, e;
  double s = 0;
  x += (size_t)l * dd;
  for (e = 0; e < dd; ++e)
    s += (double)x[e] * (P->M ? P->M[e] : (double)(e % (P->d + 1) == 0));
  return s;
}

static int la__pgd_loss(la__pgd *P, const double *a, double *f) {
  int st = la__pgd_theta(P->m, P->M, a, P->theta);
  if (st) return st;
  return la_model_loss(P->m, P->theta, P->b, f, NULL, P->mw, P->mb);
}

/* Loss, gradient and Hessian in the L scalars: H e_l from one
   Hessian-vector product along the direction "block l = M". */
static int la__pgd_derivs(la__pgd *P, const double *a, double *f, double *g,
                          double *H) {
  int L = P->L, d = P->d, l, k, st;
  size_t dd = (size_t)d * d, e, np = (size_t)P->m->nparams;
  if ((st = la__pgd_theta(P->m, P->M, a, P->theta)) != 0) return st;
  for (l = 0; l < L; ++l) {
    for (e = 0; e < np; ++e) P->v[e] = 0;
    for (e = 0; e < dd; ++e)
      P->v[(size_t)l * dd + e] =
          (la_real)(P->M ? P->M[e] : (double)(e % (size_t)(d + 1) == 0));
    st = la_model_hvp(P->m, P->theta, P->b, P->v, l == 0 ? f : NULL,
                      l == 0 ? P->grad : NULL, P->hv, P->mw, P->mb);
    if (st) return st;
    for (k = 0; k < L; ++k) H[k * L + l] = la__pgd_inner(P, P->hv, k);
  }
  for (l = 0; l < L; ++l) {
    g[l] = la__pgd_inner(P, P->grad, l);
    for (k = 0; k < l; ++k)
      H[k * L + l] = H[l * L + k] = (H[k * L + l] + H[l * L + k]) / 2;
  }
  return LA_OK;
}

/* s = -(H + mu I)^-1 g by Cholesky; 0 when H + mu I is not positive
   definite. */
static int la__pgd_newton(int L, const double *H, double mu, const double *g,
                          double *C, double *s) {
  int i, j, k;
  for (j = 0; j < L; ++j) {
    double x = H[j * L + j] + mu;
    for (k = 0; k < j; ++k) x -= C[j * L + k] * C[j * L + k];
    if (!(x > 0) || !la__finite(x)) return 0;
    C[j * L + j] = sqrt(x);
    for (i = j + 1; i < L; ++i) {
      double y = H[i * L + j];
      for (k = 0; k < j; ++k) y -= C[i * L + k] * C[j * L + k];
      C[i * L + j] = y / C[j * L + j];
    }
  }
  for (i = 0; i < L; ++i) {
    double x = -g[i];
    for (k = 0; k < i; ++k) x -= C[i * L + k] * s[k];
    s[i] = x / C[i * L + i];
  }
  for (i = L - 1; i >= 0; --i) {
    double x = s[i];
    for (k = i + 1; k < L; ++k) x -= C[k * L + i] * s[k];
    s[i] = x / C[i * L + i];
  }
  return 1;
}

#ifdef LINATTN_DOUBLE
#define LA__PGD_TOL 1e-10
#else
#define LA__PGD_TOL 1e-5
#endif

/* Newton's iterations from a; on return a, *f are the last iterate's. */
static int la__pgd_solve(la__pgd *P, double *a, double *f) {
  int L = P->L, it, i, st, conv = 0;
  double *g = P->g, *H = P->H, *C = P->C, *s = P->s, *an = P->an;
  for (it = 0; it < 100 && !conv; ++it) {
    double mu = 0, hmax = 0, smax = 0, amax = 0, gs = 0, alpha = 1, fn;
    int tries;
    if ((st = la__pgd_derivs(P, a, f, g, H)) != 0) return st;
    for (i = 0; i < L; ++i) {
      double h = fabs(H[i * L + i]);
      hmax = h > hmax ? h : hmax;
    }
    /* Levenberg-Marquardt: shift until positive definite */
    for (tries = 0; !la__pgd_newton(L, H, mu, g, C, s); ++tries) {
      if (tries > 200) return LA_ENOCONVERGE;
      mu = mu > 0 ? 4 * mu : 1e-10 * (hmax > 0 ? hmax : 1);
    }
    for (i = 0; i < L; ++i) {
      smax = fabs(s[i]) > smax ? fabs(s[i]) : smax;
      amax = fabs(a[i]) > amax ? fabs(a[i]) : amax;
      gs += g[i] * s[i];
    }
    /* settled where the Hessian is positive definite: a minimum */
    if (mu == 0 && smax <= LA__PGD_TOL * (1 + amax)) conv = 1;
    /* near a minimum the Newton step is taken whole: the loss's rounding
       would stop an Armijo test before the step's own size does */
    if (mu == 0 && smax <= 0.1 * (1 + amax)) {
      for (i = 0; i < L; ++i) a[i] += s[i];
      continue;
    }
    for (tries = 0; tries < 60; ++tries, alpha /= 2) {
      for (i = 0; i < L; ++i) an[i] = a[i] + alpha * s[i];
      st = la__pgd_loss(P, an, &fn);
      if (st && st != LA_EDIVERGED && st != LA_ERANGE) return st;
      if (!st && fn <= *f + 1e-4 * alpha * gs) break;
    }
    if (tries == 60) return LA_ENOCONVERGE;
    for (i = 0; i < L; ++i) a[i] = an[i];
  }
  return conv ? LA_OK : LA_ENOCONVERGE;
}

LINATTN_DEF int la_pgd_optimum(const la_model *m, const la_batch *b,
                               const double *sinv, double *a, double *loss,
                               void *work, size_t bytes) {
  la__pgd P;
  la__arena ar;
  void *owned;
  double f = 0, r, c, h, pi = 3.14159265358979323846;
  int st, l, L;
  if (!m || !b || !a || !loss) return LA_ENULL;
  if ((st = la__pgd_args(m, sinv, 0, NULL)) != 0) return st;
  if (b->d != m->cfg.d || b->n != m->cfg.n) return LA_ESHAPE;
  if (b->count <= 0) return LA_EDIM;
  st = la__work_begin(la_pgd_optimum_work_bytes(m), &work, &bytes, &owned);
  if (st) return st;
  ar = la__arena_on(work, bytes);
  if (!la__arena_align(&ar)) {
    la__work_end(owned);
    return LA_EWORKSPACE;
  }
  la__pgd_take(&ar, m, &P);
  P.m = m; P.b = b; P.M = sinv;
  P.L = L = m->cfg.layers;
  P.d = m->cfg.d;
  /* step sizes 1 / mu at Chebyshev nodes of the Marchenko-Pastur range of
     the whitened S: (1 + r) +- 2 sqrt(r), r = d / n */
  r = (double)m->cfg.d / m->cfg.n;
  c = 1 + r;
  h = 2 * sqrt(r) < 0.9 * c ? 2 * sqrt(r) : 0.9 * c;
  for (l = 0; l < L; ++l) a[l] = -1 / (c + h * cos((2 * l + 1) * pi / (2 * L)));
  st = la__pgd_solve(&P, a, &f);
  if (!st || st == LA_ENOCONVERGE) {
    int e = la__pgd_loss(&P, a, &f);
    if (e) st = e;
    *loss = f;
    /* ascending step sizes -a_l: a descending */
    for (l = 0; l < L; ++l) a[l] = -a[l];
    la__sort(L, a, NULL);
    for (l = 0; l < L; ++l) a[l] = -a[l];
  }
  la__work_end(owned);
  return st;
}

#endif /* LINATTN_NO_RESEARCH */

#if defined(__clang__)
#pragma STDC FP_CONTRACT DEFAULT
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

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
