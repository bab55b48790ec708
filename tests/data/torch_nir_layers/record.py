#!/usr/bin/env python3
"""Records the PyTorch reference cases of the NIR layer types (tests/test_nir_layers.cpp).

Each case is a folder beside this script in the format of tests/data/reference (see its
README.md): case.json (peer, module, params, input, expected, tolerance) and float32 .npy
arrays. Conv1d is torch.nn.Conv1d with its own initialisation (seeded); AvgPool2d is
torch.nn.AvgPool2d (count_include_pad=True, ceil_mode=False); SumPool2d is
torch.nn.functional.avg_pool2d(..., divisor_override=1), checked here against the plain window
sum; their tolerance says "bits": "exact" (the engine sums in torch's order, so the test asks for
identical bits). Run on the CPU in float32:

    apt-get install -y python3-torch python3-numpy
    /usr/bin/python3 tests/data/torch_nir_layers/record.py

Rewrites every case folder; the recorded arrays only change with the torch version.
"""
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def save_case(name, case, arrays):
    folder = os.path.join(HERE, name)
    os.makedirs(folder, exist_ok=True)
    for file, array in arrays.items():
        np.save(os.path.join(folder, file), np.ascontiguousarray(array, dtype="<f4"))
    case = dict(case)
    case["torch_version"] = torch.__version__
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump(case, f, indent=2)
        f.write("\n")


def conv1d_case(name, seed, batch, length, **kw):
    torch.manual_seed(seed)
    conv = torch.nn.Conv1d(**kw)
    x = torch.randn(batch, kw["in_channels"], length)
    with torch.no_grad():
        y = conv(x)
    params = dict(kw)
    params["weight"] = "weight.npy"
    arrays = {"weight.npy": conv.weight.detach().numpy(), "input.npy": x.numpy(),
              "output.npy": y.numpy()}
    if kw.get("bias", True):
        params["bias"] = "bias.npy"
        arrays["bias.npy"] = conv.bias.detach().numpy()
    params["input_size"] = length
    save_case(name, {
        "peer": "torch.nn.Conv1d",
        "module": "Conv1d",
        "params": params,
        "input": "input.npy",
        "input_semantics": "(N, C, L)",
        "expected": {"output": "output.npy"},
        "tolerance": {"atol": 1e-5, "rtol": 1e-5},
    }, arrays)


def plain_window_sum(x, kernel, stride, padding):
    """The sum over every window of the zero-padded input, in float64."""
    padded = F.pad(x.double(), (padding[1], padding[1], padding[0], padding[0]))
    windows = padded.unfold(2, kernel[0], stride[0]).unfold(3, kernel[1], stride[1])
    return windows.sum(dim=(-1, -2))


def pool_case(name, module, seed, shape, kernel, stride, padding):
    torch.manual_seed(seed)
    x = torch.randn(*shape)
    if module == "AvgPool2d":
        pool = torch.nn.AvgPool2d(kernel, stride, padding)
        y = pool(x)
        peer = "torch.nn.AvgPool2d (count_include_pad=True, ceil_mode=False)"
        expected_sum = plain_window_sum(x, kernel, stride, padding) / (kernel[0] * kernel[1])
    else:
        y = F.avg_pool2d(x, kernel, stride, padding, divisor_override=1)
        peer = "torch.nn.functional.avg_pool2d(divisor_override=1)"
        expected_sum = plain_window_sum(x, kernel, stride, padding)
    # The recorded output is the plain (sum or mean) definition, to float32 rounding.
    assert torch.allclose(y.double(), expected_sum, atol=1e-5, rtol=0), name
    save_case(name, {
        "peer": peer,
        "module": module,
        "params": {"channels": shape[1], "kernel_size": list(kernel), "stride": list(stride),
                   "padding": list(padding), "input_size": list(shape[2:])},
        "input": "input.npy",
        "input_semantics": "(N, C, H, W)",
        "expected": {"output": "output.npy"},
        "tolerance": {"atol": 0.0, "rtol": 0.0, "bits": "exact"},
    }, {"input.npy": x.numpy(), "output.npy": y.numpy()})


def main():
    torch.set_num_threads(1)
    conv1d_case("conv1d_stride_padding", 1, batch=2, length=11, in_channels=4, out_channels=6,
                kernel_size=3, stride=2, padding=1)
    conv1d_case("conv1d_dilation_groups", 2, batch=3, length=9, in_channels=6, out_channels=4,
                kernel_size=3, stride=1, padding=2, dilation=2, groups=2, bias=False)
    conv1d_case("conv1d_depthwise", 3, batch=2, length=16, in_channels=3, out_channels=6,
                kernel_size=5, stride=3, padding=2, groups=3)
    pool_case("avgpool2d_padding", "AvgPool2d", 4, (2, 3, 7, 6), (3, 3), (2, 2), (1, 1))
    pool_case("avgpool2d_rect", "AvgPool2d", 5, (1, 2, 5, 8), (2, 3), (1, 2), (1, 1))
    pool_case("sumpool2d", "SumPool2d", 6, (2, 3, 6, 6), (2, 2), (2, 2), (0, 0))
    pool_case("sumpool2d_padding", "SumPool2d", 7, (2, 2, 7, 9), (3, 3), (2, 3), (1, 1))


if __name__ == "__main__":
    main()
