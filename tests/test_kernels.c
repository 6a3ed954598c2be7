/* Kernels against naive loops on plain row-major matrices, and the compiled
   backend against its scalar twin, over odd sizes. */

/* Naive C_b = alpha op(A_b) op(B_b) (+ C_b) on plain matrices; a shared
   operand has stride 0. */
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

/* One case: op(A) m x k, op(B) k x n, count prompts, optionally shared
   operands or a batch-summed C. Returns the normalized squared error. */
static double kernel_case(unsigned flags, int m, int n, int k, int count,
                          int a_shared, int b_shared, int c_summed,
                          la_t_rng *rng, int *status) {
  int np = la_panels(count);
  size_t sa = (size_t)m * k, sb = (size_t)k * n, sc = (size_t)m * n;
  la_real *A = (la_real *)la_alloc(sizeof(la_real) * sa * count);
  la_real *B = (la_real *)la_alloc(sizeof(la_real) * sb * count);
  la_real *Cref = (la_real *)la_alloc(sizeof(la_real) * sc * count);
  la_real *Cplain = (la_real *)la_alloc(sizeof(la_real) * sc * count);
  la_real *Ai = (la_real *)la_alloc(sizeof(la_real) * sa * np * LA_W);
  la_real *Bi = (la_real *)la_alloc(sizeof(la_real) * sb * np * LA_W);
  la_real *Ci = (la_real *)la_alloc(sizeof(la_real) * sc * np * LA_W);
  double err;
  int b, e;
  la_t_fill(rng, sa * count, A);
  la_t_fill(rng, sb * count, B);
  la_t_fill(rng, sc * count, Cref);
  memcpy(Cplain, Cref, sizeof(la_real) * sc * count);
  *status = 0;
  /* the dimensions of A, B as stored (before op) */
  {
    int ar = (flags & LA_TRANS_A) ? k : m, ac = (flags & LA_TRANS_A) ? m : k;
    int br = (flags & LA_TRANS_B) ? n : k, bc = (flags & LA_TRANS_B) ? k : n;
    if (a_shared) *status |= la_broadcast(ar, ac, A, Ai);
    else *status |= la_pack(count, ar, ac, A, Ai);
    if (b_shared) *status |= la_broadcast(br, bc, B, Bi);
    else *status |= la_pack(count, br, bc, B, Bi);
  }
  if (c_summed) {
    /* reference: the original C plus the sum over prompts (padding lanes of
       A or B are zero); lane 0 of the C panel starts from the original C */
    naive_bgemm(flags & ~LA_ACCUMULATE, m, n, k, 0.5, A, a_shared ? 0 : sa, B,
                b_shared ? 0 : sb, Cplain, count);
    for (e = 0; e < LA_W * (int)sc; ++e) Ci[e] = 1e3f; /* must be overwritten */
    for (e = 0; e < (int)sc; ++e) {
      double s = (flags & LA_ACCUMULATE) ? Cref[e] : 0;
      for (b = 0; b < count; ++b) s += Cplain[b * sc + e];
      if (flags & LA_ACCUMULATE) {
        for (b = 0; b < LA_W; ++b) Ci[e * LA_W + b] = b ? 0 : Cref[e];
      }
      Cref[e] = (la_real)s;
    }
    *status |= la_bgemm(flags, m, n, k, (la_real)0.5, Ai, a_shared ? 0 : sa * LA_W,
                        Bi, b_shared ? 0 : sb * LA_W, Ci, 0, np);
    *status |= la_lane_sum(m, n, Ci, Cplain);
    err = LA_NSE(sc, Cplain, Cref);
  } else {
    *status |= la_pack(count, m, n, Cplain, Ci);
    naive_bgemm(flags, m, n, k, 0.5, A, a_shared ? 0 : sa, B, b_shared ? 0 : sb,
                Cref, count);
    *status |= la_bgemm(flags, m, n, k, (la_real)0.5, Ai, a_shared ? 0 : sa * LA_W,
                        Bi, b_shared ? 0 : sb * LA_W, Ci, sc * LA_W, np);
    *status |= la_unpack(count, m, n, Ci, Cplain);
    err = LA_NSE(sc * count, Cplain, Cref);
  }
  la_free(A); la_free(B); la_free(Cref); la_free(Cplain);
  la_free(Ai); la_free(Bi); la_free(Ci);
  return err;
}

