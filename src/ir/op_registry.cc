// The op registry: the rows of the tables of ir/ops/ (in the vocabulary below) and the
// composite ops, looked up by opcode and by name. The pretty-form syntax strings use the
// format language documented in stablehlo/op_syntax.h.
#include "ir/op_registry.h"

#include <cmath>
#include <unordered_map>

#include "ir/batch_norm_decompositions.h"
#include "ir/chlo_decompositions.h"
#include "ir/composite_ops.h"
#include "ir/float_format.h"
#include "ir/ops/kiln.h"
#include "ir/region_decompositions.h"
#include "ir/stablehlo_decompositions.h"
#include "support/error.h"

namespace kiln {
namespace {

using A = AttrKind;
using C = OpCategory;

constexpr Arity exactly(int n) { return {n, n}; }
constexpr Arity atLeast(int n) { return {n, -1}; }

// ---- attribute specs ----
AttrSpec req(std::string_view name, AttrKind kind, std::string_view type = {}) {
  return {name, kind, type, DType::I64, true, {}};
}
AttrSpec opt(std::string_view name, AttrKind kind, std::string_view type = {}) {
  return {name, kind, type, DType::I64, false, {}};
}
AttrSpec reqFloat(std::string_view name, DType t) { return {name, A::Float, {}, t, true, {}}; }
AttrSpec reqInt(std::string_view name, DType t = DType::I64) {
  return {name, A::Int, {}, t, true, {}};
}
AttrSpec intOr(std::string_view name, int64_t dflt, DType t = DType::I64) {
  return {name, A::Int, {}, t, false, Attribute::integer(dflt, t)};
}
AttrSpec boolOr(std::string_view name, bool dflt) {
  return {name, A::Bool, {}, DType::I1, false, Attribute::boolean(dflt)};
}
AttrSpec floatOr(std::string_view name, double dflt, DType t) {
  return {name, A::Float, {}, t, false, Attribute::floating(dflt, t)};
}
AttrSpec stringOr(std::string_view name, std::string dflt) {
  return {name, A::String, {}, DType::I64, false, Attribute::string(std::move(dflt))};
}
AttrSpec precision(std::string_view dialect = "stablehlo") {
  return opt("precision_config", A::EnumArray,
             dialect == "chlo" ? "chlo.precision" : "stablehlo.precision");
}
AttrSpec resultAccuracy() { return opt("result_accuracy", A::Record, "stablehlo.result_accuracy"); }
AttrSpec channelHandle(bool required = false) {
  return {"channel_handle", A::Record, "stablehlo.channel_handle", DType::I64, required, {}};
}
AttrSpec replicaGroups() { return req("replica_groups", A::DenseI64); }
AttrSpec globalIds() { return opt("use_global_device_ids", A::Unit); }

// ---- syntax strings shared by families ----
constexpr std::string_view kSame = "operands attr-dict : type(same)";
constexpr std::string_view kFn = "operands attr-dict : type(fn)";
constexpr std::string_view kArrow = "operands attr-dict : type(arrow)";
constexpr std::string_view kReturn = "operands attr-dict [[ : type(operands) ]]";

// ---- the row vocabulary of the tables: a kind of op, then what differs from it ----
struct Row {
  OpInfo info;
  Row& attrs(std::vector<AttrSpec> specs) {
    info.attrs = std::move(specs);
    return *this;
  }
  Row& regions(Arity n) {
    info.regions = n;
    return *this;
  }
  Row& traits(uint32_t more) {
    info.traits |= more;
    return *this;
  }
  Row& elements(ElementClass e) {
    info.elements = e;
    return *this;
  }
  Row& fusion(FusionRole role) {
    info.fusion = role;
    return *this;
  }
  Row& identity(Identity i) {
    info.identity = i;
    return *this;
  }
  Row& decomposition(std::string_view prose) {
    info.decomposition = prose;
    return *this;
  }
  Row& decompose(DecomposeFn fn) {
    info.decompose = fn;
    return *this;
  }
  Row& vhlo(std::string_view name, std::string_view attrs = {}) {
    info.vhlo = name;
    info.vhloAttrs = attrs;
    return *this;
  }
};

Row op(C category, Arity operands, Arity results, std::string_view syntax = {},
       uint32_t traits = kNoTraits) {
  Row row;
  row.info.category = category;
  row.info.operands = operands;
  row.info.results = results;
  row.info.regions = exactly(0);
  row.info.syntax = syntax;
  row.info.traits = traits;
  if (traits & kElementwise) row.info.fusion = FusionRole::Loop;
  // Every CHLO function costs many operations once decomposed.
  if (category == C::Chlo) row.info.traits |= kExpensive;
  return row;
}
Row unary(uint32_t traits = kNoTraits) {
  return op(C::ElementwiseUnary, exactly(1), exactly(1), kSame, traits | kElementwise);
}
// Transcendental unary functions: floating-point or complex, costly, not correctly rounded
// (so executors differ in the last bits), with an optional result_accuracy.
Row math() {
  return unary(kExpensive | kRoundsFreely)
      .elements(ElementClass::FloatOrComplex)
      .attrs({resultAccuracy()});
}
Row binary(uint32_t traits = kNoTraits) {
  return op(C::ElementwiseBinary, exactly(2), exactly(1), kSame, traits | kElementwise);
}
// A CHLO elementwise op of one operand, and how it lowers (`prose`).
Row chloUnary(std::string_view prose) {
  return op(C::Chlo, exactly(1), exactly(1), kArrow, kElementwise).decomposition(prose);
}
// The same for a transcendental function (its decomposition rounds freely).
Row chloMath(std::string_view prose) { return chloUnary(prose).traits(kRoundsFreely); }

std::vector<OpInfo> buildTable() {
  using E = ElementClass;
  std::vector<OpInfo> rows;
  // The tables in the order ir/ops/ numbers them (each header's numbers follow the one it
  // includes), so that every row lands at its opcode.
  auto add = [&rows](OpCode code, std::string_view name, const Row& row) {
    rows.push_back(row.info);
    rows.back().code = code;
    rows.back().name = name;
  };
#define KILN_OP(id, name, ...) add(ops::id, name, __VA_ARGS__);
#include "ir/ops/stablehlo.def"
#include "ir/ops/chlo.def"
#include "ir/ops/testing.def"
#include "ir/ops/compiler.def"
#include "ir/ops/kiln.def"
#undef KILN_OP
  for (OpInfo& info : compositeOps(rows)) {
    info.code = static_cast<OpCode>(rows.size());
    rows.push_back(std::move(info));
  }
  return rows;
}

const std::vector<OpInfo>& table() {
  static const std::vector<OpInfo> kTable = buildTable();
  return kTable;
}

}  // namespace

const char* categoryName(OpCategory c) {
  switch (c) {
    case C::ElementwiseUnary: return "elementwise-unary";
    case C::ElementwiseBinary: return "elementwise-binary";
    case C::ElementwiseOther: return "elementwise-other";
    case C::Constant: return "constant";
    case C::DataMovement: return "data-movement";
    case C::Reduction: return "reduction";
    case C::Linalg: return "linalg";
    case C::ControlFlow: return "control-flow";
    case C::Collective: return "collective";
    case C::Communication: return "communication";
    case C::Random: return "random";
    case C::Tuple: return "tuple";
    case C::Quantization: return "quantization";
    case C::Normalization: return "normalization";
    case C::Misc: return "misc";
    case C::Chlo: return "chlo";
    case C::Composite: return "composite";
    case C::Check: return "check";
    case C::Interpreter: return "interpreter";
    case C::Fusion: return "fusion";
  }
  return "?";
}

bool acceptsElement(ElementClass c, DType t) {
  switch (c) {
    case ElementClass::Any: return true;
    case ElementClass::IntOrBool: return isInteger(t) || isBool(t);
    case ElementClass::Int: return isInteger(t);
    case ElementClass::Float: return isFloat(t);
    case ElementClass::FloatOrComplex: return isFloat(t) || isComplex(t);
    case ElementClass::Numeric: return isInteger(t) || isFloat(t) || isComplex(t);
    case ElementClass::SignedFloatOrComplex: return isSignedInt(t) || isFloat(t) || isComplex(t);
  }
  return false;
}

const char* describe(ElementClass c) {
  switch (c) {
    case ElementClass::Any: return "any";
    case ElementClass::IntOrBool: return "boolean or integer";
    case ElementClass::Int: return "integer";
    case ElementClass::Float: return "floating-point";
    case ElementClass::FloatOrComplex: return "floating-point or complex";
    case ElementClass::Numeric: return "integer, floating-point or complex";
    case ElementClass::SignedFloatOrComplex: return "signed integer, floating-point or complex";
  }
  return "?";
}

std::optional<Literal> reducerIdentity(OpCode code, DType dtype) {
  Literal out(Type::scalar(dtype));
  bool floating = isFloat(dtype) || isComplex(dtype);
  switch (opInfo(code).identity) {
    case Identity::None: return std::nullopt;
    case Identity::Zero:
      // -0.0 is the identity of IEEE addition (+0.0 + -0.0 = +0.0 loses the sign of -0).
      if (code == ops::Add && isFloat(dtype)) out.setFloat(0, -0.0);
      else if (code == ops::Add && isComplex(dtype)) out.setComplex(0, {-0.0, -0.0});
      return out;  // zero-filled
    case Identity::One:
      // Not for complex: (1 + 0i)(a + bi) has real part a·1 - 0·b, which turns a = -0 into +0.
      if (isComplex(dtype)) return std::nullopt;
      if (isFloat(dtype)) out.setFloat(0, 1.0);
      else out.setInt(0, 1);
      return out;
    case Identity::AllOnes:
      if (floating) return std::nullopt;
      out.setInt(0, -1);  // wraps to every bit set (true for i1)
      return out;
    case Identity::Lowest:
    case Identity::Highest: {
      bool lowest = opInfo(code).identity == Identity::Lowest;
      if (isComplex(dtype)) return std::nullopt;
      if (isFloat(dtype)) {
        // Formats without infinities (f8e4m3fn, ...) have no identity here.
        if (!std::isinf(bitsToFloat(floatToBits(INFINITY, dtype), dtype))) return std::nullopt;
        out.setFloat(0, lowest ? -INFINITY : INFINITY);
      } else if (isBool(dtype)) {
        out.setInt(0, lowest ? 0 : 1);
      } else if (isUnsignedInt(dtype)) {
        out.setInt(0, lowest ? 0 : -1);  // -1 wraps to the largest value
      } else {
        int w = bitWidth(dtype);
        int64_t min = w == 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
        int64_t max = w == 64 ? INT64_MAX : (int64_t{1} << (w - 1)) - 1;
        out.setInt(0, lowest ? min : max);
      }
      return out;
    }
  }
  return std::nullopt;
}

const AttrSpec* OpInfo::findAttr(std::string_view attrName) const {
  for (const AttrSpec& spec : attrs)
    if (spec.name == attrName) return &spec;
  return nullptr;
}

const OpInfo& opInfo(OpCode code) { return table()[static_cast<size_t>(code)]; }

bool roundsFreely(const OpInfo& op, DType t) {
  return op.has(kRoundsFreely) && !isInteger(t) && !isBool(t);
}

std::span<const OpInfo> allOps() { return table(); }

std::optional<OpCode> checkOpOfCustomCall(std::string_view target) {
  // Only the two-operand checks have a custom_call form: the *_const ones carry an
  // attribute that custom_call cannot express.
  for (OpCode code : {ops::CheckExpectEq, ops::CheckExpectAlmostEq, ops::CheckExpectClose})
    if (opInfo(code).name == target) return code;
  return std::nullopt;
}

std::optional<OpCode> lookupOp(std::string_view name) {
  static const std::unordered_map<std::string_view, OpCode> kByName = [] {
    std::unordered_map<std::string_view, OpCode> m;
    for (const OpInfo& info : table()) m.emplace(info.name, info.code);
    // Inside func.func bodies MLIR prints the func dialect's ops without their prefix.
    m.emplace("return", ops::FuncReturn);
    m.emplace("call", ops::FuncCall);
    return m;
  }();
  auto it = kByName.find(name);
  if (it == kByName.end()) return std::nullopt;
  return it->second;
}

}  // namespace kiln
