#!/usr/bin/env bash
# Checks the `kiln` tool's exit codes and output on good and bad input: 0 success,
# 1 bad input or failing tests, 2 usage errors (flags, option values, unknown names).
# Usage: KILN=path/to/kiln cli_test.sh DIR (DIR holds the test inputs).
set -u
dir=$1
fail=0
check() {  # check NAME EXPECTED_STATUS ACTUAL_STATUS
  if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fail=1; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KILN_CACHE_DIR="$tmp/cache"  # not the user's ~/.cache/kiln

# The disk cache of machine code: a second process takes it from there; a damaged
# (truncated) entry is compiled again and replaced.
compile_report() { "$KILN" compile "$dir/add.mlir" --backend cpu --report > "$tmp/cache.txt"; check "compile $1" 0 $?; }
compile_report cold
if grep -q 'from the disk cache' "$tmp/cache.txt"; then echo "FAIL a cold compile used the cache"; fail=1; fi
compile_report warm
grep -q 'machine code of [0-9]* of [0-9]* modules from the disk cache' "$tmp/cache.txt" || { echo "FAIL no cache hit:"; cat "$tmp/cache.txt"; fail=1; }
for f in "$tmp/cache"/*.entry; do head -c 100 "$f" > "$f.cut" && mv "$f.cut" "$f"; done
compile_report damaged
if grep -q 'from the disk cache' "$tmp/cache.txt"; then echo "FAIL a truncated entry was loaded"; fail=1; fi
compile_report repaired
grep -q 'from the disk cache' "$tmp/cache.txt" || { echo "FAIL the damaged entry was not replaced"; fail=1; }
# kiln run keeps the cpu plugin's kernels in the cache: a compile of the same program in
# another process takes their machine code from there.
rm -rf "$tmp/cache"
"$KILN" run "$dir/add.mlir" --random-inputs 1 --no-print; check "run keeps kernels" 0 $?
"$KILN" compile "$dir/add.mlir" --backend cpu --report > "$tmp/kept.txt"; check "compile after run" 0 $?
grep -qE 'machine code of ([0-9]+) of \1 modules from the disk cache' "$tmp/kept.txt" || { echo "FAIL run kept no kernels:"; cat "$tmp/kept.txt"; fail=1; }
# A warm start (the whole executable from the disk cache) prints what a cold one does.
rm -rf "$tmp/cache"
"$KILN" run "$dir/loss.mlir" --random-inputs 3 > "$tmp/cold_run.txt"; check "run cold" 0 $?
"$KILN" run "$dir/loss.mlir" --random-inputs 3 > "$tmp/warm_run.txt"; check "run warm" 0 $?
cmp -s "$tmp/cold_run.txt" "$tmp/warm_run.txt" || { echo "FAIL a warm start printed other results"; fail=1; }
# ... also when its kernels call runtime functions (whose addresses differ per process).
KILN_CACHE_DIR=off "$KILN" run "$dir/runtime_calls.mlir" --random-inputs 2 > "$tmp/calls.txt"; check "run calls" 0 $?
for start in cold warm; do
  "$KILN" run "$dir/runtime_calls.mlir" --random-inputs 2 > "$tmp/calls_$start.txt"; check "run calls $start" 0 $?
  cmp -s "$tmp/calls.txt" "$tmp/calls_$start.txt" || { echo "FAIL a $start start printed other results"; fail=1; }
done
# Compile tiers: every tier prints the same results; the fast tier says it is
# unoptimized; a tier that does not exist is a usage error.
KILN_CACHE_DIR=off "$KILN" run "$dir/loss.mlir" --random-inputs 3 > "$tmp/optimized.txt"; check "run optimized" 0 $?
for tier in fast tiered; do
  KILN_CACHE_DIR=off "$KILN" run "$dir/loss.mlir" --random-inputs 3 --compile-tier $tier > "$tmp/$tier.txt"; check "run $tier" 0 $?
  cmp -s "$tmp/optimized.txt" "$tmp/$tier.txt" || { echo "FAIL --compile-tier $tier printed other results"; fail=1; }
done
KILN_CACHE_DIR=off "$KILN" compile "$dir/loss.mlir" --backend cpu --report --compile-tier fast > "$tmp/fast.txt"; check "compile fast" 0 $?
grep -q 'unoptimized (--compile-tier fast)' "$tmp/fast.txt" || { echo "FAIL the fast tier's report:"; cat "$tmp/fast.txt"; fail=1; }
"$KILN" run "$dir/add.mlir" --random-inputs 1 --compile-tier quick > /dev/null 2>&1; check "unknown tier" 2 $?
# An op without native code runs through the interpreter, and kiln run and kiln bench
# say which op, where, and which function it sent there; a native program says nothing.
fallback='kiln: note: @main runs on the interpreter: stablehlo.fft at [^ ]*fft.mlir:4:8 has no native code'
for cmd in "run --random-inputs 1" "bench --runs 1"; do
  "$KILN" $cmd "$dir/fft.mlir" > /dev/null 2> "$tmp/fallback.txt"; check "kiln $cmd of a fallback" 0 $?
  grep -q "$fallback" "$tmp/fallback.txt" || { echo "FAIL kiln $cmd did not name the fallback:"; cat "$tmp/fallback.txt"; fail=1; }
done
"$KILN" run "$dir/add.mlir" --random-inputs 1 --no-print 2> "$tmp/native.txt"
if grep -q 'runs on the interpreter' "$tmp/native.txt"; then echo "FAIL a native program reported a fallback"; fail=1; fi

# Without @main, kiln run takes the only public function, and names the functions when
# there are several.
printf 'func.func @f(%%x: tensor<2xf32>) -> tensor<2xf32> {\n  %%y = func.call @g(%%x) : (tensor<2xf32>) -> tensor<2xf32>\n  return %%y : tensor<2xf32>\n}\nfunc.func private @g(%%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %%x : tensor<2xf32>\n}\n' > "$tmp/nomain.mlir"
"$KILN" run "$tmp/nomain.mlir" --random-inputs 1 --no-print; check "run the only public function" 0 $?
sed 's/func.func private @g/func.func @g/' "$tmp/nomain.mlir" > "$tmp/two.mlir"
"$KILN" run "$tmp/two.mlir" --random-inputs 1 --no-print 2> "$tmp/err.txt"; check "run with two public functions" 2 $?
grep -q 'functions: @f, @g); choose one with --entry' "$tmp/err.txt" || { echo "FAIL entry message:"; cat "$tmp/err.txt"; fail=1; }
# kiln bench --profile writes a Chrome trace; --report lists the slowest steps.
"$KILN" bench "$dir/add.mlir" --runs 2 --profile "$tmp/trace.json" --report > "$tmp/bench.txt"; check "bench --profile" 0 $?
grep -q '"traceEvents"' "$tmp/trace.json" || { echo "FAIL no trace written"; fail=1; }
grep -q 'steps that took longest' "$tmp/bench.txt" || { echo "FAIL bench --report:"; cat "$tmp/bench.txt"; fail=1; }

# A memory limit refuses, when it compiles, a program whose buffers need more (cpu, a
# warm start from the disk cache too, and interp; the flag or KILN_MEMORY_LIMIT), naming
# the largest buffers; a size that is not one is a usage error.
for backend in cpu cpu interp; do
  "$KILN" run "$dir/add.mlir" --random-inputs 1 --no-print --backend $backend --memory-limit 64 2> "$tmp/limit.txt"
  check "memory limit ($backend)" 1 $?
  grep -qE 'resource exhausted: @main needs 7[23] B of buffers at its peak, over the memory limit of 64 B' "$tmp/limit.txt" ||
    { echo "FAIL memory limit message:"; cat "$tmp/limit.txt"; fail=1; }
  grep -q '24 B tensor<2x3xf32> from parameter 0' "$tmp/limit.txt" || { echo "FAIL no largest buffers named"; fail=1; }
done
KILN_MEMORY_LIMIT=64 "$KILN" run "$dir/add.mlir" --random-inputs 1 --no-print 2> /dev/null; check "KILN_MEMORY_LIMIT" 1 $?
KILN_MEMORY_LIMIT=64 "$KILN" run "$dir/add.mlir" --random-inputs 1 --no-print --memory-limit 1K; check "the flag over the variable" 0 $?
"$KILN" compile "$dir/add.mlir" --backend cpu --memory-limit 64 > /dev/null 2>&1; check "compile over the limit" 1 $?
"$KILN" bench "$dir/add.mlir" --runs 1 --memory-limit 64 > /dev/null 2>&1; check "bench over the limit" 1 $?
"$KILN" run "$dir/add.mlir" --random-inputs 1 --memory-limit 12X 2> "$tmp/limit.txt"; check "bad memory limit" 2 $?
grep -q "'12X' is not a size in bytes" "$tmp/limit.txt" || { echo "FAIL bad size message:"; cat "$tmp/limit.txt"; fail=1; }
KILN_MEMORY_LIMIT=lots "$KILN" run "$dir/add.mlir" --random-inputs 1 > /dev/null 2>&1; check "bad KILN_MEMORY_LIMIT" 2 $?

"$KILN" --version | grep -q '^kiln [0-9]' || { echo "FAIL --version"; fail=1; }
for cmd in fmt run test compile devices bench grad jvp vjp vmap; do
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
# kiln run: inputs from .npy files, random inputs, and the errors for bad inputs.
"$KILN" run "$dir/add.mlir" --entry twice --random-inputs 3 --output-dir "$tmp/in" --no-print; check "run random" 0 $?
[ -f "$tmp/in/result_0.npy" ] || { echo "FAIL run wrote no result_0.npy"; fail=1; }
"$KILN" run "$dir/add.mlir" --input "$tmp/in/result_0.npy" --input "$tmp/in/result_0.npy" --output-dir "$tmp/out" > "$tmp/run.txt"; check "run npy" 0 $?
grep -q '^result 1: tensor<i1>' "$tmp/run.txt" || { echo "FAIL run output:"; cat "$tmp/run.txt"; fail=1; }
"$KILN" run "$dir/add.mlir" --input "$tmp/in/result_0.npy" > /dev/null 2> "$tmp/err.txt"; check "run too few inputs" 2 $?
grep -q '@main takes 2 input(s)' "$tmp/err.txt" || { echo "FAIL run arity message:"; cat "$tmp/err.txt"; fail=1; }
"$KILN" run "$dir/add.mlir" --input "$dir/add.mlir" --input "$dir/add.mlir" > /dev/null 2> "$tmp/err.txt"; check "run non-npy" 1 $?
grep -q 'not a valid .npy file' "$tmp/err.txt" || { echo "FAIL run npy message:"; cat "$tmp/err.txt"; fail=1; }
"$KILN" run "$dir/add.mlir" --entry nope --random-inputs 1 > /dev/null 2> "$tmp/err.txt"; check "run unknown entry" 2 $?
grep -q 'no function @nope' "$tmp/err.txt" || { echo "FAIL run entry message:"; cat "$tmp/err.txt"; fail=1; }
"$KILN" run "$dir/add.mlir" --entry twice --input "$tmp/out/result_1.npy" > /dev/null 2> "$tmp/err.txt"; check "run wrong type" 1 $?
grep -q 'expects tensor<2x3xf32>' "$tmp/err.txt" || { echo "FAIL run type message:"; cat "$tmp/err.txt"; fail=1; }
# An MHLO-era @main taking and returning nested tuples runs with their leaves as its
# inputs and results (one file per leaf), alike on cpu and on the interpreter.
for backend in cpu interp; do
  "$KILN" run "$dir/tuple_main.mlir" --random-inputs 4 --backend $backend --output-dir "$tmp/tuple_$backend" > "$tmp/tuple_$backend.txt"
  check "run tuple_main $backend" 0 $?
done
grep -q '^result 2: tensor<i32>' "$tmp/tuple_cpu.txt" || { echo "FAIL tuple leaves:"; cat "$tmp/tuple_cpu.txt"; fail=1; }
for i in 0 1 2; do
  [ -f "$tmp/tuple_cpu/result_$i.npy" ] || { echo "FAIL no leaf file result_$i.npy"; fail=1; }
done
"$KILN" run "$dir/tuple_main.mlir" --backend interp --input "$tmp/tuple_cpu/result_0.npy" --input "$tmp/in/result_0.npy" \
  --input "$tmp/tuple_cpu/result_2.npy" > /dev/null 2> "$tmp/err.txt"; check "run tuple leaf of a wrong type" 1 $?
grep -q 'input 1 .* expects tensor<3xf32>' "$tmp/err.txt" || { echo "FAIL tuple leaf type message:"; cat "$tmp/err.txt"; fail=1; }
# --output-dtype f32 widens float results only; any other value is a usage error.
"$KILN" run "$dir/tuple_main.mlir" --random-inputs 4 --output-dtype f32 --output-dir "$tmp/tuple_f32" --no-print; check "run --output-dtype" 0 $?
cmp -s "$tmp/tuple_cpu/result_2.npy" "$tmp/tuple_f32/result_2.npy" || { echo "FAIL --output-dtype f32 changed an i32 result"; fail=1; }
"$KILN" run "$dir/tuple_main.mlir" --random-inputs 4 --output-dtype f16 > /dev/null 2>&1; check "run --output-dtype f16" 2 $?
# kiln run --infeed: the values are queued on the device's infeed before the run; a program
# that finds it empty fails at once (not waiting for values nobody will give), and a
# second, warm start (the executable from the disk cache) still shows the op's line.
"$KILN" run "$dir/infeed.mlir" --input "$tmp/in/result_0.npy" --infeed "$tmp/in/result_0.npy" > "$tmp/fed.txt"; check "run infeed" 0 $?
grep -A2 '^result 0' "$tmp/run.txt" > "$tmp/sum.txt"  # add.mlir's a + b of the same values
diff -q "$tmp/sum.txt" <(grep -A2 '^result 0' "$tmp/fed.txt") > /dev/null || { echo "FAIL run infeed output:"; cat "$tmp/fed.txt"; fail=1; }
for backend in cpu interp; do
  "$KILN" run "$dir/infeed.mlir" --entry from_list --backend $backend > "$tmp/list.txt"; check "run infeed list $backend" 0 $?
  grep -q '\[7 9\]' "$tmp/list.txt" || { echo "FAIL run infeed list ($backend):"; cat "$tmp/list.txt"; fail=1; }
done
for start in cold warm; do  # (the run above stored the executable in the cache)
  cache=$KILN_CACHE_DIR; [ $start = cold ] && cache=off
  KILN_CACHE_DIR=$cache "$KILN" run "$dir/infeed.mlir" --input "$tmp/in/result_0.npy" > /dev/null 2> "$tmp/err.txt"
  check "run infeed empty $start" 1 $?
  grep -q "infeed.mlir:4:10: error: the device's infeed is empty" "$tmp/err.txt" && grep -q '"stablehlo.infeed"(%t)' "$tmp/err.txt" &&
    grep -q 'give the program.s infeed values with --infeed' "$tmp/err.txt" || { echo "FAIL run infeed empty ($start):"; cat "$tmp/err.txt"; fail=1; }
done

# kiln grad / jvp / vjp: the derivative programs are StableHLO that kiln runs again.
"$KILN" grad "$dir/loss.mlir" --wrt 0,1 --with-value -o "$tmp/grad.mlir"; check "grad" 0 $?
"$KILN" run "$tmp/grad.mlir" --random-inputs 2 --backend interp > "$tmp/grad.txt"; check "run grad" 0 $?
grep -q '^result 1: tensor<3x2xf32>' "$tmp/grad.txt" && grep -q '^result 2: tensor<4x3xf32>' "$tmp/grad.txt" ||
  { echo "FAIL grad results:"; cat "$tmp/grad.txt"; fail=1; }
"$KILN" run "$dir/loss.mlir" --random-inputs 2 --backend interp | sed -n 's/^result 0: //p' > "$tmp/value.txt"
sed -n 's/^result 0: //p' "$tmp/grad.txt" | cmp -s - "$tmp/value.txt" || { echo "FAIL grad --with-value differs from the value"; fail=1; }
"$KILN" jvp "$dir/loss.mlir" | "$KILN" run - --random-inputs 1 --no-print; check "jvp" 0 $?
"$KILN" vjp "$dir/loss.mlir" | "$KILN" run - --random-inputs 1 --no-print; check "vjp" 0 $?
"$KILN" vmap "$dir/loss.mlir" --in-axes none,0 --batch 8 | "$KILN" run - --random-inputs 1 > "$tmp/vmap.txt"; check "vmap" 0 $?
grep -q '^result 0: tensor<8xf32>' "$tmp/vmap.txt" || { echo "FAIL vmap results:"; cat "$tmp/vmap.txt"; fail=1; }
"$KILN" vmap "$dir/loss.mlir" --in-axes 0,7 --batch 8 > /dev/null 2> "$tmp/err.txt"; check "vmap bad axis" 2 $?
grep -q 'in_axes 7 does not fit parameter 1' "$tmp/err.txt" || { echo "FAIL vmap axis message:"; cat "$tmp/err.txt"; fail=1; }
"$KILN" grad "$dir/loss.mlir" --wrt 4 > /dev/null 2> "$tmp/err.txt"; check "grad --wrt out of range" 2 $?
grep -q 'no parameter 4 (it has 2)' "$tmp/err.txt" || { echo "FAIL grad wrt message:"; cat "$tmp/err.txt"; fail=1; }
"$KILN" grad "$dir/add.mlir" > /dev/null 2> "$tmp/err.txt"; check "grad of a non-scalar" 2 $?
grep -q 'must return one floating-point scalar' "$tmp/err.txt" || { echo "FAIL grad scalar message:"; cat "$tmp/err.txt"; fail=1; }
# kiln's autodiff constructs: the cpu backend runs them (the inliner replaces them by what
# they wrap); grad --has-aux returns the auxiliary output as the function computes it.
rules="$dir/custom_rules.mlir"
"$KILN" run "$rules" --random-inputs 2 --backend cpu --output-dir "$tmp/rules_cpu" > "$tmp/rules_cpu.txt"; check "run constructs on cpu" 0 $?
grep -q '^result 1: tensor<4x2xf32>' "$tmp/rules_cpu.txt" || { echo "FAIL constructs on cpu:"; cat "$tmp/rules_cpu.txt"; fail=1; }
"$KILN" grad "$rules" --has-aux -o "$tmp/grad_aux.mlir"; check "grad --has-aux" 0 $?
"$KILN" run "$tmp/grad_aux.mlir" --random-inputs 2 --backend interp --output-dir "$tmp/grad_aux" > "$tmp/grad_aux.txt"; check "run grad --has-aux" 0 $?
grep -q '^result 0: tensor<3x2xf32>' "$tmp/grad_aux.txt" && grep -q '^result 1: tensor<4x2xf32>' "$tmp/grad_aux.txt" ||
  { echo "FAIL grad --has-aux results:"; cat "$tmp/grad_aux.txt"; fail=1; }
"$KILN" run "$rules" --random-inputs 2 --backend interp --output-dir "$tmp/rules_interp" --no-print
cmp -s "$tmp/grad_aux/result_1.npy" "$tmp/rules_interp/result_1.npy" || { echo "FAIL grad --has-aux changed the aux output"; fail=1; }
"$KILN" grad "$rules" > /dev/null 2> "$tmp/err.txt"; check "grad of auxiliary outputs without --has-aux" 2 $?
grep -q 'use has_aux: --has-aux' "$tmp/err.txt" || { echo "FAIL grad aux message:"; cat "$tmp/err.txt"; fail=1; }

# kiln test: a failing test is reported with its file and function; exit status 1.
"$KILN" test "$dir/tests_dir" --report "$tmp/report.json" > "$tmp/test.txt"; check "test with a failure" 1 $?
grep -q 'FAIL .*checks.mlir @fails: .*element \[1\]: got 2, expected 3' "$tmp/test.txt" || { echo "FAIL test output:"; cat "$tmp/test.txt"; fail=1; }
[ "$(tail -n 1 "$tmp/test.txt")" = "1 passed, 1 failed" ] || { echo "FAIL test summary:"; tail -n 1 "$tmp/test.txt"; fail=1; }
grep -q '"status": "passed"' "$tmp/report.json" || { echo "FAIL test report"; fail=1; }

# kiln compile: the optimized module parses back and computes the same; --report,
# --dump-dir and --entry; unknown passes and missing files are errors.
softmax="$dir/../../examples/softmax.mlir"
"$KILN" compile "$softmax" -o "$tmp/opt.mlir"; check "compile" 0 $?
"$KILN" fmt "$tmp/opt.mlir" > /dev/null; check "compiled module parses" 0 $?
grep -q '"kiln.fusion"' "$tmp/opt.mlir" || { echo "FAIL compile made no fusion"; fail=1; }
"$KILN" run "$softmax" --random-inputs 3 > "$tmp/plain.txt"
"$KILN" run "$tmp/opt.mlir" --random-inputs 3 > "$tmp/fused.txt"
cmp -s "$tmp/plain.txt" "$tmp/fused.txt" || { echo "FAIL compiled softmax computes something else"; fail=1; }
"$KILN" compile "$softmax" --report --verify-each > "$tmp/report.txt"; check "compile --report" 0 $?
grep -q '^fusion: 7 kernels before, 3 after' "$tmp/report.txt" || { echo "FAIL compile report:"; cat "$tmp/report.txt"; fail=1; }
grep -q '^buffers of @main: ' "$tmp/report.txt" || { echo "FAIL compile report has no buffers"; fail=1; }
"$KILN" compile "$softmax" --dump-dir "$tmp/dump" -o /dev/null; check "compile --dump-dir" 0 $?
for f in 00-input.mlir 01-inline.mlir 06-fusion.mlir fusion-plan.txt buffer-assignment.txt; do
  [ -s "$tmp/dump/$f" ] || { echo "FAIL --dump-dir wrote no $f"; fail=1; }
done
"$KILN" fmt "$tmp/dump/06-fusion.mlir" > /dev/null; check "dumped module parses" 0 $?
# With --backend cpu the dump has the kernels' IR before and after optimization and their
# assembly, each kernel a function named after its op and line; --report says how @main runs.
"$KILN" compile "$softmax" --backend cpu --dump-dir "$tmp/cpudump" --report > "$tmp/cpureport.txt"; check "compile --backend cpu --dump-dir" 0 $?
for f in cpu_kernels.ll cpu_kernels.opt.ll cpu_kernels.s; do
  [ -s "$tmp/cpudump/$f" ] || { echo "FAIL --backend cpu --dump-dir wrote no $f"; fail=1; }
done
grep -q '^define void @kernel1_fusion_input_line[0-9]' "$tmp/cpudump/cpu_kernels.opt.ll" || { echo "FAIL no named kernel in the optimized IR"; fail=1; }
grep -q 'kernel1_fusion_input_line[0-9]' "$tmp/cpudump/cpu_kernels.s" || { echo "FAIL no kernel in the assembly"; fail=1; }
# Its kernels write no result over an operand: LLVM is told so, and its vector loops
# check no overlap at run time (each such check keeps a scalar copy of the loop).
grep -q '!noalias' "$tmp/cpudump/cpu_kernels.ll" || { echo "FAIL kernels carry no alias scopes"; fail=1; }
grep -q 'found.conflict' "$tmp/cpudump/cpu_kernels.opt.ll" && { echo "FAIL a vector loop checks for overlap at run time"; fail=1; }
KILN_LLVM_PASSES=bogus KILN_CACHE_DIR=off "$KILN" compile "$softmax" --backend cpu > /dev/null 2> "$tmp/err.txt"; check "compile with a bad KILN_LLVM_PASSES" 2 $?
grep -q "KILN_LLVM_PASSES 'bogus'" "$tmp/err.txt" || { echo "FAIL bad pipeline message:"; cat "$tmp/err.txt"; fail=1; }
grep -q '^@main: [0-9]* steps over an arena of [0-9]* bytes' "$tmp/cpureport.txt" || { echo "FAIL cpu report has no steps:"; cat "$tmp/cpureport.txt"; fail=1; }
"$KILN" compile "$dir/add.mlir" --entry twice > "$tmp/twice.mlir"; check "compile --entry" 0 $?
grep -q '@main' "$tmp/twice.mlir" && { echo "FAIL --entry kept other functions"; fail=1; }
"$KILN" compile "$softmax" --passes inline,bogus > /dev/null 2> "$tmp/err.txt"; check "compile unknown pass" 2 $?
grep -q "unknown pass 'bogus'" "$tmp/err.txt" || { echo "FAIL unknown pass message:"; cat "$tmp/err.txt"; fail=1; }
"$KILN" compile "$softmax" --passes 'inline, fixpoint(simplify,fold),cse' --report > "$tmp/group.txt"; check "compile fixpoint group" 0 $?
grep -q '^  fixpoint(simplify,fold) .*round' "$tmp/group.txt" || { echo "FAIL group report:"; cat "$tmp/group.txt"; fail=1; }
"$KILN" compile "$softmax" --passes 'fixpoint(simplify' > /dev/null 2> "$tmp/err.txt"; check "compile bad group" 2 $?
grep -q "unclosed '('" "$tmp/err.txt" || { echo "FAIL bad group message:"; cat "$tmp/err.txt"; fail=1; }
"$KILN" compile "$tmp/missing.mlir" > /dev/null 2>&1; check "compile missing file" 1 $?
"$KILN" compile "$dir/bad.mlir" > /dev/null 2>&1; check "compile bad file" 1 $?
"$KILN" nope > /dev/null 2>&1; check "unknown subcommand" 2 $?

# Constants JAX elided (dense_resource<__elided__>): running them is an error that names
# the constant; --fill-elided SEED fills them, the same way for the same seed; kiln fmt
# prints them back as they were.
"$KILN" run "$dir/elided.mlir" --random-inputs 1 > /dev/null 2> "$tmp/err.txt"; check "run elided" 1 $?
grep -q 'elided.mlir:4:10: error: the constant tensor<3x4xf32> at "params/w" has no data' "$tmp/err.txt" || { echo "FAIL elided message:"; cat "$tmp/err.txt"; fail=1; }
"$KILN" run "$dir/elided.mlir" --random-inputs 1 --fill-elided 5 > "$tmp/fill1.txt"; check "run --fill-elided" 0 $?
"$KILN" run "$dir/elided.mlir" --random-inputs 1 --fill-elided 5 > "$tmp/fill2.txt"; check "run --fill-elided again" 0 $?
"$KILN" run "$dir/elided.mlir" --random-inputs 1 --fill-elided 6 > "$tmp/fill3.txt"; check "run --fill-elided 6" 0 $?
cmp -s "$tmp/fill1.txt" "$tmp/fill2.txt" || { echo "FAIL --fill-elided is not deterministic"; fail=1; }
cmp -s "$tmp/fill1.txt" "$tmp/fill3.txt" && { echo "FAIL --fill-elided ignores its seed"; fail=1; }
grep -qi 'nan\|inf' "$tmp/fill1.txt" && { echo "FAIL --fill-elided gave non-finite results:"; cat "$tmp/fill1.txt"; fail=1; }
"$KILN" run "$dir/elided.mlir" --random-inputs 1 --fill-elided 5 --backend interp > /dev/null; check "run --fill-elided interp" 0 $?
"$KILN" bench "$dir/elided.mlir" --runs 2 --fill-elided 5 > /dev/null; check "bench --fill-elided" 0 $?
"$KILN" bench "$dir/elided.mlir" --runs 2 > /dev/null 2>&1; check "bench elided" 1 $?
"$KILN" compile "$dir/elided.mlir" > /dev/null 2>&1; check "compile elided" 1 $?
"$KILN" compile "$dir/elided.mlir" --fill-elided 5 > /dev/null; check "compile --fill-elided" 0 $?
"$KILN" fmt "$dir/elided.mlir" > "$tmp/elided.mlir"; check "fmt elided" 0 $?
grep -q 'stablehlo.constant dense_resource<__elided__> : tensor<3x4xf32>' "$tmp/elided.mlir" || { echo "FAIL fmt lost the elided constant:"; cat "$tmp/elided.mlir"; fail=1; }

# Usage errors exit 2 whoever finds them (CLI11 or kiln); I/O errors stay 1.
"$KILN" fmt --no-such-flag "$dir/good.mlir" > /dev/null 2>&1; check "unknown flag" 2 $?
"$KILN" compile > /dev/null 2>&1; check "missing argument" 2 $?
"$KILN" test "$dir/tests_dir" --jobs 0 > /dev/null 2>&1; check "bad option value" 2 $?
"$KILN" run "$dir/add.mlir" --random-inputs 1 --input "$tmp/in/result_0.npy" > /dev/null 2>&1; check "run inputs twice" 2 $?
"$KILN" test "$dir/tests_dir" --backend bogus > /dev/null 2> "$tmp/err.txt"; check "test unknown backend" 2 $?
grep -q "no plugin 'bogus' (available: cpu, interp)" "$tmp/err.txt" || { echo "FAIL backend message:"; cat "$tmp/err.txt"; fail=1; }
"$KILN" compile "$dir/add.mlir" --entry nope > /dev/null 2>&1; check "compile unknown entry" 2 $?
"$KILN" fmt "$dir/good.mlir" "$dir/add.mlir" > /dev/null 2>&1; check "fmt two files" 2 $?
"$KILN" run "$dir/add.mlir" --entry twice --input "$tmp/missing.npy" > /dev/null 2>&1; check "run missing .npy" 1 $?
"$KILN" devices > "$tmp/devices.txt" 2>&1; check "devices" 0 $?
grep -q '^cpu .*(PJRT C API 0\.[0-9]*, kiln extension' "$tmp/devices.txt" && grep -q '^interp ' "$tmp/devices.txt" &&
  grep -q '  device 0: cpu:0' "$tmp/devices.txt" && grep -q '  attributes: .*kiln_profiles=true' "$tmp/devices.txt" ||
  { echo "FAIL devices:"; cat "$tmp/devices.txt"; fail=1; }
KILN_CPU_DEVICES=3 "$KILN" devices cpu > "$tmp/devices.txt" 2>&1; check "devices cpu" 0 $?
grep -q '  device 2: cpu:2' "$tmp/devices.txt" || { echo "FAIL KILN_CPU_DEVICES:"; cat "$tmp/devices.txt"; fail=1; }
"$KILN" devices nosuch > "$tmp/devices.txt" 2>&1; check "devices of a missing plugin" 1 $?
grep -q "no plugin 'nosuch' (available: cpu, interp): looked for libkiln_plugin_nosuch.so in" "$tmp/devices.txt" || { echo "FAIL missing plugin:"; cat "$tmp/devices.txt"; fail=1; }

# Sharded programs: partitioned over their devices (runtime/sharding_test.cc compares the
# numbers with one device's).
"$KILN" compile "$dir/megatron.mlir" --partition --report > "$tmp/partition.txt"; check "compile --partition" 0 $?
grep -q 'partitioning: @main over 2 device(s): 1 all_reduce, 0 reduce_scatter, 0 all_to_all, 0 all_gather' "$tmp/partition.txt" ||
  { echo "FAIL partition report:"; cat "$tmp/partition.txt"; fail=1; }
grep -q 'stablehlo.dot_general (line 8): all_reduce of partial sums of tensor<8x4xf32>' "$tmp/partition.txt" ||
  { echo "FAIL partition report names the op:"; cat "$tmp/partition.txt"; fail=1; }
for backend in cpu interp; do
  "$KILN" run "$dir/megatron.mlir" --partition --backend $backend --random-inputs 4 --no-print 2> "$tmp/err.txt"
  check "run --partition ($backend)" 0 $?
  grep -q 'partitioned over 2 device(s): 1 collective(s)' "$tmp/err.txt" || { echo "FAIL run --partition:"; cat "$tmp/err.txt"; fail=1; }
done
"$KILN" run "$dir/add.mlir" --entry twice --partition --random-inputs 1 --no-print 2> "$tmp/err.txt"; check "partition without shardings" 0 $?
grep -q 'partitioned over 1 device(s): 0 collective(s)' "$tmp/err.txt" || { echo "FAIL no shardings:"; cat "$tmp/err.txt"; fail=1; }

"$KILN" fmt --check "$dir/good.mlir" "$dir/bad.mlir" > "$tmp/check.txt"; check "fmt --check with a bad file" 1 $?
grep -q '1 round-trip, 0 unsupported, 1 failed' "$tmp/check.txt" || { echo "FAIL --check summary:"; cat "$tmp/check.txt"; fail=1; }

[ $fail -eq 0 ] && echo "cli tests passed"
exit $fail
