// Result-type inference: the registry's facts every op must meet (operand, result and
// region counts, attribute kinds), then the op's own type rule from the rule table.
#include "ir/infer.h"

#include "ir/attr_check.h"
#include "ir/verify/rules.h"
#include "support/error.h"

namespace kiln {
namespace {

const RuleTable& rules() {
  static const RuleTable kTable = [] {
    RuleTable t;
    addElementwiseRules(t);
    addShapeRules(t);
    addRegionOpRules(t);
    addMiscRules(t);
    addAutodiffOpRules(t);
    addGatherScatterRules(t);
    addLinalgRules(t);
    addCollectiveRules(t);
    return t;
  }();
  return kTable;
}

std::string arityText(const Arity& a) {
  if (a.max < 0) return "at least " + std::to_string(a.min);
  if (a.min == a.max) return std::to_string(a.min);
  return std::to_string(a.min) + " to " + std::to_string(a.max);
}

// The registry's facts, checked before the rule so that rules may read attributes of the
// kinds the schema promises.
void checkRegistryFacts(const InferContext& v) {
  const OpInfo& info = v.info();
  v.check(info.operands.allows(v.numOperands()), [&] {
    return "expects " + arityText(info.operands) + " operands, has " +
           std::to_string(v.numOperands());
  });
  v.check(info.regions.allows(v.numRegions()), [&] {
    return "expects " + arityText(info.regions) + " regions, has " +
           std::to_string(v.numRegions());
  });
  for (size_t i = 0; i < v.numOperands(); ++i)
    v.check(v.operand(i) != nullptr, [&] { return "operand " + std::to_string(i) + " is missing"; });
  for (const AttrSpec& spec : info.attrs) {
    Attribute a = v.attr(spec.name);
    if (!a) {
      v.check(!spec.required,
              [&] { return "needs the attribute '" + std::string(spec.name) + "'"; });
      continue;
    }
    v.check(attributeMatches(spec, a), [&] {
      return "attribute '" + std::string(spec.name) + "' must be " + describeAttrKind(spec);
    });
  }
  for (size_t i = 0; i < v.numRegions(); ++i)
    v.check(!v.region(i).empty(), [&] { return "region " + std::to_string(i) + " is empty"; });
}

std::vector<InferredType> run(const OpParts& parts, bool compare) {
  InferContext v(parts, compare);
  checkRegistryFacts(v);
  OpRule rule = rules().rules[parts.code];
  if (!rule)
    throw Error(ErrorKind::Internal, std::string(v.info().name) + " has no type rule");
  rule(v);
  std::vector<InferredType> results = v.takeResults();
  const OpInfo& info = v.info();
  v.check(info.results.allows(results.size()), [&] {
    return "expects " + arityText(info.results) + " results, has " + std::to_string(results.size());
  });
  if (compare)
    v.check(results.size() == v.givenCount(), [&] {
      return "has " + std::to_string(v.givenCount()) + " results, expected " +
             std::to_string(results.size());
    });
  return results;
}

OpParts partsOf(const Op& op, const Module* module, const TypeList& declared) {
  OpParts parts{op.code(), op.operands(), op.attrs()};
  for (size_t i = 0; i < op.numRegions(); ++i) parts.regions.push_back(&op.region(i));
  parts.given = &declared;
  parts.module = module;
  parts.loc = op.loc;
  parts.pos = op.pos;
  if (module) parts.source = module->source;
  return parts;
}

}  // namespace

bool hasTypeRule(OpCode code) { return rules().rules[code] != nullptr; }

std::vector<InferredType> inferResults(const OpParts& parts) { return run(parts, false); }

TypeList inferResultTypes(const OpParts& parts) {
  TypeList types;
  for (InferredType& t : run(parts, false)) types.push_back(std::move(t.type));
  return types;
}

std::vector<InferredType> inferResults(const Op& op, const Module* module) {
  TypeList declared = op.resultTypes();
  return run(partsOf(op, module, declared), false);
}

void checkResultTypes(const Op& op, const Module* module) {
  TypeList declared = op.resultTypes();
  run(partsOf(op, module, declared), true);
}

}  // namespace kiln
