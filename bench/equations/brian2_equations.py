# brian2_equations: the Brian2 side of bench/equations (issue #17): equation-defined neuron
# models run with the C++ standalone device, single-threaded (no OpenMP), and timed by the
# binary's own timer around the network run (device._last_run_time).
#
#   --case izhikevich   8000 regular-spiking + 2000 fast-spiking Izhikevich neurons (two
#                       NeuronGroups, a, b, c, d constants), method 'euler', dt 0.1 ms:
#                         dv/dt = (0.04*v**2/mV + 5*v + 140*mV - u + I) / ms : volt
#                         du/dt = a*(b*v - u) / ms : volt
#                         I : volt   (per neuron, from --drive)
#                       threshold v >= 30 mV, reset v = c; u += d; v0 = -65 mV, u0 = b*v0.
#                       Four Synapses (RS->RS, RS->FS, FS->RS, FS->FS), on_pre 'v_post += w',
#                       connect(p = --p), autapses included on RS->RS and FS->FS;
#                       w = --we (from RS) or --wi (from FS).
#   --case hh           1000 Hodgkin-Huxley neurons, uncoupled, the equations of
#                       engine/neurons/models/hodgkin_huxley.model, method 'exponential_euler',
#                       dt 0.01 ms, threshold and refractory v > -20 mV, I : amp/metre**2 per
#                       neuron from --drive; v0 = -65 mV, gates at their steady state there.
#
# --drive FILE: one value per line, SI (volt for izhikevich, amp/metre**2 for hh); the file's
# length is the number of neurons (izhikevich: the first 8000 lines are RS). bench/equations/
# equations_bench writes it, so both sides use the same numbers.
#
# Prints a human line on stderr and one JSON line on stdout (the last line): codegen_seconds,
# compile_seconds, run_seconds (best of --repeats runs of the compiled binary), run_seconds_all,
# binary_seconds, spikes, mean_rate_hz, per-group spikes and rates, synapses. On failure
# {"error": ...} and exit status 2. Run with Debian's /usr/bin/python3 (python3-brian).
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import brian2_peer  # noqa: E402  (bench/brian2_peer.py)

N_RS = 8000  # regular-spiking neurons of the izhikevich case (the rest are fast-spiking)


def parse_args():
    p = argparse.ArgumentParser(description="Brian2 peer of bench/equations (cpp_standalone)")
    p.add_argument("--case", choices=["izhikevich", "hh"], required=True)
    p.add_argument("--drive", required=True, help="per-neuron constant drive, one SI value a line")
    p.add_argument("--duration", type=float, default=1.0, help="biological time [s]")
    p.add_argument("--seed", type=int, default=1, help="Brian2's random seed (connectivity)")
    p.add_argument("--p", type=float, default=0.01, help="izhikevich: connection probability")
    p.add_argument("--we", type=float, default=0.5e-3, help="izhikevich: RS weight [V]")
    p.add_argument("--wi", type=float, default=-1.0e-3, help="izhikevich: FS weight [V]")
    p.add_argument("--repeats", type=int, default=1,
                   help="runs of the compiled binary; run_seconds is the best of them")
    p.add_argument("--build-dir", default="",
                   help="standalone project directory (default: a temporary one, removed)")
    return p.parse_args()


def build_izhikevich(b2, args, drive):
    from brian2 import mV, ms, volt
    eqs = """
    dv/dt = (0.04*v**2/mV + 5*v + 140*mV - u + I) / ms : volt
    du/dt = a*(b*v - u) / ms : volt
    I : volt
    """
    if len(drive) <= N_RS:
        raise ValueError("izhikevich needs more than %d drive values, got %d" % (N_RS, len(drive)))
    groups = []
    for name, first, last, a, d in (("RS", 0, N_RS, 0.02, 8 * mV),
                                    ("FS", N_RS, len(drive), 0.1, 2 * mV)):
        g = b2.NeuronGroup(last - first, eqs, threshold="v >= 30*mV", reset="v = c; u += d",
                           method="euler", name=name,
                           namespace={"a": a, "b": 0.2, "c": -65 * mV, "d": d})
        g.I = drive[first:last] * volt
        g.v = -65 * mV
        g.u = "0.2*v"
        groups.append(g)
    rs, fs = groups
    synapses = []
    for src, dst, w in ((rs, rs, args.we), (rs, fs, args.we), (fs, rs, args.wi), (fs, fs, args.wi)):
        s = b2.Synapses(src, dst, on_pre="v_post += w_syn", namespace={"w_syn": w * volt},
                        name="%s_to_%s" % (src.name, dst.name))
        s.connect(p=args.p)
        synapses.append(s)
    monitors = [b2.SpikeMonitor(g) for g in groups]
    return groups, monitors, synapses


