// What a plugin's devices do that differs from plugin to plugin: compile a program, run
// it, serialize it. Everything else a plugin does (PJRT's C API, buffers, events, one
// queue per device, memory statistics) is shared (plugin_core.h, pjrt/) and parameterized by this
// interface, so the cpu and interp plugins differ only in their DeviceBackend.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interp/host_value.h"
#include "interp/process_grid.h"
#include "ir/module.h"
#include "support/source.h"

namespace kiln::runtime {

// How one run of a program is controlled from outside.
struct RunControl {
  // This device's process of a multi-device execution, through whose grid the
  // program's collectives exchange values; null for a single device.
  interp::ProcessContext* process = nullptr;
  // Once set, loops stop with a Runtime error ("cancelled").
  const std::atomic<bool>* cancel = nullptr;
  // Past it, loops stop with a Runtime error ("time limit exceeded") at their op.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Where interpreter.print writes (the host's print callback, KILN_Execute_Args); null: stdout.
  std::function<void(const std::string&)> print;
  // The device's infeed and outfeed; null: as the interpreter has them (DeviceFeeds).
  interp::DeviceFeeds* feeds = nullptr;
  // The arguments the execution was given to keep (donated), by index; null: none. A
  // backend may write results into their storage.
  const std::vector<bool>* donated = nullptr;

  // The interpreter's options for this run (what both backends' programs run under).
  interp::InterpOptions interpOptions(const std::string& probeDir) const;
};

// A program compiled for a backend's devices. run() may be called from several device
// queues at once.
class CompiledProgram {
 public:
  virtual ~CompiledProgram() = default;
  // The module as it runs (cpu: after its pipeline) and its entry function.
  virtual const Module& module() const = 0;
  virtual const Function& entry() const = 0;
  // Runs the entry on `args` (already checked against its parameter types) under `control`.
  virtual interp::HostValues run(const interp::HostValues& args, const RunControl& control) const = 0;
  // Bytes that the same backend's deserialize() turns back into this program.
  virtual std::string serialize() const = 0;
  // The same compiled module entered at function `name` (kiln::Error Usage naming the
  // functions there are when it has none of that name).
  virtual std::shared_ptr<const CompiledProgram> withEntry(const std::string& name) const = 0;
  // Named numbers about how the module was compiled and has run so far
  // (the kiln extension's executable_statistics); none by default.
  virtual std::vector<std::pair<std::string, double>> statistics() const { return {}; }
  // The text the kiln extension's executable_text returns under `name`, or none for a name this program does
  // not know; textNames() lists those it does. Every program knows "program" (its
  // module, printed).
  virtual std::optional<std::string> text(const std::string& name) const;
  virtual std::vector<std::string> textNames() const { return {"program"}; }
};

struct CompileSettings {
  enum class Optimization { Full, Fast, Tiered };  // kiln.optimization: full, fast, tiered
  Optimization optimization = Optimization::Full;
  std::string dumpDir;  // where a backend writes what it generated; empty: nowhere
  std::string entry;    // the function to run; empty: entryFunction's rule
  // The named compile options kiln's plugins know (core::setCompileOption).
  std::optional<uint64_t> fillElidedSeed;  // "fill_elided_seed"
  int64_t memoryLimit = 0;                 // "memory_limit"; 0: none
  std::string probeDir;                    // "probe_dir"
  bool profile = false;                    // "profile"
  std::string kernelCacheDir;              // "kernel_cache_dir"
};


class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  // The plugin's name, which is also its devices' kind ("cpu", "interp").
  virtual const char* name() const = 0;
  // A sentence about device `id`, for `kiln devices`.
  virtual std::string describeDevice(int id) const = 0;
  // The devices a client has when its options do not say.
  virtual int defaultDeviceCount() const = 0;
  // Parses `source` (one module) and compiles it. Throws kiln::Error with the position
  // of the problem for bad text, and ResourceExhausted (passes::checkMemoryLimit) for a
  // program over settings.memoryLimit.
  virtual std::unique_ptr<CompiledProgram> compile(const SourceRef& source, const CompileSettings& settings) const = 0;
  // The program that serialize() wrote, entered at `entry` (as CompileSettings); `source`,
  // when not null, is the text it was compiled from (for its errors' source lines).
  // Throws kiln::Error for bytes that are not one (damaged, or from another backend).
  virtual std::unique_ptr<CompiledProgram> deserialize(std::string_view bytes, const std::string& entry,
                                                       SourceRef source) const = 0;
  // Whether its programs record profiles (the compile option "profile").
  virtual bool profiles() const { return false; }
};

// The environment variable that sets how many devices a backend's clients have by
// default: KILN_CPU_DEVICES for "cpu".
std::string deviceCountVariable(const std::string& backend);
// The device count that variable sets (1..1024); 1 when it is unset or empty. Throws
// kiln::Error (Usage) for anything else.
int deviceCountFromEnvironment(const std::string& backend);

// The function a program runs: `name` when given, else @main, else its only public
// function. Throws kiln::Error (Usage) naming the functions when there is none.
const Function& entryFunction(const Module& module, const std::string& name = "");

}  // namespace kiln::runtime
