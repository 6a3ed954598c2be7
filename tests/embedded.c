/* A bare-metal program: the library without malloc or stdio, its memory a
   static arena. Built for Cortex-M4F in `make test` to prove the header
   compiles and links there; the result is returned, not printed. */
#define LINATTN_IMPLEMENTATION
#include "linattn.h"

#define COUNT 16
static la_real plain_a[COUNT * 6 * 6], plain_b[COUNT * 6 * 21];
static la_real panel_a[2 * 6 * 6 * LA_W], panel_b[2 * 6 * 21 * LA_W];
static la_real panel_c[2 * 6 * 21 * LA_W];

int main(void) {
  int i, st = 0;
  for (i = 0; i < COUNT * 36; ++i) plain_a[i] = (la_real)(i % 7) - 3;
  for (i = 0; i < COUNT * 126; ++i) plain_b[i] = (la_real)(i % 5) - 2;
  st |= la_pack(COUNT, 6, 6, plain_a, panel_a);
  st |= la_pack(COUNT, 6, 21, plain_b, panel_b);
  st |= la_bgemm(0, 6, 21, 6, 1, panel_a, 6 * 6 * LA_W, panel_b,
                 6 * 21 * LA_W, panel_c, 6 * 21 * LA_W, la_panels(COUNT));
  return st != LA_OK || la_nrm2(6 * 21 * LA_W, panel_c) <= 0;
}
