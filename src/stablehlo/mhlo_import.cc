// The MHLO dialect, StableHLO's predecessor (what TensorFlow/XLA tools, torch-mlir and
// older JAX exports write), read as StableHLO. StableHLO was forked from MHLO, so an
// mhlo.X op is stablehlo.X (or chlo.X for the math ops MHLO gained later) with the same
// operands, attributes and pretty form; #mhlo<...> / #mhlo.X<...> attributes are their
// #stablehlo counterparts, and !mhlo.token is the token type. The registry already knows
// every name, so this file holds only the differences: a renamed op, an op that is an
// identity here, and the MHLO-only ops kiln has no counterpart for (each an
// `unsupported: mhlo.X` error at the op).
#include "ir/ops/stablehlo.h"
#include "stablehlo/parser_impl.h"

namespace kiln::stablehlo {

namespace {

struct MhloDifference {
  std::string_view name;     // without the "mhlo." prefix
  std::string_view becomes;  // the op it reads as; empty: unsupported, for `why`
  std::string_view why = {};
};

constexpr MhloDifference kMhloDifferences[] = {
    {"topk", "chlo.top_k"},
    // XLA's copy only changes the layout; on values it is the identity (a reshape to the
    // same type, which the simplifier removes).
    {"copy", "stablehlo.reshape"},
    {"add_dependency", "", "orders a value after a token"},
    {"async_start", "", "MHLO's async ops call a computation"},
    {"async_update", "", "MHLO's async ops call a computation"},
    {"async_done", "", "MHLO's async ops call a computation"},
    {"bitcast", "", "a layout-dependent bitcast"},
    {"domain", "", "an XLA sharding domain"},
    {"fusion", "", "an XLA fusion"},
    {"stochastic_convert", "", "stochastic rounding"},
    {"xla.rng_get_and_update_state", "", "XLA's RNG state"},
    {"einsum", "", "einsum"},
    {"unary_einsum", "", "einsum"},
};

}  // namespace

std::optional<OpCode> Parser::lookupOpNamed(std::string_view name, size_t offset) const {
  if (std::optional<OpCode> code = lookupOp(name)) return code;
  // StableHLO's deprecated create_token (MHLO's too) is after_all of no tokens.
  if (name == "stablehlo.create_token" || name == "mhlo.create_token") return ops::AfterAll;
  if (name.rfind("mhlo.", 0) != 0) return std::nullopt;
  const std::string_view rest = name.substr(5);
  for (const MhloDifference& d : kMhloDifferences) {
    if (d.name != rest) continue;
    if (d.becomes.empty())
      unsupportedAt(offset, std::string(name) + " (" + std::string(d.why) + ")");
    return lookupOp(d.becomes);
  }
  if (std::optional<OpCode> code = lookupOp("stablehlo." + std::string(rest))) return code;
  if (std::optional<OpCode> code = lookupOp("chlo." + std::string(rest))) return code;
  unsupportedAt(offset, std::string(name) + " (an MHLO op with no StableHLO counterpart)");
}

void Parser::importMhloAttrs(std::string_view name, Op& op, size_t offset) const {
  if (name == "mhlo.copy") {
    // cross_program_prefetch_index and the like mean nothing on one device.
    const NamedAttrList attrs = op.attrs();
    for (const NamedAttribute& a : attrs) op.removeAttr(a.name);
  } else if (name == "mhlo.topk") {
    // chlo.top_k finds the largest; mhlo.topk's `largest = false` it cannot.
    Attribute largest = op.attr("largest");
    if (largest && !(largest.is(Attribute::Kind::Bool) && largest.asBool()))
      unsupportedAt(offset, "mhlo.topk with largest = false");
    op.removeAttr("largest");
  }
}

std::string Parser::stablehloAttrName(const std::string& hashName) {
  // #mhlo<enum V> is #stablehlo<enum V>; #mhlo.X<...> is #stablehlo.X<...> where StableHLO
  // has such a record or enum (#mhlo.rng_distribution<UNIFORM>: an enum, written with its
  // kind in the name); the rest (#mhlo.sharding<...>) stays as written.
  if (hashName == "#mhlo") return "#stablehlo";
  if (hashName.rfind("#mhlo.", 0) != 0) return hashName;
  std::string candidate = "stablehlo." + hashName.substr(6);
  if (recordSchema(candidate) || !enumValues(candidate).empty() || candidate == "stablehlo.conv")
    return "#" + candidate;
  return hashName;
}

}  // namespace kiln::stablehlo
