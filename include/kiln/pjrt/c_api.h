/* PJRT's C ABI, as kiln declares it.

   PJRT is the contract between a framework (JAX, TensorFlow, PyTorch/XLA, kiln's own
   client) and a device's plugin: the plugin is a shared library that exports one function,
   GetPjrtApi, returning a table of functions; every function takes one struct of arguments
   whose first field, struct_size, says how much of the struct the caller knows.

   These are the layouts of PJRT C API version 0.112: openxla/xla's
   xla/pjrt/c/pjrt_c_api.h at the XLA commit that jax and jaxlib 0.10.2 (the newest that
   install for the project machine's Python 3.11) were built from. A framework accepts a plugin of an older
   minor version and gates what it calls by it, so kiln declares no newer minor than the
   jaxlib it is tested with. Every struct's size and field offsets are checked against the
   published header's numbers by tests/runtime/pjrt_layout_test.c.

   Names and semantics are PJRT's (its header and CHANGELOG.md are the reference; kiln
   adds only the KILN_* macros). A field marked "out" is written by the callee. Plain C11:
   a C client compiles against this header alone. */
#ifndef KILN_PJRT_C_API_H
#define KILN_PJRT_C_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PJRT_API_MAJOR 0
#define PJRT_API_MINOR 112

// The bytes of `type` up to the end of `last_field`: what a caller of this version puts
// in struct_size. A callee reads only the fields inside the struct_size it is given.
#define PJRT_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))
#define KILN_PJRT_STRUCT_SIZE(type, last_field) \
  enum { type##_STRUCT_SIZE = PJRT_STRUCT_SIZE(type, last_field) }

#ifdef __cplusplus
extern "C" {
#endif

// ---- Extensions: a chain of versioned structs, each with a type, hung off any struct.

typedef enum {
  PJRT_Extension_Type_Gpu_Custom_Call = 0,
  PJRT_Extension_Type_Profiler,
  PJRT_Extension_Type_Custom_Partitioner,
  PJRT_Extension_Type_Stream,
  PJRT_Extension_Type_Layouts,
  PJRT_Extension_Type_FFI,
  PJRT_Extension_Type_MemoryDescriptions,
  PJRT_Extension_Type_Triton,
  PJRT_Extension_Type_RawBuffer,
  PJRT_Extension_Type_PhaseCompile,
  PJRT_Extension_Type_Example,
  PJRT_Extension_Type_Unknown,
  PJRT_Extension_Type_CrossHostTransfers,
  PJRT_Extension_Type_ExecutableMetadata,
  PJRT_Extension_Type_Callback,
  PJRT_Extension_Type_HostAllocator,
  PJRT_Extension_Type_TpuTopology,
  PJRT_Extension_Type_TpuExecutable,
  PJRT_Extension_Type_Megascale,
  PJRT_Extension_Type_Shardings,
  PJRT_Extension_Type_AbiVersion,
  PJRT_Extension_Type_Collectives,
  PJRT_Extension_Type_MultiSlice,
  PJRT_Extension_Type_HostMemoryAllocator,
  PJRT_Extension_Type_XlaTransform,
} PJRT_Extension_Type;

typedef struct PJRT_Extension_Base {
  size_t struct_size;
  PJRT_Extension_Type type;
  struct PJRT_Extension_Base* next;
} PJRT_Extension_Base;
KILN_PJRT_STRUCT_SIZE(PJRT_Extension_Base, next);

// ---- Version: the plugin reports the major and minor version of the header it was built with.

struct PJRT_Api_Version {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  int major_version;  // out
  int minor_version;  // out
};
typedef struct PJRT_Api_Version PJRT_Api_Version;
KILN_PJRT_STRUCT_SIZE(PJRT_Api_Version, minor_version);

// ---- Errors: every call returns NULL or an error the caller destroys. An error starts with a
// table of its own functions, so that an error made by one side can be read and destroyed by the
// other.

typedef struct PJRT_Error PJRT_Error;
struct PJRT_Error_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Error* error;
};
typedef struct PJRT_Error_Destroy_Args PJRT_Error_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Error_Destroy_Args, error);

typedef void PJRT_Error_Destroy(PJRT_Error_Destroy_Args* args);

struct PJRT_Error_Message_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  const char* message;  // out
  size_t message_size;  // out
};
typedef struct PJRT_Error_Message_Args PJRT_Error_Message_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Error_Message_Args, message_size);

typedef void PJRT_Error_Message(PJRT_Error_Message_Args* args);

typedef enum {
  PJRT_Error_Code_OK = 0,
  PJRT_Error_Code_CANCELLED = 1,
  PJRT_Error_Code_UNKNOWN = 2,
  PJRT_Error_Code_INVALID_ARGUMENT = 3,
  PJRT_Error_Code_DEADLINE_EXCEEDED = 4,
  PJRT_Error_Code_NOT_FOUND = 5,
  PJRT_Error_Code_ALREADY_EXISTS = 6,
  PJRT_Error_Code_PERMISSION_DENIED = 7,
  PJRT_Error_Code_RESOURCE_EXHAUSTED = 8,
  PJRT_Error_Code_FAILED_PRECONDITION = 9,
  PJRT_Error_Code_ABORTED = 10,
  PJRT_Error_Code_OUT_OF_RANGE = 11,
  PJRT_Error_Code_UNIMPLEMENTED = 12,
  PJRT_Error_Code_INTERNAL = 13,
  PJRT_Error_Code_UNAVAILABLE = 14,
  PJRT_Error_Code_DATA_LOSS = 15,
  PJRT_Error_Code_UNAUTHENTICATED = 16,
} PJRT_Error_Code;

typedef void (*PJRT_Error_PayloadVisitor)(const char* key, size_t key_size, const char* value,
                                          size_t value_size, void* user_arg);
typedef struct PJRT_Error_FunctionTable {
  size_t struct_size;
  size_t instance_size;
  PJRT_Extension_Base* extension_start;
  void (*destroy)(PJRT_Error* error);
  void (*message)(const PJRT_Error* error, const char** message, size_t* message_size);
  PJRT_Error_Code (*get_code)(const PJRT_Error* error);
  void (*for_each_payload)(const PJRT_Error* error, PJRT_Error_PayloadVisitor visitor,
                           void* user_arg);
} PJRT_Error_FunctionTable;
KILN_PJRT_STRUCT_SIZE(PJRT_Error_FunctionTable, for_each_payload);

struct PJRT_Error {
  const struct PJRT_Error_FunctionTable* vtable;
};
KILN_PJRT_STRUCT_SIZE(PJRT_Error, vtable);

struct PJRT_Error_GetCode_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  PJRT_Error_Code code;  // out
};
typedef struct PJRT_Error_GetCode_Args PJRT_Error_GetCode_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Error_GetCode_Args, code);

typedef PJRT_Error* PJRT_Error_GetCode(PJRT_Error_GetCode_Args* args);

struct PJRT_Error_ForEachPayload_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  PJRT_Error_PayloadVisitor visitor;
  void* user_arg;
};
typedef struct PJRT_Error_ForEachPayload_Args PJRT_Error_ForEachPayload_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Error_ForEachPayload_Args, user_arg);

typedef PJRT_Error* PJRT_Error_ForEachPayload(PJRT_Error_ForEachPayload_Args* args);

typedef PJRT_Error* (*PJRT_CallbackError)(PJRT_Error_Code code, const char* message,
                                          size_t message_size);

// ---- Named values: typed key-value pairs (options and attributes).

typedef enum {
  PJRT_NamedValue_kString = 0,
  PJRT_NamedValue_kInt64,
  PJRT_NamedValue_kInt64List,
  PJRT_NamedValue_kFloat,
  PJRT_NamedValue_kBool,
} PJRT_NamedValue_Type;

struct PJRT_NamedValue {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* name;
  size_t name_size;
  PJRT_NamedValue_Type type;
  union {
    const char* string_value;
    int64_t int64_value;
    const int64_t* int64_array_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size;
};
typedef struct PJRT_NamedValue PJRT_NamedValue;
KILN_PJRT_STRUCT_SIZE(PJRT_NamedValue, value_size);

// ---- Plugin: one-time initialization and the plugin's attributes.

struct PJRT_Plugin_Initialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
};
typedef struct PJRT_Plugin_Initialize_Args PJRT_Plugin_Initialize_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Plugin_Initialize_Args, extension_start);

typedef PJRT_Error* PJRT_Plugin_Initialize(PJRT_Plugin_Initialize_Args* args);

struct PJRT_Plugin_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* attributes;  // out
  size_t num_attributes;              // out
};
typedef struct PJRT_Plugin_Attributes_Args PJRT_Plugin_Attributes_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Plugin_Attributes_Args, num_attributes);

typedef PJRT_Error* PJRT_Plugin_Attributes(PJRT_Plugin_Attributes_Args* args);

// ---- Events: completion of asynchronous work, with its error.

typedef struct PJRT_Event PJRT_Event;
struct PJRT_Event_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
};
typedef struct PJRT_Event_Destroy_Args PJRT_Event_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Event_Destroy_Args, event);

typedef PJRT_Error* PJRT_Event_Destroy(PJRT_Event_Destroy_Args* args);

struct PJRT_Event_IsReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  bool is_ready;  // out
};
typedef struct PJRT_Event_IsReady_Args PJRT_Event_IsReady_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Event_IsReady_Args, is_ready);

typedef PJRT_Error* PJRT_Event_IsReady(PJRT_Event_IsReady_Args* args);

struct PJRT_Event_Error_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
};
typedef struct PJRT_Event_Error_Args PJRT_Event_Error_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Event_Error_Args, event);

typedef PJRT_Error* PJRT_Event_Error(PJRT_Event_Error_Args* args);

struct PJRT_Event_Await_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
};
typedef struct PJRT_Event_Await_Args PJRT_Event_Await_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Event_Await_Args, event);

typedef PJRT_Error* PJRT_Event_Await(PJRT_Event_Await_Args* args);

typedef void (*PJRT_Event_OnReadyCallback)(PJRT_Error* error, void* user_arg);
struct PJRT_Event_OnReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  PJRT_Event_OnReadyCallback callback;
  void* user_arg;
};
typedef struct PJRT_Event_OnReady_Args PJRT_Event_OnReady_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Event_OnReady_Args, user_arg);

typedef PJRT_Error* PJRT_Event_OnReady(PJRT_Event_OnReady_Args* args);

struct PJRT_Event_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;  // out
};
typedef struct PJRT_Event_Create_Args PJRT_Event_Create_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Event_Create_Args, event);

