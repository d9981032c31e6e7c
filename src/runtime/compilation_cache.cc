#include "runtime/compilation_cache.h"

#include <sys/stat.h>

#include <algorithm>
#include <optional>

#include "support/disk_cache.h"

namespace kiln::runtime {
namespace {

// The key of `program` compiled by `plugin` with `options` at `optimization`.
std::string cacheKey(const Plugin& plugin, std::string_view program, const CompileOptions& options,
                     Optimization optimization) {
  std::string key = "kiln compilation cache 1\n";
  auto line = [&](const std::string& field, const std::string& value) {
    key += field + "=" + std::to_string(value.size()) + ":" + value + "\n";
  };
  line("plugin", plugin.name() + " " + plugin.version() + " API " + std::to_string(plugin.majorVersion()) + "." +
                     std::to_string(plugin.minorVersion()));
  struct stat file {};
  if (::stat(plugin.path().c_str(), &file) == 0)
    line("plugin file", plugin.path() + " " + std::to_string(file.st_size) + " " +
                            std::to_string(file.st_mtim.tv_sec) + "." + std::to_string(file.st_mtim.tv_nsec));
  line("optimization", std::to_string(static_cast<int>(optimization)));
  line("entry", options.entry);
  line("replicas", std::to_string(options.replicas) + "x" + std::to_string(options.partitions));
  std::string ids;
  for (int32_t id : options.deviceAssignment) ids += std::to_string(id) + ",";
  line("devices", ids);
  for (const std::string& entry : options.processEntries) line("process entry", entry);
  auto named = options.namedOptions;
  std::sort(named.begin(), named.end());
  for (const auto& [name, value] : named) line("option " + name, value);
  line("program", std::string(program));
  return key;
}

bool cacheable(const Client& client, const CompileOptions& options, const std::string& cacheDir) {
  if (cacheDir.empty() || !options.dumpDir.empty()) return false;
  // (Options a serialized executable does not keep: a profile records its own runs.)
  for (const auto& [name, value] : options.namedOptions)
    if (name == "probe_dir" || name == "profile") return false;
  return true;
}

// `source`: the program's text, when `program` is it (for the errors of a deserialized
// executable); empty when `program` is a fingerprint.
CachedCompile compileOrLoad(const Client& client, std::string_view program, std::string_view source,
                            const std::function<std::string()>& text, const CompileOptions& options,
                            const std::string& cacheDir) {
  if (!cacheable(client, options, cacheDir)) return {client.compile(text(), options), false};
  const DiskCache cache(cacheDir);
  const std::string key = cacheKey(client.plugin(), program, options, Optimization::Full);
  if (std::optional<std::string> bytes = cache.load(key)) {
    try {
      return {client.deserialize(*bytes, options.name, source), true};
    } catch (const Error&) {
      // An entry this plugin cannot use: compiled again below, and replaced.
    }
  }
  Executable executable = client.compile(text(), options);
  const bool optimized = options.optimization == Optimization::Default || options.optimization == Optimization::Full;
  if (optimized) {
    try {
      cache.store(key, executable.serialize());
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Unsupported) throw;  // a plugin that cannot serialize: nothing stored
    }
  }
  return {std::move(executable), false};
}

}  // namespace

CachedCompile compileCached(const Client& client, std::string_view text, const CompileOptions& options,
                            const std::string& cacheDir) {
  return compileOrLoad(client, text, text, [text] { return std::string(text); }, options, cacheDir);
}

CachedCompile compileCached(const Client& client, std::string_view program, const std::function<std::string()>& text,
                            const CompileOptions& options, const std::string& cacheDir) {
  return compileOrLoad(client, program, {}, text, options, cacheDir);
}

}  // namespace kiln::runtime
