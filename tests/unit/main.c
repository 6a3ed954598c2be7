/* The test runner: every suite of the library in one binary, so the same
   binary runs on a host, under qemu and valgrind. `tests NAME[,NAME...]`
   runs only the tests whose name contains one of the NAMEs. */
/* POSIX, for the checkpoint files' exclusive creation and the tests of
   links, FIFOs and folders (tests/unit/test_run.c). */
#define _POSIX_C_SOURCE 200809L /* NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
/* 32-bit hosts read folders of 64-bit inodes (qemu-arm on a 64-bit
   file system) only with 64-bit offsets */
#define _FILE_OFFSET_BITS 64 /* NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
/* -DLA_TEST_ASSERT (the sanitizer configurations): the header's internal
   consistency checks on, each carving of a workspace held to its size */
#ifdef LA_TEST_ASSERT
#include <assert.h>
#define LINATTN_ASSERT(x) assert(x)
#endif
#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"
#include "la_test.h"
#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#include "msan_stat.h"
#endif
#endif
#include "test_util.h"

#include "test_kernels.c"
#include "test_prompts.c"
#include "test_model.c"
#include "test_family.c"
#include "test_optim.c"
#include "test_diag.c"
#include "test_train.c"
#include "test_run.c"
#include "test_selectors.c"
#include "test_args.c"
#include "test_threads.c"
#include "test_paperb.c"

static const la_suite suites[] = {
    {"kernels", suite_kernels},
    {"prompts", suite_prompts},
    {"model", suite_model},
    {"family", suite_family},
    {"optim", suite_optim},
    {"diag", suite_diag},
    {"train", suite_train},
    {"run", suite_run},
    {"selectors", suite_selectors},
    {"args", suite_args},
    {"threads", suite_threads},
    {"paperb", suite_paperb},
};

int main(int argc, char **argv) {
  printf("linattn %s, backend %s, %s\n", la_version_string(), la_backend_name(),
         sizeof(la_real) == 8 ? "double" : "float");
  /* LA_TEST_TIMES=1: each test's CPU seconds, to find what makes the slow
     configurations (valgrind, qemu) slow */
  const char *times = getenv("LA_TEST_TIMES"), *light = getenv("LA_TEST_LIGHT");
  return la_t_run(suites, (int)(sizeof suites / sizeof suites[0]),
                  argc > 1 ? argv[1] : NULL, times && *times == '1',
                  light && *light == '1');
}
