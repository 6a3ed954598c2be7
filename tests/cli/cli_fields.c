/* The linattn command's run fields, held to the header's table: every field
   reaches the config line and the parser; identity fields (the seed aside)
   split configurations in a report and the others do not; a resumed run
   refuses a changed identity field by its name. And its subcommands, held
   to the command table (CLI_COMMANDS): the top-level --help lists exactly
   its names, each parses to its own row and has its --help, every flag
   belongs to commands of the table, and a renamed flag's old spelling is
   refused with the new name. Built against the program's own headers
   (examples/), as C99 with POSIX. */
#define _POSIX_C_SOURCE 200809L
#define LINATTN_IMPLEMENTATION
#include "linattn.h"
#include "cli/args.h"
#include "../unit/la_test.h"

/* The config line of run r, parsed back. */
static int config_of(const la_run_config *r, jv *out) {
  char *text = NULL;
  size_t len = 0;
  const char *why = NULL;
  FILE *m = open_memstream(&text, &len);
  jw w;
  int st;
  if (!m) return -1;
  jw_begin(&w, m);
  cli_write_run(&w, r);
  jw_end(&w);
  fclose(m);
  st = jv_parse(text, out, &why);
  free(text);
  return st;
}

/* Another valid value of f in r: a different name, or a different number
   within the table's range. */
static void other_value(la_run_config *r, const la_run_field *f) {
  double v = 0, w;
  la_run_field_get(r, f, &v);
  if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER) {
    for (w = f->lo; w <= f->hi; ++w) {
      const char *nm = la_run_field_name(f, (int)w);
      if (w != v && nm && *nm && la_run_field_set(r, f, w) == 0) return;
    }
  }
  w = v == f->hi ? f->lo : v + 1 <= f->hi ? v + 1 : f->hi;
  if (f->kind == LA_FIELD_REAL && w == v) w = (f->lo + f->hi) / 2;
  la_run_field_set(r, f, w);
}

static void suite_cli_fields(la_t *t) {
  la_run_config base;
  jv cfg;
  int i, n = la_run_field_count();
  char key0[4096];
  la_run_preset(&base, "1", NULL);
  la_run_resolve(&base, &base);

  LA_TEST(t, "cli: every run field is a key of the config line") {
    LA_CHECK(t, config_of(&base, &cfg) == 0, "parse");
    for (i = 0; i < n; ++i)
      LA_CHECK(t, jv_get(&cfg, la_run_field_at(i)->key) != NULL, "%s missing",
               la_run_field_at(i)->key);
    jv_free(&cfg);
  }

  LA_TEST(t, "cli: every identity field splits configurations, the rest do not") {
    LA_CHECK(t, config_of(&base, &cfg) == 0, "parse");
    cli_group_key(&cfg, key0, sizeof key0);
    jv_free(&cfg);
    for (i = 0; i < n; ++i) {
      const la_run_field *f = la_run_field_at(i);
      la_run_config r = base;
      char key[4096];
      int splits;
      other_value(&r, f);
      LA_CHECK(t, config_of(&r, &cfg) == 0, "parse %s", f->key);
      cli_group_key(&cfg, key, sizeof key);
      jv_free(&cfg);
      splits = strcmp(key, key0) != 0;
      if ((f->flags & LA_FIELD_IDENTITY) && !(f->flags & LA_FIELD_SEED))
        LA_CHECK(t, splits, "%s does not split", f->key);
      else
        LA_CHECK(t, !splits, "%s splits", f->key);
    }
  }

  LA_TEST(t, "cli: every run field is a flag of train, with the table's range") {
    for (i = 0; i < n; ++i) {
      const la_run_field *f = la_run_field_at(i);
      char flag[160], val[64], err[400];
      const char *scratch[8];
      char *argv[5];
      cli_config c;
      size_t k;
      la_run_config r = base;
      other_value(&r, f);
      for (k = 0; f->key[k]; ++k) flag[k + 2] = f->key[k] == '_' ? '-' : f->key[k];
      flag[0] = flag[1] = '-';
      flag[k + 2] = 0;
      cli_field_text(&r, f, val, sizeof val);
      argv[0] = (char *)"linattn";
      argv[1] = (char *)"train";
      argv[2] = flag;
      argv[3] = val;
      argv[4] = NULL;
      if (f->kind == LA_FIELD_BOOL) { /* --flag alone, or --flag=0|1 */
        snprintf(flag + k + 2, sizeof flag - k - 2, "=%s", val);
        argv[3] = NULL;
      }
      {
        double want = -1, got = -2;
        int st = cli_parse(argv[3] ? 4 : 3, argv, &c, scratch, err, sizeof err);
        la_run_field_get(&r, f, &want);
        la_run_field_get(&c.run, f, &got);
        LA_CHECK(t, st == CLI_OK && c.given[i] && got == want, "%s %s: %s (%g, %g)",
                 flag, argv[3] ? val : "", st ? err : "", got, want);
      }
      flag[k + 2] = 0;
      argv[3] = val;
      if (f->kind != LA_FIELD_ENUM && f->kind != LA_FIELD_OPTIMIZER &&
          f->kind != LA_FIELD_BOOL) {
        snprintf(val, sizeof val, "%.17g", f->hi + (f->hi > 1e15 ? f->hi : 1));
        LA_CHECK(t, cli_parse(4, argv, &c, scratch, err, sizeof err) == CLI_ERROR &&
                        strstr(err, flag + 2),
                 "%s %s accepted", flag, val);
      }
    }
  }

  LA_TEST(t, "cli: a resumed run refuses a changed identity field by name") {
    for (i = 0; i < n; ++i) {
      const la_run_field *f = la_run_field_at(i);
      cli_config c;
      la_run_config r = base, out;
      char err[600];
      int st;
      cli_defaults(&c);
      c.cmd = CLI_TRAIN;
      other_value(&r, f);
      c.run = r;
      c.given[i] = 1;
      st = cli_resume_of(&c, &base, &out, err, sizeof err);
      if ((f->flags & LA_FIELD_IDENTITY) && la_run_diff(&base, &r, LA_FIELD_IDENTITY))
        LA_CHECK(t, st == CLI_ERROR && strstr(err, "checkpoint's run has") &&
                        strstr(err, f->key),
                 "%s: %s", f->key, st ? err : "accepted");
      else if (f->flags & LA_FIELD_SELECTOR && !(f->flags & LA_FIELD_IDENTITY))
        LA_CHECK(t, st == CLI_ERROR && strstr(err, "the checkpoint's"),
                 "%s: a resumed run is the checkpoint's: %s", f->key,
                 st ? err : "accepted");
      else if (!(f->flags & LA_FIELD_IDENTITY))
        LA_CHECK(t, st == CLI_OK || la_run_resolve(&r, &out) != 0, "%s refused: %s",
                 f->key, err);
    }
  }
}