typedef PJRT_Error* PJRT_Event_Create(PJRT_Event_Create_Args* args);

struct PJRT_Event_Set_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
};
typedef struct PJRT_Event_Set_Args PJRT_Event_Set_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Event_Set_Args, error_message_size);

typedef PJRT_Error* PJRT_Event_Set(PJRT_Event_Set_Args* args);

// ---- Client: devices, memories, compilation and buffers from host data.

typedef struct PJRT_Client PJRT_Client;
typedef struct PJRT_Device PJRT_Device;
typedef struct PJRT_Memory PJRT_Memory;
typedef struct PJRT_Memory_FunctionTable PJRT_Memory_FunctionTable;
struct PJRT_Memory_FunctionTable {
  size_t struct_size;
  struct PJRT_Extension_Base* extension_start;
  size_t instance_struct_size;
  void* (*get_user_data)(struct PJRT_Memory* memory, const void* key);
  void (*set_user_data)(struct PJRT_Memory* memory, const void* key, void* data,
                        void (*dtor)(void*));
};
KILN_PJRT_STRUCT_SIZE(PJRT_Memory_FunctionTable, set_user_data);

struct PJRT_Memory {
  const struct PJRT_Memory_FunctionTable* vtable;
};
KILN_PJRT_STRUCT_SIZE(PJRT_Memory, vtable);

typedef struct PJRT_ShapeSpec PJRT_ShapeSpec;
typedef struct PJRT_DeviceDescription PJRT_DeviceDescription;
typedef struct PJRT_TopologyDescription PJRT_TopologyDescription;
typedef struct PJRT_Executable PJRT_Executable;
typedef struct PJRT_LoadedExecutable PJRT_LoadedExecutable;
typedef struct PJRT_Buffer PJRT_Buffer;
typedef struct PJRT_FulfillAliasBufferCallback PJRT_FulfillAliasBufferCallback;
typedef struct PJRT_AsyncHostToDeviceTransferManager PJRT_AsyncHostToDeviceTransferManager;
typedef struct PJRT_PhaseCompiler PJRT_PhaseCompiler;
typedef void (*PJRT_KeyValueGetCallback_ValueDeleter)(char* value);
struct PJRT_KeyValueGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  int timeout_in_ms;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;                                                   // out
  size_t value_size;                                             // out
  PJRT_KeyValueGetCallback_ValueDeleter value_deleter_callback;  // out
};
typedef struct PJRT_KeyValueGetCallback_Args PJRT_KeyValueGetCallback_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_KeyValueGetCallback_Args, value_deleter_callback);

typedef PJRT_Error* (*PJRT_KeyValueGetCallback)(PJRT_KeyValueGetCallback_Args* args);
typedef void (*PJRT_KeyValueTryGetCallback_ValueDeleter)(char* value);
struct PJRT_KeyValueTryGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;                                                      // out
  size_t value_size;                                                // out
  PJRT_KeyValueTryGetCallback_ValueDeleter value_deleter_callback;  // out
};
typedef struct PJRT_KeyValueTryGetCallback_Args PJRT_KeyValueTryGetCallback_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_KeyValueTryGetCallback_Args, value_deleter_callback);

typedef PJRT_Error* (*PJRT_KeyValueTryGetCallback)(PJRT_KeyValueTryGetCallback_Args* args);
struct PJRT_KeyValuePutCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  const char* value;
  size_t value_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
};
typedef struct PJRT_KeyValuePutCallback_Args PJRT_KeyValuePutCallback_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_KeyValuePutCallback_Args, user_arg);

typedef PJRT_Error* (*PJRT_KeyValuePutCallback)(PJRT_KeyValuePutCallback_Args* args);
struct PJRT_Client_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* create_options;
  size_t num_options;
  PJRT_KeyValueGetCallback kv_get_callback;
  void* kv_get_user_arg;
  PJRT_KeyValuePutCallback kv_put_callback;
  void* kv_put_user_arg;
  PJRT_Client* client;  // out
  PJRT_KeyValueTryGetCallback kv_try_get_callback;
  void* kv_try_get_user_arg;
};
typedef struct PJRT_Client_Create_Args PJRT_Client_Create_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, kv_try_get_user_arg);

typedef PJRT_Error* PJRT_Client_Create(PJRT_Client_Create_Args* args);

struct PJRT_Client_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
};
typedef struct PJRT_Client_Destroy_Args PJRT_Client_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_Destroy_Args, client);

typedef PJRT_Error* PJRT_Client_Destroy(PJRT_Client_Destroy_Args* args);

struct PJRT_Client_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_name;  // out
  size_t platform_name_size;  // out
};
typedef struct PJRT_Client_PlatformName_Args PJRT_Client_PlatformName_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_PlatformName_Args, platform_name_size);

typedef PJRT_Error* PJRT_Client_PlatformName(PJRT_Client_PlatformName_Args* args);

struct PJRT_Client_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int process_index;  // out
};
typedef struct PJRT_Client_ProcessIndex_Args PJRT_Client_ProcessIndex_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_ProcessIndex_Args, process_index);

typedef PJRT_Error* PJRT_Client_ProcessIndex(PJRT_Client_ProcessIndex_Args* args);

struct PJRT_Client_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_version;  // out
  size_t platform_version_size;  // out
};
typedef struct PJRT_Client_PlatformVersion_Args PJRT_Client_PlatformVersion_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_PlatformVersion_Args, platform_version_size);

typedef PJRT_Error* PJRT_Client_PlatformVersion(PJRT_Client_PlatformVersion_Args* args);

struct PJRT_Client_TopologyDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_TopologyDescription* topology;  // out
};
typedef struct PJRT_Client_TopologyDescription_Args PJRT_Client_TopologyDescription_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_TopologyDescription_Args, topology);

typedef PJRT_Error* PJRT_Client_TopologyDescription(PJRT_Client_TopologyDescription_Args* args);

struct PJRT_Client_Devices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* devices;  // out
  size_t num_devices;           // out
};
typedef struct PJRT_Client_Devices_Args PJRT_Client_Devices_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_Devices_Args, num_devices);

typedef PJRT_Error* PJRT_Client_Devices(PJRT_Client_Devices_Args* args);

struct PJRT_Client_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* addressable_devices;  // out
  size_t num_addressable_devices;           // out
};
typedef struct PJRT_Client_AddressableDevices_Args PJRT_Client_AddressableDevices_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_AddressableDevices_Args, num_addressable_devices);

typedef PJRT_Error* PJRT_Client_AddressableDevices(PJRT_Client_AddressableDevices_Args* args);

struct PJRT_Client_LookupDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int id;
  PJRT_Device* device;  // out
};
typedef struct PJRT_Client_LookupDevice_Args PJRT_Client_LookupDevice_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_LookupDevice_Args, device);

typedef PJRT_Error* PJRT_Client_LookupDevice(PJRT_Client_LookupDevice_Args* args);

struct PJRT_Client_LookupAddressableDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int local_hardware_id;
  PJRT_Device* addressable_device;  // out
};
typedef struct PJRT_Client_LookupAddressableDevice_Args PJRT_Client_LookupAddressableDevice_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_LookupAddressableDevice_Args, addressable_device);

typedef PJRT_Error* PJRT_Client_LookupAddressableDevice(
    PJRT_Client_LookupAddressableDevice_Args* args);

typedef enum {
  PJRT_ProcessState_kUnspecified = 0,
  PJRT_ProcessState_kUninitialized = 1,
  PJRT_ProcessState_kDisconnected = 2,
  PJRT_ProcessState_kConnected = 3,
  PJRT_ProcessState_kError = 4,
} PJRT_ProcessState;

struct PJRT_ProcessInfo {
  size_t struct_size;
  int task_id;
  uint64_t incarnation_id;
  PJRT_ProcessState state;
  int error_code;
  const char* error_message;
  size_t error_message_size;
};
typedef struct PJRT_ProcessInfo PJRT_ProcessInfo;
KILN_PJRT_STRUCT_SIZE(PJRT_ProcessInfo, error_message_size);

struct PJRT_Client_UpdateGlobalProcessInfo_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_ProcessInfo* process_infos;
  size_t num_process_infos;
};
typedef struct PJRT_Client_UpdateGlobalProcessInfo_Args PJRT_Client_UpdateGlobalProcessInfo_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_UpdateGlobalProcessInfo_Args, num_process_infos);

typedef PJRT_Error* PJRT_Client_UpdateGlobalProcessInfo(
    PJRT_Client_UpdateGlobalProcessInfo_Args* args);

struct PJRT_Client_AddressableMemories_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Memory* const* addressable_memories;  // out
  size_t num_addressable_memories;           // out
};
typedef struct PJRT_Client_AddressableMemories_Args PJRT_Client_AddressableMemories_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_AddressableMemories_Args, num_addressable_memories);

typedef PJRT_Error* PJRT_Client_AddressableMemories(PJRT_Client_AddressableMemories_Args* args);

struct PJRT_Program {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  char* code;
  size_t code_size;
  const char* format;
  size_t format_size;
};
typedef struct PJRT_Program PJRT_Program;
KILN_PJRT_STRUCT_SIZE(PJRT_Program, format_size);

struct PJRT_Client_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const PJRT_Program* program;
  const char* compile_options;
  size_t compile_options_size;
  PJRT_LoadedExecutable* executable;  // out
};
typedef struct PJRT_Client_Compile_Args PJRT_Client_Compile_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_Compile_Args, executable);

typedef PJRT_Error* PJRT_Client_Compile(PJRT_Client_Compile_Args* args);

struct PJRT_Client_Load_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Executable* executable;
  const char* compile_options;
  size_t compile_options_size;
  PJRT_LoadedExecutable* loaded_executable;  // out
};
typedef struct PJRT_Client_Load_Args PJRT_Client_Load_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_Load_Args, loaded_executable);

typedef PJRT_Error* PJRT_Client_Load(PJRT_Client_Load_Args* args);

struct PJRT_Client_DefaultDeviceAssignment_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int num_replicas;
  int num_partitions;
  size_t default_assignment_size;
  int* default_assignment;
};
typedef struct PJRT_Client_DefaultDeviceAssignment_Args PJRT_Client_DefaultDeviceAssignment_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_DefaultDeviceAssignment_Args, default_assignment);

typedef PJRT_Error* PJRT_Client_DefaultDeviceAssignment(
    PJRT_Client_DefaultDeviceAssignment_Args* args);

struct PJRT_Client_DmaMap_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  void* data;
  size_t size;
};
typedef struct PJRT_Client_DmaMap_Args PJRT_Client_DmaMap_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_DmaMap_Args, size);

