# A big-endian host: IBM Z (s390x, 64-bit) under qemu-user, built by
# Debian's cross gcc, whose ISO C mode would evaluate float in double
# (__FLT_EVAL_METHOD__ 1; the header tells it not to). Light, as the ARM
# suites: the whole suite in float; in double the golden vectors and the
# checkpoints (the prompts:, train: and run: tests), the parts whose bytes depend on the
# precision, since a full double suite would double the time qemu takes.
QEMUZ = qemu-s390x -L /usr/s390x-linux-gnu
S390X = s390x-linux-gnu-gcc $(CFLAGS_HOST)
$(eval $(call suite,s390x-scalar-float,$(S390X),$(LIGHT) $(QEMUZ)))
CONFIGS += s390x-scalar-double
run-s390x-scalar-double: | $(BUILD)
	@sh tests/harness/run_one.sh s390x-scalar-double sh -c '$(S390X) -DLINATTN_DOUBLE tests/unit/main.c -o $(BUILD)/t-s390x-scalar-double -lm && $(LIGHT) $(QEMUZ) $(BUILD)/t-s390x-scalar-double prompts:,train:,run:'

# The portable (scalar) linattn built for this host and for s390x: the same
# step lines and checkpoints for a short Setting 1 run, and a checkpoint
# written halfway on either resumes on the other (tests/cli/cross_host.sh).
CONFIGS += s390x-cli-cross-host
run-s390x-cli-cross-host: | $(BUILD)
	@sh tests/harness/run_one.sh s390x-cli-cross-host sh -c '$(call cli_cc,$(CC),$(SCALAR),$(BUILD)/linattn-scalar) && \
	  $(call cli_cc,s390x-linux-gnu-gcc,$(SCALAR),$(BUILD)/linattn-s390x) && \
	  sh tests/cli/cross_host.sh $(BUILD)/cross-s390x $(BUILD)/linattn-scalar $(BUILD)/linattn-s390x $(QEMUZ)'

# ------------------------------------------------ WebAssembly (wasm32-wasi)
# The suite compiled by clang to wasm32-wasi (wasi-libc) and run under
# Node's WASI by tests/builds/wasi_run.mjs: the SIMD128 backend in float and
# double, and the scalar one. WASI has no threads (the pool is not built)
# and reaches only preopened folders: /tmp, where the suite writes its
# checkpoints, is a folder of its own under build/. clock() is WASI's
# emulation; the stack is 8 MiB as on Linux (wasm-ld's default is 64 KiB),
# and the memory is all there from the start (see wasi_run.mjs).
WASI_CC = $(CLANG) --target=wasm32-wasi --sysroot=/usr $(CFLAGS_HOST) \
  -D_WASI_EMULATED_PROCESS_CLOCKS -lwasi-emulated-process-clocks \
  -Wl,-z,stack-size=8388608 -Wl,--initial-memory=268435456
WASI_RUN = node --no-warnings tests/builds/wasi_run.mjs --dir /tmp=$(BUILD)/wasi-tmp
$(eval $(call suite,wasm-simd128-float,$(WASI_CC) -msimd128,$(WASI_RUN)-simd128-float))
$(eval $(call suite,wasm-simd128-double,$(WASI_CC) -msimd128 -DLINATTN_DOUBLE,$(WASI_RUN)-simd128-double))
$(eval $(call suite,wasm-scalar-float,$(WASI_CC),$(WASI_RUN)-scalar-float))
