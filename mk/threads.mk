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
	@sh tests/run_one.sh tsan-threads sh -c '$(CLANG) $(CFLAGS_HOST) $(AVX2) -O1 -g -fsanitize=thread tests/main.c -o $(BUILD)/t-tsan-threads -lm && $(BUILD)/t-tsan-threads threads'

# A build with the pool compiled out: one thread, a host parallel-for still
# works, and la_pool_create refuses more than one thread.
$(eval $(call suite,gcc-nothreads-float,$(CC) $(CFLAGS_HOST) $(AVX2) -DLINATTN_NO_THREADS,))

# GNU C mode on an AVX-512 target: the generator's golden vectors hold where
# gcc could fuse (it is told not to) and the backend is chosen by itself.
$(eval $(call suite,gcc-gnu99-avx512-prompts,$(CC) -std=gnu99 -O2 $(WARN) -march=icelake-server,))