typedef PJRT_Error* PJRT_Client_DmaMap(PJRT_Client_DmaMap_Args* args);

struct PJRT_Client_DmaUnmap_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  void* data;
};
typedef struct PJRT_Client_DmaUnmap_Args PJRT_Client_DmaUnmap_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_DmaUnmap_Args, data);

typedef PJRT_Error* PJRT_Client_DmaUnmap(PJRT_Client_DmaUnmap_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
};
typedef struct PJRT_AsyncHostToDeviceTransferManager_Destroy_Args
    PJRT_AsyncHostToDeviceTransferManager_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, transfer_manager);

typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_Destroy(
    PJRT_AsyncHostToDeviceTransferManager_Destroy_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_TransferData_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  const void* data;
  int64_t offset;
  int64_t transfer_size;
  bool is_last_transfer;
  PJRT_Event* done_with_h2d_transfer;  // out
};
typedef struct PJRT_AsyncHostToDeviceTransferManager_TransferData_Args
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args,
                      done_with_h2d_transfer);

typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_TransferData(
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  PJRT_Buffer* buffer_out;  // out
};
typedef struct PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, buffer_out);

typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_Device_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  PJRT_Device* device_out;  // out
};
typedef struct PJRT_AsyncHostToDeviceTransferManager_Device_Args
    PJRT_AsyncHostToDeviceTransferManager_Device_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_Device_Args, device_out);

typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_Device(
    PJRT_AsyncHostToDeviceTransferManager_Device_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  size_t buffer_count;  // out
};
typedef struct PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args
    PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args, buffer_count);

typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_BufferCount(
    PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  size_t buffer_size;  // out
};
typedef struct PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args
    PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, buffer_size);

typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_BufferSize(
    PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
};
typedef struct PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args,
                      error_message_size);

typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_SetBufferError(
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args* args);

struct PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  const PJRT_NamedValue* transfer_metadata;
  size_t num_metadata;
};
typedef struct PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args
    PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, num_metadata);

typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_AddMetadata(
    PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args* args);

typedef enum {
  PJRT_Buffer_Type_INVALID,
  PJRT_Buffer_Type_PRED,
  PJRT_Buffer_Type_S8,
  PJRT_Buffer_Type_S16,
  PJRT_Buffer_Type_S32,
  PJRT_Buffer_Type_S64,
  PJRT_Buffer_Type_U8,
  PJRT_Buffer_Type_U16,
  PJRT_Buffer_Type_U32,
  PJRT_Buffer_Type_U64,
  PJRT_Buffer_Type_F16,
  PJRT_Buffer_Type_F32,
  PJRT_Buffer_Type_F64,
  PJRT_Buffer_Type_BF16,
  PJRT_Buffer_Type_C64,
  PJRT_Buffer_Type_C128,
  PJRT_Buffer_Type_F8E5M2,
  PJRT_Buffer_Type_F8E4M3FN,
  PJRT_Buffer_Type_F8E4M3B11FNUZ,
  PJRT_Buffer_Type_F8E5M2FNUZ,
  PJRT_Buffer_Type_F8E4M3FNUZ,
  PJRT_Buffer_Type_S4,
  PJRT_Buffer_Type_U4,
  PJRT_Buffer_Type_TOKEN,
  PJRT_Buffer_Type_S2,
  PJRT_Buffer_Type_U2,
  PJRT_Buffer_Type_F8E4M3,
  PJRT_Buffer_Type_F8E3M4,
  PJRT_Buffer_Type_F8E8M0FNU,
  PJRT_Buffer_Type_F4E2M1FN,
  PJRT_Buffer_Type_S1,
  PJRT_Buffer_Type_U1,
} PJRT_Buffer_Type;

typedef enum {
  PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
  PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes,
  PJRT_HostBufferSemantics_kImmutableZeroCopy,
  PJRT_HostBufferSemantics_kMutableZeroCopy,
} PJRT_HostBufferSemantics;

typedef enum {
  PJRT_Buffer_MemoryLayout_Type_Tiled = 0,
  PJRT_Buffer_MemoryLayout_Type_Strides,
} PJRT_Buffer_MemoryLayout_Type;

struct PJRT_Buffer_MemoryLayout_Tiled {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* minor_to_major;
  size_t minor_to_major_size;
  const int64_t* tile_dims;
  const size_t* tile_dim_sizes;
  size_t num_tiles;
};
typedef struct PJRT_Buffer_MemoryLayout_Tiled PJRT_Buffer_MemoryLayout_Tiled;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_MemoryLayout_Tiled, num_tiles);

struct PJRT_Buffer_MemoryLayout_Strides {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* byte_strides;
  size_t num_byte_strides;
};
typedef struct PJRT_Buffer_MemoryLayout_Strides PJRT_Buffer_MemoryLayout_Strides;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_MemoryLayout_Strides, num_byte_strides);

struct PJRT_Buffer_MemoryLayout {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  union {
    PJRT_Buffer_MemoryLayout_Tiled tiled;
    PJRT_Buffer_MemoryLayout_Strides strides;
  };
  PJRT_Buffer_MemoryLayout_Type type;
};
typedef struct PJRT_Buffer_MemoryLayout PJRT_Buffer_MemoryLayout;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_MemoryLayout, type);

struct PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;
  int buffer_index;
  const void* data;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Event* done_with_h2d_transfer;  // out
};
typedef struct PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args,
                      done_with_h2d_transfer);

typedef PJRT_Error* PJRT_AsyncHostToDeviceTransferManager_TransferLiteral(
    PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args* args);

struct PJRT_Client_CreateUninitializedBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Device* device;
  PJRT_Memory* memory;
  PJRT_Buffer* buffer;  // out
};
typedef struct PJRT_Client_CreateUninitializedBuffer_Args
    PJRT_Client_CreateUninitializedBuffer_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_CreateUninitializedBuffer_Args, buffer);

typedef PJRT_Error* PJRT_Client_CreateUninitializedBuffer(
    PJRT_Client_CreateUninitializedBuffer_Args* args);

struct PJRT_Client_CreateErrorBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Memory* memory;
  PJRT_Buffer* buffer;  // out
  const PJRT_NamedValue* payload;
  size_t num_payload;
};
typedef struct PJRT_Client_CreateErrorBuffer_Args PJRT_Client_CreateErrorBuffer_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_CreateErrorBuffer_Args, num_payload);

typedef PJRT_Error* PJRT_Client_CreateErrorBuffer(PJRT_Client_CreateErrorBuffer_Args* args);

struct PJRT_Client_CreateAliasBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Memory* memory;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Buffer* alias_buffer;                                 // out
  PJRT_FulfillAliasBufferCallback* fulfill_alias_buffer_cb;  // out
};
typedef struct PJRT_Client_CreateAliasBuffer_Args PJRT_Client_CreateAliasBuffer_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_CreateAliasBuffer_Args, fulfill_alias_buffer_cb);

typedef PJRT_Error* PJRT_Client_CreateAliasBuffer(PJRT_Client_CreateAliasBuffer_Args* args);

struct PJRT_Client_FulfillAliasBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Buffer* buffer;
  PJRT_Error_Code status_code;
  const char* error_message;
  size_t error_message_size;
  PJRT_FulfillAliasBufferCallback* fulfill_alias_buffer_cb;
};
typedef struct PJRT_Client_FulfillAliasBuffer_Args PJRT_Client_FulfillAliasBuffer_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_FulfillAliasBuffer_Args, fulfill_alias_buffer_cb);

typedef PJRT_Error* PJRT_Client_FulfillAliasBuffer(PJRT_Client_FulfillAliasBuffer_Args* args);

struct PJRT_Client_BufferFromHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const void* data;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  const int64_t* byte_strides;
  size_t num_byte_strides;
  PJRT_HostBufferSemantics host_buffer_semantics;
  PJRT_Device* device;
  PJRT_Memory* memory;
  PJRT_Buffer_MemoryLayout* device_layout;
  PJRT_Event* done_with_host_buffer;  // out
  PJRT_Buffer* buffer;                // out
};
typedef struct PJRT_Client_BufferFromHostBuffer_Args PJRT_Client_BufferFromHostBuffer_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_BufferFromHostBuffer_Args, buffer);

typedef PJRT_Error* PJRT_Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args);

struct PJRT_Client_CreateViewOfDeviceBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  void* device_buffer_ptr;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
  PJRT_Buffer_MemoryLayout* layout;
  PJRT_Device* device;
  void (*on_delete_callback)(void* device_buffer_ptr, void* user_arg);
  void* on_delete_callback_arg;
  intptr_t stream;
  PJRT_Buffer* buffer;  // out
  PJRT_Memory* memory;
};
typedef struct PJRT_Client_CreateViewOfDeviceBuffer_Args PJRT_Client_CreateViewOfDeviceBuffer_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_CreateViewOfDeviceBuffer_Args, memory);

typedef PJRT_Error* PJRT_Client_CreateViewOfDeviceBuffer(
    PJRT_Client_CreateViewOfDeviceBuffer_Args* args);

struct PJRT_ShapeSpec {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
};
KILN_PJRT_STRUCT_SIZE(PJRT_ShapeSpec, element_type);

struct PJRT_Client_CreateBuffersForAsyncHostToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_ShapeSpec* shape_specs;
  size_t num_shape_specs;
  PJRT_Buffer_MemoryLayout** device_layouts;
  size_t num_device_layouts;
  PJRT_Memory* memory;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;  // out
};
typedef struct PJRT_Client_CreateBuffersForAsyncHostToDevice_Args
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, transfer_manager);

typedef PJRT_Error* PJRT_Client_CreateBuffersForAsyncHostToDevice(
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args* args);

// ---- Device descriptions: what a device is, for compiling without one.

struct PJRT_DeviceDescription_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int id;  // out
};
typedef struct PJRT_DeviceDescription_Id_Args PJRT_DeviceDescription_Id_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_DeviceDescription_Id_Args, id);

typedef PJRT_Error* PJRT_DeviceDescription_Id(PJRT_DeviceDescription_Id_Args* args);

struct PJRT_DeviceDescription_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int process_index;  // out
};
typedef struct PJRT_DeviceDescription_ProcessIndex_Args PJRT_DeviceDescription_ProcessIndex_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_DeviceDescription_ProcessIndex_Args, process_index);

typedef PJRT_Error* PJRT_DeviceDescription_ProcessIndex(
    PJRT_DeviceDescription_ProcessIndex_Args* args);

