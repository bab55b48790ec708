#!/usr/bin/python3
"""Brian2 references for SpikeStudio's library of equation-defined neuron models (issue #17).

Writes one <model>.json per model beside this script. Run with Debian's python3-brian
(Brian2 2.5.1, numpy code generation target):

    apt-get install -y python3-brian
    /usr/bin/python3 tests/data/brian2_models/generate_reference.py [model ...]

With no arguments every model is written. Models: izhikevich, adex, hodgkin_huxley, qif,
fitzhugh_nagumo, adaptive_lif, coba.

Every case is a NeuronGroup of independent neurons (no Synapses between them); each neuron has
its own parameter values (all parameters are per-neuron group variables, so they are float32 in
the float32 run) and its own constant input. Only the coba case has event inputs: one-to-one
Synapses from a SpikeGeneratorGroup, as in tests/data/cuba.

Each model is run twice with identical numbers: once with Brian2's default float64 state and
once with prefs.core.default_float_dtype = float32 (checked: the state arrays really are
float32). Every parameter, input, weight and initial value is rounded to float32 first (and
stored so), so both runs and the C++ engine start from the same numbers. The JSON holds both
runs and a comparison of the two, which tells the C++ test whether a model's spikes are
sensitive to rounding (see README.md).

Recorded per run: every spike (step = round(t / dt); Brian2's spike time is the start of the
step whose update crossed the threshold) and traces of a few neurons. The traces are recorded
with StateMonitor(when='end'), i.e. after the update, threshold and reset of a step, and
subsampled: sample k is the state after step k*stride + stride - 1 (time (k + 1)*stride*dt).
A second monitor before the threshold (when='thresholds', order=-1) gives, per neuron, the
closest approach of the threshold variable to its threshold in any step where the neuron could
spike (not refractory).

The coba inputs follow tests/data/cuba: per neuron Bernoulli excitatory and inhibitory input
steps and float32 weights drawn with numpy default_rng(SEED); neurons are redrawn until none of
them comes within COBA_MARGIN of the threshold in a step where it could spike.
"""

import json
import logging
import os
import re
import sys

import numpy as np
import brian2
from brian2 import (Network, NeuronGroup, SpikeGeneratorGroup, SpikeMonitor, StateMonitor, Synapses,
                    defaultclock, prefs, second, start_scope)
from brian2.stateupdaters.base import StateUpdateMethod

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240917
MAX_TRACE_SAMPLES = 500
COBA_MARGIN = 1e-6  # [V] (1e-3 mV) closest allowed approach of v to Vt where a spike is possible
COBA_MAX_ROUNDS = 400


def f32(x):
    """Values rounded to float32, returned as float64 (a numpy array)."""
    return np.asarray(x, dtype=np.float32).astype(np.float64)


def per_neuron(values, n):
    """A scalar or per-neuron sequence as an array of n float32-rounded values."""
    return f32(np.broadcast_to(np.asarray(values, dtype=np.float64), (n,)))


# ---------------------------------------------------------------------------------------------
# Model definitions. Each returns a spec dict; every value is SI.
# "parameters", "inputs", "initial": name -> per-neuron float32-rounded values.
# "threshold_var", "threshold_value": the variable the threshold compares and its per-neuron
# threshold (for the closest-approach diagnostic only).
# ---------------------------------------------------------------------------------------------

