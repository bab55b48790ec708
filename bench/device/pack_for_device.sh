#!/bin/bash
# pack_for_device.sh NAME...: packs build/tests/NAME or build/bench/NAME (and build/app/spikesim)
# with the shared libraries they need that a bare GPU machine lacks (Qt and its dependencies; not
# the C and C++ runtimes, which the target has in newer versions) into .device-bundle/bundle.tar.xz,
# for bench/device/run_on_device.sh on a machine with a GPU but without Qt or a compiler. The
# binaries keep the absolute source path they were built in (test data, bench scripts); the
# bundle records it in srcdir. NVRTC (libnvrtc, which the CUDA backend opens at run time to compile
# equation populations into device code; kernels/nvrtc.hpp) goes too, unless PACK_NVRTC=0: the
# GPU machine may have a driver but no toolkit. It is half the bundle (about 31 of some 60 MB).
# Environment: BUILD_DIR (default build), PACK_NVRTC (default 1).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-"$ROOT/build"}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build/tests" "$stage/build/bench" "$stage/build/app" "$stage/build/lib"
for name in "$@"; do
    if [ -f "$BUILD_DIR/tests/$name" ]; then
        cp "$BUILD_DIR/tests/$name" "$stage/build/tests/"
    elif [ -f "$BUILD_DIR/bench/$name" ]; then
        cp "$BUILD_DIR/bench/$name" "$stage/build/bench/"
    else
        echo "pack_for_device: no test or benchmark '$name' in $BUILD_DIR" >&2
        exit 1
    fi
done
cp "$BUILD_DIR/app/spikesim" "$stage/build/app/"
strip "$stage"/build/{tests,bench,app}/* 2>/dev/null || true
for lib in $(ldd "$stage"/build/{tests,bench,app}/* | awk '/=>/ {print $3}' | sort -u); do
    case $lib in
    */libc.so* | */libm.so* | */libstdc++* | */libgcc_s*) ;;
    *) cp -L "$lib" "$stage/build/lib/" ;;
    esac
done
if [ "${PACK_NVRTC:-1}" = 1 ]; then
    nvrtc=$(ldconfig -p | awk '/libnvrtc\.so\.[0-9]+ / {print $NF; exit}')
    nvrtc=${nvrtc:-$(ls /usr/local/cuda/lib64/libnvrtc.so.[0-9]* 2> /dev/null | head -1)}
    if [ -n "$nvrtc" ]; then
        cp -L "$nvrtc" "$stage/build/lib/"
        cp -L "$(dirname "$(readlink -f "$nvrtc")")"/libnvrtc-builtins.so.[0-9]*.[0-9]* "$stage/build/lib/"
    else
        echo "pack_for_device: no libnvrtc here; the GPU machine runs equation populations interpreted" >&2
    fi
fi
echo "$ROOT" > "$stage/build/srcdir"
mkdir -p "$ROOT/.device-bundle"
XZ_OPT="-9 -T0" tar -C "$stage" -cJf "$ROOT/.device-bundle/bundle.tar.xz" .
ls -la "$ROOT/.device-bundle/bundle.tar.xz"
# The device tool carries at most 64 MiB of ignored paths with the working tree.
if [ "$(stat -c %s "$ROOT/.device-bundle/bundle.tar.xz")" -gt $((64 * 1024 * 1024 - 1024 * 1024)) ]; then
    echo "pack_for_device: the bundle is near or past the device tool's 64 MiB: pack fewer binaries," \
         "or PACK_NVRTC=0 (about 32 MB less; equation populations then run interpreted there)" >&2
fi
