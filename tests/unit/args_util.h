/* What the args suite and the counting-allocator program share. */
#ifndef LA_ARGS_UTIL_H
#define LA_ARGS_UTIL_H

/* y = diag(ctx) x: a small symmetric operator for the diagnostics */
static int ta_diag_mv(void *ctx, int n, const la_real *x, la_real *y) {
  const double *dg = (const double *)ctx;
  int i;
  for (i = 0; i < n; ++i) y[i] = (la_real)(dg[i] * x[i]);
  return LA_OK;
}

/* A custom optimizer whose state would not fit any address space. */
static int ta_huge_check(const void *c) { (void)c; return LA_OK; }
static size_t ta_huge_len(const void *c, int n) {
  (void)c; (void)n;
  return (size_t)-1 / 8;
}
static int ta_huge_init(const void *c, int n, double *s) {
  (void)c; (void)n; (void)s;
  return LA_OK;
}
static int ta_huge_step(const void *c, int n, double *s, double sc,
                        const la_real *th, const la_real *g, la_real *u) {
  (void)c; (void)n; (void)s; (void)sc; (void)th; (void)g; (void)u;
  return LA_OK;
}
static const la_optimizer ta_huge_opt = {"huge", ta_huge_check, ta_huge_len,
                                         ta_huge_init, ta_huge_step};
#endif
