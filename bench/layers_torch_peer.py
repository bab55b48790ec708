# layers_torch_peer: the PyTorch side of bench/layers. Times torch.nn.Linear, torch.nn.Conv2d
# (3x3, padding 1) and torch.nn.LSTM forward passes and checks engine outputs against torch.
#
# Cases are given as --case strings, the same ones bench/layers prints:
#
#     linear:B:IN:OUT           nn.Linear(IN, OUT) on x (B, IN)
#     conv2d:N:CIN:COUT:H:W     nn.Conv2d(CIN, COUT, 3, padding=1) on x (N, CIN, H, W)
#     lstm:L:N:IN:H:LAYERS      nn.LSTM(IN, H, LAYERS) on x (L, N, IN), zero initial state
#
# float32, torch.no_grad, eval mode, one thread: torch.set_num_threads, and OMP_NUM_THREADS /
# OPENBLAS_NUM_THREADS / MKL_NUM_THREADS set before torch is imported (torch built against a
# generic BLAS does not tell OpenBLAS how many threads to use). Timing per case: two warm-up
# calls, then the best of k calls, k = clamp(--budget / warm-up time, --min-repeats,
# --max-repeats) (time.perf_counter). The case's dominant operator (the aten op with the most
# self CPU time, from torch.autograd.profiler) is reported, e.g. aten::addmm or
# aten::mkldnn_convolution, so the output says which kernel did the work.
#
# --check DIR (repeatable): DIR holds case.txt (one case string), input.npy, one .npy per
# state-dict key of the module (written by the engine), and expected.npy (the engine's output;
# for LSTM also expected_h.npy and expected_c.npy, the final states). The peer loads the
# weights into the torch module (strict), runs it, and reports max |engine - torch|.
#
# Prints one JSON line on stdout: torch version, threads, BLAS (the libraries in this process's
# memory map, OpenBLAS's own thread count and configuration where it is OpenBLAS), oneDNN
# availability, "results" and "checks". On failure it prints {"error": ...} and exits with 2.
# Run by bench/layers through /usr/bin/python3 (Debian's interpreter, where python3-torch lives).
import argparse
import json
import math
import os
import re
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(
        description="PyTorch Linear/Conv2d/LSTM timings and checks, the peer of bench/layers")
    p.add_argument("--case", action="append", default=[], help="case string, e.g. linear:256:512:512")
    p.add_argument("--check", action="append", default=[], help="directory written by bench/layers")
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads and BLAS threads")
    p.add_argument("--budget", type=float, default=0.5, help="seconds of timed calls per case")
    p.add_argument("--min-repeats", type=int, default=3)
    p.add_argument("--max-repeats", type=int, default=50)
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args()


def parse_case(text):
    """(kind, dims) from a case string; raises ValueError for anything malformed."""
    parts = text.split(":")
    sizes = {"linear": 3, "conv2d": 5, "lstm": 5}
    kind = parts[0]
    if kind not in sizes or len(parts) != sizes[kind] + 1:
        raise ValueError("bad case %r (linear:B:IN:OUT, conv2d:N:CIN:COUT:H:W, "
                         "lstm:L:N:IN:H:LAYERS)" % text)
    dims = [int(v) for v in parts[1:]]
    if min(dims) < 1:
        raise ValueError("bad case %r: sizes must be >= 1" % text)
    return kind, dims


def build(torch, kind, dims, gen):
    """The module and a uniform [-1, 1) input for a case."""
    if kind == "linear":
        b, fin, fout = dims
        module = torch.nn.Linear(fin, fout)
        shape = (b, fin)
    elif kind == "conv2d":
        n, cin, cout, h, w = dims
        module = torch.nn.Conv2d(cin, cout, 3, padding=1)
        shape = (n, cin, h, w)
    else:
        steps, n, fin, hidden, layers = dims
        module = torch.nn.LSTM(fin, hidden, layers)
        shape = (steps, n, fin)
    module.eval()
    x = torch.rand(shape, generator=gen, dtype=torch.float32) * 2.0 - 1.0
    return module, x


def dominant_op(torch, module, x):
    """The aten operator with the most self CPU time in one forward call."""
    with torch.autograd.profiler.profile() as prof:
        module(x)
    events = [e for e in prof.key_averages() if e.key.startswith("aten::")]
    if not events:
        return ""
    return max(events, key=lambda e: e.self_cpu_time_total).key


