// Shardy's syntax, as JAX writes it with Shardy enabled:
//   sdy.mesh @mesh = <["x"=2, "y"=2]>
//   %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<8x8xf32>
//   %2 = sdy.reshard %1 <@mesh, [{}, {"y"}]> : tensor<8x8xf32>
//   %3 = sdy.manual_computation(%2) in_shardings=[<@mesh, [{"x"}, {}]>]
//            out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<4x8xf32>) {
//          ...
//          sdy.return %r : tensor<4x8xf32>
//        } : (tensor<8x8xf32>) -> tensor<8x8xf32>
// Meshes become the module's; a constraint (and a reshard, which is one for kiln: the
// partitioner decides the collectives either way) becomes an identity reshape carrying
// `sdy.sharding` (ir/sharding_attrs.h), which the printer writes back as it came. A
// manual computation becomes the form JAX's GSPMD export gives a shard_map (each operand
// constrained and cut to its piece by @SPMDFullToShardShape, the body inline, each result
// put together by @SPMDShardToFullShape), which the printer writes in that form.
#include <algorithm>

#include "ir/ops/stablehlo.h"
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
  // jaxlib 0.10.2 gives a mesh a discardable {stablehlo.mesh = {axes = [...]}}: the same
  // axes again, for its own export; checked to be a dictionary and left out.
  if (tok_.is(Tok::LBrace)) parseAttrDict();
  skipOptionalLoc();
}

