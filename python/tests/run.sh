#!/bin/sh
# The Python package's tests, as `make test` runs them:
#   run.sh PYTHON MAKE BUILD
# With a PYTHON that has numpy: builds the libraries (make lib) and the
# command, then runs every test against them (LINATTN_LIB, LINATTN_CLI).
# Without numpy: one line saying so, and nothing counted.
py=${1:-/usr/bin/python3}
mk=${2:-make}
build=${3:-build}
if ! "$py" -c 'import numpy' >/dev/null 2>&1; then
  echo "skipped: $py has no numpy (the Python package's tests need it; PYTHON=... chooses another)"
  echo "0 passed, 0 failed"
  exit 0
fi
$mk --no-print-directory lib "$build/linattn" || { echo "FAIL make lib $build/linattn"; echo "0 passed, 1 failed"; exit 1; }
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
LINATTN_LIB=$build LINATTN_CLI=$build/linattn LINATTN_CACHE=$build/py-cache \
  "$py" python/tests/run_tests.py
