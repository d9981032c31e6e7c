// A portable artifact's IR (bytecode_ir.h) written as StableHLO text (bytecode.h). Each
// VHLO op becomes the op whose row in the op table names it (OpInfo::vhlo), with its
// properties as StableHLO's attributes (vhlo_attributes.h); Shardy's ops take the pretty
// form the parser reads. The attributes are built as kiln's and printed by kiln's
// printer, so the text is what the parser reads.
#include <cstdio>
#include <map>
#include <unordered_map>

#include "ir/op_registry.h"
#include "ir/ops/stablehlo.h"
#include "stablehlo/bytecode.h"
#include "stablehlo/bytecode_attributes.h"
#include "stablehlo/bytecode_ir.h"
#include "stablehlo/printer.h"
#include "stablehlo/vhlo_attributes.h"
#include "support/error.h"

namespace kiln::stablehlo {

namespace bytecode {
namespace {

using Kind = DecodedAttribute::Kind;

// The op a VHLO op name stands for, from the op table's VHLO column.
const OpInfo* opOfVhlo(std::string_view name) {
  static const std::unordered_map<std::string_view, const OpInfo*> kByName = [] {
    std::unordered_map<std::string_view, const OpInfo*> map;
    for (const OpInfo& info : allOps())
      if (!info.vhlo.empty()) map.emplace(info.vhlo, &info);
    return map;
  }();
  // StableHLO's deprecated create_token (what JAX still writes for a token it makes) is
  // after_all of no tokens.
  if (name == "create_token_v1") return &opInfo(ops::AfterAll);
  auto it = kByName.find(name);
  return it == kByName.end() ? nullptr : it->second;
}

std::string versionText() {
  return std::to_string(kStablehloVersion[0]) + "." + std::to_string(kStablehloVersion[1]) + "." +
         std::to_string(kStablehloVersion[2]);
}

class TextWriter {
 public:
  TextWriter(const Container& c, const std::string& name)
      : c_(c), name_(name), types_(c, name), attrs_(c, types_, name), vhlo_(c, types_, attrs_, name) {}

  std::string write(const std::vector<IrOp>& top) {
    if (top.size() != 1 || opName(top[0]) != "builtin.module")
      fail("a portable artifact holds one builtin.module");
    module(top[0]);
    for (const auto& [index, text] : locations_) out_ += "#loc" + std::to_string(index) + " = loc(" + text + ")\n";
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw Error(ErrorKind::Parse, name_ + ": " + message); }
  [[noreturn]] void unsupported(const std::string& what) const {
    throw Error(ErrorKind::Unsupported, "unsupported: " + what + " (" + name_ + ")");
  }

  std::string opName(const IrOp& op) const {
    const OpName& n = c_.opNames[op.name];
    return c_.dialects[n.dialect].name + "." + n.name;
  }

  // ---- types ----
  std::string typeText(uint64_t index, const std::string& what) {
    const DecodedType& t = types_.at(index);
    switch (t.kind) {
      case DecodedType::Kind::Element: return std::string(name(t.element));
      case DecodedType::Kind::Value: return t.value.str();
      case DecodedType::Kind::Function: {
        std::string text = "(" + str(t.inputs) + ") -> ";
        return text + (t.results.size() == 1 && !t.results[0].isTuple() ? t.results[0].str() : "(" + str(t.results) + ")");
      }
      case DecodedType::Kind::None: return "none";
      case DecodedType::Kind::Unsupported: break;
    }
    unsupported(what + " of type " + t.unsupported);
  }

  // A VHLO op's properties: its attributes' indices, in the order of its arguments.
  std::vector<uint64_t> properties(const IrOp& op, size_t count, const std::string& what) {
    std::vector<uint64_t> out;
    if (count == 0 && !op.properties) return out;
    if (!op.properties) fail(what + " has no properties");
    ByteReader r(*op.properties, 0, name_);
    for (size_t i = 0; i < count; ++i) {
      const uint64_t index = r.varint("an op's attribute");
      if (index >= attrs_.size()) fail(what + ": attribute " + std::to_string(index) + " of " + std::to_string(attrs_.size()));
      out.push_back(index);
    }
    if (!r.done()) fail(what + ": bytes after its " + std::to_string(count) + " attributes");
    return out;
  }

