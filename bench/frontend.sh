#!/usr/bin/env bash
# The frontend's figures beside their references, in one run (issue 13): an MLP training
# step under jit(value_and_grad) against NumPy (hand-written gradients) and PyTorch eager
# doing the same step, and against the step's same-run floor (its GEMM flops at the
# measured sgemm rate plus its other bytes at the measured triad), at 1 and 2 threads;
# eager dispatch in µs per op; trace + compile time, cold and from the disk cache.
#   bench/frontend.sh [BUILD]     (scripts/setup.sh --bench installs NumPy and PyTorch)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
python=/usr/bin/python3
for t in frontend_bench stream_bench blas_workloads; do
  [ -x "$build/bench/$t" ] || { echo "frontend.sh: $build/bench/$t is missing (run make build)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A fresh disk cache: the first compile is cold, the last run finds it warm.
export KILN_CACHE_DIR=$tmp/cache
# The step's GEMMs: forward x@w1, h1@w2, h2@w3; backward the three weight gradients and
# the gradients of h2 and h1 (not of x): in MFLOP.
gemm_mflop=$(awk 'BEGIN {f1 = 2*256*784*512; f2 = 2*256*512*512; f3 = 2*256*512*10;
  printf "%.1f", (2*f1 + 3*f2 + 3*f3) / 1e6}')
# Its other bytes: the batch and labels read, the parameters read and written (MB).
other_mb=$(awk 'BEGIN {p = 784*512 + 512 + 512*512 + 512 + 512*10 + 10;
  printf "%.2f", (256*784*4 + 256*4 + 2*4*p) / 1e6}')
echo "MLP step: ${gemm_mflop} MFLOP of GEMMs, ${other_mb} MB of other traffic"
for threads in 1 2; do
  "$build/bench/stream_bench" "$threads" > "$tmp/stream"
  triad=$(awk '/^triad/ {print $2}' "$tmp/stream")
  sgemm=$(OPENBLAS_NUM_THREADS=$threads "$build/bench/blas_workloads" "$threads" | awk '/^sgemm/ {print $2}')
  floor=$(awk -v g="$gemm_mflop" -v r="$sgemm" -v mb="$other_mb" -v t="$triad" 'BEGIN {printf "%.3f", g / r + mb / t}')
  KILN_NUM_THREADS=$threads "$build/bench/frontend_bench" 30 > "$tmp/kiln" || { cat "$tmp/kiln"; exit 1; }
  kiln=$(awk '/^mlp_step_ms/ {print $2}' "$tmp/kiln")
  numpy=-; torch=-
  "$python" -c "import numpy" 2>/dev/null &&
    numpy=$(OPENBLAS_NUM_THREADS=$threads "$python" bench/reference/mlp_step.py numpy "$threads" | awk '{print $2}')
  "$python" -c "import torch" 2>/dev/null &&
    torch=$(OPENBLAS_NUM_THREADS=$threads "$python" bench/reference/mlp_step.py torch "$threads" | awk '{print $2}')
  echo "== $threads thread(s): sgemm $sgemm GFLOP/s, triad $triad GB/s, floor $floor ms =="
  printf "%-14s %9s %12s\n" "" "ms/step" "% of floor"
  for row in "kiln:$kiln" "numpy:$numpy" "torch:$torch"; do
    name=${row%%:*}; ms=${row#*:}
    pct=$( [ "$ms" != - ] && awk -v f="$floor" -v m="$ms" 'BEGIN {printf "%.0f%%", 100 * f / m}' || echo -)
    printf "%-14s %9s %12s\n" "$name" "$ms" "$pct"
  done
  if [ "$threads" = 1 ]; then
    grep -E '^(eager_dispatch_us|eager_issue_us|trace_ms|trace_compile_ms)' "$tmp/kiln"
    for lib in numpy torch; do
      "$python" -c "import $lib" 2>/dev/null &&
        echo "eager_dispatch_us ($lib) $("$python" bench/reference/dispatch.py $lib | awk '{print $2}') us/op"
    done
  fi
done
# The same first call with the compiled step in the disk cache (the run above put it there).
KILN_NUM_THREADS=1 "$build/bench/frontend_bench" 3 | awk '/^trace_compile_ms/ {print "trace_compile_ms (disk cache warm)", $2, $3}'
