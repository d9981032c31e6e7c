// The process grid of interpreter.run_parallel: threads, rendezvous barriers, channels,
// the infeed queue, and deadlock detection.
#include "interp/process_grid.h"

#include <thread>

#include "support/error.h"

namespace kiln::interp {

std::string ProcessId::str() const {
  return "(" + std::to_string(replica) + ", " + std::to_string(partition) + ")";
}

ProcessGrid::ProcessGrid(int64_t numReplicas, int64_t numPartitions,
                         std::vector<std::string> infeed, const InterpOptions& options,
                         std::shared_ptr<ProcessTransport> transport)
    : numReplicas_(numReplicas),
      numPartitions_(numPartitions),
      options_(options),
      transport_(std::move(transport)),
      infeed_(infeed.begin(), infeed.end()),
      hasInfeedList_(!infeed.empty()),
      states_(static_cast<size_t>(numReplicas * numPartitions)) {}

namespace {

std::string groupText(const ProcessGroup& group) {
  std::string s = "[";
  for (size_t i = 0; i < group.size(); ++i) s += (i ? ", " : "") + group[i].str();
  return s + "]";
}

}  // namespace

std::vector<HostValues> ProcessGrid::rendezvous(ProcessContext& self, const std::string& key,
                                                const ProcessGroup& group, HostValues values) {
  size_t n = group.size();
  size_t me = n;
  for (size_t i = 0; i < n; ++i)
    if (group[i] == self.id()) me = i;
  if (me == n)
    throw Error(ErrorKind::Internal,
                "process " + self.id().str() + " is not in its group " + groupText(group));
  if (n == 1) return {std::move(values)};

  std::string fullKey = key + " " + groupText(group);
  if (transport_) {
    // One grid process per OS process: only this thread touches `self`.
    const int64_t occurrence = self.nextOccurrence(fullKey);
    std::vector<size_t> members;
    for (const ProcessId& id : group) members.push_back(flatIndex(id));
    return transport_->exchange(fullKey + " #" + std::to_string(occurrence), members, std::move(values), options_);
  }
  std::unique_lock<std::mutex> lock(mutex_);
  int64_t occurrence = self.nextOccurrence(fullKey);
  auto it = slots_.try_emplace({fullKey, occurrence}).first;
  Slot& slot = it->second;
  if (slot.values.empty()) slot.values.resize(n);
  slot.values[me] = std::move(values);
  if (++slot.arrived == n) {
    changed_.notify_all();
  } else {
    waitUntil(
        lock, self, [&slot, n] { return slot.arrived == n; },
        key + " with the group " + groupText(group));
  }
  std::vector<HostValues> all;
  for (size_t i = 0; i < n; ++i) {
    all.push_back(*slot.values[i]);
    if (all.back().size() != all.front().size())
      throw Error(ErrorKind::Runtime, key + ": process " + group[i].str() + " contributes " +
                                          std::to_string(all.back().size()) + " values, process " +
                                          group[0].str() + " " +
                                          std::to_string(all.front().size()));
  }
  if (++slot.departed == n) slots_.erase(it);
  return all;
}

void ProcessGrid::send(int64_t channel, HostValues values) {
  if (transport_) throw Error(ErrorKind::Unsupported, "unsupported: stablehlo.send between OS processes (channel " + std::to_string(channel) + ")");
  std::lock_guard<std::mutex> lock(mutex_);
  channels_[channel].push_back(std::move(values));
  changed_.notify_all();
}

HostValues ProcessGrid::recv(ProcessContext& self, int64_t channel) {
  if (transport_) throw Error(ErrorKind::Unsupported, "unsupported: stablehlo.recv between OS processes (channel " + std::to_string(channel) + ")");
  std::unique_lock<std::mutex> lock(mutex_);
  std::deque<HostValues>& queue = channels_[channel];
  waitUntil(
      lock, self, [&queue] { return !queue.empty(); },
      "stablehlo.recv on channel " + std::to_string(channel));
  HostValues values = std::move(queue.front());
  queue.pop_front();
  return values;
}

std::optional<std::string> ProcessGrid::popInfeed() {
  if (transport_) throw Error(ErrorKind::Unsupported, "unsupported: infeed between OS processes");
  std::lock_guard<std::mutex> lock(mutex_);
  if (infeed_.empty()) return std::nullopt;
  std::string name = std::move(infeed_.front());
  infeed_.pop_front();
  return name;
}

void ProcessGrid::waitUntil(std::unique_lock<std::mutex>& lock, ProcessContext& self,
                            const std::function<bool()>& ready, std::string what) {
  if (ready()) return;
  ProcessState& state = states_[flatIndex(self.id())];
  state.ready = ready;
  state.waitingFor = std::move(what);
  detectDeadlock();
  std::string failure;
  while (!ready()) {
    if (deadlock_) {
      failure = *deadlock_;
      break;
    }
    if (options_.cancel && options_.cancel->load(std::memory_order_relaxed)) {
      failure = "cancelled";
      break;
    }
    auto now = std::chrono::steady_clock::now();
    if (options_.deadline && now > *options_.deadline) {
      failure =
          "time limit exceeded while process " + self.id().str() + " waits in " + state.waitingFor;
      break;
    }
    // Wake now and then to notice the deadline and cancellation.
    changed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  state.ready = nullptr;
  if (!failure.empty()) throw Error(ErrorKind::Runtime, failure);
}

void ProcessGrid::detectDeadlock() {
  if (deadlock_) return;
  bool anyWaiting = false;
  for (const ProcessState& s : states_) {
    if (s.finished) continue;
    if (!s.ready || s.ready()) return;  // someone can still make progress
    anyWaiting = true;
  }
  if (!anyWaiting) return;
  bool anyFailed = false;
  for (const ProcessState& s : states_) anyFailed = anyFailed || !s.failure.empty();
  std::string message =
      anyFailed ? "a process failed, and those waiting for it cannot go on:" : "deadlock between the processes:";
  for (size_t i = 0; i < states_.size(); ++i) {
    ProcessId id{static_cast<int64_t>(i) / numPartitions_,
                 static_cast<int64_t>(i) % numPartitions_};
    if (!states_[i].failure.empty())
      message += " process " + id.str() + " failed (" + states_[i].failure + ");";
    else if (states_[i].finished)
      message += " process " + id.str() + " has finished;";
    else
      message += " process " + id.str() + " waits in " + states_[i].waitingFor + ";";
  }
  message.pop_back();
  deadlock_ = message;
  if (!firstError_) firstError_ = std::make_exception_ptr(Error(ErrorKind::Runtime, message));
  changed_.notify_all();
}

void ProcessGrid::recordError(std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!firstError_) firstError_ = std::move(error);
}

void ProcessGrid::run(const std::function<void(ProcessContext&)>& body) {
  std::vector<ProcessContext> processes;
  processes.reserve(states_.size());
  for (int64_t r = 0; r < numReplicas_; ++r)
    for (int64_t p = 0; p < numPartitions_; ++p) processes.emplace_back(*this, ProcessId{r, p});

  // One OS thread per process: a smaller pool could leave a barrier's last member unrun.
  std::vector<std::thread> threads;
  threads.reserve(processes.size());
  for (ProcessContext& process : processes) {
    try {
      threads.emplace_back([this, &process, &body] {
        try {
          runAs(process, [&] { body(process); });
        } catch (...) {
        }
      });
    } catch (...) {
      // No thread for this process and the ones after it: they count as finished, so
      // the started ones that wait for them fail instead of hanging.
      recordError(std::current_exception());
      for (size_t i = threads.size(); i < processes.size(); ++i) finish(processes[i].id(), "not started");
      break;
    }
  }
  for (std::thread& t : threads) t.join();
  if (firstError_) std::rethrow_exception(firstError_);
}

void ProcessGrid::runAs(ProcessContext& process, const std::function<void()>& body) {
  try {
    body();
  } catch (...) {
    std::exception_ptr error = std::current_exception();
    recordError(error);
    std::string what = "error";
    try {
      std::rethrow_exception(error);
    } catch (const Error& e) {
      what = e.format();
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    finish(process.id(), what);
    if (transport_) transport_->fail(what);
    throw;
  }
  finish(process.id(), "");
}

void ProcessGrid::abandon(ProcessId process, const std::string& why) {
  recordError(std::make_exception_ptr(Error(ErrorKind::Runtime, why)));
  finish(process, why);
  if (transport_) transport_->fail(why);
}

void ProcessGrid::finish(ProcessId id, std::string failure) {
  std::lock_guard<std::mutex> lock(mutex_);
  ProcessState& state = states_[flatIndex(id)];
  state.finished = true;
  state.failure = std::move(failure);
  detectDeadlock();
}

}  // namespace kiln::interp
