#!/bin/bash
# A plugin exports its entry points and nothing else (the version script): the copy of
# kiln inside it must never bind to another plugin's or to the host's. Two while the
# runtime moves from kiln's ABI to PJRT's: GetPjrtApi and kiln_plugin_api.
# Usage: exports_test.sh PLUGIN.so...
status=0
for plugin in "$@"; do
  exported=$(nm -D --defined-only "$plugin" | awk '{print $3}' | sort | tr '\n' ' ')
  if [ "$exported" != "GetPjrtApi kiln_plugin_api " ]; then
    echo "FAIL $plugin exports: $exported"
    status=1
  fi
done
[ $status -eq 0 ] && echo "exports ok"
exit $status
