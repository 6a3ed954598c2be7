# A big-endian host: IBM Z (s390x, 64-bit) under qemu-user, built by
# Debian's cross gcc, whose ISO C mode would evaluate float in double
# (__FLT_EVAL_METHOD__ 1; the header tells it not to). Light, as the ARM
# suites: the whole suite in float; in double the golden vectors and the
# checkpoints (the prompts:, train: and run: tests), the parts whose bytes depend on the
# precision, since a full double suite would double the time qemu takes.
QEMUZ = qemu-s390x -L /usr/s390x-linux-gnu
S390X = s390x-linux-gnu-gcc $(CFLAGS_HOST)
$(eval $(call suite,s390x-scalar-float,$(S390X),$(LIGHT) $(QEMUZ)))
CONFIGS += s390x-scalar-double
run-s390x-scalar-double: | $(BUILD)
	@sh tests/harness/run_one.sh s390x-scalar-double sh -c '$(S390X) -DLINATTN_DOUBLE tests/unit/main.c -o $(BUILD)/t-s390x-scalar-double -lm && $(LIGHT) $(QEMUZ) $(BUILD)/t-s390x-scalar-double prompts:,train:,run:'

# The portable (scalar) linattn built for this host and for s390x: the same
# step lines and checkpoints for a short Setting 1 run, and a checkpoint
# written halfway on either resumes on the other (tests/cli/cross_host.sh).
CONFIGS += s390x-cli-cross-host
run-s390x-cli-cross-host: | $(BUILD)
	@sh tests/harness/run_one.sh s390x-cli-cross-host sh -c '$(call cli_cc,$(CC),$(SCALAR),$(BUILD)/linattn-scalar) && \
	  $(call cli_cc,s390x-linux-gnu-gcc,$(SCALAR),$(BUILD)/linattn-s390x) && \
	  sh tests/cli/cross_host.sh $(BUILD)/cross-s390x $(BUILD)/linattn-scalar $(BUILD)/linattn-s390x $(QEMUZ)'

# ------------------------------------------------ WebAssembly (wasm32-wasi)
# The suite compiled by clang to wasm32-wasi (wasi-libc) and run under
# Node's WASI by tests/builds/wasi_run.mjs: the SIMD128 backend in float and
# double, and the scalar one. WASI has no threads (the pool is not built)
# and reaches only preopened folders: /tmp, where the suite writes its
# checkpoints, is a folder of its own under build/. clock() is WASI's
# emulation; the stack is 8 MiB as on Linux (wasm-ld's default is 64 KiB),
# and the memory is all there from the start (see wasi_run.mjs).
WASI_CC = $(CLANG) --target=wasm32-wasi --sysroot=/usr $(CFLAGS_HOST) \
  -D_WASI_EMULATED_PROCESS_CLOCKS -lwasi-emulated-process-clocks \
  -Wl,-z,stack-size=8388608 -Wl,--initial-memory=268435456
# (the flag: older Node releases want it for node:wasi; Node 20 ignores it)
NODE_WASI = node --experimental-wasi-unstable-preview1 --no-warnings tests/builds/wasi_run.mjs
WASI_RUN = $(NODE_WASI) --dir /tmp=$(BUILD)/wasi-tmp
$(eval $(call suite,wasm-simd128-float,$(WASI_CC) -msimd128,$(WASI_RUN)-simd128-float))
$(eval $(call suite,wasm-simd128-double,$(WASI_CC) -msimd128 -DLINATTN_DOUBLE,$(WASI_RUN)-simd128-double))
$(eval $(call suite,wasm-scalar-float,$(WASI_CC),$(WASI_RUN)-scalar-float))
# bench_kernels in WebAssembly under Node: SIMD128 against its scalar twin
# in the same run.
.PHONY: bench-kernels-wasm
bench-kernels-wasm: | $(BUILD)
	$(WASI_CC) -msimd128 -DBENCH_FLAGS='"wasm32-wasi -msimd128"' bench/bench_kernels.c -o $(BUILD)/bench_kernels-wasm -lm
	$(NODE_WASI) $(BUILD)/bench_kernels-wasm
