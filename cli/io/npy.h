/* cli/io/npy.h - numbers in and out of cli/main.c in the format
   numpy reads and writes directly: .npy files of float64 (numpy's format
   1.0, little-endian whatever the host), whole, or growing a row at a time
   and a valid file whenever the program is killed; and the arrays another
   program saved (float32 or float64, C order) read back. C99 and stdio. */
#ifndef LINATTN_NPY_H
#define LINATTN_NPY_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every header is this long (magic and lengths included): a multiple of
   64, as numpy writes them, with room for any shape of two longs. Being
   fixed, it can be rewritten in place as rows are added. */
#define NPY_HEAD 128

/* The header of a float64 array of `rows` rows of `cols` numbers (cols 0:
   a vector of `rows` numbers). */
static void npy_header(unsigned char *h, long rows, long cols) {
  static const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  char dict[NPY_HEAD];
  int len;
  if (cols > 0)
    len = snprintf(dict, sizeof dict,
                   "{'descr': '<f8', 'fortran_order': False, 'shape': (%ld, %ld), }",
                   rows, cols);
  else
    len = snprintf(dict, sizeof dict,
                   "{'descr': '<f8', 'fortran_order': False, 'shape': (%ld,), }", rows);
  if (len < 0) len = 0; /* snprintf failed: an empty dict, which numpy refuses */
  memcpy(h, magic, 8); /* the magic, then version 1.0 */
  h[8] = (unsigned char)((NPY_HEAD - 10) & 0xff); /* the dict's length, u16 */
  h[9] = (unsigned char)((NPY_HEAD - 10) >> 8);
  memset(h + 10, ' ', NPY_HEAD - 10);
  memcpy(h + 10, dict, (size_t)len); /* at most 95 bytes: it fits */
  h[NPY_HEAD - 1] = '\n';
}

/* n doubles, little-endian. */
static int npy_values(FILE *f, const double *v, long n) {
  long i;
  for (i = 0; i < n; ++i) {
    unsigned char b[8];
    uint64_t u;
    int k;
    memcpy(&u, &v[i], 8);
    for (k = 0; k < 8; ++k) b[k] = (unsigned char)(u >> (8 * k));
    if (fwrite(b, 1, 8, f) != 8) return -1;
  }
  return 0;
}

/* A whole vector as a .npy file's contents. */
static int npy_write_vector(FILE *f, const double *v, long n) {
  unsigned char h[NPY_HEAD];
  npy_header(h, n, 0);
  if (fwrite(h, 1, NPY_HEAD, f) != NPY_HEAD) return -1;
  return npy_values(f, v, n);
}

/* A .npy of float64 rows written as they come. After each row the header
   is rewritten to count it: the row's bytes first, then the count, so that
   a kill at any point leaves a file numpy reads (the rows counted; the
   bytes of a row cut short lie past them, unread). */
typedef struct npy_rows {
  FILE *f;
  long rows, cols;
} npy_rows;

static int npy_rows_open(npy_rows *w, const char *path, long cols) {
  unsigned char h[NPY_HEAD];
  w->rows = 0;
  w->cols = cols;
  if (!(w->f = fopen(path, "wb"))) return -1;
  npy_header(h, 0, cols);
  if (fwrite(h, 1, NPY_HEAD, w->f) != NPY_HEAD || fflush(w->f) != 0) {
    (void)fclose(w->f); /* failing already: the error is the write's */
    w->f = NULL;
    return -1;
  }
  return 0;
}

static int npy_rows_add(npy_rows *w, const double *row) {
  unsigned char h[NPY_HEAD];
  if (fseek(w->f, 0, SEEK_END) != 0 || npy_values(w->f, row, w->cols) != 0 ||
      fflush(w->f) != 0)
    return -1;
  npy_header(h, w->rows + 1, w->cols);
  if (fseek(w->f, 0, SEEK_SET) != 0 || fwrite(h, 1, NPY_HEAD, w->f) != NPY_HEAD ||
      fflush(w->f) != 0)
    return -1;
  w->rows++;
  return 0;
}

