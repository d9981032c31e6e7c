// The persistent cache of machine code (disk_cache.h). An entry: the magic, the key's
// digest, the payload's size and digest, then the payload.
#include "support/disk_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/digest.h"

namespace kiln {
namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'O', 'B', 'J', '1'};
constexpr size_t kHeaderBytes = sizeof kMagic + 16 + 8 + 16;

void put(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
uint64_t get(const std::string& in, size_t at) {
  uint64_t v;
  std::memcpy(&v, in.data() + at, 8);
  return v;
}

}  // namespace

std::string defaultCacheDir() {
  if (const char* dir = std::getenv("KILN_CACHE_DIR")) return std::string(dir) == "off" ? "" : dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/kiln";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/kiln";
  return "";
}

std::string DiskCache::pathOf(std::string_view key) const { return dir_ + "/" + fingerprint(key).hex() + ".entry"; }

std::optional<std::string> DiskCache::load(std::string_view key) const {
  std::ifstream in(pathOf(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string entry = buffer.str();
  if (entry.size() < kHeaderBytes || std::memcmp(entry.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  const Fingerprint k = fingerprint(key);
  if (get(entry, 8) != k.hi || get(entry, 16) != k.lo) return std::nullopt;  // another key's entry
  if (get(entry, 24) != entry.size() - kHeaderBytes) return std::nullopt;     // truncated or grown
  std::string payload = entry.substr(kHeaderBytes);
  const Fingerprint p = fingerprint(payload);
  if (get(entry, 32) != p.hi || get(entry, 40) != p.lo) return std::nullopt;  // damaged
  return payload;
}

void DiskCache::store(std::string_view key, std::string_view bytes) const {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  const Fingerprint k = fingerprint(key), p = fingerprint(bytes);
  std::string entry(kMagic, sizeof kMagic);
  put(entry, k.hi);
  put(entry, k.lo);
  put(entry, bytes.size());
  put(entry, p.hi);
  put(entry, p.lo);
  entry.append(bytes);
  // A name of this process's own, then renamed over the entry: readers see all of it or
  // none, and two writers of one key leave one whole entry.
  const std::string path = pathOf(key);
  const std::string temporary = path + ".tmp" + std::to_string(::getpid()) + "_" +
                                std::to_string(reinterpret_cast<uintptr_t>(&entry));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(entry.data(), static_cast<std::streamsize>(entry.size()));
    if (!out) {
      std::filesystem::remove(temporary, error);
      return;
    }
  }
  std::filesystem::rename(temporary, path, error);
  if (error) std::filesystem::remove(temporary, error);
}

}  // namespace kiln
