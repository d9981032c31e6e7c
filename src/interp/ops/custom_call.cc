// Kernel: custom_call, by target name. Targets the interpreter knows: the check
// custom_calls of the test suites, JAX's @shape_assertion, and the Householder product
// that XLA emits for QR. Any other target is "unsupported" for that program.
#include "interp/ops/custom_calls.h"

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

HostValues customCall(const Op& op, const HostValues& v, EvalContext& ctx) {
  const std::string& target = op.attr("call_target_name").asString();
  if (std::optional<OpCode> check = checkOpOfCustomCall(target)) return customCallCheck(op, *check, v);
  if (target == "shape_assertion") return shapeAssertion(op, v);
  if (target == "ProductOfElementaryHouseholderReflectors") return householderProductKernel(op, v, ctx);
  unsupportedOp(op, "custom_call target @" + target);
}

}  // namespace

void addCustomCallKernels(KernelTable& t) { t.set(OpCode::CustomCall, &customCall); }

}  // namespace kiln::interp
