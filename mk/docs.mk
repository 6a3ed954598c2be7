# Pages printed from the header, never written by hand.
#   make docs-fields    docs/fields.md from the run-field table and presets
# The configuration docs-fields of `make test` fails when the page is stale.
.PHONY: docs-fields
$(BUILD)/gen_fields: tests/tools/gen_fields.c $(HDR) | $(BUILD)
	$(CC) -std=c99 -O1 $(WARN) tests/tools/gen_fields.c -o $@ -lm
docs-fields: $(BUILD)/gen_fields
	$(BUILD)/gen_fields > docs/fields.md

CONFIGS += docs-fields
run-docs-fields: | $(BUILD)
	@sh tests/harness/run_one.sh docs-fields sh -c '$(CC) -std=c99 -O1 $(WARN) tests/tools/gen_fields.c -o $(BUILD)/gen_fields -lm && $(BUILD)/gen_fields | diff -u docs/fields.md - && echo "docs/fields.md is the table" || { echo "docs/fields.md is stale: make docs-fields"; exit 1; }'
