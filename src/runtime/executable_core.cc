// Executables: compiled (or deserialized) by the backend, described, serialized, and run
// on a device's queue once their arguments are ready.
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <map>

#include "passes/sharding/partition_program.h"
#include "runtime/api_call.h"
#include "runtime/buffer_types.h"
#include "runtime/plugin_core.h"
#include "runtime/serialized_executable.h"

namespace kiln::runtime::core {

namespace {

// The buffer frameworks pass for a token parameter: PRED[0], as XLA takes it (JAX passes
// np.zeros((0,), bool) for the tokens of its ordered effects).
bool standsForToken(const Type& t) { return t.isTensor() && t.dtype() == DType::I1 && t.shape() == Shape{0}; }

// An executable for `program` (entered at process 0's function; the other processes'
// are entered from it), whose parameters and results must be tensors of the dtypes PJRT
// has types for, or tokens.
std::unique_ptr<ExecutableCore> newExecutable(ClientCore& client, std::shared_ptr<const CompiledProgram> program,
                                              const Placement& placement) {
  auto executable = std::make_unique<ExecutableCore>();
  executable->client = &client;
  executable->info = std::make_shared<ProgramInfo>(std::move(program), placement);
  std::map<std::string, std::shared_ptr<const ProgramInfo>> byName;
  if (!placement.entries.empty()) byName[placement.entries[0]] = executable->info;
  for (const std::string& name : placement.entries) {
    std::shared_ptr<const ProgramInfo>& info = byName[name];
    if (!info) info = std::make_shared<ProgramInfo>(executable->info->program->withEntry(name), placement);
    executable->processes.push_back(info);
  }
  auto check = [](const ProgramInfo& info, const std::vector<Type>& types, const char* what) {
    for (size_t i = 0; i < types.size(); ++i)
      if (!types[i].isToken() && !(types[i].isTensor() && pjrt::bufferTypeOf(types[i].dtype()) != PJRT_Buffer_Type_INVALID))
        throw ApiFailure(FailureCode::Unimplemented, std::string("unsupported: ") + what + " " + std::to_string(i) +
                                                         " of @" + info.program->entry().name() + " has type " +
                                                         types[i].str() +
                                                         " (PJRT passes tensors of its element types, and tokens)");
  };
  for (size_t p = 0; p < std::max<size_t>(1, executable->processes.size()); ++p) {
    const ProgramInfo& info = *executable->infoOf(p);
    check(info, info.params, "parameter");
    check(info, info.results, "result");
  }
  return executable;
}

// The placement a compile asks for, checked against the client's devices.
Placement placementOf(const CompileRequest& a, const ClientCore& client) {
  if (a.replicas < 0 || a.partitions < 0) invalid("num_replicas and num_partitions must be >= 0");
  Placement where;
  where.replicas = std::max(1, a.replicas);
  where.partitions = std::max(1, a.partitions);
  const int64_t processes = int64_t{where.replicas} * where.partitions;
  const std::string grid = std::to_string(where.replicas) + " replicas x " + std::to_string(where.partitions) +
                           " partitions";
  if (client.transport && processes > 1 && processes != static_cast<int64_t>(client.allDevices()))
    invalid(grid + " need " + std::to_string(processes) + " processes; the mpi communicator has " +
            std::to_string(client.allDevices()) + " (mpirun -np sets how many)");
  if (processes > static_cast<int64_t>(client.allDevices()))
    invalid(grid + " need " + std::to_string(processes) + " devices; the client has " +
            std::to_string(client.devices.size()) + " (the client option num_devices, or " +
            deviceCountVariable(client.backend->name()) + ", sets how many)");
  if (!a.deviceAssignment.empty() && client.transport)
    throw ApiFailure(FailureCode::Unimplemented, "unsupported: a device_assignment under the mpi communicator "
                                                 "(process (r, p) runs on rank r * num_partitions + p)");
  if (!a.deviceAssignment.empty()) {
    if (a.deviceAssignment.size() != static_cast<size_t>(processes))
      invalid("the device assignment names " + std::to_string(a.deviceAssignment.size()) + " devices for " + grid);
    for (int64_t i = 0; i < processes; ++i) {
      const int32_t id = a.deviceAssignment[static_cast<size_t>(i)];
      if (id < 0 || id >= static_cast<int32_t>(client.devices.size()))
        invalid("device_assignment[" + std::to_string(i) + "] is " + std::to_string(id) + ", not a device id of the client (0.." +
                std::to_string(client.devices.size() - 1) + ")");
      for (int32_t other : where.devices)
        if (other == id) invalid("device_assignment names device " + std::to_string(id) + " twice");
      where.devices.push_back(id);
    }
  }
  where.entry = a.entry;
  if (!a.processEntries.empty()) {
    if (a.processEntries.size() != static_cast<size_t>(processes))
      invalid("num_process_entries is " + std::to_string(a.processEntries.size()) + "; " + grid + " need " +
              std::to_string(processes));
    for (size_t i = 0; i < a.processEntries.size(); ++i) {
      const std::string& name = a.processEntries[i];
      if (name.empty()) invalid("process_entries[" + std::to_string(i) + "] is empty");
      // Names go into the serialized header, one line of space-separated names.
      for (char c : name)
        if (c == ' ' || c == '\n' || c == '@')
          invalid("process_entries[" + std::to_string(i) + "] ('" + name + "') is not a function name");
      where.entries.push_back(name);
    }
  }
  return where;
}

// The processes of one multi-device execution and the grid their collectives exchange
// through (the in-process communicator, or the client's transport: then only this
// rank's process runs here).
struct SharedGrid {
  // Processes waiting in a collective stop too when `control` says.
  SharedGrid(int32_t replicas, int32_t partitions, const RunControl& control,
             std::shared_ptr<interp::ProcessTransport> transport)
      : options(control.interpOptions("")), grid(replicas, partitions, {}, options, std::move(transport)) {
    for (int32_t r = 0; r < replicas; ++r)
      for (int32_t p = 0; p < partitions; ++p) processes.emplace_back(grid, interp::ProcessId{r, p});
  }
  interp::InterpOptions options;  // before the grid, which keeps a reference to it
  interp::ProcessGrid grid;
  std::vector<interp::ProcessContext> processes;  // replica-major
};

// The host's print callback of one execution (ExecuteRequest::print), shared by its
// launches: released once the last is gone, if the call that made it succeeded (armed).
struct PrintSink {
  void (*print)(void*, const char*, size_t);
  void* user;
  void (*release)(void*);
  bool armed = false;
  ~PrintSink() {
    if (armed && release) release(user);
  }
};

// One device's part of an execution: its arguments, outputs and completion, and its
// process of a multi-device execution.
struct Launch : Cancellable {
  std::shared_ptr<const ProgramInfo> program;
  std::shared_ptr<DeviceQueue> queue;
  DeviceCore* device = nullptr;
  std::vector<std::shared_ptr<BufferState>> args, outputs;
  EventRef done = std::make_shared<Completion>();
  std::shared_ptr<SharedGrid> grid;  // null on one device
  size_t process = 0;                // its index in grid->processes
  std::string label;                 // prefixes the failures of its own run
  std::optional<std::chrono::steady_clock::time_point> deadline;  // ExecuteRequest::timeLimitNs
  std::shared_ptr<PrintSink> printSink;  // null: prints go to stdout
  std::vector<bool> donated;             // the arguments it was given to keep; empty: none
  // The execution's cancellation (Cancellable::cancel): a flag in its first launch, which
  // the others keep alive (the completion events share that launch too), with every
  // launch of the execution, so that those not started yet fail at once.
  std::atomic<bool> cancelFlag{false};
  const std::atomic<bool>* flag = &cancelFlag;  // the first launch's
  std::shared_ptr<const Launch> flagOwner;   // null in the first launch
  std::vector<std::weak_ptr<Launch>> family;  // in the first of several: all of them
  // Whether the launch has started running or been failed: whoever sets it first (the
  // device's queue, a failed argument, or a cancel) is the one that finishes it.
  std::atomic<bool> claimed{false};

