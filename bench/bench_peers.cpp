/* The library against the fastest ways a C or C++ engineer would write the
   base model instead: loss + gradient of paper A's sparse linear
   transformer (L = 3, d = 5, n = 20, one head, float), one thread.

   Contenders, each timed on the same prompts and parameters:
     linattn      la_model_grad, this file's build of the header
     linattn-avx2 the same from bench/peers_lib.c, built apart with
                  -O2 -mavx2 -mfma (the library's default x86 build); its
                  gradient must have linattn's bits (the header's promise
                  across compilers, languages and x86 backends)
     eigen        Eigen 3 per prompt: Z a Matrix<float, 6, 21>, the
                  forward pass kept per layer, the backward derived by hand
     eigen-x16    the same code on a SIMD scalar type of 16 float lanes
                  (one __m512, or two __m256 without AVX-512): 16 prompts
                  per matrix, the gradient's lanes summed once at the end
     eigen-x8     the same on 8 lanes (one __m256): its ratio to eigen-x16
                  is what 512-bit vectors buy this code on this core
     libxsmm      per prompt, every small product a libxsmm JIT kernel
                  (column-major, beta 0 or 1), the rest plain loops
   Before anything is timed, each contender's gradient is checked against
   linattn's (max |difference| <= 1e-4 max |gradient|: float sums over the
   batch in other orders agree to about 1e-6; a wrong derivative is off by
   O(1)) and its loss likewise; a contender that fails is reported and not
   timed.

   Timing: thread CPU time, rounds in which every contender runs one group
   of calls in turn and the FMA peaks of 256-bit and 512-bit vectors are
   measured between them; each figure is the best of its rounds, so the
   ratios come from one process on one core under the same neighbours.

   The model (Z the D x T prompt, D = d+1, T = n+1, K its first n columns,
   q its last): a hidden layer Z <- C Z, C = I + P S Q / n, S = K K^T; the
   last layer's output z = q_{D-1} + (p S Q) . q / n, p = P's last row; loss
   the mean of (z + y)^2. Sparse: P = [Pf 0; 0 1], Q = [Qf 0; 0 0], theta
   per layer Pf then Qf (d x d each, row-major). Backward, with G = dloss/dZ'
   of a hidden layer: dC = G Z^T, dP = dC Q^T S / n, dQ = S P^T dC / n,
   dS = P^T dC Q^T / n, dZ = C^T G + [(dS + dS^T) K, 0]; of the last layer
   (g = dloss/dz, gs = g / n, u = Q q, r1 = p S): dp = gs S u,
   dQ = gs r1^T q^T, dq = g e_{D-1} + gs (r1 Q)^T,
   dK_j = gs ((K^T p)_j u + (K^T u)_j p).

   Usage: bench_peers [rounds] (default 40). */
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include <Eigen/Core>
#include <libxsmm.h>

