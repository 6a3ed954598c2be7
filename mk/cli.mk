# The linattn command (cli/main.c), its demo, its benchmark, the
# package files and their tests.
#   make                    also builds build/linattn
#   make demo               build/linattn reproduce -> build/demo/ (report.md, SVGs)
#   make readme-figures     every figure and number of the README, regenerated
#   make bench-reproduce    wall time of the demo on one core, and of --full
#   make bench-reproduce-all  wall time of reproduce --all (quick forms)
#   make bench-report       report over 10,000 runs: time and peak memory
#   make bench-plan         a plan of 10,450 runs and its merges: the same
#   make install PREFIX=..  linattn.h, bin/linattn, and in lib/pkgconfig
#                           linattn.pc and linattn-native.pc
.PHONY: demo bench-reproduce install uninstall FORCE
CLI_SRC = cli/main.c $(wildcard cli/*.h cli/*/*.h)
# The program's kernels: this machine's ($(NATIVE), see the Makefile);
# `make NATIVE=` (or CLI_ARCH=) for a portable scalar build.
CLI_ARCH ?= $(NATIVE)
# Its reals: float (the default, twice the lanes) or `make CLI_REAL=double`
# (a run at depth 6 or 8 then stays within range).
CLI_REAL ?= float
CLI_PREC = $(if $(filter double,$(CLI_REAL)),-DLINATTN_DOUBLE,)
PREFIX ?= /usr/local
DESTDIR ?=
LA_VERSION = $(shell sed -n 's/^\#define LINATTN_VERSION_MAJOR //p' $(HDR)).$(shell sed -n 's/^\#define LINATTN_VERSION_MINOR //p' $(HDR)).$(shell sed -n 's/^\#define LINATTN_VERSION_PATCH //p' $(HDR))

all: $(BUILD)/linattn $(BUILD)/linattn-double

# $(call cli_cc,COMPILER,KERNEL FLAGS,OUTPUT): how the program is built
# (also for another host: mk/hosts.mk).
cli_cc = $(1) $(CFLAGS_HOST) $(2) $(CLI_PREC) -I. cli/main.c -o $(3) -lm
# The command that builds the program is kept beside it: another compiler
# or other flags (CLI_REAL too) rebuild it.
CLI_CMD = $(call cli_cc,$(CC),$(CLI_ARCH),$(BUILD)/linattn)
$(BUILD)/linattn.cmd: FORCE | $(BUILD)
	@echo '$(CLI_CMD)' | cmp -s - $@ || echo '$(CLI_CMD)' > $@
$(BUILD)/linattn: $(CLI_SRC) $(HDR) $(BUILD)/linattn.cmd
	$(CLI_CMD)
# Its double twin: reproduce runs the studies at depth 6 and 8 with it
# (float runs there overflow), found beside the program.
CLI_CMD_D = $(call cli_cc,$(CC),$(CLI_ARCH) -DLINATTN_DOUBLE,$(BUILD)/linattn-double)
$(BUILD)/linattn-double.cmd: FORCE | $(BUILD)
	@echo '$(CLI_CMD_D)' | cmp -s - $@ || echo '$(CLI_CMD_D)' > $@
$(BUILD)/linattn-double: $(CLI_SRC) $(HDR) $(BUILD)/linattn-double.cmd
	$(CLI_CMD_D)

demo: $(BUILD)/linattn
	@rm -rf $(BUILD)/demo
	@start=$$(date +%s.%N); \
	$(BUILD)/linattn reproduce --out-dir $(BUILD)/demo || exit 1; \
	end=$$(date +%s.%N); \
	echo "make demo: $$(awk "BEGIN { printf \"%.1f\", $$end - $$start }") s; open $(BUILD)/demo/report.md"

# The README's figures and numbers from one run, so none goes stale: the
# demo (docs/demo/), reproduce --all (docs/paper-a/), the theorem checks and
# the quick-start output (about 12 minutes on two cores).
.PHONY: readme-figures
readme-figures: $(BUILD)/linattn $(BUILD)/quickstart
	sh docs/readme_figures.sh $(BUILD)

