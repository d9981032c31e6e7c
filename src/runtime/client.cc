// The RAII wrapper: plugins, events, devices, buffers and clients (executables:
// client_executable.cc). Each handle is destroyed through its plugin's table when its last
// owner goes; destroy functions do not fail on a live handle, so their errors are dropped.
#include "runtime/client.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "runtime/buffer_types.h"
#include "runtime/client_calls.h"
#include "runtime/compile_options_proto.h"
#include "runtime/named_values.h"
#include "runtime/plain_stablehlo.h"

namespace kiln::runtime {

namespace {

ErrorKind kindOf(int code, const std::string& message) {
  switch (code) {
    case PJRT_Error_Code_INVALID_ARGUMENT:
    case PJRT_Error_Code_FAILED_PRECONDITION:
    case PJRT_Error_Code_NOT_FOUND:
    case PJRT_Error_Code_ALREADY_EXISTS:
    case PJRT_Error_Code_OUT_OF_RANGE:
      // An invalid argument located in the program's text is about the program (its parse
      // or verification failed), not about how the host called: callers tell those apart.
      return code == PJRT_Error_Code_INVALID_ARGUMENT && isLocatedDiagnostic(message) ? ErrorKind::Parse
                                                                                      : ErrorKind::Usage;
    case PJRT_Error_Code_UNIMPLEMENTED: return ErrorKind::Unsupported;
    case PJRT_Error_Code_DATA_LOSS: return ErrorKind::Io;
    case PJRT_Error_Code_RESOURCE_EXHAUSTED: return ErrorKind::ResourceExhausted;
    // A running program's failures come as INTERNAL (as XLA reports them); a plugin's own
    // bug says so.
    case PJRT_Error_Code_INTERNAL:
      return message.starts_with("internal error") ? ErrorKind::Internal : ErrorKind::Runtime;
    case PJRT_Error_Code_CANCELLED:
    case PJRT_Error_Code_DEADLINE_EXCEEDED:
    case PJRT_Error_Code_ABORTED:
    case PJRT_Error_Code_UNAVAILABLE: return ErrorKind::Runtime;
  }
  return ErrorKind::Internal;
}

}  // namespace

// ---- plugins ----

Plugin::Plugin(const PjrtPlugin& loaded) {
  static std::mutex mutex;
  static auto& known = *new std::map<const PjrtPlugin*, Known>;  // never destroyed, as plugins are never closed
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(&loaded);
  if (it == known.end()) {
    std::string name = loaded.name;
    for (const auto& [key, value] : loaded.attributes)
      if (key == "kiln_backend") name = value;
    it = known.emplace(&loaded, Known{&loaded, kiln_pjrt_extension(loaded.api), name}).first;
  }
  known_ = &it->second;
}

std::string Plugin::version() const {
  for (const auto& [key, value] : attributes())
    if (key == "kiln_version") return value;
  return "PJRT C API " + std::to_string(majorVersion()) + "." + std::to_string(minorVersion());
}

bool Plugin::says(const std::string& attribute) const {
  for (const auto& [key, value] : attributes())
    if (key == attribute) return value == "true";
  return false;
}

const KILN_Extension& Plugin::requireExtension(const std::string& what) const {
  if (!extension())
    throw Error(ErrorKind::Unsupported, "unsupported: " + what + ": plugin '" + name() + "' (" + path() +
                                            ") has no kiln extension (a PJRT plugin offers it only from kiln)");
  return *extension();
}

Error Plugin::toError(const PJRT_Error* error) const {
  PJRT_Error_Message_Args message{};
  message.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE;
  message.error = error;
  api().PJRT_Error_Message(&message);
  std::string text(message.message ? message.message : "", message.message ? message.message_size : 0);
  int code = PJRT_Error_Code_UNKNOWN;
  if (known_->loaded->has(&PJRT_Api::PJRT_Error_GetCode)) {
    PJRT_Error_GetCode_Args get{};
    get.struct_size = PJRT_Error_GetCode_Args_STRUCT_SIZE;
    get.error = error;
    if (PJRT_Error* e = api().PJRT_Error_GetCode(&get)) destroy(e);
    else std::memcpy(&code, &get.code, sizeof code);
  }
  const ErrorKind kind = kindOf(code, text);
  // Positioned errors come whole (`file:line:col: error: ...` and the caret line): keep
  // them as they are rather than prefixing another "error: ".
  return Error(kind, std::move(text));
}

void Plugin::destroy(PJRT_Error* error) const {
  if (!error) return;
  PJRT_Error_Destroy_Args d{};
  d.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
  d.error = error;
  api().PJRT_Error_Destroy(&d);
}

void Plugin::check(PJRT_Error* error) const {
  if (!error) return;
  Error e = toError(error);
  destroy(error);
  throw e;
}

// ---- events ----

Event::Event(Plugin plugin, PJRT_Event* handle)
    : plugin_(plugin), handle_(owned(plugin, handle, &PJRT_Api::PJRT_Event_Destroy, &PJRT_Event_Destroy_Args::event)) {}

bool Event::ready() const {
  PJRT_Event_IsReady_Args args{};
  args.event = handle();
  KILN_PJRT(plugin_, PJRT_Event_IsReady, args);
  return args.is_ready;
}

void Event::await() const {
  PJRT_Event_Await_Args args{};
  args.event = handle();
  KILN_PJRT(plugin_, PJRT_Event_Await, args);
}

void Event::onReady(std::function<void(const std::optional<Error>&)> callback) const {
  struct Pending {
    Plugin plugin;
    std::function<void(const std::optional<Error>&)> callback;
  };
  auto pending = std::make_unique<Pending>(Pending{plugin_, std::move(callback)});
  PJRT_Event_OnReady_Args args{};
  args.event = handle();
  args.user_arg = pending.get();
  args.callback = [](PJRT_Error* error, void* user) {  // which owns the error
    std::unique_ptr<Pending> p(static_cast<Pending*>(user));
    std::optional<Error> e;
    if (error) {
      e = p->plugin.toError(error);
      p->plugin.destroy(error);
    }
    p->callback(e);
  };
  KILN_PJRT(plugin_, PJRT_Event_OnReady, args);
  pending.release();  // the callback owns it now
}

// ---- devices ----

PJRT_DeviceDescription* Device::describe() const {
  PJRT_Device_GetDescription_Args args{};
  args.device = handle_;
  KILN_PJRT(plugin_, PJRT_Device_GetDescription, args);
  return args.device_description;
}

int Device::id() const {
  PJRT_DeviceDescription_Id_Args args{};
  args.device_description = describe();
  KILN_PJRT(plugin_, PJRT_DeviceDescription_Id, args);
  return args.id;
}

int Device::processIndex() const {
  PJRT_DeviceDescription_ProcessIndex_Args args{};
  args.device_description = describe();
  KILN_PJRT(plugin_, PJRT_DeviceDescription_ProcessIndex, args);
  return args.process_index;
}

std::string Device::kind() const {
  PJRT_DeviceDescription_Kind_Args args{};
  args.device_description = describe();
  KILN_PJRT(plugin_, PJRT_DeviceDescription_Kind, args);
  return std::string(args.device_kind, args.device_kind_size);
}

std::string Device::description() const {
  PJRT_DeviceDescription_DebugString_Args args{};
  args.device_description = describe();
  KILN_PJRT(plugin_, PJRT_DeviceDescription_DebugString, args);
  return std::string(args.debug_string, args.debug_string_size);
}

int64_t Device::memorySize() const {
  PJRT_DeviceDescription_Attributes_Args args{};
  args.device_description = describe();
  KILN_PJRT(plugin_, PJRT_DeviceDescription_Attributes, args);
  for (size_t i = 0; i < args.num_attributes; ++i) {
    const PJRT_NamedValue& v = args.attributes[i];
    if (std::string_view(v.name, v.name_size) == "memory_size_bytes" && v.type == PJRT_NamedValue_kInt64)
      return v.int64_value;
  }
  return memoryStats().bytesLimit;
}

Device::MemoryStats Device::memoryStats() const {
  PJRT_Device_MemoryStats_Args args{};
  args.device = handle_;
  KILN_PJRT(plugin_, PJRT_Device_MemoryStats, args);
  return {args.bytes_in_use, args.peak_bytes_in_use_is_set ? args.peak_bytes_in_use : 0,
          args.num_allocs_is_set ? args.num_allocs : 0, args.bytes_limit_is_set ? args.bytes_limit : 0};
}

void Device::infeed(const Literal& value) const {
  const PJRT_Buffer_Type type = bufferTypeFor(value.dtype(), "infeed");
  Literal dense = value;  // shares the storage; a splat is expanded in this copy
  KILN_Device_Infeed_Args args{};
  args.device = handle_;
  args.type = type;
  args.dims = dense.shape().data();
  args.num_dims = dense.shape().size();
  args.data = dense.denseStorage();
  KILN_EXTENSION(plugin_, device_infeed, args);
}

Event Device::outfeed(const Type& type, void* dst, size_t size) const {
  if (!type.isTensor()) throw Error(ErrorKind::Unsupported, "unsupported: outfeed of " + type.str());
  KILN_Device_Outfeed_Args args{};
  args.device = handle_;
  args.type = bufferTypeFor(type.dtype(), "outfeed");
  args.dims = type.shape().data();
  args.num_dims = type.shape().size();
  args.dst = dst;
  args.dst_size = size;
  KILN_EXTENSION(plugin_, device_outfeed, args);
  return Event(plugin_, args.event);
}

Literal Device::outfeed(const Type& type) const {
  if (!type.isTensor()) throw Error(ErrorKind::Unsupported, "unsupported: outfeed of " + type.str());
  Literal out(type);
  outfeed(type, out.mutableStorage(), static_cast<size_t>(type.byteSize())).await();
  return out;
}

// ---- buffers ----

Buffer::Buffer(Plugin plugin, std::shared_ptr<PJRT_Client> client, PJRT_Buffer* handle)
    : plugin_(plugin),
      client_(std::move(client)),
      handle_(owned(plugin, handle, &PJRT_Api::PJRT_Buffer_Destroy, &PJRT_Buffer_Destroy_Args::buffer)) {}

Type Buffer::type() const {
  PJRT_Buffer_ElementType_Args element{};
  element.buffer = handle();
  KILN_PJRT(plugin_, PJRT_Buffer_ElementType, element);
  if (element.type == PJRT_Buffer_Type_TOKEN) return Type::token();
  PJRT_Buffer_Dimensions_Args dims{};
  dims.buffer = handle();
  KILN_PJRT(plugin_, PJRT_Buffer_Dimensions, dims);
  return typeOf(static_cast<int>(element.type), dims.dims, dims.num_dims);
}

int64_t Buffer::onDeviceSize() const {
  PJRT_Buffer_OnDeviceSizeInBytes_Args args{};
  args.buffer = handle();
  KILN_PJRT(plugin_, PJRT_Buffer_OnDeviceSizeInBytes, args);
  return static_cast<int64_t>(args.on_device_size_in_bytes);
}

Device Buffer::device() const {
  PJRT_Buffer_Device_Args args{};
  args.buffer = handle();
  KILN_PJRT(plugin_, PJRT_Buffer_Device, args);
  return Device(plugin_, client_, args.device);
}

Event Buffer::readyEvent() const {
  PJRT_Buffer_ReadyEvent_Args args{};
  args.buffer = handle();
  KILN_PJRT(plugin_, PJRT_Buffer_ReadyEvent, args);
  return Event(plugin_, args.event);
}

Event Buffer::toHost(void* dst, size_t size) const {
  // (PJRT reads a null dst as a question about the size: an empty value's copy goes to a
  // place of no bytes.)
  static char nowhere;
  if (!dst && size > 0) throw Error(ErrorKind::Usage, "a copy to host needs a destination");
  PJRT_Buffer_ToHostBuffer_Args args{};
  args.src = handle();
  args.dst = dst ? dst : &nowhere;
  args.dst_size = size;
  KILN_PJRT(plugin_, PJRT_Buffer_ToHostBuffer, args);
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
  PJRT_Buffer_CopyToDevice_Args args{};
  args.buffer = handle();
  args.dst_device = device.handle();
  KILN_PJRT(plugin_, PJRT_Buffer_CopyToDevice, args);
  return Buffer(plugin_, client_, args.dst_buffer);
}

void Buffer::remove() {
  PJRT_Buffer_Delete_Args args{};
  args.buffer = handle();
  KILN_PJRT(plugin_, PJRT_Buffer_Delete, args);
}

// ---- clients ----

Communicator defaultCommunicator() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name)) return Communicator::Mpi;
  return Communicator::InProcess;
}

