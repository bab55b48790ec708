#!/bin/bash
# run_on_device.sh [TEST...] [-- BENCH ARGS... [-- BENCH ARGS...]...]: on the GPU machine, from
# the repository root with .device-bundle/ beside it (bench/device/pack_for_device.sh): unpacks the
# binaries, points the source path they were built in at this checkout, runs each TEST
# (build/tests/TEST, at most 300 s each) and then each benchmark command (one per --, at most
# BENCH_TIMEOUT seconds each, default 200), and writes tests.log, bench.log (every command's
# output after a "=== command" line) and machine.log to $OUT (or ./device-logs). Prints a summary
# line per test and the tail of each command's output.
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
: > "$LOGS/bench.log"
while [ "${1:-}" = "--" ]; do
    shift
    command=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        command+=("$1")
        shift
    done
    echo "=== ${command[*]}" >> "$LOGS/bench.log"
    timeout "${BENCH_TIMEOUT:-200}" "${command[@]}" > "$LOGS/last-bench.log" 2>&1
    status=$?
    cat "$LOGS/last-bench.log" >> "$LOGS/bench.log"
    echo "=== exit $status" >> "$LOGS/bench.log"
    echo "=== ${command[*]} (exit $status)"
    tail -25 "$LOGS/last-bench.log"
done
rm -f "$LOGS/last-bench.log"
