// kiln's client of PJRT's C API: RAII types over a loaded PJRT plugin's handles that turn
// error objects back into kiln::Error. This is how everything above src/runtime reaches
// a device, kiln's plugins and any vendor's alike. What PJRT's core table lacks (labels,
// time limits, cancellation, texts, feeds, processes that run different functions) goes
// through the kiln extension (include/kiln/pjrt/kiln_extension.h); asked of a plugin
// without it, it is an Unsupported error naming the feature. Buffers and executables keep
// their client (shared) alive, so they may outlive the Client object that made them.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/literal.h"
#include "kiln/pjrt/c_api.h"
#include "kiln/pjrt/kiln_extension.h"
#include "runtime/pjrt_loader.h"
#include "support/error.h"

namespace kiln::runtime {

// A plugin's table, with the call discipline: every call gets its struct_size, and an
// error object becomes a kiln::Error (the object is destroyed). One pointer, copied into
// every handle: what it points at lives as long as the process, as the plugin does.
class Plugin {
 public:
  explicit Plugin(const PjrtPlugin& loaded);
  // kiln's plugin `name` ("cpu", "interp"), or any PJRT plugin by its path.
  static Plugin load(const std::string& nameOrPath) { return Plugin(loadPjrtPlugin(nameOrPath)); }

  const PJRT_Api& api() const { return *known_->loaded->api; }
  const std::string& path() const { return known_->loaded->path; }
  const std::string& name() const { return known_->name; }  // kiln's backend name, else the file's name
  std::string version() const;  // kiln's version, else the PJRT C API version
  int majorVersion() const { return known_->loaded->api->pjrt_api_version.major_version; }
  int minorVersion() const { return known_->loaded->minor; }
  const std::vector<std::pair<std::string, std::string>>& attributes() const { return known_->loaded->attributes; }
  // Whether the plugin says `attribute` is true (kiln_profiles, kiln_mpi).
  bool says(const std::string& attribute) const;

  // The kiln extension, or null for a plugin without it.
  const KILN_Extension* extension() const { return known_->extension; }
  // The kiln extension; throws Unsupported naming `what` for a plugin without it.
  const KILN_Extension& requireExtension(const std::string& what) const;

  // Throws the kiln::Error for `error` (and destroys it); nothing for null.
  void check(PJRT_Error* error) const;
  // The kiln::Error for `error`, which stays the caller's.
  Error toError(const PJRT_Error* error) const;
  void destroy(PJRT_Error* error) const;

  // Calls table entry `fn` with `args` (whose struct_size it sets), checking the result.
  // Throws Unsupported when the plugin's table is too old to have `fn`.
  template <class Args>
  void call(PJRT_Error* (*PJRT_Api::*fn)(Args*), Args& args, const char* name) const {
    if (!known_->loaded->has(fn))
      throw Error(ErrorKind::Unsupported, "unsupported: plugin '" + known_->name + "' has no " + name);
    args.struct_size = sizeof(Args);
    check((api().*fn)(&args));
  }
  // The same for an entry of the kiln extension.
  template <class Args>
  void call(PJRT_Error* (*KILN_Extension::*fn)(Args*), Args& args, const char* name) const {
    const KILN_Extension& e = requireExtension(name);
    const size_t end = static_cast<size_t>(reinterpret_cast<const char*>(&(e.*fn)) - reinterpret_cast<const char*>(&e)) +
                       sizeof(void*);
    if (end > e.base.struct_size || !(e.*fn))
      throw Error(ErrorKind::Unsupported,
                  "unsupported: the kiln extension of plugin '" + known_->name + "' has no " + name);
    args.struct_size = sizeof(Args);
    check((e.*fn)(&args));
  }

 private:
  // What the client knows of a loaded plugin, found once.
  struct Known {
    const PjrtPlugin* loaded;
    const KILN_Extension* extension;
    std::string name;
  };
  const Known* known_;
};

class Event {
 public:
  Event(Plugin plugin, PJRT_Event* handle);
  bool ready() const;
  // Blocks until ready; throws the work's error.
  void await() const;
  // Runs `callback` once when ready, with the work's error if it failed (on the thread
  // that completes the work, or at once on this one).
  void onReady(std::function<void(const std::optional<Error>&)> callback) const;
  PJRT_Event* handle() const { return handle_.get(); }
  const Plugin& plugin() const { return plugin_; }