const char* nameOf(Optimization optimization) {
  switch (optimization) {
    case Optimization::Fast: return "fast";
    case Optimization::Full: return "full";
    case Optimization::Tiered: return "tiered";
    case Optimization::Default: break;
  }
  return "default";
}


Client::Client(Plugin plugin, const ClientOptions& options) : plugin_(plugin) {
  // kiln's plugins' options; another plugin is given only what it is asked for.
  std::vector<std::pair<std::string, std::string>> settings;
  if (options.communicator == Communicator::Mpi) {
    if (!plugin_.says("kiln_mpi"))
      throw Error(ErrorKind::Unsupported, "unsupported: the mpi communicator: plugin '" + plugin_.name() +
                                              "' was built without MPI (its attribute kiln_mpi is not true)");
    settings.emplace_back("communicator", "mpi");
    if (options.collectiveTimeout > 0) settings.emplace_back("collective_timeout_s", std::to_string(options.collectiveTimeout));
  }
  if (!options.inlineExecution) settings.emplace_back("inline_execution", "never");
  if (options.infeedWaits) {
    plugin_.requireExtension("infeed_when_empty=wait");
    settings.emplace_back("infeed_when_empty", "wait");
  }
  std::vector<PJRT_NamedValue> named;
  if (options.numDevices > 0) named.push_back(int64Value("num_devices", options.numDevices));
  if (options.memoryLimit > 0) named.push_back(int64Value("memory_limit_bytes", options.memoryLimit));
  for (const auto& [name, value] : settings) named.push_back(stringValue(name, value));
  PJRT_Client_Create_Args args{};
  args.create_options = named.data();
  args.num_options = named.size();
  KILN_PJRT(plugin_, PJRT_Client_Create, args);
  client_ = owned(plugin_, args.client, &PJRT_Api::PJRT_Client_Destroy, &PJRT_Client_Destroy_Args::client);
}