  // ---- locations, written once each as #locN ----
  std::string location(uint64_t index) {
    if (!locations_.count(index)) {
      locations_[index] = "unknown";  // a placeholder while its parts are written
      locations_[index] = locationBody(index);
    }
    return "#loc" + std::to_string(index);
  }

  std::string locationBody(uint64_t index) {
    const DecodedAttribute& a = attrs_.at(index);
    if (a.kind != Kind::Location) fail("attribute " + std::to_string(index) + " is used as a location but is not one");
    auto quoted = [](const std::string& s) { return printAttribute(Attribute::string(s)); };
    if (a.enumKind == "unknown") return "unknown";
    if (a.enumKind == "file") {
      std::string text = quoted(a.string);
      if (!a.integers.empty()) text += ":" + std::to_string(a.integers[0]);
      if (a.integers.size() > 1) text += ":" + std::to_string(a.integers[1]);
      if (a.integers.empty()) text += ":0:0";
      else if (a.integers.size() == 1) text += ":0";
      return text;
    }
    if (a.enumKind == "name") {
      const DecodedAttribute& child = attrs_.at(a.elements[0]);
      if (child.kind == Kind::Location && child.enumKind == "unknown") return quoted(a.string);
      return quoted(a.string) + "(" + location(a.elements[0]) + ")";
    }
    if (a.enumKind == "callsite") return "callsite(" + location(a.elements[0]) + " at " + location(a.elements[1]) + ")";
    std::string text = "fused[";  // fused
    for (size_t i = 0; i < a.elements.size(); ++i) text += (i ? ", " : "") + location(a.elements[i]);
    return text + "]";
  }

  // ---- structure ----
  void newline() {
    out_ += '\n';
    out_.append(static_cast<size_t>(indent_) * 2, ' ');
  }

  void module(const IrOp& op) {
    // builtin.module's properties: an optional sym_name and sym_visibility (varints
    // with a flag: 0 when absent).
    NamedAttrList props;
    if (op.properties) {
      ByteReader r(*op.properties, 0, name_);
      for (const char* field : {"sym_name", "sym_visibility"}) {
        if (r.done()) break;
        bool present = false;
        const uint64_t index = r.varintWithFlag(present, "a module's property");
        if (present) setAttr(props, field, vhlo_.attribute(index, std::string("the module's ") + field));
      }
    }
    out_ += "\"builtin.module\"()";
    if (!props.empty()) out_ += " <" + printAttribute(Attribute::dictionary(props)) + ">";
    out_ += " ({";
    if (op.regions.size() != 1 || op.regions[0].blocks.size() != 1) fail("the module has other than one block");
    ++indent_;
    for (const IrOp& fn : op.regions[0].blocks[0].ops) {
      newline();
      if (opName(fn) == "sdy.mesh") {
        // Its properties, by name: mesh, sym_name.
        const std::vector<uint64_t> p = properties(fn, 2, "sdy.mesh");
        out_ += "sdy.mesh @" + attrs_.stringAt(p[1], "a mesh's name") + " = " + shardyInner(p[0], "a mesh");
        continue;
      }
      if (opName(fn) != "vhlo.func_v1") unsupported("a module holding " + opName(fn) + " (kiln reads functions and meshes)");
      function(fn);
    }
    --indent_;
    newline();
    out_ += "})";
    if (op.attributes) out_ += " " + printAttribute(vhlo_.attribute(*op.attributes, "the module's attributes"));
    out_ += " : () -> () loc(" + location(op.location) + ")\n";
  }

  void function(const IrOp& op) {
    // arg_attrs, function_type, res_attrs, sym_name, sym_visibility (by name).
    const std::vector<uint64_t> p = properties(op, 5, "vhlo.func_v1");
    const std::string fnName = attrs_.stringAt(p[3], "a function's name");
    const std::string what = "function @" + fnName;
    NamedAttrList props;
    setAttr(props, "sym_name", Attribute::string(fnName));
    const std::string visibility = attrs_.stringAt(p[4], what + "'s visibility");
    if (!visibility.empty()) setAttr(props, "sym_visibility", Attribute::string(visibility));
    for (auto [i, field] : {std::pair{0, "arg_attrs"}, std::pair{2, "res_attrs"}}) {
      const DecodedAttribute& list = attrs_.at(p[static_cast<size_t>(i)]);
      if (list.kind != Kind::Array) fail(what + "'s " + field + " is not an array");
      if (!list.elements.empty()) setAttr(props, field, vhlo_.attribute(p[static_cast<size_t>(i)], what + "'s " + field));
    }
    const DecodedAttribute& fnType = attrs_.at(p[1]);  // function_type
    if (fnType.kind != Kind::Type || types_.at(fnType.type).kind != DecodedType::Kind::Function)
      fail(what + "'s function_type is not a function type");
    std::string text = printAttribute(Attribute::dictionary(props));
    text.insert(1, "function_type = " + typeText(fnType.type, what) + ", ");
    out_ += "\"func.func\"() <" + text + "> (";
    if (op.regions.size() != 1) fail(what + " has " + std::to_string(op.regions.size()) + " regions");
    values_.clear();
    region(op.regions[0], /*inFunction=*/true, what);
    out_ += ") : () -> () loc(" + location(op.location) + ")";
  }

