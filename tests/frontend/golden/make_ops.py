#!/usr/bin/python3
"""Writes ops.golden: NumPy's answers for the frontend's ops on small inputs with the
edge cases that matter (broadcasting, negative axes, keepdims, empty arrays, ties, NaN),
which tests/frontend/ops_golden_test.cc checks kiln against on both plugins. Run it
again (with Debian's python3-numpy) after adding a case; the file is committed, so the
tests need no Python.

Each line: name | op | params | inputs | result, where an array is written
dtype[dims]:v1,v2,... (dtype f32, i32 or bool; "nan", "inf" as Python writes them) and
params are key=value pairs separated by ';'. Values only are compared (dtypes follow
JAX's promotion, which numpy_test checks); floats within a few float32 ulps."""
import numpy as np

f32, i32 = np.float32, np.int32
NAN, INF = float("nan"), float("inf")


def arr(values, dtype=f32, shape=None):
    a = np.array(values, dtype=dtype)
    return a.reshape(shape) if shape is not None else a


def grid(*shape, dtype=f32, scale=1.0, shift=0.0):
    """Distinct, sign-mixed values: shift + scale * (k * 0.37 mod 2 - 1)."""
    n = int(np.prod(shape))
    v = (np.arange(n) * 0.37) % 2 - 1
    return (shift + scale * v).astype(dtype).reshape(shape)


def logsumexp(a, axis=None, keepdims=False):
    m = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


A23 = grid(2, 3)
B3 = arr([10, 20, 30])
C21 = arr([[100], [200]])
POS = arr([0.25, 1.0, 2.5, 9.0])
EMPTY = np.zeros((0, 3), f32)
TIES = arr([3, 1, 3, 1, 2])
WITH_NAN = arr([2, NAN, -1, 5])
I23 = arr([[5, -3, 2], [-7, 0, 4]], i32)

