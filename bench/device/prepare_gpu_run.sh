#!/bin/bash
# prepare_gpu_run.sh: on the development machine, builds and packs what the prepared GPU run
# needs (docs/backends.md, "The next GPU run (prepared)"), so a session lent a GPU spends its
# device time running, not building. Then, on the device: bench/device/gpu_run.sh.
#
# The build: Release, CUDA on, machine code for CUDA_ARCH (default 90: H100 and H200), host code
# for x86-64-v3 (AVX2, FMA) instead of -march=native: the GPU machine's CPU is not known in
# advance, and a binary built for this machine's CPU (AVX-512 on some guests) would stop with an
# illegal instruction on one without it. Environment: BUILD_DIR (default /tmp/cuda), CUDA_ARCH.
# Takes under 5 minutes on 2 cores from scratch (only the targets the run needs).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-/tmp/cuda}
TESTS="test_fused_groups test_device_state_scan test_backends test_equation_parity test_delayed_parity"
BENCHES="cuba_bench scaling_bench equations_bench threads_bench"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPIKE_WITH_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DSPIKE_PORTABLE=ON \
      -DCMAKE_CXX_FLAGS="-march=x86-64-v3" > /dev/null
# shellcheck disable=SC2086
ninja -C "$BUILD_DIR" $TESTS $BENCHES spikesim
# shellcheck disable=SC2086
BUILD_DIR="$BUILD_DIR" "$ROOT/bench/device/pack_for_device.sh" $TESTS $BENCHES
