// A device's infeed and outfeed queues, as XLA's TransferToInfeed / TransferFromOutfeed
// see them: the host queues values for the infeed ops of the programs the device runs
// (device_infeed), and asks for the values their outfeed ops produce (device_outfeed),
// which reach it in the order the programs produced them.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>

#include "interp/interpreter.h"
#include "runtime/completion.h"

namespace kiln::runtime {

class DeviceFeedQueues : public interp::DeviceFeeds {
 public:
  // `infeedWaits`: a program that finds the infeed empty waits for a value (else it
  // fails at once: the client option infeed_when_empty=fail).
  explicit DeviceFeedQueues(bool infeedWaits) : infeedWaits_(infeedWaits) {}

  // Queues a value for infeed (a program waiting for one takes it at once).
  void infeed(interp::HostValue value);
  // The next outfeed value, once there, of `type`, copied to `dst` (the type's bytes);
  // the returned event says when. Requests are served in order; one whose type is not
  // the value's fails (INVALID_ARGUMENT) and leaves the value for the next.
  EventRef requestOutfeed(Type type, void* dst);
  // The client is going away, in two steps. First programs waiting for infeed (and
  // those that find it empty later) fail; values already queued are still taken. Then,
  // once the work queued on the device is done, the outfeed requests not served fail
  // (CANCELLED), and so do later ones.
  void stopInfeedWaits();
  void closeOutfeed();

  interp::HostValue takeInfeed(const interp::InterpOptions& options) override;
  void putOutfeed(interp::HostValue value) override;

 private:
  struct Request {
    Type type;
    void* dst;
    EventRef done;
  };
  // Pairs requests with values in order (under the lock); the copies and events are the
  // caller's to finish once it has let go of the lock.
  struct Served {
    std::vector<std::pair<Request, interp::HostValue>> copies;
    std::vector<std::pair<EventRef, Failure>> failures;
    void finish();
  };
  Served serveLocked();

  std::mutex mutex_;
  std::condition_variable infeedChanged_;
  std::deque<interp::HostValue> infeed_, outfeed_;
  std::deque<Request> requests_;
  bool infeedClosed_ = false, outfeedClosed_ = false;
  const bool infeedWaits_;
};

}  // namespace kiln::runtime
