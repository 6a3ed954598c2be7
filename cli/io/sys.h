/* cli/io/sys.h - the plumbing of cli/main.c: the exit statuses,
   one-line errors with quoted paths, output files that appear only when
   complete, checks of output paths before anything is written, folders,
   bounded reads of regular files, the progress line, and a pool of child
   processes that report their progress through a pipe. POSIX (fork,
   waitpid, poll, rename, fsync, O_EXCL); on Windows what cli/io/port.h
   gives (jobs in the process, outputs moved by MoveFileExW). */
#ifndef LINATTN_UTIL_H
#define LINATTN_UTIL_H

#include <limits.h>
#include <stdarg.h>

#include "port.h"

#include "json.h" /* jv_utf8_len: one UTF-8 decoder */

/* ------------------------------------------------------------ exit statuses */
/* One table for every subcommand. When several parts of the work fail (the
   runs of a sweep, a run and then its checkpoint), the command exits with
   the largest of their statuses; a part killed by a signal counts as 1. */
enum {
  EXIT_DONE = 0,
  EXIT_FAILED = 1,    /* the work failed */
  EXIT_BAD_INPUT = 2, /* bad input */
  EXIT_IO = 3,        /* a file could not be written or read */
  EXIT_NOMEM = 4,     /* out of memory */
  EXIT_NCODES
};
static const char *const u_exit_meaning[EXIT_NCODES] = {
    "done",
    "the work failed: a run diverged, a check was off, a measurement failed",
    "bad input: flags, numbers, input files, output paths",
    "a file could not be written or read: disk full, an I/O error",
    "out of memory"};

/* The table, as --help prints it. */
static void u_exit_table(FILE *f) {
  int i;
  fputs("\nexit status:\n", f);
  for (i = 0; i < EXIT_NCODES; ++i) fprintf(f, "  %d  %s\n", i, u_exit_meaning[i]);
  fputs("  several failures (a sweep's runs): the largest of their statuses\n", f);
}

/* The status of two failures together: the largest, a code outside the
   table (a signal's 128 + n) counting as EXIT_FAILED. */
static int u_exit_worse(int a, int b) {
  if (a < 0 || a >= EXIT_NCODES) a = EXIT_FAILED;
  if (b < 0 || b >= EXIT_NCODES) b = EXIT_FAILED;
  return a > b ? a : b;
}

/* The status of a failed system call on a file: out of memory, a full or
   failing disk, else `other` (a missing file, a refused permission are
   bad input where a path is opened). */
static int u_exit_of_errno(int e, int other) {
  if (e == ENOMEM) return EXIT_NOMEM;
  if (e == ENOSPC || e == EIO || e == EFBIG) return EXIT_IO;
#ifdef EDQUOT
  if (e == EDQUOT) return EXIT_IO;
#endif
  return other;
}

