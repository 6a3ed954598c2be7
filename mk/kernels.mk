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
	@sh tests/run_one.sh armv7-neon-nofma sh -c 'arm-linux-gnueabihf-gcc $(CFLAGS_HOST) -march=armv7-a -mfpu=neon -mfloat-abi=hard tests/main.c -o $(BUILD)/t-armv7-neon-nofma -lm && $(QEMU32) $(BUILD)/t-armv7-neon-nofma kernels,prompts'

# The benchmark must keep building with both compilers and run to its end;
# `quick` takes short repetitions, and its figures mean nothing.
CONFIGS += bench-kernels-smoke
run-bench-kernels-smoke: | $(BUILD)
	@sh tests/run_one.sh bench-kernels-smoke sh -c '$(CLANG) $(BENCHFLAGS) bench/bench_kernels.c -o $(BUILD)/bench_kernels-clang -lm && $(BUILD)/bench_kernels-clang quick'

# Every benchmark program must keep building (warnings as errors) even when
# no one runs it: compiled here, not run, at -O1 (the flow analyses behind
# -Wmaybe-uninitialized run from -O1; 40% less compile time than -O2).
CONFIGS += bench-build
run-bench-build: | $(BUILD)
	@sh tests/run_one.sh bench-build sh -c 'for b in $(BENCHSRC); do $(CC) $(BENCHFLAGS) -O1 $$b -o $(BUILD)/bb-$$(basename $$b .c) -lm -lpthread || exit 1; done'
