#include "frontend/session.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "ir/fingerprint.h"
#include "stablehlo/printer.h"
#include "support/atomic_file.h"

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

// The persistent cache of compiled programs: the plugin's serialized executables, one
// file per program fingerprint, entry and plugin version, in $KILN_CACHE_DIR
// ("off": none), else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln (under executables/).
std::string persistentCacheDir() {
  std::string base;
  if (const char* dir = std::getenv("KILN_CACHE_DIR")) {
    if (std::string(dir) == "off") return "";
    base = dir;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    base = std::string(xdg) + "/kiln";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = std::string(home) + "/.cache/kiln";
  } else {
    return "";
  }
  return base + "/executables";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
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
      cacheDir_(persistentCacheDir()) {
  // The plugin's name, version and build (its file's size and time), so that a rebuilt
  // compiler never runs programs an older one compiled.
  std::error_code ec;
  auto size = std::filesystem::file_size(client_.plugin().path(), ec);
  auto time = std::filesystem::last_write_time(client_.plugin().path(), ec).time_since_epoch().count();
  pluginBuild_ = client_.plugin().name() + "-" + client_.plugin().version() + "-" + std::to_string(size) + "-" +
                 std::to_string(time);
  for (char& c : pluginBuild_)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
}

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
  std::string file;
  if (!cacheDir_.empty()) {
    file = cacheDir_ + "/" + key.hex() + "-" + pluginBuild_ + "-" + entry + ".kx";
    std::string bytes = readFile(file);
    if (!bytes.empty()) {
      try {
        auto executable = std::make_shared<const runtime::Executable>(client_.deserialize(bytes));
        return entries.emplace(entry, std::move(executable)).first->second;
      } catch (const Error&) {
        // A stale or damaged entry: compile again and replace it.
      }
    }
  }
  runtime::CompileOptions options;
  options.entry = entry;
  options.name = "<traced program>";
  std::string text = stablehlo::printModule(module);
  // KILN_DUMP_DIR: the traced program (<entry>-<fingerprint>.mlir), and whatever the
  // plugin writes of its compilation (XLA's --xla_dump_to).
  if (const char* dump = std::getenv("KILN_DUMP_DIR")) {
    options.dumpDir = dump;
    writeFileAtomically(std::string(dump) + "/" + entry + "-" + key.hex() + ".mlir", text);
  }
  auto executable = std::make_shared<const runtime::Executable>(client_.compile(text, options));
  ++cache_->compiles;
  if (!file.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(cacheDir_, ec);
    try {
      writeFileAtomically(file, executable->serialize());
    } catch (const Error&) {
      // An unwritable cache costs the next process a compile, nothing more.
    }
  }
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
