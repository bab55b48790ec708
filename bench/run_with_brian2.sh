#!/bin/sh
# run_with_brian2.sh TARGET [ARGS...]: what the Brian2-peer benchmarks (bench/cuba,
# bench/equations) need before they run, then the run:
#   1. Debian package python3-brian (Brian2 for /usr/bin/python3; the C++ standalone device
#      needs g++ and make, which the build needs anyway). Installed only when `dpkg -s` says it
#      is missing, with apt-get, as root or through sudo.
#   2. cmake configure (only when BUILD_DIR has no CMakeCache.txt) and build of TARGET.
#   3. BUILD_DIR/bench/TARGET with ARGS.
# Environment: BUILD_DIR (default build-bench under the repository root), NO_INSTALL=1 skips
# step 1. The per-benchmark scripts (cuba/run_cuba.sh, equations/run_equations.sh) call it.
set -eu

target=$1
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-"$ROOT/build-bench"}
me="run $target"

if ! dpkg -s python3-brian 2>/dev/null | grep -q '^Status: install ok installed'; then
    if [ "${NO_INSTALL:-0}" = 1 ]; then
        echo "$me: NO_INSTALL=1, not installing python3-brian"
    else
        if [ "$(id -u)" = 0 ]; then
            as_root=""
        elif command -v sudo >/dev/null 2>&1; then
            as_root="sudo"
        else
            echo "$me: need root or sudo to install python3-brian" >&2
            exit 1
        fi
        echo "$me: installing python3-brian"
        $as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq python3-brian
    fi
else
    echo "$me: python3-brian already installed"
fi

if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DSPIKE_WITH_CUDA=OFF -DSPIKE_BUILD_GUI=OFF -DSPIKE_BUILD_TESTS=OFF -DSPIKE_BUILD_BENCH=ON
fi
cmake --build "$BUILD_DIR" --target "$target" -- -j2

exec "$BUILD_DIR/bench/$target" "$@"
