/* The plugin ABI is C: this C11 program loads a plugin (the path is its argument), compiles
   a program, moves data in and out, checks the result and its errors, and cleans up. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "kiln/plugin.h"

static const KilnPluginApi* api;

/* Prints the error (and destroys it); returns 1 when there was one. */
static int failed(KilnError* error, const char* what) {
  if (!error) return 0;
  KilnErrorInfoArgs info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.error = error;
  api->error_info(&info);
  fprintf(stderr, "%s: error %d: %s\n", what, (int)info.code, info.message);
  KilnErrorDestroyArgs destroy = {sizeof destroy, error};
  api->error_destroy(&destroy);
  return 1;
}

static int await(KilnEvent* event) {
  KilnEventAwaitArgs args = {sizeof args, event};
  int bad = failed(api->event_await(&args), "event_await");
  KilnEventDestroyArgs destroy = {sizeof destroy, event};
  return failed(api->event_destroy(&destroy), "event_destroy") || bad;
}

static const char program[] =
    "func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {\n"
    "  %0 = stablehlo.multiply %a, %b : tensor<3xf32>\n"
    "  return %0 : tensor<3xf32>\n"
    "}\n";

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_api_test PATH/libkiln_plugin_NAME.so\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  KilnPluginApiFn entry;
  void* symbol = dlsym(library, KILN_PLUGIN_ENTRY_POINT);
  memcpy(&entry, &symbol, sizeof entry); /* ISO C has no object-to-function pointer cast */
  api = entry();
  if (api->major_version != KILN_PLUGIN_API_MAJOR) return 1;

  KilnClientCreateArgs create;
  memset(&create, 0, sizeof create);
  create.struct_size = sizeof create;
  if (failed(api->client_create(&create), "client_create")) return 1;
  KilnClientDevicesArgs devices;
  memset(&devices, 0, sizeof devices);
  devices.struct_size = sizeof devices;
  devices.client = create.client;
  if (failed(api->client_devices(&devices), "client_devices") || devices.num_devices < 1) return 1;
  KilnDevice* device = devices.devices[0];

  KilnCompileArgs compile;
  memset(&compile, 0, sizeof compile);
  compile.struct_size = sizeof compile;
  compile.client = create.client;
  compile.code = program;
  compile.code_size = strlen(program);
  if (failed(api->compile(&compile), "compile")) return 1;

  const float a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
  const int64_t dims[1] = {3};
  KilnBuffer* inputs[2];
  for (int i = 0; i < 2; ++i) {
    KilnBufferFromHostArgs in;
    memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    in.client = create.client;
    in.device = device;
    in.dtype = KILN_DTYPE_F32;
    in.dims = dims;
    in.num_dims = 1;
    in.data = i == 0 ? a : b;
    if (failed(api->buffer_from_host(&in), "buffer_from_host") || await(in.done_with_host)) return 1;
    inputs[i] = in.buffer;
  }

  KilnBuffer* const* argument_lists[1] = {inputs};
  KilnBuffer* outputs[1] = {NULL};
  KilnBuffer** output_lists[1] = {outputs};
  KilnEvent* done[1] = {NULL};
  KilnExecuteArgs execute;
  memset(&execute, 0, sizeof execute);
  execute.struct_size = sizeof execute;
  execute.executable = compile.executable;
  execute.num_devices = 1;
  execute.argument_lists = argument_lists;
  execute.num_args = 2;
  execute.output_lists = output_lists;
  execute.complete_events = done;
  if (failed(api->execute(&execute), "execute") || await(done[0])) return 1;

  float result[3] = {0, 0, 0};
  KilnBufferToHostArgs out;
  memset(&out, 0, sizeof out);
  out.struct_size = sizeof out;
  out.buffer = outputs[0];
  out.dst = result;
  out.dst_size = sizeof result;
  if (failed(api->buffer_to_host(&out), "buffer_to_host") || await(out.event)) return 1;
  if (result[0] != 4 || result[1] != 10 || result[2] != 18) {
    fprintf(stderr, "wrong result: %g %g %g\n", result[0], result[1], result[2]);
    return 1;
  }

  /* Misuse is an error object: a wrong dst_size, a struct_size of 0. */
  out.dst_size = 4;
  KilnError* error = api->buffer_to_host(&out);
  if (!error) return 1;
  failed(error, "expected error");
  KilnEventIsReadyArgs zero;
  memset(&zero, 0, sizeof zero);
  error = api->event_is_ready(&zero);
  if (!error) return 1;
  failed(error, "expected error");

  KilnBuffer* all[3] = {inputs[0], inputs[1], outputs[0]};
  for (int i = 0; i < 3; ++i) {
    KilnBufferDestroyArgs destroy = {sizeof destroy, all[i]};
    if (failed(api->buffer_destroy(&destroy), "buffer_destroy")) return 1;
  }
  KilnExecutableDestroyArgs destroyExecutable = {sizeof destroyExecutable, compile.executable};
  KilnClientDestroyArgs destroyClient = {sizeof destroyClient, create.client};
  if (failed(api->executable_destroy(&destroyExecutable), "executable_destroy") ||
      failed(api->client_destroy(&destroyClient), "client_destroy"))
    return 1;
  printf("c_api_test: ok\n");
  return 0;
}
