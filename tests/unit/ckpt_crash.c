/* Crash safety of checkpoint replacement: a child process trains and
   saves its checkpoint after every step, resuming from the file when there
   is one; the parent kills it (TerminateProcess on Windows, SIGKILL
   elsewhere) after a random delay, ROUNDS times, and after every kill the
   file must load. A killed save may leave its own temporary (PATH.*.tmp,
   removed here), never a missing or torn PATH. At the end the file's run,
   resumed across every kill, must hold the bits of a run trained without
   a break to the same step.
     ckpt_crash DIR [ROUNDS]     the test (DIR: an existing folder)
     ckpt_crash --child PATH     the child: train, save, forever */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#endif
#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#endif

/* A small run (d = 5, n = 10, L = 3, batch 64): its steps are short, so
   that most kills land in a save. */
static la_run_config crash_config(void) {
  la_run_config c;
  la_run_preset(&c, "1", NULL);
  c.data.d = 5;
  c.data.n = 10;
  c.model.layers = 3;
  c.batch = 64;
  c.eval_batch = 64;
  c.eval_every = 0;
  c.steps = 1000000;
  c.seed = 11;
  return c;
}

static int child(const char *path) {
  la_run_config c = crash_config();
  la_run r;
  const la_run_field *why;
  FILE *f;
  if (la_run_create(&r, &c, NULL) != LA_OK) return 3;
  if ((f = fopen(path, "rb")) != NULL) {
    (void)fclose(f);
    if (la_run_resume(&r, path, &why) != LA_OK) return 4;
  }
  for (;;)
    if (la_trainer_step(&r.trainer) != LA_OK ||
        la_checkpoint_save(&r.trainer, path) != LA_OK)
      return 5;
}

/* Removes the temporaries of saves beside path (PATH.<hex>.tmp in dir);
   their count, -1 when the folder cannot be read. */
