#!/bin/bash
# run_on_device.sh [TEST...] [-- BENCH ARGS...]: on the GPU machine, from the repository root with
# .device-bundle/ beside it (bench/device/pack_for_device.sh): unpacks the binaries, points the
# source path they were built in at this checkout, runs each TEST (build/tests/TEST) and then the
# one benchmark command after --, and writes tests.log, bench.log and machine.log to $OUT (or
# ./device-logs). Prints a summary line per test.
set -uo pipefail
ROOT=$PWD
LOGS=${OUT:-"$ROOT/device-logs"}
mkdir -p "$LOGS"
tar -xJf .device-bundle/bundle.tar.xz -C "$ROOT"
src=$(cat "$ROOT/build/srcdir")
if [ "$src" != "$ROOT" ]; then
    mkdir -p "$(dirname "$src")" && ln -sfn "$ROOT" "$src"
fi
export LD_LIBRARY_PATH="$ROOT/build/lib" QT_QPA_PLATFORM=offscreen
{ nvidia-smi; nproc; free -g | head -2; head -2 /etc/os-release; } > "$LOGS/machine.log" 2>&1
: > "$LOGS/tests.log"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    echo "=== $1" >> "$LOGS/tests.log"
    timeout 300 "build/tests/$1" >> "$LOGS/tests.log" 2>&1
    echo "=== $1 exit $?" | tee -a "$LOGS/tests.log"
    shift
done
grep -E "^(FAIL|SKIP)|Totals" "$LOGS/tests.log"
if [ "${1:-}" = "--" ]; then
    shift
    timeout 500 "$@" > "$LOGS/bench.log" 2>&1
    tail -40 "$LOGS/bench.log"
fi
