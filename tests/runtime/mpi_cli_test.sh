#!/usr/bin/env bash
# `mpirun -np 2 kiln run --partition` over the mpi communicator: the results agree with
# the in-process run on both plugins (rank 0 prints them, the others nothing); a rank
# that fails makes the others fail at once with its message; a rank that stays silent
# ends the job at the collective timeout with a message naming the collective and the
# rank; ranks in different collectives fail naming both.
#   mpi_cli_test.sh MPIRUN KILN
set -u
mpirun=$1 kiln=$2
here=$(cd "$(dirname "$0")" && pwd)
megatron=$here/../tools/megatron.mlir
slow=$here/mpi_slow_rank.mlir
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() {
  echo "$1"
  shift
  for f in "$@"; do echo "--- $f"; head -c 3000 "$f"; done
  status=1
}
mpi() { timeout 120 "$mpirun" --allow-run-as-root --oversubscribe "$@"; }
run=(run --partition --random-inputs 4)

for backend in cpu interp; do
  "$kiln" "${run[@]}" "$megatron" --backend $backend > "$tmp/alone.txt" 2> /dev/null
  mpi -np 2 "$kiln" "${run[@]}" "$megatron" --backend $backend > "$tmp/ranks.txt" 2> "$tmp/ranks.err"
  code=$?
  if [ $code -ne 0 ] || ! cmp -s "$tmp/alone.txt" "$tmp/ranks.txt" || ! grep -q "(2 MPI processes)" "$tmp/ranks.err"; then
    fail "megatron on $backend over 2 ranks (exit $code) differs from the in-process run" \
      "$tmp/alone.txt" "$tmp/ranks.txt" "$tmp/ranks.err"
  fi
done

# Rank 1 fails (its time limit, in its loop) before the all_reduce rank 0 waits in.
start=$(date +%s)
mpi -np 1 "$kiln" "${run[@]}" "$megatron" : -np 1 "$kiln" "${run[@]}" "$slow" --time-limit 0.5 \
  > "$tmp/out.txt" 2> "$tmp/failed.err"
code=$? took=$(( $(date +%s) - start ))
if [ $code -eq 0 ] || ! grep -q "rank 1 failed: .*time limit exceeded" "$tmp/failed.err" || [ $took -gt 60 ]; then
  fail "a failing rank: exit $code after $took s" "$tmp/failed.err"
fi

# Rank 1 is still in its loop when rank 0's collective times out.
mpi -np 1 "$kiln" "${run[@]}" "$megatron" --collective-timeout 2 : -np 1 "$kiln" "${run[@]}" "$slow" --time-limit 60 \
  > "$tmp/out.txt" 2> "$tmp/silent.err"
code=$?
if [ $code -eq 0 ] || ! grep -q "rank 0 waited 2 s in stablehlo.all_reduce .* for rank(s) 1, which did not arrive" "$tmp/silent.err"; then
  fail "a silent rank: exit $code" "$tmp/silent.err"
fi

# Ranks that run different programs meet in different collectives.
cat > "$tmp/rows.mlir" <<'MLIR'
func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}, %w1: tensor<4x8xf32>, %w2: tensor<8x4xf32>)
    -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
  %y = stablehlo.multiply %x, %x : tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
MLIR
mpi -np 1 "$kiln" "${run[@]}" "$megatron" : -np 1 "$kiln" "${run[@]}" "$tmp/rows.mlir" > "$tmp/out.txt" 2> "$tmp/mixed.err"
code=$?
if [ $code -eq 0 ] || ! grep -q "the processes do not run the same program" "$tmp/mixed.err"; then
  fail "ranks in different collectives: exit $code" "$tmp/mixed.err"
fi

# The communicator is refused where it cannot work.
"$kiln" run "$megatron" --partition --random-inputs 4 --communicator mpi --backend interp > /dev/null 2> "$tmp/alone.err"
code=$?
if [ $code -eq 0 ] || ! grep -q "the job has 1 processes\|partitioned over 2 devices" "$tmp/alone.err"; then
  fail "the mpi communicator outside mpirun: exit $code" "$tmp/alone.err"
fi

[ $status -eq 0 ] && echo "mpi_cli ok"
exit $status
