"""multi_device_cases.py in a process of its own, where kiln has 4 devices
(KILN_CPU_DEVICES=4) and so has XLA:CPU, the oracle (its host platform's device count):
sharded jit, shard_map, pmap and a sharded training step on 4 kiln devices."""

import os
import pathlib
import subprocess
import sys

CASES = pathlib.Path(__file__).with_name("multi_device_cases.py")


def test_sharded_programs_on_four_kiln_devices():
    env = dict(os.environ, KILN_CPU_DEVICES="4", JAX_PLATFORMS="kiln,cpu",
               XLA_FLAGS=(os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4").strip())
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(CASES)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
