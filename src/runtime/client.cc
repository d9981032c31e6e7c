// The RAII wrapper: each handle is destroyed through its plugin's table when its last
// owner goes; destroy functions do not fail on a live handle, so their errors are dropped.
#include "runtime/client.h"

#include <algorithm>

#include "runtime/dtype_codes.h"

namespace kiln::runtime {

namespace {

ErrorKind kindOf(KilnErrorCode code) {
  switch (code) {
    case KILN_ERROR_INVALID_ARGUMENT:
    case KILN_ERROR_FAILED_PRECONDITION: return ErrorKind::Usage;
    case KILN_ERROR_UNIMPLEMENTED: return ErrorKind::Unsupported;
    case KILN_ERROR_IO: return ErrorKind::Io;
    case KILN_ERROR_RESOURCE_EXHAUSTED: return ErrorKind::ResourceExhausted;
    case KILN_ERROR_RUNTIME:
    case KILN_ERROR_CANCELLED: return ErrorKind::Runtime;
    case KILN_ERROR_INTERNAL:
    case KILN_ERROR_UNKNOWN: break;
  }
  return ErrorKind::Internal;
}

// A shared handle destroyed through the table (errors dropped: see the file comment).
template <class Handle, class Args>
std::shared_ptr<Handle> owned(const Plugin& plugin, Handle* handle, KilnError* (*KilnPluginApi::*destroy)(Args*)) {
  return std::shared_ptr<Handle>(handle, [plugin, destroy](Handle* h) {
    Args args{sizeof(Args), h};
    if (KilnError* e = (plugin.api().*destroy)(&args)) {
      KilnErrorDestroyArgs d{sizeof(d), e};
      plugin.api().error_destroy(&d);
    }
  });
}

// The C API's code for values of `dtype`; throws Unsupported naming `what` for the
// dtypes it has none for.
KilnDType codeFor(DType dtype, const std::string& what) {
  KilnDType code = dtypeCode(dtype);
  if (code == KILN_DTYPE_INVALID)
    throw Error(ErrorKind::Unsupported, "unsupported: " + what + " of " + std::string(name(dtype)) + " (no KilnDType)");
  return code;
}

Type typeOf(KilnDType code, const int64_t* dims, size_t numDims) {
  if (code == KILN_DTYPE_TOKEN) return Type::token();
  std::optional<DType> dtype = dtypeOf(code);
  if (!dtype) throw Error(ErrorKind::Internal, "the plugin reported dtype code " + std::to_string(code));
  return Type::tensor(*dtype, Shape(dims, dims + numDims));
}

}  // namespace

Error Plugin::toError(const KilnError* error) const {
  KilnErrorInfoArgs info{sizeof(info), error};
  if (KilnError* e = api().error_info(&info)) {
    KilnErrorDestroyArgs d{sizeof(d), e};
    api().error_destroy(&d);
    return Error(ErrorKind::Internal, "plugin '" + loaded_->name + "' cannot describe its own error");
  }
  std::string message(info.message, info.message_size);
  // An invalid argument located in the program's text is about the program (its parse or
  // verification failed), not about how the host called: callers tell those apart.
  const ErrorKind kind = info.code == KILN_ERROR_INVALID_ARGUMENT && isLocatedDiagnostic(message) ? ErrorKind::Parse
                                                                                                  : kindOf(info.code);
  return Error(kind, std::move(message));
}

void Plugin::check(KilnError* error) const {
  if (!error) return;
  Error e = toError(error);
  KilnErrorDestroyArgs d{sizeof(d), error};
  api().error_destroy(&d);
  throw e;
}

std::string Plugin::name() const {
  KilnPluginAttributesArgs args{};
  call(&KilnPluginApi::plugin_attributes, args, "plugin_attributes");
  return args.name;
}

std::string Plugin::version() const {
  KilnPluginAttributesArgs args{};
  call(&KilnPluginApi::plugin_attributes, args, "plugin_attributes");
  return args.version;
}

void Plugin::requireMinor(int minor, const char* what) const {
  if (majorVersion() > 0 || minorVersion() >= minor) return;
  throw Error(ErrorKind::Unsupported, "unsupported: plugin '" + loaded_->name + "' implements API 0." +
                                          std::to_string(minorVersion()) + ", and " + what + " came in 0." +
                                          std::to_string(minor));
}

bool Plugin::has(const char* capability) const {
  const std::vector<std::string>& names = capabilities();
  return std::find(names.begin(), names.end(), capability) != names.end();
}

void Plugin::require(const char* capability, const char* what) const {
  if (!has(capability))
    throw Error(ErrorKind::Unsupported, std::string("unsupported: ") + what + ": plugin '" + loaded_->name +
                                            "' (API " + std::to_string(majorVersion()) + "." +
                                            std::to_string(minorVersion()) + ") lacks the capability '" +
                                            capability + "'");
}

// ---- events ----

Event::Event(Plugin plugin, KilnEvent* handle)
    : plugin_(plugin), handle_(owned(plugin, handle, &KilnPluginApi::event_destroy)) {}

bool Event::ready() const {
  KilnEventIsReadyArgs args{};
  args.event = handle();
  plugin_.call(&KilnPluginApi::event_is_ready, args, "event_is_ready");
  return args.is_ready != 0;
}

void Event::await() const {
  KilnEventAwaitArgs args{};
  args.event = handle();
  plugin_.call(&KilnPluginApi::event_await, args, "event_await");
}

void Event::onReady(std::function<void(const std::optional<Error>&)> callback) const {
  struct Pending {
    Plugin plugin;
    std::function<void(const std::optional<Error>&)> callback;
  };
  auto pending = std::make_unique<Pending>(Pending{plugin_, std::move(callback)});
  KilnEventOnReadyArgs args{};
  args.event = handle();
  args.user_arg = pending.get();
  args.callback = [](KilnError* error, void* user) {
    std::unique_ptr<Pending> p(static_cast<Pending*>(user));
    std::optional<Error> e;
    if (error) {
      e = p->plugin.toError(error);
      KilnErrorDestroyArgs d{sizeof(d), error};
      p->plugin.api().error_destroy(&d);
    }
    p->callback(e);
  };
  plugin_.call(&KilnPluginApi::event_on_ready, args, "event_on_ready");
  pending.release();  // the callback owns it now
}

// ---- devices ----

KilnDeviceInfoArgs Device::info() const {
  KilnDeviceInfoArgs args{};
  args.device = handle_;
  plugin_.call(&KilnPluginApi::device_info, args, "device_info");
  return args;
}

int Device::id() const { return info().global_id; }
int Device::processIndex() const { return info().process_index; }
std::string Device::kind() const { return info().kind; }
std::string Device::description() const { return info().description; }
int64_t Device::memorySize() const { return info().memory_size_bytes; }

Device::MemoryStats Device::memoryStats() const {
  KilnDeviceMemoryStatsArgs args{};
  args.device = handle_;
  plugin_.call(&KilnPluginApi::device_memory_stats, args, "device_memory_stats");
  return {args.bytes_in_use, args.peak_bytes_in_use, args.num_buffers, args.bytes_limit};
}

void Device::infeed(const Literal& value) const {
  plugin_.require(KILN_CAPABILITY_FEEDS, "infeed");
  const KilnDType code = codeFor(value.dtype(), "infeed");
  Literal dense = value;  // shares the storage; a splat is expanded in this copy
  KilnDeviceInfeedArgs args{};
  args.device = handle_;
  args.dtype = code;
  args.dims = dense.shape().data();
  args.num_dims = dense.shape().size();
  args.data = dense.denseStorage();
  plugin_.call(&KilnPluginApi::device_infeed, args, "device_infeed");
}

Event Device::outfeed(const Type& type, void* dst, size_t size) const {
  plugin_.require(KILN_CAPABILITY_FEEDS, "outfeed");
  if (!type.isTensor()) throw Error(ErrorKind::Unsupported, "unsupported: outfeed of " + type.str());
  const KilnDType code = codeFor(type.dtype(), "outfeed");
  KilnDeviceOutfeedArgs args{};
  args.device = handle_;
  args.dtype = code;
  args.dims = type.shape().data();
  args.num_dims = type.shape().size();
  args.dst = dst;
  args.dst_size = size;
  plugin_.call(&KilnPluginApi::device_outfeed, args, "device_outfeed");
  return Event(plugin_, args.event);
}

Literal Device::outfeed(const Type& type) const {
  if (!type.isTensor()) throw Error(ErrorKind::Unsupported, "unsupported: outfeed of " + type.str());
  Literal out(type);
  outfeed(type, out.mutableStorage(), static_cast<size_t>(type.byteSize())).await();
  return out;
}

// ---- buffers ----

Buffer::Buffer(Plugin plugin, std::shared_ptr<KilnClient> client, KilnBuffer* handle)
    : plugin_(plugin), client_(std::move(client)), handle_(owned(plugin, handle, &KilnPluginApi::buffer_destroy)) {}

KilnBufferInfoArgs Buffer::info() const {
  KilnBufferInfoArgs args{};
  args.buffer = handle();
  plugin_.call(&KilnPluginApi::buffer_info, args, "buffer_info");
  return args;
}

Type Buffer::type() const {
  KilnBufferInfoArgs args = info();
  return typeOf(args.dtype, args.dims, args.num_dims);
}

int64_t Buffer::onDeviceSize() const { return info().on_device_size; }

Device Buffer::device() const { return Device(plugin_, client_, info().device); }

Event Buffer::readyEvent() const {
  KilnBufferReadyEventArgs args{};
  args.buffer = handle();
  plugin_.call(&KilnPluginApi::buffer_ready_event, args, "buffer_ready_event");
  return Event(plugin_, args.event);
}

Event Buffer::toHost(void* dst, size_t size) const {
  KilnBufferToHostArgs args{};
  args.buffer = handle();
  args.dst = dst;
  args.dst_size = size;
  plugin_.call(&KilnPluginApi::buffer_to_host, args, "buffer_to_host");
  return Event(plugin_, args.event);
}

Literal Buffer::toLiteral() const {
  Type t = type();
  if (!t.isTensor()) throw Error(ErrorKind::Usage, "a buffer of " + t.str() + " holds no literal");
  Literal out(t);
  toHost(out.mutableStorage(), static_cast<size_t>(out.type().byteSize())).await();
  return out;
}

Buffer Buffer::copyTo(const Device& device) const {
  KilnBufferCopyToDeviceArgs args{};
  args.buffer = handle();
  args.dst_device = device.handle();
  plugin_.call(&KilnPluginApi::buffer_copy_to_device, args, "buffer_copy_to_device");
  return Buffer(plugin_, client_, args.dst_buffer);
}

void Buffer::remove() {
  KilnBufferDeleteArgs args{};
  args.buffer = handle();
  plugin_.call(&KilnPluginApi::buffer_delete, args, "buffer_delete");
}

// ---- executables ----

Executable::Executable(Plugin plugin, std::shared_ptr<KilnClient> client, KilnExecutable* handle)
    : plugin_(plugin),
      client_(std::move(client)),
      handle_(owned(plugin, handle, &KilnPluginApi::executable_destroy)) {
  KilnExecutableInfoArgs args{};
  args.executable = handle;
  plugin_.call(&KilnPluginApi::executable_info, args, "executable_info");
  const int processes = std::max(1, args.num_replicas) * std::max(1, args.num_partitions);
  numResults_.push_back(args.num_results);
  // Each process's function may differ (CompileOptions::processEntries); a plugin before
  // API 0.4 runs one on all.
  for (int p = 1; p < processes && plugin_.minorVersion() >= 4; ++p) {
    KilnExecutableInfoArgs other{};
    other.executable = handle;
    other.process = static_cast<size_t>(p);
    plugin_.call(&KilnPluginApi::executable_info, other, "executable_info");
    numResults_.push_back(other.num_results);
  }
}

size_t Executable::numResults(size_t process) const {
  return numResults_[process < numResults_.size() ? process : 0];
}

ExecutableInfo Executable::info(size_t process) const {
  KilnExecutableInfoArgs args{};
  args.executable = handle();
  args.process = process;
  plugin_.call(&KilnPluginApi::executable_info, args, "executable_info");
  ExecutableInfo info{args.name,
                      {},
                      {},
                      args.flops,
                      args.bytes_accessed,
                      args.temp_bytes,
                      args.peak_live_bytes,
                      std::max(1, args.num_replicas),
                      std::max(1, args.num_partitions)};
  for (int isResult = 0; isResult < 2; ++isResult) {
    size_t count = isResult ? args.num_results : args.num_parameters;
    for (size_t i = 0; i < count; ++i) {
      KilnExecutableValueTypeArgs t{};
      t.executable = handle();
      t.is_result = isResult;
      t.index = i;
      t.process = process;
      plugin_.call(&KilnPluginApi::executable_value_type, t, "executable_value_type");
      (isResult ? info.results : info.parameters).push_back(typeOf(t.dtype, t.dims, t.num_dims));
    }
  }
  return info;
}

std::string Executable::serialize() const {
  KilnExecutableSerializeArgs args{};
  args.executable = handle();
  plugin_.call(&KilnPluginApi::executable_serialize, args, "executable_serialize");
  return std::string(args.bytes, args.num_bytes);
}

void Executable::launch(size_t numDevices, KilnDevice* const* devices, KilnBuffer* const* const* argLists,
                        size_t numArgs, const size_t* numArgsPerDevice, KilnBuffer** const* outLists,
                        KilnEvent** done, const ExecuteOptions& options) const {
  if (!options.donate.empty()) plugin_.require(KILN_CAPABILITY_DONATION, "donating arguments");
  KilnExecuteArgs e{};
  e.executable = handle();
  e.num_devices = numDevices;
  e.devices = devices;
  e.argument_lists = argLists;
  e.num_args = numArgs;
  e.num_args_per_device = numArgsPerDevice;
  e.output_lists = outLists;
  e.complete_events = done;
  e.label = options.label.empty() ? nullptr : options.label.c_str();
  e.donated_args = options.donate.data();
  e.num_donated_args = options.donate.size();
  if (options.timeLimit) {
    plugin_.requireMinor(5, "a time limit on an execution");
    e.time_limit_ns = std::max<int64_t>(1, options.timeLimit->count());
  }
  // The callback lives until the plugin releases it (or the call fails).
  using Print = std::function<void(std::string_view)>;
  std::unique_ptr<Print> print;
  if (options.print) {
    plugin_.requireMinor(7, "a print callback on an execution");
    print = std::make_unique<Print>(options.print);
    e.print = [](void* user, const char* text, size_t size) { (*static_cast<Print*>(user))(std::string_view(text, size)); };
    e.print_user = print.get();
    e.print_release = [](void* user) { delete static_cast<Print*>(user); };
  }
  plugin_.call(&KilnPluginApi::execute, e, "execute");
  (void)print.release();  // the plugin's now
}

Executable Executable::withEntry(const std::string& name) const {
  plugin_.requireMinor(5, "entering an executable at another function");
  KilnExecutableWithEntryArgs args{};
  args.executable = handle();
  args.entry = name.c_str();
  plugin_.call(&KilnPluginApi::executable_with_entry, args, "executable_with_entry");
  return Executable(plugin_, client_, args.entry_executable);
}

std::vector<std::pair<std::string, double>> Executable::statistics() const {
  if (plugin_.minorVersion() < 5 && plugin_.majorVersion() == 0) return {};  // it can say nothing
  KilnExecutableStatisticsArgs args{};
  args.executable = handle();
  plugin_.call(&KilnPluginApi::executable_statistics, args, "executable_statistics");
  std::vector<std::pair<std::string, double>> values;
  for (size_t i = 0; i < args.num_values; ++i) values.emplace_back(args.values[i].name, args.values[i].value);
  return values;
}

std::string Executable::text(const std::string& name) const {
  plugin_.requireMinor(7, "executable_text");
  plugin_.require(KILN_CAPABILITY_TEXT, "executable_text");
  KilnExecutableTextArgs args{};
  args.executable = handle();
  args.name = name.c_str();
  plugin_.call(&KilnPluginApi::executable_text, args, "executable_text");
  return std::string(args.text, args.text_size);
}

Executable::Execution Executable::execute(const std::vector<const Buffer*>& args, const Device& device,
                                          const ExecuteOptions& options) const {
  // One device: no lists of lists (this is every eager op's path).
  std::vector<KilnBuffer*> argHandles(args.size()), outHandles(numResults(0), nullptr);
  for (size_t i = 0; i < args.size(); ++i) argHandles[i] = args[i] ? args[i]->handle() : nullptr;
  KilnBuffer* const* argList = argHandles.data();
  KilnBuffer** outList = outHandles.data();
  KilnDevice* deviceHandle = device.handle();
  KilnEvent* done = nullptr;
  launch(1, &deviceHandle, &argList, args.size(), nullptr, &outList, &done, options);
  Execution execution{{}, Event(plugin_, done)};
  execution.outputs.reserve(outHandles.size());
  for (KilnBuffer* out : outHandles) execution.outputs.emplace_back(plugin_, client_, out);
  return execution;
}

std::vector<Executable::Execution> Executable::execute(const std::vector<std::vector<const Buffer*>>& args,
                                                       const std::vector<Device>& devices,
                                                       const ExecuteOptions& options) const {
  if (args.size() != devices.size())
    throw Error(ErrorKind::Usage, std::to_string(args.size()) + " argument lists for " +
                                      std::to_string(devices.size()) + " devices");
  const size_t n = devices.size();
  size_t numArgs = args.empty() ? 0 : args[0].size();
  std::vector<size_t> counts(n);  // per device: processes may run different functions
  bool sameCounts = true;
  std::vector<std::vector<KilnBuffer*>> argHandles(n), outHandles(n);
  std::vector<KilnBuffer* const*> argLists(n);
  std::vector<KilnBuffer**> outLists(n);
  std::vector<KilnDevice*> deviceHandles(n);
  std::vector<KilnEvent*> done(n, nullptr);
  for (size_t d = 0; d < n; ++d) {
    counts[d] = args[d].size();
    sameCounts &= counts[d] == numArgs;
    for (const Buffer* b : args[d]) argHandles[d].push_back(b ? b->handle() : nullptr);
    outHandles[d].assign(numResults(d), nullptr);
    argLists[d] = argHandles[d].data();
    outLists[d] = outHandles[d].data();
    deviceHandles[d] = devices[d].handle();
  }
  if (!sameCounts && plugin_.minorVersion() < 4)
    throw Error(ErrorKind::Usage, "argument lists of different lengths for a plugin of API 0." +
                                      std::to_string(plugin_.minorVersion()) + " (one function runs on every device)");
  launch(n, deviceHandles.data(), argLists.data(), numArgs, sameCounts ? nullptr : counts.data(), outLists.data(),
         done.data(), options);
  std::vector<Execution> executions;
  for (size_t d = 0; d < n; ++d) {
    executions.push_back({{}, Event(plugin_, done[d])});
    for (KilnBuffer* out : outHandles[d]) executions.back().outputs.emplace_back(plugin_, client_, out);
  }
  return executions;
}

void Executable::Execution::cancel() const {
  KilnExecutionCancelArgs args{};
  args.complete_event = done.handle();
  done.plugin().call(&KilnPluginApi::execution_cancel, args, "execution_cancel");
}

// ---- clients ----

Communicator defaultCommunicator() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name)) return Communicator::Mpi;
  return Communicator::InProcess;
}

