/* The host's board_puts for examples/baremetal/baremetal.c: build both with
   the scalar backend and LINATTN_NO_STDLIB, as the board does, and the
   printed lines are the board's, bit for bit (mk/harden.mk,
   baremetal-m4-qemu). */
#include <stdio.h>

void board_puts(const char *s);
void board_puts(const char *s) { fputs(s, stdout); }
