/* The soak run's second half (tests/fuzz/soak.c, `make soak`): the linattn
   command's file handling under random paths. Each round builds a scratch
   folder of files, folders, FIFOs, symbolic and hard links (to nothing, in
   a loop, to a file no command names), devices, names with newlines and
   escape sequences, stale temporaries of dead processes and outputs on a
   small tmpfs filled to a random level (where mounting is permitted; else
   a random file size limit stands in for the full disk), then runs one
   random train, noise, curvature, report or sweep over paths drawn from
   them, under ASan and UBSan, with a time limit. Its contract:
     - it ends by itself, with a status of the table, 3 (a file could not
       be written) only where an output could fill a disk;
     - stderr is lines that start with "linattn" and hold no control byte;
     - a status of 2 (bad input) from train, noise, curvature or report
       leaves every file and folder as it was;
     - no file that the command does not name as an output (through links
       too) changes, and no temporary is left behind;
     - a stale temporary of a dead process beside an output written is gone;
     - at status 0 a train's output ends in its summary and its checkpoint
       loads. */
#ifndef SOAK_CLI_H
#define SOAK_CLI_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct cli_tally {
  long rounds, by_status[6], full_disk, timeouts;
  int tmpfs;
} cli_tally;
static cli_tally CT;

#define SC_MAXF 512 /* entries of a snapshot */
typedef struct sc_entry {
  char path[512];
  mode_t mode;
  dev_t dev;
  ino_t ino;
  off_t size;
  long long mtime_ns;
  uint64_t hash;
  char link[256];
} sc_entry;
typedef struct sc_snap {
  sc_entry e[SC_MAXF];
  int n;
} sc_snap;

static uint64_t sc_hash_file(const char *path) {
  uint64_t h = 14695981039346656037ull;
  unsigned char buf[4096];
  size_t got;
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    size_t i;
    for (i = 0; i < got; ++i) h = (h ^ buf[i]) * 1099511628211ull;
  }
  (void)fclose(f);
  return h;
}

/* Every entry under dir (links not followed, FIFOs not opened); it
   recurses once per level, at most 6. */
static void sc_walk(sc_snap *s, const char *dir, int depth) { /* NOLINT(misc-no-recursion) */
  DIR *d = opendir(dir);
  struct dirent *e;
  if (!d) return;
  while ((e = readdir(d)) != NULL && s->n < SC_MAXF) {
    sc_entry *x = &s->e[s->n];
    struct stat st;
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (snprintf(x->path, sizeof x->path, "%s/%s", dir, e->d_name) >= (int)sizeof x->path)
      continue;
    if (lstat(x->path, &st) != 0) continue;
    x->mode = st.st_mode;
    x->dev = st.st_dev;
    x->ino = st.st_ino;
    x->size = st.st_size;
    x->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    x->hash = S_ISREG(st.st_mode) ? sc_hash_file(x->path) : 0;
    x->link[0] = 0;
    if (S_ISLNK(st.st_mode)) {
      ssize_t k = readlink(x->path, x->link, sizeof x->link - 1);
      x->link[k > 0 ? k : 0] = 0;
    }
    s->n++;
    if (S_ISDIR(st.st_mode) && depth < 6) sc_walk(s, x->path, depth + 1);
  }
  (void)closedir(d);
}

static const sc_entry *sc_find(const sc_snap *s, const char *path) {
  int i;
  for (i = 0; i < s->n; ++i)
    if (!strcmp(s->e[i].path, path)) return &s->e[i];
  return NULL;
}

static int sc_same(const sc_entry *a, const sc_entry *b) {
  if (a->mode != b->mode) return 0;
  if (S_ISLNK(a->mode)) return !strcmp(a->link, b->link);
  if (S_ISDIR(a->mode)) return 1; /* its entries are compared one by one */
  return a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
         a->hash == b->hash;
}

static int sc_is_tmp(const char *path) {
  const char *base = strrchr(path, '/');
  return strstr(base ? base : path, ".tmp.") != NULL;
}