enum { d = 5, n = 20, D = d + 1, T = n + 1, L = 3 };

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------ FMA peaks */
/* Ten independent chains of vector FMAs: GFLOP/s of one group. */
template <class V, int LANES, V (*FMA)(V, V, V), V (*SET)(float)>
static double fma_group(long iters) {
  V a[10], b = SET(0.999999f), c = SET(1e-7f);
  for (int j = 0; j < 10; ++j) a[j] = SET(1);
  double t0 = cpu_now();
  for (long i = 0; i < iters; ++i) {
    for (int j = 0; j < 10; ++j) a[j] = FMA(a[j], b, c);
    __asm__ volatile("" : "+v"(a[0]), "+v"(a[1]), "+v"(a[2]), "+v"(a[3]), "+v"(a[4]));
    __asm__ volatile("" : "+v"(a[5]), "+v"(a[6]), "+v"(a[7]), "+v"(a[8]), "+v"(a[9]));
  }
  double dt = cpu_now() - t0;
  return 10.0 * iters * LANES * 2 / dt / 1e9;
}
static __m256 set256(float x) { return _mm256_set1_ps(x); }
static __m256 fma256(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
#ifdef __AVX512F__
static __m512 set512(float x) { return _mm512_set1_ps(x); }
static __m512 fma512(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
#endif

/* ------------------------------------------------------------ the data */
struct Problem {
  int count;
  std::vector<float> z;     /* count prompts, D x T row-major each */
  std::vector<float> y;     /* count targets */
  std::vector<float> theta; /* L (Pf, Qf) */
  la_model m;
  la_batch b;
  void *work;
  size_t bytes;
  std::vector<float> grad; /* linattn's */
  double loss;
};

/* Dense P, Q of layer l (row-major D x D) from theta. */
static void expand(const float *th, int l, float *P, float *Q) {
  const float *pf = th + (size_t)l * 2 * d * d, *qf = pf + d * d;
  memset(P, 0, sizeof(float) * D * D);
  memset(Q, 0, sizeof(float) * D * D);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) {
      P[i * D + j] = pf[i * d + j];
      Q[i * D + j] = qf[i * d + j];
    }
  P[D * D - 1] = 1;
}

extern "C" int peers_lib_grad(int count, const float *z, const float *y,
                              const float *theta, double *loss, float *grad,
                              const char **backend);

static int linattn_grad(Problem &p) {
  return la_model_grad(&p.m, p.theta.data(), &p.b, &p.loss, p.grad.data(),
                       p.work, p.bytes);
}

/* ------------------------------------------------------- Eigen per prompt */
typedef Eigen::Matrix<float, D, T> MZ;
typedef Eigen::Matrix<float, D, D> MD;
typedef Eigen::Matrix<float, D, 1> VD;

/* Loss sum and dense gradient sums of prompts [0, count) into gP, gQ. */
static double eigen_grad(const Problem &p, float *out) {
  MD P[L], Q[L], gP[L], gQ[L];
  float Pa[D * D], Qa[D * D];
  for (int l = 0; l < L; ++l) {
    expand(p.theta.data(), l, Pa, Qa);
    P[l] = Eigen::Map<const Eigen::Matrix<float, D, D, Eigen::RowMajor>>(Pa);
    Q[l] = Eigen::Map<const Eigen::Matrix<float, D, D, Eigen::RowMajor>>(Qa);
    gP[l].setZero();
    gQ[l].setZero();
  }
  double lsum = 0;
  MZ Z[L], G;
  MD S[L], C[L], PS[L];
  for (int b = 0; b < p.count; ++b) {
    Z[0] = Eigen::Map<const Eigen::Matrix<float, D, T, Eigen::RowMajor>>(
        p.z.data() + (size_t)b * D * T);
    for (int l = 0; l < L - 1; ++l) {
      S[l].noalias() = Z[l].leftCols<n>() * Z[l].leftCols<n>().transpose();
      PS[l].noalias() = P[l] * S[l];
      C[l].noalias() = PS[l] * Q[l] * (1.0f / n);
      C[l].diagonal().array() += 1;
      Z[l + 1].noalias() = C[l] * Z[l];
    }
    const int l = L - 1;
    S[l].noalias() = Z[l].leftCols<n>() * Z[l].leftCols<n>().transpose();
    VD q = Z[l].col(n), pl = P[l].row(D - 1).transpose();
    VD r1 = S[l] * pl; /* (p S)^T: S is symmetric */
    VD c = Q[l].transpose() * r1;
    float z = q(D - 1) + c.dot(q) / n, r = z + p.y[b];
    lsum += (double)r * r;
    float g = 2 * r, gs = g / n;
    /* the last layer backward */
    VD u = Q[l] * q, su = S[l] * u;
    gP[l].row(D - 1) += gs * su.transpose();
    gQ[l].noalias() += gs * r1 * q.transpose();
    G.setZero();
    G.col(n) = gs * c;
    G(D - 1, n) += g;
    Eigen::Matrix<float, n, 1> a = Z[l].leftCols<n>().transpose() * pl,
                               bb = Z[l].leftCols<n>().transpose() * u;
    G.leftCols<n>().noalias() += gs * (u * a.transpose() + pl * bb.transpose());
    for (int k = L - 2; k >= 0; --k) { /* hidden layers */
      MD dC = G * Z[k].transpose() * (1.0f / n);
      MD T1 = dC * Q[k].transpose();
      gP[k].noalias() += T1 * S[k];
      gQ[k].noalias() += PS[k].transpose() * dC;
      if (k == 0) break;
      MD dS = P[k].transpose() * T1;
      MD E = dS + dS.transpose();
      MZ G2 = C[k].transpose() * G;
      G2.leftCols<n>().noalias() += E * Z[k].leftCols<n>();
      G = G2;
    }
  }
  for (int l = 0; l < L; ++l)
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) {
        out[l * 2 * d * d + i * d + j] = gP[l](i, j) / p.count;
        out[l * 2 * d * d + d * d + i * d + j] = gQ[l](i, j) / p.count;
      }
  return lsum / p.count;
}

