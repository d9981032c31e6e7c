// dlopen and the checks a PJRT client makes before it calls into a plugin.
#include "runtime/pjrt_loader.h"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "runtime/plugin_loader.h"
#include "support/error.h"

namespace kiln::runtime {

namespace fs = std::filesystem;

namespace {

std::mutex openedMutex;
std::map<std::string, std::unique_ptr<PjrtPlugin>>& opened() {
  static std::map<std::string, std::unique_ptr<PjrtPlugin>> plugins;
  return plugins;
}

std::string valueText(const PJRT_NamedValue& v) {
  int type;  // as the plugin stored it: any int (reading the enum would be undefined)
  std::memcpy(&type, &v.type, sizeof type);
  switch (type) {
    case PJRT_NamedValue_kString: return std::string(v.string_value, v.value_size);
    case PJRT_NamedValue_kInt64: return std::to_string(v.int64_value);
    case PJRT_NamedValue_kFloat: return std::to_string(v.float_value);
    case PJRT_NamedValue_kBool: return v.bool_value ? "true" : "false";
    case PJRT_NamedValue_kInt64List: {
      std::string list = "[";
      for (size_t i = 0; i < v.value_size; ++i) list += (i ? ", " : "") + std::to_string(v.int64_array_value[i]);
      return list + "]";
    }
  }
  return "?";
}

std::vector<std::pair<std::string, std::string>> attributesOf(const PjrtPlugin& plugin) {
  std::vector<std::pair<std::string, std::string>> attributes;
  if (!plugin.has(&PJRT_Api::PJRT_Plugin_Attributes)) return attributes;
  PJRT_Plugin_Attributes_Args args{};
  args.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE;
  if (PJRT_Error* error = plugin.api->PJRT_Plugin_Attributes(&args))
    throw Error(ErrorKind::Runtime, "plugin '" + plugin.name + "': " + takeError(*plugin.api, error));
  for (size_t i = 0; i < args.num_attributes; ++i) {
    const PJRT_NamedValue& v = args.attributes[i];
    attributes.emplace_back(std::string(v.name, v.name_size), valueText(v));
  }
  return attributes;
}

std::string versionText(int major, int minor) { return std::to_string(major) + "." + std::to_string(minor); }

}  // namespace

std::string takeError(const PJRT_Api& api, PJRT_Error* error) {
  PJRT_Error_Message_Args message{PJRT_Error_Message_Args_STRUCT_SIZE, nullptr, error, nullptr, 0};
  api.PJRT_Error_Message(&message);
  std::string text(message.message ? message.message : "", message.message ? message.message_size : 0);
  PJRT_Error_Destroy_Args destroy{PJRT_Error_Destroy_Args_STRUCT_SIZE, nullptr, error};
  api.PJRT_Error_Destroy(&destroy);
  return text;
}

const PjrtPlugin& loadPjrtPlugin(const std::string& nameOrPath) {
  const bool isPath = nameOrPath.find('/') != std::string::npos || nameOrPath.ends_with(".so");
  if (isPath && !fs::exists(nameOrPath)) throw Error(ErrorKind::Usage, "no plugin file " + nameOrPath);
  const std::string path = isPath ? fs::absolute(nameOrPath).string() : pluginFile(nameOrPath);
  const std::string name = isPath ? fs::path(nameOrPath).filename().string() : nameOrPath;
  std::lock_guard<std::mutex> lock(openedMutex);
  std::unique_ptr<PjrtPlugin>& slot = opened()[path];
  if (slot) return *slot;
  // RTLD_LOCAL: each plugin keeps its own copies of what it links (kiln's plugins, kiln).
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error(ErrorKind::Io, "cannot load plugin '" + name + "' from " + path + ": " + (why ? why : "unknown error"));
  }
  auto entry = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(handle, "GetPjrtApi"));
  const PJRT_Api* api = entry ? entry() : nullptr;
  std::string problem;
  if (!entry) problem = "it does not export GetPjrtApi()";
  else if (!api) problem = "GetPjrtApi() returned null";
  else if (api->struct_size < offsetof(PJRT_Api, pjrt_api_version) + sizeof(PJRT_Api_Version))
    problem = "its PJRT_Api (" + std::to_string(api->struct_size) + " bytes) is too small to hold a version";
  if (!problem.empty()) {
    dlclose(handle);
    throw Error(ErrorKind::Io, "'" + path + "' is not a PJRT plugin: " + problem);
  }
  const int major = api->pjrt_api_version.major_version, minor = api->pjrt_api_version.minor_version;
  if (major != PJRT_API_MAJOR) {
    // The message first: the table is gone once the library is closed.
    Error refused(ErrorKind::Unsupported, "unsupported: plugin '" + name + "' (" + path +
                                              ") implements PJRT C API " + versionText(major, minor) + ", kiln " +
                                              versionText(PJRT_API_MAJOR, PJRT_API_MINOR) +
                                              ": their major versions differ");
    dlclose(handle);
    throw refused;
  }
  auto plugin = std::make_unique<PjrtPlugin>(PjrtPlugin{name, path, api, minor, {}});
  if (!plugin->has(&PJRT_Api::PJRT_Error_Destroy) || !plugin->has(&PJRT_Api::PJRT_Error_Message))
    throw Error(ErrorKind::Io, "'" + path + "' is not a PJRT plugin: its table has no error functions");
  if (plugin->has(&PJRT_Api::PJRT_Plugin_Initialize)) {
    PJRT_Plugin_Initialize_Args init{PJRT_Plugin_Initialize_Args_STRUCT_SIZE, nullptr};
    if (PJRT_Error* error = api->PJRT_Plugin_Initialize(&init))
      throw Error(ErrorKind::Runtime, "plugin '" + name + "' failed to initialize: " + takeError(*api, error));
  }
  plugin->attributes = attributesOf(*plugin);
  slot = std::move(plugin);
  return *slot;
}

}  // namespace kiln::runtime