def time_case(torch, args, text, gen):
    kind, dims = parse_case(text)
    module, x = build(torch, kind, dims, gen)
    module(x)  # first call: oneDNN primitive creation, allocator
    start = time.perf_counter()
    module(x)
    warm = time.perf_counter() - start
    repeats = int(min(args.max_repeats, max(args.min_repeats, args.budget / max(warm, 1e-9))))
    best = math.inf
    share = 1.0
    for _ in range(repeats):
        cpu = time.process_time()
        start = time.perf_counter()
        module(x)
        wall = time.perf_counter() - start
        if wall < best:
            best = wall
            share = (time.process_time() - cpu) / wall
    return {"case": text, "seconds": best, "repeats": repeats, "cpu_share": share,
            "op": dominant_op(torch, module, x)}


def check_case(torch, directory):
    import numpy as np

    with open(os.path.join(directory, "case.txt")) as f:
        text = f.read().strip()
    kind, dims = parse_case(text)
    module, _ = build(torch, kind, dims, torch.Generator().manual_seed(0))

    def load(name):
        return torch.from_numpy(np.load(os.path.join(directory, name + ".npy")))

    keys = list(module.state_dict().keys())
    module.load_state_dict({k: load(k) for k in keys}, strict=True)
    x = load("input")
    if kind == "lstm":
        y, (h, c) = module(x)
        outputs = {"expected": y, "expected_h": h, "expected_c": c}
    else:
        outputs = {"expected": module(x)}
    diff = 0.0
    ref = 0.0
    for name, got in outputs.items():
        want = load(name)
        if tuple(want.shape) != tuple(got.shape):
            raise ValueError("%s: engine %s has shape %s, torch %s" % (
                text, name, tuple(want.shape), tuple(got.shape)))
        diff = max(diff, float((want - got).abs().max()))
        ref = max(ref, float(got.abs().max()))
    return {"case": text, "dir": directory, "max_abs_diff": diff, "max_abs_torch": ref,
            "compared": sorted(outputs)}


def blas_info(torch):
    """What BLAS this process runs: libraries in the memory map, OpenBLAS's own report."""
    torch.nn.functional.linear(torch.ones(64, 64), torch.ones(64, 64))  # make sure it is loaded
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                name = os.path.basename(path).lower()
                if re.search(r"blas|lapack|mkl|blis|atlas", name):
                    libs.add(path)
    except OSError:
        pass
    info = {"libraries": sorted(libs), "resolved": sorted({os.path.realpath(p) for p in libs})}
    m = re.search(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
    info["torch_blas_info"] = m.group(1) if m else "?"
    for path in sorted(libs):
        try:
            import ctypes
            lib = ctypes.CDLL(path)
            if hasattr(lib, "openblas_get_num_threads"):
                lib.openblas_get_config.restype = ctypes.c_char_p
                info["openblas_threads"] = lib.openblas_get_num_threads()
                info["openblas_config"] = lib.openblas_get_config().decode()
                lib.openblas_get_corename.restype = ctypes.c_char_p
                info["openblas_core"] = lib.openblas_get_corename().decode()
                break
        except (OSError, AttributeError):
            continue
    resolved = " ".join(info["resolved"])
    if "openblas" in info.get("openblas_config", "").lower() or "openblas" in resolved:
        info["kind"] = "OpenBLAS"
    elif "mkl" in resolved:
        info["kind"] = "MKL"
    elif "/blas/libblas" in resolved:
        info["kind"] = "reference BLAS (netlib libblas3)"
    elif "blis" in resolved:
        info["kind"] = "BLIS"
    else:
        info["kind"] = "unknown"
    return info


def main():
    args = parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)  # before torch (and its BLAS) is loaded
    try:
        import torch
    except ImportError as e:
        print(json.dumps({"error": "cannot import torch: %s" % e}))
        return 2
    torch.set_num_threads(args.threads)
    try:
        torch.set_num_interop_threads(args.threads)
    except RuntimeError:
        pass  # already set by an earlier parallel call; harmless here
    try:
        with torch.no_grad():
            checks = [check_case(torch, d) for d in args.check]
            gen = torch.Generator().manual_seed(args.seed)
            results = [time_case(torch, args, c, gen) for c in args.case]
            blas = blas_info(torch)
    except (ValueError, OSError, RuntimeError, KeyError) as e:
        print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}))
        return 2
    print(json.dumps({
        "torch_version": torch.__version__, "threads": torch.get_num_threads(),
        "blas": blas,
        "mkldnn": {"available": torch.backends.mkldnn.is_available(),
                   "enabled": bool(torch.backends.mkldnn.enabled)},
        "results": results, "checks": checks,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
