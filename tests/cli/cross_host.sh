#!/bin/sh
# One run on two hosts: the portable linattn built for this machine (A) and
# for another one run through an emulator (B) print the same step lines for
# a short Setting 1 run with its diagnostics and write the same checkpoint;
# a checkpoint written halfway by either resumes on the other to the
# unbroken run's step lines and bytes. Ends with "N passed, N failed".
# usage: cross_host.sh WORKDIR BIN_A BIN_B [RUNNER OF B...]
#   e.g. cross_host.sh build/x build/linattn-scalar build/linattn-s390x qemu-s390x -L /usr/s390x-linux-gnu
dir=$1 bin_a=$2 bin_b=$3
if [ -z "$dir" ] || [ -z "$bin_a" ] || [ -z "$bin_b" ]; then
  echo "usage: cross_host.sh WORKDIR BIN_A BIN_B [RUNNER OF B...]" >&2
  exit 2
fi
shift 3
runner_b=$* # words without spaces of their own: split where it is used
rm -rf "$dir"
mkdir -p "$dir"
passed=0
failed=0
check() { # check NAME COMMAND...: passes when COMMAND succeeds
  name=$1
  shift
  if "$@" > /dev/null 2>&1; then
    passed=$((passed + 1)); printf 'ok   %s\n' "$name"
  else
    failed=$((failed + 1)); printf 'FAIL %s\n' "$name"
  fi
}
command -v jq > /dev/null 2>&1 || { echo "FAIL jq is not installed"; echo "0 passed, 1 failed"; exit 1; }

on_A() { "$bin_a" "$@"; }
# shellcheck disable=SC2086
on_B() { $runner_b "$bin_b" "$@"; }
# the step lines of a run's output after step $2
steps() { jq -c "select(.type == \"step\" and .step > $2)" "$1"; }
same_steps() { # same_steps FILE1 AFTER1 FILE2 AFTER2
  steps "$1" "$2" > "$1.steps" && steps "$3" "$4" > "$3.steps" &&
    [ -s "$1.steps" ] && cmp "$1.steps" "$3.steps"
}

# shellcheck disable=SC2086
run() { # run HOST NAME [FLAGS]: the run, to $dir/NAME.jsonl and NAME.ckpt
  host=$1 out=$dir/$2
  shift 2
  on_$host train --setting 1 --batch 100 --eval-every 10 --log-every 5 \
    --diag-every 40 --diag-batch 20 --smooth-every 10 --seed 3 --threads 1 \
    "$@" --out "$out.jsonl" --checkpoint "$out.ckpt"
}

for h in A B; do
  run $h $h --steps 40
  check "host $h: the run exits 0" [ $? -eq 0 ]
  run $h ${h}20 --steps 20
done
check "the same step lines on both hosts" same_steps "$dir/A.jsonl" 0 "$dir/B.jsonl" 0
check "the same checkpoint on both hosts" cmp "$dir/A.ckpt" "$dir/B.ckpt"
for h in A B; do
  o=B
  [ $h = A ] || o=A
  on_$o train --resume "$dir/${h}20.ckpt" --steps 40 --out "$dir/$h$o.jsonl" \
    --checkpoint "$dir/$h$o.ckpt"
  check "host $h's checkpoint resumed on host $o: exit 0" [ $? -eq 0 ]
  check "  its steps 21..40 are the unbroken run's" same_steps "$dir/A.jsonl" 20 "$dir/$h$o.jsonl" 0
  check "  its checkpoint is the unbroken run's" cmp "$dir/A.ckpt" "$dir/$h$o.ckpt"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
