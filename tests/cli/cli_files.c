/* The linattn command's file handling and exit statuses (examples/
   cli/io/sys.h), its JSON numbers (cli/io/json.h) and its number flags
   (cli/args.h), each held to what it promises: quoted paths read back by
   bash as the bytes they came from; outputs that appear only when complete,
   never through a link at a temporary's name; aliases found through links
   and "..", before anything exists; regular files only read, never a FIFO
   or a device; the temporaries of dead processes removed and no others.
   Built as C99 with POSIX, in a scratch folder of its own. */
#define _POSIX_C_SOURCE 200809L
#define LINATTN_IMPLEMENTATION
#include "linattn.h"
#include "cli/args.h"
#include "cli/io/sys.h"
#include "cli/io/npy.h"
#include "cli/study/runs.h"
#include "../unit/la_test.h"

/* What bash makes of a quoted word: its bytes, through printf %s. The
   word reaches bash through the environment, so that no quoting but the
   one tested is involved. */
static int bash_reads(const char *quoted, char *out, size_t cap) {
  FILE *p;
  size_t n;
  if (setenv("LA_WORD", quoted, 1) != 0) return -1;
  if (!(p = popen("bash -c 'eval \"printf %s $LA_WORD\"'", "r"))) return -1;
  n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  return pclose(p) == 0 ? (int)n : -1;
}

/* What dash (a POSIX shell, Debian's /bin/sh), or sh where there is no
   dash, makes of a word as u_print_word writes it, through a file: its
   bytes, through printf %s. */
static int posix_sh_reads(const char *word, char *out, size_t cap) {
  FILE *f = fopen("word.sh", "w"), *p;
  size_t n;
  if (!f) return -1;
  fputs("printf %s ", f);
  (void)u_print_word(f, word);
  fputc('\n', f);
  if (fclose(f) != 0) return -1;
  if (!(p = popen("if command -v dash > /dev/null; then dash word.sh; else sh word.sh; fi", "r")))
    return -1;
  n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  return pclose(p) == 0 ? (int)n : -1;
}

static int file_has(const char *path, const char *text) {
  char buf[256];
  size_t n;
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return !strcmp(buf, text);
}

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static int count_prefix(const char *prefix) {
  DIR *d = opendir(".");
  struct dirent *e;
  int n = 0;
  if (!d) return -1;
  while ((e = readdir(d)) != NULL)
    if (!strncmp(e->d_name, prefix, strlen(prefix))) ++n;
  closedir(d);
  return n;
}

