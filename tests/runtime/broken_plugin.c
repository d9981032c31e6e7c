/* Plugins with bugs that `kiln plugin-check` must find, built from this file twice over
   the cpu plugin's table: libkiln_plugin_liar.so lists the donation capability but reads
   execute's args as API 0.3 did (it ignores donated_args and time_limit_ns), and
   libkiln_plugin_crashy.so dereferences a null args pointer in buffer_info. */
#include "cpu_table.h"

static const KilnPluginApi* cpu;
static KilnPluginApi table;

#ifdef KILN_BROKEN_LIAR
static KilnError* execute(KilnExecuteArgs* args) {
  size_t given = args ? args->struct_size : 0;
  KilnError* error;
  if (args && given > offsetof(KilnExecuteArgs, donated_args)) args->struct_size = offsetof(KilnExecuteArgs, donated_args);
  error = cpu->execute(args);
  if (args) args->struct_size = given;
  return error;
}
#else
static KilnError* bufferInfo(KilnBufferInfoArgs* args) {
  volatile size_t size = args->struct_size; /* the bug: args may be NULL */
  (void)size;
  return cpu->buffer_info(args);
}
#endif

const KilnPluginApi* kiln_plugin_api(void) {
  if (!cpu) {
    cpu = cpuTable();
    if (!cpu) return NULL;
    table = *cpu;
#ifdef KILN_BROKEN_LIAR
    table.execute = execute;
#else
    table.buffer_info = bufferInfo;
#endif
  }
  return &table;
}
