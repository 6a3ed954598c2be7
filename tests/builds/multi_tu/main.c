/* Uses the extern implementation of impl.c and the static copy of
   impl_static.c from a translation unit that only declares. */
#include <stdio.h>
#include <string.h>
#include "linattn.h"
#include "linattn.h"

#ifdef __cplusplus
extern "C" {
#endif
int multi_tu_static_version(void);
double multi_tu_static_dot(void);
#ifdef __cplusplus
}
#endif

int main(void) {
  la_real x[4] = {1, 2, 3, 4};
  int failed = 0;
  failed += la_version() != LINATTN_VERSION_NUMBER;
  failed += multi_tu_static_version() != la_version();
  failed += la_dot(4, x, x) != 30.0;
  failed += multi_tu_static_dot() != 14.0;
  failed += strcmp(la_status_str(LA_OK), "ok") != 0;
  printf("%d passed, %d failed\n", 5 - failed, failed);
  return failed != 0;
}
