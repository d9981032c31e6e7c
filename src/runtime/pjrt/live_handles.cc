#include "runtime/pjrt/live_handles.h"

#include <mutex>
#include <unordered_map>

namespace kiln::runtime::pjrt {

namespace {

std::mutex mutex;
std::unordered_map<const void*, HandleKind>& live() {
  static auto& handles = *new std::unordered_map<const void*, HandleKind>;  // never destroyed: used until exit
  return handles;
}

}  // namespace

void handOut(const void* handle, HandleKind kind) {
  std::lock_guard<std::mutex> lock(mutex);
  live()[handle] = kind;
}

bool takeBack(const void* handle, HandleKind kind) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = live().find(handle);
  if (it == live().end() || it->second != kind) return false;
  live().erase(it);
  return true;
}

bool isLive(const void* handle, HandleKind kind) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = live().find(handle);
  return it != live().end() && it->second == kind;
}

}  // namespace kiln::runtime::pjrt
