#!/usr/bin/env python3
"""Runs every command and code block of the README and the user guides (docs/guides/), so
that what they show keeps working.

Each file's blocks run in order in a scratch folder of their own, which links the
repository's top-level entries (so `build/tools/kiln`, `examples/` and `make` work there)
and has ../shared beside it; `kiln` is on PATH and the disk cache is a fresh folder.

  ```sh          run with bash -euo pipefail (`make` in the repository itself, with
                 -C). `make run` and `make test` are not run
                 again (CI runs them: the check is that .ci/run does, and that CTest runs
                 the main job's example).
  ```cpp         a complete program: compiled against include/ and libkiln.so, then run.
  ```python      run with the venv's python, JAX_PLATFORMS=kiln and the built plugin.
  ```mlir        checked with `kiln fmt`.
  ```cmake       each line (comments aside) must be a line of tests/install/consumer's
                 CMakeLists.txt, which CTest builds against `make install`'s output.
  ```text        output shown for reading: not run.
A block whose info string says file=NAME is first written to NAME in the scratch folder
(a later block uses it). Any other language is an error, so nothing goes untested by
accident.

Usage: doc_test.py REPO BUILD [PYTHON]   (PYTHON: the venv's; without it python blocks
fail, unless KILN_DOC_TEST_SKIP_PYTHON=1 skips the files that have them)"""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(\s*)```(\S*)(.*)$")  # indented fences (in lists) too
NOT_RERUN = {"make run", "make test"}


def blocks(path):
    """(line, language, options, text) of every fenced block."""
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, language = len(m.group(1)), m.group(2)
        start, options = i + 1, dict(kv.split("=", 1) for kv in m.group(3).split() if "=" in kv)
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith("```"):
            body.append(lines[i][indent:] if not lines[i][:indent].strip() else lines[i].lstrip())
            i += 1
        if i == len(lines):
            raise SystemExit(f"{path}:{start}: the block is never closed")
        yield start, language, options, "\n".join(body) + "\n"
        i += 1


def scratch_for(repo, tmp):
    work = tmp / "work"
    work.mkdir()
    for entry in repo.iterdir():
        if entry.name not in (".git",):
            (work / entry.name).symlink_to(entry)
    shared = repo.parent / "shared"
    if shared.exists():
        (tmp / "shared").symlink_to(shared)
    return work


def run(cmd, where, env, what, stdin=None):
    done = subprocess.run(cmd, cwd=where, env=env, input=stdin, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def check_not_rerun(repo, line):
    ci = (repo / ".ci" / "run").read_text()
    if line == "make test" and "make test" not in ci:
        raise RuntimeError(".ci/run does not run `make test`")
    if line == "make run" and "example_digits_cnn" not in (repo / "tests" / "CMakeLists.txt").read_text():
        raise RuntimeError("CTest no longer runs the main job (example_digits_cnn)")


def run_file(doc, repo, build, python):
    found = list(blocks(doc))
    with tempfile.TemporaryDirectory(prefix="kiln-doc-") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        work = scratch_for(repo, tmp)
        env = dict(os.environ, PATH=f"{build / 'tools'}:{os.environ['PATH']}", KILN_CACHE_DIR=str(tmp / "cache"),
                   PYTHONPATH=str(repo / "python"), KILN_PJRT_PLUGIN=str(build / "lib" / "libkiln_plugin_cpu.so"))
        ran = 0
        for line, language, options, text in found:
            where = f"{doc.relative_to(repo)}:{line}"
            if "file" in options:
                (work / options["file"]).write_text(text)
            if language == "text":
                continue
            if language == "sh":
                commands = [c.strip() for c in text.split("\n") if c.strip() and not c.strip().startswith("#")]
                kept = []
                for c in text.split("\n"):
                    bare = c.split("#")[0].strip()
                    if bare in NOT_RERUN:
                        check_not_rerun(repo, bare)
                    else:
                        kept.append(c)
                if not commands:
                    raise RuntimeError(f"{where}: an sh block with no command")
                # make runs in the repository itself: configuring from the scratch folder's
                # links would point the build's CMake cache at the scratch folder.
                script = f'make() {{ command make -C "{repo}" "$@"; }}\n' + "\n".join(kept)
                run(["bash", "-euo", "pipefail", "-c", script], work, env, where)
            elif language == "cpp":
                exe = tmp / f"block_{line}"
                source = tmp / f"block_{line}.cc"
                source.write_text(text)
                run(["g++", "-std=c++20", "-O1", f"-I{repo / 'include'}", str(source), "-o", str(exe),
                     f"-L{build / 'lib'}", f"-Wl,-rpath,{build / 'lib'}", "-lkiln"], work, env, f"{where}: compiling")
                run([str(exe)], work, env, f"{where}: running")
            elif language == "python":
                if not python:
                    raise RuntimeError(f"{where}: a python block, and no venv python given")
                run([python, "-"], work, dict(env, JAX_PLATFORMS="kiln"), where, stdin=text)
            elif language == "mlir":
                name = options.get("file")
                if not name:
                    name = f"block_{line}.mlir"
                    (work / name).write_text(text)
                run([str(build / "tools" / "kiln"), "fmt", name], work, env, f"{where}: kiln fmt")
            elif language == "cmake":
                consumer = (repo / "tests" / "install" / "consumer" / "CMakeLists.txt").read_text().split("\n")
                consumer = {c.split("#")[0].strip() for c in consumer}
                for c in text.split("\n"):
                    if c.split("#")[0].strip() not in consumer:
                        raise RuntimeError(f"{where}: '{c.strip()}' is not a line of tests/install/consumer/CMakeLists.txt")
            else:
                raise RuntimeError(f"{where}: a block in '{language or 'no language'}', which the doc test cannot run "
                                   "(sh, cpp, python, mlir, cmake, or text for output)")
            ran += 1
        return ran


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    repo, build = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    python = sys.argv[3] if len(sys.argv) > 3 and pathlib.Path(sys.argv[3]).exists() else None
    docs = [repo / "README.md"] + sorted((repo / "docs" / "guides").glob("*.md"))
    failures = 0
    for doc in docs:
        if not python and os.environ.get("KILN_DOC_TEST_SKIP_PYTHON") == "1" and any(
                b[1] == "python" for b in blocks(doc)):
            print(f"skipped {doc.relative_to(repo)} (python blocks, no venv)")
            continue
        try:
            ran = run_file(doc, repo, build, python)
            print(f"ok {doc.relative_to(repo)}: {ran} blocks")
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            failures += 1
            print(f"FAIL {doc.relative_to(repo)}: {e}")
    if failures:
        raise SystemExit(f"{failures} of {len(docs)} files failed")


if __name__ == "__main__":
    main()
