// Literal storage and element access.
#include "ir/literal.h"

#include <cstring>

#include "ir/float_format.h"
#include "support/error.h"
#include "support/large_bytes.h"

namespace kiln {

Literal::Literal(Type type) : type_(std::move(type)) {
  if (type_.numElements() < 0) throw Error(ErrorKind::Shape, "a tensor of " + type_.str() + " has a negative size");
  bytes_ = sharedBytes(zeroedBytes(static_cast<size_t>(type_.numElements() * storageBytes(type_.dtype()))));
}

Literal Literal::splat(Type type, const uint8_t* element) {
  Literal lit;
  lit.type_ = std::move(type);
  lit.splat_ = true;
  size_t n = static_cast<size_t>(storageBytes(lit.type_.dtype()));
  lit.bytes_ = std::make_shared<std::vector<uint8_t>>(element, element + n);
  return lit;
}

Literal Literal::fromStorage(Type type, std::vector<uint8_t> bytes) {
  if (static_cast<int64_t>(bytes.size()) != type.byteSize())
    throw Error(ErrorKind::Internal, "literal storage of " + std::to_string(bytes.size()) +
                                         " bytes for " + type.str());
  Literal lit;
  lit.type_ = std::move(type);
  lit.bytes_ = sharedBytes(std::move(bytes));
  return lit;
}

const uint8_t* Literal::denseStorage() {
  if (splat_ && type_.numElements() > 1) return mutableStorage();
  return storage();
}

uint8_t* Literal::mutableStorage() {
  size_t width = static_cast<size_t>(storageBytes(dtype()));
  if (splat_) {
    auto full = sharedBytes(zeroedBytes(static_cast<size_t>(type_.byteSize())));
    for (size_t off = 0; off < full->size(); off += width)
      std::memcpy(full->data() + off, bytes_->data(), width);
    bytes_ = std::move(full);
    splat_ = false;
  } else if (bytes_.use_count() > 1) {
    bytes_ = sharedBytes(copiedBytes(bytes_->data(), bytes_->size()));
  }
  return bytes_->data();
}

uint64_t Literal::bitsAt(int64_t i) const {
  size_t width = static_cast<size_t>(storageBytes(dtype()));
  const uint8_t* p = storage() + (splat_ ? 0 : static_cast<size_t>(i) * width);
  uint64_t bits = 0;
  std::memcpy(&bits, p, std::min<size_t>(width, 8));  // little-endian host
  if (width == 1 && isSignedInt(dtype())) bits &= 0xff;
  return bits;
}

void Literal::setBits(int64_t i, uint64_t bits) {
  size_t width = static_cast<size_t>(storageBytes(dtype()));
  std::memcpy(mutableStorage() + static_cast<size_t>(i) * width, &bits, std::min<size_t>(width, 8));
}

int64_t Literal::intAt(int64_t i) const {
  uint64_t bits = bitsAt(i);
  int width = bitWidth(dtype());
  if (isSignedInt(dtype()) && width < 64) {
    // Storage of narrow signed types holds a sign-extended byte; re-extend from the width.
    uint64_t sign = 1ull << (width - 1);
    bits &= (sign << 1) - 1;
    return static_cast<int64_t>((bits ^ sign) - sign);
  }
  return static_cast<int64_t>(bits);
}

void Literal::setInt(int64_t i, int64_t v) {
  int width = bitWidth(dtype());
  uint64_t bits = static_cast<uint64_t>(v);
  if (width < 64) {
    uint64_t m = (1ull << width) - 1;
    bits &= m;
    // Narrow signed values are kept sign-extended in their storage byte(s).
    if (isSignedInt(dtype()) && (bits >> (width - 1)) & 1) bits |= ~m;
  }
  setBits(i, bits);
}

double Literal::floatAt(int64_t i) const { return bitsToFloat(bitsAt(i), dtype()); }

void Literal::setFloat(int64_t i, double v) { setBits(i, floatToBits(v, dtype())); }

std::complex<double> Literal::complexAt(int64_t i) const {
  const uint8_t* p = storage() + (splat_ ? 0 : static_cast<size_t>(i) * storageBytes(dtype()));
  if (dtype() == DType::C64) {
    float parts[2];
    std::memcpy(parts, p, sizeof parts);
    return {parts[0], parts[1]};
  }
  double parts[2];
  std::memcpy(parts, p, sizeof parts);
  return {parts[0], parts[1]};
}

void Literal::setComplex(int64_t i, std::complex<double> v) {
  uint8_t* p = mutableStorage() + static_cast<size_t>(i) * storageBytes(dtype());
  if (dtype() == DType::C64) {
    float parts[2] = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
    std::memcpy(p, parts, sizeof parts);
  } else {
    double parts[2] = {v.real(), v.imag()};
    std::memcpy(p, parts, sizeof parts);
  }
}

bool Literal::allElementsEqual() const {
  if (splat_ || !bytes_) return true;
  size_t width = static_cast<size_t>(storageBytes(dtype()));
  for (size_t off = width; off < bytes_->size(); off += width)
    if (std::memcmp(bytes_->data(), bytes_->data() + off, width) != 0) return false;
  return true;
}

bool Literal::operator==(const Literal& other) const {
  if (type_ != other.type_) return false;
  if (bytes_ == other.bytes_ && splat_ == other.splat_) return true;
  if (splat_ == other.splat_) return *bytes_ == *other.bytes_;
  const Literal& s = splat_ ? *this : other;
  const Literal& full = splat_ ? other : *this;
  size_t width = static_cast<size_t>(storageBytes(dtype()));
  for (size_t off = 0; off < full.storageSize(); off += width)
    if (std::memcmp(s.storage(), full.storage() + off, width) != 0) return false;
  return true;
}

size_t Literal::hash() const {
  // Hash the first element and the size: cheap, and equal literals hash equally
  // whether stored as splats or not.
  size_t h = type_.hash();
  if (numElements() > 0) h = h * 1000003 ^ std::hash<uint64_t>()(bitsAt(0));
  if (numElements() > 1) h = h * 1000003 ^ std::hash<uint64_t>()(bitsAt(numElements() - 1));
  return h;
}

}  // namespace kiln
