"""The NumPy and PyTorch eager references of bench/compare.sh: W1-W7 as a user of each
library writes them, timed as the median of several runs after a warm-up.

    /usr/bin/python3 bench/reference/eager.py numpy|torch THREADS

Prints "W<n> <median ms>" per workload. The thread count reaches OpenBLAS through the
environment (compare.sh sets OPENBLAS_NUM_THREADS) and PyTorch through set_num_threads.
"""
import sys
import time


def median_ms(run, reps=7, warmups=1):
    for _ in range(warmups):
        run()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e3


def workloads(lib):
    if lib == "numpy":
        import numpy as np
        rand = lambda *s: np.random.default_rng(1).uniform(-1, 1, s).astype(np.float32)
        ops = dict(exp=np.exp, tanh=np.tanh, max=lambda x, a: x.max(axis=a, keepdims=True),
                   sum=lambda x, a: x.sum(axis=a, keepdims=True), mean=lambda x, a: x.mean(axis=a, keepdims=True),
                   sigmoid=lambda x: 1 / (1 + np.exp(-x)), relu=lambda x: np.maximum(x, 0),
                   rsqrt=lambda x: 1 / np.sqrt(x), t=lambda x: x.T)
    else:
        import torch
        torch.set_num_threads(int(sys.argv[2]))
        rand = lambda *s: torch.rand(*s, generator=torch.Generator().manual_seed(1)) * 2 - 1
        ops = dict(exp=torch.exp, tanh=torch.tanh, max=lambda x, a: x.amax(dim=a, keepdim=True),
                   sum=lambda x, a: x.sum(dim=a, keepdim=True), mean=lambda x, a: x.mean(dim=a, keepdim=True),
                   sigmoid=torch.sigmoid, relu=torch.relu, rsqrt=torch.rsqrt, t=lambda x: x.T)
    o = ops
    n = 1 << 24
    a, b, c = rand(n), rand(n), rand(n)
    yield "W1", lambda: a * b + c
    yield "W2", lambda: o["tanh"](a * 0.5 + 1) * o["sigmoid"](a) - a * a
    x3 = rand(4096, 4096)

    def softmax():
        e = o["exp"](x3 - o["max"](x3, 1))
        return e / o["sum"](e, 1)
    yield "W3", softmax
    x4, g, be = rand(8192, 1024), rand(1024), rand(1024)

    def layernorm():
        m = o["mean"](x4, 1)
        v = o["mean"](x4 * x4, 1) - m * m
        return (x4 - m) * o["rsqrt"](v + 1e-5) * g + be
    yield "W4", layernorm
    x, w1, b1, w2, b2, y = rand(256, 784), rand(784, 512), rand(512), rand(512, 10), rand(10), rand(256, 10)
    yield "W5", lambda: o["relu"](x @ w1 + b1) @ w2 + b2

    def step():
        hb = x @ w1 + b1
        act = o["relu"](hb)
        d = act @ w2 + b2 - y
        loss = (d * d).sum() / 2560
        dout = d * (2 / 2560)
        dw2, db2 = o["t"](act) @ dout, dout.sum(0)
        dh = (dout @ o["t"](w2)) * (hb > 0)
        dw1, db1 = o["t"](x) @ dh, dh.sum(0)
        return loss, w1 - 0.01 * dw1, b1 - 0.01 * db1, w2 - 0.01 * dw2, b2 - 0.01 * db2
    yield "W6", step
    x7 = rand(8192, 8192)
    yield "W7", lambda: (o["sum"](x7, 1), o["sum"](x7, 0))


def main():
    lib = sys.argv[1]
    for name, run in workloads(lib):
        print(f"{name} {median_ms(run, 3 if name == 'W7' else 7):.3f}", flush=True)


if __name__ == "__main__":
    main()
