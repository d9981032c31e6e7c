/* A plugin of an older minor version of the API (0.3): the cpu plugin's table cut where
   0.3's ended, which fills only 0.3's fields of the structs that grew since. A host must
   neither call what the table lacks nor expect what 0.4 added (capabilities, donation,
   cancellation): it gets an "unsupported" error instead, never a crash. */
#include <dlfcn.h>
#include <stddef.h>

#include "kiln/plugin.h"

static const KilnPluginApi* cpu;
static KilnPluginApi table;

/* Calls `fn` with the caller's args seen as 0.3's struct of `size` bytes. */
#define AS_OLDER(fn, args, size)                                       \
  do {                                                                 \
    size_t given = (args) ? (args)->struct_size : 0;                   \
    KilnError* error;                                                  \
    if ((args) && given > (size)) (args)->struct_size = (size);        \
    error = cpu->fn(args);                                             \
    if (args) (args)->struct_size = given;                             \
    return error;                                                      \
  } while (0)

static KilnError* attributes(KilnPluginAttributesArgs* args) {
  AS_OLDER(plugin_attributes, args, offsetof(KilnPluginAttributesArgs, capabilities));
}

static KilnError* execute(KilnExecuteArgs* args) { AS_OLDER(execute, args, offsetof(KilnExecuteArgs, donated_args)); }

const KilnPluginApi* kiln_plugin_api(void) {
  if (!cpu) {
    void* library = dlopen(KILN_CPU_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    KilnPluginApiFn entry;
    if (!library) return NULL;
    *(void**)(&entry) = dlsym(library, KILN_PLUGIN_ENTRY_POINT);
    if (!entry) return NULL;
    cpu = entry();
    table = *cpu;
    table.struct_size = offsetof(KilnPluginApi, execution_cancel);
    table.minor_version = 3;
    table.plugin_attributes = attributes;
    table.execute = execute;
  }
  return &table;
}
