// Autodiff rules of the elementwise ops: each op's jvp rule (its derivative, written with
// the primal operands x and results y), and beside it the transpose rule of the ones
// that are linear (add, subtract, negate, multiply and divide by a primal, select,
// convert, real/imag/complex, and reduce_precision as JAX treats it). Math functions
// whose derivative has no closed form here run through their decompositions instead (the
// driver falls back to them).
#include <cmath>
#include <numbers>

#include "ir/ops/chlo.h"
#include "ir/ops/stablehlo.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

namespace O = ops;
using D = ComparisonDirection;

// Small arithmetic on values, so that the derivatives read as formulas.
struct Ops {
  Builder& b;
  Value* add(Value* x, Value* y) { return b.binary(O::Add, x, y); }
  Value* sub(Value* x, Value* y) { return b.binary(O::Subtract, x, y); }
  Value* mul(Value* x, Value* y) { return b.binary(O::Multiply, x, y); }
  Value* div(Value* x, Value* y) { return b.binary(O::Divide, x, y); }
  Value* neg(Value* x) { return b.unary(O::Negate, x); }
  Value* fn(OpCode code, Value* x) { return b.unary(code, x); }
  Value* c(Value* like, double v) { return b.splat(like->type(), v); }
  Value* sq(Value* x) { return mul(x, x); }
  Value* where(Value* p, Value* x, Value* y) { return b.select(p, x, y); }
  Value* cmp(Value* x, D dir, Value* y) { return b.compare(x, y, dir); }
};

// ---- unary functions: t · f'(x) ----

// The tangent `t · f'`, where `derivative` computes f' from x and y.
template <class F>
std::vector<Value*> chain(JvpArgs& a, F derivative) {
  if (!a.t[0]) return {nullptr};
  Ops o{a.b};
  return {o.mul(a.t[0], derivative(o, a.x[0], a.y[0]))};
}

// Piecewise constant functions (floor, sign, ...): zero tangents.
std::vector<Value*> zeroJvp(JvpArgs& a) { return std::vector<Value*>(a.op.numResults(), nullptr); }

std::vector<Value*> negateJvp(JvpArgs& a) { return {a.t[0] ? a.b.unary(O::Negate, a.t[0]) : nullptr}; }
std::vector<Value*> negateTranspose(TransposeArgs& a) { return {a.b.unary(O::Negate, a.ct[0])}; }

// |x|' = sign(x). For complex z, |z| is real and its tangent is the component of t
// along z: (re z·re t + im z·im t) / |z|, taken as 0 at z = 0, where |z| has no
// derivative (JAX takes re t there). Written with real, imag, multiply, add, divide and
// select, the tangent keeps to ops that have transposes.
std::vector<Value*> absJvp(JvpArgs& a) {
  if (!isComplex(a.x[0]->type().dtype()))
    return chain(a, [](Ops& o, Value* x, Value*) { return o.fn(O::Sign, x); });
  if (!a.t[0]) return {nullptr};
  Ops o{a.b};
  Value* z = a.x[0];
  Value* y = a.y[0];
  Value* along = o.add(o.mul(o.fn(O::Real, a.t[0]), o.fn(O::Real, z)), o.mul(o.fn(O::Imag, a.t[0]), o.fn(O::Imag, z)));
  Value* zero = o.cmp(y, D::EQ, o.c(y, 0));
  return {o.where(zero, o.c(y, 0), o.div(along, o.where(zero, o.c(y, 1), y)))};
}
std::vector<Value*> expJvp(JvpArgs& a) {
  return chain(a, [](Ops&, Value*, Value* y) { return y; });
}
std::vector<Value*> expm1Jvp(JvpArgs& a) {
  return chain(a, [](Ops& o, Value*, Value* y) { return o.add(y, o.c(y, 1)); });
}
std::vector<Value*> logJvp(JvpArgs& a) {
  if (!a.t[0]) return {nullptr};
  Ops o{a.b};
  return {o.div(a.t[0], a.x[0])};
}
std::vector<Value*> log1pJvp(JvpArgs& a) {
  if (!a.t[0]) return {nullptr};
  Ops o{a.b};
  return {o.div(a.t[0], o.add(a.x[0], o.c(a.x[0], 1)))};
}
std::vector<Value*> logisticJvp(JvpArgs& a) {
  return chain(a, [](Ops& o, Value*, Value* y) { return o.mul(y, o.sub(o.c(y, 1), y)); });
}
std::vector<Value*> sqrtJvp(JvpArgs& a) {
  if (!a.t[0]) return {nullptr};
  Ops o{a.b};
  return {o.div(a.t[0], o.mul(o.c(a.y[0], 2), a.y[0]))};
}
std::vector<Value*> rsqrtJvp(JvpArgs& a) {  // (x^-1/2)' = -y / 2x
  return chain(a, [](Ops& o, Value* x, Value* y) { return o.div(o.mul(o.c(y, -0.5), y), x); });
}
std::vector<Value*> cbrtJvp(JvpArgs& a) {  // (x^1/3)' = y / 3x
  return chain(a, [](Ops& o, Value* x, Value* y) { return o.div(y, o.mul(o.c(x, 3), x)); });
}
std::vector<Value*> sinJvp(JvpArgs& a) {
  return chain(a, [](Ops& o, Value* x, Value*) { return o.fn(O::Cosine, x); });
}
std::vector<Value*> cosJvp(JvpArgs& a) {
  return chain(a, [](Ops& o, Value* x, Value*) { return o.neg(o.fn(O::Sine, x)); });
}
std::vector<Value*> tanJvp(JvpArgs& a) {  // tan' = 1 + tan²
  return chain(a, [](Ops& o, Value*, Value* y) { return o.add(o.c(y, 1), o.sq(y)); });
}
std::vector<Value*> tanhJvp(JvpArgs& a) {  // tanh' = 1 - tanh²
  return chain(a, [](Ops& o, Value*, Value* y) { return o.sub(o.c(y, 1), o.sq(y)); });
}