 private:
  Plugin plugin_;
  std::shared_ptr<PJRT_Event> handle_;
};

// A device of a client, which it keeps alive (a thread feeding its infeed may outlive
// the Client object).
class Device {
 public:
  Device(Plugin plugin, std::shared_ptr<PJRT_Client> client, PJRT_Device* handle)
      : plugin_(plugin), client_(std::move(client)), handle_(handle) {}
  int id() const;
  int processIndex() const;  // the client process that addresses it (its MPI rank)
  std::string kind() const;
  std::string description() const;
  // What its memory holds at most (kiln's plugins: the device attribute
  // memory_size_bytes; else the memory statistics' limit, 0 when unknown).
  int64_t memorySize() const;
  struct MemoryStats {
    int64_t bytesInUse = 0, peakBytesInUse = 0, numBuffers = 0, bytesLimit = 0;
  };
  MemoryStats memoryStats() const;
  // Queues `value` for the infeed ops of the programs this device runs; copied before
  // it returns (the kiln extension).
  void infeed(const Literal& value) const;
  // Asks for the next value this device's programs outfeed, of `type`, copied to `dst`
  // (its bytes) once there: the event says when (and fails for a value of another type).
  Event outfeed(const Type& type, void* dst, size_t size) const;
  // The same as a literal (waits for it).
  Literal outfeed(const Type& type) const;
  PJRT_Device* handle() const { return handle_; }
  bool operator==(const Device& other) const { return handle_ == other.handle_; }

 private:
  PJRT_DeviceDescription* describe() const;
  Plugin plugin_;
  std::shared_ptr<PJRT_Client> client_;
  PJRT_Device* handle_;
};

class Buffer {
 public:
  Buffer(Plugin plugin, std::shared_ptr<PJRT_Client> client, PJRT_Buffer* handle);
  Type type() const;
  int64_t onDeviceSize() const;
  Device device() const;
  // Becomes ready when the contents are there.
  Event readyEvent() const;
  // Copies the contents to `dst` (onDeviceSize() bytes) once ready.
  Event toHost(void* dst, size_t size) const;
  // The contents as a literal (waits for them).
  Literal toLiteral() const;
  Buffer copyTo(const Device& device) const;
  // Frees the device memory now (the handle stays; using it is an error).
  void remove();
  PJRT_Buffer* handle() const { return handle_.get(); }

 private:
  Plugin plugin_;
  std::shared_ptr<PJRT_Client> client_;
  std::shared_ptr<PJRT_Buffer> handle_;
};

struct ExecutableInfo {
  std::string name;
  // Empty for a plugin without the kiln extension: PJRT's core table does not say.
  std::vector<Type> parameters;
  std::vector<Type> results;
  double flops = 0, bytesAccessed = 0;
  int64_t tempBytes = 0, peakLiveBytes = 0;
  int replicas = 1, partitions = 1;
};

struct ExecuteOptions {
  std::string label;  // prefixes a failure of the execution's own run (kiln extension)
  // Parameters the program marks donated (jax.buffer_donor) that this call keeps
  // (PJRT_ExecuteOptions::non_donatable_input_indices).
  std::vector<int64_t> keep;
  // The execution fails ("time limit exceeded") once it has run this long (kiln extension).
  std::optional<std::chrono::nanoseconds> timeLimit;
  // Where the program's interpreter.print output goes, called on the threads that run it
  // (kiln extension); empty: the plugin's standard output.
  std::function<void(std::string_view)> print;
};

class Executable {
 public:
  Executable(Plugin plugin, std::shared_ptr<PJRT_Client> client, PJRT_LoadedExecutable* handle);
  // What process `process` runs (they differ only with CompileOptions::processEntries).
  ExecutableInfo info(size_t process = 0) const;
  size_t numResults(size_t process = 0) const;
  std::string serialize() const;
  // The same compiled module entered at function `name` (kiln extension).
  Executable withEntry(const std::string& name) const;
  // What the plugin says about how it compiled and ran the module (kiln extension; the
  // names are the plugin's); empty for a plugin without it.
  std::vector<std::pair<std::string, double>> statistics() const;
  // A text about the executable by name (kiln extension): "program", and the cpu
  // plugin's "report", "fallbacks", "profile" and "profile_summary".
  std::string text(const std::string& name) const;
  struct Execution {
    std::vector<Buffer> outputs;
    Event done;
    // Asks the execution (on every device it runs on) to stop: its outputs and `done`
    // then fail ("cancelled"), unless it has completed (kiln extension).
    void cancel() const;
  };
  // Starts the executable on `device` (returns before it runs): any device for one
  // compiled without a device assignment, else the one it names.
  Execution execute(const std::vector<const Buffer*>& args, const Device& device,
                    const ExecuteOptions& options = {}) const;
  // Starts it as replicas x partitions processes on the devices it was compiled for
  // (process d = r * partitions + p on devices[d] with args[d]; under MPI, this rank's
  // process on its one device); one execution per device.
  std::vector<Execution> execute(const std::vector<std::vector<const Buffer*>>& args,
                                 const std::vector<Device>& devices, const ExecuteOptions& options = {}) const;
  PJRT_LoadedExecutable* handle() const { return handle_.get(); }
  const Plugin& plugin() const { return plugin_; }