  bool claim() { return !claimed.exchange(true, std::memory_order_acq_rel); }
  bool cancelled() const { return flag->load(std::memory_order_relaxed); }
  static Failure cancelledFailure() { return {FailureCode::Cancelled, "the execution was cancelled"}; }

  // (The first launch.) Sets the flag, and fails at once every launch not started: one
  // still waiting for its arguments too (their reads end unread).
  void cancel() override {
    cancelFlag.store(true, std::memory_order_relaxed);
    if (family.empty()) return failUnstarted(*this);  // the execution's only launch
    for (const std::weak_ptr<Launch>& weak : family)
      if (std::shared_ptr<Launch> launch = weak.lock()) failUnstarted(*launch);
  }
  static void failUnstarted(Launch& launch) {
    if (!launch.claim()) return;
    Failure failure{FailureCode::Cancelled, "the execution was cancelled before it started"};
    if (!launch.label.empty()) failure.message = launch.label + ": " + failure.message;
    if (launch.grid) launch.grid->grid.abandon(launch.grid->processes[launch.process].id(), failure.message);
    launch.fail(failure);
  }

  // Fails the outputs; the arguments' reads end unread. Only by the launch's claimant.
  void fail(const Failure& failure) {
    for (const auto& arg : args) arg->endUse();
    args.clear();
    for (const auto& out : outputs) out->fail(failure);
    done->set(failure);
  }

