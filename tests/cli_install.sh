#!/bin/sh
# The package files from a user's side: `make install` into a scratch
# prefix, a project built with pkg-config's flags, and two CMake projects
# that take the INTERFACE target by add_subdirectory and by FetchContent.
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
prefix=$work/prefix

check "make install PREFIX=..." make -s install PREFIX="$prefix"
check "installed: header, program, pkg-config file" test -f "$prefix/include/linattn.h" -a \
  -x "$prefix/bin/linattn" -a -f "$prefix/lib/pkgconfig/linattn.pc"
check "installed program runs" sh -c "'$prefix/bin/linattn' theorem --help | grep -q usage"

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
  printf("linattn %s: loss %.4f -> %.4f\n", la_version_string(), before, after);
  la_trainer_destroy(&tr);
  la_data_destroy(&data);
  return after < before ? 0 : 1;
}
C
pc="env PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config"
check "pkg-config --modversion" sh -c "$pc --modversion linattn | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'"
check "build with pkg-config --cflags --libs" sh -c \
  "cc -std=c99 -O1 \$($pc --cflags linattn) '$work/app/main.c' -o '$work/app/pc-app' \$($pc --libs linattn)"
check "the pkg-config build trains" "$work/app/pc-app"

# CMake: add_subdirectory and FetchContent, each one line for the target
for how in subdirectory fetchcontent; do
  p=$work/cmake-$how
  mkdir -p "$p"
  cp "$work/app/main.c" "$p/main.c"
  sed -i 's|<linattn.h>|"linattn.h"|' "$p/main.c"
  {
    echo "cmake_minimum_required(VERSION 3.14)"
    echo "project(scratch C)"
    if [ $how = subdirectory ]; then
      echo "add_subdirectory(\"$top\" linattn)"
    else
      echo "include(FetchContent)"
      echo "FetchContent_Declare(linattn SOURCE_DIR \"$top\")"
      echo "FetchContent_MakeAvailable(linattn)"
    fi
    echo "add_executable(app main.c)"
    echo "target_link_libraries(app PRIVATE linattn::linattn)"
  } > "$p/CMakeLists.txt"
  check "cmake $how: configure" cmake -S "$p" -B "$p/build"
  check "cmake $how: build" cmake --build "$p/build"
  check "cmake $how: the program trains" "$p/build/app"
  check "cmake $how: the linattn program is not built for a dependent" test ! -e "$p/build/linattn/linattn"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
