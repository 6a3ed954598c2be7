#!/bin/sh
# The reproducers of the fourth hostile review ("Hardening, fourth round"),
# the program's items, each run as a user runs the program: a plan's lines
# and scripts run by /bin/sh (dash on Debian, no bash), a merge of outputs
# that are not the plan's, a twin of the wrong precision, a folder reused,
# a path too long for a plan, a large --data-file, a run killed and
# resumed, a replaced file's mode. Each check names its item; every one
# fails on the program before its fix (items 18 and 21 are held in
# tests/cli/cli_files.c too). Ends with "N passed, N failed".
# usage: harden4_e2e.sh BUILD/linattn WORKDIR
. tests/cli/e2e_util.sh
e2e_setup harden4_e2e.sh "$@"
need jq python3 cc

# a plan's lines run as a scheduler runs them: by sh, one line a process
run_stage() { xargs -d '\n' -P 2 -n 1 sh -c < "$1" > /dev/null 2>&1; }
# a small study's flags (seconds a run)
small="--steps 40 --seeds 1 --samples 200"

# ---------------------------------------------------------------- 1
# a plan is quoted for any POSIX shell: no $'...' (dash runs it as $ and a
# quoted word), printable lines, the runs inside the plan's folder
D1=$(printf "p3\001'; touch X #")
"$bin" sweep --slurm --out-dir "$D1" --seed 1 -- --steps 10 > o1.txt 2> e1.txt
sh -c "$(sed -n 2p o1.txt)" > /dev/null 2>&1
check "1 sweep --slurm into a folder with a quote and a control byte: the printed xargs line under sh runs no injected command, its runs land in the folder" \
  sh -c "[ ! -e X ] && [ -s \"\$1/opt=sgd,seed=1.jsonl\" ] && [ -s \"\$1/opt=adam,seed=1.jsonl\" ] &&
         ! grep -q \"\\\$'\" o1.txt \"\$1/plan/stage-1.txt\" \"\$1/plan/merge.sbatch\"" sh "$D1"
D1b=$(printf "lat\351in\tx")
"$bin" sweep --slurm --out-dir "$D1b" --seed 1 -- --steps 10 > /dev/null 2>&1
run_stage "$D1b/plan/stage-1.txt"
check "1 sweep --slurm into lat\\351in<tab>x: the runs under sh write inside the plan, none into a relative \$/ path" \
  sh -c "[ -s \"\$1/opt=sgd,seed=1.jsonl\" ] && [ ! -e '\$' ]" sh "$D1b"
D1c=$(printf "re'p\001ro")
"$bin" reproduce $small --plan "$D1c" > o1c.txt 2>&1
run_stage "$D1c/plan/stage-1.txt"
check "1 reproduce --plan: its lines under sh write every run inside the plan" \
  sh -c "[ -s \"\$1/runs/sgd-seed1.jsonl\" ] && [ -s \"\$1/noise.json\" ] && [ ! -e X ] &&
         ! grep -q \"\\\$'\" \"\$1/plan/stage-1.txt\" o1c.txt" sh "$D1c"
D1d=$(printf "th\001'e")
"$bin" theorem --check depth --steps 20 --plan "$D1d" --out "$D1d.json" --svg "$D1d.svg" --slurm \
  > o1d.txt 2>&1
check "1 theorem --plan (DIR, --out, --svg): no \$'...' in its lines, scripts or printed commands; the scripts parse under sh; no #SBATCH line needs a shell" \
  sh -c "[ -s \"\$1/plan/stage-1.txt\" ] && sh -n \"\$1/plan/submit.sh\" && sh -n \"\$1/plan/merge.sbatch\" &&
         sh -n \"\$1/plan/stage-1.sbatch\" && ! grep -q '^#SBATCH.*[\"'\"'\"'\$]' \"\$1\"/plan/*.sbatch &&
         ! grep -q \"\\\$'\" o1d.txt \"\$1/plan/stage-1.txt\" \"\$1/plan/merge.sbatch\" \"\$1/plan/submit.sh\" \"\$1/plan/stage-1.sbatch\"" \
  sh "$D1d"
mkdir -p "bi'n$(printf '\001')"
cp "$bin" "bi'n$(printf '\001')/linattn"
"./bi'n$(printf '\001')/linattn" sweep --slurm --out-dir prog1 --seed 1 -- --steps 10 > /dev/null 2>&1
run_stage prog1/plan/stage-1.txt
check "1 the program's own path, quoted: its lines run under sh" [ -s "prog1/opt=adam,seed=1.jsonl" ]
bad_input "1 a plan folder with a newline is refused" "newline" \
  sweep --slurm --out-dir "$(printf 'a\nb')" --seed 1
