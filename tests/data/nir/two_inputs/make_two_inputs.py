"""Writes a NIR graph with two Input nodes ("a": 2 channels, "b": 3 channels, each through an
Affine into one LIF of 4 neurons), an input.npz holding one (T, N) array per Input node (named
as the node, float32), and the recordings of NIR's reference forward-Euler simulation (the
scheme of ../README.md) at dt = 1 ms, in float64. The file layout is the NIR library's (as
nir.write lays it out: /version, /node/type, /node/nodes/<name>/..., /node/edges as (E, 2)
UTF-8 strings). The seed is the first whose float32 simulation cannot cross the threshold
differently (every membrane value stays 1e-3 away from it). Run with Debian's
python3-h5py and python3-numpy: /usr/bin/python3 make_two_inputs.py"""
import json

import h5py
import numpy as np

DT, STEPS = 1e-3, 200
STR = h5py.string_dtype("utf-8")


def graph(rng):
    return {
        "a": {"type": "Input", "shape": np.array([2], dtype=np.int64)},
        "b": {"type": "Input", "shape": np.array([3], dtype=np.int64)},
        "fa": {"type": "Affine", "weight": rng.normal(0, 1.5, (4, 2)).astype(np.float32),
               "bias": rng.normal(0, 0.2, 4).astype(np.float32)},
        "fb": {"type": "Affine", "weight": rng.normal(0, 1.5, (4, 3)).astype(np.float32),
               "bias": rng.normal(0, 0.2, 4).astype(np.float32)},
        "lif": {"type": "LIF", "tau": np.full(4, 0.02, np.float32), "r": np.full(4, 2.0, np.float32),
                "v_leak": np.zeros(4, np.float32), "v_threshold": np.ones(4, np.float32),
                "v_reset": np.zeros(4, np.float32)},
        "output": {"type": "Output", "shape": np.array([4], dtype=np.int64)},
    }


EDGES = [("a", "fa"), ("b", "fb"), ("fa", "lif"), ("fb", "lif"), ("lif", "output")]


def simulate(nodes, a, b):
    fa, fb, lif = nodes["fa"], nodes["fb"], nodes["lif"]
    v = np.zeros(4)
    vs, zs, closest = [], [], np.inf
    for t in range(STEPS):
        x = fa["weight"].astype(float) @ a[t] + fa["bias"] + fb["weight"].astype(float) @ b[t] + fb["bias"]
        v = v + DT / lif["tau"].astype(float) * (lif["v_leak"] - v + lif["r"] * x)
        closest = min(closest, np.min(np.abs(v - lif["v_threshold"])))
        z = (v > lif["v_threshold"]).astype(float)
        v = np.where(z > 0, lif["v_reset"], v)
        vs.append(v.copy())
        zs.append(z)
    return np.array(vs), np.array(zs), closest


def main():
    for seed in range(100):
        rng = np.random.default_rng(seed)
        nodes = graph(rng)
        a = rng.uniform(0, 1, (STEPS, 2)).astype(np.float32)
        b = rng.uniform(0, 1, (STEPS, 3)).astype(np.float32)
        v, z, closest = simulate(nodes, a.astype(float), b.astype(float))
        if closest > 1e-3 and 20 < z.sum() < 300:
            break
    with h5py.File("model.nir", "w") as f:
        f.create_dataset("version", data="1.0.7", dtype=STR)
        g = f.create_group("node")
        g.create_dataset("type", data="NIRGraph", dtype=STR)
        g.create_dataset("edges", data=np.array(EDGES, dtype=object), dtype=STR)
        for name, params in nodes.items():
            n = g.create_group("nodes/" + name)
            for key, value in params.items():
                if key == "type":
                    n.create_dataset("type", data=value, dtype=STR)
                else:
                    n.create_dataset(key, data=value)
    np.savez("input.npz", a=a, b=b)
    np.save("expected_lif_v.npy", v.astype(np.float32))
    np.save("expected_output_output.npy", z.astype(np.float32))
    with open("case.json", "w") as f:
        json.dump({"made_by": "make_two_inputs.py (h5py and NumPy, not the NIR library)",
                   "seed": seed, "dt": DT, "steps": STEPS, "input": "input.npz",
                   "discretisation": "NIR forward Euler as ../README.md",
                   "expected": {"lif.v": "expected_lif_v.npy",
                                "output.output": "expected_output_output.npy"},
                   "output_spikes": float(z.sum()), "closest_to_threshold": float(closest),
                   "tolerance": {"atol": 1e-4, "rtol": 1e-4, "spikes": "exact"}}, f, indent=1)
    print("seed", seed, "spikes", z.sum(), "closest", closest)


if __name__ == "__main__":
    main()
