#!/bin/sh
# A plan of some 10,000 runs: the time and peak memory (GNU time's %M, the
# ru_maxrss of wait4) of writing it (`reproduce --all --seeds 512 --plan DIR
# --slurm`: stage 1, the tuned studies' grids, 160 runs) and of its two
# merges (`reproduce --from DIR`: stage 1's outputs read, each held to its
# command, and stage 2 written, 10,250 runs; then stage 2's outputs merged
# into the report). The runs are the plan's own commands at a tiny size
# (30 steps of 50 prompts), run by xargs on every CPU before each merge and
# not measured: a merge takes only outputs that are their commands', so
# none can be a copy of another's. Targets: under 10 s and 100 MB each.
# usage: bench_plan.sh BUILD/linattn OUTDIR [SEEDS]
bin=${1:-build/linattn}
out=${2:-build/bench-plan}
seeds=${3:-512}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1
tiny="--steps 30 --batch 50 --eval-batch 100 --diag-every 0 --smooth-every 10
  --diag-batch 100 --samples 30 --minibatch 100 --true-batch 1000 --bins 10"

# fill K: stage K's commands run, as a scheduler runs them (not measured)
fill() {
  xargs -d '\n' -P "$(getconf _NPROCESSORS_ONLN)" -n 1 sh -c < "plan/plan/stage-$1.txt" \
    > /dev/null 2>&1
}

# measure NAME COMMAND...: its seconds and peak memory into NAME.time
measure() {
  name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$name.time" "$@" > "$name.txt" 2>&1
  echo "$?" >> "$name.time"
}
# row NAME WRITTEN READ: the row of a measured step
row() {
  { read -r secs kb; read -r rc; } < "$1.time"
  awk -v n="$1" -v w="$2" -v r="$3" -v s="$secs" -v k="$kb" -v rc="$rc" 'BEGIN {
    printf "%s,%d,%d,%.2f,%.1f,%s\n", n, w, r, s, k / 1024, rc ? "exit " rc : \
      (s < 10 && k / 1024 < 100 ? "within 10 s, 100 MB" : "OVER 10 s or 100 MB") }'
}

# shellcheck disable=SC2086
measure plan-write "$bin" reproduce --all --seeds "$seeds" $tiny --plan plan --slurm
n1=$(grep -c . plan/plan/stage-1.txt)
fill 1
measure merge-stage-1 "$bin" reproduce --from plan
n2=$(grep -c . plan/plan/stage-2.txt)
fill 2
measure merge-report "$bin" reproduce --from plan
echo "# linattn reproduce --all --seeds $seeds: a plan of $((n1 + n2)) runs and its merges (the runs tiny, not measured)"
echo "step,commands_written,outputs_read,seconds,peak_mb,target"
row plan-write "$n1" 0
row merge-stage-1 "$n2" "$n1"
row merge-report 0 "$n2"
[ -s plan/report.md ] || { echo "no report: see $out/merge-report.txt"; exit 1; }
