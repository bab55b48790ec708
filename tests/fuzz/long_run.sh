#!/usr/bin/env bash
# Long fuzzing run (issue #20's figures in docs/testing.md): runs every fuzz target already built
# in BUILD_DIR (by .ci/fuzz) for MINUTES each, JOBS at a time (2 on the 2-core machine: six
# targets at 10 minutes take about 30 minutes), from the seed corpora and whatever corpus earlier
# runs left in BUILD_DIR/corpus, and prints per target the executions, executions per second,
# RSS after loading the corpus and at the end, and the result (ok, crash, hang, leak,
# out-of-memory). The RSS of each target every minute is in BUILD_DIR/<target>.log (libFuzzer's
# "pulse" and "NEW" lines carry "rss: NMb").
# Usage: tests/fuzz/long_run.sh [MINUTES] [TARGET...]   (BUILD_DIR=build-fuzz, JOBS=2)
set -uo pipefail
cd "$(dirname "$0")/../.."
minutes="${1:-10}"
[ $# -gt 0 ] && shift
build_dir="${BUILD_DIR:-build-fuzz}"
if [ ! -x "$build_dir/tests/fuzz/fuzz_npy" ]; then
  echo "no fuzz targets in $build_dir: run FUZZ_SECONDS=1 .ci/fuzz first" >&2
  exit 2
fi
echo "== $(date -u +%FT%TZ): ${minutes} min per target, JOBS=${JOBS:-2}"
JOBS="${JOBS:-2}" bash tests/fuzz/run_targets.sh "$build_dir" $((minutes * 60)) "$@"
status=$?
echo "== $(date -u +%FT%TZ): done"
exit $status
