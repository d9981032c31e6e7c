#!/usr/bin/env bash
# Runs `kiln test` on every conformance suite in ../shared/conformance and fails if a
# suite's pass count drops below its floor in tests/conformance_floor.txt (a ratchet:
# raise the floor when a change makes more tests pass).
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
while read -r suite floor; do
  case "$suite" in ''|\#*) continue ;; esac
  line=$("$kiln" test "$shared/$suite" --jobs "$jobs" --quiet 2>/dev/null | tail -n 1)
  passed=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
  if [ -z "$passed" ]; then
    echo "conformance: $suite: no summary from kiln test"
    status=1
  elif [ "$passed" -lt "$floor" ]; then
    echo "conformance: $suite: $line — below the floor of $floor passed"
    status=1
  else
    echo "conformance: $suite: $line (floor $floor)"
  fi
done < "$floors"
echo "conformance: $(( $(date +%s) - start )) s"
exit $status