/* ------------------------------------------------------------ one round */
typedef struct sc_round {
  const char *bin;
  char root[512]; /* the scratch folder; the command runs in root/case */
  char full[600]; /* the small tmpfs, or "" */
  const char *argv[64];
  int argc;
  /* what the command names: outputs (files), output folders, inputs */
  const char *outs[4], *dirs[2], *ins[4];
  int nouts, ndirs, nins, cmd;
  long fsize; /* a file size limit in bytes (0: none) */
  char stale[256]; /* a dead process's temporary beside an output */
  const char *stale_of;
} sc_round;

enum { SC_TRAIN, SC_NOISE, SC_CURV, SC_REPORT, SC_SWEEP, SC_NCMD };
static const char *const sc_cmd_name[SC_NCMD] = {"train", "noise", "curvature", "report",
                                                 "sweep"};

/* Paths a round draws from, relative to the case folder. */
static const char *const sc_files[] = {
    "out.jsonl", "out2.jsonl", "new/deep/out.jsonl", "x/../y.jsonl", "./out.jsonl",
    "afile", "afile/sub.jsonl", "adir", "adir/", "fifo", "link-afile", "link-ckpt",
    "link-adir", "dangling", "loop", "hard-ckpt", "c.ckpt", "bad.ckpt", "r1.jsonl",
    "/dev/null", "/dev/full", "/dev/zero", "we\nird.jsonl", "esc\033[2J.jsonl",
    "it's.jsonl", "../full/out.jsonl", "../full/c.ckpt", "../full/o.svg", "-", "",
    "out.svg", "o.json", "sub/../out.svg"};
#define SC_NFILES ((int)(sizeof sc_files / sizeof sc_files[0]))
static const char *const sc_ckpts[] = {"c.ckpt", "bad.ckpt", "link-ckpt", "hard-ckpt",
                                       "fifo", "adir", "/dev/zero", "dangling", "loop",
                                       "missing.ckpt", "afile", "../full/c.ckpt"};
#define SC_NCKPTS ((int)(sizeof sc_ckpts / sizeof sc_ckpts[0]))
static const char *const sc_inputs[] = {"r1.jsonl", "runs", "afile", "adir", "r2.jsonl",
                                        "link-afile", "missing.jsonl", "bad.ckpt",
                                        "rep/report.md", "we\nird.jsonl"};
#define SC_NINPUTS ((int)(sizeof sc_inputs / sizeof sc_inputs[0]))
static const char *const sc_dirs[] = {"rep", "rep", "new/rep", "adir", "afile", "afile/x",
                                      "../full/rep", "esc\033[2J", "runs", "fifo", ""};
#define SC_NDIRS ((int)(sizeof sc_dirs / sizeof sc_dirs[0]))

/* The small model of every round: quick steps. */
static const char *const sc_small[] = {"--d", "3", "--n", "5", "--batch", "16",
                                       "--eval-batch", "16", "--eval-every", "2",
                                       "--diag-batch", "8", NULL};

/* A fixed shell command over the scratch folder (mkdir, cp, rm, mount):
   the command line is this file's, with only the scratch paths put in. */
static int sc_sh(const char *fmt, const char *a, const char *b) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, fmt, a, b);
  return system(cmd); /* NOLINT(cert-env33-c) */
}

/* execv with argv as it takes it (char *const[], which C cannot convert
   from const char *const[] without a cast): argv ends in NULL, at most 63
   words. Returns only on failure. */
static void sc_execv(const char *const *argv) {
  char *av[64];
  size_t n = 0;
  while (argv[n] && n < 63) ++n;
  memcpy(av, argv, sizeof(char *) * n);
  av[n] = NULL;
  execv(av[0], av);
}

/* A command of the program run to completion in dir (output discarded):
   0 when it exits 0. */
static int sc_exec_quiet(const char *dir, const char *const *argv) {
  pid_t p = fork();
  int ws;
  if (p == 0) {
    int null = open("/dev/null", O_RDWR);
    if (chdir(dir) != 0 || null < 0) _exit(127);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    sc_execv(argv);
    _exit(127);
  }
  if (p < 0 || waitpid(p, &ws, 0) != p) return -1;
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static void sc_put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    (void)fclose(f);
  }
}

