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

# docs/library.md's table of each diagnostic's memory (between the
# gen_memory markers), printed by tests/tools/gen_memory.c from the size
# queries.
#   make docs-memory    writes it into the page
.PHONY: docs-memory
$(BUILD)/gen_memory: tests/tools/gen_memory.c $(HDR) | $(BUILD)
	$(CC) -std=c99 -O1 $(WARN) tests/tools/gen_memory.c -o $@ -lm
docs-memory: $(BUILD)/gen_memory
	$(BUILD)/gen_memory docs/library.md > $(BUILD)/library.md && mv $(BUILD)/library.md docs/library.md

CONFIGS += docs-memory
run-docs-memory: | $(BUILD)
	@sh tests/harness/run_one.sh docs-memory sh -c '$(CC) -std=c99 -O1 $(WARN) tests/tools/gen_memory.c -o $(BUILD)/gen_memory -lm && $(BUILD)/gen_memory docs/library.md | diff -u docs/library.md - && echo "docs/library.md has the table" || { echo "docs/library.md is stale: make docs-memory"; exit 1; }'
