/* The golden vectors' hash of an array (tests/tools/gen_golden.c writes them,
   test_prompts.c checks them): FNV-1a over `count` values of `size` bytes
   (4 or 8: float or double), each value's bit pattern taken least
   significant byte first, so that a big-endian host hashes the bytes a
   little-endian one stores. */
#ifndef GOLDEN_FNV_H
#define GOLDEN_FNV_H
#include <stdint.h>
#include <string.h>

#define GOLDEN_FNV_BASIS 0xcbf29ce484222325ull

static uint64_t golden_fnv(uint64_t h, const void *p, size_t count, size_t size) {
  const unsigned char *c = (const unsigned char *)p;
  size_t i, b;
  for (i = 0; i < count; ++i) {
    uint64_t w;
    if (size == 4) {
      uint32_t u;
      memcpy(&u, c + i * 4, 4);
      w = u;
    } else {
      memcpy(&w, c + i * 8, 8);
    }
    for (b = 0; b < size; ++b) h = (h ^ ((w >> (8 * b)) & 0xffu)) * 0x100000001b3ull;
  }
  return h;
}

#endif