  // Runs on the device's queue (or on the caller's thread: Launch::start). Reading an
  // argument ends its use, so an argument whose handle is gone is freed before the
  // outputs are signalled.
  void run() {
    if (!claim()) return;  // cancelled while queued: failed already
    try {
      if (cancelled()) throw ApiFailure(FailureCode::Cancelled, "the execution was cancelled before it started");
      if (!grid) return runProgram();
      interp::ProcessContext& self = grid->processes[process];
      grid->grid.runAs(self, [&] { runProgram(&self); });
    } catch (...) {
      Failure failure = currentFailure();
      if (cancelled() && failure.code != FailureCode::Cancelled) failure = cancelledFailure();  // its loop's "cancelled"
      if (!label.empty()) failure.message = label + ": " + failure.message;
      fail(failure);
    }
  }

  // Reads the arguments, runs the program (as process `self` of a multi-device
  // execution, or alone) and fills the outputs; throws what fails.
  void runProgram(interp::ProcessContext* self = nullptr) {
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
        if (program->params[i].isToken()) values.back() = interp::HostValue::token();
      } catch (const ApiFailure& e) {
        missing.emplace(e.failure().code, "argument " + std::to_string(i) + ": " + e.failure().message);
      }
    }
    if (missing) throw *missing;
    RunControl control;
    control.process = self;
    control.cancel = flag;
    control.deadline = deadline;
    control.feeds = device->feeds.get();
    if (!donated.empty()) control.donated = &donated;
    if (printSink)
      control.print = [sink = printSink.get()](const std::string& text) { sink->print(sink->user, text.data(), text.size()); };
    interp::HostValues results = program->program->run(values, control);
    if (results.size() != outputs.size())
      throw ApiFailure(FailureCode::Internal, "the program returned " + std::to_string(results.size()) +
                                                " results for " + std::to_string(outputs.size()) + " outputs");
    for (size_t r = 0; r < results.size(); ++r)
      if (results[r].type() != outputs[r]->type)
        throw ApiFailure(FailureCode::Internal, "result " + std::to_string(r) + " of the program is " +
                                                  results[r].type().str() + ", its type " + outputs[r]->type.str());
    // A result that is an argument's own storage (passed through) gets storage of its
    // own unless that argument was donated, as XLA gives it: the output is a new buffer
    // (JAX's array copy checks its address), which the argument's deletion or later
    // donation leaves alone.
    for (interp::HostValue& result : results) {
      if (!result.isTensor() || result.tensor().isSplat() || !result.tensor().storage()) continue;
      for (size_t i = 0; i < values.size(); ++i)
        if (values[i].isTensor() && values[i].tensor().storage() == result.tensor().storage() &&
            !(i < donated.size() && donated[i])) {
          result.tensor().mutableStorage();
          break;
        }
    }
    for (size_t r = 0; r < results.size(); ++r) outputs[r]->fill(std::move(results[r]));
    done->set();
  }

