/* Kernels against naive loops on plain row-major matrices, and the compiled
   backend against its scalar twin. The size space (rows 1..17, columns and
   depth 1..64, batches 1..1001, 8 flag combinations, shared or per-prompt
   operands, batch-summed C) is sampled, not enumerated: every row count,
   column count, depth, flag combination and operand mode is met at least
   once, with the cost of each case bounded so the suite stays fast under
   valgrind and qemu. */

#include <float.h>

#ifdef LINATTN_DOUBLE
#define KT_EPS DBL_EPSILON
#else
#define KT_EPS FLT_EPSILON
#endif

/* Naive C_b = alpha op(A_b) op(B_b) (+ C_b) on plain matrices, in double;
   a shared operand has stride 0. */
static void naive_bgemm(unsigned flags, int m, int n, int k, double alpha,
                        const la_real *A, size_t as, const la_real *B,
                        size_t bs, la_real *C, int count) {
  int b, i, j, p;
  for (b = 0; b < count; ++b) {
    const la_real *a = A + b * as, *bb = B + b * bs;
    la_real *c = C + (size_t)b * m * n;
    for (i = 0; i < m; ++i)
      for (j = 0; j < n; ++j) {
        double s = 0;
        for (p = 0; p < k; ++p) {
          double x = (flags & LA_TRANS_A) ? a[p * m + i] : a[i * k + p];
          double y = (flags & LA_TRANS_B) ? bb[j * k + p] : bb[p * n + j];
          s += x * y;
        }
        c[i * n + j] = (la_real)((flags & LA_ACCUMULATE) ? c[i * n + j] + alpha * s
                                                          : alpha * s);
      }
  }
}

typedef struct kcase {
  unsigned flags;
  int m, n, k, count;
  int a_shared, b_shared, c_summed;
  double alpha;
} kcase;

typedef struct kresult {
  double nse_naive;  /* la_bgemm against the naive loops */
  double nse_twin;   /* the best table's bgemm against the scalar twin's */
  double nse_pgemm;  /* panel by panel through pgemm, against la_bgemm */
  int status, guard; /* OR of statuses; words written outside C */
} kresult;

#define KT_GUARD ((la_real)-777.25)

/* Runs one case through la_bgemm, both tables' bgemm and (for a per-prompt
   C) both tables' pgemm panel by panel. C gets one guard panel after it,
   which no call may touch. */
static kresult kernel_case(const kcase *c, la_t_rng *rng) {
  int np = la_panels(c->count), m = c->m, n = c->n, k = c->k, b, e;
  int na = c->a_shared ? 1 : c->count, nb = c->b_shared ? 1 : c->count;
  int ncp = c->c_summed ? 1 : np; /* C panels */
  size_t sa = (size_t)m * k, sb = (size_t)k * n, sc = (size_t)m * n;
  size_t pa = c->a_shared ? 0 : sa * LA_W, pb = c->b_shared ? 0 : sb * LA_W;
  size_t pc = c->c_summed ? 0 : sc * LA_W, cl = sc * LA_W * (ncp + 1);
  la_real *A = (la_real *)la_alloc(sizeof(la_real) * sa * na);
  la_real *B = (la_real *)la_alloc(sizeof(la_real) * sb * nb);
  la_real *C0 = (la_real *)la_alloc(sizeof(la_real) * sc * c->count);
  la_real *Cref = (la_real *)la_alloc(sizeof(la_real) * sc * c->count);
  la_real *Ai = (la_real *)la_alloc(sizeof(la_real) * sa * (c->a_shared ? 1 : np) * LA_W);
  la_real *Bi = (la_real *)la_alloc(sizeof(la_real) * sb * (c->b_shared ? 1 : np) * LA_W);
  la_real *Cs[4], *out = (la_real *)la_alloc(sizeof(la_real) * sc * c->count);
  const la_kernels *tab[2];
  la_real alpha = (la_real)c->alpha;
  kresult r;
  int ar = (c->flags & LA_TRANS_A) ? k : m, ac = (c->flags & LA_TRANS_A) ? m : k;
  int br = (c->flags & LA_TRANS_B) ? n : k, bc = (c->flags & LA_TRANS_B) ? k : n;
  memset(&r, 0, sizeof r);
  tab[0] = la_kernels_best();
  tab[1] = la_kernels_scalar();
  for (e = 0; e < 4; ++e) Cs[e] = (la_real *)la_alloc(sizeof(la_real) * cl);
  la_t_fill(rng, sa * na, A);
  la_t_fill(rng, sb * nb, B);
  la_t_fill(rng, sc * c->count, C0);
  r.status |= c->a_shared ? la_broadcast(ar, ac, A, Ai) : la_pack(na, ar, ac, A, Ai);
  r.status |= c->b_shared ? la_broadcast(br, bc, B, Bi) : la_pack(nb, br, bc, B, Bi);
  /* Cs[0] la_bgemm, Cs[1] best table, Cs[2] scalar table, Cs[3] pgemm */
  for (e = 0; e < 4; ++e) {
    size_t i;
    for (i = 0; i < cl; ++i) Cs[e][i] = KT_GUARD;
    if (c->c_summed) {
      /* the batch sum is added to lane 0's C: the lanes then sum to it */
      for (i = 0; i < sc * LA_W; ++i)
        Cs[e][i] = (i % LA_W) ? 0 : C0[i / LA_W];
    } else {
      r.status |= la_pack(c->count, m, n, C0, Cs[e]);
    }
  }
  r.status |= la_bgemm(c->flags, m, n, k, alpha, Ai, pa, Bi, pb, Cs[0], pc, np);
  for (e = 0; e < 2; ++e)
    tab[e]->bgemm(c->flags, m, n, k, alpha, Ai, pa, Bi, pb, Cs[1 + e], pc, np);
  if (!c->c_summed)
    for (b = 0; b < np; ++b) /* alternate tables: they must agree */
      tab[b % 2]->pgemm(c->flags, m, n, k, alpha, Ai + b * pa, Bi + b * pb,
                        Cs[3] + b * pc);
  /* the reference */
  memcpy(Cref, C0, sizeof(la_real) * sc * c->count);
  if (c->c_summed) {
    la_real *tmp = out;
    naive_bgemm(c->flags & ~LA_ACCUMULATE, m, n, k, c->alpha, A,
                c->a_shared ? 0 : sa, B, c->b_shared ? 0 : sb, tmp, c->count);
    /* padding lanes add zero through a packed operand; with both operands
       shared every lane of every panel holds the same product */
    int lanes = c->a_shared && c->b_shared ? np * LA_W : c->count;
    for (e = 0; e < (int)sc; ++e) {
      double s = (c->flags & LA_ACCUMULATE) ? C0[e] : 0;
      for (b = 0; b < lanes; ++b) s += tmp[(b % c->count) * sc + e];
      Cref[e] = (la_real)s;
    }
    r.status |= la_lane_sum(m, n, Cs[0], out);
    r.nse_naive = LA_NSE(sc, out, Cref);
  } else {
    naive_bgemm(c->flags, m, n, k, c->alpha, A, c->a_shared ? 0 : sa, B,
                c->b_shared ? 0 : sb, Cref, c->count);
    r.status |= la_unpack(c->count, m, n, Cs[0], out);
    r.nse_naive = LA_NSE(sc * c->count, out, Cref);
    r.nse_pgemm = LA_NSE(sc * LA_W * ncp, Cs[3], Cs[0]);
  }
  r.nse_twin = LA_NSE(sc * LA_W * ncp, Cs[1], Cs[2]);
  for (e = 0; e < 4; ++e) {
    size_t i;
    if (e == 3 && c->c_summed) continue;
    for (i = sc * LA_W * ncp; i < cl; ++i) r.guard += Cs[e][i] != KT_GUARD;
    la_free(Cs[e]);
  }
  if (c->c_summed) la_free(Cs[3]);
  la_free(A); la_free(B); la_free(C0); la_free(Cref); la_free(out);
  la_free(Ai); la_free(Bi);
  return r;
}

