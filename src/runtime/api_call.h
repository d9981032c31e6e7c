// How every C API function of a plugin (PJRT's, and the kiln extension's) handles its
// args struct and its failures, written once: null args and a struct_size of 0 are
// errors; the fields the caller's struct_size does not cover read as zero (an older
// client) and are not written back; nothing thrown inside leaves the call (it becomes an
// error object).
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "runtime/completion.h"

namespace kiln::runtime {

[[noreturn]] inline void invalid(const std::string& message) { throw ApiFailure(FailureCode::InvalidArgument, message); }

// A handle the caller must pass; `what` names the field for the message.
template <class T>
T& need(T* handle, const char* what) {
  if (!handle) invalid(std::string(what) + " is null");
  return *handle;
}

// The value a C caller stored in an enum field, which may be any int: reading the field as
// the C++ enum would be undefined for values outside its enumerators.
template <class E>
std::underlying_type_t<E> rawEnum(const E& field) {
  std::underlying_type_t<E> raw;
  std::memcpy(&raw, &field, sizeof raw);
  return raw;
}

// Which fields of an args struct the caller's struct_size covers.
class Fits {
 public:
  Fits(const void* base, size_t size) : base_(static_cast<const char*>(base)), size_(size) {}
  template <class F>
  bool operator()(const F& field) const {
    return static_cast<size_t>(reinterpret_cast<const char*>(&field) - base_) + sizeof(F) <= size_;
  }
  // Outputs that own something (handles) must fit, or what they own would be lost.
  template <class F>
  void requireOut(const F& field, const char* name) const {
    if (!(*this)(field))
      invalid("struct_size " + std::to_string(size_) + " leaves out the output field '" + name + "'");
  }

 private:
  const char* base_;
  size_t size_;
};

// Runs `body(args, fits)` on a zero-filled copy of the caller's args holding the fields
// it covers, then copies those back (outputs included). Failures of the API's own
// checks (ApiFailure) are prefixed with `fn`; errors from compiling or running carry
// their own position and are not. `makeError` turns a failure into the error object of
// the C API being served.
template <class Args, class Body, class MakeError>
auto guardedCall(const char* fn, Args* args, Body&& body, MakeError&& makeError) -> decltype(makeError(Failure{})) {
  static_assert(std::is_trivially_copyable_v<Args>);
  if (!args) return makeError({FailureCode::InvalidArgument, std::string(fn) + ": the args pointer is null"});
  if (args->struct_size == 0)
    return makeError({FailureCode::InvalidArgument,
                      std::string(fn) + ": struct_size is 0 (set it to the size of the args struct)"});
  const size_t given = std::min(args->struct_size, sizeof(Args));
  Args a;
  std::memset(&a, 0, sizeof a);
  std::memcpy(&a, args, given);
  try {
    body(a, Fits(&a, given));
  } catch (const ApiFailure& e) {
    return makeError({e.failure().code, std::string(fn) + ": " + e.failure().message});
  } catch (...) {
    return makeError(currentFailure());
  }
  std::memcpy(args, &a, given);
  return nullptr;
}

}  // namespace kiln::runtime
