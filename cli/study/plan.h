/* cli/study/plan.h - a study as runs that any scheduler starts: each run one
   self-contained command line (every flag explicit, one output of its
   own), written one a line into the stage files of a plan folder, beside
   the lines that start them under xargs, GNU parallel or a Slurm job
   array; the study's merge (`reproduce --from DIR`) then builds its report
   from their outputs. A plan folder DIR holds:
     DIR/plan/flags           the study's own flags, one a line (the merge
                              reads them back: the same study, the same
                              report)
     DIR/plan/stage-K.txt     the commands of stage K (a tuned study has two:
                              the learning-rate grid, then the seeds at the
                              rates chosen; the merge writes stage 2 when
                              stage 1 is done)
     DIR/plan/stage-K.sbatch  with --slurm: a job array over stage K, one
                              task a command, a log a task in DIR/plan/logs
                              (submit.sh splits a stage into arrays of 1000
                              tasks at most, Slurm's default limit)
     DIR/plan/merge.sbatch    the merge, a job that runs when the array has
                              ended (afterany: a run that diverged exits 1
                              with its output complete, and the merge names
                              the runs whose output is missing, with the
                              commands that redo them)
     DIR/plan/submit.sh       submits the next stage and its merge; the
                              merge writes the stage after it and submits
                              it in turn (DIR/plan/slurm marks the plan)
   A folder holds one plan: each writer begins with plan_begin, which
   removes every file of an earlier plan (and the writer its runs'
   outputs), and every line is quoted for any POSIX shell (u_print_word).
   reproduce writes its plans here, and so does `sweep --slurm`: one stage
   of train commands, and a merge that runs `report DIR`; and `theorem
   --check depth|context --plan DIR`: one stage of units (theorem --unit),
   and a merge that runs `theorem --from DIR`. */
#ifndef LINATTN_PLAN_H
#define LINATTN_PLAN_H

#include "../args.h"
#include "../io/sys.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ words */
/* The words of one command, each its own copy. */
typedef struct words {
  char **v;
  int n, cap;
} words;

static void words_free(words *w) {
  int i;
  for (i = 0; i < w->n; ++i) free(w->v[i]);
  free(w->v);
  memset(w, 0, sizeof *w);
}

/* A word added: 0, or -1 out of memory. */
static int words_add(words *w, const char *s) {
  size_t len = strlen(s) + 1;
  if (w->n + 1 >= w->cap) {
    int cap = w->cap ? 2 * w->cap : 32;
    char **nv = (char **)realloc(w->v, sizeof(char *) * (size_t)cap);
    if (!nv) return -1;
    w->v = nv;
    w->cap = cap;
  }
  if (!(w->v[w->n] = (char *)malloc(len))) return -1;
  memcpy(w->v[w->n++], s, len);
  w->v[w->n] = NULL;
  return 0;
}

/* The run fields c gives that command `cmd` takes, as flags, then its
   program flags that hold a value (those named in skip, a NULL-terminated
   list, left out). */
static int words_command(words *w, const cli_config *c, int cmd,
                         const char *const *skip) {
  int i, n = la_run_field_count();
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    char flag[96], val[80];
    size_t k;
    if (!c->given[i] || !cli_field_applies(cmd, f)) continue;
    flag[0] = flag[1] = '-';
    for (k = 0; f->key[k] && k + 3 < sizeof flag; ++k)
      flag[k + 2] = f->key[k] == '_' ? '-' : f->key[k];
    flag[k + 2] = 0;
    cli_field_text(&c->run, f, val, sizeof val);
    if (f->kind == LA_FIELD_BOOL) {
      size_t used = strlen(flag);
      snprintf(flag + used, sizeof flag - used, "=%s", val);
      if (words_add(w, flag)) return -1;
    } else if (words_add(w, flag) || words_add(w, val)) {
      return -1;
    }
  }
  for (i = 0; i < CLI_NFLAGS; ++i) {
    const cli_flag *f = &cli_flags[i];
    char flag[64], val[4200];
    int k, skipped = 0;
    /* an option of another command shares its memory with c's own */
    if (cli_in_opts(f) && !(f->cmds & (unsigned)c->cmd)) continue;
    if (!(f->cmds & (unsigned)cmd) || !cli_flag_set(c, f)) continue;
    for (k = 0; skip && skip[k]; ++k) skipped |= !strcmp(skip[k], f->name);
    if (skipped) continue;
    snprintf(flag, sizeof flag, "--%s", f->name);
    cli_flag_text(c, f, val, sizeof val);
    if (words_add(w, flag) || (f->kind != CLI_K_BOOL && words_add(w, val))) return -1;
  }
  return 0;
}

