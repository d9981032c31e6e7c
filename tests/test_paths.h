// Where the tests find ../shared (the public suites), which is not part of the repo.
#pragma once

#include <filesystem>
#include <string>

namespace kiln::testing {

// The shared folder: $KILN_SHARED, else ../shared beside the checkout. Empty if absent.
inline std::filesystem::path sharedDir() {
  if (const char* env = std::getenv("KILN_SHARED")) return env;
  std::filesystem::path p = std::filesystem::path(KILN_SOURCE_DIR) / ".." / "shared";
  return std::filesystem::exists(p) ? std::filesystem::canonical(p) : std::filesystem::path();
}

}  // namespace kiln::testing
