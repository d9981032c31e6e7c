#!/usr/bin/env bash
# Forward vs reverse-mode (kiln vjp, with --remat none, dots and all) cost: ops after
# cleanup, peak live bytes, interpreter run time. The machine's speed drifts: compare the
# vjp/fwd ratios, not absolute times.
set -uo pipefail
cd "$(dirname "$0")/.."
KILN=${KILN:-build/tools/kiln}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

# Each program with its timed runs (warm-up runs for 0.2 s come on top, one at least; the chess vjp takes ~14 s a run, so 1).
PROGRAMS=(
  "bench/programs/mlp.mlir 3"
  "../shared/models/enzyme-jax/pt_bert.mlir 3"
  "../shared/models/enzyme-jax/searchless_chess_9m.mlir 1"
)

# measure FILE RUNS -> prints "ops peak_bytes median_ms mean_ms"
measure() {
  local f=$1 runs=$2 d; d=$(mktemp -d "$TMP/dump.XXXX")
  local rep; rep=$("$KILN" compile "$f" --report --dump-dir "$d") || return 1
  # ops: the count after the dce pass in the report's pass table (it counts func.return and ops in reduce bodies)
  local ops; ops=$(awk '$1=="dce" && $4=="ops" {print $7; exit}' <<<"$rep")
  # peak: exact bytes from the dumped buffer assignment (the report's "peak live" is the same figure rounded to MiB)
  local peak; peak=$(awk '/^buffer assignment of @main/{m=1} m && /peak live/ {
    for (i = 1; i < NF; i++) if ($i == "live") { print $(i+1); exit } }' "$d/buffer-assignment.txt")
  local b; b=$("$KILN" bench "$f" --backend interp --runs "$runs" --seed 1) || return 1
  # bench prints median/min/max only; with 3 runs the mean is (min+median+max)/3, with 1 run it is the run itself
  awk -v ops="$ops" -v peak="$peak" -v n="$runs" '/run median/ {
    for (i = 1; i <= NF; i++) { if ($i == "median") md = $(i+1); if ($i == "min") mn = $(i+1); if ($i == "max") mx = $(i+1) }
    mean = (n == 3) ? (mn + md + mx) / 3 : md
    printf "%s %s %.3f %.3f\n", ops, peak, md, mean }' <<<"$b"
}

printf '%-26s %-10s %6s %12s %11s %11s %4s\n' program kind ops peak_bytes median_ms mean_ms runs
for entry in "${PROGRAMS[@]}"; do
  read -r f runs <<<"$entry"; name=$(basename "$f" .mlir)
  if [[ ! -f $f ]]; then echo "skip $name: $f not found (no ../shared?)"; continue; fi
  if ! F=$(measure "$f" "$runs"); then echo "$name: kiln compile/bench failed"; continue; fi
  read -r fo fp fm fa <<<"$F"
  printf '%-26s %-10s %6s %12s %11s %11s %4s\n' "$name" fwd "$fo" "$fp" "$fm" "$fa" "$runs"
  for remat in none dots all; do
    v="$TMP/$name.vjp.$remat.mlir"
    if ! "$KILN" vjp "$f" --remat "$remat" -o "$v"; then echo "$name: kiln vjp --remat $remat failed"; continue; fi
    if ! V=$(measure "$v" "$runs"); then echo "$name: kiln compile/bench failed"; continue; fi
    read -r vo vp vm va <<<"$V"
    printf '%-26s %-10s %6s %12s %11s %11s %4s\n' "$name" "vjp/$remat" "$vo" "$vp" "$vm" "$va" "$runs"
    awk -v a="$fo $fp $fm $fa" -v b="$vo $vp $vm $va" -v n="$name" -v k="ratio/$remat" 'BEGIN { split(a, x); split(b, y)
      printf "%-26s %-10s %5.2fx %11.2fx %10.2fx %10.2fx\n", n, k, y[1]/x[1], y[2]/x[2], y[3]/x[3], y[4]/x[4] }'
  done
done
