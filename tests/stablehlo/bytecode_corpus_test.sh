#!/usr/bin/env bash
# ../shared's programs as portable artifacts: jaxlib's serializer writes each at kiln's
# StableHLO version (serialize_corpus.py); each must read into the module its text reads
# into (BytecodeCorpusTest), and `kiln test` on cpu must pass the same tests from the
# artifacts as from the texts. Skipped (77) without the jax venv or ../shared.
#   bytecode_corpus_test.sh PYTHON KILN KILN_TESTS OUT VERSION SHARED
set -euo pipefail
python=$1 kiln=$2 kiln_tests=$3 out=$4 version=$5 shared=$6
[ -x "$python" ] || { echo "no venv python at $python (scripts/setup.sh --jax): skipped"; exit 77; }
[ -d "$shared/conformance" ] || { echo "no $shared/conformance: skipped"; exit 77; }
# jaxlib's MLIR prints its complaints about the programs it refuses on stderr.
"$python" "$(dirname "$0")/serialize_corpus.py" "$out" "$version" "$shared/conformance" "$shared/models" 2>/dev/null
KILN_BYTECODE_CORPUS=$out "$kiln_tests" --gtest_filter='BytecodeCorpusTest.*' --gtest_brief=1
# (some tests fail either way, e.g. fft beyond its ULP bound: kiln test exits 1)
summary() { { "$kiln" test --backend cpu --jobs 2 --quiet "$out"/*."$1" 2>/dev/null || true; } | tail -n 1; }
from_text=$(summary mlir)
from_bytecode=$(summary mlirbc)
echo "kiln test on cpu: from text: $from_text; from bytecode: $from_bytecode"
[ "$from_text" = "$from_bytecode" ] || { echo "the artifacts pass other tests than their texts"; exit 1; }
