#!/usr/bin/env bash
# Runs built fuzz targets for SECONDS each, two at a time (JOBS), each from its seed corpus
# (tests/fuzz/seed_corpus.sh) and a growing corpus kept in BUILD_DIR/corpus/<target>, with
# -timeout=10 (a hang) and -rss_limit_mb=2048 (unbounded memory); AddressSanitizer with leak
# detection on (HDF5's own leaks on damaged files: lsan.supp), UndefinedBehaviorSanitizer reports fatal. Prints one line per target:
#   target  executions  exec/s  RSS after loading the corpus / past half the executions / peak [MB]  result
# and, for a failure, the log's last lines and the input libFuzzer saved under
# BUILD_DIR/artifacts/<target>/. Exit status: 0 when every target ran clean, 1 otherwise.
# Usage: tests/fuzz/run_targets.sh BUILD_DIR SECONDS [TARGET...]   (default: all six)
# FUZZ_FLAGS: more libFuzzer flags for every target (e.g. -malloc_limit_mb=4096).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:?usage: run_targets.sh BUILD_DIR SECONDS [TARGET...]}" && pwd)"
seconds="${2:?usage: run_targets.sh BUILD_DIR SECONDS [TARGET...]}"
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_model_json fuzz_npy fuzz_state_dict fuzz_cli_values fuzz_nir fuzz_equations)
jobs="${JOBS:-2}"

seed="$(mktemp -d "$build/seed.XXXXXX")"  # one per run, so two runs may share BUILD_DIR
trap 'rm -rf "$seed"' EXIT
bash "$root/tests/fuzz/seed_corpus.sh" "$seed" > /dev/null
# allocator_may_return_null: malloc of an impossible size returns NULL as glibc's does, so HDF5
# (C, uninstrumented) sees the failure it handles on damaged files; C++ new still reports.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:allocator_may_return_null=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$root/tests/fuzz/lsan.supp:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"

run_one() {  # run_one TARGET: the fuzzer's own exit status
  local t="$1"
  mkdir -p "$build/corpus/$t" "$build/artifacts/$t"
  "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" ${FUZZ_FLAGS:-} \
    "$build/corpus/$t" "$seed/$t" > "$build/$t.log" 2>&1
}

running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

status=0
printf '%-18s %12s %8s %22s  %s\n' target executions exec/s 'RSS start/half/end' result
for t in "${targets[@]}"; do
  log="$build/$t.log"
  figure() { grep -o "stat::$1: *[0-9]*" "$log" | grep -o '[0-9]*$' | tail -1; }
  execs=$(figure number_of_executed_units)
  speed=$(figure average_exec_per_sec)
  rss1=$(figure peak_rss_mb)
  # RSS on libFuzzer's status lines ("#N ... rss: NMb"): after loading the corpus, and on the
  # first line past half the executions.
  rss0=$(grep -m1 -o 'INITED.*rss: [0-9]*Mb' "$log" | grep -o '[0-9]*Mb$' | tr -d Mb)
  rssh=$(awk -v half=$(( ${execs:-0} / 2 )) '/^#[0-9]+\t/ && /rss: / {
           n = substr($1, 2) + 0; if (n >= half) { match($0, /rss: [0-9]+/); print substr($0, RSTART + 5, RLENGTH - 5); exit } }' "$log")
  result=ok
  if grep -q 'ERROR: libFuzzer: timeout' "$log"; then result=hang
  elif grep -q 'ERROR: libFuzzer: out-of-memory' "$log"; then result=out-of-memory
  elif grep -q 'ERROR: LeakSanitizer' "$log"; then result=leak
  elif grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error:' -e 'ERROR: libFuzzer' "$log"; then result=crash
  elif [ -z "$execs" ] || ! grep -q 'Done [0-9]* runs' "$log"; then result=failed-to-run
  fi
  printf '%-18s %12s %8s %22s  %s\n' "$t" "${execs:-?}" "${speed:-?}" "${rss0:-?}/${rssh:-?}/${rss1:-?} MB" "$result"
  if [ "$result" != ok ]; then
    status=1
    echo "---- $t: last lines of $log"
    tail -n 40 "$log"
    ls -l "$build/artifacts/$t/" 2>/dev/null
  fi
done
exit $status
