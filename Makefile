# linattn.h: tests, benchmarks, examples.
#   make         build/linattn, for the machine it runs on (mk/cli.mk)
#   make test    the whole matrix: every backend, precision and architecture;
#                a configuration whose tools are missing is skipped
#   make deps    install those tools (Debian, Ubuntu; tests/harness/deps.sh)
#   make quick   the host's suites, float and double: the check while editing
#   make bench   every benchmark program in bench/
CC ?= cc
CLANG ?= clang
WARN = -Wall -Wextra -Wpedantic -Wshadow -Werror
CFLAGS_HOST = -std=c99 -O2 $(WARN)
AVX2 = -mavx2 -mfma
AVX512 = -mavx512f -mavx512vl -mavx512dq -mavx512bw -mavx2 -mfma
BUILD = build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# The flags that select this machine's SIMD backend for $(CC): -mavx2 -mfma
# on an x86-64 with both (and -mavx512f -mavx512vl with AVX-512: the model's
# 512-bit panels, the same bits), nothing on AArch64 (NEON is always there) or for
# a cross compiler; see mk/simd-flags.sh. `make NATIVE=` builds the portable
# scalar program.
ifeq ($(origin NATIVE),undefined)
NATIVE := $(shell sh mk/simd-flags.sh $(CC))
endif

.PHONY: all quick test bench clean deps test-timings
all:

