// Plugin discovery and dlopen, with the version check every host must make.
#include "runtime/plugin_loader.h"

#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "support/error.h"

namespace kiln::runtime {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "libkiln_plugin_", kSuffix = ".so";

std::string fileNameOf(const std::string& name) { return std::string(kPrefix) + name + std::string(kSuffix); }

// The plugin name in a file name (libkiln_plugin_cpu.so: cpu); empty when it is none.
std::string nameInFile(const std::string& file) {
  if (file.size() <= kPrefix.size() + kSuffix.size() || !file.starts_with(kPrefix) || !file.ends_with(kSuffix))
    return "";
  return file.substr(kPrefix.size(), file.size() - kPrefix.size() - kSuffix.size());
}

// The folder of the file this code was linked into: a shared library of kiln, or else
// the program (whose name dladdr reports as it was started, so /proc/self/exe is asked).
fs::path ownFolder() {
  std::error_code error;
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&ownFolder), &info) && info.dli_fname &&
      std::string_view(info.dli_fname).find(".so") != std::string_view::npos) {
    fs::path p = fs::canonical(info.dli_fname, error);
    if (!error) return p.parent_path();
  }
  fs::path exe = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path() : exe.parent_path();
}

// Opened plugins by path, so that each file is opened (and checked) once.
}  // namespace

std::vector<std::string> pluginSearchPath() {
  std::vector<std::string> folders;
  if (const char* env = std::getenv("KILN_PLUGIN_PATH")) {
    std::string list = env;
    for (size_t start = 0; start <= list.size();) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) folders.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  fs::path own = ownFolder();
  if (!own.empty()) {
    folders.push_back((own.parent_path() / "lib").string());
    folders.push_back(own.string());
  }
  return folders;
}

std::string pluginFile(const std::string& name) {
  std::vector<std::string> folders = pluginSearchPath();
  for (const std::string& folder : folders) {
    fs::path candidate = fs::path(folder) / fileNameOf(name);
    if (fs::exists(candidate)) return candidate.string();
  }
  std::string looked, available;
  for (const std::string& folder : folders) looked += (looked.empty() ? "" : ", ") + folder;
  for (const std::string& found : findPlugins()) available += (available.empty() ? "" : ", ") + found;
  throw Error(ErrorKind::Usage, "no plugin '" + name + "' (available: " + (available.empty() ? "none" : available) +
                                    "): looked for " + fileNameOf(name) + " in " +
                                    (looked.empty() ? std::string("no folder") : looked) +
                                    " (add its folder to KILN_PLUGIN_PATH)");
}

std::vector<std::string> findPlugins() {
  std::set<std::string> names;
  for (const std::string& folder : pluginSearchPath()) {
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
      std::string name = nameInFile(entry.path().filename().string());
      if (!name.empty()) names.insert(name);
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace kiln::runtime