static int npy_rows_close(npy_rows *w) {
  int bad = 0;
  if (!w->f) return 0;
  bad = fclose(w->f) != 0;
  w->f = NULL;
  return bad ? -1 : 0;
}

/* ------------------------------------------------------------ reading */
#define NPY_MAX_DIMS 8

/* An array read from a .npy file's bytes: its shape and its values as
   doubles, in C order (v points into the caller's memory, allocated by
   npy_parse: free it). */
typedef struct npy_array {
  int ndim;
  long shape[NPY_MAX_DIMS];
  size_t count;
  double *v;
} npy_array;

/* The header's dict (a Python literal: {'descr': '<f8', 'fortran_order':
   False, 'shape': (2, 3), }) held to what numpy writes, parsed whole:
   exactly the three keys, each once, nothing else (no NUL byte, no second
   'descr'), then spaces and the newline; a little-endian or
   byte-order-free float32 or float64, C order, a shape of whole numbers.
   0, or why not with *why set. */
static const char *npy_ws(const char *p, const char *end) {
  while (p < end && *p == ' ') ++p;
  return p;
}

/* The shape tuple at p (after its '('): its numbers into a; the byte
   after its ')', or NULL with *why set. */
static const char *npy_shape(const char *p, const char *end, npy_array *a, const char **why) {
  a->ndim = 0;
  a->count = 1;
  for (;;) {
    long k = 0;
    p = npy_ws(p, end);
    if (p < end && *p == ')') return p + 1;
    if (p == end || *p < '0' || *p > '9') return *why = "its shape is not whole numbers", NULL;
    while (p < end && *p >= '0' && *p <= '9') {
      k = 10 * k + (*p++ - '0');
      if (k > 2147483647L) return *why = "its shape is out of range", NULL;
    }
    if (a->ndim == NPY_MAX_DIMS) return *why = "its shape is out of range", NULL;
    if (k > 0 && (double)a->count * (double)k > 1e12)
      return *why = "it holds too many values", NULL;
    a->shape[a->ndim++] = k;
    a->count *= (size_t)k;
    p = npy_ws(p, end);
    if (p < end && *p == ',') ++p;
    else if (p == end || *p != ')') return *why = "its shape is not a tuple", NULL;
  }
}

static int npy_dict(const char *d, size_t len, npy_array *a, int *width,
                    const char **why) {
  static const char *const keys[3] = {"'descr'", "'fortran_order'", "'shape'"};
  const char *p = d, *end = d + len;
  int seen[3] = {0, 0, 0}, k;
  if (memchr(d, 0, len)) return *why = "its header holds a NUL byte", -1;
  p = npy_ws(p, end);
  if (p == end || *p++ != '{') return *why = "its header is not a dict", -1;
  for (;;) {
    size_t kl;
    p = npy_ws(p, end);
    if (p < end && *p == '}') break;
    for (k = 0; k < 3; ++k) {
      kl = strlen(keys[k]);
      if ((size_t)(end - p) >= kl && !memcmp(p, keys[k], kl)) break;
    }
    if (k == 3) return *why = "its header holds a key other than descr, fortran_order, shape", -1;
    if (seen[k]++) return *why = "its header names a key twice", -1;
    p = npy_ws(p + kl, end);
    if (p == end || *p++ != ':') return *why = "its header is not a dict", -1;
    p = npy_ws(p, end);
    if (k == 0) {
      if ((size_t)(end - p) >= 6 && (!memcmp(p, "'<f8'", 5) || !memcmp(p, "'=f8'", 5))) *width = 8;
      else if ((size_t)(end - p) >= 6 && (!memcmp(p, "'<f4'", 5) || !memcmp(p, "'=f4'", 5)))
        *width = 4;
      else return *why = "its values are not float32 or float64, little-endian", -1;
      p += 5;
    } else if (k == 1) {
      if ((size_t)(end - p) < 5 || memcmp(p, "False", 5) != 0)
        return *why = "it is in Fortran order (save it with numpy's default, C order)", -1;
      p += 5;
    } else {
      if (p == end || *p++ != '(') return *why = "its shape is not a tuple", -1;
      if (!(p = npy_shape(p, end, a, why))) return -1;
    }
    p = npy_ws(p, end);
    if (p < end && *p == ',') ++p;
    else if (p == end || *p != '}') return *why = "its header is not a dict", -1;
  }
  for (++p; p < end && (*p == ' ' || *p == '\n'); ++p) continue;
  if (p != end) return *why = "its header holds more than its dict", -1;
  if (!seen[0]) return *why = "its values are not float32 or float64, little-endian", -1;
  if (!seen[1]) return *why = "its header does not say its order", -1;
  if (!seen[2]) return *why = "its header has no shape", -1;
  if (a->ndim == 0) return *why = "it holds a single number, not an array", -1;
  return 0;
}

