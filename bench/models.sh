#!/usr/bin/env bash
# Whole programs on the cpu backend, side by side with references measured in the same run
# (this machine's bandwidth drifts by ±25% over minutes, so only same-run ratios count):
#  1. every program in ../shared/models (and ResNet-50, bench/resnet50.py): run time on cpu
#     and on the interpreter, and the cpu time against a floor — the program's dot and
#     convolution flops at the measured sgemm rate plus the bytes its other steps move at
#     the measured STREAM triad (`kiln bench --report` counts both per run);
#  2. ResNet-50's forward at batch 1 against torchvision's in PyTorch eager, at 1 and 2
#     threads (batch norm folded on both sides);
#  3. compile times, cold (the process's second compile, LLVM initialized) and warm (from
#     the disk cache), for those programs and for generated modules of 1k and 10k ops whose
#     kernels are all different, or all alike (bench/compile_programs.py).
#   bench/models.sh [BUILD] [--quick]     (default build/; `make build` first; --quick:
#                                          no interpreter runs, no 10k-op module)
set -uo pipefail
cd "$(dirname "$0")/.."
build=build
quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    *) build=$arg ;;
  esac
done
kiln=$build/tools/kiln
python=/usr/bin/python3
shared=../shared/models
for t in "$kiln" "$build/bench/stream_bench" "$build/bench/blas_workloads"; do
  [ -x "$t" ] || { echo "models.sh: $t is missing (run make build)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$python bench/resnet50.py 1 > "$tmp/resnet50.mlir"
export KILN_CACHE_DIR="$tmp/cache"

# name:file:entry-scale (the scales keep every output finite and not constant)
programs=(
  pt_bert:$shared/enzyme-jax/pt_bert.mlir:0.1
  searchless_chess_9m:$shared/enzyme-jax/searchless_chess_9m.mlir:0.1
  searchless_chess_136m:$shared/enzyme-jax/searchless_chess_136m.mlir:0.1
  kan1:$shared/enzyme-jax/kan1.mlir:0.1
  kan2:$shared/enzyme-jax/kan2.mlir:0.1
  mnist:$shared/iree/mnist.mlir:0.1
  edge_detection:$shared/iree/edge_detection.mlir:0.1
  unidirectional_lstm:$shared/iree/unidirectional_lstm.mlir:0.1
  resnet50_b1:$tmp/resnet50.mlir:0.5
)

median() { sed -n 's/.*run median \([0-9.]*\) \(m\|u\)s.*/\1 \2/p' "$1" | awk '{printf "%.3f", ($2 == "u") ? $1 / 1000 : $1}'; }

for threads in 1 2; do
  echo "== whole programs, $threads thread(s) =="
  "$build/bench/stream_bench" "$threads" > "$tmp/stream"
  triad=$(awk '/^triad/ {print $2}' "$tmp/stream")
  sgemm=$("$build/bench/blas_workloads" "$threads" | awk '$1 == "sgemm" {print $2}')
  echo "STREAM triad $triad GB/s, sgemm (1024^3) $sgemm GFLOP/s"
  printf "%-22s %10s %10s %9s %10s %10s %9s %9s\n" program "cpu ms" "interp ms" "speedup" "GFLOP" "other MB" "floor ms" "%floor"
  for entry in "${programs[@]}"; do
    IFS=: read -r name file scale <<< "$entry"
    [ -f "$file" ] || { echo "$name: $file is absent"; continue; }
    runs=5
    [ "$name" = searchless_chess_136m ] && runs=2
    "$kiln" bench "$file" --threads "$threads" --runs $runs --random-scale "$scale" --report > "$tmp/cpu" 2>&1 ||
      { echo "$name: kiln bench failed"; cat "$tmp/cpu"; continue; }
    cpu=$(median "$tmp/cpu")
    gflop=$(sed -n 's/^per run: \([0-9.]*\) GFLOP.*/\1/p' "$tmp/cpu")
    mb=$(sed -n 's/.*, \([0-9.]*\) MB moved by the other steps/\1/p' "$tmp/cpu")
    interp=-
    # The interpreter at 1 thread only, and not on the largest programs (minutes a run).
    if [ $quick = 0 ] && [ "$threads" = 1 ] && [ "$name" != searchless_chess_136m ] && [ "$name" != resnet50_b1 ]; then
      "$kiln" bench "$file" --backend interp --threads 1 --runs 1 --random-scale "$scale" > "$tmp/interp" 2>&1 &&
        interp=$(median "$tmp/interp")
    fi
    floor=$(awk -v g="$gflop" -v s="$sgemm" -v m="$mb" -v t="$triad" 'BEGIN {printf "%.3f", 1e3 * g / s + m / t}')
    printf "%-22s %10s %10s %9s %10s %10s %9s %9s\n" "$name" "$cpu" "$interp" \
      "$([ "$interp" = - ] && echo - || awk -v a="$interp" -v b="$cpu" 'BEGIN {printf "%.1fx", a / b}')" \
      "$gflop" "$mb" "$floor" "$(awk -v f="$floor" -v c="$cpu" 'BEGIN {printf "%.0f%%", 100 * f / c}')"
  done
  if "$python" -c "import torchvision" 2>/dev/null; then
    torch=$(OPENBLAS_NUM_THREADS=$threads "$python" bench/reference/resnet50_torch.py 1 "$threads" | awk '{print $2}')
    "$kiln" bench "$tmp/resnet50.mlir" --threads "$threads" --runs 5 --random-scale 0.5 > "$tmp/cpu" 2>&1
    cpu=$(median "$tmp/cpu")
    echo "ResNet-50 batch 1: kiln $cpu ms, PyTorch eager (torchvision) $torch ms: torch/kiln $(awk -v a="$torch" -v b="$cpu" 'BEGIN {printf "%.2f", a / b}')x"
  else
    echo "ResNet-50 against PyTorch: skipped (scripts/setup.sh --bench installs torchvision)"
  fi
  echo
done
echo "floor: the program's dot/convolution flops at the sgemm rate plus its other steps' bytes at the triad;"
echo "%floor: floor / cpu time (100% = at the floor). speedup: interpreter time / cpu time."
echo

echo "== compile times (2 threads) =="
sizes=(1000)
[ $quick = 0 ] && sizes+=(10000)
for n in "${sizes[@]}"; do
  for kind in distinct repeat; do
    $python bench/compile_programs.py "$n" "$kind" > "$tmp/gen_${n}_$kind.mlir"
    programs+=("gen_${n}_$kind:$tmp/gen_${n}_$kind.mlir:1")
  done
done
printf "%-22s %8s %12s %12s %12s  %s\n" program ops "first ms" "cold ms" "warm ms" kernels
for entry in "${programs[@]}"; do
  IFS=: read -r name file scale <<< "$entry"
  [ -f "$file" ] || continue
  rm -rf "$KILN_CACHE_DIR"
  "$kiln" bench "$file" --threads 2 --runs 1 --random-scale "$scale" > "$tmp/cpu" 2>&1 || { echo "$name: failed"; continue; }
  read -r first cold warm < <(sed -n 's/.*compile \([0-9.]*\) ms (again \([0-9.]*\) ms, from the disk cache \([0-9.]*\) ms).*/\1 \2 \3/p' "$tmp/cpu")
  ops=$(grep -c '= *"\?[a-z_]*\.' "$file")
  kernels=$("$kiln" compile "$file" --backend cpu --report 2>/dev/null | sed -n 's/^cpu: \([0-9]* LLVM kernels\( ([0-9]* the same code as another, compiled once)\)\?\).*/\1/p')
  printf "%-22s %8s %12s %12s %12s  %s\n" "$name" "$ops" "$first" "$cold" "$warm" "$kernels"
done
echo "first: the process's first compile (it also maps in and initializes LLVM); cold: a second compile in the same"
echo "process; warm: from the disk cache (KILN_CACHE_DIR), parsing and the pass pipeline included."
