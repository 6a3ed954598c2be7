/* libFuzzer entry point for the linattn command's parser
   (examples/linattn_cli.h): the input is split at NUL and newline bytes
   into argv after the program name. Besides not crashing, the parser must
   keep two promises checked here: an error is one line, and the flags it
   writes beside a checkpoint parse back to the very same run. --help
   prints the table of the command parsed.

   clang -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_cli.c -lm */
#include <stdint.h>
#include <stdlib.h>

#include "examples/linattn_cli.h"

#define FUZZ_MAXARGS 64

static void fuzz_check_roundtrip(const cli_config *c) {
  static char words[16384];
  char *argv[3 + 2 * CLI_NFLAGS], err[400], *s;
  cli_config again;
  cli_run want = c->run;
  int len, argc = 2;
  cli_resolve_run(&want);
  {
    cli_config w = *c;
    w.run = want;
    len = cli_run_flags(&w, words, sizeof words);
  }
  if (len < 0) abort(); /* the buffer holds every flag of the table */
  argv[0] = (char *)"linattn";
  argv[1] = (char *)"train";
  for (s = words; *s && argc < (int)(sizeof argv / sizeof argv[0]);) {
    char *nl = strchr(s, '\n');
    argv[argc++] = s;
    if (!nl) break;
    *nl = 0;
    s = nl + 1;
  }
  if (cli_parse(argc, argv, &again, err, sizeof err) != CLI_OK) abort();
  cli_resolve_run(&again.run);
  if (memcmp(&again.run, &want, sizeof want) != 0) abort();
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
  char buf[4096], *argv[FUZZ_MAXARGS + 1], err[400];
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
  st = cli_parse(argc, argv, &c, err, sizeof err);
  if (st == CLI_ERROR && (!memchr(err, 0, sizeof err) || strchr(err, '\n') ||
                          !err[0]))
    abort();
  if (st == CLI_OK && (c.cmd & (CLI_TRAIN | CLI_NOISE | CLI_CURV)))
    fuzz_check_roundtrip(&c);
  if (st == CLI_HELP) fuzz_help(&c);
  return 0;
}