Client::Client(Plugin plugin, const ClientOptions& options) : plugin_(plugin) {
  KilnClientCreateArgs args{};
  args.num_devices = options.numDevices;
  args.memory_limit_bytes = options.memoryLimit;
  std::vector<std::pair<std::string, std::string>> settings;
  if (options.communicator == Communicator::Mpi) {
    plugin_.require(KILN_CAPABILITY_MPI, "the mpi communicator");
    settings.emplace_back("communicator", "mpi");
    if (options.collectiveTimeout > 0) settings.emplace_back("collective_timeout_s", std::to_string(options.collectiveTimeout));
  }
  if (!options.inlineExecution) settings.emplace_back("inline_execution", "never");
  if (options.infeedWaits) {
    plugin_.require(KILN_CAPABILITY_FEEDS, "infeed_when_empty=wait");
    settings.emplace_back("infeed_when_empty", "wait");
  }
  std::vector<KilnNamedOption> named;
  for (const auto& [name, value] : settings) named.push_back({name.c_str(), value.c_str()});
  args.options = named.data();
  args.num_options = named.size();
  plugin_.call(&KilnPluginApi::client_create, args, "client_create");
  client_ = owned(plugin_, args.client, &KilnPluginApi::client_destroy);
}

size_t Client::numAllDevices() const {
  KilnClientDevicesArgs args{};
  args.client = client_.get();
  plugin_.call(&KilnPluginApi::client_devices, args, "client_devices");
  // A plugin older than 0.6 fills no num_all_devices: its devices are all in this process.
  return plugin_.minorVersion() >= 6 ? args.num_all_devices : args.num_devices;
}

