#!/usr/bin/env bash
# Differential check of the optimizer (run by .ci/run): on every conformance suite,
# `kiln test --optimize` (the full pipeline, fusion included) and `kiln test --passes`
# without constant folding (so fusion sees the real graphs rather than folded constants)
# must pass exactly the tests that plain `kiln test` passes; so must `--passes lower-chlo`
# alone (the lowering check: CHLO decompositions keep every result, stablehlo-math's ULP
# bounds included), and so must `--backend cpu` (native kernels, no constant folding).
#   scripts/optimize_check.sh [KILN] [JOBS]
set -uo pipefail
cd "$(dirname "$0")/.."
kiln=${1:-build/tools/kiln}
jobs=${2:-2}
shared=../shared/conformance
if [ ! -d "$shared" ]; then
  echo "optimize check: $shared is absent; skipping"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The failures (file @function) and the summary line of one run.
outcome() {
  "$kiln" test "$@" --jobs "$jobs" --quiet 2>&1 | sed -n -e 's/^\(FAIL [^:]*\):.*/\1/p' -e '/ passed, /p' | sort
}
status=0
start=$(date +%s)
while read -r suite _; do
  case "$suite" in ''|\#*) continue ;; esac
  outcome "$shared/$suite" > "$tmp/plain"
  for mode in "--optimize" "--passes inline,lower-chlo,simplify,cse,dce,fusion,schedule,buffers" \
              "--passes lower-chlo" "--backend cpu"; do
    # shellcheck disable=SC2086
    outcome "$shared/$suite" $mode > "$tmp/optimized"
    if diff -q "$tmp/plain" "$tmp/optimized" > /dev/null; then
      echo "optimize check: $suite $mode: same results ($(grep ' passed, ' "$tmp/plain"))"
    else
      echo "optimize check: $suite $mode: results differ from the plain interpreter run:"
      diff "$tmp/plain" "$tmp/optimized" | head -n 20
      status=1
    fi
  done
done < tests/conformance_floor.txt
echo "optimize check: $(( $(date +%s) - start )) s"
exit $status
