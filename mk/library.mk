# The library's suites beyond the main matrix, its examples and its
# benchmarks, one section per part of the header.

# ---------------------------------------------------------------- args
# Argument checks. `make args-quick` runs the args suite (float and double);
# the matrix runs it in every configuration, as part of tests/main.c. The two
# configurations below build tests/unit/args_alloc.c, the library with a counting
# LINATTN_MALLOC, to show that a size that would overflow is refused before
# anything is allocated: on the host, and on 32-bit ARM, where size_t wraps
# first.
.PHONY: args-quick
args-quick: $(BUILD)/$(QUICK)-f $(BUILD)/$(QUICK)-d
	$(BUILD)/$(QUICK)-f args/
	$(BUILD)/$(QUICK)-d args/

CONFIGS += args-alloc-host args-alloc-armv7
run-args-alloc-host: | $(BUILD)
	@sh tests/harness/run_one.sh args-alloc-host sh -c '$(CC) $(CFLAGS_HOST) $(AVX2) tests/unit/args_alloc.c -o $(BUILD)/args-alloc -lm && $(BUILD)/args-alloc'
run-args-alloc-armv7: | $(BUILD)
	@sh tests/harness/run_one.sh args-alloc-armv7 sh -c '$(A32) tests/unit/args_alloc.c -o $(BUILD)/args-alloc-armv7 -lm && $(QEMU32) $(BUILD)/args-alloc-armv7'

# ---------------------------------------------------------------- kernels
# The kernel layer: its benchmark in both precisions, and test configurations
# that reach kernel paths the main matrix does not.

.PHONY: bench-kernels
bench-kernels: $(BUILD)/bench_kernels $(BUILD)/bench_kernels-d
	$(BUILD)/bench_kernels
	$(BUILD)/bench_kernels-d

# ARMv7 NEON without VFPv4 has no fused multiply-add: the kernels then use
# vmla (multiply, round, add), which only the tolerances can tell apart, and
# the generator calls fmaf lane by lane, and must still match the golden
# vectors bit for bit. One build, its kernel and prompt tests.
CONFIGS += armv7-neon-nofma
run-armv7-neon-nofma: | $(BUILD)
	@sh tests/harness/run_one.sh armv7-neon-nofma sh -c 'arm-linux-gnueabihf-gcc $(CFLAGS_HOST) -march=armv7-a -mfpu=neon -mfloat-abi=hard tests/unit/main.c -o $(BUILD)/t-armv7-neon-nofma -lm && $(QEMU32) $(BUILD)/t-armv7-neon-nofma kernels,prompts'

# The benchmark must keep building with both compilers and run to its end;
# `quick` takes short repetitions, and its figures mean nothing.
CONFIGS += bench-kernels-smoke
run-bench-kernels-smoke: | $(BUILD)
	@sh tests/harness/run_one.sh bench-kernels-smoke sh -c '$(CLANG) $(BENCHFLAGS) bench/bench_kernels.c -o $(BUILD)/bench_kernels-clang -lm && $(BUILD)/bench_kernels-clang quick'

# Every benchmark program must keep building (warnings as errors) even when
# no one runs it: compiled here, not run, at -O1 (the flow analyses behind
# -Wmaybe-uninitialized run from -O1; 40% less compile time than -O2).
CONFIGS += bench-build
run-bench-build: | $(BUILD)
	@sh tests/harness/run_one.sh bench-build sh -c 'for b in $(BENCHSRC); do $(CC) $(BENCHFLAGS) -O1 $$b -o $(BUILD)/bb-$$(basename $$b .c) -lm -lpthread || exit 1; done'

# ---------------------------------------------------------------- prompts
# The generator's fragment: golden vectors, and the test configurations that
# hold its bit-for-bit promise where a compiler would otherwise fuse.

.PHONY: golden-prompts dieharder

