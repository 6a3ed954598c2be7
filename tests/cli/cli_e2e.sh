#!/bin/sh
# End-to-end checks of the linattn command: every subcommand as a user runs
# it. JSON is checked with jq and SVG with xmllint, both independent of the
# program's own reader. Ends with "N passed, N failed".
# usage: cli_e2e.sh BUILD/linattn WORKDIR   (LINATTN_E2E_QUICK=1: the fast part)
. tests/cli/e2e_util.sh
e2e_setup cli_e2e.sh "$@" # $src: the source tree, for the example scripts
need jq xmllint

# ---------------------------------------------------------------- help
# the subcommands are the command table's (CLI_COMMANDS in
# cli/args.h): the top-level --help lists exactly those, in
# its order, and each one's --help is its own
cmds=$("$bin" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p' | tr '\n' ' ')
table=$(sed -n 's/^  X([A-Z]*, \([a-z]*\),.*/\1/p' "$src/cli/args.h" | tr '\n' ' ')
check "top-level --help: the command table's names ($table)" [ -n "$table" -a "$cmds" = "$table" ]
for cmd in $cmds; do
  check "$cmd: its code in cli/commands/, a file named for it" \
    sh -c "ls '$src'/cli/commands/*.h | grep -q '[/_]$cmd[_.]'"
  check "$cmd --help" sh -c "'$bin' $cmd --help | grep -q 'usage: linattn $cmd' && '$bin' $cmd -h | grep -q '^flags:'"
done
# flags renamed to mean one thing: the old spelling names the new one
for cmd in reproduce sweep report export; do
  bad_input "$cmd --out: a folder is --out-dir" "--out-dir DIR" $cmd --out d
done
for cmd in noise curvature; do
  bad_input "$cmd --checkpoint: a checkpoint read is --at" "--at FILE" $cmd --checkpoint c.ckpt
done
bad_input "train --at: train saves with --checkpoint" "does not apply" train --at c.ckpt

bad_input "no subcommand" "subcommand"
bad_input "unknown subcommand" "frobnicate" frobnicate
bad_input "unknown flag" "--frobnicate" train --frobnicate 3
bad_input "flag of another subcommand" "--full" train --full
bad_input "not a number" "abc" train --lr abc
bad_input "out of range" "1e999" train --lr 1e999
bad_input "negative size" "--batch" train --batch -5
# a stored batch larger than the machine's memory: exit 4 with the sizes,
# before any allocation (one that large succeeds where memory is
# overcommitted, and the run would page instead of failing)
check "a run larger than memory: exit 4, the sizes named, nothing written" sh -c \
  "'$bin' train --data fixed --d 20 --n 200 --depth 1 --batch 46309761 --eval-batch 16 \
     --steps 1 --out big.jsonl > out.txt 2> err.txt; [ \$? -eq 4 ] && grep -q 'needs .* GB of memory' err.txt && [ ! -e big.jsonl ]"
bad_input "NaN" "nan" train --lr nan
bad_input "fraction for a count" "--steps" train --steps 2.5
bad_input "missing value" "--steps" train --steps
bad_input "unknown name" "sphered" train --setting sphered
bad_input "bad list item" "--lr" sweep --lr 0.01,,0.02
bad_input "backwards range" "--seed" sweep --seed 5..1
bad_input "report without files" "report" report
touch afile
bad_input "unwritable output folder" "afile" reproduce --out-dir afile/sub --steps 10
bad_input "unwritable train output" "afile" train --steps 5 --out afile/x/run.jsonl
bad_input "missing checkpoint" "nothere.ckpt" noise --at nothere.ckpt
echo "not a checkpoint" > junk.ckpt
bad_input "not a checkpoint" "junk.ckpt" curvature --at junk.ckpt
echo "{not json" > junk.jsonl
bad_input "report of a bad file" "junk.jsonl" report junk.jsonl --out-dir rep-bad
# the reader takes JSON nested up to 64 levels and refuses a level more
nested() { # nested LEVELS: a config line whose member is LEVELS-1 arrays deep
  awk -v n="$1" 'BEGIN { s = "{\"type\":\"config\",\"a\":";
    for (i = 1; i < n; i++) s = s "["; for (i = 1; i < n; i++) s = s "]"; print s "}" }'
}
nested 64 > deep64.jsonl
nested 65 > deep65.jsonl
check "64 and 65 levels: valid JSON (jq)" sh -c 'jq -e . deep64.jsonl && jq -e . deep65.jsonl'
check "report of JSON nested 64 levels" "$bin" report deep64.jsonl --out-dir rep-deep64
bad_input "report of JSON nested 65 levels" "deeper than 64 levels" report deep65.jsonl --out-dir rep-deep65
bad_input "inconsistent schedule" "schedule" train --schedule cosine --warmup 50 --cosine-total 10 --steps 5
bad_input "theorem --steps 0 trains nothing, so checks nothing" "at least 1" theorem --steps 0
bad_input "sweep: a range of 6e10 values is refused, not walked" "more than 1000000" sweep --seed 1..60e9

# ---------------------------------------------------------------- train
"$bin" train --steps 60 --diag-every 30 --smooth-every 10 --log-every 10 \
  --out run.jsonl 2> train.err
check "train exits 0" [ $? -eq 0 ]
check "train: quiet on a non-terminal stderr" [ ! -s train.err ]
check "train: JSON lines" jsonl_ok run.jsonl
check "train: config, 7 step lines, summary" sh -c \
  "[ \"\$(jq -r .type run.jsonl | tr '\n' ' ')\" = 'config step step step step step step step summary ' ]"
check "train: rcond and smoothness where asked" sh -c \
  "jq -s -e 'map(select(.step == 30))[0] | .rcond_diag > 1 and .smoothness != null and .lambda_max > 0' run.jsonl"
check "train: the loss falls" sh -c \
  "jq -s -e '(map(select(.step == 0))[0].eval_loss) > (map(select(.type == \"summary\"))[0].final_eval_loss) * 2' run.jsonl"
check "train: nothing left under a temporary name" no_tmp .
check "train to stdout" sh -c "'$bin' train --steps 3 --log-every 1 | jq -e -s 'length == 6' "
# a pipe (or a device) as output is written in place, never replaced
mkfifo fifo
cat fifo > from-fifo.txt &
"$bin" train --steps 3 --log-every 1 --out fifo
wait
check "output to a FIFO: written in place, still a FIFO" sh -c "[ -p fifo ] && jq -e -s 'length == 6' from-fifo.txt"
bad_input "checkpoint onto a FIFO" "not a regular file" train --steps 3 --checkpoint fifo

# a run that diverges: exit 1, and its output still complete
"$bin" train --opt sgd --lr 1e5 --momentum 0 --clip 0 --steps 50 --out div.jsonl 2> div.err
rc=$?
check "diverging run exits 1" [ $rc -eq 1 ]
check "diverging run: one line on stderr" [ "$(wc -l < div.err)" -eq 1 ]
check "diverging run: complete output" sh -c "jq -e -s '.[-1].status == \"diverged\"' div.jsonl"

# a diagnostic that fails is a measurement, not the end of training: at
# L = 8 with heavy-tailed covariates (Setting 3) and a large initialization,
# the Hessian of the diagnostics' 4000 prompts overflows float while the
# training batch of 20 stays finite; the run goes on
"$bin" train --setting 3 --depth 8 --opt sgd --lr 1e-30 --init-std 0.25 --seed 1 --steps 20 \
  --batch 20 --eval-batch 20 --diag-batch 4000 --smooth-every 1 --diag-every 10 --out d8.jsonl 2> d8.err
rc=$?
check "a failing diagnostic: the run trains to its end (exit 0)" [ $rc -eq 0 ]
check "a failing diagnostic: status ok, 20 steps" sh -c "jq -e -s '.[-1].status == \"ok\" and .[-1].steps == 20' d8.jsonl"
check "a failing diagnostic: its record says why" sh -c \
  "jq -e -s 'map(select(.rcond_error != null)) | length > 0' d8.jsonl"

# a deep model's forward pass (degree 3^L in a prompt) overflows on a rare
# prompt: without --skip-overflow the run ends there; with it that step is
# skipped, said on a line of its own, and the run completes. Both runs are
# the same up to that step, so the first skip is where the other diverged.
"$bin" train --preset 1 --depth 8 --opt adam --lr 0.01 --seed 1 --steps 500 --diag-every 0 \
  --smooth-every 0 --out deep.jsonl 2> /dev/null
rc=$?
check "a deep run without skipping diverges on one prompt" sh -c \
  "[ $rc -eq 1 ] && jq -e 'select(.type == \"summary\") | .diverged_cause == \"train_prompt\" and .diverged_prompts == 1' deep.jsonl"
"$bin" train --preset 1 --depth 8 --opt adam --lr 0.01 --seed 1 --steps 500 --diag-every 0 \
  --smooth-every 0 --skip-overflow 10 --out deep-skip.jsonl 2> deep-skip.err
