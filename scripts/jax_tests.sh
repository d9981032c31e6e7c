#!/usr/bin/env bash
# JAX's own tests on XLA:CPU and on kiln, unmodified:
#   scripts/jax_tests.sh JAX_GIT_DIR [TEST_FILE...]
# JAX_GIT_DIR is a clone of jax-ml/jax (PyPI's packages carry no tests; never committed
# here). The tests/ folder at the tag of the installed jax (jax-v<version>) is extracted
# into a temporary folder and each file runs twice: JAX_PLATFORMS=cpu, then
# JAX_PLATFORMS=kiln,cpu with kiln's plugin. The summary is the share of the test IDs that
# pass on cpu which also pass on kiln (a skip on kiln is a failure), per file, with the
# classes of what fails. JAX_NUM_GENERATED_CASES (default 1) and JAX_ENABLE_X64 pass
# through to both sides. The files default to the four of issue 39. The venv is
# build/jax-tests-venv, pinned by python/requirements-jax-tests.txt; the plugin is
# build/lib/libkiln_plugin_cpu.so (make build first). Reports go to build/jax-tests/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,13p' "$0"; exit 2; }
jax_git=$1
shift
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(lax_test.py lax_numpy_test.py lax_autodiff_test.py api_test.py)
plugin="$root/build/lib/libkiln_plugin_cpu.so"
[ -f "$plugin" ] || { echo "jax_tests.sh: no $plugin (make build)" >&2; exit 2; }

venv="$root/build/jax-tests-venv"
pins="$root/python/requirements-jax-tests.txt"
if ! { [ -x "$venv/bin/python" ] && cmp -s "$pins" "$venv/requirements-jax-tests.txt"; }; then
  echo "jax_tests.sh: making build/jax-tests-venv (pinned by python/requirements-jax-tests.txt)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$pins"
  cp "$pins" "$venv/requirements-jax-tests.txt"
fi
version=$("$venv/bin/python" -c 'import jax; print(jax.__version__)')
tests=$(mktemp -d)
trap 'rm -rf "$tests"' EXIT
git -C "$jax_git" archive "jax-v$version" tests | tar -x -C "$tests"

export JAX_NUM_GENERATED_CASES=${JAX_NUM_GENERATED_CASES:-1}
x64=${JAX_ENABLE_X64:-0}
out="$root/build/jax-tests/x64-$x64"
mkdir -p "$out"
echo "jax $version, JAX_NUM_GENERATED_CASES=$JAX_NUM_GENERATED_CASES, JAX_ENABLE_X64=$x64"
pairs=()
for file in "${files[@]}"; do
  for side in cpu kiln; do
    platforms=cpu
    [ "$side" = kiln ] && platforms=kiln,cpu
    start=$(date +%s)
    (cd "$tests" && JAX_PLATFORMS=$platforms PYTHONPATH="$root/python" KILN_PJRT_PLUGIN="$plugin" \
      "$venv/bin/python" -m pytest -q -p no:cacheprovider "tests/$file" --junitxml="$out/$side-$file.xml" \
      >"$out/$side-$file.log" 2>&1) || true
    echo "$file on $side: $(tail -n 1 "$out/$side-$file.log") ($(( $(date +%s) - start )) s)"
  done
  pairs+=("$file" "$out/cpu-$file.xml" "$out/kiln-$file.xml")
done
"$venv/bin/python" "$root/scripts/jax_tests_summary.py" "${pairs[@]}" | tee "$out/summary.txt"