/* The words as a shell reads them back. 0, or -1 out of memory. */
static int words_print(FILE *f, const words *w) {
  int i;
  for (i = 0; i < w->n; ++i) {
    if (i) fputc(' ', f);
    if (u_print_word(f, w->v[i])) return -1;
  }
  return 0;
}

/* The words as one line. */
static int words_line(FILE *f, const words *w) {
  if (words_print(f, w)) return -1;
  fputc('\n', f);
  return 0;
}

/* ------------------------------------------------------------ the plan */
/* A path as another folder reads it: path itself when absolute, else
   below the working folder. 0, or -1 (too long, or no working folder). */
static int plan_absolute(const char *path, char *buf, size_t cap) {
  char cwd[4096];
  int k;
  if (path[0] == '/') k = snprintf(buf, cap, "%s", path);
  else if (!getcwd(cwd, sizeof cwd)) return -1;
  else k = snprintf(buf, cap, "%s/%s", cwd, path);
  return k < 0 || (size_t)k >= cap ? -1 : 0;
}

/* The program's path as another process starts it: absolute where argv0
   names a file (a job array runs in another folder), else argv0 (found on
   PATH). */
static void plan_program(const char *argv0, char *buf, size_t cap) {
  if (!strchr(argv0, '/') || plan_absolute(argv0, buf, cap) != 0)
    snprintf(buf, cap, "%s", argv0);
}

/* The longest plan folder (absolute): every file of the plan and of its
   runs lies below it with a name of 400 bytes at most (a sweep's run, a
   temporary beside it), and each must fit a path whole. */
#define PLAN_DIR_MAX (U_PATH_MAX - 512)

/* DIR as an absolute path (the commands' outputs are found from any
   folder), into buf: EXIT_BAD_INPUT when it is longer than PLAN_DIR_MAX
   or holds a newline (a plan is lines). */
static int plan_abs_dir(const char *dir, char *buf, size_t cap) {
  if (plan_absolute(dir, buf, cap) != 0)
    return u_fail(EXIT_BAD_INPUT, "%s: the path is too long, or the working folder cannot "
                  "be read", U_Q(dir));
  if (strlen(buf) > PLAN_DIR_MAX)
    return u_fail(EXIT_BAD_INPUT, "%s: the folder's path has %lu bytes; a plan's files "
                  "and runs below it need it within %d", U_Q(dir),
                  (unsigned long)strlen(buf), PLAN_DIR_MAX);
  return u_one_line("the folder", buf);
}

/* Removes path (a file or a link, never what it names): 0, or the status. */
static int plan_remove(const char *path) {
  int e;
  if (unlink(path) == 0 || errno == ENOENT) return 0;
  e = errno;
  return u_fail(u_exit_of_errno(e, EXIT_IO), "cannot remove the previous %s: %s",
                U_Q(path), strerror(e));
}

/* The files of folder dir/sub (sub "" for dir itself) whose names end in
   suffix ("" for every one) removed; a link at dir/sub is removed itself,
   never followed, so nothing outside the folder is touched; folders are
   kept. 0, or the status. */
