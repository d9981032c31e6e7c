"""The eager dispatch references of bench/frontend.sh: `y = y + x` on 4-element float32
arrays issued back to back, in µs per op, the median of 5 rounds of 20,000 ops (as
frontend_bench measures kiln's).

    /usr/bin/python3 bench/reference/dispatch.py numpy|torch

Prints "eager_dispatch_us <median>".
"""
import sys
import time


def main():
    lib = sys.argv[1]
    if lib == "numpy":
        import numpy as np
        x, y = np.ones(4, np.float32), np.zeros(4, np.float32)
    else:
        import torch
        torch.set_num_threads(1)
        x, y = torch.ones(4), torch.zeros(4)
    ops, rounds = 20000, []
    for _ in range(100):
        y = y + x
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(ops):
            y = y + x
        float(y[0])
        rounds.append((time.perf_counter() - start) / ops * 1e6)
    rounds.sort()
    print(f"eager_dispatch_us {rounds[2]:.2f}")


if __name__ == "__main__":
    main()
