/* The test runner: every suite of the library in one binary, so the same
   binary runs on a host, under qemu and valgrind. `tests NAME` runs only the
   tests whose name contains NAME. */
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "la_test.h"
#include "test_util.h"

#include "test_kernels.c"
#ifndef LA__SKIP_PROMPTS
#include "test_prompts.c"
#endif
#ifndef LA__SKIP_MODEL
#include "test_model.c"
#endif
#ifndef LA__SKIP_OPTIM
#include "test_optim.c"
#endif
#ifndef LA__SKIP_DIAG
#include "test_diag.c"
#endif
#ifndef LA__SKIP_TRAIN
#include "test_train.c"
#endif

static const la_suite suites[] = {
    {"kernels", suite_kernels},
#ifndef LA__SKIP_PROMPTS
    {"prompts", suite_prompts},
#endif
#ifndef LA__SKIP_MODEL
    {"model", suite_model},
#endif
#ifndef LA__SKIP_OPTIM
    {"optim", suite_optim},
#endif
#ifndef LA__SKIP_DIAG
    {"diag", suite_diag},
#endif
#ifndef LA__SKIP_TRAIN
    {"train", suite_train},
#endif
};

int main(int argc, char **argv) {
  printf("linattn %s, backend %s, %s\n", la_version_string(), la_backend_name(),
         sizeof(la_real) == 8 ? "double" : "float");
  return la_t_run(suites, (int)(sizeof suites / sizeof suites[0]),
                  argc > 1 ? argv[1] : NULL);
}