rc=$?
check "with --skip-overflow it completes, the step skipped where the other diverged" sh -c \
  "[ $rc -eq 0 ] && jq -e 'select(.type == \"summary\") | .status == \"ok\" and .skipped >= 1 and .skipped <= 10' deep-skip.jsonl &&
   [ \"\$(jq -s 'map(select(.type == \"skip\"))[0].step' deep-skip.jsonl)\" = \"\$(jq 'select(.type == \"summary\") | .diverged_step' deep.jsonl)\" ] &&
   jq -s -e 'map(select(.type == \"skip\")) | length >= 1 and all(.skip_cause == \"train_prompt\" and .skip_prompts >= 1 and .skip_prompt_norm > 0)' deep-skip.jsonl > /dev/null"

# ---------------------------------------------------------------- resume
"$bin" train --steps 80 --eval-every 20 --diag-every 40 --smooth-every 5 --seed 3 \
  --out whole.jsonl --checkpoint whole.ckpt
"$bin" train --steps 40 --eval-every 20 --diag-every 40 --smooth-every 5 --seed 3 \
  --out first.jsonl --checkpoint part.ckpt
check "checkpoint written, and nothing beside it" sh -c "[ -s part.ckpt ] && [ ! -e part.ckpt.args ]"
"$bin" train --resume part.ckpt --steps 80 --out second.jsonl --checkpoint part2.ckpt
check "resume exits 0" [ $? -eq 0 ]
check "resumed checkpoint identical to the unbroken run's" cmp whole.ckpt part2.ckpt
jq -c 'select(.type == "step" and .step > 40)' whole.jsonl > a.txt
jq -c 'select(.type == "step")' second.jsonl > b.txt
check "resumed steps 41..80 identical to the unbroken run's" sh -c "[ -s a.txt ] && cmp a.txt b.txt"
"$bin" train --checkpoint-every 20 --checkpoint every.ckpt --steps 50 --out every.jsonl
check "checkpoint every 20 steps" sh -c "[ -s every.ckpt ] && jq -e -s '.[-1].steps == 50' every.jsonl"
bad_input "resume of another optimizer" "checkpoint's run has opt adam" train --resume part.ckpt --opt sgd --steps 90 --out x.jsonl
# sophia: its estimates' stream position is in the checkpoint (Hutchinson
# draws; the resume crosses an estimate at step 21), the resume bit for bit
"$bin" train --opt sophia --hessian hutchinson --gamma 1 --precond-every 4 --steps 30 \
  --batch 200 --seed 4 --out soph.jsonl --checkpoint soph.ckpt
"$bin" train --opt sophia --hessian hutchinson --gamma 1 --precond-every 4 --steps 19 \
  --batch 200 --seed 4 --out soph1.jsonl --checkpoint soph1.ckpt
"$bin" train --resume soph1.ckpt --steps 30 --out soph2.jsonl --checkpoint soph2.ckpt
check "sophia: resumed across an estimate, its checkpoint the unbroken run's" cmp soph.ckpt soph2.ckpt
check "sophia: the config line names its estimator and gamma" sh -c \
  "jq -e -s '.[0].opt == \"sophia\" and .[0].hessian == \"hutchinson\" and .[0].gamma == 1' soph.jsonl"
bad_input "sophia's estimator on another optimizer" "adam does not read it" train --opt adam --hessian gnb --steps 3 --out x.jsonl

# ---------------------------------------------------------------- runs described once
# a run is its checkpoint: resumed with --steps alone, bit for bit
"$bin" train --steps 35 --checkpoint-every 5 --checkpoint cut.ckpt --seed 2 --out cut.jsonl
"$bin" train --steps 60 --checkpoint whole2.ckpt --seed 2 --out whole2.jsonl
printf -- '--out\nredirected.jsonl\n--opt\nsgd\n' > cut.ckpt.args
"$bin" train --resume cut.ckpt --steps 60 --checkpoint cut2.ckpt --out cut2.jsonl
check "resume from the checkpoint alone, bit for bit" cmp whole2.ckpt cut2.ckpt
check "a stale side file redirects nothing" sh -c "[ ! -e redirected.jsonl ] && [ -s cut2.jsonl ]"
bad_input "resume with another lr, named" "lr" train --resume cut.ckpt --steps 60 --lr 0.5 --out x.jsonl
# killed while saving every step (in a folder of its own: a kill may leave a
# temporary, which the next save of the same file removes): what was saved
# resumes, and ends as an unbroken run
# (the sanitized program of the quick part takes a tenth of the steps in
# the second before the kill: it resumes to 1000)
mkdir -p killdir
ks=3000
[ -z "$LINATTN_E2E_QUICK" ] || ks=1000
timeout -s KILL 1 "$bin" train --steps 1000000 --log-every 1000 --checkpoint-every 1 \
  --checkpoint killdir/k.ckpt --out killdir/k.jsonl 2>/dev/null
if [ -s killdir/k.ckpt ]; then
  "$bin" train --resume killdir/k.ckpt --steps $ks --checkpoint killdir/k2.ckpt --out killdir/k2.jsonl
  rc=$?
  # a machine fast enough to pass $ks steps before the kill: 1000 past it
  at=$(jq -r 'select(.type == "config") | .resumed_at // 0' killdir/k2.jsonl 2>/dev/null)
  if [ "${at:-0}" -ge $ks ] 2>/dev/null; then
    ks=$((at + 1000))
    "$bin" train --resume killdir/k.ckpt --steps $ks --checkpoint killdir/k2.ckpt --out killdir/k2.jsonl
    rc=$?
  fi
  check "a killed run resumes with --steps alone" [ $rc -eq 0 ]
  "$bin" train --steps $ks --log-every 1000 --checkpoint killdir/u.ckpt --out killdir/u.jsonl
  check "and ends where an unbroken run ends" cmp killdir/k2.ckpt killdir/u.ckpt
fi
rm -rf killdir
# the model family: its fields reach the checkpoint and the resume check
"$bin" train --attention softmax --heads 2 --qk-rank 2 --steps 20 --batch 64 --checkpoint fam.ckpt --out fam.jsonl
check "softmax, 2 heads, rank 2: in the config line" sh -c \
  "jq -e -s '.[0].attention == \"softmax\" and .[0].heads == 2 and .[0].qk_rank == 2' fam.jsonl"
"$bin" train --resume fam.ckpt --steps 30 --out fam2.jsonl
check "and resumed from the checkpoint alone" sh -c "jq -e -s '.[-1].steps == 30' fam2.jsonl"
bad_input "a resume with other heads is refused" "heads" train --resume fam.ckpt --steps 30 --heads 3 --out x.jsonl
# merged against separate keys and queries: the separate form's plateaus
# (a property of training, not of memory: not in the sanitized quick part)
if [ -z "$LINATTN_E2E_QUICK" ]; then
  sh "$src/examples/kq_staircase.sh" "$bin" kq 1500 1 > kq.txt
  check "kq staircase: curves.csv, a row per evaluation" sh -c \
    'head -1 kq/curves.csv | grep -qx "step,merged,separate" && [ "$(wc -l < kq/curves.csv)" -eq 17 ]'
  check "kq staircase: more plateaus separate than merged" awk \
    '/evaluations on a plateau/ { for (i = 1; i <= NF; ++i) if ($(i + 1) == "evaluations") c[++k] = $i }
     END { exit !(k == 2 && c[2] > c[1]) }' kq.txt
  check "kq staircase: report and figure" svg_ok kq/loss.svg
fi
# threads: the same bits for any count
"$bin" train --steps 60 --threads 1 --checkpoint th1.ckpt --out /dev/null
"$bin" train --steps 60 --threads 3 --checkpoint th3.ckpt --out /dev/null
check "train --threads 3 and 1: the same checkpoint" cmp th1.ckpt th3.ckpt
# cosine: of the run's length by default; given, the pieces make the whole
"$bin" train --schedule cosine --steps 40 --checkpoint cos.ckpt --log-every 1 --out cos1.jsonl
"$bin" train --resume cos.ckpt --steps 80 --log-every 1 --out cos2.jsonl
"$bin" train --schedule cosine --steps 80 --log-every 1 --out cos80.jsonl
check "cosine resumed to 80: the 80-step run's rates, none zero" sh -c \
  "jq -c 'select(.type == \"step\" and .step > 40) | .lr_scale' cos2.jsonl > r2.txt &&
   jq -c 'select(.type == \"step\" and .step > 40) | .lr_scale' cos80.jsonl > r80.txt &&
   cmp r2.txt r80.txt && ! grep -qx 0 r2.txt"
"$bin" train --schedule cosine --cosine-total 80 --steps 40 --checkpoint cosb.ckpt --out /dev/null
"$bin" train --resume cosb.ckpt --steps 80 --checkpoint cosb2.ckpt --out /dev/null
"$bin" train --schedule cosine --cosine-total 80 --steps 80 --checkpoint cosb80.ckpt --out /dev/null
check "cosine of a given length: resumed equals the single run" cmp cosb2.ckpt cosb80.ckpt
# two runs that differ in any setting are two configurations
"$bin" train --steps 30 --warmup 0 --out w0.jsonl
"$bin" train --steps 30 --warmup 20 --out w20.jsonl
"$bin" report w0.jsonl w20.jsonl --out-dir rep-w > rep-w.txt
check "report: warmup 0 and 20 are two configurations" grep -q "2 runs, 2 configurations" rep-w.txt
cat w0.jsonl w20.jsonl cut.jsonl > all.jsonl
"$bin" report all.jsonl --out-dir rep-all > rep-all.txt
check "report: a file of three runs is three runs" grep -q "^3 runs, " rep-all.txt
mkdir -p runsdir/sub && cp w0.jsonl runsdir/ && cp w20.jsonl runsdir/sub/ && echo junk > runsdir/notes.txt
"$bin" report runsdir --out-dir rep-dir > rep-dir.txt
check "report: a folder, its subfolders' runs too" grep -q "^2 runs, 2 configurations" rep-dir.txt
printf '{"type":"step","step":1,"loss":1}\n' > orphan.jsonl
bad_input "report: a step before any config names the line" "orphan.jsonl' line 1" report orphan.jsonl --out-dir rep-x
bad_input "report: an endless line is refused, not read into memory" "longer than" report /dev/zero --out-dir rep-z
# sweeps: any run flag an axis, lists of any length, names from every axis
check "sweep: seeds 1..65" sh -c "'$bin' sweep --seed 1..65 --opt adam | wc -l | grep -qx 65"
check "sweep: warmup as an axis, in the names" sh -c \
  "'$bin' sweep --warmup 0,20 --opt adam | grep -c 'warmup=' | grep -qx 2"
check "sweep: a setting after -- is in the names" sh -c \
  "'$bin' sweep --opt adam -- --batch 500 | grep -q 'batch=500'"
bad_input "sweep: a grid point that cannot be built" "beta1" sweep --opt sgd,adam --beta1 0.5

# ---------------------------------------------------------------- noise
"$bin" noise --samples 60 --minibatch 200 --true-batch 4000 --bins 12 --out noise.json --svg noise.svg
check "noise exits 0" [ $? -eq 0 ]
# the CPUs a job was given: a run takes them all, sweep --jobs K a K-th each
check "train: OMP_NUM_THREADS=1 bounds its threads to one" sh -c \
  "OMP_NUM_THREADS=1 \"$bin\" train --steps 2 --batch 8 | jq -se '.[-1].threads == 1' > /dev/null"
sweep_threads() { # sweep_threads JOBS: the threads of its runs on CPUs 0 and 1
  rm -rf swt && taskset -c 0,1 "$bin" sweep --seed 1,2 --jobs "$1" --steps 2 --out-dir swt \
    -- --batch 8 > /dev/null && cat swt/*.jsonl | jq -sc 'map(select(.type == "summary") | .threads) | unique'
}
if [ "$(nproc)" -ge 2 ]; then
  check "sweep --jobs 1 on 2 CPUs: each run takes both" [ "$(sweep_threads 1)" = "[2]" ]
  check "sweep --jobs 2 on 2 CPUs: one each" [ "$(sweep_threads 2)" = "[1]" ]
fi
# a default the help states is the one the command uses
check "noise: --true-batch's default is what its help says" sh -c \
  "\"$bin\" noise --help | grep -q 'true-batch B.*default 100 times the minibatch' &&
   \"$bin\" noise --minibatch 10 --samples 4 | jq -e '.true_batch == 1000' > /dev/null"
check "noise: JSON with 12 bins" sh -c "jq -e '(.hist | length) == 12 and (.edges | length) == 13 and .mean > 0' noise.json"
check "noise: histogram integrates to 1" sh -c \
  "jq -e '[range(0; 12) as \$i | .hist[\$i] * (.edges[\$i+1] - .edges[\$i])] | add | . > 0.999 and . < 1.001' noise.json"
check "noise: SVG well-formed" svg_ok noise.svg
check "noise: its numbers beside the figure (12 bins)" sh -c "[ \$(grep -c . noise.csv) -eq 13 ]"
"$bin" noise --at whole.ckpt --samples 40 --minibatch 200 --true-batch 2000 --out noise-ck.json
check "noise at a checkpoint (step 80)" sh -c "jq -e '.step == 80' noise-ck.json"

# ---------------------------------------------------------------- curvature
"$bin" curvature --at whole.ckpt --top 4 --probes 4 --slq-steps 30 --grid 100 --dense \
  --out curv.json --svg curv.svg
check "curvature exits 0" [ $? -eq 0 ]
check "curvature: Lanczos top eigenvalue = the dense spectrum's largest" sh -c \
  "jq -e '((.top[0] - (.spectrum | max)) | fabs) <= 1e-3 * (.spectrum | max)' curv.json"
check "curvature: rcond = max/median of the dense spectrum" sh -c \
  "jq -e '(.lambda_max - (.spectrum | max) | fabs) <= 1e-6 * .lambda_max' curv.json"
check "curvature: density on 100 points" sh -c "jq -e '(.density | length) == 100' curv.json"
# the blocks tile H's diagonal: their eigenvalues sum to its trace, the whole spectrum's sum
check "curvature --dense: the blocks' spectra sum to the trace, every block its size" sh -c \
  "jq -e '([to_entries[] | select(.key | startswith(\"block_\")) | select(.key != \"block_js\" and .key != \"block_js_mean\" and .key != \"block_js_max\") | .value[]] | add) as \$b
          | (.spectrum | add) as \$t | ((\$b - \$t) | fabs) <= 1e-6 * ([.spectrum[] | fabs] | add)
          and ([to_entries[] | select(.key | test(\"^block_[AB]\")) | .value | length] | all(. == 25))
          and .block_js_mean > 0 and .block_js_mean <= .block_js_max and .block_js_max == (.block_js | max)
          and .block_js_max <= 1' curv.json"
check "curvature: SVG well-formed" svg_ok curv.svg
check "curvature: its numbers beside the figure" sh -c "grep -c '^density,' curv.csv | grep -qx 100"
# a spectrum of one eigenvalue is drawn (a bump), every coordinate a number
"$bin" curvature --d 1 --n 1 --depth 1 --param pgd --diag-batch 1 --out c1.json --svg c1.svg
check "curvature of one parameter: a figure" svg_ok c1.svg
check "curvature of one parameter: a curve" grep -q '<polyline' c1.svg
check "curvature of one parameter: finite coordinates" sh -c "! grep -qiwE 'nan|inf' c1.svg"

# ---------------------------------------------------------------- theorem
"$bin" theorem --check lemma1 > lemma.txt
check "theorem lemma1 agrees (exit 0)" [ $? -eq 0 ]
check "theorem lemma1 prints both sides" grep -q "largest difference" lemma.txt

# heat maps of a run's matrices, at its end and at its checkpoint
"$bin" train --preset b-depth --steps 20 --batch 500 --eval-batch 500 --out hm.jsonl --heatmap hm --checkpoint hm.ck
check "train --heatmap exits 0" [ $? -eq 0 ]
check "heat map: SVG well-formed" svg_ok hm/heatmap.svg
check "heat map: 3 layers x (B, A, whitened A) x 25 entries as CSV" sh -c \
  "[ \$(grep -c '^[123],\(B\|A\|whitened_A\),[1-5],[1-5],' hm/heatmap.csv) -eq 225 ]"
"$bin" train --resume hm.ck --steps 20 --out hm2.jsonl --heatmap hm2
check "heat map at a checkpoint: the run's own" cmp hm/heatmap.csv hm2/heatmap.csv
bad_input "train --heatmap: the dense form refused" "heatmap" train --param dense --steps 2 --out /dev/null --heatmap hm3
# refused before a step is taken (a million steps would not end here)
bad_input "train --heatmap: softmax refused before training" "heatmap" \
  train --attention softmax --steps 1000000 --out hm4.jsonl --heatmap hm4
check "train --heatmap refused: nothing written" sh -c "[ ! -e hm4.jsonl ] && [ ! -e hm4 ]"

# paper B's comparative checks, a few steps each: the structure of their
# output and the numbers that do not depend on training's length
"$bin" theorem --check lemma4 --steps 10 --out l4.json > l4.txt
check "theorem lemma4 agrees (exit 0)" [ $? -eq 0 ]
check "theorem lemma4: exchanges at rounding, the control visible" \
  jq -e '.lemma4_change < 1e-5 and .lemma4_control > 1e-3' l4.json
# (not in the sanitized quick part: its solver runs under the sanitizers in
# the unit tests, and this check takes half a minute there)
if [ -z "$LINATTN_E2E_QUICK" ]; then
  "$bin" theorem --check optimum --steps 3 --out opt.json > opt.txt
  check "theorem optimum runs (exit 0 or 1)" [ $? -le 1 ]
  check "theorem optimum: L = 1's step size near n/(n+d+1) = 0.769" \
    jq -e '(.optimum1_step_sizes[0] - 0.769 | fabs) < 0.03 and (.optimum4_step_sizes | length) == 4' opt.json
  check "theorem optimum: paper B's numbers beside" grep -q "paper B: 0.375 0.530 0.905 2.167" opt.txt
fi
"$bin" theorem --check depth --steps 20 --out depth.json --svg depth.svg > depth.txt
check "theorem depth runs (exit 0 or 1)" [ $? -le 1 ]
check "theorem depth --svg: the figure and its numbers" sh -c \
  "svg_ok() { [ -s \"\$1\" ] && xmllint --noout \"\$1\"; }; svg_ok depth.svg && [ \$(grep -c . depth.csv) -eq 13 ]"
check "theorem depth: four depths; preconditioning helps GD at every k" \
  jq -e '(.depth_model | length) == 4 and ([range(4) as $k | .depth_pgd[$k] < .depth_gd[$k]] | all)' depth.json
# (context: depth's training and baselines at five n; not under the
# sanitizers, where depth has just run them)
if [ -z "$LINATTN_E2E_QUICK" ]; then
  "$bin" theorem --check context --steps 10 --out ctx.json > ctx.txt
  check "theorem context runs (exit 0 or 1)" [ $? -le 1 ]
  check "theorem context: five context lengths" \
    jq -e '(.context_n == [2, 3, 5, 10, 20]) and (.context_model | length) == 5' ctx.json
fi
"$bin" theorem --check theorem4 --steps 20 --out t4.json > t4.txt
check "theorem theorem4 runs (exit 0 or 1)" [ $? -le 1 ]
check "theorem theorem4: both cases' a_l and b_l" \
  jq -e '(.theorem4_iso_a | length) == 3 and (.theorem4_sigma_b | length) == 3' t4.json
# all five into one report (not in the quick part, run under the
# sanitizers: the five checks just ran there one by one)
if [ -z "$LINATTN_E2E_QUICK" ]; then
  "$bin" reproduce --paper b --steps 10 --seeds 2 --out-dir rb > rb.txt
  check "reproduce --paper b runs (exit 0 or 1)" [ $? -le 1 ]
  check "reproduce --paper b --seeds 2: depth and context over both" sh -c \
    "[ \$(grep -c 'the mean over 2 seeds' rb/report.md) -eq 2 ]"
  for f in depth context; do
    check "reproduce --paper b: $f.svg well-formed, in the report" sh -c \
      "xmllint --noout rb/$f.svg && grep -q '($f.svg)' rb/report.md"
  done
  check "reproduce --paper b: the figures' numbers" sh -c \
    "[ \$(grep -c '^\"trained linear transformer\",[1-4],' rb/depth.csv) -eq 4 ] && [ \$(grep -c '^\"least squares\",' rb/context.csv) -eq 5 ]"
  check "reproduce --paper b: one report with every check" sh -c \
    "grep -q '^Depth' rb/report.md && grep -q '^Context length' rb/report.md && grep -q '^Theorem 4' rb/report.md && grep -q '^Lemma 4' rb/report.md && grep -q '^Optimum' rb/report.md"
  check "reproduce --paper b: its numbers as JSON" jq -e '.depth_model and .optimum_loss' rb/paperb.json
fi

# ---------------------------------------------------------------- sweep, report
"$bin" sweep --lr 0.01,0.02 --seed 1..3 --opt sgd,adam --steps 30 --out-dir sw > cmds.txt
check "sweep: 12 commands" [ "$(wc -l < cmds.txt)" -eq 12 ]
check "sweep: printing creates nothing" [ ! -e sw ]
check "sweep: extra flags passed on" sh -c \
  "'$bin' sweep --seed 1 --opt adam -- --eval-every 5 | grep -q -- '--eval-every 5 '"
"$bin" sweep --lr 0.01,0.02 --seed 1..2 --opt adam --steps 30 --out-dir sw --jobs 2 -- --eval-every 10 > sweep.txt
check "sweep --jobs runs them" sh -c "[ \$(ls sw/*.jsonl | wc -l) -eq 4 ]"
check "sweep: outputs are JSON lines" sh -c 'for f in sw/*.jsonl; do jq -e . "$f" > /dev/null || exit 1; done'
"$bin" report sw/*.jsonl --out-dir rep > report.txt
check "report exits 0" [ $? -eq 0 ]
check "report: two configurations of two seeds" sh -c "grep -c '^| lr 0.0[12] | 2 | 30 |' rep/report.md | grep -qx 2"
check "report: loss.svg well-formed" svg_ok rep/loss.svg
check "report: the numbers beside each figure" sh -c "[ -s rep/loss.csv ] && head -1 rep/loss.csv | grep -q median"
# extreme values: eval losses from 1e-300 to 1e300, steps/s 1e308
jq -c 'if .type == "step" then .eval_loss = (if .step < 15 then 1e-300 else 1e300 end) elif .type == "summary" then .steps_per_second = 1e308 else . end' w0.jsonl > ext.jsonl
"$bin" report ext.jsonl --out-dir rep-ext > /dev/null
check "report of extreme values: a figure" svg_ok rep-ext/loss.svg
check "report of extreme values: finite coordinates" sh -c "! grep -qiwE 'nan|inf' rep-ext/loss.svg"
check "report of extreme values: steps/s as a number, not 309 digits" sh -c "grep -q '| 1e+308 |' rep-ext/report.md"
check "sweep and report: nothing left under a temporary name" no_tmp .

# ---------------------------------------------------------------- numbers out: npy, CSV
# a python3 with numpy reads the .npy files where there is one; else bytes
npy_py=
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import numpy' >/dev/null 2>&1; then npy_py=$p; break; fi
done
npy_shape() { head -c 128 "$1" | tail -c 118 | tr -d '\n' | sed -n "s/.*'shape': (\([0-9, ]*\)).*/\1/p"; }
"$bin" train --steps 25 --log-every 5 --save-theta th.npy --save-theta-every 10 --out th.jsonl
check "save-theta: a .npy of 4 rows of the step and 150 parameters" sh -c \
  "[ \"\$(head -c 6 th.npy | tail -c 5)\" = NUMPY ] && [ \"$(npy_shape th.npy)\" = '4, 151' ] &&
   [ \$(wc -c < th.npy) -eq $((128 + 4 * 151 * 8)) ]"
if [ -n "$npy_py" ]; then
  check "save-theta: numpy reads steps 0, 10, 20, 25" "$npy_py" -c \
    "import numpy as np; a = np.load('th.npy'); assert a.dtype == np.float64 and list(a[:, 0]) == [0, 10, 20, 25]"
fi
bad_input "save-theta-every without save-theta" "--save-theta" train --steps 5 --save-theta-every 2
bad_input "save-theta onto a FIFO" "not a regular file" train --steps 3 --save-theta fifo
mkdir -p killtheta
timeout -s KILL 1 "$bin" train --steps 1000000 --batch 100 --save-theta killtheta/k.npy \
  --save-theta-every 1 --out /dev/null 2>/dev/null
rows=$(npy_shape killtheta/k.npy | cut -d, -f1)
check "save-theta of a killed run: the rows it counts are all there" sh -c \
  "[ -n '$rows' ] && [ '$rows' -ge 1 ] && [ \$(wc -c < killtheta/k.npy) -ge $((128 + ${rows:-0} * 151 * 8)) ]"
if [ -n "$npy_py" ]; then
  check "save-theta of a killed run: numpy reads it" "$npy_py" -c \
    "import numpy as np; a = np.load('killtheta/k.npy'); assert len(a) >= 1 and list(a[:, 0]) == list(range(len(a)))"
fi
rm -rf killtheta
"$bin" noise --samples 60 --minibatch 200 --true-batch 4000 --bins 12 --out n1.json --samples-out s.npy
"$bin" noise --samples 60 --minibatch 200 --true-batch 4000 --bins 12 --out n2.json --samples-out s.csv
check "samples-out: a .npy of 60 samples" sh -c \
  "[ \"$(npy_shape s.npy)\" = '60,' ] && [ \$(wc -c < s.npy) -eq $((128 + 60 * 8)) ]"
check "samples-out: a CSV column of 60" sh -c "[ \"\$(head -n 1 s.csv)\" = norm ] && [ \$(wc -l < s.csv) -eq 61 ]"
check "samples-out: the histogram's samples (same JSON)" cmp n1.json n2.json
if [ -n "$npy_py" ]; then
  check "samples-out: .npy and CSV the same numbers" "$npy_py" -c \
    "import numpy as np; assert (np.load('s.npy') == np.loadtxt('s.csv', skiprows=1)).all()"
fi

# ---------------------------------------------------------------- export
"$bin" export run.jsonl all.jsonl noise.json curv.json --out-dir csv > export.txt
check "export exits 0" [ $? -eq 0 ]
check "export: 4 runs, 2 measurements" grep -q "^4 runs, 2 measurements" export.txt
check "export: configs.csv, a row each, run and type first" sh -c \
  "[ \$(wc -l < csv/configs.csv) -eq 7 ] && head -n 1 csv/configs.csv | grep -q '^run,source,type,preset,setting,'"
check "export: a run's CSV has a row per step line" sh -c \
  "[ \$(wc -l < csv/run.csv) -eq \$(jq -c 'select(.type == \"step\")' run.jsonl | wc -l | awk '{print \$1 + 1}') ] &&
   head -n 1 csv/run.csv | grep -q '^step,'"
check "export: the runs of one file are numbered" sh -c "[ -s csv/all.csv ] && [ -s csv/all-2.csv ] && [ -s csv/all-3.csv ]"
check "export: the noise histogram as columns" sh -c \
  "[ \"\$(head -n 1 csv/noise.csv)\" = hist,edges ] && [ \$(wc -l < csv/noise.csv) -eq 14 ]"
check "export: a summary's steps beside the config's" sh -c "head -n 1 csv/configs.csv | grep -q ',summary_steps,'"
check "export: the eval losses of the JSON lines" sh -c \
  "[ \"\$(jq -r 'select(.type == \"step\" and .eval_loss != null) | .eval_loss' run.jsonl | tr '\n' ' ')\" = \
     \"\$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if (\$i == \"eval_loss\") c = i; next } \$c != \"\" { print \$c }' csv/run.csv |
        while read x; do jq -n \"\$x\"; done | tr '\n' ' ')\" ]"
"$bin" export runsdir --out-dir csv-dir > /dev/null
check "export: a folder's runs" sh -c "[ \$(wc -l < csv-dir/configs.csv) -eq 3 ]"
bad_input "export without files" "export" export
bad_input "export of a bad file" "junk.jsonl" export junk.jsonl --out-dir csv-bad
check "export: nothing left under a temporary name" no_tmp .


# ---------------------------------------------------------------- files and exit statuses
# every status of the one table, by --help
for cmd in "" train report sweep; do
  check "--help ${cmd:-(top)}: the table of exit statuses" sh -c \
    "'$bin' $cmd --help | grep -q '^  3  a file could not be written or read' &&
     '$bin' $cmd --help | grep -q '^  4  out of memory'"
done
# exits with a status and one line on stderr that names the problem
status_is() { # status_is NAME STATUS EXPECTED-WORD ARGS...
  name=$1
  want=$2
  word=$3
  shift 3
  "$bin" "$@" > out.txt 2> err.txt
  rc=$?
  if [ $rc -eq "$want" ] && grep -q -- "$word" err.txt; then
    ok "exit $want: $name"
  else
    bad "exit $want: $name (exit $rc: $(cat err.txt))"
  fi
}
mkdir -p files && cd files || exit 1
"$bin" train --steps 5 --checkpoint c1.ckpt --out c1.jsonl
cp c1.ckpt c1.orig

# temporaries are created exclusively: a link planted at the name a save
# once used (PATH.tmp.PID, the PID kept through exec) is not followed
echo precious > victim
sh -c 'ln -s victim planted.jsonl.tmp.$$; ln -s victim planted.ckpt.tmp.$$;
  exec "$0" train --steps 3 --out planted.jsonl --checkpoint planted.ckpt' "$bin"
check "a link at a temporary's old name: followed by no save" sh -c \
  '[ "$(cat victim)" = precious ] && [ ! -L planted.jsonl ] && jq -e -s ".[-1].type == \"summary\"" planted.jsonl'
mkdir -p probed
sh -c 'ln -s ../victim probed/.probe.$$; exec "$0" report c1.jsonl --out-dir probed' "$bin" > /dev/null
check "a link at the folder probe's old name: not followed" sh -c '[ "$(cat victim)" = precious ]'
rm -f planted.* probed/.probe.*

# outputs that are one file, or a file the command reads: refused before
# anything is written
bad_input "--out and --checkpoint one file" "same file" train --steps 5 --out same.x --checkpoint same.x
check "  and nothing written" [ ! -e same.x ]
bad_input "--out over the checkpoint it resumes" "would destroy it" train --resume c1.ckpt --steps 8 --out c1.ckpt
check "  and the checkpoint intact" cmp c1.ckpt c1.orig
ln c1.ckpt hard.ckpt
ln -s c1.ckpt soft.ckpt
bad_input "--out a hard link of the checkpoint resumed" "would destroy it" train --resume c1.ckpt --steps 8 --out hard.ckpt
bad_input "--out a symbolic link of the checkpoint resumed" "would destroy it" train --resume c1.ckpt --steps 8 --out soft.ckpt
bad_input "--out and --checkpoint one file by two names" "same file" train --steps 5 --out ./x/../c9 --checkpoint c9
check "  and no folder made" [ ! -e x ]
bad_input "noise: --out over its --at" "would destroy it" noise --at c1.ckpt --out c1.ckpt
bad_input "curvature: --svg over its --at" "would destroy it" curvature --at c1.ckpt --svg soft.ckpt
bad_input "noise: --out and --svg one file" "same file" noise --out n.json --svg n.json
bad_input "noise: --out and --svg both standard output" "same file" noise --out - --svg -
bad_input "theorem: --out and --svg one file" "same file" theorem --out t.json --svg ./t.json
bad_input "--save-theta over the checkpoint it resumes" "would destroy it" train --resume c1.ckpt --steps 8 --save-theta c1.ckpt
bad_input "--save-theta and --out one file" "same file" train --steps 5 --out th.x --save-theta th.x
bad_input "--save-theta standard output" "not standard output" train --steps 5 --save-theta -
bad_input "noise: --samples-out and --out one file" "same file" noise --out n.json --samples-out ./n.json
check "  nothing written by any" sh -c 'cmp c1.ckpt c1.orig && [ ! -e n.json ] && [ ! -e t.json ] && [ ! -e th.x ]'
bad_input "report: an input among its outputs" "would destroy it" report rep1/report.md --out-dir rep1
"$bin" train --resume c1.ckpt --steps 8 --checkpoint c1.ckpt --out c1b.jsonl
check "a checkpoint resumed and saved again in place" sh -c \
  "[ $? -eq 0 ] && jq -e -s '.[-1].steps == 8' c1b.jsonl && ! cmp -s c1.ckpt c1.orig"
cp c1.orig c1.ckpt
"$bin" train --steps 5 --out c1.ckpt.args --checkpoint cc.ckpt
check "--out NAME.args beside --checkpoint NAME: both complete" sh -c \
  "jq -e -s '.[-1].type == \"summary\"' c1.ckpt.args && '$bin' noise --at cc.ckpt --samples 4 --minibatch 10 --true-batch 40 --out /dev/null"

# output paths checked before anything is made
bad_input "--out DIR/: a folder, and not made" "names a folder" train --steps 3 --out newdir/
check "  newdir/ not made" [ ! -e newdir ]
mkdir -p adir
bad_input "--out an existing folder" "names a folder" train --steps 3 --out adir
bad_input "--checkpoint a device" "not a regular file" train --steps 3 --checkpoint /dev/null
ln -s nowhere/x dangling.jsonl
bad_input "--out a link to nothing" "a link to nothing" train --steps 3 --out dangling.jsonl
echo old > target.jsonl
ln -s target.jsonl latest.jsonl
"$bin" train --steps 3 --out latest.jsonl
check "--out a link: written where it points, the link kept" sh -c \
  '[ -L latest.jsonl ] && jq -e -s ".[-1].type == \"summary\"" target.jsonl'

# a checkpoint that is not a regular file: refused at once, never read
mkfifo pipe.ckpt
check "--resume a FIFO: refused at once" sh -c \
  "timeout 10 '$bin' train --resume pipe.ckpt --steps 3 2> e.txt; [ \$? -eq 2 ] && grep -q 'not a regular file' e.txt"
check "noise --at a FIFO: refused at once" sh -c \
  "timeout 10 '$bin' noise --at pipe.ckpt 2> e.txt; [ \$? -eq 2 ] && grep -q 'not a regular file' e.txt"
check "curvature --at /dev/zero: refused at once" sh -c \
  "timeout 10 '$bin' curvature --at /dev/zero 2> e.txt; [ \$? -eq 2 ] && grep -q 'not a regular file' e.txt"
bad_input "--resume a folder" "is a folder, not a checkpoint" train --resume adir --steps 3
bad_input "--resume a missing file" "No such file" train --resume missing.ckpt --steps 3

# a path is quoted in every message: no control character reaches stderr
bad_input "a newline and an escape in a path: quoted" "\$'bad\\\\nname\\\\x1b" noise --at "$(printf 'bad\nname\033[2J')"
check "  not one raw control byte" sh -c "! tr -d '\n' < err.txt | grep -q \"\$(printf '[\001-\037]')\""
bad_input "sweep --out-dir with a newline: refused (no command line holds it)" "newline" \
  sweep --seed 1,2 --opt adam --out-dir "$(printf 'a\nb')"

# disk full (a file size limit: the program ignores SIGXFSZ itself, so
# writes past it fail as on a full disk), at the final save, at a periodic
# one, and in the output
full() { (ulimit -f 4; exec "$bin" "$@"); } # 4 blocks: 2 KB
full train --steps 3 --log-every 100 --out f1.jsonl --checkpoint f1.ckpt 2> f1.err
rc=$?
check "disk full at the final save: exit 3, why, and the run's JSON kept" sh -c \
  "[ $rc -eq 3 ] && grep -q 'f1.ckpt' f1.err && grep -q 'too large\|No space' f1.err &&
   jq -e -s '.[-1].checkpoint == \"not saved\" and .[-1].status == \"ok\"' f1.jsonl && [ ! -e f1.ckpt ]"
full train --steps 6 --checkpoint-every 2 --log-every 100 --out f2.jsonl --checkpoint f2.ckpt 2> f2.err
rc=$?
check "disk full at a periodic save: exit 3, the run stopped there" sh -c \
  "[ $rc -eq 3 ] && jq -e -s '.[-1].status == \"error\" and .[-1].steps == 2' f2.jsonl"
check "  no temporaries left" no_tmp .
"$bin" train --steps 3 --out /dev/full --checkpoint f3.ckpt 2> f3.err
rc=$?
check "the output fails after the checkpoint is saved: exit 3, named" sh -c \
  "[ $rc -eq 3 ] && grep -q \"cannot write '/dev/full': No space\" f3.err && [ -s f3.ckpt ]"
check "a failed write says no 'unknown status'" sh -c "! grep -q 'unknown' f1.err f2.err f3.err"

# the temporaries of killed runs: removed by the next write of the same
# output when their process is gone (this host's, this user's)
host=$(hostname 2>/dev/null | cut -d. -f1 | tr -cd 'A-Za-z0-9-' | cut -c1-32)
dead=$(sh -c 'echo $$')
stale="k.jsonl.tmp.${host:-host}.$dead.0123456789abcdef"
live="k.jsonl.tmp.${host:-host}.$$.0123456789abcdef"
other="k.jsonl.tmp.otherhost.$dead.0123456789abcdef"
echo x > "$stale"; echo x > "$live"; echo x > "$other"
"$bin" train --steps 3 --out k.jsonl
check "a dead process's temporary removed, a live one's and another host's kept" sh -c \
  "[ ! -e '$stale' ] && [ -e '$live' ] && [ -e '$other' ] && [ -s k.jsonl ]"
rm -f "$live" "$other"

# exit statuses of a sweep's runs: the largest
mkdir -p swx/opt=adam,seed=2.jsonl
"$bin" sweep --seed 1,2 --opt adam --steps 3 --out-dir swx --jobs 2 2> swx.err
rc=$?
check "sweep: a run with bad input (2) makes the sweep 2" sh -c "[ $rc -eq 2 ] && grep -q 'exit status 2' swx.err"
mkdir -p swy/opt=sgd,lr=1e5,momentum=0,clip=0,seed=2.jsonl
"$bin" sweep --seed 1,2 --opt sgd --lr 1e5 --steps 30 --out-dir swy --jobs 2 -- --momentum 0 --clip 0 2> swy.err
rc=$?
check "sweep: a diverged run (1) and a bad one (2): 2" sh -c "[ $rc -eq 2 ] && grep -q 'exit status 1' swy.err"

# out of memory: 4 in every subcommand (an address-space limit the
# program starts under; skipped under a sanitizer, which cannot)
if (ulimit -v 400000; "$bin" --version) > /dev/null 2>&1; then
  lowmem() { (ulimit -v 400000; exec "$bin" "$@"); }
  # (a model too large: a large batch of fresh prompts is drawn where the
  # gradient consumes it and stores nothing)
  lowmem train --steps 2 --d 256 --front 4096 --depth 8 > /dev/null 2> m1.err
  check "out of memory in train: 4" sh -c "[ $? -eq 4 ] && grep -q 'out of memory' m1.err"
  lowmem noise --samples 100000000 > /dev/null 2> m2.err
  check "out of memory in noise: 4" sh -c "[ $? -eq 4 ] && grep -q 'out of memory' m2.err"
  lowmem curvature --d 256 --front 4096 --depth 8 --dense > /dev/null 2> m3.err
  check "out of memory in curvature: 4" sh -c "[ $? -eq 4 ] && grep -q 'out of memory' m3.err"
  # a line of 20 million numbers (40 MB, a tree of 1 GB): bad input within
  # the limit of memory, not read into a tree
  { printf '{"type":"config","x":['; yes '0,' | head -n 20000000 | tr -d '\n'
    printf '0]}\n'; } > wide.jsonl
  lowmem report wide.jsonl --out-dir rep-wide > /dev/null 2> m4.err
  check "report of a line of 20 million members: bad input, in bounded memory" sh -c \
    "[ $? -eq 2 ] && grep -q 'more members' m4.err"
  rm -f wide.jsonl
else
  echo "skip out of memory: the program cannot start under an address-space limit"
fi

# report: JSON numbers strictly (no hexadecimal), integers only when whole
# and in range, and a last line cut short
head -c $(($(wc -c < c1.jsonl) - 30)) c1.jsonl > cut.jsonl
"$bin" report cut.jsonl --out-dir rep-cut > /dev/null 2> cut.err
rc=$?
check "report of a file cut mid-line: bad input, line named" sh -c "[ $rc -eq 2 ] && grep -q \"cut.jsonl' line\" cut.err"
sed 's/"steps":5/"steps":0x10/' c1.jsonl > hex.jsonl
bad_input "report: a hexadecimal number is not JSON" "bad number" report hex.jsonl --out-dir rep-hex
for v in null 1e300 -5 2.5 '"x"' 1e400; do
  sed "s/\"steps\":5,\"diverged/\"steps\":$v,\"diverged/" c1.jsonl > v.jsonl
  "$bin" report v.jsonl --out-dir rep-v > /dev/null 2>&1
  check "report: steps $v in a summary is no number of steps" sh -c \
    "[ $? -eq 0 ] && grep -q '^| all runs | 1 | 0 |' rep-v/report.md"
done

# extreme values: every coordinate of a figure a number of a few digits
# (no NaN, no Inf, none of hundreds of digits), the curves drawn, and no
# number of hundreds of digits in report.md
svg_coords() { # svg_coords FILE: well-formed, something drawn, coordinates numeric
  svg_ok "$1" && grep -q '<polyline' "$1" &&
    ! grep -oE ' (points|x|y|x1|y1|x2|y2|cx|cy|r|width|height)="[^"]*"' "$1" |
      grep -qvE '="[-0-9., %]*"' &&
    ! grep -oE ' (points|x|y|x1|y1|x2|y2|cx|cy|r|width|height)="[^"]*"' "$1" |
      grep -qE '[0-9]{8}'
}
"$bin" train --d 3 --n 5 --batch 16 --eval-batch 16 --eval-every 2 --steps 8 \
  --out ext0.jsonl 2> /dev/null
awk '{ if (match($0, /"eval_loss":[^,}]*/)) { v = (n++ % 2) ? "1e300" : "1e-300"
       sub(/"eval_loss":[^,}]*/, "\"eval_loss\":" v) } print }' ext0.jsonl > ext1.jsonl
