"""The references of bench/frontend.sh: one training step of the MLP of
bench/frontend_bench.cc (batch 256, 784-512-512-10, ReLU, softmax cross-entropy, SGD
with learning rate 0.01) as a user of each library writes it: NumPy with hand-written
gradients, and PyTorch eager with autograd. Also the same-run floor's inputs are printed
by bench/reference/blas_workloads.cc and stream.cc, not here.

    /usr/bin/python3 bench/reference/mlp_step.py numpy|torch THREADS

Prints "mlp_step <median ms>". The thread count reaches OpenBLAS through the environment
(OPENBLAS_NUM_THREADS) and PyTorch through set_num_threads.
"""
import sys

from eager import median_ms


def numpy_step():
    import numpy as np
    rng = np.random.default_rng(0)
    f = np.float32
    p = [rng.normal(0, 0.05, (784, 512)).astype(f), np.zeros(512, f), rng.normal(0, 0.06, (512, 512)).astype(f),
         np.zeros(512, f), rng.normal(0, 0.06, (512, 10)).astype(f), np.zeros(10, f)]
    x = rng.normal(0, 1, (256, 784)).astype(f)
    onehot = np.eye(10, dtype=f)[np.arange(256) % 10]

    def step():
        w1, b1, w2, b2, w3, b3 = p
        z1 = x @ w1 + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2 + b2
        h2 = np.maximum(z2, 0)
        logits = h2 @ w3 + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -(onehot * logp).sum(axis=1).mean()
        dlogits = (np.exp(logp) - onehot) / 256
        dw3 = h2.T @ dlogits
        db3 = dlogits.sum(axis=0)
        dh2 = (dlogits @ w3.T) * (z2 > 0)
        dw2 = h1.T @ dh2
        db2 = dh2.sum(axis=0)
        dh1 = (dh2 @ w2.T) * (z1 > 0)
        dw1 = x.T @ dh1
        db1 = dh1.sum(axis=0)
        for w, g in zip(p, (dw1, db1, dw2, db2, dw3, db3)):
            w -= 0.01 * g
        return loss

    return step


def torch_step(threads):
    import torch
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(0)
    p = [torch.randn(784, 512, generator=g) * 0.05, torch.zeros(512), torch.randn(512, 512, generator=g) * 0.06,
         torch.zeros(512), torch.randn(512, 10, generator=g) * 0.06, torch.zeros(10)]
    for w in p:
        w.requires_grad_(True)
    x = torch.randn(256, 784, generator=g)
    labels = torch.arange(256) % 10

    def step():
        w1, b1, w2, b2, w3, b3 = p
        h = torch.relu(x @ w1 + b1)
        h = torch.relu(h @ w2 + b2)
        loss = torch.nn.functional.cross_entropy(h @ w3 + b3, labels)
        grads = torch.autograd.grad(loss, p)
        with torch.no_grad():
            for w, dw in zip(p, grads):
                w -= 0.01 * dw
        return loss

    return step


def main():
    lib, threads = sys.argv[1], int(sys.argv[2])
    step = numpy_step() if lib == "numpy" else torch_step(threads)
    print(f"mlp_step {median_ms(step, reps=20, warmups=3):.3f}")


if __name__ == "__main__":
    main()
