// The autodiff rule table is complete in the sense the op tables are (ir/op_table.h):
// every op of the registry has a jvp rule, is differentiated through its
// decomposition, or is not differentiable (listed here with the reason); likewise for
// batching rules. A linear op's transpose sits beside its jvp. The coverage figures are
// printed.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "ir/ops/stablehlo.h"
#include "transforms/op_rules.h"

namespace kiln::transforms {
namespace {

// The test harness's ops (interpreter.*, check.*): no transform sees them.
bool harnessOp(const OpInfo& info, std::string& why) {
  std::string_view name = info.name;
  if (!name.starts_with("interpreter.") && !name.starts_with("check.")) return false;
  why = "test harness";
  return true;
}

// Ops without derivatives: their results are integers, booleans or tokens, they take no
// operands, or they read bits rather than values.
bool notDifferentiable(const OpInfo& info, std::string& why) {
  static const std::map<std::string_view, const char*> listed = {
      {"stablehlo.compare", "boolean result"},
      {"stablehlo.is_finite", "boolean result"},
      {"stablehlo.iota", "no operands"},
      {"stablehlo.constant", "no operands"},
      {"arith.constant", "no operands"},
      {"util.unfoldable_constant", "no operands"},
      {"stablehlo.rng", "random numbers: no tangent, as in JAX"},
      {"stablehlo.rng_bit_generator", "random bits"},
      {"stablehlo.replica_id", "integer result"},
      {"stablehlo.partition_id", "integer result"},
      {"stablehlo.get_dimension_size", "integer result"},
      {"stablehlo.after_all", "token"},
      {"stablehlo.infeed", "I/O"},
      {"stablehlo.outfeed", "I/O"},
      {"stablehlo.send", "I/O"},
      {"stablehlo.recv", "I/O"},
      {"stablehlo.uniform_quantize", "quantized integers"},
      {"stablehlo.uniform_dequantize", "quantized integers"},
      {"chlo.mulhi", "integer result"},
      {"chlo.top_k", "differentiated through its decomposition (sort)"},
      {"kiln.fusion", "made by the optimizer after differentiation"},
      {"kiln.custom_lin", "exists only inside vjp, which transposes it"},
      {"stablehlo.custom_call", "opaque: only the LAPACK calls potrf, trsm, syevd, getrf, gtsv and gesdd have rules (rules/linalg.cc)"},
      {"stablehlo.async_start", "no executor runs async computations"},
      {"stablehlo.async_done", "no executor runs async computations"},
  };
  if (auto it = listed.find(info.name); it != listed.end()) {
    why = it->second;
    return true;
  }
  if (info.elements == ElementClass::Int || info.elements == ElementClass::IntOrBool) {
    why = "integer or boolean elements";
    return true;
  }
  if (info.isTerminator() || info.category == OpCategory::Check) {
    why = "structure";
    return true;
  }
  return harnessOp(info, why);
}

TEST(OpRulesTest, EveryOpHasARuleOrAReason) {
  int differentiable = 0, covered = 0, throughDecomposition = 0;
  std::vector<std::string> missing;
  for (const OpInfo& info : allOps()) {
    std::string why;
    if (notDifferentiable(info, why)) continue;
    ++differentiable;
    const OpRules& rules = opRules()[info.code];
    if (rules.jvp || info.code == ops::FuncCall) ++covered;  // calls: through their callees
    else if (info.decompose) ++throughDecomposition;
    else missing.push_back(std::string(info.name));
  }
  for (const std::string& name : missing) ADD_FAILURE() << name << " has no jvp rule, no decomposition and no reason";
  std::printf("[ measured ] %d of %d differentiable ops have jvp rules, %d more through their decompositions\n",
              covered, differentiable, throughDecomposition);
}

// Ops that vmap refuses: their effects would run once per slice, or they exist only
// inside the test harness or after optimization.
bool notBatchable(const OpInfo& info, std::string& why) {
  static const std::map<std::string_view, const char*> listed = {
      {"stablehlo.after_all", "tokens"},
      {"stablehlo.infeed", "I/O"},
      {"stablehlo.outfeed", "I/O"},
      {"stablehlo.send", "I/O"},
      {"stablehlo.recv", "I/O"},
      {"stablehlo.async_start", "no executor runs async computations"},
      {"stablehlo.async_done", "no executor runs async computations"},
      {"stablehlo.uniform_quantize", "no executor runs quantized types"},
      {"stablehlo.uniform_dequantize", "no executor runs quantized types"},
      {"kiln.fusion", "made by the optimizer after the transforms"},
      {"kiln.custom_lin", "exists only inside vjp"},
  };
  if (auto it = listed.find(info.name); it != listed.end()) {
    why = it->second;
    return true;
  }
  return harnessOp(info, why);
}

// Batching: every op that computes on arrays (not terminators, checks, or ops without
// operands) has a batching rule, batches through its decomposition, or is refused for
// a reason listed above.
TEST(OpRulesTest, EveryOpBatchesOrHasAReason) {
  int ops = 0, batched = 0, throughDecomposition = 0, refused = 0;
  for (const OpInfo& info : allOps()) {
    if (info.isTerminator() || info.category == OpCategory::Check || info.operands.max == 0) continue;
    ++ops;
    std::string why;
    if (opRules()[info.code].batch || info.code == ops::FuncCall) ++batched;
    else if (info.decompose) ++throughDecomposition;
    else if (notBatchable(info, why)) ++refused;
    else ADD_FAILURE() << info.name << " has no batching rule, no decomposition and no reason";
  }
  std::printf("[ measured ] %d of %d ops with operands have batching rules, %d more through their decompositions, "
              "%d refused\n",
              batched, ops, throughDecomposition, refused);
}

}  // namespace
}  // namespace kiln::transforms
