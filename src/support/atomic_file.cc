#include "support/atomic_file.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "support/error.h"

namespace kiln {

void writeFileAtomically(const std::string& path, std::string_view bytes) {
  // Unique per process and call, so concurrent writers of one path do not collide.
  static std::atomic<unsigned> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(ErrorKind::Io, "cannot write '" + path + "': " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  std::error_code ec;
  if (ok) std::filesystem::rename(tmp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(ErrorKind::Io, "cannot write '" + path + "'" + (ok ? ": " + ec.message() : std::string()));
  }
}

}  // namespace kiln