# Rewrites tests/unit/golden_prompts.h from the scalar reference path.
golden-prompts: | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(SCALAR) tests/tools/gen_golden.c -o $(BUILD)/gen_golden-f -lm
	$(CC) $(CFLAGS_HOST) $(SCALAR) -DLINATTN_DOUBLE tests/tools/gen_golden.c -o $(BUILD)/gen_golden-d -lm
	{ $(BUILD)/gen_golden-f && $(BUILD)/gen_golden-d; } > tests/unit/golden_prompts.h

# GNU C mode lets gcc fuse a*b+c by default; clang's default fuses within an
# expression. The golden vectors must still hold with FMA available.
$(eval $(call suite,gcc-gnu99-fma-prompts,$(CC) -std=gnu99 -O2 $(WARN) -march=haswell,))
$(eval $(call suite,clang-gnu99-fma-prompts,$(CLANG) -std=gnu99 -O3 $(WARN) -march=haswell,))

# The generator's words through dieharder's whole battery (apt-get install
# dieharder), one stream and sixteen interleaved; not part of `make test`
# (about an hour each). Reports in build/dieharder-{stream,streams}.txt.
dieharder: | $(BUILD)
	$(CC) $(CFLAGS_HOST) tests/tools/rng_stream.c -o $(BUILD)/rng_stream -lm
	$(BUILD)/rng_stream 0 | dieharder -a -g 200 > $(BUILD)/dieharder-stream.txt
	$(BUILD)/rng_stream 1 | dieharder -a -g 200 > $(BUILD)/dieharder-streams.txt
	@grep -c PASSED $(BUILD)/dieharder-*.txt; grep -E 'WEAK|FAILED' $(BUILD)/dieharder-*.txt || true


# ---------------------------------------------------------------- model
# The model section: its benchmark (also built by the generic bench rule)
# and a quick run of it.
.PHONY: bench-model
bench-model: $(BUILD)/bench_model
	$(BUILD)/bench_model

# ---------------------------------------------------------------- optim
# Optimizers and the training driver: the custom-optimizer example, built
# and run (its exit status says whether the new optimizer made progress).
.PHONY: example-custom-optimizer
$(BUILD)/custom_optimizer: examples/custom_optimizer.c $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(NATIVE) -I. $< -o $@ -lm
example-custom-optimizer: $(BUILD)/custom_optimizer
	$(BUILD)/custom_optimizer

CONFIGS += example-custom-optimizer
run-example-custom-optimizer: | $(BUILD)
	@sh tests/harness/run_one.sh example-custom-optimizer sh -c '$(CC) $(CFLAGS_HOST) $(AVX2) -I. examples/custom_optimizer.c -o $(BUILD)/custom_optimizer-t -lm && $(BUILD)/custom_optimizer-t'

# ---------------------------------------------------------------- diag
# Diagnostics: `make diag-quick` runs only the diag tests (float and double);
# `make bench-diag` runs its benchmark (`--quick` skips the noise run).
.PHONY: diag-quick bench-diag
diag-quick: $(BUILD)/$(QUICK)-f $(BUILD)/$(QUICK)-d
	$(BUILD)/$(QUICK)-f diag/
	$(BUILD)/$(QUICK)-d diag/
bench-diag: $(BUILD)/bench_diag
	$(BUILD)/bench_diag

# ---------------------------------------------------------------- threads
# Threads and the AVX-512 backend: configurations beyond the main matrix.
#   make bench-threads   the library's threads table alone (1 .. all cores;
#                        batches 1,000, 20,000 and 100,000; step, gradient,
#                        HVP): bench_torch without the Python side
.PHONY: bench-threads
bench-threads: $(BUILD)/bench_torch
	$(BUILD)/bench_torch --no-torch

# The pool and the bit-identical results under ThreadSanitizer.
CONFIGS += tsan-threads
run-tsan-threads: | $(BUILD)
	@sh tests/harness/run_one.sh tsan-threads sh -c '$(CLANG) $(CFLAGS_HOST) $(AVX2) -O1 -g -fsanitize=thread tests/unit/main.c -o $(BUILD)/t-tsan-threads -lm && $(BUILD)/t-tsan-threads threads'

# A build with the pool compiled out: one thread, a host parallel-for still
# works, and la_pool_create refuses more than one thread.
$(eval $(call suite,gcc-nothreads-float,$(CC) $(CFLAGS_HOST) $(AVX2) -DLINATTN_NO_THREADS,))

