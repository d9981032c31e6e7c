// What a plugin's objects are beneath PJRT's handles (pjrt/pjrt_objects.h): a client owns
// its devices (each with a queue and a memory), a buffer holds its value once its event
// is ready, an executable holds a compiled program. The state that asynchronous work
// outlives them with is shared.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "interp/host_value.h"
#include "interp/process_transport.h"
#include "runtime/device_backend.h"
#include "runtime/device_feeds.h"
#include "runtime/device_queue.h"
#include "runtime/completion.h"

namespace kiln::runtime {

struct ClientCore;
struct DeviceCore;

// A device's memory accounting (its buffers are host memory in the cpu and interp
// plugins; the accounting is what a device with its own memory would report).
class DeviceMemory {
 public:
  explicit DeviceMemory(int64_t limit) : limit_(limit) {}
  // Counts a new buffer of `bytes`; throws ApiFailure (RESOURCE_EXHAUSTED) when it would
  // pass the limit.
  void reserve(int64_t bytes);
  void release(int64_t bytes);
  struct Stats {
    int64_t inUse = 0, peak = 0, buffers = 0, limit = 0;
  };
  Stats stats() const;

 private:
  mutable std::mutex mutex_;
  const int64_t limit_;  // 0: none
  int64_t inUse_ = 0, peak_ = 0, buffers_ = 0;
};

// A buffer's contents and the event that says they are there. Shared by the handle and
// the work that fills or reads it, so either may finish first. Its memory is counted
// until it is deleted, or until its handle is gone (or it was donated) and no queued
// work that reads it is pending (reads are counted as uses, from the call that queues
// them until they have read), so the statistics a caller sees after awaiting its work
// are exact. A donated buffer's memory may pass to an output of the execution it was
// donated to, which then counts it instead (takeMemoryOf).
struct BufferState {
  BufferState(Type type, DeviceCore* device, std::shared_ptr<DeviceMemory> memory);
  // A buffer that counts the memory of `donor` (donated, of the same type) instead of
  // reserving its own.
  BufferState(DeviceCore* device, BufferState& donor);
  ~BufferState();  // releases the memory unless freed already

  // A pending read; throws ApiFailure (FAILED_PRECONDITION) when deleted or donated.
  // With `donate`, the read's execution takes the buffer over: no later use succeeds.
  void use(bool donate = false);
  // Undoes use(true)'s donation (its call failed after it), with its read.
  void undonate();
  // The value for a pending read, once ready, ending the read; throws ApiFailure
  // (FAILED_PRECONDITION) when the buffer was deleted meanwhile.
  interp::HostValue take();
  // Ends a pending read that will not read (its work failed before it).
  void endUse();
  // The address of a ready tensor's bytes, all of them (a splat is expanded): what
  // PJRT_Buffer_UnsafePointer hands out, valid while the buffer lives. Throws ApiFailure
  // (FAILED_PRECONDITION) when deleted or donated, INVALID_ARGUMENT for tuples and tokens.
  const void* storage();
  // Fills the buffer (ignored once freed) and marks it ready.
  void fill(interp::HostValue value);
  void fail(const Failure& failure) { ready->set(failure); }
  // The handle is gone: frees the buffer once no read is pending.
  void dropHandle();
  // Deletes the buffer: later use fails; the contents and the memory are freed now, or
  // once the reads already queued have read (as PJRT's Delete). Idempotent; nothing for
  // a donated buffer (its execution owns it).
  void remove();
  // Deleted or donated: the handle can no longer be used.
  bool deleted() const;
  bool donated() const;

  const Type type;
  const std::vector<int64_t> dims;
  const int64_t bytes;
  DeviceCore* const device;
  const EventRef ready = std::make_shared<Completion>();

 private:
  // Marks the buffer freed (under the lock); true when it was not yet, and the memory
  // is to be released (outside the lock).
  bool freeLocked();

  const std::shared_ptr<DeviceMemory> memory_;
  mutable std::mutex mutex_;
  interp::HostValue value_;
  bool deleted_ = false;      // freed
  bool handleDeleted_ = false;  // remove()d: freed once no read is pending
  bool handleGone_ = false;
  bool donated_ = false;
  bool memoryMoved_ = false;  // an output counts the memory now
  int uses_ = 0;
};

// Where a program runs: replicas x partitions processes, one per device.
struct Placement {
  int32_t replicas = 1, partitions = 1;
  std::vector<int32_t> devices;  // of process (r, p) at r * partitions + p; empty: any
  std::string entry;             // as the compile named it; empty: the default rule
  std::vector<std::string> entries;  // the function of each process; empty: `entry` for all
  int32_t processes() const { return replicas * partitions; }
};

// What cancelling an execution reaches through its completion event.
class Cancellable {
 public:
  virtual ~Cancellable() = default;
  virtual void cancel() = 0;
};

// A compiled program entered at one function, with what the plugin reports about it,
// computed once.
struct ProgramInfo {
  ProgramInfo(std::shared_ptr<const CompiledProgram> program, Placement placement);
  std::shared_ptr<const CompiledProgram> program;
  Placement placement;
  std::vector<Type> params, results;
  std::vector<std::vector<int64_t>> paramDims, resultDims;
  double flops = 0, bytesAccessed = 0;
  int64_t tempBytes = 0, peakLiveBytes = 0;
  // Small enough that running it costs less than handing it to a device's thread: run on
  // the caller's when its device is idle (see smallEnoughToRunInline).
  bool runsInline = false;
};

// A device of a client: its queue, its memory's accounting and its feeds.
struct DeviceCore {
  int32_t id = 0;
  std::string kind, description;
  std::shared_ptr<DeviceMemory> deviceMemory;
  std::shared_ptr<DeviceQueue> queue;
  // Its infeed and outfeed, which its programs' infeed and outfeed ops take from and
  // put to.
  std::shared_ptr<DeviceFeedQueues> feeds;
  ClientCore* client = nullptr;
};

struct ClientCore {
  const DeviceBackend* backend = nullptr;
  std::vector<std::unique_ptr<DeviceCore>> devices;
  std::vector<DeviceCore*> handles;  // this process's devices, in order
  int64_t memoryLimit = 0;
  // The mpi communicator's (null: in-process): this process is rank transport->rank() of
  // transport->size(), with one device, and runs that process of an execution.
  std::shared_ptr<interp::ProcessTransport> transport;
  // Devices of all the client's processes: ids 0..allDevices-1, this process's among them.
  size_t allDevices() const { return transport ? transport->size() : devices.size(); }
  // Held while a multi-device execution queues its processes, so that every device
  // queues the executions in one order (two executions queued in different orders on
  // two devices would each wait for a process queued behind the other).
  std::shared_ptr<std::mutex> launchOrder = std::make_shared<std::mutex>();
  // Whether small programs may run on the caller's thread (client option
  // "inline_execution"; ProgramInfo::runsInline).
  bool inlineExecution = true;
};

// A compiled program and where it runs.
struct ExecutableCore {
  ClientCore* client = nullptr;
  std::shared_ptr<const ProgramInfo> info;  // process 0's
  // Each process's, when they run different functions (Placement::entries); else empty.
  std::vector<std::shared_ptr<const ProgramInfo>> processes;

  const std::shared_ptr<const ProgramInfo>& infoOf(size_t process) const {
    return processes.empty() ? info : processes[process];
  }
};

}  // namespace kiln::runtime