awk '{ if (match($0, /"eval_loss":[^,}]*/)) { v = (n++ % 2) ? "1e-300" : "1e300"
       sub(/"eval_loss":[^,}]*/, "\"eval_loss\":" v) } print }' ext0.jsonl |
  sed 's/"steps_per_second":[^,}]*/"steps_per_second":1e308/' > ext2.jsonl
"$bin" report ext1.jsonl --out-dir rep-ext1 > /dev/null 2>&1
check "report: eval losses 1e-300 and 1e300 drawn at numeric coordinates" svg_coords rep-ext1/loss.svg
"$bin" report ext1.jsonl ext2.jsonl --out-dir rep-ext > /dev/null 2>&1
check "report: two runs of such losses, their band drawn" svg_coords rep-ext/loss.svg
check "report: steps/s of 1e308, no number of 309 digits" sh -c \
  "grep -q '^| all runs | 2 |' rep-ext/report.md && ! grep -qE '[0-9]{13}' rep-ext/report.md"
# paper A's phenomena under linear and softmax attention, side by side
"$bin" reproduce --compare-attention --steps 30 --seeds 1 --samples 20 --true-batch 500 \
  --minibatch 50 --bins 5 --diag-every 0 --smooth-every 5 --batch 100 --eval-batch 100 \
  --out-dir rcmp > rcmp.txt
