#!/bin/sh
# A study on a real Slurm: a single-node cluster (munged, slurmctld and
# slurmd, private to this script: their keys, sockets, ports and state in a
# temporary folder) runs `reproduce --all`'s plan (--plan DIR --slurm, then
# DIR/plan/submit.sh), and its report must be byte for byte the local
# run's; so must the same plan run with GNU parallel and with xargs. A run
# that fails is named by the merge with the command that redoes it. The
# scheduler's overhead per run is printed (target: under 2 s). Every daemon
# is stopped by the pid this script started, on failure too. Skipped (as
# passed) when Slurm or munge is not installed, or when not root (slurmd
# runs jobs as their user). Ends with "N passed, N failed".
# usage: slurm_e2e.sh BUILD/linattn WORKDIR
. tests/cli/e2e_util.sh
e2e_setup slurm_e2e.sh "$@"
exec < /dev/null

# ------------------------------------------------------------ long stages
# Slurm's default MaxArraySize (1001) takes arrays of 1000 tasks at most:
# submit.sh splits a longer stage, each array after the one before under
# --jobs, and the merge after them all (a stub records the calls)
mkdir stub
printf '#!/bin/sh\necho "$*" >> "${0%%/*}/calls"\ngrep -c . "${0%%/*}/calls"\n' > stub/sbatch
chmod +x stub/sbatch
"$bin" sweep --slurm --jobs 3 --out-dir long --seed 1..1001 -- --steps 1 > /dev/null 2>&1
PATH="$(pwd)/stub:$PATH" sh long/plan/submit.sh > /dev/null 2>&1
call() { sed -n "$1p" stub/calls | grep -q -- "$2"; }
chained() {
  call 1 '^--parsable --array=1-1000%3 /.*stage-1.sbatch 0$' &&
    call 2 '^--parsable --array=1-1000%3 --dependency=afterany:1 .*stage-1.sbatch 1000$' &&
    call 3 '^--parsable --array=1-2%3 --dependency=afterany:2 .*stage-1.sbatch 2000$' &&
    call 4 '^--parsable --dependency=afterany:1:2:3 .*merge.sbatch$'
}
check "a stage of 2002 runs: arrays of 1000, 1000 and 2, chained; the merge after all" chained
# task 1 of the array at 1000, as Slurm starts it: line 1001, its log
SLURM_ARRAY_TASK_ID=1 sh long/plan/stage-1.sbatch 1000
out=$(sed -n 1001p long/plan/stage-1.txt | sed 's/.* --out //')
check "task 1 of the array at 1000 runs line 1001, its log stage-1-1001.log" sh -c \
  "[ -s \"\$1\" ] && [ -f long/plan/logs/stage-1-1001.log ] && [ \$(ls long/*.jsonl | wc -l) -eq 1 ]" \
  sh "$out"

# ------------------------------------------------------------ can it run
lacking=
for t in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client squeue:slurm-client \
         scontrol:slurm-client scancel:slurm-client munged:munge; do
  command -v "${t%%:*}" > /dev/null 2>&1 && continue
  case " $lacking " in *" ${t#*:} "*) ;; *) lacking="$lacking ${t#*:}" ;; esac
done
if [ -n "$lacking" ] || [ "$(id -u)" -ne 0 ]; then
  if [ -n "$lacking" ]; then ok "skipped: missing packages$lacking"
  else ok "skipped: slurmd runs jobs as their user, and this is not root"; fi
  echo "$passed passed, $failed failed"
  exit 0
fi

