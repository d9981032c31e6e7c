// What the plugin conformance kit's checks share (plugin_check.cc: PJRT's core table;
// extension_check.cc: the kiln extension): the kit over a plugin's table, whose
// helpers call it and turn what fails into the harness's verdicts.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "kiln/pjrt/c_api.h"
#include "kiln/pjrt/kiln_extension.h"
#include "runtime/named_values.h"
#include "runtime/pjrt_loader.h"
#include "testing/kit_harness.h"

namespace kiln::testing {

using kit::Fail;
using kit::require;
using kit::Skip;

class PjrtKit {
 public:
  PjrtKit(const runtime::PjrtPlugin& plugin, std::ostream& out) : api_(*plugin.api), runner_(out) {}

  void check(const std::string& name, const std::function<void()>& body) { runner_.check(name, body); }
  PluginCheckSummary summary() const { return runner_.summary(); }
  const PJRT_Api& api() const { return api_; }

  struct Outcome {
    PJRT_Error_Code code = PJRT_Error_Code_OK;
    std::string message;
  };

  // Takes an error apart (and destroys it).
  Outcome outcomeOf(PJRT_Error* error) const {
    if (!error) return {};
    PJRT_Error_GetCode_Args code{PJRT_Error_GetCode_Args_STRUCT_SIZE, nullptr, error, PJRT_Error_Code_OK};
    Outcome o;
    if (PJRT_Error* bad = api_.PJRT_Error_GetCode(&code)) {
      o.code = PJRT_Error_Code_UNKNOWN;
      runtime::takeError(api_, bad);
    } else {
      o.code = code.code;
    }
    o.message = runtime::takeError(api_, error);
    return o;
  }

  void ok(PJRT_Error* error, const std::string& what) const {
    const Outcome o = outcomeOf(error);
    if (o.code != PJRT_Error_Code_OK || !o.message.empty())
      throw Fail{what + " failed: code " + std::to_string(o.code) + ": " + o.message};
  }

  // A client of the plugin's default devices, or with kiln's create option num_devices
  // (a plugin that refuses it is skipped).
  PJRT_Client* client(int64_t numDevices = 0) {
    const PJRT_NamedValue devices = runtime::int64Value("num_devices", numDevices);
    PJRT_Client_Create_Args a{};
    a.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
    a.create_options = numDevices > 0 ? &devices : nullptr;
    a.num_options = numDevices > 0 ? 1 : 0;
    const Outcome o = outcomeOf(api_.PJRT_Client_Create(&a));
    if (o.code != PJRT_Error_Code_OK)
      throw Skip{std::string(numDevices > 0 ? "no client of " + std::to_string(numDevices) + " devices" : "no client") +
                 " on this machine: " + o.message};
    require(a.client != nullptr, "PJRT_Client_Create gave no client");
    runner_.own([this, c = a.client] {
      PJRT_Client_Destroy_Args d{PJRT_Client_Destroy_Args_STRUCT_SIZE, nullptr, c};
      outcomeOf(api_.PJRT_Client_Destroy(&d));
    });
    return a.client;
  }

  std::vector<PJRT_Device*> devices(PJRT_Client* client) const {
    PJRT_Client_AddressableDevices_Args a{PJRT_Client_AddressableDevices_Args_STRUCT_SIZE, nullptr, client};
    ok(api_.PJRT_Client_AddressableDevices(&a), "PJRT_Client_AddressableDevices");
    require(a.num_addressable_devices > 0 && a.addressable_devices, "the client has no addressable device");
    return {a.addressable_devices, a.addressable_devices + a.num_addressable_devices};
  }

  void await(PJRT_Event* event, const std::string& what) const {
    PJRT_Event_Await_Args a{PJRT_Event_Await_Args_STRUCT_SIZE, nullptr, event};
    const Outcome o = outcomeOf(api_.PJRT_Event_Await(&a));
    PJRT_Event_Destroy_Args d{PJRT_Event_Destroy_Args_STRUCT_SIZE, nullptr, event};
    outcomeOf(api_.PJRT_Event_Destroy(&d));
    if (o.code != PJRT_Error_Code_OK) throw Fail{what + " failed: " + o.message};
  }

  PJRT_Buffer* own(PJRT_Buffer* buffer) {
    runner_.own([this, buffer] {
      PJRT_Buffer_Destroy_Args d{PJRT_Buffer_Destroy_Args_STRUCT_SIZE, nullptr, buffer};
      outcomeOf(api_.PJRT_Buffer_Destroy(&d));
    });
    return buffer;
  }