static int u_fail(int code, const char *fmt, ...) {
  va_list ap;
  fputs("linattn: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return code;
}

static int u_oom(void) { return u_fail(EXIT_NOMEM, "out of memory"); }

/* EXIT_NOMEM with the sizes when `bytes` (what `what` needs) exceed the
   machine's memory: a plain "out of memory" does not say by how much, and
   where overcommit is always on (or swap is large) an allocation that
   large succeeds and the run pages for hours instead of failing. */
static int u_fits_memory(double bytes, const char *what) {
  double have = u_phys_bytes();
  if (have <= 0 || bytes <= have) return 0;
  return u_fail(EXIT_NOMEM, "%s needs %.3g GB of memory; this machine has %.3g GB", what,
                bytes / 1e9, have / 1e9);
}


/* ------------------------------------------------------------ quoting */
/* A path (or any user's word) in a message, as bash reads it back, fit
   for a terminal (a command for any POSIX shell: u_print_word): 'plain' when every byte is printable (UTF-8 included), else
   $'...' with \n, \t, \r, \\, \' and \xHH for the rest, so that no control
   character, escape sequence or invalid byte reaches the terminal and a
   message stays one line. Past cap it is cut and ends in "...". */
#define U_QCAP 1024
#define U_Q(s) u_quote((s), (char[U_QCAP]){0}, U_QCAP)

/* The length of the valid UTF-8 sequence at s that is no control
   character (C0, DEL, C1: U+0080..U+009F), or 0. */
static size_t u_utf8_printable(const unsigned char *s) {
  size_t n = jv_utf8_len(s);
  if (n == 1) return s[0] >= 0x20 && s[0] != 0x7f;
  if (n == 2 && s[0] == 0xc2 && s[1] <= 0x9f) return 0; /* C1 */
  return n;
}

static const char *u_quote(const char *s, char *buf, size_t cap) {
  const unsigned char *p;
  size_t n = 0, k;
  int plain = 1;
  if (cap < 8) return "'?'";
  if (!s) s = "";
  for (p = (const unsigned char *)s; *p; p += k)
    if (!(k = u_utf8_printable(p))) {
      plain = 0;
      break;
    }
  if (!plain) buf[n++] = '$';
  buf[n++] = '\'';
  for (p = (const unsigned char *)s; *p; p += k) {
    char piece[8];
    k = u_utf8_printable(p);
    if (k && *p == '\'') snprintf(piece, sizeof piece, plain ? "'\\''" : "\\'");
    else if (k && *p == '\\' && !plain) snprintf(piece, sizeof piece, "\\\\");
    else if (k) {
      memcpy(piece, p, k);
      piece[k] = 0;
    } else {
      k = 1;
      if (*p == '\n') snprintf(piece, sizeof piece, "\\n");
      else if (*p == '\t') snprintf(piece, sizeof piece, "\\t");
      else if (*p == '\r') snprintf(piece, sizeof piece, "\\r");
      else snprintf(piece, sizeof piece, "\\x%02x", *p);
    }
    if (n + strlen(piece) + 5 > cap) { /* room for the quote and "..." */
      buf[n++] = '\'';
      memcpy(buf + n, "...", 4);
      return buf;
    }
    memcpy(buf + n, piece, strlen(piece));
    n += strlen(piece);
  }
  buf[n++] = '\'';
  buf[n] = 0;
  return buf;
}

/* ------------------------------------------------------------ paths */
#define U_PATH_MAX 4096

/* path's folder ("." when it names none) and its last name; 0, or -1
   when it does not fit. */
static int u_split(const char *path, char *dir, size_t cap, const char **base) {
  const char *slash = strrchr(path, '/');
  size_t len;
  *base = slash ? slash + 1 : path;
  if (!slash) {
    snprintf(dir, cap, ".");
    return 0;
  }
  len = slash == path ? 1 : (size_t)(slash - path);
  if (len >= cap) return -1;
  memcpy(dir, path, len);
  dir[len] = 0;
  return 0;
}

/* ------------------------------------------------------------ owned folders */
/* The folder the user named for the command's outputs (--out-dir,
   --heatmap), set by u_own before its outputs are checked: every file
   inside it is an output of the command. An output the command composes
   under it (FOLDER/NAME, NAME perhaps with sub-folders) is never written
   through a link planted there, so nothing is written outside the
   folder: whatever is at its name (a link, a FIFO, a device) is replaced
   by the rename (u_open_owned), and a sub-folder that is a link is
   replaced by a folder (u_mkdirs); u_file_id_of takes such an output for
   the entry itself, not what a link there names. A file the user names
   by itself (--out FILE) is still written where its link points. One
   folder a process: a command names one. */
static char u_owned[U_PATH_MAX];

static void u_own(const char *dir) { snprintf(u_owned, sizeof u_owned, "%s", dir); }

/* The length of the owned folder's text (without trailing slashes) when
   path lies under it, else 0. */
static size_t u_owned_len(const char *path) {
  size_t n = strlen(u_owned);
  while (n > 1 && u_owned[n - 1] == '/') --n;
  return n && !strncmp(path, u_owned, n) && path[n] == '/' ? n : 0;
}

/* What a path names, comparable between paths: the device and inode of
   its longest leading part that exists, and the rest of it, which does not
   exist yet, as text with "." and ".." taken away (nothing in it can be a
   link). Two paths name one file when these agree. 0, or -1 when the path
   is too long or goes through something that is no folder. */
typedef struct u_file_id {
  unsigned long long dev, ino; /* u_sys_id's */
  mode_t mode;
  char rest[U_PATH_MAX];
} u_file_id;

static int u_file_id_of(const char *path, u_file_id *id) {
  char pre[U_PATH_MAX];
  const char *p = path;
  size_t n = 0, r = 0;
  struct stat st;
  int missing = 0, keep_link = u_owned_len(path) != 0;
  memset(id, 0, sizeof *id);
  if (strlen(path) >= sizeof pre) return -1;
  if (*p == '/') pre[n++] = '/';
  pre[n] = 0;
  if (stat(n ? "/" : ".", &st) != 0) return -1;
  while (*p) {
    size_t len;
    while (*p == '/') ++p;
    len = strcspn(p, "/");
    if (!len) break;
    if (!missing) { /* one more existing part? */
      if (n && pre[n - 1] != '/') pre[n++] = '/';
      memcpy(pre + n, p, len);
      pre[n += len] = 0;
      if ((keep_link && !p[len + strspn(p + len, "/")] ? lstat(pre, &st) : stat(pre, &st)) != 0)
        missing = 1;
      else if (p[len] && !S_ISDIR(st.st_mode)) return -1;
    }
    if (missing) {
      if (len == 2 && p[0] == '.' && p[1] == '.') { /* back one new name */
        while (r && id->rest[r - 1] != '/') --r;
        if (r) --r;
      } else if (!(len == 1 && p[0] == '.')) {
        if (r + len + 2 >= sizeof id->rest) return -1;
        id->rest[r++] = '/';
        memcpy(id->rest + r, p, len);
        r += len;
      }
      id->rest[r] = 0;
    } else {
      id->mode = st.st_mode;
      if (u_sys_id(pre, keep_link && !p[len + strspn(p + len, "/")], &id->dev, &id->ino))
        return -1;
    }
    p += len;
  }
  if (!missing && !*path) return -1;
  if (missing && n) { /* the identity of the existing part */
    char *cut = strrchr(pre, '/');
    if (cut == pre) cut[1] = 0;
    else if (cut) *cut = 0;
    else snprintf(pre, sizeof pre, ".");
    if (stat(pre, &st) != 0 || u_sys_id(pre, 0, &id->dev, &id->ino)) return -1;
    id->mode = st.st_mode;
  }
  return 0;
}

/* An output file's path, checked before anything is written or created:
   not empty, not too long, not a folder (a name ending in '/', ".", "..",
   or an existing folder), nor a link to nothing, nor one that cannot be
   made (through a file, a loop of links); with regular_only (a checkpoint,
   replaced by renaming), nothing that exists and is not a regular file,
   nor standard output. "-" and NULL are standard output. flag names it in
   the message. */
static int u_output_ok(const char *flag, const char *path, int regular_only) {
  struct stat st;
  const char *base = strrchr(path ? path : "", '/');
  if (path && regular_only && !strcmp(path, "-"))
    return u_fail(EXIT_BAD_INPUT, "%s -: a file, not standard output", flag);
  if (!path || !strcmp(path, "-")) return 0;
  base = base ? base + 1 : path;
  if (!*path) return u_fail(EXIT_BAD_INPUT, "%s: the path is empty", flag);
  if (strlen(path) >= U_PATH_MAX)
    return u_fail(EXIT_BAD_INPUT, "%s %s: the path is too long", flag, U_Q(path));
  if (!*base || !strcmp(base, ".") || !strcmp(base, "..") ||
      (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
    return u_fail(EXIT_BAD_INPUT, "%s %s names a folder, not a file", flag, U_Q(path));
  if (stat(path, &st) != 0) { /* a new file: it must be one that can be made */
    if (errno != ENOENT)
      return u_fail(EXIT_BAD_INPUT, "%s %s: %s", flag, U_Q(path), strerror(errno));
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
      return u_fail(EXIT_BAD_INPUT, "%s %s is a link to nothing", flag, U_Q(path));
  } else if (regular_only && !S_ISREG(st.st_mode)) {
    return u_fail(EXIT_BAD_INPUT, "%s %s is not a regular file (a device or a FIFO)",
                  flag, U_Q(path));
  }
  {
    u_file_id id;
    if (u_file_id_of(path, &id) != 0)
      return u_fail(EXIT_BAD_INPUT, "%s %s cannot be a file: a part of its path is "
                    "not a folder", flag, U_Q(path));
  }
  return 0;
}

/* 1 if a and b name one file (u_file_id_of: through links, hard or
   symbolic, and through "." and ".." where the folders do not exist yet).
   Character devices (/dev/null, a terminal) may take any number of outputs
   and are never the same. */
static int u_same_file(const char *a, const char *b) {
  u_file_id ia, ib;
  if (u_file_id_of(a, &ia) || u_file_id_of(b, &ib)) return !strcmp(a, b);
  if (!ia.rest[0] && S_ISCHR(ia.mode)) return 0;
  return ia.dev == ib.dev && ia.ino == ib.ino && !strcmp(ia.rest, ib.rest);
}

/* A path a command writes or reads, with its flag for messages. */
typedef struct u_path {
  const char *flag, *path;
} u_path;

/* Refuses outputs that would write one file twice (two outputs to one
   file, or both to standard output) or overwrite a file the command reads,
   before anything is written: EXIT_BAD_INPUT. NULL paths are not given. */
static int u_no_alias(const u_path *outs, int nout, const u_path *ins, int nin) {
  int i, j;
  for (i = 0; i < nout; ++i) {
    const char *a = outs[i].path;
    if (!a) continue;
    for (j = i + 1; j < nout; ++j) {
      const char *b = outs[j].path;
      int sa = !strcmp(a, "-"), sb = b && !strcmp(b, "-");
      if (!b || (sa != sb) || !(sa || u_same_file(a, b))) continue;
      return u_fail(EXIT_BAD_INPUT, "%s %s and %s %s are the same file: give each "
                    "output its own", outs[i].flag, U_Q(a), outs[j].flag, U_Q(b));
    }
    for (j = 0; j < nin; ++j)
      if (ins[j].path && strcmp(a, "-") != 0 && u_same_file(a, ins[j].path))
        return u_fail(EXIT_BAD_INPUT, "%s %s is the file %s %s reads: writing it "
                      "would destroy it", outs[i].flag, U_Q(a), ins[j].flag,
                      U_Q(ins[j].path));
  }
  return 0;
}

/* ------------------------------------------------------------ outputs */
/* A file written under a new temporary name beside it and renamed over
   its own when complete, so that a reader never sees half of it. The
   temporary is created exclusively (O_EXCL: never through a link planted
   at its name, never over another file) under an unpredictable name,
   PATH.tmp.HOST.PID.RANDOM. A killed run leaves its temporary behind; the
   next write of the same output removes those of processes of this host
   that no longer run (the caller's own files only). An output that is a
   symbolic link is written where the link points (inside the owned folder:
   replaced, see u_owned); one that is a device or a FIFO is written in
   place, never replaced. "-" or NULL is stdout. */
typedef struct u_out {
  FILE *f;
  int err; /* the errno of a failed write, where the writer saw it */
  int is_stdout;
  int direct; /* a device or pipe: written in place, never replaced */
  char path[U_PATH_MAX]; /* the file replaced */
  char tmp[U_PATH_MAX + 128];
} u_out;

/* 64 bits no other process can guess: the system's random bytes, or the
   clock, the process and an address mixed where those cannot be read. */
static unsigned long long u_random64(const void *salt) {
  unsigned long long z = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read(fd, &z, sizeof z) != (ssize_t)sizeof z) {
    z = u_sys_clock_bits() ^ ((unsigned long long)getpid() << 48) ^
        (unsigned long long)(uintptr_t)salt;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
  }
  if (fd >= 0) (void)close(fd); /* read only */
  return z;
}

/* This machine's name as it goes into a temporary's name: letters,
   digits and '-', up to its first dot, at most 32 bytes. */
static void u_host(char *buf, size_t cap) {
  char h[256];
  size_t i, n = 0;
  h[0] = 0;
  if (u_sys_hostname(h, sizeof h) != 0) h[0] = 0;
  h[sizeof h - 1] = 0;
  for (i = 0; h[i] && h[i] != '.' && n + 1 < cap && n < 32; ++i)
    if ((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z') ||
        (h[i] >= '0' && h[i] <= '9') || h[i] == '-')
      buf[n++] = h[i];
  if (!n) n = (size_t)snprintf(buf, cap, "host");
  buf[n] = 0;
}

static int u_follow(char *path, size_t cap);

/* Each temporary of `path` left by a dead process: named
   PATH.tmp.HOST.PID.HEX with this host's name and the PID of no running
   process, a regular file of this user; fn(ctx, its path, its stat). */
typedef void (*u_stale_fn)(void *ctx, const char *tmp, const struct stat *st);
static void u_each_stale(const char *path, u_stale_fn fn, void *ctx) {
  char dir[U_PATH_MAX], host[40], prefix[U_PATH_MAX + 64];
  const char *base;
  size_t plen;
  DIR *d;
  struct dirent *e;
  if (u_split(path, dir, sizeof dir, &base)) return;
  u_host(host, sizeof host);
  plen = (size_t)snprintf(prefix, sizeof prefix, "%s.tmp.%s.", base, host);
  if (plen >= sizeof prefix || !(d = opendir(dir))) return;
  while ((e = readdir(d)) != NULL) {
    const char *p = e->d_name + plen;
    char full[2 * U_PATH_MAX + 8];
    long pid = 0;
    struct stat st;
    if (strncmp(e->d_name, prefix, plen) != 0) continue;
    while (*p >= '0' && *p <= '9' && pid < 1000000000L) pid = pid * 10 + (*p++ - '0');
    if (*p != '.' || pid <= 0 || pid == (long)getpid() || strspn(p + 1, "0123456789abcdef") != 16 ||
        p[17] != 0)
      continue;
    if (!u_sys_dead(pid)) continue; /* alive, or not ours to ask */
    if (snprintf(full, sizeof full, "%s/%s", dir, e->d_name) >= (int)sizeof full) continue;
    if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) && u_sys_mine(&st))
      fn(ctx, full, &st);
  }
  (void)closedir(d); /* read only */
}

static void u_unlink_stale(void *ctx, const char *tmp, const struct stat *st) {
  (void)ctx;
  (void)st;
  (void)unlink(tmp); /* best effort */
}

/* Removes the temporaries of `path` left by dead processes (u_each_stale).
   Best effort: nothing it fails to do is an error. */
static void u_clean_stale(const char *path) { u_each_stale(path, u_unlink_stale, NULL); }

typedef struct u_newest {
  char path[2 * U_PATH_MAX + 8];
  double t; /* seconds, with the nanoseconds where the host keeps them */
  int found;
} u_newest;

/* A file's modification time in seconds (st_mtim is POSIX 2008's; Windows'
   stat has whole seconds alone). */
static double u_mtime(const struct stat *st) {
#ifdef _WIN32
  return (double)st->st_mtime;
#else
  return (double)st->st_mtim.tv_sec + 1e-9 * (double)st->st_mtim.tv_nsec;
#endif
}

static void u_pick_newest(void *ctx, const char *tmp, const struct stat *st) {
  u_newest *n = (u_newest *)ctx;
  double t = u_mtime(st);
  if (n->found && t <= n->t) return;
  snprintf(n->path, sizeof n->path, "%s", tmp);
  n->t = t;
  n->found = 1;
}

/* The newest temporary of `path` (through its links, as u_open writes it)
   left by a dead process, into buf: 1, or 0 when there is none. */
static int u_stale_newest(const char *path, char *buf, size_t cap) {
  char p[U_PATH_MAX];
  u_newest n;
  if (!path || !strcmp(path, "-") || strlen(path) >= sizeof p) return 0;
  memcpy(p, path, strlen(path) + 1);
  if (u_follow(p, sizeof p) != 0) return 0;
  memset(&n, 0, sizeof n);
  u_each_stale(p, u_pick_newest, &n);
  if (!n.found || strlen(n.path) >= cap) return 0;
  memcpy(buf, n.path, strlen(n.path) + 1);
  return 1;
}

/* A new file beside o->path under a temporary name (see u_out). */
static int u_create_tmp(u_out *o) {
  char host[40];
  int attempt, fd = -1;
  u_host(host, sizeof host);
  for (attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    int w = snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%s.%ld.%016llx", o->path, host,
                     (long)getpid(), u_random64(o));
    if (w < 0 || (size_t)w >= sizeof o->tmp)
      return u_fail(EXIT_BAD_INPUT, "%s: the path is too long", U_Q(o->path));
    fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_BINARY, 0666);
    if (fd < 0 && errno != EEXIST)
      return u_fail(u_exit_of_errno(errno, EXIT_BAD_INPUT), "cannot write %s: %s",
                    U_Q(o->path), strerror(errno));
  }
  if (fd < 0)
    return u_fail(EXIT_BAD_INPUT, "cannot write %s: no free temporary name beside it",
                  U_Q(o->path));
