#!/usr/bin/env bash
# Checks the `kiln` tool's exit codes and output on good and bad input.
# Usage: KILN=path/to/kiln cli_test.sh DIR (DIR holds the test inputs).
set -u
dir=$1
fail=0
check() {  # check NAME EXPECTED_STATUS ACTUAL_STATUS
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$KILN" --version | grep -q '^kiln [0-9]' || { echo "FAIL --version"; fail=1; }
for cmd in fmt run test compile devices bench; do
  "$KILN" "$cmd" --help >/dev/null 2>&1; check "$cmd --help" 0 $?
done

"$KILN" fmt "$dir/good.mlir" > "$tmp/out.mlir"; check "fmt good" 0 $?
"$KILN" fmt "$tmp/out.mlir" > "$tmp/out2.mlir"; check "fmt printed" 0 $?
cmp -s "$tmp/out.mlir" "$tmp/out2.mlir" || { echo "FAIL fmt is not a fixed point"; fail=1; }
"$KILN" fmt - < "$dir/good.mlir" > "$tmp/stdin.mlir"; check "fmt stdin" 0 $?
cmp -s "$tmp/out.mlir" "$tmp/stdin.mlir" || { echo "FAIL stdin output differs"; fail=1; }

"$KILN" fmt "$dir/bad.mlir" > /dev/null 2> "$tmp/err.txt"; check "fmt bad" 1 $?
grep -q 'bad.mlir:3:26: error: use of undefined value %y' "$tmp/err.txt" || { echo "FAIL bad: wrong message:"; cat "$tmp/err.txt"; fail=1; }
grep -q '^ *\^$' "$tmp/err.txt" || { echo "FAIL bad: no caret"; fail=1; }

"$KILN" fmt "$tmp/missing.mlir" > /dev/null 2>&1; check "fmt missing file" 1 $?
"$KILN" run x.mlir > /dev/null 2>&1; check "reserved run" 2 $?
"$KILN" nope > /dev/null 2>&1; [ $? -ne 0 ] || { echo "FAIL unknown subcommand accepted"; fail=1; }

"$KILN" fmt --check "$dir" > "$tmp/check.txt"; check "fmt --check with a bad file" 1 $?
grep -q '1 round-trip, 0 unsupported, 1 failed' "$tmp/check.txt" || { echo "FAIL --check summary:"; cat "$tmp/check.txt"; fail=1; }

[ $fail -eq 0 ] && echo "cli tests passed"
exit $fail
