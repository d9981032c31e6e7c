// Finding and rejecting constants whose data was elided (see the header).
#include "ir/elided_constants.h"

#include "support/error.h"

namespace kiln {

bool isElidedConstant(const Op& op) {
  return op.info().category == OpCategory::Constant && static_cast<bool>(op.attr(kElidedAttr));
}

const Op* findElidedConstant(const Module& module) {
  for (const auto& fn : module.functions()) {
    const Op* found = nullptr;
    walk(fn->body(), [&](Op& op) {
      if (!found && isElidedConstant(op)) found = &op;
    });
    if (found) return found;
  }
  return nullptr;
}

void rejectElidedConstants(const Module& module) {
  const Op* op = findElidedConstant(module);
  if (!op) return;
  std::string message = "the constant " + op->result(0)->type().str();
  if (!op->loc.isUnknown()) message += " at " + op->loc.str();
  message +=
      " has no data (dense_resource<__elided__>: the exporter left it out); run with "
      "--fill-elided SEED to fill every elided constant with seeded random values";
  if (op->pos.known() && module.source)
    throw Error(ErrorKind::Runtime, message, module.source, op->pos);
  throw Error(ErrorKind::Runtime, message);
}

}  // namespace kiln
