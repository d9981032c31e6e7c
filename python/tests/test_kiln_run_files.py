"""`kiln run` with NumPy files as JAX users write them: bf16 and f8 arrays saved with
ml_dtypes go in (np.save writes their elements raw, '<V2' or '<V1'), results of those
types come out under ml_dtypes' names, which np.load reads back exactly once ml_dtypes is
imported; `--output-dtype f32` gives plain NumPy users f32. An MHLO-era program whose
@main takes and returns tuples runs on cpu with one file per leaf, as on the interpreter.

These pin what numpy and ml_dtypes (the venv's versions) write and read, so that an
upgrade that changes it fails here first."""

import io
import os
import pathlib
import subprocess

import ml_dtypes
import numpy as np
import pytest

KILN = os.environ.get("KILN_CLI", "")
TOOLS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "tools"

pytestmark = pytest.mark.skipif(not KILN, reason="KILN_CLI names the kiln tool (set by CTest)")

NARROW = """
func.func @main(%a: tensor<5xbf16>, %b: tensor<5xf8E4M3FN>, %c: tensor<5xf8E5M2>)
    -> (tensor<5xbf16>, tensor<5xf8E4M3FN>, tensor<5xf16>, tensor<5xf8E5M2>) {
  %two = stablehlo.constant dense<2.0> : tensor<5xbf16>
  %d = stablehlo.multiply %a, %two : tensor<5xbf16>
  %e = stablehlo.negate %b : tensor<5xf8E4M3FN>
  %f = stablehlo.convert %a : (tensor<5xbf16>) -> tensor<5xf16>
  return %d, %e, %f, %c : tensor<5xbf16>, tensor<5xf8E4M3FN>, tensor<5xf16>, tensor<5xf8E5M2>
}
"""

A = np.array([1.5, -2.0, 0.375, 96.0, -0.0078125], dtype=ml_dtypes.bfloat16)
B = np.array([1.0, -0.5, 3.0, 448.0, 0.015625], dtype=ml_dtypes.float8_e4m3fn)
C = np.array([1.0, -0.5, 3.0, 57344.0, 0.25], dtype=ml_dtypes.float8_e5m2)


def descr(path):
    with open(path, "rb") as f:
        np.lib.format.read_magic(f)
        return f.read(200).split(b"'descr': ")[1].split(b",")[0].decode()


def kiln_run(tmp_path, program, *args):
    done = subprocess.run([KILN, "run", str(program), "--no-print", *args], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, KILN_CACHE_DIR=str(tmp_path / "cache")))
    assert done.returncode == 0, done.stderr
    return done


def saved(tmp_path, name, array):
    path = tmp_path / name
    np.save(path, array)
    return str(path)


def test_numpy_writes_ml_dtypes_arrays_raw(tmp_path):
    # What kiln reads as the parameter's type: NumPy cannot say what these elements are.
    assert descr(saved(tmp_path, "a.npy", A)) == "'<V2'"
    assert descr(saved(tmp_path, "b.npy", B)) == "'<V1'"
    assert descr(saved(tmp_path, "c.npy", C)) == "'<f1'"


def test_narrow_results_load_back_exactly(tmp_path):
    program = tmp_path / "narrow.mlir"
    program.write_text(NARROW)
    inputs = [saved(tmp_path, n, x) for n, x in (("a.npy", A), ("b.npy", B), ("c.npy", C))]
    out = tmp_path / "out"
    kiln_run(tmp_path, program, *sum((["--input", i] for i in inputs), []), "--output-dir", str(out))
    assert [descr(out / f"result_{i}.npy") for i in range(4)] == ["'bfloat16'", "'float8_e4m3fn'", "'<f2'",
                                                                  "'float8_e5m2'"]
    d, e, f, c = (np.load(out / f"result_{i}.npy") for i in range(4))
    assert d.dtype == ml_dtypes.bfloat16 and d.tobytes() == (A * np.array(2, ml_dtypes.bfloat16)).tobytes()
    assert e.dtype == ml_dtypes.float8_e4m3fn and e.tobytes() == (-B).tobytes()
    assert f.dtype == np.float16 and f.tobytes() == A.astype(np.float16).tobytes()
    assert c.dtype == ml_dtypes.float8_e5m2 and c.tobytes() == C.tobytes()

    # kiln reads its own files back, under the names it wrote.
    again = tmp_path / "again"
    kiln_run(tmp_path, program, "--input", str(out / "result_0.npy"), "--input", str(out / "result_1.npy"),
             "--input", str(out / "result_3.npy"), "--output-dir", str(again))
    assert np.load(again / "result_0.npy").tobytes() == (A * np.array(4, ml_dtypes.bfloat16)).tobytes()
    assert np.load(again / "result_1.npy").tobytes() == B.tobytes()

    # --output-dtype f32: plain float32 files, the same values.
    wide = tmp_path / "wide"
    kiln_run(tmp_path, program, *sum((["--input", i] for i in inputs), []), "--output-dir", str(wide),
             "--output-dtype", "f32")
    assert [descr(wide / f"result_{i}.npy") for i in range(4)] == ["'<f4'"] * 4
    np.testing.assert_array_equal(np.load(wide / "result_0.npy"), (A * np.array(2, ml_dtypes.bfloat16)).astype(np.float32))
    np.testing.assert_array_equal(np.load(wide / "result_3.npy"), C.astype(np.float32))


def test_tuple_main_agrees_with_the_interpreter(tmp_path):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    n = np.array(41, np.int32)
    inputs = sum((["--input", saved(tmp_path, name, v)] for name, v in (("x.npy", x), ("b.npy", b), ("n.npy", n))), [])
    results = {}
    for backend in ("cpu", "interp"):
        out = tmp_path / backend
        kiln_run(tmp_path, TOOLS / "tuple_main.mlir", *inputs, "--backend", backend, "--output-dir", str(out))
        results[backend] = [np.load(out / f"result_{i}.npy") for i in range(3)]
        assert not (out / "result_3.npy").exists()
    t = np.tanh(x + b)
    for got in results.values():
        np.testing.assert_allclose(got[0], t, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(got[1], t.sum(), rtol=1e-5)
        assert got[2] == 42 and got[2].dtype == np.int32
    np.testing.assert_allclose(results["cpu"][0], results["interp"][0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(results["cpu"][1], results["interp"][1], rtol=1e-6)