#ifdef LA__POSIX_FILES
  la__file_keep_mode(o->tmp, o->path); /* the header's rule: mode and owner kept */
#endif
  if (!(o->f = fdopen(fd, "wb"))) {
    (void)close(fd);
    (void)unlink(o->tmp);
    return u_oom();
  }
  return 0;
}

/* Follows the symbolic links of path (in place, cap bytes) to what the
   last one names, which must exist: 0, or an errno (ENOENT a link to
   nothing, ELOOP more than 40 links, ENAMETOOLONG). */
static int u_follow(char *path, size_t cap) {
  int hops;
  for (hops = 0; hops < 40; ++hops) {
    struct stat st;
    char target[U_PATH_MAX], dir[U_PATH_MAX];
    const char *base;
    ssize_t n;
    if (lstat(path, &st) != 0) return hops ? errno : 0; /* a new file */
    if (!S_ISLNK(st.st_mode)) return 0;
    n = readlink(path, target, sizeof target - 1);
    if (n < 0) return errno;
    if ((size_t)n >= sizeof target - 1) return ENAMETOOLONG;
    target[n] = 0;
    if (target[0] == '/') {
      if (strlen(target) >= cap) return ENAMETOOLONG;
      memcpy(path, target, strlen(target) + 1);
    } else { /* relative to the link's folder */
      if (u_split(path, dir, sizeof dir, &base) ||
          snprintf(path, cap, "%s/%s", dir, target) >= (int)cap)
        return ENAMETOOLONG;
    }
  }
  return ELOOP;
}

