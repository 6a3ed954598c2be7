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

# ------------------------------------------------------------ Windows
# x86-64 Windows: MinGW-w64's gcc builds, Wine runs (in a prefix of its own
# under build/, made by the first run, without .NET and Gecko, which the
# programs do not use). The whole suite in AVX2 float and in
# scalar double (the scalar build calls the header's own fma: MinGW's
# rounds twice), and the crash safety of checkpoint replacement: a child
# that trains and saves after every step is killed (TerminateProcess) 30
# times at random instants; the file must load after every kill and the
# run resumed across them must hold the bits of one trained without a break
# (tests/unit/ckpt_crash.c).
WINE = env WINEPREFIX=$(abspath $(BUILD))/wine WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml= wine
MINGW = x86_64-w64-mingw32-gcc $(CFLAGS_HOST)
CONFIGS += win-avx2-float win-scalar-double win-ckpt-crash
run-win-avx2-float: | $(BUILD)
	@sh tests/harness/run_one.sh win-avx2-float sh -c '$(MINGW) $(AVX2) tests/unit/main.c -o $(BUILD)/t-win-avx2-float.exe -lm && $(WINE) $(BUILD)/t-win-avx2-float.exe'
run-win-scalar-double: | $(BUILD)
	@sh tests/harness/run_one.sh win-scalar-double sh -c '$(MINGW) $(SCALAR) -DLINATTN_DOUBLE tests/unit/main.c -o $(BUILD)/t-win-scalar-double.exe -lm && $(WINE) $(BUILD)/t-win-scalar-double.exe'
run-win-ckpt-crash: | $(BUILD)
	@sh tests/harness/run_one.sh win-ckpt-crash sh -c '$(MINGW) $(AVX2) tests/unit/ckpt_crash.c -o $(BUILD)/ckpt-crash.exe -lm && mkdir -p $(BUILD)/win-crash && $(WINE) $(BUILD)/ckpt-crash.exe $(BUILD)/win-crash 30'

# The portable (scalar) linattn built by MinGW-w64 and run under Wine
# against this host's: the same step lines, JSON lines (timings aside),
# checkpoints and a tiny reproduce's files; checkpoints resumed across the
# two (tests/cli/win_host.sh).
CONFIGS += win-cli-cross-host
run-win-cli-cross-host: | $(BUILD)
	@sh tests/harness/run_one.sh win-cli-cross-host sh -c '$(call cli_cc,$(CC),$(SCALAR),$(BUILD)/linattn-scalar) && \
	  $(call cli_cc,x86_64-w64-mingw32-gcc,$(SCALAR),$(BUILD)/linattn-win.exe) && \
	  rm -rf $(BUILD)/win-host && mkdir -p $(BUILD)/win-host && \
	  sh tests/cli/win_host.sh $(BUILD)/win-host $(abspath $(BUILD))/linattn-scalar $(abspath $(BUILD))/linattn-win.exe $(WINE)'