struct PJRT_DeviceDescription_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  size_t num_attributes;              // out
  const PJRT_NamedValue* attributes;  // out
};
typedef struct PJRT_DeviceDescription_Attributes_Args PJRT_DeviceDescription_Attributes_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_DeviceDescription_Attributes_Args, attributes);

typedef PJRT_Error* PJRT_DeviceDescription_Attributes(PJRT_DeviceDescription_Attributes_Args* args);

struct PJRT_DeviceDescription_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* device_kind;  // out
  size_t device_kind_size;  // out
};
typedef struct PJRT_DeviceDescription_Kind_Args PJRT_DeviceDescription_Kind_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_DeviceDescription_Kind_Args, device_kind_size);

typedef PJRT_Error* PJRT_DeviceDescription_Kind(PJRT_DeviceDescription_Kind_Args* args);

struct PJRT_DeviceDescription_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* debug_string;  // out
  size_t debug_string_size;  // out
};
typedef struct PJRT_DeviceDescription_DebugString_Args PJRT_DeviceDescription_DebugString_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_DeviceDescription_DebugString_Args, debug_string_size);

typedef PJRT_Error* PJRT_DeviceDescription_DebugString(
    PJRT_DeviceDescription_DebugString_Args* args);

struct PJRT_DeviceDescription_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* to_string;  // out
  size_t to_string_size;  // out
};
typedef struct PJRT_DeviceDescription_ToString_Args PJRT_DeviceDescription_ToString_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_DeviceDescription_ToString_Args, to_string_size);

typedef PJRT_Error* PJRT_DeviceDescription_ToString(PJRT_DeviceDescription_ToString_Args* args);

// ---- Devices.

struct PJRT_Device_GetDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_DeviceDescription* device_description;  // out
};
typedef struct PJRT_Device_GetDescription_Args PJRT_Device_GetDescription_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Device_GetDescription_Args, device_description);

typedef PJRT_Error* PJRT_Device_GetDescription(PJRT_Device_GetDescription_Args* args);

struct PJRT_Device_IsAddressable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  bool is_addressable;  // out
};
typedef struct PJRT_Device_IsAddressable_Args PJRT_Device_IsAddressable_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Device_IsAddressable_Args, is_addressable);

typedef PJRT_Error* PJRT_Device_IsAddressable(PJRT_Device_IsAddressable_Args* args);

struct PJRT_Device_LocalHardwareId_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int local_hardware_id;  // out
};
typedef struct PJRT_Device_LocalHardwareId_Args PJRT_Device_LocalHardwareId_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Device_LocalHardwareId_Args, local_hardware_id);

typedef PJRT_Error* PJRT_Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args* args);

struct PJRT_Device_AddressableMemories_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_Memory* const* memories;  // out
  size_t num_memories;           // out
};
typedef struct PJRT_Device_AddressableMemories_Args PJRT_Device_AddressableMemories_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Device_AddressableMemories_Args, num_memories);

typedef PJRT_Error* PJRT_Device_AddressableMemories(PJRT_Device_AddressableMemories_Args* args);

struct PJRT_Device_DefaultMemory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_Memory* memory;  // out
};
typedef struct PJRT_Device_DefaultMemory_Args PJRT_Device_DefaultMemory_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Device_DefaultMemory_Args, memory);

typedef PJRT_Error* PJRT_Device_DefaultMemory(PJRT_Device_DefaultMemory_Args* args);

struct PJRT_Device_MemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int64_t bytes_in_use;                  // out
  int64_t peak_bytes_in_use;             // out
  bool peak_bytes_in_use_is_set;         // out
  int64_t num_allocs;                    // out
  bool num_allocs_is_set;                // out
  int64_t largest_alloc_size;            // out
  bool largest_alloc_size_is_set;        // out
  int64_t bytes_limit;                   // out
  bool bytes_limit_is_set;               // out
  int64_t bytes_reserved;                // out
  bool bytes_reserved_is_set;            // out
  int64_t peak_bytes_reserved;           // out
  bool peak_bytes_reserved_is_set;       // out
  int64_t bytes_reservable_limit;        // out
  bool bytes_reservable_limit_is_set;    // out
  int64_t largest_free_block_bytes;      // out
  bool largest_free_block_bytes_is_set;  // out
  int64_t pool_bytes;                    // out
  bool pool_bytes_is_set;                // out
  int64_t peak_pool_bytes;               // out
  bool peak_pool_bytes_is_set;           // out
};
typedef struct PJRT_Device_MemoryStats_Args PJRT_Device_MemoryStats_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Device_MemoryStats_Args, peak_pool_bytes_is_set);

typedef PJRT_Error* PJRT_Device_MemoryStats(PJRT_Device_MemoryStats_Args* args);

struct PJRT_Device_ClearMemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
};
typedef struct PJRT_Device_ClearMemoryStats_Args PJRT_Device_ClearMemoryStats_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Device_ClearMemoryStats_Args, device);

typedef PJRT_Error* PJRT_Device_ClearMemoryStats(PJRT_Device_ClearMemoryStats_Args* args);

struct PJRT_Device_PoisonExecution_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int32_t launch_id;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
  bool poisoned;  // out
  const PJRT_NamedValue* payload;
  size_t num_payload;
};
typedef struct PJRT_Device_PoisonExecution_Args PJRT_Device_PoisonExecution_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Device_PoisonExecution_Args, num_payload);

typedef PJRT_Error* PJRT_Device_PoisonExecution(PJRT_Device_PoisonExecution_Args* args);

typedef struct PJRT_Device_Attributes PJRT_Device_Attributes;
struct PJRT_Device_GetAttributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  const PJRT_NamedValue* attributes;                                      // out
  size_t num_attributes;                                                  // out
  PJRT_Device_Attributes* device_attributes;                              // out
  void (*attributes_deleter)(PJRT_Device_Attributes* device_attributes);  // out
};
typedef struct PJRT_Device_GetAttributes_Args PJRT_Device_GetAttributes_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Device_GetAttributes_Args, attributes_deleter);

typedef PJRT_Error* PJRT_Device_GetAttributes(PJRT_Device_GetAttributes_Args* args);

// ---- Async tracking events: spans of work a device reports to profilers.

typedef struct PJRT_AsyncTrackingEvent PJRT_AsyncTrackingEvent;
struct PJRT_Device_CreateAsyncTrackingEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  const char* description;
  size_t description_size;
  PJRT_AsyncTrackingEvent* event;  // out
};
typedef struct PJRT_Device_CreateAsyncTrackingEvent_Args PJRT_Device_CreateAsyncTrackingEvent_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Device_CreateAsyncTrackingEvent_Args, event);

typedef PJRT_Error* PJRT_Device_CreateAsyncTrackingEvent(
    PJRT_Device_CreateAsyncTrackingEvent_Args* args);

struct PJRT_AsyncTrackingEvent_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_AsyncTrackingEvent* event;
};
typedef struct PJRT_AsyncTrackingEvent_Destroy_Args PJRT_AsyncTrackingEvent_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_AsyncTrackingEvent_Destroy_Args, event);

typedef PJRT_Error* PJRT_AsyncTrackingEvent_Destroy(PJRT_AsyncTrackingEvent_Destroy_Args* args);

struct PJRT_Memory_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  int id;  // out
};
typedef struct PJRT_Memory_Id_Args PJRT_Memory_Id_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Memory_Id_Args, id);

typedef PJRT_Error* PJRT_Memory_Id(PJRT_Memory_Id_Args* args);

struct PJRT_Memory_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* kind;  // out
  size_t kind_size;  // out
};
typedef struct PJRT_Memory_Kind_Args PJRT_Memory_Kind_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Memory_Kind_Args, kind_size);

typedef PJRT_Error* PJRT_Memory_Kind(PJRT_Memory_Kind_Args* args);

struct PJRT_Memory_Kind_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  int kind_id;  // out
};
typedef struct PJRT_Memory_Kind_Id_Args PJRT_Memory_Kind_Id_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Memory_Kind_Id_Args, kind_id);

typedef PJRT_Error* PJRT_Memory_Kind_Id(PJRT_Memory_Kind_Id_Args* args);

struct PJRT_Memory_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* debug_string;  // out
  size_t debug_string_size;  // out
};
typedef struct PJRT_Memory_DebugString_Args PJRT_Memory_DebugString_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Memory_DebugString_Args, debug_string_size);

typedef PJRT_Error* PJRT_Memory_DebugString(PJRT_Memory_DebugString_Args* args);

struct PJRT_Memory_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* to_string;  // out
  size_t to_string_size;  // out
};
typedef struct PJRT_Memory_ToString_Args PJRT_Memory_ToString_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Memory_ToString_Args, to_string_size);

typedef PJRT_Error* PJRT_Memory_ToString(PJRT_Memory_ToString_Args* args);

struct PJRT_Memory_AddressableByDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  PJRT_Device* const* devices;  // out
  size_t num_devices;           // out
};
typedef struct PJRT_Memory_AddressableByDevices_Args PJRT_Memory_AddressableByDevices_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Memory_AddressableByDevices_Args, num_devices);

typedef PJRT_Error* PJRT_Memory_AddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args);

// ---- Execute contexts: per-execution state for user functions.

typedef struct PJRT_ExecuteContext PJRT_ExecuteContext;
struct PJRT_ExecuteContext_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context;  // out
};
typedef struct PJRT_ExecuteContext_Create_Args PJRT_ExecuteContext_Create_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_ExecuteContext_Create_Args, context);

typedef PJRT_Error* PJRT_ExecuteContext_Create(PJRT_ExecuteContext_Create_Args* args);

struct PJRT_ExecuteContext_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context;
};
typedef struct PJRT_ExecuteContext_Destroy_Args PJRT_ExecuteContext_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_ExecuteContext_Destroy_Args, context);

typedef PJRT_Error* PJRT_ExecuteContext_Destroy(PJRT_ExecuteContext_Destroy_Args* args);

// ---- Executables: compiled programs, and loaded executables that run on devices.

struct PJRT_Executable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
};
typedef struct PJRT_Executable_Destroy_Args PJRT_Executable_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_Destroy_Args, executable);

typedef PJRT_Error* PJRT_Executable_Destroy(PJRT_Executable_Destroy_Args* args);

struct PJRT_LoadedExecutable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
};
typedef struct PJRT_LoadedExecutable_Destroy_Args PJRT_LoadedExecutable_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_LoadedExecutable_Destroy_Args, executable);

typedef PJRT_Error* PJRT_LoadedExecutable_Destroy(PJRT_LoadedExecutable_Destroy_Args* args);

