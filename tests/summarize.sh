#!/bin/sh
# Adds up the verdicts of every configuration run by run_one.sh and ends with
# the line "N passed, N failed"; exits non-zero if anything failed or if an
# expected configuration left no verdict.
passed=0; failed=0; missing=0
for name in "$@"; do
  s=build/results/$name.status
  if [ -f "$s" ]; then
    read p f rc < "$s"
    passed=$((passed + p)); failed=$((failed + f))
  else
    echo "no result from $name"; missing=$((missing + 1))
  fi
done
failed=$((failed + missing))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
