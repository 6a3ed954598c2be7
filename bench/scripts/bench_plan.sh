#!/bin/sh
# A plan of some 10,000 runs: the time and peak memory (GNU time's %M, the
# ru_maxrss of wait4) of writing it (`reproduce --all --seeds 512 --plan DIR
# --slurm`: stage 1, the tuned studies' grids, 160 runs) and of its two
# merges (`reproduce --from DIR`: stage 1's outputs read and stage 2 written,
# 10,250 runs; then stage 2's outputs merged into the report). The runs'
# outputs are synthetic: one real train run's lines and one noise
# measurement written again at every output path, so that what is measured
# is the plan and the merge, not training. Targets: under 10 s and 100 MB
# each.
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
"$bin" train --steps 30 --batch 50 --eval-batch 100 --smooth-every 10 --diag-batch 100 \
  --out one.jsonl 2> /dev/null || exit 1
"$bin" noise --samples 30 --minibatch 100 --true-batch 1000 --bins 10 --out one-noise.json \
  > /dev/null || exit 1

# fill K: every output stage K's commands name (after --out), a copy of the
# template of its kind, written by one awk (no process a file)
fill() {
  sed 's/.* --out //; s/^'"'"'//; s/'"'"'.*//; s/ .*//' "plan/plan/stage-$1.txt" > outs.txt
  sed 's|/[^/]*$||' outs.txt | sort -u | xargs mkdir -p
  awk '
      FNR == NR && FILENAME ~ /noise/ { noise = noise $0 "\n"; next }
      FILENAME ~ /one.jsonl$/ { run = run $0 "\n"; next }
      { printf "%s", ($0 ~ /noise.json$/ ? noise : run) > $0; close($0) }' \
      one-noise.json one.jsonl outs.txt
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
echo "# linattn reproduce --all --seeds $seeds: a plan of $((n1 + n2)) runs and its merges (synthetic outputs)"
echo "step,commands_written,outputs_read,seconds,peak_mb,target"
row plan-write "$n1" 0
row merge-stage-1 "$n2" "$n1"
row merge-report 0 "$n2"
[ -s plan/report.md ] || { echo "no report: see $out/merge-report.txt"; exit 1; }