/* The files every round starts from, made once in root/base by the
   command itself: a run's JSON lines and its checkpoint. */
static int sc_prepare(const sc_round *R) {
  char base[600], ckpt[700], out[700];
  const char *argv[32];
  int k = 0, i;
  snprintf(base, sizeof base, "%s/base", R->root);
  if (sc_sh("mkdir -p '%s'%s", base, "") != 0) return -1;
  snprintf(ckpt, sizeof ckpt, "%s/c.ckpt", base);
  snprintf(out, sizeof out, "%s/r1.jsonl", base);
  argv[k++] = R->bin;
  argv[k++] = "train";
  for (i = 0; sc_small[i]; ++i) argv[k++] = sc_small[i];
  argv[k++] = "--steps";
  argv[k++] = "4";
  argv[k++] = "--checkpoint";
  argv[k++] = ckpt;
  argv[k++] = "--out";
  argv[k++] = out;
  argv[k] = NULL;
  return sc_exec_quiet(base, argv);
}

/* A fresh case folder: the pool of paths, with a dead process's
   temporary beside out.jsonl. */
static void sc_populate(rnd *r, sc_round *R, pid_t dead, const char *host) {
  char c[600];
  snprintf(c, sizeof c, "%s/case", R->root);
  (void)sc_sh("rm -rf '%s' && mkdir -p '%s'", c, c);
  if (chdir(c) != 0) return;
  (void)sc_sh("cp ../base/c.ckpt ../base/r1.jsonl .%s%s", "", "");
  (void)sc_sh("cp r1.jsonl r2.jsonl && cp c.ckpt bad.ckpt && mkdir -p runs adir rep%s%s", "", "");
  (void)sc_sh("cp r1.jsonl runs/a.jsonl && printf '{\"type\":\"step\"}\\n' > runs/b.jsonl%s%s",
              "", "");
  { /* a corrupted copy: a random byte flipped */
    FILE *f = fopen("bad.ckpt", "r+b");
    if (f) {
      long at = rnd_int(r, 0, 4000);
      if (fseek(f, at, SEEK_SET) == 0) fputc(rnd_int(r, 0, 255), f);
      (void)fclose(f);
    }
  }
  sc_put("afile", "precious\n");
  sc_put("we\nird.jsonl", "");
  (void)unlink("we\nird.jsonl");
  if (rnd_chance(r, 0.5)) (void)sc_sh("cp r1.jsonl 'we\nird.jsonl'%s%s", "", "");
  (void)mkfifo("fifo", 0666);
  (void)symlink("afile", "link-afile");
  (void)symlink("c.ckpt", "link-ckpt");
  (void)symlink("adir", "link-adir");
  (void)symlink("nowhere/x", "dangling");
  (void)symlink("loop", "loop");
  (void)link("c.ckpt", "hard-ckpt");
  if (rnd_chance(r, 0.3)) sc_put("rep/report.md", "old report\n");
  snprintf(R->stale, sizeof R->stale, "out.jsonl.tmp.%s.%ld.0123456789abcdef", host,
           (long)dead);
  sc_put(R->stale, "stale\n");
  if (R->full[0]) { /* the tmpfs: emptied, then filled to a random level */
    char fill[700];
    long keep = rnd_int(r, 0, 48) * 1024L + rnd_int(r, 0, 1023);
    (void)sc_sh("rm -rf '%s'/* 2>/dev/null; true%s", R->full, "");
    snprintf(fill, sizeof fill, "%s/filler", R->full);
    {
      FILE *f = fopen(fill, "wb");
      if (f) {
        static const char z[1024];
        long left = 64 * 1024L - keep;
        while (left > 0 && fwrite(z, 1, left > 1024 ? 1024 : (size_t)left, f) > 0) left -= 1024;
        (void)fclose(f);
      }
    }
    if (rnd_chance(r, 0.5)) (void)sc_sh("cp c.ckpt '%s'/c.ckpt 2>/dev/null; true%s", R->full, "");
  }
}

