#!/bin/sh
# The linattn program built for Windows (MinGW-w64) and run under Wine
# against the same program built for this machine: the runs of
# cross_host.sh (step lines, checkpoints, resumes across the two), then
# whole outputs byte for byte with only the timings taken out: a train
# run's JSON lines with 2 threads and its checkpoint, and a tiny
# reproduce (a pool of jobs, run in the process on Windows) whose report,
# figures, CSV and runs' lines are the same files. Ends with "N passed,
# N failed".
# usage: win_host.sh WORKDIR BIN_LINUX BIN_WINDOWS RUNNER...
#   e.g. win_host.sh build/w build/linattn-scalar build/linattn-win.exe env WINEPREFIX=/abs/wine wine
dir=$1 bin_a=$2 bin_b=$3
if [ -z "$dir" ] || [ -z "$bin_a" ] || [ -z "$bin_b" ]; then
  echo "usage: win_host.sh WORKDIR BIN_LINUX BIN_WINDOWS RUNNER..." >&2
  exit 2
fi
shift 3
runner_b=$*
here=$(dirname "$0")
# shellcheck disable=SC2086
sh "$here/cross_host.sh" "$dir/cross" "$bin_a" "$bin_b" $runner_b > "$dir.cross.log" 2>&1
cat "$dir.cross.log"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$dir.cross.log" | tail -n 1)
passed=${line%% passed*}
failed=${line#*passed, }
failed=${failed%% failed*}
[ -n "$line" ] || { passed=0; failed=1; }
check() { # check NAME COMMAND...: passes when COMMAND succeeds
  name=$1
  shift
  if "$@" > /dev/null 2>&1; then
    passed=$((passed + 1)); printf 'ok   %s\n' "$name"
  else
    failed=$((failed + 1)); printf 'FAIL %s\n' "$name"
  fi
}
on_A() { "$bin_a" "$@"; }
# shellcheck disable=SC2086
on_B() { $runner_b "$bin_b" "$@"; }
# a file with its timings ("seconds", "steps_per_second" and the report's
# "(N s)") taken out
untimed() {
  sed -e 's/"seconds":[-0-9.e+]*,//; s/"steps_per_second":[-0-9.e+]*,//' \
    -e 's/ ([0-9.]* s)$//' "$1"
}
same_untimed() { untimed "$1" > "$1.u" && untimed "$2" > "$2.u" && [ -s "$1.u" ] && cmp "$1.u" "$2.u"; }

for h in A B; do
  on_$h train --setting 1 --steps 30 --threads 2 --diag-every 10 --diag-batch 20 --seed 5 \
    --out "$dir/t2$h.jsonl" --checkpoint "$dir/t2$h.ckpt" 2> /dev/null
  check "host $h: train --threads 2 exits 0" [ $? -eq 0 ]
done
check "train --threads 2: every line the same bytes (timings aside)" \
  same_untimed "$dir/t2A.jsonl" "$dir/t2B.jsonl"
check "train --threads 2: the same checkpoint" cmp "$dir/t2A.ckpt" "$dir/t2B.ckpt"

for h in A B; do
  (cd "$dir" && on_$h reproduce --steps 20 --seeds 1 --samples 10 --true-batch 100 \
    --minibatch 10 --bins 3 --out-dir "r$h" > "r$h.txt" 2>&1)
  check "host $h: a tiny reproduce exits 0" [ $? -eq 0 ]
done
ok=1
n=0
for f in $(cd "$dir/rA" && find . -type f | sort); do
  n=$((n + 1))
  same_untimed "$dir/rA/$f" "$dir/rB/$f" || { ok=0; echo "  differs: $f"; }
  rm -f "$dir/rA/$f.u" "$dir/rB/$f.u"
done
check "reproduce: the same $n files (report, figures, CSV, runs)" [ $ok -eq 1 -a $n -gt 10 ]
only() { diff -r -q "$dir/rA" "$dir/rB" | grep '^Only in'; }
check "reproduce: no file on one host only" [ -z "$(only)" ]
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
