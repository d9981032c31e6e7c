#include "frontend/session.h"

#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "ir/fingerprint.h"
#include "stablehlo/printer.h"

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
  std::unordered_map<std::string, std::shared_ptr<const runtime::Executable>> compiled;
  int64_t compiles = 0;
};

Session::Session(const std::string& plugin)
    : client_(runtime::Plugin::load(plugin)), device_(client_.devices().at(0)), cache_(std::make_unique<Cache>()) {}

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
  std::string key = fingerprint(module).hex() + "@" + entry;
  std::lock_guard<std::mutex> guard(cache_->lock);
  auto it = cache_->compiled.find(key);
  if (it != cache_->compiled.end()) return it->second;
  runtime::CompileOptions options;
  options.entry = entry;
  options.name = "<traced program>";
  auto executable = std::make_shared<const runtime::Executable>(client_.compile(stablehlo::printModule(module), options));
  ++cache_->compiles;
  return cache_->compiled.emplace(key, std::move(executable)).first->second;
}

int64_t Session::compiles() const {
  std::lock_guard<std::mutex> guard(cache_->lock);
  return cache_->compiles;
}

}  // namespace kiln::detail