static int clean_tmp(const char *dir, const char *base) {
  char name[600];
  int count = 0;
#ifdef _WIN32
  WIN32_FIND_DATAA e;
  HANDLE h;
  (void)snprintf(name, sizeof name, "%s\\%s.*.tmp", dir, base);
  if ((h = FindFirstFileA(name, &e)) == INVALID_HANDLE_VALUE) return 0;
  do {
    (void)snprintf(name, sizeof name, "%s\\%s", dir, e.cFileName);
    count += remove(name) == 0;
  } while (FindNextFileA(h, &e));
  (void)FindClose(h);
#else
  DIR *d = opendir(dir);
  struct dirent *e;
  size_t n = strlen(base);
  if (!d) return -1;
  while ((e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (strncmp(e->d_name, base, n) || l < n + 5 || e->d_name[n] != '.' ||
        strcmp(e->d_name + l - 4, ".tmp"))
      continue;
    (void)snprintf(name, sizeof name, "%s/%s", dir, e->d_name);
    count += remove(name) == 0;
  }
  (void)closedir(d);
#endif
  return count;
}

/* Starts `self --child path`, waits ms milliseconds and kills it; 0 when
   it was running until killed. */
static int run_and_kill(const char *self, const char *path, int ms) {
#ifdef _WIN32
  char cmd[1400];
  STARTUPINFOA si;
  PROCESS_INFORMATION pi;
  DWORD code = 0;
  memset(&si, 0, sizeof si);
  si.cb = sizeof si;
  (void)snprintf(cmd, sizeof cmd, "\"%s\" --child \"%s\"", self, path);
  if (!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
    return -1;
  if (WaitForSingleObject(pi.hProcess, (DWORD)ms) == WAIT_TIMEOUT)
    (void)TerminateProcess(pi.hProcess, 99);
  (void)WaitForSingleObject(pi.hProcess, INFINITE);
  (void)GetExitCodeProcess(pi.hProcess, &code);
  (void)CloseHandle(pi.hThread);
  (void)CloseHandle(pi.hProcess);
  return code == 99 ? 0 : (int)code;
#else
  struct timespec ts;
  int status = 0;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execl(self, self, "--child", path, (char *)NULL);
    _exit(127);
  }
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (long)(ms % 1000) * 1000000L;
  (void)nanosleep(&ts, NULL);
  (void)kill(pid, SIGKILL);
  (void)waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 1;
#endif
}

int main(int argc, char **argv) {
  char path[520];
  const char *base = "crash.ckpt";
  int rounds = argc > 2 ? atoi(argv[2]) : 30, i, failed = 0, loads = 0;
  long step = -1, prev = 0, moved = 0;
  uint64_t rs = 12345;
  if (argc == 3 && !strcmp(argv[1], "--child")) return child(argv[2]);
  if (argc < 2 || rounds < 1) {
    fprintf(stderr, "usage: ckpt_crash DIR [ROUNDS]\n");
    return 2;
  }
  (void)snprintf(path, sizeof path, "%s/%s", argv[1], base);
  (void)remove(path);
  (void)clean_tmp(argv[1], base);
  printf("linattn %s, backend %s, %s\n", la_version_string(), la_backend_name(),
         sizeof(la_real) == 4 ? "float" : "double");
  for (i = 0; i < rounds; ++i) {
    la_run_config c = crash_config();
    la_run r;
    const la_run_field *why;
    int st, left, ms;
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    ms = 200 + (int)((rs >> 33) % 600); /* past a process's start */
    st = run_and_kill(argv[0], path, ms);
    left = clean_tmp(argv[1], base);
    if (st != 0) {
      printf("FAIL round %d: the child ended by itself (%d)\n", i, st);
      ++failed;
      continue;
    }
    if (left > 1) {
      printf("FAIL round %d: %d temporaries left\n", i, left);
      ++failed;
    }
    if (la_run_create(&r, &c, NULL) != LA_OK) return 3;
    st = la_run_resume(&r, path, &why);
    if (st != LA_OK && i > 0) { /* the first child may die before a save */
      printf("FAIL round %d: the checkpoint does not load: %s\n", i, la_status_name(st));
      ++failed;
    } else if (st == LA_OK) {
      ++loads;
      step = r.trainer.step;
      if (step < prev) {
        printf("FAIL round %d: step %ld after %ld\n", i, step, prev);
        ++failed;
      }
      moved += step > prev;
      prev = step;
    }
    la_run_destroy(&r);
  }
  printf("%d kills, %d loads, the file moved on in %ld rounds, at step %ld\n",
         rounds, loads, moved, step);
  if (moved < rounds / 4) {
    printf("FAIL: the children saved too rarely to test anything\n");
    ++failed;
  }
  if (step > 0) { /* resumed across the kills: the bits of one run */
    la_run_config c = crash_config();
    la_run a, b;
    const la_run_field *why;
    int same;
    if (la_run_create(&a, &c, NULL) != LA_OK || la_run_create(&b, &c, NULL) != LA_OK)
      return 3;
    same = la_trainer_run(&a.trainer, step) == LA_OK &&
           la_run_resume(&b, path, &why) == LA_OK && b.trainer.step == step &&
           memcmp(a.trainer.theta, b.trainer.theta,
                  sizeof(la_real) * (size_t)a.trainer.n) == 0;
    /* and they go on alike */
    same = same && la_trainer_run(&a.trainer, 5) == LA_OK &&
           la_trainer_run(&b.trainer, 5) == LA_OK &&
           memcmp(a.trainer.theta, b.trainer.theta,
                  sizeof(la_real) * (size_t)a.trainer.n) == 0;
    if (!same) {
      printf("FAIL: the resumed run differs from one trained without a break\n");
      ++failed;
    }
    la_run_destroy(&a);
    la_run_destroy(&b);
  }
  (void)remove(path);
  printf("%d passed, %d failed\n", failed > rounds ? 0 : rounds + 1 - failed, failed);
  return failed != 0;
}
