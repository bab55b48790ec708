# Regenerates the .npy fixtures used by tests/test_npy.cpp. Needs NumPy (Debian: /usr/bin/python3).
# Run from this folder: /usr/bin/python3 make_fixtures.py
# lif_input.npy is not generated here: it is a copy of shared/reference/lif_ff_scalar/input.npy.
import numpy as np


def bits32(values):
    return np.array(values, dtype=np.uint32).view(np.float32)


np.save("f32_scalar.npy", np.array(3.5, dtype=np.float32))
# quiet NaN with payload, signalling NaN, +Inf, -Inf, -0.0, smallest denormal, largest negative denormal
np.save("f32_7.npy", bits32([0x7FC00001, 0x7FA00001, 0x7F800000, 0xFF800000, 0x80000000,
                             0x00000001, 0x807FFFFF]))
np.save("f32_3x4.npy", (np.arange(12, dtype=np.float32) * 0.25 - 1.0).reshape(3, 4))
np.save("f32_2x3x4.npy", (np.arange(24, dtype=np.float32) / 8 - 1.5).reshape(2, 3, 4))
np.save("f32_2x1x3x2.npy", (np.arange(12, dtype=np.float32) * -3.0 + 0.5).reshape(2, 1, 3, 2))
np.save("f32_0x5.npy", np.zeros((0, 5), dtype=np.float32))
np.save("f64_2x3.npy", np.array([[0.1, -2.5, 1e300], [1e-50, 16777217.0, -0.0]], dtype=np.float64))
np.save("i32_5.npy", np.array([-2147483648, -1, 0, 7, 2147483647], dtype=np.int32))
np.save("i64_4.npy", np.array([-5, 16777217, 2**62, -2**63], dtype=np.int64))
np.save("u8_4.npy", np.array([0, 1, 128, 255], dtype=np.uint8))
np.save("bool_2x2.npy", np.array([[True, False], [False, True]]))
with open("f32_v2_2x3.npy", "wb") as f:
    np.lib.format.write_array(f, np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32) / 4,
                              version=(2, 0))
