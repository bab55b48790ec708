# Regenerates the .npz fixtures used by tests/test_npz.cpp. Needs NumPy (Debian: python3-numpy,
# run with /usr/bin/python3). Run from this folder: /usr/bin/python3 make_npz.py
#
# Every archive is written by NumPy itself. NumPy (1.15 and later) opens every member with
# force_zip64=True, so each local header carries a Zip64 extra field whatever the size.
#   savez.npz             np.savez: ZIP_STORED members input (3, 4) and aux (5, 2), float32
#   savez_compressed.npz  np.savez_compressed: the same two arrays, ZIP_DEFLATED
#   float64.npz           np.savez: input (2, 3) float64
#   zip64.npz             np.savez with zipfile's Zip64 threshold lowered to 0 for the call, so
#                         the central directory carries Zip64 sizes and offsets and a Zip64
#                         end-of-central-directory record and locator are written: the layout
#                         NumPy writes for members or archives over 4 GiB
#   empty.npz             np.savez with no arrays: an end record alone
#   streamed.npz          np.savez_compressed into a stream that cannot seek: every member is
#                         followed by a (Zip64) data descriptor, its local header sizes are 0
# The arrays go in as keywords only: NumPy 1.24's savez has no allow_pickle parameter and would
# store allow_pickle=False as a third array (NumPy 2.x accepts it).
# The values are the ones tests/test_npz.cpp expects; change both together.
import zipfile

import numpy as np

INPUT = (np.arange(12, dtype=np.float32) * 0.5 - 1.75).reshape(3, 4)
AUX = np.array([[np.pi, -np.e], [1e-3, 65504.0], [-0.0, 1.0 / 3.0], [7.0, -8.5], [1e30, -1e-30]],
               dtype=np.float32)
FLOAT64 = (np.arange(6, dtype=np.float64) * 0.1 - 0.2).reshape(2, 3)

np.savez("savez.npz", input=INPUT, aux=AUX)
np.savez_compressed("savez_compressed.npz", input=INPUT, aux=AUX)
np.savez("float64.npz", input=FLOAT64)
np.savez("empty.npz")

saved_limit = zipfile.ZIP64_LIMIT
zipfile.ZIP64_LIMIT = 0
try:
    np.savez("zip64.npz", input=INPUT, aux=AUX)
finally:
    zipfile.ZIP64_LIMIT = saved_limit


class Unseekable:
    """A write-only stream without tell() or seek(), as a pipe is."""

    def __init__(self, f):
        self._f = f

    def write(self, data):
        return self._f.write(data)

    def flush(self):
        self._f.flush()

    def read(self, size=-1):  # np.savez takes an object with read() for a file, not a path
        raise OSError("write-only stream")


with open("streamed.npz", "wb") as f:
    np.savez_compressed(Unseekable(f), input=INPUT, aux=AUX)