  // Queues run() on the device; a device that cannot take it fails the launch (and
  // its process, so that the others do not wait for it).
  static void push(const std::shared_ptr<Launch>& launch) {
    try {
      launch->queue->push([launch] { launch->run(); });
    } catch (...) {
      if (!launch->claim()) return;
      Failure failure = currentFailure();
      if (launch->grid) launch->grid->grid.abandon(launch->grid->processes[launch->process].id(), failure.message);
      launch->fail(failure);
    }
  }

  // Queues the launches of one execution once every argument of every one is ready (the
  // processes of a multi-device execution start together, in one order on every
  // device: `order` is the client's launch lock); a failed argument fails them all.
  static void start(std::vector<std::shared_ptr<Launch>> launches, std::shared_ptr<std::mutex> order) {
    // The common call: one device, its arguments computed already; a small program runs
    // here (the caller's thread) when the device has nothing else to do.
    if (launches.size() == 1 && std::all_of(launches[0]->args.begin(), launches[0]->args.end(),
                                            [](const auto& arg) { return arg->ready->succeeded(); })) {
      Launch& only = *launches[0];
      if (only.program->runsInline && !only.grid && only.device->client->inlineExecution &&
          only.queue->runHereIfIdle([&] { only.run(); }))
        return;
      return push(launches[0]);
    }
    std::vector<EventRef> inputs;
    for (const auto& launch : launches)
      for (const auto& arg : launch->args) inputs.push_back(arg->ready);
    whenAll(inputs, [launches = std::move(launches), order](const std::optional<Failure>& failure) {
      if (failure) {
        // Down a chain of executions the message keeps one prefix and the root's failure.
        static const std::string kPrefix = "an argument of the execution failed: ";
        const std::string message =
            failure->message.rfind(kPrefix, 0) == 0 ? failure->message : kPrefix + failure->message;
        for (const auto& launch : launches)
          if (launch->claim()) launch->fail({failure->code, message});
        return;
      }
      if (launches.size() == 1) return push(launches[0]);
      std::lock_guard<std::mutex> lock(*order);
      for (const auto& launch : launches) push(launch);
    });
  }
};

// The donated argument whose device memory each output takes over (null: none): the
// first output of a donated argument's type not yet matched, in order.
std::vector<BufferState*> donorsOf(const Launch& launch, const ProgramInfo& info, const std::vector<bool>& donated) {
  std::vector<BufferState*> donor(info.results.size(), nullptr);
  std::vector<bool> matched(launch.args.size(), false);
  for (size_t r = 0; r < info.results.size(); ++r)
    for (size_t i = 0; i < launch.args.size(); ++i)
      if (i < donated.size() && donated[i] && !matched[i] && launch.args[i]->type == info.results[r]) {
        donor[r] = launch.args[i].get();
        matched[i] = true;
        break;
      }
  return donor;
}

}  // namespace

