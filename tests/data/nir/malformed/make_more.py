"""More broken NIR files for the importer's malformed corpus (beside the NIR library's own in
README.json): each is lif_affine's graph with one thing wrong, written in the NIR library's
layout with h5py. more.json says what the importer must name. Run with Debian's python3-h5py:
/usr/bin/python3 make_more.py"""
import json

import h5py
import numpy as np

STR = h5py.string_dtype("utf-8")


def base():
    rng = np.random.default_rng(3)
    return {
        "input": {"type": "Input", "shape": np.array([4], np.int64)},
        "fc": {"type": "Affine", "weight": rng.normal(size=(6, 4)).astype(np.float32),
               "bias": np.zeros(6, np.float32)},
        "lif": {"type": "LIF", "tau": np.full(6, 0.02, np.float32), "r": np.ones(6, np.float32),
                "v_leak": np.zeros(6, np.float32), "v_threshold": np.ones(6, np.float32),
                "v_reset": np.zeros(6, np.float32)},
        "output": {"type": "Output", "shape": np.array([6], np.int64)},
    }, [("input", "fc"), ("fc", "lif"), ("lif", "output")]


def write(path, nodes, edges, version="1.0.7"):
    with h5py.File(path, "w") as f:
        f.create_dataset("version", data=version, dtype=STR)
        g = f.create_group("node")
        g.create_dataset("type", data="NIRGraph", dtype=STR)
        g.create_dataset("edges", data=np.array(edges, dtype=object), dtype=STR)
        for name, params in nodes.items():
            n = g.create_group("nodes/" + name)
            for key, value in params.items():
                n.create_dataset(key, data=value, dtype=STR if key == "type" else None)


def main():
    expected = {}

    nodes, edges = base()
    write("future_version.nir", nodes, edges, version="2.1.0")
    expected["future_version.nir"] = "written by NIR 2.1.0"

    nodes, edges = base()
    nodes["lif"]["v_threshold"][2] = np.nan
    write("nan_threshold.nir", nodes, edges)
    expected["nan_threshold.nir"] = "v_threshold[2] is not a finite float32 number"

    nodes, edges = base()
    nodes["input"]["shape"] = np.array([1, 3, 3], np.int64)
    nodes["conv"] = {"type": "Conv2d", "weight": np.ones((2, 1, 5, 5), np.float32),
                     "bias": np.zeros(2, np.float32), "stride": np.array([1, 1]),
                     "padding": np.array([0, 0]), "dilation": np.array([1, 1]),
                     "groups": np.array(1), "input_shape": np.array([3, 3])}
    edges = [("input", "conv"), ("conv", "fc"), ("fc", "lif"), ("lif", "output")]
    write("conv_kernel_too_large.nir", nodes, edges)
    expected["conv_kernel_too_large.nir"] = "does not fit an input of 3"

    nodes, edges = base()
    nodes["delay"] = {"type": "Delay", "delay": np.full(6, -0.002, np.float32)}
    edges = [("input", "fc"), ("fc", "delay"), ("delay", "lif"), ("lif", "output")]
    write("negative_delay.nir", nodes, edges)
    expected["negative_delay.nir"] = "delay must be >= 0"

    nodes, edges = base()
    nodes["input"]["shape"] = np.array([100000, 100000], np.int64)
    write("huge_input.nir", nodes, edges)
    expected["huge_input.nir"] = "node 'input'"

    nodes, edges = base()
    nodes["lif"]["tau"] = np.full(5, 0.02, np.float32)
    write("parameter_count.nir", nodes, edges)
    expected["parameter_count.nir"] = "parameter r has shape (6,), the others (5,)"

    nodes, edges = base()
    nodes["fc"]["weight"] = np.ones((6, 4, 1), np.float32)
    write("weight_rank.nir", nodes, edges)
    expected["weight_rank.nir"] = "expected (out, in)"

    nodes, edges = base()
    nodes["fc"]["weight"] = np.array("six by four", dtype=object)
    write("weight_as_string.nir", nodes, edges)
    expected["weight_as_string.nir"] = "expected numbers, got a string"

    nodes, edges = base()
    nodes["pool"] = {"type": "SumPool2d", "kernel_size": np.array([2, 2]),
                     "stride": np.array([2, 2]), "padding": np.array([0, 0])}
    edges = [("input", "pool"), ("pool", "fc"), ("fc", "lif"), ("lif", "output")]
    write("pool_on_vector.nir", nodes, edges)
    expected["pool_on_vector.nir"] = "expected a (C, H, W) input"

    with open("more.json", "w") as f:
        json.dump(expected, f, indent=1)


if __name__ == "__main__":
    main()
