/* cli/io/port.h - the system calls of cli/io/sys.h on POSIX hosts and
   on Windows. POSIX: the headers, and the few calls whose Windows form
   differs wrapped in u_sys_* functions. Windows (MinGW-w64; run under
   Wine in `make test`): the C library's POSIX layer (open, stat, dirent,
   _commit) with binary files, a file's identity from its volume and file
   index (stat's st_ino is 0 there), outputs moved into place by
   MoveFileExW (MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH), other
   programs started by _spawnvp (waited for: no exec), a pool's jobs run
   one after another in the process (no fork), no symbolic links followed
   by hand, Ctrl-C as the C library delivers it (SIGINT). */
#ifndef LINATTN_PORT_H
#define LINATTN_PORT_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#ifdef _WIN32
#include <windows.h>
#include <direct.h>
#include <dirent.h>
#include <io.h>
#include <process.h>
#include <unistd.h>

#define U_POSIX 0
#define U_O_RDONLY (O_RDONLY | O_BINARY) /* reads whole bytes */
#define O_NOFOLLOW 0 /* no links followed by open there */
#define O_CLOEXEC _O_NOINHERIT
#define O_NONBLOCK 0
#define O_NOCTTY 0
#ifndef S_ISLNK
#define S_ISLNK(m) 0
#endif
#ifndef S_ISFIFO
#define S_ISFIFO(m) (((m) & _S_IFMT) == _S_IFIFO)
#endif
#define lstat stat /* no symbolic links to tell apart */
#define fsync _commit
#define mkdir(path, mode) _mkdir(path)
#define getc_unlocked getc
static long readlink(const char *path, char *buf, size_t cap) {
  (void)path, (void)buf, (void)cap;
  errno = EINVAL;
  return -1;
}
#else
#include <dirent.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#define U_POSIX 1
#define U_O_RDONLY O_RDONLY
#ifndef O_BINARY
#define O_BINARY 0
#endif
#endif

/* Standard output written as bytes (no CR before LF on Windows), so that
   the lines and files are those of every other host; on a Windows console
   the progress line's escape sequences (ANSI: carriage return, erase to
   the end of the line) turned on, as a POSIX terminal reads them. */
static void u_sys_init(void) {
#ifdef _WIN32
  HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
  DWORD mode;
  (void)_setmode(_fileno(stdout), _O_BINARY);
  if (err != INVALID_HANDLE_VALUE && GetConsoleMode(err, &mode))
    (void)SetConsoleMode(err, mode | 0x0004); /* ENABLE_VIRTUAL_TERMINAL_PROCESSING */
#else
  /* a write past a file size limit (ulimit -f) fails with EFBIG, which
     every output reports (exit 3) and cleans up after, instead of killing
     the program with its temporaries left */
  (void)signal(SIGXFSZ, SIG_IGN);
#endif
}

/* Seconds of a monotonic clock. */
static double u_now(void) {
#ifdef _WIN32
  LARGE_INTEGER f, c;
  QueryPerformanceFrequency(&f);
  QueryPerformanceCounter(&c);
  return (double)c.QuadPart / (double)f.QuadPart;
#else
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
#endif
}

/* 64 bits of the clock, for a seed where the system's random bytes
   cannot be read. */
static unsigned long long u_sys_clock_bits(void) {
#ifdef _WIN32
  LARGE_INTEGER c;
  QueryPerformanceCounter(&c);
  return (unsigned long long)c.QuadPart ^ ((unsigned long long)GetTickCount64() << 20);
#else
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (unsigned long long)t.tv_nsec ^ ((unsigned long long)t.tv_sec << 30);
#endif
}

/* The machine's memory in bytes, 0 where the system does not say. */
static double u_phys_bytes(void) {
#ifdef _WIN32
  MEMORYSTATUSEX m;
  m.dwLength = sizeof m;
  return GlobalMemoryStatusEx(&m) ? (double)m.ullTotalPhys : 0;
#elif defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
#else
  return 0;
#endif
}

/* The machine's name (gethostname; Windows: its computer name). */
static int u_sys_hostname(char *buf, size_t cap) {
#ifdef _WIN32
  DWORD n = (DWORD)cap;
  return GetComputerNameA(buf, &n) ? 0 : -1;
#else
  return gethostname(buf, cap);
#endif
}

/* 1 when no process `pid` of this user runs (its temporaries are stale). */
static int u_sys_dead(long pid) {
#ifdef _WIN32
  HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)pid);
  DWORD r;
  if (!h) return GetLastError() == ERROR_INVALID_PARAMETER;
  r = WaitForSingleObject(h, 0);
  (void)CloseHandle(h);
  return r == WAIT_OBJECT_0;
#else
  return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
#endif
}

/* 1 when the file st describes is this user's (Windows: every file the
   process may remove is). */
static int u_sys_mine(const struct stat *st) {
#ifdef _WIN32
  (void)st;
  return 1;
#else
  return st->st_uid == geteuid();
#endif
}

/* What a path names: its device (volume) and file number, of the link
   itself where nofollow. 0, or -1. */
