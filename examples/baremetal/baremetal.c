/* Paper A's measurement on a microcontroller: the base model (sparse,
   L = 3, d = 5, N = 20: 150 parameters) trained with Adam on fresh prompts,
   then the robust condition number R = max |H_ii| / median |H_ii| of its
   Hessian, with no malloc and no C library (LINATTN_NO_STDLIB), in one
   static block that the size queries check before anything is written.

   R on a board. la_robust_cond needs over a megabyte at this size (the
   dense Hessian and its spectrum; docs/library.md, "Memory on a board");
   la_hessian_diag, close to one (it takes many directions per pass). Here
   the diagonal is taken K directions at a time: H e_j for K unit vectors
   e_j by one la_model_hmp, H_jj the j-th entry of its row (each row is
   la_model_hvp's bit for bit), K the largest of 8, 4, 2, 1 whose
   workspace fits what the trainer leaves; then la_rcond_diag. The
   block is the trainer's first, then the Hessian's: theta is copied out
   between them.

   The program's only output goes through board_puts(), which the platform
   provides: semihosting on the Cortex-M4 (tests/builds/m4/startup.c), stdio
   on a host (host.c). Every number is printed in decimal and as the bits
   of the double, so that the board's and the host's runs can be compared
   exactly: the scalar backend (the M4 has no SIMD) computes the same bits
   on both, its fused multiply-adds through fmaf. Exit status 0 when the
   evaluation loss fell below half its start and R was measured. */
#define LINATTN_IMPLEMENTATION
#include "linattn.h"

void board_puts(const char *s);

#define D 5
#define N 20
#define BATCH 16  /* prompts per step: two float panels */
#define EVAL 32   /* prompts of the trainer's evaluation batch and of R's */
#define STEPS 200
#define MAX_PARAMS 160

/* The one block: 176 KB. With the generator's few hundred bytes, theta
   and the stack (27 KB measured on the M4 by tests/builds/m4/startup.c's
   painting) the program fits a part with 256 KB of RAM. */
static unsigned char arena[176 * 1024];
static unsigned char data_mem[256];
static la_real theta[MAX_PARAMS];

/* ------------------------------------------------ output, no stdio */

static char *put_uint(char *p, unsigned long long v, int width) {
  char t[24];
  int n = 0;
  do {
    t[n++] = (char)('0' + (int)(v % 10));
    v /= 10;
  } while (v);
  while (n < width) t[n++] = '0';
  while (n) *p++ = t[--n];
  return p;
}

/* "label 12.3456789 (0x4028b0fcb4f1e4b4)": x to 9 significant digits
   (rounded in double: for the eye), then its exact bits. */
static void put_real(const char *label, double x) {
  char buf[96], *p = buf;
  const char *s = label;
  unsigned long long bits, ip, fp;
  double a, scale = 1;
  int i, frac = 8;
  while (*s) *p++ = *s++;
  *p++ = ' ';
  a = x < 0 ? -x : x;
  if (x < 0) *p++ = '-';
  while (a >= 10 * scale && frac > 0) { scale *= 10; --frac; }
  {
    double p10 = 1;
    for (i = 0; i < frac; ++i) p10 *= 10;
    ip = (unsigned long long)a;
    fp = (unsigned long long)((a - (double)ip) * p10 + 0.5);
    if (fp >= (unsigned long long)p10) { ++ip; fp = 0; }
  }
  p = put_uint(p, ip, 1);
  if (frac > 0) {
    *p++ = '.';
    p = put_uint(p, fp, frac);
  }
  memcpy(&bits, &x, sizeof bits);
  *p++ = ' '; *p++ = '('; *p++ = '0'; *p++ = 'x';
  for (i = 60; i >= 0; i -= 4) *p++ = "0123456789abcdef"[(bits >> i) & 15];
  *p++ = ')'; *p++ = '\n'; *p = 0;
  board_puts(buf);
}

static void put_count(const char *label, unsigned long long v) {
  char buf[64], *p = buf;
  while (*label) *p++ = *label++;
  *p++ = ' ';
  p = put_uint(p, v, 1);
  *p++ = '\n'; *p = 0;
  board_puts(buf);
}

/* ------------------------------------------------------- the run */

