#!/bin/sh
# The implementation translation unit's cost to a user who drops the header
# in: compile CPU time (user + system, best of REPS, so a loaded machine
# does not inflate it) and code size (.text of the object), for the whole
# header and for the core alone (-DLINATTN_NO_RESEARCH).
#   bench_compile.sh [CC] [FLAGS...]     default: cc -std=c99 -O2 -mavx2 -mfma
cc=${1:-cc}
[ $# -gt 0 ] && shift
flags=${*:--std=c99 -O2 -mavx2 -mfma}
reps=${REPS:-3}
dir=$(mktemp -d) || exit 3
trap 'rm -rf "$dir"' EXIT
root=$(cd "$(dirname "$0")/../.." && pwd)
printf '#define LINATTN_IMPLEMENTATION\n#include "linattn.h"\n' > "$dir/impl.c"
echo "# $cc $flags, best of $reps"
printf '%-10s %10s %12s\n' scope cpu_s text_bytes
for scope in full core; do
  def=
  [ $scope = core ] && def=-DLINATTN_NO_RESEARCH
  best=
  i=0
  while [ $i -lt "$reps" ]; do
    # shellcheck disable=SC2086 # the flags are words
    t=$( { /usr/bin/time -f '%U %S' $cc $flags $def -I"$root" -c "$dir/impl.c" -o "$dir/impl.o" 2>&1 >/dev/null; } | tail -1 | awk '{ printf "%.2f", $1 + $2 }')
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
    i=$((i + 1))
  done
  text=$(size -A "$dir/impl.o" | awk '$1 == ".text" { print $2 }')
  printf '%-10s %10s %12s\n' $scope "$best" "$text"
done
