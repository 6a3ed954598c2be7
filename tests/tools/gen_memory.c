/* Prints the table of docs/library.md's "Memory on a board": the bytes each
   diagnostic's caller-owned memory takes, from the header's size queries,
   at the base setting (d = 5, N = 20, L = 3: 150 parameters) and with d, N
   or L doubled, so that the page is never written by hand:
   `gen_memory PAGE` prints PAGE with the lines between its gen_memory
   markers replaced by the table (`make docs-memory` writes it back, the
   docs-memory configuration of `make test` fails when the page differs).
   Float build (la_real float), one thread. */
#include <stdio.h>
#include <string.h>

#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"

#define NCOL 4
static const struct {
  int d, n, layers;
  const char *name;
} cols[NCOL] = {{5, 20, 3, "base"}, {10, 20, 3, "d = 10"},
                {5, 40, 3, "N = 40"}, {5, 20, 6, "L = 6"}};

#define EVAL 32    /* prompts of the board's evaluation batch */
#define PROBES 10  /* la_slq's default probes */
#define HBLOCK 8   /* directions per product of the blocked dense Hessian */

/* One row: its bytes for the model m of a column (0: the query refused). */
typedef size_t (*row_fn)(const la_model *m, int d, int n);

static size_t trainer(const la_model *m, int d, int n, int batch, int eval) {
  la_data_config dc = {0};
  la_optim_config adam = {0};
  la_train_config tc = {0};
  la_data g;
  static unsigned char data_mem[4096];
  size_t bytes = 0;
  dc.d = d;
  dc.n = n;
  if (la_data_bytes(&dc) > sizeof data_mem ||
      la_data_init(&g, &dc, 1, data_mem, sizeof data_mem) != LA_OK)
    return 0;
  tc.model = m;
  tc.data = &g;
  tc.optimizer = la_optimizer_adam();
  tc.optimizer_config = &adam;
  tc.batch = batch;
  tc.eval_batch = eval;
  tc.eval_every = -1;
  if (la_trainer_bytes(&tc, &bytes) != LA_OK) return 0;
  return bytes + la_data_bytes(&dc);
}
static size_t r_trainer_board(const la_model *m, int d, int n) {
  return trainer(m, d, n, 16, EVAL);
}
static size_t r_trainer_paper(const la_model *m, int d, int n) {
  return trainer(m, d, n, 1000, 1000);
}
static size_t r_batch(const la_model *m, int d, int n) {
  (void)m;
  return la_batch_bytes(d, n, EVAL);
}
static size_t r_grad(const la_model *m, int d, int n) {
  (void)d; (void)n;
  return la_model_work_bytes(m) + sizeof(la_real) * 2 * (size_t)m->nparams;
}
static size_t r_diag(const la_model *m, int d, int n) {
  (void)d; (void)n;
  return la_hessian_work_bytes(m) + sizeof(double) * 4 * (size_t)m->nparams;
}
static size_t r_diag_k1(const la_model *m, int d, int n) {
  (void)d; (void)n;
  return la_model_hmp_work_bytes(m, 1) +
         sizeof(double) * 4 * (size_t)m->nparams +
         sizeof(la_real) * 2 * (size_t)m->nparams;
}
static size_t r_eigs(const la_model *m, int d, int n) {
  (void)d; (void)n;
  return la_hessian_eigs_work_bytes(m, 3, NULL);
}
static size_t r_dirsmooth(const la_model *m, int d, int n) {
  (void)d; (void)n;
  return la_dir_smoothness_work_bytes(m);
}
static size_t r_trace(const la_model *m, int d, int n) {
  (void)d; (void)n;
  return la_trace_work_bytes(m->nparams, NULL) + la_model_work_bytes(m);
}
static size_t r_slq(const la_model *m, int d, int n) {
  (void)d; (void)n;
  return la_slq_block_work_bytes(m->nparams, NULL) +
         la_model_hmp_work_bytes(m, PROBES);
}
static size_t r_dense(const la_model *m, int d, int n) {
  size_t np = (size_t)m->nparams;
  (void)d; (void)n;
  return la_hessian_work_bytes(m) + sizeof(double) * np * np;
}
static size_t r_blocks(const la_model *m, int d, int n) {
  size_t np = (size_t)m->nparams;
  (void)d; (void)n;
  return sizeof(double) * np * (np + 1) + la_sym_eig_work_bytes(m->nparams) +
         la_model_hmp_work_bytes(m, HBLOCK) +
         2 * sizeof(la_real) * HBLOCK * np;
}
static size_t r_rcond(const la_model *m, int d, int n) {
  (void)d; (void)n;
  return la_rcond_work_bytes(m, NULL);
}
static size_t r_rcond_slq(const la_model *m, int d, int n) {
  la_rcond_config c = {0};
  (void)d; (void)n;
  c.dense_max = 1; /* the iterative path at every size */
  return la_rcond_work_bytes(m, &c);
}
static size_t r_noise(const la_model *m, int d, int n) {
  (void)d; (void)n;
  return la_grad_noise_work_bytes(m, NULL);
}

