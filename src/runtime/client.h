// The C++ side of the plugin C API: RAII types over a loaded plugin's handles that turn
// error objects back into kiln::Error. This is how everything above src/runtime reaches
// a device. Buffers and executables keep their client (shared) alive, so they may
// outlive the Client object that made them.
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
#include "kiln/plugin.h"
#include "runtime/plugin_loader.h"
#include "support/error.h"

namespace kiln::runtime {

// A plugin's table, with the call discipline: every call gets its struct_size, and an
// error object becomes a kiln::Error (the object is destroyed).
class Plugin {
 public:
  explicit Plugin(const LoadedPlugin& loaded) : loaded_(&loaded) {}
  static Plugin load(const std::string& name) { return Plugin(loadPlugin(name)); }

  const KilnPluginApi& api() const { return *loaded_->api; }
  const std::string& path() const { return loaded_->path; }
  std::string name() const;     // the plugin's own (plugin_attributes)
  std::string version() const;  // the plugin's own version
  // The optional capabilities it implements (KILN_CAPABILITY_*): those it lists, or for a
  // plugin older than API 0.4, which cannot, capabilitiesBeforeListing().
  const std::vector<std::string>& capabilities() const { return loaded_->capabilities; }
  bool has(const char* capability) const;
  // Throws Unsupported naming `capability` when the plugin lacks it: fields of an args
  // struct past a plugin's own version are ignored by it, so a host checks first.
  void require(const char* capability, const char* what) const;
  int majorVersion() const { return api().major_version; }
  int minorVersion() const { return api().minor_version; }
  // Throws Unsupported when the plugin's API is older than 0.`minor`, which brought
  // `what` (a field past an older plugin's structs would be ignored, not refused).
  void requireMinor(int minor, const char* what) const;

  // Throws the kiln::Error for `error` (and destroys it); nothing for null.
  void check(KilnError* error) const;
  // The kiln::Error for `error`, which stays the caller's.
  Error toError(const KilnError* error) const;

  // Calls table entry `fn` with `args` (whose struct_size it sets), checking the result.
  // Throws Unsupported when the plugin's table is too old to have `fn`.
  template <class Args>
  void call(KilnError* (*KilnPluginApi::*fn)(Args*), Args& args, const char* name) const {
    const auto* base = reinterpret_cast<const char*>(&api());
    size_t end = static_cast<size_t>(reinterpret_cast<const char*>(&(api().*fn)) - base) + sizeof(void*);
    if (end > api().struct_size || !(api().*fn))
      throw Error(ErrorKind::Unsupported, "unsupported: plugin '" + loaded_->name + "' has no " + name);
    args.struct_size = sizeof(Args);
    check((api().*fn)(&args));
  }

 private:
  const LoadedPlugin* loaded_;
};

class Event {
 public:
  Event(Plugin plugin, KilnEvent* handle);
  bool ready() const;
  // Blocks until ready; throws the work's error.
  void await() const;
  // Runs `callback` once when ready, with the work's error if it failed (on the thread
  // that completes the work, or at once on this one).
  void onReady(std::function<void(const std::optional<Error>&)> callback) const;
  KilnEvent* handle() const { return handle_.get(); }
  const Plugin& plugin() const { return plugin_; }

 private:
  Plugin plugin_;
  std::shared_ptr<KilnEvent> handle_;
};

// A device of a client, which it keeps alive (a thread feeding its infeed may outlive
// the Client object).
class Device {
 public:
  Device(Plugin plugin, std::shared_ptr<KilnClient> client, KilnDevice* handle)
      : plugin_(plugin), client_(std::move(client)), handle_(handle) {}
  int id() const;
  int processIndex() const;  // the client process that addresses it (its MPI rank)
  std::string kind() const;
  std::string description() const;
  int64_t memorySize() const;
  struct MemoryStats {
    int64_t bytesInUse = 0, peakBytesInUse = 0, numBuffers = 0, bytesLimit = 0;
  };
  MemoryStats memoryStats() const;
  // Queues `value` for the infeed ops of the programs this device runs; copied before
  // it returns (capability "feeds", API 0.8; plugin.h: KilnDeviceInfeedArgs).
  void infeed(const Literal& value) const;
  // Asks for the next value this device's programs outfeed, of `type`, copied to `dst`
  // (its bytes) once there: the event says when (and fails for a value of another type).
  Event outfeed(const Type& type, void* dst, size_t size) const;
  // The same as a literal (waits for it).
  Literal outfeed(const Type& type) const;
  KilnDevice* handle() const { return handle_; }

 private:
  KilnDeviceInfoArgs info() const;
  Plugin plugin_;
  std::shared_ptr<KilnClient> client_;
  KilnDevice* handle_;
};

class Buffer {
 public:
  Buffer(Plugin plugin, std::shared_ptr<KilnClient> client, KilnBuffer* handle);
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
  KilnBuffer* handle() const { return handle_.get(); }