static void suite_cli_files(la_t *t) {
  LA_TEST(t, "files: the exit statuses are one table, the worst wins") {
    int st[4] = {0, 1, 2, 0}, i;
    LA_CHECK(t, EXIT_DONE == 0 && EXIT_FAILED == 1 && EXIT_BAD_INPUT == 2 &&
                    EXIT_IO == 3 && EXIT_NOMEM == 4 && EXIT_NCODES == 5, "codes");
    for (i = 0; i < EXIT_NCODES; ++i)
      LA_CHECK(t, u_exit_meaning[i] && u_exit_meaning[i][0], "%d has no meaning", i);
    LA_CHECK(t, u_pool_status(st, 4) == 2, "1 and 2: %d", u_pool_status(st, 4));
    st[3] = 137; /* killed by a signal: the work failed */
    LA_CHECK(t, u_pool_status(st, 4) == 2 && u_exit_worse(0, 137) == 1, "signal");
    LA_CHECK(t, u_exit_worse(3, 2) == 3 && u_exit_worse(4, 3) == 4, "order");
    LA_CHECK(t, u_exit_of_errno(ENOSPC, 2) == EXIT_IO && u_exit_of_errno(ENOMEM, 2) == 4 &&
                    u_exit_of_errno(ENOENT, 2) == 2 && u_exit_of_errno(EACCES, 3) == 3,
             "errno");
  }

  LA_TEST(t, "files: a quoted path is one printable line, and bash reads it back") {
    static const char *const words[] = {
        "plain.jsonl", "it's", "a b", "new\nline", "esc\033[31mred", "tab\there",
        "bad\xff\xfe" "bytes", "c1\xc2\x9b" "csi", "caf\xc3\xa9", "back\\slash'quote",
        "\r", "", "\xe2\x80", "ok \xf0\x9f\x98\x80"};
    size_t i;
    for (i = 0; i < sizeof words / sizeof words[0]; ++i) {
      char q[U_QCAP], back[512];
      const unsigned char *p;
      int ctl = 0, n;
      u_quote(words[i], q, sizeof q);
      for (p = (const unsigned char *)q; *p; ++p)
        if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)) ctl = 1;
      LA_CHECK(t, !ctl, "word %d: a control byte in %s", (int)i, q);
      n = bash_reads(q, back, sizeof back);
      LA_CHECK(t, n == (int)strlen(words[i]) && !memcmp(back, words[i], (size_t)n),
               "word %d: %s reads back as %d bytes", (int)i, q, n);
    }
    {
      char big[3000], q[64];
      memset(big, 'x', sizeof big - 1);
      big[sizeof big - 1] = 0;
      big[5] = '\n';
      u_quote(big, q, sizeof q);
      LA_CHECK(t, strlen(q) < sizeof q && !strcmp(q + strlen(q) - 3, "...") &&
                      !strchr(q, '\n'),
               "a long word is cut: %s", q);
    }
  }

  LA_TEST(t, "files: a plan's word is one printable line that any POSIX shell reads back") {
    /* no newline: a plan refuses such a word (u_one_line) */
    static const char *const words[] = {
        "plain.jsonl", "it's", "a b", "esc\033[31mred", "tab\there", "p3\001'; touch X #",
        "lat\351in", "bad\xff\xfe" "bytes", "c1\xc2\x9b" "csi", "caf\xc3\xa9",
        "back\\slash'quote", "\r", "", "\xe2\x80", "ok \xf0\x9f\x98\x80", "'", "''x'",
        "$(touch X)`touch X`", "ctl at the end\001", "\001\002 two"};
    size_t i;
    for (i = 0; i < sizeof words / sizeof words[0]; ++i) {
      char back[512], line[1024];
      const unsigned char *p;
      int ctl = 0, n;
      FILE *f = fopen("word.txt", "w+");
      size_t len, k;
      if (!f) break;
      (void)u_print_word(f, words[i]);
      rewind(f);
      len = fread(line, 1, sizeof line - 1, f);
      line[len] = 0;
      fclose(f);
      for (p = (const unsigned char *)line; *p; p += k ? k : 1) /* printable UTF-8 */
        if (!(k = u_utf8_printable(p))) ctl = 1;
      LA_CHECK(t, !ctl && !strstr(line, "$'"), "word %d: a control byte or $'...' in %s",
               (int)i, line);
      n = posix_sh_reads(words[i], back, sizeof back);
      LA_CHECK(t, n == (int)strlen(words[i]) && !memcmp(back, words[i], (size_t)n),
               "word %d: %s reads back as %d bytes", (int)i, line, n);
      LA_CHECK(t, access("X", F_OK) != 0, "word %d: %s ran a command", (int)i, line);
    }
    LA_CHECK(t, u_one_line("a word", "new\nline") == EXIT_BAD_INPUT &&
                    u_one_line("a word", "tab\tok") == 0,
             "a newline refused, a tab kept");
  }

  LA_TEST(t, "files: number flags are decimal, whole, without blanks") {
    static const char *const bad[] = {"0x10", "\r1", " 1", "1 ", "1\n", "inf", "nan",
                                      "1e", "", "+", "--1", "1,5", "0x1p3", "١"};
    static const char *const good[] = {"1e4", "-0.5", "+2", "0.", ".5", "1E-3"};
    size_t i;
    double v;
    const char *why;
    for (i = 0; i < sizeof bad / sizeof bad[0]; ++i)
      LA_CHECK(t, !cli_real(bad[i], -1e300, 1e300, &v, &why), "'%s' accepted", bad[i]);
    for (i = 0; i < sizeof good / sizeof good[0]; ++i)
      LA_CHECK(t, cli_real(good[i], -1e300, 1e300, &v, &why) && v == strtod(good[i], NULL),
               "'%s' refused", good[i]);
  }

  LA_TEST(t, "files: JSON numbers as RFC 8259 has them, integers only when whole") {
    static const char *const bad[] = {"0x10", "01", "1.", ".5", "+1", "-", "1e", "1e+",
                                      "Infinity", "-Infinity", "NaN", "-nan", "0x1p3",
                                      "1.e5", "- 1"};
    static const char *const good[] = {"0", "-0", "-0.5e-3", "1E+2", "123456789",
                                       "1e400", "2.5"};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
      char text[64];
      jv v;
      snprintf(text, sizeof text, "{\"x\":%s}", bad[i]);
      LA_CHECK(t, jv_parse(text, &v, NULL) != 0, "%s accepted", bad[i]);
    }
    for (i = 0; i < sizeof good / sizeof good[0]; ++i) {
      char text[64];
      jv v;
      snprintf(text, sizeof text, "{\"x\":%s}", good[i]);
      LA_CHECK(t, jv_parse(text, &v, NULL) == 0 && jv_num(&v, "x") == strtod(good[i], NULL),
               "%s refused or misread", good[i]);
      if (jv_get(&v, "x")) jv_free(&v);
    }
    {
      jv v;
      LA_CHECK(t, jv_parse("{\"a\":5,\"b\":null,\"c\":1e300,\"d\":-1,\"e\":2.5,"
                           "\"f\":\"5\",\"g\":true,\"h\":1e400,\"i\":9e15}",
                           &v, NULL) == 0, "parse");
      LA_CHECK(t, jv_long(&v, "a", 0, 9e15, -7) == 5, "a");
      LA_CHECK(t, jv_long(&v, "b", 0, 9e15, -7) == -7 && jv_long(&v, "c", 0, 9e15, -7) == -7 &&
                      jv_long(&v, "d", 0, 9e15, -7) == -7 && jv_long(&v, "e", 0, 9e15, -7) == -7 &&
                      jv_long(&v, "f", 0, 9e15, -7) == -7 && jv_long(&v, "h", 0, 9e15, -7) == -7 &&
                      jv_long(&v, "missing", 0, 9e15, -7) == -7,
               "a value that is no whole number in range gave a number");
      LA_CHECK(t, jv_long(&v, "i", 0, 9e15, -7) == 9000000000000000L, "9e15");
      jv_free(&v);
    }
    { /* members counted through every level: 2 + 3 here */
      jv v;
      const char *why = NULL;
      LA_CHECK(t, jv_parse_max("{\"a\":[1,2,3],\"b\":{}}", &v, &why, 5) == 0, "5 members");
      jv_free(&v);
      LA_CHECK(t, jv_parse_max("{\"a\":[1,2,3],\"b\":{}}", &v, &why, 4) != 0 && why &&
                      strstr(why, "more members"), "5 members within 4");
    }
  }

  LA_TEST(t, "files: output paths are checked before anything exists") {
    mkdir("adir", 0777);
    LA_CHECK(t, u_output_ok("--out", NULL, 0) == 0 && u_output_ok("--out", "-", 0) == 0, "stdout");
    LA_CHECK(t, u_output_ok("--checkpoint", "-", 1) == 2, "a checkpoint is a file");
    LA_CHECK(t, u_output_ok("--out", "", 0) == 2 && u_output_ok("--out", "new/", 0) == 2 &&
                    u_output_ok("--out", "x/.", 0) == 2 && u_output_ok("--out", "..", 0) == 2 &&
                    u_output_ok("--out", "adir", 0) == 2,
             "a folder taken for a file");
    LA_CHECK(t, u_output_ok("--checkpoint", "/dev/null", 1) == 2 &&
                    u_output_ok("--out", "/dev/null", 0) == 0,
             "a device: an output, never a checkpoint");
    put("plain", "x");
    symlink("nowhere/x", "dangling");
    symlink("loop", "loop");
    LA_CHECK(t, u_output_ok("--out", "dangling", 0) == 2 && u_output_ok("--out", "loop", 0) == 2 &&
                    u_output_ok("--out", "plain/sub", 0) == 2 &&
                    u_output_ok("--out", "new/deep/o", 0) == 0,
             "a link to nothing, a loop, a path through a file: refused; a new folder's file taken");
    LA_CHECK(t, access("new", F_OK) != 0, "a check made a folder");
  }

  LA_TEST(t, "files: one file by two names is found, existing or not") {
    put("a", "a");
    link("a", "hard");
    symlink("a", "soft");
    symlink("adir", "dirlink");
    LA_CHECK(t, u_same_file("a", "./a") && u_same_file("a", "hard") && u_same_file("soft", "a") &&
                    u_same_file("adir/../a", "a"),
             "an existing file by other names");
    LA_CHECK(t, u_same_file("n1", "./n1") && u_same_file("x/../n1", "n1") &&
                    u_same_file("x/y/../../n1", "./n1") && u_same_file("dirlink/n2", "adir/n2") &&
                    u_same_file("adir/n2", "adir//n2"),
             "a new file by other names");
    LA_CHECK(t, !u_same_file("a", "n1") && !u_same_file("n1", "n2") && !u_same_file("x/n1", "n1") &&
                    !u_same_file("/dev/null", "/dev/null"),
             "different files, or a character device, taken as one");
    {
      u_path outs[3] = {{"--out", "o1"}, {"--svg", "./o1"}, {"--x", NULL}};
      u_path ins[1] = {{"--checkpoint", "soft"}};
      LA_CHECK(t, u_no_alias(outs, 3, ins, 1) == 2, "two outputs one file");
      outs[1].path = "o2";
      LA_CHECK(t, u_no_alias(outs, 3, ins, 1) == 0, "distinct outputs refused");
      outs[1].path = "hard";
      LA_CHECK(t, u_no_alias(outs, 3, ins, 1) == 2, "an output over an input");
      outs[0].path = outs[1].path = "-";
      LA_CHECK(t, u_no_alias(outs, 2, NULL, 0) == 2, "stdout twice");
    }
  }

  LA_TEST(t, "files: only regular files are read, of a bounded size") {
    char *buf = NULL;
    size_t len = 0;
    mkfifo("fifo", 0666);
    LA_CHECK(t, u_read_regular("fifo", 1000, &buf, &len) == ENODEV, "a FIFO");
    LA_CHECK(t, u_read_regular("/dev/zero", 1000, &buf, &len) == ENODEV, "a device");
    LA_CHECK(t, u_read_regular("adir", 1000, &buf, &len) == EISDIR, "a folder");
    LA_CHECK(t, u_read_regular("missing", 1000, &buf, &len) == ENOENT, "missing");
    put("five", "12345");
    LA_CHECK(t, u_read_regular("five", 4, &buf, &len) == EFBIG && !buf, "past the bound");
    LA_CHECK(t, u_read_regular("five", 5, &buf, &len) == 0 && len == 5 && !strcmp(buf, "12345"),
             "a file");
    free(buf);
    LA_CHECK(t, u_read_file("fifo", "a checkpoint", &buf, &len) == EXIT_BAD_INPUT &&
                    u_read_file("adir", "a checkpoint", &buf, &len) == EXIT_BAD_INPUT,
             "statuses");
  }

  LA_TEST(t, "files: an output appears whole, and never through a planted link") {
    u_out o;
    char tmp[sizeof o.tmp];
    struct stat st;
    LA_CHECK(t, u_open(&o, "out1") == 0, "open");
    fputs("hello", o.f);
    LA_CHECK(t, access("out1", F_OK) != 0, "the output exists before it is complete");
    LA_CHECK(t, lstat(o.tmp, &st) == 0 && S_ISREG(st.st_mode), "the temporary");
    LA_CHECK(t, !strncmp(o.tmp, "out1.tmp.", 9), "its name: %s", o.tmp);
    LA_CHECK(t, u_commit(&o) == 0 && file_has("out1", "hello") && access(o.tmp, F_OK) != 0,
             "committed");
    /* the next temporary: another unpredictable name */
    LA_CHECK(t, u_open(&o, "out1") == 0, "open again");
    snprintf(tmp, sizeof tmp, "%s", o.tmp);
    u_abort(&o);
    LA_CHECK(t, access(tmp, F_OK) != 0, "abort leaves its temporary");
    LA_CHECK(t, u_open(&o, "out1") == 0 && strcmp(tmp, o.tmp) != 0, "the same name twice");
    u_abort(&o);
    /* links: written where they point; to nothing: refused */
    symlink("out1", "latest");
    LA_CHECK(t, u_open(&o, "latest") == 0 && !strcmp(o.path, "./out1"), "through a link: %s",
             o.path);
    fputs("again", o.f);
    LA_CHECK(t, u_commit(&o) == 0 && file_has("out1", "again") && lstat("latest", &st) == 0 &&
                    S_ISLNK(st.st_mode),
             "the link kept, its file replaced");
    symlink("nowhere/x", "dangling");
    LA_CHECK(t, u_open(&o, "dangling") == EXIT_BAD_INPUT, "a link to nothing");
    LA_CHECK(t, u_open_as(&o, "/dev/null", 1) == EXIT_BAD_INPUT, "a device as a checkpoint");
    LA_CHECK(t, u_open(&o, "/dev/null") == 0 && o.direct, "a device as an output");
    fputs("x", o.f);
    LA_CHECK(t, u_commit(&o) == 0, "commit to a device");
    LA_CHECK(t, u_open(&o, "/dev/full") == 0 && o.direct, "/dev/full");
    fputs("x", o.f);
    LA_CHECK(t, u_commit(&o) == EXIT_IO, "a full device is EXIT_IO");
  }

  LA_TEST(t, "files: the temporaries of dead processes go, no others") {
    char host[40], name[200];
    pid_t dead = fork();
    struct stat st;
    if (dead == 0) _exit(0);
    waitpid(dead, NULL, 0);
    u_host(host, sizeof host);
#define STALE(fmt, ...)                                                       \
  do {                                                                        \
    snprintf(name, sizeof name, fmt, __VA_ARGS__);                            \
    put(name, "x");                                                           \
  } while (0)
    STALE("k.tmp.%s.%ld.0123456789abcdef", host, (long)dead);
    STALE("k.tmp.%s.%ld.0123456789abcdef", host, (long)getppid());   /* alive */
    STALE("k.tmp.other-host.%ld.0123456789abcdef", (long)dead);      /* elsewhere */
    STALE("k.tmp.%s.%ld.0123456789abcdeg", host, (long)dead);        /* not ours */
    STALE("kk.tmp.%s.%ld.0123456789abcdef", host, (long)dead);       /* another file's */
    STALE("k.tmp.%s.%ld.0123456789abcdef", host, (long)dead + 1000000);
    if (geteuid() == 0) chown(name, 65534, 65534); /* another user's */
    snprintf(name, sizeof name, "k.tmp.%s.%ld.0123456789abcdef", host, (long)dead);
    LA_CHECK(t, count_prefix("k.tmp.") == 5, "set up");
    {
      u_out o;
      LA_CHECK(t, u_open(&o, "k") == 0, "open");
      LA_CHECK(t, u_commit(&o) == 0, "commit");
    }
    LA_CHECK(t, lstat(name, &st) != 0, "the dead process's temporary is there");
    LA_CHECK(t, count_prefix("k.tmp.") == (geteuid() == 0 ? 4 : 3) &&
                    count_prefix("kk.tmp.") == 1,
             "another's temporary removed: %d left", count_prefix("k.tmp."));
#undef STALE
  }

  LA_TEST(t, "files: a folder is made only after its path is checked") {
    LA_CHECK(t, u_mkdirs("m1/m2") == 0 && access("m1/m2", F_OK) == 0, "made");
    LA_CHECK(t, count_prefix(".linattn-probe") == 0, "the probe is left");
    put("afile", "x");
    LA_CHECK(t, u_mkdirs("afile") == EXIT_BAD_INPUT && u_mkdirs("afile/sub") == EXIT_BAD_INPUT,
             "a file taken for a folder");
    LA_CHECK(t, u_folder_ok("--out", "") == EXIT_BAD_INPUT, "empty");
  }
}

