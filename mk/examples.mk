# The one-page C API example of the README, built as C99 with gcc and clang
# and run: its exit status says whether the run trained.
.PHONY: example-quickstart
$(BUILD)/quickstart: examples/quickstart.c $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(AVX2) -I. $< -o $@ -lm
example-quickstart: $(BUILD)/quickstart
	$(BUILD)/quickstart

CONFIGS += example-quickstart
run-example-quickstart: | $(BUILD)
	@sh tests/run_one.sh example-quickstart sh -c '$(CC) $(CFLAGS_HOST) $(AVX2) -I. examples/quickstart.c -o $(BUILD)/quickstart-t -lm && $(BUILD)/quickstart-t && $(CLANG) $(CFLAGS_HOST) -I. examples/quickstart.c -o $(BUILD)/quickstart-t-scalar -lm && $(BUILD)/quickstart-t-scalar'
