# The one-page C API example of the README, built and run: its exit status
# says whether the run trained.
.PHONY: example-quickstart
$(BUILD)/quickstart: examples/quickstart.c $(HDR) | $(BUILD)
	$(CC) $(CFLAGS_HOST) $(NATIVE) -I. $< -o $@ -lm
example-quickstart: $(BUILD)/quickstart
	$(BUILD)/quickstart

# C and C++ agree bit for bit: the example built with gcc, g++, clang and
# clang++ at -O2 and -O3 (ISO and GNU dialects) must train and print the
# same bytes (tests/same_output.sh), with the AVX2 flags; and with the
# scalar kernels where the compiler may still contract to FMA (-mfma), in
# half the builds (each compiler, each language in both dialects) and a
# shorter run: the scalar path takes ten times as long.
define same_output
CONFIGS += $(1)
run-$(1): | $(BUILD)
	@sh tests/run_one.sh $(1) sh tests/same_output.sh $(BUILD)/$(1) '$(2)' examples/quickstart.c $(3)
endef
$(eval $(call same_output,quickstart-c-cxx-avx2,$(AVX2)))
$(eval $(call same_output,quickstart-c-cxx-scalar,$(SCALAR) -mfma -DQUICKSTART_STEPS=150,half))
