# Diagnostics: `make diag-quick` runs only the diag tests (float and double);
# `make bench-diag` runs its benchmark (`--quick` skips the noise run).
.PHONY: diag-quick bench-diag
diag-quick: $(BUILD)/test-avx2-f $(BUILD)/test-avx2-d
	$(BUILD)/test-avx2-f diag/
	$(BUILD)/test-avx2-d diag/
bench-diag: $(BUILD)/bench_diag
	$(BUILD)/bench_diag