/* ---------------------------------------- Eigen on SIMD lane scalars */
/* One value per prompt of a group of 16 (X16) or 8 (X8, one __m256: the
   same code at 256 bits, which shows what the wider lanes buy): GNU vector
   arithmetic, which the compiler fuses into FMAs where it may (C++
   contracts by default). */
#ifdef __AVX512F__
struct X16 {
  enum { N = 16 };
  __m512 v;
  X16() {}
  X16(float x) : v(_mm512_set1_ps(x)) {}
  X16(__m512 x) : v(x) {}
  float sum() const { return _mm512_reduce_add_ps(v); }
  X16 op(X16 b, int o) const {
    return X16(o == 0 ? v + b.v : o == 1 ? v - b.v : o == 2 ? v * b.v : v / b.v);
  }
};
#else
struct X16 {
  enum { N = 16 };
  __m256 v0, v1;
  X16() {}
  X16(float x) : v0(_mm256_set1_ps(x)), v1(v0) {}
  X16(__m256 a, __m256 b) : v0(a), v1(b) {}
  float sum() const {
    float t[16], s = 0;
    _mm256_storeu_ps(t, v0);
    _mm256_storeu_ps(t + 8, v1);
    for (int i = 0; i < 16; ++i) s += t[i];
    return s;
  }
  X16 op(X16 b, int o) const {
    return o == 0   ? X16(v0 + b.v0, v1 + b.v1)
           : o == 1 ? X16(v0 - b.v0, v1 - b.v1)
           : o == 2 ? X16(v0 * b.v0, v1 * b.v1)
                    : X16(v0 / b.v0, v1 / b.v1);
  }
};
#endif
struct X8 {
  enum { N = 8 };
  __m256 v;
  X8() {}
  X8(float x) : v(_mm256_set1_ps(x)) {}
  X8(__m256 x) : v(x) {}
  float sum() const {
    float t[8], s = 0;
    _mm256_storeu_ps(t, v);
    for (int i = 0; i < 8; ++i) s += t[i];
    return s;
  }
  X8 op(X8 b, int o) const {
    return X8(o == 0 ? v + b.v : o == 1 ? v - b.v : o == 2 ? v * b.v : v / b.v);
  }
};
/* the operators of both: the constant o folds away when inlined */
#define LANE_OPS(S)                                                            \
  static inline S operator+(S a, S b) { return a.op(b, 0); }                   \
  static inline S operator-(S a, S b) { return a.op(b, 1); }                   \
  static inline S operator*(S a, S b) { return a.op(b, 2); }                   \
  static inline S operator/(S a, S b) { return a.op(b, 3); }                   \
  static inline S operator-(S a) { return S(0.0f).op(a, 1); }                  \
  static inline S &operator+=(S &a, S b) { return a = a + b; }                 \
  static inline S &operator-=(S &a, S b) { return a = a - b; }                 \
  static inline S &operator*=(S &a, S b) { return a = a * b; }                 \
  static inline S &operator/=(S &a, S b) { return a = a / b; }                 \
  namespace Eigen {                                                            \
  template <> struct NumTraits<S> : GenericNumTraits<float> {                  \
    typedef S Real;                                                            \
    typedef S NonInteger;                                                      \
    typedef S Nested;                                                          \
    typedef S Literal;                                                         \
    enum {                                                                     \
      IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 0,   \
      ReadCost = 1, AddCost = 1, MulCost = 1                                   \
    };                                                                         \
  };                                                                           \
  }
