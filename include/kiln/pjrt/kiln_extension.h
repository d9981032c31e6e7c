/* What kiln's plugins offer beyond PJRT's core table: one versioned extension, found on
   the chain that starts at PJRT_Api.extension_start (PJRT_Extension_Base: struct_size,
   type, next) by its type, KILN_PJRT_EXTENSION_TYPE. A client that does not know it
   skips it; a plugin without it still runs everything PJRT's core table allows, and
   kiln's client names the feature that is missing.

   Where each of kiln's capabilities lives (docs/pjrt.md has the whole map):
     - client options (devices, memory limit, communicator, collective timeout, inline
       execution, infeed when empty): PJRT_Client_Create's create_options;
     - compile options (entry, optimization, dump folder, the program's name, the
       functions of MPMD processes, kiln's named options): env_option_overrides of the
       compile options, named kiln.entry, kiln.optimization, kiln.dump_dir,
       kiln.source_name, kiln.process_entries (comma-separated), or by kiln's own name;
     - memory statistics, serialization, cost analysis, donation: PJRT's core table;
     - execution labels, time limits, print callbacks, per-device argument counts,
       cancellation, statistics, texts (the pipeline's report, interpreter fallbacks,
       profiles with source lines), another entry of a compiled module, infeed and
       outfeed, deserializing with the source text: this extension.

   Plain C11, like the PJRT header it extends. */
#ifndef KILN_PJRT_KILN_EXTENSION_H
#define KILN_PJRT_KILN_EXTENSION_H

#include <string.h>

#include "kiln/pjrt/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The extension's type: far outside PJRT's own extension types ("kiln" in ASCII). An int,
   not a PJRT_Extension_Type: C++ may not hold a value outside an enum's enumerators in
   the enum, so the field is read and written as the int it is (memcpy). */
#define KILN_PJRT_EXTENSION_TYPE 0x6b696c6e
#define KILN_PJRT_EXTENSION_VERSION 1

/* PJRT_LoadedExecutable_Execute with kiln's controls. */
typedef struct KILN_Execute_Args {
  size_t struct_size;
  PJRT_LoadedExecutable_Execute_Args* execute;
  /* What a failure of this execution's own run is prefixed with ("file.cc:12:5"); NULL: none. */
  const char* label;
  /* Once the execution has run this long (nanoseconds) it stops at its next loop iteration
     or collective and fails ("time limit exceeded"). 0: no limit. */
  int64_t time_limit_ns;
  /* Where the program's prints go (NULL: the plugin's standard output), one at a time, on
     the threads that run it; print_release(print_user) once it will print no more. */
  void (*print)(void* user, const char* text, size_t size);
  void* print_user;
  void (*print_release)(void* user);
  /* [num_devices] argument counts for an executable whose processes run different
     functions (kiln.process_entries); NULL: execute's num_args on every device. */
  const size_t* num_args_per_device;
} KILN_Execute_Args;

/* Stops the execution whose completion event this is, at its next loop iteration or
   collective; its events then fail with CANCELLED. Nothing for one that has finished. */
typedef struct KILN_Event_Cancel_Args {
  size_t struct_size;
  PJRT_Event* event;
} KILN_Event_Cancel_Args;

/* What the executable did so far, by name (native kernels, BLAS calls, interpreter
   fallbacks, compile seconds...): valid until the next call for this handle or its
   destruction (so one handle is not asked from two threads at once; each
   PJRT_LoadedExecutable_GetExecutable gives a handle of its own). */
typedef struct KILN_Executable_Statistics_Args {
  size_t struct_size;
  PJRT_Executable* executable;
  const PJRT_NamedValue* values; /* out: each a kFloat */
  size_t num_values;             /* out */
} KILN_Executable_Statistics_Args;

/* A text about the executable by name ("program", "report", "fallbacks", "profile"); an
   INVALID_ARGUMENT error naming the texts it has when it has none of that name. */
typedef struct KILN_Executable_Text_Args {
  size_t struct_size;
  PJRT_Executable* executable;
  const char* name;
  const char* text; /* out: valid until the next call for this handle or its destruction */
  size_t text_size; /* out */
} KILN_Executable_Text_Args;

