// Kernel: custom_call, by target name. Targets the interpreter knows: the check
// custom_calls of the test suites, JAX's @shape_assertion, the Householder product
// that XLA emits for QR, and JAX's LAPACK calls (run by the kernels the cpu backend
// runs too, kernels/lapack/). Any other target is "unsupported: custom_call @name".
#include "interp/ops/custom_calls.h"
#include "ir/ops/stablehlo.h"
#include "kernels/lapack/lapack_call.h"

namespace kiln::interp {
namespace {

// JAX's shape_assertion(predicate, error_message = ...): fails the run unless every
// element of the predicate is true. (IREE drops these; kiln checks them, as JAX means.)
HostValues shapeAssertion(const Op& op, const HostValues& v) {
  const Literal& predicate = v.at(0).tensor();
  for (int64_t i = 0; i < predicate.numElements(); ++i) {
    if (!predicate.boolAt(i)) {
      Attribute message = op.attr("error_message");
      runtimeError(op, "shape assertion failed: " +
                           (message && message.is(Attribute::Kind::String) ? message.asString() : std::string("(no message)")));
    }
  }
  return {};
}

// A LAPACK call on the interpreter's values (dense copies of splat operands).
HostValues lapackCall(const kernels::LapackCall& call, const HostValues& v) {
  std::vector<Literal> inputs;
  std::vector<const void*> operands;
  inputs.reserve(v.size());
  for (const HostValue& value : v) {
    inputs.push_back(value.tensor());
    operands.push_back(inputs.back().denseStorage());
  }
  std::vector<Literal> outputs;
  std::vector<void*> results;
  for (const Type& t : call.results) outputs.emplace_back(t);
  for (Literal& out : outputs) results.push_back(out.mutableStorage());
  kernels::runLapackCall(call, operands.data(), results.data());
  return HostValues(std::make_move_iterator(outputs.begin()), std::make_move_iterator(outputs.end()));
}

HostValues customCall(const Op& op, const HostValues& v, EvalContext& ctx) {
  const std::string& target = op.attr("call_target_name").asString();
  if (std::optional<OpCode> check = checkOpOfCustomCall(target)) return customCallCheck(op, *check, v);
  if (target == "shape_assertion") return shapeAssertion(op, v);
  if (target == "ProductOfElementaryHouseholderReflectors") return householderProductKernel(op, v, ctx);
  if (std::optional<kernels::LapackCall> call = kernels::lapackCallOf(op)) return lapackCall(*call, v);
  if (target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape")
    throwUnsupported("custom_call @" + target + " outside a partitioned program (a shard_map: run it with --partition)");
  throwUnsupported("custom_call @" + target);
}

}  // namespace

void addCustomCallKernels(KernelTable& t) { t.set(ops::CustomCall, &customCall); }

}  // namespace kiln::interp
