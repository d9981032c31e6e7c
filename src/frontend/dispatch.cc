#include "frontend/dispatch.h"

#include <cstdio>
#include <mutex>
#include <unordered_map>

#include "frontend/session.h"
#include "frontend/staging.h"
#include "kiln/transforms.h"

namespace kiln::detail {

namespace {

// A program staged from an op outside any trace, and whether each result is weak.
struct EagerProgram {
  std::shared_ptr<Staged> staged;
  std::vector<bool> weak;
};

EagerProgram stageEager(const std::vector<Array>& inputs, const std::string& name, const OpBody& body) {
  EagerProgram p;
  p.staged = stage(
      [&](const std::vector<Array>& in) {
        std::vector<Array> out = body(in);
        for (const Array& a : out) p.weak.push_back(a.weak());
        return out;
      },
      inputs, name);
  return p;
}

std::vector<Array> runEager(const EagerProgram& p, const std::vector<Array>& inputs, const std::string& label) {
  std::vector<Array> outputs = run(*p.staged, inputs, label);
  for (size_t i = 0; i < outputs.size(); ++i) implOf(outputs[i]).weak = p.weak[i];
  return outputs;
}

// What a keyed op's program depends on besides its key: each input's dtype, dims and
// weakness, and a host scalar's value (it becomes a constant of the program).
void appendSignature(std::string& out, const Array& a) {
  const ArrayImpl& impl = implOf(a);
  out += static_cast<char>(impl.type.dtype());
  out += static_cast<char>(impl.weak);
  out += static_cast<char>(impl.type.rank());
  for (int64_t d : impl.type.shape()) out.append(reinterpret_cast<const char*>(&d), sizeof d);
  if (impl.host) {
    out += 'h';
    out.append(reinterpret_cast<const char*>(impl.host->storage()), impl.host->storageSize());
  }
}

// "file:line:col" of a call site ("" for an operator, which has none), in a buffer kept
// by the thread: an op's label is formatted on every run, and the buffer keeps its
// capacity, so this allocates nothing once warm.
const std::string& siteLabel(const std::source_location& site) {
  thread_local std::string label;
  label.clear();
  if (site.line() == 0) return label;
  char numbers[48];
  std::snprintf(numbers, sizeof numbers, ":%u:%u", static_cast<unsigned>(site.line()), static_cast<unsigned>(site.column()));
  label.append(site.file_name()).append(numbers);
  return label;
}

// Programs of keyed ops outside a trace, by key and input signature: a repeated op is
// run without being traced, built or fingerprinted again (JAX's C++ dispatch path).
struct EagerCache {
  std::mutex lock;
  std::unordered_map<std::string, EagerProgram> programs;
};

EagerCache& eagerCache() {
  static EagerCache* cache = new EagerCache;  // never destroyed: ops may run at exit
  return *cache;
}

}  // namespace

std::vector<Array> emit(const std::vector<Array>& inputs, const std::source_location& site, const EmitFn& fn,
                        bool weak, const std::string& key) {
  return translated([&] {
    TraceState* trace = currentTrace();
    if (!trace) {
      auto body = [&](const std::vector<Array>& in) { return emit(in, site, fn, weak); };
      if (key.empty()) return composite(inputs, "op", body, siteLabel(site));
      thread_local std::string signature;  // keeps its capacity: no allocation per op
      signature.assign(key);
      for (const Array& a : inputs) appendSignature(signature, a);
      EagerCache& cache = eagerCache();
      {
        std::unique_lock<std::mutex> guard(cache.lock);
        auto it = cache.programs.find(signature);
        if (it != cache.programs.end()) {
          EagerProgram p = it->second;
          guard.unlock();
          return runEager(p, inputs, siteLabel(site));
        }
      }
      EagerProgram p = stageEager(inputs, "op", body);
      if (p.staged->captures.empty()) {
        std::lock_guard<std::mutex> guard(cache.lock);
        cache.programs.emplace(signature, p);
      }
      return runEager(p, inputs, siteLabel(site));
    }
    std::vector<Value*> values;
    for (const Array& a : inputs) values.push_back(trace->valueOf(a));
    trace->builder->setLocation(locationOf(site));
    std::vector<Value*> results = fn(*trace->builder, values);
    std::vector<Array> out;
    for (Value* v : results) out.push_back(makeTracer(trace->shared_from_this(), v, weak));
    return out;
  });
}

Array emit1(const std::vector<Array>& inputs, const std::source_location& site, const EmitFn& fn, bool weak,
            const std::string& key) {
  return emit(inputs, site, fn, weak, key).at(0);
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
    return runEager(stageEager(inputs, name, body), inputs, label);
  });
}

Array composite1(const std::vector<Array>& inputs, const std::string& name,
                 const std::function<Array(const std::vector<Array>&)>& body) {
  return composite(inputs, name, [&](const std::vector<Array>& in) { return std::vector<Array>{body(in)}; }).at(0);
}

}  // namespace kiln::detail
