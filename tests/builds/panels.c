/* The model's bits on the AVX-512 backend's wide panels against the AVX2
   build's, in one program.

   Built three times as a translation unit (-DPANELS_TU=name: the header's
   implementation, static, and one entry point panels_name) and once more
   as the driver (-DPANELS_VARIANTS='X(avx2) X(wide) ...'): the first
   variant is the reference (-mavx2 -mfma), each other must return the
   same bits. Cases: the linear-attention model (the wide panels' path:
   dense, sparse and pgd, 1 and 3 layers, 1 and 2 heads, T even and odd),
   at batch sizes of odd panel counts and not multiples of LA_W, so that
   chunks end on an odd panel and the last panel is partial; one and three
   workers; prompts from a stored batch and drawn where they are consumed
   (la_model_grad_fresh); the loss with predictions, the gradient, an HVP,
   three directions' H V (la_model_hmp), the dense Hessian (its tangents
   stopped at each column's layer) and its diagonal (forward tangents); a
   ReLU model and one with a front layer (LA_W panels on every
   backend) as controls. The driver skips (exit 0, saying so) on a CPU
   without AVX-512. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PANELS_CAT2(a, b) a##b
#define PANELS_CAT(a, b) PANELS_CAT2(a, b)

/* One case's results, every value widened to double (exactly). */
typedef struct panels_out {
  const char *backend;
  int status[7], nparams, count;
  double loss[3];
  double *vals; /* grad (twice), hvp, pred, 3 directions' H v, the dense
                   Hessian, its diagonal: PANELS_NV(nparams, count) */
} panels_out;

#define PANELS_NCFG 26
#define PANELS_MAXP 500
#define PANELS_MAXB 1000
#define PANELS_NV(np, count) \
  (7 * (size_t)(np) + (size_t)(count) + (size_t)(np) * (np))

#ifdef PANELS_TU
#define LINATTN_STATIC
#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"

int PANELS_CAT(panels_, PANELS_TU)(int cfg, int count, int workers,
                                   panels_out *out);
int PANELS_CAT(panels_, PANELS_TU)(int cfg, int count, int workers,
                                   panels_out *out) {
  static const int shapes[][2] = {{5, 20}, {3, 6}};
  la_model_config mc;
  la_model m;
  la_batch b;
  la_data_config dc;
  la_data g;
  la_rng rng;
  la_pool *pool = NULL;
  la_real *plain, *th, *v, *gr, *hv, *pred;
  int i, np, d, n, D, T, ok = 0;
  size_t nz;
  out->backend = la_backend_name();
  memset(&mc, 0, sizeof mc);
  /* cfg < 24: linear, param cfg % 3, layers 1 or 3, heads 1 or 2, shape;
     24: ReLU; 25: a front layer */
  d = shapes[cfg < 24 ? (cfg / 12) % 2 : 0][0];
  n = shapes[cfg < 24 ? (cfg / 12) % 2 : 0][1];
  D = d + 1; T = n + 1;
  mc.d = d; mc.n = n;
  mc.param = cfg < 24 ? cfg % 3 : LA_PARAM_SPARSE;
  mc.layers = cfg < 24 && (cfg / 3) % 2 ? 1 : 3;
  mc.heads = cfg < 24 ? 1 + (cfg / 6) % 2 : 1;
  mc.activation = cfg == 24 ? LA_ACT_RELU : LA_ACT_LINEAR;
  mc.front_hidden = cfg == 25 ? 4 : 0;
  if (workers > 1) {
    if (la_pool_create(&pool, workers)) return -1;
    mc.parallel = la_pool_parallel(pool);
  }
  if (la_model_init(&m, &mc)) return -1;
  np = m.nparams;
  if (np > PANELS_MAXP || count > PANELS_MAXB) return -1;
  out->nparams = np;
  out->count = count;
  nz = (size_t)count * D * T;
  plain = (la_real *)malloc(sizeof(la_real) * (nz + (size_t)count));
  th = (la_real *)malloc(sizeof(la_real) * (size_t)np * 10);
  pred = (la_real *)malloc(sizeof(la_real) * (size_t)count);
  b.d = d; b.n = n; b.count = count;
  b.z = (la_real *)la_alloc(sizeof(la_real) * (size_t)la_panels(count) * D * T * LA_W);
  b.y = (la_real *)la_alloc(sizeof(la_real) * (size_t)la_panels(count) * LA_W);
  if (plain && th && pred && b.z && b.y) {
    v = th + np; gr = v + np; hv = gr + np;
    la_rng_seed(&rng, 7 + (uint64_t)cfg, 0);
    for (i = 0; i < (int)nz + count; ++i)
      plain[i] = (la_real)la_rng_normal(&rng);
    for (i = 0; i < count; ++i) plain[(size_t)i * D * T + D * T - 1] = 0;
    la_pack(count, D, T, plain, b.z);
    la_pack(count, 1, 1, plain + nz, b.y);
    la_model_init_params(&m, &rng, th);
    for (i = 0; i < np; ++i) {
      th[i] = (la_real)(th[i] + 0.3 * la_rng_normal(&rng));
      v[i] = (la_real)la_rng_normal(&rng);
    }
    out->status[0] = la_model_loss(&m, th, &b, &out->loss[0], pred, NULL, 0);
    for (i = 0; i < count; ++i) out->vals[3 * np + i] = pred[i];
    out->status[1] = la_model_grad(&m, th, &b, &out->loss[1], gr, NULL, 0);
    for (i = 0; i < np; ++i) out->vals[i] = gr[i];
    out->status[2] = la_model_hvp(&m, th, &b, v, &out->loss[2], NULL, hv, NULL, 0);
    for (i = 0; i < np; ++i) out->vals[2 * np + i] = hv[i];
    /* drawn where consumed: a Setting-1 generator of the model's shape */
    out->status[3] = -1;
    if (la_data_preset(&dc, 1) == 0) {
      dc.d = d; dc.n = n;
      if (la_data_create(&g, &dc, 11) == 0) {
        la_rng_seed(&rng, 13, (uint64_t)cfg);
        out->status[3] = la_model_grad_fresh(&m, th, &g, &rng, count,
                                             &out->loss[2], gr, NULL, 0);
        for (i = 0; i < np; ++i) out->vals[np + i] = gr[i];
        la_data_destroy(&g);
      }
    }
    { /* three directions at once, and the dense Hessian (per-column
         stages, tangents stopped at their stage) */
      la_real *v3 = hv + np, *h3 = v3 + 3 * (size_t)np;
      double *hd = (double *)malloc(sizeof(double) * (size_t)np * np);
      for (i = 0; i < 3 * np; ++i) v3[i] = (la_real)la_rng_normal(&rng);
      out->status[4] = la_model_hmp(&m, th, &b, 3, v3, NULL, NULL, h3, NULL, 0);
      for (i = 0; i < 3 * np; ++i) out->vals[3 * np + count + i] = h3[i];
      out->status[5] = !hd ? -1 : count > 64 ? 0 : la_hessian_dense(&m, th, &b, hd, NULL, 0);
      for (i = 0; hd && count <= 64 && i < np * np; ++i)
        out->vals[7 * np + count + i] = hd[i];
      /* the diagonal alone (linear attention: forward tangents) */
      out->status[6] = !hd ? -1 : la_hessian_diag(&m, th, &b, hd, NULL, 0);
      for (i = 0; hd && i < np; ++i) out->vals[6 * np + count + i] = hd[i];
      free(hd);
    }
    ok = 1;
  }
  free(plain); free(th); free(pred); la_free(b.z); la_free(b.y);
  if (pool) la_pool_destroy(pool);
  return ok ? 0 : -1;
}
#endif /* PANELS_TU */