static int kt_draw(la_t_rng *rng, int lo, int hi) { /* uniform in [lo, hi] */
  int v = lo + (int)((la_t_uniform(rng) + 1) * 0.5 * (hi - lo + 1));
  return v > hi ? hi : v;
}

/* A batch size: mostly around panel boundaries, sometimes large, capped so
   that the case costs at most `budget` multiply-adds per product. */
static int kt_count(la_t_rng *rng, int m, int n, int k, double budget) {
  static const int edges[] = {1, 2, 7, 8, 9, 15, 16, 17, 33, 64, 65, 999, 1001};
  int c = la_t_uniform(rng) < 0 ? edges[kt_draw(rng, 0, 12)] : kt_draw(rng, 1, 1001);
  double cap = budget / ((double)m * n * k);
  if (c > cap) c = cap < 1 ? 1 : (int)cap;
  return c;
}

/* Runs a list of cases, and checks them as one. */
typedef struct kworst {
  double naive, twin, pgemm; /* worst error / tolerance of its case */
  int status, guard, cases;
  kcase at; /* the case of the worst naive error */
} kworst;

/* Tolerance of a product's normalized squared error against a double
   reference: each element is a sum of `depth` rounded products (k, times
   the batch for a summed C), so its relative error is about
   sqrt(depth) * eps when the terms do not cancel; the factor 1e4 (100 in
   the error itself) is headroom for random-sign sums, which are only about
   sqrt(depth) times a term. */
static double kt_tol(double depth) { return 1e4 * depth * KT_EPS * KT_EPS; }

static void kt_run(kworst *w, const kcase *c, la_t_rng *rng) {
  kresult r = kernel_case(c, rng);
  double tol = kt_tol((double)c->k * (c->c_summed ? c->count : 1) + 1);
  double en = r.nse_naive / tol, et = r.nse_twin / tol, ep = r.nse_pgemm / tol;
  if (!(en <= w->naive)) { w->naive = en; w->at = *c; }
  if (!(et <= w->twin)) w->twin = et;
  if (!(ep <= w->pgemm)) w->pgemm = ep;
  w->status |= r.status;
  w->guard += r.guard;
  w->cases++;
}

