// kiln::Array's own members: making arrays from host values, reading them back, and
// describing them.
#include <array>
#include <sstream>

#include "frontend/array_impl.h"
#include "frontend/broadcasting.h"
#include "frontend/session.h"
#include "frontend/trace.h"
#include "interp/array_print.h"
#include "ir/sharded_literal.h"
#include "kiln/numpy.h"
#include "stablehlo/npy.h"
#include "support/atomic_file.h"

namespace kiln {

namespace detail {

namespace {

struct DtypePair {
  Dtype dtype;
  DType ir;
  const char* name;
};
constexpr std::array<DtypePair, 15> kDtypes{{
    {Dtype::Bool, DType::I1, "bool"},         {Dtype::Int8, DType::I8, "int8"},
    {Dtype::Int16, DType::I16, "int16"},      {Dtype::Int32, DType::I32, "int32"},
    {Dtype::Int64, DType::I64, "int64"},      {Dtype::UInt8, DType::U8, "uint8"},
    {Dtype::UInt16, DType::U16, "uint16"},    {Dtype::UInt32, DType::U32, "uint32"},
    {Dtype::UInt64, DType::U64, "uint64"},    {Dtype::BFloat16, DType::BF16, "bfloat16"},
    {Dtype::Float16, DType::F16, "float16"},  {Dtype::Float32, DType::F32, "float32"},
    {Dtype::Float64, DType::F64, "float64"},  {Dtype::Complex64, DType::C64, "complex64"},
    {Dtype::Complex128, DType::C128, "complex128"},
}};

}  // namespace

DType toDType(Dtype dtype) { return kDtypes.at(static_cast<size_t>(dtype)).ir; }

Dtype fromDType(DType dtype) {
  for (const DtypePair& p : kDtypes)
    if (p.ir == dtype) return p.dtype;
  throw Error(ErrorKind::Unsupported, "unsupported: arrays of " + std::string(name(dtype)) + " in the frontend");
}

Array makeConcrete(runtime::Buffer buffer) {
  auto impl = std::make_shared<ArrayImpl>();
  impl->type = buffer.type();
  impl->buffer = std::move(buffer);
  return Array(std::move(impl));
}

Array makeSharded(Type type, Shards shards) {
  auto impl = std::make_shared<ArrayImpl>();
  impl->type = std::move(type);
  impl->shards = std::move(shards);
  return Array(std::move(impl));
}

Array makeHostScalar(Literal value, bool weak) {
  auto impl = std::make_shared<ArrayImpl>();
  impl->type = value.type();
  impl->weak = weak;
  impl->host = std::move(value);
  return Array(std::move(impl));
}

Array makeTracer(const std::shared_ptr<TraceState>& trace, Value* value, bool weak) {
  auto impl = std::make_shared<ArrayImpl>();
  impl->type = value->type();
  impl->weak = weak;
  impl->trace = trace;
  impl->value = value;
  return Array(std::move(impl));
}

runtime::Buffer deviceBuffer(const Array& a) {
  ArrayImpl& impl = implOf(a);
  if (impl.trace && !impl.trace->alive) throw leakedTracerError(impl);
  if (impl.trace)
    throw Error(ErrorKind::Usage, "the value of a tracer (" + impl.type.str() + ", traced by " + impl.trace->name +
                                      ") is not known while tracing: a traced function cannot read its "
                                      "arguments' values (use where() or the lax control flow instead of C++ "
                                      "branches on them)");
  if (impl.shards) {
    {
      std::lock_guard<std::mutex> guard(impl.uploadLock);
      if (impl.buffer) return *impl.buffer;
    }
    runtime::Buffer whole = Session::get().upload(hostValue(a));
    std::lock_guard<std::mutex> guard(impl.uploadLock);
    if (!impl.buffer) impl.buffer = std::move(whole);
    return *impl.buffer;
  }
  std::lock_guard<std::mutex> guard(impl.uploadLock);
  if (!impl.donatedTo.empty())
    throw Error(ErrorKind::Usage, "this array (" + impl.type.str() + ") was donated to " + impl.donatedTo +
                                      " (donate_argnums) and can no longer be used: use what the function returned");
  if (!impl.buffer) impl.buffer = Session::get().upload(*impl.host);
  return *impl.buffer;
}

Literal hostValue(const Array& a) {
  ArrayImpl& impl = implOf(a);
  if (impl.host) return *impl.host;
  if (impl.shards) {
    std::vector<Literal> pieces;
    for (const runtime::Buffer& piece : impl.shards->pieces) pieces.push_back(piece.toLiteral());
    return assembleShards(pieces, impl.shards->sharding, impl.type);
  }
  return deviceBuffer(a).toLiteral();
}

}  // namespace detail

using namespace detail;

std::string dtype_name(Dtype dtype) { return kDtypes.at(static_cast<size_t>(dtype)).name; }
bool is_floating(Dtype dtype) { return kiln::isFloat(toDType(dtype)); }
bool is_complex(Dtype dtype) { return kiln::isComplex(toDType(dtype)); }
bool is_integer(Dtype dtype) { return kiln::isInteger(toDType(dtype)); }

Array Array::boolScalar(bool value) {
  Literal l(Type::scalar(DType::I1));
  l.setInt(0, value ? 1 : 0);
  return makeHostScalar(std::move(l), false);
}

Array Array::intScalar(int64_t value) {
  Literal l(Type::scalar(DType::I32));
  l.setInt(0, value);
  Array a = makeHostScalar(std::move(l), true);
  a.impl_->exact = static_cast<double>(value);
  return a;
}

Array Array::floatScalar(double value) {
  Literal l(Type::scalar(DType::F32));
  l.setFloat(0, value);
  Array a = makeHostScalar(std::move(l), true);
  a.impl_->exact = value;
  return a;
}

Array::Array(std::complex<double> value) {
  Literal l(Type::scalar(DType::C64));
  l.setComplex(0, value);
  *this = makeHostScalar(std::move(l), true);
}

Array Array::from_bytes(Dtype dtype, const std::vector<int64_t>& shape, const void* data, size_t bytes) {
  return translated([&] {
    Type type = Type::tensor(toDType(dtype), shape);
    for (int64_t d : shape)
      if (d < 0) throw Error(ErrorKind::Shape, "from_vector: negative dimension in " + type.str());
    if (static_cast<int64_t>(bytes) != type.byteSize())
      throw Error(ErrorKind::Shape, "from_vector: " + std::to_string(bytes / std::max(1, storageBytes(type.dtype()))) +
                                        " values for " + type.str() + " (" + std::to_string(type.numElements()) +
                                        " elements)");
    std::vector<uint8_t> storage(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
    return makeConcrete(Session::get().upload(Literal::fromStorage(type, std::move(storage))));
  });
}

Dtype Array::dtype() const {
  return translated([&] { return fromDType(implOf(*this).type.dtype()); });
}
const std::vector<int64_t>& Array::shape() const {
  return translated([&]() -> const std::vector<int64_t>& { return implOf(*this).type.shape(); });
}
int64_t Array::size() const {
  return translated([&] { return implOf(*this).type.numElements(); });
}
int64_t Array::dim(int64_t axis) const {
  return translated([&] { return shape()[static_cast<size_t>(normalizedAxis(axis, ndim(), "dim"))]; });
}
bool Array::weak() const {
  return translated([&] { return implOf(*this).weak; });
}
bool Array::is_tracer() const {
  return translated([&] { return implOf(*this).trace != nullptr; });
}

const Array& Array::block_until_ready() const {
  translated([&] {
    const ArrayImpl& impl = implOf(*this);
    if (impl.shards) {
      for (const runtime::Buffer& piece : impl.shards->pieces) piece.readyEvent().await();
    } else if (!impl.host) {
      deviceBuffer(*this).readyEvent().await();
    }
  });
  return *this;
}

namespace {

// The elements of `a` as T: floats and complex numbers (their real parts) through
// double, integers and bools exactly.
template <class T>
std::vector<T> elementsAs(const Array& a) {
  return translated([&] {
    Literal l = hostValue(a);
    DType t = l.dtype();
    std::vector<T> out(static_cast<size_t>(l.numElements()));
    for (int64_t i = 0; i < l.numElements(); ++i)
      out[static_cast<size_t>(i)] = kiln::isFloat(t)     ? static_cast<T>(l.floatAt(i))
                                    : kiln::isComplex(t) ? static_cast<T>(l.complexAt(i).real())
                                    : isUnsignedInt(t)   ? static_cast<T>(l.uintAt(i))
                                                         : static_cast<T>(l.intAt(i));
    return out;
  });
}

}  // namespace

std::vector<double> Array::to_doubles() const { return elementsAs<double>(*this); }
std::vector<int64_t> Array::to_ints() const { return elementsAs<int64_t>(*this); }

std::vector<uint8_t> Array::bytes() const {
  return translated([&] {
    Literal l = hostValue(*this);
    const uint8_t* p = l.denseStorage();
    return std::vector<uint8_t>(p, p + l.type().byteSize());
  });
}

std::string Array::type_string() const {
  return translated([&] {
    const Type& t = implOf(*this).type;
    std::string s(name(t.dtype()));
    s += "[";
    for (size_t i = 0; i < t.shape().size(); ++i) s += (i ? "," : "") + std::to_string(t.shape()[i]);
    return s + "]";
  });
}

std::string Array::str() const {
  return translated([&] {
    if (implOf(*this).trace) return "Traced<" + type_string() + ">";
    return interp::formatArray(hostValue(*this));
  });
}

std::ostream& operator<<(std::ostream& out, const Array& a) { return out << a.str(); }

Array Array::astype(Dtype dtype) const { return kiln::astype(*this, dtype); }
Array Array::reshape(const std::vector<int64_t>& shape) const { return kiln::reshape(*this, shape); }
Array Array::T() const { return kiln::transpose(*this); }

void save(const std::string& path, const Array& a) {
  translated([&] { writeFileAtomically(path, stablehlo::serializeNpy(hostValue(a))); });
}

Array load(const std::string& path) {
  return translated([&] { return makeConcrete(Session::get().upload(stablehlo::readNpy(path))); });
}

void set_backend(const std::string& plugin) {
  translated([&] { setSessionBackend(plugin); });
}
std::string backend() { return sessionBackend(); }
int64_t compile_count() {
  return translated([&] { return Session::get().compiles(); });
}

}  // namespace kiln
