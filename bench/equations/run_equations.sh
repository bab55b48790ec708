#!/bin/sh
# run_equations.sh: installs what bench/equations compares against, builds equations_bench,
# runs both sides.
#
#   1. Debian package python3-brian (Brian2 for /usr/bin/python3; the C++ standalone device
#      needs g++ and make, which the build needs anyway). Installed only when `dpkg -s` says it
#      is missing, with apt-get, as root or through sudo.
#   2. cmake configure (only when BUILD_DIR has no CMakeCache.txt) and build of target
#      `equations_bench`.
#   3. BUILD_DIR/bench/equations_bench with the arguments given to this script: per case the
#      SpikeStudio run, then brian2_equations.py (code generation, compilation and runs of the
#      standalone project), then the table, the targets and a JSON line.
#
# Environment: BUILD_DIR (default build-bench under the repository root), NO_INSTALL=1 skips
# step 1. Run from anywhere: sh bench/equations/run_equations.sh [--repeats 3] [--cases hh] ...
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-"$ROOT/build-bench"}

if ! dpkg -s python3-brian 2>/dev/null | grep -q '^Status: install ok installed'; then
    if [ "${NO_INSTALL:-0}" = 1 ]; then
        echo "run_equations.sh: NO_INSTALL=1, not installing python3-brian"
    else
        if [ "$(id -u)" = 0 ]; then
            as_root=""
        elif command -v sudo >/dev/null 2>&1; then
            as_root="sudo"
        else
            echo "run_equations.sh: need root or sudo to install python3-brian" >&2
            exit 1
        fi
        echo "run_equations.sh: installing python3-brian"
        $as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq python3-brian
    fi
else
    echo "run_equations.sh: python3-brian already installed"
fi

if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DSPIKE_WITH_CUDA=OFF -DSPIKE_BUILD_GUI=OFF -DSPIKE_BUILD_TESTS=OFF -DSPIKE_BUILD_BENCH=ON
fi
cmake --build "$BUILD_DIR" --target equations_bench -- -j2

exec "$BUILD_DIR/bench/equations_bench" "$@"