struct PJRT_LoadedExecutable_GetExecutable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* loaded_executable;
  PJRT_Executable* executable;  // out
};
typedef struct PJRT_LoadedExecutable_GetExecutable_Args PJRT_LoadedExecutable_GetExecutable_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_LoadedExecutable_GetExecutable_Args, executable);

typedef PJRT_Error* PJRT_LoadedExecutable_GetExecutable(
    PJRT_LoadedExecutable_GetExecutable_Args* args);

typedef struct PJRT_DeviceAssignmentSerialized PJRT_DeviceAssignmentSerialized;
struct PJRT_LoadedExecutable_GetDeviceAssignment_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const char* serialized_bytes;  // out
  size_t serialized_bytes_size;  // out
  PJRT_DeviceAssignmentSerialized* serialized_device_assignment;
  void (*serialized_device_assignment_deleter)(PJRT_DeviceAssignmentSerialized* da);
};
typedef struct PJRT_LoadedExecutable_GetDeviceAssignment_Args
    PJRT_LoadedExecutable_GetDeviceAssignment_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_LoadedExecutable_GetDeviceAssignment_Args,
                      serialized_device_assignment_deleter);

typedef PJRT_Error* PJRT_LoadedExecutable_GetDeviceAssignment(
    PJRT_LoadedExecutable_GetDeviceAssignment_Args* args);

struct PJRT_Executable_Name_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* executable_name;  // out
  size_t executable_name_size;  // out
};
typedef struct PJRT_Executable_Name_Args PJRT_Executable_Name_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_Name_Args, executable_name_size);

typedef PJRT_Error* PJRT_Executable_Name(PJRT_Executable_Name_Args* args);

struct PJRT_Executable_NumReplicas_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_replicas;  // out
};
typedef struct PJRT_Executable_NumReplicas_Args PJRT_Executable_NumReplicas_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_NumReplicas_Args, num_replicas);

typedef PJRT_Error* PJRT_Executable_NumReplicas(PJRT_Executable_NumReplicas_Args* args);

struct PJRT_Executable_NumPartitions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_partitions;  // out
};
typedef struct PJRT_Executable_NumPartitions_Args PJRT_Executable_NumPartitions_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_NumPartitions_Args, num_partitions);

typedef PJRT_Error* PJRT_Executable_NumPartitions(PJRT_Executable_NumPartitions_Args* args);

typedef struct PJRT_LogicalDeviceIds {
  int replica;
  int partition;
} PJRT_LogicalDeviceIds;

struct PJRT_LoadedExecutable_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_Device* const* addressable_devices;  // out
  size_t num_addressable_devices;           // out
};
typedef struct PJRT_LoadedExecutable_AddressableDevices_Args
    PJRT_LoadedExecutable_AddressableDevices_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_LoadedExecutable_AddressableDevices_Args, num_addressable_devices);

typedef PJRT_Error* PJRT_LoadedExecutable_AddressableDevices(
    PJRT_LoadedExecutable_AddressableDevices_Args* args);

struct PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_LogicalDeviceIds* addressable_device_logical_ids;  // out
  size_t num_addressable_device_logical_ids;              // out
};
typedef struct PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args
    PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args,
                      num_addressable_device_logical_ids);

typedef PJRT_Error* PJRT_LoadedExecutable_AddressableDeviceLogicalIds(
    PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args* args);

struct PJRT_Executable_OptimizedProgram_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  PJRT_Program* program;  // out
};
typedef struct PJRT_Executable_OptimizedProgram_Args PJRT_Executable_OptimizedProgram_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_OptimizedProgram_Args, program);

typedef PJRT_Error* PJRT_Executable_OptimizedProgram(PJRT_Executable_OptimizedProgram_Args* args);

struct PJRT_LoadedExecutable_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
};
typedef struct PJRT_LoadedExecutable_Delete_Args PJRT_LoadedExecutable_Delete_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_LoadedExecutable_Delete_Args, executable);

typedef PJRT_Error* PJRT_LoadedExecutable_Delete(PJRT_LoadedExecutable_Delete_Args* args);

struct PJRT_LoadedExecutable_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  bool is_deleted;  // out
};
typedef struct PJRT_LoadedExecutable_IsDeleted_Args PJRT_LoadedExecutable_IsDeleted_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_LoadedExecutable_IsDeleted_Args, is_deleted);

typedef PJRT_Error* PJRT_LoadedExecutable_IsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args);

typedef struct PJRT_Chunk {
  void* data;
  size_t size;
  void (*deleter)(void* data, void* deleter_arg);
  void* deleter_arg;
} PJRT_Chunk;

typedef struct PJRT_CopyToDeviceStream PJRT_CopyToDeviceStream;
typedef PJRT_Error* (*PJRT_SendCallback)(PJRT_Chunk* chunk, PJRT_CallbackError* callback_error,
                                         size_t total_size_in_bytes, bool done, void* user_arg);
typedef void (*PJRT_RecvCallback)(PJRT_CopyToDeviceStream* stream, void* user_arg);
struct PJRT_SendCallbackInfo {
  int64_t channel_id;
  void* user_arg;
  PJRT_SendCallback send_callback;
};
typedef struct PJRT_SendCallbackInfo PJRT_SendCallbackInfo;
KILN_PJRT_STRUCT_SIZE(PJRT_SendCallbackInfo, send_callback);

struct PJRT_RecvCallbackInfo {
  int64_t channel_id;
  void* user_arg;
  PJRT_RecvCallback recv_callback;
};
typedef struct PJRT_RecvCallbackInfo PJRT_RecvCallbackInfo;
KILN_PJRT_STRUCT_SIZE(PJRT_RecvCallbackInfo, recv_callback);

typedef void (*PJRT_HloOutputCallback)(int64_t replica_id, int64_t partition_id, const void* data,
                                       const int64_t* shape_dims, size_t shape_num_dims,
                                       PJRT_Buffer_Type shape_element_type, int64_t operand_index,
                                       void* user_arg);
typedef struct PJRT_HloOutputCallbackInfo {
  void* user_arg;
  PJRT_HloOutputCallback callback;
  int64_t callback_id;
  size_t num_operands;
} PJRT_HloOutputCallbackInfo;
KILN_PJRT_STRUCT_SIZE(PJRT_HloOutputCallbackInfo, num_operands);

typedef struct PJRT_MultiSlice_Config PJRT_MultiSlice_Config;
struct PJRT_ExecuteOptions {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_SendCallbackInfo** send_callbacks;
  PJRT_RecvCallbackInfo** recv_callbacks;
  size_t num_send_ops;
  size_t num_recv_ops;
  int launch_id;
  const int64_t* non_donatable_input_indices;
  size_t num_non_donatable_input_indices;
  PJRT_ExecuteContext* context;
  const char* call_location;
  size_t num_tasks;
  int* task_ids;
  int64_t* incarnation_ids;
  PJRT_MultiSlice_Config* multi_slice_config;
  bool use_major_to_minor_data_layout_for_callbacks;
  PJRT_HloOutputCallbackInfo* hlo_output_callbacks;
  size_t num_hlo_output_callbacks;
};
typedef struct PJRT_ExecuteOptions PJRT_ExecuteOptions;
KILN_PJRT_STRUCT_SIZE(PJRT_ExecuteOptions, num_hlo_output_callbacks);

struct PJRT_LoadedExecutable_Execute_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_ExecuteOptions* options;
  PJRT_Buffer* const* const* argument_lists;
  size_t num_devices;
  size_t num_args;
  PJRT_Buffer** const* output_lists;
  PJRT_Event** device_complete_events;
  PJRT_Device* execute_device;
};
typedef struct PJRT_LoadedExecutable_Execute_Args PJRT_LoadedExecutable_Execute_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_LoadedExecutable_Execute_Args, execute_device);

typedef PJRT_Error* PJRT_LoadedExecutable_Execute(PJRT_LoadedExecutable_Execute_Args* args);

struct PJRT_Executable_NumOutputs_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;  // out
};
typedef struct PJRT_Executable_NumOutputs_Args PJRT_Executable_NumOutputs_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_NumOutputs_Args, num_outputs);

typedef PJRT_Error* PJRT_Executable_NumOutputs(PJRT_Executable_NumOutputs_Args* args);

struct PJRT_Executable_SizeOfGeneratedCodeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  int64_t size_in_bytes;  // out
};
typedef struct PJRT_Executable_SizeOfGeneratedCodeInBytes_Args
    PJRT_Executable_SizeOfGeneratedCodeInBytes_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, size_in_bytes);

typedef PJRT_Error* PJRT_Executable_SizeOfGeneratedCodeInBytes(
    PJRT_Executable_SizeOfGeneratedCodeInBytes_Args* args);

struct PJRT_Executable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* executable_fingerprint;  // out
  size_t executable_fingerprint_size;  // out
};
typedef struct PJRT_Executable_Fingerprint_Args PJRT_Executable_Fingerprint_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_Fingerprint_Args, executable_fingerprint_size);

typedef PJRT_Error* PJRT_Executable_Fingerprint(PJRT_Executable_Fingerprint_Args* args);

struct PJRT_Executable_GetCostAnalysis_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_properties;              // out
  const PJRT_NamedValue* properties;  // out
};
typedef struct PJRT_Executable_GetCostAnalysis_Args PJRT_Executable_GetCostAnalysis_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_GetCostAnalysis_Args, properties);

typedef PJRT_Error* PJRT_Executable_GetCostAnalysis(PJRT_Executable_GetCostAnalysis_Args* args);

struct PJRT_Executable_GetCompiledMemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  int64_t generated_code_size_in_bytes;       // out
  int64_t argument_size_in_bytes;             // out
  int64_t output_size_in_bytes;               // out
  int64_t alias_size_in_bytes;                // out
  int64_t temp_size_in_bytes;                 // out
  int64_t host_generated_code_size_in_bytes;  // out
  int64_t host_argument_size_in_bytes;        // out
  int64_t host_output_size_in_bytes;          // out
  int64_t host_alias_size_in_bytes;           // out
  int64_t host_temp_size_in_bytes;            // out
  int64_t peak_memory_in_bytes;               // out
  int64_t total_size_in_bytes;                // out
  int64_t total_allocation_bytes;             // out
  int64_t indefinite_allocations;             // out
  int64_t peak_unpadded_heap_bytes;           // out
};
typedef struct PJRT_Executable_GetCompiledMemoryStats_Args
    PJRT_Executable_GetCompiledMemoryStats_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_GetCompiledMemoryStats_Args, peak_unpadded_heap_bytes);

typedef PJRT_Error* PJRT_Executable_GetCompiledMemoryStats(
    PJRT_Executable_GetCompiledMemoryStats_Args* args);