#define KT_CHECK(t, w)                                                        \
  do {                                                                        \
    LA_CHECK(t, (w).status == 0, "a call returned an error");                 \
    LA_CHECK(t, (w).guard == 0, "%d words written outside C", (w).guard);     \
    LA_CHECK(t, (w).naive < 1,                                                \
             "nse %g x tolerance at flags %u m %d n %d k %d count %d A%d B%d " \
             "C%d",                                                           \
             (w).naive, (w).at.flags, (w).at.m, (w).at.n, (w).at.k,           \
             (w).at.count, (w).at.a_shared, (w).at.b_shared,                  \
             (w).at.c_summed);                                                \
    LA_CHECK(t, (w).twin < 1, "simd vs scalar twin: %g x tolerance",          \
             (w).twin);                                                       \
    LA_CHECK(t, (w).pgemm < 1, "pgemm vs bgemm: %g x tolerance", (w).pgemm);  \
  } while (0)

static void suite_kernels(la_t *t) {
  la_t_rng rng = {42};

  LA_TEST(t, "kernels/version and backend") {
    char buf[32];
    LA_CHECK(t, la_version() == LINATTN_VERSION_NUMBER, "%d", la_version());
    (void)sprintf(buf, "%d.%d.%d", LINATTN_VERSION_MAJOR, LINATTN_VERSION_MINOR,
            LINATTN_VERSION_PATCH);
    LA_CHECK(t, strcmp(la_version_string(), buf) == 0, "%s", la_version_string());
    LA_CHECK(t, la_backend() == LINATTN_SCALAR || la_backend() == LINATTN_AVX2 ||
                    la_backend() == LINATTN_NEON ||
                    la_backend() == LINATTN_AVX512 ||
                    la_backend() == LINATTN_WASM_SIMD128, "%d", la_backend());
#if defined(__wasm_simd128__) && !defined(LINATTN_SIMD)
    LA_CHECK(t, la_backend() == LINATTN_WASM_SIMD128 &&
                    strcmp(la_backend_name(), "wasm-simd128") == 0,
             "SIMD128 compiled, %s chosen", la_backend_name());
#endif
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__FMA__) && \
    !defined(LINATTN_SIMD)
    LA_CHECK(t, la_backend() == LINATTN_AVX512 &&
                    strcmp(la_backend_name(), "avx512") == 0,
             "AVX-512 compiled, %s chosen", la_backend_name());
#endif
    LA_CHECK(t, strcmp(la_backend_name(), la_kernels_best()->name) == 0,
             "%s vs %s", la_backend_name(), la_kernels_best()->name);
    LA_CHECK(t, (la_backend() == LINATTN_SCALAR) ==
                    (la_kernels_best() == la_kernels_scalar()), "tables");
    LA_CHECK(t, strcmp(la_kernels_scalar()->name, "scalar") == 0, "%s",
             la_kernels_scalar()->name);
  }

  LA_TEST(t, "kernels/status messages are distinct") {
    int a, b, same = 0;
    for (a = LA_EUNSUPPORTED; a <= LA_OK; ++a)
      for (b = a + 1; b <= LA_OK; ++b)
        same += strcmp(la_status_str(a), la_status_str(b)) == 0;
    LA_CHECK(t, same == 0, "%d pairs share a message", same);
    LA_CHECK(t, strcmp(la_status_str(12345), "unknown status") == 0, "%s",
             la_status_str(12345));
    LA_CHECK(t, strcmp(la_status_str(LA_OK), "unknown status") != 0, "ok");
  }

  LA_TEST(t, "kernels/panels") {
    LA_CHECK(t, la_panels(0) == 0 && la_panels(-3) == 0, "empty");
    LA_CHECK(t, la_panels(1) == 1 && la_panels(LA_W) == 1, "one");
    LA_CHECK(t, la_panels(LA_W + 1) == 2 && la_panels(1001) == (1000 / LA_W) + 1,
             "%d", la_panels(1001));
  }

  LA_TEST(t, "kernels/pack and unpack round trip, padding zeroed") {
    static const int counts[] = {1, 7, 8, 9, 33, 1001};
    int ci;
    for (ci = 0; ci < 6; ++ci) {
      int count = counts[ci], rows = 1 + ci % 3, cols = 7 - ci, np = la_panels(count);
      size_t n = (size_t)count * rows * cols;
      la_real *plain = (la_real *)la_alloc(sizeof(la_real) * n);
      la_real *back = (la_real *)la_alloc(sizeof(la_real) * n);
      la_real *il = (la_real *)la_alloc(sizeof(la_real) * np * rows * cols * LA_W);
      int b, e, bad = 0, pad = 0;
      la_t_fill(&rng, n, plain);
      LA_CHECK(t, la_pack(count, rows, cols, plain, il) == LA_OK, "pack");
      LA_CHECK(t, la_unpack(count, rows, cols, il, back) == LA_OK, "unpack");
      for (e = 0; e < (int)n; ++e) bad += plain[e] != back[e];
      /* the documented index formula */
      for (b = 0; b < count; ++b)
        for (e = 0; e < rows * cols; ++e)
          bad += il[((b / LA_W) * rows * cols + e) * LA_W + b % LA_W] !=
                 plain[b * rows * cols + e];
      for (b = count; b < np * LA_W; ++b)
        for (e = 0; e < rows * cols; ++e)
          pad += il[((b / LA_W) * rows * cols + e) * LA_W + b % LA_W] != 0;
      LA_CHECK(t, bad == 0, "count %d: %d elements differ", count, bad);
      LA_CHECK(t, pad == 0, "count %d: %d padding elements nonzero", count, pad);
      la_free(plain); la_free(back); la_free(il);
    }
  }

  LA_TEST(t, "kernels/broadcast and lane sum") {
    la_real plain[15], panel[15 * LA_W], sum[15];
    int e, w, bad = 0;
    la_t_fill(&rng, 15, plain);
    LA_CHECK(t, la_broadcast(3, 5, plain, panel) == LA_OK, "broadcast");
    for (e = 0; e < 15; ++e)
      for (w = 0; w < LA_W; ++w) bad += panel[e * LA_W + w] != plain[e];
    LA_CHECK(t, bad == 0, "%d lanes differ", bad);
    /* NOLINTNEXTLINE(bugprone-integer-division): e / LA_W is the element */
    for (e = 0; e < 15 * LA_W; ++e) panel[e] = (la_real)(e % LA_W + 1) * (e / LA_W);
    LA_CHECK(t, la_lane_sum(5, 3, panel, sum) == LA_OK, "lane sum");
    for (e = 0; e < 15; ++e) /* sum_w (w + 1) e = e W (W + 1) / 2, exact */
      bad += sum[e] != (la_real)(e * LA_W * (LA_W + 1) / 2); /* NOLINT: exact */
    LA_CHECK(t, bad == 0, "%d sums wrong", bad);
  }

  LA_TEST(t, "kernels/bad arguments") {
    la_real buf[LA_W * 4];
    memset(buf, 0, sizeof buf);
    LA_CHECK(t, la_pack(0, 2, 2, buf, buf) == LA_EDIM, "count 0");
    LA_CHECK(t, la_pack(1, -1, 2, buf, buf) == LA_EDIM, "rows -1");
    LA_CHECK(t, la_pack(1, 2, 0, buf, buf) == LA_EDIM, "cols 0");
    LA_CHECK(t, la_pack(1, 2, 2, NULL, buf) == LA_ENULL, "null");
    LA_CHECK(t, la_pack(1, 2, 2, buf, NULL) == LA_ENULL, "null");
    LA_CHECK(t, la_pack(2000000000, 2000, 2000, buf, buf) == LA_EOVERFLOW, "huge");
    LA_CHECK(t, la_unpack(1, 2, 2, buf, NULL) == LA_ENULL, "null");
    LA_CHECK(t, la_unpack(1, 2, 2, NULL, buf) == LA_ENULL, "null");
    LA_CHECK(t, la_unpack(-1, 2, 2, buf, buf) == LA_EDIM, "count -1");
    LA_CHECK(t, la_unpack(9, 60000, 60000, buf, buf) == LA_EOVERFLOW, "huge");
    LA_CHECK(t, la_broadcast(0, 1, buf, buf) == LA_EDIM, "rows 0");
    LA_CHECK(t, la_broadcast(1, 1, NULL, buf) == LA_ENULL, "null");
    LA_CHECK(t, la_broadcast(100000, 100000, buf, buf) == LA_EOVERFLOW, "huge");
    LA_CHECK(t, la_lane_sum(1, 1, NULL, buf) == LA_ENULL, "null");
    LA_CHECK(t, la_lane_sum(1, 0, buf, buf) == LA_EDIM, "cols 0");
    LA_CHECK(t, la_bgemm(0, 1, 1, 1, 1, NULL, 0, buf, 0, buf, 0, 1) == LA_ENULL, "null A");
    LA_CHECK(t, la_bgemm(0, 1, 1, 1, 1, buf, 0, NULL, 0, buf, 0, 1) == LA_ENULL, "null B");
    LA_CHECK(t, la_bgemm(0, 1, 1, 1, 1, buf, 0, buf, 0, NULL, 0, 1) == LA_ENULL, "null C");
    LA_CHECK(t, la_bgemm(0, 0, 1, 1, 1, buf, 0, buf, 0, buf, 0, 1) == LA_EDIM, "m 0");
    LA_CHECK(t, la_bgemm(0, 1, 0, 1, 1, buf, 0, buf, 0, buf, 0, 1) == LA_EDIM, "n 0");
    LA_CHECK(t, la_bgemm(0, 1, 1, -1, 1, buf, 0, buf, 0, buf, 0, 1) == LA_EDIM, "k -1");
    LA_CHECK(t, la_bgemm(0, 1, 1, 1, 1, buf, 0, buf, 0, buf, 0, 0) == LA_EDIM, "0 panels");
    LA_CHECK(t, la_bgemm(8u, 1, 1, 1, 1, buf, 0, buf, 0, buf, 0, 1) == LA_ERANGE, "flags");
    LA_CHECK(t, la_bgemm(0, 100000, 100000, 1, 1, buf, 0, buf, 0, buf, 0, 1) ==
                    LA_EOVERFLOW, "huge");
    LA_CHECK(t, la_bgemm(0, 1, 1, 1, (la_real)NAN, buf, 0, buf, 0, buf, 0, 1) ==
                    LA_ENONFINITE, "alpha NaN");
    LA_CHECK(t, la_bgemm(0, 1, 1, 1, (la_real)INFINITY, buf, 0, buf, 0, buf, 0, 1) ==
                    LA_ENONFINITE, "alpha inf");
    {
      /* la_bgemm wants LA_ALIGN-aligned panels: a stack array need not be */
      la_real *a = (la_real *)la_alloc(sizeof(la_real) * 4 * LA_W);
      la_real *b = a + LA_W, *c = b + LA_W;
      memset(a, 0, sizeof(la_real) * 2 * LA_W);
      LA_CHECK(t, la_bgemm(0, 1, 1, 1, 1, a, 0, b, 0, c, LA_W, 2) == LA_OK,
               "a valid call");
      LA_CHECK(t, c[0] == 0 && c[2 * LA_W - 1] == 0, "shared operands of zeros");
      la_free(a);
    }
  }

  /* Every row count with every flag combination, random everything else. */
  LA_TEST(t, "kernels/bgemm: rows 1..17 x every flag combination") {
    kworst w;
    int m, f;
    memset(&w, 0, sizeof w);
    for (m = 1; m <= 17; ++m)
      for (f = 0; f < 8; ++f) {
        kcase c;
        int mode = kt_draw(&rng, 0, 7);
        c.flags = (unsigned)f;
        c.m = m;
        c.n = kt_draw(&rng, 1, 64);
        c.k = kt_draw(&rng, 1, 1 + 400 / c.n); /* n k <= 464: a bounded cost */
        c.a_shared = mode & 1;
        c.b_shared = (mode >> 1) & 1;
        c.c_summed = (mode >> 2) & 1;
        c.alpha = (f + m) % 3 == 0 ? 1.0 : -0.75;
        c.count = kt_count(&rng, c.m, c.n, c.k, 4e3);
        kt_run(&w, &c, &rng);
      }
    KT_CHECK(t, w);
  }

  LA_TEST(t, "kernels/bgemm: columns and depths 1..64, every operand mode") {
    kworst w;
    int v, pass;
    memset(&w, 0, sizeof w);
    for (v = 1; v <= 64; ++v)
      for (pass = 0; pass < 2; ++pass) {
        kcase c;
        int mode = (v + 3 * pass) % 8;
        c.flags = (unsigned)kt_draw(&rng, 0, 7);
        c.m = kt_draw(&rng, 1, 1 + 64 / v);
        /* v is the column count on one pass and the depth on the other */
        c.n = pass ? v : kt_draw(&rng, 1, 1 + 256 / v);
        c.k = pass ? kt_draw(&rng, 1, 1 + 256 / v) : v;
        c.a_shared = mode & 1;
        c.b_shared = (mode >> 1) & 1;
        c.c_summed = (mode >> 2) & 1;
        c.alpha = mode < 4 ? 1.0 : 0.5;
        c.count = kt_count(&rng, c.m, c.n, c.k, 3e3);
        kt_run(&w, &c, &rng);
      }
    KT_CHECK(t, w);
  }

  LA_TEST(t, "kernels/bgemm: batches 1..1001 around panel edges") {
    kworst w;
    int count;
    memset(&w, 0, sizeof w);
    for (count = 1; count <= 1001; count += count < 20 ? 1 : 97) {
      kcase c;
      int mode = count % 8;
      c.flags = (unsigned)(count * 5 % 8);
      c.m = 1 + count % 7;
      c.n = 1 + count % 5;
      c.k = 1 + count % 6;
      c.a_shared = mode & 1;
      c.b_shared = (mode >> 1) & 1;
      c.c_summed = (mode >> 2) & 1;
      c.alpha = 1.0;
      c.count = count;
      kt_run(&w, &c, &rng);
    }
    KT_CHECK(t, w);
  }

  /* The shapes of the model at paper A's base setting (d + 1 = 6, N + 1 =
     21), every orientation, with the model's operand modes. */
  LA_TEST(t, "kernels/bgemm: model shapes 6x21 and 6x6") {
    static const int shapes[][3] = {{6, 21, 6}, {6, 6, 21}, {6, 21, 21}, {21, 6, 6}};
    kworst w;
    int si, f;
    memset(&w, 0, sizeof w);
    for (si = 0; si < 4; ++si)
      for (f = 0; f < 8; f += 3) {
        kcase c;
        c.flags = (unsigned)f;
        c.m = shapes[si][0];
        c.n = shapes[si][1];
        c.k = shapes[si][2];
        c.a_shared = si == 0;
        c.b_shared = 0;
        c.c_summed = si == 1;
        c.alpha = f == 3 ? 1.0 : 0.125;
        c.count = 9 + 24 * si; /* 2 to 10 panels */
        kt_run(&w, &c, &rng);
      }
    KT_CHECK(t, w);
  }

  /* Each orientation maps element (i, p) of op(A) to a different place:
     a product with one nonzero in A and one in B has exactly one nonzero in
     C, whose position and value are known exactly. */
  LA_TEST(t, "kernels/bgemm: single nonzeros land where the index formula says") {
    int f, bad = 0, trial, st = 0;
    /* aligned panels, as la_bgemm requires */
    la_real *A = (la_real *)la_alloc(sizeof(la_real) * 3 * 81 * LA_W);
    la_real *B = A + 81 * LA_W, *C = B + 81 * LA_W;
    for (trial = 0; trial < 40; ++trial)
      for (f = 0; f < 4; ++f) {
        int m = kt_draw(&rng, 1, 9), n = kt_draw(&rng, 1, 9), k = kt_draw(&rng, 1, 9);
        int i = kt_draw(&rng, 0, m - 1), j = kt_draw(&rng, 0, n - 1);
        int p = kt_draw(&rng, 0, k - 1), lane = kt_draw(&rng, 0, LA_W - 1), e;
        int ai = (f & LA_TRANS_A) ? p * m + i : i * k + p;
        int bi = (f & LA_TRANS_B) ? j * k + p : p * n + j;
        memset(A, 0, sizeof(la_real) * 2 * 81 * LA_W);
        A[ai * LA_W + lane] = 3;
        B[bi * LA_W + lane] = -5;
        st |= la_bgemm((unsigned)f, m, n, k, 2, A, 0, B, 0, C, 0, 1);
        for (e = 0; e < m * n * LA_W; ++e)
          bad += C[e] != (e == (i * n + j) * LA_W + lane ? -30 : 0);
      }
    la_free(A);
    LA_CHECK(t, st == 0, "a call returned an error");
    LA_CHECK(t, bad == 0, "%d elements wrong", bad);
  }