LANE_OPS(X16)
LANE_OPS(X8)

/* The prompts regrouped S::N to a matrix: element (i, j) of the group's
   prompts contiguous (padding prompts zero, with zero targets and zero
   weight in the loss and gradient). */
template <class S> struct Wide {
  typedef Eigen::Matrix<S, D, T> WZ;
  std::vector<WZ, Eigen::aligned_allocator<WZ>> z;
  std::vector<S, Eigen::aligned_allocator<S>> y, on;
};
template <class S> static void wide_data(const Problem &p, Wide<S> &w) {
  const int N = S::N, groups = (p.count + N - 1) / N;
  w.z.resize(groups);
  w.y.resize(groups);
  w.on.resize(groups);
  for (int g = 0; g < groups; ++g) {
    float t[N], y[N], on[N];
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < T; ++j) {
        for (int k = 0; k < N; ++k) {
          int b = g * N + k;
          t[k] = b < p.count ? p.z[(size_t)b * D * T + i * T + j] : 0;
        }
        memcpy(&w.z[g](i, j), t, sizeof t);
      }
    for (int k = 0; k < N; ++k) {
      int b = g * N + k;
      y[k] = b < p.count ? p.y[b] : 0;
      on[k] = b < p.count ? 1 : 0;
    }
    memcpy(&w.y[g], y, sizeof y);
    memcpy(&w.on[g], on, sizeof on);
  }
}

template <class S>
static double eigen_lanes_grad(const Problem &p, const Wide<S> &w, float *out) {
  typedef Eigen::Matrix<S, D, T> WZ;
  typedef Eigen::Matrix<S, D, D> WD;
  typedef Eigen::Matrix<S, D, 1> WV;
  WD P[L], Q[L], gP[L], gQ[L];
  float Pa[D * D], Qa[D * D];
  const S in(1.0f / n), zero(0.0f), one(1.0f), two(2.0f);
  for (int l = 0; l < L; ++l) {
    expand(p.theta.data(), l, Pa, Qa);
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) {
        P[l](i, j) = S(Pa[i * D + j]);
        Q[l](i, j) = S(Qa[i * D + j]);
      }
    gP[l].setConstant(zero);
    gQ[l].setConstant(zero);
  }
  S lsum = zero;
  WZ Z[L], G;
  WD S_[L], C[L], PS[L];
  for (size_t gi = 0; gi < w.z.size(); ++gi) {
    Z[0] = w.z[gi];
    for (int l = 0; l < L - 1; ++l) {
      S_[l].noalias() = Z[l].template leftCols<n>().lazyProduct(
          Z[l].template leftCols<n>().transpose());
      PS[l].noalias() = P[l].lazyProduct(S_[l]);
      C[l].noalias() = PS[l].lazyProduct(Q[l]) * in;
      for (int i = 0; i < D; ++i) C[l](i, i) += one;
      Z[l + 1].noalias() = C[l].lazyProduct(Z[l]);
    }
    const int l = L - 1;
    S_[l].noalias() = Z[l].template leftCols<n>().lazyProduct(
        Z[l].template leftCols<n>().transpose());
    WV q = Z[l].col(n), pl = P[l].row(D - 1).transpose();
    WV r1 = S_[l].lazyProduct(pl);
    WV c = Q[l].transpose().lazyProduct(r1);
    S z = q(D - 1) + c.cwiseProduct(q).sum() * in;
    S r = (z + w.y[gi]) * w.on[gi];
    lsum += r * r;
    S g = two * r, gs = g * in;
    WV u = Q[l].lazyProduct(q), su = S_[l].lazyProduct(u);
    gP[l].row(D - 1) += (su * gs).transpose();
    gQ[l].noalias() += (r1 * gs).lazyProduct(q.transpose());
    G.setConstant(zero);
    G.col(n) = c * gs;
    G(D - 1, n) += g;
    Eigen::Matrix<S, n, 1> a =
        Z[l].template leftCols<n>().transpose().lazyProduct(pl);
    Eigen::Matrix<S, n, 1> bb =
        Z[l].template leftCols<n>().transpose().lazyProduct(u);
    G.template leftCols<n>().noalias() +=
        (u * gs).lazyProduct(a.transpose()) + (pl * gs).lazyProduct(bb.transpose());
    for (int k = L - 2; k >= 0; --k) {
      WD dC = G.lazyProduct(Z[k].transpose()) * in;
      WD T1 = dC.lazyProduct(Q[k].transpose());
      gP[k].noalias() += T1.lazyProduct(S_[k]);
      gQ[k].noalias() += PS[k].transpose().lazyProduct(dC);
      if (k == 0) break;
      WD dS = P[k].transpose().lazyProduct(T1);
      WD E = dS + dS.transpose();
      WZ G2 = C[k].transpose().lazyProduct(G);
      G2.template leftCols<n>().noalias() += E.lazyProduct(Z[k].template leftCols<n>());
      G = G2;
    }
  }
  for (int l = 0; l < L; ++l)
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) {
        out[l * 2 * d * d + i * d + j] = gP[l](i, j).sum() / p.count;
        out[l * 2 * d * d + d * d + i * d + j] = gQ[l](i, j).sum() / p.count;
      }
  return lsum.sum() / p.count;
}

