/* cli/io/json.h - JSON lines for cli/main.c: a writer of flat
   objects (numbers, strings, arrays of numbers; a non-finite number is
   written as null) and a reader of any JSON value into a small tree.
   The reader recurses once per level of nesting, so it takes at most
   JV_MAX_DEPTH levels (the program writes 2) and fails on deeper input
   before the stack could run out. Strings are strict JSON: UTF-8, no
   control character unescaped. C99 and stdio. */
#ifndef LINATTN_JSON_H
#define LINATTN_JSON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ writing */
typedef struct jw {
  FILE *f;
  int n; /* members written in the current object */
} jw;

static void jw_str_raw(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}
static void jw_key(jw *w, const char *k) {
  fputs(w->n++ ? "," : "", w->f);
  jw_str_raw(w->f, k);
  fputc(':', w->f);
}
static void jw_num_raw(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.10g", v);
  else fputs("null", f);
}
static void jw_begin(jw *w, FILE *f) {
  w->f = f;
  w->n = 0;
  fputc('{', f);
}
static void jw_end(jw *w) { fputs("}\n", w->f); }
static void jw_num(jw *w, const char *k, double v) {
  jw_key(w, k);
  jw_num_raw(w->f, v);
}
/* Members already written as JSON ("a":1,"b":2; "" for none), as
   la_measure_json writes a measurement record's. */
static void jw_members(jw *w, const char *text) {
  if (!*text) return;
  fputs(w->n++ ? "," : "", w->f);
  fputs(text, w->f);
}
/* The shortest text of 15 to 17 digits that reads back to the same
   double (buf: 32 bytes). */
static const char *jw_shortest(char *buf, size_t cap, double v) {
  int digits;
  for (digits = 15; digits < 17; ++digits) {
    snprintf(buf, cap, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) return buf;
  }
  snprintf(buf, cap, "%.*g", digits, v);
  return buf;
}
/* A number that reads back to the same double (a run's settings). */
static void jw_exact(jw *w, const char *k, double v) {
  char buf[32];
  jw_key(w, k);
  if (!isfinite(v)) {
    fputs("null", w->f);
    return;
  }
  fputs(jw_shortest(buf, sizeof buf, v), w->f);
}
static void jw_int(jw *w, const char *k, long v) {
  jw_key(w, k);
  fprintf(w->f, "%ld", v);
}
static void jw_str(jw *w, const char *k, const char *v) {
  jw_key(w, k);
  jw_str_raw(w->f, v);
}
static void jw_arr(jw *w, const char *k, const double *v, int n) {
  int i;
  jw_key(w, k);
  fputc('[', w->f);
  for (i = 0; i < n; ++i) {
    if (i) fputc(',', w->f);
    jw_num_raw(w->f, v[i]);
  }
  fputc(']', w->f);
}
/* Numbers that read back to the same doubles (one process's results
   merged by another). */
static void jw_exact_arr(jw *w, const char *k, const double *v, int n) {
  char buf[32];
  int i;
  jw_key(w, k);
  fputc('[', w->f);
  for (i = 0; i < n; ++i) {
    if (i) fputc(',', w->f);
    fputs(isfinite(v[i]) ? jw_shortest(buf, sizeof buf, v[i]) : "null", w->f);
  }
  fputc(']', w->f);
}

/* ------------------------------------------------------------ reading */
/* The length of the valid UTF-8 sequence at s (a scalar value in its
   shortest form: no overlong form, no surrogate, nothing past U+10FFFF),
   or 0; 1 for every byte below 0x80, NUL included. */
