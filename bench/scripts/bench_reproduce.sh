#!/bin/sh
# The two time figures of the linattn command, measured in one run:
#   1. `linattn reproduce` with no flags (what `make demo` runs), on one core
#      (taskset -c 0, --jobs 1): target at most 60 s;
#   2. `linattn reproduce --full` (12 seeds x 2 optimizers x 10,000 steps,
#      diagnostics every 250 steps) on every online core: target 5 minutes.
# usage: bench_reproduce.sh BUILD/linattn OUTDIR
bin=${1:-build/linattn}
out=${2:-build/bench-reproduce}
now() { date +%s.%N; }
# user + system seconds of this shell's finished children, into $cpu;
# called directly, since a pipe or $(...) would run `times` in a subshell
cpu_now() {
  times > "$out/times.txt"
  cpu=$(sed -n 2p "$out/times.txt" | awk '{ gsub(/[ms]/, " "); print $1 * 60 + $2 + $3 * 60 + $4 }')
}
secs() { awk "BEGIN { printf \"%.1f\", $2 - $1 }"; }
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c 0"; fi
rm -rf "$out"
mkdir -p "$out"
echo "machine: $(nproc) online CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(now)
cpu_now; c0=$cpu
$pin "$bin" reproduce --jobs 1 --out-dir "$out/demo" > "$out/demo.txt" || exit 1
t1=$(now)
cpu_now; c1=$cpu
"$bin" reproduce --full --out-dir "$out/full" > "$out/full.txt" || exit 1
t2=$(now)
cpu_now; c2=$cpu
echo "demo, quick Setting 1 on one core:      $(secs "$t0" "$t1") s wall, $(secs "$c0" "$c1") s CPU (target 60 s)"
echo "full Setting 1 on $(nproc) cores (--jobs $(nproc)): $(secs "$t1" "$t2") s wall, $(secs "$c1" "$c2") s CPU (target 300 s wall)"
echo "quick: $(head -n 1 "$out/demo.txt")"
echo "full:  $(head -n 1 "$out/full.txt")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
