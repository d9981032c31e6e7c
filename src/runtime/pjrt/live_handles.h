// The handles a plugin has handed out and not seen destroyed: a destroyed handle (or one
// the plugin never made) passed back is an error object naming it, not a read of freed
// memory, and a second destroy is one too. A freed handle's address may be handed out
// again for a new one, as memory is reused: from then on it is that handle.
#pragma once

#include <cstdint>

#include "kiln/pjrt/c_api.h"

namespace kiln::runtime::pjrt {

enum class HandleKind : uint8_t { Client, Buffer, Event, LoadedExecutable, Executable };

// Records `handle` as live (of `kind`).
void handOut(const void* handle, HandleKind kind);
// Forgets `handle`; false when it was not live (of `kind`).
bool takeBack(const void* handle, HandleKind kind);
bool isLive(const void* handle, HandleKind kind);

template <class T>
constexpr HandleKind kindOf();
template <>
constexpr HandleKind kindOf<PJRT_Client>() { return HandleKind::Client; }
template <>
constexpr HandleKind kindOf<PJRT_Buffer>() { return HandleKind::Buffer; }
template <>
constexpr HandleKind kindOf<PJRT_Event>() { return HandleKind::Event; }
template <>
constexpr HandleKind kindOf<PJRT_LoadedExecutable>() { return HandleKind::LoadedExecutable; }
template <>
constexpr HandleKind kindOf<PJRT_Executable>() { return HandleKind::Executable; }

// `handle`, recorded as live: what a function hands out.
template <class T>
T* handedOut(T* handle) {
  handOut(handle, kindOf<T>());
  return handle;
}

}  // namespace kiln::runtime::pjrt