void setCompileOption(CompileSettings& settings, const std::string& name, const std::string& value,
                      const std::string& where) {
  auto decimal = [&](const char* what) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE || value[0] == '-')
      invalid(where + ": " + name + " is '" + value + "', not " + what);
    return n;
  };
  if (name == "fill_elided_seed") {
    settings.fillElidedSeed = decimal("a decimal seed");
  } else if (name == "memory_limit") {
    const unsigned long long limit = decimal("a decimal number of bytes");
    if (limit > static_cast<unsigned long long>(INT64_MAX)) invalid(where + ": memory_limit is too large");
    settings.memoryLimit = static_cast<int64_t>(limit);
  } else if (name == "probe_dir") {
    settings.probeDir = value;
  } else if (name == "profile") {
    if (value != "0" && value != "1") invalid(where + ": profile is '" + value + "' (1 or 0)");
    settings.profile = value == "1";
    if (settings.profile && !backend().profiles())
      throw ApiFailure(FailureCode::Unimplemented,
                       std::string("unsupported: the ") + backend().name() + " plugin records no profiles");
  } else if (name == "kernel_cache_dir") {
    settings.kernelCacheDir = value;
  } else if (name.rfind("xla_", 0) == 0) {
    // XLA's debug options (jax.jit's compiler_options={"xla_...": ...}), which every XLA
    // backend takes whatever backend they are for: they tune XLA's compiler, not kiln's.
  } else {
    // (XLA's wording, which frameworks look for.)
    invalid(where + ": No such compile option: '" + name +
            "' (this plugin knows: fill_elided_seed, memory_limit, probe_dir, profile, kernel_cache_dir, and "
            "takes XLA's xla_* options without using them)");
  }
}

std::unique_ptr<ExecutableCore> compile(ClientCore& client, const CompileRequest& request) {
  const Placement where = placementOf(request, client);
  CompileSettings settings = request.settings;
  settings.entry = where.entries.empty() ? where.entry : where.entries[0];
  std::string code(request.code);
  if (request.spmd && where.partitions > 1) {
    passes::ShardedProgram sharded = passes::partitionProgram(code, request.name, settings.entry);
    if (sharded.report.partitioned) {
      if (sharded.report.numDevices != where.partitions)
        invalid("the program's shardings span " + std::to_string(sharded.report.numDevices) + " devices; it is compiled for " +
                std::to_string(where.partitions) + " partitions");
      code = std::move(sharded.text);
    }
  }
  SourceRef source = SourceBuffer::fromString(request.name, std::move(code));
  return newExecutable(client, client.backend->compile(source, settings), where);
}

std::unique_ptr<ExecutableCore> deserialize(ClientCore& client, std::string_view bytes, const std::string& sourceName,
                                            std::optional<std::string_view> text) {
  Placement where = deserializePlacement(bytes);
  if (where.processes() > static_cast<int64_t>(client.allDevices()))
    invalid("the executable runs on " + std::to_string(where.processes()) + " devices; the client has " +
            std::to_string(client.allDevices()));
  for (int32_t id : where.devices)
    if (id >= static_cast<int32_t>(client.devices.size()))
      invalid("the executable's device assignment names device " + std::to_string(id) + "; the client has " +
              std::to_string(client.devices.size()));
  SourceRef source;
  if (text) source = SourceBuffer::fromString(sourceName.empty() ? "<program>" : sourceName, std::string(*text));
  auto program = client.backend->deserialize(bytes, where.entries.empty() ? where.entry : where.entries[0], source);
  return newExecutable(client, std::move(program), where);
}

std::unique_ptr<ExecutableCore> withEntry(const ExecutableCore& from, const std::string& entry) {
  if (!from.processes.empty()) invalid("the executable's processes run different functions (process_entries)");
  Placement where = from.info->placement;
  where.entry = entry;
  return newExecutable(*from.client, from.info->program->withEntry(entry), where);
}

