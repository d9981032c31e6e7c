// Kernels: constants, tuples, tokens.
#include "interp/kernels.h"
#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"

namespace kiln::interp {
namespace {

HostValues constant(const Op& op, const HostValues&, EvalContext&) {
  return {op.attr("value").asDense()};
}

HostValues tuple(const Op&, const HostValues& v, EvalContext&) { return {HostValue::tuple(v)}; }

HostValues getTupleElement(const Op& op, const HostValues& v, EvalContext&) {
  return {v[0].elements().at(static_cast<size_t>(op.attr("index").asInt()))};
}

HostValues afterAll(const Op&, const HostValues&, EvalContext&) { return {HostValue::token()}; }

}  // namespace

void addMiscKernels(KernelTable& t) {
  // util.unfoldable_constant and arith.constant are constants to the interpreter.
  t.set(ops::Constant, &constant);
  t.set(ops::UtilUnfoldableConstant, &constant);
  t.set(ops::ArithConstant, &constant);
  t.set(ops::Tuple, &tuple);
  t.set(ops::GetTupleElement, &getTupleElement);
  t.set(ops::AfterAll, &afterAll);
  // Quantized types do not parse yet, so these ops cannot occur in a module that does.
  t.unsupported(ops::UniformQuantize, "quantized types");
  t.unsupported(ops::UniformDequantize, "quantized types");
  // Their wrapped computation is the execution_thread machinery of XLA, which no
  // exporter kiln reads emits.
  t.unsupported(ops::AsyncStart, "async computations");
  t.unsupported(ops::AsyncDone, "async computations");
}

}  // namespace kiln::interp
