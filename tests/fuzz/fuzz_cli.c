/* libFuzzer entry point for the linattn command's parser
   (cli/args.h): the input is split at NUL and newline bytes
   into argv after the program name. Besides not crashing, the parser must
   keep two promises checked here: an error is one line, and the run fields
   it read, written back as flags (the form of the sweep's commands), parse
   to the very same values. --help prints the table of the command parsed.

   clang -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_cli.c -lm */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>

#define LINATTN_IMPLEMENTATION
#include "linattn.h"
/* the harness drives the parser, not every JSON helper it comes with */
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "cli/args.h"

#define FUZZ_MAXARGS 64

static void fuzz_check_roundtrip(const cli_config *c) {
  static char words[CLI_MAX_FIELDS][2][80];
  char *argv[3 + 2 * CLI_MAX_FIELDS], err[600];
  const char *scratch[3 + 2 * CLI_MAX_FIELDS];
  cli_config again;
  int i, n = la_run_field_count(), argc = 2;
  argv[0] = (char *)"linattn";
  argv[1] = (char *)"train";
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    size_t k;
    if (!c->given[i]) continue;
    words[i][0][0] = words[i][0][1] = '-';
    for (k = 0; f->key[k]; ++k) words[i][0][k + 2] = f->key[k] == '_' ? '-' : f->key[k];
    words[i][0][k + 2] = 0;
    cli_field_text(&c->run, f, words[i][1], sizeof words[i][1]);
    if (f->kind == LA_FIELD_BOOL) {
      snprintf(words[i][0] + k + 2, sizeof words[i][0] - k - 2, "=%s", words[i][1]);
      argv[argc++] = words[i][0];
    } else {
      argv[argc++] = words[i][0];
      argv[argc++] = words[i][1];
    }
  }
  argv[argc] = NULL;
  if (cli_parse(argc, argv, &again, scratch, err, sizeof err) != CLI_OK) abort();
  for (i = 0; i < n; ++i) {
    double a, b;
    if (again.given[i] != c->given[i]) abort();
    if (!c->given[i]) continue;
    if (la_run_field_get(&c->run, la_run_field_at(i), &a) !=
        la_run_field_get(&again.run, la_run_field_at(i), &b))
      abort();
    if (a != b && !(a != a && b != b)) abort();
  }
}

/* The run the flags describe: when it resolves, its config line parses back
   to a grouping key, and the run resumed with the same flags agrees with
   itself. */
static void fuzz_check_run(const cli_config *c) {
  static FILE *sink;
  la_run_config rc, again;
  char err[600], key[4096];
  cli_config other = *c;
  if (cli_run_of(c, &rc, err, sizeof err) != CLI_OK) {
    if (!err[0] || strchr(err, '\n')) abort();
    return;
  }
  if (cli_resume_of(c, &rc, &again, err, sizeof err) != CLI_OK && !c->preset)
    abort();
  if (!sink && !(sink = tmpfile())) return;
  rewind(sink);
  {
    jw w;
    jw_begin(&w, sink);
    cli_write_run(&w, &rc);
    jw_end(&w);
  }
  {
    jv cfg;
    const char *why = NULL;
    char line[8192];
    rewind(sink);
    if (!fgets(line, sizeof line, sink) || jv_parse(line, &cfg, &why)) abort();
    cli_group_key(&cfg, key, sizeof key);
    jv_free(&cfg);
  }
  cli_give_name(&other, "opt", "sgd"); /* another run: it may resolve or not */
  (void)cli_run_of(&other, &rc, err, sizeof err);
}

/* --help prints the flag table of whatever command the parser settled on;
   one scratch file serves every input. */
static void fuzz_help(const cli_config *c) {
  static FILE *sink;
  if (!sink && !(sink = tmpfile())) return;
  rewind(sink);
  cli_help(sink, (unsigned)c->cmd, "usage: linattn\n");
  if (ferror(sink)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char buf[4096], *argv[FUZZ_MAXARGS + 1], err[600];
  const char *scratch[FUZZ_MAXARGS + 1];
  cli_config c;
  size_t i, n = size < sizeof buf - 1 ? size : sizeof buf - 1;
  int argc = 1, st;
  argv[0] = (char *)"linattn";
  memcpy(buf, data, n);
  buf[n] = 0;
  argv[argc++] = buf;
  for (i = 0; i < n && argc < FUZZ_MAXARGS; ++i)
    if (buf[i] == '\n' || buf[i] == 0) {
      buf[i] = 0;
      argv[argc++] = buf + i + 1;
    }
  argv[argc] = NULL;
  memset(err, 'x', sizeof err);
  st = cli_parse(argc, argv, &c, scratch, err, sizeof err);
  if (st == CLI_ERROR && (!memchr(err, 0, sizeof err) || strchr(err, '\n') ||
                          !err[0]))
    abort();
  if (st == CLI_OK && (c.cmd & (CLI_TRAIN | CLI_NOISE | CLI_CURV))) {
    fuzz_check_roundtrip(&c);
    fuzz_check_run(&c);
  }
  if (st == CLI_HELP) fuzz_help(&c);
  return 0;
}
