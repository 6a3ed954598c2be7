#!/bin/sh
# The tools of the test matrix, and the Debian/Ubuntu packages that provide
# them: the one list that `make deps`, .ci/run and tests/harness/run_one.sh read.
#   deps.sh packages        the package names, one a line
#   deps.sh install         apt-get install them (sudo when not root); a name
#                           this archive does not know is reported, not fatal
#   deps.sh missing WORD... what a configuration whose command has these
#                           words lacks: one package (or cpu:FEATURES) a line
#
# The table: a package; the words that, found in a configuration's command
# (or in a tests/*/*.sh script it runs), make it needed; the check that passes
# when it is installed. A `cpu:` row is not a package but a property of the
# machine: code built with those flags runs only on a CPU that has them.
table() {
  cat <<'EOF'
make                     -                                   have make
gcc                      gcc,cc                              have gcc
g++                      g++                                 have g++
clang                    clang,clang++                       have clang clang++
libclang-rt-dev          -fsanitize                          sanitizers
valgrind                 valgrind                            have valgrind
qemu-user                qemu-aarch64,qemu-arm,qemu-s390x,qemu-riscv64 have qemu-aarch64 qemu-arm qemu-s390x qemu-riscv64
gcc-aarch64-linux-gnu    aarch64-linux-gnu-gcc               have aarch64-linux-gnu-gcc
libc6-dev-arm64-cross    aarch64-linux-gnu-gcc,--target=aarch64-linux-gnu test -f /usr/aarch64-linux-gnu/include/stdio.h
gcc-arm-linux-gnueabihf  arm-linux-gnueabihf-gcc             have arm-linux-gnueabihf-gcc
libc6-dev-armhf-cross    arm-linux-gnueabihf-gcc             test -f /usr/arm-linux-gnueabihf/include/stdio.h
gcc-s390x-linux-gnu      s390x-linux-gnu-gcc                 have s390x-linux-gnu-gcc
libc6-dev-s390x-cross    s390x-linux-gnu-gcc                 test -f /usr/s390x-linux-gnu/include/stdio.h
gcc-riscv64-linux-gnu    riscv64-linux-gnu-gcc               have riscv64-linux-gnu-gcc
libc6-dev-riscv64-cross  riscv64-linux-gnu-gcc               test -f /usr/riscv64-linux-gnu/include/stdio.h
wasi-libc                --target=wasm32-wasi                test -f /usr/include/wasm32-wasi/stdio.h
lld                      --target=wasm32-wasi                have wasm-ld
libclang-rt-dev-wasm32   --target=wasm32-wasi                links clang --target=wasm32-wasi --sysroot=/usr
nodejs                   node                                have node
gcc-arm-none-eabi        arm-none-eabi-gcc,arm-none-eabi-size have arm-none-eabi-gcc arm-none-eabi-size
libnewlib-arm-none-eabi  arm-none-eabi-gcc                   links arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb --specs=nosys.specs
qemu-system-arm          qemu-system-arm                     have qemu-system-arm
gcc-mingw-w64-x86-64     x86_64-w64-mingw32-gcc              have x86_64-w64-mingw32-gcc
g++-mingw-w64-x86-64     x86_64-w64-mingw32-g++              have x86_64-w64-mingw32-g++
wine                     wine                                have wine
wine64                   wine                                test -x /usr/lib/wine/wine64
python3                  python3                             have python3
cppcheck                 cppcheck                            have cppcheck
clang-tidy               clang-tidy                          have clang-tidy
cmake                    cmake                               have cmake
pkg-config               pkg-config                          have pkg-config
jq                       jq                                  have jq
libxml2-utils            xmllint                             have xmllint
python3-numpy            numpy                               pymod numpy
python3-matplotlib       matplotlib                          pymod matplotlib
python3-pandas           pandas                              pymod pandas
python3-venv             venv                                pymod venv ensurepip
slurmctld                slurmctld                           have slurmctld
slurmd                   slurmd                              have slurmd
slurm-client             sbatch,squeue,scontrol,scancel      have sbatch squeue scontrol scancel
munge                    munged                              have munged
parallel                 -                                   have parallel
cpu:avx2+fma             -mavx2,-mfma,-march=haswell         cpu avx2 fma
EOF
}

have() {
  for c in "$@"; do command -v "$c" > /dev/null 2>&1 || return 1; done
}

# Debian's python3 (the one the Python package's tests use) imports these
pymod() {
  for m in "$@"; do /usr/bin/python3 -c "import $m" > /dev/null 2>&1 || return 1; done
}

# the compiler links a C program (its C library and start files are there)
links() {
  d=$(mktemp -d) || return 1
  printf 'int main(void) { return 0; }\n' > "$d/p.c"
  "$@" "$d/p.c" -o "$d/p" > /dev/null 2>&1
  rc=$?
  rm -rf "$d"
  return $rc
}

# clang's run-time libraries for ASan, UBSan and libFuzzer
sanitizers() {
  d=$(mktemp -d) || return 1
  printf 'int LLVMFuzzerTestOneInput(const unsigned char *p, unsigned long n);\n%s\n' \
    'int LLVMFuzzerTestOneInput(const unsigned char *p, unsigned long n) { (void)p; (void)n; return 0; }' > "$d/p.c"
  clang -fsanitize=fuzzer,address,undefined "$d/p.c" -o "$d/p" > /dev/null 2>&1
  rc=$?
  rm -rf "$d"
  return $rc
}

# the CPU has these features (x86 /proc/cpuinfo flags)
cpu() {
  [ -r /proc/cpuinfo ] || return 1
  for f in "$@"; do grep -qw "$f" /proc/cpuinfo || return 1; done
}

# the words of a command line: split at anything a tool name or an option
# cannot hold; an option also counts by its name before '=', a path by its
# last component; a tests/*/*.sh script named is read for its words too
words() {
  printf '%s\n' "$@" | tr -cs 'A-Za-z0-9_+.=/-' '\n' | while read -r w; do
    [ -n "$w" ] || continue
    echo "$w"
    echo "${w%%=*}"
    echo "${w##*/}"
    case $w in
      tests/*.sh|tests/*/*.sh) [ -f "$w" ] && tr -cs 'A-Za-z0-9_+.=/-' '\n' < "$w" ;;
    esac
  done | sort -u
}

missing() {
  list=$(words "$@")
  table | while read -r pkg needs check; do
    [ "$needs" = - ] && continue
    hit=
    for n in $(echo "$needs" | tr ',' ' '); do
      if printf '%s\n' "$list" | grep -qxF -e "$n"; then hit=1; break; fi
    done
    [ -n "$hit" ] || continue
    eval "$check" || echo "$pkg"
  done
}

packages() {
  table | while read -r pkg needs check; do
    case $pkg in *:*) ;; *) echo "$pkg" ;; esac
  done
}

install() {
  sudo=
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q || exit 1
  want=
  for p in $(packages); do
    if apt-cache show "$p" > /dev/null 2>&1; then
      want="$want $p"
    else
      echo "deps.sh: this archive has no package $p; its configurations will be skipped" >&2
    fi
  done
  # shellcheck disable=SC2086
  $sudo apt-get install -y -q --no-install-recommends $want < /dev/null
}

case $1 in
  packages) packages ;;
  install) install ;;
  missing) shift; missing "$@" ;;
  *) echo "usage: deps.sh packages | install | missing WORD..." >&2; exit 2 ;;
esac
