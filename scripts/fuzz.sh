#!/usr/bin/env bash
# Runs the parser fuzzer for SECONDS, seeded with the conformance files (read in place;
# a working corpus grows in fuzz/corpus/, findings land in fuzz/artifacts/).
# Keep each reproducer as a regression test: copy it to tests/stablehlo/hostile_inputs/
# (named after what it does, with the .mlir extension).
#   scripts/fuzz.sh FUZZER SECONDS
set -euo pipefail
fuzzer=$1
seconds=${2:-60}
cd "$(dirname "$0")/.."
mkdir -p fuzz/corpus fuzz/artifacts
seeds=()
for d in ../shared/conformance/stablehlo/interpret ../shared/conformance/stablehlo/interpret/chlo \
         ../shared/conformance/iree-stablehlo-ops ../shared/conformance/stablehlo-math \
         tests/stablehlo/hostile_inputs; do
  [ -d "$d" ] && seeds+=("$d")
done
"$fuzzer" fuzz/corpus "${seeds[@]}" -max_total_time="$seconds" -max_len=16384 -timeout=10 \
  -rss_limit_mb=2048 -dict=fuzz/mlir.dict -artifact_prefix=fuzz/artifacts/ -print_final_stats=1
