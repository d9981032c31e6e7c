#!/usr/bin/env bash
# The sanitizer stages of .ci/run (and `make sanitize`): the tests and plugins built once
# with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan, -O1, through ccache),
# then
#   - every CTest test except the whole models, the trained examples and the soak test
#     (those run in the plain build; under ASan they take most of an hour);
#   - a fixed sample of the conformance suites (every 8th file) on both backends, which
#     must pass exactly the tests the plain build passes on the same sample;
#   - 1000 random programs of kiln fuzz (every executor, and jvp/vjp);
# and the runtime's tests built with ThreadSanitizer (build-tsan; oneTBB is not
# instrumented, so its pools run one thread: KILN_NUM_THREADS=1; the runtime's own
# threads, queues and events are what is checked). Any sanitizer report fails the stage
# (the sanitizers abort on the first one). Each stage prints its time.
#   scripts/sanitizers.sh [PLAIN_KILN] [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
plain=${1:-build/tools/kiln}
jobs=${2:-2}

stage() {
  local name=$1 t0
  shift
  t0=$(date +%s)
  "$@"
  echo "sanitizers: $name: $(( $(date +%s) - t0 )) s"
}

# Runs a command with its output in a file: the last lines on success, more on failure.
quietly() {
  local log status=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || status=$?
  if [ $status -eq 0 ]; then tail -n 3 "$log"; else tail -n 100 "$log"; fi
  rm -f "$log"
  return $status
}

configure_and_build() {  # DIR FLAG TARGET...
  local dir=$1 flag=$2
  shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=OFF "$flag" -DKILN_BENCH=OFF >/dev/null
  quietly cmake --build "$dir" -j "$jobs" --target "$@"
}

# ASan reports leaks too; UBSan's reports abort (-fno-sanitize-recover in CMakeLists.txt).
# intercept_tls_get_addr=0: GCC 12's sanitizer runtime takes a dynamic TLS block that a
# malloc happens to place at a certain page offset for the header of a pre-2.25 glibc and
# reads a bogus address from it, so now and then LeakSanitizer's scan at exit crashed
# ("Tracer caught signal 11") after a test that passed (seen on the cpu frontend tests,
# which dlopen the plugins, about one run of 52 tests in two). Off, the scan is reliable.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0:intercept_tls_get_addr=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

# Tests that run for minutes in the plain build already (models, training, soak).
slow='^(ModelsTest|ModelsAutodiffTest|SoakTest)\.|^example_'

asan_tests() {
  (cd build-asan && quietly ctest -j "$jobs" --output-on-failure --timeout 900 -E "$slow")
}

# The pass count of `kiln test` on the sample, with a given kiln and backend. The sample
# holds tests that fail in the plain build too (kiln test then exits 1): the count is what
# is compared, so that status must not end the script under `set -e -o pipefail`.
passed() {
  { "$1" test "${sample[@]}" --backend "$2" --jobs "$jobs" --quiet 2>&1 || true; } | tee "$tmp/last" |
    tail -n 1 | sed -n 's/^\([0-9]*\) passed.*/\1/p'
}

asan_conformance() {
  local backend expected got
  for backend in interp cpu; do
    expected=$(passed "$plain" "$backend")
    got=$(passed build-asan/tools/kiln "$backend")
    if [ -z "$got" ] || [ "$got" != "$expected" ]; then
      echo "sanitizers: conformance sample on $backend: ${got:-no summary} passed under ASan, ${expected:-?} in the plain build"
      tail -n 40 "$tmp/last"
      return 1
    fi
    echo "sanitizers: conformance sample (${#sample[@]} files) on $backend: $got passed, as in the plain build"
  done
}

asan_fuzz() {
  quietly build-asan/tools/kiln fuzz --count 1000 --seed 100001 --out build-asan/fuzz
}

tsan_tests() {
  KILN_NUM_THREADS=1 quietly build-tsan/tests/runtime_tests --gtest_brief=1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sample=()
if [ -d ../shared/conformance ]; then
  mapfile -t sample < <(find ../shared/conformance -name '*.mlir' | LC_ALL=C sort | awk 'NR % 8 == 0')
fi

start=$(date +%s)
stage "ASan+UBSan build" configure_and_build build-asan -DKILN_SANITIZE=ON all
stage "ASan+UBSan tests" asan_tests
if [ ${#sample[@]} -gt 0 ]; then stage "ASan+UBSan conformance sample" asan_conformance; fi
stage "ASan+UBSan fuzz" asan_fuzz
stage "TSan build (runtime tests)" configure_and_build build-tsan -DKILN_TSAN=ON runtime_tests
stage "TSan runtime tests" tsan_tests
echo "sanitizers: all stages: $(( $(date +%s) - start )) s"
