// Staged programs: a function traced into a module of its own, compiled through the
// session on first run (jit, and every op outside a trace); and the IR transforms
// applied to traced functions (grad, vmap), whose result is either called from the
// enclosing trace or compiled and run at once.
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "frontend/array_impl.h"
#include "frontend/jaxpr.h"
#include "frontend/session.h"
#include "frontend/staging.h"
#include "frontend/trace.h"
#include "kiln/numpy.h"
#include "kiln/transforms.h"
#include "passes/buffer_assignment.h"
#include "passes/sharding/propagation.h"
#include "stablehlo/printer.h"
#include "transforms/autodiff.h"
#include "transforms/vmap.h"

namespace kiln::detail {


bool tracing() { return currentTrace() != nullptr; }

std::shared_ptr<Staged> stage(const FlatFn& f, const std::vector<Array>& inputs, const std::string& name) {
  return translated([&] {
    auto staged = std::make_shared<Staged>();
    staged->module = std::make_unique<Module>();
    TraceScope scope(*staged->module, name, specsOf(inputs));
    std::vector<Array> outputs = f(scope.inputs());
    staged->entry = scope.finish(outputs).name();
    staged->captures = scope.captures();
    staged->label = name;
    return staged;
  });
}

std::vector<size_t> donatedLeaves(const JitOptions& options, const std::vector<size_t>& leafCounts) {
  return translated([&] {
    if (!options.inShardings.empty() || !options.outShardings.empty())
      throw Error(ErrorKind::Unsupported,
                  "unsupported: donate_argnums with in_shardings or out_shardings (" + options.name + ")");
    std::vector<size_t> first(leafCounts.size() + 1, 0);  // each argument's first leaf
    for (size_t i = 0; i < leafCounts.size(); ++i) first[i + 1] = first[i] + leafCounts[i];
    std::vector<size_t> leaves;
    for (size_t arg : options.donateArgnums) {
      if (arg >= leafCounts.size())
        throw Error(ErrorKind::Usage, "donate_argnums names argument " + std::to_string(arg) + ", but " +
                                          options.name + " was called with " + std::to_string(leafCounts.size()) +
                                          " arguments");
      for (size_t leaf = first[arg]; leaf < first[arg + 1]; ++leaf) leaves.push_back(leaf);
    }
    return leaves;
  });
}

std::vector<Array> run(const Staged& staged, const std::vector<Array>& inputs, const std::string& label,
                       const std::vector<size_t>& donate) {
  // A program with shardings of its own (with_sharding_constraint, shard_map) is
  // partitioned by them.
  bool sharded = false;
  {
    std::lock_guard<std::mutex> guard(staged.lock);
    if (!staged.givesShardings) {
      staged.givesShardings = false;
      for (const auto& fn : staged.module->functions())
        if (passes::hasShardings(*staged.module, *fn)) staged.givesShardings = true;
    }
    sharded = *staged.givesShardings;
  }
  if (sharded) {
    if (!donate.empty())
      translated([&] {
        throw Error(ErrorKind::Unsupported,
                    "unsupported: donate_argnums for a program with shardings of its own (" + staged.label + ")");
      });
    return runSharded(staged, inputs, {}, {});
  }
  return translated([&] {
    Session& session = Session::get();
    {
      // The donated parameters are marked in the program, as JAX marks them: the plugin
      // decides at compile time which outputs take over which arguments. (A staged
      // program comes with one jit entry, so with one set of donated arguments.)
      std::lock_guard<std::mutex> guard(staged.lock);
      if (!staged.executable) {
        Function& entry = *staged.module->lookup(staged.entry);
        for (size_t i : donate) passes::markDonation(entry, i);
        staged.executable = session.compile(*staged.module, staged.entry);
      }
    }
    std::vector<runtime::Buffer> buffers;
    for (const Array& a : inputs) buffers.push_back(deviceBuffer(a));
    for (const Array& a : staged.captures) buffers.push_back(deviceBuffer(a));
    std::vector<const runtime::Buffer*> args;
    for (const runtime::Buffer& b : buffers) args.push_back(&b);
    // Donated: the inputs that are one buffer the device holds; a C scalar's upload or a
    // sharded array's assembly is kept (as in JAX, donation is skipped where it cannot be
    // used). They are marked once the call has taken them (a call that fails donates
    // nothing).
    runtime::ExecuteOptions options{label.empty() ? staged.label : label, {}};
    std::vector<ArrayImpl*> given;
    for (size_t i : donate) {
      ArrayImpl& impl = implOf(inputs.at(i));
      if (impl.host || impl.shards) options.keep.push_back(static_cast<int64_t>(i));
      else given.push_back(&impl);
    }
    runtime::Executable::Execution execution = staged.executable->execute(args, session.device(), options);
    for (ArrayImpl* impl : given) {
      std::lock_guard<std::mutex> guard(impl->uploadLock);
      impl->donatedTo = options.label;
    }
    session.track(execution.done);
    std::vector<Array> outputs;
    for (runtime::Buffer& b : execution.outputs) outputs.push_back(makeConcrete(std::move(b)));
    return outputs;
  });
}

std::string exportedText(const FlatFn& f, const std::vector<Array>& inputs) {
  return translated([&] {
    std::shared_ptr<Staged> staged = stage(f, inputs, "traced");
    Module& module = *staged->module;
    Function& traced = *module.lookup(staged->entry);
    traced.visibility = Visibility::Private;
    // @main takes the inputs alone: the arrays f closed over are constants of the
    // program, as in JAX's exports.
    TypeList params;
    for (size_t i = 0; i < inputs.size(); ++i) params.push_back(traced.param(i)->type());
    buildFunction(module, "main", params, [&](Builder& b, const std::vector<Value*>& x) {
      std::vector<Value*> args = x;
      for (const Array& c : staged->captures) args.push_back(b.constant(hostValue(c)));
      return b.call(traced, args);
    }, Visibility::Public);
    return stablehlo::printModule(module);
  });
}

std::string stagedJaxpr(const Staged& staged) {
  return translated([&] { return jaxprText(*staged.module, *staged.module->lookup(staged.entry), staged.captures.size()); });
}

TracedPiece tracePiece(Module& module, const std::string& name, const FlatFn& f, const std::vector<ParamSpec>& params,
                       const std::function<void(const std::vector<Array>&)>& check) {
  TraceScope scope(module, name, params, Visibility::Private);
  std::vector<Array> outputs = f(scope.inputs());
  if (check) check(outputs);
  TracedPiece piece{&scope.finish(outputs), {}};
  piece.captures = scope.captures();
  return piece;
}

std::string leafTypes(const std::vector<Array>& leaves) {
  std::string out;
  for (const Array& a : leaves) out += a.type_string() + (a.weak() ? "~" : "") + ";";
  return out;
}

namespace {

// Calls `callee` (a function of `module`) with `args`: from the enclosing trace when
// there is one (then `module` is its module), else compiled and run now (then `own`
// holds `module`).
std::vector<Array> callOrRun(std::unique_ptr<Module> own, const Function& callee, const std::vector<Array>& args) {
  if (TraceState* outer = currentTrace()) {
    std::vector<Value*> values;
    for (const Array& a : args) values.push_back(outer->valueOf(a));
    std::vector<Value*> results = outer->builder->call(callee, values);
    std::vector<Array> out;
    for (Value* v : results) out.push_back(makeTracer(outer->shared_from_this(), v));
    return out;
  }
  Staged staged;
  staged.entry = callee.name();
  staged.module = std::move(own);
  return run(staged, args);
}

}  // namespace

std::vector<Array> concat(std::vector<Array> a, const std::vector<Array>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<Array> grad(const FlatFn& f, const std::vector<Array>& inputs, const GradSpec& spec) {
  return translated([&] {
    std::unique_ptr<Module> own;
    Module* module = currentTrace() ? currentTrace()->module : (own = std::make_unique<Module>()).get();
    auto checkLoss = [](const std::vector<Array>& outputs) {
      const Type& t = implOf(outputs.at(0)).type;
      if (t.rank() != 0 || !(isFloat(t.dtype()) || kiln::isComplex(t.dtype())))
        throw Error(ErrorKind::Usage, "grad: the function returns " + t.str() +
                                          "; grad needs a float scalar (reduce it with sum or mean first)");
    };
    TracedPiece piece = tracePiece(*module, "loss", f, specsOf(inputs), checkLoss);
    transforms::GradOptions options;
    options.wrt = spec.wrt;
    options.withValue = spec.withValue;
    options.hasAux = spec.hasAux;
    Function& g = transforms::grad(*module, *piece.function, options, freshName(*module, "grad"));
    return callOrRun(std::move(own), g, concat(inputs, piece.captures));
  });
}

std::vector<Array> jvp(const FlatFn& f, const std::vector<Array>& primals, const std::vector<Array>& tangents) {
  return translated([&] {
    if (tangents.size() != primals.size())
      throw Error(ErrorKind::Usage, "jvp: " + std::to_string(tangents.size()) + " tangents for " +
                                        std::to_string(primals.size()) + " primals");
    for (size_t i = 0; i < primals.size(); ++i)
      if (transforms::hasTangent(implOf(primals[i]).type) && implOf(tangents[i]).type != implOf(primals[i]).type)
        throw Error(ErrorKind::Type, "jvp: the tangent of primal leaf " + std::to_string(i) + " is " +
                                         implOf(tangents[i]).type.str() + "; it must be " + implOf(primals[i]).type.str());
    std::unique_ptr<Module> own;
    Module* module = currentTrace() ? currentTrace()->module : (own = std::make_unique<Module>()).get();
    TracedPiece piece = tracePiece(*module, "primal", f, specsOf(primals));
    Function& d = transforms::jvp(*module, *piece.function, freshName(*module, "jvp"));
    // Arguments: the primals and captures, then the tangents of the differentiable ones
    // (zero for captures: they are constants of f).
    std::vector<Array> args = concat(primals, piece.captures);
    for (size_t i = 0; i < primals.size(); ++i)
      if (transforms::hasTangent(implOf(primals[i]).type)) args.push_back(tangents[i]);
    for (const Array& c : piece.captures)
      if (transforms::hasTangent(implOf(c).type)) args.push_back(zeros(c.shape(), c.dtype()));
    // (Read before the call: outside a trace, the module goes with it.)
    TypeList results = piece.function->resultTypes();
    std::vector<Array> out = callOrRun(std::move(own), d, args);
    // Outputs, then one tangent per output (zeros for outputs without one, as JAX's
    // float0 tangents of integers).
    std::vector<Array> all(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(results.size()));
    size_t next = results.size();
    for (size_t i = 0; i < results.size(); ++i)
      all.push_back(transforms::hasTangent(results[i]) ? out.at(next++) : zeros_like(all[i]));
    return all;
  });
}

std::vector<Array> vmap(const FlatFn& f, const std::vector<Array>& inputs,
                        const std::vector<std::optional<int64_t>>& inAxes, int64_t outAxis) {
  return translated([&] {
    int64_t size = -1;
    std::vector<ParamSpec> slices;
    std::vector<std::optional<int64_t>> axes;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Type& t = implOf(inputs[i]).type;
      ParamSpec spec{t, implOf(inputs[i]).weak};
      std::optional<int64_t> axis = inAxes.at(i);
      if (axis) {
        int64_t a = *axis < 0 ? *axis + t.rank() : *axis;
        if (a < 0 || a >= t.rank())
          throw Error(ErrorKind::Usage, "vmap: in_axis " + std::to_string(*axis) + " of argument leaf " +
                                            std::to_string(i) + ", which is " + t.str());
        if (size >= 0 && t.dim(a) != size)
          throw Error(ErrorKind::Usage, "vmap: batch sizes differ: " + std::to_string(size) + " and " +
                                            std::to_string(t.dim(a)) + " (argument leaf " + std::to_string(i) + ", " +
                                            t.str() + ")");
        size = t.dim(a);
        Shape shape = t.shape();
        shape.erase(shape.begin() + a);
        spec.type = Type::tensor(t.dtype(), shape);
        axis = a;
      }
      slices.push_back(spec);
      axes.push_back(axis);
    }
    if (size < 0) throw Error(ErrorKind::Usage, "vmap: no argument is batched (every in_axis is none)");
    std::unique_ptr<Module> own;
    Module* module = currentTrace() ? currentTrace()->module : (own = std::make_unique<Module>()).get();
    TracedPiece piece = tracePiece(*module, "slice", f, slices, nullptr);
    transforms::VmapOptions options;
    options.inAxes = axes;
    options.inAxes.resize(axes.size() + piece.captures.size(), std::nullopt);
    options.size = size;
    for (const Type& t : piece.function->resultTypes())
      options.outAxes.push_back(outAxis < 0 ? outAxis + t.rank() + 1 : outAxis);
    Function& v = transforms::vmap(*module, *piece.function, options, freshName(*module, "vmap"));
    return callOrRun(std::move(own), v, concat(inputs, piece.captures));
  });
}

std::string explainRecompile(const std::string& name, const std::vector<std::string>& before,
                             const std::vector<std::string>& now, bool print) {
  std::string why;
  for (size_t i = 0; i < now.size(); ++i) {
    if (i < before.size() && before[i] == now[i]) continue;
    if (!why.empty()) why += "; ";
    why += "argument " + std::to_string(i) + " was " + (i < before.size() ? before[i] : "absent") + ", now " + now[i];
  }
  if (before.size() > now.size()) why += (why.empty() ? "" : "; ") + std::string("fewer arguments");
  std::string message = name + " compiles again: " + why;
  if (print) std::fprintf(stderr, "kiln: %s\n", message.c_str());
  return message;
}

bool explainRecompilesFromEnvironment() {
  const char* env = std::getenv("KILN_EXPLAIN_RECOMPILES");
  return env && std::string(env) != "0" && *env;
}

}  // namespace kiln::detail
