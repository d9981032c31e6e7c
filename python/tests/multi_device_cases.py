"""Sharded JAX programs on 4 kiln devices against the same on 4 XLA:CPU devices (run by
test_multi_device.py in a process of its own, with KILN_CPU_DEVICES=4 and XLA's host
platform at 4 devices): jit of NamedSharding arrays (Shardy, and GSPMD's mhlo.sharding
with Shardy off), explicit out_shardings, shard_map with collectives, pmap, and a
tensor- and data-parallel training step. Each result equals XLA's, on the sharding XLA
gives it."""

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

KILN = jax.devices("kiln")
CPU = jax.devices("cpu")


def mesh_of(devices, shape, names):
    return Mesh(np.array(devices).reshape(shape), names)


def on_both(shape, names, run):
    """run(mesh) on kiln's devices and on XLA:CPU's; the results must agree, leaf by
    leaf, in values and in how they are split over the mesh."""
    got, want = run(mesh_of(KILN, shape, names)), run(mesh_of(CPU, shape, names))
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=1e-5)
        assert {d.platform for d in g.devices()} == {"kiln"}
        if isinstance(w.sharding, NamedSharding):
            assert g.sharding.spec == w.sharding.spec, (g.sharding, w.sharding)
        assert [s.data.shape for s in g.addressable_shards] == [s.data.shape for s in w.addressable_shards]
    return got


def test_four_kiln_devices():
    assert len(KILN) == 4 and len(CPU) == 4


def test_device_put_splits_and_replicates():
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    def run(mesh):
        return (jax.device_put(x, NamedSharding(mesh, P("x"))), jax.device_put(x, NamedSharding(mesh, P())))
    split, whole = on_both((4,), ("x",), run)
    assert [s.data.shape for s in split.addressable_shards] == [(2, 4)] * 4
    assert [s.data.shape for s in whole.addressable_shards] == [(8, 4)] * 4


@pytest.mark.parametrize("shardy", [True, False])
def test_jit_of_sharded_arrays(shardy):
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8)
    def run(mesh):
        xs = jax.device_put(x, NamedSharding(mesh, P("x", None)))
        return jax.jit(lambda a: (jnp.sin(a) @ a.T, a.sum(axis=0), jnp.tanh(a) * 2))(xs)
    previous = jax.config.jax_use_shardy_partitioner
    jax.config.update("jax_use_shardy_partitioner", shardy)
    try:
        on_both((4,), ("x",), run)
    finally:
        jax.config.update("jax_use_shardy_partitioner", previous)


def test_explicit_out_shardings_on_a_2d_mesh():
    x = np.arange(64.0, dtype=np.float32).reshape(8, 8) / 64
    def run(mesh):
        xs = jax.device_put(x, NamedSharding(mesh, P("a", "b")))
        f = jax.jit(lambda a: jnp.exp(a) + a.T, out_shardings=NamedSharding(mesh, P("b", None)))
        return f(xs)
    on_both((2, 2), ("a", "b"), run)


def test_shard_map_with_collectives():
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    def run(mesh):
        def body(a):
            total = lax.psum(a.sum(axis=0), "x")
            return a * total, lax.all_gather(a[0], "x"), lax.ppermute(a, "x", [(i, (i + 1) % 4) for i in range(4)])
        f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=(P("x"), P("x"), P("x"))))
        return f(jax.device_put(x, NamedSharding(mesh, P("x"))))
    on_both((4,), ("x",), run)


def test_pmap():
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    got = jax.pmap(lambda a: a * 2 + lax.psum(a, "i"), axis_name="i", devices=KILN)(x)
    want = jax.pmap(lambda a: a * 2 + lax.psum(a, "i"), axis_name="i", devices=CPU)(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    assert {d.platform for d in got.devices()} == {"kiln"}


def test_data_and_tensor_parallel_training_step():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 8), dtype=np.float32)
    y = rng.standard_normal((16, 4), dtype=np.float32)
    w1 = rng.standard_normal((8, 16), dtype=np.float32) * 0.3
    w2 = rng.standard_normal((16, 4), dtype=np.float32) * 0.3

    def loss(params, x, y):
        h = jax.nn.gelu(x @ params[0])
        return jnp.mean((h @ params[1] - y) ** 2)

    def run(mesh):
        params = (jax.device_put(w1, NamedSharding(mesh, P(None, "model"))),
                  jax.device_put(w2, NamedSharding(mesh, P("model", None))))
        batch = [jax.device_put(a, NamedSharding(mesh, P("data", None))) for a in (x, y)]
        step = jax.jit(lambda p, x, y: jax.tree.map(lambda w, g: w - 0.1 * g, p, jax.grad(loss)(p, x, y)),
                       donate_argnums=0)
        for _ in range(3):
            params = step(params, *batch)
        return params, jax.jit(loss)(params, *batch)
    on_both((2, 2), ("data", "model"), run)
