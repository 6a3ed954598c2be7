/* Start-up of the Cortex-M4F runs under qemu-system-arm -M mps2-an386
   (tests/builds/embedded.c, examples/baremetal/): the vector table, a
   reset handler that copies .data, clears .bss, paints the stack, enables
   the FPU and calls main, then reports through semihosting the stack
   actually used (the deepest painted word overwritten) and main's status
   as the exit code. */
#include <stdint.h>

extern int main(void);
extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;

#define PAINT 0x5aa5c33cu
#define PAINTED_BYTES (64 * 1024) /* well beyond the estimate */

static void semihost(uint32_t op, const void *arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

static void put_text(const char *s) { semihost(0x04, s); } /* SYS_WRITE0 */

/* A program's text output on this board (examples/baremetal/). */
void board_puts(const char *s);
void board_puts(const char *s) { put_text(s); }

static void put_number(const char *label, uint32_t v) {
  char buf[48];
  int i = 0, j;
  char digits[12];
  int nd = 0;
  while (label[i] && i < 32) {
    buf[i] = label[i];
    ++i;
  }
  do {
    digits[nd++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (j = nd - 1; j >= 0; --j) buf[i++] = digits[j];
  buf[i++] = '\n';
  buf[i] = 0;
  put_text(buf);
}

static void halt(int status) {
  /* SYS_EXIT_EXTENDED: ADP_Stopped_ApplicationExit with an exit code */
  uint32_t block[2];
  block[0] = 0x20026;
  block[1] = (uint32_t)status;
  semihost(0x20, block);
  for (;;) {
  }
}

static uint32_t stack_used(void) {
  uint32_t *p = &_estack - PAINTED_BYTES / 4;
  while (p < &_estack && *p == PAINT) ++p;
  return (uint32_t)((uintptr_t)&_estack - (uintptr_t)p);
}

void Reset_Handler(void);
void Reset_Handler(void) {
  uint32_t *src = &_sidata, *dst = &_sdata, *sp;
  while (dst < &_edata) *dst++ = *src++;
  for (dst = &_sbss; dst < &_ebss;) *dst++ = 0;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (dst = &_estack - PAINTED_BYTES / 4; dst < sp - 16;) *dst++ = PAINT;
  *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20; /* CPACR: CP10, CP11 */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  {
    int status = main();
    put_number("stack bytes used: ", stack_used());
    put_number("main returned: ", (uint32_t)status);
    halt(status);
  }
}

static void fault(void) {
  put_text("fault\n");
  halt(128);
}

/* initial stack pointer, reset, NMI, HardFault, MemManage, BusFault,
   UsageFault; the rest unused */
__attribute__((section(".isr_vector"), used)) static const uintptr_t
    vectors[16] = {(uintptr_t)&_estack, (uintptr_t)Reset_Handler,
                   (uintptr_t)fault,    (uintptr_t)fault,
                   (uintptr_t)fault,    (uintptr_t)fault,
                   (uintptr_t)fault};