static int u_sys_id(const char *path, int nofollow, unsigned long long *dev,
                    unsigned long long *ino) {
#ifdef _WIN32
  BY_HANDLE_FILE_INFORMATION info;
  HANDLE h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         NULL, OPEN_EXISTING,
                         FILE_FLAG_BACKUP_SEMANTICS |
                             (nofollow ? FILE_FLAG_OPEN_REPARSE_POINT : 0),
                         NULL);
  int ok;
  if (h == INVALID_HANDLE_VALUE) return -1;
  ok = GetFileInformationByHandle(h, &info) != 0;
  (void)CloseHandle(h);
  if (!ok) return -1;
  *dev = info.dwVolumeSerialNumber;
  *ino = (unsigned long long)info.nFileIndexHigh << 32 | info.nFileIndexLow;
  return 0;
#else
  struct stat st;
  if ((nofollow ? lstat(path, &st) : stat(path, &st)) != 0) return -1;
  *dev = (unsigned long long)st.st_dev;
  *ino = (unsigned long long)st.st_ino;
  return 0;
#endif
}

/* tmp moved over path in one step (a reader sees the old file or the new
   one); 0, or -1 with errno set. */
static int u_sys_replace(const char *tmp, const char *path) {
#ifdef _WIN32
  if (MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
    return 0;
  switch (GetLastError()) {
  case ERROR_DISK_FULL: case ERROR_HANDLE_DISK_FULL: errno = ENOSPC; break;
  case ERROR_PATH_NOT_FOUND: case ERROR_FILE_NOT_FOUND: errno = ENOENT; break;
  default: errno = EACCES; break;
  }
  return -1;
#else
  return rename(tmp, path);
#endif
}

/* The environment variable name set to value; 0, or -1. */
static int u_sys_setenv(const char *name, const char *value) {
#ifdef _WIN32
  return _putenv_s(name, value) == 0 ? 0 : -1;
#else
  return setenv(name, value, 1);
#endif
}

/* Runs the program argv[0] (found on PATH) with argv. POSIX: in place of
   this process (a pool's child): returns only when it cannot start, -1
   with errno. Windows: started and waited for, its exit status returned
   (a word with a space or a quote is quoted, as its C library splits the
   command line again). */
static int u_sys_exec(char **argv) {
#ifdef _WIN32
  int n = 0, i, rc;
  char **q;
  while (argv[n]) ++n;
  if (!(q = (char **)calloc((size_t)n + 1, sizeof(char *)))) {
    errno = ENOMEM;
    return -1;
  }
  for (i = 0; i < n; ++i) {
    const char *s = argv[i];
    size_t len = strlen(s), k = 0, j;
    if (!*s || strpbrk(s, " \t\"")) {
      if (!(q[i] = (char *)malloc(2 * len + 3))) break;
      q[i][k++] = '"';
      for (j = 0; j < len; ++j) {
        size_t bs = 0;
        while (j < len && s[j] == '\\') ++bs, ++j;
        if (j == len) bs *= 2; /* before the closing quote */
        else if (s[j] == '"') bs = 2 * bs + 1;
        while (bs--) q[i][k++] = '\\';
        if (j < len) q[i][k++] = s[j];
      }
      q[i][k++] = '"';
      q[i][k] = 0;
    } else {
      q[i] = (char *)s;
    }
  }
  rc = i == n ? (int)_spawnvp(_P_WAIT, argv[0], (const char *const *)q) : -1;
  for (i = 0; i < n; ++i)
    if (q[i] && q[i] != argv[i]) free(q[i]);
  free(q);
  return rc;
#else
  execvp(argv[0], argv);
  return -1;
#endif
}

/* A stream into memory: open_memstream where POSIX has it; on Windows a
   temporary file (tmpfile) read back when closed. u_mem_close gives the
   bytes written (NUL-terminated, malloc'd) in *text and *len; 0, or EOF. */
typedef struct u_mem {
  FILE *f;
  char **text;
  size_t *len;
} u_mem;

static FILE *u_mem_open(u_mem *m, char **text, size_t *len) {
  m->text = text;
  m->len = len;
  *text = NULL;
  *len = 0;
#ifdef _WIN32
  m->f = tmpfile();
#else
  m->f = open_memstream(text, len);
#endif
  return m->f;
}

static int u_mem_close(u_mem *m) {
#ifdef _WIN32
  long n;
  int ok = fflush(m->f) == 0 && !ferror(m->f) && (n = ftell(m->f)) >= 0 &&
           fseek(m->f, 0, SEEK_SET) == 0;
  if (ok && (*m->text = (char *)malloc((size_t)n + 1)) != NULL) {
    ok = fread(*m->text, 1, (size_t)n, m->f) == (size_t)n;
    (*m->text)[ok ? n : 0] = 0;
    *m->len = ok ? (size_t)n : 0;
  } else {
    ok = 0;
  }
  return fclose(m->f) == 0 && ok ? 0 : EOF;
#else
  return fclose(m->f);
#endif
}

#endif /* LINATTN_PORT_H */
