/* What the test plugins that forward to the cpu plugin share: its table, loaded once
   from KILN_CPU_PLUGIN (the path CMake gives them), or NULL when it does not load. */
#ifndef KILN_TESTS_RUNTIME_CPU_TABLE_H_
#define KILN_TESTS_RUNTIME_CPU_TABLE_H_

#include <dlfcn.h>
#include <stddef.h>

#include "kiln/plugin.h"

static const KilnPluginApi* cpuTable(void) {
  static const KilnPluginApi* table;
  if (!table) {
    void* library = dlopen(KILN_CPU_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    KilnPluginApiFn entry;
    if (!library) return NULL;
    *(void**)(&entry) = dlsym(library, KILN_PLUGIN_ENTRY_POINT);
    if (!entry) return NULL;
    table = entry();
  }
  return table;
}

#endif
