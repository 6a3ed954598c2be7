/* MemorySanitizer sees only the code it instrumented: glibc 2.33 and later
   export the stat family as functions of their own (stat64, lstat64 and
   fstat64 here: tests/unit/main.c asks for 64-bit offsets), which clang 14's
   MSan does not intercept, so the struct they fill reads as uninitialized.
   The msan configuration links with --wrap for the three (MSAN in the
   Makefile): these wrappers mark the struct written where the call
   succeeded, as an interceptor would. Included by tests/unit/main.c only under MSan. */
#ifndef LA_TEST_MSAN_STAT_H
#define LA_TEST_MSAN_STAT_H
#include <sanitizer/msan_interface.h>
#include <sys/stat.h>

#define LA_MSAN_WRAP(name, arg)                                            \
  int __real_##name(arg, struct stat *s);                                  \
  int __wrap_##name(arg, struct stat *s);                                  \
  int __wrap_##name(arg, struct stat *s) {                                 \
    int r = __real_##name(a, s);                                           \
    if (r == 0) __msan_unpoison(s, sizeof *s);                             \
    return r;                                                              \
  }
LA_MSAN_WRAP(stat64, const char *a)
LA_MSAN_WRAP(lstat64, const char *a)
LA_MSAN_WRAP(fstat64, int a)
#undef LA_MSAN_WRAP
#endif
