#!/bin/sh
# run_layers.sh: installs what bench/layers compares against, builds it, runs it.
#
#   1. Debian packages python3-torch (the peer's PyTorch, for /usr/bin/python3) and
#      libopenblas0-pthread (OpenBLAS; it takes over the libblas.so.3 alternative, so torch's
#      generic BLAS calls stop going to the netlib reference BLAS). Each is installed only when
#      `dpkg -s` says it is missing, with apt-get, as root or through sudo. Nothing is changed
#      when both are present.
#   2. cmake configure (only when BUILD_DIR has no CMakeCache.txt) and build of target `layers`.
#   3. BUILD_DIR/bench/layers with the arguments given to this script (--quick, --no-torch,
#      --json FILE, ...).
#
# Environment: BUILD_DIR (default build-layers under the repository root), NO_INSTALL=1 skips
# step 1. Run from anywhere: sh bench/run_layers.sh [layers options]
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-"$ROOT/build-layers"}

missing=""
for pkg in python3-torch libopenblas0-pthread; do
    if ! dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed'; then
        missing="$missing $pkg"
    fi
done
if [ -n "$missing" ] && [ "${NO_INSTALL:-0}" != 1 ]; then
    if [ "$(id -u)" = 0 ]; then
        as_root=""
    elif command -v sudo >/dev/null 2>&1; then
        as_root="sudo"
    else
        echo "run_layers.sh: need root or sudo to install:$missing" >&2
        exit 1
    fi
    echo "run_layers.sh: installing$missing"
    $as_root apt-get update -qq
    # shellcheck disable=SC2086  # $missing is a list of package names
    DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends $missing
elif [ -n "$missing" ]; then
    echo "run_layers.sh: NO_INSTALL=1, not installing:$missing"
else
    echo "run_layers.sh: python3-torch and libopenblas0-pthread already installed"
fi
# Which BLAS torch will get (the libblas.so.3 alternative, managed by update-alternatives).
blas=$(/sbin/ldconfig -p 2>/dev/null | awk '/libblas\.so\.3 /{print $NF; exit}')
[ -n "$blas" ] && blas="$blas -> $(readlink -f "$blas")"
echo "run_layers.sh: libblas.so.3: ${blas:-not found}"

if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DSPIKE_WITH_CUDA=OFF -DSPIKE_BUILD_GUI=OFF -DSPIKE_BUILD_TESTS=OFF
fi
cmake --build "$BUILD_DIR" --target layers

exec "$BUILD_DIR/bench/layers" "$@"