  // Starts a copy of `bytes` to `device` (nothing owned: the caller destroys the buffer
  // and the event); the call's outcome.
  Outcome startUpload(PJRT_Client* client, PJRT_Device* device, PJRT_Buffer_Type type, const std::vector<int64_t>& dims,
                      const std::vector<uint8_t>& bytes, PJRT_HostBufferSemantics semantics, PJRT_Buffer*& buffer,
                      PJRT_Event*& doneWithHost) const {
    PJRT_Client_BufferFromHostBuffer_Args a{};
    a.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
    a.client = client;
    a.data = bytes.data();
    a.type = type;
    a.dims = dims.data();
    a.num_dims = dims.size();
    a.host_buffer_semantics = semantics;
    a.device = device;
    const Outcome o = outcomeOf(api_.PJRT_Client_BufferFromHostBuffer(&a));
    buffer = a.buffer;
    doneWithHost = a.done_with_host_buffer;
    return o;
  }

  PJRT_Buffer* upload(PJRT_Client* client, PJRT_Device* device, PJRT_Buffer_Type type,
                      const std::vector<int64_t>& dims, const std::vector<uint8_t>& bytes) {
    PJRT_Buffer* buffer = nullptr;
    PJRT_Event* done = nullptr;
    const Outcome o = startUpload(client, device, type, dims, bytes,
                                  PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes, buffer, done);
    if (o.code != PJRT_Error_Code_OK) throw Fail{"PJRT_Client_BufferFromHostBuffer failed: " + o.message};
    own(buffer);
    await(done, "the copy to the device");
    return buffer;
  }

  std::vector<uint8_t> download(PJRT_Buffer* buffer) const {
    PJRT_Buffer_ToHostBuffer_Args a{};
    a.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
    a.src = buffer;
    ok(api_.PJRT_Buffer_ToHostBuffer(&a), "PJRT_Buffer_ToHostBuffer (the size)");
    std::vector<uint8_t> bytes(a.dst_size);
    if (bytes.empty()) return bytes;
    a.dst = bytes.data();
    ok(api_.PJRT_Buffer_ToHostBuffer(&a), "PJRT_Buffer_ToHostBuffer");
    await(a.event, "the copy to the host");
    return bytes;
  }

  // `options`: a serialized CompileOptionsProto (empty: the plugin's defaults). Owned
  // (destroyed when the check ends) unless `owned` is false.
  PJRT_LoadedExecutable* compile(PJRT_Client* client, const std::string& text, const std::string& options = "",
                                 bool owned = true) {
    PJRT_Program program{};
    program.struct_size = PJRT_Program_STRUCT_SIZE;
    program.code = const_cast<char*>(text.data());
    program.code_size = text.size();
    program.format = "mlir";
    program.format_size = 4;
    PJRT_Client_Compile_Args a{};
    a.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE;
    a.client = client;
    a.program = &program;
    a.compile_options = options.data();
    a.compile_options_size = options.size();
    ok(api_.PJRT_Client_Compile(&a), "PJRT_Client_Compile");
    if (!owned) return a.executable;
    runner_.own([this, e = a.executable] {
      PJRT_LoadedExecutable_Destroy_Args d{PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE, nullptr, e};
      outcomeOf(api_.PJRT_LoadedExecutable_Destroy(&d));
    });
    return a.executable;
  }

  // Starts `executable` on its first device, keeping the parameters `keep` from donation
  // (nothing owned: the caller destroys the outputs and the event); the call's outcome.
  Outcome startExecute(PJRT_LoadedExecutable* executable, std::vector<PJRT_Buffer*> args,
                       std::vector<PJRT_Buffer*>& outputs, PJRT_Event*& done, const std::vector<int64_t>& keep = {}) const {
    std::vector<std::vector<PJRT_Buffer*>> outputLists = {outputs};
    std::vector<PJRT_Event*> events(1, nullptr);
    const Outcome o = startExecuteOn(executable, {std::move(args)}, outputLists, events, keep);
    outputs = outputLists[0];
    done = events[0];
    return o;
  }

