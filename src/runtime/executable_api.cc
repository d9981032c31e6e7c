// Executables: compiled (or deserialized) by the backend, described, serialized, and run
// on a device's queue once their arguments are ready.
#include "runtime/api_call.h"
#include "runtime/api_functions.h"
#include "runtime/dtype_codes.h"

namespace kiln::runtime::api {

namespace {

// An executable for `program`, whose parameters and results must be tensors of the
// dtypes the C API has codes for.
KilnExecutable* newExecutable(KilnClient& client, std::unique_ptr<CompiledProgram> program) {
  auto info = std::make_shared<ProgramInfo>(std::move(program));
  auto check = [](const std::vector<Type>& types, const char* what) {
    for (size_t i = 0; i < types.size(); ++i)
      if (!types[i].isTensor() || dtypeCode(types[i].dtype()) == KILN_DTYPE_INVALID)
        throw ApiFailure(KILN_ERROR_UNIMPLEMENTED, std::string("unsupported: ") + what + " " + std::to_string(i) +
                                                       " of type " + types[i].str() +
                                                       " (the plugin API passes tensors of the KilnDType dtypes)");
  };
  check(info->params, "parameter");
  check(info->results, "result");
  auto executable = std::make_unique<KilnExecutable>();
  executable->client = &client;
  executable->info = std::move(info);
  return executable.release();
}

// One device's part of an execution: its arguments, outputs and completion.
struct Launch {
  std::shared_ptr<const ProgramInfo> program;
  std::shared_ptr<DeviceQueue> queue;
  std::vector<std::shared_ptr<BufferState>> args, outputs;
  EventRef done = std::make_shared<Event>();

  // Fails the outputs; the arguments' reads end unread.
  void fail(const Failure& failure) {
    for (const auto& arg : args) arg->endUse();
    args.clear();
    for (const auto& out : outputs) out->fail(failure);
    done->set(failure);
  }

  // Runs on the device's queue. Reading an argument ends its use, so an argument whose
  // handle is gone is freed before the outputs are signalled.
  void run() {
    try {
      interp::HostValues values;
      std::vector<std::shared_ptr<BufferState>> reads = std::move(args);
      std::optional<ApiFailure> missing;
      for (size_t i = 0; i < reads.size(); ++i) {
        if (missing) {
          reads[i]->endUse();
          continue;
        }
        try {
          values.push_back(reads[i]->take());
        } catch (const ApiFailure& e) {
          missing.emplace(e.failure().code, "argument " + std::to_string(i) + ": " + e.failure().message);
        }
      }
      if (missing) throw *missing;
      interp::HostValues results = program->program->run(values);
      if (results.size() != outputs.size())
        throw ApiFailure(KILN_ERROR_INTERNAL, "the program returned " + std::to_string(results.size()) +
                                                  " results for " + std::to_string(outputs.size()) + " outputs");
      for (size_t r = 0; r < results.size(); ++r) outputs[r]->fill(std::move(results[r]));
      done->set();
    } catch (...) {
      fail(currentFailure());
    }
  }