def izhikevich():
    presets = {  # a, b, c [V], d [V] (Izhikevich 2003)
        "regular spiking": (0.02, 0.2, -0.065, 0.008),
        "intrinsically bursting": (0.02, 0.2, -0.055, 0.004),
        "chattering": (0.02, 0.2, -0.050, 0.002),
        "fast spiking": (0.1, 0.2, -0.065, 0.002),
        "low-threshold spiking": (0.02, 0.25, -0.065, 0.002),
    }
    currents = [0.005, 0.010, 0.015]  # [V]
    rows = [(name, p, cur) for name, p in presets.items() for cur in currents]
    n = len(rows)
    a = per_neuron([r[1][0] for r in rows], n)
    b = per_neuron([r[1][1] for r in rows], n)
    c = per_neuron([r[1][2] for r in rows], n)
    d = per_neuron([r[1][3] for r in rows], n)
    v0 = per_neuron(-0.065, n)
    return {
        "equations": "dv/dt = (0.04*v**2/mV + 5*v + 140*mV - u + I) / ms : volt\n"
                     "du/dt = a*(b*v - u) / ms : volt\n"
                     "I : volt\n"
                     "a : 1\n"
                     "b : 1\n"
                     "c : volt\n"
                     "d : volt\n",
        "threshold": "v >= 30*mV", "reset": "v = c; u += d", "refractory": "",
        "method": "euler", "dt": 1e-4, "steps": 5000,
        "neuron_labels": [f"{name}, I = {cur * 1e3:g} mV" for name, _, cur in rows],
        "parameters": {"a": a, "b": b, "c": c, "d": d},
        "inputs": {"I": per_neuron([r[2] for r in rows], n)},
        # u = b*v evaluated in float64 from the float32 values, then rounded to float32
        "initial": {"v": v0, "u": f32(b * v0)},
        "presets": {name: {k: float(f32(v)) for k, v in zip("abcd", p)}
                    for name, p in presets.items()},
        "trace_neurons": [1, 4, 7, 13],  # RS, IB, CH at 10 mV; LTS at 10 mV
        "threshold_var": "v", "threshold_value": per_neuron(0.030, n),
    }


def adex():
    # Naud, Marcille, Clopath & Gerstner 2008, Biol Cybern 99:335, Table 1
    keys = ("C", "gL", "EL", "VT", "DeltaT", "a", "tauw", "b", "Vr", "I")
    presets = {
        "tonic": (200e-12, 10e-9, -0.070, -0.050, 0.002, 2e-9, 0.030, 0.0, -0.058, 500e-12),
        "adapting": (200e-12, 12e-9, -0.070, -0.050, 0.002, 2e-9, 0.300, 60e-12, -0.058,
                     500e-12),
        "bursting": (200e-12, 10e-9, -0.058, -0.050, 0.002, 2e-9, 0.120, 100e-12, -0.046,
                     210e-12),
    }
    scales = [0.8, 1.0, 1.2]
    rows = [(name, dict(zip(keys, p)), s) for name, p in presets.items() for s in scales]
    n = len(rows)
    params = {k: per_neuron([r[1][k] for r in rows], n) for k in keys if k != "I"}
    # Vcut = VT + 5*DeltaT, computed in float64 from the float32 values, then rounded
    params["Vcut"] = f32(params["VT"] + 5 * params["DeltaT"])
    preset_doc = {}
    for name, p in presets.items():
        q = {k: float(f32(v)) for k, v in zip(keys, p)}
        q["Vcut"] = float(f32(q["VT"] + 5 * q["DeltaT"]))
        preset_doc[name] = q
    return {
        "equations": "dvm/dt = (gL*(EL - vm) + gL*DeltaT*exp((vm - VT)/DeltaT) + I - w) / C : volt\n"
                     "dw/dt = (a*(vm - EL) - w) / tauw : amp\n"
                     "I : amp\n"
                     "C : farad\n"
                     "gL : siemens\n"
                     "EL : volt\n"
                     "VT : volt\n"
                     "DeltaT : volt\n"
                     "a : siemens\n"
                     "tauw : second\n"
                     "b : amp\n"
                     "Vr : volt\n"
                     "Vcut : volt\n",
        "threshold": "vm > Vcut", "reset": "vm = Vr; w += b", "refractory": "",
        "method": "euler", "dt": 1e-4, "steps": 5000,
        "neuron_labels": [f"{name}, I x {s:g}" for name, _, s in rows],
        "parameters": params,
        "inputs": {"I": per_neuron([r[1]["I"] * r[2] for r in rows], n)},
        "initial": {"vm": params["EL"].copy(), "w": per_neuron(0.0, n)},
        "presets": preset_doc,
        "trace_neurons": [1, 4, 7],  # each preset at its nominal current
        "threshold_var": "vm", "threshold_value": params["Vcut"],
    }