def build_hh(b2, drive):
    import numpy as np
    from brian2 import amp, farad, metre, mV, ms, siemens
    eqs = """
    dv/dt = (gNa*m**3*h*(ENa - v) + gK*n**4*(EK - v) + gL*(EL - v) + I) / C : volt
    dm/dt = alpham*(1 - m) - betam*m : 1
    dh/dt = alphah*(1 - h) - betah*h : 1
    dn/dt = alphan*(1 - n) - betan*n : 1
    alpham = 1/exprel(-(v + 40*mV)/(10*mV)) / ms : Hz
    betam = 4*exp(-(v + 65*mV)/(18*mV)) / ms : Hz
    alphah = 0.07*exp(-(v + 65*mV)/(20*mV)) / ms : Hz
    betah = 1/(1 + exp(-(v + 35*mV)/(10*mV))) / ms : Hz
    alphan = 0.1/exprel(-(v + 55*mV)/(10*mV)) / ms : Hz
    betan = 0.125*exp(-(v + 65*mV)/(80*mV)) / ms : Hz
    I : amp/metre**2
    """
    namespace = {"C": 0.01 * farad / metre**2, "gNa": 1200 * siemens / metre**2,
                 "gK": 360 * siemens / metre**2, "gL": 3 * siemens / metre**2,
                 "ENa": 50 * mV, "EK": -77 * mV, "EL": -54.387 * mV}
    g = b2.NeuronGroup(len(drive), eqs, threshold="v > -20*mV", refractory="v > -20*mV",
                       method="exponential_euler", namespace=namespace, name="HH")
    g.I = drive * amp / metre**2
    # the library's initial values: v = -65 mV, every gate at its steady state there
    vm = -65.0
    x = -(vm + 40) / 10
    am = 1e3 * x / np.expm1(x)
    bm = 1e3 * 4 * np.exp(-(vm + 65) / 18)
    ah = 1e3 * 0.07 * np.exp(-(vm + 65) / 20)
    bh = 1e3 / (1 + np.exp(-(vm + 35) / 10))
    x = -(vm + 55) / 10
    an = 1e3 * 0.1 * x / np.expm1(x)
    bn = 1e3 * 0.125 * np.exp(-(vm + 65) / 80)
    g.v = vm * mV
    g.m = am / (am + bm)
    g.h = ah / (ah + bh)
    g.n = an / (an + bn)
    return [g], [b2.SpikeMonitor(g)], []


def run(args, directory):
    import numpy as np
    import brian2 as b2
    from brian2 import ms, second

    drive = np.loadtxt(args.drive, dtype=np.float64, ndmin=1)
    b2.set_device("cpp_standalone", directory=directory, build_on_run=False)
    b2.prefs.devices.cpp_standalone.openmp_threads = 0
    b2.seed(args.seed)
    if args.case == "izhikevich":
        b2.defaultclock.dt = 0.1 * ms
        groups, monitors, synapses = build_izhikevich(b2, args, drive)
    else:
        b2.defaultclock.dt = 0.01 * ms
        groups, monitors, synapses = build_hh(b2, drive)
    # an explicit Network: the magic one only collects objects named in the caller's frame
    net = b2.Network(*groups, *monitors, *synapses)
    net.run(args.duration * second)

    start = time.perf_counter()
    b2.device.build(directory=directory, compile=True, run=True, with_output=False)
    build_total = time.perf_counter() - start
    timers = b2.device.timers
    compile_seconds = float(timers["compile"].get("make") or 0.0) + float(
        timers["compile"].get("clean") or 0.0)
    binary_seconds = float(timers.get("run_binary") or 0.0)
    run_all = [float(b2.device._last_run_time)]
    for _ in range(max(0, args.repeats - 1)):
        b2.device.run(directory, with_output=False, run_args=[])
        run_all.append(float(b2.device._last_run_time))

    per_group = {}
    spikes = 0
    for g, m in zip(groups, monitors):
        count = int(np.asarray(m.i[:]).size)
        spikes += count
        per_group[g.name] = {"neurons": len(g), "spikes": count,
                             "rate_hz": count / (len(g) * args.duration)}
    n = sum(len(g) for g in groups)
    return {
        "brian2": b2.__version__,
        "case": args.case,
        "duration_s": args.duration,
        "dt_s": float(b2.defaultclock.dt / second),
        "codegen_seconds": max(0.0, build_total - compile_seconds - binary_seconds),
        "compile_seconds": compile_seconds,
        "run_seconds": min(run_all),
        "run_seconds_all": run_all,
        "binary_seconds": binary_seconds,
        "neurons": n,
        "spikes": spikes,
        "mean_rate_hz": spikes / (n * args.duration),
        "groups": per_group,
        "synapses": int(sum(len(s.i[:]) for s in synapses)),
        "threads": 1,
    }


def main():
    args = parse_args()
    return brian2_peer.serve(args, run, "brian2_equations_", "%s, 1 thread" % args.case)


if __name__ == "__main__":
    sys.exit(main())
