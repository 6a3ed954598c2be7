#!/bin/sh
# Adds up the verdicts of every configuration run by run_one.sh and ends with
# the line "N passed, N failed"; exits non-zero if anything failed or if an
# expected configuration left no verdict. Skipped configurations (their
# tools missing) are listed with the packages they need, on the lines
# before. Each configuration's CPU time is kept in build/timings, from which
# --order starts the longest first next time; a fresh clone, which has none,
# orders by tests/harness/timings (a copy of one run's, `make test-timings`: only the
# order depends on it, so an old copy costs minutes, never a result).
#   summarize.sh NAME...       the summary
#   summarize.sh --order NAME...   the names, longest last time first
res=build/results
timings=build/timings
if [ "$1" = --order ]; then
  shift
  [ -f "$timings" ] || timings=tests/harness/timings
  for name in "$@"; do
    t=$(awk -v n="$name" '$1 == n { print $2 }' "$timings" 2>/dev/null)
    echo "${t:-100000} $name"   # never timed: first, it may be long
  done | sort -s -k1,1nr | awk '{ print $2 }'
  exit 0
fi
passed=0; failed=0; missing=0; skipped=0; cpu=0; pkgs=
: > "$timings.new"
for name in "$@"; do
  s=$res/$name.status
  if [ -f "$s" ]; then
    read -r p f _ t < "$s"
    passed=$((passed + p)); failed=$((failed + f)); cpu=$((cpu + ${t:-0}))
    if [ -f "$res/$name.skip" ]; then
      skipped=$((skipped + 1)); pkgs="$pkgs $(cat "$res/$name.skip")"
    else
      echo "$name ${t:-0}" >> "$timings.new"
    fi
  else
    echo "no result from $name"; missing=$((missing + 1))
  fi
done
# configurations not run this time keep their last timing
if [ -f "$timings" ]; then
  awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' "$timings.new" "$timings" > "$timings.old"
  cat "$timings.old" >> "$timings.new"
  rm -f "$timings.old"
fi
mv "$timings.new" "$timings"
failed=$((failed + missing))
echo "$# configurations, $((cpu / 60)) min $((cpu % 60)) s of CPU; logs in $res/"
if [ $skipped -gt 0 ]; then
  # shellcheck disable=SC2086
  debs=$(printf '%s\n' $pkgs | grep -v : | sort -u | tr '\n' ' ')
  # shellcheck disable=SC2086
  cpus=$(printf '%s\n' $pkgs | sed -n 's/^cpu://p' | sort -u | tr '\n' ' ')
  if [ "${LINATTN_REQUIRE_ALL:-0}" = 1 ]; then
    echo "$skipped configurations could not run (failed: LINATTN_REQUIRE_ALL=1):"
  else
    echo "$skipped configurations skipped:"
  fi
  [ -z "$debs" ] || echo "  missing packages: $debs(make deps installs them)"
  [ -z "$cpus" ] || echo "  this machine's CPU lacks: $cpus"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