struct PJRT_Executable_OutputElementTypes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  PJRT_Buffer_Type* output_types;  // out
  size_t num_output_types;         // out
};
typedef struct PJRT_Executable_OutputElementTypes_Args PJRT_Executable_OutputElementTypes_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_OutputElementTypes_Args, num_output_types);

typedef PJRT_Error* PJRT_Executable_OutputElementTypes(
    PJRT_Executable_OutputElementTypes_Args* args);

struct PJRT_Executable_OutputDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;
  const int64_t* dims;      // out
  const size_t* dim_sizes;  // out
};
typedef struct PJRT_Executable_OutputDimensions_Args PJRT_Executable_OutputDimensions_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_OutputDimensions_Args, dim_sizes);

typedef PJRT_Error* PJRT_Executable_OutputDimensions(PJRT_Executable_OutputDimensions_Args* args);

struct PJRT_Executable_ParameterMemoryKinds_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_parameters;
  const char* const* memory_kinds;  // out
  const size_t* memory_kind_sizes;  // out
};
typedef struct PJRT_Executable_ParameterMemoryKinds_Args PJRT_Executable_ParameterMemoryKinds_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_ParameterMemoryKinds_Args, memory_kind_sizes);

typedef PJRT_Error* PJRT_Executable_ParameterMemoryKinds(
    PJRT_Executable_ParameterMemoryKinds_Args* args);

struct PJRT_Executable_OutputMemoryKinds_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;
  const char* const* memory_kinds;  // out
  const size_t* memory_kind_sizes;  // out
};
typedef struct PJRT_Executable_OutputMemoryKinds_Args PJRT_Executable_OutputMemoryKinds_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_OutputMemoryKinds_Args, memory_kind_sizes);

typedef PJRT_Error* PJRT_Executable_OutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args* args);

typedef struct PJRT_SerializedExecutable PJRT_SerializedExecutable;
typedef struct PJRT_SerializedCompileOptions PJRT_SerializedCompileOptions;
struct PJRT_Executable_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Executable* executable;
  const char* serialized_bytes;  // out
  size_t serialized_bytes_size;  // out
  PJRT_SerializedExecutable* serialized_executable;
  void (*serialized_executable_deleter)(PJRT_SerializedExecutable* exec);
};
typedef struct PJRT_Executable_Serialize_Args PJRT_Executable_Serialize_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_Serialize_Args, serialized_executable_deleter);

typedef PJRT_Error* PJRT_Executable_Serialize(PJRT_Executable_Serialize_Args* args);

struct PJRT_Executable_GetCompileOptions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* serialized_bytes;  // out
  size_t serialized_bytes_size;  // out
  PJRT_SerializedCompileOptions* serialized_compile_options;
  void (*serialized_compile_options_deleter)(PJRT_SerializedCompileOptions* options);
};
typedef struct PJRT_Executable_GetCompileOptions_Args PJRT_Executable_GetCompileOptions_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_GetCompileOptions_Args, serialized_compile_options_deleter);

typedef PJRT_Error* PJRT_Executable_GetCompileOptions(PJRT_Executable_GetCompileOptions_Args* args);

struct PJRT_LoadOptions {
  size_t struct_size;
  const int32_t* computation_origin;
  size_t computation_origin_size;
  PJRT_MultiSlice_Config* multi_slice_config;
};
typedef struct PJRT_LoadOptions PJRT_LoadOptions;
KILN_PJRT_STRUCT_SIZE(PJRT_LoadOptions, multi_slice_config);

struct PJRT_Executable_DeserializeAndLoad_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* serialized_executable;
  size_t serialized_executable_size;
  PJRT_LoadedExecutable* loaded_executable;  // out
  const char* overridden_serialized_compile_options;
  size_t overridden_serialized_compile_options_size;
  PJRT_LoadOptions* load_options;
};
typedef struct PJRT_Executable_DeserializeAndLoad_Args PJRT_Executable_DeserializeAndLoad_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Executable_DeserializeAndLoad_Args, load_options);

typedef PJRT_Error* PJRT_Executable_DeserializeAndLoad(
    PJRT_Executable_DeserializeAndLoad_Args* args);

struct PJRT_LoadedExecutable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const char* executable_fingerprint;  // out
  size_t executable_fingerprint_size;  // out
};
typedef struct PJRT_LoadedExecutable_Fingerprint_Args PJRT_LoadedExecutable_Fingerprint_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_LoadedExecutable_Fingerprint_Args, executable_fingerprint_size);

typedef PJRT_Error* PJRT_LoadedExecutable_Fingerprint(PJRT_LoadedExecutable_Fingerprint_Args* args);

// ---- Buffers: arrays on a device.

struct PJRT_Buffer_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};
typedef struct PJRT_Buffer_Destroy_Args PJRT_Buffer_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_Destroy_Args, buffer);

typedef PJRT_Error* PJRT_Buffer_Destroy(PJRT_Buffer_Destroy_Args* args);

struct PJRT_Buffer_ElementType_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_Type type;  // out
};
typedef struct PJRT_Buffer_ElementType_Args PJRT_Buffer_ElementType_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_ElementType_Args, type);

typedef PJRT_Error* PJRT_Buffer_ElementType(PJRT_Buffer_ElementType_Args* args);

struct PJRT_Buffer_Dimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const int64_t* dims;  // out
  size_t num_dims;      // out
};
typedef struct PJRT_Buffer_Dimensions_Args PJRT_Buffer_Dimensions_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_Dimensions_Args, num_dims);

typedef PJRT_Error* PJRT_Buffer_Dimensions(PJRT_Buffer_Dimensions_Args* args);

struct PJRT_Buffer_UnpaddedDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const int64_t* unpadded_dims;  // out
  size_t num_dims;               // out
};
typedef struct PJRT_Buffer_UnpaddedDimensions_Args PJRT_Buffer_UnpaddedDimensions_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_UnpaddedDimensions_Args, num_dims);

typedef PJRT_Error* PJRT_Buffer_UnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args* args);

struct PJRT_Buffer_DynamicDimensionIndices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const size_t* dynamic_dim_indices;  // out
  size_t num_dynamic_dims;            // out
};
typedef struct PJRT_Buffer_DynamicDimensionIndices_Args PJRT_Buffer_DynamicDimensionIndices_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_DynamicDimensionIndices_Args, num_dynamic_dims);

typedef PJRT_Error* PJRT_Buffer_DynamicDimensionIndices(
    PJRT_Buffer_DynamicDimensionIndices_Args* args);

struct PJRT_Buffer_GetMemoryLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_MemoryLayout layout;  // out
};
typedef struct PJRT_Buffer_GetMemoryLayout_Args PJRT_Buffer_GetMemoryLayout_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_GetMemoryLayout_Args, layout);

typedef PJRT_Error* PJRT_Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args* args);

struct PJRT_Buffer_ToHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* src;
  PJRT_Buffer_MemoryLayout* host_layout;
  void* dst;
  size_t dst_size;
  PJRT_Event* event;  // out
};
typedef struct PJRT_Buffer_ToHostBuffer_Args PJRT_Buffer_ToHostBuffer_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_ToHostBuffer_Args, event);

typedef PJRT_Error* PJRT_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args);

struct PJRT_Buffer_OnDeviceSizeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  size_t on_device_size_in_bytes;  // out
};
typedef struct PJRT_Buffer_OnDeviceSizeInBytes_Args PJRT_Buffer_OnDeviceSizeInBytes_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_OnDeviceSizeInBytes_Args, on_device_size_in_bytes);

typedef PJRT_Error* PJRT_Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args);

struct PJRT_Buffer_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};
typedef struct PJRT_Buffer_Delete_Args PJRT_Buffer_Delete_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_Delete_Args, buffer);

typedef PJRT_Error* PJRT_Buffer_Delete(PJRT_Buffer_Delete_Args* args);

struct PJRT_Buffer_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_deleted;  // out
};
typedef struct PJRT_Buffer_IsDeleted_Args PJRT_Buffer_IsDeleted_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_IsDeleted_Args, is_deleted);

typedef PJRT_Error* PJRT_Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args* args);

struct PJRT_Buffer_CopyRawToHost_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  void* dst;
  int64_t offset;
  int64_t transfer_size;
  PJRT_Event* event;  // out
};
typedef struct PJRT_Buffer_CopyRawToHost_Args PJRT_Buffer_CopyRawToHost_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_CopyRawToHost_Args, event);

typedef PJRT_Error* PJRT_Buffer_CopyRawToHost(PJRT_Buffer_CopyRawToHost_Args* args);

struct PJRT_Buffer_CopyRawToHostFuture_Callback_Args {
  size_t struct_size;
  void* callback_data;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
  void* dst;
};
typedef struct PJRT_Buffer_CopyRawToHostFuture_Callback_Args
    PJRT_Buffer_CopyRawToHostFuture_Callback_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, dst);

struct PJRT_Buffer_CopyRawToHostFuture_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  int64_t offset;
  int64_t transfer_size;
  PJRT_Event* event;    // out
  void* callback_data;  // out
  void (*future_ready_callback)(PJRT_Buffer_CopyRawToHostFuture_Callback_Args* args);
};
typedef struct PJRT_Buffer_CopyRawToHostFuture_Args PJRT_Buffer_CopyRawToHostFuture_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_CopyRawToHostFuture_Args, future_ready_callback);

typedef PJRT_Error* PJRT_Buffer_CopyRawToHostFuture(PJRT_Buffer_CopyRawToHostFuture_Args* args);

struct PJRT_Buffer_CopyToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Device* dst_device;
  PJRT_Buffer* dst_buffer;  // out
};
typedef struct PJRT_Buffer_CopyToDevice_Args PJRT_Buffer_CopyToDevice_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_CopyToDevice_Args, dst_buffer);

typedef PJRT_Error* PJRT_Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args* args);

struct PJRT_Buffer_CopyToMemory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Memory* dst_memory;
  PJRT_Buffer* dst_buffer;  // out
};
typedef struct PJRT_Buffer_CopyToMemory_Args PJRT_Buffer_CopyToMemory_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_CopyToMemory_Args, dst_buffer);

typedef PJRT_Error* PJRT_Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args* args);

struct PJRT_Buffer_Bitcast_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_Type element_type;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Buffer_MemoryLayout* device_layout;
  PJRT_Buffer* out_buffer;  // out
};
typedef struct PJRT_Buffer_Bitcast_Args PJRT_Buffer_Bitcast_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_Bitcast_Args, out_buffer);

typedef PJRT_Error* PJRT_Buffer_Bitcast(PJRT_Buffer_Bitcast_Args* args);

