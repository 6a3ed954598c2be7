# linattn.h: tests, benchmarks, examples. `make test` runs the whole matrix.
CC ?= cc
WARN = -Wall -Wextra -Wpedantic -Wshadow -Werror
CFLAGS_HOST = -std=c99 -O2 $(WARN)
AVX2 = -mavx2 -mfma
BUILD = build

.PHONY: all quick test bench clean
all: quick

# The fastest useful check while developing: host AVX2, float and double.
quick: $(BUILD)/test-avx2-f $(BUILD)/test-avx2-d
	$(BUILD)/test-avx2-f
	$(BUILD)/test-avx2-d

HDR = linattn.h $(wildcard wip/*.h)
TESTSRC = tests/main.c $(wildcard tests/*.h tests/test_*.c)

$(BUILD)/test-avx2-f: $(TESTSRC) $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(AVX2) tests/main.c -o $@ -lm
$(BUILD)/test-avx2-d: $(TESTSRC) $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(AVX2) -DLINATTN_DOUBLE tests/main.c -o $@ -lm

# Benchmarks: every bench/bench_NAME.c becomes build/bench_NAME (float) and
# build/bench_NAME-d (double); `make bench` runs them all.
BENCHSRC = $(wildcard bench/bench_*.c)
BENCHBIN = $(patsubst bench/%.c,$(BUILD)/%,$(BENCHSRC))
BENCHFLAGS = -std=c99 -O2 $(WARN) $(AVX2)
$(BUILD)/bench_%: bench/bench_%.c bench/bench_common.h $(HDR) | $(BUILD)
	$(CC) $(BENCHFLAGS) -DBENCH_FLAGS='"$(BENCHFLAGS)"' $< -o $@ -lm
$(BUILD)/bench_%-d: bench/bench_%.c bench/bench_common.h $(HDR) | $(BUILD)
	$(CC) $(BENCHFLAGS) -DLINATTN_DOUBLE -DBENCH_FLAGS='"$(BENCHFLAGS) -DLINATTN_DOUBLE"' $< -o $@ -lm
bench: $(BENCHBIN)
	@for b in $(BENCHBIN); do echo "== $$b"; $$b || exit 1; done

$(BUILD):
	mkdir -p $(BUILD)

# Targets of the programs built on the library, one file each.
-include $(wildcard mk/*.mk)

clean:
	rm -rf $(BUILD)
