// Where internal code meets the public C++ API: kiln::Error (kind + location) becomes the
// public kiln::ApiError (kind name + the full diagnostic), so that no internal type
// escapes through include/kiln/.
#pragma once

#include <new>

#include "kiln/error.h"
#include "support/error.h"

namespace kiln {

// Runs `f`, giving every kiln::Error the public form.
template <class F>
auto translated(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const ApiError&) {
    throw;
  } catch (const Error& e) {
    throw ApiError(errorKindName(e.kind()), e.format());
  } catch (const std::bad_alloc&) {
    throw ApiError("runtime", "error: out of memory (an array larger than the memory this process can take)");
  }
}

}  // namespace kiln
