#!/bin/sh
# The seed corpus of tests/fuzz/fuzz_report.c: real output of `linattn
# train` in the shapes `report` meets. usage: gen_report_corpus.sh LINATTN DIR
bin=$1
dir=$2
set -e
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one run with every measurement: eval loss, rcond, smoothness
"$bin" train --steps 20 --log-every 5 --eval-every 5 --diag-every 10 --smooth-every 5 \
  --diag-batch 50 --out "$dir/measured.jsonl"
# a run that diverges
"$bin" train --opt sgd --lr 1e5 --momentum 0 --clip 0 --steps 10 --log-every 2 \
  --out "$dir/diverged.jsonl" || true
# two seeds of two configurations in one file
for opt in sgd adam; do
  for seed in 1 2; do
    "$bin" train --opt $opt --seed $seed --steps 6 --log-every 3 --eval-every 3 --out "$tmp/$opt$seed.jsonl"
  done
done
cat "$tmp/sgd1.jsonl" "$tmp/adam1.jsonl" "$tmp/sgd2.jsonl" "$tmp/adam2.jsonl" > "$dir/two-configs.jsonl"
# a resumed run: its config line says where it resumed
"$bin" train --steps 6 --checkpoint "$tmp/c.ckpt" --out /dev/null
"$bin" train --resume "$tmp/c.ckpt" --steps 12 --log-every 3 --out "$dir/resumed.jsonl"
# nine configurations: more than the figures show
for lr in 1 2 3 4 5 6 7 8 9; do
  "$bin" train --lr 0.00$lr --steps 2 --log-every 1 --eval-every 1 --out "$tmp/lr$lr.jsonl"
done
cat "$tmp"/lr*.jsonl > "$dir/nine-configs.jsonl"
# a run killed before its summary, and one cut in the middle of a line
sed '$d' "$dir/measured.jsonl" > "$dir/no-summary.jsonl"
head -c 1500 "$dir/measured.jsonl" > "$dir/cut-mid-line.jsonl"
# extreme values: two seeds whose eval losses alternate between 1e-300 and
# 1e300, and a steps/s of 1e308
"$bin" train --seed 1 --steps 8 --eval-every 2 --out "$tmp/x1.jsonl"
"$bin" train --seed 2 --steps 8 --eval-every 2 --out "$tmp/x2.jsonl"
extreme() { # extreme FIRST SECOND FILE
  awk -v a="$1" -v b="$2" '{ if (match($0, /"eval_loss":[^,}]*/)) {
      v = (n++ % 2) ? b : a; sub(/"eval_loss":[^,}]*/, "\"eval_loss\":" v) }
    sub(/"steps_per_second":[^,}]*/, "\"steps_per_second\":1e308"); print }' "$3"
}
{ extreme 1e-300 1e300 "$tmp/x1.jsonl"; extreme 1e300 1e-300 "$tmp/x2.jsonl"; } > "$dir/extreme.jsonl"