static size_t jv_utf8_len(const unsigned char *s) {
  size_t n, i;
  unsigned cp;
  if (s[0] < 0x80) return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, cp = s[0] & 0x1fu;
  else if (s[0] >= 0xe0 && s[0] <= 0xef) n = 3, cp = s[0] & 0x0fu;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, cp = s[0] & 0x07u;
  else return 0;
  for (i = 1; i < n; ++i) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

/* Arrays and objects nested deeper than this are an error. */
#define JV_MAX_DEPTH 64
#define JV_QUOTE_(x) #x
#define JV_QUOTE(x) JV_QUOTE_(x)

typedef struct jv {
  int type;
  double num;       /* JV_NUM, JV_BOOL (0 or 1) */
  char *str;        /* JV_STR */
  int n;            /* JV_ARR, JV_OBJ: members */
  struct jv *items; /* members */
  char **keys;      /* JV_OBJ: their names */
} jv;

typedef struct jv_parser {
  const char *s;
  int depth;
  long left; /* members that may still be read, or -1: any number */
  const char *err;
} jv_parser;

/* Recursion as deep as the tree, which the parser bounds. */
static void jv_free(jv *v) { /* NOLINT(misc-no-recursion) */
  int i;
  if (!v) return;
  for (i = 0; i < v->n; ++i) {
    jv_free(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->str);
  memset(v, 0, sizeof *v);
}

static void jv_ws(jv_parser *p) {
  while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
    p->s++;
}

static int jv_fail(jv_parser *p, const char *why) {
  if (!p->err) p->err = why;
  return -1;
}

static int jv_value(jv_parser *p, jv *v);

/* Why the raw byte at s cannot be the next of a string (JSON: no control
   character unescaped, UTF-8 only), or NULL; *n: the bytes it takes. */
static const char *jv_string_byte(const char *s, size_t *n) {
  unsigned char c = (unsigned char)*s;
  if (!c) return "unterminated string";
  if (c < 0x20) return "a control character in a string (JSON escapes it)";
  if (!(*n = jv_utf8_len((const unsigned char *)s))) return "invalid UTF-8 in a string";
  return NULL;
}

/* A string into a new buffer; \uXXXX below 0x80 is decoded, others kept
   as '?' (the program writes none). */
static int jv_string(jv_parser *p, char **out) {
  size_t cap = 16, len = 0;
  char *b = (char *)malloc(cap);
  if (!b) return jv_fail(p, "out of memory");
  p->s++;
  while (*p->s != '"') {
    size_t run = 1; /* the bytes of one character: a UTF-8 sequence is kept whole */
    const char *bad = jv_string_byte(p->s, &run);
    char c;
    if (bad) {
      free(b);
      return jv_fail(p, bad);
    }
    if (len + run + 1 > cap) {
      char *nb = (char *)realloc(b, cap *= 2);
      if (!nb) {
        free(b);
        return jv_fail(p, "out of memory");
      }
      b = nb;
    }
    if (run > 1) {
      memcpy(b + len, p->s, run);
      len += run;
      p->s += run;
      continue;
    }
    c = *p->s++;
    if (c == '\\') {
      char e = *p->s++;
      if (e == 'n') c = '\n';
      else if (e == 't') c = '\t';
      else if (e == 'r') c = '\r';
      else if (e == 'b') c = '\b';
      else if (e == 'f') c = '\f';
      else if (e == '"' || e == '\\' || e == '/') c = e;
      else if (e == 'u') {
        int k;
        unsigned u = 0;
        for (k = 0; k < 4; ++k) {
          char h = *p->s++;
          u <<= 4;
          if (h >= '0' && h <= '9') u |= (unsigned)(h - '0');
          else if (h >= 'a' && h <= 'f') u |= (unsigned)(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') u |= (unsigned)(h - 'A' + 10);
          else {
            free(b);
            return jv_fail(p, "bad \\u escape");
          }
        }
        c = u < 0x80 ? (char)u : '?';
      } else {
        free(b);
        return jv_fail(p, "bad escape");
      }
    }
    b[len++] = c;
  }
  p->s++;
  b[len] = 0;
  *out = b;
  return 0;
}

/* Appends a member (and its key, for objects) to v. */
static jv *jv_push(jv_parser *p, jv *v, char *key) {
  jv *items;
  if (p->left == 0) {
    jv_fail(p, "more members than a line may hold");
    return NULL;
  }
  if (p->left > 0) p->left--;
  items = (jv *)realloc(v->items, sizeof(jv) * (size_t)(v->n + 1));
  if (!items) {
    jv_fail(p, "out of memory");
    return NULL;
  }
  v->items = items;
  if (v->type == JV_OBJ) {
    char **keys = (char **)realloc(v->keys, sizeof(char *) * (size_t)(v->n + 1));
    if (!keys) {
      jv_fail(p, "out of memory");
      return NULL;
    }
    v->keys = keys;
    keys[v->n] = key;
  }
  memset(&items[v->n], 0, sizeof(jv));
  return &items[v->n++];
}

/* An array or object, one level deeper: jv_value and this recurse into
   each other, at most JV_MAX_DEPTH times. */
static int jv_container(jv_parser *p, jv *v, char close) { /* NOLINT(misc-no-recursion) */
  v->type = close == '}' ? JV_OBJ : JV_ARR;
  if (++p->depth > JV_MAX_DEPTH)
    return jv_fail(p, "nested deeper than " JV_QUOTE(JV_MAX_DEPTH) " levels");
  p->s++;
  jv_ws(p);
  if (*p->s == close) {
    p->s++;
    p->depth--;
    return 0;
  }
  while (1) {
    char *key = NULL;
    jv *m;
    jv_ws(p);
    if (v->type == JV_OBJ) {
      if (*p->s != '"') return jv_fail(p, "expected a key");
      if (jv_string(p, &key)) return -1;
      jv_ws(p);
      if (*p->s != ':') {
        free(key);
        return jv_fail(p, "expected ':'");
      }
      p->s++;
    }
    if (!(m = jv_push(p, v, key))) {
      free(key);
      return -1;
    }
    if (jv_value(p, m)) return -1;
    jv_ws(p);
    if (*p->s == ',') {
      p->s++;
      continue;
    }
    if (*p->s == close) {
      p->s++;
      p->depth--;
      return 0;
    }
    return jv_fail(p, "expected ',' or a closing bracket");
  }
}

/* The length of the JSON number at s (RFC 8259: -? (0 | [1-9][0-9]*)
   (. [0-9]+)? ([eE] [+-]? [0-9]+)?), or 0: no hexadecimal, no "inf" or
   "nan", no leading '+' or zeros. One beyond a double reads as +-HUGE_VAL. */
static size_t jv_number_len(const char *s) {
  const char *p = s;
  if (*p == '-') ++p;
  if (*p == '0') ++p;
  else if (*p >= '1' && *p <= '9')
    while (*p >= '0' && *p <= '9') ++p;
  else return 0;
  if (*p == '.') {
    if (!(*++p >= '0' && *p <= '9')) return 0;
    while (*p >= '0' && *p <= '9') ++p;
  }
  if (*p == 'e' || *p == 'E') {
    ++p;
    if (*p == '+' || *p == '-') ++p;
    if (!(*p >= '0' && *p <= '9')) return 0;
    while (*p >= '0' && *p <= '9') ++p;
  }
  return (size_t)(p - s);
}

static int jv_value(jv_parser *p, jv *v) { /* NOLINT(misc-no-recursion) */
  jv_ws(p);
  if (*p->s == '{') return jv_container(p, v, '}');
  if (*p->s == '[') return jv_container(p, v, ']');
  if (*p->s == '"') {
    v->type = JV_STR;
    return jv_string(p, &v->str);
  }
  if (!strncmp(p->s, "null", 4)) {
    p->s += 4;
    v->type = JV_NULL;
    v->num = NAN;
    return 0;
  }
  if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "false", 5)) {
    v->type = JV_BOOL;
    v->num = *p->s == 't';
    p->s += *p->s == 't' ? 4 : 5;
    return 0;
  }
  if (*p->s == '-' || (*p->s >= '0' && *p->s <= '9')) {
    size_t len = jv_number_len(p->s);
    char *end;
    v->type = JV_NUM;
    v->num = strtod(p->s, &end);
    /* strtod reads further only into a hexadecimal number ("0x10") */
    if (!len || end != p->s + len) return jv_fail(p, "bad number");
    p->s = end;
    return 0;
  }
  return jv_fail(p, "unexpected character");
}

/* Parses all of s (one JSON value, blank around it allowed) into a tree
   of at most max_members array elements and object members (-1: any
   number; a member costs the tree some 50 bytes where the text may spend
   2, so a reader of untrusted lines bounds it). */
static int jv_parse_max(const char *s, jv *v, const char **err, long max_members) {
  jv_parser p;
  p.s = s;
  p.depth = 0;
  p.left = max_members;
  p.err = NULL;
  memset(v, 0, sizeof *v);
  if (jv_value(&p, v) == 0) {
    jv_ws(&p);
    if (!*p.s) return 0;
    jv_fail(&p, "trailing characters");
  }
  if (err) *err = p.err;
  jv_free(v);
  return -1;
}

static int jv_parse(const char *s, jv *v, const char **err) {
  return jv_parse_max(s, v, err, -1);
}

static const jv *jv_get(const jv *o, const char *key) {
  int i;
  if (!o || o->type != JV_OBJ) return NULL;
  for (i = 0; i < o->n; ++i)
    if (!strcmp(o->keys[i], key)) return &o->items[i];
  return NULL;
}
/* A member's number (NaN when missing, null or not a number). */
static double jv_num(const jv *o, const char *key) {
  const jv *v = jv_get(o, key);
  return v && (v->type == JV_NUM || v->type == JV_BOOL) ? v->num : NAN;
}
/* A member that must be a whole number within [lo, hi] (both within
   +-9e15, where doubles hold every integer): fallback when it is missing,
   null, not a number, fractional or out of range, so that no conversion
   of a NaN or a huge value to an integer ever happens. */
static long jv_long(const jv *o, const char *key, double lo, double hi,
                    long fallback) {
  double x = jv_num(o, key);
  if (!(x >= lo && x <= hi) || x != floor(x)) return fallback;
  return (long)x;
}
static const char *jv_str(const jv *o, const char *key) {
  const jv *v = jv_get(o, key);
  return v && v->type == JV_STR ? v->str : NULL;
}

#endif /* LINATTN_JSON_H */
