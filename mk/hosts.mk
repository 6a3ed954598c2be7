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