  void defineValue(uint64_t number, std::string name, std::string type) {
    if (number >= values_.size()) values_.resize(number + 1);
    values_[number] = {std::move(name), std::move(type)};
  }

  const std::pair<std::string, std::string>& value(uint64_t number, const std::string& what) {
    if (number >= values_.size() || values_[number].first.empty())
      fail(what + " uses value " + std::to_string(number) + " before it is defined");
    return values_[number];
  }

  void region(const IrRegion& r, bool inFunction, const std::string& what) {
    if (r.blocks.size() != 1) unsupported(what + ": a region of " + std::to_string(r.blocks.size()) + " blocks");
    const IrBlock& block = r.blocks[0];
    out_ += "{";
    ++indent_;
    if (!block.arguments.empty() || !inFunction) {
      newline();
      out_ += "^bb0(";
      for (size_t i = 0; i < block.arguments.size(); ++i) {
        const uint64_t number = block.firstArgument + i;
        std::string name = scope_ + std::to_string(number);
        std::string type = typeText(block.arguments[i].type, what + "'s block argument");
        out_ += (i ? ", " : "") + name + ": " + type;
        if (block.arguments[i].location) out_ += " loc(" + location(*block.arguments[i].location) + ")";
        defineValue(number, std::move(name), std::move(type));
      }
      out_ += "):";
    }
    for (const IrOp& op : block.ops) {
      newline();
      operation(op, inFunction, what);
    }
    --indent_;
    newline();
    out_ += "}";
  }

  // A Shardy attribute's text inside a Shardy op.
  std::string shardyInner(uint64_t index, const std::string& what) {
    const DecodedAttribute& a = attrs_.at(index);
    if (a.kind != Kind::Text) fail(what + " is not a Shardy attribute");
    return a.inner;
  }

  // The operands of `op`, as "%a, %b" and their types "t1, t2".
  std::pair<std::string, std::string> operandList(const IrOp& op, const std::string& what) {
    std::string names, types;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const auto& [name, type] = value(op.operands[i], what);
      names += (i ? ", " : "") + name;
      types += (i ? ", " : "") + type;
    }
    return {names, types};
  }

  // shard_map's body (sdy.manual_computation: properties in_shardings, manual_axes,
  // out_shardings; one region, isolated from above, ending in sdy.return).
  void manualComputation(const IrOp& op, const std::string& where) {
    const std::string name = "sdy.manual_computation";
    if (op.regions.size() != 1 || op.regions[0].blocks.size() != 1)
      fail(name + " in " + where + " without its one region of one block");
    const std::vector<uint64_t> p = properties(op, 3, name);
    const auto [operands, operandTypes] = operandList(op, name);
    std::vector<std::string> resultTypes;
    for (uint64_t t : op.resultTypes) resultTypes.push_back(typeText(t, name + "'s result"));
    const std::string base = scope_ + std::to_string(op.firstResult);
    if (resultTypes.size() == 1) out_ += base + " = ";
    if (resultTypes.size() > 1) out_ += base + ":" + std::to_string(resultTypes.size()) + " = ";
    out_ += name + "(" + operands + ") in_shardings=" + shardyInner(p[0], name + "'s in_shardings") +
            " out_shardings=" + shardyInner(p[2], name + "'s out_shardings") +
            " manual_axes=" + shardyInner(p[1], name + "'s manual_axes") + " (";
    std::vector<std::pair<std::string, std::string>> enclosing;
    const std::string enclosingScope = scope_;
    if (op.isolated) {
      enclosing.swap(values_);
      scope_ = "%i" + std::to_string(++isolatedScopes_) + "_";
    }
    const IrBlock& block = op.regions[0].blocks[0];
    for (size_t i = 0; i < block.arguments.size(); ++i) {
      const uint64_t number = block.firstArgument + i;
      std::string arg = scope_ + std::to_string(number);
      std::string type = typeText(block.arguments[i].type, name + "'s block argument");
      out_ += (i ? ", " : "") + arg + ": " + type;
      defineValue(number, std::move(arg), std::move(type));
    }
    out_ += ") {";
    ++indent_;
    for (const IrOp& inner : block.ops) {
      newline();
      operation(inner, false, name + " in " + where);
    }
    --indent_;
    newline();
    out_ += "}";
    if (op.isolated) {
      values_.swap(enclosing);
      scope_ = enclosingScope;
    }
    std::string results;
    for (size_t i = 0; i < resultTypes.size(); ++i) results += (i ? ", " : "") + resultTypes[i];
    out_ += " : (" + operandTypes + ") -> (" + results + ") loc(" + location(op.location) + ")";
    for (size_t i = 0; i < resultTypes.size(); ++i)
      defineValue(op.firstResult + i, resultTypes.size() == 1 ? base : base + "#" + std::to_string(i), resultTypes[i]);
  }