/* ------------------------------------------------------------- libxsmm */
/* Column-major operands, C (m x n) = A (m x k) B (k x n) (+ C with acc). */
struct Xsmm {
  libxsmm_smmfunction k[2][8][24][24]; /* [acc][m][n][k] */
};
static libxsmm_smmfunction xk(Xsmm &x, int acc, int m, int nn, int k, int lda,
                              int ldb, int ldc) {
  float alpha = 1, beta = acc ? 1 : 0;
  int flags = acc ? LIBXSMM_GEMM_FLAG_NONE : LIBXSMM_GEMM_FLAG_BETA_0;
  libxsmm_blasint M = m, N = nn, K = k, la = lda, lb = ldb, lc = ldc;
  (void)x;
  return libxsmm_smmdispatch(M, N, K, &la, &lb, &lc, &alpha, &beta, &flags, NULL);
}

/* The kernels, dispatched once (the dispatch is a hash lookup per call
   otherwise). Leading dimensions: D for D-row operands, T for Zt. */
struct XK {
  libxsmm_smmfunction S, PS, PSQ, CZ, dC, T1, gP, gQ, dS, G2, EK, mv, mvt,
      outer, kmv;
};
static int xk_init(Xsmm &x, XK &k) {
  k.S = xk(x, 0, D, D, n, D, T, D);     /* S = K Kt: Z (ld D) * Zt (ld T) */
  k.PS = xk(x, 0, D, D, D, D, D, D);    /* P S */
  k.PSQ = k.PS;                         /* (P S) Q */
  k.CZ = xk(x, 0, D, T, D, D, D, D);    /* C Z */
  k.dC = xk(x, 0, D, D, T, D, T, D);    /* G Zt */
  k.T1 = k.PS;                          /* dC Qt */
  k.gP = xk(x, 1, D, D, D, D, D, D);    /* += T1 S */
  k.gQ = k.gP;                          /* += PSt dC */
  k.dS = k.PS;                          /* Pt T1 */
  k.G2 = xk(x, 0, D, T, D, D, D, D);    /* Ct G */
  k.EK = xk(x, 1, D, n, D, D, D, D);    /* += E K */
  k.mv = xk(x, 0, D, 1, D, D, D, D);    /* D x D times a vector */
  k.mvt = xk(x, 0, n, 1, D, T, D, n);   /* Kt v: Zt (ld T) times a vector */
  k.outer = xk(x, 1, D, D, 1, D, 1, D); /* += a b^T */
  k.kmv = k.mvt;
  return k.S && k.PS && k.CZ && k.dC && k.gP && k.G2 && k.EK && k.mv &&
         k.mvt && k.outer;
}

/* Column-major D x D transpose. */
static void tr(int r, int c, const float *a, float *t) {
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) t[j + i * c] = a[i + j * r];
}