// CHLO functions with closed-form derivatives; the rest (lgamma, digamma, bessel_i1e)
// differentiate through their decompositions.
std::vector<Value*> asinJvp(JvpArgs& a) {  // 1 / sqrt(1 - x²)
  return chain(a, [](Ops& o, Value* x, Value*) { return o.fn(O::Rsqrt, o.sub(o.c(x, 1), o.sq(x))); });
}
std::vector<Value*> acosJvp(JvpArgs& a) {  // -1 / sqrt(1 - x²)
  return chain(a, [](Ops& o, Value* x, Value*) { return o.neg(o.fn(O::Rsqrt, o.sub(o.c(x, 1), o.sq(x)))); });
}
std::vector<Value*> atanJvp(JvpArgs& a) {  // 1 / (1 + x²)
  if (!a.t[0]) return {nullptr};
  Ops o{a.b};
  return {o.div(a.t[0], o.add(o.c(a.x[0], 1), o.sq(a.x[0])))};
}
std::vector<Value*> asinhJvp(JvpArgs& a) {  // 1 / sqrt(x² + 1)
  return chain(a, [](Ops& o, Value* x, Value*) { return o.fn(O::Rsqrt, o.add(o.sq(x), o.c(x, 1))); });
}
std::vector<Value*> acoshJvp(JvpArgs& a) {  // 1 / sqrt((x - 1)(x + 1))
  return chain(a, [](Ops& o, Value* x, Value*) {
    return o.fn(O::Rsqrt, o.mul(o.sub(x, o.c(x, 1)), o.add(x, o.c(x, 1))));
  });
}
std::vector<Value*> atanhJvp(JvpArgs& a) {  // 1 / ((1 - x)(1 + x))
  if (!a.t[0]) return {nullptr};
  Ops o{a.b};
  Value* x = a.x[0];
  return {o.div(a.t[0], o.mul(o.sub(o.c(x, 1), x), o.add(o.c(x, 1), x)))};
}
std::vector<Value*> sinhJvp(JvpArgs& a) {
  return chain(a, [](Ops& o, Value* x, Value*) { return o.fn(O::ChloCosh, x); });
}
std::vector<Value*> coshJvp(JvpArgs& a) {
  return chain(a, [](Ops& o, Value* x, Value*) { return o.fn(O::ChloSinh, x); });
}
std::vector<Value*> squareJvp(JvpArgs& a) {
  return chain(a, [](Ops& o, Value* x, Value*) { return o.mul(o.c(x, 2), x); });
}
std::vector<Value*> erfJvp(JvpArgs& a) {  // 2/√π · exp(-x²)
  return chain(a, [](Ops& o, Value* x, Value*) {
    return o.mul(o.c(x, 2 / std::sqrt(std::numbers::pi)), o.fn(O::Exponential, o.neg(o.sq(x))));
  });
}
std::vector<Value*> erfcJvp(JvpArgs& a) {  // -2/√π · exp(-x²)
  return chain(a, [](Ops& o, Value* x, Value*) {
    return o.mul(o.c(x, -2 / std::sqrt(std::numbers::pi)), o.fn(O::Exponential, o.neg(o.sq(x))));
  });
}
std::vector<Value*> erfInvJvp(JvpArgs& a) {  // √π/2 · exp(y²)
  return chain(a, [](Ops& o, Value*, Value* y) {
    return o.mul(o.c(y, std::sqrt(std::numbers::pi) / 2), o.fn(O::Exponential, o.sq(y)));
  });
}
std::vector<Value*> lgammaJvp(JvpArgs& a) {
  return chain(a, [](Ops& o, Value* x, Value*) { return o.fn(O::ChloDigamma, x); });
}