  // Shardy's ops inside functions, in the pretty form the parser reads (sdy_import.cc):
  // manual computations and their returns, sharding constraints and reshards (their one
  // property, the sharding).
  void shardyOperation(const IrOp& op, const std::string& where) {
    const std::string name = opName(op);
    if (name == "sdy.manual_computation") return manualComputation(op, where);
    if (name == "sdy.return") {
      const auto [operands, types] = operandList(op, name);
      out_ += "sdy.return" + (operands.empty() ? "" : " " + operands + " : " + types) + " loc(" + location(op.location) + ")";
      return;
    }
    if ((name != "sdy.sharding_constraint" && name != "sdy.reshard") || op.operands.size() != 1 ||
        op.resultTypes.size() != 1 || !op.regions.empty())
      unsupported("op " + name + " in " + where +
                  " (kiln reads Shardy's meshes, manual computations, sharding constraints and reshards)");
    const std::vector<uint64_t> p = properties(op, 1, name);
    const auto& [operand, type] = value(op.operands[0], name);
    const std::string result = scope_ + std::to_string(op.firstResult);
    out_ += result + " = " + name + " " + operand + " " + shardyInner(p[0], name + "'s sharding") + " : " + type +
            " loc(" + location(op.location) + ")";
    defineValue(op.firstResult, result, typeText(op.resultTypes[0], name + "'s result"));
  }