# GNU C mode on an AVX-512 target: the generator's golden vectors hold where
# gcc could fuse (it is told not to) and the backend is chosen by itself.
$(eval $(call suite,gcc-gnu99-avx512-prompts,$(CC) -std=gnu99 -O2 $(WARN) -march=icelake-server,))

# The AVX-512 backend's wide model panels (LINATTN_PANEL_BITS 512, the
# default) and its 256-bit panels give the AVX2 build's bits: one program,
# tests/builds/panels.c, built as three translation units and a driver;
# float and double. Skipped (exit 0) on a CPU without AVX-512.
# $(1): name, $(2): extra flags (precision)
define panels_cfg
CONFIGS += $(1)
run-$(1): | $(BUILD)
	@sh tests/harness/run_one.sh $(1) sh -c '$(CC) -std=c99 -O2 $(WARN) $(2) $(AVX2) -DPANELS_TU=avx2 -c tests/builds/panels.c -o $(BUILD)/$(1)-avx2.o && \
	  $(CC) -std=c99 -O2 $(WARN) $(2) $(AVX512) -DPANELS_TU=wide -c tests/builds/panels.c -o $(BUILD)/$(1)-wide.o && \
	  $(CC) -std=c99 -O2 $(WARN) $(2) $(AVX512) -DLINATTN_PANEL_BITS=256 -DPANELS_TU=p256 -c tests/builds/panels.c -o $(BUILD)/$(1)-p256.o && \
	  $(CC) -std=c99 -O2 $(WARN) -DPANELS_VARIANTS="X(avx2) X(wide) X(p256)" tests/builds/panels.c $(BUILD)/$(1)-avx2.o $(BUILD)/$(1)-wide.o $(BUILD)/$(1)-p256.o -o $(BUILD)/$(1) -lm -lpthread && \
	  $(BUILD)/$(1)'
endef
$(eval $(call panels_cfg,avx512-panels-float,))
$(eval $(call panels_cfg,avx512-panels-double,-DLINATTN_DOUBLE))

# ---------------------------------------------------------------- examples
# The one-page C API example of the README, built and run: its exit status
# says whether the run trained.
.PHONY: example-quickstart
$(BUILD)/quickstart: examples/quickstart.c $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(NATIVE) -I. $< -o $@ -lm
example-quickstart: $(BUILD)/quickstart
	$(BUILD)/quickstart

# C and C++ agree bit for bit: the example built with gcc, g++, clang and
# clang++ at -O2 and -O3 (ISO and GNU dialects) must train and print the
# same bytes (tests/builds/same_output.sh), with the AVX2 flags; and with the
# scalar kernels where the compiler may still contract to FMA (-mfma), in
# half the builds (each compiler, each language in both dialects) and a
# shorter run: the scalar path takes ten times as long.
define same_output
CONFIGS += $(1)
run-$(1): | $(BUILD)
	@sh tests/harness/run_one.sh $(1) sh tests/builds/same_output.sh $(BUILD)/$(1) '$(2)' examples/quickstart.c $(3)
endef
$(eval $(call same_output,quickstart-c-cxx-avx2,$(AVX2)))
$(eval $(call same_output,quickstart-c-cxx-scalar,$(SCALAR) -mfma -DQUICKSTART_STEPS=150,half))


# ---------------------------------------------------------------- scope
# The core alone: the research layer (paper B's baselines and family)
# compiled out with -DLINATTN_NO_RESEARCH; the suite runs without its tests.
$(eval $(call suite,gcc-core-only-float,$(CC) $(CFLAGS_HOST) $(AVX2) -DLINATTN_NO_RESEARCH,))

# The doc block's code sample, cut out of the header, compiled and run.
CONFIGS += doc-sample
run-doc-sample: | $(BUILD)
	@sh tests/harness/run_one.sh doc-sample sh tests/builds/doc_sample.sh $(BUILD)/doc-sample $(CC) -std=c99 -O2 $(WARN) $(AVX2)
