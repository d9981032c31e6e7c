"""The convolution layers of bench/compare.sh: ResNet-50's and MobileNet's shapes at batch
1 and 8, f32. One table serves both sides:

    /usr/bin/python3 bench/reference/convolutions.py mlir DIR     writes DIR/<name>.mlir
    /usr/bin/python3 bench/reference/convolutions.py torch THREADS

kiln's programs take [batch, height, width, channels] images and [kh, kw, in, out]
kernels (the layout JAX's NHWC models export); PyTorch's conv2d takes its own default
layout, [batch, channels, height, width], as a PyTorch user writes it. `torch` prints
"<name> <median ms>" per layer.
"""
import sys

from eager import median_ms

# name, input size, in channels, out channels, kernel, stride, padding, groups
LAYERS = [
    ("stem7x7s2", 224, 3, 64, 7, 2, 3, 1),
    ("conv3x3", 56, 64, 64, 3, 1, 1, 1),
    ("conv1x1", 56, 64, 256, 1, 1, 0, 1),
    ("conv3x3s2", 56, 128, 128, 3, 2, 1, 1),
    ("depthwise3x3", 112, 32, 32, 3, 1, 1, 32),
]
BATCHES = [1, 8]


def layers():
    for batch in BATCHES:
        for name, size, cin, cout, k, stride, pad, groups in LAYERS:
            out = (size + 2 * pad - k) // stride + 1
            yield f"{name}_b{batch}", batch, size, cin, cout, k, stride, pad, groups, out


def write_mlir(folder):
    for name, n, size, cin, cout, k, s, p, g, out in layers():
        x = f"tensor<{n}x{size}x{size}x{cin}xf32>"
        w = f"tensor<{k}x{k}x{cin // g}x{cout}xf32>"
        y = f"tensor<{n}x{out}x{out}x{cout}xf32>"
        with open(f"{folder}/{name}.mlir", "w") as f:
            f.write(f"func.func @main(%x: {x}, %w: {w}) -> {y} {{\n"
                    f"  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
                    f"window = {{stride = [{s}, {s}], pad = [[{p}, {p}], [{p}, {p}]]}} "
                    f"{{batch_group_count = 1 : i64, feature_group_count = {g} : i64}} : ({x}, {w}) -> {y}\n"
                    f"  return %y : {y}\n}}\n")


def time_torch(threads):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, n, size, cin, cout, k, s, p, groups, out in layers():
            x = torch.rand(n, cin, size, size, generator=g) * 2 - 1
            w = torch.rand(cout, cin // groups, k, k, generator=g) * 2 - 1
            print(f"{name} {median_ms(lambda: F.conv2d(x, w, stride=s, padding=p, groups=groups)):.3f}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "mlir":
        write_mlir(sys.argv[2])
    else:
        time_torch(int(sys.argv[2]))