# The SIMD128 backend clean under -Wconversion (WCONV, mk/harden.mk) in
# float and double, and as C++.
WASI_SYNTAX = $(CLANG) --target=wasm32-wasi --sysroot=/usr -msimd128
CONFIGS += wasm-header-wconversion
run-wasm-header-wconversion: | $(BUILD)
	@sh tests/harness/run_one.sh wasm-header-wconversion sh -c '$(WASI_SYNTAX) -std=c99 $(WCONV) && \
	  $(WASI_SYNTAX) -std=c99 -DLINATTN_DOUBLE $(WCONV) && \
	  $(WASI_SYNTAX) -x c++ -std=c++11 -Wno-deprecated $(WCONV)'

# ----------------------------------------------------------- RISC-V 64
# RV64GC (Debian's riscv64 port) under qemu-user, Debian's cross gcc: the
# scalar backend with the FPU's fused multiply-add behind fmaf. Light, as
# the other emulated suites; both precisions in full (qemu-riscv64 runs
# them in about the time qemu-s390x takes for the float one).
QEMURV = qemu-riscv64 -L /usr/riscv64-linux-gnu
RV64 = riscv64-linux-gnu-gcc $(CFLAGS_HOST)
$(eval $(call suite,riscv64-scalar-float,$(RV64),$(LIGHT) $(QEMURV)))
$(eval $(call suite,riscv64-scalar-double,$(RV64) -DLINATTN_DOUBLE,$(LIGHT) $(QEMURV)))

# The portable linattn on this host and on RISC-V: the same step lines and
# checkpoints, a checkpoint written halfway on either resuming on the
# other (tests/cli/cross_host.sh; the host's program under a name of its
# own, so that this and s390x-cli-cross-host may run at once).
CONFIGS += riscv64-cli-cross-host
run-riscv64-cli-cross-host: | $(BUILD)
	@sh tests/harness/run_one.sh riscv64-cli-cross-host sh -c '$(call cli_cc,$(CC),$(SCALAR),$(BUILD)/linattn-scalar-rv) && \
	  $(call cli_cc,riscv64-linux-gnu-gcc,$(SCALAR),$(BUILD)/linattn-riscv64) && \
	  sh tests/cli/cross_host.sh $(BUILD)/cross-riscv64 $(BUILD)/linattn-scalar-rv $(BUILD)/linattn-riscv64 $(QEMURV)'

# ------------------------------------------------------------ bare metal
# examples/baremetal/ on the Cortex-M4F (M4CC, the start-up, memory map and
# semihosting of tests/builds/m4/, mk/harden.mk) under qemu-system-arm, and
# the same file on this host (scalar, LINATTN_NO_STDLIB, host.c's stdio):
# the board trains and measures R in its 176 KB block, and every line it
# prints, the bits of the losses and of R included, is the host's.
BM_DIR = $(BUILD)/baremetal
BM_ELF = $(BM_DIR)/baremetal-mps2.elf
$(BM_ELF): examples/baremetal/baremetal.c tests/builds/m4/startup.c tests/builds/m4/mps2-an386.ld $(HDR) | $(BUILD)
	@mkdir -p $(BM_DIR)
	$(M4CC) -DLINATTN_NO_STDLIB -I. -c examples/baremetal/baremetal.c -o $(BM_DIR)/baremetal.o
	$(M4CC) -c tests/builds/m4/startup.c -o $(BM_DIR)/startup.o
	$(M4CC) -nostartfiles -T tests/builds/m4/mps2-an386.ld -Wl,--gc-sections --specs=nano.specs \
	  $(BM_DIR)/baremetal.o $(BM_DIR)/startup.o -o $@ -lm -lc -lnosys
BM_HOST = $(CC) $(CFLAGS_HOST) $(SCALAR) -DLINATTN_NO_STDLIB -I. \
  examples/baremetal/baremetal.c examples/baremetal/host.c -o $(BM_DIR)/baremetal-host -lm
.PHONY: example-baremetal
example-baremetal: $(BM_ELF)
	$(QEMU_M4) $(BM_ELF)
CONFIGS += baremetal-m4-qemu
run-baremetal-m4-qemu: | $(BUILD)
	@sh tests/harness/run_one.sh baremetal-m4-qemu --needs 'arm-none-eabi-gcc qemu-system-arm' sh -c '$(MAKE) --no-print-directory $(BM_ELF) && \
	  $(BM_HOST) && $(BM_DIR)/baremetal-host > $(BM_DIR)/host.txt && \
	  $(QEMU_M4) $(BM_ELF) > $(BM_DIR)/board.txt 2>&1; rc=$$?; cat $(BM_DIR)/board.txt; \
	  [ $$rc -eq 0 ] && grep -v "^stack bytes used\|^main returned" $(BM_DIR)/board.txt | diff -u $(BM_DIR)/host.txt - && \
	  echo "the board printed the host'\''s lines, bit for bit"'

