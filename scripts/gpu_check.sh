#!/usr/bin/env bash
# Checks a PJRT plugin with kiln on the machine it serves (a GPU vendor's, e.g. jaxlib's
# xla_cuda_plugin.so): `kiln plugin-check PLUGIN`, then the C++ digits job (the main job)
# trained through it. Runs from the archive scripts/gpu_archive.sh makes (bin/, lib/ with
# its own loader and libc, data/), unpacked on a machine without Debian's packages, or
# from a build tree (KILN_BUILD, default ../build). Exit 0 when both pass.
#   gpu_check.sh PLUGIN.so          (EPOCHS=N: the digits job's epochs, default 20)
set -u
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
  echo "usage: gpu_check.sh PATH/plugin.so (a PJRT plugin: one that exports GetPjrtApi)" >&2
  exit 2
fi
plugin=$(realpath "$1")
epochs=${EPOCHS:-20}
here=$(cd "$(dirname "$0")" && pwd)
if [ -x "$here/bin/kiln" ]; then
  launch=("$here/lib/ld-linux-x86-64.so.2" --library-path "$here/lib")
  kiln=$here/bin/kiln digits=$here/bin/digits_cnn data=$here/data/digits.csv.gz
else
  build=${KILN_BUILD:-$here/../build}
  launch=()
  kiln=$build/tools/kiln digits=$build/examples/digits_cnn
  data=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
fi
start=$(date +%s)
echo "== kiln plugin-check $plugin"
timeout 300 "${launch[@]}" "$kiln" plugin-check "$plugin" --hang-seconds 60
check=$?
echo "== the digits job ($epochs epochs) through $plugin"
KILN_CACHE_DIR=off KILN_BACKEND=$plugin timeout 280 "${launch[@]}" "$digits" --data "$data" --epochs "$epochs"
job=$?
echo "gpu_check: plugin-check exit $check, digits job exit $job, $(($(date +%s) - start)) s"
[ $check -eq 0 ] && [ $job -eq 0 ]