/* The function one process runs (they differ between processes only under
   kiln.process_entries): its name, and its parameters' and results' element types (TOKEN
   for a token) and dims, all valid until the next call for this handle or its
   destruction. PJRT's core table tells only the outputs, of process 0. */
typedef struct KILN_Executable_Signature_Args {
  size_t struct_size;
  PJRT_Executable* executable;
  size_t process;
  const char* function;                    /* out */
  size_t function_size;                    /* out */
  size_t num_parameters;                   /* out */
  const PJRT_Buffer_Type* parameter_types; /* out */
  const size_t* parameter_ranks;           /* out */
  const int64_t* parameter_dims;           /* out: every parameter's dims, one after another */
  size_t num_results;                      /* out */
  const PJRT_Buffer_Type* result_types;    /* out */
  const size_t* result_ranks;              /* out */
  const int64_t* result_dims;              /* out */
} KILN_Executable_Signature_Args;

/* The same compiled module entered at another public function. */
typedef struct KILN_LoadedExecutable_WithEntry_Args {
  size_t struct_size;
  PJRT_LoadedExecutable* executable;
  const char* entry;
  PJRT_LoadedExecutable* entry_executable; /* out */
} KILN_LoadedExecutable_WithEntry_Args;

/* A value for the device's infeed, which its programs' infeed ops take in order. */
typedef struct KILN_Device_Infeed_Args {
  size_t struct_size;
  PJRT_Device* device;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  const void* data;
} KILN_Device_Infeed_Args;

/* The next value the device's programs put to its outfeed, into dst once it is there. */
typedef struct KILN_Device_Outfeed_Args {
  size_t struct_size;
  PJRT_Device* device;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  void* dst;
  size_t dst_size;
  PJRT_Event* event; /* out */
} KILN_Device_Outfeed_Args;

/* PJRT_Executable_DeserializeAndLoad, with the text the program was compiled from, so
   that its runtime errors show the line they point at. */
typedef struct KILN_Executable_DeserializeWithSource_Args {
  size_t struct_size;
  PJRT_Client* client;
  const char* serialized_executable;
  size_t serialized_executable_size;
  const char* source_name;
  const char* source;
  size_t source_size;
  PJRT_LoadedExecutable* loaded_executable; /* out */
} KILN_Executable_DeserializeWithSource_Args;

typedef struct KILN_Extension {
  PJRT_Extension_Base base; /* its type: KILN_PJRT_EXTENSION_TYPE */
  int version;              /* KILN_PJRT_EXTENSION_VERSION: entries are only added at the end */
  PJRT_Error* (*execute)(KILN_Execute_Args* args);
  PJRT_Error* (*event_cancel)(KILN_Event_Cancel_Args* args);
  PJRT_Error* (*executable_statistics)(KILN_Executable_Statistics_Args* args);
  PJRT_Error* (*executable_text)(KILN_Executable_Text_Args* args);
  PJRT_Error* (*loaded_executable_with_entry)(KILN_LoadedExecutable_WithEntry_Args* args);
  PJRT_Error* (*device_infeed)(KILN_Device_Infeed_Args* args);
  PJRT_Error* (*device_outfeed)(KILN_Device_Outfeed_Args* args);
  PJRT_Error* (*executable_deserialize_with_source)(KILN_Executable_DeserializeWithSource_Args* args);
  PJRT_Error* (*executable_signature)(KILN_Executable_Signature_Args* args);
} KILN_Extension;

/* The kiln extension of a plugin's table, or NULL when it has none. */
static inline const KILN_Extension* kiln_pjrt_extension(const PJRT_Api* api) {
  const PJRT_Extension_Base* e = api->extension_start;
  for (; e; e = e->next) {
    int type;
    memcpy(&type, &e->type, sizeof type);
    if (type == KILN_PJRT_EXTENSION_TYPE) return (const KILN_Extension*)e;
  }
  return NULL;
}

#ifdef __cplusplus
}
#endif

#endif  // KILN_PJRT_KILN_EXTENSION_H
