#include "transforms/promote_floats.h"

#include "ir/ops/stablehlo.h"
#include "ir/verifier.h"
#include "kernels/lapack/lapack_call.h"
#include "support/error.h"

namespace kiln::transforms {
namespace {

DType promoted(DType t) {
  if (isComplex(t)) return DType::C128;
  if (isFloat(t)) return DType::F64;
  return t;
}

Type promoted(const Type& t) {
  if (!t.isTensor()) return t;  // tuples and tokens: their elements are not promoted
  return t.withDType(promoted(t.dtype()));
}

Literal promoted(const Literal& lit) {
  Type to = promoted(lit.type());
  if (to == lit.type()) return lit;
  Literal out(to);
  if (lit.isSplat()) {
    Literal one(Type::scalar(to.dtype()));
    if (isComplex(to.dtype())) one.setComplex(0, lit.complexAt(0));
    else one.setFloat(0, lit.floatAt(0));
    return Literal::splat(to, one.storage());
  }
  for (int64_t i = 0; i < lit.numElements(); ++i) {
    if (isComplex(to.dtype())) out.setComplex(i, lit.complexAt(i));
    else out.setFloat(i, lit.floatAt(i));
  }
  return out;
}

// A LAPACK or BLAS call's target in double precision: the letter after "lapack_" or
// "blas_" names the element type (s, d, c, z); empty for other targets.
std::string doubleTarget(const Op& op) {
  if (!op.is(ops::CustomCall)) return {};
  std::string target = op.attr("call_target_name").asString();
  if (!kernels::isLapackTarget(target)) return {};
  const size_t at = target.find('_') + 1;
  if (target[at] == 's') target[at] = 'd';
  if (target[at] == 'c') target[at] = 'z';
  return target;
}

// Refuses, before anything changes, the ops whose meaning depends on the float width
// (LAPACK calls are renamed to their double-precision routines instead).
void checkPromotable(const Region& region) {
  walk(region, [](Op& op) {
    if (!op.is(ops::BitcastConvert) && !op.is(ops::CustomCall)) return;
    if (!doubleTarget(op).empty()) return;
    bool narrowFloat = false;
    for (Value* v : op.operands()) narrowFloat |= promoted(v->type()) != v->type();
    for (Value* r : op.results()) narrowFloat |= promoted(r->type()) != r->type();
    if (narrowFloat)
      throw Error(ErrorKind::Unsupported, "unsupported: promoting " + std::string(op.name()) + " to f64" +
                                              (op.pos.known() ? " (line " + std::to_string(op.pos.line) + ")" : ""));
  });
}

void promoteRegion(Region& region) {
  for (size_t i = 0; i < region.numArguments(); ++i) region.argument(i)->setType(promoted(region.argument(i)->type()));
  for (auto& op : region.ops()) {
    for (Value* r : op->results()) r->setType(promoted(r->type()));
    // Constants of every dialect (stablehlo, arith, util) keep their value in `value`.
    if (Attribute v = op->attr("value"); v && v.kind() == Attribute::Kind::Dense)
      op->setAttr("value", Attribute::dense(promoted(v.asDense())));
    if (std::string target = doubleTarget(*op); !target.empty())
      op->setAttr("call_target_name", Attribute::string(target));
    for (size_t r = 0; r < op->numRegions(); ++r) promoteRegion(op->region(r));
  }
}

}  // namespace

void promoteFloatsToF64(Module& module) {
  for (const auto& fn : module.functions()) checkPromotable(fn->body());
  for (const auto& fn : module.functions()) {
    promoteRegion(fn->body());
    TypeList results;
    for (const Type& t : fn->resultTypes()) results.push_back(promoted(t));
    fn->setResultTypes(results);
  }
  verifyModule(module);
}

}  // namespace kiln::transforms
