# Argument checks. `make args-quick` runs the args suite (float and double);
# the matrix runs it in every configuration, as part of tests/main.c. The two
# configurations below build tests/args_alloc.c, the library with a counting
# LINATTN_MALLOC, to show that a size that would overflow is refused before
# anything is allocated: on the host, and on 32-bit ARM, where size_t wraps
# first.
.PHONY: args-quick
args-quick: $(BUILD)/$(QUICK)-f $(BUILD)/$(QUICK)-d
	$(BUILD)/$(QUICK)-f args/
	$(BUILD)/$(QUICK)-d args/

CONFIGS += args-alloc-host args-alloc-armv7
run-args-alloc-host: | $(BUILD)
	@sh tests/run_one.sh args-alloc-host sh -c '$(CC) $(CFLAGS_HOST) $(AVX2) tests/args_alloc.c -o $(BUILD)/args-alloc -lm && $(BUILD)/args-alloc'
run-args-alloc-armv7: | $(BUILD)
	@sh tests/run_one.sh args-alloc-armv7 sh -c '$(A32) tests/args_alloc.c -o $(BUILD)/args-alloc-armv7 -lm && $(QEMU32) $(BUILD)/args-alloc-armv7'
