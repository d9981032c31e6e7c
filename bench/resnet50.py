#!/usr/bin/env python3
"""Writes ResNet-50's forward pass (torchvision's v1.5: the stride on the 3x3 convolution
of each bottleneck) as StableHLO, for inference: batch normalization folded into each
convolution's bias, as inference graphs carry it. Data is NHWC and kernels HWIO, the
layout JAX/Flax exports. The weights are parameters after the image, so `kiln bench`
feeds them seeded random values.

  bench/resnet50.py [BATCH] > resnet50.mlir      (default batch 1, 224x224 images)

Random weights of one scale for every layer: each convolution's output is multiplied by
1/sqrt(fan-in) (a constant the compiler fuses into the bias epilogue) so activations
keep their size through the 53 convolutions and stay finite.
"""
import sys


class Program:
    def __init__(self, batch):
        self.params = []  # (name, type)
        self.lines = []
        self.count = 0
        self.batch = batch

    def fresh(self, stem):
        self.count += 1
        return f"%{stem}{self.count}"

    def param(self, stem, typ):
        name = f"%{stem}{len(self.params)}"
        self.params.append((name, typ))
        return name

    def emit(self, line):
        self.lines.append("  " + line)


def tensor(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def conv(p, x, shape, out_features, k, stride, relu):
    """x: NHWC value of `shape`; returns (value, shape) of relu?(conv(x) * scale + bias)."""
    n, h, w, c = shape
    pad = (k - 1) // 2
    oh = (h + 2 * pad - k) // stride + 1
    ow = (w + 2 * pad - k) // stride + 1
    out = [n, oh, ow, out_features]
    weight = p.param("w", tensor([k, k, c, out_features]))
    bias = p.param("b", tensor([out_features]))
    window = []
    if stride != 1:
        window.append(f"stride = [{stride}, {stride}]")
    if pad:
        window.append(f"pad = [[{pad}, {pad}], [{pad}, {pad}]]")
    y = p.fresh("conv")
    p.emit(f"{y} = stablehlo.convolution({x}, {weight}) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
           f"window = {{{', '.join(window)}}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : "
           f"({tensor(shape)}, {tensor([k, k, c, out_features])}) -> {tensor(out)}")
    scale = p.fresh("scale")
    p.emit(f"{scale} = stablehlo.constant dense<{(1.0 / (k * k * c)) ** 0.5!r}> : {tensor(out)}")
    scaled = p.fresh("scaled")
    p.emit(f"{scaled} = stablehlo.multiply {y}, {scale} : {tensor(out)}")
    b = p.fresh("bias")
    p.emit(f"{b} = stablehlo.broadcast_in_dim {bias}, dims = [3] : ({tensor([out_features])}) -> {tensor(out)}")
    z = p.fresh("biased")
    p.emit(f"{z} = stablehlo.add {scaled}, {b} : {tensor(out)}")
    return (relu_of(p, z, out) if relu else z), out


def relu_of(p, x, shape):
    zero = p.fresh("zero")
    p.emit(f"{zero} = stablehlo.constant dense<0.0> : {tensor(shape)}")
    y = p.fresh("relu")
    p.emit(f"{y} = stablehlo.maximum {x}, {zero} : {tensor(shape)}")
    return y


def bottleneck(p, x, shape, width, stride):
    y, s = conv(p, x, shape, width, 1, 1, True)
    y, s = conv(p, y, s, width, 3, stride, True)
    y, s = conv(p, y, s, width * 4, 1, 1, False)
    if stride != 1 or shape[3] != width * 4:
        x, _ = conv(p, x, shape, width * 4, 1, stride, False)
    total = p.fresh("residual")
    p.emit(f"{total} = stablehlo.add {y}, {x} : {tensor(s)}")
    return relu_of(p, total, s), s


def max_pool(p, x, shape):
    n, h, w, c = shape
    out = [n, (h + 2 - 3) // 2 + 1, (w + 2 - 3) // 2 + 1, c]
    ninf = p.fresh("ninf")
    p.emit(f"{ninf} = stablehlo.constant dense<0xFF800000> : tensor<f32>")
    y = p.fresh("pool")
    p.emit(f'{y} = "stablehlo.reduce_window"({x}, {ninf}) <{{padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : '
           f"tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}}> ({{")
    p.emit("^bb0(%a: tensor<f32>, %b: tensor<f32>):")
    p.emit("  %m = stablehlo.maximum %a, %b : tensor<f32>")
    p.emit("  stablehlo.return %m : tensor<f32>")
    p.emit(f"}}) : ({tensor(shape)}, tensor<f32>) -> {tensor(out)}")
    return y, out


def resnet50(batch):
    p = Program(batch)
    image = p.param("image", tensor([batch, 224, 224, 3]))
    x, s = conv(p, image, [batch, 224, 224, 3], 64, 7, 2, True)
    x, s = max_pool(p, x, s)
    for blocks, width, stride in [(3, 64, 1), (4, 128, 2), (6, 256, 2), (3, 512, 2)]:
        for i in range(blocks):
            x, s = bottleneck(p, x, s, width, stride if i == 0 else 1)
    zero = p.fresh("zero")
    p.emit(f"{zero} = stablehlo.constant dense<0.0> : tensor<f32>")
    pooled = p.fresh("sum")
    p.emit(f"{pooled} = stablehlo.reduce({x} init: {zero}) applies stablehlo.add across dimensions = [1, 2] : "
           f"({tensor(s)}, tensor<f32>) -> {tensor([batch, 2048])}")
    count = p.fresh("count")
    p.emit(f"{count} = stablehlo.constant dense<{1.0 / 49!r}> : {tensor([batch, 2048])}")
    mean = p.fresh("mean")
    p.emit(f"{mean} = stablehlo.multiply {pooled}, {count} : {tensor([batch, 2048])}")
    fc = p.param("fc_w", tensor([2048, 1000]))
    fc_b = p.param("fc_b", tensor([1000]))
    logits = p.fresh("logits")
    p.emit(f"{logits} = stablehlo.dot_general {mean}, {fc}, contracting_dims = [1] x [0] : "
           f"({tensor([batch, 2048])}, {tensor([2048, 1000])}) -> {tensor([batch, 1000])}")
    b = p.fresh("fcbias")
    p.emit(f"{b} = stablehlo.broadcast_in_dim {fc_b}, dims = [1] : ({tensor([1000])}) -> {tensor([batch, 1000])}")
    out = p.fresh("out")
    p.emit(f"{out} = stablehlo.add {logits}, {b} : {tensor([batch, 1000])}")
    params = ", ".join(f"{name}: {typ}" for name, typ in p.params)
    header = [f"// ResNet-50 forward, batch {batch}, 224x224 NHWC, batch norm folded (bench/resnet50.py)",
              f"func.func @main({params}) -> {tensor([batch, 1000])} {{"]
    return "\n".join(header + p.lines + [f"  return {out} : {tensor([batch, 1000])}", "}"])


if __name__ == "__main__":
    print(resnet50(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
