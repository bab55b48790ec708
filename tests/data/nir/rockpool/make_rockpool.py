"""Writes two NIR files laid out as Rockpool's to_nir lays out a LIFTorch, from two of the
Rockpool cases in ../../reference (recorded with Rockpool's LIFTorch itself), so that importing
them with discretisation "rockpool" must reproduce Rockpool's recordings:

  ff.nir         lif_ff_scalar: input -> "0" (CubaLIF, 4 neurons) -> output
  recurrent.nir  lif_recurrent: input -> "0" -> output, where "0" is a NIRGraph of input ->
                 lif (CubaLIF, 8 neurons) -> output with a Linear "w_rec" from lif back to lif
                 (the nested form Rockpool's from_nir reads as a recurrent LIFTorch)

Each CubaLIF holds Rockpool's fields: tau_mem, tau_syn, r = tau_mem * exp(-dt / tau_mem) / dt
(float32, as its to_nir computes it in torch), v_threshold, w_in = 1, v_reset = 0. One
difference: v_leak holds the LIFTorch bias (Rockpool's to_nir writes zeros there; its from_nir
reads v_leak as the bias), so the recurrent case checks the bias too. Nodes are named "0" as
nirtorch names a Sequential's children. Layout as nir.write (version 1.0.7). Run with Debian's
python3-h5py and python3-numpy: /usr/bin/python3 make_rockpool.py"""
import json

import h5py
import numpy as np

REF = "../../reference/"
STR = h5py.string_dtype("utf-8")


def load(case, name, n):
    return np.broadcast_to(np.load(REF + case + "/" + name + ".npy").astype(np.float32).reshape(-1), (n,)).copy()


def cubalif(case, n, dt):
    tau_mem = load(case, "tau_mem", n)
    f32 = np.float32
    r = (tau_mem * np.exp(-f32(dt) / tau_mem) / f32(dt)).astype(np.float32)
    return {"type": "CubaLIF", "tau_mem": tau_mem, "tau_syn": load(case, "tau_syn", n), "r": r,
            "v_leak": load(case, "bias", n), "v_threshold": load(case, "threshold", n),
            "v_reset": np.zeros(n, np.float32), "w_in": np.ones(n, np.float32)}


def io(kind, n):
    return {"type": kind, "shape": np.array([n], dtype=np.int64)}


def write_graph(group, nodes, edges):
    group.create_dataset("type", data="NIRGraph", dtype=STR)
    group.create_dataset("edges", data=np.array(edges, dtype=object), dtype=STR)
    for name, params in nodes.items():
        g = group.create_group("nodes/" + name)
        if params["type"] == "NIRGraph":
            write_graph(g, params["nodes"], params["edges"])
            continue
        for key, value in params.items():
            if key == "type":
                g.create_dataset("type", data=value, dtype=STR)
            else:
                g.create_dataset(key, data=value)


def write(path, nodes, edges):
    with h5py.File(path, "w") as f:
        f.create_dataset("version", data="1.0.7", dtype=STR)
        write_graph(f.create_group("node"), nodes, edges)


def main():
    cases = {}
    for case, name, recurrent in (("lif_ff_scalar", "ff", False), ("lif_recurrent", "recurrent", True)):
        spec = json.load(open(REF + case + "/case.json"))
        dt = spec["params"]["dt"]
        n = spec["params"]["shape"][1]
        lif = cubalif(case, n, dt)
        if recurrent:
            w_rec = np.load(REF + case + "/w_rec.npy").astype(np.float32)
            inner = {"input": io("Input", n), "lif": lif,
                     "w_rec": {"type": "Linear", "weight": np.ascontiguousarray(w_rec.T)},
                     "output": io("Output", n)}
            lif = {"type": "NIRGraph", "nodes": inner,
                   "edges": [("input", "lif"), ("lif", "w_rec"), ("w_rec", "lif"), ("lif", "output")]}
        write(name + ".nir", {"input": io("Input", n), "0": lif, "output": io("Output", n)},
              [("input", "0"), ("0", "output")])
        lif_path = "0.lif" if recurrent else "0"
        cases[name] = {"reference": case, "dt": dt, "steps": int(np.load(REF + case + "/input.npy").shape[0]),
                       "input": REF + case + "/input.npy",
                       "expected": {lif_path + ".vmem": REF + case + "/vmem.npy",
                                    "output.output": REF + case + "/spikes.npy"}}
    with open("cases.json", "w") as f:
        json.dump({"made_by": "make_rockpool.py (h5py and NumPy; the recordings are Rockpool's own)",
                   "discretisation": "rockpool", "cases": cases,
                   "tolerance": {"atol": 1e-4, "rtol": 1e-4, "spikes": "exact"}}, f, indent=1)


if __name__ == "__main__":
    main()
