// Functions written as control-flow graphs (MLIR's cf dialect, as TensorFlow and IREE
// print loops): blocks ^bbN(args) ending in cf.br / cf.cond_br / return. kiln's regions
// are single blocks, so the graph is lifted into structured control flow that works for
// any graph:
//   entry block ops
//   %s = stablehlo.while(pc = first block, slots...) cond { pc != EXIT }
//        do { stablehlo.case(pc - 1) { one branch per block: its ops, then the next
//             pc and the slot values its branch passes } }
//   return the result slots
// A slot holds each block argument and each value that is used outside its block;
// values of the entry block dominate everything and are used directly.
#include <map>
#include <set>

#include "ir/builder.h"
#include "ir/ops/stablehlo.h"
#include "stablehlo/parser_impl.h"
#include "support/error.h"

namespace kiln::stablehlo {

void Parser::parseTensorExtract(const ResultNames& names, size_t nameOffset) {
  advance();  // tensor.extract
  Value* tensor = parseValueUse();
  expect(Tok::LSquare, "after the tensor");
  if (!tok_.is(Tok::RSquare)) unsupportedAt(tok_.offset, "tensor.extract with indices");
  advance();
  expect(Tok::Colon, "before the tensor type");
  Type type = parseType();
  if (type != tensor->type() || type.rank() != 0 || type.dtype() != DType::I1)
    unsupportedAt(nameOffset, "tensor.extract of anything but a tensor<i1> (used as a branch condition)");
  // The scalar stands for the tensor<i1> it came from: only cf.cond_br consumes it.
  if (names.total != 1) errorAt(nameOffset, "tensor.extract has one result");
  define(names.groups[0].first, {tensor}, nameOffset);
  skipOptionalLoc();
}

void Parser::parseBranch(CfgBlock& block) {
  block.endOffset = tok_.offset;
  bool conditional = tok_.isKeyword("cf.cond_br");
  advance();
  if (conditional) {
    block.condition = parseValueUse();
    if (block.condition->type() != Type::scalar(DType::I1)) errorAt(block.endOffset, "the branch condition must be an i1");
    expect(Tok::Comma, "after the branch condition");
  }
  for (int t = 0; t < (conditional ? 2 : 1); ++t) {
    if (t) expect(Tok::Comma, "between the branch targets");
    block.targets[t] = std::string(expect(Tok::BlockId, "for the branch target").text);
    if (consumeIf(Tok::LParen)) {
      block.targetArgs[t] = parseValueUseList();
      if (!block.targetArgs[t].empty()) {
        size_t typeOffset = tok_.offset;
        expect(Tok::Colon, "before the branch argument types");
        TypeList types = parseTypeList();
        checkOperandTypes(block.targetArgs[t], types, typeOffset);
      }
      expect(Tok::RParen, "to close the branch arguments");
    }
  }
  block.end = conditional ? CfgBlock::End::CondBranch : CfgBlock::End::Branch;
  skipOptionalLoc();
}

namespace {

[[noreturn]] void fail(const SourceRef& source, size_t offset, const std::string& message) {
  throw Error(ErrorKind::Parse, message, source, source->posOf(offset));
}

Literal zeros(const Type& t) { return Literal(t); }

}  // namespace

CfgBlocks::~CfgBlocks() {
  for (CfgBlock& block : *this)
    if (block.region) block.region->dropOperandUses();
}

void liftControlFlow(Function& fn, CfgBlocks& blocks, const SourceRef& source) {
  const size_t n = blocks.size();
  const int64_t exitPc = static_cast<int64_t>(n);
  std::map<std::string, size_t> index;
  for (size_t b = 1; b < n; ++b) {
    if (!index.emplace(blocks[b].name, b).second) fail(source, blocks[b].offset, "block " + blocks[b].name + " is defined twice");
    // A block that ends with return: take the return off (the lifted function returns once).
    if (blocks[b].end == CfgBlock::End::None) {
      Op* last = blocks[b].region->back();
      if (!last || !last->is(ops::FuncReturn))
        fail(source, blocks[b].offset, "block " + blocks[b].name + " does not end with a branch or return");
      blocks[b].end = CfgBlock::End::Return;
      blocks[b].targetArgs[0] = last->operands();
      blocks[b].endOffset = blocks[b].offset;
    }
  }
  if (blocks[0].end == CfgBlock::End::None) fail(source, blocks[0].offset, "the entry block does not end with a branch");
  auto targetOf = [&](const CfgBlock& block, int t) {
    auto it = index.find(block.targets[t]);
    if (it == index.end()) fail(source, block.endOffset, "branch to undefined block " + block.targets[t]);
    const Region& target = *blocks[it->second].region;
    const auto& args = block.targetArgs[t];
    bool typesMatch = args.size() == target.numArguments();
    for (size_t i = 0; typesMatch && i < args.size(); ++i) typesMatch = args[i]->type() == target.argument(i)->type();
    if (!typesMatch) fail(source, block.endOffset, "branch arguments do not match the arguments of " + block.targets[t]);
    return it->second;
  };

  for (const CfgBlock& block : blocks) {
    if (block.end == CfgBlock::End::Branch) targetOf(block, 0);
    if (block.end == CfgBlock::End::CondBranch) targetOf(block, 0), targetOf(block, 1);
  }

  // Which block defines each value of blocks 1..n-1, and which values need a slot.
  std::map<const Value*, size_t> definedIn;
  for (size_t b = 1; b < n; ++b) {
    for (Value* a : blocks[b].region->arguments()) definedIn[a] = b;
    for (const auto& op : blocks[b].region->ops())
      for (Value* r : op->results()) definedIn[r] = b;
  }
  std::vector<const Value*> slotValues;  // in a deterministic order
  std::map<const Value*, size_t> slotOf;
  auto addSlot = [&](const Value* v) {
    if (slotOf.emplace(v, slotValues.size()).second) slotValues.push_back(v);
  };
  for (size_t b = 1; b < n; ++b)
    for (Value* a : blocks[b].region->arguments()) addSlot(a);
  auto noteUse = [&](const Value* v, size_t inBlock) {
    auto it = definedIn.find(v);
    if (it != definedIn.end() && it->second != inBlock) addSlot(v);
  };
  for (size_t b = 0; b < n; ++b) {
    if (b > 0) {
      walk(*blocks[b].region, [&](Op& op) {
        for (Value* v : op.operands()) noteUse(v, b);
      });
    }
    if (blocks[b].condition) noteUse(blocks[b].condition, b);
    for (int t = 0; t < 2; ++t)
      for (Value* v : blocks[b].targetArgs[t]) noteUse(v, b);
  }
  for (const Value* v : slotValues)
    if (!v->type().isTensor()) fail(source, blocks[definedIn[v]].offset, "unsupported: non-tensor values live across blocks");

  // The loop state: pc, the slots, then the function's results.
  const Type pcType = Type::scalar(DType::I32);
  TypeList stateTypes{pcType};
  for (const Value* v : slotValues) stateTypes.push_back(v->type());
  const size_t resultBase = stateTypes.size();
  for (const Type& t : fn.resultTypes()) stateTypes.push_back(t);

  // The next state from a block's end, given how to see its values (`map`) and the
  // state it started from (`current`).
  auto emitEnd = [&](Builder& b, const CfgBlock& block, ValueMap& map, const std::vector<Value*>& current) {
    auto mapped = [&](Value* v) {
      auto it = map.find(v);
      return it == map.end() ? v : it->second;
    };
    auto pcConstant = [&](int64_t pc) {
      Literal lit(pcType);
      lit.setInt(0, pc);
      return b.constant(std::move(lit));
    };
    auto withArgs = [&](std::vector<Value*> state, int t) {
      const Region& target = *blocks[index.at(block.targets[t])].region;
      for (size_t i = 0; i < target.numArguments(); ++i)
        state[1 + slotOf.at(target.argument(i))] = mapped(block.targetArgs[t][i]);
      return state;
    };
    std::vector<Value*> next = current;
    switch (block.end) {
      case CfgBlock::End::Branch:
        next = withArgs(current, 0);
        next[0] = pcConstant(static_cast<int64_t>(targetOf(block, 0)));
        break;
      case CfgBlock::End::CondBranch: {
        std::vector<Value*> onTrue = withArgs(current, 0), onFalse = withArgs(current, 1);
        Value* cond = mapped(block.condition);
        onTrue[0] = pcConstant(static_cast<int64_t>(targetOf(block, 0)));
        onFalse[0] = pcConstant(static_cast<int64_t>(targetOf(block, 1)));
        for (size_t i = 0; i < next.size(); ++i) {
          next[i] = onTrue[i] == onFalse[i]
                        ? onTrue[i]
                        : b.select(cond, onTrue[i], onFalse[i]);
        }
        break;
      }
      case CfgBlock::End::Return:
        next[0] = pcConstant(exitPc);
        for (size_t i = 0; i < block.targetArgs[0].size(); ++i) next[resultBase + i] = mapped(block.targetArgs[0][i]);
        break;
      case CfgBlock::End::None: break;
    }
    return next;
  };

  // Entry: the initial state.
  Builder entry(fn.body());
  std::vector<Value*> initial;
  initial.push_back(nullptr);
  for (size_t i = 1; i < stateTypes.size(); ++i) initial.push_back(entry.constant(zeros(stateTypes[i])));
  ValueMap identity;
  initial = emitEnd(entry, blocks[0], identity, initial);

  // cond: pc != EXIT
  auto cond = [&](Builder& b, const std::vector<Value*>& state) -> std::vector<Value*> {
    Literal exit(pcType);
    exit.setInt(0, exitPc);
    return {b.compare(state[0], b.constant(std::move(exit)), ComparisonDirection::NE)};
  };
  // do: case (pc - 1) over blocks 1..n-1
  auto body = [&](Builder& b, const std::vector<Value*>& state) {
    Literal one(pcType);
    one.setInt(0, 1);
    Value* branchIndex = b.binary(ops::Subtract, state[0], b.constant(std::move(one)));
    std::vector<BodyFn> branches;
    for (size_t blk = 1; blk < n; ++blk)
      branches.push_back([&, blk](Builder& bb, const std::vector<Value*>&) {
        ValueMap map;
        for (size_t s = 0; s < slotValues.size(); ++s) map[slotValues[s]] = state[1 + s];
        for (const auto& op : blocks[blk].region->ops()) {
          if (op->is(ops::FuncReturn)) continue;  // the block's end, handled below
          bb.region().push_back(op->clone(map));
        }
        // Values of this block that live on leave through their slots.
        std::vector<Value*> current = state;
        for (const auto& op : blocks[blk].region->ops())
          for (Value* r : op->results())
            if (auto it = slotOf.find(r); it != slotOf.end()) current[1 + it->second] = map.at(r);
        return emitEnd(bb, blocks[blk], map, current);
      });
    return b.case_(branchIndex, branches);
  };
  std::vector<Value*> loop = entry.while_(initial, cond, body);
  std::vector<Value*> results(loop.begin() + static_cast<std::ptrdiff_t>(resultBase), loop.end());
  entry.ret(results, ops::FuncReturn);

  // The blocks' regions use each other's values: drop every use before freeing any.
  for (size_t b = 1; b < n; ++b) walk(*blocks[b].region, [](Op& op) { op.setOperands({}); });
}

}  // namespace kiln::stablehlo