/* Opens the output `path` under the owned folder (n: the folder's length):
   its sub-folders must be folders (no link, no "." or ".."), and what is at
   its name is replaced, never followed. */
static int u_open_owned(u_out *o, const char *path, size_t n) {
  char part[U_PATH_MAX];
  struct stat st;
  const char *base = strrchr(path, '/') + 1;
  size_t i;
  if (strlen(path) >= sizeof part)
    return u_fail(EXIT_BAD_INPUT, "%s: the path is too long", U_Q(path));
  if (!*base || (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)))
    return u_fail(EXIT_BAD_INPUT, "%s names a folder, not a file", U_Q(path));
  memcpy(part, path, strlen(path) + 1);
  for (i = n + 1; part[i]; ++i) {
    size_t len = strcspn(part + i, "/");
    int dots = (len == 1 && part[i] == '.') || (len == 2 && !strncmp(part + i, "..", 2));
    if (dots)
      return u_fail(EXIT_BAD_INPUT, "%s leaves the output folder %s", U_Q(path),
                    U_Q(u_owned));
    if (!part[i + len]) break; /* the file's own name */
    part[i + len] = 0;
    if (lstat(part, &st) != 0 || !S_ISDIR(st.st_mode))
      return u_fail(EXIT_BAD_INPUT, "cannot write %s: %s is not a folder (a link?)",
                    U_Q(path), U_Q(part));
    part[i + len] = '/';
    i += len;
  }
  snprintf(o->path, sizeof o->path, "%s", path);
  u_clean_stale(o->path);
  return u_create_tmp(o);
}

