# The model section: its benchmark (also built by the generic bench rule)
# and a quick run of it.
.PHONY: bench-model
bench-model: $(BUILD)/bench_model
	$(BUILD)/bench_model