// ---- binary arithmetic ----

std::vector<Value*> addJvp(JvpArgs& a) { return {addTangents(a.b, a.t[0], a.t[1])}; }
std::vector<Value*> addTranspose(TransposeArgs& a) { return {a.ct[0], a.ct[0]}; }

std::vector<Value*> subtractJvp(JvpArgs& a) {
  Value* minus = a.t[1] ? a.b.unary(O::Negate, a.t[1]) : nullptr;
  return {addTangents(a.b, a.t[0], minus)};
}
std::vector<Value*> subtractTranspose(TransposeArgs& a) {
  return {a.ct[0], a.linear[1] ? a.b.unary(O::Negate, a.ct[0]) : nullptr};
}

std::vector<Value*> multiplyJvp(JvpArgs& a) {
  Ops o{a.b};
  Value* l = a.t[0] ? o.mul(a.t[0], a.x[1]) : nullptr;
  Value* r = a.t[1] ? o.mul(a.x[0], a.t[1]) : nullptr;
  return {addTangents(a.b, l, r)};
}
// Linear in one operand: the cotangent times the other.
std::vector<Value*> multiplyTranspose(TransposeArgs& a) {
  if (a.linear[0] && a.linear[1]) unsupportedRule(a.op, "transpose", "both operands are tangents");
  Ops o{a.b};
  if (a.linear[0]) return {o.mul(a.ct[0], a.x[1]), nullptr};
  return {nullptr, o.mul(a.x[0], a.ct[0])};
}

// (x/y)' = (tx - (x/y)·ty) / y.
std::vector<Value*> divideJvp(JvpArgs& a) {
  Ops o{a.b};
  Value* r = a.t[1] ? o.neg(o.mul(a.y[0], a.t[1])) : nullptr;
  Value* num = addTangents(a.b, a.t[0], r);
  return {num ? o.div(num, a.x[1]) : nullptr};
}
std::vector<Value*> divideTranspose(TransposeArgs& a) {
  if (a.linear[1]) unsupportedRule(a.op, "transpose", "the divisor is a tangent");
  return {a.b.binary(O::Divide, a.ct[0], a.x[1]), nullptr};
}

// Maximum and minimum route the tangent of the operand they pick; ties split it evenly,
// as JAX does (so that max(x, x) has derivative 1).
std::vector<Value*> chooserJvp(JvpArgs& a, D wins) {
  Ops o{a.b};
  Value* x = a.x[0];
  Value* y = a.x[1];
  Value* half = o.c(x, 0.5);
  Value* tie = o.cmp(x, D::EQ, y);
  Value* left = o.where(o.cmp(x, wins, y), o.c(x, 1), o.where(tie, half, o.c(x, 0)));
  Value* right = o.sub(o.c(x, 1), left);
  Value* l = a.t[0] ? o.mul(a.t[0], left) : nullptr;
  Value* r = a.t[1] ? o.mul(a.t[1], right) : nullptr;
  return {addTangents(a.b, l, r)};
}
std::vector<Value*> maximumJvp(JvpArgs& a) {
  if (isComplex(a.x[0]->type().dtype())) unsupportedRule(a.op, "jvp", "complex operands");
  return chooserJvp(a, D::GT);
}
std::vector<Value*> minimumJvp(JvpArgs& a) {
  if (isComplex(a.x[0]->type().dtype())) unsupportedRule(a.op, "jvp", "complex operands");
  return chooserJvp(a, D::LT);
}

