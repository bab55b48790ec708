#!/usr/bin/python3
"""Brian2 reference for SpikeStudio's CUBALIF: independent CUBA neurons (Brian2's CUBA example,
Vogels & Abbott 2005) driven by fixed excitatory and inhibitory input spikes.

Writes brian2_cuba.json beside this script. Run with Debian's python3-brian (Brian2 2.5.1,
numpy code generation target, float64):

    apt-get install -y python3-brian
    /usr/bin/python3 tests/data/cuba/generate_reference.py

Network: N neurons, no connections between them. Neuron j has its own excitatory source j and
inhibitory source N + j (a SpikeGeneratorGroup of 2N channels with Bernoulli spikes per step at a
per-neuron rate; every fourth neuron, from neuron 1, is driven hard enough to fire close to the
limit the refractory period sets) and one-to-one Synapses "ge += w" and "gi += w" with per-neuron weights. Brian2
delivers a source spike of step s after the state update of step s (schedule: groups, thresholds,
synapses, resets), so it first moves the membrane in step s + 1. The file stores the delivery
steps s; the C++ test puts the jump in input row s + 1.

Recorded: every spike (step = round(t / dt), Brian2's spike time is the start of the step) and v
of a few neurons after every step (StateMonitor when='end', after the reset). Inputs are redrawn,
neuron by neuron, until no neuron comes within MARGIN mV of the threshold in any step where it
could spike (v after the update, before the threshold, while not refractory), so float32 and
float64 agree on every threshold crossing. Weights and initial potentials are float32 values, so
both simulators start from and add the same numbers.
"""

import json
import os

import numpy as np
from brian2 import (NeuronGroup, SpikeGeneratorGroup, SpikeMonitor, StateMonitor, Synapses,
                    defaultclock, mV, ms, prefs, run, start_scope)
import brian2

N = 20
DT = 0.1 * ms
STEPS = 2000  # 200 ms
MARGIN = 1e-3  # [mV] closest allowed approach to v_th in a step where a spike is possible
RECORD_V = [0, 5, 7, 12, 18]
SEED = 20240611
MAX_ROUNDS = 400

PARAMS = {
    "tau_mem": 0.02,  # [s]
    "tau_exc": 0.005,
    "tau_inh": 0.01,
    "v_rest": -49.0,  # [mV]
    "v_reset": -60.0,
    "v_th": -50.0,
    "refractory_time": 0.005,  # [s]
}


def f32(x):
    """Values rounded to float32, returned as float64."""
    return np.asarray(x, dtype=np.float32).astype(np.float64)


def draw_neuron(rng, strong):
    """Input pattern of one neuron: weights [mV], initial v [mV] and Bernoulli input steps.
    A strongly driven neuron fires close to the limit the refractory period sets."""
    exc_rate = rng.uniform(6000.0, 9000.0) if strong else rng.uniform(1000.0, 4000.0)  # [Hz]
    inh_rate = rng.uniform(0.0, 500.0)
    return {
        "we": float(f32(rng.uniform(1.0, 4.0))),
        "wi": float(f32(-rng.uniform(2.0, 9.0))),
        "v0": float(f32(PARAMS["v_reset"] + rng.uniform() * (PARAMS["v_th"] - PARAMS["v_reset"]))),
        "exc": np.flatnonzero(rng.uniform(size=STEPS) < exc_rate * float(DT)),
        "inh": np.flatnonzero(rng.uniform(size=STEPS) < inh_rate * float(DT)),
    }


