#!/usr/bin/env bash
# Packs what scripts/gpu_check.sh needs to check a PJRT plugin on a machine without
# Debian's packages: the kiln tool and the C++ digits job (stripped), every shared library
# they load (the dynamic loader and libc included, so that they run on another
# distribution's older glibc), the digits data, and gpu_check.sh itself. The archive must
# stay within 64 MiB.
#   scripts/gpu_archive.sh [BUILD_DIR [OUT.tar.xz]]
set -euo pipefail
build=$(realpath "${1:-build}")
out=$(realpath -m "${2:-$build/kiln-gpu-check.tar.xz}")
here=$(cd "$(dirname "$0")" && pwd)
data=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz  # python3-sklearn (scripts/setup.sh)
limit=$((64 * 1024 * 1024))

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/kiln-gpu-check
mkdir -p "$root/bin" "$root/lib" "$root/data"
for program in tools/kiln examples/digits_cnn; do
  [ -x "$build/$program" ] || { echo "gpu_archive: $build/$program is not built (make build)" >&2; exit 1; }
  strip -o "$root/bin/$(basename "$program")" "$build/$program"
done
# Each library as ldd resolves it ("name => /path (addr)"), and the loader ("/lib64/... (addr)").
for program in "$root"/bin/*; do
  ldd "$program" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'
done | sort -u | while read -r library; do cp -L "$library" "$root/lib/"; done
[ -f "$data" ] || { echo "gpu_archive: no $data (python3-sklearn: scripts/setup.sh)" >&2; exit 1; }
cp "$data" "$root/data/"
cp "$here/gpu_check.sh" "$root/"
tar -C "$stage" -cf - kiln-gpu-check | xz -6 -T2 > "$out"
size=$(stat -c %s "$out")
echo "gpu_archive: $out, $((size / 1024)) KiB ($(ls "$root/lib" | wc -l) libraries)"
if [ "$size" -gt "$limit" ]; then
  echo "gpu_archive: $size bytes, over the 64 MiB limit" >&2
  exit 1
fi