size_t Client::numAllDevices() const {
  PJRT_Client_Devices_Args args{};
  args.client = client_.get();
  KILN_PJRT(plugin_, PJRT_Client_Devices, args);
  return args.num_devices;
}

int Client::processIndex() const {
  PJRT_Client_ProcessIndex_Args args{};
  args.client = client_.get();
  KILN_PJRT(plugin_, PJRT_Client_ProcessIndex, args);
  return args.process_index;
}

int Client::numProcesses() const {
  const size_t local = devices().size();
  return local == 0 ? 1 : static_cast<int>(numAllDevices() / local);
}

std::vector<Device> Client::devices() const {
  PJRT_Client_AddressableDevices_Args args{};
  args.client = client_.get();
  KILN_PJRT(plugin_, PJRT_Client_AddressableDevices, args);
  std::vector<Device> devices;
  for (size_t i = 0; i < args.num_addressable_devices; ++i)
    devices.emplace_back(plugin_, client_, args.addressable_devices[i]);
  return devices;
}

std::pair<Buffer, Event> Client::bufferFromHost(const void* data, DType dtype, const Shape& dims,
                                                const Device& device) const {
  PJRT_Client_BufferFromHostBuffer_Args args{};
  args.client = client_.get();
  args.data = data;
  args.type = bufferTypeFor(dtype, "a buffer");
  args.dims = dims.data();
  args.num_dims = dims.size();
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
  args.device = device.handle();
  KILN_PJRT(plugin_, PJRT_Client_BufferFromHostBuffer, args);
  Buffer buffer(plugin_, client_, args.buffer);
  return {buffer, Event(plugin_, args.done_with_host_buffer)};
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
  PJRT_Client_BufferFromHostBuffer_Args args{};
  args.client = client_.get();
  args.type = PJRT_Buffer_Type_TOKEN;
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  args.device = device.handle();
  KILN_PJRT(plugin_, PJRT_Client_BufferFromHostBuffer, args);
  Buffer buffer(plugin_, client_, args.buffer);
  if (args.done_with_host_buffer) Event(plugin_, args.done_with_host_buffer);  // ready at once; destroyed here
  return buffer;
}

