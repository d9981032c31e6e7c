// The process grid: the (replica, partition) processes of interpreter.run_parallel (one
// thread each) or of a multi-device execution (one device queue each, runtime/), and
// what they share — the rendezvous barriers collectives exchange values through, the
// channels of send/recv, and the infeed queue. This is the in-process communicator. A
// wait that can never end (every unfinished process waiting on the others, or on one
// that failed) fails at once instead of hanging.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "interp/host_value.h"
#include "interp/interpreter.h"
#include "interp/process_transport.h"

namespace kiln::interp {

class ProcessContext;

struct ProcessId {
  int64_t replica = 0;
  int64_t partition = 0;
  bool operator==(const ProcessId&) const = default;
  std::string str() const;  // "(1, 0)"
};

using ProcessGroup = std::vector<ProcessId>;

class ProcessGrid {
 public:
  // With a `transport`, the grid's processes live in transport->size() OS processes, and
  // this one runs only process transport->rank() (flat index); send/recv and infeed are
  // then unsupported.
  ProcessGrid(int64_t numReplicas, int64_t numPartitions, std::vector<std::string> infeed,
              const InterpOptions& options, std::shared_ptr<ProcessTransport> transport = nullptr);

  int64_t numReplicas() const { return numReplicas_; }
  int64_t numPartitions() const { return numPartitions_; }
  int64_t numProcesses() const { return numReplicas_ * numPartitions_; }
  // Replica-major position of a process: (0,0), (0,1), ..., (1,0), ...
  size_t flatIndex(ProcessId id) const {
    return static_cast<size_t>(id.replica * numPartitions_ + id.partition);
  }

  // Each member of `group` calls this with its values; every member gets all members'
  // values in group order once the last one arrives. Calls are matched by `key` (what
  // the op and channel are) and by how often this process has met the group under that
  // key before, so repeated collectives on one channel pair up in program order.
  std::vector<HostValues> rendezvous(ProcessContext& self, const std::string& key,
                                     const ProcessGroup& group, HostValues values);
  // Whether the processes share this address space (a rendezvous hands them the very
  // values the others passed, so they may share buffers); false over a transport.
  bool sharesMemory() const { return !transport_; }

  // send/recv: a FIFO per channel; send never blocks, recv waits for a value.
  void send(int64_t channel, HostValues values);
  HostValues recv(ProcessContext& self, int64_t channel);

  // The next function of the infeed queue shared by the grid; nullopt when it is empty.
  std::optional<std::string> popInfeed();
  // Whether the grid was given an infeed list (run_parallel's; a device grid has none).
  bool hasInfeedList() const { return hasInfeedList_; }

  // Runs `body(process)` for every process on its own thread and waits for all of them.
  // The first error (in time) is rethrown after every thread has ended.
  void run(const std::function<void(ProcessContext&)>& body);

  // Runs `body` as `process` on the caller's thread (a device's queue runs its process
  // of a multi-device execution this way), then marks the process finished: processes
  // that wait for it afterwards fail instead of hanging. An error of `body` is rethrown
  // and named to those processes.
  void runAs(ProcessContext& process, const std::function<void()>& body);
  // Marks `process` failed without running it (its device could not start it).
  void abandon(ProcessId process, const std::string& why);

 private:
  struct Slot {
    std::vector<std::optional<HostValues>> values;
    size_t arrived = 0;
    size_t departed = 0;
  };
  struct ProcessState {
    bool finished = false;
    std::string failure;          // why it finished early, when it failed
    std::function<bool()> ready;  // set while the process waits: true once it may go on
    std::string waitingFor;       // what it waits for, for the deadlock message
  };

  // Blocks until `ready()`; fails on a deadlock, the deadline or cancellation.
  void waitUntil(std::unique_lock<std::mutex>& lock, ProcessContext& self,
                 const std::function<bool()>& ready, std::string what);
  // Called with the lock held whenever a process starts waiting or finishes.
  void detectDeadlock();
  void recordError(std::exception_ptr error);
  void finish(ProcessId id, std::string failure);

  int64_t numReplicas_;
  int64_t numPartitions_;
  const InterpOptions& options_;
  std::shared_ptr<ProcessTransport> transport_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> infeed_;
  const bool hasInfeedList_;
  std::map<std::pair<std::string, int64_t>, Slot> slots_;  // (key, occurrence)
  std::map<int64_t, std::deque<HostValues>> channels_;
  std::vector<ProcessState> states_;
  std::optional<std::string> deadlock_;
  std::exception_ptr firstError_;
};

// One process of a run_parallel: its place in the grid and its own bookkeeping.
class ProcessContext {
 public:
  ProcessContext(ProcessGrid& grid, ProcessId id) : grid_(grid), id_(id) {}
  ProcessGrid& grid() { return grid_; }
  ProcessId id() const { return id_; }
  // How often this process has met a rendezvous `key` before (and counts this one).
  int64_t nextOccurrence(const std::string& key) { return rendezvousCount_[key]++; }

 private:
  friend class ProcessGrid;
  ProcessGrid& grid_;
  ProcessId id_;
  std::map<std::string, int64_t> rendezvousCount_;  // per key: rendezvous done so far
};

}  // namespace kiln::interp
