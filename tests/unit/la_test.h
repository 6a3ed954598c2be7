/* A small test harness: explicit registration, no malloc, runs on a board.
   A suite is a function that runs tests; a test is a block between
   LA_BEGIN and LA_END whose checks record failures with file and line. */
#ifndef LA_TEST_H
#define LA_TEST_H
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct la_t {
  int passed, failed; /* tests */
  int checks_failed;  /* failed checks of the current test */
  const char *test;   /* name of the current test */
  const char *filter; /* run only tests whose name contains this */
  int skipping;
  int timing;         /* print each test's CPU seconds (LA_TEST_TIMES) */
  /* LA_TEST_LIGHT: under an emulator, valgrind or the sanitizers (from
     3 to 50 times slower), the few tests that repeat one computation many
     times do fewer repetitions; every code path is still met, and the
     other native configurations of the matrix run them in full */
  int light;
  clock_t started;
} la_t;

typedef struct la_suite {
  const char *name;
  void (*run)(la_t *t);
} la_suite;

/* Whether name contains one of the comma-separated words of filter. */
static int la_t_selected(const char *name, const char *filter) {
  while (filter) {
    const char *end = strchr(filter, ',');
    size_t len = end ? (size_t)(end - filter) : strlen(filter), i;
    for (i = 0; len && name[i]; ++i)
      if (!strncmp(name + i, filter, len)) return 1;
    filter = end ? end + 1 : NULL;
  }
  return 0;
}

static int la_t_begin(la_t *t, const char *name) {
  t->test = name;
  t->checks_failed = 0;
  t->skipping = t->filter && !la_t_selected(name, t->filter);
  if (t->timing) t->started = clock();
  return !t->skipping;
}

static void la_t_end(la_t *t) {
  if (t->skipping) return;
  if (t->timing)
    printf("TIME %8.3f %s\n", (double)(clock() - t->started) / CLOCKS_PER_SEC,
           t->test);
  if (t->checks_failed) {
    t->failed++;
    printf("FAIL %s\n", t->test);
  } else {
    t->passed++;
  }
}

/* A test: LA_TEST(t, "name") { ...checks... } */
#define LA_TEST(t, name)                                                      \
  for (int la__once = la_t_begin((t), (name)); la__once;                      \
       la__once = 0, la_t_end(t))

#define LA_CHECK(t, cond, ...)                                                \
  do {                                                                        \
    if (!(cond)) {                                                            \
      (t)->checks_failed++;                                                   \
      if ((t)->checks_failed <= 5) {                                          \
        printf("  %s:%d: %s: check failed: %s: ", __FILE__, __LINE__,         \
               (t)->test, #cond);                                             \
        printf(__VA_ARGS__);                                                  \
        printf("\n");                                                         \
      }                                                                       \
    }                                                                         \
  } while (0)

/* Normalized squared error sum (a-b)^2 / sum b^2, the measure backends are
   held to against their reference (0 when both are all zero). */
static double la_t_nse(size_t n, const void *a_, const void *b_, int dbl) {
  double num = 0, den = 0;
  size_t i;
  for (i = 0; i < n; ++i) {
    double a = dbl ? ((const double *)a_)[i] : ((const float *)a_)[i];
    double b = dbl ? ((const double *)b_)[i] : ((const float *)b_)[i];
    num += (a - b) * (a - b);
    den += b * b;
  }
  if (num != num) return INFINITY;
  return den > 0 ? num / den : num;
}
#define LA_NSE(n, a, b) la_t_nse((n), (a), (b), sizeof(*(a)) == sizeof(double))

/* Tolerance of a normalized squared error for this precision. */
#ifdef LINATTN_DOUBLE
#define LA_T_NSE_TOL 1e-24
#else
#define LA_T_NSE_TOL 1e-10
#endif

static int la_t_run(const la_suite *suites, int nsuites, const char *filter,
                    int timing, int light) {
  la_t t;
  int i;
  memset(&t, 0, sizeof t);
  t.filter = filter;
  t.timing = timing;
  t.light = light;
  if (light) printf("light: fewer repetitions in the longest tests\n");
  for (i = 0; i < nsuites; ++i) suites[i].run(&t);
  printf("%d passed, %d failed\n", t.passed, t.failed);
  return t.failed ? 1 : 0;
}
#endif
