"""The main job's digits classifier (examples/digits_cnn.cc) in plain JAX, with Adam.

Nothing here names kiln: run it on kiln with

    JAX_PLATFORMS=kiln build/venv/bin/python examples/jax/digits.py

(after `make jax-plugin`), or on JAX's own CPU backend with JAX_PLATFORMS=cpu. It prints
the loss at steps 1, 10 and 100 and the final test accuracy; `--json` prints them as one
JSON line (python/tests/test_digits.py compares the two backends with it).
"""

import argparse
import gzip
import json
import time

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

DATA = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"


def load_digits(path):
    """64 pixel values (0..16) then the label, one image per line."""
    with gzip.open(path, "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return (rows[:, :64] / 16.0).reshape(-1, 8, 8, 1), rows[:, 64].astype(np.int32)


def init_params(key):
    def he_normal(key, shape, fan_in):
        return jax.random.normal(key, shape, jnp.float32) * jnp.sqrt(2.0 / fan_in)
    k = jax.random.split(key, 4)
    return {
        "conv1": (he_normal(k[0], (3, 3, 1, 16), 9), jnp.zeros(16)),
        "conv2": (he_normal(k[1], (3, 3, 16, 32), 144), jnp.zeros(32)),
        "hidden": (he_normal(k[2], (4 * 4 * 32, 64), 512), jnp.zeros(64)),
        "out": (he_normal(k[3], (64, 10), 64), jnp.zeros(10)),
    }


def forward(params, x):
    def conv(h, wb):
        y = lax.conv_general_dilated(h, wb[0], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jax.nn.relu(y + wb[1])
    h = conv(conv(x, params["conv1"]), params["conv2"])
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = h.reshape(h.shape[0], -1)
    h = jax.nn.relu(h @ params["hidden"][0] + params["hidden"][1])
    return h @ params["out"][0] + params["out"][1]


def loss(params, x, y):
    logp = jax.nn.log_softmax(forward(params, x))
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


def adam_init(params):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return {"m": zeros, "v": zeros, "t": jnp.zeros((), jnp.int32)}


def adam_update(grads, state, params, lr, b1=0.9, b2=0.999, eps=1e-8):
    t = state["t"] + 1
    m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
    v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, state["v"], grads)
    scale = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    params = jax.tree.map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps), params, m, v)
    return params, {"m": m, "v": v, "t": t}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=DATA)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    images, labels = load_digits(args.data)
    order = np.random.default_rng(args.seed).permutation(len(labels))
    test, train = order[: len(order) // 5], order[len(order) // 5:]
    params = init_params(jax.random.key(args.seed))
    state = adam_init(params)

    @jax.jit
    def step(params, state, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        params, state = adam_update(grads, state, params, args.lr)
        return params, state, value

    @jax.jit
    def accuracy(params, x, y):
        return jnp.mean(jnp.argmax(forward(params, x), axis=1) == y)

    losses = {}
    start = time.perf_counter()
    batches = np.random.default_rng(args.seed + 1)
    for s in range(1, args.steps + 1):
        rows = train[batches.choice(len(train), args.batch, replace=False)]
        params, state, value = step(params, state, images[rows], labels[rows])
        if s in (1, 10, 100) or s == args.steps:
            losses[s] = float(value)
            if not args.json:
                print(f"step {s:4d}  loss {losses[s]:.6f}")
    acc = float(accuracy(params, images[test], labels[test]))
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps({"platform": jax.devices()[0].platform, "losses": losses, "accuracy": acc, "seconds": seconds}))
    else:
        print(f"test accuracy {100 * acc:.1f}% on {jax.devices()[0].platform} ({seconds:.1f} s)")


if __name__ == "__main__":
    main()