#if LA__X86 && LA__SIMD != LINATTN_SCALAR
  /* The model's Gram matrices S = A^T A come from la__psyrk_simd, which
     computes a triangle and mirrors it: every entry must be written and
     be the full product's, bit for bit (the model's results rest on it),
     and close to a sum in double. */
  LA_TEST(t, "kernels/Gram matrix: a triangle mirrored, the full product's bits") {
    int D, k, e, unequal = 0, st = 0, over = 0;
    double worst = 0;
    la_real *A = (la_real *)la_alloc(sizeof(la_real) * 25 * 17 * LA_W);
    la_real *S = (la_real *)la_alloc(sizeof(la_real) * 17 * 17 * LA_W);
    la_real *F = (la_real *)la_alloc(sizeof(la_real) * 17 * 17 * LA_W);
    for (D = 1; D <= 17; ++D)
      for (k = 1; k <= 25; k += 3) {
        int i, j, p, w;
        la_t_fill(&rng, k * D * LA_W, A);
        for (e = 0; e < D * D * LA_W; ++e) S[e] = (la_real)NAN;
        la__psyrk_simd(D, k, A, S);
        st |= la_bgemm(LA_TRANS_A, D, D, k, 1, A, 0, A, 0, F, 0, 1);
        unequal += memcmp(S, F, sizeof(la_real) * D * D * LA_W) != 0;
        for (i = 0; i < D; ++i)
          for (j = 0; j < D; ++j)
            for (w = 0; w < LA_W; ++w) {
              double r = 0, a = 0;
              for (p = 0; p < k; ++p) {
                double x = A[(p * D + i) * LA_W + w] * (double)A[(p * D + j) * LA_W + w];
                r += x;
                a += fabs(x);
              }
              /* in units of the bound k eps sum |x| of a sum of k terms */
              r = fabs(S[(i * D + j) * LA_W + w] - r) / (k * KT_EPS * a + 1e-300);
              over += !(r <= 1); /* a NaN (an entry left unwritten) too */
              if (r > worst) worst = r;
            }
      }
    la_free(A);
    la_free(S);
    la_free(F);
    LA_CHECK(t, st == 0, "la_bgemm returned an error");
    LA_CHECK(t, unequal == 0, "%d shapes differ from the full product", unequal);
    LA_CHECK(t, over == 0, "%d entries beyond k eps sum |x| of a double sum "
             "(or not finite); the largest finite error %g of it", over, worst);
  }
