/* linattn built apart for bench_peers.cpp, with the flags the Makefile
   gives this file (-O2 -mavx2 -mfma: the library's default x86 build), its
   symbols static so that it links beside the program's own copy of the
   header. One entry point: loss and gradient of the base setting on the
   caller's plain prompts (count prompts of (d+1) x (n+1), row-major), the
   batch packed on the first call with those prompts. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#define LINATTN_STATIC
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"

int peers_lib_grad(int count, const float *z, const float *y,
                   const float *theta, double *loss, float *grad,
                   const char **backend);
int peers_lib_grad(int count, const float *z, const float *y,
                   const float *theta, double *loss, float *grad,
                   const char **backend) {
  static la_model m;
  static la_batch b;
  static void *work;
  static size_t bytes;
  static const float *packed;
  static int packed_count;
  int d = 5, n = 20;
  *backend = la_backend_name();
  if (packed != z || packed_count != count) {
    la_model_config mc;
    int np = la_panels(count);
    memset(&mc, 0, sizeof mc);
    mc.d = d; mc.n = n; mc.layers = 3; mc.param = LA_PARAM_SPARSE;
    mc.activation = LA_ACT_LINEAR; mc.heads = 1;
    if (la_model_init(&m, &mc)) return -1;
    la_free(b.z); la_free(b.y); free(work);
    b.d = d; b.n = n; b.count = count;
    b.z = (la_real *)la_alloc(sizeof(la_real) * (size_t)np * (d + 1) * (n + 1) * LA_W);
    b.y = (la_real *)la_alloc(sizeof(la_real) * (size_t)np * LA_W);
    bytes = la_model_work_bytes(&m);
    work = malloc(bytes);
    if (!b.z || !b.y || !work) return -1;
    la_pack(count, d + 1, n + 1, z, b.z);
    la_pack(count, 1, 1, y, b.y);
    packed = z;
    packed_count = count;
  }
  return la_model_grad(&m, theta, &b, loss, grad, work, bytes);
}
