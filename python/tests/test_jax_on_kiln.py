"""Unchanged JAX programs on kiln, with JAX's own CPU backend (XLA) as the oracle.

Run with JAX_PLATFORMS=kiln,cpu and the plugin findable (KILN_PJRT_PLUGIN, or the
package installed by `make jax-plugin`); ctest runs this as `jax_plugin` in the venv
scripts/setup.sh makes. Each check jits the same function on a kiln device and on a CPU
device and compares the results.
"""

import warnings

import numpy as np
import pytest

import jax
import jax.numpy as jnp
from jax import lax

KILN = jax.devices("kiln")[0]
CPU = jax.devices("cpu")[0]


def run_on(device, f, *args):
    args = jax.device_put(args, device)
    out = jax.jit(f)(*args)
    for leaf in jax.tree.leaves(out):
        assert leaf.devices() == {device}
    return out


def same(f, *args, rtol=1e-5, atol=1e-6):
    """f on kiln equals f on XLA:CPU."""
    got, want = run_on(KILN, f, *args), run_on(CPU, f, *args)
    jax.tree.map(lambda g, w: np.testing.assert_allclose(np.asarray(g, np.float64) if g.dtype == jnp.bfloat16 else np.asarray(g),
                                                         np.asarray(w, np.float64) if w.dtype == jnp.bfloat16 else np.asarray(w),
                                                         rtol=rtol, atol=atol), got, want)


def test_kiln_is_a_jax_platform():
    assert KILN.platform == "kiln"
    assert jax.devices("kiln")


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float16, jnp.bfloat16, jnp.int32, jnp.uint8, jnp.complex64])
def test_elementwise_and_reductions_per_dtype(dtype):
    x = (jnp.arange(24) % 7).reshape(4, 6).astype(dtype)
    tol = {jnp.float16: 1e-3, jnp.bfloat16: 1e-2}.get(dtype, 1e-6)
    same(lambda a: (a * 3 + a, a.sum(axis=0), jnp.max(a), a.T @ a), x, rtol=tol, atol=tol)


def test_bool():
    x = jnp.arange(10) % 3 == 0
    same(lambda a: (a & ~a[::-1], jnp.any(a), jnp.where(a, 1.0, -1.0)), x)


def test_numpy_functions():
    x = jnp.linspace(-2.0, 2.0, 48).reshape(6, 8)
    same(lambda a: (jnp.tanh(a), jnp.cumsum(a, axis=1), jnp.sort(a, axis=0), jnp.argmax(a, axis=1),
                    jnp.einsum("ij,kj->ik", a, a), jax.nn.softmax(a), jnp.exp(a).mean(),
                    lax.dot_general(a[0], a[1], (((), ()), ((), ())))), x, rtol=1e-5, atol=1e-5)  # no dimensions


def test_chlo_composites():
    # jaxlib sends CHLO's ops as stablehlo.composite "chlo.*" with a decomposition (erf,
    # sinh, cosh, acosh, asinh, atanh, top_k), the others already decomposed.
    x = jnp.linspace(0.1, 0.9, 8)
    same(lambda a: (lax.erf(a), jnp.sinh(a), jnp.cosh(a), jnp.arccosh(a + 1), jnp.arcsinh(a), jnp.arctanh(a),
                    lax.top_k(a, 3), lax.erf_inv(a), lax.lgamma(a), lax.digamma(a)), x, rtol=1e-5, atol=1e-6)


def test_transformations():
    w = jnp.linspace(-1.0, 1.0, 12).reshape(3, 4)
    f = lambda v: jnp.sum(jnp.sin(v @ w) ** 2)
    x = jnp.arange(3.0)
    same(jax.grad(f), x)
    same(jax.vmap(f), jnp.stack([x, x + 1]))
    same(lambda v: jax.jvp(f, (v,), (jnp.ones_like(v),)), x)
    same(jax.jacrev(lambda v: jnp.tanh(v @ w)), x)
    same(jax.hessian(f), x, rtol=1e-4, atol=1e-5)


def test_control_flow():
    def f(x):
        s, ys = lax.scan(lambda c, v: (c + v, c * v), 0.0, x)
        w = lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 1.5), (0, s))[1]
        b = lax.cond(w > 10, lambda: w - 10, lambda: w + 10)
        return ys, b, lax.fori_loop(0, 4, lambda i, c: c + i * x, x)
    same(f, jnp.arange(5.0))


def test_random():
    key = jax.random.key(0)
    same(lambda k: (jax.random.normal(k, (5,)), jax.random.uniform(k, (3, 2)), jax.random.bits(k, (4,))), key,
         rtol=1e-6, atol=1e-6)


def test_linalg():
    a = jnp.arange(16.0).reshape(4, 4)
    spd = a @ a.T + 4 * jnp.eye(4)
    same(lambda m: (jnp.linalg.eigh(m)[0], jnp.linalg.svd(m, compute_uv=False), jnp.linalg.cholesky(m),
                    jnp.linalg.inv(m), jnp.linalg.solve(m, jnp.ones(4)), jnp.linalg.det(m),
                    jnp.abs(jnp.linalg.qr(m)[1])), spd, rtol=1e-4, atol=1e-3)