#ifdef PANELS_VARIANTS
#define X(name) int panels_##name(int, int, int, panels_out *);
PANELS_VARIANTS
#undef X
static const struct {
  const char *name;
  int (*run)(int, int, int, panels_out *);
} variants[] = {
#define X(name) {#name, panels_##name},
    PANELS_VARIANTS
#undef X
};
#define NV ((int)(sizeof variants / sizeof variants[0]))

int main(void) {
  static const int counts[] = {1, 7, 9, 16, 17, 23, 25, 57, 64, 135, 203, 1000};
  const int nc = (int)(sizeof counts / sizeof counts[0]);
  static double vals[NV][PANELS_NV(PANELS_MAXP, PANELS_MAXB)];
  panels_out o[NV];
  int cfg, c, wk, v, fails = 0, cases = 0;
#if defined(__GNUC__) || defined(__clang__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vl")) {
    printf("panels: skipped, this CPU has no AVX-512\n");
    return 0;
  }
#endif
  for (cfg = 0; cfg < PANELS_NCFG; ++cfg)
    for (c = 0; c < nc; ++c)
      for (wk = 1; wk <= 3; wk += 2) {
        if (counts[c] == 1000 && (cfg % 5 != 0 || wk > 1)) continue; /* time */
        for (v = 0; v < NV; ++v) {
          memset(&o[v], 0, sizeof o[v]);
          o[v].vals = vals[v];
          memset(vals[v], 0, sizeof vals[v]);
          if (variants[v].run(cfg, counts[c], wk, &o[v])) {
            printf("panels: %s failed to set up case %d/%d\n",
                   variants[v].name, cfg, counts[c]);
            return 1;
          }
        }
        ++cases;
        for (v = 1; v < NV; ++v) {
          size_t nv = PANELS_NV(o[0].nparams, o[0].count);
          if (memcmp(o[v].status, o[0].status, sizeof o[0].status) ||
              o[v].status[0] || o[v].status[1] || o[v].status[2] ||
              o[v].status[3] || o[v].status[4] || o[v].status[5] ||
              o[v].status[6] ||
              memcmp(o[v].loss, o[0].loss, sizeof o[0].loss) ||
              memcmp(o[v].vals, o[0].vals, nv * sizeof(double))) {
            printf("panels: FAIL %s (%s) against %s (%s): config %d, batch "
                   "%d, %d workers\n",
                   variants[v].name, o[v].backend, variants[0].name,
                   o[0].backend, cfg, counts[c], wk);
            ++fails;
            if (fails < 6) {
              size_t e;
              int q;
              for (q = 0; q < 7; ++q)
                if (o[v].status[q] != o[0].status[q])
                  printf("  status %d: %d, %d\n", q, o[v].status[q], o[0].status[q]);
              for (q = 0; q < 3; ++q)
                if (o[v].loss[q] != o[0].loss[q])
                  printf("  loss %d: %.17g, %.17g\n", q, o[v].loss[q], o[0].loss[q]);
              for (e = 0; e < nv; ++e)
                if (o[v].vals[e] != o[0].vals[e]) {
                  printf("  value %d of %d (nparams %d): %.17g, %.17g\n", (int)e,
                         (int)nv, o[0].nparams, o[v].vals[e], o[0].vals[e]);
                  break;
                }
            }
          }
        }
      }
  for (v = 0; v < NV; ++v)
    printf("panels: %s backend %s\n", variants[v].name, o[v].backend);
  printf("panels: %d cases, %d variants against %s, %d differ\n", cases,
         NV - 1, variants[0].name, fails);
  return fails != 0;
}
#endif /* PANELS_VARIANTS */
