// The runtime the frontend runs on: one client of the chosen plugin (made on first use),
// the device arrays live on, and the cache of compiled programs, keyed by the program's
// fingerprint (so the same op on the same types compiles once, whoever asks).
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "runtime/client.h"

namespace kiln::detail {

class Session {
 public:
  // The process's session (thread-safe).
  static Session& get();

  const runtime::Client& client() const { return client_; }
  const runtime::Device& device() const { return device_; }

  runtime::Buffer upload(const Literal& value) const;
  // `entry` of `module`, compiled by the plugin (once per fingerprint).
  std::shared_ptr<const runtime::Executable> compile(const Module& module, const std::string& entry);
  int64_t compiles() const;

  // Remembers an execution until it completes, so that the process can wait for it at
  // exit: work still queued when main returns would otherwise run while the libraries
  // it uses are being torn down.
  void track(const runtime::Event& done);
  // Waits for every tracked execution (their errors are the readers' business).
  void drain();

 private:
  explicit Session(const std::string& plugin);
  runtime::Client client_;
  runtime::Device device_;
  struct Cache;
  std::unique_ptr<Cache> cache_;
  std::string cacheDir_;  // the persistent cache's folder (defaultCacheDir()); empty: none
  std::mutex pendingLock_;
  std::deque<runtime::Event> pending_;  // executions in flight, oldest first
};

// The plugin the session uses or will use.
std::string sessionBackend();
// Chooses it; Usage once the session exists.
void setSessionBackend(const std::string& plugin);

}  // namespace kiln::detail