 private:
  KilnBufferInfoArgs info() const;
  Plugin plugin_;
  std::shared_ptr<KilnClient> client_;
  std::shared_ptr<KilnBuffer> handle_;
};

struct ExecutableInfo {
  std::string name;
  std::vector<Type> parameters, results;
  double flops = 0, bytesAccessed = 0;
  int64_t tempBytes = 0, peakLiveBytes = 0;
  int replicas = 1, partitions = 1;
};

struct ExecuteOptions {
  std::string label;          // prefixes a failure of the execution's own run (KilnExecuteArgs::label)
  std::vector<size_t> donate; // argument indices the execution takes over (capability "donation")
  // The execution fails ("time limit exceeded") once it has run this long (API 0.5).
  std::optional<std::chrono::nanoseconds> timeLimit;
  // Where the program's interpreter.print output goes, called on the threads that run it
  // (API 0.7); empty: the plugin's standard output.
  std::function<void(std::string_view)> print;
};

class Executable {
 public:
  Executable(Plugin plugin, std::shared_ptr<KilnClient> client, KilnExecutable* handle);
  // What process `process` runs (they differ only with CompileOptions::processEntries).
  ExecutableInfo info(size_t process = 0) const;
  size_t numResults(size_t process = 0) const;
  std::string serialize() const;
  // The same compiled module entered at function `name` (API 0.5).
  Executable withEntry(const std::string& name) const;
  // What the plugin says about how it compiled and ran the module (API 0.5; names are
  // the plugin's, plugin.h: KilnExecutableStatisticsArgs).
  std::vector<std::pair<std::string, double>> statistics() const;
  // A text about the executable by name (capability "text", API 0.7; plugin.h:
  // KilnExecutableTextArgs): "program", and the cpu plugin's "report", "profile" and
  // "profile_summary".
  std::string text(const std::string& name) const;
  struct Execution {
    std::vector<Buffer> outputs;
    Event done;
    // Asks the execution (on every device it runs on) to stop: its outputs and `done`
    // then fail ("cancelled"), unless it has completed (capability "cancellation").
    void cancel() const;
  };
  // Starts the executable on `device` (returns before it runs).
  Execution execute(const std::vector<const Buffer*>& args, const Device& device,
                    const ExecuteOptions& options = {}) const;
  // Starts it as replicas x partitions processes: process d = r * partitions + p on
  // devices[d] with args[d]; one execution per device.
  std::vector<Execution> execute(const std::vector<std::vector<const Buffer*>>& args,
                                 const std::vector<Device>& devices, const ExecuteOptions& options = {}) const;
  KilnExecutable* handle() const { return handle_.get(); }
  const Plugin& plugin() const { return plugin_; }

 private:
  // The plugin's execute, on lists already made.
  void launch(size_t numDevices, KilnDevice* const* devices, KilnBuffer* const* const* argLists, size_t numArgs,
              const size_t* numArgsPerDevice, KilnBuffer** const* outLists, KilnEvent** done,
              const ExecuteOptions& options) const;
  std::vector<size_t> numResults_;  // per process, asked of the plugin once, when made
  Plugin plugin_;
  std::shared_ptr<KilnClient> client_;
  std::shared_ptr<KilnExecutable> handle_;
};

// Which communicator a client's devices exchange values through.
enum class Communicator {
  InProcess,  // the client's devices are in this process
  Mpi,        // this process is one rank of an MPI job, with one device (capability "mpi")
};

// The communicator a host defaults to: Mpi when this process was started by an MPI
// launcher (mpirun sets OMPI_COMM_WORLD_SIZE; others PMI_SIZE or PMIX_RANK).
Communicator defaultCommunicator();

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
  // once (client option "infeed_when_empty"; capability "feeds").
  bool infeedWaits = false;
};

struct CompileOptions {
  KilnOptimization optimization = KILN_OPTIMIZATION_DEFAULT;
  std::string dumpDir;
  std::string name = "<program>";  // what error messages call the text
  std::string entry;               // the function to run; empty: @main or the only public one
  int replicas = 1, partitions = 1;
  std::vector<int32_t> deviceAssignment;  // device ids of processes (r, p), replica-major; empty: any
  // The function each process runs, replica-major (then `entry` is ignored); empty: all
  // run `entry` (capability "mpmd").
  std::vector<std::string> processEntries;
  // Options the plugin defines by name (plugin.h: KilnNamedOption; API 0.5).
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

  Executable compile(std::string_view text, const CompileOptions& options = {}) const;
  // `sourceName` and `source`: the name and text it was compiled from, when known (API
  // 0.8: its runtime errors then show their source line).
  Executable deserialize(std::string_view bytes, const std::string& sourceName = "", std::string_view source = {}) const;

 private:
  Plugin plugin_;
  std::shared_ptr<KilnClient> client_;
};

}  // namespace kiln::runtime
