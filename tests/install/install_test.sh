#!/usr/bin/env bash
# `make install`'s output used from outside the tree: installs the build into a fresh
# prefix, then builds tests/install/consumer against it with find_package(kiln) and again
# with pkg-config, runs both, and runs the installed kiln tool, which finds its plugins
# under the prefix.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*"; exit 1; }
export KILN_CACHE_DIR="$tmp/cache"
prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" > "$tmp/install.txt" || fail "cmake --install"
for f in bin/kiln lib/libkiln.so lib/libkiln_plugin_cpu.so lib/libkiln_plugin_interp.so include/kiln/kiln.h \
         include/kiln/version.h include/kiln/pjrt/c_api.h lib/cmake/kiln/kilnConfig.cmake lib/pkgconfig/kiln.pc; do
  [ -e "$prefix/$f" ] || fail "the install has no $f"
done
# Nothing of the source tree or the build is needed any more.
expected=$(sed -n 's/^#define KILN_VERSION_STRING "\(.*\)"/\1/p' "$src/include/kiln/version.h")
check_output() {  # check_output NAME FILE
  grep -qx "kiln $expected" "$2" || fail "$1: no version line: $(cat "$2")"
  grep -qx "squares 1 4 9" "$2" || fail "$1: wrong squares: $(cat "$2")"
  # d/dx x tanh(x) = tanh(x) + x (1 - tanh(x)^2) at 0.5
  grep -qx "slope 0.85534" "$2" || fail "$1: wrong slope: $(cat "$2")"
}
cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/configure.txt" 2>&1 ||
  fail "configuring the consumer: $(cat "$tmp/configure.txt")"
cmake --build "$tmp/consumer" > "$tmp/build.txt" 2>&1 || fail "building the consumer: $(cat "$tmp/build.txt")"
"$tmp/consumer/app" > "$tmp/cmake_run.txt" || fail "running the CMake-built consumer"
check_output "find_package" "$tmp/cmake_run.txt"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion kiln | grep -qx "$expected" || fail "pkg-config --modversion"
# shellcheck disable=SC2046
g++ "$src/tests/install/consumer/main.cc" -o "$tmp/pc_consumer" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs kiln) ||
  fail "building with pkg-config"
"$tmp/pc_consumer" > "$tmp/pc_run.txt" || fail "running the pkg-config-built consumer"
check_output "pkg-config" "$tmp/pc_run.txt"
"$prefix/bin/kiln" --version | grep -qx "kiln $expected" || fail "kiln --version"
"$prefix/bin/kiln" devices > "$tmp/devices.txt" 2>&1 || fail "installed kiln devices: $(cat "$tmp/devices.txt")"
grep -q "$prefix/lib/libkiln_plugin_cpu.so" "$tmp/devices.txt" || fail "the installed tool did not find its plugins: $(cat "$tmp/devices.txt")"
echo "install_test: the installed kiln $expected builds and runs a consumer (CMake and pkg-config)"
