# The generator's fragment: golden vectors, and the test configurations that
# hold its bit-for-bit promise where a compiler would otherwise fuse.

.PHONY: golden-prompts dieharder

# Rewrites tests/golden_prompts.h from the scalar reference path.
golden-prompts: | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(SCALAR) tests/gen_golden.c -o $(BUILD)/gen_golden-f -lm
	$(CC) $(CFLAGS_HOST) $(SCALAR) -DLINATTN_DOUBLE tests/gen_golden.c -o $(BUILD)/gen_golden-d -lm
	{ $(BUILD)/gen_golden-f && $(BUILD)/gen_golden-d; } > tests/golden_prompts.h

# GNU C mode lets gcc fuse a*b+c by default; clang's default fuses within an
# expression. The golden vectors must still hold with FMA available.
$(eval $(call suite,gcc-gnu99-fma-prompts,$(CC) -std=gnu99 -O2 $(WARN) -march=haswell,))
$(eval $(call suite,clang-gnu99-fma-prompts,$(CLANG) -std=gnu99 -O3 $(WARN) -march=haswell,))

# The generator's words through dieharder's whole battery (apt-get install
# dieharder), one stream and sixteen interleaved; not part of `make test`
# (about an hour each). Reports in build/dieharder-{stream,streams}.txt.
dieharder: | $(BUILD)
	$(CC) $(CFLAGS_HOST) tests/rng_stream.c -o $(BUILD)/rng_stream -lm
	$(BUILD)/rng_stream 0 | dieharder -a -g 200 > $(BUILD)/dieharder-stream.txt
	$(BUILD)/rng_stream 1 | dieharder -a -g 200 > $(BUILD)/dieharder-streams.txt
	@grep -c PASSED $(BUILD)/dieharder-*.txt; grep -E 'WEAK|FAILED' $(BUILD)/dieharder-*.txt || true

