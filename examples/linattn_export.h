/* linattn_export.h - `linattn export`: the JSON lines of train, noise and
   curvature as CSV files, the numbers behind every report for pandas, R or
   a spreadsheet.

   Into the output folder go one CSV per run or measurement and
   configs.csv:
     a train run     its step lines: a column per key (in the order the keys
                     first appear), a row per line; a cell a line lacks is
                     empty
     a measurement   (noise, curvature) its arrays: a column per array
                     (hist, edges; top, density, ...), shorter ones padded
                     with empty cells
     configs.csv     a row per run or measurement: run (the name of its
                     CSV), source (the file it came from), type, then every
                     scalar of its config line or object, then a run's
                     summary (a summary key its config line has too, steps,
                     is written summary_steps)
   A CSV is named after its source file (run.jsonl -> run.csv; the next run
   of the same file, or a name already taken, run-2.csv, ...). Numbers are
   written so that they read back to the same double, null as an empty
   cell, strings quoted where CSV needs it (RFC 4180). Files appear only
   when complete (written under a temporary name, then renamed). */
#ifndef LINATTN_EXPORT_H
#define LINATTN_EXPORT_H

#include "linattn_json.h"
#include "linattn_runs.h"
#include "linattn_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ cells */
/* A string as a CSV cell: quoted (quotes doubled) when it holds a comma, a
   quote or a line break, or starts or ends with a space. */
