/* linattn_npy.h - numbers out of examples/linattn.c in the formats numpy
   reads directly: .npy files of float64 (numpy's format 1.0, little-endian
   whatever the host), whole, or growing a row at a time and a valid file
   whenever the program is killed. C99 and stdio. */
#ifndef LINATTN_NPY_H
#define LINATTN_NPY_H

#include <stdint.h>
#include <stdio.h>
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

#endif /* LINATTN_NPY_H */