def simulate(neurons):
    """Runs Brian2 on the given per-neuron inputs; returns spikes, v traces and margins."""
    start_scope()
    prefs.codegen.target = "numpy"
    defaultclock.dt = DT
    taum = PARAMS["tau_mem"] * 1000 * ms
    taue = PARAMS["tau_exc"] * 1000 * ms
    taui = PARAMS["tau_inh"] * 1000 * ms
    El = PARAMS["v_rest"] * mV
    Vt = PARAMS["v_th"] * mV
    Vr = PARAMS["v_reset"] * mV
    eqs = """
    dv/dt  = (ge+gi-(v-El))/taum : volt (unless refractory)
    dge/dt = -ge/taue : volt
    dgi/dt = -gi/taui : volt
    """
    G = NeuronGroup(N, eqs, threshold="v>Vt", reset="v = Vr",
                    refractory=PARAMS["refractory_time"] * 1000 * ms, method="exact",
                    namespace={"taum": taum, "taue": taue, "taui": taui, "El": El, "Vt": Vt,
                               "Vr": Vr})
    G.v = np.array([nrn["v0"] for nrn in neurons]) * mV
    G.ge = 0 * mV
    G.gi = 0 * mV

    idx, steps = [], []
    for j, nrn in enumerate(neurons):
        idx += [j] * len(nrn["exc"]) + [N + j] * len(nrn["inh"])
        steps += list(nrn["exc"]) + list(nrn["inh"])
    src = SpikeGeneratorGroup(2 * N, np.array(idx, dtype=int), np.array(steps) * DT)
    exc = Synapses(src, G, "w : volt", on_pre="ge += w")
    exc.connect(i=np.arange(N), j=np.arange(N))
    exc.w = np.array([nrn["we"] for nrn in neurons]) * mV
    inh = Synapses(src, G, "w : volt", on_pre="gi += w")
    inh.connect(i=np.arange(N, 2 * N), j=np.arange(N))
    inh.w = np.array([nrn["wi"] for nrn in neurons]) * mV

    spikes = SpikeMonitor(G)
    after = StateMonitor(G, "v", record=RECORD_V, when="end")
    # Before the threshold of the same step: v after the update, and whether it may spike.
    before = StateMonitor(G, ["v", "not_refractory"], record=True, when="thresholds", order=-1)
    run(STEPS * DT)

    v_pre = before.v / mV
    free = before.not_refractory.astype(bool)
    margin = np.where(free, np.abs(v_pre - PARAMS["v_th"]), np.inf).min(axis=1)
    spike_steps = np.rint(spikes.t / DT).astype(int)
    return {
        "spike_step": spike_steps,
        "spike_neuron": np.asarray(spikes.i, dtype=int),
        "v": after.v / mV,
        "margin": margin,
    }


def main():
    rng = np.random.default_rng(SEED)
    strong = [j % 4 == 1 for j in range(N)]
    neurons = [draw_neuron(rng, strong[j]) for j in range(N)]
    for rounds in range(1, MAX_ROUNDS + 1):
        result = simulate(neurons)
        bad = np.flatnonzero(result["margin"] < MARGIN)
        print(f"round {rounds}: {len(result['spike_step'])} spikes, "
              f"{len(bad)} neurons closer than {MARGIN} mV to threshold")
        if len(bad) == 0:
            break
        for j in bad:
            neurons[j] = draw_neuron(rng, strong[j])
    else:
        raise SystemExit("no input pattern without near-threshold steps found")

    order = np.lexsort((result["spike_neuron"], result["spike_step"]))
    doc = {
        "description": "Brian2 CUBA neurons (Vogels & Abbott 2005 / Brian2's CUBA example), "
                       "independent, driven by fixed input spikes; see generate_reference.py",
        "generator": "tests/data/cuba/generate_reference.py",
        "brian2_version": brian2.__version__,
        "numpy_version": np.__version__,
        "codegen_target": "numpy",
        "seed": SEED,
        "n": N,
        "dt": float(DT),
        "steps": STEPS,
        "params": PARAMS,
        "v0": [nrn["v0"] for nrn in neurons],
        "exc_weight": [nrn["we"] for nrn in neurons],
        "inh_weight": [nrn["wi"] for nrn in neurons],
        "exc_delivery": {"step": [int(s) for nrn in neurons for s in nrn["exc"]],
                         "neuron": [j for j, nrn in enumerate(neurons) for _ in nrn["exc"]]},
        "inh_delivery": {"step": [int(s) for nrn in neurons for s in nrn["inh"]],
                         "neuron": [j for j, nrn in enumerate(neurons) for _ in nrn["inh"]]},
        "spikes": {"step": [int(s) for s in result["spike_step"][order]],
                   "neuron": [int(i) for i in result["spike_neuron"][order]]},
        "v_neurons": RECORD_V,
        "v": [[float(f"{x:.10g}") for x in row] for row in result["v"]],
        "threshold_margin": MARGIN,
        "min_threshold_distance": float(result["margin"].min()),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "brian2_cuba.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    counts = np.bincount(result["spike_neuron"], minlength=N)
    print(f"wrote {path}: spikes per neuron {counts.tolist()}, "
          f"closest approach {doc['min_threshold_distance']:.3g} mV")


if __name__ == "__main__":
    main()
