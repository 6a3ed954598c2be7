#!/bin/sh
# One program built as C and as C++ must print the same bytes: the header
# switches floating-point contraction off for its whole implementation, so
# gcc, g++, clang and clang++ at -O2 and -O3 compute the same operations in
# the same order. The reference is gcc -O2 -std=c99, where gcc does not
# contract by default; the others do unless told not to: gcc in GNU C (the
# -O3 builds use the GNU dialects), g++ in every C++ mode, clang within an
# expression. Each run must also exit 0 (quickstart: the run trained).
#   same_output.sh WORKDIR 'FLAGS' PROGRAM.c [half]
# half: four of the eight builds, each compiler once and each language in
# both dialects (gcc -O2 ISO C, g++ -O3 GNU C++, clang -O3 GNU C, clang++
# -O2 ISO C++). Ends with "N passed, N failed".
work=$1
flags=$2
src=$3
half=$4
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
rm -rf "$work"
mkdir -p "$work"
warn="-Wall -Wextra -Wpedantic -Wshadow -Werror"
ref=
for cc in gcc g++ clang clang++; do
  for opt in -O2 -O3; do
    if [ -n "$half" ]; then
      case $cc$opt in gcc-O3 | g++-O2 | clang-O2 | clang++-O3) continue ;; esac
    fi
    case $cc$opt in # C++20 for the designated initializers
      *++-O2) std="-x c++ -std=c++20" ;;
      *++-O3) std="-x c++ -std=gnu++20" ;;
      *-O2) std="-x c -std=c99" ;;
      *) std="-x c -std=gnu99" ;;
    esac
    name="$cc $opt ${std#* * } $flags"
    bin=$work/$cc$opt
    # shellcheck disable=SC2086
    if ! $cc $opt $warn -Wno-missing-field-initializers $std $flags -I. "$src" -o "$bin" -lm > "$bin.build" 2>&1; then
      bad "$name: build"; cat "$bin.build"; continue
    fi
    if "$bin" > "$bin.out" 2>&1; then ok "$name: runs"; else bad "$name: runs (exit $?)"; fi
    if [ -z "$ref" ]; then
      ref=$bin.out; refname=$name
      sed 's/^/     /' "$ref"
    elif cmp -s "$ref" "$bin.out"; then
      ok "$name: output identical to $refname"
    else
      bad "$name: output differs from $refname"
      diff "$ref" "$bin.out" | head -n 12
    fi
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
