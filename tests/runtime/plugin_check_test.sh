#!/usr/bin/env bash
# `kiln plugin-check` passes both plugins and the API 0.3 one (skipping what 0.3 lacks),
# and finds the bugs of the broken ones: fields of the args a plugin ignores though its
# version has them (a FAIL, exit 1), a capability listed but not honoured (a FAIL),
# and a crash (named, exit 1). `kiln plugin-check --pjrt` passes both plugins through
# PJRT's table and finds the faults of the broken PJRT plugins: a NULL entry, a wrong
# result, a hang.
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
expect cpu 0 '33 passed, 0 failed, 0 skipped' cpu
expect interp 0 '32 passed, 0 failed, 1 skipped' interp
expect oldminor 0 '21 passed, 0 failed, 12 skipped' "$other/libkiln_plugin_oldminor.so"
expect liar 1 'FAIL  time_limit_ns: an endless execution stops: still running 10 s past its time limit' \
  "$other/libkiln_plugin_liar.so"
expect liar 1 'FAIL  donation: the execution takes the buffer over: executing on a donated buffer: succeeded' \
  "$other/libkiln_plugin_liar.so"
expect crashy 1 'CRASH null args: every function returns an error object: the plugin raised signal' \
  "$other/libkiln_plugin_crashy.so"
expect pjrt_cpu 0 '21 passed, 0 failed, 0 skipped' cpu --pjrt
expect pjrt_interp 0 '21 passed, 0 failed, 0 skipped' interp --pjrt
expect pjrt_null_entry 1 'FAIL  the table: .*NULL entries inside the table.s struct_size .*: PJRT_Buffer_IsDeleted' \
  "$other/libpjrt_null_entry.so" --pjrt
expect pjrt_liar 1 'FAIL  a buffer of f32 in and out: the bytes that came back differ' "$other/libpjrt_liar.so" --pjrt
expect pjrt_hang 1 'HANG  compile and run an elementwise program, against kiln.s interpreter: no answer after 5 s' \
  "$other/libpjrt_hang.so" --pjrt --hang-seconds 5
[ $status -eq 0 ] && echo "plugin_check ok"
exit $status
