// Differential testing (differential.h).
#include "testing/differential.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <mutex>
#include <optional>

#include "interp/array_print.h"
#include "interp/interpreter.h"
#include "ir/builder.h"
#include "ir/ops/stablehlo.h"
#include "passes/buffer_assignment.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"
#include "runtime/client.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"
#include "testing/adjoint_check.h"

namespace kiln::testing {
namespace {

std::unique_ptr<Module> parse(const std::string& program) {
  return stablehlo::parseModule(SourceBuffer::fromString("<fuzz>", program));
}

bool isNaNAt(const Literal& v, int64_t i) {
  return isFloat(v.dtype()) ? std::isnan(v.floatAt(i))
                            : isComplex(v.dtype()) && (std::isnan(v.complexAt(i).real()) || std::isnan(v.complexAt(i).imag()));
}

std::string element(const Literal& v, int64_t i) {
  if (isFloat(v.dtype())) return std::to_string(v.floatAt(i));
  if (isComplex(v.dtype())) return std::to_string(v.complexAt(i).real()) + "+" + std::to_string(v.complexAt(i).imag()) + "i";
  return std::to_string(isUnsignedInt(v.dtype()) ? static_cast<int64_t>(v.uintAt(i)) : v.intAt(i));
}

// Whether a and b are within `tolerance` of each other relative to max(|a|, |b|, 1).
bool near(std::complex<double> a, std::complex<double> b, double tolerance) {
  const double scale = std::max({std::abs(a), std::abs(b), 1.0});
  return std::isfinite(scale) && std::abs(a - b) <= tolerance * scale;
}

}  // namespace

// `program`'s @main run through a plugin of the runtime (its C API), the way the CLI and
// the frontend reach a backend; with `donate`, every argument is donated. One client per
// plugin for the process, never destroyed: at exit, the loaded plugins (statics made
// after this one) would go first. The program a plugin compiled last is kept, so a
// second run of it (donating) does not compile it again.
interp::HostValues runOnPlugin(const std::string& name, const std::string& program, const interp::HostValues& inputs,
                               bool donate) {
  struct PluginState {
    runtime::Client client;
    std::string lastProgram;
    std::optional<runtime::Executable> lastExecutable;
  };
  static std::mutex mutex;
  static auto& plugins = *new std::map<std::string, PluginState>;
  std::unique_lock<std::mutex> lock(mutex);
  auto it = plugins.find(name);
  if (it == plugins.end()) it = plugins.emplace(name, PluginState{runtime::Client(runtime::Plugin::load(name)), {}, {}}).first;
  PluginState& state = it->second;
  const runtime::Client client = state.client;
  // Donated: every parameter of @main marked so, as JAX marks donated arguments.
  std::string text = program;
  if (donate) {
    auto module = parse(program);
    Function& main = *module->lookup("main");
    for (size_t i = 0; i < main.numParams(); ++i) passes::markDonation(main, i);
    text = stablehlo::printModule(*module);
  }
  std::optional<runtime::Executable> executable;
  if (state.lastProgram == text) executable = state.lastExecutable;
  lock.unlock();
  const runtime::Device device = client.devices().at(0);
  if (!executable) {
    executable = client.compile(text, {.name = "<fuzz>"});
    lock.lock();
    state.lastProgram = text;
    state.lastExecutable = executable;
    lock.unlock();
  }
  std::vector<runtime::Buffer> args;
  std::vector<const runtime::Buffer*> argPointers;
  for (const interp::HostValue& v : inputs) args.push_back(client.bufferFromHost(v.tensor(), device));
  for (const runtime::Buffer& b : args) argPointers.push_back(&b);
  runtime::Executable::Execution run = executable->execute(argPointers, device);
  run.done.await();
  interp::HostValues results;
  for (const runtime::Buffer& out : run.outputs) results.push_back(out.toLiteral());
  return results;
}

double tolerance(const Module& module) {
  int freeOps = 0;
  int precision = 53;  // significand bits of the narrowest float format
  for (const auto& fn : module.functions())
    walk(fn->body(), [&](Op& op) {
      for (const Value* r : op.results()) {
        const DType e = r->type().dtype();
        freeOps += roundsFreely(op.info(), e);
        if (isFloat(e) || isComplex(e)) precision = std::min(precision, info(e).format.mantissaBits + 1);
      }
    });
  // Each such op's result may be an ulp or two off, which the ops after it may magnify
  // by a few bits more.
  return freeOps == 0 ? 0 : freeOps * std::ldexp(1.0, 6 - precision);
}

std::optional<std::string> firstDifference(const interp::HostValues& expected, const interp::HostValues& got,
                                           double tolerance) {
  if (expected.size() != got.size())
    return std::to_string(got.size()) + " results instead of " + std::to_string(expected.size());
  for (size_t r = 0; r < expected.size(); ++r) {
    const Literal& a = expected[r].tensor();
    const Literal& b = got[r].tensor();
    const std::string where = "result " + std::to_string(r);
    if (a.type() != b.type()) return where + " is " + b.type().str() + ", not " + a.type().str();
    for (int64_t i = 0; i < a.numElements(); ++i) {
      if (a.bitsAt(i) == b.bitsAt(i) || (isNaNAt(a, i) && isNaNAt(b, i))) continue;
      if (tolerance > 0 && isFloat(a.dtype()) && near(a.floatAt(i), b.floatAt(i), tolerance)) continue;
      if (tolerance > 0 && isComplex(a.dtype()) && near(a.complexAt(i), b.complexAt(i), tolerance)) continue;
      // (complex elements are two parts: bitsAt compares the storage of both)
      return where + " element " + std::to_string(i) + ": " + element(b, i) + " instead of " + element(a, i);
    }
  }
  return std::nullopt;
}

std::optional<std::string> disagreement(const std::string& program, const interp::HostValues& inputs) {
  interp::HostValues expected;
  double tol = 0;
  try {
    auto module = parse(program);
    tol = tolerance(*module);
    expected = interp::Interpreter(*module).call("main", inputs);
  } catch (const Error&) {
    return std::nullopt;
  }
  auto check = [&](const std::string& executor, const std::function<interp::HostValues()>& run)
      -> std::optional<std::string> {
    try {
      if (auto d = firstDifference(expected, run(), tol)) return executor + ": " + *d;
    } catch (const Error& e) {
      return executor + " threw: " + e.what();
    }
    return std::nullopt;
  };
  if (auto d = check("interp after the optimizer", [&] {
        auto module = parse(program);
        passes::PassContext context;
        passes::runPipeline(*module, passes::defaultPipeline(), context);
        return interp::Interpreter(*module).call("main", inputs);
      }))
    return d;
  for (const char* plugin : {"interp", "cpu"})
    if (auto d = check(std::string(plugin) + " plugin", [&] { return runOnPlugin(plugin, program, inputs, false); }))
      return d;
  // Every argument donated: the cpu plugin writes results into arguments where it may.
  if (auto d = check("cpu plugin, every argument donated", [&] { return runOnPlugin("cpu", program, inputs, true); }))
    return d;
  try {
    auto module = parse(program);
    AdjointCheck adjoint = checkAdjoint(*module, "main", inputs, 1);
    if (adjoint.outcome == AdjointCheck::Outcome::Inconsistent) return "jvp/vjp: " + adjoint.message;
  } catch (const Error& e) {
    // (an op the transforms refuse, as JAX does: max of complex numbers, ...)
    if (e.kind() != ErrorKind::Unsupported) return std::string("jvp/vjp threw: ") + e.what();
  }
  return std::nullopt;
}

std::string minimize(const std::string& program, const std::function<bool(const std::string&)>& stillFails) {
  std::string best = stablehlo::printModule(*parse(program));  // (sizes compare in one form)
  for (bool shrunk = true; shrunk;) {
    shrunk = false;
    const size_t numOps = parse(best)->lookup("main")->body().ops().size();
    // From the last op back. Dead ops are not swept away: the disagreement may be in
    // how an executor treats them (the optimizer rewrites dead code too).
    for (size_t k = numOps; k-- > 0;) {
      auto module = parse(best);
      Region& body = module->lookup("main")->body();
      auto it = body.ops().begin();
      std::advance(it, static_cast<std::ptrdiff_t>(k));
      Op* op = it->get();
      if (op->info().isTerminator()) continue;
      const std::vector<Value*> results = op->results();
      const bool unread =
          std::all_of(results.begin(), results.end(), [](const Value* v) { return v->uses().empty(); });
      // A constant goes once nothing reads it (a dropped op's stand-ins are constants).
      if (op->info().category == OpCategory::Constant && !unread) continue;
      // Each result is replaced by an operand of its type, or else a zero of its type.
      Builder b = Builder::before(*op, module.get());
      for (size_t r = 0; r < op->numResults() && !unread; ++r) {
        Value* result = op->result(r);
        Value* same = nullptr;
        for (Value* v : op->operands())
          if (v->type() == result->type()) same = v;
        result->replaceAllUsesWith(same ? same : b.splat(result->type(), 0));
      }
      body.erase(op);
      const std::string candidate = stablehlo::printModule(*module);
      if (candidate.size() < best.size() && stillFails(candidate)) {
        best = candidate;
        shrunk = true;
        break;
      }
    }
  }
  return best;
}

}  // namespace kiln::testing
