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

$(BUILD):
	mkdir -p $(BUILD)

clean:
	rm -rf $(BUILD)