/* Opens the output `path` (see u_out); regular_only refuses a device or a
   FIFO (a checkpoint). EXIT_BAD_INPUT for a path that cannot be written. */
static int u_open_as(u_out *o, const char *path, int regular_only) {
  struct stat st;
  int st_code;
  size_t owned;
  memset(o, 0, sizeof *o);
  if (!path || !strcmp(path, "-")) {
    o->f = stdout;
    o->is_stdout = 1;
    return 0;
  }
  if ((owned = u_owned_len(path)) != 0) return u_open_owned(o, path, owned);
  if ((st_code = u_output_ok("output", path, regular_only)) != 0) return st_code;
  snprintf(o->path, sizeof o->path, "%s", path);
  if ((st_code = u_follow(o->path, sizeof o->path)) != 0)
    return u_fail(EXIT_BAD_INPUT, "cannot write %s: %s", U_Q(path),
                  st_code == ENOENT ? "a link to nothing" : strerror(st_code));
  if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) { /* written in place */
    int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_BINARY);
    if (fd < 0)
      return u_fail(u_exit_of_errno(errno, EXIT_BAD_INPUT), "cannot write %s: %s",
                    U_Q(path), strerror(errno));
    if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
      (void)close(fd); /* replaced meanwhile: nothing written */
      return u_fail(EXIT_BAD_INPUT, "cannot write %s: it changed while opened", U_Q(path));
    }
    if (!(o->f = fdopen(fd, "wb"))) {
      (void)close(fd);
      return u_oom();
    }
    o->direct = 1;
    return 0;
  }
  u_clean_stale(o->path);
  return u_create_tmp(o);
}

