#!/bin/sh
# Merged against separate keys and queries from a small initialization:
#   kq_staircase.sh LINATTN OUTDIR [STEPS] [SEEDS]
# One layer on paper B's data (Sigma with eigenvalues 1, 1/4 and 1/16, so
# that directions are learned at different speeds), plain gradient descent
# (SGD without momentum, no clipping, 1000 fresh prompts a step) from
# init_std 0.001. The merged Q = A starts with a gradient and its loss falls
# at once and smoothly; Q = W_K^T W_Q (rank 5) starts at a saddle, and its
# loss falls in steps separated by plateaus, a direction at a time (the
# saddle-to-saddle dynamics of separate keys and queries). OUTDIR gets every
# run's JSON lines, report.md and loss.svg (linattn report), and curves.csv:
# the evaluation loss of both forms, median over the seeds, every 100 steps.
set -eu
bin=$1
out=$2
steps=${3:-6000}
seeds=${4:-3}
mkdir -p "$out"
common="--setting paper-b --depth 1 --init-std 0.001 --opt sgd --momentum 0
  --lr 0.05 --clip 0 --eval-every 100 --batch 1000 --threads 1"
s=1
while [ "$s" -le "$seeds" ]; do
  for r in 0 5; do
    # shellcheck disable=SC2086
    "$bin" train $common --qk-rank $r --steps "$steps" --seed $s \
      --out "$out/qk$r-seed$s.jsonl" 2> "$out/qk$r-seed$s.err" &
  done
  wait
  s=$((s + 1))
done
"$bin" report "$out"/qk*-seed*.jsonl --out-dir "$out" > /dev/null

# curves.csv: step, then the median over seeds of each form's eval loss
for r in 0 5; do
  for f in "$out"/qk$r-seed*.jsonl; do
    sed -n 's/.*"step":\([0-9]*\).*"eval_loss":\([0-9.eE+-]*\).*/\1 \2/p' "$f"
  done | sort -n -k1,1 -k2,2g | awk -v r=$r '
    function flush() { if (n) printf "%s %s %.6g\n", r, step, (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) }
    !have || $1 != step { flush(); step = $1; n = 0; have = 1 }
    { v[++n] = $2 }
    END { flush() }'
done | awk '
  { loss[$2, $1] = $3; if (!($2 in seen)) { seen[$2] = 1; steps[++m] = $2 } }
  END {
    print "step,merged,separate"
    for (i = 1; i <= m; ++i) printf "%s,%s,%s\n", steps[i], loss[steps[i], 0], loss[steps[i], 5]
  }' > "$out/curves.csv"

# the plateaus: steps where the separate form's loss hardly moves for 300
# steps while above its final value by 20%, against the merged form's count
awk -F, 'NR > 1 { s[NR] = $1; a[NR] = $2; b[NR] = $3; n = NR }
  END {
    for (f = 0; f < 2; ++f) {
      c = 0
      for (i = 5; i <= n; ++i) {
        x = f ? b[i] : a[i]; y = f ? b[i - 3] : a[i - 3]; e = f ? b[n] : a[n]
        if (y - x < 0.02 * y && x > 1.2 * e) ++c
      }
      printf "%s: final eval loss %.4g, %d evaluations on a plateau\n",
        f ? "separate W_K, W_Q (rank 5)" : "merged Q", f ? b[n] : a[n], c
    }
  }' "$out/curves.csv"
echo "curves: $out/curves.csv, report: $out/report.md"
