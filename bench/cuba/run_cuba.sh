#!/bin/sh
# run_cuba.sh: installs what bench/cuba compares against (python3-brian), builds cuba_bench and
# runs it with the arguments given (bench/run_with_brian2.sh does the first two). cuba_bench runs
# the SpikeStudio network, then brian2_cuba.py (compile + run of the standalone project), and
# prints the table: both run times, Brian2/SpikeStudio, both mean rates and their relative
# difference, then where SpikeStudio's time goes.
# Environment: BUILD_DIR (default build-bench under the repository root), NO_INSTALL=1.
# Run from anywhere: sh bench/cuba/run_cuba.sh [--repeats 3] [--no-breakdown] ...
set -eu
exec sh "$(dirname "$0")/../run_with_brian2.sh" cuba_bench "$@"