def hh_rates(v):
    """Squid axon rate functions [1/s] at v [V], in float64 (as in the equations)."""
    vm = v * 1e3  # [mV]
    x = -(vm + 40) / 10
    alpham = 1e3 * (x / np.expm1(x) if x != 0 else 1.0)
    betam = 1e3 * 4 * np.exp(-(vm + 65) / 18)
    alphah = 1e3 * 0.07 * np.exp(-(vm + 65) / 20)
    betah = 1e3 / (1 + np.exp(-(vm + 35) / 10))
    x = -(vm + 55) / 10
    alphan = 1e3 * 0.1 * (x / np.expm1(x) if x != 0 else 1.0)
    betan = 1e3 * 0.125 * np.exp(-(vm + 65) / 80)
    return alpham, betam, alphah, betah, alphan, betan


def hodgkin_huxley():
    currents = [0, 2, 5, 7, 10, 15, 20, 40]  # [uA/cm^2]; 1 uA/cm^2 = 0.01 A/m^2
    n = len(currents)
    am, bm, ah, bh, an, bn = hh_rates(-0.065)
    params = {
        "C": per_neuron(0.01, n),       # 1 uF/cm^2 [F/m^2]
        "gNa": per_neuron(1200.0, n),   # 120 mS/cm^2 [S/m^2]
        "gK": per_neuron(360.0, n),     # 36 mS/cm^2
        "gL": per_neuron(3.0, n),       # 0.3 mS/cm^2
        "ENa": per_neuron(0.050, n),
        "EK": per_neuron(-0.077, n),
        "EL": per_neuron(-0.054387, n),
    }
    return {
        "equations": "dv/dt = (gNa*m**3*h*(ENa - v) + gK*n**4*(EK - v) + gL*(EL - v) + I) / C : volt\n"
                     "dm/dt = alpham*(1 - m) - betam*m : 1\n"
                     "dh/dt = alphah*(1 - h) - betah*h : 1\n"
                     "dn/dt = alphan*(1 - n) - betan*n : 1\n"
                     "alpham = 1/exprel(-(v + 40*mV)/(10*mV)) / ms : Hz\n"
                     "betam = 4*exp(-(v + 65*mV)/(18*mV)) / ms : Hz\n"
                     "alphah = 0.07*exp(-(v + 65*mV)/(20*mV)) / ms : Hz\n"
                     "betah = 1/(1 + exp(-(v + 35*mV)/(10*mV))) / ms : Hz\n"
                     "alphan = 0.1/exprel(-(v + 55*mV)/(10*mV)) / ms : Hz\n"
                     "betan = 0.125*exp(-(v + 65*mV)/(80*mV)) / ms : Hz\n"
                     "I : amp/metre**2\n"
                     "C : farad/metre**2\n"
                     "gNa : siemens/metre**2\n"
                     "gK : siemens/metre**2\n"
                     "gL : siemens/metre**2\n"
                     "ENa : volt\n"
                     "EK : volt\n"
                     "EL : volt\n",
        "threshold": "v > -20*mV", "reset": "", "refractory": "v > -20*mV",
        "method": "exponential_euler", "dt": 1e-5, "steps": 5000,
        "neuron_labels": [f"I = {c:g} uA/cm^2" for c in currents],
        "parameters": params,
        "inputs": {"I": per_neuron([0.01 * c for c in currents], n)},
        # steady state at -65 mV: x_inf = alpha_x / (alpha_x + beta_x), float64, then float32
        "initial": {"v": per_neuron(-0.065, n), "m": per_neuron(am / (am + bm), n),
                    "h": per_neuron(ah / (ah + bh), n), "n": per_neuron(an / (an + bn), n)},
        "trace_neurons": [2, 4, 7],
        "threshold_var": "v", "threshold_value": per_neuron(-0.020, n),
    }


