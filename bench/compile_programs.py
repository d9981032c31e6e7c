#!/usr/bin/env python3
"""Generates the modules that bench/compile_times.sh compiles: N ops in groups of 7, each
group a softmax-like step over a 16x64 f32 matrix with a scale constant of its own.

  bench/compile_programs.py OPS distinct|repeat > program.mlir

distinct: every group scales by another constant and cycles through four functions, so no
two kernels are the same (the constants are immediates in the kernels' code); repeat: every
group is the same computation, so the backend can compile one group's kernels once and
reuse them (what a transformer's identical layers look like to a compiler).
"""
import sys

FUNCTIONS = ["exponential", "tanh", "logistic", "sine"]
SHAPE = "tensor<16x64xf32>"


def group(i, distinct):
    scale = 1.0 + (i + 1) * 1e-4 if distinct else 1.0001
    fn = FUNCTIONS[i % len(FUNCTIONS)] if distinct else FUNCTIONS[0]
    return f"""  %c{i} = stablehlo.constant dense<{scale!r}> : tensor<f32>
  %cb{i} = stablehlo.broadcast_in_dim %c{i}, dims = [] : (tensor<f32>) -> {SHAPE}
  %m{i} = stablehlo.multiply %x{i}, %cb{i} : {SHAPE}
  %e{i} = stablehlo.{fn} %m{i} : {SHAPE}
  %s{i} = stablehlo.reduce(%e{i} init: %zero) applies stablehlo.add across dimensions = [1]
      : ({SHAPE}, tensor<f32>) -> tensor<16xf32>
  %sb{i} = stablehlo.broadcast_in_dim %s{i}, dims = [0] : (tensor<16xf32>) -> {SHAPE}
  %x{i + 1} = stablehlo.divide %e{i}, %sb{i} : {SHAPE}
"""


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("distinct", "repeat"):
        sys.exit("usage: compile_programs.py OPS distinct|repeat")
    groups = max(1, int(sys.argv[1]) // 7)
    distinct = sys.argv[2] == "distinct"
    out = [f"// {groups * 7 + 1} ops: {groups} {sys.argv[2]} softmax-like groups (bench/compile_programs.py)",
           f"func.func @main(%x0: {SHAPE}) -> {SHAPE} {{",
           "  %zero = stablehlo.constant dense<0.0> : tensor<f32>"]
    out += [group(i, distinct) for i in range(groups)]
    out += [f"  return %x{groups} : {SHAPE}", "}"]
    print("\n".join(out))


if __name__ == "__main__":
    main()