check "1 nothing made for it" [ ! -e "$(printf 'a\nb')" ]

# ---------------------------------------------------------------- 2
# links planted at DIR/plan and DIR/runs are replaced, never written through
mkdir victim sw2 th2
ln -s ../victim sw2/plan
ln -s ../victim th2/plan
ln -s ../victim th2/runs
"$bin" sweep --slurm --out-dir sw2 --seed 1 -- --steps 3 > /dev/null 2>&1
check "2 sweep --slurm: a link at DIR/plan replaced by a folder, the victim untouched" \
  sh -c "[ -d sw2/plan ] && [ ! -L sw2/plan ] && [ -s sw2/plan/stage-1.txt ] && [ -z \"\$(ls victim)\" ]"
"$bin" theorem --check depth --steps 20 --plan th2 > /dev/null 2>&1
check "2 theorem --plan: links at DIR/plan and DIR/runs replaced, the victim untouched" \
  sh -c "[ ! -L th2/plan ] && [ ! -L th2/runs ] && [ -d th2/runs ] && [ -s th2/plan/stage-1.txt ] &&
         [ -z \"\$(ls victim)\" ]"

# ---------------------------------------------------------------- 3, 12, 13, 14
# a merge takes only the plan's own outputs
"$bin" reproduce $small --plan pl > /dev/null 2>&1
run_stage pl/plan/stage-1.txt
"$bin" reproduce --from pl > /dev/null 2>&1
check "3 the plan's own outputs merge (exit 0)" [ $? -eq 0 ]
"$bin" reproduce --steps 50 --seeds 1 --samples 200 --plan pl-other > /dev/null 2>&1
run_stage pl-other/plan/stage-1.txt
cp -r pl pl3
cp pl/runs/adam-seed1.jsonl pl3/runs/sgd-seed1.jsonl
"$bin" reproduce --from pl3 > /dev/null 2> e3.txt
rc=$?
check "3 an Adam run copied to the SGD run's path: exit 1, named, the command that redoes it ($(tail -n 1 e3.txt))" \
  sh -c "[ $rc -eq 1 ] && grep -q 'sgd-seed1.jsonl.*opt' e3.txt &&
         grep -q '^[^#].* train .*--opt sgd .*--out .*pl3/runs/sgd-seed1.jsonl' e3.txt && [ ! -e pl3/report.md ]"
cp -r pl pl3b
cp pl-other/runs/*.jsonl pl3b/runs/
"$bin" reproduce --from pl3b > /dev/null 2> e3b.txt
rc=$?
check "3 another plan's outputs (50 steps, not 40): exit 1, each named" \
  sh -c "[ $rc -eq 1 ] && grep -q 'sgd-seed1.jsonl.*steps' e3b.txt && grep -q 'adam-seed1.jsonl.*steps' e3b.txt"
bad_input "12 reproduce --from DIR --seeds 5: flags other than the plan's refused" "--seeds 5" \
  reproduce --from pl --seeds 5
cp -r pl pl13
echo garbage > pl13/runs/sgd-seed1.jsonl
head -n 2 pl/runs/adam-seed1.jsonl > pl13/runs/adam-seed1.jsonl
"$bin" reproduce --from pl13 > /dev/null 2> e13.txt
rc=$?
check "13 garbage and a run cut short: exit 1, each named with its reason and redo command" \
  sh -c "[ $rc -eq 1 ] && grep -q 'sgd-seed1.jsonl.*unreadable' e13.txt &&
         grep -q 'adam-seed1.jsonl.*cut short' e13.txt && [ \$(grep -c ' train ' e13.txt) -eq 2 ]"
cp -r pl pl14
echo '{"type":1}' > pl14/noise.json
"$bin" reproduce --from pl14 > /dev/null 2> e14.txt
rc14=$?
rm pl14/noise.json
"$bin" reproduce --from pl14 > /dev/null 2> e14b.txt
rc14b=$?
check "14 a forged noise.json is refused as a missing one is: exit 1, named, redo command" \
  sh -c "[ $rc14 -eq 1 ] && [ $rc14b -eq 1 ] && grep -q 'noise.json' e14.txt &&
         grep -q ' noise .*--out .*noise.json' e14.txt && grep -q ' noise .*--out .*noise.json' e14b.txt"

# ---------------------------------------------------------------- 4, 24
# a double study with the float program as its twin: the precision checked
mkdir bin4 bin24
cp "$bin" bin4/linattn
ln -s linattn bin4/linattn-double
./bin4/linattn reproduce --precision double $small --out-dir d4 > /dev/null 2> e4.txt
rc=$?
check "4 the float program as the double twin: refused (exit 1), the precision named, no report" \
  sh -c "[ $rc -eq 1 ] && grep -q 'computed in float' e4.txt && [ ! -e d4/report.md ]"
cp "$bin" bin24/linattn
mkdir bin24/linattn-double
./bin24/linattn reproduce --precision double $small --out-dir d24 > /dev/null 2> e24.txt
check "24 a folder as the twin: exit 2 ($(cat e24.txt))" [ $? -eq 2 ]
bad_input "24 --diag-batches 3 with --diag-every 0 refused" "--diag-every 0" \
  train --diag-batches 3 --diag-every 0
"$bin" reproduce $small --plan p24 > /dev/full 2> e24b.txt
rc=$?
check "24 a plan with stdout on /dev/full: exit 3, said once" sh -c \
  "[ $rc -eq 3 ] && [ \$(grep -c 'writing to standard output failed' e24b.txt) -eq 1 ]"
"$bin" sweep --slurm --out-dir sw24 --seed 1,2 -- --steps 3 > /dev/null 2>&1
run_stage sw24/plan/stage-1.txt
"$bin" sweep --slurm --out-dir sw24 --seed 3 -- --steps 3 > o24.txt 2>&1
run_stage sw24/plan/stage-1.txt
sh -c "$(sed -n 's/^then: //p' o24.txt)" > o24b.txt 2>&1
check "24 a sweep's merge in a reused folder reports its own 2 runs, not the old sweep's ($(cat o24b.txt))" \
  grep -q '^2 runs' o24b.txt

# ---------------------------------------------------------------- 5
# re-planning into a used folder: no file of the earlier plan is left
"$bin" reproduce --depth 4 $small --plan rp5 --slurm > /dev/null 2>&1
echo "1:2" > rp5/plan/stage-1.submitted
echo "old stage" > rp5/plan/stage-2.txt
echo "old" > rp5/plan/logs/stage-1-1.log
"$bin" reproduce --depth 4 $small --plan rp5 --slurm > /dev/null 2>&1
check "5 re-planned: the old stage-2.txt, stage-1.submitted mark and logs are gone" \
  sh -c "[ -s rp5/plan/stage-1.txt ] && [ ! -e rp5/plan/stage-2.txt ] &&
         [ ! -e rp5/plan/stage-1.submitted ] && [ ! -e rp5/plan/logs/stage-1-1.log ]"

# ---------------------------------------------------------------- 7
# a folder too long to hold a plan whole is refused; a long one is printed
# whole
long=long7
i=0
while [ $i -lt 20 ]; do
  long="$long/$(printf '%0200d' $i)"
  i=$((i + 1))
done
mkdir -p "$long"
bad_input "7 a plan folder of 4,000+ bytes is refused, not cut" "bytes" \
  sweep --slurm --out-dir "$long/sw" --seed 1
check "7 nothing written beside it" sh -c "[ -z \"\$(find long7 -name plan)\" ]"
mid=long7/$(printf '%0200d' 0)/$(printf '%0200d' 1)/$(printf '%0200d' 2)/$(printf '%0200d' 3)/$(printf '%0200d' 4)/x
"$bin" sweep --slurm --out-dir "$mid" --seed 1 > o7.txt 2>&1
check "7 a plan folder of 1,000+ bytes: its commands printed whole" \
  grep -qF "$(pwd)/$mid/plan/stage-1.txt" o7.txt

# ---------------------------------------------------------------- 9
# --data-file of a million tiny batches, 2 steps: memory of what the steps
# use, not of every batch (before: 10 times the file)
python3 - <<'EOF'
import struct
T = 1000000
h = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, 1, 2, 2), }" % T
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
with open('big9.npy', 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode())
    f.write(struct.pack('<4d', 0.5, 1.0, -0.25, 0.75) * T)  # y_q in the query row
EOF
peak=$(python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -1)' \
  "$bin" train --data-file big9.npy --steps 2 --out /dev/null)
file_kb=$(($(wc -c < big9.npy) / 1024))
check "9 --data-file of 1,000,000 batches, --steps 2: peak $peak KB within 1.5 times the file ($file_kb KB) + 20 MB" \
  sh -c "[ $peak -gt 0 ] && [ $peak -lt $((file_kb * 3 / 2 + 20480)) ]"
rm -f big9.npy

# ---------------------------------------------------------------- 15
# a run killed (-9) and resumed into the same output: its log from step 0,
# the step lines an unbroken run writes
mkdir k15
"$bin" train --steps 1000000 --log-every 100 --checkpoint-every 50 \
  --checkpoint k15/k.ckpt --out k15/k.jsonl > /dev/null 2>&1 &
k15=$!
sleep 2
kill -KILL $k15
wait $k15 # reaped here: no process holds its pid
# the checkpoint's step, from a resume into another file (k.jsonl's
# temporary is left for the resume into k.jsonl)
"$bin" train --resume k15/k.ckpt --steps 1 --out k15/probe.jsonl > /dev/null 2>&1
ks=$(($(jq -r 'select(.type == "config") | .resumed_at' k15/probe.jsonl 2> /dev/null) + 500))
"$bin" train --resume k15/k.ckpt --steps $ks --log-every 100 --out k15/k.jsonl > /dev/null 2>&1
"$bin" train --steps $ks --log-every 100 --out k15/u.jsonl > /dev/null 2>&1
jq -c 'select(.type == "step")' k15/k.jsonl > k15/k.steps 2> /dev/null
jq -c 'select(.type == "step")' k15/u.jsonl > k15/u.steps 2> /dev/null
check "15 killed and resumed into its output: the step lines from step 0, an unbroken run's ($(jq -c 'select(.type == "config") | [.resumed_at, .log_from]' k15/k.jsonl))" \
  sh -c "[ -s k15/u.steps ] && cmp -s k15/k.steps k15/u.steps"

# ---------------------------------------------------------------- 19
cp -r pl pl19
printf -- '--steps\n40\n--samples\n200\n--seeds\n1' > pl19/plan/flags
"$bin" reproduce --from pl19 > /dev/null 2> e19.txt
check "19 plan/flags whose last line has no newline: read whole, merged ($(cat e19.txt))" [ $? -eq 0 ]
printf -- '--steps\n40\n--samples\n200\n\000--seeds\n5\n--seeds\n1\n' > pl19/plan/flags
bad_input "19 plan/flags with a NUL byte refused" "NUL" reproduce --from pl19
printf -- '--help\n' > pl19/plan/flags
"$bin" reproduce --from pl19 > /dev/null 2> e19b.txt
check "19 plan/flags asking for help: a reason said ($(cat e19b.txt))" \
  sh -c "[ \$(wc -l < e19b.txt) -eq 1 ] && ! grep -q ': *\$' e19b.txt"

# ---------------------------------------------------------------- 20
"$bin" theorem --check depth --steps 20 --plan th20 > /dev/null 2>&1
run_stage th20/plan/stage-1.txt
"$bin" theorem --from th20 > /dev/null 2>&1
rc=$?
check "20 theorem --from: its own units merge" sh -c "[ $rc -eq 0 ] || [ $rc -eq 1 ]"
for bad in '"x"' 1e400; do
  cp -r th20 th20b
  sed -i "s/\"model\":[^,}]*/\"model\":$bad/" th20b/runs/depth-L2-seed1.json
  "$bin" theorem --from th20b > /dev/null 2> e20.txt
  rc=$?
  check "20 a unit whose model is $bad: exit 1, the unit named with its redo command" \
    sh -c "[ $rc -eq 1 ] && grep -q 'depth-L2-seed1.json' e20.txt"
  rm -rf th20b
done

# ---------------------------------------------------------------- 21
python3 - <<'EOF'
import struct
h = "{'descr': '<f8', 'descr': '<i8', 'fortran_order': False, 'shape': (1, 1, 2, 2), }"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
with open('dup21.npy', 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode())
    f.write(struct.pack('<4d', 0.5, 1.0, -0.25, 0.0))
EOF
bad_input "21 a .npy header with a second 'descr' refused" "twice" \
  train --data-file dup21.npy --out /dev/null

# ---------------------------------------------------------------- 22
"$bin" train --steps 3 --checkpoint m22.ckpt --out m22.jsonl > /dev/null 2>&1
chmod 600 m22.ckpt m22.jsonl
"$bin" train --steps 3 --checkpoint m22.ckpt --out m22.jsonl > /dev/null 2>&1
check "22 the program's outputs rewritten keep mode 0600" \
  sh -c "[ \$(stat -c %a m22.ckpt) = 600 ] && [ \$(stat -c %a m22.jsonl) = 600 ]"
if cc -std=c99 -I"$src" "$src/tests/cli/save_ckpt.c" -o save22 -lm 2> save22.err; then
  ./save22 h22.ckpt && chmod 640 h22.ckpt && ./save22 h22.ckpt
  check "22 the header's la_checkpoint_save over a 0640 file keeps 0640" \
    sh -c "[ \$(stat -c %a h22.ckpt) = 640 ]"
else
  bad "22 a build of the header ($(head -n 1 save22.err))"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