static int plan_clear(const char *dir, const char *sub, const char *suffix) {
  char path[4300], file[4600];
  struct stat st;
  struct dirent *e;
  size_t ls = strlen(suffix);
  DIR *d;
  int rc = 0;
  snprintf(path, sizeof path, "%.4000s%s%s", dir, *sub ? "/" : "", sub);
  if (lstat(path, &st) != 0) return 0;
  if (S_ISLNK(st.st_mode)) return plan_remove(path);
  if (!S_ISDIR(st.st_mode)) return 0; /* u_mkdirs refuses it */
  if (!(d = opendir(path))) return 0; /* u_mkdirs says why, if it matters */
  while (!rc && (e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < ls || strcmp(e->d_name + len - ls, suffix) != 0 || !strcmp(e->d_name, ".") ||
        !strcmp(e->d_name, ".."))
      continue;
    snprintf(file, sizeof file, "%s/%s", path, e->d_name);
    /* a folder of that name is no output: what writes there says so */
    if (lstat(file, &st) == 0 && !S_ISDIR(st.st_mode)) rc = plan_remove(file);
  }
  (void)closedir(d); /* read only */
  return rc;
}

/* A new plan in folder dir (sweep --slurm, reproduce --plan, theorem
   --plan): dir made absolute into abs (plan_abs_dir), created and owned
   (u_own: a link planted at DIR/plan, DIR/runs or any file of the plan is
   replaced, never written through), and every file of an earlier plan
   removed: DIR/plan's stages, scripts, marks (stage-K.submitted), flags
   and logs, so that submit.sh and the merge see this plan alone; the
   caller removes the earlier runs' outputs (plan_clear). */
static int plan_begin(const char *dir, char *abs, size_t cap) {
  char full[U_PATH_MAX];
  int st;
  if ((st = u_folder_ok("the plan folder", dir)) != 0 ||
      (st = plan_abs_dir(dir, full, sizeof full)) != 0)
    return st;
  if (strlen(full) >= cap) return u_fail(EXIT_BAD_INPUT, "%s: the path is too long", U_Q(dir));
  memmove(abs, full, strlen(full) + 1); /* abs may be dir */
  u_own(abs);
  if ((st = u_mkdirs(abs)) != 0 || (st = plan_clear(abs, "plan", "")) != 0 ||
      (st = plan_clear(abs, "plan/logs", "")) != 0)
    return st;
  return 0;
}

/* A file of the plan, written through a temporary (complete or absent). */
typedef void (*plan_write_fn)(FILE *f, void *ctx);
static int plan_file(const char *dir, const char *name, plan_write_fn fill, void *ctx) {
  char path[4400];
  u_out o;
  int st;
  snprintf(path, sizeof path, "%.4000s/plan/%s", dir, name);
  if ((st = u_open(&o, path)) != 0) return st;
  fill(o.f, ctx);
  return u_commit(&o);
}

typedef struct plan_stage {
  const char *dir;      /* the plan folder, absolute */
  const char *program;  /* the program, as the jobs start it */
  int stage, n;         /* its number, its commands */
  const words *cmds;
  long threads, jobs;   /* CPUs a command, commands at once */
  const words *merge;   /* the merge's command line: the report, or the
                           next stage (reproduce --from DIR, report DIR) */
} plan_stage;

static void plan_fill_stage(FILE *f, void *ctx) {
  const plan_stage *p = (const plan_stage *)ctx;
  int i;
  for (i = 0; i < p->n; ++i) (void)words_line(f, &p->cmds[i]);
}

/* Tasks an array at most: Slurm's default MaxArraySize is 1001 (indices
   0 to 1000), so a longer stage is submitted as several arrays, each
   starting at its offset into the stage's lines. */
#define PLAN_ARRAY_MAX 1000

/* The job array over stage K: task i of the array at offset OFF (its
   argument) runs line OFF + i, on the CPUs Slurm gives it (la_cpu_count
   reads SLURM_CPUS_PER_TASK), its log DIR/plan/logs/stage-K-LINE.log. */
