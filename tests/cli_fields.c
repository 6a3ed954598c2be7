/* The linattn command's run fields, held to the header's table: every field
   reaches the config line and the parser; identity fields (the seed aside)
   split configurations in a report and the others do not; a resumed run
   refuses a changed identity field by its name. Built against the
   program's own headers (examples/), as C99 with POSIX. */
#define _POSIX_C_SOURCE 200809L
#define LINATTN_IMPLEMENTATION
#include "linattn.h"
#include "linattn_cli.h"
#include "la_test.h"

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

int main(void) {
  static const la_suite suites[] = {{"cli-fields", suite_cli_fields}};
  return la_t_run(suites, 1, NULL, 0, 0);
}
