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
std::mutex registryMutex;
std::map<std::string, std::unique_ptr<LoadedPlugin>>& registry() {
  static std::map<std::string, std::unique_ptr<LoadedPlugin>> plugins;
  return plugins;
}

// What capabilities a plugin says it has (none when it cannot say: its error dropped).
std::vector<std::string> capabilitiesOf(const KilnPluginApi& api) {
  if (api.minor_version < 4) return capabilitiesBeforeListing();  // it fills no such field
  KilnPluginAttributesArgs args{};
  args.struct_size = sizeof args;
  std::vector<std::string> names;
  if (KilnError* error = api.plugin_attributes(&args)) {
    KilnErrorDestroyArgs d{sizeof d, error};
    api.error_destroy(&d);
    return names;
  }
  for (size_t i = 0; args.capabilities && i < args.num_capabilities; ++i)
    if (args.capabilities[i]) names.emplace_back(args.capabilities[i]);
  return names;
}

const LoadedPlugin& open(const std::string& name, const std::string& path) {
  std::lock_guard<std::mutex> lock(registryMutex);
  std::unique_ptr<LoadedPlugin>& slot = registry()[path];
  if (slot) return *slot;
  // RTLD_LOCAL: two plugins carry their own copies of kiln, which must not meet.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error(ErrorKind::Io, "cannot load plugin '" + name + "' from " + path + ": " + (why ? why : "unknown error"));
  }
  auto entry = reinterpret_cast<KilnPluginApiFn>(dlsym(handle, KILN_PLUGIN_ENTRY_POINT));
  const KilnPluginApi* api = entry ? entry() : nullptr;
  std::string problem;
  if (!entry) problem = "it does not export " KILN_PLUGIN_ENTRY_POINT "()";
  else if (!api) problem = KILN_PLUGIN_ENTRY_POINT "() returned null";
  else if (api->struct_size < offsetof(KilnPluginApi, minor_version) + sizeof(api->minor_version))
    problem = "its function table is too small to hold a version";
  if (!problem.empty()) {
    dlclose(handle);
    throw Error(ErrorKind::Io, "'" + path + "' is not a kiln plugin: " + problem);
  }
  if (api->major_version != KILN_PLUGIN_API_MAJOR) {
    // The message first: the table is gone once the library is closed.
    Error refused(ErrorKind::Unsupported,
                  "unsupported: plugin '" + name + "' (" + path + ") implements the plugin API version " +
                      std::to_string(api->major_version) + "." + std::to_string(api->minor_version) +
                      ", this host version " + std::to_string(KILN_PLUGIN_API_MAJOR) + "." +
                      std::to_string(KILN_PLUGIN_API_MINOR) + ": their major versions differ");
    dlclose(handle);
    throw refused;
  }
  slot = std::make_unique<LoadedPlugin>(LoadedPlugin{name, path, api, capabilitiesOf(*api)});
  return *slot;
}

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

const LoadedPlugin& loadPlugin(const std::string& name) { return open(name, pluginFile(name)); }

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

const LoadedPlugin& loadPluginFile(const std::string& path) {
  std::string file = fs::path(path).filename().string();
  std::string name = nameInFile(file).empty() ? file : nameInFile(file);
  if (!fs::exists(path)) throw Error(ErrorKind::Usage, "no plugin file " + path);
  return open(name, fs::absolute(path).string());
}

std::vector<std::string> capabilitiesBeforeListing() {
  return {KILN_CAPABILITY_MULTI_DEVICE, KILN_CAPABILITY_SERIALIZE, KILN_CAPABILITY_COST_ANALYSIS,
          KILN_CAPABILITY_MEMORY_STATS};
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