static void plan_fill_sbatch(FILE *f, void *ctx) {
  const plan_stage *p = (const plan_stage *)ctx;
  fprintf(f, "#!/bin/sh\n#SBATCH --job-name=linattn-stage-%d\n", p->stage);
  fprintf(f, "#SBATCH --array=1-%d", p->n < PLAN_ARRAY_MAX ? p->n : PLAN_ARRAY_MAX);
  if (p->jobs > 0) fprintf(f, "%%%ld", p->jobs);
  fprintf(f, "\n#SBATCH --cpus-per-task=%ld\n", p->threads > 0 ? p->threads : 1);
  fprintf(f, "#SBATCH --output=/dev/null\n");
  fprintf(f, "# line OFF + SLURM_ARRAY_TASK_ID of ");
  (void)u_print_word(f, p->dir);
  fprintf(f, "/plan/stage-%d.txt a task (OFF: the argument, 0 when none;\n"
             "# submit.sh gives it, an array of %d lines at most)\n",
          p->stage, PLAN_ARRAY_MAX);
  fprintf(f, "line=$((${1:-0} + SLURM_ARRAY_TASK_ID))\nexec > ");
  (void)u_print_word(f, p->dir);
  fprintf(f, "/plan/logs/stage-%d-\"$line\".log 2>&1\ncmd=$(sed -n \"${line}p\" ", p->stage);
  (void)u_print_word(f, p->dir);
  fprintf(f, "/plan/stage-%d.txt)\nexec sh -c \"$cmd\"\n", p->stage);
}

/* The merge: the study's report from the outputs, or the next stage's
   commands, submitted in their turn. */
static void plan_fill_merge(FILE *f, void *ctx) {
  const plan_stage *p = (const plan_stage *)ctx;
  /* its log named by the shell, as a task's is: sbatch reads an #SBATCH
     line without a shell, and a folder's name may need one */
  fprintf(f, "#!/bin/sh\n#SBATCH --job-name=linattn-merge\n#SBATCH --output=/dev/null\n"
             "exec > ");
  (void)u_print_word(f, p->dir);
  fprintf(f, "/plan/logs/merge-\"$SLURM_JOB_ID\".log 2>&1\n");
  (void)words_print(f, p->merge);
  fprintf(f, " || exit $?\n# a stage written since: submitted with its own merge\n"
             "exec sh ");
  (void)u_print_word(f, p->dir);
  fprintf(f, "/plan/submit.sh\n");
}

/* Submits the newest stage not yet submitted, as arrays of PLAN_ARRAY_MAX
   tasks at most (with --jobs each after the one before, so that at most
   that many run at once), and the merge after them all. */
static void plan_fill_submit(FILE *f, void *ctx) {
  const plan_stage *p = (const plan_stage *)ctx;
  char throttle[32] = "";
  if (p->jobs > 0) snprintf(throttle, sizeof throttle, "%%%ld", p->jobs);
  fprintf(f, "#!/bin/sh\n# submits the plan's next stage and its merge (afterany)\n"
             "set -e\nplan=");
  (void)u_print_word(f, p->dir);
  fprintf(f, "/plan\nk=1\nwhile [ -f \"$plan/stage-$k.sbatch\" ]; do\n"
             "  [ -f \"$plan/stage-$k.submitted\" ] || break\n  k=$((k + 1))\ndone\n"
             "[ -f \"$plan/stage-$k.sbatch\" ] || exit 0\n"
             "mkdir -p \"$plan/logs\"\n"
             "n=$(grep -c '' \"$plan/stage-$k.txt\")\n"
             "off=0\ndeps=\nafter=\n"
             "while [ \"$off\" -lt \"$n\" ]; do\n"
             "  m=$((n - off))\n  [ \"$m\" -le %d ] || m=%d\n"
             "  jid=$(sbatch --parsable --array=1-\"$m\"%s $after \"$plan/stage-$k.sbatch\" \"$off\")\n"
             "  deps=\"$deps:${jid%%%%;*}\"\n",
          PLAN_ARRAY_MAX, PLAN_ARRAY_MAX, throttle);
  if (p->jobs > 0) fprintf(f, "  after=--dependency=afterany:${jid%%%%;*}\n");
  fprintf(f, "  off=$((off + m))\ndone\n"
             "echo \"${deps#:}\" > \"$plan/stage-$k.submitted\"\n"
             "sbatch --parsable --dependency=afterany\"$deps\" \"$plan/merge.sbatch\"\n");
}