check "reproduce --compare-attention runs (exit 0 or 1)" [ $? -le 1 ]
check "reproduce --compare-attention: both studies in every table" sh -c \
  "[ \$(grep -c '^| \\[Setting 1, linear attention\\]\\|^| \\[Setting 1, softmax attention\\]' rcmp/report.md) -eq 2 ] && [ \$(grep -c '^| Setting 1, softmax attention |' rcmp/report.md) -ge 2 ]"
check "reproduce --compare-attention: the figure and its numbers" sh -c \
  "svg_ok() { [ -s \"\$1\" ] && xmllint --noout \"\$1\"; }; svg_ok rcmp/attention.svg && [ \$(grep -c . rcmp/attention.csv) -gt 10 ]"
check "reproduce --compare-attention: softmax's learning rates tuned" \
  grep -q 'softmax attention.*(tuned)' rcmp/report.md
check "reproduce --compare-attention: paper A's R beside linear only" sh -c \
  "grep 'linear attention |' rcmp/report.md | grep -q '1.76 (0.4)' && ! grep 'softmax attention |' rcmp/report.md | grep -q '1.76 (0.4)'"
bad_input "theorem --seeds where one seed runs" "--seeds" theorem --check lemma4 --seeds 2
bad_input "theorem --seeds for paper A's checks" "--seeds" theorem --check theorem1 --seeds 2
bad_input "reproduce --compare-attention with --attention" "--compare-attention" \
  reproduce --compare-attention --attention relu
