#!/usr/bin/python3
"""Writes indexing.golden: what NumPy answers for index expressions and index updates,
which tests/frontend/indexing_test.cc checks kiln against. Run it again (with Debian's
python3-numpy) after adding a case; the file is committed, so the tests need no Python.

Each line: kind | index | array shape | update | result shape | result values.
The array is arange(size).reshape(shape) as int32; `read` is x[index]; `set`, `add`,
`multiply`, `min` and `max` are JAX's x.at[index].<kind>(update), computed with NumPy's
unbuffered ufunc.at (so repeated positions all apply, as in JAX). An update is a scalar
or `arange` (100 + arange of the indexed shape)."""
import numpy as np

CASES = [
    ("read", "2", (5, 3)),
    ("read", "-1", (5, 3)),
    ("read", "1,2", (5, 3)),
    ("read", "1:4", (6,)),
    ("read", "::2", (7,)),
    ("read", "::-1", (5,)),
    ("read", "4:0:-2", (6,)),
    ("read", "-3:", (6,)),
    ("read", ":-10", (6,)),
    ("read", "5:2", (6,)),
    ("read", "1,2:8:3", (3, 9)),
    ("read", "...,1", (2, 3, 4)),
    ("read", "None,1", (3, 4)),
    ("read", ":,None,::-1", (3, 4)),
    ("read", "...,None", (2, 3)),
    ("read", "[0,2,-1]", (5, 2)),
    ("read", ":,[3,0]", (2, 4)),
    ("read", "[[0,1],[2,0]]", (3, 2)),
    ("read", "[0,2],[1,3]", (3, 4)),
    ("read", ":,[0,2],[1,3]", (2, 3, 4)),
    ("read", "[0,1],:,[1,3]", (2, 3, 4)),
    ("read", "1,:,[0,2]", (2, 3, 4)),
    ("read", "[1,0],1:3", (2, 4)),
    ("read", "::-1,[2,0]", (3, 4)),
    ("read", "None,[1,0],None", (3,)),
    ("set", "1", (3, 4), "7"),
    ("set", "1,2", (3, 4), "-5"),
    ("set", ":,1:3", (3, 4), "arange"),
    ("set", "[2,0]", (3, 4), "arange"),
    ("set", "::2", (5, 2), "arange"),
    ("set", "::-1,1", (3, 4), "arange"),
    ("set", "[0,2],[1,3]", (3, 4), "arange"),
    ("set", "...", (2, 3), "9"),
    ("add", "[0,0,2]", (4,), "arange"),
    ("add", "[1,1],:", (3, 2), "1"),
    ("add", ":,[0,2],[1,1]", (2, 3, 4), "arange"),
    ("add", "1::2", (6,), "10"),
    ("multiply", "[1,1,3]", (4,), "3"),
    ("min", "[0,3,3]", (5,), "arange"),
    ("max", ":,[1,1]", (2, 3), "arange"),
    ("add", "None,[0,1]", (3,), "arange"),
]


def parse(expr):
    """The Python index the expression means."""
    return eval(f"np.s_[{expr}]", {"np": np})


def main():
    lines = []
    for case in CASES:
        kind, expr, shape = case[:3]
        x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
        index = parse(expr)
        if not isinstance(index, tuple):
            index = (index,)
        index = tuple(np.array(i, dtype=np.int32) if isinstance(i, list) else i for i in index)
        update = "-"
        if kind == "read":
            out = x[index]
        else:
            update = case[3]
            picked = x[index].shape
            v = (100 + np.arange(int(np.prod(picked)), dtype=np.int32)).reshape(picked) if update == "arange" \
                else np.int32(int(update))
            out = x.copy()
            if kind == "set":
                out[index] = v
            else:
                ufunc = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}[kind]
                ufunc.at(out, index, v)
        dims = ",".join(str(d) for d in np.shape(out))
        values = " ".join(str(int(v)) for v in np.ravel(out))
        lines.append(f"{kind} | {expr} | {','.join(map(str, shape))} | {update} | {dims} | {values}")
    with open(__file__.replace("make_indexing.py", "indexing.golden"), "w") as f:
        f.write("# Written by make_indexing.py from NumPy " + np.__version__ + "; do not edit.\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
