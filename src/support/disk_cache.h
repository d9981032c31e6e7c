// A persistent cache of compiled code: one file per entry, named by a hash of its key
// (the caller's: everything that decides the bytes). The cpu backend keeps machine code
// there (jit.h: Jit::cacheKey) and whole executables (program_cache.h); the runtime's
// host side keeps plugins' serialized executables (runtime/compilation_cache.h).
//
// Safe when several processes share the folder: an entry is written to a temporary file
// and renamed into place, so a reader sees a whole entry or none. Each entry holds a
// second hash of its key and a checksum of its bytes: a truncated, corrupted or
// colliding entry is a miss (and is replaced), never loaded. A folder that cannot be
// written is a cache that always misses.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kiln {

// KILN_CACHE_DIR when it is set ("" or "off" turn the cache off), else
// $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln; "" when there is no home either.
std::string defaultCacheDir();

class DiskCache {
 public:
  explicit DiskCache(std::string dir) : dir_(std::move(dir)) {}

  // The bytes stored under `key`, or nothing (absent, unreadable or damaged).
  std::optional<std::string> load(std::string_view key) const;
  // Stores `bytes` under `key`, replacing what was there; failures are ignored.
  void store(std::string_view key, std::string_view bytes) const;

  // The file an entry for `key` lives in.
  std::string pathOf(std::string_view key) const;

 private:
  std::string dir_;
};

}  // namespace kiln
