# Optimizers and the training driver: the custom-optimizer example, built
# and run (its exit status says whether the new optimizer made progress).
.PHONY: example-custom-optimizer
$(BUILD)/custom_optimizer: examples/custom_optimizer.c $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(NATIVE) -I. $< -o $@ -lm
example-custom-optimizer: $(BUILD)/custom_optimizer
	$(BUILD)/custom_optimizer

CONFIGS += example-custom-optimizer
run-example-custom-optimizer: | $(BUILD)
	@sh tests/run_one.sh example-custom-optimizer sh -c '$(CC) $(CFLAGS_HOST) $(AVX2) -I. examples/custom_optimizer.c -o $(BUILD)/custom_optimizer-t -lm && $(BUILD)/custom_optimizer-t'