static void ex_str(FILE *f, const char *str) {
  size_t len = strlen(str);
  const char *s;
  if (!str[strcspn(str, ",\"\r\n")] && (!len || (str[0] != ' ' && str[len - 1] != ' '))) {
    fputs(str, f);
    return;
  }
  fputc('"', f);
  for (s = str; *s; ++s) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* One value as a CSV cell (nothing for null and for arrays and objects,
   which are not cells). */
static void ex_cell(FILE *f, const jv *v) {
  char buf[32];
  if (!v) return;
  switch (v->type) {
  case JV_NUM:
    if (isfinite(v->num)) fputs(jw_shortest(buf, sizeof buf, v->num), f);
    return;
  case JV_BOOL: fputs(v->num != 0 ? "true" : "false", f); return;
  case JV_STR: ex_str(f, v->str); return;
  default: return;
  }
}

/* A CSV of one column: its name, then a number a line (a non-finite one
   as an empty cell). */
static int csv_write_column(FILE *f, const char *name, const double *v, long n) {
  char buf[32];
  long i;
  ex_str(f, name);
  fputc('\n', f);
  for (i = 0; i < n; ++i)
    fprintf(f, "%s\n", isfinite(v[i]) ? jw_shortest(buf, sizeof buf, v[i]) : "");
  return ferror(f) ? -1 : 0;
}

static int ex_scalar(const jv *v) {
  return v->type == JV_NUM || v->type == JV_BOOL || v->type == JV_STR ||
         v->type == JV_NULL;
}

/* ------------------------------------------------------------ key lists */
/* Names in the order they were first seen. */
typedef struct ex_keys {
  char **k;
  int n, cap;
} ex_keys;

static int ex_key_add(ex_keys *ks, const char *key) {
  int i;
  for (i = 0; i < ks->n; ++i)
    if (!strcmp(ks->k[i], key)) return 0;
  if (ks->n == ks->cap) {
    char **nk = (char **)realloc(ks->k, sizeof(char *) * (size_t)(ks->cap = ks->cap ? 2 * ks->cap : 32));
    if (!nk) return -1;
    ks->k = nk;
  }
  if (!(ks->k[ks->n] = (char *)malloc(strlen(key) + 1))) return -1;
  memcpy(ks->k[ks->n++], key, strlen(key) + 1);
  return 0;
}

static void ex_keys_free(ex_keys *ks) {
  int i;
  for (i = 0; i < ks->n; ++i) free(ks->k[i]);
  free(ks->k);
  memset(ks, 0, sizeof *ks);
}

/* ------------------------------------------------------------ the export */
/* A row of configs.csv: the CSV's name, the source, the type, then the
   members (the config line's or the object's scalars, then the summary's,
   renamed where they collide). */
typedef struct ex_row {
  char *run, *source, *type;
  jv obj; /* an object of scalars */
} ex_row;

typedef struct exporter {
  const char *dir;
  ex_keys names;   /* CSV names taken */
  ex_keys columns; /* of configs.csv */
  ex_row *rows;
  int nrows, cap;
  /* the train run being read */
  int open;
  jv config;
  jv *steps;
  int nsteps, stepcap;
  const char *path; /* its source */
  int in_file;      /* runs of the current file so far */
  long nruns, nmeas;
} exporter;

/* "DIR/base.csv", or base-2.csv, ... when taken; the name into out. */
static int ex_csv_name(exporter *E, const char *source, char *out, size_t cap) {
  const char *b = strrchr(source, '/');
  char base[256];
  size_t len;
  int k;
  b = b ? b + 1 : source;
  snprintf(base, sizeof base, "%s", b);
  len = strlen(base);
  if (len > 6 && !strcmp(base + len - 6, ".jsonl")) base[len - 6] = 0;
  else if (len > 5 && !strcmp(base + len - 5, ".json")) base[len - 5] = 0;
  if (!base[0] || !strcmp(base, "configs")) snprintf(base, sizeof base, "run");
  for (k = 1;; ++k) {
    int i, taken = 0;
    if (k == 1) snprintf(out, cap, "%s.csv", base);
    else snprintf(out, cap, "%s-%d.csv", base, k);
    for (i = 0; i < E->names.n && !taken; ++i) taken = !strcmp(E->names.k[i], out);
    if (!taken) return ex_key_add(&E->names, out);
  }
}

static char *ex_dup(const char *s) {
  char *d = (char *)malloc(strlen(s) + 1);
  if (d) memcpy(d, s, strlen(s) + 1);
  return d;
}

/* Moves member i of o (its key and value) to the end of dst, an object;
   renamed with `prefix` when dst has the key already. */
static int ex_take_member(jv *dst, jv *o, int i, const char *prefix) {
  jv *items;
  char **keys, *key = o->keys[i];
  if (jv_get(dst, key) && prefix) {
    char *nk = (char *)malloc(strlen(prefix) + strlen(key) + 1);
    if (!nk) return -1;
    snprintf(nk, strlen(prefix) + strlen(key) + 1, "%s%s", prefix, key);
    free(key);
    key = nk;
  }
  items = (jv *)realloc(dst->items, sizeof(jv) * (size_t)(dst->n + 1));
  if (!items) return -1;
  dst->items = items;
  keys = (char **)realloc(dst->keys, sizeof(char *) * (size_t)(dst->n + 1));
  if (!keys) return -1;
  dst->keys = keys;
  dst->items[dst->n] = o->items[i];
  dst->keys[dst->n++] = key;
  memset(&o->items[i], 0, sizeof o->items[i]);
  o->keys[i] = NULL;
  return 0;
}

/* A row of configs.csv from an object's scalars (and a summary's). */
static int ex_add_row(exporter *E, const char *run, const char *type, jv *obj,
                      jv *summary) {
  ex_row *r;
  int i;
  if (E->nrows == E->cap) {
    ex_row *nr = (ex_row *)realloc(E->rows, sizeof(ex_row) * (size_t)(E->cap = E->cap ? 2 * E->cap : 16));
    if (!nr) return -1;
    E->rows = nr;
  }
  r = &E->rows[E->nrows++];
  memset(r, 0, sizeof *r);
  r->obj.type = JV_OBJ;
  if (!(r->run = ex_dup(run)) || !(r->source = ex_dup(E->path)) ||
      !(r->type = ex_dup(type)))
    return -1;
  for (i = 0; i < obj->n; ++i)
    if (strcmp(obj->keys[i], "type") != 0 && ex_scalar(&obj->items[i]) &&
        (ex_key_add(&E->columns, obj->keys[i]) || ex_take_member(&r->obj, obj, i, NULL)))
      return -1;
  for (i = 0; summary && i < summary->n; ++i)
    if (strcmp(summary->keys[i], "type") != 0 && ex_scalar(&summary->items[i])) {
      if (ex_take_member(&r->obj, summary, i, "summary_") ||
          ex_key_add(&E->columns, r->obj.keys[r->obj.n - 1]))
        return -1;
    }
  return 0;
}

/* Writes DIR/name: a header of keys, then each object's cells. */
static int ex_write_table(exporter *E, const char *name, const ex_keys *ks,
                          const jv *objs, int n) {
  char path[4400];
  u_out o;
  int i, j, st;
  snprintf(path, sizeof path, "%s/%s", E->dir, name);
  if ((st = u_open(&o, path)) != 0) return st;
  for (j = 0; j < ks->n; ++j) {
    if (j) fputc(',', o.f);
    ex_str(o.f, ks->k[j]);
  }
  fputc('\n', o.f);
  for (i = 0; i < n; ++i) {
    for (j = 0; j < ks->n; ++j) {
      if (j) fputc(',', o.f);
      ex_cell(o.f, jv_get(&objs[i], ks->k[j]));
    }
    fputc('\n', o.f);
  }
  return u_commit(&o);
}

static void ex_steps_free(exporter *E) {
  int i;
  for (i = 0; i < E->nsteps; ++i) jv_free(&E->steps[i]);
  E->nsteps = 0;
  jv_free(&E->config);
  E->open = 0;
}

/* The run read so far: its CSV of steps and its row; summary may be NULL
   (a run cut short). */
static int ex_end_run(exporter *E, jv *summary) {
  ex_keys ks;
  char name[300];
  int i, j, st = 0;
  if (!E->open) return 0;
  memset(&ks, 0, sizeof ks);
  for (i = 0; i < E->nsteps && !st; ++i)
    for (j = 0; j < E->steps[i].n && !st; ++j)
      if (strcmp(E->steps[i].keys[j], "type") != 0 && ex_scalar(&E->steps[i].items[j]))
        st = ex_key_add(&ks, E->steps[i].keys[j]) ? u_oom() : 0;
  if (!st && ex_csv_name(E, E->path, name, sizeof name))
    st = u_oom();
  if (!st) st = ex_write_table(E, name, &ks, E->steps, E->nsteps);
  if (!st && ex_add_row(E, name, "train", &E->config, summary))
    st = u_oom();
  ex_keys_free(&ks);
  ex_steps_free(E);
  E->nruns++;
  return st;
}

/* A noise or curvature object: its arrays as columns, its row. */
static int ex_measurement(exporter *E, jv *obj, const char *type) {
  char name[300], path[4400];
  u_out o;
  int i, j, rows = 0, cols = 0, st;
  for (i = 0; i < obj->n; ++i)
    if (obj->items[i].type == JV_ARR) {
      cols++;
      if (obj->items[i].n > rows) rows = obj->items[i].n;
    }
  if (ex_csv_name(E, E->path, name, sizeof name)) return u_oom();
  snprintf(path, sizeof path, "%s/%s", E->dir, name);
  if ((st = u_open(&o, path)) != 0) return st;
  for (i = 0, j = 0; i < obj->n; ++i)
    if (obj->items[i].type == JV_ARR) {
      if (j++) fputc(',', o.f);
      ex_str(o.f, obj->keys[i]);
    }
  fputc('\n', o.f);
  for (j = 0; j < rows && cols; ++j) {
    int c = 0;
    for (i = 0; i < obj->n; ++i) {
      const jv *a = &obj->items[i];
      if (a->type != JV_ARR) continue;
      if (c++) fputc(',', o.f);
      if (j < a->n && ex_scalar(&a->items[j])) ex_cell(o.f, &a->items[j]);
    }
    fputc('\n', o.f);
  }
  if ((st = u_commit(&o)) != 0) return st;
  E->nmeas++;
  return ex_add_row(E, name, type, obj, NULL) ? u_oom() : 0;
}

/* One line of a file. */
static int ex_line(exporter *E, jv *v, long lineno) {
  const char *type = jv_str(v, "type");
  if (!type) return 0;
  if (!strcmp(type, "config")) {
    int st = ex_end_run(E, NULL);
    if (st) return st;
    E->config = *v;
    memset(v, 0, sizeof *v);
    E->open = 1;
    return 0;
  }
  if (!strcmp(type, "noise") || !strcmp(type, "curvature")) {
    int st = ex_end_run(E, NULL);
    return st ? st : ex_measurement(E, v, type);
  }
  if (strcmp(type, "step") != 0 && strcmp(type, "summary") != 0) return 0;
  if (!E->open)
    return u_fail(EXIT_BAD_INPUT, "%s line %ld: a %s line before any config line",
                  U_Q(E->path), lineno, U_Q(type));
  if (!strcmp(type, "summary")) return ex_end_run(E, v);
  if (E->nsteps == E->stepcap) {
    jv *ns = (jv *)realloc(E->steps, sizeof(jv) * (size_t)(E->stepcap = E->stepcap ? 2 * E->stepcap : 256));
    if (!ns) return u_oom();
    E->steps = ns;
  }
  E->steps[E->nsteps++] = *v;
  memset(v, 0, sizeof *v);
  return 0;
}

/* Every line of one file (runs_walk's callback). */
static int ex_file(void *ctx, const char *path, char *err, size_t cap) {
  exporter *E = (exporter *)ctx;
  lreader lr;
  size_t len;
  int got, st = 0;
  (void)err;
  (void)cap;
  memset(&lr, 0, sizeof lr);
  E->path = path;
  if (!(lr.f = fopen(path, "r"))) {
    int e = errno;
    return u_fail(u_exit_of_errno(e, EXIT_BAD_INPUT), "cannot read %s: %s", U_Q(path),
                  strerror(e));
  }
  while (!st && (got = lr_next(&lr, &len)) != 0) {
    jv v;
    const char *why = NULL;
    char *p = lr.buf;
    if (got < 0) {
      st = u_fail(got == -2 ? EXIT_NOMEM : got == -3 ? EXIT_IO : EXIT_BAD_INPUT, "%s line %ld: %s",
                  U_Q(path), lr.lineno + 1,
                  got == -1 ? "a line longer than 64 MB (not JSON lines)"
                  : got == -2 ? "out of memory" : "cannot read");
      break;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
    if (!*p) continue;
    if (strlen(lr.buf) != len || jv_parse_max(lr.buf, &v, &why, RUNS_MAX_MEMBERS) ||
        v.type != JV_OBJ) {
      if (!why && strlen(lr.buf) == len) jv_free(&v);
      st = u_fail(why && !strcmp(why, "out of memory") ? EXIT_NOMEM : EXIT_BAD_INPUT,
                  "%s line %ld: not a JSON object (%s)", U_Q(path), lr.lineno,
                  why ? why : strlen(lr.buf) != len ? "a NUL byte" : "another value");
      break;
    }
    st = ex_line(E, &v, lr.lineno);
    jv_free(&v);
  }
  if (!st) st = ex_end_run(E, NULL); /* a run cut short: what it wrote */
  ex_steps_free(E);
  free(lr.buf);
  (void)fclose(lr.f); /* read only: nothing to lose */
  return st;
}

/* configs.csv: run, source, type, then every column seen. */
static int ex_configs(exporter *E) {
  ex_keys ks;
  jv *objs;
  int i, j, st;
  memset(&ks, 0, sizeof ks);
  objs = (jv *)calloc((size_t)E->nrows + 1, sizeof(jv));
  if (!objs || ex_key_add(&ks, "run") || ex_key_add(&ks, "source") ||
      ex_key_add(&ks, "type")) {
    free(objs);
    ex_keys_free(&ks);
    return u_oom();
  }
  for (j = 0; j < E->columns.n; ++j)
    if (ex_key_add(&ks, E->columns.k[j])) {
      free(objs);
      ex_keys_free(&ks);
      return u_oom();
    }
  /* the three names as members of each row, for the one writer */
  for (i = 0; i < E->nrows; ++i) {
    jv *o = &objs[i];
    ex_row *r = &E->rows[i];
    static const char *const names[3] = {"run", "source", "type"};
    const char *vals[3];
    int k;
    vals[0] = r->run;
    vals[1] = r->source;
    vals[2] = r->type;
    *o = r->obj;
    for (k = 0; k < 3; ++k) {
      jv *it = (jv *)realloc(o->items, sizeof(jv) * (size_t)(o->n + 1));
      char **kk;
      if (!it) break;
      o->items = it;
      if (!(kk = (char **)realloc(o->keys, sizeof(char *) * (size_t)(o->n + 1)))) break;
      o->keys = kk;
      memset(&o->items[o->n], 0, sizeof(jv));
      o->items[o->n].type = JV_STR;
      o->items[o->n].str = ex_dup(vals[k]);
      o->keys[o->n] = ex_dup(names[k]);
      o->n++;
      if (!o->items[o->n - 1].str || !o->keys[o->n - 1]) break;
    }
    r->obj = *o;
    if (k < 3) {
      free(objs);
      ex_keys_free(&ks);
      return u_oom();
    }
  }
  st = ex_write_table(E, "configs.csv", &ks, objs, E->nrows);
  free(objs); /* the members are the rows', freed with them */
  ex_keys_free(&ks);
  return st;
}

static void ex_free(exporter *E) {
  int i;
  for (i = 0; i < E->nrows; ++i) {
    free(E->rows[i].run);
    free(E->rows[i].source);
    free(E->rows[i].type);
    jv_free(&E->rows[i].obj);
  }
  free(E->rows);
  ex_steps_free(E);
  free(E->steps);
  ex_keys_free(&E->names);
  ex_keys_free(&E->columns);
}

/* The export of paths (files or folders) into dir; an exit status. */
static int export_runs(const char *const *paths, int npaths, const char *dir) {
  exporter E;
  char err[600];
  int i, st = 0;
  memset(&E, 0, sizeof E);
  E.dir = dir;
  err[0] = 0;
  if ((st = u_mkdirs(dir)) != 0) return st;
  for (i = 0; i < npaths && !st; ++i) {
    st = runs_walk(paths[i], ex_file, &E, err, sizeof err, 0);
    if (st && err[0]) u_fail(st, "%s", err); /* the walk's own failures */
  }
  if (!st && E.nrows == 0)
    st = u_fail(EXIT_BAD_INPUT, "no runs or measurements in the inputs (JSON lines "
                                "of train, noise or curvature)");
  if (!st) st = ex_configs(&E);
  if (!st)
    printf("%ld runs, %ld measurements: %s/configs.csv and one CSV each\n", E.nruns,
           E.nmeas, dir);
  ex_free(&E);
  return st;
}

#endif /* LINATTN_EXPORT_H */
