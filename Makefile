# The two commands that do everything on a fresh machine:
#   make run    set up, build, and run the main job
#   make test   set up, build, and run every test through CTest
BUILD ?= build
JOBS ?= 2
SHARED ?= ../shared
CMAKE_FLAGS ?=

.PHONY: all setup configure build run install corpus test conformance asan sanitize fuzz bench jax-plugin clean

all: build

setup:
	@scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: train a convolutional classifier on scikit-learn's handwritten digits with
# the C++ frontend (jit(value_and_grad(loss)) and Adam); it fails below 95% test accuracy.
run: build
	@$(BUILD)/examples/digits_cnn --plot $(BUILD)/digits_training.svg

# Installs the kiln tool, its plugins, libkiln.so, the public headers, the CMake package
# (find_package(kiln): kiln::kiln) and kiln.pc under PREFIX (cmake/install.cmake).
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX) >/dev/null
	@echo "installed kiln $(shell sed -n 's/^#define KILN_VERSION_STRING "\(.*\)"/\1/p' include/kiln/version.h) under $(PREFIX)"

# The corpus checks: every program in ../shared prints back identically, the conformance
# suites pass on the interpreter against their floors and again after the optimizer.
corpus: build
	@$(BUILD)/tools/kiln fmt --check $(SHARED)/conformance $(SHARED)/models | tail -n 1
	@scripts/conformance.sh $(BUILD)/tools/kiln $(JOBS)
	@scripts/optimize_check.sh $(BUILD)/tools/kiln $(JOBS)

test: build
	@scripts/setup.sh --vendor-plugin --jax
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# kiln's JAX plugin package (python/) with the built plugin inside, installed into
# build/venv (or VENV=...): then `JAX_PLATFORMS=kiln python train.py` runs there.
VENV ?= $(BUILD)/venv
jax-plugin: build
	@scripts/setup.sh --jax
	@cp $(BUILD)/lib/libkiln_plugin_cpu.so python/jax_plugins/kiln/
	@$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation ./python
	@echo "installed kiln-jax-plugin into $(VENV): JAX_PLATFORMS=kiln $(VENV)/bin/python your_program.py"

# The conformance suites under ../shared against the floors in tests/conformance_floor.txt.
conformance: build
	@scripts/conformance.sh $(BUILD)/tools/kiln $(JOBS)

# Sanitizer build (ASan + UBSan) of everything, then every test (the whole models too:
# most of an hour).
asan:
	@ASAN_OPTIONS=$${ASAN_OPTIONS:-intercept_tls_get_addr=0} $(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DKILN_SANITIZE=ON -DKILN_BENCH=OFF"

# The sanitizer stages .ci/run runs (scripts/sanitizers.sh): ASan+UBSan tests without the
# whole models, a conformance sample and fuzzing; the runtime's tests under TSan.
sanitize: build
	@scripts/sanitizers.sh $(BUILD)/tools/kiln $(JOBS)

# libFuzzer targets, built with clang-19 (scripts/setup.sh --fuzz installs it).
# (Warnings are errors in the g++ build; clang with libstdc++ 12 warns about the library.)
# FUZZ_SECONDS sets how long the parser fuzzer runs on the conformance files as seeds.
FUZZ_SECONDS ?= 60
fuzz:
	@scripts/setup.sh --fuzz
	@CXX=clang++-19 CC=clang-19 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DKILN_FUZZ=ON -DKILN_WERROR=OFF -DKILN_TESTS=OFF -DKILN_BENCH=OFF >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target fuzz_parser fuzz_npy fuzz_interpret
	@scripts/fuzz.sh build-fuzz/fuzz/fuzz_parser $(FUZZ_SECONDS)

# After the C++ benches, bench/jax_vs_xla.py (the same JAX programs on XLA:CPU and on kiln)
# when $(VENV) exists, with the plugin installed fresh into it first.
BENCH_JAX := $(if $(wildcard $(VENV)/bin/python),jax-plugin)
bench: build $(BENCH_JAX)
	@$(BUILD)/bench/parse_bench
	@$(BUILD)/bench/optimizer_bench
	@$(BUILD)/bench/runtime_bench
	@$(BUILD)/bench/sharding_bench
	@mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 $(BUILD)/bench/sharding_bench
	@if [ -x $(VENV)/bin/python ]; then $(VENV)/bin/python bench/jax_vs_xla.py; \
	else echo "bench/jax_vs_xla.py skipped: no $(VENV)/bin/python (make jax-plugin sets it up)"; fi

clean:
	rm -rf build build-asan build-tsan build-fuzz