# ---------------------------------------------------------------- ARMv7
# Debian's arm-linux-gnueabihf-gcc at its defaults (ARMv7-A, -mfpu=vfpv3-d16:
# no NEON) gets the scalar backend: the header says so in a #warning, which
# LINATTN_SIMD=LINATTN_SCALAR silences and -mfpu=neon-vfpv4 makes moot.
A32_SYNTAX = arm-linux-gnueabihf-gcc -std=c99 -Wall -Wextra -Wpedantic -Wshadow -fsyntax-only -I. tests/builds/multi_tu/impl.c
CONFIGS += armv7-noneon-warning
run-armv7-noneon-warning: | $(BUILD)
	@sh tests/harness/run_one.sh armv7-noneon-warning sh -c '$(A32_SYNTAX) 2>&1 | grep "ARM without NEON" && \
	  test -z "$$($(A32_SYNTAX) -DLINATTN_SIMD=LINATTN_SCALAR 2>&1)" && \
	  test -z "$$($(A32_SYNTAX) -march=armv7-a -mfpu=neon-vfpv4 2>&1)" && \
	  echo "warned without NEON, silent with LINATTN_SIMD or NEON"'

# ------------------------------------------------------------ Windows
# x86-64 Windows: MinGW-w64's gcc builds, Wine runs (in a prefix of its own
# under build/, made by the first run, without .NET and Gecko, which the
# programs do not use). The whole suite in AVX2 float and in
# scalar double (the scalar build calls the header's own fma: MinGW's
# rounds twice), and the crash safety of checkpoint replacement: a child
# that trains and saves after every step is killed (TerminateProcess) 30
# times at random instants; the file must load after every kill and the
# run resumed across them must hold the bits of one trained without a break
# (tests/unit/ckpt_crash.c).
WINE = env WINEPREFIX=$(abspath $(BUILD))/wine WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml= wine
MINGW = x86_64-w64-mingw32-gcc $(CFLAGS_HOST)
CONFIGS += win-avx2-float win-scalar-double win-ckpt-crash
run-win-avx2-float: | $(BUILD)
	@sh tests/harness/run_one.sh win-avx2-float sh -c '$(MINGW) $(AVX2) tests/unit/main.c -o $(BUILD)/t-win-avx2-float.exe -lm && $(WINE) $(BUILD)/t-win-avx2-float.exe'
run-win-scalar-double: | $(BUILD)
	@sh tests/harness/run_one.sh win-scalar-double sh -c '$(MINGW) $(SCALAR) -DLINATTN_DOUBLE tests/unit/main.c -o $(BUILD)/t-win-scalar-double.exe -lm && $(WINE) $(BUILD)/t-win-scalar-double.exe'
run-win-ckpt-crash: | $(BUILD)
	@sh tests/harness/run_one.sh win-ckpt-crash sh -c '$(MINGW) $(AVX2) tests/unit/ckpt_crash.c -o $(BUILD)/ckpt-crash.exe -lm && mkdir -p $(BUILD)/win-crash && $(WINE) $(BUILD)/ckpt-crash.exe $(BUILD)/win-crash 30'

# The portable (scalar) linattn built by MinGW-w64 and run under Wine
# against this host's: the same step lines, JSON lines (timings aside),
# checkpoints and a tiny reproduce's files; checkpoints resumed across the
# two (tests/cli/win_host.sh).
CONFIGS += win-cli-cross-host
run-win-cli-cross-host: | $(BUILD)
	@sh tests/harness/run_one.sh win-cli-cross-host sh -c '$(call cli_cc,$(CC),$(SCALAR),$(BUILD)/linattn-scalar) && \
	  $(call cli_cc,x86_64-w64-mingw32-gcc,$(SCALAR),$(BUILD)/linattn-win.exe) && \
	  rm -rf $(BUILD)/win-host && mkdir -p $(BUILD)/win-host && \
	  sh tests/cli/win_host.sh $(BUILD)/win-host $(abspath $(BUILD))/linattn-scalar $(abspath $(BUILD))/linattn-win.exe $(WINE)'