  // Queues run() once every argument is ready; a failed argument fails the outputs.
  static void start(std::shared_ptr<Launch> launch) {
    std::vector<EventRef> inputs;
    for (const auto& arg : launch->args) inputs.push_back(arg->ready);
    whenAll(inputs, [launch](const std::optional<Failure>& failure) {
      if (failure) return launch->fail({failure->code, "an argument of the execution failed: " + failure->message});
      try {
        launch->queue->push([launch] { launch->run(); });
      } catch (...) {
        launch->fail(currentFailure());
      }
    });
  }
};

}  // namespace

KilnError* compile(KilnCompileArgs* args) {
  return apiCall("compile", args, [](KilnCompileArgs& a, const Fits& fits) {
    fits.requireOut(a.executable, "executable");
    KilnClient& client = need(a.client, "client");
    if (!a.code) invalid("code is null");
    if (a.num_replicas < 0 || a.num_partitions < 0) invalid("num_replicas and num_partitions must be >= 0");
    if (a.num_replicas > 1 || a.num_partitions > 1)
      throw ApiFailure(KILN_ERROR_UNIMPLEMENTED,
                       "unsupported: " + std::to_string(std::max(1, a.num_replicas)) + " replicas x " +
                           std::to_string(std::max(1, a.num_partitions)) +
                           " partitions (this version of the plugins compiles for one device: 1 x 1)");
    CompileSettings settings;
    switch (a.optimization) {
      case KILN_OPTIMIZATION_DEFAULT:
      case KILN_OPTIMIZATION_FULL: break;
      case KILN_OPTIMIZATION_FAST: settings.fast = true; break;
      default: invalid("optimization " + std::to_string(static_cast<int>(a.optimization)) + " is not a KilnOptimization");
    }
    if (a.dump_dir) settings.dumpDir = a.dump_dir;
    SourceRef source = SourceBuffer::fromString(a.name ? a.name : "<program>", std::string(a.code, a.code_size));
    a.executable = newExecutable(client, client.backend->compile(source, settings));
  });
}

KilnError* executableDestroy(KilnExecutableDestroyArgs* args) {
  return apiCall("executable_destroy", args, [](KilnExecutableDestroyArgs& a, const Fits&) {
    // Executions in flight keep the program (Launch::program).
    std::unique_ptr<KilnExecutable> owned(&need(a.executable, "executable"));
  });
}

KilnError* executableInfo(KilnExecutableInfoArgs* args) {
  return apiCall("executable_info", args, [](KilnExecutableInfoArgs& a, const Fits&) {
    const ProgramInfo& info = *need(a.executable, "executable").info;
    a.name = info.program->entry().name().c_str();
    a.num_parameters = info.params.size();
    a.num_results = info.results.size();
    a.flops = info.flops;
    a.bytes_accessed = info.bytesAccessed;
    a.temp_bytes = info.tempBytes;
    a.peak_live_bytes = info.peakLiveBytes;
  });
}

KilnError* executableValueType(KilnExecutableValueTypeArgs* args) {
  return apiCall("executable_value_type", args, [](KilnExecutableValueTypeArgs& a, const Fits&) {
    const ProgramInfo& info = *need(a.executable, "executable").info;
    const std::vector<Type>& types = a.is_result ? info.results : info.params;
    const auto& dims = a.is_result ? info.resultDims : info.paramDims;
    if (a.index >= types.size())
      invalid(std::string(a.is_result ? "result" : "parameter") + " " + std::to_string(a.index) +
              " does not exist (the executable has " + std::to_string(types.size()) + ")");
    a.dtype = dtypeCode(types[a.index].dtype());
    a.dims = dims[a.index].data();
    a.num_dims = dims[a.index].size();
  });
}

KilnError* executableSerialize(KilnExecutableSerializeArgs* args) {
  return apiCall("executable_serialize", args, [](KilnExecutableSerializeArgs& a, const Fits&) {
    KilnExecutable& executable = need(a.executable, "executable");
    executable.serialized = executable.info->program->serialize();
    a.bytes = executable.serialized.data();
    a.num_bytes = executable.serialized.size();
  });
}

KilnError* executableDeserialize(KilnExecutableDeserializeArgs* args) {
  return apiCall("executable_deserialize", args, [](KilnExecutableDeserializeArgs& a, const Fits& fits) {
    fits.requireOut(a.executable, "executable");
    KilnClient& client = need(a.client, "client");
    if (!a.bytes && a.num_bytes > 0) invalid("bytes is null");
    a.executable = newExecutable(client, client.backend->deserialize(std::string_view(a.bytes, a.num_bytes)));
  });
}

KilnError* execute(KilnExecuteArgs* args) {
  return apiCall("execute", args, [](KilnExecuteArgs& a, const Fits&) {
    KilnExecutable& executable = need(a.executable, "executable");
    KilnClient& client = *executable.client;
    const ProgramInfo& info = *executable.info;
    if (a.num_devices == 0) invalid("num_devices is 0");
    if (a.num_devices > 1)
      throw ApiFailure(KILN_ERROR_UNIMPLEMENTED,
                       "unsupported: running on " + std::to_string(a.num_devices) +
                           " devices at once (executables are compiled for one device in this version)");
    if (a.num_args != info.params.size())
      invalid("the executable takes " + std::to_string(info.params.size()) + " argument(s), " +
              std::to_string(a.num_args) + " given");
    if (!a.argument_lists && a.num_args > 0) invalid("argument_lists is null");
    if (!a.output_lists) invalid("output_lists is null");
    // Everything is checked before anything starts, so a failed call leaves nothing running.
    std::vector<std::shared_ptr<Launch>> launches;
    for (size_t d = 0; d < a.num_devices; ++d) {
      KilnDevice* device = a.devices ? a.devices[d] : (d < client.handles.size() ? client.handles[d] : nullptr);
      if (!device) invalid("device " + std::to_string(d) + " is null or not a device of the client");
      if (device->client != &client) invalid("device " + std::to_string(d) + " belongs to another client");
      if (!a.output_lists[d]) invalid("output_lists[" + std::to_string(d) + "] is null");
      KilnBuffer* const* list = a.num_args > 0 ? a.argument_lists[d] : nullptr;
      if (!list && a.num_args > 0) invalid("argument_lists[" + std::to_string(d) + "] is null");
      auto launch = std::make_shared<Launch>();
      launch->program = executable.info;
      launch->queue = device->queue;
      for (size_t i = 0; i < a.num_args; ++i) {
        const std::string what = "argument " + std::to_string(i);
        if (!list[i]) invalid(what + " is null");
        const std::shared_ptr<BufferState>& arg = list[i]->state;
        if (arg->deleted()) throw ApiFailure(KILN_ERROR_FAILED_PRECONDITION, what + ": the buffer was deleted");
        if (arg->type != info.params[i])
          invalid(what + " is " + arg->type.str() + ", but parameter " + std::to_string(i) + " of @" +
                  info.program->entry().name() + " is " + info.params[i].str());
        if (arg->device != device)
          invalid(what + " is on device " + std::to_string(arg->device->id) + ", the execution on device " +
                  std::to_string(device->id) + " (copy it with buffer_copy_to_device)");
        launch->args.push_back(arg);
      }
      for (const Type& type : info.results)
        launch->outputs.push_back(std::make_shared<BufferState>(type, device, device->deviceMemory));
      launches.push_back(std::move(launch));
    }
    // Every argument becomes a pending read; a buffer deleted since it was checked
    // (by another thread) fails the call, and the reads counted so far end.
    std::vector<BufferState*> counted;
    try {
      for (const auto& launch : launches)
        for (const auto& arg : launch->args) {
          arg->use();
          counted.push_back(arg.get());
        }
    } catch (...) {
      for (BufferState* arg : counted) arg->endUse();
      throw;
    }
    for (size_t d = 0; d < launches.size(); ++d) {
      for (size_t r = 0; r < launches[d]->outputs.size(); ++r)
        a.output_lists[d][r] = std::make_unique<KilnBuffer>(KilnBuffer{launches[d]->outputs[r]}).release();
      if (a.complete_events)
        a.complete_events[d] = std::make_unique<KilnEvent>(KilnEvent{launches[d]->done}).release();
      Launch::start(std::move(launches[d]));
    }
  });
}

}  // namespace kiln::runtime::api