static double xsmm_grad(const Problem &p, const XK &k, float *out) {
  /* parameters column-major, with their transposes */
  float P[L][D * D], Q[L][D * D], Pt[L][D * D], Qt[L][D * D];
  float gP[L][D * D], gQ[L][D * D];
  float Pa[D * D], Qa[D * D];
  for (int l = 0; l < L; ++l) {
    expand(p.theta.data(), l, Pa, Qa); /* row-major = the transposes */
    memcpy(Pt[l], Pa, sizeof Pa);
    memcpy(Qt[l], Qa, sizeof Qa);
    tr(D, D, Pa, P[l]);
    tr(D, D, Qa, Q[l]);
    memset(gP[l], 0, sizeof gP[l]);
    memset(gQ[l], 0, sizeof gQ[l]);
  }
  alignas(64) float Z[L][D * T], Zt[L][T * D], S[L][D * D], C[L][D * D],
      PS[L][D * D];
  alignas(64) float G[D * T], G2[D * T], dC[D * D], T1[D * D], dS[D * D],
      E[D * D], Ct[D * D], PSt[D * D], u[D], su[D], r1[D], c[D], a[n], bb[n],
      gr[D];
  double lsum = 0;
  const float in = 1.0f / n;
  for (int b = 0; b < p.count; ++b) {
    const float *zb = p.z.data() + (size_t)b * D * T; /* row-major D x T = */
    memcpy(Zt[0], zb, sizeof(float) * D * T);         /* column-major Zt */
    tr(T, D, Zt[0], Z[0]);
    for (int l = 0; l < L - 1; ++l) {
      k.S(Z[l], Zt[l], S[l]);
      k.PS(P[l], S[l], PS[l]);
      k.PSQ(PS[l], Q[l], C[l]);
      for (int e = 0; e < D * D; ++e) C[l][e] *= in;
      for (int i = 0; i < D; ++i) C[l][i * D + i] += 1;
      k.CZ(C[l], Z[l], Z[l + 1]);
      tr(D, T, Z[l + 1], Zt[l + 1]);
    }
    const int l = L - 1;
    k.S(Z[l], Zt[l], S[l]);
    const float *q = Z[l] + n * D;
    float pl[D];
    for (int i = 0; i < D; ++i) pl[i] = P[l][(D - 1) + i * D];
    k.mv(S[l], pl, r1);
    k.mv(Qt[l], r1, c);
    float dot = 0;
    for (int i = 0; i < D; ++i) dot += c[i] * q[i];
    float z = q[D - 1] + dot * in, r = z + p.y[b];
    lsum += (double)r * r;
    float g = 2 * r, gs = g * in;
    k.mv(Q[l], q, u);
    k.mv(S[l], u, su);
    for (int i = 0; i < D; ++i) gP[l][(D - 1) + i * D] += gs * su[i];
    for (int i = 0; i < D; ++i) gr[i] = gs * r1[i];
    k.outer(gr, q, gQ[l]);
    memset(G, 0, sizeof G);
    for (int i = 0; i < D; ++i) G[n * D + i] = gs * c[i];
    G[n * D + D - 1] += g;
    k.kmv(Zt[l], pl, a);
    k.kmv(Zt[l], u, bb);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < D; ++i)
        G[j * D + i] += gs * (a[j] * u[i] + bb[j] * pl[i]);
    for (int kk = L - 2; kk >= 0; --kk) {
      k.dC(G, Zt[kk], dC);
      for (int e = 0; e < D * D; ++e) dC[e] *= in;
      k.T1(dC, Qt[kk], T1);
      k.gP(T1, S[kk], gP[kk]);
      tr(D, D, PS[kk], PSt);
      k.gQ(PSt, dC, gQ[kk]);
      if (kk == 0) break;
      k.dS(Pt[kk], T1, dS);
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < D; ++j) E[i + j * D] = dS[i + j * D] + dS[j + i * D];
      tr(D, D, C[kk], Ct);
      k.G2(Ct, G, G2);
      k.EK(E, Z[kk], G2);
      memcpy(G, G2, sizeof G);
    }
  }
  for (int l = 0; l < L; ++l)
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) {
        out[l * 2 * d * d + i * d + j] = gP[l][i + j * D] / p.count;
        out[l * 2 * d * d + d * d + i * d + j] = gQ[l][i + j * D] / p.count;
      }
  return lsum / p.count;
}