#endif

  LA_TEST(t, "kernels/vector operations against naive loops, n 0..300, odd offsets") {
    const la_kernels *tab[2];
    la_real xs[310], ys[310], y0[310];
    int n, ti, i, bad_dot = 0, bad_nrm = 0, bad_axpy = 0, bad_scale = 0;
    int bad_guard = 0;
    tab[0] = la_kernels_best();
    tab[1] = la_kernels_scalar();
    for (n = 0; n <= 300; ++n) {
      /* the offsets run through 0..3 for x and y over consecutive n */
      la_real *x = xs + n % 4, *y = ys + (n / 4) % 4;
      double ref = 0, abs_ref = 0, sq = 0, tol;
      la_real a = (la_real)la_t_uniform(&rng);
      la_t_fill(&rng, 310, xs);
      la_t_fill(&rng, 310, ys);
      for (i = 0; i < n; ++i) {
        ref += (double)x[i] * y[i];
        abs_ref += fabs((double)x[i] * y[i]);
        sq += (double)x[i] * x[i];
      }
      /* products are exact in double for floats; both sums are in double,
         so they differ by at most 2 n eps_double of the absolute sum. A
         float accumulation would miss by far more. */
      tol = (2.0 * n + 4) * DBL_EPSILON * (abs_ref + 1e-300);
      if (sizeof(la_real) == sizeof(double)) tol *= 2;
      for (ti = 0; ti < 2; ++ti) {
        bad_dot += !(fabs(tab[ti]->dot(n, x, y) - ref) <= tol);
        bad_nrm += !(fabs(tab[ti]->nrm2(n, x) - sqrt(sq)) <= (n + 4) * DBL_EPSILON * sqrt(sq) * 2);
      }
      bad_dot += n > 0 && la_dot(n, x, y) != tab[0]->dot(n, x, y);
      bad_nrm += n > 0 && la_nrm2(n, x) != tab[0]->nrm2(n, x);
      for (ti = 0; ti < 3; ++ti) {
        memcpy(y0, ys, sizeof ys);
        if (ti == 2) la_axpy(n, a, x, y);
        else tab[ti]->axpy(n, a, x, y);
        /* one or two roundings of y + a x */
        for (i = 0; i < n; ++i) {
          double yi = (double)y0[y - ys + i], e = yi + (double)a * x[i];
          bad_axpy += !(fabs(y[i] - e) <= 2 * KT_EPS * (fabs(yi) + fabs((double)a * x[i])));
        }
        for (i = 0; i < 310; ++i)
          bad_guard += (i < y - ys || i >= y - ys + n) && ys[i] != y0[i];
        memcpy(y0, ys, sizeof ys);
        if (ti == 2) la_scale(n, a, y);
        else tab[ti]->scale(n, a, y);
        /* one rounding of a product: bit-identical everywhere */
        for (i = 0; i < n; ++i) bad_scale += y[i] != (la_real)(a * y0[y - ys + i]);
        for (i = 0; i < 310; ++i)
          bad_guard += (i < y - ys || i >= y - ys + n) && ys[i] != y0[i];
      }
    }
    LA_CHECK(t, bad_dot == 0, "%d dot mismatches", bad_dot);
    LA_CHECK(t, bad_nrm == 0, "%d nrm2 mismatches", bad_nrm);
    LA_CHECK(t, bad_axpy == 0, "%d axpy mismatches", bad_axpy);
    LA_CHECK(t, bad_scale == 0, "%d scale mismatches", bad_scale);
    LA_CHECK(t, bad_guard == 0, "%d writes outside the vector", bad_guard);
  }

  /* Terms chosen so that float accumulation visibly fails: the exact sum is
     n * 2^-24 (each x_i y_i = 1 + 2^-24 ... minus 1), lost entirely by a
     float sum of the products. */
  LA_TEST(t, "kernels/dot accumulates in double") {
    la_real x[203], y[203];
    int n = 203, i, ti;
    double ref = 0;
    for (i = 0; i < n; ++i) {
      /* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 and (-1)(1 + 2^-11) pair up */
      if (i % 2 == 0) { x[i] = (la_real)(1 + 1.0 / 4096); y[i] = x[i]; }
      else { x[i] = -1; y[i] = (la_real)(1 + 1.0 / 2048); }
      ref += (double)x[i] * y[i];
    }
    for (ti = 0; ti < 2; ++ti) {
      const la_kernels *k = ti ? la_kernels_scalar() : la_kernels_best();
      double d = k->dot(n, x, y);
      LA_CHECK(t, fabs(d - ref) <= 1e-12, "%s: %.17g vs %.17g", k->name, d, ref);
    }
  }

  LA_TEST(t, "kernels/nrm2 neither overflows nor underflows") {
    la_real x[37];
    int i, n = 37;
    double big = sizeof(la_real) == 4 ? 1e38 : 1e300;
    double tiny = sizeof(la_real) == 4 ? 1e-37 : 1e-300;
    for (i = 0; i < n; ++i) x[i] = (la_real)(i % 2 ? big : -big);
    LA_CHECK(t, fabs(la_nrm2(n, x) / (big * sqrt((double)n)) - 1) < 1e-6, "%g",
             la_nrm2(n, x));
    LA_CHECK(t, fabs(la_kernels_scalar()->nrm2(n, x) / (big * sqrt((double)n)) - 1) < 1e-6,
             "%g", la_kernels_scalar()->nrm2(n, x));
    for (i = 0; i < n; ++i) x[i] = (la_real)(i % 3 ? tiny : -tiny);
    LA_CHECK(t, fabs(la_nrm2(n, x) / (tiny * sqrt((double)n)) - 1) < 1e-6, "%g",
             la_nrm2(n, x));
    for (i = 0; i < n; ++i) x[i] = 0;
    LA_CHECK(t, la_nrm2(n, x) == 0, "%g", la_nrm2(n, x));
  }

  LA_TEST(t, "kernels/vector operations on empty or null vectors") {
    la_real x[4] = {1, 2, 3, 4}, y[4] = {5, 6, 7, 8};
    LA_CHECK(t, la_dot(0, x, y) == 0 && la_dot(-1, x, y) == 0, "n <= 0");
    LA_CHECK(t, la_dot(3, NULL, y) == 0 && la_dot(3, x, NULL) == 0, "null");
    LA_CHECK(t, la_nrm2(0, x) == 0 && la_nrm2(3, NULL) == 0, "nrm2");
    la_axpy(0, 2, x, y);
    la_axpy(4, 2, NULL, y);
    la_axpy(4, 2, x, NULL);
    la_scale(-2, 2, x);
    la_scale(4, 2, NULL);
    LA_CHECK(t, x[0] == 1 && x[3] == 4 && y[0] == 5 && y[3] == 8, "modified");
    la_axpy(4, 2, x, x); /* the same vector: x = 3x */
    LA_CHECK(t, x[0] == 3 && x[3] == 12, "%g %g", (double)x[0], (double)x[3]);
  }

  LA_TEST(t, "kernels/aligned allocation") {
    int i, bad = 0;
    for (i = 1; i < 200; i += 7) {
      unsigned char *p = (unsigned char *)la_alloc((size_t)i);
      bad += p == NULL || ((size_t)p % LA_ALIGN) != 0;
      if (p) memset(p, 0xab, (size_t)i); /* the whole block is usable */
      la_free(p);
    }
    LA_CHECK(t, bad == 0, "%d misaligned", bad);
    LA_CHECK(t, la_alloc((size_t)-1) == NULL, "huge allocation succeeded");
    la_free(NULL);
  }

  LA_TEST(t, "kernels/software fma and fmaf: one rounding, as the C library's") {
    la_t_rng r = {77};
    int k, bad = 0, badf = 0, exact = 0;
    /* (1 + 2^-j)(1 - 2^-j) - 1 = -2^-2j and (1 + 2^-j)^2 - 1 = 2^(1-j) +
       2^-2j exactly, which a rounded product loses */
    for (k = 20; k <= 26; ++k) {
      double a = 1 + ldexp(1, -k), b = 1 - ldexp(1, -k);
      float fa = (float)(1 + ldexp(1, -k / 2)), fb = (float)(1 - ldexp(1, -k / 2));
      exact += la__fma_soft(a, b, -1) == -ldexp(1, -2 * k);
      exact += la__fma_soft(a, a, -1) == ldexp(1, 1 - k) + ldexp(1, -2 * k);
      exact += la__fmaf_soft(fa, fb, -1) == (float)-ldexp(1, -2 * (k / 2));
    }
    LA_CHECK(t, exact == 21, "%d of 21 exact", exact);
    { /* a product halfway between two neighbours, and z a hair beyond it
         on either side: ties to even would take the wrong one (float: the
         double sum alone is that tie) */
      float h = (float)(1 + ldexp(1, -12));
      double a = 1 + ldexp(1, -26), b = 1 + ldexp(1, -27),
             tie = 1 + ldexp(1, -26) + ldexp(1, -27);
      LA_CHECK(t, la__fmaf_soft(h, h, (float)ldexp(1, -70)) ==
                      (float)(1 + ldexp(1, -11) + ldexp(1, -23)),
               "fmaf: above the tie");
      LA_CHECK(t, la__fma_soft(a, b, ldexp(1, -200)) == tie + ldexp(1, -52) &&
                      la__fma_soft(a, b, -ldexp(1, -200)) == tie,
               "fma: either side of the tie");
    }
#if (!defined(__MINGW32__) || LA__X86_FMA) && !defined(__wasi__)
    /* the C library's (or the instruction) on operands of every binade,
       subnormals, products that cancel z and ties */
    for (k = 0; k < 200000; ++k) {
      double x = ldexp(la_t_uniform(&r), (int)(la_t_uniform(&r) * 1100)),
             y = ldexp(la_t_uniform(&r), (int)(la_t_uniform(&r) * 1100)), z;
      float fx = (float)ldexp(la_t_uniform(&r), (int)(la_t_uniform(&r) * 140)),
            fy = (float)ldexp(la_t_uniform(&r), (int)(la_t_uniform(&r) * 140)), fz;
      double a, b;
      float fa, fb;
      switch (k % 4) {
      case 0: z = ldexp(la_t_uniform(&r), (int)(la_t_uniform(&r) * 1100)); break;
      case 1: z = -(x * y); break;
      case 2: z = -(x * y) * (1 + ldexp(la_t_uniform(&r), -50)); break;
      default: z = x * y * ldexp(1, -(k % 120)); break;
      }
      fz = k % 2 ? -(fx * fy) : (float)ldexp(la_t_uniform(&r), (int)(la_t_uniform(&r) * 140));
      a = fma(x, y, z);
      b = la__fma_soft(x, y, z);
      fa = fmaf(fx, fy, fz);
      fb = la__fmaf_soft(fx, fy, fz);
      bad += memcmp(&a, &b, sizeof a) != 0 && !(a != a && b != b); /* NaNs' signs vary */
      badf += memcmp(&fa, &fb, sizeof fa) != 0 && !(fa != fa && fb != fb);
    }
    LA_CHECK(t, bad == 0 && badf == 0, "%d fma, %d fmaf differ", bad, badf);
    { /* infinities, NaNs, zeros' signs, overflow, the smallest subnormal */
      static const double sp[] = {0.0, -0.0, 1.0, -1.0, HUGE_VAL, -HUGE_VAL,
                                  DBL_MAX, -DBL_MAX, DBL_MIN, 4.9406564584124654e-324,
                                  -4.9406564584124654e-324, 3.0, 1e-300};
      int i, j, l, n = (int)(sizeof sp / sizeof sp[0]), off = 0;
      for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j)
          for (l = 0; l < n; ++l) {
            double a = fma(sp[i], sp[j], sp[l]), b = la__fma_soft(sp[i], sp[j], sp[l]);
            float fa = fmaf((float)sp[i], (float)sp[j], (float)sp[l]),
                  fb = la__fmaf_soft((float)sp[i], (float)sp[j], (float)sp[l]);
            off += memcmp(&a, &b, sizeof a) != 0 && !(a != a && b != b);
            off += memcmp(&fa, &fb, sizeof fa) != 0 && !(fa != fa && fb != fb);
          }
      LA_CHECK(t, off == 0, "%d special cases differ", off);
    }
#else
    (void)r;
    (void)bad;
    (void)badf;
#endif
  }
}