static void plan_fill_mark(FILE *f, void *ctx) {
  (void)ctx;
  fprintf(f, "this plan's stages run as Slurm job arrays (submit.sh)\n");
}

/* Whether the plan in dir runs under Slurm (plan_write marked it). */
static int plan_is_slurm(const char *dir) {
  char path[4400];
  FILE *f;
  snprintf(path, sizeof path, "%.4000s/plan/slurm", dir);
  if (!(f = fopen(path, "r"))) return 0;
  (void)fclose(f); /* read only */
  return 1;
}

/* Stage K of a plan: its commands, and with slurm its job array, the merge
   and the script that submits them; then how to run it, on stdout. */
static int plan_write(const plan_stage *p, int slurm) {
  char name[64], logs[4400];
  int st, i, k;
  /* every word whole on its line, checked before anything is written */
  if ((st = u_one_line("the program", p->program)) != 0 ||
      (st = u_one_line("the plan folder", p->dir)) != 0)
    return st;
  for (i = 0; i < p->n; ++i)
    for (k = 0; k < p->cmds[i].n; ++k)
      if ((st = u_one_line("a run's word", p->cmds[i].v[k])) != 0) return st;
  for (k = 0; k < p->merge->n; ++k)
    if ((st = u_one_line("the merge's word", p->merge->v[k])) != 0) return st;
  snprintf(name, sizeof name, "stage-%d.txt", p->stage);
  if ((st = plan_file(p->dir, name, plan_fill_stage, (void *)p)) != 0) return st;
  if (slurm) {
    snprintf(logs, sizeof logs, "%s/plan/logs", p->dir);
    snprintf(name, sizeof name, "stage-%d.sbatch", p->stage);
    if ((st = u_mkdirs(logs)) != 0 ||
        (st = plan_file(p->dir, name, plan_fill_sbatch, (void *)p)) != 0 ||
        (st = plan_file(p->dir, "merge.sbatch", plan_fill_merge, (void *)p)) != 0 ||
        (st = plan_file(p->dir, "submit.sh", plan_fill_submit, (void *)p)) != 0 ||
        (st = plan_file(p->dir, "slurm", plan_fill_mark, NULL)) != 0)
      return st;
  }
  /* how to run it: command lines, quoted for any POSIX shell */
  snprintf(logs, sizeof logs, "%s/plan/stage-%d.txt", p->dir, p->stage);
  printf("stage %d: %d commands in ", p->stage, p->n);
  (void)u_print_word(stdout, logs);
  printf("; run them with one of\n  xargs -d '\\n' -P %ld -n 1 sh -c < ",
         p->jobs > 0 ? p->jobs : (long)la_cpu_count());
  (void)u_print_word(stdout, logs);
  printf("\n  parallel -j %ld < ", p->jobs > 0 ? p->jobs : (long)la_cpu_count());
  (void)u_print_word(stdout, logs);
  fputc('\n', stdout);
  snprintf(logs, sizeof logs, "%s/plan/submit.sh", p->dir);
  if (slurm) {
    printf("  sh ");
    (void)u_print_word(stdout, logs);
    printf("   (a Slurm job array, then the merge)\n");
  }
  printf("then: ");
  (void)words_line(stdout, p->merge);
  return u_stdout_check();
}

/* ------------------------------------------------------------ its flags */
/* The flags of a plan's work, one a line in DIR/plan/flags: what decides
   its runs and its output (the merge reads them back: the same work, the
   same bytes); skip, a NULL-terminated list, names those that do not. */
static void plan_fill_flags(FILE *f, void *ctx) {
  const words *w = (const words *)ctx;
  int i;
  for (i = 0; i < w->n; ++i) fprintf(f, "%s\n", w->v[i]);
}

