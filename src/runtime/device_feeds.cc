// A device's feeds: two queues of values under one lock, and the host's outfeed
// requests waiting for values.
#include "runtime/device_feeds.h"

#include <chrono>

#include "runtime/host_memory.h"
#include "support/error.h"

namespace kiln::runtime {

void DeviceFeedQueues::infeed(interp::HostValue value) {
  {
    std::lock_guard lock(mutex_);
    infeed_.push_back(std::move(value));
  }
  infeedChanged_.notify_all();
}

interp::HostValue DeviceFeedQueues::takeInfeed(const interp::InterpOptions& options) {
  std::unique_lock lock(mutex_);
  while (infeed_.empty()) {
    if (infeedClosed_) throw Error(ErrorKind::Runtime, "the device's infeed is empty and its client is being destroyed");
    if (!infeedWaits_)
      throw Error(ErrorKind::Runtime,
                  "the device's infeed is empty (with the client option infeed_when_empty=wait the program would wait "
                  "for a value)");
    interp::checkDeadline(options);
    // Wake now and then to notice cancellation and the deadline.
    infeedChanged_.wait_for(lock, std::chrono::milliseconds(20));
  }
  interp::HostValue value = std::move(infeed_.front());
  infeed_.pop_front();
  return value;
}

void DeviceFeedQueues::putOutfeed(interp::HostValue value) {
  Served served;
  {
    std::lock_guard lock(mutex_);
    outfeed_.push_back(std::move(value));
    served = serveLocked();
  }
  served.finish();
}

EventRef DeviceFeedQueues::requestOutfeed(Type type, void* dst) {
  auto done = std::make_shared<Completion>();
  Served served;
  {
    std::lock_guard lock(mutex_);
    if (outfeedClosed_) {
      served.failures.emplace_back(done, Failure{FailureCode::Cancelled, "the device's client is being destroyed"});
    } else {
      requests_.push_back({std::move(type), dst, done});
      served = serveLocked();
    }
  }
  served.finish();
  return done;
}

void DeviceFeedQueues::stopInfeedWaits() {
  {
    std::lock_guard lock(mutex_);
    infeedClosed_ = true;
  }
  infeedChanged_.notify_all();
}

void DeviceFeedQueues::closeOutfeed() {
  Served served;
  {
    std::lock_guard lock(mutex_);
    outfeedClosed_ = true;
    for (Request& request : requests_)
      served.failures.emplace_back(
          std::move(request.done),
          Failure{FailureCode::Cancelled, "the client was destroyed before the device outfed a value for this request"});
    requests_.clear();
  }
  served.finish();
}

DeviceFeedQueues::Served DeviceFeedQueues::serveLocked() {
  Served served;
  while (!requests_.empty() && !outfeed_.empty()) {
    Request request = std::move(requests_.front());
    requests_.pop_front();
    const Type& type = outfeed_.front().type();
    if (type != request.type) {
      served.failures.emplace_back(std::move(request.done),
                                   Failure{FailureCode::InvalidArgument, "the next outfeed value is " + type.str() +
                                                                            ", not " + request.type.str() +
                                                                            " (it stays for the next request)"});
      continue;
    }
    served.copies.emplace_back(std::move(request), std::move(outfeed_.front()));
    outfeed_.pop_front();
  }
  return served;
}

void DeviceFeedQueues::Served::finish() {
  for (auto& [request, value] : copies) {
    try {
      copyElements(value, request.dst);
      request.done->set();
    } catch (...) {
      request.done->set(currentFailure());
    }
  }
  for (auto& [done, failure] : failures) done->set(std::move(failure));
}

}  // namespace kiln::runtime
