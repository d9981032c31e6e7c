// What the files of kiln's client (client.h) share inside: calling PJRT's table through
// a plugin, owning its handles, and reading the types it reports.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/buffer_types.h"
#include "runtime/client.h"

// PJRT's entry `fn` called with `args` through `plugin`, named in its errors.
#define KILN_PJRT(plugin, fn, args) (plugin).call(&PJRT_Api::fn, args, #fn)
#define KILN_EXTENSION(plugin, fn, args) (plugin).call(&KILN_Extension::fn, args, "KILN_" #fn)

namespace kiln::runtime {

// A shared handle destroyed through the table. Destroy functions do not fail on a live
// handle, so their errors are dropped.
template <class Handle, class Args>
std::shared_ptr<Handle> owned(const Plugin& plugin, Handle* handle, PJRT_Error* (*PJRT_Api::*destroy)(Args*),
                              Handle* Args::*field) {
  return std::shared_ptr<Handle>(handle, [plugin, destroy, field](Handle* h) {
    Args args{};
    args.struct_size = sizeof args;
    args.*field = h;
    plugin.destroy((plugin.api().*destroy)(&args));
  });
}

// PJRT's element type for values of `dtype`; throws Unsupported naming `what` for the
// dtypes it has none for.
inline PJRT_Buffer_Type bufferTypeFor(DType dtype, const std::string& what) {
  const PJRT_Buffer_Type type = pjrt::bufferTypeOf(dtype);
  if (type == PJRT_Buffer_Type_INVALID)
    throw Error(ErrorKind::Unsupported, "unsupported: " + what + " of " + std::string(name(dtype)) + " (PJRT has no such type)");
  return type;
}

inline Type typeOf(int type, const int64_t* dims, size_t numDims) {
  if (type == PJRT_Buffer_Type_TOKEN) return Type::token();
  std::optional<DType> dtype = pjrt::dtypeOf(type);
  if (!dtype) throw Error(ErrorKind::Unsupported, "unsupported: the plugin's buffer type " + std::to_string(type));
  return Type::tensor(*dtype, Shape(dims, dims + numDims));
}

inline std::vector<Type> typesOf(size_t count, const PJRT_Buffer_Type* types, const size_t* ranks, const int64_t* dims) {
  std::vector<Type> out;
  for (size_t i = 0; i < count; ++i) {
    out.push_back(typeOf(static_cast<int>(types[i]), dims, ranks[i]));
    dims += ranks[i];
  }
  return out;
}

}  // namespace kiln::runtime
