#!/bin/sh
# `linattn report` over many small runs: its time and its peak memory against
# the size of its input, in one run. The runs are one real train run's lines
# written again under other seeds and learning rates (RUNS of them, in
# CONFIGS configurations, FILES files, several runs a file), so that the
# measurement is of the reader and the grouping, not of training.
# usage: bench_report.sh BUILD/linattn OUTDIR [RUNS] [CONFIGS] [FILES]
bin=${1:-build/linattn}
out=${2:-build/bench-report}
runs=${3:-10000}
configs=${4:-10}
files=${5:-100}
rm -rf "$out"
mkdir -p "$out/runs"
"$bin" train --steps 200 --log-every 10 --eval-every 10 --out "$out/one.jsonl" || exit 1
per=$((runs / files))
awk -v runs="$runs" -v configs="$configs" -v files="$files" -v per="$per" -v dir="$out/runs" '
  { line[NR] = $0 }
  END {
    for (r = 0; r < runs; ++r) {
      f = sprintf("%s/part%04d.jsonl", dir, int(r / per))
      lr = 0.001 * (1 + r % configs)
      for (i = 1; i <= NR; ++i) {
        s = line[i]
        if (i == 1) {
          sub(/"seed":[0-9]+/, "\"seed\":" (1 + int(r / configs)), s)
          sub(/"lr":[0-9.e-]+/, "\"lr\":" lr, s)
        }
        print s > f
      }
      if ((r + 1) % per == 0) close(f)
    }
  }' "$out/one.jsonl"
in_kb=$(du -sk "$out/runs" | cut -f1)
/usr/bin/time -f "%e %M" -o "$out/time.txt" "$bin" report "$out/runs" --out-dir "$out/rep" > "$out/report.txt" || exit 1
read secs rss_kb < "$out/time.txt"
lines=$(cat "$out"/runs/*.jsonl | wc -l)
echo "# linattn report over $runs runs ($lines lines, $in_kb KB in $files files), $configs configurations"
echo "runs,configurations,input_kb,seconds,peak_rss_kb,peak_rss_over_input"
awk -v r="$runs" -v c="$configs" -v i="$in_kb" -v s="$secs" -v m="$rss_kb" \
  'BEGIN { printf "%d,%d,%d,%.2f,%d,%.2f\n", r, c, i, s, m, m / i }'
cat "$out/report.txt"