bench-reproduce: $(BUILD)/linattn
	sh bench/scripts/bench_reproduce.sh $(BUILD)/linattn $(BUILD)/bench-reproduce

# reproduce --all, quick forms, on every core: target 10 minutes on two.
.PHONY: bench-reproduce-all
bench-reproduce-all: $(BUILD)/linattn
	sh bench/scripts/bench_reproduce_all.sh $(BUILD)/linattn $(BUILD)/bench-reproduce-all

# The pkg-config files are written at every install, for that PREFIX (never
# kept from an earlier one): linattn.pc for the portable scalar backend,
# linattn-native.pc adding this machine's SIMD flags, $(NATIVE).
PCDIR = $(DESTDIR)$(PREFIX)/lib/pkgconfig
PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LA_VERSION)|' -e 's|@NATIVE@|$(NATIVE)|'
install: $(BUILD)/linattn $(BUILD)/linattn-double
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin $(PCDIR)
	install -m 644 $(HDR) $(DESTDIR)$(PREFIX)/include/linattn.h
	install -m 755 $(BUILD)/linattn $(DESTDIR)$(PREFIX)/bin/linattn
	install -m 755 $(BUILD)/linattn-double $(DESTDIR)$(PREFIX)/bin/linattn-double
	$(PC_SED) linattn.pc.in > $(PCDIR)/linattn.pc
	$(PC_SED) linattn-native.pc.in > $(PCDIR)/linattn-native.pc
	chmod 644 $(PCDIR)/linattn.pc $(PCDIR)/linattn-native.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/linattn.h $(DESTDIR)$(PREFIX)/bin/linattn \
	  $(DESTDIR)$(PREFIX)/bin/linattn-double \
	  $(PCDIR)/linattn.pc $(PCDIR)/linattn-native.pc

# The program `make` builds (warnings as errors), a configuration of its
# own: built once, by the time its turn comes among the longest first, and
# before the three that use it (cli-end-to-end, cli-install, python: their
# own makes then find it up to date instead of building it at once).
CONFIGS += cli-program
run-cli-program: | $(BUILD)
	@sh tests/harness/run_one.sh cli-program $(MAKE) --no-print-directory -s $(BUILD)/linattn $(BUILD)/linattn-double

# Every subcommand end to end: help, bad input and exit codes, JSON lines
# that parse, SVGs that are well-formed XML, resume equal to an unbroken run.
# The program is cli-program's, shared with cli-install (whose `make
# install` then finds it up to date).
CONFIGS += cli-end-to-end
run-cli-end-to-end: | run-cli-program
	@sh tests/harness/run_one.sh cli-end-to-end sh tests/cli/cli_e2e.sh $(BUILD)/linattn $(BUILD)/cli-e2e

# A study on a real Slurm (tests/cli/slurm_e2e.sh): a private single-node
# cluster runs reproduce --all's plan as job arrays, and the report is the
# local run's, byte for byte (as are those of the plan through xargs and GNU
# parallel); a failed task named by the merge; the scheduler's overhead a
# run printed. About three minutes on two cores; skipped without Slurm and
# munge, or when not root.
CONFIGS += slurm-e2e
run-slurm-e2e: | run-cli-program
	@sh tests/harness/run_one.sh slurm-e2e sh tests/cli/slurm_e2e.sh $(BUILD)/linattn $(BUILD)/slurm-e2e

# The program under ASan and UBSan (at -O1: it trains, and -O0 would take
# 4 minutes), on the quick part of the same script.
CONFIGS += cli-asan-ubsan
run-cli-asan-ubsan: | $(BUILD)
	@sh tests/harness/run_one.sh cli-asan-ubsan sh -c '$(CLANG) $(CFLAGS_HOST) $(AVX2) $(SAN_O1) -I. cli/main.c -o $(BUILD)/linattn-san -lm && LINATTN_E2E_QUICK=1 sh tests/cli/cli_e2e.sh $(BUILD)/linattn-san $(BUILD)/cli-san'