bad_input "reproduce --compare-attention with --all" "--compare-attention" \
  reproduce --compare-attention --all
bad_input "reproduce --paper b with --plan" "--plan" reproduce --paper b --plan pb-plan
bad_input "reproduce --data given: a study draws its prompts" "--data-file" reproduce --data given
# the noise against its reference, the norm of Gaussian noise of the
# measured covariance: the share above its 99th percentile with its error
"$bin" noise --samples 2000 --out noise-ref.json 2> /dev/null
check "noise: the Gaussian reference's tail test" jq -e \
  '.tail_share >= 0 and .tail_share <= 1 and .gauss_ref_q99 > 0 and .gauss_ref_kurtosis > 1 and
   (.tail_share_se - (0.0099 * (1 / 2000 + 1 / 20000) | sqrt) | fabs) < 1e-12 and
   (.tail_heavy == (if .tail_share > 0.01 + 3 * .tail_share_se then 1 else 0 end))' noise-ref.json
# the help says what the program does: --full's seeds, sweep's optimizers
check "reproduce --help: --full's 12 seeds, the quick form's 6" sh -c \
  "'$bin' reproduce --help | grep -q '12 seeds' && '$bin' reproduce --help | grep -q 'default 6'"
check "sweep --help: both optimizers an axis by default" sh -c \
  "'$bin' sweep --help | grep -q 'default: sgd,adam' &&
   [ \$('$bin' sweep --lr 0.01,0.02 --seed 1..6 | wc -l) -eq 24 ]"
