/* The test runner: every suite of the library in one binary, so the same
   binary runs on a host, under qemu and valgrind. `tests NAME` runs only the
   tests whose name contains NAME. */
#define LINATTN_IMPLEMENTATION
#include "../linattn.h"
#include "la_test.h"
#include "test_util.h"

#include "test_kernels.c"
#include "test_prompts.c"
#include "test_model.c"
#include "test_optim.c"
#include "test_diag.c"
#include "test_train.c"
#include "test_args.c"
#include "test_paperb.c"

static const la_suite suites[] = {
    {"kernels", suite_kernels},
    {"prompts", suite_prompts},
    {"model", suite_model},
    {"optim", suite_optim},
    {"diag", suite_diag},
    {"train", suite_train},
    {"args", suite_args},
    {"paperb", suite_paperb},
};

int main(int argc, char **argv) {
  printf("linattn %s, backend %s, %s\n", la_version_string(), la_backend_name(),
         sizeof(la_real) == 8 ? "double" : "float");
  return la_t_run(suites, (int)(sizeof suites / sizeof suites[0]),
                  argc > 1 ? argv[1] : NULL);
}