# make install into scratch prefixes, then projects that find the header
# through pkg-config (portable and native, under -Wl,--as-needed) and CMake
# projects (add_subdirectory, FetchContent, C++ only, LINATTN_NATIVE).
CONFIGS += cli-install
run-cli-install: | run-cli-program
	@sh tests/harness/run_one.sh cli-install --needs g++ sh tests/cli/cli_install.sh $(BUILD)/cli-install

# The program's helper headers each compile on their own (they include what
# they use), and its run fields are held to the header's table: the config
# line, the grouping of a report, the parser, the resume check; its
# statistics and figures are checked (tests/cli/cli_stats.c).
CLI_HEADERS = $(wildcard examples/*.h)
CONFIGS += cli-units
run-cli-units: | $(BUILD)
	@sh tests/harness/run_one.sh cli-units sh -c 'for h in $(CLI_HEADERS); do \
	  printf "#define _POSIX_C_SOURCE 200809L\n#include \"%s\"\nint main(void) { return 0; }\n" $$h > $(BUILD)/alone.c && \
	  $(CC) -std=c99 $(WARN) -Wno-unused-function -I. -c $(BUILD)/alone.c -o $(BUILD)/alone.o || exit 1; \
	  echo "ok   $$h compiles on its own"; done; echo "1 passed, 0 failed" && \
	  $(CC) $(CFLAGS_HOST) $(NATIVE) -Wno-unused-function -I. tests/cli/cli_fields.c -o $(BUILD)/cli_fields -lm && $(BUILD)/cli_fields && \
	  $(CC) $(CFLAGS_HOST) $(NATIVE) -Wno-unused-function -I. tests/cli/cli_stats.c -o $(BUILD)/cli_stats -lm && $(BUILD)/cli_stats'

# `report` over 10,000 small runs: time and peak memory against the input.
.PHONY: bench-report
bench-report: $(BUILD)/linattn
	sh bench/scripts/bench_report.sh $(BUILD)/linattn $(BUILD)/bench-report

# A plan of 10,450 runs (reproduce --all --seeds 512 --plan --slurm) and its
# two merges from its tiny runs: time and peak memory of each, against
# the targets (10 s, 100 MB). Not part of make test.
.PHONY: bench-plan
bench-plan: $(BUILD)/linattn
	sh bench/scripts/bench_plan.sh $(BUILD)/linattn $(BUILD)/bench-plan

# The command's file handling, exit statuses and number formats
# (tests/cli/cli_files.c, in a scratch folder), under ASan and UBSan.
CONFIGS += cli-files
run-cli-files: | $(BUILD)
	@sh tests/harness/run_one.sh cli-files sh -c '$(CLANG) $(CFLAGS_HOST) $(AVX2) $(SAN) -Wno-unused-function -I. tests/cli/cli_files.c -o $(BUILD)/cli_files -lm && $(BUILD)/cli_files $(BUILD)/cli-files'

# The reproducers of the fourth hostile review, the program's items
# (tests/cli/harden4_e2e.sh), one or more an item, each failing on the
# program before its fix: plans run by /bin/sh (dash) from folders with
# quotes, control bytes and Latin-1 names, links at DIR/plan and DIR/runs,
# merges of outputs that are not the plan's, a float twin of a double
# study, re-planned and reused folders, a path too long for a plan, a large
# --data-file's memory, a killed run resumed into its output, forged
# plan/flags and theorem units, a .npy header with a key twice, a replaced
# file's mode (the program's and the header's writer).
CONFIGS += cli-harden4
run-cli-harden4: | run-cli-program
	@sh tests/harness/run_one.sh cli-harden4 sh tests/cli/harden4_e2e.sh $(BUILD)/linattn $(BUILD)/cli-harden4

# The model family's experiments.
#   make kq-staircase   merged against separate keys and queries from a small
#                       initialization (examples/kq_staircase.sh): the loss
#                       curves, their numbers and the plateaus counted, in
#                       build/kq-staircase/ (about 30 s on one core)
.PHONY: kq-staircase
kq-staircase: $(BUILD)/linattn
	sh examples/kq_staircase.sh $(BUILD)/linattn $(BUILD)/kq-staircase
