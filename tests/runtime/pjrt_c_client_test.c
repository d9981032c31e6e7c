/* PJRT's ABI is C: this C11 program, compiled against kiln's PJRT header alone, loads a
   plugin (the path is its argument) through GetPjrtApi, creates a client, moves data in
   and out, compiles and runs a StableHLO program, checks the result and an error, and
   cleans up. The program is MLIR text, or the file named by a second argument: the same
   multiply as jaxlib sends it (tests/runtime/multiply.mlirbc, MLIR bytecode of a
   portable artifact), which sanitizer builds then read through the plugin too. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "kiln/pjrt/c_api.h"

static const PJRT_Api* api;

/* Prints the error (and destroys it); returns 1 when there was one. */
static int failed(PJRT_Error* error, const char* what) {
  if (!error) return 0;
  PJRT_Error_Message_Args message = {PJRT_Error_Message_Args_STRUCT_SIZE, NULL, error, NULL, 0};
  api->PJRT_Error_Message(&message);
  fprintf(stderr, "%s: %.*s\n", what, (int)message.message_size, message.message);
  PJRT_Error_Destroy_Args destroy = {PJRT_Error_Destroy_Args_STRUCT_SIZE, NULL, error};
  api->PJRT_Error_Destroy(&destroy);
  return 1;
}

static int await(PJRT_Event* event) {
  PJRT_Event_Await_Args args = {PJRT_Event_Await_Args_STRUCT_SIZE, NULL, event};
  int bad = failed(api->PJRT_Event_Await(&args), "PJRT_Event_Await");
  PJRT_Event_Destroy_Args destroy = {PJRT_Event_Destroy_Args_STRUCT_SIZE, NULL, event};
  return failed(api->PJRT_Event_Destroy(&destroy), "PJRT_Event_Destroy") || bad;
}

static const char program[] =
    "func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {\n"
    "  %0 = stablehlo.multiply %a, %b : tensor<3xf32>\n"
    "  return %0 : tensor<3xf32>\n"
    "}\n";

/* The whole of file `path` into `buffer` (NUL-free bytes); its size, or 0. */
static size_t readFile(const char* path, char* buffer, size_t capacity) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  size_t size = fread(buffer, 1, capacity, f);
  if (!feof(f)) size = 0; /* larger than the buffer */
  fclose(f);
  return size;
}

static PJRT_Buffer* upload(PJRT_Client* client, PJRT_Device* device, const float* data) {
  static const int64_t dims[] = {3};
  PJRT_Client_BufferFromHostBuffer_Args args;
  memset(&args, 0, sizeof args);
  args.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  args.client = client;
  args.data = data;
  args.type = PJRT_Buffer_Type_F32;
  args.dims = dims;
  args.num_dims = 1;
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
  args.device = device;
  if (failed(api->PJRT_Client_BufferFromHostBuffer(&args), "PJRT_Client_BufferFromHostBuffer")) return NULL;
  if (await(args.done_with_host_buffer)) return NULL;
  return args.buffer;
}

