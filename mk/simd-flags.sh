#!/bin/sh
# The flags that give linattn.h the SIMD backend of this machine, for the
# compiler COMMAND (gcc, clang, g++, a cross compiler):
#   simd-flags.sh COMMAND [FLAG...]
# prints them (nothing when the compiler's defaults already choose the best
# backend, or when none is available); the Makefile and CMakeLists.txt both
# use it.
#   x86-64   -mavx2 -mfma when the CPU has both (asked of the compiler
#            through -march=native, which sees the CPU as the compiler does),
#            and -mavx512f -mavx512vl with them when it has AVX-512: the
#            model then runs on 512-bit panels, the same bits, about 0.8x
#            the time on a Xeon with two 512-bit FMA units
#            (docs/performance.md); on Zen 4, which splits a 512-bit FMA
#            into two halves, with -DLINATTN_PANEL_BITS=256 (256-bit panels)
#   AArch64  nothing: NEON is part of the architecture
#   ARMv7    -mfpu=neon-vfpv4 (NEON with fused multiply-add) or -mfpu=neon
#            when the kernel lists them among the CPU's features, and the
#            compiler turns NEON on with them (hard-float ABI);
#            -mfpu=neon-vfpv4 under an AArch64 kernel, whose CPU has both
# A cross compiler (its target is not this machine's) gets nothing: only
# the compiler's own defaults are known to hold on the target.
# Any failure prints nothing, which is the portable scalar build.
[ $# -ge 1 ] || exit 0
target=$("$@" -dumpmachine 2> /dev/null) || exit 0
arch() {
  case $1 in
    x86_64* | amd64*) echo x86_64 ;;
    aarch64* | arm64*) echo aarch64 ;;
    arm*) echo arm ;;
    *) echo "$1" ;;
  esac
}
t=$(arch "${target%%-*}")
h=$(arch "$(uname -m 2> /dev/null)")

# macros FLAG...: the compiler's predefined macros with these flags
macros() { "$@" -dM -E -x c /dev/null 2> /dev/null; }
defines() { printf '%s\n' "$1" | grep -q "^#define $2 "; }

case $t/$h in
  x86_64/x86_64)
    m=$(macros "$@" -march=native) || exit 0
    defines "$m" __AVX2__ && defines "$m" __FMA__ || exit 0
    if defines "$m" __AVX512F__ && defines "$m" __AVX512VL__; then
      # Zen 4: AMD's family 25 (Zen 3, also 25, has no AVX-512)
      zen4=$(awk -F': *' '/^vendor_id/ { v = $2 } /^cpu family/ { f = $2 }
                         END { if (v == "AuthenticAMD" && f == 25) print 1 }' /proc/cpuinfo 2> /dev/null)
      echo "-mavx2 -mfma -mavx512f -mavx512vl${zen4:+ -DLINATTN_PANEL_BITS=256}"
    else
      echo "-mavx2 -mfma"
    fi
    ;;
  arm/aarch64) echo "-mfpu=neon-vfpv4" ;;
  arm/arm)
    # the kernel's feature list (not every ARM compiler knows -mcpu=native),
    # then the compiler must accept the flag and turn NEON on with it
    features=$(sed -n 's/^Features[[:space:]]*:\(.*\)/\1 /p' /proc/cpuinfo 2> /dev/null | head -n 1)
    case $features in
      *" neon "*" vfpv4 "* | *" vfpv4 "*" neon "*) fpu=-mfpu=neon-vfpv4 ;;
      *" neon "*) fpu=-mfpu=neon ;;
      *) exit 0 ;;
    esac
    m=$(macros "$@" $fpu) && defines "$m" __ARM_NEON && echo "$fpu"
    ;;
esac
exit 0