void execute(const ExecuteRequest& a) {
  ExecutableCore& executable = need(a.executable, "executable");
  ClientCore& client = *executable.client;
  const Placement& where = executable.info->placement;
  // Under the mpi communicator each rank runs its own process of the execution.
  const bool acrossRanks = client.transport && where.processes() > 1;
  const size_t firstProcess = acrossRanks ? client.transport->rank() : 0;
  if (acrossRanks && a.numDevices != 1)
    invalid("the executable runs as " + std::to_string(where.processes()) +
            " processes, one per MPI rank: each rank executes it on its own device (num_devices 1), not " +
            std::to_string(a.numDevices));
  if (!acrossRanks && a.numDevices != static_cast<size_t>(where.processes()))
    invalid("the executable runs as " + std::to_string(where.replicas) + " replicas x " +
            std::to_string(where.partitions) + " partitions, on " + std::to_string(where.processes()) +
            " device(s); num_devices is " + std::to_string(a.numDevices));
  auto numArgs = [&](size_t d) { return a.numArgs(a.context, d); };
  for (size_t d = 0; d < a.numDevices; ++d) {
    const ProgramInfo& info = *executable.infoOf(firstProcess + d);
    if (numArgs(d) == info.params.size()) continue;
    if (executable.processes.empty())
      invalid("the executable takes " + std::to_string(info.params.size()) + " argument(s), " +
              std::to_string(numArgs(d)) + " given");
    invalid("device " + std::to_string(d) + " runs @" + info.program->entry().name() + ", which takes " +
            std::to_string(info.params.size()) + " argument(s); " + std::to_string(numArgs(d)) + " given");
  }
  const std::vector<bool>& donated = a.donated;
  const bool donating = !donated.empty();
  auto isDonated = [&](size_t i) { return donating && i < donated.size() && donated[i]; };
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (a.timeLimitNs != 0) {
    if (a.timeLimitNs < 0) invalid("time_limit_ns is " + std::to_string(a.timeLimitNs) + " (0 for none)");
    deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(a.timeLimitNs);
  }
  std::shared_ptr<PrintSink> printSink;
  if (a.print) printSink.reset(new PrintSink{a.print, a.printUser, a.printRelease});
  // Everything is checked before anything starts, so a failed call leaves nothing running.
  std::vector<std::shared_ptr<Launch>> launches;
  launches.reserve(a.numDevices);
  std::shared_ptr<SharedGrid> grid;
  for (size_t d = 0; d < a.numDevices; ++d) {
    DeviceCore* device = a.devices                ? a.devices[d]
                         : !where.devices.empty() ? client.handles[static_cast<size_t>(where.devices[d])]
                         : d < client.handles.size() ? client.handles[d]
                                                     : nullptr;
    if (!device) invalid("device " + std::to_string(d) + " is null or not a device of the client");
    if (device->client != &client) invalid("device " + std::to_string(d) + " belongs to another client");
    if (!where.devices.empty() && device->id != where.devices[d])
      invalid("device " + std::to_string(d) + " is device " + std::to_string(device->id) +
              ", but the executable's device assignment runs process " +
              interp::ProcessId{static_cast<int64_t>(d) / where.partitions, static_cast<int64_t>(d) % where.partitions}.str() +
              " on device " + std::to_string(where.devices[d]));
    for (size_t e = 0; e < d; ++e)
      if (launches[e]->queue == device->queue)
        invalid("device " + std::to_string(device->id) + " is given twice (devices " + std::to_string(e) + " and " +
                std::to_string(d) + "); each process needs a device of its own");
    const ProgramInfo& info = *executable.infoOf(firstProcess + d);
    const size_t count = numArgs(d);
    if (donating)
      for (size_t i = count; i < donated.size(); ++i)
        if (donated[i])
          invalid("argument " + std::to_string(i) + " is donated, but device " + std::to_string(d) + " has " +
                  std::to_string(count) + " argument(s)");
    auto launch = std::make_shared<Launch>();
    if (launches.empty()) {
      if (where.processes() > 1) {
        RunControl control;
        control.cancel = &launch->cancelFlag;
        control.deadline = deadline;
        grid = std::make_shared<SharedGrid>(where.replicas, where.partitions, control, client.transport);
      }
    } else {
      launch->flag = &launches.front()->cancelFlag;
      launch->flagOwner = launches.front();
    }
    launch->program = executable.infoOf(firstProcess + d);
    launch->queue = device->queue;
    launch->device = device;
    launch->grid = grid;
    launch->process = firstProcess + d;
    launch->label = a.label;
    launch->deadline = deadline;
    launch->printSink = printSink;
    if (donating) launch->donated = donated;
    launch->args.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      auto what = [i] { return "argument " + std::to_string(i); };  // for messages only
      const std::shared_ptr<BufferState>* given = a.argument(a.context, d, i);
      if (!given) invalid("argument_lists[" + std::to_string(d) + "][" + std::to_string(i) + "] is null");
      const std::shared_ptr<BufferState>& arg = *given;
      if (arg->deleted())
        throw ApiFailure(FailureCode::FailedPrecondition,
                         what() + (arg->donated() ? ": the buffer was donated to an execution" : ": the buffer was deleted"));
      if (arg->type != info.params[i] && !(info.params[i].isToken() && standsForToken(arg->type)))
        invalid(what() + " is " + arg->type.str() + ", but parameter " + std::to_string(i) + " of @" +
                info.program->entry().name() + " is " + info.params[i].str());
      if (arg->device != device)
        invalid(what() + " is on device " + std::to_string(arg->device->id) + ", the execution on device " +
                std::to_string(device->id) + " (copy it to that device first)");
      if (donating)
        for (size_t j = 0; j < i; ++j)
          if (launch->args[j] == arg && (isDonated(i) || isDonated(j)))
            invalid("argument " + std::to_string(j) + " and " + what() + " are the same buffer, and one is donated");
      launch->args.push_back(arg);
    }
    launches.push_back(std::move(launch));
  }
  // Every argument becomes a pending read (a donated one the execution's); a buffer
  // deleted or donated since it was checked (by another thread) fails the call, and
  // the reads and donations counted so far are undone. So does a device out of
  // memory for the outputs.
  size_t counted = 0;  // reads counted, launch by launch and argument by argument
  try {
    for (const auto& launch : launches)
      for (size_t i = 0; i < launch->args.size(); ++i, ++counted) launch->args[i]->use(isDonated(i));
    // The outputs with memory of their own first (reserving may fail), then those that
    // take over a donated argument's (which cannot be undone).
    for (const auto& launch : launches) {
      const ProgramInfo& info = *launch->program;
      launch->outputs.resize(info.results.size());
      std::vector<BufferState*> donor = donating ? donorsOf(*launch, info, donated) : std::vector<BufferState*>();
      for (size_t r = 0; r < info.results.size(); ++r)
        if (!donating || !donor[r])
          launch->outputs[r] =
              std::make_shared<BufferState>(info.results[r], launch->device, launch->device->deviceMemory);
    }
  } catch (...) {
    for (const auto& launch : launches)
      for (size_t i = 0; i < launch->args.size() && counted > 0; ++i, --counted)
        isDonated(i) ? launch->args[i]->undonate() : launch->args[i]->endUse();
    throw;
  }
  if (donating)
    for (const auto& launch : launches) {
      const ProgramInfo& info = *launch->program;
      std::vector<BufferState*> donor = donorsOf(*launch, info, donated);
      for (size_t r = 0; r < info.results.size(); ++r)
        if (donor[r]) launch->outputs[r] = std::make_shared<BufferState>(launch->device, *donor[r]);
    }
  for (size_t d = 0; d < launches.size(); ++d) {
    for (size_t r = 0; r < launches[d]->outputs.size(); ++r) a.output(a.context, d, r, launches[d]->outputs[r]);
    a.done(a.context, d, launches[d]->done, launches.front());
  }
  if (launches.size() > 1)
    for (const auto& launch : launches) launches.front()->family.push_back(launch);
  Launch::start(std::move(launches), client.launchOrder);
  // The call succeeded: the sink is released once the launches are gone (`printSink`
  // keeps it alive until here, so no launch can have released it yet).
  if (printSink) printSink->armed = true;
}

}  // namespace kiln::runtime::core
