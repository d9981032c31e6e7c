#!/usr/bin/env python3
"""The same jitted JAX programs on XLA:CPU and on kiln: run times, outputs and compile times.

Purpose: measure kiln as JAX users meet it (``JAX_PLATFORMS=kiln`` through its PJRT
plugin) against JAX's own CPU backend, on programs people run: training steps (MLP, the
digits CNN of examples/jax/digits.py, a CIFAR-sized CNN, a small GPT), inference
(ResNet-50, BERT-base, a VAE-decoder-like stack, in f32 and bf16) and memory-bound
pieces (layer norm, RMS norm, softmax, GELU, an Adam update). Every model is written by
hand with jax.numpy / jax.lax, so both backends compile exactly the same StableHLO.

Method:

- A parent process orchestrates; each backend runs in a child worker pinned with
  ``taskset -c 0`` (1 thread) or ``taskset -c 0,1`` (2 threads). XLA:CPU sizes its thread
  pools from ``PJRT_NPROC``; kiln takes ``KILN_NUM_THREADS`` and ``KILN_CACHE_DIR=off``
  (no disk cache, so every compile is cold). XLA runs at its default flags, and JAX's
  persistent compilation cache stays off on both sides.
- For one thread count the two workers (cpu, kiln) are persistent: per program, each
  generates the same deterministic inputs (numpy RandomState seeded by the program's
  name), lowers it, compiles it once (only ``.compile()`` is timed, with Python's garbage
  collector held off: the cold compile table, taken from the 1-thread workers after a
  warm-up compile of a tiny function that pays each process's one-time costs), runs it
  once and saves the outputs; the parent
  compares kiln's outputs with XLA's (max abs error over max |XLA output|, per output
  array, worst one reported).
- Timed runs are interleaved so that both backends see the same machine state: one
  warm-up call each, then several rounds alternating cpu then kiln, each round a few
  calls (enough for about a quarter second). Every call is followed by
  ``jax.block_until_ready``; the table shows the median per-call time. Each worker also
  reports its CPU-time / wall-time ratio over its timed calls: about 1.0 at 1 thread,
  up to 2 at 2 threads when the work runs in parallel.
- Training steps and the Adam update are ``jax.jit(step, donate_argnums=...)`` on
  parameters and optimizer state on both backends, and timed loops feed each call's
  output state into the next call (``params, opt, loss = step(params, opt, x, y)``).
- Dispatch: ``f(x) = x + 1`` on an f32 scalar already on the device, µs per call.

Speed ratios are XLA time / kiln time (>1: kiln faster), with their geometric mean over
the models (training + inference) and, separately, over the memory-bound pieces.
A program that fails on one backend is reported with its error's first line, a worker
that dies with its exit code, and the run goes on.

Usage (after ``make jax-plugin``; ``make bench`` runs it too):

    build/venv/bin/python bench/jax_vs_xla.py                    # everything, 1 and 2 threads
    build/venv/bin/python bench/jax_vs_xla.py --quick --threads 1  # smoke test, under a minute
    build/venv/bin/python bench/jax_vs_xla.py --programs 'resnet50_b1|bert_f32' --threads 2
    build/venv/bin/python bench/jax_vs_xla.py --scale small --threads 1  # every model, shrunk

``--quick`` runs mlp_train, digits_train, a shrunk resnet50_b1_f32, layernorm and softmax
with 3 rounds; ``--scale small`` shrinks the big models (see --help) to check them all on
both backends in a minute.

Progress goes to stderr, results to stdout.
"""

import argparse
import dataclasses
import gc
import json
import math
import os
import pathlib
import platform
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib

import ml_dtypes
import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "jax"))
import digits  # noqa: E402  (the main job's model, loss and Adam, in plain JAX)
BACKENDS = ("cpu", "kiln")  # the order of every round: XLA first, then kiln
# Max abs error / max |XLA output|, per output array. A training step's new parameters
# differ most: Adam's first step divides each gradient by its own magnitude, so where a
# gradient is near eps (1e-8) rounding moves its parameter by a good part of lr; the
# optimizer state m and v (the gradients) and the loss agree far closer.
TOLERANCE = {"f32": 1e-3, "bf16": 5e-2}
SLOW_RATIO = 0.9  # programs below this speed ratio are listed after the tables
ROUND_SECONDS = 0.25  # the wall time one round of calls aims at
MAX_CALLS_PER_ROUND = 50
DISPATCH_CALLS = 1000
REQUEST_TIMEOUT_S = 1800  # one compile or one round of a bf16 model on a slow backend fits
QUICK_PROGRAMS = "^(mlp_train|digits_train|resnet50_b1_f32|layernorm|softmax)$"


# ----------------------------------------------------------------------------------------
# Building blocks shared by the models. Norms compute their statistics in f32 when the
# input is bf16 (as flax's LayerNorm/GroupNorm do) and return the input's dtype.

def dense(x, wb):
    return x @ wb[0] + wb[1]


