/* PJRT plugins built from this file over the cpu plugin's PJRT table: four with faults
   that `kiln plugin-check` must find (pjrt_null_entry leaves an entry NULL inside its
   struct_size, pjrt_liar corrupts the first byte of every copy to the host once it is
   done, pjrt_hang never returns from an execution, pjrt_crashy reads the args of
   PJRT_Client_Devices without checking them for NULL), and pjrt_plain, which hides the
   kiln extension: a plugin with PJRT's core table only, as another vendor's. */
#include <dlfcn.h>
#include <stddef.h>
#include <unistd.h>

#include "kiln/pjrt/c_api.h"

static const PJRT_Api* cpu;
static PJRT_Api table;

#if defined(KILN_PJRT_LIAR)
static PJRT_Error* toHost(PJRT_Buffer_ToHostBuffer_Args* args) {
  PJRT_Error* error = cpu->PJRT_Buffer_ToHostBuffer(args);
  if (error || !args->dst || args->dst_size == 0) return error;
  /* Waits for the copy (the caller's own event stays ready), then breaks it. */
  PJRT_Event_Await_Args await = {PJRT_Event_Await_Args_STRUCT_SIZE, NULL, args->event};
  if ((error = cpu->PJRT_Event_Await(&await))) return error;
  ((unsigned char*)args->dst)[0] ^= 0x40;
  return NULL;
}
#elif defined(KILN_PJRT_HANG)
static PJRT_Error* execute(PJRT_LoadedExecutable_Execute_Args* args) {
  (void)args;
  for (;;) sleep(1);
  return NULL;
}
#elif defined(KILN_PJRT_CRASHY)
static PJRT_Error* devices(PJRT_Client_Devices_Args* args) {
  if (args->struct_size == 12345) return NULL; /* the bug: args may be NULL */
  return cpu->PJRT_Client_Devices(args);
}
#endif

const PJRT_Api* GetPjrtApi(void) {
  if (!cpu) {
    void* library = dlopen(KILN_CPU_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    const PJRT_Api* (*entry)(void);
    if (!library) return NULL;
    *(void**)(&entry) = dlsym(library, "GetPjrtApi");
    if (!entry || !(cpu = entry())) return NULL;
    table = *cpu;
#if defined(KILN_PJRT_LIAR)
    table.PJRT_Buffer_ToHostBuffer = toHost;
#elif defined(KILN_PJRT_HANG)
    table.PJRT_LoadedExecutable_Execute = execute;
#elif defined(KILN_PJRT_CRASHY)
    table.PJRT_Client_Devices = devices;
#elif defined(KILN_PJRT_PLAIN)
    table.extension_start = NULL;
#else
    table.PJRT_Buffer_IsDeleted = NULL;
#endif
  }
  return &table;
}