def qif():
    currents = [0, 2, 4, 6, 8, 12]  # [mV]
    n = len(currents)
    params = {
        "k": per_neuron(20.0, n),  # 0.02/mV [1/V]
        "v_rest": per_neuron(-0.065, n),
        "v_crit": per_neuron(-0.050, n),
        "tau": per_neuron(0.010, n),
        "v_peak": per_neuron(0.020, n),
        "v_reset": per_neuron(-0.070, n),
    }
    return {
        "equations": "dv/dt = (k*(v - v_rest)*(v - v_crit) + I) / tau : volt\n"
                     "I : volt\n"
                     "k : 1/volt\n"
                     "v_rest : volt\n"
                     "v_crit : volt\n"
                     "tau : second\n"
                     "v_peak : volt\n"
                     "v_reset : volt\n",
        "threshold": "v >= v_peak", "reset": "v = v_reset", "refractory": "2*ms",
        "method": "euler", "dt": 1e-4, "steps": 5000,
        "neuron_labels": [f"I = {c:g} mV" for c in currents],
        "parameters": params,
        "inputs": {"I": per_neuron([1e-3 * c for c in currents], n)},
        "initial": {"v": params["v_rest"].copy()},
        "trace_neurons": [1, 3, 5],
        "threshold_var": "v", "threshold_value": params["v_peak"],
    }


def fitzhugh_nagumo():
    currents = [0, 0.3, 0.5, 0.8, 1.0, 1.5]
    n = len(currents)
    params = {
        "a": per_neuron(0.7, n),
        "b": per_neuron(0.8, n),
        "tau": per_neuron(0.001, n),
        "tau_w": per_neuron(0.0125, n),
    }
    return {
        "equations": "dv/dt = (v - v**3/3 - w + I) / tau : 1\n"
                     "dw/dt = (v + a - b*w) / tau_w : 1\n"
                     "I : 1\n"
                     "a : 1\n"
                     "b : 1\n"
                     "tau : second\n"
                     "tau_w : second\n",
        "threshold": "v > 1", "reset": "", "refractory": "v > 1",
        "method": "euler", "dt": 5e-5, "steps": 4000,
        "neuron_labels": [f"I = {c:g}" for c in currents],
        "parameters": params,
        "inputs": {"I": per_neuron(currents, n)},
        "initial": {"v": per_neuron(-1.2, n), "w": per_neuron(-0.625, n)},
        "trace_neurons": [0, 2, 4, 5],
        "threshold_var": "v", "threshold_value": per_neuron(1.0, n),
    }


def adaptive_lif():
    currents = [15, 20, 25, 30, 40, 60]  # [mV]
    n = len(currents)
    params = {
        "tau_m": per_neuron(0.010, n),
        "tau_w": per_neuron(0.100, n),
        "v_rest": per_neuron(-0.070, n),
        "v_th": per_neuron(-0.050, n),
        "v_reset": per_neuron(-0.070, n),
        "b": per_neuron(0.002, n),
    }
    return {
        "equations": "dv/dt = (v_rest - v - w + I) / tau_m : volt (unless refractory)\n"
                     "dw/dt = -w / tau_w : volt\n"
                     "I : volt\n"
                     "tau_m : second\n"
                     "tau_w : second\n"
                     "v_rest : volt\n"
                     "v_th : volt\n"
                     "v_reset : volt\n"
                     "b : volt\n",
        "threshold": "v > v_th", "reset": "v = v_reset; w += b", "refractory": "2*ms",
        "method": None,  # Brian2 chooses; the JSON records the method it used
        "dt": 1e-4, "steps": 5000,
        "neuron_labels": [f"I = {c:g} mV" for c in currents],
        "parameters": params,
        "inputs": {"I": per_neuron([1e-3 * c for c in currents], n)},
        "initial": {"v": params["v_rest"].copy(), "w": per_neuron(0.0, n)},
        "trace_neurons": [1, 3, 5],
        "threshold_var": "v", "threshold_value": params["v_th"],
    }


