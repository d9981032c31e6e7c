#!/bin/bash
# A plugin exports its entry point, PJRT's GetPjrtApi, and nothing else (the version
# script): the copy of kiln inside it must never bind to another plugin's or to the host's.
# Usage: exports_test.sh PLUGIN.so...
status=0
for plugin in "$@"; do
  exported=$(nm -D --defined-only "$plugin" | awk '{print $3}' | sort | tr '\n' ' ')
  if [ "$exported" != "GetPjrtApi " ]; then
    echo "FAIL $plugin exports: $exported"
    status=1
  fi
done
[ $status -eq 0 ] && echo "exports ok"
exit $status
