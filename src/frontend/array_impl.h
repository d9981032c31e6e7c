// What a kiln::Array is inside: a value on the device (a runtime buffer, possibly still
// being computed), a C scalar not yet on any device, a tracer (a value of a program
// being traced), or a sharded value: its pieces on the devices of a mesh.
#pragma once

#include <memory>
#include <mutex>
#include <optional>

#include "ir/ir.h"
#include "ir/literal.h"
#include "ir/sharding.h"
#include "kiln/array.h"
#include "runtime/client.h"
#include "support/api_errors.h"

namespace kiln::detail {

struct TraceState;

// A sharded array's pieces: one per device of `client` (the mesh's devices, in order),
// laid out as `sharding` says (jit with shardings and device_put make them).
struct Shards {
  std::shared_ptr<const runtime::Client> client;
  Sharding sharding;
  std::vector<runtime::Buffer> pieces;
};

struct ArrayImpl {
  Type type;
  bool weak = false;  // a C scalar: takes the other operand's dtype
  double exact = 0;   // a weak real scalar's C value, before rounding to its default dtype
  // Exactly one of these says where the value is.
  std::optional<Literal> host;            // a scalar from C (uploaded when first needed)
  std::optional<runtime::Buffer> buffer;  // on the device
  std::shared_ptr<TraceState> trace;      // a tracer: `value` in the trace's function
  Value* value = nullptr;
  std::optional<Shards> shards;           // sharded (`buffer` then caches the whole value,
                                          // assembled the first time it is needed)

  // The function whose execution took `buffer` (jit's donate_argnums): the array can no
  // longer be used. Set and read under uploadLock.
  std::string donatedTo;

  std::mutex uploadLock;  // guards making `buffer` from `host` or `shards`
};

// Array <-> impl.
inline ArrayImpl& implOf(const Array& a) {
  if (!a.impl()) throw Error(ErrorKind::Usage, "an empty kiln::Array (default-constructed) was used");
  return *a.impl();
}
Array makeConcrete(runtime::Buffer buffer);
Array makeHostScalar(Literal value, bool weak);
Array makeTracer(const std::shared_ptr<TraceState>& trace, Value* value, bool weak = false);
Array makeSharded(Type type, Shards shards);

// The array's buffer on the device (uploading a host scalar the first time); throws
// Usage for a tracer.
runtime::Buffer deviceBuffer(const Array& a);
// The host copy of a concrete array's value (waiting for it; a sharded one assembled from
// its pieces); throws Usage for a tracer.
Literal hostValue(const Array& a);

// kiln::Dtype <-> the IR's DType.
DType toDType(Dtype dtype);
Dtype fromDType(DType dtype);

}  // namespace kiln::detail