int Client::processIndex() const {
  const std::vector<Device> local = devices();
  return local.empty() ? 0 : local.front().processIndex();
}

int Client::numProcesses() const {
  const size_t local = devices().size();
  return local == 0 ? 1 : static_cast<int>(numAllDevices() / local);
}

std::vector<Device> Client::devices() const {
  KilnClientDevicesArgs args{};
  args.client = client_.get();
  plugin_.call(&KilnPluginApi::client_devices, args, "client_devices");
  std::vector<Device> devices;
  for (size_t i = 0; i < args.num_devices; ++i) devices.emplace_back(plugin_, client_, args.devices[i]);
  return devices;
}

std::pair<Buffer, Event> Client::bufferFromHost(const void* data, DType dtype, const Shape& dims,
                                                const Device& device) const {
  const KilnDType code = codeFor(dtype, "a buffer");
  KilnBufferFromHostArgs args{};
  args.client = client_.get();
  args.device = device.handle();
  args.dtype = code;
  args.dims = dims.data();
  args.num_dims = dims.size();
  args.data = data;
  plugin_.call(&KilnPluginApi::buffer_from_host, args, "buffer_from_host");
  return {Buffer(plugin_, client_, args.buffer), Event(plugin_, args.done_with_host)};
}

Buffer Client::bufferFromHost(const Literal& literal, const Device& device) const {
  // A dense copy whose storage the callback keeps until the plugin has read it.
  auto dense = std::make_shared<Literal>(literal);
  const uint8_t* data = dense->denseStorage();
  auto [buffer, doneWithHost] = bufferFromHost(data, literal.dtype(), literal.shape(), device);
  doneWithHost.onReady([dense](const std::optional<Error>&) {});
  return buffer;
}

