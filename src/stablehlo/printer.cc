// The printer: modules, functions, regions, value names and generic-form ops.
#include "stablehlo/printer.h"

#include <sstream>

#include "ir/elided_constants.h"
#include "ir/ops/stablehlo.h"
#include "ir/sharding_attrs.h"
#include "stablehlo/printer_impl.h"

namespace kiln::stablehlo {

std::string printModule(const Module& module, const PrintOptions& options) {
  Printer p(options);
  p.printModule(module);
  return std::move(p.out());
}

void printModule(const Module& module, std::ostream& out, const PrintOptions& options) {
  out << printModule(module, options);
}

std::string printOp(const Op& op, const PrintOptions& options) {
  Printer p(options);
  p.printOp(op);
  return std::move(p.out());
}

std::string elidedValueText(const Op& op) {
  return "dense_resource<__elided__> : " + op.result(0)->type().str();
}

bool isNonDefault(const OpInfo& info, const NamedAttribute& attr) {
  const AttrSpec* spec = info.findAttr(attr.name);
  return !spec || !spec->defaultValue() || attr.value != spec->defaultValue();
}

// ---- values -----------------------------------------------------------------------------

const std::string& Printer::valueName(const Value* v) {
  auto it = names_.find(v);
  if (it != names_.end()) return it->second;
  // A value defined outside what is being printed (printOp of a nested op).
  std::string name = "%<" + std::string(v->isArgument() ? "arg" : "result") + std::to_string(names_.size()) + ">";
  return names_.emplace(v, name).first->second;
}

void Printer::nameRegionArgs(const Region& region) {
  for (size_t i = 0; i < region.numArguments(); ++i)
    names_[region.argument(i)] = "%arg" + std::to_string(nextArg_++);
}

void Printer::printValueList(const std::vector<Value*>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out_ += ", ";
    printValue(values[i]);
  }
}

void Printer::printResults(const Op& op) {
  if (op.numResults() == 0) return;
  std::string base = "%" + std::to_string(nextResult_++);
  if (op.numResults() == 1) {
    names_[op.result(0)] = base;
    out_ += base + " = ";
    return;
  }
  for (size_t i = 0; i < op.numResults(); ++i) names_[op.result(i)] = base + "#" + std::to_string(i);
  out_ += base + ":" + std::to_string(op.numResults()) + " = ";
}

// ---- structure ----------------------------------------------------------------------------

void Printer::printModule(const Module& module) {
  out_ += "module";
  if (!module.name.empty()) out_ += " " + symbolText(module.name);
  if (!module.attrs.empty()) {
    out_ += " attributes ";
    printAttrDict(module.attrs);
  }
  out_ += " {";
  ++indent_;
  for (const Module::NamedMesh& m : module.meshes) {
    newline();
    out_ += "sdy.mesh " + symbolText(m.name) + " = " + printSdyMesh(m.mesh);
  }
  for (const auto& fn : module.functions()) {
    newline();
    printFunction(*fn);
  }
  --indent_;
  newline();
  out_ += "}";
  printLocation(module.loc);
  out_ += "\n";
}

void Printer::printFunction(const Function& fn) {
  names_.clear();
  nextResult_ = nextArg_ = 0;
  out_ += "func.func ";
  if (fn.visibility == Visibility::Private) out_ += "private ";
  if (fn.visibility == Visibility::Nested) out_ += "nested ";
  out_ += symbolText(fn.name()) + "(";
  nameRegionArgs(fn.body());
  for (size_t i = 0; i < fn.numParams(); ++i) {
    if (i) out_ += ", ";
    printValue(fn.param(i));
    out_ += ": ";
    printType(fn.param(i)->type());
    if (!fn.argAttrs[i].empty()) {
      out_ += " ";
      printAttrDict(fn.argAttrs[i]);
    }
    printLocation(fn.argLocs[i]);
  }
  out_ += ")";
  const TypeList& results = fn.resultTypes();
  bool resultAttrs = false;
  for (const auto& a : fn.resultAttrs) resultAttrs = resultAttrs || !a.empty();
  if (results.size() == 1 && !resultAttrs) {
    out_ += " -> ";
    printType(results[0]);
  } else if (!results.empty()) {
    out_ += " -> (";
    for (size_t i = 0; i < results.size(); ++i) {
      if (i) out_ += ", ";
      printType(results[i]);
      if (!fn.resultAttrs[i].empty()) {
        out_ += " ";
        printAttrDict(fn.resultAttrs[i]);
      }
    }
    out_ += ")";
  }
  if (!fn.attrs.empty()) {
    out_ += " attributes ";
    printAttrDict(fn.attrs);
  }
  out_ += " ";
  printRegion(fn.body(), /*entryArgs=*/false);
  printLocation(fn.loc);
}

