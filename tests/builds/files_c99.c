/* The checkpoint files' guarantees in a build without POSIX feature macros
   (-std=c99, the library's own dialect, no _POSIX_C_SOURCE): on a POSIX
   host they are those of a POSIX build. The shell makes the traps (a FIFO,
   a planted link) through system(), the only way ISO C has. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"
/* the harness's numeric helpers are not needed here */
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "../unit/la_test.h"
#include "../unit/test_util.h"

static int sh(const char *fmt, const char *a, const char *b) {
  char cmd[1200];
  (void)snprintf(cmd, sizeof cmd, fmt, a, b);
  return system(cmd);
}

static void suite_files(la_t *t) {
  char dir[256], path[400], fifo[400], victim[400];
  la_data g;
  la_model m;
  la_train_config tc;
  la_trainer tr;
  memset(&tc, 0, sizeof tc);
  tc.model = &m;
  tc.data = &g;
  tc.batch = 8;
  (void)snprintf(dir, sizeof dir, "/tmp/la_files_c99_%lx_%d", (unsigned long)time(NULL),
                 rand());
  (void)snprintf(path, sizeof path, "%s/run.ckpt", dir);
  (void)snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  (void)snprintf(victim, sizeof victim, "%s/victim", dir);
  if (sh("mkdir -p %s && mkfifo %s", dir, fifo) != 0 ||
      sh("echo precious > %s%s", victim, "") != 0 || la_t_small(&g, &m, 1) ||
      la_trainer_create(&tr, &tc) || la_trainer_run(&tr, 2)) {
    printf("FAIL files: setting up\n");
    t->failed++;
    return;
  }
  LA_TEST(t, "files (-std=c99): a FIFO is neither replaced by a save nor waited on by a load") {
    LA_CHECK(t, la_checkpoint_save(&tr, fifo) == LA_EIO, "save over a FIFO");
    LA_CHECK(t, sh("test -p %s%s", fifo, "") == 0, "still a FIFO");
    LA_CHECK(t, la_checkpoint_load(&tr, fifo) == LA_EIO, "load from a FIFO: at once");
    LA_CHECK(t, la_checkpoint_load(&tr, dir) == LA_EIO, "a folder");
  }
  LA_TEST(t, "files (-std=c99): a link planted beside the checkpoint is not written through") {
    char tmp[440];
    (void)snprintf(tmp, sizeof tmp, "%s.tmp", path);
    LA_CHECK(t, sh("ln -s %s %s", victim, tmp) == 0, "planted %s", tmp);
    LA_CHECK(t, la_checkpoint_save(&tr, path) == 0, "saved");
    LA_CHECK(t, sh("grep -qx precious %s%s", victim, "") == 0, "the victim untouched");
    LA_CHECK(t, sh("test -f %s && ! test -L %s", path, path) == 0, "a regular file");
    LA_CHECK(t, la_checkpoint_load(&tr, path) == 0, "loads");
  }
  la_trainer_destroy(&tr);
  la_data_destroy(&g);
  (void)sh("rm -rf %s%s", dir, "");
}

int main(void) {
  static const la_suite suites[] = {{"files", suite_files}};
  return la_t_run(suites, 1, NULL, 0, 0);
}