static void suite_npy(la_t *t) {
  LA_TEST(t, "files: a .npy file read as numpy wrote it, anything else refused") {
    /* numpy's own bytes: np.save of float64 [[1, 2, 3]] and float32 [1.5, -2] */
    static const char h8[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 3), }";
    static const char h4[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    unsigned char buf[256];
    size_t len;
    npy_array a;
    const char *why = "";
    double v8[3] = {1, 2, 3};
    float v4[2] = {1.5f, -2.0f};
    int k;
    /* version 1.0: magic, 2 bytes of length, the dict, the values */
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)sizeof h8 - 1;
    buf[9] = 0;
    memcpy(buf + 10, h8, sizeof h8 - 1);
    len = 10 + sizeof h8 - 1;
    for (k = 0; k < 3; ++k) {
      uint64_t u;
      int b;
      memcpy(&u, &v8[k], 8);
      for (b = 0; b < 8; ++b) buf[len++] = (unsigned char)(u >> (8 * b));
    }
    LA_CHECK(t, npy_parse(buf, len, &a, &why) == 0 && a.ndim == 2 && a.shape[0] == 1 &&
                    a.shape[1] == 3 && a.count == 3 && a.v[2] == 3,
             "float64 (1, 3): %s", why);
    free(a.v);
    LA_CHECK(t, npy_parse(buf, len - 1, &a, &why) == -1 && strstr(why, "fill"), "cut: %s", why);
    buf[20] = 'X';
    LA_CHECK(t, npy_parse(buf, len, &a, &why) == -1, "a damaged dict: %s", why);
    memcpy(buf + 10, h4, sizeof h4 - 1);
    buf[8] = (unsigned char)sizeof h4 - 1;
    len = 10 + sizeof h4 - 1;
    for (k = 0; k < 2; ++k) {
      uint32_t u;
      int b;
      memcpy(&u, &v4[k], 4);
      for (b = 0; b < 4; ++b) buf[len++] = (unsigned char)(u >> (8 * b));
    }
    LA_CHECK(t, npy_parse(buf, len, &a, &why) == 0 && a.ndim == 1 && a.count == 2 &&
                    a.v[0] == 1.5 && a.v[1] == -2,
             "float32 (2,): %s", why);
    free(a.v);
    v4[1] = (float)NAN;
    memcpy(buf + len - 4, &v4[1], 4);
    LA_CHECK(t, npy_parse(buf, len, &a, &why) == -1 && strstr(why, "NaN"), "a NaN: %s", why);
    memcpy(buf + 10, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
           sizeof h4 - 1);
    LA_CHECK(t, npy_parse(buf, len, &a, &why) == -1 && strstr(why, "float"), "ints: %s", why);
    LA_CHECK(t, npy_parse((const unsigned char *)"PK\x03\x04 not npy", 16, &a, &why) == -1,
             "an .npz: %s", why);
  }

  LA_TEST(t, "files: a run file that repeats its lines: refused or read, nothing held (LeakSanitizer)") {
    static const char cfg[] = "{\"type\":\"config\",\"d\":5}\n";
    static const char step[] = "{\"type\":\"step\",\"step\":1,\"eval_loss\":2}\n";
    static const char sum[] = "{\"type\":\"summary\",\"status\":\"ok\",\"steps\":1}\n";
    /* each file and whether it holds a run */
    static const struct {
      const char *lines[5];
      int ok;
    } f[] = {{{cfg, step, sum, sum, NULL}, 0},  /* a summary twice */
             {{cfg, step, sum, step, NULL}, 0}, /* a step after the run ended */
             {{cfg, cfg, step, sum, NULL}, 1},  /* a config twice: the first run */
             {{cfg, step, sum, cfg, sum}, 1},   /* two runs: the first */
             {{cfg, step, step, sum, "x\n"}, 0}};
    size_t i, k;
    for (i = 0; i < sizeof f / sizeof f[0]; ++i) {
      FILE *o = fopen("rep.jsonl", "w");
      runlog r;
      char err[600] = "";
      int st;
      if (!o) break;
      for (k = 0; k < 5 && f[i].lines[k]; ++k) fputs(f[i].lines[k], o);
      fclose(o);
      st = runlog_load("rep.jsonl", &r, err, sizeof err);
      LA_CHECK(t, f[i].ok ? st == 0 && r.config.type == JV_OBJ
                          : st != 0 && r.config.type == JV_NULL && r.f[F_EVAL].x == NULL,
               "file %d: status %d (%s)", (int)i, st, err);
      if (!st) runlog_free(&r);
    }
  }

  LA_TEST(t, "files: a .npy header is its dict whole: each key once, nothing else") {
    /* the same 60 bytes of values after each header: float64 (2, 3) needs
       48; (6,) too; a header that is not numpy's is refused whatever */
    static const struct {
      const char *dict;
      int ok;
    } h[] = {
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 1},
        {"{'shape': (6,), 'fortran_order': False, 'descr': '=f8'}      \n", 1},
        {"{'descr': '<f8', 'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 0},
        {"{'descr': '<i8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 0},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", 0},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }\0'descr': '>f8'", 0},
        {"{'descr': '<f8', 'fortran_order': False}", 0},
        {"{'descr': '<f8', 'shape': (2, 3)}", 0},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), } trailing", 0},
        {"{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", 0},
        {"{'descr': '<f8' 'fortran_order': False, 'shape': (2, 3), }", 0},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3),", 0}};
    size_t i, dl[sizeof h / sizeof h[0]];
    dl[5] = 61 + 14; /* the one with a NUL: its bytes after it count */
    for (i = 0; i < sizeof h / sizeof h[0]; ++i) {
      unsigned char buf[512];
      size_t len = i == 5 ? dl[5] : strlen(h[i].dict), k;
      npy_array a;
      const char *why = "";
      int rc;
      memcpy(buf, "\x93NUMPY\x01\x00", 8);
      buf[8] = (unsigned char)len;
      buf[9] = 0;
      memcpy(buf + 10, h[i].dict, len);
      for (k = 0; k < 48; ++k) buf[10 + len + k] = k % 8 == 7 ? 0x3f : 0; /* 1/128 */
      rc = npy_parse(buf, 10 + len + 48, &a, &why);
      LA_CHECK(t, h[i].ok ? rc == 0 && a.count == 6 : rc == -1, "header %d: rc %d (%s)", (int)i,
               rc, why);
      if (rc == 0) free(a.v);
    }
  }
}

int main(int argc, char **argv) {
  static const la_suite suites[] = {{"cli-files", suite_cli_files}, {"npy", suite_npy}};
  const char *dir = argc > 1 ? argv[1] : "build/cli-files";
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
  if (system(cmd) != 0 || chdir(dir) != 0) {
    printf("cannot make the scratch folder %s\n0 passed, 1 failed\n", dir);
    return 1;
  }
  return la_t_run(suites, 2, NULL, 0, 0);
}