  void operation(const IrOp& op, bool inFunction, const std::string& where) {
    const std::string vhloName = opName(op);
    const OpName& n = c_.opNames[op.name];
    if (c_.dialects[n.dialect].name == "sdy") return shardyOperation(op, where);
    if (vhloName == "builtin.unrealized_conversion_cast" && op.operands.size() == 1 && op.resultTypes.size() == 1) {
      // The serializer's bridge between VHLO's tensor types and the builtin ones of
      // other dialects' ops (Shardy's): the same tensor for kiln.
      const auto [operand, type] = value(op.operands[0], vhloName);
      if (typeText(op.resultTypes[0], vhloName) != type) fail(vhloName + " in " + where + " changes " + type);
      defineValue(op.firstResult, operand, type);
      return;
    }
    if (c_.dialects[n.dialect].name != "vhlo") unsupported("op " + vhloName + " in " + where);
    const OpInfo* info = opOfVhlo(n.name);
    if (!info) unsupported("op " + vhloName + " (kiln reads the VHLO ops of StableHLO " + versionText() + ")");
    std::string stablehloName(info->name);
    // VHLO has one return for functions and for the regions of ops.
    if (info->name == "func.return" && !inFunction) stablehloName = "stablehlo.return";
    const std::string what = vhloName + " in " + where;
    NamedAttrList attrs = vhlo_.opAttributes(*info, properties(op, propertyCount(*info), what), what);
    if (op.attributes) {
      const DecodedAttribute& extra = attrs_.at(*op.attributes);
      if (extra.kind != Kind::Dictionary) fail(what + "'s attributes are not a dictionary");
      for (const auto& [key, value] : extra.entries) {
        const std::string name = attrs_.stringAt(key, what + "'s attribute name");
        // Shardy's hint to its own propagation, in Shardy's bytecode encoding: kiln's
        // partitioner has rules of its own (passes/sharding/sharding_rules.h).
        if (name == "sdy.sharding_rule") continue;
        setAttr(attrs, name, vhlo_.attribute(value, what + "'s " + name));
      }
    }
    // Results, named by their numbers.
    std::vector<std::string> resultTypes;
    for (uint64_t t : op.resultTypes) resultTypes.push_back(typeText(t, what + "'s result"));
    const std::string base = scope_ + std::to_string(op.firstResult);
    if (resultTypes.size() == 1) out_ += base + " = ";
    if (resultTypes.size() > 1) out_ += base + ":" + std::to_string(resultTypes.size()) + " = ";
    std::string operands, operandTypes;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const auto& [name, type] = value(op.operands[i], what);
      operands += (i ? ", " : "") + name;
      operandTypes += (i ? ", " : "") + type;
    }
    out_ += "\"" + stablehloName + "\"(" + operands + ")";
    if (!op.successors.empty()) unsupported(what + ": successor blocks");
    if (!op.regions.empty()) {
      // The regions of an op isolated from above (reduce's body) number their values
      // from 0 again: they get names of their own and do not see the enclosing ones.
      std::vector<std::pair<std::string, std::string>> enclosing;
      const std::string enclosingScope = scope_;
      if (op.isolated) {
        enclosing.swap(values_);
        scope_ = "%i" + std::to_string(++isolatedScopes_) + "_";
      }
      out_ += " (";
      for (size_t i = 0; i < op.regions.size(); ++i) {
        if (i) out_ += ", ";
        region(op.regions[i], false, what);
      }
      out_ += ")";
      if (op.isolated) {
        values_.swap(enclosing);
        scope_ = enclosingScope;
      }
    }
    if (!attrs.empty()) out_ += " " + printAttribute(Attribute::dictionary(attrs));
    out_ += " : (" + operandTypes + ") -> ";
    std::string results;
    for (size_t i = 0; i < resultTypes.size(); ++i) results += (i ? ", " : "") + resultTypes[i];
    out_ += resultTypes.size() == 1 && resultTypes[0].rfind("tuple<", 0) != 0 ? results : "(" + results + ")";
    out_ += " loc(" + location(op.location) + ")";
    for (size_t i = 0; i < resultTypes.size(); ++i)
      defineValue(op.firstResult + i, resultTypes.size() == 1 ? base : base + "#" + std::to_string(i), resultTypes[i]);
  }

  const Container& c_;
  const std::string& name_;
  TypeTable types_;
  AttributeTable attrs_;
  VhloAttributes vhlo_;
  std::string out_;
  int indent_ = 0;
  std::map<uint64_t, std::string> locations_;
  std::vector<std::pair<std::string, std::string>> values_;  // by number: name, type
  std::string scope_ = "%";  // the prefix of value names in the current isolated scope
  int isolatedScopes_ = 0;
};

}  // namespace
}  // namespace bytecode

bool isBytecode(std::string_view bytes) { return bytecode::isBytecode(bytes); }

std::string bytecodeToText(std::string_view bytes, const std::string& name) {
  const bytecode::Container c = bytecode::readContainer(bytes, name);
  // StableHLO's serializer names the version it wrote for in the producer.
  int version[3] = {0, 0, 0};
  if (std::sscanf(c.producer.c_str(), "StableHLO_v%d.%d.%d", &version[0], &version[1], &version[2]) == 3 &&
      std::lexicographical_compare(kStablehloVersion, kStablehloVersion + 3, version, version + 3))
    throw Error(ErrorKind::Unsupported, "unsupported: " + name + " was written for " + c.producer.substr(10) +
                                            ", newer than StableHLO " + bytecode::versionText() +
                                            ", whose ops kiln reads (ask the framework for that version)");
  const std::vector<bytecode::IrOp> top = bytecode::readIr(c, name);
  return bytecode::TextWriter(c, name).write(top);
}

std::unique_ptr<Module> parseBytecode(std::string_view bytes, const std::string& name, const ParseOptions& options) {
  return parseModule(SourceBuffer::fromString(name + " (as StableHLO text)", bytecodeToText(bytes, name)), options);
}

}  // namespace kiln::stablehlo
