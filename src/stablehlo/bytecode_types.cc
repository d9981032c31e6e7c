// VHLO's type encodings (bytecode_types.h); the codes are VhloBytecode.cpp's TypeCode,
// which StableHLO never renumbers.
#include "stablehlo/bytecode_types.h"

#include <optional>
#include <utility>

#include "support/error.h"

namespace kiln::stablehlo::bytecode {

namespace {

// VHLO's codes of the element types kiln has.
std::optional<DType> elementOf(uint64_t code) {
  switch (code) {
    case 0: return DType::I1;
    case 2: return DType::BF16;
    case 3: return DType::F16;
    case 4: return DType::F32;
    case 5: return DType::F64;
    case 6: return DType::F8E4M3FN;
    case 7: return DType::F8E5M2;
    case 10: return DType::I4;
    case 11: return DType::I8;
    case 12: return DType::I16;
    case 13: return DType::I32;
    case 14: return DType::I64;
    case 15: return DType::U4;
    case 16: return DType::U8;
    case 17: return DType::U16;
    case 18: return DType::U32;
    case 19: return DType::U64;
    case 27: return DType::F8E4M3FNUZ;
    case 28: return DType::F8E5M2FNUZ;
    case 29: return DType::F8E4M3B11FNUZ;
    case 31: return DType::I2;
    case 32: return DType::U2;
    case 34: return DType::TF32;
    case 35: return DType::F8E4M3;
    case 36: return DType::F8E3M4;
    case 37: return DType::F4E2M1FN;
    case 38: return DType::F6E2M3FN;
    case 39: return DType::F6E3M2FN;
    case 40: return DType::F8E8M0FNU;
  }
  return std::nullopt;
}

// The builtin dialect's integer type: a width and a signedness (0 signless, 1 signed,
// 2 unsigned), as kiln's integer element types.
std::optional<DType> builtinInteger(uint64_t widthAndSignedness) {
  const uint64_t width = widthAndSignedness >> 2, signedness = widthAndSignedness & 3;
  if (width == 1 && signedness == 0) return DType::I1;
  static const std::pair<uint64_t, std::pair<DType, DType>> kWidths[] = {
      {2, {DType::I2, DType::U2}},    {4, {DType::I4, DType::U4}},    {8, {DType::I8, DType::U8}},
      {16, {DType::I16, DType::U16}}, {32, {DType::I32, DType::U32}}, {64, {DType::I64, DType::U64}}};
  for (const auto& [w, dtypes] : kWidths)
    if (w == width) return signedness == 2 ? dtypes.second : dtypes.first;
  return std::nullopt;
}

const char* unsupportedName(uint64_t code) {
  switch (code) {
    case 24: return "a uniform quantized type";
    case 25: return "an unranked tensor";
    case 26: return "!shape.witness";
    case 30: return "a per-axis quantized type";
    case 41: return "a ranked buffer";
  }
  return nullptr;
}

}  // namespace

struct TypeTable::State {
  const Container& container;
  const std::string name;
  std::vector<std::optional<DecodedType>> decoded;
  std::vector<bool> decoding;  // on the stack now: a cycle
};

TypeTable::TypeTable(const Container& container, const std::string& name)
    : state_(std::make_unique<State>(State{container, name, {}, {}})) {
  state_->decoded.resize(container.types.size());
  state_->decoding.resize(container.types.size(), false);
}

TypeTable::~TypeTable() = default;

size_t TypeTable::size() const { return state_->decoded.size(); }

const DecodedType& TypeTable::at(uint64_t index) {
  State& s = *state_;
  if (index >= s.decoded.size())
    throw Error(ErrorKind::Parse, s.name + ": type " + std::to_string(index) + " of " +
                                      std::to_string(s.decoded.size()));
  if (s.decoded[index]) return *s.decoded[index];
  const Entry& entry = s.container.types[index];
  ByteReader r(entry.bytes, entry.offset, s.name);
  if (s.decoding[index]) r.fail("type " + std::to_string(index) + " refers to itself");
  s.decoding[index] = true;
  const std::string& dialect = s.container.dialects[entry.dialect].name;
  DecodedType t;
  auto values = [&](const char* what) {
    std::vector<Type> list;
    const uint64_t count = r.varint(what);
    if (count > entry.bytes.size()) r.fail(std::string(what) + ": " + std::to_string(count) + " of them");
    for (uint64_t i = 0; i < count; ++i) list.push_back(valueType(r.varint(what), what));
    return list;
  };
  // A ranked tensor's shape (a count, then signed sizes; a negative one is dynamic) and
  // element type.
  auto rankedTensor = [&] {
    const uint64_t rank = r.varint("a tensor type's rank");
    if (rank > entry.bytes.size()) r.fail("a tensor type of rank " + std::to_string(rank));
    Shape shape;
    for (uint64_t i = 0; i < rank; ++i) {
      const int64_t size = r.signedVarint("a tensor dimension");
      if (size < 0) {
        t.unsupported = "a tensor of dynamic shape";
        return;
      }
      shape.push_back(size);
    }
    const DecodedType& element = at(r.varint("a tensor type's element type"));
    if (element.kind != DecodedType::Kind::Element) r.fail("a tensor of other than an element type");
    t.kind = DecodedType::Kind::Value;
    t.value = Type::tensor(element.element, std::move(shape));
  };
  auto element = [&](DType dtype) {
    t.kind = DecodedType::Kind::Element;
    t.element = dtype;
  };
  auto complex = [&] {
    const DecodedType& part = at(r.varint("a complex type's element"));
    if (part.kind != DecodedType::Kind::Element || (part.element != DType::F32 && part.element != DType::F64))
      r.fail("a complex type of other than f32 or f64");
    element(part.element == DType::F32 ? DType::C64 : DType::C128);
  };
  if (!entry.custom) {
    t.unsupported = std::string(r.nulTerminated("a type's text"));
  } else if (dialect == "builtin") {
    // The builtin dialect's codes (MLIR's BuiltinDialectBytecode.td, in order).
    const uint64_t code = r.varint("a builtin type code");
    if (code == 0) {
      const uint64_t widthAndSignedness = r.varint("an integer type");
      if (std::optional<DType> dtype = builtinInteger(widthAndSignedness)) element(*dtype);
      else t.unsupported = "an integer of " + std::to_string(widthAndSignedness >> 2) + " bits";
    } else if (code == 2) {
      t.kind = DecodedType::Kind::Function;
      t.inputs = values("a function type's inputs");
      t.results = values("a function type's results");
    } else if (code >= 3 && code <= 6) {
      static const DType kFloats[] = {DType::BF16, DType::F16, DType::F32, DType::F64};
      element(kFloats[code - 3]);
    } else if (code == 9) {
      complex();
    } else if (code == 13 || code == 14) {
      if (code == 14) r.varint("a tensor type's encoding");
      rankedTensor();
    } else if (code == 15) {
      t.kind = DecodedType::Kind::Value;
      t.value = Type::tuple(values("a tuple type's elements"));
    } else {
      t.unsupported = "builtin type " + std::to_string(code) + " (index, f80, f128, memrefs, none, vectors...)";
    }
  } else if (dialect != "vhlo") {
    t.unsupported = "a type of dialect " + dialect;
  } else {
    const uint64_t code = r.varint("a VHLO type code");
    if (std::optional<DType> dtype = elementOf(code)) {
      element(*dtype);
    } else if (code == 1) {
      complex();
    } else if (code == 8) {  // function
      t.kind = DecodedType::Kind::Function;
      t.inputs = values("a function type's inputs");
      t.results = values("a function type's results");
    } else if (code == 20 || code == 21) {  // ranked tensor (21: with an encoding, the bounds)
      if (code == 21) r.varint("a tensor type's encoding");
      rankedTensor();
    } else if (code == 9) {  // index: only in attributes (custom_call layouts), read as i64 as the text parser does
      element(DType::I64);
    } else if (code == 33) {  // none: the absent parts of a dot_general's algorithm
      t.kind = DecodedType::Kind::None;
    } else if (code == 22) {
      t.kind = DecodedType::Kind::Value;
      t.value = Type::token();
    } else if (code == 23) {
      t.kind = DecodedType::Kind::Value;
      t.value = Type::tuple(values("a tuple type's elements"));
    } else if (const char* what = unsupportedName(code)) {
      t.unsupported = what;
    } else {
      r.fail("VHLO type code " + std::to_string(code) + ", which StableHLO does not have");
    }
  }
  s.decoding[index] = false;
  s.decoded[index] = std::move(t);
  return *s.decoded[index];
}

Type TypeTable::valueType(uint64_t index, const std::string& what) {
  const DecodedType& t = at(index);
  switch (t.kind) {
    case DecodedType::Kind::Value: return t.value;
    case DecodedType::Kind::Element: return Type::scalar(t.element);
    case DecodedType::Kind::Function:
      throw Error(ErrorKind::Parse, state_->name + ": " + what + " is a function type");
    case DecodedType::Kind::None:
    case DecodedType::Kind::Unsupported: break;
  }
  throw Error(ErrorKind::Unsupported, "unsupported: " + what + " of type " + (t.kind == DecodedType::Kind::None ? "none" : t.unsupported) + " (" + state_->name + ")");
}

}  // namespace kiln::stablehlo::bytecode
