// The harness of the plugin conformance kit (plugin_check.h): a Kit calls a plugin's
// table itself (never the C++ wrapper, which would stop the misuse before the plugin saw
// it), owns what a check creates (destroyed when the check ends, in reverse), and counts
// and prints each check's verdict; a check throws Fail or Skip with why. A crash or a
// hang inside a check is reported with the check's name.
#pragma once

#include <cstring>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "kiln/plugin.h"
#include "runtime/plugin_loader.h"
#include "testing/kit_harness.h"
#include "testing/plugin_check.h"

namespace kiln::testing::plugin_kit {

using kit::beginCheck;
using kit::endCheck;
using kit::Fail;
using kit::installCrashHandlers;
using kit::require;
using kit::Skip;
using kit::startWatchdog;

// The name of a KilnErrorCode, for messages.
const char* codeName(int code);
// The element size of each KilnDType (PRED: one byte; 0 for what is no dtype).
size_t elementSize(KilnDType t);

class Kit {
 public:
  Kit(const runtime::LoadedPlugin& plugin, std::ostream& out) : api_(*plugin.api), runner_(out) {}

  // ---- running checks ----

  void check(const std::string& name, const std::function<void()>& body) { runner_.check(name, body); }

  PluginCheckSummary summary() const { return runner_.summary(); }

  // ---- the table ----

  const KilnPluginApi& api() const { return api_; }

  template <class Args>
  bool hasFunction(KilnError* (*KilnPluginApi::*fn)(Args*)) const {
    const auto* base = reinterpret_cast<const char*>(&api_);
    size_t end = static_cast<size_t>(reinterpret_cast<const char*>(&(api_.*fn)) - base) + sizeof(void*);
    return end <= api_.struct_size && api_.*fn;
  }

  // ---- calls ----

  struct Outcome {
    int code = 0;  // 0: success
    std::string message;
  };

  // Takes an error object apart (and destroys it).
  Outcome outcomeOf(KilnError* error) {
    if (!error) return {};
    KilnErrorInfoArgs info{};
    info.struct_size = sizeof info;
    info.error = error;
    Outcome o;
    if (KilnError* bad = api_.error_info(&info)) {
      destroyError(bad);
      o = {KILN_ERROR_UNKNOWN, "(error_info failed on the plugin's own error object)"};
    } else {
      o = {static_cast<int>(info.code), info.message ? std::string(info.message, info.message_size) : ""};
      if (o.code == 0) o.code = -1;  // an error object without a code
    }
    destroyError(error);
    return o;
  }

  void destroyError(KilnError* error) {
    KilnErrorDestroyArgs d{sizeof d, error};
    if (KilnError* e = api_.error_destroy(&d)) (void)e;  // nothing more can be done with it
  }

  template <class Args>
  Outcome call(KilnError* (*KilnPluginApi::*fn)(Args*), Args& a) {
    a.struct_size = sizeof(Args);
    return outcomeOf((api_.*fn)(&a));
  }

  template <class Args>
  void expectOk(KilnError* (*KilnPluginApi::*fn)(Args*), Args& a, const char* name) {
    if (!hasFunction(fn)) throw Fail{std::string("the table has no ") + name};
    Outcome o = call(fn, a);
    if (o.code != 0) throw Fail{std::string(name) + " failed: " + codeName(o.code) + ": " + o.message};
  }

  // Expects an error object of `code` with a message; returns the message.
  std::string expectError(Outcome o, int code, const std::string& what) {
    if (o.code == 0) throw Fail{what + ": succeeded; expected " + codeName(code)};
    if (o.code != code) throw Fail{what + ": " + codeName(o.code) + " (" + o.message + "); expected " + codeName(code)};
    if (o.message.empty()) throw Fail{what + ": an error without a message"};
    return o.message;
  }

