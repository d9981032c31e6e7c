// Values in and out of host memory as PJRT passes it (host_memory.h).
#include "runtime/host_memory.h"

#include <cstring>
#include <optional>
#include <string>

#include "runtime/api_call.h"
#include "support/large_bytes.h"

namespace kiln::runtime {

Type tensorType(DType dtype, const int64_t* dims, size_t numDims) {
  if (numDims > 0 && !dims) invalid("dims is null for " + std::to_string(numDims) + " dimensions");
  Shape shape(dims, dims + numDims);
  int64_t bytes = storageBytes(dtype);
  for (int64_t d : shape) {
    if (d < 0) invalid("dimension sizes must be >= 0, got " + std::to_string(d));
    if (__builtin_mul_overflow(bytes, d, &bytes)) invalid("the value's size in bytes overflows 64 bits");
  }
  return Type::tensor(dtype, shape);
}

void requireData(const Type& type, const void* data, const char* what) {
  if (type.byteSize() > 0 && !data)
    invalid(std::string(what) + " is null for " + std::to_string(type.byteSize()) + " bytes");
}

interp::HostValue valueFromHost(const Type& type, const void* data) {
  const auto bytes = static_cast<size_t>(type.byteSize());
  return Literal::fromStorage(type, copiedBytes(static_cast<const uint8_t*>(data), bytes));
}

void copyElements(const interp::HostValue& value, void* dst) {
  if (value.isToken()) return;
  Literal lit = value.tensor();
  // No elements: dst may be null (a splat of an empty shape still stores its one value).
  if (lit.storageSize() == 0 || lit.type().byteSize() == 0) return;
  const uint8_t* src = lit.denseStorage();
  std::memcpy(dst, src, static_cast<size_t>(lit.type().byteSize()));
}

}  // namespace kiln::runtime