def conv2d(x, w, stride=1, padding="SAME"):
    return lax.conv_general_dilated(x, w, (stride, stride), padding,
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def max_pool(x, window, stride, padding="VALID"):
    # A Python -inf (not an array) lets JAX see a max pool, which it can differentiate.
    return lax.reduce_window(x, -jnp.inf, lax.max,
                             (1, window, window, 1), (1, stride, stride, 1), padding)


def layer_norm(x, gamma, beta, eps=1e-5):
    xf = x.astype(jnp.promote_types(x.dtype, jnp.float32))
    mean = jnp.mean(xf, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(xf - mean), axis=-1, keepdims=True)
    return ((xf - mean) * lax.rsqrt(var + eps) * gamma + beta).astype(x.dtype)


def rms_norm(x, gamma, eps=1e-6):
    xf = x.astype(jnp.promote_types(x.dtype, jnp.float32))
    return (xf * lax.rsqrt(jnp.mean(jnp.square(xf), axis=-1, keepdims=True) + eps) * gamma).astype(x.dtype)


def group_norm(x, gamma, beta, groups=32, eps=1e-6):
    n, h, w, c = x.shape
    xf = x.astype(jnp.promote_types(x.dtype, jnp.float32)).reshape(n, h, w, groups, c // groups)
    mean = jnp.mean(xf, axis=(1, 2, 4), keepdims=True)
    var = jnp.mean(jnp.square(xf - mean), axis=(1, 2, 4), keepdims=True)
    y = ((xf - mean) * lax.rsqrt(var + eps)).reshape(n, h, w, c)
    return (y * gamma + beta).astype(x.dtype)


def attention(x, p, heads, causal):
    """Multi-head self-attention of x (batch, seq, d) with fused qkv projection."""
    b, t, d = x.shape
    q, k, v = jnp.split(dense(x, p["qkv"]), 3, axis=-1)
    q, k, v = (a.reshape(b, t, heads, d // heads) for a in (q, k, v))
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) * (1.0 / math.sqrt(d // heads))
    if causal:
        mask = jnp.tril(jnp.ones((t, t), bool))
        scores = jnp.where(mask, scores, jnp.finfo(scores.dtype).min)
    out = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, axis=-1), v)
    return dense(out.reshape(b, t, d), p["out"])


def cross_entropy(logits, labels):
    """Mean softmax cross-entropy over every leading position."""
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))


def adam_init(params):
    return {"m": jax.tree.map(np.zeros_like, params), "v": jax.tree.map(np.zeros_like, params),
            "t": np.zeros((), np.int32)}


def adam_update(params, grads, opt, lr=1e-3):
    """examples/jax/digits.py's Adam step (the main job's, in plain JAX)."""
    return digits.adam_update(grads, opt, params, lr)


def train_step(loss_fn):
    """step(params, opt, *batch) -> (params, opt, loss): one Adam step on loss_fn."""
    def step(params, opt, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, opt = adam_update(params, grads, opt)
        return params, opt, loss
    return step


# ----------------------------------------------------------------------------------------
# Deterministic numpy inputs: weights normal / sqrt(fan-in) (He's sqrt(2/fan-in) before a
# ReLU) so activations stay finite through deep stacks; biases small but nonzero.

HE = math.sqrt(2.0)


def normal(rng, shape, std=1.0, dtype=np.float32):
    return (rng.standard_normal(shape) * std).astype(dtype)


def weight(rng, shape, dtype=np.float32, gain=1.0):
    """A dense (in, out) or HWIO conv kernel: fan-in is every dimension but the last."""
    return normal(rng, shape, gain / math.sqrt(math.prod(shape[:-1])), dtype)


def dense_params(rng, n_in, n_out, dtype=np.float32, gain=1.0):
    return (weight(rng, (n_in, n_out), dtype, gain), normal(rng, (n_out,), 0.01, dtype))


def norm_params(rng, n, dtype=np.float32):
    return ((1 + normal(rng, (n,), 0.1)).astype(dtype), normal(rng, (n,), 0.1, dtype))


@dataclasses.dataclass
class Built:
    """A program ready to jit: fn(*inputs); its first `carry` inputs are donated and
    replaced by its first `carry` outputs after each call (a training loop's state)."""
    fn: object
    inputs: tuple
    carry: int = 0


def mlp_train(rng, scale):
    sizes = (784, 512, 512, 10)
    params = [dense_params(rng, a, b, gain=HE) for a, b in zip(sizes[:-1], sizes[1:])]

    def loss(params, x, y):
        for wb in params[:-1]:
            x = jax.nn.relu(dense(x, wb))
        return cross_entropy(dense(x, params[-1]), y)

    batch = 128
    x = rng.uniform(0, 1, (batch, 784)).astype(np.float32)
    y = rng.randint(0, 10, batch).astype(np.int32)
    return Built(train_step(loss), (params, adam_init(params), x, y), carry=2)


def digits_train(rng, scale):
    """examples/jax/digits.py's CNN and loss (conv 16, conv 32, max pool, dense 64, dense 10)
    on 8x8x1 images, its parameters' shapes filled from numpy instead of jax.random."""
    shapes = jax.eval_shape(digits.init_params, jax.random.key(0))
    params = jax.tree.map(
        lambda s: weight(rng, s.shape, gain=HE) if len(s.shape) > 1 else normal(rng, s.shape, 0.01), shapes)
    batch = 64
    x = rng.uniform(0, 1, (batch, 8, 8, 1)).astype(np.float32)
    y = rng.randint(0, 10, batch).astype(np.int32)
    return Built(train_step(digits.loss), (params, adam_init(params), x, y), carry=2)


def cifar_train(rng, scale):
    """conv 32-64-128 3x3 + ReLU, each followed by a 2x2 max pool, then dense 10."""
    batch, image = (64, 32) if scale == "full" else (8, 16)
    channels = (3, 32, 64, 128)
    params = {
        "convs": [(weight(rng, (3, 3, a, b), gain=HE), normal(rng, (b,), 0.01))
                  for a, b in zip(channels[:-1], channels[1:])],
        "out": dense_params(rng, (image // 8) ** 2 * channels[-1], 10),
    }

    def loss(params, x, y):
        for w, b in params["convs"]:
            x = max_pool(jax.nn.relu(conv2d(x, w) + b), 2, 2)
        return cross_entropy(dense(x.reshape(x.shape[0], -1), params["out"]), y)

    x = rng.uniform(0, 1, (batch, image, image, 3)).astype(np.float32)
    y = rng.randint(0, 10, batch).astype(np.int32)
    return Built(train_step(loss), (params, adam_init(params), x, y), carry=2)


def gpt_train(rng, scale):
    """A pre-LN GPT: token + learned position embeddings, causal attention, GELU MLP 4x,
    final layer norm, untied head; next-token cross-entropy."""
    if scale == "full":
        layers, d, heads, seq, batch, vocab = 4, 256, 4, 128, 8, 512
    else:
        layers, d, heads, seq, batch, vocab = 2, 64, 4, 32, 2, 128
    params = {
        "tokens": normal(rng, (vocab, d), 0.02), "positions": normal(rng, (seq, d), 0.02),
        "layers": [{"ln1": norm_params(rng, d), "qkv": dense_params(rng, d, 3 * d),
                    "out": dense_params(rng, d, d, gain=1 / math.sqrt(2 * layers)),
                    "ln2": norm_params(rng, d), "fc": dense_params(rng, d, 4 * d),
                    "proj": dense_params(rng, 4 * d, d, gain=1 / math.sqrt(2 * layers))}
                   for _ in range(layers)],
        "ln_f": norm_params(rng, d), "head": dense_params(rng, d, vocab),
    }

    def loss(params, tokens, targets):
        h = params["tokens"][tokens] + params["positions"]
        for p in params["layers"]:
            h = h + attention(layer_norm(h, *p["ln1"]), p, heads, causal=True)
            h = h + dense(jax.nn.gelu(dense(layer_norm(h, *p["ln2"]), p["fc"])), p["proj"])
        return cross_entropy(dense(layer_norm(h, *params["ln_f"]), params["head"]), targets)

    tokens = rng.randint(0, vocab, (batch, seq + 1)).astype(np.int32)
    return Built(train_step(loss), (params, adam_init(params), tokens[:, :-1], tokens[:, 1:]), carry=2)


def resnet50(batch, dtype):
    """ResNet-50 v1.5 (stride on each bottleneck's 3x3 convolution), NHWC / HWIO, batch
    norm in inference form (per-channel scale and bias), logits of 1000 classes."""
    def build(rng, scale):
        if scale == "full":
            image, blocks, widths = 224, (3, 4, 6, 3), (64, 128, 256, 512)
        else:
            image, blocks, widths = 64, (1, 1, 1, 1), (16, 32, 64, 128)

        def bn(n, gain=1.0):
            # Each block's last scale is small so the residual sum grows slowly with depth.
            return ((rng.uniform(0.5, 1.0, n) * gain).astype(dtype), normal(rng, (n,), 0.1, dtype))

        params = {"stem": (weight(rng, (7, 7, 3, widths[0]), dtype, HE), bn(widths[0])), "stages": []}
        features = widths[0]
        for count, width in zip(blocks, widths):
            stage = []
            for i in range(count):
                block = {"conv1": (weight(rng, (1, 1, features, width), dtype, HE), bn(width)),
                         "conv2": (weight(rng, (3, 3, width, width), dtype, HE), bn(width)),
                         "conv3": (weight(rng, (1, 1, width, 4 * width), dtype, HE), bn(4 * width, 0.3))}
                if i == 0:
                    block["proj"] = (weight(rng, (1, 1, features, 4 * width), dtype), bn(4 * width))
                stage.append(block)
                features = 4 * width
            params["stages"].append(stage)
        params["fc"] = dense_params(rng, features, 1000, dtype)

        def conv_bn(x, p, stride=1, padding="SAME"):
            w, (s, b) = p
            return conv2d(x, w, stride, padding) * s + b

        def forward(params, x):
            x = jax.nn.relu(conv_bn(x, params["stem"], 2, ((3, 3), (3, 3))))
            x = max_pool(x, 3, 2, ((0, 0), (1, 1), (1, 1), (0, 0)))
            for s, stage in enumerate(params["stages"]):
                for i, block in enumerate(stage):
                    stride = 2 if s > 0 and i == 0 else 1
                    h = jax.nn.relu(conv_bn(x, block["conv1"]))
                    h = jax.nn.relu(conv_bn(h, block["conv2"], stride, ((1, 1), (1, 1))))
                    h = conv_bn(h, block["conv3"])
                    shortcut = conv_bn(x, block["proj"], stride, "VALID") if "proj" in block else x
                    x = jax.nn.relu(h + shortcut)
            return dense(jnp.mean(x, axis=(1, 2)), params["fc"])

        x = rng.uniform(0, 1, (batch, image, image, 3)).astype(dtype)
        return Built(forward, (params, x))
    return build


def bert(dtype):
    """BERT-base's encoder: word + position + type embeddings, embedding layer norm,
    12 post-LN layers (attention, exact-erf GELU FFN), batch 1; the last hidden states."""
    def build(rng, scale):
        if scale == "full":
            layers, d, heads, ffn, seq, vocab = 12, 768, 12, 3072, 128, 30522
        else:
            layers, d, heads, ffn, seq, vocab = 2, 128, 2, 512, 32, 1000
        params = {
            "words": normal(rng, (vocab, d), 0.02, dtype), "positions": normal(rng, (seq, d), 0.02, dtype),
            "type": normal(rng, (d,), 0.02, dtype), "ln": norm_params(rng, d, dtype),
            "layers": [{"qkv": dense_params(rng, d, 3 * d, dtype), "out": dense_params(rng, d, d, dtype),
                        "ln1": norm_params(rng, d, dtype), "ffn1": dense_params(rng, d, ffn, dtype),
                        "ffn2": dense_params(rng, ffn, d, dtype), "ln2": norm_params(rng, d, dtype)}
                       for _ in range(layers)],
        }

        def forward(params, ids):
            h = params["words"][ids] + params["positions"] + params["type"]
            h = layer_norm(h, *params["ln"])
            for p in params["layers"]:
                h = layer_norm(h + attention(h, p, heads, causal=False), *p["ln1"])
                ffn_out = dense(jax.nn.gelu(dense(h, p["ffn1"]), approximate=False), p["ffn2"])
                h = layer_norm(h + ffn_out, *p["ln2"])
            return h

        ids = rng.randint(0, vocab, (1, seq)).astype(np.int32)
        return Built(forward, (params, ids))
    return build


def vae(dtype):
    """A VAE decoder's tail: a residual block of two (group norm 32, SiLU, 3x3 conv
    512->512) at 64x64, nearest 2x upsampling, 3x3 conv 512->256, then group norm, SiLU
    and 3x3 conv 256->256 at 128x128; batch 1."""
    def build(rng, scale):
        size, channels, out = (64, 512, 256) if scale == "full" else (16, 64, 32)

        def conv(c_in, c_out):
            return (weight(rng, (3, 3, c_in, c_out), dtype), normal(rng, (c_out,), 0.01, dtype))

        params = {"norm1": norm_params(rng, channels, dtype), "conv1": conv(channels, channels),
                  "norm2": norm_params(rng, channels, dtype), "conv2": conv(channels, channels),
                  "up": conv(channels, out), "norm3": norm_params(rng, out, dtype), "conv3": conv(out, out)}

        def norm_silu_conv(x, norm, wb):
            return conv2d(jax.nn.silu(group_norm(x, *norm)), wb[0]) + wb[1]

        def forward(params, x):
            h = norm_silu_conv(x, params["norm1"], params["conv1"])
            x = x + norm_silu_conv(h, params["norm2"], params["conv2"])
            x = jnp.repeat(jnp.repeat(x, 2, axis=1), 2, axis=2)
            x = conv2d(x, params["up"][0]) + params["up"][1]
            return norm_silu_conv(x, params["norm3"], params["conv3"])

        x = normal(rng, (1, size, size, channels), 1.0, dtype)
        return Built(forward, (params, x))
    return build


ROWS, COLS = 4096, 2048  # the memory-bound pieces' input, normalized along the last axis


def memory_bound(fn, with_gamma=False, with_beta=False):
    def build(rng, scale):
        inputs = [normal(rng, (ROWS, COLS))]
        if with_gamma:
            inputs.append(normal(rng, (COLS,), 0.1) + np.float32(1))
        if with_beta:
            inputs.append(normal(rng, (COLS,), 0.1))
        return Built(fn, tuple(inputs))
    return build


def adam_update_program(rng, scale):
    """One Adam step over 4M f32 parameters in two arrays, state donated."""
    params = {"w0": normal(rng, (2048, 1024), 0.05), "w1": normal(rng, (2048, 1024), 0.05)}
    grads = jax.tree.map(lambda p: normal(rng, p.shape, 1e-3), params)
    opt = adam_init(params)
    opt["m"] = jax.tree.map(lambda p: normal(rng, p.shape, 1e-4), params)
    opt["v"] = jax.tree.map(lambda p: np.abs(normal(rng, p.shape, 1e-6)), params)

    def step(params, opt, grads):
        return adam_update(params, grads, opt)
    return Built(step, (params, opt, grads), carry=2)


@dataclasses.dataclass(frozen=True)
class Program:
    name: str
    family: str  # "train", "infer" or "memory"
    dtype: str  # "f32" or "bf16": picks the tolerance
    build: object  # (numpy RandomState, scale) -> Built


BF16 = ml_dtypes.bfloat16  # numpy's view of jnp.bfloat16
PROGRAMS = [
    Program("mlp_train", "train", "f32", mlp_train),
    Program("digits_train", "train", "f32", digits_train),
    Program("cifar_train", "train", "f32", cifar_train),
    Program("gpt_train", "train", "f32", gpt_train),
    Program("resnet50_b1_f32", "infer", "f32", resnet50(1, np.float32)),
    Program("resnet50_b8_f32", "infer", "f32", resnet50(8, np.float32)),
    Program("resnet50_b1_bf16", "infer", "bf16", resnet50(1, BF16)),
    Program("resnet50_b8_bf16", "infer", "bf16", resnet50(8, BF16)),
    Program("bert_f32", "infer", "f32", bert(np.float32)),
    Program("bert_bf16", "infer", "bf16", bert(BF16)),
    Program("vae_f32", "infer", "f32", vae(np.float32)),
    Program("vae_bf16", "infer", "bf16", vae(BF16)),
    Program("layernorm", "memory", "f32", memory_bound(layer_norm, with_gamma=True, with_beta=True)),
    Program("rmsnorm", "memory", "f32", memory_bound(rms_norm, with_gamma=True)),
    Program("softmax", "memory", "f32", memory_bound(lambda x: jax.nn.softmax(x, axis=-1))),
    Program("gelu", "memory", "f32", memory_bound(jax.nn.gelu)),
    Program("adam_update", "memory", "f32", adam_update_program),
]
PROGRAMS_BY_NAME = {p.name: p for p in PROGRAMS}


# ----------------------------------------------------------------------------------------
# The worker: one backend, driven over stdin/stdout with one JSON object a line.

def first_line(error):
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"


def device_copy(tree):
    """Device arrays from private copies of numpy inputs: a donated buffer must not alias
    an array that is used again."""
    return jax.tree.map(lambda a: jax.device_put(np.array(a, copy=True)), tree)


def save_outputs(outputs, path):
    arrays = {}
    for leaf_path, leaf in jax.tree_util.tree_flatten_with_path(outputs)[0]:
        value = np.asarray(leaf)
        arrays[jax.tree_util.keystr(leaf_path) or "output"] = (
            value.astype(np.float32) if value.dtype == BF16 else value)
    np.savez(path, **arrays)


class Worker:
    def __init__(self, scale):
        self.scale = scale
        self.live = {}  # program name -> [compiled, current args, carry]
        self.dispatch_fn = jax.jit(lambda x: x + 1)
        self.dispatch_x = jax.device_put(np.float32(0))
        # The first compile of a process pays its one-time costs (compiler set-up, JIT
        # and thread pool creation); paying them here keeps them out of the compile table.
        jax.block_until_ready(self.dispatch_fn(self.dispatch_x))

    def prepare(self, program, out):
        built = PROGRAMS_BY_NAME[program].build(np.random.RandomState(zlib.crc32(program.encode())), self.scale)
        jitted = jax.jit(built.fn, donate_argnums=tuple(range(built.carry)))
        args = list(device_copy(built.inputs))
        lowered = jitted.lower(*args)
        # Python's collector, which walks every object the earlier programs left alive,
        # stays out of the timed compile (as timeit keeps it out).
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            compiled = lowered.compile()
            compile_s = time.perf_counter() - start
        finally:
            gc.enable()
        outputs = jax.block_until_ready(compiled(*args))
        save_outputs(outputs, out)
        if built.carry:
            args[:built.carry] = outputs[:built.carry]
        self.live[program] = [compiled, args, built.carry]
        return {"compile_s": compile_s}

    def timed_calls(self, program, calls):
        compiled, args, carry = self.live[program]
        times = []
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(calls):
            start = time.perf_counter()
            outputs = jax.block_until_ready(compiled(*args))
            times.append(time.perf_counter() - start)
            if carry:
                args[:carry] = outputs[:carry]
        return {"times": times, "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}

    def dispatch(self, calls):
        x = self.dispatch_x
        start = time.perf_counter()
        for _ in range(calls):
            x = self.dispatch_fn(x)
        jax.block_until_ready(x)
        return {"us": (time.perf_counter() - start) / calls * 1e6}

    def drop(self, program):
        self.live.pop(program, None)
        return {}


def worker_main(backend, scale):
    # Replies go to a private copy of stdout; anything else writing to fd 1 (the plugin,
    # JAX's warnings) lands in the worker's log with its stderr.
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)

    def reply(obj):
        replies.write(json.dumps(obj) + "\n")

    jax.config.update("jax_enable_compilation_cache", False)
    try:
        actual = jax.default_backend()
        if actual != backend:
            raise RuntimeError(f"JAX's default backend is {actual!r}, not {backend!r}")
        worker = Worker(scale)
    except Exception as error:  # whatever stops the set-up, the parent reports it
        reply({"ok": False, "error": first_line(error)})
        return
    reply({"ok": True})
    for line in sys.stdin:
        request = json.loads(line)
        command = request.pop("cmd")
        try:
            reply({"ok": True, **getattr(worker, command)(**request)})
        except Exception as error:  # one program's failure is a result, not the end
            reply({"ok": False, "error": first_line(error)})


# ----------------------------------------------------------------------------------------
# The parent.

def plural(count, noun):
    return f"{count} {noun}{'s' * (count != 1)}"


def progress(message):
    print(message, file=sys.stderr, flush=True)


class WorkerLost(Exception):
    """The worker exited or stopped answering; the message says how."""


def pinned_cpus(threads):
    """taskset's CPU list for `threads` workers: the first cores this process may use."""
    return ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:threads])


def exit_description(code):
    if code is not None and code < 0:
        return f"exit code {code} ({signal.Signals(-code).name})"
    return f"exit code {code}"


class WorkerProcess:
    """A worker child pinned to `threads` cores; request() sends one command and returns
    its reply, raising WorkerLost if the worker dies or times out."""

    def __init__(self, backend, threads, scale, workdir):
        self.backend = backend
        self.env = dict(os.environ, JAX_PLATFORMS=backend)
        if backend == "cpu":
            self.env["PJRT_NPROC"] = str(threads)
        else:
            self.env.update(KILN_NUM_THREADS=str(threads), KILN_CACHE_DIR="off")
        self.command = ["taskset", "-c", pinned_cpus(threads), sys.executable, str(pathlib.Path(__file__).resolve()),
                        "--worker", backend, "--scale", scale]
        self.log_path = workdir / f"{backend}-{threads}.log"
        self.log_offset = 0  # where the current request's log lines begin
        self.proc = None

    def start(self):
        """Starts the worker; returns None, or the reason it could not start."""
        with open(self.log_path, "ab") as log:  # the child keeps its own descriptor
            self.log_offset = log.tell()
            self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=log, env=self.env, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True).start()
        try:
            hello = self._receive(REQUEST_TIMEOUT_S)
        except WorkerLost as lost:
            return str(lost)
        return None if hello["ok"] else hello["error"]

    @staticmethod
    def _read(stream, lines):
        for line in stream:
            lines.put(line)
        lines.put(None)

    def request(self, command, **fields):
        self.log_offset = self.log_path.stat().st_size
        try:
            self.proc.stdin.write(json.dumps({"cmd": command, **fields}) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # the worker is gone: _receive reports its exit code
        return self._receive(REQUEST_TIMEOUT_S)

    def _receive(self, timeout):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.proc.kill()
            self.proc.wait()
            raise WorkerLost(f"{self.backend} worker timed out after {timeout} s") from None
        if line is None:
            code = self.proc.wait()
            last = self.last_log_line()
            raise WorkerLost(f"{self.backend} worker crashed ({exit_description(code)})"
                             + (f"; its log's last line: {last}" if last else ""))
        return json.loads(line)

    def last_log_line(self):
        """The last line the worker logged during the failed request."""
        with open(self.log_path, "rb") as log:
            log.seek(self.log_offset)
            lines = log.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else None

    def stop(self):
        """Ends the worker: its stdin closes, so it leaves its command loop."""
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@dataclasses.dataclass
class Result:
    """One program at one thread count; per-backend dicts keyed "cpu" / "kiln"."""
    program: Program
    errors: dict = dataclasses.field(default_factory=dict)
    compile_s: dict = dataclasses.field(default_factory=dict)
    times: dict = dataclasses.field(default_factory=dict)  # every timed call's seconds
    cpu: dict = dataclasses.field(default_factory=dict)  # CPU seconds over the timed calls
    wall: dict = dataclasses.field(default_factory=dict)
    rel_error: float = None
    worst_output: str = None

    def median_ms(self, backend):
        return float(np.median(self.times[backend])) * 1e3 if self.times.get(backend) else None

    def ratio(self):
        if self.median_ms("cpu") and self.median_ms("kiln"):
            return self.median_ms("cpu") / self.median_ms("kiln")
        return None

    def mismatch(self):
        return self.rel_error is not None and not self.rel_error <= TOLERANCE[self.program.dtype]


def compare_outputs(xla_path, kiln_path):
    """Returns (worst relative error, output name): per output array, max |kiln - XLA|
    over max |XLA| (non-finite XLA values excluded from the scale; a NaN or inf that
    differs counts as an infinite error)."""
    worst, where = 0.0, None
    with np.load(xla_path) as xla, np.load(kiln_path) as kiln:
        if sorted(xla.files) != sorted(kiln.files):
            return math.inf, "output structure"
        for name in xla.files:
            a, b = xla[name].astype(np.float64), kiln[name].astype(np.float64)
            if a.shape != b.shape:
                return math.inf, f"{name} shape {b.shape} vs {a.shape}"
            same = (a == b) | (np.isnan(a) & np.isnan(b))
            diff = np.where(same, 0.0, np.abs(a - b))
            diff = np.where(np.isnan(diff), math.inf, diff)
            finite = np.abs(a[np.isfinite(a)])
            scale = finite.max() if finite.size and finite.max() > 0 else 1.0
            error = float(diff.max() / scale) if diff.size else 0.0
            if error > worst or where is None:
                worst, where = error, name
    return worst, where


class Session:
    """The two workers of one thread count and the programs run through them."""

    def __init__(self, threads, args, workdir):
        self.threads = threads
        self.args = args
        self.workdir = workdir
        self.workers = {b: WorkerProcess(b, threads, args.scale, workdir) for b in BACKENDS}
        self.dispatch_us = {}

    def start_worker(self, backend):
        progress(f"starting the {backend} worker ({plural(self.threads, 'thread')})...")
        failure = self.workers[backend].start()
        if failure and backend == "kiln":
            sys.exit(f"the kiln worker could not start: {failure}\n"
                     "(is the plugin built and installed? run `make jax-plugin`)")
        if failure:
            sys.exit(f"the {backend} worker could not start: {failure}")

    def request(self, result, backend, command, **fields):
        """Sends a command about result's program; records an error or a crash (then
        restarts the worker for the next programs) and returns None, else the reply."""
        try:
            reply = self.workers[backend].request(command, **fields)
        except WorkerLost as lost:
            result.errors[backend] = str(lost)
            progress(f"  {lost}")
            self.start_worker(backend)
            return None
        if not reply["ok"]:
            result.errors[backend] = reply["error"]
            progress(f"  {backend}: {reply['error']}")
            return None
        return reply

    def run(self, programs, timed):
        for backend in BACKENDS:
            self.start_worker(backend)
        try:
            if timed:
                self.measure_dispatch()
            return [self.run_program(program, timed) for program in programs]
        finally:
            for worker in self.workers.values():
                worker.stop()

    def measure_dispatch(self):
        progress("timing dispatch...")
        samples = {b: [] for b in BACKENDS}
        for round_index in range(self.args.rounds + 1):
            for backend in BACKENDS:
                try:
                    reply = self.workers[backend].request("dispatch", calls=DISPATCH_CALLS)
                except WorkerLost as lost:
                    progress(f"  dispatch: {lost}")
                    self.start_worker(backend)
                    continue
                if not reply["ok"]:
                    progress(f"  {backend} dispatch: {reply['error']}")
                elif round_index > 0:  # the first round warms up
                    samples[backend].append(reply["us"])
        self.dispatch_us = {b: float(np.median(s)) for b, s in samples.items() if s}

    def run_program(self, program, timed):
        result = Result(program)
        outputs = {b: self.workdir / f"{program.name}-{b}-{self.threads}.npz" for b in BACKENDS}
        for backend in BACKENDS:
            progress(f"compiling {program.name} on {backend}...")
            reply = self.request(result, backend, "prepare", program=program.name, out=str(outputs[backend]))
            if reply:
                result.compile_s[backend] = reply["compile_s"]
        if not result.errors:
            result.rel_error, result.worst_output = compare_outputs(outputs["cpu"], outputs["kiln"])
        if timed:
            self.time_program(result)
        for backend in BACKENDS:
            if backend not in result.errors:
                self.request(result, backend, "drop", program=program.name)
        return result

    def time_program(self, result):
        """One warm-up call per backend, then rounds alternating cpu then kiln."""
        name = result.program.name
        calls = {}
        for backend in BACKENDS:
            if backend in result.errors:
                continue
            reply = self.request(result, backend, "timed_calls", program=name, calls=1)
            if reply:
                calls[backend] = max(1, min(MAX_CALLS_PER_ROUND, round(ROUND_SECONDS / reply["times"][0])))
        if not calls:
            return
        progress(f"timing {name}: {plural(self.args.rounds, 'round')} of "
                 + ", ".join(plural(n, f"{b} call") for b, n in calls.items()) + "...")
        for _ in range(self.args.rounds):
            for backend in BACKENDS:
                if backend not in calls or backend in result.errors:
                    continue
                reply = self.request(result, backend, "timed_calls", program=name, calls=calls[backend])
                if reply:
                    result.times.setdefault(backend, []).extend(reply["times"])
                    result.cpu[backend] = result.cpu.get(backend, 0.0) + reply["cpu"]
                    result.wall[backend] = result.wall.get(backend, 0.0) + reply["wall"]
        for backend in result.errors:  # a run that failed part way is no measurement
            result.times.pop(backend, None)


# ----------------------------------------------------------------------------------------
# Reports.

def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def fmt_ratio(value):
    return "-" if value is None else f"{value:.2f}x"


def verdict(result):
    if result.errors:
        return "; ".join(f"{'XLA' if b == 'cpu' else b} error: {e}" for b, e in result.errors.items())
    if result.mismatch():
        return f"FAIL ({result.worst_output})"
    return "ok"


def print_timing_table(threads, results):
    print(f"\n== {plural(threads, 'thread')}: XLA:CPU with PJRT_NPROC={threads}, kiln with "
          f"KILN_NUM_THREADS={threads}, both under taskset -c {pinned_cpus(threads)} ==")
    print(f"{'program':<18} {'XLA ms':>10} {'kiln ms':>10} {'speed':>8} {'cpu/wall':>8} {'cpu/wall':>8} "
          f"{'max rel':>9}  verdict")
    print(f"{'':<18} {'':>10} {'':>10} {'XLA/kiln':>8} {'XLA':>8} {'kiln':>8} {'error':>9}")
    for r in results:
        load = {b: r.cpu[b] / r.wall[b] if r.wall.get(b) else None for b in BACKENDS}
        print(f"{r.program.name:<18} {fmt(r.median_ms('cpu'), '10.3f'):>10} {fmt(r.median_ms('kiln'), '10.3f'):>10} "
              f"{fmt_ratio(r.ratio()):>8} {fmt(load['cpu'], '8.2f'):>8} "
              f"{fmt(load['kiln'], '8.2f'):>8} {fmt(r.rel_error, '9.1e'):>9}  {verdict(r)}")
    models = [r.ratio() for r in results if r.program.family != "memory" and r.ratio()]
    pieces = [r.ratio() for r in results if r.program.family == "memory" and r.ratio()]
    print(f"geometric mean speed (XLA/kiln), models (training + inference): "
          f"{fmt_ratio(geomean(models))} over {len(models)}")
    print(f"geometric mean speed (XLA/kiln), memory-bound pieces: {fmt_ratio(geomean(pieces))} over {len(pieces)}")
    slow = [f"{r.program.name} {r.ratio():.2f}x" for r in results if r.ratio() and r.ratio() < SLOW_RATIO]
    print(f"below {SLOW_RATIO}x: {', '.join(slow) if slow else 'none'}")


def print_dispatch(dispatch_us):
    print("\n== dispatch of jit(x + 1) on an f32 scalar already on the device (us per call) ==")
    for threads, us in dispatch_us.items():
        print(f"{plural(threads, 'thread')}: XLA {fmt(us.get('cpu'), '.1f')}, "
              f"kiln {fmt(us.get('kiln'), '.1f')}")


def print_compile_table(results):
    print("\n== cold compile, 1 thread (seconds in .compile(); kiln/XLA < 1: kiln compiles faster) ==")
    print(f"{'program':<18} {'XLA s':>9} {'kiln s':>9} {'kiln/XLA':>9}")
    ratios = []
    for r in results:
        xla, kiln = r.compile_s.get("cpu"), r.compile_s.get("kiln")
        ratio = kiln / xla if xla and kiln else None
        if ratio:
            ratios.append(ratio)
        print(f"{r.program.name:<18} {fmt(xla, '9.3f'):>9} {fmt(kiln, '9.3f'):>9} "
              f"{fmt_ratio(ratio):>9}")
    print(f"geometric mean compile-time ratio (kiln/XLA): {fmt_ratio(geomean(ratios))} over {len(ratios)}")


def command_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def kiln_plugin_path():
    """The plugin library JAX would load, or exit naming `make jax-plugin`."""
    try:
        import jax_plugins.kiln as kiln_plugin
        return kiln_plugin.library_path()
    except (ImportError, RuntimeError) as error:
        sys.exit(f"kiln's JAX plugin is unavailable ({first_line(error)}): run `make jax-plugin` "
                 f"and this script with {ROOT / 'build/venv/bin/python'}")


def print_environment(plugin, args):
    import jaxlib
    flags = set()
    model = "unknown"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model == "unknown":
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    head = command_output(["git", "rev-parse", "--short", "HEAD"])
    dirty = command_output(["git", "status", "--porcelain", "--untracked-files=no"])
    plugin_time = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(plugin)))
    print("== environment ==")
    print(f"python {platform.python_version()} ({sys.executable})")
    print(f"jax {jax.__version__}, jaxlib {jaxlib.__version__}, numpy {np.__version__}, "
          f"ml_dtypes {ml_dtypes.__version__}")
    print(f"kiln {head or 'unknown'} ({'dirty tree' if dirty else 'clean tree'}); "
          f"plugin {plugin} (built {plugin_time})")
    print(f"cpu {model}; avx512f {'yes' if 'avx512f' in flags else 'no'}, "
          f"avx512_bf16 {'yes' if 'avx512_bf16' in flags else 'no'}; nproc {os.cpu_count()} "
          f"({len(os.sched_getaffinity(0))} usable)")
    print(f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; "
          f"XLA_FLAGS={os.environ.get('XLA_FLAGS', '(unset)')}")
    print(f"scale {args.scale}; rounds {args.rounds}; threads {','.join(map(str, args.threads))}")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="programs: " + ", ".join(p.name for p in PROGRAMS))
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--programs", help="regular expression (re.search) selecting programs by name")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke test: programs {QUICK_PROGRAMS}, 3 rounds, --scale small")
    parser.add_argument("--rounds", type=int, help="timed rounds per program and backend (default 5)")
    parser.add_argument("--no-compile", action="store_true", help="skip the cold compile table")
    parser.add_argument("--scale", choices=("full", "small"),
                        help="small shrinks cifar_train, gpt_train, ResNet-50, BERT and the VAE "
                             "(batch, image, width, layers) for quick checks of every model on both "
                             "backends; mlp_train, digits_train and the memory-bound pieces keep "
                             "their size (default full)")
    parser.add_argument("--chart", metavar="FILE.svg",
                        help="also draw the speed table as an SVG bar chart (bench/speed_chart.py)")
    parser.add_argument("--worker", choices=BACKENDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.scale = args.scale or ("small" if args.quick else "full")
    args.rounds = args.rounds or (3 if args.quick else 5)
    args.programs = args.programs or (QUICK_PROGRAMS if args.quick else ".")
    args.threads = [int(t) for t in args.threads.split(",")]
    if min(args.threads) < 1:
        parser.error("--threads: thread counts start at 1")
    return args


def main():
    args = parse_args()
    if args.worker:
        worker_main(args.worker, args.scale)
        return
    programs = [p for p in PROGRAMS if re.search(args.programs, p.name)]
    if not programs:
        sys.exit(f"no program matches {args.programs!r}; programs: {', '.join(p.name for p in PROGRAMS)}")
    usable = len(os.sched_getaffinity(0))
    if max(args.threads) > usable:
        sys.exit(f"--threads {max(args.threads)} needs as many usable cores; this process has {usable}")
    print_environment(kiln_plugin_path(), args)
    sys.stdout.flush()
    compile_results = None
    dispatch_us = {}
    speeds = {}  # thread count label -> program -> XLA time / kiln time, for --chart
    with tempfile.TemporaryDirectory(prefix="jax_vs_xla.") as tmp:
        for threads in args.threads:
            session = Session(threads, args, pathlib.Path(tmp))
            results = session.run(programs, timed=True)
            dispatch_us[threads] = session.dispatch_us
            if threads == 1:
                compile_results = results
            print_timing_table(threads, results)
            speeds[plural(threads, "thread")] = {r.program.name: r.ratio() for r in results}
            sys.stdout.flush()
        if not args.no_compile:
            if compile_results is None:
                progress("compiling every program at 1 thread for the compile table...")
                compile_results = Session(1, args, pathlib.Path(tmp)).run(programs, timed=False)
            print_compile_table(compile_results)
    print_dispatch(dispatch_us)
    if args.chart:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
        import speed_chart
        speed_chart.write(args.chart, "kiln against XLA:CPU on the same jitted JAX programs", speeds)
        print(f"\nchart: {args.chart}")


if __name__ == "__main__":
    main()