HDR = linattn.h
TESTSRC = $(wildcard tests/unit/*.c tests/unit/*.h)

# The fastest useful check while developing: the host's backend, float and
# double (build/test-avx2-* on an AVX2 machine, build/test-host-* elsewhere).
QUICK = $(if $(findstring -mavx2,$(NATIVE)),test-avx2,test-host)
quick: $(BUILD)/$(QUICK)-f $(BUILD)/$(QUICK)-d
	$(BUILD)/$(QUICK)-f
	$(BUILD)/$(QUICK)-d

$(BUILD)/test-avx2-f: $(TESTSRC) $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(AVX2) tests/unit/main.c -o $@ -lm
$(BUILD)/test-avx2-d: $(TESTSRC) $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(AVX2) -DLINATTN_DOUBLE tests/unit/main.c -o $@ -lm
$(BUILD)/test-host-f: $(TESTSRC) $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(NATIVE) tests/unit/main.c -o $@ -lm
$(BUILD)/test-host-d: $(TESTSRC) $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(NATIVE) -DLINATTN_DOUBLE tests/unit/main.c -o $@ -lm

# ------------------------------------------------------------ the matrix
# Each configuration is compiled and run by tests/harness/run_one.sh, which keeps its
# log in build/results/NAME.log and its verdict beside it, so one failing
# configuration never hides the others, and prints the progress count;
# tests/harness/summarize.sh adds them up and prints the closing "N passed, N
# failed" line. A configuration whose tools are missing (looked up from the
# words of its command in tests/harness/deps.sh) is skipped and names the packages;
# LINATTN_REQUIRE_ALL=1 makes a skip a failure (.ci/run sets it).
#
# $(call suite,NAME,COMPILER AND FLAGS,RUNNER): the unit-test binary.
define suite
CONFIGS += $(1)
run-$(1): | $(BUILD)
	@sh tests/harness/run_one.sh $(1) sh -c '$(2) tests/unit/main.c -o $(BUILD)/t-$(1) -lm && $(3) $(BUILD)/t-$(1)'
endef

SCALAR = -DLINATTN_SIMD=LINATTN_SCALAR
# The sanitizers at -O0 (after CFLAGS_HOST's -O2, so it wins): clang 14
# takes 44 s to compile the AVX2 suite under ASan + UBSan at -O1 and 9 s at
# -O0, and the suite then runs in 17 s instead of 3. A program that trains
# for long (the command end to end, mk/cli.mk) is built with SAN_O1.
SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O0
SAN_O1 = $(SAN) -O1
QEMU64 = qemu-aarch64 -L /usr/aarch64-linux-gnu
QEMU32 = qemu-arm -L /usr/arm-linux-gnueabihf
A64 = aarch64-linux-gnu-gcc $(CFLAGS_HOST)
A32 = arm-linux-gnueabihf-gcc $(CFLAGS_HOST) -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard
# MemorySanitizer: no read of uninitialized memory (what valgrind's memcheck
# found beyond ASan; leaks are LeakSanitizer's, on in the ASan suites). The
# stat family is wrapped (tests/unit/msan_stat.h): clang 14 does not intercept
# glibc's own. Valgrind is no longer in the matrix (`make valgrind` runs it):
# it emulates each lane of an FMA by a helper call, so the AVX2 suite took
# 160 s of CPU under it, against about 40 s here, compile included.
MSAN = -fsanitize=memory -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1 \
  -Wl,--wrap=stat64,--wrap=lstat64,--wrap=fstat64
VALGRIND = valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite
# Under an emulator, valgrind or the sanitizers the few longest tests do
# fewer repetitions (tests/unit/la_test.h); the other native configurations run
# them in full.
LIGHT = env LA_TEST_LIGHT=1

$(eval $(call suite,gcc-avx2-float,$(CC) $(CFLAGS_HOST) $(AVX2),))
$(eval $(call suite,gcc-avx2-double,$(CC) $(CFLAGS_HOST) $(AVX2) -DLINATTN_DOUBLE,))
$(eval $(call suite,gcc-scalar-float,$(CC) $(CFLAGS_HOST) $(SCALAR),))
$(eval $(call suite,gcc-scalar-double,$(CC) $(CFLAGS_HOST) $(SCALAR) -DLINATTN_DOUBLE,))
$(eval $(call suite,clang-avx2-float,$(CLANG) $(CFLAGS_HOST) $(AVX2),))
$(eval $(call suite,gcc-avx512-float,$(CC) $(CFLAGS_HOST) $(AVX512),))
$(eval $(call suite,gcc-avx512-double,$(CC) $(CFLAGS_HOST) $(AVX512) -DLINATTN_DOUBLE,))
$(eval $(call suite,clang-avx512-float,$(CLANG) $(CFLAGS_HOST) $(AVX512),))
$(eval $(call suite,clang-scalar-double,$(CLANG) $(CFLAGS_HOST) $(SCALAR) -DLINATTN_DOUBLE,))
$(eval $(call suite,asan-ubsan-avx2-float,$(CLANG) $(CFLAGS_HOST) $(AVX2) $(SAN) -DLA_TEST_ASSERT,$(LIGHT)))
$(eval $(call suite,asan-ubsan-scalar-double,$(CLANG) $(CFLAGS_HOST) $(SCALAR) -DLINATTN_DOUBLE $(SAN) -DLA_TEST_ASSERT,$(LIGHT)))
$(eval $(call suite,msan-avx2-float,$(CLANG) $(CFLAGS_HOST) $(AVX2) $(MSAN),$(LIGHT)))
$(eval $(call suite,aarch64-neon-float,$(A64),$(LIGHT) $(QEMU64)))
$(eval $(call suite,aarch64-neon-double,$(A64) -DLINATTN_DOUBLE,$(LIGHT) $(QEMU64)))
$(eval $(call suite,armv7-neon-float,$(A32),$(LIGHT) $(QEMU32)))
$(eval $(call suite,armv7-scalar-double,$(A32) -DLINATTN_DOUBLE,$(LIGHT) $(QEMU32)))

# The AVX2 float suite under valgrind's memcheck (light): not in the matrix,
# see MSAN above; about 2.5 minutes.
.PHONY: valgrind
valgrind: | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(AVX2) -g tests/unit/main.c -o $(BUILD)/t-valgrind -lm
	$(LIGHT) $(VALGRIND) $(BUILD)/t-valgrind

# The header included several times, the implementation in two translation
# units (one of them LINATTN_STATIC), as C99, C11 and C++, gcc and clang.
MULTI = tests/builds/multi_tu/main.c tests/builds/multi_tu/impl.c tests/builds/multi_tu/impl_static.c
define multi_tu
CONFIGS += $(1)
run-$(1): | $(BUILD)
	@sh tests/harness/run_one.sh $(1) sh -c '$(2) -I. $(MULTI) -o $(BUILD)/t-$(1) -lm && $(BUILD)/t-$(1)'
endef
$(eval $(call multi_tu,multi-tu-gcc-c99,$(CC) -std=c99 -O1 $(WARN) $(AVX2)))
$(eval $(call multi_tu,multi-tu-gcc-c11,$(CC) -std=c11 -O1 $(WARN)))
$(eval $(call multi_tu,multi-tu-clang-c99,$(CLANG) -std=c99 -O1 $(WARN) $(AVX2)))
$(eval $(call multi_tu,multi-tu-g++,g++ -x c++ -std=c++11 -O1 $(WARN) $(AVX2)))
$(eval $(call multi_tu,multi-tu-clang++,clang++ -x c++ -std=c++11 -O1 $(WARN) -Wno-deprecated))

# A Cortex-M4F build: no malloc, no stdio; it must compile and link cleanly.
M4 = arm-none-eabi-gcc -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb -Os -std=c99 $(WARN)
CONFIGS += cortex-m4-build
run-cortex-m4-build: | $(BUILD)
	@sh tests/harness/run_one.sh cortex-m4-build sh -c '$(M4) -DLINATTN_NO_STDLIB -I. tests/builds/embedded.c -o $(BUILD)/embedded-m4.elf --specs=nosys.specs -lm && arm-none-eabi-size $(BUILD)/embedded-m4.elf'

# Fragments (mk/*.mk) add their own configurations to CONFIGS.
-include $(wildcard mk/*.mk)

# The longest configurations (CPU time of the last run, build/timings) start
# first, so that no long one is left running alone at the end.
test:
	@rm -rf $(BUILD)/results
	@echo "make test: $(words $(CONFIGS)) configurations, $(JOBS) at a time"
	@LA_TOTAL=$(words $(CONFIGS)) $(MAKE) --no-print-directory -k -j$(JOBS) \
	  $$(sh tests/harness/summarize.sh --order $(CONFIGS) | sed 's/^/run-/') || true
	@sh tests/harness/summarize.sh $(CONFIGS)

# The order a fresh clone runs the matrix in (longest first): this
# machine's last `make test` timings, kept in tests/timings.
test-timings:
	sort -k2,2nr $(BUILD)/timings > tests/harness/timings

# The toolchains of the matrix, from Debian's or Ubuntu's archive.
deps:
	sh tests/harness/deps.sh install

# ------------------------------------------------------------ benchmarks
# Every bench/bench_NAME.c becomes build/bench_NAME (float) and
# build/bench_NAME-d (double); `make bench` runs the float ones.
BENCHSRC = $(wildcard bench/bench_*.c)
BENCHBIN = $(patsubst bench/%.c,$(BUILD)/%,$(BENCHSRC))
BENCHFLAGS = -std=c99 -O2 $(WARN) $(NATIVE)
$(BUILD)/bench_%: bench/bench_%.c bench/bench_common.h $(HDR) | $(BUILD)
	$(CC) $(BENCHFLAGS) -DBENCH_FLAGS='"$(BENCHFLAGS)"' $< -o $@ -lm -lpthread
$(BUILD)/bench_%-d: bench/bench_%.c bench/bench_common.h $(HDR) | $(BUILD)
	$(CC) $(BENCHFLAGS) -DLINATTN_DOUBLE -DBENCH_FLAGS='"$(BENCHFLAGS) -DLINATTN_DOUBLE"' $< -o $@ -lm -lpthread
bench: $(BENCHBIN)
	@for b in $(BENCHBIN); do echo "== $$b"; $$b || exit 1; done

$(BUILD):
	mkdir -p $(BUILD)

clean:
	rm -rf $(BUILD)