# paper B's depth and context as plans: each unit (a depth or context
# length, a seed) one command, run by xargs or sh, merged by --from: stdout,
# --out's JSON and --svg's figure and numbers byte for byte the local run's
for ck in "depth --steps 20" "context --steps 10"; do
  c=${ck%% *}
  # shellcheck disable=SC2086
  "$bin" theorem --check $ck --seeds 2 --out "th-$c.json" --svg "th-$c.svg" > "th-$c.txt" 2> /dev/null
  # shellcheck disable=SC2086
  "$bin" theorem --check $ck --seeds 2 --plan "th-$c-plan" --out "th-$c-from.json" \
    --svg "th-$c-from.svg" > "th-$c-plan.txt" 2>&1
  check "theorem $c --plan: a command a unit (2 seeds), how to run them" sh -c \
    "[ \$(grep -c ' --unit ' th-$c-plan/plan/stage-1.txt) -eq \$(grep -c . th-$c-plan/plan/stage-1.txt) ] &&
     [ \$(grep -c ' --seed 2 ' th-$c-plan/plan/stage-1.txt) -ge 4 ] && grep -q 'theorem --from' th-$c-plan.txt"
  if [ "$c" = depth ]; then
    xargs -d '\n' -P 2 -n 1 sh -c < "th-$c-plan/plan/stage-1.txt" > /dev/null 2>&1
  else
    sh "th-$c-plan/plan/stage-1.txt" > /dev/null 2>&1
  fi
  "$bin" theorem --from "th-$c-plan" --out "th-$c-from.json" --svg "th-$c-from.svg" \
    > "th-$c-from.txt" 2> /dev/null
  check "theorem $c: --plan, the units, --from: the local run's stdout, JSON, SVG and CSV" sh -c \
    "[ -s th-$c.txt ] && cmp th-$c.txt th-$c-from.txt && cmp th-$c.json th-$c-from.json &&
     cmp th-$c.svg th-$c-from.svg && cmp th-$c.csv th-$c-from.csv"
done
# a unit's output missing: the merge names the command that redoes it
redo=$(sed -n 3p th-depth-plan/plan/stage-1.txt)
rm -f th-depth-plan/runs/depth-L3-seed1.json
"$bin" theorem --from th-depth-plan > th-miss.txt 2> th-miss.err
check "theorem --from with a unit missing: exit 1, its command named, nothing printed" sh -c \
  "[ $? -eq 1 ] && [ ! -s th-miss.txt ] && grep -qxF -- \"$redo\" th-miss.err && [ \$(grep -c ' --unit ' th-miss.err) -eq 1 ]"
sh -c "$redo" > /dev/null 2>&1
"$bin" theorem --from th-depth-plan > th-redo.txt 2> /dev/null
check "theorem --from after the named command: the local run's text" cmp th-depth.txt th-redo.txt
bad_input "theorem --plan for a check that trains in one process" "depth and context" \
  theorem --check lemma4 --plan th-l4-plan
