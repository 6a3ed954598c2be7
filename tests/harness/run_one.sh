#!/bin/sh
# Runs one configuration of the test matrix:
#   run_one.sh NAME [--needs 'WORD...'] COMMAND...
# Its output goes to build/results/NAME.log, its verdict to NAME.status, so
# that one failing configuration does not hide the others; summarize.sh adds
# them up. A command that prints no "N passed, N failed" line counts as one
# test, passed if it exited 0 (compile-only checks, linters).
#
# A configuration whose tools are missing is skipped, not failed: the words
# of COMMAND (and of --needs, for tools that COMMAND reaches only through
# another make target) are looked up in tests/harness/deps.sh's table, and the
# packages that would provide them are named. LINATTN_REQUIRE_ALL=1 (set by
# .ci/run) turns a skip into a failure. LA_TOTAL, set by `make test`, is the
# number of configurations, for the progress count.
name=$1; shift
needs=
if [ "$1" = --needs ]; then needs=$2; shift 2; fi
res=build/results
mkdir -p $res
log=$res/$name.log
rm -f "$res/$name.skip"

# The verdict is written, counted and printed under one lock, so that two
# configurations ending together print their own counts.
report() { # report STATUS LINE [DETAIL]: prints [done/total, failed so far] LINE
  exec 9> "$res/.lock"
  flock 9 2> /dev/null
  echo "$1" > "$res/$name.status"
  ended=0; bad=0
  for s in "$res"/*.status; do
    [ -f "$s" ] || continue
    ended=$((ended + 1))
    read -r _ f _ < "$s"
    [ "$f" -eq 0 ] || bad=$((bad + 1))
  done
  printf '[%2d/%s, %d failed] %s\n' "$ended" "${LA_TOTAL:-?}" "$bad" "$2"
  [ -z "$3" ] || printf '%s\n' "$3"
  exec 9>&-
}

# shellcheck disable=SC2086
lacking=$(sh tests/harness/deps.sh missing $needs "$@" | tr '\n' ' ' | sed 's/ $//')
if [ -n "$lacking" ]; then
  echo "$lacking" > "$res/$name.skip"
  echo "skipped: missing $lacking" > "$log"
  if [ "${LINATTN_REQUIRE_ALL:-0}" = 1 ]; then
    report "0 1 0 0" "$(printf '%-28s FAIL: missing %s (LINATTN_REQUIRE_ALL=1)' "$name" "$lacking")"
  else
    report "0 0 0 0" "$(printf '%-28s skipped, missing %s' "$name" "$lacking")"
  fi
  exit 0
fi

start=$(date +%s)
if "$@" > "$log" 2>&1; then rc=0; else rc=$?; fi
secs=$(( $(date +%s) - start ))
# CPU seconds of the command (user + system): the shell's `times`, which
# must not run in a subshell (it would count that subshell's children)
times > "$res/$name.times"
cpu=$(sed -n 2p "$res/$name.times" | awk '{ t = 0; for (i = 1; i <= NF; i++) { split($i, a, "m");
  t += a[1] * 60 + a[2] } printf "%d", t + 0.5 }')
rm -f "$res/$name.times"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
if [ -n "$line" ]; then
  p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
else
  if [ $rc -eq 0 ]; then p=1; f=0; else p=0; f=1; fi
fi
# a non-zero exit with no failed test (a crash after the summary) still fails
if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
if [ "$f" -eq 0 ]; then verdict=ok; detail=; else
  verdict=FAIL; detail=$(grep -E 'FAIL|error|failed|Error|ERROR' "$log" | head -n 20)
fi
report "$p $f $rc $cpu" \
  "$(printf '%-28s %4s passed %3s failed %5ss %4ss cpu  %s' "$name" "$p" "$f" "$secs" "$cpu" "$verdict")" \
  "$detail"
exit 0
