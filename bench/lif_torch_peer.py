# lif_torch_peer: the PyTorch side of bench/lif_layer. A plain PyTorch time loop of the LIF
# equations of engine/neurons/lif.hpp (feed-forward, one synapse per neuron, scalar parameters):
#
#     isyn   = (isyn + x[t]) * beta
#     vmem   = vmem * alpha + isyn + bias
#     spikes = where(vmem >= th, clamp(floor(vmem / th), max=max_spikes), 0)
#     vmem   = vmem - spikes * th
#
# float32, torch.no_grad, states of shape (B, N), input and spike raster of shape (T, B, N) (the
# layout a time loop slices cheaply). Times a warm-up of up to 100 steps, then the best of
# --repeats full runs, and prints one JSON line on stdout: seconds, neuron_steps_per_s,
# spikes_per_neuron_step. On failure it prints {"error": ...} and exits with status 2.
# Run by lif_layer through /usr/bin/python3 (Debian's interpreter, where python3-torch lives).
import argparse
import json
import math
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(
        description="PyTorch LIF time loop, the peer of bench/lif_layer")
    p.add_argument("--n", type=int, default=1000, help="neurons")
    p.add_argument("--b", type=int, default=1, help="batch elements")
    p.add_argument("--t", type=int, default=1000, help="time steps")
    p.add_argument("--repeats", type=int, default=3, help="timed runs (best is reported)")
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--density", type=float, default=0.05, help="fraction of nonzero inputs")
    p.add_argument("--weight", type=float, default=0.5, help="magnitude of a nonzero input")
    p.add_argument("--excitatory", type=float, default=0.6, help="fraction of positive inputs")
    p.add_argument("--tau-mem", type=float, default=0.02, help="[s]")
    p.add_argument("--tau-syn", type=float, default=0.01, help="[s]")
    p.add_argument("--dt", type=float, default=1e-3, help="[s]")
    p.add_argument("--threshold", type=float, default=1.0)
    p.add_argument("--bias", type=float, default=0.0)
    p.add_argument("--max-spikes", type=float, default=65536.0)
    p.add_argument("--device", default="cpu",
                   help="cpu or cuda: where the loop runs (input and raster stay there; a cuda "
                        "time ends with torch.cuda.synchronize())")
    return p.parse_args()


def make_input(torch, args):
    """Sparse +-weight input (T, B, N), generated a few steps at a time to bound temporaries."""
    gen = torch.Generator().manual_seed(args.seed)
    x = torch.empty(args.t, args.b, args.n, dtype=torch.float32)
    chunk = max(1, (1 << 24) // max(1, args.b * args.n))
    for start in range(0, args.t, chunk):
        stop = min(args.t, start + chunk)
        shape = (stop - start, args.b, args.n)
        nonzero = torch.rand(shape, generator=gen) < args.density
        positive = torch.rand(shape, generator=gen) < args.excitatory
        values = positive.to(torch.float32) * (2.0 * args.weight) - args.weight
        x[start:stop] = values * nonzero
    return x


def evolve(torch, x, alpha, beta, bias, threshold, max_spikes, out):
    """The LIF time loop over the first len(out) steps of x, from zero state; spikes go to out."""
    _, batches, n = x.shape
    vmem = torch.zeros(batches, n, dtype=torch.float32, device=x.device)
    isyn = torch.zeros(batches, n, dtype=torch.float32, device=x.device)
    zero = torch.zeros((), dtype=torch.float32, device=x.device)
    for t in range(out.shape[0]):
        isyn = (isyn + x[t]) * beta
        vmem = vmem * alpha + isyn + bias
        spikes = torch.where(vmem >= threshold,
                             torch.clamp(torch.floor(vmem / threshold), max=max_spikes), zero)
        vmem = vmem - spikes * threshold
        out[t] = spikes


def main():
    args = parse_args()
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

    alpha = math.exp(-args.dt / args.tau_mem)
    beta = math.exp(-args.dt / args.tau_syn)
    if args.device == "cuda" and not torch.cuda.is_available():
        print(json.dumps({"error": "torch sees no CUDA device"}))
        return 2

    def sync():
        if args.device == "cuda":
            torch.cuda.synchronize()

    with torch.no_grad():
        x = make_input(torch, args).to(args.device)
        out = torch.empty_like(x)
        warm = min(args.t, 100)
        evolve(torch, x, alpha, beta, args.bias, args.threshold, args.max_spikes, out[:warm])
        sync()
        best = math.inf
        for _ in range(max(1, args.repeats)):
            start = time.perf_counter()
            evolve(torch, x, alpha, beta, args.bias, args.threshold, args.max_spikes, out)
            sync()
            best = min(best, time.perf_counter() - start)
        neuron_steps = args.b * args.t * args.n
        spikes = 0.0
        chunk = max(1, (1 << 24) // max(1, args.b * args.n))
        for start in range(0, args.t, chunk):  # float64 sums without a float64 copy of out
            spikes += float(out[start:start + chunk].sum(dtype=torch.float64))
    print(json.dumps({
        "n": args.n, "b": args.b, "t": args.t, "repeats": args.repeats,
        "threads": torch.get_num_threads(), "torch_version": torch.__version__,
        "device": args.device,
        "seconds": best, "neuron_steps_per_s": neuron_steps / best,
        "spikes_per_neuron_step": spikes / neuron_steps,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