Op* Parser::parseManualComputation(Region& region, const ResultNames& names, size_t nameOffset) {
  advance();  // sdy.manual_computation
  expect(Tok::LParen, "to open the operands");
  std::vector<Value*> operands;
  if (!tok_.is(Tok::RParen)) {
    do operands.push_back(parseValueUse());
    while (consumeIf(Tok::Comma));
  }
  expect(Tok::RParen, "to close the operands");
  std::vector<std::string> manualAxes;
  // in_shardings=[<@mesh, [...]>, ...]: each checked, kept as text.
  auto shardings = [&](const char* key) {
    if (!tok_.isKeyword(key)) error(std::string("expected ") + key + "=[...]");
    advance();
    expect(Tok::Equal, std::string("after ") + key);
    expect(Tok::LSquare, std::string("to open ") + key);
    std::vector<std::pair<std::string, Sharding>> out;
    if (!tok_.is(Tok::RSquare)) {
      do {
        const size_t offset = tok_.offset;
        if (!tok_.is(Tok::Less)) error("expected '<' to open a sharding");
        std::string text(angleText(key));
        try {
          out.emplace_back(text, parseSdySharding(text, [this](std::string_view mesh) { return module_->findMesh(mesh); }));
        } catch (const Error& e) {
          if (e.kind() == ErrorKind::Unsupported) throw Error(e).at(source_, posOf(offset));
          errorAt(offset, e.message());
        }
      } while (consumeIf(Tok::Comma));
    }
    expect(Tok::RSquare, std::string("to close ") + key);
    return out;
  };
  const auto in = shardings("in_shardings");
  const auto out = shardings("out_shardings");
  if (!tok_.isKeyword("manual_axes")) error("expected manual_axes={...}");
  const size_t axesOffset = tok_.offset;
  advance();
  expect(Tok::Equal, "after manual_axes");
  expect(Tok::LBrace, "to open manual_axes");
  if (!tok_.is(Tok::RBrace)) {
    do {
      const Token axis = expect(Tok::String, "for a manual axis");
      std::string name;
      if (!unescape(axis.text, name)) errorAt(axis.offset, "bad string");
      manualAxes.push_back(std::move(name));
    } while (consumeIf(Tok::Comma));
  }
  expect(Tok::RBrace, "to close manual_axes");
  // kiln runs the body per device over every axis its shardings split: those must all
  // be manual (a body still split over a free axis would be partitioned further).
  for (const auto* list : {&in, &out})
    for (const auto& [text, sharding] : *list)
      for (const auto& dim : sharding.dims)
        for (const std::string& axis : dim)
          if (std::find(manualAxes.begin(), manualAxes.end(), axis) == manualAxes.end())
            unsupportedAt(axesOffset, "sdy.manual_computation whose sharding " + text + " splits over the free axis \"" +
                                          axis + "\" (only fully manual bodies are supported)");
  std::vector<std::pair<std::string, Type>> args;
  const size_t argsOffset = tok_.offset;
  parseBlockArgs(args);
  if (args.size() != operands.size() || in.size() != operands.size())
    errorAt(argsOffset, "sdy.manual_computation has " + std::to_string(operands.size()) + " operand(s), " +
                            std::to_string(in.size()) + " in_sharding(s) and " + std::to_string(args.size()) +
                            " body argument(s)");
  std::unique_ptr<Region> body = parseRegion(args);
  expect(Tok::Colon, "before the manual computation's type");
  const size_t typeOffset = tok_.offset;
  TypeList inputs, results;
  parseFunctionType(inputs, results);
  for (size_t i = 0; i < operands.size(); ++i)
    if (i >= inputs.size() || inputs[i] != operands[i]->type())
      errorAt(typeOffset, "operand " + std::to_string(i) + " of sdy.manual_computation is " + operands[i]->type().str() +
                              ", its type says " + (i < inputs.size() ? inputs[i].str() : "nothing"));
  if (out.size() != results.size())
    errorAt(typeOffset, std::to_string(out.size()) + " out_sharding(s) for " + std::to_string(results.size()) + " result(s)");
  Op* ret = body->terminator();
  if (!ret || !ret->is(ops::Return) || ret->numOperands() != results.size())
    errorAt(typeOffset, "the manual computation's body must end in sdy.return of its " + std::to_string(results.size()) +
                            " result(s)");
  // The boundary ops, placed at the manual computation's position (finishOp would bind
  // names to them); `sharding` is Shardy's text, or GSPMD's "{manual}".
  auto place = [&](const char* target, Value* operand, const Type& type, const std::string& sharding) {
    ShardingMarker marker =
        sharding == "{manual}"
            ? shardingMarker(target, operand->type(), type, kHloShardingAttr, Attribute::string(sharding))
            : shardingMarker(target, operand->type(), type, kSdyShardingAttr,
                             Attribute::opaque("#sdy.sharding_per_value<[" + sharding + "]>"));
    std::unique_ptr<Op> op = Op::create(marker.code, {operand}, {type}, std::move(marker.attrs), {});
    op->pos = posOf(nameOffset);
    return region.push_back(std::move(op));
  };
  // Operands: constrained to their in_sharding, cut to each device's piece.
  for (size_t i = 0; i < operands.size(); ++i) {
    Op* marked = place("Sharding", operands[i], operands[i]->type(), in[i].first);
    Op* piece = place("SPMDFullToShardShape", marked->result(), args[i].second, "{manual}");
    body->argument(i)->replaceAllUsesWith(piece->result());
  }
  // The body, inline.
  std::vector<Value*> yielded(ret->operands().begin(), ret->operands().end());
  while (body->front() != ret) region.push_back(body->take(body->front()));
  // The body and its sdy.return stay until locations are resolved (one may be pending
  // for the return), using nothing.
  ret->setOperands({});
  discarded_.push_back(std::move(body));
  // Results: each device's value, put together as out_shardings says.
  std::vector<Value*> values;
  Op* last = nullptr;
  for (size_t r = 0; r < results.size(); ++r) {
    Op* manual = place("Sharding", yielded[r], yielded[r]->type(), "{manual}");
    last = place("SPMDShardToFullShape", manual->result(), results[r], out[r].first);
    values.push_back(last->result());
  }
  if (names.total != values.size())
    errorAt(names.groups.empty() ? nameOffset : names.offset,
            "sdy.manual_computation has " + std::to_string(values.size()) + " result(s) but " +
                std::to_string(names.total) + " name(s) are given");
  size_t next = 0;
  for (const auto& [name, count] : names.groups) {
    std::vector<Value*> group(values.begin() + static_cast<std::ptrdiff_t>(next),
                              values.begin() + static_cast<std::ptrdiff_t>(next + count));
    next += count;
    define(name, std::move(group), names.offset);
  }
  return last ? last : region.back();
}

Op* Parser::parseSdyOp(Region& region, const ResultNames& names, size_t nameOffset) {
  std::string opName(tok_.text);
  if (opName == "sdy.manual_computation") return parseManualComputation(region, names, nameOffset);
  if (opName == "sdy.return") {
    advance();
    std::vector<Value*> operands;
    if (tok_.is(Tok::ValueId)) {
      do operands.push_back(parseValueUse());
      while (consumeIf(Tok::Comma));
      expect(Tok::Colon, "before the returned types");
      parseTypeList();
    }
    return finishOp(region, ops::Return, operands, {}, {}, {}, names, nameOffset);
  }
  if (opName != "sdy.sharding_constraint" && opName != "sdy.reshard")
    unsupportedAt(nameOffset, "op '" + opName + "' (of Shardy's ops kiln reads sdy.mesh, sdy.sharding_constraint, sdy.reshard and sdy.manual_computation)");
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
  return finishOp(region, ops::Reshape, {operand}, {type}, std::move(attrs), {}, names, nameOffset);
}

}  // namespace kiln::stablehlo
