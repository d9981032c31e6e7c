// What PJRT's executable functions and the kiln extension share (executable_functions.cc):
// loading a program kiln compiled, finding the handles' programs, and executing with
// kiln's controls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ir/type.h"

#include "kiln/pjrt/c_api.h"
#include "runtime/pjrt/pjrt_objects.h"

namespace kiln::runtime {
class Fits;
}

namespace kiln::runtime::pjrt {

// `types` as PJRT lists values' types.
ValueTypes valueTypes(const std::vector<Type>& types);

// A loaded executable over a program kiln made: on the devices of its placement (or the
// client's first ones), or on any device when portable.
PJRT_LoadedExecutable* load(PJRT_Client& client, std::unique_ptr<ExecutableCore> kiln, bool portable);

// A loaded executable from bytes PJRT_Executable_Serialize wrote, with the text it was
// compiled from when the caller has it (null: none).
PJRT_LoadedExecutable* deserialize(PJRT_Client& client, const char* bytes, size_t size, const char* sourceName,
                                   const char* source, size_t sourceSize);

// The handle's program; throws ApiFailure for a null handle (or a deleted executable).
const CompiledProgramHandle& programOf(const PJRT_Executable* executable);
PJRT_LoadedExecutable& loadedOf(PJRT_LoadedExecutable* executable);

// The kiln extension's controls of an execution (KILN_Execute_Args); none by default.
struct ExecuteControl {
  const char* label = nullptr;
  int64_t timeLimitNs = 0;
  void (*print)(void* user, const char* text, size_t size) = nullptr;
  void* printUser = nullptr;
  void (*printRelease)(void* user) = nullptr;
  const size_t* numArgsPerDevice = nullptr;
};

// PJRT_LoadedExecutable_Execute's work on args already checked (guardedCall).
void execute(PJRT_LoadedExecutable_Execute_Args& a, const Fits& fits, const ExecuteControl& control);

}  // namespace kiln::runtime::pjrt
