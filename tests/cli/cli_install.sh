#!/bin/sh
# The package files from a user's side: `make install` into a scratch
# prefix, then into another (whose files must name it, not the first);
# projects built with pkg-config's flags as the README writes the command,
# under -Wl,--as-needed, with linattn.pc (portable) and linattn-native.pc
# (this machine's SIMD backend); CMake projects that take the INTERFACE
# target by add_subdirectory and by FetchContent, in C and in C++ alone,
# with LINATTN_NATIVE on (the default) and off. Each program prints the
# backend it runs, checked against the one this CPU should get.
# Ends with "N passed, N failed".
# usage: cli_install.sh WORKDIR   (run from the repository's top)
top=$(pwd)
work=$1
case $work in /*) ;; *) work=$top/$work ;; esac
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
check() {
  name=$1
  shift
  if "$@" > "$work/last.log" 2>&1; then ok "$name"; else bad "$name"; cat "$work/last.log"; fi
}
rm -rf "$work"
mkdir -p "$work/app"

# The backend each build should run, from the CPU itself (not from the
# build's own detection): "native" with the machine's SIMD flags, "plain"
# with the compiler's defaults. Unknown machines check only that it runs.
native=; plain=
case $(uname -m) in
  x86_64)
    plain=scalar
    if grep -qw avx512f /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo; then native=avx512
    elif grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then native=avx2; else native=scalar; fi ;;
  aarch64) plain=neon64; native=neon64 ;;
esac
backend_is() { # backend_is WANT COMMAND...: the command prints "backend WANT"
  want=$1; shift
  out=$("$@") || return 1
  echo "$out"
  [ -z "$want" ] || echo "$out" | grep -q "backend $want\b"
}

# two installs: the second prefix's files must name it, once the first is gone
first=$work/first
prefix=$work/prefix
check "make install PREFIX=first" make -s install PREFIX="$first"
check "make install PREFIX=second, after the first" make -s install PREFIX="$prefix"
check "installed: header, program, pkg-config files" test -f "$prefix/include/linattn.h" -a \
  -x "$prefix/bin/linattn" -a -f "$prefix/lib/pkgconfig/linattn.pc" -a \
  -f "$prefix/lib/pkgconfig/linattn-native.pc"
check "the first prefix's linattn.pc names the first" grep -qx "prefix=$first" "$first/lib/pkgconfig/linattn.pc"
check "the second prefix's .pc files name the second" sh -c \
  "grep -qx 'prefix=$prefix' '$prefix/lib/pkgconfig/linattn.pc' && grep -qx 'prefix=$prefix' '$prefix/lib/pkgconfig/linattn-native.pc'"
rm -rf "$first"
check "installed program runs" sh -c "'$prefix/bin/linattn' theorem --help | grep -q usage"
check "installed program runs the native backend ($native)" sh -c \
  "'$prefix/bin/linattn' train --steps 1 --batch 16 | head -n 1 | grep -q '\"backend\":\"${native:-[a-z0-9]*}\"'"

# a user's program: one training step and the loss on an eval batch
cat > "$work/app/main.c" <<'C'
#define LINATTN_IMPLEMENTATION
#include <linattn.h>
#include <stdio.h>
int main(void) {
  la_model_config mc = {0};
  la_data_config dc;
  la_data data;
  la_model m;
  la_train_config tc = {0};
  la_trainer tr;
  double before, after;
  mc.d = 5;
  mc.n = 20;
  la_data_preset(&dc, LA_SETTING_1);
  if (la_data_create(&data, &dc, 1) || la_model_init(&m, &mc)) return 1;
  tc.model = &m;
  tc.data = &data;
  tc.batch = 200;
  tc.seed = 1;
  if (la_trainer_create(&tr, &tc) || la_trainer_eval(&tr, &before)) return 1;
  if (la_trainer_run(&tr, 50) || la_trainer_eval(&tr, &after)) return 1;
  printf("linattn %s, backend %s: loss %.4f -> %.4f\n", la_version_string(),
         la_backend_name(), before, after);
  la_trainer_destroy(&tr);
  la_data_destroy(&data);
  return after < before ? 0 : 1;
}
C
pc="env PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config"
check "pkg-config --modversion" sh -c "$pc --modversion linattn | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'"
# the README's command, the source before the libraries, under --as-needed
# (the default of some distributions' linkers), which drops a library named
# before the objects that need it
check "cc -Wl,--as-needed app.c \$(pkg-config --cflags --libs linattn)" sh -c \
  "cc -Wl,--as-needed '$work/app/main.c' -o '$work/app/pc-app' \$($pc --cflags --libs linattn)"
check "the pkg-config build trains, backend ${plain:-any}" backend_is "$plain" "$work/app/pc-app"
check "cc app.c \$(pkg-config --cflags --libs linattn-native)" sh -c \
  "cc -Wl,--as-needed '$work/app/main.c' -o '$work/app/pc-native' \$($pc --cflags --libs linattn-native)"
check "the linattn-native build trains, backend ${native:-any}" backend_is "$native" "$work/app/pc-native"

# CMake: add_subdirectory and FetchContent, each one line for the target;
# a C project, the same with LINATTN_NATIVE off, and a C++-only project
# (no C language enabled: the header compiled as C++)
for how in subdirectory fetchcontent cxx-only; do
  p=$work/cmake-$how
  mkdir -p "$p"
  src=main.c; lang=C; opts=; want=$native
  case $how in
    fetchcontent) opts=-DLINATTN_NATIVE=OFF; want=$plain ;;
    cxx-only) src=main.cpp; lang=CXX ;;
  esac
  cp "$work/app/main.c" "$p/$src"
  sed -i 's|<linattn.h>|"linattn.h"|' "$p/$src"
  {
    echo "cmake_minimum_required(VERSION 3.14)"
    echo "project(scratch $lang)"
    if [ $how = fetchcontent ]; then
      echo "include(FetchContent)"
      echo "FetchContent_Declare(linattn SOURCE_DIR \"$top\")"
      echo "FetchContent_MakeAvailable(linattn)"
    else
      echo "add_subdirectory(\"$top\" linattn)"
    fi
    echo "add_executable(app $src)"
    echo "target_link_libraries(app PRIVATE linattn::linattn)"
  } > "$p/CMakeLists.txt"
  check "cmake $how: configure $opts" cmake -S "$p" -B "$p/build" $opts
  check "cmake $how: build" cmake --build "$p/build"
  check "cmake $how: the program trains, backend ${want:-any}" backend_is "$want" "$p/build/app"
  check "cmake $how: the linattn program is not built for a dependent" test ! -e "$p/build/linattn/linattn"
done
check "cmake cxx-only: no C compiler was enabled" sh -c "! grep -q '^CMAKE_C_COMPILER:' '$work/cmake-cxx-only/build/CMakeCache.txt'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
