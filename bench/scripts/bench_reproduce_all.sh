#!/bin/sh
# The time of `linattn reproduce --all` in its quick forms (every setting,
# depth 2, 4, 6, 8 with their tuning, the larger model), on every online
# core (--jobs: the online CPUs): target at most 10 minutes on two cores.
# A run that diverges is counted in the report (exit 1); only a missing
# report is a failure here. The report stays in OUTDIR (make readme-figures
# takes its tables and figures from there).
# usage: bench_reproduce_all.sh BUILD/linattn OUTDIR
bin=${1:-build/linattn}
out=${2:-build/bench-reproduce-all}
now() { date +%s.%N; }
# user + system seconds of this shell's finished children (see
# bench_reproduce.sh: `times` must run in this shell)
cpu_now() {
  times > "$out.times"
  cpu=$(sed -n 2p "$out.times" | awk '{ gsub(/[ms]/, " "); print $1 * 60 + $2 + $3 * 60 + $4 }')
}
secs() { awk "BEGIN { printf \"%.1f\", $2 - $1 }"; }
rm -rf "$out"
mkdir -p "$(dirname "$out")"
echo "machine: $(nproc) online CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
cpu_now; c0=$cpu
t0=$(now)
"$bin" reproduce --all --out-dir "$out" > "$out.txt" 2> "$out.err"
rc=$?
t1=$(now)
cpu_now; c1=$cpu
rm -f "$out.times"
[ -s "$out/report.md" ] || { echo "no report (exit $rc): $(tail -n 1 "$out.err")" >&2; exit 1; }
echo "reproduce --all, quick forms, on $(nproc) cores: $(secs "$t0" "$t1") s wall, $(secs "$c0" "$c1") s CPU (target 600 s wall); exit $rc ($( [ $rc -eq 0 ] && echo 'every run completed' || tail -n 1 "$out.err"))"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
