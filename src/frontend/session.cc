#include "frontend/session.h"

#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "ir/fingerprint.h"
#include "runtime/compilation_cache.h"
#include "stablehlo/printer.h"
#include "support/atomic_file.h"
#include "support/disk_cache.h"

namespace kiln::detail {

namespace {

std::mutex sessionLock;
std::string chosenBackend;    // set_backend's choice, if any
Session* session = nullptr;   // never destroyed: plugins outlive every handle (plugin_loader.h)

std::string backendLocked() {
  if (!chosenBackend.empty()) return chosenBackend;
  const char* env = std::getenv("KILN_BACKEND");
  return env && *env ? env : "cpu";
}

}  // namespace

struct Session::Cache {
  std::mutex lock;
  // By the program's fingerprint, then the entry's name.
  std::unordered_map<Fingerprint, std::unordered_map<std::string, std::shared_ptr<const runtime::Executable>>,
                     FingerprintHash>
      compiled;
  int64_t compiles = 0;
};

Session::Session(const std::string& plugin)
    : client_(runtime::Plugin::load(plugin)),
      device_(client_.devices().at(0)),
      cache_(std::make_unique<Cache>()),
      cacheDir_(defaultCacheDir()) {}

Session& Session::get() {
  std::lock_guard<std::mutex> guard(sessionLock);
  if (!session) session = new Session(backendLocked());
  return *session;
}

std::string sessionBackend() {
  std::lock_guard<std::mutex> guard(sessionLock);
  return backendLocked();
}

void setSessionBackend(const std::string& plugin) {
  std::lock_guard<std::mutex> guard(sessionLock);
  if (session && plugin != backendLocked())
    throw Error(ErrorKind::Usage, "set_backend('" + plugin + "'): arrays already live on the '" + backendLocked() +
                                      "' plugin; choose the backend before making the first array");
  chosenBackend = plugin;
}

runtime::Buffer Session::upload(const Literal& value) const { return client_.bufferFromHost(value, device_); }

std::shared_ptr<const runtime::Executable> Session::compile(const Module& module, const std::string& entry) {
  Fingerprint key = fingerprint(module);
  std::lock_guard<std::mutex> guard(cache_->lock);
  auto& entries = cache_->compiled[key];
  auto it = entries.find(entry);
  if (it != entries.end()) return it->second;
  runtime::CompileOptions options;
  options.entry = entry;
  options.name = "<traced program>";
  // KILN_DUMP_DIR: the traced program (<entry>-<fingerprint>.mlir), and whatever the
  // plugin writes of its compilation (XLA's --xla_dump_to).
  const char* dump = std::getenv("KILN_DUMP_DIR");
  if (dump) options.dumpDir = dump;
  // Compiled programs persist across processes (runtime/compilation_cache.h), found by
  // the fingerprint: a program is printed only when it must be compiled.
  auto text = [&] {
    std::string printed = stablehlo::printModule(module);
    if (dump) writeFileAtomically(std::string(dump) + "/" + entry + "-" + key.hex() + ".mlir", printed);
    return printed;
  };
  runtime::CachedCompile compiled = runtime::compileCached(client_, "fingerprint " + key.hex(), text, options, cacheDir_);
  if (!compiled.warm) ++cache_->compiles;
  auto executable = std::make_shared<const runtime::Executable>(std::move(compiled.executable));
  return entries.emplace(entry, std::move(executable)).first->second;
}

void Session::track(const runtime::Event& done) {
  // The exit handler must run before the plugin's own exit-time clean-up, which is set
  // up as its code first runs: so it is registered once the first execution is done.
  static std::once_flag registered;
  std::call_once(registered, [&] {
    try {
      done.await();
    } catch (const Error&) {
      // The error reaches whoever reads the results.
    }
    std::atexit([] { session->drain(); });
  });
  std::lock_guard<std::mutex> guard(pendingLock_);
  // One device queue runs executions in order: the finished ones are at the front.
  while (!pending_.empty() && pending_.front().ready()) pending_.pop_front();
  pending_.push_back(done);
}

void Session::drain() {
  std::deque<runtime::Event> waiting;
  {
    std::lock_guard<std::mutex> guard(pendingLock_);
    waiting.swap(pending_);
  }
  for (const runtime::Event& e : waiting) {
    try {
      e.await();
    } catch (const Error&) {
      // Reported to whoever reads the results; at exit nobody will.
    }
  }
}

int64_t Session::compiles() const {
  std::lock_guard<std::mutex> guard(cache_->lock);
  return cache_->compiles;
}

}  // namespace kiln::detail