/* Paths that work, so that half the rounds get past their checks. */
static const char *const sc_good[] = {"out.jsonl", "out2.jsonl", "new/deep/out.jsonl",
                                      "../full/out.jsonl", "o.json", "out.svg",
                                      "link-afile", "./out.jsonl", "it's.jsonl",
                                      "esc\033[2J.jsonl"};
static const char *sc_pick(rnd *r, const char *const *pool, int n) {
  if (pool == sc_files && rnd_chance(r, 0.5))
    return sc_good[rnd_int(r, 0, (int)(sizeof sc_good / sizeof sc_good[0]) - 1)];
  if (pool == sc_ckpts && rnd_chance(r, 0.5)) return "c.ckpt";
  return pool[rnd_int(r, 0, n - 1)];
}

static void sc_add(sc_round *R, const char *a) {
  if (R->argc < 62) R->argv[R->argc++] = a;
}

/* A random command over the pool. */
static void sc_draw(rnd *r, sc_round *R) {
  static char steps[16], every[16];
  int i;
  R->argc = R->nouts = R->ndirs = R->nins = 0;
  R->stale_of = NULL;
  R->fsize = !R->full[0] && rnd_chance(r, 0.3) ? rnd_int(r, 512, 6000) : 0;
  R->cmd = rnd_int(r, 0, SC_NCMD - 1);
  sc_add(R, R->bin);
  sc_add(R, sc_cmd_name[R->cmd]);
  if (R->cmd != SC_REPORT)
    for (i = 0; sc_small[i]; ++i) sc_add(R, sc_small[i]);
  snprintf(steps, sizeof steps, "%d", rnd_int(r, 1, 8));
  switch (R->cmd) {
  case SC_TRAIN: {
    /* both outputs on the small disk, or drawn from the pool: one flag
       each, so that every output named is one the command writes */
    int full = R->full[0] && rnd_chance(r, 0.2);
    sc_add(R, "--steps");
    sc_add(R, steps);
    if (full) {
      sc_add(R, "--out");
      sc_add(R, R->outs[R->nouts++] = "../full/out.jsonl");
      sc_add(R, "--checkpoint");
      sc_add(R, R->outs[R->nouts++] = "../full/ck.ckpt");
      sc_add(R, "--checkpoint-every");
      sc_add(R, "1");
    }
    if (!full && rnd_chance(r, 0.8)) {
      sc_add(R, "--out");
      sc_add(R, R->outs[R->nouts++] = sc_pick(r, sc_files, SC_NFILES));
    }
    if (!full && rnd_chance(r, 0.6)) {
      sc_add(R, "--checkpoint");
      sc_add(R, R->outs[R->nouts++] = rnd_chance(r, 0.3) ? sc_pick(r, sc_ckpts, SC_NCKPTS)
                                                         : sc_pick(r, sc_files, SC_NFILES));
      if (rnd_chance(r, 0.3)) {
        snprintf(every, sizeof every, "%d", rnd_int(r, 1, 3));
        sc_add(R, "--checkpoint-every");
        sc_add(R, every);
      }
    }
    if (rnd_chance(r, 0.4)) {
      sc_add(R, "--resume");
      sc_add(R, R->ins[R->nins++] = sc_pick(r, sc_ckpts, SC_NCKPTS));
    }
    if (rnd_chance(r, 0.1)) { /* a run that diverges */
      sc_add(R, "--opt");
      sc_add(R, "sgd");
      sc_add(R, "--lr");
      sc_add(R, "1e5");
      sc_add(R, "--clip");
      sc_add(R, "0");
    }
    break;
  }
  case SC_NOISE:
  case SC_CURV:
    if (R->cmd == SC_NOISE) {
      static const char *const a[] = {"--samples", "4", "--minibatch", "5",
                                      "--true-batch", "20", "--bins", "3", NULL};
      for (i = 0; a[i]; ++i) sc_add(R, a[i]);
    } else {
      static const char *const a[] = {"--top", "2", "--probes", "2", "--slq-steps", "4",
                                      "--grid", "8", NULL};
      for (i = 0; a[i]; ++i) sc_add(R, a[i]);
    }
    if (rnd_chance(r, 0.6)) {
      sc_add(R, "--at");
      sc_add(R, R->ins[R->nins++] = sc_pick(r, sc_ckpts, SC_NCKPTS));
    }
    if (rnd_chance(r, 0.8)) {
      sc_add(R, "--out");
      sc_add(R, R->outs[R->nouts++] = sc_pick(r, sc_files, SC_NFILES));
    }
    if (rnd_chance(r, 0.5)) {
      sc_add(R, "--svg");
      sc_add(R, R->outs[R->nouts++] = sc_pick(r, sc_files, SC_NFILES));
    }
    break;
  case SC_REPORT: {
    int k = rnd_int(r, 1, 3);
    for (i = 0; i < k; ++i) sc_add(R, R->ins[R->nins++] = sc_pick(r, sc_inputs, SC_NINPUTS));
    sc_add(R, "--out-dir");
    sc_add(R, R->dirs[R->ndirs++] = sc_pick(r, sc_dirs, SC_NDIRS));
    break;
  }
  default:
    sc_add(R, "--seed");
    sc_add(R, "1,2");
    sc_add(R, "--opt");
    sc_add(R, "adam");
    sc_add(R, "--steps");
    sc_add(R, "2");
    sc_add(R, "--out-dir");
    sc_add(R, R->dirs[R->ndirs++] = sc_pick(r, sc_dirs, SC_NDIRS));
    if (rnd_chance(r, 0.7)) {
      sc_add(R, "--jobs");
      sc_add(R, rnd_chance(r, 0.5) ? "1" : "2");
    }
    break;
  }
  R->argv[R->argc] = NULL;
  for (i = 0; i < R->nouts; ++i)
    if (!strcmp(R->outs[i], "out.jsonl") || !strcmp(R->outs[i], "./out.jsonl"))
      R->stale_of = R->outs[i];
}

