# The PyTorch comparison and the scaling sweep (not part of `make test`).
#   make bench-torch    library vs bench/py/torch_ref.py, float then double
#   make bench-scaling  time per step against batch, L, N, d; build/scaling.svg
.PHONY: bench-torch bench-scaling
TORCH_PYTHON ?= /usr/bin/python3

# Whatever the given Python imports, PyTorch or JAX or both (torch_ref.py's
# `versions` exits 3 when neither does): a GPU machine may have JAX alone.
bench-torch: $(BUILD)/bench_torch $(BUILD)/bench_torch-d
	@if $(TORCH_PYTHON) bench/py/torch_ref.py versions >/dev/null 2>&1; then \
	  $(BUILD)/bench_torch --python $(TORCH_PYTHON) && \
	  $(BUILD)/bench_torch-d --python $(TORCH_PYTHON); \
	else \
	  echo "bench-torch: skipped, neither PyTorch nor JAX (with numpy) imports in $(TORCH_PYTHON) (apt-get install -y python3-torch python3-numpy, or TORCH_PYTHON=a Python that has them)"; \
	fi

# bench_scaling reuses bench_torch.c's threads and training step.
$(BUILD)/bench_scaling $(BUILD)/bench_scaling-d: bench/bench_torch.c

# PyTorch's curve is added when it is installed (about two minutes more).
bench-scaling: $(BUILD)/bench_scaling
	$(BUILD)/bench_scaling | tee $(BUILD)/scaling.txt
	@if $(TORCH_PYTHON) -c 'import torch, numpy' 2>/dev/null; then \
	  OPENBLAS_NUM_THREADS=1 $(TORCH_PYTHON) bench/py/torch_ref.py scaling | tee -a $(BUILD)/scaling.txt; \
	else echo "bench-scaling: no PyTorch for $(TORCH_PYTHON), library curve only"; fi
	$(TORCH_PYTHON) bench/py/plot_scaling.py $(BUILD)/scaling.txt $(BUILD)/scaling.svg
	@echo "wrote $(BUILD)/scaling.svg"

# The implementation unit's compile time and code size, whole and core-only.
.PHONY: bench-compile
bench-compile:
	sh bench/scripts/bench_compile.sh $(CC) -std=c99 -O2 $(NATIVE)

# The library against the ways a C or C++ engineer would write the base
# model instead (bench/bench_peers.cpp: Eigen per prompt and on 16-lane
# SIMD scalars, libxsmm's JIT small products), both FMA peaks in the same
# run. Peers only: never a dependency of the library or of `make test`.
#   make bench-peers    best of 40 interleaved rounds, batch 100/1000/10000
.PHONY: bench-peers
EIGEN_INC ?= /usr/include/eigen3
PEERS_FLAGS = -std=c++17 -O3 -march=native $(WARN) -Wno-uninitialized \
  -Wno-maybe-uninitialized -isystem $(EIGEN_INC)
$(BUILD)/peers_lib-avx2.o: bench/peers_lib.c linattn.h | $(BUILD)
	$(CC) -std=c99 -O2 -mavx2 -mfma $(WARN) -c $< -o $@
$(BUILD)/bench_peers: bench/bench_peers.cpp $(BUILD)/peers_lib-avx2.o linattn.h | $(BUILD)
	$(CXX) $(PEERS_FLAGS) -DBENCH_FLAGS='"$(PEERS_FLAGS)"' $< \
	  $(BUILD)/peers_lib-avx2.o -o $@ -lxsmm -lxsmmnoblas -lpthread -lrt -ldl -lm
bench-peers:
	@if [ ! -f $(EIGEN_INC)/Eigen/Core ] || ! echo '#include <libxsmm.h>' | \
	    $(CXX) -x c++ -fsyntax-only - 2>/dev/null; then \
	  echo "bench-peers: skipped, needs Eigen 3 and libxsmm (apt-get install -y libeigen3-dev libxsmm-dev)"; \
	else $(MAKE) --no-print-directory $(BUILD)/bench_peers && \
	  $$(command -v taskset >/dev/null && echo taskset -c 0) $(BUILD)/bench_peers; fi

# The same library under different flags, timed in one process
# (bench/bench_flags.c). Each set: a name and its flags.
#   make bench-flags    best of 40 interleaved rounds
.PHONY: bench-flags
FLAG_SETS = O2_avx2 O3_native O2_native O3_avx2 O3_native_avx2 O3_native_p256
FS_O2_avx2 = -O2 -mavx2 -mfma
FS_O3_native = -O3 -march=native
FS_O2_native = -O2 -march=native
FS_O3_avx2 = -O3 -mavx2 -mfma
FS_O3_native_avx2 = -O3 -march=native -DLINATTN_SIMD=LINATTN_AVX2
FS_O3_native_p256 = -O3 -march=native -DLINATTN_PANEL_BITS=256
$(BUILD)/bench_flags_all: bench/bench_flags.c linattn.h | $(BUILD)
	$(foreach v,$(FLAG_SETS),$(CC) -std=c99 $(WARN) $(FS_$(v)) -DBENCH_TU=$(v) \
	  -DBENCH_TU_FLAGS='"$(FS_$(v))"' -c $< -o $(BUILD)/bench_flags-$(v).o &&) \
	$(CC) -std=c99 -O2 $(WARN) -DBENCH_VARIANTS='$(foreach v,$(FLAG_SETS),X($(v)))' \
	  $< $(foreach v,$(FLAG_SETS),$(BUILD)/bench_flags-$(v).o) -o $@ -lm -lpthread
bench-flags: $(BUILD)/bench_flags_all
	$$(command -v taskset >/dev/null && echo taskset -c 0) $(BUILD)/bench_flags_all

# The panel product's register block at 8 and 16 float lanes (operands in
# L1): what 512-bit model panels would buy on this core (AVX-512 builds).
#   make bench-wide
.PHONY: bench-wide
$(BUILD)/bench_wide_native: bench/bench_wide.c linattn.h bench/bench_common.h | $(BUILD)
	$(CC) -std=c99 -O2 -march=native $(WARN) -DBENCH_FLAGS='"-O2 -march=native"' $< -o $@ -lm -lpthread
bench-wide: $(BUILD)/bench_wide_native
	$$(command -v taskset >/dev/null && echo taskset -c 0) $(BUILD)/bench_wide_native