# ------------------------------------------------------------ the cluster
# Its files in a folder of its own under /tmp (a socket path is at most
# 107 bytes; munged wants a folder only its user writes).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/linattn-slurm.XXXXXX") || exit 1
chmod 700 "$tmp"
pids=      # slurmctld and slurmd
munge_pid=
stop() { # every job cancelled, the daemons shut down, then each pid ended
  if [ -n "$pids" ]; then
    scancel --quiet --user="$(id -un)" > /dev/null 2>&1
    timeout 10 scontrol shutdown > /dev/null 2>&1
  fi
  k=0
  for p in $pids; do # a few seconds to stop as told, then a signal
    while kill -0 "$p" 2> /dev/null && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
    kill "$p" 2> /dev/null
  done
  for p in $pids $munge_pid; do kill "$p" 2> /dev/null; wait "$p" 2> /dev/null; done
  pids=
  munge_pid=
  rm -rf "$tmp"
}
trap 'stop' EXIT
trap 'exit 1' INT TERM HUP

host=$(hostname -s)
# ports of this run's own: two scripts at once do not meet
port=$((20000 + $$ % 20000 * 2))
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 2> /dev/null
chmod 400 "$tmp/munge.key"
munged -F -f -S "$tmp/munge.sock" --key-file="$tmp/munge.key" --log-file="$tmp/munged.log" \
  --pid-file="$tmp/munged.pid" --seed-file="$tmp/munged.seed" > /dev/null 2>&1 &
munge_pid=$!
mkdir -p "$tmp/state" "$tmp/spool"
cat > "$tmp/slurm.conf" <<EOF
ClusterName=linattn
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" > "$tmp/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -N "$host" -f "$SLURM_CONF" > "$tmp/slurmd.out" 2>&1 &
pids="$pids $!"
up() { sinfo -h -o %T 2> /dev/null | grep -q idle; }
k=0
while ! up && [ $k -lt 150 ]; do sleep 0.2; k=$((k + 1)); done
if ! up; then
  bad "a single-node Slurm up within 30 s"
  tail -n 5 "$tmp/slurmctld.log" "$tmp/slurmd.log" "$tmp/munged.log" 2> /dev/null
  echo "$passed passed, $failed failed"
  exit 1
fi
ok "a single-node Slurm up (munged, slurmctld, slurmd; 2 CPUs)"

# wait_queue SECONDS: until no job is left (a merge submits the next stage
# before it ends, so an empty queue is a plan done); 1 on timeout
wait_queue() {
  end=$(($(date +%s) + $1))
  while :; do
    q=$(squeue -h 2>&1) && [ -z "$q" ] && return 0
    [ "$(date +%s)" -lt "$end" ] || return 1
    sleep 0.2
  done
}
now() { date +%s.%N; }

# same_report A B: the report files (Markdown, CSV, SVG) of two folders are
# the same files, byte for byte (the runs' own logs hold wall times)
report_files() { (cd "$1" && find . -path ./plan -prune -o -type f \
  \( -name '*.md' -o -name '*.csv' -o -name '*.svg' \) -print | sort); }
same_report() {
  [ -s "$1/report.md" ] && [ "$(report_files "$1")" = "$(report_files "$2")" ] || return 1
  for f in $(report_files "$1"); do cmp -s "$1/$f" "$2/$f" || return 1; done
}

# ------------------------------------------------------------ reproduce --all
# the tiny --all of cli_e2e.sh: ten studies, two stages (the tuned studies'
# grids, then every study's seeds)
tiny="--all --steps 30 --seeds 2 --batch 50 --eval-batch 100 --diag-every 0
  --smooth-every 10 --diag-batch 100 --samples 30 --minibatch 100 --true-batch 1000 --bins 10"
t0=$(now)
# shellcheck disable=SC2086
"$bin" reproduce $tiny --jobs 2 --out-dir here > here.txt 2>&1
check "reproduce --all here (the reference)" [ $? -eq 0 ]
here_wall=$(awk "BEGIN { print $(now) - $t0 }")

# shellcheck disable=SC2086
"$bin" reproduce $tiny --jobs 2 --plan on-slurm --slurm > plan.txt 2>&1
check "reproduce --plan --slurm writes stage 1, its array, the merge and submit.sh" sh -c \
  "[ -s on-slurm/plan/stage-1.txt ] && [ -s on-slurm/plan/stage-1.sbatch ] &&
   [ -s on-slurm/plan/merge.sbatch ] && [ -s on-slurm/plan/submit.sh ]"
