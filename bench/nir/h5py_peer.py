"""Peer for nir_bench: reads a .nir file the way the NIR library's reader does (h5py, every
dataset of every node group into numpy arrays, recursively), best of REPEAT runs; prints the
seconds. Usage: h5py_peer.py FILE REPEAT. Needs Debian's python3-h5py."""
import sys
import time

try:
    import h5py
except ImportError:
    print("python3-h5py is not installed (apt-get install python3-h5py)")
    sys.exit(2)


def read_group(group):
    out = {}
    for key, item in group.items():
        if isinstance(item, h5py.Group):
            out[key] = read_group(item)
        else:
            out[key] = item[()]
    return out


def main():
    path, repeat = sys.argv[1], int(sys.argv[2])
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        with h5py.File(path, "r") as f:
            read_group(f)
        best = min(best, time.perf_counter() - start)
    print(best)


if __name__ == "__main__":
    main()
