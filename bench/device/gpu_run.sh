#!/bin/bash
# gpu_run.sh: on the GPU machine, from the repository root with the bundle that
# bench/device/prepare_gpu_run.sh packed: the prepared run of docs/backends.md ("The next GPU
# run (prepared)") in one command: the CUDA tests, then CUBA-4000 at 16- and 256-step chunks
# (fused against per-launch, the product path against the 0.5 s target), scaling_bench at 10^4
# (the fusing limit) and 10^6 neurons, the Izhikevich and HH equations on CUDA as device code
# compiled by NVRTC (SPIKE_EQ_NATIVE=sync: from the first step) and HH interpreted on the device
# (SPIKE_EQ_NATIVE=off, the path before device code), and the machine's CPU
# with 1 and 16 threads (issue #22's 16-core row). Logs under $OUT (run_on_device.sh).
# About 6 minutes of commands on an H100-class machine; each benchmark stops at BENCH_TIMEOUT
# (default 200 s).
set -uo pipefail
cores=$(nproc)
exec "$(dirname "$0")/run_on_device.sh" \
    test_fused_groups test_device_state_scan test_backends test_equation_parity test_delayed_parity \
  -- build/bench/cuba_bench --backend cuda --no-brian --repeats 2 \
  -- build/bench/cuba_bench --backend cuda --no-brian --repeats 2 --chunk 256 \
  -- build/bench/scaling_bench --sizes 10000,1000000 --backend cuda \
  -- env SPIKE_EQ_NATIVE=sync build/bench/equations_bench --backend cuda --no-brian --cases izhikevich hh \
  -- env SPIKE_EQ_NATIVE=off build/bench/equations_bench --backend cuda --no-brian --cases hh --repeats 1 \
  -- build/bench/threads_bench --threads "$cores" --repeats 3 \
  -- build/bench/scaling_bench --sizes 100000,1000000 --steps 300 --threads 1 \
  -- build/bench/scaling_bench --sizes 100000,1000000 --steps 300 --threads "$cores"
