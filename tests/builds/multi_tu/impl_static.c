/* A second, private copy of the implementation, as a library that embeds
   linattn.h would have: LINATTN_STATIC keeps its symbols from clashing with
   impl.c's. It reports its own view through one extern function. */
#define LINATTN_STATIC
#define LINATTN_IMPLEMENTATION
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

int multi_tu_static_version(void) { return la_version(); }
double multi_tu_static_dot(void) {
  la_real x[3] = {1, 2, 3};
  return la_dot(3, x, x);
}
