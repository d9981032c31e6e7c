/* A plugin of an older minor version of the API (0.3): the cpu plugin's table cut where
   0.3's ended, which fills only 0.3's fields of the structs that grew since. A host must
   neither call what the table lacks nor expect what 0.4 added (capabilities, donation,
   cancellation): it gets an "unsupported" error instead, never a crash. */
#include "cpu_table.h"

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

static KilnError* compile(KilnCompileArgs* args) { AS_OLDER(compile, args, offsetof(KilnCompileArgs, process_entries)); }

static KilnError* info(KilnExecutableInfoArgs* args) {
  AS_OLDER(executable_info, args, offsetof(KilnExecutableInfoArgs, process));
}

static KilnError* valueType(KilnExecutableValueTypeArgs* args) {
  AS_OLDER(executable_value_type, args, offsetof(KilnExecutableValueTypeArgs, process));
}

const KilnPluginApi* kiln_plugin_api(void) {
  if (!cpu) {
    cpu = cpuTable();
    if (!cpu) return NULL;
    table = *cpu;
    table.struct_size = offsetof(KilnPluginApi, execution_cancel);
    table.minor_version = 3;
    table.plugin_attributes = attributes;
    table.execute = execute;
    table.compile = compile;
    table.executable_info = info;
    table.executable_value_type = valueType;
  }
  return &table;
}