// x^y: y·x^(y-1)·tx (0 where y = 0, so that x^0 is flat even at x = 0) plus
// log(x)·x^y·ty (with log 1 in place of log 0, as JAX does).
std::vector<Value*> powerJvp(JvpArgs& a) {
  Ops o{a.b};
  Value* x = a.x[0];
  Value* y = a.x[1];
  Value* l = nullptr;
  Value* r = nullptr;
  if (a.t[0]) {
    Value* d = o.mul(y, o.b.binary(O::Power, x, o.sub(y, o.c(y, 1))));
    l = o.mul(a.t[0], o.where(o.cmp(y, D::EQ, o.c(y, 0)), o.c(y, 0), d));
  }
  if (a.t[1]) {
    Value* safe = o.where(o.cmp(x, D::EQ, o.c(x, 0)), o.c(x, 1), x);
    r = o.mul(a.t[1], o.mul(o.fn(O::Log, safe), a.y[0]));
  }
  return {addTangents(a.b, l, r)};
}

// atan2(y, x)' = (x·ty - y·tx) / (x² + y²).
std::vector<Value*> atan2Jvp(JvpArgs& a) {
  Ops o{a.b};
  Value* y = a.x[0];
  Value* x = a.x[1];
  Value* denominator = o.add(o.sq(x), o.sq(y));
  Value* l = a.t[0] ? o.mul(a.t[0], o.div(x, denominator)) : nullptr;
  Value* r = a.t[1] ? o.mul(a.t[1], o.div(o.neg(y), denominator)) : nullptr;
  return {addTangents(a.b, l, r)};
}

// rem(x, y) = x - y·trunc(x/y): tx - ty·trunc(x/y). (The spec leaves complex
// remainder TBD, and JAX refuses it.)
std::vector<Value*> remainderJvp(JvpArgs& a) {
  if (isComplex(a.x[0]->type().dtype())) unsupportedRule(a.op, "jvp", "complex operands");
  Ops o{a.b};
  Value* r = nullptr;
  if (a.t[1]) {
    Value* q = o.div(a.x[0], a.x[1]);
    Value* trunc = o.mul(o.fn(O::Sign, q), o.fn(O::Floor, o.fn(O::Abs, q)));
    r = o.neg(o.mul(a.t[1], trunc));
  }
  return {addTangents(a.b, a.t[0], r)};
}

// ---- selection and conversion ----

// select(p, a, b): the tangent of the chosen operand.
std::vector<Value*> selectJvp(JvpArgs& a) {
  if (!a.t[1] && !a.t[2]) return {nullptr};
  return {a.b.select(a.x[0], orZeros(a.b, a.t[1], a.x[1]), orZeros(a.b, a.t[2], a.x[2]))};
}
std::vector<Value*> selectTranspose(TransposeArgs& a) {
  if (a.linear[0]) unsupportedRule(a.op, "transpose", "the predicate is a tangent");
  Value* zero = zeros(a.b, a.ct[0]->type());
  return {nullptr, a.linear[1] ? a.b.select(a.x[0], a.ct[0], zero) : nullptr,
          a.linear[2] ? a.b.select(a.x[0], zero, a.ct[0]) : nullptr};
}

// clamp(lo, x, hi) = min(max(x, lo), hi): hi's tangent where hi is below max(x, lo),
// else lo's where lo is above x, x's where it is strictly between (JAX's choice at the
// edges: ties take no tangent from x). lo and hi may be scalars against a tensor x.
std::vector<Value*> clampJvp(JvpArgs& a) {
  Ops o{a.b};
  Value* x = a.x[1];
  const Shape& shape = x->type().shape();
  auto full = [&](Value* v) { return v->type().shape() == shape ? v : o.b.broadcastInDim(v, shape, {}); };
  Value* lo = full(a.x[0]);
  Value* hi = full(a.x[2]);
  Value* zero = zeros(a.b, x->type());
  Value* hiWins = o.cmp(hi, D::LT, o.b.binary(O::Maximum, x, lo));
  Value* notHi = o.b.unary(O::Not, hiWins);
  Value* out = nullptr;
  if (a.t[1]) {
    Value* inside = o.b.binary(O::And, o.cmp(x, D::GT, lo), o.cmp(x, D::LT, hi));
    out = o.where(o.b.binary(O::And, inside, notHi), a.t[1], zero);
  }
  if (a.t[0]) {
    Value* loWins = o.b.binary(O::And, o.cmp(lo, D::GT, x), notHi);
    out = addTangents(a.b, out, o.where(loWins, full(a.t[0]), zero));
  }
  if (a.t[2]) out = addTangents(a.b, out, o.where(hiWins, full(a.t[2]), zero));
  return {out};
}

