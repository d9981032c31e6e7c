"""Compares JAX's own tests on XLA:CPU and on kiln (scripts/jax_tests.sh): the share of
the test IDs that pass on cpu which also pass on kiln (a skip on kiln counts as a
failure), per file, with the classes of what fails (the first line of each message).
The tests JAX runs only where the device under test is "cpu" (jtu.run_on_devices("cpu"),
skipped on any other platform) are the known ceiling: counted as failures, and named
apart with the share without them."""

import collections
import sys
import xml.etree.ElementTree as ET


def outcomes(path):
    """test id -> 'pass', 'fail' or 'skip', and the first line of the message."""
    result = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        status, message = "pass", ""
        for child in case:
            if child.tag in ("failure", "error"):
                status, message = "fail", (child.get("message") or child.text or "").strip()
            elif child.tag == "skipped":
                status, message = "skip", (child.get("message") or "").strip()
        result[test_id] = (status, message.splitlines()[0][:160] if message else "")
    return result


CPU_ONLY = "Skipped unless running on devices with tags: cpu"


def main(pairs):
    total_base = total_kiln = cpu_only = 0
    classes = collections.Counter()
    for name, cpu_xml, kiln_xml in pairs:
        cpu, kiln = outcomes(cpu_xml), outcomes(kiln_xml)
        base = [t for t, (s, _) in cpu.items() if s == "pass"]
        passed = [t for t in base if kiln.get(t, ("missing", ""))[0] == "pass"]
        total_base += len(base)
        total_kiln += len(passed)
        print(f"{name}: {len(passed)}/{len(base)} of the cpu passes pass on kiln "
              f"({100 * len(passed) / max(len(base), 1):.1f}%)")
        for t in base:
            status, message = kiln.get(t, ("missing", "not run on kiln"))
            if status != "pass":
                classes[f"{status}: {message}"] += 1
                cpu_only += status == "skip" and message.startswith(CPU_ONLY)
    print(f"total: {total_kiln}/{total_base} ({100 * total_kiln / max(total_base, 1):.2f}%)")
    rest = total_base - cpu_only
    print(f"the known ceiling: {cpu_only} tests JAX runs on cpu only (run_on_devices); without them "
          f"{total_kiln}/{rest} ({100 * total_kiln / max(rest, 1):.2f}%)")
    print("what fails on kiln, by class (count: first line):")
    for message, count in classes.most_common(40):
        print(f"  {count:4d}: {message}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main([tuple(args[i:i + 3]) for i in range(0, len(args), 3)])