static void destroyBuffer(PJRT_Buffer* buffer) {
  PJRT_Buffer_Destroy_Args args = {PJRT_Buffer_Destroy_Args_STRUCT_SIZE, NULL, buffer};
  failed(api->PJRT_Buffer_Destroy(&args), "PJRT_Buffer_Destroy");
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: pjrt_c_client_test PATH/PLUGIN.so [PROGRAM.mlirbc]\n");
    return 2;
  }
  void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!plugin) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  const PJRT_Api* (*get)(void);
  *(void**)(&get) = dlsym(plugin, "GetPjrtApi");
  if (!get || !(api = get())) {
    fprintf(stderr, "no GetPjrtApi in %s\n", argv[1]);
    return 1;
  }
  if (api->pjrt_api_version.major_version != PJRT_API_MAJOR) {
    fprintf(stderr, "PJRT C API %d.%d, this client knows %d.%d\n", api->pjrt_api_version.major_version,
            api->pjrt_api_version.minor_version, PJRT_API_MAJOR, PJRT_API_MINOR);
    return 1;
  }
  PJRT_Plugin_Initialize_Args init = {PJRT_Plugin_Initialize_Args_STRUCT_SIZE, NULL};
  if (failed(api->PJRT_Plugin_Initialize(&init), "PJRT_Plugin_Initialize")) return 1;

  PJRT_Client_Create_Args create;
  memset(&create, 0, sizeof create);
  create.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  if (failed(api->PJRT_Client_Create(&create), "PJRT_Client_Create")) return 1;
  PJRT_Client* client = create.client;
  PJRT_Client_AddressableDevices_Args devices = {PJRT_Client_AddressableDevices_Args_STRUCT_SIZE, NULL, client,
                                                 NULL, 0};
  if (failed(api->PJRT_Client_AddressableDevices(&devices), "PJRT_Client_AddressableDevices")) return 1;
  if (devices.num_addressable_devices < 1) return 1;
  PJRT_Device* device = devices.addressable_devices[0];

  PJRT_Program code;
  memset(&code, 0, sizeof code);
  code.struct_size = PJRT_Program_STRUCT_SIZE;
  static char file[1 << 16];
  code.code = (char*)program;
  code.code_size = sizeof program - 1;
  if (argc > 2) {
    code.code = file;
    code.code_size = readFile(argv[2], file, sizeof file);
    if (code.code_size == 0) {
      fprintf(stderr, "cannot read %s\n", argv[2]);
      return 1;
    }
  }
  code.format = "mlir";
  code.format_size = 4;
  PJRT_Client_Compile_Args compile;
  memset(&compile, 0, sizeof compile);
  compile.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE;
  compile.client = client;
  compile.program = &code;
  if (failed(api->PJRT_Client_Compile(&compile), "PJRT_Client_Compile")) return 1;

  const float a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
  PJRT_Buffer* args[2] = {upload(client, device, a), upload(client, device, b)};
  if (!args[0] || !args[1]) return 1;
  PJRT_Buffer* const* argumentLists[1] = {args};
  PJRT_Buffer* outputs[1] = {NULL};
  PJRT_Buffer** outputLists[1] = {outputs};
  PJRT_Event* done[1] = {NULL};
  PJRT_ExecuteOptions options;
  memset(&options, 0, sizeof options);
  options.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
  PJRT_LoadedExecutable_Execute_Args execute;
  memset(&execute, 0, sizeof execute);
  execute.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
  execute.executable = compile.executable;
  execute.options = &options;
  execute.argument_lists = argumentLists;
  execute.num_devices = 1;
  execute.num_args = 2;
  execute.output_lists = outputLists;
  execute.device_complete_events = done;
  if (failed(api->PJRT_LoadedExecutable_Execute(&execute), "PJRT_LoadedExecutable_Execute")) return 1;
  if (await(done[0])) return 1;

  float result[3] = {0, 0, 0};
  PJRT_Buffer_ToHostBuffer_Args out;
  memset(&out, 0, sizeof out);
  out.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
  out.src = outputs[0];
  out.dst = result;
  out.dst_size = sizeof result;
  if (failed(api->PJRT_Buffer_ToHostBuffer(&out), "PJRT_Buffer_ToHostBuffer") || await(out.event)) return 1;
  if (result[0] != 4 || result[1] != 10 || result[2] != 18) {
    fprintf(stderr, "wrong result: %g %g %g\n", result[0], result[1], result[2]);
    return 1;
  }

  /* Misuse is an error object with a code, never a crash. */
  PJRT_Error* error = api->PJRT_Buffer_ToHostBuffer(NULL);
  PJRT_Error_GetCode_Args code_args = {PJRT_Error_GetCode_Args_STRUCT_SIZE, NULL, error, PJRT_Error_Code_OK};
  if (!error || api->PJRT_Error_GetCode(&code_args) || code_args.code != PJRT_Error_Code_INVALID_ARGUMENT) {
    fprintf(stderr, "a null args struct was not INVALID_ARGUMENT\n");
    return 1;
  }
  PJRT_Error_Destroy_Args destroy_error = {PJRT_Error_Destroy_Args_STRUCT_SIZE, NULL, error};
  api->PJRT_Error_Destroy(&destroy_error);

  destroyBuffer(outputs[0]);
  destroyBuffer(args[0]);
  destroyBuffer(args[1]);
  PJRT_LoadedExecutable_Destroy_Args destroy_executable = {PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE, NULL,
                                                           compile.executable};
  if (failed(api->PJRT_LoadedExecutable_Destroy(&destroy_executable), "PJRT_LoadedExecutable_Destroy")) return 1;
  PJRT_Client_Destroy_Args destroy_client = {PJRT_Client_Destroy_Args_STRUCT_SIZE, NULL, client};
  if (failed(api->PJRT_Client_Destroy(&destroy_client), "PJRT_Client_Destroy")) return 1;
  printf("pjrt_c_client_test: ok\n");
  return 0;
}