 private:
  // A PJRT_Executable of this one, for what PJRT asks of those; destroyed with the pointer.
  std::shared_ptr<PJRT_Executable> executable() const;
  // PJRT's execute (or the kiln extension's, for options only it takes) on lists
  // already made; execute_device set for a portable executable.
  void launch(size_t numDevices, PJRT_Buffer* const* const* argLists, size_t numArgs, const size_t* numArgsPerDevice,
              PJRT_Buffer** const* outLists, PJRT_Event** done, PJRT_Device* executeDevice,
              const ExecuteOptions& options) const;
  std::vector<size_t> numResults_;     // per process, asked of the plugin once, when made
  std::vector<PJRT_Device*> devices_;  // where it runs; empty: portable (anywhere)
  Plugin plugin_;
  std::shared_ptr<PJRT_Client> client_;
  std::shared_ptr<PJRT_LoadedExecutable> handle_;
};

// Which communicator a client's devices exchange values through.
enum class Communicator {
  InProcess,  // the client's devices are in this process
  Mpi,        // this process is one rank of an MPI job, with one device (kiln_mpi)
};

// The communicator a host defaults to: Mpi when this process was started by an MPI
// launcher (mpirun sets OMPI_COMM_WORLD_SIZE; others PMI_SIZE or PMIX_RANK).
Communicator defaultCommunicator();

// Options of kiln's plugins, sent as PJRT_Client_Create's create_options.
struct ClientOptions {
  int numDevices = 0;         // 0: the plugin's default
  int64_t memoryLimit = 0;    // per device, bytes; 0: none
  Communicator communicator = Communicator::InProcess;
  double collectiveTimeout = 0;  // seconds a collective waits for silent MPI ranks; 0: the plugin's default
  // false: every execution runs on its device's thread, small ones too (kiln's plugins
  // run those on the caller's by default: client option "inline_execution").
  bool inlineExecution = true;
  // true: a program whose infeed op finds the device's infeed empty waits for the host
  // to queue a value (a host that feeds while its programs run); false: it fails at
  // once (client option "infeed_when_empty").
  bool infeedWaits = false;
};

// How hard kiln's plugins optimize (kiln.optimization): Default is Full for kiln's.
enum class Optimization { Default, Fast, Full, Tiered };
const char* nameOf(Optimization optimization);

struct CompileOptions {
  Optimization optimization = Optimization::Default;
  std::string dumpDir;
  std::string name = "<program>";  // what error messages call the text
  std::string entry;               // the function to run; empty: @main or the only public one
  int replicas = 1, partitions = 1;
  std::vector<int32_t> deviceAssignment;  // device ids of processes (r, p), replica-major; empty: any
  // The function each process runs, replica-major (then `entry` is ignored); empty: all
  // run `entry` (kiln extension).
  std::vector<std::string> processEntries;
  // Options the plugin defines by name (env_option_overrides; kiln's: docs/pjrt.md).
  std::vector<std::pair<std::string, std::string>> namedOptions;
};

class Client {
 public:
  Client(Plugin plugin, const ClientOptions& options = {});
  const Plugin& plugin() const { return plugin_; }
  // The devices this process addresses.
  std::vector<Device> devices() const;
  // The devices of all the client's processes (more than devices() under MPI).
  size_t numAllDevices() const;
  // This process's index among the client's processes (its MPI rank), and their number.
  int processIndex() const;
  int numProcesses() const;

  // A buffer on `device` from host memory, which must stay as it is until the event.
  std::pair<Buffer, Event> bufferFromHost(const void* data, DType dtype, const Shape& dims, const Device& device) const;
  // The same from a literal, which the copy keeps alive (no waiting).
  Buffer bufferFromHost(const Literal& literal, const Device& device) const;
  // A token on `device` (for programs that take one: send, recv).
  Buffer token(const Device& device) const;

  // `text`: StableHLO as MLIR text (for a plugin without the kiln extension, plain
  // StableHLO: an op of kiln's own is an Unsupported error at the op).
  Executable compile(std::string_view text, const CompileOptions& options = {}) const;
  // `sourceName` and `source`: the name and text it was compiled from, when known (its
  // runtime errors then show their source line; kiln extension).
  Executable deserialize(std::string_view bytes, const std::string& sourceName = "", std::string_view source = {}) const;

 private:
  Plugin plugin_;
  std::shared_ptr<PJRT_Client> client_;
};

}  // namespace kiln::runtime