/* ---------------------------------------------------------------- main */
static int check(const char *name, const Problem &p, const float *g,
                 double loss) {
  double gmax = 0, err = 0;
  for (size_t i = 0; i < p.grad.size(); ++i) {
    gmax = fmax(gmax, fabs(p.grad[i]));
    err = fmax(err, fabs((double)g[i] - p.grad[i]));
  }
  double lerr = fabs(loss - p.loss) / p.loss;
  int ok = err <= 1e-4 * gmax && lerr <= 1e-5;
  printf("# check %-12s max|grad - linattn| = %.2e of max|grad| %.3g, loss "
         "rel. %.1e: %s\n",
         name, err, gmax, lerr, ok ? "ok" : "FAILED, not timed");
  return ok;
}

static void setup(Problem &p, int count) {
  la_model_config mc;
  la_rng rng;
  memset(&mc, 0, sizeof mc);
  mc.d = d; mc.n = n; mc.layers = L; mc.param = LA_PARAM_SPARSE;
  mc.activation = LA_ACT_LINEAR; mc.heads = 1;
  if (la_model_init(&p.m, &mc) || p.m.nparams != L * 2 * d * d) {
    printf("model init failed\n");
    exit(1);
  }
  p.count = count;
  la_rng_seed(&rng, 1, 0);
  p.z.resize((size_t)count * D * T);
  p.y.resize(count);
  for (auto &v : p.z) v = (float)la_rng_normal(&rng);
  for (int b = 0; b < count; ++b) p.z[(size_t)b * D * T + D * T - 1] = 0;
  for (auto &v : p.y) v = (float)la_rng_normal(&rng);
  p.theta.resize(p.m.nparams);
  la_model_init_params(&p.m, &rng, p.theta.data());
  int np = la_panels(count);
  p.b.d = d; p.b.n = n; p.b.count = count;
  p.b.z = (la_real *)la_alloc(sizeof(la_real) * (size_t)np * D * T * LA_W);
  p.b.y = (la_real *)la_alloc(sizeof(la_real) * (size_t)np * LA_W);
  la_pack(count, D, T, p.z.data(), p.b.z);
  la_pack(count, 1, 1, p.y.data(), p.b.y);
  p.bytes = la_model_work_bytes(&p.m);
  p.work = malloc(p.bytes);
  p.grad.resize(p.m.nparams);
  if (linattn_grad(p)) {
    printf("la_model_grad failed\n");
    exit(1);
  }
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 40;
  static const int batches[] = {100, 1000, 10000};
  libxsmm_init();
  Xsmm xs;
  XK xk_;
  int have_xsmm = xk_init(xs, xk_);
  printf("# peers: loss+gradient, sparse linear L=%d d=%d n=%d, float, one "
         "thread: linattn %s backend %s, Eigen %d.%d.%d, libxsmm %s, "
         "compiler %s, flags %s\n",
         L, d, n, la_version_string(), la_backend_name(), EIGEN_WORLD_VERSION,
         EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION, LIBXSMM_VERSION,
#if defined(__clang__)
         "clang " __clang_version__,
#else
         "gcc " __VERSION__,
#endif
#ifdef BENCH_FLAGS
         BENCH_FLAGS
#else
         "?"
#endif
  );
  for (int bi = 0; bi < 3; ++bi) {
    Problem p;
    Wide<X16> w16;
    Wide<X8> w8;
    setup(p, batches[bi]);
    wide_data(p, w16);
    wide_data(p, w8);
    std::vector<float> g(p.m.nparams);
    enum { LIN, LIB2, EIG, E16, E8, XS, NC };
    const char *names[NC] = {"linattn", "linattn-avx2", "eigen", "eigen-x16",
                             "eigen-x8", "libxsmm"};
    int on[NC] = {1, 0, 0, 0, 0, 0};
    double loss;
    const char *backend2 = "";
    if (!peers_lib_grad(p.count, p.z.data(), p.y.data(), p.theta.data(), &loss,
                        g.data(), &backend2)) {
      on[LIB2] = !memcmp(g.data(), p.grad.data(), sizeof(float) * g.size()) &&
                 loss == p.loss;
      printf("# check %-12s (%s backend) gradient and loss: %s\n",
             names[LIB2], backend2,
             on[LIB2] ? "the same bits as linattn's" : "DIFFER, not timed");
    }
    loss = eigen_grad(p, g.data());
    on[EIG] = check(names[EIG], p, g.data(), loss);
    loss = eigen_lanes_grad(p, w16, g.data());
    on[E16] = check(names[E16], p, g.data(), loss);
    loss = eigen_lanes_grad(p, w8, g.data());
    on[E8] = check(names[E8], p, g.data(), loss);
    if (have_xsmm) {
      loss = xsmm_grad(p, xk_, g.data());
      on[XS] = check(names[XS], p, g.data(), loss);
    } else {
      printf("# check libxsmm: no JIT kernel for these shapes, not timed\n");
    }
    /* calls per group: about 2 ms of linattn */
    int reps = 1;
    for (;;) {
      double t0 = cpu_now();
      for (int r = 0; r < reps; ++r) linattn_grad(p);
      if (cpu_now() - t0 > 2e-3 || reps > 4096) break;
      reps *= 2;
    }
    double best[NC], pk256 = 0, pk512 = 0;
    for (int c = 0; c < NC; ++c) best[c] = 1e30;
    for (int r = 0; r < rounds; ++r) {
      for (int c = 0; c < NC; ++c) {
        if (!on[c]) continue;
        double t0 = cpu_now();
        for (int k = 0; k < reps; ++k) {
          if (c == LIN) linattn_grad(p);
          else if (c == LIB2)
            peers_lib_grad(p.count, p.z.data(), p.y.data(), p.theta.data(),
                           &loss, g.data(), &backend2);
          else if (c == EIG) eigen_grad(p, g.data());
          else if (c == E16) eigen_lanes_grad(p, w16, g.data());
          else if (c == E8) eigen_lanes_grad(p, w8, g.data());
          else xsmm_grad(p, xk_, g.data());
        }
        double t = (cpu_now() - t0) / reps;
        if (t < best[c]) best[c] = t;
      }
      pk256 = fmax(pk256, fma_group<__m256, 8, fma256, set256>(200000));
#ifdef __AVX512F__
      pk512 = fmax(pk512, fma_group<__m512, 16, fma512, set512>(200000));
#endif
    }
    /* the useful flops: bench_model's count for this setting */
    double Df = D, Tf = T, D2 = Df * Df, D3 = D2 * Df, Dh = Df * (Df + 1) / 2;
    double hid = Dh * n + 2 * D3 + D2 * Tf + D2 * Tf + 3 * D3;
    double dz = D3 + D2 * Tf + D2 * n;
    double last = Dh * n + 2 * D2 + Df + 3 * D2 + Df + 4 * Df * n + Df;
    double flops = 2 * ((L - 1) * hid + (L - 2) * dz + last) * p.count;
    printf("# batch %d: FMA peak %.1f GFLOP/s (256-bit), %.1f (512-bit%s)\n",
           p.count, pk256, pk512, pk512 > 0 ? "" : ": not compiled");
    for (int c = 0; c < NC; ++c) {
      if (!on[c]) continue;
      double gf = flops / best[c] * 1e-9;
      printf("peer=%s batch=%d us=%.1f vs_linattn=%.2f gflops=%.1f "
             "peak256=%.0f%% peak512=%.0f%%\n",
             names[c], p.count, best[c] * 1e6, best[c] / best[LIN], gf,
             100 * gf / pk256, pk512 > 0 ? 100 * gf / pk512 : 0.0);
    }
    fflush(stdout);
    free(p.work);
    la_free(p.b.z);
    la_free(p.b.y);
  }
  libxsmm_finalize();
  return 0;
}
