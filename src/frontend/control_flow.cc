// lax's loops and branches: each body is traced once into a private function of the
// program, and the while / case op calls it. What a body captured from outside travels
// as extra loop carries (passed through unchanged) or extra call operands, so every
// region reads only its own arguments and the values of the enclosing function.
#include "frontend/dispatch.h"
#include "frontend/staging.h"
#include "ir/ops/stablehlo.h"
#include "kiln/lax.h"

namespace kiln::detail {

namespace {

// Checks that a body's results have the carry's types.
void checkCarry(const Function& body, const std::vector<ParamSpec>& carry, size_t count, const char* op) {
  for (size_t i = 0; i < count; ++i)
    if (body.resultTypes().at(i) != carry.at(i).type)
      throw Error(ErrorKind::Type, std::string(op) + ": the body returns " + body.resultTypes()[i].str() +
                                       " for carry leaf " + std::to_string(i) + ", which is " + carry[i].type.str() +
                                       " (the carry must keep its dtype and shape)");
}

}  // namespace

std::vector<Array> whileLoop(const FlatFn& cond, const FlatFn& body, const std::vector<Array>& init) {
  return composite(init, "while_loop", [&](const std::vector<Array>& in) {
    TraceState& t = *currentTrace();
    std::vector<ParamSpec> specs = specsOf(in);
    for (ParamSpec& s : specs) s.weak = false;
    TracedPiece c = tracePiece(*t.module, "cond", cond, specs);
    const TypeList& predicate = c.function->resultTypes();
    if (predicate.size() != 1 || predicate[0] != Type::scalar(DType::I1))
      throw Error(ErrorKind::Type, "while_loop: the condition returns " +
                                       (predicate.empty() ? std::string("nothing") : predicate[0].str()) +
                                       "; it must return a bool scalar");
    TracedPiece b = tracePiece(*t.module, "body", body, specs);
    if (b.function->resultTypes().size() != in.size())
      throw Error(ErrorKind::Type, "while_loop: the body returns " + std::to_string(b.function->resultTypes().size()) +
                                       " arrays for a carry of " + std::to_string(in.size()));
    checkCarry(*b.function, specs, in.size(), "while_loop");
    size_t n = in.size(), nc = c.captures.size(), nb = b.captures.size();
    std::vector<Value*> carries = joined(joined(t.valuesOf(in), t.valuesOf(c.captures)), t.valuesOf(b.captures));
    std::vector<Value*> results = t.builder->while_(
        carries,
        [&](Builder& rb, const std::vector<Value*>& a) {
          return rb.call(*c.function, joined(slice(a, 0, n), slice(a, n, nc)));
        },
        [&](Builder& rb, const std::vector<Value*>& a) {
          std::vector<Value*> next = rb.call(*b.function, joined(slice(a, 0, n), slice(a, n + nc, nb)));
          return joined(next, slice(a, n, nc + nb));
        });
    return t.tracersOf(slice(results, 0, n));
  });
}

std::vector<Array> switchBranches(const Array& index, const std::vector<FlatFn>& branches,
                                  const std::vector<Array>& operands) {
  if (branches.empty()) throw ApiError("usage", "switch: no branches");
  std::vector<Array> inputs = operands;
  inputs.push_back(index);
  return composite(inputs, "switch", [&](const std::vector<Array>& in) {
    TraceState& t = *currentTrace();
    std::vector<Array> ops(in.begin(), in.end() - 1);
    const Type& it = implOf(in.back()).type;
    if (it.rank() != 0 || !isInteger(it.dtype()))
      throw Error(ErrorKind::Type, "switch: the index is " + it.str() + "; it must be an integer scalar");
    std::vector<ParamSpec> specs = specsOf(ops);
    std::vector<TracedPiece> pieces;
    for (size_t i = 0; i < branches.size(); ++i) {
      pieces.push_back(tracePiece(*t.module, "branch", branches[i], specs));
      if (pieces[i].function->resultTypes() != pieces[0].function->resultTypes())
        throw Error(ErrorKind::Type, "switch: branch " + std::to_string(i) +
                                         " returns other types than branch 0 (every branch must return the same)");
    }
    Builder& b = *t.builder;
    // case takes an i32 index and runs the last branch for any index out of range; clamp
    // below as lax.switch does.
    Value* index = b.convert(t.valueOf(in.back()), DType::I32);
    index = b.clamp(b.splat(index->type(), 0), index, b.splat(index->type(), static_cast<double>(branches.size() - 1)));
    std::vector<Value*> args = t.valuesOf(ops);
    std::vector<BodyFn> bodies;
    for (const TracedPiece& p : pieces) {
      std::vector<Value*> all = joined(args, t.valuesOf(p.captures));
      const Function* callee = p.function;
      bodies.push_back([callee, all](Builder& rb, const std::vector<Value*>&) { return rb.call(*callee, all); });
    }
    return t.tracersOf(b.case_(index, bodies));
  });
}

std::vector<Array> scanLoop(const FlatFn& f, size_t numCarry, const std::vector<Array>& init,
                            const std::vector<Array>& xs, int64_t length, bool reverse) {
  std::vector<Array> inputs = init;
  inputs.insert(inputs.end(), xs.begin(), xs.end());
  return composite(inputs, "scan", [&](const std::vector<Array>& in) {
    TraceState& t = *currentTrace();
    Builder& b = *t.builder;
    std::vector<ParamSpec> specs = specsOf(in);
    for (size_t i = 0; i < specs.size(); ++i) {
      specs[i].weak = false;
      if (i < numCarry) continue;
      const Type& x = specs[i].type;
      if (x.rank() == 0 || x.dim(0) != length)
        throw Error(ErrorKind::Shape, "scan: xs leaf " + std::to_string(i - numCarry) + " is " + x.str() +
                                          "; every leaf needs a leading axis of length " + std::to_string(length));
      Shape slice(x.shape().begin() + 1, x.shape().end());
      specs[i].type = Type::tensor(x.dtype(), slice);
    }
    TracedPiece body = tracePiece(*t.module, "scan_body", f, specs);
    const TypeList& results = body.function->resultTypes();
    checkCarry(*body.function, specs, numCarry, "scan");
    size_t nx = in.size() - numCarry, ny = results.size() - numCarry, ncap = body.captures.size();

    // Carries: the step, the carry, the stacked ys, then the xs and captures (unchanged).
    Type step = Type::scalar(DType::I32);
    std::vector<Value*> carries{b.splat(step, 0)};
    for (Value* v : t.valuesOf(std::vector<Array>(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(numCarry))))
      carries.push_back(v);
    for (size_t k = 0; k < ny; ++k) {
      const Type& y = results[numCarry + k];
      Shape stacked{length};
      stacked.insert(stacked.end(), y.shape().begin(), y.shape().end());
      carries.push_back(b.splat(Type::tensor(y.dtype(), stacked), 0));
    }
    for (Value* v : t.valuesOf(std::vector<Array>(in.begin() + static_cast<std::ptrdiff_t>(numCarry), in.end())))
      carries.push_back(v);
    for (Value* v : t.valuesOf(body.captures)) carries.push_back(v);
    size_t yAt = 1 + numCarry, xAt = yAt + ny, capAt = xAt + nx;

    std::vector<Value*> out = b.while_(
        carries,
        [&](Builder& rb, const std::vector<Value*>& a) {
          return std::vector<Value*>{rb.compare(a[0], rb.splat(step, static_cast<double>(length)), ComparisonDirection::LT)};
        },
        [&](Builder& rb, const std::vector<Value*>& a) {
          Value* i = a[0];
          Value* at = reverse ? rb.binary(ops::Subtract, rb.splat(step, static_cast<double>(length - 1)), i) : i;
          std::vector<Value*> args = slice(a, 1, numCarry);
          for (size_t k = 0; k < nx; ++k) {
            Value* x = a[xAt + k];
            std::vector<Value*> starts{at};
            Dims sizes{1};
            for (int64_t d = 1; d < x->type().rank(); ++d) {
              starts.push_back(rb.splat(step, 0));
              sizes.push_back(x->type().dim(d));
            }
            Shape sliceShape(x->type().shape().begin() + 1, x->type().shape().end());
            args.push_back(rb.reshape(rb.dynamicSlice(x, starts, sizes), sliceShape));
          }
          for (Value* c : slice(a, capAt, ncap)) args.push_back(c);
          std::vector<Value*> r = rb.call(*body.function, args);
          std::vector<Value*> next{rb.binary(ops::Add, i, rb.splat(step, 1))};
          for (size_t k = 0; k < numCarry; ++k) next.push_back(r[k]);
          for (size_t k = 0; k < ny; ++k) {
            Value* ys = a[yAt + k];
            Value* y = r[numCarry + k];
            Shape one{1};
            one.insert(one.end(), y->type().shape().begin(), y->type().shape().end());
            std::vector<Value*> starts{at};
            for (int64_t d = 1; d < ys->type().rank(); ++d) starts.push_back(rb.splat(step, 0));
            next.push_back(rb.dynamicUpdateSlice(ys, rb.reshape(y, one), starts));
          }
          for (Value* v : slice(a, xAt, nx + ncap)) next.push_back(v);
          return next;
        });
    return t.tracersOf(joined(slice(out, 1, numCarry), slice(out, yAt, ny)));
  });
}

}  // namespace kiln::detail
