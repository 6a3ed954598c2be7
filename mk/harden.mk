# Hardening: libFuzzer harnesses, static analysis, the embedded build and
# the soak run.
#   make fuzz              every tests/fuzz/fuzz_NAME.c for FUZZ_SECONDS each
#   make fuzz-NAME         one harness; findings go to build/fuzz/NAME-found
#   make fuzz-corpus       rewrite the generated seed corpora (the report
#                          harness's: real output of build/linattn train)
#   make lint              cppcheck and clang-tidy, as in `make test`
#   make lint-header       clang's analyzer from every function of the header
#   make embedded-report   code size and stack of the Cortex-M4F build
#   make soak              random valid and invalid runs under ASan + UBSan
#                          for SOAK_SECONDS (not part of `make test`)

# ------------------------------------------------------------ fuzzing
# Every tests/fuzz/fuzz_NAME.c is a harness: one translation unit that
# includes what it needs (the header's implementation, or a program's
# source), fed from tests/fuzz/corpus/NAME/ when that folder exists. New
# inputs go to build/, never into the committed corpus. `make test` runs
# each for FUZZ_SHORT seconds, its corpus first (so a committed input that
# once crashed is run every time).
FUZZ_SECONDS ?= 60
FUZZ_SHORT ?= 4
# One input running longer than this is a finding (a hang), not a slow pass:
# max_total_time is checked only between inputs.
FUZZ_TIMEOUT ?= 30
FUZZ_CC = $(CLANG) -std=c99 -g $(WARN) $(AVX2) -I. \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_DEPS = $(wildcard tests/fuzz/*.h) $(HDR) $(wildcard examples/*.c examples/*.h)
fuzz_corpus = $(wildcard tests/fuzz/corpus/$(1))

define fuzz_harness
$(BUILD)/fuzz/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(FUZZ_DEPS) | $(BUILD)
	@mkdir -p $(BUILD)/fuzz
	$(FUZZ_CC) -O1 $$< -o $$@ -lm
.PHONY: fuzz-$(1)
fuzz-$(1): $(BUILD)/fuzz/fuzz_$(1)
	@mkdir -p $(BUILD)/fuzz/$(1)-found
	$(BUILD)/fuzz/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_TIMEOUT) -print_final_stats=1 \
	  -artifact_prefix=$(BUILD)/fuzz/$(1)- $(BUILD)/fuzz/$(1)-found $(call fuzz_corpus,$(1))
CONFIGS += fuzz-$(1)-short
run-fuzz-$(1)-short: | $(BUILD)
	@sh tests/harness/run_one.sh fuzz-$(1)-short sh -c 'rm -rf $(BUILD)/fuzz/$(1)-short && \
	  mkdir -p $(BUILD)/fuzz/$(1)-short && \
	  $(FUZZ_CC) -O0 tests/fuzz/fuzz_$(1).c -o $(BUILD)/fuzz/t-fuzz_$(1) -lm && \
	  $(BUILD)/fuzz/t-fuzz_$(1) -max_total_time=$(FUZZ_SHORT) -timeout=$(FUZZ_TIMEOUT) \
	    -artifact_prefix=$(BUILD)/fuzz/short-$(1)- $(BUILD)/fuzz/$(1)-short $(call fuzz_corpus,$(1))'
endef
$(foreach h,$(FUZZ_NAMES),$(eval $(call fuzz_harness,$(h))))

.PHONY: fuzz fuzz-corpus
fuzz: $(addprefix fuzz-,$(FUZZ_NAMES))

fuzz-corpus: $(BUILD)/linattn | $(BUILD)
	$(CC) $(CFLAGS_HOST) tests/fuzz/gen_corpus.c -o $(BUILD)/gen_corpus -lm
	mkdir -p tests/fuzz/corpus/checkpoint tests/fuzz/corpus/config
	$(BUILD)/gen_corpus tests/fuzz/corpus/checkpoint tests/fuzz/corpus/config
	sh tests/fuzz/gen_report_corpus.sh $(BUILD)/linattn tests/fuzz/corpus/report

# ------------------------------------------------------ static analysis
# cppcheck's defect classes (warning, performance, portability; not style,
# whose variableScope asks for declarations in inner blocks) and clang-tidy
# with .clang-tidy, over the header instantiated in each backend the host
# can parse: AVX2 float, scalar double, AArch64 NEON float, the bare-metal
# build; and over every test program (cppcheck reads the tests once, with
# the AVX2 header: they take it 8 times as long as the header alone, which
# it reads again as scalar double in a translation unit of its own). The
# programs of examples/ and the harness that includes the linattn
# command's parser get cppcheck (float) and clang-tidy with
# cli/.clang-tidy: the same rules, but a print's result may go
# unchecked and _POSIX_C_SOURCE may be defined.
CPPCHECK = cppcheck --std=c99 --enable=warning,performance,portability \
  --inline-suppr --error-exitcode=1 --quiet -I.
TIDY = clang-tidy --quiet
LINT_CLI = cli/main.c examples/custom_optimizer.c examples/quickstart.c \
  tests/fuzz/fuzz_cli.c tests/fuzz/fuzz_report.c
TIDY_CLI = $(TIDY) --config-file=cli/.clang-tidy
TIDY_PROGRAMS = tests/fuzz/gen_corpus.c \
  $(filter-out $(LINT_CLI),$(wildcard tests/fuzz/fuzz_*.c))
A64_TIDY = --target=aarch64-linux-gnu -isystem /usr/aarch64-linux-gnu/include
CPPCHECK_AVX2 = -D__AVX2__ -D__FMA__ -D__x86_64__
CPPCHECK_SCALAR = -DLINATTN_DOUBLE -DLINATTN_SIMD=LINATTN_SCALAR

LINT_CPPCHECK = $(CPPCHECK) $(CPPCHECK_AVX2) tests/unit/main.c && \
  $(CPPCHECK) $(CPPCHECK_SCALAR) tests/builds/multi_tu/impl.c && \
  for f in $(LINT_CLI); do $(CPPCHECK) $(CPPCHECK_AVX2) $$f || exit 1; done
LINT_TIDY = $(TIDY) tests/unit/main.c -- -std=c99 $(AVX2) -I. && \
  $(TIDY) tests/unit/main.c -- -std=c99 -DLINATTN_DOUBLE $(SCALAR) -I. && \
  $(TIDY) tests/unit/main.c -- -std=c99 $(A64_TIDY) -I. && \
  $(TIDY) tests/builds/embedded.c -- -std=c99 -DLINATTN_NO_STDLIB -I. && \
  for f in $(TIDY_PROGRAMS); do $(TIDY) $$f -- -std=c99 $(AVX2) -I. || exit 1; done && \
  for f in $(LINT_CLI) tests/fuzz/soak.c; do $(TIDY_CLI) $$f -- -std=c99 $(AVX2) -I. || exit 1; done

CONFIGS += lint-cppcheck lint-clang-tidy
run-lint-cppcheck: | $(BUILD)
	@sh tests/harness/run_one.sh lint-cppcheck sh -c '$(LINT_CPPCHECK)'
run-lint-clang-tidy: | $(BUILD)
	@sh tests/harness/run_one.sh lint-clang-tidy sh -c '$(LINT_TIDY)'
.PHONY: lint lint-header
lint:
	$(LINT_CPPCHECK)
	$(LINT_TIDY)
# clang's analyzer takes a function of an included file (the header's, the
# suites') as a starting point only when told: the runs above reach the
# header's code only through the calls of the files they name. This one
# starts from each of the header's functions (AVX2 float, about 40 s; not
# in make test: what it reports depends on the checks it runs beside, and
# is triaged by hand).
lint-header:
	$(TIDY) --extra-arg=-Xclang --extra-arg=-analyzer-opt-analyze-headers \
	  tests/builds/multi_tu/impl.c -- -std=c99 $(AVX2) -I.

# ------------------------------------------------------------ embedded
# tests/builds/embedded.c trains the base model in a static block. Built for a
# Cortex-M4F with the start-up and memory map of qemu's mps2-an386 board
# (tests/builds/m4/), run there with semihosting: the exit status is the
# program's, and the start-up prints the stack it used (a painted stack's
# deepest overwritten word). The same source also runs on ARMv7 Linux
# (without NEON, so the scalar backend as on the M4, chosen by
# LINATTN_SIMD: the header warns of an ARMv7-A build without NEON) under
# qemu-arm.
M4CC = arm-none-eabi-gcc -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard \
  -mthumb -Os -std=c99 $(WARN) -ffunction-sections -fdata-sections \
  -fstack-usage -fcallgraph-info=su
M4DIR = $(BUILD)/m4
M4ELF = $(M4DIR)/embedded-mps2.elf
QEMU_M4 = qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel
STACK_REPORT = python3 tests/builds/m4/stack_report.py $(M4ELF) $(M4DIR)/embedded.o $(M4DIR)/startup.o

$(M4ELF): tests/builds/embedded.c tests/builds/m4/startup.c tests/builds/m4/mps2-an386.ld $(HDR) | $(BUILD)
	@mkdir -p $(M4DIR)
	cd $(M4DIR) && $(M4CC) -DLINATTN_NO_STDLIB -I$(CURDIR) -c $(CURDIR)/tests/builds/embedded.c -o embedded.o
	cd $(M4DIR) && $(M4CC) -c $(CURDIR)/tests/builds/m4/startup.c -o startup.o
	$(M4CC) -nostartfiles -T tests/builds/m4/mps2-an386.ld -Wl,--gc-sections --specs=nano.specs \
	  $(M4DIR)/embedded.o $(M4DIR)/startup.o -o $@ -lm -lc -lnosys

# The run's output, then the table (it fails if the measured stack exceeds
# the static estimate).
M4_RUN = $(QEMU_M4) $(M4ELF) > $(M4DIR)/run.txt 2>&1; rc=$$?; cat $(M4DIR)/run.txt; \
  [ $$rc -eq 0 ] && $(STACK_REPORT) --measured \
  $$(sed -n "s/^stack bytes used: //p" $(M4DIR)/run.txt)

.PHONY: embedded-report
embedded-report: $(M4ELF)
	@$(M4_RUN)

CONFIGS += embedded-m4-qemu embedded-armv7-qemu
run-embedded-m4-qemu: | $(BUILD)
	@sh tests/harness/run_one.sh embedded-m4-qemu --needs arm-none-eabi-gcc sh -c '$(MAKE) --no-print-directory $(M4ELF) && $(M4_RUN)'
run-embedded-armv7-qemu: | $(BUILD)
	@sh tests/harness/run_one.sh embedded-armv7-qemu sh -c 'arm-linux-gnueabihf-gcc -std=c99 $(WARN) \
	  -march=armv7-a -mthumb -mfpu=vfpv3-d16 -mfloat-abi=hard -Os -DLINATTN_NO_STDLIB \
	  -DLINATTN_SIMD=LINATTN_SCALAR -I. \
	  tests/builds/embedded.c -o $(BUILD)/embedded-armv7 -lm && $(QEMU32) $(BUILD)/embedded-armv7'

# ------------------------------------------------------------ soak
# Half the time random library runs, half the linattn command (an ASan and
# UBSan build) on random paths, links, FIFOs and full disks: a 64 KB tmpfs
# where mounting is permitted (root), else file size limits.
SOAK_SECONDS ?= 120
SOAK_SEED ?=
.PHONY: soak
$(BUILD)/soak: tests/fuzz/soak.c tests/fuzz/soak_cli.h $(HDR) | $(BUILD)
	$(CLANG) $(CFLAGS_HOST) $(NATIVE) $(SAN_O1) $< -o $@ -lm
$(BUILD)/linattn-soak: $(CLI_SRC) $(HDR) | $(BUILD)
	$(CLANG) $(CFLAGS_HOST) $(NATIVE) $(SAN_O1) -I. cli/main.c -o $@ -lm
soak: $(BUILD)/soak $(BUILD)/linattn-soak
	$(BUILD)/soak $(SOAK_SECONDS) "$(SOAK_SEED)" --cli $(CURDIR)/$(BUILD)/linattn-soak

# ------------------------------------------------------- -Wconversion
# The header is clean under -Wconversion (float, double and integer
# narrowing) with gcc and clang, as C and C++, on every target, Windows
# (MinGW-w64) included. It is not under -Wsign-conversion: some 180 lines
# index with `(size_t)i * n + j` and validated non-negative int
# dimensions, which that warning would have cast term by term.
WCONV = $(WARN) -Wconversion -Wno-sign-conversion -fsyntax-only -I. tests/builds/multi_tu/impl.c
WCONV_ALL = $(CC) -std=c99 $(WCONV) $(AVX2) && \
  $(CC) -std=c99 $(WCONV) -DLINATTN_DOUBLE $(SCALAR) && \
  $(CLANG) -std=c99 $(WCONV) $(AVX2) && \
  $(CLANG) -std=c99 $(WCONV) -DLINATTN_DOUBLE $(SCALAR) && \
  g++ -x c++ -std=c++11 $(WCONV) $(AVX2) && \
  clang++ -x c++ -std=c++11 -Wno-deprecated $(WCONV) -DLINATTN_DOUBLE && \
  aarch64-linux-gnu-gcc -std=c99 $(WCONV) && \
  aarch64-linux-gnu-gcc -std=c99 $(WCONV) -DLINATTN_DOUBLE && \
  arm-linux-gnueabihf-gcc -std=c99 $(WCONV) -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard && \
  arm-none-eabi-gcc -std=c99 $(WCONV) -DLINATTN_NO_STDLIB -mcpu=cortex-m4 \
    -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb && \
  x86_64-w64-mingw32-gcc -std=c99 $(WCONV) $(AVX2) && \
  x86_64-w64-mingw32-g++ -x c++ -std=c++11 $(WCONV) -DLINATTN_DOUBLE
CONFIGS += header-wconversion
run-header-wconversion: | $(BUILD)
	@sh tests/harness/run_one.sh header-wconversion sh -c '$(WCONV_ALL)'

# ------------------------------------------------------------ round 3
# The reproducers of the third hostile review, one or more an item
# (tests/cli/harden3_e2e.sh), against the program `make` builds, run as a user
# runs it (a file size limit without SIGXFSZ ignored, /dev/full, links
# planted in output folders, a forged checkpoint).
CONFIGS += cli-harden3
run-cli-harden3: | run-cli-program
	@sh tests/harness/run_one.sh cli-harden3 sh tests/cli/harden3_e2e.sh $(BUILD)/linattn $(BUILD)/cli-harden3

# ------------------------------------------------------------ files
# The checkpoint files' guarantees (exclusive temporaries, no write through
# a planted link, no FIFO replaced or waited on) in the library's own
# dialect, -std=c99 without POSIX feature macros, gcc and clang.
CONFIGS += files-c99-gcc files-c99-clang
run-files-c99-gcc: | $(BUILD)
	@sh tests/harness/run_one.sh files-c99-gcc sh -c '$(CC) -std=c99 -O1 $(WARN) tests/builds/files_c99.c -o $(BUILD)/t-files-c99-gcc -lm && timeout 120 $(BUILD)/t-files-c99-gcc'
run-files-c99-clang: | $(BUILD)
	@sh tests/harness/run_one.sh files-c99-clang sh -c '$(CLANG) -std=c99 -O1 $(WARN) tests/builds/files_c99.c -o $(BUILD)/t-files-c99-clang -lm && timeout 120 $(BUILD)/t-files-c99-clang'
