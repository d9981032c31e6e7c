/* kiln's declaration of PJRT's C ABI (include/kiln/pjrt/c_api.h) against the published
   one: every struct's sizeof and struct_size, every field's offset, every enumerator's value
   and every function's place in PJRT_Api, as openxla/xla's xla/pjrt/c/pjrt_c_api.h at
   PJRT C API 0.112 gives them. The numbers were measured once by compiling that header
   with GCC 12 for x86-64 Linux (LP64); a client built against the published header and a
   plugin built against kiln's must agree on every one of them. Compiled as C11, against
   kiln's header alone. Prints each mismatch, then "pjrt_layout_test: ok" or fails. */
#include <kiln/pjrt/c_api.h>

#include <stdio.h>

// The published numbers: a struct's sizeof and its _STRUCT_SIZE constant, a field's offset
// (PJRT_Api's entries too), an enumerator's value.
#define PUBLISHED(KILN_SIZE, KILN_STRUCT_SIZE, KILN_OFFSET, KILN_VALUE)                            \
  KILN_SIZE(PJRT_Extension_Base, 24)                                                               \
  KILN_STRUCT_SIZE(PJRT_Extension_Base, 24)                                                        \
  KILN_OFFSET(PJRT_Extension_Base, struct_size, 0)                                                 \
  KILN_OFFSET(PJRT_Extension_Base, type, 8)                                                        \
  KILN_OFFSET(PJRT_Extension_Base, next, 16)                                                       \
  KILN_SIZE(PJRT_Api_Version, 24)                                                                  \
  KILN_STRUCT_SIZE(PJRT_Api_Version, 24)                                                           \
  KILN_OFFSET(PJRT_Api_Version, struct_size, 0)                                                    \
  KILN_OFFSET(PJRT_Api_Version, extension_start, 8)                                                \
  KILN_OFFSET(PJRT_Api_Version, major_version, 16)                                                 \
  KILN_OFFSET(PJRT_Api_Version, minor_version, 20)                                                 \
  KILN_SIZE(PJRT_Error_Destroy_Args, 24)                                                           \
  KILN_STRUCT_SIZE(PJRT_Error_Destroy_Args, 24)                                                    \
  KILN_OFFSET(PJRT_Error_Destroy_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Error_Destroy_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Error_Destroy_Args, error, 16)                                                  \
  KILN_SIZE(PJRT_Error_Message_Args, 40)                                                           \
  KILN_STRUCT_SIZE(PJRT_Error_Message_Args, 40)                                                    \
  KILN_OFFSET(PJRT_Error_Message_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Error_Message_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Error_Message_Args, error, 16)                                                  \
  KILN_OFFSET(PJRT_Error_Message_Args, message, 24)                                                \
  KILN_OFFSET(PJRT_Error_Message_Args, message_size, 32)                                           \
  KILN_SIZE(PJRT_Error_FunctionTable, 56)                                                          \
  KILN_STRUCT_SIZE(PJRT_Error_FunctionTable, 56)                                                   \
  KILN_OFFSET(PJRT_Error_FunctionTable, struct_size, 0)                                            \
  KILN_OFFSET(PJRT_Error_FunctionTable, instance_size, 8)                                          \
  KILN_OFFSET(PJRT_Error_FunctionTable, extension_start, 16)                                       \
  KILN_OFFSET(PJRT_Error_FunctionTable, destroy, 24)                                               \
  KILN_OFFSET(PJRT_Error_FunctionTable, message, 32)                                               \
  KILN_OFFSET(PJRT_Error_FunctionTable, get_code, 40)                                              \
  KILN_OFFSET(PJRT_Error_FunctionTable, for_each_payload, 48)                                      \
  KILN_SIZE(PJRT_Error, 8)                                                                         \
  KILN_STRUCT_SIZE(PJRT_Error, 8)                                                                  \
  KILN_OFFSET(PJRT_Error, vtable, 0)                                                               \
  KILN_SIZE(PJRT_Error_GetCode_Args, 32)                                                           \
  KILN_STRUCT_SIZE(PJRT_Error_GetCode_Args, 28)                                                    \
  KILN_OFFSET(PJRT_Error_GetCode_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Error_GetCode_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Error_GetCode_Args, error, 16)                                                  \
  KILN_OFFSET(PJRT_Error_GetCode_Args, code, 24)                                                   \
  KILN_SIZE(PJRT_Error_ForEachPayload_Args, 40)                                                    \
  KILN_STRUCT_SIZE(PJRT_Error_ForEachPayload_Args, 40)                                             \
  KILN_OFFSET(PJRT_Error_ForEachPayload_Args, struct_size, 0)                                      \
  KILN_OFFSET(PJRT_Error_ForEachPayload_Args, extension_start, 8)                                  \
  KILN_OFFSET(PJRT_Error_ForEachPayload_Args, error, 16)                                           \
  KILN_OFFSET(PJRT_Error_ForEachPayload_Args, visitor, 24)                                         \
  KILN_OFFSET(PJRT_Error_ForEachPayload_Args, user_arg, 32)                                        \
  KILN_SIZE(PJRT_NamedValue, 56)                                                                   \
  KILN_STRUCT_SIZE(PJRT_NamedValue, 56)                                                            \
  KILN_OFFSET(PJRT_NamedValue, struct_size, 0)                                                     \
  KILN_OFFSET(PJRT_NamedValue, extension_start, 8)                                                 \
  KILN_OFFSET(PJRT_NamedValue, name, 16)                                                           \
  KILN_OFFSET(PJRT_NamedValue, name_size, 24)                                                      \
  KILN_OFFSET(PJRT_NamedValue, type, 32)                                                           \
  KILN_OFFSET(PJRT_NamedValue, string_value, 40)                                                   \
  KILN_OFFSET(PJRT_NamedValue, int64_value, 40)                                                    \
  KILN_OFFSET(PJRT_NamedValue, int64_array_value, 40)                                              \
  KILN_OFFSET(PJRT_NamedValue, float_value, 40)                                                    \
  KILN_OFFSET(PJRT_NamedValue, bool_value, 40)                                                     \
  KILN_OFFSET(PJRT_NamedValue, value_size, 48)                                                     \
  KILN_SIZE(PJRT_Plugin_Initialize_Args, 16)                                                       \
  KILN_STRUCT_SIZE(PJRT_Plugin_Initialize_Args, 16)                                                \
  KILN_OFFSET(PJRT_Plugin_Initialize_Args, struct_size, 0)                                         \
  KILN_OFFSET(PJRT_Plugin_Initialize_Args, extension_start, 8)                                     \
  KILN_SIZE(PJRT_Plugin_Attributes_Args, 32)                                                       \
  KILN_STRUCT_SIZE(PJRT_Plugin_Attributes_Args, 32)                                                \
  KILN_OFFSET(PJRT_Plugin_Attributes_Args, struct_size, 0)                                         \
  KILN_OFFSET(PJRT_Plugin_Attributes_Args, extension_start, 8)                                     \
  KILN_OFFSET(PJRT_Plugin_Attributes_Args, attributes, 16)                                         \
  KILN_OFFSET(PJRT_Plugin_Attributes_Args, num_attributes, 24)                                     \
  KILN_SIZE(PJRT_Event_Destroy_Args, 24)                                                           \
  KILN_STRUCT_SIZE(PJRT_Event_Destroy_Args, 24)                                                    \
  KILN_OFFSET(PJRT_Event_Destroy_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Event_Destroy_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Event_Destroy_Args, event, 16)                                                  \
  KILN_SIZE(PJRT_Event_IsReady_Args, 32)                                                           \
  KILN_STRUCT_SIZE(PJRT_Event_IsReady_Args, 25)                                                    \
  KILN_OFFSET(PJRT_Event_IsReady_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Event_IsReady_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Event_IsReady_Args, event, 16)                                                  \
  KILN_OFFSET(PJRT_Event_IsReady_Args, is_ready, 24)                                               \
  KILN_SIZE(PJRT_Event_Error_Args, 24)                                                             \
  KILN_STRUCT_SIZE(PJRT_Event_Error_Args, 24)                                                      \
  KILN_OFFSET(PJRT_Event_Error_Args, struct_size, 0)                                               \
  KILN_OFFSET(PJRT_Event_Error_Args, extension_start, 8)                                           \
  KILN_OFFSET(PJRT_Event_Error_Args, event, 16)                                                    \
  KILN_SIZE(PJRT_Event_Await_Args, 24)                                                             \
  KILN_STRUCT_SIZE(PJRT_Event_Await_Args, 24)                                                      \
  KILN_OFFSET(PJRT_Event_Await_Args, struct_size, 0)                                               \
  KILN_OFFSET(PJRT_Event_Await_Args, extension_start, 8)                                           \
  KILN_OFFSET(PJRT_Event_Await_Args, event, 16)                                                    \
  KILN_SIZE(PJRT_Event_OnReady_Args, 40)                                                           \
  KILN_STRUCT_SIZE(PJRT_Event_OnReady_Args, 40)                                                    \
  KILN_OFFSET(PJRT_Event_OnReady_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Event_OnReady_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Event_OnReady_Args, event, 16)                                                  \
  KILN_OFFSET(PJRT_Event_OnReady_Args, callback, 24)                                               \
  KILN_OFFSET(PJRT_Event_OnReady_Args, user_arg, 32)                                               \
  KILN_SIZE(PJRT_Event_Create_Args, 24)                                                            \
  KILN_STRUCT_SIZE(PJRT_Event_Create_Args, 24)                                                     \
  KILN_OFFSET(PJRT_Event_Create_Args, struct_size, 0)                                              \
  KILN_OFFSET(PJRT_Event_Create_Args, extension_start, 8)                                          \
  KILN_OFFSET(PJRT_Event_Create_Args, event, 16)                                                   \
  KILN_SIZE(PJRT_Event_Set_Args, 48)                                                               \
  KILN_STRUCT_SIZE(PJRT_Event_Set_Args, 48)                                                        \
  KILN_OFFSET(PJRT_Event_Set_Args, struct_size, 0)                                                 \
  KILN_OFFSET(PJRT_Event_Set_Args, extension_start, 8)                                             \
  KILN_OFFSET(PJRT_Event_Set_Args, event, 16)                                                      \
  KILN_OFFSET(PJRT_Event_Set_Args, error_code, 24)                                                 \
  KILN_OFFSET(PJRT_Event_Set_Args, error_message, 32)                                              \
  KILN_OFFSET(PJRT_Event_Set_Args, error_message_size, 40)                                         \
  KILN_SIZE(PJRT_Memory_FunctionTable, 40)                                                         \
  KILN_STRUCT_SIZE(PJRT_Memory_FunctionTable, 40)                                                  \
  KILN_OFFSET(PJRT_Memory_FunctionTable, struct_size, 0)                                           \
  KILN_OFFSET(PJRT_Memory_FunctionTable, extension_start, 8)                                       \
  KILN_OFFSET(PJRT_Memory_FunctionTable, instance_struct_size, 16)                                 \
  KILN_OFFSET(PJRT_Memory_FunctionTable, get_user_data, 24)                                        \
  KILN_OFFSET(PJRT_Memory_FunctionTable, set_user_data, 32)                                        \
  KILN_SIZE(PJRT_Memory, 8)                                                                        \
  KILN_STRUCT_SIZE(PJRT_Memory, 8)                                                                 \
  KILN_OFFSET(PJRT_Memory, vtable, 0)                                                              \
  KILN_SIZE(PJRT_KeyValueGetCallback_Args, 80)                                                     \
  KILN_STRUCT_SIZE(PJRT_KeyValueGetCallback_Args, 80)                                              \
  KILN_OFFSET(PJRT_KeyValueGetCallback_Args, struct_size, 0)                                       \
  KILN_OFFSET(PJRT_KeyValueGetCallback_Args, extension_start, 8)                                   \
  KILN_OFFSET(PJRT_KeyValueGetCallback_Args, key, 16)                                              \
  KILN_OFFSET(PJRT_KeyValueGetCallback_Args, key_size, 24)                                         \
  KILN_OFFSET(PJRT_KeyValueGetCallback_Args, timeout_in_ms, 32)                                    \
  KILN_OFFSET(PJRT_KeyValueGetCallback_Args, callback_error, 40)                                   \
  KILN_OFFSET(PJRT_KeyValueGetCallback_Args, user_arg, 48)                                         \
  KILN_OFFSET(PJRT_KeyValueGetCallback_Args, value, 56)                                            \
  KILN_OFFSET(PJRT_KeyValueGetCallback_Args, value_size, 64)                                       \
  KILN_OFFSET(PJRT_KeyValueGetCallback_Args, value_deleter_callback, 72)                           \
  KILN_SIZE(PJRT_KeyValueTryGetCallback_Args, 72)                                                  \
  KILN_STRUCT_SIZE(PJRT_KeyValueTryGetCallback_Args, 72)                                           \
  KILN_OFFSET(PJRT_KeyValueTryGetCallback_Args, struct_size, 0)                                    \
  KILN_OFFSET(PJRT_KeyValueTryGetCallback_Args, extension_start, 8)                                \
  KILN_OFFSET(PJRT_KeyValueTryGetCallback_Args, key, 16)                                           \
  KILN_OFFSET(PJRT_KeyValueTryGetCallback_Args, key_size, 24)                                      \
  KILN_OFFSET(PJRT_KeyValueTryGetCallback_Args, callback_error, 32)                                \
  KILN_OFFSET(PJRT_KeyValueTryGetCallback_Args, user_arg, 40)                                      \
  KILN_OFFSET(PJRT_KeyValueTryGetCallback_Args, value, 48)                                         \
  KILN_OFFSET(PJRT_KeyValueTryGetCallback_Args, value_size, 56)                                    \
  KILN_OFFSET(PJRT_KeyValueTryGetCallback_Args, value_deleter_callback, 64)                        \
  KILN_SIZE(PJRT_KeyValuePutCallback_Args, 64)                                                     \
  KILN_STRUCT_SIZE(PJRT_KeyValuePutCallback_Args, 64)                                              \
  KILN_OFFSET(PJRT_KeyValuePutCallback_Args, struct_size, 0)                                       \
  KILN_OFFSET(PJRT_KeyValuePutCallback_Args, extension_start, 8)                                   \
  KILN_OFFSET(PJRT_KeyValuePutCallback_Args, key, 16)                                              \
  KILN_OFFSET(PJRT_KeyValuePutCallback_Args, key_size, 24)                                         \
  KILN_OFFSET(PJRT_KeyValuePutCallback_Args, value, 32)                                            \
  KILN_OFFSET(PJRT_KeyValuePutCallback_Args, value_size, 40)                                       \
  KILN_OFFSET(PJRT_KeyValuePutCallback_Args, callback_error, 48)                                   \
  KILN_OFFSET(PJRT_KeyValuePutCallback_Args, user_arg, 56)                                         \
  KILN_SIZE(PJRT_Client_Create_Args, 88)                                                           \
  KILN_STRUCT_SIZE(PJRT_Client_Create_Args, 88)                                                    \
  KILN_OFFSET(PJRT_Client_Create_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Client_Create_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Client_Create_Args, create_options, 16)                                         \
  KILN_OFFSET(PJRT_Client_Create_Args, num_options, 24)                                            \
  KILN_OFFSET(PJRT_Client_Create_Args, kv_get_callback, 32)                                        \
  KILN_OFFSET(PJRT_Client_Create_Args, kv_get_user_arg, 40)                                        \
  KILN_OFFSET(PJRT_Client_Create_Args, kv_put_callback, 48)                                        \
  KILN_OFFSET(PJRT_Client_Create_Args, kv_put_user_arg, 56)                                        \
  KILN_OFFSET(PJRT_Client_Create_Args, client, 64)                                                 \
  KILN_OFFSET(PJRT_Client_Create_Args, kv_try_get_callback, 72)                                    \
  KILN_OFFSET(PJRT_Client_Create_Args, kv_try_get_user_arg, 80)                                    \
  KILN_SIZE(PJRT_Client_Destroy_Args, 24)                                                          \
  KILN_STRUCT_SIZE(PJRT_Client_Destroy_Args, 24)                                                   \
  KILN_OFFSET(PJRT_Client_Destroy_Args, struct_size, 0)                                            \
  KILN_OFFSET(PJRT_Client_Destroy_Args, extension_start, 8)                                        \
  KILN_OFFSET(PJRT_Client_Destroy_Args, client, 16)                                                \
  KILN_SIZE(PJRT_Client_PlatformName_Args, 40)                                                     \
  KILN_STRUCT_SIZE(PJRT_Client_PlatformName_Args, 40)                                              \
  KILN_OFFSET(PJRT_Client_PlatformName_Args, struct_size, 0)                                       \
  KILN_OFFSET(PJRT_Client_PlatformName_Args, extension_start, 8)                                   \
  KILN_OFFSET(PJRT_Client_PlatformName_Args, client, 16)                                           \
  KILN_OFFSET(PJRT_Client_PlatformName_Args, platform_name, 24)                                    \
  KILN_OFFSET(PJRT_Client_PlatformName_Args, platform_name_size, 32)                               \
  KILN_SIZE(PJRT_Client_ProcessIndex_Args, 32)                                                     \
  KILN_STRUCT_SIZE(PJRT_Client_ProcessIndex_Args, 28)                                              \
  KILN_OFFSET(PJRT_Client_ProcessIndex_Args, struct_size, 0)                                       \
  KILN_OFFSET(PJRT_Client_ProcessIndex_Args, extension_start, 8)                                   \
  KILN_OFFSET(PJRT_Client_ProcessIndex_Args, client, 16)                                           \
  KILN_OFFSET(PJRT_Client_ProcessIndex_Args, process_index, 24)                                    \
  KILN_SIZE(PJRT_Client_PlatformVersion_Args, 40)                                                  \
  KILN_STRUCT_SIZE(PJRT_Client_PlatformVersion_Args, 40)                                           \
  KILN_OFFSET(PJRT_Client_PlatformVersion_Args, struct_size, 0)                                    \
  KILN_OFFSET(PJRT_Client_PlatformVersion_Args, extension_start, 8)                                \
  KILN_OFFSET(PJRT_Client_PlatformVersion_Args, client, 16)                                        \
  KILN_OFFSET(PJRT_Client_PlatformVersion_Args, platform_version, 24)                              \
  KILN_OFFSET(PJRT_Client_PlatformVersion_Args, platform_version_size, 32)                         \
  KILN_SIZE(PJRT_Client_TopologyDescription_Args, 32)                                              \
  KILN_STRUCT_SIZE(PJRT_Client_TopologyDescription_Args, 32)                                       \
  KILN_OFFSET(PJRT_Client_TopologyDescription_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_Client_TopologyDescription_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_Client_TopologyDescription_Args, client, 16)                                    \
  KILN_OFFSET(PJRT_Client_TopologyDescription_Args, topology, 24)                                  \
  KILN_SIZE(PJRT_Client_Devices_Args, 40)                                                          \
  KILN_STRUCT_SIZE(PJRT_Client_Devices_Args, 40)                                                   \
  KILN_OFFSET(PJRT_Client_Devices_Args, struct_size, 0)                                            \
  KILN_OFFSET(PJRT_Client_Devices_Args, extension_start, 8)                                        \
  KILN_OFFSET(PJRT_Client_Devices_Args, client, 16)                                                \
  KILN_OFFSET(PJRT_Client_Devices_Args, devices, 24)                                               \
  KILN_OFFSET(PJRT_Client_Devices_Args, num_devices, 32)                                           \
  KILN_SIZE(PJRT_Client_AddressableDevices_Args, 40)                                               \
  KILN_STRUCT_SIZE(PJRT_Client_AddressableDevices_Args, 40)                                        \
  KILN_OFFSET(PJRT_Client_AddressableDevices_Args, struct_size, 0)                                 \
  KILN_OFFSET(PJRT_Client_AddressableDevices_Args, extension_start, 8)                             \
  KILN_OFFSET(PJRT_Client_AddressableDevices_Args, client, 16)                                     \
  KILN_OFFSET(PJRT_Client_AddressableDevices_Args, addressable_devices, 24)                        \
  KILN_OFFSET(PJRT_Client_AddressableDevices_Args, num_addressable_devices, 32)                    \
  KILN_SIZE(PJRT_Client_LookupDevice_Args, 40)                                                     \
  KILN_STRUCT_SIZE(PJRT_Client_LookupDevice_Args, 40)                                              \
  KILN_OFFSET(PJRT_Client_LookupDevice_Args, struct_size, 0)                                       \
  KILN_OFFSET(PJRT_Client_LookupDevice_Args, extension_start, 8)                                   \
  KILN_OFFSET(PJRT_Client_LookupDevice_Args, client, 16)                                           \
  KILN_OFFSET(PJRT_Client_LookupDevice_Args, id, 24)                                               \
  KILN_OFFSET(PJRT_Client_LookupDevice_Args, device, 32)                                           \
  KILN_SIZE(PJRT_Client_LookupAddressableDevice_Args, 40)                                          \
  KILN_STRUCT_SIZE(PJRT_Client_LookupAddressableDevice_Args, 40)                                   \
  KILN_OFFSET(PJRT_Client_LookupAddressableDevice_Args, struct_size, 0)                            \
  KILN_OFFSET(PJRT_Client_LookupAddressableDevice_Args, extension_start, 8)                        \
  KILN_OFFSET(PJRT_Client_LookupAddressableDevice_Args, client, 16)                                \
  KILN_OFFSET(PJRT_Client_LookupAddressableDevice_Args, local_hardware_id, 24)                     \
  KILN_OFFSET(PJRT_Client_LookupAddressableDevice_Args, addressable_device, 32)                    \
  KILN_SIZE(PJRT_ProcessInfo, 48)                                                                  \
  KILN_STRUCT_SIZE(PJRT_ProcessInfo, 48)                                                           \
  KILN_OFFSET(PJRT_ProcessInfo, struct_size, 0)                                                    \
  KILN_OFFSET(PJRT_ProcessInfo, task_id, 8)                                                        \
  KILN_OFFSET(PJRT_ProcessInfo, incarnation_id, 16)                                                \
  KILN_OFFSET(PJRT_ProcessInfo, state, 24)                                                         \
  KILN_OFFSET(PJRT_ProcessInfo, error_code, 28)                                                    \
  KILN_OFFSET(PJRT_ProcessInfo, error_message, 32)                                                 \
  KILN_OFFSET(PJRT_ProcessInfo, error_message_size, 40)                                            \
  KILN_SIZE(PJRT_Client_UpdateGlobalProcessInfo_Args, 40)                                          \
  KILN_STRUCT_SIZE(PJRT_Client_UpdateGlobalProcessInfo_Args, 40)                                   \
  KILN_OFFSET(PJRT_Client_UpdateGlobalProcessInfo_Args, struct_size, 0)                            \
  KILN_OFFSET(PJRT_Client_UpdateGlobalProcessInfo_Args, extension_start, 8)                        \
  KILN_OFFSET(PJRT_Client_UpdateGlobalProcessInfo_Args, client, 16)                                \
  KILN_OFFSET(PJRT_Client_UpdateGlobalProcessInfo_Args, process_infos, 24)                         \
  KILN_OFFSET(PJRT_Client_UpdateGlobalProcessInfo_Args, num_process_infos, 32)                     \
  KILN_SIZE(PJRT_Client_AddressableMemories_Args, 40)                                              \
  KILN_STRUCT_SIZE(PJRT_Client_AddressableMemories_Args, 40)                                       \
  KILN_OFFSET(PJRT_Client_AddressableMemories_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_Client_AddressableMemories_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_Client_AddressableMemories_Args, client, 16)                                    \
  KILN_OFFSET(PJRT_Client_AddressableMemories_Args, addressable_memories, 24)                      \
  KILN_OFFSET(PJRT_Client_AddressableMemories_Args, num_addressable_memories, 32)                  \
  KILN_SIZE(PJRT_Program, 48)                                                                      \
  KILN_STRUCT_SIZE(PJRT_Program, 48)                                                               \
  KILN_OFFSET(PJRT_Program, struct_size, 0)                                                        \
  KILN_OFFSET(PJRT_Program, extension_start, 8)                                                    \
  KILN_OFFSET(PJRT_Program, code, 16)                                                              \
  KILN_OFFSET(PJRT_Program, code_size, 24)                                                         \
  KILN_OFFSET(PJRT_Program, format, 32)                                                            \
  KILN_OFFSET(PJRT_Program, format_size, 40)                                                       \
  KILN_SIZE(PJRT_Client_Compile_Args, 56)                                                          \
  KILN_STRUCT_SIZE(PJRT_Client_Compile_Args, 56)                                                   \
  KILN_OFFSET(PJRT_Client_Compile_Args, struct_size, 0)                                            \
  KILN_OFFSET(PJRT_Client_Compile_Args, extension_start, 8)                                        \
  KILN_OFFSET(PJRT_Client_Compile_Args, client, 16)                                                \
  KILN_OFFSET(PJRT_Client_Compile_Args, program, 24)                                               \
  KILN_OFFSET(PJRT_Client_Compile_Args, compile_options, 32)                                       \
  KILN_OFFSET(PJRT_Client_Compile_Args, compile_options_size, 40)                                  \
  KILN_OFFSET(PJRT_Client_Compile_Args, executable, 48)                                            \
  KILN_SIZE(PJRT_Client_Load_Args, 56)                                                             \
  KILN_STRUCT_SIZE(PJRT_Client_Load_Args, 56)                                                      \
  KILN_OFFSET(PJRT_Client_Load_Args, struct_size, 0)                                               \
  KILN_OFFSET(PJRT_Client_Load_Args, extension_start, 8)                                           \
  KILN_OFFSET(PJRT_Client_Load_Args, client, 16)                                                   \
  KILN_OFFSET(PJRT_Client_Load_Args, executable, 24)                                               \
  KILN_OFFSET(PJRT_Client_Load_Args, compile_options, 32)                                          \
  KILN_OFFSET(PJRT_Client_Load_Args, compile_options_size, 40)                                     \
  KILN_OFFSET(PJRT_Client_Load_Args, loaded_executable, 48)                                        \
  KILN_SIZE(PJRT_Client_DefaultDeviceAssignment_Args, 48)                                          \
  KILN_STRUCT_SIZE(PJRT_Client_DefaultDeviceAssignment_Args, 48)                                   \
  KILN_OFFSET(PJRT_Client_DefaultDeviceAssignment_Args, struct_size, 0)                            \
  KILN_OFFSET(PJRT_Client_DefaultDeviceAssignment_Args, extension_start, 8)                        \
  KILN_OFFSET(PJRT_Client_DefaultDeviceAssignment_Args, client, 16)                                \
  KILN_OFFSET(PJRT_Client_DefaultDeviceAssignment_Args, num_replicas, 24)                          \
  KILN_OFFSET(PJRT_Client_DefaultDeviceAssignment_Args, num_partitions, 28)                        \
  KILN_OFFSET(PJRT_Client_DefaultDeviceAssignment_Args, default_assignment_size, 32)               \
  KILN_OFFSET(PJRT_Client_DefaultDeviceAssignment_Args, default_assignment, 40)                    \
  KILN_SIZE(PJRT_Client_DmaMap_Args, 40)                                                           \
  KILN_STRUCT_SIZE(PJRT_Client_DmaMap_Args, 40)                                                    \
  KILN_OFFSET(PJRT_Client_DmaMap_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Client_DmaMap_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Client_DmaMap_Args, client, 16)                                                 \
  KILN_OFFSET(PJRT_Client_DmaMap_Args, data, 24)                                                   \
  KILN_OFFSET(PJRT_Client_DmaMap_Args, size, 32)                                                   \
  KILN_SIZE(PJRT_Client_DmaUnmap_Args, 32)                                                         \
  KILN_STRUCT_SIZE(PJRT_Client_DmaUnmap_Args, 32)                                                  \
  KILN_OFFSET(PJRT_Client_DmaUnmap_Args, struct_size, 0)                                           \
  KILN_OFFSET(PJRT_Client_DmaUnmap_Args, extension_start, 8)                                       \
  KILN_OFFSET(PJRT_Client_DmaUnmap_Args, client, 16)                                               \
  KILN_OFFSET(PJRT_Client_DmaUnmap_Args, data, 24)                                                 \
  KILN_SIZE(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, 24)                                \
  KILN_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, 24)                         \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, struct_size, 0)                  \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, extension_start, 8)              \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args, transfer_manager, 16)            \
  KILN_SIZE(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, 72)                           \
  KILN_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, 72)                    \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, struct_size, 0)             \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, extension_start, 8)         \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, transfer_manager, 16)       \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, buffer_index, 24)           \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, data, 32)                   \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, offset, 40)                 \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, transfer_size, 48)          \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, is_last_transfer, 56)       \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args, done_with_h2d_transfer, 64) \
  KILN_SIZE(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, 40)                         \
  KILN_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, 40)                  \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, struct_size, 0)           \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, extension_start, 8)       \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, transfer_manager, 16)     \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, buffer_index, 24)         \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args, buffer_out, 32)           \
  KILN_SIZE(PJRT_AsyncHostToDeviceTransferManager_Device_Args, 32)                                 \
  KILN_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_Device_Args, 32)                          \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_Device_Args, struct_size, 0)                   \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_Device_Args, extension_start, 8)               \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_Device_Args, transfer_manager, 16)             \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_Device_Args, device_out, 24)                   \
  KILN_SIZE(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args, 32)                            \
  KILN_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args, 32)                     \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args, struct_size, 0)              \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args, extension_start, 8)          \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args, transfer_manager, 16)        \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args, buffer_count, 24)            \
  KILN_SIZE(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, 40)                             \
  KILN_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, 40)                      \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, struct_size, 0)               \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, extension_start, 8)           \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, transfer_manager, 16)         \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, buffer_index, 24)             \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args, buffer_size, 32)              \
  KILN_SIZE(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args, 48)                         \
  KILN_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args, 48)                  \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args, struct_size, 0)           \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args, extension_start, 8)       \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args, transfer_manager, 16)     \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args, buffer_index, 24)         \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args, error_code, 28)           \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args, error_message, 32)        \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args, error_message_size, 40)   \
  KILN_SIZE(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, 40)                            \
  KILN_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, 40)                     \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, struct_size, 0)              \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, extension_start, 8)          \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, transfer_manager, 16)        \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, transfer_metadata, 24)       \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args, num_metadata, 32)            \
  KILN_SIZE(PJRT_Buffer_MemoryLayout_Tiled, 56)                                                    \
  KILN_STRUCT_SIZE(PJRT_Buffer_MemoryLayout_Tiled, 56)                                             \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Tiled, struct_size, 0)                                      \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Tiled, extension_start, 8)                                  \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Tiled, minor_to_major, 16)                                  \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Tiled, minor_to_major_size, 24)                             \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Tiled, tile_dims, 32)                                       \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Tiled, tile_dim_sizes, 40)                                  \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Tiled, num_tiles, 48)                                       \
  KILN_SIZE(PJRT_Buffer_MemoryLayout_Strides, 32)                                                  \
  KILN_STRUCT_SIZE(PJRT_Buffer_MemoryLayout_Strides, 32)                                           \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Strides, struct_size, 0)                                    \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Strides, extension_start, 8)                                \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Strides, byte_strides, 16)                                  \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout_Strides, num_byte_strides, 24)                              \
  KILN_SIZE(PJRT_Buffer_MemoryLayout, 80)                                                          \
  KILN_STRUCT_SIZE(PJRT_Buffer_MemoryLayout, 76)                                                   \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout, struct_size, 0)                                            \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout, extension_start, 8)                                        \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout, tiled, 16)                                                 \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout, strides, 16)                                               \
  KILN_OFFSET(PJRT_Buffer_MemoryLayout, type, 72)                                                  \
  KILN_SIZE(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, 80)                        \
  KILN_STRUCT_SIZE(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, 80)                 \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, struct_size, 0)          \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, extension_start, 8)      \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, transfer_manager, 16)    \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, buffer_index, 24)        \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, data, 32)                \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, shape_dims, 40)          \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, shape_num_dims, 48)      \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, shape_element_type, 56)  \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, shape_layout, 64)        \
  KILN_OFFSET(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args, done_with_h2d_transfer,  \
              72)                                                                                  \
  KILN_SIZE(PJRT_Client_CreateUninitializedBuffer_Args, 80)                                        \
  KILN_STRUCT_SIZE(PJRT_Client_CreateUninitializedBuffer_Args, 80)                                 \
  KILN_OFFSET(PJRT_Client_CreateUninitializedBuffer_Args, struct_size, 0)                          \
  KILN_OFFSET(PJRT_Client_CreateUninitializedBuffer_Args, extension_start, 8)                      \
  KILN_OFFSET(PJRT_Client_CreateUninitializedBuffer_Args, client, 16)                              \
  KILN_OFFSET(PJRT_Client_CreateUninitializedBuffer_Args, shape_dims, 24)                          \
  KILN_OFFSET(PJRT_Client_CreateUninitializedBuffer_Args, shape_num_dims, 32)                      \
  KILN_OFFSET(PJRT_Client_CreateUninitializedBuffer_Args, shape_element_type, 40)                  \
  KILN_OFFSET(PJRT_Client_CreateUninitializedBuffer_Args, shape_layout, 48)                        \
  KILN_OFFSET(PJRT_Client_CreateUninitializedBuffer_Args, device, 56)                              \
  KILN_OFFSET(PJRT_Client_CreateUninitializedBuffer_Args, memory, 64)                              \
  KILN_OFFSET(PJRT_Client_CreateUninitializedBuffer_Args, buffer, 72)                              \
  KILN_SIZE(PJRT_Client_CreateErrorBuffer_Args, 112)                                               \
  KILN_STRUCT_SIZE(PJRT_Client_CreateErrorBuffer_Args, 112)                                        \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, struct_size, 0)                                  \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, extension_start, 8)                              \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, client, 16)                                      \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, error_code, 24)                                  \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, error_message, 32)                               \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, error_message_size, 40)                          \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, shape_dims, 48)                                  \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, shape_num_dims, 56)                              \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, shape_element_type, 64)                          \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, shape_layout, 72)                                \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, memory, 80)                                      \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, buffer, 88)                                      \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, payload, 96)                                     \
  KILN_OFFSET(PJRT_Client_CreateErrorBuffer_Args, num_payload, 104)                                \
  KILN_SIZE(PJRT_Client_CreateAliasBuffer_Args, 80)                                                \
  KILN_STRUCT_SIZE(PJRT_Client_CreateAliasBuffer_Args, 80)                                         \
  KILN_OFFSET(PJRT_Client_CreateAliasBuffer_Args, struct_size, 0)                                  \
  KILN_OFFSET(PJRT_Client_CreateAliasBuffer_Args, extension_start, 8)                              \
  KILN_OFFSET(PJRT_Client_CreateAliasBuffer_Args, client, 16)                                      \
  KILN_OFFSET(PJRT_Client_CreateAliasBuffer_Args, memory, 24)                                      \
  KILN_OFFSET(PJRT_Client_CreateAliasBuffer_Args, shape_dims, 32)                                  \
  KILN_OFFSET(PJRT_Client_CreateAliasBuffer_Args, shape_num_dims, 40)                              \
  KILN_OFFSET(PJRT_Client_CreateAliasBuffer_Args, shape_element_type, 48)                          \
  KILN_OFFSET(PJRT_Client_CreateAliasBuffer_Args, shape_layout, 56)                                \
  KILN_OFFSET(PJRT_Client_CreateAliasBuffer_Args, alias_buffer, 64)                                \
  KILN_OFFSET(PJRT_Client_CreateAliasBuffer_Args, fulfill_alias_buffer_cb, 72)                     \
  KILN_SIZE(PJRT_Client_FulfillAliasBuffer_Args, 64)                                               \
  KILN_STRUCT_SIZE(PJRT_Client_FulfillAliasBuffer_Args, 64)                                        \
  KILN_OFFSET(PJRT_Client_FulfillAliasBuffer_Args, struct_size, 0)                                 \
  KILN_OFFSET(PJRT_Client_FulfillAliasBuffer_Args, extension_start, 8)                             \
  KILN_OFFSET(PJRT_Client_FulfillAliasBuffer_Args, client, 16)                                     \
  KILN_OFFSET(PJRT_Client_FulfillAliasBuffer_Args, buffer, 24)                                     \
  KILN_OFFSET(PJRT_Client_FulfillAliasBuffer_Args, status_code, 32)                                \
  KILN_OFFSET(PJRT_Client_FulfillAliasBuffer_Args, error_message, 40)                              \
  KILN_OFFSET(PJRT_Client_FulfillAliasBuffer_Args, error_message_size, 48)                         \
  KILN_OFFSET(PJRT_Client_FulfillAliasBuffer_Args, fulfill_alias_buffer_cb, 56)                    \
  KILN_SIZE(PJRT_Client_BufferFromHostBuffer_Args, 120)                                            \
  KILN_STRUCT_SIZE(PJRT_Client_BufferFromHostBuffer_Args, 120)                                     \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, struct_size, 0)                               \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, extension_start, 8)                           \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, client, 16)                                   \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, data, 24)                                     \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, type, 32)                                     \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, dims, 40)                                     \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, num_dims, 48)                                 \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, byte_strides, 56)                             \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, num_byte_strides, 64)                         \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, host_buffer_semantics, 72)                    \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, device, 80)                                   \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, memory, 88)                                   \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, device_layout, 96)                            \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, done_with_host_buffer, 104)                   \
  KILN_OFFSET(PJRT_Client_BufferFromHostBuffer_Args, buffer, 112)                                  \
  KILN_SIZE(PJRT_Client_CreateViewOfDeviceBuffer_Args, 112)                                        \
  KILN_STRUCT_SIZE(PJRT_Client_CreateViewOfDeviceBuffer_Args, 112)                                 \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, struct_size, 0)                           \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, extension_start, 8)                       \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, client, 16)                               \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, device_buffer_ptr, 24)                    \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, dims, 32)                                 \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, num_dims, 40)                             \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, element_type, 48)                         \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, layout, 56)                               \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, device, 64)                               \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, on_delete_callback, 72)                   \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, on_delete_callback_arg, 80)               \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, stream, 88)                               \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, buffer, 96)                               \
  KILN_OFFSET(PJRT_Client_CreateViewOfDeviceBuffer_Args, memory, 104)                              \
  KILN_SIZE(PJRT_ShapeSpec, 40)                                                                    \
  KILN_STRUCT_SIZE(PJRT_ShapeSpec, 36)                                                             \
  KILN_OFFSET(PJRT_ShapeSpec, struct_size, 0)                                                      \
  KILN_OFFSET(PJRT_ShapeSpec, extension_start, 8)                                                  \
  KILN_OFFSET(PJRT_ShapeSpec, dims, 16)                                                            \
  KILN_OFFSET(PJRT_ShapeSpec, num_dims, 24)                                                        \
  KILN_OFFSET(PJRT_ShapeSpec, element_type, 32)                                                    \
  KILN_SIZE(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, 72)                                \
  KILN_STRUCT_SIZE(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, 72)                         \
  KILN_OFFSET(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, struct_size, 0)                  \
  KILN_OFFSET(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, extension_start, 8)              \
  KILN_OFFSET(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, client, 16)                      \
  KILN_OFFSET(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, shape_specs, 24)                 \
  KILN_OFFSET(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, num_shape_specs, 32)             \
  KILN_OFFSET(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, device_layouts, 40)              \
  KILN_OFFSET(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, num_device_layouts, 48)          \
  KILN_OFFSET(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, memory, 56)                      \
  KILN_OFFSET(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args, transfer_manager, 64)            \
  KILN_SIZE(PJRT_DeviceDescription_Id_Args, 32)                                                    \
  KILN_STRUCT_SIZE(PJRT_DeviceDescription_Id_Args, 28)                                             \
  KILN_OFFSET(PJRT_DeviceDescription_Id_Args, struct_size, 0)                                      \
  KILN_OFFSET(PJRT_DeviceDescription_Id_Args, extension_start, 8)                                  \
  KILN_OFFSET(PJRT_DeviceDescription_Id_Args, device_description, 16)                              \
  KILN_OFFSET(PJRT_DeviceDescription_Id_Args, id, 24)                                              \
  KILN_SIZE(PJRT_DeviceDescription_ProcessIndex_Args, 32)                                          \
  KILN_STRUCT_SIZE(PJRT_DeviceDescription_ProcessIndex_Args, 28)                                   \
  KILN_OFFSET(PJRT_DeviceDescription_ProcessIndex_Args, struct_size, 0)                            \
  KILN_OFFSET(PJRT_DeviceDescription_ProcessIndex_Args, extension_start, 8)                        \
  KILN_OFFSET(PJRT_DeviceDescription_ProcessIndex_Args, device_description, 16)                    \
  KILN_OFFSET(PJRT_DeviceDescription_ProcessIndex_Args, process_index, 24)                         \
  KILN_SIZE(PJRT_DeviceDescription_Attributes_Args, 40)                                            \
  KILN_STRUCT_SIZE(PJRT_DeviceDescription_Attributes_Args, 40)                                     \
  KILN_OFFSET(PJRT_DeviceDescription_Attributes_Args, struct_size, 0)                              \
  KILN_OFFSET(PJRT_DeviceDescription_Attributes_Args, extension_start, 8)                          \
  KILN_OFFSET(PJRT_DeviceDescription_Attributes_Args, device_description, 16)                      \
  KILN_OFFSET(PJRT_DeviceDescription_Attributes_Args, num_attributes, 24)                          \
  KILN_OFFSET(PJRT_DeviceDescription_Attributes_Args, attributes, 32)                              \
  KILN_SIZE(PJRT_DeviceDescription_Kind_Args, 40)                                                  \
  KILN_STRUCT_SIZE(PJRT_DeviceDescription_Kind_Args, 40)                                           \
  KILN_OFFSET(PJRT_DeviceDescription_Kind_Args, struct_size, 0)                                    \
  KILN_OFFSET(PJRT_DeviceDescription_Kind_Args, extension_start, 8)                                \
  KILN_OFFSET(PJRT_DeviceDescription_Kind_Args, device_description, 16)                            \
  KILN_OFFSET(PJRT_DeviceDescription_Kind_Args, device_kind, 24)                                   \
  KILN_OFFSET(PJRT_DeviceDescription_Kind_Args, device_kind_size, 32)                              \
  KILN_SIZE(PJRT_DeviceDescription_DebugString_Args, 40)                                           \
  KILN_STRUCT_SIZE(PJRT_DeviceDescription_DebugString_Args, 40)                                    \
  KILN_OFFSET(PJRT_DeviceDescription_DebugString_Args, struct_size, 0)                             \
  KILN_OFFSET(PJRT_DeviceDescription_DebugString_Args, extension_start, 8)                         \
  KILN_OFFSET(PJRT_DeviceDescription_DebugString_Args, device_description, 16)                     \
  KILN_OFFSET(PJRT_DeviceDescription_DebugString_Args, debug_string, 24)                           \
  KILN_OFFSET(PJRT_DeviceDescription_DebugString_Args, debug_string_size, 32)                      \
  KILN_SIZE(PJRT_DeviceDescription_ToString_Args, 40)                                              \
  KILN_STRUCT_SIZE(PJRT_DeviceDescription_ToString_Args, 40)                                       \
  KILN_OFFSET(PJRT_DeviceDescription_ToString_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_DeviceDescription_ToString_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_DeviceDescription_ToString_Args, device_description, 16)                        \
  KILN_OFFSET(PJRT_DeviceDescription_ToString_Args, to_string, 24)                                 \
  KILN_OFFSET(PJRT_DeviceDescription_ToString_Args, to_string_size, 32)                            \
  KILN_SIZE(PJRT_Device_GetDescription_Args, 32)                                                   \
  KILN_STRUCT_SIZE(PJRT_Device_GetDescription_Args, 32)                                            \
  KILN_OFFSET(PJRT_Device_GetDescription_Args, struct_size, 0)                                     \
  KILN_OFFSET(PJRT_Device_GetDescription_Args, extension_start, 8)                                 \
  KILN_OFFSET(PJRT_Device_GetDescription_Args, device, 16)                                         \
  KILN_OFFSET(PJRT_Device_GetDescription_Args, device_description, 24)                             \
  KILN_SIZE(PJRT_Device_IsAddressable_Args, 32)                                                    \
  KILN_STRUCT_SIZE(PJRT_Device_IsAddressable_Args, 25)                                             \
  KILN_OFFSET(PJRT_Device_IsAddressable_Args, struct_size, 0)                                      \
  KILN_OFFSET(PJRT_Device_IsAddressable_Args, extension_start, 8)                                  \
  KILN_OFFSET(PJRT_Device_IsAddressable_Args, device, 16)                                          \
  KILN_OFFSET(PJRT_Device_IsAddressable_Args, is_addressable, 24)                                  \
  KILN_SIZE(PJRT_Device_LocalHardwareId_Args, 32)                                                  \
  KILN_STRUCT_SIZE(PJRT_Device_LocalHardwareId_Args, 28)                                           \
  KILN_OFFSET(PJRT_Device_LocalHardwareId_Args, struct_size, 0)                                    \
  KILN_OFFSET(PJRT_Device_LocalHardwareId_Args, extension_start, 8)                                \
  KILN_OFFSET(PJRT_Device_LocalHardwareId_Args, device, 16)                                        \
  KILN_OFFSET(PJRT_Device_LocalHardwareId_Args, local_hardware_id, 24)                             \
  KILN_SIZE(PJRT_Device_AddressableMemories_Args, 40)                                              \
  KILN_STRUCT_SIZE(PJRT_Device_AddressableMemories_Args, 40)                                       \
  KILN_OFFSET(PJRT_Device_AddressableMemories_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_Device_AddressableMemories_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_Device_AddressableMemories_Args, device, 16)                                    \
  KILN_OFFSET(PJRT_Device_AddressableMemories_Args, memories, 24)                                  \
  KILN_OFFSET(PJRT_Device_AddressableMemories_Args, num_memories, 32)                              \
  KILN_SIZE(PJRT_Device_DefaultMemory_Args, 32)                                                    \
  KILN_STRUCT_SIZE(PJRT_Device_DefaultMemory_Args, 32)                                             \
  KILN_OFFSET(PJRT_Device_DefaultMemory_Args, struct_size, 0)                                      \
  KILN_OFFSET(PJRT_Device_DefaultMemory_Args, extension_start, 8)                                  \
  KILN_OFFSET(PJRT_Device_DefaultMemory_Args, device, 16)                                          \
  KILN_OFFSET(PJRT_Device_DefaultMemory_Args, memory, 24)                                          \
  KILN_SIZE(PJRT_Device_MemoryStats_Args, 192)                                                     \
  KILN_STRUCT_SIZE(PJRT_Device_MemoryStats_Args, 185)                                              \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, struct_size, 0)                                        \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, extension_start, 8)                                    \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, device, 16)                                            \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, bytes_in_use, 24)                                      \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, peak_bytes_in_use, 32)                                 \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, peak_bytes_in_use_is_set, 40)                          \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, num_allocs, 48)                                        \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, num_allocs_is_set, 56)                                 \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, largest_alloc_size, 64)                                \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, largest_alloc_size_is_set, 72)                         \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, bytes_limit, 80)                                       \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, bytes_limit_is_set, 88)                                \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, bytes_reserved, 96)                                    \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, bytes_reserved_is_set, 104)                            \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, peak_bytes_reserved, 112)                              \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, peak_bytes_reserved_is_set, 120)                       \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, bytes_reservable_limit, 128)                           \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, bytes_reservable_limit_is_set, 136)                    \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, largest_free_block_bytes, 144)                         \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, largest_free_block_bytes_is_set, 152)                  \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, pool_bytes, 160)                                       \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, pool_bytes_is_set, 168)                                \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, peak_pool_bytes, 176)                                  \
  KILN_OFFSET(PJRT_Device_MemoryStats_Args, peak_pool_bytes_is_set, 184)                           \
  KILN_SIZE(PJRT_Device_ClearMemoryStats_Args, 24)                                                 \
  KILN_STRUCT_SIZE(PJRT_Device_ClearMemoryStats_Args, 24)                                          \
  KILN_OFFSET(PJRT_Device_ClearMemoryStats_Args, struct_size, 0)                                   \
  KILN_OFFSET(PJRT_Device_ClearMemoryStats_Args, extension_start, 8)                               \
  KILN_OFFSET(PJRT_Device_ClearMemoryStats_Args, device, 16)                                       \
  KILN_SIZE(PJRT_Device_PoisonExecution_Args, 72)                                                  \
  KILN_STRUCT_SIZE(PJRT_Device_PoisonExecution_Args, 72)                                           \
  KILN_OFFSET(PJRT_Device_PoisonExecution_Args, struct_size, 0)                                    \
  KILN_OFFSET(PJRT_Device_PoisonExecution_Args, extension_start, 8)                                \
  KILN_OFFSET(PJRT_Device_PoisonExecution_Args, device, 16)                                        \
  KILN_OFFSET(PJRT_Device_PoisonExecution_Args, launch_id, 24)                                     \
  KILN_OFFSET(PJRT_Device_PoisonExecution_Args, error_code, 28)                                    \
  KILN_OFFSET(PJRT_Device_PoisonExecution_Args, error_message, 32)                                 \
  KILN_OFFSET(PJRT_Device_PoisonExecution_Args, error_message_size, 40)                            \
  KILN_OFFSET(PJRT_Device_PoisonExecution_Args, poisoned, 48)                                      \
  KILN_OFFSET(PJRT_Device_PoisonExecution_Args, payload, 56)                                       \
  KILN_OFFSET(PJRT_Device_PoisonExecution_Args, num_payload, 64)                                   \
  KILN_SIZE(PJRT_Device_GetAttributes_Args, 56)                                                    \
  KILN_STRUCT_SIZE(PJRT_Device_GetAttributes_Args, 56)                                             \
  KILN_OFFSET(PJRT_Device_GetAttributes_Args, struct_size, 0)                                      \
  KILN_OFFSET(PJRT_Device_GetAttributes_Args, extension_start, 8)                                  \
  KILN_OFFSET(PJRT_Device_GetAttributes_Args, device, 16)                                          \
  KILN_OFFSET(PJRT_Device_GetAttributes_Args, attributes, 24)                                      \
  KILN_OFFSET(PJRT_Device_GetAttributes_Args, num_attributes, 32)                                  \
  KILN_OFFSET(PJRT_Device_GetAttributes_Args, device_attributes, 40)                               \
  KILN_OFFSET(PJRT_Device_GetAttributes_Args, attributes_deleter, 48)                              \
  KILN_SIZE(PJRT_Device_CreateAsyncTrackingEvent_Args, 48)                                         \
  KILN_STRUCT_SIZE(PJRT_Device_CreateAsyncTrackingEvent_Args, 48)                                  \
  KILN_OFFSET(PJRT_Device_CreateAsyncTrackingEvent_Args, struct_size, 0)                           \
  KILN_OFFSET(PJRT_Device_CreateAsyncTrackingEvent_Args, extension_start, 8)                       \
  KILN_OFFSET(PJRT_Device_CreateAsyncTrackingEvent_Args, device, 16)                               \
  KILN_OFFSET(PJRT_Device_CreateAsyncTrackingEvent_Args, description, 24)                          \
  KILN_OFFSET(PJRT_Device_CreateAsyncTrackingEvent_Args, description_size, 32)                     \
  KILN_OFFSET(PJRT_Device_CreateAsyncTrackingEvent_Args, event, 40)                                \
  KILN_SIZE(PJRT_AsyncTrackingEvent_Destroy_Args, 24)                                              \
  KILN_STRUCT_SIZE(PJRT_AsyncTrackingEvent_Destroy_Args, 24)                                       \
  KILN_OFFSET(PJRT_AsyncTrackingEvent_Destroy_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_AsyncTrackingEvent_Destroy_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_AsyncTrackingEvent_Destroy_Args, event, 16)                                     \
  KILN_SIZE(PJRT_Memory_Id_Args, 32)                                                               \
  KILN_STRUCT_SIZE(PJRT_Memory_Id_Args, 28)                                                        \
  KILN_OFFSET(PJRT_Memory_Id_Args, struct_size, 0)                                                 \
  KILN_OFFSET(PJRT_Memory_Id_Args, extension_start, 8)                                             \
  KILN_OFFSET(PJRT_Memory_Id_Args, memory, 16)                                                     \
  KILN_OFFSET(PJRT_Memory_Id_Args, id, 24)                                                         \
  KILN_SIZE(PJRT_Memory_Kind_Args, 40)                                                             \
  KILN_STRUCT_SIZE(PJRT_Memory_Kind_Args, 40)                                                      \
  KILN_OFFSET(PJRT_Memory_Kind_Args, struct_size, 0)                                               \
  KILN_OFFSET(PJRT_Memory_Kind_Args, extension_start, 8)                                           \
  KILN_OFFSET(PJRT_Memory_Kind_Args, memory, 16)                                                   \
  KILN_OFFSET(PJRT_Memory_Kind_Args, kind, 24)                                                     \
  KILN_OFFSET(PJRT_Memory_Kind_Args, kind_size, 32)                                                \
  KILN_SIZE(PJRT_Memory_Kind_Id_Args, 32)                                                          \
  KILN_STRUCT_SIZE(PJRT_Memory_Kind_Id_Args, 28)                                                   \
  KILN_OFFSET(PJRT_Memory_Kind_Id_Args, struct_size, 0)                                            \
  KILN_OFFSET(PJRT_Memory_Kind_Id_Args, extension_start, 8)                                        \
  KILN_OFFSET(PJRT_Memory_Kind_Id_Args, memory, 16)                                                \
  KILN_OFFSET(PJRT_Memory_Kind_Id_Args, kind_id, 24)                                               \
  KILN_SIZE(PJRT_Memory_DebugString_Args, 40)                                                      \
  KILN_STRUCT_SIZE(PJRT_Memory_DebugString_Args, 40)                                               \
  KILN_OFFSET(PJRT_Memory_DebugString_Args, struct_size, 0)                                        \
  KILN_OFFSET(PJRT_Memory_DebugString_Args, extension_start, 8)                                    \
  KILN_OFFSET(PJRT_Memory_DebugString_Args, memory, 16)                                            \
  KILN_OFFSET(PJRT_Memory_DebugString_Args, debug_string, 24)                                      \
  KILN_OFFSET(PJRT_Memory_DebugString_Args, debug_string_size, 32)                                 \
  KILN_SIZE(PJRT_Memory_ToString_Args, 40)                                                         \
  KILN_STRUCT_SIZE(PJRT_Memory_ToString_Args, 40)                                                  \
  KILN_OFFSET(PJRT_Memory_ToString_Args, struct_size, 0)                                           \
  KILN_OFFSET(PJRT_Memory_ToString_Args, extension_start, 8)                                       \
  KILN_OFFSET(PJRT_Memory_ToString_Args, memory, 16)                                               \
  KILN_OFFSET(PJRT_Memory_ToString_Args, to_string, 24)                                            \
  KILN_OFFSET(PJRT_Memory_ToString_Args, to_string_size, 32)                                       \
  KILN_SIZE(PJRT_Memory_AddressableByDevices_Args, 40)                                             \
  KILN_STRUCT_SIZE(PJRT_Memory_AddressableByDevices_Args, 40)                                      \
  KILN_OFFSET(PJRT_Memory_AddressableByDevices_Args, struct_size, 0)                               \
  KILN_OFFSET(PJRT_Memory_AddressableByDevices_Args, extension_start, 8)                           \
  KILN_OFFSET(PJRT_Memory_AddressableByDevices_Args, memory, 16)                                   \
  KILN_OFFSET(PJRT_Memory_AddressableByDevices_Args, devices, 24)                                  \
  KILN_OFFSET(PJRT_Memory_AddressableByDevices_Args, num_devices, 32)                              \
  KILN_SIZE(PJRT_ExecuteContext_Create_Args, 24)                                                   \
  KILN_STRUCT_SIZE(PJRT_ExecuteContext_Create_Args, 24)                                            \
  KILN_OFFSET(PJRT_ExecuteContext_Create_Args, struct_size, 0)                                     \
  KILN_OFFSET(PJRT_ExecuteContext_Create_Args, extension_start, 8)                                 \
  KILN_OFFSET(PJRT_ExecuteContext_Create_Args, context, 16)                                        \
  KILN_SIZE(PJRT_ExecuteContext_Destroy_Args, 24)                                                  \
  KILN_STRUCT_SIZE(PJRT_ExecuteContext_Destroy_Args, 24)                                           \
  KILN_OFFSET(PJRT_ExecuteContext_Destroy_Args, struct_size, 0)                                    \
  KILN_OFFSET(PJRT_ExecuteContext_Destroy_Args, extension_start, 8)                                \
  KILN_OFFSET(PJRT_ExecuteContext_Destroy_Args, context, 16)                                       \
  KILN_SIZE(PJRT_Executable_Destroy_Args, 24)                                                      \
  KILN_STRUCT_SIZE(PJRT_Executable_Destroy_Args, 24)                                               \
  KILN_OFFSET(PJRT_Executable_Destroy_Args, struct_size, 0)                                        \
  KILN_OFFSET(PJRT_Executable_Destroy_Args, extension_start, 8)                                    \
  KILN_OFFSET(PJRT_Executable_Destroy_Args, executable, 16)                                        \
  KILN_SIZE(PJRT_LoadedExecutable_Destroy_Args, 24)                                                \
  KILN_STRUCT_SIZE(PJRT_LoadedExecutable_Destroy_Args, 24)                                         \
  KILN_OFFSET(PJRT_LoadedExecutable_Destroy_Args, struct_size, 0)                                  \
  KILN_OFFSET(PJRT_LoadedExecutable_Destroy_Args, extension_start, 8)                              \
  KILN_OFFSET(PJRT_LoadedExecutable_Destroy_Args, executable, 16)                                  \
  KILN_SIZE(PJRT_LoadedExecutable_GetExecutable_Args, 32)                                          \
  KILN_STRUCT_SIZE(PJRT_LoadedExecutable_GetExecutable_Args, 32)                                   \
  KILN_OFFSET(PJRT_LoadedExecutable_GetExecutable_Args, struct_size, 0)                            \
  KILN_OFFSET(PJRT_LoadedExecutable_GetExecutable_Args, extension_start, 8)                        \
  KILN_OFFSET(PJRT_LoadedExecutable_GetExecutable_Args, loaded_executable, 16)                     \
  KILN_OFFSET(PJRT_LoadedExecutable_GetExecutable_Args, executable, 24)                            \
  KILN_SIZE(PJRT_LoadedExecutable_GetDeviceAssignment_Args, 56)                                    \
  KILN_STRUCT_SIZE(PJRT_LoadedExecutable_GetDeviceAssignment_Args, 56)                             \
  KILN_OFFSET(PJRT_LoadedExecutable_GetDeviceAssignment_Args, struct_size, 0)                      \
  KILN_OFFSET(PJRT_LoadedExecutable_GetDeviceAssignment_Args, extension_start, 8)                  \
  KILN_OFFSET(PJRT_LoadedExecutable_GetDeviceAssignment_Args, executable, 16)                      \
  KILN_OFFSET(PJRT_LoadedExecutable_GetDeviceAssignment_Args, serialized_bytes, 24)                \
  KILN_OFFSET(PJRT_LoadedExecutable_GetDeviceAssignment_Args, serialized_bytes_size, 32)           \
  KILN_OFFSET(PJRT_LoadedExecutable_GetDeviceAssignment_Args, serialized_device_assignment, 40)    \
  KILN_OFFSET(PJRT_LoadedExecutable_GetDeviceAssignment_Args,                                      \
              serialized_device_assignment_deleter, 48)                                            \
  KILN_SIZE(PJRT_Executable_Name_Args, 40)                                                         \
  KILN_STRUCT_SIZE(PJRT_Executable_Name_Args, 40)                                                  \
  KILN_OFFSET(PJRT_Executable_Name_Args, struct_size, 0)                                           \
  KILN_OFFSET(PJRT_Executable_Name_Args, extension_start, 8)                                       \
  KILN_OFFSET(PJRT_Executable_Name_Args, executable, 16)                                           \
  KILN_OFFSET(PJRT_Executable_Name_Args, executable_name, 24)                                      \
  KILN_OFFSET(PJRT_Executable_Name_Args, executable_name_size, 32)                                 \
  KILN_SIZE(PJRT_Executable_NumReplicas_Args, 32)                                                  \
  KILN_STRUCT_SIZE(PJRT_Executable_NumReplicas_Args, 32)                                           \
  KILN_OFFSET(PJRT_Executable_NumReplicas_Args, struct_size, 0)                                    \
  KILN_OFFSET(PJRT_Executable_NumReplicas_Args, extension_start, 8)                                \
  KILN_OFFSET(PJRT_Executable_NumReplicas_Args, executable, 16)                                    \
  KILN_OFFSET(PJRT_Executable_NumReplicas_Args, num_replicas, 24)                                  \
  KILN_SIZE(PJRT_Executable_NumPartitions_Args, 32)                                                \
  KILN_STRUCT_SIZE(PJRT_Executable_NumPartitions_Args, 32)                                         \
  KILN_OFFSET(PJRT_Executable_NumPartitions_Args, struct_size, 0)                                  \
  KILN_OFFSET(PJRT_Executable_NumPartitions_Args, extension_start, 8)                              \
  KILN_OFFSET(PJRT_Executable_NumPartitions_Args, executable, 16)                                  \
  KILN_OFFSET(PJRT_Executable_NumPartitions_Args, num_partitions, 24)                              \
  KILN_SIZE(PJRT_LogicalDeviceIds, 8)                                                              \
  KILN_OFFSET(PJRT_LogicalDeviceIds, replica, 0)                                                   \
  KILN_OFFSET(PJRT_LogicalDeviceIds, partition, 4)                                                 \
  KILN_SIZE(PJRT_LoadedExecutable_AddressableDevices_Args, 40)                                     \
  KILN_STRUCT_SIZE(PJRT_LoadedExecutable_AddressableDevices_Args, 40)                              \
  KILN_OFFSET(PJRT_LoadedExecutable_AddressableDevices_Args, struct_size, 0)                       \
  KILN_OFFSET(PJRT_LoadedExecutable_AddressableDevices_Args, extension_start, 8)                   \
  KILN_OFFSET(PJRT_LoadedExecutable_AddressableDevices_Args, executable, 16)                       \
  KILN_OFFSET(PJRT_LoadedExecutable_AddressableDevices_Args, addressable_devices, 24)              \
  KILN_OFFSET(PJRT_LoadedExecutable_AddressableDevices_Args, num_addressable_devices, 32)          \
  KILN_SIZE(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args, 40)                            \
  KILN_STRUCT_SIZE(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args, 40)                     \
  KILN_OFFSET(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args, struct_size, 0)              \
  KILN_OFFSET(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args, extension_start, 8)          \
  KILN_OFFSET(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args, executable, 16)              \
  KILN_OFFSET(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args,                              \
              addressable_device_logical_ids, 24)                                                  \
  KILN_OFFSET(PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args,                              \
              num_addressable_device_logical_ids, 32)                                              \
  KILN_SIZE(PJRT_Executable_OptimizedProgram_Args, 32)                                             \
  KILN_STRUCT_SIZE(PJRT_Executable_OptimizedProgram_Args, 32)                                      \
  KILN_OFFSET(PJRT_Executable_OptimizedProgram_Args, struct_size, 0)                               \
  KILN_OFFSET(PJRT_Executable_OptimizedProgram_Args, extension_start, 8)                           \
  KILN_OFFSET(PJRT_Executable_OptimizedProgram_Args, executable, 16)                               \
  KILN_OFFSET(PJRT_Executable_OptimizedProgram_Args, program, 24)                                  \
  KILN_SIZE(PJRT_LoadedExecutable_Delete_Args, 24)                                                 \
  KILN_STRUCT_SIZE(PJRT_LoadedExecutable_Delete_Args, 24)                                          \
  KILN_OFFSET(PJRT_LoadedExecutable_Delete_Args, struct_size, 0)                                   \
  KILN_OFFSET(PJRT_LoadedExecutable_Delete_Args, extension_start, 8)                               \
  KILN_OFFSET(PJRT_LoadedExecutable_Delete_Args, executable, 16)                                   \
  KILN_SIZE(PJRT_LoadedExecutable_IsDeleted_Args, 32)                                              \
  KILN_STRUCT_SIZE(PJRT_LoadedExecutable_IsDeleted_Args, 25)                                       \
  KILN_OFFSET(PJRT_LoadedExecutable_IsDeleted_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_LoadedExecutable_IsDeleted_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_LoadedExecutable_IsDeleted_Args, executable, 16)                                \
  KILN_OFFSET(PJRT_LoadedExecutable_IsDeleted_Args, is_deleted, 24)                                \
  KILN_SIZE(PJRT_Chunk, 32)                                                                        \
  KILN_OFFSET(PJRT_Chunk, data, 0)                                                                 \
  KILN_OFFSET(PJRT_Chunk, size, 8)                                                                 \
  KILN_OFFSET(PJRT_Chunk, deleter, 16)                                                             \
  KILN_OFFSET(PJRT_Chunk, deleter_arg, 24)                                                         \
  KILN_SIZE(PJRT_SendCallbackInfo, 24)                                                             \
  KILN_STRUCT_SIZE(PJRT_SendCallbackInfo, 24)                                                      \
  KILN_OFFSET(PJRT_SendCallbackInfo, channel_id, 0)                                                \
  KILN_OFFSET(PJRT_SendCallbackInfo, user_arg, 8)                                                  \
  KILN_OFFSET(PJRT_SendCallbackInfo, send_callback, 16)                                            \
  KILN_SIZE(PJRT_RecvCallbackInfo, 24)                                                             \
  KILN_STRUCT_SIZE(PJRT_RecvCallbackInfo, 24)                                                      \
  KILN_OFFSET(PJRT_RecvCallbackInfo, channel_id, 0)                                                \
  KILN_OFFSET(PJRT_RecvCallbackInfo, user_arg, 8)                                                  \
  KILN_OFFSET(PJRT_RecvCallbackInfo, recv_callback, 16)                                            \
  KILN_SIZE(PJRT_HloOutputCallbackInfo, 32)                                                        \
  KILN_STRUCT_SIZE(PJRT_HloOutputCallbackInfo, 32)                                                 \
  KILN_OFFSET(PJRT_HloOutputCallbackInfo, user_arg, 0)                                             \
  KILN_OFFSET(PJRT_HloOutputCallbackInfo, callback, 8)                                             \
  KILN_OFFSET(PJRT_HloOutputCallbackInfo, callback_id, 16)                                         \
  KILN_OFFSET(PJRT_HloOutputCallbackInfo, num_operands, 24)                                        \
  KILN_SIZE(PJRT_ExecuteOptions, 144)                                                              \
  KILN_STRUCT_SIZE(PJRT_ExecuteOptions, 144)                                                       \
  KILN_OFFSET(PJRT_ExecuteOptions, struct_size, 0)                                                 \
  KILN_OFFSET(PJRT_ExecuteOptions, extension_start, 8)                                             \
  KILN_OFFSET(PJRT_ExecuteOptions, send_callbacks, 16)                                             \
  KILN_OFFSET(PJRT_ExecuteOptions, recv_callbacks, 24)                                             \
  KILN_OFFSET(PJRT_ExecuteOptions, num_send_ops, 32)                                               \
  KILN_OFFSET(PJRT_ExecuteOptions, num_recv_ops, 40)                                               \
  KILN_OFFSET(PJRT_ExecuteOptions, launch_id, 48)                                                  \
  KILN_OFFSET(PJRT_ExecuteOptions, non_donatable_input_indices, 56)                                \
  KILN_OFFSET(PJRT_ExecuteOptions, num_non_donatable_input_indices, 64)                            \
  KILN_OFFSET(PJRT_ExecuteOptions, context, 72)                                                    \
  KILN_OFFSET(PJRT_ExecuteOptions, call_location, 80)                                              \
  KILN_OFFSET(PJRT_ExecuteOptions, num_tasks, 88)                                                  \
  KILN_OFFSET(PJRT_ExecuteOptions, task_ids, 96)                                                   \
  KILN_OFFSET(PJRT_ExecuteOptions, incarnation_ids, 104)                                           \
  KILN_OFFSET(PJRT_ExecuteOptions, multi_slice_config, 112)                                        \
  KILN_OFFSET(PJRT_ExecuteOptions, use_major_to_minor_data_layout_for_callbacks, 120)              \
  KILN_OFFSET(PJRT_ExecuteOptions, hlo_output_callbacks, 128)                                      \
  KILN_OFFSET(PJRT_ExecuteOptions, num_hlo_output_callbacks, 136)                                  \
  KILN_SIZE(PJRT_LoadedExecutable_Execute_Args, 80)                                                \
  KILN_STRUCT_SIZE(PJRT_LoadedExecutable_Execute_Args, 80)                                         \
  KILN_OFFSET(PJRT_LoadedExecutable_Execute_Args, struct_size, 0)                                  \
  KILN_OFFSET(PJRT_LoadedExecutable_Execute_Args, extension_start, 8)                              \
  KILN_OFFSET(PJRT_LoadedExecutable_Execute_Args, executable, 16)                                  \
  KILN_OFFSET(PJRT_LoadedExecutable_Execute_Args, options, 24)                                     \
  KILN_OFFSET(PJRT_LoadedExecutable_Execute_Args, argument_lists, 32)                              \
  KILN_OFFSET(PJRT_LoadedExecutable_Execute_Args, num_devices, 40)                                 \
  KILN_OFFSET(PJRT_LoadedExecutable_Execute_Args, num_args, 48)                                    \
  KILN_OFFSET(PJRT_LoadedExecutable_Execute_Args, output_lists, 56)                                \
  KILN_OFFSET(PJRT_LoadedExecutable_Execute_Args, device_complete_events, 64)                      \
  KILN_OFFSET(PJRT_LoadedExecutable_Execute_Args, execute_device, 72)                              \
  KILN_SIZE(PJRT_Executable_NumOutputs_Args, 32)                                                   \
  KILN_STRUCT_SIZE(PJRT_Executable_NumOutputs_Args, 32)                                            \
  KILN_OFFSET(PJRT_Executable_NumOutputs_Args, struct_size, 0)                                     \
  KILN_OFFSET(PJRT_Executable_NumOutputs_Args, extension_start, 8)                                 \
  KILN_OFFSET(PJRT_Executable_NumOutputs_Args, executable, 16)                                     \
  KILN_OFFSET(PJRT_Executable_NumOutputs_Args, num_outputs, 24)                                    \
  KILN_SIZE(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, 32)                                   \
  KILN_STRUCT_SIZE(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, 32)                            \
  KILN_OFFSET(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, struct_size, 0)                     \
  KILN_OFFSET(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, extension_start, 8)                 \
  KILN_OFFSET(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, executable, 16)                     \
  KILN_OFFSET(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args, size_in_bytes, 24)                  \
  KILN_SIZE(PJRT_Executable_Fingerprint_Args, 40)                                                  \
  KILN_STRUCT_SIZE(PJRT_Executable_Fingerprint_Args, 40)                                           \
  KILN_OFFSET(PJRT_Executable_Fingerprint_Args, struct_size, 0)                                    \
  KILN_OFFSET(PJRT_Executable_Fingerprint_Args, extension_start, 8)                                \
  KILN_OFFSET(PJRT_Executable_Fingerprint_Args, executable, 16)                                    \
  KILN_OFFSET(PJRT_Executable_Fingerprint_Args, executable_fingerprint, 24)                        \
  KILN_OFFSET(PJRT_Executable_Fingerprint_Args, executable_fingerprint_size, 32)                   \
  KILN_SIZE(PJRT_Executable_GetCostAnalysis_Args, 40)                                              \
  KILN_STRUCT_SIZE(PJRT_Executable_GetCostAnalysis_Args, 40)                                       \
  KILN_OFFSET(PJRT_Executable_GetCostAnalysis_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_Executable_GetCostAnalysis_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_Executable_GetCostAnalysis_Args, executable, 16)                                \
  KILN_OFFSET(PJRT_Executable_GetCostAnalysis_Args, num_properties, 24)                            \
  KILN_OFFSET(PJRT_Executable_GetCostAnalysis_Args, properties, 32)                                \
  KILN_SIZE(PJRT_Executable_GetCompiledMemoryStats_Args, 144)                                      \
  KILN_STRUCT_SIZE(PJRT_Executable_GetCompiledMemoryStats_Args, 144)                               \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, struct_size, 0)                         \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, extension_start, 8)                     \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, executable, 16)                         \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, generated_code_size_in_bytes, 24)       \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, argument_size_in_bytes, 32)             \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, output_size_in_bytes, 40)               \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, alias_size_in_bytes, 48)                \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, temp_size_in_bytes, 56)                 \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, host_generated_code_size_in_bytes, 64)  \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, host_argument_size_in_bytes, 72)        \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, host_output_size_in_bytes, 80)          \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, host_alias_size_in_bytes, 88)           \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, host_temp_size_in_bytes, 96)            \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, peak_memory_in_bytes, 104)              \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, total_size_in_bytes, 112)               \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, total_allocation_bytes, 120)            \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, indefinite_allocations, 128)            \
  KILN_OFFSET(PJRT_Executable_GetCompiledMemoryStats_Args, peak_unpadded_heap_bytes, 136)          \
  KILN_SIZE(PJRT_Executable_OutputElementTypes_Args, 40)                                           \
  KILN_STRUCT_SIZE(PJRT_Executable_OutputElementTypes_Args, 40)                                    \
  KILN_OFFSET(PJRT_Executable_OutputElementTypes_Args, struct_size, 0)                             \
  KILN_OFFSET(PJRT_Executable_OutputElementTypes_Args, extension_start, 8)                         \
  KILN_OFFSET(PJRT_Executable_OutputElementTypes_Args, executable, 16)                             \
  KILN_OFFSET(PJRT_Executable_OutputElementTypes_Args, output_types, 24)                           \
  KILN_OFFSET(PJRT_Executable_OutputElementTypes_Args, num_output_types, 32)                       \
  KILN_SIZE(PJRT_Executable_OutputDimensions_Args, 48)                                             \
  KILN_STRUCT_SIZE(PJRT_Executable_OutputDimensions_Args, 48)                                      \
  KILN_OFFSET(PJRT_Executable_OutputDimensions_Args, struct_size, 0)                               \
  KILN_OFFSET(PJRT_Executable_OutputDimensions_Args, extension_start, 8)                           \
  KILN_OFFSET(PJRT_Executable_OutputDimensions_Args, executable, 16)                               \
  KILN_OFFSET(PJRT_Executable_OutputDimensions_Args, num_outputs, 24)                              \
  KILN_OFFSET(PJRT_Executable_OutputDimensions_Args, dims, 32)                                     \
  KILN_OFFSET(PJRT_Executable_OutputDimensions_Args, dim_sizes, 40)                                \
  KILN_SIZE(PJRT_Executable_ParameterMemoryKinds_Args, 48)                                         \
  KILN_STRUCT_SIZE(PJRT_Executable_ParameterMemoryKinds_Args, 48)                                  \
  KILN_OFFSET(PJRT_Executable_ParameterMemoryKinds_Args, struct_size, 0)                           \
  KILN_OFFSET(PJRT_Executable_ParameterMemoryKinds_Args, extension_start, 8)                       \
  KILN_OFFSET(PJRT_Executable_ParameterMemoryKinds_Args, executable, 16)                           \
  KILN_OFFSET(PJRT_Executable_ParameterMemoryKinds_Args, num_parameters, 24)                       \
  KILN_OFFSET(PJRT_Executable_ParameterMemoryKinds_Args, memory_kinds, 32)                         \
  KILN_OFFSET(PJRT_Executable_ParameterMemoryKinds_Args, memory_kind_sizes, 40)                    \
  KILN_SIZE(PJRT_Executable_OutputMemoryKinds_Args, 48)                                            \
  KILN_STRUCT_SIZE(PJRT_Executable_OutputMemoryKinds_Args, 48)                                     \
  KILN_OFFSET(PJRT_Executable_OutputMemoryKinds_Args, struct_size, 0)                              \
  KILN_OFFSET(PJRT_Executable_OutputMemoryKinds_Args, extension_start, 8)                          \
  KILN_OFFSET(PJRT_Executable_OutputMemoryKinds_Args, executable, 16)                              \
  KILN_OFFSET(PJRT_Executable_OutputMemoryKinds_Args, num_outputs, 24)                             \
  KILN_OFFSET(PJRT_Executable_OutputMemoryKinds_Args, memory_kinds, 32)                            \
  KILN_OFFSET(PJRT_Executable_OutputMemoryKinds_Args, memory_kind_sizes, 40)                       \
  KILN_SIZE(PJRT_Executable_Serialize_Args, 56)                                                    \
  KILN_STRUCT_SIZE(PJRT_Executable_Serialize_Args, 56)                                             \
  KILN_OFFSET(PJRT_Executable_Serialize_Args, struct_size, 0)                                      \
  KILN_OFFSET(PJRT_Executable_Serialize_Args, extension_start, 8)                                  \
  KILN_OFFSET(PJRT_Executable_Serialize_Args, executable, 16)                                      \
  KILN_OFFSET(PJRT_Executable_Serialize_Args, serialized_bytes, 24)                                \
  KILN_OFFSET(PJRT_Executable_Serialize_Args, serialized_bytes_size, 32)                           \
  KILN_OFFSET(PJRT_Executable_Serialize_Args, serialized_executable, 40)                           \
  KILN_OFFSET(PJRT_Executable_Serialize_Args, serialized_executable_deleter, 48)                   \
  KILN_SIZE(PJRT_Executable_GetCompileOptions_Args, 56)                                            \
  KILN_STRUCT_SIZE(PJRT_Executable_GetCompileOptions_Args, 56)                                     \
  KILN_OFFSET(PJRT_Executable_GetCompileOptions_Args, struct_size, 0)                              \
  KILN_OFFSET(PJRT_Executable_GetCompileOptions_Args, extension_start, 8)                          \
  KILN_OFFSET(PJRT_Executable_GetCompileOptions_Args, executable, 16)                              \
  KILN_OFFSET(PJRT_Executable_GetCompileOptions_Args, serialized_bytes, 24)                        \
  KILN_OFFSET(PJRT_Executable_GetCompileOptions_Args, serialized_bytes_size, 32)                   \
  KILN_OFFSET(PJRT_Executable_GetCompileOptions_Args, serialized_compile_options, 40)              \
  KILN_OFFSET(PJRT_Executable_GetCompileOptions_Args, serialized_compile_options_deleter, 48)      \
  KILN_SIZE(PJRT_LoadOptions, 32)                                                                  \
  KILN_STRUCT_SIZE(PJRT_LoadOptions, 32)                                                           \
  KILN_OFFSET(PJRT_LoadOptions, struct_size, 0)                                                    \
  KILN_OFFSET(PJRT_LoadOptions, computation_origin, 8)                                             \
  KILN_OFFSET(PJRT_LoadOptions, computation_origin_size, 16)                                       \
  KILN_OFFSET(PJRT_LoadOptions, multi_slice_config, 24)                                            \
  KILN_SIZE(PJRT_Executable_DeserializeAndLoad_Args, 72)                                           \
  KILN_STRUCT_SIZE(PJRT_Executable_DeserializeAndLoad_Args, 72)                                    \
  KILN_OFFSET(PJRT_Executable_DeserializeAndLoad_Args, struct_size, 0)                             \
  KILN_OFFSET(PJRT_Executable_DeserializeAndLoad_Args, extension_start, 8)                         \
  KILN_OFFSET(PJRT_Executable_DeserializeAndLoad_Args, client, 16)                                 \
  KILN_OFFSET(PJRT_Executable_DeserializeAndLoad_Args, serialized_executable, 24)                  \
  KILN_OFFSET(PJRT_Executable_DeserializeAndLoad_Args, serialized_executable_size, 32)             \
  KILN_OFFSET(PJRT_Executable_DeserializeAndLoad_Args, loaded_executable, 40)                      \
  KILN_OFFSET(PJRT_Executable_DeserializeAndLoad_Args, overridden_serialized_compile_options, 48)  \
  KILN_OFFSET(PJRT_Executable_DeserializeAndLoad_Args, overridden_serialized_compile_options_size, \
              56)                                                                                  \
  KILN_OFFSET(PJRT_Executable_DeserializeAndLoad_Args, load_options, 64)                           \
  KILN_SIZE(PJRT_LoadedExecutable_Fingerprint_Args, 40)                                            \
  KILN_STRUCT_SIZE(PJRT_LoadedExecutable_Fingerprint_Args, 40)                                     \
  KILN_OFFSET(PJRT_LoadedExecutable_Fingerprint_Args, struct_size, 0)                              \
  KILN_OFFSET(PJRT_LoadedExecutable_Fingerprint_Args, extension_start, 8)                          \
  KILN_OFFSET(PJRT_LoadedExecutable_Fingerprint_Args, executable, 16)                              \
  KILN_OFFSET(PJRT_LoadedExecutable_Fingerprint_Args, executable_fingerprint, 24)                  \
  KILN_OFFSET(PJRT_LoadedExecutable_Fingerprint_Args, executable_fingerprint_size, 32)             \
  KILN_SIZE(PJRT_Buffer_Destroy_Args, 24)                                                          \
  KILN_STRUCT_SIZE(PJRT_Buffer_Destroy_Args, 24)                                                   \
  KILN_OFFSET(PJRT_Buffer_Destroy_Args, struct_size, 0)                                            \
  KILN_OFFSET(PJRT_Buffer_Destroy_Args, extension_start, 8)                                        \
  KILN_OFFSET(PJRT_Buffer_Destroy_Args, buffer, 16)                                                \
  KILN_SIZE(PJRT_Buffer_ElementType_Args, 32)                                                      \
  KILN_STRUCT_SIZE(PJRT_Buffer_ElementType_Args, 28)                                               \
  KILN_OFFSET(PJRT_Buffer_ElementType_Args, struct_size, 0)                                        \
  KILN_OFFSET(PJRT_Buffer_ElementType_Args, extension_start, 8)                                    \
  KILN_OFFSET(PJRT_Buffer_ElementType_Args, buffer, 16)                                            \
  KILN_OFFSET(PJRT_Buffer_ElementType_Args, type, 24)                                              \
  KILN_SIZE(PJRT_Buffer_Dimensions_Args, 40)                                                       \
  KILN_STRUCT_SIZE(PJRT_Buffer_Dimensions_Args, 40)                                                \
  KILN_OFFSET(PJRT_Buffer_Dimensions_Args, struct_size, 0)                                         \
  KILN_OFFSET(PJRT_Buffer_Dimensions_Args, extension_start, 8)                                     \
  KILN_OFFSET(PJRT_Buffer_Dimensions_Args, buffer, 16)                                             \
  KILN_OFFSET(PJRT_Buffer_Dimensions_Args, dims, 24)                                               \
  KILN_OFFSET(PJRT_Buffer_Dimensions_Args, num_dims, 32)                                           \
  KILN_SIZE(PJRT_Buffer_UnpaddedDimensions_Args, 40)                                               \
  KILN_STRUCT_SIZE(PJRT_Buffer_UnpaddedDimensions_Args, 40)                                        \
  KILN_OFFSET(PJRT_Buffer_UnpaddedDimensions_Args, struct_size, 0)                                 \
  KILN_OFFSET(PJRT_Buffer_UnpaddedDimensions_Args, extension_start, 8)                             \
  KILN_OFFSET(PJRT_Buffer_UnpaddedDimensions_Args, buffer, 16)                                     \
  KILN_OFFSET(PJRT_Buffer_UnpaddedDimensions_Args, unpadded_dims, 24)                              \
  KILN_OFFSET(PJRT_Buffer_UnpaddedDimensions_Args, num_dims, 32)                                   \
  KILN_SIZE(PJRT_Buffer_DynamicDimensionIndices_Args, 40)                                          \
  KILN_STRUCT_SIZE(PJRT_Buffer_DynamicDimensionIndices_Args, 40)                                   \
  KILN_OFFSET(PJRT_Buffer_DynamicDimensionIndices_Args, struct_size, 0)                            \
  KILN_OFFSET(PJRT_Buffer_DynamicDimensionIndices_Args, extension_start, 8)                        \
  KILN_OFFSET(PJRT_Buffer_DynamicDimensionIndices_Args, buffer, 16)                                \
  KILN_OFFSET(PJRT_Buffer_DynamicDimensionIndices_Args, dynamic_dim_indices, 24)                   \
  KILN_OFFSET(PJRT_Buffer_DynamicDimensionIndices_Args, num_dynamic_dims, 32)                      \
  KILN_SIZE(PJRT_Buffer_GetMemoryLayout_Args, 104)                                                 \
  KILN_STRUCT_SIZE(PJRT_Buffer_GetMemoryLayout_Args, 104)                                          \
  KILN_OFFSET(PJRT_Buffer_GetMemoryLayout_Args, struct_size, 0)                                    \
  KILN_OFFSET(PJRT_Buffer_GetMemoryLayout_Args, extension_start, 8)                                \
  KILN_OFFSET(PJRT_Buffer_GetMemoryLayout_Args, buffer, 16)                                        \
  KILN_OFFSET(PJRT_Buffer_GetMemoryLayout_Args, layout, 24)                                        \
  KILN_SIZE(PJRT_Buffer_ToHostBuffer_Args, 56)                                                     \
  KILN_STRUCT_SIZE(PJRT_Buffer_ToHostBuffer_Args, 56)                                              \
  KILN_OFFSET(PJRT_Buffer_ToHostBuffer_Args, struct_size, 0)                                       \
  KILN_OFFSET(PJRT_Buffer_ToHostBuffer_Args, extension_start, 8)                                   \
  KILN_OFFSET(PJRT_Buffer_ToHostBuffer_Args, src, 16)                                              \
  KILN_OFFSET(PJRT_Buffer_ToHostBuffer_Args, host_layout, 24)                                      \
  KILN_OFFSET(PJRT_Buffer_ToHostBuffer_Args, dst, 32)                                              \
  KILN_OFFSET(PJRT_Buffer_ToHostBuffer_Args, dst_size, 40)                                         \
  KILN_OFFSET(PJRT_Buffer_ToHostBuffer_Args, event, 48)                                            \
  KILN_SIZE(PJRT_Buffer_OnDeviceSizeInBytes_Args, 32)                                              \
  KILN_STRUCT_SIZE(PJRT_Buffer_OnDeviceSizeInBytes_Args, 32)                                       \
  KILN_OFFSET(PJRT_Buffer_OnDeviceSizeInBytes_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_Buffer_OnDeviceSizeInBytes_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_Buffer_OnDeviceSizeInBytes_Args, buffer, 16)                                    \
  KILN_OFFSET(PJRT_Buffer_OnDeviceSizeInBytes_Args, on_device_size_in_bytes, 24)                   \
  KILN_SIZE(PJRT_Buffer_Delete_Args, 24)                                                           \
  KILN_STRUCT_SIZE(PJRT_Buffer_Delete_Args, 24)                                                    \
  KILN_OFFSET(PJRT_Buffer_Delete_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Buffer_Delete_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Buffer_Delete_Args, buffer, 16)                                                 \
  KILN_SIZE(PJRT_Buffer_IsDeleted_Args, 32)                                                        \
  KILN_STRUCT_SIZE(PJRT_Buffer_IsDeleted_Args, 25)                                                 \
  KILN_OFFSET(PJRT_Buffer_IsDeleted_Args, struct_size, 0)                                          \
  KILN_OFFSET(PJRT_Buffer_IsDeleted_Args, extension_start, 8)                                      \
  KILN_OFFSET(PJRT_Buffer_IsDeleted_Args, buffer, 16)                                              \
  KILN_OFFSET(PJRT_Buffer_IsDeleted_Args, is_deleted, 24)                                          \
  KILN_SIZE(PJRT_Buffer_CopyRawToHost_Args, 56)                                                    \
  KILN_STRUCT_SIZE(PJRT_Buffer_CopyRawToHost_Args, 56)                                             \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHost_Args, struct_size, 0)                                      \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHost_Args, extension_start, 8)                                  \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHost_Args, buffer, 16)                                          \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHost_Args, dst, 24)                                             \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHost_Args, offset, 32)                                          \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHost_Args, transfer_size, 40)                                   \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHost_Args, event, 48)                                           \
  KILN_SIZE(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, 48)                                     \
  KILN_STRUCT_SIZE(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, 48)                              \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, struct_size, 0)                       \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, callback_data, 8)                     \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, error_code, 16)                       \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, error_message, 24)                    \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, error_message_size, 32)               \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, dst, 40)                              \
  KILN_SIZE(PJRT_Buffer_CopyRawToHostFuture_Args, 64)                                              \
  KILN_STRUCT_SIZE(PJRT_Buffer_CopyRawToHostFuture_Args, 64)                                       \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Args, buffer, 16)                                    \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Args, offset, 24)                                    \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Args, transfer_size, 32)                             \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Args, event, 40)                                     \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Args, callback_data, 48)                             \
  KILN_OFFSET(PJRT_Buffer_CopyRawToHostFuture_Args, future_ready_callback, 56)                     \
  KILN_SIZE(PJRT_Buffer_CopyToDevice_Args, 40)                                                     \
  KILN_STRUCT_SIZE(PJRT_Buffer_CopyToDevice_Args, 40)                                              \
  KILN_OFFSET(PJRT_Buffer_CopyToDevice_Args, struct_size, 0)                                       \
  KILN_OFFSET(PJRT_Buffer_CopyToDevice_Args, extension_start, 8)                                   \
  KILN_OFFSET(PJRT_Buffer_CopyToDevice_Args, buffer, 16)                                           \
  KILN_OFFSET(PJRT_Buffer_CopyToDevice_Args, dst_device, 24)                                       \
  KILN_OFFSET(PJRT_Buffer_CopyToDevice_Args, dst_buffer, 32)                                       \
  KILN_SIZE(PJRT_Buffer_CopyToMemory_Args, 40)                                                     \
  KILN_STRUCT_SIZE(PJRT_Buffer_CopyToMemory_Args, 40)                                              \
  KILN_OFFSET(PJRT_Buffer_CopyToMemory_Args, struct_size, 0)                                       \
  KILN_OFFSET(PJRT_Buffer_CopyToMemory_Args, extension_start, 8)                                   \
  KILN_OFFSET(PJRT_Buffer_CopyToMemory_Args, buffer, 16)                                           \
  KILN_OFFSET(PJRT_Buffer_CopyToMemory_Args, dst_memory, 24)                                       \
  KILN_OFFSET(PJRT_Buffer_CopyToMemory_Args, dst_buffer, 32)                                       \
  KILN_SIZE(PJRT_Buffer_Bitcast_Args, 64)                                                          \
  KILN_STRUCT_SIZE(PJRT_Buffer_Bitcast_Args, 64)                                                   \
  KILN_OFFSET(PJRT_Buffer_Bitcast_Args, struct_size, 0)                                            \
  KILN_OFFSET(PJRT_Buffer_Bitcast_Args, extension_start, 8)                                        \
  KILN_OFFSET(PJRT_Buffer_Bitcast_Args, buffer, 16)                                                \
  KILN_OFFSET(PJRT_Buffer_Bitcast_Args, element_type, 24)                                          \
  KILN_OFFSET(PJRT_Buffer_Bitcast_Args, dims, 32)                                                  \
  KILN_OFFSET(PJRT_Buffer_Bitcast_Args, num_dims, 40)                                              \
  KILN_OFFSET(PJRT_Buffer_Bitcast_Args, device_layout, 48)                                         \
  KILN_OFFSET(PJRT_Buffer_Bitcast_Args, out_buffer, 56)                                            \
  KILN_SIZE(PJRT_Buffer_IsOnCpu_Args, 32)                                                          \
  KILN_STRUCT_SIZE(PJRT_Buffer_IsOnCpu_Args, 25)                                                   \
  KILN_OFFSET(PJRT_Buffer_IsOnCpu_Args, struct_size, 0)                                            \
  KILN_OFFSET(PJRT_Buffer_IsOnCpu_Args, extension_start, 8)                                        \
  KILN_OFFSET(PJRT_Buffer_IsOnCpu_Args, buffer, 16)                                                \
  KILN_OFFSET(PJRT_Buffer_IsOnCpu_Args, is_on_cpu, 24)                                             \
  KILN_SIZE(PJRT_Buffer_Device_Args, 32)                                                           \
  KILN_STRUCT_SIZE(PJRT_Buffer_Device_Args, 32)                                                    \
  KILN_OFFSET(PJRT_Buffer_Device_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Buffer_Device_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Buffer_Device_Args, buffer, 16)                                                 \
  KILN_OFFSET(PJRT_Buffer_Device_Args, device, 24)                                                 \
  KILN_SIZE(PJRT_Buffer_Memory_Args, 32)                                                           \
  KILN_STRUCT_SIZE(PJRT_Buffer_Memory_Args, 32)                                                    \
  KILN_OFFSET(PJRT_Buffer_Memory_Args, struct_size, 0)                                             \
  KILN_OFFSET(PJRT_Buffer_Memory_Args, extension_start, 8)                                         \
  KILN_OFFSET(PJRT_Buffer_Memory_Args, buffer, 16)                                                 \
  KILN_OFFSET(PJRT_Buffer_Memory_Args, memory, 24)                                                 \
  KILN_SIZE(PJRT_Buffer_ReadyEvent_Args, 32)                                                       \
  KILN_STRUCT_SIZE(PJRT_Buffer_ReadyEvent_Args, 32)                                                \
  KILN_OFFSET(PJRT_Buffer_ReadyEvent_Args, struct_size, 0)                                         \
  KILN_OFFSET(PJRT_Buffer_ReadyEvent_Args, extension_start, 8)                                     \
  KILN_OFFSET(PJRT_Buffer_ReadyEvent_Args, buffer, 16)                                             \
  KILN_OFFSET(PJRT_Buffer_ReadyEvent_Args, event, 24)                                              \
  KILN_SIZE(PJRT_Buffer_UnsafePointer_Args, 32)                                                    \
  KILN_STRUCT_SIZE(PJRT_Buffer_UnsafePointer_Args, 32)                                             \
  KILN_OFFSET(PJRT_Buffer_UnsafePointer_Args, struct_size, 0)                                      \
  KILN_OFFSET(PJRT_Buffer_UnsafePointer_Args, extension_start, 8)                                  \
  KILN_OFFSET(PJRT_Buffer_UnsafePointer_Args, buffer, 16)                                          \
  KILN_OFFSET(PJRT_Buffer_UnsafePointer_Args, buffer_pointer, 24)                                  \
  KILN_SIZE(PJRT_Buffer_IncreaseExternalReferenceCount_Args, 24)                                   \
  KILN_STRUCT_SIZE(PJRT_Buffer_IncreaseExternalReferenceCount_Args, 24)                            \
  KILN_OFFSET(PJRT_Buffer_IncreaseExternalReferenceCount_Args, struct_size, 0)                     \
  KILN_OFFSET(PJRT_Buffer_IncreaseExternalReferenceCount_Args, extension_start, 8)                 \
  KILN_OFFSET(PJRT_Buffer_IncreaseExternalReferenceCount_Args, buffer, 16)                         \
  KILN_SIZE(PJRT_Buffer_DecreaseExternalReferenceCount_Args, 24)                                   \
  KILN_STRUCT_SIZE(PJRT_Buffer_DecreaseExternalReferenceCount_Args, 24)                            \
  KILN_OFFSET(PJRT_Buffer_DecreaseExternalReferenceCount_Args, struct_size, 0)                     \
  KILN_OFFSET(PJRT_Buffer_DecreaseExternalReferenceCount_Args, extension_start, 8)                 \
  KILN_OFFSET(PJRT_Buffer_DecreaseExternalReferenceCount_Args, buffer, 16)                         \
  KILN_SIZE(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, 32)                                    \
  KILN_STRUCT_SIZE(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, 32)                             \
  KILN_OFFSET(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, struct_size, 0)                      \
  KILN_OFFSET(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, extension_start, 8)                  \
  KILN_OFFSET(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, buffer, 16)                          \
  KILN_OFFSET(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args, device_memory_ptr, 24)               \
  KILN_SIZE(PJRT_Buffer_DonateWithControlDependency_Callback_Args, 40)                             \
  KILN_STRUCT_SIZE(PJRT_Buffer_DonateWithControlDependency_Callback_Args, 40)                      \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Callback_Args, struct_size, 0)               \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Callback_Args, callback_data, 8)             \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Callback_Args, error_code, 16)               \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Callback_Args, error_message, 24)            \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Callback_Args, error_message_size, 32)       \
  KILN_SIZE(PJRT_Buffer_DonateWithControlDependency_Args, 48)                                      \
  KILN_STRUCT_SIZE(PJRT_Buffer_DonateWithControlDependency_Args, 48)                               \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Args, struct_size, 0)                        \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Args, extension_start, 8)                    \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Args, buffer, 16)                            \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Args, callback_data, 24)                     \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Args, dependency_ready_callback, 32)         \
  KILN_OFFSET(PJRT_Buffer_DonateWithControlDependency_Args, out_buffer, 40)                        \
  KILN_SIZE(PJRT_CopyToDeviceStream_Destroy_Args, 24)                                              \
  KILN_STRUCT_SIZE(PJRT_CopyToDeviceStream_Destroy_Args, 24)                                       \
  KILN_OFFSET(PJRT_CopyToDeviceStream_Destroy_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_CopyToDeviceStream_Destroy_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_CopyToDeviceStream_Destroy_Args, stream, 16)                                    \
  KILN_SIZE(PJRT_CopyToDeviceStream_AddChunk_Args, 40)                                             \
  KILN_STRUCT_SIZE(PJRT_CopyToDeviceStream_AddChunk_Args, 40)                                      \
  KILN_OFFSET(PJRT_CopyToDeviceStream_AddChunk_Args, struct_size, 0)                               \
  KILN_OFFSET(PJRT_CopyToDeviceStream_AddChunk_Args, extension_start, 8)                           \
  KILN_OFFSET(PJRT_CopyToDeviceStream_AddChunk_Args, stream, 16)                                   \
  KILN_OFFSET(PJRT_CopyToDeviceStream_AddChunk_Args, chunk, 24)                                    \
  KILN_OFFSET(PJRT_CopyToDeviceStream_AddChunk_Args, transfer_complete, 32)                        \
  KILN_SIZE(PJRT_CopyToDeviceStream_TotalBytes_Args, 32)                                           \
  KILN_STRUCT_SIZE(PJRT_CopyToDeviceStream_TotalBytes_Args, 32)                                    \
  KILN_OFFSET(PJRT_CopyToDeviceStream_TotalBytes_Args, struct_size, 0)                             \
  KILN_OFFSET(PJRT_CopyToDeviceStream_TotalBytes_Args, extension_start, 8)                         \
  KILN_OFFSET(PJRT_CopyToDeviceStream_TotalBytes_Args, stream, 16)                                 \
  KILN_OFFSET(PJRT_CopyToDeviceStream_TotalBytes_Args, total_bytes, 24)                            \
  KILN_SIZE(PJRT_CopyToDeviceStream_GranuleSize_Args, 32)                                          \
  KILN_STRUCT_SIZE(PJRT_CopyToDeviceStream_GranuleSize_Args, 32)                                   \
  KILN_OFFSET(PJRT_CopyToDeviceStream_GranuleSize_Args, struct_size, 0)                            \
  KILN_OFFSET(PJRT_CopyToDeviceStream_GranuleSize_Args, extension_start, 8)                        \
  KILN_OFFSET(PJRT_CopyToDeviceStream_GranuleSize_Args, stream, 16)                                \
  KILN_OFFSET(PJRT_CopyToDeviceStream_GranuleSize_Args, granule_size_in_bytes, 24)                 \
  KILN_SIZE(PJRT_CopyToDeviceStream_CurrentBytes_Args, 32)                                         \
  KILN_STRUCT_SIZE(PJRT_CopyToDeviceStream_CurrentBytes_Args, 32)                                  \
  KILN_OFFSET(PJRT_CopyToDeviceStream_CurrentBytes_Args, struct_size, 0)                           \
  KILN_OFFSET(PJRT_CopyToDeviceStream_CurrentBytes_Args, extension_start, 8)                       \
  KILN_OFFSET(PJRT_CopyToDeviceStream_CurrentBytes_Args, stream, 16)                               \
  KILN_OFFSET(PJRT_CopyToDeviceStream_CurrentBytes_Args, current_bytes, 24)                        \
  KILN_SIZE(PJRT_TopologyDescription_Create_Args, 56)                                              \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_Create_Args, 56)                                       \
  KILN_OFFSET(PJRT_TopologyDescription_Create_Args, struct_size, 0)                                \
  KILN_OFFSET(PJRT_TopologyDescription_Create_Args, extension_start, 8)                            \
  KILN_OFFSET(PJRT_TopologyDescription_Create_Args, topology_name, 16)                             \
  KILN_OFFSET(PJRT_TopologyDescription_Create_Args, topology_name_size, 24)                        \
  KILN_OFFSET(PJRT_TopologyDescription_Create_Args, create_options, 32)                            \
  KILN_OFFSET(PJRT_TopologyDescription_Create_Args, num_options, 40)                               \
  KILN_OFFSET(PJRT_TopologyDescription_Create_Args, topology, 48)                                  \
  KILN_SIZE(PJRT_TopologyDescription_Destroy_Args, 24)                                             \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_Destroy_Args, 24)                                      \
  KILN_OFFSET(PJRT_TopologyDescription_Destroy_Args, struct_size, 0)                               \
  KILN_OFFSET(PJRT_TopologyDescription_Destroy_Args, extension_start, 8)                           \
  KILN_OFFSET(PJRT_TopologyDescription_Destroy_Args, topology, 16)                                 \
  KILN_SIZE(PJRT_TopologyDescription_PlatformVersion_Args, 40)                                     \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_PlatformVersion_Args, 40)                              \
  KILN_OFFSET(PJRT_TopologyDescription_PlatformVersion_Args, struct_size, 0)                       \
  KILN_OFFSET(PJRT_TopologyDescription_PlatformVersion_Args, extension_start, 8)                   \
  KILN_OFFSET(PJRT_TopologyDescription_PlatformVersion_Args, topology, 16)                         \
  KILN_OFFSET(PJRT_TopologyDescription_PlatformVersion_Args, platform_version, 24)                 \
  KILN_OFFSET(PJRT_TopologyDescription_PlatformVersion_Args, platform_version_size, 32)            \
  KILN_SIZE(PJRT_TopologyDescription_PlatformName_Args, 40)                                        \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_PlatformName_Args, 40)                                 \
  KILN_OFFSET(PJRT_TopologyDescription_PlatformName_Args, struct_size, 0)                          \
  KILN_OFFSET(PJRT_TopologyDescription_PlatformName_Args, extension_start, 8)                      \
  KILN_OFFSET(PJRT_TopologyDescription_PlatformName_Args, topology, 16)                            \
  KILN_OFFSET(PJRT_TopologyDescription_PlatformName_Args, platform_name, 24)                       \
  KILN_OFFSET(PJRT_TopologyDescription_PlatformName_Args, platform_name_size, 32)                  \
  KILN_SIZE(PJRT_TopologyDescription_GetDeviceDescriptions_Args, 40)                               \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_GetDeviceDescriptions_Args, 40)                        \
  KILN_OFFSET(PJRT_TopologyDescription_GetDeviceDescriptions_Args, struct_size, 0)                 \
  KILN_OFFSET(PJRT_TopologyDescription_GetDeviceDescriptions_Args, extension_start, 8)             \
  KILN_OFFSET(PJRT_TopologyDescription_GetDeviceDescriptions_Args, topology, 16)                   \
  KILN_OFFSET(PJRT_TopologyDescription_GetDeviceDescriptions_Args, descriptions, 24)               \
  KILN_OFFSET(PJRT_TopologyDescription_GetDeviceDescriptions_Args, num_descriptions, 32)           \
  KILN_SIZE(PJRT_TopologyDescription_Serialize_Args, 56)                                           \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_Serialize_Args, 56)                                    \
  KILN_OFFSET(PJRT_TopologyDescription_Serialize_Args, struct_size, 0)                             \
  KILN_OFFSET(PJRT_TopologyDescription_Serialize_Args, extension_start, 8)                         \
  KILN_OFFSET(PJRT_TopologyDescription_Serialize_Args, topology, 16)                               \
  KILN_OFFSET(PJRT_TopologyDescription_Serialize_Args, serialized_bytes, 24)                       \
  KILN_OFFSET(PJRT_TopologyDescription_Serialize_Args, serialized_bytes_size, 32)                  \
  KILN_OFFSET(PJRT_TopologyDescription_Serialize_Args, serialized_topology, 40)                    \
  KILN_OFFSET(PJRT_TopologyDescription_Serialize_Args, serialized_topology_deleter, 48)            \
  KILN_SIZE(PJRT_TopologyDescription_Deserialize_Args, 40)                                         \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_Deserialize_Args, 40)                                  \
  KILN_OFFSET(PJRT_TopologyDescription_Deserialize_Args, struct_size, 0)                           \
  KILN_OFFSET(PJRT_TopologyDescription_Deserialize_Args, extension_start, 8)                       \
  KILN_OFFSET(PJRT_TopologyDescription_Deserialize_Args, serialized_topology, 16)                  \
  KILN_OFFSET(PJRT_TopologyDescription_Deserialize_Args, serialized_topology_size, 24)             \
  KILN_OFFSET(PJRT_TopologyDescription_Deserialize_Args, topology, 32)                             \
  KILN_SIZE(PJRT_TopologyDescription_Attributes_Args, 40)                                          \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_Attributes_Args, 40)                                   \
  KILN_OFFSET(PJRT_TopologyDescription_Attributes_Args, struct_size, 0)                            \
  KILN_OFFSET(PJRT_TopologyDescription_Attributes_Args, extension_start, 8)                        \
  KILN_OFFSET(PJRT_TopologyDescription_Attributes_Args, topology, 16)                              \
  KILN_OFFSET(PJRT_TopologyDescription_Attributes_Args, attributes, 24)                            \
  KILN_OFFSET(PJRT_TopologyDescription_Attributes_Args, num_attributes, 32)                        \
  KILN_SIZE(PJRT_TopologyDescription_Fingerprint_Args, 32)                                         \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_Fingerprint_Args, 32)                                  \
  KILN_OFFSET(PJRT_TopologyDescription_Fingerprint_Args, struct_size, 0)                           \
  KILN_OFFSET(PJRT_TopologyDescription_Fingerprint_Args, extension_start, 8)                       \
  KILN_OFFSET(PJRT_TopologyDescription_Fingerprint_Args, topology, 16)                             \
  KILN_OFFSET(PJRT_TopologyDescription_Fingerprint_Args, fingerprint, 24)                          \
  KILN_SIZE(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args, 88)                    \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args, 88)             \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args, struct_size, 0)      \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args, extension_start, 8)  \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args, topology, 16)        \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args,                      \
              memory_space_kind_id, 24)                                                            \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args, dims, 32)            \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args, num_dims, 40)        \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args, element_type, 48)    \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args, layout, 56)          \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args, serialized_shape,    \
              64)                                                                                  \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args,                      \
              serialized_shape_size, 72)                                                           \
  KILN_OFFSET(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace_Args,                      \
              serialized_shape_deleter, 80)                                                        \
  KILN_SIZE(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args, 40)                               \
  KILN_STRUCT_SIZE(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args, 40)                        \
  KILN_OFFSET(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args, struct_size, 0)                 \
  KILN_OFFSET(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args, extension_start, 8)             \
  KILN_OFFSET(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args, topology, 16)                   \
  KILN_OFFSET(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args, memory_space_kind_ids, 24)      \
  KILN_OFFSET(PJRT_TopologyDescription_GetMemorySpaceKindIds_Args, num_memory_space_kind_ids, 32)  \
  KILN_SIZE(PJRT_Compile_Args, 64)                                                                 \
  KILN_STRUCT_SIZE(PJRT_Compile_Args, 64)                                                          \
  KILN_OFFSET(PJRT_Compile_Args, struct_size, 0)                                                   \
  KILN_OFFSET(PJRT_Compile_Args, extension_start, 8)                                               \
  KILN_OFFSET(PJRT_Compile_Args, topology, 16)                                                     \
  KILN_OFFSET(PJRT_Compile_Args, program, 24)                                                      \
  KILN_OFFSET(PJRT_Compile_Args, compile_options, 32)                                              \
  KILN_OFFSET(PJRT_Compile_Args, compile_options_size, 40)                                         \
  KILN_OFFSET(PJRT_Compile_Args, client, 48)                                                       \
  KILN_OFFSET(PJRT_Compile_Args, executable, 56)                                                   \
  KILN_SIZE(PJRT_Api, 1144)                                                                        \
  KILN_STRUCT_SIZE(PJRT_Api, 1144)                                                                 \
  KILN_OFFSET(PJRT_Api, struct_size, 0)                                                            \
  KILN_OFFSET(PJRT_Api, extension_start, 8)                                                        \
  KILN_OFFSET(PJRT_Api, pjrt_api_version, 16)                                                      \
  KILN_OFFSET(PJRT_Api, PJRT_Error_Destroy, 40)                                                    \
  KILN_OFFSET(PJRT_Api, PJRT_Error_Message, 48)                                                    \
  KILN_OFFSET(PJRT_Api, PJRT_Error_GetCode, 56)                                                    \
  KILN_OFFSET(PJRT_Api, PJRT_Plugin_Initialize, 64)                                                \
  KILN_OFFSET(PJRT_Api, PJRT_Plugin_Attributes, 72)                                                \
  KILN_OFFSET(PJRT_Api, PJRT_Event_Destroy, 80)                                                    \
  KILN_OFFSET(PJRT_Api, PJRT_Event_IsReady, 88)                                                    \
  KILN_OFFSET(PJRT_Api, PJRT_Event_Error, 96)                                                      \
  KILN_OFFSET(PJRT_Api, PJRT_Event_Await, 104)                                                     \
  KILN_OFFSET(PJRT_Api, PJRT_Event_OnReady, 112)                                                   \
  KILN_OFFSET(PJRT_Api, PJRT_Client_Create, 120)                                                   \
  KILN_OFFSET(PJRT_Api, PJRT_Client_Destroy, 128)                                                  \
  KILN_OFFSET(PJRT_Api, PJRT_Client_PlatformName, 136)                                             \
  KILN_OFFSET(PJRT_Api, PJRT_Client_ProcessIndex, 144)                                             \
  KILN_OFFSET(PJRT_Api, PJRT_Client_PlatformVersion, 152)                                          \
  KILN_OFFSET(PJRT_Api, PJRT_Client_Devices, 160)                                                  \
  KILN_OFFSET(PJRT_Api, PJRT_Client_AddressableDevices, 168)                                       \
  KILN_OFFSET(PJRT_Api, PJRT_Client_LookupDevice, 176)                                             \
  KILN_OFFSET(PJRT_Api, PJRT_Client_LookupAddressableDevice, 184)                                  \
  KILN_OFFSET(PJRT_Api, PJRT_Client_AddressableMemories, 192)                                      \
  KILN_OFFSET(PJRT_Api, PJRT_Client_Compile, 200)                                                  \
  KILN_OFFSET(PJRT_Api, PJRT_Client_DefaultDeviceAssignment, 208)                                  \
  KILN_OFFSET(PJRT_Api, PJRT_Client_BufferFromHostBuffer, 216)                                     \
  KILN_OFFSET(PJRT_Api, PJRT_DeviceDescription_Id, 224)                                            \
  KILN_OFFSET(PJRT_Api, PJRT_DeviceDescription_ProcessIndex, 232)                                  \
  KILN_OFFSET(PJRT_Api, PJRT_DeviceDescription_Attributes, 240)                                    \
  KILN_OFFSET(PJRT_Api, PJRT_DeviceDescription_Kind, 248)                                          \
  KILN_OFFSET(PJRT_Api, PJRT_DeviceDescription_DebugString, 256)                                   \
  KILN_OFFSET(PJRT_Api, PJRT_DeviceDescription_ToString, 264)                                      \
  KILN_OFFSET(PJRT_Api, PJRT_Device_GetDescription, 272)                                           \
  KILN_OFFSET(PJRT_Api, PJRT_Device_IsAddressable, 280)                                            \
  KILN_OFFSET(PJRT_Api, PJRT_Device_LocalHardwareId, 288)                                          \
  KILN_OFFSET(PJRT_Api, PJRT_Device_AddressableMemories, 296)                                      \
  KILN_OFFSET(PJRT_Api, PJRT_Device_DefaultMemory, 304)                                            \
  KILN_OFFSET(PJRT_Api, PJRT_Device_MemoryStats, 312)                                              \
  KILN_OFFSET(PJRT_Api, PJRT_Memory_Id, 320)                                                       \
  KILN_OFFSET(PJRT_Api, PJRT_Memory_Kind, 328)                                                     \
  KILN_OFFSET(PJRT_Api, PJRT_Memory_DebugString, 336)                                              \
  KILN_OFFSET(PJRT_Api, PJRT_Memory_ToString, 344)                                                 \
  KILN_OFFSET(PJRT_Api, PJRT_Memory_AddressableByDevices, 352)                                     \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_Destroy, 360)                                              \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_Name, 368)                                                 \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_NumReplicas, 376)                                          \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_NumPartitions, 384)                                        \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_NumOutputs, 392)                                           \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_SizeOfGeneratedCodeInBytes, 400)                           \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_GetCostAnalysis, 408)                                      \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_OutputMemoryKinds, 416)                                    \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_OptimizedProgram, 424)                                     \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_Serialize, 432)                                            \
  KILN_OFFSET(PJRT_Api, PJRT_LoadedExecutable_Destroy, 440)                                        \
  KILN_OFFSET(PJRT_Api, PJRT_LoadedExecutable_GetExecutable, 448)                                  \
  KILN_OFFSET(PJRT_Api, PJRT_LoadedExecutable_AddressableDevices, 456)                             \
  KILN_OFFSET(PJRT_Api, PJRT_LoadedExecutable_Delete, 464)                                         \
  KILN_OFFSET(PJRT_Api, PJRT_LoadedExecutable_IsDeleted, 472)                                      \
  KILN_OFFSET(PJRT_Api, PJRT_LoadedExecutable_Execute, 480)                                        \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_DeserializeAndLoad, 488)                                   \
  KILN_OFFSET(PJRT_Api, PJRT_LoadedExecutable_Fingerprint, 496)                                    \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_Destroy, 504)                                                  \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_ElementType, 512)                                              \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_Dimensions, 520)                                               \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_UnpaddedDimensions, 528)                                       \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_DynamicDimensionIndices, 536)                                  \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_GetMemoryLayout, 544)                                          \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_OnDeviceSizeInBytes, 552)                                      \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_Device, 560)                                                   \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_Memory, 568)                                                   \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_Delete, 576)                                                   \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_IsDeleted, 584)                                                \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_CopyToDevice, 592)                                             \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_ToHostBuffer, 600)                                             \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_IsOnCpu, 608)                                                  \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_ReadyEvent, 616)                                               \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_UnsafePointer, 624)                                            \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_IncreaseExternalReferenceCount, 632)                           \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_DecreaseExternalReferenceCount, 640)                           \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_OpaqueDeviceMemoryDataPointer, 648)                            \
  KILN_OFFSET(PJRT_Api, PJRT_CopyToDeviceStream_Destroy, 656)                                      \
  KILN_OFFSET(PJRT_Api, PJRT_CopyToDeviceStream_AddChunk, 664)                                     \
  KILN_OFFSET(PJRT_Api, PJRT_CopyToDeviceStream_TotalBytes, 672)                                   \
  KILN_OFFSET(PJRT_Api, PJRT_CopyToDeviceStream_GranuleSize, 680)                                  \
  KILN_OFFSET(PJRT_Api, PJRT_CopyToDeviceStream_CurrentBytes, 688)                                 \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_Create, 696)                                      \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_Destroy, 704)                                     \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_PlatformName, 712)                                \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_PlatformVersion, 720)                             \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_GetDeviceDescriptions, 728)                       \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_Serialize, 736)                                   \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_Attributes, 744)                                  \
  KILN_OFFSET(PJRT_Api, PJRT_Compile, 752)                                                         \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_OutputElementTypes, 760)                                   \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_OutputDimensions, 768)                                     \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_CopyToMemory, 776)                                             \
  KILN_OFFSET(PJRT_Api, PJRT_Client_CreateViewOfDeviceBuffer, 784)                                 \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_Fingerprint, 792)                                          \
  KILN_OFFSET(PJRT_Api, PJRT_Client_TopologyDescription, 800)                                      \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_GetCompiledMemoryStats, 808)                               \
  KILN_OFFSET(PJRT_Api, PJRT_Memory_Kind_Id, 816)                                                  \
  KILN_OFFSET(PJRT_Api, PJRT_ExecuteContext_Create, 824)                                           \
  KILN_OFFSET(PJRT_Api, PJRT_ExecuteContext_Destroy, 832)                                          \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_CopyRawToHost, 840)                                            \
  KILN_OFFSET(PJRT_Api, PJRT_AsyncHostToDeviceTransferManager_Destroy, 848)                        \
  KILN_OFFSET(PJRT_Api, PJRT_AsyncHostToDeviceTransferManager_TransferData, 856)                   \
  KILN_OFFSET(PJRT_Api, PJRT_Client_CreateBuffersForAsyncHostToDevice, 864)                        \
  KILN_OFFSET(PJRT_Api, PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer, 872)                 \
  KILN_OFFSET(PJRT_Api, PJRT_AsyncHostToDeviceTransferManager_Device, 880)                         \
  KILN_OFFSET(PJRT_Api, PJRT_AsyncHostToDeviceTransferManager_BufferCount, 888)                    \
  KILN_OFFSET(PJRT_Api, PJRT_AsyncHostToDeviceTransferManager_BufferSize, 896)                     \
  KILN_OFFSET(PJRT_Api, PJRT_AsyncHostToDeviceTransferManager_SetBufferError, 904)                 \
  KILN_OFFSET(PJRT_Api, PJRT_AsyncHostToDeviceTransferManager_AddMetadata, 912)                    \
  KILN_OFFSET(PJRT_Api, PJRT_Client_DmaMap, 920)                                                   \
  KILN_OFFSET(PJRT_Api, PJRT_Client_DmaUnmap, 928)                                                 \
  KILN_OFFSET(PJRT_Api, PJRT_Client_CreateUninitializedBuffer, 936)                                \
  KILN_OFFSET(PJRT_Api, PJRT_Client_UpdateGlobalProcessInfo, 944)                                  \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_Deserialize, 952)                                 \
  KILN_OFFSET(PJRT_Api, PJRT_Client_CreateAliasBuffer, 960)                                        \
  KILN_OFFSET(PJRT_Api, PJRT_Client_FulfillAliasBuffer, 968)                                       \
  KILN_OFFSET(PJRT_Api, PJRT_LoadedExecutable_GetDeviceAssignment, 976)                            \
  KILN_OFFSET(PJRT_Api, PJRT_Client_CreateErrorBuffer, 984)                                        \
  KILN_OFFSET(PJRT_Api, PJRT_AsyncHostToDeviceTransferManager_TransferLiteral, 992)                \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_CopyRawToHostFuture, 1000)                                     \
  KILN_OFFSET(PJRT_Api, PJRT_Device_PoisonExecution, 1008)                                         \
  KILN_OFFSET(PJRT_Api, PJRT_Device_CreateAsyncTrackingEvent, 1016)                                \
  KILN_OFFSET(PJRT_Api, PJRT_AsyncTrackingEvent_Destroy, 1024)                                     \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_GetCompileOptions, 1032)                                   \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_DonateWithControlDependency, 1040)                             \
  KILN_OFFSET(PJRT_Api, PJRT_Event_Create, 1048)                                                   \
  KILN_OFFSET(PJRT_Api, PJRT_Event_Set, 1056)                                                      \
  KILN_OFFSET(PJRT_Api, PJRT_Device_GetAttributes, 1064)                                           \
  KILN_OFFSET(PJRT_Api, PJRT_Client_Load, 1072)                                                    \
  KILN_OFFSET(PJRT_Api, PJRT_LoadedExecutable_AddressableDeviceLogicalIds, 1080)                   \
  KILN_OFFSET(PJRT_Api, PJRT_Buffer_Bitcast, 1088)                                                 \
  KILN_OFFSET(PJRT_Api, PJRT_Error_ForEachPayload, 1096)                                           \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_Fingerprint, 1104)                                \
  KILN_OFFSET(PJRT_Api, PJRT_Executable_ParameterMemoryKinds, 1112)                                \
  KILN_OFFSET(PJRT_Api, PJRT_Device_ClearMemoryStats, 1120)                                        \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace, 1128)           \
  KILN_OFFSET(PJRT_Api, PJRT_TopologyDescription_GetMemorySpaceKindIds, 1136)                      \
  KILN_VALUE(PJRT_Extension_Type_Gpu_Custom_Call, 0)                                               \
  KILN_VALUE(PJRT_Extension_Type_Profiler, 1)                                                      \
  KILN_VALUE(PJRT_Extension_Type_Custom_Partitioner, 2)                                            \
  KILN_VALUE(PJRT_Extension_Type_Stream, 3)                                                        \
  KILN_VALUE(PJRT_Extension_Type_Layouts, 4)                                                       \
  KILN_VALUE(PJRT_Extension_Type_FFI, 5)                                                           \
  KILN_VALUE(PJRT_Extension_Type_MemoryDescriptions, 6)                                            \
  KILN_VALUE(PJRT_Extension_Type_Triton, 7)                                                        \
  KILN_VALUE(PJRT_Extension_Type_RawBuffer, 8)                                                     \
  KILN_VALUE(PJRT_Extension_Type_PhaseCompile, 9)                                                  \
  KILN_VALUE(PJRT_Extension_Type_Example, 10)                                                      \
  KILN_VALUE(PJRT_Extension_Type_Unknown, 11)                                                      \
  KILN_VALUE(PJRT_Extension_Type_CrossHostTransfers, 12)                                           \
  KILN_VALUE(PJRT_Extension_Type_ExecutableMetadata, 13)                                           \
  KILN_VALUE(PJRT_Extension_Type_Callback, 14)                                                     \
  KILN_VALUE(PJRT_Extension_Type_HostAllocator, 15)                                                \
  KILN_VALUE(PJRT_Extension_Type_TpuTopology, 16)                                                  \
  KILN_VALUE(PJRT_Extension_Type_TpuExecutable, 17)                                                \
  KILN_VALUE(PJRT_Extension_Type_Megascale, 18)                                                    \
  KILN_VALUE(PJRT_Extension_Type_Shardings, 19)                                                    \
  KILN_VALUE(PJRT_Extension_Type_AbiVersion, 20)                                                   \
  KILN_VALUE(PJRT_Extension_Type_Collectives, 21)                                                  \
  KILN_VALUE(PJRT_Extension_Type_MultiSlice, 22)                                                   \
  KILN_VALUE(PJRT_Extension_Type_HostMemoryAllocator, 23)                                          \
  KILN_VALUE(PJRT_Extension_Type_XlaTransform, 24)                                                 \
  KILN_VALUE(PJRT_Error_Code_OK, 0)                                                                \
  KILN_VALUE(PJRT_Error_Code_CANCELLED, 1)                                                         \
  KILN_VALUE(PJRT_Error_Code_UNKNOWN, 2)                                                           \
  KILN_VALUE(PJRT_Error_Code_INVALID_ARGUMENT, 3)                                                  \
  KILN_VALUE(PJRT_Error_Code_DEADLINE_EXCEEDED, 4)                                                 \
  KILN_VALUE(PJRT_Error_Code_NOT_FOUND, 5)                                                         \
  KILN_VALUE(PJRT_Error_Code_ALREADY_EXISTS, 6)                                                    \
  KILN_VALUE(PJRT_Error_Code_PERMISSION_DENIED, 7)                                                 \
  KILN_VALUE(PJRT_Error_Code_RESOURCE_EXHAUSTED, 8)                                                \
  KILN_VALUE(PJRT_Error_Code_FAILED_PRECONDITION, 9)                                               \
  KILN_VALUE(PJRT_Error_Code_ABORTED, 10)                                                          \
  KILN_VALUE(PJRT_Error_Code_OUT_OF_RANGE, 11)                                                     \
  KILN_VALUE(PJRT_Error_Code_UNIMPLEMENTED, 12)                                                    \
  KILN_VALUE(PJRT_Error_Code_INTERNAL, 13)                                                         \
  KILN_VALUE(PJRT_Error_Code_UNAVAILABLE, 14)                                                      \
  KILN_VALUE(PJRT_Error_Code_DATA_LOSS, 15)                                                        \
  KILN_VALUE(PJRT_Error_Code_UNAUTHENTICATED, 16)                                                  \
  KILN_VALUE(PJRT_NamedValue_kString, 0)                                                           \
  KILN_VALUE(PJRT_NamedValue_kInt64, 1)                                                            \
  KILN_VALUE(PJRT_NamedValue_kInt64List, 2)                                                        \
  KILN_VALUE(PJRT_NamedValue_kFloat, 3)                                                            \
  KILN_VALUE(PJRT_NamedValue_kBool, 4)                                                             \
  KILN_VALUE(PJRT_ProcessState_kUnspecified, 0)                                                    \
  KILN_VALUE(PJRT_ProcessState_kUninitialized, 1)                                                  \
  KILN_VALUE(PJRT_ProcessState_kDisconnected, 2)                                                   \
  KILN_VALUE(PJRT_ProcessState_kConnected, 3)                                                      \
  KILN_VALUE(PJRT_ProcessState_kError, 4)                                                          \
  KILN_VALUE(PJRT_Buffer_Type_INVALID, 0)                                                          \
  KILN_VALUE(PJRT_Buffer_Type_PRED, 1)                                                             \
  KILN_VALUE(PJRT_Buffer_Type_S8, 2)                                                               \
  KILN_VALUE(PJRT_Buffer_Type_S16, 3)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_S32, 4)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_S64, 5)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_U8, 6)                                                               \
  KILN_VALUE(PJRT_Buffer_Type_U16, 7)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_U32, 8)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_U64, 9)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_F16, 10)                                                             \
  KILN_VALUE(PJRT_Buffer_Type_F32, 11)                                                             \
  KILN_VALUE(PJRT_Buffer_Type_F64, 12)                                                             \
  KILN_VALUE(PJRT_Buffer_Type_BF16, 13)                                                            \
  KILN_VALUE(PJRT_Buffer_Type_C64, 14)                                                             \
  KILN_VALUE(PJRT_Buffer_Type_C128, 15)                                                            \
  KILN_VALUE(PJRT_Buffer_Type_F8E5M2, 16)                                                          \
  KILN_VALUE(PJRT_Buffer_Type_F8E4M3FN, 17)                                                        \
  KILN_VALUE(PJRT_Buffer_Type_F8E4M3B11FNUZ, 18)                                                   \
  KILN_VALUE(PJRT_Buffer_Type_F8E5M2FNUZ, 19)                                                      \
  KILN_VALUE(PJRT_Buffer_Type_F8E4M3FNUZ, 20)                                                      \
  KILN_VALUE(PJRT_Buffer_Type_S4, 21)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_U4, 22)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_TOKEN, 23)                                                           \
  KILN_VALUE(PJRT_Buffer_Type_S2, 24)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_U2, 25)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_F8E4M3, 26)                                                          \
  KILN_VALUE(PJRT_Buffer_Type_F8E3M4, 27)                                                          \
  KILN_VALUE(PJRT_Buffer_Type_F8E8M0FNU, 28)                                                       \
  KILN_VALUE(PJRT_Buffer_Type_F4E2M1FN, 29)                                                        \
  KILN_VALUE(PJRT_Buffer_Type_S1, 30)                                                              \
  KILN_VALUE(PJRT_Buffer_Type_U1, 31)                                                              \
  KILN_VALUE(PJRT_HostBufferSemantics_kImmutableOnlyDuringCall, 0)                                 \
  KILN_VALUE(PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes, 1)                         \
  KILN_VALUE(PJRT_HostBufferSemantics_kImmutableZeroCopy, 2)                                       \
  KILN_VALUE(PJRT_HostBufferSemantics_kMutableZeroCopy, 3)                                         \
  KILN_VALUE(PJRT_Buffer_MemoryLayout_Type_Tiled, 0)                                               \
  KILN_VALUE(PJRT_Buffer_MemoryLayout_Type_Strides, 1)