/* A helper process at a FIFO the command may write or read: it reads all
   there is, or writes a run's lines, so that neither end waits forever. */
static pid_t sc_fifo_peer(int write_side) {
  pid_t p = fork();
  if (p == 0) {
    int fd = open("fifo", write_side ? O_WRONLY : O_RDONLY);
    char buf[4096];
    if (fd < 0) _exit(0);
    if (write_side) {
      FILE *f = fopen("r1.jsonl", "r");
      size_t got;
      while (f && (got = fread(buf, 1, sizeof buf, f)) > 0)
        if (write(fd, buf, got) < 0) break;
      if (f) (void)fclose(f);
    } else {
      while (read(fd, buf, sizeof buf) > 0) {
      }
    }
    _exit(0);
  }
  return p;
}

static int sc_names(const sc_round *R, const char *path) {
  int i;
  for (i = 0; i < R->nouts; ++i)
    if (!strcmp(R->outs[i], path)) return 1;
  for (i = 0; i < R->nins; ++i)
    if (!strcmp(R->ins[i], path)) return 1;
  return 0;
}

/* Runs the round's command in the case folder: its status (128 + n for a
   signal, -1 when it ran past the time limit), its stderr in err. */
static int sc_run(const sc_round *R, char *err, size_t cap) {
  pid_t p, peer = -1;
  int ws = 0, fd[2], st;
  size_t got = 0;
  double t0;
  if (sc_names(R, "fifo")) peer = sc_fifo_peer(R->cmd == SC_REPORT);
  if (pipe(fd) != 0) return -2;
  p = fork();
  if (p == 0) {
    int null = open("/dev/null", O_RDWR);
    close(fd[0]);
    dup2(null, 0);
    dup2(null, 1);
    dup2(fd[1], 2);
    if (R->fsize) { /* SIGXFSZ as a user's shell leaves it: the program's to handle */
      struct rlimit rl;
      rl.rlim_cur = rl.rlim_max = (rlim_t)R->fsize;
      (void)setrlimit(RLIMIT_FSIZE, &rl);
    }
    setenv("ASAN_OPTIONS", "exitcode=99:detect_leaks=1", 1);
    setenv("UBSAN_OPTIONS", "exitcode=99:print_stacktrace=1", 1);
    setenv("LSAN_OPTIONS", "exitcode=98", 1);
    sc_execv(R->argv);
    _exit(127);
  }
  close(fd[1]);
  fcntl(fd[0], F_SETFL, O_NONBLOCK);
  t0 = (double)time(NULL);
  st = -1;
  while (1) {
    ssize_t k = read(fd[0], err + got, cap - 1 - got);
    pid_t w;
    if (k > 0) got += (size_t)k;
    w = waitpid(p, &ws, WNOHANG);
    if (w == p) {
      while ((k = read(fd[0], err + got, cap - 1 - got)) > 0) got += (size_t)k;
      st = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
      break;
    }
    if ((double)time(NULL) - t0 > 120) {
      kill(p, SIGKILL);
      waitpid(p, &ws, 0);
      break;
    }
    if (k <= 0) {
      struct timespec ts = {0, 2000000};
      nanosleep(&ts, NULL);
    }
  }
  close(fd[0]);
  err[got] = 0;
  if (peer > 0) {
    kill(peer, SIGKILL);
    waitpid(peer, NULL, 0);
  }
  return st;
}

