# The linattn command (examples/linattn.c), its demo, its benchmark, the
# package files and their tests.
#   make                    also builds build/linattn
#   make demo               build/linattn reproduce -> build/demo/ (report.md, SVGs)
#   make readme-figures     every figure and number of the README, regenerated
#   make bench-reproduce    wall time of the demo on one core, and of --full
#   make bench-reproduce-all  wall time of reproduce --all (quick forms)
#   make bench-report       report over 10,000 runs: time and peak memory
#   make install PREFIX=..  linattn.h, bin/linattn, lib/pkgconfig/linattn.pc
.PHONY: demo bench-reproduce install uninstall
CLI_SRC = examples/linattn.c $(wildcard examples/linattn_*.h) examples/la_svg.h
# The program's kernels: AVX2 on x86-64 by default; `make CLI_ARCH=` for a
# portable scalar build, `CLI_ARCH=-march=native` for this machine.
CLI_ARCH ?= $(AVX2)
# Its reals: float (the default, twice the lanes) or `make CLI_REAL=double`
# (a run at depth 6 or 8 then stays within range: make clean first).
CLI_REAL ?= float
CLI_PREC = $(if $(filter double,$(CLI_REAL)),-DLINATTN_DOUBLE,)
PREFIX ?= /usr/local
DESTDIR ?=
LA_VERSION = $(shell sed -n 's/^\#define LINATTN_VERSION_MAJOR //p' $(HDR)).$(shell sed -n 's/^\#define LINATTN_VERSION_MINOR //p' $(HDR)).$(shell sed -n 's/^\#define LINATTN_VERSION_PATCH //p' $(HDR))

all: $(BUILD)/linattn

$(BUILD)/linattn: $(CLI_SRC) $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(CLI_ARCH) $(CLI_PREC) -I. examples/linattn.c -o $@ -lm

demo: $(BUILD)/linattn
	@rm -rf $(BUILD)/demo
	@start=$$(date +%s.%N); \
	$(BUILD)/linattn reproduce --out $(BUILD)/demo || exit 1; \
	end=$$(date +%s.%N); \
	echo "make demo: $$(awk "BEGIN { printf \"%.1f\", $$end - $$start }") s; open $(BUILD)/demo/report.md"

# The README's figures and numbers from one run, so none goes stale: the
# demo (docs/demo/), reproduce --all (docs/paper-a/), the theorem checks and
# the quick-start output (about 12 minutes on two cores).
.PHONY: readme-figures
readme-figures: $(BUILD)/linattn $(BUILD)/quickstart
	sh docs/readme_figures.sh $(BUILD)

bench-reproduce: $(BUILD)/linattn
	sh bench/bench_reproduce.sh $(BUILD)/linattn $(BUILD)/bench-reproduce

# reproduce --all, quick forms, on every core: target 10 minutes on two.
.PHONY: bench-reproduce-all
bench-reproduce-all: $(BUILD)/linattn
	sh bench/bench_reproduce_all.sh $(BUILD)/linattn $(BUILD)/bench-reproduce-all

$(BUILD)/linattn.pc: linattn.pc.in $(HDR) | $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LA_VERSION)|' linattn.pc.in > $@

install: $(BUILD)/linattn $(BUILD)/linattn.pc
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(HDR) $(DESTDIR)$(PREFIX)/include/linattn.h
	install -m 755 $(BUILD)/linattn $(DESTDIR)$(PREFIX)/bin/linattn
	install -m 644 $(BUILD)/linattn.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/linattn.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/linattn.h $(DESTDIR)$(PREFIX)/bin/linattn $(DESTDIR)$(PREFIX)/lib/pkgconfig/linattn.pc

# Every subcommand end to end: help, bad input and exit codes, JSON lines
# that parse, SVGs that are well-formed XML, resume equal to an unbroken run.
CONFIGS += cli-end-to-end
run-cli-end-to-end: | $(BUILD)
	@sh tests/run_one.sh cli-end-to-end sh -c '$(CC) $(CFLAGS_HOST) $(AVX2) -I. examples/linattn.c -o $(BUILD)/linattn-e2e -lm && sh tests/cli_e2e.sh $(BUILD)/linattn-e2e $(BUILD)/cli-e2e'

# The program under ASan and UBSan, on the quick part of the same script.
CONFIGS += cli-asan-ubsan
run-cli-asan-ubsan: | $(BUILD)
	@sh tests/run_one.sh cli-asan-ubsan sh -c '$(CLANG) $(CFLAGS_HOST) $(AVX2) $(SAN) -I. examples/linattn.c -o $(BUILD)/linattn-san -lm && LINATTN_E2E_QUICK=1 sh tests/cli_e2e.sh $(BUILD)/linattn-san $(BUILD)/cli-san'

# make install into a scratch prefix, then a project that finds the header
# through pkg-config, and two CMake projects (add_subdirectory, FetchContent).
CONFIGS += cli-install
run-cli-install: | $(BUILD)
	@sh tests/run_one.sh cli-install sh tests/cli_install.sh $(BUILD)/cli-install

# The program's helper headers each compile on their own (they include what
# they use), and its run fields are held to the header's table: the config
# line, the grouping of a report, the parser, the resume check; its
# statistics and figures are checked (tests/cli_stats.c).
CLI_HEADERS = $(wildcard examples/*.h)
CONFIGS += cli-units
run-cli-units: | $(BUILD)
	@sh tests/run_one.sh cli-units sh -c 'for h in $(CLI_HEADERS); do \
	  printf "#define _POSIX_C_SOURCE 200809L\n#include \"%s\"\nint main(void) { return 0; }\n" $$h > $(BUILD)/alone.c && \
	  $(CC) -std=c99 $(WARN) -Wno-unused-function -I. -c $(BUILD)/alone.c -o $(BUILD)/alone.o || exit 1; \
	  echo "ok   $$h compiles on its own"; done; echo "1 passed, 0 failed" && \
	  $(CC) $(CFLAGS_HOST) $(AVX2) -Wno-unused-function -I. -Iexamples -Itests tests/cli_fields.c -o $(BUILD)/cli_fields -lm && $(BUILD)/cli_fields && \
	  $(CC) $(CFLAGS_HOST) $(AVX2) -Wno-unused-function -I. -Iexamples -Itests tests/cli_stats.c -o $(BUILD)/cli_stats -lm && $(BUILD)/cli_stats'

# `report` over 10,000 small runs: time and peak memory against the input.
.PHONY: bench-report
bench-report: $(BUILD)/linattn
	sh bench/bench_report.sh $(BUILD)/linattn $(BUILD)/bench-report