bad_input "theorem --from for a check that trains in one process" "depth and context" \
  theorem --check theorem1 --from th-depth-plan
bad_input "theorem --from with flags other than the plan's" "--seeds 3" \
  theorem --check depth --seeds 3 --from th-depth-plan
bad_input "theorem --unit: a depth the check has not" "1 to 4" \
  theorem --check depth --unit 7 --out th-u.json
# a study as a plan: its two stages (the grid, then the seeds) run by xargs,
# merged by --from: the report, figures and CSV byte for byte the local run's
pf="--depth 2 --steps 30 --seeds 1 --batch 50 --eval-batch 100 --diag-every 0
  --smooth-every 10 --diag-batch 100 --samples 30 --minibatch 100 --true-batch 1000 --bins 10"
# shellcheck disable=SC2086
"$bin" reproduce $pf --out-dir plan-here > /dev/null 2>&1
# shellcheck disable=SC2086
"$bin" reproduce $pf --plan plan-xargs > /dev/null 2>&1
"$bin" reproduce --from plan-xargs > plan-early.txt 2> plan-early.err
check "reproduce --from before the runs: exit 1, each missing run's command named" sh -c \
  "[ $? -eq 1 ] && [ \$(grep -c ' train ' plan-early.err) -eq \$(grep -c . plan-xargs/plan/stage-1.txt) ]"
for k in 1 2; do
  xargs -d '\n' -P 2 -n 1 sh -c < plan-xargs/plan/stage-$k.txt > /dev/null 2>&1
  "$bin" reproduce --from plan-xargs > /dev/null 2>&1
done
check "reproduce --plan, xargs, --from: the local run's report, figures and CSV" sh -c \
  "[ -s plan-xargs/report.md ] && diff -r -x runs -x tune -x plan -x noise.json plan-here plan-xargs"
# the optimizers' study: a row per optimizer with every column, the CSV
# behind the table and the figures, and its three stages (the grid, the
# seeds, the noise at each end) as a plan merged byte for byte
of="--optimizers sgd,adam,lion --steps 1250 --seeds 2 --batch 50 --eval-batch 100
  --diag-every 250 --smooth-every 25 --diag-batch 100 --diag-batches 1 --samples 30
  --minibatch 100 --true-batch 1000 --bins 10"
# shellcheck disable=SC2086
"$bin" reproduce $of --out-dir opt-here > opt-here.txt 2> /dev/null
check "reproduce --optimizers exits 0, its table printed" sh -c \
  "[ $? -eq 0 ] && [ \$(grep -c '^| \\(sgd\\|adam\\|lion\\) |' opt-here.txt) -eq 3 ]"
check "reproduce --optimizers: a row per optimizer, 16 columns, R measured at 750 and 1250" sh -c \
  "for o in sgd adam lion; do grep \"^| \$o |\" opt-here/report.md | awk -F'|' '{ exit !(NF == 18 && \$5 + 0 > 0 && \$6 + 0 > 0 && \$16 + 0 > 0 && \$17 + 0 > 0) }' || exit 1; done"
check "reproduce --optimizers: R over SGD's is 1 for SGD, over Adam's 1 for Adam" sh -c \
  "grep '^| sgd |' opt-here/report.md | awk -F'|' '{ exit !(\$7 == \" 1 \" && \$8 == \" 1 \") }' &&
   grep '^| adam |' opt-here/report.md | awk -F'|' '{ exit !(\$9 == \" 1 \" && \$10 == \" 1 \") }'"
check "reproduce --optimizers: table.csv, seeds.csv and tune.csv, their columns and rows" sh -c \
  "head -1 opt-here/table.csv | grep -q '^optimizer,lr,lr_grid_index,seeds,final_eval,final_eval_sd,R_750,.*,R_over_sgd_750,.*,R_over_adam_1250,.*,loglog_corr_smoothness_gradnorm,.*,block_js_mean_1250,block_js_mean_1250_sd,noise_kurtosis,noise_hill_alpha\$' &&
   [ \$(grep -c '^\\(sgd\\|adam\\|lion\\),' opt-here/table.csv) -eq 3 ] &&
   [ \$(grep -c ',ok,' opt-here/seeds.csv) -eq 6 ] && [ \$(grep -c ',1\$' opt-here/tune.csv) -eq 3 ]"
for f in rcond loss block_js_mean; do
  check "reproduce --optimizers: $f.svg well-formed, $f.csv a curve per optimizer" sh -c \
    "svg_ok() { [ -s \"\$1\" ] && xmllint --noout \"\$1\" && grep -q '<svg' \"\$1\"; }; svg_ok opt-here/$f.svg &&
     head -1 opt-here/$f.csv | grep -q '^curve,step,' &&
     [ \$(cut -d, -f1 opt-here/$f.csv | sed 1d | sort -u | wc -l) -eq 3 ]"
done
# shellcheck disable=SC2086
"$bin" reproduce $of --plan opt-plan > /dev/null 2>&1
for k in 1 2 3; do
  [ -f opt-plan/plan/stage-$k.txt ] &&
    xargs -d '\n' -P 2 -n 1 sh -c < opt-plan/plan/stage-$k.txt > /dev/null 2>&1
  "$bin" reproduce --from opt-plan > opt-from.txt 2> /dev/null
done
check "reproduce --optimizers --plan, three stages, --from: the local run's report, figures and CSV" sh -c \
  "[ -s opt-plan/report.md ] && [ -f opt-plan/plan/stage-3.txt ] && diff -r -x runs -x tune -x plan -x noise opt-here opt-plan &&
   diff opt-here.txt opt-from.txt | grep -c '^[<>]' | grep -qx 2"
bad_input "reproduce --optimizers: a name not in the registry" "registry" \
  reproduce --optimizers sgd,nosuch --out-dir opt-bad
bad_input "reproduce --optimizers: a closure optimizer" "closure" \
  reproduce --optimizers lbfgs --out-dir opt-bad
bad_input "reproduce --optimizers: a name twice" "twice" \
  reproduce --optimizers adam,adam --out-dir opt-bad
bad_input "reproduce --optimizers with --all" "--all" reproduce --optimizers all --all --out-dir opt-bad
# a reproduce that fails leaves no report of earlier runs beside its own
mkdir -p rf/runs/sgd-seed1.jsonl && echo earlier > rf/report.md && echo earlier > rf/loss.svg
"$bin" reproduce --steps 2 --seeds 1 --samples 10 --true-batch 100 --minibatch 10 --bins 3 \
  --jobs 1 --out-dir rf > /dev/null 2>&1
check "reproduce with a failed run (1): its own report, none of the earlier files" sh -c \
  "[ $? -eq 1 ] && ! grep -q earlier rf/report.md rf/loss.svg && grep -q 'did not complete\\|failed' rf/report.md && [ -s rf/runs/adam-seed1.jsonl ]"
"$bin" curvature --d 1 --n 1 --depth 1 --param pgd --diag-batch 1 --svg cdeg.svg \
  --out cdeg.json > /dev/null 2>&1
check "curvature of one parameter (one eigenvalue): its spectrum drawn" svg_coords cdeg.svg
cd .. || exit 1

# ---------------------------------------------------------------- R's median
# torch.median's lower middle value by default (paper A's code), the
# midpoint asked for; at initialization the two differ by an order of
# magnitude (the P blocks' entries against the Q blocks')
"$bin" train --steps 0 --diag-every 1 --out med-lo.jsonl 2> /dev/null
"$bin" train --steps 0 --diag-every 1 --median mid --out med-mid.jsonl 2> /dev/null
check "train --median: lower by default, named in the config line" sh -c \
  "grep -q '\"median\":\"lower\"' med-lo.jsonl && grep -q '\"median\":\"mid\"' med-mid.jsonl"
check "train --median: R at initialization, lower median over ten times the midpoint's" sh -c \
  "lo=\$(jq -r 'select(.type==\"step\") | .rcond_diag' med-lo.jsonl); mid=\$(jq -r 'select(.type==\"step\") | .rcond_diag' med-mid.jsonl); awk -v a=\$lo -v b=\$mid 'BEGIN { exit !(a > 10 * b && b > 1) }'"
bad_input "train --median x names both values" "lower, mid" train --median x
"$bin" train --steps 4 --diag-every 2 --diag-batches 3 --out med-3.jsonl 2> /dev/null
check "train --diag-batches 3: R the median of three batches, with their range" sh -c \
  "jq -se '[.[] | select(.type==\"step\" and .rcond_diag != null) | .rcond_diag_min <= .rcond_diag and .rcond_diag <= .rcond_diag_max and .rcond_diag_min < .rcond_diag_max] | length == 3 and all' med-3.jsonl > /dev/null"
"$bin" train --steps 10 --blocks-every 5 --diag-batch 100 --out blk.jsonl 2> /dev/null
check "train --blocks-every 5: block_js_mean and block_js_max at steps 0, 5, 10, within [0, 1]" sh -c \
  "jq -se '[.[] | select(.type==\"step\" and .block_js_mean != null) | select(0 < .block_js_mean and .block_js_mean <= .block_js_max and .block_js_max <= 1) | .step] == [0, 5, 10]' blk.jsonl > /dev/null"
"$bin" export blk.jsonl --out-dir blk-csv > /dev/null 2>&1
check "export: block_js_mean and block_js_max columns" sh -c "head -1 blk-csv/blk.csv | grep -q ',block_js_mean,block_js_max'"
# a report's labels name what each run's optimizer reads
"$bin" sweep --opt sgd,adam --steps 5 --jobs 1 --out-dir swopt > /dev/null 2>&1
"$bin" report swopt --out-dir swopt/rep > /dev/null 2>&1
check "report: no momentum on Adam's label, no beta on SGD's" sh -c \
  "grep -q '^| opt adam, beta1' swopt/rep/report.md && ! grep '^| opt adam' swopt/rep/report.md | grep -q momentum &&
   grep -q '^| opt sgd, momentum' swopt/rep/report.md && ! grep '^| opt sgd' swopt/rep/report.md | grep -q beta"