static int u_open(u_out *o, const char *path) { return u_open_as(o, path, 0); }

static void u_abort(u_out *o) {
  if (!o->f || o->is_stdout) return;
  /* already failing: the error reported is the first one */
  (void)fclose(o->f);
  if (!o->direct) (void)unlink(o->tmp);
  o->f = NULL;
}

/* Why writes to fd failed when stdio kept no errno: what a character
   device answers to a write of nothing (/dev/full: ENOSPC, as a flush
   that fails there says), a full file system, a file at the size limit
   (RLIMIT_FSIZE), else an I/O error. */
static int u_write_errno(int fd) {
#if U_POSIX
  struct statvfs vs;
  struct stat st;
  struct rlimit rl;
  if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && write(fd, "", 0) < 0 && errno != EINTR)
    return errno;
  if (fstatvfs(fd, &vs) == 0 && vs.f_bavail == 0) return ENOSPC;
  if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      fstat(fd, &st) == 0 && (rlim_t)st.st_size >= rl.rlim_cur)
    return EFBIG;
#else
  (void)fd;
#endif
  return EIO;
}

/* The status of standard output after a failure e (0: none): EXIT_IO (or
   EXIT_NOMEM) with the message, said once: the stream's error is cleared
   after it, so that the check at the program's end (u_stdout_check) does
   not say it again. */
static int u_stdout_said(int e) {
  if (!e) return 0;
  clearerr(stdout);
  return u_fail(u_exit_of_errno(e, EXIT_IO), "writing to standard output failed: %s",
                strerror(e));
}

/* Standard output flushed: 0, or its failure said (u_stdout_said). Every
   command ends with it, so that none exits 0 with its lines lost. */
static int u_stdout_check(void) {
  int e = 0;
  if (fflush(stdout) != 0) e = errno ? errno : EIO;
  else if (ferror(stdout)) e = u_write_errno(fileno(stdout));
  return u_stdout_said(e);
}

/* Completes an output: flushed, synced and renamed into place. A failure
   removes the temporary and is EXIT_IO (or EXIT_NOMEM, or EXIT_BAD_INPUT
   where the rename is refused). */
static int u_commit(u_out *o) {
  int e = 0;
  const char *what = o->is_stdout ? "standard output" : o->path;
  if (!o->f) return 0;
  if (fflush(o->f) != 0) e = errno ? errno : EIO;
  else if (ferror(o->f)) e = o->err ? o->err : u_write_errno(fileno(o->f));
  if (o->is_stdout) {
    o->f = NULL;
    return u_stdout_said(e);
  }
  if (!e && !o->direct && fsync(fileno(o->f)) != 0) e = errno;
  if (fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
  o->f = NULL;
  if (e) {
    if (!o->direct) (void)unlink(o->tmp);
    return u_fail(u_exit_of_errno(e, EXIT_IO), "cannot write %s: %s", U_Q(what),
                  strerror(e));
  }
  if (!o->direct && u_sys_replace(o->tmp, o->path) != 0) {
    e = errno;
    (void)unlink(o->tmp);
    return u_fail(u_exit_of_errno(e, EXIT_BAD_INPUT), "cannot write %s: %s",
                  U_Q(what), strerror(e));
  }
  return 0;
}

/* ------------------------------------------------------------ folders */
/* A folder path checked before anything is created: not empty, not too
   long, not an existing file. */
static int u_folder_ok(const char *flag, const char *dir) {
  struct stat st;
  if (!*dir) return u_fail(EXIT_BAD_INPUT, "%s: the path is empty", flag);
  if (strlen(dir) >= U_PATH_MAX)
    return u_fail(EXIT_BAD_INPUT, "%s %s: the path is too long", flag, U_Q(dir));
  if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
    return u_fail(EXIT_BAD_INPUT, "%s %s is a file, not a folder", flag, U_Q(dir));
  return 0;
}

/* Proof that a file can be created in folder dir: a new file under an
   unpredictable name, created exclusively, then removed. 0, or an errno. */
static int u_probe(const char *dir) {
  char probe[U_PATH_MAX + 64];
  int fd;
  snprintf(probe, sizeof probe, "%s/.linattn-probe.%016llx", dir, u_random64(dir));
  fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_BINARY, 0600);
  if (fd < 0) return errno;
  /* the probe was only to be created: closing and removing it may fail
     harmlessly */
  (void)close(fd);
  (void)unlink(probe);
  return 0;
}

/* mkdir -p (a link inside the owned folder where a folder should be is
   replaced by one: see u_owned), then proof that a file can be created
   inside (u_probe). */
