"""examples/jax/digits.py, unchanged, on kiln and on JAX's CPU backend (two processes,
JAX_PLATFORMS=kiln and =cpu): the loss at steps 1, 10 and 100 within 1e-3 relative, the
test accuracy within half a point."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "jax" / "digits.py"


def run(platform):
    env = dict(os.environ, JAX_PLATFORMS=platform)
    done = subprocess.run([sys.executable, str(EXAMPLE), "--steps", "100", "--json"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_digits_trains_the_same_on_kiln():
    if not pathlib.Path("/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz").exists():
        pytest.skip("the digits data comes with python3-sklearn (scripts/setup.sh)")
    kiln, cpu = run("kiln"), run("cpu")
    assert kiln["platform"] == "kiln" and cpu["platform"] == "cpu"
    for step in ("1", "10", "100"):
        assert kiln["losses"][step] == pytest.approx(cpu["losses"][step], rel=1e-3), step
    assert abs(kiln["accuracy"] - cpu["accuracy"]) <= 0.005