COBA_N = 20
COBA_STEPS = 2000


def coba_draw_neuron(rng, strong):
    """Input pattern of one coba neuron: float32 weights, initial v and Bernoulli input steps.
    A strongly driven neuron fires regularly at tens of Hz."""
    exc_rate = rng.uniform(500.0, 800.0) if strong else rng.uniform(100.0, 400.0)  # [Hz]
    inh_rate = rng.uniform(20.0, 60.0) if strong else rng.uniform(30.0, 150.0)
    dt = 1e-4
    return {
        "we": float(f32(rng.uniform(0.3, 1.0))),
        "wi": float(f32(rng.uniform(3.0, 9.0))),
        "v0": float(f32(-0.060 + rng.uniform() * (-0.050 - -0.060))),
        "exc": np.flatnonzero(rng.uniform(size=COBA_STEPS) < exc_rate * dt),
        "inh": np.flatnonzero(rng.uniform(size=COBA_STEPS) < inh_rate * dt),
    }


def coba_spec(neurons):
    n = len(neurons)
    params = {
        "taum": per_neuron(0.020, n),
        "taue": per_neuron(0.005, n),
        "taui": per_neuron(0.010, n),
        "El": per_neuron(-0.060, n),
        "Ee": per_neuron(0.0, n),
        "Ei": per_neuron(-0.080, n),
        "Vt": per_neuron(-0.050, n),
        "Vr": per_neuron(-0.060, n),
    }

    def deliveries(key):
        steps = np.concatenate([nrn[key] for nrn in neurons]).astype(int)
        idx = np.concatenate([np.full(len(nrn[key]), j) for j, nrn in enumerate(neurons)])
        order = np.lexsort((idx, steps))
        return steps[order], idx[order]

    exc_step, exc_idx = deliveries("exc")
    inh_step, inh_idx = deliveries("inh")
    return {
        "equations": "dv/dt = (ge*(Ee - v) + gi*(Ei - v) - (v - El)) / taum : volt (unless refractory)\n"
                     "dge/dt = -ge / taue : 1\n"
                     "dgi/dt = -gi / taui : 1\n"
                     "taum : second\n"
                     "taue : second\n"
                     "taui : second\n"
                     "El : volt\n"
                     "Ee : volt\n"
                     "Ei : volt\n"
                     "Vt : volt\n"
                     "Vr : volt\n",
        "threshold": "v > Vt", "reset": "v = Vr", "refractory": "5*ms",
        "method": "exponential_euler", "dt": 1e-4, "steps": COBA_STEPS,
        "neuron_labels": [("strong" if j % 4 == 1 else "moderate") + " input"
                          for j in range(n)],
        "parameters": params,
        "inputs": {},
        "events": {
            "ge": {"weight": per_neuron([nrn["we"] for nrn in neurons], n),
                   "step": exc_step, "neuron": exc_idx},
            "gi": {"weight": per_neuron([nrn["wi"] for nrn in neurons], n),
                   "step": inh_step, "neuron": inh_idx},
        },
        "initial": {"v": per_neuron([nrn["v0"] for nrn in neurons], n),
                    "ge": per_neuron(0.0, n), "gi": per_neuron(0.0, n)},
        "trace_neurons": [0, 1, 5, 10],
        "threshold_var": "v", "threshold_value": params["Vt"],
    }


# ---------------------------------------------------------------------------------------------
# Simulation
# ---------------------------------------------------------------------------------------------