Executable Client::compile(std::string_view text, const CompileOptions& options) const {
  const int processes = std::max(1, options.replicas) * std::max(1, options.partitions);
  if (!options.deviceAssignment.empty() && options.deviceAssignment.size() != static_cast<size_t>(processes))
    throw Error(ErrorKind::Usage, "the device assignment names " + std::to_string(options.deviceAssignment.size()) +
                                      " devices for " + std::to_string(std::max(1, options.replicas)) + " x " +
                                      std::to_string(std::max(1, options.partitions)) + " processes");
  proto::CompileOptions proto;
  proto.replicas = std::max(1, options.replicas);
  proto.partitions = std::max(1, options.partitions);
  proto.devices = options.deviceAssignment;
  // One process placed on no device in particular runs on whichever device execute names.
  proto.portable = processes == 1 && options.deviceAssignment.empty();
  // kiln's own settings, by the names the kiln extension's header gives them (for
  // kiln's plugins only: another's would refuse names it does not know).
  auto& overrides = proto.overrides;
  auto setting = [&](const char* name, const std::string& value) {
    plugin_.requireExtension(std::string("the compile option ") + name);
    overrides.emplace_back(name, value);
  };
  if (!options.entry.empty() && plugin_.extension()) setting("kiln.entry", options.entry);
  // (Full is what kiln's plugins do by default, and what a tool asks for on any plugin.)
  if (options.optimization == Optimization::Fast || options.optimization == Optimization::Tiered ||
      (options.optimization == Optimization::Full && plugin_.extension()))
    setting("kiln.optimization", nameOf(options.optimization));
  if (!options.dumpDir.empty()) setting("kiln.dump_dir", options.dumpDir);
  if (!options.name.empty() && plugin_.extension()) overrides.emplace_back("kiln.source_name", options.name);
  if (!options.processEntries.empty()) {
    plugin_.requireExtension("processes that run different functions");
    std::string list;
    for (const std::string& entry : options.processEntries) list += (list.empty() ? "" : ",") + entry;
    overrides.emplace_back("kiln.process_entries", list);
  }
  for (const auto& option : options.namedOptions) overrides.push_back(option);
  std::string plain;
  if (!plugin_.extension()) plain = plainStableHlo(text, options.name, options.entry, plugin_.name());
  const std::string_view code = plugin_.extension() ? text : std::string_view(plain);
  const std::string serialized = proto::writeCompileOptions(proto);
  static const char kFormat[] = "mlir";
  PJRT_Program program{};
  program.struct_size = PJRT_Program_STRUCT_SIZE;
  program.code = const_cast<char*>(code.data());
  program.code_size = code.size();
  program.format = kFormat;
  program.format_size = sizeof kFormat - 1;
  PJRT_Client_Compile_Args args{};
  args.client = client_.get();
  args.program = &program;
  args.compile_options = serialized.data();
  args.compile_options_size = serialized.size();
  KILN_PJRT(plugin_, PJRT_Client_Compile, args);
  return Executable(plugin_, client_, args.executable);
}

Executable Client::deserialize(std::string_view bytes, const std::string& sourceName, std::string_view source) const {
  if (!source.empty() && plugin_.extension()) {
    KILN_Executable_DeserializeWithSource_Args args{};
    args.client = client_.get();
    args.serialized_executable = bytes.data();
    args.serialized_executable_size = bytes.size();
    args.source_name = sourceName.c_str();
    args.source = source.data();
    args.source_size = source.size();
    KILN_EXTENSION(plugin_, executable_deserialize_with_source, args);
    return Executable(plugin_, client_, args.loaded_executable);
  }
  PJRT_Executable_DeserializeAndLoad_Args args{};
  args.client = client_.get();
  args.serialized_executable = bytes.data();
  args.serialized_executable_size = bytes.size();
  KILN_PJRT(plugin_, PJRT_Executable_DeserializeAndLoad, args);
  return Executable(plugin_, client_, args.loaded_executable);
}

}  // namespace kiln::runtime