static void sc_describe(const sc_round *R, char *buf, size_t cap) {
  size_t u = 0;
  int i;
  buf[0] = 0;
  for (i = 1; i < R->argc && u + 4 < cap; ++i) {
    int w = snprintf(buf + u, cap - u, " [%s]", R->argv[i]);
    if (w < 0 || (size_t)w >= cap - u) break;
    u += (size_t)w;
  }
  if (R->fsize) snprintf(buf + u, cap - u, " (file size limit %ld)", R->fsize);
}

#define SC_CONTRACT(cond, ...)                                                \
  do {                                                                        \
    if (!(cond)) {                                                            \
      char d_[2048];                                                          \
      sc_describe(R, d_, sizeof d_);                                          \
      printf("BROKEN %s:%d: %s: linattn%s: ", __FILE__, __LINE__, #cond, d_); \
      printf(__VA_ARGS__);                                                    \
      printf("\nstderr: %s\n", err);                                         \
      return 1;                                                               \
    }                                                                         \
  } while (0)

/* 1 when path lies under one of the folders the command writes. */
static int sc_under_dirs(const sc_round *R, const char *path) {
  int i;
  for (i = 0; i < R->ndirs; ++i) {
    char pre[600];
    size_t n;
    if (!R->dirs[i][0]) continue;
    n = (size_t)snprintf(pre, sizeof pre, "./%s", R->dirs[i]);
    if (!strncmp(path, pre, n) && (path[n] == '/' || path[n] == 0)) return 1;
    if (!strncmp(R->dirs[i], "../full/", 8)) {
      n = (size_t)snprintf(pre, sizeof pre, "%s/%s", R->full, R->dirs[i] + 8);
      if (!strncmp(path, pre, n) && (path[n] == '/' || path[n] == 0)) return 1;
    }
  }
  return 0;
}

/* The identity (device, inode) of what each output names before the run,
   through links: what the command may replace. */
typedef struct sc_ids {
  dev_t dev[8];
  ino_t ino[8];
  int n;
} sc_ids;

static int sc_allowed(const sc_ids *ids, const sc_entry *e) {
  int i;
  for (i = 0; i < ids->n; ++i)
    if (ids->dev[i] == e->dev && ids->ino[i] == e->ino) return 1;
  return 0;
}

static int sc_round_once(rnd *r, sc_round *R, pid_t dead, const char *host) {
  static sc_snap before, after;
  static char err[65536];
  sc_ids ids;
  int st, i, expect_io = 0, could_write;
  err[0] = 0;
  sc_populate(r, R, dead, host);
  sc_draw(r, R);
  before.n = after.n = 0;
  sc_walk(&before, ".", 0);
  if (R->full[0]) sc_walk(&before, R->full, 0);
  ids.n = 0;
  for (i = 0; i < R->nouts; ++i) {
    struct stat s;
    const char *o = R->outs[i];
    if (!strcmp(o, "/dev/full") || !strncmp(o, "../full/", 8)) expect_io = 1;
    if (stat(o, &s) == 0 && ids.n < 8) {
      ids.dev[ids.n] = s.st_dev;
      ids.ino[ids.n++] = s.st_ino;
    }
  }
  for (i = 0; i < R->ndirs; ++i)
    if (!strncmp(R->dirs[i], "../full", 7)) expect_io = 1;
  if (R->fsize) expect_io = 1;
  st = sc_run(R, err, sizeof err);
  sc_walk(&after, ".", 0);
  if (R->full[0]) sc_walk(&after, R->full, 0);
  CT.rounds++;
  if (st >= 0 && st <= 5) CT.by_status[st]++;
  if (st == 3) CT.full_disk++;

  SC_CONTRACT(st != -1, "ran past 120 s");
  SC_CONTRACT(st >= 0 && st <= 4, "exit status %d (a signal, a sanitizer, or none of the table)", st);
  SC_CONTRACT(st != 4, "out of memory with no limit on memory");
  SC_CONTRACT(st != 3 || expect_io || R->cmd == SC_SWEEP, "I/O failure with room on every disk");
  SC_CONTRACT(st != 1 || R->cmd != SC_REPORT, "report's work cannot fail");
  {
    const char *p = err;
    while (*p) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p), k;
      SC_CONTRACT(!strncmp(p, "linattn", 7), "a line of stderr not the program's");
      for (k = 0; k < len; ++k)
        SC_CONTRACT((unsigned char)p[k] >= 0x20 && p[k] != 0x7f, "a control byte on stderr");
      p += len + (nl ? 1 : 0);
    }
    SC_CONTRACT(st == 0 || err[0], "status %d and nothing said", st);
  }
  /* bad input writes nothing (a sweep's runs write before one fails) */
  could_write = !(st == 2 && R->cmd != SC_SWEEP);
  for (i = 0; i < before.n; ++i) {
    const sc_entry *b = &before.e[i], *a = sc_find(&after, b->path);
    if (!strcmp(b->path + 2, R->stale) || sc_is_tmp(b->path)) continue;
    if (!could_write)
      SC_CONTRACT(a && sc_same(a, b), "%s changed by a command refused", b->path);
    else if (!sc_allowed(&ids, b) && !sc_under_dirs(R, b->path))
      SC_CONTRACT(a && (sc_same(a, b) || S_ISDIR(b->mode)), "%s, named by no output, changed",
                  b->path);
  }
  for (i = 0; i < after.n; ++i) {
    const sc_entry *a = &after.e[i];
    SC_CONTRACT(!sc_is_tmp(a->path) || !strcmp(a->path + 2, R->stale),
                "a temporary left: %s", a->path);
    if (!could_write) SC_CONTRACT(sc_find(&before, a->path) != NULL, "%s made", a->path);
  }
  if (st == 0 && R->stale_of)
    SC_CONTRACT(access(R->stale, F_OK) != 0, "a dead process's temporary left beside %s",
                R->stale_of);
  if (st == 0 && R->cmd == SC_TRAIN) {
    const char *out = NULL, *ck = NULL;
    for (i = 1; i + 1 < R->argc; ++i) {
      if (!strcmp(R->argv[i], "--out")) out = R->argv[i + 1];
      if (!strcmp(R->argv[i], "--checkpoint")) ck = R->argv[i + 1];
    }
    if (out && strcmp(out, "-") != 0) {
      struct stat s;
      if (stat(out, &s) == 0 && S_ISREG(s.st_mode)) {
        char line[8192] = "", last[8192] = "";
        FILE *f = fopen(out, "r");
        while (f && fgets(line, sizeof line, f)) memcpy(last, line, sizeof last);
        if (f) (void)fclose(f);
        SC_CONTRACT(strstr(last, "\"type\":\"summary\""), "%s does not end in a summary", out);
      }
    }
    if (ck) {
      size_t len = 0;
      FILE *f = fopen(ck, "rb");
      static unsigned char buf[1 << 16];
      if (f) {
        len = fread(buf, 1, sizeof buf, f);
        (void)fclose(f);
      }
      SC_CONTRACT(f && la_checkpoint_info(buf, len, NULL, NULL) == LA_OK,
                  "checkpoint %s does not load", ck);
    }
  }
  return 0;
}