runs1=$(grep -c . on-slurm/plan/stage-1.txt)
check "the array: a task a command, at most --jobs at once, --threads CPUs a task" sh -c \
  "grep -qx '#SBATCH --array=1-$runs1%2' on-slurm/plan/stage-1.sbatch &&
   grep -qx '#SBATCH --cpus-per-task=1' on-slurm/plan/stage-1.sbatch"
check "the merge waits for the array to end, however its tasks ended (afterany)" \
  grep -q 'dependency=afterany' on-slurm/plan/submit.sh
t0=$(now)
sh on-slurm/plan/submit.sh > submit.txt 2>&1
check "submit.sh submits stage 1 and its merge (the merge's job id printed)" sh -c \
  "[ -s on-slurm/plan/stage-1.submitted ] && grep -qxE '[0-9]+' submit.txt"
wait_queue 600
check "every stage and merge done within 10 minutes" [ $? -eq 0 ]
slurm_wall=$(awk "BEGIN { print $(now) - $t0 }")
check "the merge wrote stage 2 and submitted it" sh -c \
  "[ -s on-slurm/plan/stage-2.txt ] && [ -s on-slurm/plan/stage-2.submitted ]"
check "reproduce --all on Slurm: the report, every CSV and SVG, byte for byte the local run's" \
  same_report here on-slurm
check "on Slurm: tasks whose run diverged (exit 1) still merged (afterany)" sh -c \
  "grep -l 'diverged' on-slurm/plan/logs/stage-1-*.log | grep -q ."
check "on Slurm: each task's log in plan/logs" sh -c \
  "[ \$(ls on-slurm/plan/logs/stage-1-*.log | wc -l) -eq $runs1 ]"
runs=$(cat on-slurm/plan/stage-*.txt | grep -c .)
# the scheduler's cost: the CPU time of the Slurm path (its wall on two
# CPUs) less the runs' own seconds (their summaries; the noise, without
# one, counts as all overhead), a run; and the same of the local pool
secs=$(find on-slurm -name '*.jsonl' -path '*/runs/*' -o -name '*.jsonl' -path '*/tune/*' |
  xargs cat | grep '"type":"summary"' | sed 's/.*"seconds":\([^,}]*\).*/\1/' |
  awk '{ s += $1 } END { printf "%.3f", s }')
per_run=$(awk "BEGIN { printf \"%.3f\", ($slurm_wall * 2 - $secs) / $runs }")
here_run=$(awk "BEGIN { printf \"%.3f\", ($here_wall * 2 - $secs) / $runs }")
echo "overhead: Slurm $per_run s a run ($runs runs, ${slurm_wall%.*} s on 2 CPUs, runs' own $secs s); here $here_run s a run (${here_wall%.*} s)"
check "the scheduler's overhead under 2 s a run ($per_run s)" \
  awk "BEGIN { exit !($per_run < 2) }"

# ------------------------------------------------------------ xargs, parallel
# run_plan DIR RUNNER...: each stage's commands through RUNNER, then the merge
run_plan() {
  dir=$1
  shift
  k=1
  while [ -s "$dir/plan/stage-$k.txt" ]; do
    "$@" < "$dir/plan/stage-$k.txt" > /dev/null 2>&1
    "$bin" reproduce --from "$dir" > "$dir.from.txt" 2>&1 || return 1
    k=$((k + 1))
  done
}
# shellcheck disable=SC2086
"$bin" reproduce $tiny --plan by-xargs > /dev/null 2>&1
run_plan by-xargs xargs -d '\n' -P 2 -n 1 sh -c
check "the plan through xargs: the same report, byte for byte" same_report here by-xargs
if command -v parallel > /dev/null 2>&1; then
  # shellcheck disable=SC2086
  "$bin" reproduce $tiny --plan by-parallel > /dev/null 2>&1
  run_plan by-parallel parallel --will-cite -j 2
  check "the plan through GNU parallel: the same report, byte for byte" \
    same_report here by-parallel