// convert between float types is linear; from float to integer the tangent is zero (the
// driver sees an integer result), and from an integer there is none.
std::vector<Value*> convertJvp(JvpArgs& a) {
  if (!a.t[0]) return {nullptr};
  return {a.b.convert(a.t[0], a.y[0]->type().dtype())};
}
std::vector<Value*> convertTranspose(TransposeArgs& a) {
  return {a.b.convert(a.ct[0], a.op.operand(0)->type().dtype())};
}

// real, imag and complex are linear over the reals. Their transposes keep the pairing
// <a, b> = Re(a·b) that the other rules' transposes (products by the other factor,
// without conjugation, as in JAX) keep: real's is complex(ct, 0), imag's complex(0, -ct),
// complex's (real(ct), -imag(ct)). Of a real operand, real is the identity and imag zero.
std::vector<Value*> realJvp(JvpArgs& a) { return {a.t[0] ? a.b.unary(O::Real, a.t[0]) : nullptr}; }
std::vector<Value*> imagJvp(JvpArgs& a) { return {a.t[0] ? a.b.unary(O::Imag, a.t[0]) : nullptr}; }
std::vector<Value*> complexJvp(JvpArgs& a) {
  if (!a.t[0] && !a.t[1]) return {nullptr};
  return {a.b.binary(O::Complex, orZeros(a.b, a.t[0], a.x[0]), orZeros(a.b, a.t[1], a.x[1]))};
}
std::vector<Value*> realTranspose(TransposeArgs& a) {
  if (!isComplex(a.op.operand(0)->type().dtype())) return {a.ct[0]};
  return {a.b.binary(O::Complex, a.ct[0], zeros(a.b, a.ct[0]->type()))};
}
std::vector<Value*> imagTranspose(TransposeArgs& a) {
  if (!isComplex(a.op.operand(0)->type().dtype())) return {zeros(a.b, a.ct[0]->type())};
  return {a.b.binary(O::Complex, zeros(a.b, a.ct[0]->type()), a.b.unary(O::Negate, a.ct[0]))};
}
std::vector<Value*> complexTranspose(TransposeArgs& a) {
  return {a.linear[0] ? a.b.unary(O::Real, a.ct[0]) : nullptr,
          a.linear[1] ? a.b.unary(O::Negate, a.b.unary(O::Imag, a.ct[0])) : nullptr};
}

// reduce_precision rounds, but JAX treats it as linear (its tangent and cotangent are
// rounded the same way), so that a program that rounds its activations still has the
// derivative of the unrounded one, at the precision the program asks for.
std::vector<Value*> reducePrecisionJvp(JvpArgs& a) {
  if (!a.t[0]) return {nullptr};
  return {a.b.create1(O::ReducePrecision, {a.t[0]}, a.op.attrs())};
}
std::vector<Value*> reducePrecisionTranspose(TransposeArgs& a) {
  return {a.b.create1(O::ReducePrecision, {a.ct[0]}, a.op.attrs())};
}

// ---- batching ----

// Every elementwise op batches the same way: each operand brought to the batched result
// shape (a shared one broadcast; a per-slice scalar of select or clamp broadcast over the
// slice), then the op on the batched operands. A shared scalar of select or clamp stays.
std::vector<Value*> elementwiseBatch(BatchArgs& a) {
  const Shape& slice = a.op.result(0)->type().shape();
  Shape full = batchedShape(a.size, slice);
  std::vector<Value*> operands;
  for (size_t i = 0; i < a.x.size(); ++i) {
    Value* v = a.x[i];
    const bool scalar = a.op.operand(i)->type().rank() == 0 && !slice.empty();
    if (scalar && !a.batched[i]) {
      operands.push_back(v);  // select's predicate, clamp's bounds: shared scalars
      continue;
    }
    v = batchedValue(a.b, v, a.batched[i], a.size);
    if (scalar) v = a.b.broadcastInDim(v, full, {0});
    operands.push_back(v);
  }
  TypeList types;
  for (Value* r : a.op.results()) types.push_back(Type::tensor(r->type().dtype(), full));
  return rebuilt(a.b, a.op, operands, a.op.attrs(), types);
}

std::vector<Value*> itselfBatch(BatchArgs& a) { return {a.x[0]}; }

// bitcast_convert to a narrower or wider type splits or joins the last dimension, which
// stays last: the batch goes in front of the result's own shape.
std::vector<Value*> bitcastConvertBatch(BatchArgs& a) {
  const Type& r = a.op.result(0)->type();
  return rebuilt(a.b, a.op, a.x, a.op.attrs(), {Type::tensor(r.dtype(), batchedShape(a.size, r.shape()))});
}

