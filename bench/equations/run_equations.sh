#!/bin/sh
# run_equations.sh: installs what bench/equations compares against (python3-brian), builds
# equations_bench and runs it with the arguments given (bench/run_with_brian2.sh does the first
# two): per case the SpikeStudio run, then brian2_equations.py (code generation, compilation and
# runs of the standalone project), then the table, the targets and a JSON line.
# Environment: BUILD_DIR (default build-bench under the repository root), NO_INSTALL=1.
# Run from anywhere: sh bench/equations/run_equations.sh [--repeats 3] [--cases hh] ...
set -eu
exec sh "$(dirname "$0")/../run_with_brian2.sh" equations_bench "$@"
