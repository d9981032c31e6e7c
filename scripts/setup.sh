#!/usr/bin/env bash
# Installs every Debian package kiln needs. Idempotent: when everything is present it
# only checks and exits quietly; `apt-get update` runs only when something is missing.
#   scripts/setup.sh          build + test dependencies
#   scripts/setup.sh --fuzz   also clang-19 and its runtime, for the libFuzzer targets
#   scripts/setup.sh --bench  also NumPy, PyTorch, torchvision and Eigen, the references of bench/compare.sh and bench/models.sh
#   scripts/setup.sh --vendor-plugin  also a vendor's PJRT plugin for the tests (make test)
#   scripts/setup.sh --jax    also build/venv: jax, jaxlib and pytest pinned by python/requirements-test.txt (make test)
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config lld
  llvm-19-dev libopenblas-dev libtbb-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libdnnl-dev      # oneDNN: direct convolutions with AVX-512, AVX512-BF16 and AMX kernels
  libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev
  libopenmpi-dev openmpi-bin  # the mpi communicator: multi-process runs under mpirun
  python3-sklearn  # the digits data set of the main job (examples/digits_cnn.cc)
  wamerican        # the word list examples/char_transformer.cc learns from
  xz-utils         # scripts/gpu_archive.sh packs its archive with xz
  python3-venv     # build/venv, where the JAX-facing tests run (--jax)
)
vendor_plugin=0
jax_venv=0
for arg in "$@"; do
  case "$arg" in
    --fuzz) packages+=(clang-19 libclang-rt-19-dev) ;;
    --bench) packages+=(python3-numpy python3-torch python3-torchvision libeigen3-dev) ;;
    --vendor-plugin) vendor_plugin=1 ;;
    --jax) jax_venv=1 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

# A vendor's PJRT plugin, for the loader's test (tests/runtime/pjrt_loader_test.cc): the
# CUDA plugin released with jaxlib 0.10.2, which answers GetPjrtApi without a GPU.
# Downloaded once from PyPI into the build folder's cache (a 174 MB wheel, 480 MB
# unpacked) with --vendor-plugin (make test asks for it); without it the test is skipped.
fetch_vendor_plugin() {
  local cache dir
  cache="$(cd "$(dirname "$0")/.." && pwd)/build/cache"
  dir="$cache/jax_cuda12_pjrt-0.10.2"
  [ -f "$dir/xla_cuda_plugin.so" ] && return 0
  mkdir -p "$cache/wheels" "$dir"
  echo "setup.sh: downloading jax-cuda12-pjrt 0.10.2 (the vendor plugin of the PJRT loader's test)"
  # Pinned by its hash: the tests load this library into their process.
  printf 'jax-cuda12-pjrt==0.10.2 --hash=sha256:%s\n' \
    806d1fd29038b6acf5a2b289dd62192abea977ee26aef60ea295b1d28a23acf8 >"$cache/vendor_plugin.txt"
  if python3 -m pip download -q --no-deps --require-hashes -r "$cache/vendor_plugin.txt" -d "$cache/wheels" &&
     python3 -c 'import sys, zipfile, glob
wheel = glob.glob(sys.argv[1] + "/jax_cuda12_pjrt-0.10.2-*.whl")[0]
with zipfile.ZipFile(wheel) as z, open(sys.argv[2] + "/xla_cuda_plugin.so.part", "wb") as out:
    out.write(z.read("jax_plugins/xla_cuda12/xla_cuda_plugin.so"))' "$cache/wheels" "$dir"; then
    mv "$dir/xla_cuda_plugin.so.part" "$dir/xla_cuda_plugin.so"
    rm -f "$cache"/wheels/jax_cuda12_pjrt-*.whl
  else
    echo "setup.sh: could not fetch jax-cuda12-pjrt; its test will be skipped" >&2
  fi
}
[ "$vendor_plugin" -eq 1 ] && fetch_vendor_plugin

missing=()
for p in "${packages[@]}"; do
  # dpkg-query prints "install ok installed" only for a fully installed package.
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup.sh: done"
fi

# The venv of the JAX-facing tests (python/tests, ctest's jax_plugin): never the system
# Python. Remade when the pins change.
make_jax_venv() {
  local root venv pins
  root="$(cd "$(dirname "$0")/.." && pwd)"
  venv="$root/build/venv"
  pins="$root/python/requirements-test.txt"
  if [ -x "$venv/bin/python" ] && cmp -s "$pins" "$venv/requirements-test.txt"; then return 0; fi
  echo "setup.sh: making build/venv (jax, jaxlib and pytest from PyPI, pinned by python/requirements-test.txt)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$pins"
  cp "$pins" "$venv/requirements-test.txt"
}
[ "$jax_venv" -eq 1 ] && make_jax_venv
exit 0
