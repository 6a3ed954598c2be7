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
