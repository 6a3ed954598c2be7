/* Prints docs/fields.md from the header's run-field table and presets, so
   that the page is never written by hand: `make docs-fields` writes it,
   the docs-fields configuration of `make test` fails when it is stale. */
#include <stdio.h>
#include <string.h>

#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"

/* A value of f in c as the command line takes it. */
static void text_of(const la_run_config *c, const la_run_field *f, char *buf,
                    size_t cap) {
  double v = 0;
  la_run_field_get(c, f, &v);
  if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER)
    snprintf(buf, cap, "%s", la_run_field_name(f, (int)v));
  else snprintf(buf, cap, "%g", v == 0 ? 0.0 : v);
}

/* What the preset gives beyond a run with no experiment, by optimizer. */
static void preset_row(const char *name, const char *about) {
  static const char *const opts[] = {"adam", "sgd"};
  la_run_config none, c, r;
  int k, i, n = la_run_field_count();
  printf("| `%s` | %s |", name, about);
  for (k = 0; k < 2; ++k) {
    int first = 1;
    memset(&none, 0, sizeof none);
    la_run_field_set(&none, la_run_field_find("setting"), 0);
    la_run_field_set(&none, la_run_field_find("opt"),
                     (double)(la_optim_find(opts[k]) - la_optim_entry_at(0)));
    la_run_resolve(&none, &none);
    la_run_preset(&c, name, opts[k]);
    if (la_run_resolve(&c, &r) != 0) {
      printf(" does not resolve |");
      continue;
    }
    printf(" ");
    for (i = 0; i < n; ++i) {
      const la_run_field *f = la_run_field_at(i);
      char a[64], b[64];
      if (f->flags & LA_FIELD_SELECTOR && strcmp(f->key, "setting") != 0) continue;
      text_of(&r, f, a, sizeof a);
      text_of(&none, f, b, sizeof b);
      if (strcmp(a, b) != 0 || !strcmp(f->key, "lr")) {
        printf("%s%s %s", first ? "" : ", ", f->key, a);
        first = 0;
      }
    }
    printf(" |");
  }
  printf("\n");
}

int main(void) {
  int i, n = la_run_field_count();
  const char *name, *about;
  printf("# The fields of a run\n\n"
         "Printed from the header's run-field table by `make docs-fields` "
         "(tests/tools/gen_fields.c); do not edit. Each field is a `linattn` flag (`_` "
         "as `-`), a key of the JSON config line, a keyword of Python's "
         "`linattn.Run` and `RunConfig`. What a field not given takes, and what "
         "a given zero means: docs/library.md, \"Presets, selectors, defaults "
         "and zero\".\n\n");
  printf("| field | kind | values | identity | what it is (default) |\n"
         "|---|---|---|---|---|\n");
  for (i = 0; i < n; ++i) {
    const la_run_field *f = la_run_field_at(i);
    static const char *const kinds[] = {"int", "long", "u64", "real",
                                        "enum", "bool", "optimizer"};
    char help[400], vals[400];
    la_run_field_help(f, help, sizeof help);
    if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER) {
      size_t used = 0;
      int v;
      vals[0] = 0;
      for (v = 0; (name = la_run_field_name(f, v)) != NULL; ++v)
        if (*name)
          used += (size_t)snprintf(vals + used, sizeof vals - used, "%s%s",
                                   used ? ", " : "", name);
    } else {
      snprintf(vals, sizeof vals, "%g to %.16g", f->lo, f->hi);
    }
    printf("| `%s` | %s | %s | %s | %s |\n", f->key, kinds[f->kind], vals,
           (f->flags & LA_FIELD_SEED)       ? "seed"
           : (f->flags & LA_FIELD_SHAPE)    ? "yes, theta's shape"
           : (f->flags & LA_FIELD_IDENTITY) ? "yes"
                                            : "no",
           help);
  }
  printf("\n## Presets\n\nWhat each gives, beside a run with setting none, with "
         "Adam and with SGD (the rates are the papers' for those two; other "
         "optimizers take the registry's defaults).\n\n"
         "| preset | what it is | with adam | with sgd |\n|---|---|---|---|\n");
  for (i = 0; (name = la_run_preset_name(i, &about)) != NULL; ++i)
    preset_row(name, about);
  return 0;
}