// Values that pass through: their tangents pass through too.
std::vector<Value*> identityJvp(JvpArgs& a) { return a.t; }
std::vector<Value*> identityTranspose(TransposeArgs& a) { return a.ct; }

}  // namespace

void addElementwiseRules(OpTable<OpRules>& t) {
  for (OpCode code : {O::Sign, O::Floor, O::Ceil, O::RoundNearestAfz, O::RoundNearestEven, O::ChloNextAfter})
    t[code].jvp = &zeroJvp;
  // bitcast_convert reinterprets bits: a zero tangent, as JAX defines it (a float made
  // of another float's bits does not vary with it in any useful sense).
  t[O::BitcastConvert].jvp = &zeroJvp;
  t[O::Negate] = {&negateJvp, &negateTranspose};
  t[O::Abs].jvp = &absJvp;
  t[O::Exponential].jvp = &expJvp;
  t[O::ExponentialMinusOne].jvp = &expm1Jvp;
  t[O::Log].jvp = &logJvp;
  t[O::LogPlusOne].jvp = &log1pJvp;
  t[O::Logistic].jvp = &logisticJvp;
  t[O::Sqrt].jvp = &sqrtJvp;
  t[O::Rsqrt].jvp = &rsqrtJvp;
  t[O::Cbrt].jvp = &cbrtJvp;
  t[O::Sine].jvp = &sinJvp;
  t[O::Cosine].jvp = &cosJvp;
  t[O::Tan].jvp = &tanJvp;
  t[O::ChloTan].jvp = &tanJvp;
  t[O::Tanh].jvp = &tanhJvp;
  t[O::ChloAsin].jvp = &asinJvp;
  t[O::ChloAcos].jvp = &acosJvp;
  t[O::ChloAtan].jvp = &atanJvp;
  t[O::ChloAsinh].jvp = &asinhJvp;
  t[O::ChloAcosh].jvp = &acoshJvp;
  t[O::ChloAtanh].jvp = &atanhJvp;
  t[O::ChloSinh].jvp = &sinhJvp;
  t[O::ChloCosh].jvp = &coshJvp;
  t[O::ChloSquare].jvp = &squareJvp;
  t[O::ChloErf].jvp = &erfJvp;
  t[O::ChloErfc].jvp = &erfcJvp;
  t[O::ChloErfInv].jvp = &erfInvJvp;
  t[O::ChloLgamma].jvp = &lgammaJvp;

  t[O::Add] = {&addJvp, &addTranspose};
  t[O::Subtract] = {&subtractJvp, &subtractTranspose};
  t[O::Multiply] = {&multiplyJvp, &multiplyTranspose};
  t[O::Divide] = {&divideJvp, &divideTranspose};
  t[O::Maximum].jvp = &maximumJvp;
  t[O::Minimum].jvp = &minimumJvp;
  t[O::Power].jvp = &powerJvp;
  t[O::Atan2].jvp = &atan2Jvp;
  t[O::Remainder].jvp = &remainderJvp;

  t[O::Select] = {&selectJvp, &selectTranspose};
  t[O::Clamp].jvp = &clampJvp;
  t[O::Convert] = {&convertJvp, &convertTranspose};
  t[O::Real] = {&realJvp, &realTranspose};
  t[O::Imag] = {&imagJvp, &imagTranspose};
  t[O::Complex] = {&complexJvp, &complexTranspose};
  t[O::ReducePrecision] = {&reducePrecisionJvp, &reducePrecisionTranspose};
  t[O::OptimizationBarrier] = {&identityJvp, &identityTranspose, nullptr, &everyOperandBatched};
  t[O::BitcastConvert].batch = &bitcastConvertBatch;

  // (The broadcasting composites batch through their decompositions, not here.)
  for (const OpInfo& info : allOps())
    if (info.has(kElementwise) && info.category != OpCategory::Composite) t[info.code].batch = &elementwiseBatch;
  // kiln.stop_gradient (a composite: found by name) passes values through, not tangents.
  if (std::optional<OpCode> stop = lookupOp("kiln.stop_gradient")) t[*stop] = {&zeroJvp, nullptr, nullptr, &itselfBatch};
  t[O::Select].batch = &elementwiseBatch;  // elementwise but for their scalar operands
  t[O::Clamp].batch = &elementwiseBatch;
}

}  // namespace kiln::transforms
