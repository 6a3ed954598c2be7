# The shared library and the Python package (python/).
#   make lib          build/liblinattn.so (la_real float) and
#                     build/liblinattn-d.so (double): the header compiled as
#                     a shared object for this host, for ctypes and other
#                     foreign callers (LINATTN_LIB=build points the package
#                     at them)
#   make python       the same, and how to use them from this checkout
#   make python-test  the package's tests with $(PYTHON) (default Debian's
#                     /usr/bin/python3, which has numpy)
.PHONY: lib python python-test
PYTHON ?= /usr/bin/python3
# SIMD flags: the command's (AVX2 and FMA), so that a run through the
# library gives the command's numbers bit for bit. python/linattn/_build.py
# runs the same command (less the warnings) when it builds the library
# itself.
LIB_ARCH ?= $(CLI_ARCH)
LIB_CC = $(CC) -std=c99 -O2 $(WARN) -fPIC -shared $(LIB_ARCH) \
  -D_POSIX_C_SOURCE=200809L -DLINATTN_IMPLEMENTATION

lib: $(BUILD)/liblinattn.so $(BUILD)/liblinattn-d.so

# A target though python/ is a folder (phony: never "up to date").
python: lib
	@echo "the libraries are in $(BUILD)/: PYTHONPATH=python LINATTN_LIB=$(BUILD) $(PYTHON) -c 'import linattn'"
	@echo "or install the package: $(PYTHON) -m pip install ./python (offline; python/pyproject.toml)"
$(BUILD)/liblinattn.so: $(HDR) | $(BUILD)
	$(LIB_CC) -x c $(HDR) -o $@ -lm
$(BUILD)/liblinattn-d.so: $(HDR) | $(BUILD)
	$(LIB_CC) -DLINATTN_DOUBLE -x c $(HDR) -o $@ -lm

# The tests need the libraries and the command (a run through Python is
# held to `linattn train`'s checkpoint); python/tests/run.sh says where
# numpy is missing and skips, with a line that says so.
python-test:
	sh python/tests/run.sh "$(PYTHON)" "$(MAKE)" $(BUILD)

CONFIGS += python
run-python: | $(BUILD) run-cli-program
	@sh tests/harness/run_one.sh python --needs 'python3 numpy matplotlib pandas venv' sh python/tests/run.sh "$(PYTHON)" "$(MAKE)" $(BUILD)