CASES = [
    # name, op, params, inputs, numpy result
    ("add broadcast row", "add", "", [A23, B3], A23 + B3),
    ("add broadcast col x row", "add", "", [C21, B3], C21 + B3),
    ("subtract scalar array", "subtract", "", [A23, arr(1.5)], A23 - f32(1.5)),
    ("multiply", "multiply", "", [A23, C21], A23 * C21),
    ("divide", "divide", "", [B3, arr([4, -8, 0.5])], B3 / arr([4, -8, 0.5])),
    ("divide ints is float", "divide", "", [arr([7, -7, 3], i32), arr([2, 2, 4], i32)],
     (arr([7, -7, 3], i32) / arr([2, 2, 4], i32)).astype(f32)),
    ("power", "power", "", [POS, arr([2, 0.5, -1, 1.5])], POS ** arr([2, 0.5, -1, 1.5])),
    ("maximum with nan", "maximum", "", [WITH_NAN, arr([0, 0, 0, 0])], np.maximum(WITH_NAN, 0)),
    ("minimum broadcast", "minimum", "", [A23, arr([0])], np.minimum(A23, f32(0))),
    ("equal", "equal", "", [TIES, arr([3])], TIES == 3),
    ("less", "less", "", [A23, arr(0)], A23 < 0),
    ("greater_equal ints", "greater_equal", "", [I23, arr([0, 0, 2], i32)], I23 >= arr([0, 0, 2], i32)),
    ("logical_and", "logical_and", "", [arr([1, 1, 0, 0], bool), arr([1, 0, 1, 0], bool)],
     np.logical_and([1, 1, 0, 0], [1, 0, 1, 0])),
    ("where broadcast", "where", "", [A23 > 0, B3, arr(-1)], np.where(A23 > 0, B3, f32(-1))),
    ("clip", "clip", "", [A23, arr(-0.5), arr(0.5)], np.clip(A23, -0.5, 0.5)),
    ("negative", "negative", "", [I23], -I23),
    ("abs", "abs", "", [A23], np.abs(A23)),
    ("sign", "sign", "", [arr([-2, 0, 3, -0.0])], np.sign(arr([-2, 0, 3, -0.0]))),
    ("square ints", "square", "", [I23], np.square(I23)),
    ("sqrt", "sqrt", "", [POS], np.sqrt(POS)),
    ("rsqrt", "rsqrt", "", [POS], 1 / np.sqrt(POS)),
    ("exp", "exp", "", [A23], np.exp(A23)),
    ("expm1 small", "expm1", "", [arr([1e-6, -1e-3, 0.5])], np.expm1(arr([1e-6, -1e-3, 0.5]))),
    ("log", "log", "", [POS], np.log(POS)),
    ("log1p small", "log1p", "", [arr([1e-7, -0.5, 3])], np.log1p(arr([1e-7, -0.5, 3]))),
    ("sin", "sin", "", [A23 * 3], np.sin(A23 * 3)),
    ("cos", "cos", "", [A23 * 3], np.cos(A23 * 3)),
    ("tanh", "tanh", "", [A23 * 4], np.tanh(A23 * 4)),
    ("floor", "floor", "", [arr([-1.5, -0.5, 0.5, 2.7])], np.floor(arr([-1.5, -0.5, 0.5, 2.7]))),
    ("ceil", "ceil", "", [arr([-1.5, -0.5, 0.5, 2.7])], np.ceil(arr([-1.5, -0.5, 0.5, 2.7]))),
    ("round half to even", "round", "", [arr([-2.5, -1.5, 0.5, 1.5, 2.5, 2.6])],
     np.round(arr([-2.5, -1.5, 0.5, 1.5, 2.5, 2.6]))),
    ("sum all", "sum", "", [A23], np.sum(A23)),
    ("sum axis -1", "sum", "axes=-1", [A23], np.sum(A23, axis=-1)),
    ("sum keepdims", "sum", "axes=0;keepdims=1", [A23], np.sum(A23, axis=0, keepdims=True)),
    ("sum of empty", "sum", "axes=0", [EMPTY], np.sum(EMPTY, axis=0)),
    ("sum ints", "sum", "axes=1", [I23], np.sum(I23, axis=1)),
    ("mean two axes", "mean", "axes=0,2", [grid(2, 3, 4)], np.mean(grid(2, 3, 4), axis=(0, 2))),
    ("mean of empty is nan", "mean", "axes=0", [EMPTY], np.full(3, NAN, f32)),
    ("prod", "prod", "axes=1", [A23 + 2], np.prod(A23 + 2, axis=1)),
    ("max with nan", "max", "", [WITH_NAN], np.max(WITH_NAN)),
    ("max axis keepdims", "max", "axes=-2;keepdims=1", [A23], np.max(A23, axis=-2, keepdims=True)),
    ("min", "min", "axes=1", [I23], np.min(I23, axis=1)),
    ("var", "var", "axes=1", [A23], np.var(A23, axis=1)),
    ("std all", "std", "", [A23], np.std(A23)),
    ("logsumexp", "logsumexp", "axes=1", [A23 * 30], logsumexp(A23 * 30, axis=1)),
    ("argmax first of ties", "argmax", "", [TIES], np.argmax(TIES)),
    ("argmin first of ties", "argmin", "", [TIES], np.argmin(TIES)),
    ("argmax axis 0", "argmax", "axis=0", [A23], np.argmax(A23, axis=0)),
    ("argmax keepdims", "argmax", "axis=-1;keepdims=1", [A23], np.argmax(A23, axis=-1)[..., None]),
    ("reshape -1", "reshape", "shape=3,-1", [grid(2, 3, 2)], grid(2, 3, 2).reshape(3, -1)),
    ("transpose default", "transpose", "", [grid(2, 3, 4)], np.transpose(grid(2, 3, 4))),
    ("transpose axes", "transpose", "axes=1,2,0", [grid(2, 3, 4)], np.transpose(grid(2, 3, 4), (1, 2, 0))),
    ("expand_dims -1", "expand_dims", "axis=-1", [A23], np.expand_dims(A23, -1)),
    ("squeeze all", "squeeze", "", [grid(1, 3, 1)], np.squeeze(grid(1, 3, 1))),
    ("concatenate -1", "concatenate", "axis=-1", [A23, grid(2, 1)], np.concatenate([A23, grid(2, 1)], -1)),
    ("concatenate empty", "concatenate", "axis=0", [EMPTY, grid(1, 3)], np.concatenate([EMPTY, grid(1, 3)])),
    ("stack axis 1", "stack", "axis=1", [B3, B3 * 2], np.stack([B3, B3 * 2], 1)),
    ("broadcast_to", "broadcast_to", "shape=2,2,3", [B3], np.broadcast_to(B3, (2, 2, 3))),
    ("pad", "pad", "widths=1,0,2,1;value=-1", [A23], np.pad(A23, ((1, 0), (2, 1)), constant_values=-1)),
    ("take negative", "take", "axis=0", [grid(4, 2), arr([3, -1, 0], i32)], grid(4, 2)[[3, -1, 0]]),
    ("take axis 1", "take", "axis=1", [A23, arr([[2, 0], [1, 1]], i32)], np.take(A23, [[2, 0], [1, 1]], axis=1)),
    ("one_hot", "one_hot", "classes=4", [arr([0, 3, 1], i32)], np.eye(4, dtype=f32)[[0, 3, 1]]),
    ("sort nan last", "sort", "axis=-1", [arr([3, NAN, -INF, 1, -2])], np.sort(arr([3, NAN, -INF, 1, -2]))),
    ("sort axis 0", "sort", "axis=0", [A23], np.sort(A23, axis=0)),
    ("argsort stable ties", "argsort", "axis=-1", [TIES], np.argsort(TIES, kind="stable")),
    ("cumsum axis -1", "cumsum", "axis=-1", [A23], np.cumsum(A23, axis=-1)),
    ("cumsum ints", "cumsum", "axis=0", [I23], np.cumsum(I23, axis=0)),
    ("matmul", "matmul", "", [A23, grid(3, 4)], A23 @ grid(3, 4)),
    ("matmul vector", "matmul", "", [A23, B3], A23 @ B3),
    ("matmul batch broadcast", "matmul", "", [grid(2, 1, 2, 3), grid(3, 3, 2)], grid(2, 1, 2, 3) @ grid(3, 3, 2)),
    ("dot vectors", "dot", "", [B3, arr([1, -1, 2])], np.dot(B3, arr([1, -1, 2]))),
    ("einsum batch", "einsum", "spec=bij,bjk->bik", [grid(2, 2, 3), grid(2, 3, 2)],
     np.einsum("bij,bjk->bik", grid(2, 2, 3), grid(2, 3, 2))),
    ("einsum trace-free sum", "einsum", "spec=ij->j", [A23], np.einsum("ij->j", A23)),
    ("einsum outer", "einsum", "spec=i,j->ij", [B3, arr([1, 2])], np.einsum("i,j->ij", B3, arr([1, 2]))),
    ("linspace", "linspace", "start=-1;stop=2;num=7", [], np.linspace(-1, 2, 7, dtype=f32)),
    ("arange float", "arange", "start=0.5;stop=2;step=0.25", [], np.arange(0.5, 2, 0.25, dtype=f32)),
    ("eye", "eye", "n=3", [], np.eye(3, dtype=f32)),
]


def text(a):
    a = np.asarray(a)
    dtype = {"float32": "f32", "float64": "f32", "int32": "i32", "int64": "i32", "bool": "bool"}[str(a.dtype)]
    values = ",".join(repr(float(v)) if dtype == "f32" else str(int(v)) for v in a.ravel())
    return f"{dtype}[{','.join(map(str, a.shape))}]:{values}"


def main():
    lines = ["# Written by make_ops.py from NumPy " + np.__version__ + "; do not edit."]
    for name, op, params, inputs, result in CASES:
        ins = " ".join(text(a) for a in inputs)
        lines.append(f"{name} | {op} | {params} | {ins} | {text(result)}")
    with open(__file__.replace("make_ops.py", "ops.golden"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