static int u_mkdirs(const char *dir) {
  char buf[U_PATH_MAX];
  size_t i, len = strlen(dir);
  int e, st;
  if ((st = u_folder_ok("folder", dir)) != 0) return st;
  memcpy(buf, dir, len + 1);
  for (i = 1; i <= len; ++i) {
    if (buf[i] == '/' || buf[i] == 0) {
      char c = buf[i];
      struct stat s;
      buf[i] = 0;
      if (u_owned_len(buf) && lstat(buf, &s) == 0 && S_ISLNK(s.st_mode) && unlink(buf) != 0)
        return u_fail(u_exit_of_errno(errno, EXIT_BAD_INPUT), "cannot replace the link %s "
                      "by a folder: %s", U_Q(buf), strerror(errno));
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return u_fail(u_exit_of_errno(errno, EXIT_BAD_INPUT),
                      "cannot create folder %s: %s", U_Q(buf), strerror(errno));
      if (stat(buf, &s) != 0 || !S_ISDIR(s.st_mode))
        return u_fail(EXIT_BAD_INPUT, "%s is not a folder", U_Q(buf));
      buf[i] = c;
    }
  }
  if ((e = u_probe(dir)) != 0)
    return u_fail(u_exit_of_errno(e, EXIT_BAD_INPUT), "cannot write into folder %s: %s",
                  U_Q(dir), strerror(e));
  return 0;
}

/* The folder of an output file, created when missing (after u_output_ok). */
static int u_mkparent(const char *path) {
  char dir[U_PATH_MAX];
  const char *base;
  if (!path || !strcmp(path, "-") || !strchr(path, '/')) return 0;
  if (u_split(path, dir, sizeof dir, &base))
    return u_fail(EXIT_BAD_INPUT, "%s: the path is too long", U_Q(path));
  return u_mkdirs(dir);
}

/* Proof, before any work, that the output `path` can be written where
   u_open will write it: a file can be created in its folder (through its
   links, as u_open follows them) or, where that folder is missing, in the
   nearest folder above it that exists (u_mkparent makes the rest), so that
   an hour's measurement is not lost to a read-only folder at its end.
   Standard output, a device or a FIFO (written in place) and a path
   u_output_ok refuses pass: u_open says why. */
static int u_output_writable(const char *flag, const char *path) {
  char p[U_PATH_MAX], dir[U_PATH_MAX], up[U_PATH_MAX];
  const char *base;
  struct stat st;
  int e;
  if (!path || !strcmp(path, "-") || strlen(path) >= sizeof p) return 0;
  memcpy(p, path, strlen(path) + 1);
  if (u_follow(p, sizeof p) != 0 || (stat(p, &st) == 0 && !S_ISREG(st.st_mode)) ||
      u_split(p, dir, sizeof dir, &base) != 0)
    return 0;
  while (stat(dir, &st) != 0) { /* up to a folder that exists: ".", "/" do */
    if (u_split(dir, up, sizeof up, &base) != 0 || !strcmp(up, dir)) return 0;
    memcpy(dir, up, strlen(up) + 1);
  }
  if ((e = u_probe(dir)) != 0)
    return u_fail(u_exit_of_errno(e, EXIT_BAD_INPUT), "%s %s: cannot write into folder "
                  "%s: %s", flag, U_Q(path), U_Q(dir), strerror(e));
  return 0;
}

/* ------------------------------------------------------------ reading */
/* The most a whole file read into memory may hold: a checkpoint of the
   largest model the header builds (d 256, 64 dense layers behind a 4096-
   wide front, 10.6 million parameters) with Adam's state is under 350 MB. */
#define U_READ_MAX ((size_t)1 << 30)

/* A regular file's bytes (NUL-terminated, for text): 0, or an errno:
   EISDIR a folder, ENODEV not a regular file (a FIFO, a device: never
   opened for long enough to block), EFBIG past max bytes, ENOMEM, EIO or
   whatever open says. */