else
  ok "skipped: GNU parallel is not installed (package parallel)"
fi

# ------------------------------------------------------------ a failed task
# one study, one stage; its second command made to fail on Slurm: the merge
# names that run with the line that redoes it, and fails
one="--steps 30 --seeds 1 --batch 50 --eval-batch 100 --diag-every 0 --smooth-every 10
  --diag-batch 100 --samples 30 --minibatch 100 --true-batch 1000 --bins 10"
# shellcheck disable=SC2086
"$bin" reproduce $one --out-dir one-here > /dev/null 2>&1
# shellcheck disable=SC2086
"$bin" reproduce $one --plan one --slurm > /dev/null 2>&1
redo=$(sed -n 2p one/plan/stage-1.txt)
cp one/plan/stage-1.txt one-stage.txt
sed -i '2s/.*/exit 3/' one/plan/stage-1.txt
sh one/plan/submit.sh > /dev/null 2>&1
wait_queue 120
check "a failed task: the merge names its run with the command that redoes it" sh -c \
  "grep -q 'output is missing' one/plan/logs/merge-*.log && grep -qxF -- \"\$1\" one/plan/logs/merge-*.log" \
  sh "$redo"
check "a failed task: no report, and the merge exits non-zero" sh -c \
  "[ ! -f one/report.md ] && ! '$bin' reproduce --from one > /dev/null 2> one-from.err &&
   grep -qxF -- \"\$1\" one-from.err" sh "$redo"
sh -c "$redo" > /dev/null 2>&1
check "the run redone, the merge succeeds" "$bin" reproduce --from one
check "redone: the report, byte for byte the local run's" same_report one-here one

# ------------------------------------------------------------ sweep --slurm
# a grid as one job array and a report job; report.md's last column is the
# runs' steps per second (a wall time), so it is left out of the comparison
grid="--seed 1,2 --lr 0.01,0.02 -- --steps 30 --batch 50 --eval-batch 100"
# shellcheck disable=SC2086
"$bin" sweep --jobs 2 --out-dir sweep-here $grid > /dev/null 2>&1 &&
  "$bin" report sweep-here --out-dir sweep-here-report > /dev/null 2>&1
check "sweep --jobs 2 here, then report (the reference)" [ -s sweep-here-report/report.md ]
# shellcheck disable=SC2086
"$bin" sweep --slurm --jobs 2 --threads 1 --out-dir sweep-slurm $grid > sweep-plan.txt 2>&1
check "sweep --slurm: the array (8 tasks, 2 at once, a CPU each) and the report job" sh -c \
  "grep -qx '#SBATCH --array=1-8%2' sweep-slurm/plan/stage-1.sbatch &&
   grep -qx '#SBATCH --cpus-per-task=1' sweep-slurm/plan/stage-1.sbatch &&
   grep -q ' report .* --out-dir ' sweep-slurm/plan/merge.sbatch &&
   [ \$(grep -c ' train ' sweep-slurm/plan/stage-1.txt) -eq 8 ]"
sh sweep-slurm/plan/submit.sh > /dev/null 2>&1
wait_queue 120
no_sps() { sed 's/ [^|]* |$//' "$1"; }
same_sweep() {
  for f in loss.svg loss.csv; do cmp -s "$1/$f" "$2/$f" || return 1; done
  [ -s "$1/report.md" ] && [ "$(no_sps "$1/report.md")" = "$(no_sps "$2/report.md")" ]
}
check "sweep --slurm: its report the local sweep's (figures and CSV byte for byte)" \
  same_sweep sweep-here-report sweep-slurm/report

started="$pids $munge_pid"
stop
trap - EXIT
check "nothing left running: every daemon started ended, no process names its folder" sh -c \
  "for p in $started; do ! kill -0 \$p 2> /dev/null || exit 1; done;
   ! ps -eo args | grep -F '$tmp' | grep -v grep | grep -q ."
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