struct Row {
  const char* what;
  long long kiln;
  long long published;
};

#define SIZE_ROW(type, n) {"sizeof(" #type ")", (long long)sizeof(type), n},
#define STRUCT_SIZE_ROW(type, n) {#type "_STRUCT_SIZE", (long long)type##_STRUCT_SIZE, n},
#define OFFSET_ROW(type, field, n) \
  {"offsetof(" #type ", " #field ")", (long long)offsetof(type, field), n},
#define VALUE_ROW(name, n) {#name, (long long)(name), n},

static const struct Row kRows[] = {PUBLISHED(SIZE_ROW, STRUCT_SIZE_ROW, OFFSET_ROW, VALUE_ROW)};

int main(void) {
#if !defined(__x86_64__) && !defined(__aarch64__)
  printf("pjrt_layout_test: skipped: the published numbers are for LP64 targets\n");
  return 0;
#else
  int bad = 0;
  const size_t n = sizeof(kRows) / sizeof(kRows[0]);
  for (size_t i = 0; i < n; ++i) {
    if (kRows[i].kiln == kRows[i].published) continue;
    printf("%s: kiln %lld, published %lld\n", kRows[i].what, kRows[i].kiln, kRows[i].published);
    ++bad;
  }
  // The table's entries: 138 function pointers after a 40-byte head, as jaxlib 0.10.2's
  // plugins report (a 1,144-byte PJRT_Api).
  if (sizeof(PJRT_Api) != 40 + 138 * sizeof(void*)) {
    printf("PJRT_Api holds %zu bytes\n", sizeof(PJRT_Api));
    ++bad;
  }
  if (bad) {
    printf("pjrt_layout_test: %d of %zu numbers differ\n", bad, n);
    return 1;
  }
  printf("pjrt_layout_test: ok (%zu numbers)\n", n);
  return 0;
#endif
}
