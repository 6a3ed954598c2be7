/* linattn_util.h - the plumbing of examples/linattn.c: one-line errors,
   output files that appear only when complete, folders, the progress line,
   and a pool of child processes that report their progress through a pipe.
   POSIX (fork, waitpid, poll, rename, fsync). */
#ifndef LINATTN_UTIL_H
#define LINATTN_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Exit statuses: 0 done, 1 the work failed (a run diverged, a check was
   off), 2 bad input (flags, files, folders). */
enum { EXIT_BAD_INPUT = 2 };

static int u_fail(int code, const char *fmt, ...) {
  va_list ap;
  fputs("linattn: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return code;
}

static double u_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ------------------------------------------------------------ outputs */
/* A file written under a temporary name and renamed over its own when
   complete; "-" or NULL is stdout. */
typedef struct u_out {
  FILE *f;
  int is_stdout;
  int direct; /* a device or pipe: written in place, never replaced */
  char path[4096], tmp[4200];
} u_out;

/* 1 if path names something other than a regular file (/dev/null, a
   FIFO): renaming a temporary file over it would replace it. */
static int u_special(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

static int u_open(u_out *o, const char *path) {
  memset(o, 0, sizeof *o);
  if (!path || !strcmp(path, "-")) {
    o->f = stdout;
    o->is_stdout = 1;
    return 0;
  }
  if (strlen(path) >= sizeof o->path)
    return u_fail(EXIT_BAD_INPUT, "output path too long: '%.80s...'", path);
  snprintf(o->path, sizeof o->path, "%s", path);
  if (u_special(path)) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
      return u_fail(EXIT_BAD_INPUT, "'%s' is a folder, not a file", path);
    o->direct = 1;
    if (!(o->f = fopen(path, "w")))
      return u_fail(EXIT_BAD_INPUT, "cannot write '%s': %s", path,
                    strerror(errno));
    return 0;
  }
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
  o->f = fopen(o->tmp, "w");
  if (!o->f)
    return u_fail(EXIT_BAD_INPUT, "cannot write '%s': %s", path,
                  strerror(errno));
  return 0;
}

static void u_abort(u_out *o) {
  if (!o->f || o->is_stdout) return;
  /* already failing: the error reported is the first one */
  (void)fclose(o->f);
  if (!o->direct) (void)remove(o->tmp);
  o->f = NULL;
}

static int u_commit(u_out *o) {
  int bad;
  if (!o->f) return 0;
  bad = fflush(o->f) != 0 || ferror(o->f);
  if (o->is_stdout) {
    o->f = NULL;
    return bad ? u_fail(1, "writing to stdout failed") : 0;
  }
  if (o->direct) {
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    return bad ? u_fail(EXIT_BAD_INPUT, "cannot write '%s'", o->path) : 0;
  }
  if (!bad && fsync(fileno(o->f)) != 0 && errno != EINVAL) bad = 1;
  if (fclose(o->f) != 0) bad = 1;
  o->f = NULL;
  if (bad || rename(o->tmp, o->path) != 0) {
    int e = errno;
    (void)remove(o->tmp);
    return u_fail(EXIT_BAD_INPUT, "cannot write '%s': %s", o->path,
                  strerror(e ? e : EIO));
  }
  return 0;
}

/* mkdir -p, then proof that a file can be created inside. */
static int u_mkdirs(const char *dir) {
  char buf[4096], probe[4200];
  size_t i, len = strlen(dir);
  FILE *f;
  if (!len || len >= sizeof buf)
    return u_fail(EXIT_BAD_INPUT, "bad output folder '%.80s'", dir);
  memcpy(buf, dir, len + 1);
  for (i = 1; i <= len; ++i) {
    if (buf[i] == '/' || buf[i] == 0) {
      char c = buf[i];
      struct stat st;
      buf[i] = 0;
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return u_fail(EXIT_BAD_INPUT, "cannot create folder '%s': %s", buf,
                      strerror(errno));
      if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return u_fail(EXIT_BAD_INPUT, "'%s' is not a folder", buf);
      buf[i] = c;
    }
  }
  snprintf(probe, sizeof probe, "%s/.probe.%ld", dir, (long)getpid());
  f = fopen(probe, "w");
  if (!f)
    return u_fail(EXIT_BAD_INPUT, "cannot write into folder '%s': %s", dir,
                  strerror(errno));
  /* the probe was only to be created: closing and removing it may fail
     harmlessly */
  (void)fclose(f);
  (void)remove(probe);
  return 0;
}

/* Reads a whole file (NUL-terminated); NULL with errno set on failure. */
static char *u_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0;
  if (!f) return NULL;
  while (1) {
    size_t got;
    if (n + 4096 + 1 > cap) {
      char *nb = (char *)realloc(buf, cap = (n + 4096 + 1) * 2);
      if (!nb) {
        free(buf);
        (void)fclose(f); /* read only: nothing to lose */
        errno = ENOMEM;
        return NULL;
      }
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    free(buf);
    (void)fclose(f);
    errno = EIO;
    return NULL;
  }
  (void)fclose(f);
  buf[n] = 0;
  if (len) *len = n;
  return buf;
}

/* ------------------------------------------------------------ progress */
/* Steps done of a total, shown on a terminal, or sent to the parent of a
   pool through a pipe (fd >= 0). Quiet otherwise. */
typedef struct u_progress {
  const char *what;
  int tty, fd, job;
  long total, base; /* base: steps done by earlier parts of the work */
  double t0, last;
} u_progress;

typedef struct u_msg {
  int job;
  long done;
} u_msg;

static void u_progress_init(u_progress *p, const char *what, long total) {
  memset(p, 0, sizeof *p);
  p->what = what;
  p->total = total;
  p->fd = -1;
  p->tty = isatty(2);
  p->t0 = p->last = u_now();
}

static void u_progress_line(const char *what, double done, double total,
                            double rate, const char *unit, const char *extra) {
  char left[32] = "";
  if (rate > 0 && total > done) {
    double s = (total - done) / rate;
    if (s < 120) snprintf(left, sizeof left, ", %.0f s left", s);
    else snprintf(left, sizeof left, ", %.1f min left", s / 60);
  }
  fprintf(stderr, "\r\033[K%s: %.0f/%.0f %s%s, %.0f %s/s%s", what, done,
          total, unit, extra ? extra : "", rate, unit, left);
  (void)fflush(stderr); /* a progress line: nothing to do if it fails */
}

static void u_progress_step(u_progress *p, long done) {
  double t = u_now();
  if (t - p->last < 0.2 && done < p->total) return;
  p->last = t;
  if (p->fd >= 0) {
    u_msg m;
    ssize_t w;
    m.job = p->job;
    m.done = done;
    w = write(p->fd, &m, sizeof m); /* below PIPE_BUF: atomic */
    (void)w;
  } else if (p->tty) {
    u_progress_line(p->what, (double)done, (double)p->total,
                    done / (t - p->t0 + 1e-9), "steps", NULL);
  }
}

static void u_progress_end(u_progress *p) {
  if (p->fd < 0 && p->tty) fputs("\r\033[K", stderr);
}

/* ------------------------------------------------------------ the pool */
/* Runs job(ctx, i, progress) for i = 0 .. n-1 in up to `procs` child
   processes; totals[i] is job i's step count for the progress line.
   Returns the number of jobs that failed; status[i] gets each exit code. */
typedef int (*u_job_fn)(void *ctx, int i, u_progress *p);

static int u_pool(u_job_fn job, void *ctx, int n, int procs,
                  const long *totals, const char *what, int *status) {
  /* the jobs running: their process and index, procs at most */
  pid_t *pid = (pid_t *)calloc((size_t)procs + 1, sizeof(pid_t));
  int *idx = (int *)calloc((size_t)procs + 1, sizeof(int));
  long *done = (long *)calloc((size_t)n + 1, sizeof(long));
  int fds[2], next = 0, running = 0, finished = 0, failed = 0, i;
  int tty = isatty(2);
  double t0 = u_now(), last = 0, total = 0;
  if (!pid || !idx || !done || pipe(fds) != 0) {
    free(pid);
    free(idx);
    free(done);
    return n;
  }
  for (i = 0; i < n; ++i) total += (double)totals[i];
  while (finished < n) {
    struct pollfd pf;
    pid_t w;
    int ws;
    while (running < procs && next < n) {
      pid_t c;
      /* so that no child repeats buffered output; a stream that fails
         here fails again where it is committed */
      (void)fflush(NULL);
      c = fork();
      if (c == 0) {
        u_progress p;
        close(fds[0]);
        u_progress_init(&p, what, totals[next]);
        p.fd = fds[1];
        p.job = next;
        _exit(job(ctx, next, &p) & 0xff);
      }
      if (c < 0) {
        status[next] = u_fail(1, "cannot start a process: %s", strerror(errno));
        failed++;
        finished++;
        next++;
        continue;
      }
      pid[running] = c;
      idx[running++] = next++;
    }
    pf.fd = fds[0];
    pf.events = POLLIN;
    pf.revents = 0;
    if (poll(&pf, 1, 100) > 0 && (pf.revents & POLLIN)) {
      u_msg m[64];
      ssize_t got = read(fds[0], m, sizeof m);
      int k;
      for (k = 0; got > 0 && k < (int)(got / (ssize_t)sizeof m[0]); ++k)
        if (m[k].job >= 0 && m[k].job < n) done[m[k].job] = m[k].done;
    }
    while ((w = waitpid(-1, &ws, WNOHANG)) > 0) {
      for (i = 0; i < running; ++i)
        if (pid[i] == w) {
          int j = idx[i];
          status[j] = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
          if (status[j]) failed++;
          done[j] = totals[j];
          pid[i] = pid[running - 1]; /* the last running takes its place */
          idx[i] = idx[--running];
          finished++;
          break;
        }
    }
    if (tty && (u_now() - last > 0.2 || finished == n)) {
      double sum = 0, t = u_now();
      char extra[64];
      for (i = 0; i < n; ++i) sum += (double)done[i];
      snprintf(extra, sizeof extra, " (%d/%d jobs done)", finished, n);
      u_progress_line(what, sum, total, sum / (t - t0 + 1e-9), "steps",
                      extra);
      last = t;
    }
  }
  if (tty) fputs("\r\033[K", stderr);
  close(fds[0]);
  close(fds[1]);
  free(pid);
  free(idx);
  free(done);
  return failed;
}

/* Writes an SVG through a temporary name; draw() fills it. */
typedef void (*draw_fn)(FILE *f, void *ctx);
static int write_svg(const char *path, draw_fn draw, void *ctx) {
  u_out o;
  int st = u_open(&o, path);
  if (st) return st;
  draw(o.f, ctx);
  return u_commit(&o);
}

static int u_online_cpus(void) {
  long k = sysconf(_SC_NPROCESSORS_ONLN);
  return k > 0 ? (int)k : 1;
}

#endif /* LINATTN_UTIL_H */
