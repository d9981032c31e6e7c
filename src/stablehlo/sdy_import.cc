// Shardy's syntax, as JAX writes it with Shardy enabled:
//   sdy.mesh @mesh = <["x"=2, "y"=2]>
//   %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<8x8xf32>
//   %2 = sdy.reshard %1 <@mesh, [{}, {"y"}]> : tensor<8x8xf32>
// Meshes become the module's; a constraint (and a reshard, which is one for kiln: the
// partitioner decides the collectives either way) becomes an identity reshape carrying
// `sdy.sharding` (ir/sharding_attrs.h), which the printer writes back as it came.
#include "ir/sharding_attrs.h"
#include "stablehlo/parser_impl.h"
#include "support/error.h"

namespace kiln::stablehlo {

void Parser::parseSdyMesh(Module& module) {
  const size_t offset = tok_.offset;
  advance();  // sdy.mesh
  Token name = expect(Tok::SymbolId, "for the mesh's name");
  std::string meshName(name.text.substr(1));
  expect(Tok::Equal, "after the mesh's name");
  if (!tok_.is(Tok::Less)) error("expected '<' to open the mesh");
  const size_t meshOffset = tok_.offset;
  std::string_view text = angleText("sdy.mesh");
  DeviceMesh mesh;
  try {
    mesh = kiln::parseSdyMesh(text);
  } catch (const Error& e) {
    errorAt(meshOffset, e.message());
  }
  if (module.findMesh(meshName)) errorAt(offset, "mesh @" + meshName + " is defined twice");
  module.meshes.push_back({std::move(meshName), std::move(mesh)});
  skipOptionalLoc();
}

Op* Parser::parseSdyOp(Region& region, const ResultNames& names, size_t nameOffset) {
  std::string opName(tok_.text);
  if (opName != "sdy.sharding_constraint" && opName != "sdy.reshard")
    unsupportedAt(nameOffset, "op '" + opName + "' (of Shardy's ops kiln reads sdy.mesh, sdy.sharding_constraint and sdy.reshard)");
  advance();
  Value* operand = parseValueUse();
  if (!tok_.is(Tok::Less)) error("expected '<' to open the sharding");
  const size_t shardingOffset = tok_.offset;
  std::string text(angleText(opName));
  try {
    parseSdySharding(text, [this](std::string_view mesh) { return module_->findMesh(mesh); });
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Unsupported) throw Error(e).at(source_, posOf(shardingOffset));
    errorAt(shardingOffset, e.message());
  }
  expect(Tok::Colon, "before the type");
  const size_t typeOffset = tok_.offset;
  Type type = parseType();
  if (operand->type() != type)
    errorAt(typeOffset, opName + " of a " + operand->type().str() + " value written as " + type.str());
  NamedAttrList attrs{{std::string(kSdyShardingAttr), Attribute::opaque("#sdy.sharding_per_value<[" + text + "]>")}};
  return finishOp(region, OpCode::Reshape, {operand}, {type}, std::move(attrs), {}, names, nameOffset);
}

}  // namespace kiln::stablehlo