static int plan_write_flags(const char *dir, const cli_config *c, int cmd,
                            const char *const *skip) {
  words w;
  char plan[4400];
  int st;
  memset(&w, 0, sizeof w);
  snprintf(plan, sizeof plan, "%.4000s/plan", dir);
  if (words_command(&w, c, cmd, skip)) st = u_oom();
  else if ((st = u_mkdirs(plan)) == 0) st = plan_file(dir, "flags", plan_fill_flags, &w);
  words_free(&w);
  return st;
}

/* `NAME --from DIR`: the flags the plan was written with, read back into c
   as command NAME's (its words are kept in *text, which the caller frees,
   with *scratch). */
static int plan_flags(const char *dir, const char *argv0, const char *name, cli_config *c,
                      char **text, const char ***scratch) {
  char path[4400], err[600], **argv;
  size_t len, i;
  int argc = 2, st;
  *scratch = NULL;
  snprintf(path, sizeof path, "%.4000s/plan/flags", dir);
  if ((st = u_read_file(path, "a plan's flags", text, &len)) != 0) return st;
  if (memchr(*text, 0, len))
    return u_fail(EXIT_BAD_INPUT, "%s is not a plan's flags: it holds a NUL byte", U_Q(path));
  for (i = 0; i < len; ++i) argc += (*text)[i] == '\n';
  argc += len > 0 && (*text)[len - 1] != '\n'; /* a last line without its newline */
  argv = (char **)calloc((size_t)argc + 1, sizeof(char *));
  *scratch = (const char **)calloc((size_t)argc + 1, sizeof(char *));
  if (!argv || !*scratch) {
    free(argv);
    return u_oom();
  }
  argv[0] = (char *)argv0;
  argv[1] = (char *)name;
  argc = 2;
  for (i = 0; i < len;) {
    char *nl = strchr(*text + i, '\n');
    argv[argc++] = *text + i;
    if (!nl) break;
    *nl = 0;
    i = (size_t)(nl - *text) + 1;
  }
  st = cli_parse(argc, argv, c, *scratch, err, sizeof err);
  free(argv);
  if (st != CLI_OK)
    return u_fail(EXIT_BAD_INPUT, "%s is not a plan's flags: %s", U_Q(path),
                  err[0] ? err : "a line asks for the help or the version");
  return 0;
}

/* The first flag of command cmd given in c (those in skip left out) that
   the plan's flags p do not hold with the same value, as "--NAME VALUE"
   into buf; 0 when there is none (c may give fewer flags than the plan). */
static int plan_flag_differs(const cli_config *c, const cli_config *p, int cmd,
                             const char *const *skip, char *buf, size_t cap) {
  words a, b;
  int i, j, differs = 0;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  if (words_command(&a, c, cmd, skip) || words_command(&b, p, cmd, skip)) {
    words_free(&a);
    words_free(&b);
    return -1;
  }
  /* a flag is a word that starts with "--"; its value, the word after it
     when that one does not (a bool's value is part of its word) */
  for (i = 0; i < a.n && !differs; ++i) {
    const char *val = i + 1 < a.n && strncmp(a.v[i + 1], "--", 2) != 0 ? a.v[i + 1] : NULL;
    if (strncmp(a.v[i], "--", 2) != 0) continue;
    differs = 1;
    for (j = 0; j < b.n && differs; ++j) {
      const char *pv = j + 1 < b.n && strncmp(b.v[j + 1], "--", 2) != 0 ? b.v[j + 1] : NULL;
      if (!strcmp(a.v[i], b.v[j]) && (val && pv ? !strcmp(val, pv) : val == pv)) differs = 0;
    }
    if (differs) snprintf(buf, cap, "%s%s%.200s", a.v[i], val ? " " : "", val ? val : "");
  }
  words_free(&a);
  words_free(&b);
  return differs;
}

#endif /* LINATTN_PLAN_H */