struct PJRT_Buffer_IsOnCpu_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_on_cpu;  // out
};
typedef struct PJRT_Buffer_IsOnCpu_Args PJRT_Buffer_IsOnCpu_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_IsOnCpu_Args, is_on_cpu);

typedef PJRT_Error* PJRT_Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args* args);

struct PJRT_Buffer_Device_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Device* device;  // out
};
typedef struct PJRT_Buffer_Device_Args PJRT_Buffer_Device_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_Device_Args, device);

typedef PJRT_Error* PJRT_Buffer_Device(PJRT_Buffer_Device_Args* args);

struct PJRT_Buffer_Memory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Memory* memory;  // out
};
typedef struct PJRT_Buffer_Memory_Args PJRT_Buffer_Memory_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_Memory_Args, memory);

typedef PJRT_Error* PJRT_Buffer_Memory(PJRT_Buffer_Memory_Args* args);

struct PJRT_Buffer_ReadyEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Event* event;  // out
};
typedef struct PJRT_Buffer_ReadyEvent_Args PJRT_Buffer_ReadyEvent_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_ReadyEvent_Args, event);

typedef PJRT_Error* PJRT_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args* args);

struct PJRT_Buffer_UnsafePointer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  uintptr_t buffer_pointer;  // out
};
typedef struct PJRT_Buffer_UnsafePointer_Args PJRT_Buffer_UnsafePointer_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_UnsafePointer_Args, buffer_pointer);

typedef PJRT_Error* PJRT_Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args* args);

struct PJRT_Buffer_IncreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};
typedef struct PJRT_Buffer_IncreaseExternalReferenceCount_Args
    PJRT_Buffer_IncreaseExternalReferenceCount_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_IncreaseExternalReferenceCount_Args, buffer);

typedef PJRT_Error* PJRT_Buffer_IncreaseExternalReferenceCount(
    PJRT_Buffer_IncreaseExternalReferenceCount_Args* args);

struct PJRT_Buffer_DecreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};
typedef struct PJRT_Buffer_DecreaseExternalReferenceCount_Args
    PJRT_Buffer_DecreaseExternalReferenceCount_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_DecreaseExternalReferenceCount_Args, buffer);

typedef PJRT_Error* PJRT_Buffer_DecreaseExternalReferenceCount(
    PJRT_Buffer_DecreaseExternalReferenceCount_Args* args);

struct PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  void* device_memory_ptr;  // out
};
typedef struct PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, device_memory_ptr);

typedef PJRT_Error* PJRT_Buffer_OpaqueDeviceMemoryDataPointer(
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args* args);

struct PJRT_Buffer_DonateWithControlDependency_Callback_Args {
  size_t struct_size;
  void* callback_data;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
};
typedef struct PJRT_Buffer_DonateWithControlDependency_Callback_Args
    PJRT_Buffer_DonateWithControlDependency_Callback_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_DonateWithControlDependency_Callback_Args, error_message_size);

struct PJRT_Buffer_DonateWithControlDependency_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  void* callback_data;  // out
  void (*dependency_ready_callback)(PJRT_Buffer_DonateWithControlDependency_Callback_Args* args);
  PJRT_Buffer* out_buffer;  // out
};
typedef struct PJRT_Buffer_DonateWithControlDependency_Args
    PJRT_Buffer_DonateWithControlDependency_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Buffer_DonateWithControlDependency_Args, out_buffer);

typedef PJRT_Error* PJRT_Buffer_DonateWithControlDependency(
    PJRT_Buffer_DonateWithControlDependency_Args* args);

// ---- Copy-to-device streams: data sent to a device in chunks.

struct PJRT_CopyToDeviceStream_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_CopyToDeviceStream* stream;
};
typedef struct PJRT_CopyToDeviceStream_Destroy_Args PJRT_CopyToDeviceStream_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_CopyToDeviceStream_Destroy_Args, stream);

typedef PJRT_Error* PJRT_CopyToDeviceStream_Destroy(PJRT_CopyToDeviceStream_Destroy_Args* args);

struct PJRT_CopyToDeviceStream_AddChunk_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_CopyToDeviceStream* stream;
  PJRT_Chunk* chunk;
  PJRT_Event* transfer_complete;  // out
};
typedef struct PJRT_CopyToDeviceStream_AddChunk_Args PJRT_CopyToDeviceStream_AddChunk_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_CopyToDeviceStream_AddChunk_Args, transfer_complete);

typedef PJRT_Error* PJRT_CopyToDeviceStream_AddChunk(PJRT_CopyToDeviceStream_AddChunk_Args* args);

struct PJRT_CopyToDeviceStream_TotalBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_CopyToDeviceStream* stream;
  int64_t total_bytes;  // out
};
typedef struct PJRT_CopyToDeviceStream_TotalBytes_Args PJRT_CopyToDeviceStream_TotalBytes_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_CopyToDeviceStream_TotalBytes_Args, total_bytes);

typedef PJRT_Error* PJRT_CopyToDeviceStream_TotalBytes(
    PJRT_CopyToDeviceStream_TotalBytes_Args* args);

struct PJRT_CopyToDeviceStream_GranuleSize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_CopyToDeviceStream* stream;
  int64_t granule_size_in_bytes;  // out
};
typedef struct PJRT_CopyToDeviceStream_GranuleSize_Args PJRT_CopyToDeviceStream_GranuleSize_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_CopyToDeviceStream_GranuleSize_Args, granule_size_in_bytes);

typedef PJRT_Error* PJRT_CopyToDeviceStream_GranuleSize(
    PJRT_CopyToDeviceStream_GranuleSize_Args* args);

struct PJRT_CopyToDeviceStream_CurrentBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_CopyToDeviceStream* stream;
  int64_t current_bytes;  // out
};
typedef struct PJRT_CopyToDeviceStream_CurrentBytes_Args PJRT_CopyToDeviceStream_CurrentBytes_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_CopyToDeviceStream_CurrentBytes_Args, current_bytes);

typedef PJRT_Error* PJRT_CopyToDeviceStream_CurrentBytes(
    PJRT_CopyToDeviceStream_CurrentBytes_Args* args);

// ---- Topologies: the devices a program may be compiled for.

struct PJRT_TopologyDescription_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* topology_name;
  size_t topology_name_size;
  const PJRT_NamedValue* create_options;
  size_t num_options;
  PJRT_TopologyDescription* topology;  // out
};
typedef struct PJRT_TopologyDescription_Create_Args PJRT_TopologyDescription_Create_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_Create_Args, topology);

typedef PJRT_Error* PJRT_TopologyDescription_Create(PJRT_TopologyDescription_Create_Args* args);

struct PJRT_TopologyDescription_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
};
typedef struct PJRT_TopologyDescription_Destroy_Args PJRT_TopologyDescription_Destroy_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_Destroy_Args, topology);

typedef PJRT_Error* PJRT_TopologyDescription_Destroy(PJRT_TopologyDescription_Destroy_Args* args);

struct PJRT_TopologyDescription_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const char* platform_version;  // out
  size_t platform_version_size;  // out
};
typedef struct PJRT_TopologyDescription_PlatformVersion_Args
    PJRT_TopologyDescription_PlatformVersion_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_PlatformVersion_Args, platform_version_size);

typedef PJRT_Error* PJRT_TopologyDescription_PlatformVersion(
    PJRT_TopologyDescription_PlatformVersion_Args* args);

struct PJRT_TopologyDescription_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  const char* platform_name;  // out
  size_t platform_name_size;  // out
};
typedef struct PJRT_TopologyDescription_PlatformName_Args
    PJRT_TopologyDescription_PlatformName_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_PlatformName_Args, platform_name_size);

typedef PJRT_Error* PJRT_TopologyDescription_PlatformName(
    PJRT_TopologyDescription_PlatformName_Args* args);

struct PJRT_TopologyDescription_GetDeviceDescriptions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  PJRT_DeviceDescription* const* descriptions;  // out
  size_t num_descriptions;                      // out
};
typedef struct PJRT_TopologyDescription_GetDeviceDescriptions_Args
    PJRT_TopologyDescription_GetDeviceDescriptions_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_GetDeviceDescriptions_Args, num_descriptions);

typedef PJRT_Error* PJRT_TopologyDescription_GetDeviceDescriptions(
    PJRT_TopologyDescription_GetDeviceDescriptions_Args* args);

typedef struct PJRT_SerializedTopology PJRT_SerializedTopology;
struct PJRT_TopologyDescription_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const char* serialized_bytes;                  // out
  size_t serialized_bytes_size;                  // out
  PJRT_SerializedTopology* serialized_topology;  // out
  void (*serialized_topology_deleter)(PJRT_SerializedTopology* serialized_topology);
};
typedef struct PJRT_TopologyDescription_Serialize_Args PJRT_TopologyDescription_Serialize_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_Serialize_Args, serialized_topology_deleter);

typedef PJRT_Error* PJRT_TopologyDescription_Serialize(
    PJRT_TopologyDescription_Serialize_Args* args);

struct PJRT_TopologyDescription_Deserialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* serialized_topology;
  size_t serialized_topology_size;
  PJRT_TopologyDescription* topology;  // out
};
typedef struct PJRT_TopologyDescription_Deserialize_Args PJRT_TopologyDescription_Deserialize_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_Deserialize_Args, topology);

typedef PJRT_Error* PJRT_TopologyDescription_Deserialize(
    PJRT_TopologyDescription_Deserialize_Args* args);

struct PJRT_TopologyDescription_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const PJRT_NamedValue* attributes;  // out
  size_t num_attributes;              // out
};
typedef struct PJRT_TopologyDescription_Attributes_Args PJRT_TopologyDescription_Attributes_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_Attributes_Args, num_attributes);

typedef PJRT_Error* PJRT_TopologyDescription_Attributes(
    PJRT_TopologyDescription_Attributes_Args* args);

struct PJRT_TopologyDescription_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  uint64_t fingerprint;  // out
};
typedef struct PJRT_TopologyDescription_Fingerprint_Args PJRT_TopologyDescription_Fingerprint_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_Fingerprint_Args, fingerprint);

typedef PJRT_Error* PJRT_TopologyDescription_Fingerprint(
    PJRT_TopologyDescription_Fingerprint_Args* args);

struct PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  int memory_space_kind_id;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
  const PJRT_Buffer_MemoryLayout* layout;
  const char* serialized_shape;                   // out
  size_t serialized_shape_size;                   // out
  void (*serialized_shape_deleter)(const char*);  // out
};
typedef struct PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args
    PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args,
                      serialized_shape_deleter);