static void suite_kernels(la_t *t) {
  static const int ns[] = {1, 2, 3, 5, 6, 7, 8, 13, 21, 33, 64};
  static const int counts[] = {1, 7, 8, 9, 33, 1001};
  la_t_rng rng = {42};

  LA_TEST(t, "kernels/version and backend") {
    LA_CHECK(t, la_version() == LINATTN_VERSION_NUMBER, "%d", la_version());
    LA_CHECK(t, strcmp(la_version_string(), "0.1.0") == 0, "%s",
             la_version_string());
    LA_CHECK(t, strlen(la_backend_name()) > 0, "empty");
    LA_CHECK(t, strcmp(la_status_str(LA_EDIM), la_status_str(LA_ENULL)) != 0,
             "two codes share a message");
    LA_CHECK(t, strcmp(la_status_str(12345), "unknown status") == 0, "%s",
             la_status_str(12345));
  }

  LA_TEST(t, "kernels/pack and unpack round trip, padding zeroed") {
    int ci;
    for (ci = 0; ci < 6; ++ci) {
      int count = counts[ci], rows = 3, cols = 7, np = la_panels(count);
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
        bad += il[((b / LA_W) * rows * cols + 2 * cols + 5) * LA_W + b % LA_W] !=
               plain[b * rows * cols + 2 * cols + 5];
      for (b = count; b < np * LA_W; ++b)
        for (e = 0; e < rows * cols; ++e)
          pad += il[((b / LA_W) * rows * cols + e) * LA_W + b % LA_W] != 0;
      LA_CHECK(t, bad == 0, "count %d: %d elements differ", count, bad);
      LA_CHECK(t, pad == 0, "count %d: %d padding elements nonzero", count, pad);
      la_free(plain); la_free(back); la_free(il);
    }
  }

  LA_TEST(t, "kernels/bad arguments") {
    la_real buf[LA_W * 4];
    memset(buf, 0, sizeof buf);
    LA_CHECK(t, la_pack(0, 2, 2, buf, buf) == LA_EDIM, "count 0");
    LA_CHECK(t, la_pack(1, -1, 2, buf, buf) == LA_EDIM, "rows -1");
    LA_CHECK(t, la_pack(1, 2, 2, NULL, buf) == LA_ENULL, "null");
    LA_CHECK(t, la_pack(2000000000, 2000, 2000, buf, buf) == LA_EOVERFLOW, "huge");
    LA_CHECK(t, la_unpack(1, 2, 2, buf, NULL) == LA_ENULL, "null");
    LA_CHECK(t, la_broadcast(0, 1, buf, buf) == LA_EDIM, "rows 0");
    LA_CHECK(t, la_lane_sum(1, 1, NULL, buf) == LA_ENULL, "null");
    LA_CHECK(t, la_bgemm(0, 1, 1, 1, 1, NULL, 0, buf, 0, buf, 0, 1) == LA_ENULL, "null A");
    LA_CHECK(t, la_bgemm(0, 1, 0, 1, 1, buf, 0, buf, 0, buf, 0, 1) == LA_EDIM, "n 0");
    LA_CHECK(t, la_bgemm(0, 1, 1, 1, 1, buf, 0, buf, 0, buf, 0, 0) == LA_EDIM, "0 panels");
    LA_CHECK(t, la_bgemm(64u, 1, 1, 1, 1, buf, 0, buf, 0, buf, 0, 1) == LA_ERANGE, "flags");
    LA_CHECK(t, la_bgemm(0, 100000, 100000, 1, 1, buf, 0, buf, 0, buf, 0, 1) ==
                    LA_EOVERFLOW, "huge");
  }

  LA_TEST(t, "kernels/bgemm against naive loops, every orientation") {
    int m, ni, ki, f, worst_m = 0;
    double worst = 0;
    int st = 0, s;
    for (m = 1; m <= 17; ++m)
      for (ni = 0; ni < 11; ++ni)
        for (ki = 0; ki < 11; ki += 2)
          for (f = 0; f < 8; ++f) {
            int count = counts[(m + ni + ki + f) % 5];
            double e = kernel_case((unsigned)f, m, ns[ni], ns[ki], count,
                                   0, 0, 0, &rng, &s);
            st |= s;
            if (!(e <= worst)) { worst = e; worst_m = m; }
          }
    LA_CHECK(t, st == 0, "a call returned an error");
    LA_CHECK(t, worst < LA_T_NSE_TOL, "worst nse %g at m=%d", worst, worst_m);
  }

  LA_TEST(t, "kernels/bgemm with shared operands and batch sums") {
    static const int shapes[][3] = {{6, 21, 6}, {6, 6, 21}, {6, 6, 6},
                                    {1, 64, 17}, {17, 1, 64}, {5, 5, 5}};
    int si, f, mode, ci, st = 0, s;
    double worst = 0;
    for (si = 0; si < 6; ++si)
      for (f = 0; f < 8; ++f)
        for (mode = 1; mode < 6; ++mode)
          for (ci = 0; ci < 6; ++ci) {
            /* mode bits: 1 shared A, 2 shared B, 4 summed C */
            int as = mode & 1, bs = (mode >> 1) & 1, cs = mode >= 4;
            double e;
            if (as && bs) continue;
            e = kernel_case((unsigned)f, shapes[si][0], shapes[si][1],
                            shapes[si][2], counts[ci], as, bs, cs, &rng, &s);
            st |= s;
            if (!(e <= worst)) worst = e;
          }
    LA_CHECK(t, st == 0, "a call returned an error");
    LA_CHECK(t, worst < LA_T_NSE_TOL * 100, "worst nse %g", worst);
  }

  LA_TEST(t, "kernels/simd panel kernel against its scalar twin") {
    const la_kernels *best = la_kernels_best(), *ref = la_kernels_scalar();
    la_real *A = (la_real *)la_alloc(sizeof(la_real) * 17 * 64 * LA_W);
    la_real *B = (la_real *)la_alloc(sizeof(la_real) * 64 * 64 * LA_W);
    la_real *C1 = (la_real *)la_alloc(sizeof(la_real) * 17 * 64 * LA_W);
    la_real *C2 = (la_real *)la_alloc(sizeof(la_real) * 17 * 64 * LA_W);
    double worst = 0;
    int m, ni, f;
    for (m = 1; m <= 17; m += 2)
      for (ni = 0; ni < 11; ++ni)
        for (f = 0; f < 8; ++f) {
          int n = ns[ni], k = ns[(ni + m) % 11];
          double e;
          la_t_fill(&rng, (size_t)m * k * LA_W, A);
          la_t_fill(&rng, (size_t)k * n * LA_W, B);
          la_t_fill(&rng, (size_t)m * n * LA_W, C1);
          memcpy(C2, C1, sizeof(la_real) * m * n * LA_W);
          best->pgemm((unsigned)f, m, n, k, (la_real)1.5, A, B, C1);
          ref->pgemm((unsigned)f, m, n, k, (la_real)1.5, A, B, C2);
          e = LA_NSE((size_t)m * n * LA_W, C1, C2);
          if (!(e <= worst)) worst = e;
        }
    LA_CHECK(t, worst < LA_T_NSE_TOL, "worst nse %g", worst);
    la_free(A); la_free(B); la_free(C1); la_free(C2);
  }

  LA_TEST(t, "kernels/vector operations") {
    la_real x[67], y[67], y0[67];
    int n, i, bad = 0;
    for (n = 1; n <= 67; n += 3) {
      double ref = 0, nr = 0;
      la_t_fill(&rng, (size_t)n, x);
      la_t_fill(&rng, (size_t)n, y);
      for (i = 0; i < n; ++i) { ref += (double)x[i] * y[i]; nr += (double)x[i] * x[i]; }
      bad += fabs(la_dot(n, x, y) - ref) > 1e-5 * (1 + fabs(ref));
      bad += fabs(la_kernels_scalar()->dot(n, x, y) - ref) > 1e-12 * (1 + fabs(ref));
      bad += fabs(la_nrm2(n, x) - sqrt(nr)) > 1e-5 * sqrt(nr);
      memcpy(y0, y, sizeof y);
      la_axpy(n, (la_real)0.25, x, y);
      for (i = 0; i < n; ++i)
        bad += fabs(y[i] - (y0[i] + 0.25 * x[i])) > 1e-6;
      la_scale(n, (la_real)-2, y);
      for (i = 0; i < n; ++i)
        bad += fabs(y[i] + 2 * (y0[i] + 0.25 * x[i])) > 1e-5;
    }
    LA_CHECK(t, bad == 0, "%d mismatches", bad);
    LA_CHECK(t, la_dot(0, x, y) == 0 && la_dot(3, NULL, y) == 0, "degenerate");
  }

  LA_TEST(t, "kernels/aligned allocation") {
    int i, bad = 0;
    for (i = 1; i < 200; i += 7) {
      void *p = la_alloc((size_t)i);
      bad += p == NULL || ((size_t)p % LA_ALIGN) != 0;
      la_free(p);
    }
    LA_CHECK(t, bad == 0, "%d misaligned", bad);
    LA_CHECK(t, la_alloc((size_t)-1) == NULL, "huge allocation succeeded");
    la_free(NULL);
  }
}