def test_convolution_and_pooling():
    x = jnp.linspace(-1.0, 1.0, 2 * 3 * 8 * 8).reshape(2, 3, 8, 8)
    k = jnp.linspace(-0.5, 0.5, 4 * 3 * 3 * 3).reshape(4, 3, 3, 3)
    def f(x, k):
        y = lax.conv_general_dilated(x, k, (1, 1), "SAME")
        return lax.reduce_window(y, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID"), y.mean(axis=(2, 3))
    same(f, x, k, rtol=1e-5, atol=1e-5)
    same(jax.grad(lambda x, k: f(x, k)[0].sum(), argnums=(0, 1)), x, k, rtol=1e-5, atol=1e-5)


def test_checkpoint_and_custom_derivatives():
    @jax.custom_jvp
    def softplus(x):
        return jnp.log1p(jnp.exp(x))
    softplus.defjvp(lambda p, t: (softplus(p[0]), t[0] * jax.nn.sigmoid(p[0])))

    @jax.custom_vjp
    def clip_grad(x):
        return x
    clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1, 1),))

    f = lambda x: jnp.sum(jax.checkpoint(lambda v: softplus(v) * 3)(clip_grad(x)))
    same(jax.grad(f), jnp.linspace(-3.0, 3.0, 7))


def test_donation_is_honoured():
    # JAX warns when it drops a donation (a platform outside its list) or when the
    # compiled program does not alias the donated buffer: neither may happen.
    x = jax.device_put(np.arange(1024.0, dtype=np.float32), KILN)
    pointer = x.unsafe_buffer_pointer()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = jax.jit(lambda v: v * 2 + 1, donate_argnums=0)(x)
        jax.block_until_ready(y)
    assert x.is_deleted()
    np.testing.assert_array_equal(np.asarray(y), np.arange(1024.0) * 2 + 1)
    assert y.unsafe_buffer_pointer() == pointer  # written in place


def test_a_result_passed_through_is_a_new_buffer_unless_donated():
    x = jax.device_put(np.arange(8.0, dtype=np.float32), KILN)
    y = jax.jit(lambda v: v)(x)
    assert y.unsafe_buffer_pointer() != x.unsafe_buffer_pointer()  # as XLA: a copy
    x.delete()
    np.testing.assert_array_equal(np.asarray(y), np.arange(8.0))
    pointer = y.unsafe_buffer_pointer()
    z = jax.jit(lambda v: v, donate_argnums=0)(y)
    assert z.unsafe_buffer_pointer() == pointer and y.is_deleted()


def test_transfers_between_devices():
    x = jnp.arange(6.0).reshape(2, 3)
    on_kiln = jax.device_put(x, KILN)
    back = jax.device_put(on_kiln * 2, CPU)
    assert back.devices() == {CPU}
    np.testing.assert_array_equal(np.asarray(jax.device_put(back, KILN)), np.asarray(x) * 2)


def test_x64():
    with jax.enable_x64(True):
        x = jnp.arange(5, dtype=jnp.float64) / 3
        same(lambda a: (a * a, jnp.cumsum(a), a.astype(jnp.int64) + 2**40), x, rtol=1e-15, atol=0)


def test_a_program_kiln_refuses_raises_kilns_message():
    f = lambda x: jax.ffi.ffi_call("kiln_has_no_such_target", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    with pytest.raises(Exception, match="no_such_target"):
        jax.block_until_ready(run_on(KILN, f, jnp.ones(3)))


@pytest.mark.parametrize("callback", ["debug_print", "pure_callback"])
def test_host_callbacks_are_refused_with_kilns_message(callback):
    def f(x):
        if callback == "debug_print":
            jax.debug.print("x = {x}", x=x)
            return x * 2
        return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    with pytest.raises(NotImplementedError, match="kiln: unsupported: host callbacks"):
        run_on(KILN, f, jnp.ones(3))
    run_on(CPU, f, jnp.ones(3))  # where JAX runs them


def test_kiln_after_cpu_in_one_process():
    """jaxlib loads kiln's plugin beside its own LLVM, MLIR and protobuf whichever
    platform comes first: here cpu first, then kiln (this file runs kiln first)."""
    import os
    import subprocess
    import sys
    script = ("import jax, jax.numpy as jnp\n"
              "f = jax.jit(lambda a: jnp.tanh(a) @ a.T)\n"
              "x = jnp.arange(6.0).reshape(2, 3)\n"
              "outs = [f(jax.device_put(x, jax.devices(p)[0])) for p in ('cpu', 'kiln')]\n"
              "assert jax.devices()[0].platform == 'cpu', jax.devices()\n"
              "import numpy as np; np.testing.assert_allclose(np.asarray(outs[0]), np.asarray(outs[1]), rtol=1e-5)\n"
              "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, JAX_PLATFORMS="cpu,kiln"),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


def test_tokens_made_returned_and_passed_back():
    # lax.create_token is StableHLO's deprecated create_token; a token argument arrives
    # as the bool[0] buffer JAX passes for it, as XLA takes it.
    x = jax.device_put(jnp.ones(3), KILN)
    y, token = jax.jit(lambda a: (a * 2, lax.create_token(a)))(x)
    z, _ = jax.jit(lambda a, t: (a + 1, t))(y, token)
    np.testing.assert_array_equal(np.asarray(z), [3.0, 3.0, 3.0])