  template <class Args>
  std::string expectError(KilnError* (*KilnPluginApi::*fn)(Args*), Args& a, int code, const std::string& what) {
    return expectError(call(fn, a), code, what);
  }

  // ---- what a check creates, destroyed when it ends ----

  KilnClient* client(int32_t devices = 0, int64_t memoryLimit = 0) {
    KilnClientCreateArgs a{};
    a.num_devices = devices;
    a.memory_limit_bytes = memoryLimit;
    expectOk(&KilnPluginApi::client_create, a, "client_create");
    if (!a.client) throw Fail{"client_create gave no client"};
    return owned(a.client, &KilnPluginApi::client_destroy);
  }

  std::vector<KilnDevice*> devices(KilnClient* c) {
    KilnClientDevicesArgs a{};
    a.client = c;
    expectOk(&KilnPluginApi::client_devices, a, "client_devices");
    if (a.num_devices == 0 || !a.devices) throw Fail{"client_devices gave no devices"};
    return {a.devices, a.devices + a.num_devices};
  }

  KilnBuffer* own(KilnBuffer* b) { return owned(b, &KilnPluginApi::buffer_destroy); }
  KilnEvent* own(KilnEvent* e) { return owned(e, &KilnPluginApi::event_destroy); }
  KilnExecutable* own(KilnExecutable* x) { return owned(x, &KilnPluginApi::executable_destroy); }

  // Waits for the event; its outcome.
  Outcome await(KilnEvent* e) {
    KilnEventAwaitArgs a{};
    a.event = e;
    return call(&KilnPluginApi::event_await, a);
  }

  void awaitOk(KilnEvent* e, const std::string& what) {
    Outcome o = await(e);
    if (o.code != 0) throw Fail{what + " failed: " + codeName(o.code) + ": " + o.message};
  }

  // A buffer of `bytes` (which stay alive: the kit keeps a copy until the check ends).
  KilnBuffer* upload(KilnClient* c, KilnDevice* d, KilnDType dtype, std::vector<int64_t> dims, std::string bytes) {
    auto data = std::make_shared<std::string>(std::move(bytes));
    auto shape = std::make_shared<std::vector<int64_t>>(std::move(dims));
    runner_.own([data, shape] {});  // kept alive until after the buffer is destroyed
    KilnBufferFromHostArgs a{};
    a.client = c;
    a.device = d;
    a.dtype = dtype;
    a.dims = shape->data();
    a.num_dims = shape->size();
    a.data = data->data();
    expectOk(&KilnPluginApi::buffer_from_host, a, "buffer_from_host");
    own(a.buffer);
    if (a.done_with_host) awaitOk(own(a.done_with_host), "buffer_from_host's copy");
    return a.buffer;
  }

  KilnBuffer* floats(KilnClient* c, KilnDevice* d, const std::vector<float>& values) {
    std::string bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    return upload(c, d, KILN_DTYPE_F32, {static_cast<int64_t>(values.size())}, bytes);
  }
  KilnBuffer* scalarI64(KilnClient* c, KilnDevice* d, int64_t v) {
    return upload(c, d, KILN_DTYPE_S64, {}, std::string(reinterpret_cast<const char*>(&v), sizeof v));
  }

  KilnBufferInfoArgs info(KilnBuffer* b) {
    KilnBufferInfoArgs a{};
    a.buffer = b;
    expectOk(&KilnPluginApi::buffer_info, a, "buffer_info");
    return a;
  }

  // The buffer's bytes (waits for them).
  std::string download(KilnBuffer* b) {
    std::string bytes(static_cast<size_t>(info(b).on_device_size), '\0');
    KilnBufferToHostArgs a{};
    a.buffer = b;
    a.dst = bytes.data();
    a.dst_size = bytes.size();
    expectOk(&KilnPluginApi::buffer_to_host, a, "buffer_to_host");
    awaitOk(own(a.event), "buffer_to_host's copy");
    return bytes;
  }