static int train(const la_model *m, const la_data *g, double *before,
                 double *after) {
  la_optim_config adam = {0};
  la_train_config tc = {0};
  la_trainer tr;
  size_t bytes = 0;
  adam.lr = 0.02;
  adam.beta2 = 0.9;
  tc.model = m;
  tc.data = g;
  tc.optimizer = la_optimizer_adam();
  tc.optimizer_config = &adam;
  tc.clip_norm = 1;
  tc.batch = BATCH;
  tc.eval_batch = EVAL;
  tc.eval_every = -1;
  tc.seed = 1;
  if (la_trainer_bytes(&tc, &bytes) != LA_OK || bytes > sizeof arena) return 10;
  put_count("trainer bytes", bytes);
  if (la_trainer_init(&tr, &tc, arena, bytes) != LA_OK) return 11;
  if (la_trainer_eval(&tr, before) != LA_OK) return 12;
  if (la_trainer_run(&tr, STEPS) != LA_OK) return 13;
  if (la_trainer_eval(&tr, after) != LA_OK) return 14;
  memcpy(theta, tr.theta, sizeof(la_real) * (size_t)m->nparams);
  return 0;
}

/* Carves `bytes` from the arena at *off, at an address aligned to 64
   (NULL if it does not fit). */
static void *carve(size_t *off, size_t bytes) {
  size_t mis = (size_t)((uintptr_t)(arena + *off) & 63);
  size_t at = *off + (mis ? 64 - mis : 0);
  if (at > sizeof arena || bytes > sizeof arena - at) return NULL;
  *off = at + bytes;
  return arena + at;
}

/* R of theta on EVAL fresh prompts (stream 2 of the data seed), the
   diagonal k directions at a time. */
static int measure_r(const la_model *m, const la_data *g, double *r) {
  static const int ks[] = {8, 4, 2, 1};
  const int n = m->nparams;
  la_batch b;
  la_rng rng;
  size_t off = 0, bbytes = la_batch_bytes(D, N, EVAL), wbytes = 0;
  void *bmem = carve(&off, bbytes), *work = NULL, *rwork;
  la_real *v = NULL, *hv = NULL;
  double *diag;
  int k = 0, i, j, j0;
  if (!bmem || la_batch_init(&b, D, N, EVAL, bmem, bbytes) != LA_OK) return 20;
  la_rng_seed(&rng, 1, 2);
  if (la_data_sample(g, &rng, &b) != LA_OK) return 21;
  diag = (double *)carve(&off, sizeof(double) * (size_t)n);
  rwork = carve(&off, sizeof(double) * 3 * (size_t)n); /* la_rcond_diag's */
  if (!diag || !rwork) return 22;
  for (i = 0; i < 4 && !k; ++i) { /* the widest block that fits */
    size_t o = off;
    wbytes = la_model_hmp_work_bytes(m, ks[i]);
    v = (la_real *)carve(&o, sizeof(la_real) * (size_t)ks[i] * (size_t)n);
    hv = (la_real *)carve(&o, sizeof(la_real) * (size_t)ks[i] * (size_t)n);
    work = wbytes ? carve(&o, wbytes) : NULL;
    if (v && hv && work) { k = ks[i]; off = o; }
  }
  if (!k) return 23;
  put_count("directions per pass", (unsigned long long)k);
  put_count("Hessian bytes", bbytes + sizeof(double) * 4 * (size_t)n +
                                 sizeof(la_real) * 2 * (size_t)k * n + wbytes);
  for (j0 = 0; j0 < n; j0 += k) {
    int kk = n - j0 < k ? n - j0 : k;
    memset(v, 0, sizeof(la_real) * (size_t)kk * (size_t)n);
    for (j = 0; j < kk; ++j) v[(size_t)j * n + j0 + j] = 1;
    if (la_model_hmp(m, theta, &b, kk, v, NULL, NULL, hv, work, wbytes) != LA_OK)
      return 24;
    for (j = 0; j < kk; ++j) diag[j0 + j] = (double)hv[(size_t)j * n + j0 + j];
  }
  if (la_rcond_diag(n, diag, LA_MEDIAN_LOWER, r, rwork,
                    sizeof(double) * 3 * (size_t)n) != LA_OK)
    return 25;
  return 0;
}

int main(void) {
  la_model_config mc = {0};
  la_data_config dc = {0};
  la_model m;
  la_data g;
  double before = 0, after = 0, r = 0;
  int st;
  mc.d = dc.d = D;
  mc.n = dc.n = N;
  board_puts("linattn bare metal: ");
  board_puts(la_backend_name());
  board_puts(sizeof(la_real) == 4 ? ", float\n" : ", double\n");
  if (la_model_init(&m, &mc) != LA_OK || m.nparams > MAX_PARAMS) return 2;
  if (la_data_bytes(&dc) > sizeof data_mem ||
      la_data_init(&g, &dc, 1, data_mem, sizeof data_mem) != LA_OK)
    return 3;
  put_count("parameters", (unsigned long long)m.nparams);
  if ((st = train(&m, &g, &before, &after)) != 0) return st;
  put_real("eval loss before", before);
  put_real("eval loss after", after);
  if ((st = measure_r(&m, &g, &r)) != 0) return st;
  put_real("R = max|H_ii| / median|H_ii|", r);
  return after < 0.5 * before ? 0 : 1;
}
