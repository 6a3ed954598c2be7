#!/bin/sh
# Runs one configuration of the test matrix: `run_one.sh NAME COMMAND...`.
# Its output goes to build/results/NAME.log, its verdict to NAME.status, so
# that one failing configuration does not hide the others; summarize.sh adds
# them up. A command that prints no "N passed, N failed" line counts as one
# test, passed if it exited 0 (compile-only checks, linters).
name=$1; shift
mkdir -p build/results
log=build/results/$name.log
start=$(date +%s)
if "$@" > "$log" 2>&1; then rc=0; else rc=$?; fi
secs=$(( $(date +%s) - start ))
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
if [ -n "$line" ]; then
  p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
else
  if [ $rc -eq 0 ]; then p=1; f=0; else p=0; f=1; fi
fi
# a non-zero exit with no failed test (a crash after the summary) still fails
if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
echo "$p $f $rc" > build/results/$name.status
if [ "$f" -eq 0 ]; then verdict=ok; else verdict=FAIL; fi
printf '%-28s %4s passed %3s failed %5ss  %s\n' "$name" "$p" "$f" "$secs" "$verdict"
if [ "$f" -ne 0 ]; then grep -E 'FAIL|error|failed|Error|ERROR' "$log" | head -n 20; fi
exit 0