  std::vector<float> downloadFloats(KilnBuffer* b) {
    std::string bytes = download(b);
    std::vector<float> v(bytes.size() / sizeof(float));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
    return v;
  }

  void expectFloats(KilnBuffer* b, const std::vector<float>& want, const std::string& what) {
    std::vector<float> got = downloadFloats(b);
    if (got != want) {
      std::string g;
      for (float f : got) g += (g.empty() ? "" : ", ") + std::to_string(f);
      throw Fail{what + " is [" + g + "]"};
    }
  }

  KilnExecutable* compile(KilnClient* c, const char* text, int32_t replicas = 0) {
    KilnCompileArgs a{};
    a.client = c;
    a.code = text;
    a.code_size = std::strlen(text);
    a.name = "check.mlir";
    a.num_replicas = replicas;
    expectOk(&KilnPluginApi::compile, a, "compile");
    return own(a.executable);
  }

  struct Run {
    Outcome call;                          // execute's own
    std::vector<std::vector<KilnBuffer*>> outputs;  // per device
    std::vector<KilnEvent*> done;          // per device
  };

  // Starts `x` with one argument list per device (owned results), donating `donate`,
  // under a time limit of `timeLimitNs` (0: none).
  Run execute(KilnExecutable* x, const std::vector<std::vector<KilnBuffer*>>& args,
              std::vector<KilnDevice*> onDevices = {}, const std::vector<size_t>& donate = {},
              int64_t timeLimitNs = 0) {
    KilnExecutableInfoArgs info{};
    info.executable = x;
    expectOk(&KilnPluginApi::executable_info, info, "executable_info");
    const size_t n = args.size();
    Run run;
    run.outputs.assign(n, std::vector<KilnBuffer*>(info.num_results, nullptr));
    run.done.assign(n, nullptr);
    std::vector<KilnBuffer* const*> argLists(n);
    std::vector<KilnBuffer**> outLists(n);
    for (size_t d = 0; d < n; ++d) {
      argLists[d] = args[d].data();
      outLists[d] = run.outputs[d].data();
    }
    KilnExecuteArgs a{};
    a.executable = x;
    a.num_devices = n;
    a.devices = onDevices.empty() ? nullptr : onDevices.data();
    a.argument_lists = argLists.data();
    a.num_args = args.empty() ? 0 : args[0].size();
    a.output_lists = outLists.data();
    a.complete_events = run.done.data();
    a.donated_args = donate.empty() ? nullptr : donate.data();
    a.num_donated_args = donate.size();
    a.time_limit_ns = timeLimitNs;
    run.call = call(&KilnPluginApi::execute, a);
    if (run.call.code == 0)
      for (size_t d = 0; d < n; ++d) {
        for (KilnBuffer* b : run.outputs[d]) own(b);
        own(run.done[d]);
      }
    return run;
  }

  Run executeOk(KilnExecutable* x, const std::vector<std::vector<KilnBuffer*>>& args,
                std::vector<KilnDevice*> onDevices = {}, const std::vector<size_t>& donate = {},
                int64_t timeLimitNs = 0) {
    Run run = execute(x, args, std::move(onDevices), donate, timeLimitNs);
    if (run.call.code != 0) throw Fail{std::string("execute failed: ") + codeName(run.call.code) + ": " + run.call.message};
    return run;
  }

 private:
  // `handle`, destroyed through `destroy` when the check ends (every destroy args struct
  // is its struct_size and the handle).
  template <class Handle, class Args>
  Handle* owned(Handle* handle, KilnError* (*KilnPluginApi::*destroy)(Args*)) {
    runner_.own([this, handle, destroy] {
      Args d{sizeof(Args), handle};
      outcomeOf((api_.*destroy)(&d));
    });
    return handle;
  }

  const KilnPluginApi& api_;
  kit::CheckRunner runner_;
};

}  // namespace kiln::testing::plugin_kit
