// The persistent cache of machine code: one file per compiled LLVM module, named by a
// hash of everything that decides its code (jit.h: Jit::cacheKey — the module's IR,
// the host CPU and its features, LLVM's version and options, kiln's build), so a second
// process with the same kernels skips LLVM's optimization and code generation. The
// kernels are still emitted (that is how the key is known, and it takes a millisecond);
// only their compilation is skipped.
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

namespace kiln::cpu {

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

}  // namespace kiln::cpu
