#!/usr/bin/env bash
# `kiln plugin-check` passes both plugins through PJRT's table, and the cpu plugin with
# its kiln extension hidden (skipping the extension's checks), and finds the faults of
# the broken PJRT plugins (pjrt_broken_plugin.c): a NULL entry, a wrong result, a hang,
# a crash (each named, exit 1).
#   plugin_check_test.sh KILN OTHER_PLUGINS_DIR
set -u
kiln=$1 other=$2
status=0
expect() {  # expect NAME EXIT PATTERN PLUGIN [FLAGS...]
  local out code flags=("${@:5}")
  [[ " ${flags[*]-} " == *" --hang-seconds "* ]] || flags+=(--hang-seconds 60)
  out=$("$kiln" plugin-check "$4" "${flags[@]}" 2>&1)
  code=$?
  if [ "$code" != "$2" ] || ! grep -q -- "$3" <<<"$out"; then
    echo "$1: exit $code (expected $2), output without '$3':"
    echo "$out"
    status=1
  fi
}
expect cpu 0 '29 passed, 0 failed, 0 skipped' cpu
expect interp 0 '29 passed, 0 failed, 0 skipped' interp
expect plain 0 '24 passed, 0 failed, 5 skipped' "$other/libpjrt_plain.so"
expect plain 0 'SKIP  kiln extension: cancellation stops a running execution: the plugin has no kiln extension' \
  "$other/libpjrt_plain.so"
expect null_entry 1 'FAIL  the table: .*NULL entries inside the table.s struct_size .*: PJRT_Buffer_IsDeleted' \
  "$other/libpjrt_null_entry.so"
expect liar 1 'FAIL  a buffer of f32 in and out: the bytes that came back differ' "$other/libpjrt_liar.so"
expect hang 1 'HANG  compile and run an elementwise program, against kiln.s interpreter: no answer after 5 s' \
  "$other/libpjrt_hang.so" --hang-seconds 5
expect crashy 1 'CRASH misuse is answered with error objects .*: the plugin raised signal' "$other/libpjrt_crashy.so"
[ $status -eq 0 ] && echo "plugin_check ok"
exit $status