/* The rounds until `seconds` have passed; 1 at the first broken contract. */
static int soak_cli(double seconds, rnd *r, const char *bin) {
  sc_round R;
  char cwd[512], host[64] = "", *p;
  pid_t dead;
  time_t start = time(NULL);
  int broken = 0;
  memset(&R, 0, sizeof R);
  memset(&CT, 0, sizeof CT);
  R.bin = bin;
  if (!getcwd(cwd, sizeof cwd)) return 1;
  snprintf(R.root, sizeof R.root, "%s/build/soak-cli", cwd);
  (void)sc_sh("umount '%s/full' 2>/dev/null; rm -rf '%s'", R.root, R.root);
  if (sc_sh("mkdir -p '%s/full'%s", R.root, "") != 0) return 1;
  snprintf(R.full, sizeof R.full, "%s/full", R.root);
  if (sc_sh("mount -t tmpfs -o size=64k tmpfs '%s' 2>/dev/null%s", R.full, "") != 0) {
    printf("soak-cli: mounting a 64 KB tmpfs is not permitted here: full disks are "
           "a file size limit (RLIMIT_FSIZE) and /dev/full instead\n");
    R.full[0] = 0;
  } else {
    CT.tmpfs = 1;
  }
  if (sc_prepare(&R) != 0) {
    printf("soak-cli: %s train did not make the base files\n", bin);
    broken = 1;
  }
  /* a process that is no more, and this host's name as the program writes it */
  if ((dead = fork()) == 0) _exit(0);
  waitpid(dead, NULL, 0);
  if (gethostname(host, sizeof host) != 0) host[0] = 0;
  host[sizeof host - 1] = 0;
  if ((p = strchr(host, '.')) != NULL) *p = 0;
  { /* letters, digits and '-', at most 32 */
    size_t i, n = 0;
    for (i = 0; host[i] && n < 32; ++i)
      if (isalnum((unsigned char)host[i]) || host[i] == '-') host[n++] = host[i];
    host[n] = 0;
  }
  if (!host[0]) snprintf(host, sizeof host, "host");
  printf("soak-cli: %g s, %s\n", seconds, bin);
  (void)fflush(stdout);
  while (!broken && difftime(time(NULL), start) < seconds)
    broken = sc_round_once(r, &R, dead, host);
  if (chdir(cwd) != 0) broken = 1;
  printf("soak-cli: %ld rounds; exit statuses 0: %ld, 1: %ld, 2: %ld, 3: %ld, 4: %ld; "
         "full disks: %s\n",
         CT.rounds, CT.by_status[0], CT.by_status[1], CT.by_status[2], CT.by_status[3],
         CT.by_status[4], CT.tmpfs ? "a 64 KB tmpfs" : "file size limits");
  if (!broken) { /* clean: the scratch folder and the mount go */
    if (CT.tmpfs) (void)sc_sh("umount '%s'%s", R.full, "");
    (void)sc_sh("rm -rf '%s'%s", R.root, "");
  } else if (CT.tmpfs) {
    printf("soak-cli: the failing round is kept in %s/case (umount %s when done)\n",
           R.root, R.full);
  }
  printf("%d broken contracts\n", broken);
  return broken;
}

#endif /* SOAK_CLI_H */
