#include "frontend/dispatch.h"

#include "frontend/session.h"
#include "kiln/transforms.h"

namespace kiln::detail {

std::vector<Array> emit(const std::vector<Array>& inputs, const std::source_location& site, const EmitFn& fn,
                        bool weak) {
  return translated([&] {
    TraceState* trace = currentTrace();
    if (!trace)
      return composite(inputs, "op", [&](const std::vector<Array>& in) { return emit(in, site, fn, weak); },
                       siteText(site));
    std::vector<Value*> values;
    for (const Array& a : inputs) values.push_back(trace->valueOf(a));
    trace->builder->setLocation(locationOf(site));
    std::vector<Value*> results = fn(*trace->builder, values);
    std::vector<Array> out;
    for (Value* v : results) out.push_back(makeTracer(trace->shared_from_this(), v, weak));
    return out;
  });
}

Array emit1(const std::vector<Array>& inputs, const std::source_location& site, const EmitFn& fn, bool weak) {
  return emit(inputs, site, fn, weak).at(0);
}

Array constantArray(Literal value, const std::source_location& site) {
  return translated([&] {
    if (TraceState* t = currentTrace()) {
      t->builder->setLocation(locationOf(site));
      return makeTracer(t->shared_from_this(), t->builder->constant(std::move(value)));
    }
    if (value.isSplat() && value.numElements() > 1) {
      // zeros, ones, full: the element goes to the device and is broadcast there, by a
      // program compiled once per shape (never a host copy of the whole array).
      Literal element = Literal::splat(Type::scalar(value.dtype()), value.storage());
      Array scalar = makeConcrete(Session::get().upload(element));
      const Shape shape = value.shape();
      return emit1({scalar}, site, [&](Builder& b, const std::vector<Value*>& v) {
        return std::vector<Value*>{b.broadcastInDim(v[0], shape, {})};
      });
    }
    return makeConcrete(Session::get().upload(value));
  });
}

std::vector<Array> composite(const std::vector<Array>& inputs, const std::string& name, const OpBody& body,
                             const std::string& label) {
  return translated([&] {
    if (currentTrace()) return body(inputs);
    std::vector<bool> weak;
    std::vector<Array> outputs;
    std::shared_ptr<Staged> staged = stage(
        [&](const std::vector<Array>& in) {
          std::vector<Array> out = body(in);
          for (const Array& a : out) weak.push_back(a.weak());
          return out;
        },
        inputs, name);
    if (!label.empty()) setLabel(*staged, label);
    outputs = run(*staged, inputs);
    for (size_t i = 0; i < outputs.size(); ++i) implOf(outputs[i]).weak = weak[i];
    return outputs;
  });
}

Array composite1(const std::vector<Array>& inputs, const std::string& name,
                 const std::function<Array(const std::vector<Array>&)>& body) {
  return composite(inputs, name, [&](const std::vector<Array>& in) { return std::vector<Array>{body(in)}; }).at(0);
}

}  // namespace kiln::detail
