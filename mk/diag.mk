# Diagnostics: `make diag-quick` runs only the diag tests (float and double);
# `make bench-diag` runs its benchmark (`--quick` skips the noise run).
.PHONY: diag-quick bench-diag
diag-quick: $(BUILD)/$(QUICK)-f $(BUILD)/$(QUICK)-d
	$(BUILD)/$(QUICK)-f diag/
	$(BUILD)/$(QUICK)-d diag/
bench-diag: $(BUILD)/bench_diag
	$(BUILD)/bench_diag
