// The shared engine of the region-based reductions: a left fold per result element,
// through a typed loop when the body is one binary elementwise op, else by running the
// body region once per element.
#include "interp/ops/fold.h"

#include "interp/elementwise.h"

namespace kiln::interp {

FoldKind simpleBinaryBody(const Region& body, bool& swapped) {
  swapped = false;
  if (body.numArguments() != 2 || body.size() != 2) return FoldKind::None;
  const Op& op = *body.front();
  const Op& ret = *body.back();
  if (!ret.info().isTerminator() || ret.numOperands() != 1 || op.numOperands() != 2 ||
      op.numResults() != 1 || ret.operand(0) != op.result(0))
    return FoldKind::None;
  const Type& t = body.argument(0)->type();
  if (!t.isTensor() || t.rank() != 0 || body.argument(1)->type() != t || op.result(0)->type() != t)
    return FoldKind::None;
  Value* a = body.argument(0);
  Value* b = body.argument(1);
  if (op.operand(0) == b && op.operand(1) == a) swapped = true;
  else if (op.operand(0) != a || op.operand(1) != b) return FoldKind::None;
  switch (op.code()) {
    case OpCode::Add: return FoldKind::Add;
    case OpCode::Multiply: return FoldKind::Mul;
    case OpCode::Maximum: return FoldKind::Max;
    case OpCode::Minimum: return FoldKind::Min;
    case OpCode::And: return FoldKind::And;
    case OpCode::Or: return FoldKind::Or;
    case OpCode::Xor: return FoldKind::Xor;
    default: return FoldKind::None;
  }
}

Literal promoteTo(const Literal& a, DType to) {
  if (a.dtype() == to) return a;
  return mapConvert(a, to, [](auto x, auto outTag) {
    using In = decltype(x);
    using Out = typename decltype(outTag)::type;
    if constexpr (kIsComplex<Out>) {
      using P = typename Out::value_type;
      if constexpr (kIsComplex<In>) return Out(static_cast<P>(x.real()), static_cast<P>(x.imag()));
      else return Out(static_cast<P>(x), 0);
    } else if constexpr (kIsComplex<In>) {
      return static_cast<Out>(x.real());  // never reached: promotion keeps the kind
    } else {
      return static_cast<Out>(x);
    }
  });
}

namespace {

// The typed loop: one input, a body that is `kind` of (acc, x).
HostValues foldFast(FoldKind kind, const Literal& input, const Literal& init, const Type& resultType,
                    const WindowFn& window, EvalContext& ctx) {
  Literal out(resultType);
  const DType dtype = resultType.dtype();
  const int64_t n = out.numElements();
  visitTypedFold(dtype, kind, [&](auto tag, auto k) {
    using T = typename decltype(tag)::type;
    constexpr FoldKind K = decltype(k)::value;
    Reader<T> in(input);
    const T initValue = Reader<T>(init)[0];
    Writer<T> w(out);
    std::vector<int64_t> indices;
    for (int64_t o = 0; o < n; ++o) {
      if ((o & 1023) == 1023) ctx.checkTime();
      indices.clear();
      window(o, indices);
      T acc = initValue;
      for (int64_t i : indices) acc = roundToStorage(combine<K>(acc, i < 0 ? initValue : in[i]), dtype);
      w.set(o, acc);
    }
  });
  return {out};
}

}  // namespace

HostValues foldWindows(const Op& op, EvalContext& ctx, const HostValues& inputsIn,
                       const HostValues& initsIn, const WindowFn& window) {
  const Region& body = op.region(op.numRegions() - 1);
  const size_t n = inputsIn.size();
  // Promote to the body's argument types (accumulators first, then elements).
  std::vector<Literal> inputs, inits;
  for (size_t k = 0; k < n; ++k) {
    inits.push_back(promoteTo(initsIn[k].tensor(), body.argument(k)->type().dtype()));
    inputs.push_back(promoteTo(inputsIn[k].tensor(), body.argument(n + k)->type().dtype()));
  }
  bool swapped = false;
  FoldKind kind = n == 1 ? simpleBinaryBody(body, swapped) : FoldKind::None;
  // Swapped operands give the same bits for integers; for floats the NaN a max or an
  // add returns depends on the order, so those run the region.
  if (swapped && !isInteger(inputs[0].dtype()) && !isBool(inputs[0].dtype())) kind = FoldKind::None;
  if (kind != FoldKind::None && op.result(0)->type().dtype() == inputs[0].dtype())
    return foldFast(kind, inputs[0], inits[0], op.result(0)->type(), window, ctx);

  HostValues results;
  for (size_t k = 0; k < n; ++k) results.emplace_back(Literal(op.result(k)->type()));
  const int64_t count = op.result(0)->type().numElements();
  std::vector<int64_t> indices;
  HostValues args(2 * n);
  for (int64_t o = 0; o < count; ++o) {
    indices.clear();
    window(o, indices);
    HostValues acc(inits.begin(), inits.end());
    for (int64_t i : indices) {
      for (size_t k = 0; k < n; ++k) {
        args[k] = std::move(acc[k]);
        args[n + k] = i < 0 ? inits[k] : elementAt(inputs[k], i);
      }
      acc = ctx.runRegion(body, args);
    }
    for (size_t k = 0; k < n; ++k) setElement(results[k].tensor(), o, acc[k].tensor());
  }
  return results;
}

}  // namespace kiln::interp