void Printer::printRegion(const Region& region, bool entryArgs) {
  // Result numbers are scoped like MLIR's: a region continues its parent's numbering and
  // the numbers it used are free again after it.
  size_t savedResult = nextResult_;
  out_ += "{";
  ++indent_;
  if (entryArgs && region.numArguments() > 0) {
    nameRegionArgs(region);
    newline();
    out_ += "^bb0(";
    for (size_t i = 0; i < region.numArguments(); ++i) {
      if (i) out_ += ", ";
      printValue(region.argument(i));
      out_ += ": ";
      printType(region.argument(i)->type());
    }
    out_ += "):";
  }
  for (const auto& op : region.ops()) {
    newline();
    printOp(*op);
  }
  --indent_;
  newline();
  out_ += "}";
  nextResult_ = savedResult;
}

void Printer::printOp(const Op& op) {
  const OpSyntax& syntax = opSyntax(op.code());
  if (!options_.generic && (isShardingConstraint(op) || (op.is(ops::Reshape) && op.attr(kShardMapBoundaryAttr)))) {
    printShardingConstraint(op);
  } else if (options_.generic || syntax.generic) {
    printResults(op);
    printGenericOp(op);
  } else {
    printPrettyOp(op, syntax);
  }
  printLocation(op.loc);
}

// The form a sharding constraint was written in: `custom_call @Sharding` for a GSPMD
// sharding, `sdy.sharding_constraint` for a Shardy one; a shard_map boundary that keeps
// the shape as its custom call.
void Printer::printShardingConstraint(const Op& op) {
  printResults(op);
  const Type& type = op.result()->type();
  Attribute boundary = op.attr(kShardMapBoundaryAttr);
  if (Attribute hlo = op.attr(kHloShardingAttr); hlo || boundary) {
    out_ += "stablehlo.custom_call @" + (boundary ? boundary.asString() : std::string("Sharding")) + "(";
    printValue(op.operand(0));
    out_ += ")";
    if (hlo) {
      out_ += " ";
      printAttrDict({{std::string(kHloShardingAttr), hlo}});
    }
    out_ += " : ";
    printFunctionType({type}, {type});
    return;
  }
  std::string_view text = op.attr(kSdyShardingAttr).asString();  // #sdy.sharding_per_value<[<...>]>
  const std::string_view prefix = "#sdy.sharding_per_value<[";
  if (!text.starts_with(prefix) || !text.ends_with("]>")) {  // not what a constraint holds
    printGenericOp(op);
    return;
  }
  text.remove_prefix(prefix.size());
  text.remove_suffix(2);
  out_ += "sdy.sharding_constraint ";
  printValue(op.operand(0));
  out_ += " " + std::string(text) + " : ";
  printType(type);
}

void Printer::printGenericOp(const Op& op) {
  out_ += "\"" + std::string(op.name()) + "\"(";
  printValueList(op.operands());
  out_ += ")";
  // Inherent attributes (those in the registry) go in <{...}>, the rest in {...}.
  NamedAttrList inherent, discardable;
  for (const NamedAttribute& a : op.attrs()) (op.info().findAttr(a.name) ? inherent : discardable).push_back(a);
  if (isElidedConstant(op)) {  // its value is the placeholder it had in the source
    setAttr(inherent, "value", Attribute::opaque(elidedValueText(op)));
    removeAttr(discardable, kElidedAttr);
  }
  if (!inherent.empty()) {
    out_ += " <";
    printAttrDict(inherent);
    out_ += ">";
  }
  if (op.numRegions() > 0) {
    out_ += " (";
    for (size_t i = 0; i < op.numRegions(); ++i) {
      if (i) out_ += ", ";
      printRegion(op.region(i));
    }
    out_ += ")";
  }
  if (!discardable.empty()) {
    out_ += " ";
    printAttrDict(discardable);
  }
  out_ += " : ";
  printFunctionType(op.operandTypes(), op.resultTypes());
}

}  // namespace kiln::stablehlo