typedef PJRT_Error* PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace(
    PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args* args);

struct PJRT_TopologyDescription_GetMemorySpaceKindIds_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  const int* memory_space_kind_ids;  // out
  size_t num_memory_space_kind_ids;  // out
};
typedef struct PJRT_TopologyDescription_GetMemorySpaceKindIds_Args
    PJRT_TopologyDescription_GetMemorySpaceKindIds_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args,
                      num_memory_space_kind_ids);

typedef PJRT_Error* PJRT_TopologyDescription_GetMemorySpaceKindIds(
    PJRT_TopologyDescription_GetMemorySpaceKindIds_Args* args);

struct PJRT_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  const PJRT_Program* program;
  const char* compile_options;
  size_t compile_options_size;
  PJRT_Client* client;
  PJRT_Executable* executable;  // out
};
typedef struct PJRT_Compile_Args PJRT_Compile_Args;
KILN_PJRT_STRUCT_SIZE(PJRT_Compile_Args, executable);

typedef PJRT_Error* PJRT_Compile(PJRT_Compile_Args* args);

// ---- The function table a plugin returns from GetPjrtApi: one entry per function, in this order.

// Every entry of PJRT_Api after its version, in the table's order. A plugin fills every one
// (a client does not check for NULL); kiln's plugins and plugin-check walk this list.
#define KILN_PJRT_API_FUNCTIONS(X)                             \
  X(PJRT_Error_Destroy)                                        \
  X(PJRT_Error_Message)                                        \
  X(PJRT_Error_GetCode)                                        \
  X(PJRT_Plugin_Initialize)                                    \
  X(PJRT_Plugin_Attributes)                                    \
  X(PJRT_Event_Destroy)                                        \
  X(PJRT_Event_IsReady)                                        \
  X(PJRT_Event_Error)                                          \
  X(PJRT_Event_Await)                                          \
  X(PJRT_Event_OnReady)                                        \
  X(PJRT_Client_Create)                                        \
  X(PJRT_Client_Destroy)                                       \
  X(PJRT_Client_PlatformName)                                  \
  X(PJRT_Client_ProcessIndex)                                  \
  X(PJRT_Client_PlatformVersion)                               \
  X(PJRT_Client_Devices)                                       \
  X(PJRT_Client_AddressableDevices)                            \
  X(PJRT_Client_LookupDevice)                                  \
  X(PJRT_Client_LookupAddressableDevice)                       \
  X(PJRT_Client_AddressableMemories)                           \
  X(PJRT_Client_Compile)                                       \
  X(PJRT_Client_DefaultDeviceAssignment)                       \
  X(PJRT_Client_BufferFromHostBuffer)                          \
  X(PJRT_DeviceDescription_Id)                                 \
  X(PJRT_DeviceDescription_ProcessIndex)                       \
  X(PJRT_DeviceDescription_Attributes)                         \
  X(PJRT_DeviceDescription_Kind)                               \
  X(PJRT_DeviceDescription_DebugString)                        \
  X(PJRT_DeviceDescription_ToString)                           \
  X(PJRT_Device_GetDescription)                                \
  X(PJRT_Device_IsAddressable)                                 \
  X(PJRT_Device_LocalHardwareId)                               \
  X(PJRT_Device_AddressableMemories)                           \
  X(PJRT_Device_DefaultMemory)                                 \
  X(PJRT_Device_MemoryStats)                                   \
  X(PJRT_Memory_Id)                                            \
  X(PJRT_Memory_Kind)                                          \
  X(PJRT_Memory_DebugString)                                   \
  X(PJRT_Memory_ToString)                                      \
  X(PJRT_Memory_AddressableByDevices)                          \
  X(PJRT_Executable_Destroy)                                   \
  X(PJRT_Executable_Name)                                      \
  X(PJRT_Executable_NumReplicas)                               \
  X(PJRT_Executable_NumPartitions)                             \
  X(PJRT_Executable_NumOutputs)                                \
  X(PJRT_Executable_SizeOfGeneratedCodeInBytes)                \
  X(PJRT_Executable_GetCostAnalysis)                           \
  X(PJRT_Executable_OutputMemoryKinds)                         \
  X(PJRT_Executable_OptimizedProgram)                          \
  X(PJRT_Executable_Serialize)                                 \
  X(PJRT_LoadedExecutable_Destroy)                             \
  X(PJRT_LoadedExecutable_GetExecutable)                       \
  X(PJRT_LoadedExecutable_AddressableDevices)                  \
  X(PJRT_LoadedExecutable_Delete)                              \
  X(PJRT_LoadedExecutable_IsDeleted)                           \
  X(PJRT_LoadedExecutable_Execute)                             \
  X(PJRT_Executable_DeserializeAndLoad)                        \
  X(PJRT_LoadedExecutable_Fingerprint)                         \
  X(PJRT_Buffer_Destroy)                                       \
  X(PJRT_Buffer_ElementType)                                   \
  X(PJRT_Buffer_Dimensions)                                    \
  X(PJRT_Buffer_UnpaddedDimensions)                            \
  X(PJRT_Buffer_DynamicDimensionIndices)                       \
  X(PJRT_Buffer_GetMemoryLayout)                               \
  X(PJRT_Buffer_OnDeviceSizeInBytes)                           \
  X(PJRT_Buffer_Device)                                        \
  X(PJRT_Buffer_Memory)                                        \
  X(PJRT_Buffer_Delete)                                        \
  X(PJRT_Buffer_IsDeleted)                                     \
  X(PJRT_Buffer_CopyToDevice)                                  \
  X(PJRT_Buffer_ToHostBuffer)                                  \
  X(PJRT_Buffer_IsOnCpu)                                       \
  X(PJRT_Buffer_ReadyEvent)                                    \
  X(PJRT_Buffer_UnsafePointer)                                 \
  X(PJRT_Buffer_IncreaseExternalReferenceCount)                \
  X(PJRT_Buffer_DecreaseExternalReferenceCount)                \
  X(PJRT_Buffer_OpaqueDeviceMemoryDataPointer)                 \
  X(PJRT_CopyToDeviceStream_Destroy)                           \
  X(PJRT_CopyToDeviceStream_AddChunk)                          \
  X(PJRT_CopyToDeviceStream_TotalBytes)                        \
  X(PJRT_CopyToDeviceStream_GranuleSize)                       \
  X(PJRT_CopyToDeviceStream_CurrentBytes)                      \
  X(PJRT_TopologyDescription_Create)                           \
  X(PJRT_TopologyDescription_Destroy)                          \
  X(PJRT_TopologyDescription_PlatformName)                     \
  X(PJRT_TopologyDescription_PlatformVersion)                  \
  X(PJRT_TopologyDescription_GetDeviceDescriptions)            \
  X(PJRT_TopologyDescription_Serialize)                        \
  X(PJRT_TopologyDescription_Attributes)                       \
  X(PJRT_Compile)                                              \
  X(PJRT_Executable_OutputElementTypes)                        \
  X(PJRT_Executable_OutputDimensions)                          \
  X(PJRT_Buffer_CopyToMemory)                                  \
  X(PJRT_Client_CreateViewOfDeviceBuffer)                      \
  X(PJRT_Executable_Fingerprint)                               \
  X(PJRT_Client_TopologyDescription)                           \
  X(PJRT_Executable_GetCompiledMemoryStats)                    \
  X(PJRT_Memory_Kind_Id)                                       \
  X(PJRT_ExecuteContext_Create)                                \
  X(PJRT_ExecuteContext_Destroy)                               \
  X(PJRT_Buffer_CopyRawToHost)                                 \
  X(PJRT_AsyncHostToDeviceTransferManager_Destroy)             \
  X(PJRT_AsyncHostToDeviceTransferManager_TransferData)        \
  X(PJRT_Client_CreateBuffersForAsyncHostToDevice)             \
  X(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer)      \
  X(PJRT_AsyncHostToDeviceTransferManager_Device)              \
  X(PJRT_AsyncHostToDeviceTransferManager_BufferCount)         \
  X(PJRT_AsyncHostToDeviceTransferManager_BufferSize)          \
  X(PJRT_AsyncHostToDeviceTransferManager_SetBufferError)      \
  X(PJRT_AsyncHostToDeviceTransferManager_AddMetadata)         \
  X(PJRT_Client_DmaMap)                                        \
  X(PJRT_Client_DmaUnmap)                                      \
  X(PJRT_Client_CreateUninitializedBuffer)                     \
  X(PJRT_Client_UpdateGlobalProcessInfo)                       \
  X(PJRT_TopologyDescription_Deserialize)                      \
  X(PJRT_Client_CreateAliasBuffer)                             \
  X(PJRT_Client_FulfillAliasBuffer)                            \
  X(PJRT_LoadedExecutable_GetDeviceAssignment)                 \
  X(PJRT_Client_CreateErrorBuffer)                             \
  X(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral)     \
  X(PJRT_Buffer_CopyRawToHostFuture)                           \
  X(PJRT_Device_PoisonExecution)                               \
  X(PJRT_Device_CreateAsyncTrackingEvent)                      \
  X(PJRT_AsyncTrackingEvent_Destroy)                           \
  X(PJRT_Executable_GetCompileOptions)                         \
  X(PJRT_Buffer_DonateWithControlDependency)                   \
  X(PJRT_Event_Create)                                         \
  X(PJRT_Event_Set)                                            \
  X(PJRT_Device_GetAttributes)                                 \
  X(PJRT_Client_Load)                                          \
  X(PJRT_LoadedExecutable_AddressableDeviceLogicalIds)         \
  X(PJRT_Buffer_Bitcast)                                       \
  X(PJRT_Error_ForEachPayload)                                 \
  X(PJRT_TopologyDescription_Fingerprint)                      \
  X(PJRT_Executable_ParameterMemoryKinds)                      \
  X(PJRT_Device_ClearMemoryStats)                              \
  X(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace) \
  X(PJRT_TopologyDescription_GetMemorySpaceKindIds)

#define KILN_PJRT_API_ENTRY(name) name* name;
typedef struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Api_Version pjrt_api_version;
  KILN_PJRT_API_FUNCTIONS(KILN_PJRT_API_ENTRY)
} PJRT_Api;
#undef KILN_PJRT_API_ENTRY

KILN_PJRT_STRUCT_SIZE(PJRT_Api, PJRT_TopologyDescription_GetMemorySpaceKindIds);

// What a plugin exports, by this name: its table, which lives as long as the process.
const PJRT_Api* GetPjrtApi(void);

#ifdef __cplusplus
}
#endif

#endif  // KILN_PJRT_C_API_H
