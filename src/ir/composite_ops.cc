// The composite ops, one entry each (see composite_ops.h).
#include "ir/composite_ops.h"

#include "ir/builder.h"
#include "ir/ops/stablehlo.h"

namespace kiln {
namespace {

// An op with `arity` operands and one result, decomposed by `decompose` (described in
// prose by `decomposition`, which `kiln ops` prints).
OpInfo composite(std::string_view name, int arity, uint32_t traits, ElementClass elements,
                 std::string_view decomposition, DecomposeFn decompose) {
  OpInfo info;
  info.name = name;
  info.category = name.starts_with("chlo.") ? OpCategory::Chlo : OpCategory::Composite;
  info.operands = {arity, arity};
  info.results = {1, 1};
  info.traits = traits;
  info.elements = elements;
  info.decomposition = decomposition;
  info.decompose = decompose;
  // The pretty form CHLO uses: `op %x : T -> T` for one operand, a function type for more.
  info.syntax = arity == 1 ? "operands attr-dict : type(arrow)" : "operands attr-dict : type(fn)";
  return info;
}

// chlo.broadcast_<op>: both operands broadcast to the result shape (numpy's rule, or the
// lower-rank operand along broadcast_dimensions), then the StableHLO binary op.
template <OpCode kPrimitive>
std::vector<Value*> broadcastThen(Builder& b, const Op& op) {
  const Shape& out = op.result()->type().shape();
  auto widen = [&](Value* v, const Value* other) {
    const Type& t = v->type();
    Dims dims;
    Attribute map = op.attr("broadcast_dimensions");
    if (map && t.rank() < other->type().rank()) {
      dims = map.asInts();
    } else {
      for (int64_t i = 0; i < t.rank(); ++i) dims.push_back(static_cast<int64_t>(out.size()) - t.rank() + i);
    }
    return t.shape() == out ? v : b.broadcastInDim(v, out, dims);
  };
  return {b.binary(kPrimitive, widen(op.operand(0), op.operand(1)), widen(op.operand(1), op.operand(0)))};
}

template <OpCode kPrimitive>
OpInfo broadcasting(std::string_view name, std::span<const OpInfo> primitives) {
  ElementClass elements = primitives[static_cast<size_t>(kPrimitive)].elements;
  OpInfo info = composite(name, 2, kBroadcasting, elements,
                          "broadcast_in_dim of both operands to the result shape, then the binary op",
                          &broadcastThen<kPrimitive>);
  info.attrs = {{"broadcast_dimensions", AttrKind::I64Array}};
  return info;
}

// kiln.stop_gradient: the operand itself to every executor; autodiff gives it a zero
// tangent (JAX's lax.stop_gradient; StableHLO has no such op, so kiln defines one).
std::vector<Value*> itself(Builder&, const Op& op) { return {op.operand(0)}; }

}  // namespace

std::vector<OpInfo> compositeOps(std::span<const OpInfo> p) {
  namespace O = ops;
  // CHLO's implicitly broadcasting binary ops (TensorFlow's exports use them).
  return {
      broadcasting<O::Add>("chlo.broadcast_add", p),
      broadcasting<O::And>("chlo.broadcast_and", p),
      broadcasting<O::Atan2>("chlo.broadcast_atan2", p),
      broadcasting<O::Divide>("chlo.broadcast_divide", p),
      broadcasting<O::Maximum>("chlo.broadcast_maximum", p),
      broadcasting<O::Minimum>("chlo.broadcast_minimum", p),
      broadcasting<O::Multiply>("chlo.broadcast_multiply", p),
      broadcasting<O::Or>("chlo.broadcast_or", p),
      broadcasting<O::Power>("chlo.broadcast_power", p),
      broadcasting<O::Remainder>("chlo.broadcast_remainder", p),
      broadcasting<O::ShiftLeft>("chlo.broadcast_shift_left", p),
      broadcasting<O::ShiftRightArithmetic>("chlo.broadcast_shift_right_arithmetic", p),
      broadcasting<O::ShiftRightLogical>("chlo.broadcast_shift_right_logical", p),
      broadcasting<O::Subtract>("chlo.broadcast_subtract", p),
      broadcasting<O::Xor>("chlo.broadcast_xor", p),
      composite("kiln.stop_gradient", 1, kElementwise, ElementClass::Any,
                "the operand itself (its tangent is zero)", &itself),
  };
}

}  // namespace kiln