if [ -z "$LINATTN_E2E_QUICK" ]; then
  # ------------------------------------------------------------ reproduce
  "$bin" reproduce --steps 1250 --seeds 2 --smooth-every 25 --samples 200 \
    --true-batch 5000 --bins 20 --out-dir repro > repro.txt
  check "reproduce exits 0" [ $? -eq 0 ]
  for f in loss noise rcond smoothness gnorm_smoothness; do
    check "reproduce: $f.svg well-formed" svg_ok repro/$f.svg
  done
  check "reproduce: 4 runs, JSON lines" sh -c 'ls repro/runs/*.jsonl | wc -l | grep -qx 4 && for f in repro/runs/*.jsonl; do jq -e . "$f" >/dev/null || exit 1; done'
  check "reproduce: R table at 750 and 1250" sh -c \
    "grep -E '^\| 750 \| [0-9.e+-]+ \[' repro/report.md && grep -E '^\| 1250 \| [0-9.e+-]+ \[' repro/report.md"
  check "reproduce: table printed" grep -q "R_SGD / R_Adam" repro.txt
  check "reproduce: the rule of the verdicts stated" grep -q "How a claim is judged" repro/report.md
  check "reproduce: seeds counted in each claim" grep -q "R_SGD > R_Adam at 750 | [0-9] of 2 seeds" repro/report.md
  for f in loss noise rcond smoothness gnorm_smoothness; do
    check "reproduce: $f.csv beside $f.svg" sh -c "[ \$(grep -c . repro/$f.csv) -gt 1 ]"
  done
  check "reproduce: the numbers of each seed" sh -c "[ \$(grep -c . repro/seeds.csv) -eq 3 ]"
  check "reproduce: R's median named as paper A's code takes it, R at initialization" sh -c \
    "grep -q 'as torch.median takes it' repro/report.md && grep -q 'At initialization R is' repro/report.md"
  check "reproduce: R over 3 Hessian batches, how much one batch decides it" sh -c \
    "grep -q 'R is the median over 3 such batches' repro/report.md && grep -q '^| iteration | SGD | Adam |' repro/report.md"
  check "reproduce: nothing left under a temporary name" no_tmp repro
  # runs that diverge: counted in a report that is still written, exit 1
  "$bin" reproduce --steps 200 --seeds 2 --lr-sgd 1e5 --smooth-every 0 --diag-every 0 \
    --samples 50 --true-batch 2000 --bins 10 --out-dir repro-div > repro-div.txt 2> repro-div.err
  rc=$?
  check "reproduce with diverging runs exits 1" [ $rc -eq 1 ]
  check "reproduce with diverging runs: the report counts them" grep -q "2 of 4 diverged" repro-div/report.md
  check "reproduce with diverging runs: SGD's curve drawn to where it ended" grep -q 'diverged here' repro-div/loss.csv
  check "reproduce with diverging runs: each one's step and cause" sh -c \
    "grep -q '^| 1 | SGD | [0-9]* | most prompts overflow' repro-div/report.md && grep -q '^| 2 | SGD |' repro-div/report.md"
  check "train: a diverged run's cause in its summary" sh -c \
    "jq -e 'select(.type == \"summary\") | .diverged_cause == \"theta\" and .diverged_prompts == .diverged_batch' repro-div/runs/*sgd*1*.jsonl"
  check "reproduce with diverging runs: loss.svg well-formed" svg_ok repro-div/loss.svg
  # a depth other than 3: learning rates from a grid, the tuning in the report
  "$bin" reproduce --depth 2 --steps 200 --seeds 1 --smooth-every 0 --diag-every 0 \
    --samples 50 --true-batch 2000 --bins 10 --out-dir repro-tune > /dev/null 2>&1
  check "reproduce --depth 2: tuned on a grid of 10 per optimizer" sh -c \
    "[ \$(grep -c '^sgd,' repro-tune/tune.csv) -eq 10 ] && [ \$(grep -c '^adam,' repro-tune/tune.csv) -eq 10 ] && grep -q '(tuned)' repro-tune/report.md"
  bad_input "reproduce --all with a setting" "--all" reproduce --all --setting 2
  # --all in a tiny form (30 steps, small batches): every study, one report
  "$bin" reproduce --all --steps 30 --seeds 2 --batch 50 --eval-batch 100 --diag-every 0 \
    --smooth-every 10 --diag-batch 100 --samples 30 --minibatch 100 --true-batch 1000 \
    --bins 10 --out-dir all > all.txt 2> all.err
  rc=$?
  check "reproduce --all exits 0" [ $rc -eq 0 ]
  check "reproduce --all: ten studies, each with its report" sh -c \
    'for s in setting-1 setting-2 setting-3 sphere nonlinear depth-2 depth-4 depth-6 depth-8 large; do
       [ -s all/$s/report.md ] && grep -q "($s/report.md)" all/report.md || exit 1; done'
  check "reproduce --all: paper A's R_SGD / R_Adam beside each setting" sh -c \
    "grep -q '| 1.76 (0.4) |' all/report.md && grep -q '| 5.98 (2.86) |' all/report.md && grep -q '| 9.57 (13.3) |' all/report.md"
  check "reproduce --all: the verdict rule stated" grep -q "How a claim is judged" all/report.md
  check "reproduce --all: the depth figure" svg_ok all/depth.svg
  check "reproduce --all: the depth figure's numbers at L = 2, 4, 6, 8" sh -c \
    "[ \"\$(grep '^final_eval_sgd,' all/depth.csv | cut -d, -f2 | tr '\n' ' ')\" = '2 4 6 8 ' ]"
  check "reproduce --all: heavy-tailed against spherical" svg_ok all/tails.svg
  check "reproduce --all: a CSV beside every figure" sh -c \
    'for f in $(find all -name "*.svg"); do [ -s "${f%.svg}.csv" ] || exit 1; done'
  check "reproduce --all: every SVG well-formed, finite coordinates" sh -c \
    'for f in $(find all -name "*.svg"); do xmllint --noout "$f" && ! grep -qiwE "nan|inf" "$f" || exit 1; done'
  check "reproduce --all: the numbers of every table" sh -c "[ \$(grep -c . all/summary.csv) -gt 10 ]"
  check "reproduce --all: nothing left under a temporary name" no_tmp all
  # every CSV a study writes names every column: each row as many fields as
  # its header (a quoted field one), and no header field empty or a C
  # library's "(null)"
  check "reproduce: every CSV's header names every column" sh -c \
    'n=0; for f in $(find all repro repro-tune repro-div -name "*.csv"); do n=$((n+1))
       sed "s/\"[^\"]*\"/q/g" "$f" | awk -F, "NR == 1 { h = NF; for (i = 1; i <= NF; i++) if (\$i == \"\" || \$i ~ /null/) exit 1 }
                NF != h { exit 1 }" || { echo "$f" >&2; exit 1; }; done; [ $n -gt 20 ]'
  check "reproduce: seeds.csv's columns counted" sh -c \
    "[ \$(head -1 all/setting-1/seeds.csv | tr , '\\n' | grep -c .) -eq 24 ]"
  # paper A's measurement: torch.median's median, one set of Hessian batches
  # for every run of a study, its range over them
  check "reproduce --all: every run of a study on the same Hessian batches" sh -c \
    "[ \$(cat all/setting-1/runs/*.jsonl | grep -o '\"diag_seed\":[0-9]*' | sort -u | wc -l) -eq 1 ]"
  check "reproduce --all: the differences from paper A's code stated" \
    grep -q "Otherwise than paper A's code" all/setting-1/report.md
  # the deep studies in double by default, said where their numbers are
  check "reproduce --all: depth 8 runs in double, depth 4 in the program's reals" sh -c \
    "grep -q '\"precision\":\"double\"' all/depth-8/runs/sgd-seed1.jsonl &&
     grep -q 'Backend [a-z0-9]*, double' all/depth-8/report.md &&
     grep -q 'runs are in double' all/depth-8/report.md"
  # and skip a step that overflows there, up to 10 a run, said in the report
  check "reproduce --all: depth 8 skips an overflowing step, depth 4 does not" sh -c \
    "grep -q '\"skip_overflow\":10' all/depth-8/runs/sgd-seed1.jsonl &&
     grep -q '\"skip_overflow\":0' all/depth-4/runs/sgd-seed1.jsonl &&
     grep -q 'whose loss or gradient overflows is skipped' all/depth-8/report.md &&
     ! grep -q 'overflows is skipped' all/depth-4/report.md"
  check "reproduce --all: the gradient-norm figure's bound has L0, L1 >= 0" sh -c \
    "grep '^bound of each bin' all/setting-1/gnorm_smoothness.csv | awk -F, '{ exit !(\$4 >= 0 && \$5 >= 0) }'"
  mkdir -p lone && cp "$bin" lone/linattn
  keep=$bin
  bin=lone/linattn
  bad_input "reproduce at depth 8 without linattn-double beside the program" \
    "linattn-double" reproduce --depth 8 --out-dir lone-out
  bin=$keep
  check "... nothing made" [ ! -e lone-out ]

  # ------------------------------------------------------------ progress on a terminal
  if command -v script >/dev/null 2>&1; then
    script -qec "'$bin' train --steps 400 --out tty.jsonl" /dev/null > tty.txt 2>&1
    check "progress line on a terminal" grep -q "steps/s" tty.txt
  fi
  "$bin" theorem --check theorem5 --steps 1500 > thm5.txt
  check "theorem theorem5 agrees (exit 0)" [ $? -eq 0 ]
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