static int u_read_regular(const char *path, size_t max, char **out, size_t *len) {
  struct stat st;
  char *buf;
  size_t n = 0;
  int fd = open(path, U_O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e = 0;
  *out = NULL;
  *len = 0;
  if (fd < 0) return errno ? errno : EIO;
  if (fstat(fd, &st) != 0) e = EIO;
  else if (S_ISDIR(st.st_mode)) e = EISDIR;
  else if (!S_ISREG(st.st_mode)) e = ENODEV;
  else if (st.st_size < 0 || (unsigned long long)st.st_size > max) e = EFBIG;
  if (e || !(buf = (char *)calloc((size_t)st.st_size + 1, 1))) {
    (void)close(fd); /* read only */
    return e ? e : ENOMEM;
  }
  while (n < (size_t)st.st_size) { /* a file that shrinks ends early */
    ssize_t got = read(fd, buf + n, (size_t)st.st_size - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) e = EIO;
    if (got <= 0) break;
    n += (size_t)got;
  }
  (void)close(fd); /* read only */
  if (e) {
    free(buf);
    return e;
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return 0;
}

/* u_read_regular with a message: `what` is what the file should be ("a
   checkpoint"). The exit status, 0 when read. */
static int u_read_file(const char *path, const char *what, char **out, size_t *len) {
  int e = u_read_regular(path, U_READ_MAX, out, len);
  if (!e) return 0;
  if (e == EISDIR) return u_fail(EXIT_BAD_INPUT, "%s is a folder, not %s", U_Q(path), what);
  if (e == ENODEV)
    return u_fail(EXIT_BAD_INPUT, "%s is not a regular file (a FIFO, a device or a "
                  "socket), so not %s", U_Q(path), what);
  if (e == EFBIG)
    return u_fail(EXIT_BAD_INPUT, "%s is larger than %s can be (%lu MB)", U_Q(path),
                  what, (unsigned long)(U_READ_MAX >> 20));
  return u_fail(u_exit_of_errno(e, EXIT_BAD_INPUT), "cannot read %s: %s", U_Q(path),
                strerror(e));
}

/* A whole regular file (NUL-terminated); NULL with errno set on failure. */
static char *u_slurp(const char *path, size_t *len) {
  char *buf;
  size_t n;
  int e = u_read_regular(path, U_READ_MAX, &buf, &n);
  if (e) {
    errno = e;
    return NULL;
  }
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

/* A pool's job that runs another program (reproduce's runs in the other
   precision) tells it where its progress goes: the pool's pipe and its job
   number, in the environment. */
#define U_PROGRESS_ENV "LINATTN_PROGRESS"
static void u_progress_init(u_progress *p, const char *what, long total) {
  const char *env = getenv(U_PROGRESS_ENV);
  char *end = NULL;
  long fd = -1, job = -1;
  struct stat sb;
  memset(p, 0, sizeof *p);
  p->what = what;
  p->total = total;
  p->fd = -1;
  p->tty = isatty(2);
  p->t0 = p->last = u_now();
  /* "FD JOB", FD a pipe: anything else is not the pool's, and ignored */
  if (env) {
    fd = strtol(env, &end, 10);
    if (end != env && *end == ' ') job = strtol(end + 1, &end, 10);
  }
  if (job >= 0 && *end == 0 && fd > 2 && fd < INT_MAX && job < INT_MAX &&
      fstat((int)fd, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
    p->fd = (int)fd;
    p->job = (int)job;
  }
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
   Returns the number of jobs that failed; status[i] gets each exit code
   (128 + n for a job killed by signal n). */
typedef int (*u_job_fn)(void *ctx, int i, u_progress *p);

#if !U_POSIX
/* Windows has no fork: the jobs run one after another in this process,
   each with its own progress line; a job that runs another program
   (u_sys_exec) waits for it. */
static int u_pool(u_job_fn job, void *ctx, int n, int procs,
                  const long *totals, const char *what, int *status) {
  int i, failed = 0;
  (void)procs;
  for (i = 0; i < n; ++i) {
    u_progress p;
    u_progress_init(&p, what, totals[i]);
    (void)fflush(NULL);
    status[i] = job(ctx, i, &p) & 0xff;
    u_progress_end(&p);
    failed += status[i] != 0;
  }
  return failed;
}
#else
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
    int code = !pid || !idx || !done ? u_oom()
               : u_fail(EXIT_FAILED, "cannot make a pipe: %s", strerror(errno));
    for (i = 0; i < n; ++i) status[i] = code;
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
        status[next] = u_fail(u_exit_of_errno(errno, EXIT_FAILED),
                              "cannot start a process: %s", strerror(errno));
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
#endif

/* The exit status of a pool's jobs together (u_exit_worse). */
static int u_pool_status(const int *status, int n) {
  int i, st = 0;
  for (i = 0; i < n; ++i)
    if (status[i]) st = u_exit_worse(st, status[i]);
  return st;
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

/* A word as any POSIX shell (dash, bash, zsh in sh mode) reads it back,
   on one line: bare when it needs no quoting; else in single quotes, a
   quote as '\'', and each run of bytes that are no printable UTF-8 (a
   control character, an invalid byte) as "$(printf '\OOO...')" (octal
   escapes, which every printf knows; bash's $'...' is no POSIX shell's),
   so that the line stays printable and whole. Never cut. A newline can
   come back only as part of the word (command substitution drops a
   trailing one): a word that holds one is refused before it is written
   (u_one_line). 0 (a stream that fails says so where it is flushed). */
static int u_print_word(FILE *f, const char *s) {
  const unsigned char *p;
  int plain = *s != 0, inq = 0;
  size_t k;
  for (p = (const unsigned char *)s; *p; ++p)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "0123456789_./=:,+-@%", *p))
      plain = 0;
  if (plain || !*s) {
    fputs(plain ? s : "''", f);
    return 0;
  }
  for (p = (const unsigned char *)s; *p; p += k) {
    if ((k = u_utf8_printable(p)) != 0) {
      if (*p == '\'') {
        if (inq) fputc('\'', f);
        fputs("\\'", f);
        inq = 0;
        continue;
      }
      if (!inq) fputc('\'', f);
      inq = 1;
      (void)fwrite(p, 1, k, f);
      continue;
    }
    if (inq) fputc('\'', f);
    inq = 0;
    fputs("\"$(printf '", f);
    for (k = 0; p[k] && !u_utf8_printable(p + k); ++k) fprintf(f, "\\%03o", p[k]);
    fputs("')\"", f);
  }
  if (inq) fputc('\'', f);
  return 0;
}

/* A word that goes into a line of a plan or a printed command: EXIT_BAD_INPUT
   when it holds a newline (no line can hold it), naming what it is. */
static int u_one_line(const char *what, const char *s) {
  if (!strchr(s, '\n')) return 0;
  return u_fail(EXIT_BAD_INPUT, "%s %s holds a newline: a command line cannot hold it; "
                "give a name without one", what, U_Q(s));
}

#endif /* LINATTN_UTIL_H */