static const struct {
  row_fn f;
  const char *what;
} rows[] = {
    {r_trainer_board, "trainer, Adam, batch 16, eval 32 (the board example)"},
    {r_trainer_paper, "trainer, Adam, batch 1000, eval 1000 (paper A's)"},
    {r_batch, "an evaluation batch of 32 prompts (`la_batch_bytes`)"},
    {r_grad, "loss and gradient or HVP (`la_model_work_bytes` + 2 n reals)"},
    {r_diag, "R by the diagonal: `la_hessian_diag` + `la_rcond_diag` (4 n doubles)"},
    {r_diag_k1, "**R by the diagonal, one direction a pass** (`la_model_hmp`, k = 1)"},
    {r_eigs, "top 3 eigenvalues (`la_hessian_eigs`, Lanczos)"},
    {r_dirsmooth, "directional smoothness (`la_dir_smoothness`)"},
    {r_trace, "trace, Hutchinson (`la_trace` over `la_hvp_matvec`)"},
    {r_slq, "density, SLQ in blocks (`la_slq_block` + `la_model_hmp`, 10 probes)"},
    {r_dense, "dense Hessian (`la_hessian_dense` + n^2 doubles)"},
    {r_blocks, "spectrum from 8 directions at a time (n^2 + n doubles, `la_sym_eig`)"},
    {r_rcond, "`la_robust_cond`, exact path (n <= 1000)"},
    {r_rcond_slq, "`la_robust_cond`, SLQ path"},
    {r_noise, "gradient noise, defaults (`la_grad_noise`)"},
};

static void bytes_text(size_t b, char *buf, size_t cap) {
  if (b == 0) snprintf(buf, cap, "-");
  else if (b < 10 * 1024) snprintf(buf, cap, "%.1f KB", (double)b / 1024);
  else if (b < 1024 * 1024) snprintf(buf, cap, "%.0f KB", (double)b / 1024);
  else snprintf(buf, cap, "%.2f MB", (double)b / (1024.0 * 1024.0));
}

static int table(void) {
  la_model models[NCOL];
  size_t base_trainer = 0;
  int c, r, nrows = (int)(sizeof rows / sizeof rows[0]);
  for (c = 0; c < NCOL; ++c) {
    la_model_config mc = {0};
    mc.d = cols[c].d;
    mc.n = cols[c].n;
    mc.layers = cols[c].layers;
    if (la_model_init(&models[c], &mc) != LA_OK) {
      fprintf(stderr, "gen_memory: la_model_init refused column %d\n", c);
      return 1;
    }
  }
  printf("| memory the caller provides (float; KB = 1024 bytes) |");
  for (c = 0; c < NCOL; ++c)
    printf(" %s (%d params) |", cols[c].name, models[c].nparams);
  printf("\n|---|");
  for (c = 0; c < NCOL; ++c) printf("--:|");
  printf("\n");
  for (r = 0; r < nrows; ++r) {
    printf("| %s |", rows[r].what);
    for (c = 0; c < NCOL; ++c) {
      char buf[32];
      size_t b = rows[r].f(&models[c], cols[c].d, cols[c].n);
      if (r == 0 && c == 0) base_trainer = b;
      bytes_text(b, buf, sizeof buf);
      printf(" %s |", buf);
    }
    printf("\n");
  }
  printf("\nAt the base setting the exact `la_robust_cond` takes %.1f times the "
         "board trainer's memory, its SLQ path %.1f times; R by the diagonal "
         "%.2f times, one direction a pass %.2f times.\n",
         (double)r_rcond(&models[0], 5, 20) / (double)base_trainer,
         (double)r_rcond_slq(&models[0], 5, 20) / (double)base_trainer,
         (double)r_diag(&models[0], 5, 20) / (double)base_trainer,
         (double)r_diag_k1(&models[0], 5, 20) / (double)base_trainer);
  return 0;
}

int main(int argc, char **argv) {
  static const char begin[] = "<!-- gen_memory -->\n";
  static const char end[] = "<!-- end gen_memory -->\n";
  char line[4096];
  int skip = 0, found = 0;
  FILE *f;
  if (argc != 2) {
    fprintf(stderr, "usage: gen_memory PAGE.md\n");
    return 2;
  }
  if (!(f = fopen(argv[1], "r"))) {
    fprintf(stderr, "gen_memory: cannot read %s\n", argv[1]);
    return 1;
  }
  while (fgets(line, sizeof line, f)) {
    if (strcmp(line, end) == 0) skip = 0;
    if (!skip) fputs(line, stdout);
    if (strcmp(line, begin) == 0) {
      if (table()) { fclose(f); return 1; }
      skip = found = 1;
    }
  }
  fclose(f);
  if (!found || skip) {
    fprintf(stderr, "gen_memory: %s lacks the gen_memory markers\n", argv[1]);
    return 1;
  }
  return 0;
}