/* Parses "linattn NAME ARGS..." (at most 4 ARGS): the status, err filled. */
static int parse_cmd(const char *name, const char *const *args, cli_config *c,
                     char *err, size_t cap) {
  static const char *scratch[8];
  char *argv[8];
  int argc = 0;
  argv[argc++] = (char *)"linattn";
  argv[argc++] = (char *)name;
  while (*args && argc < 7) argv[argc++] = (char *)*args++;
  argv[argc] = NULL;
  return cli_parse(argc, argv, c, scratch, err, cap);
}

static void suite_cli_commands(la_t *t) {
  int k, i;
  cli_config c;
  char err[600];

  LA_TEST(t, "cli: the top-level --help lists the command table, in order") {
    char *text = NULL, *line;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    LA_CHECK(t, m != NULL, "open_memstream");
    if (m) {
      cli_help(m, 0, "");
      fclose(m);
      line = text;
      for (k = 0; k < CLI_NCMDS && line; ++k) {
        size_t n = strlen(cli_commands[k].name);
        LA_CHECK(t, !strncmp(line, "  ", 2) && !strncmp(line + 2, cli_commands[k].name, n) &&
                        line[2 + n] == ' ',
                 "line %d is not %s", k + 1, cli_commands[k].name);
        /* a summary may go on over lines that start with spaces only */
        do line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
        while (line && !strncmp(line, "    ", 4));
      }
      LA_CHECK(t, k == CLI_NCMDS && line && !*line, "more or fewer lines than commands");
      free(text);
    }
  }

  LA_TEST(t, "cli: each command parses to its row and has its --help") {
    static const char *const help[] = {"--help", NULL};
    for (k = 0; k < CLI_NCMDS; ++k) {
      const char *name = cli_commands[k].name;
      int st = parse_cmd(name, help, &c, err, sizeof err);
      LA_CHECK(t, st == CLI_HELP && c.cmd == 1 << k && cli_cmd_index(c.cmd) == k &&
                      !strcmp(cli_cmd_name(c.cmd), name),
               "%s: %d %s", name, st, err);
    }
  }

  LA_TEST(t, "cli: every flag belongs to commands of the table") {
    for (i = 0; i < CLI_NFLAGS; ++i)
      LA_CHECK(t, cli_flags[i].cmds && !(cli_flags[i].cmds >> CLI_NCMDS), "--%s: %#x",
               cli_flags[i].name, cli_flags[i].cmds);
  }

  LA_TEST(t, "cli: an old spelling is refused with the new name") {
    static const struct {
      const char *cmd, *flag, *now;
    } old[] = {{"reproduce", "--out", "--out-dir DIR"}, {"sweep", "--out", "--out-dir DIR"},
               {"report", "--out", "--out-dir DIR"},    {"export", "--out", "--out-dir DIR"},
               {"noise", "--checkpoint", "--at FILE"},  {"curvature", "--checkpoint", "--at FILE"}};
    for (i = 0; i < (int)(sizeof old / sizeof old[0]); ++i) {
      const char *args[] = {old[i].flag, "x", NULL};
      int st = parse_cmd(old[i].cmd, args, &c, err, sizeof err);
      LA_CHECK(t, st == CLI_ERROR && strstr(err, old[i].now) && strstr(err, old[i].cmd),
               "%s %s: %s", old[i].cmd, old[i].flag, st ? err : "accepted");
    }
  }

  LA_TEST(t, "cli: a command's own options start unset") {
    static const char *const none[] = {NULL};
    LA_CHECK(t, parse_cmd("train", none, &c, err, sizeof err) == CLI_OK &&
                    c.opts.train.checkpoint_every == -1 && c.opts.train.save_theta_every == -1 &&
                    !c.opts.train.checkpoint && c.threads == -1,
             "train: %s", err);
    LA_CHECK(t, parse_cmd("curvature", none, &c, err, sizeof err) == CLI_OK &&
                    c.opts.measure.top == -1 && c.opts.measure.grid == -1 && !c.opts.measure.at,
             "curvature: %s", err);
    LA_CHECK(t, parse_cmd("reproduce", none, &c, err, sizeof err) == CLI_OK &&
                    isnan(c.opts.repro.lr_sgd) && isnan(c.opts.repro.lr_adam) &&
                    !c.opts.repro.optimizers &&
                    c.seeds == -1 && c.jobs == -1,
             "reproduce: %s", err);
  }
}

int main(void) {
  static const la_suite suites[] = {{"cli-fields", suite_cli_fields},
                                    {"cli-commands", suite_cli_commands}};
  return la_t_run(suites, 2, NULL, 0, 0);
}
