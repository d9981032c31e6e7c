// Warm starts through any plugin: the host keeps the serialized executables a plugin
// hands back (PJRT_Executable_Serialize) in a disk cache, under a key of everything that
// decides them, and the next process deserializes instead of compiling. This is what
// JAX's persistent compilation cache does above PJRT, so a plugin needs no cache of its
// own. The key holds the plugin (name, version, API version, and the file's size and
// modification time, so a rebuilt plugin misses), the compile options and the program.
//
// Only fully optimized executables are stored: a fast or tiered compile reads the
// optimized entry when there is one (it is what those tiers wait for), and otherwise
// compiles as asked and stores nothing. Nothing is read or stored with a dump folder
// (a dump is what compiling writes) or a probe folder (not serialized); a plugin that
// cannot serialize stores nothing. An entry the plugin refuses to deserialize (damaged, from
// another build or CPU) is a miss, and is replaced.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "runtime/client.h"

namespace kiln::runtime {

struct CachedCompile {
  Executable executable;
  bool warm = false;  // deserialized from the cache
};

// Compiles `text` on `client` as `options` say, or takes it from the disk cache in
// `cacheDir` (support/disk_cache.h: defaultCacheDir(); "" for none).
CachedCompile compileCached(const Client& client, std::string_view text, const CompileOptions& options,
                            const std::string& cacheDir);

// The same for a program that `program` identifies (its text, or a fingerprint of what
// the text would be: a traced program is printed only when it must be compiled) and
// `text()` writes.
CachedCompile compileCached(const Client& client, std::string_view program, const std::function<std::string()>& text,
                            const CompileOptions& options, const std::string& cacheDir);

}  // namespace kiln::runtime