  // The same on each of its devices, args[d] on device d (outputs[d] sized by the caller);
  // `wrap`, when given, calls the execute args another way (the kiln extension's).
  Outcome startExecuteOn(PJRT_LoadedExecutable* executable, std::vector<std::vector<PJRT_Buffer*>> args,
                         std::vector<std::vector<PJRT_Buffer*>>& outputs, std::vector<PJRT_Event*>& done,
                         const std::vector<int64_t>& keep = {},
                         const std::function<PJRT_Error*(PJRT_LoadedExecutable_Execute_Args&)>& wrap = {}) const {
    std::vector<PJRT_Buffer* const*> argLists;
    std::vector<PJRT_Buffer**> outLists;
    for (auto& list : args) argLists.push_back(list.data());
    for (auto& list : outputs) outLists.push_back(list.data());
    PJRT_ExecuteOptions options{};
    options.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
    options.non_donatable_input_indices = keep.data();
    options.num_non_donatable_input_indices = keep.size();
    PJRT_LoadedExecutable_Execute_Args a{};
    a.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
    a.executable = executable;
    a.options = &options;
    a.argument_lists = argLists.data();
    a.num_devices = args.size();
    a.num_args = args.empty() ? 0 : args[0].size();
    a.output_lists = outLists.data();
    a.device_complete_events = done.data();
    return outcomeOf(wrap ? wrap(a) : api_.PJRT_LoadedExecutable_Execute(&a));
  }

  // The kiln extension of the plugin's table; a Skip for a plugin without it.
  const KILN_Extension& extension() const {
    const KILN_Extension* e = kiln_pjrt_extension(&api_);
    if (!e) throw Skip{"the plugin has no kiln extension"};
    return *e;
  }

  // A float32 buffer of `values` on `device` (owned).
  PJRT_Buffer* floats(PJRT_Client* client, PJRT_Device* device, const std::vector<float>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return upload(client, device, PJRT_Buffer_Type_F32, {static_cast<int64_t>(values.size())}, bytes);
  }
  std::vector<float> floatsOf(PJRT_Buffer* buffer) const {
    const std::vector<uint8_t> bytes = download(buffer);
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    return values;
  }
  PJRT_Event* own(PJRT_Event* event) {
    runner_.own([this, event] {
      PJRT_Event_Destroy_Args d{PJRT_Event_Destroy_Args_STRUCT_SIZE, nullptr, event};
      outcomeOf(api_.PJRT_Event_Destroy(&d));
    });
    return event;
  }
  // An event's outcome once it is ready (the event stays the caller's).
  Outcome outcomeOfEvent(PJRT_Event* event) const {
    PJRT_Event_Await_Args a{PJRT_Event_Await_Args_STRUCT_SIZE, nullptr, event};
    return outcomeOf(api_.PJRT_Event_Await(&a));
  }

  // Runs `executable` on its first device; its outputs once its completion event says so.
  std::vector<PJRT_Buffer*> execute(PJRT_LoadedExecutable* executable, std::vector<PJRT_Buffer*> args,
                                    size_t numOutputs) {
    std::vector<PJRT_Buffer*> outputs(numOutputs);
    PJRT_Event* done = nullptr;
    const Outcome o = startExecute(executable, std::move(args), outputs, done);
    if (o.code != PJRT_Error_Code_OK) throw Fail{"PJRT_LoadedExecutable_Execute failed: " + o.message};
    for (PJRT_Buffer* b : outputs) own(b);
    await(done, "the execution");
    return outputs;
  }

 private:
  const PJRT_Api& api_;
  kit::CheckRunner runner_;
};

// Pseudo-random bytes of valid values: small integers, or floats of either sign.
inline std::vector<uint8_t> valuesOf(const Type& type, uint32_t seed) {
  Literal lit(type);
  for (int64_t i = 0; i < type.numElements(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    const int64_t small = static_cast<int64_t>(seed >> 24) % 7 - 3;
    if (isFloat(type.dtype())) lit.setFloat(i, static_cast<double>(small) / 4);
    else if (isComplex(type.dtype())) lit.setComplex(i, {static_cast<double>(small), 0.5});
    else if (isBool(type.dtype())) lit.setInt(i, small & 1);
    else lit.setInt(i, isSignedInt(type.dtype()) ? small : small + 3);
  }
  const uint8_t* data = lit.denseStorage();
  return {data, data + type.byteSize()};
}


// The checks of the kiln extension (each a Skip for a plugin without it).
void checkKilnExtension(PjrtKit& kit);

}  // namespace kiln::testing
