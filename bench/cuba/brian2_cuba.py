# brian2_cuba: the Brian2 side of bench/cuba. Brian2's examples/CUBA.py (the Vogels-Abbott
# current-based benchmark of Brette et al. 2007, "Benchmark 2") unchanged in its model, run with
# the C++ standalone device, single-threaded (no OpenMP), and timed:
#
#     4000 neurons in one NeuronGroup P, P[:3200] excitatory, P[3200:] inhibitory
#     dv/dt  = (ge + gi - (v - El)) / taum : volt (unless refractory)
#     dge/dt = -ge / taue : volt
#     dgi/dt = -gi / taui : volt
#     threshold v > Vt, reset v = Vr, refractory 5 ms, method 'linear' (exact integration)
#     taum 20 ms, taue 5 ms, taui 10 ms, Vt -50 mV, Vr -60 mV, El -49 mV, dt 0.1 ms
#     v0 = Vr + rand() * (Vt - Vr), ge0 = gi0 = 0
#     Ce: on_pre ge += we, we = 60 * 0.27 / 10 mV, connect('i < 3200', p = 0.02)
#     Ci: on_pre gi += wi, wi = -20 * 4.5 / 10 mV, connect('i >= 3200', p = 0.02)
#     SpikeMonitor(P); run(--duration, default 10 s)
#
# connect(condition, p) on P -> P draws every pair (i, j) satisfying the condition, i == j
# included, so excitatory and inhibitory neurons may synapse onto themselves (autapses).
#
# Prints a few human lines, then one JSON line on stdout (the last line): codegen_seconds
# (Python code generation and writing the project), compile_seconds (make), run_seconds (the
# standalone binary's own timer around the network run, device._last_run_time), binary_seconds
# (the whole binary's first run: synapse creation, run, writing results; with --repeats k the
# binary runs k times and run_seconds is the best, run_seconds_all lists them), spikes, mean_rate_hz, synapses,
# synaptic_events (sum over spikes of the source's out-degree). On failure {"error": ...} and
# exit status 2. Run with Debian's /usr/bin/python3 (python3-brian), not a pyenv interpreter.
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import brian2_peer  # noqa: E402  (bench/brian2_peer.py)


def parse_args():
    p = argparse.ArgumentParser(description="Brian2 CUBA benchmark (cpp_standalone), the peer "
                                            "of bench/cuba")
    p.add_argument("--duration", type=float, default=10.0, help="biological time [s]")
    p.add_argument("--seed", type=int, default=1, help="Brian2's random seed")
    p.add_argument("--build-dir", default="",
                   help="standalone project directory (default: a temporary one, removed)")
    p.add_argument("--repeats", type=int, default=1,
                   help="runs of the compiled binary; run_seconds is the best of them")
    p.add_argument("--threads", type=int, default=0,
                   help="OpenMP threads of the standalone binary (0: no OpenMP, one thread)")
    return p.parse_args()


def run(args, directory):
    import numpy as np
    import brian2 as b2
    from brian2 import ms, mV, second

    b2.set_device("cpp_standalone", directory=directory, build_on_run=False)
    b2.prefs.devices.cpp_standalone.openmp_threads = args.threads
    b2.defaultclock.dt = 0.1 * ms
    b2.seed(args.seed)

    taum = 20 * ms
    taue = 5 * ms
    taui = 10 * ms
    Vt = -50 * mV
    Vr = -60 * mV
    El = -49 * mV
    eqs = """
    dv/dt  = (ge+gi-(v-El))/taum : volt (unless refractory)
    dge/dt = -ge/taue : volt
    dgi/dt = -gi/taui : volt
    """
    P = b2.NeuronGroup(4000, eqs, threshold="v>Vt", reset="v = Vr", refractory=5 * ms,
                       method="linear")
    P.v = "Vr + rand() * (Vt - Vr)"
    P.ge = 0 * mV
    P.gi = 0 * mV
    we = (60 * 0.27 / 10) * mV
    wi = (-20 * 4.5 / 10) * mV
    Ce = b2.Synapses(P, P, on_pre="ge += we")
    Ci = b2.Synapses(P, P, on_pre="gi += wi")
    Ce.connect("i<3200", p=0.02)
    Ci.connect("i>=3200", p=0.02)
    s_mon = b2.SpikeMonitor(P)
    b2.run(args.duration * second)

    start = time.perf_counter()
    b2.device.build(directory=directory, compile=True, run=True, with_output=False)
    build_total = time.perf_counter() - start
    timers = b2.device.timers
    compile_seconds = float(timers["compile"].get("make") or 0.0) + float(
        timers["compile"].get("clean") or 0.0)
    binary_seconds = float(timers.get("run_binary") or 0.0)
    run_seconds = float(b2.device._last_run_time)
    run_all = [run_seconds]
    for _ in range(max(0, args.repeats - 1)):
        b2.device.run(directory, with_output=False, run_args=[])
        run_all.append(float(b2.device._last_run_time))
    run_seconds = min(run_all)

    spike_i = np.asarray(s_mon.i[:], dtype=np.int64)
    n = 4000
    counts = np.bincount(spike_i, minlength=n)
    out_degree = np.bincount(np.asarray(Ce.i[:], dtype=np.int64), minlength=n) + np.bincount(
        np.asarray(Ci.i[:], dtype=np.int64), minlength=n)
    events = int(np.dot(counts, out_degree))
    spikes = int(spike_i.size)
    autapses = int(np.count_nonzero(np.asarray(Ce.i[:]) == np.asarray(Ce.j[:]))) + int(
        np.count_nonzero(np.asarray(Ci.i[:]) == np.asarray(Ci.j[:])))
    return {
        "brian2": b2.__version__,
        "duration_s": args.duration,
        "dt_s": float(b2.defaultclock.dt / second),
        "codegen_seconds": max(0.0, build_total - compile_seconds - binary_seconds),
        "compile_seconds": compile_seconds,
        "run_seconds": run_seconds,
        "run_seconds_all": run_all,
        "binary_seconds": binary_seconds,
        "spikes": spikes,
        "spikes_exc": int(counts[:3200].sum()),
        "spikes_inh": int(counts[3200:].sum()),
        "mean_rate_hz": spikes / (n * args.duration),
        "synapses": int(len(Ce.i[:]) + len(Ci.i[:])),
        "synapses_exc": int(len(Ce.i[:])),
        "synapses_inh": int(len(Ci.i[:])),
        "autapses": autapses,
        "synaptic_events": events,
        "threads": max(1, args.threads),
    }


def main():
    args = parse_args()
    return brian2_peer.serve(args, run, "brian2_cuba_", "%d thread(s)" % max(1, args.threads))


if __name__ == "__main__":
    sys.exit(main())
