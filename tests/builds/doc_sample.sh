#!/bin/sh
# The code sample of the header's doc block (QUICK START) is a complete
# program: cut out of linattn.h, compiled as C99 with the warnings as errors,
# and run; it must train (the eval loss falls) and print R.
#   doc_sample.sh OUTDIR COMPILER FLAGS...
out=$1
shift
mkdir -p "$out" || exit 1
sed -n '/^QUICK START/,/^   LINATTN_IMPLEMENTATION goes/p' linattn.h |
  sed -n '/^   #define LINATTN_IMPLEMENTATION/,/^   }$/p' | sed 's/^   //' > "$out/sample.c"
lines=$(wc -l < "$out/sample.c")
[ "$lines" -ge 15 ] || { echo "no sample found in linattn.h ($lines lines)"; exit 1; }
"$@" -I. "$out/sample.c" -o "$out/sample" -lm || exit 1
"$out/sample" > "$out/sample.txt" || { cat "$out/sample.txt"; echo "the sample failed"; exit 1; }
cat "$out/sample.txt"
awk '/^eval loss/ { if ($3 + 0 > 0 && $5 + 0 < $3 / 10 && $7 + 0 > 1) ok = 1 } END { exit !ok }' "$out/sample.txt" ||
  { echo "the sample did not train tenfold or printed no R"; exit 1; }
echo "1 passed, 0 failed"
