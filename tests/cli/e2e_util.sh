# The helpers of the end-to-end scripts (cli_e2e.sh, harden3_e2e.sh),
# sourced from the source tree's root (as make runs them); each script
# starts with e2e_setup and ends with "$passed passed, $failed failed".
passed=0
failed=0

# e2e_setup SCRIPT BUILD/linattn WORKDIR: $bin the program (an absolute
# path), $src the source tree, and the current folder WORKDIR, made empty.
e2e_setup() {
  if [ -z "$2" ] || [ -z "$3" ]; then
    echo "usage: $1 BUILD/linattn WORKDIR" >&2
    exit 2
  fi
  bin=$2
  case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
  src=$(pwd)
  rm -rf "$3"
  mkdir -p "$3"
  cd "$3" || exit 1
}

ok() { passed=$((passed + 1)); printf "ok   %s\n" "$1"; }
bad() { failed=$((failed + 1)); printf "FAIL %s\n" "$1"; }
check() { # check NAME COMMAND...: passes when COMMAND succeeds
  name=$1
  shift
  if "$@" >/dev/null 2>&1; then ok "$name"; else bad "$name"; fi
}
need() { # need TOOL...: every one installed, else the script fails at once
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "FAIL $tool is not installed"; echo "0 passed, 1 failed"; exit 1; }
  done
}

# every line one JSON object, and at least one line
jsonl_ok() {
  [ -s "$1" ] || return 1
  lines=$(grep -c . "$1")
  objs=$(jq -c 'select(type == "object") | 1' "$1" 2>/dev/null | wc -l)
  [ "$lines" -eq "$objs" ]
}
svg_ok() { [ -s "$1" ] && xmllint --noout "$1" && grep -q '<svg' "$1"; }
no_tmp() { [ -z "$(find "${1:-.}" -name '*.tmp*' -print)" ]; }

# bad input: exit status 2 and one line on stderr that names the problem
bad_input() { # bad_input NAME EXPECTED-WORD ARGS...
  name=$1
  word=$2
  shift 2
  "$bin" "$@" > out.txt 2> err.txt
  rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q -- "$word" err.txt &&
     [ ! -s out.txt ]; then
    ok "bad input: $name ($(cat err.txt))"
  else
    bad "bad input: $name (exit $rc: $(cat err.txt))"
  fi
}
