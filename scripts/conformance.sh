#!/usr/bin/env bash
# Runs `kiln test` on every conformance suite in ../shared/conformance, on every backend,
# and fails if a suite's pass count drops below its floor for that backend in
# tests/conformance_floor.txt, or if more of its tests than the ceiling there leave some
# op to the interpreter on cpu (ratchets: raise a floor when a change makes more tests
# pass, lower the ceiling when more run natively).
#   scripts/conformance.sh [KILN] [JOBS]
set -uo pipefail
cd "$(dirname "$0")/.."
kiln=${1:-build/tools/kiln}
jobs=${2:-2}
shared=../shared/conformance
floors=tests/conformance_floor.txt
if [ ! -d "$shared" ]; then
  echo "conformance: $shared is absent; skipping"
  exit 0
fi
status=0
start=$(date +%s)
backends=(interp cpu)  # the floor file's columns after the suite, in this order
while read -r suite interp_floor cpu_floor fallback_ceiling; do
  case "$suite" in ''|\#*) continue ;; esac
  for backend in "${backends[@]}"; do
    floor=$interp_floor
    [ "$backend" = cpu ] && floor=$cpu_floor
    output=$("$kiln" test "$shared/$suite" --backend "$backend" --jobs "$jobs" --quiet 2>/dev/null)
    line=$(echo "$output" | tail -n 1)
    passed=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
    if [ "$backend" = cpu ]; then
      fallbacks=$(echo "$output" | sed -n 's/^cpu: \([0-9]*\) of [0-9]* tests ran some op on the interpreter.*/\1/p')
      if [ -z "$fallbacks" ] || [ "$fallbacks" -gt "$fallback_ceiling" ]; then
        echo "conformance: $suite on cpu: ${fallbacks:-?} tests used an interpreter fallback, above the ceiling of $fallback_ceiling"
        status=1
      else
        echo "conformance: $suite on cpu: $fallbacks tests used an interpreter fallback (ceiling $fallback_ceiling)"
      fi
    fi
    if [ -z "$passed" ]; then
      echo "conformance: $suite on $backend: no summary from kiln test"
      status=1
    elif [ "$passed" -lt "$floor" ]; then
      echo "conformance: $suite on $backend: $line — below the floor of $floor passed"
      status=1
    else
      echo "conformance: $suite on $backend: $line (floor $floor)"
    fi
  done
done < "$floors"
echo "conformance: $(( $(date +%s) - start )) s"
exit $status
