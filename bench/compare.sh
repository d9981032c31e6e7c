#!/usr/bin/env bash
# Side-by-side performance of kiln's cpu backend on the workloads W1-W7 of
# bench/programs/ against, in the same run: a STREAM triad and read-only sum, the same
# computations written with Eigen, and NumPy and PyTorch eager (Debian's packages:
# scripts/setup.sh --bench installs them), at 1 and 2 threads; then ResNet-50's and
# MobileNet's convolution layers against PyTorch's conv2d. Only same-run ratios
# count: this machine's bandwidth drifts by ±25% over minutes.
#   bench/compare.sh [BUILD]     (default build/; `make build` first)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
kiln=$build/tools/kiln
python=/usr/bin/python3
for t in "$kiln" "$build/bench/stream_bench"; do
  [ -x "$t" ] || { echo "compare.sh: $t is missing (run make build)" >&2; exit 2; }
done
# kiln bench's median in ms (it prints microseconds below 1 ms).
median_ms() {
  sed -n 's/.*run median \([0-9.]*\) \(m\|u\)s.*/\1 \2/p' "$1" | awk '{printf "%.3f", ($2 == "u") ? $1 / 1000 : $1}'
}
programs=(W1:w1_fma W2:w2_activation W3:w3_softmax W4:w4_layernorm W5:mlp W6:w6_mlp_train_step W7:w7_row_col_sums)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for threads in 1 2; do
  echo "== $threads thread(s) =="
  "$build/bench/stream_bench" "$threads" > "$tmp/stream"
  triad=$(awk '/^triad/ {print $2}' "$tmp/stream")
  sum=$(awk '/^sum/ {print $2}' "$tmp/stream")
  echo "STREAM triad $triad GB/s, read-only sum $sum GB/s"
  : > "$tmp/eigen"; : > "$tmp/numpy"; : > "$tmp/torch"
  [ -x "$build/bench/eigen_workloads" ] && "$build/bench/eigen_workloads" "$threads" > "$tmp/eigen"
  # W5 against its GEMMs called directly; W6 against its floor: its GEMMs at that rate
  # plus the bytes of its parameters and results at the triad.
  "$build/bench/blas_workloads" "$threads" > "$tmp/blas"
  awk '$1 == "W5" {print "W5", $2}' "$tmp/blas" >> "$tmp/eigen"
  if "$python" -c "import numpy" 2>/dev/null; then
    OPENBLAS_NUM_THREADS=$threads "$python" bench/reference/eager.py numpy "$threads" > "$tmp/numpy"
  fi
  if "$python" -c "import torch" 2>/dev/null; then
    OPENBLAS_NUM_THREADS=$threads "$python" bench/reference/eager.py torch "$threads" > "$tmp/torch"
  fi
  printf "%-4s %9s %9s %9s %9s %9s %8s %8s %10s\n" work "kiln ms" "eigen ms" "numpy ms" "torch ms" "kiln GB/s" "%triad" "%sum" "kiln/eigen"
  for entry in "${programs[@]}"; do
    name=${entry%%:*}
    file=bench/programs/${entry#*:}.mlir
    "$kiln" bench "$file" --threads "$threads" --runs 7 > "$tmp/kiln" 2>&1 || { echo "$name: kiln bench failed"; cat "$tmp/kiln"; continue; }
    ms=$(median_ms "$tmp/kiln")
    gbs=$(sed -n 's/^ *\([0-9.]*\) GB\/s.*/\1/p' "$tmp/kiln")
    pick() { awk -v w="$1" '$1 == w {print $2}' "$2"; }
    eigen=$(pick "$name" "$tmp/eigen"); numpy=$(pick "$name" "$tmp/numpy"); torch=$(pick "$name" "$tmp/torch")
    ratio() { [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}' || echo "-"; }
    pct() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.0f%%", 100 * a / b}'; }
    if [ "$name" = W6 ]; then
      mb=$(sed -n 's/.*(\([0-9.]*\) MB moved).*/\1/p' "$tmp/kiln")
      eigen=$(awk -v g="$(pick W6gemm "$tmp/blas")" -v mb="$mb" -v t="$triad" 'BEGIN {printf "%.3f", g + mb / t}')
    fi
    printf "%-4s %9s %9s %9s %9s %9s %8s %8s %10s\n" "$name" "$ms" "${eigen:--}" "${numpy:--}" "${torch:--}" "$gbs" \
      "$(pct "$gbs" "$triad")" "$(pct "$gbs" "$sum")" "$(ratio "$ms" "$eigen")"
  done
  echo
done
echo "kiln/eigen: time ratio (below 1: kiln faster); for W5 the 'eigen' column is its two GEMMs called directly on"
echo "OpenBLAS, for W6 its floor (its five GEMMs called directly, plus its bytes at the triad)."
echo "%triad and %sum: kiln's bytes moved per second"
echo "(the program's parameters and results) against the references measured above."

# The convolution layers of ResNet-50 and MobileNet (bench/reference/convolutions.py
# writes them and times PyTorch's conv2d on the same shapes).
"$python" bench/reference/convolutions.py mlir "$tmp"
for threads in 1 2; do
  echo "== convolutions, $threads thread(s) =="
  : > "$tmp/torchconv"
  if "$python" -c "import torch" 2>/dev/null; then
    OPENBLAS_NUM_THREADS=$threads "$python" bench/reference/convolutions.py torch "$threads" > "$tmp/torchconv"
  fi
  printf "%-20s %9s %9s %10s  %s\n" layer "kiln ms" "torch ms" "kiln/torch" "kiln's path"
  while read -r name torch; do
    file="$tmp/$name.mlir"
    "$kiln" bench "$file" --threads "$threads" --runs 7 > "$tmp/kiln" 2>&1 || { echo "$name: kiln bench failed"; continue; }
    ms=$(median_ms "$tmp/kiln")
    path=$("$kiln" compile "$file" --backend cpu --report 2>/dev/null | sed -n 's/.*convolution at line 2, convolution //p')
    printf "%-20s %9s %9s %10s  %s\n" "$name" "$ms" "$torch" "$(awk -v a="$ms" -v b="$torch" 'BEGIN {printf "%.2f", a / b}')" "$path"
  done < "$tmp/torchconv"
  echo
done
echo "kiln/torch: time ratio against PyTorch's conv2d (oneDNN) on the same shapes, in its NCHW layout."