/* A .npy file's header (format 1.0, 2.0 or 3.0): a's shape and count,
   where its values start (*at) and their width in bytes (4 or 8), the
   values checked to fill the shape exactly. 0, or -1 with *why. */
static int npy_head(const unsigned char *buf, size_t len, npy_array *a, size_t *at,
                    int *width, const char **why) {
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  size_t hlen;
  memset(a, 0, sizeof *a);
  *width = 8;
  if (len < 10 || memcmp(buf, magic, 6) != 0)
    return *why = "it is not a .npy file", -1;
  if (buf[6] == 1) {
    hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
    *at = 10;
  } else if ((buf[6] == 2 || buf[6] == 3) && len >= 12) {
    hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 |
           (size_t)buf[11] << 24;
    *at = 12;
  } else {
    return *why = "its .npy version is not 1, 2 or 3", -1;
  }
  if (hlen > len - *at) return *why = "it is cut short in its header", -1;
  if (npy_dict((const char *)buf + *at, hlen, a, width, why) != 0) return -1;
  *at += hlen;
  if (a->count != (len - *at) / (size_t)*width || (len - *at) % (size_t)*width)
    return *why = "its values do not fill its shape exactly", -1;
  return 0;
}

/* The first `keep` values (at most a->count) after npy_head, as doubles
   into a->v (allocated: free it): 0, or -1 with *why (a NaN or an
   infinity) or 1 (out of memory). */
static int npy_take(const unsigned char *buf, size_t at, int width, npy_array *a,
                    size_t keep, const char **why) {
  size_t i;
  if (keep > a->count) keep = a->count;
  if (!(a->v = (double *)malloc(sizeof(double) * (keep ? keep : 1)))) return 1;
  for (i = 0; i < keep; ++i) {
    const unsigned char *q = buf + at + (size_t)width * i;
    uint64_t u = 0;
    int k;
    for (k = width - 1; k >= 0; --k) u = (u << 8) | q[k];
    if (width == 8) {
      memcpy(&a->v[i], &u, 8);
    } else {
      uint32_t w = (uint32_t)u;
      float f;
      memcpy(&f, &w, 4);
      a->v[i] = (double)f;
    }
    if (!isfinite(a->v[i])) {
      free(a->v);
      a->v = NULL;
      return *why = "it holds a NaN or an infinity", -1;
    }
  }
  return 0;
}

/* A .npy file's bytes into a, every value: 0, or -1 with *why (the file's
   fault) or 1 (out of memory). Every value must be finite. */
static int npy_parse(const unsigned char *buf, size_t len, npy_array *a,
                     const char **why) {
  size_t at;
  int width;
  if (npy_head(buf, len, a, &at, &width, why) != 0) return -1;
  return npy_take(buf, at, width, a, a->count, why);
}

#endif /* LINATTN_NPY_H */