class MethodLog(logging.Handler):
    """Catches Brian2's 'No numerical integration method specified ... using method X'."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.methods = []

    def emit(self, record):
        m = re.search(r"using method '([a-z_]+)'", record.getMessage())
        if m:
            self.methods.append(m.group(1))


def simulate(spec, dtype):
    """Runs one model in Brian2 with the given default float dtype."""
    start_scope()
    prefs.codegen.target = "numpy"
    prefs.core.default_float_dtype = dtype
    dt = spec["dt"]
    defaultclock.dt = dt * second
    n = len(next(iter(spec["parameters"].values())))
    kwargs = {}
    if spec["method"] is not None:
        kwargs["method"] = spec["method"]
    if spec["method"] is None:
        # Brian2 caches the state updater per (equations, variables, method); without this,
        # a second identical run would not log its choice again
        StateUpdateMethod.apply_stateupdater.__wrapped__._cache.clear()
    catcher = MethodLog()
    blog = logging.getLogger("brian2")
    blog.addHandler(catcher)
    G = NeuronGroup(n, spec["equations"], threshold=spec["threshold"],
                    reset=spec["reset"] or None, refractory=spec["refractory"] or False,
                    namespace={}, **kwargs)
    for group in ("parameters", "inputs", "initial"):
        for name, values in spec[group].items():
            setattr(G, name + "_", values)

    objects = []
    if "events" in spec:
        ev = spec["events"]
        names = list(ev)
        idx = np.concatenate([ev[nm]["neuron"] + k * n for k, nm in enumerate(names)])
        steps = np.concatenate([ev[nm]["step"] for nm in names])
        src = SpikeGeneratorGroup(len(names) * n, idx.astype(int), steps * dt * second)
        src_mon = SpikeMonitor(src)
        objects += [src, src_mon]
        for k, nm in enumerate(names):
            syn = Synapses(src, G, "w : 1", on_pre=f"{nm} += w", namespace={})
            syn.connect(i=np.arange(k * n, (k + 1) * n), j=np.arange(n))
            syn.w_ = ev[nm]["weight"]
            objects.append(syn)

    trace_vars = list(spec["initial"])
    spikes = SpikeMonitor(G)
    after = StateMonitor(G, trace_vars, record=spec["trace_neurons"], when="end")
    before_vars = [spec["threshold_var"]] + (["not_refractory"] if spec["refractory"] else [])
    before = StateMonitor(G, before_vars, record=True, when="thresholds", order=-1)
    try:
        net = Network(G, spikes, after, before, *objects)
        net.run(spec["steps"] * dt * second, namespace={})
    finally:
        blog.removeHandler(catcher)

    # the run really used the requested precision
    for name in trace_vars + list(spec["parameters"]):
        got = G.variables[name].get_value().dtype
        assert got == dtype, f"{name} is {got}, expected {dtype}"
    assert after.t[:].shape[0] == spec["steps"], "unexpected number of recorded steps"
    if "events" in spec:  # every input spike was delivered in the intended step
        got = sorted(zip(np.rint(src_mon.t_ / dt).astype(int), src_mon.i[:]))
        want = sorted(zip(steps.astype(int), idx.astype(int)))
        assert got == want, "input spikes not delivered in the intended steps"

    method = spec["method"]
    if method is None:
        assert len(catcher.methods) == 1, catcher.methods
        method = catcher.methods[0]

    spike_step = np.rint(spikes.t_ / dt).astype(int)
    spike_neuron = np.asarray(spikes.i[:], dtype=int)
    order = np.lexsort((spike_neuron, spike_step))
    stride = trace_stride(spec["steps"])
    traces = {var: np.asarray(getattr(after, var + "_"))[:, stride - 1::stride]
              for var in trace_vars}
    x = np.asarray(getattr(before, spec["threshold_var"] + "_"), dtype=np.float64)
    dist = np.abs(x - spec["threshold_value"][:, None])
    if spec["refractory"]:
        dist = np.where(np.asarray(before.not_refractory[:], dtype=bool), dist, np.inf)
    return {
        "method": method,
        "abstract_code": G.state_updater.abstract_code,
        "dtype": np.dtype(dtype).name,
        "spike_step": spike_step[order],
        "spike_neuron": spike_neuron[order],
        "traces": traces,
        "threshold_distance": dist.min(axis=1),
    }


def trace_stride(steps):
    return -(-steps // MAX_TRACE_SAMPLES)


def trains(result, n):
    return [result["spike_step"][result["spike_neuron"] == j] for j in range(n)]


def compare(r64, r32, n):
    """float32 run against float64 run."""
    t64, t32 = trains(r64, n), trains(r32, n)
    c64 = np.array([len(t) for t in t64])
    c32 = np.array([len(t) for t in t32])
    first_index, first_step, max_offset = [], [], []
    for a, b in zip(t64, t32):
        m = min(len(a), len(b))
        max_offset.append(int(np.max(np.abs(a[:m] - b[:m]))) if m else 0)
        diff = np.flatnonzero(a[:m] != b[:m])
        if len(diff):
            k = int(diff[0])
            first_index.append(k)
            first_step.append(int(min(a[k], b[k])))
        elif len(a) != len(b):
            first_index.append(m)
            first_step.append(int(a[m] if len(a) > m else b[m]))
        else:
            first_index.append(None)
            first_step.append(None)
    steps = [s for s in first_step if s is not None]
    max_diff = {}
    for var in r64["traces"]:
        max_diff[var] = float(np.max(np.abs(r64["traces"][var]
                                            - r32["traces"][var].astype(np.float64))))
    return {
        "diverges": bool(steps),
        "first_differing_spike_step": min(steps) if steps else None,
        "max_count_difference": int(np.max(np.abs(c64 - c32))),
        "per_neuron_counts": {"float64": c64.tolist(), "float32": c32.tolist()},
        # extra detail, per neuron: index (in the neuron's own train) and step of the first
        # spike that differs between the runs (null: identical trains)
        "per_neuron_first_differing_spike_index": first_index,
        "per_neuron_first_differing_spike_step": first_step,
        # largest |step(float32) - step(float64)| of the k-th spike, k over both trains
        "per_neuron_max_abs_step_offset": max_offset,
        "max_abs_trace_difference": max_diff,
        # closest approach of the threshold variable to its threshold in a step where the
        # neuron could spike (before the threshold, not refractory), SI, per run
        "min_threshold_distance": {
            "float64": [float(f"{x:.6g}") for x in r64["threshold_distance"]],
            "float32": [float(f"{x:.6g}") for x in r32["threshold_distance"]]},
    }


def run_coba():
    """Draws coba inputs (redrawing neurons that come too close to the threshold) and runs."""
    rng = np.random.default_rng(SEED)
    strong = [j % 4 == 1 for j in range(COBA_N)]
    neurons = [coba_draw_neuron(rng, strong[j]) for j in range(COBA_N)]
    for rounds in range(1, COBA_MAX_ROUNDS + 1):
        spec = coba_spec(neurons)
        r64 = simulate(spec, np.float64)
        bad = np.flatnonzero(r64["threshold_distance"] < COBA_MARGIN)
        print(f"  coba round {rounds}: {len(r64['spike_step'])} spikes, "
              f"{len(bad)} neurons closer than {COBA_MARGIN} V to Vt")
        if len(bad) == 0:
            break
        for j in bad:
            neurons[j] = coba_draw_neuron(rng, strong[j])
    else:
        raise SystemExit("coba: no input pattern without near-threshold steps found")
    spec["seed"] = SEED
    spec["threshold_margin"] = COBA_MARGIN
    return spec, r64


MODELS = {
    "izhikevich": izhikevich,
    "adex": adex,
    "hodgkin_huxley": hodgkin_huxley,
    "qif": qif,
    "fitzhugh_nagumo": fitzhugh_nagumo,
    "adaptive_lif": adaptive_lif,
    "coba": None,
}


def floats(values):
    return [float(x) for x in np.asarray(values, dtype=np.float64)]


def trace_list(arr, dtype_name):
    fmt = "{:.9g}" if dtype_name == "float32" else "{:.13g}"
    return [[float(fmt.format(x)) for x in row] for row in np.asarray(arr, dtype=np.float64)]


def make(model):
    if model == "coba":
        spec, r64 = run_coba()
    else:
        spec = MODELS[model]()
        r64 = simulate(spec, np.float64)
    r32 = simulate(spec, np.float32)
    assert r64["method"] == r32["method"]
    n = len(next(iter(spec["parameters"].values())))
    doc = {
        "model": model,
        "brian2_version": brian2.__version__,
        "numpy_version": np.__version__,
        "codegen_target": "numpy",
        "generator": "tests/data/brian2_models/generate_reference.py",
        "equations": spec["equations"],
        "threshold": spec["threshold"],
        "reset": spec["reset"],
        "refractory": spec["refractory"],
        "method": r64["method"],
        "method_requested": spec["method"],
        # Brian2's state update for one step (refractoriness, then the integration method)
        "state_update_code": r64["abstract_code"],
        "dt": spec["dt"],
        "steps": spec["steps"],
        "n": n,
        "neuron_labels": spec["neuron_labels"],
        "parameters": {k: floats(v) for k, v in spec["parameters"].items()},
        "inputs": {k: floats(v) for k, v in spec["inputs"].items()},
    }
    if "events" in spec:
        doc["events"] = {nm: {"weight": floats(ev["weight"]),
                              "step": [int(s) for s in ev["step"]],
                              "neuron": [int(i) for i in ev["neuron"]]}
                         for nm, ev in spec["events"].items()}
        doc["seed"] = spec["seed"]
        doc["threshold_margin"] = spec["threshold_margin"]
    doc["initial"] = {k: floats(v) for k, v in spec["initial"].items()}
    if "presets" in spec:
        doc["presets"] = spec["presets"]
    doc["trace_neurons"] = spec["trace_neurons"]
    doc["trace_stride"] = trace_stride(spec["steps"])
    doc["runs"] = {}
    for r in (r64, r32):
        doc["runs"][r["dtype"]] = {
            "spikes": {"step": [int(s) for s in r["spike_step"]],
                       "neuron": [int(i) for i in r["spike_neuron"]]},
            "traces": {var: trace_list(tr, r["dtype"]) for var, tr in r["traces"].items()},
        }
    doc["comparison"] = compare(r64, r32, n)

    path = os.path.join(HERE, f"{model}.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    cmp = doc["comparison"]
    print(f"wrote {path} ({os.path.getsize(path) // 1024} KB), method {doc['method']}")
    for j in range(n):
        tr = r64["spike_step"][r64["spike_neuron"] == j]
        isi = np.diff(tr) * spec["dt"] * 1e3
        isi_txt = (f"ISI first {isi[0]:.1f} last {isi[-1]:.1f} min {isi.min():.1f} "
                   f"max {isi.max():.1f} ms" if len(isi) else "")
        print(f"  {j:2d} {spec['neuron_labels'][j]:34s} f64 {cmp['per_neuron_counts']['float64'][j]:4d}"
              f" f32 {cmp['per_neuron_counts']['float32'][j]:4d}"
              f" first diff {cmp['per_neuron_first_differing_spike_step'][j]}"
              f" margin {r64['threshold_distance'][j]:.3g}  {isi_txt}")
    print(f"  diverges {cmp['diverges']}, first differing step "
          f"{cmp['first_differing_spike_step']}, max count diff {cmp['max_count_difference']}, "
          f"max |trace diff| {cmp['max_abs_trace_difference']}")


def main(argv):
    models = argv or list(MODELS)
    for m in models:
        if m not in MODELS:
            raise SystemExit(f"unknown model {m!r}; known: {', '.join(MODELS)}")
    for m in models:
        print(m)
        make(m)


if __name__ == "__main__":
    main(sys.argv[1:])
