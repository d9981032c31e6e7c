// Flop and byte counts of a function (cost_analysis.h).
#include "passes/cost_analysis.h"

#include <algorithm>

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln::passes {
namespace {

double elements(const Type& t) { return t.isTensor() ? static_cast<double>(t.numElements()) : 0; }
double bytesOf(const Type& t) { return t.isTensor() ? static_cast<double>(t.byteSize()) : 0; }

double opFlops(const Op& op) {
  switch (op.code()) {
    case ops::DotGeneral:
    case ops::Dot:
    case ops::Convolution:
      return 2 * elements(op.result()->type()) * static_cast<double>(productsPerElement(op));
    case ops::Reduce: return elements(op.operand(0)->type());
    default: break;
  }
  OpCategory c = op.info().category;
  bool computes = c == OpCategory::ElementwiseUnary || c == OpCategory::ElementwiseBinary ||
                  c == OpCategory::ElementwiseOther || c == OpCategory::Chlo;
  return computes && op.numResults() == 1 ? elements(op.result()->type()) : 0;
}

void countRegion(const Module& module, const Region& region, Cost& cost, int depth) {
  for (const auto& op : region.ops()) {
    cost.flops += opFlops(*op);
    if (op->is(ops::FuncCall) && depth < 64) {
      if (const Function* callee = module.lookup(op->attr("callee").asString()))
        countRegion(module, callee->body(), cost, depth + 1);
    }
    // Nested regions: fusion bodies and control flow (a loop body counts once).
    if (!op->is(ops::Reduce))
      for (size_t r = 0; r < op->numRegions(); ++r) countRegion(module, op->region(r), cost, depth);
  }
}

}  // namespace

int64_t productsPerElement(const Op& op) {
  if (op.is(ops::DotGeneral) || op.is(ops::Dot)) {
    int64_t k = 1;
    for (int64_t d : DotDims::of(op).lhsContracting) k *= op.operand(0)->type().dim(d);
    return k;
  }
  if (op.is(ops::Convolution)) {
    // Each result element sums over the kernel's input features and window.
    const Type& kernel = op.operand(1)->type();
    const int64_t outputFeatures = kernel.dim(ConvDims::fromAttr(op.attr("dimension_numbers")).kernelOutputFeature);
    return kernel.numElements() / std::max<int64_t>(1, outputFeatures);
  }
  return 1;
}

Cost costOf(const Module& module, const Function& fn) {
  Cost cost;
  for (const Type& t : fn.paramTypes()) cost.bytes += bytesOf(t);
  for (const Type& t : fn.resultTypes()) cost.bytes += bytesOf(t);
  countRegion(module, fn.body(), cost, 0);
  return cost;
}

Cost costOf(const Module& module, const Op& op) {
  Cost cost;
  for (const Value* v : op.operands()) cost.bytes += bytesOf(v->type());
  for (const Value* v : op.results()) cost.bytes += bytesOf(v->type());
  cost.flops = opFlops(op);
  if (!op.is(ops::Reduce))
    for (size_t r = 0; r < op.numRegions(); ++r) countRegion(module, op.region(r), cost, 0);
  return cost;
}

}  // namespace kiln::passes
