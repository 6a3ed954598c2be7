/* Raw words of la_rng on stdout, for external test batteries (dieharder -g
   200 reads them): `rng_stream 0` is stream 1 of seed 2024 in order;
   `rng_stream 1` interleaves streams 0..15 of that seed word pair by word
   pair, the way training steps' streams sit side by side. Runs until the
   reader closes the pipe. `make dieharder` runs both through dieharder -a. */
#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0, i;
  static uint64_t buf[4096];
  la_rng r[16];
  for (i = 0; i < 16; ++i) la_rng_seed(&r[i], 2024, mode ? (uint64_t)i : 1);
  for (;;) {
    for (i = 0; i < 4096; ++i) buf[i] = la_rng_u64(&r[mode ? i % 16 : 0]);
    if (fwrite(buf, sizeof buf[0], 4096, stdout) != 4096) return 0;
  }
}
