/* linattn - paper A's and paper B's experiments from the command line.

   Each subcommand lives in the file named for it, its entry cmd_NAME and
   its --help text NAME_help there:

     linattn reproduce            paper A: cli/commands/reproduce.h; --paper b:
                                  cli/commands/paperb.h; --optimizers:
                                  cli/commands/optimizers.h
     linattn train ...            cli/commands/train.h: one run, JSON lines,
                                  checkpoints, resume
     linattn noise | curvature    cli/commands/noise_curvature.h: measurements at
                                  initialization or a checkpoint (--at)
     linattn theorem              cli/commands/theorem.h: paper B's closed forms;
                                  --check depth|context|theorem4|lemma4|
                                  optimum: cli/commands/paperb.h
     linattn sweep | report       cli/commands/sweep_report_export.h: grids of
     linattn export FILES...      runs, their merged report, CSV for pandas

   The list of subcommands is CLI_COMMANDS in cli/args.h (with the
   parser, the flag table and the run fields' flags); the table below and
   main, which dispatches on it, are all this file holds. What several
   commands share (building a run, reading a checkpoint, the check of the
   outputs) is in cli/common.h; the plumbing in cli/io/sys.h (files,
   processes, exit statuses), cli/io/json.h, cli/study/runs.h (reading runs
   back), cli/io/svg.h (figures) and cli/io/npy.h.

   Every subcommand takes --help. Exit statuses: one table for all
   (cli/io/sys.h, printed by --help): 0 done, 1 the work failed, 2 bad
   input, 3 a file could not be written or read, 4 out of memory. Built by
   `make` into build/linattn; C99 + POSIX, the library through its public
   API only: this file is the one translation unit. */
#define _POSIX_C_SOURCE 200809L
#define LINATTN_IMPLEMENTATION
#include "linattn.h"

#include "args.h"
#include "common.h"
#include "commands/noise_curvature.h"
#include "commands/reproduce.h"
#include "commands/optimizers.h"
#include "commands/sweep_report_export.h"
#include "commands/theorem.h"
#include "commands/train.h"
#include "io/sys.h"

/* Each row of CLI_COMMANDS: the function that runs it and its --help. */
typedef struct command {
  int (*run)(const cli_config *c);
  const char *help;
} command;
#define COMMAND_(ID, name, groups, summary) {cmd_##name, name##_help},
static const command commands[] = {CLI_COMMANDS(COMMAND_)};

/* The program's --help, before the command table. */
static const char top_help[] =
    "linattn - the linear-transformer testbed of Ahn et al. (arXiv:2310.01082,\n"
    "arXiv:2306.00297) from the command line.\n\n"
    "usage: linattn SUBCOMMAND [FLAGS]   (linattn SUBCOMMAND --help for its flags)\n\n";

int main(int argc, char **argv) {
  cli_config c;
  char err[600];
  const char **scratch;
  int st;
  u_sys_init();
  if (!(scratch = (const char **)calloc((size_t)argc + 1, sizeof(char *)))) return u_oom();
  st = cli_parse(argc, argv, &c, scratch, err, sizeof err);
  if (st == CLI_HELP) {
    cli_help(stdout, (unsigned)c.cmd, c.cmd ? commands[cli_cmd_index(c.cmd)].help : top_help);
    u_exit_table(stdout);
    free(scratch);
    return u_stdout_check();
  }
  if (st == CLI_VERSION) {
    printf("linattn %s (%s backend, %s)\n", la_version_string(),
           la_backend_name(), precision_name);
    free(scratch);
    return u_stdout_check();
  }
  if (st != CLI_OK) {
    if (c.cmd) fprintf(stderr, "linattn %s: %s\n", cli_cmd_name(c.cmd), err);
    else fprintf(stderr, "linattn: %s\n", err);
    free(scratch);
    return EXIT_BAD_INPUT;
  }
  st = commands[cli_cmd_index(c.cmd)].run(&c);
  free(scratch);
  /* what a command printed and did not check is checked here */
  return u_exit_worse(st, u_stdout_check());
}