Buffer Client::token(const Device& device) const {
  KilnBufferFromHostArgs args{};
  args.client = client_.get();
  args.device = device.handle();
  args.dtype = KILN_DTYPE_TOKEN;
  plugin_.call(&KilnPluginApi::buffer_from_host, args, "buffer_from_host");
  if (args.done_with_host) Event(plugin_, args.done_with_host);  // ready at once; destroyed here
  return Buffer(plugin_, client_, args.buffer);
}

Executable Client::compile(std::string_view text, const CompileOptions& options) const {
  KilnCompileArgs args{};
  args.client = client_.get();
  args.code = text.data();
  args.code_size = text.size();
  args.name = options.name.c_str();
  args.optimization = options.optimization;
  args.dump_dir = options.dumpDir.c_str();
  args.num_replicas = options.replicas;
  args.num_partitions = options.partitions;
  args.entry = options.entry.empty() ? nullptr : options.entry.c_str();
  args.device_assignment = options.deviceAssignment.empty() ? nullptr : options.deviceAssignment.data();
  std::vector<const char*> entries;
  for (const std::string& name : options.processEntries) entries.push_back(name.c_str());
  if (!entries.empty()) {
    plugin_.require(KILN_CAPABILITY_MPMD, "processes that run different functions");
    args.process_entries = entries.data();
    args.num_process_entries = entries.size();
  }
  std::vector<KilnNamedOption> named;
  for (const auto& [name, value] : options.namedOptions) named.push_back({name.c_str(), value.c_str()});
  if (!named.empty()) {
    plugin_.requireMinor(5, "named compile options");
    args.options = named.data();
    args.num_options = named.size();
  }
  if (!options.deviceAssignment.empty() &&
      options.deviceAssignment.size() != static_cast<size_t>(std::max(1, options.replicas) * std::max(1, options.partitions)))
    throw Error(ErrorKind::Usage, "the device assignment names " + std::to_string(options.deviceAssignment.size()) +
                                      " devices for " + std::to_string(std::max(1, options.replicas)) + " x " +
                                      std::to_string(std::max(1, options.partitions)) + " processes");
  plugin_.call(&KilnPluginApi::compile, args, "compile");
  return Executable(plugin_, client_, args.executable);
}

Executable Client::deserialize(std::string_view bytes, const std::string& sourceName, std::string_view source) const {
  KilnExecutableDeserializeArgs args{};
  args.client = client_.get();
  args.bytes = bytes.data();
  args.num_bytes = bytes.size();
  if (!source.empty()) {
    args.source_name = sourceName.c_str();
    args.source = source.data();
    args.source_size = source.size();
  }
  plugin_.call(&KilnPluginApi::executable_deserialize, args, "executable_deserialize");
  return Executable(plugin_, client_, args.executable);
}

}  // namespace kiln::runtime
