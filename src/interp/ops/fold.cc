// The shared engine of the region-based reductions: a fold per result element, through
// a typed loop when the body is one binary elementwise op (in the lane order of
// ir/reduction_order.h for reduce), else by running the body region once per element,
// left to right.
#include "interp/ops/fold.h"

#include <algorithm>
#include <optional>

#include "interp/elementwise.h"
#include "ir/op_registry.h"
#include "ir/ops/stablehlo.h"
#include "ir/reduction_order.h"

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
    case ops::Add: return FoldKind::Add;
    case ops::Multiply: return FoldKind::Mul;
    case ops::Maximum: return FoldKind::Max;
    case ops::Minimum: return FoldKind::Min;
    case ops::And: return FoldKind::And;
    case ops::Or: return FoldKind::Or;
    case ops::Xor: return FoldKind::Xor;
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

// The typed loop: one input, a body that is `kind` of (acc, x), or of (x, acc) when
// `swapped`. `laned`: the order of ir/reduction_order.h (stablehlo.reduce), else a left
// fold from the init value.
HostValues foldFast(FoldKind kind, bool swapped, bool laned, const Region& body, const Literal& input,
                    const Literal& init, const Type& resultType, const WindowFn& window, EvalContext& ctx) {
  Literal out(resultType);
  const DType dtype = resultType.dtype();
  const int64_t n = out.numElements();
  std::optional<Literal> identity = laned ? reducerIdentity(body.front()->code(), dtype) : std::nullopt;
  visitTypedFold(dtype, kind, [&](auto tag, auto k) {
    using T = typename decltype(tag)::type;
    constexpr FoldKind K = decltype(k)::value;
    Reader<T> in(input);
    const T initValue = Reader<T>(init)[0];
    auto apply = [&](T acc, T x) { return roundToStorage(swapped ? combine<K>(x, acc) : combine<K>(acc, x), dtype); };
    Writer<T> w(out);
    std::vector<int64_t> indices;
    T lanes[kReduceLanes];
    for (int64_t o = 0; o < n; ++o) {
      if ((o & 1023) == 1023) ctx.checkTime();
      indices.clear();
      window(o, indices);
      T acc = initValue;
      if (!identity) {
        for (int64_t i : indices) acc = apply(acc, i < 0 ? initValue : in[i]);
        w.set(o, acc);
        continue;
      }
      const T e = Reader<T>(*identity)[0];
      const size_t count = indices.size();
      for (size_t c = 0; c < count; c += kReduceChunk) {
        std::fill(std::begin(lanes), std::end(lanes), e);
        const size_t end = std::min(count, c + static_cast<size_t>(kReduceChunk));
        for (size_t j = c; j < end; ++j) {
          T& lane = lanes[j % kReduceLanes];
          lane = apply(lane, indices[j] < 0 ? initValue : in[indices[j]]);
        }
        for (int64_t width = kReduceLanes / 2; width >= 1; width /= 2)
          for (int64_t i = 0; i < width; ++i) lanes[i] = apply(lanes[i], lanes[i + width]);
        acc = apply(acc, lanes[0]);
      }
      w.set(o, acc);
    }
  });
  return {out};
}

}  // namespace

HostValues foldWindows(const Op& op, EvalContext& ctx, const HostValues& inputsIn,
                       const HostValues& initsIn, const WindowFn& window, FoldOrder order) {
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
  if (kind != FoldKind::None && op.result(0)->type().dtype() == inputs[0].dtype())
    return foldFast(kind, swapped, order == FoldOrder::Lanes, body, inputs[0], inits[0], op.result(0)->type(), window,
                    ctx);

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
